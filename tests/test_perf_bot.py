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
    orig = AX._ForecastMemo.base

    def base(self, game, side, target, attackers):
        key = (side, target, attackers, game.night, bool(game.state.fort_destroyed[target]))
        served["hit" if key in self.entries else "miss"] += 1
        got = orig(self, game, side, target, attackers)
        fresh, _deps = AX._forecast_base(game, side, target, attackers)
        assert got == fresh, (key, got, fresh)
        return got

    monkeypatch.setattr(AX._ForecastMemo, "base", base)
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
    assert len(memo.entries) == 1
    AX._forecast_memo(g)
    assert len(memo.entries) == 1                       # nothing changed: kept
    g.state.morale_state[u("allied.uk.inf_coy.1")] = 2  # demoralized defender
    AX._forecast_memo(g)
    assert len(memo.entries) == 0
    two = memo.base(g, 0, h("1311"), att)
    assert two == AX._forecast_base(g, 0, h("1311"), att)[0]
    assert two != one                                   # defense halved (11.4)
    g.state.morale_state[u("allied.uk.inf_coy.1")] = 0
    AX._forecast_memo(g)
    assert memo.base(g, 0, h("1311"), att) == one
