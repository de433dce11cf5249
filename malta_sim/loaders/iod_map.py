"""The Island of Death map: hexes, hexsides, Terrain Effects Chart, beach zones
and their wave boxes, named places -- validated, then compiled into dense arrays.

Files (in the data directory, default the packaged ``malta_sim/data/island_of_death``;
docs/map.md describes every field):

``terrain_effects.csv``
    The Terrain Effects Chart (rule 2.4): one row per hex terrain (``kind=hex``:
    clear, woods, town, city, fort, airfield, beach, coastal, ocean) and per
    hexside feature (``kind=hexside``: road, creek, creek_rise, ocean).
``hexes.csv``
    One row per hex of :data:`malta_sim.hexgrid.IOD_GRID`: primary terrain, flags
    ``woods town city fort airfield beach coastal`` (0/1), ``port`` (empty, ``main``,
    ``minor``), ``beach_zone`` (empty or North/South/East/West), ``land_fraction``,
    ``name``, ``source``.
``hexsides.csv``
    ``hex, direction (N NE SE S SW NW), feature (road creek creek_rise ocean), source``;
    each hexside may be listed from either of its hexes; the loader mirrors it.
``beach_zones.csv``
    ``zone, follow_up_box, source`` (rule 18.1).
``beach_boxes.csv``
    ``box, zone, wave (first|second), beach_hex, source`` (rule 18.1).
``places.csv``
    ``name, kind, hex, code, lat, lon, source``: named places (kinds city, town,
    airfield, fort, port_main, port_minor, woods, ammo_point).

Dense arrays use the dense hex index of :class:`malta_sim.hexgrid.Grid`
(``idx = (col - 1) * 20 + (row - 1)`` on the 26 x 20 grid) and the direction
order N, NE, SE, S, SW, NW.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataError
from ..hexgrid import DIRECTION_NAMES, IOD_GRID, Grid, direction_between, neighbour
from .common import Col, Collector, hash_files, read_csv, resolve_data_dir, source_col

#: Hex terrain codes (index into ``MapData.terrain_names`` and the TEC arrays).
HEX_TERRAINS: tuple[str, ...] = ("clear", "woods", "town", "city", "fort", "airfield", "beach", "coastal", "ocean")
#: Hexside features, in bit order of ``MapData.hexside`` (bit value ``1 << i``).
HEXSIDE_FEATURES: tuple[str, ...] = ("road", "creek", "creek_rise", "ocean")
SIDE_ROAD, SIDE_CREEK, SIDE_RISE, SIDE_OCEAN = 1, 2, 4, 8
#: Movement classes (rule 6.12), the columns of the cost arrays.
MOVE_CLASSES: tuple[str, ...] = ("foot", "mot", "mech")
FOOT, MOT, MECH = 0, 1, 2
#: Cost of a prohibited move (``P`` on the TEC).
PROHIBITED = np.float32(np.inf)
#: Beach zones of the Planning Map (rule 18.1), code order.
ZONES: tuple[str, ...] = ("North", "South", "East", "West")
WAVES: tuple[str, ...] = ("first", "second")
#: Port codes of ``MapData.port``.
PORT_NONE, PORT_MINOR, PORT_MAIN = 0, 1, 2
PLACE_KINDS = ("city", "town", "airfield", "fort", "port_main", "port_minor", "woods", "ammo_point", "landmark")
#: Hex flag columns of hexes.csv.
FLAG_COLUMNS: tuple[str, ...] = ("woods", "town", "city", "fort", "airfield", "beach", "coastal")
#: Default CRT line ranks (most favourable to the defender = highest), used when
#: the chart file ``crt_lines.csv`` is absent (rule 9.3 f).
DEFAULT_LINE_RANK = {"all_other_terrains": 0, "woods_town": 1, "city_fort": 2}

HEX_PATTERN = r"\d{4}"


def _cost_col() -> Col:
    return Col(str, pattern=r"P|\d+(\.\d+)?")


def _opt_cost_col() -> Col:
    return Col(str, required=False, default="", pattern=r"P|\d+(\.\d+)?")


def _flag() -> Col:
    return Col(int, min=0, max=1)


def _cost(text: str) -> float:
    return float(PROHIBITED) if text == "P" else float(text)


@dataclass(frozen=True)
class MapData:
    """The Island of Death map, as tables and dense arrays.

    Tables (pandas): ``hexes`` (index ``hex``), ``hexsides`` (both sides of every
    hexside, one row per side and feature, ``mirrored`` True for rows the loader
    added), ``terrain_effects``, ``beach_zones``, ``beach_boxes``, ``places``.

    Arrays (``n`` = ``grid.n_hexes`` = 520; index = dense hex index):

    ========================  =====================  ==========================================
    name                      dtype / shape          meaning
    ========================  =====================  ==========================================
    terrain                   int8[n]                primary terrain code (``HEX_TERRAINS``)
    terrain_mask              bool[n, n_terrains]    every terrain the hex contains (rule 6.11)
    ocean, land               bool[n]                ocean hex / any non-ocean hex
    woods .. coastal          bool[n]                hex flags
    port                      int8[n]                0 none, 1 Minor Port, 2 Main Port (rule 12.54)
    beach_zone                int8[n]                zone code (``ZONES``) of a beach hex, else -1
    neighbours                int32[n, 6]            neighbour index, -1 off the map
    hexside                   int8[n, 6]             bit mask of hexside features (``SIDE_*``)
    side_road .. side_ocean   bool[n, 6]             one feature per array
    tec_cost                  float32[n_terr, 3]     normal MP per hex terrain and class (rule 6.3)
    tec_cost_strategic        float32[n_terr, 3]     strategic MP (rule 6.2)
    side_cost                 float32[4, 3]          hexside feature cost (road: replaces; creek,
                                                     creek_rise: added; ocean: prohibited)
    side_cost_strategic       float32[4, 3]
    hex_cost                  float32[n, 3]          MP to enter the hex off road (rule 6.11)
    hex_cost_strategic        float32[n, 3]
    edge_cost                 float32[n, 6, 3]       MP to move from a hex across a side into the
                                                     neighbour (road, creek, ocean applied); inf
                                                     when prohibited or off the map
    edge_cost_strategic       float32[n, 6, 3]
    zoc_across                bool[n, 6, 2]          ZOC of a [foot, mot/mech] unit extends across
                                                     the side (rule 5.0)
    supply_across             bool[n, 6]             a supply route may cross (rule 8.2)
    crt_line                  int8[n]                day CRT line index (``crt_line_names``) most
                                                     favourable to the defender (rule 9.3 f), -1 ocean
    artillery_halved          bool[n]                rule 9.91 (town, city)
    defense_doubled           bool[n]                rule 9.91 (city, fort)
    defender_hits_minus       int8[n]                rule 9.94 (fort)
    bombard_shift             int8[n]                rule 10.12 (fort -1)
    blocks_line_of_fire       bool[n]                rule 16.54 (hex part)
    side_blocks_line_of_fire  bool[n, 6]             rule 16.54 (Creek with Rise hexside)
    blocks_discovery          bool[n]                rule 10.11 (town, city, woods)
    drop_loss_drm             int8[n]                rule 19.46 (woods, town, city, fort)
    ========================  =====================  ==========================================

    Boxes (rule 18.1): ``box_ids`` tuple, ``box_zone`` int8[n_boxes], ``box_wave``
    int8[n_boxes] (0 first, 1 second), ``box_beach`` int32[n_boxes] (dense hex
    index), ``follow_up_boxes`` tuple (one per zone, ``ZONES`` order).

    Places: ``cities``, ``towns``, ``airfields``, ``forts``, ``main_ports``,
    ``minor_ports``, ``beaches`` (tuples of hex ids, sorted), ``airfield_codes``
    (hex -> RAF company code), ``ammo_points`` (rule 12.56), ``place_names``
    (hex -> name).
    """

    grid: Grid
    data_dir: Path
    data_hash: str
    hexes: pd.DataFrame
    hexsides: pd.DataFrame
    terrain_effects: pd.DataFrame
    beach_zones: pd.DataFrame
    beach_boxes: pd.DataFrame
    places: pd.DataFrame
    terrain_names: tuple
    terrain: np.ndarray
    terrain_mask: np.ndarray
    ocean: np.ndarray
    land: np.ndarray
    woods: np.ndarray
    town: np.ndarray
    city: np.ndarray
    fort: np.ndarray
    airfield: np.ndarray
    beach: np.ndarray
    coastal: np.ndarray
    port: np.ndarray
    beach_zone: np.ndarray
    neighbours: np.ndarray
    hexside: np.ndarray
    side_road: np.ndarray
    side_creek: np.ndarray
    side_rise: np.ndarray
    side_ocean: np.ndarray
    tec_cost: np.ndarray
    tec_cost_strategic: np.ndarray
    side_cost: np.ndarray
    side_cost_strategic: np.ndarray
    hex_cost: np.ndarray
    hex_cost_strategic: np.ndarray
    edge_cost: np.ndarray
    edge_cost_strategic: np.ndarray
    zoc_across: np.ndarray
    supply_across: np.ndarray
    crt_line_names: tuple
    crt_line: np.ndarray
    artillery_halved: np.ndarray
    defense_doubled: np.ndarray
    defender_hits_minus: np.ndarray
    bombard_shift: np.ndarray
    blocks_line_of_fire: np.ndarray
    side_blocks_line_of_fire: np.ndarray
    blocks_discovery: np.ndarray
    drop_loss_drm: np.ndarray
    box_ids: tuple
    box_zone: np.ndarray
    box_wave: np.ndarray
    box_beach: np.ndarray
    follow_up_boxes: tuple
    cities: tuple
    towns: tuple
    airfields: tuple
    forts: tuple
    main_ports: tuple
    minor_ports: tuple
    beaches: tuple
    airfield_codes: dict = field(default_factory=dict)
    ammo_points: tuple = ()
    place_names: dict = field(default_factory=dict)

    @property
    def n_hexes(self) -> int:
        return self.grid.n_hexes

    def index(self, hex_id: str) -> int:
        """Dense index of a hex id (``OptionError`` off the map)."""
        return self.grid.index(hex_id)

    def terrain_of(self, hex_id: str) -> str:
        """Primary terrain name of a hex."""
        return self.terrain_names[int(self.terrain[self.index(hex_id)])]

    def beach_hexes(self, zone: str) -> tuple:
        """Beach hexes of a zone (rule 18.1), sorted."""
        z = ZONES.index(zone)
        return tuple(sorted(self.grid.hex_id(int(i)) for i in np.flatnonzero(self.beach_zone == z)))

    def boxes_for(self, zone: str, wave: str) -> list[tuple[str, str]]:
        """``(box, beach_hex)`` pairs of a zone's First or Second Wave boxes."""
        z = ZONES.index(zone)
        w = WAVES.index(wave)
        return [(b, self.grid.hex_id(int(self.box_beach[i]))) for i, b in enumerate(self.box_ids)
                if self.box_zone[i] == z and self.box_wave[i] == w]

    def move_cost(self, from_hex: str, to_hex: str, move_class: str = "foot", strategic: bool = False) -> float:
        """MP to move from a hex into an adjacent one (rules 6.11, 6.2, 6.3).

        Returns ``inf`` when the move is prohibited.
        """
        d = direction_between(from_hex, to_hex)
        arr = self.edge_cost_strategic if strategic else self.edge_cost
        return float(arr[self.index(from_hex), d, MOVE_CLASSES.index(move_class)])


