"""Game length, end reasons and per-side numbers (steps lost, places held).

End reasons (rule 20.3 and the scenario time periods 22.22 / 22.32):
``surrender`` (modified surrender roll of 0 or less: Axis win),
``operation cancelled`` (modified roll of 14 or more: Allied win) and
``time limit`` (Malta still holds after the last night turn: Allied win).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from statsmodels.stats.weightstats import DescrStatsW

from ..errors import OptionError
from .frames import TURN_NAMES, calendar_for, scenario_of, with_outcomes
from .rates import proportion_interval

END_REASONS = ("surrender", "operation cancelled", "time limit")

#: Numeric per-game columns summarised by :func:`numeric_summary` when present.
NUMERIC_COLUMNS = (
    "end_turn",
    "axis_steps_lost",
    "allied_steps_lost",
    "airfields_axis",
    "cities_axis",
    "towns_axis",
    "forts_destroyed",
    "axis_hqs_lost",
    "warships_damaged",
    "final_surrender_modifier",
    "weather_days_rainy",
)


def end_reasons(games: pd.DataFrame, by: str = "arm", *, alpha: float = 0.05) -> pd.DataFrame:
    """Share of games ending each way, per group, with Wilson intervals.

    Returns
    -------
    pandas.DataFrame
        group, ``end_reason``, ``winner``, ``games`` (int, group size),
        ``count`` (int), ``share``, ``low``, ``high``.  Reasons that never
        occurred in a group are listed with count 0.
    """
    df = with_outcomes(games)
    reasons = list(END_REASONS) + sorted(set(df["end_reason"].astype(str)) - set(END_REASONS))
    rows = []
    for g, sub in df.groupby(by, sort=True):
        n = len(sub)
        for r in reasons:
            hit = sub["end_reason"].astype(str).eq(r)
            k = int(hit.sum())
            winners = sub.loc[hit, "winner"].astype(str).unique()
            w = winners[0] if len(winners) == 1 else ("axis" if r == "surrender" else "allied" if k == 0 else "mixed")
            lo, hi = proportion_interval(k, n, alpha=alpha)
            rows.append((g, r, w, n, k, k / n, lo, hi))
    return pd.DataFrame(rows, columns=[by, "end_reason", "winner", "games", "count", "share", "low", "high"])


def game_length(games: pd.DataFrame, by: str = "arm") -> pd.DataFrame:
    """Game length in turns and days per group and winner.

    Returns
    -------
    pandas.DataFrame
        group, ``winner`` ('axis', 'allied' or 'all'), ``games``,
        ``mean_turn``, ``median_turn``, ``q25``, ``q75``, ``min_turn``,
        ``max_turn`` (turn numbers) and ``mean_day`` (1 = first day).
    """
    df = with_outcomes(games)
    rows = []
    for g, sub in df.groupby(by, sort=True):
        for w, s in [("all", sub), ("axis", sub[sub["axis_win"]]), ("allied", sub[~sub["axis_win"]])]:
            t = s["end_turn"].astype(float)
            if len(t) == 0:
                rows.append((g, w, 0, *[np.nan] * 7))
                continue
            q = t.quantile([0.25, 0.5, 0.75])
            rows.append(
                (g, w, len(t), t.mean(), q[0.5], q[0.25], q[0.75], t.min(), t.max(), s["end_day"].mean())
            )
    return pd.DataFrame(
        rows,
        columns=[by, "winner", "games", "mean_turn", "median_turn", "q25", "q75", "min_turn", "max_turn", "mean_day"],
    )


def end_day_table(games: pd.DataFrame, by: str = "arm", scenario: str | None = None) -> pd.DataFrame:
    """Counts of games ending on each day, split by end reason.

    Returns
    -------
    pandas.DataFrame
        Columns: group, ``date`` (datetime64), ``end_reason``, ``count`` (int).
    """
    df = with_outcomes(games)
    cal = calendar_for(scenario or scenario_of(df), df)
    df["date"] = pd.to_datetime(cal.date_of(df["end_turn"].to_numpy()))
    out = df.groupby([by, "date", "end_reason"], sort=True).size().rename("count").reset_index()
    return out


def numeric_summary(
    games: pd.DataFrame, columns=None, by: str = "arm", *, alpha: float = 0.05
) -> pd.DataFrame:
    """Mean (t interval), median and quartiles of numeric per-game columns.

    Parameters
    ----------
    columns : list of str, optional
        Default: those of :data:`NUMERIC_COLUMNS` present in the frame.

    Returns
    -------
    pandas.DataFrame
        group, ``column``, ``games``, ``mean``, ``low``, ``high`` (interval
        of the mean, ``DescrStatsW.tconfint_mean``), ``median``, ``q25``, ``q75``.
    """
    df = with_outcomes(games)
    if columns is None:
        columns = [c for c in NUMERIC_COLUMNS if c in df.columns]
    for c in columns:
        if c not in df.columns:
            raise OptionError(f"no column {c!r} in the result frame")
    rows = []
    for g, sub in df.groupby(by, sort=True):
        for c in columns:
            x = pd.to_numeric(sub[c], errors="coerce").dropna().astype(float).to_numpy()
            if len(x) == 0:
                rows.append((g, c, 0, *[np.nan] * 6))
                continue
            if len(x) > 1 and np.ptp(x) > 0:
                lo, hi = DescrStatsW(x).tconfint_mean(alpha=alpha)
            else:
                lo = hi = float(x.mean())
            q = np.quantile(x, [0.25, 0.5, 0.75])
            rows.append((g, c, len(x), float(x.mean()), float(lo), float(hi), q[1], q[0], q[2]))
    return pd.DataFrame(rows, columns=[by, "column", "games", "mean", "low", "high", "median", "q25", "q75"])


def end_turn_names(games: pd.DataFrame, by: str = "arm") -> pd.DataFrame:
    """Counts of games ending in each game turn of the day (AM/noon/PM/night)."""
    df = with_outcomes(games)
    t = pd.Categorical(df["end_turn_name"], categories=list(TURN_NAMES), ordered=True)
    return df.assign(end_turn_name=t).groupby([by, "end_turn_name"], observed=False).size().rename("count").reset_index()
