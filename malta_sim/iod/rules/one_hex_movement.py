"""The hexes a unit may move one hex into (beach movement 18.7, rally 19.6):
its hex's neighbours that pass the one-hex movement checks (6.52, 6.53) and
the stacking limit (7.1), in one compiled call.

:func:`one_hex_kernel` is the compiled form of :func:`.hercules.can_enter`
plus ``organisation.fits_stacking`` over the six neighbours;
:func:`.hercules.one_hex_options` calls it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from malta_sim.iod.rules import retreat_advance
from malta_sim.iod.static import FOOT


@njit(cache=True)
def one_hex_kernel(u, here, cls, neighbours, land, ocean_side, road, rise, move_cost, hexa, level,
                   enemy_side, harmless, defense, own_side, base_weight, remnant_level_full):
    """Neighbours of ``here`` that unit ``u`` may step into, in direction order.

    Rules: the hex is on the map and land, not across an all-ocean hexside
    (6.53); its terrain is passable for the unit's movement class unless a
    road crosses the hexside; a non-foot unit does not cross a creek with
    rise without a road; no enemy piece there other than leaders, coastal
    guns and zero-defense pieces (6.52); the unit fits the stacking limit
    with its side's pieces there (7.1, ``combat_moves.fits``).

    Parameters
    ----------
    u : int
        The moving unit.
    here : int
        Its dense hex.
    cls : int
        Its movement class (leaders: foot, 0).
    neighbours : int32[H, 6]
        Neighbour per direction (-1 off the map).
    land : bool[H]
    ocean_side, road, rise : bool[H, 6]
        Hexside flags per hex and direction.
    move_cost : int8[H, 3]
        MP per hex and movement class (99 impassable).
    hexa, level : int arrays [U]
        State: hex (-1 off the map) and strength level per unit.
    enemy_side : bool[U]
        The pieces of the mover's enemy.
    harmless : bool[U]
        Leaders and coastal guns (never block an entry).
    defense : int8[U, MAX_LEVELS]
        Defense strength per unit and level.
    own_side : bool[U]
        The mover's side's pieces (for the stacking total).
    base_weight : int16[U]
        Stacking weight at full strength, half battalions.
    remnant_level_full : int8[U]
        Level at which a full battalion is a remnant (17.31), -1 otherwise.

    Returns
    -------
    int64[k]
        Dense hex indices, k <= 6.
    """
    out = np.empty(6, np.int64)
    n = 0
    units = np.empty(1, np.int64)
    units[0] = u
    for d in range(6):
        o = neighbours[here, d]
        if o < 0:
            continue
        if not land[o] or ocean_side[here, d]:
            continue
        if move_cost[o, cls] >= 99 and not road[here, d]:
            continue
        if cls != FOOT and rise[here, d] and not road[here, d]:
            continue
        blocked = False
        for e in range(hexa.shape[0]):
            if hexa[e] == o and enemy_side[e] and not harmless[e] and defense[e, level[e]] > 0:
                blocked = True
                break
        if blocked:
            continue
        if not retreat_advance.fits(units, o, hexa, level, own_side, base_weight, remnant_level_full):
            continue
        out[n] = o
        n += 1
    return out[:n]
