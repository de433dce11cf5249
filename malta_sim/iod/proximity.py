"""How close the Allied pieces on the map are to given hexes: compiled passes
over the Allied pieces read straight from the state arrays.

The invasion engine and the invasion bots ask these questions many times per
phase -- landing losses by the distance to the nearest Allied unit (18.5),
Allied AA within three hexes of a drop or airfield (16.12, 19.41), and the
bots' threat measure (Allied defense strength near a hex) for beach movement
(18.7), rally (19.6), drop zone markers (19.13, 19.31) and sticks (19.32).
Each answer here is one compiled call over the Allied pieces, in place of
array masks and a memo keyed on the Allied positions: integer totals and
minima, so the answers are those of the array expressions they replace.

All hexes are dense hex indices; ``dist`` is the grid's ``distance_table``
(int16[H, H], hexes).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from malta_sim.iod.state import ALLIED, BOX_MAP

#: Distance reported when no Allied unit is on the map (hexes).
NO_ALLIED_DISTANCE = 99


@njit(cache=True)
def strength_near_kernel(dist, hexes, radius, units, box, hexpos, level, defense):
    """Allied defense strength within ``radius`` hexes of each hex of ``hexes``
    (the bots' threat measure for beach movement 18.7, rally 19.6, drop zone
    markers 19.13 and sticks 19.32; strength at the piece's level, 17.3).

    Parameters
    ----------
    dist : int16[H, H]
        Hex distances.
    hexes : int64[K]
        Dense hex indices asked about.
    radius : int
        Hexes (a piece at distance ``<= radius`` counts).
    units : int64[k]
        The Allied pieces (unit indices; only those in ``box == BOX_MAP`` with
        a hex count).
    box, hexpos, level : int arrays [U]
        State: box, dense hex (-1 off the map) and strength level per unit.
    defense : int8[U, MAX_LEVELS]
        Defense strength per unit and level.

    Returns
    -------
    int64[K]
        Sum of the defense strengths (at each piece's level) of the Allied
        pieces on the map within ``radius`` of each hex.
    """
    out = np.zeros(hexes.shape[0], np.int64)
    for j in range(units.shape[0]):
        u = units[j]
        if box[u] != BOX_MAP:
            continue
        x = hexpos[u]
        if x < 0:
            continue
        v = np.int64(defense[u, level[u]])
        for i in range(hexes.shape[0]):
            if dist[hexes[i], x] <= radius:
                out[i] += v
    return out


@njit(cache=True)
def nearest_many_kernel(dist, hexes, units, box, hexpos, skip):
    """Distance from each hex of ``hexes`` to the nearest of ``units`` on the
    map (landing losses 18.5, wave boxes 18.32, 17.8, 16.11).

    Parameters
    ----------
    dist : int16[H, H]
        Hex distances.
    hexes : int64[K]
        Dense hex indices.
    units : int64[k]
        Candidate pieces (unit indices).
    box, hexpos : int arrays [U]
        State: box and dense hex per unit.
    skip : bool[U]
        Pieces that do not count (leaders: rule 14.0).

    Returns
    -------
    int64[K]
        Hexes to the nearest counted piece in ``box == BOX_MAP``;
        :data:`NO_ALLIED_DISTANCE` where there is none.
    """
    out = np.full(hexes.shape[0], -1, np.int64)
    for j in range(units.shape[0]):
        u = units[j]
        if box[u] != BOX_MAP or skip[u]:
            continue
        x = hexpos[u]
        for i in range(hexes.shape[0]):
            dx = dist[hexes[i], x]
            if out[i] < 0 or dx < out[i]:
                out[i] = dx
    for i in range(hexes.shape[0]):
        if out[i] < 0:
            out[i] = NO_ALLIED_DISTANCE
    return out


@njit(cache=True)
def count_within_kernel(dist, h, radius, units, box, hexpos):
    """How many of ``units`` are on the map within ``radius`` hexes of ``h``
    (Allied AA near a drop or an airfield, rules 16.12, 19.41).

    Parameters
    ----------
    dist : int16[H, H]
        Hex distances.
    h, radius : int
        Dense hex index; hexes.
    units : int64[k]
        Candidate pieces (unit indices).
    box, hexpos : int arrays [U]
        State: box and dense hex per unit.

    Returns
    -------
    int
        Count of the pieces in ``box == BOX_MAP`` at distance ``<= radius``.
    """
    n = 0
    for j in range(units.shape[0]):
        u = units[j]
        if box[u] == BOX_MAP and dist[h, hexpos[u]] <= radius:
            n += 1
    return n


def allied_strength_near(game, hexes, radius: int = 1) -> np.ndarray:
    """Allied defense strength within ``radius`` hexes of each hex of
    ``hexes`` (the bots' threat measure, rules 18.7, 19.6, 19.13, 19.32; see
    :func:`strength_near_kernel`).

    Parameters
    ----------
    game : Game
    hexes : sequence of int
        Dense hex indices.
    radius : int
        Hexes.

    Returns
    -------
    int64[len(hexes)]
    """
    t, s = game.static, game.state
    return strength_near_kernel(t.grid.distance_table, np.asarray(hexes, np.int64).reshape(-1), radius,
                                t.side_units[ALLIED], s.box, s.hex, s.level, t.defense)


def nearest_allied_unit(game, h: int) -> int:
    """Hexes from ``h`` to the nearest Allied unit on the map (leaders are not
    units, 14.0; coastal guns count); :data:`NO_ALLIED_DISTANCE` when none
    (landing losses 18.5, wave boxes 18.32)."""
    t, s = game.static, game.state
    return int(nearest_many_kernel(t.grid.distance_table, np.array([h], np.int64), t.side_units[ALLIED],
                                   s.box, s.hex, t.utype_is_leader)[0])


def nearest_allied_units(game, hexes) -> np.ndarray:
    """:func:`nearest_allied_unit` of each hex of ``hexes`` (sequence of
    dense hex indices) at once; int64[len(hexes)], hexes (rules 18.5, 18.32,
    14.0)."""
    t, s = game.static, game.state
    return nearest_many_kernel(t.grid.distance_table, np.asarray(hexes, np.int64).reshape(-1),
                               t.side_units[ALLIED], s.box, s.hex, t.utype_is_leader)


def allied_aa_within(game, h: int, radius: int = 3) -> int:
    """Allied AA units on the map within ``radius`` hexes of ``h`` (16.12,
    17.52, 19.41)."""
    t, s = game.static, game.state
    return int(count_within_kernel(t.grid.distance_table, h, radius, t.allied_aa_units, s.box, s.hex))


__all__ = ["NO_ALLIED_DISTANCE", "strength_near_kernel", "nearest_many_kernel",
           "count_within_kernel", "allied_strength_near", "nearest_allied_unit", "nearest_allied_units",
           "allied_aa_within"]
