"""A broken ``--data-dir`` is reported through the validated loaders: one line
naming file, line and field, exit status 2, never a traceback (brief: errors)."""
import shutil

import pytest
from click.testing import CliRunner

from malta_sim.cli import main as cli_main
from malta_sim.errors import DataError
from malta_sim.play import play_games
from malta_sim.loaders.common import resolve_data_dir


def _broken_copy(tmp_path):
    """Copy of the packaged data with the first counter's ``type`` made unknown;
    returns (folder, 1-based line of the broken row)."""
    dst = tmp_path / "data"
    shutil.copytree(resolve_data_dir(None), dst)
    p = dst / "units.csv"
    lines = p.read_text().splitlines(True)
    j = next(k for k, s in enumerate(lines) if s.strip() and not s.startswith("#"))
    hdr = lines[j].strip().split(",")
    f = lines[j + 1].rstrip("\n").split(",")
    f[hdr.index("type")] = "tankette"
    lines[j + 1] = ",".join(f) + "\n"
    p.write_text("".join(lines))
    return dst, j + 2


@pytest.mark.parametrize("scenario", ["intro", "hercules"])
def test_play_games_bad_data_dir_raises_data_error(tmp_path, scenario):
    folder, line = _broken_copy(tmp_path)
    with pytest.raises(DataError) as ei:
        play_games(scenario, 1, [0], data_dir=str(folder))
    msg = ei.value.format()
    assert "units.csv" in msg and f":{line}" in msg and "type" in msg


def test_cli_run_bad_data_dir_exit_2(tmp_path):
    folder, line = _broken_copy(tmp_path)
    res = CliRunner().invoke(cli_main, ["run", "--scenario", "intro", "--games", "1", "--seed", "1",
                                        "--data-dir", str(folder), "--out", str(tmp_path / "o.csv"),
                                        "-q"])
    assert res.exit_code == 2
    out = res.output.strip().splitlines()
    assert len(out) == 1 and "Traceback" not in res.output
    assert "units.csv" in out[0] and f":{line}" in out[0] and "'type'" in out[0]