# ---------------------------------------------------------------------------


def _rel(folder: Path, name: str) -> str:
    return str(folder / name)


def _read_tec(folder: Path, col: Collector | None):
    f = _rel(folder, "terrain_effects.csv")
    spec = {
        "terrain": Col(str, pattern=r"[a-z_]+"),
        "kind": Col(str, choices=("hex", "hexside")),
        "foot": _cost_col(), "mot": _cost_col(), "mech": _cost_col(),
        "foot_strategic": _opt_cost_col(), "mot_strategic": _opt_cost_col(), "mech_strategic": _opt_cost_col(),
        "cost_mode": Col(str, choices=("replace", "add", "none")),
        "crt_line": Col(str, pattern=r"[a-z0-9_]+"),
        "artillery_halved": _flag(), "defense_doubled": _flag(),
        "defender_hits_minus": Col(int, min=0, max=3),
        "bombard_shift": Col(int, min=-3, max=3),
        "blocks_line_of_fire": _flag(), "blocks_discovery": _flag(),
        "drop_loss_drm": Col(int, min=-3, max=3),
        "zoc_foot": _flag(), "zoc_motmech": _flag(),
        "source": source_col(),
    }
    rows = read_csv(f, spec, unique=["terrain", "kind"])
    have = {(r.terrain, r.kind): r for r in rows}
    for r in rows:
        known = HEX_TERRAINS if r.kind == "hex" else HEXSIDE_FEATURES
        if r.terrain not in known:
            raise DataError(f, r.line, "terrain", f"unknown {r.kind} terrain {r.terrain!r}; expected one of: "
                            f"{', '.join(known)}")
    for names, kind in ((HEX_TERRAINS, "hex"), (HEXSIDE_FEATURES, "hexside")):
        for t in names:
            if (t, kind) not in have:
                raise DataError(f, None, "terrain", f"the Terrain Effects Chart has no row for {kind} {t!r}")
    return rows, have


