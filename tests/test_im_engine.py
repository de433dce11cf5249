"""Invasion: Malta game loop: registry, determinism, invariants, reconstructed-component
labels, option errors (whole-game tests on a shortened copy of the scenario)."""

import shutil

import numpy as np
import pytest

from malta_sim.errors import OptionError
from malta_sim.games.invasion_malta import csvio
from malta_sim.games.invasion_malta import engine as en
from malta_sim.games.invasion_malta.components import RECONSTRUCTED, odds_column
from malta_sim.games.invasion_malta.data import load_scenario
from malta_sim.games.registry import get_scenario


@pytest.fixture(scope="module")
def short_data(tmp_path_factory):
    d = tmp_path_factory.mktemp("im") / "data"
    shutil.copytree(csvio.DATA_DIR, d)
    p = d / "scenario_c3.csv"
    p.write_text(p.read_text().replace("turns,12,", "turns,4,"))
    q = d / "scenario_c3_setup.csv"
    q.write_text(q.read_text().replace(",6,reconstructed", ",4,reconstructed"))
    return str(d)


def test_scenario_registered():
    spec = get_scenario("im-c3")
    assert spec.game == "invasion_malta" and spec.play_fn() is en.play_games
    assert "advance" in spec.axis_policies and "weather-roll" in spec.options


def test_batch_is_deterministic_and_per_game(short_data):
    a = en.play_games("im-c3", 5, np.array([0, 1]), data_dir=short_data, per_turn=True)
    b = en.play_games("im-c3", 5, np.array([1]), data_dir=short_data)
    ra = a.games.drop(columns=[]).iloc[1].to_dict()
    rb = b.games.iloc[0].to_dict()
    assert ra == rb  # game 1 does not depend on the other games in the block
    assert set(a.games["winner"]) <= {"axis", "allied"}
    assert (a.games["reconstructed_components"] == ";".join(RECONSTRUCTED)).all()
    assert a.provenance["reconstructed_components"] == list(RECONSTRUCTED)
    assert a.per_turn is not None and set(a.per_turn["game"]) == {0, 1}


def test_invariants_hold_after_every_ground_sequence(short_data):
    sc = load_scenario("c3", short_data)
    g = en.Game(sc, 3, 0, event_log=True)
    seen = []
    orig = g.ground_sequence

    def wrapped(side, codes):
        orig(side, codes)
        seen.append(g.check_invariants())

    g.ground_sequence = wrapped
    r = g.play()
    assert seen and all(v == [] for v in seen), [v for v in seen if v][:3]
    assert r["activations"] > 0 and r["end_turn"] >= 1
    phases = [e["phase"] for e in g.log]
    assert phases[0] == "weather" and "first_operations_sequence" in phases and "reorganization" in phases
    # rule 7.12: GT 1 weather is Good
    assert g.log[0]["weather"] == "good"


def test_option_and_policy_errors():
    with pytest.raises(OptionError, match="axis-policy"):
        en.play_games("im-c3", 1, np.array([0]), axis_policy="nope")
    with pytest.raises(OptionError, match="option"):
        en.play_games("im-c3", 1, np.array([0]), options=("bogus",))
    with pytest.raises(OptionError, match="policy parameter"):
        en.play_games("im-c3", 1, np.array([0]), policy_params={"x": 1})
    with pytest.raises(OptionError, match="policy parameter"):
        en.play_games("im-c3", 1, np.array([0]), policy_params={"axis": {"counter_range": 1}})


def test_reconstructed_crt_columns():
    assert odds_column(1, 3) == -1 and odds_column(1, 2) == 0 and odds_column(3, 2) == 2 and odds_column(50, 1) == 6
