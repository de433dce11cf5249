"""Hex grid: ids, adjacency convention (DATA_NOTES; rule 10.12 example), distance, lines."""

from collections import deque

import networkx as nx
import pytest
from hypothesis import given, settings, strategies as st

from malta_sim import hexgrid as hg
from malta_sim.errors import OptionError

G = hg.IOD_GRID
hex_ids = st.builds(hg.format_hex, st.integers(G.col_min, G.col_max), st.integers(G.row_min, G.row_max))


def test_rule_10_12_vectors():
    # rule 10.12 example: 1310 is adjacent to 1210, 1309 is two hexes away
    assert hg.distance("1210", "1310") == 1
    assert hg.distance("1210", "1309") == 2


def test_even_column_sits_lower():
    # from even column 12 row 10, the side neighbours are rows 10 and 11
    assert set(hg.neighbours("1210")) == {"1209", "1310", "1311", "1211", "1111", "1110"}
    # from odd column 13 row 10, rows 9 and 10
    assert set(hg.neighbours("1310")) == {"1309", "1409", "1410", "1311", "1210", "1209"}


def test_direction_order():
    n = hg.neighbours("1210")
    assert n == ["1209", "1310", "1311", "1211", "1111", "1110"]  # N NE SE S SW NW
    for d, h in enumerate(n):
        assert hg.direction_between("1210", h) == d


def test_roundtrip_dense_and_axial():
    for i in range(G.n_hexes):
        h = G.hex_id(i)
        assert G.index(h) == i
        assert hg.from_axial(*hg.to_axial(h)) == h
        x, y, z = hg.to_cube(h)
        assert x + y + z == 0


def test_map_edges():
    corner = hg.format_hex(G.col_min, G.row_min)
    nb = G.neighbours(corner)
    assert nb.count(None) >= 3
    assert all(n is None or G.contains(n) for n in nb)
    assert (G.neighbour_table >= -1).all()
    with pytest.raises(OptionError, match="off the map"):
        G.index("9999")
    with pytest.raises(OptionError, match="four digits"):
        hg.parse_hex("12a0")


def _bfs(a, b):
    seen = {a: 0}
    q = deque([a])
    while q:
        h = q.popleft()
        if h == b:
            return seen[h]
        for n in hg.neighbours(h):
            if n is not None and n not in seen:
                seen[n] = seen[h] + 1
                q.append(n)


@settings(max_examples=150, deadline=None)
@given(hex_ids, hex_ids)
def test_distance_symmetric_and_equals_bfs(a, b):
    assert hg.distance(a, b) == hg.distance(b, a) == _bfs(a, b)


def test_distance_table_equals_networkx_shortest_paths():
    g = nx.Graph()
    for i in range(G.n_hexes):
        for j in G.neighbour_table[i]:
            if j >= 0:
                g.add_edge(i, int(j))
    src = G.index("1210")
    lengths = nx.single_source_shortest_path_length(g, src)
    for j, d in lengths.items():
        assert G.distance_table[src, j] == d


def test_ring_and_within():
    assert len(hg.ring("1210", 1)) == 6
    assert len(hg.ring("1210", 2)) == 12
    assert len(hg.within("1210", 2)) == 19
    assert set(hg.ring("1210", 1)) == set(hg.neighbours("1210"))
    assert len(G.within_idx(G.index("1210"), 3)) == 37


def test_hex_line_simple_cases():
    assert hg.hex_line("1210", "1210") == [("1210",)]
    line = hg.hex_line("1210", "1214")  # straight down a column
    assert [s[0] for s in line] == ["1210", "1211", "1212", "1213", "1214"]
    line = hg.hex_line("1210", "1310")
    assert line == [("1210",), ("1310",)]
    for a, b in [("0911", "2012"), ("1316", "1708"), ("0503", "2218")]:
        steps = hg.hex_line(a, b)
        assert len(steps) == hg.distance(a, b) + 1
        assert steps[0] == (a,) and steps[-1] == (b,)
        for s1, s2 in zip(steps, steps[1:]):  # consecutive steps touch
            assert any(hg.distance(x, y) <= 1 for x in s1 for y in s2)


def test_hex_line_tie_along_hexside():
    # 1210 -> 1410 (two columns east, same row): the centre line runs exactly
    # along the hexside between 1310 and 1311
    steps = hg.hex_line("1210", "1410")
    assert hg.distance("1210", "1410") == 2
    assert steps == [("1210",), ("1310", "1311"), ("1410",)]
    # a straight hex row has no tie
    assert hg.hex_line("1210", "1409") == [("1210",), ("1310",), ("1409",)]
    # a line with no tie has single hexes only
    assert all(len(s) == 1 for s in hg.hex_line("1210", "1214"))
