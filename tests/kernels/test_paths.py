"""Path kernels against networkx and plain-Python references on random maps
(rules 5.1-5.2, 6.2, 6.53, 8.2, 9.61-9.62, 9.85, 10.11)."""


import networkx as nx
import numpy as np
import pytest

from tests.oracles import paths as ref_paths
from malta_sim.hexgrid import Grid
from malta_sim.kernels import paths as P
from malta_sim.rng import numba_state

GRID = Grid(1, 9, 1, 8)
NBR = GRID.neighbour_table
N = GRID.n_hexes
DIST = GRID.distance_table


def random_map(seed):
    rng = np.random.default_rng(seed)
    hex_cost = rng.choice([1.0, 1.0, 2.0, 3.0, np.inf], size=N)
    cost = np.full((N, 6), np.inf)
    road = rng.random((N, 6)) < 0.2
    for i in range(N):
        for d in range(6):
            j = NBR[i, d]
            if j >= 0:
                cost[i, d] = 0.5 if (road[i, d] and np.isfinite(hex_cost[j])) else hex_cost[j]
    zoc = rng.random(N) < 0.25
    blocked = rng.random(N) < 0.1
    return rng, cost, zoc, blocked


def oracle_reach(cost, start, ma, zoc, blocked, allowed, enter, exit_):
    G = nx.DiGraph()
    G.add_node(start)
    for i in range(N):
        if i != start and zoc[i]:
            continue
        for d in range(6):
            j = NBR[i, d]
            if j < 0 or blocked[j] or not allowed[j] or not np.isfinite(cost[i, d]):
                continue
            if zoc[i] and zoc[j]:
                continue
            G.add_edge(i, j, weight=cost[i, d] + exit_ * zoc[i] + enter * zoc[j])
    dist = dict(nx.single_source_dijkstra_path_length(G, start, cutoff=ma))
    for j in G.successors(start):
        dist.setdefault(j, ma)  # one-hex minimum move (6.53)
    return dist


@pytest.mark.parametrize("seed", range(40))
def test_movement_reach_matches_networkx(seed):
    rng, cost, zoc, blocked = random_map(seed)
    start = int(rng.integers(N))
    blocked[start] = False
    allowed = rng.random(N) < 0.9
    ma = float(rng.integers(1, 9))
    enter, exit_ = [(2.0, 2.0), (3.0, 3.0), (2.0, 1.0)][seed % 3]
    g, prev = ref_paths.movement_reach(NBR, cost, start, ma, zoc, blocked, allowed, enter, exit_)
    want = oracle_reach(cost, start, ma, zoc, blocked, allowed, enter, exit_)
    got = {i: g[i] for i in range(N) if np.isfinite(g[i])}
    assert set(got) == set(want)
    for k in want:
        assert got[k] == pytest.approx(want[k])
    # a path back to the start exists for every reached hex
    for k in got:
        path = ref_paths.path_to(prev, k)
        assert path[0] == start and path[-1] == k


def test_rule_6_53_zero_ma_and_one_hex_move():
    cost = np.full((N, 6), 5.0)
    z = np.zeros(N, np.bool_)
    g, _ = ref_paths.movement_reach(NBR, cost, 20, 0.0, z, z, ~z, 2.0, 2.0)
    assert np.isfinite(g).sum() == 1
    g, _ = ref_paths.movement_reach(NBR, cost, 20, 3.0, z, z, ~z, 2.0, 2.0)
    assert np.isfinite(g).sum() == 7 and np.nanmax(np.where(np.isfinite(g), g, np.nan)) == 3.0


def test_rule_5_2_no_zoc_to_zoc():
    cost = np.ones((N, 6))
    zoc = np.zeros(N, np.bool_)
    start = GRID.index("0504")
    zoc[start] = True
    ring = [j for j in NBR[start] if j >= 0]
    zoc[ring[0]] = True
    z = np.zeros(N, np.bool_)
    g, prev = ref_paths.movement_reach(NBR, cost, start, 10.0, zoc, z, ~z, 2.0, 2.0)
    assert prev[ring[0]] != start  # never directly, only by leaving the ZOC first
    assert g[ring[0]] == pytest.approx(6.0)
    assert g[ring[1]] == pytest.approx(3.0)  # 1 + exit 2


