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
Invasion: Malta scenarios number their turns from 1, three a day (AM, PM,
Night; rule 8.4) and print no calendar date, so their calendar is undated
("day 2 PM"); which game a scenario belongs to comes from the frame's
provenance or the scenario registry (:func:`game_of`).

End reasons are shown under one name each whatever the engine calls them
(:data:`END_REASON_ALIASES`; the table of codes and names is
:data:`malta_sim.analysis.glossary.END_REASON_CODES`).  Island of Death: ``surrender`` (Axis win, rule
20.3), ``operation cancelled`` (the Axis suspends the invasion, modified
surrender roll 14+, rule 20.3) and ``time limit`` (Malta holds at the end of
the last turn).  Invasion: Malta (victory conditions reconstructed):
``sudden victory``, ``objectives at end``, ``Axis eliminated``, ``time limit``.
An Axis win is a surrender only in Island of Death.
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

#: Engine end-reason names -> the names used in reports.  Island of Death
#: (rule 20.3): surrender (Axis win), operation cancelled (Allied win, roll
#: 14+), time limit.  Invasion: Malta (rule 4.22 sudden victory; its victory
#: conditions are not printed and are reconstructed, docs/invasion_malta.md):
#: sudden victory (the Axis holds every objective), objectives at end,
#: Axis eliminated, time limit.
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
    "time": "time limit",
    "sudden_objectives": "sudden victory",
    "sudden victory": "sudden victory",
    "objectives": "objectives at end",
    "objectives at end": "objectives at end",
    "axis_eliminated": "Axis eliminated",
    "axis eliminated": "Axis eliminated",
    "turn_cap": "turn cap",
    "turn cap": "turn cap",
}

#: What each report end reason means, per game (for the report's wording).
END_REASON_MEANING = {
    "surrender": "Malta surrenders (modified surrender roll 0 or less, rule 20.3)",
    "operation cancelled": "the Axis calls the operation off (modified surrender roll 14+, rule 20.3)",
    "time limit": "Malta holds to the end of the last turn",
    "sudden victory": "the Axis holds every objective hex (sudden victory, rule 4.22; conditions reconstructed)",
    "objectives at end": "the Axis holds enough objectives at the end (reconstructed victory condition)",
    "Axis eliminated": "no Axis unit left on the map or to arrive (reconstructed victory condition)",
    "turn cap": "the engine's safety stop on game length (never reached in a correct game)",
}


class _either:
    """Method usable on an instance or on the class itself (then on the
    Island of Death calendar from 29 June 1942, turn 0: the old static form
    ``Calendar.label(t)``)."""

    def __init__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__

    def __get__(self, obj, cls):
        target = obj if obj is not None else cls(0, 47)
        return self.fn.__get__(target, cls)


