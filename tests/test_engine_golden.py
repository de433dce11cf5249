"""Pinned results: a few seeded games must play exactly as recorded.

Speed work on the engine and the bots must leave every game as it was; this
test plays a small panel (Introductory Scenario and Operation Hercules under
the default bots, and one random pairing) and compares the result rows and a
digest of each game's event log with ``tests/golden/iod_games.csv``.

A deliberate change of play (a rule fix, a new bot decision, a data change)
changes these results; then regenerate the file and say why in the commit::

    python tests/test_engine_golden.py --update

``benchmarks/same_results.py`` does the same on a larger panel with the full
per-turn frames and event logs.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd

GOLDEN = Path(__file__).parent / "golden" / "iod_games.csv"

#: (scenario, axis policy, allied policy, seed, games)
PANEL = (
    ("intro", "balanced", "static", 7, 3),
    ("hercules", "balanced", "static", 7, 3),
    ("hercules", "random", "random", 7, 2),
)


def _event_digest(events: pd.DataFrame, game: int) -> str:
    rows = events[events["game"] == game].astype(str).to_csv(index=False)
    return hashlib.sha256(rows.encode()).hexdigest()[:16]


def play_panel() -> pd.DataFrame:
    """Result rows of the panel with an ``events_sha256`` column."""
    from malta_sim.games.island_of_death.engine import play_games

    frames = []
    for scen, ax, al, seed, n in PANEL:
        res = play_games(scen, seed, np.arange(n), axis_policy=ax, allied_policy=al, event_log=True)
        g = res.games.copy()
        g["events_sha256"] = [_event_digest(res.events, int(i)) for i in g["game"]]
        frames.append(g)
    return pd.concat(frames, ignore_index=True)


def test_games_play_as_recorded():
    """Every row and event-log digest equals the recorded one."""
    now = play_panel()
    saved = pd.read_csv(GOLDEN, keep_default_na=False, dtype=str)
    assert list(saved.columns) == list(now.columns)
    now_s = now.astype(str)
    for i in range(max(len(saved), len(now))):
        assert i < len(now) and i < len(saved), "panel size changed"
        diff = {c: (saved.at[i, c], now_s.at[i, c]) for c in saved.columns
                if saved.at[i, c] != now_s.at[i, c]}
        assert not diff, (f"row {i} ({now_s.at[i, 'scenario']} game {now_s.at[i, 'game']}) differs "
                          f"(recorded, now): {diff}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_engine_golden.py --update")
    GOLDEN.parent.mkdir(exist_ok=True)
    play_panel().to_csv(GOLDEN, index=False)
    print(f"wrote {GOLDEN}")
