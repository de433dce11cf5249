"""Drop and scatter kernels against the exact landing distributions (rules
19.41-19.46, 21.1) on the packaged map."""

import numpy as np
import pytest
from scipy import stats

from malta_sim.exact.drop import code_probabilities, marker_landing, stick_unit_landing
from malta_sim.kernels import drop as K
from malta_sim.loaders.iod_charts import load_charts
from malta_sim.loaders.iod_map import load_map
from malta_sim.rng import numba_state, numba_states


@pytest.fixture(scope="module")
def env():
    m = load_map()
    return m, load_charts()


def _chi2(obs_counts: dict, exact: dict, n: int) -> float:
    """Chi-square p-value; cells with expected count < 5 pooled into one."""
    keys = [k for k in exact if exact[k] > 0]
    exp = np.array([exact[k] * n for k in keys])
    obs = np.array([obs_counts.get(k, 0) for k in keys], dtype=float)
    assert sum(obs_counts.values()) == obs.sum(), "an outcome the exact distribution says is impossible"
    small = exp < 5
    if small.any() and exp[small].sum() > 0:
        exp = np.append(exp[~small], exp[small].sum())
        obs = np.append(obs[~small], obs[small].sum())
    return stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


def test_drop_table_modifiers(env):
    _, ch = env
    assert K.drop_modifier(True, 0, False) == -1
    assert K.drop_modifier(False, 2, True) == 4
    p0 = code_probabilities(0, True, ch)
    assert sum(p0.values()) == 1
    # more modifiers never scatter less (stochastic order of the codes)
    for m in range(-1, 6):
        a, b = code_probabilities(m, True, ch), code_probabilities(m + 1, True, ch)
        for c in range(5):
            assert sum(v for k, v in b.items() if k >= c) >= sum(v for k, v in a.items() if k >= c)


@pytest.mark.parametrize("hex_id, german, aa, solitaire", [("1313", False, 0, False), ("0911", True, 0, False),
                                                           ("2012", False, 2, True)])
def test_stick_unit_monte_carlo_matches_exact(env, hex_id, german, aa, solitaire):
    """20 000 seeded one-unit sticks vs the exact landing + drowning
    distribution; chi-square, false-alarm rate 1e-4 per case."""
    m, ch = env
    h = m.grid.index(hex_id)
    land, drowned = stick_unit_landing(h, german, aa, solitaire, m.ocean, m.neighbours, ch)
    assert sum(land.values()) + drowned == 1
    exact = {k: float(v) for k, v in land.items()}
    exact[-1] = float(drowned)
    st = numba_state(9, 0, "scatter")
    out = np.zeros(1, dtype=np.int32)
    n = 20000
    counts: dict = {}
    for _ in range(n):
        K.drop_stick(st, h, 1, german, aa, solitaire, m.ocean, m.neighbours, ch.drop_roll_min, ch.drop_roll_max,
                     ch.drop_marker, ch.drop_stick, ch.scatter_dir, out)
        counts[int(out[0])] = counts.get(int(out[0]), 0) + 1
    assert _chi2(counts, exact, n) > 1e-4


@pytest.mark.parametrize("reroll_from_landing", [False, True])
@pytest.mark.parametrize("hex_id", ["1107", "1313"])
def test_marker_monte_carlo_matches_markov_chain(env, hex_id, reroll_from_landing):
    """Drop zone markers re-roll from the ocean (19.42): 20 000 seeded markers
    vs the absorbing-chain solution; chi-square, false-alarm rate 1e-4."""
    m, ch = env
    h = m.grid.index(hex_id)
    aa = np.zeros(m.grid.n_hexes, dtype=np.int32)
    aa[m.grid.index("1210")] = 1
    aa_count = K.aa_within3(m.grid.distance_table, aa)
    exact = marker_landing(h, False, aa_count, True, m.ocean, m.neighbours, ch, reroll_from_landing)
    assert sum(exact.values()) == pytest.approx(1.0)
    assert all(not m.ocean[k] for k in exact)
    n = 20000
    states = numba_states(21, range(n), "scatter")
    out = np.zeros(n, dtype=np.int32)
    K.drop_marker_many(states, h, False, aa_count, True, m.ocean, m.neighbours, ch.drop_roll_min,
                       ch.drop_roll_max, ch.drop_marker, ch.drop_stick, ch.scatter_dir, reroll_from_landing, out)
    vals, cnt = np.unique(out, return_counts=True)
    assert _chi2(dict(zip(vals.tolist(), cnt.tolist())), exact, n) > 1e-4


def test_rule_19_43_stick_on_ocean_cancelled(env):
    m, ch = env
    sea = int(np.flatnonzero(m.ocean)[0])
    out = np.zeros(3, dtype=np.int32)
    code = K.drop_stick(numba_state(1, 0, "scatter"), sea, 3, False, 0, False, m.ocean, m.neighbours,
                        ch.drop_roll_min, ch.drop_roll_max, ch.drop_marker, ch.drop_stick, ch.scatter_dir, out)
    assert code == -1 and np.all(out == K.CANCELLED)


def test_off_map_counts_as_ocean(env):
    m, _ = env
    corner = m.grid.index("0101")
    f, last = K.walk(m.neighbours, corner, 0, 3)  # north off the map
    assert f == -1 and last == corner


def test_rule_19_46_airborne_losses():
    assert K.airborne_loss_probability(0) == 0
    assert K.airborne_loss_probability(3) == pytest.approx(0.5)
    st = numba_state(4, 0, "drop")
    res = [K.airborne_loss_roll(st, True, True, False) for _ in range(3000)]
    assert all(r == (d >= 5) for r, d in res)
    assert stats.binomtest(sum(r for r, _ in res), 3000, 1 / 3).pvalue > 1e-4
