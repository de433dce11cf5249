"""Sweeps: the effect of each parameter on the Axis win rate.

A sweep frame has one row per (arm, game); arms differ in parameter values
(policy parameters, options, scenario settings) and share game indices and
seeds (common random numbers).  Effects are estimated two ways:

* per level of each parameter, the win rate with a Wilson interval
  (:func:`level_rates`);
* jointly, a logistic regression of ``axis_win`` on all parameters
  (:func:`parameter_effects`, statsmodels GLM with a binomial family).  Its
  standard errors are cluster-robust by game index, because CRN makes the
  outcomes of the same game index in different arms correlated.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf

from ..errors import OptionError
from .frames import with_outcomes
from .glossary import BLUNDER_COLUMNS
from .rates import win_rates

#: Result columns that are outcomes, never sweep parameters.
OUTCOME_COLUMNS = {
    "game", "seed", "winner", "end_reason", "end_turn", "end_date", "final_surrender_modifier",
    "last_surrender_roll", "axis_steps_lost", "allied_steps_lost", "airfields_axis", "cities_axis",
    "towns_axis", "forts_destroyed", "first_airfield_turn", "first_city_turn", "axis_hqs_lost",
    "warships_damaged", "rn_intervention", "weather_days_rainy", "axis_win", "end_day", "end_turn_name",
    "arm", *BLUNDER_COLUMNS,
}


def sweep_parameters(games: pd.DataFrame) -> list[str]:
    """Columns that are constant within each arm but vary between arms.

    A column that splits the arms exactly as an earlier column does (a
    relabelling, such as the ``policy_params`` text beside a grid column) is
    left out, so the regression has no duplicate terms.

    Returns
    -------
    list of str
        Candidate sweep parameters, in frame order (empty without arms).
    """
    df = with_outcomes(games)
    out, partitions = [], []
    for c in games.columns:
        if c in OUTCOME_COLUMNS:
            continue
        col = df[c].astype(str)
        if col.nunique() < 2:
            continue
        if (col.groupby(df["arm"]).nunique() == 1).all():
            # Skip a column that only relabels an earlier one (e.g. policy_params text vs a grid column).
            part = frozenset(frozenset(g) for g in df.groupby(col)["arm"].unique().map(tuple))
            if part in partitions:
                continue
            partitions.append(part)
            out.append(c)
    return out


def level_rates(games: pd.DataFrame, params: list[str] | None = None, *, alpha: float = 0.05, method="wilson"):
    """Axis win rate at each level of each parameter (marginal over the others).

    Returns
    -------
    pandas.DataFrame
        ``parameter``, ``level`` (str), ``games``, ``wins``, ``rate``, ``low``, ``high``.
    """
    params = sweep_parameters(games) if params is None else list(params)
    rows = []
    for p in params:
        if p not in games.columns:
            raise OptionError(f"no sweep parameter column {p!r}")
        r = win_rates(games, by=p, alpha=alpha, method=method).rename(columns={p: "level"})
        r["level"] = r["level"].astype(str)
        r.insert(0, "parameter", p)
        rows.append(r)
    if not rows:
        return pd.DataFrame(columns=["parameter", "level", "games", "wins", "rate", "low", "high"])
    return pd.concat(rows, ignore_index=True)


def _safe(name: str) -> str:
    return "p_" + re.sub(r"\W", "_", name)


def parameter_effects(
    games: pd.DataFrame,
    params: list[str] | None = None,
    *,
    outcome: str = "axis_win",
    categorical: list[str] | None = None,
    alpha: float = 0.05,
    cluster: bool = True,
) -> pd.DataFrame:
    """Logistic regression of the outcome on the sweep parameters.

    Numeric parameters enter linearly (effect per unit); others (and those in
    ``categorical``) as treatment-coded factors against their first level.

    Parameters
    ----------
    games : pandas.DataFrame
        Sweep result frame.
    params : list of str, optional
        Parameter columns; default :func:`sweep_parameters`.
    outcome : str
        Boolean column; default ``axis_win``.
    categorical : list of str, optional
        Numeric parameters to treat as factors.
    alpha : float
        1 - confidence level.
    cluster : bool
        Cluster-robust standard errors by game index (CRN arms).

    Returns
    -------
    pandas.DataFrame
        ``term``, ``log_odds``, ``odds_ratio``, ``low``, ``high`` (interval of
        the odds ratio), ``pvalue``.  ``attrs['note']`` explains failures (e.g.
        perfect separation: a level that always or never wins), in which case
        the frame is empty.

    Raises
    ------
    OptionError
        If there are no parameters to fit.
    """
    df = with_outcomes(games)
    params = sweep_parameters(games) if params is None else list(params)
    if not params:
        raise OptionError("no sweep parameters: the arms do not differ in any column")
    categorical = set(categorical or [])
    data = pd.DataFrame({"y": df[outcome].astype(float), "game": df["game"].to_numpy()})
    terms = []
    for p in params:
        if p not in df.columns:
            raise OptionError(f"no sweep parameter column {p!r}")
        s = _safe(p)
        numeric = pd.api.types.is_numeric_dtype(df[p]) and p not in categorical
        data[s] = df[p].to_numpy() if numeric else df[p].astype(str).to_numpy()
        terms.append(s if numeric else f"C({s})")
    formula = "y ~ " + " + ".join(terms)
    cols = ["term", "log_odds", "odds_ratio", "low", "high", "pvalue"]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", category=sm.tools.sm_exceptions.PerfectSeparationWarning)
            model = smf.glm(formula, data=data, family=sm.families.Binomial())
            kw = {"cov_type": "cluster", "cov_kwds": {"groups": data["game"].to_numpy()}} if cluster else {}
            res = model.fit(**kw)
    except (sm.tools.sm_exceptions.PerfectSeparationError, sm.tools.sm_exceptions.PerfectSeparationWarning,
            np.linalg.LinAlgError, ValueError) as exc:
        out = pd.DataFrame(columns=cols)
        out.attrs["note"] = f"logistic regression not fitted: {exc}"
        return out
    ci = res.conf_int(alpha=alpha)
    back = {_safe(p): p for p in params}
    rows = []
    for term in res.params.index:
        name = term
        for s, p in back.items():
            name = name.replace(f"C({s})", p).replace(s, p)
        b = float(res.params[term])
        rows.append((name, b, float(np.exp(b)), float(np.exp(ci.loc[term, 0])), float(np.exp(ci.loc[term, 1])),
                     float(res.pvalues[term])))
    out = pd.DataFrame(rows, columns=cols)
    out.attrs["note"] = "cluster-robust by game" if cluster else "model-based standard errors"
    return out