def oracle_bfs(sources, passable, side_ok, max_dist):
    G = nx.Graph()
    G.add_nodes_from(range(N))
    for i in range(N):
        for d in range(6):
            j = NBR[i, d]
            if j >= 0 and passable[j] and side_ok[i, d]:
                G.add_edge(("s", i), j) if False else None
    # directed edges: i -> j allowed when j passable and side ok
    D = nx.DiGraph()
    D.add_nodes_from(range(N))
    for i in range(N):
        for d in range(6):
            j = NBR[i, d]
            if j >= 0 and passable[j] and side_ok[i, d]:
                D.add_edge(i, j)
    src = [i for i in range(N) if sources[i]]
    out = np.full(N, -1)
    if not src:
        return out
    lengths = nx.multi_source_dijkstra_path_length(D, set(src), cutoff=max_dist)
    for k, v in lengths.items():
        out[k] = v
    return out


@pytest.mark.parametrize("seed", range(30))
def test_rule_8_2_supply_field_matches_networkx(seed):
    rng = np.random.default_rng(100 + seed)
    side_ok = rng.random((N, 6)) < 0.9
    # symmetric hexsides
    for i in range(N):
        for d in range(6):
            j = NBR[i, d]
            if j >= 0:
                side_ok[j, (d + 3) % 6] = side_ok[i, d]
    enemy = rng.random(N) < 0.1
    ezoc = rng.random(N) < 0.3
    friendly = rng.random(N) < 0.2
    sources = np.zeros(N, np.bool_)
    sources[rng.integers(N, size=2)] = True
    enemy &= ~sources
    got = ref_paths.supply_field(NBR, side_ok, sources, enemy, ezoc, friendly, 12)
    passable = ~enemy & (~ezoc | friendly)
    want = oracle_bfs(sources, passable, side_ok, 12)
    assert np.array_equal(got, want)


def test_distance_field_and_cost_field():
    z = np.ones(N, np.bool_)
    s = np.zeros(N, np.bool_)
    s[GRID.index("0101")] = True
    d = P.distance_field(NBR, s, z, np.ones((N, 6), np.bool_), -1)
    assert np.array_equal(d, DIST[GRID.index("0101")])
    c = ref_paths.cost_field(NBR, np.ones((N, 6)), s)
    assert np.array_equal(c, DIST[GRID.index("0101")].astype(float))


def test_rule_6_2_strategic_allowed():
    enemy = np.zeros(N, np.bool_)
    enemy[GRID.index("0504")] = True
    ok = ref_paths.strategic_allowed(NBR, np.ones(N, np.bool_), enemy)
    for i in range(N):
        assert ok[i] == (DIST[i, GRID.index("0504")] > 2)


def py_retreat(side_ok, start, length, zoc, blocked, friendly, load, size, limit, enemy_hexes, pref, max_extra):
    """Brute force: enumerate every retreat path (each hex one farther from the start)."""
    best = {}
    frontier = {start: 0}
    layers = {0: {start: 0}}
    for k in range(1, length + max_extra + 1):
        nxt = {}
        for p, z in layers[k - 1].items():
            for d in range(6):
                h = NBR[p, d]
                if h < 0 or DIST[start, h] != k or blocked[h] or not side_ok[p, d]:
                    continue
                v = z + int(zoc[h])
                if v < nxt.get(h, 1 << 30):
                    nxt[h] = v
        layers[k] = nxt

    def pri(h):
        if not zoc[h]:
            return 1
        if len(enemy_hexes) and all(DIST[h, e] >= DIST[start, e] + 1 for e in enemy_hexes):
            return 2
        return 3 if friendly[h] else 4

    if not layers[length]:
        return -1
    for k in range(length, length + max_extra + 1):
        cands = [h for h in layers[k] if load[h] + size <= limit]
        if cands:
            return min(cands, key=lambda h: (pri(h), layers[k][h], pref[h], h))
    return min(layers[length], key=lambda h: (pri(h), layers[length][h], pref[h], h))


@pytest.mark.parametrize("seed", range(40))
def test_rule_9_61_retreat_matches_brute_force(seed):
    rng = np.random.default_rng(200 + seed)
    side_ok = rng.random((N, 6)) < 0.85
    zoc = rng.random(N) < 0.35
    blocked = rng.random(N) < 0.12
    friendly = rng.random(N) < 0.3
    load = rng.integers(0, 9, size=N)
    start = int(rng.integers(N))
    enemy_hexes = np.array([j for j in NBR[start] if j >= 0][:2], dtype=np.int32)
    blocked[enemy_hexes] = True
    pref = rng.random(N)
    length = int(rng.integers(1, 4))
    size = int(rng.integers(1, 5))
    dest, zl, moved, pr = ref_paths.retreat_destination(NBR, side_ok, DIST, start, length, zoc, blocked, friendly,
                                                load, size, 8, enemy_hexes, pref, 2)
    want = py_retreat(side_ok, start, length, zoc, blocked, friendly, load, size, 8, enemy_hexes, pref, 2)
    assert dest == want
    if dest >= 0:
        assert DIST[start, dest] == moved >= length


