"""Coastal-gun line of fire (rule 16.54) against the hexgrid.hex_line reference."""

import numpy as np
import pytest

from malta_sim.hexgrid import IOD_GRID, hex_line
from malta_sim.kernels import los as L
from tests.oracles import kernels as ref

G = IOD_GRID
NBR = G.neighbour_table
AX = G.axial.astype(np.int32)
N = G.n_hexes
BOUNDS = (G.col_min, G.row_min, G.n_cols, G.n_rows)


def lof(gun, target, hb, sb):
    return L.line_of_fire(AX, NBR, G.index(gun), G.index(target), hb, sb, *BOUNDS)


def test_line_steps_match_hex_line():
    rng = np.random.default_rng(0)
    out = np.empty((128, 2), np.int32)
    for _ in range(500):
        a, b = (G.hex_id(int(x)) for x in rng.integers(N, size=2))
        m = L.line_steps(AX, G.index(a), G.index(b), *BOUNDS, out)
        mine = [tuple(sorted(G.hex_id(int(h)) for h in row if h >= 0)) for row in out[:m]]
        ref = [tuple(s for s in step if G.contains(s)) for step in hex_line(a, b)]
        assert mine == [tuple(sorted(r)) for r in ref]


@pytest.mark.parametrize("seed", range(5))
def test_numba_matches_reference(seed):
    rng = np.random.default_rng(seed)
    hb = rng.random(N) < 0.15
    sb = np.zeros((N, 6), np.bool_)
    for i in range(N):
        for d in range(6):
            j = NBR[i, d]
            if j >= 0 and rng.random() < 0.05:
                sb[i, d] = sb[j, (d + 3) % 6] = True
    for _ in range(300):
        a, b = (G.hex_id(int(x)) for x in rng.integers(N, size=2))
        assert lof(a, b, hb, sb) == ref.py_line_of_fire(G, a, b, hb, sb)


def test_rule_16_54_blocking_and_endpoints():
    hb = np.zeros(N, np.bool_)
    sb = np.zeros((N, 6), np.bool_)
    # straight line north: 1010 -> 1007 passes 1009, 1008
    assert lof("1010", "1007", hb, sb)
    hb[G.index("1008")] = True
    assert not lof("1010", "1007", hb, sb)
    # terrain in the gun's or target's hex does not block
    hb[:] = False
    hb[G.index("1010")] = hb[G.index("1007")] = True
    assert lof("1010", "1007", hb, sb)
    # a Creek with Rise crossed on the way blocks
    hb[:] = False
    sb[G.index("1009"), 0] = sb[G.index("1008"), 3] = True
    assert not lof("1010", "1007", hb, sb)


def test_rule_16_54_hexside_tie_rule():
    """Along a hexside: blocked only if the hexes on both sides block."""
    hb = np.zeros(N, np.bool_)
    sb = np.zeros((N, 6), np.bool_)
    gun, target = "1010", "0810"
    ties = [s for s in hex_line(gun, target) if len(s) == 2]
    assert ties, "this pair runs along a hexside"
    x, y = ties[0]
    hb[G.index(x)] = True
    assert lof(gun, target, hb, sb)
    hb[G.index(y)] = True
    assert not lof(gun, target, hb, sb)


def test_line_of_fire_table():
    hb = np.zeros(N, np.bool_)
    hb[G.index("1008")] = True
    sb = np.zeros((N, 6), np.bool_)
    t = L.line_of_fire_table(AX, NBR, np.array([G.index("1010")], np.int32), hb, sb, G.distance_table, 4, *BOUNDS)
    assert t.shape == (1, N)
    assert not t[0, G.index("1007")] and t[0, G.index("1009")] and not t[0, G.index("0101")]
