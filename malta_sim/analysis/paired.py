"""Paired comparison of two arms run on common random numbers (CRN).

In a sweep every arm plays the same game indices with the same master seed,
so game ``g`` of arm A and game ``g`` of arm B share their random streams
(see :mod:`malta_sim.rng`).  Comparing the arms game by game removes most of
the dice noise: only *discordant* games (one arm won, the other lost) carry
information about the difference.

* The difference of win rates ``rate_b - rate_a`` gets Tango's asymptotic
  score interval for paired proportions (Tango 1998, *Stat. Med.* 17:891-908;
  recommended by Fagerland, Lydersen and Laake 2014, *Stat. Med.* 33:2850):
  the set of differences that the score test does not reject, found with
  :func:`scipy.optimize.brentq`.  It keeps its nominal coverage when few
  games are discordant, and stays a real interval when none is (about
  ``+/- z**2 / (n + z**2)``), where Newcombe's hybrid interval (method 10
  of Newcombe 1998, still offered as ``method="newcombe"``) shrinks towards
  zero width and covers far less than 95 % (coverage figures in
  ``docs/analysis.md``).  ``method="t"`` is a t interval on the per-game
  differences (:class:`statsmodels.stats.weightstats.DescrStatsW`).
* McNemar's test (:func:`statsmodels.stats.contingency_tables.mcnemar`),
  exact binomial when there are fewer than 25 discordant games.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import optimize, stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.weightstats import DescrStatsW

from ..errors import OptionError
from ..loaders.common import did_you_mean
from .frames import with_outcomes
from .rates import proportion_interval

#: Interval methods of :func:`paired_comparison`.
PAIRED_METHODS = ("tango", "newcombe", "t")


@dataclass
class PairedResult:
    """Outcome of :func:`paired_comparison` (all rates are proportions).

    ``table`` is the 2x2 count table ``[[both, a_only], [b_only, neither]]``
    (rows: arm A won / lost; columns: arm B won / lost).
    """

    arm_a: str
    arm_b: str
    outcome: str
    games: int
    rate_a: float
    rate_b: float
    difference: float
    low: float
    high: float
    a_only: int
    b_only: int
    mcnemar_statistic: float
    mcnemar_pvalue: float
    exact: bool
    method: str
    table: list

    def to_dict(self) -> dict:
        return asdict(self)


def paired_frame(games: pd.DataFrame, arm_a: str, arm_b: str, column: str) -> pd.DataFrame:
    """Games of two arms side by side, matched on game index (and seed).

    Returns
    -------
    pandas.DataFrame
        Index ``game``; columns ``a`` and ``b`` holding ``column`` of each arm.
        Games present in only one arm are dropped.

    Raises
    ------
    OptionError
        If an arm is missing, the column is unknown, or no game is shared.
    """
    df = with_outcomes(games)
    if column not in df.columns:
        raise OptionError(f"no column {column!r} in the result frame")
    arms = list(dict.fromkeys(df["arm"]))
    for a in (arm_a, arm_b):
        if a not in arms:
            raise OptionError(f"no arm is named {a!r}{did_you_mean(a, arms, quote=True) or '.'} The arms: "
                              f"{', '.join(repr(x) for x in arms)}")
    keys = ["game"] + (["seed"] if "seed" in df.columns else [])
    a = df.loc[df["arm"] == arm_a, keys + [column]].rename(columns={column: "a"})
    b = df.loc[df["arm"] == arm_b, keys + [column]].rename(columns={column: "b"})
    if a.duplicated(keys).any() or b.duplicated(keys).any():
        raise OptionError("an arm has the same game index twice; cannot pair games")
    m = a.merge(b, on=keys, how="inner").set_index("game").sort_index()
    if len(m) == 0:
        raise OptionError(f"arms {arm_a!r} and {arm_b!r} share no (game, seed): not run on common random numbers")
    return m[["a", "b"]]


def newcombe_paired_interval(n11: int, n10: int, n01: int, n00: int, alpha: float = 0.05) -> tuple[float, float]:
    """Newcombe's hybrid score interval for ``p1 - p2`` of paired proportions.

    ``p1 = (n11 + n10) / n`` and ``p2 = (n11 + n01) / n``; the Wilson limits
    of each margin come from statsmodels and are combined with the phi
    correlation of the 2x2 table (Newcombe 1998, method 10).

    With no discordant game at all and a margin of exactly one half the
    interval collapses to ``(0, 0)``, and with few discordant games it covers
    well below its nominal level (79 % for rates 0.50 and 0.55 in 30 games
    of closely coupled arms); :func:`tango_paired_interval` is the default
    of :func:`paired_comparison` for that reason.

    Returns
    -------
    (low, high) : tuple of float
    """
    n = n11 + n10 + n01 + n00
    if n == 0:
        return (math.nan, math.nan)
    p1 = (n11 + n10) / n
    p2 = (n11 + n01) / n
    l1, u1 = proportion_interval(n11 + n10, n, alpha=alpha, method="wilson")
    l2, u2 = proportion_interval(n11 + n01, n, alpha=alpha, method="wilson")
    den = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    phi = (n11 * n00 - n10 * n01) / math.sqrt(den) if den > 0 else 0.0
    theta = p1 - p2
    dl = math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    du = math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    return (max(-1.0, theta - dl), min(1.0, theta + du))


def tango_paired_interval(n10: int, n01: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Tango's score interval for the difference of two paired proportions.

    For two arms played on the same games, ``n10`` games were won by arm A
    only and ``n01`` by arm B only, out of ``n`` games; the difference is
    ``delta = (n01 - n10) / n`` (arm B's rate minus arm A's).  The interval is
    every ``delta0`` at which Tango's (1998) score statistic

        T(delta0) = (n01 - n10 - n delta0) / sqrt(n (2 q + delta0 (1 - delta0)))

    lies within ``+/- z``, ``q`` being the maximum-likelihood share of
    A-only games under ``delta0`` (the root of a quadratic).

    Parameters
    ----------
    n10, n01 : int
        Discordant counts (A only, B only), >= 0.
    n : int
        Games (>= n10 + n01).
    alpha : float
        1 - confidence level.

    Returns
    -------
    (low, high) : tuple of float
        Within [-1, 1] and holding ``delta``; ``(nan, nan)`` when ``n == 0``.
    """
    if n <= 0:
        return (math.nan, math.nan)
    if n10 < 0 or n01 < 0 or n10 + n01 > n:
        raise OptionError(f"discordant counts must be >= 0 and at most the games: {n10}, {n01} of {n}")
    z = float(stats.norm.ppf(1 - alpha / 2))
    est = (n01 - n10) / n

    def score(d0: float) -> float:
        a = 2.0 * n
        b = (2.0 * n - n01 + n10) * d0 - (n01 + n10)
        c = -n10 * d0 * (1.0 - d0)
        q = (math.sqrt(max(b * b - 4 * a * c, 0.0)) - b) / (2 * a)
        var = n * (2 * q + d0 * (1 - d0))
        num = n01 - n10 - n * d0
        if var <= 0.0:
            return math.copysign(math.inf, num) if num else 0.0
        return num / math.sqrt(var)

    eps = 1e-12
    lo = -1.0 if est <= -1 + eps else optimize.brentq(lambda d: score(d) - z, -1 + eps, est, xtol=1e-10)
    hi = 1.0 if est >= 1 - eps else optimize.brentq(lambda d: score(d) + z, est, 1 - eps, xtol=1e-10)
    return (max(-1.0, min(lo, est)), min(1.0, max(hi, est)))


