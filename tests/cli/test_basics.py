"""The command line starts, prints its version and help, and reports user errors in one line."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from click.testing import CliRunner

from malta_sim import __version__
from malta_sim.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_version_and_help():
    r = CliRunner().invoke(main, ["--version"])
    assert r.exit_code == 0 and __version__ in r.output
    r = CliRunner().invoke(main, ["--help"])
    assert r.exit_code == 0 and "Usage" in r.output


def test_module_entry_point():
    out = subprocess.run([sys.executable, "-m", "malta_sim", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and __version__ in out.stdout


def test_errors_survive_pickling():
    """Errors cross process boundaries (joblib/Dask workers) intact."""
    import pickle

    from malta_sim.errors import DataError, DataErrors

    e = pickle.loads(pickle.dumps(DataError("units.csv", 4, "hex", "unknown hex 9999")))
    assert (e.file, e.line, e.field, str(e)) == ("units.csv", 4, "hex", "units.csv:4: field 'hex': unknown hex 9999")
    es = pickle.loads(pickle.dumps(DataErrors([e])))
    assert str(es) == str(e)


def test_unwritable_out_refused_before_any_game(tmp_path):
    """An output folder that refuses files is caught before games are played (one line, exit 2)."""
    from malta_sim.batch import check_output_path
    from malta_sim.errors import OptionError
    import pytest

    blocker = tmp_path / "afile"
    blocker.write_text("x")
    with pytest.raises(OptionError, match="--out"):
        check_output_path(blocker / "sub" / "r.parquet")
    r = CliRunner().invoke(main, ["run", "--scenario", "intro", "--games", "1", "--seed", "1",
                                  "--out", "/proc/malta-sim-test.parquet"])
    assert r.exit_code == 2 and r.output.startswith("error:") and "Traceback" not in r.output


def _session_processes(sid):
    """Live processes of session ``sid`` (zombies excluded)."""
    import psutil

    found = []
    for p in psutil.process_iter(["pid", "status"]):
        try:
            if os.getsid(p.pid) == sid and p.info["status"] != psutil.STATUS_ZOMBIE:
                found.append(p.pid)
        except (ProcessLookupError, PermissionError, psutil.Error):
            pass
    return found


def test_sigterm_stops_workers_like_ctrl_c(tmp_path):
    """SIGTERM on ``run --jobs 2`` prints one line, exits 143 and leaves no worker or
    resource tracker behind; the checkpointed run then resumes to the full file."""
    import time

    import pandas as pd

    ckpt, out = tmp_path / "ckpt", tmp_path / "games.parquet"
    cmd = [sys.executable, "-m", "malta_sim", "run", "--scenario", "hercules", "--games", "200", "--seed", "8",
           "--jobs", "2", "--chunk-size", "5", "--checkpoint", str(ckpt), "--out", str(out), "-q"]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while not (ckpt.is_dir() and any(ckpt.glob("games-*"))):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no checkpoint chunk within 60 s"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 143, err
    # the line is there; a worker's shutdown warning may follow it
    assert "error: terminated" in err.splitlines() and "Traceback" not in err, err
    deadline = time.monotonic() + 10
    while _session_processes(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _session_processes(proc.pid) == []
    assert not out.exists()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    df = pd.read_parquet(out)
    assert len(df) == 200 and sorted(df["game"]) == list(range(200))


@pytest.mark.parametrize("args", [
    ["replay", "--seed", "x"],
    ["odds", "crt", "--time", "dusk"],
    ["odds", "bombard", "--strength", "x"],
    ["data", "check", "--bogus"],
    ["bogus"],
    ["--bogus"],
    ["report", "x", "--out"],
    ["run", "--games", "x"],
    ["sweep"],
    ["map"],
    ["im", "bogus"],
])
def test_usage_errors_are_one_line_exit_2(args):
    """Every command, subcommand and the top level report usage errors as one
    ``error: ...`` line on stderr with exit status 2."""
    out = subprocess.run([sys.executable, "-m", "malta_sim", *args], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2, out
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    assert "Usage" not in out.stderr and out.stdout == ""


def test_help_still_works_for_subcommands():
    for args in (["run", "--help"], ["odds", "crt", "--help"], ["data", "-h"]):
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 0 and "Usage" in r.output, args


def test_printed_paths_have_no_doubled_slash(tmp_path):
    """Folders given with a trailing slash print as clean paths; a game without a
    date (Invasion: Malta) prints no stray space before the semicolon."""
    runner = CliRunner()
    games = tmp_path / "g.csv"
    r = runner.invoke(main, ["run", "--scenario", "intro", "--games", "3", "--seed", "2", "--out", str(games), "-q"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["report", str(games), "--out", str(tmp_path / "rep") + "/"])
    assert r.exit_code == 0, r.output
    assert f"wrote {tmp_path / 'rep' / 'report.md'}," in r.output and "//" not in r.output
    for scenario in ("intro", "im-c3"):
        r = runner.invoke(main, ["replay", "--scenario", scenario, "--seed", "1", "--game", "0", "--no-maps",
                                 "--out", str(tmp_path / scenario) + "/"])
        assert r.exit_code == 0, r.output
        assert f"wrote {tmp_path / scenario}/: " in r.output and "//" not in r.output
        assert " ;" not in r.output


def test_closed_output_pipe_stops_quietly():
    """A reader that goes away (``malta-sim data info | head -1``) ends the
    command without an error line or a traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "malta_sim", "data", "info"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()                       # the reader is gone before anything is written
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert proc.returncode == 1
    assert err == "", err