@dataclass(frozen=True)
class Calendar:
    """The turns a scenario covers and how they map to days.

    Attributes
    ----------
    first_turn, last_turn : int
        Turn numbers as the engine writes them (``end_turn``): Island of Death
        counts absolute turns from 0 = 29 June 1942 AM; Invasion: Malta counts
        from 1.
    turns_per_day : int
        4 in Island of Death (AM, noon, PM, night; rule 4.0), 3 in Invasion:
        Malta (AM, PM, Night; rule 8.4).
    turn_names : tuple of str
        Name of each turn of a day, in order.
    day_zero : str or None
        ISO date of the day that turn ``origin`` opens; ``None`` when the
        scenario prints no date (labels then read "day 2 PM").
    origin : int
        Turn number opening day 0.
    period : str
        Words for the scenario's time, e.g. "29 June - 10 July 1942".
    """

    first_turn: int
    last_turn: int
    turns_per_day: int = TURNS_PER_DAY
    turn_names: tuple = TURN_NAMES
    day_zero: str | None = DAY_ZERO
    origin: int = 0
    period: str = ""

    @property
    def dated(self) -> bool:
        """True when turns map to calendar dates."""
        return self.day_zero is not None

    def day_index(self, turn):
        """Day since ``day_zero`` (0-based) of turn(s), int64."""
        return (np.asarray(turn, dtype=np.int64) - self.origin) // self.turns_per_day

    @property
    def days(self) -> int:
        return int(self.day_index(self.last_turn) - self.day_index(self.first_turn) + 1)

    @property
    def start(self) -> str | None:
        """ISO date of the first day (``None`` for an undated calendar)."""
        return str(self.date_of(self.first_turn)) if self.dated else None

    @property
    def turns(self) -> np.ndarray:
        """All turns of the scenario, int64[n_turns]."""
        return np.arange(self.first_turn, self.last_turn + 1, dtype=np.int64)

    @_either
    def date_of(self, turn):
        """Calendar date (``datetime64[D]``) of a turn or array of them (NaT when undated).

        Parameters
        ----------
        turn : int or array_like of int
            Turn numbers (see ``first_turn``).

        Returns
        -------
        numpy.datetime64 or numpy.ndarray of datetime64[D]
        """
        d = self.day_index(turn)
        if not self.dated:
            return np.full(np.shape(d), np.datetime64("NaT"), dtype="datetime64[D]") if np.ndim(d) else \
                np.datetime64("NaT")
        return np.datetime64(self.day_zero, "D") + d

    @_either
    def turn_name(self, turn) -> str:
        """Name of the turn of the day (``'PM'``)."""
        return self.turn_names[int((int(turn) - self.origin) % self.turns_per_day)]

    @_either
    def day_label(self, turn) -> str:
        """Label of a turn's day: ``'03 Jul'``, or ``'day 2'`` when undated."""
        if self.dated:
            return pd.Timestamp(self.date_of(int(turn))).strftime("%d %b")
        return f"day {int(self.day_number(int(turn)))}"

    @_either
    def label(self, turn) -> str:
        """Human label of a turn, e.g. ``'3 Jul PM'`` or ``'day 2 PM'``."""
        turn = int(turn)
        if self.dated:
            d = pd.Timestamp(self.date_of(turn))
            return f"{d.day} {d.strftime('%b')} {self.turn_name(turn)}"
        return f"day {int(self.day_number(turn))} {self.turn_name(turn)}"

    def day_starts(self) -> np.ndarray:
        """Turns opening each day of the scenario, int64[days]."""
        first = self.origin + self.day_index(self.first_turn) * self.turns_per_day
        return first + self.turns_per_day * np.arange(self.days, dtype=np.int64)

    def is_day_end(self, turn):
        """True for the last turn of a day (the night turn)."""
        return (np.asarray(turn, dtype=np.int64) - self.origin) % self.turns_per_day == self.turns_per_day - 1

    def day_number(self, turn):
        """Day of the scenario (1 = its first day) of turn(s)."""
        return self.day_index(turn) - self.day_index(self.first_turn) + 1

    def describe(self) -> str:
        """One phrase on the turn numbering, for report text."""
        names = ", ".join(self.turn_names)
        if self.dated:
            return (f"turn {self.origin} = {self.label(self.origin)}, {self.turns_per_day} turns a day "
                    f"({names}); day 1 = the scenario's first day")
        return (f"turns from {self.first_turn}, {self.turns_per_day} a day ({names}); day 1 = the scenario's "
                "first day" + (f"; {self.period}, no day printed" if self.period else "; no date printed"))


#: Scenario calendars (rules 22.22 and 22.32).
CALENDARS: dict[str, Calendar] = {
    "intro": Calendar(4, 27, period="30 June - 5 July 1942"),  # 30 June AM - 5 July night (rule 22.22)
    "hercules": Calendar(0, 47, period="29 June - 10 July 1942"),  # 29 June AM - 10 July night (rule 22.32)
}

