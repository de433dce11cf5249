"""Speed-ups of the invasion engine and the scenario set-up leave every game as it was.

Each test compares the fast path with the plain one on the same inputs: the
set-up copied from the per-process template and replayed from the set-up memo
against a set-up done from scratch (rule 22, 3.0, 16.31, 19.3).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from malta_sim.games.island_of_death import setup as su
from malta_sim.games.island_of_death.engine import new_game


def _snapshot(game):
    rows = [dict(r) for r in game.events.rows] if game.events is not None else []
    memo = game.extra.get("inv")
    return {
        "state": [a.copy() for a in game.state],
        "extra_keys": sorted(map(repr, game.extra)),
        "plans": pickle.dumps(memo.plans) if memo is not None else b"",
        "zones": dict(memo.division_zone) if memo is not None else {},
        "info": {k: v for k, v in vars(game.scenario).items() if k != "data"},
        "rows": rows,
        "streams": sorted(game.streams._gens),
        "setup_draw": int(game.streams["setup"].integers(1 << 30)),
    }


def _assert_same(a, b):
    for x, y in zip(a["state"], b["state"]):
        np.testing.assert_array_equal(x, y)
    for k in ("extra_keys", "plans", "zones", "info", "rows", "streams", "setup_draw"):
        assert a[k] == b[k], k


@pytest.mark.parametrize("scenario,axis,allied", [
    ("hercules", "balanced", "static"),
    ("intro", "balanced", "static"),
    ("hercules", "random", "random"),
    ("intro", "aggressive", "counterattack"),
])
def test_setup_replay_equals_fresh_setup(scenario, axis, allied):
    """A replayed set-up (template + memo) equals one done from scratch, game by game."""
    kw = dict(axis_policy=axis, allied_policy=allied, event_log=True)
    fast = []
    for g in range(6):
        fast.append(_snapshot(new_game(scenario, 11, g, **kw)))
    for g in range(6):
        su.clear_setup_memo()
        fresh = _snapshot(new_game(scenario, 11, g, **kw))
        _assert_same(fast[g], fresh)


def test_setup_memo_skips_games_that_roll_dice():
    """Random policies draw from their stream during the set-up: never replayed."""
    su._SETUP_MEMO.clear()
    new_game("hercules", 3, 0, axis_policy="random", allied_policy="random")
    assert all(v[2] is None for v in su._SETUP_MEMO.values())
    su._SETUP_MEMO.clear()
    new_game("hercules", 3, 0, axis_policy="balanced", allied_policy="static")
    assert any(v[2] is not None for v in su._SETUP_MEMO.values())


def test_replayed_game_has_its_own_arrays():
    """Games set up from the template and the memo share no array with each other."""
    a = new_game("hercules", 5, 0, axis_policy="balanced", allied_policy="static")
    b = new_game("hercules", 5, 1, axis_policy="balanced", allied_policy="static")
    for x, y in zip(a.state, b.state):
        assert not np.shares_memory(x, y)
        assert x.flags.writeable
    assert a.extra["inv"] is not b.extra["inv"]
    a.extra["inv"].plans.clear()
    assert b.extra["inv"].plans
