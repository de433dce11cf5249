"""Supply (rule 8): HQs trace to sources, units trace to their HQ, automatic
supply, Allied city/fort supply, HQ loss (16.8).

A supply route (8.2) is at most 12 hexes, never enters an enemy-occupied hex or
an *empty* hex in enemy ZOC, never crosses an all-ocean hexside; hexes in enemy
ZOC holding friendly units may be entered (5.3).  :func:`route_distance` runs the
path kernel's breadth-first search over those hexes.
"""

from __future__ import annotations

import numpy as np

from ...kernels import paths
from . import static as st
from .movement import occupancy, zoc_map
from .state import ALLIED, AXIS, BOX_MAP

MAX_ROUTE = 12


def route_distance(start, passable, nbr, ocean_side, max_len):
    """Hexes entered from ``start`` along supply routes (rule 8.2).

    A single-source breadth-first search done by the path kernel
    :func:`malta_sim.kernels.paths.distance_field` (all-ocean hexsides are
    the sides a route may not cross).

    Parameters
    ----------
    start : int
        Dense hex index where the route begins (an HQ or a unit); it need not
        be passable itself.
    passable : bool[n_hexes]
        Hexes a route may enter.
    nbr : int32[n_hexes, 6]
    ocean_side : bool[n_hexes, 6]
        All-ocean hexsides (never crossed).
    max_len : int
        Longest route in hexes (12).

    Returns
    -------
    int32[n_hexes]
        Route length to each hex (``start`` 0), -1 where no route of at most
        ``max_len`` hexes exists.
    """
    src = np.zeros(nbr.shape[0], np.bool_)
    src[start] = True
    return paths.distance_field(nbr, src, passable, _crossable(ocean_side), int(max_len))


#: the last ocean-side table seen and its negation (the static data's)
_CROSSABLE: list = [None, None]


def _crossable(ocean_side: np.ndarray) -> np.ndarray:
    """``~ocean_side``: the hexsides a route may cross (rule 8.2), kept for
    the last table asked about (the static data's, asked again each time)."""
    if _CROSSABLE[0] is not ocean_side:
        _CROSSABLE[:] = [ocean_side, ~ocean_side]
    return _CROSSABLE[1]


def passable_for(game, side: int) -> np.ndarray:
    """bool[n_hexes]: hexes a ``side`` supply route may enter (rules 8.2, 5.2, 5.3)."""
    t, s = game.static, game.state
    zoc = zoc_map(game, 1 - side)
    block, trivial = occupancy(game, 1 - side)
    enemy_here = block | trivial
    friendly = np.zeros(t.n_hexes, bool)
    units = game.on_map(side)
    ut = t.utype[units]
    friendly[s.hex[units[(ut != st.WARSHIP) & (ut != st.LEADER)]]] = True
    return t.land & ~enemy_here & (~zoc | friendly)


def supply_sources(game, side: int, formation: int) -> np.ndarray:
    """Dense hex indices the HQ of ``formation`` may use as supply sources (8.5).

    Axis (8.51): Axis-controlled beach hexes where Axis units have landed
    (unless the Royal Navy bars them, 17.6); Axis-controlled airfields for the
    80th Division HQ; the formation's drop zone marker with no Allied unit in
    its hex (19.11-19.12).  Allied (8.52): Allied-controlled city hexes and
    undestroyed fort hexes not held by the Axis.
    """
    t, s = game.static, game.state
    if side == ALLIED:
        m = (t.city & (s.control == ALLIED)) | (t.fort & ~s.fort_destroyed & (s.control != AXIS))
        return np.flatnonzero(m)
    m = np.zeros(t.n_hexes, bool)
    if not s.beach_supply_barred[0]:
        m |= t.beach & s.landed_beach & (s.control == AXIS)
    if formation == 3:   # 80th (airborne) Division, rule 8.51
        m |= t.airfield & (s.control == AXIS)
    if 0 <= formation < s.dz_hex.shape[1]:
        dz = int(s.dz_hex[0, formation])
        if dz >= 0 and not len(game.units_at(dz, ALLIED)):
            m[dz] = True
    return np.flatnonzero(m)


def _common_sources(game, side: int) -> np.ndarray:
    """bool[n_hexes]: the supply sources of :func:`supply_sources` that every
    formation of ``side`` shares (8.51 beaches, 8.52 cities and forts); the
    caller's own array."""
    t, s = game.static, game.state
    if side == ALLIED:
        return (t.city & (s.control == ALLIED)) | (t.fort & ~s.fort_destroyed & (s.control != AXIS))
    if not s.beach_supply_barred[0]:
        return t.beach & s.landed_beach & (s.control == AXIS)
    return np.zeros(t.n_hexes, bool)


