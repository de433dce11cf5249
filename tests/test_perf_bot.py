"""The scripted bots' speed-ups leave every answer as it was: memoised and
compiled paths of :mod:`malta_sim.policies.axis` checked against a fresh
computation on the states of whole games."""

import numpy as np
import pytest

from malta_sim.games.island_of_death.engine import play_games
from malta_sim.policies import axis as AX


@pytest.fixture
def checked_forecasts(monkeypatch):
    """Every forecast base and target score served by the memo is recomputed
    on the current state and compared (the memo must never serve a stale one)."""
    served = {"hit": 0, "miss": 0, "scores": 0}
    orig = AX._ForecastMemo.entry

    def entry(self, game, side, target, attackers):
        key = (side, target, attackers, game.night, bool(game.state.fort_destroyed[target]))
        served["hit" if key in self.entries else "miss"] += 1
        got = orig(self, game, side, target, attackers)
        fresh, _deps = AX._forecast_base(game, side, target, attackers)
        assert got[0] == fresh, (key, got[0], fresh)
        return got

    monkeypatch.setattr(AX._ForecastMemo, "entry", entry)
    orig_score = AX._ParamBot._score_target

    def score(self, game, tgt, units, support_units=(), air=0, hurricane=(), penetration=False,
              memo=None):
        args = (game, tgt, units, support_units, air, hurricane, penetration)
        got = orig_score(self, *args, memo)
        fresh = orig_score(self, *args, AX._ForecastMemo(game))   # empty: all recomputed
        assert (got is None and fresh is None) or (got[:3] == fresh[:3] and list(got[3]) == list(fresh[3]))
        served["scores"] += 1
        return got

    monkeypatch.setattr(AX._ParamBot, "_score_target", score)
    return served


@pytest.mark.parametrize("scenario,axis,allied,seed,games", [
    ("hercules", "axis:balanced", "allied:static", 7, [0, 1]),
    ("hercules", "axis:aggressive", "allied:counterattack", 11, [0]),
    ("intro", "axis:balanced", "allied:counterattack", 3, [0, 1]),
])
def test_forecast_memo_serves_fresh_bases(checked_forecasts, scenario, axis, allied, seed, games):
    """Rules 9.3, 9.91, 9.92: a memoised forecast base equals the one built on
    the state of the moment, through whole games (combats, retreats, losses,
    morale changes, night turns)."""
    play_games(scenario, seed, games, axis_policy=axis, allied_policy=allied)
    assert checked_forecasts["hit"] > 0 and checked_forecasts["miss"] > 0
    assert checked_forecasts["scores"] > 0


def test_forecast_memo_drops_bases_on_change():
    """A change of a defender's level (a step loss, 17.3) or of the units in the
    target hex drops the memoised base."""
    from iod_helpers import h, make, u

    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"], "1210": ["axis.4.2_34"]})
    att = (u("axis.4.1_34"), u("axis.4.2_34"))
    memo = AX._forecast_memo(g)
    one = memo.base(g, 0, h("1311"), att)
    assert len(memo.entries) == 2                       # the base and the defending side
    AX._forecast_memo(g)
    assert len(memo.entries) == 2                       # nothing changed: kept
    g.state.morale_state[u("allied.uk.inf_coy.1")] = 2  # demoralized defender
    AX._forecast_memo(g)
    assert len(memo.entries) == 0
    two = memo.base(g, 0, h("1311"), att)
    assert two == AX._forecast_base(g, 0, h("1311"), att)[0]
    assert two != one                                   # defense halved (11.4)
    g.state.morale_state[u("allied.uk.inf_coy.1")] = 0
    AX._forecast_memo(g)
    assert memo.base(g, 0, h("1311"), att) == one


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
    from malta_sim.games.island_of_death.setup import load_static

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


def test_changed_units_finds_every_change():
    """The compiled change scan reports exactly the units whose watched fields
    differ, their old hex and whether box, level or morale changed, and brings
    the copy up to date."""
    rng = np.random.default_rng(9)
    n = 220
    cur = [rng.integers(-1, 500, n).astype(np.int32), rng.integers(0, 11, n).astype(np.int8),
           rng.integers(0, 4, n).astype(np.int8), rng.integers(0, 3, n).astype(np.int8),
           rng.random(n) < 0.2, rng.integers(-1, 30, n).astype(np.int8)]
    for _ in range(50):
        snap = [a.copy() for a in cur]
        old = [a.copy() for a in snap]
        which = rng.choice(n, size=int(rng.integers(0, 20)), replace=False)
        for u in which:
            f = int(rng.integers(6))
            cur[f][u] = (not cur[f][u]) if f == 4 else cur[f][u] + 1
        out = AX._changed_units(*cur, *snap)
        diff = np.zeros(n, bool)
        blm = np.zeros(n, bool)
        for f in range(6):
            diff |= cur[f] != old[f]
        for f in (1, 2, 3):
            blm |= cur[f] != old[f]
        assert out[0].tolist() == np.flatnonzero(diff).tolist()
        assert out[1].tolist() == old[0][diff].tolist()
        assert out[2].tolist() == blm[diff].astype(int).tolist()
        assert all((a == b).all() for a, b in zip(cur, snap))


def test_expected_losses_memo_equals_fresh():
    """Rules 9.3 g, 9.42, 9.43, 9.94: the memoised expected losses equal a
    fresh computation from the CRT cells for every line, level, fort and step
    count tried."""
    from iod_helpers import make

    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"]})
    crt = g.static.charts.crt
    p = np.array([6 - abs(r - 7) for r in range(2, 13)]) / 36.0
    from malta_sim.games.island_of_death.combat import crt_column
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
