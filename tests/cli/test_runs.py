"""What a new user meets on the command line: an interrupted run keeps its games
and resumes, outputs are never replaced without --overwrite, the first run says
it is compiling and the progress bar promises no time before games finish, the
summary names the data, --help lists the bots, and the glossary explains every
column.  Commands run in subprocesses, as a user runs them."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _cli(*args, cwd=ROOT, timeout=300):
    return subprocess.run([sys.executable, "-m", "malta_sim", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=ENV, timeout=timeout)


# --------------------------------------------------------------------------- interrupted runs


def test_ctrl_c_keeps_finished_games_and_the_same_command_resumes(tmp_path):
    """SIGINT during a run without --checkpoint: exit 130, one line saying how many
    games were saved where; the same command then finishes from there, and its
    rows equal those of an uninterrupted run; the default checkpoint folder is
    removed once the run is complete."""
    out = tmp_path / "h.parquet"
    cmd = [sys.executable, "-m", "malta_sim", "run", "--scenario", "hercules", "--games", "120", "--seed", "11",
           "--chunk-size", "4", "--out", str(out)]
    folder = tmp_path / "h.parquet.checkpoint"
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 120
        while len(list(folder.glob("games-*.parquet"))) < 2:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no finished chunk within 120 s"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    line = [ln for ln in err.splitlines() if ln.startswith("interrupted:")]
    assert len(line) == 1 and "Traceback" not in err, err
    saved = int(line[0].split()[1])
    assert 8 <= saved < 120 and f"{saved} of 120 games saved in {folder}" in line[0]
    assert line[0].endswith("run the same command to resume")
    assert not out.exists()
    kept = pd.concat([pd.read_parquet(f) for f in folder.glob("games-*.parquet")])
    assert len(kept) >= saved
    again = subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"resuming from {folder.name}" in again.stderr or f"resuming from {folder}" in again.stderr
    assert not folder.exists()
    clean = tmp_path / "clean.parquet"
    r = subprocess.run(cmd[:-1] + [str(clean)], capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(clean))


# --------------------------------------------------------------------------- outputs never replaced silently


def test_every_command_that_writes_refuses_to_replace(tmp_path):
    """run, sweep, report, replay, map, odds drop and im reach refuse an existing
    output (one line naming it and --overwrite, exit 2, the file untouched) and
    replace it with --overwrite."""
    games = tmp_path / "g.csv"
    r = _cli("run", "--scenario", "intro", "--games", "3", "--seed", "1", "--out", games, "-q")
    assert r.returncode == 0, r.stderr
    before = games.read_bytes()
    sweep = tmp_path / "s.toml"
    sweep.write_text('scenario = "intro"\nseed = 2\ngames = 2\n[grid]\nallied_policy = ["static", "random"]\n')
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "report.md").write_text("old")
    (tmp_path / "game0").mkdir()
    (tmp_path / "game0" / "events.csv").write_text("old")
    for f in ("map.png", "drop.png", "reach.png", "s.parquet"):
        (tmp_path / f).write_bytes(b"old")
    cases = [
        (["run", "--scenario", "intro", "--games", "2", "--seed", "1", "--out", games, "-q"], games),
        (["sweep", sweep, "--out", tmp_path / "s.parquet", "-q"], tmp_path / "s.parquet"),
        (["report", games, "--out", tmp_path / "rep"], tmp_path / "rep" / "report.md"),
        (["replay", "--scenario", "intro", "--seed", "1", "--game", "0", "--no-maps", "--out", tmp_path / "game0"],
         tmp_path / "game0" / "events.csv"),
        (["map", "--out", tmp_path / "map.png"], tmp_path / "map.png"),
        (["odds", "drop", "--hex", "1313", "--out", tmp_path / "drop.png"], tmp_path / "drop.png"),
        (["im", "reach", "--unit", "I/St", "--hex", "2630", "--png", tmp_path / "reach.png"],
         tmp_path / "reach.png"),
    ]
    for args, target in cases:
        old = target.read_bytes()
        r = _cli(*args)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and "--overwrite" in lines[0], (args, r.stderr)
        assert target.read_bytes() == old, args
    assert games.read_bytes() == before
    for args, target in cases:
        r = _cli(*args, "--overwrite")
        assert r.returncode == 0, (args, r.stderr)
        assert target.read_bytes() != b"old", args
    assert len(pd.read_csv(games)) == 2


# --------------------------------------------------------------------------- first run, progress, summary


def test_first_run_says_it_is_compiling_and_the_bar_waits_for_games(monkeypatch, capsys):
    """With no compiled kernels on disk the run says once, before playing, that it
    is compiling and how long that takes; the bar shows no time left until every
    worker has finished a chunk, then one measured from that moment."""
    from malta_sim import batch, numba_cache

    monkeypatch.setattr(numba_cache, "kernels_cached", lambda folder=None: False)
    batch.run_games("intro", 2, 5, progress=True, chunk_size=1)
    err = capsys.readouterr().err
    assert err.count("compiling the game kernels") == 1 and numba_cache.COMPILE_HINT in err
    monkeypatch.setattr(numba_cache, "kernels_cached", lambda folder=None: True)
    batch.run_games("intro", 2, 5, progress=True, chunk_size=1)
    assert "compiling" not in capsys.readouterr().err

    bar = batch._Progress(100, 0, "t", True, workers=2)
    bar.bar.fp = io.StringIO()
    texts = [str(bar.bar)]
    for _ in range(4):
        time.sleep(0.01)
        bar.update(10)
        texts.append(str(bar.bar))
    bar.close()
    assert not any("left" in t for t in texts[:3]), texts       # before and during the first round of chunks
    assert "left" in texts[3] and "left" in texts[4] and "games/s" in texts[4]
    assert "?" not in "".join(texts)


def test_summary_names_data_end_reasons_and_glossary(tmp_path):
    """The run summary names the data folder and hash, the end reasons by the names
    the report and docs use, and where the columns are explained."""
    from malta_sim.loaders.common import hash_dir, packaged_data_dir

    out = tmp_path / "g.parquet"
    r = _cli("run", "--scenario", "intro", "--games", "6", "--seed", "3", "--out", out)
    assert r.returncode == 0, r.stderr
    assert f"data: the packaged data (hash {hash_dir(packaged_data_dir())})" in r.stdout
    assert "invasion suspended" not in r.stdout and "last turn" not in r.stdout
    assert "surrender" in r.stdout and "malta-sim glossary" in r.stdout
    assert (pd.read_parquet(out)["data_hash"] == hash_dir(packaged_data_dir())).all()


def test_run_help_lists_the_bots():
    r = _cli("run", "--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    for name in ("balanced", "aggressive", "cautious", "solitaire", "active", "static", "counterattack", "advance",
                 "hold-first", "counter"):
        assert name in text, name
    assert "axis:balanced" not in text


# --------------------------------------------------------------------------- glossary


def test_glossary_explains_every_column_and_docs_are_in_step():
    """Every column of an Island of Death and an Invasion: Malta result row (and
    per-turn row) is in the glossary; docs/results.md is the glossary's page;
    every end-reason code has one name, the one canonical_end_reason gives."""
    from malta_sim.analysis.frames import canonical_end_reason
    from malta_sim.analysis.glossary import END_REASON_CODES, PER_TURN_COLUMNS, all_columns, glossary_markdown
    from malta_sim.batch import run_games

    known = all_columns()
    for scenario in ("intro", "im-c3"):
        g, t = run_games(scenario, 1, 1, per_turn=True)
        assert set(g.columns) <= set(known), set(g.columns) - set(known)
        assert set(t.columns) <= set(known) | set(PER_TURN_COLUMNS) | {"game"}, set(t.columns) - set(known)
        for code in g["end_reason"]:
            assert code in END_REASON_CODES
    for code, (name, _, _) in END_REASON_CODES.items():
        assert canonical_end_reason(code) == name
    assert (ROOT / "docs" / "results.md").read_text() == glossary_markdown()
    r = _cli("glossary")
    assert r.returncode == 0 and "final_surrender_modifier" in r.stdout and "operation cancelled" in r.stdout


def test_corrupted_checkpoint_chunk_is_replayed_with_one_plain_line(tmp_path):
    """A damaged chunk file is played again; the notice is one plain line naming the
    games, not a Python warning with a source line."""
    ck, out = tmp_path / "ck", tmp_path / "g.parquet"
    args = ["run", "--scenario", "intro", "--games", "6", "--seed", "2", "--chunk-size", "3", "--checkpoint", ck,
            "--out", out]
    assert _cli(*args).returncode == 0
    first = pd.read_parquet(out)
    chunk = sorted(ck.glob("games-*.parquet"))[0]
    chunk.write_bytes(b"not parquet")
    r = _cli(*args, "--overwrite")
    assert r.returncode == 0, r.stderr
    notes = [ln for ln in r.stderr.splitlines() if "unreadable" in ln]
    assert len(notes) == 1 and "games 0-2" in notes[0] and "playing those games again" in notes[0]
    assert "Warning" not in r.stderr and "warnings.warn" not in r.stderr
    pd.testing.assert_frame_equal(pd.read_parquet(out), first)


@pytest.mark.parametrize("args,words", [
    (["im", "activation", "--a", "axis:XX", "--b", "allied:Central"], "axis formations with an AM: 7, O, R, St"),
    (["im", "reach", "--unit", "I/Sx", "--hex", "2630"], "did you mean I/St"),
    (["run", "--scenario", "intro", "--games", "1", "--seed", "1", "--axis-policy", "zz", "--out", "x.parquet"],
     "choose one of: tuned, balanced, aggressive, cautious, solitaire, "),
    (["run", "--scenario", "nope", "--games", "1", "--seed", "1", "--out", "x.parquet"],
     "choose one of: hercules, im-c3, intro"),
    (["odds", "crt", "--attack", "3", "--defense", "2", "--terrain", "swamp", "--time", "day"], "one of: airfield"),
    (["data", "export", "x", "--game", "chess"], "choose one of: island_of_death, invasion_malta"),
])
def test_unknown_names_come_with_the_valid_choices(tmp_path, args, words):
    r = _cli(*args, cwd=tmp_path)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and words in lines[0], r.stderr
    assert "axis:balanced" not in lines[0]
