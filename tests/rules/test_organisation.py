"""Breaking down and reforming battalions (rule 13), leaders (14) and formations (15) on
constructed positions, with the rulebook's example of 13.2; the battalions offered for a
break-down, the reform options, the formations offered for attachment and the
commanding leaders against plain references on random positions.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod import static as st
from malta_sim.iod.rules import combat, organisation
from malta_sim.iod.state import (AXIS, BOX_DISBANDMENT, BOX_MAP, BOX_POOL, BOX_TURN_TRACK,
                                 DEMORALIZED, DISORGANIZED)

from tests.conftest import h, make, random_position, Recorder, static, u
from tests.oracles import iod_rules as ref


def _ramcke_broken_down():
    g = make({"1210": ["axis.ram.1_2"]})
    s, t = g.state, static()
    b = u("axis.ram.1_2")
    assert organisation.can_break_down(g, b)
    comps = organisation.break_down(g, b)                          # 13.1
    assert sorted(t.names[c] for c in comps) == ["axis.ram.1_2.a", "axis.ram.1_2.b", "axis.ram.1_2.c"]
    assert s.box[b] == BOX_DISBANDMENT and all(s.hex[c] == h("1210") for c in comps)
    return g, b, comps


def _reform_and_check(g, b, comps, disorganized: bool):
    s, t = g.state, static()
    opts = organisation.reform_options(g, AXIS)
    assert len(opts) == 1
    organisation.reform(g, opts[0])
    assert s.box[b] == BOX_MAP and s.hex[b] == h("1210")
    lv = s.level[b]
    assert (t.attack[b, lv], t.defense[b, lv], t.ma[b, lv]) == (4, 5, 7)
    assert (s.morale_state[b] == DISORGANIZED) == disorganized
    assert all(s.box[c] != BOX_MAP for c in comps)


def test_rule_13_2_reform_example():
    """13.2 example: Ramcke's battalion breaks down into its three 6-7-7
    companies (13.1); one of them is turned to its reduced side (what rule
    19.46 or 17.83 leaves: ``reduced`` and its second level) and disorganized;
    they meet again in one hex: the battalion returns at 4-5-7, disorganized,
    and the companies leave the map."""
    from malta_sim.iod.rules import morale

    g, b, comps = _ramcke_broken_down()
    hurt = u("axis.ram.1_2.c")
    g.state.reduced[hurt] = True
    g.state.level[hurt] = 1
    morale.disorganize(g, [hurt])
    _reform_and_check(g, b, comps, disorganized=True)


def test_rule_13_2_reform_after_a_company_is_lost():
    """Rule 13.2: a company eliminated by a step loss (9.5) costs the battalion
    a step when the other two reform it: 4-5-7, in good order."""
    g, b, comps = _ramcke_broken_down()
    combat.take_steps(g, [u("axis.ram.1_2.c")], 1, "combat")
    assert g.state.box[u("axis.ram.1_2.c")] != BOX_MAP
    _reform_and_check(g, b, comps, disorganized=False)


def test_rule_13_2_no_reform_with_a_demoralized_company():
    """Rule 13.2: none of the companies may be demoralized."""
    g = make({"1210": ["axis.ram.1_2"]})
    comps = organisation.break_down(g, u("axis.ram.1_2"))
    g.state.morale_state[comps[0]] = DEMORALIZED
    assert organisation.reform_options(g, AXIS) == []


class _TakesAll(Recorder):
    """Reforms every battalion it is offered (13.2), recording the offers."""

    def reforms(self, game, options):
        self.offered.setdefault("reforms", []).append(list(options))
        return list(options)


def test_rule_18_7_19_6_reform_after_landing_only_in_the_given_hexes():
    """Rules 18.7, 19.6 with 13.2: after the beach movement or the rally,
    companies that ended in the same hex may reform their battalion: the
    reform step limited to the landing hexes offers (and carries out) the
    battalion whose companies stand in one of them, not one elsewhere; the
    full step at the end of the movement phase offers the other too."""
    g = make({"1210": ["axis.ram.1_2"], "1310": ["axis.ram.1_3"]}, policies=(_TakesAll(AXIS), Recorder(1)))
    a = organisation.break_down(g, u("axis.ram.1_2"))
    b = organisation.break_down(g, u("axis.ram.1_3"))
    assert len(a) == len(b) == 3
    organisation.reforms(g, AXIS, [h("1210")])
    s = g.state
    assert s.box[u("axis.ram.1_2")] == BOX_MAP and s.hex[u("axis.ram.1_2")] == h("1210")
    assert s.box[u("axis.ram.1_3")] == BOX_DISBANDMENT and all(s.box[c] == BOX_MAP for c in b)
    assert [o[0] for o in g.policies[AXIS].offered["reforms"][0]] == [u("axis.ram.1_2")]
    organisation.reforms(g, AXIS)
    assert s.box[u("axis.ram.1_3")] == BOX_MAP and s.hex[u("axis.ram.1_3")] == h("1310")


def test_rule_18_7_companies_reform_after_landing_in_played_games():
    """Rule 18.7: in played Operation Hercules games, battalions reform in the
    Amphibious Landing Phase (after the beach movement), not only at the end of
    a movement phase."""
    from malta_sim.play import play_games

    ev = play_games("hercules", 5, range(6), axis_policy="balanced", allied_policy="allied:active",
                    event_log=True).events
    reforms = ev[ev["action"] == "reform"]
    assert len(reforms) and (reforms["phase"].str.contains("amphibious", case=False)).any(), \
        sorted(set(reforms["phase"]))


def test_rule_13_1_breakdown():
    g = make({"1612": [("allied.uk.8m", 1)]})
    b = u("allied.uk.8m")
    assert organisation.can_break_down(g, b)
    comps = organisation.break_down(g, b)
    assert len(comps) == 2                                            # 3 companies - 1 step lost
    assert g.state.box[b] == BOX_DISBANDMENT
    assert all(g.state.hex[c] == h("1612") for c in comps)
    g2 = make({"1612": [("allied.uk.8m", 2)]})
    assert not organisation.can_break_down(g2, b)                     # remnant
    g3 = make({"1612": ["allied.mt.1k"]})
    assert not organisation.can_break_down(g3, u("allied.mt.1k"))     # Maltese


def test_rule_14_41_leader_casualty_and_14_43_return():
    g = make({"1612": ["allied.uk.8m", "allied.ldr.beak", "allied.hq.malta"]}, turn=8)
    ld = u("allied.ldr.beak")
    organisation.leader_eliminated(g, ld)
    assert g.state.box[ld] == BOX_TURN_TRACK and g.state.level[ld] == 1   # ADC side
    assert g.state.return_turn[ld] == 12
    g.state.turn[0] = 12
    organisation.return_leaders_and_hqs(g, initial_segment=True)
    assert g.state.box[ld] == BOX_MAP and g.state.hex[ld] == h("1612")


def test_rule_14_42_leader_caught_with_enemy_units():
    g = make({"1413": ["allied.mil.4", "axis.ram.ldr.ramcke"]}, turn=8)
    organisation.caught_leaders(g)
    ld = u("axis.ram.ldr.ramcke")
    assert g.state.box[ld] == BOX_TURN_TRACK                      # eliminated (ADC) or escaped
    assert g.state.return_turn[ld] in (9, 12)


@pytest.mark.parametrize("seed", [3, 4])
def test_reorganisation_candidates_equal_plain_tests_on_random_positions(seed):
    """breakdowns (13.1) and reform_options (13.2) find the battalions the
    per-battalion tests accept, in the same order, on random boxes, levels,
    parents, reduced flags and morale states."""
    from malta_sim.iod.rules import organisation
    from malta_sim.iod.state import (BOX_DISBANDMENT, BOX_ELIMINATED,
                                                       BOX_POOL)


    rng = np.random.default_rng(seed)
    seen = {"breakdown": 0, "reform": 0}
    for trial in range(40):
        g = random_position(rng, trial, policies=(Recorder(0), Recorder(1)))
        s, t = g.state, g.static
        n = len(s.box)
        comp = np.flatnonzero(t.size == st.COMPANY)
        bns = np.flatnonzero((t.size == st.BATTALION) & (s.box == BOX_MAP))
        boxes = np.array([BOX_POOL, BOX_DISBANDMENT, BOX_ELIMINATED, BOX_MAP])
        s.box[comp] = boxes[rng.integers(0, 4, len(comp))]
        s.parent[:] = -1
        if len(bns):
            gone = rng.choice(bns, min(len(bns), 6), replace=False)
            for b in gone:                      # broken down: companies on the map nearby
                s.box[b] = BOX_DISBANDMENT
                kids = rng.choice(comp, 3, replace=False)
                s.parent[kids] = b
                s.box[kids] = np.where(rng.random(3) < 0.8, BOX_MAP, BOX_ELIMINATED)
                h = int(s.hex[b]) if s.hex[b] >= 0 else int(np.flatnonzero(t.land)[0])
                s.hex[kids] = np.where(rng.random(3) < 0.8, h, h + 1)
                s.hex[b] = -1
        s.hex[s.box != BOX_MAP] = -1
        s.reduced[:] = rng.random(n) < 0.3
        for side in (0, 1):
            want = ref.breakdown_candidates(g, side)
            got = g.policy(side).offered["breakdowns"]
            got.clear()
            organisation.breakdowns(g, side)
            assert got == ([want] if want else [])
            seen["breakdown"] += len(want)
            want = ref.reform_options(g, side)
            assert organisation.reform_options(g, side) == want
            seen["reform"] += len(want)
    assert all(v > 0 for v in seen.values()), seen


@pytest.mark.parametrize("seed", [9, 10])
def test_attachment_options_equal_plain_version_on_random_positions(seed):
    """The formations offered to each Axis unit (15.21) equal the per-unit
    version on random crowded positions with random current formations."""
    rng = np.random.default_rng(seed)
    n_opts = 0
    for trial in range(30):
        g = random_position(rng, trial, policies=(Recorder(0), Recorder(1)))
        s, t = g.state, g.static
        on = np.flatnonzero(s.box == BOX_MAP)
        few = rng.choice(np.unique(s.hex[on]), 5, replace=False)
        s.hex[on] = rng.choice(few, len(on))
        keep = rng.random(len(s.formation)) < 0.6
        s.formation[:] = np.where(keep, t.printed_formation,
                                  rng.integers(-1, t.printed_formation.max() + 1, len(keep)))
        want = ref.attachment_options(g)
        got = g.policy(0).offered["attachments"]
        organisation.formation_changes(g)
        assert got == ([want] if want else [])
        assert not got or list(got[0]) == list(want)
        n_opts += len(want)
    assert n_opts > 0


def _companies_suffice_plain(b, box, level, parent, remnant_level, breakdown_n, breakdown_kind, own, kinds):
    """Rule 13.1 written out over lists: not a remnant, steps left, and as
    many free company pieces: the battalion's own in the pool or the
    Disbandment Box and not in use, else the pool's pieces of its kind."""
    if remnant_level[b] >= 0 and level[b] == remnant_level[b]:
        return False
    need = int(breakdown_n[b]) - int(level[b])
    if need <= 0:
        return False
    free = [c for c in own[b] if box[c] in (BOX_POOL, BOX_DISBANDMENT) and parent[c] < 0]
    if not free and 0 <= breakdown_kind[b] < len(kinds):
        free = [c for c in kinds[breakdown_kind[b]] if box[c] == BOX_POOL]
    return len(free) >= need


