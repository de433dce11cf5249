"""Game length, end reasons and per-side numbers (steps lost, places held).

End reasons (rule 20.3 and the scenario time periods 22.22 / 22.32):
``surrender`` (modified surrender roll of 0 or less: Axis win),
``operation cancelled`` (modified roll of 14 or more: Allied win) and
``time limit`` (Malta still holds after the last night turn: Allied win).
Invasion: Malta (victory conditions not printed, reconstructed; rule 4.22
sudden victory): ``sudden victory`` and ``objectives at end`` (Axis wins),
``Axis eliminated`` and ``time limit`` (Allied wins).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from statsmodels.stats.weightstats import DescrStatsW

from ..errors import OptionError
from .frames import calendar_for, game_of, scenario_of, with_outcomes
from .rates import proportion_interval

END_REASONS = ("surrender", "operation cancelled", "time limit")
#: Report end reasons of each game, listed even when they never occurred.
END_REASONS_BY_GAME = {
    "island_of_death": END_REASONS,                                       # rule 20.3
    "invasion_malta": ("sudden victory", "objectives at end", "Axis eliminated", "time limit"),  # reconstructed
}
#: Winner of each report end reason.
REASON_WINNER = {"surrender": "axis", "sudden victory": "axis", "objectives at end": "axis",
                 "operation cancelled": "allied", "Axis eliminated": "allied", "time limit": "allied"}

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
    "allied_hqs_lost",
    "warships_damaged",
    "final_surrender_modifier",
    "weather_days_rainy",
    "axis_steps_lost_first_turn",
    "allied_steps_lost_first_turn",
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
    known = END_REASONS_BY_GAME.get(game_of(scenario_of(df), games), END_REASONS)
    reasons = list(known) + sorted(set(df["end_reason"].astype(str)) - set(known))
    rows = []
    for g, sub in df.groupby(by, sort=True):
        n = len(sub)
        for r in reasons:
            hit = sub["end_reason"].astype(str).eq(r)
            k = int(hit.sum())
            winners = sub.loc[hit, "winner"].astype(str).unique()
            w = winners[0] if len(winners) == 1 else (REASON_WINNER.get(r, "allied") if k == 0 else "mixed")
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
        Columns: group, ``end_day`` (int, 1 = the scenario's first day),
        ``day`` (str, '03 Jul' or 'day 2' for an undated calendar), ``date``
        (datetime64; NaT when undated), ``end_reason``, ``count`` (int).
    """
    df = with_outcomes(games)
    cal = calendar_for(scenario or scenario_of(df), df)
    t = df["end_turn"].to_numpy()
    df["date"] = pd.to_datetime(cal.date_of(t))
    df["day"] = [cal.day_label(k) for k in t]
    out = (df.groupby([by, "end_day", "day", "date", "end_reason"], sort=True, dropna=False).size()
           .rename("count").reset_index())
    return out


#: A count column with fewer non-zero games than this gets the exact Poisson
#: (Garwood) interval of :func:`mean_interval`; with more, the t interval.
RARE_NONZERO = 10


def mean_interval(x: np.ndarray, alpha: float = 0.05) -> tuple[float, float, str]:
    """Interval of the mean of a per-game number (steps lost, places held, end turn).

    * A *rare* count (non-negative integers, non-zero in fewer than
      :data:`RARE_NONZERO` games and in at most half of them) gets an exact
      Poisson (Garwood) interval: :func:`statsmodels.stats.rates.confint_poisson`
      with ``method="exact-c"`` on the total over the games, widened for
      counts that come in clumps (quasi-Poisson: with dispersion
      ``phi = max(1, variance / mean)`` the interval of ``total / phi``
      events, scaled back by ``phi``).  A count that was zero in every game
      still gets an upper limit (``-ln(alpha / 2) / n``: 3.7 / n at 95 %),
      where a bootstrap gives the empty interval ``[0, 0]``.
    * Otherwise the Student t interval of the mean
      (:meth:`statsmodels.stats.weightstats.DescrStatsW.tconfint_mean`),
      with the lower limit raised to 0 for a column with no negative value
      (a count cannot have a negative mean).
    * Values that do not vary (or a single game) and are not a rare count
      give the value itself, labelled ``'no variation'``.

    Parameters
    ----------
    x : numpy.ndarray of float64, shape (n_games,)
    alpha : float
        1 - confidence level.

    Returns
    -------
    low, high : float
    method : str
        ``'exact Poisson (Garwood)'``, ``'t'`` or ``'no variation'``.

    Notes
    -----
    Coverage on simulated counts with known mean (Poisson, negative binomial,
    rare 0/1 events, clumped rare counts, turn numbers; 10 to 300 games) is
    measured by ``tests/analysis/test_interval_coverage.py``; figures in
    ``docs/analysis.md``.  Rare counts are covered conservatively (97-99 %);
    a clumped rare count in very few games cannot be covered when no game
    shows it.
    """
    from statsmodels.stats.rates import confint_poisson

    x = np.asarray(x, dtype=float)
    n = len(x)
    if n == 0:
        return float("nan"), float("nan"), ""
    m = float(x.mean())
    nonzero = int(np.count_nonzero(x))
    counts = bool(np.all(x >= 0) and np.all(x == np.round(x)))
    if counts and nonzero < RARE_NONZERO and nonzero <= n / 2:
        phi = max(1.0, float(x.var(ddof=1)) / m) if m > 0 and n > 1 else 1.0
        lo, hi = confint_poisson(float(x.sum()) / phi, float(n) / phi, method="exact-c", alpha=alpha)
        lo = 0.0 if not np.isfinite(lo) else float(lo)
        return min(lo, m), max(float(hi), m), "exact Poisson (Garwood)"
    if n < 2 or np.ptp(x) == 0:
        return m, m, "no variation"
    lo, hi = DescrStatsW(x).tconfint_mean(alpha=alpha)
    if np.all(x >= 0):
        lo = max(lo, 0.0)
    return float(lo), float(hi), "t"


def numeric_summary(
    games: pd.DataFrame, columns=None, by: str = "arm", *, alpha: float = 0.05
) -> pd.DataFrame:
    """Mean (with an interval, :func:`mean_interval`), median and quartiles of numeric per-game columns.

    Parameters
    ----------
    columns : list of str, optional
        Default: those of :data:`NUMERIC_COLUMNS` present in the frame.

    Returns
    -------
    pandas.DataFrame
        group, ``column``, ``games``, ``mean``, ``low``, ``high`` (interval
        of the mean, :func:`mean_interval`: exact Poisson for rare counts, t
        otherwise, never below 0 for counts), ``median``, ``q25``, ``q75``,
        ``interval`` (str, the method used).
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
                rows.append((g, c, 0, *[np.nan] * 6, ""))
                continue
            lo, hi, how = mean_interval(x, alpha)
            q = np.quantile(x, [0.25, 0.5, 0.75])
            rows.append((g, c, len(x), float(x.mean()), lo, hi, q[1], q[0], q[2], how))
    return pd.DataFrame(rows, columns=[by, "column", "games", "mean", "low", "high", "median", "q25", "q75",
                                       "interval"])


def end_turn_names(games: pd.DataFrame, by: str = "arm") -> pd.DataFrame:
    """Counts of games ending in each game turn of the day (AM/noon/PM/night, or AM/PM/Night)."""
    df = with_outcomes(games)
    names = calendar_for(scenario_of(df), df).turn_names
    t = pd.Categorical(df["end_turn_name"], categories=list(names), ordered=True)
    return df.assign(end_turn_name=t).groupby([by, "end_turn_name"], observed=False).size().rename("count").reset_index()
