"""Second round of bot speed-ups: every kept or shortcut answer of
:mod:`malta_sim.bots.axis` equals a fresh computation on the states of
whole games."""

import numpy as np

from malta_sim.bots import axis as AX




def test_base_value_equals_forecast_value():
    """Rules 9.3 d-g, 12.21, 16.42: the value of a base tuple is exactly
    :meth:`Forecast.value` (same floats, same level, same verdict) for a range
    of support points, air markers and thresholds."""
    from tests.conftest import h, make, u

    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"], "1210": ["axis.4.2_34"]})
    att = (u("axis.4.1_34"), u("axis.4.2_34"))
    fc = AX.Forecast(g, 0, h("1311"), att)
    base = AX._forecast_base(g, 0, h("1311"), att)[0]
    for thr in ((1.0, 0.0, 1.0, 0.3), (3.0, 0.5, 0.5, 0.0), (-2.0, -1.0, 2.0, 1.0)):
        thr = tuple(np.float64(x) for x in thr)
        for sp in (0, 1, 3, 7, 40):
            for air in (0, 1):
                want = fc.value(g, *thr, support=sp, air=air)
                got = AX._base_value(g, base, thr, sp, air)
                assert got == want and type(got[1]) is type(want[1])


def test_expected_losses_capped_steps_exact():
    """Rules 9.3 g, 9.42, 9.43, 9.94: answers kept per CRT cell with the step
    counts capped at what the cell's hits can take are the very floats a fresh
    computation gives, for step counts far beyond the caps."""
    from tests.conftest import make

    from malta_sim.iod.rules.combat import crt_column

    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"]})
    charts = g.static.charts
    crt = charts.crt
    p = np.array([6 - abs(r - 7) for r in range(2, 13)], dtype=np.float64) / 36.0
    for line in range(crt.shape[0]):
        for level in range(-4, 9):
            col = crt_column(charts, line, level)
            for fort in (False, True):
                for ds in (0, 1, 2, 3, 5, 9, 30):
                    for as_ in (1, 2, 4, 7, 25):
                        got = AX.expected_losses(g, line, level, fort, ds, as_)
                        if col < 0:
                            assert got is None
                            continue
                        ah = crt[line, col, 2:13, 0].astype(np.int64)
                        dh = crt[line, col, 2:13, 2].astype(np.int64)
                        if fort:
                            dh = np.maximum(0, dh - 1)
                        want = (float(p @ np.minimum((ah + 1) // 2, as_)),
                                float(p @ np.minimum(dh // 2, ds)),
                                float(p @ np.where(dh // 2 >= ds, 0, dh - dh // 2)))
                        assert got == want


def test_near_enemy_mask_equals_distance_test():
    """Rules 6.1-6.6: the Allied garrison bot's mask of hexes within one hex
    of an enemy unit equals the per-unit distance test it replaces (the hex
    distance table is symmetric)."""
    from malta_sim.iod.setup import load_static

    dist = load_static().grid.distance_table
    rng = np.random.default_rng(4)
    for _ in range(30):
        ehex = np.unique(rng.integers(0, dist.shape[0], int(rng.integers(1, 40))))
        near = (dist[ehex] <= 1).any(axis=0)
        for h in rng.integers(0, dist.shape[0], 50):
            assert bool(near[h]) == bool(dist[h, ehex].min() <= 1)
