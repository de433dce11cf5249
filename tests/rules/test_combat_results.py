"""Resolving one attack (rules 9.3-9.7, 9.91-9.94, 10.21, 12.21, 12.51, 16.73, 19.51) on
constructed positions: the totals and the CRT cell read, the logged result, the step
losses, standing ground and retreats that follow, each set by a fixed 2d6 roll.
"""

from __future__ import annotations

import pytest

from malta_sim.iod.game import EventLog, IllegalDecision
from malta_sim.iod.rules import combat
from malta_sim.iod.state import (ALLIED, AXIS, BOX_MAP, DEMORALIZED, DISORGANIZED, NORMAL)

from tests.conftest import h, make, Scripted, static, u

INF = "axis.4.1_34"             # 6-6 infantry battalion, three steps (index below 2_34's)
INF2 = "axis.4.2_34"
ENG = "axis.4.eng_11.1"         # 1-1 engineer company, one step
BRIT = "allied.uk.8m"           # 6-6 British battalion, three steps, morale 4
COY = "allied.uk.inf_coy.1"     # 2-2 British company, one step
ART_GB = "allied.uk.art_12"     # British artillery, defensive support 3
ART_AX = "axis.4.art_28"


def _game(placements, turn=4, allied=None, axis=None, seed=0):
    return make(placements, turn=turn, seed=seed,
                policies=(axis or Scripted(AXIS), allied or Scripted(ALLIED)))


def _cell(res):
    """The CRT cell of the attack's line, column and roll."""
    return tuple(int(x) for x in static().charts.crt[res.line, res.column, res.roll])


def _where(g, name):
    x = u(name)
    return static().grid.hex_id(int(g.state.hex[x])) if g.state.box[x] == BOX_MAP else None


# ------------------------------------------------------------------ 9.3, 9.91, 9.94: totals and the cell
@pytest.mark.parametrize("case", ["clear", "city", "fort", "fort destroyed"])
def test_rule_9_91_9_94_defense_doubled_in_a_city_or_undestroyed_fort_and_fort_hit(case):
    """Rule 9.91: the defense strength of units in a city or in an undestroyed
    fort is doubled (a destroyed fort no longer counts, 17.1); rule 9.94: an
    undestroyed fort takes one hit off the defender's result.  A British 6-6
    battalion attacked by two Axis battalions, roll 12."""
    att_hex, def_hex = {"clear": ("1310", "1311"), "city": ("1712", "1711"),
                        "fort": ("1109", "1110"), "fort destroyed": ("1109", "1110")}[case]
    t = static()
    assert bool(t.city[h(def_hex)]) == (case == "city")
    assert bool(t.fort[h(def_hex)]) == case.startswith("fort")
    g = _game({att_hex: [INF, INF2], def_hex: [BRIT]})
    g.state.fort_destroyed[h(def_hex)] = case == "fort destroyed"
    res = combat.resolve_attack(g, AXIS, h(def_hex), [u(INF), u(INF2)], fixed_roll=12)
    doubled = case in ("city", "fort")
    assert res.defense_total == (12 if doubled else 6)
    assert res.attack_total == 12
    ah, ae, dh, de = _cell(res)
    if case == "fort":
        assert dh > 0 and res.result == (ah, ae, dh - 1, de)          # 9.94
    else:
        assert res.result == (ah, ae, dh, de)


def test_rule_11_4_a_demoralized_defender_defends_at_half():
    """Rules 9.3 b and 11.4: a demoralized defender's strength enters the
    defense total halved (a 6-6 battalion: 3), the other at its printed value."""
    g = _game({"1310": [INF], "1311": [BRIT, "allied.uk.2rwk"]})
    g.state.morale_state[u(BRIT)] = DEMORALIZED
    res = combat.resolve_attack(g, AXIS, h("1311"), [u(INF)], fixed_roll=7)
    assert res.defense_total == 3 + 6


def test_rule_12_21_defensive_support_capped_at_the_printed_defense():
    """Rule 12.21: defensive support beyond the printed defense strength of the
    defending units is lost: the British battery (3) supports a 2-2 company,
    so the defense is 2 + 2; two companies (printed 4): 4 + 3."""
    assert int(static().def_support[u(ART_GB)]) == 3
    g = _game({"1310": [INF], "1311": [COY], "1312": [ART_GB]})
    res = combat.resolve_attack(g, AXIS, h("1311"), [u(INF)], dsupport=[u(ART_GB)], fixed_roll=7)
    assert res.defense_total == 2 + 2
    g = _game({"1310": [INF], "1311": [COY, "allied.uk.inf_coy.2"], "1312": [ART_GB]})
    res = combat.resolve_attack(g, AXIS, h("1311"), [u(INF)], dsupport=[u(ART_GB)], fixed_roll=7)
    assert res.defense_total == 4 + 3


