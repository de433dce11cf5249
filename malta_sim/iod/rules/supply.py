"""Supply (rule 8): HQs trace to sources, units trace to their HQ, automatic
supply, Allied city/fort supply, HQ loss (16.8).

A supply route (8.2) is at most 12 hexes, never enters an enemy-occupied hex or
an *empty* hex in enemy ZOC, never crosses an all-ocean hexside; hexes in enemy
ZOC holding friendly units may be entered (5.3).  :func:`route_distance` runs the
path kernel's breadth-first search over those hexes.
"""

from __future__ import annotations


import numba as nb
import numpy as np

from malta_sim.kernels import paths
from malta_sim.iod import static as st
from malta_sim.iod.rules import movement
from malta_sim.iod.state import ALLIED, AXIS

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
    """bool[n_hexes]: hexes a ``side`` supply route may enter (rules 8.2, 5.2, 5.3),
    a fresh array.

    The answer of :func:`_passable_for_now` is kept per side with the state
    it reads (every piece's box, hex, level, hitched side and salvos, and the
    destroyed forts, as bytes: the enemy's ZOC and occupancy and the side's
    own pieces), so the status phase's second ask (the ammunition routes,
    12.56, after the supply check, 8.1) finds it."""
    s = game.state
    key = (s.box.tobytes(), s.hex.tobytes(), s.level.tobytes(), s.hitched.tobytes(),
           s.salvos.tobytes(), s.fort_destroyed.tobytes())
    hit = game.kept("_passable_for", side, key)
    if hit is None:
        hit = game.keep("_passable_for", side, key, _passable_for_now(game, side))
    return hit.copy()


def _passable_for_now(game, side: int) -> np.ndarray:
    """:func:`passable_for` worked out afresh (rules 8.2, 5.2, 5.3): land,
    no enemy piece, and out of the enemy ZOC unless a friendly piece (not a
    leader or warship) is there.

    Parameters
    ----------
    game : Game
    side : int
        0 Axis, 1 Allied: the side whose supply route it is.

    Returns
    -------
    bool[n_hexes]
        A new array: the hexes such a route may enter.
    """
    t, s = game.static, game.state
    zoc = movement.zoc_map(game, 1 - side)
    block, trivial = movement.occupancy(game, 1 - side)
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


def automatic_supply_turn(game) -> bool:
    """Rule 8.53: 29 June AM and noon turns: everybody supplied."""
    return game.turn in (0, 1)


def compute_supply(game, side: int) -> np.ndarray:
    """bool[n_units]: which ``side`` units on the map are supplied now (8.1-8.5, 16.8).

    Rules: 8.11 (HQ to a source), 8.12 (unit to its formation's HQ, which must
    be supplied and on the map), 8.52 (Allied units in or next to an Allied
    city or undestroyed fort), 8.53 (automatic supply: 29 June AM/noon, and
    units that jumped or landed this turn), 16.81 (HQ lost).  Worked out in
    one call of :func:`supply_kernel`.
    """
    t, s = game.static, game.state
    units = game.on_map(side)
    if automatic_supply_turn(game):
        ok = np.zeros(t.n_units, bool)
        ok[units] = True
        return ok
    if side == AXIS:
        barred = bool(s.beach_supply_barred[0])
        dz = s.dz_hex[0]
    else:
        barred, dz = False, _NO_DZ
    return supply_kernel(side, units, passable_for(game, side), t.formation_hq, t.side, t.utype,
                         s.box, s.hex, s.entered_turn, s.formation, game.turn, t.neighbours,
                         _crossable(t.ocean_side), MAX_ROUTE, t.city, t.fort, s.fort_destroyed,
                         s.control, t.beach, s.landed_beach, barred, t.airfield, dz,
                         _allied_run(game), _SUPPLY_CODES)


#: no drop zone markers (the Allied side's sources never include one)
_NO_DZ = np.full(0, -1, np.int32)

#: unit type codes :func:`supply_kernel` tests: HQ, leader, warship
_SUPPLY_CODES = np.array([st.HQ, st.LEADER, st.WARSHIP], np.int64)


def _allied_run(game) -> np.ndarray:
    """int64[k]: the Allied pieces (for the drop zone test of 19.12), kept per game."""
    out = game.cache.get("_supply_allied_units")
    if out is None:
        out = game.cache["_supply_allied_units"] = np.flatnonzero(game.static.side == ALLIED)
    return out


