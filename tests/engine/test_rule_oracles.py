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

from malta_sim.iod.rules import airborne as ap
from malta_sim.iod.rules import combat, movement, organisation, supply
from malta_sim.iod import sequence
from malta_sim.iod.rules.combat_options import firer_candidates
from malta_sim.play import new_game
from malta_sim.iod.invasion import enemy_zoc
from malta_sim.iod.state import AXIS


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
    for key in ("occupancy", "supply_out", "modifiers", "command_leader", "stacking"):
        assert seen[key] > 0, (key, dict(seen))
    if scenario == "hercules":
        assert seen["marker"] > 0 and seen["barred_any"] + seen["penetration_leader"] > 0, dict(seen)
