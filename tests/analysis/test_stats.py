"""Analysis statistics against known answers.

Statistical tests use fixed seeds; where a test compares a Monte Carlo count
with an exact value its false-alarm rate is stated in the docstring.
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from malta_sim.analysis import (
    CALENDARS,
    compare_arms,
    end_reasons,
    event_turns,
    game_length,
    games_needed,
    interval_width,
    level_rates,
    load_results,
    newcombe_paired_interval,
    paired_comparison,
    paired_games_needed,
    paired_mean_difference,
    parameter_effects,
    proportion_interval,
    sweep_parameters,
    timing_curve,
    win_rates,
)
from malta_sim.analysis.synthetic import synthetic_results
from malta_sim.errors import OptionError
from malta_sim.rng import generator


def _exact_coverage(n, p, method, alpha=0.05):
    k = np.arange(n + 1)
    lo, hi = proportion_interval(k, np.full(n + 1, n), alpha=alpha, method=method)
    covered = (lo <= p) & (p <= hi)
    return float(stats.binom.pmf(k, n, p)[covered].sum())


@pytest.mark.parametrize("method", ["wilson", "beta"])
def test_interval_coverage_on_simulated_bernoulli(method):
    """Simulated coverage of 4000 intervals (n=60 games, p=0.3) agrees with the
    exact coverage computed from the binomial distribution.

    Two-sided binomial test at level 0.001: false-alarm rate 0.1 % per method.
    """
    n, p, reps = 60, 0.3, 4000
    g = generator(20260629, 0, "misc")
    wins = (g.random((reps, n)) < p).sum(axis=1)
    lo, hi = proportion_interval(wins, np.full(reps, n), method=method)
    hits = int(((lo <= p) & (p <= hi)).sum())
    exact = _exact_coverage(n, p, method)
    assert stats.binomtest(hits, reps, exact).pvalue > 0.001
    # Known properties: Wilson is close to nominal, Clopper-Pearson never below.
    if method == "beta":
        assert exact >= 0.95
    else:
        assert 0.93 <= exact <= 0.97


def test_win_rates_counts_and_interval():
    df = pd.DataFrame({"game": range(10), "winner": ["axis"] * 3 + ["allied"] * 7,
                       "end_reason": ["surrender"] * 3 + ["time limit"] * 7, "end_turn": [10] * 3 + [48] * 7})
    r = win_rates(df, by=None)
    assert (r["games"].iloc[0], r["wins"].iloc[0], r["rate"].iloc[0]) == (10, 3, 0.3)
    lo, hi = proportion_interval(3, 10, method="wilson")
    # Wilson interval for 3/10 at 95 %: (0.1078, 0.6032)
    assert lo == pytest.approx(0.10779, abs=1e-4) and hi == pytest.approx(0.60322, abs=1e-4)
    ra = win_rates(df, by=None, side="allied")
    assert ra["wins"].iloc[0] == 7
    with pytest.raises(OptionError):
        win_rates(df, method="bogus")


def _paired_frame(n11, n10, n01, n00):
    """Two arms whose per-game Axis wins form the given 2x2 table."""
    a = [1] * n11 + [1] * n10 + [0] * n01 + [0] * n00
    b = [1] * n11 + [0] * n10 + [1] * n01 + [0] * n00
    rows = []
    for arm, out in (("A", a), ("B", b)):
        for i, w in enumerate(out):
            rows.append({"game": i, "seed": 1, "arm": arm, "winner": "axis" if w else "allied",
                         "end_reason": "surrender" if w else "time limit", "end_turn": 20 if w else 48})
    return pd.DataFrame(rows)


def test_mcnemar_exact_on_hand_table():
    """Table [[10, 5], [15, 20]]: 20 discordant games, 5 vs 15.
    Exact two-sided p = 2 * P(Bin(20, 1/2) <= 5) = 2 * 21700 / 2**20 = 0.041389."""
    r = paired_comparison(_paired_frame(10, 5, 15, 20), "A", "B")
    assert r.table == [[10, 5], [15, 20]]
    assert r.exact
    assert r.mcnemar_pvalue == pytest.approx(2 * 21700 / 2**20, rel=1e-9)
    assert r.difference == pytest.approx((25 - 15) / 50)
    assert r.low < r.difference < r.high


def test_mcnemar_chi_square_on_hand_table():
    """Table [[30, 10], [20, 40]]: corrected statistic (|10-20|-1)^2/30 = 2.7."""
    r = paired_comparison(_paired_frame(30, 10, 20, 40), "A", "B")
    assert not r.exact
    assert r.mcnemar_statistic == pytest.approx(2.7)
    assert r.mcnemar_pvalue == pytest.approx(stats.chi2.sf(2.7, 1))


def test_paired_interval_coverage():
    """Coverage of the Newcombe paired interval on 600 simulated CRN
    comparisons (200 games, discordant shares 0.10 / 0.05, true difference
    0.05).  Nominal 95 %; we require at least 92 %: with true coverage 0.95 a
    result below 0.92 has probability below 0.1 % (binomial tail)."""
    g = generator(7, 0, "misc")
    reps, n = 600, 200
    hits = 0
    for _ in range(reps):
        u = g.random(n)
        b_only = u < 0.10
        a_only = (u >= 0.10) & (u < 0.15)
        both = (u >= 0.15) & (u < 0.45)
        n11, n10, n01 = int(both.sum()), int(a_only.sum()), int(b_only.sum())
        lo_ab, hi_ab = newcombe_paired_interval(n11, n10, n01, n - n11 - n10 - n01)
        hits += -hi_ab <= 0.05 <= -lo_ab  # interval of rate_b - rate_a
    assert hits / reps >= 0.92


def test_paired_comparison_newcombe_method_gives_b_minus_a():
    r = paired_comparison(_paired_frame(30, 5, 15, 50), "A", "B", method="newcombe")
    lo, hi = newcombe_paired_interval(30, 5, 15, 50)
    assert (r.low, r.high) == pytest.approx((-hi, -lo))


def test_tango_interval_on_published_examples():
    """Tango's score interval against the worked examples of Fagerland, Lydersen
    and Laake (2014, Stat. Med. 33:2850, and their contingencytables package):
    airway hyper-responsiveness (Bentur et al. 2009), table [[1, 1], [7, 12]],
    difference (1 - 7) / 21 = -0.286 with interval -0.517 to -0.026."""
    from malta_sim.analysis import tango_paired_interval

    # arm A = 'before' (row), arm B = 'after' (column): A-only 1, B-only 7 -> B - A = +0.286
    lo, hi = tango_paired_interval(1, 7, 21)
    assert (lo, hi) == pytest.approx((0.026, 0.517), abs=6e-4)
    # the default method of paired_comparison, orientation b - a
    r = paired_comparison(_paired_frame(1, 7, 1, 12), "A", "B")
    assert r.method == "tango" and (r.low, r.high) == pytest.approx((-0.517, -0.026), abs=6e-4)
    # no discordant game: a real interval around 0, half-width z^2 / (n + z^2)
    z2 = stats.norm.ppf(0.975) ** 2
    lo, hi = tango_paired_interval(0, 0, 30)
    assert (lo, hi) == pytest.approx((-z2 / (30 + z2), z2 / (30 + z2)), rel=1e-6)
    lo, hi = tango_paired_interval(30, 0, 30)               # every game won by arm A only
    assert lo == -1.0 and -1.0 < hi < -0.5


def test_paired_t_method_and_errors():
    df = _paired_frame(10, 5, 15, 20)
    r = paired_comparison(df, "A", "B", method="t")
    d = np.array([0] * 10 + [-1] * 5 + [1] * 15 + [0] * 20, float)
    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
    assert r.low == pytest.approx(d.mean() - half) and r.high == pytest.approx(d.mean() + half)
    with pytest.raises(OptionError, match=r"no arm is named 'C'\. The arms: 'A', 'B'"):
        paired_comparison(df, "A", "C")
    with pytest.raises(OptionError):
        paired_comparison(df, "A", "B", method="x")
    assert len(compare_arms(df, baseline="A")) == 1


def test_crn_sharper_than_independent():
    g = synthetic_results(400, {"low": 0.40, "high": 0.46}, seed=3)
    r = paired_comparison(g, "low", "high")
    wr = win_rates(g)
    # Independent-samples half-width vs paired width.
    indep = (wr["high"] - wr["low"]).mean()
    assert (r.high - r.low) < indep
    assert r.a_only == 0 and r.b_only > 0 and r.mcnemar_pvalue < 0.01


def test_paired_mean_difference():
    g = synthetic_results(100, {"a": 0.5, "b": 0.5}, seed=1)
    r = paired_mean_difference(g, "a", "b", "axis_steps_lost")
    assert r["difference"] == pytest.approx(3.0)  # synthetic arms differ by 3 steps exactly
    assert r["low"] == r["high"] == pytest.approx(3.0)


def test_games_needed():
    for method in ("wilson", "beta"):
        n = games_needed(0.1, p=0.5, method=method)
        assert interval_width(0.5, n, method=method) <= 0.1 < interval_width(0.5, n - 1, method=method)
    # Normal approximation: 1.96^2 * 0.25 / 0.05^2 = 384.1 -> 385 games
    assert games_needed(0.1, method="normal") in (384, 385)
    assert games_needed(0.1, p=0.1) < games_needed(0.1, p=0.5)
    with pytest.raises(OptionError):
        games_needed(0)
    # paired: 2 z sd / w, sd^2 = 0.1 -> (2*1.95996)^2*0.1/0.04^2 = 960.4 -> 961
    assert paired_games_needed(0.04, discordant=0.1) == 961


def test_calendar():
    """Absolute turns, 0 = 29 June AM (rules 4.0, 22.22, 22.32)."""
    h, i = CALENDARS["hercules"], CALENDARS["intro"]
    assert str(h.date_of(0)) == "1942-06-29" and str(h.date_of(47)) == "1942-07-10"
    assert h.label(47) == "10 Jul night" and h.label(2) == "29 Jun PM"
    assert h.days == 12 and i.days == 6 and i.start == "1942-06-30"
    assert str(i.date_of(27)) == "1942-07-05" and i.first_turn == 4 and i.last_turn == 27


def _timing_frame():
    return pd.DataFrame({
        "game": [0, 1, 2, 3],
        "winner": ["axis", "allied", "allied", "axis"],
        "end_reason": ["surrender", "invasion_suspended", "last_turn", "surrender"],
        "end_turn": [20, 5, 47, 30],
        "first_airfield_turn": [4, -1, 12, np.nan],
        "scenario": "hercules",
    })


def test_timing_incidence_counts_never():
    df = _timing_frame()
    c = timing_curve(df, "surrender", by=None)
    assert len(c) == 48 and c.turn.min() == 0
    assert c.loc[c.turn == 19, "share"].item() == 0
    assert c.loc[c.turn == 20, "share"].item() == 0.25
    assert c.loc[c.turn == 47, "share"].item() == 0.5  # cancelled and time-limit games count as never
    assert str(c.loc[c.turn == 20, "date"].item().date()) == "1942-07-04"
    lo, hi = proportion_interval(2, 4)
    assert c.loc[c.turn == 47, "low"].item() == pytest.approx(lo)
    a = timing_curve(df, "first_airfield", by=None)
    assert a.loc[a.turn == 12, "events"].item() == 2
    df.loc[1, "first_airfield_turn"] = 0  # turn 0 (29 June AM) is a real turn; -1 means never
    assert timing_curve(df, "first_airfield", by=None).loc[0, "events"] == 1
    dkw = timing_curve(df, "surrender", by=None, band="dkw")
    eps = math.sqrt(math.log(2 / 0.05) / 8)
    assert dkw.loc[dkw.turn == 47, "high"].item() == pytest.approx(min(1, 0.5 + eps))


def test_timing_km_censors_at_game_end():
    """Kaplan-Meier by hand: game 1 is censored at turn 5; the event at 20 has 3 games at risk
    -> S = 2/3; at 30, 2 at risk -> S = 1/3; share 2/3."""
    c = timing_curve(_timing_frame(), "surrender", by=None, method="km")
    assert c.loc[c.turn == 25, "share"].item() == pytest.approx(1 / 3)
    assert c.loc[c.turn == 47, "share"].item() == pytest.approx(2 / 3)


def test_victory_city_from_per_turn():
    g, pt = synthetic_results(50, {"a": 0.5}, per_turn=True, seed=2)
    t = event_turns(g, "victory_city", per_turn=pt)
    expect = g["cities_axis"].astype(bool)
    assert (t.notna() == expect).all()
    with pytest.raises(OptionError):
        event_turns(g, "victory_city")


def test_breakdowns():
    df = _timing_frame()
    er = end_reasons(df, by="arm")
    assert er.set_index("end_reason")["count"].to_dict() == {"surrender": 2, "operation cancelled": 1, "time limit": 1}
    gl = game_length(df).set_index("winner")
    assert gl.loc["all", "mean_turn"] == pytest.approx((20 + 5 + 47 + 30) / 4)
    assert gl.loc["axis", "median_turn"] == 25


def test_parameter_effects():
    g = synthetic_results(300, {"x1": 0.3, "x2": 0.5, "x3": 0.7}, seed=5)
    g["beach"] = g["arm"].map({"x1": "west", "x2": "north", "x3": "east"})
    assert sweep_parameters(g) == ["arm_rate"]  # 'beach' only relabels the arms the same way
    g["policy"] = g["arm"].map({"x1": "a", "x2": "a", "x3": "b"})
    assert sweep_parameters(g.drop(columns="arm_rate")) == ["beach", "policy"]
    eff = parameter_effects(g, ["arm_rate"])
    slope = eff.set_index("term").loc["arm_rate"]
    assert slope["low"] > 1 and slope["pvalue"] < 1e-6
    eff2 = parameter_effects(g, ["beach"])
    assert any(t.startswith("beach") for t in eff2["term"])
    lr = level_rates(g, ["beach"])
    assert len(lr) == 3 and lr["games"].sum() == 900
    # Perfect separation -> empty frame with a note, not an exception.
    sep = synthetic_results(50, {"n": 0.0, "y": 1.0}, seed=5)
    out = parameter_effects(sep, ["arm_rate"])
    assert len(out) == 0 and "not fitted" in out.attrs["note"]


def test_load_results(tmp_path):
    g, pt = synthetic_results(20, {"a": 0.5}, per_turn=True)
    g.to_parquet(tmp_path / "games.parquet")
    pt.to_parquet(tmp_path / "per_turn.parquet")
    games, per_turn = load_results(tmp_path)
    assert len(games) == 20 and per_turn is not None
    g.to_csv(tmp_path / "r.csv", index=False)
    games, per_turn = load_results(tmp_path / "r.csv")
    assert len(games) == 20 and per_turn is None
    with pytest.raises(OptionError):
        load_results(tmp_path / "missing.parquet")
    g.drop(columns="winner").to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(OptionError, match="winner"):
        load_results(tmp_path / "bad.csv")
