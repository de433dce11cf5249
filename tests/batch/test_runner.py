"""run_games: reproducibility across jobs/chunks, validation, provenance, failures."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from tests.batch import fake_engine as fake
from malta_sim import run_games
from malta_sim.batch import read_frame, write_frame
from malta_sim.errors import MaltaSimError, OptionError

S = "batch-fake"


def test_jobs_and_chunk_sizes_give_identical_frames():
    ref = run_games(S, 40, 11)
    assert list(ref["game"]) == list(range(40))
    for kw in ({"n_jobs": 2}, {"chunk_size": 1}, {"chunk_size": 7, "n_jobs": 2}, {"chunk_size": 40}):
        pd.testing.assert_frame_equal(run_games(S, 40, 11, **kw), ref)


def test_rows_depend_only_on_seed_and_game():
    a = run_games(S, 30, 5)
    b = run_games(S, 10, 5, chunk_size=3)
    pd.testing.assert_frame_equal(a.iloc[:10], b)
    assert not a["end_turn"].equals(run_games(S, 30, 6)["end_turn"])


def test_per_turn_frame_is_long_and_chunk_independent():
    g1, t1 = run_games(S, 12, 2, per_turn=True)
    g2, t2 = run_games(S, 12, 2, per_turn=True, chunk_size=5, n_jobs=2)
    pd.testing.assert_frame_equal(g1, g2)
    pd.testing.assert_frame_equal(t1, t2)
    assert (t1.groupby("game")["turn"].max().to_numpy() == g1["end_turn"].to_numpy()).all()
    assert not t1.duplicated(["game", "turn"]).any()


def test_id_columns_and_provenance():
    df = run_games(S, 5, 9, axis_policy="cautious", options=["rainy", "rainy"], policy_params={"axis": {"x": 1}})
    assert list(df.columns[:7]) == ["game", "seed", "scenario", "axis_policy", "allied_policy", "options", "policy_params"]
    r = df.iloc[0]
    assert (r["seed"], r["scenario"], r["axis_policy"], r["allied_policy"], r["options"]) == (9, S, "cautious", "defend", "rainy")
    assert json.loads(r["policy_params"]) == {"axis": {"x": 1}}
    a = df.attrs
    for k in ("package_version", "data_hash", "scenario", "seed", "options", "axis_policy", "allied_policy",
              "policy_params", "reconstructed_components"):
        assert k in a
    assert a["options"] == ["rainy"] and a["reconstructed_components"] == ["fake engine"]
    json.dumps(a)


def test_parquet_and_csv_keep_provenance(tmp_path):
    df = run_games(S, 6, 1)
    p = write_frame(df, tmp_path / "r.parquet")
    back = read_frame(p)
    pd.testing.assert_frame_equal(back, df)
    assert back.attrs["seed"] == 1 and pd.read_parquet(p).attrs["scenario"] == S
    c = write_frame(df, tmp_path / "r.csv")
    back = read_frame(c)
    assert back.attrs["data_hash"] == df.attrs["data_hash"] and len(back) == 6


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"scenario": "nope"}, ["unknown scenario 'nope'", S]),
        ({"n_games": 0}, ["games", ">= 1"]),
        ({"seed": -1}, ["seed"]),
        ({"seed": 1.5}, ["seed"]),
        ({"seed": True}, ["seed"]),
        ({"seed": 2**63}, ["seed", "<= 9223372036854775807"]),
        ({"axis_policy": "zerg"}, ["axis policy 'zerg'", "attack, cautious"]),
        ({"allied_policy": "x"}, ["allied policy", "defend, counter"]),
        ({"options": ["fog"]}, ["option 'fog'", "rainy, slow, unused_rule"]),
        ({"n_jobs": 0}, ["n_jobs"]),
        ({"backend": "spark"}, ["backend", "local, dask"]),
        ({"scheduler": "tcp://x:1"}, ["--scheduler needs --backend dask"]),
        ({"chunk_size": 0}, ["chunk_size"]),
        ({"data_dir": "/no/such/dir"}, ["--data-dir"]),
        ({"policy_params": [1]}, ["policy_params"]),
    ],
)
def test_bad_arguments_raise_option_error(kw, words):
    args = {"scenario": S, "n_games": 3, "seed": 1, **kw}
    with pytest.raises(OptionError) as e:
        run_games(**args)
    for w in words:
        assert w in str(e.value)


def test_data_error_in_a_worker_reaches_the_user_as_one_line(tmp_path):
    (tmp_path / "broken.csv").write_text("hex\n99ZZ\n")
    for jobs in (1, 2):
        with pytest.raises(MaltaSimError, match=r"broken.csv:2: field 'hex': '99ZZ' is not a hex id \(scenario"):
            run_games(S, 4, 1, data_dir=tmp_path, chunk_size=2, n_jobs=jobs)


def test_data_hash_follows_the_data_dir(tmp_path):
    (tmp_path / "a.csv").write_text("x\n1\n")
    h1 = run_games(S, 2, 1, data_dir=tmp_path).attrs["data_hash"]
    (tmp_path / "a.csv").write_text("x\n2\n")
    h2 = run_games(S, 2, 1, data_dir=tmp_path).attrs["data_hash"]
    assert h1 != h2 and re.fullmatch(r"[0-9a-f]{16}", h1)


def test_an_engine_failure_names_the_failing_game(monkeypatch):
    monkeypatch.setattr(fake, "FAIL_AT", {6})
    with pytest.raises(fake.SimulatedCrash) as e:
        run_games(S, 10, 3, chunk_size=5)
    assert "while playing scenario batch-fake, seed 3, game 6" in e.value.__notes__


@pytest.mark.parametrize("on_error", ["raise", "skip"])
def test_an_interrupt_inside_compiled_code_is_an_interrupt(monkeypatch, tmp_path, on_error):
    """Ctrl-C that numba turns into a SystemError stops the run as an
    interrupt (finished games kept), never as a failed game."""
    monkeypatch.setattr(fake, "INTERRUPT_AT", {6})
    with pytest.raises(KeyboardInterrupt) as e:
        run_games(S, 10, 3, chunk_size=5, checkpoint=tmp_path / "ck", on_error=on_error)
    assert e.value.malta_sim_saved[:2] == (5, 10)


def test_double_is_a_pure_function_of_seed_and_game():
    kw = dict(axis_policy="attack", allied_policy="defend", options=(), data_dir=None)
    a = fake.play_games("batch-fake", 5, np.arange(0, 10), **kw).games
    b = fake.play_games("batch-fake", 5, np.array([7, 8, 9]), **kw).games
    pd.testing.assert_frame_equal(a.iloc[7:].reset_index(drop=True), b)
    c = fake.play_games("batch-fake", 6, np.arange(0, 10), **kw).games
    assert not a.equals(c)


def test_double_crash_hook_fires_once():
    fake.CRASH_AT.add(3)
    kw = dict(axis_policy="attack", allied_policy="defend", options=(), data_dir=None)
    with pytest.raises(fake.SimulatedCrash):
        fake.play_games("batch-fake", 1, np.arange(5), **kw)
    assert len(fake.play_games("batch-fake", 1, np.arange(5), **kw).games) == 5
