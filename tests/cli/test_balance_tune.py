"""`malta-sim balance` and `malta-sim tune` through the command line: small real
runs, the report of a balance run, resuming, tuned presets, one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from tests.batch import fake_engine as fake  # noqa: F401  registers the test scenario
from malta_sim.batch import read_frame, run_balance
from malta_sim.cli import main

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _cli(*args, cwd=ROOT, timeout=600):
    return subprocess.run([sys.executable, "-m", "malta_sim", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=ENV, timeout=timeout)


# --------------------------------------------------------------------------- balance


def test_balance_matrix_on_common_random_numbers_resumes_and_ignores_jobs(tmp_path):
    """Test double: every pairing of the scenario's bots, the same game indices in every
    cell; a second run from the checkpoint and a run with other --jobs give the same rows."""
    out = tmp_path / "b.parquet"
    r = _run("balance", "batch-fake", "--games", "40", "--seed", "3", "--jobs", "2", "--bootstrap", "200",
             "--checkpoint", tmp_path / "ck", "--out", out, "--quiet")
    assert r.exit_code == 0, r.output
    df = read_frame(out)
    assert len(df) == 4 * 40
    assert set(zip(df["axis_policy"], df["allied_policy"])) == {
        (a, b) for a in ("attack", "cautious") for b in ("defend", "counter")}
    for _, cell in df.groupby("arm"):
        assert list(cell["game"]) == list(range(40))
    ref = run_balance("batch-fake", 40, 3, n_jobs=1)
    pd.testing.assert_frame_equal(df.reset_index(drop=True), ref.reset_index(drop=True), check_like=False)
    assert df.attrs["balance"] == {"axis": ["attack", "cautious"], "allied": ["defend", "counter"]}
    # the same command again finds every game in the checkpoint, and refuses to replace --out
    r2 = _run("balance", "batch-fake", "--games", "40", "--seed", "3", "--checkpoint", tmp_path / "ck",
              "--out", out)
    assert r2.exit_code == 2 and "already exists; give --overwrite" in r2.output
    r3 = _run("balance", "batch-fake", "--games", "40", "--seed", "3", "--checkpoint", tmp_path / "ck",
              "--out", out, "--overwrite", "--bootstrap", "100")
    assert r3.exit_code == 0
    assert "Equilibrium Axis win rate" in r3.output and "Axis mixture" in r3.output
    pd.testing.assert_frame_equal(read_frame(out), df)


def test_balance_progress_names_each_cell_and_how_many(tmp_path):
    """Above each cell's progress bar: which cell of how many, and its pairing."""
    r = _run("balance", "batch-fake", "--games", "3", "--seed", "1", "--bootstrap", "20", "--out",
             tmp_path / "b.parquet")
    assert r.exit_code == 0, r.output
    heads = [line for line in r.stderr.replace("\r", "\n").splitlines() if line.startswith("cell ")]
    assert heads == ["cell 1 of 4: attack vs defend", "cell 2 of 4: attack vs counter",
                     "cell 3 of 4: cautious vs defend", "cell 4 of 4: cautious vs counter"]


