"""Zones of control (rule 5) and movement (rule 6): tactical, strategic,
infiltration, artillery hitching/preparing, night movement, leader bonuses.

Reachability is a compiled bucket-queue shortest path over hexes in half-MP
units (:func:`reach_kernel`); everything else is array bookkeeping around it.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from malta_sim.kernels import paths
from malta_sim.iod.rules import organisation
from malta_sim.iod import invasion
from malta_sim.iod import static as st
from malta_sim.iod.game import illegal, static_tables
from malta_sim.iod.rules import morale
from malta_sim.iod.rules import special_rules
from malta_sim.iod.state import (ALLIED, AXIS, BOX_MAP, DEMORALIZED, NIGHT)

ZOC_ENTER = np.array([2, 3, 2], np.int32)   # rule 5.2 foot, mot, mech (MP)
ZOC_EXIT = np.array([2, 3, 1], np.int32)
INF = np.int32(1 << 28)
STACK_ROOM = st.STACK_LIMIT_HALVES   # rule 7.1 in half battalions


# ------------------------------------------------------------------ ZOC (rule 5)
def exerting_hexes(game, side: int) -> tuple[np.ndarray, np.ndarray]:
    """Hexes whose ``side`` units exert a ZOC (rule 5.1, 16.21).

    Returns
    -------
    exert : bool[n_hexes]
        An undestroyed fort occupied by the side, a strongpoint, non-artillery
        units with total attack strength >= 3, or prepared artillery with
        ammunition.
    foot : bool[n_hexes]
        Some exerting piece there is foot (or a fort/strongpoint), so the ZOC
        crosses a Creek-with-Rise hexside (rule 5.0).
    """
    s, t = game.state, game.static
    return exerting_kernel(game.on_map(side), s.hex, s.level, s.hitched, s.salvos, t.utype, t.attack,
                           t.move_class, t.fort, s.fort_destroyed, t.n_hexes, _ZOC_CODES)


#: unit type and movement class codes :func:`exerting_kernel` tests
#: (strongpoint, artillery, leader, warship, coastal gun, foot class)
_ZOC_CODES = np.array([st.STRONGPOINT, st.ARTILLERY, st.LEADER, st.WARSHIP, st.COASTAL_GUN, st.FOOT],
                      np.int64)


@nb.njit(cache=True)
def exerting_kernel(units, hexes, level, hitched, salvos, utype, attack, move_class, fort,
                    fort_destroyed, n_hexes, codes):
    """The loop of :func:`exerting_hexes` over the side's pieces on the map
    (rules 5.1, 16.21).

    Parameters
    ----------
    units : int64[k]
        The side's pieces on the map.
    hexes, level, hitched, salvos : arrays [n_units]
        State of every piece (dense hex, level, artillery hitched, salvos).
    utype, attack, move_class : arrays
        Static unit type, attack strength per level ``[n_units, n_levels]``
        and movement class.
    fort, fort_destroyed : bool[n_hexes]
    n_hexes : int
    codes : int64[6]
        :data:`_ZOC_CODES`.

    Returns
    -------
    exert, foot : bool[n_hexes]
        As :func:`exerting_hexes`.
    """
    sp_code, art_code, leader_code, ship_code, gun_code, foot_code = (
        codes[0], codes[1], codes[2], codes[3], codes[4], codes[5])
    exert = np.zeros(n_hexes, np.bool_)
    foot = np.zeros(n_hexes, np.bool_)
    att = np.zeros(n_hexes, np.int64)
    for i in range(units.shape[0]):
        u = units[i]
        h = hexes[u]
        ut = utype[u]
        if ut == sp_code:
            exert[h] = True
            foot[h] = True
            continue
        if ut == art_code:
            if not hitched[u] and salvos[u] > 0:     # prepared, with ammunition
                exert[h] = True
                foot[h] = True
            continue
        if ut == leader_code or ut == ship_code or ut == gun_code:
            continue
        a = attack[u, level[u]]
        att[h] += a                                   # total attack strength per hex
        if a > 0 and move_class[u] == foot_code:
            foot[h] = True
        if fort[h] and not fort_destroyed[h]:         # occupied undestroyed fort
            exert[h] = True
            foot[h] = True
    for h in range(n_hexes):
        if att[h] >= 3:
            exert[h] = True
    return exert, foot


@st.per_static
def zoc_across(t) -> np.ndarray:
    """bool[n_hexes, 6, 2]: whether a [foot, mot/mech] ZOC reaches across each
    hexside (rule 5.0): never off the map, into an ocean hex or across an
    all-ocean side; a motorized/mechanized ZOC not across a creek with rise
    unless a road crosses it.  Built once per :class:`StaticData`."""
    nbr = t.neighbours
    ok = (nbr >= 0) & t.land[np.maximum(nbr, 0)] & ~t.ocean_side
    return np.stack([ok, ok & ~(t.rise & ~t.road)], axis=2)


def _position_key(game, side: int) -> tuple:
    """Everything :func:`exerting_hexes` and :func:`occupancy` read from the
    state for ``side`` (its pieces' box, hex, level, hitched, salvos; destroyed
    forts), as bytes: equal keys give equal answers, so a memo keyed on it
    needs no invalidation."""
    s = game.state
    own = _side_sel(game, side)
    return (side, s.box[own].tobytes(), s.hex[own].tobytes(), s.level[own].tobytes(),
            s.hitched[own].tobytes(), s.salvos[own].tobytes(), s.fort_destroyed.tobytes())


def _zoc_memo(game, side: int, key: tuple) -> np.ndarray:
    """The ZOC map of ``side`` for position ``key`` (the memo's own array:
    read it, do not modify it)."""
    z = game.kept("_zoc_memo", side, key)
    if z is not None:
        return z
    t = game.static
    exert, foot = exerting_hexes(game, side)
    z = paths.zoc_map(t.neighbours, exert, (~foot).astype(np.int8), zoc_across(t))
    return game.keep("_zoc_memo", side, key, z)


def zoc_map(game, side: int) -> np.ndarray:
    """bool[n_hexes]: hexes in the ZOC exerted by ``side`` (rule 5.0-5.1),
    projected by :func:`malta_sim.kernels.paths.zoc_map`.

    The last map of each side is kept with the :func:`_position_key` it was
    built from and reused (as a fresh copy) while the pieces stand still:
    moves of the other side, which change nothing here, are frequent."""
    return _zoc_memo(game, side, _position_key(game, side)).copy()


def _occupancy_memo(game, side: int, key: tuple) -> tuple[np.ndarray, np.ndarray]:
    """:func:`occupancy` of ``side`` for position ``key`` (the memo's own
    arrays: read them, do not modify them)."""
    hit = game.kept("_occupancy_memo", side, key)
    if hit is not None:
        return hit
    s, t = game.state, game.static
    return game.keep("_occupancy_memo", side, key,
                     occupancy_kernel(game.on_map(side), s.hex, s.level, t.utype, t.defense, t.n_hexes,
                                      _OCC_CODES))


#: unit type codes :func:`occupancy_kernel` tests (warship, leader, coastal gun)
_OCC_CODES = np.array([st.WARSHIP, st.LEADER, st.COASTAL_GUN], np.int64)


@nb.njit(cache=True)
def occupancy_kernel(units, hexes, level, utype, defense, n_hexes, codes):
    """The blocking and trivial hexes of one side's pieces (rule 6.52) in one
    pass.

    Parameters
    ----------
    units : int64[k]
        The side's pieces on the map.
    hexes, level : arrays [n_units]
        Dense hex and level of every piece.
    utype : int8[n_units]
        Unit type codes.
    defense : int[n_units, n_levels]
        Defense strength per level.
    n_hexes : int
    codes : int64[3]
        :data:`_OCC_CODES` (warship, leader, coastal gun).

    Returns
    -------
    block, trivial : bool[n_hexes]
        Hexes with a piece that stops enemy entry (not a leader or coastal
        gun, defense above zero); hexes with pieces of which none blocks.
        Warships (16.7) are not on land and count in neither.
    """
    warship, leader, gun = codes[0], codes[1], codes[2]
    block = np.zeros(n_hexes, np.bool_)
    anyp = np.zeros(n_hexes, np.bool_)
    for i in range(units.shape[0]):
        u = units[i]
        ut = utype[u]
        if ut == warship:
            continue
        h = hexes[u]
        anyp[h] = True
        if ut != leader and ut != gun and defense[u, level[u]] > 0:
            block[h] = True
    trivial = np.zeros(n_hexes, np.bool_)
    for h in range(n_hexes):
        trivial[h] = anyp[h] and not block[h]
    return block, trivial


def occupancy(game, side: int) -> tuple[np.ndarray, np.ndarray]:
    """(blocking, trivial) bool[n_hexes] for ``side``'s pieces (rule 6.52).

    ``blocking``: a hex with a unit of ``side`` that stops enemy entry;
    ``trivial``: a hex holding only leaders, coastal guns and/or units with a
    defense strength of zero (enemy units may enter and eliminate them).
    Memoised as :func:`zoc_map` (same inputs, same answer); fresh copies.
    """
    block, trivial = _occupancy_memo(game, side, _position_key(game, side))
    return block.copy(), trivial.copy()


# ------------------------------------------------------------------ kernel
@nb.njit(cache=True)
def reach_kernel(start, ma2, cls, strategic, move_cost, strat_cost, road, creek, rise, ocean_side,
                 nbr, road_cost, road_strat, creek_cost, rise_cost, zoc, blocked, stop, allowed,
                 zoc_enter, zoc_exit):
    """Least cost (half-MP units) to each hex for one unit (rules 5.2, 6.1-6.3, 6.11, 6.53).

    Kept beside :func:`malta_sim.kernels.paths.movement_reach`: this search
    also stops at ``stop`` hexes, prices leaders at the cheapest class (14.3),
    works in integer half MPs and builds hexside costs from the static road,
    creek and rise flags, where the kernel takes one float cost per hexside
    (``MapData.edge_cost``).  Swapping needs the kernel to grow those inputs;
    the test-mode invariants compare ZOC and supply with the kernels, not this.

    Parameters
    ----------
    start : int
        Dense hex index of the unit.
    ma2 : int
        Movement allowance in half MPs.
    cls : int
        Movement class 0 foot, 1 mot, 2 mech; -1 = leader (cheapest class, 14.3).
    strategic : bool
        Use the strategic costs (6.2).
    zoc, blocked, stop, allowed : bool[n]
        Enemy ZOC; hexes the unit may not enter; hexes where it must stop
        (enemy-trivial hexes, 6.52); hexes it may enter at all.

    Returns
    -------
    cost : int32[n]
        Half-MPs to end in each hex (``INF`` unreachable); the one-hex move of
        rule 6.53 is given cost ``ma2``.
    pred : int32[n]
        Previous hex on a cheapest path (-1 at the start / unreachable).
    """
    edge = edge_costs(cls, strategic, move_cost, strat_cost, road, creek, rise, nbr, road_cost,
                      road_strat, creek_cost, rise_cost)
    return reach_core(start, ma2, cls, edge, zoc, blocked, stop, allowed, ocean_side, nbr,
                      zoc_enter, zoc_exit)


@nb.njit(cache=True)
def edge_costs(cls, strategic, move_cost, strat_cost, road, creek, rise, nbr, road_cost,
               road_strat, creek_cost, rise_cost):
    """int32[n, 6]: half MPs to cross each hexside into the neighbour for
    movement class ``cls`` (-1 leader) by tactical or strategic movement
    (rules 6.11, 6.2, 14.3); 198 where prohibited or off the map."""
    n = nbr.shape[0]
    edge = np.full((n, 6), 198, np.int32)
    for g in range(n):
        for d in range(6):
            h = nbr[g, d]
            if h >= 0:
                edge[g, d] = _edge2(g, d, h, cls, strategic, move_cost, strat_cost, road, creek,
                                    rise, road_cost, road_strat, creek_cost, rise_cost)
    return edge


@nb.njit(cache=True)
def edge_cost_table(move_cost, strat_cost, road, creek, rise, nbr, road_cost, road_strat,
                    creek_cost, rise_cost):
    """int32[2, 4, n, 6]: :func:`edge_costs` (half MPs per hexside, rules
    6.11, 6.2, 14.3) for tactical (0) and strategic (1) movement and classes
    leader, foot, mot, mech (``cls + 1``)."""
    n = nbr.shape[0]
    out = np.empty((2, 4, n, 6), np.int32)
    for k in range(2):
        for c in range(4):
            out[k, c] = edge_costs(c - 1, k == 1, move_cost, strat_cost, road, creek, rise, nbr,
                                   road_cost, road_strat, creek_cost, rise_cost)
    return out


@nb.njit(cache=True)
def reach_core(start, ma2, cls, edge, zoc, blocked, stop, allowed, ocean_side, nbr, zoc_enter,
               zoc_exit):
    """The bucket-queue search of :func:`reach_kernel` (rules 6.1, 5.2:
    cheapest half-MP cost of each hex, stopping in enemy ZOC) with the hexside
    costs given (``edge`` int32[n, 6] from :func:`edge_costs`); returns
    ``(cost int32[n], pred int32[n])`` as :func:`reach_kernel`."""
    return reach_to(start, ma2, cls, edge, zoc, blocked, stop, allowed, ocean_side, nbr, zoc_enter,
                    zoc_exit, -1)


@nb.njit(cache=True)
def reach_to(start, ma2, cls, edge, zoc, blocked, stop, allowed, ocean_side, nbr, zoc_enter,
             zoc_exit, target):
    """:func:`reach_core`'s search (rules 6.1, 5.2, 6.53), stopped once hex
    ``target`` is settled (``-1``: never, the whole search).

    A hex's cost and predecessor are final when the search takes it from
    its bucket (buckets are read in order of cost), and so are those of every
    hex on its path, taken earlier: for ``target`` and its path the answer is
    the whole search's.  Other hexes may be left unsettled.

    Returns
    -------
    cost, pred : int32[n]
        As :func:`reach_core`.
    """
    n = nbr.shape[0]
    cost = np.full(n, 1 << 28, np.int32)
    pred = np.full(n, -1, np.int32)
    done = np.zeros(n, np.bool_)
    cost[start] = 0
    maxc = ma2 + 1
    buckets = np.empty((maxc + 1, n), np.int32)     # read only below each bucket's size
    bsize = np.zeros(maxc + 1, np.int32)
    buckets[0, 0] = start
    bsize[0] = 1
    zx = 2 * _cls_pick(zoc_exit, cls)
    zn = 2 * _cls_pick(zoc_enter, cls)
    for c in range(maxc + 1):
        if target >= 0 and done[target]:
            break
        i = 0
        while i < bsize[c]:
            g = buckets[c, i]
            i += 1
            if done[g] or cost[g] != c:
                continue
            done[g] = True
            if g == target:
                break
            if g != start and (zoc[g] or stop[g]):
                continue  # must stop on entering an enemy ZOC (5.2) / trivial hex
            for d in range(6):
                h = nbr[g, d]
                if h < 0 or blocked[h] or not allowed[h] or ocean_side[g, d]:
                    continue
                if zoc[g] and zoc[h]:
                    continue  # no direct ZOC-to-ZOC move (5.2; only infiltration 6.4)
                e = edge[g, d]
                if e >= 198:
                    continue
                if zoc[g]:
                    e += zx
                if zoc[h]:
                    e += zn
                nc = c + e
                if g == start and nc > ma2 and ma2 > 0:
                    nc = ma2  # rule 6.53: one hex for the whole allowance
                if nc <= ma2 and nc < cost[h]:
                    cost[h] = nc
                    pred[h] = g
                    buckets[nc, bsize[nc]] = h
                    bsize[nc] += 1
    return cost, pred


@nb.njit(cache=True)
def reach_sparse(start, ma2, cls, edge, zoc, blocked, stop, allowed, ocean_side, nbr, zoc_enter,
                 zoc_exit, cost, pred, done, pool_h, pool_n, seen, head, tail):
    """:func:`reach_core`'s search (rules 6.1, 5.2: cheapest half-MP cost of
    each hex, stopping in enemy ZOC; 6.53: one hex for the whole allowance)
    written into buffers kept across searches, so a search costs what it
    reaches rather than the whole map; the hexside costs are ``edge[cls + 1]``
    (``edge`` int32[4, n_hexes, 6], one kind's slice of
    :func:`edge_cost_table`).

    The buckets are FIFO lists threaded through ``pool_h``/``pool_n``, read
    in the order :func:`reach_core` reads its bucket rows, so every cost and
    predecessor is the one :func:`reach_core` finds.

    Parameters
    ----------
    start, ma2, cls, zoc, blocked, stop, allowed, ocean_side, nbr, zoc_enter, zoc_exit
        As :func:`reach_core`.
    edge : int32[4, n_hexes, 6]
        Half-MP hexside costs by class (``edge[cls + 1]`` for class ``cls``).
    cost : int32[n_hexes]
        All ``1 << 28`` on entry; on return the half-MP cost of the hexes reached.
    pred : int32[n_hexes]
        All -1 on entry; on return the predecessors of the hexes reached.
    done : bool[n_hexes]
        All False on entry (set for the hexes expanded).
    pool_h, pool_n : int64[6 * n_hexes + 1]
        Working space (bucket entries).
    seen : int64[n_hexes]
        Written: the hexes reached, ``start`` first, in the order first reached.
    head, tail : int64[>= ma2 + 2]
        Working space (first and last entry of each bucket).

    Nothing is allocated here: numba keeps the reference counts of a
    function's array arguments when the function allocates, two atomic
    operations per array and call.

    Returns
    -------
    int
        ``t``: ``seen[:t]`` are the hexes whose ``cost``, ``pred`` and
        ``done`` the search set (:func:`reach_sparse_reset` puts them back).
    """
    inf = 1 << 28
    maxc = ma2 + 1
    ec = cls + 1
    head[:maxc + 1] = -1
    cost[start] = 0
    seen[0] = start
    t = 1
    pool_h[0] = start
    pool_n[0] = -1
    head[0] = 0
    tail[0] = 0
    q = 1
    zx = 2 * _cls_pick(zoc_exit, cls)
    zn = 2 * _cls_pick(zoc_enter, cls)
    for c in range(maxc + 1):
        p = head[c]
        while p >= 0:
            g = pool_h[p]
            if not done[g] and cost[g] == c:
                done[g] = True
                zg = zoc[g]
                if g == start or not (zg or stop[g]):    # must stop in enemy ZOC (5.2) / trivial hex
                    for d in range(6):
                        h = nbr[g, d]
                        if h < 0 or blocked[h] or not allowed[h] or ocean_side[g, d]:
                            continue
                        zh = zoc[h]
                        if zg and zh:
                            continue  # no direct ZOC-to-ZOC move (5.2; only infiltration 6.4)
                        e = edge[ec, g, d]
                        if e >= 198:
                            continue
                        if zg:
                            e += zx
                        if zh:
                            e += zn
                        nc = c + e
                        if g == start and nc > ma2 and ma2 > 0:
                            nc = ma2  # rule 6.53: one hex for the whole allowance
                        if nc <= ma2 and nc < cost[h]:
                            if cost[h] == inf:
                                seen[t] = h
                                t += 1
                            cost[h] = nc
                            pred[h] = g
                            pool_h[q] = h
                            pool_n[q] = -1
                            if head[nc] < 0:
                                head[nc] = q
                            else:
                                pool_n[tail[nc]] = q
                            tail[nc] = q
                            q += 1
            p = pool_n[p]
    return t


@nb.njit(cache=True)
def reach_sparse_buffers(n):
    """Fresh buffers for :func:`reach_sparse` on a map of ``n`` hexes, as it
    expects them on entry (rules 6.1, 5.2: its search's state).

    Parameters
    ----------
    n : int
        Number of hexes (dense indices ``0 <= h < n``).

    Returns
    -------
    cost : int32[n]
        All ``1 << 28`` (not reached).
    pred : int32[n]
        All -1.
    done : bool[n]
        All False.
    pool_h, pool_n : int64[6 * n + 1]
        Working space (bucket entries; at most one per hexside entered, plus one).
    seen : int64[n]
        Working space (the hexes reached).

    The bucket heads and tails (``head``, ``tail``) are sized by the caller
    for its largest allowance.
    """
    cost = np.full(n, 1 << 28, np.int32)
    pred = np.full(n, -1, np.int32)
    done = np.zeros(n, np.bool_)
    pool_h = np.empty(6 * n + 1, np.int64)
    pool_n = np.empty(6 * n + 1, np.int64)
    seen = np.empty(n, np.int64)
    return cost, pred, done, pool_h, pool_n, seen


@nb.njit(cache=True)
def reach_sparse_reset(seen, t, cost, pred, done):
    """Put back the buffers of :func:`reach_sparse` after a search that
    reached ``seen[:t]`` (``cost`` ``1 << 28``, ``pred`` -1, ``done`` False)."""
    for j in range(t):
        h = seen[j]
        cost[h] = 1 << 28
        pred[h] = -1
        done[h] = False


@nb.njit(cache=True)
def legal_kernel(start, ma2, cls, strategic, edge, ocean_side, nbr, zoc, blocked, stop, land, strat_ok,
                 zoc_enter, zoc_exit, units, box, hexes, level, base, remnant_level, room_max, add):
    """Destinations of one unit's move (rules 5.2, 6.1-6.3, 6.53, 7.1): the
    search of :func:`reach_kernel` over land hexes (and, strategic, the
    ``strat_ok`` hexes of rule 6.2), then the hexes where the mover still fits
    the stacking limit.

    Parameters
    ----------
    start, ma2, cls, strategic, ocean_side, nbr, zoc, blocked, stop, zoc_enter, zoc_exit
        As :func:`reach_kernel`, with ``land`` and ``strat_ok`` (bool[n]) in
        place of ``allowed``.
    edge : int32[n, 6]
        Hexside costs for this class and kind of movement (:func:`edge_costs`).
    units : int64[k]
        The mover's side's pieces; ``box``, ``hexes``, ``level`` their state
        (all pieces' arrays); ``base``, ``remnant_level`` from
        :func:`stack_tables`.
    room_max : int
        Half battalions a hex may hold less the mover's own weight (7.1).
    add : int
        MP spent before moving (2 to hitch artillery, rule 6.6), added to each cost.

    Returns
    -------
    dest : int64[m]
        Hexes (ascending, never ``start``) the unit may end in.
    mp : float64[m]
        MP spent to end in each (half-MP cost / 2 + ``add``).
    pred : int32[n]
        As :func:`reach_kernel`.
    """
    allowed = land & strat_ok if strategic else land
    cost, pred = reach_core(start, ma2, cls, edge, zoc, blocked, stop, allowed, ocean_side, nbr,
                            zoc_enter, zoc_exit)
    n = nbr.shape[0]
    room = stack_room_kernel(units, box, hexes, level, base, remnant_level, n, room_max)
    dest = np.empty(n, np.int64)
    mp = np.empty(n, np.float64)
    k = 0
    for h in range(n):
        if h != start and cost[h] < (1 << 28) and room[h] >= 0:
            dest[k] = h
            mp[k] = cost[h] / 2.0 + add
            k += 1
    return dest[:k], mp[:k], pred


@nb.njit(cache=True)
def move_check_kernel(start, ma2, cls, strategic, edge, ocean_side, nbr, zoc, blocked, stop, land,
                      strat_ok, zoc_enter, zoc_exit, units, box, hexes, level, base, remnant_level,
                      room_max, add, dest):
    """Whether one unit may end its move in hex ``dest``, and by which path
    (rules 5.2, 6.1-6.3, 6.53, 7.1): :func:`legal_kernel`'s answer for that
    one hex, from the search of :func:`reach_to` stopped once ``dest`` is
    settled.

    Parameters
    ----------
    start ... add
        As :func:`legal_kernel`.
    dest : int
        The destination hex (dense index).

    Returns
    -------
    mp : float64
        MP spent to end in ``dest`` as :func:`legal_kernel` gives it; -1.0
        when ``dest`` is not among :func:`legal_kernel`'s destinations.
    path : int64[m]
        The hexes entered, ``start`` excluded, ``dest`` last (the path of
        ``legal_kernel``'s ``pred``); empty when ``mp`` is -1.
    """
    n = nbr.shape[0]
    empty = np.empty(0, np.int64)
    if dest < 0 or dest >= n or dest == start:
        return -1.0, empty
    allowed = land & strat_ok if strategic else land
    cost, pred = reach_to(start, ma2, cls, edge, zoc, blocked, stop, allowed, ocean_side, nbr,
                          zoc_enter, zoc_exit, dest)
    if cost[dest] >= (1 << 28):
        return -1.0, empty
    room = stack_room_kernel(units, box, hexes, level, base, remnant_level, n, room_max)
    if room[dest] < 0:
        return -1.0, empty
    m = 0
    cur = dest
    while cur != start:                      # a settled hex's predecessors lead back to start
        m += 1
        cur = pred[cur]
    path = np.empty(m, np.int64)
    cur = dest
    for j in range(m - 1, -1, -1):
        path[j] = cur
        cur = pred[cur]
    return cost[dest] / 2.0 + add, path


@nb.njit(cache=True, inline="always")
def _cls_pick(vec, cls):
    if cls < 0:
        m = vec[0]
        for k in range(1, 3):
            if vec[k] < m:
                m = vec[k]
        return m
    return vec[cls]


@nb.njit(cache=True)
def _edge2(g, d, h, cls, strategic, move_cost, strat_cost, road, creek, rise, road_cost,
           road_strat, creek_cost, rise_cost):
    """Half-MP cost to cross from g (side d) into h; >= 198 when prohibited."""
    best = 1e9
    lo = 0 if cls < 0 else cls
    hi = 2 if cls < 0 else cls
    for c in range(lo, hi + 1):
        if road[g, d]:
            v = road_strat[c] if strategic else road_cost[c]
        else:
            v = strat_cost[h, c] if strategic else move_cost[h, c]
            if v >= 99:
                continue
            if creek[g, d]:
                v += creek_cost[c]
            if rise[g, d]:
                if rise_cost[c] >= 99:
                    continue
                v += rise_cost[c]
        if v < best:
            best = v
    if best >= 99:
        return 198
    return int(math.ceil(best * 2 - 1e-9))


# ------------------------------------------------------------------ helpers
def within2_of_enemy(game, side: int) -> np.ndarray:
    """bool[n_hexes]: within two hexes of an enemy ground unit (rule 6.2),
    marked by :func:`within2_kernel` in one pass over the enemy's pieces."""
    t, s = game.static, game.state
    return within2_kernel(_side_units(game, 1 - side), s.box, s.hex, game.ground_mask, _within2(t))


@nb.njit(cache=True)
def within2_kernel(units, box, hexes, ground, within2):
    """bool[n_hexes]: the hexes of ``within2`` (int64[n_hexes, 19], the
    hexes within two of each hex) around the hexes of the ground units
    (``ground`` bool[n_units]) among ``units`` (int64[k]) on the map (rule 6.2)."""
    out = np.zeros(within2.shape[0], np.bool_)
    for i in range(units.shape[0]):
        u = units[i]
        if box[u] == 0 and ground[u]:
            row = within2[hexes[u]]
            for j in range(row.shape[0]):
                out[row[j]] = True
    return out


@st.per_static
def _within2(t) -> np.ndarray:
    """int64[n_hexes, 19]: the hexes within two hexes of each hex (padded
    with the hex itself), built once per :class:`StaticData`."""
    d = t.grid.distance_table
    out = np.repeat(np.arange(d.shape[0])[:, None], 19, axis=1)
    for h in range(d.shape[0]):
        w = np.flatnonzero(d[h] <= 2)
        out[h, :len(w)] = w
    return out


def movable(game, u: int) -> bool:
    """Rule 6.0/6.53/6.54/16.13/19.8/17.81: may ``u`` move in this movement phase?"""
    s, t = game.state, game.static
    if s.box[u] != BOX_MAP or s.moved[u]:
        return False
    ut = t.utype[u]
    if ut in (st.WARSHIP, st.COASTAL_GUN, st.STRONGPOINT, st.MILITIA):
        return False
    if s.entered_turn[u] == game.turn:
        return False
    if t.side[u] == ALLIED:
        if not special_rules.delayed_reaction_ok(game, u):
            return False                     # rule 17.7
    if ut == st.ARTILLERY:
        return int(t.ma[u, s.level[u]]) > 0
    return game.movement_allowance(u) > 0


@st.per_static
def _never_moves(t) -> np.ndarray:
    """bool[n_units]: pieces that never move in a movement phase: warships
    (they move in their own step, 16.71), strongpoints (16.23), militia
    (16.34) and coastal guns (16.53).  Built once per :class:`StaticData`."""
    return np.isin(t.utype, (st.WARSHIP, st.COASTAL_GUN, st.STRONGPOINT, st.MILITIA))


def movable_units(game, side: int) -> list:
    """The units of ``side`` that may move in this movement phase, ascending
    (Python ints): ``[u for u in game.on_map(side) if movable(game, u)]``
    worked out over all the side's pieces at once.

    A piece moves (rules 6.0, 6.53, 6.54, 16.13, 17.7, 17.81, 19.8) when it is
    on the map, has not moved, is not a warship, coastal gun, strongpoint or
    militia, did not arrive this turn, its printed movement allowance at its
    level is positive (leaders: always, 14.3; the reductions of 8.33 and 11.4
    never bring a positive allowance below 1) and, Allied, rule 17.7 lets it act.

    Returns
    -------
    list of int
        Unit indices.
    """
    out = _movable_before_17_7(game, side).tolist()
    if side == ALLIED:
        may = may_act_hexes(game, side)                              # rule 17.7
        if may is not None:
            hx = game.state.hex
            out = [u for u in out if may[hx[u]]]
    return out


def may_act_hexes(game, side: int):
    """Rule 17.7 for every hex at once: bool[n_hexes], the hexes from which a
    unit of ``side`` may move, bombard or support now
    (:func:`special.delayed_reaction_ok` of a unit there), or None when the
    rule lets every unit act (the Axis; every turn after 29 June noon; the
    Introductory Scenario)."""
    if side != ALLIED:
        return None
    turn = int(game.state.turn[0])
    if turn > 1:
        return None                          # the rule covers only turns 0 and 1
    radius = special_rules.delayed_reaction_radius(turn, getattr(game.scenario, "name", "hercules"))
    if radius < 0:
        return None
    return special_rules._may_act_map(game, radius)


def _movable_before_17_7(game, side: int) -> np.ndarray:
    """int64[k]: the units of :func:`movable_units` before the Allied test of
    rule 17.7 (ascending)."""
    s, t = game.state, game.static
    return movable_kernel(_side_units(game, side), s.box, s.moved, s.entered_turn, s.level, game.turn,
                          _never_moves(t), t.utype, t.ma, st.LEADER)


@nb.njit(cache=True)
def movable_kernel(units, box, moved, entered_turn, level, turn, never, utype, ma, leader):
    """int64[j]: the pieces among ``units`` (int64[k], ascending) that may
    move in this movement phase before rule 17.7 (rules 6.0, 6.53, 6.54,
    16.13, 17.81, 19.8): on the map, not moved, not ``never`` moving pieces
    (bool[n_units]), not arrived this ``turn``, and a leader (type code
    ``leader``) or a positive printed MA at their level (``ma``
    int8[n_units, levels], MP)."""
    out = np.empty(units.shape[0], np.int64)
    k = 0
    for i in range(units.shape[0]):
        u = units[i]
        if box[u] != 0 or moved[u] or never[u] or entered_turn[u] == turn:
            continue
        if utype[u] == leader or ma[u, level[u]] > 0:
            out[k] = u
            k += 1
    return out[:k]


def effective_ma(game, u: int) -> int:
    """MA for this phase with the leader bonus (14.1) and the night limit for
    demoralized units (6.71)."""
    s, t = game.state, game.static
    if t.utype[u] == st.ARTILLERY:
        ma = int(t.ma[u, s.level[u]])
        if s.out_of_supply[u] and t.move_class[u] != st.FOOT:
            ma = max(1, ma - 2)
        if s.morale_state[u] == DEMORALIZED:
            ma = max(1, ma - 2)
    else:
        ma = game.movement_allowance(u)
    if ma > 0:
        ma += int(s.leader_bonus[u])                                   # 14.1
    if game.night and s.morale_state[u] == DEMORALIZED:
        ma = -(-ma // 2)
    return ma


def leader_bonus(game, side: int) -> np.ndarray:
    """int8[n_units]: MP bonus from the formation leader at the start of the
    movement phase (rule 14.1: stacked or adjacent, own formation, one leader)."""
    s, t = game.state, game.static
    return leader_bonus_kernel(side, _side_units(game, side), s.box, s.hex, s.level, s.formation,
                               t.utype, t.ma, t.side, t.move_class, t.formation_leader, t.foot_bonus,
                               t.mot_bonus, t.grid.distance_table, _BONUS_CODES)


#: the leader type code and the foot class code :func:`leader_bonus_kernel` tests
_BONUS_CODES = np.array([st.LEADER, st.FOOT], np.int64)


@nb.njit(cache=True)
def leader_bonus_kernel(side, units, box, hexes, level, formation, utype, ma, unit_side, move_class,
                        formation_leader, foot_bonus, mot_bonus, dist, codes):
    """int8[n_units]: :func:`leader_bonus` in one pass over ``side``'s pieces
    ``units`` (int64[k]; rule 14.1): a unit that moves at all (printed MA at
    its level > 0, not a leader) gets the foot or motorised bonus (int8
    ``foot_bonus`` / ``mot_bonus`` [n_units, levels], MP) of its formation's
    leader when that leader is on the map, of its side, and stacked with it
    or adjacent (``dist`` hex distances); ``codes`` = leader type, foot class."""
    out = np.zeros(utype.shape[0], np.int8)
    nf = formation_leader.shape[0]
    for i in range(units.shape[0]):
        u = units[i]
        if box[u] != 0 or utype[u] == codes[0] or ma[u, level[u]] <= 0:
            continue
        f = formation[u]
        if f < 0 or f >= nf:
            continue
        ld = formation_leader[f]
        if ld < 0 or box[ld] != 0 or unit_side[ld] != side or dist[hexes[ld], hexes[u]] > 1:
            continue
        b = foot_bonus[ld, level[ld]] if move_class[u] == codes[1] else mot_bonus[ld, level[ld]]
        if b > out[u]:
            out[u] = b
    return out


def _masks(game, u: int, mode: str):
    """:func:`_side_masks` for the side of unit ``u`` (``mode`` unused)."""
    return _side_masks(game, int(game.static.side[u]))


def _side_masks(game, side: int):
    """(zoc, block, trivial) bool[n_hexes]: the enemy ZOC (rule 5.1) and the
    enemy's blocking and trivial hexes (6.52) that a mover of ``side`` meets,
    kept for the phase while nothing has moved (the memos' own arrays: read
    them, do not modify them)."""
    cache = game.cache.get("move_cache")
    if cache is None:
        cache = game.cache["move_cache"] = {}
    key = (game.turn, game.phase_name, side, cache.get("version", 0))
    if cache.get("key") != key:
        # something moved: the masks stand while the enemy's position key
        # does (the memos' answers for that key; their own arrays, only read)
        pk = _position_key(game, 1 - side)
        if cache.get("pk") != pk:
            zoc = _zoc_memo(game, 1 - side, pk)
            block, trivial = _occupancy_memo(game, 1 - side, pk)
            cache.update(pk=pk, masks=(zoc, block, trivial))
        cache["key"] = key
    return cache["masks"]


def invalidate(game) -> None:
    """Positions changed: recompute ZOC/occupancy masks on next use."""
    c = game.cache.setdefault("move_cache", {})
    c["version"] = c.get("version", 0) + 1


@nb.njit(cache=True)
def allowance(on_map, moved, entered_turn, turn, never, leader, artillery, printed, foot, out_of_supply,
              morale, bonus, night):
    """Movement allowance of one piece this movement phase, in MP, or -1
    when it may not move (rules 6.0, 6.53, 6.54, 16.13, 17.81, 19.8: on the
    map, not moved yet, not a piece that never moves (``never``), not
    arrived this turn; 14.3: a leader has 14; 6.0: the printed MA at the
    piece's level, ``printed``, none when 0; 8.33: out of supply and not of
    the foot class, -2; 11.4: demoralized, -2 (foot class, artillery) or -4;
    neither below 1; 14.1: plus the leader ``bonus``; 6.71: a demoralized
    piece at ``night`` has half, rounded up).  Rule 17.7 and hitching
    artillery (6.6) are the caller's.

    Scalars in (bools, ints; ``morale`` the morale state code), an int out.
    The engine (:func:`_ma_if_movable`, :func:`unit_move_check`) and the
    bots' compiled walks read the allowance here."""
    if not on_map or moved:
        return -1
    if never or entered_turn == turn:
        return -1
    if leader:
        ma = 14                                        # 14.3
    else:
        ma = np.int64(printed)
        if ma <= 0:
            return -1
        if out_of_supply and not foot:
            ma = max(1, ma - 2)                        # 8.33
        if morale == DEMORALIZED:
            ma = max(1, ma - (2 if foot or artillery else 4))      # 11.4
    ma += np.int64(bonus)                              # 14.1
    if morale == DEMORALIZED and night:
        ma = -(-ma // 2)                               # 6.71
    return ma


def _ma_if_movable(game, u: int):
    """``effective_ma(game, u)`` when ``movable(game, u)``, else None: rule
    17.7 for an Allied piece, then :func:`allowance` (rules 6.0, 6.53,
    6.54, 8.33, 11.4, 12.11, 14.1, 16.13, 17.81, 19.8, 6.71)."""
    s, tb = game.state, game.tables
    if tb.side[u] == ALLIED and not special_rules.delayed_reaction_ok(game, u):
        return None                                       # rule 17.7
    ut = tb.utype[u]
    lv = int(s.level[u])
    ma = allowance(int(s.box[u]) == BOX_MAP, bool(s.moved[u]), int(s.entered_turn[u]), game.turn,
                   ut in _NEVER_MOVING_TYPES, ut == st.LEADER, ut == st.ARTILLERY, tb.ma[u][lv], tb.foot[u],
                   bool(s.out_of_supply[u]), int(s.morale_state[u]), int(s.leader_bonus[u]), game.night)
    return None if ma < 0 else ma


#: unit types that never move in a movement phase (as :func:`_never_moves`)
_NEVER_MOVING_TYPES = (st.WARSHIP, st.COASTAL_GUN, st.STRONGPOINT, st.MILITIA)


def legal_moves(game, u: int, mode: str = "tactical", hitch: bool = False) -> dict:
    """Hexes unit ``u`` may end its move in, with the MP spent.

    Parameters
    ----------
    mode : {"tactical", "strategic"}
        Rule 6.3 or 6.2.
    hitch : bool
        Artillery: hitch first (2 MP, rule 6.6) then move.

    Returns
    -------
    dict int -> float
        Destination hex -> MP spent (stacking limits respected at the end, 7.1).
    """
    found = _legal_search(game, u, mode, hitch)
    if found is None:
        return {}
    idx, mp, pred = found
    game.cache["last_pred"] = (u, mode, hitch, pred)
    hexes, spent = idx.tolist(), mp.tolist()
    # execute_move checks a move against the lists kept here, never against
    # the dict handed out, which the caller may change (rule 6.1)
    game.cache["last_legal"] = ((u, mode, bool(hitch), _version(game)), (hexes, spent), pred)
    return dict(zip(hexes, spent))


def _legal_search(game, u: int, mode: str, hitch: bool):
    """The search behind :func:`legal_moves` (rules 5.2, 6.1-6.3, 6.53, 6.6,
    7.1, 14.0, 17.7) in one compiled call, :func:`unit_legal_search`:
    ``(dest int64[m] ascending, mp float64[m], pred int32[n_hexes])`` as
    :func:`legal_kernel` answers, or None when unit ``u`` cannot move."""
    movable, dest, mp, pred = unit_legal_search(u, *_mover_args(game, u, mode, hitch))
    return (dest, mp, pred) if movable else None


def move_area(game, side: int, mode: str) -> np.ndarray:
    """bool[n_hexes]: the hexes a move of ``side`` by ``mode`` movement may
    pass through and end in besides the other rules: for strategic
    movement those fixed at the start of the phase (rule 6.2: friendly
    controlled, never within two hexes of the enemy), else every land hex.
    The state's or the static data's own array: read it, do not modify it."""
    return game.state.strategic_allowed[0, side] if mode == "strategic" else game.static.land


def _move_check(game, u: int, mode: str, hitch: bool, dest):
    """Unit ``u``'s move to ``dest`` checked by :func:`unit_move_check`
    (the rules of :func:`legal_moves`): ``(mp float, path list of int)``,
    the path without the start hex, or None when ``dest`` is not one of
    :func:`legal_moves`'s destinations (or not a hex index)."""
    if not isinstance(dest, (int, np.integer)):
        return None
    mp, path = unit_move_check(u, int(dest), *_mover_args(game, u, mode, hitch))
    return None if mp < 0 else (mp, path.tolist())


def _mover_args(game, u: int, mode: str, hitch: bool) -> tuple:
    """The arguments of :func:`unit_move_check` after ``dest`` (and of
    :func:`unit_legal_search` after ``u``) for piece ``u`` moving by
    ``mode`` movement: the kind of move, ``hitch``, rule 17.7 for an
    Allied piece, turn and night, the state's per-piece arrays, the static
    tables (:func:`_check_statics`), the enemy's ZOC, blocking and trivial
    hexes (:func:`_side_masks`, rules 5.1, 6.52), the hexes the move may use
    (:func:`move_area`, 6.2) and the mover's side's pieces."""
    s, t = game.state, game.static
    side = int(t.side[u])
    may_act = side != ALLIED or special_rules.delayed_reaction_ok(game, u)       # rule 17.7
    zoc, block, trivial = _side_masks(game, side)
    never, utype, ma, move_class, weight, remnant_full, edge, ocean_side, nbr, land, base, rem = \
        _check_statics(t)
    turn = s.turn.item(0)
    return (mode == "strategic", bool(hitch), may_act, turn, turn % 4 == NIGHT, s.box, s.hex, s.level,
            s.moved, s.entered_turn, s.hitched, s.out_of_supply, s.morale_state, s.leader_bonus,
            never, utype, ma, move_class, weight, remnant_full, edge, ocean_side, nbr, zoc, block, trivial,
            land, move_area(game, side, mode), _side_units(game, side), base, rem, ZOC_ENTER, ZOC_EXIT,
            _CHECK_CODES)


@st.per_static
def _check_statics(t) -> tuple:
    """The static arrays :func:`unit_move_check` reads, in its order, built
    once per :class:`StaticData`: never moves, type, MA table, movement
    class, stacking weight and full-remnant level (the game's tables),
    hexside costs, ocean sides, neighbours, land, stacking tables."""
    tb = static_tables(t)
    edge, base, rem = _static_args(t)
    return (_never_moves(t), t.utype, t.ma, t.move_class, tb.base_weight, tb.remnant_level_full, edge,
            t.ocean_side, t.neighbours, t.land, base, rem)


#: the leader and artillery type codes and the foot class code :func:`unit_move_check` reads
_CHECK_CODES = np.array([st.LEADER, st.ARTILLERY, st.FOOT], np.int64)


@nb.njit(cache=True)
def unit_move_check(u, dest, strategic, hitch, may_act, turn, night, box, hexes, level, moved,
                    entered_turn, hitched, out_of_supply, morale, bonus, never, utype, ma_tab,
                    move_class, base_weight, remnant_full, edge, ocean_side, nbr, zoc, block, trivial,
                    land, strat_ok, units, base, remnant_level, zoc_enter, zoc_exit, codes):
    """Whether piece ``u`` may end its move this phase in hex ``dest``, and
    by which path: the whole check of :func:`legal_moves` for one
    destination in one call (rules 5.2, 6.0-6.3, 6.53, 6.6, 7.1, 14.0,
    17.7): its :func:`allowance` (``may_act``: rule 17.7 lets it act),
    hitching for artillery (2 MP, 6.6; ``hitch`` asked), then
    :func:`move_check_kernel` with the stacking room left for its weight
    (7.1; a remnant counts one half battalion, 17.31) and, for a leader, the
    enemy's trivial hexes blocked as well (14.0).

    Parameters
    ----------
    u, dest : int
        The piece and the destination hex.
    strategic, hitch, may_act : bool
        Strategic movement (6.2); hitch first (6.6); rule 17.7 allows it to move.
    turn : int
        The game turn; ``night`` whether it is a night turn.
    box, hexes, level, moved, entered_turn, hitched, out_of_supply, morale, bonus : ndarray[n_units]
        The game state's per-piece arrays (``bonus`` the leader bonus, 14.1).
    never, utype, ma_tab, move_class, base_weight, remnant_full : ndarray
        Per piece: never moves, type, printed MA per level, movement class,
        stacking weight and the level at which it counts one (the game's tables).
    edge : int32[2, 4, n_hexes, 6]
        Hexside costs per kind of movement and class (:func:`edge_cost_table`).
    ocean_side, nbr, zoc, block, trivial, land, strat_ok
        As :func:`legal_kernel` (``block``, ``trivial``: the enemy's
        blocking and trivial hexes, 6.52).
    units, base, remnant_level, zoc_enter, zoc_exit
        As :func:`legal_kernel` (``units``: the mover's side).
    codes : int64[3]
        Leader and artillery type codes, foot class code.

    Returns
    -------
    mp : float64
        MP spent, -1.0 when the move is not legal.
    path : int64[m]
        As :func:`move_check_kernel`.
    """
    ma2, cls, add, room_max = move_budget(u, hitch, may_act, turn, night, box, level, moved,
                                          entered_turn, hitched, out_of_supply, morale, bonus, never,
                                          utype, ma_tab, move_class, base_weight, remnant_full, codes)
    if ma2 < 0:
        return -1.0, np.empty(0, np.int64)
    blocked = block | trivial if utype[u] == codes[0] else block     # a leader cannot overrun (14.0)
    return move_check_kernel(np.int64(hexes[u]), ma2, cls, strategic, edge[1 if strategic else 0, cls + 1],
                             ocean_side, nbr, zoc, blocked, trivial, land, strat_ok, zoc_enter, zoc_exit,
                             units, box, hexes, level, base, remnant_level, room_max, add, dest)


@nb.njit(cache=True)
def move_budget(u, hitch, may_act, turn, night, box, level, moved, entered_turn, hitched, out_of_supply,
                morale, bonus, never, utype, ma_tab, move_class, base_weight, remnant_full, codes):
    """What piece ``u`` may spend on a move this phase, as the searches of
    :func:`legal_kernel` and :func:`move_check_kernel` take it: its
    :func:`allowance` (rules 6.0, 6.53, 6.54, 8.33, 11.4, 14.1, 16.13,
    17.81, 19.8, 6.71; ``may_act``: rule 17.7 lets it act), less the 2 MP
    of hitching for artillery (6.6: unhitched artillery moves only when
    ``hitch`` is asked), its movement class (a leader moves as none, 14.3)
    and the stacking room a hex must have left for its weight (7.1; a
    remnant counts one half battalion, 17.31).

    Parameters
    ----------
    u : int
        The piece.
    hitch, may_act : bool
        Hitch first (6.6); rule 17.7 allows the piece to move.
    turn : int
        The game turn; ``night`` (bool) whether it is a night turn.
    box, level, moved, entered_turn, hitched, out_of_supply, morale, bonus : ndarray[n_units]
        The game state's per-piece arrays (``bonus`` the leader bonus, 14.1).
    never, utype, ma_tab, move_class, base_weight, remnant_full : ndarray
        Per piece: never moves, type, printed MA per level, movement class,
        stacking weight and the level at which it counts one.
    codes : int64[3]
        Leader and artillery type codes, foot class code.

    Returns
    -------
    ma2 : int
        The allowance in half MP (the searches' unit), -1 when the piece
        may not move.
    cls : int
        Movement class, -1 for a leader.
    add : int
        MP spent before moving: 2 when artillery hitches, else 0.
    room_max : int
        Half battalions a hex may hold before the piece enters (7.1).
    """
    ut = utype[u]
    leader = ut == codes[0]
    art = ut == codes[1]
    cls = np.int64(-1) if leader else np.int64(move_class[u])
    if not may_act:
        return np.int64(-1), cls, 0, 0                                       # 17.7
    ma = allowance(box[u] == 0, moved[u], entered_turn[u], turn, never[u], leader, art,
                   ma_tab[u, level[u]], move_class[u] == codes[2], out_of_supply[u], morale[u],
                   bonus[u], night)
    if ma < 0:
        return np.int64(-1), cls, 0, 0
    add = 0
    if art:
        if not hitched[u]:
            if not hitch:
                return np.int64(-1), cls, 0, 0
            ma -= 2                                                          # 6.6: 2 MP to hitch
        if ma <= 0:
            return np.int64(-1), cls, 0, 0
        if hitch:
            add = 2
    w = np.int64(base_weight[u]) - (1 if level[u] == remnant_full[u] else 0)   # 7.1, 17.31
    return np.int64(2 * ma), cls, add, STACK_ROOM - w


@nb.njit(cache=True)
def unit_legal_search(u, strategic, hitch, may_act, turn, night, box, hexes, level, moved, entered_turn,
                      hitched, out_of_supply, morale, bonus, never, utype, ma_tab, move_class,
                      base_weight, remnant_full, edge, ocean_side, nbr, zoc, block, trivial, land,
                      strat_ok, units, base, remnant_level, zoc_enter, zoc_exit, codes):
    """Every hex piece ``u`` may end its move in this phase, in one call:
    :func:`move_budget` and then :func:`legal_kernel` (rules 5.2, 6.0-6.3,
    6.53, 6.6, 7.1, 14.0, 17.7), the search behind :func:`legal_moves`.

    Parameters
    ----------
    u, strategic, hitch, may_act, turn, night, box ... codes
        As :func:`unit_move_check` (no ``dest``).

    Returns
    -------
    movable : bool
        False when the piece may not move (then the arrays are empty).
    dest, mp, pred
        As :func:`legal_kernel`.
    """
    ma2, cls, add, room_max = move_budget(u, hitch, may_act, turn, night, box, level, moved,
                                          entered_turn, hitched, out_of_supply, morale, bonus, never,
                                          utype, ma_tab, move_class, base_weight, remnant_full, codes)
    if ma2 < 0:
        return False, np.empty(0, np.int64), np.empty(0, np.float64), np.empty(0, np.int32)
    blocked = block | trivial if utype[u] == codes[0] else block     # a leader cannot overrun (14.0)
    dest, mp, pred = legal_kernel(np.int64(hexes[u]), ma2, cls, strategic, edge[1 if strategic else 0, cls + 1],
                                  ocean_side, nbr, zoc, blocked, trivial, land, strat_ok, zoc_enter,
                                  zoc_exit, units, box, hexes, level, base, remnant_level, room_max, add)
    return True, dest, mp, pred


@st.per_static
def _least_edge_cost(t) -> np.ndarray:
    """int64[2, 4]: the cheapest hexside any piece of a class can cross, in
    half MPs, per kind of movement (0 tactical, 1 strategic) and class
    (``cls + 1``), over the whole map (rules 6.11, 6.2); 0 when some hexside
    costs nothing.  Built once per :class:`StaticData`."""
    edge = _static_args(t)[0]
    out = np.zeros((2, 4), np.int64)
    for k in range(2):
        for c in range(4):
            e = edge[k, c]
            out[k, c] = int(e[e < 198].min()) if (e < 198).any() else 0
    return out


def reach_bound(game, u: int, mode: str = "tactical") -> int:
    """Hexes (by grid distance) beyond which unit ``u`` cannot end a move
    this phase (rules 6.1-6.3, 6.53): ``-1`` when it cannot move at all
    (:func:`legal_moves` would answer nothing), else ``1 + 2 MA // c``
    with ``c`` the cheapest hexside of its class on the map, in half MPs
    (one hex for the whole allowance, 6.53, then at most one hex per ``c``);
    the number of hexes on the map when that gives no bound (a hexside
    costing nothing, artillery hitching first, 6.6).  A cheap test before
    asking :func:`legal_moves` for a destination far away: a hex farther
    than the bound is never among them."""
    t = game.static
    ma = _ma_if_movable(game, u)
    if ma is None:
        return -1
    if game.tables.utype[u] == st.ARTILLERY or game.tables.utype[u] == st.LEADER:
        return t.n_hexes
    c = int(_least_edge_cost(t)[1 if mode == "strategic" else 0, int(t.move_class[u]) + 1])
    if c <= 0:
        return t.n_hexes
    return 1 + int(np.ceil(2 * ma)) // c


@st.per_static
def stack_tables(t) -> tuple[np.ndarray, np.ndarray]:
    """Per-piece stacking weights (rule 7.1; 16.33, 16.51), built once per
    :class:`StaticData`.

    Returns
    -------
    base : int16[n_units]
        Half battalions a piece counts for: 0 for leaders, coastal guns,
        militia, warships and HQs; 1 for companies and strongpoints; 2 else.
    remnant_level : int16[n_units]
        The level at which a 2-weight battalion (not artillery, with two or
        more levels) is a remnant and counts 1 (rule 17.31); -1 when never.
    """
    base = np.full(t.n_units, 2, np.int16)
    base[(t.size == st.COMPANY) | (t.utype == st.STRONGPOINT)] = 1
    base[np.isin(t.utype, (st.LEADER, st.COASTAL_GUN, st.MILITIA, st.WARSHIP, st.HQ))] = 0
    rem = (t.size == st.BATTALION) & (t.utype != st.ARTILLERY) & (t.n_levels >= 2) & (base == 2)
    level = np.where(rem, t.n_levels.astype(np.int64) - 1, -1).astype(np.int16)
    return (base, level)


@nb.njit(cache=True)
def stack_room_kernel(units, box, hexes, level, base, remnant_level, n_hexes, room_max):
    """int32[n_hexes]: ``room_max`` less the stacking total per hex of
    ``units`` on the map (rule 7.1), weights as :func:`stack_tables`."""
    room = np.full(n_hexes, room_max, np.int32)
    for i in range(units.shape[0]):
        u = units[i]
        if box[u] != 0:                      # BOX_MAP
            continue
        w = 1 if level[u] == remnant_level[u] else base[u]
        room[hexes[u]] -= w
    return room


def _side_units(game, side: int) -> np.ndarray:
    """int64[k]: the pieces of ``side`` (static), kept per game."""
    own = game.cache.get(("_side_units", side))
    if own is None:
        own = game.cache[("_side_units", side)] = np.flatnonzero(game.static.side == side)
    return own


def _side_sel(game, side: int):
    """Selector of the pieces of ``side`` for reading state arrays: a slice
    when they are one run of unit indices (cheaper than an index array, same
    elements in the same order), else :func:`_side_units`."""
    sel = game.cache.get(("_side_sel", side))
    if sel is None:
        own = _side_units(game, side)
        sel = slice(int(own[0]), int(own[-1]) + 1) if len(own) and own[-1] - own[0] + 1 == len(own) else own
        game.cache[("_side_sel", side)] = sel
    return sel


def _stack_room(game, side: int) -> np.ndarray:
    """int32[n_hexes]: half battalions of ``side`` that still fit in each hex
    (rule 7.1: ``STACK_ROOM`` less :func:`organisation.stack_totals`), counted
    by :func:`stack_room_kernel`."""
    s, t = game.state, game.static
    base, rem = stack_tables(t)
    return stack_room_kernel(_side_units(game, side), s.box, s.hex, s.level, base, rem, t.n_hexes, STACK_ROOM)


@st.per_static
def _static_args(t) -> tuple:
    """The static tables :func:`legal_kernel` reads, built once per
    :class:`StaticData`: the hexside costs of :func:`edge_cost_table`
    (int32[2, 4, n, 6]) and the stacking tables of :func:`stack_tables`."""
    edge = edge_cost_table(t.move_cost, t.strat_cost, t.road, t.creek, t.rise, t.neighbours,
                           t.road_cost, t.road_strat_cost, t.creek_cost, t.rise_cost)
    return (edge,) + stack_tables(t)


def _version(game) -> tuple:
    c = game.cache.setdefault("move_cache", {})
    return (game.turn, game.phase_name, c.get("version", 0), game.state.hex.tobytes())


def can_prepare_after(game, u: int, spent: float, hitch: bool, dest: int | None = None) -> bool:
    """Rule 6.6 / 5.4 / 16.13 / 19.47: may artillery ``u`` prepare after
    spending ``spent`` MP (ending in ``dest``, default its hex)?  Never in an
    enemy ZOC (5.4)."""
    s, t = game.state, game.static
    if t.utype[u] != st.ARTILLERY:
        return False
    if s.entered_turn[u] == game.turn:
        return False
    zoc, _, _ = _masks(game, u, "tactical")
    if zoc[int(s.hex[u]) if dest is None else int(dest)]:
        return False
    ma = effective_ma(game, u)
    if t.airborne_art[u]:
        return spent + 2 <= ma
    return spent == 0 and not hitch


# ------------------------------------------------------------------ execution
def _path(pred: np.ndarray, start: int, dest: int) -> list[int]:
    """The hexes entered from ``start`` to ``dest`` (``dest`` last), read
    back along the predecessors ``pred`` of the reach search (rule 6.1)."""
    path = [dest]
    cur = dest
    while cur != start:
        cur = int(pred[cur])
        if cur < 0:
            break
        path.append(cur)
    path.reverse()
    return path[1:]


def enter_hex(game, units, h: int, how: str, enemy_hexes=None) -> None:
    """Units of one side enter hex ``h`` (by movement, advance or retreat):
    control (2.1), elimination of enemy leaders/coastal guns/zero-defense
    units there (6.52, 16.58, 14.42), forts destroyed by Axis entry (17.1),
    and the invasion hook (militia 16.32).

    ``enemy_hexes`` (optional, a set of hexes): where enemy pieces may stand;
    a hex outside it holds none, so the lookup of enemy pieces there is
    skipped.  :func:`execute_move` passes the enemy's hexes at the start of
    the move: during one move enemy pieces only leave hexes (overrun, guns
    overrun 16.58; militia of 16.32 appear when the move ends, after the last
    hex's lookup)."""
    t = game.static
    is_real = _enters_as_unit(t)
    _enter(game, int(t.side[units[0]]), [int(u) for u in units if is_real[u]], (h,), how, enemy_hexes)


@st.per_static
def _enters_as_unit(t) -> list:
    """Per piece (Python bools): whether entering a hex has a unit's effects.
    Leaders are not units (14.0): they neither overrun, control, destroy forts
    nor trigger the invasion's entry effects (militia 16.32, coastal guns
    16.58); nor do warships.  Built once per :class:`StaticData`."""
    return ((t.utype != st.LEADER) & (t.utype != st.WARSHIP)).tolist()


def _enter(game, side: int, real: list, path, how: str, enemy_hexes, mover: int | None = None) -> None:
    """Pieces of ``side``, of which ``real`` (unit indices) are units, enter
    the hexes of ``path`` one by one: per hex the overrun of trivial enemy
    pieces (6.52), control (2.1), forts destroyed by the Axis (17.1) and the
    invasion hook for each unit (16.22, 16.32, 16.58), with ``how`` for the
    last hex and "move" for the hexes passed through (militia uprisings of
    16.32 resolve when the move ends); positions changed (the memos of
    :func:`_side_masks` invalidated) after each.

    Parameters
    ----------
    game : Game
    side : int
        The entering side (0 Axis, 1 Allied).
    real : list of int
        The entering units (see :func:`_enters_as_unit`); none: only the
        positions change.
    path : sequence of int
        Dense hex indices entered, in order (one for :func:`enter_hex`).
    how : str
        The entry kind of the last hex ("move_end" for a move, "advance",
        "retreat", "infiltration", ...; see ``hercules.on_enter_hex``).
    enemy_hexes : set of int or None
        Hexes that may hold enemy pieces (see :func:`enter_hex`); None: look
        in every hex.
    mover : int, optional
        The one unit moving along ``path`` (rule 6.1): its hex is set to each
        hex before that hex's effects.
    """
    s, t = game.state, game.static
    fort, fort_destroyed, control = t.fort, s.fort_destroyed, s.control
    cache = game.cache.setdefault("move_cache", {})
    # the units whose entry has the invasion's effects (the hook does nothing
    # for the others: Allied units, 16.22, 16.32, 16.58)
    hooked = [] if game.skip_invasion else invasion.with_entry_effects(game, real)
    last = len(path) - 1
    # per hex passed through (not the last), whether the invasion hook finds
    # nothing there (:func:`invasion.passing_hexes_quiet`), worked out for
    # the rest of the path at once and again after anything happened
    quiet, q0 = None, 0
    for i, h in enumerate(path):
        if mover is not None:
            s.hex[mover] = h
        if real:
            if enemy_hexes is None or h in enemy_hexes:
                enemy = game.units_at(h, 1 - side)
                if len(enemy):
                    organisation.overrun_trivial(game, enemy, side)
                    quiet = None
            control[h] = side
            if side == AXIS and fort[h] and not fort_destroyed[h]:
                fort_destroyed[h] = True         # rule 17.1
                game.log("fort destroyed", side=side, hexes=[h], rule="17.1")
            if hooked:
                if i == last:
                    for u in hooked:
                        invasion.on_enter_hex(game, u, int(h), how)
                else:
                    if quiet is None:
                        quiet, q0 = invasion.passing_hexes_quiet(game, path[i:last]), i
                    if not quiet[i - q0]:
                        for u in hooked:
                            invasion.on_enter_hex(game, u, int(h), "move")
                        quiet = None
        cache["version"] = cache.get("version", 0) + 1      # invalidate(game): positions changed


def execute_move(game, mv, mode: str) -> None:
    """Carry out a validated :class:`~malta_sim.bots.base.Move`.

    Raises
    ------
    IllegalDecision
        The destination is not legal for the unit (rules 5.2, 6.x, 7.1).
    """
    s, t = game.state, game.static
    u = int(mv.unit)
    start = int(s.hex[u])
    art = t.utype[u] == st.ARTILLERY
    if mv.hitch and (not art or s.hitched[u]):
        raise illegal("6.6", f"{t.names[u]} is not prepared artillery; it cannot hitch")
    if art and not s.hitched[u] and not mv.hitch and mv.dest != start:
        raise illegal("6.6", f"prepared artillery {t.names[u]} must hitch before moving")
    spent = 0.0
    if mv.dest != start:
        last = game.cache.get("last_legal")
        if last is not None and last[0] == (u, mode, bool(mv.hitch), _version(game)):
            # the query just made for this unit: find the destination in its
            # list (no mapping built for a single lookup)
            (hexes, mps), pred = last[1], last[2]
            try:
                spent = mps[hexes.index(mv.dest)]
            except ValueError:
                spent = None
            path = None if spent is None else _path(pred, start, mv.dest)
        else:
            # the search of legal_moves, stopped once the destination is
            # settled (no list of destinations built for a single check)
            found = _move_check(game, u, mode, mv.hitch, mv.dest)
            spent, path = (None, None) if found is None else found
        if spent is None:
            raise illegal("6.1", f"{t.names[u]} cannot move from {game.hex_name(start)} to "
                                 f"{game.hex_name(mv.dest)} by {mode} movement")
    else:
        path = []
        if mv.hitch:
            spent = 2.0
    if mv.hitch:
        s.hitched[u] = True
    if mv.prepare:
        # the MP spent include the 2 of hitching (6.6): a parachute or glider
        # battery that hitched and moved prepares only with 2 MP left
        if not can_prepare_after(game, u, spent, mv.hitch, mv.dest) or not s.hitched[u]:
            raise illegal("6.6", f"{t.names[u]} cannot prepare after this move")
        zoc, _, _ = _masks(game, u, mode)
        if zoc[mv.dest]:
            raise illegal("5.4", f"{t.names[u]} cannot prepare in an enemy ZOC")
        s.hitched[u] = False
        spent = float(effective_ma(game, u)) if not t.airborne_art[u] else spent + 2
    _finish_move(game, u, start, path, spent, mode)


def _finish_move(game, u: int, start: int, path: list, spent: float, mode: str) -> None:
    """The end of a move (rules 6.1-6.3, 6.71): unit ``u`` enters the hexes of
    ``path`` (list of int, the start hex ``start`` excluded; empty for a move
    that stays put) having spent ``spent`` MP by ``mode`` movement; then the
    moved and strategic flags, the night effect and the log entry."""
    s, t = game.state, game.static
    side = int(t.side[u])
    # leaders stacked with the mover do not travel with it (each piece moves alone, 6.1)
    if path:
        if _enters_as_unit(t)[u]:
            # hexes holding enemy pieces now (see enter_hex): a superset of
            # those holding any when the mover enters them
            _enter(game, side, [u], path, "move_end", _side_hexes(game, 1 - side), u)
        else:                                # a leader: no unit effects, only the new position
            s.hex[u] = path[-1]
            invalidate(game)
    s.moved[u] = True
    if mode == "strategic":
        s.strategic[u] = True
    if game.night and path:
        _night_effect(game, u, spent)
    if game.events is not None:              # the entry is built only when a log is kept
        game.log(f"{mode} move", side=side, hexes=[start] + path, units=[u],
                 result=f"{spent:g} MP", rule="6.1")
    invalidate(game)


def _side_hexes(game, side: int) -> frozenset:
    """The hexes of ``side``'s pieces (-1 for pieces off the map), as a
    frozenset kept per side with the bytes of those hexes: during a movement
    phase the other side's pieces stand still, so one set serves its moves."""
    hx = game.state.hex[_side_sel(game, side)]
    key = hx.tobytes()
    out = game.kept("_side_hexes", side, key)
    if out is None:
        out = game.keep("_side_hexes", side, key, frozenset(hx.tolist()))
    return out


def _night_effect(game, u: int, spent: float) -> None:
    """Rule 6.71: more than half the MA at night disorganizes (demoralizes a
    disorganized unit); demoralized units only move half."""
    s = game.state
    ma = effective_ma(game, u)
    if s.morale_state[u] == DEMORALIZED:
        return
    if spent > -(-ma // 2):
        morale.disorganize(game, [u])


def strategic_movement(game, side: int) -> None:
    """Rule 6.2 (4.24 b / 4.32 b): units not within two hexes of enemy ground
    units may move through hexes friendly-controlled at the start of the phase
    and never within two hexes of the enemy.

    The phase's leader bonuses (14.1), the hexes strategic movement may use
    and the candidates (rule 17.7 apart) come from one compiled call,
    :func:`strategic_setup_kernel`."""
    s, t = game.state, game.static
    bonus, allowed, cands = strategic_setup_kernel(
        side, _side_units(game, side), _side_units(game, 1 - side), s.box, s.hex, s.level, s.formation,
        s.moved, s.entered_turn, s.control, s.turn.item(0), game.ground_mask, _within2(t), t.land,
        _never_moves(t), t.utype, t.ma, t.side, t.move_class, t.formation_leader, t.foot_bonus,
        t.mot_bonus, t.grid.distance_table, _BONUS_CODES)
    s.leader_bonus[:] = bonus                                          # 14.1
    s.strategic_allowed[0, side] = allowed                             # 6.2
    s.zoc_at_phase_start[:] = zoc_map(game, 1 - side)                  # 6.41
    invalidate(game)
    cands = cands.tolist()
    if side == ALLIED and cands:
        may = may_act_hexes(game, side)                              # rule 17.7
        if may is not None:
            hx = s.hex
            cands = [u for u in cands if may[hx[u]]]
    _movement_loop(game, side, "strategic", cands)


@nb.njit(cache=True)
def strategic_setup_kernel(side, units, enemy_units, box, hexes, level, formation, moved, entered_turn,
                           control, turn, ground, within2, land, never, utype, ma, unit_side, move_class,
                           formation_leader, foot_bonus, mot_bonus, dist, codes):
    """What a strategic movement phase starts from (rules 6.2, 14.1), in one
    pass: :func:`leader_bonus`, :func:`within2_of_enemy`, the hexes the
    side may move through and the candidates.

    Parameters
    ----------
    side : int
        The moving side (0 Axis, 1 Allied).
    units, enemy_units : int64[k]
        The side's and the enemy's pieces (ascending).
    box, hexes, level, formation, moved, entered_turn : arrays [n_units]
        The game state's per-piece arrays.
    control : int8[n_hexes]
        Hex control (2.1).
    turn : int
        Game turn.
    ground : bool[n_units]
        Ground combat units.
    within2 : int64[n_hexes, 19]
        The hexes within two of each hex (:func:`_within2`).
    land : bool[n_hexes]
    never, utype, ma
        As :func:`movable_kernel`.
    unit_side, move_class, formation_leader, foot_bonus, mot_bonus, dist, codes
        As :func:`leader_bonus_kernel` (``codes`` = leader type, foot class).

    Returns
    -------
    bonus : int8[n_units]
        Leader MP bonus of the phase (:func:`leader_bonus_kernel`, 14.1).
    allowed : bool[n_hexes]
        Land hexes the side controls that are not within two hexes of an
        enemy ground unit (6.2).
    cands : int64[j]
        The side's pieces that may move (:func:`movable_kernel`; rule 17.7
        not applied) that are not leaders and do not stand within two hexes
        of an enemy ground unit, ascending.
    """
    bonus = leader_bonus_kernel(side, units, box, hexes, level, formation, utype, ma, unit_side,
                                move_class, formation_leader, foot_bonus, mot_bonus, dist, codes)
    near = within2_kernel(enemy_units, box, hexes, ground, within2)
    n = land.shape[0]
    allowed = np.empty(n, np.bool_)
    for h in range(n):
        allowed[h] = control[h] == side and not near[h] and land[h]
    movable = movable_kernel(units, box, moved, entered_turn, level, turn, never, utype, ma, codes[0])
    cands = np.empty(movable.shape[0], np.int64)
    k = 0
    for i in range(movable.shape[0]):
        u = movable[i]
        if not near[hexes[u]] and utype[u] != codes[0]:
            cands[k] = u
            k += 1
    return bonus, allowed, cands[:k]


def tactical_movement(game, side: int) -> None:
    """Rule 6.3 (4.24 c / 4.32 c)."""
    _movement_loop(game, side, "tactical", movable_units(game, side))


def _movement_loop(game, side, mode, cands) -> None:
    """Rule 6.1: the side's player moves its units one at a time, in the
    order its policy picks among ``cands`` (units leaving the map meanwhile,
    e.g. overrun, are dropped from the candidates).  Each move the policy
    returns (``next_move``) is checked against :func:`legal_moves`."""
    pol = game.policy(side)
    left = list(cands)
    guard = 0
    filtered = None                          # the boxes when ``left`` was last filtered
    while left and guard < 10 * len(cands) + 10:
        guard += 1
        mv = pol.next_move(game, mode, left)
        if mv is None:
            break
        u = int(mv.unit)
        if u not in left:
            raise illegal("6.0", f"{game.static.names[u]} may not move now ({mode})")
        execute_move(game, mv, mode)
        left.remove(u)
        key = game.state.box.tobytes()
        if key != filtered:                  # same boxes: the filter would keep every one
            box = game.state.box.tolist()
            left = [u for u in left if box[u] == BOX_MAP]
            filtered = key


def infiltration_options(game, side: int) -> dict:
    """Rule 6.41: unit -> adjacent enemy-ZOC hexes it may try to infiltrate into."""
    s, t = game.state, game.static
    zoc_start = s.zoc_at_phase_start                    # the enemy ZOC at the phase's start
    out = {}
    if not np.count_nonzero(zoc_start):
        return out
    pk = _position_key(game, 1 - side)
    zoc = _zoc_memo(game, 1 - side, pk)                  # read only
    block, _ = _occupancy_memo(game, 1 - side, pk)
    base, rem = stack_tables(t)
    units, dests = infiltration_options_kernel(
        _side_units(game, side), s.box, s.moved, s.entered_turn, s.level, s.turn.item(0), _never_moves(t),
        t.utype, t.ma, s.hex, t.move_class, zoc_start, zoc, block, t.land, t.ocean_side, t.rise, t.road,
        t.neighbours, base, rem, STACK_ROOM, _INFILTRATION_CODES)
    allied = side == ALLIED
    for u, row in zip(units.tolist(), dests.tolist()):
        if allied and not special_rules.delayed_reaction_ok(game, u):
            continue                                             # rule 17.7
        out[u] = [o for o in row if o >= 0]
    return out


#: unit type and movement class codes :func:`infiltration_kernel` tests
#: (leader, artillery, foot class)
_INFILTRATION_CODES = np.array([st.LEADER, st.ARTILLERY, st.FOOT], np.int64)


@nb.njit(cache=True)
def infiltration_options_kernel(side_units, box, moved, entered_turn, level, turn, never, utype, ma,
                                hexes, move_class, zoc_start, zoc, block, land, ocean_side, rise, road,
                                nbr, base, remnant_level, room_max, codes):
    """The whole of :func:`infiltration_options` before rule 17.7 in one
    call (rules 6.41, 5.0, 7.1): the side's pieces that may move
    (:func:`movable_kernel`), the stacking room left per hex
    (:func:`stack_room_kernel`, ``room_max`` half battalions a hex holds),
    then :func:`infiltration_kernel`.

    Parameters
    ----------
    side_units : int64[k]
        The side's pieces, ascending.
    box, moved, entered_turn, level, hexes : arrays [n_units]
        The game state's per-piece arrays.
    turn : int
        Game turn.
    never, utype, ma, move_class
        As :func:`movable_kernel` and :func:`infiltration_kernel`.
    zoc_start, zoc, block, land, ocean_side, rise, road, nbr, base, remnant_level
        As :func:`infiltration_kernel`.
    room_max : int
        Rule 7.1 stacking limit, half battalions.
    codes : int64[3]
        :data:`_INFILTRATION_CODES` (leader, artillery, foot class).

    Returns
    -------
    sel, dests
        As :func:`infiltration_kernel`.
    """
    units = movable_kernel(side_units, box, moved, entered_turn, level, turn, never, utype, ma,
                           codes[0])
    room = stack_room_kernel(side_units, box, hexes, level, base, remnant_level, nbr.shape[0],
                             room_max)
    return infiltration_kernel(units, hexes, level, utype, move_class, zoc_start, zoc, block, land,
                               ocean_side, rise, road, nbr, room, base, remnant_level, codes)


@nb.njit(cache=True)
def infiltration_kernel(units, hexes, level, utype, move_class, zoc_start, zoc, block, land,
                        ocean_side, rise, road, nbr, room, base, remnant_level, codes):
    """The hexes each candidate may try to infiltrate into (rule 6.41).

    A candidate (leaders and artillery never infiltrate) starts the phase in
    an enemy ZOC and is in one now; a destination is an adjacent land hex in
    enemy ZOC without blocking enemy pieces, not across an all-ocean hexside
    nor, for mot/mech units, a Creek-with-Rise hexside without road (5.0),
    where the unit fits the stacking limit (7.1).

    Parameters
    ----------
    units : int64[k]
        Units that may move (rule 17.7 aside), ascending.
    hexes, level, utype, move_class : arrays [n_units]
    zoc_start, zoc, block, land, room : arrays [n_hexes]
        Enemy ZOC at the start of the phase and now, blocking enemy pieces,
        land, stacking room left (half battalions, :func:`_stack_room`).
    ocean_side, rise, road : bool[n_hexes, 6]; nbr : int32[n_hexes, 6]
    base, remnant_level : int16[n_units]
        :func:`stack_tables`.
    codes : int64[3]
        :data:`_INFILTRATION_CODES`.

    Returns
    -------
    sel : int64[m]
        Candidates with at least one destination, ascending.
    dests : int64[m, 6]
        Their destinations in direction order, -1 for a hexside without one.
    """
    leader_code, art_code, foot_code = codes[0], codes[1], codes[2]
    k = units.shape[0]
    sel = np.empty(k, np.int64)
    dests = np.full((k, 6), -1, np.int64)
    m = 0
    for i in range(k):
        u = units[i]
        h = hexes[u]
        if utype[u] == leader_code or utype[u] == art_code or not zoc_start[h] or not zoc[h]:
            continue
        w = 1 if level[u] == remnant_level[u] else base[u]
        any_dest = False
        for d in range(6):
            o = nbr[h, d]
            if o < 0 or not land[o] or block[o] or not zoc[o] or ocean_side[h, d]:
                continue
            if rise[h, d] and not road[h, d] and move_class[u] != foot_code:
                continue
            if room[o] >= w:
                dests[m, d] = o
                any_dest = True
        if any_dest:
            sel[m] = u
            m += 1
    return sel[:m], dests[:m]


def infiltration_movement(game, side: int) -> None:
    """Rule 6.4 (4.24 e / 4.32 d): one die + morale + modifiers; 9+ succeeds,
    8 or less stays and is disorganized."""
    s, t = game.state, game.static
    pol = game.policy(side)
    guard = 0
    while guard < 200:
        guard += 1
        opts = infiltration_options(game, side)
        if not opts:
            return
        pick = pol.next_infiltration(game, opts)
        if pick is None:
            return
        u, dest = int(pick[0]), int(pick[1])
        if u not in opts or dest not in opts[u]:
            raise illegal("6.41", f"{t.names[u]} cannot infiltrate into {game.hex_name(dest)}")
        die = game.die("movement")
        mod = game.morale_value(u)
        if len(game.units_at(dest, side)):
            mod += 2
        if game.night:
            mod += 1
        if t.utype[u] == st.TANK:
            mod += 1
        if t.move_class[u] == st.MOT:
            mod -= 1
        if _both_next_to_enemy_fort(game, int(s.hex[u]), dest, side):
            mod -= 2
        ok = die + mod >= 9
        start = int(s.hex[u])
        s.moved[u] = True
        if ok:
            s.hex[u] = dest
            enter_hex(game, [u], dest, "infiltration")
        else:
            morale.disorganize(game, [u])
        game.log("infiltration", side=side, hexes=[start, dest], units=[u], dice=[die],
                 result="success" if ok else "failed, disorganized", rule="6.41")
        invalidate(game)


def _both_next_to_enemy_fort(game, a: int, b: int, side: int) -> bool:
    s, t = game.state, game.static
    def near(h):
        for d in range(6):
            o = t.neighbours[h, d]
            if o >= 0 and t.fort[o] and not s.fort_destroyed[o] and len(game.units_at(o, 1 - side)):
                return True
        return False
    return near(a) and near(b)