def test_rule_9_3_g_the_lowest_column_is_fought_and_below_it_cancelled():
    """Rule 9.3 g: odds of 1:3 on the all-other-terrains line are the line's
    first column and are resolved (a roll is read); lower odds cancel the
    attack, which is logged with no roll and no losses."""
    g = _game({"1310": [(INF, 2)], "1311": [BRIT]})                 # 2 against 6
    res = combat.resolve_attack(g, AXIS, h("1311"), [u(INF)], fixed_roll=7)
    assert res.final_level == -1 and res.column == 0 and not res.cancelled
    assert static().charts.crt_columns[res.column] == "1:3"
    assert res.roll == 7 and res.result == _cell(res)
    g = _game({"1310": [ENG], "1311": [BRIT]})                        # 1 against 6
    res = combat.resolve_attack(g, AXIS, h("1311"), [u(ENG)], fixed_roll=7)
    assert res.cancelled and res.column == -1 and res.roll == 0
    assert g.state.box[u(ENG)] == BOX_MAP and g.steps(u(BRIT)) == 3
    assert [r["action"] for r in g.events.rows if r["rule"] == "9.3"] == ["attack cancelled"]


def test_rule_9_4_the_logged_result_names_hits_and_effects():
    """Rule 9.4: the logged result gives each side's hits and its D or Z:
    the 9.9 example's -/3D, a Z for the defender at high odds and a 1:2
    attack's 3D for the attacker."""
    from tests.conftest import example_9_9
    g, att, sup = example_9_9()
    combat.resolve_attack(g, AXIS, h("1311"), att, support=sup,
                          dsupport=[u("allied.uk.art_12")], fixed_roll=6)
    row = [r for r in g.events.rows if r["action"] == "attack"][0]
    assert row["result"].startswith("0/3D att 29 def 15")
    g = _game({"1310": [INF, INF2, "axis.4.3_34"], "1311": [BRIT]})        # 18:6, 3:1 before modifiers
    res = combat.resolve_attack(g, AXIS, h("1311"), [u(INF), u(INF2), u("axis.4.3_34")],
                                fixed_roll=12)
    dh = res.result[2]
    assert res.result == (0, 0, dh, 2) and dh > 0
    assert [r for r in g.events.rows if r["action"] == "attack"][0]["result"].startswith(f"0/{dh}Z ")
    g = _game({"1310": [INF], "1311": [BRIT, "allied.uk.2rwk"]})          # 6:12, 1:2
    res = combat.resolve_attack(g, AXIS, h("1311"), [u(INF)], fixed_roll=2)
    assert res.result == (3, 1, 0, 0)
    assert [r for r in g.events.rows if r["action"] == "attack"][0]["result"].startswith("3D/0 ")


def test_rule_9_12_attackers_marked_and_offensive_support_fired():
    """Rules 9.12 and 12.5: after an attack its units are marked as having
    attacked this phase and its supporting artillery as having fired; a piece
    that took no part is not marked."""
    g = _game({"1310": [INF, INF2], "1409": [ART_AX], "1311": [BRIT]})
    combat.resolve_attack(g, AXIS, h("1311"), [u(INF)], support=[u(ART_AX)], fixed_roll=7)
    s = g.state
    assert s.attacked[u(INF)] and not s.attacked[u(INF2)]
    assert s.fired[u(ART_AX)] and s.salvos[u(ART_AX)] == 1


def test_rule_12_51_defensive_support_rolls_for_its_salvo():
    """Rule 12.51: after the combat the defending battery rolls one die: 1-2
    spends a salvo, 3-6 does not.  Seeds are tried until both were seen."""
    seen = set()
    for seed in range(40):
        g = _game({"1310": [INF], "1311": [BRIT], "1312": [ART_GB]}, seed=seed)
        combat.resolve_attack(g, AXIS, h("1311"), [u(INF)], dsupport=[u(ART_GB)], fixed_roll=7)
        rows = [r for r in g.events.rows if r["action"] == "defensive fire ammunition"]
        assert len(rows) == 1
        die = int(rows[0]["dice"])
        assert int(g.state.salvos[u(ART_GB)]) == (1 if die <= 2 else 2)
        seen.add(die <= 2)
        if seen == {True, False}:
            break
    assert seen == {True, False}


def test_rule_16_73_warship_communications_fail_on_one_to_three():
    """Rule 16.73: one die for a warship giving support; 1-3 (the edge 3
    included) and its support is not added and it may not fire this turn, 4-6
    and it is added.  Seeds are tried until dice of 3 and 4 were both seen."""
    ship = u("axis.rm.cadorna")                                         # offensive support 4
    seen = set()
    for seed in range(80):
        g = _game({"1310": [INF], "1311": [BRIT]}, seed=seed)
        res = combat.resolve_attack(g, AXIS, h("1311"), [u(INF)], support=[ship], fixed_roll=7)
        rows = [r for r in g.events.rows if r["action"] == "warship communications"]
        assert len(rows) == 1 and rows[0]["rule"] == "16.73"
        die = int(rows[0]["dice"])
        failed = die <= 3
        assert rows[0]["result"] == ("failed" if failed else "ok")
        assert res.attack_total == (6 if failed else 6 + 4)
        assert (int(g.state.comm_failed_turn[ship]) == g.turn) == failed
        seen.add(die)
        if {3, 4} <= seen:
            break
    assert {3, 4} <= seen


