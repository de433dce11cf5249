"""Data variants: a sweep arm names its data folder, every row keeps the hash of
the data it was played with, frames joined from several runs are split by data
hash in every analysis and in the report instead of pooled, and the summary
names the data."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from malta_sim.analysis import win_rates, with_outcomes
from malta_sim.batch import load_sweep, run_games, run_sweep
from malta_sim.errors import DataError
from malta_sim.loaders.common import hash_dir, packaged_data_dir
from malta_sim.report import write_report
from malta_sim.summary import format_summary

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def variant(tmp_path):
    """A data variant: the packaged data with one comment line more in units.csv (another hash,
    the same games)."""
    d = tmp_path / "variant"
    shutil.copytree(packaged_data_dir(), d)
    f = d / "units.csv"
    f.write_text(f.read_text(encoding="utf-8") + "\n# a comment: same units, another hash\n", encoding="utf-8")
    return d


def test_sweep_arm_names_its_data_folder(tmp_path, variant):
    sweep = tmp_path / "s.toml"
    sweep.write_text('scenario = "intro"\nseed = 4\ngames = 3\n'
                     '[[arm]]\nname = "packaged"\n'
                     '[[arm]]\nname = "variant"\ndata_dir = "variant"\n')   # relative to the sweep file
    sw = load_sweep(sweep)
    assert sw.arms[1].data_dir == str(variant.resolve())
    df = run_sweep(sw)
    hashes = df.groupby("arm")["data_hash"].unique().to_dict()
    assert list(hashes["packaged"]) == [hash_dir(packaged_data_dir())]
    assert list(hashes["variant"]) == [hash_dir(variant)]
    assert df.attrs["arms"]["variant"]["data_dir"] == str(variant.resolve())
    assert df.attrs["data_hash"] == "mixed"
    text = format_summary(df)
    assert "data per arm:" in text and str(variant.resolve()) in text and hash_dir(variant) in text
    # common random numbers: the same games in both arms (only a comment differs, so the same results)
    a, b = (df[df["arm"] == k].drop(columns=["arm", "data_hash"]).reset_index(drop=True) for k in hashes)
    pd.testing.assert_frame_equal(a, b)
    s = write_report(df, tmp_path / "rep")
    assert {d["hash"] for d in s["data"]} == {hash_dir(packaged_data_dir()), hash_dir(variant)}
    assert "Data variants" in (tmp_path / "rep" / "report.md").read_text()


def test_sweep_data_dir_errors(tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text('scenario = "intro"\nseed = 4\n[[arm]]\nname = "v"\ndata_dir = "nope"\n')
    with pytest.raises(DataError, match=r"arm\[0\]\.data_dir.*does not exist"):
        load_sweep(sweep)
    r = subprocess.run([sys.executable, "-m", "malta_sim", "sweep", str(sweep), "--out", str(tmp_path / "o.csv")],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "data_dir" in r.stderr


def test_joined_runs_are_split_by_data_hash_not_pooled(tmp_path, variant):
    """Two runs of the same settings on different data, joined by hand (pandas drops
    the differing attrs): every analysis keeps them apart by the rows' data_hash,
    and the report names both data sets."""
    a = run_games("intro", 4, 9)
    b = run_games("intro", 4, 9, data_dir=variant)
    both = pd.concat([a, b], ignore_index=True)
    assert both.attrs == {}
    arms = with_outcomes(both)["arm"]
    assert arms.nunique() == 2 and all("data " in x for x in arms.unique())
    wr = win_rates(both)
    assert len(wr) == 2 and (wr["games"] == 4).all()
    s = write_report(both, tmp_path / "rep")
    assert s["axis_win_rate"] is None and len(s["axis_win_rate_by_arm"]) == 2
    packaged = [d for d in s["data"] if d["packaged"]]
    assert len(packaged) == 1 and len(s["data"]) == 2
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "Data variants" in md and "Reconstructed data" in md      # the notice survives the join
