"""Compiled supply-route test of ammunition distribution (rule 12.56): which
artillery pieces have a route of at most 12 hexes (8.2) to a hex where
salvos are handed out, from one distance field.

:func:`.artillery.ammo_eligible` calls :func:`ammo_route_ok` with the side's
passable hexes (:func:`.supply.passable_for`) and a mask of the hand-out
hexes.  The answers are those of one :func:`.supply.route_distance` search
per piece (the piece's own hex counts as passable for its own route): one
breadth-first distance field (:func:`malta_sim.kernels.paths.distance_field`)
is grown from the passable hand-out hexes over passable hexes, and a piece
has a route when it stands on a hand-out hex or a passable neighbour it may
step into lies at most 11 hexes from one.  (All-ocean hexsides are shared by
the two hexes they separate, so routes may be searched from either end.)
"""

from __future__ import annotations

import numba as nb
import numpy as np

from malta_sim.kernels.paths import distance_field


def ammo_route_ok(arts, hexa, passable, target, nbr, ocean_side, max_len):
    """Rule 12.56 (route of 8.2): per artillery piece, whether a hand-out hex
    is at most ``max_len`` hexes away along a supply route.

    Two compiled calls: the distance field from the hand-out hexes a route
    may enter (:func:`malta_sim.kernels.paths.distance_field`), then
    :func:`routes_from_field` for the pieces.

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
        All-ocean hexsides (never crossed by a route); the same hexside seen
        from either hex.
    max_len : int
        Longest route in hexes (12).

    Returns
    -------
    bool[k]
        ``True`` where the piece's route reaches a hand-out hex (its own hex
        counts, at length 0).
    """
    if max_len <= 0:                      # only a piece on a hand-out hex
        return target[hexa[arts]]
    # hexes from which a route of at most max_len - 1 more hexes reaches a
    # hand-out hex (the field is called from here, not from inside another
    # compiled function: a cached function that returns an array and is
    # also called from Python must not be loaded as another's callee first)
    field = distance_field(nbr, target & passable, passable, ~ocean_side, int(max_len) - 1)
    return routes_from_field(arts, hexa, passable, target, nbr, ocean_side, field, max_len)


@nb.njit(cache=True)
def routes_from_field(arts, hexa, passable, target, nbr, ocean_side, field, max_len):
    """:func:`ammo_route_ok` for each piece given the distance ``field``
    (int32[n_hexes], hexes from the nearest passable hand-out hex, -1 beyond
    ``max_len - 1``): the piece stands on a hand-out hex, or the first hex
    it may enter (passable, across a hexside that is not all ocean) lies at
    most ``max_len - 1`` hexes from one (rules 12.56, 8.2).

    Parameters
    ----------
    arts : int64[k]
        The pieces asking (unit indices).
    hexa : int[n_units]
        Dense hex per unit.
    passable, target : bool[n_hexes]
        Hexes a route may enter; hand-out hexes.
    nbr : int32[n_hexes, 6]
        Neighbour table (-1 off the grid).
    ocean_side : bool[n_hexes, 6]
        All-ocean hexsides.
    field : int32[n_hexes]
        As above.
    max_len : int
        Longest route (hexes).

    Returns
    -------
    bool[k]
        Whether each piece has a route.
    """
    k = arts.shape[0]
    out = np.zeros(k, np.bool_)
    for a in range(k):
        h = hexa[arts[a]]
        if target[h]:
            out[a] = True
            continue
        for d in range(6):               # the first hex entered from the piece's hex
            j = nbr[h, d]
            if j < 0 or ocean_side[h, d] or not passable[j]:
                continue
            if 0 <= field[j] <= max_len - 1:
                out[a] = True
                break
    return out
