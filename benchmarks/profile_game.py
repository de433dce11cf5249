"""Profile Island of Death games with cProfile: where does a game's time go?

    python benchmarks/profile_game.py [--scenario hercules] [--games 5] [--top 30] [--out FILE.prof]

Plays ``--warm`` warm-up games (default 10: imports, data load and the
numba cache load of every kernel the games use are not profiled; with a
single warm-up game some kernels are first loaded inside the profile, tens
of milliseconds each), then ``--games`` games of the scenario under its default bots (the
first policies the registry lists) inside ``cProfile``, and prints the functions with the largest own time and
the largest cumulative time, plus the share of time per engine module.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def profile_games(scenario: str = "hercules", n_games: int = 5, seed: int = 1942, warm: int = 10):
    """Profile ``n_games`` games after ``warm`` unprofiled ones (another seed);
    returns ``(pstats.Stats, wall seconds, cpu seconds)``."""
    import numpy as np

    from malta_sim.games.registry import get_scenario

    spec = get_scenario(scenario)
    play = spec.play_fn()
    kw = dict(axis_policy=spec.axis_policies[0], allied_policy=spec.allied_policies[0], options=(), data_dir=None)
    play(scenario, seed + 1, np.arange(max(1, warm)), **kw)  # warm-up: kernels loaded
    pr = cProfile.Profile()
    t, c = time.perf_counter(), time.process_time()
    pr.enable()
    play(scenario, seed, np.arange(n_games), **kw)
    pr.disable()
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    return pstats.Stats(pr), wall, cpu


def module_shares(stats: pstats.Stats) -> list[tuple[str, float]]:
    """Own time per source file (shortened path), largest first."""
    per = defaultdict(float)
    for (file, _line, _fn), (_cc, _nc, tt, _ct, _callers) in stats.stats.items():
        f = file.replace(str(Path(__file__).resolve().parent.parent) + "/", "")
        if "site-packages/" in f:
            f = "site-packages/" + f.split("site-packages/", 1)[1].split("/", 1)[0]
        elif f.startswith("~") or f.startswith("<"):
            f = "builtins / C functions"
        per[f] += tt
    return sorted(per.items(), key=lambda kv: -kv[1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="hercules")
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--warm", type=int, default=10, help="unprofiled warm-up games first")
    ap.add_argument("--out", default=None, help="also dump the raw profile (.prof)")
    a = ap.parse_args(argv)
    stats, wall, cpu = profile_games(a.scenario, a.games, warm=a.warm)
    if a.out:
        stats.dump_stats(a.out)
    total = sum(v[2] for v in stats.stats.values())
    print(f"{a.games} {a.scenario} games: {wall:.2f} s wall, {cpu:.2f} s CPU under the profiler "
          f"({cpu / a.games:.3f} CPU-s per game)")
    print("\nown time by file:")
    for f, tt in module_shares(stats)[:20]:
        print(f"  {100 * tt / total:5.1f}%  {f}")
    stats.strip_dirs()
    for key in ("tottime", "cumulative"):
        buf = io.StringIO()
        stats.stream = buf
        stats.sort_stats(key).print_stats(a.top)
        print(f"\n--- top {a.top} by {key} ---")
        print(buf.getvalue().split("\n\n", 2)[-1])


if __name__ == "__main__":
    main()
