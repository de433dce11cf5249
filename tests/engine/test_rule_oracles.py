"""Engine queries against their plain references, on the positions of played games.

The engine answers many rule queries with compiled kernels or kept answers;
:mod:`tests.oracles.iod_rules` states each the plain way.  Here whole seeded
games are played with a phase-end observer (``Game.observers``) that asks the
package and the plain reference on the live position at the end of every
phase and demands equal answers, by subject: unit and hex queries, movement,
combat, organisation and the phase-end checks, the invasion.  Counters make
sure each comparison was reached with answers that matter (not only empty
ones).  A last test shows that the observers leave the games as they are.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from malta_sim.iod import invasion as H, sequence, static as st
from malta_sim.iod.rules import (airborne as ap, amphibious, artillery, combat, movement,
                                 organisation, supply, victory)
from malta_sim.iod.rules.combat_options import firer_candidates
from malta_sim.iod.rules.phase_end_checks import PHASE_END_DONE, phase_end_kernel
from malta_sim.iod.state import AXIS, BOX_DISBANDMENT, BOX_MAP, DEMORALIZED, DISORGANIZED
from malta_sim.kernels import crt as kcrt
from malta_sim.kernels import paths
from malta_sim.loaders.iod_map import load_map
from malta_sim.play import new_game

from tests.conftest import failed_communications, phase_start_zoc
from tests.oracles import iod_rules as ref
from tests.oracles import paths as ref_paths

#: (scenario, Axis bot, Allied bot, seed, games): default and random bots,
#: both scenarios
CASES = [("hercules", "balanced", "static", 1942, 2), ("hercules", "aggressive", "counterattack", 11, 2),
         ("intro", "balanced", "counterattack", 3, 2), ("intro", "random", "random", 11, 2)]


def _play(scenario, axis, allied, seed, n, compare, seen: Counter):
    rng = np.random.default_rng(seed)
    for g in range(n):
        game = new_game(scenario, seed, g, axis_policy=axis, allied_policy=allied)
        game.observers.append(lambda game, phase: compare(game, phase, seen, rng))
        sequence.play_game(game)
        seen["games"] += 1


def _sample(rng, items, k):
    items = list(items)
    if len(items) <= k:
        return items
    return [items[i] for i in sorted(rng.choice(len(items), k, replace=False))]


# ------------------------------------------------------------------ unit and hex queries
def _queries(game, phase, seen, rng):
    s, t = game.state, game.static
    for side in (None, 0, 1):
        assert np.array_equal(game.on_map(side), ref.on_map(game, side)), (phase, "on_map")
        assert game.ground_units(side) == [int(x) for x in ref.on_map(game, side) if game.is_ground(int(x))]
    occupied = np.unique(s.hex[s.box == BOX_MAP]).tolist()
    for hh in occupied + rng.choice(t.n_hexes, 5).tolist():
        for side in (None, 0, 1):
            assert np.array_equal(game.units_at(hh, side), ref.units_at(game, hh, side)), (phase, "units_at")
        seen["units_at"] += 1
    for x in range(t.n_units):
        assert game.is_remnant(x) == ref.is_remnant(game, x)
        assert game.morale_value(x) == ref.morale_value(game, x)
        assert game.steps(x) == ref.steps(game, x)
        assert game.movement_allowance(x) == ref.movement_allowance(game, x), (phase, "MA", x)
        assert organisation.stack_weight(game, x) == ref.stack_weight(game, x)
        m = int(s.morale_state[x])
        assert combat.attack_strength(game, x) == kcrt.unit_attack(        # 9.91, 8.31, 8.4, 11.3
            int(t.attack[x, s.level[x]]), bool(s.out_of_supply[x]), m == DISORGANIZED, m == DEMORALIZED)
        assert combat.defense_strength(game, x) == kcrt.unit_defense(
            int(t.defense[x, s.level[x]]), m == DEMORALIZED)
        want = movement.effective_ma(game, x) if movement.movable(game, x) else None
        assert movement._ma_if_movable(game, x) == want, (phase, "ma_if_movable", x)
        seen["remnants"] += int(game.is_remnant(x))
        seen["demoralized"] += int(m == DEMORALIZED)
    for side in (0, 1):
        assert np.array_equal(organisation.stack_totals(game, side), ref.stack_totals(game, side))
        assert movement._side_hexes(game, side) == set(s.hex[t.side == side].tolist())
    seen["phases"] += 1


@pytest.mark.parametrize("scenario,axis,allied,seed,n", CASES[:1] + CASES[2:])
def test_unit_and_hex_queries_equal_plain_references_in_games(scenario, axis, allied, seed, n):
    """Pieces on the map and in each hex, remnants (17.32), morale values
    (11.2), steps (17.3), allowances (6.0, 8.33, 11.4), stack weights and
    totals (7.1), strengths (9.91) and the movable allowance."""
    seen: Counter = Counter()
    _play(scenario, axis, allied, seed, n, _queries, seen)
    assert seen["phases"] > 30 and seen["units_at"] > 100, dict(seen)
    assert seen["remnants"] > 0 and seen["demoralized"] > 0, dict(seen)


# ------------------------------------------------------------------ movement (5, 6, 8, 14.1)
def _movement(game, phase, seen, rng):
    s, t = game.state, game.static
    for side in (0, 1):
        # 6.52 occupancy, 5.1 ZOC and the masks kept for the side's moves
        occ = ref.occupancy(game, side)
        got = movement.occupancy(game, side)
        assert np.array_equal(got[0], occ[0]) and np.array_equal(got[1], occ[1]), (phase, "occupancy")
        seen["occupancy"] += int(got[0].any())
        ex = movement.exerting_hexes(game, side)
        want = ref.exerting_hexes(game, side)
        assert np.array_equal(ex[0], want[0]) and np.array_equal(ex[1], want[1]), (phase, "exerting")
        zoc, block, trivial = movement._side_masks(game, side)
        eocc = ref.occupancy(game, 1 - side)
        assert np.array_equal(zoc, movement.zoc_map(game, 1 - side))
        assert np.array_equal(block, eocc[0]) and np.array_equal(trivial, eocc[1]), (phase, "side masks")
        # 8.1-8.5 supply
        got = supply.compute_supply(game, side)
        assert np.array_equal(got, ref.compute_supply(game, side)), (phase, "supply")
        seen["supply_out"] += int((~got[game.on_map(side)]).any())
        # 6.2 near the enemy, 14.1 leader bonuses
        assert np.array_equal(movement.within2_of_enemy(game, side), ref.within2_of_enemy(game, side))
        bonus = movement.leader_bonus(game, side)
        assert bonus.dtype == np.int8 and np.array_equal(bonus, ref.leader_bonus(game, side))
        seen["leader_bonus"] += int(bonus.any())
        # 6.0 movable units, 7.1 stacking room
        movable = movement.movable_units(game, side)
        assert movable == [int(x) for x in game.on_map(side) if movement.movable(game, int(x))]
        assert np.array_equal(movement._stack_room(game, side),
                              movement.STACK_ROOM - ref.stack_totals(game, side))
        # 5.2, 6.1, 6.53, 7.1 legal moves of some movable units
        for x in _sample(rng, movable, 4):
            got = movement.legal_moves(game, x, "tactical")
            want = ref.legal_moves(game, x, "tactical")
            assert got == want and list(got) == list(want), (phase, "legal_moves", x)
            seen["legal_moves"] += int(bool(got))
            if t.utype[x] == st.ARTILLERY and not s.hitched[x]:
                got = movement.legal_moves(game, x, "tactical", hitch=True)
                assert got == ref.legal_moves(game, x, "tactical", hitch=True)
                seen["hitch"] += 1
        # 6.41 infiltration from the ZOC recorded at the start of the last movement phase
        start = phase_start_zoc(game)
        if start is not None:
            got = movement.infiltration_options(game, side)
            want = ref.infiltration_options(game, side, start)
            assert list(got.items()) == list(want.items()), (phase, "infiltration")
            seen["infiltration"] += len(got)
    seen["phases"] += 1


@pytest.mark.parametrize("scenario,axis,allied,seed,n", CASES)
def test_movement_queries_equal_plain_references_in_games(scenario, axis, allied, seed, n):
    """Occupancy (6.52), ZOC-exerting hexes (5.1), the masks kept for a
    side's moves, supply (8.1-8.5), hexes near the enemy (6.2), leader
    bonuses (14.1), movable units (6.0), stacking room (7.1), legal moves
    (5.2, 6.1, 6.53; artillery hitching 6.6) and infiltration (6.41)."""
    seen: Counter = Counter()
    _play(scenario, axis, allied, seed, n, _movement, seen)
    assert seen["phases"] > 20, dict(seen)
    for key in ("occupancy", "supply_out", "legal_moves", "hitch", "leader_bonus", "infiltration"):
        assert seen[key] > 0, (key, dict(seen))


# ------------------------------------------------------------------ combat (9, 10, 12, 14, 16.73, 17.7)
def _regiment_groups(game, side, rng) -> list:
    """Attacker groups for the 9.92 comparison: each whole regiment of either
    side (integrity), then random groups of ``side``'s ground units."""
    t = game.static
    own = [int(x) for x in game.on_map(side) if game.is_ground(int(x))]
    enemy = [int(x) for x in game.on_map(1 - side) if game.is_ground(int(x))]
    groups = [[int(m) for m in game.tables.members[r]]
              for r in sorted({int(t.regiment[x]) for x in own + enemy if t.regiment[x] >= 0})]
    for _ in range(6):
        if own:
            groups.append(rng.choice(own, min(len(own), int(rng.integers(1, 7))), replace=False).tolist())
    return groups