def paired_comparison(
    games: pd.DataFrame,
    arm_a: str,
    arm_b: str,
    *,
    outcome: str = "axis_win",
    alpha: float = 0.05,
    method: str = "tango",
) -> PairedResult:
    """Compare a binary outcome between two CRN arms, game by game.

    Parameters
    ----------
    games : pandas.DataFrame
        Result frame with an ``arm`` column (or varying policy/option columns).
    arm_a, arm_b : str
        The baseline arm and the arm compared with it.
    outcome : str
        A boolean (0/1) column; default ``axis_win`` (winner == 'axis').
    alpha : float
        1 - confidence level.
    method : {'tango', 'newcombe', 't'}
        Interval of the difference ``rate_b - rate_a``: Tango's score
        interval (default, :func:`tango_paired_interval`), Newcombe's hybrid
        score interval or a t interval of the per-game differences.

    Returns
    -------
    PairedResult
        Rates, difference with interval, discordant counts and McNemar's test
        (exact binomial if fewer than 25 discordant games, else chi-square
        with continuity correction).

    Raises
    ------
    OptionError
        Unknown arm/column/method or no shared games.
    """
    if method not in PAIRED_METHODS:
        raise OptionError(f"unknown paired interval method {method!r}; choose one of: {', '.join(PAIRED_METHODS)}")
    m = paired_frame(games, arm_a, arm_b, outcome)
    a = m["a"].astype(bool).to_numpy()
    b = m["b"].astype(bool).to_numpy()
    n11 = int(np.sum(a & b))
    n10 = int(np.sum(a & ~b))
    n01 = int(np.sum(~a & b))
    n00 = int(np.sum(~a & ~b))
    n = len(a)
    table = [[n11, n10], [n01, n00]]
    exact = (n10 + n01) < 25
    if n10 + n01 == 0:
        stat, pval = 0.0, 1.0
    else:
        res = mcnemar(np.array(table), exact=exact, correction=True)
        stat, pval = float(res.statistic), float(res.pvalue)
    if method == "tango":
        lo, hi = tango_paired_interval(n10, n01, n, alpha)
    elif method == "newcombe":
        lo_ab, hi_ab = newcombe_paired_interval(n11, n10, n01, n00, alpha)
        lo, hi = -hi_ab, -lo_ab  # interval of p_b - p_a
    else:
        d = b.astype(float) - a.astype(float)
        if np.all(d == d[0]):
            lo = hi = float(d[0])
        else:
            lo, hi = DescrStatsW(d).tconfint_mean(alpha=alpha)
    ra, rb = float(a.mean()), float(b.mean())
    return PairedResult(
        arm_a, arm_b, outcome, n, ra, rb, rb - ra, float(lo), float(hi), n10, n01, stat, pval, exact, method, table
    )


