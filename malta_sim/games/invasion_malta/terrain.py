"""The Invasion: Malta map: hexes, hexsides and the Terrain Effects Chart values.

The map (rule 2.1) is a grid of hexes of about 630 yards with four-digit ids
``XXYY`` (column, row), see :mod:`.grid` (odd columns half a hex lower on this
map, direction order N, NE, SE, S, SW, NW).  Movement costs are kept in
**half movement points** (hmp, ``int``) because Axis road movement costs 1/2 MP
(rule 8.33).

Hex arrays (``n = grid.n_hexes``)::

    land      bool[n]   hex is (at least partly) land
    rough     bool[n]   natural terrain includes rough (rule 8.31)
    urban     bool[n]   urban (rule 8.34; urban wins over rough in one hex)
    airfield  bool[n]   airfield (rule 8.33: motorized units may enter)
    fort      bool[n]   fort (rule 3.25 ZOC, 6.22 supply, 8.37 no MP effect)
    beach     bool[n]   beach hex (amphibious landings, reconstructed)
    sector    int8[n]   Allied sector index (rule 4.51), -1 off the island

Hexside arrays ``[n, 6]`` (the side of hex ``i`` in direction ``d``)::

    road      int8      0 none, 1 minor road, 2 main road (rule 8.33)
    cliff     bool      cliff hexside (rule 8.35)
    slope_up  bool      crossing from i to its neighbour d goes up a slope (rule 8.36)
    water     bool      all-sea hexside (rule 8.35), including any side touching a sea hex or the grid's edge
                        (so a side that is not water joins two land hexes; movement, ZOC and supply rely on it)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import DataError
from ...hexgrid import parse_hex
from .grid import IMGrid as Grid, direction_between
from . import csvio

#: Natural terrain types of ``hexes.csv``.
TERRAINS = ("sea", "clear", "rough", "urban")
#: Hexside features of ``hexsides.csv``.
HEXSIDE_FEATURES = ("road_main", "road_minor", "cliff", "slope", "sea")
#: Names of the three Allied sectors (rule 4.51; "Central" and "Western" are printed on AMs, 2.25).
SECTORS = ("Western", "Central", "Southern")

# --- Terrain Effects Chart, in half-MPs ------------------------------------------------------------
#: Clear hex: 1 MP (rule 8.31 example).
COST_CLEAR = 2
#: Rough hex: 2 MP (rule 8.31 example).
COST_ROUGH = 4
#: Urban hex entered from a non-urban hex off-road: 1 MP (reconstructed TEC value; rule 8.34 prints no number).
COST_URBAN = 2
#: Airfield hex off-road: 1 MP (reconstructed TEC value).
COST_AIRFIELD = 2
#: Uphill slope hexside: +1 MP (rule 8.36).
COST_SLOPE = 2
#: Entering an enemy ZOC: +1 MP (rule 8.21).
COST_ZOC = 2
#: Road along a road hexside: 1/2 MP (rule 8.33, Axis always; Allied at night or in storm).
COST_ROAD_HALF = 1
#: Road for Allied units on Day turns out of storm: 1 MP (rule 8.33, TEC note (a)).
COST_ROAD_ALLIED_DAY = 2


@dataclass
class IMMap:
    """Static Invasion: Malta map (read-only during play).  See the module docstring."""

    grid: Grid
    land: np.ndarray
    rough: np.ndarray
    urban: np.ndarray
    airfield: np.ndarray
    fort: np.ndarray
    beach: np.ndarray
    sector: np.ndarray
    road: np.ndarray
    cliff: np.ndarray
    slope_up: np.ndarray
    water: np.ndarray
    names: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.grid.n_hexes

    @property
    def nbr(self) -> np.ndarray:
        """Neighbour table ``int32[n, 6]`` (-1 off the grid)."""
        return self.grid.neighbour_table

    def idx(self, hex_id: str) -> int:
        """Dense index of a hex id (raises OptionError if off the map)."""
        return self.grid.index(hex_id)

    def hid(self, i: int) -> str:
        """Hex id of a dense index."""
        return self.grid.hex_id(int(i))

    def coastal(self) -> np.ndarray:
        """``bool[n]``: land hexes with at least one water hexside (Beachhead hexes, rule 6.31)."""
        return self.land & self.water.any(axis=1)

    def terrain_cost(self, j: int) -> int:
        """Off-road cost (hmp) to enter hex ``j``: the highest natural terrain (rule 8.31);
        urban replaces rough (rule 8.34); fort and other features add nothing (rule 8.37)."""
        if self.urban[j]:
            return COST_URBAN
        if self.rough[j]:
            return COST_ROUGH
        if self.airfield[j]:
            return COST_AIRFIELD
        return COST_CLEAR


def empty_map(grid: Grid) -> IMMap:
    """An all-sea map on ``grid`` (every hexside water), to be filled by :func:`build_map`."""
    n = grid.n_hexes
    z = lambda dt: np.zeros(n, dtype=dt)  # noqa: E731
    zz = lambda dt: np.zeros((n, 6), dtype=dt)  # noqa: E731
    return IMMap(grid, z(bool), z(bool), z(bool), z(bool), z(bool), z(bool), np.full(n, -1, np.int8),
                 zz(np.int8), zz(bool), zz(bool), np.ones((n, 6), dtype=bool))


def build_map(grid: Grid, hexes: list[dict], hexsides: list[dict]) -> IMMap:
    """Build an :class:`IMMap` from plain records (used by the loader and by tests).

    Parameters
    ----------
    grid : Grid
        The hex block.
    hexes : list of dict
        ``{"hex": "XXYY", "terrain": "clear"|"rough"|"urban"|"sea", "rough": bool,
        "airfield": bool, "fort": bool, "beach": bool, "sector": str, "name": str}``;
        hexes not listed are sea.
    hexsides : list of dict
        ``{"hex_a", "hex_b", "feature", "high"}``; ``feature`` one of
        :data:`HEXSIDE_FEATURES`, ``high`` the upper hex for ``slope``.

    Returns
    -------
    IMMap
    """
    m = empty_map(grid)
    nbr = grid.neighbour_table
    for h in hexes:
        i = grid.index(h["hex"])
        t = h.get("terrain", "clear")
        if t == "sea":
            continue
        m.land[i] = True
        m.urban[i] = t == "urban"
        m.rough[i] = t == "rough" or bool(h.get("rough", False))
        m.airfield[i] = bool(h.get("airfield", False))
        m.fort[i] = bool(h.get("fort", False))
        m.beach[i] = bool(h.get("beach", False))
        sec = h.get("sector", "")
        m.sector[i] = SECTORS.index(sec) if sec in SECTORS else -1
        if h.get("name"):
            m.names[h["hex"]] = h["name"]
    # a hexside is water when either side is sea or off the grid (rule 8.35)
    for i in range(m.n):
        for d in range(6):
            j = nbr[i, d]
            m.water[i, d] = not (m.land[i] and j >= 0 and m.land[j])
    for s in hexsides:
        a, b = grid.index(s["hex_a"]), grid.index(s["hex_b"])
        d = direction_between(s["hex_a"], s["hex_b"])
        e = (d + 3) % 6
        f = s["feature"]
        if f in ("road_main", "road_minor"):
            m.road[a, d] = m.road[b, e] = 2 if f == "road_main" else 1
        elif f == "cliff":
            m.cliff[a, d] = m.cliff[b, e] = True
        elif f == "slope":
            hi = s.get("high", "")
            if hi == s["hex_b"]:
                m.slope_up[a, d] = True
            elif hi == s["hex_a"]:
                m.slope_up[b, e] = True
            else:
                raise ValueError(f"slope {s['hex_a']}-{s['hex_b']}: high must name one of the two hexes")
        elif f == "sea":
            m.water[a, d] = m.water[b, e] = True
    return m


MAP_FILES = ("map.toml", "hexes.csv", "hexsides.csv")


def load_map(data_dir: str | Path | None = None) -> IMMap:
    """Load ``hexes.csv`` and ``hexsides.csv`` (and the grid bounds in ``map_grid.csv``).

    Parameters
    ----------
    data_dir : path, optional
        Folder with the Invasion: Malta data (default: packaged data).

    Returns
    -------
    IMMap

    Raises
    ------
    DataError
        For any malformed row (file, line, field named).
    """
    gp = csvio.data_path("map_grid.csv", data_dir)
    rows = csvio.read_rows(gp, ("col_min", "col_max", "row_min", "row_max", "source"))
    if len(rows) != 1:
        raise DataError(str(gp), None, None, "expected exactly one data row")
    ln, r = rows[0]
    grid = Grid(*(csvio.get_int(gp, ln, r, k, 0, 99) for k in ("col_min", "col_max", "row_min", "row_max")))
    hp = csvio.data_path("hexes.csv", data_dir)
    hexes = []
    seen = set()
    for ln, r in csvio.read_rows(hp, ("hex", "terrain", "rough", "airfield", "fort", "beach", "sector", "name", "source")):
        h = r["hex"]
        try:
            parse_hex(h)
            if not grid.contains(h):
                raise ValueError
        except Exception:
            raise DataError(str(hp), ln, "hex", f"{h!r} is not a hex id on the map grid") from None
        if h in seen:
            raise DataError(str(hp), ln, "hex", f"hex {h} listed twice")
        seen.add(h)
        t = csvio.get_choice(hp, ln, r, "terrain", TERRAINS)
        if r["sector"] and r["sector"] not in SECTORS:
            raise DataError(str(hp), ln, "sector", f"{r['sector']!r} is not one of {', '.join(SECTORS)}")
        csvio.get_source(hp, ln, r)
        hexes.append(dict(hex=h, terrain=t, rough=csvio.get_bool(hp, ln, r, "rough"),
                          airfield=csvio.get_bool(hp, ln, r, "airfield"), fort=csvio.get_bool(hp, ln, r, "fort"),
                          beach=csvio.get_bool(hp, ln, r, "beach"), sector=r["sector"], name=r["name"]))
    sp = csvio.data_path("hexsides.csv", data_dir)
    sides = []
    for ln, r in csvio.read_rows(sp, ("hex_a", "hex_b", "feature", "high", "source")):
        for k in ("hex_a", "hex_b"):
            if not (len(r[k]) == 4 and r[k].isdigit() and grid.contains(r[k]) and r[k] in seen):
                raise DataError(str(sp), ln, k, f"{r[k]!r} is not a land hex of hexes.csv")
        try:
            direction_between(r["hex_a"], r["hex_b"])
        except Exception:
            raise DataError(str(sp), ln, "hex_b", f"{r['hex_a']} and {r['hex_b']} are not adjacent") from None
        csvio.get_choice(sp, ln, r, "feature", HEXSIDE_FEATURES)
        if r["feature"] == "slope" and r["high"] not in (r["hex_a"], r["hex_b"]):
            raise DataError(str(sp), ln, "high", "a slope must name its upper hex (hex_a or hex_b)")
        csvio.get_source(sp, ln, r)
        sides.append(r)
    return build_map(grid, hexes, sides)