#: Invasion: Malta day: AM, PM and Night turns (rule 8.4), numbered from 1.
IM_TURN_NAMES = ("AM", "PM", "Night")


def game_of(scenario: str | None, frame: pd.DataFrame | None = None) -> str | None:
    """The game (``'island_of_death'`` / ``'invasion_malta'``) of a scenario.

    From the frame's provenance (``attrs['game']``), else the scenario
    registry; ``None`` when neither knows.
    """
    g = (frame.attrs.get("game") if frame is not None and frame.attrs else None)
    if g:
        return str(g)
    if scenario is None:
        return None
    from ..games.registry import get_scenario

    try:
        return get_scenario(scenario).game
    except Exception:  # unknown name (synthetic frames)
        return None


def _im_calendar(scenario: str, frame: pd.DataFrame | None) -> Calendar:
    """Invasion: Malta calendar: turns 1..N, AM/PM/Night (rule 8.4).

    N is the scenario's ``turns`` setting (``scenario_<name>.csv``), at least
    the frame's largest ``end_turn``.  The rules print no calendar date, so the
    calendar is undated; the period comes from the registry title.
    """
    from ..games.registry import get_scenario

    n = 0
    try:
        from ..games.invasion_malta import csvio

        data_dir = frame.attrs.get("data_dir") if frame is not None and frame.attrs else None
        name = scenario[3:] if scenario.startswith("im-") else scenario
        path = csvio.data_path(f"scenario_{name}.csv", data_dir)
        for _, r in csvio.read_rows(path, ("key", "value", "source")):
            if r["key"] == "turns":
                n = int(r["value"])
    except Exception:  # settings unreadable: fall back on the frame
        n = 0
    if frame is not None and "end_turn" in frame and len(frame):
        n = max(n, int(np.nanmax(frame["end_turn"].to_numpy(dtype=float))))
    n = max(n, 3)
    try:
        title = get_scenario(scenario).title
    except Exception:
        title = ""
    period = "early August 1942" if "August 1942" in title else ""
    return Calendar(1, n, turns_per_day=3, turn_names=IM_TURN_NAMES, day_zero=None, origin=1, period=period)


