"""The unit queries of :class:`malta_sim.iod.game.Game`: the pieces in a hex and of a side,
the ground units, on constructed positions and random arrays.
"""

from __future__ import annotations

import numpy as np

from tests.conftest import make, u


def test_ground_units_lists_ground_pieces():
    """Leaders are not ground combat units; the list is ascending Python ints."""
    g = make({"1315": ["axis.185.v_186", "allied.ldr.beak"], "1316": ["allied.uk.8m"]})
    assert g.ground_units(1) == [u("allied.uk.8m")] and g.ground_units(0) == [u("axis.185.v_186")]
    assert g.ground_units() == sorted([u("allied.uk.8m"), u("axis.185.v_186")])


def test_units_in_run_equals_mask_lookup():
    """The compiled per-side lookup of :meth:`Game.units_at` equals the mask
    lookup on random hex arrays, runs and hexes (off-map -1 included)."""
    from malta_sim.iod.game import units_in_run

    rng = np.random.default_rng(11)
    found = 0
    for _ in range(300):
        n = int(rng.integers(1, 60))
        hexes = rng.integers(-1, 6, n).astype(np.int32)
        lo = int(rng.integers(0, n))
        hi = int(rng.integers(lo, n + 1))
        h = int(rng.integers(-1, 6))
        want = np.flatnonzero(hexes == h)
        want = want[(want >= lo) & (want < hi)]
        got = units_in_run(hexes, h, lo, hi)
        assert got.dtype == np.int64 and np.array_equal(got, want)
        found += len(want) > 0
    assert found > 50


def test_side_selector_selects_the_side_in_order():
    """The unit selector of a side (slice or index array) picks exactly that
    side's units in unit order, contiguous or not."""
    from types import SimpleNamespace

    from malta_sim.iod.rules.special_rules import side_selector

    x = np.arange(10) * 3
    for sides in ([0, 0, 0, 1, 1, 1, 1, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0], [0] * 10):
        side = np.array(sides)
        for k in (0, 1):
            sel = side_selector(SimpleNamespace(side=side), k)
            np.testing.assert_array_equal(x[sel], x[side == k])
