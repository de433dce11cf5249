"""The command line starts, prints its version and help, and reports user errors in one line."""

import subprocess
import sys

from click.testing import CliRunner

from malta_sim import __version__
from malta_sim.cli import main


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
