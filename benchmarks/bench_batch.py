"""Batch-runner throughput: games per second per scenario and worker count.

    python benchmarks/bench_batch.py --games 40 --jobs 1 2 [--scenario hercules intro]

For each scenario and ``--jobs`` value it times :func:`malta_sim.run_games`
(after one warm-up game in this process, so its numba compilation and data
loading are not counted; with ``--jobs`` > 1 each fresh worker process still
loads them once, which dominates short runs), checks that every run returned the same frame, and prints games per
second.  It also times the runner's own cost per chunk with an engine that does
no work.  Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time

from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from malta_sim import run_games  # noqa: E402
from malta_sim.games.registry import GameBatchResult, ScenarioSpec, register, scenario_names  # noqa: E402


def play_nothing(scenario, seed, games, *, axis_policy, allied_policy, options, data_dir,
                 per_turn=False, event_log=False, policy_params=None):
    """An engine that plays no game: one constant row per index (runner overhead only)."""
    g = np.asarray(games, dtype=np.int64)
    return GameBatchResult(games=pd.DataFrame({"game": g, "winner": "axis", "end_reason": "surrender",
                                               "end_turn": 1}))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1942)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--scenario", nargs="+", default=None)
    a = ap.parse_args(argv)

    # The no-op engine runs in this process (n_jobs=1), found under its module name.
    sys.modules.setdefault("bench_batch", sys.modules[__name__])
    register(ScenarioSpec("bench-nothing", "none", "no-op engine", "bench_batch:play_nothing"))
    n = 20_000
    for chunk in (100, 1000):
        t = time.perf_counter()
        run_games("bench-nothing", n, 0, chunk_size=chunk)
        dt = time.perf_counter() - t
        print(f"runner overhead: {n} no-op games in chunks of {chunk}: {dt:.2f} s "
              f"({1e3 * dt / (n / chunk):.2f} ms per chunk)")

    for scen in a.scenario or [s for s in scenario_names() if s != "bench-nothing"]:
        run_games(scen, 1, a.seed)  # warm-up: compile kernels, load data
        ref = None
        for jobs in a.jobs:
            t = time.perf_counter()
            df = run_games(scen, a.games, a.seed, n_jobs=jobs)
            dt = time.perf_counter() - t
            same = "" if ref is None else ("  (same frame)" if df.equals(ref) else "  (FRAME DIFFERS)")
            ref = df if ref is None else ref
            print(f"{scen:>10}  jobs {jobs}: {a.games} games in {dt:6.1f} s = {a.games / dt:7.2f} games/s{same}")


if __name__ == "__main__":
    main()
