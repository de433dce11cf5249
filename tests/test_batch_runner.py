"""run_games: reproducibility across jobs/chunks, validation, provenance, checkpoints."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import test_batch_fake_engine as fake
from malta_sim import run_games
from malta_sim.batch import read_frame, write_frame
from malta_sim.errors import MaltaSimError, OptionError

S = "batch-fake"
REPO = Path(__file__).resolve().parents[1]


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


def test_crash_then_resume_equals_uninterrupted(tmp_path):
    ref = run_games(S, 30, 4, per_turn=True)
    ck = tmp_path / "ck"
    fake.CRASH_AT.add(17)
    with pytest.raises(fake.SimulatedCrash):
        run_games(S, 30, 4, chunk_size=5, checkpoint=ck, per_turn=True)
    finished = sorted(p.name for p in ck.glob("games-*.parquet"))
    assert len(finished) == 3  # games 0-14 survived the crash
    # Resume with another chunk size and two workers: same result.
    res = run_games(S, 30, 4, chunk_size=4, n_jobs=2, checkpoint=ck, per_turn=True)
    pd.testing.assert_frame_equal(res[0], ref[0])
    pd.testing.assert_frame_equal(res[1], ref[1])
    # A second resume plays nothing and still returns the same frame.
    pd.testing.assert_frame_equal(run_games(S, 30, 4, checkpoint=ck), ref[0])


def test_checkpoint_serves_more_games_and_fills_per_turn(tmp_path):
    ck = tmp_path / "ck"
    run_games(S, 10, 4, checkpoint=ck, chunk_size=3)
    g, t = run_games(S, 25, 4, checkpoint=ck, per_turn=True)
    ref_g, ref_t = run_games(S, 25, 4, per_turn=True)
    pd.testing.assert_frame_equal(g, ref_g)
    pd.testing.assert_frame_equal(t, ref_t)
    pd.testing.assert_frame_equal(run_games(S, 8, 4, checkpoint=ck), ref_g.iloc[:8])


def test_checkpoint_made_with_other_inputs_is_refused(tmp_path):
    ck = tmp_path / "ck"
    run_games(S, 5, 4, checkpoint=ck)
    with pytest.raises(OptionError, match=r"other inputs \(seed 5 here vs 4 in checkpoint\)"):
        run_games(S, 5, 5, checkpoint=ck)
    with pytest.raises(OptionError, match="options"):
        run_games(S, 5, 4, options=["rainy"], checkpoint=ck)
    with pytest.raises(OptionError, match="axis_policy"):
        run_games(S, 5, 4, axis_policy="cautious", checkpoint=ck)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(OptionError, match="not a malta_sim checkpoint"):
        run_games(S, 5, 4, checkpoint=other)


def test_killed_process_resumes_to_the_uninterrupted_result(tmp_path):
    """SIGKILL a run mid-way (a real kill: no cleanup runs), then resume."""
    ck = tmp_path / "ck"
    script = (
        "import test_batch_fake_engine\n"
        "from malta_sim import run_games\n"
        f"run_games({S!r}, 60, 8, options=['slow'], chunk_size=4, checkpoint={str(ck)!r})\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests")]))
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=tmp_path)
    try:
        deadline = time.time() + 60
        while len(list(ck.glob("games-*.parquet"))) < 3:
            assert proc.poll() is None, "run ended before it could be killed"
            assert time.time() < deadline
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    n_done = len(list(ck.glob("games-*.parquet")))
    assert 3 <= n_done < 15
    resumed = run_games(S, 60, 8, options=["slow"], chunk_size=6, checkpoint=ck)
    fresh = run_games(S, 60, 8, options=["slow"], n_jobs=2)
    pd.testing.assert_frame_equal(resumed, fresh)
    assert not list(ck.glob(".*.tmp"))


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
    assert h1 != h2 and h1.startswith("sha256:")


def test_an_engine_failure_names_the_failing_game(monkeypatch):
    monkeypatch.setattr(fake, "FAIL_AT", {6})
    with pytest.raises(fake.SimulatedCrash) as e:
        run_games(S, 10, 3, chunk_size=5)
    assert "while playing scenario batch-fake, seed 3, game 6" in e.value.__notes__


def test_skip_failed_leaves_out_failing_games_and_resumes(tmp_path, monkeypatch):
    ref = run_games(S, 12, 3)
    ck = tmp_path / "ck"
    monkeypatch.setattr(fake, "FAIL_AT", {3, 7})
    df = run_games(S, 12, 3, chunk_size=5, n_jobs=1, on_error="skip", checkpoint=ck)
    assert list(df["game"]) == [g for g in range(12) if g not in (3, 7)]
    pd.testing.assert_frame_equal(df, ref[~ref["game"].isin([3, 7])].reset_index(drop=True))
    assert [f["game"] for f in df.attrs["failed_games"]] == [3, 7]
    assert df.attrs["failed_games"][0]["error"] == "SimulatedCrash: simulated engine bug"
    # Resuming with skip reuses the chunks as they are ...
    again = run_games(S, 12, 3, on_error="skip", checkpoint=ck)
    pd.testing.assert_frame_equal(again, df)
    assert again.attrs["failed_games"] == df.attrs["failed_games"]
    # ... while a run that must not skip plays the chunks with failures again.
    monkeypatch.setattr(fake, "FAIL_AT", set())
    pd.testing.assert_frame_equal(run_games(S, 12, 3, checkpoint=ck), ref)
    with pytest.raises(OptionError, match="on_error"):
        run_games(S, 2, 1, on_error="ignore")
