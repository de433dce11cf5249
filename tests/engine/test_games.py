"""Whole Introductory games under the random-legal policy: phase-end
invariants (test mode), result rows, reproducibility, illegal decisions."""

import pandas as pd
import pytest

from malta_sim.iod import sequence
from malta_sim.iod.engine import RESULT_COLUMNS
from malta_sim.play import new_game, play_games
from malta_sim.iod.game import IllegalDecision
from malta_sim.games.registry import get_scenario
from malta_sim.bots.random import RandomPolicy


def test_intro_games_play_to_the_end_with_invariants():
    """Games end by surrender, suspension or the last turn; invariants are
    checked at every phase end (stacking 7.1, nothing at sea, steps, unit
    accounting, tallies = recount)."""
    res = play_games("intro", 11, [0, 1], check=True)
    df = res.games
    assert list(df.columns) == list(RESULT_COLUMNS)
    assert df["game"].tolist() == [0, 1]
    assert set(df["winner"]) <= {"axis", "allied"}
    assert set(df["end_reason"]) <= {"surrender", "invasion_suspended", "last_turn"}
    assert (df["end_turn"] <= 27).all() and (df["end_turn"] >= 4).all()
    last = df[df["end_reason"] == "last_turn"]
    assert (last["winner"] == "allied").all() and (last["end_turn"] == 27).all()


def test_intro_without_invasion_modules_plays():
    res = play_games("intro", 2, [5], options=("no_invasion",), check=True, per_turn=True)
    assert len(res.games) == 1
    pt = res.per_turn
    assert pt["turn"].is_monotonic_increasing and pt["turn"].iloc[0] == 4


def test_reproducible_regardless_of_batch_and_log():
    a = play_games("intro", 7, [2, 4], event_log=True)
    b = play_games("intro", 7, [4])
    ra = a.games[a.games.game == 4].reset_index(drop=True)
    pd.testing.assert_frame_equal(ra, b.games.reset_index(drop=True))
    ev = a.events
    assert {"phase", "hexes", "units", "dice", "cell", "result"} <= set(ev.columns)
    assert (ev.game.isin([2, 4])).all()


def test_registry_entry_point():
    spec = get_scenario("intro")
    assert spec.play_fn() is play_games
    assert "random" in spec.axis_policies and "random" in spec.allied_policies


class BadAttacker(RandomPolicy):
    def next_attack(self, game, options, penetration=False):
        if options:
            tgt = sorted(options)[0]
            far = [u for u in game.on_map(self.side) if u not in options[tgt]]
            return (tgt, far[:1]) if far else None
        return None


def test_illegal_decision_names_rule():
    g = new_game("intro", 3, 0, options=("no_invasion",))
    g.policies = (BadAttacker(0), g.policies[1])
    with pytest.raises(IllegalDecision, match=r"rule 9\.3"):
        for _ in range(8):
            sequence.play_turn(g)
            if g.state.over[0]:
                pytest.skip("game ended before an attack")
