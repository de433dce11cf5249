"""Result frames: loading, validation, derived columns and the game calendar.

A *result frame* has one row per game (see :mod:`malta_sim.games.registry`):
``game, seed, scenario, axis_policy, allied_policy, options, winner,
end_reason, end_turn, end_date, ...``; a sweep adds an ``arm`` column (arms
share game indices and seeds: common random numbers).  The optional *per-turn
frame* is long, one row per ``(game, turn)`` (plus ``arm`` in sweeps).

Calendar (rule 4.0 and the scenario time periods, rules 22.22 / 22.32): each
day has three day game turns (AM, noon, PM) and one night turn, 4 turns a day.
Turns are numbered as the engine numbers them: the *absolute* game turn, with
turn 0 = 29 June 1942 AM, so day = turn // 4 and time of day = turn % 4.  The
Introductory Scenario plays turns 4-27 (30 June - 5 July), Operation Hercules
turns 0-47 (29 June - 10 July).  "Never" in a turn column is -1 (or NaN).

End reasons are shown under three names whatever the engine calls them
(:data:`END_REASON_ALIASES`): ``surrender`` (Axis win, rule 20.3),
``operation cancelled`` (the Axis suspends the invasion, modified surrender
roll 14+, rule 20.3) and ``time limit`` (Malta holds at the end of the last
turn).
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
#: Date of absolute turn 0 (29 June 1942 AM, first turn of Operation Hercules).
DAY_ZERO = "1942-06-29"

#: Engine end-reason names -> the names used in reports.
END_REASON_ALIASES = {
    "surrender": "surrender",
    "malta_surrenders": "surrender",
    "invasion_suspended": "operation cancelled",
    "suspended": "operation cancelled",
    "operation_cancelled": "operation cancelled",
    "operation cancelled": "operation cancelled",
    "cancelled": "operation cancelled",
    "last_turn": "time limit",
    "time_limit": "time limit",
    "time limit": "time limit",
}


@dataclass(frozen=True)
class Calendar:
    """The turns a scenario covers.

    Attributes
    ----------
    first_turn, last_turn : int
        Absolute game turns (0 = 29 June 1942 AM) of the first and last turn.
    """

    first_turn: int
    last_turn: int

    @property
    def days(self) -> int:
        return self.last_turn // TURNS_PER_DAY - self.first_turn // TURNS_PER_DAY + 1

    @property
    def start(self) -> str:
        """ISO date of the first day."""
        return str(self.date_of(self.first_turn))

    @property
    def turns(self) -> np.ndarray:
        """All turns of the scenario, int64[n_turns]."""
        return np.arange(self.first_turn, self.last_turn + 1, dtype=np.int64)

    @staticmethod
    def date_of(turn):
        """Calendar date (``datetime64[D]``) of an absolute turn or array of them.

        Parameters
        ----------
        turn : int or array_like of int
            Absolute game turns (0 = 29 June 1942 AM).

        Returns
        -------
        numpy.datetime64 or numpy.ndarray of datetime64[D]
        """
        t = np.asarray(turn, dtype=np.int64)
        return np.datetime64(DAY_ZERO, "D") + t // TURNS_PER_DAY

    @classmethod
    def label(cls, turn: int) -> str:
        """Human label of a turn, e.g. ``'3 Jul PM'``."""
        turn = int(turn)
        d = pd.Timestamp(cls.date_of(turn))
        return f"{d.day} {d.strftime('%b')} {TURN_NAMES[turn % TURNS_PER_DAY]}"

    def day_starts(self) -> np.ndarray:
        """Absolute turns of each day's AM turn, int64[days]."""
        first = (self.first_turn // TURNS_PER_DAY) * TURNS_PER_DAY
        return first + TURNS_PER_DAY * np.arange(self.days, dtype=np.int64)

    def day_number(self, turn):
        """Day of the scenario (1 = its first day) of absolute turn(s)."""
        t = np.asarray(turn, dtype=np.int64)
        return t // TURNS_PER_DAY - self.first_turn // TURNS_PER_DAY + 1


#: Scenario calendars (rules 22.22 and 22.32).
CALENDARS: dict[str, Calendar] = {
    "intro": Calendar(4, 27),  # 30 June AM - 5 July night (rule 22.22)
    "hercules": Calendar(0, 47),  # 29 June AM - 10 July night (rule 22.32)
}


def calendar_for(scenario: str | None, frame: pd.DataFrame | None = None) -> Calendar:
    """The calendar of a scenario.

    Unknown scenarios get turns 0 .. the largest ``end_turn`` in ``frame``
    (at least one day).
    """
    if scenario in CALENDARS:
        return CALENDARS[scenario]
    last = 47
    if frame is not None and "end_turn" in frame and len(frame):
        last = int(np.nanmax(frame["end_turn"].to_numpy(dtype=float)))
    return Calendar(0, max(3, (last // TURNS_PER_DAY) * TURNS_PER_DAY + 3))


def canonical_end_reason(reason) -> str:
    """Report name of an engine end reason (see :data:`END_REASON_ALIASES`)."""
    r = str(reason)
    return END_REASON_ALIASES.get(r, END_REASON_ALIASES.get(r.lower().replace(" ", "_"), r))


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

    Adds ``axis_win`` (bool; rule 20.3: the Axis wins only by surrender),
    ``end_day`` (int, 1 = first day of the scenario), ``end_turn_name``
    (AM/noon/PM/night), replaces ``end_reason`` by its report name
    (:func:`canonical_end_reason`; the engine's name is kept in
    ``end_reason_raw``) and adds ``arm`` (the arm, or a label built from
    scenario/policies/options when the frame has no ``arm``).
    """
    out = games.copy()
    out["axis_win"] = out["winner"].astype(str).eq("axis")
    cal = calendar_for(scenario_of(out), out)
    t = out["end_turn"].astype("int64")
    out["end_day"] = cal.day_number(t.to_numpy())
    out["end_turn_name"] = np.asarray(TURN_NAMES, dtype=object)[(t % TURNS_PER_DAY).to_numpy()]
    if "end_reason_raw" not in out.columns:
        out["end_reason_raw"] = out["end_reason"]
        out["end_reason"] = out["end_reason"].map(canonical_end_reason)
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
        if {"axis_policy", "allied_policy"} <= set(games.columns):
            base = base + ": " + games["axis_policy"].astype(str) + " vs " + games["allied_policy"].astype(str)
        if "options" in games.columns:
            opts = games["options"].astype(str)
            base = base + np.where(opts.isin(["", "none", "nan", "()"]), "", " + " + opts)
        return base
    return games[varying].astype(str).agg(" | ".join, axis=1)


def scenario_of(games: pd.DataFrame) -> str | None:
    """The single scenario in a frame, or ``None`` when absent or mixed."""
    if "scenario" not in games.columns:
        return None
    vals = games["scenario"].dropna().astype(str).unique()
    return str(vals[0]) if len(vals) == 1 else None
