"""Axis supply (rule 6): Supply Routes, Supply Sources, status at night.

Only Axis units have a supply status; Allied units are always Supplied (6.0).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from .terrain import IMMap
from .units import ALLIED, AXIS, Position, UnitTable
from .zoc import occupied, zoc_map


def route_passable(m: IMMap, units: UnitTable, pos: Position) -> np.ndarray:
    """Hexes an Axis Supply Route may use, ``bool[n_hexes]`` (rules 6.0, 6.21-6.23).

    A hex is closed when an enemy combat unit is in it, when it is a fort still
    friendly to the enemy (6.22), or when it is in the ZOC of a non-Disrupted
    enemy unit (enemy controlled or contested, 6.21) and no friendly combat unit
    occupies it (6.23).
    """
    enemy = ALLIED  # only Axis units have a supply status (6.0)
    ok = m.land.copy()
    ok &= ~occupied(units, pos, enemy, m.n)
    friend = occupied(units, pos, AXIS, m.n)
    ez = zoc_map(m, units, pos, enemy, skip_disrupted=True)
    ok &= ~(ez & ~friend)
    if pos.hex_owner is not None and pos.hex_owner.size == m.n:
        ok &= ~(m.fort & (pos.hex_owner == enemy))
    return ok


def traceable_from(m: IMMap, passable: np.ndarray, sources) -> np.ndarray:
    """Hexes joined to any of ``sources`` by contiguous passable hexes (rules 3.14, 6.11,
    6.21), never across sea or cliff hexsides (rule 6.22).  ``bool[n_hexes]``."""
    seen = np.zeros(m.n, dtype=bool)
    q = deque()
    for s in sources:
        if passable[s] and not seen[s]:
            seen[s] = True
            q.append(int(s))
    while q:
        i = q.popleft()
        for d in range(6):
            if m.water[i, d] or m.cliff[i, d]:
                continue  # off the map, sea or cliff (rule 6.22)
            j = m.nbr[i, d]
            if seen[j] or not passable[j]:
                continue
            seen[j] = True
            q.append(int(j))
    return seen


def traces_from(m: IMMap, reach: np.ndarray, sources, h: int) -> bool:
    """Whether a unit standing in hex ``h`` can trace a Supply Route (rules 6.11, 6.21-6.23).

    ``reach`` (``bool[n_hexes]``, from :func:`traceable_from`) holds the hexes
    joined to a source through passable hexes.  The unit's own hex is
    friendly-occupied, so an enemy ZOC there does not close it (rule 6.23): the
    unit is Supplied if it stands on one of ``sources``, on a reached hex, or next
    to a reached hex across a hexside that is neither sea nor cliff (rule 6.22).
    """
    if h in sources or reach[h]:
        return True
    return any(not m.water[h, d] and not m.cliff[h, d] and reach[j] for d, j in enumerate(m.nbr[h]))


def sources_for(m: IMMap, units: UnitTable, pos: Position, u: int) -> list[int]:
    """Supply Sources open to Axis unit ``u`` (rule 6.31).

    Every Beachhead marker (on a coastal hex); an Airhead of the unit's
    nationality on an airfield (once air transport is possible there, 6.31 third
    point); an Airhead of its nationality anywhere if the unit was paradropped.
    """
    out = list(pos.beachheads)
    for h, nat in pos.airheads.items():
        if nat == units.nat[u] and (m.airfield[h] or pos.paradropped[u]):
            out.append(h)
    return out


def supplied_units(m: IMMap, units: UnitTable, pos: Position) -> np.ndarray:
    """Which units can trace a Supply Route now, ``bool[u]`` (rules 6.11, 6.14).

    Allied units, and Axis units off the map (set-up card, Invasion Zone box),
    are always Supplied.
    """
    out = np.ones(units.n, dtype=bool)
    passable = route_passable(m, units, pos)
    cache: dict = {}
    for u in np.flatnonzero(pos.on_map() & (units.side == AXIS)):
        src = tuple(sorted(sources_for(m, units, pos, int(u))))
        if src not in cache:
            cache[src] = traceable_from(m, passable, src)
        out[u] = bool(src) and traces_from(m, cache[src], src, int(pos.hex[u]))
    return out


def supply_status_phase(m: IMMap, units: UnitTable, pos: Position, night: bool) -> dict:
    """The Supply Status Phase (rules 6.12-6.13).

    Units that can trace lose any Out of Supply marker (any turn); units that
    cannot get one only on a Night turn (an existing marker stays).

    Returns
    -------
    dict
        ``marked`` and ``cleared``: lists of unit indices.
    """
    ok = supplied_units(m, units, pos)
    axis = pos.on_map() & (units.side == AXIS)
    cleared = np.flatnonzero(axis & ok & pos.oos)
    pos.oos[cleared] = False
    marked = np.flatnonzero(axis & ~ok & ~pos.oos) if night else np.empty(0, dtype=np.int64)
    pos.oos[marked] = True
    pos.oos[units.side == ALLIED] = False
    return dict(marked=[int(x) for x in marked], cleared=[int(x) for x in cleared])


def place_airhead(m: IMMap, pos: Position, h: int, nationality: str) -> list[int]:
    """Put an Airhead marker of ``nationality`` ('G' or 'I') on hex ``h`` (rules 6.31, 6.32).

    An Airhead placed on an airfield removes from the map every other Airhead of
    the same nationality that is not on an airfield (rule 6.31, third point):
    from then on that nationality's units trace only to Beachheads or to its
    Airheads on airfields.  Modifies ``pos.airheads`` in place.

    Returns
    -------
    list of int
        Hex indices whose Airhead was removed.
    """
    pos.airheads[int(h)] = nationality
    if not m.airfield[h]:
        return []
    gone = [k for k, nat in pos.airheads.items() if nat == nationality and not m.airfield[k]]
    for k in gone:
        del pos.airheads[k]
    return gone


def recovery_markers(m: IMMap, units: UnitTable, pos: Position, axis_control: np.ndarray) -> None:
    """Recovery Phase marker upkeep (rule 6.32): an Airhead on every airfield the
    Axis controls (one per airfield; nationality of the first Axis unit there, else
    German; placed by :func:`place_airhead`, so the same nationality's Airheads off
    airfields go, rule 6.31); Airhead and Beachhead markers under Allied units are
    removed.

    Parameters
    ----------
    axis_control : bool[n_hexes]
        Hexes friendly to (controlled by) the Axis.
    """
    for h in np.flatnonzero(m.airfield & axis_control):
        if int(h) not in pos.airheads:
            here = pos.at(int(h))
            here = here[units.side[here] == AXIS]
            place_airhead(m, pos, int(h), str(units.nat[here[0]]) if len(here) else "G")
    allied = occupied(units, pos, ALLIED, m.n)
    pos.beachheads = {h for h in pos.beachheads if not allied[h]}
    pos.airheads = {h: n for h, n in pos.airheads.items() if not allied[h]}


def supply_map(m: IMMap, units: UnitTable, pos: Position, nationality: str = "G", paradropped: bool = False) -> np.ndarray:
    """Where a (hypothetical) Axis unit would be Supplied, ``bool[n_hexes]``.

    For analysis: the hexes from which an Axis unit of ``nationality`` could
    trace a Supply Route to a source it may use (rules 6.2-6.3).  Enemy hexes
    are False.
    """
    passable = route_passable(m, units, pos)
    src = list(pos.beachheads) + [h for h, nat in pos.airheads.items()
                                  if nat == nationality and (m.airfield[h] or paradropped)]
    reach = traceable_from(m, passable, src)
    out = np.zeros(m.n, dtype=bool)
    # a unit standing in the hex occupies it itself, so an enemy ZOC there does not close it (6.23)
    enemy_occ = occupied(units, pos, ALLIED, m.n)
    for h in np.flatnonzero(m.land & ~enemy_occ):
        out[h] = traces_from(m, reach, src, int(h))
    return out
