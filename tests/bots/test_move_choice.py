"""The Axis preset's compiled move choice (:mod:`malta_sim.bots.move_choice`) against plain
loops: the goal and destination of a unit, the destination search, the hexes near each
hex, on random positions; and the walk that decides several moves ahead, on every call of
whole games (a preset with checking methods against :func:`tests.oracles.bots.next_move`).
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

from malta_sim.bots import axis as AX, make_policy, move_choice, move_choice as mc
from malta_sim.iod import sequence, static as st
from malta_sim.iod.engine import setup_game
from malta_sim.iod.rules import movement
from malta_sim.iod.setup import setup_scenario
from malta_sim.iod.static import load_static
from malta_sim.iod.state import ALLIED

from tests.conftest import perturb_walk_inputs, random_hex_patch
from tests.oracles import bots as bots_ref


def _best_step_reference(dist, legal, goal, d_here, anchor, radius, ehex, envelop):
    """The destination rule of AxisBot.next_move as a plain loop over the
    legal destinations (the form it had before it was compiled)."""
    best, best_key = -1, None
    for h, cost in legal.items():
        dh = int(dist[h, goal])
        if dh >= d_here:
            continue
        if anchor >= 0 and dist[h, anchor] > radius:
            continue
        bonus = 0.0
        if len(ehex) and envelop > 0:
            adj = ehex[dist[h, ehex] == 1]
            if len(adj):
                bonus = envelop * len(adj)
        key = (dh - bonus, cost, h)
        if best_key is None or key < best_key:
            best, best_key = h, key
    return best


def test_compiled_move_choice_equals_reference():
    """Rules 6.1-6.6, 8.2, 9.92: the compiled goal and destination choice of
    the Axis bot equal the plain loops on random positions (ties included:
    MP costs and envelopment bonuses drawn from few values)."""
    from malta_sim.iod.static import load_static

    dist = load_static().grid.distance_table
    n = dist.shape[0]
    rng = np.random.default_rng(5)
    stepped = 0
    for _ in range(400):
        here = int(rng.integers(n))
        obj = np.where(rng.random(n) < 0.05, rng.integers(1, 4, n) * 1.5, 0.0)
        gh = np.flatnonzero(obj > 0)
        if not len(gh):
            continue
        decay = float(rng.choice([0.0, 0.25, 0.5, 1.0]))
        score = obj[gh] - decay * dist[here, gh]
        goal = int(gh[int(np.argmax(score))])
        assert AX._goal_hex(obj, gh, len(gh), dist, here, decay) == goal
        hs = rng.choice(n, size=int(rng.integers(1, 40)), replace=False)
        legal = {int(h): float(rng.integers(1, 5)) / 2 for h in sorted(hs)}
        ehex = np.unique(rng.integers(0, n, int(rng.integers(0, 12)))).astype(np.int64)
        envelop = float(rng.choice([0.0, 0.5, 1.0])) if len(ehex) else 0.0
        anchor = int(rng.integers(-1, n))
        radius = float(rng.integers(1, 12))
        d_here = int(dist[here, goal])
        want = _best_step_reference(dist, legal, goal, d_here, anchor, radius, ehex, envelop)
        got = AX._best_step(dist, np.fromiter(legal, np.int64, len(legal)),
                            np.fromiter(legal.values(), np.float64, len(legal)), goal, d_here,
                            anchor, radius, ehex, envelop)
        assert got == want
        stepped += got >= 0
    assert 50 < stepped < 390


def test_destinations_equal_legal_kernel():
    """The walks' destination search (the sparse search in the working space
    of ``search_buffers``) equals ``movement.legal_kernel`` (same hexes
    ascending, same MP, same predecessors) on random ZOC, blocking and stop
    masks, random stacks and random units, tactical and strategic, and puts
    its working space back.  Deterministic (fixed seed)."""
    from malta_sim.iod.static import load_static

    t = load_static(None)
    rng = np.random.default_rng(11)
    edge, base, rem = movement._static_args(t)
    n, nu = t.n_hexes, t.n_units
    land = np.flatnonzero(t.land)
    weight = base.astype(np.int16)
    remnant_full = np.where(base == 2, rem, -1).astype(np.int8)
    movers = np.flatnonzero((t.utype != AX.st.LEADER) & (t.utype != AX.st.ARTILLERY))
    reached = 0
    for trial in range(300):
        zoc = rng.random(n) < 0.15
        blocked = rng.random(n) < 0.1
        stop = (rng.random(n) < 0.05) & ~blocked
        strat_ok = rng.random(n) < 0.8
        strategic = bool(trial % 2)
        units = np.sort(rng.choice(nu, 40, replace=False)).astype(np.int64)
        box = np.zeros(nu, np.int8)
        hexes = rng.choice(land, nu).astype(np.int32)
        level = rng.integers(0, 2, nu).astype(np.int8)
        u = int(rng.choice(movers))
        here = int(hexes[u])
        ma = int(rng.integers(1, 12))
        cls = int(t.move_class[u])
        w = int(weight[u]) - int(level[u] == remnant_full[u])
        want = movement.legal_kernel(here, 2 * ma, cls, strategic, edge[int(strategic), cls + 1],
                                     t.ocean_side, t.neighbours, zoc, blocked, stop, t.land, strat_ok,
                                     movement.ZOC_ENTER, movement.ZOC_EXIT, units, box, hexes, level,
                                     base, rem, movement.STACK_ROOM - w, 0)
        room = movement.stack_room_kernel(units, box, hexes, level, base, rem, n, movement.STACK_ROOM)
        allowed = t.land & strat_ok if strategic else t.land
        bufs = move_choice.search_buffers(n, t.ma, np.zeros(nu, np.int8))
        cost, pred, done, pool_h, pool_n, seen, head, tail, dest, mp = bufs
        tr, k = move_choice._destinations_sparse(
            u, here, ma, t.move_class, np.ascontiguousarray(edge[int(strategic)]), zoc, blocked, stop,
            allowed, t.ocean_side, t.neighbours, room, base, rem, level, cost, pred, done, pool_h, pool_n,
            seen, head, tail, dest, mp)
        np.testing.assert_array_equal(dest[:k], want[0])
        assert mp[:k].tolist() == want[1].tolist()
        np.testing.assert_array_equal(pred, want[2])
        movement.reach_sparse_reset(seen, tr, cost, pred, done)          # the buffers as on entry again
        assert (cost == 1 << 28).all() and (pred == -1).all() and not done.any()
        reached += k > 0
    assert reached > 100


def test_near_table_lists_the_hexes_within_one():
    """``move_choice.near_table``: each row holds exactly the hexes at
    distance 0 or 1, ascending, padded with -1 (a hex grid: seven at most),
    on the game map and on a random patch."""
    from malta_sim.play import new_game

    game = new_game("hercules", 0, 0)
    maps = [game.static.grid.distance_table, random_hex_patch(np.random.default_rng(1))[1]]
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
    _nbr, dist, *_ = random_hex_patch(rng, 11)
    n = dist.shape[0]
    ring = mc.near_table(dist)
    stepped = 0
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
        stepped += got >= 0
    assert 50 < stepped < 300


# ------------------------------------------------------------------ the walk through whole games
class _CheckedWalk:
    """The Axis preset with every ``next_move`` answer compared with the
    plain loop (:func:`tests.oracles.bots.next_move`, one
    :meth:`Game.legal_moves` query per candidate) asked first from the same
    bot state: the same move and the same units tried.  Counts in ``seen``:
    calls, moves, HQ moves, artillery preparing, moves of units whose
    allowance needs more than 64 bucket entries (``long``), decisions handed
    out from a walk the compiled kernel made ahead (``walk``), hitched
    artillery the walk stopped at (``stops``) and passed over (``passed``).
    ``perturb(game, candidates, rng)``, when set, changes the game before
    each call."""

    seen: Counter = Counter()
    perturb = None
    rng = np.random.default_rng(3)

    def next_move(self, game, mode, candidates):
        if self.perturb is not None:
            type(self).perturb(game, candidates, self.rng)
        self._phase_reset(game, mode)
        before = set(self._skip)
        want = bots_ref.next_move(self, game, mode, list(candidates))
        tried = self._skip
        self._skip = set(before)
        walk = getattr(self, "_walk", None)
        rows, r = (walk.rows, getattr(walk, "r", None)) if walk is not None else (None, None)
        self._stops = []
        got = super().next_move(game, mode, candidates)
        assert got == want
        assert self._skip == tried
        seen, s, t = self.seen, game.state, game.static
        seen["calls"] += 1
        if rows is not None and self._walk.rows is rows and self._walk.r == r + 1:
            seen["walk"] += 1
        if got is not None:
            seen["moves"] += 1
            x = int(got.unit)
            if got.prepare:
                seen["prepare"] += 1
            else:
                seen["hq"] += int(t.utype[x] == st.HQ)
                seen["long"] += int(2 * movement.effective_ma(game, x) + 2 > 64)
        # hitched artillery the walk passed over (it may not prepare there, 5.4)
        zoc = movement.zoc_map(game, ALLIED)
        for x in sorted(self._skip - before):
            if (t.utype[x] == st.ARTILLERY and s.hitched[x] and not s.moved[x]
                    and s.entered_turn[x] != game.turn and x not in self._stops
                    and (got is None or got.unit != x)):
                assert zoc[s.hex[x]], (x, "passed over outside the enemy ZOC")
                seen["passed"] += 1
        return got

    def _special_move(self, game, mode, u, ehex):
        if ehex is None and game.static.utype[u] == st.ARTILLERY and game.state.hitched[u]:
            # the walk stopped here: artillery that may prepare (6.6), never in an enemy ZOC (5.4)
            s = game.state
            assert not movement.zoc_map(game, ALLIED)[s.hex[u]] and s.entered_turn[u] != game.turn
            self._stops.append(u)
            self.seen["stops"] += 1
        return super()._special_move(game, mode, u, ehex)


def _play_checked(scenario, axis, allied, seed, n, perturb=None, static=None):
    seen = _CheckedWalk.seen = Counter()
    _CheckedWalk.perturb = perturb
    _CheckedWalk.rng = np.random.default_rng(3)
    try:
        for g in range(n):
            pols = (bots_ref.preset_with(axis, 0, _CheckedWalk), make_policy(allied, 1))
            if static is None:
                game = setup_game(scenario, seed, g, pols)
            else:
                game = setup_scenario(static, scenario, seed, g, pols)
            sequence.play_game(game)
    finally:
        _CheckedWalk.perturb = None
    return seen


@pytest.mark.parametrize("scen,ax,al,n,hq,seed", [("hercules", "balanced", "static", 4, False, 9),
                                             # the HQs land behind their units on held beaches
                                             # and stay within four hexes of them in these games:
                                             # the intro games cover HQ moves
                                             ("hercules", "aggressive", "counterattack", 3, False, 10),
                                             ("intro", "balanced", "static", 3, True, 9),
                                             ("intro", "cautious", "counterattack", 2, True, 9),
                                             ("intro", "solitaire", "counterattack", 2, True, 9)])
def test_walk_equals_plain_through_games(scen, ax, al, n, hq, seed):
    """Rules 6.1-6.6: the same move and the same units tried on every
    ``next_move`` call of whole games (night turns, HQ moves and artillery
    preparing included), many decisions handed out from a walk; the walk
    stops at hitched artillery only where it may prepare, and passes over
    the hitched artillery standing in an enemy ZOC."""
    seen = _play_checked(scen, ax, al, seed, n)
    assert seen["moves"] > 20 and seen["walk"] > seen["moves"] // 2, dict(seen)
    assert seen["stops"] > 0 and seen["prepare"] > 0, dict(seen)
    assert seen["hq"] > 0 or not hq, dict(seen)                # HQs follow their units (16.8)
    if scen == "hercules" and ax == "balanced":    # artillery now lands behind held beaches:
        assert seen["passed"] > 0, dict(seen)      # the balanced games show the pass-over


def _perturb(game, candidates, rng):
    """Change, at random, something the walk reads and executing a move never
    changes: a candidate's supply, morale or entry turn, a hex's control."""
    perturb_walk_inputs(game, candidates, rng)


@pytest.mark.parametrize("scen,n", [("hercules", 3), ("intro", 2)])
def test_walk_dropped_when_the_game_changed(scen, n):
    """A walk whose assumed position no longer holds (supply, morale, entry
    turn or control changed between calls by a bot that does so on purpose)
    is not used: every answer still equals the plain loop's on the changed
    position."""
    seen = _play_checked(scen, "balanced", "static", 4, n, perturb=_perturb)
    assert seen["moves"] > 10, dict(seen)


def test_walk_equals_plain_with_allowances_beyond_first_buffers():
    """Rules 6.1-6.3: with every printed MA multiplied by six (up to 120 MP,
    more than the data files allow), the walk's bucket lists are sized for
    allowances beyond 31 MP (``2 * ma + 2`` above 64 entries); every
    ``next_move`` call of whole games still answers as the plain loop."""
    t = load_static()
    ma = np.minimum(t.ma.astype(np.int64) * 6, 120).astype(t.ma.dtype)
    ma.flags.writeable = False
    big = dataclasses.replace(t, ma=ma)
    seen = _play_checked("hercules", "balanced", "static", 5, 2, static=big)
    assert int(big.ma.max()) > 31
    assert seen["moves"] > 10 and seen["long"] > 0, dict(seen)
