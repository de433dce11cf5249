"""Win rates with confidence intervals and the number of games an interval needs.

All intervals come from :func:`statsmodels.stats.proportion.proportion_confint`
(Wilson score interval by default; ``method="beta"`` is the Clopper-Pearson
exact interval, which never covers less than its nominal level).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint, samplesize_confint_proportion

from ..errors import OptionError
from .frames import with_outcomes

#: Interval methods accepted (names of ``proportion_confint``).
METHODS = ("wilson", "beta", "agresti_coull", "jeffreys", "normal")


def _check(alpha: float, method: str) -> None:
    if not 0.0 < float(alpha) < 1.0:
        raise OptionError(f"alpha must lie in (0, 1), got {alpha}")
    if method not in METHODS:
        raise OptionError(f"unknown interval method {method!r}; choose one of: {', '.join(METHODS)}")


def proportion_interval(successes, n, *, alpha: float = 0.05, method: str = "wilson"):
    """Two-sided confidence interval of a binomial proportion.

    Parameters
    ----------
    successes, n : int or array_like of int
        Counts of successes and of trials (games).
    alpha : float
        1 - confidence level (0.05 gives a 95 % interval).
    method : {'wilson', 'beta', 'agresti_coull', 'jeffreys', 'normal'}
        ``'beta'`` is Clopper-Pearson (exact).

    Returns
    -------
    (low, high) : tuple of float or of float64 arrays
        NaN where ``n == 0``.

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
    lo = np.where(m > 0, lo, np.nan)
    hi = np.where(m > 0, hi, np.nan)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def win_rates(
    games: pd.DataFrame,
    by: str | list[str] | None = "arm",
    *,
    side: str = "axis",
    alpha: float = 0.05,
    method: str = "wilson",
) -> pd.DataFrame:
    """Win rate of one side per group, with a confidence interval.

    Parameters
    ----------
    games : pandas.DataFrame
        Result frame (one row per game); needs ``winner``.
    by : str, list of str or None
        Grouping column(s); ``'arm'`` (default) groups by arm, or by the
        varying scenario/policy/option columns when there is no ``arm``.
        ``None`` pools all rows.
    side : {'axis', 'allied'}
    alpha, method
        See :func:`proportion_interval`.

    Returns
    -------
    pandas.DataFrame
        One row per group: the group column(s), ``games`` (int), ``wins``
        (int), ``rate``, ``low``, ``high`` (float, proportions in [0, 1]).
    """
    if side not in ("axis", "allied"):
        raise OptionError(f"side must be 'axis' or 'allied', got {side!r}")
    df = with_outcomes(games)
    df["_win"] = df["winner"].astype(str).eq(side)
    if by is None:
        grp = [("all", df)]
        keys = ["group"]
    else:
        keys = [by] if isinstance(by, str) else list(by)
        for k in keys:
            if k not in df.columns:
                raise OptionError(f"cannot group by {k!r}: no such column")
        grp = df.groupby(keys, sort=True, dropna=False)
    rows = []
    for key, sub in grp:
        key = key if isinstance(key, tuple) else (key,)
        n = int(len(sub))
        w = int(sub["_win"].sum())
        lo, hi = proportion_interval(w, n, alpha=alpha, method=method)
        rows.append((*key, n, w, w / n if n else np.nan, lo, hi))
    return pd.DataFrame(rows, columns=[*keys, "games", "wins", "rate", "low", "high"])


def interval_width(p: float, n: int, *, alpha: float = 0.05, method: str = "wilson") -> float:
    """Width (high - low) of the interval for an observed share ``p`` in ``n`` games."""
    k = round(p * n)
    lo, hi = proportion_interval(k, n, alpha=alpha, method=method)
    return hi - lo


def games_needed(
    width: float,
    *,
    p: float = 0.5,
    alpha: float = 0.05,
    method: str = "wilson",
) -> int:
    """Smallest number of games whose interval is at most ``width`` wide.

    Starts from the normal-approximation size of
    :func:`statsmodels.stats.proportion.samplesize_confint_proportion`
    (half-length ``width / 2``) and then searches for the smallest ``n`` for
    which the chosen interval, at an observed share ``p``, is no wider than
    ``width``.  ``p = 0.5`` is the worst case (widest interval).

    Parameters
    ----------
    width : float
        Target full width of the interval (e.g. 0.04 for +/- 2 points).
    p : float
        Expected win rate.
    alpha, method
        See :func:`proportion_interval`.

    Returns
    -------
    int
        Number of games.

    Raises
    ------
    OptionError
        If ``width`` is not in (0, 1) or ``p`` not in [0, 1].
    """
    if not 0.0 < width < 1.0:
        raise OptionError(f"target interval width must lie in (0, 1), got {width}")
    if not 0.0 <= p <= 1.0:
        raise OptionError(f"expected rate p must lie in [0, 1], got {p}")
    _check(alpha, method)
    p_eff = min(max(p, 1e-6), 1 - 1e-6)
    n0 = max(1, int(math.ceil(samplesize_confint_proportion(p_eff, width / 2.0, alpha=alpha))))

    def ok(n: int) -> bool:
        return interval_width(p, n, alpha=alpha, method=method) <= width

    # Bracket then bisect; widths shrink (nearly) monotonically with n.
    lo, hi = max(1, n0 // 2), n0
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > 10**9:
            raise OptionError("target width unreachable")
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return int(hi)