@pytest.mark.parametrize("seed", [5])
def test_companies_suffice_equals_the_plain_count_on_random_tables(seed):
    """The compiled company count of rule 13.1 (a battalion may break down
    when it is no remnant, has steps left and has as many free company
    pieces as steps: its own in the pool or Disbandment Box and not in use,
    else the pool's generic pieces of its kind) equals the plain count on
    random small tables: battalions side by side with companies of their
    own, generic kinds, remnant levels from 0, levels and box contents at
    random, parents among the battalions."""
    from malta_sim.iod.rules import breakdown_reform

    rng = np.random.default_rng(seed)
    seen = {True: 0, False: 0}
    boxes = np.array([BOX_POOL, BOX_DISBANDMENT, BOX_MAP, BOX_TURN_TRACK], np.int8)
    for trial in range(60):
        n, n_bn, n_kinds = 40, 8, 3
        own = [[] for _ in range(n)]
        pieces = list(range(n_bn, n))
        rng.shuffle(pieces)
        for b in range(n_bn):                      # battalions 0-7, most with companies of their own
            if rng.random() < 0.6:
                own[b] = sorted(pieces[:3])
                pieces = pieces[3:]
        kinds = [sorted(pieces[k::n_kinds]) for k in range(n_kinds)]
        box = boxes[rng.integers(0, 4, n)]
        level = rng.integers(0, 4, n).astype(np.int8)
        parent = np.where(rng.random(n) < 0.6, -1, rng.integers(0, 2, n)).astype(np.int32)   # in use (by 0, 1)
        remnant_level = rng.integers(-1, 4, n).astype(np.int8)
        breakdown_n = rng.integers(0, 5, n).astype(np.int8)
        breakdown_kind = rng.integers(-1, n_kinds + 1, n).astype(np.int32)     # n_kinds: none such
        own_start, own_flat = breakdown_reform.csr(own)
        kind_start, kind_flat = breakdown_reform.csr(kinds)
        for b in range(n_bn):
            want = _companies_suffice_plain(b, box, level, parent, remnant_level, breakdown_n, breakdown_kind,
                                            own, kinds)
            got = breakdown_reform.companies_suffice(b, box, level, parent, remnant_level, breakdown_n,
                                                     breakdown_kind, own_start, own_flat, kind_start, kind_flat)
            assert bool(got) == want, (trial, b)
            seen[want] += 1
    assert all(v > 20 for v in seen.values()), seen


