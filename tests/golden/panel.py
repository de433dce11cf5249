"""The golden panel: seeded Island of Death games whose results are pinned.

Both scenarios, every Axis preset against every Allied preset (10 games a
pairing), each optional rule alone, and one non-default parameter vector:
512 games.  Each game is recorded as its result row plus two digests, one of
its event log and one of its per-turn rows, so a change of any die roll,
decision or event shows up as a changed game.

Refactors must leave every game identical.  A deliberate change of play (a
mended rule, a new bot decision, a data change) changes some games; then
count them and say why, and re-record::

    python tests/golden/panel.py --diff             # what differs from panel.csv, by game
    python tests/golden/panel.py --diff --against panel_e1c4d97.csv
    python tests/golden/panel.py --update           # re-record panel.csv

``panel_e1c4d97.csv`` is the panel as recorded before the engine was
restructured (commit e1c4d97); it is kept unchanged so that the games changed
since then by mended rules can be counted at any time.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
PANEL_CSV = HERE / "panel.csv"
BEFORE_CSV = HERE / "panel_e1c4d97.csv"

#: the Axis presets, the default (``tuned``) last so the seeds of the others
#: stay as they were recorded before it joined the panel
AXIS = ("balanced", "aggressive", "cautious", "solitaire", "random", "tuned")
ALLIED = ("static", "counterattack", "random", "active")
OPTIONS = {"intro": ("no_invasion", "solitaire"),
           "hercules": ("no_invasion", "solitaire", "variable_allied_placement",
                        "delayed_landings")}
PARAMS = {"axis": {"min_odds": 1, "risk_weight": 0.2},
          "allied": {"reserve_fraction": 0.5, "min_odds": 2}}
GAMES_PER_PAIRING = 10


def entries() -> list[dict]:
    """The panel's entries: scenario, policies, options, params, seed, games."""
    out = []
    for si, scen in enumerate(("intro", "hercules")):
        for i, ax in enumerate(AXIS):
            for j, al in enumerate(ALLIED):
                out.append(dict(scenario=scen, axis=ax, allied=al, options=(), params=None,
                                seed=1000 + 100 * si + 10 * i + j, games=GAMES_PER_PAIRING))
        for k, opt in enumerate(OPTIONS[scen]):
            out.append(dict(scenario=scen, axis="balanced", allied="counterattack",
                            options=(opt,), params=None, seed=2000 + 100 * si + k, games=4))
        out.append(dict(scenario=scen, axis="aggressive", allied="counterattack", options=(),
                        params=PARAMS, seed=3000 + si, games=4))
    return out


def entry_key(e: dict) -> str:
    key = f"{e['scenario']}/{e['axis']}/{e['allied']}/seed{e['seed']}"
    if e["options"]:
        key += "/" + ",".join(e["options"])
    if e["params"]:
        key += "/params"
    return key


def game_digest(frame: pd.DataFrame | None, game: int) -> str:
    """sha256 (first 16 hex digits) of the rows of game ``game`` in a
    per-game frame (an event log or per-turn rows with a ``game`` column),
    written as CSV text of strings; "" when the frame is None or empty.  Two
    versions of the engine that play a game alike give it the same digest."""
    if frame is None or not len(frame):
        return ""
    rows = frame[frame["game"] == game].astype(str).to_csv(index=False)
    return hashlib.sha256(rows.encode()).hexdigest()[:16]


def play_entry(e: dict) -> pd.DataFrame:
    """Result rows of one entry with ``key``, ``events_sha256`` and
    ``per_turn_sha256`` columns (strings, as stored)."""
    from malta_sim.games.registry import get_scenario

    play = get_scenario(e["scenario"]).play_fn()
    kw = {"policy_params": e["params"]} if e["params"] else {}
    res = play(e["scenario"], e["seed"], np.arange(e["games"]), axis_policy=e["axis"],
               allied_policy=e["allied"], options=tuple(e["options"]), data_dir=None,
               per_turn=True, event_log=True, **kw)
    g = res.games.copy()
    g.insert(0, "key", entry_key(e))
    g["events_sha256"] = [game_digest(res.events, int(i)) for i in g["game"]]
    g["per_turn_sha256"] = [game_digest(res.per_turn, int(i)) for i in g["game"]]
    return g.astype(str)


def play_panel(progress: bool = False) -> pd.DataFrame:
    frames = []
    for e in entries():
        frames.append(play_entry(e))
        if progress:
            print(f"  {entry_key(e)}: {e['games']} games", file=sys.stderr, flush=True)
    return pd.concat(frames, ignore_index=True)


def load(path: Path = PANEL_CSV) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, dtype=str)


def differences(saved: pd.DataFrame, now: pd.DataFrame) -> pd.DataFrame:
    """One row per game that differs: ``key``, ``game`` and the changed
    columns as ``column: saved -> now`` (digests only named)."""
    a = saved.set_index(["key", "game"])
    b = now.set_index(["key", "game"])
    rows = []
    for idx in a.index.union(b.index, sort=False):
        if idx not in a.index or idx not in b.index:
            rows.append({"key": idx[0], "game": idx[1],
                         "changed": "missing now" if idx not in b.index else "new game"})
            continue
        ra, rb = a.loc[idx], b.loc[idx]
        cols = [c for c in a.columns if c in b.columns and ra[c] != rb[c]]
        if cols:
            rows.append({"key": idx[0], "game": idx[1], "changed": "; ".join(
                c if c.endswith("sha256") else f"{c}: {ra[c]} -> {rb[c]}" for c in cols)})
    return pd.DataFrame(rows, columns=["key", "game", "changed"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="The golden panel of seeded games.")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--update", action="store_true", help="play the panel and re-record panel.csv")
    g.add_argument("--diff", action="store_true", help="play the panel and list the games that differ")
    ap.add_argument("--against", default=str(PANEL_CSV), help="recorded panel to diff against")
    ap.add_argument("--out", help="also write the panel played now to this CSV")
    a = ap.parse_args(argv)
    now = play_panel(progress=True)
    if a.out:
        now.to_csv(a.out, index=False)
    if a.update:
        now.to_csv(PANEL_CSV, index=False)
        print(f"wrote {PANEL_CSV} ({len(now)} games)")
        return 0
    d = differences(load(Path(a.against)), now)
    with pd.option_context("display.max_rows", None, "display.max_colwidth", 200,
                           "display.width", 250):
        print(d.to_string(index=False) if len(d) else "no game differs")
    print(f"{len(d)} of {len(now)} games differ")
    return 1 if len(d) else 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent.parent))
    sys.exit(main())
