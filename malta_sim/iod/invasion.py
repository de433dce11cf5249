"""The invasion's shared pieces (rules 16-19, 21, 22.3): the tables derived
from the data folder (:class:`InvasionStatic`), the per-game record that is
not an array (:class:`InvasionMemo`: jump plans 19.3, division beach zones
18.21, the units landed this phase), queries the invasion rules share
(Allied units near a hex, one-hex moves, entering a hex), and the invasion's
steps of the Initial Segment and the Axis Status Phase.

Where each invasion rule lives:

* set-up: :mod:`.scenarios.hercules` (3.0 a-f, 15.21, 16.2, 18.21, 19.3,
  22.33-22.39), :mod:`.scenarios.intro` (22.2)
* :func:`initial_segment` -- 4.1 a (Follow-up boxes, 18.22), 4.1 d (air attacks
  17.5), 3.0 e (jump planning 19.3), 19.13 (drop zone marker moves), 3.0 i
  (ammunition 12.54), 3.0 j (strongpoints 16.25), 3.0 k (Royal Navy 17.6)
* :func:`axis_status` -- 17.8 stragglers, 22.39 Delayed Landings
* amphibious landings: :mod:`.rules.amphibious` (4.22, 18.3-18.9)
* airborne landings: :mod:`.rules.airborne` (4.23, 19.1-19.9, 21.1)
* warships: :mod:`.rules.warships` (16.7); coastal guns: :mod:`.rules.coastal_guns`
  (16.5); airfields: :mod:`.rules.airfields` (16.1); militia: :mod:`.rules.militia` (16.3)
* :func:`on_enter_hex` -- 16.32 militia, 16.58 coastal guns, 16.22 strongpoints revealed
* invasion terms of the surrender modifier: :func:`.rules.victory.invasion_terms` (20.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from malta_sim.iod.rules import amphibious as ld
from malta_sim.iod.rules import special_rules as sp
from malta_sim.iod.rules import one_hex_movement
from malta_sim.iod import proximity
from malta_sim.iod import static as st
from malta_sim.iod.state import (ALLIED, AXIS, BOX_ELIMINATED,
                    BOX_MAP, BOX_POOL,
                    NIGHT)
from malta_sim.iod.rules import artillery
from malta_sim.iod.scenarios import hercules as hercules_scenario
from malta_sim.iod.rules import amphibious, militia, special_rules

# formation codes of the data (static.FORMATION_CODES)
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
    los_hex_blocks : bool[H]
        Hexes that block coastal fire (city, town, fort, woods; 16.54).
    los_side_blocks : bool[H, 6]
        Creek-with-Rise hexsides (16.54), by the direction order of ``los_nbr``.
    los_axial, los_nbr : int32[H, 2], int32[H, 6]
        Axial coordinates and neighbours of each hex, for the line-of-fire kernel.
    gun_value, gun_range : int8[U]
        Coastal gun dice and range per unit (16.5); 0 for other units.
    we_col_min, we_table
        Water's Edge Combat Table (18.6).
    rn_table : dict die -> RNResult
        Royal Navy Intervention Table (17.6).
    solo_dz_hexes : dict die -> hex (21.11 b); solo_zones : dict die -> zone (21.2).
    scenario_cfg : dict
        ``{"scenario_obj": Scenario}``: the loaded Operation Hercules scenario
        (:class:`malta_sim.loaders.iod_scenarios.Scenario`; empty when the
        data has none).
    """

    zone_names: list
    zone_beaches: list
    beach_zone: np.ndarray
    ocean: np.ndarray
    los_hex_blocks: np.ndarray
    los_side_blocks: np.ndarray
    los_axial: np.ndarray
    los_nbr: np.ndarray
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