@pytest.mark.parametrize("seed", [9])
def test_attachment_and_reform_kernels_return_their_documented_arrays(seed):
    """The compiled passes behind the attachment offers (15.21) and the
    reform options (13.2) return per unit or battalion the slice bounds
    ``start`` of exactly ``k + 1`` entries (0 first, the flat list's length
    last), on random positions; and the attachment pass grows its list when
    a crowded hex offers more formations than it first makes room for (a
    hand-made stack of twelve units of twelve formations, against the plain
    count)."""
    from malta_sim.iod.rules import breakdown_reform

    rng = np.random.default_rng(seed)
    seen = {"attach": 0, "reform": 0}
    for trial in range(12):
        g = random_position(rng, trial, policies=(Recorder(0), Recorder(1)))
        s, t, tb = g.state, g.static, g.tables
        on = np.flatnonzero(s.box == BOX_MAP)
        s.hex[on] = rng.choice(np.unique(s.hex[on]), len(on))
        for b in rng.choice(np.flatnonzero((t.size == st.BATTALION) & (s.box == BOX_MAP)), 3, replace=False):
            kids = organisation.break_down(g, int(b))
            s.hex[kids] = s.hex[kids[0]] if kids else -1
        units, start, forms = breakdown_reform.attachment_options(s.box, s.hex, s.formation, tb.may_attach,
                                                                  tb.side_mask[AXIS], t.printed_formation)
        assert len(start) == len(units) + 1 and start[0] == 0 and start[-1] == len(forms)
        seen["attach"] += len(units)
        for side in (0, 1):
            bns, hexes, lost, start, comps = breakdown_reform.reform_candidates(
                s.box, s.hex, s.morale_state, s.reduced, s.parent, tb.battalion_side[side], t.breakdown_n,
                t.n_levels)
            assert len(bns) == len(hexes) == len(lost) and len(start) == len(bns) + 1
            assert start[0] == 0 and start[-1] == len(comps)
            seen["reform"] += len(bns)
    assert all(v > 0 for v in seen.values()), seen
    n = 12                                   # one hex, twelve formations: 11 offers each
    units, start, forms = breakdown_reform.attachment_options(
        np.full(n, BOX_MAP, np.int8), np.zeros(n, np.int32), np.arange(n, dtype=np.int8),
        np.ones(n, np.bool_), np.ones(n, np.bool_), np.arange(n, dtype=np.int8))
    assert units.tolist() == list(range(n)) and start.tolist() == [11 * i for i in range(n + 1)]
    assert forms.tolist() == [f for x in range(n) for f in range(n) if f != x]


