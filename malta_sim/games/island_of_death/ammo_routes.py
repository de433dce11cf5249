"""Compiled supply-route test of ammunition distribution (rule 12.56): which
artillery pieces have a route of at most 12 hexes (8.2) to a hex where
salvos are handed out, one breadth-first search per piece in one call.

:func:`.artillery.ammo_eligible` calls :func:`ammo_route_ok` with the side's
passable hexes (:func:`.supply.passable_for`) and a mask of the hand-out
hexes; the searches are those of :func:`.supply.route_distance` (the piece's
own hex counts as passable for its own route), each stopped as soon as a
hand-out hex is reached.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True)
def ammo_route_ok(arts, hexa, passable, target, nbr, ocean_side, max_len):
    """Rule 12.56 (route of 8.2): per artillery piece, whether a hand-out hex
    is at most ``max_len`` hexes away along a supply route.

    Parameters
    ----------
    arts : int64[k]
        The candidate pieces (unit indices).
    hexa : int32[n_units]
        State field ``hex`` (dense hex of each piece on the map).
    passable : bool[n_hexes]
        Hexes a route of the side may enter (:func:`.supply.passable_for`);
        each piece's own hex counts as passable for its own route.
    target : bool[n_hexes]
        Hexes where salvos are handed out (Axis-controlled beach and port
        hexes; 1711/1715 not occupied by the Axis).
    nbr : int32[n_hexes, 6]
        Neighbour table (-1 off the grid).
    ocean_side : bool[n_hexes, 6]
        All-ocean hexsides (never crossed by a route).
    max_len : int
        Longest route in hexes (12).

    Returns
    -------
    bool[k]
        ``True`` where the piece's route reaches a hand-out hex (its own hex
        counts, at length 0).
    """
    n = nbr.shape[0]
    k = arts.shape[0]
    out = np.zeros(k, np.bool_)
    dist = np.empty(n, np.int32)
    queue = np.empty(n, np.int32)
    for a in range(k):
        h = hexa[arts[a]]
        if target[h]:
            out[a] = True
            continue
        dist[:] = -1
        dist[h] = 0
        queue[0] = h
        head = 0
        tail = 1
        found = False
        while head < tail and not found:
            i = queue[head]
            head += 1
            if dist[i] >= max_len:
                continue
            for d in range(6):
                j = nbr[i, d]
                if j < 0 or dist[j] >= 0 or not passable[j] or ocean_side[i, d]:
                    continue
                dist[j] = dist[i] + 1
                if target[j]:
                    found = True
                    break
                queue[tail] = j
                tail += 1
        out[a] = found
    return out
