"""Combat (rule 9) on constructed positions, with the rulebook's worked example of 9.9 in
play: who may attack, odds, strength and odds modifiers, losses, standing ground,
advance after combat; the compiled option finding, retreat ranking, advance options and
CRT columns against plain references on random positions.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod import static as st
from malta_sim.iod.rules import combat, movement
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP, DEMORALIZED, DISORGANIZED
from malta_sim.iod.static import odds_level

from tests.conftest import example_9_9, h, make, random_position, Scripted, static, u
from tests.oracles import iod_rules as ref


def test_rule_9_9_example():
    g, att, sup = example_9_9()
    res = combat.resolve_attack(g, AXIS, h("1311"), att, support=sup,
                                dsupport=[u("allied.uk.art_12")], fixed_roll=6)
    assert res.attack_total == 29 and res.defense_total == 15
    assert res.basic_level == 1                                   # 1.93:1 -> 1:1
    m = res.modifiers
    assert m["attacker_integrity"] == 2 and m["morale"] == 2
    assert m["armor_attacking"] == 2 and m["mixed_formations"] == -1
    assert res.final_level == 6                                   # 6:1
    assert static().charts.line_names[res.line] == "all_other_terrains"
    assert static().charts.crt_columns[res.column] == "6:1"
    assert res.result == (0, 0, 3, 1)                             # -/3D
    s = g.state
    # one step lost (3 hits, defender rounds down), the rest retreat two hexes
    lost = sum(int(s.level[x]) for x in (u("allied.uk.8m"), u("allied.uk.2rwk")))
    assert lost == 1
    for x in (u("allied.uk.8m"), u("allied.uk.2rwk")):
        assert s.box[x] == BOX_MAP
        assert s.morale_state[x] == DISORGANIZED
        assert static().grid.distance_table[s.hex[x], h("1311")] == 2
    # ammunition: one salvo each for offensive support (12.51)
    assert all(s.salvos[x] == 1 for x in sup)
    assert g.state.allied_steps_lost[0] == 1


def test_rule_9_7_standing_ground_takes_all_hits():
    """Rule 9.71 on the 9.9 example (-/3D against two British battalions of
    morale 4, no leader with them): the British try to stand; the die decides.
    A die below their morale: both stand, stay in the hex and take all three
    hits as steps.  A die of 4 or more: both retreat two hexes after the one
    step loss.  Seeds are tried until both outcomes have been seen."""
    from malta_sim.iod.game import EventLog

    seen = set()
    brit = (u("allied.uk.8m"), u("allied.uk.2rwk"))
    for seed in range(40):
        g, att, sup = example_9_9(stand=True)
        g.streams = type(g.streams)(seed, 0)
        g.events = EventLog()
        combat.resolve_attack(g, AXIS, h("1311"), att, support=sup,
                              dsupport=[u("allied.uk.art_12")], fixed_roll=6)
        s = g.state
        rolls = [r for r in g.events.rows if r["action"] == "stand ground"]
        assert len(rolls) == 1 and rolls[0]["rule"] == "9.71"
        die = int(rolls[0]["dice"])
        assert all(g.morale_value(x) == 4 for x in brit)
        if die < 4:                                               # morale 4 > die: stand
            assert int(s.allied_steps_lost[0]) == 3
            assert all(s.box[x] != BOX_MAP or s.hex[x] == h("1311") for x in brit)
        else:                                                     # morale <= die: retreat
            assert int(s.allied_steps_lost[0]) == 1
            d = static().grid.distance_table
            assert all(s.box[x] == BOX_MAP and d[s.hex[x], h("1311")] == 2 for x in brit)
        seen.add(die < 4)
        if seen == {True, False}:
            break
    assert seen == {True, False}, seen


def test_rule_9_3_odds_rounding():
    assert odds_level(16, 4) == 4 and odds_level(15, 4) == 3      # 9.3 d
    assert odds_level(29, 15) == 1
    assert odds_level(5, 12) == -1                                # 1:3
    ch = static().charts
    line = ch.line_names.index("all_other_terrains")
    assert ch.crt_columns[combat.crt_column(ch, line, 7)] == "6:1"  # 9.3 g: 7:1 -> 6:1
    assert combat.crt_column(ch, line, 99) == ch.line_cols[line, 1]
    city = ch.line_names.index("city_fort")
    assert combat.crt_column(ch, city, 0) == -1                   # below 1:1: cancelled


def test_rule_9_91_strength_modifiers():
    g = make({"1311": ["allied.uk.8m"], "1310": ["axis.4.1_34"]})
    s, x = g.state, u("axis.4.1_34")
    assert combat.attack_strength(g, x) == 6
    s.out_of_supply[x] = True
    assert combat.attack_strength(g, x) == 5                      # 8.31
    s.morale_state[x] = DEMORALIZED
    assert combat.attack_strength(g, x) == 2                      # 8.4: halve then -1
    s.morale_state[x] = DISORGANIZED
    s.out_of_supply[x] = False
    assert combat.attack_strength(g, x) == 5                      # 11.3
    y = u("allied.uk.8m")
    s.morale_state[y] = DEMORALIZED
    assert combat.defense_strength(g, y) == 3                     # 11.4


def test_rule_9_15_cannot_attack_zero_defense_hex():
    g = make({"1311": ["allied.cg.light.1"], "1310": ["axis.4.1_34"]})
    assert h("1311") not in combat.attack_options(g, AXIS)


def test_rule_9_8_advance_after_combat_into_vacated_hex():
    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"]},
             policies=(Scripted(AXIS, advance=True), Scripted(ALLIED)))
    ch = static().charts
    line = ch.line_names.index("all_other_terrains")
    res = None
    for roll in range(2, 13):
        gg = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"]},
                  policies=(Scripted(AXIS, advance=True), Scripted(ALLIED)))
        res = combat.resolve_attack(gg, AXIS, h("1311"), [u("axis.4.1_34")], fixed_roll=roll)
        if gg.state.box[u("allied.uk.inf_coy.1")] != BOX_MAP or gg.state.hex[u("allied.uk.inf_coy.1")] != h("1311"):
            if gg.state.box[u("axis.4.1_34")] == BOX_MAP and res.result[0] == 0:
                assert gg.state.hex[u("axis.4.1_34")] == h("1311")        # 9.84 first hex
                assert gg.state.advanced[u("axis.4.1_34")]                 # 9.88
                assert gg.state.control[h("1311")] == AXIS
                return
    pytest.fail("no roll cleared the hex")


def test_rule_9_92_envelopment_and_engineers():
    g = make({"1110": ["allied.uk.inf_coy.1"],
              "1009": ["axis.4.1_34", "axis.4.eng_11.1"], "1010": ["axis.4.2_34", "axis.4.eng_11.2"]})
    s = g.state
    s.fort_destroyed[h("1110")] = False
    m = combat.odds_modifiers(g, AXIS, [u("axis.4.1_34"), u("axis.4.eng_11.1"),
                                        u("axis.4.2_34"), u("axis.4.eng_11.2")],
                              [u("allied.uk.inf_coy.1")], h("1110"), roll_leaders=False)
    assert m.get("engineers") == 1 and "envelopment" not in m


@pytest.mark.parametrize("seed", [1, 2])
def test_combat_options_equal_plain_rule_tests_on_random_positions(seed):
    """attack_options (all attackers and given ones), plan_options,
    defensive_options, attackers_now and _firers equal the plain per-unit
    versions (rules 9.11, 9.13, 9.15, 9.16, 10.1, 10.11, 10.21, 12.2, 12.4,
    12.5, 16.73, 16.76, 17.7) on random positions, values and order."""
    rng = np.random.default_rng(seed)
    seen = {"targets": 0, "support": 0, "bombard": 0, "defensive": 0}
    for trial in range(25):
        g = random_position(rng, trial)
        t, s = g.static, g.state
        for side in (0, 1):
            want = ref.attack_options(g, side)
            got = combat.attack_options(g, side)
            assert got == want and list(got) == list(want)
            seen["targets"] += len(got)
            cand = [int(u) for u in ref.on_map(g, side) if ref.can_attack(g, int(u))]
            assert combat.attackers_now(g, side).tolist() == cand
            units = rng.permutation(cand)[: max(1, len(cand) // 2)].tolist() if cand else []
            want = ref.attack_options(g, side, units) if units else {}
            got = combat.attack_options(g, side, units)
            assert got == want and list(got) == list(want)
            ezoc = movement.zoc_map(g, 1 - side)
            firers = [int(u) for u in ref.on_map(g, side) if ref.art_can_fire(g, int(u), ezoc)]
            assert combat._firers(g, side) == firers
            want = ref.plan_options(g, side)
            got = combat.plan_options(g, side)
            for f in ("attack_targets", "support", "bombard", "air_markers", "hurricane_ok"):
                a, b = getattr(got, f), getattr(want, f)
                assert a == b and (not isinstance(a, dict) or list(a) == list(b)), f
            seen["support"] += sum(map(len, got.support.values()))
            seen["bombard"] += len(got.bombard)
            threatened = rng.permutation(np.flatnonzero(t.land))[:30].tolist()
            got = combat.defensive_options(g, side, set(threatened))
            want = ref.defensive_options(g, side, list(set(threatened)))
            assert got == want and list(got) == list(want)
            seen["defensive"] += len(got)
    assert all(v > 0 for v in seen.values()), seen


def _ref_retreat_options(game, units, cur, visited, block, zoc, enemy_hexes, last):
    """The per-hexside retreat ranking as written before it was compiled
    (rules 9.6, 9.61, 7.3)."""
    from tests.oracles.iod_rules import fits_stacking

    t = game.static
    dist = t.grid.distance_table
    side = int(t.side[units[0]])
    cands = []
    for d in range(6):
        b = int(t.neighbours[cur, d])
        if b < 0 or b in visited or block[b] or not combat._enterable(game, units, cur, d):
            continue
        d_b = [int(dist[b, e]) for e in enemy_hexes]
        farther = all(db > dist[cur, e] for db, e in zip(d_b, enemy_hexes))
        friendly = any(t.utype[x] != st.LEADER for x in game.units_at(b, side).tolist())
        rank = 1 if not zoc[b] else 2 if farther else 3 if friendly else 4
        cands.append((rank, -(min(d_b) if d_b else 0), b))
    if not cands:
        return 0, []
    best = min(c[:2] for c in cands)
    opts = [c[2] for c in cands if c[:2] == best]
    if last:
        fit = [b for b in opts if fits_stacking(game, units, b)]
        if fit:
            opts = fit
    return len(cands), opts


@pytest.mark.parametrize("seed", [5, 6])
def test_retreat_and_advance_options_equal_plain_versions(seed):
    """The compiled retreat ranking (9.6, 9.61, 7.3) and advance options
    (9.84) equal the per-hexside versions on random stacks, visited hexes,
    blocking and ZOC maps and enemy hexes."""
    from malta_sim.iod.rules.retreat_advance import advance_options, retreat_options
    from tests.oracles.iod_rules import fits_stacking

    rng = np.random.default_rng(seed)
    seen = {"retreat": 0, "ranked": 0, "none": 0, "advance": 0, "blocking": 0}
    for trial in range(15):
        g = random_position(rng, trial)
        s, t, tb = g.state, g.static, g.tables
        nh = t.n_hexes
        for _ in range(40):
            side = int(rng.integers(2))
            mine = np.flatnonzero((s.box == BOX_MAP) & (t.side == side))
            if not len(mine):
                continue
            h0 = int(s.hex[rng.choice(mine)])
            units = [int(u) for u in np.flatnonzero((s.hex == h0) & (t.side == side))]
            visited = set(rng.choice(nh, int(rng.integers(0, 40))).tolist()) | {h0}
            vmask = np.zeros(nh, bool)
            vmask[list(visited)] = True
            block = rng.random(nh) < 0.15
            zoc = rng.random(nh) < 0.5
            eh = sorted(set(rng.choice(np.flatnonzero(t.land), int(rng.integers(0, 4))).tolist()))
            last = bool(rng.integers(2))
            args = (s.hex, s.level, tb.side_mask[side], tb.base_weight, tb.remnant_level_full,
                    t.neighbours, t.land, t.ocean_side, t.move_class, t.move_cost, t.rise, t.road,
                    t.rise_cost, t.utype)
            n, opts = retreat_options(h0, np.array(units, np.int64), vmask, block, zoc,
                                      np.array(eh, np.int64), last, *args, t.grid.distance_table)
            want = _ref_retreat_options(g, units, h0, visited, block, zoc, eh, last)
            assert (n, opts.tolist()) == want
            seen["retreat"] += 1
            seen["ranked"] += len(set(want[1])) > 0 and want[0] > len(want[1])
            seen["none"] += want[0] == 0
            got = advance_options(h0, np.array(units, np.int64), vmask, block, *args).tolist()
            want = [int(t.neighbours[h0, d]) for d in range(6)
                    if t.neighbours[h0, d] >= 0 and not vmask[t.neighbours[h0, d]]
                    and not block[t.neighbours[h0, d]] and combat._enterable(g, units, h0, d)
                    and fits_stacking(g, units, int(t.neighbours[h0, d]))]
            assert got == want
            seen["advance"] += len(want)
            hh = int(rng.choice(np.unique(s.hex[mine])))
            assert combat._blocking_in(g, hh, side) == bool(movement.occupancy(g, side)[0][hh])
            seen["blocking"] += combat._blocking_in(g, hh, side)
    assert all(v > 0 for v in seen.values()), seen


# ------------------------------------------------------------------ advance (9.81)
@pytest.mark.parametrize("seed", [61, 62])
def test_advance_eligible_equals_plain_on_random_positions(seed):
    """Rule 9.81 (9.63, 12.11): the compiled list of pieces that may advance
    equals the plain one, order included, on random positions with random
    stayers (artillery hitched or not, strongpoints, HQs, leaders, AA)."""
    rng = np.random.default_rng(seed)
    seen = 0
    for trial in range(12):
        g = random_position(rng, trial)
        s, t = g.state, g.static
        for side in (0, 1):
            own = np.flatnonzero((s.box == BOX_MAP) & (t.side == side) & g.tables.ground).tolist()
            for k in range(10):
                m = int(rng.integers(0, min(len(own), 6) + 1))
                stayers = [int(x) for x in rng.choice(own, m, replace=False)]
                got = combat._advance_eligible(g, side, stayers)
                want = ref.advance_eligible(g, side, stayers)
                assert got == want, (stayers, got, want)
                seen += len(want) > len(stayers)
    assert seen


# ------------------------------------------------------------------ blocking next to a hex (6.52)
@pytest.mark.parametrize("seed", [71, 72])
def test_blocking_next_to_equals_occupancy_on_random_positions(seed):
    """Rule 6.52: next to any hex, the compiled blocking map equals
    :func:`.movement.occupancy`'s (leaders, coastal guns, warships and
    zero-defense pieces do not block), and it is False elsewhere."""
    rng = np.random.default_rng(seed)
    seen = 0
    for trial in range(10):
        g = random_position(rng, trial)
        s, t = g.state, g.static
        for side in (0, 1):
            want, _ = movement.occupancy(g, side)
            for cur in rng.choice(np.flatnonzero(t.land), 40, replace=False).tolist():
                got = combat._blocking_next_to(g, cur, side)
                near = np.zeros(t.n_hexes, bool)
                nb_ = t.neighbours[cur]
                near[nb_[nb_ >= 0]] = True
                assert np.array_equal(got, want & near)
                seen += int(got.any())
    assert seen


def test_crt_column_equals_plain_search_on_every_line_and_level():
    """Rule 9.3: the CRT column of each terrain line and odds level is the
    rightmost column of the line whose odds level does not exceed it, and
    none (-1) below the line's first column."""
    ch = static().charts
    seen = set()
    for line in range(ch.line_cols.shape[0]):
        for level in range(-8, 14):
            got = combat.crt_column(ch, line, level)
            assert got == ref.crt_column(ch, line, level), (line, level)
            seen.add(got >= 0)
    assert seen == {True, False}