def calendar_for(scenario: str | None, frame: pd.DataFrame | None = None) -> Calendar:
    """The calendar of a scenario.

    Island of Death scenarios use :data:`CALENDARS` (rules 22.22, 22.32);
    Invasion: Malta scenarios (registry game ``invasion_malta``) an undated
    AM/PM/Night calendar from turn 1 (:func:`_im_calendar`).  Other
    scenarios get turns 0 .. the largest ``end_turn`` in ``frame`` (at least
    one day), dated from the frame's ``end_date`` column when the engine
    wrote one, else undated.
    """
    if scenario in CALENDARS:
        return CALENDARS[scenario]
    if scenario is not None and game_of(scenario, frame) == "invasion_malta":
        return _im_calendar(scenario, frame)
    last = 47
    day_zero = None
    if frame is not None and "end_turn" in frame and len(frame):
        last = int(np.nanmax(frame["end_turn"].to_numpy(dtype=float)))
        if "end_date" in frame.columns:
            try:
                d = pd.to_datetime(frame["end_date"].iloc[0]) - pd.Timedelta(
                    days=int(frame["end_turn"].iloc[0]) // TURNS_PER_DAY)
                day_zero = str(d.date())
            except (ValueError, TypeError):
                day_zero = None
    return Calendar(0, max(3, (last // TURNS_PER_DAY) * TURNS_PER_DAY + 3), day_zero=day_zero)


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
                games.attrs = _checkpoint_provenance(p)
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


def _checkpoint_provenance(folder: Path) -> dict:
    """The inputs a batch checkpoint folder records (its ``manifest.json``:
    scenario, seed, bots, options, data hash ...) plus ``checkpoint``: the
    folder, so a report says that it shows the games finished so far, not
    necessarily a whole run (only that key when there is no readable
    manifest)."""
    import json

    try:
        inputs = json.loads((folder / "manifest.json").read_text())["inputs"]
    except (OSError, ValueError, KeyError, TypeError):
        return {"checkpoint": str(folder)}
    out = dict(inputs) if isinstance(inputs, dict) else {}
    out["checkpoint"] = str(folder)
    return out


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

    Adds ``axis_win`` (bool, ``winner == "axis"``: a surrender in Island of Death, rule 20.3; any victory
    condition in Invasion: Malta),
    ``end_day`` (int, 1 = first day of the scenario), ``end_turn_name``
    (AM/noon/PM/night), replaces ``end_reason`` by its report name
    (:func:`canonical_end_reason`; the engine's name is kept in
    ``end_reason_raw``) and adds ``arm`` (the arm, or a label built from
    scenario/policies/options/data hash when the frame has no ``arm``;
    rows of one label with different ``data_hash`` are split,
    :func:`split_by_data`).
    """
    out = games.copy()
    out["axis_win"] = out["winner"].astype(str).eq("axis")
    cal = calendar_for(scenario_of(out), out)
    t = out["end_turn"].astype("int64")
    out["end_day"] = cal.day_number(t.to_numpy())
    out["end_turn_name"] = [cal.turn_name(k) for k in t.to_numpy()]
    if "end_reason_raw" not in out.columns:
        out["end_reason_raw"] = out["end_reason"]
        out["end_reason"] = out["end_reason"].map(canonical_end_reason)
    if "arm" not in out.columns:
        out["arm"] = default_arm_labels(out)
    out["arm"] = out["arm"].astype(str)
    out["arm"] = split_by_data(out)
    return out


def split_by_data(games: pd.DataFrame) -> pd.Series:
    """Arm labels that never pool rows played with different game data.

    Frames joined from several runs (or sweeps whose arms share a name) can
    hold one arm label with more than one ``data_hash``; such a label gets
    ``" [data <first 8 hex digits>]"`` per hash, so every analysis and the
    report keep the data variants apart.  Labels with one hash are kept.

    Returns
    -------
    pandas.Series of str
        Aligned with ``games.index``.
    """
    arm = games["arm"].astype(str)
    if "data_hash" not in games.columns:
        return arm
    h = games["data_hash"].astype(str)
    mixed = h.groupby(arm).transform("nunique") > 1
    if not mixed.any():
        return arm
    return arm.where(~mixed, arm + " [data " + h.str[:8] + "]")


def default_arm_labels(games: pd.DataFrame) -> pd.Series:
    """A label per row from whichever of scenario/policies/options vary.

    With a single configuration the label is the scenario name (or ``'all'``).
    """
    cols = [c for c in ("scenario", "axis_policy", "allied_policy", "options", "data_hash") if c in games.columns]
    varying = [c for c in cols if games[c].astype(str).nunique() > 1]
    if not varying:
        base = games["scenario"].astype(str) if "scenario" in games.columns else pd.Series("all", index=games.index)
        if {"axis_policy", "allied_policy"} <= set(games.columns):
            base = base + ": " + games["axis_policy"].astype(str) + " vs " + games["allied_policy"].astype(str)
        if "options" in games.columns:
            opts = games["options"].astype(str)
            base = base + np.where(opts.isin(["", "none", "nan", "()"]), "", " + " + opts)
        return base
    parts = games[varying].astype(str)
    if "data_hash" in parts.columns:
        parts["data_hash"] = "data " + parts["data_hash"].str[:8]
    return parts.agg(" | ".join, axis=1)


def scenario_of(games: pd.DataFrame) -> str | None:
    """The single scenario in a frame, or ``None`` when absent or mixed."""
    if "scenario" not in games.columns:
        return None
    vals = games["scenario"].dropna().astype(str).unique()
    return str(vals[0]) if len(vals) == 1 else None
