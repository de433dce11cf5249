"""Compiled option finding of the combat phase (rules 9.11-9.16, 9.2, 10.1,
10.11, 12.2, 12.4, 12.5, 16.73, 16.76): who may attack which hex, which
artillery and warships may fire, and which hexes each can reach, for every
candidate in one call over the state arrays.

:mod:`.combat` calls these kernels from :func:`.combat.attack_options`,
:func:`.combat.plan_options`, :func:`.combat.defensive_options` and
:func:`.combat._firers`; they give the answers of the per-unit rule tests
(:func:`.combat.can_attack`, :func:`.combat.attackable`,
:func:`.combat.discovered`; the firing test as ``tests/oracles/iod_rules.py:art_can_fire``) in the same order.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from malta_sim.iod import static as st
from malta_sim.iod.state import BOX_MAP, DEMORALIZED

#: state codes read by the kernels (see :mod:`.state` and :mod:`.static`)
_BOX_MAP = BOX_MAP
_DEMORALIZED = DEMORALIZED
_ARTILLERY = st.ARTILLERY
_WARSHIP = st.WARSHIP


@nb.njit(cache=True)
def discovered_kernel(hexes, hx, dist, nbr, blocks, night):
    """Rule 10.11 for each enemy hex of ``hexes``: adjacent to one of the
    hexes ``hx`` of the looking side's ground units, or, by day, two hexes
    from one with neither the enemy hex nor some hex between them a town,
    city or woods hex (``blocks``).

    Parameters
    ----------
    hexes : int64[T]
        Dense hex indices of enemy hexes.
    hx : int64[H]
        Hexes of the looking side's ground units.
    dist : int16[n_hexes, n_hexes]
        Distance table in hexes.
    nbr : int32[n_hexes, 6]
        Neighbour table (-1 off the grid).
    blocks : bool[n_hexes]
        Town, city and woods hexes (``StaticTables.sight_blocking``).
    night : bool
        A Night turn: only adjacency discovers.

    Returns
    -------
    bool[T]
        Whether each hex is discovered.
    """
    out = np.zeros(hexes.shape[0], np.bool_)
    for i in range(hexes.shape[0]):
        h = hexes[i]
        for j in range(hx.shape[0]):
            if dist[h, hx[j]] == 1:
                out[i] = True
                break
        if out[i] or night or blocks[h]:
            continue
        for j in range(hx.shape[0]):
            f = hx[j]
            if dist[h, f] != 2:
                continue
            for d in range(6):
                m = nbr[h, d]
                if m >= 0 and not blocks[m] and dist[m, f] == 1:
                    out[i] = True
                    break
            if out[i]:
                break
    return out


@nb.njit(cache=True)
def attackable_mask(hexa, level, defends_enemy, defense, n_hexes):
    """Rule 9.15: hexes holding a defender of the enemy side (a ground unit that
    takes part in a hex's defense) with a defense strength above zero.

    Parameters
    ----------
    hexa : int32[n_units]
        Hex of each piece (-1 off the map).
    level : int8[n_units]
        Current level (step) of each piece.
    defends_enemy : bool[n_units]
        Pieces of the enemy side that take part in a defense (not leaders,
        coastal guns or warships).
    defense : int8[n_units, n_levels]
        Printed defense strength per level.
    n_hexes : int
        Number of dense hexes.

    Returns
    -------
    bool[n_hexes]
        The hexes that may be attacked.
    """
    out = np.zeros(n_hexes, np.bool_)
    for u in range(hexa.shape[0]):
        h = hexa[u]
        if h >= 0 and defends_enemy[u] and defense[u, level[u]] > 0:
            out[h] = True
    return out


@nb.njit(cache=True)
def attackers_kernel(box, attacked, entered_turn, morale_state, level, can_type, attack, turn,
                     night):
    """Units that may attack this phase (rules 9.13, 9.16, 10.21, 19.7, 18.94):
    on the map, of an attacking type of the side (``can_type``), not yet
    attacked this phase, not arrived this turn, not demoralized at night, with
    an attack strength above zero at the current level.

    Parameters
    ----------
    box, attacked, entered_turn, morale_state, level : arrays [n_units]
        State fields of the same names (int8, bool, int16, int8, int8).
    can_type : bool[n_units]
        Attacking unit types of the side (``StaticTables.attacker_side``).
    attack : int8[n_units, n_levels]
        Printed attack strength per level.
    turn : int
        The current turn.
    night : bool
        A Night turn.

    Returns
    -------
    int64[k]
        Unit indices, ascending.
    """
    n = box.shape[0]
    out = np.empty(n, np.int64)
    k = 0
    for u in range(n):
        if not can_type[u] or box[u] != _BOX_MAP or attacked[u]:
            continue
        if entered_turn[u] == turn:
            continue
        if night and morale_state[u] == _DEMORALIZED:
            continue
        if attack[u, level[u]] <= 0:
            continue
        out[k] = u
        k += 1
    return out[:k].copy()


@nb.njit(cache=True)
def group_options(cand, hexa, targets, adj):
    """Rule 9.11: per attackable hex (``targets``), the candidates adjacent to
    it across a hexside that is not all ocean.

    Parameters
    ----------
    cand : int64[C]
        Candidate attackers, in the order their lists are to be filled.
    hexa : int32[n_units]
        Hex of each piece.
    targets : bool[n_hexes]
        Hexes that may be attacked (:func:`attackable_mask`).
    adj : int64[n_hexes, 6]
        Per hex its neighbours not across an all-ocean hexside, in direction
        order, padded with -1 (``StaticTables.adj_table``).

    Returns
    -------
    order : int64[T]
        Target hexes in the order a candidate first reaches them (candidates
        in ``cand`` order, each hex's neighbours in direction order).
    start : int64[T + 1]
        ``units[start[i]:start[i + 1]]`` attack ``order[i]``.
    units : int64[M]
        The attacking candidates per target, in ``cand`` order.
    """
    nh = adj.shape[0]
    slot = np.full(nh, -1, np.int64)
    order = np.empty(nh, np.int64)
    ps = np.empty(cand.shape[0] * 6, np.int64)
    pu = np.empty(cand.shape[0] * 6, np.int64)
    k = 0
    m = 0
    for i in range(cand.shape[0]):
        u = cand[i]
        h = hexa[u]
        for d in range(6):
            o = adj[h, d]
            if o < 0:
                break
            if targets[o]:
                j = slot[o]
                if j < 0:
                    j = k
                    slot[o] = k
                    order[k] = o
                    k += 1
                ps[m] = j
                pu[m] = u
                m += 1
    start = np.zeros(k + 1, np.int64)
    for i in range(m):
        start[ps[i] + 1] += 1
    for j in range(k):
        start[j + 1] += start[j]
    fill = start[:k].copy()
    units = np.empty(m, np.int64)
    for i in range(m):
        j = ps[i]
        units[fill[j]] = pu[i]
        fill[j] += 1
    return order[:k].copy(), start, units


@nb.njit(cache=True)
def by_target_hex(order, start, units):
    """:func:`group_options`'s answer (the attack options of step 9.2 a,
    rules 9.11-9.16) re-listed in ascending target-hex order.

    Parameters
    ----------
    order, start, units : int64 arrays
        As :func:`group_options` returns them (targets distinct, in the bots'
        order; ``units[start[i]:start[i + 1]]`` attack ``order[i]``).

    Returns
    -------
    targets : int64[k]
        Target hexes, ascending.
    ptr : int64[k + 1]
        Offsets into ``idx``.
    idx : int64[n]
        ``idx[ptr[i]:ptr[i + 1]]``: the units that may attack ``targets[i]``,
        in the order :func:`group_options` gave them.
    """
    perm = np.argsort(order)
    k = order.shape[0]
    targets = np.empty(k, np.int64)
    ptr = np.zeros(k + 1, np.int64)
    idx = np.empty(units.shape[0], np.int64)
    m = 0
    for i in range(k):
        j = perm[i]
        targets[i] = order[j]
        for q in range(start[j], start[j + 1]):
            idx[m] = units[q]
            m += 1
        ptr[i + 1] = m
    return targets, ptr, idx


@nb.njit(cache=True)
def attack_options_kernel(use_cand, cand, box, attacked, entered_turn, morale_state, level, hexa,
                          can_type, attack, defends_enemy, defense, adj, turn, night):
    """:func:`.combat.attack_options` in one call (rules 9.11, 9.13, 9.15,
    9.16, 10.21): the attackable hexes, the side's attackers (unless
    ``use_cand``: then ``cand``) and the candidates per target.

    Parameters
    ----------
    use_cand : bool
        Use the candidates ``cand`` (int64[C]) instead of every unit that may
        attack.
    box .. defense, turn, night
        As :func:`attackers_kernel` and :func:`attackable_mask`.
    adj : int64[n_hexes, 6]
        As :func:`group_options`.

    Returns
    -------
    tuple
        :func:`group_options`'s ``(order, start, units)``.
    """
    targets = attackable_mask(hexa, level, defends_enemy, defense, adj.shape[0])
    if not use_cand:
        cand = attackers_kernel(box, attacked, entered_turn, morale_state, level, can_type,
                                attack, turn, night)
    return group_options(cand, hexa, targets, adj)


@nb.njit(cache=True)
def firer_candidates(box, fired, can_fire_type):
    """Artillery and warships of a side on the map that have not fired this
    phase (``can_fire_type`` = ``StaticTables.firer_side``), ascending
    (rules 12.4, 16.73)."""
    n = box.shape[0]
    out = np.empty(n, np.int64)
    k = 0
    for u in range(n):
        if can_fire_type[u] and box[u] == _BOX_MAP and not fired[u]:
            out[k] = u
            k += 1
    return out[:k].copy()


@nb.njit(cache=True)
def firers_kernel(cand, utype, hitched, salvos, morale_state, hexa, entered_turn, gun_fired_turn,
                  enemy_zoc, barred, ships_ok, turn):
    """The candidates of :func:`firer_candidates` that may fire (rules 12.4,
    12.5, 11.4, 12.23, 16.76, 18.4, 9.16): warships only when ``ships_ok``
    (day, no rain) and not fired at coastal guns this turn; artillery
    prepared (not hitched) with a salvo left, not demoralized, not in an enemy
    ZOC and not arrived this turn; no piece ``barred`` (a warship whose
    communications failed this turn, 16.73; Allied artillery held back by
    rule 17.7).

    Parameters
    ----------
    cand : int64[C]
        Candidates, ascending.
    utype, hitched, salvos, morale_state, hexa, entered_turn, gun_fired_turn : arrays [n_units]
        Static unit type and the state fields of the same names.
    enemy_zoc : bool[n_hexes]
        Hexes in the enemy's ZOC.
    barred : bool[n_units]
        Pieces that may not fire for the reasons above.
    ships_ok : bool
        Warships may fire (day, weather not rainy, 16.76).
    turn : int
        The current turn.

    Returns
    -------
    int64[F]
        The pieces that may fire, ascending.
    """
    out = np.empty(cand.shape[0], np.int64)
    k = 0
    for i in range(cand.shape[0]):
        u = cand[i]
        if utype[u] == _WARSHIP:
            if not ships_ok or gun_fired_turn[u] == turn or barred[u]:
                continue
        else:
            if barred[u] or utype[u] != _ARTILLERY or hitched[u] or salvos[u] <= 0:
                continue
            if morale_state[u] == _DEMORALIZED or enemy_zoc[hexa[u]]:
                continue
            if entered_turn[u] == turn:
                continue
        out[k] = u
        k += 1
    return out[:k].copy()


@nb.njit(cache=True)
def in_range_kernel(hexes, firers, hexa, art_range, dist):
    """Rules 12.2, 16.73: ``out[i, j]`` is True when the hex ``hexes[i]`` is
    within the printed range (hexes) of the piece ``firers[j]``.

    Parameters
    ----------
    hexes : int64[T]
        Dense hex indices.
    firers : int64[F]
        Artillery / warships.
    hexa : int32[n_units]
        Hex of each piece.
    art_range : int8[n_units]
        Printed range in hexes.
    dist : int16[n_hexes, n_hexes]
        Distance table in hexes.

    Returns
    -------
    bool[T, F]
    """
    out = np.zeros((hexes.shape[0], firers.shape[0]), np.bool_)
    for i in range(hexes.shape[0]):
        h = hexes[i]
        for j in range(firers.shape[0]):
            u = firers[j]
            out[i, j] = dist[h, hexa[u]] <= art_range[u]
    return out


@nb.njit(cache=True)
def _in_range_lists(hexes, firers, hexa, art_range, dist):
    """Per hex of ``hexes`` the pieces of ``firers`` within range of it
    (:func:`in_range_kernel` as lists, rules 12.2, 16.73): ``idx[ptr[i]:ptr[i + 1]]``,
    in ``firers`` order."""
    ptr = np.zeros(hexes.shape[0] + 1, np.int64)
    idx = np.empty(hexes.shape[0] * firers.shape[0], np.int64)
    m = 0
    for i in range(hexes.shape[0]):
        h = hexes[i]
        for j in range(firers.shape[0]):
            u = firers[j]
            if dist[h, hexa[u]] <= art_range[u]:
                idx[m] = u
                m += 1
        ptr[i + 1] = m
    return ptr, idx[:m].copy()


@nb.njit(cache=True)
def defense_kernel(hexes, cand, utype, hitched, salvos, morale_state, hexa, entered_turn,
                   gun_fired_turn, enemy_zoc, barred, ships_ok, turn, art_range, dist):
    """The arrays behind :func:`.combat.defensive_options` (step 9.2 b) in
    one call: the pieces of ``cand`` that may fire (:func:`firers_kernel`;
    rules 12.4, 12.5, 11.4, 12.23, 16.73, 16.76, 17.7, 18.4, 9.16), and per
    own hex of ``hexes`` those within range of it (12.2).

    Parameters
    ----------
    hexes : int64[T]
        Own hexes that may be attacked, in the order asked.
    cand ... turn
        As :func:`firers_kernel`.
    art_range, dist
        As :func:`in_range_kernel`.

    Returns
    -------
    firers : int64[F]
        The pieces that may fire, ascending.
    ptr, idx : int64[T + 1], int64[M]
        Per hex, the firers within range (offsets into ``idx``, firers order).
    """
    firers = firers_kernel(cand, utype, hitched, salvos, morale_state, hexa, entered_turn,
                           gun_fired_turn, enemy_zoc, barred, ships_ok, turn)
    ptr, idx = _in_range_lists(hexes, firers, hexa, art_range, dist)
    return firers, ptr, idx


@nb.njit(cache=True)
def plan_kernel(box, attacked, entered_turn, morale_state, level, hexa, can_type, attack,
                defends_enemy, defense, adj, turn, night, cand, utype, hitched, salvos,
                gun_fired_turn, enemy_zoc, barred, ships_ok, art_range, dist, nbr, blocks,
                ground_side):
    """The arrays behind :func:`.combat.plan_options` (step 9.2 a) in one call.

    Parameters
    ----------
    box .. night
        As :func:`attack_options_kernel`.
    cand, utype, hitched, salvos, gun_fired_turn, enemy_zoc, barred, ships_ok
        As :func:`firers_kernel` (``cand`` from :func:`firer_candidates`;
        ``enemy_zoc`` is read only when there is a candidate).
    art_range, dist
        As :func:`in_range_kernel`.
    nbr : int32[n_hexes, 6]
        Neighbour table (-1 off the grid).
    blocks : bool[n_hexes]
        Town, city and woods hexes (10.11).
    ground_side : bool[n_units]
        Ground combat units of the side (``StaticTables.ground_side``).

    Returns
    -------
    attack_targets : int64[A]
        Attackable hexes next to an attacker (9.11, 9.15), ascending.
    a_ptr, a_idx : int64[A + 1], int64[M]
        The units that may attack each of ``attack_targets`` (offsets into
        ``a_idx``; each target's units in ascending order), as
        :func:`attack_options_kernel` finds them.
    firers : int64[F]
        The side's pieces that may fire (:func:`firers_kernel`; 12.4, 12.5,
        11.4, 12.23, 16.73, 16.76, 17.7, 18.4, 9.16), ascending.
    s_ptr, s_idx : int64[A + 1], int64[S]
        Per attack target, the firers within range of it (12.2; firers
        order).
    b_tgt, b_ptr, b_idx : int64[B], int64[B + 1], int64[R]
        The hexes that may be bombarded (10.1: attackable, discovered by the
        side, 10.11, and within range of a firer), ascending, and per hex the
        firers within range.
    """
    nh = adj.shape[0]
    tmask = attackable_mask(hexa, level, defends_enemy, defense, nh)
    cand_a = attackers_kernel(box, attacked, entered_turn, morale_state, level, can_type, attack,
                              turn, night)
    order, start, units = group_options(cand_a, hexa, tmask, adj)
    atk, a_ptr, a_idx = by_target_hex(order, start, units)
    if cand.shape[0]:
        firers = firers_kernel(cand, utype, hitched, salvos, morale_state, hexa, entered_turn,
                               gun_fired_turn, enemy_zoc, barred, ships_ok, turn)
    else:
        firers = cand
    s_ptr, s_idx = _in_range_lists(atk, firers, hexa, art_range, dist)
    targets = np.flatnonzero(tmask)
    no = np.zeros(0, np.int64)
    if firers.shape[0] == 0 or targets.shape[0] == 0:
        return atk, a_ptr, a_idx, firers, s_ptr, s_idx, no, np.zeros(1, np.int64), no
    own = np.zeros(nh, np.bool_)
    for u in range(box.shape[0]):
        if ground_side[u] and box[u] == _BOX_MAP:
            own[hexa[u]] = True
    hx = np.flatnonzero(own)
    if hx.shape[0] == 0:
        return atk, a_ptr, a_idx, firers, s_ptr, s_idx, no, np.zeros(1, np.int64), no
    disc = discovered_kernel(targets, hx, dist, nbr, blocks, night)
    t_ptr, t_idx = _in_range_lists(targets, firers, hexa, art_range, dist)
    nb_ = 0
    b_tgt = np.empty(targets.shape[0], np.int64)
    b_ptr = np.zeros(targets.shape[0] + 1, np.int64)
    b_idx = np.empty(t_idx.shape[0], np.int64)
    m = 0
    for i in range(targets.shape[0]):
        if not disc[i] or t_ptr[i + 1] == t_ptr[i]:
            continue
        b_tgt[nb_] = targets[i]
        for q in range(t_ptr[i], t_ptr[i + 1]):
            b_idx[m] = t_idx[q]
            m += 1
        nb_ += 1
        b_ptr[nb_] = m
    return atk, a_ptr, a_idx, firers, s_ptr, s_idx, b_tgt[:nb_].copy(), b_ptr[:nb_ + 1].copy(), \
        b_idx[:m].copy()
