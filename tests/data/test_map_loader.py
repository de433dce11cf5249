"""The map loader rejects broken copies of the map files with a DataError naming
the file, the line and the field."""

from __future__ import annotations

import shutil

import pytest

from malta_sim.errors import DataError
from malta_sim.loaders.common import packaged_data_dir
from malta_sim.loaders.iod_map import check_map, load_map

MAP_FILES = ("terrain_effects.csv", "hexes.csv", "hexsides.csv", "beach_zones.csv", "beach_boxes.csv",
             "places.csv")


@pytest.fixture()
def copy(tmp_path):
    src = packaged_data_dir()
    for f in MAP_FILES:
        shutil.copy(src / f, tmp_path / f)
    return tmp_path


def _edit(path, fn):
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(fn(lines)) + "\n", encoding="utf-8")


def _line_of(path, prefix):
    for i, ln in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if ln.startswith(prefix):
            return i + 1
    raise AssertionError(prefix)


def _replace_line(path, prefix, new):
    n = _line_of(path, prefix)
    _edit(path, lambda ls: ls[: n - 1] + [new(ls[n - 1])] + ls[n:])
    return n


def _err(copy) -> DataError:
    with pytest.raises(DataError) as ei:
        load_map(copy)
    return ei.value


def test_packaged_map_is_valid():
    assert check_map() == []


def test_unknown_hex_id(copy):
    p = copy / "hexes.csv"
    n = _replace_line(p, "1313,", lambda ln: "13x3" + ln[4:])
    e = _err(copy)
    assert e.file.endswith("hexes.csv") and e.line == n and e.field == "hex"
    assert "unknown hex id" in e.message and "XXYY" in e.message


def test_hex_off_grid(copy):
    p = copy / "hexsides.csv"
    first = [ln for ln in p.read_text().splitlines() if ln[:1].isdigit()][0]
    n = _replace_line(p, first, lambda ln: "2799" + ln[4:])
    e = _err(copy)
    assert e.file.endswith("hexsides.csv") and e.line == n and e.field == "hex"
    assert "off the map" in e.message


def test_duplicate_hex(copy):
    p = copy / "hexes.csv"
    n0 = _line_of(p, "1313,")
    _edit(p, lambda ls: ls + [ls[n0 - 1]])
    e = _err(copy)
    assert e.field == "hex" and "duplicate" in e.message and f"line {n0}" in e.message


def test_missing_hex(copy):
    p = copy / "hexes.csv"
    n0 = _line_of(p, "0101,")
    _edit(p, lambda ls: ls[: n0 - 1] + ls[n0:])
    e = _err(copy)
    assert e.file.endswith("hexes.csv") and "0101" in e.message and "not listed" in e.message


def test_unknown_terrain(copy):
    p = copy / "hexes.csv"
    n = _replace_line(p, "1313,", lambda ln: ln.replace(",clear,", ",swamp,", 1))
    e = _err(copy)
    assert e.line == n and e.field == "terrain" and "swamp" in e.message


def test_terrain_flag_mismatch(copy):
    p = copy / "hexes.csv"
    n = _replace_line(p, "1313,", lambda ln: ln.replace(",clear,", ",town,", 1))
    e = _err(copy)
    assert e.line == n and e.field == "town" and "flag" in e.message


def test_wave_box_on_non_beach_hex(copy):
    p = copy / "beach_boxes.csv"
    n = _replace_line(p, "first.North.1107,", lambda ln: ln.replace(",1107,", ",1313,"))
    e = _err(copy)
    assert e.file.endswith("beach_boxes.csv") and e.line == n and e.field == "beach_hex"
    assert "not a beach hex" in e.message


def test_wave_box_of_another_zone(copy):
    p = copy / "beach_boxes.csv"
    west = [ln for ln in p.read_text().splitlines() if ln.startswith("first.West.")][0].split(",")[3]
    n = _replace_line(p, "first.North.1107,", lambda ln: ln.replace(",1107,", f",{west},"))
    e = _err(copy)
    assert e.line == n and "West zone" in e.message


