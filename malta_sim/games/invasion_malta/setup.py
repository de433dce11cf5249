"""Preparing for play (rule 4.1): set-up groups and the placement procedure.

Rule 4.14 fixes the order: (1) markers -- Turn marker on GT 1, Motor Pool
marker; (2) Allied Group A on its printed hexes; (3) Axis Invasion Zone markers
for each convoy, hidden; (4) Axis CAS air units into the opaque cup; (5) all
AMs into the same cup; (6) Allied Group B placed freely, at most one
infantry-type Group B unit per hex.  Units arriving later stay on the set-up
cards until their turn (rule 4.16); all units start at full strength (4.13).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ...errors import OptionError
from .units import ALLIED, Position, UnitTable

#: The six steps of rule 4.14, in order.
PLACEMENT_STEPS = (
    "place markers (Turn marker on GT 1, Motor Pool marker)",
    "Allied Group A on its designated hexes",
    "Axis Invasion Zone marker for each Naval Transport Convoy (hidden)",
    "Axis CAS air units into the opaque cup",
    "activation markers of both players into the same cup",
    "Allied Group B placed as desired, at most one infantry-type unit per hex",
)


def check_group_b(units: UnitTable, placement: dict, group_b: Sequence[int], land: np.ndarray) -> None:
    """Validate a Group B placement (rule 4.14 step 6).

    Parameters
    ----------
    placement : dict
        unit index -> hex index.
    group_b : sequence of int
        The Group B units.
    land : bool[n_hexes]

    Raises
    ------
    OptionError
        A hex with two infantry-type Group B units, a sea hex, or a unit not in Group B.
    """
    gb = set(int(u) for u in group_b)
    seen: dict = {}
    for u, h in placement.items():
        if int(u) not in gb:
            raise OptionError(f"unit {units.ids[u]} is not in Allied Group B")
        if not land[h]:
            raise OptionError(f"unit {units.ids[u]} placed on a sea hex")
        if units.infantry[u]:
            if h in seen:
                raise OptionError(f"Group B infantry {units.ids[seen[h]]} and {units.ids[u]} share a hex (rule 4.14 step 6)")
            seen[h] = u


def place_scenario(units: UnitTable, n_hexes: int, group_a: dict, group_b_place: Callable[[], dict],
                   group_b: Sequence[int], land: np.ndarray, disrupted: Sequence[int] = (),
                   axis_on_map: dict | None = None) -> tuple[Position, list]:
    """Run the placement procedure of rule 4.14 and return the starting position.

    Parameters
    ----------
    group_a : dict
        unit -> hex, the printed Group A hexes (no option, step 2).
    group_b_place : callable
        Returns the Group B placement dict (step 6), called after step 3 so the
        Allied player cannot see the Invasion Zones.
    disrupted : sequence of int
        Units that start Disrupted (rule 4.13).
    axis_on_map : dict, optional
        Axis units placed on the map by the scenario.

    Returns
    -------
    (Position, list of str)
        The position and the log of the steps done.
    """
    pos = Position.fresh(units, n_hexes)
    log = [PLACEMENT_STEPS[0]]
    for u, h in group_a.items():
        if units.side[u] != ALLIED:
            raise OptionError(f"Group A unit {units.ids[u]} is not Allied")
        pos.hex[u] = h
    log.append(PLACEMENT_STEPS[1])
    log += list(PLACEMENT_STEPS[2:5])
    gb = group_b_place()
    check_group_b(units, gb, group_b, land)
    for u, h in gb.items():
        pos.hex[u] = h
    log.append(PLACEMENT_STEPS[5])
    for u, h in (axis_on_map or {}).items():
        pos.hex[u] = h
    pos.disrupted[list(disrupted)] = True
    return pos, log


def dispersed_group_b(units: UnitTable, group_b: Sequence[int], candidates: Sequence[int], rng) -> dict:
    """A random Group B placement obeying rule 4.14 step 6: infantry-type units on
    distinct hexes drawn from ``candidates``; other units anywhere in ``candidates``."""
    cand = list(candidates)
    order = rng.permutation(len(cand))
    free = [cand[i] for i in order]
    out = {}
    for u in group_b:
        if units.infantry[u]:
            if not free:
                raise OptionError("not enough hexes to disperse Group B infantry")
            out[int(u)] = int(free.pop())
        else:
            out[int(u)] = int(cand[int(rng.integers(len(cand)))])
    return out
