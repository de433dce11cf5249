"""How much of a game is spent inside the compiled kernels: the floor the
Python orchestration sits on.

    python benchmarks/kernel_share.py [--scenario hercules] [--games 60] [--top 10]

Plays ``--games`` seeded games of each scenario under its default bots twice
in one process, after a warm-up block that loads every kernel the games use
from the numba cache: once as they are, once with every compiled function of
the package that Python calls (each ``numba`` dispatcher bound at a module's
top level) timed by a thin wrapper.  It prints, per game, the wall time of
both passes, the time inside compiled calls (argument dispatch and boxing
included; the wrapper adds about 0.15 us per call) and their number, and the
kernels that take the most; then what a call of a compiled function that
does nothing costs, with no argument and with 37 arrays.

Compiled code calling compiled code is bound when it is typed, so the
wrappers see only the calls made from Python, and the warm-up makes sure no
kernel is typed while they are in place.  Nothing is asserted; the figures
feed ``docs/performance.md`` ("Where a game's time goes").
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _dispatchers() -> list[tuple[object, str, object]]:
    """``(module, name, dispatcher)`` for every numba dispatcher bound at the
    top level of a ``malta_sim`` module (the CLI apart)."""
    from numba.core.dispatcher import Dispatcher

    import malta_sim

    out = []
    for info in pkgutil.walk_packages(malta_sim.__path__, "malta_sim."):
        if info.name.startswith("malta_sim.cli") or info.name.endswith("__main__"):
            continue
        try:
            mod = importlib.import_module(info.name)
        except Exception:          # optional extras (e.g. the map generator) may be missing
            continue
        out.extend((mod, k, v) for k, v in vars(mod).items() if isinstance(v, Dispatcher))
    return out


def kernel_share(scenario: str = "hercules", n_games: int = 60, seed: int = 1942, warm_games: int = 40) -> dict:
    """Measure one scenario; returns ``{"scenario", "games", "plain_ms",
    "wrapped_ms", "kernel_ms", "kernel_calls", "kernels"}``, the times in
    ms per game and ``kernels`` a list of ``{"kernel", "calls", "us_per_call",
    "ms"}`` (per game), largest first."""
    import numpy as np

    from malta_sim.games.registry import get_scenario

    spec = get_scenario(scenario)
    play = spec.play_fn()
    kw = dict(axis_policy=spec.axis_policies[0], allied_policy=spec.allied_policies[0], options=(), data_dir=None)
    play(scenario, seed + 1, np.arange(warm_games), **kw)       # every kernel loaded (or compiled) now
    games = np.arange(n_games)
    t = time.perf_counter()
    play(scenario, seed, games, **kw)
    plain = time.perf_counter() - t

    acc: dict[str, list] = {}
    clock = time.perf_counter

    def timed(name, disp):
        def call(*a, **k):
            t0 = clock()
            try:
                return disp(*a, **k)
            finally:
                e = acc.get(name)
                if e is None:
                    e = acc[name] = [0, 0.0, 0]
                e[0] += 1
                e[1] += clock() - t0
                e[2] += len(a) + len(k)
        return call

    bound = _dispatchers()
    try:
        for mod, name, disp in bound:
            setattr(mod, name, timed(name, disp))
        t = time.perf_counter()
        play(scenario, seed, games, **kw)
        wrapped = time.perf_counter() - t
    finally:
        for mod, name, disp in bound:
            setattr(mod, name, disp)
    rows = sorted(({"kernel": k, "calls": c / n_games, "us_per_call": 1e6 * s / c, "ms": 1e3 * s / n_games,
                    "args": n_args / n_games}
                   for k, (c, s, n_args) in acc.items()), key=lambda r: -r["ms"])
    return {"scenario": scenario, "games": n_games, "plain_ms": 1e3 * plain / n_games,
            "wrapped_ms": 1e3 * wrapped / n_games, "kernel_ms": sum(r["ms"] for r in rows),
            "kernel_calls": sum(r["calls"] for r in rows), "kernel_args": sum(r["args"] for r in rows),
            "kernels": rows}


def dispatch_cost(n_arrays: int = 37, repeat: int = 20000) -> dict:
    """The cost of calling a compiled function from Python that does
    nothing: ``{"no_args_us", "arrays_us", "n_arrays", "per_array_us"}``,
    with no argument and with ``n_arrays`` small float64 arrays (the
    argument typing and unboxing every kernel call pays)."""
    import numba as nb
    import numpy as np

    @nb.njit
    def nothing():
        return 1

    @nb.njit
    def nothing_of(*arrays):
        return 1

    arrays = [np.zeros(5) for _ in range(n_arrays)]
    nothing()
    nothing_of(*arrays)

    def best(f, *a):
        runs = []
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(repeat):
                f(*a)
            runs.append((time.perf_counter() - t) / repeat * 1e6)
        return min(runs)

    bare, many = best(nothing), best(nothing_of, *arrays)
    return {"no_args_us": bare, "arrays_us": many, "n_arrays": n_arrays,
            "per_array_us": (many - bare) / n_arrays}


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", action="append", help="scenario (repeatable; default: intro and hercules)")
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--top", type=int, default=10)
    a = ap.parse_args(argv)
    out = []
    for scen in a.scenario or ["hercules", "intro"]:
        r = kernel_share(scen, a.games)
        out.append(r)
        print(f"{scen}: {r['plain_ms']:.2f} ms per game ({r['wrapped_ms']:.2f} with the timers); "
              f"inside compiled calls {r['kernel_ms']:.2f} ms in {r['kernel_calls']:.0f} calls "
              f"({100 * r['kernel_ms'] / r['wrapped_ms']:.0f}%), {r['kernel_args']:.0f} arguments passed")
        for k in r["kernels"][:a.top]:
            print(f"   {k['kernel']:32s} {k['calls']:7.1f} calls {k['us_per_call']:7.1f} us/call {k['ms']:6.2f} ms")
    d = dispatch_cost()
    print(f"a call of a compiled function doing nothing: {d['no_args_us']:.2f} us with no argument, "
          f"{d['arrays_us']:.2f} us with {d['n_arrays']} arrays ({d['per_array_us']:.3f} us an array)")
    return out


if __name__ == "__main__":
    main()