def _combat(game, phase, seen, rng):
    s, t = game.state, game.static
    for side in (0, 1):
        # 9.11-9.16 attack options, all attackers and some of them
        got = combat.attack_options(game, side)
        want = ref.attack_options(game, side)
        assert got == want and list(got) == list(want), (phase, "attack_options")
        seen["targets"] += len(got)
        cand = [int(x) for x in ref.on_map(game, side) if ref.can_attack(game, int(x))]
        assert combat.attackers_now(game, side).tolist() == cand
        some = _sample(rng, cand, max(1, len(cand) // 2))
        if some:
            got2 = combat.attack_options(game, side, some)
            want2 = ref.attack_options(game, side, some)
            assert got2 == want2 and list(got2) == list(want2)
        # 9.2 a, 10.1, 10.11, 12.2, 12.52: the plan options carry the attack options
        opts = combat.plan_options(game, side)
        rp = ref.plan_options(game, side)
        for f in ("attack_targets", "support", "bombard", "air_markers", "hurricane_ok"):
            a, b = getattr(opts, f), getattr(rp, f)
            assert a == b and (not isinstance(a, dict) or list(a) == list(b)), (phase, f)
        assert opts.attackers == got and list(opts.attackers) == opts.attack_targets == sorted(got)
        seen["support"] += sum(map(len, opts.support.values()))
        seen["bombard"] += len(opts.bombard)
        # 9.2 b: defensive support for the hexes next to the enemy
        enemy_hexes = np.unique(s.hex[game.on_map(1 - side)]).tolist()
        threatened = sorted({int(o) for e in enemy_hexes for o in t.neighbours[e] if o >= 0})
        got = combat.defensive_options(game, side, threatened)
        want = ref.defensive_options(game, side, threatened)
        assert got == want and list(got) == list(want), (phase, "defensive_options")
        seen["defensive"] += len(got)
        # 10.11 discovered enemy hexes
        assert combat.discovered_hexes(game, enemy_hexes, side).tolist() == \
            [ref.discovered(game, e, side) for e in enemy_hexes], (phase, "discovered")
        # 16.73, 17.7 pieces barred from firing
        fc = firer_candidates(s.box, s.fired, game.tables.firer_side[side])
        failed = failed_communications(game)
        if len(fc):
            got = combat._barred(game, fc, failed)
            assert np.array_equal(got, ref.barred(game, fc, failed)), (phase, "barred")
            seen["barred_any"] += int(got.any())
        # attacks that could be made now: 9.92 modifiers, 14.2 command, 10.31 leaders, 7.1
        for tgt, units in combat.attack_options(game, side).items():
            dfd = combat.defenders_in(game, tgt, 1 - side)
            assert dfd == ref.defenders_in(game, tgt, 1 - side)
            a = combat.odds_modifiers(game, side, units, dfd, tgt, roll_leaders=False)
            assert a == ref.odds_modifiers(game, side, units, dfd, tgt, roll_leaders=False), \
                (phase, "odds_modifiers", tgt)
            seen["modifiers"] += int(bool(a))
            for group, other in ((units, side), (dfd, 1 - side)):
                got = combat._command_leader(game, other, group)
                assert got == ref.command_leader(game, other, group), (phase, "command_leader")
                seen["command_leader"] += int(got is not None)
            got = combat._penetration_leader(game, units)
            assert got == ref.penetration_leader(game, units), (phase, "penetration_leader")
            seen["penetration_leader"] += int(got is not None)
            assert organisation.fits_stacking(game, units, tgt) == ref.fits_stacking(game, units, tgt)
        # 9.92 with whole regiments attacking or defending (integrity)
        enemy = [int(x) for x in game.on_map(1 - side) if game.is_ground(int(x))]
        for att in _regiment_groups(game, side, rng):
            dfn = rng.choice(enemy, min(len(enemy), int(rng.integers(0, 5))), replace=False).tolist() \
                if enemy else []
            target = int(rng.integers(t.n_hexes))
            got = combat.odds_modifiers(game, side, att, dfn, target, roll_leaders=False)
            want = ref.odds_modifiers(game, side, att, dfn, target, roll_leaders=False)
            assert list(got.items()) == list(want.items()), (phase, "odds_modifiers", att)
            seen["integrity"] += int("attacker_integrity" in got)
        # 7.1 stacking of each stack, and with a neighbour's pieces added; 9.81
        # the pieces that may advance from it; 6.52 blocking pieces next to it;
        # 14.3 leaders in it
        block = ref.occupancy(game, side)[0]
        for hh in np.unique(s.hex[game.on_map(side)]).tolist():
            here = game.units_at(hh, side).tolist()
            for o in t.neighbours[hh].tolist():
                if o >= 0:
                    assert organisation.fits_stacking(game, here, o) == ref.fits_stacking(game, here, o)
            seen["stacking"] += 1
            stayers = [x for x in here if game.is_ground(x)]
            got = combat._advance_eligible(game, side, stayers)
            assert got == ref.advance_eligible(game, side, stayers), (phase, "advance_eligible")
            seen["advance"] += len(got)
            nb_ = t.neighbours[hh]
            nb_ = nb_[nb_ >= 0]
            assert np.array_equal(combat._blocking_next_to(game, hh, side)[nb_], block[nb_])
            assert combat._leaders_in(game, hh, side) == \
                [int(x) for x in here if t.utype[x] == st.LEADER]
    seen["phases"] += 1


@pytest.mark.parametrize("scenario,axis,allied,seed,n", CASES)
def test_combat_queries_equal_plain_references_in_games(scenario, axis, allied, seed, n):
    """Attack options (9.11-9.16), attackers, plan options (9.2 a, 10.1, 12.2,
    12.52), defensive options (9.2 b), discovery (10.11), pieces barred from
    firing (16.73, 17.7), odds modifiers (9.92 with whole regiments), command
    and penetration leaders (14.2, 10.31), stacking (7.1), the pieces that may
    advance (9.81), blocking pieces (6.52) and leaders per hex (14.3)."""
    seen: Counter = Counter()
    _play(scenario, axis, allied, seed, n, _combat, seen)
    assert seen["phases"] > 20, dict(seen)
    for key in ("targets", "support", "bombard", "defensive", "modifiers", "integrity", "barred_any",
                "command_leader", "penetration_leader", "stacking", "advance"):
        assert seen[key] > 0, (key, dict(seen))


# ------------------------------------------------------------------ organisation, phase end (2.1, 7.2, 12.56, 13, 14.42, 18.31)
def _organisation(game, phase, seen, rng):
    s, t, tb = game.state, game.static, game.tables
    # the engine's phase end left nothing to do: no hex over the limit (7.2),
    # no caught leader (14.42), control as the pieces give it (2.1)
    ctl = s.control.copy()
    code, caught = phase_end_kernel(s.box, s.hex, s.level, t.side, tb.base_weight,
                                    tb.remnant_level_full, t.n_hexes, tb.leader, tb.controls, ctl)
    assert code == PHASE_END_DONE and not len(caught), (phase, "phase end")
    assert np.array_equal(ctl, s.control) and not ref.caught_leaders(game)
    assert np.array_equal(ref.update_control(game, s.control.copy()), s.control)
    for side in (0, 1):
        assert ref.stack_totals(game, side).max() <= organisation.STACK_LIMIT_HALVES
        # 13.2 reform options, 13.1 companies for a break-down
        got = organisation.reform_options(game, side)
        assert got == ref.reform_options(game, side), (phase, "reform_options")
        seen["reform"] += len(got)
        for b in np.flatnonzero((t.side == side) & (t.size == st.BATTALION) & (s.box == BOX_MAP)).tolist():
            assert organisation.companies_for(game, b) == ref.companies_for(game, b)
        # 12.56 artillery that may take ammunition
        got = artillery.ammo_eligible(game, side)
        assert got == ref.ammo_eligible(game, side), (phase, "ammo_eligible")
        seen["ammo"] += len(got)
    # 18.31 the battalions that may break down (Follow-up boxes)
    bns = np.flatnonzero((t.side == AXIS) & (t.size == st.BATTALION)).tolist()
    got = amphibious.breakable(game, bns)
    assert got == [ref.can_break_down(game, b) for b in bns], (phase, "breakable")
    seen["breakable"] += sum(got)
    seen["phases"] += 1


@pytest.mark.parametrize("scenario,axis,allied,seed,n", CASES)
def test_phase_end_and_organisation_equal_plain_references_in_games(scenario, axis, allied, seed, n):
    """After every phase end the position is settled (7.2, 14.42, 2.1, as the
    compiled pass and the plain checks see it); reform options (13.2),
    companies for a break-down (13.1), artillery that may take ammunition
    (12.56) and the battalions that may break down (18.31)."""
    seen: Counter = Counter()
    _play(scenario, axis, allied, seed, n, _organisation, seen)
    for key in ("reform", "ammo", "breakable"):
        assert seen[key] > 0, (key, dict(seen))


# ------------------------------------------------------------------ invasion (16, 18, 19, 20)
def _invasion(game, phase, seen, rng):
    s, t = game.state, game.static
    # 19.13 drop zone markers on the map
    if s.dz_hex.max() >= 0:
        zoc = H.enemy_zoc(game, AXIS)
        inv = game.static.invasion
        for f in range(s.dz_hex.shape[1]):
            here = int(s.dz_hex[0, f])
            if here < 0:
                continue
            for steps in (1, ap.MARKER_MOVE):
                got = ap.marker_reach_kernel(here, steps, inv.near_padded, t.land, s.control, zoc,
                                             s.hex, t.side)
                assert got.tolist() == ref.marker_reach(game, here, zoc, steps), (phase, "marker")
                seen["marker"] += int(len(got) > 0)
    # 19.21 the sticks a formation may still plan
    for f in range(t.n_formations):
        got = ap.available_sticks(game, f, ())
        want = ref.available_sticks(game, f, ())
        assert got == want and [type(x) for _, us in got for x in us] == \
            [type(x) for _, us in want for x in us], (phase, "sticks")
        seen["sticks"] += len(got)
    # 18.7, 19.6 one-hex moves of pieces on the map
    for x in _sample(rng, game.on_map(AXIS).tolist(), 6):
        if t.utype[x] in (st.WARSHIP, st.COASTAL_GUN):
            continue
        got = H.one_hex_options(game, x)
        assert got == ref.one_hex_options(game, x), (phase, "one_hex", x)
        seen["one_hex"] += len(got)
    # 20.0 victory terms
    assert victory.objective_counts(game) == ref.objective_counts(game)
    assert victory.axis_hqs_out(game) == ref.axis_hqs_out(game)
    assert victory.invasion_terms(game) == ref.invasion_terms(game)
    seen["airfields"] += ref.objective_counts(game)["airfields"]
    seen["disbandment"] += int((s.box == BOX_DISBANDMENT).any())
    seen["phases"] += 1


@pytest.mark.parametrize("scenario,axis,allied,seed,n", [
    ("hercules", "balanced", "static", 1942, 2), ("hercules", "random", "random", 6, 2),
    ("intro", "balanced", "static", 5, 2)])
def test_invasion_queries_equal_plain_references_in_games(scenario, axis, allied, seed, n):
    """Drop zone marker moves (19.13), the sticks still to plan (19.21),
    one-hex moves (18.7, 19.6) and the victory terms of 20.0."""
    seen: Counter = Counter()
    _play(scenario, axis, allied, seed, n, _invasion, seen)
    for key in ("marker", "sticks", "one_hex", "airfields"):
        assert seen[key] > 0, (key, dict(seen))


# ------------------------------------------------------------------ ZOC and supply routes (5, 8.2)
_MAPS: dict = {}


def _zoc_and_routes(game, phase, seen, rng):
    """Rules 5.0-5.3, 8.2: each side's ZOC map equals
    :func:`malta_sim.kernels.paths.zoc_map` over the map loader's per-hexside
    tables, and each HQ's supply routes equal the independent search of
    :func:`oracles.paths.supply_field`."""
    s, t = game.state, game.static
    key = t.provenance.get("data_dir")
    if key not in _MAPS:
        _MAPS[key] = load_map(key)
    md = _MAPS[key]
    n = t.n_hexes
    for side in (0, 1):
        exert, foot = movement.exerting_hexes(game, side)
        theirs = paths.zoc_map(t.neighbours, exert, (~foot).astype(np.int8), md.zoc_across)
        assert np.array_equal(movement.zoc_map(game, side), theirs), (phase, "zoc", side)
        seen["zoc"] += int(theirs.any())
        passable = supply.passable_for(game, side)
        ezoc = movement.zoc_map(game, 1 - side)
        blk, triv = movement.occupancy(game, 1 - side)
        friendly = np.zeros(n, bool)
        for u in game.on_map(side):
            if t.utype[u] not in (st.LEADER, st.WARSHIP):
                friendly[s.hex[u]] = True
        for f in range(t.n_formations):
            hq = int(t.formation_hq[f])
            if hq < 0 or t.side[hq] != side or s.box[hq] != BOX_MAP:
                continue
            h = int(s.hex[hq])
            d1 = supply.route_distance(h, passable | (np.arange(n) == h), t.neighbours,
                                       t.ocean_side, supply.MAX_ROUTE)
            src = np.zeros(n, bool)
            src[h] = True
            d2 = ref_paths.supply_field(t.neighbours, md.supply_across, src, blk | triv, ezoc,
                                        friendly, supply.MAX_ROUTE)
            assert np.array_equal(d1.astype(int), d2.astype(int)), (phase, "supply routes", f)
            seen["routes"] += 1
    seen["phases"] += 1


@pytest.mark.parametrize("scenario,axis,allied,seed,n", CASES[:2])
def test_zoc_and_supply_routes_equal_independent_searches_in_games(scenario, axis, allied, seed, n):
    """Rules 5.0-5.3 and 8.2 on the positions of played games."""
    seen: Counter = Counter()
    _play(scenario, axis, allied, seed, n, _zoc_and_routes, seen)
    assert seen["phases"] > 20 and seen["zoc"] > 0 and seen["routes"] > 0, dict(seen)


def test_observers_leave_the_games_as_they_are():
    """The comparisons above only read: a game played with all of them gives
    the result row and event log of the same game played without."""
    from malta_sim.iod.engine import game_row

    def play(observed: bool):
        game = new_game("hercules", 1942, 0, axis_policy="balanced", allied_policy="static",
                        event_log=True)
        if observed:
            rng = np.random.default_rng(0)
            seen: Counter = Counter()
            for f in (_queries, _movement, _combat, _organisation, _invasion, _zoc_and_routes):
                game.observers.append(lambda game, phase, f=f: f(game, phase, seen, rng))
        sequence.play_game(game)
        return game_row(game, "balanced", "static"), [dict(r) for r in game.events.rows]

    assert play(True) == play(False)
