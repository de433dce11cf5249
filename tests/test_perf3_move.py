"""The compiled move choices give the answers of the plain code they replace.

``AxisBot.next_move`` walks its candidates in one compiled call
(:mod:`malta_sim.bots.move_choice`); ``AxisBot._next_move_plain`` is the
plain loop with one ``legal_moves`` call per candidate.  The whole-game test
asks both on every call (from the same bot state) and demands the same move,
the same set of units tried, and, for a move the kernel chose, the engine's
record of that unit's legal moves as ``movement.legal_moves`` writes it.
The random test compares the kernel's destination search with
``movement.legal_kernel`` on random positions.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod.rules import movement
from malta_sim.play import play_games
from malta_sim.bots import axis as AX
from malta_sim.bots import move_choice
from tests.oracles import iod_rules as oracle
from tests.oracles import bots as bots_ref


def check_next_move_against_plain(monkeypatch) -> dict:
    """Make ``AxisBot.next_move`` ask both the compiled choice and the plain
    loop on every call (from the same bot state) and demand the same move,
    the same units tried and, for a move the kernel chose, the engine's
    record of the mover's legal moves as ``movement.legal_moves`` writes it.
    Returns the counts of what was compared (``calls``, ``moves``, ``hq``,
    ``prepare``; ``long``: moves of units whose allowance needs more than 64
    bucket entries, ``2 * ma + 2 > 64``)."""
    fast, plain = AX.AxisBot.next_move, bots_ref.next_move
    seen = {"calls": 0, "moves": 0, "hq": 0, "prepare": 0, "long": 0}

    def next_move(self, game, mode, candidates):
        self._phase_reset(game, mode)
        before = set(self._skip)
        want = plain(self, game, mode, list(candidates))
        tried = self._skip
        self._skip = set(before)
        got = fast(self, game, mode, candidates)
        assert got == want
        assert self._skip == tried
        seen["calls"] += 1
        if got is not None:
            seen["moves"] += 1
            u = int(got.unit)
            if got.prepare:
                seen["prepare"] += 1
            else:
                seen["hq"] += int(game.static.utype[u] == AX.st.HQ)
                seen["long"] += int(2 * movement.effective_ma(game, u) + 2 > 64)
                key, (hexes, spent), pred = game.extra["last_legal"]
                assert key == (u, mode, False, movement._version(game))
                legal = movement.legal_moves(game, u, mode)
                assert hexes == list(legal) and spent == list(legal.values())
                np.testing.assert_array_equal(pred, game.extra["last_pred"][3])
        return got

    monkeypatch.setattr(AX.AxisBot, "next_move", next_move)
    return seen


@pytest.mark.parametrize("scen,ax,al,n", [("hercules", "balanced", "static", 4),
                                          ("hercules", "aggressive", "counterattack", 3),
                                          ("intro", "cautious", "static", 2),
                                          ("intro", "solitaire", "counterattack", 2)])
def test_axis_next_move_equals_plain(monkeypatch, scen, ax, al, n):
    """Same move, same units tried and the same legal-move record on every
    ``next_move`` call of whole games (moves, HQ steps and artillery
    preparing all seen)."""
    seen = check_next_move_against_plain(monkeypatch)
    play_games(scen, 5, np.arange(n), axis_policy=ax, allied_policy=al)
    assert seen["calls"] > 20 and seen["moves"] > 10, seen
    if scen == "hercules":
        assert seen["hq"] > 0 and seen["prepare"] > 0, seen


def test_axis_next_move_equals_plain_with_allowances_beyond_first_buffers(monkeypatch):
    """Rules 6.1-6.3: with every printed MA multiplied by six (up to 120 MP,
    more than the printed data allow), the walk's bucket lists are sized
    for allowances beyond 31 MP (``2 * ma + 2`` above 64 entries); every
    ``next_move`` call of whole games still answers as the plain loop."""
    import dataclasses

    from malta_sim.iod import engine

    orig = engine._static_cached
    kept = []

    def big_ma(data_dir):
        t = orig(data_dir)
        ma = np.minimum(t.ma.astype(np.int64) * 6, 120).astype(t.ma.dtype)
        ma.flags.writeable = False
        big = dataclasses.replace(t, ma=ma)
        kept.append(big)                     # a new static per game: the per-static caches see it
        return big

    monkeypatch.setattr(engine, "_static_cached", big_ma)
    seen = check_next_move_against_plain(monkeypatch)
    play_games("hercules", 5, np.arange(2), axis_policy="balanced", allied_policy="static")
    assert kept and int(kept[0].ma.max()) > 31
    assert seen["moves"] > 10 and seen["long"] > 0, seen


def test_destinations_equal_legal_kernel():
    """The kernel's destination search equals ``movement.legal_kernel`` (same
    hexes ascending, same MP, same predecessors) on random ZOC, blocking and
    stop masks, random stacks and random units, tactical and strategic.
    Deterministic (fixed seed)."""
    from malta_sim.iod.setup import load_static

    t = load_static(None)
    rng = np.random.default_rng(11)
    edge, base, rem = movement._static_args(t)
    n, nu = t.n_hexes, t.n_units
    land = np.flatnonzero(t.land)
    weight = base.astype(np.int16)
    remnant_full = np.where(base == 2, rem, -1).astype(np.int8)
    movers = np.flatnonzero((t.utype != AX.st.LEADER) & (t.utype != AX.st.ARTILLERY))
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
        dest, mp, pred, k = move_choice._destinations(
            u, here, ma, t.move_class, np.ascontiguousarray(edge[int(strategic)]), zoc, blocked, stop,
            allowed, t.ocean_side, t.neighbours, room, base, rem, level)
        np.testing.assert_array_equal(dest[:k], want[0])
        assert mp[:k].tolist() == want[1].tolist()
        np.testing.assert_array_equal(pred, want[2])


@pytest.mark.parametrize("scen,al,n", [("hercules", "static", 4), ("hercules", "counterattack", 3),
                                       ("intro", "static", 2)])
def test_allied_garrison_move_equals_plain(monkeypatch, scen, al, n):
    """The compiled garrison walk gives the plain loop's move and tries the
    same units on every call of whole games (turns 0 and 1 of Operation
    Hercules, under rule 17.7, included)."""
    from malta_sim.bots import allied as AL

    fast, plain = AL.AlliedBot._garrison_move, bots_ref.garrison_move
    seen = {"calls": 0, "moves": 0}

    def garrison_move(self, game, mode, cands):
        before = set(self._skip)
        want = plain(self, game, mode, list(cands))
        tried = self._skip
        self._skip = set(before)
        got = fast(self, game, mode, cands)
        assert got == want
        assert self._skip == tried
        seen["calls"] += 1
        if got is not None:
            seen["moves"] += 1
            u = int(got.unit)
            key, (hexes, spent), pred = game.extra["last_legal"]
            assert key == (u, mode, False, movement._version(game))
            legal = movement.legal_moves(game, u, mode)
            assert hexes == list(legal) and spent == list(legal.values())
            np.testing.assert_array_equal(pred, game.extra["last_pred"][3])
        return got

    monkeypatch.setattr(AL.AlliedBot, "_garrison_move", garrison_move)
    play_games(scen, 5, np.arange(n), axis_policy="balanced", allied_policy=al)
    assert seen["calls"] > 10 and seen["moves"] > 2, seen


@pytest.mark.parametrize("scen,ax,al,n", [("hercules", "balanced", "static", 4),
                                          ("hercules", "random", "random", 3),
                                          ("intro", "aggressive", "counterattack", 2)])
def test_supply_kernel_equals_plain(monkeypatch, scen, ax, al, n):
    """``compute_supply`` (one compiled call) equals ``compute_supply_plain``
    for both sides on every call of whole games, units in and out of supply
    both seen (rules 8.11, 8.12, 8.51-8.53, 19.12)."""
    from malta_sim.iod.rules import supply

    fast = supply.compute_supply
    seen = {"calls": 0, "out": 0, "in": 0}

    def compute_supply(game, side):
        got = fast(game, side)
        for sd in (0, 1):
            want = oracle.compute_supply(game, sd)
            other = got if sd == side else fast(game, sd)
            np.testing.assert_array_equal(other, want)
        units = game.on_map(side)
        seen["calls"] += 1
        seen["out"] += int((~got[units]).sum())
        seen["in"] += int(got[units].sum())
        return got

    monkeypatch.setattr(supply, "compute_supply", compute_supply)
    play_games(scen, 9, np.arange(n), axis_policy=ax, allied_policy=al)
    assert seen["calls"] > 5 and seen["out"] > 0 and seen["in"] > 0, seen


def _ref_one_hex_move(game, unit, options):
    """The plain one-hex choice (18.7, 19.6): a score per hex, one Allied
    total at a time."""
    from malta_sim.bots import invasion as inv

    if not options:
        return None
    here = int(game.state.hex[unit])

    def score(h):
        return (inv._objective_weight(game, h) - 0.3 * inv._allied_strength_near(game, h, 1)
                + (0.5 if not game.static.beach[h] else 0))
    best = max(options, key=lambda h: (score(h), -h))
    return best if score(best) > score(here) else None


def _ref_move_drop_marker(game, formation, options):
    """The plain drop zone marker move (19.13)."""
    from malta_sim.bots import invasion as inv

    here = int(game.state.dz_hex[0, formation])
    if here < 0 or not options or inv._allied_strength_near(game, here, 1) == 0:
        return None
    return max(options, key=lambda h: (-inv._allied_strength_near(game, h, 2), -h))


@pytest.mark.parametrize("ax,al,n", [("balanced", "static", 5), ("aggressive", "counterattack", 4)])
def test_one_hex_and_marker_moves_equal_plain(monkeypatch, ax, al, n):
    """The batched beach / rally moves (18.7, 19.6) and drop zone marker
    moves (19.13) give the plain choices on every call of whole Hercules games."""
    from malta_sim.bots.invasion import InvasionDecisions as D

    fast_one, fast_marker = D.one_hex_move, D.move_drop_marker
    seen = {"one": 0, "one_moved": 0, "marker": 0}

    def one_hex_move(self, game, unit, options, reason):
        want = _ref_one_hex_move(game, unit, options)
        got = fast_one(self, game, unit, options, reason)
        assert got == want and type(got) is type(want)
        seen["one"] += 1
        seen["one_moved"] += got is not None
        return got

    def move_drop_marker(self, game, formation, options):
        want = _ref_move_drop_marker(game, formation, options)
        got = fast_marker(self, game, formation, options)
        assert got == want and type(got) is type(want)
        seen["marker"] += 1
        return got

    # the parameterised bots carry copies of the default decisions (simple.py)
    monkeypatch.setattr(AX.AxisBot, "one_hex_move", one_hex_move)
    monkeypatch.setattr(AX.AxisBot, "move_drop_marker", move_drop_marker)
    play_games("hercules", 21, np.arange(n), axis_policy=ax, allied_policy=al)
    assert seen["one"] > 10 and seen["one_moved"] > 0 and seen["marker"] > 0, seen
