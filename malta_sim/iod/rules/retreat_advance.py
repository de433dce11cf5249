"""Compiled steps of retreats and advances after combat (rules 9.6, 9.61,
7.3, 9.8, 9.81, 9.83, 9.84): the hexes a retreating stack may enter next,
ranked, and the hexes an advancing group may continue into, each step in one
call over the state arrays instead of a Python test per hexside; the pieces
that may advance (:func:`advance_eligible`) and the default bots' choice of
who advances within the stacking limit (:func:`fit_in_order`), each in one
call.

:func:`.combat.retreat_stack` and :func:`.combat._advance` call these
kernels; they give the answers of :func:`.combat._enterable` and
:func:`.organisation.fits_stacking` per hexside, in direction order.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from malta_sim.iod import static as st
from malta_sim.iod.state import BOX_MAP

_LEADER = st.LEADER
_BOX_MAP = BOX_MAP
#: rule 7.1 (:data:`.static.STACK_LIMIT_HALVES`)
_STACK_LIMIT_HALVES = st.STACK_LIMIT_HALVES


@nb.njit(cache=True)
def enterable(units, a, d, nbr, land, ocean_side, move_class, move_cost, rise, road, rise_cost,
              utype):
    """:func:`.combat._enterable`: may the pieces ``units`` cross hexside ``d``
    of hex ``a`` (a land hex across a hexside that is not all ocean, terrain
    and rise not prohibited for any non-leader's movement class; rules 9.61,
    9.84, 6.1)?

    Parameters
    ----------
    units : int64[k]
        The moving pieces.
    a, d : int
        Hex and hexside direction (0-5, N, NE, SE, S, SW, NW).
    nbr : int32[n_hexes, 6]
        Neighbour table (-1 off the grid).
    land : bool[n_hexes]
    ocean_side, rise, road : bool[n_hexes, 6]
        Hexside features.
    move_class : int8[n_units]
        Movement class of each piece.
    move_cost : float32[n_hexes, n_classes]
        Terrain cost per class (99 or more: prohibited).
    rise_cost : float32[n_classes]
        Extra cost of a rise hexside per class (99 or more: prohibited).
    utype : int8[n_units]
        Unit type codes.

    Returns
    -------
    bool
    """
    b = nbr[a, d]
    if b < 0 or not land[b] or ocean_side[a, d]:
        return False
    for i in range(units.shape[0]):
        u = units[i]
        if utype[u] == _LEADER:
            continue
        c = move_class[u]
        if move_cost[b, c] >= 99:
            return False
        if rise[a, d] and not road[a, d] and rise_cost[c] >= 99:
            return False
    return True


@nb.njit(cache=True)
def fits(units, h, hexa, level, own_side, base_weight, remnant_level_full):
    """:func:`.organisation.fits_stacking`: would ``units`` fit in hex ``h``
    with the pieces of their side already there (rule 7.1; a remnant counts one
    half battalion, 17.31)?

    Parameters
    ----------
    units : int64[k]
        The moving pieces (one side).
    h : int
        Dense hex index.
    hexa, level : arrays [n_units]
        State fields ``hex`` and ``level``.
    own_side : bool[n_units]
        The pieces of the moving side.
    base_weight : int16[n_units]
        Stacking weight at full strength in half battalions.
    remnant_level_full : int8[n_units]
        ``StaticTables.remnant_level_full``.

    Returns
    -------
    bool
    """
    tot = 0
    for x in range(hexa.shape[0]):
        if hexa[x] != h or not own_side[x]:
            continue
        moving = False
        for i in range(units.shape[0]):
            if units[i] == x:
                moving = True
                break
        if not moving:
            tot += np.int64(base_weight[x]) - (1 if level[x] == remnant_level_full[x] else 0)
    for i in range(units.shape[0]):
        u = units[i]
        tot += np.int64(base_weight[u]) - (1 if level[u] == remnant_level_full[u] else 0)
    return tot <= _STACK_LIMIT_HALVES


_ARTILLERY = st.ARTILLERY
_STRONGPOINT = st.STRONGPOINT
_MILITIA = st.MILITIA
_COASTAL_GUN = st.COASTAL_GUN


@nb.njit(cache=True)
def cannot_move(u, utype, hitched, ma, level):
    """:func:`.combat._ma_zero`: piece ``u`` cannot move (movement allowance
    zero: strongpoints, militia, coastal guns, prepared artillery, 12.11, or
    a printed allowance of zero at its level; rules 9.81, 9.63)."""
    ut = utype[u]
    if ut == _STRONGPOINT or ut == _MILITIA or ut == _COASTAL_GUN:
        return True
    if ut == _ARTILLERY:
        return not hitched[u]
    return ma[u, level[u]] <= 0


@nb.njit(cache=True)
def advance_eligible(stayers, origins, lo, hi, hexa, level, hitched, utype, ground, ma):
    """Rule 9.81: the pieces that may advance after combat, in the order
    :func:`.combat._advance` lists them: the surviving attackers that did not
    retreat (``stayers``, in order), then per origin hex (in the order given)
    the other ground pieces of the side stacked there, ascending (HQs and
    AA included: 9.81 lets any unit stacked with the attackers advance;
    leaders go along by :func:`.combat.advance_after_combat`); of these,
    every piece but artillery and pieces that cannot move
    (:func:`cannot_move`).

    Parameters
    ----------
    stayers : int64[k]
        The attackers that stay.
    origins : int64[m]
        Their hexes, each once.
    lo, hi : int
        The side's run of piece indices (``StaticTables.side_run``).
    hexa, level : arrays [n_units]
        State fields ``hex`` and ``level``.
    hitched : bool[n_units]
        State field ``hitched`` (artillery on its move side, 12.11).
    utype : int8[n_units]
        Unit type codes.
    ground : bool[n_units]
        Ground combat pieces (not leaders, warships, coastal guns).
    ma : int[n_units, n_levels]
        Printed movement allowance per level.

    Returns
    -------
    int64[j]
        The eligible pieces.
    """
    k = stayers.shape[0]
    out = np.empty(k + (hi - lo), np.int64)
    n = 0
    for i in range(k):
        u = stayers[i]
        if utype[u] != _ARTILLERY and not cannot_move(u, utype, hitched, ma, level):
            out[n] = u
            n += 1
    for j in range(origins.shape[0]):
        o = origins[j]
        for x in range(lo, hi):
            if hexa[x] != o or not ground[x]:
                continue
            ut = utype[x]
            if ut == _LEADER or ut == _ARTILLERY:
                continue
            stays = False
            for i in range(k):
                if stayers[i] == x:
                    stays = True
                    break
            if stays or cannot_move(x, utype, hitched, ma, level):
                continue
            out[n] = x
            n += 1
    return out[:n].copy()


_WARSHIP = st.WARSHIP


@nb.njit(cache=True)
def blocking_around(cur, nbr, lo, hi, box, hexa, level, utype, defense):
    """Rule 6.52 next to hex ``cur``: per hex, whether it holds a piece of
    the side whose indices run from ``lo`` to ``hi`` that stops entry (on the
    map, not a warship, leader or coastal gun, defense strength above zero),
    answered for the neighbours of ``cur`` only: the entries of
    :func:`.movement.occupancy`'s blocking map that a retreat or advance
    step reads (:func:`retreat_options`, :func:`advance_options`).

    Parameters
    ----------
    cur : int
        Dense hex index.
    nbr : int32[n_hexes, 6]
        Neighbour table (-1 off the grid).
    lo, hi : int
        The enemy side's run of piece indices (``StaticTables.side_run``).
    box, hexa, level : arrays [n_units]
        State fields ``box``, ``hex``, ``level``.
    utype : int8[n_units]
        Unit type codes.
    defense : int[n_units, n_levels]
        Defense strength per level.

    Returns
    -------
    bool[n_hexes]
        True on the neighbours of ``cur`` holding a blocking piece; False
        everywhere else.
    """
    n = nbr.shape[0]
    block = np.zeros(n, np.bool_)
    for x in range(lo, hi):
        if box[x] != _BOX_MAP:
            continue
        ut = utype[x]
        if ut == _WARSHIP or ut == _LEADER or ut == _COASTAL_GUN or defense[x, level[x]] <= 0:
            continue
        h = hexa[x]
        for d in range(6):
            if nbr[cur, d] == h:
                block[h] = True
                break
    return block


@nb.njit(cache=True)
def fit_in_order(units, h, hexa, level, own_side, base_weight, remnant_level_full):
    """The pieces of ``units`` taken in the given order, each kept when it
    fits in hex ``h`` (rule 7.1, :func:`fits`) together with those kept
    before it and the pieces of its side already there: the default bots'
    choice of who advances after combat (9.8, 9.83), one call for the group.

    Parameters
    ----------
    units : int64[k]
        The candidate pieces (one side), in the order they are offered.
    h : int
        Dense hex index of the hex entered.
    hexa .. remnant_level_full
        As :func:`fits`.

    Returns
    -------
    int64[m]
        The kept pieces, in the given order.
    """
    out = np.empty(units.shape[0], np.int64)
    n = 0
    for i in range(units.shape[0]):
        out[n] = units[i]
        if fits(out[:n + 1], h, hexa, level, own_side, base_weight, remnant_level_full):
            n += 1
    return out[:n].copy()


@nb.njit(cache=True)
def advance_options(cur, units, path, block, hexa, level, own_side, base_weight,
                    remnant_level_full, nbr, land, ocean_side, move_class, move_cost, rise, road,
                    rise_cost, utype):
    """Rule 9.84: the hexes next to ``cur`` the advancing pieces ``units`` may
    continue into: on the grid, not already on the advance's path, not holding
    a blocking enemy piece, enterable (:func:`enterable`) and within the
    stacking limit (:func:`fits`), in direction order.

    Parameters
    ----------
    cur : int
        The hex the group stands in.
    units : int64[k]
        The advancing pieces (leaders going along are not asked).
    path : bool[n_hexes]
        Hexes already entered by this advance.
    block : bool[n_hexes]
        Hexes with an enemy piece that stops entry (6.52).
    hexa .. remnant_level_full
        As :func:`fits`; ``nbr`` .. ``utype`` as :func:`enterable`.

    Returns
    -------
    int64[m]
        The hexes, in direction order.
    """
    out = np.empty(6, np.int64)
    k = 0
    for d in range(6):
        b = nbr[cur, d]
        if b < 0 or path[b] or block[b]:
            continue
        if not enterable(units, cur, d, nbr, land, ocean_side, move_class, move_cost, rise, road,
                         rise_cost, utype):
            continue
        if fits(units, b, hexa, level, own_side, base_weight, remnant_level_full):
            out[k] = b
            k += 1
    return out[:k].copy()


@nb.njit(cache=True)
def retreat_options(cur, units, visited, block, zoc, enemy_hexes, last, hexa, level, own_side,
                    base_weight, remnant_level_full, nbr, land, ocean_side, move_class, move_cost,
                    rise, road, rise_cost, utype, dist):
    """Rules 9.6, 9.61, 7.3: the best-ranked hexes the retreating stack
    ``units`` may enter from ``cur``.

    Each neighbour on the grid, not yet visited by this retreat, without a
    blocking enemy piece and enterable (:func:`enterable`) is ranked: (1) not
    in the enemy's ZOC, (2) one hex farther from every enemy hex of the
    combat, (3) holding a friendly piece other than a leader, (4) the rest;
    then farther from the nearest enemy hex first.  On the ``last`` hex of the
    retreat the best ones within the stacking limit (:func:`fits`) are kept
    when there are any.

    Parameters
    ----------
    cur : int
        The hex the stack stands in.
    units : int64[k]
        The retreating pieces.
    visited : bool[n_hexes]
        Hexes already entered by this retreat (and its start).
    block, zoc : bool[n_hexes]
        Hexes with a blocking enemy piece (6.52); hexes in the enemy's ZOC.
    enemy_hexes : int64[E]
        Hexes of the enemy units of the combat, ascending.
    last : bool
        The next hex is the last of the retreat's length.
    hexa .. utype
        As :func:`advance_options`; ``dist`` int16[n_hexes, n_hexes] the
        distance table in hexes.

    Returns
    -------
    n_candidates : int
        Hexes the stack may enter at all (0: no retreat, 9.61).
    options : int64[m]
        The best-ranked ones, in direction order.
    """
    cb = np.empty(6, np.int64)
    cr = np.empty(6, np.int64)
    ca = np.empty(6, np.int64)
    n = 0
    for d in range(6):
        b = nbr[cur, d]
        if b < 0 or visited[b] or block[b]:
            continue
        if not enterable(units, cur, d, nbr, land, ocean_side, move_class, move_cost, rise, road,
                         rise_cost, utype):
            continue
        farther = True
        away = 0
        for i in range(enemy_hexes.shape[0]):
            e = enemy_hexes[i]
            db = dist[b, e]
            if db <= dist[cur, e]:
                farther = False
            if i == 0 or db < away:
                away = db
        if not zoc[b]:
            rank = 1
        elif farther:
            rank = 2
        else:
            friendly = False
            for x in range(hexa.shape[0]):
                if hexa[x] == b and own_side[x] and utype[x] != _LEADER:
                    friendly = True
                    break
            rank = 3 if friendly else 4
        cb[n] = b
        cr[n] = rank
        ca[n] = -away
        n += 1
    if n == 0:
        return 0, np.empty(0, np.int64)
    br = cr[0]
    ba = ca[0]
    for i in range(1, n):
        if cr[i] < br or (cr[i] == br and ca[i] < ba):
            br = cr[i]
            ba = ca[i]
    opts = np.empty(n, np.int64)
    k = 0
    for i in range(n):
        if cr[i] == br and ca[i] == ba:
            opts[k] = cb[i]
            k += 1
    if last:
        fit = np.empty(k, np.int64)
        m = 0
        for i in range(k):
            if fits(units, opts[i], hexa, level, own_side, base_weight, remnant_level_full):
                fit[m] = opts[i]
                m += 1
        if m > 0:
            return n, fit[:m].copy()
    return n, opts[:k].copy()