def _leaders_in_plain(game, h, side):
    """The leaders of ``side`` in hex ``h`` from the unit query (rule 14.3)."""
    return [int(x) for x in game.units_at(h, side).tolist() if game.static.utype[x] == st.LEADER]


@pytest.mark.parametrize("seed", [81, 82])
def test_command_leader_and_leaders_in_equal_plain_on_random_positions(seed):
    """Random positions with the leaders placed next to random groups, random
    leader uses and levels: the same commanding leader and the same leaders
    per hex as the plain versions (rules 14.2, 14.21, 14.3, 15.3)."""
    rng = np.random.default_rng(seed)
    found = 0
    for trial in range(8):
        g = random_position(rng, trial)
        s, t = g.state, g.static
        own_hexes = np.unique(s.hex[s.box == BOX_MAP])
        for ld in np.flatnonzero(t.utype == st.LEADER).tolist():
            if rng.random() < 0.8:
                s.box[ld] = BOX_MAP
                s.hex[ld] = int(rng.choice(own_hexes))
            s.leader_uses[ld] = int(rng.integers(0, 3))
        for side in (0, 1):
            own = np.flatnonzero((s.box == BOX_MAP) & (t.side == side)
                                 & (t.utype != st.LEADER)).tolist()
            for _ in range(20):
                k = int(rng.integers(0, min(len(own), 6) + 1))
                units = [int(x) for x in rng.choice(own, k, replace=False)] if k else []
                got = combat._command_leader(g, side, units)
                assert got == ref.command_leader(g, side, units)
                found += got is not None
                got = combat._penetration_leader(g, units)
                assert got == ref.penetration_leader(g, units)
                found += got is not None
            for h in own_hexes.tolist():
                assert combat._leaders_in(g, h, side) == _leaders_in_plain(g, h, side)
    assert found > 0


