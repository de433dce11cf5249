"""Data files read as UTF-8 with or without byte-order mark and with any line
ending; other encodings are refused in one line naming the file and the byte
offset; a broken file does not bring a cascade of follow-on problems; the
packaged data exports as an editable folder.  Real files are written byte by
byte in tmp_path."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from malta_sim.errors import DataError
from malta_sim.loaders import check_iod, load_iod
from malta_sim.loaders.common import hash_dir, packaged_data_dir, read_text

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def copy(tmp_path):
    dst = tmp_path / "iod"
    shutil.copytree(packaged_data_dir(), dst)
    return dst


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "malta_sim", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or ROOT)


def _resave(path: Path, *, bom=b"", newline="\n", encoding="utf-8", edit=None):
    text = path.read_text(encoding="utf-8")
    if edit:
        text = text.replace(*edit, 1)
    path.write_bytes(bom + text.replace("\n", newline).encode(encoding))


def test_read_text_accepts_bom_and_every_line_ending(tmp_path):
    f = tmp_path / "t.csv"
    for raw in (b"a,b\n1,2\n", b"\xef\xbb\xbfa,b\r\n1,2\r\n", b"a,b\r1,2\r", b"\xef\xbb\xbfa,b\n1,2"):
        f.write_bytes(raw)
        assert read_text(f).split("\n")[:2] == ["a,b", "1,2"], raw


def test_spreadsheet_files_load_like_the_originals(copy):
    """units.csv as a spreadsheet saves it (UTF-8 with BOM, CRLF), a scenario file
    with BOM and CRLF, and unit_steps.csv with bare CR endings: the data loads to
    the same counters and set-ups, and `data check` says ok."""
    _resave(copy / "units.csv", bom=b"\xef\xbb\xbf", newline="\r\n")
    _resave(copy / "scenarios" / "intro.toml", bom=b"\xef\xbb\xbf", newline="\r\n")
    _resave(copy / "unit_steps.csv", newline="\r")
    assert (copy / "units.csv").read_bytes()[:3] == b"\xef\xbb\xbf"
    assert check_iod(copy) == []
    a, b = load_iod(None), load_iod(copy)
    assert sorted(a.units.designs) == sorted(b.units.designs)
    assert [(p.piece, p.level, p.hex) for p in a.scenario("intro").setup] == \
        [(p.piece, p.level, p.hex) for p in b.scenario("intro").setup]
    r = _cli("data", "check", copy)
    assert r.returncode == 0 and r.stdout.startswith("ok:"), r.stderr


@pytest.mark.parametrize("encoding,words", [
    ("utf-16", "the file is UTF-16 text"),
    ("latin-1", "not UTF-8 text: byte 0xe9 at byte offset"),
])
def test_other_encodings_get_one_line_naming_file_and_offset(copy, encoding, words):
    f = copy / "leaders.csv"
    _resave(f, encoding=encoding, edit=("Ramcke", "Ramcké"))
    with pytest.raises(DataError) as e:
        load_iod(copy)
    assert str(f) in str(e.value) and words in str(e.value)
    if encoding == "latin-1":
        offset = f.read_bytes().index(b"\xe9")
        assert f"byte offset {offset} " in str(e.value)
    r = _cli("data", "check", copy)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith(f"error: {f}") and words in lines[0]
    assert "Traceback" not in r.stderr
    r = _cli("run", "--scenario", "intro", "--games", "1", "--seed", "1", "--data-dir", copy,
             "--out", copy.parent / "x.parquet")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and words in r.stderr


def test_truncated_units_file_gives_no_cascade(copy):
    """A units.csv cut in the middle of a row: its own problem, then one line naming
    the files not checked further, not hundreds of 'unknown unit' lines."""
    f = copy / "units.csv"
    f.write_bytes(f.read_bytes()[:6000])
    probs = check_iod(copy)
    assert len(probs) == 2, "\n".join(p.format() for p in probs)
    assert probs[0].file == str(f) and "fields, the header has" in probs[0].message
    assert "not checked further" in probs[1].message and "unit_steps.csv" in probs[1].message
    r = _cli("data", "check", copy)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 2


def test_data_export_writes_an_editable_copy(tmp_path):
    """`data export DIR` (from any folder: no source checkout needed) writes the
    packaged data with the same hash; it refuses a folder holding files unless
    --overwrite; the copy checks ok and plays."""
    out = tmp_path / "my_iod"
    r = _cli("data", "export", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert hash_dir(out) == hash_dir(packaged_data_dir()) and hash_dir(out) in r.stdout
    assert (out / "scenarios" / "hercules.toml").is_file()
    r = _cli("data", "export", out, cwd=tmp_path)
    assert r.returncode == 2 and "--overwrite" in r.stderr
    assert _cli("data", "export", out, "--overwrite", cwd=tmp_path).returncode == 0
    assert _cli("data", "check", out).returncode == 0
    im = tmp_path / "my_im"
    r = _cli("data", "export", im, "--game", "invasion_malta")
    assert r.returncode == 0 and "im check-data" in r.stdout
    assert hash_dir(im) == hash_dir(packaged_data_dir("invasion_malta"))
    r = _cli("data", "export", tmp_path / "x", "--game", "chess")
    assert r.returncode == 2 and "island_of_death, invasion_malta" in r.stderr