def test_balance_and_report_of_a_small_real_run(tmp_path):
    """intro, two presets a side, 3 games a cell: the matrix and equilibrium are printed,
    the file is one row per game with its pairing, and the report draws the heat map."""
    out = tmp_path / "intro_balance.parquet"
    r = _cli("balance", "intro", "--axis", "balanced,random", "--allied", "static", "--allied", "random",
             "--games", "3", "--seed", "5", "--bootstrap", "100", "--out", out, "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    df = read_frame(out)
    assert len(df) == 12 and {"axis_policy", "allied_policy", "winner", "game"} <= set(df.columns)
    assert set(df["winner"]) <= {"axis", "allied"}
    r = _cli("balance", "intro", "--axis", "balanced,random", "--allied", "static,random", "--games", "3",
             "--seed", "5", "--bootstrap", "100", "--out", out, "--overwrite", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Preset matrix: Axis win rate (3 games a cell, seed 5" in r.stdout
    assert "Equilibrium Axis win rate:" in r.stdout
    rep = tmp_path / "rep"
    r = _cli("report", out, "--out", rep, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "preset matrix: equilibrium Axis win rate" in r.stdout
    assert (rep / "balance_matrix.png").stat().st_size > 1000
    md = (rep / "report.md").read_text()
    assert "## Balance under best play (preset matrix)" in md and "![preset matrix](balance_matrix.png)" in md
    assert "Axis mixture:" in md


@pytest.mark.parametrize("args,words", [
    (["--games", "0"], "--games must be an integer >= 1"),
    (["--seed", "-1"], "--seed must be an integer >= 0"),
    (["--axis", "nosuch"], "--axis: unknown axis preset 'nosuch'"),
    (["--allied", "defend,defend"], "--allied: preset 'defend' named twice"),
    (["--bootstrap", "0"], "--bootstrap must be an integer >= 1"),
    (["--alpha", "2"], "--alpha must lie in (0, 1)"),
    (["--option", "nope"], "unknown option 'nope'"),
    (["--out", "x.txt"], "--out 'x.txt': unknown file type"),
])
def test_balance_bad_options_are_one_line_errors(tmp_path, args, words):
    # a repeated option: the last one counts
    r = _run("balance", "batch-fake", "--games", "2", "--seed", "1", "--out", tmp_path / "b.parquet", *args)
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and words in lines[0], r.output


# --------------------------------------------------------------------------- tune


def test_tune_small_real_run_saves_a_loadable_preset_and_resumes(tmp_path):
    """intro, two parameters, 3 trials of 2 games: progress, the best vector and the
    paired figures are printed; the saved preset loads; the same command run again
    from its checkpoint reads the finished trials instead of playing them."""
    pf = tmp_path / "tuned.toml"
    args = ["tune", "intro", "--side", "axis", "--start", "balanced", "--opponent", "static", "--params", "min_odds,bombard",
            "--trials", "3", "--games", "2", "--seed", "4", "--validate-games", "2", "--checkpoint",
            tmp_path / "ck", "--save-preset", "quick", "--preset-file", pf, "--out", tmp_path / "t.csv"]
    r = _cli(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "round 1: axis from balanced against static, 3 trials of 2 games (seed 4)" in r.stdout
    assert "best vector: min_odds=" in r.stdout and "paired difference" in r.stdout
    assert "validation (axis, 2 fresh games, seed 5, against static)" in r.stdout
    assert "saved preset(s) axis:quick" in r.stdout
    assert "round 1" in r.stderr                                  # the progress bar
    t = pd.read_csv(tmp_path / "t.csv")
    assert len(t) == 3 and {"round", "side", "trial", "rate", "min_odds", "bombard"} <= set(t.columns)
    assert t.loc[0, "min_odds"] == 2 and t.loc[0, "bombard"] == 1  # trial 0 is the start preset

    from malta_sim.bots import params as P
    from malta_sim.bots.tuned import load

    got = load(pf, reserved=("balanced",))
    q = got[(0, "quick")]
    assert set(q.params) == {p.name for p in P.AXIS_PARAMS}
    assert "malta-sim tune intro --side axis --start balanced --opponent static" in q.info["command"]
    assert q.info["seed"] == 4 and q.info["result"]["validation_games"] == 2
    # resume: every trial is in the journal, so nothing is played again and the table is the same
    r2 = _cli(*args[:-2], "--out", tmp_path / "t2.csv", "--overwrite", cwd=tmp_path)
    assert r2.returncode == 0, r2.stderr
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "t2.csv"), t)
    # other inputs with the same checkpoint are refused, naming the difference
    r3 = _cli(*[a if a != "4" else "9" for a in args[:-2]], "--out", tmp_path / "t3.csv", cwd=tmp_path)
    assert r3.returncode == 2 and "other inputs" in r3.stderr and "seed" in r3.stderr


@pytest.mark.parametrize("args,words", [
    (["--side", "nobody"], "--side must be axis or allied"),
    (["--params", "min_odds,nosuch"], "--params: unknown axis bot parameter 'nosuch'"),
    (["--trials", "0"], "--trials must be an integer >= 1"),
    (["--games", "0"], "--games must be an integer >= 1"),
    (["--start", "static"], "--start: unknown axis preset 'static'"),
    (["--opponent", "balanced"], "--opponent: unknown allied preset 'balanced'"),
    (["--save-preset", "balanced"], "--save-preset 'balanced': give a new name"),
    (["--preset-file", "p.json"], "--preset-file 'p.json': must be a .toml file"),
    (["--rounds", "0"], "--rounds must be an integer >= 1"),
])
def test_tune_bad_options_are_one_line_errors(tmp_path, args, words):
    r = _run("tune", "intro", "--seed", "1", "--out", tmp_path / "t.csv", *args)
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and words in lines[0], r.output


def test_tuned_preset_file_is_checked(tmp_path):
    from malta_sim.bots.tuned import load
    from malta_sim.errors import DataError

    p = tmp_path / "t.toml"
    p.write_text('[axis.x]\nparams = { min_odds = 99 }\n')
    with pytest.raises(DataError, match="min_odds must lie in"):
        load(p)
    p.write_text('[axis.balanced]\nparams = { min_odds = 1 }\n')
    with pytest.raises(DataError, match="taken by a hand-made preset"):
        load(p, reserved=("balanced",))
    p.write_text('[neutral.x]\nparams = {}\n')
    with pytest.raises(DataError, match="unknown side"):
        load(p)
    p.write_text('[axis.x]\nparams = { min_odds = 1 }\n[allied.x]\nparams = { dismantle = 1 }\n')
    got = load(p)
    assert got[(0, "x")].params["min_odds"] == 1 and got[(1, "x")].params["dismantle"] == 1


def test_shipped_tuned_presets_are_named_presets():
    """Every preset of the packaged tuned.toml is listed for its side (before random),
    builds a bot whose vector is the file's, and records the command that made it."""
    from malta_sim.bots import make_policy, params as P
    from malta_sim.bots.presets import AXIS_NAMES, ALLIED_NAMES, TUNED, preset_names

    for (side, name), t in TUNED.items():
        names = AXIS_NAMES if side == 0 else ALLIED_NAMES
        assert name in names and names[-1] == "random"
        assert f"{('axis', 'allied')[side]}:{name}" in preset_names(side)
        bot = make_policy(f"{('axis', 'allied')[side]}:{name}", side)
        np.testing.assert_array_equal(bot.vec, P.make_vector(side, t.params))
        assert t.info["command"].startswith("malta-sim tune ") and "seed" in t.info


def test_tune_interrupted_or_extended_ends_as_an_uninterrupted_run(tmp_path, monkeypatch):
    """Ctrl-C in the middle of a trial leaves it unfinished in the journal; the same call
    then asks that candidate again and ends with the trials of a run never interrupted.
    A run asked for more trials goes on from a finished checkpoint to the same end."""
    import malta_sim.tuning as T

    kw = dict(side="axis", opponent="static", params=["min_odds", "min_gain", "bombard"], trials=4, games=2,
              seed=11, validate_games=0, startup_trials=2)
    straight = T.tune("intro", **kw).trials_frame()
    real = T._play
    calls = {"n": 0}

    def flaky(*a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(T, "_play", flaky)
    with pytest.raises(KeyboardInterrupt) as ei:
        T.tune("intro", checkpoint=tmp_path / "ck", **kw)
    from malta_sim.cli.common import interrupted_message

    assert interrupted_message(ei.value) == (f"interrupted: 2 of 4 trials saved in {tmp_path / 'ck'}; "
                                             "run the same command to resume")
    monkeypatch.setattr(T, "_play", real)
    resumed = T.tune("intro", checkpoint=tmp_path / "ck", **kw).trials_frame()
    pd.testing.assert_frame_equal(resumed, straight)
    assert straight["min_odds"].nunique() > 1                   # the sampler did move
    short = T.tune("intro", checkpoint=tmp_path / "ck2", **{**kw, "trials": 3}).trials_frame()
    pd.testing.assert_frame_equal(short, straight.iloc[:3])
    longer = T.tune("intro", checkpoint=tmp_path / "ck2", **kw).trials_frame()
    pd.testing.assert_frame_equal(longer, straight)
