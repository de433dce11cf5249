"""Zones of control, controlled and contested hexes (rules 3.11-3.14, 3.2).

A combat unit's ZOC is its own hex plus the six adjacent hexes (rule 3.21),
projected across every hexside the unit itself could cross (rule 3.22), never
into a fort hex (rule 3.25, fort occupied or not), never by an over-stacked
unit (rule 3.34).  A No-ZOC-band unit projects nothing of its own, but a hex
holding at least one projecting unit that is not over-stacked makes every
(not over-stacked) unit in it project (rule 3.24): the stack's ZOC is the
union of what its units could project, each across the hexsides it could
cross itself.  Air and naval units and markers have no ZOC (rule 3.26): they
are not in the unit table.
"""

from __future__ import annotations

import numpy as np

from .terrain import IMMap
from .units import AXIS, ALLIED, Position, UnitTable

CONTESTED = 2
NONE = -1


def crossable(m: IMMap, units: UnitTable, pos: Position, u: int, i: int, d: int) -> bool:
    """Whether unit ``u`` may cross the hexside of hex ``i`` in direction ``d`` at all.

    Sea hexsides are closed to everyone (rule 8.35), cliffs to all but commandos
    that are not Disrupted (rules 8.35, 3.83); motorized units may only follow a
    road or enter urban or airfield hexes (rule 8.33).  Used for ZOC projection
    (rule 3.22) and movement.
    """
    if m.water[i, d]:
        return False  # sea hexside: every side off the map or touching a sea hex is one (terrain.build_map)
    j = m.nbr[i, d]
    if m.cliff[i, d] and not (units.commando[u] and not pos.disrupted[u]):
        return False
    if units.ma_class[u] != 0 and not (m.road[i, d] > 0 or m.urban[j] or m.airfield[j]):
        return False
    return True


def zoc_neighbours(m: IMMap, units: UnitTable, pos: Position, u: int, out: np.ndarray) -> None:
    """Mark in ``out`` (``bool[n_hexes]``, modified in place) the adjacent hexes into which
    unit ``u`` projects ZOC once its hex projects (rules 3.21, 3.22, 3.25): those it could
    enter across the hexside itself (:func:`crossable`), never a fort hex."""
    i = pos.hex[u]
    for d in range(6):
        if crossable(m, units, pos, u, i, d) and not m.fort[m.nbr[i, d]]:  # 3.22, 3.25
            out[m.nbr[i, d]] = True


def zoc_map(m: IMMap, units: UnitTable, pos: Position, side: int, skip_disrupted: bool = False) -> np.ndarray:
    """Hexes in the ZOC of ``side``'s combat units, ``bool[n_hexes]`` (rules 3.21-3.25, 3.34).

    Parameters
    ----------
    side : int
        0 Axis, 1 Allied.
    skip_disrupted : bool
        Leave out what Disrupted units project (for Supply Routes, rule 6.23).

    Notes
    -----
    Each unit controls its own hex (rule 3.21).  Rule 3.24, hex by hex: when at
    least one unit there that is not over-stacked lacks the No ZOC band, every
    unit there that is not over-stacked projects into the adjacent hexes it
    could cross into (:func:`zoc_neighbours`), so the hex projects the union
    (a road-bound tank stacked with a foot unit that has the No ZOC band gives the
    stack the foot unit's six hexes).  A Disrupted unit still lends its ZOC to
    its stack: with ``skip_disrupted`` only the projection of the Disrupted
    units themselves is left out, not that of the others it enables.
    """
    out = np.zeros(m.n, dtype=bool)
    mask = pos.on_map() & (units.side == side)
    for h in np.unique(pos.hex[mask]):
        here = np.flatnonzero(mask & (pos.hex == h))
        regular = here[~pos.overstacked[here]]
        lends = bool((~units.no_zoc[regular]).any())  # rule 3.24
        for u in here:
            if skip_disrupted and pos.disrupted[u]:
                continue  # rule 6.23
            out[h] = True  # rule 3.21
            if lends and not pos.overstacked[u]:  # rules 3.24, 3.34
                zoc_neighbours(m, units, pos, int(u), out)
    return out


def occupied(units: UnitTable, pos: Position, side: int, n_hexes: int) -> np.ndarray:
    """``bool[n_hexes]``: hexes holding at least one combat unit of ``side``."""
    out = np.zeros(n_hexes, dtype=bool)
    k = pos.on_map() & (units.side == side)
    out[pos.hex[k]] = True
    return out


def control_map(m: IMMap, units: UnitTable, pos: Position) -> np.ndarray:
    """Who controls each hex (rules 3.12-3.13), ``int8[n_hexes]``.

    0 Axis, 1 Allied, 2 contested (both project ZOC into a vacant hex), -1 nobody.
    An occupied hex belongs to its occupant; otherwise an uncontested ZOC decides.
    """
    za = zoc_map(m, units, pos, AXIS)
    zb = zoc_map(m, units, pos, ALLIED)
    oa = occupied(units, pos, AXIS, m.n)
    ob = occupied(units, pos, ALLIED, m.n)
    out = np.full(m.n, NONE, dtype=np.int8)
    out[za & ~zb] = AXIS
    out[zb & ~za] = ALLIED
    out[za & zb] = CONTESTED
    out[oa] = AXIS
    out[ob] = ALLIED
    return out


def mark_friendly(pos: Position, units: UnitTable, u: int, h: int) -> None:
    """Hex ``h`` becomes friendly to the side of unit ``u`` that occupies or passes through it (rule 3.11)."""
    if pos.hex_owner is not None and pos.hex_owner.size:
        pos.hex_owner[h] = units.side[u]


def contiguous(m: IMMap, path: list[int]) -> bool:
    """True if every consecutive pair in ``path`` is adjacent (rule 3.14)."""
    for a, b in zip(path, path[1:]):
        if b not in m.nbr[a]:
            return False
    return True
