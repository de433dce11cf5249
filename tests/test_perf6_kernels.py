"""Sixth round: the compiled kernels' own work.

* ``move_choice.axis_walk_kernel`` searches each candidate's reach with
  ``movement.reach_sparse`` (buffers kept across the walk, put back hex by
  hex, the destinations read off the hexes reached), counts the enemy hexes
  next to a destination among ``move_choice.near_table`` rows, keeps the
  objectives left as a list, and passes the allowance scalars; the
  allowance (``_allowance``) takes the piece's entries, so the garrison
  kernel's answers are those of before too.
* ``forecast``'s per-group helpers (9.92 shifts, support, the CRT value) are
  written so numba's reference-count pruning drops the counts of their
  array arguments (one way out, a last read of each array, array-passing
  callees inlined): ``best_attack``, ``plan_targets`` and
  ``score_targets`` give the answers of before.

That the rewritten kernels decide as the plain bots do on every call of
whole games is shown where the compiled paths were introduced
(``tests/test_perf3_move.py``: the Axis walk and the garrison move against
the plain loops; ``tests/test_perf3_fc.py``: the forecasts, plans and attack
picks against the plain bot); that every seeded game plays as before, by
``benchmarks/same_results.py``.  Here: the new search and table pieces on
random positions, and that the replay check of
``benchmarks/kernel_replay.py`` (used to compare a rewrite with the recorded
answers of the code before it) sees a changed answer.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import kernel_replay as KR  # noqa: E402
from malta_sim.iod.rules import movement as mv  # noqa: E402
from malta_sim.bots import forecast as fc  # noqa: E402
from malta_sim.bots import move_choice as mc  # noqa: E402

@pytest.fixture(scope="module", params=["hercules", "intro"])
def recorded(request):
    """The calls of the walk and the attack pick in whole seeded games of one
    scenario (default bots), with their answers."""
    return KR.capture(("axis_walk_kernel", "best_attack"), (request.param,), n_games=4, seed=77,
                      warm_games=1)


def test_replay_check_can_fail(recorded):
    """The comparison passes the kernels themselves and sees a difference: a
    kernel that moves one walk's destination one hex, or scores one attack
    otherwise, is caught."""
    def shifted(*a):
        out = mc.axis_walk_kernel(*a)
        steps = out[0].copy()
        if steps[0, 1] == mc.MOVE:
            steps[0, 2] += 1
        return (steps,) + tuple(out[1:])

    walk = recorded["calls"]["axis_walk_kernel"]
    picks = recorded["calls"]["best_attack"]
    assert len(walk) >= 5 and len(picks) >= 5
    assert KR.check_calls(mc.axis_walk_kernel, walk, recorded["arrays"], "axis_walk_kernel") == []
    assert KR.check_calls(fc.best_attack, picks, recorded["arrays"], "best_attack") == []
    assert KR.check_calls(shifted, walk, recorded["arrays"], "axis_walk_kernel")

    def other_status(*a):
        best, size = fc.best_attack(*a)
        return best + 1, size

    assert KR.check_calls(other_status, picks, recorded["arrays"], "best_attack")


def _random_map(rng, n_side=9):
    """A hex-grid patch: neighbours (int32[n, 6]), distances (int16[n, n])
    and random masks, costs and ocean sides."""
    n = n_side * n_side
    q = np.arange(n) % n_side
    r = np.arange(n) // n_side
    dirs = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
    nbr = np.full((n, 6), -1, np.int32)
    for h in range(n):
        for d, (dq, dr) in enumerate(dirs):
            qq, rr = q[h] + dq, r[h] + dr
            if 0 <= qq < n_side and 0 <= rr < n_side:
                nbr[h, d] = rr * n_side + qq
    dq = q[:, None] - q[None, :]
    dr = r[:, None] - r[None, :]
    dist = ((np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2).astype(np.int16)
    edge = rng.integers(1, 7, size=(4, n, 6)).astype(np.int32)
    edge[rng.random((4, n, 6)) < 0.05] = 198
    return (nbr, dist, edge, rng.random(n) < 0.15, rng.random(n) < 0.05, rng.random(n) < 0.05,
            rng.random(n) > 0.05, rng.random((n, 6)) < 0.05)


def test_reach_sparse_matches_reach_core_on_random_maps():
    """``movement.reach_sparse`` finds the costs and predecessors of
    ``movement.reach_core`` (rules 5.2, 6.1, 6.53) on random patches and
    allowances, lists each hex reached once, and leaves its buffers as it
    found them after ``reach_sparse_reset``."""
    rng = np.random.default_rng(6)
    for _ in range(40):
        nbr, _dist, edge, zoc, blocked, stop, allowed, ocean = _random_map(rng)
        n = nbr.shape[0]
        cost, pred, done, pool_h, pool_n, seen = mv.reach_sparse_buffers(n)
        assert (cost == 1 << 28).all() and (pred == -1).all() and not done.any()
        assert pool_h.shape == pool_n.shape == (6 * n + 1,) and seen.shape == (n,)
        for _ in range(5):
            start = int(rng.integers(n))
            ma = int(rng.integers(0, 12))
            cls = int(rng.integers(-1, 3))
            head = np.empty(2 * ma + 2, np.int64)
            tail = np.empty(2 * ma + 2, np.int64)
            c0, p0 = mv.reach_core(start, 2 * ma, cls, edge[cls + 1], zoc, blocked, stop, allowed,
                                   ocean, nbr, mv.ZOC_ENTER, mv.ZOC_EXIT)
            t = mv.reach_sparse(start, 2 * ma, cls, edge, zoc, blocked, stop, allowed, ocean, nbr,
                                mv.ZOC_ENTER, mv.ZOC_EXIT, cost, pred, done, pool_h, pool_n, seen,
                                head, tail)
            assert np.array_equal(cost, c0) and np.array_equal(pred, p0)
            assert seen[0] == start
            assert sorted(seen[:t].tolist()) == np.flatnonzero(c0 < (1 << 28)).tolist()
            mv.reach_sparse_reset(seen, t, cost, pred, done)
            assert (cost == 1 << 28).all() and (pred == -1).all() and not done.any()


def test_near_table_lists_the_hexes_within_one():
    """``move_choice.near_table``: each row holds exactly the hexes at
    distance 0 or 1, ascending, padded with -1 (a hex grid: seven at most),
    on the game map and on a random patch."""
    from malta_sim.play import new_game

    game = new_game("hercules", 0, 0)
    maps = [game.static.grid.distance_table, _random_map(np.random.default_rng(1))[1]]
    for dist in maps:
        ring = mc.near_table(dist)
        assert ring.shape[1] == 7 and not ring.flags.writeable
        for h in range(dist.shape[0]):
            row = ring[h][ring[h] >= 0].tolist()
            assert row == np.flatnonzero(dist[h] <= 1).tolist()
            assert (ring[h][len(row):] == -1).all()


def test_best_step_near_matches_best_step_on_random_positions():
    """``move_choice._best_step_near`` (enemy hexes as a mask, counted among
    the ``near_table`` rows) picks what ``axis._best_step`` picks from the
    list of enemy hexes (rules 6.1-6.6, 8.2, 9.92), ties included."""
    from malta_sim.bots.axis import _best_step

    rng = np.random.default_rng(3)
    _nbr, dist, *_ = _random_map(rng, 11)
    n = dist.shape[0]
    ring = mc.near_table(dist)
    for _ in range(300):
        k = int(rng.integers(1, 30))
        hs = np.sort(rng.choice(n, size=k, replace=False)).astype(np.int64)
        cost = rng.integers(1, 6, size=k) / 2.0
        goal = int(rng.integers(n))
        d_here = int(rng.integers(1, 8))
        anchor = int(rng.integers(-1, n))
        radius = float(rng.integers(1, 9))
        ehex = np.sort(rng.choice(n, size=int(rng.integers(0, 25)), replace=False)).astype(np.int64)
        enemy_at = np.zeros(n, np.bool_)
        enemy_at[ehex] = True
        envelop = float(rng.choice([0.0, 0.5, 1.0]))
        want = _best_step(dist, hs, cost, goal, d_here, anchor, radius, ehex, envelop)
        got = mc._best_step_near(dist, ring, np.concatenate([hs, np.zeros(5, np.int64)]),
                                 np.concatenate([cost, np.zeros(5)]), k, goal, d_here, anchor,
                                 radius, enemy_at, envelop)
        assert got == want