def test_rule_13_0_eliminated_generic_company_returns_to_the_pool():
    """13.0/13.2 reading (rules_coverage.csv 13.0): an eliminated generic
    company piece is a marker, not the company: it goes back to the pool
    free for any battalion of its kind, the step it stood for stays lost
    (tallied for rule 20) and its battalion reforms one level lower."""
    g = make({"1612": ["axis.20.1_87"]})
    s, t = g.state, static()
    b = u("axis.20.1_87")
    kind = int(t.breakdown_kind[b])
    generic = np.flatnonzero(t.company_kind == kind)
    free = int((s.box[generic] == BOX_POOL).sum())
    comps = organisation.break_down(g, b)
    assert len(comps) == 3 and all(t.company_kind[c] == kind for c in comps)
    assert int((s.box[generic] == BOX_POOL).sum()) == free - 3
    lost0 = int(s.axis_steps_lost[0])
    assert organisation.lose_step(g, comps[0], "landing losses 18.5")     # a company: eliminated
    assert int(s.axis_steps_lost[0]) == lost0 + int(t.step_weight[comps[0]])   # the step stays lost
    assert s.box[comps[0]] == BOX_POOL and s.parent[comps[0]] < 0 and s.hex[comps[0]] < 0
    assert int((s.box[generic] == BOX_POOL).sum()) == free - 2
    organisation.eliminate(g, comps[0])                                    # no second tally
    assert int(s.axis_steps_lost[0]) == lost0 + int(t.step_weight[comps[0]])
    opts = organisation.reform_options(g, AXIS)
    assert [(o[0], sorted(o[1]), o[3]) for o in opts] == [(b, sorted(comps[1:]), 1)]


# ------------------------------------------------------------------ leaders (14.1, 14.2, 14.21, 15.3)
def test_rule_14_1_leader_movement_bonus():
    """Rule 14.1: units of the leader's formation stacked with or adjacent to it
    at the start of the movement phase gain the leader's foot bonus (foot
    units) or motorised bonus (motorised units); not two hexes away, not a
    unit of another formation, not a unit whose movement allowance is zero.
    Beak (Malta Garrison): foot 1, motorised 2."""
    from malta_sim.iod.rules import movement
    t = static()
    beak = u("allied.ldr.beak")
    assert (int(t.foot_bonus[beak, 0]), int(t.mot_bonus[beak, 0])) == (1, 2)
    tank = u("allied.uk.1_r")
    assert t.move_class[tank] != st.FOOT and t.move_class[u("allied.uk.8m")] == st.FOOT
    g = make({"1612": ["allied.ldr.beak", "allied.uk.8m"], "1613": ["allied.uk.1_r"],
              "1614": ["allied.uk.2rwk"], "1611": ["allied.sp.a.1"]})
    assert static().grid.distance_table[h("1612"), h("1614")] == 2
    bonus = movement.leader_bonus(g, 1)
    assert int(bonus[u("allied.uk.8m")]) == 1                      # foot, stacked
    assert int(bonus[tank]) == 2                                   # motorised, adjacent
    assert int(bonus[u("allied.uk.2rwk")]) == 0                    # two hexes away
    assert int(bonus[u("allied.sp.a.1")]) == 0                     # movement allowance zero
    g2 = make({"1612": ["axis.4.ldr.chirelson", "axis.20.2_87", "axis.4.1_34"]})
    b2 = movement.leader_bonus(g2, AXIS)
    assert int(b2[u("axis.4.1_34")]) == int(t.foot_bonus[u("axis.4.ldr.chirelson"), 0]) > 0
    assert int(b2[u("axis.20.2_87")]) == 0                         # other formation (15.3)


def _command_rows(g):
    return [r for r in g.events.rows if r["action"] == "command roll"]


#: Ramcke's 1/2 Battalion (1210) attacks the British 8M (1311) with Ramcke beside it
_RAMCKE_ATTACK = {"1310": ["axis.ram.1_2", "axis.ram.ldr.ramcke"], "1311": ["allied.uk.8m"]}


def test_rule_14_2_leader_roll_shifts_the_odds():
    """Rule 14.2: a leader stacked with or adjacent to a unit of its formation in
    the combat rolls one die: at most its tactical value (Ramcke 4) the
    attacker's odds rise one level; the defending leader (Beak, 3) lowers them
    one level on a success; higher rolls do nothing.  Seeds run until both a
    4 and a 5 were rolled for Ramcke."""
    t = static()
    assert int(t.tactical[u("axis.ram.ldr.ramcke"), 0]) == 4
    assert int(t.tactical[u("allied.ldr.beak"), 0]) == 3
    seen = set()
    for seed in range(80):
        g = make({**_RAMCKE_ATTACK, "1311": ["allied.uk.8m", "allied.ldr.beak"]}, seed=seed)
        m = combat.odds_modifiers(g, AXIS, [u("axis.ram.1_2")], [u("allied.uk.8m")], h("1311"))
        rows = _command_rows(g)
        assert [r["units"] for r in rows] == ["axis.ram.ldr.ramcke", "allied.ldr.beak"]
        da, dd = int(rows[0]["dice"]), int(rows[1]["dice"])
        assert m.get("attacker_command", 0) == (1 if da <= 4 else 0), (seed, da)
        assert m.get("defender_command", 0) == (-1 if dd <= 3 else 0), (seed, dd)
        seen.add(da)
        if {4, 5} <= seen:
            break
    assert {4, 5} <= seen


