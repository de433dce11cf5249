"""malta_sim performance benchmark: games/s, set-up time, memory, kernels, warm start.

    python benchmarks/run.py [--quick] [--json FILE] [--docs docs/performance.md] [--no-docs]
    python benchmarks/run.py --from-json FILE      # re-render the docs table only
    python benchmarks/run.py --against REV [--quick]   # REV and this checkout, timed alternately
                                                       # in one process (benchmarks/interleaved.py)
    python benchmarks/run.py --against REV --identical [--quick]   # the same, on the games both
                                                       # versions play alike (like for like)

What it measures (everything printed, nothing asserted):

* **games/s** for the Introductory Scenario (``intro``) and Operation Hercules
  (``hercules``) under the default bots, through
  :func:`malta_sim.batch.run_games` with 1 and 2 worker processes.  Set-up
  (imports, data load, numba cache load or compilation) is excluded by a
  warm-up call first (for 2 workers: a warm-up that gives each loky worker a
  game), and measured apart in a fresh process (``setup`` section).  Besides
  wall-clock games/s it records the CPU seconds the whole process tree used
  (``/proc``; Linux only) and the load average, because a shared machine
  slows wall-clock figures down.
* **peak memory of a 100,000-game Hercules run streamed to disk** (checkpoint
  directory + Parquet output, 1 worker).  Playing 100,000 games is not
  affordable at the present engine speed, so it runs (a) the real engine for
  ``N`` games and (b) the same runner at the full 100,000 games with an
  engine that replays real result rows (what the runner holds grows with the
  number of games; what the engine holds does not, each game being set up
  afresh).  Estimate = peak(a) + peak(b at 100,000) - peak(b at N).  Both
  sizes are reported.  Peak RSS is read in a child process
  (``benchmarks/_probe.py``: ``VmHWM`` of ``/proc/self/status``;
  ``resource.getrusage`` where there is no ``/proc``; Linux's ``ru_maxrss``
  survives ``execve`` and would report the parent's peak).
* **kernels**: resolutions/s on one core and speed-up over the plain-Python
  reference, from :func:`benchmarks.bench_kernels.run_benchmarks`, timed on
  this process's CPU time (the kernels are single-threaded, so CPU seconds
  are core seconds and a loaded machine does not distort the rate), best of
  three calls; the wall-clock rates are kept as ``per_s_wall`` and the first
  (cold) call's as ``per_s_cold``.
* **warm start** of ``malta-sim run --scenario hercules --games 1`` in a fresh
  process with the numba cache on disk (best of a few runs, after one run that
  fills the cache), with the count of numba functions compiled vs loaded
  from the cache (``NUMBA_DEBUG_CACHE``).

``--json FILE`` writes ``machine``, ``games`` (list of ``{scenario, workers,
games_per_s, ...}``), ``kernels`` (list of ``{kernel, per_s_per_core,
speedup_vs_reference}``), ``peak_memory_gib_100k``, ``warm_start_s`` plus the
details.  The results table in ``docs/performance.md`` between the
``<!-- results:start -->`` and ``<!-- results:end -->`` markers is rewritten
unless ``--no-docs``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROBE = Path(__file__).resolve().parent / "_probe.py"
DOCS = ROOT / "docs" / "performance.md"
MARK_START, MARK_END = "<!-- results:start -->", "<!-- results:end -->"
SEED = 1942

#: The targets of issue 10 (measured here, never asserted).
TARGETS = {
    "hercules_games_per_s_2_workers": 300.0,
    "intro_games_per_s_2_workers": 1000.0,
    "peak_memory_gib_100k": 2.0,
    "warm_start_s": 5.0,
    "combat_per_s_per_core": 20e6,
}


@dataclass(frozen=True)
class Sizes:
    """How much work each measurement does (games are counted per scenario and worker count)."""

    games: dict  # scenario -> games per timed run
    memory_games: int  # real-engine games in the memory run
    memory_full: int  # games in the replayed full-size run
    warm_start_runs: int
    kernels_quick: bool


QUICK = Sizes(games={"intro": 10, "hercules": 20}, memory_games=50, memory_full=100_000, warm_start_runs=2,
              kernels_quick=True)
FULL = Sizes(games={"intro": 100, "hercules": 200}, memory_games=1000, memory_full=100_000, warm_start_runs=3,
             kernels_quick=False)


# --------------------------------------------------------------------------- helpers


def machine_info() -> dict:
    """Machine details: CPU model, logical cores, memory, OS, Python and library versions."""
    import numba
    import numpy

    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    return {
        "cpu": cpu,
        "logical_cores": os.cpu_count(),
        "usable_cores": affinity,
        "memory_gib": mem,
        "os": platform.platform(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "numba": numba.__version__,
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def _proc_cpu(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds() -> dict[int, float]:
    """CPU seconds (user + system) of this process and every live descendant, by pid (Linux /proc)."""
    me = os.getpid()
    parent = {}
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return {}
    for p in pids:
        try:
            parent[p] = int(Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    out = {}
    for p in pids:
        q, seen = p, 0
        while q in parent and q != me and seen < 64:
            q, seen = parent[q], seen + 1
        if q == me:
            c = _proc_cpu(p)
            if c is not None:
                out[p] = c
    return out


def _cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(v - before.get(p, 0.0) for p, v in after.items())


def _probe(args: list[str], env: dict | None = None, timeout: float = 3600) -> dict:
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([sys.executable, str(PROBE), *args], cwd=ROOT, capture_output=True, text=True,
                       env=e, timeout=timeout)
    for line in r.stdout.splitlines():
        if line.startswith("PROBE "):
            return json.loads(line[6:])
    raise RuntimeError(f"probe {args} failed (exit {r.returncode}): {r.stderr[-2000:]}")


# --------------------------------------------------------------------------- measurements


def bench_games(scenario: str, workers: int, n_games: int, seed: int = SEED) -> dict:
    """Games per second of ``run_games(scenario, n_games, seed, n_jobs=workers)`` after a warm-up.

    Returns
    -------
    dict
        ``scenario, workers, games, wall_s, games_per_s, cpu_s, games_per_cpu_s,
        load_average`` (1-minute load average after the run).  ``cpu_s`` is the
        CPU time of this process and its worker processes during the timed run.
    """
    from malta_sim.batch import run_games

    # Warm-up: data, numba cache; with workers > 1 one game per chunk so every
    # loky worker (kept alive by joblib between calls) sets itself up.
    run_games(scenario, max(1, workers * 2), seed + 1, n_jobs=workers, chunk_size=1)
    c0 = tree_cpu_seconds()
    t0 = time.perf_counter()
    chunk = max(1, -(-n_games // (4 * workers))) if workers > 1 else None
    run_games(scenario, n_games, seed, n_jobs=workers, chunk_size=chunk)
    wall = time.perf_counter() - t0
    cpu = _cpu_used(c0, tree_cpu_seconds())
    return {
        "scenario": scenario,
        "workers": workers,
        "games": n_games,
        "wall_s": wall,
        "games_per_s": n_games / wall,
        "cpu_s": cpu,
        "games_per_cpu_s": n_games / cpu if cpu > 0 else None,
        "idle_estimate_games_per_s": _idle_estimate(workers, n_games / cpu if cpu > 0 else None),
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


def _idle_estimate(workers: int, games_per_cpu_s: float | None) -> float | None:
    """Games/s an idle machine of this kind would give: one core's CPU rate times
    the worker processes that can run at once (an upper bound: perfect scaling)."""
    if games_per_cpu_s is None:
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return games_per_cpu_s * min(workers, cores)


def bench_setup(scenario: str, seed: int = SEED) -> dict:
    """Set-up cost in a fresh process: imports, data load, numba cache load (see ``_probe.py setup``)."""
    return _probe(["setup", scenario, str(seed)])


def bench_memory(n_real: int, n_full: int = 100_000, seed: int = SEED, workdir: str | None = None) -> dict:
    """Peak RSS of a Hercules run streamed to disk; estimate for ``n_full`` games (module docstring).

    Returns
    -------
    dict
        ``real`` and ``replay_small``/``replay_full`` probe results and
        ``peak_memory_gib_full`` (the estimate), ``measured_games`` and ``full_games``.
    """
    with tempfile.TemporaryDirectory(dir=workdir) as d:
        d = Path(d)
        real = _probe(["memory", "real", str(n_real), str(seed), str(d / "ck_real"), str(d / "real.parquet")])
        rows = str(d / "real.parquet")
        small = _probe(["memory", "replay", str(n_real), str(seed), str(d / "ck_small"), str(d / "small.parquet"), rows])
        full = _probe(["memory", "replay", str(n_full), str(seed), str(d / "ck_full"), str(d / "full.parquet"), rows])
    est = real["peak_rss_bytes"] + max(0, full["peak_rss_bytes"] - small["peak_rss_bytes"])
    return {"real": real, "replay_small": small, "replay_full": full, "measured_games": n_real,
            "full_games": n_full, "peak_memory_gib_full": est / 2**30}


def bench_warm_start(runs: int = 3, scenario: str = "hercules", workdir: str | None = None) -> dict:
    """Wall time of ``python -m malta_sim run --scenario S --games 1`` in fresh processes.

    One run first fills the numba cache (if needed); then ``runs`` timed runs,
    the best reported (the least disturbed by other load).  The last run sets
    ``NUMBA_DEBUG_CACHE=1`` to count functions compiled and saved vs loaded.
    """
    import resource

    with tempfile.TemporaryDirectory(dir=workdir) as d:
        out = str(Path(d) / "one.parquet")
        cmd = [sys.executable, "-m", "malta_sim", "run", "--scenario", scenario, "--games", "1", "--seed", str(SEED),
               "--out", out, "--overwrite", "-q"]           # the same file each run
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
        times, cpus = [], []
        for _ in range(runs):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
            times.append(time.perf_counter() - t)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
        env = dict(os.environ, NUMBA_DEBUG_CACHE="1")
        r = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True, env=env)
        text = r.stdout + r.stderr
    return {
        "command": "malta-sim run --scenario %s --games 1 --seed %d --out FILE -q" % (scenario, SEED),
        "runs_s": times,
        "warm_start_s": min(times),
        "cpu_s": cpus,
        "numba_compiled": len(re.findall(r"\[cache\] data saved", text)),
        "numba_loaded_from_cache": len(re.findall(r"\[cache\] data loaded", text)),
    }


def bench_kernels(quick: bool) -> list[dict]:
    """Kernel rates from ``benchmarks/bench_kernels.py``, renamed to the JSON keys of issue 10.

    Its timer is swapped for one that counts this process's CPU time
    (``time.process_time``), takes the best of three calls of each compiled
    kernel (steady state; the first call's rate is kept as ``per_s_cold``) and
    also notes the wall-clock rate.
    """
    import benchmarks.bench_kernels as bk

    walls: list[float] = []
    cold: list[float] = []
    calls = [0]

    def cpu_rate(fn, n):
        # even calls time a compiled kernel: best of 3 (the first call also
        # pays page faults on fresh output arrays; reported as ``per_s_cold``);
        # odd calls time the plain-Python reference once.
        reps = 3 if calls[0] % 2 == 0 else 1
        calls[0] += 1
        best_cpu, best_wall = float("inf"), float("inf")
        for i in range(reps):
            t, c = time.perf_counter(), time.process_time()
            fn()
            dc, dw = max(time.process_time() - c, 1e-9), time.perf_counter() - t
            if i == 0 and reps > 1:
                cold.append(n / dc)
            best_cpu, best_wall = min(best_cpu, dc), min(best_wall, dw)
        walls.append(n / best_wall)
        return n / best_cpu

    orig = bk._rate
    bk._rate = cpu_rate
    try:
        rows = bk.run_benchmarks(quick=quick)
    finally:
        bk._rate = orig
    # _rate is called twice per kernel: compiled, then the reference.
    wall_c = walls[0::2]
    return [{"kernel": r["kernel"], "per_s_per_core": r["compiled_per_s"], "speedup_vs_reference": r["speedup"],
             "reference_per_s": r["python_per_s"], "per_s_wall": wall_c[i] if i < len(wall_c) else None,
             "per_s_cold": cold[i] if i < len(cold) else None,
             "n_compiled": r["n_compiled"], "n_reference": r["n_python"]}
            for i, r in enumerate(rows)]


# --------------------------------------------------------------------------- report


def run_all(sizes: Sizes, scenarios=("intro", "hercules"), workers=(1, 2), kernels=True, memory=True,
            warm_start=True, log=print) -> dict:
    """Every measurement; returns the JSON-able result dict (see module docstring)."""
    res: dict = {"machine": machine_info(), "quick": sizes is QUICK, "sizes": {
        "games": sizes.games, "memory_games": sizes.memory_games, "memory_full": sizes.memory_full}}
    log(f"machine: {res['machine']['cpu']}, {res['machine']['usable_cores']} cores, "
        f"load average {res['machine']['load_average_at_start']}")
    res["setup"] = []
    for sc in scenarios:
        s = bench_setup(sc)
        res["setup"].append(s)
        log(f"setup {sc}: import {s['import_s']:.2f} s, data {s['data_load_s']:.2f} s, numba/lazy "
            f"{s['numba_and_lazy_setup_s']:.2f} s (first game {s['first_game_s']:.2f} s, same game again "
            f"{s['same_game_again_s']:.2f} s)")
    res["games"] = []
    for sc in scenarios:
        for w in workers:
            g = bench_games(sc, w, sizes.games[sc])
            res["games"].append(g)
            log(f"games {sc} x{w}: {g['games']} games in {g['wall_s']:.1f} s = {g['games_per_s']:.2f} games/s "
                f"({g['games_per_cpu_s'] or float('nan'):.2f} games per CPU-second, load {g['load_average']:.1f})")
    if memory:
        m = bench_memory(sizes.memory_games, sizes.memory_full)
        res["memory"] = m
        res["peak_memory_gib_100k"] = m["peak_memory_gib_full"]
        log(f"memory: real {m['measured_games']} games peak {m['real']['peak_rss_bytes'] / 2**20:.0f} MiB; "
            f"replayed {m['full_games']} games peak {m['replay_full']['peak_rss_bytes'] / 2**20:.0f} MiB "
            f"(vs {m['replay_small']['peak_rss_bytes'] / 2**20:.0f} MiB at {m['measured_games']}); "
            f"estimate {m['peak_memory_gib_full']:.2f} GiB")
    else:
        res["peak_memory_gib_100k"] = None
    if kernels:
        res["kernels"] = bench_kernels(sizes.kernels_quick)
        for k in res["kernels"]:
            log(f"kernel {k['kernel']}: {k['per_s_per_core']:,.0f} /s/core, {k['speedup_vs_reference']:.0f}x reference")
    else:
        res["kernels"] = []
    if warm_start:
        w = bench_warm_start(sizes.warm_start_runs)
        res["warm_start"] = w
        res["warm_start_s"] = w["warm_start_s"]
        log(f"warm start: {w['warm_start_s']:.2f} s (runs {', '.join(f'{t:.2f}' for t in w['runs_s'])}; "
            f"CPU {min(w['cpu_s']):.2f} s; numba compiled {w['numba_compiled']}, loaded {w['numba_loaded_from_cache']})")
    else:
        res["warm_start_s"] = None
    res["machine"]["load_average_at_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    res["targets"] = TARGETS
    return res


def _fmt(v, spec=",.1f"):
    return "n/a" if v is None else format(v, spec)


def results_table(res: dict) -> str:
    """Markdown for the results section of ``docs/performance.md``."""
    m = res["machine"]
    lines = [
        f"Measured {m['date_utc']} on {m['cpu']}, {m['usable_cores']} cores, {m['memory_gib']} GiB, "
        f"Python {m['python']}, numba {m['numba']}; load average at start "
        f"{', '.join(f'{x:.1f}' for x in m['load_average_at_start'] or [])}"
        f"{' (--quick sizes)' if res.get('quick') else ''}.",
        "",
        "| scenario | workers | games timed | wall s | games/s (wall) | games per CPU-s | idle estimate games/s | load avg | target |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    tgt = {"hercules": TARGETS["hercules_games_per_s_2_workers"], "intro": TARGETS["intro_games_per_s_2_workers"]}
    for g in res["games"]:
        t = f">= {tgt[g['scenario']]:,.0f}/s" if g["workers"] == 2 and g["scenario"] in tgt else ""
        lines.append(f"| {g['scenario']} | {g['workers']} | {g['games']} | {g['wall_s']:.1f} | {g['games_per_s']:.2f} | "
                     f"{_fmt(g['games_per_cpu_s'], '.2f')} | "
                     f"{_fmt(g.get('idle_estimate_games_per_s', _idle_estimate(g['workers'], g['games_per_cpu_s'])), '.1f')} | "
                     f"{_fmt(g['load_average'], '.1f')} | {t} |")
    lines += ["", "| set-up (fresh process) | imports s | data load s | numba cache load + lazy set-up s | total s |",
              "|---|---:|---:|---:|---:|"]
    for s in res.get("setup", []):
        lines.append(f"| {s['scenario']} | {s['import_s']:.2f} | {s['data_load_s']:.2f} | "
                     f"{s['numba_and_lazy_setup_s']:.2f} | {s['setup_total_s']:.2f} |")
    if res.get("kernels"):
        lines += ["", "| kernel | resolutions/s/core (CPU time, best of 3) | first call | wall clock | "
                  "plain-Python reference /s | speed-up | target |", "|---|---:|---:|---:|---:|---:|---|"]
        for k in res["kernels"]:
            t = ">= 20,000,000/s" if k["kernel"].startswith("combat") else ""
            lines.append(f"| {k['kernel']} | {k['per_s_per_core']:,.0f} | {_fmt(k.get('per_s_cold'), ',.0f')} | "
                         f"{_fmt(k.get('per_s_wall'), ',.0f')} | "
                         f"{k['reference_per_s']:,.0f} | "
                         f"{k['speedup_vs_reference']:,.0f}x | {t} |")
    lines += ["", "| other | measured | target |", "|---|---:|---|"]
    mem = res.get("memory")
    if mem:
        lines.append(f"| peak memory, {mem['full_games']:,}-game Hercules run to disk (estimate; real engine "
                     f"{mem['measured_games']} games = {mem['real']['peak_rss_bytes'] / 2**30:.2f} GiB, runner at "
                     f"{mem['full_games']:,} replayed games = {mem['replay_full']['peak_rss_bytes'] / 2**30:.2f} GiB) "
                     f"| {mem['peak_memory_gib_full']:.2f} GiB | < 2 GiB |")
    w = res.get("warm_start")
    if w:
        lines.append(f"| warm start `malta-sim run --games 1` (best of {len(w['runs_s'])}; CPU {min(w['cpu_s']):.2f} s; "
                     f"numba functions compiled {w['numba_compiled']}, loaded from cache {w['numba_loaded_from_cache']}) "
                     f"| {w['warm_start_s']:.2f} s | < 5 s |")
    return "\n".join(lines)


def refresh_docs(res: dict, path: Path = DOCS) -> None:
    """Replace the text between the results markers of ``path`` with :func:`results_table`."""
    text = path.read_text() if path.exists() else f"# Performance\n\n{MARK_START}\n{MARK_END}\n"
    if MARK_START not in text or MARK_END not in text:
        text = text.rstrip() + f"\n\n## Results\n\n{MARK_START}\n{MARK_END}\n"
    a = text.index(MARK_START) + len(MARK_START)
    b = text.index(MARK_END)
    path.write_text(text[:a] + "\n" + results_table(res) + "\n" + text[b:])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (minutes, not tens of minutes)")
    ap.add_argument("--json", metavar="FILE", help="write the results as JSON")
    ap.add_argument("--docs", metavar="FILE", default=str(DOCS), help="markdown file whose results table is refreshed")
    ap.add_argument("--no-docs", action="store_true", help="do not touch the docs")
    ap.add_argument("--skip", nargs="*", default=[], choices=["kernels", "memory", "warm_start"],
                    help="leave these measurements out")
    ap.add_argument("--from-json", metavar="FILE", help="measure nothing: re-render the docs table from a saved JSON")
    ap.add_argument("--against", metavar="REV",
                    help="measure only the CPU time per Hercules game of git revision REV and of this "
                         "checkout under each one's default bots, timed alternately in one process, 10 "
                         "games at a time (benchmarks/interleaved.py: 400 games each, 100 with --quick)")
    ap.add_argument("--identical", action="store_true",
                    help="with --against: time like for like, only the games both versions play alike "
                         "(same event log and per-turn rows): the Introductory Scenario without the "
                         "invasion (option no_invasion), the random Axis bot against the static and the "
                         "counterattack Allied bots, 3 runs of 300 games compared each (200 with --quick)")
    a = ap.parse_args(argv)
    if a.identical and not a.against:
        ap.error("--identical needs --against REV")
    if a.against:
        from benchmarks import interleaved
        if a.identical:
            for allied in ("static", "counterattack"):
                code = interleaved.main([a.against, "--scenario", "intro", "--option", "no_invasion",
                                         "--axis-policy", "random", "--allied-policy", allied, "--identical",
                                         "--games", "200" if a.quick else "300", "--processes", "3"])
                if code:
                    raise SystemExit(code)
            return {}
        code = interleaved.main([a.against, "--games", "100" if a.quick else "400"])
        if code:
            raise SystemExit(code)
        return {}
    if a.from_json:
        res = json.loads(Path(a.from_json).read_text())
        refresh_docs(res, Path(a.docs))
        return res
    sizes = QUICK if a.quick else FULL
    res = run_all(sizes, kernels="kernels" not in a.skip, memory="memory" not in a.skip,
                  warm_start="warm_start" not in a.skip)
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=2, default=str) + "\n")
    if not a.no_docs:
        refresh_docs(res, Path(a.docs))
    return res


if __name__ == "__main__":
    main()
