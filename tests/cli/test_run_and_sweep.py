"""`malta-sim run` and `malta-sim sweep`: files, summary, one-line errors with exit 2."""

from __future__ import annotations

import os

import pandas as pd
import pytest
from click.testing import CliRunner

from tests.batch import fake_engine as fake  # registers the test scenario
from malta_sim import run_games
from malta_sim.batch import read_frame
from malta_sim.cli import main

S = "batch-fake"


def _run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize("ext", ["parquet", "csv"])
def test_run_writes_file_and_prints_summary(tmp_path, ext):
    out = tmp_path / f"r.{ext}"
    turns = tmp_path / f"t.{ext}"
    r = _run("run", "--scenario", S, "--games", "20", "--seed", "3", "--jobs", "2", "--option", "rainy",
             "--per-turn", str(turns), "--out", str(out))
    assert r.exit_code == 0, r.output
    df = read_frame(out)
    ref = run_games(S, 20, 3, options=["rainy"])
    if ext == "parquet":
        pd.testing.assert_frame_equal(df, ref)
    else:
        assert list(df.columns) == list(ref.columns) and (df["end_turn"] == ref["end_turn"]).all()
    assert df.attrs["seed"] == 3 and df.attrs["options"] == ["rainy"]
    t = read_frame(turns)
    assert len(t) == ref["end_turn"].sum()
    text = r.stdout
    assert text.startswith("Batch runner test double [batch-fake]\n  20 games, seed 3; axis policy attack")
    assert "95% interval (Wilson)" in text and "median end: turn" in text and f"wrote {out}" in text
    n_axis = int((ref["winner"] == "axis").sum())
    assert any(line.split()[:2] == ["axis", str(n_axis)] for line in text.splitlines())


def test_run_passes_policy_params(tmp_path):
    out = tmp_path / "p.parquet"
    r = _run("run", "--scenario", S, "--games", "6", "--seed", "2", "--policy-params", '{"axis": {"aggression": 3}}',
             "-q", "--out", str(out))
    assert r.exit_code == 0, r.output
    pd.testing.assert_frame_equal(read_frame(out), run_games(S, 6, 2, policy_params={"axis": {"aggression": 3}}))


def test_run_with_checkpoint_twice_gives_same_file(tmp_path):
    args = ["run", "--scenario", S, "--games", "12", "--seed", "1", "--chunk-size", "5",
            "--checkpoint", str(tmp_path / "ck"), "-q"]
    assert _run(*args, "--out", str(tmp_path / "a.parquet")).exit_code == 0
    assert _run(*args, "--out", str(tmp_path / "b.parquet")).exit_code == 0
    pd.testing.assert_frame_equal(read_frame(tmp_path / "a.parquet"), read_frame(tmp_path / "b.parquet"))
    r = _run("run", "--scenario", S, "--games", "12", "--seed", "2", "--checkpoint", str(tmp_path / "ck"),
             "--out", str(tmp_path / "c.parquet"))
    assert r.exit_code == 2 and "other inputs" in r.stderr


def test_a_run_failing_before_any_game_leaves_no_checkpoint(tmp_path, monkeypatch):
    """A run whose first game fails leaves no ``FILE.checkpoint`` folder
    holding only its manifest, so the corrected command (other inputs) runs;
    and such a folder left by an older run is taken over, not refused."""
    monkeypatch.setattr(fake, "FAIL_AT", {0})
    out = tmp_path / "x.parquet"
    with pytest.raises(fake.SimulatedCrash):
        _run("run", "--scenario", S, "--games", "3", "--seed", "1", "--chunk-size", "3", "-q", "--out", str(out))
    assert not (tmp_path / "x.parquet.checkpoint").exists()
    monkeypatch.setattr(fake, "FAIL_AT", set())
    ck = tmp_path / "x.parquet.checkpoint"
    ck.mkdir()
    (ck / "manifest.json").write_text('{"format": 1, "inputs": {"seed": 99}}')
    r = _run("run", "--scenario", S, "--games", "3", "--seed", "1", "-q", "--out", str(out))
    assert r.exit_code == 0, r.output
    assert len(read_frame(out)) == 3 and not ck.exists()