def test_rule_14_2_leader_two_hexes_away_does_not_roll():
    """Rule 14.2: the leader must be stacked with or adjacent to a unit of its
    formation in the combat: two hexes away (1208 from 1310) it makes no roll."""
    g = make({"1310": ["axis.ram.1_2"], "1208": ["axis.ram.ldr.ramcke"], "1311": ["allied.uk.8m"]})
    assert static().grid.distance_table[h("1208"), h("1310")] == 2
    m = combat.odds_modifiers(g, AXIS, [u("axis.ram.1_2")], [u("allied.uk.8m")], h("1311"))
    assert _command_rows(g) == [] and "attacker_command" not in m
    g = make({"1310": ["axis.ram.1_2"], "1309": ["axis.ram.ldr.ramcke"], "1311": ["allied.uk.8m"]})
    combat.odds_modifiers(g, AXIS, [u("axis.ram.1_2")], [u("allied.uk.8m")], h("1311"))
    assert len(_command_rows(g)) == 1                             # adjacent: it rolls


def test_rule_14_21_two_hexes_per_phase_and_one_leader_per_hex():
    """Rule 14.21: a leader may try to affect only two combats in a phase: a
    third attack in the same phase gets no roll.  Only one leader per side assists the same hex: with Ramcke
    and Chirelson both beside units of their formations in one attack, one
    roll is made for the Axis."""
    g = make({"1310": ["axis.ram.1_2", "axis.ram.ldr.ramcke"], "1311": ["allied.uk.8m"],
              "1209": ["allied.uk.2rwk"], "1410": ["allied.uk.11lf"]})
    att = [u("axis.ram.1_2")]
    for k, (tgt, dfn) in enumerate([("1311", "allied.uk.8m"), ("1209", "allied.uk.2rwk"),
                                    ("1410", "allied.uk.11lf")]):
        combat.odds_modifiers(g, AXIS, att, [u(dfn)], h(tgt))
        assert len(_command_rows(g)) == min(k + 1, 2), k
    g2 = make({"1310": ["axis.ram.1_2", "axis.ram.ldr.ramcke", "axis.4.1_34", "axis.4.ldr.chirelson"],
               "1311": ["allied.uk.8m"]})
    combat.odds_modifiers(g2, AXIS, [u("axis.ram.1_2"), u("axis.4.1_34")], [u("allied.uk.8m")], h("1311"))
    rows = _command_rows(g2)
    assert len(rows) == 1 and rows[0]["units"] == "axis.ram.ldr.ramcke"   # the better leader (4 > 3)


def test_rule_15_3_only_the_formations_leader_affects_its_units():
    """Rule 15.3 (14.2): units assigned to a formation are affected only by that
    formation's leader: Ramcke beside an attacking 4th Division battalion makes
    no roll, Chirelson beside it rolls; the same battalion attached to
    Ramcke's formation (15.21: no longer assigned to its original one) is
    commanded by Ramcke, no longer by Chirelson."""
    g = make({"1310": ["axis.4.1_34", "axis.ram.ldr.ramcke"], "1311": ["allied.uk.8m"]})
    combat.odds_modifiers(g, AXIS, [u("axis.4.1_34")], [u("allied.uk.8m")], h("1311"))
    assert _command_rows(g) == []
    g = make({"1310": ["axis.4.1_34", "axis.4.ldr.chirelson"], "1311": ["allied.uk.8m"]})
    combat.odds_modifiers(g, AXIS, [u("axis.4.1_34")], [u("allied.uk.8m")], h("1311"))
    assert [r["units"] for r in _command_rows(g)] == ["axis.4.ldr.chirelson"]
    for ld, rolls in (("axis.ram.ldr.ramcke", 1), ("axis.4.ldr.chirelson", 0)):
        g = make({"1310": ["axis.4.1_34", ld], "1311": ["allied.uk.8m"]})
        g.state.formation[u("axis.4.1_34")] = static().printed_formation[u("axis.ram.1_2")]
        combat.odds_modifiers(g, AXIS, [u("axis.4.1_34")], [u("allied.uk.8m")], h("1311"))
        assert len(_command_rows(g)) == rolls, ld


# ------------------------------------------------------------------ formations (15.2)
class _Attacher(Recorder):
    """Records the attachment options (15.21) and asks for the attachments ``want``."""

    def __init__(self, side, want):
        super().__init__(side)
        self.want = want

    def attachments(self, game, options):
        super().attachments(game, options)
        return dict(self.want)


_RAM = 1          # Ramcke Brigade
_DIV4 = 4         # 4th Livorno