def _line_ranks(folder: Path) -> dict[str, int]:
    p = folder / "crt_lines.csv"
    if p.is_file():
        try:
            rows = read_csv(p, {"line": Col(str), "time": Col(str), "defender_rank": Col(int)})
            return {r["line"]: r.defender_rank for r in rows if r.time == "day"}
        except DataError:
            pass
    return dict(DEFAULT_LINE_RANK)


def load_map(data_dir: str | Path | None = None, grid: Grid = IOD_GRID) -> MapData:
    """Read and validate the map files and compile them into :class:`MapData`.

    Parameters
    ----------
    data_dir : path, optional
        Data directory; the packaged Island of Death data when ``None``.
    grid : Grid
        The hex block (default :data:`malta_sim.hexgrid.IOD_GRID`, 26 x 20).

    Returns
    -------
    MapData

    Raises
    ------
    DataError
        The first problem, naming file, line and field: missing file or column,
        bad ``source``, malformed or off-map hex id, duplicate or missing hex,
        unknown terrain, terrain inconsistent with its flags, unknown hexside
        direction or feature, inconsistent hexside (features that exclude each
        other, a road or creek into an ocean hex, a side off the map), a wave box
        connected to a non-beach hex or to a beach of another zone, a beach hex
        without its First and Second Wave boxes, a place on a hex without that
        feature.
    """
    folder = resolve_data_dir(data_dir)
    tec_rows, tec = _read_tec(folder, None)
    hx = _read_hexes(folder, grid)
    sides = _read_hexsides(folder, grid, hx)
    zones, boxes = _read_beaches(folder, grid, hx)
    places = _read_places(folder, grid, hx)
    return _compile(folder, grid, tec_rows, tec, hx, sides, zones, boxes, places)