def _bad_cases(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    os.chmod(ro, 0o555)
    ok = ["--games", "3", "--seed", "1", "--out", str(tmp_path / "x.parquet")]
    return [
        (["run", "--scenario", "nope", *ok], "unknown scenario 'nope'"),
        (["run", "--scenario", S, "--games", "0", "--seed", "1", "--out", "x.csv"], "--games"),
        (["run", "--scenario", S, "--games", "1000000000000", "--seed", "1", "--out", "x.csv"], "<= 100000000"),
        (["run", "--scenario", S, "--games", "3", "--seed", "-4", "--out", "x.csv"], "seed"),
        (["run", "--scenario", S, "--games", "3", "--seed", "x", "--out", "x.csv"], "'--seed'"),
        (["run", "--scenario", S, "--games", "3", "--seed", "1"], "Missing option '--out'"),
        (["run", "--scenario", S, "--axis-policy", "zerg", *ok], "attack, cautious"),
        (["run", "--scenario", S, "--option", "fog", *ok], "option 'fog'"),
        (["run", "--scenario", S, "--backend", "spark", *ok], "--backend"),
        (["run", "--scenario", S, "--jobs", "0", *ok], "--jobs"),
        (["run", "--scenario", S, "--games", "3", "--seed", "1", "--out", str(tmp_path / "x.xlsx")], "unknown file type"),
        (["run", "--scenario", S, "--games", "3", "--seed", "1", "--out", str(tmp_path / "no" / "x.csv")], "does not exist"),
        (["run", "--scenario", S, "--games", "3", "--seed", "1", "--out", str(ro / "x.csv")], "not writable"),
        (["run", "--scenario", S, "--games", "3", "--seed", "1", "--per-turn", "t.txt", "--out", "x.csv"], "--per-turn"),
        (["run", "--scenario", S, "--bogus", *ok], "No such option"),
        (["run", "--scenario", S, "--policy-params", "{axis", *ok], "--policy-params is not valid JSON"),
        (["run", "--scenario", S, "--policy-params", "[1]", *ok], "JSON object"),
        (["sweep", str(tmp_path / "none.toml"), "--out", "x.csv"], "does not exist"),
        (["sweep", str(tmp_path / "none.toml"), "--games", "5"], "--out"),
    ]


def test_bad_arguments_exit_2_with_one_line(tmp_path):
    for args, words in _bad_cases(tmp_path):
        if words == "not writable" and os.geteuid() == 0:
            continue  # root can write anywhere
        r = _run(*args)
        assert r.exit_code == 2, (args, r.output)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], (args, r.stderr)
        assert "Traceback" not in r.output


