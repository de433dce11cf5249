"""Sweeps: TOML arms, common random numbers, one frame with an `arm` column."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import tests.batch.fake_engine  # noqa: F401  (registers the test scenario)
from malta_sim.batch import Arm, Sweep, _validate, load_sweep, run_sweep
from malta_sim.games.registry import scenario_names
from malta_sim.errors import DataError, OptionError

S = "batch-fake"
REPO = Path(__file__).resolve().parents[2]


def _write(tmp_path, text):
    p = tmp_path / "s.toml"
    p.write_text(text)
    return p


def test_grid_and_explicit_arms(tmp_path):
    p = _write(tmp_path, f"""
scenario = "{S}"
seed = 3
games = 7
[base]
allied_policy = "counter"
policy_params = {{ axis = {{ aggression = 1 }} }}
[grid]
axis_policy = ["attack", "cautious"]
"policy_params.axis.aggression" = [0, 4]
[[arm]]
name = "wet"
options = ["rainy"]
""")
    sw = load_sweep(p)
    assert [a.name for a in sw.arms] == [
        "axis_policy=attack, axis.aggression=0", "axis_policy=attack, axis.aggression=4",
        "axis_policy=cautious, axis.aggression=0", "axis_policy=cautious, axis.aggression=4", "wet"]
    assert sw.arms[1].policy_params == {"axis": {"aggression": 4}} and sw.arms[1].allied_policy == "counter"
    assert sw.arms[4].options == ("rainy",) and sw.arms[4].policy_params == {"axis": {"aggression": 1}}
    df = run_sweep(sw)
    assert len(df) == 35 and list(df.columns[:3]) == ["arm", "policy_params.axis.aggression", "game"]
    assert list(df["game"]) == list(range(7)) * 5
    assert set(df.attrs["arms"]) == {a.name for a in sw.arms}


def test_common_random_numbers_for_an_unconsulted_parameter():
    """Two arms differing only in a parameter the game never reads give identical rows."""
    sw = Sweep(S, 21, (
        Arm("a", policy_params={"axis": {"never_read": 1}}),
        Arm("b", policy_params={"axis": {"never_read": 2}}),
        Arm("c", policy_params={"axis": {"aggression": 5}}),
    ))
    df = run_sweep(sw, 40, chunk_size=9, n_jobs=2)
    rows = {k: g.drop(columns=["arm", "policy_params"]).reset_index(drop=True) for k, g in df.groupby("arm")}
    pd.testing.assert_frame_equal(rows["a"], rows["b"])
    # The same streams drive a consulted parameter: winners are paired exactly, end turns shift.
    assert rows["a"]["winner"].equals(rows["c"]["winner"])
    assert not rows["a"]["end_turn"].equals(rows["c"]["end_turn"])


def test_sweep_checkpoint_resumes(tmp_path):
    sw = Sweep(S, 2, (Arm("x"), Arm("y", options=("rainy",))))
    ref = run_sweep(sw, 12)
    ck = tmp_path / "ck"
    run_sweep(Sweep(S, 2, sw.arms[:1]), 12, checkpoint=ck)
    assert len(list(ck.iterdir())) == 1
    pd.testing.assert_frame_equal(run_sweep(sw, 12, checkpoint=ck, chunk_size=5), ref)
    assert len(list(ck.iterdir())) == 2


@pytest.mark.parametrize("text, field", [
    ('scenario = "x"\nbogus = 1', "bogus"),
    ('seed = 1', "scenario"),
    ('scenario = "x"\nseed = -2', "seed"),
    ('scenario = "x"\n[grid]\naxis_policy = "attack"', "grid.axis_policy"),
    ('scenario = "x"\n[base]\nfoo = 1', "base.foo"),
    ('scenario = "x"\n[[arm]]\naxis_policy = "a"', "arm[0].name"),
    ('scenario = "x"\n[[arm]]\nname = "a"\n[[arm]]\nname = "a"', "arm"),
    ('scenario = "x"\nseed = ', None),
])
def test_bad_sweep_files_name_the_field(tmp_path, text, field):
    with pytest.raises(DataError) as e:
        load_sweep(_write(tmp_path, text))
    assert e.value.field == field


def test_arm_errors_are_reported_before_playing():
    sw = Sweep(S, 1, (Arm("ok"), Arm("bad", axis_policy="zerg")))
    with pytest.raises(OptionError, match="arm 'bad': unknown axis policy 'zerg'"):
        run_sweep(sw, 3)
    with pytest.raises(OptionError, match="number of games"):
        run_sweep(Sweep(S, 1, (Arm("ok"),)))


def test_example_sweep_file_parses():
    sw = load_sweep(REPO / "experiments" / "sweep_example.toml")
    assert sw.scenario == "hercules" and len(sw.arms) == 5 and sw.games == 200
    if "hercules" in scenario_names():  # once the engine registers it, every arm must be valid
        for a in sw.arms:
            _validate(sw.scenario, sw.seed, a.axis_policy, a.allied_policy, a.options, None, a.policy_params)