def check_map(data_dir: str | Path | None = None, grid: Grid = IOD_GRID) -> list[DataError]:
    """Validate the map files and return every problem found (empty when valid).

    Each file is read independently, so one broken file does not hide problems
    in another; within one file the first problem is reported.
    """
    col = Collector()
    try:
        folder = resolve_data_dir(data_dir)
    except DataError as e:
        return [e]
    col.run(lambda: _read_tec(folder, None))
    hx = col.run(lambda: _read_hexes(folder, grid))
    if hx is not None:
        col.run(lambda: _read_hexsides(folder, grid, hx))
        col.run(lambda: _read_beaches(folder, grid, hx))
        col.run(lambda: _read_places(folder, grid, hx))
    if not col.errors:
        col.run(lambda: load_map(folder, grid))
    return col.errors


def _hex_check(grid: Grid):
    def check(v: str) -> str | None:
        if len(v) != 4 or not v.isdigit():
            return f"unknown hex id {v!r}: expected four digits XXYY (column, row)"
        if not grid.contains(v):
            return (f"hex {v} is off the map (columns {grid.col_min:02d}-{grid.col_max:02d}, "
                    f"rows {grid.row_min:02d}-{grid.row_max:02d})")
        return None
    return check


def _hex_col(grid: Grid, required: bool = True) -> Col:
    return Col(str, required=required, default="", check=_hex_check(grid))