@nb.njit(cache=True)
def supply_kernel(side, units, passable, formation_hq, unit_side, utype, box, hexes, entered_turn,
                  formation, turn, nbr, crossable, max_route, city, fort, fort_destroyed, control,
                  beach, landed_beach, barred, airfield, dz_hex, allied_units, codes):
    """Supply state of ``side``'s units on the map (rules 8.11, 8.12, 8.51,
    8.52, 8.53, 16.81, 19.11-19.12).

    Parameters
    ----------
    side : int
        0 Axis, 1 Allied.
    units : int64[k]
        The side's pieces on the map (ascending).
    passable : bool[n_hexes]
        :func:`passable_for` (hexes a route may enter, 8.2, 5.3).
    formation_hq, unit_side, utype : ndarray
        Static tables: HQ piece per formation (-1 none), side and type per piece.
    box, hexes, entered_turn, formation : ndarray[n_units]
        The game state's per-piece arrays.
    turn : int
        Game turn (units that arrived this turn are supplied, 8.53).
    nbr, crossable : ndarray
        Neighbour table int32[n_hexes, 6] and the hexsides a route may cross.
    max_route : int
        Longest route in hexes (12, rule 8.2).
    city, fort, fort_destroyed, control : ndarray[n_hexes]
        Cities, forts, destroyed forts, hex control (Allied sources, 8.52).
    beach, landed_beach, airfield : bool[n_hexes]
        Beach hexes, beaches where Axis units landed, airfields (8.51).
    barred : bool
        The Royal Navy bars the beaches as sources (17.6).
    dz_hex : int32[n_formations]
        Each formation's drop zone marker hex (-1 none; 19.11); empty for the
        Allied side.
    allied_units : int64[m]
        The Allied pieces (a drop zone with one of them in it is no source, 19.12).
    codes : int64[3]
        HQ, leader and warship type codes.

    Returns
    -------
    bool[n_units]
        Supplied (pieces of other sides and off the map: False).
    """
    n = nbr.shape[0]
    ok = np.zeros(unit_side.shape[0], np.bool_)
    nf = formation_hq.shape[0]
    # sources every formation shares: 8.52 cities and forts / 8.51 beaches
    common = np.zeros(n, np.bool_)
    for h in range(n):
        if side == 1:
            common[h] = (city[h] and control[h] == 1) or (fort[h] and not fort_destroyed[h]
                                                          and control[h] != 0)
        elif not barred:
            common[h] = beach[h] and landed_beach[h] and control[h] == 0
    reach = np.full((nf, n), -1, np.int32)
    has_reach = np.zeros(nf, np.bool_)
    src = np.zeros(n, np.bool_)
    for f in range(nf):
        hq = formation_hq[f]
        if hq < 0 or unit_side[hq] != side or box[hq] != 0:
            continue
        h = hexes[hq]
        src[h] = True                        # a start hex need not be passable: the HQ's own hex
        dist = paths.distance_field(nbr, src, passable, crossable, max_route)
        src[h] = False
        hq_ok = False
        for x in range(n):
            if dist[x] >= 0:
                if common[x]:
                    hq_ok = True
                    break
                if side == 0 and f == 3 and airfield[x] and control[x] == 0:
                    hq_ok = True             # 80th (airborne) Division: airfields (8.51)
                    break
        if not hq_ok and side == 0 and f < dz_hex.shape[0]:
            dz = dz_hex[f]
            if dz >= 0 and dist[dz] >= 0:
                free = True                  # no Allied unit in the drop zone hex (19.12)
                for j in range(allied_units.shape[0]):
                    if hexes[allied_units[j]] == dz:
                        free = False
                        break
                if free:
                    hq_ok = True
        if entered_turn[hq] == turn:
            hq_ok = True                     # 8.53
        ok[hq] = hq_ok
        if hq_ok:
            reach[f] = dist
            has_reach[f] = True
    near_cf = np.zeros(n, np.bool_)
    if side == 1:                            # 8.52: in or next to an Allied city or fort
        for h in range(n):
            if (city[h] and control[h] == 1) or (fort[h] and not fort_destroyed[h] and control[h] != 0):
                near_cf[h] = True
                for d in range(6):
                    g = nbr[h, d]
                    if g >= 0:
                        near_cf[g] = True
    for i in range(units.shape[0]):
        u = units[i]
        ut = utype[u]
        if ut == codes[1] or ut == codes[2]:
            ok[u] = True                     # leaders and warships need no supply
            continue
        if ut == codes[0]:
            continue                         # HQs were settled above
        h = hexes[u]
        if entered_turn[u] == turn or near_cf[h]:
            ok[u] = True                     # 8.53 / 8.52
            continue
        f = formation[u]
        if 0 <= f < nf and has_reach[f] and reach[f, h] >= 0:
            ok[u] = True                     # 8.12
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
