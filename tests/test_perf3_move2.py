"""Movement execution through its short paths gives the plain code's games.

:func:`movement.execute_move` enters a unit's path in one loop
(:func:`movement._enter` over the path) instead of one call per hex, and :func:`movement._side_masks` reuses the enemy masks while the
enemy's position key stands.  The whole-game tests replay games with the
per-hex ``_enter`` calls and with masks rebuilt from the memos on every call,
and demand the same result rows, per-turn frames and event logs; a per-call
test checks that the kept masks equal freshly built ones on every call.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from malta_sim.iod.rules import movement
from malta_sim.play import play_games
from tests.oracles import iod_rules as oracle


_ENTER = movement._enter


def _enter_path_plain(game, side, real, path, how, enemy_hexes, mover=None):
    """:func:`movement._enter` called once per hex of a path (the per-hex
    entries its loop replaces)."""
    last = len(path) - 1
    for i, h in enumerate(path):
        _ENTER(game, side, real, (h,), how if i == last else "move", enemy_hexes, mover)


def _play(scen, ax, al, n, opts=()):
    r = play_games(scen, 3, np.arange(n), axis_policy=ax, allied_policy=al, options=opts,
                   per_turn=True, event_log=True)
    return r


@pytest.mark.parametrize("scen,ax,al,n,opts", [("hercules", "balanced", "static", 3, ()),
                                               ("hercules", "random", "random", 2, ("delayed_landings",)),
                                               ("intro", "aggressive", "counterattack", 2, ())])
def test_enter_path_same_games(monkeypatch, scen, ax, al, n, opts):
    fast = _play(scen, ax, al, n, opts)
    monkeypatch.setattr(movement, "_enter", _enter_path_plain)
    plain = _play(scen, ax, al, n, opts)
    pd.testing.assert_frame_equal(fast.games, plain.games)
    pd.testing.assert_frame_equal(fast.per_turn, plain.per_turn)
    pd.testing.assert_frame_equal(fast.events, plain.events)


def test_side_masks_equal_fresh(monkeypatch):
    orig = movement._side_masks
    seen = {"calls": 0}

    def side_masks(game, side):
        got = orig(game, side)
        pk = movement._position_key(game, 1 - side)
        zoc = movement._zoc_memo(game, 1 - side, pk)
        block, trivial = movement._occupancy_memo(game, 1 - side, pk)
        for a, b in zip(got, (zoc, block, trivial)):
            np.testing.assert_array_equal(a, b)
        seen["calls"] += 1
        return got

    monkeypatch.setattr(movement, "_side_masks", side_masks)
    play_games("hercules", 4, np.arange(2), axis_policy="balanced", allied_policy="counterattack")
    assert seen["calls"] > 100


@pytest.mark.parametrize("scen,ax,al,n", [("hercules", "balanced", "static", 2),
                                          ("hercules", "random", "random", 2),
                                          ("intro", "aggressive", "counterattack", 2)])
def test_occupancy_kernel_equals_plain(monkeypatch, scen, ax, al, n):
    """The compiled blocking/trivial hexes (6.52) equal the numpy steps on
    every query of whole games."""
    orig = movement._occupancy_memo
    seen = {"calls": 0}

    def occ_memo(game, side, key):
        got = orig(game, side, key)
        ref = oracle.occupancy(game, side)
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])
        assert got[0].dtype == ref[0].dtype and got[1].dtype == ref[1].dtype
        seen["calls"] += 1
        return got

    monkeypatch.setattr(movement, "_occupancy_memo", occ_memo)
    play_games(scen, 6, np.arange(n), axis_policy=ax, allied_policy=al)
    assert seen["calls"] > 20


def test_occupancy_kernel_random():
    """The kernel against the numpy steps of ``_occupancy_plain`` on random
    pieces (warships, leaders, coastal guns, zero defense, shared hexes)."""
    from malta_sim.iod import static as st
    rng = np.random.default_rng(5)
    types = np.array([st.WARSHIP, st.LEADER, st.COASTAL_GUN, st.INFANTRY,
                      st.ARTILLERY, st.HQ], np.int8)
    for _ in range(300):
        n_units, n_hexes = int(rng.integers(1, 60)), int(rng.integers(1, 40))
        utype = types[rng.integers(0, len(types), n_units)]
        defense = rng.integers(0, 3, (n_units, 3))
        level = rng.integers(0, 3, n_units).astype(np.int8)
        hexes = rng.integers(0, n_hexes, n_units).astype(np.int32)
        units = np.sort(rng.choice(n_units, int(rng.integers(0, n_units + 1)), replace=False)).astype(np.int64)
        block, trivial = movement.occupancy_kernel(units, hexes, level, utype, defense, n_hexes,
                                                   movement._OCC_CODES)
        u = units[utype[units] != st.WARSHIP]
        rb, anyp = np.zeros(n_hexes, bool), np.zeros(n_hexes, bool)
        anyp[hexes[u]] = True
        b = (utype[u] != st.LEADER) & (utype[u] != st.COASTAL_GUN) & (defense[u, level[u]] > 0)
        rb[hexes[u][b]] = True
        np.testing.assert_array_equal(block, rb)
        np.testing.assert_array_equal(trivial, anyp & ~rb)
