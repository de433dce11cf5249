"""Old and new code timed block by block, alternately, in one process.

    python benchmarks/interleaved.py REV [--scenario hercules] [--games 300] [--block 10]
    python benchmarks/interleaved.py e1c4d97 --axis-policy balanced --allied-policy static
    python benchmarks/interleaved.py HEAD --old-axis-policy balanced --old-allied-policy static
    python benchmarks/interleaved.py e1c4d97 --processes 3      # three runs, pooled
    python benchmarks/interleaved.py e1c4d97 --scenario intro --option no_invasion \
        --axis-policy random --allied-policy static --identical   # only games both play alike

:mod:`old_vs_new` times each version in a fresh process, a round at a time;
this machine's speed drifts by up to 2x over minutes, so its per-round ratios
spread by 30% or more and a change of a few per cent cannot be seen.  Here
both versions live in one process and take turns every ``--block`` games
(the same games for both: seed ``--seed``, game indices ``k * block ...``,
the version that goes first alternating from block to block), so a slow
spell of the host slows both alike within seconds.

The old version is ``git archive REV malta_sim`` unpacked under
``$XDG_CACHE_HOME/malta_sim/bench/<commit>`` (kept for the next run) as a
package of another name, ``malta_sim_<commit>``, every ``malta_sim`` word in
its Python files renamed to it: two packages, one interpreter.  Its kernels
compile into the numba cache folder of this checkout (their own source
paths, so nothing is shared), so the first run after an edit of this
checkout compiles both; the warm-up games (``--warm``, another seed) take
most of that out of the timings, and the CPU time of any compilation inside
the timed games is taken off too (:class:`CompileClock`).

Two versions rarely play the same games (a mended rule or bot changes the
dice that follow), so games per CPU-second compare the work as much as the
engine.  ``--identical`` times like for like: it first plays the ``--games``
games in both versions with their event logs and per-turn rows, keeps the
games whose two digests (:func:`tests.golden.panel.game_digest`) agree in both,
and times only those, in blocks as below; e.g. the Introductory Scenario
with ``--option no_invasion`` and the random Axis bot, where most games are
still played exactly as before.  ``--option NAME`` (repeatable) plays both
versions with that optional rule.

Each block is timed with :func:`time.process_time` around the scenario's
``play_games`` call (the registry's entry point in both versions).  The cost
of a call that plays no game (its provenance and result frame) is measured
for each version and taken off every block.  Printed: each version's games
and game turns per CPU-second, the ratio new/old of each with a 95% paired
bootstrap interval over the blocks (:func:`scipy.stats.bootstrap`), and the
mean game length; above 1 the new is faster.  The interval covers the spread
within the process only: two copies of the same code have given ratios from
0.98 to 1.04 in separate runs, so a difference of a few per cent needs
several runs: ``--processes K`` makes K runs one after the other, each in a
fresh process on its own games (seeds ``--seed``, ``--seed`` + 1, ...), and
prints each run's ratios, the pooled ratios and a 95% interval over the runs
(Student's t on the logarithms of the K ratios, :func:`scipy.stats.t`), which
holds the process-to-process spread too.  Nothing is asserted.  Exit
status 0 after printing; 2 when ``REV`` is not a revision of this
repository.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import old_vs_new


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "malta_sim" / "bench"


def old_package(rev: str, root: Path | None = None) -> tuple[Path, str]:
    """Unpack ``malta_sim`` of git revision ``rev`` as a package of its own name.

    Returns
    -------
    (Path, str)
        The folder to put on ``sys.path`` and the package name
        (``malta_sim_<first 10 hex digits of the commit>``).

    Raises
    ------
    ValueError
        ``rev`` is not a revision of this repository.
    """
    r = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT, check=False,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise ValueError(f"{rev!r} is not a revision of this repository")
    sha = r.stdout.strip()
    name = f"malta_sim_{sha[:10]}"
    base = (root or _cache_root()) / sha[:10]
    if (base / name / "__init__.py").exists():
        return base, name
    tmp = base.with_name(base.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    blob = subprocess.run(["git", "archive", "--format=tar", sha, "malta_sim"], cwd=ROOT,
                          capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(tmp, filter="data")
    (tmp / "malta_sim").rename(tmp / name)
    word = re.compile(r"\bmalta_sim\b")
    for py in (tmp / name).rglob("*.py"):
        py.write_text(word.sub(name, py.read_text(encoding="utf-8")), encoding="utf-8")
    shutil.rmtree(base, ignore_errors=True)
    tmp.rename(base)
    return base, name


def play_fn(package: str, scenario: str, policies: dict | None = None, options=()):
    """The scenario's ``play_games`` entry point in ``package`` and its
    keywords: ``policies`` (``axis_policy`` / ``allied_policy``), each one
    not given being the scenario's default bot in that version (the first
    of its registry entry, as ``run_games`` picks it), and ``options`` (the
    optional rules' names, a tuple of str) when any."""
    spec = importlib.import_module(f"{package}.games.registry").get_scenario(scenario)
    kw = {"axis_policy": spec.axis_policies[0], "allied_policy": spec.allied_policies[0]}
    kw.update(policies or {})
    if options:
        kw["options"] = tuple(options)
    return spec.play_fn(), kw


def identical_games(versions: dict, scenario: str, seed: int, games: int) -> np.ndarray:
    """The games among ``0 .. games - 1`` (seed ``seed``) that every version
    of ``versions`` plays alike: the same event log and per-turn rows, as
    compared by their digests (:func:`tests.golden.panel.game_digest`).

    Parameters
    ----------
    versions : dict
        Version name -> ``(play_games, keywords)`` as :func:`play_fn` gives.
    scenario : str
    seed : int
        The batch's master seed.
    games : int
        How many games to play and compare.

    Returns
    -------
    int64[k]
        The indices of the identical games, ascending.

    Raises
    ------
    ValueError
        A version gave no event log or no per-turn rows (nothing to compare).
    """
    from tests.golden.panel import game_digest

    idx = np.arange(games, dtype=np.int64)
    digests = []
    for name, (play, kw) in versions.items():
        res = play(scenario, seed, idx, event_log=True, per_turn=True, **kw)
        if res.events is None or not len(res.events) or res.per_turn is None or not len(res.per_turn):
            raise ValueError(f"version {name!r} gave no event log or per-turn rows to compare")
        digests.append([(game_digest(res.events, int(i)), game_digest(res.per_turn, int(i))) for i in idx])
    same = [i for i in idx if all(d[i] == digests[0][i] for d in digests[1:])]
    return np.asarray(same, dtype=np.int64)


def _same_results(old, new, idx) -> None:
    """Check that the games ``idx`` timed without event logs gave the same
    result rows in both versions (the columns both frames have, as text), as
    they did when :func:`identical_games` compared them with their logs.

    Raises
    ------
    ValueError
        A game whose row differs: it was not played alike without the log.
    """
    cols = [c for c in old.columns if c in set(new.columns)]
    a = old[cols].astype(str).reset_index(drop=True)
    b = new[cols].astype(str).reset_index(drop=True)
    diff = (a != b).any(axis=1)
    if diff.any():
        g = int(idx[int(np.flatnonzero(diff.to_numpy())[0])])
        raise ValueError(f"game {g} gave other result rows in the two versions when played without its "
                         "event log: not identical after all")


class CompileClock:
    """CPU seconds numba spends compiling (its ``numba:compile`` events,
    nested compilations counted once), to be taken off a timing: a kernel
    first called with a new signature after the warm-up compiles inside the
    timed games (seconds), and a version whose package was unpacked afresh
    has no cache to load it from, while the other may.  Loading a kernel
    from the cache is not a compilation and is not counted.

    Use as a listener: ``with numba.core.event.install_listener("numba:compile", clock): ...``;
    ``total`` (float, seconds) and ``count`` (int) grow as compilations end.
    """

    def __init__(self):
        from numba.core import event

        self._base = event.Listener
        self.total = 0.0
        self.count = 0
        self._depth = 0
        self._start = 0.0

    def listener(self):
        """A ``numba.core.event.Listener`` feeding this clock."""
        clock = self

        class _L(self._base):
            def on_start(self, event):
                if clock._depth == 0:
                    clock._start = time.process_time()
                clock._depth += 1

            def on_end(self, event):
                clock._depth -= 1
                if clock._depth == 0:
                    clock.total += time.process_time() - clock._start
                    clock.count += 1

        return _L()


def _call_cost(play, scenario: str, seed: int, kw: dict, repeat: int = 20) -> float:
    """Median CPU seconds of a ``play_games`` call that plays no game."""
    none = np.arange(0, dtype=np.int64)
    out = []
    for _ in range(repeat):
        c = time.process_time()
        play(scenario, seed, none, **kw)
        out.append(time.process_time() - c)
    return float(np.median(out))


def compare(rev: str, scenario: str = "hercules", games: int = 300, block: int = 10, seed: int = 1942,
            warm: int = 20, policies: dict | None = None, old_policies: dict | None = None,
            echo=print, options=(), identical: bool = False) -> dict:
    """Time the old (``rev``) and new (this checkout) versions block by block.

    Parameters
    ----------
    policies, old_policies : dict, optional
        ``axis_policy`` / ``allied_policy`` keywords for both versions, and
        for the old one only (default: as ``policies``; each version's
        default bots when empty).
    options : tuple of str
        Optional rules both versions play with.
    identical : bool
        Time only the games among the first ``games`` that both versions
        play alike (:func:`identical_games`), in blocks of ``block``.

    Returns
    -------
    dict
        ``old_s``, ``new_s``: float64[n_blocks] CPU seconds per block (call
        cost taken off); ``old_turns``, ``new_turns``: game turns played;
        ``ratio`` (games per CPU-second new/old) and ``turn_ratio`` with
        ``ratio_ci`` / ``turn_ratio_ci`` (95% paired bootstrap intervals);
        ``call_cost``: the no-game call cost of each version (seconds);
        ``bots``: the ``(axis, allied)`` bots each version played;
        ``compiled``: per version, the kernels numba compiled inside the
        timed games and their CPU seconds, taken off the blocks
        (:class:`CompileClock`); with ``identical``, ``identical``: the
        number of identical games and of games compared, and ``timed``: the
        identical games timed (whole blocks).

    Raises
    ------
    ValueError
        ``rev`` is not a revision of this repository; (``identical``)
        fewer than two blocks of the games compared are identical, or a
        timed game gave other result rows in the two versions without its
        event log (:func:`_same_results`).
    """
    path, name = old_package(rev)
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
    # the old package first: each import of a malta_sim package points numba's
    # cache at the folder of its own source's fingerprint, so the new one's
    # modules, imported after it, compile into the folder of this checkout's
    # source (never into a folder that outlives an edit here)
    versions = {"old": play_fn(name, scenario, old_policies if old_policies is not None else policies, options),
                "new": play_fn("malta_sim", scenario, policies, options)}
    for play, kw in versions.values():                      # compile / load kernels, data
        play(scenario, seed + 1, np.arange(warm, dtype=np.int64), **kw)
    cost = {v: _call_cost(p, scenario, seed, kw) for v, (p, kw) in versions.items()}
    start = 4 if scenario == "intro" else 0                  # the Introductory Scenario begins on turn 4
    if identical:
        echo(f"  playing the {games} games in both versions with their event logs, to find the identical ones")
        pool = identical_games(versions, scenario, seed, games)
        echo(f"  {len(pool)} of {games} games identical in both versions (event log and per-turn rows); "
             f"{len(pool) // block * block} timed, in {len(pool) // block} blocks")
        if len(pool) < 2 * block:
            raise ValueError(f"only {len(pool)} of {games} games are identical in both versions, "
                             f"fewer than two blocks ({2 * block}): no interval can be made")
    else:
        pool = np.arange(games, dtype=np.int64)
    n_blocks = max(1, len(pool) // block)
    secs = {"old": np.zeros(n_blocks), "new": np.zeros(n_blocks)}
    turns = {"old": np.zeros(n_blocks), "new": np.zeros(n_blocks)}
    compiled = {"old": [0, 0.0], "new": [0, 0.0]}            # compilations inside the timed games, seconds
    clock = CompileClock()
    from numba.core import event

    with event.install_listener("numba:compile", clock.listener()):
        for k in range(n_blocks):
            idx = pool[k * block:(k + 1) * block]
            rows = {}
            for v in (("old", "new") if k % 2 == 0 else ("new", "old")):
                play, kw = versions[v]
                n0, c0 = clock.count, clock.total
                c = time.process_time()
                res = play(scenario, seed, idx, **kw)
                spent = time.process_time() - c
                compiled[v][0] += clock.count - n0
                compiled[v][1] += clock.total - c0
                secs[v][k] = spent - (clock.total - c0) - cost[v]
                turns[v][k] = float((res.games["end_turn"] - start + 1).sum())
                rows[v] = res.games
            if identical:
                _same_results(rows["old"], rows["new"], idx)
            if (k + 1) % max(1, n_blocks // 5) == 0:
                echo(f"  {k + 1}/{n_blocks} blocks: old {secs['old'][:k + 1].sum() / ((k + 1) * block) * 1e3:.1f} ms, "
                     f"new {secs['new'][:k + 1].sum() / ((k + 1) * block) * 1e3:.1f} ms per game")

    out = summarise(secs["old"], secs["new"], turns["old"], turns["new"], seed)
    if identical:
        out["identical"] = [len(pool), int(games)]
        out["timed"] = n_blocks * block
    out.update({"call_cost": cost, "package": name, "games": n_blocks * block, "compiled": compiled,
                "bots": {v: (kw["axis_policy"], kw["allied_policy"]) for v, (_p, kw) in versions.items()}})
    return out


def summarise(old_s, new_s, old_turns, new_turns, seed: int = 0) -> dict:
    """The ratios of :func:`compare` from its per-block figures.

    Parameters
    ----------
    old_s, new_s : float64[n_blocks]
        CPU seconds of each block, per version.
    old_turns, new_turns : float64[n_blocks]
        Game turns played in each block, per version.
    seed : int
        Seed of the bootstrap resampling.

    Returns
    -------
    dict
        The four arrays as given; ``ratio``: games per CPU-second new/old
        (old seconds over new seconds); ``turn_ratio``: game turns per
        CPU-second new/old; ``ratio_ci``, ``turn_ratio_ci``: their 95%
        intervals, a paired bootstrap over the blocks
        (:func:`scipy.stats.bootstrap`, BCa, 4,000 resamples).
    """
    from scipy import stats

    old_s, new_s, old_turns, new_turns = (np.asarray(x, np.float64) for x in (old_s, new_s, old_turns, new_turns))

    def speed_ratio(o, n, axis=-1):
        return o.sum(axis=axis) / n.sum(axis=axis)

    def turn_speed_ratio(o, n, to, tn, axis=-1):
        return (tn.sum(axis=axis) / n.sum(axis=axis)) / (to.sum(axis=axis) / o.sum(axis=axis))

    rng = np.random.default_rng(seed)
    ci = stats.bootstrap((old_s, new_s), speed_ratio, paired=True, vectorized=True,
                         n_resamples=4000, random_state=rng).confidence_interval
    tci = stats.bootstrap((old_s, new_s, old_turns, new_turns), turn_speed_ratio,
                          paired=True, vectorized=True, n_resamples=4000, random_state=rng).confidence_interval
    return {"old_s": old_s, "new_s": new_s, "old_turns": old_turns, "new_turns": new_turns,
            "ratio": float(speed_ratio(old_s, new_s)), "ratio_ci": (float(ci.low), float(ci.high)),
            "turn_ratio": float(turn_speed_ratio(old_s, new_s, old_turns, new_turns)),
            "turn_ratio_ci": (float(tci.low), float(tci.high))}


def over_runs(ratios) -> tuple[float, float, float]:
    """Geometric mean of per-run ratios and its 95% interval, Student's t on
    their logarithms (:func:`scipy.stats.t`); the interval is (nan, nan)
    for fewer than two runs.

    Parameters
    ----------
    ratios : sequence of float
        One ratio new/old per run (each run a process of its own).

    Returns
    -------
    (float, float, float)
        ``(mean, low, high)``.
    """
    from scipy import stats

    x = np.log(np.asarray(ratios, np.float64))
    m = float(x.mean())
    if len(x) < 2:
        return float(np.exp(m)), float("nan"), float("nan")
    half = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))
    return float(np.exp(m)), float(np.exp(m - half)), float(np.exp(m + half))


def _run_children(argv: list, k: int, seed: int) -> list[dict]:
    """Run this script ``k`` times, one fresh process after the other, run
    ``i`` on seed ``seed + i``; return each run's :func:`compare` result."""
    import json
    import tempfile

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(k):
            path = Path(tmp) / f"run{i}.json"
            cmd = [sys.executable, str(Path(__file__).resolve()), *argv, "--processes", "1",
                   "--seed", str(seed + i), "--json", str(path)]
            r = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if r.returncode != 0:
                raise RuntimeError(f"run {i + 1} failed (exit {r.returncode}): {r.stderr[-1500:]}")
            res = json.loads(path.read_text())
            out.append(res)
            print(f"run {i + 1}/{k} (seed {seed + i}): new/old {res['ratio']:.3f} per game, "
                  f"{res['turn_ratio']:.3f} per game turn")
    return out


def _print_table(r: dict) -> None:
    n = r["games"]
    print()
    print("| version | bots (Axis, Allied) | ms per game (CPU) | games per CPU-s | mean game turns | no-game call ms |")
    print("|---|---|---:|---:|---:|---:|")
    for v in ("old", "new"):
        s = float(np.sum(r[f"{v}_s"]))
        print(f"| {v} | {', '.join(r['bots'][v])} | {s / n * 1e3:.1f} | {n / s:.1f} | "
              f"{float(np.sum(r[f'{v}_turns'])) / n:.2f} | {r['call_cost'][v] * 1e3:.2f} |")
    comp = r.get("compiled")
    if comp and (comp["old"][0] or comp["new"][0]):
        print(f"(kernels compiled inside the timed games and taken off: old {comp['old'][0]} in "
              f"{comp['old'][1]:.2f} s, new {comp['new'][0]} in {comp['new'][1]:.2f} s)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="git revision to compare this checkout with (e.g. e1c4d97, HEAD~3)")
    ap.add_argument("--scenario", default="hercules", choices=["intro", "hercules"])
    ap.add_argument("--games", type=int, default=300, help="games each version plays (default 300)")
    ap.add_argument("--block", type=int, default=10, help="games per timed block (default 10)")
    ap.add_argument("--seed", type=int, default=1942)
    ap.add_argument("--warm", type=int, default=20, help="untimed warm-up games per version (default 20)")
    old_vs_new.add_policy_arguments(ap)
    ap.add_argument("--option", action="append", default=[], metavar="NAME",
                    help="optional rule both versions play with (repeatable)")
    ap.add_argument("--identical", action="store_true",
                    help="time only the games (of --games) both versions play alike: same event log "
                         "and per-turn rows")
    ap.add_argument("--processes", type=int, default=1,
                    help="runs, each in a fresh process on its own games (seed, seed + 1, ...), pooled (default 1)")
    ap.add_argument("--json", metavar="FILE", help="also write the result (per-block figures included) as JSON")
    argv = list(sys.argv[1:] if argv is None else argv)
    a = ap.parse_args(argv)
    if a.games < 1 or a.block < 1 or a.processes < 1:
        ap.error("--games, --block and --processes must be at least 1")
    policies, old_policies = old_vs_new.policies_from(a)
    bots = ", ".join(f"{k}={v}" for k, v in policies.items()) or "each version's default bots"
    extra = "".join(f"; option {o}" for o in a.option) + ("; only the games both play alike" if a.identical else "")
    what = "games compared (the identical ones timed)" if a.identical else "games per version"
    print(f"{a.scenario}, {a.games} {what} in blocks of {a.block}, alternating in one process; "
          f"{bots}{extra}; old = {a.rev}, new = this checkout")
    if a.processes > 1:
        try:
            old_package(a.rev)                     # refuse an unknown revision before any run
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        drop = {"--processes", "--seed", "--json"}
        child = [x for i, x in enumerate(argv) if x not in drop and (i == 0 or argv[i - 1] not in drop)]
        try:
            runs = _run_children(child, a.processes, a.seed)
        except RuntimeError as e:                   # a run refused (e.g. too few identical games)
            print(f"error: {e}", file=sys.stderr)
            return 2
        pooled = {k: np.concatenate([np.asarray(r[k]) for r in runs])
                  for k in ("old_s", "new_s", "old_turns", "new_turns")}
        r = summarise(pooled["old_s"], pooled["new_s"], pooled["old_turns"], pooled["new_turns"], a.seed)
        r.update({"games": sum(x["games"] for x in runs), "bots": runs[0]["bots"],
                  "compiled": {v: [sum(x["compiled"][v][0] for x in runs), sum(x["compiled"][v][1] for x in runs)]
                               for v in ("old", "new")},
                  "call_cost": {v: float(np.mean([x["call_cost"][v] for x in runs])) for v in ("old", "new")},
                  "runs": [{"seed": a.seed + i, "ratio": x["ratio"], "turn_ratio": x["turn_ratio"]}
                           for i, x in enumerate(runs)]})
        if a.identical:
            r["identical"] = [sum(x["identical"][0] for x in runs), sum(x["identical"][1] for x in runs)]
            r["timed"] = sum(x["timed"] for x in runs)
            print(f"identical games: {r['identical'][0]} of {r['identical'][1]} compared; {r['timed']} timed "
                  f"(whole blocks)")
        r["over_runs"] = over_runs([x["ratio"] for x in runs])
        r["turn_over_runs"] = over_runs([x["turn_ratio"] for x in runs])
        _print_table(r)
        g, glo, ghi = r["over_runs"]
        t, tlo, thi = r["turn_over_runs"]
        print()
        print(f"new/old over {a.processes} runs: {g:.3f} games per CPU-s (95% interval over the runs "
              f"{glo:.3f} .. {ghi:.3f}); {t:.3f} game turns per CPU-s ({tlo:.3f} .. {thi:.3f})")
        print(f"pooled blocks: {r['ratio']:.3f} per game, {r['turn_ratio']:.3f} per game turn")
    else:
        try:
            r = compare(a.rev, a.scenario, a.games, a.block, a.seed, a.warm, policies, old_policies,
                        options=tuple(a.option), identical=a.identical)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        _print_table(r)
        lo, hi = r["ratio_ci"]
        tlo, thi = r["turn_ratio_ci"]
        print()
        print(f"new/old: {r['ratio']:.3f} games per CPU-s (95% CI {lo:.3f} .. {hi:.3f}); "
              f"{r['turn_ratio']:.3f} game turns per CPU-s (95% CI {tlo:.3f} .. {thi:.3f})")
    if a.json:
        import json
        Path(a.json).write_text(json.dumps(r, default=lambda x: x.tolist() if hasattr(x, "tolist") else str(x)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
