"""The Axis move walk hands out the decisions the plain move choice makes.

``move_choice.axis_walk_kernel`` makes the Axis bot's next several movement
decisions in one call, each on the position the earlier moves leave, and
``move_choice.AxisWalk`` hands them out one per ``AxisBot.next_move`` call
while the game stands where the walk assumed (rules 6.1-6.6).  The tests ask
the plain loop (``AxisBot._next_move_plain``) and the compiled path on every
call of whole games and demand the same move, the same units tried and the
engine's legal-move record of the mover; they also demand that decisions were
handed out from a walk, and that a walk is dropped when the game changed in a
way the walk did not assume (changes made on purpose between calls).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from malta_sim.iod.rules import movement
from malta_sim.play import play_games
from malta_sim.iod.state import DEMORALIZED
from malta_sim.bots import axis as AX
from malta_sim.bots import move_choice
from tests.oracles import bots as bots_ref


def _compare(monkeypatch, seen, perturb=None):
    """Patch ``AxisBot.next_move`` to ask the plain loop and the compiled
    path (from the same bot state) on every call and compare them;
    ``perturb(game, candidates, rng)`` may change the game before each call."""
    fast, plain = AX.AxisBot.next_move, bots_ref.next_move
    take = move_choice.AxisWalk.take
    rng = np.random.default_rng(3)

    def counted_take(self, *args):
        out = take(self, *args)
        seen["walk"] += out is not None
        return out

    def next_move(self, game, mode, candidates):
        if perturb is not None:
            perturb(game, candidates, rng)
        self._phase_reset(game, mode)
        before = set(self._skip)
        want = plain(self, game, mode, list(candidates))
        tried = self._skip
        self._skip = set(before)
        got = fast(self, game, mode, candidates)
        assert got == want
        assert self._skip == tried
        seen["calls"] += 1
        if got is not None and not got.prepare:
            seen["moves"] += 1
            u = int(got.unit)
            key, (hexes, spent), pred = game.extra["last_legal"]
            assert key == (u, mode, False, movement._version(game))
            legal = movement.legal_moves(game, u, mode)
            assert hexes == list(legal) and spent == list(legal.values())
            np.testing.assert_array_equal(pred, game.extra["last_pred"][3])
        return got

    monkeypatch.setattr(move_choice.AxisWalk, "take", counted_take)
    monkeypatch.setattr(AX.AxisBot, "next_move", next_move)


@pytest.mark.parametrize("scen,ax,al,n", [("hercules", "balanced", "static", 4),
                                          ("hercules", "aggressive", "counterattack", 3),
                                          ("intro", "balanced", "static", 3),
                                          ("intro", "cautious", "counterattack", 2)])
def test_walk_equals_plain_through_games(monkeypatch, scen, ax, al, n):
    """Same move, same units tried, same legal-move record on every call of
    whole games (night turns, HQ steps and artillery included), most
    decisions handed out from a walk."""
    seen = {"calls": 0, "moves": 0, "walk": 0}
    _compare(monkeypatch, seen)
    play_games(scen, 9, np.arange(n), axis_policy=ax, allied_policy=al)
    assert seen["moves"] > 20 and seen["walk"] > seen["moves"] // 4, seen


def _perturb(game, candidates, rng):
    """Change, at random, something the walk reads and executing a move never
    changes: a candidate's supply, morale or entry turn, a hex's control."""
    s = game.state
    k = rng.integers(0, 6)
    cands = [u for u in candidates if not s.moved[u]]
    if k == 0 and cands:
        s.out_of_supply[rng.choice(cands)] ^= True
    elif k == 1 and cands:
        s.morale_state[rng.choice(cands)] = DEMORALIZED
    elif k == 2 and cands:
        s.entered_turn[rng.choice(cands)] = game.turn
    elif k == 3:
        h = int(rng.choice(np.flatnonzero(game.static.land)))
        s.control[h] = 1 - s.control[h] if s.control[h] >= 0 else 1


@pytest.mark.parametrize("scen,n", [("hercules", 3), ("intro", 2)])
def test_walk_dropped_when_the_game_changed(monkeypatch, scen, n):
    """A walk whose assumed position no longer holds (supply, morale, entry
    turn or control changed between calls) is not used: every answer still
    equals the plain loop's on the changed position."""
    seen = {"calls": 0, "moves": 0, "walk": 0}
    _compare(monkeypatch, seen, _perturb)
    play_games(scen, 4, np.arange(n), axis_policy="balanced", allied_policy="static")
    assert seen["moves"] > 10, seen


def test_walk_rows_follow_the_moves():
    """Each later row of a walk is the decision a fresh one-move call makes
    on the position the earlier moves leave (mover in its destination and
    moved, its path's hexes Axis-controlled): replayed on the kernel's own
    assumed rows through games."""
    seen = {"rows": 0}
    kernel = move_choice.axis_walk_kernel
    ctl = list(inspect.signature(kernel.py_func).parameters).index("control")

    def check(*args):
        out = kernel(*args)
        steps, after_hex, after_moved, after_control = out[0], out[4], out[5], out[6]
        order = args[0]
        for r in range(1, len(steps)):
            first = int(steps[r - 1, 0]) + 1
            again = list(args)
            again[0] = order[first:]
            again[2], again[4], again[ctl] = after_hex[r - 1], after_moved[r - 1], after_control[r - 1]
            again[-1] = 1
            one = kernel(*again)
            want = steps[r].copy()
            want[0] -= first
            assert one[0][0].tolist() == want.tolist()
            if want[1] == move_choice.MOVE:
                k = int(want[3])
                assert one[1][0, :k].tolist() == out[1][r, :k].tolist()
                assert one[2][0, :k].tolist() == out[2][r, :k].tolist()
                np.testing.assert_array_equal(one[3][0], out[3][r])
            seen["rows"] += 1
        return out

    move_choice.axis_walk_kernel = check
    try:
        play_games("hercules", 2, np.arange(2), axis_policy="balanced", allied_policy="static")
    finally:
        move_choice.axis_walk_kernel = kernel
    assert seen["rows"] > 10, seen




class _OwnNextMove(AX.AxisBot):
    """Replaces ``next_move``: the plain loop's choice, counted."""

    calls = 0

    def next_move(self, game, mode, candidates):
        type(self).calls += 1
        self._phase_reset(game, mode)
        return self._next_move_plain(game, mode, candidates)


