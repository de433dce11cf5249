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
the full one).  ``--wide`` plays a broader panel instead (about 200 games):
every Axis preset against every Allied preset, each optional rule, a bot
parameter vector, and the test-mode invariant checks; save and check it with
``--wide`` both times.  Exit status 0 when all equal, 1 when something
differs.
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


def wide_panel() -> list[tuple]:
    """The ``--wide`` panel: ``(scenario, axis, allied, seed, games, options,
    policy params, check)`` entries."""
    panel = []
    for scen in ("intro", "hercules"):
        for i, ax in enumerate(("balanced", "aggressive", "cautious", "solitaire", "random")):
            for j, al in enumerate(("static", "counterattack", "random")):
                panel.append((scen, ax, al, 100 + 10 * i + j, 3, (), None, False))
        opts = ("no_invasion", "solitaire") if scen == "intro" else (
            "no_invasion", "solitaire", "variable_allied_placement", "delayed_landings")
        for k, o in enumerate(opts):
            panel.append((scen, "balanced", "counterattack", 200 + k, 4, (o,), None, False))
        panel.append((scen, "balanced", "static", 300, 4, (),
                      {"axis": {"min_odds": 1, "risk_weight": 0.2}}, False))
        panel.append((scen, "aggressive", "counterattack", 301, 3, (), None, True))
        panel.append((scen, "random", "random", 302, 2, (), None, True))
    for k, o in enumerate(("weather-roll", "dispersed-group-b", "no-first-turn-penalty")):
        panel.append(("im-c3", "hold-first", "static", 400 + k, 2, (o,), None, False))
    return panel


def play_panel(quick: bool = False, wide: bool = False) -> dict:
    """Play the panel; returns ``{key: {"games", "per_turn", "events"}}``."""
    import numpy as np

    from malta_sim.games.registry import get_scenario

    if wide:
        entries = wide_panel()
    else:
        entries = [(scen, ax, al, seed, nq if quick else n, (), None, False)
                   for scen, ax, al, seed, n, nq in PANEL]
    out = {}
    for scen, ax, al, seed, n_games, opts, params, check in entries:
        spec = get_scenario(scen)
        play = spec.play_fn()
        t = time.process_time()
        kw = {"policy_params": params} if params else {}
        if check:
            kw["check"] = True
        res = play(scen, seed, np.arange(n_games), axis_policy=ax, allied_policy=al,
                   options=opts, data_dir=None, per_turn=True, event_log=True, **kw)
        key = f"{scen}/{ax}/{al}/seed{seed}" + (f"/{','.join(opts)}" if opts else "") \
            + ("/params" if params else "") + ("/check" if check else "")
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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog="Exit status 0 when all equal, 1 when something differs.")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", metavar="FILE", help="play the panel and save its frames to FILE (run on the old code)")
    g.add_argument("--check", metavar="FILE", help="play the panel and compare it with FILE (run on the new code)")
    ap.add_argument("--quick", action="store_true", help="a third of the games (checkable against a full save)")
    ap.add_argument("--wide", action="store_true",
                    help="the broader panel: every preset pairing, each option, invariant checks (save it with --wide too)")
    a = ap.parse_args(argv)
    if a.check and not Path(a.check).is_file():
        print(f"--check: no such file: {a.check}", file=sys.stderr)
        return 2
    now = play_panel(a.quick, a.wide)
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