def test_rule_19_51_no_support_of_any_kind_in_a_hostile_landing():
    """Rule 19.51: a hostile landing's combat takes no artillery or warship
    support of either side and no air support: each alone is refused."""
    for kw in ({"support": [u(ART_AX)]}, {"dsupport": [u(ART_GB)]}, {"air": 1}):
        g = _game({"1311": [INF, BRIT], "1409": [ART_AX], "1312": [ART_GB]})
        with pytest.raises(IllegalDecision, match="19.51"):
            combat.resolve_attack(g, AXIS, h("1311"), [u(INF)], drop=True, fixed_roll=7, **kw)


def test_rule_10_21_night_support_disorganized_and_every_surviving_attacker_marked():
    """Rule 10.21 at night: the attack's own D demoralizes the surviving
    attacker; the supporting battery, not hit by the result, ends only
    disorganized, and one that was already disorganized ends demoralized; an
    attacker eliminated first does not stop the others being marked."""
    for art_start in (NORMAL, DISORGANIZED):
        # night, 8 + support against 6, roll 2: 3D for the attacker
        g = _game({"1310": [(INF, 2), INF2], "1409": [ART_AX], "1311": [BRIT]},
                  turn=7)
        assert g.night
        s = g.state
        s.morale_state[u(ART_AX)] = art_start
        res = combat.resolve_attack(g, AXIS, h("1311"), [u(INF), u(INF2)], support=[u(ART_AX)],
                                    fixed_roll=2)
        assert res.result[:2] == (3, 1), res
        assert s.box[u(INF)] != BOX_MAP                                 # its last step lost first
        assert s.box[u(INF2)] == BOX_MAP and s.morale_state[u(INF2)] == DEMORALIZED
        want = DISORGANIZED if art_start == NORMAL else DEMORALIZED
        assert s.morale_state[u(ART_AX)] == want, art_start


# ------------------------------------------------------------------ 9.41-9.43, 9.6, 9.7, 9.92: the results applied
class _Owner(Scripted):
    """A bot that records what it is offered: each list of retreat hexes
    (9.61; it takes the last), each advance offer's length (9.82; it advances
    every eligible piece when ``advance``)."""

    def __init__(self, side, stand=False, advance=False):
        super().__init__(side, stand=stand, advance=advance)
        self.retreats: list = []
        self.lengths: list = []

    def choose_retreat(self, game, units, options):
        self.retreats.append(list(options))
        return options[-1]

    def choose_advance(self, game, units, target, length):
        self.lengths.append(int(length))
        return super().choose_advance(game, units, target, length)


def _attack(placements, attackers, want, turn=4, seed=0, axis=None, allied=None, **kw):
    """Attack ``placements``' Allied hex next to the first attacker with
    ``attackers`` (names) and the first 2d6 roll whose CRT cell ``want(cell)``
    accepts on the attack's line and column (read off a first attack with the
    same seed); returns the game and the result."""
    target = kw.pop("target", "1311")

    def run(roll, a=None, b=None):
        g = _game(placements, turn=turn, seed=seed, axis=a, allied=b)
        return g, combat.resolve_attack(g, AXIS, h(target), [u(x) for x in attackers],
                                        fixed_roll=roll, **kw)

    _, probe = run(7)
    assert not probe.cancelled, probe
    crt = static().charts.crt
    rolls = [r for r in range(2, 13)
             if want(tuple(int(x) for x in crt[probe.line, probe.column, r]))]
    assert rolls, f"no roll gives the wanted result on column {probe.column}"
    return run(rolls[0], axis, allied)


def test_rule_9_43_one_attacker_hit_is_a_step_loss_and_no_retreat():
    """Rule 9.43: an attacker with one hit loses one step and does not
    retreat; the defenders, with no hit, stay and keep the hex."""
    g, res = _attack({"1310": [(INF, 1)], "1311": [BRIT, "allied.uk.2rwk"]}, [INF],
                     lambda c: c[:3] == (1, 0, 0))
    assert res.result[:3] == (1, 0, 0)
    assert g.steps(u(INF)) == 1 and _where(g, INF) == "1310"
    assert _where(g, BRIT) == "1311" and g.steps(u(BRIT)) == 3
    assert g.state.morale_state[u(INF)] == NORMAL


def test_rule_9_41_9_42_attacker_d_disorganizes_it_and_it_retreats_the_hits_left():
    """Rules 9.41-9.43: a 3D for the attacker: two steps lost (half of three,
    rounded up), one hex of retreat away from the attacked hex, disorganized;
    the defenders, with no result, stay as they were."""
    g, res = _attack({"1310": [INF], "1311": [BRIT, "allied.uk.2rwk"]}, [INF],
                     lambda c: c[:2] == (3, 1) and c[2] == 0)
    d = static().grid.distance_table
    assert g.steps(u(INF)) == 1
    assert d[g.state.hex[u(INF)], h("1311")] == 2 and d[g.state.hex[u(INF)], h("1310")] == 1
    assert g.state.morale_state[u(INF)] == DISORGANIZED
    assert all(g.state.morale_state[u(x)] == NORMAL and _where(g, x) == "1311"
               for x in (BRIT, "allied.uk.2rwk"))