def _read_hexes(folder: Path, grid: Grid) -> dict:
    f = _rel(folder, "hexes.csv")
    spec = {"hex": _hex_col(grid), "terrain": Col(str, choices=HEX_TERRAINS)}
    for c in FLAG_COLUMNS:
        spec[c] = _flag()
    spec.update({
        "port": Col(str, required=False, default="", choices=("", "main", "minor")),
        "beach_zone": Col(str, required=False, default="", choices=("",) + ZONES),
        "land_fraction": Col(float, required=False, default=0.0, min=0.0, max=1.0),
        "name": Col(str, required=False, default=""),
        "source": source_col(),
    })
    rows = read_csv(f, spec, unique=["hex"])
    out = {}
    for r in rows:
        t = r.terrain
        flags = {c for c in FLAG_COLUMNS if r[c]}
        if t == "ocean":
            if flags or r.port or r.beach_zone:
                raise DataError(f, r.line, "terrain", f"ocean hex {r.hex} cannot carry land features "
                                f"({', '.join(sorted(flags)) or 'port/beach zone'})")
        elif t != "clear" and t not in flags:
            raise DataError(f, r.line, t, f"terrain is {t!r} but the {t} flag is 0")
        if r.beach and not r.beach_zone:
            raise DataError(f, r.line, "beach_zone", f"beach hex {r.hex} needs a beach zone (North/South/East/West)")
        if r.beach_zone and not r.beach:
            raise DataError(f, r.line, "beach", f"hex {r.hex} has beach zone {r.beach_zone} but beach is 0")
        out[r.hex] = r
    missing = [h for h in grid.hex_ids if h not in out]
    if missing:
        raise DataError(f, None, "hex", f"{len(missing)} hexes of the map are not listed (first {missing[0]}); "
                        "every hex of the grid needs a row (terrain ocean for sea)")
    return out


def _read_hexsides(folder: Path, grid: Grid, hx: dict) -> dict:
    f = _rel(folder, "hexsides.csv")
    rows = read_csv(f, {
        "hex": _hex_col(grid),
        "direction": Col(str, choices=DIRECTION_NAMES),
        "feature": Col(str, choices=HEXSIDE_FEATURES),
        "source": source_col(),
    })
    sides: dict[tuple[str, str], dict[str, tuple[int, str, bool]]] = {}
    listed: dict[tuple[str, str], dict[str, set]] = {}
    for r in rows:
        d = DIRECTION_NAMES.index(r.direction)
        n = neighbour(r.hex, d)
        if n is None or not grid.contains(n):
            raise DataError(f, r.line, "direction", f"inconsistent hexside: {r.hex} {r.direction} leads off the map")
        if r.feature != "ocean" and (hx[r.hex].terrain == "ocean" or hx[n].terrain == "ocean"):
            raise DataError(f, r.line, "feature", f"inconsistent hexside: a {r.feature} between {r.hex} and {n} "
                            "touches an ocean hex")
        key = (min(r.hex, n), max(r.hex, n))
        listed.setdefault(key, {}).setdefault(r.hex, set()).add((r.feature, r.line))
        feats = sides.setdefault(key, {})
        feats.setdefault(r.feature, (r.line, r.source, r.hex == key[0]))
        if "creek" in feats and "creek_rise" in feats:
            raise DataError(f, r.line, "feature", f"inconsistent hexside {key[0]}-{key[1]}: both creek and "
                            f"creek_rise (lines {feats['creek'][0]} and {feats['creek_rise'][0]})")
        if "ocean" in feats and len(feats) > 1:
            other = [k for k in feats if k != "ocean"][0]
            raise DataError(f, r.line, "feature", f"inconsistent hexside {key[0]}-{key[1]}: all-ocean and "
                            f"{other} on the same side (lines {feats['ocean'][0]} and {feats[other][0]})")
    # a hexside listed from both of its hexes must carry the same features on both
    for (a, b), by_hex in listed.items():
        if len(by_hex) == 2:
            fa = {ft for ft, _ in by_hex[a]}
            fb = {ft for ft, _ in by_hex[b]}
            if fa != fb:
                line = max(ln for ft, ln in by_hex[a] | by_hex[b])
                raise DataError(f, line, "feature", f"inconsistent hexside {a}-{b}: listed from {a} as "
                                f"{', '.join(sorted(fa))} but from {b} as {', '.join(sorted(fb))}")
    return sides


