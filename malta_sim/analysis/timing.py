"""Timing curves: when Malta surrenders, the first airfield falls, a victory
city falls.

Two readings of "share of games by date" are offered, and they answer
different questions:

``method="incidence"`` (default)
    Cumulative incidence over *all* games: the share of games in which the
    event had happened by the end of turn ``t``.  A game that ended (surrender,
    cancelled operation, time limit) before the event is **counted as never**:
    the event can no longer happen in it.  Every game is followed to its end,
    so nothing is censored and the count at each turn is binomial; the band is
    a pointwise Wilson interval (``band="pointwise"``) or the simultaneous
    Dvoretzky-Kiefer-Wolfowitz band (``band="dkw"``, holds for all turns at
    once).  This is the number a designer wants ("by 3 July Malta had
    surrendered in 41 % of games").

``method="km"``
    Kaplan-Meier (:class:`statsmodels.duration.survfunc.SurvfuncRight`): a game
    ending before the event is **censored** at its end turn.  This estimates
    the hypothetical chance of the event by turn ``t`` *had the game gone on*,
    and is only meaningful when game end is unrelated to the event (it is not
    for surrender vs. first airfield).  Band: Greenwood pointwise interval.

Victory cities are hexes 1711, 1809, 1810 and 1911 (rule 20.0); the surrender
roll (rule 20.3) ends an Island of Death game with an Axis win.  Invasion:
Malta has no surrender roll: its Axis wins are sudden victories or objectives
held at the end (reconstructed victory conditions), timed by ``'axis_win'``;
``'surrender'`` counts only games whose end reason is a surrender.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import OptionError
from .frames import calendar_for, canonical_end_reason, scenario_of, with_outcomes
from .rates import proportion_interval

#: Events known by name and the column(s) they come from.
EVENTS = {
    "surrender": "end_turn of games that ended in a surrender (Island of Death rule 20.3)",
    "axis_win": "end_turn of games the Axis won, whatever the end reason",
    "first_airfield": "first_airfield_turn: capture, not possession (Island of Death: first turn the Axis "
                      "holds more airfields than at set-up; Invasion: Malta: first airfield hex held by Axis "
                      "units alone)",
    "victory_city": "first_city_turn, or the first per-turn row with cities_axis > 0",
}

EVENT_TITLES = {
    "surrender": "Malta surrendered",
    "axis_win": "an Axis victory",
    "first_airfield": "an airfield captured by the Axis",
    "victory_city": "a victory city in Axis hands",
}


def _never(x: pd.Series) -> pd.Series:
    v = pd.to_numeric(x, errors="coerce").astype(float)
    return v.where(v >= 0)


def event_turns(games: pd.DataFrame, event: str, per_turn: pd.DataFrame | None = None) -> pd.Series:
    """Turn at which an event first happened in each game (NaN: never).

    Parameters
    ----------
    games : pandas.DataFrame
        Result frame.
    event : str
        ``'surrender'`` (end reason surrender), ``'axis_win'`` (any Axis
        victory), ``'first_airfield'``, ``'victory_city'`` or the name
        of any column holding an absolute turn number (values < 0 or NaN mean
        never).
    per_turn : pandas.DataFrame, optional
        Long per-turn frame; used for ``'victory_city'`` when the game rows
        have no ``first_city_turn`` column.

    Returns
    -------
    pandas.Series of float64
        Aligned with ``games.index``.

    Raises
    ------
    OptionError
        If the frame(s) hold nothing to time the event by.
    """
    if event == "surrender":
        t = games["end_turn"].astype(float)
        return t.where(games["end_reason"].map(canonical_end_reason).eq("surrender"))
    if event == "axis_win":
        t = games["end_turn"].astype(float)
        return t.where(games["winner"].astype(str).eq("axis"))
    if event == "first_airfield":
        if "first_airfield_turn" not in games.columns:
            raise OptionError("result frame lacks 'first_airfield_turn'")
        return _never(games["first_airfield_turn"])
    if event == "victory_city":
        if "first_city_turn" in games.columns:
            return _never(games["first_city_turn"])
        if per_turn is not None and "cities_axis" in per_turn.columns:
            keys = ["game"] + (["arm"] if "arm" in per_turn.columns and "arm" in games.columns else [])
            hit = per_turn.loc[per_turn["cities_axis"] > 0]
            first = hit.groupby(keys)["turn"].min().rename("_t").reset_index()
            m = games[keys].merge(first, on=keys, how="left")
            return pd.Series(m["_t"].to_numpy(dtype=float), index=games.index)
        raise OptionError(
            "cannot time 'victory_city': no 'first_city_turn' column and no per-turn frame with 'cities_axis'"
        )
    if event in games.columns:
        return _never(games[event])
    raise OptionError(f"unknown event {event!r}; choose one of: {', '.join(EVENTS)} or a turn column")


def timing_curve(
    games: pd.DataFrame,
    event: str = "surrender",
    *,
    per_turn: pd.DataFrame | None = None,
    by: str | None = "arm",
    method: str = "incidence",
    band: str = "pointwise",
    alpha: float = 0.05,
    scenario: str | None = None,
) -> pd.DataFrame:
    """Cumulative share of games in which an event happened, turn by turn.

    Parameters
    ----------
    games : pandas.DataFrame
        Result frame.
    event : str
        See :func:`event_turns`.
    per_turn : pandas.DataFrame, optional
        Per-turn frame (for ``'victory_city'``).
    by : str or None
        Group column (default ``'arm'``); ``None`` pools.
    method : {'incidence', 'km'}
        See the module docstring (never vs. censored).
    band : {'pointwise', 'dkw'}
        Band for ``'incidence'``: Wilson per turn, or the simultaneous DKW band.
    alpha : float
        1 - confidence level.
    scenario : str, optional
        Scenario for the calendar; default the frame's single scenario.

    Returns
    -------
    pandas.DataFrame
        Columns: group, ``turn`` (int, turn as the engine numbers it), ``date``
        (datetime64[ns], that turn's day; NaT for an undated calendar such as
        Invasion: Malta's), ``day`` ('03 Jul' or 'day 2'), ``label`` ('3 Jul PM'
        or 'day 2 PM'), ``games``
        (int), ``events`` (int, games with the event by that turn), ``share``,
        ``low``, ``high`` (float proportions).
    """
    if method not in ("incidence", "km"):
        raise OptionError(f"unknown timing method {method!r}; choose 'incidence' or 'km'")
    if band not in ("pointwise", "dkw"):
        raise OptionError(f"unknown band {band!r}; choose 'pointwise' or 'dkw'")
    df = with_outcomes(games)
    df["_t"] = event_turns(df, event, per_turn).to_numpy()
    cal = calendar_for(scenario or scenario_of(df), df)
    last = max(cal.last_turn, int(df["end_turn"].max()))
    turns = np.arange(min(cal.first_turn, int(df["end_turn"].min())), last + 1)
    groups = [("all", df)] if by is None else list(df.groupby(by, sort=True))
    key = "group" if by is None else by
    out = []
    for g, sub in groups:
        t = sub["_t"].to_numpy(dtype=float)
        n = len(t)
        events = np.array([(t <= k).sum() for k in turns], dtype=np.int64)
        if method == "incidence":
            share = events / n
            if band == "pointwise":
                lo, hi = proportion_interval(events, np.full_like(events, n), alpha=alpha, method="wilson")
            else:
                eps = np.sqrt(np.log(2 / alpha) / (2 * n))
                lo, hi = np.clip(share - eps, 0, 1), np.clip(share + eps, 0, 1)
        else:
            share, lo, hi = _km(sub, t, turns, alpha)
        out.append(
            pd.DataFrame(
                {
                    key: g,
                    "turn": turns,
                    "date": pd.to_datetime(cal.date_of(turns)),
                    "day": [cal.day_label(k) for k in turns],
                    "label": [cal.label(k) for k in turns],
                    "games": n,
                    "events": events,
                    "share": share,
                    "low": lo,
                    "high": hi,
                }
            )
        )
    return pd.concat(out, ignore_index=True)


def _km(sub: pd.DataFrame, t: np.ndarray, turns: np.ndarray, alpha: float):
    """Kaplan-Meier share with the event by each turn; censoring at game end."""
    from statsmodels.duration.survfunc import SurvfuncRight

    happened = ~np.isnan(t)
    time = np.where(happened, t, sub["end_turn"].to_numpy(dtype=float))
    if not happened.any():
        z = np.zeros(len(turns))
        return z, z, z
    sf = SurvfuncRight(time, happened.astype(int))
    st = np.asarray(sf.surv_times)
    sp = np.asarray(sf.surv_prob)
    se = np.asarray(sf.surv_prob_se)
    idx = np.searchsorted(st, turns, side="right") - 1
    surv = np.where(idx >= 0, sp[np.clip(idx, 0, None)], 1.0)
    s_se = np.where(idx >= 0, se[np.clip(idx, 0, None)], 0.0)
    z = stats.norm.ppf(1 - alpha / 2)
    share = 1 - surv
    return share, np.clip(share - z * s_se, 0, 1), np.clip(share + z * s_se, 0, 1)


def date_summary(curve: pd.DataFrame, by: str = "arm", scenario: str | None = None) -> pd.DataFrame:
    """End-of-day rows of a :func:`timing_curve` (the night turn of each day of the scenario's calendar).

    Returns
    -------
    pandas.DataFrame
        Same columns, one row per group and day.
    """
    cal = calendar_for(scenario, None)
    return curve.loc[cal.is_day_end(curve["turn"].to_numpy())].reset_index(drop=True)


def median_event_turn(games: pd.DataFrame, event: str = "surrender", per_turn=None, by: str = "arm") -> pd.DataFrame:
    """Median turn of an event among the games where it happened.

    Returns
    -------
    pandas.DataFrame
        group, ``with_event`` (int), ``median_turn`` (float; NaN if none),
        ``q25``, ``q75`` (float turns).
    """
    df = with_outcomes(games)
    df["_t"] = event_turns(df, event, per_turn).to_numpy()
    rows = []
    for g, sub in df.groupby(by, sort=True):
        t = sub["_t"].dropna()
        q = t.quantile([0.25, 0.5, 0.75]) if len(t) else pd.Series([np.nan] * 3, index=[0.25, 0.5, 0.75])
        rows.append((g, int(len(t)), float(q[0.5]), float(q[0.25]), float(q[0.75])))
    return pd.DataFrame(rows, columns=[by, "with_event", "median_turn", "q25", "q75"])
