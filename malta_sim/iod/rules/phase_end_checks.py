"""Compiled phase-end checks (rules 7.2, 14.42, 2.1): whether some hex is
over the stacking limit, which leaders are caught alone with enemy units,
and the control of every hex, each from one pass over the state arrays.

:func:`.organisation.stacking_check`, :func:`.organisation.caught_leaders`
and :func:`.organisation.update_control` call these kernels at the end of
every phase; the per-hex and per-leader rule steps stay in Python (they ask
the players and roll dice).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from malta_sim.iod import static as st
from malta_sim.iod.state import BOX_MAP

_BOX_MAP = BOX_MAP
#: rule 7.1 (:data:`.static.STACK_LIMIT_HALVES`)
_STACK_LIMIT_HALVES = st.STACK_LIMIT_HALVES


@nb.njit(cache=True)
def over_stacked(box, hexa, level, side, base_weight, remnant_level_full, n_hexes):
    """Rule 7.2: is some hex over the stacking limit (7.1) for each side?

    Parameters
    ----------
    box, hexa, level : arrays [n_units]
        State fields ``box``, ``hex``, ``level``.
    side : int8[n_units]
        Side of each piece (0 Axis, 1 Allied).
    base_weight : int16[n_units]
        Stacking weight at full strength in half battalions.
    remnant_level_full : int8[n_units]
        Level at which a two-half piece counts one (a remnant, 17.31); -1 never.
    n_hexes : int
        Number of dense hexes.

    Returns
    -------
    bool[2]
        Per side, whether its pieces on the map exceed the limit in some hex.
    """
    tot = np.zeros((2, n_hexes), np.int64)
    out = np.zeros(2, np.bool_)
    for u in range(box.shape[0]):
        if box[u] != _BOX_MAP:
            continue
        s = side[u]
        if s != 0 and s != 1:
            continue
        w = np.int64(base_weight[u]) - (1 if level[u] == remnant_level_full[u] else 0)
        tot[s, hexa[u]] += w
        if tot[s, hexa[u]] > _STACK_LIMIT_HALVES:
            out[s] = True
    return out


@nb.njit(cache=True)
def caught_leader_list(box, hexa, side, leader, controls):
    """Rule 14.42: leaders on the map whose hex holds a piece of the other side
    that controls hexes (not a leader or warship) and none of their own side.

    Parameters
    ----------
    box, hexa : arrays [n_units]
        State fields ``box``, ``hex``.
    side : int8[n_units]
        Side of each piece.
    leader, controls : bool[n_units]
        Leaders; pieces that take control of their hex (2.1).

    Returns
    -------
    int64[k]
        The caught leaders, ascending.
    """
    n = box.shape[0]
    out = np.empty(n, np.int64)
    k = 0
    for ld in range(n):
        if not leader[ld] or box[ld] != _BOX_MAP:
            continue
        h = hexa[ld]
        enemy = False
        friend = False
        for x in range(n):
            if hexa[x] != h or not controls[x]:
                continue
            if side[x] != side[ld]:
                enemy = True
            else:
                friend = True
        if enemy and not friend:
            out[k] = ld
            k += 1
    return out[:k].copy()


@nb.njit(cache=True)
def control_update(box, hexa, side, controls, control):
    """Rule 2.1: each hex holding a piece that takes control (not a leader or
    warship) on the map goes to the side of the last such piece (highest
    index); ``control`` (int8[n_hexes]) is written in place, other hexes
    keep their control.

    Parameters
    ----------
    box, hexa : arrays [n_units]
        State fields ``box``, ``hex``.
    side : int8[n_units]
        Side of each piece.
    controls : bool[n_units]
        Pieces that take control of their hex.
    control : int8[n_hexes]
        The control map, updated in place.
    """
    for u in range(box.shape[0]):
        if controls[u] and box[u] == _BOX_MAP:
            control[hexa[u]] = side[u]


#: :func:`phase_end_kernel` answers: some hex is over the stacking limit (the
#: three checks are run one by one), leaders are caught (overrun them, then
#: update control), nothing to do (control already updated)
PHASE_END_OVER, PHASE_END_CAUGHT, PHASE_END_DONE = 0, 1, 2


@nb.njit(cache=True)
def phase_end_kernel(box, hexa, level, side, base_weight, remnant_level_full, n_hexes,
                     leader, controls, control):
    """The three phase-end checks (rules 7.2, 14.42, 2.1) in one pass when
    nothing needs a player or a die: no hex over the stacking limit and no
    leader caught alone with enemy pieces; then ``control`` is updated in
    place as :func:`control_update` does.

    Parameters
    ----------
    box, hexa, level : arrays [n_units]
        State fields ``box``, ``hex``, ``level``.
    side : int8[n_units]
        Side of each piece (0 Axis, 1 Allied).
    base_weight : int16[n_units]
        Stacking weight at full strength in half battalions (7.1).
    remnant_level_full : int8[n_units]
        Level at which a two-half piece counts one (a remnant, 17.31); -1 never.
    n_hexes : int
        Number of dense hexes.
    leader, controls : bool[n_units]
        Leaders; pieces that take control of their hex (2.1).
    control : int8[n_hexes]
        The control map; written only when the answer is ``PHASE_END_DONE``.

    Returns
    -------
    code : int
        ``PHASE_END_OVER`` (some hex over the limit for a side, as
        :func:`over_stacked`; nothing else computed), ``PHASE_END_CAUGHT``
        (no hex over the limit; ``caught`` lists the caught leaders, control
        not updated) or ``PHASE_END_DONE`` (nothing to do; control updated).
    caught : int64[k]
        The caught leaders, ascending (:func:`caught_leader_list`); empty
        unless the code is ``PHASE_END_CAUGHT``.
    """
    over = over_stacked(box, hexa, level, side, base_weight, remnant_level_full, n_hexes)
    if over[0] or over[1]:
        return PHASE_END_OVER, np.empty(0, np.int64)
    caught = caught_leader_list(box, hexa, side, leader, controls)
    if caught.shape[0]:
        return PHASE_END_CAUGHT, caught
    control_update(box, hexa, side, controls, control)
    return PHASE_END_DONE, caught
