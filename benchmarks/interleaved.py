"""Old and new code timed block by block, alternately, in one process.

    python benchmarks/interleaved.py REV [--scenario hercules] [--games 300] [--block 10]
    python benchmarks/interleaved.py e1c4d97 --axis-policy balanced --allied-policy static
    python benchmarks/interleaved.py HEAD --old-axis-policy balanced --old-allied-policy static

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
that out of the timings.

Each block is timed with :func:`time.process_time` around the scenario's
``play_games`` call (the registry's entry point in both versions).  The cost
of a call that plays no game (its provenance and result frame) is measured
for each version and taken off every block.  Printed: each version's games
and game turns per CPU-second, the ratio new/old of each with a 95% paired
bootstrap interval over the blocks (:func:`scipy.stats.bootstrap`), and the
mean game length; above 1 the new is faster.  The interval covers the spread
within the process only: two copies of the same code have given ratios from
0.98 to 1.04 in separate runs, so a difference of a few per cent needs
several runs.  Nothing is asserted.  Exit
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


def play_fn(package: str, scenario: str, policies: dict | None = None):
    """The scenario's ``play_games`` entry point in ``package`` and its
    keywords: ``policies`` (``axis_policy`` / ``allied_policy``), each one
    not given being the scenario's default bot in that version (the first
    of its registry entry, as ``run_games`` picks it)."""
    spec = importlib.import_module(f"{package}.games.registry").get_scenario(scenario)
    kw = {"axis_policy": spec.axis_policies[0], "allied_policy": spec.allied_policies[0]}
    kw.update(policies or {})
    return spec.play_fn(), kw


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
            echo=print) -> dict:
    """Time the old (``rev``) and new (this checkout) versions block by block.

    Parameters
    ----------
    policies, old_policies : dict, optional
        ``axis_policy`` / ``allied_policy`` keywords for both versions, and
        for the old one only (default: as ``policies``; each version's
        default bots when empty).

    Returns
    -------
    dict
        ``old_s``, ``new_s``: float64[n_blocks] CPU seconds per block (call
        cost taken off); ``old_turns``, ``new_turns``: game turns played;
        ``ratio`` (games per CPU-second new/old) and ``turn_ratio`` with
        ``ratio_ci`` / ``turn_ratio_ci`` (95% paired bootstrap intervals);
        ``call_cost``: the no-game call cost of each version (seconds);
        ``bots``: the ``(axis, allied)`` bots each version played.
    """
    path, name = old_package(rev)
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
    versions = {"old": play_fn(name, scenario, old_policies if old_policies is not None else policies),
                "new": play_fn("malta_sim", scenario, policies)}
    for play, kw in versions.values():                      # compile / load kernels, data
        play(scenario, seed + 1, np.arange(warm, dtype=np.int64), **kw)
    cost = {v: _call_cost(p, scenario, seed, kw) for v, (p, kw) in versions.items()}
    start = 4 if scenario == "intro" else 0                  # the Introductory Scenario begins on turn 4
    n_blocks = max(1, games // block)
    secs = {"old": np.zeros(n_blocks), "new": np.zeros(n_blocks)}
    turns = {"old": np.zeros(n_blocks), "new": np.zeros(n_blocks)}
    for k in range(n_blocks):
        idx = np.arange(k * block, (k + 1) * block, dtype=np.int64)
        for v in (("old", "new") if k % 2 == 0 else ("new", "old")):
            play, kw = versions[v]
            c = time.process_time()
            res = play(scenario, seed, idx, **kw)
            secs[v][k] = time.process_time() - c - cost[v]
            turns[v][k] = float((res.games["end_turn"] - start + 1).sum())
        if (k + 1) % max(1, n_blocks // 5) == 0:
            echo(f"  {k + 1}/{n_blocks} blocks: old {secs['old'][:k + 1].sum() / ((k + 1) * block) * 1e3:.1f} ms, "
                 f"new {secs['new'][:k + 1].sum() / ((k + 1) * block) * 1e3:.1f} ms per game")

    out = summarise(secs["old"], secs["new"], turns["old"], turns["new"], seed)
    out.update({"call_cost": cost, "package": name, "games": n_blocks * block,
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="git revision to compare this checkout with (e.g. e1c4d97, HEAD~3)")
    ap.add_argument("--scenario", default="hercules", choices=["intro", "hercules"])
    ap.add_argument("--games", type=int, default=300, help="games each version plays (default 300)")
    ap.add_argument("--block", type=int, default=10, help="games per timed block (default 10)")
    ap.add_argument("--seed", type=int, default=1942)
    ap.add_argument("--warm", type=int, default=20, help="untimed warm-up games per version (default 20)")
    ap.add_argument("--axis-policy", default=None, help="Axis bot in both versions (default: each version's default)")
    ap.add_argument("--allied-policy", default=None, help="Allied bot in both versions (default: each version's default)")
    ap.add_argument("--old-axis-policy", default=None, help="Axis bot of the old version only")
    ap.add_argument("--old-allied-policy", default=None, help="Allied bot of the old version only")
    a = ap.parse_args(argv)
    if a.games < 1 or a.block < 1:
        ap.error("--games and --block must be at least 1")
    policies = {k: v for k, v in (("axis_policy", a.axis_policy), ("allied_policy", a.allied_policy)) if v}
    old_policies = None
    if a.old_axis_policy or a.old_allied_policy:
        old_policies = dict(policies)
        old_policies.update({k: v for k, v in (("axis_policy", a.old_axis_policy),
                                               ("allied_policy", a.old_allied_policy)) if v})
    bots = ", ".join(f"{k}={v}" for k, v in policies.items()) or "each version's default bots"
    print(f"{a.scenario}, {a.games} games per version in blocks of {a.block}, alternating in one process; "
          f"{bots}; old = {a.rev}, new = this checkout")
    try:
        r = compare(a.rev, a.scenario, a.games, a.block, a.seed, a.warm, policies, old_policies)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    n = r["games"]
    print()
    print("| version | bots (Axis, Allied) | ms per game (CPU) | games per CPU-s | mean game turns | no-game call ms |")
    print("|---|---|---:|---:|---:|---:|")
    for v in ("old", "new"):
        s = r[f"{v}_s"].sum()
        print(f"| {v} | {', '.join(r['bots'][v])} | {s / n * 1e3:.1f} | {n / s:.1f} | "
              f"{r[f'{v}_turns'].sum() / n:.2f} | {r['call_cost'][v] * 1e3:.2f} |")
    lo, hi = r["ratio_ci"]
    tlo, thi = r["turn_ratio_ci"]
    print()
    print(f"new/old: {r['ratio']:.3f} games per CPU-s (95% CI {lo:.3f} .. {hi:.3f}); "
          f"{r['turn_ratio']:.3f} game turns per CPU-s (95% CI {tlo:.3f} .. {thi:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