def test_rule_9_86_advance_length():
    assert ref_paths.advance_length(0, 0, True, False, False) == 1
    assert ref_paths.advance_length(3, 0, True, False, False) == 2
    assert ref_paths.advance_length(3, 4, False, False, False) == 3
    assert ref_paths.advance_length(3, 0, False, True, False) == 1
    assert ref_paths.advance_length(3, 0, False, False, True) == 1


@pytest.mark.parametrize("seed", range(10))
def test_rule_10_11_discovery_matches_reference(seed):
    """Rule 10.11 (the one compiled version,
    ``combat_options.discovered_kernel``): adjacent always; two hexes away by
    day unless the target blocks or every hex between blocks."""
    from malta_sim.iod.rules.combat_options import discovered_kernel

    rng = np.random.default_rng(400 + seed)
    friendly = rng.random(N) < 0.1
    blocks = rng.random(N) < 0.3
    hx = np.flatnonzero(friendly).astype(np.int64)
    every = np.arange(N, dtype=np.int64)
    for day in (True, False):
        got = discovered_kernel(every, hx, DIST, NBR, blocks, not day)
        want = np.zeros(N, np.bool_)
        for i in np.flatnonzero(friendly):
            for t in range(N):
                if DIST[i, t] == 1:
                    want[t] = True
                elif DIST[i, t] == 2 and day and not blocks[t]:
                    mids = [m for m in range(N) if DIST[i, m] == 1 and DIST[m, t] == 1]
                    if not all(blocks[m] for m in mids):
                        want[t] = True
        assert np.array_equal(got, want)


def test_rule_5_1_zoc_map():
    exerts = np.zeros(N, np.bool_)
    h = GRID.index("0504")
    exerts[h] = True
    across = np.ones((N, 6, 2), np.bool_)
    across[h, 0, 1] = False  # e.g. a Creek with Rise to the north: foot only
    z = P.zoc_map(NBR, exerts, np.zeros(N, np.int8), across)
    assert z.sum() == 6 and not z[h]
    z = P.zoc_map(NBR, exerts, np.ones(N, np.int8), across)
    assert z.sum() == 5 and not z[NBR[h, 0]]


def test_rule_6_41_infiltration():
    st = numba_state(3, 0, "movement")
    res = [ref_paths.infiltration_roll(st, 4, True, False, False, False, False) for _ in range(600)]
    # succeeds on die >= 3: 4/6
    assert all(ok == (die >= 3) for ok, die in res)
    assert ref_paths.infiltration_probability(4, True, False, False, False, False) == pytest.approx(4 / 6)
    assert ref_paths.infiltration_probability(3, False, True, False, True, True) == 0
    from scipy import stats
    k = sum(ok for ok, _ in res)
    assert stats.binomtest(k, len(res), 4 / 6).pvalue > 1e-4  # false-alarm rate 1e-4


def test_engine_reach_kernel_agrees_on_packaged_map():
    """The land engine's half-MP movement kernel and movement_reach (on MAP's
    edge costs) give the same reachable hexes and MP on the packaged map."""
    static = pytest.importorskip("malta_sim.iod.static")
    mv = pytest.importorskip("malta_sim.iod.rules.movement")
    from malta_sim.loaders.iod_map import load_map

    t = static.load_static()
    m = load_map()
    n = m.grid.n_hexes
    rng = np.random.default_rng(0)
    land = np.flatnonzero(m.land)
    for trial in range(60):
        cls, strategic = trial % 3, trial % 5 == 0
        start = int(rng.choice(land))
        zoc = np.zeros(n, bool)
        zoc[rng.choice(land, 15)] = True
        blocked = np.zeros(n, bool)
        blocked[rng.choice(land, 10)] = True
        blocked[start] = False
        allowed = np.ones(n, bool)
        ma = int(rng.integers(1, 9))
        c1, _ = mv.reach_kernel(start, 2 * ma, cls, strategic, t.move_cost, t.strat_cost, t.road, t.creek, t.rise,
                                t.ocean_side, t.neighbours, t.road_cost, t.road_strat_cost, t.creek_cost, t.rise_cost,
                                zoc, blocked, np.zeros(n, bool), allowed, mv.ZOC_ENTER, mv.ZOC_EXIT)
        cost = (m.edge_cost_strategic if strategic else m.edge_cost)[:, :, cls].astype(np.float64)
        g, _ = ref_paths.movement_reach(m.neighbours, cost, start, float(ma), zoc, blocked, allowed,
                                float(mv.ZOC_ENTER[cls]), float(mv.ZOC_EXIT[cls]))
        reach = c1 < (1 << 27)
        assert np.array_equal(reach, np.isfinite(g))
        assert np.allclose(c1[reach] / 2, g[reach])
