"""Static (read-only, shared) data of an Island of Death game as dense arrays.

:class:`StaticData` holds the unit table (one row per game piece: values per
strength level, type, formation, regiment...), the map (terrain flags, movement
costs, hexsides), the formation table and the combat charts.  It is built from
a data folder by :func:`load_static`: the validated loaders
(:func:`malta_sim.loaders.load_iod`) read and check every file once, then
:func:`build_static` turns their tables into arrays (:func:`_unit_table`,
:func:`_map_arrays`); no file is parsed here.  Constructed test positions
reuse it with :func:`malta_sim.iod.setup.constructed_game`.

Codes
-----
Unit types (``utype``), sizes, movement classes and nations are small ints
listed below; the engine never compares strings in its rules code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, wraps

import numpy as np

from malta_sim.hexgrid import Grid
from malta_sim.kernels import crt as _kcrt
from malta_sim.loaders import load_iod
from malta_sim.loaders.common import resolve_data_dir

# unit types -----------------------------------------------------------------
INFANTRY = 0
PARATROOP = 1
GLIDER = 2          #: glider (air-landing) infantry of the 80th Division
MARINE = 3
ENGINEER = 4        #: any engineers (paratroop, glider, infantry): 9.92
MG = 5
TANK = 6
MOTORCYCLE = 7
ARTILLERY = 8
AA = 9
HQ = 10
LEADER = 11
COASTAL_GUN = 12
STRONGPOINT = 13
MILITIA = 14
SECURITY = 15       #: RN / RAF security companies (16.6)
COMMANDO = 16
WARSHIP = 17
UTYPE_NAMES = ("infantry", "paratroop", "glider", "marine", "engineer", "mg", "tank",
               "motorcycle", "artillery", "aa", "hq", "leader", "coastal_gun", "strongpoint",
               "militia", "security", "commando", "warship")

# sizes ----------------------------------------------------------------------
COMPANY = 0
BATTALION = 1
HQ_SIZE = 2
NO_SIZE = 3         #: leaders, coastal guns, warships, militia, strongpoints
SIZE_NAMES = ("company", "battalion", "hq", "none")
#: Stacking limit per side and hex in half battalions (rule 7.1: four
#: battalions; a company, or a remnant, 17.31, counts one half).  The one
#: definition the engine modules and kernels import.
STACK_LIMIT_HALVES = 8

# movement classes (2.1) -----------------------------------------------------
FOOT = 0
MOT = 1
MECH = 2
CLASS_NAMES = ("foot", "mot", "mech")

# nations ----------------------------------------------------------------------
GERMAN = 0
ITALIAN = 1
BRITISH = 2
MALTESE = 3
NATION_NAMES = ("german", "italian", "british", "maltese")

#: Units that count as the "infantry" a tank needs for the armor bonus (9.92).
ARMOR_PARTNERS = (INFANTRY, PARATROOP, GLIDER, MARINE, MOTORCYCLE, ENGINEER, COMMANDO)

# CRT lines (rule 9.3 f) -------------------------------------------------------
LINE_OTHER = 0      #: "All Other Terrains (day turns)"
LINE_NIGHT = 1      #: "Night Attacks (all terrain types)"

MAX_LEVELS = 4


def per_static(build):
    """Decorator: ``build(static)`` runs once per :class:`StaticData` and its
    answer is kept in ``static.derived`` (read-only tables derived from the
    static data by the module that uses them).

    Parameters
    ----------
    build : callable
        ``build(static) -> object`` (not None), a pure function of the static
        data.

    Returns
    -------
    callable
        ``get(static)``: the kept answer, built on the first call.
    """
    key = f"{build.__module__}.{build.__qualname__}"

    @wraps(build)
    def get(static):
        out = static.derived.get(key)
        if out is None:
            out = static.derived[key] = build(static)
        return out

    return get


@dataclass
class StaticData:
    """Read-only arrays shared by all games of a batch.

    Unit table (``n_units`` rows): ``side, nation, utype, size, move_class,
    printed_formation, regiment`` (int8/int16), ``n_levels`` int8,
    ``attack, defense, morale, ma`` int8[n_units, MAX_LEVELS] per level,
    ``off_support, def_support, art_range`` int8, ``airborne_art`` bool,
    ``foot_bonus, mot_bonus, tactical`` int8 (leaders), ``aa`` bool,
    ``step_weight`` int8 (steps per step lost for rule 20: tank company 2,
    coastal guns/militia/Axis HQ 0), ``breakdown_kind/breakdown_n`` (13.1:
    generic company kind and count; -1 for specific companies),
    ``company_kind`` (generic company pieces), ``battalion_of`` (specific
    companies: their battalion).

    Map (``n_hexes`` dense hexes): ``neighbours`` int32[n,6]; flags ``land,
    beach, coastal, town, city, fort, airfield, woods, main_port, minor_port``;
    ``move_cost`` float32[n, 3 classes] normal and ``strat_cost`` float32[n, 3]
    (99 = prohibited; rule 6.11, :func:`_map_arrays`); ``road`` bool[n,6],
    ``creek`` bool[n,6], ``rise`` bool[n,6], ``ocean_side`` bool[n,6];
    ``crt_line`` int8[n] (day line).  Built by :func:`build_static`.
    """

    names: list[str]
    side: np.ndarray
    nation: np.ndarray
    utype: np.ndarray
    size: np.ndarray
    move_class: np.ndarray
    printed_formation: np.ndarray
    regiment: np.ndarray
    n_levels: np.ndarray
    attack: np.ndarray
    defense: np.ndarray
    morale: np.ndarray
    ma: np.ndarray
    off_support: np.ndarray
    def_support: np.ndarray
    art_range: np.ndarray
    airborne_art: np.ndarray
    foot_bonus: np.ndarray
    mot_bonus: np.ndarray
    tactical: np.ndarray
    aa: np.ndarray
    step_weight: np.ndarray
    breakdown_kind: np.ndarray
    breakdown_n: np.ndarray
    company_kind: np.ndarray
    battalion_of: np.ndarray
    # formations
    n_formations: int
    formation_names: list[str]
    formation_hq: np.ndarray          # int32[n_formations], unit index of the HQ (-1 none)
    formation_leader: np.ndarray      # int32[n_formations]
    n_regiments: int
    regiment_members: list[np.ndarray]
    # map
    grid: Grid
    neighbours: np.ndarray
    land: np.ndarray
    beach: np.ndarray
    coastal: np.ndarray
    town: np.ndarray
    city: np.ndarray
    fort: np.ndarray
    airfield: np.ndarray
    woods: np.ndarray
    main_port: np.ndarray
    minor_port: np.ndarray
    move_cost: np.ndarray
    strat_cost: np.ndarray
    road: np.ndarray
    creek: np.ndarray
    rise: np.ndarray
    ocean_side: np.ndarray
    crt_line: np.ndarray
    victory_cities: np.ndarray        # int32[4]: 1711, 1809, 1810, 1911 (20.0)
    allied_ammo_points: np.ndarray    # int32[2]: 1711, 1715 (12.56)
    charts: object                    # malta_sim.loaders.iod_charts.IodCharts
    crt_line_nofort: np.ndarray = None  # int8[n]: day CRT line once a fort is destroyed (17.1)
    engineer: np.ndarray = None       # bool[n_units]: engineers of any kind (9.92)
    paratroop: np.ndarray = None      # bool[n_units]: paratroop formation pieces (19, 17.8)
    airborne: np.ndarray = None       # bool[n_units]: enter by air (16.1, 19)
    two_sided: np.ndarray = None      # bool[n_units]: one-step piece with a reduced side (17.83)
    can_break: np.ndarray = None      # bool[n_units]: may break down (13.0)
    road_cost: np.ndarray = None      # float32[3]: MP per class across a road hexside (6.11)
    road_strat_cost: np.ndarray = None  # float32[3]: strategic road cost (6.2)
    creek_cost: np.ndarray = None     # float32[3]: added MP across a creek (TEC)
    rise_cost: np.ndarray = None      # float32[3]: added MP across a creek with rise, 99 = no
    regiment_names: dict = field(default_factory=dict)
    beach_zone_of: dict = field(default_factory=dict)   # beach hex -> zone name (18.1)
    provenance: dict = field(default_factory=dict)
    #: the data folder's keyed tables (:class:`malta_sim.loaders.iod_tables.IodTables`:
    #: surrender results 20.3, weather 17.2, ...), None for hand-built static data
    tables: object = None
    # tables derived from the above by other modules, one per builder (see
    # per_static); not an init field, so a dataclasses.replace copy starts empty
    derived: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @cached_property
    def n_units(self) -> int:
        """Units in the table (fixed for the life of the static data)."""
        return len(self.names)

    @cached_property
    def n_hexes(self) -> int:
        """Hexes of the grid (fixed for the life of the static data)."""
        return self.grid.n_hexes

    @cached_property
    def invasion(self):
        """The invasion engine's read-only tables for this static data
        (:class:`.hercules.InvasionStatic`: beach zones 18.1, coastal line of
        fire 16.54, drop and water's edge charts 19.4, 18.6...), built on first
        use from the data folder of ``provenance["data_dir"]``."""
        from malta_sim.iod.invasion import build_invasion_static
        return build_invasion_static(self, self.provenance.get("data_dir"))

    @cached_property
    def one_hex_tables(self) -> tuple:
        """The facts of a one-hex move (rules 6.52, 6.53; beach movement 18.7,
        rally 19.6) as nested Python lists, read per step by
        :func:`.hercules.one_hex_options`: land per hex; per hex and direction
        (0-5, :mod:`malta_sim.hexgrid` order) the all-ocean hexside, road and
        rise flags; per hex and movement class the terrain cost (MP; 99
        impassable); per unit the leader flag, the movement class and whether
        it never blocks an entry (leaders and coastal guns)."""
        return (self.land.tolist(), self.ocean_side.tolist(), self.road.tolist(),
                self.rise.tolist(), self.move_cost.tolist(), (self.utype == LEADER).tolist(),
                self.move_class.tolist(), ((self.utype == LEADER) | (self.utype == COASTAL_GUN)).tolist())

    @cached_property
    def harmless_in_hex(self) -> np.ndarray:
        """bool[n_units]: pieces that never stop an enemy unit's one-hex move
        into their hex (leaders and coastal guns; 6.52, 16.58)."""
        return (self.utype == LEADER) | (self.utype == COASTAL_GUN)

    @cached_property
    def axis_hq_units(self) -> np.ndarray:
        """int64[k]: the Axis HQ pieces (20.0: +2 each while out of play),
        ascending unit indices."""
        return np.flatnonzero((self.utype == HQ) & (self.side == 0))

    @cached_property
    def warship_units(self) -> np.ndarray:
        """int64[k]: the warship pieces (rule 16.7), ascending unit indices."""
        return np.flatnonzero(self.utype == WARSHIP)

    @cached_property
    def side_units(self) -> tuple:
        """``(axis, allied)``: int64 arrays of each side's pieces, ascending
        unit indices (``side`` 0 Axis, 1 Allied)."""
        return np.flatnonzero(self.side == 0), np.flatnonzero(self.side == 1)

    @cached_property
    def utype_is_leader(self) -> np.ndarray:
        """bool[n_units]: leaders (not units, rule 14.0)."""
        return self.utype == LEADER

    @cached_property
    def allied_aa_units(self) -> np.ndarray:
        """int64[k]: the Allied AA pieces (16.12, 19.41), ascending unit indices."""
        return np.flatnonzero((self.side == 1) & self.aa)

    def unit(self, name: str) -> int:
        """Index of the unit called ``name`` (KeyError if unknown)."""
        return self._index[name]

    def __post_init__(self):
        self._index = {n: i for i, n in enumerate(self.names)}


#: Basic combat odds as a level (rule 9.3 d): ``k:1`` -> ``k`` for ``k >= 1``,
#: ``1:n`` -> ``2 - n`` (1:1 = 1, 2:1 = 2, 1:2 = 0, 1:3 = -1), rounded in the
#: defender's favour (15 vs 4 is 3:1; 5 vs 12 is 1:3); the compiled
#: :func:`malta_sim.kernels.crt.basic_odds_level`, the one implementation.
odds_level = _kcrt.basic_odds_level


def odds_name(level: int) -> str:
    """``"3:1"`` / ``"1:2"`` name of an odds level."""
    return f"{level}:1" if level >= 1 else f"1:{2 - level}"


# ============================================================== building it
#: Formation codes of ``units.csv``'s ``formation`` column (index into
#: :data:`FORMATION_NAMES`; rule 15.1: the formations of the counters).
FORMATION_CODES = {"malta": 0, "ram": 1, "185": 2, "80": 3, "4": 4, "20": 5}
FORMATION_NAMES = ["Malta Garrison", "Ramcke Brigade", "185th Folgore", "80th La Spezia",
                   "4th Livorno", "20th Friuli"]

#: ``units.csv`` type -> unit type code (the loader's ``TYPES`` all map).
_TYPE_CODES = {
    "infantry": INFANTRY, "paratrooper": PARATROOP, "glider": GLIDER,
    "marines": MARINE, "engineer": ENGINEER, "para_engineer": ENGINEER,
    "mg": MG, "tank": TANK, "motorcycle": MOTORCYCLE, "artillery": ARTILLERY,
    "para_artillery": ARTILLERY, "glider_artillery": ARTILLERY, "aa": AA,
    "hq": HQ, "leader": LEADER, "coastal_gun": COASTAL_GUN,
    "strongpoint": STRONGPOINT, "militia": MILITIA, "raf_security": SECURITY,
    "rn_security": SECURITY, "commando": COMMANDO, "warship": WARSHIP,
}
#: ``units.csv`` size -> size code; leaders, strongpoints, militia, guns and
#: ships have none.
_SIZE_CODES = {"battalion": BATTALION, "company": COMPANY, "hq": HQ_SIZE}
_NATION_CODES = {"de": GERMAN, "it": ITALIAN, "uk": BRITISH, "mt": MALTESE}
#: Movement class codes (rule 2.1); ``none`` (never moves on land) counts as foot.
_CLASS_CODES = {"foot": FOOT, "mot": MOT, "mech": MECH, "none": FOOT}
#: MP of a prohibited move in the engine's cost arrays (``P`` on the TEC).
PROHIBITED_MP = 99.0
#: Hex flag columns of ``hexes.csv`` that name a terrain of the hex (rule 6.11).
_TERRAIN_FLAGS = ("woods", "town", "city", "fort", "airfield", "beach", "coastal")
_MAP_FLAGS = ("land", "beach", "coastal", "town", "city", "fort", "airfield", "woods",
              "main_port", "minor_port")
_CLASSES = CLASS_NAMES
#: Victory cities (rule 20.0) and Allied ammunition points (rule 12.56).
VICTORY_CITY_HEXES = ("1711", "1809", "1810", "1911")
ALLIED_AMMO_HEXES = ("1711", "1715")


def _unit_table(units) -> dict:
    """The unit and formation tables of :class:`StaticData` from the counter
    tables (rules 13.1, 14, 15.1, 17.3, 20.1, 20.2).

    Parameters
    ----------
    units : malta_sim.loaders.iod_units.UnitTables
        The validated counters: designs in file order, their pieces (a generic
        design of ``count`` k gives pieces ``<id>.1`` .. ``<id>.k``), levels,
        leader, artillery and warship values, Battalion Breakdown Chart.

    Returns
    -------
    dict
        :class:`StaticData` keyword arguments.  Rows (``n`` pieces) are the
        pieces grouped by side, the side of the first design first, file order
        within a side (each side is one run of unit indices).  ``side,
        nation, utype, size, move_class, printed_formation`` int8[n],
        ``regiment`` int16[n] (-1 none), ``n_levels`` int8[n], ``attack,
        defense, morale, ma`` int8[n, MAX_LEVELS] (full strength first, 0
        past the last level; a level without morale has the unit's),
        ``off_support, def_support, art_range`` int8[n] (artillery 12.11,
        warships 16.7), ``airborne_art`` bool[n] (6.6), ``foot_bonus,
        mot_bonus, tactical`` int8[n, MAX_LEVELS] (leaders: [leader, ADC],
        rule 14), ``step_weight`` int8[n] (rule 20.1, 20.2), ``breakdown_kind``
        int32[n] and ``breakdown_n`` int8[n] (rule 13.1), ``company_kind,
        battalion_of`` int32[n], flag arrays bool[n], formation HQ and
        leader int32[n_formations], regiments (rule 15.1).
    """
    pieces = [(pid, units.design_of(pid)) for pid in units.pieces]
    first = pieces[0][1].side if pieces else ""
    pieces.sort(key=lambda p: p[1].side != first)     # stable: file order within a side
    names = [pid for pid, _ in pieces]
    index = {pid: i for i, pid in enumerate(names)}
    n, L = len(pieces), MAX_LEVELS

    def arr(dtype, fill=0, shape=None):
        return np.full(shape or (n,), fill, dtype=dtype)

    side, nation, utype, size, mclass = (arr(np.int8) for _ in range(5))
    pform, reg = arr(np.int8, -1), arr(np.int16, -1)
    nlev = arr(np.int8, 1)
    att, dfn, mor, ma = (arr(np.int8, 0, (n, L)) for _ in range(4))
    offs, defs, rng_ = arr(np.int8), arr(np.int8), arr(np.int8)
    airb = arr(np.bool_, False)
    fb, mb, tac = (arr(np.int8, 0, (n, L)) for _ in range(3))
    aa, engineer, paratroop, airborne, two_sided, can_break = (arr(np.bool_, False) for _ in range(6))
    weight = arr(np.int8, 1)
    bkind, bn_, ckind, bof = arr(np.int32, -1), arr(np.int8), arr(np.int32, -1), arr(np.int32, -1)
    regiments: dict[str, int] = {}
    by_design: dict[str, list[int]] = {}
    for i, (pid, d) in enumerate(pieces):
        side[i] = 0 if d.side == "axis" else 1
        nation[i] = _NATION_CODES[d.nationality]
        utype[i] = _TYPE_CODES[d.type]
        size[i] = _SIZE_CODES.get(d.size, NO_SIZE)
        mclass[i] = _CLASS_CODES[d.move_class]
        pform[i] = FORMATION_CODES.get(d.formation, -1)
        if d.integrity:
            reg[i] = regiments.setdefault(f"{d.side}:{d.integrity}", len(regiments))
        engineer[i] = "engineer" in d.flags or d.type in ("engineer", "para_engineer")
        aa[i] = "aa" in d.flags or d.type == "aa"
        paratroop[i] = "paratroop" in d.flags
        airborne[i] = "airborne" in d.flags
        two_sided[i] = "two_sided" in d.flags
        can_break[i] = "breakdown" in d.flags
        nlev[i] = len(d.levels)
        for k, lv in enumerate(d.levels[:L]):
            att[i, k], dfn[i, k], ma[i, k], mor[i, k] = lv.attack, lv.defense, lv.movement, lv.morale
        a = units.artillery.get(d.id)
        if a is not None:
            offs[i], defs[i], rng_[i], airb[i] = a.offensive, a.defensive, a.range, a.airborne_prep
        w = units.warships.get(d.id)
        if w is not None:
            offs[i], defs[i], rng_[i] = w.offensive, w.defensive, w.range
        if utype[i] == LEADER:
            nlev[i] = 2                                   # leader side and ADC side (14.43)
            for k, face in enumerate(("leader", "adc")):
                v = units.leaders[d.id][face]
                fb[i, k], mb[i, k], tac[i, k] = v.foot_bonus, v.mot_bonus, v.tactical
        # steps counted for victory (20.1, 20.2)
        if utype[i] == TANK:
            weight[i] = 2
        elif utype[i] in (COASTAL_GUN, MILITIA, LEADER, WARSHIP) or (utype[i] == HQ and side[i] == 0):
            weight[i] = 0
        if d.parent:
            bof[i] = index[d.parent]
        by_design.setdefault(d.id, []).append(i)
    # generic company kinds and the Battalion Breakdown Chart (13.1)
    kinds: dict[str, int] = {}
    for did, rows in by_design.items():
        if len(rows) > 1 or did.endswith("_coy"):
            k = kinds.setdefault(did, len(kinds))
            ckind[rows] = k
    for bid, comps in units.breakdown.items():
        b = index[bid]
        for company, count in comps:
            if company in kinds:
                bkind[b], bn_[b] = kinds[company], count
            else:
                bkind[b], bn_[b] = -1, bn_[b] + count
    nf = len(FORMATION_CODES)
    f_hq = np.full(nf, -1, np.int32)
    f_ldr = np.full(nf, -1, np.int32)
    for i in range(n):
        if pform[i] >= 0 and utype[i] == HQ:
            f_hq[pform[i]] = i
        if pform[i] >= 0 and utype[i] == LEADER:
            f_ldr[pform[i]] = i
    nreg = max(1, len(regiments))
    return dict(
        names=names, side=side, nation=nation, utype=utype, size=size, move_class=mclass,
        printed_formation=pform, regiment=reg, n_levels=nlev, attack=att, defense=dfn,
        morale=mor, ma=ma, off_support=offs, def_support=defs, art_range=rng_,
        airborne_art=airb, foot_bonus=fb, mot_bonus=mb, tactical=tac, aa=aa,
        step_weight=weight, breakdown_kind=bkind, breakdown_n=bn_, company_kind=ckind,
        battalion_of=bof, n_formations=nf, formation_names=list(FORMATION_NAMES),
        formation_hq=f_hq, formation_leader=f_ldr, n_regiments=nreg,
        regiment_members=[np.flatnonzero((reg == k) & (size == BATTALION)) for k in range(nreg)],
        engineer=engineer, paratroop=paratroop, airborne=airborne, two_sided=two_sided,
        can_break=can_break, regiment_names={v: k for k, v in regiments.items()},
    )


def _mp(text: str) -> float:
    """A Terrain Effects Chart cost: ``P`` (prohibited) -> 99, empty -> NaN."""
    text = str(text).strip()
    if text == "P":
        return PROHIBITED_MP
    return float(text) if text else np.nan


def _map_arrays(mp, charts) -> dict:
    """The map arrays of :class:`StaticData` from the validated map tables.

    Parameters
    ----------
    mp : malta_sim.loaders.iod_map.MapData
        Its tables ``hexes`` (one row per hex of ``mp.grid``: terrain, flag
        columns, port, beach zone), ``terrain_effects`` (the Terrain Effects
        Chart), ``places``, and its hexside arrays ``side_road, side_creek,
        side_rise, side_ocean`` bool[n_hexes, 6] (both hexes of a side).
    charts : malta_sim.loaders.iod_charts.IodCharts
        For the CRT line of each terrain (rule 9.3 f).

    Returns
    -------
    dict
        :class:`StaticData` keyword arguments, ``n`` = ``mp.grid.n_hexes``:
        flags ``land, beach, coastal, town, city, fort, airfield, woods,
        main_port, minor_port`` bool[n]; ``move_cost, strat_cost``
        float32[n, 3] (foot, mot, mech): rule 6.11, the most expensive
        terrain of the hex unless a town or city replaces it, 99 for
        prohibited or ocean, strategic cost (6.2) the normal one where the
        chart has none; ``road, creek, rise, ocean_side`` bool[n, 6];
        ``road_cost, road_strat_cost, creek_cost, rise_cost`` float32[3]
        (NaN where the chart's cell is empty); ``crt_line, crt_line_nofort``
        int8[n] (day line, rule 9.3 f, and the line once the fort is
        destroyed, 17.1; -1 ocean); ``beach_zone_of`` (hex index -> zone
        name, 18.1); ``victory_cities`` int32[4] (20.0) and
        ``allied_ammo_points`` int32[2] (12.56).
    """
    grid = mp.grid
    nh = grid.n_hexes
    flags = {k: np.zeros(nh, bool) for k in _MAP_FLAGS}
    tec = mp.terrain_effects.to_dict("records")
    hexcost = {r["terrain"]: r for r in tec if r["kind"] == "hex"}
    sidecost = {r["terrain"]: r for r in tec if r["kind"] == "hexside"}
    move = np.full((nh, 3), PROHIBITED_MP, np.float32)
    strat = np.full((nh, 3), PROHIBITED_MP, np.float32)
    terrains: list[set] = [set() for _ in range(nh)]
    zones: dict[int, str] = {}
    for hid, r in zip(mp.hexes.index, mp.hexes.to_dict("records")):
        h = grid.index(hid)
        ts = {r["terrain"]} | {k for k in _TERRAIN_FLAGS if r[k]}
        terrains[h] = ts
        if r["beach_zone"]:
            zones[h] = r["beach_zone"]
        flags["land"][h] = r["terrain"] != "ocean"
        for k in _TERRAIN_FLAGS:
            flags[k][h] = k in ts
        flags["main_port"][h] = r["port"] == "main"
        flags["minor_port"][h] = r["port"] == "minor"
        if not flags["land"][h]:
            continue
        # rule 6.11: the most expensive terrain, unless a town/city replaces it
        pick = [t for t in ("city", "town") if t in ts] or sorted(ts)
        for c, name in enumerate(_CLASSES):
            vals = [_mp(hexcost[t][name]) for t in pick]
            svals = []
            for t in pick:
                sv = _mp(hexcost[t][name + "_strategic"])
                svals.append(_mp(hexcost[t][name]) if np.isnan(sv) else sv)
            move[h, c] = max(vals)
            strat[h, c] = max(svals)
    for r in mp.places.to_dict("records"):
        if r["kind"] in ("port_main", "port_minor"):
            flags["main_port" if r["kind"] == "port_main" else "minor_port"][grid.index(r["hex"])] = True
    road = sidecost["road"]
    line = np.full(nh, -1, np.int8)
    nofort = np.full(nh, -1, np.int8)
    for h, ts in enumerate(terrains):
        if flags["land"][h]:
            line[h] = charts.line_for_terrains(ts)                   # rule 9.3 f
            nofort[h] = charts.line_for_terrains(ts - {"fort"} or {"clear"})   # 17.1
    out = dict(flags)
    out.update(
        move_cost=move, strat_cost=strat,
        road=mp.side_road.copy(), creek=mp.side_creek.copy(), rise=mp.side_rise.copy(),
        ocean_side=mp.side_ocean.copy(),
        road_cost=np.array([_mp(road[c]) for c in _CLASSES], np.float32),
        road_strat_cost=np.array([_mp(road[c + "_strategic"]) for c in _CLASSES], np.float32),
        creek_cost=np.array([_mp(sidecost["creek"][c]) for c in _CLASSES], np.float32),
        rise_cost=np.array([_mp(sidecost["creek_rise"][c]) for c in _CLASSES], np.float32),
        crt_line=line, crt_line_nofort=nofort, beach_zone_of=zones,
        victory_cities=grid.indices(list(VICTORY_CITY_HEXES)),
        allied_ammo_points=grid.indices(list(ALLIED_AMMO_HEXES)),
    )
    return out


def build_static(data) -> StaticData:
    """:class:`StaticData` from a loaded, validated data folder.

    Parameters
    ----------
    data : malta_sim.loaders.IodData
        What :func:`malta_sim.loaders.load_iod` returned: its ``units``
        (counters), ``map`` and ``charts`` are read, no file is.

    Returns
    -------
    StaticData
        Unit table (:func:`_unit_table`), map (:func:`_map_arrays`), the
        charts, the keyed tables (``tables``), ``provenance["data_dir"]`` the
        data folder.
    """
    mp = data.map
    return StaticData(grid=mp.grid, neighbours=mp.grid.neighbour_table, charts=data.charts,
                      provenance={"data_dir": str(data.data_dir)}, tables=data.tables,
                      **_unit_table(data.units), **_map_arrays(mp, data.charts))


#: resolved data folder -> IodData (:func:`load_data`)
_DATA_CACHE: dict = {}


def load_data(data_dir=None):
    """The validated data of a folder (:func:`malta_sim.loaders.load_iod`),
    loaded once per process and folder.

    Parameters
    ----------
    data_dir : str or Path, optional
        Data folder; the packaged data when None.  ``None`` and the packaged
        folder's path are the same entry.

    Returns
    -------
    malta_sim.loaders.IodData

    Raises
    ------
    DataError
        The first problem in the folder (file, line, field), one line.
    """
    folder = resolve_data_dir(data_dir)
    key = str(folder)
    if key not in _DATA_CACHE:
        _DATA_CACHE[key] = load_iod(folder)
    return _DATA_CACHE[key]


def load_static(data_dir=None) -> StaticData:
    """:class:`StaticData` of a data folder (packaged data when None): the
    folder is loaded and validated once (:func:`load_data`), then turned
    into arrays (:func:`build_static`).

    Raises
    ------
    DataError
        The first problem in the folder (file, line, field), one line.
    """
    return build_static(load_data(data_dir))