def _formation_sources(game, side: int, formation: int, common: np.ndarray) -> np.ndarray:
    """:func:`supply_sources` of ``formation`` with :func:`_common_sources`
    given (rules 8.51, 19.11-19.12: the 80th Division's airfields, the
    formation's drop zone marker)."""
    if side == ALLIED:
        return np.flatnonzero(common)
    t, s = game.static, game.state
    m = common
    if formation == 3:   # 80th (airborne) Division, rule 8.51
        m = m | (t.airfield & (s.control == AXIS))
    if 0 <= formation < s.dz_hex.shape[1]:
        dz = int(s.dz_hex[0, formation])
        if dz >= 0 and not len(game.units_at(dz, ALLIED)):
            m = m.copy() if m is common else m
            m[dz] = True
    return np.flatnonzero(m)


def automatic_supply_turn(game) -> bool:
    """Rule 8.53: 29 June AM and noon turns: everybody supplied."""
    return game.turn in (0, 1)


def compute_supply(game, side: int) -> np.ndarray:
    """bool[n_units]: which ``side`` units on the map are supplied now (8.1-8.5, 16.8).

    Rules: 8.11 (HQ to a source), 8.12 (unit to its formation's HQ, which must
    be supplied and on the map), 8.52 (Allied units in or next to an Allied
    city or undestroyed fort), 8.53 (automatic supply: 29 June AM/noon, and
    units that jumped or landed this turn), 16.81 (HQ lost).
    """
    t, s = game.static, game.state
    units = game.on_map(side)
    ok = np.zeros(t.n_units, bool)
    if automatic_supply_turn(game):
        ok[units] = True
        return ok
    passable = passable_for(game, side)
    hq_reach = {}
    common = None
    for f in range(t.n_formations):
        hq = t.formation_hq[f]
        if hq < 0 or t.side[hq] != side or s.box[hq] != BOX_MAP:
            continue
        h = int(s.hex[hq])
        p = passable.copy()
        p[h] = True                          # the HQ's own hex
        dist = route_distance(h, p, t.neighbours, t.ocean_side, MAX_ROUTE)
        if common is None:
            common = _common_sources(game, side)
        srcs = _formation_sources(game, side, f, common)
        hq_ok = bool(len(srcs)) and bool((dist[srcs] >= 0).any())
        if s.entered_turn[hq] == game.turn:
            hq_ok = True                     # 8.53
        ok[hq] = hq_ok
        if hq_ok:
            hq_reach[f] = dist
    # the units, all at once (each test only ever sets ``ok``)
    ut = t.utype[units]
    ok[units[(ut == st.LEADER) | (ut == st.WARSHIP)]] = True     # HQs were settled above
    units = units[(ut != st.HQ) & (ut != st.LEADER) & (ut != st.WARSHIP)]
    hx = s.hex[units]
    ok[units[s.entered_turn[units] == game.turn]] = True          # 8.53
    if side == ALLIED:
        cf = (t.city & (s.control == ALLIED)) | (t.fort & ~s.fort_destroyed & (s.control != AXIS))
        near_cf = cf.copy()
        nb = t.neighbours[cf]
        near_cf[nb[nb >= 0]] = True
        ok[units[near_cf[hx]]] = True                              # 8.52
    form = s.formation[units]
    for f, dist in hq_reach.items():                               # 8.12
        ok[units[(form == f) & (dist[hx] >= 0)]] = True
    return ok


def status_phase_supply(game, side: int) -> None:
    """Rules 4.21 a / 4.31 a-b, 8.13: place or remove Out of Supply markers on
    the active player's units (skipped 29 June AM and noon, 8.53)."""
    s = game.state
    if automatic_supply_turn(game):
        s.out_of_supply[game.on_map(side)] = False
        return
    ok = compute_supply(game, side)
    units = game.on_map(side)
    before = s.out_of_supply[units].copy()
    s.out_of_supply[units] = ~ok[units]
    if game.events is not None:              # the entry is built only when a log is kept
        n_out = int(s.out_of_supply[units].sum())
        game.log("supply", side=side, result=f"{n_out} out of supply "
                 f"({int((~before & s.out_of_supply[units]).sum())} new)", rule="8.1")