def compare_arms(
    games: pd.DataFrame,
    baseline: str | None = None,
    *,
    outcome: str = "axis_win",
    alpha: float = 0.05,
    method: str = "tango",
) -> pd.DataFrame:
    """Every arm against one baseline arm (paired on CRN).

    Parameters
    ----------
    baseline : str or None
        Baseline arm; default the first arm in frame order (the sweep file's
        order).

    Returns
    -------
    pandas.DataFrame
        One row per non-baseline arm with the fields of :class:`PairedResult`
        (without ``table``).  Empty if there is a single arm.
    """
    df = with_outcomes(games)
    arms = list(dict.fromkeys(df["arm"]))
    if baseline is None:
        baseline = arms[0]
    rows = []
    for arm in arms:
        if arm == baseline:
            continue
        r = paired_comparison(df, baseline, arm, outcome=outcome, alpha=alpha, method=method).to_dict()
        r.pop("table")
        rows.append(r)
    cols = [f for f in PairedResult.__dataclass_fields__ if f != "table"]
    return pd.DataFrame(rows, columns=cols)


def paired_mean_difference(
    games: pd.DataFrame, arm_a: str, arm_b: str, column: str, *, alpha: float = 0.05
) -> dict:
    """Paired difference of a numeric column (e.g. ``end_turn``, steps lost).

    Returns
    -------
    dict
        ``games``, ``mean_a``, ``mean_b``, ``difference`` (mean of b - a),
        ``low``, ``high`` (t interval of the mean per-game difference, from
        ``DescrStatsW``) and ``wilcoxon_pvalue`` (scipy signed-rank test; NaN
        when all differences are zero).
    """
    m = paired_frame(games, arm_a, arm_b, column)
    a = m["a"].astype(float).to_numpy()
    b = m["b"].astype(float).to_numpy()
    d = b - a
    if len(d) > 1 and np.ptp(d) > 0:
        lo, hi = DescrStatsW(d).tconfint_mean(alpha=alpha)
    else:
        lo = hi = float(d.mean())
    pw = float(stats.wilcoxon(d).pvalue) if np.any(d != 0) else float("nan")
    return {
        "arm_a": arm_a,
        "arm_b": arm_b,
        "column": column,
        "games": int(len(d)),
        "mean_a": float(a.mean()),
        "mean_b": float(b.mean()),
        "difference": float(d.mean()),
        "low": float(lo),
        "high": float(hi),
        "wilcoxon_pvalue": pw,
    }


def paired_games_needed(
    width: float, *, discordant: float, difference: float = 0.0, alpha: float = 0.05
) -> int:
    """Games per arm for a paired (CRN) difference interval of a given width.

    Normal approximation: the per-game difference ``d`` in {-1, 0, 1} has
    variance ``q - delta**2`` with ``q`` the discordant share and ``delta`` the
    difference, so ``n = (2 z sd / width)**2``.

    Parameters
    ----------
    width : float
        Target full width of the interval of ``rate_b - rate_a``.
    discordant : float
        Expected share of games the two arms decide differently (from a pilot
        run: ``(a_only + b_only) / games``).
    difference : float
        Expected difference of the rates.

    Returns
    -------
    int
    """
    if not 0.0 < width < 2.0:
        raise OptionError(f"target width must lie in (0, 2), got {width}")
    if not 0.0 <= discordant <= 1.0 or abs(difference) > discordant:
        raise OptionError("discordant share must lie in [0, 1] and be at least |difference|")
    z = stats.norm.ppf(1 - alpha / 2)
    var = discordant - difference**2
    return max(1, int(math.ceil((2 * z) ** 2 * var / width**2)))
