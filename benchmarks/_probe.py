"""Child-process probes used by ``benchmarks/run.py`` (run as a script, prints one JSON line).

    python benchmarks/_probe.py setup SCENARIO SEED
        Fresh-process set-up cost: import time, data load, first game (numba
        cache load or compilation), the same game again (steady play time).
    python benchmarks/_probe.py memory real N SEED CKPT_DIR OUT_FILE
        ``run_games("hercules", N, checkpoint=CKPT_DIR)`` streamed to disk, then
        the frame written to OUT_FILE; reports this process's peak RSS.
    python benchmarks/_probe.py memory replay N SEED CKPT_DIR OUT_FILE ROWS_FILE
        The same run with an engine that replays real Hercules result rows from
        ROWS_FILE (Parquet) instead of playing: measures what the runner itself
        holds for N games (frames, checkpoint files) at full size without the
        cost of playing them.

Peak memory is the process's peak RSS (``VmHWM``; ``getrusage`` where there is no /proc).
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _maxrss_bytes() -> int:
    """Peak resident set size of this process, bytes.

    Linux: ``VmHWM`` of ``/proc/self/status``.  ``getrusage(RUSAGE_SELF).ru_maxrss``
    is not used there because Linux keeps it across ``execve``, so a child
    started by a big parent would report the parent's peak; elsewhere
    ``ru_maxrss`` (KiB on Linux/BSD, bytes on macOS).
    """
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(r) * (1 if sys.platform == "darwin" else 1024)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


_REPLAY_ROWS = None


def replay_games(scenario, seed, games, *, axis_policy, allied_policy, options, data_dir,
                 per_turn=False, event_log=False, policy_params=None):
    """A ``play_games`` stand-in: real Hercules rows, cycled, with the game index replaced."""
    import numpy as np

    from malta_sim.games.registry import GameBatchResult

    g = np.asarray(games, dtype=np.int64)
    rows = _REPLAY_ROWS.iloc[g % len(_REPLAY_ROWS)].reset_index(drop=True).copy()
    rows["game"] = g
    return GameBatchResult(games=rows, provenance={"engine": "replay"})


def probe_setup(scenario: str, seed: int) -> dict:
    t0 = time.perf_counter()
    c0 = _cpu()
    from malta_sim.batch import run_games
    from malta_sim.games.registry import get_scenario

    get_scenario(scenario)  # imports the engine package
    from malta_sim.iod import engine

    t1 = time.perf_counter()
    engine._static_cached(None)
    t2 = time.perf_counter()
    run_games(scenario, 1, seed)
    t3 = time.perf_counter()
    c3 = _cpu()
    run_games(scenario, 1, seed)  # the very same game: now only play time
    t4 = time.perf_counter()
    c4 = _cpu()
    first, again = t3 - t2, t4 - t3
    return {
        "scenario": scenario,
        "import_s": t1 - t0,
        "data_load_s": t2 - t1,
        "first_game_s": first,
        "same_game_again_s": again,
        "numba_and_lazy_setup_s": max(0.0, first - again),
        "setup_total_s": (t1 - t0) + (t2 - t1) + max(0.0, first - again),
        "setup_cpu_s": (c3 - c0) - (c4 - c3),
    }


def probe_memory(mode: str, n: int, seed: int, ckpt: str, out: str, rows_file: str | None) -> dict:
    global _REPLAY_ROWS
    from malta_sim.batch import run_games, write_frame

    scenario = "hercules"
    if mode == "replay":
        import pandas as pd

        from malta_sim.games.registry import ScenarioSpec, register

        _REPLAY_ROWS = pd.read_parquet(rows_file)
        _REPLAY_ROWS = _REPLAY_ROWS[[c for c in _REPLAY_ROWS.columns
                                     if c not in ("seed", "scenario", "axis_policy", "allied_policy",
                                                  "options", "policy_params")]]
        sys.modules.setdefault("_probe", sys.modules[__name__])
        register(ScenarioSpec("bench-replay", "island_of_death", "replayed Hercules rows", "_probe:replay_games"))
        scenario = "bench-replay"
    base = _maxrss_bytes()
    t = time.perf_counter()
    df = run_games(scenario, n, seed, checkpoint=ckpt)
    write_frame(df, out)
    return {"mode": mode, "games": n, "wall_s": time.perf_counter() - t,
            "rss_before_run_bytes": base, "peak_rss_bytes": _maxrss_bytes(), "rows": len(df)}


def main(argv: list[str]) -> None:
    if argv[0] == "setup":
        res = probe_setup(argv[1], int(argv[2]))
    elif argv[0] == "memory":
        res = probe_memory(argv[1], int(argv[2]), int(argv[3]), argv[4], argv[5], argv[6] if len(argv) > 6 else None)
    else:
        raise SystemExit(f"unknown probe {argv[0]!r}")
    print("PROBE " + json.dumps(res))


if __name__ == "__main__":
    main(sys.argv[1:])
