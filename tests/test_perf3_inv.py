"""Third round of invasion-engine speed work: the fast paths equal their plain
references on every call through whole games and on random positions.

* :func:`hercules.on_enter_hex` (16.22, 16.32, 16.58): the entry effects with
  the early returns and the array-built watch map against the plain version
  (kept below as the reference), state, event log and dice compared after
  every call of whole Hercules and Introductory games.
* :func:`hercules.one_hex_options` (6.52, 6.53, 7.1; beach movement 18.7,
  rally 19.6) against the per-neighbour :func:`hercules.can_enter` loop.
* :func:`hercules.aa_within` (16.12, 19.41) against a count over every unit.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from malta_sim.iod import invasion as H
from malta_sim.iod.rules import militia
from malta_sim.iod.rules import militia as mil
from malta_sim.iod import static as st
from malta_sim.play import new_game, play_games
from malta_sim.iod.state import (ALLIED, AXIS, BOX_CUP, BOX_ELIMINATED, BOX_MAP)


# --------------------------------------------------------------------- references
def _ref_on_enter_hex(game, u: int, h: int, how: str = "move") -> None:
    """The plain entry effects (the code before the fast path)."""
    s, t = game.state, game.static
    if t.side[u] != AXIS or t.utype[u] in (st.LEADER, st.WARSHIP) or h < 0:
        return
    cgu = np.flatnonzero((t.utype == st.COASTAL_GUN) & (t.side == ALLIED))
    sp = np.flatnonzero((t.utype == st.STRONGPOINT) & (t.side == ALLIED))
    inv = H.inv_static(game)
    flags = [False] * t.n_hexes
    for x in s.hex[cgu].tolist():
        if x >= 0:
            flags[x] = True
    for x in s.hex[sp].tolist():
        if x >= 0:
            for y in inv.near_lists[x]:
                flags[y] = True
    if flags[h]:
        H._guns_and_strongpoints(game, cgu, cgu.tolist(), sp, sp.tolist(), inv, h, how)
    cup = militia._militia_in_cup(game)
    if not cup:
        return
    near = inv.urban_near[h]
    if how == "move":
        game.extra.setdefault("militia_pending", []).extend(near)
        return
    if how == "move_end":
        near = game.extra.pop("militia_pending", []) + near
    urban = inv.urban
    for x in dict.fromkeys(near):
        if x < 0 or not urban[x] or s.militia_rolled[x]:
            continue
        cup = militia._militia_in_cup(game)
        if not cup:
            return
        s.militia_rolled[x] = True
        if not mil.militia_roll(H.nstate(game, "militia"), bool(t.city[x])):
            continue
        piece = cup[int(H.rng(game, "militia").integers(len(cup)))]
        axis_there = x == h or any(t.utype[v] != st.LEADER for v in game.units_at(x, AXIS))
        if axis_there and not (how == "jump" and x == h):
            s.box[piece], s.hex[piece] = BOX_ELIMINATED, -1
            H._log(game, "militia_crushed", side=ALLIED, hexes=[x], units=[piece], rule="16.32")
            continue
        s.box[piece], s.hex[piece] = BOX_MAP, x
        s.formation[piece] = 0
        s.revealed[piece] = how == "jump" and x == h
        if not axis_there:
            s.control[x] = ALLIED
        H._log(game, "militia", side=ALLIED, hexes=[x], units=[piece], rule="16.32")


def _ref_can_enter(game, u: int, h: int) -> bool:
    t, s = game.static, game.state
    if h < 0 or not t.land[h]:
        return False
    here = int(s.hex[u])
    d = -1
    for k in range(6):
        if t.neighbours[here, k] == h:
            d = k
    if d < 0 or t.ocean_side[here, d]:
        return False
    cls = int(t.move_class[u]) if t.utype[u] != st.LEADER else 0
    if t.move_cost[h, cls] >= 99 and not t.road[here, d]:
        return False
    if cls != st.FOOT and t.rise[here, d] and not t.road[here, d]:
        return False
    for e in game.units_at(h, 1 - int(t.side[u])):
        if t.utype[e] in (st.LEADER, st.COASTAL_GUN):
            continue
        if game.base_defense(e) > 0:
            return False
    return True


def _ref_one_hex_options(game, u: int) -> list:
    from malta_sim.iod.rules import organisation as org
    h = int(game.state.hex[u])
    return [int(o) for o in game.static.neighbours[h]
            if o >= 0 and _ref_can_enter(game, u, int(o)) and org.fits_stacking(game, [int(u)], int(o))]


# --------------------------------------------------------------------- helpers
def _rng_state(game) -> tuple:
    nb = {k: v.copy() for k, v in game.extra.items() if isinstance(k, str) and k.startswith("nb_")}
    gens = {k: copy.deepcopy(g.bit_generator.state) for k, g in game.streams._gens.items()}
    return nb, gens


def _set_rng_state(game, saved) -> None:
    nb, gens = saved
    for k in [k for k in game.extra if isinstance(k, str) and k.startswith("nb_")]:
        if k not in nb:
            del game.extra[k]
    for k, v in nb.items():
        game.extra.setdefault(k, v.copy())[:] = v
    for k in [k for k in game.streams._gens if k not in gens]:
        del game.streams._gens[k]                      # created during the call: made afresh again
    for k, st_ in gens.items():
        game.streams._gens[k].bit_generator.state = copy.deepcopy(st_)


def _observe(game, rows0: int) -> tuple:
    rows = [dict(r) for r in game.events.rows[rows0:]] if game.events is not None else []
    nb = {k: v.tobytes() for k, v in game.extra.items() if isinstance(k, str) and k.startswith("nb_")}
    gens = {k: repr(g.bit_generator.state) for k, g in game.streams._gens.items()}
    return ([a.copy() for a in game.state], list(game.extra.get("militia_pending", [])), rows, nb, gens)


def _assert_same(a, b, where) -> None:
    for x, y in zip(a[0], b[0]):
        np.testing.assert_array_equal(x, y, err_msg=str(where))
    assert a[1:] == b[1:], where


# --------------------------------------------------------------------- tests
@pytest.mark.parametrize("scenario,games", [("hercules", 2), ("intro", 1)])
def test_on_enter_hex_equals_reference_on_every_call(scenario, games):
    """Every call of the entry hook through whole games (default and random
    bots): the fast hook and the plain reference, run from the same state and
    dice, leave the same state, pending uprisings, event log and dice."""
    fast = H.on_enter_hex
    n = [0, 0]

    def checked(game, u, h, how="move"):
        state0 = [a.copy() for a in game.state]
        pending0 = list(game.extra.get("militia_pending", [])) if "militia_pending" in game.extra else None
        rows0 = len(game.events.rows) if game.events is not None else 0
        rng0 = _rng_state(game)
        fast(game, u, h, how)
        after = _observe(game, rows0)
        # replay with the reference from the same start
        for a, b in zip(game.state, state0):
            a[...] = b
        if pending0 is None:
            game.extra.pop("militia_pending", None)
        else:
            game.extra["militia_pending"] = list(pending0)
        if game.events is not None:
            del game.events.rows[rows0:]
        _set_rng_state(game, rng0)
        _ref_on_enter_hex(game, u, h, how)
        ref = _observe(game, rows0)
        pend_fast, pend_ref = after[1], ref[1]
        _assert_same((after[0], [], after[2], after[3], after[4]), (ref[0], [], ref[2], ref[3], ref[4]),
                     (game.game_index, game.turn, u, h, how))
        # the reference notes an empty pending list where the fast hook notes none
        assert pend_fast == pend_ref, (game.game_index, game.turn, u, h, how)
        n[0] += 1
        n[1] += len(after[2]) > 0

    H.on_enter_hex = checked
    try:
        for pol in ("balanced", "random"):
            play_games(scenario, 11, np.arange(games), axis_policy=pol, allied_policy="static" if
                       pol == "balanced" else "random", event_log=True)
    finally:
        H.on_enter_hex = fast
    assert n[0] > 200 and n[1] > 0


def test_one_hex_options_equals_reference_through_games():
    """One-hex movement options (6.52, 6.53, 7.1) equal the per-neighbour
    reference on every call through whole games, and on random positions."""
    fast = H.one_hex_options
    n = [0]

    def checked(game, u):
        out = fast(game, u)
        assert out == _ref_one_hex_options(game, u)
        n[0] += 1
        return out

    H.one_hex_options = checked
    try:
        play_games("hercules", 5, np.arange(3), axis_policy="balanced", allied_policy="static")
    finally:
        H.one_hex_options = fast
    assert n[0] > 10
    g = new_game("hercules", 3, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    gen = np.random.default_rng(4)
    land = np.flatnonzero(t.land)
    units = np.flatnonzero((t.utype != st.WARSHIP) & (t.utype != st.COASTAL_GUN))
    for _ in range(300):
        k = gen.choice(units, size=30, replace=False)
        s.box[k], s.hex[k] = BOX_MAP, gen.choice(land, size=30)
        for u in k[:5].tolist():
            assert fast(g, u) == _ref_one_hex_options(g, u)
            for h in t.neighbours[s.hex[u]].tolist():
                assert H.can_enter(g, u, h) == _ref_can_enter(g, u, h)


def test_entry_flags_and_aa_counts_on_random_positions():
    """The watch map of the entry hook (16.22, 16.58) and the AA counts
    (16.12, 19.41) equal plain loops over the pieces."""
    g = new_game("hercules", 2, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    inv = H.inv_static(g)
    d = t.grid.distance_table
    gen = np.random.default_rng(9)
    land = np.flatnonzero(t.land)
    cgu = np.flatnonzero((t.utype == st.COASTAL_GUN) & (t.side == ALLIED))
    sp = np.flatnonzero((t.utype == st.STRONGPOINT) & (t.side == ALLIED))
    allied = np.flatnonzero(t.side == ALLIED)
    for _ in range(50):
        gh = np.where(gen.random(cgu.size) < 0.3, -1, gen.choice(land, size=cgu.size))
        sh = np.where(gen.random(sp.size) < 0.3, -1, gen.choice(land, size=sp.size))
        flags = [False] * t.n_hexes
        for x in gh.tolist():
            if x >= 0:
                flags[x] = True
        for x in sh.tolist():
            if x >= 0:
                for y in inv.near_lists[x]:
                    flags[y] = True
        assert H._entry_flags(g, inv, gh, sh).tolist() == flags
        k = gen.choice(allied, size=20, replace=False)
        s.box[k] = np.where(gen.random(20) < 0.3, BOX_CUP, BOX_MAP)
        s.hex[k] = np.where(s.box[k] == BOX_MAP, gen.choice(land, size=20), -1)
        m = (s.box == BOX_MAP) & (t.side == ALLIED) & t.aa
        for h in gen.choice(land, size=10).tolist():
            for r in (1, 3):
                assert H.aa_within(g, h, r) == int((d[h, s.hex[m]] <= r).sum())


def test_guns_with_box_targets_on_random_positions():
    """Coastal guns with a filled wave box in range (16.56; the default Allied
    bot keeps them for the landing craft) equal the plain per-gun test."""
    from malta_sim.iod.rules import warships as ws
    from malta_sim.iod.state import BOX_FIRST_WAVE, BOX_SECOND_WAVE

    g = new_game("hercules", 4, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    inv = H.inv_static(g)
    d = t.grid.distance_table
    gen = np.random.default_rng(2)
    land = np.flatnonzero(t.land)
    beaches = np.flatnonzero(inv.beach_zone >= 0)
    cgu = np.flatnonzero((t.utype == st.COASTAL_GUN) & (t.side == ALLIED))
    axis = np.flatnonzero(t.side == AXIS)
    for trial in range(40):
        s.hex[cgu] = gen.choice(land, size=cgu.size)
        k = gen.choice(axis, size=int(gen.integers(0, 6)), replace=False)
        s.box[k] = gen.choice([BOX_FIRST_WAVE, BOX_SECOND_WAVE], size=k.size)
        s.box_slot[k] = gen.choice(beaches, size=k.size)
        guns = sorted(gen.choice(cgu, size=int(gen.integers(0, cgu.size + 1)), replace=False).tolist())
        slots = sorted({int(s.box_slot[u]) for u in np.flatnonzero((s.box == 2) | (s.box == 3))})
        ref = {q for q in guns if any(d[s.hex[q], b] <= inv.gun_range[q] for b in slots)}
        assert ws._guns_with_box_targets(g, guns) == ref
        s.box[k] = BOX_MAP


def test_ships_in_play_on_random_boxes():
    """Warships on the map (16.7) from the per-static warship list equal a
    mask over every piece."""
    from malta_sim.iod.rules import warships as ws

    g = new_game("hercules", 4, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    ships = np.flatnonzero(t.utype == st.WARSHIP)
    assert ships.size
    gen = np.random.default_rng(5)
    for _ in range(20):
        s.box[ships] = gen.choice([BOX_MAP, BOX_ELIMINATED, 0], size=ships.size)
        ref = [int(u) for u in np.flatnonzero((t.utype == st.WARSHIP) & (s.box == BOX_MAP))]
        assert ws.ships_in_play(g) == ref
