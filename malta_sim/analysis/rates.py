"""Win rates with confidence intervals and the number of games an interval needs.

Intervals of one proportion come from
:func:`statsmodels.stats.proportion.proportion_confint` (Wilson score interval
by default; ``method="beta"`` is the Clopper-Pearson exact interval, which
never covers less than its nominal level).  Two things are added around it:

* the limits are clipped to ``[0, 1]`` and always contain the observed share
  (the Wilson limit of a unanimous result is exactly 1, not
  ``0.9999999999999999``), so charts can draw error bars of every result;
* rows that are not independent are not counted as if they were: arms of a
  sweep play the same game indices with the same dice (common random
  numbers), so a rate pooled over several arms gets a Wilson interval on the
  *effective* number of games, the number of rows divided by the design
  effect measured between game indices (:func:`clustered_proportion_interval`).

Coverage of every interval the report prints is measured on simulated data
with known truth in ``tests/analysis/test_interval_coverage.py`` (figures in
``docs/analysis.md``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.proportion import proportion_confint, samplesize_confint_proportion

from ..errors import OptionError
from .frames import with_outcomes

#: Interval methods accepted (names of ``proportion_confint``).
METHODS = ("wilson", "beta", "agresti_coull", "jeffreys", "normal")

#: Default probability with which :func:`games_needed` promises the width.
ASSURANCE = 0.9


def _check(alpha: float, method: str) -> None:
    if not 0.0 < float(alpha) < 1.0:
        raise OptionError(f"alpha must lie in (0, 1), got {alpha}")
    if method not in METHODS:
        raise OptionError(f"unknown interval method {method!r}; choose one of: {', '.join(METHODS)}")


def proportion_interval(successes, n, *, alpha: float = 0.05, method: str = "wilson"):
    """Two-sided confidence interval of a binomial proportion.

    Parameters
    ----------
    successes, n : float or array_like of float
        Counts of successes and of trials (games).  Non-integer counts are
        accepted (an effective number of games, see
        :func:`clustered_proportion_interval`).
    alpha : float
        1 - confidence level (0.05 gives a 95 % interval).
    method : {'wilson', 'beta', 'agresti_coull', 'jeffreys', 'normal'}
        ``'beta'`` is Clopper-Pearson (exact).

    Returns
    -------
    (low, high) : tuple of float or of float64 arrays
        Within ``[0, 1]`` and always ``low <= successes / n <= high``
        (``high == 1`` when every trial succeeded, ``low == 0`` when none
        did); NaN where ``n == 0``.

    Raises
    ------
    OptionError
        For a bad ``alpha`` or ``method``.
    """
    _check(alpha, method)
    k = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    safe = np.where(m > 0, m, 1.0)
    lo, hi = proportion_confint(k, safe, alpha=alpha, method=method)
    share = np.where(m > 0, k / safe, np.nan)
    lo = np.clip(np.minimum(np.asarray(lo, dtype=float), share), 0.0, 1.0)
    hi = np.clip(np.maximum(np.asarray(hi, dtype=float), share), 0.0, 1.0)
    lo = np.where(k <= 0, 0.0, lo)
    hi = np.where(k >= safe, 1.0, hi)
    lo = np.where(m > 0, lo, np.nan)
    hi = np.where(m > 0, hi, np.nan)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def design_effect(y, cluster) -> tuple[float, int]:
    """Design effect of a share whose rows come in clusters (game indices).

    Parameters
    ----------
    y : array_like of bool or 0/1, shape (n,)
        Outcome of each row.
    cluster : array_like, shape (n,)
        Cluster label of each row (the game index: rows of one game index in
        different arms share their dice).

    Returns
    -------
    deff : float
        Variance of the share under cluster sampling (the ratio-estimator
        variance between clusters) over its variance for ``n`` independent
        rows; 1 when every cluster holds one row.  Kept within
        ``[1, n / clusters]``: between rows as if independent and every row
        of a cluster alike.  When no row varies (a share of 0 or 1) it is
        ``n / clusters``, the cautious end.
    clusters : int
        Number of distinct clusters.
    """
    y = np.asarray(y, dtype=float)
    codes, _ = pd.factorize(pd.Series(np.asarray(cluster)), sort=False)
    g = int(codes.max()) + 1 if len(codes) else 0
    n = len(y)
    if n == 0 or g == n:
        return 1.0, g
    top = n / g
    p = y.mean()
    if p <= 0.0 or p >= 1.0 or g < 2:
        return top, g
    tot = np.bincount(codes, weights=y, minlength=g)
    size = np.bincount(codes, minlength=g).astype(float)
    v_cluster = g / (g - 1) * np.sum((tot - p * size) ** 2) / n**2
    v_srs = p * (1 - p) / n
    return float(min(max(v_cluster / v_srs, 1.0), top)), g


def clustered_proportion_interval(y, cluster, *, alpha: float = 0.05, method: str = "wilson"):
    """Interval of a share whose rows are clustered (several arms of one game index).

    The interval of :func:`proportion_interval` on the effective number of
    games ``n / deff`` (:func:`design_effect`), holding the observed share:
    Kish's effective sample size.  Equals the plain interval when every
    cluster holds one row.

    Parameters
    ----------
    y : array_like of bool, shape (n,)
    cluster : array_like, shape (n,)
    alpha, method
        See :func:`proportion_interval`.

    Returns
    -------
    low, high : float
    deff : float
    """
    y = np.asarray(y, dtype=float)
    n = len(y)
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    deff, _ = design_effect(y, cluster)
    n_eff = n / deff
    lo, hi = proportion_interval(y.mean() * n_eff, n_eff, alpha=alpha, method=method)
    return lo, hi, deff


def _cluster_keys(df: pd.DataFrame) -> pd.Series:
    """Game index (and seed) of each row: the rows that share dice across arms."""
    keys = [c for c in ("seed", "game") if c in df.columns]
    if not keys:
        return pd.Series(np.arange(len(df)), index=df.index)
    return df[keys].astype(str).agg("/".join, axis=1)


def win_rates(
    games: pd.DataFrame,
    by: str | list[str] | None = "arm",
    *,
    side: str = "axis",
    alpha: float = 0.05,
    method: str = "wilson",
) -> pd.DataFrame:
    """Win rate of one side per group, with a confidence interval.

    A group that holds several rows of one game index (several arms of a
    sweep, which share their dice) gets the clustered interval of
    :func:`clustered_proportion_interval` instead of treating its rows as
    independent games.

    Parameters
    ----------
    games : pandas.DataFrame
        Result frame (one row per game); needs ``winner``.
    by : str, list of str or None
        Grouping column(s); ``'arm'`` (default) groups by arm, or by the
        varying scenario/policy/option/data columns when there is no ``arm``.
        ``None`` pools all rows.
    side : {'axis', 'allied'}
    alpha, method
        See :func:`proportion_interval`.

    Returns
    -------
    pandas.DataFrame
        One row per group: the group column(s), ``games`` (int), ``wins``
        (int), ``rate``, ``low``, ``high`` (float, proportions in [0, 1]) and
        ``design_effect`` (float, 1 for independent rows).
    """
    if side not in ("axis", "allied"):
        raise OptionError(f"side must be 'axis' or 'allied', got {side!r}")
    _check(alpha, method)
    df = with_outcomes(games)
    df["_win"] = df["winner"].astype(str).eq(side)
    df["_cluster"] = _cluster_keys(df).to_numpy()
    if by is None:
        grp = [("all", df)]
        keys = ["group"]
    else:
        keys = [by] if isinstance(by, str) else list(by)
        for k in keys:
            if k not in df.columns:
                raise OptionError(f"cannot group by {k!r}: no such column; columns are: {', '.join(map(str, df.columns))}")
        grp = df.groupby(keys, sort=True, dropna=False)
    rows = []
    for key, sub in grp:
        key = key if isinstance(key, tuple) else (key,)
        n = int(len(sub))
        w = int(sub["_win"].sum())
        lo, hi, deff = clustered_proportion_interval(sub["_win"].to_numpy(), sub["_cluster"].to_numpy(),
                                                     alpha=alpha, method=method)
        rows.append((*key, n, w, w / n if n else np.nan, lo, hi, deff))
    return pd.DataFrame(rows, columns=[*keys, "games", "wins", "rate", "low", "high", "design_effect"])


def interval_width(p: float, n: int, *, alpha: float = 0.05, method: str = "wilson") -> float:
    """Width (high - low) of the interval for an observed share ``p`` in ``n`` games."""
    k = round(p * n)
    lo, hi = proportion_interval(k, n, alpha=alpha, method=method)
    return hi - lo


def width_probability(width: float, n: int, p: float, *, alpha: float = 0.05, method: str = "wilson") -> float:
    """Probability that ``n`` games with true rate ``p`` give an interval at most ``width`` wide.

    Summed exactly over the binomial distribution of the wins.

    Returns
    -------
    float in [0, 1]
    """
    k = np.arange(n + 1)
    lo, hi = proportion_interval(k, np.full(n + 1, n), alpha=alpha, method=method)
    ok = (hi - lo) <= width + 1e-12
    return float(stats.binom.pmf(k, n, p)[ok].sum())


def games_needed(
    width: float,
    *,
    p: float = 0.5,
    alpha: float = 0.05,
    method: str = "wilson",
    assurance: float = ASSURANCE,
) -> int:
    """Games needed for an interval at most ``width`` wide, with a stated probability.

    The interval's width depends on the wins observed, so a number of games
    only makes a width *likely*.  This returns the smallest ``n`` for which
    the interval of ``n`` games whose true win rate is ``p`` is at most
    ``width`` wide with probability at least ``assurance`` (summed exactly
    over the binomial distribution, :func:`width_probability`).  With
    ``assurance=0.5`` it is about the classic answer, the ``n`` at which the
    interval at the expected share has that width, which is too narrow about
    half the time.

    The search starts from the normal-approximation size of
    :func:`statsmodels.stats.proportion.samplesize_confint_proportion`
    (half-length ``width / 2``).  ``p = 0.5`` is the worst case.

    Parameters
    ----------
    width : float
        Target full width of the interval (e.g. 0.04 for +/- 2 points).
    p : float
        Expected win rate.
    alpha, method
        See :func:`proportion_interval`.
    assurance : float
        Probability, in (0, 1), that the interval comes out no wider than
        ``width`` (default :data:`ASSURANCE`, 0.9).

    Returns
    -------
    int
        Number of games.

    Raises
    ------
    OptionError
        If ``width`` is not in (0, 1), ``p`` not in [0, 1] or ``assurance``
        not in (0, 1).
    """
    if not 0.0 < width < 1.0:
        raise OptionError(f"target interval width must lie in (0, 1), got {width}")
    if not 0.0 <= p <= 1.0:
        raise OptionError(f"expected rate p must lie in [0, 1], got {p}")
    if not 0.0 < assurance < 1.0:
        raise OptionError(f"assurance must lie in (0, 1), got {assurance}")
    _check(alpha, method)
    p_eff = min(max(p, 1e-6), 1 - 1e-6)
    n0 = max(1, int(math.ceil(samplesize_confint_proportion(p_eff, width / 2.0, alpha=alpha))))

    def ok(n: int) -> bool:
        return width_probability(width, n, p, alpha=alpha, method=method) >= assurance

    # Bracket, then bisect (the probability grows with n nearly, not exactly,
    # monotonically, so this is the first qualifying n the bisection meets).
    lo, hi = max(1, n0 // 4), n0
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > 10**7:
            raise OptionError("target width unreachable")
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return int(hi)
