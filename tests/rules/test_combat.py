"""Combat (rule 9) on constructed positions, with the rulebook's worked example of 9.9 in
play: who may attack, odds, strength and odds modifiers, losses, standing ground,
advance after combat; the compiled option finding, retreat ranking, advance options and
CRT columns against plain references on random positions.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod import static as st
from malta_sim.iod.rules import combat, movement, organisation
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
    (rules 9.6, 9.61, 7.3): the best-ranked of :func:`_ref_retreat_candidates`,
    on the last hex of the retreat those with room when any has."""
    from tests.oracles.iod_rules import fits_stacking

    cands = _ref_retreat_candidates(game, units, cur, visited, block, zoc, enemy_hexes)
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
                    and not block[t.neighbours[h0, d]] and _ref_enterable(g, units, h0, d)
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


# ------------------------------------------------------------------ the retreat and advance kernels at their edges
def _ref_blocking_next_to(game, cur, side):
    """Rule 6.52 written out: the hexes next to ``cur`` holding a piece of
    ``side`` on the map that stops entry (not a warship, leader or coastal
    gun, defense strength above zero at its level)."""
    s, t = game.state, game.static
    out = np.zeros(t.n_hexes, bool)
    near = {int(b) for b in t.neighbours[cur] if b >= 0}
    for x in range(len(s.box)):
        if (t.side[x] == side and s.box[x] == BOX_MAP and int(s.hex[x]) in near
                and t.utype[x] not in (st.WARSHIP, st.LEADER, st.COASTAL_GUN)
                and t.defense[x, s.level[x]] > 0):
            out[s.hex[x]] = True
    return out


def _scatter(rng, game, side, hexes, k):
    """Put ``k`` random pieces of ``side`` (any type, leaders included) on
    the map in random hexes of ``hexes``, each at a random level of its own."""
    s, t = game.state, game.static
    pool = np.flatnonzero(t.side == side)
    for x in rng.choice(pool, k, replace=False).tolist():
        s.box[x] = BOX_MAP
        s.hex[x] = int(rng.choice(hexes))
        s.level[x] = int(rng.integers(0, t.n_levels[x]))


@pytest.mark.parametrize("seed", [73, 74])
def test_rule_6_52_blocking_next_to_a_hex_equals_the_plain_rule(seed):
    """Rule 6.52 next to a hex (what a retreat or advance step reads): the
    hexes next to it holding a piece of the side on the map that is not a
    warship, leader or coastal gun and has a defense strength above zero.
    Random pieces of every type, leaders included, are put next to random
    hexes, so that hexes holding only a leader, a warship, a coastal gun, a
    zero-defense piece or a defense-1 piece are met, on every hexside."""
    rng = np.random.default_rng(seed)
    t = static()
    land = np.flatnonzero(t.land)
    seen = {"blocked": 0, "free": 0, "lone": set(), "def1": 0, "dirs": set()}
    for trial in range(6):
        g = random_position(rng, trial)
        s = g.state
        for cur in rng.choice(land, 25, replace=False).tolist():
            nb_ = [int(b) for b in t.neighbours[cur] if b >= 0]
            side = int(rng.integers(2))
            _scatter(rng, g, side, nb_, int(rng.integers(1, 8)))
            empty = [b for b in nb_ if not ((s.hex == b) & (t.side == side)).any()]
            if empty:                                   # a lone leader next to cur
                ld = int(rng.choice(np.flatnonzero((t.side == side) & (t.utype == st.LEADER))))
                s.box[ld], s.hex[ld] = BOX_MAP, int(rng.choice(empty))
            got = combat._blocking_next_to(g, cur, side)
            want = _ref_blocking_next_to(g, cur, side)
            assert got.shape == want.shape and np.array_equal(got, want), cur
            for d in range(6):
                b = int(t.neighbours[cur, d])
                if b < 0:
                    continue
                here = [x for x in np.flatnonzero((s.hex == b) & (t.side == side)
                                                   & (s.box == BOX_MAP)).tolist()]
                seen["blocked" if want[b] else "free"] += bool(here)
                if want[b]:
                    seen["dirs"].add(d)
                if len(here) == 1:
                    x = here[0]
                    seen["lone"].add(int(t.utype[x]) if t.utype[x] in (st.WARSHIP, st.LEADER, st.COASTAL_GUN)
                                     else int(t.defense[x, s.level[x]] > 0))
                    seen["def1"] += int(t.defense[x, s.level[x]] == 1
                                        and t.utype[x] not in (st.WARSHIP, st.LEADER, st.COASTAL_GUN))
    assert seen["blocked"] and seen["free"] and seen["def1"], seen
    assert seen["lone"] == {st.WARSHIP, st.LEADER, st.COASTAL_GUN, 0, 1}, seen
    assert seen["dirs"] == set(range(6)), seen


