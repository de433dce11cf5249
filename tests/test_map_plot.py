"""``malta-sim map`` draws the map (with set-up stacks) to a PNG; bad options
give one-line errors with exit status 2."""

from __future__ import annotations

import shutil

from click.testing import CliRunner

from malta_sim.cli import main
from malta_sim.loaders.common import packaged_data_dir
from malta_sim.plots_map import scenario_stacks


def test_map_png_with_setup(tmp_path):
    out = tmp_path / "intro.png"
    res = CliRunner().invoke(main, ["map", "--scenario", "intro", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.stat().st_size > 50_000


def test_setup_stacks_are_read():
    """Rules 22.24 and 22.33: the set-up lists are drawn from the scenario files."""
    intro = {h for _, h, _ in scenario_stacks("intro")}
    herc = {h for _, h, _ in scenario_stacks("hercules")}
    assert {"1309", "1311", "1107", "1110"} <= intro
    assert {"0809", "1211", "1612"} <= herc


def test_map_bad_scenario(tmp_path):
    res = CliRunner().invoke(main, ["map", "--scenario", "nope", "--out", str(tmp_path / "x.png")])
    assert res.exit_code == 2
    assert "--scenario" in res.output and "Traceback" not in res.output


def test_map_broken_data_dir(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(packaged_data_dir(), d)
    p = d / "beach_boxes.csv"
    p.write_text(p.read_text().replace(",1107,", ",1313,"))
    res = CliRunner().invoke(main, ["map", "--out", str(tmp_path / "x.png"), "--data-dir", str(d)])
    assert res.exit_code == 2
    assert "beach_boxes.csv" in res.output and "beach_hex" in res.output
    assert len(res.output.strip().splitlines()) == 1