def build_invasion_static(static, data_dir=None) -> InvasionStatic:
    """Derive :class:`InvasionStatic` from the loaded data folder and the
    engine's :class:`~.static.StaticData`.

    Parameters
    ----------
    static : StaticData
    data_dir : str or Path, optional
        The data folder (packaged data when None); its validated tables come
        from :func:`malta_sim.iod.static.load_data` (loaded once per
        process), no file is read here: beach zones and wave boxes (rule
        18.1) from the map loader, coastal gun values (16.5) from the counter
        loader, the Water's Edge (18.6), Royal Navy (17.6) and solitaire (21)
        tables from the tables loader.

    Raises
    ------
    DataError
        The first problem in the data folder (file, line, field), one line.
    """
    from malta_sim.iod.static import load_data
    data = load_data(data_dir)
    grid = static.grid
    H = grid.n_hexes
    zone_names = list(data.map.beach_zones["zone"])
    zone_beaches = [[] for _ in zone_names]
    beach_zone = np.full(H, -1, np.int16)
    for r in data.map.beach_boxes.to_dict("records"):
        z = zone_names.index(r["zone"])
        h = grid.index(r["beach_hex"])
        if h not in zone_beaches[z]:
            zone_beaches[z].append(h)
        beach_zone[h] = z
    zone_beaches = [np.array(sorted(b), np.int32) for b in zone_beaches]
    ocean = ~(static.land | static.beach | static.coastal)
    los_hex_blocks = static.town | static.city | static.fort | static.woods
    # a Creek with Rise hexside blocks from both sides, whichever hex records it
    los_side_blocks = static.rise & (static.neighbours >= 0)
    for h, d in zip(*np.nonzero(los_side_blocks)):
        los_side_blocks[static.neighbours[h, d], (d + 3) % 6] = True
    # coastal guns (16.5)
    U = len(static.names)
    gv = np.zeros(U, np.int8)
    gr = np.zeros(U, np.int8)
    units = data.units
    for i, nm in enumerate(static.names):
        if static.utype[i] == st.COASTAL_GUN:
            g = units.coastal_guns.get(units.piece_design[nm])
            if g is not None:
                gv[i], gr[i] = g.value, g.range
    # water's edge (18.6), Royal Navy (17.6) and solitaire (21) tables from the data set
    we_min, we_tab, src = ld.FALLBACK_WE_COL_MIN, ld.FALLBACK_WE_TABLE, {}
    src["waters_edge"] = "reconstructed (engine fallback)"
    rn = dict(sp.FALLBACK_RN_TABLE)
    src["royal_navy"] = "reconstructed (engine fallback)"
    solo_dz = {1: "0911", 2: "0911", 3: "1313", 4: "1512", 5: "1813", 6: "2012"}      # 21.11 b
    solo_zone = {1: "West", 2: "West", 3: "North", 4: "North", 5: "East", 6: "South"}  # 21.2
    T = data.tables
    if T is not None:
        we_min = np.asarray(T.waters_edge_min, np.int32)
        we_tab = np.asarray(T.waters_edge_x, np.int8)
        src["waters_edge"] = "tables/waters_edge.csv"
        rn = {d: sp.RNResult.from_table(r) for d, r in T.rn.items()}
        src["royal_navy"] = "tables/rn_intervention.csv"
        solo_dz = {k + 1: v for k, v in enumerate(T.solo_drop_zones)}
        solo_zone = {k + 1: v for k, v in enumerate(T.solo_beach_zones)}
    cfg = {"scenario_obj": data.scenarios["hercules"]} if "hercules" in data.scenarios else {}
    near_lists = [[h] + [int(x) for x in static.neighbours[h] if x >= 0] for h in range(H)]
    urban = (static.town | static.city).tolist()
    return InvasionStatic(
        zone_names=zone_names, zone_beaches=zone_beaches, beach_zone=beach_zone, ocean=ocean,
        los_hex_blocks=los_hex_blocks, los_side_blocks=los_side_blocks,
        los_axial=np.ascontiguousarray(grid.axial, dtype=np.int32),
        los_nbr=np.ascontiguousarray(static.neighbours, dtype=np.int32), gun_value=gv, gun_range=gr,
        we_col_min=we_min, we_table=we_tab, rn_table=rn,
        solo_dz_hexes={k: grid.index(v) for k, v in solo_dz.items()},
        solo_zones={k: zone_names.index(v) for k, v in solo_zone.items() if v in zone_names},
        scenario_cfg=cfg, sources=src,
        near_lists=near_lists, urban=urban,
        urban_near=[[x for x in near if urban[x]] for near in near_lists],
        near_sets=[{h, *(int(x) for x in static.neighbours[h] if x >= 0)} for h in range(H)],
        ocean_hexes=tuple(int(h) for h in np.flatnonzero(ocean)),
        unit_kinds=[amphibious._unit_kind(static, u) for u in range(U)],
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


def inv_static(game) -> InvasionStatic:
    """The :class:`InvasionStatic` of ``game`` (built once per static data:
    :attr:`.static.StaticData.invasion`)."""
    return game.static.invasion


# =====================================================================================
# Adapters to the land engine (with local fallbacks)
# =====================================================================================
_LAND: dict = {}


def _org():
    """The land engine's :mod:`.organisation` (imported on first use: it imports this module)."""
    m = _LAND.get("organisation")
    if m is None:
        from malta_sim.iod.rules import organisation as m
        _LAND["organisation"] = m
    return m


def _movement():
    """The land engine's :mod:`.movement` (imported on first use)."""
    m = _LAND.get("movement")
    if m is None:
        from malta_sim.iod.rules import movement as m
        _LAND["movement"] = m
    return m


def _illegal(rule, msg):
    from malta_sim.iod.game import illegal
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


def is_broken(game, b: int) -> bool:
    """Battalion ``b`` is broken down: some of its companies are in play (13.1)."""
    s = game.state
    return bool(((s.parent == b) & (s.box != BOX_ELIMINATED) & (s.box != BOX_POOL)).any())


def attack_strength(game, u: int) -> int:
    """Current attack strength (8.31, 11.3, 11.4), from the land engine."""
    cb = _LAND.get("combat")
    if cb is None:
        from malta_sim.iod.rules import combat as cb
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
    return one_hex_movement.one_hex_kernel(u, here, cls, t.neighbours, t.land, t.ocean_side, t.road, t.rise, t.move_cost,
                          s.hex, s.level, tb.side_mask[1 - side], t.harmless_in_hex, t.defense,
                          tb.side_mask[side], tb.base_weight, tb.remnant_level_full).tolist()


def note_ashore(game, u: int) -> None:
    """Record the turn a formation first has a piece ashore (a result column,
    ``first_ashore_turn``; no rule reads it): ``u`` is entering the map from
    off it (landing 18.5/18.8, airfield landing 16.13, jump 19.4).  The
    formation is the one ``u`` is attached to (15.2), else its printed one;
    leaders do not count.

    Input: ``u`` a piece not yet on the map.  Output: none."""
    s, t = game.state, game.static
    if game.tables.utype[u] == st.LEADER:
        return
    f = int(s.formation[u])
    if f < 0:
        f = int(t.printed_formation[u])
    if f >= 0 and s.first_ashore_turn[0, f] < 0:
        s.first_ashore_turn[0, f] = s.turn[0]


def move_unit(game, u: int, h: int, how: str) -> None:
    """Place ``u`` on hex ``h`` (on the map) and apply the on-entry effects
    (the land engine's ``enter_hex``: control 2.1, overrun 6.52/16.58, forts
    17.1, then :func:`on_enter_hex`).  A paratroop unit jumping into a hex held
    by real Allied defenders skips the overrun and the fort (16.58, 17.1): the
    hostile landing of 19.5 decides."""
    movement = _movement()
    s, t = game.state, game.static
    if s.box[u] != BOX_MAP:
        note_ashore(game, u)
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
    """Answers about the Allied pieces on the map, kept in ``game.cache``
    while no Allied piece's box or hex changes (the key holds exactly what
    :func:`allied_unit_hexes` reads of the state); a new position starts an
    empty dict."""
    s = game.state
    al = game.cache.get("_allied_unit_idx")
    if al is None:
        al = game.cache["_allied_unit_idx"] = sp.side_selector(game.static, ALLIED)
    key = (s.box[al].tobytes(), s.hex[al].tobytes())
    memo_ = game.cache.get("_allied_answers")
    if memo_ is None or memo_[0] != key:
        memo_ = game.cache["_allied_answers"] = (key, {})
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
    return proximity.nearest_allied_unit(game, int(h))


def axis_ground_hexes(game) -> np.ndarray:
    s, t = game.state, game.static
    m = (s.box == BOX_MAP) & (t.side == AXIS) & (t.utype != st.LEADER) & (t.utype != st.WARSHIP)
    return np.unique(s.hex[m]).astype(np.int32)


def aa_within(game, h: int, radius: int = 3) -> int:
    """Allied AA units on the map within ``radius`` hexes of ``h`` (16.12, 17.52,
    19.41): one compiled pass, :func:`.allied_proximity.allied_aa_within`."""
    return proximity.allied_aa_within(game, int(h), radius)


def target_beaches(game) -> list:
    """Beach hexes of the zones the divisions land in (18.21; for bots), zone
    by zone in ascending zone order."""
    inv = inv_static(game)
    zones = game.state.division_zone[0]
    out = []
    for z in sorted({int(z) for z in zones if z >= 0}):
        out.extend(int(b) for b in inv.zone_beaches[z])
    return out


def solitaire(game) -> bool:
    """Whether the game is played with the solitaire rules (21.0: the Axis
    beach zones, jumps and drops are rolled, not chosen)."""
    return "solitaire" in game.options


def box_steps(game, key) -> int:
    """Steps in the wave box ``key = (wave box code, beach hex)``."""
    return sum(game.steps(u) for u in units_in_box(game, key[0], key[1]) if game.static.utype[u] != st.LEADER)


def rng(game, purpose: str):
    return game.streams[purpose]


def nstate(game, purpose: str) -> np.ndarray:
    """The game's numba random state of ``purpose`` (``uint64[4]``, kept by
    :meth:`.rng.GameStreams.numba` for the whole game)."""
    return game.streams.numba(purpose)


def _log(game, action, **kw):
    game.log(action, **kw)


# =====================================================================================
# 4.1 Initial Segment (invasion steps)
# =====================================================================================
def initial_segment(game) -> None:
    """Invasion steps of the Initial Segment (4.1 a, d; 3.0 e, i-k; 16.41; 19.13)."""
    s = game.state
    hercules = getattr(game.scenario, "name", "hercules") == "hercules"
    if hercules and game.day == 0:
        amphibious.place_follow_up_boxes(game)                            # 4.1 a, 18.22
    # 16.41 with the Royal Navy cut (17.6)
    s.air_support_left[0] = sp.air_support_markers(int(s.weather[0]), int(s.air_support_cut[0]))
    if hercules:
        special_rules.air_attacks(game)                                      # 4.1 d, 17.5
    from malta_sim.iod.rules.airborne import move_drop_markers, plan_jumps
    move_drop_markers(game)                                    # 19.13
    if not solitaire(game):
        plan_jumps(game, days=(game.day + 2,))                 # 3.0 e, 19.3
    special_rules._rn_expiry(game)                                           # 17.6 effects end
    if game.day >= 1:
        artillery.ammunition_landed(game)                                # 3.0 i, 12.54
        special_rules.dismantle_strongpoints(game)                           # 3.0 j, 16.25
    if game.day == sp.RN_DAY:
        special_rules.royal_navy_intervention(game)                          # 3.0 k, 17.6


# =====================================================================================
# 4.21 Axis Status Phase (invasion steps)
# =====================================================================================
def axis_status(game) -> None:
    """Rule 4.21 d (stragglers 17.8) and e (Delayed Landings, 22.39)."""
    special_rules.stragglers(game)
    if "delayed_landings" in game.options and game.tod != NIGHT:
        hercules_scenario.delayed_landings(game)


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


def with_entry_effects(game, units) -> list:
    """The units of ``units`` (sequence of int, order kept) whose entry into
    a hex may have the effects of :func:`on_enter_hex`: the Axis units
    (leaders and warships apart); :func:`on_enter_hex` does nothing for
    the others."""
    fx = game.static.invasion.entry_effects
    return [u for u in units if fx[u]]


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
    inv = game.static.invasion
    if h < 0 or not inv.entry_effects[u]:
        return
    s = game.state
    if _entry_watch(game)[h]:
        cgu, cgu_list, sp, sp_list, _span = _guns_strongpoints(game.static)
        _guns_and_strongpoints(game, cgu, cgu_list, sp, sp_list, inv, h, how)
    near = inv.urban_near[h]          # h and its neighbours that are towns or cities
    if how == "move":
        # a hex passed through in the middle of a move: the uprising is rolled
        # when the move ends ("move_end"), so no militia appears in the mover's
        # path; nothing to note when no town or city is in or next to h
        if near and militia._cup_has_militia(game):
            militia.queue_uprisings(game, near)
        return
    if not near and (how != "move_end" or not np.count_nonzero(s.militia_pending)):
        return                      # no town or city to roll for (16.32), none pending
    if not militia._cup_has_militia(game):
        return                                                  # 16.36
    if how == "move_end":
        near = militia.take_queued_uprisings(game) + near
    if near:
        militia._militia_uprisings(game, inv, near, h, how)


def _entry_watch(game) -> list:
    """Per hex (Python bools): whether an Axis unit's entry finds an Allied
    coastal gun there (16.58) or an Allied strongpoint in or next to it
    (16.22).  Kept while the guns and strongpoints stay where they are (the
    key: the hexes of the run of pieces from the first of them to the last)."""
    cgu, _cgu_list, sp, _sp_list, span = _guns_strongpoints(game.static)
    s = game.state
    key = s.hex[span].tobytes()
    watch = game.cache.get("_entry_watch")
    if watch is None or watch[0] != key:
        watch = game.cache["_entry_watch"] = (key, _entry_flags(game, game.static.invasion, s.hex[cgu],
                                                                s.hex[sp]).tolist())
    return watch[1]


def passing_hexes_quiet(game, path) -> list:
    """Per hex of ``path`` (dense indices, each >= 0), whether an Axis unit
    passing through it in the middle of a move (``how="move"``) finds
    nothing :func:`on_enter_hex` acts on: no coastal gun or strongpoint to
    overrun or reveal (16.58, 16.22) and no town or city in or next to it
    while militia is left in the cup (16.32, 16.36).  True for a hex means
    :func:`on_enter_hex` would return without a change there, as long as
    the guns, strongpoints and the cup stay as they are now.

    Returns a list of bool, one per hex of ``path``."""
    watch = _entry_watch(game)
    urban = game.static.invasion.urban_near
    cup = None
    out = []
    for h in path:
        if watch[h]:
            out.append(False)
        elif urban[h]:
            if cup is None:
                cup = militia._cup_has_militia(game)
            out.append(not cup)
        else:
            out.append(True)
    return out


@st.per_static
def _guns_strongpoints(t) -> tuple:
    """The Allied coastal guns and strongpoints, fixed per static data:
    ``(guns, guns as Python ints, strongpoints, strongpoints as Python
    ints, span)``, ``span`` the slice from the first of them to the last
    (it may hold other pieces too: :func:`on_enter_hex` keys its answers on
    their hexes, a superset is only a safe key)."""
    cgu = np.flatnonzero((t.utype == st.COASTAL_GUN) & (t.side == ALLIED))
    sp = np.flatnonzero((t.utype == st.STRONGPOINT) & (t.side == ALLIED))
    both = np.concatenate([cgu, sp])
    span = slice(int(both.min()), int(both.max()) + 1) if len(both) else slice(0, 0)
    return cgu, cgu.tolist(), sp, sp.tolist(), span


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
