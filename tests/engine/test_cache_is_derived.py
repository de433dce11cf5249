"""``Game.cache`` holds derived answers only.

Everything a game keeps in ``game.cache`` (move caches, index lists built from
the static data, the last answer of a query with the key it was computed from)
can be recomputed from the static data and the state; rule state lives in the
state registry (:mod:`malta_sim.iod.state`).  So emptying the cache at the end
of every phase must leave every game exactly as it was: same final state
arrays, same winner and end turn, same event log.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod import sequence
from malta_sim.play import new_game

CASES = [("hercules", "aggressive", "counterattack", 7, 1), ("hercules", "random", "random", 8, 0),
         ("intro", "balanced", "counterattack", 9, 0)]


def _play(scenario, axis, allied, seed, index, clear: bool):
    game = new_game(scenario, seed, index, axis_policy=axis, allied_policy=allied, event_log=True)
    cleared = []

    def empty(game, phase):
        cleared.append(len(game.cache))
        game.cache.clear()

    if clear:
        game.observers.append(empty)
    sequence.play_game(game)
    return game, cleared


@pytest.mark.parametrize("scenario,axis,allied,seed,index", CASES)
def test_clearing_the_cache_at_every_phase_end_changes_nothing(scenario, axis, allied, seed, index):
    kept, _ = _play(scenario, axis, allied, seed, index, clear=False)
    emptied, cleared = _play(scenario, axis, allied, seed, index, clear=True)
    # the cache was in use: something was thrown away at most phase ends
    assert len(cleared) >= 10 and sum(n > 0 for n in cleared) > len(cleared) // 2
    for name, a, b in zip(kept.state._fields, kept.state, emptied.state):
        assert np.array_equal(a, b), f"state field {name} differs after clearing game.cache"
    assert kept.events.rows == emptied.events.rows and len(kept.events.rows) > 100
