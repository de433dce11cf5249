"""Games per CPU-second of an older revision and of this checkout, side by side, in one run.

    python benchmarks/old_vs_new.py REV [--scenario hercules] [--games 100] [--rounds 5]
    python benchmarks/old_vs_new.py aa700fd --scenario intro --games 200 --rounds 3
    python benchmarks/old_vs_new.py e1c4d97 --axis-policy balanced --allied-policy static
    python benchmarks/old_vs_new.py HEAD --old-axis-policy balanced --old-allied-policy static

The machine's speed drifts (by up to 2x on a shared machine), so figures taken
at different times cannot be compared.  This script times both versions in
the same run, alternating old, new, old, new ... for ``--rounds`` rounds, each
timing in a fresh process that plays ``--games`` games of ``--scenario`` under
the default bots (or the named ``--axis-policy`` / ``--allied-policy``, which
must exist in both versions: when the default bots of the two versions
differ, naming the same pairing times the engines rather than the bots;
``--old-axis-policy`` / ``--old-allied-policy`` name other bots for the old
version only: with ``REV`` the commit of this checkout, that times two
pairings of bots on the same engine) with one worker, after ``--warm``
warm-up games of another seed (data, numba cache; default 10: a kernel loads
from the cache the first time a game calls it with a new signature, and one
warm-up game leaves a few of those loads, tens of milliseconds each, inside
the timed games, more for the version with more kernels; ``--warm 1`` gives the
figures of earlier runs).
It reports each version's median games per CPU-second (the CPU time of the
timing process, so a loaded machine slows both alike) and the ratio new/old
with the range of the per-round ratios, and the same for game turns per
CPU-second: when a rule or bot change makes the two versions play games of
different lengths, turns per CPU-second compares their speed, games per
CPU-second their cost per game.  Neither is fair when the shorter games of one
version skip late turns that cost less than the early ones (a Hercules game's
landing turns are its most expensive), so a third figure, the turn-matched
ratio, times every ``play_turn`` and compares the two versions' mean CPU cost
of a turn of each number, weighted alike (:func:`turn_matched_ratio`).

``REV`` is any git revision; it is checked out into a temporary worktree
(removed at the end) and run from there, so its own package, data and numba
cache folder are used.  The first round of each version includes no
compilation: the warm-up games of a fresh cache compile before the clock starts.

Nothing is asserted.  Exit status 0 after printing the table; 2 when ``REV``
is not a revision of this repository.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: run in a fresh interpreter with the version's root first on sys.path
_TIMER = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from malta_sim.batch import run_games
import importlib, os
seq = importlib.import_module("malta_sim.iod.sequence"                    # the sequence of play,
                              if os.path.exists(os.path.join({root!r}, "malta_sim", "iod", "sequence.py"))
                              else "malta_sim.games.island_of_death.sequence")  # in either layout
assert seq.__file__.startswith({root!r}), seq.__file__
kw = {policies!r}
run_games({scenario!r}, {warm}, {seed} + 1, n_jobs=1, **kw)      # warm-up: data, numba cache
per_turn = {{}}                                         # turn number -> [turns played, CPU seconds]
_play_turn = seq.play_turn
def _timed_turn(game):
    t = game.turn
    c = time.process_time()
    _play_turn(game)
    cell = per_turn.setdefault(t, [0, 0.0])
    cell[0] += 1
    cell[1] += time.process_time() - c
seq.play_turn = _timed_turn
c0 = time.process_time(); w0 = time.perf_counter()
df = run_games({scenario!r}, {games}, {seed}, n_jobs=1, **kw)
cpu = time.process_time() - c0; wall = time.perf_counter() - w0
import malta_sim
start = 4 if {scenario!r} == "intro" else 0        # the Introductory Scenario begins on turn 4
turns = int((df["end_turn"] - start + 1).sum()) if "end_turn" in df else 0
print("TIMED " + json.dumps({{"cpu_s": cpu, "wall_s": wall, "games": len(df), "turns": turns,
                              "per_turn": per_turn,
                              "package": malta_sim.__file__,
                              "bots": [str(df["axis_policy"].iloc[0]), str(df["allied_policy"].iloc[0])]}}))
"""