# ------------------------------------------------------------------ 9.12, 9.2 through the combat phase
class _Combat(Scripted):
    """A bot of the combat phase that records, in the shared ``calls`` list, its
    plan (9.2 a), its defensive support (9.2 b) and every attack offer; it
    attacks with ``order`` (a list of (hex, [units])) in turn."""

    def __init__(self, side, calls, order=(), plan=None, dsupport=None):
        super().__init__(side)
        self.calls, self.order, self.plan, self.dsup = calls, list(order), plan, dsupport
        self.offers: list = []
        self.dopts: list = []

    def combat_plan(self, game, options):
        self.calls.append("plan")
        return self.plan(game, options) if self.plan else super().combat_plan(game, options)

    def defensive_support(self, game, options):
        self.calls.append("defensive support")
        self.dopts.append({int(k): sorted(int(x) for x in v) for k, v in options.items()})
        return self.dsup(options) if self.dsup else {}

    def next_attack(self, game, options, penetration=False):
        self.offers.append({int(k): sorted(int(x) for x in v) for k, v in options.items()})
        return self.order.pop(0) if self.order else None


def test_rule_9_12_one_hex_per_unit_per_phase():
    """Rule 9.12: each unit attacks one enemy-occupied hex per combat phase:
    the 4th Division's 1/34 (1310), next to both 1311 and 1209, is offered
    against both until it attacks 1311; then only 2/34 (1208) is offered
    against 1209, and naming 1/34 again is refused."""
    from malta_sim.iod.game import IllegalDecision
    a, b = u("axis.4.1_34"), u("axis.4.2_34")
    place = {"1310": ["axis.4.1_34"], "1208": ["axis.4.2_34"], "1311": ["allied.uk.8m"],
             "1209": ["allied.uk.2rwk"]}
    d = static().grid.distance_table
    assert d[h("1208"), h("1209")] == 1 and d[h("1208"), h("1311")] > 1
    calls: list = []
    bot = _Combat(AXIS, calls, order=[(h("1311"), [a]), (h("1209"), [b])])
    g = make(place, policies=(bot, _Combat(ALLIED, calls)))
    combat.combat_phase(g, AXIS)
    assert a in bot.offers[0][h("1311")] and a in bot.offers[0][h("1209")]
    assert len(bot.offers) >= 2
    assert all(a not in us for us in bot.offers[1].values())
    assert bot.offers[1].get(h("1209")) == [b]
    bot = _Combat(AXIS, [], order=[(h("1311"), [a]), (h("1209"), [a])])
    g = make(place, policies=(bot, _Combat(ALLIED, [])))
    with pytest.raises(IllegalDecision, match="9.3"):
        combat.combat_phase(g, AXIS)