def _read_beaches(folder: Path, grid: Grid, hx: dict):
    fz = _rel(folder, "beach_zones.csv")
    zrows = read_csv(fz, {"zone": Col(str, choices=ZONES), "follow_up_box": Col(str), "source": source_col()},
                     unique=["zone"])
    zones = {r.zone: r for r in zrows}
    for z in ZONES:
        if z not in zones:
            raise DataError(fz, None, "zone", f"beach zone {z} is missing (rule 18.1 names four)")
    fb = _rel(folder, "beach_boxes.csv")
    brows = read_csv(fb, {
        "box": Col(str), "zone": Col(str, choices=ZONES), "wave": Col(str, choices=WAVES),
        "beach_hex": _hex_col(grid), "source": source_col(),
    }, unique=["box"])
    seen: dict[tuple[str, str], int] = {}
    fu = {r.follow_up_box for r in zrows}
    for r in brows:
        if r.box in fu:
            raise DataError(fb, r.line, "box", f"box id {r.box!r} is also a Follow-up box")
        h = hx[r.beach_hex]
        if not h.beach:
            raise DataError(fb, r.line, "beach_hex", f"wave box {r.box} is connected to {r.beach_hex}, "
                            f"which is not a beach hex (terrain {h.terrain})")
        if h.beach_zone != r.zone:
            raise DataError(fb, r.line, "beach_hex", f"wave box {r.box} of the {r.zone} zone is connected to "
                            f"{r.beach_hex}, a beach of the {h.beach_zone} zone")
        seen[(r.beach_hex, r.wave)] = r.line
    fh = _rel(folder, "hexes.csv")
    for hid, h in hx.items():
        if h.beach:
            for w in WAVES:
                if (hid, w) not in seen:
                    raise DataError(fh, h.line, "beach", f"beach hex {hid} has no {w} wave box in beach_boxes.csv "
                                    "(rule 18.1)")
    return zrows, brows


def _read_places(folder: Path, grid: Grid, hx: dict):
    f = _rel(folder, "places.csv")
    rows = read_csv(f, {
        "name": Col(str), "kind": Col(str, choices=PLACE_KINDS), "hex": _hex_col(grid),
        "code": Col(str, required=False, default=""),
        "lat": Col(float, required=False, default=float("nan")),
        "lon": Col(float, required=False, default=float("nan")),
        "source": source_col(),
    })
    need = {"city": "city", "town": "town", "airfield": "airfield", "fort": "fort", "woods": "woods"}
    for r in rows:
        h = hx[r.hex]
        if r.kind in need and not h[need[r.kind]]:
            raise DataError(f, r.line, "hex", f"{r.kind} {r.name!r} is on {r.hex}, which has no {r.kind} flag")
        if r.kind == "port_main" and h.port != "main":
            raise DataError(f, r.line, "hex", f"Main Port {r.name!r} is on {r.hex}, whose port is {h.port!r}")
        if r.kind == "port_minor" and h.port != "minor":
            raise DataError(f, r.line, "hex", f"Minor Port {r.name!r} is on {r.hex}, whose port is {h.port!r}")
        if r.kind == "ammo_point" and h.terrain == "ocean":
            raise DataError(f, r.line, "hex", f"ammunition point {r.hex} is an ocean hex (rule 12.56)")
    return rows


