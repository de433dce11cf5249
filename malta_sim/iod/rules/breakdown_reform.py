"""Compiled candidate finding for breakdown and reformation (rules 13.1,
13.2): which battalions may break down into companies and which may reform
from their companies, for every battalion of a side in one call over the
state arrays.

:func:`.organisation.breakdowns` and :func:`.organisation.reform_options`
call these kernels; they give the answers of the per-battalion tests
(:func:`.organisation.can_break_down`, :func:`.organisation.companies_for`)
in the same order.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from malta_sim.iod.state import BOX_DISBANDMENT, BOX_ELIMINATED, BOX_MAP, BOX_POOL, DEMORALIZED

#: box and morale codes read by the kernels (see :mod:`.state`)
_BOX_MAP = BOX_MAP
_BOX_DISBANDMENT = BOX_DISBANDMENT
_BOX_ELIMINATED = BOX_ELIMINATED
_BOX_POOL = BOX_POOL
_DEMORALIZED = DEMORALIZED


def csr(lists) -> tuple[np.ndarray, np.ndarray]:
    """``(start, flat)`` int64 arrays holding the lists ``lists``:
    ``flat[start[i]:start[i + 1]]`` is ``lists[i]`` (for compiled code)."""
    start = np.zeros(len(lists) + 1, np.int64)
    start[1:] = np.cumsum([len(x) for x in lists])
    flat = np.zeros(int(start[-1]), np.int64)
    for i, x in enumerate(lists):
        flat[start[i]:start[i + 1]] = np.asarray(x, np.int64)
    return start, flat


@nb.njit(cache=True)
def breakdown_eligible(box, level, entered_turn, parent, may_break, remnant_level, breakdown_n,
                       breakdown_kind, own_start, own_flat, kind_start, kind_flat, turn):
    """Battalions of a side that may break down now (rule 13.1): on the map, of
    a type that may break down (``may_break``: not Maltese), not a remnant
    (17.31), with steps left to become companies (``breakdown_n`` minus the
    steps lost), not arrived this turn, and with at least that many company
    pieces free: its own companies in the pool or the Disbandment Box and not
    in use, or, when none, the generic companies of its kind in the pool.

    Parameters
    ----------
    box, level, entered_turn, parent : arrays [n_units]
        State fields of the same names (int8, int8, int16, int32).
    may_break : bool[n_units]
        The side's battalions that may break down by type
        (``StaticTables.can_break`` and the side).
    remnant_level : int8[n_units]
        Remnant level (-1 never, ``StaticTables.remnant_level``).
    breakdown_n : int8[n_units]
        Companies a full-strength battalion breaks into.
    breakdown_kind : int32[n_units]
        Generic company kind (-1 none).
    own_start, own_flat : int64 arrays
        Per unit, its own company pieces (:func:`csr` of
        ``StaticTables.companies_of``).
    kind_start, kind_flat : int64 arrays
        Per kind, its generic company pieces (:func:`csr` of
        ``StaticTables.companies_of_kind``).
    turn : int
        The current turn.

    Returns
    -------
    int64[k]
        Battalion indices, ascending.
    """
    n = box.shape[0]
    out = np.empty(n, np.int64)
    k = 0
    for b in range(n):
        if not may_break[b] or box[b] != _BOX_MAP:
            continue
        if not companies_suffice(b, box, level, parent, remnant_level, breakdown_n, breakdown_kind,
                                 own_start, own_flat, kind_start, kind_flat):
            continue
        if entered_turn[b] == turn:
            continue
        out[k] = b
        k += 1
    return out[:k].copy()


@nb.njit(cache=True)
def free_companies(b, box, parent, breakdown_kind, own_start, own_flat, kind_start, kind_flat):
    """The company pieces battalion ``b`` may break down into now (rule
    13.1, 13.0): its own pieces in the pool or the Disbandment Box and not in
    use (``parent < 0``), in the order of ``own_flat``; or, when it has none
    such, the generic pieces of its kind in the pool, in the order of
    ``kind_flat``.

    Parameters
    ----------
    b : int
        A unit index.
    box, parent : arrays [n_units]
        State fields of the same names.
    breakdown_kind : int32[n_units]
        Generic company kind (-1 none).
    own_start, own_flat, kind_start, kind_flat : int64 arrays
        ``StaticTables.companies_of_csr`` and ``companies_of_kind_csr``.

    Returns
    -------
    int64[k]
        The free pieces (empty when there are none).
    """
    out = np.empty(own_start[b + 1] - own_start[b], np.int64)
    n = 0
    for i in range(own_start[b], own_start[b + 1]):
        c = own_flat[i]
        if (box[c] == _BOX_POOL or box[c] == _BOX_DISBANDMENT) and parent[c] < 0:
            out[n] = c
            n += 1
    if n > 0:
        return out[:n]
    kd = breakdown_kind[b]
    if kd < 0 or kd >= kind_start.shape[0] - 1:
        return out[:0]
    gen = np.empty(kind_start[kd + 1] - kind_start[kd], np.int64)
    for i in range(kind_start[kd], kind_start[kd + 1]):
        if box[kind_flat[i]] == _BOX_POOL:
            gen[n] = kind_flat[i]
            n += 1
    return gen[:n]


@nb.njit(cache=True)
def companies_suffice(b, box, level, parent, remnant_level, breakdown_n, breakdown_kind,
                      own_start, own_flat, kind_start, kind_flat):
    """Whether battalion ``b`` has company pieces enough to break down
    into (rule 13.1): not a remnant (17.31), steps left to become companies
    (``breakdown_n`` minus ``level``), and at least that many pieces in
    :func:`free_companies`.  Its type, box and arrival are the caller's
    tests.

    Parameters are those of :func:`breakdown_eligible` (``b``: a unit
    index); returns bool.
    """
    rl = remnant_level[b]
    if rl >= 0 and level[b] == rl:
        return False
    need = np.int64(breakdown_n[b]) - np.int64(level[b])
    if need <= 0:
        return False
    free = free_companies(b, box, parent, breakdown_kind, own_start, own_flat, kind_start, kind_flat)
    return free.shape[0] >= need


@nb.njit(cache=True)
def reform_candidates(box, hexa, morale_state, reduced, parent, battalions, breakdown_n, n_levels):
    """Battalions of a side that may reform now (rule 13.2): in the
    Disbandment Box (``battalions``), with companies still in play, all of
    them on the map in one hex and none demoralized, and with at least one
    level left after the companies lost or reduced.

    Parameters
    ----------
    box, hexa, morale_state, reduced, parent : arrays [n_units]
        State fields of the same names.
    battalions : bool[n_units]
        The side's battalion pieces.
    breakdown_n, n_levels : int8[n_units]
        Companies per battalion; levels of each piece.

    Returns
    -------
    bns, hexes, lost : int64[k]
        Battalion, the hex of its companies, the level it reforms at.
    start, comps : int64[k + 1], int64[m]
        ``comps[start[i]:start[i + 1]]``: the companies of ``bns[i]`` not
        eliminated, ascending.
    """
    n = box.shape[0]
    bns = np.empty(n, np.int64)
    hexes = np.empty(n, np.int64)
    lost = np.empty(n, np.int64)
    start = np.zeros(n + 1, np.int64)
    comps = np.empty(n, np.int64)
    k = 0
    m = 0
    for b in range(n):
        if not battalions[b] or box[b] != _BOX_DISBANDMENT:
            continue
        m0 = m
        ok = True
        have_h = False
        h = -1
        n_alive = 0
        n_red = 0
        for c in range(n):
            if parent[c] != b or box[c] == _BOX_ELIMINATED:
                continue
            if box[c] != _BOX_MAP or morale_state[c] == _DEMORALIZED:
                ok = False
            elif not have_h:
                h = hexa[c]
                have_h = True
            elif hexa[c] != h:
                ok = False
            if reduced[c]:
                n_red += 1
            n_alive += 1
            comps[m] = c
            m += 1
        if not ok or n_alive == 0:
            m = m0
            continue
        lv = np.int64(breakdown_n[b]) - n_alive + n_red
        if lv > np.int64(n_levels[b]) - 1:
            m = m0
            continue
        bns[k] = b
        hexes[k] = h
        lost[k] = lv
        k += 1
        start[k] = m
    return bns[:k].copy(), hexes[:k].copy(), lost[:k].copy(), start[:k + 1].copy(), comps[:m].copy()


@nb.njit(cache=True)
def attachment_options(box, hexa, formation, may_attach, axis, printed_formation):
    """Rules 15.21, 16.14: per Axis unit on the map that may be attached
    (``may_attach``: not a leader, HQ or warship), the formations of the
    assigned units stacked with it (an Axis piece in its hex whose printed
    formation is its current one) other than its own.

    Parameters
    ----------
    box, hexa, formation : arrays [n_units]
        State fields ``box``, ``hex``, ``formation``.
    may_attach : bool[n_units]
        Axis pieces that may join a formation.
    axis : bool[n_units]
        Axis pieces.
    printed_formation : int8[n_units]
        Printed formation (-1 none).

    Returns
    -------
    units : int64[k]
        Units with at least one formation to join, ascending.
    start, forms : int64[k + 1], int64[m]
        ``forms[start[i]:start[i + 1]]``: the formations ``units[i]`` may
        join, ascending.
    """
    n = box.shape[0]
    nf = 1
    for o in range(n):
        if printed_formation[o] + 1 > nf:
            nf = printed_formation[o] + 1
    seen = np.zeros(nf, np.bool_)
    units = np.empty(n, np.int64)
    start = np.zeros(n + 1, np.int64)
    forms = np.empty(n * 4, np.int64)
    k = 0
    m = 0
    for u in range(n):
        if not may_attach[u] or box[u] != _BOX_MAP:
            continue
        h = hexa[u]
        seen[:] = False
        any_f = False
        for o in range(n):
            if not axis[o] or hexa[o] != h:
                continue
            f = printed_formation[o]
            if f >= 0 and formation[o] == f and f != formation[u]:
                seen[f] = True
                any_f = True
        if not any_f:
            continue
        for f in range(nf):
            if seen[f]:
                if m == forms.shape[0]:
                    grown = np.empty(2 * m, np.int64)
                    grown[:m] = forms
                    forms = grown
                forms[m] = f
                m += 1
        units[k] = u
        k += 1
        start[k] = m
    return units[:k].copy(), start[:k + 1].copy(), forms[:m].copy()