def test_rule_15_21_attach_only_to_a_formation_stacked_with_the_unit():
    """Rules 4.1 b, 15.2 and 15.21: in the Initial Segment an Axis unit may be
    attached to the formation of an assigned unit it is stacked with, not to a
    formation with no unit in its hex; leaders are never offered; after the
    change the unit counts as the new formation's (its old leader no longer
    commands it, 15.3 / test_rule_15_3_...)."""
    from malta_sim.iod.game import IllegalDecision
    place = {"1310": ["axis.4.1_34", "axis.ram.1_2", "axis.4.ldr.chirelson"], "1410": ["axis.20.2_87"]}
    bot = _Attacher(AXIS, {u("axis.4.1_34"): _RAM})
    g = make(place, policies=(bot, Recorder(1)))
    organisation.formation_changes(g)
    offered = bot.offered["attachments"][0]
    assert offered[u("axis.4.1_34")] == [_RAM] and offered[u("axis.ram.1_2")] == [_DIV4]
    assert u("axis.20.2_87") not in offered and u("axis.4.ldr.chirelson") not in offered
    assert int(g.state.formation[u("axis.4.1_34")]) == _RAM
    assert [r["result"] for r in g.events.rows if r["action"] == "attachment"] == ["Ramcke Brigade"]
    g = make(place, policies=(_Attacher(AXIS, {u("axis.20.2_87"): _RAM}), Recorder(1)))
    with pytest.raises(IllegalDecision, match="15.21"):
        organisation.formation_changes(g)                         # not stacked with a Ramcke unit
    assert int(g.state.formation[u("axis.20.2_87")]) == int(static().printed_formation[u("axis.20.2_87")])


def test_rule_15_22_any_number_attach_to_one_formation():
    """Rule 15.22: any number of units, assigned (4th, 20th Division battalions)
    or unassigned (a marine company), may be attached to the same formation
    at once."""
    units = ["axis.4.1_34", "axis.4.2_34", "axis.20.2_87", "axis.un.sm_1"]
    bot = _Attacher(AXIS, {u(x): _RAM for x in units})
    g = make({"1310": units + ["axis.ram.1_2"]}, policies=(bot, Recorder(1)))
    organisation.formation_changes(g)
    assert [int(g.state.formation[u(x)]) for x in units] == [_RAM] * 4
    assert sum(r["action"] == "attachment" for r in g.events.rows) == 4


# ------------------------------------------------------------------ 13.1-13.3 more cases
def test_rule_13_1_breakdown_needs_a_company_per_step_left():
    """Rules 13.1, 13.3: a battalion breaks down into its companies, one fewer
    per step lost: Ramcke's 1/2 at full strength with its three companies free
    may (exactly three needed), at its second level it needs two of them; with
    two of its own companies eliminated it may not (one left), however many
    other pieces there are."""
    from malta_sim.iod.state import BOX_ELIMINATED
    b = u("axis.ram.1_2")
    g = make({"1210": ["axis.ram.1_2"]})
    assert organisation.can_break_down(g, b)
    g = make({"1210": [("axis.ram.1_2", 1)]})
    assert organisation.can_break_down(g, b)
    assert len(organisation.break_down(g, b)) == 2
    g = make({"1210": ["axis.ram.1_2"]})
    for c in ("axis.ram.1_2.a", "axis.ram.1_2.b"):
        g.state.box[u(c)] = BOX_ELIMINATED
    assert not organisation.can_break_down(g, b)


def test_rule_13_2_reformed_battalion_breaks_down_again_into_full_strength_companies():
    """Rules 13.1-13.2: one of Ramcke's companies reduced and disorganized, the
    battalion reforms at its second level (4-5-7), disorganized; the companies
    leave the map for the pool, free again, and the battalion, placed at the
    end of the movement phase, has moved this player turn.  Broken down again
    it gives two companies (13.2: a reduced company does not return), both on
    their full-strength side and in good order like the battalion once it
    has recovered; the battalion piece goes to the Disbandment Box.  The event
    log has the reformation (13.2) and both break-downs (13.1)."""
    from malta_sim.iod.invariants import check_invariants
    from malta_sim.iod.state import NORMAL
    g, b, comps = _ramcke_broken_down()
    s, t = g.state, static()
    hurt = u("axis.ram.1_2.c")
    s.reduced[hurt] = True
    s.level[hurt] = 1
    s.morale_state[hurt] = DISORGANIZED
    organisation.reform(g, organisation.reform_options(g, AXIS)[0])
    assert s.level[b] == 1 and s.morale_state[b] == DISORGANIZED and s.moved[b]
    assert all(s.box[c] == BOX_POOL and s.hex[c] == -1 and s.parent[c] == -1 and not s.reduced[c] for c in comps)
    assert [(r["rule"], r["result"]) for r in g.events.rows if r["action"] == "reform"] == [("13.2", "level 1")]
    check_invariants(g, "test")
    s.morale_state[b] = NORMAL
    assert organisation.can_break_down(g, b)
    again = organisation.break_down(g, b)
    assert len(again) == 2 and set(again) <= set(comps)
    for c in again:
        assert s.box[c] == BOX_MAP and s.hex[c] == h("1210") and s.parent[c] == b
        assert s.level[c] == 0 and not s.reduced[c] and s.morale_state[c] == NORMAL
        assert (t.attack[c, s.level[c]], t.defense[c, s.level[c]]) == (3, 3)
    assert s.box[b] == BOX_DISBANDMENT and s.hex[b] == -1
    assert [r["rule"] for r in g.events.rows if r["action"] == "breakdown"] == ["13.1", "13.1"]
    check_invariants(g, "test")
    organisation.reform(g, organisation.reform_options(g, AXIS)[0])
    assert s.level[b] == 1 and s.morale_state[b] == NORMAL


