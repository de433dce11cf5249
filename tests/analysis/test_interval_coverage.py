"""Coverage of every interval the report prints, on data with known truth.

Each test states its grid of cases.  Where the coverage can be summed exactly
(binomial win rates and shares, the paired interval's discordant counts) the
test sums it; elsewhere it simulates with a fixed seed and applies a binomial
test at level 0.001 against the stated band, so a correct interval fails a
case with probability below 0.1 %.  The figures are quoted in
``docs/analysis.md`` ("Coverage").

Intervals the report prints, and where they are checked here:

* Axis win rate per arm, end-reason shares, timing-curve bands: the Wilson
  interval of ``proportion_interval`` (the latter two call it directly, which
  ``test_shares_and_timing_bands_are_the_wilson_interval`` confirms);
* win rate at a sweep level pooled over arms on common random numbers:
  ``clustered_proportion_interval``;
* paired difference of two arms: Tango's score interval;
* mean of a per-game number: ``mean_interval``;
* odds ratios of the sweep regression: ``parameter_effects`` (cluster-robust).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import expit

from malta_sim.analysis import (
    clustered_proportion_interval,
    newcombe_paired_interval,
    parameter_effects,
    proportion_interval,
    tango_paired_interval,
    timing_curve,
)
from malta_sim.analysis.breakdown import end_reasons, mean_interval
from malta_sim.analysis.synthetic import synthetic_results
from malta_sim.rng import generator

NOMINAL, BAND = 0.95, 0.02


def _binomial_coverage(n: int, p: float) -> float:
    k = np.arange(n + 1)
    lo, hi = proportion_interval(k, np.full(n + 1, n))
    return float(stats.binom.pmf(k, n, p)[(lo <= p) & (p <= hi)].sum())


def _consistent_with_band(hits: int, reps: int, low: float, high: float) -> bool:
    """False only when a binomial test (level 0.001) puts the coverage outside [low, high]."""
    below = stats.binomtest(hits, reps, low, alternative="less").pvalue < 0.001
    above = stats.binomtest(hits, reps, high, alternative="greater").pvalue < 0.001
    return not (below or above)


# --------------------------------------------------------------------------- one proportion


P_GRID = (0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98)


@pytest.mark.parametrize("n", [100, 300, 1000])
def test_win_rate_interval_holds_95_within_2_points(n):
    """Wilson: exact coverage within 93-97 % at every p of the grid for 100 games or more."""
    cov = {p: _binomial_coverage(n, p) for p in P_GRID}
    assert all(NOMINAL - BAND <= c <= NOMINAL + BAND for c in cov.values()), cov


def test_win_rate_interval_with_30_games():
    """At 30 games the coverage swings with p between 92.98 % (p = 0.3, 0.7) and
    97.4 % (p = 0.1, 0.9) over p 0.05-0.95: at the edges of the band, slightly
    outside it (docs/analysis.md)."""
    cov = [_binomial_coverage(30, p) for p in P_GRID[1:-1]]
    assert 0.929 <= min(cov) and max(cov) <= 0.975


def test_unanimous_results_have_limits_in_0_1_holding_the_share():
    """Every count k of every n from 1 to 1000: 0 <= low <= k/n <= high <= 1, with
    high == 1 exactly when every game was won (the Wilson formula gives
    0.9999999999999999 for 308 of these n) and low == 0 when none was."""
    for n in range(1, 1001):
        k = np.arange(n + 1)
        lo, hi = proportion_interval(k, np.full(n + 1, n))
        assert np.all((0 <= lo) & (lo <= k / n) & (k / n <= hi) & (hi <= 1)), n
        assert hi[-1] == 1.0 and lo[0] == 0.0


def test_shares_and_timing_bands_are_the_wilson_interval():
    """End-reason shares and the timing curves print the same interval, so the
    coverage above applies to them."""
    g = synthetic_results(60, {"a": 0.3}, seed=4)
    er = end_reasons(g)
    lo, hi = proportion_interval(er["count"].to_numpy(), er["games"].to_numpy())
    assert np.allclose(er["low"], lo) and np.allclose(er["high"], hi)
    c = timing_curve(g, "surrender")
    lo, hi = proportion_interval(c["events"].to_numpy(), c["games"].to_numpy())
    assert np.allclose(c["low"], lo) and np.allclose(c["high"], hi)


# --------------------------------------------------------------------------- pooled over arms


CLUSTER_CASES = [  # (games per arm, arm win rates pooled in one level, share of games not on common dice)
    (30, (0.3, 0.5), 0.0), (100, (0.3, 0.5), 0.0), (300, (0.3, 0.5), 0.0),
    (100, (0.3, 0.5), 0.5), (100, (0.8, 0.9, 0.6, 0.7), 0.2), (100, (0.05, 0.1), 0.0),
]


def _crn_level(g, games, rates, mix):
    """Rows of several arms of one sweep level: arm a wins game i when u_i < p_a
    (common random numbers), except a share ``mix`` of games drawn afresh."""
    u = g.random(games)
    ys = []
    for p in rates:
        v = np.where(g.random(games) < mix, g.random(games), u)
        ys.append(v < p)
    return np.concatenate(ys), np.tile(np.arange(games), len(rates))


@pytest.mark.parametrize("games,rates,mix", CLUSTER_CASES)
def test_pooled_level_interval_counts_shared_dice(games, rates, mix):
    """2000 simulated sweep levels per case: the clustered interval covers the
    mean of the arms' rates within 93-97 %; the plain Wilson interval on all rows
    (as if independent) covers far less when the arms share their dice."""
    g = generator(2026, games, "misc")
    truth = float(np.mean(rates))
    reps, hits, naive = 2000, 0, 0
    for _ in range(reps):
        y, cl = _crn_level(g, games, rates, mix)
        lo, hi, _ = clustered_proportion_interval(y, cl)
        hits += lo <= truth <= hi
        lo, hi = proportion_interval(y.sum(), len(y))
        naive += lo <= truth <= hi
    assert _consistent_with_band(hits, reps, NOMINAL - BAND, NOMINAL + BAND), hits / reps
    if mix == 0.0:
        assert naive / reps < 0.90          # the pooled headline this replaces


# --------------------------------------------------------------------------- paired difference


def _paired_coverage(n, p10, p01, interval) -> float:
    """Exact coverage over the trinomial law of (A-only, B-only) games."""
    truth = p01 - p10
    total = 0.0
    for a in range(n + 1):
        pa = stats.binom.pmf(a, n, p10)
        if pa < 1e-12:
            continue
        q = p01 / (1 - p10) if p10 < 1 else 0.0
        b = np.arange(n - a + 1)
        pb = stats.binom.pmf(b, n - a, q)
        for bi in np.flatnonzero(pa * pb > 1e-13):
            lo, hi = interval(a, int(b[bi]), n)
            total += pa * pb[bi] * (lo <= truth <= hi)
    return total


PAIRED_CASES = [  # (games, rate A, rate B, discordant share)
    (100, 0.5, 0.55, 0.05), (100, 0.5, 0.55, 0.10), (100, 0.5, 0.55, 0.25), (100, 0.3, 0.4, 0.1),
    (100, 0.3, 0.4, 0.2), (100, 0.5, 0.5, 0.1), (100, 0.1, 0.05, 0.05), (100, 0.84, 0.64, 0.25),
    (300, 0.5, 0.55, 0.05), (300, 0.5, 0.5, 0.02), (300, 0.3, 0.4, 0.1), (30, 0.5, 0.55, 0.25),
    (30, 0.3, 0.4, 0.2), (30, 0.84, 0.64, 0.25),
]


def _split(pa, pb, disc):
    """Shares of A-only and B-only games for marginal rates pa, pb and a discordant share."""
    d = round(pb - pa, 12)
    extra = round(disc - abs(d), 12)
    assert extra >= 0
    return max(-d, 0) + extra / 2, max(d, 0) + extra / 2


@pytest.mark.parametrize("n,pa,pb,disc", PAIRED_CASES)
def test_paired_difference_interval_holds_95_within_2_points(n, pa, pb, disc):
    """Tango's interval, exact coverage within 93-97 % when at least 5 discordant
    games are expected (n x discordant share >= 5)."""
    p10, p01 = _split(pa, pb, disc)
    cov = _paired_coverage(n, p10, p01, tango_paired_interval)
    assert NOMINAL - BAND <= cov <= NOMINAL + BAND, cov


@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt:RuntimeWarning")
def test_paired_interval_with_few_discordant_games():
    """Rates 0.50 and 0.55 in 30 games of closely coupled arms (1.5 discordant
    games expected, none in 21 % of samples): Tango's interval is conservative
    (99.7 %), where Newcombe's hybrid interval covered 78 %."""
    p10, p01 = 0.0, 0.05
    tango = _paired_coverage(30, p10, p01, tango_paired_interval)
    newcombe = _paired_coverage(30, p10, p01, lambda a, b, n: tuple(
        -x for x in newcombe_paired_interval(15, a, b, n - 15 - a - b)[::-1]))
    assert tango >= NOMINAL and newcombe < 0.85
    for n, pa, pb, disc in [(30, 0.5, 0.55, 0.1), (30, 0.5, 0.5, 0.02), (30, 0.1, 0.05, 0.05)]:
        assert _paired_coverage(n, *_split(pa, pb, disc), tango_paired_interval) >= NOMINAL