def test_sweep_command(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(f'scenario = "{S}"\nseed = 5\n[grid]\noptions = [[], ["unused_rule"], ["rainy"]]\n')
    out = tmp_path / "s.parquet"
    r = _run("sweep", str(f), "--games", "9", "--jobs", "2", "--per-turn", str(tmp_path / "t.csv"), "--out", str(out))
    assert r.exit_code == 0, r.output
    df = read_frame(out)
    t = read_frame(tmp_path / "t.csv")
    assert list(t.columns[:3]) == ["arm", "game", "turn"] and len(t) == df["end_turn"].sum()
    assert df["arm"].tolist() == ["options=none"] * 9 + ["options=unused_rule"] * 9 + ["options=rainy"] * 9
    assert any(line.split()[:2] == ["options=rainy", "9"] for line in r.stdout.splitlines()) and "wrote" in r.stdout
    heads = [line for line in r.stderr.replace("\r", "\n").splitlines() if line.startswith("arm ")]
    assert heads == ["arm 1 of 3: options=none", "arm 2 of 3: options=unused_rule", "arm 3 of 3: options=rainy"]
    a, b = (df[df["arm"] == n].drop(columns=["arm", "options"]).reset_index(drop=True)
            for n in ("options=none", "options=unused_rule"))
    pd.testing.assert_frame_equal(a, b)


def test_skip_failed_is_reported_in_the_summary(tmp_path, monkeypatch):
    monkeypatch.setattr(fake, "FAIL_AT", {2})
    out = tmp_path / "f.parquet"
    r = CliRunner().invoke(main, ["run", "--scenario", S, "--games", "5", "--seed", "1", "--out", str(out)])
    assert r.exit_code == 1 and isinstance(r.exception, fake.SimulatedCrash)
    r = _run("run", "--scenario", S, "--games", "5", "--seed", "1", "--skip-failed", "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "1 game(s) failed in the engine and are left out: 2 (first error: SimulatedCrash" in r.stdout
    assert "4 of 5 games, seed 1" in r.stdout
    assert len(read_frame(out)) == 4


@pytest.mark.parametrize("scenario,missing", [("hercules", "units.csv"), ("im-c3", "map_grid.csv")])
def test_data_dir_without_game_data_is_refused_before_any_game(tmp_path, monkeypatch, scenario, missing):
    """run, sweep and replay load --data-dir before the first game: one line naming the missing file."""
    import malta_sim.batch as batch

    def no_games(*a, **k):
        raise AssertionError("a game was started")

    monkeypatch.setattr(batch, "run_games", no_games)
    monkeypatch.setattr(batch, "run_sweep", no_games)
    empty = tmp_path / "empty"
    empty.mkdir()
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'scenario = "{scenario}"\nseed = 5\ngames = 2\n[grid]\noptions = [[]]\n')
    for args in (["run", "--scenario", scenario, "--games", "2", "--seed", "1", "--out", str(tmp_path / "x.parquet")],
                 ["sweep", str(sweep), "--out", str(tmp_path / "s.parquet")],
                 ["replay", "--scenario", scenario, "--seed", "1", "--game", "0", "--out", str(tmp_path / "g")]):
        r = CliRunner().invoke(main, [*args, "--data-dir", str(empty)])
        assert r.exit_code == 2, (args, r.output)
        lines = r.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and missing in lines[0], (args, r.output)
    assert not (tmp_path / "g").exists()


def test_valid_data_dir_still_runs(tmp_path):
    from malta_sim.loaders.common import resolve_data_dir

    out = tmp_path / "x.csv"
    r = _run("run", "--scenario", "intro", "--games", "1", "--seed", "1", "--data-dir", str(resolve_data_dir(None)),
             "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    assert len(read_frame(out)) == 1


def test_option_lists_split_on_commas_with_spaces_in_run_and_replay(tmp_path):
    """``--option "a, b"`` means the two options a and b in run and in replay alike."""
    import json

    from malta_sim.cli.cmd_run import split_options

    assert split_options(("solitaire, delayed_landings", " weather-roll ", ",")) == [
        "solitaire", "delayed_landings", "weather-roll"]
    out = tmp_path / "x.csv"
    r = _run("run", "--scenario", "hercules", "--games", "1", "--seed", "3", "--option", "solitaire, delayed_landings",
             "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    row = read_frame(out).iloc[0]
    assert row["options"] == "delayed_landings,solitaire"
    r = _run("replay", "--scenario", "hercules", "--seed", "3", "--game", "0", "--option",
             "solitaire,delayed_landings", "--no-maps", "--out", str(tmp_path / "g"))
    assert r.exit_code == 0, r.output
    res = json.loads((tmp_path / "g" / "result.json").read_text())
    assert res["options"] == row["options"]
    assert (res["winner"], res["end_turn"]) == (row["winner"], row["end_turn"])
