"""Engine queries against their plain references, on the positions of played games.

The engine answers several rule queries with compiled kernels or kept answers
(:mod:`oracles.iod_rules` lists them).  Here whole seeded games are played
with a phase-end observer (``Game.observers``) that asks both the package and
the plain reference on the live position at the end of every phase and
demands equal answers.  Counters make sure each comparison was reached with
answers that matter (not only empty ones).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tests.oracles import iod_rules as ref
from tests.oracles import paths as ref_paths

from malta_sim.iod.rules import airborne as ap
from malta_sim.iod.rules import combat, movement, organisation, supply
from malta_sim.iod import sequence
from malta_sim.iod.rules.combat_options import firer_candidates
from malta_sim.play import new_game
from malta_sim.iod.invasion import enemy_zoc
from malta_sim.iod import static as st
from malta_sim.iod.state import AXIS, BOX_MAP
from malta_sim.kernels import paths
from malta_sim.loaders.iod_map import load_map

_MAPS: dict = {}


def _zoc_and_routes(game, phase, seen: Counter) -> None:
    """Rules 5.0-5.3, 8.2: each side's ZOC map equals :func:`malta_sim.kernels.paths.zoc_map`
    over the map loader's per-hexside tables, and each HQ's supply routes
    equal the independent search of :func:`oracles.paths.supply_field`."""
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


def _compare(game, phase, seen: Counter) -> None:
    s, t = game.state, game.static
    for side in (0, 1):
        # 6.52 occupancy
        a = movement.occupancy(game, side)
        b = ref.occupancy(game, side)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), (phase, "occupancy")
        seen["occupancy"] += int(a[0].any())
        # 8.1-8.5 supply
        got = supply.compute_supply(game, side)
        assert np.array_equal(got, ref.compute_supply(game, side)), (phase, "supply")
        seen["supply_out"] += int((~got[game.on_map(side)]).any())
        # 16.73, 17.7 pieces barred from firing
        cand = firer_candidates(s.box, s.fired, game.tables.firer_side[side])
        failed = game.extra.get("comm_failed", {}).get(game.turn)
        if len(cand):
            got = combat._barred(game, cand, failed)
            assert np.array_equal(got, ref.barred(game, cand, failed)), (phase, "barred")
            seen["barred_any"] += int(got.any())
        # attacks that could be made now: 9.92 modifiers, 14.2 command, 10.31 leaders
        for tgt, units in combat.attack_options(game, side).items():
            dfd = combat.defenders_in(game, tgt, 1 - side)
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
            # 7.1 stacking: the attackers fit in the target hex (it is the enemy's)
            assert organisation.fits_stacking(game, units, tgt) == ref.fits_stacking(game, units, tgt)
        # 7.1 stacking: each stack, and each stack with a neighbour's pieces added
        for h in np.unique(s.hex[game.on_map(side)]).tolist():
            here = game.units_at(h, side).tolist()
            for o in t.neighbours[h].tolist():
                if o >= 0:
                    assert organisation.fits_stacking(game, here, o) == ref.fits_stacking(game, here, o)
            seen["stacking"] += 1
    # 19.13 drop zone markers on the map
    if game.scenario.name == "hercules" or s.dz_hex.max() >= 0:
        zoc = enemy_zoc(game, AXIS)
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
    _zoc_and_routes(game, phase, seen)
    seen["phases"] += 1


CASES = [("hercules", "balanced", "static", 1942, 2), ("hercules", "aggressive", "counterattack", 11, 2),
         ("intro", "balanced", "counterattack", 3, 2), ("intro", "random", "random", 5, 1)]


@pytest.mark.parametrize("scenario,axis,allied,seed,n", CASES)
def test_engine_queries_equal_plain_references_in_games(scenario, axis, allied, seed, n):
    seen: Counter = Counter()
    for g in range(n):
        game = new_game(scenario, seed, g, axis_policy=axis, allied_policy=allied)
        game.observers.append(lambda game, phase: _compare(game, phase, seen))
        sequence.play_game(game)
    assert seen["phases"] > 50
    for key in ("occupancy", "supply_out", "modifiers", "command_leader", "stacking", "routes"):
        assert seen[key] > 0, (key, dict(seen))
    if scenario == "hercules":
        assert seen["marker"] > 0 and seen["barred_any"] + seen["penetration_leader"] > 0, dict(seen)
