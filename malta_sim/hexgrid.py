r"""Hex grid of the Island of Death map: ``XXYY`` hex ids, dense indices, axial
coordinates, neighbours, distance, rings and hex lines.

Hex ids are four-character strings ``XXYY``: ``XX`` is the column (west to east),
``YY`` the row (north to south), e.g. ``"1210"`` is column 12, row 10 (Musta).

Hexes are flat-topped and **even columns sit half a hex lower** than odd ones
(DATA_NOTES; fixed by the rule 10.12 example: 1310 touches 1210, 1309 is two
hexes from 1210)::

          col 11   col 12   col 13
          _____             _____
         /     \   _____   /     \
        / 1109  \ /     \ / 1309  \
        \       // 1209  \\       /
         \_____/ \       / \_____/
         /     \  \_____/  /     \
        / 1110  \ /     \ / 1310  \
        \       // 1210  \\       /
         \_____/ \       / \_____/
                  \_____/

    From an even column c, row r: the neighbours in columns c-1 and c+1 are
    rows r and r+1.  From an odd column: rows r-1 and r.

Direction order (used everywhere a direction index appears, e.g. the scatter
diagram of rule 19.44)::

                 0 N
           5 NW  ___  1 NE
                /   \\
                \\___/
           4 SW       2 SE
                 3 S

Internally a hex is also an axial coordinate ``(q, r)`` with ``q = column`` and
``r = row - (column + (column & 1)) // 2`` (the "even-q" offset layout); cube
coordinates are ``(q, r, -q - r)``.

Array-level functions (``*_idx`` and the ``Grid`` tables) work on dense indices
``idx = (column - col_min) * n_rows + (row - row_min)`` on the rectangular grid
``Grid``; ``-1`` means "off the grid".  Off-grid hexes count as ocean wherever a
rule needs a terrain (see the drop kernel, rule 19.45).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Sequence

import numpy as np

from .errors import OptionError

#: Axial direction vectors (dq, dr) in the documented order N, NE, SE, S, SW, NW.
AXIAL_DIRECTIONS: tuple[tuple[int, int], ...] = (
    (0, -1),
    (1, -1),
    (1, 0),
    (0, 1),
    (-1, 1),
    (-1, 0),
)
DIRECTION_NAMES: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")


def parse_hex(hex_id: str) -> tuple[int, int]:
    """Split a hex id ``"XXYY"`` into ``(column, row)``.

    Raises
    ------
    OptionError
        If ``hex_id`` is not four digits.
    """
    if not isinstance(hex_id, str) or len(hex_id) != 4 or not hex_id.isdigit():
        raise OptionError(f"hex id {hex_id!r} is not four digits XXYY (column, row)")
    return int(hex_id[:2]), int(hex_id[2:])


def format_hex(col: int, row: int) -> str:
    """Join ``(column, row)`` into a hex id ``"XXYY"``.

    Raises
    ------
    OptionError
        If either part is outside 0..99.
    """
    if not (0 <= col <= 99 and 0 <= row <= 99):
        raise OptionError(f"column {col} / row {row} cannot form an XXYY hex id")
    return f"{col:02d}{row:02d}"


def offset_to_axial(col: int, row: int) -> tuple[int, int]:
    """Offset ``(column, row)`` to axial ``(q, r)`` (even columns sit lower)."""
    return col, row - (col + (col & 1)) // 2


def axial_to_offset(q: int, r: int) -> tuple[int, int]:
    """Axial ``(q, r)`` back to offset ``(column, row)``."""
    return q, r + (q + (q & 1)) // 2


def to_axial(hex_id: str) -> tuple[int, int]:
    """Hex id to axial coordinates ``(q, r)``."""
    return offset_to_axial(*parse_hex(hex_id))


def to_cube(hex_id: str) -> tuple[int, int, int]:
    """Hex id to cube coordinates ``(x, y, z)`` with ``x + y + z == 0``."""
    q, r = to_axial(hex_id)
    return q, r, -q - r


def from_axial(q: int, r: int) -> str:
    """Axial coordinates to a hex id."""
    return format_hex(*axial_to_offset(q, r))


def _axial_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    dq = a[0] - b[0]
    dr = a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def distance(a: str, b: str) -> int:
    """Distance in hexes between two hex ids (no map bounds involved).

    >>> distance("1210", "1310"), distance("1210", "1309")
    (1, 2)
    """
    return _axial_distance(to_axial(a), to_axial(b))


def neighbour(hex_id: str, direction: int) -> str | None:
    """The hex next to ``hex_id`` in ``direction`` (0=N .. 5=NW, see module doc).

    Returns ``None`` when the neighbour's column or row would leave 00..99.
    """
    q, r = to_axial(hex_id)
    dq, dr = AXIAL_DIRECTIONS[direction % 6]
    col, row = axial_to_offset(q + dq, r + dr)
    if not (0 <= col <= 99 and 0 <= row <= 99):
        return None
    return format_hex(col, row)


def neighbours(hex_id: str) -> list[str | None]:
    """The six neighbours of ``hex_id`` in direction order N, NE, SE, S, SW, NW.

    A neighbour outside the 00..99 id space is ``None``; use ``Grid.neighbours``
    for a map with bounds.
    """
    return [neighbour(hex_id, d) for d in range(6)]


def direction_between(a: str, b: str) -> int:
    """Direction index (0..5) from ``a`` to the adjacent hex ``b``.

    Raises
    ------
    OptionError
        If the hexes are not adjacent.
    """
    qa, ra = to_axial(a)
    qb, rb = to_axial(b)
    d = (qb - qa, rb - ra)
    if d not in AXIAL_DIRECTIONS:
        raise OptionError(f"hexes {a} and {b} are not adjacent")
    return AXIAL_DIRECTIONS.index(d)


def within(hex_id: str, radius: int) -> list[str]:
    """All hex ids at distance ``<= radius`` (including ``hex_id``), unbounded map."""
    q0, r0 = to_axial(hex_id)
    out = []
    for dq in range(-radius, radius + 1):
        for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
            col, row = axial_to_offset(q0 + dq, r0 + dr)
            if 0 <= col <= 99 and 0 <= row <= 99:
                out.append(format_hex(col, row))
    return out


def ring(hex_id: str, radius: int) -> list[str]:
    """Hex ids at exactly distance ``radius`` from ``hex_id`` (unbounded map)."""
    return [h for h in within(hex_id, radius) if distance(hex_id, h) == radius]


def cube_round(x: float, y: float, z: float) -> tuple[int, int, int]:
    """Round fractional cube coordinates to the hex that contains the point."""
    rx, ry, rz = round(x), round(y), round(z)
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    else:
        rz = -rx - ry
    return int(rx), int(ry), int(rz)


def hex_line(a: str, b: str) -> list[tuple[str, ...]]:
    """The hexes a straight line between the centres of ``a`` and ``b`` crosses.

    Used for line of fire (rule 16.54).  Each step of the line is a tuple: one
    hex id, or two hex ids when the line runs exactly along the hexside between
    them (the tie case, where the rules look at both hexes).  The first step is
    ``(a,)`` and the last ``(b,)``; the list has ``distance(a, b) + 1`` steps.

    The line is sampled at ``distance + 1`` evenly spaced points; each point is
    rounded with a tiny nudge to either side, and where the two nudges round to
    different hexes the point lies on a hexside (a tie).
    """
    ca = to_cube(a)
    cb = to_cube(b)
    n = distance(a, b)
    if n == 0:
        return [(a,)]
    eps = 1e-6
    steps: list[tuple[str, ...]] = []
    for i in range(n + 1):
        t = i / n
        pts = []
        for sgn in (1.0, -1.0):
            x = ca[0] + (cb[0] - ca[0]) * t + sgn * eps
            y = ca[1] + (cb[1] - ca[1]) * t + sgn * 2 * eps
            z = ca[2] + (cb[2] - ca[2]) * t - sgn * 3 * eps
            rx, ry, _ = cube_round(x, y, z)
            pts.append(from_axial(rx, ry))
        if pts[0] == pts[1]:
            steps.append((pts[0],))
        else:
            steps.append(tuple(sorted(pts)))
    return steps


@dataclass(frozen=True)
class Grid:
    """A rectangular block of hexes with dense indices.

    Parameters
    ----------
    col_min, col_max, row_min, row_max : int
        Inclusive column and row ranges of the map.

    Notes
    -----
    ``idx = (col - col_min) * n_rows + (row - row_min)``.  Tables are numpy
    arrays ready for numba kernels.
    """

    col_min: int = 1
    col_max: int = 26
    row_min: int = 1
    row_max: int = 20
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def n_cols(self) -> int:
        return self.col_max - self.col_min + 1

    @property
    def n_rows(self) -> int:
        return self.row_max - self.row_min + 1

    @property
    def n_hexes(self) -> int:
        return self.n_cols * self.n_rows

    def contains(self, hex_id: str) -> bool:
        """True when ``hex_id`` lies on this grid."""
        col, row = parse_hex(hex_id)
        return self.col_min <= col <= self.col_max and self.row_min <= row <= self.row_max

    def index(self, hex_id: str) -> int:
        """Dense index of ``hex_id``.

        Raises
        ------
        OptionError
            If the hex is not on the grid.
        """
        col, row = parse_hex(hex_id)
        if not (self.col_min <= col <= self.col_max and self.row_min <= row <= self.row_max):
            raise OptionError(
                f"hex {hex_id} is off the map (columns {self.col_min:02d}-{self.col_max:02d}, "
                f"rows {self.row_min:02d}-{self.row_max:02d})"
            )
        return (col - self.col_min) * self.n_rows + (row - self.row_min)

    def indices(self, hex_ids: Iterable[str]) -> np.ndarray:
        """Dense indices, ``int32[len(hex_ids)]``."""
        return np.array([self.index(h) for h in hex_ids], dtype=np.int32)

    def hex_id(self, idx: int) -> str:
        """Hex id of a dense index."""
        if not 0 <= idx < self.n_hexes:
            raise OptionError(f"hex index {idx} is outside 0..{self.n_hexes - 1}")
        col = self.col_min + idx // self.n_rows
        row = self.row_min + idx % self.n_rows
        return format_hex(col, row)

    @cached_property
    def hex_ids(self) -> list[str]:
        """All hex ids in dense-index order."""
        return [self.hex_id(i) for i in range(self.n_hexes)]

    @cached_property
    def axial(self) -> np.ndarray:
        """Axial coordinates per dense index, ``int32[n_hexes, 2]`` (q, r)."""
        out = np.empty((self.n_hexes, 2), dtype=np.int32)
        for i in range(self.n_hexes):
            col = self.col_min + i // self.n_rows
            row = self.row_min + i % self.n_rows
            out[i] = offset_to_axial(col, row)
        return out

    @cached_property
    def neighbour_table(self) -> np.ndarray:
        """Neighbours per dense index, ``int32[n_hexes, 6]`` in direction order;
        ``-1`` where the neighbour is off the grid."""
        out = np.full((self.n_hexes, 6), -1, dtype=np.int32)
        for i in range(self.n_hexes):
            q, r = self.axial[i]
            for d, (dq, dr) in enumerate(AXIAL_DIRECTIONS):
                col, row = axial_to_offset(int(q) + dq, int(r) + dr)
                if self.col_min <= col <= self.col_max and self.row_min <= row <= self.row_max:
                    out[i, d] = (col - self.col_min) * self.n_rows + (row - self.row_min)
        return out

    def neighbours(self, hex_id: str) -> list[str | None]:
        """Neighbours of ``hex_id`` on this grid, direction order; ``None`` off-grid."""
        row = self.neighbour_table[self.index(hex_id)]
        return [self.hex_id(int(j)) if j >= 0 else None for j in row]

    @cached_property
    def distance_table(self) -> np.ndarray:
        """All-pairs hex distance, ``int16[n_hexes, n_hexes]``."""
        q = self.axial[:, 0].astype(np.int32)
        r = self.axial[:, 1].astype(np.int32)
        dq = q[:, None] - q[None, :]
        dr = r[:, None] - r[None, :]
        return ((np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2).astype(np.int16)

    def distance_idx(self, a: int | np.ndarray, b: int | np.ndarray) -> np.ndarray:
        """Vectorised distance between dense indices (broadcasting)."""
        return self.distance_table[a, b]

    def within_idx(self, idx: int, radius: int) -> np.ndarray:
        """Dense indices within ``radius`` hexes of ``idx`` (on the grid), sorted."""
        return np.flatnonzero(self.distance_table[idx] <= radius).astype(np.int32)


#: The Island of Death map block (columns 01-26, rows 01-20).
IOD_GRID = Grid(1, 26, 1, 20)


def distance_many(grid: Grid, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """Distances between paired hex ids on ``grid``, ``int16[len(a)]``."""
    return grid.distance_table[grid.indices(a), grid.indices(b)]
