"""Checkpoints: crash and kill then resume equals an uninterrupted run; other inputs refused."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.batch import fake_engine as fake
from malta_sim import run_games
from malta_sim.errors import OptionError

S = "batch-fake"
REPO = Path(__file__).resolve().parents[2]

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
        "import tests.batch.fake_engine\n"
        "from malta_sim import run_games\n"
        f"run_games({S!r}, 60, 8, options=['slow'], chunk_size=4, checkpoint={str(ck)!r})\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
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
