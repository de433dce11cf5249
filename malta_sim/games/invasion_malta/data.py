"""Loaders of the Invasion: Malta data (``malta_sim/data/invasion_malta/``).

Files (every row carries ``source``: ``rule ...`` or ``reconstructed ...``):

=========================  ==============================================================
``map_grid.csv``           grid block of the map (rule 2.1)
``hexes.csv``              land hexes: terrain, airfield, fort, beach, sector, name
``hexsides.csv``           roads (main/minor), slope (with upper hex), cliff, sea
``units.csv``              counters (rules 2.22-2.24, 3.4, 3.6)
``formations.csv``         formations / sectors and their AMs (rules 2.22 B, 4.4, 4.5)
``weather.csv``            Weather Table, d10 -> condition (rule 5.1)
``invasion_zones.csv``     beach hexes of each Invasion Zone
``scenario_c3.csv``        scenario settings (key, value)
``scenario_c3_setup.csv``  placements: Group A/B hexes, drops, convoys, arrival turns (4.1)
=========================  ==============================================================

Errors are :class:`malta_sim.errors.DataError` naming file, line and field.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import DataError
from . import csvio
from .activation import FormationDef
from .terrain import IMMap, load_map
from .units import UnitTable, check_steps, make_units
from .weather import load_weather_table

UNIT_COLUMNS = ("id", "side", "nat", "formation", "army", "type", "steps", "attack", "defense", "ma", "er",
                "attack_r", "defense_r", "ma_r", "er_r", "ma_class", "stacking", "cp", "range", "no_zoc",
                "armored", "commando", "paratroop", "hq", "infantry", "source")


def load_units(data_dir=None) -> UnitTable:
    """Counters from ``units.csv``.

    Raises
    ------
    DataError
        Bad values, duplicate ids, or units breaking rules 3.41-3.42 (HQ and
        artillery have one step) or 3.64 (armored units are motorized).
    """
    p = csvio.data_path("units.csv", data_dir)
    rows, seen = [], set()
    for ln, r in csvio.read_rows(p, UNIT_COLUMNS):
        if not r["id"]:
            raise DataError(str(p), ln, "id", "empty unit id")
        if r["id"] in seen:
            raise DataError(str(p), ln, "id", f"unit id {r['id']!r} repeated (ids are unique, rule 2.23)")
        seen.add(r["id"])
        csvio.get_choice(p, ln, r, "side", ("Axis", "Allied"))
        csvio.get_choice(p, ln, r, "nat", ("G", "I", "B"))
        csvio.get_choice(p, ln, r, "ma_class", ("plain", "orange", "red"))
        rec = dict(id=r["id"], side=r["side"], nat=r["nat"], formation=r["formation"], ma_class=r["ma_class"])
        rec["steps"] = csvio.get_int(p, ln, r, "steps", 1, 2)
        for k in ("attack", "defense", "ma", "attack_r", "defense_r", "ma_r", "stacking", "cp", "range"):
            rec[k] = csvio.get_int(p, ln, r, k, 0, 99)
        for k in ("er", "er_r"):
            rec[k] = csvio.get_int(p, ln, r, k, 1, 10)
        for k in ("army", "no_zoc", "armored", "commando", "paratroop", "hq", "infantry"):
            rec[k] = csvio.get_bool(p, ln, r, k)
        if rec["army"] and r["side"] != "Axis":
            raise DataError(str(p), ln, "army", "only the Axis player has Army units (rules 4.32, 7.2)")
        if rec["armored"] and r["ma_class"] != "red":
            raise DataError(str(p), ln, "ma_class", "armored units have a red-box MA (rules 3.62, 3.64)")
        if rec["armored"] and r["side"] == "Axis" and not rec["army"]:
            raise DataError(str(p), ln, "army", "all Axis armored units are Army units (rule 2.22 B)")
        if (rec["hq"] or rec["range"] > 0) and rec["steps"] != 1:
            raise DataError(str(p), ln, "steps", "HQ and artillery units have one step (rule 3.42)")
        if r["side"] == "Axis" and not rec["army"] and not r["formation"]:
            raise DataError(str(p), ln, "formation", "an Axis unit is either in a formation or an Army unit (rule 4.32)")
        csvio.get_source(p, ln, r)
        rows.append(rec)
    units = make_units(rows)
    assert not check_steps(units)
    return units


def load_formations(data_dir=None) -> list:
    """Formations and AM counts from ``formations.csv`` (rules 4.3-4.5)."""
    from .terrain import SECTORS

    p = csvio.data_path("formations.csv", data_dir)
    out = []
    for ln, r in csvio.read_rows(p, ("side", "code", "name", "markers", "night_markers", "source")):
        side = csvio.get_choice(p, ln, r, "side", ("Axis", "Allied"))
        if side == "Allied" and r["code"] not in SECTORS:
            raise DataError(str(p), ln, "code", f"an Allied formation is a sector: one of {', '.join(SECTORS)} (rule 4.51)")
        out.append(FormationDef(0 if side == "Axis" else 1, r["code"], r["name"],
                                csvio.get_int(p, ln, r, "markers", 0, 9), csvio.get_int(p, ln, r, "night_markers", 0, 9),
                                csvio.get_source(p, ln, r)))
    return out


@dataclass
class Scenario:
    """A loaded Invasion: Malta scenario (static data of one game)."""

    settings: dict
    map: IMMap
    units: UnitTable
    formations: list
    weather_table: np.ndarray
    zones: dict                    # zone -> list of hex indices
    placement: dict                # unit index -> (group, hex index or -1, zone, turn)
    sources: dict = field(default_factory=dict)

    def setting(self, key, cast=str):
        try:
            return cast(self.settings[key])
        except KeyError:
            raise DataError("scenario settings", None, key, "missing setting") from None
        except ValueError:
            raise DataError("scenario settings", None, key, f"cannot read {self.settings[key]!r} as {cast.__name__}") from None


def load_scenario(name: str = "c3", data_dir=None) -> Scenario:
    """Load ``scenario_<name>.csv`` and ``scenario_<name>_setup.csv`` with the map and counters.

    Raises
    ------
    DataError
        Unknown unit ids, units placed twice, sea hexes, unknown zones, bad turns.
    """
    m = load_map(data_dir)
    units = load_units(data_dir)
    forms = load_formations(data_dir)
    wt = load_weather_table(data_dir)
    sp = csvio.data_path(f"scenario_{name}.csv", data_dir)
    settings = {}
    for ln, r in csvio.read_rows(sp, ("key", "value", "source")):
        csvio.get_source(sp, ln, r)
        settings[r["key"]] = r["value"]
    zp = csvio.data_path("invasion_zones.csv", data_dir)
    zones: dict = {}
    for ln, r in csvio.read_rows(zp, ("zone", "hex", "source")):
        if not (len(r["hex"]) == 4 and r["hex"].isdigit() and m.grid.contains(r["hex"]) and m.land[m.idx(r["hex"])]):
            raise DataError(str(zp), ln, "hex", f"{r['hex']!r} is not a land hex of the map")
        zones.setdefault(r["zone"], []).append(m.idx(r["hex"]))
    pp = csvio.data_path(f"scenario_{name}_setup.csv", data_dir)
    placement = {}
    turns = int(settings.get("turns", "0") or 0)
    for ln, r in csvio.read_rows(pp, ("unit", "group", "hex", "zone", "turn", "source")):
        if r["unit"] not in units.ids:
            raise DataError(str(pp), ln, "unit", f"unknown unit id {r['unit']!r} (not in units.csv)")
        k = units.ids.index(r["unit"])
        if k in placement:
            raise DataError(str(pp), ln, "unit", f"unit {r['unit']!r} placed twice")
        g = csvio.get_choice(pp, ln, r, "group", ("A", "B", "drop", "convoy", "airland", "card"))
        h = -1
        if g in ("A", "B", "drop"):
            if not (len(r["hex"]) == 4 and r["hex"].isdigit() and m.grid.contains(r["hex"]) and m.land[m.idx(r["hex"])]):
                raise DataError(str(pp), ln, "hex", f"{r['hex']!r} is not a land hex of the map")
            h = m.idx(r["hex"])
        if g == "convoy" and r["zone"] not in zones:
            raise DataError(str(pp), ln, "zone", f"unknown Invasion Zone {r['zone']!r}; known: {', '.join(sorted(zones))}")
        t = csvio.get_int(pp, ln, r, "turn", 1, max(1, turns))
        if g in ("A", "B") and units.side[k] != 1:
            raise DataError(str(pp), ln, "group", "set-up groups A and B are Allied (rule 4.14)")
        csvio.get_source(pp, ln, r)
        placement[k] = (g, h, r["zone"], t)
    return Scenario(settings, m, units, forms, wt, zones, placement)
