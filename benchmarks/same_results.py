"""Check that a speed change left every game exactly as it was.

    python benchmarks/same_results.py --save before.pkl      # on the old code
    python benchmarks/same_results.py --check before.pkl     # on the new code
    python benchmarks/same_results.py --check before.pkl --quick

Plays a fixed panel of games (both Island of Death scenarios under several
bot pairings, and Invasion: Malta) with the per-turn frame and the event log,
and either saves the three frames per panel entry (``--save``) or compares
them with a saved copy (``--check``), printing the first difference.  A
speed-up that changes no result passes; one that changes a die roll, a
decision or an event fails here before any statistics could hide it.

``--quick`` plays a smaller panel (about a third of the games); a file saved
without ``--quick`` can be checked with it (the quick panel is a prefix of
the full one).  Exit status 0 when all equal, 1 when something differs.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

#: (scenario, axis policy, allied policy, seed, number of games, quick number)
PANEL = (
    ("intro", "balanced", "static", 7, 12, 4),
    ("hercules", "balanced", "static", 7, 12, 4),
    ("intro", "random", "random", 7, 6, 2),
    ("hercules", "random", "random", 7, 6, 2),
    ("hercules", "aggressive", "counterattack", 11, 6, 2),
    ("hercules", "cautious", "counterattack", 13, 4, 1),
    ("intro", "solitaire", "counterattack", 17, 4, 1),
    ("im-c3", "advance", "counter", 5, 4, 2),
)


def play_panel(quick: bool = False) -> dict:
    """Play the panel; returns ``{key: {"games", "per_turn", "events"}}``."""
    import numpy as np

    from malta_sim.games.registry import get_scenario

    out = {}
    for scen, ax, al, seed, n, nq in PANEL:
        spec = get_scenario(scen)
        play = spec.play_fn()
        n_games = nq if quick else n
        t = time.process_time()
        res = play(scen, seed, np.arange(n_games), axis_policy=ax, allied_policy=al,
                   options=(), data_dir=None, per_turn=True, event_log=True)
        key = f"{scen}/{ax}/{al}/seed{seed}"
        out[key] = {"games": res.games, "per_turn": res.per_turn, "events": res.events,
                    "n": n_games}
        print(f"{key}: {n_games} games, {time.process_time() - t:.2f} CPU-s", flush=True)
    return out


def _first_difference(a, b) -> str | None:
    import pandas as pd

    if a is None or b is None:
        return None if a is None and b is None else "one frame is missing"
    try:
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))
    except AssertionError as exc:
        return str(exc).splitlines()[0] + " | " + " ".join(str(exc).split())[:400]
    return None


def compare(saved: dict, now: dict) -> list[str]:
    """Differences between a saved panel and a fresh one (games played in both)."""
    problems = []
    for key, frames in now.items():
        if key not in saved:
            problems.append(f"{key}: not in the saved file")
            continue
        old = saved[key]
        n = frames["n"]
        if n > old["n"]:
            problems.append(f"{key}: saved file has {old['n']} games, {n} played")
            continue
        for part in ("games", "per_turn", "events"):
            a, b = old[part], frames[part]
            if a is not None and n < old["n"]:
                a = a[a["game"] < n]
            diff = _first_difference(a, b)
            if diff:
                problems.append(f"{key} {part}: {diff}")
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", metavar="FILE")
    g.add_argument("--check", metavar="FILE")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args(argv)
    if a.check and not Path(a.check).is_file():
        print(f"--check: no such file: {a.check}", file=sys.stderr)
        return 2
    now = play_panel(a.quick)
    if a.save:
        with open(a.save, "wb") as f:
            pickle.dump(now, f)
        print(f"saved {sum(v['n'] for v in now.values())} games to {a.save}")
        return 0
    with open(a.check, "rb") as f:
        saved = pickle.load(f)
    problems = compare(saved, now)
    for p in problems:
        print("DIFFERENT:", p)
    if not problems:
        print(f"same: {sum(v['n'] for v in now.values())} games, their per-turn frames and event logs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