def test_rule_14_3_an_attacking_leader_left_alone_retreats_with_its_stack():
    """Rule 14.3: the attacker's leader stacked with the retreating units goes
    with them when no other unit stays in the hex; a unit of the hex that did
    not attack keeps the leader there."""
    ldr = "axis.4.ldr.chirelson"
    for stayer in (False, True):
        place = {"1310": [INF, ldr] + (["axis.4.3_34"] if stayer else []),
                 "1311": [BRIT, "allied.uk.2rwk"]}
        for seed in range(30):
            g, res = _attack(place, [INF], lambda c: c[:2] == (3, 1) and c[2] == 0, seed=seed)
            if g.state.box[u(ldr)] == BOX_MAP:          # it survived its casualty roll (14.41)
                break
        assert g.state.box[u(ldr)] == BOX_MAP
        assert _where(g, INF) != "1310"
        assert _where(g, ldr) == ("1310" if stayer else _where(g, INF)), stayer


def test_rule_9_41_a_z_demoralizes_the_defenders_only():
    """Rule 9.41: a Z for the defender demoralizes its units; the attacker,
    with no result letter, stays in good order."""
    g, res = _attack({"1310": [INF, INF2, "axis.4.3_34"], "1311": [BRIT]},
                     [INF, INF2, "axis.4.3_34"], lambda c: c[:2] == (0, 0) and c[3] == 2 and c[2] == 3)
    assert g.state.box[u(BRIT)] == BOX_MAP and g.steps(u(BRIT)) == 2
    assert g.state.morale_state[u(BRIT)] == DEMORALIZED
    assert all(g.state.morale_state[u(x)] == NORMAL for x in (INF, INF2, "axis.4.3_34"))


def test_rule_9_61_the_defender_retreats_away_from_the_attacking_hexes():
    """Rule 9.61: a retreat goes one hex farther from the enemy units of the
    combat at each hex when it can: with two hexes to retreat, the options
    offered for each hex are all farther from the attacker's hex than the
    last."""
    own = _Owner(ALLIED)
    g, res = _attack({"1310": [INF, INF2, "axis.4.3_34"], "1311": [BRIT]},
                     [INF, INF2, "axis.4.3_34"], lambda c: c[:2] == (0, 0) and c[2] == 5, allied=own)
    assert res.defender_retreat == 3 and len(own.retreats) == 3
    d = static().grid.distance_table
    for k, opts in enumerate(own.retreats):
        assert opts and all(d[o, h("1310")] == k + 2 for o in opts), (k, opts)


def test_rule_9_8_a_defender_left_in_the_hex_stops_the_advance():
    """Rule 9.8: a strongpoint (defense 1) with no hit keeps its hex, so the
    attacker, which lost a step and did not retreat, may not advance into it."""
    sp = "allied.sp.a.1"
    assert int(static().defense[u(sp), 0]) == 1
    own = _Owner(AXIS, advance=True)
    g, res = _attack({"1310": [(INF, 1)], "1311": [sp]}, [INF], lambda c: c[:3] == (1, 0, 0),
                     axis=own)
    assert g.steps(u(INF)) == 1
    assert _where(g, sp) == "1311" and _where(g, INF) == "1310"
    assert own.lengths == []                                           # no advance offered


def test_rule_9_82_defenders_that_stood_and_died_leave_no_retreat_length():
    """Rules 9.72 and 9.82: a strongpoint and a militia unit (neither can
    move) take a 3-hit result: one step lost, the two retreat hits taken by
    the unit left standing, which dies too.  Nobody retreated, so the advance
    is offered for the minimum of one hex, not the two retreat hits."""
    own = _Owner(AXIS, advance=True)
    g, res = _attack({"1310": [INF, INF2, "axis.4.3_34"], "1311": ["allied.sp.a.1", "allied.mil.4"]},
                     [INF, INF2, "axis.4.3_34"], lambda c: c[0] == 0 and c[2] == 3, axis=own)
    assert all(g.state.box[u(x)] != BOX_MAP for x in ("allied.sp.a.1", "allied.mil.4"))
    assert res.defender_retreat == 0 and res.pending == 0
    assert own.lengths == [1]
    assert _where(g, INF) == "1311"


def test_rule_6_52_a_zero_defense_piece_left_in_the_hex_does_not_stop_the_advance():
    """Rules 9.8 and 6.52: the defenders retreat and leave a coastal gun
    (defense zero) behind; the attacker advances into the hex all the same."""
    cg = "allied.cg.light.1"
    g, res = _attack({"1310": [INF, INF2, "axis.4.3_34"], "1311": [BRIT, cg]},
                     [INF, INF2, "axis.4.3_34"], lambda c: c[0] == 0 and c[2] == 3,
                     axis=_Owner(AXIS, advance=True))
    assert res.defender_retreat == 2
    assert _where(g, INF) == "1311"


