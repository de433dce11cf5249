"""The Allied proximity passes of the invasion engine (:mod:`malta_sim.iod.proximity`):
Allied defense strength near hexes (the bots' threat measure: beach movement 18.7, rally
19.6, drop zone markers 19.13, sticks 19.32), distance to the nearest Allied unit (landing
losses 18.5, wave boxes 18.32, stragglers 17.8, airfield entry 16.11; leaders excluded,
14.0) and Allied AA within range (16.12, 17.52, 19.41), against plain array expressions on
random positions and random arrays, and the kept answers following every move.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.bots import invasion as pinv
from malta_sim.iod import invasion as H, proximity as ap, static as st
from malta_sim.iod.state import ALLIED, BOX_MAP
from malta_sim.play import new_game


# --------------------------------------------------------------------- plain references
def ref_strength_near(game, hexes, radius):
    """The array expression the compiled pass replaced (int64 per hex)."""
    s, t = game.state, game.static
    idx = ((s.box == BOX_MAP) & (t.side == ALLIED) & (s.hex >= 0)).nonzero()[0]
    hexes = np.asarray(hexes, np.int64).reshape(-1)
    if not len(idx) or not len(hexes):
        return np.zeros(len(hexes), np.int64)
    strength = t.defense[idx, s.level[idx]].astype(np.int64)
    near = t.grid.distance_table[hexes[:, None], s.hex[idx][None, :]] <= radius
    return near.astype(np.int64) @ strength


def ref_nearest(game, hexes):
    """Hexes to the nearest Allied unit (leaders excluded), 99 when none."""
    s, t = game.state, game.static
    hx = np.unique(s.hex[(s.box == BOX_MAP) & (t.side == ALLIED) & (t.utype != st.LEADER)])
    hexes = np.asarray(hexes, np.int64).reshape(-1)
    if hx.size == 0:
        return np.full(len(hexes), 99, np.int64)
    return t.grid.distance_table[hexes][:, hx].min(axis=1).astype(np.int64)


def ref_aa_within(game, h, radius):
    s, t = game.state, game.static
    aa = s.hex[(s.box == BOX_MAP) & (t.side == ALLIED) & t.aa]
    return int((t.grid.distance_table[h, aa] <= radius).sum())


# --------------------------------------------------------------------- random positions
def _scramble(game, gen, p_off=0.3):
    """Random Allied positions: each Allied piece on a random land hex or off
    the map, at a random level of its table."""
    s, t = game.state, game.static
    land = np.flatnonzero(t.land)
    for u in np.flatnonzero(t.side == ALLIED):
        if gen.random() < p_off:
            s.box[u], s.hex[u] = 5, -1
        else:
            s.box[u], s.hex[u] = BOX_MAP, int(gen.choice(land))
        s.level[u] = int(gen.integers(0, max(1, int(t.n_levels[u]))))


@pytest.mark.parametrize("p_off", [0.0, 0.5, 1.0])
def test_kernels_equal_references_on_random_positions(p_off):
    """Every pass against its plain reference on random Allied positions
    (including none on the map), random hexes and radii."""
    g = new_game("hercules", 3, 0, axis_policy="balanced", allied_policy="static")
    gen = np.random.default_rng(4)
    n_h = g.static.n_hexes
    seen = {"strength": 0, "near": 0}
    for _ in range(15):
        _scramble(g, gen, p_off)
        hexes = gen.integers(0, n_h, size=int(gen.integers(0, 40))).tolist()
        for r in (0, 1, 2, 3, 5):
            got = ap.allied_strength_near(g, hexes, r)
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, ref_strength_near(g, hexes, r))
            np.testing.assert_array_equal(pinv._allied_strength_near_many(g, hexes, r),
                                          ref_strength_near(g, hexes, r))
        np.testing.assert_array_equal(ap.nearest_allied_units(g, hexes), ref_nearest(g, hexes))
        for h in hexes[:10]:
            assert pinv._allied_strength_near(g, h, 2) == int(ref_strength_near(g, [h], 2)[0])
            assert H.dist_to_allied(g, h) == int(ref_nearest(g, [h])[0])
            assert ap.nearest_allied_unit(g, h) == int(ref_nearest(g, [h])[0])
            for r in (1, 3):
                assert H.aa_within(g, h, r) == ref_aa_within(g, h, r)
            seen["strength"] += int(ref_strength_near(g, [h], 2)[0] > 0)
            seen["near"] += int(ref_nearest(g, [h])[0] < 99)
    assert p_off == 1.0 or (seen["strength"] > 0 and seen["near"] > 0), seen


def test_kernels_raw_on_random_arrays():
    """The kernels themselves on random arrays (units in any order, boxes,
    levels, skip flags) against numpy one-liners."""
    gen = np.random.default_rng(9)
    H_, U = 40, 30
    pts = gen.integers(0, 10, size=(H_, 2))
    dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2).astype(np.int16)
    for _ in range(50):
        box = gen.integers(0, 3, size=U).astype(np.int8)
        hexpos = np.where(box == BOX_MAP, gen.integers(0, H_, size=U), -1).astype(np.int16)
        level = gen.integers(0, 4, size=U).astype(np.int8)
        defense = gen.integers(0, 9, size=(U, 4)).astype(np.int8)
        skip = gen.random(U) < 0.2
        units = np.sort(gen.choice(U, size=int(gen.integers(0, U)), replace=False)).astype(np.int64)
        hexes = gen.integers(0, H_, size=7).astype(np.int64)
        r = int(gen.integers(0, 6))
        on = units[box[units] == BOX_MAP]
        want = np.array([int(defense[on, level[on]][dist[h, hexpos[on]] <= r].astype(np.int64).sum())
                         for h in hexes], np.int64)
        np.testing.assert_array_equal(ap.strength_near_kernel(dist, hexes, r, units, box, hexpos, level,
                                                              defense), want)
        cnt = on[~skip[on]]
        want_n = [int(dist[h, hexpos[cnt]].min()) if cnt.size else 99 for h in hexes]
        assert ap.nearest_many_kernel(dist, hexes, units, box, hexpos, skip).tolist() == want_n
        assert [int(ap.nearest_many_kernel(dist, np.array([h], np.int64), units, box, hexpos, skip)[0])
                for h in hexes] == want_n
        assert [ap.count_within_kernel(dist, int(h), r, units, box, hexpos) for h in hexes] == \
            [int((dist[h, hexpos[on]] <= r).sum()) for h in hexes]


def test_allied_answers_follow_every_move():
    """Allied hexes, distance to the nearest Allied unit and AA counts (16.12,
    18.5, 19.41) from the per-position memo equal direct computations, move
    after move."""
    from malta_sim.iod import invasion as H
    from malta_sim.iod import static as st
    from malta_sim.iod.state import BOX_MAP

    g = new_game("hercules", 6, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    d = t.grid.distance_table
    allied = np.flatnonzero(t.side == 1)
    land = np.flatnonzero(t.land)
    gen = np.random.default_rng(1)
    for step in range(25):
        u = int(gen.choice(allied))
        if gen.random() < 0.2:
            s.box[u], s.hex[u] = 5, -1
        else:
            s.box[u], s.hex[u] = BOX_MAP, int(gen.choice(land))
        for guns in (True, False):
            m = (s.box == BOX_MAP) & (t.side == 1) & (t.utype != st.LEADER)
            if not guns:
                m &= t.utype != st.COASTAL_GUN
            np.testing.assert_array_equal(H.allied_unit_hexes(g, guns), np.unique(s.hex[m]))
        hx = np.unique(s.hex[(s.box == BOX_MAP) & (t.side == 1) & (t.utype != st.LEADER)])
        aa = s.hex[(s.box == BOX_MAP) & (t.side == 1) & t.aa]
        for h in gen.choice(land, size=8):
            h = int(h)
            assert H.dist_to_allied(g, h) == (int(d[h, hx].min()) if hx.size else 99)
            for r in (1, 3):
                assert H.aa_within(g, h, r) == int((d[h, aa] <= r).sum())