def test_inconsistent_hexside_creek_and_rise(copy):
    p = copy / "hexsides.csv"
    creek = [ln for ln in p.read_text().splitlines() if ",creek," in ln][0]
    hx, d = creek.split(",")[:2]
    from malta_sim.hexgrid import DIRECTION_NAMES, neighbour

    n_hex = neighbour(hx, DIRECTION_NAMES.index(d))
    opposite = DIRECTION_NAMES[(DIRECTION_NAMES.index(d) + 3) % 6]
    _edit(p, lambda ls: ls + [f"{n_hex},{opposite},creek_rise,reconstructed"])
    e = _err(copy)
    assert e.file.endswith("hexsides.csv") and e.field == "feature" and "inconsistent hexside" in e.message


def test_inconsistent_hexside_listed_differently_from_each_side(copy):
    """Listed from both hexes, a hexside must carry the same features on both."""
    p = copy / "hexsides.csv"
    road = [ln for ln in p.read_text().splitlines() if ",road," in ln][0]
    hx, d = road.split(",")[:2]
    from malta_sim.hexgrid import DIRECTION_NAMES, neighbour

    n_hex = neighbour(hx, DIRECTION_NAMES.index(d))
    opposite = DIRECTION_NAMES[(DIRECTION_NAMES.index(d) + 3) % 6]
    _edit(p, lambda ls: ls + [f"{n_hex},{opposite},road,reconstructed"])
    load_map(copy)  # the same feature from the other side is fine
    _edit(p, lambda ls: ls + [f"{n_hex},{opposite},creek,reconstructed"])
    e = _err(copy)
    assert e.field == "feature" and "inconsistent hexside" in e.message and "listed from" in e.message
    assert e.line == len(p.read_text().splitlines())


def test_inconsistent_hexside_road_into_ocean(copy):
    p = copy / "hexsides.csv"
    _edit(p, lambda ls: ls + ["0101,S,road,reconstructed"])
    e = _err(copy)
    assert "inconsistent hexside" in e.message and "ocean" in e.message


def test_missing_column(copy):
    p = copy / "hexes.csv"
    _edit(p, lambda ls: [ln.replace(",coastal,", ",coast,", 1) if ln.startswith("hex,") else ln for ln in ls])
    e = _err(copy)
    assert e.file.endswith("hexes.csv") and e.field == "coastal" and "missing column" in e.message


def test_bad_source(copy):
    p = copy / "terrain_effects.csv"
    n = _replace_line(p, "woods,hex,", lambda ln: ln.rsplit(",", 1)[0] + ",guessed")
    e = _err(copy)
    assert e.file.endswith("terrain_effects.csv") and e.line == n and e.field == "source"


def test_tec_row_missing(copy):
    p = copy / "terrain_effects.csv"
    n0 = _line_of(p, "creek_rise,hexside,")
    _edit(p, lambda ls: ls[: n0 - 1] + ls[n0:])
    e = _err(copy)
    assert "creek_rise" in e.message


def test_place_on_wrong_hex(copy):
    p = copy / "places.csv"
    n = _replace_line(p, "Valletta,city,", lambda ln: ln.replace(",1809,", ",1313,"))
    e = _err(copy)
    assert e.file.endswith("places.csv") and e.line == n and e.field == "hex"


def test_check_map_collects_problems_of_several_files(copy):
    _replace_line(copy / "terrain_effects.csv", "woods,hex,", lambda ln: ln.rsplit(",", 1)[0] + ",guessed")
    _replace_line(copy / "beach_boxes.csv", "first.North.1107,", lambda ln: ln.replace(",1107,", ",1313,"))
    errs = check_map(copy)
    files = sorted({e.file.rsplit("/", 1)[-1] for e in errs})
    assert files == ["beach_boxes.csv", "terrain_effects.csv"]
