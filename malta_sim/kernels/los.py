"""Coastal-gun line of fire (rule 16.54).

A straight line from the centre of the gun's hex to the centre of the target
hex is traced with the same construction as :func:`malta_sim.hexgrid.hex_line`
(sampled at ``distance + 1`` points, each nudged to both sides; where the two
nudges round to different hexes the line runs along the hexside between them).

Fire is blocked when the line

* passes through any hex, other than the gun's and the target's, whose terrain
  blocks (city, town, fort, woods: ``MapData.blocks_line_of_fire``);
* runs along a hexside between two hexes: blocked only if *both* hexes block
  (the tie rule of 16.54);
* crosses a Creek with Rise hexside (``MapData.side_blocks_line_of_fire``),
  including a side of the gun's or target's hex (a hexside is not "in" either
  hex), or runs along one (our reading: the string lies on the rise).

Inputs are arrays so the engine can build a per-gun target mask once per game
(:func:`line_of_fire_table`).
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True)
def _cube_round(x, y, z):
    rx = np.round(x)
    ry = np.round(y)
    rz = np.round(z)
    dx = abs(rx - x)
    dy = abs(ry - y)
    dz = abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    return int(rx), int(ry)


@nb.njit(cache=True)
def _axial_to_idx(q, r, col_min, row_min, n_cols, n_rows):
    col = q
    row = r + (q + (q & 1)) // 2
    c = col - col_min
    w = row - row_min
    if c < 0 or c >= n_cols or w < 0 or w >= n_rows:
        return -1
    return c * n_rows + w


@nb.njit(cache=True)
def line_steps(axial, a, b, col_min, row_min, n_cols, n_rows, out):
    """The hexes a line between the centres of ``a`` and ``b`` crosses.

    Parameters
    ----------
    axial : int32[n, 2]
        ``Grid.axial`` (q, r) per dense index.
    a, b : int
        Dense indices.
    col_min, row_min, n_cols, n_rows : int
        Grid bounds (``Grid``).
    out : int32[>= distance + 1, 2]
        Filled per step with one hex and ``-1``, or the two hexes of a tie
        (``-2`` marks a hex off the grid).

    Returns
    -------
    int
        Number of steps (``distance + 1``).
    """
    qa = axial[a, 0]
    ra = axial[a, 1]
    qb = axial[b, 0]
    rb = axial[b, 1]
    dq = qb - qa
    dr = rb - ra
    n = (abs(dq) + abs(dr) + abs(dq + dr)) // 2
    if n == 0:
        out[0, 0] = a
        out[0, 1] = -1
        return 1
    eps = 1e-6
    za = -qa - ra
    zb = -qb - rb
    for i in range(n + 1):
        t = i / n
        x0 = qa + (qb - qa) * t
        y0 = ra + (rb - ra) * t
        z0 = za + (zb - za) * t
        q1, r1 = _cube_round(x0 + eps, y0 + 2 * eps, z0 - 3 * eps)
        q2, r2 = _cube_round(x0 - eps, y0 - 2 * eps, z0 + 3 * eps)
        h1 = _axial_to_idx(q1, r1, col_min, row_min, n_cols, n_rows)
        h2 = _axial_to_idx(q2, r2, col_min, row_min, n_cols, n_rows)
        if h1 < 0:
            h1 = -2
        if h2 < 0:
            h2 = -2
        if q1 == q2 and r1 == r2:
            out[i, 0] = h1
            out[i, 1] = -1
        else:
            out[i, 0] = min(h1, h2) if (h1 >= 0 and h2 >= 0) else max(h1, h2)
            out[i, 1] = max(h1, h2) if (h1 >= 0 and h2 >= 0) else min(h1, h2)
    return n + 1


@nb.njit(cache=True)
def _side_between(nbr, h, j):
    for d in range(6):
        if nbr[h, d] == j:
            return d
    return -1


@nb.njit(cache=True)
def line_of_fire(axial, nbr, gun, target, hex_blocks, side_blocks, col_min, row_min, n_cols, n_rows):
    """Whether a coastal gun in ``gun`` may fire at ``target`` (rule 16.54).

    Parameters
    ----------
    axial : int32[n, 2]
    nbr : int32[n, 6]
    gun, target : int
        Dense hex indices.
    hex_blocks : bool[n]
        City, town, fort or woods hexes (``MapData.blocks_line_of_fire``).
    side_blocks : bool[n, 6]
        Creek with Rise hexsides (``MapData.side_blocks_line_of_fire``).
    col_min, row_min, n_cols, n_rows : int
        Grid bounds.

    Returns
    -------
    bool
        True when the line is clear.  Range is checked by the caller.
    """
    steps = np.empty((128, 2), dtype=np.int32)
    m = line_steps(axial, gun, target, col_min, row_min, n_cols, n_rows, steps)
    for i in range(1, m - 1):
        x = steps[i, 0]
        y = steps[i, 1]
        if y == -1:
            if x >= 0 and hex_blocks[x]:
                return False
        else:
            if x >= 0 and y >= 0:
                if hex_blocks[x] and hex_blocks[y]:
                    return False
                d = _side_between(nbr, x, y)
                if d >= 0 and side_blocks[x, d]:
                    return False
    for i in range(m - 1):
        if steps[i, 1] == -1 and steps[i + 1, 1] == -1:
            x = steps[i, 0]
            y = steps[i + 1, 0]
            if x >= 0 and y >= 0:
                d = _side_between(nbr, x, y)
                if d >= 0 and side_blocks[x, d]:
                    return False
    return True


@nb.njit(cache=True)
def line_of_fire_table(axial, nbr, guns, hex_blocks, side_blocks, dist_table, max_range,
                       col_min, row_min, n_cols, n_rows):
    """Clear lines of fire from each gun hex to every hex within ``max_range``.

    Parameters
    ----------
    guns : int32[k]
        Gun hexes.
    dist_table : int16[n, n]
    max_range : int
        Hexes (the gun's range; pass the largest for a shared table).

    Returns
    -------
    bool[k, n]
    """
    n = nbr.shape[0]
    out = np.zeros((guns.shape[0], n), dtype=np.bool_)
    for g in range(guns.shape[0]):
        for t in range(n):
            if dist_table[guns[g], t] <= max_range:
                out[g, t] = line_of_fire(axial, nbr, guns[g], t, hex_blocks, side_blocks,
                                         col_min, row_min, n_cols, n_rows)
    return out


