"""Operation Hercules (rule 22.3): preparation (3.0), the invasion's Initial
Segment steps (4.1 a, d; 3.0 e-k), and the phase drivers of everything that
arrives by sea and air, registered as :mod:`.sequence` hooks.

Driver map (hook -> function -> rules):

* ``setup`` -> :func:`hercules_setup` -> 3.0 a-f, 15.21, 16.2, 16.31, 18.21, 19.3,
  21.2, 22.33-22.37, 22.39 (Variable Allied Placement)
* ``initial_segment`` -> :func:`initial_segment` -> 4.1 a (Follow-up boxes, 18.22),
  4.1 d (air attacks 17.5), 3.0 e (jump planning 19.3), 19.13 (drop zone marker
  moves), 3.0 i (ammunition 12.54), 3.0 j (strongpoints 16.25), 3.0 k (Royal
  Navy 17.6), air support markers (16.41)
* ``axis_status`` -> :func:`axis_status` -> 17.8 stragglers, 22.39 Delayed Landings
* ``amphibious_landing`` -> :func:`amphibious_landing_phase` -> 4.22, 18.3-18.9,
  16.55-16.56, 16.7, 16.79
* ``airborne_landing`` -> :func:`airborne_landing_phase` -> 4.23, 19.1-19.9, 21.1
* ``warship_movement`` -> :func:`.warships.warship_movement` -> 16.71
* ``airfield_entry`` -> :func:`airfield_entry` -> 16.11-16.15
* ``on_enter_hex`` -> :func:`on_enter_hex` -> 16.32 militia, 16.58 coastal guns,
  16.22 strongpoints revealed
* ``surrender_modifier`` -> :func:`surrender_modifier` -> 20.0 (beach hexes vs
  Follow-up boxes, Royal Navy result)

Per-game invasion bookkeeping that is not an array lives in
``game.extra["inv"]`` (:class:`InvasionMemo`): the jump plans (19.3), the
division beach zones (18.21), the landed-this-phase lists.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numba as nb
import numpy as np
import pandas as pd

from ...errors import DataError
from ...loaders.common import read_toml, resolve_data_dir
from ...policies.base import own_methods, plain_methods
from . import coastal as cg
from . import landings as ld
from . import militia as mil
from . import special as sp
from .one_hex_moves import one_hex_kernel
from .reorganisation import companies_suffice
from .allied_proximity import allied_aa_within, nearest_allied_unit, nearest_allied_units
from . import static as st
from .state import (ALLIED, AXIS, BOX_CUP, BOX_DAMAGED, BOX_DISBANDMENT, BOX_ELIMINATED,
                    BOX_FIRST_WAVE, BOX_FOLLOW_UP, BOX_MAP, BOX_NOT_YET, BOX_POOL,
                    BOX_REMOVED, BOX_SECOND_WAVE, BOX_TURN_TRACK, NIGHT, RAINY)

# formation codes of the data (setup.FORMATION_CODES)
F_MALTA, F_RAMCKE, F_FOLGORE, F_80, F_4, F_20 = 0, 1, 2, 3, 4, 5
PARA_FORMATIONS = (F_RAMCKE, F_FOLGORE)
DIVISIONS = (F_4, F_20)


# =====================================================================================
# Static invasion data
# =====================================================================================
@dataclass
class InvasionStatic:
    """Invasion-specific read-only arrays derived from the data folder.

    Attributes
    ----------
    zone_names : list of str
        Beach zones (North, South, East, West), index = ``box_slot`` of a Follow-up box.
    zone_beaches : list of int32 arrays
        Beach hexes (dense indices) with wave boxes, per zone (18.1).
    beach_zone : int16[H]
        Zone of each beach hex with wave boxes, -1 otherwise.
    ocean : bool[H]
        Ocean hexes (not land, beach or coastal): drowning (19.45), warships (16.71).
    los_block : set of str
        Hex ids that block coastal fire (city, town, fort, woods; 16.54).
    los_block_sides : set of frozenset
        Creek-with-Rise hexsides (16.54).
    gun_value, gun_range : int8[U]
        Coastal gun dice and range per unit (16.5); 0 for other units.
    we_col_min, we_table
        Water's Edge Combat Table (18.6).
    rn_table : dict die -> RNResult
        Royal Navy Intervention Table (17.6).
    solo_dz_hexes : dict die -> hex (21.11 b); solo_zones : dict die -> zone (21.2).
    """

    zone_names: list
    zone_beaches: list
    beach_zone: np.ndarray
    ocean: np.ndarray
    los_block: set
    los_block_sides: set
    gun_value: np.ndarray
    gun_range: np.ndarray
    we_col_min: np.ndarray
    we_table: np.ndarray
    rn_table: dict
    solo_dz_hexes: dict
    solo_zones: dict
    scenario_cfg: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)
    #: ``(gun hex, target hex) -> bool`` answers of :func:`line_of_fire` (a pure
    #: function of the two hexes and the blocking terrain above).
    los_memo: dict = field(default_factory=dict, repr=False)
    #: ``[h] + the on-map neighbours of h`` (direction order) per hex, as Python ints.
    near_lists: list = field(default_factory=list, repr=False)
    #: The same hexes as sets.
    near_sets: list = field(default_factory=list, repr=False)
    #: Town or city hex (militia uprisings, 16.32), per hex as Python bools.
    urban: list = field(default_factory=list, repr=False)
    #: The town and city hexes of ``near_lists[h]``, in the same order.
    urban_near: list = field(default_factory=list, repr=False)
    #: Landing kind per unit (:func:`_unit_kind`, rules 18.31, 18.32).
    unit_kinds: list = field(default_factory=list, repr=False)
    #: Per unit (Python bools): an Axis unit whose entry into a hex has the
    #: invasion's entry effects (16.22, 16.32, 16.58): not a leader, not a warship.
    entry_effects: list = field(default_factory=list, repr=False)
    #: Ocean hexes (``ocean``) ascending, and as a set (warships, 16.71).
    ocean_hexes: tuple = ()
    ocean_set: frozenset = frozenset()
    #: int64[H+1, 7]: ``near_lists[h]`` padded with ``H`` (a spare slot past
    #: the last hex); row ``H`` (for pieces off the map) is all ``H``.
    near_padded: np.ndarray = field(default=None, repr=False)
    #: int64[k]: the Axis pieces other than leaders (20.0 Follow-up boxes).
    axis_units_not_leaders: np.ndarray = field(default=None, repr=False)
    #: int64[B]: the beach hexes of ``zone_beaches``, zone after zone, and
    #: the zone of each (20.0).
    beach_flat: np.ndarray = field(default=None, repr=False)
    beach_flat_zone: np.ndarray = field(default=None, repr=False)
    #: int64[k]: Axis battalions of glider infantry and commandos, broken
    #: down before an airfield landing (16.1, 16.14).
    airfield_battalions: np.ndarray = field(default=None, repr=False)
    #: bool[U]: Axis pieces that may land at an airfield from the Disbandment
    #: Box (16.1): 80th Division, commando and glider companies and artillery
    #: battalions; no other battalions, no leaders.
    airfield_entrants: np.ndarray = field(default=None, repr=False)
    #: int64[k]: the pieces of the two fields above (an airfield entry with
    #: none of them in the Disbandment Box changes nothing).
    airfield_pieces: np.ndarray = field(default=None, repr=False)
    #: int[H]: hexes from each hex to the nearest ocean hex (99 when the map
    #: has none; read-only): the bots' drowning risk (19.45).
    ocean_dist: np.ndarray = field(default=None, repr=False)
    #: Per unit (Python bools): battalion-size piece.
    battalion: list = field(default_factory=list, repr=False)
    #: Per unit, as lists of Python ints: unit type, size and the battalion
    #: of a specific company (-1 none); read per piece by the stick listing (19.21).
    unit_lists: tuple = ((), (), ())
    #: printed formation -> int64 array of its Axis pieces, ascending (19.21).
    axis_by_formation: dict = field(default_factory=dict, repr=False)
    #: int64[k]: Allied coastal guns with dice (16.5), ascending.
    allied_firing_guns: np.ndarray = field(default=None, repr=False)
    #: int64[k]: Axis one-step companies with a reduced side (stragglers 17.8, 17.83).
    straggler_pieces: np.ndarray = field(default=None, repr=False)
    #: int64[k]: Axis battalions other than artillery (18.31 breakdowns).
    follow_up_battalions: np.ndarray = field(default=None, repr=False)
    #: Answers of pure functions of the grid and the static data, worked out
    #: once per static data (:mod:`.airborne_phase`): ``("apply", marker hex,
    #: offset) ->`` the hex id at the axial offset (19.43), ``("rel", hex,
    #: hex) ->`` the offset (19.32), ``("index", hex id) ->`` dense index (-1
    #: off the grid), ``"planning_hexes"`` (19.33) and ``("sticks", marker
    #: hex, long used, stick ranges) ->`` the stick targets (19.22).
    hex_memo: dict = field(default_factory=dict, repr=False)
    #: ``(gun hex, gun range) -> {target hex: bool}``: the target is within
    #: the range and in line of fire (16.54, 16.56), worked out once per
    #: static data.
    gun_reach: dict = field(default_factory=dict, repr=False)


def _read_csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, comment="#", dtype=str, keep_default_na=False)


def build_invasion_static(static, data_dir=None) -> InvasionStatic:
    """Derive :class:`InvasionStatic` from the data folder and the engine's
    :class:`~.static.StaticData`.

    Raises
    ------
    DataError
        A missing or malformed beach-box, drop or scatter file.
    """
    folder = resolve_data_dir(data_dir)
    grid = static.grid
    H = grid.n_hexes
    zones = _read_csv(folder / "beach_zones.csv")
    boxes = _read_csv(folder / "beach_boxes.csv")
    zone_names = list(zones["zone"])
    zone_beaches = [[] for _ in zone_names]
    beach_zone = np.full(H, -1, np.int16)
    for line, r in enumerate(boxes.to_dict("records"), start=2):
        if r["zone"] not in zone_names:
            raise DataError(str(folder / "beach_boxes.csv"), line, "zone", f"unknown zone {r['zone']!r}")
        z = zone_names.index(r["zone"])
        h = grid.index(r["beach_hex"])
        if not static.beach[h]:
            raise DataError(str(folder / "beach_boxes.csv"), line, "beach_hex",
                            f"{r['beach_hex']} is not a beach hex")
        if h not in zone_beaches[z]:
            zone_beaches[z].append(h)
        beach_zone[h] = z
    zone_beaches = [np.array(sorted(b), np.int32) for b in zone_beaches]
    ocean = ~(static.land | static.beach | static.coastal)
    block = static.town | static.city | static.fort | static.woods
    los_block = {grid.hex_id(int(h)) for h in np.flatnonzero(block)}
    sides = set()
    for h in np.flatnonzero(static.rise.any(axis=1)):
        for d in range(6):
            o = static.neighbours[h, d]
            if static.rise[h, d] and o >= 0:
                sides.add(frozenset((grid.hex_id(int(h)), grid.hex_id(int(o)))))
    # coastal guns (16.5)
    U = len(static.names)
    gv = np.zeros(U, np.int8)
    gr = np.zeros(U, np.int8)
    cgf = folder / "coastal_guns.csv"
    if cgf.exists():
        rows = {r["unit"]: r for r in _read_csv(cgf).to_dict("records")}
        for i, nm in enumerate(static.names):
            if static.utype[i] != st.COASTAL_GUN:
                continue
            base = nm.rsplit(".", 1)[0] if nm not in rows else nm
            r = rows.get(base)
            if r is not None:
                gv[i], gr[i] = int(r["value"]), int(r["range"])
    # water's edge (18.6), Royal Navy (17.6) and solitaire (21) tables from the data set
    we_min, we_tab, src = ld.FALLBACK_WE_COL_MIN, ld.FALLBACK_WE_TABLE, {}
    src["waters_edge"] = "reconstructed (engine fallback)"
    rn = dict(sp.FALLBACK_RN_TABLE)
    src["royal_navy"] = "reconstructed (engine fallback)"
    solo_dz = {1: "0911", 2: "0911", 3: "1313", 4: "1512", 5: "1813", 6: "2012"}      # 21.11 b
    solo_zone = {1: "West", 2: "West", 3: "North", 4: "North", 5: "East", 6: "South"}  # 21.2
    cfg = {}
    try:
        from .setup import load_data
        data = load_data(static.provenance.get("data_dir"))
        T = data.tables
        we_min = np.asarray(T.waters_edge_min, np.int32)
        we_tab = np.asarray(T.waters_edge_x, np.int8)
        src["waters_edge"] = "tables/waters_edge.csv"
        rn = {d: sp.RNResult.from_table(r) for d, r in T.rn.items()}
        src["royal_navy"] = "tables/rn_intervention.csv"
        solo_dz = {k + 1: v for k, v in enumerate(T.solo_drop_zones)}
        solo_zone = {k + 1: v for k, v in enumerate(T.solo_beach_zones)}
        cfg["scenario_obj"] = data.scenario("hercules")
    except (ImportError, AttributeError, KeyError):  # pragma: no cover - data set without tables
        pass
    scen = folder / "scenarios" / "hercules.toml"
    if scen.exists():
        cfg.update(read_toml(scen))     # UTF-8 with or without BOM, any line ending
    near_lists = [[h] + [int(x) for x in static.neighbours[h] if x >= 0] for h in range(H)]
    urban = (static.town | static.city).tolist()
    return InvasionStatic(
        zone_names=zone_names, zone_beaches=zone_beaches, beach_zone=beach_zone, ocean=ocean,
        los_block=los_block, los_block_sides=sides, gun_value=gv, gun_range=gr,
        we_col_min=we_min, we_table=we_tab, rn_table=rn,
        solo_dz_hexes={k: grid.index(v) for k, v in solo_dz.items()},
        solo_zones={k: zone_names.index(v) for k, v in solo_zone.items() if v in zone_names},
        scenario_cfg=cfg, sources=src,
        near_lists=near_lists, urban=urban,
        urban_near=[[x for x in near if urban[x]] for near in near_lists],
        near_sets=[{h, *(int(x) for x in static.neighbours[h] if x >= 0)} for h in range(H)],
        ocean_hexes=tuple(int(h) for h in np.flatnonzero(ocean)),
        unit_kinds=[_unit_kind(static, u) for u in range(U)],
        entry_effects=((static.side == AXIS) & (static.utype != st.LEADER)
                       & (static.utype != st.WARSHIP)).tolist(),
        ocean_set=frozenset(int(h) for h in np.flatnonzero(ocean)),
        near_padded=_near_padded(near_lists),
        axis_units_not_leaders=np.flatnonzero((static.side == AXIS) & (static.utype != st.LEADER)),
        **_airfield_tables(static),
        ocean_dist=_ocean_dist(grid.distance_table, ocean),
        allied_firing_guns=np.flatnonzero((static.side == ALLIED) & (static.utype == st.COASTAL_GUN)
                                          & (gv > 0)),
        straggler_pieces=np.flatnonzero((static.side == AXIS) & static.two_sided
                                        & (static.size == st.COMPANY)),
        follow_up_battalions=np.flatnonzero((static.side == AXIS) & (static.size == st.BATTALION)
                                            & (static.utype != st.ARTILLERY)),
        unit_lists=(static.utype.tolist(), static.size.tolist(), static.battalion_of.tolist()),
        axis_by_formation={int(f): np.flatnonzero((static.side == AXIS) & (static.printed_formation == f))
                           for f in np.unique(static.printed_formation[static.side == AXIS])},
        beach_flat=np.concatenate([np.asarray(b, np.int64) for b in zone_beaches] or [np.zeros(0, np.int64)]),
        beach_flat_zone=np.concatenate([np.full(len(b), z, np.int64) for z, b in enumerate(zone_beaches)]
                                       or [np.zeros(0, np.int64)]),
    )


def _ocean_dist(dist: np.ndarray, ocean: np.ndarray) -> np.ndarray:
    """Hexes from each hex to the nearest ocean hex (19.45), 99 when there is
    none: int16[H] (the distance table's type) or int64[H] of 99; read-only.

    Parameters
    ----------
    dist : int16[H, H]
        Hex distances.
    ocean : bool[H]
        Ocean hexes.
    """
    od = dist[:, np.flatnonzero(ocean)].min(axis=1) if ocean.any() else np.full(dist.shape[0], 99)
    od.flags.writeable = False
    return od


def _airfield_tables(static) -> dict:
    """The per-unit tables of an airfield entry (16.1, 16.14): see
    :class:`InvasionStatic` ``airfield_battalions``, ``airfield_entrants``,
    ``airfield_pieces``, ``battalion``."""
    t = static
    axis = t.side == AXIS
    battalion = t.size == st.BATTALION
    bns = axis & battalion & ((t.utype == st.GLIDER) | (t.utype == st.COMMANDO))
    airlanding = ((t.printed_formation == F_80) | (t.utype == st.COMMANDO)
                  | ((t.utype == st.GLIDER) & (t.size == st.COMPANY)))
    entrants = axis & airlanding & ~(battalion & (t.utype != st.ARTILLERY)) & (t.utype != st.LEADER)
    return {"airfield_battalions": np.flatnonzero(bns), "airfield_entrants": entrants,
            "airfield_pieces": np.flatnonzero(bns | entrants), "battalion": battalion.tolist()}


def _near_padded(near_lists: list) -> np.ndarray:
    """int64[H+1, 7]: each hex and its on-map neighbours (``near_lists``),
    padded with ``H``; row ``H`` is all ``H`` (see :func:`_entry_flags`)."""
    H = len(near_lists)
    near = np.full((H + 1, 7), H, np.int64)
    for h, row in enumerate(near_lists):
        near[h, :len(row)] = row
    return near


def _waters_edge_from_csv(path: Path):
    """Water's Edge Combat Table: columns ``strength_min`` and ``die_1..die_6``
    holding ``X``, ``-`` or a count like ``XX`` (rule 18.6)."""
    df = _read_csv(path)
    mins, rows = [], []
    for line, r in enumerate(df.to_dict("records"), start=2):
        try:
            mins.append(int(r["strength_min"]))
        except (KeyError, ValueError):
            raise DataError(str(path), line, "strength_min", "expected an integer") from None
        row = []
        for d in range(1, 7):
            v = str(r.get(f"die_{d}", "-")).strip().upper()
            row.append(0 if v in ("-", "") else v.count("X") if "X" in v else int(v))
        rows.append(row)
    order = np.argsort(mins)
    return np.array(mins, np.int32)[order], np.array(rows, np.int8)[order]


def inv_static(game) -> InvasionStatic:
    """The :class:`InvasionStatic` of ``game`` (built once per static data:
    :attr:`.static.StaticData.invasion`)."""
    return game.static.invasion


def line_of_fire(inv: InvasionStatic, grid, a: int, b: int) -> bool:
    """Whether a coastal gun in hex ``a`` may fire at hex ``b`` (rule 16.54;
    dense hex indices): :func:`.coastal.line_of_fire_clear` over the blocking
    terrain of ``inv``, each pair worked out once per process."""
    key = (a, b)
    ok = inv.los_memo.get(key)
    if ok is None:
        ok = inv.los_memo[key] = cg.line_of_fire_clear(grid.hex_id(a), grid.hex_id(b), inv.los_block,
                                                       inv.los_block_sides)
    return ok


#: :func:`line_of_fire` as defined here (:func:`.policies.base.plain_methods`):
#: :func:`gun_reach` keeps answers only for it.
_PLAIN_LINE_OF_FIRE = plain_methods(sys.modules[__name__], ("line_of_fire",))


def gun_reach(inv: InvasionStatic, grid, gh: int, rg: int):
    """The test "a coastal gun on hex ``gh`` with range ``rg`` reaches hex
    ``b``": within the range and in line of fire (rules 16.54-16.56;
    :func:`line_of_fire`), as a function of ``b``; each answer is kept in
    ``inv.gun_reach`` (a pure function of the two hexes' terrain and the
    range).  A replaced :func:`line_of_fire` is asked afresh each time
    (nothing kept).

    Parameters
    ----------
    inv : InvasionStatic
    grid : HexGrid
        The map grid (``game.static.grid``).
    gh : int
        Dense hex of the gun.
    rg : int
        The gun's range in hexes.

    Returns
    -------
    callable
        ``test(b: int) -> bool`` for a dense target hex ``b``.
    """
    d = grid.distance_table
    if not own_methods(sys.modules[__name__], _PLAIN_LINE_OF_FIRE):
        return lambda b: bool(d[gh, b] <= rg and line_of_fire(inv, grid, gh, b))
    key = (gh, rg)
    reach = inv.gun_reach.get(key)
    if reach is None:
        reach = {}
        inv.gun_reach[key] = reach

    def test(b: int) -> bool:
        r = reach.get(b)
        if r is None:
            r = reach[b] = bool(d[gh, b] <= rg and line_of_fire(inv, grid, gh, b))
        return r
    return test


# =====================================================================================
# Per-game memo
# =====================================================================================
@dataclass
class JumpPlan:
    """One preplanned airborne jump (rules 19.31, 19.32).

    ``kind`` is ``"marker"`` (``hex`` = planned hex) or ``"stick"`` (``offset`` =
    axial offset from the formation's drop zone marker, 19.32; ``units`` the
    stick's units, 19.21)."""

    pid: int
    formation: int
    turn: int
    kind: str
    hex: int = -1
    offset: tuple = (0, 0)
    units: tuple = ()
    stick_kind: str = ""


@dataclass
class InvasionMemo:
    division_zone: dict = field(default_factory=dict)     # formation -> zone (18.21)
    plans: list = field(default_factory=list)             # JumpPlan (19.3)
    next_pid: int = 0
    planned_through_day: int = -1
    warships_placed: bool = False
    ship_fired_turn: dict = field(default_factory=dict)   # ship -> turn it fired at guns (18.4)
    landings_cancelled_turn: int = -1                      # 22.39
    straggler_turn: dict = field(default_factory=dict)    # unit -> turn it tried (17.81)
    dismantled: int = 0                                    # strongpoints dismantled (16.25)
    engineers_placed: int = 0
    air_attacks_cut: int = 0                               # 17.6
    sticks_jumped: dict = field(default_factory=dict)     # turn -> count
    hq_leader_landed: set = field(default_factory=set)    # 18.33
    solitaire: bool = False


def memo(game) -> InvasionMemo:
    m = game.extra.get("inv")
    if m is None:
        m = InvasionMemo()
        game.extra["inv"] = m
    return m


# =====================================================================================
# Adapters to the land engine (with local fallbacks)
# =====================================================================================
_LAND: dict = {}


def _org():
    """The land engine's :mod:`.organisation` (imported on first use: it imports this module)."""
    m = _LAND.get("organisation")
    if m is None:
        from . import organisation as m
        _LAND["organisation"] = m
    return m


def _movement():
    """The land engine's :mod:`.movement` (imported on first use)."""
    m = _LAND.get("movement")
    if m is None:
        from . import movement as m
        _LAND["movement"] = m
    return m


def _illegal(rule, msg):
    from .game import illegal
    return illegal(rule, msg)


def eliminate(game, u: int, cause: str = "") -> None:
    """Eliminate unit ``u`` wherever it is, counting its steps for rule 20
    (the land engine's ``organisation.eliminate``: HQ return 16.82, leaders 14.43,
    integrity 9.95)."""
    _org().eliminate(game, int(u), why=cause)


def lose_step(game, u: int, cause: str = "") -> None:
    """One step loss for ``u`` (rules 9.5, 17.3; companies and artillery are
    eliminated), through ``organisation.lose_step``."""
    _org().lose_step(game, int(u), cause)


def eliminate_leader(game, u: int) -> None:
    """A leader killed (18.33, 19.45): its ADC returns next day (14.43)."""
    _org().leader_eliminated(game, int(u))


def break_down(game, b: int) -> list:
    """Break battalion ``b`` down into companies where it stands -- on the map
    or in its box (rule 13.1); returns the companies (empty when it cannot:
    remnants, Maltese, no pieces left)."""
    org = _org()
    if not org.can_break_down(game, int(b)):
        return []
    box = int(game.state.box[b])
    return list(org.break_down(game, int(b), to_box=None if box == BOX_MAP else box))


#: :func:`break_down` as defined here (:func:`.policies.base.plain_methods`):
#: :func:`_plain_breakdowns` compares with it.
_PLAIN_BREAK_DOWN = plain_methods(sys.modules[__name__], ("break_down",))


def is_broken(game, b: int) -> bool:
    """Battalion ``b`` is broken down: some of its companies are in play (13.1)."""
    s = game.state
    return bool(((s.parent == b) & (s.box != BOX_ELIMINATED) & (s.box != BOX_POOL)).any())


def attack_strength(game, u: int) -> int:
    """Current attack strength (8.31, 11.3, 11.4), from the land engine."""
    cb = _LAND.get("combat")
    if cb is None:
        from . import combat as cb
        _LAND["combat"] = cb
    return int(cb.attack_strength(game, int(u)))


def enemy_zoc(game, side: int) -> np.ndarray:
    """bool[H]: hexes in the ZOC of ``side``'s enemies (rule 5)."""
    return np.asarray(_movement().zoc_map(game, 1 - side), dtype=bool)


def can_enter(game, u: int, h: int) -> bool:
    """Whether ``u`` may step into hex ``h`` by one-hex movement (6.53; 6.52):
    land, passable for its class, not across an all-ocean hexside, no enemy
    units other than leaders/coastal guns/zero-strength units."""
    t, s = game.static, game.state
    if h < 0 or not t.land[h]:
        return False
    here = int(s.hex[u])
    d = -1
    for k in range(6):
        if t.neighbours[here, k] == h:
            d = k
    if d < 0:
        return False
    return _step_ok(game, u, here, d, h)


def _step_ok(game, u: int, here: int, d: int, h: int) -> bool:
    """:func:`can_enter` for the neighbour ``h`` of ``here`` (= the hex of
    ``u``) in direction ``d`` (0-5, :data:`malta_sim.hexgrid` order): rules
    6.52, 6.53."""
    land, ocean_side, road, rise, move_cost, leader, move_class, harmless = game.static.one_hex_tables
    if h < 0 or not land[h] or ocean_side[here][d]:
        return False
    cls = move_class[u] if not leader[u] else 0
    if move_cost[h][cls] >= 99 and not road[here][d]:
        return False
    if cls != st.FOOT and rise[here][d] and not road[here][d]:
        return False
    t = game.static
    for e in game.units_at(h, 1 - int(t.side[u])).tolist():
        if harmless[e]:
            continue
        if game.base_defense(e) > 0:
            return False
    return True


def one_hex_options(game, u: int) -> list:
    """Hexes ``u`` may move one hex into (beach movement 18.7, rally 19.6),
    within the stacking limit (7.1): the neighbours of its hex in direction
    order (N, NE, SE, S, SW, NW) that pass :func:`can_enter` and
    ``organisation.fits_stacking`` (one compiled call,
    :func:`.one_hex_moves.one_hex_kernel`).

    Returns
    -------
    list of int
        Dense hex indices.
    """
    u = int(u)
    s, t, tb = game.state, game.static, game.tables
    side = int(tb.side[u])
    here = int(s.hex[u])
    if side not in (0, 1):                    # pieces of neither side: the plain checks
        fits = _org().fits_stacking
        return [o for d, o in enumerate(t.neighbours[here].tolist())
                if o >= 0 and _step_ok(game, u, here, d, o) and fits(game, [u], o)]
    cls = 0 if t.utype[u] == st.LEADER else int(t.move_class[u])
    return one_hex_kernel(u, here, cls, t.neighbours, t.land, t.ocean_side, t.road, t.rise, t.move_cost,
                          s.hex, s.level, tb.side_mask[1 - side], t.harmless_in_hex, t.defense,
                          tb.side_mask[side], tb.base_weight, tb.remnant_level_full).tolist()


def move_unit(game, u: int, h: int, how: str) -> None:
    """Place ``u`` on hex ``h`` (on the map) and apply the on-entry effects
    (the land engine's ``enter_hex``: control 2.1, overrun 6.52/16.58, forts
    17.1, then :func:`on_enter_hex`).  A paratroop unit jumping into a hex held
    by real Allied defenders skips the overrun and the fort (16.58, 17.1): the
    hostile landing of 19.5 decides."""
    movement = _movement()
    s, t = game.state, game.static
    s.box[u] = BOX_MAP
    s.hex[u] = h
    s.box_slot[u] = -1
    if how == "jump" and any(t.utype[e] not in (st.COASTAL_GUN, st.LEADER) and game.base_defense(e) > 0
                             for e in game.units_at(h, 1 - int(t.side[u]))):
        on_enter_hex(game, u, h, how)
        movement.invalidate(game)
        return
    movement.enter_hex(game, [int(u)], int(h), how)


# =====================================================================================
# Queries
# =====================================================================================
def units_in_box(game, box: int, slot: int | None = None, side: int = AXIS) -> list:
    s, t = game.state, game.static
    m = (s.box == box) & (t.side == side)
    if slot is not None:
        m &= s.box_slot == slot
    return m.nonzero()[0].tolist()


def _allied_answers(game) -> dict:
    """Answers about the Allied pieces on the map, kept in ``game.extra``
    while no Allied piece's box or hex changes (the key holds exactly what
    :func:`allied_unit_hexes` reads of the state); a new position starts an
    empty dict."""
    s = game.state
    al = game.extra.get("_allied_unit_idx")
    if al is None:
        al = game.extra["_allied_unit_idx"] = sp.side_selector(game.static, ALLIED)
    key = (s.box[al].tobytes(), s.hex[al].tobytes())
    memo_ = game.extra.get("_allied_answers")
    if memo_ is None or memo_[0] != key:
        memo_ = game.extra["_allied_answers"] = (key, {})
    return memo_[1]


def allied_unit_hexes(game, include_guns: bool = True) -> np.ndarray:
    """Hexes with Allied units (leaders excluded), ascending (read-only array)."""
    ans = _allied_answers(game)
    hx = ans.get(include_guns)
    if hx is None:
        s, t = game.state, game.static
        m = (s.box == BOX_MAP) & (t.side == ALLIED) & (t.utype != st.LEADER)
        if not include_guns:
            m &= t.utype != st.COASTAL_GUN
        hx = ans[include_guns] = np.unique(s.hex[m])
        hx.flags.writeable = False
    return hx


def dist_to_allied(game, h: int) -> int:
    """Hexes from ``h`` to the nearest Allied unit (99 when none): one
    compiled pass, :func:`.allied_proximity.nearest_allied_unit`."""
    return nearest_allied_unit(game, int(h))


def axis_ground_hexes(game) -> np.ndarray:
    s, t = game.state, game.static
    m = (s.box == BOX_MAP) & (t.side == AXIS) & (t.utype != st.LEADER) & (t.utype != st.WARSHIP)
    return np.unique(s.hex[m]).astype(np.int32)


def aa_within(game, h: int, radius: int = 3) -> int:
    """Allied AA units on the map within ``radius`` hexes of ``h`` (16.12, 17.52,
    19.41): one compiled pass, :func:`.allied_proximity.allied_aa_within`."""
    return allied_aa_within(game, int(h), radius)


def target_beaches(game) -> list:
    """Beach hexes of the zones the divisions land in (for bots)."""
    inv, m = inv_static(game), memo(game)
    out = []
    for z in set(m.division_zone.values()):
        out.extend(int(b) for b in inv.zone_beaches[z])
    return out


def box_steps(game, key) -> int:
    """Steps in the wave box ``key = (wave box code, beach hex)``."""
    return sum(game.steps(u) for u in units_in_box(game, key[0], key[1]) if game.static.utype[u] != st.LEADER)


def rng(game, purpose: str):
    return game.streams[purpose]


def nstate(game, purpose: str) -> np.ndarray:
    """Numba-side random state of ``purpose`` for this game (persisted in the memo)."""
    key = "nb_" + purpose
    stt = game.extra.get(key)
    if stt is None:
        stt = game.streams.numba_state(purpose)
        game.extra[key] = stt
    return stt


def _log(game, action, **kw):
    game.log(action, **kw)


# =====================================================================================
# 3.0 Preparation and set-up (22.33-22.37)
# =====================================================================================
def hercules_setup(game) -> None:
    """Prepare Operation Hercules (rules 3.0 a-f, 22.33-22.37), after the land
    engine's scenario set-up has placed the printed Allied units, filled the
    Disbandment Box (3.0 b) and the militia cup (16.31).

    a) jumps of the first two days are planned (19.3; solitaire: none, 21.1);
    c) unassigned amphibious units are attached to the 4th or 20th Division (15.21);
    d) each division's beach zone is chosen (18.21; solitaire: rolled, 21.2);
    e) strongpoints go adjacent to beach hexes, one per hex (16.2); under 22.39
       Variable Allied Placement the Allied policy places every piece.
    The amphibious units wait off the map (``BOX_NOT_YET``) for the Initial
    Segment of 29 June (18.22); the warships for the first Amphibious Landing
    Phase (22.34).
    """
    name = getattr(game.scenario, "name", "hercules")
    m, s, t = memo(game), game.state, game.static
    m.solitaire = "solitaire" in game.options
    if name != "hercules":
        # Introductory Scenario (22.2): divisions already in their Follow-up boxes,
        # markers on the map; jumps of the first two days are planned (19.3, 22.26)
        fz = getattr(game.scenario, "follow_up_zone", {}) or {}
        m.division_zone = {int(f): int(z) for f, z in fz.items()}
        for f, z in m.division_zone.items():
            s.division_zone[0, f] = z
        if not m.solitaire:
            from .airborne_phase import plan_jumps
            d0 = int(getattr(game.scenario, "first_day", game.day))
            plan_jumps(game, days=(d0, d0 + 1))
        return
    sc = getattr(game.scenario, "data", None) or inv_static(game).scenario_cfg.get("scenario_obj")
    # amphibious units (22.36)
    unassigned = []
    for div, places in sc.amphibious.items():
        for p in places:
            u = t.unit(p.piece)
            s.box[u], s.hex[u], s.box_slot[u] = BOX_NOT_YET, -1, -1
            s.level[u] = p.level - 1
            if t.utype[u] == st.ARTILLERY:
                s.hitched[u] = True
            if div == "unassigned":
                s.formation[u] = -1
                unassigned.append(u)
            else:
                s.formation[u] = {"4": F_4, "20": F_20}[str(div)]
    pol = game.policy(AXIS)
    # (c) attachments (15.21, 18.21)
    if unassigned:
        att = pol.hercules_attachments(game, list(unassigned), list(DIVISIONS))
        for u in unassigned:
            d = att.get(u)
            if d not in DIVISIONS:
                raise _illegal("15.21", f"unassigned unit {t.names[u]} must join the 4th or 20th Division")
            s.formation[u] = d
    # (d) beach zones (18.21 / 21.2)
    inv = inv_static(game)
    zones = {z: [int(b) for b in inv.zone_beaches[z]] for z in range(len(inv.zone_names))}
    if m.solitaire:
        from .solitaire import roll_beach_zones
        m.division_zone = roll_beach_zones(game)
    else:
        ch = pol.hercules_beach_zones(game, list(DIVISIONS), zones)
        for d in DIVISIONS:
            if ch.get(d) not in zones:
                raise _illegal("18.21", "each infantry division needs a beach zone")
        m.division_zone = {d: int(ch[d]) for d in DIVISIONS}
    for d in DIVISIONS:
        s.division_zone[0, d] = m.division_zone[d]
        fz = getattr(game.scenario, "follow_up_zone", None)
        if isinstance(fz, dict):
            fz[d] = m.division_zone[d]                    # 16.82: where a lost HQ returns
    # (a) jump planning for the first two days (19.3), before the Allied set-up
    if not m.solitaire:
        from .airborne_phase import plan_jumps
        plan_jumps(game, days=(0, 1))
    # (e) Allied placement: strongpoints (16.2), or everything under 22.39
    _allied_placement(game, sc)
    _log(game, "hercules_setup", side=AXIS,
         result=f"zones 4th={inv.zone_names[m.division_zone[F_4]]} 20th={inv.zone_names[m.division_zone[F_20]]}",
         rule="3.0")


def _allied_placement(game, sc) -> None:
    """Strongpoints adjacent to beach hexes, one per hex (16.2), on the
    scenario's default hexes; under optional rule 22.39 Variable Allied
    Placement the Allied policy then places every Allied piece on the map."""
    s, t = game.state, game.static
    grid = t.grid
    for fp in getattr(sc, "free_placement", []):
        for pc, hx in zip(fp.pieces, fp.default_hexes):
            u = t.unit(pc)
            s.box[u], s.hex[u] = BOX_MAP, grid.index(hx)
            s.formation[u] = 0
    if "variable_allied_placement" in game.options:
        placed = [int(u) for u in game.on_map(ALLIED)]
        variable_allied_placement(game, placed)


def legal_allied_hexes(game, u: int) -> list:
    """Hexes where an Allied unit may be placed under Variable Allied
    Placement (22.39): RN security in ports, RAF security on airfields,
    strongpoints adjacent to beach hexes (16.2), coastal guns off beaches
    (16.51), all others on land."""
    t = game.static
    land = t.land & ~t.beach if t.utype[u] in (st.COASTAL_GUN,) else t.land
    if t.utype[u] == st.SECURITY:
        nm = t.names[u]
        if ".rn." in nm:
            land = t.main_port | t.minor_port
        else:
            land = t.airfield
    if t.utype[u] == st.STRONGPOINT:
        adj = np.zeros_like(t.land)
        for b in np.flatnonzero(t.beach):
            for o in t.neighbours[b]:
                if o >= 0:
                    adj[o] = True
        land = adj & t.land & ~t.beach
    return [int(h) for h in np.flatnonzero(land)]


def variable_allied_placement(game, units: list) -> None:
    """Optional rule 22.39: the Allied policy re-places ``units`` in eligible
    hexes; engineers stay out (they only come from strongpoints, 16.25);
    stacking (7.1), one RAF company / strongpoint per hex, two guns per hex."""
    s, t = game.state, game.static
    units = [u for u in units if t.utype[u] != st.ENGINEER]
    options = {u: legal_allied_hexes(game, u) for u in units}
    choice = game.policy(ALLIED).allied_placement(game, units, options)
    per_hex_single = {}
    for u in units:
        h = choice.get(u)
        if h not in options[u]:
            raise _illegal("22.39", f"{t.names[u]} cannot be placed there")
        if t.utype[u] in (st.STRONGPOINT,) or (t.utype[u] == st.SECURITY and ".raf." in t.names[u]):
            k = (int(t.utype[u]), h)
            if per_hex_single.get(k):
                raise _illegal("22.39", "one RAF company / strongpoint per hex")
            per_hex_single[k] = True
        s.hex[u] = h
    _check_allied_stacking(game)


def _stack_value(game, u) -> float:
    t = game.static
    if t.utype[u] in (st.LEADER, st.COASTAL_GUN, st.MILITIA, st.HQ, st.WARSHIP):
        return 0.0
    if t.size[u] == st.COMPANY or game.is_remnant(u) or t.utype[u] == st.STRONGPOINT:
        return 0.5
    return 1.0


def _check_allied_stacking(game) -> None:
    s, t = game.state, game.static
    tot: dict = {}
    guns: dict = {}
    for u in game.on_map(ALLIED):
        h = int(s.hex[u])
        tot[h] = tot.get(h, 0) + _stack_value(game, u)
        if t.utype[u] == st.COASTAL_GUN:
            guns[h] = guns.get(h, 0) + 1
    if any(v > 4 for v in tot.values()):
        raise _illegal("7.1", "Allied placement over four battalions in a hex")
    if any(v > 2 for v in guns.values()):
        raise _illegal("16.51", "more than two coastal guns in a hex")


def default_allied_placement(game, units: list, options: dict, gen) -> dict:
    """A legal placement for 22.39 (the bots' default and the random policy's):
    one-per-hex pieces spread first, others near beaches and airfields within
    the stacking limit.  ``gen`` None = deterministic, else shuffled."""
    t = game.static
    inv = inv_static(game)
    beaches = np.concatenate(inv.zone_beaches) if inv.zone_beaches else np.zeros(0, np.int32)
    d = t.grid.distance_table
    load: dict = {}
    guns: dict = {}
    single: set = set()
    out = {}
    order = list(units)
    if gen is not None:
        gen.shuffle(order)
    for u in order:
        opts = list(options[u])
        if gen is not None:
            gen.shuffle(opts)
        else:
            def key(h):
                nb = float(d[h, beaches].min()) if beaches.size else 0.0
                return (abs(nb - 2) + 0.5 * load.get(h, 0) - (2 if t.airfield[h] else 0), h)
            opts.sort(key=key)
        v = _stack_value(game, u)
        for h in opts:
            if load.get(h, 0) + v > 4:
                continue
            if t.utype[u] == st.COASTAL_GUN and guns.get(h, 0) >= 2:
                continue
            single_key = (int(t.utype[u]), h)
            if (t.utype[u] == st.STRONGPOINT or (t.utype[u] == st.SECURITY and ".raf." in t.names[u])) \
                    and single_key in single:
                continue
            out[u] = h
            load[h] = load.get(h, 0) + v
            if t.utype[u] == st.COASTAL_GUN:
                guns[h] = guns.get(h, 0) + 1
            single.add(single_key)
            break
    return out


# =====================================================================================
# 4.1 Initial Segment (invasion steps)
# =====================================================================================
def initial_segment(game) -> None:
    """Invasion steps of the Initial Segment (4.1 a, d; 3.0 e, i-k; 16.41; 19.13)."""
    s, m = game.state, memo(game)
    hercules = getattr(game.scenario, "name", "hercules") == "hercules"
    if hercules and game.day == 0:
        place_follow_up_boxes(game)                            # 4.1 a, 18.22
    # 16.41 with the Royal Navy cut (17.6)
    s.air_support_left[0] = sp.air_support_markers(int(s.weather[0]), int(s.air_support_cut[0]))
    if hercules:
        air_attacks(game)                                      # 4.1 d, 17.5
    from .airborne_phase import move_drop_markers, plan_jumps
    move_drop_markers(game)                                    # 19.13
    if not m.solitaire:
        plan_jumps(game, days=(game.day + 2,))                 # 3.0 e, 19.3
    _rn_expiry(game)                                           # 17.6 effects end
    if game.day >= 1:
        ammunition_landed(game)                                # 3.0 i, 12.54
        dismantle_strongpoints(game)                           # 3.0 j, 16.25
    if game.day == sp.RN_DAY:
        royal_navy_intervention(game)                          # 3.0 k, 17.6


def _rn_expiry(game) -> None:
    """Royal Navy effects that last a number of days (17.6 table) end."""
    s, m = game.state, memo(game)
    until = game.extra.get("rn_until", {})
    if until.get("beach", 99) <= game.day:
        s.beach_supply_barred[0] = False
    if until.get("air_support", 99) <= game.day:
        s.air_support_cut[0] = 0
        s.air_support_left[0] = sp.air_support_markers(int(s.weather[0]), 0)
    if until.get("air_attacks", 99) <= game.day:
        m.air_attacks_cut = 0


def place_follow_up_boxes(game) -> None:
    """Rule 4.1 a / 18.22: every unit of each infantry division (with its
    attached units) goes to the Follow-up box of its beach zone."""
    s, t, m = game.state, game.static, memo(game)
    for u in np.flatnonzero((s.box == BOX_NOT_YET) & (t.side == AXIS) & (t.utype != st.WARSHIP)):
        d = int(s.formation[u])
        if d in m.division_zone:
            s.box[u] = BOX_FOLLOW_UP
            s.box_slot[u] = m.division_zone[d]
    _log(game, "follow_up_boxes", side=AXIS, rule="18.22")


def air_attacks(game) -> None:
    """Rule 17.5: air attacks against coastal guns in this Initial Segment."""
    s, t, m = game.state, game.static, memo(game)
    n = sp.air_attacks_available(game.day, int(s.weather[0]), m.air_attacks_cut)
    s.air_attacks_left[0] = n
    if n <= 0:
        return
    guns = [int(u) for u in game.on_map(ALLIED) if t.utype[u] == st.COASTAL_GUN]
    if not guns:
        return
    aa_near = {g: aa_within(game, int(s.hex[g])) for g in guns}
    plan = game.policy(AXIS).air_attacks(game, guns, n, aa_near)
    if sum(plan.values()) > n or any(g not in aa_near or k < 0 for g, k in plan.items()):
        raise _illegal("17.52", "air attacks exceed those available or target a non-gun")
    rs = nstate(game, "air")
    for g, k in sorted(plan.items()):
        if k <= 0:
            continue
        hit = sp.air_attack_gun(rs, int(k), int(aa_near[g]))
        _log(game, "air_attack", side=AXIS, hexes=[int(s.hex[g])], units=[g],
             result="destroyed" if hit else "missed", rule="17.52")
        if hit:
            eliminate(game, g, "air attack 17.52")
    s.air_attacks_left[0] = n - sum(plan.values())


def ammunition_landed(game) -> None:
    """Rule 12.54: six dice per Axis-controlled Main Port, three per Minor
    Port, one per Axis-controlled beach hex where Axis units have landed; each
    5 or 6 is one salvo for the Axis stockpile."""
    s, t = game.state, game.static
    ax = s.control == AXIS
    n = 6 * int((ax & t.main_port).sum()) + 3 * int((ax & t.minor_port & ~t.main_port).sum()) \
        + int((ax & s.landed_beach).sum())
    if n == 0:
        return
    g = rng(game, "supply")
    salvos = int((g.integers(1, 7, size=n) >= 5).sum())
    s.stockpile[0] += salvos
    _log(game, "ammunition_landed", side=AXIS, result=f"{salvos} salvos from {n} dice", rule="12.54")


def dismantle_strongpoints(game) -> None:
    """Rule 16.25: the Allied player may dismantle strongpoints; every four
    dismantled put one British engineer company (at most two) on the hex of a
    dismantled strongpoint."""
    s, t, m = game.state, game.static, memo(game)
    engineers = [int(u) for u in np.flatnonzero((t.side == ALLIED) & (t.utype == st.ENGINEER)
                                                & (s.box == BOX_POOL))]
    max_n = 4 * len(engineers) - (m.dismantled % 4)
    if max_n <= 0:
        return
    sps = [int(u) for u in game.on_map(ALLIED) if t.utype[u] == st.STRONGPOINT]
    if not sps:
        return
    pick = game.policy(ALLIED).dismantle_strongpoints(game, sps, max_n)
    pick = [u for u in pick if u in sps][:max_n]
    if not pick:
        return
    hexes = [int(s.hex[u]) for u in pick]
    for u in pick:
        s.box[u], s.hex[u] = BOX_REMOVED, -1                   # dismantled: not a loss (20.1)
    m.dismantled += len(pick)
    n_new = sp.engineers_from_dismantling(m.dismantled, m.engineers_placed, len(engineers) + m.engineers_placed)
    for _ in range(max(0, n_new)):
        e = engineers.pop(0)
        h = game.policy(ALLIED).engineer_hex(game, hexes)
        if h not in hexes:
            raise _illegal("16.25", "engineer company must go on a dismantled strongpoint's hex")
        s.box[e], s.hex[e] = BOX_MAP, h
        s.formation[e] = 0
        m.engineers_placed += 1
    _log(game, "dismantle_strongpoints", side=ALLIED, hexes=hexes, result=f"{len(pick)} dismantled",
         rule="16.25")


def royal_navy_intervention(game) -> None:
    """Rule 17.6: one die on the Royal Navy Intervention Table on 1 July."""
    s, t, m = game.state, game.static, memo(game)
    inv = inv_static(game)
    d = game.die("navy")
    s.rn_result[0] = d
    res = inv.rn_table.get(d, sp.RNResult())
    ships = [int(u) for u in np.flatnonzero((t.utype == st.WARSHIP) & ((s.box == BOX_MAP) | (s.box == BOX_NOT_YET)))]
    n = min(len(ships), res.warships_damaged)
    if n:
        hit = game.policy(ALLIED).rn_damage(game, ships, n)
        hit = [u for u in hit if u in ships][:n]
        for u in hit:
            damage_warship(game, u)
    if res.follow_up_steps:
        for z in range(len(inv.zone_names)):
            for _ in range(res.follow_up_steps):
                units = [u for u in units_in_box(game, BOX_FOLLOW_UP, z) if t.utype[u] != st.LEADER]
                if not units:
                    break
                v = game.policy(AXIS).choose_loss(game, units, "royal navy 17.6")
                if v not in units:
                    raise _illegal("17.6", "loss must be taken in the Follow-up box")
                eliminate(game, v, "royal navy 17.6")              # a unit lost, not a step
    if res.beach_supply_barred:
        s.beach_supply_barred[0] = True
    s.air_support_cut[0] = res.air_support_cut
    s.air_support_left[0] = sp.air_support_markers(int(s.weather[0]), int(s.air_support_cut[0]))
    m.air_attacks_cut = res.air_attacks_cut
    game.extra["rn_until"] = {"beach": game.day + res.beach_supply_days,
                              "air_support": game.day + res.air_support_days,
                              "air_attacks": game.day + res.air_attacks_days}
    _log(game, "royal_navy", side=ALLIED, dice=[d], result=str(res), rule="17.6")


def damage_warship(game, u: int) -> None:
    """A warship is damaged: out of the game, one Axis step lost (16.55, 20.2)."""
    s = game.state
    if s.box[u] == BOX_DAMAGED:
        return
    s.box[u], s.hex[u] = BOX_DAMAGED, -1
    s.warships_damaged[0] += 1
    s.axis_steps_lost[0] += 1
    s.steps_lost[u] += 1


# =====================================================================================
# 4.21 Axis Status Phase (invasion steps)
# =====================================================================================
def axis_status(game) -> None:
    """Rule 4.21 d (stragglers 17.8) and e (Delayed Landings, 22.39)."""
    stragglers(game)
    if "delayed_landings" in game.options and game.tod != NIGHT:
        delayed_landings(game)


def stragglers(game) -> None:
    """Rule 17.8: reduced paratroop companies not adjacent to an enemy unit may
    roll to recover (6); a company that tries may not move this turn (17.81)."""
    s, t, m = game.state, game.static, memo(game)
    cands = []
    pieces = inv_static(game).straggler_pieces                              # 17.83 pieces
    reduced = pieces[(s.box[pieces] == BOX_MAP) & s.reduced[pieces]]
    if reduced.size:
        # not in or next to a hex with an Allied unit (99: none on the map)
        cands = reduced[nearest_allied_units(game, s.hex[reduced]) > 1].tolist()
    if not cands:
        return
    pick = [u for u in game.policy(AXIS).stragglers(game, cands) if u in cands]
    rs = nstate(game, "replacements")
    for u in pick:
        m.straggler_turn[u] = game.turn
        s.moved[u] = True                      # 17.81: no movement this turn
        if sp.straggler_roll(rs):
            s.reduced[u] = False
            s.level[u] = 0                                      # full-strength side again
            _log(game, "straggler_recovered", side=AXIS, units=[u], rule="17.8")


def delayed_landings(game) -> None:
    """Optional rule 22.39 Delayed Landings: a modified die of 7+ cancels this
    turn's Amphibious Landing Phase."""
    s, t, m = game.state, game.static, memo(game)
    airfields = int(((s.control == AXIS) & t.airfield).sum())
    para = (t.side == AXIS) & (t.paratroop if hasattr(t, "paratroop") else (t.utype == st.PARATROOP))
    para_steps = int(s.steps_lost[para & (t.utype != st.HQ)].sum())
    hq_lost = sum(1 for f in PARA_FORMATIONS
                  if t.formation_hq[f] >= 0 and s.box[t.formation_hq[f]] in (BOX_ELIMINATED, BOX_TURN_TRACK))
    mod = sp.delayed_landings_modifier(airfields, para_steps, hq_lost, int(s.weather[0]))
    if sp.delayed_landings_roll(nstate(game, "navy"), mod):
        m.landings_cancelled_turn = game.turn
        s.landings_cancelled_turn[0] = game.turn
        _log(game, "landings_delayed", side=AXIS, result=f"modifier {mod}", rule="22.39")


# =====================================================================================
# 4.22 Amphibious Landing Phase
# =====================================================================================
@dataclass
class WaveOptions:
    """Legal wave-box placements for one Amphibious Landing Phase (18.31, 18.32).

    Attributes
    ----------
    zones : dict zone -> list of units in its Follow-up box (companies, HQs,
        artillery; leaders excluded: they ride with their HQ, 18.33).
    first : dict zone -> beach hexes whose First Wave box may be used.
    second_free : dict zone -> beach hexes whose Second Wave box may be used even
        with an empty First Wave box (beach not adjacent to an Allied unit).
    second_needs_first : dict zone -> beach hexes whose Second Wave box needs
        its First Wave box filled this phase.
    """

    zones: dict
    first: dict
    second_free: dict
    second_needs_first: dict


def _kind(game, u: int) -> int:
    """Landing kind of unit ``u`` (18.31, 18.32): a table lookup (see :func:`_unit_kind`)."""
    return inv_static(game).unit_kinds[u]


def _unit_kind(t, u: int) -> int:
    """Landing kind of unit ``u`` from the static tables: marines, engineers,
    artillery, motorcycles, tanks, HQs, infantry companies; ``KIND_OTHER``
    (cannot land) for leaders and unbroken battalions (18.31)."""
    ut = t.utype[u]
    if ut == st.MARINE:
        return ld.KIND_MARINE
    if ut == st.ENGINEER:
        return ld.KIND_ENGINEER
    if ut == st.ARTILLERY:
        return ld.KIND_ARTILLERY
    if ut == st.MOTORCYCLE:
        return ld.KIND_MOTORCYCLE
    if ut == st.TANK:
        return ld.KIND_TANK
    if ut == st.HQ:
        return ld.KIND_HQ
    if ut == st.LEADER:
        return ld.KIND_OTHER
    if t.size[u] == st.COMPANY:
        return ld.KIND_INFANTRY
    return ld.KIND_OTHER     # an unbroken battalion cannot land (18.31)


def wave_options(game) -> WaveOptions:
    """Legal boxes this phase (18.31, 18.32, 18.91)."""
    inv = inv_static(game)
    zones, first, free, needs = {}, {}, {}, {}
    s, t = game.state, game.static
    ax = t.side_units[AXIS]                          # the Axis pieces, ascending
    ax_box = s.box[ax]
    in_waves = set(s.box_slot[ax[(ax_box == BOX_FIRST_WAVE) | (ax_box == BOX_SECOND_WAVE)]].tolist())
    # (beach hexes with a filled wave box)
    # the units that may land, per zone's Follow-up box, ascending (one pass over the boxes)
    kinds = inv.unit_kinds
    fu = ax[ax_box == BOX_FOLLOW_UP]
    by_zone: dict = {}
    for u, z in zip(fu.tolist(), s.box_slot[fu].tolist()):
        if kinds[u] != ld.KIND_OTHER:
            by_zone.setdefault(z, []).append(u)
    for z in range(len(inv.zone_names)):
        units = by_zone.get(z)
        if not units:
            continue
        zones[z] = units
        first[z], free[z], needs[z] = [], [], []
        beaches = inv.zone_beaches[z]
        # distance from each beach hex to the nearest Allied unit (99: none)
        near = nearest_allied_units(game, beaches).tolist()
        for b, dn in zip(beaches.tolist(), near):
            if dn == 0:
                continue                                       # 18.91
            if b in in_waves:
                continue
            first[z].append(b)
            adjacent = dn <= 1
            (needs[z] if adjacent else free[z]).append(b)
    return WaveOptions(zones, first, free, needs)


def fill_wave_boxes(game, opts: WaveOptions, gen) -> dict:
    """A legal filling of the wave boxes: the default (``gen`` None: fill
    everything, infantry first) or random legal (``gen`` a Generator)."""
    t = game.static
    kinds = inv_static(game).unit_kinds          # landing kind per unit (18.31)
    out: dict = {}
    for z, units in opts.zones.items():
        pool = list(units)
        if gen is not None:
            gen.shuffle(pool)
        beaches = list(opts.first[z])
        if gen is not None:
            gen.shuffle(beaches)
        by_beach_div: dict = {}
        if gen is None:
            by_beach_div = _spread_first_wave(game, pool, beaches, out)
        for b in (beaches if gen is not None else ()):
            if gen is not None and gen.random() < 0.3:
                continue
            divs = sorted({int(game.state.formation[u]) for u in pool})
            if not divs:
                break
            div = divs[int(gen.integers(len(divs)))] if gen is not None else \
                max(divs, key=lambda dv: sum(1 for u in pool if int(game.state.formation[u]) == dv))
            mine = [u for u in pool if int(game.state.formation[u]) == div]
            inf = [u for u in mine if kinds[u] in (ld.KIND_INFANTRY, ld.KIND_ENGINEER)]
            mar = [u for u in mine if kinds[u] == ld.KIND_MARINE]
            pick = []
            if (gen is not None and gen.random() < 0.2 and len(mar) >= 2) or (not inf and mar):
                pick = mar[: (3 if gen is None else int(gen.integers(2, 4)))]
            else:
                pick = inf[:2] + mar[:1]
            if not pick:
                continue
            out[(BOX_FIRST_WAVE, b)] = pick
            by_beach_div[b] = div
            for u in pick:
                pool.remove(u)
        order_pref = (ld.KIND_HQ, ld.KIND_INFANTRY, ld.KIND_ENGINEER, ld.KIND_MARINE, ld.KIND_TANK,
                      ld.KIND_MOTORCYCLE, ld.KIND_ARTILLERY)
        seconds = [b for b in opts.second_free[z]] + [b for b in opts.second_needs_first[z] if b in by_beach_div]
        if gen is not None:
            gen.shuffle(seconds)
        for b in seconds:
            if gen is not None and gen.random() < 0.3:
                continue
            cand = [u for u in pool if b not in by_beach_div or int(game.state.formation[u]) == by_beach_div[b]]
            if not cand:
                continue
            if gen is None:
                # the default keeps an HQ back until its beach hex is held or quiet
                held = any(t.utype[v] != st.LEADER for v in game.units_at(b, AXIS))
                quiet = dist_to_allied(game, b) > 2
                if not (held or quiet):
                    cand = [u for u in cand if kinds[u] != ld.KIND_HQ] or []
                if not cand:
                    continue
                cand.sort(key=lambda u: (order_pref.index(kinds[u]), u))
                u = cand[0]
            else:
                u = cand[int(gen.integers(len(cand)))]
            out[(BOX_SECOND_WAVE, b)] = [u]
            pool.remove(u)
    return out


def _spread_first_wave(game, pool: list, beaches: list, out: dict) -> dict:
    """Default First Wave filling of one zone: every open beach hex gets a
    company before any gets a second, then a third (rules 18.31, 18.32).

    Each beach hex still Allied-controlled while the zone's Follow-up box holds
    Axis units adds +1 to every surrender roll (20.0), and a landing takes the
    hex (2.1), so the default lands on as many beach hexes as its companies
    allow.  Per beach hex one division (18.92): the one with the most
    First-Wave companies left.  Infantry and engineers before marines; each box
    stays legal under :func:`landings.first_wave_ok`.  Moves the chosen units
    out of ``pool`` into ``out[(BOX_FIRST_WAVE, beach)]``; returns beach hex ->
    division.
    """
    kinds = inv_static(game).unit_kinds
    kind = {u: kinds[u] for u in pool}
    div_of = {u: int(game.state.formation[u]) for u in pool}
    firsts = [u for u in pool if kind[u] in ld.FIRST_WAVE_KINDS]
    firsts.sort(key=lambda u: (kind[u] == ld.KIND_MARINE, u))
    by_beach_div: dict = {}
    for _round in range(3):
        for b in beaches:
            if not firsts:
                break
            if b in by_beach_div:
                div = by_beach_div[b]
            else:
                divs = sorted({div_of[u] for u in firsts})
                div = max(divs, key=lambda dv: (sum(1 for u in firsts if div_of[u] == dv), -dv))
            box = out.get((BOX_FIRST_WAVE, b), [])
            for u in firsts:
                if div_of[u] != div:
                    continue
                trial = box + [u]
                if ld.first_wave_ok([kind[v] for v in trial], [div] * len(trial))[0]:
                    out[(BOX_FIRST_WAVE, b)] = trial
                    by_beach_div[b] = div
                    firsts.remove(u)
                    pool.remove(u)
                    break
    return by_beach_div


def validate_waves(game, opts: WaveOptions, assign: dict) -> None:
    """Check a wave-box assignment (18.31, 18.32, 18.91, 18.92); raise IllegalDecision."""
    used = set()
    div_of_beach: dict = {}
    zone_of_first = {}
    for z, bs in opts.first.items():
        for b in bs:
            zone_of_first[b] = z
    in_zone: dict = {}                        # zone -> its units as a set (membership only)
    for (wave, b), units in assign.items():
        if b not in zone_of_first:
            raise _illegal("18.32", "box not connected to an occupied Follow-up box, or its beach is Allied-occupied")
        z = zone_of_first[b]
        zu = in_zone.get(z)
        if zu is None:
            zu = in_zone[z] = set(opts.zones[z])
        for u in units:
            if u in used or u not in zu:
                raise _illegal("18.32", "unit not in the box's Follow-up box (or used twice)")
            used.add(u)
        divs = {int(game.state.formation[u]) for u in units}
        if wave == BOX_FIRST_WAVE:
            ok, why = ld.first_wave_ok([_kind(game, u) for u in units], list(divs) * len(units))
            if len(divs) > 1:
                ok, why = False, "rule 18.32: units of different divisions in one First Wave box"
            if not ok:
                raise _illegal("18.31", why)
        else:
            ok, why = ld.second_wave_ok(len(units))
            if not ok:
                raise _illegal("18.32", why)
            if b not in opts.second_free[z] and (BOX_FIRST_WAVE, b) not in assign:
                raise _illegal("18.32", "Second Wave box of an empty First Wave box next to Allied units")
        for dv in divs:
            if div_of_beach.setdefault(b, dv) != dv:
                raise _illegal("18.92", "two divisions on one beach hex in one phase")


def amphibious_landing_phase(game) -> None:
    """Rule 4.22 a-l: wave boxes, warships, coastal fire, two waves landing with
    landing losses, water's edge combat and beach movement (18.3-18.9)."""
    m = memo(game)
    if game.tod == NIGHT:
        return                                                  # 18.93
    if m.landings_cancelled_turn == game.turn:
        return                                                  # 22.39
    _follow_up_breakdowns(game)                                 # 18.31 / 13.1
    opts = wave_options(game)
    if opts.zones:
        assign = game.policy(AXIS).wave_boxes(game, opts)      # 4.22 a
        validate_waves(game, opts, assign)
        s = game.state
        for (wave, b), units in assign.items():
            for u in units:
                s.box[u], s.box_slot[u] = wave, b
            _log(game, "wave_box", side=AXIS, hexes=[b], units=units, rule="18.31")
        _leaders_with_hq(game)                                  # 18.33
    from . import warships as ws
    if not m.warships_placed:
        ws.place_warships(game)                                 # 4.22 b, 16.7
    ws.exchange_fire(game)                                      # 4.22 c, 16.55, 16.79
    coastal_fire_at_boxes(game)                                 # 4.22 d, 16.56
    land_wave(game, BOX_FIRST_WAVE)                             # 4.22 e-h
    land_wave(game, BOX_SECOND_WAVE)                            # 4.22 i-l, 18.8


def _follow_up_breakdowns(game) -> None:
    """Rule 18.31: battalions in Follow-up boxes broken down as the Axis wishes
    (artillery never).

    Most battalions asked for cannot break down (13.1: no company pieces
    left), and :func:`break_down` then changes nothing; one compiled pass
    (:func:`breakable_kernel`) finds those, and they are passed over until a
    break-down changes the position (then each is asked afresh).  Only with
    the package's own :func:`break_down` and ``can_break_down``
    (:func:`_plain_breakdowns`); otherwise every pick goes to
    :func:`break_down`."""
    s, t = game.state, game.static
    cand = inv_static(game).follow_up_battalions
    bns = cand[s.box[cand] == BOX_FOLLOW_UP].tolist()
    if not bns:
        return
    pick = [u for u in game.policy(AXIS).follow_up_breakdowns(game, bns) if u in bns]
    if not pick:
        return
    ok = breakable(game, pick) if _plain_breakdowns(game) else None
    for i, b in enumerate(pick):
        if ok is not None and not ok[i]:
            continue                          # can_break_down is False: nothing would change
        if break_down(game, b):
            ok = None                         # the position changed: ask afresh


def breakable(game, units) -> list:
    """Per unit of ``units`` (sequence of unit indices), whether
    ``organisation.can_break_down`` holds now (rule 13.1; 17.31 remnants,
    Maltese units never), as Python bools: one :func:`breakable_kernel` pass."""
    s, t, tb = game.state, game.static, game.tables
    return breakable_kernel(np.asarray(units, np.int64), s.box, s.level, s.parent, tb.can_break,
                            tb.remnant_level, t.breakdown_n, t.breakdown_kind,
                            *tb.companies_of_csr, *tb.companies_of_kind_csr).tolist()


@nb.njit(cache=True)
def breakable_kernel(units, box, level, parent, can_break, remnant_level, breakdown_n, breakdown_kind,
                     own_start, own_flat, kind_start, kind_flat):
    """``organisation.can_break_down`` for each of ``units`` (rule 13.1): a
    battalion type that may break down (``can_break``: not Maltese) with
    company pieces enough (:func:`.reorganisation.companies_suffice`: not a
    remnant, 17.31; steps left to become companies; that many pieces free).

    Parameters
    ----------
    units : int64[k]
        Unit indices.
    box, level, parent : arrays [n_units]
        State fields of the same names.
    can_break : bool[n_units]
        ``StaticTables.can_break``.
    remnant_level : int8[n_units]
        ``StaticTables.remnant_level`` (-1: never a remnant).
    breakdown_n : int8[n_units]; breakdown_kind : int[n_units]
        Companies of a full-strength battalion; generic company kind (-1 none).
    own_start, own_flat, kind_start, kind_flat : int64 arrays
        ``StaticTables.companies_of_csr`` and ``companies_of_kind_csr``.

    Returns
    -------
    bool[k]
    """
    out = np.zeros(units.shape[0], np.bool_)
    for j in range(units.shape[0]):
        b = units[j]
        if can_break[b]:
            out[j] = companies_suffice(b, box, level, parent, remnant_level, breakdown_n, breakdown_kind,
                                       own_start, own_flat, kind_start, kind_flat)
    return out


def _plain_breakdowns(game) -> bool:
    """Whether a break-down here (rule 18.31, 13.1) is the package's own: this module's
    :func:`break_down`, ``organisation.can_break_down`` and ``companies_for``
    and the game's ``is_remnant`` (what :func:`breakable_kernel` stands for)."""
    from .game import PLAIN_IS_REMNANT
    org = _org()
    return (own_methods(sys.modules[__name__], _PLAIN_BREAK_DOWN)
            and own_methods(org, org.PLAIN_BREAKDOWN)
            and own_methods(game, PLAIN_IS_REMNANT))


def _leaders_with_hq(game) -> None:
    """Rule 18.33: the first time a division HQ goes to a Second Wave box its
    leader goes with it; a leader whose HQ has landed goes with any unit of
    its formation placed in a wave box."""
    s, t, m = game.state, game.static, memo(game)
    for f in DIVISIONS:
        ldr = int(t.formation_leader[f])
        hq = int(t.formation_hq[f])
        if ldr < 0 or s.box[ldr] != BOX_FOLLOW_UP:
            continue
        if hq >= 0 and s.box[hq] == BOX_SECOND_WAVE:
            s.box[ldr], s.box_slot[ldr] = BOX_SECOND_WAVE, s.box_slot[hq]
            continue
        if hq >= 0 and s.box[hq] == BOX_FOLLOW_UP:
            continue                                            # waits for its HQ
        for wave in (BOX_FIRST_WAVE, BOX_SECOND_WAVE):
            us = [u for u in np.flatnonzero((s.box == wave) & (s.formation == f)) if t.utype[u] != st.LEADER]
            if us:
                s.box[ldr], s.box_slot[ldr] = wave, s.box_slot[us[0]]
                break


def coastal_fire_at_boxes(game) -> None:
    """Rule 16.56: guns that did not fire at warships fire at wave boxes whose
    beach hex is in range and in line of fire (16.54); +1 within 3 hexes; each
    6+ is one step (Axis choice); excess hits are ignored."""
    s, t = game.state, game.static
    inv = inv_static(game)
    cgu = inv.allied_firing_guns
    guns = cgu[(s.box[cgu] == BOX_MAP) & (s.gun_fired_turn[cgu] != game.turn)].tolist()
    ax = t.side_units[AXIS]
    ax_box = s.box[ax]
    filled = ax[(ax_box == BOX_FIRST_WAVE) | (ax_box == BOX_SECOND_WAVE)]
    boxes = sorted(set(zip(s.box[filled].tolist(), s.box_slot[filled].tolist())))
    if not guns or not boxes:
        return
    grid = t.grid
    d = grid.distance_table
    options = {}
    for g, gh in zip(guns, s.hex[guns].tolist()):
        reach = gun_reach(inv, grid, gh, int(inv.gun_range[g]))
        ok = [k for k in boxes if reach(k[1])]
        if ok:
            options[g] = ok
    if not options:
        return
    choice = game.policy(ALLIED).coastal_fire_boxes(game, options)
    rs = nstate(game, "landing")
    for g, k in sorted(choice.items()):
        if g not in options or k not in options[g]:
            raise _illegal("16.56", "coastal gun target out of range or line of fire")
        within3 = d[int(s.hex[g]), k[1]] <= cg.CLOSE_RANGE
        hits = cg.gun_fires_at_wave_box(rs, int(inv.gun_value[g]), bool(within3))
        s.revealed[g] = True                                    # 16.52
        s.gun_fired_turn[g] = game.turn
        if game.events is not None:
            _log(game, "coastal_fire_box", side=ALLIED, hexes=[k[1]], units=[g], result=f"{hits} hits",
                 rule="16.56")
        for _ in range(hits):
            victims = [u for u in units_in_box(game, k[0], k[1]) if t.utype[u] != st.LEADER]
            if not victims:
                break                                           # excess hits ignored
            v = game.policy(AXIS).choose_loss(game, victims, "coastal fire 16.56")
            if v not in victims:
                raise _illegal("16.56", "loss must come from the box fired upon")
            _box_unit_loss(game, v)


def _box_unit_loss(game, v: int) -> None:
    """A step lost by a unit in a wave box; the 4th Division's leader dies with
    its HQ there (18.33); a leader alone in a box returns to the Follow-up box."""
    s, t = game.state, game.static
    box, slot = int(s.box[v]), int(s.box_slot[v])
    lose_step(game, v, "coastal fire 16.56")
    if t.utype[v] == st.HQ:
        f = int(t.printed_formation[v])
        ldr = int(t.formation_leader[f]) if f >= 0 else -1
        if ldr >= 0 and s.box[ldr] == box and s.box_slot[ldr] == slot:
            eliminate_leader(game, ldr)


def _landing_hex_ok(game, b: int) -> bool:
    return not any(game.static.utype[e] != st.LEADER for e in game.units_at(b, ALLIED))


#: Type of the answers kept for one loop over landed units (hex -> answer);
#: a test replaces it by a dict that keeps nothing, to play the plain path.
_loop_memo = dict


def land_wave(game, wave: int) -> None:
    """Land one wave (4.22 e-h or i-l): move to the beach, landing losses
    (18.5), water's edge combat (18.6), beach movement (18.7)."""
    s, t = game.state, game.static
    ax = t.side_units[AXIS]
    units = ax[s.box[ax] == wave].tolist()
    if not units:
        return
    landed = []
    utype, turn = game.tables.utype, game.turn         # (unit types as Python ints)
    for u in sorted(units, key=lambda x: (utype[x] == st.LEADER, x)):
        b = int(s.box_slot[u])
        if not _landing_hex_ok(game, b):
            # 18.91: never onto an Allied-occupied beach hex (an uprising there in this phase)
            s.box[u], s.box_slot[u] = BOX_FOLLOW_UP, int(inv_static(game).beach_zone[b])
            continue
        s.entered_turn[u] = turn
        s.landed_beach[b] = True
        move_unit(game, u, b, "landing")
        s.control[b] = AXIS
        landed.append(u)
    if game.events is not None:
        _log(game, "landing", side=AXIS, hexes=sorted({int(s.hex[u]) for u in landed}), units=landed,
             rule="18.5" if wave == BOX_FIRST_WAVE else "18.8")
    # 18.5 landing losses
    rs = nstate(game, "landing")
    dists = _loop_memo()      # hex -> dist_to_allied: only Axis pieces are eliminated in this loop
    for u in landed:
        if utype[u] in (st.LEADER, st.HQ) or s.box[u] != BOX_MAP:
            continue
        x = int(s.hex[u])
        dist = dists.get(x)
        if dist is None:
            dist = dists[x] = dist_to_allied(game, x)
        if dist <= 2 and ld.landing_loss_roll(rs, dist):
            _log(game, "landing_loss", side=AXIS, hexes=[x], units=[u], rule="18.5")
            eliminate(game, u, "landing losses 18.5")
    _leaders_alone(game, landed)
    waters_edge_combat(game, [u for u in landed if s.box[u] == BOX_MAP])
    # 18.7 beach movement (the Allied ZOC map only when a landed unit is left)
    movers = [u for u in landed if s.box[u] == BOX_MAP]
    if movers:
        zoc = enemy_zoc(game, AXIS)
        movers = [u for u in movers if not zoc[s.hex[u]]]
    pol = game.policy(AXIS)
    for u in movers:
        if s.box[u] != BOX_MAP:
            continue
        opts = one_hex_options(game, u)
        h = pol.one_hex_move(game, u, opts, "beach movement 18.7")
        if h is None:
            continue
        if h not in opts:
            raise _illegal("18.7", "beach movement is one hex of normal movement")
        move_unit(game, u, int(h), "move")
    _reform(game, [int(s.hex[u]) for u in landed if s.box[u] == BOX_MAP])


def _leaders_alone(game, units) -> None:
    """A leader whose units on a beach hex were all lost goes back to the
    Follow-up box of its division (it may land again later, 14.43 reading)."""
    s, t = game.state, game.static
    for u in units:
        if t.utype[u] != st.LEADER or s.box[u] != BOX_MAP:
            continue
        h = int(s.hex[u])
        mates = [v for v in game.units_at(h, AXIS) if t.utype[v] != st.LEADER]
        if not mates:
            s.box[u], s.hex[u] = BOX_FOLLOW_UP, -1
            s.box_slot[u] = memo(game).division_zone.get(int(t.printed_formation[u]), 0)


def _reform(game, hexes) -> None:
    """Companies on the given hexes may reform battalions (13.2; 18.7, 19.6),
    through the land engine's reform step when it offers one."""
    org = _org()
    fn = getattr(org, "reform_at", None)
    if fn is not None and hexes:
        fn(game, sorted(set(hexes)))


def waters_edge_combat(game, landed: list) -> None:
    """Rule 18.6: Allied units adjacent to beach hexes with newly landed Axis
    units may fire (not across all-ocean hexsides); each X eliminates one Axis
    unit (Axis choice); then each attacked hex fires back with the combined
    strength of its Axis units; each X is one step lost by an Allied unit of the
    Allied player's choice adjacent to that hex (not coastal guns, 16.57).
    All hits are step losses, no retreat or advance (18.63)."""
    s, t = game.state, game.static
    inv = inv_static(game)
    targets = sorted({int(s.hex[u]) for u in landed if s.box[u] == BOX_MAP})
    if not targets:
        return
    options: dict = {}
    # Allied units per hex, ascending (= units_at(o, ALLIED)); nothing moves while options are listed
    # (only the Allied units next to a target hex are listed: one array pass)
    nb = t.neighbours[targets]
    adjacent = np.zeros(t.n_hexes + 1, bool)
    adjacent[nb[nb >= 0]] = True
    al = ((s.hex >= 0) & (t.side == ALLIED)).nonzero()[0]
    al = al[adjacent[s.hex[al]]]
    # (only those that may fire: not leaders or coastal guns, attack strength
    # above 0; each unit's strength asked once)
    allied_at: dict = {}
    utype = game.tables.utype
    for a, x in zip(al.tolist(), s.hex[al].tolist()):
        if utype[a] in (st.LEADER, st.COASTAL_GUN) or attack_strength(game, a) <= 0:
            continue
        allied_at.setdefault(x, []).append(a)
    if not allied_at:
        return
    for b in targets:
        for o, across_ocean in zip(t.neighbours[b].tolist(), t.ocean_side[b].tolist()):
            if o < 0 or across_ocean:
                continue
            for a in allied_at.get(o, ()):
                options.setdefault(a, []).append(b)
    if not options:
        return
    choice = game.policy(ALLIED).waters_edge_attacks(game, options)
    by_hex: dict = {}
    for a, b in choice.items():
        if a not in options or b not in options[a]:
            raise _illegal("18.61", "water's edge attacker must be adjacent to the beach hex")
        by_hex.setdefault(b, []).append(a)
    rs = nstate(game, "combat")
    for b, attackers in sorted(by_hex.items()):
        strength = sum(attack_strength(game, a) for a in attackers)
        x = ld.waters_edge_fire(rs, strength, inv.we_col_min, inv.we_table)
        if game.events is not None:
            _log(game, "waters_edge_allied", side=ALLIED, hexes=[b], units=attackers,
                 result=f"{x} X (strength {strength})", rule="18.61")
        for _ in range(x):
            victims = [u for u in game.units_at(b, AXIS) if t.utype[u] != st.LEADER]
            if not victims:
                break
            v = game.policy(AXIS).choose_loss(game, victims, "water's edge 18.61")
            if v not in victims:
                raise _illegal("18.61", "the unit eliminated must be in the attacked hex")
            eliminate(game, v, "water's edge 18.61")
        _leaders_alone(game, list(game.units_at(b, AXIS)))
    for b in sorted(by_hex):
        axis_units = [u for u in game.units_at(b, AXIS) if t.utype[u] != st.LEADER]
        if not axis_units:
            continue
        strength = sum(attack_strength(game, u) for u in axis_units)
        x = ld.waters_edge_fire(rs, strength, inv.we_col_min, inv.we_table)
        if game.events is not None:
            _log(game, "waters_edge_axis", side=AXIS, hexes=[b], units=axis_units,
                 result=f"{x} X (strength {strength})", rule="18.62")
        for _ in range(x):
            victims = []
            for d in range(6):
                o = t.neighbours[b, d]
                if o >= 0:
                    victims += [int(a) for a in game.units_at(int(o), ALLIED)
                                if t.utype[a] not in (st.LEADER, st.COASTAL_GUN)]
            if not victims:
                break
            v = game.policy(ALLIED).choose_loss(game, victims, "water's edge 18.62")
            if v not in victims:
                raise _illegal("18.62", "the step lost must be in a hex adjacent to the attacked hex")
            lose_step(game, v, "water's edge 18.62")


# =====================================================================================
# Axis Movement Phase hooks: airfields (16.1)
# =====================================================================================
def airfield_entry(game) -> None:
    """Rules 16.11-16.15 (4.24 f-g): up to two company equivalents land on
    Axis-controlled airfields with no adjacent Allied unit (not Rainy, not
    Night); then Allied AA units within 3 hexes fire at them (16.12)."""
    from . import airfields as af

    s, t = game.state, game.static
    if game.tod == NIGHT or s.weather[0] == RAINY:
        return                                                  # 16.15
    inv = inv_static(game)
    rel = inv.airfield_pieces
    if not (s.box[rel] == BOX_DISBANDMENT).any():
        return              # nothing to break down and no candidate below: nothing happens
    d = t.grid.distance_table
    held = np.flatnonzero(t.airfield & (s.control == AXIS))
    if held.size:
        held = held[nearest_allied_units(game, held) > 1]   # no Allied unit in or next to it
    fields = held.tolist()
    if not fields:
        return
    # battalions with companies in play (is_broken for every battalion at once;
    # breaking one battalion down gives companies to it alone)
    broken = set(s.parent[(s.parent >= 0) & (s.box != BOX_ELIMINATED) & (s.box != BOX_POOL)].tolist())
    # battalions of the 80th Division and the commandos break down first (16.1, 16.14)
    bns = inv.airfield_battalions
    before = None
    for b in bns[s.box[bns] == BOX_DISBANDMENT].tolist():
        if b not in broken:
            if before is None:
                before = (s.parent.tobytes(), s.box.tobytes())
            break_down(game, b)
    # the broken-down battalions now (nothing changes while the candidates are
    # listed; nor above unless a break-down changed the pieces' parents or
    # boxes, whatever a replaced break_down returns)
    if before is not None and before != (s.parent.tobytes(), s.box.tobytes()):
        broken = set(s.parent[(s.parent >= 0) & (s.box != BOX_ELIMINATED) & (s.box != BOX_POOL)].tolist())
    battalion = inv.battalion
    # companies (16.1) and artillery battalions not broken down; no leaders
    ok = (s.box == BOX_DISBANDMENT) & inv.airfield_entrants
    cands = [u for u in ok.nonzero()[0].tolist() if not (battalion[u] and u in broken)]
    if not cands:
        return
    cost = {u: af.airfield_cost(a) for u, a in zip(cands, (t.utype[cands] == st.ARTILLERY).tolist())}
    pick = game.policy(AXIS).airfield_landings(game, cands, fields, af.AIRFIELD_CAPACITY, cost)
    if sum(cost.get(u, 99) for u, _ in pick) > af.AIRFIELD_CAPACITY:
        raise _illegal("16.11", "at most two company equivalents land at airfields per phase")
    landed: dict = {}
    for u, h in pick:
        if u not in cost or h not in fields:
            raise _illegal("16.11", "airborne entry only on Axis airfields with no adjacent Allied unit")
        if s.formation[u] < 0 and t.printed_formation[u] >= 0:
            s.formation[u] = t.printed_formation[u]
        # commando companies stay unassigned until attached in an Initial Segment (16.14, 15.21)
        s.entered_turn[u] = game.turn
        s.moved[u] = True                                       # 16.13
        if t.utype[u] == st.ARTILLERY:
            s.hitched[u] = True                                 # 16.13
        move_unit(game, u, int(h), "airfield")
        landed.setdefault(int(h), []).append(u)
    if not landed:
        return
    _log(game, "airfield_landing", side=AXIS, hexes=list(landed), units=[u for u, _ in pick], rule="16.11")
    # 16.12 AA fire
    aas = game.on_map(ALLIED)
    aas = aas[t.aa[aas]].tolist()                               # Allied AA units on the map
    options = {a: [h for h in landed if d[s.hex[a], h] <= af.AA_RANGE] for a in aas}
    options = {a: v for a, v in options.items() if v}
    if not options:
        return
    choice = game.policy(ALLIED).aa_targets(game, options)
    rs = nstate(game, "air")
    for a, h in sorted(choice.items()):
        if a not in options or h not in options[a]:
            raise _illegal("16.12", "AA fires at one airfield within three hexes")
        if af.aa_fire(rs):
            victims = [u for u in landed[h] if s.box[u] == BOX_MAP]
            if victims:
                v = game.policy(AXIS).choose_loss(game, victims, "AA fire 16.12")
                if v not in victims:
                    raise _illegal("16.12", "AA loss must be a unit just landed there")
                eliminate(game, v, "AA fire 16.12")
                _log(game, "aa_fire", side=ALLIED, hexes=[h], units=[a, v], result="eliminated", rule="16.12")


# =====================================================================================
# Entering hexes: militia (16.32), coastal guns (16.58), strongpoints (16.22)
# =====================================================================================
def _militia_in_cup(game) -> list:
    """Militia pieces in the cup (16.32), ascending unit indices (Python ints)."""
    t = game.static
    mil = game.extra.get("_militia_units")
    if mil is None:
        idx = np.flatnonzero(t.utype == st.MILITIA)
        mil = game.extra["_militia_units"] = (idx, idx.tolist())
    idx, units = mil
    return [m for m, b in zip(units, game.state.box[idx].tolist()) if b == BOX_CUP]


def _guns_and_strongpoints(game, cgu, cgu_list, sp, sp_list, inv, h: int, how: str) -> None:
    """Entry effects of an Axis unit on hex ``h`` that concern Allied coastal
    guns (16.58: overrun in ``h``) and strongpoints (16.22: revealed in ``h``
    or next to it); see :func:`on_enter_hex`."""
    s, t = game.state, game.static
    # = the coastal guns of units_at(h, ALLIED), in unit order
    guns = [g for g, x in zip(cgu_list, s.hex[cgu].tolist()) if x == h] if cgu_list else []
    if guns:
        others = [e for e in game.units_at(h, ALLIED) if t.utype[e] not in (st.COASTAL_GUN, st.LEADER)
                  and game.base_defense(e) > 0]
        if not (how == "jump" and others):
            for g in guns:
                eliminate(game, g, "coastal gun overrun 16.58")
    # Allied strongpoints in h or next to it, found in one pass over the strongpoints
    if sp_list:
        near_h = inv.near_sets[h]                                # h and its neighbours
        for k, x in zip(sp_list, s.hex[sp].tolist()):
            if x in near_h:
                s.revealed[k] = True


def on_enter_hex(game, u: int, h: int, how: str = "move") -> None:
    """Effects of an Axis unit entering hex ``h`` (any way).

    * 16.58: coastal guns in the hex are eliminated (not by a paratroop jump
      into a hex with other Allied defenders: 19.5 decides).
    * 16.22: strongpoints adjacent to an Axis unit are revealed.
    * 16.32: the first Axis arrival in or next to a town/city hex rolls for a
      militia uprising (stops when the cup is empty, 16.36); a piece drawn for a
      hex the Axis already occupies (other than by a paratroop jump, which
      fights it under 19.5) is crushed at once.

    Parameters
    ----------
    game : Game
    u : int
        Unit index of the entering piece (pieces that are not Axis units --
        Allied pieces, leaders, warships -- have no entry effects here).
    h : int
        Dense index of the hex entered (negative: off the map, nothing happens).
    how : {"move", "move_end", "landing", "jump", "airfield", "advance", ...}
        ``"move"``: a hex passed through in the middle of a move (the uprising
        rolls of 16.32 wait for the move's end, ``"move_end"``).
    """
    inv = inv_static(game)
    if h < 0 or not inv.entry_effects[u]:
        return
    s = game.state
    # the Allied coastal guns and strongpoints (fixed per static data), as
    # index arrays and as lists of Python ints
    pieces = game.extra.get("_allied_guns_strongpoints")
    if pieces is None:
        t = game.static
        cgu = np.flatnonzero((t.utype == st.COASTAL_GUN) & (t.side == ALLIED))
        sp = np.flatnonzero((t.utype == st.STRONGPOINT) & (t.side == ALLIED))
        pieces = game.extra["_allied_guns_strongpoints"] = (cgu, cgu.tolist(), sp, sp.tolist(),
                                                            np.concatenate([cgu, sp]))
    cgu, cgu_list, sp, sp_list, both = pieces
    # hexes where an entry finds a gun (16.58) or a strongpoint in or next to it
    # (16.22), per hex as Python bools, kept while the guns and strongpoints
    # stay where they are
    key = s.hex[both].tobytes()
    watch = game.extra.get("_entry_watch")
    if watch is None or watch[0] != key:
        watch = game.extra["_entry_watch"] = (key, _entry_flags(game, inv, s.hex[cgu], s.hex[sp]).tolist())
    if watch[1][h]:
        _guns_and_strongpoints(game, cgu, cgu_list, sp, sp_list, inv, h, how)
    near = inv.urban_near[h]          # h and its neighbours that are towns or cities
    if how == "move":
        # a hex passed through in the middle of a move: the uprising is rolled
        # when the move ends ("move_end"), so no militia appears in the mover's
        # path; nothing to note when no town or city is in or next to h
        if near and _cup_has_militia(game):
            game.extra.setdefault("militia_pending", []).extend(near)
        return
    if not near and (how != "move_end" or "militia_pending" not in game.extra):
        return                      # no town or city to roll for (16.32), none pending
    if not _cup_has_militia(game):
        return                                                  # 16.36
    if how == "move_end":
        near = game.extra.pop("militia_pending", []) + near
    if near:
        _militia_uprisings(game, inv, near, h, how)


def _entry_flags(game, inv, gun_hexes: np.ndarray, sp_hexes: np.ndarray) -> np.ndarray:
    """bool[H]: hexes whose entry by an Axis unit finds an Allied coastal gun
    in the hex (16.58) or an Allied strongpoint in it or next to it (16.22).

    Parameters
    ----------
    inv : InvasionStatic
    gun_hexes, sp_hexes : int array
        Hexes (dense indices; -1 off the map) of the Allied coastal guns and
        strongpoints.
    """
    near = inv.near_padded
    H = near.shape[0] - 1
    flags = np.zeros(H + 1, bool)
    flags[gun_hexes[gun_hexes >= 0]] = True
    flags[near[np.where(sp_hexes >= 0, sp_hexes, H)]] = True
    return flags[:H]


def _cup_has_militia(game) -> bool:
    """Whether a militia piece is left in the cup (16.32, 16.36)."""
    mil = game.extra.get("_militia_units")
    if mil is None:
        idx = np.flatnonzero(game.static.utype == st.MILITIA)
        mil = game.extra["_militia_units"] = (idx, idx.tolist())
    return BOX_CUP in game.state.box[mil[0]].tolist()


def _militia_uprisings(game, inv, near: list, h: int, how: str) -> None:
    """Rule 16.32: an uprising roll for each town or city hex of ``near`` (in
    order, each hex once per game) after an Axis unit's entry into hex ``h``
    (``how`` as in :func:`on_enter_hex`)."""
    s, t = game.state, game.static
    urban = inv.urban
    for x in dict.fromkeys(near):
        if x < 0 or not urban[x] or s.militia_rolled[x]:
            continue
        cup = _militia_in_cup(game)
        if not cup:
            return                                              # 16.36
        s.militia_rolled[x] = True
        if not mil.militia_roll(nstate(game, "militia"), bool(t.city[x])):
            continue
        piece = cup[int(rng(game, "militia").integers(len(cup)))]
        axis_there = x == h or any(t.utype[v] != st.LEADER for v in game.units_at(x, AXIS))
        if axis_there and not (how == "jump" and x == h):
            s.box[piece], s.hex[piece] = BOX_ELIMINATED, -1     # crushed at once (see docstring)
            _log(game, "militia_crushed", side=ALLIED, hexes=[x], units=[piece], rule="16.32")
            continue
        s.box[piece], s.hex[piece] = BOX_MAP, x
        s.formation[piece] = 0
        s.revealed[piece] = how == "jump" and x == h            # 16.32 face up
        if not axis_there:
            s.control[x] = ALLIED
        _log(game, "militia", side=ALLIED, hexes=[x], units=[piece], rule="16.32")


# =====================================================================================
# 20.0 surrender modifiers of the invasion
# =====================================================================================
def surrender_modifier(game) -> int:
    """Invasion terms of rule 20.0: +1 per Allied-controlled beach hex connected
    to a Follow-up box holding Axis units; Royal Navy result +1 (4-5) / +3 (6).
    (Damaged warships count as Axis steps through ``axis_steps_lost``, 20.2.)"""
    s = game.state
    inv = inv_static(game)
    mod = int(beach_term_kernel(s.box, s.box_slot, inv.axis_units_not_leaders, s.control, inv.beach_flat,
                                inv.beach_flat_zone, len(inv.zone_names)))
    return mod + sp.rn_surrender_modifier(int(s.rn_result[0]))


@nb.njit(cache=True)
def beach_term_kernel(box, box_slot, units, control, beach_hexes, beach_zone, n_zones):
    """The beach term of rule 20.0: Allied-controlled beach hexes of the zones
    whose Follow-up box holds Axis units (leaders are not units, 14.0).

    Parameters
    ----------
    box, box_slot : int arrays [U]
        State: box and slot (the zone of a Follow-up box) per unit.
    units : int64[k]
        The Axis pieces other than leaders.
    control : int8[H]
        Controlling side per hex.
    beach_hexes, beach_zone : int64[B]
        Every zone's beach hexes (``InvasionStatic.zone_beaches`` in zone
        order) and the zone of each.
    n_zones : int
        Beach zones.

    Returns
    -------
    int
        Die roll modifier (+1 per such hex).
    """
    held = np.zeros(n_zones, np.bool_)
    for j in range(units.shape[0]):
        u = units[j]
        if box[u] == BOX_FOLLOW_UP and 0 <= box_slot[u] < n_zones:
            held[box_slot[u]] = True
    mod = 0
    for i in range(beach_hexes.shape[0]):
        if held[beach_zone[i]] and control[beach_hexes[i]] == ALLIED:
            mod += 1
    return mod


def airborne_landing_phase(game) -> None:
    """Rule 4.23 (see :mod:`.airborne_phase`)."""
    from .airborne_phase import airborne_landing_phase as _alp
    _alp(game)


def warship_movement(game) -> None:
    """Rule 4.24 d (see :mod:`.warships`)."""
    from .warships import warship_movement as _wm
    _wm(game)


def register() -> None:
    """Install the invasion hooks in the sequence of play."""
    from . import sequence

    sequence.register_hook("setup", hercules_setup)
    sequence.register_hook("initial_segment", initial_segment)
    sequence.register_hook("axis_status", axis_status)
    sequence.register_hook("amphibious_landing", amphibious_landing_phase)
    sequence.register_hook("airborne_landing", airborne_landing_phase)
    sequence.register_hook("warship_movement", warship_movement)
    sequence.register_hook("airfield_entry", airfield_entry)
    sequence.register_hook("on_enter_hex", on_enter_hex)
    sequence.register_hook("surrender_modifier", surrender_modifier)


register()