def test_rule_9_92_engineers_take_the_first_half_of_the_attackers_losses():
    """Rule 9.92: with the engineer modifier (an attack on a fort), half the
    attacker's step losses (rounded up) come from engineers: two steps lost,
    the first from an engineer company, the second as the owner chooses (the
    infantry), so the second engineer company is untouched."""
    e2 = "axis.4.eng_11.2"
    g, res = _attack({"1109": [INF, ENG, e2], "1110": [BRIT]}, [INF, ENG, e2],
                     lambda c: c[0] == 3, target="1110")
    assert "engineers" in res.modifiers
    assert g.state.box[u(ENG)] != BOX_MAP
    assert g.steps(u(INF)) == 2 and g.state.box[u(e2)] == BOX_MAP


def test_rule_9_42_without_the_engineer_modifier_the_owner_chooses_the_loss():
    """Rules 9.42 and 9.92: engineers attacking a clear hex give no modifier
    and so take no loss first: the owner's choice (the infantry) loses the
    step."""
    g, res = _attack({"1310": [(INF, 1), ENG], "1311": [BRIT, "allied.uk.2rwk"]}, [INF, ENG],
                     lambda c: c[:3] == (1, 0, 0))
    assert "engineers" not in res.modifiers
    assert g.steps(u(INF)) == 1 and g.state.box[u(ENG)] == BOX_MAP


# ------------------------------------------------------------------ 9.7 standing ground
def _stand(placements, seeds=range(80), want_dice=(4,)):
    """A 1:1-or-better attack from 1310 on 1311 whose result is one hit (a
    hex of retreat, no step) for the defender, which tries to stand (9.71);
    yields ``(die, game)`` per seed until the dice in ``want_dice`` were seen."""
    seen = set()
    for seed in seeds:
        g, res = _attack(placements, [INF, INF2], lambda c: c[:3] == (0, 0, 1) and c[3] == 0,
                         seed=seed, allied=Scripted(ALLIED, stand=True))
        rows = [r for r in g.events.rows if r["action"] == "stand ground"]
        assert len(rows) == 1 and rows[0]["rule"] == "9.71"
        die = int(rows[0]["dice"])
        yield die, g
        seen.add(die)
        if set(want_dice) <= seen:
            return
    raise AssertionError(f"dice {want_dice} not all seen: {seen}")


def test_rule_9_71_stacked_with_its_formation_leader_a_unit_stands_on_its_morale():
    """Rule 9.71: a British battalion (morale 4) stacked with Beak, its
    formation leader, subtracts one from the die: it stands on a 4 or less
    and takes its retreat hit as a step; on a 5 or 6 it retreats one hex."""
    assert static().formation_leader[0] == u("allied.ldr.beak")
    for die, g in _stand({"1310": [INF, INF2], "1311": [BRIT, "allied.ldr.beak"]}, want_dice=(4, 5)):
        if die <= 4:
            assert _where(g, BRIT) == "1311" and g.steps(u(BRIT)) == 2, die
        else:
            assert _where(g, BRIT) != "1311" and g.steps(u(BRIT)) == 3, die


def test_rule_9_71_a_leader_in_an_adjacent_hex_does_not_help():
    """Rule 9.71: the leader next to the battalion (not stacked with it)
    gives no modifier: a 4 makes the morale-4 battalion retreat."""
    for die, g in _stand({"1310": [INF, INF2], "1311": [BRIT], "1312": ["allied.ldr.beak"]},
                         want_dice=(3, 4)):
        stood = die < 4
        assert (_where(g, BRIT) == "1311") == stood, die
        assert g.steps(u(BRIT)) == (2 if stood else 3), die


def test_rule_9_7_no_stand_roll_without_a_hit_to_retreat_or_with_no_unit_free_to_move():
    """Rules 9.7 and 9.72: standing ground is rolled only to avoid a retreat:
    no roll when the result has no retreat hit (the defenders simply stay),
    and none for a strongpoint, which cannot move and stands without one."""
    g, res = _attack({"1310": [(INF, 1)], "1311": [BRIT, "allied.uk.2rwk"]}, [INF],
                     lambda c: c[:3] == (1, 0, 0), allied=Scripted(ALLIED, stand=True),
                     axis=Scripted(AXIS, stand=True))
    assert not [r for r in g.events.rows if r["action"] == "stand ground"]
    assert _where(g, BRIT) == "1311" and _where(g, INF) == "1310"
    sp = "allied.sp.a.1"
    g, res = _attack({"1310": [(INF, 2)], "1311": [sp]}, [INF], lambda c: c[2] == 1 and c[0] == 0,
                     allied=Scripted(ALLIED, stand=True))
    assert not [r for r in g.events.rows if r["action"] == "stand ground"]
    assert g.state.box[u(sp)] != BOX_MAP                              # its one step taken