def time_version(root: Path, scenario: str, games: int, seed: int, policies: dict | None = None,
                 warm: int = 10) -> dict:
    """Play ``games`` games of ``scenario`` with the package under ``root`` in a
    fresh process (``policies``: ``axis_policy`` / ``allied_policy`` keywords
    of ``run_games``; default bots when empty), after ``warm`` untimed games
    of seed ``seed + 1``.

    Returns
    -------
    dict
        ``cpu_s`` (float, CPU seconds of the timed batch), ``wall_s``,
        ``games`` (int), ``turns`` (int, game turns played in all: the two
        versions may play games of different lengths when a rule or a bot
        changed, so turns per CPU-second is the fairer speed), ``package`` (the ``malta_sim/__init__.py`` that was
        imported, to show which version ran) and ``bots`` (the Axis and Allied
        policy names of the result rows).

    Raises
    ------
    RuntimeError
        The child process failed (its last output is in the message).
    """
    code = _TIMER.format(root=str(root), scenario=scenario, games=games, seed=seed, policies=dict(policies or {}),
                         warm=max(1, int(warm)))
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if line.startswith("TIMED "):
            return json.loads(line[6:])
    raise RuntimeError(f"timing in {root} failed (exit {r.returncode}): {r.stderr[-1500:]}")


def turn_matched_ratio(old: dict, new: dict, min_count: int = 3) -> float:
    """Speed of ``new`` over ``old`` at playing the same game turns.

    ``old`` and ``new`` map a turn number (str or int) to ``[turns played,
    CPU seconds]`` (the ``per_turn`` of :func:`time_version`).  Each version's
    mean CPU cost of a turn of each number is weighted by how often the two
    versions together played that turn number (turn numbers either version
    played fewer than ``min_count`` times are left out), so a version whose
    games end sooner is not credited for skipping the later, cheaper turns nor
    charged for them.  Returns the weighted old cost over the weighted new
    cost (above 1: the new plays the same turns faster); nan when no turn
    number qualifies.
    """
    num = den = 0.0
    for t in set(old) & set(new):
        (n_old, c_old), (n_new, c_new) = old[t], new[t]
        if n_old < min_count or n_new < min_count:
            continue
        w = n_old + n_new
        num += w * c_old / n_old
        den += w * c_new / n_new
    return num / den if den > 0 else float("nan")


def compare(old_root: Path, new_root: Path, scenario: str, games: int, rounds: int, seed: int = 1942,
            echo=print, policies: dict | None = None, warm: int = 10, old_policies: dict | None = None) -> dict:
    """Alternate timings of the two versions; return per-round figures and medians.
    ``policies`` are the bots of both versions, ``old_policies`` (when given)
    those of the old one.

    Returns
    -------
    dict
        ``old`` and ``new``: lists of games per CPU-second (float, one per
        round); ``ratios``: new/old per round; ``old_turns``, ``new_turns``,
        ``turn_ratios``: the same for game turns per CPU-second; the median of
        each list as ``median_<name>`` (``median_ratio`` = ``median_ratios``);
        ``old_bots``, ``new_bots``: the Axis and Allied policies each version played.
    """
    out = {"old": [], "new": [], "ratios": [], "old_turns": [], "new_turns": [], "turn_ratios": [],
           "matched_ratios": []}
    for k in range(rounds):
        pair, tpair, turns = {}, {}, {}
        for name, root in (("old", old_root), ("new", new_root)):
            pol = old_policies if name == "old" and old_policies is not None else policies
            t = time_version(root, scenario, games, seed, pol, warm)
            turns[name] = t.get("per_turn", {})
            pair[name] = t["games"] / t["cpu_s"]
            tpair[name] = t.get("turns", 0) / t["cpu_s"]
            out[name].append(pair[name])
            out[f"{name}_turns"].append(tpair[name])
            out[f"{name}_bots"] = t.get("bots")
        out["ratios"].append(pair["new"] / pair["old"])
        out["turn_ratios"].append(tpair["new"] / tpair["old"] if tpair["old"] else float("nan"))
        out["matched_ratios"].append(turn_matched_ratio(turns["old"], turns["new"]))
        echo(f"round {k + 1}/{rounds}: old {pair['old']:.1f}  new {pair['new']:.1f} games/CPU-s  "
             f"ratio {out['ratios'][-1]:.2f}; old {tpair['old']:.0f}  new {tpair['new']:.0f} turns/CPU-s  "
             f"ratio {out['turn_ratios'][-1]:.2f}; turn-matched ratio {out['matched_ratios'][-1]:.2f}")
    for key in ("old", "new", "ratios", "old_turns", "new_turns", "turn_ratios", "matched_ratios"):
        out[f"median_{key}"] = statistics.median(out[key])
    out["median_ratio"] = out["median_ratios"]
    return out


