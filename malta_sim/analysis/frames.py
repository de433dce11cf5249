"""Result frames: loading, validation, derived columns and the game calendar.

A *result frame* has one row per game (see :mod:`malta_sim.games.registry`):
``game, seed, scenario, axis_policy, allied_policy, options, winner,
end_reason, end_turn, end_date, ...``; a sweep adds an ``arm`` column (arms
share game indices and seeds: common random numbers).  The optional *per-turn
frame* is long, one row per ``(game, turn)`` (plus ``arm`` in sweeps).

Calendar (rule 4.0 and scenario time periods, rules 22.22 / 22.32): each day
has three day game turns (AM, noon, PM) and one night turn, so 4 turns a day.
Turn 1 is the AM turn of the scenario's first day (30 June 1942 for the
Introductory Scenario, 29 June 1942 for Operation Hercules).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import OptionError

#: Names of the four game turns of a day, in order (rule 4.0).
TURN_NAMES = ("AM", "noon", "PM", "night")
TURNS_PER_DAY = 4


@dataclass(frozen=True)
class Calendar:
    """The date range a scenario covers.

    Attributes
    ----------
    start : str
        ISO date of the first day (turn 1 is its AM turn).
    days : int
        Number of days played; the last turn is ``4 * days``.
    """

    start: str
    days: int

    @property
    def last_turn(self) -> int:
        return TURNS_PER_DAY * self.days

    def date_of(self, turn):
        """Calendar date (``datetime64[D]``) of a turn number or array of them.

        Parameters
        ----------
        turn : int or array_like of int
            1-based game turn numbers.

        Returns
        -------
        numpy.datetime64 or numpy.ndarray of datetime64[D]
        """
        t = np.asarray(turn, dtype=np.int64)
        return np.datetime64(self.start, "D") + (t - 1) // TURNS_PER_DAY

    def label(self, turn: int) -> str:
        """Human label of a turn, e.g. ``'3 Jul PM'``."""
        turn = int(turn)
        d = pd.Timestamp(self.date_of(turn))
        return f"{d.day} {d.strftime('%b')} {TURN_NAMES[(turn - 1) % TURNS_PER_DAY]}"

    def day_starts(self) -> np.ndarray:
        """Turn numbers of each day's AM turn, int64[days]."""
        return 1 + TURNS_PER_DAY * np.arange(self.days, dtype=np.int64)


#: Scenario calendars (rules 22.22 and 22.32).
CALENDARS: dict[str, Calendar] = {
    "intro": Calendar("1942-06-30", 6),  # 30 June - 5 July (rule 22.22)
    "hercules": Calendar("1942-06-29", 12),  # 29 June - 10 July (rule 22.32)
}