# ------------------------------------------------------------------ 9.52, 9.92, 14.41: taking step losses
def test_rule_9_5_the_owner_chooses_which_unit_loses_a_step():
    """Rule 9.42: the controlling player chooses the units that take the step
    losses; a defending engineer company is not made to lose first (that is
    only the attacker's engineer modifier, 9.92)."""
    eng = "allied.uk.eng_1"
    assert u(BRIT) < u(eng)                                 # the test bot takes the lowest index
    g = _game({"1311": [BRIT, eng]})
    assert combat.take_steps(g, [u(BRIT), u(eng)], 1, "combat") == 0        # no step left to take
    assert g.steps(u(BRIT)) == 2 and g.state.box[u(eng)] == BOX_MAP
    assert combat.take_steps(g, [u(BRIT), u(eng)], 0, "combat") == 0
    assert g.steps(u(BRIT)) == 2 and g.steps(u(eng)) == 1


def test_rule_9_92_engineers_first_for_the_first_half_only():
    """Rule 9.92: with one step to come from engineers, two losses are one
    engineer company and then the owner's choice (the infantry), not the
    second engineer company."""
    e2 = "axis.4.eng_11.2"
    g = _game({"1310": [INF, ENG, e2]})
    combat.take_steps(g, [u(INF), u(ENG), u(e2)], 2, "combat", 1)
    assert g.state.box[u(ENG)] != BOX_MAP and g.state.box[u(e2)] == BOX_MAP
    assert g.steps(u(INF)) == 2


def test_rule_14_41_leader_casualty_roll_counts_the_steps_lost_in_its_hex():
    """Rule 14.41: a stack with a leader that loses two steps rolls 2d6 minus
    one (the step beyond the first): a modified 3 or less (a roll of 4 or
    less) eliminates the leader.  Seeds are tried until rolls of 4 and of 5
    or 6 were seen."""
    ldr = "allied.ldr.beak"
    seen = set()
    for seed in range(400):
        g = _game({"1311": [BRIT, "allied.uk.2rwk", ldr]}, seed=seed)
        combat.take_steps(g, [u(BRIT), u("allied.uk.2rwk")], 2, "combat")
        rows = [r for r in g.events.rows if r["action"] == "leader casualty roll"]
        assert len(rows) == 1
        roll = int(rows[0]["dice"])
        assert (g.state.box[u(ldr)] != BOX_MAP) == (roll <= 4), roll
        seen.add(min(roll, 7))
        if {4, 5, 6} <= seen:
            break
    assert {4, 5, 6} <= seen, seen


# ------------------------------------------------------------------ 9.6, 9.61, 9.62, 7.3: retreats
def _full(*names):
    """Four British battalions: a full hex (7.1) for a fifth."""
    return ["allied.uk.11lf", "allied.uk.4b", "allied.uk.2rif", "allied.uk.1h",
            "allied.uk.1dli", "allied.uk.1dor", "allied.uk.2dev", "allied.mt.1k"][slice(*names)]


def test_rule_9_6_a_lone_unit_retreats_its_hexes_and_it_is_logged():
    """Rule 9.6: a single battalion retreats one hex, away from the attacker,
    and the retreat is logged with its path."""
    g = _game({"1310": [INF], "1311": [BRIT]})
    combat.retreat_stack(g, [u(BRIT)], 1, {h("1310")})
    d = static().grid.distance_table
    assert d[g.state.hex[u(BRIT)], h("1311")] == 1 and d[g.state.hex[u(BRIT)], h("1310")] == 2
    rows = [r for r in g.events.rows if r["action"] == "retreat"]
    assert len(rows) == 1 and rows[0]["result"] == "1 hexes" and rows[0]["rule"] == "9.6"
    assert rows[0]["hexes"].split()[0] == "1311"


def test_rule_7_3_the_last_retreat_hex_within_the_stacking_limit():
    """Rules 9.61 and 7.3: of the equally good hexes, the last hex of a
    retreat must be one the stack fits in: with 1411 full, the one-hex
    retreat is offered 1312 and 1211 only (the owner's choice, the last,
    is taken); with 1312 full too, 1211 is the only hex and the owner is not
    asked.  On a two-hex retreat the full hex may be passed through, so it
    is offered for the first hex (friendly units never block, 9.61)."""
    from malta_sim.iod.rules import organisation
    place = {"1310": [INF], "1311": [BRIT], "1411": _full(0, 4)}
    own = _Owner(ALLIED)
    g = _game(place, allied=own)
    assert not organisation.fits_stacking(g, [u(BRIT)], h("1411"))
    combat.retreat_stack(g, [u(BRIT)], 1, {h("1310")})
    assert own.retreats == [[h("1312"), h("1211")]] or own.retreats == [[h("1211"), h("1312")]]
    assert g.state.hex[u(BRIT)] == own.retreats[0][-1]
    own = _Owner(ALLIED)
    g = _game({**place, "1312": _full(4, 8)}, allied=own)
    combat.retreat_stack(g, [u(BRIT)], 1, {h("1310")})
    assert own.retreats == [] and _where(g, BRIT) == "1211"
    own = _Owner(ALLIED)
    g = _game(place, allied=own)
    combat.retreat_stack(g, [u(BRIT)], 2, {h("1310")})
    assert h("1411") in own.retreats[0] and len(own.retreats[0]) == 3
    assert static().grid.distance_table[g.state.hex[u(BRIT)], h("1310")] == 3


