"""Second round of bot speed-ups: every kept or shortcut answer of
:mod:`malta_sim.policies.axis` equals a fresh computation on the states of
whole games."""

import numpy as np
import pytest

from malta_sim.games.island_of_death.engine import play_games
from malta_sim.policies import axis as AX


@pytest.fixture
def checked_entries(monkeypatch):
    """Every forecast base the memo serves (:meth:`_ForecastMemo.entry`) is
    recomputed on the current state and compared, deps included.  The bots
    take their plain Python scoring path (the one that reads the memo; the
    compiled one is checked in ``test_perf3_fc.py``)."""
    served = {"hit": 0, "miss": 0}
    monkeypatch.setattr(AX._ParamBot, "_compiled_scores", lambda self: False)
    orig = AX._ForecastMemo.entry

    def entry(self, game, side, target, attackers):
        key = (side, target, attackers, game.night, bool(game.state.fort_destroyed[target]))
        served["hit" if key in self.entries else "miss"] += 1
        got = orig(self, game, side, target, attackers)
        assert got == AX._forecast_base(game, side, target, attackers), key
        return got

    monkeypatch.setattr(AX._ForecastMemo, "entry", entry)
    return served


@pytest.fixture
def checked_move_setup(monkeypatch):
    """Every next_move set-up served from the bot's last position equals the
    one worked out afresh (objective weights, their hexes, enemy hexes,
    envelopment bonus) and every goal kept equals a fresh goal.  The bots
    take their plain move loop (the set-up's reader; the compiled walk reads
    the state itself and is checked in ``test_perf3_move.py``)."""
    served = {"kept": 0}
    orig = AX.AxisBot._move_setup

    def plain_next_move(self, game, mode, candidates):
        self._phase_reset(game, mode)
        return self._next_move_plain(game, mode, candidates)

    monkeypatch.setattr(AX.AxisBot, "next_move", plain_next_move)

    def setup(self, game):
        kept = self._move_memo
        got = orig(self, game)
        if kept is not None and self._move_memo is kept:
            served["kept"] += 1
        self_fresh = object.__new__(type(self))
        self_fresh.__dict__.update(self.__dict__)
        self_fresh._move_memo = None
        fresh = orig(self_fresh, game)
        for a, b in zip(got[:4], fresh[:4]):
            assert np.array_equal(a, b) and a.dtype == b.dtype
        assert got[4] == fresh[4]
        dist = game.static.grid.distance_table
        decay = float(self.vec[AX.P.AX_DECAY])
        for here, goal in got[5].items():
            assert goal == int(AX._goal_hex(fresh[0], fresh[1], len(fresh[1]), dist, here, decay))
        return got

    monkeypatch.setattr(AX.AxisBot, "_move_setup", setup)
    return served


@pytest.mark.parametrize("scenario,axis,allied,seed,games", [
    ("hercules", "axis:balanced", "allied:static", 5, [0]),
    ("intro", "axis:aggressive", "allied:counterattack", 8, [0, 1]),
])
def test_kept_answers_equal_fresh(checked_entries, checked_move_setup, scenario, axis, allied,
                                  seed, games):
    """Rules 6.1-6.6, 9.3, 9.91, 9.92: forecast bases read by the target scores
    and the movement set-up kept between moves equal fresh ones through whole
    games."""
    play_games(scenario, seed, games, axis_policy=axis, allied_policy=allied)
    assert checked_entries["hit"] > 0 and checked_entries["miss"] > 0
    assert checked_move_setup["kept"] > 0


def test_base_value_equals_forecast_value():
    """Rules 9.3 d-g, 12.21, 16.42: the value of a base tuple is exactly
    :meth:`Forecast.value` (same floats, same level, same verdict) for a range
    of support points, air markers and thresholds."""
    from iod_helpers import h, make, u

    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"], "1210": ["axis.4.2_34"]})
    att = (u("axis.4.1_34"), u("axis.4.2_34"))
    memo = AX._forecast_memo(g)
    fc = AX.Forecast(g, 0, h("1311"), att, memo)
    base = memo.base(g, 0, h("1311"), att)
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
    from iod_helpers import make

    from malta_sim.games.island_of_death.combat import crt_column

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
    from malta_sim.games.island_of_death.setup import load_static

    dist = load_static().grid.distance_table
    rng = np.random.default_rng(4)
    for _ in range(30):
        ehex = np.unique(rng.integers(0, dist.shape[0], int(rng.integers(1, 40))))
        near = (dist[ehex] <= 1).any(axis=0)
        for h in rng.integers(0, dist.shape[0], 50):
            assert bool(near[h]) == bool(dist[h, ehex].min() <= 1)
