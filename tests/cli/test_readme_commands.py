"""The README's "Using it" commands run as written after the quick start, from a
fresh folder, one after another (only the game counts are made small and the
runs use one worker, to keep the test short)."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _using_it_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Using it", 1)[1]
    block = section.split("```bash", 1)[1].split("```", 1)[0]
    lines = [ln.split("  #")[0].strip() for ln in block.strip().splitlines()]
    return [ln for ln in lines if ln]


def test_readme_using_it_commands_run_as_written(tmp_path):
    cmds = _using_it_commands()
    assert cmds[0].startswith("source .venv/bin/activate")   # the quick start does not put the venv on PATH
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = shutil.which("malta-sim", path=str(Path(sys.executable).parent))
    wrapper = bindir / "malta-sim"
    wrapper.write_text(f'#!/bin/sh\nexec "{exe}" "$@"\n' if exe else f'#!/bin/sh\nexec "{sys.executable}" -m malta_sim "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    (tmp_path / "experiments").mkdir()
    shutil.copy(ROOT / "experiments" / "sweep_example.toml", tmp_path / "experiments")
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for cmd in cmds[1:]:
        assert cmd.startswith("malta-sim "), cmd
        small = re.sub(r"--games \d+", "--games 4", cmd).replace("--jobs 2", "--jobs 1")
        r = subprocess.run(small, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, (cmd, r.stderr[-2000:])
    for f in ("h.parquet", "h_turns.parquet", "h_report/report.md", "game7/result.json", "sweep.parquet",
              "sweep_report/report.md", "map.png", "my_iod/units.csv", "h_mine.parquet", "my_im/units.csv"):
        assert (tmp_path / f).exists(), f


def test_tune_examples_tune_against_an_opponent_that_wins_games():
    """Every `malta-sim tune` example (README, docs, `tune --help`) plays the
    default Allied preset `active`: against `static` the Axis presets it would
    tune win every Hercules game, so every candidate ties at 100 %."""
    from click.testing import CliRunner

    from malta_sim.cli import main

    texts = {p.name: p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]}
    texts["tune --help"] = CliRunner().invoke(main, ["tune", "--help"], terminal_width=400).output
    examples = []
    for where, text in texts.items():
        joined = re.sub(r"\\\n\s*", " ", text)                         # shell line continuations
        examples += [(where, m.group(0)) for m in re.finditer(r"malta-sim tune [^\n`#]*--seed[^\n`#]*", joined)]
    assert {w for w, _ in examples} >= {"README.md", "balance.md", "tune --help"}
    for where, cmd in examples:
        opponent = re.search(r"--opponent (\S+)", cmd)
        assert opponent is None or opponent.group(1) == "active", (where, cmd)
