"""The data folder is read once per load, and only by the validated loaders.

:func:`malta_sim.iod.static.load_static` loads the folder with
:func:`malta_sim.loaders.load_iod` (which checks every file and reads each
from disk once: parsing, hashing and provenance counts share the bytes) and
builds the engine's arrays from the loaded tables
(:func:`malta_sim.iod.static.build_static`); the invasion tables are derived
from the same loaded data.  File opens are counted with an audit hook
(``sys.addaudithook``, event ``open``), so nothing of the engine is patched.

The arrays are pinned by a fingerprint (``static_fingerprint.json``: sha256
of every :class:`StaticData` field as built before the engine stopped parsing
the files itself) and cross-checked against the loaders' own tables.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from malta_sim.errors import DataError
from malta_sim.iod import static as st
from malta_sim.iod.static import build_static, load_data, load_static
from malta_sim.loaders import load_iod
from malta_sim.loaders.common import packaged_data_dir

HERE = Path(__file__).resolve().parent
FINGERPRINT = HERE / "static_fingerprint.json"

# --------------------------------------------------------------- counting opens
_WATCHED: list[Path] = []              # the folder whose opens are counted (at most one)
_OPENS: collections.Counter = collections.Counter()


def _audit(event, args):
    if event != "open" or not _WATCHED or not isinstance(args[0], str):
        return
    mode = args[1]
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return
    p = Path(args[0])
    try:
        _OPENS[p.resolve().relative_to(_WATCHED[0]).as_posix()] += 1
    except ValueError:
        pass


sys.addaudithook(_audit)        # inert unless a test watches a folder


class _Watch:
    """Count the read opens of the files under ``folder`` within the block."""

    def __init__(self, folder: Path):
        self.folder = folder.resolve()

    def __enter__(self):
        _OPENS.clear()
        _WATCHED[:] = [self.folder]
        return _OPENS

    def __exit__(self, *exc):
        _WATCHED.clear()


def _data_files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.suffix in (".csv", ".toml") and p.is_file())


@pytest.fixture
def data_copy(tmp_path):
    """A copy of the packaged data in a new folder (nothing of it cached yet)."""
    d = tmp_path / "data"
    shutil.copytree(packaged_data_dir(), d)
    return d


def test_each_data_file_is_read_once_per_load(data_copy):
    """One ``load_static`` reads every data file exactly once; building the
    invasion tables, loading the same folder again and setting up games read
    none (the loaded data is kept per folder)."""
    with _Watch(data_copy) as opens:
        static = load_static(str(data_copy))
        assert static.invasion is not None
    files = _data_files(data_copy)
    assert files and dict(opens) == {f: 1 for f in files}
    from malta_sim.play import new_game
    with _Watch(data_copy) as opens:
        again = load_static(data_copy)
        for scen in ("intro", "hercules"):
            new_game(scen, 1, 0, axis_policy="balanced", allied_policy="static", data_dir=str(data_copy))
    assert dict(opens) == {}
    assert again.provenance == static.provenance


def test_each_load_iod_reads_every_file_once(data_copy):
    """The validated loader on its own: each call reads each file once
    (parse, data hash, reconstructed counts share the bytes), and a second
    call reads the files afresh (an edited file is seen)."""
    files = _data_files(data_copy)
    with _Watch(data_copy) as opens:
        first = load_iod(data_copy)
    assert dict(opens) == {f: 1 for f in files}
    p = data_copy / "units.csv"
    p.write_text(p.read_text() + "\n# a comment\n")
    with _Watch(data_copy) as opens:
        second = load_iod(data_copy)
    assert dict(opens) == {f: 1 for f in files}
    assert first.data_hash != second.data_hash


def _fingerprint(sd) -> dict[str, str]:
    """sha256 (16 hex digits) of each field of a StaticData (its grid,
    charts, keyed tables, provenance and derived tables apart): dtype, shape and bytes of
    arrays, sorted items of dicts, values of the rest."""
    out = {}
    for f in dataclasses.fields(sd):
        if f.name in ("derived", "provenance", "charts", "grid", "tables"):
            continue
        v = getattr(sd, f.name)
        if isinstance(v, np.ndarray):
            b = repr((v.dtype.str, v.shape)).encode() + np.ascontiguousarray(v).tobytes()
        elif isinstance(v, list) and v and isinstance(v[0], np.ndarray):
            b = b"".join(repr((a.dtype.str, a.shape)).encode() + np.ascontiguousarray(a).tobytes() for a in v)
        elif isinstance(v, dict):
            b = repr(sorted((str(k), str(x)) for k, x in v.items())).encode()
        else:
            b = repr(v).encode()
        out[f.name] = hashlib.sha256(b).hexdigest()[:16]
    return out


def test_static_arrays_equal_the_pinned_fingerprint():
    """Every array of the packaged static data is what the engine built when
    it parsed the files itself (same dtypes, shapes, values)."""
    want = json.loads(FINGERPRINT.read_text())
    got = _fingerprint(load_static())
    assert sorted(got) == sorted(want)
    assert [k for k in want if got[k] != want[k]] == []


def test_static_arrays_agree_with_the_loaders_tables():
    """The unit table and map arrays say what the loaders' tables say."""
    data = load_data()
    sd = build_static(data)
    ua = data.unit_arrays
    assert sorted(sd.names) == sorted(data.units.pieces)
    rows = [ua.index[n] for n in sd.names]
    n_levels = ua.n_levels[rows]             # printed levels (a leader's two faces apart)
    for k in range(st.MAX_LEVELS):
        have = k < n_levels
        assert (sd.attack[have, k] == ua.attack[rows][have, k]).all()
        assert (sd.defense[have, k] == ua.defense[rows][have, k]).all()
        assert (sd.ma[have, k] == ua.movement[rows][have, k]).all()
        assert (sd.morale[have, k] == ua.morale[rows][have, k]).all()
        assert (sd.attack[~have, k] == 0).all()
    assert (sd.side == ua.side[rows]).all()
    leaders = sd.utype == st.LEADER
    assert (sd.tactical[leaders, :2] == ua.leader_tactical[rows][leaders]).all()
    m = data.map
    assert (sd.land == m.land).all() and (sd.beach == m.beach).all() and (sd.fort == m.fort).all()
    assert (sd.road == m.side_road).all() and (sd.rise == m.side_rise).all()
    # rule 6.11 hex entry cost: the loader's (inf = prohibited) is the engine's (99)
    assert (np.where(np.isinf(m.hex_cost), st.PROHIBITED_MP, m.hex_cost) == sd.move_cost).all()


@pytest.mark.parametrize("file,old,new,line,field", [
    ("units.csv", ",infantry,", ",cavalry,", None, "type"),
    ("hexes.csv", ",clear,", ",swamp,", None, "terrain"),
    ("terrain_effects.csv", "road,hexside,", "road,hexsid,", None, "kind"),
    ("artillery.csv", ",true,", ",maybe,", None, "airborne_prep"),
])
def test_bad_data_gives_one_line_data_error(data_copy, file, old, new, line, field):
    """A value the engine cannot use stops ``load_static`` with one line naming
    the file, the line and the field (the loaders' message), never a
    traceback from the array builder."""
    p = data_copy / file
    text = p.read_text()
    assert old in text
    p.write_text(text.replace(old, new, 1))
    with pytest.raises(DataError) as ei:
        load_static(str(data_copy))
    e = ei.value
    assert Path(e.file).name == file and e.field == field and isinstance(e.line, int)
    assert "\n" not in str(e)
