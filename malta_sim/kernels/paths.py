"""Hex path kernels the engine uses: the zone of control a set of hexes
exerts (rules 5.0, 5.1, 16.21) and breadth-first distance fields over
passable hexes (supply routes 8.2, ammunition routes 12.56).

Conventions
-----------
* Hexes are dense indices of :class:`malta_sim.hexgrid.Grid`; ``nbr`` is
  ``Grid.neighbour_table`` / ``MapData.neighbours`` (int32[n, 6], direction order
  N NE SE S SW NW, ``-1`` off the map).
* ``cost`` is float32/float64[n, 6]: MP to move from hex ``i`` across side ``d``
  into ``nbr[i, d]`` for one movement class, ``inf`` when prohibited.  Take it
  from ``MapData.edge_cost[:, :, cls]`` (normal) or
  ``MapData.edge_cost_strategic[:, :, cls]`` (rule 6.2).
* ``side_ok`` is bool[n, 6]: the side may be crossed (e.g. ``np.isfinite(cost)``
  or ``MapData.supply_across``).
* Masks are bool[n].  "Enemy" is always relative to the side moving/tracing.

All kernels are ``@njit(cache=True)`` and allocate their outputs; plain-Python
and networkx references live in the tests.  The movement search of rule 6 is
the engine's own (:mod:`malta_sim.iod.rules.movement`).
"""

from __future__ import annotations

import numba as nb
import numpy as np


INF = np.inf

#: ZOC movement costs (rule 5.2): [enter, exit] per class foot, mot, mech.
ZOC_COSTS = np.array([[2.0, 2.0], [3.0, 3.0], [2.0, 1.0]])
#: Maximum supply route length in hexes (rule 8.2).
SUPPLY_RANGE = 12


# --------------------------------------------------------------------------
# ZOC (5.0, 5.1, 16.21)
# --------------------------------------------------------------------------
@nb.njit(cache=True)
def zoc_map(nbr, exerts, exert_class, zoc_across):
    """Hexes in the ZOC of one side (rules 5.0, 5.1, 16.21).

    Parameters
    ----------
    nbr : int32[n, 6]
    exerts : bool[n]
        Hexes that exert a ZOC (rule 5.1: a fortress; non-artillery units with
        total attack 3 or more; artillery prepared with ammunition; a
        strongpoint, 16.21) -- decided by the caller from the units.
    exert_class : int8[n]
        0 when the hex's ZOC reaches as far as a foot unit's (foot units, fort,
        strongpoint present), 1 when only motorized/mechanized units exert it.
    zoc_across : bool[n, 6, 2]
        Whether a [foot, mot/mech] ZOC extends across each side
        (``MapData.zoc_across``; rule 5.0: not across all-ocean sides, only
        foot across a Creek with Rise without a road).

    Returns
    -------
    bool[n]
        True for hexes in that side's ZOC (the exerting hex itself is not
        marked unless a neighbour reaches it).
    """
    n = nbr.shape[0]
    out = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if not exerts[i]:
            continue
        c = exert_class[i]
        for d in range(6):
            j = nbr[i, d]
            if j >= 0 and zoc_across[i, d, c]:
                out[j] = True
    return out


# --------------------------------------------------------------------------
# movement (5.2, 6.1-6.5)
# --------------------------------------------------------------------------
# --------------------------------------------------------------------------
# distance fields (policies, 6.2, 8.2)
# --------------------------------------------------------------------------
@nb.njit(cache=True)
def distance_field(nbr, sources, passable, side_ok, max_dist):
    """Multi-source breadth-first distance in hexes.

    Parameters
    ----------
    nbr : int32[n, 6]
    sources : bool[n]
        Start hexes (distance 0; they need not be passable).
    passable : bool[n]
        Hexes a path may enter.
    side_ok : bool[n, 6]
        Sides a path may cross.
    max_dist : int
        Stop beyond this many hexes (``-1`` = no limit).

    Returns
    -------
    int32[n]
        Hexes from the nearest source, ``-1`` when not reached.
    """
    n = nbr.shape[0]
    dist = np.full(n, -1, dtype=np.int32)
    queue = np.empty(n, dtype=np.int32)
    head = 0
    tail = 0
    for i in range(n):
        if sources[i]:
            dist[i] = 0
            queue[tail] = i
            tail += 1
    while head < tail:
        i = queue[head]
        head += 1
        if max_dist >= 0 and dist[i] >= max_dist:
            continue
        for d in range(6):
            j = nbr[i, d]
            if j < 0 or dist[j] >= 0 or not passable[j] or not side_ok[i, d]:
                continue
            dist[j] = dist[i] + 1
            queue[tail] = j
            tail += 1
    return dist


# --------------------------------------------------------------------------
# supply (8.2, 5.3)
# --------------------------------------------------------------------------
# --------------------------------------------------------------------------
# retreat (9.61, 9.62, 7.3)
# --------------------------------------------------------------------------
# --------------------------------------------------------------------------
# advance after combat (9.82-9.87, 10.23)
# --------------------------------------------------------------------------
