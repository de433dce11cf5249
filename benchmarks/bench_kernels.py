"""Kernel throughput: resolutions per second on one core for each compiled
kernel, and its speed-up over the plain-Python reference measured in the same
run.

Run:  python benchmarks/bench_kernels.py [--quick]
Use from code:  ``from benchmarks.bench_kernels import run_benchmarks``;
``run_benchmarks(quick=True)`` returns a list of dicts
``{kernel, n_compiled, compiled_per_s, n_python, python_per_s, speedup}``.

Compilation is excluded (each kernel is called once before timing), and each
figure is the best of :data:`REPEAT` timed calls; numba kernels run
single-threaded, so the figures are per core.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numba as nb
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from malta_sim.kernels import bombard as B  # noqa: E402
from malta_sim.kernels import crt as C  # noqa: E402
from malta_sim.kernels import drop as D  # noqa: E402
from malta_sim.kernels import los as L  # noqa: E402
from malta_sim.kernels import paths as P  # noqa: E402
from malta_sim.loaders.iod_charts import load_charts  # noqa: E402
from malta_sim.loaders.iod_map import load_map  # noqa: E402
from malta_sim.rng import numba_states  # noqa: E402
from tests.oracles import kernels as ref
from tests.oracles import paths as ref_paths  # noqa: E402


@nb.njit(cache=True)
def _bomb_loop(states, strength, stack, bomb, cols, mins, out):
    for g in range(states.shape[0]):
        out[g] = B.roll_bombardment(states[g], strength[g], stack[g], 0, bomb, cols, mins)[2]


@nb.njit(cache=True)
def _reach_loop(nbr, cost, starts, zoc, blocked, allowed, out):
    for k in range(starts.shape[0]):
        g, _ = ref_paths.movement_reach(nbr, cost, starts[k], 6.0, zoc, blocked, allowed, 2.0, 2.0)
        c = 0
        for i in range(g.shape[0]):
            if g[i] < np.inf:
                c += 1
        out[k] = c


@nb.njit(cache=True)
def _supply_loop(nbr, across, sources_idx, enemy, zoc, friendly, out):
    n = nbr.shape[0]
    for k in range(sources_idx.shape[0]):
        s = np.zeros(n, dtype=np.bool_)
        s[sources_idx[k]] = True
        d = P.supply_field(nbr, across, s, enemy, zoc, friendly, 12)
        out[k] = d.max()


@nb.njit(cache=True)
def _los_loop(axial, nbr, a, b, hb, sb, c0, r0, nc, nr, out):
    for k in range(a.shape[0]):
        out[k] = L.line_of_fire(axial, nbr, a[k], b[k], hb, sb, c0, r0, nc, nr)


#: Timed calls per figure; the best one counts.  The first call over fresh
#: arrays also pays the operating system's first touch of their memory pages
#: (1.5x-4x slower for the combat batch), which is not the kernel's speed.
REPEAT = 3


def _rate(fn, n, repeat: int = REPEAT):
    """Items per second of ``fn`` (which handles ``n`` items per call): the
    best of ``repeat`` timed calls."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return n / best


