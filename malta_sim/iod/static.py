"""Static (read-only, shared) data of an Island of Death game as dense arrays.

:class:`StaticData` holds the unit table (one row per game piece: values per
strength level, type, formation, regiment...), the map (terrain flags, movement
costs, hexsides), the formation table and the combat charts.  It is built from
a data folder by :func:`malta_sim.iod.setup.load_static`;
constructed test positions reuse it with
:func:`malta_sim.iod.setup.constructed_game`.

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
    ``move_cost`` int8[n, 3 classes] normal and ``strat_cost`` int8[n, 3]
    (99 = prohibited); ``road`` bool[n,6], ``creek`` bool[n,6], ``rise``
    bool[n,6], ``ocean_side`` bool[n,6]; ``crt_line`` int8[n] (day line).
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