def calendar_for(scenario: str | None, frame: pd.DataFrame | None = None) -> Calendar:
    """The calendar of a scenario.

    Unknown scenarios fall back to a calendar starting 29 June 1942 whose
    length covers the largest ``end_turn`` in ``frame``.
    """
    if scenario in CALENDARS:
        return CALENDARS[scenario]
    last = 48
    if frame is not None and "end_turn" in frame and len(frame):
        last = int(np.nanmax(frame["end_turn"].to_numpy(dtype=float)))
    return Calendar("1942-06-29", max(1, -(-last // TURNS_PER_DAY)))


REQUIRED_COLUMNS = ("game", "winner", "end_reason", "end_turn")


def load_results(
    path: str | os.PathLike, per_turn_path: str | os.PathLike | None = None
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Read a result frame written by ``malta-sim run`` / ``malta-sim sweep``.

    Parameters
    ----------
    path : path-like
        A ``.parquet``/``.pq``/``.csv`` file of game rows (read with
        :func:`malta_sim.batch.read_frame`, which restores the provenance in
        ``attrs``), or a folder holding ``games.parquet``/``results.parquet`` or
        the batch checkpoint chunks ``games-*.parquet`` (and ``turns-*.parquet``).
    per_turn_path : path-like, optional
        The per-turn frame (``malta-sim run --per-turn FILE``).  Without it, a
        ``per_turn.*`` / ``<stem>_per_turn.*`` file beside ``path`` is used.

    Returns
    -------
    games : pandas.DataFrame
        One row per game (per arm), as written.
    per_turn : pandas.DataFrame or None
        The long per-turn frame, when one was given or found.

    Raises
    ------
    OptionError
        If a path does not exist or cannot be read, holds no result rows, or
        lacks the required columns ``game, winner, end_reason, end_turn``.
    """
    p = Path(path)
    if not p.exists():
        raise OptionError(f"RESULTS: no such file or directory: {p}")
    per_turn = None
    try:
        if p.is_dir():
            games_file = next(
                (p / n for n in ("games.parquet", "results.parquet", "games.csv", "results.csv") if (p / n).exists()),
                None,
            )
            if games_file is not None:
                games = _read_table(games_file)
            else:
                chunks = sorted(p.glob("games-*.parquet")) or sorted(
                    f for f in p.glob("*.parquet")
                    if not f.name.startswith(("turns-", "per_turn", "events"))
                )
                if not chunks:
                    raise OptionError(f"RESULTS: no result files (games.parquet, games-*.parquet) in {p}")
                games = pd.concat([pd.read_parquet(f) for f in chunks], ignore_index=True)
                games = games.sort_values("game", kind="stable").reset_index(drop=True) if "game" in games else games
            if per_turn_path is None:
                turn_chunks = sorted(p.glob("turns-*.parquet"))
                if turn_chunks:
                    per_turn = pd.concat([pd.read_parquet(f) for f in turn_chunks], ignore_index=True)
                for cand in (p / "per_turn.parquet", p / "per_turn.csv"):
                    if per_turn is None and cand.exists():
                        per_turn = _read_table(cand)
        else:
            games = _read_table(p)
            if per_turn_path is None:
                stem = p.name[: -len(p.suffix)] if p.suffix else p.name
                for cand in (p.with_name(stem + "_per_turn" + p.suffix), p.with_name("per_turn" + p.suffix)):
                    if cand.exists() and cand != p:
                        per_turn = _read_table(cand)
                        break
        if per_turn_path is not None:
            q = Path(per_turn_path)
            if not q.is_file():
                raise OptionError(f"--per-turn: no such file: {q}")
            per_turn = _read_table(q)
    except OptionError:
        raise
    except Exception as exc:  # unreadable file: one-line error, not a traceback
        raise OptionError(f"RESULTS: cannot read {p}: {type(exc).__name__}: {exc}".splitlines()[0]) from None
    check_frame(games, "RESULTS")
    return games, per_turn


def _read_table(f: Path) -> pd.DataFrame:
    if f.suffix.lower() not in (".csv", ".parquet", ".pq"):
        raise OptionError(f"RESULTS: unsupported file type {f.suffix!r} (use .parquet or .csv): {f}")
    from ..batch import read_frame  # restores provenance attrs

    return read_frame(f)


def check_frame(games: pd.DataFrame, name: str = "games") -> None:
    """Raise :class:`OptionError` unless ``games`` has the required columns and rows."""
    missing = [c for c in REQUIRED_COLUMNS if c not in games.columns]
    if missing:
        raise OptionError(f"{name}: result frame lacks column(s) {', '.join(missing)}")
    if len(games) == 0:
        raise OptionError(f"{name}: result frame has no rows")
    bad = set(games["winner"].dropna().astype(str)) - {"axis", "allied"}
    if bad:
        raise OptionError(f"{name}: column 'winner' must be 'axis' or 'allied', found {sorted(bad)}")


def with_outcomes(games: pd.DataFrame) -> pd.DataFrame:
    """Copy of ``games`` with derived outcome columns.

    Adds ``axis_win`` (bool), ``end_day`` (int, 1 = first day of the
    scenario), ``end_turn_name`` (AM/noon/PM/night) and ``arm`` (the arm, or a
    label built from scenario/policies/options when the frame has no ``arm``).
    """
    out = games.copy()
    out["axis_win"] = out["winner"].astype(str).eq("axis")
    t = out["end_turn"].astype("int64")
    out["end_day"] = (t - 1) // TURNS_PER_DAY + 1
    out["end_turn_name"] = np.asarray(TURN_NAMES, dtype=object)[((t - 1) % TURNS_PER_DAY).to_numpy()]
    if "arm" not in out.columns:
        out["arm"] = default_arm_labels(out)
    out["arm"] = out["arm"].astype(str)
    return out


def default_arm_labels(games: pd.DataFrame) -> pd.Series:
    """A label per row from whichever of scenario/policies/options vary.

    With a single configuration the label is the scenario name (or ``'all'``).
    """
    cols = [c for c in ("scenario", "axis_policy", "allied_policy", "options") if c in games.columns]
    varying = [c for c in cols if games[c].astype(str).nunique() > 1]
    if not varying:
        base = games["scenario"].astype(str) if "scenario" in games.columns else pd.Series("all", index=games.index)
        return base
    return games[varying].astype(str).agg(" | ".join, axis=1)


def scenario_of(games: pd.DataFrame) -> str | None:
    """The single scenario in a frame, or ``None`` when absent or mixed."""
    if "scenario" not in games.columns:
        return None
    vals = games["scenario"].dropna().astype(str).unique()
    return str(vals[0]) if len(vals) == 1 else None