def test_rule_9_2_supports_placed_in_order_before_bombardment():
    """Rule 9.2: before any combat the active player places its support (a),
    then the inactive player places defensive support on its hexes that can
    be attacked (b: the British battery in range is offered for 1311 and
    1209, the hexes next to Axis units, not for the unthreatened 1714), then
    the bombardments are resolved (c) and the attacks follow."""
    a = u("axis.4.1_34")
    art_gb = u("allied.uk.art_12")
    place = {"1310": ["axis.4.1_34"], "1409": ["axis.4.art_28"], "1311": ["allied.uk.8m"],
             "1209": ["allied.uk.2rwk"], "1312": ["allied.uk.art_12"], "1714": ["allied.uk.4b"]}
    calls: list = []

    def plan(game, opts):
        from malta_sim.bots.base import CombatPlan
        p = CombatPlan()
        assert u("axis.4.art_28") in opts.bombard[h("1209")]
        p.bombard[h("1209")] = [u("axis.4.art_28")]
        return p

    bot = _Combat(AXIS, calls, order=[(h("1311"), [a])], plan=plan)
    ally = _Combat(ALLIED, calls, dsupport=lambda opts: {h("1311"): [art_gb]} if art_gb in opts.get(h("1311"), []) else {})
    g = make(place, policies=(bot, ally))
    combat.combat_phase(g, AXIS)
    assert calls[:2] == ["plan", "defensive support"]
    dopts = ally.dopts[0]
    assert set(dopts) == {h("1311"), h("1209")} and all(art_gb in v for v in dopts.values())
    acts = [r["action"] for r in g.events.rows]
    bomb = [i for i, x in enumerate(acts) if x.startswith("bombardment")]
    att = [i for i, x in enumerate(acts) if x in ("attack", "attack cancelled")]
    assert bomb and att and max(bomb) < min(att)
