"""The scripted bots' speed-ups leave every answer as it was: memoised and
compiled paths of :mod:`malta_sim.bots.axis` checked against a fresh
computation on the states of whole games."""

import numpy as np
import pytest

from malta_sim.bots import axis as AX




def _best_step_reference(dist, legal, goal, d_here, anchor, radius, ehex, envelop):
    """The destination rule of AxisBot.next_move as a plain loop over the
    legal destinations (the form it had before it was compiled)."""
    best, best_key = -1, None
    for h, cost in legal.items():
        dh = int(dist[h, goal])
        if dh >= d_here:
            continue
        if anchor >= 0 and dist[h, anchor] > radius:
            continue
        bonus = 0.0
        if len(ehex) and envelop > 0:
            adj = ehex[dist[h, ehex] == 1]
            if len(adj):
                bonus = envelop * len(adj)
        key = (dh - bonus, cost, h)
        if best_key is None or key < best_key:
            best, best_key = h, key
    return best


def test_compiled_move_choice_equals_reference():
    """Rules 6.1-6.6, 8.2, 9.92: the compiled goal and destination choice of
    the Axis bot equal the plain loops on random positions (ties included:
    MP costs and envelopment bonuses drawn from few values)."""
    from malta_sim.iod.setup import load_static

    dist = load_static().grid.distance_table
    n = dist.shape[0]
    rng = np.random.default_rng(5)
    for _ in range(400):
        here = int(rng.integers(n))
        obj = np.where(rng.random(n) < 0.05, rng.integers(1, 4, n) * 1.5, 0.0)
        gh = np.flatnonzero(obj > 0)
        if not len(gh):
            continue
        decay = float(rng.choice([0.0, 0.25, 0.5, 1.0]))
        score = obj[gh] - decay * dist[here, gh]
        goal = int(gh[int(np.argmax(score))])
        assert AX._goal_hex(obj, gh, len(gh), dist, here, decay) == goal
        hs = rng.choice(n, size=int(rng.integers(1, 40)), replace=False)
        legal = {int(h): float(rng.integers(1, 5)) / 2 for h in sorted(hs)}
        ehex = np.unique(rng.integers(0, n, int(rng.integers(0, 12)))).astype(np.int64)
        envelop = float(rng.choice([0.0, 0.5, 1.0])) if len(ehex) else 0.0
        anchor = int(rng.integers(-1, n))
        radius = float(rng.integers(1, 12))
        d_here = int(dist[here, goal])
        want = _best_step_reference(dist, legal, goal, d_here, anchor, radius, ehex, envelop)
        got = AX._best_step(dist, np.fromiter(legal, np.int64, len(legal)),
                            np.fromiter(legal.values(), np.float64, len(legal)), goal, d_here,
                            anchor, radius, ehex, envelop)
        assert got == want




def test_expected_losses_memo_equals_fresh():
    """Rules 9.3 g, 9.42, 9.43, 9.94: the memoised expected losses equal a
    fresh computation from the CRT cells for every line, level, fort and step
    count tried."""
    from tests.conftest import make

    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"]})
    crt = g.static.charts.crt
    p = np.array([6 - abs(r - 7) for r in range(2, 13)]) / 36.0
    from malta_sim.iod.rules.combat import crt_column
    for line in range(crt.shape[0]):
        for level in range(-4, 9):
            for fort in (False, True):
                for ds, as_ in ((1, 1), (2, 5), (6, 3)):
                    got = AX.expected_losses(g, line, level, fort, ds, as_)
                    col = crt_column(g.static.charts, line, level)
                    if col < 0:
                        assert got is None
                        continue
                    ah = crt[line, col, 2:13, 0].astype(int)
                    dh = crt[line, col, 2:13, 2].astype(int)
                    if fort:
                        dh = np.maximum(0, dh - 1)
                    want = (float(p @ np.minimum((ah + 1) // 2, as_)),
                            float(p @ np.minimum(dh // 2, ds)),
                            float(p @ np.where(dh // 2 >= ds, 0, dh - dh // 2)))
                    assert got == pytest.approx(want, abs=1e-12)