@pytest.mark.parametrize("seed", [75, 76])
def test_rule_7_1_fits_stacking_at_the_limit_equals_the_plain_weights(seed):
    """Rule 7.1 (17.31): pieces fit in a hex when the half battalions of the
    side there (pieces already in the hex counted once, whether they move or
    not) plus theirs come to at most 8, a remnant counting one.  Random
    stacks around the limit, part of the moving pieces already standing in
    the hex, at random levels (remnants among the movers and those there)."""
    rng = np.random.default_rng(seed)
    t = static()
    land = np.flatnonzero(t.land)
    seen = {"at_limit": 0, "one_over": 0, "mover_there": 0, "rem_there": 0, "rem_moving": 0,
            "full_moving": 0}
    for trial in range(6):
        g = random_position(rng, trial)
        s = g.state
        for _ in range(60):
            side = int(rng.integers(2))
            h0 = int(rng.choice(land))
            pool = np.flatnonzero((t.side == side) & (t.utype != st.LEADER))
            there = rng.choice(pool, int(rng.integers(0, 6)), replace=False).tolist()
            for x in there:
                s.box[x], s.hex[x] = BOX_MAP, h0
                s.level[x] = int(rng.integers(0, t.n_levels[x]))
            rest = [x for x in pool.tolist() if x not in there]
            movers = rng.choice(rest, int(rng.integers(1, 4)), replace=False).tolist()
            for x in movers:
                s.level[x] = int(rng.integers(0, t.n_levels[x]))
            movers += [x for x in there if rng.random() < 0.3]
            movers = [int(x) for x in rng.permutation(movers)]
            here = [int(x) for x in np.flatnonzero((s.hex == h0) & (t.side == side))]
            total = sum(ref.stack_weight(g, x) for x in set(here) | set(movers))
            assert organisation.fits_stacking(g, movers, h0) == (total <= st.STACK_LIMIT_HALVES)
            seen["at_limit"] += total == st.STACK_LIMIT_HALVES
            seen["one_over"] += total == st.STACK_LIMIT_HALVES + 1
            seen["mover_there"] += bool(set(movers) & set(here))
            seen["rem_there"] += any(ref.is_remnant(g, x) for x in here if x not in movers)
            seen["rem_moving"] += any(ref.is_remnant(g, x) for x in movers)
            seen["full_moving"] += any(ref.stack_weight(g, x) == 2 for x in movers)
    assert all(v > 5 for v in seen.values()), seen


def _ref_enterable(game, units, a, d):
    """Rules 9.61, 9.84, 6.1 written out: the hex across hexside ``d`` of
    ``a`` is a land hex, the hexside is not all ocean, and no piece of
    ``units`` other than a leader is prohibited from its terrain or (off a
    road) from crossing the rise."""
    t = game.static
    b = int(t.neighbours[a, d])
    if b < 0 or not t.land[b] or t.ocean_side[a, d]:
        return False
    walkers = [x for x in units if t.utype[x] != st.LEADER]
    if any(t.move_cost[b, t.move_class[x]] >= 99 for x in walkers):
        return False
    if t.rise[a, d] and not t.road[a, d]:
        return not any(t.rise_cost[t.move_class[x]] >= 99 for x in walkers)
    return True