def run_benchmarks(quick: bool = False) -> list[dict]:
    """Measure every kernel; returns one dict per kernel (see module docstring)."""
    import networkx as nx

    from malta_sim.hexgrid import IOD_GRID

    ch = load_charts()
    m = load_map()
    rng = np.random.default_rng(0)
    scale = 1 if quick else 10
    rows = []

    def add(name, nc, rc, npy, rp):
        rows.append({"kernel": name, "n_compiled": nc, "compiled_per_s": rc, "n_python": npy, "python_per_s": rp,
                     "speedup": rc / rp})

    # --- combat ---------------------------------------------------------
    n = 100_000 * scale
    st = numba_states(1, range(n), "combat")
    att = rng.integers(1, 40, n)
    dfn = rng.integers(1, 30, n)
    sh = rng.integers(-3, 4, n)
    line = rng.integers(0, 4, n)
    fort = np.zeros(n, np.bool_)
    out = np.zeros((n, 6), np.int64)
    C.roll_combat_many(st[:10], att[:10], dfn[:10], sh[:10], line[:10], fort[:10], ch.crt, ch.line_cols,
                       ch.col_level, out[:10])
    rc = _rate(lambda: C.roll_combat_many(st, att, dfn, sh, line, fort, ch.crt, ch.line_cols, ch.col_level, out), n)
    npy = 5_000 * scale
    crt_l = ch.crt.tolist()
    lc, cl = ch.line_cols.tolist(), ch.col_level.tolist()
    pr = np.random.default_rng(1)

    def py_crt():
        for i in range(npy):
            roll = int(pr.integers(1, 7)) + int(pr.integers(1, 7))
            ref.py_resolve_combat(att[i], dfn[i], sh[i], line[i], False, roll, crt_l, lc, cl)

    add("combat (CRT)", n, rc, npy, _rate(py_crt, npy))

    # --- bombardment ----------------------------------------------------
    strength = rng.integers(1, 30, n).astype(np.int64)
    stack = rng.integers(1, 6, n).astype(np.int64)
    bo = np.zeros(n, np.int64)
    _bomb_loop(st[:10], strength[:10], stack[:10], ch.bomb, ch.bomb_columns, ch.bomb_min_strength, bo[:10])
    rc = _rate(lambda: _bomb_loop(st, strength, stack, ch.bomb, ch.bomb_columns, ch.bomb_min_strength, bo), n)
    bl = ch.bomb.tolist()
    bcols, bmins = ch.bomb_columns.tolist(), ch.bomb_min_strength.tolist()

    def py_bomb():
        for i in range(npy):
            roll = int(pr.integers(1, 7)) + int(pr.integers(1, 7))
            ref.py_resolve_bombardment(int(strength[i]), int(stack[i]), 0, roll, bl, bcols, bmins)

    add("bombardment", n, rc, npy, _rate(py_bomb, npy))

    # --- drop zone marker (with re-rolls) ----------------------------------
    h = m.grid.index("1313")
    aa = np.ones(m.grid.n_hexes, dtype=np.int32)
    nd = 50_000 * scale
    sd = numba_states(2, range(nd), "scatter")
    od = np.zeros(nd, np.int32)
    args = (m.ocean, m.neighbours, ch.drop_roll_min, ch.drop_roll_max, ch.drop_marker, ch.drop_stick, ch.scatter_dir)
    D.drop_marker_many(sd[:10], h, False, aa, True, *args, False, od[:10])
    rc = _rate(lambda: D.drop_marker_many(sd, h, False, aa, True, *args, False, od), nd)
    npd = 2_000 * scale
    add("drop marker", nd, rc, npd,
        _rate(lambda: [ref.py_drop_marker(pr, h, False, aa, True, m.ocean, m.neighbours, ch) for _ in range(npd)], npd))

    # --- movement reach (vs networkx Dijkstra) --------------------------------
    nbr = m.neighbours
    cost = np.ascontiguousarray(m.edge_cost[:, :, 0]).astype(np.float64)
    land = np.flatnonzero(m.land)
    nm = 2_000 * scale
    starts = rng.choice(land, nm).astype(np.int64)
    zoc = np.zeros(m.grid.n_hexes, np.bool_)
    zoc[rng.choice(land, 20)] = True
    blocked = np.zeros_like(zoc)
    allowed = np.ones_like(zoc)
    om = np.zeros(nm, np.int64)
    _reach_loop(nbr, cost, starts[:2], zoc, blocked, allowed, om[:2])
    rc = _rate(lambda: _reach_loop(nbr, cost, starts, zoc, blocked, allowed, om), nm)
    G = nx.DiGraph()
    for i in range(m.grid.n_hexes):
        for d in range(6):
            j = nbr[i, d]
            if j >= 0 and np.isfinite(cost[i, d]) and not (zoc[i] and zoc[j]):
                G.add_edge(i, j, weight=cost[i, d] + 2 * zoc[i] + 2 * zoc[j])
    npm = 100 * scale
    add("movement reach", nm, rc, npm,
        _rate(lambda: [nx.single_source_dijkstra_path_length(G, int(s), cutoff=6.0) for s in starts[:npm]], npm))

    # --- supply trace (vs networkx BFS) -------------------------------------------
    across = m.supply_across
    enemy = np.zeros_like(zoc)
    friendly = np.zeros_like(zoc)
    os_ = np.zeros(nm, np.int64)
    _supply_loop(nbr, across, starts[:2], enemy, zoc, friendly, os_[:2])
    rc = _rate(lambda: _supply_loop(nbr, across, starts, enemy, zoc, friendly, os_), nm)
    H = nx.DiGraph()
    for i in range(m.grid.n_hexes):
        for d in range(6):
            j = nbr[i, d]
            if j >= 0 and across[i, d] and not zoc[j]:
                H.add_edge(i, j)
    add("supply trace", nm, rc, npm,
        _rate(lambda: [nx.single_source_shortest_path_length(H, int(s), cutoff=12) for s in starts[:npm]], npm))

    # --- line of fire ----------------------------------------------------------
    nl = 50_000 * scale
    a = rng.integers(0, m.grid.n_hexes, nl)
    b = rng.integers(0, m.grid.n_hexes, nl)
    ax = m.grid.axial.astype(np.int32)
    g = IOD_GRID
    bounds = (g.col_min, g.row_min, g.n_cols, g.n_rows)
    ol = np.zeros(nl, np.bool_)
    hb, sb = m.blocks_line_of_fire, m.side_blocks_line_of_fire
    _los_loop(ax, nbr, a[:2], b[:2], hb, sb, *bounds, ol[:2])
    rc = _rate(lambda: _los_loop(ax, nbr, a, b, hb, sb, *bounds, ol), nl)
    npl = 500 * scale
    ids = g.hex_ids
    add("line of fire", nl, rc, npl,
        _rate(lambda: [ref.py_line_of_fire(g, ids[a[i]], ids[b[i]], hb, sb) for i in range(npl)], npl))
    return rows


def main(argv=None) -> None:
    quick = "--quick" in (argv if argv is not None else sys.argv[1:])
    rows = run_benchmarks(quick=quick)
    print(f"{'kernel':<16} {'compiled /s/core':>17} {'python ref /s':>14} {'speed-up':>9}")
    for r in rows:
        print(f"{r['kernel']:<16} {r['compiled_per_s']:>17,.0f} {r['python_per_s']:>14,.0f} {r['speedup']:>8.0f}x")


if __name__ == "__main__":
    main()