# --------------------------------------------------------------------------- means of per-game numbers


def _draws(kind: str, g, n: int) -> np.ndarray:
    if kind == "poisson 0.05":
        return g.poisson(0.05, n)
    if kind == "poisson 0.5":
        return g.poisson(0.5, n)
    if kind == "poisson 3":
        return g.poisson(3, n)
    if kind == "negative binomial 30":        # steps lost: mean 30, variance 210
        return g.negative_binomial(5, 5 / 35, n)
    if kind == "rare 0/1 (2 %)":
        return (g.random(n) < 0.02).astype(int)
    if kind == "turn 0-47":
        return g.integers(0, 48, n)
    if kind == "clumped (10 % of games, Poisson 4)":
        return np.where(g.random(n) < 0.1, g.poisson(4, n), 0)
    raise KeyError(kind)


TRUE_MEAN = {"poisson 0.05": 0.05, "poisson 0.5": 0.5, "poisson 3": 3.0, "negative binomial 30": 30.0,
             "rare 0/1 (2 %)": 0.02, "turn 0-47": 23.5, "clumped (10 % of games, Poisson 4)": 0.4}

MEAN_CASES = [  # (kind, games, lowest and highest coverage accepted)
    ("poisson 3", 30, 0.93, 0.97), ("poisson 3", 100, 0.93, 0.97), ("poisson 3", 300, 0.93, 0.97),
    ("negative binomial 30", 30, 0.93, 0.97), ("negative binomial 30", 100, 0.93, 0.97),
    ("negative binomial 30", 300, 0.93, 0.97), ("turn 0-47", 10, 0.93, 0.97), ("turn 0-47", 30, 0.93, 0.97),
    ("turn 0-47", 300, 0.93, 0.97), ("poisson 0.5", 100, 0.93, 0.97), ("poisson 0.5", 300, 0.93, 0.97),
    ("clumped (10 % of games, Poisson 4)", 300, 0.93, 0.97),
    # rare counts: the exact Poisson interval errs on the safe side (97-99 %)
    ("poisson 0.05", 10, 0.95, 1.0), ("poisson 0.05", 30, 0.95, 1.0), ("poisson 0.05", 100, 0.95, 1.0),
    ("poisson 0.05", 300, 0.95, 1.0), ("rare 0/1 (2 %)", 100, 0.95, 1.0), ("poisson 0.5", 10, 0.95, 1.0),
    ("poisson 0.5", 30, 0.95, 1.0), ("clumped (10 % of games, Poisson 4)", 100, 0.93, 1.0),
]