def test_rule_9_62_each_enemy_zoc_hex_entered_costs_the_stack_a_step():
    """Rule 9.62: every hex the British battalion can retreat into is in an
    Axis ZOC (1310, 1212 and 1412 hold Axis units): it retreats one hex and
    loses one step; its leader, retreating with it, loses none."""
    ldr = "allied.ldr.beak"
    for seed in range(30):
        g = _game({"1310": [INF], "1212": [INF2], "1412": ["axis.4.3_34"],
                   "1311": [BRIT, ldr]}, seed=seed)
        zoc = combat.movement.zoc_map(g, AXIS)
        assert all(zoc[y] for y in static().neighbours[h("1311")] if y >= 0 and y != h("1310"))
        combat.retreat_stack(g, [u(BRIT), u(ldr)], 1, {h("1310")})
        if g.state.box[u(ldr)] == BOX_MAP:               # it survived its casualty roll (14.41)
            break
    assert g.steps(u(BRIT)) == 2 and _where(g, BRIT) != "1311"
    assert _where(g, ldr) == _where(g, BRIT)


def test_rule_9_61_no_hex_to_retreat_into_eliminates_the_stack():
    """Rule 9.61: a British battalion surrounded by Axis units (every
    neighbouring hex occupied) cannot retreat and is eliminated; the log
    says why."""
    nbrs = [static().grid.hex_id(int(y)) for y in static().neighbours[h("1311")] if y >= 0]
    axis = ["axis.4.1_34", "axis.4.2_34", "axis.4.3_34", "axis.185.v_186", "axis.185.vi_186",
            "axis.185.vii_186"]
    g = _game({**{x: [a] for x, a in zip(nbrs, axis)}, "1311": [BRIT]})
    combat.retreat_stack(g, [u(BRIT)], 1, {h("1310")})
    assert g.state.box[u(BRIT)] != BOX_MAP
    rows = [r for r in g.events.rows if r["action"] == "retreat impossible"]
    assert len(rows) == 1 and rows[0]["rule"] == "9.61"


class _Asked(Scripted):
    """Records whether each stand-ground question is asked as attacker."""

    def __init__(self, side):
        super().__init__(side)
        self.asked: list = []

    def stand_ground(self, game, units, hits, attacker):
        self.asked.append(bool(attacker))
        return False


def test_rule_9_7_each_side_is_asked_about_standing_ground_as_what_it_is():
    """Rule 9.71: attacking and defending units may both try to stand their
    ground: the defender's owner is asked as defender, the attacker's (a 3D
    result: one hex to retreat) as attacker."""
    bot = _Asked(ALLIED)
    _attack({"1310": [INF, INF2, "axis.4.3_34"], "1311": [BRIT]}, [INF, INF2, "axis.4.3_34"],
            lambda c: c[0] == 0 and c[2] == 3, allied=bot)
    assert bot.asked == [False]
    bot = _Asked(AXIS)
    _attack({"1310": [INF], "1311": [BRIT, "allied.uk.2rwk"]}, [INF],
            lambda c: c[:2] == (3, 1) and c[2] == 0, axis=bot)
    assert bot.asked == [True]


def test_rule_9_62_a_retreat_ends_when_no_unit_is_left():
    """Rules 9.62 and 14.3: a one-step company retreating two hexes with its
    leader through enemy ZOC loses its step in the first hex; the retreat
    ends there, the leader going no farther."""
    ldr = "allied.ldr.beak"
    for seed in range(40):
        g = _game({"1310": [INF], "1212": [INF2], "1412": ["axis.4.3_34"],
                   "1311": [COY, ldr]}, seed=seed)
        combat.retreat_stack(g, [u(COY), u(ldr)], 2, {h("1310")})
        if g.state.box[u(ldr)] == BOX_MAP:               # it survived its casualty roll (14.41)
            break
    assert g.state.box[u(COY)] != BOX_MAP
    assert static().grid.distance_table[g.state.hex[u(ldr)], h("1311")] == 1


def test_rule_9_61_a_retreat_never_goes_back_into_a_hex_it_left():
    """Rule 9.61 (reading: a retreat never enters a hex twice): Axis units
    leave the British battalion one way out of 1311 (1312), then from 1312
    one way on (1313; with a two-hex retreat, none), then from 1313 none but
    back.  Going back into 1311 or 1312 is no retreat, so the battalion is
    eliminated, the log saying why, both when the way runs out after one hex
    and after two."""
    walls = {"1310": INF, "1411": INF2, "1211": "axis.4.3_34", "1412": "axis.185.v_186",
             "1212": "axis.185.vi_186"}
    more = {"1413": "axis.185.vii_186", "1314": "axis.185.ii_187", "1213": "axis.185.iv_187"}
    for n, extra in ((2, {"1313": "axis.185.ix_187"}), (3, more)):
        place = {x: [a] for x, a in {**walls, **extra}.items()}
        g = _game({**place, "1311": [BRIT]})
        combat.retreat_stack(g, [u(BRIT)], n, {h("1310")})
        rows = [r for r in g.events.rows if r["action"] == "retreat impossible"]
        assert len(rows) == 1, n
        assert rows[0]["hexes"].split() == ["1311", "1312", "1313"][:n], n
        assert g.state.box[u(BRIT)] != BOX_MAP


