"""Hex grid of the Invasion: Malta map.

Hex ids are four digits ``XXYY`` (column, row; rule 2.1).  Unlike the Island of
Death map, **odd columns sit half a hex lower** on the Invasion: Malta map.
Evidence: the rule 8.22 example -- 1424 touches 1425 and 1523 and 1524, 1523
is outside the ZOC of a unit in 1425 while 1524 is inside it.  With even
columns lower, 1424 would not touch 1523 and 1524 would not touch 1425.

This module reuses :mod:`malta_sim.hexgrid` by shifting every column by one
(an IM column ``c`` is hexgrid column ``c + 1``), which flips the parity and
keeps distances, neighbour order (N, NE, SE, S, SW, NW) and dense indices.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ...errors import OptionError
from ...hexgrid import Grid, direction_between as _dir, distance as _dist, parse_hex


def _shift(h: str, by: int) -> str:
    c, r = parse_hex(h)
    if not 0 <= c + by <= 99:
        raise OptionError(f"hex {h} is outside the Invasion: Malta id space")
    return f"{c + by:02d}{r:02d}"


def distance(a: str, b: str) -> int:
    """Hex distance between two IM hex ids."""
    return _dist(_shift(a, 1), _shift(b, 1))


def direction_between(a: str, b: str) -> int:
    """Direction 0..5 (N, NE, SE, S, SW, NW) from ``a`` to adjacent ``b``.

    Raises
    ------
    OptionError
        If not adjacent.
    """
    return _dir(_shift(a, 1), _shift(b, 1))


class IMGrid:
    """Rectangular block of IM hexes (columns ``col_min..col_max``, rows ``row_min..row_max``)
    with dense indices ``idx = (col - col_min) * n_rows + (row - row_min)``."""

    def __init__(self, col_min: int, col_max: int, row_min: int, row_max: int):
        if col_max > 98:
            raise OptionError("IM grid columns must be at most 98")
        self.col_min, self.col_max, self.row_min, self.row_max = col_min, col_max, row_min, row_max
        self._inner = Grid(col_min + 1, col_max + 1, row_min, row_max)

    def __repr__(self):
        return f"IMGrid({self.col_min}, {self.col_max}, {self.row_min}, {self.row_max})"

    @property
    def n_rows(self) -> int:
        return self._inner.n_rows

    @property
    def n_cols(self) -> int:
        return self._inner.n_cols

    @property
    def n_hexes(self) -> int:
        return self._inner.n_hexes

    def contains(self, hex_id: str) -> bool:
        c, r = parse_hex(hex_id)
        return self.col_min <= c <= self.col_max and self.row_min <= r <= self.row_max

    def index(self, hex_id: str) -> int:
        """Dense index (raises OptionError off the map)."""
        if not self.contains(hex_id):
            raise OptionError(f"hex {hex_id} is off the Invasion: Malta map "
                              f"(columns {self.col_min:02d}-{self.col_max:02d}, rows {self.row_min:02d}-{self.row_max:02d})")
        return self._inner.index(_shift(hex_id, 1))

    def hex_id(self, idx: int) -> str:
        return _shift(self._inner.hex_id(int(idx)), -1)

    @cached_property
    def hex_ids(self) -> list:
        return [self.hex_id(i) for i in range(self.n_hexes)]

    @property
    def neighbour_table(self) -> np.ndarray:
        """``int32[n_hexes, 6]`` neighbours in direction order, -1 off the grid."""
        return self._inner.neighbour_table

    @property
    def distance_table(self) -> np.ndarray:
        """``int16[n_hexes, n_hexes]`` hex distances."""
        return self._inner.distance_table

    def neighbours(self, hex_id: str) -> list:
        row = self.neighbour_table[self.index(hex_id)]
        return [self.hex_id(int(j)) if j >= 0 else None for j in row]

    def centre_xy(self) -> np.ndarray:
        """Hex centres in hex-width units, ``float64[n_hexes, 2]`` (x east, y south);
        flat-topped hexes, odd columns half a hex lower."""
        out = np.empty((self.n_hexes, 2))
        for i in range(self.n_hexes):
            c = self.col_min + i // self.n_rows
            r = self.row_min + i % self.n_rows
            out[i] = (c * np.sqrt(3) / 2, r + (0.5 if c % 2 else 0.0))
        return out
