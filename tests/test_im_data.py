"""Invasion: Malta data files: loaders, validation errors, map sanity (rules 2.1, 2.22, 4.5, 5.1)."""

import shutil

import numpy as np
import pytest

from malta_sim.errors import DataError
from malta_sim.games.invasion_malta import csvio
from malta_sim.games.invasion_malta.data import load_formations, load_scenario, load_units
from malta_sim.games.invasion_malta.terrain import SECTORS, load_map


@pytest.fixture
def data_copy(tmp_path):
    d = tmp_path / "im"
    shutil.copytree(csvio.DATA_DIR, d)
    return d


def test_map_loads_and_has_the_named_features():
    m = load_map()
    assert 700 < m.land.sum() < 1100  # Malta + Comino at 630-yard hexes (about 0.29 km2 each)
    names = set(m.names.values())
    assert {"Takali", "Luqa", "Hal Far", "Krendi", "Valletta", "Mdina"} <= names
    assert m.airfield.sum() >= 5 and m.fort.sum() >= 10 and m.beach.sum() >= 10
    assert set(np.unique(m.sector[m.land])) == {0, 1, 2} and len(SECTORS) == 3  # three sectors (4.51)
    assert (m.road > 0).sum() > 100 and (m.road == 2).any() and (m.road == 1).any()
    assert m.slope_up.any() and m.cliff.any()
    # hexside arrays are symmetric
    for i in np.flatnonzero(m.land)[:200]:
        for d in range(6):
            j = m.nbr[i, d]
            if j >= 0:
                assert m.road[i, d] == m.road[j, (d + 3) % 6] and m.cliff[i, d] == m.cliff[j, (d + 3) % 6]
    assert all(h[:2].isdigit() and len(h) == 4 for h in m.names)  # four-digit ids (2.1)


def test_every_data_row_has_a_source():
    import csv
    for p in csvio.DATA_DIR.glob("*.csv"):
        rows = list(csv.DictReader(open(p)))
        assert rows and all(r["source"].startswith(("rule ", "reconstructed")) for r in rows), p.name


def test_units_and_formations():
    u = load_units()
    f = load_formations()
    codes = {x.code for x in f if x.side == 0}
    assert codes == {"7", "O", "R", "St", "Fo", "F", "L", "M"}  # rule 2.22 B
    assert {x.code for x in f if x.side == 1} == set(SECTORS)
    assert set(u.formation[(u.side == 0) & ~u.army]) == codes
    assert (u.armored & (u.side == 0) <= u.army).all()
    assert {"PzIV G", "T-34", "KV II", "L-40", "75/18", "Matilda", "A9", "A13", "MkVIb", "B/3 KOMR", "5/3"} <= set(u.ids)


def test_scenario_loads():
    s = load_scenario()
    assert s.setting("always_good_weather", int) == 1 and s.setting("turns", int) >= 3
    assert len(s.placement) == s.units.n
    groups = {g for g, *_ in s.placement.values()}
    assert {"A", "B", "drop", "convoy"} <= groups


def _edit(path, line_no, old, new):
    lines = path.read_text().splitlines()
    lines[line_no - 1] = lines[line_no - 1].replace(old, new, 1)
    path.write_text("\n".join(lines) + "\n")


def test_data_errors_name_file_line_field(data_copy):
    _edit(data_copy / "units.csv", 3, ",plain,", ",purple,")
    with pytest.raises(DataError) as e:
        load_units(data_copy)
    assert e.value.line == 3 and e.value.field == "ma_class" and "units.csv" in e.value.file


def test_data_error_weather_and_hexes(data_copy):
    _edit(data_copy / "weather.csv", 4, "3,good", "3,sunny")
    with pytest.raises(DataError) as e:
        load_scenario(data_dir=data_copy)
    assert e.value.field == "weather" and e.value.line == 4
    shutil.copy(csvio.DATA_DIR / "weather.csv", data_copy / "weather.csv")
    _edit(data_copy / "scenario_c3_setup.csv", 2, ",A,", ",Q,")
    with pytest.raises(DataError) as e:
        load_scenario(data_dir=data_copy)
    assert e.value.field == "group" and e.value.line == 2


def test_data_error_hq_with_two_steps(data_copy):
    _edit(data_copy / "units.csv", 2, "HQ,1,", "HQ,2,")
    with pytest.raises(DataError) as e:
        load_units(data_copy)
    assert e.value.field == "steps" and "3.42" in e.value.message