def _compile(folder, grid, tec_rows, tec, hx, sides, zones, boxes, places) -> MapData:
    n = grid.n_hexes
    nt = len(HEX_TERRAINS)
    tec_cost = np.zeros((nt, 3), np.float32)
    tec_cost_s = np.zeros((nt, 3), np.float32)
    for i, t in enumerate(HEX_TERRAINS):
        r = tec[(t, "hex")]
        for k, c in enumerate(MOVE_CLASSES):
            tec_cost[i, k] = _cost(r[c])
            s = r[f"{c}_strategic"]
            tec_cost_s[i, k] = _cost(s) if s else tec_cost[i, k]
    side_cost = np.zeros((len(HEXSIDE_FEATURES), 3), np.float32)
    side_cost_s = np.zeros_like(side_cost)
    for i, t in enumerate(HEXSIDE_FEATURES):
        r = tec[(t, "hexside")]
        for k, c in enumerate(MOVE_CLASSES):
            side_cost[i, k] = _cost(r[c])
            s = r[f"{c}_strategic"]
            side_cost_s[i, k] = _cost(s) if s else side_cost[i, k]

    ranks = _line_ranks(folder)
    line_names = tuple(sorted({tec[(t, "hex")].crt_line for t in HEX_TERRAINS if t != "ocean"},
                              key=lambda x: (ranks.get(x, 0), x)))

    terrain = np.zeros(n, np.int8)
    tmask = np.zeros((n, nt), bool)
    flags = {c: np.zeros(n, bool) for c in FLAG_COLUMNS}
    port = np.zeros(n, np.int8)
    bzone = np.full(n, -1, np.int8)
    names = {}
    for hid, r in hx.items():
        i = grid.index(hid)
        terrain[i] = HEX_TERRAINS.index(r.terrain)
        for c in FLAG_COLUMNS:
            flags[c][i] = bool(r[c])
            if r[c]:
                tmask[i, HEX_TERRAINS.index(c)] = True
        tmask[i, HEX_TERRAINS.index(r.terrain)] = True
        if r.terrain != "ocean" and not (tmask[i] & np.isin(np.arange(nt), [1, 2, 3, 4, 5, 6])).any():
            tmask[i, HEX_TERRAINS.index("clear")] = True
        port[i] = {"": PORT_NONE, "minor": PORT_MINOR, "main": PORT_MAIN}[r.port]
        if r.beach_zone:
            bzone[i] = ZONES.index(r.beach_zone)
        if r.name:
            names[hid] = r.name
    ocean = terrain == HEX_TERRAINS.index("ocean")

    # hex entry cost, rule 6.11: the most expensive terrain in the hex, unless it has a town or city
    hex_cost = np.full((n, 3), PROHIBITED, np.float32)
    hex_cost_s = np.full((n, 3), PROHIBITED, np.float32)
    it, ic = HEX_TERRAINS.index("town"), HEX_TERRAINS.index("city")
    for i in range(n):
        if ocean[i]:
            continue
        if tmask[i, ic] or tmask[i, it]:
            present = [j for j in (ic, it) if tmask[i, j]]
        else:
            present = list(np.flatnonzero(tmask[i]))
        hex_cost[i] = tec_cost[present].max(axis=0)
        hex_cost_s[i] = tec_cost_s[present].max(axis=0)

    nb = grid.neighbour_table
    hexside = np.zeros((n, 6), np.int8)
    for (a, b), feats in sides.items():
        ia, ib = grid.index(a), grid.index(b)
        d = direction_between(a, b)
        bits = 0
        for ft in feats:
            bits |= 1 << HEXSIDE_FEATURES.index(ft)
        hexside[ia, d] |= bits
        hexside[ib, (d + 3) % 6] |= bits
    side_road = (hexside & SIDE_ROAD) != 0
    side_creek = (hexside & SIDE_CREEK) != 0
    side_rise = (hexside & SIDE_RISE) != 0
    side_ocean = (hexside & SIDE_OCEAN) != 0

    def edges(hc, sc):
        out = np.full((n, 6, 3), PROHIBITED, np.float32)
        for i in range(n):
            if ocean[i]:
                continue
            for d in range(6):
                j = nb[i, d]
                if j < 0 or ocean[j] or side_ocean[i, d]:
                    continue
                if side_road[i, d]:
                    out[i, d] = sc[0]  # rule 6.11 / 6.51: the road cost replaces all else
                    continue
                c = hc[j].copy()
                if side_creek[i, d]:
                    c = c + sc[1]
                if side_rise[i, d]:
                    c = c + sc[2]
                out[i, d] = c
        return out

    edge_cost = edges(hex_cost, side_cost)
    edge_cost_s = edges(hex_cost_s, side_cost_s)

    # ZOC across sides (rule 5.0) and supply across sides (rule 8.2)
    zoc = np.zeros((n, 6, 2), bool)
    supply = np.zeros((n, 6), bool)
    rz = tec[("creek_rise", "hexside")]
    for i in range(n):
        if ocean[i]:
            continue
        for d in range(6):
            j = nb[i, d]
            if j < 0 or ocean[j] or side_ocean[i, d]:
                continue
            supply[i, d] = True
            foot = mm = True
            if side_rise[i, d] and not side_road[i, d]:
                foot = bool(rz.zoc_foot)
                mm = bool(rz.zoc_motmech)
            zoc[i, d] = (foot, mm)

    # combat and fire effects: a hex has the effect if any terrain in it does
    def any_of(col, cast=bool):
        vals = np.array([tec[(t, "hex")][col] for t in HEX_TERRAINS])
        return (tmask * vals[None, :]).any(axis=1) if cast is bool else None

    def extreme(col, fn):
        vals = np.array([tec[(t, "hex")][col] for t in HEX_TERRAINS], dtype=np.int64)
        out = np.zeros(n, np.int8)
        for i in range(n):
            if not ocean[i]:
                out[i] = fn(vals[tmask[i]])
        return out

    crt_line = np.full(n, -1, np.int8)
    for i in range(n):
        if ocean[i]:
            continue
        best = max((tec[(HEX_TERRAINS[j], "hex")].crt_line for j in np.flatnonzero(tmask[i])),
                   key=lambda x: (ranks.get(x, 0), x))
        crt_line[i] = line_names.index(best)

    blocks_lof_side = side_rise.copy()

    # boxes
    box_ids = tuple(b.box for b in boxes)
    box_zone = np.array([ZONES.index(b.zone) for b in boxes], np.int8)
    box_wave = np.array([WAVES.index(b.wave) for b in boxes], np.int8)
    box_beach = np.array([grid.index(b.beach_hex) for b in boxes], np.int32)
    zmap = {r.zone: r.follow_up_box for r in zones}

    def hexes_with(mask):
        return tuple(sorted(grid.hex_id(int(i)) for i in np.flatnonzero(mask)))

    codes = {p.hex: p.code for p in places if p.kind == "airfield" and p.code}
    ammo = tuple(sorted({p.hex for p in places if p.kind == "ammo_point"}))

    # tables
    hexes_df = pd.DataFrame([{k: v for k, v in r.items()} for r in hx.values()]).set_index("hex")
    hexes_df = hexes_df.loc[[h for h in grid.hex_ids]]
    side_rows = []
    for (a, b), feats in sorted(sides.items()):
        d = direction_between(a, b)
        for ft, (line, src, _first) in feats.items():
            side_rows.append(dict(hex=a, direction=DIRECTION_NAMES[d], neighbour=b, feature=ft, source=src,
                                  line=line, mirrored=False))
            side_rows.append(dict(hex=b, direction=DIRECTION_NAMES[(d + 3) % 6], neighbour=a, feature=ft,
                                  source=src, line=line, mirrored=True))
    sides_df = pd.DataFrame(side_rows, columns=["hex", "direction", "neighbour", "feature", "source", "line",
                                                "mirrored"])
    tec_df = pd.DataFrame([dict(r) for r in tec_rows])
    zones_df = pd.DataFrame([dict(r) for r in zones])
    boxes_df = pd.DataFrame([dict(r) for r in boxes])
    places_df = pd.DataFrame([dict(r) for r in places])

    files = [folder / x for x in ("terrain_effects.csv", "hexes.csv", "hexsides.csv", "beach_zones.csv",
                                  "beach_boxes.csv", "places.csv")]
    return MapData(
        grid=grid, data_dir=folder, data_hash=hash_files(files),
        hexes=hexes_df, hexsides=sides_df, terrain_effects=tec_df, beach_zones=zones_df,
        beach_boxes=boxes_df, places=places_df,
        terrain_names=HEX_TERRAINS, terrain=terrain, terrain_mask=tmask, ocean=ocean, land=~ocean,
        woods=flags["woods"], town=flags["town"], city=flags["city"], fort=flags["fort"],
        airfield=flags["airfield"], beach=flags["beach"], coastal=flags["coastal"], port=port,
        beach_zone=bzone, neighbours=nb.copy(), hexside=hexside, side_road=side_road, side_creek=side_creek,
        side_rise=side_rise, side_ocean=side_ocean, tec_cost=tec_cost, tec_cost_strategic=tec_cost_s,
        side_cost=side_cost, side_cost_strategic=side_cost_s, hex_cost=hex_cost, hex_cost_strategic=hex_cost_s,
        edge_cost=edge_cost, edge_cost_strategic=edge_cost_s, zoc_across=zoc, supply_across=supply,
        crt_line_names=line_names, crt_line=crt_line,
        artillery_halved=any_of("artillery_halved") & ~ocean,
        defense_doubled=any_of("defense_doubled") & ~ocean,
        defender_hits_minus=extreme("defender_hits_minus", np.max),
        bombard_shift=extreme("bombard_shift", np.min),
        blocks_line_of_fire=any_of("blocks_line_of_fire") & ~ocean,
        side_blocks_line_of_fire=blocks_lof_side,
        blocks_discovery=any_of("blocks_discovery") & ~ocean,
        drop_loss_drm=extreme("drop_loss_drm", np.max),
        box_ids=box_ids, box_zone=box_zone, box_wave=box_wave, box_beach=box_beach,
        follow_up_boxes=tuple(zmap[z] for z in ZONES),
        cities=hexes_with(flags["city"]), towns=hexes_with(flags["town"]), airfields=hexes_with(flags["airfield"]),
        forts=hexes_with(flags["fort"]), main_ports=hexes_with(port == PORT_MAIN),
        minor_ports=hexes_with(port == PORT_MINOR), beaches=hexes_with(flags["beach"]),
        airfield_codes=codes, ammo_points=ammo, place_names=names,
    )