@pytest.mark.parametrize("kind,n,low,high", MEAN_CASES)
def test_mean_interval_coverage(kind, n, low, high):
    """2000 simulated columns per case (binomial test at level 0.001 against the band)."""
    g = generator(1942, n, kind)
    reps, hits = 2000, 0
    for _ in range(reps):
        lo, hi, _ = mean_interval(_draws(kind, g, n).astype(float))
        hits += lo <= TRUE_MEAN[kind] <= hi
    assert _consistent_with_band(hits, reps, low, high), hits / reps


def test_bootstrap_percentile_was_the_failure_on_rare_counts():
    """Poisson 0.05 in 10 games: the bootstrap percentile interval the report used to
    print covered about 40 % (it is [0, 0] whenever every game is zero)."""
    g = generator(3, 0, "misc")
    hits = 0
    for _ in range(400):
        x = g.poisson(0.05, 10).astype(float)
        if np.ptp(x) == 0:
            lo = hi = x.mean()
        else:
            r = stats.bootstrap((x,), np.mean, n_resamples=500, method="percentile", random_state=g)
            lo, hi = r.confidence_interval
        hits += lo <= 0.05 <= hi
    assert hits / 400 < 0.6


# --------------------------------------------------------------------------- sweep regression


def test_parameter_effect_odds_ratios_cover():
    """300 simulated 2 x 2 sweeps of 100 games per arm on common random numbers,
    win probabilities logistic in both parameters (log odds ratios 0.6 and -0.4):
    the cluster-robust intervals of both odds ratios cover within 93-97 %."""
    g = generator(77, 0, "misc")
    b0, b1, b2 = 0.2, 0.6, -0.4
    games, reps = 100, 300
    hits = np.zeros(2, dtype=int)
    for _ in range(reps):
        u = g.random(games)
        rows = []
        for x1 in (0, 1):
            for x2 in (0, 1):
                v = np.where(g.random(games) < 0.3, g.random(games), u)
                w = v < expit(b0 + b1 * x1 + b2 * x2)
                rows.append(pd.DataFrame({"game": np.arange(games), "arm": f"{x1}{x2}", "x1": x1, "x2": x2,
                                          "winner": np.where(w, "axis", "allied"), "end_reason": "surrender",
                                          "end_turn": 10, "scenario": "hercules"}))
        eff = parameter_effects(pd.concat(rows, ignore_index=True), ["x1", "x2"]).set_index("term")
        hits += [eff.loc["x1", "low"] <= np.exp(b1) <= eff.loc["x1", "high"],
                 eff.loc["x2", "low"] <= np.exp(b2) <= eff.loc["x2", "high"]]
    for h in hits:
        assert _consistent_with_band(int(h), reps, NOMINAL - BAND, NOMINAL + BAND), hits / reps
