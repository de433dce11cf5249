"""Second implementations of the movement, retreat, advance and supply-route
searches (rules 5-6, 8.2, 9.6, 9.8) over the map loader's per-hexside tables:
test oracles for the engine's own searches in :mod:`malta_sim.iod.rules`.

Compiled with numba like the engine's, written independently of them.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from malta_sim.kernels.paths import INF, distance_field
from malta_sim.rng import nb_die


@nb.njit(cache=True)
def _heap_push(keys, vals, size, k, v):
    i = size
    keys[i] = k
    vals[i] = v
    while i > 0:
        p = (i - 1) >> 1
        if keys[p] <= keys[i]:
            break
        keys[p], keys[i] = keys[i], keys[p]
        vals[p], vals[i] = vals[i], vals[p]
        i = p
    return size + 1


@nb.njit(cache=True)
def _heap_pop(keys, vals, size):
    k = keys[0]
    v = vals[0]
    size -= 1
    keys[0] = keys[size]
    vals[0] = vals[size]
    i = 0
    while True:
        lft = 2 * i + 1
        if lft >= size:
            break
        c = lft
        if lft + 1 < size and keys[lft + 1] < keys[lft]:
            c = lft + 1
        if keys[i] <= keys[c]:
            break
        keys[c], keys[i] = keys[i], keys[c]
        vals[c], vals[i] = vals[i], vals[c]
        i = c
    return k, v, size


@nb.njit(cache=True)
def movement_reach(nbr, cost, start, ma, enemy_zoc, blocked, allowed, zoc_enter, zoc_exit):
    """Where one unit (or stack of one movement class) can move this phase.

    Rules: MP per hex entered from ``cost`` (6.1, 6.11, 6.51 roads across
    hexsides are in the cost table); entering an enemy ZOC hex costs
    ``zoc_enter`` extra and ends the move, leaving one costs ``zoc_exit`` extra
    (5.2); no move directly from one enemy ZOC hex to another (5.2; infiltration
    is :func:`infiltration_roll`); no entry into ``blocked`` hexes (enemy units,
    6.52) or hexes not ``allowed`` (strategic movement, 6.2); the MA may be
    exceeded only by a move of exactly one hex, which then costs the whole MA
    (5.2, 6.53).  A unit with MA 0 does not move (6.53).

    Parameters
    ----------
    nbr : int32[n, 6]
    cost : float[n, 6]
        MP per side for the unit's class, ``inf`` prohibited.
    start : int
        Start hex.
    ma : float
        Movement allowance in MP after supply, demoralization, leader and night
        modifiers.
    enemy_zoc, blocked, allowed : bool[n]
    zoc_enter, zoc_exit : float
        ZOC costs of the class (``ZOC_COSTS``).

    Returns
    -------
    (float64[n], int32[n])
        MP spent to reach each hex (``inf`` if unreachable; the start is 0) and
        the previous hex on a cheapest path (``-1`` for the start/unreachable).
    """
    n = nbr.shape[0]
    g = np.full(n, INF)
    prev = np.full(n, -1, dtype=np.int32)
    g[start] = 0.0
    if ma <= 0:
        return g, prev
    cap = 6 * n + 8
    keys = np.empty(cap)
    vals = np.empty(cap, dtype=np.int32)
    size = _heap_push(keys, vals, 0, 0.0, start)
    done = np.zeros(n, dtype=np.bool_)
    while size > 0:
        k, i, size = _heap_pop(keys, vals, size)
        if done[i]:
            continue
        done[i] = True
        if i != start and enemy_zoc[i]:
            continue  # must stop on entering an enemy ZOC (5.2)
        for d in range(6):
            j = nbr[i, d]
            if j < 0 or blocked[j] or not allowed[j]:
                continue
            c = cost[i, d]
            if not np.isfinite(c):
                continue
            if enemy_zoc[i] and enemy_zoc[j]:
                continue  # no ZOC to ZOC (5.2)
            step = c
            if enemy_zoc[i]:
                step += zoc_exit
            if enemy_zoc[j]:
                step += zoc_enter
            new = k + step
            if new > ma:
                if i == start:
                    new = ma  # one-hex minimum move (6.53)
                else:
                    continue
            if new < g[j]:
                g[j] = new
                prev[j] = i
                size = _heap_push(keys, vals, size, new, j)
    return g, prev


@nb.njit(cache=True)
def path_to(prev, target):
    """Hexes of the path ending at ``target`` from a ``prev`` array (start
    first), int32[k]; empty if ``target`` was not reached."""
    k = 0
    h = target
    while h >= 0:
        k += 1
        h = prev[h]
    out = np.empty(k, dtype=np.int32)
    h = target
    for i in range(k - 1, -1, -1):
        out[i] = h
        h = prev[h]
    return out


@nb.njit(cache=True)
def infiltration_roll(state, morale, friendly_in_destination, night, tank, motorized, forts_adjacent_both):
    """Infiltration attempt (rule 6.41): one die + morale, +2 friendly units in
    the destination, +1 night, +1 tank, -1 motorized, -2 origin and destination
    both adjacent to undestroyed enemy-occupied forts; 9 or more succeeds (the
    failing unit stays and becomes disorganized).  Returns ``(success, die)``."""
    die = nb_die(state)
    t = die + morale
    if friendly_in_destination:
        t += 2
    if night:
        t += 1
    if tank:
        t += 1
    if motorized:
        t -= 1
    if forts_adjacent_both:
        t -= 2
    return t >= 9, die


def infiltration_probability(morale, friendly_in_destination, night, tank, motorized, forts_adjacent_both):
    """Exact chance that :func:`infiltration_roll` succeeds (rule 6.41)."""
    t = morale + 2 * bool(friendly_in_destination) + bool(night) + bool(tank) - bool(motorized) \
        - 2 * bool(forts_adjacent_both)
    return sum(1 for die in range(1, 7) if die + t >= 9) / 6


@nb.njit(cache=True)
def cost_field(nbr, cost, sources):
    """Multi-source Dijkstra over MP costs: the cheapest MP from any source to
    every hex (no ZOC effects), float64[n] with ``inf`` unreachable.  Paths
    run *from* the sources, so ``cost[i, d]`` is the cost to enter ``nbr[i, d]``."""
    n = nbr.shape[0]
    g = np.full(n, INF)
    cap = 6 * n + n + 8
    keys = np.empty(cap)
    vals = np.empty(cap, dtype=np.int32)
    size = 0
    for i in range(n):
        if sources[i]:
            g[i] = 0.0
            size = _heap_push(keys, vals, size, 0.0, i)
    done = np.zeros(n, dtype=np.bool_)
    while size > 0:
        k, i, size = _heap_pop(keys, vals, size)
        if done[i]:
            continue
        done[i] = True
        for d in range(6):
            j = nbr[i, d]
            if j < 0:
                continue
            c = cost[i, d]
            if not np.isfinite(c):
                continue
            if k + c < g[j]:
                g[j] = k + c
                size = _heap_push(keys, vals, size, k + c, j)
    return g


@nb.njit(cache=True)
def strategic_allowed(nbr, friendly_controlled, enemy_units):
    """Hexes a unit using strategic movement may enter (rule 6.2): friendly
    controlled at the start of the phase and more than two hexes from every
    enemy ground unit.  A unit may use strategic movement only if its start hex
    is such a hex too (:func:`can_move_strategically`)."""
    n = nbr.shape[0]
    side = np.ones((n, 6), dtype=np.bool_)
    everywhere = np.ones(n, dtype=np.bool_)
    d = distance_field(nbr, enemy_units, everywhere, side, 2)
    out = np.empty(n, dtype=np.bool_)
    for i in range(n):
        out[i] = friendly_controlled[i] and d[i] < 0
    return out


@nb.njit(cache=True)
def can_move_strategically(start, allowed_strategic):
    """Rule 6.2: the unit starts more than two hexes from any enemy unit."""
    return allowed_strategic[start]


@nb.njit(cache=True)
def supply_field(nbr, supply_across, sources, enemy_units, enemy_zoc, friendly_units, max_len):
    """Supply route lengths from supply sources / an HQ (rules 8.2, 5.3, 8.1).

    A route may not enter hexes with enemy units, nor empty hexes in enemy
    ZOC (friendly-occupied ZOC hexes are fine, 5.3), nor cross all-ocean
    sides; it is at most ``max_len`` hexes (12, ``SUPPLY_RANGE``).  One call
    traces for a whole formation: a unit is in supply when the value at its
    hex is ``>= 0`` (and its HQ is supplied, 8.1).

    Returns
    -------
    int32[n]
        Route length in hexes, ``-1`` when no route.
    """
    n = nbr.shape[0]
    passable = np.empty(n, dtype=np.bool_)
    for i in range(n):
        passable[i] = (not enemy_units[i]) and (not enemy_zoc[i] or friendly_units[i])
    return distance_field(nbr, sources, passable, supply_across, max_len)


@nb.njit(cache=True)
def retreat_destination(nbr, side_ok, dist_table, start, length, enemy_zoc, blocked,
                        friendly_units, stack_load, stack_size, stack_limit,
                        enemy_hexes, pref, max_extra):
    """Where a retreating stack ends (rules 9.61, 9.62, 7.3).

    The stack moves ``length`` hexes, each hex one farther from its start hex,
    never into ``blocked`` hexes (enemy units other than leaders, coastal guns
    and zero-strength units) or across sides it cannot cross with normal
    movement.  Among the hexes so reached, the destination type is chosen in the
    priority of 9.61: (1) not in enemy ZOC; (2) farther by at least one hex
    from every enemy unit in the combat than the start hex was; (3) a
    friendly-occupied hex in enemy ZOC; (4) an empty hex in enemy ZOC.  Within
    a type, fewer enemy-ZOC hexes entered on the way (each costs a step, 9.62),
    then lower ``pref`` (the owning player's choice), then lower index.
    Stacking (7.3): destinations where the stack fits
    (``stack_load + stack_size <= stack_limit``) are preferred; if none at
    ``length`` the stack retreats further, up to ``max_extra`` more hexes, only
    as far as needed; if none fits anywhere the best hex at ``length`` is used
    (over-stacking is then settled at the end of the phase, 7.2).

    Parameters
    ----------
    nbr : int32[n, 6]
    side_ok : bool[n, 6]
        Sides every unit of the stack can cross (finite normal movement cost).
    dist_table : int16[n, n]
        Hex distances (``Grid.distance_table``).
    start, length : int
    enemy_zoc, blocked, friendly_units : bool[n]
    stack_load : int[n]
        Friendly stacking already in each hex, in half-battalions.
    stack_size, stack_limit : int
        The retreating stack's stacking and the limit (rule 7.1:
        ``malta_sim.iod.static.STACK_LIMIT_HALVES``).
    enemy_hexes : int32[k]
        Hexes of the enemy units involved in the combat.
    pref : float64[n]
        Tie-break among equally good hexes (lower first).
    max_extra : int

    Returns
    -------
    tuple of int
        ``(destination, zoc_hexes_entered, hexes_moved, priority)``;
        destination ``-1`` when no eligible hex exists (the stack is
        eliminated, 9.61).  ``zoc_hexes_entered`` is the number of steps lost
        (9.62), counting the destination.
    """
    n = nbr.shape[0]
    big = 1 << 20
    best = np.full(n, big, dtype=np.int64)
    best[start] = 0
    total = length + max_extra
    layer = np.empty(n, dtype=np.int32)
    # hexes ordered by distance from start
    d0 = dist_table[start]
    fallback = -1
    fb_key0 = big
    fb_key1 = big
    fb_pref = INF
    for k in range(1, total + 1):
        m = 0
        for h in range(n):
            if d0[h] == k:
                layer[m] = h
                m += 1
        found = -1
        f_pri = big
        f_zoc = big
        f_pref = INF
        for t in range(m):
            h = layer[t]
            if blocked[h]:
                continue
            b = big
            for d in range(6):
                p = nbr[h, d]
                if p < 0 or d0[p] != k - 1 or best[p] >= big:
                    continue
                # side from p to h is the opposite direction
                if not side_ok[p, (d + 3) % 6]:
                    continue
                v = best[p] + (1 if enemy_zoc[h] else 0)
                if v < b:
                    b = v
            best[h] = b
            if b >= big:
                continue
            # priority type (9.61)
            if not enemy_zoc[h]:
                pri = 1
            else:
                farther = True
                for e in range(enemy_hexes.shape[0]):
                    eh = enemy_hexes[e]
                    if dist_table[h, eh] < dist_table[start, eh] + 1:
                        farther = False
                        break
                if farther and enemy_hexes.shape[0] > 0:
                    pri = 2
                elif friendly_units[h]:
                    pri = 3
                else:
                    pri = 4
            fits = stack_load[h] + stack_size <= stack_limit
            if k == length:
                if (pri < fb_key0 or (pri == fb_key0 and (b < fb_key1 or (b == fb_key1 and pref[h] < fb_pref)))):
                    fallback = h
                    fb_key0 = pri
                    fb_key1 = b
                    fb_pref = pref[h]
            if k >= length and fits:
                if (pri < f_pri or (pri == f_pri and (b < f_zoc or (b == f_zoc and pref[h] < f_pref)))):
                    found = h
                    f_pri = pri
                    f_zoc = b
                    f_pref = pref[h]
        if k >= length and found >= 0:
            return found, f_zoc, k, f_pri
        if k == length and fallback < 0:
            return -1, 0, 0, 0
    if fallback >= 0:
        return fallback, fb_key1, length, fb_key0
    return -1, 0, 0, 0


@nb.njit(cache=True)
def advance_length(retreat_hexes, pending_hits, foot, fort_or_city, night):
    """Hexes an attacking unit may advance (rules 9.82, 9.86, 10.23): the
    greater of the defender's retreat, the hits left pending when it was
    eliminated, and one; at most 2 for foot, 3 for motorized/mechanized; only
    the attacked hex against a fort or city and at night."""
    L = max(retreat_hexes, pending_hits, 1)
    cap = 2 if foot else 3
    if fort_or_city or night:
        cap = 1
    return min(L, cap)