def add_policy_arguments(ap: argparse.ArgumentParser) -> None:
    """The bot options of the side-by-side benchmarks: ``--axis-policy`` and
    ``--allied-policy`` (both versions), ``--old-axis-policy`` and
    ``--old-allied-policy`` (the old version only)."""
    ap.add_argument("--axis-policy", default=None, help="Axis bot in both versions (default: each version's default)")
    ap.add_argument("--allied-policy", default=None, help="Allied bot in both versions (default: each version's default)")
    ap.add_argument("--old-axis-policy", default=None, help="Axis bot of the old version only (default: as --axis-policy)")
    ap.add_argument("--old-allied-policy", default=None,
                    help="Allied bot of the old version only (default: as --allied-policy)")


def policies_from(a: argparse.Namespace) -> tuple[dict, dict | None]:
    """``(policies, old_policies)`` from the options of
    :func:`add_policy_arguments`: the ``axis_policy`` / ``allied_policy``
    keywords of both versions, and of the old one (None: as both)."""
    policies = {k: v for k, v in (("axis_policy", a.axis_policy), ("allied_policy", a.allied_policy)) if v}
    old_policies = None
    if a.old_axis_policy or a.old_allied_policy:
        old_policies = dict(policies)
        old_policies.update({k: v for k, v in (("axis_policy", a.old_axis_policy),
                                               ("allied_policy", a.old_allied_policy)) if v})
    return policies, old_policies


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="git revision to compare this checkout with (e.g. aa700fd, HEAD~3)")
    ap.add_argument("--scenario", default="hercules", choices=["intro", "hercules"])
    ap.add_argument("--games", type=int, default=100, help="games per timing (default 100)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--seed", type=int, default=1942)
    ap.add_argument("--warm", type=int, default=10, help="untimed warm-up games before each timing (default 10)")
    add_policy_arguments(ap)
    a = ap.parse_args(argv)
    policies, old_policies = policies_from(a)
    if a.games < 1 or a.rounds < 1 or a.warm < 1:
        ap.error("--games, --rounds and --warm must be at least 1")
    ok = subprocess.run(["git", "rev-parse", "--verify", f"{a.rev}^{{commit}}"], cwd=ROOT,
                        capture_output=True, text=True)
    if ok.returncode != 0:
        print(f"old_vs_new: {a.rev!r} is not a revision of this repository", file=sys.stderr)
        return 2
    sha = ok.stdout.strip()[:10]
    with tempfile.TemporaryDirectory(prefix="malta_old_") as tmp:
        old_root = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", str(old_root), sha], cwd=ROOT,
                       check=True, capture_output=True)
        try:
            bots = ", ".join(f"{k} {v}" for k, v in policies.items()) or "default bots"
            if old_policies is not None:
                bots += " (old: " + (", ".join(f"{k} {v}" for k, v in old_policies.items())) + ")"
            print(f"{a.scenario}, {a.games} games per timing after {a.warm} warm-up games, {a.rounds} rounds, "
                  f"{bots}; old = {sha}, new = this checkout")
            res = compare(old_root, ROOT, a.scenario, a.games, a.rounds, a.seed, policies=policies, warm=a.warm,
                          old_policies=old_policies)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old_root)], cwd=ROOT,
                           capture_output=True)
    print()
    print("| version | games per CPU-s (median) | per round |")
    print("|---|---:|---|")
    print(f"| old {sha} | {res['median_old']:.1f} | {', '.join(f'{x:.1f}' for x in res['old'])} |")
    print(f"| new (checkout) | {res['median_new']:.1f} | {', '.join(f'{x:.1f}' for x in res['new'])} |")
    print(f"\nnew/old: {res['median_ratio']:.2f} games per CPU-s (rounds {min(res['ratios']):.2f} .. "
          f"{max(res['ratios']):.2f}); {res['median_turn_ratios']:.2f} game turns per CPU-s (rounds "
          f"{min(res['turn_ratios']):.2f} .. {max(res['turn_ratios']):.2f}; mean game length old "
          f"{res['median_old_turns'] / res['median_old']:.1f}, new {res['median_new_turns'] / res['median_new']:.1f} turns); "
          f"{res['median_matched_ratios']:.2f} turn-matched (the CPU cost of a turn of each number, "
          f"weighted alike for both; rounds {min(res['matched_ratios']):.2f} .. {max(res['matched_ratios']):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