def test_rules_9_61_9_84_enterable_on_every_coastal_and_rise_hexside():
    """Rules 9.61, 9.84: whether a group may step across a hexside, on every
    hexside of the map that leads off the map, into the sea or across a rise
    without a road, for groups of leaders alone, foot, motorized and
    mechanized pieces, and leaders listed before the others."""
    from malta_sim.iod.rules.retreat_advance import enterable

    g = random_position(np.random.default_rng(77), 0)
    t = g.static
    rng = np.random.default_rng(78)
    leaders = np.flatnonzero(t.utype == st.LEADER)
    pieces = [np.flatnonzero((t.move_class == c) & (t.utype != st.LEADER)) for c in range(3)]
    edges = [(a, d) for a in np.flatnonzero(t.land).tolist() for d in range(6)
             if t.neighbours[a, d] < 0 or not t.land[t.neighbours[a, d]] or t.rise[a, d]]
    seen = {True: 0, False: 0, "lone_leader_sea": 0, "leader_first_rise": 0}
    for a, d in edges:
        groups = [[int(rng.choice(leaders))]]
        for c in range(3):
            groups.append([int(rng.choice(leaders)), int(rng.choice(pieces[c]))])
            groups.append([int(x) for x in rng.choice(pieces[c], 2, replace=False)])
        groups.append([int(rng.choice(pieces[0])), int(rng.choice(pieces[2]))])
        for grp in groups:
            args = (t.neighbours, t.land, t.ocean_side, t.move_class, t.move_cost, t.rise, t.road,
                    t.rise_cost, t.utype)
            want = _ref_enterable(g, grp, a, d)
            assert enterable(np.array(grp, np.int64), a, d, *args) == want, (a, d, grp)
            assert combat._enterable(g, grp, a, d) == want
            seen[want] += 1
            b = int(t.neighbours[a, d])
            seen["lone_leader_sea"] += len(grp) == 1 and b >= 0 and not t.ocean_side[a, d]
            seen["leader_first_rise"] += (t.utype[grp[0]] == st.LEADER and len(grp) > 1
                                          and t.rise[a, d] and not want and t.land[b])
    assert all(v > 0 for v in seen.values()), seen


def test_rule_9_81_cannot_move_equals_the_plain_rule_for_every_piece_and_level():
    """Rules 9.81, 9.63, 12.11: a piece cannot move (so never advances) when
    it is a strongpoint, militia or coastal gun, artillery not hitched, or
    its printed movement allowance at its level is zero; every piece of the
    game at every level, hitched or not."""
    from malta_sim.iod.rules.retreat_advance import cannot_move

    t = static()
    n = len(t.utype)
    seen = {"art_hitched": 0, "art_prepared": 0, "ma0_other": 0, "moves": 0}
    for hitched in (False, True):
        hit = np.full(n, hitched)
        for lev in range(int(t.n_levels.max())):
            level = np.minimum(np.full(n, lev), t.n_levels - 1).astype(np.int8)
            for x in range(n):
                ut = t.utype[x]
                if ut in (st.STRONGPOINT, st.MILITIA, st.COASTAL_GUN):
                    want = True
                elif ut == st.ARTILLERY:
                    want = not hitched
                    seen["art_hitched" if hitched else "art_prepared"] += 1
                else:
                    want = bool(t.ma[x, level[x]] <= 0)
                    seen["ma0_other"] += want
                seen["moves"] += not want
                assert cannot_move(x, t.utype, hit, t.ma, level) == want, (t.names[x], lev, hitched)
    assert all(seen.values()), seen


def _ref_retreat_candidates(game, units, cur, visited, block, zoc, enemy_hexes):
    """The neighbours of ``cur`` a retreating stack may enter, each as
    (rank, minus the distance to the nearest enemy hex, hex) (rule 9.61)."""
    t = game.static
    dist = t.grid.distance_table
    side = int(t.side[units[0]])
    cands = []
    for d in range(6):
        b = int(t.neighbours[cur, d])
        if b < 0 or b in visited or block[b] or not _ref_enterable(game, units, cur, d):
            continue
        d_b = [int(dist[b, e]) for e in enemy_hexes]
        farther = all(db > dist[cur, e] for db, e in zip(d_b, enemy_hexes))
        friendly = any(t.utype[x] != st.LEADER for x in ref.units_at(game, b, side).tolist())
        rank = 1 if not zoc[b] else 2 if farther else 3 if friendly else 4
        cands.append((rank, -(min(d_b) if d_b else 0), b))
    return cands