def test_rule_7_3_a_retreat_goes_on_at_most_three_hexes_to_find_room():
    """Rule 7.3 (reading, coverage row 7.3: at most three more hexes): four
    British battalions (a full stack) retreat one hex, and every hex offered
    on the way holds a British company, so none has room for them: they go
    on hex by hex looking for one, three hexes beyond their one, and stop
    there, still over the limit (7.2 deals with it at the end of the phase)."""
    stack = ["allied.uk.8m", "allied.uk.2rwk", "allied.uk.11lf", "allied.uk.4b"]
    coys = ["1411", "1312", "1211", "1212", "1112", "1113", "1012", "1013", "0913"]
    place = {"1310": [INF], "1311": stack,
             **{x: [f"allied.uk.inf_coy.{k}"] for k, x in enumerate(coys, 1)}}
    own = _Owner(ALLIED)
    g = _game(place, allied=own)
    combat.retreat_stack(g, [u(x) for x in stack], 1, {h("1310")})
    rows = [r for r in g.events.rows if r["action"] == "retreat"]
    assert rows[0]["hexes"].split() == ["1311", "1211", "1112", "1012", "0913"]
    assert rows[0]["result"] == "4 hexes"
    assert all(o in {h(x) for x in coys} for opts in own.retreats for o in opts)
    assert all(_where(g, x) == "0913" for x in stack)


def test_rule_19_53_landed_units_that_win_never_advance():
    """Rule 19.53: paratroop companies that clear the hex they landed in by
    their hostile-landing combat (19.51) do not advance after combat, though
    their owner would advance whenever asked."""
    paras = ["axis.ram.1_2.a", "axis.ram.1_2.b", "axis.ram.1_2.c"]
    own = _Owner(AXIS, advance=True)
    g, res = _attack({"1311": paras + [COY]}, paras, lambda c: c[2] >= 1 and c[0] == 0,
                     axis=own, drop=True)
    assert g.state.box[u(COY)] != BOX_MAP or _where(g, COY) != "1311"       # the hex is cleared
    assert own.lengths == [] and res.advanced == []
    assert all(_where(g, p) == "1311" and not g.state.advanced[u(p)] for p in paras)


def test_rule_14_3_the_defenders_leader_goes_with_the_units_that_retreat():
    """Rule 14.3: the defending battalion left with one step is eliminated by
    the step loss and the other retreats; no unit stays, so their leader,
    Beak, retreats with it."""
    ldr = "allied.ldr.beak"
    for seed in range(40):
        g, res = _attack({"1310": [INF, INF2, "axis.4.3_34"],
                          "1311": [(BRIT, 2), "allied.uk.2rwk", ldr]},
                         [INF, INF2, "axis.4.3_34"], lambda c: c[0] == 0 and c[2] == 3, seed=seed)
        if g.state.box[u(ldr)] == BOX_MAP:               # it survived its casualty roll (14.41)
            break
    assert g.state.box[u(BRIT)] != BOX_MAP and res.defender_retreat == 2
    assert _where(g, "allied.uk.2rwk") != "1311"
    assert _where(g, ldr) == _where(g, "allied.uk.2rwk")


def test_rule_6_52_a_zero_defense_strongpoint_left_alone_does_not_stop_the_advance():
    """Rules 9.71, 9.72, 9.8 and 6.52: a one-step British battalion stands its
    ground with a B strongpoint (defense 0, which cannot move and so stands
    too); the owner takes the retreat hit off the battalion, which is
    eliminated; the strongpoint left alone does not hold the hex, so the
    attackers advance into it and overrun it.  Seeds are tried until the
    battalion's roll lets it stand."""
    spb = "allied.sp.b.1"
    assert int(static().defense[u(spb), 0]) == 0 and u(BRIT) < u(spb)
    for seed in range(60):
        own = _Owner(AXIS, advance=True)
        g, res = _attack({"1310": [INF, INF2], "1311": [(BRIT, 2), spb]}, [INF, INF2],
                         lambda c: c[:3] == (0, 0, 1), seed=seed, axis=own,
                         allied=Scripted(ALLIED, stand=True))
        rows = [r for r in g.events.rows if r["action"] == "stand ground"]
        if int(rows[0]["dice"]) < 4:                         # morale 4: it stands
            break
    else:
        raise AssertionError("the battalion never stood")
    assert g.state.box[u(BRIT)] != BOX_MAP and res.defender_retreat == 0
    assert own.lengths == [1]
    assert _where(g, INF) == "1311" and g.state.box[u(spb)] != BOX_MAP
