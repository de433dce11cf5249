"""Fifth round of invasion-engine speed work: the answers kept per process or
per loop in the invasion phases equal the plain computations they stand for.

* Hex-id arithmetic of the airborne phase (19.32, 19.43): the stick target at
  an axial offset from its marker, the offset of a planned stick, the dense
  index of a hex id (``InvasionStatic.hex_memo``); the planning hexes (19.33).
* Coastal guns (16.54, 16.56): which wave-box hexes a gun reaches
  (``InvasionStatic.gun_reach``).
* Loops over landed units: landing losses (18.5: distance to the nearest
  Allied unit) and airborne losses (19.46: real defenders, AA within three
  hexes) keep one answer per hex, since only Axis pieces change in them.

Whole games are played with every such memo switched off (a dict that keeps
nothing) and compared with the normal games: results and event logs equal.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from malta_sim.iod.rules import airborne as ab
from malta_sim.iod.rules import airborne as ap
from malta_sim.iod import invasion as H
from malta_sim.play import new_game, play_games
from tests.oracles import iod_rules as oracle
from malta_sim.iod.rules import amphibious, coastal_guns


class _NoMemo(dict):
    """A dict that keeps nothing: every look-up misses."""

    def get(self, key, default=None):
        return default

    def __contains__(self, key):
        return False

    def __setitem__(self, key, value):
        pass


class _Counting(dict):
    """A dict that counts the look-ups that found an answer."""

    hits = 0

    def get(self, key, default=None):
        if dict.__contains__(self, key):
            type(self).hits += 1
        return dict.get(self, key, default)

    def __contains__(self, key):
        found = dict.__contains__(self, key)
        if found:
            type(self).hits += 1
        return found


def _game():
    return new_game("hercules", 3, 0, axis_policy="balanced", allied_policy="static")


def test_hex_memos_equal_plain_functions():
    """Stick targets, plan offsets and hex indices through the memo equal the
    hex-id functions, on every hex and offsets reaching off the grid; twice
    (the second time from the memo)."""
    g = _game()
    inv, grid = H.inv_static(g), g.static.grid
    inv.hex_memo.clear()
    gen = np.random.default_rng(5)
    n = grid.n_hexes
    for _rep in range(2):
        for m in range(n):
            off = (int(gen.integers(-7, 8)), int(gen.integers(-7, 8)))
            want = ab.apply_offset(grid.hex_id(m), off)
            got = ap._stick_target(inv, grid, m, off)
            assert got == want
            want_i = grid.index(want) if want is not None and grid.contains(want) else -1
            assert ap._target_index(inv, grid, got) == want_i
            x = int(gen.integers(0, n))
            assert ap._plan_offset(inv, grid, m, x) == ab.relative_offset(grid.hex_id(m), grid.hex_id(x))
        gen = np.random.default_rng(5)                  # the same inputs again: from the memo
    assert ap._target_index(inv, grid, None) == -1
    assert ap._target_index(inv, grid, "9999") == -1    # off the grid
    assert any(v == -1 for k, v in inv.hex_memo.items() if k[0] == "index")


def test_planning_hexes_are_the_mask_and_a_fresh_list():
    g = _game()
    arr, lst = ap._planning_hexes(g)
    np.testing.assert_array_equal(arr, np.flatnonzero(ap._target_hexes_ok(g)))
    assert lst == arr.tolist() and not arr.flags.writeable
    lst.clear()                                          # a bot may change its list
    assert ap._planning_hexes(g)[1] == arr.tolist()


def test_gun_reach_equals_range_and_line_of_fire():
    """Every (gun hex, range, target) answer kept equals the distance test
    and the line of fire worked out afresh."""
    play_games("hercules", 5, np.arange(2), axis_policy="balanced", allied_policy="static")
    g = _game()
    inv, d = H.inv_static(g), g.static.grid.distance_table
    assert inv.gun_reach
    for (gh, rg), reach in inv.gun_reach.items():
        for b, ok in reach.items():
            want = bool(d[gh, b] <= rg and coastal_guns.line_of_fire_clear(
                g.static.grid.hex_id(gh), g.static.grid.hex_id(b), inv.los_block, inv.los_block_sides))
            assert ok == want


def _play(scenario, pols, games):
    res = play_games(scenario, 9, np.arange(games), axis_policy=pols[0], allied_policy=pols[1],
                     event_log=True)
    return res.games, res.events


@pytest.mark.parametrize("scenario,pols,games", [("hercules", ("balanced", "static"), 3),
                                                 ("hercules", ("random", "random"), 2),
                                                 ("intro", ("balanced", "static"), 2)])
def test_games_with_memos_off_are_the_same(monkeypatch, scenario, pols, games):
    """Games played with the memos of this round switched off have the same
    results and event logs; with them on, each memo answered some look-ups."""
    inv = H.inv_static(_game())

    class Loop(_Counting):
        hits = 0

    class Hex(_Counting):
        hits = 0

    class Reach(_Counting):
        hits = 0

    monkeypatch.setattr(amphibious, "_loop_memo", Loop)
    monkeypatch.setattr(ap, "_loop_memo", Loop)
    monkeypatch.setattr(inv, "hex_memo", Hex())
    monkeypatch.setattr(inv, "gun_reach", Reach())
    fast = _play(scenario, pols, games)
    assert Hex.hits > 0 and Loop.hits > 0
    if scenario == "hercules" and pols[0] == "balanced":
        assert Reach.hits > 0
    monkeypatch.setattr(amphibious, "_loop_memo", _NoMemo)
    monkeypatch.setattr(ap, "_loop_memo", _NoMemo)
    monkeypatch.setattr(inv, "hex_memo", _NoMemo())
    monkeypatch.setattr(inv, "gun_reach", _NoMemo())
    plain = _play(scenario, pols, games)
    pd.testing.assert_frame_equal(fast[0], plain[0])
    pd.testing.assert_frame_equal(fast[1], plain[1])


# --------------------------------------------------------------------- 18.31 break-downs
@pytest.mark.parametrize("scenario,pols", [("hercules", ("balanced", "static")), ("hercules", ("random", "random"))])
def test_breakable_equals_can_break_down_through_games(monkeypatch, scenario, pols):
    """Every answer of the compiled pass equals ``can_break_down`` at that moment."""
    from malta_sim.iod.rules import organisation as org
    fast = amphibious.breakable
    n = [0]

    def checked(game, units):
        got = fast(game, units)
        assert got == [org.can_break_down(game, int(b)) for b in units]
        n[0] += len(units)
        return got

    monkeypatch.setattr(amphibious, "breakable", checked)
    play_games(scenario, 5, np.arange(3), axis_policy=pols[0], allied_policy=pols[1])
    assert n[0] > 0


def test_breakable_on_random_positions():
    from malta_sim.iod.rules import organisation as org
    g = _game()
    s, t = g.state, g.static
    gen = np.random.default_rng(8)
    units = np.arange(t.n_units)
    boxes = np.array([0, 1, 4, 5, 6, 7, 9], s.box.dtype)       # on the map, pool, Disbandment, ...
    seen = set()
    for _ in range(30):
        s.box[:] = gen.choice(boxes, size=t.n_units)
        s.parent[:] = np.where(gen.random(t.n_units) < 0.3, gen.integers(0, t.n_units, t.n_units), -1)
        s.level[:] = gen.integers(0, 4, t.n_units)
        got = amphibious.breakable(g, units)
        assert got == [org.can_break_down(g, int(b)) for b in units]
        seen.update(got)
    assert seen == {True, False}




# --------------------------------------------------------------------- 19.13 drop zone markers
@pytest.mark.parametrize("scenario", ["intro", "hercules"])
def test_marker_reach_equals_plain_search_through_games(monkeypatch, scenario):
    """Every search of the compiled pass equals the plain breadth-first search."""
    fast = ap.marker_reach_kernel
    n = [0]
    box = {}

    def checked(here, steps, near_padded, land, control, zoc, hexpos, side):
        got = fast(here, steps, near_padded, land, control, zoc, hexpos, side)
        g = box["game"]
        assert got.tolist() == oracle.marker_reach(g, int(here), zoc, int(steps))
        n[0] += 1
        return got

    monkeypatch.setattr(ap, "marker_reach_kernel", checked)
    orig = ap.move_drop_markers

    def move(game):
        box["game"] = game
        return orig(game)

    monkeypatch.setattr(ap, "move_drop_markers", move)
    play_games(scenario, 5, np.arange(4), axis_policy="balanced", allied_policy="static")
    assert n[0] > 0


def test_marker_reach_on_random_positions():
    g = _game()
    s, t = g.state, g.static
    inv = H.inv_static(g)
    gen = np.random.default_rng(11)
    land = np.flatnonzero(t.land)
    sizes = []
    for _ in range(60):
        s.control[:] = np.where(gen.random(t.n_hexes) < 0.8, 0, 1)
        on = gen.random(t.n_units) < 0.3
        s.hex[:] = np.where(on, gen.choice(land, size=t.n_units), -1)
        zoc = gen.random(t.n_hexes) < 0.2
        here = int(gen.choice(land))
        for steps in (0, 1, 3, 5):
            got = ap.marker_reach_kernel(here, steps, inv.near_padded, t.land, s.control, zoc, s.hex, t.side)
            want = oracle.marker_reach(g, here, zoc, steps)
            assert got.tolist() == want
            sizes.append(len(want))
    assert max(sizes) > 10 and min(sizes) == 0


def test_stick_targets_kept_equal_plain_and_fresh(monkeypatch):
    g = _game()
    inv, d = H.inv_static(g), g.static.grid.distance_table
    legal, _ = ap._planning_hexes(g)
    gen = np.random.default_rng(3)
    for _ in range(2):                                   # the second round from the memo
        for m in gen.choice(legal, 40).tolist() + [0, g.static.n_hexes - 1]:
            for lu in (False, True):
                got = ap._stick_targets_kept(inv, d, m, legal, lu)
                assert got == ap.stick_targets(d, m, legal, lu)
                got.clear()                              # the caller's own list
        gen = np.random.default_rng(3)
    calls = []
    monkeypatch.setattr(ap, "stick_targets", lambda *a: calls.append(a) or [])
    assert ap._stick_targets_kept(inv, d, int(legal[0]), legal, False) == [] and calls