@pytest.mark.parametrize("seed", [79, 80])
def test_rules_9_61_7_3_retreat_ranking_in_enemy_zoc_next_to_friendly_stacks(seed):
    """Rules 9.61, 7.3 where the ranks below the first decide: most
    neighbours in enemy ZOC, several enemy hexes at different distances (a
    hex one farther from each, rank 2, against a friendly-occupied one, rank
    3, as near the nearest enemy), friendly stacks next to the retreating
    stack, some of them full, so that on the last hex of the retreat none of
    the best hexes may have room (then all of them are offered)."""
    from malta_sim.iod.rules.retreat_advance import retreat_options

    rng = np.random.default_rng(seed)
    t = static()
    nh = t.n_hexes
    dist = t.grid.distance_table
    land = [int(x) for x in np.flatnonzero(t.land)
            if sum(t.land[b] for b in t.neighbours[x] if b >= 0) >= 4]
    seen = {"2_vs_3": 0, "3_vs_4": 0, "none_fits": 0, "some_fit": 0}
    for trial in range(8):
        g = random_position(rng, trial)
        s, tb = g.state, g.tables
        for _ in range(40):
            side = int(rng.integers(2))
            cur = int(rng.choice(land))
            nb_ = [int(b) for b in t.neighbours[cur] if b >= 0 and t.land[b]]
            _scatter(rng, g, side, nb_, int(rng.integers(2, 12)))
            pool = np.flatnonzero((t.side == side) & (t.utype != st.LEADER))
            units = [int(x) for x in rng.choice(pool, int(rng.integers(1, 5)), replace=False)]
            if rng.random() < 0.3:
                units.append(int(rng.choice(np.flatnonzero((t.side == side) & (t.utype == st.LEADER)))))
            for x in units:
                s.box[x], s.hex[x] = BOX_MAP, cur
                s.level[x] = int(rng.integers(0, t.n_levels[x]))
            near = [int(x) for x in np.flatnonzero(t.land & (dist[cur] >= 1) & (dist[cur] <= 4))]
            eh = sorted({int(rng.choice(nb_))} | set(rng.choice(near, int(rng.integers(0, 3))).tolist()))
            visited = {cur} | ({int(rng.choice(nb_))} if rng.random() < 0.3 else set())
            vmask = np.zeros(nh, bool)
            vmask[list(visited)] = True
            block = rng.random(nh) < 0.1
            zoc = rng.random(nh) < 0.85
            last = bool(rng.integers(2))
            n, opts = retreat_options(
                cur, np.array(units, np.int64), vmask, block, zoc, np.array(eh, np.int64), last,
                s.hex, s.level, tb.side_mask[side], tb.base_weight, tb.remnant_level_full,
                t.neighbours, t.land, t.ocean_side, t.move_class, t.move_cost, t.rise, t.road,
                t.rise_cost, t.utype, dist)
            cands = _ref_retreat_candidates(g, units, cur, visited, block, zoc, eh)
            best = min((c[:2] for c in cands), default=None)
            want = [c[2] for c in cands if c[:2] == best]
            room = [b for b in want if ref.fits_stacking(g, units, b)]
            if last and room:
                want = room
            assert (n, opts.tolist()) == (len(cands), want), (cur, units, eh)
            ranks = {c[0]: c[1] for c in sorted(cands, reverse=True)}
            seen["2_vs_3"] += best is not None and best[0] == 2 and ranks.get(3) == best[1]
            seen["3_vs_4"] += best is not None and best[0] == 3 and 4 in ranks
            seen["none_fits"] += last and bool(cands) and not room
            seen["some_fit"] += last and bool(room) and len(room) < len(
                [c for c in cands if c[:2] == best])
    assert all(v > 0 for v in seen.values()), seen


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