def test_rule_13_0_generic_piece_reused_keeps_the_step_it_lost():
    """Rules 13.0, 20.1 (reading of 13.0 in rules_coverage.csv): a generic
    company piece eliminated goes back to the pool and may serve another
    battalion's break-down; the step it stood for stays counted for victory
    (the tallies still equal the recount of every piece's steps lost)."""
    from malta_sim.iod.invariants import check_invariants
    g = make({"1612": ["allied.uk.8m"], "1710": ["allied.uk.2rwk"]})
    s = g.state
    first = organisation.break_down(g, u("allied.uk.8m"))
    assert organisation.lose_step(g, first[0])
    again = organisation.break_down(g, u("allied.uk.2rwk"))
    assert first[0] in again and s.hex[first[0]] == h("1710")
    assert int(s.allied_steps_lost[0]) == 1 and int(s.steps_lost[first[0]]) == 1
    check_invariants(g, "test")
    g = make({"1310": ["axis.4.1_34"], "1210": ["axis.4.2_34"]})
    first = organisation.break_down(g, u("axis.4.1_34"))
    assert organisation.lose_step(g, first[0])
    assert first[0] in organisation.break_down(g, u("axis.4.2_34"))
    assert int(g.state.steps_lost[first[0]]) == 1
    check_invariants(g, "test")


def test_rule_13_1_battalion_in_a_box_breaks_down_there():
    """Rule 13.1 (18.3, 19.1): a battalion waiting in a Follow-up box breaks
    down into companies in the same box (same beach zone), off the map."""
    from malta_sim.iod.invariants import check_invariants
    from malta_sim.iod.state import BOX_FOLLOW_UP
    g = make({})
    s = g.state
    b = u("axis.4.1_34")
    s.box[b], s.hex[b], s.box_slot[b] = BOX_FOLLOW_UP, -1, 2
    comps = organisation.break_down(g, b, to_box=BOX_FOLLOW_UP)
    assert len(comps) == 3
    assert all(s.box[c] == BOX_FOLLOW_UP and s.box_slot[c] == 2 and s.hex[c] == -1 for c in comps)
    assert s.box[b] == BOX_DISBANDMENT and s.hex[b] == -1
    check_invariants(g, "test")


def test_rule_13_2_15_21_reformed_battalion_takes_its_first_companys_formation():
    """Rules 13.2 and 15.21: companies of one battalion may be attached to
    different formations while broken down (15.21 reassigns any unit stacked
    with a unit of the other formation).  Rule 13.2 does not say which
    formation the reformed battalion then belongs to; the reading recorded
    here (docs/rules_coverage.csv, 13.2): that of its first company (``a``),
    the battalion's own while that company was not reassigned.  The Axis
    player may reassign the battalion in the next Initial Segment anyway."""
    g, b, comps = _ramcke_broken_down()
    s = g.state
    first, *rest = sorted(comps)
    # a 4th Division battalion joins the hex; companies b and c are attached to it
    s.box[u("axis.4.1_34")], s.hex[u("axis.4.1_34")] = BOX_MAP, h("1210")
    g.policies = (_Attacher(AXIS, {c: _DIV4 for c in rest}), g.policies[1])
    organisation.formation_changes(g)
    assert [int(s.formation[c]) for c in sorted(comps)] == [_RAM, _DIV4, _DIV4]
    opts = organisation.reform_options(g, AXIS)
    assert [o[0] for o in opts] == [b]
    organisation.reform(g, opts[0])
    assert s.box[b] == BOX_MAP and int(s.formation[b]) == _RAM
    # the other way round: only the first company reassigned -> the battalion is the 4th's
    g, b, comps = _ramcke_broken_down()
    s = g.state
    s.box[u("axis.4.1_34")], s.hex[u("axis.4.1_34")] = BOX_MAP, h("1210")
    g.policies = (_Attacher(AXIS, {min(comps): _DIV4}), g.policies[1])
    organisation.formation_changes(g)
    organisation.reform(g, organisation.reform_options(g, AXIS)[0])
    assert int(s.formation[b]) == _DIV4
