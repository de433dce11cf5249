"""The bots' move choices in one compiled call each (rules 5.2, 6.1-6.6, 7.1,
8.2, 9.92, 17.7, 20.0).

:meth:`malta_sim.bots.axis.AxisBot.next_move` walks its candidate units
in ascending order and moves the first combat unit that has a legal
destination closer to its goal.  Done in Python, each candidate costs a call
of :func:`malta_sim.iod.rules.movement.legal_moves` (its
allowance, the masks, a dict of destinations) and of the step choice
``_best_step``, and the set-up of the position (objectives, enemy hexes) is
rebuilt after every move.  :func:`axis_walk_kernel` does the whole walk in one
call: it reads the objectives and enemy hexes off the state arrays, and for
each candidate it works out the movement allowance, the goal hex, the
destinations (the reach search of :func:`movement.reach_core`, run as
:func:`movement.reach_sparse` into buffers kept for the whole walk, and the
stacking room of rule 7.1, the same arithmetic as :func:`movement.legal_kernel`) and
the chosen step (an HQ's step toward its formation included), and stops at
the first unit that moves, or at hitched artillery outside an enemy ZOC,
which the Python code handles itself (it may prepare in place, rule 6.6;
never in an enemy ZOC, 5.4, where it stays and the walk goes on).  It then goes on walking
on the position that move leaves (the mover in its destination, its path's
hexes Axis-controlled), so one call makes the bot's next several decisions;
:class:`AxisWalk` hands them out one per ``next_move`` call while executing
the earlier moves left the game exactly as assumed (no overrun, entry
effect, ...), and the bot asks afresh otherwise.

:func:`garrison_kernel` does the same for the Allied bot's garrison moves,
:func:`reserve_kernel` for its reserve moves (closing on weak Axis stacks,
reinforcing threatened objectives), :func:`beach_kernel` for its moves onto
empty live beach hexes and :func:`shore_up_kernel` (over the hexes of
:func:`shore_up_goals`) for reinforcing thinly held airfields and cities;
:func:`allied_move_kernel` runs these in the bot's order, the whole of one
Allied move decision in one call, keeping the record of the units tried
this phase in the bot's arrays.

The answers are those of the plain loops of ``tests/oracles/bots.py``
(compared on whole games by ``tests/bots/test_compiled_decisions.py``): same
candidates tried, same destination, same MP, same tie-breaks.  Nothing here adds floats in a new order: the step score
is ``_best_step``'s own.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from malta_sim.iod.rules import movement as mv
from malta_sim.iod import static as st
from malta_sim.iod.state import AXIS, NIGHT
from malta_sim.bots.allied import holders_kernel
from malta_sim.bots.axis import _goal_hex

#: half battalions a hex holds (rule 7.1)
_ROOM = mv.STACK_ROOM

#: what :func:`axis_walk_kernel` stopped on
DONE, MOVE, PYTHON = 0, 1, 2

#: unit type codes the kernel tests: leader, artillery, HQ; foot class
_CODES = np.array([st.LEADER, st.ARTILLERY, st.HQ, st.FOOT], np.int64)


@nb.njit(cache=True)
def _formation_distance(h, u, f, side_units, box, formation, ground, utype, codes, dist, hexes):
    """Rules 8.2, 16.8: distance in hexes from hex ``h`` to the nearest
    on-map ground unit of formation ``f`` other than ``u`` and not an HQ or
    artillery piece (``codes[2]``, ``codes[1]``); ``1 << 30`` when there is
    none.
    ``side_units`` (int64[k]) are the side's pieces, ``dist``
    (int[n_hexes, n_hexes]) the hex distance table."""
    near = 1 << 30
    for j in range(side_units.shape[0]):
        x = side_units[j]
        if (box[x] == 0 and formation[x] == f and x != u and ground[x]
                and utype[x] != codes[2] and utype[x] != codes[1]):
            d = np.int64(dist[h, hexes[x]])
            if d < near:
                near = d
    return near


@nb.njit(cache=True)
def _objectives(control, weights, obj):
    """Fill ``obj`` (float64[n_hexes]) with the objective weights the Axis
    does not hold (``weights`` where ``control`` is not 0, else 0; rules
    16.1, 20, :meth:`AxisBot.objective_values`) and return the hexes where
    they are positive (int64[k], ascending)."""
    n = obj.shape[0]
    ng = 0
    for h in range(n):
        obj[h] = 0.0 if control[h] == 0 else weights[h]
        if obj[h] > 0:
            ng += 1
    gh = np.empty(ng, np.int64)
    ng = 0
    for h in range(n):
        if obj[h] > 0:
            gh[ng] = h
            ng += 1
    return gh


@nb.njit(cache=True)
def axis_walk_kernel(order, box, hexes, level, moved, hitched, entered_turn, out_of_supply, morale,
                     formation, turn, night, bonus, ground, never, utype, move_class, ma_tab,
                     formation_hq, strategic, edge, ocean_side, nbr, land, strat_ok, zoc,
                     blocked, stop, side_units, base, remnant_level, dist, ring, weights, control,
                     enemy_units, envelop_w, decay, radius, codes, max_moves):
    """Walk the Axis bot's candidates and pick its next moves (rules 5.2,
    6.1-6.6, 7.1, 8.2, 9.92; see :meth:`AxisBot.next_move`): the first move,
    then, on the position that move leaves (the mover in its destination,
    marked moved, the hexes of its path Axis-controlled, 2.1, 6.1), the next
    one, and so on, up to ``max_moves`` decisions.  Nothing in the game is
    changed: the later decisions are those :meth:`AxisBot.next_move` makes
    only when executing the earlier moves changes nothing else (no overrun,
    fort, invasion entry effect or night disorganization); the caller checks
    that before handing each one out (:class:`AxisWalk`).

    Parameters
    ----------
    order : int64[k]
        Candidate units still to try this phase, ascending.
    box, hexes, level, moved, hitched, entered_turn, out_of_supply, morale, formation : ndarray[n_units]
        The game state's per-piece arrays (``GameState`` dtypes; only read).
    turn : int
        Game turn (pieces that entered this turn do not move, 16.13, 19.8).
    night : bool
        A night turn (6.71).
    bonus : int8[n_units]
        Leader MP bonus of the phase (14.1).
    ground : bool[n_units]
        Ground combat units (``game.ground_mask``).
    never, utype, move_class, ma_tab : ndarray
        Static tables: pieces that never move (bool[n_units]), type and class
        codes, printed MA per level (int[n_units, levels]).
    formation_hq : int[n_formations]
        HQ piece of each formation (supply anchor, 8.2).
    strategic : bool
        Strategic movement (6.2) rather than tactical (6.3).
    edge : int32[4, n_hexes, 6]
        Half-MP hexside costs for this kind of movement (rules 6.11, 6.2) by
        class, ``edge[cls + 1]`` for class ``cls`` (0 foot, 1 mot, 2 mech):
        one kind's slice of :func:`movement.edge_cost_table`.
    ocean_side, nbr, land, strat_ok, zoc, blocked, stop : ndarray
        As :func:`movement.legal_kernel` (enemy ZOC, blocking and trivial
        hexes of rule 6.52 from ``movement._masks``).
    side_units, base, remnant_level : ndarray
        The Axis pieces (int64[m]) and :func:`movement.stack_tables` (each
        piece's stacking weight, half battalions, 7.1, 17.31).
    dist : int[n_hexes, n_hexes]
        Hex distances.
    ring : int64[n_hexes, w]
        Per hex ``h`` the hexes ``x`` with ``dist[h, x] <= 1`` (``h`` itself
        included), padded with -1 (:func:`near_table`).
    weights : float64[n_hexes]
        The bot's objective weights of every hex (0 off land; rules 16.1,
        20): a hex the Axis controls (``control`` int8[n_hexes]) weighs 0
        (:meth:`AxisBot.objective_values`).
    enemy_units : int64[e]
        The Allied pieces (their ground units on the map are the enemy
        stacks of the envelopment bonus and the HQ's distance rule).
    envelop_w, decay, radius : float
        The bot's ``envelop`` bonus per adjacent enemy hex (9.92),
        ``dist_decay`` and ``supply_radius`` (hexes).
    codes : int64[4]
        Leader, artillery and HQ type codes, foot class code.
    max_moves : int
        Most decisions to make (at least 1).

    Returns
    -------
    steps : int64[j, 6]
        One row per decision, in order: ``(stop_at, what, dest_hex, k,
        n_path, at)``.
        ``stop_at`` indexes ``order`` (the unit the walk ended on; ``k``
        when it ran out of candidates), every unit up to it tried; ``what``
        is :data:`MOVE` (``order[stop_at]`` moves to ``dest_hex``),
        :data:`DONE` (no unit moves) or :data:`PYTHON` (``order[stop_at]``
        is hitched artillery that may prepare in place, 6.6, outside an
        enemy ZOC, 5.4: the caller decides for it; hitched artillery in an
        enemy ZOC stays and the walk goes on); only the last row may be
        DONE or PYTHON.
        For a MOVE: ``k`` legal destinations, ``n_path`` hexes entered and
        ``dest_hex`` at index ``at`` of the destinations.
    dests, mps : int64[max_moves, n_hexes], float64[max_moves, n_hexes]
        Row ``r``, first ``k`` entries: the mover's legal destinations
        (ascending) and MP spent of move ``r``, as :func:`movement.legal_moves`
        lists them.
    preds : int32[max_moves, n_hexes]
        Row ``r``: predecessors of move ``r``'s reach search (its path, 6.1).
    after_hex, after_moved, after_control : arrays [max_moves, ...]
        Row ``r``: ``hexes``, ``moved`` and ``control`` as the walk assumed
        them after move ``r`` (what executing it must leave for move ``r + 1``
        to stand).
    paths : int64[max_moves, n_hexes]
        Row ``r``, first ``n_path`` entries: the hexes move ``r`` enters, in
        order, the destination last (:func:`movement._path`; the start
        excluded).
    """
    n = nbr.shape[0]
    hexes = hexes.copy()                  # the position the walk assumes (moves applied)
    moved = moved.copy()
    control = control.copy()
    steps = np.zeros((max_moves, 6), np.int64)
    paths = np.empty((max_moves, n), np.int64)
    chain = np.empty(n + 1, np.int64)
    dests = np.empty((max_moves, n), np.int64)
    mps = np.empty((max_moves, n), np.float64)
    preds = np.empty((max_moves, n), np.int32)
    after_hex = np.empty((max_moves, hexes.shape[0]), hexes.dtype)
    after_moved = np.empty((max_moves, moved.shape[0]), moved.dtype)
    after_control = np.empty((max_moves, n), control.dtype)
    # the reach searches' buffers (movement.reach_sparse), put back after each
    cost, pred, done, pool_h, pool_n, seen = mv.reach_sparse_buffers(n)
    # one bucket per half MP up to the largest allowance of the phase: no
    # allowance exceeds the largest printed MA (a leader's 14, 14.3) plus the
    # largest leader bonus (14.1); the other rules only lower it
    top = max(np.int64(ma_tab.max()), 14) + max(np.int64(bonus.max()), 0)
    head = np.empty(2 * top + 2, np.int64)
    tail = np.empty(2 * top + 2, np.int64)
    dest = np.empty(n, np.int64)
    mp = np.empty(n, np.float64)
    # what the bot reads of the whole position (AxisBot._move_setup): the
    # objectives it does not hold, the hexes of enemy ground units
    obj = np.empty(n, np.float64)
    gh = _objectives(control, weights, obj)
    ng = gh.shape[0]
    enemy_at = np.zeros(n, np.bool_)
    ne = 0
    for j in range(enemy_units.shape[0]):
        x = enemy_units[j]
        if box[x] == 0 and ground[x] and not enemy_at[hexes[x]]:
            enemy_at[hexes[x]] = True
            ne += 1
    ehex = np.empty(ne, np.int64)
    ne = 0
    for h in range(n):
        if enemy_at[h]:
            ehex[ne] = h
            ne += 1
    envelop = envelop_w if ne > 0 and envelop_w > 0 else 0.0
    # stacking room per hex before the mover's own weight (7.1): the Axis
    # side's totals, kept up to date as the walk's moves are applied
    room = mv.stack_room_kernel(side_units, box, hexes, level, base, remnant_level, n, _ROOM)
    allowed = land & strat_ok if strategic else land
    nf = formation_hq.shape[0]
    m = 0
    for i in range(order.shape[0]):
        u = order[i]
        ut = utype[u]
        if ut == codes[0] or moved[u]:
            continue
        if ut == codes[1]:
            # artillery: only hitched artillery that did not arrive this turn
            # may prepare (6.6, 16.13, 19.8), never in an enemy ZOC (5.4: it
            # stays, as AxisBot._special_move decides); the caller decides
            # for the others
            if hitched[u] and entered_turn[u] != turn and not zoc[hexes[u]]:
                steps[m, 0], steps[m, 1], steps[m, 2] = i, PYTHON, -1
                return steps[:m + 1], dests, mps, preds, after_hex, after_moved, after_control, paths
            continue
        here = np.int64(hexes[u])
        best = -1
        if ut == codes[2]:
            # an HQ (8.2, 16.8): toward its formation's units when more than
            # four hexes from the nearest, ending at least two hexes from
            # enemy units; nearest, fewest MP, lowest hex
            f = formation[u]
            near_here = _formation_distance(here, u, f, side_units, box, formation, ground,
                                            utype, codes, dist, hexes)
            if near_here == 1 << 30 or near_here <= 4:
                continue
            ma = mv.allowance(box[u] == 0, moved[u], entered_turn[u], turn, never[u], ut == codes[0],
                            ut == codes[1], ma_tab[u, level[u]], move_class[u] == codes[3], out_of_supply[u],
                            morale[u], bonus[u], night)
            if ma < 0:
                continue
            t, k = _destinations_sparse(u, here, ma, move_class, edge, zoc, blocked, stop, allowed,
                                        ocean_side, nbr, room, base, remnant_level, level, cost,
                                        pred, done, pool_h, pool_n, seen, head, tail, dest, mp)
            best_near, best_cost = 0, 0.0
            for a in range(k):
                h = dest[a]
                if ehex.shape[0]:
                    far = True
                    for e in ehex:
                        if dist[h, e] < 3:
                            far = False
                            break
                    if not far:
                        continue
                nh = _formation_distance(h, u, f, side_units, box, formation, ground, utype,
                                         codes, dist, hexes)
                c = mp[a]
                if best < 0 or nh < best_near or (nh == best_near and c < best_cost):
                    best, best_near, best_cost = h, nh, c          # dest ascending: lowest hex on ties
            if best < 0 or best_near >= near_here:
                mv.reach_sparse_reset(seen, t, cost, pred, done)
                continue
        else:
            if ng == 0:
                continue
            ma = mv.allowance(box[u] == 0, moved[u], entered_turn[u], turn, never[u], ut == codes[0],
                            ut == codes[1], ma_tab[u, level[u]], move_class[u] == codes[3], out_of_supply[u],
                            morale[u], bonus[u], night)
            if ma < 0:
                continue
            goal = _goal_hex(obj, gh, ng, dist, here, decay)
            d_here = np.int64(dist[here, goal])
            if d_here == 0:
                continue
            t, k = _destinations_sparse(u, here, ma, move_class, edge, zoc, blocked, stop, allowed,
                                        ocean_side, nbr, room, base, remnant_level, level, cost,
                                        pred, done, pool_h, pool_n, seen, head, tail, dest, mp)
            if k == 0:
                mv.reach_sparse_reset(seen, t, cost, pred, done)
                continue
            f = np.int64(formation[u])
            anchor = -1
            if 0 <= f < nf:
                hq = np.int64(formation_hq[f])
                if hq >= 0 and box[hq] == 0 and hexes[hq] >= 0:
                    anchor = np.int64(hexes[hq])
            best = _best_step_near(dist, ring, dest, mp, k, goal, d_here, anchor, radius, enemy_at,
                                   envelop)
            if best < 0:
                mv.reach_sparse_reset(seen, t, cost, pred, done)
                continue
        # unit u moves to best: record the decision, the MP it spends and
        # the hexes it enters (read back along the predecessors as
        # movement._path reads them, 6.1)
        a = 0
        while dest[a] != best:
            a += 1
        c = 0
        chain[0] = best
        cur = best
        while cur != here:
            cur = pred[cur]
            if cur < 0:
                break
            c += 1
            chain[c] = cur
        # chain[0..c] runs from best back to the start (or, were the chain
        # broken, to the last hex found): the path is chain[c-1], ..., chain[0]
        plen = c
        for j in range(plen):
            paths[m, j] = chain[plen - 1 - j]
        steps[m, 0], steps[m, 1], steps[m, 2], steps[m, 3], steps[m, 4], steps[m, 5] = (
            i, MOVE, best, k, plen, a)
        dests[m, :k] = dest[:k]
        mps[m, :k] = mp[:k]
        preds[m] = pred
        mv.reach_sparse_reset(seen, t, cost, pred, done)
        # the position it leaves (movement.execute_move): the mover in its
        # destination, moved; the hexes it entered controlled by the Axis
        # (2.1); its stacking weight moved with it (7.1)
        w = 1 if level[u] == remnant_level[u] else base[u]
        room[here] += w
        room[best] -= w
        for j in range(plen):
            h = paths[m, j]
            control[h] = 0
            obj[h] = 0.0                 # _objectives: a hex the Axis holds weighs 0
        hexes[u] = best
        moved[u] = True
        after_hex[m] = hexes
        after_moved[m] = moved
        after_control[m] = control
        m += 1
        if m == max_moves:
            return steps[:m], dests, mps, preds, after_hex, after_moved, after_control, paths
        # the objectives left: those of gh whose weight still counts (only
        # the path's hexes changed hands), in the same ascending order
        q = 0
        for j in range(ng):
            h = gh[j]
            if obj[h] > 0:
                gh[q] = h
                q += 1
        ng = q
    steps[m, 0], steps[m, 1], steps[m, 2] = order.shape[0], DONE, -1
    return steps[:m + 1], dests, mps, preds, after_hex, after_moved, after_control, paths


@nb.njit(cache=True)
def _best_step_near(dist, ring, hs, cost, k, goal, d_here, anchor, radius, enemy_at, envelop):
    """:func:`malta_sim.bots.axis._best_step` over ``hs[:k]`` (rules
    6.1-6.6, 8.2, 9.92) with the enemy hexes as a mask (``enemy_at``
    bool[n_hexes]): the enemy hexes next to a destination ``h`` are counted
    among ``ring[h]`` (the hexes ``x`` with ``dist[h, x] <= 1``) as those
    with ``dist[h, x] == 1``, the very hexes ``_best_step`` counts over the
    list of enemy hexes; the same floats in the same order."""
    best = -1
    best_key = 0.0
    best_cost = 0.0
    w = ring.shape[1]
    for i in range(k):
        h = hs[i]
        dh = dist[h, goal]
        if dh >= d_here:
            continue
        if anchor >= 0 and dist[h, anchor] > radius:
            continue
        key = float(dh)
        if envelop != 0.0:
            n = 0
            for j in range(w):
                x = ring[h, j]
                if x < 0:
                    break
                if enemy_at[x] and dist[h, x] == 1:
                    n += 1
            key = key - envelop * n
        c = cost[i]
        if (best < 0 or key < best_key or (key == best_key and (c < best_cost
                                                                 or (c == best_cost and h < best)))):
            best, best_key, best_cost = h, key, c
    return best


@nb.njit(cache=True)
def _destinations_sparse(u, here, ma, move_class, edge, zoc, blocked, stop, allowed, ocean_side,
                         nbr, room, base, remnant_level, level, cost, pred, done, pool_h, pool_n,
                         seen, head, tail, dest, mp):
    """:func:`_destinations` (rules 5.2, 6.1-6.3, 6.53, 7.1) with the search
    of :func:`movement.reach_sparse` into the kept buffers ``cost``,
    ``pred``, ``done``, ``pool_h``, ``pool_n``, ``seen``, ``head``, ``tail``
    (``head``, ``tail`` int64[>= 2 * ma + 2]): the destinations
    written to ``dest``/``mp`` (int64[n], float64[n]; ascending), the
    predecessors left in ``pred`` until :func:`movement.reach_sparse_reset`.
    Returns ``(t, k)``: the search reached ``seen[:t]``, ``k`` destinations."""
    cls = np.int64(move_class[u])
    t = mv.reach_sparse(here, 2 * ma, cls, edge, zoc, blocked, stop, allowed, ocean_side,
                        nbr, mv.ZOC_ENTER, mv.ZOC_EXIT, cost, pred, done, pool_h, pool_n, seen,
                        head, tail)
    w = np.int64(base[u])                   # 7.1; a remnant weighs 1 (17.31)
    if level[u] == remnant_level[u]:
        w = 1
    k = 0
    for j in range(1, t):                   # seen[0] is here; the rest reached, each once
        h = seen[j]
        if room[h] - w >= 0:
            q = k                           # insertion: ascending hex order
            while q > 0 and dest[q - 1] > h:
                dest[q] = dest[q - 1]
                mp[q] = mp[q - 1]
                q -= 1
            dest[q] = h
            mp[q] = cost[h] / 2.0
            k += 1
    return t, k


@nb.njit(cache=True)
def search_buffers(n, ma_tab, bonus):
    """Working space for :func:`_unit_destinations` on a map of ``n`` hexes,
    as it expects it on entry: :func:`movement.reach_sparse_buffers`, the
    bucket heads and tails for the largest allowance of the phase (no
    allowance exceeds the largest printed MA, ``ma_tab`` [n_units, levels],
    or a leader's 14 (14.3), plus the largest leader bonus, ``bonus``
    int8[n_units], 14.1; the other rules only lower it), and ``dest``
    int64[n], ``mp`` float64[n] for the answers.  A tuple of ten arrays."""
    cost, pred, done, pool_h, pool_n, seen = mv.reach_sparse_buffers(n)
    top = max(np.int64(ma_tab.max()), 14) + max(np.int64(bonus.max()), 0)
    return (cost, pred, done, pool_h, pool_n, seen, np.empty(2 * top + 2, np.int64),
            np.empty(2 * top + 2, np.int64), np.empty(n, np.int64), np.empty(n, np.float64))


@nb.njit(cache=True)
def _unit_destinations(u, here, may_act, box, moved, entered_turn, turn, never, utype, ma_tab, move_class,
                       out_of_supply, morale, bonus, night, codes, edge, zoc, blocked, stop, allowed,
                       ocean_side, nbr, room, base, remnant_level, level, bufs, least, dist, goals, ng):
    """Legal destinations of unit ``u`` (not a leader, not artillery) standing
    in ``here`` this phase: rule 17.7 (``may_act``), its allowance
    (:func:`movement.allowance`) and :func:`_destinations_sparse` (rules 5.2,
    6.1-6.3, 6.53, 7.1: :func:`movement.legal_kernel`'s search and stacking
    test, with the side's stacking ``room`` per hex before the mover) in the
    working space ``bufs`` (:func:`search_buffers`, put back before the
    return).  Returns ``k``, the number of destinations, written ascending
    into ``bufs[8]`` (hexes) and ``bufs[9]`` (MP spent) and read there until
    the next search; -1 when the unit may not move.

    With ``ng`` > 0 the caller wants only the destinations among
    ``goals[:ng]`` (int64): when every one of them lies beyond
    :func:`movement.reach_bound`'s distance (``1 + 2 MA // c``, ``c`` the
    cheapest hexside of the unit's class, ``least[class + 1]``; ``dist``
    the hex distances) no search is made and -1 is returned, as none of
    them can be a destination."""
    if not may_act[here]:
        return -1                                      # 17.7
    ma = mv.allowance(box[u] == 0, moved[u], entered_turn[u], turn, never[u], utype[u] == codes[0],
                    utype[u] == codes[1], ma_tab[u, level[u]], move_class[u] == codes[3], out_of_supply[u], morale[u],
                    bonus[u], night)
    if ma < 0:
        return -1
    if ng > 0:
        c = least[move_class[u] + 1]
        if c > 0:                      # 6.53: one hex always; then one hex per c half MPs at most
            bound = 1 + (2 * ma) // c
            near = False
            for j in range(ng):
                if dist[here, goals[j]] <= bound:
                    near = True
                    break
            if not near:
                return -1
    cost, pred, done, pool_h, pool_n, seen, head, tail, dest, mp = bufs
    t, k = _destinations_sparse(u, here, ma, move_class, edge, zoc, blocked, stop, allowed, ocean_side,
                                nbr, room, base, remnant_level, level, cost, pred, done, pool_h, pool_n,
                                seen, head, tail, dest, mp)
    mv.reach_sparse_reset(seen, t, cost, pred, done)
    return k


def _statics(game) -> tuple:
    """The static arguments of :func:`axis_walk_kernel`, gathered once per
    :class:`StaticData` (kept on it)."""
    return _walk_statics(game.static)


@st.per_static
def _walk_statics(t) -> tuple:
    """:func:`_statics` of the static data ``t``."""
    edge, base, rem = mv._static_args(t)
    dist = t.grid.distance_table
    return (mv._never_moves(t), t.utype, t.move_class, t.ma,
            t.formation_hq, (np.ascontiguousarray(edge[0]), np.ascontiguousarray(edge[1])),
            t.ocean_side, t.neighbours, t.land, base, rem, dist, near_table(dist))


def near_table(dist: np.ndarray) -> np.ndarray:
    """int64[n_hexes, w]: per hex ``h`` the hexes ``x`` with
    ``dist[h, x] <= 1`` (``h`` and the hexes next to it, ascending), padded
    with -1; ``w`` the most any hex has (7 on a hex grid).  ``dist`` is the
    hex distance table (int[n_hexes, n_hexes]).  The walk counts the enemy
    hexes next to a destination among these rows (envelopment, rule 9.92;
    :func:`_best_step_near`).  Built once per static data; read-only."""
    near = dist <= 1
    w = max(1, int(near.sum(axis=1).max())) if near.size else 1
    out = np.full((dist.shape[0], w), -1, np.int64)
    for h in range(dist.shape[0]):
        xs = np.flatnonzero(near[h])
        out[h, :xs.shape[0]] = xs
    out.flags.writeable = False
    return out


#: most decisions one :func:`axis_walk_kernel` call makes ahead for :class:`AxisWalk`
WALK_MOVES = 8


class _Walk:
    """What the Axis and Allied walks share: the game and key a walk was
    made for, its rows and the next row to hand out, and the bytes and
    morale it assumed (see :func:`_walked_to`)."""

    __slots__ = ("game", "key", "rows", "r", "fixed", "morale")

    def __init__(self):
        self.game = None
        self.rows = None

    def _rows_for(self, game, key: tuple):
        """The rows kept for ``game`` and ``key``, or None; either way no
        rows are kept after this (a decision taken puts them back)."""
        rows = self.rows
        if rows is None:
            return None
        self.rows = None                       # taken (or dropped): put back when it stands
        if self.game is not game or self.key != key:
            return None
        return rows


class AxisWalk(_Walk):
    """The decisions an :func:`axis_walk_kernel` call made beyond the first
    (rules 6.1-6.6), handed out one per :meth:`AxisBot.next_move` call while
    the game stands exactly where the walk assumed it would.

    The walk assumed that executing each move changes only the mover's hex,
    its moved flag and the control of the hexes it entered (2.1, 6.1).  Before
    a later decision is handed out, :meth:`take` checks that against the
    game: every piece's hex and moved flag and every hex's control equal the
    walk's rows, and everything else the kernel read (boxes, levels, morale,
    supply, hitched artillery, entry turns, formations, salvos, destroyed
    forts, the leader bonus, the strategic-movement hexes, the candidates
    left, turn, phase and mode) is unchanged.  Anything else (an overrun, a
    fort destroyed, an invasion entry effect, a night disorganization, a
    candidate gone) drops the rest of the walk, and the bot asks the kernel
    afresh: the decision is the one a fresh call would make either way.
    """

    __slots__ = ("order",)

    @staticmethod
    def _fixed(s, bonus, strat_ok) -> tuple:
        """The bytes of what the kernel reads that executing a move leaves as
        it is (morale apart: see :meth:`take`)."""
        return (s.box.tobytes(), s.level.tobytes(), s.hitched.tobytes(), s.entered_turn.tobytes(),
                s.out_of_supply.tobytes(), s.formation.tobytes(), s.salvos.tobytes(),
                s.fort_destroyed.tobytes(), bonus.tobytes(), strat_ok.tobytes())

    def take(self, game, key: tuple, order: list, bonus, strat_ok):
        """The walk's next decision for candidates ``order`` as
        :func:`_hand_out` gives it, or None when there is none or the game is
        not where the walk assumed.

        Morale is read by the kernel only for units it has not moved (their
        allowance, 6.71, 11.4), so a mover disorganized at night (6.71) by
        its own move leaves the walk standing; any other change of morale
        drops it."""
        rows = self._rows_for(game, key)
        if rows is None:
            return None
        steps, after_hex, after_moved, after_control = rows[0], rows[4], rows[5], rows[6]
        r = self.r
        first = int(steps[r - 1, 0]) + 1
        s = game.state
        if (order != self.order[first:]
                or not _walked_to(s, after_hex[r - 1], after_moved[r - 1], after_control[r - 1],
                                  self._fixed(s, bonus, strat_ok), self.fixed, self.morale)):
            return None
        if r + 1 < len(steps):
            self.rows, self.r = rows, r + 1
        return _hand_out(self.order, rows, r, first)

    def start(self, game, key: tuple, order: list, rows: tuple, bonus, strat_ok) -> None:
        """Keep the decisions of ``rows`` (:func:`axis_walk_kernel`'s answer
        for ``order``) after the first, when there are any."""
        if len(rows[0]) > 1:
            s = game.state
            self.game, self.key, self.order, self.rows, self.r = game, key, order, rows, 1
            self.fixed = self._fixed(s, bonus, strat_ok)
            self.morale = s.morale_state.copy()
        else:
            self.rows = None


def _walked_to(s, hexes, moved, control, fixed_now: tuple, fixed_then: tuple, morale_then) -> bool:
    """Whether game state ``s`` stands where a walk assumed (rule 6.1): every
    piece's hex and moved flag and every hex's control equal the walk's row
    (``hexes``, ``moved``, ``control``), the bytes of what executing a move
    leaves as it is are unchanged (``fixed_now`` against ``fixed_then``),
    and morale differs from ``morale_then`` only for units the walk moved
    (a kernel reads morale only for units it has not moved: their
    allowance, 6.71, 11.4)."""
    if (s.hex.tobytes() != hexes.tobytes() or s.moved.tobytes() != moved.tobytes()
            or s.control.tobytes() != control.tobytes() or fixed_now != fixed_then):
        return False
    morale = s.morale_state
    return morale.tobytes() == morale_then.tobytes() or not ((morale != morale_then) & ~moved).any()


def _hand_out(order: list, rows: tuple, r: int, first: int):
    """Decision ``r`` of a walk over ``order`` as ``(stop_at, what,
    dest_hex)``, ``stop_at`` counted from ``order[first]``."""
    stop_at, what, best = rows[0][r, :3].tolist()
    return stop_at - first, what, best


def axis_step(game, mode: str, order: list, weights: np.ndarray, envelop: float, decay: float,
              radius: float, walk: AxisWalk | None = None):
    """The Axis bot's next decision over ``order`` (Axis candidate units,
    ascending) for movement ``mode`` ("tactical" or "strategic", rules 6.2,
    6.3) with the bot's objective ``weights`` (float64[n_hexes]) and its
    ``envelop``, ``decay`` and ``radius`` knobs: the next decision kept in
    ``walk`` when it still stands (:class:`AxisWalk`), else one
    :func:`axis_walk_kernel` call (whose later decisions ``walk`` keeps).

    Returns
    -------
    tuple
        ``(stop_at, what, dest_hex)`` as a row of :func:`axis_walk_kernel`
        (``stop_at`` indexes ``order``); the engine checks the move.
    """
    s = game.state
    strategic = mode == "strategic"
    strat_ok = mv.move_area(game, AXIS, mode)
    bonus = s.leader_bonus
    turn = s.turn.item(0)
    key = (turn, game.phase_name, mode, id(weights), envelop, decay, radius)
    if walk is not None:
        hit = walk.take(game, key, order, bonus, strat_ok)
        if hit is not None:
            return hit
    never, utype, move_class, ma_tab, fhq, edges, ocean_side, nbr, land, base, rem, \
        dist, ring = _statics(game)
    zoc, block, trivial = mv._side_masks(game, AXIS)
    rows = axis_walk_kernel(
        np.array(order, np.int64), s.box, s.hex, s.level, s.moved, s.hitched, s.entered_turn,
        s.out_of_supply, s.morale_state, s.formation, turn, turn % 4 == NIGHT, bonus, game.ground_mask,
        never, utype, move_class, ma_tab, fhq, strategic, edges[strategic], ocean_side,
        nbr, land, strat_ok, zoc, block, trivial, mv._side_units(game, AXIS), base, rem, dist, ring,
        weights, s.control, mv._side_units(game, 1 - AXIS), envelop, decay, radius, _CODES,
        1 if walk is None else WALK_MOVES)
    if walk is not None:
        walk.start(game, key, order, rows, bonus, strat_ok)
    return _hand_out(order, rows, 0, 0)


# ------------------------------------------------------------------ Allied garrison moves
#: the AA type code (AA units never garrison)
_AA = st.AA


@nb.njit(cache=True)
def garrison_kernel(order, side, box, hexes, level, moved, entered_turn, out_of_supply, morale, turn,
                    night, bonus, may_act, ground, never, utype, move_class, ma_tab,
                    strategic, edge, ocean_side, nbr, land, strat_ok, zoc, blocked, stop,
                    side_units, enemy_units, base, remnant_level, dist, static_val, fort,
                    fort_destroyed, control, codes, aa, bufs, least, retake=False):
    """The Allied bot's garrison move (rules 2.1, 6.1-6.6, 7.1, 17.7, 20.0;
    see :meth:`AlliedBot.next_move`, step 3): the first of ``order`` that is
    not on an objective nor next to the enemy and can reach an empty held
    objective moves onto the most valuable one (fewest MP, then lowest hex,
    on ties).  With ``retake``, the retake move instead (see below).

    Parameters
    ----------
    order : int64[k]
        Candidates still to try this phase, ascending.
    side : int
        The bot's side (1, Allied).
    box, hexes, level, moved, entered_turn, out_of_supply, morale : ndarray[n_units]
        The game state's per-piece arrays.
    turn, night, bonus
        As :func:`axis_walk_kernel`.
    may_act : bool[n_hexes]
        Hexes from which rule 17.7 lets a unit move now (:func:`_may_act`).
    ground, never, utype, move_class, ma_tab
        As :func:`axis_walk_kernel`.
    strategic, edge, ocean_side, nbr, land, strat_ok, zoc, blocked, stop
        As :func:`axis_walk_kernel`, for the bot's side.
    side_units, enemy_units : int64[m]
        The bot's pieces and the enemy's pieces.
    base, remnant_level : ndarray
        :func:`movement.stack_tables`.
    dist : int[n_hexes, n_hexes]
        Hex distances.
    static_val : float64[n_hexes]
        The objective weights that never change (victory cities 4, airfields
        3, towns 1; whole numbers).
    fort, fort_destroyed : bool[n_hexes]
        Forts and destroyed forts (an undestroyed fort adds 2).
    control : int8[n_hexes]
        Hex control (2.1); only hexes the side holds count, unless ``retake``.
    codes : int64[4]
        Leader, artillery and HQ type codes, foot class code (as
        :func:`axis_walk_kernel`).
    aa : int
        The AA type code (artillery, HQs, leaders and AA never garrison).
    bufs : tuple
        The legal-move searches' working space (:func:`search_buffers`).
    least : int64[4]
        The cheapest hexside per class (``class + 1``) for this kind of
        movement (:func:`movement._least_edge_cost`): a unit too far from
        every empty objective is not searched.
    retake : bool
        The retake move of the ``retake_empty`` knob instead: the goals are
        the objectives the enemy controls with no enemy ground unit in them,
        at the same weights (entering one retakes it, 2.1), and a unit next
        to the enemy may go too; a unit on an objective its side holds
        still stays.

    Returns
    -------
    stop_at : int
        Index into ``order`` of the unit the walk ended on (``k``: none
        moves); -1 when no held objective is empty (no unit was tried).
    dest_hex : int
        The hex the unit moves to, -1 when none.
    """
    n = nbr.shape[0]
    val = np.zeros(n, np.float64)                  # the goals' weights
    held = np.zeros(n, np.float64)                 # the side's own objectives' weights
    for h in range(n):
        if land[h]:
            v = static_val[h]
            if fort[h] and not fort_destroyed[h]:
                v = v + 2.0
            if control[h] == side:
                held[h] = v
                if not retake:
                    val[h] = v
            elif retake and control[h] == 1 - side:
                val[h] = v
    occupied = np.zeros(n, np.bool_)
    for j in range(side_units.shape[0]):
        x = side_units[j]
        if box[x] == 0 and ground[x]:
            occupied[hexes[x]] = True
    if retake:                                     # a hex holding enemy units is no goal
        for j in range(enemy_units.shape[0]):
            x = enemy_units[j]
            if box[x] == 0 and ground[x]:
                occupied[hexes[x]] = True
    glist = np.empty(n, np.int64)                  # the empty held objectives
    ng = 0
    for h in range(n):
        if val[h] > 0 and not occupied[h]:
            glist[ng] = h
            ng += 1
    if ng == 0:
        return -1, -1
    # enemy ground units on the map: a unit next to one stays (rule 6.1 choice)
    eh = np.empty(enemy_units.shape[0], np.int64)
    ne = 0
    for j in range(enemy_units.shape[0]):
        x = enemy_units[j]
        if box[x] == 0 and ground[x]:
            eh[ne] = hexes[x]
            ne += 1
    room = mv.stack_room_kernel(side_units, box, hexes, level, base, remnant_level, n, _ROOM)
    allowed = land & strat_ok if strategic else land
    for i in range(order.shape[0]):
        u = order[i]
        ut = utype[u]
        here = np.int64(hexes[u])
        if ut == codes[0] or ut == codes[1] or ut == codes[2] or ut == aa or held[here] > 0:
            continue
        near = False
        for j in range(ne):
            if dist[eh[j], here] <= 1:
                near = True
                break
        if near and not retake:
            continue
        k = _unit_destinations(
            u, here, may_act, box, moved, entered_turn, turn, never, utype, ma_tab, move_class,
            out_of_supply, morale, bonus, night, codes, edge, zoc, blocked, stop, allowed, ocean_side,
            nbr, room, base, remnant_level, level, bufs, least, dist, glist, ng)
        dest, mp = bufs[8], bufs[9]
        if k < 0:
            continue                                   # may not move (17.7, 6.0)
        best, best_val, best_mp = -1, 0.0, 0.0
        for a in range(k):
            h = dest[a]
            if val[h] > 0 and not occupied[h]:
                if best < 0 or val[h] > best_val or (val[h] == best_val and mp[a] < best_mp):
                    best, best_val, best_mp = h, val[h], mp[a]     # ascending: lowest hex on ties
        if best >= 0:
            return i, best
    return order.shape[0], -1


_ALL_HEXES: dict = {}


def _may_act(game, side: int) -> np.ndarray:
    """bool[n_hexes]: hexes from which a unit of ``side`` may move under
    rule 17.7 (:func:`movement.may_act_hexes`, every hex where the rule lets
    every unit act)."""
    may = mv.may_act_hexes(game, side)
    if may is None:
        n = game.static.n_hexes
        may = _ALL_HEXES.get(n)
        if may is None:
            may = _ALL_HEXES[n] = np.ones(n, np.bool_)
    return may


# ------------------------------------------------------------------ Allied reserve moves
#: what :func:`reserve_kernel` closes on: the nearest of a set of hexes, or a goal hex per unit
CLOSE, GOAL = 0, 1


@nb.njit(cache=True)
def reserve_kernel(order, how, d_target, stay, goals, goal_threat, box, hexes, level, moved,
                   entered_turn, out_of_supply, morale, turn, night, bonus, may_act, never, utype,
                   move_class, ma_tab, strategic, edge, ocean_side, nbr, land, strat_ok, zoc, blocked,
                   stop, side_units, base, remnant_level, dist, codes, bufs):
    """The Allied bot's reserve move (rules 6.1-6.6, 7.1, 17.7; see
    :meth:`AlliedBot.next_move`, step 2): the
    first unit of ``order`` with a legal destination nearer its target moves
    to the legal destination nearest it (fewest MP, then lowest hex, on
    ties).

    With ``how`` :data:`CLOSE` the target of every unit is the nearest of a
    set of hexes, ``d_target`` (int[n_hexes]) the distance of each hex to
    it; a unit at most one hex from it stays.  With ``how`` :data:`GOAL`
    a unit on a ``stay`` hex (bool[n_hexes]) stays; the others head for the
    hex of ``goals`` (int64[g], ascending) with the highest ``goal_threat``
    (int64[g]), then the nearest, then the lowest; a unit on its goal stays.

    Parameters
    ----------
    order : int64[k]
        Candidates still to try this phase, ascending; no leaders and no
        artillery (the reserve never holds them: their allowance and
        hitching, 6.6, are not worked out here).
    box, hexes, level, moved, entered_turn, out_of_supply, morale : ndarray[n_units]
        The game state's per-piece arrays.
    turn, night, bonus, may_act, never, utype, move_class, ma_tab
        As :func:`garrison_kernel`.
    strategic, edge, ocean_side, nbr, land, strat_ok, zoc, blocked, stop
        As :func:`garrison_kernel`.
    side_units : int64[m]
        The moving side's pieces.
    base, remnant_level : ndarray
        :func:`movement.stack_tables`.
    dist : int[n_hexes, n_hexes]
        Hex distances.
    codes : int64[4]
        As :func:`axis_walk_kernel` (leader type code, foot class code read).
    bufs : tuple
        The legal-move searches' working space (:func:`search_buffers`).

    Returns
    -------
    stop_at : int
        Index into ``order`` of the unit that moves (every unit up to it
        tried); ``k`` when none moves.
    dest_hex : int
        Its destination, -1 when none moves.
    """
    n = nbr.shape[0]
    room = mv.stack_room_kernel(side_units, box, hexes, level, base, remnant_level, n, _ROOM)
    allowed = land & strat_ok if strategic else land
    for i in range(order.shape[0]):
        u = order[i]
        here = np.int64(hexes[u])
        goal = -1
        if how == CLOSE:
            d_here = np.int64(d_target[here])
            if d_here <= 1:
                continue
        else:
            if stay[here]:
                continue
            bt, bd = 0, 0
            for j in range(goals.shape[0]):
                g = goals[j]
                dg = np.int64(dist[here, g])
                if goal < 0 or goal_threat[j] > bt or (goal_threat[j] == bt and dg < bd):
                    goal, bt, bd = g, goal_threat[j], dg                   # ascending: lowest on ties
            if goal < 0 or here == goal:
                continue
            d_here = np.int64(dist[here, goal])
        k = _unit_destinations(
            u, here, may_act, box, moved, entered_turn, turn, never, utype, ma_tab, move_class,
            out_of_supply, morale, bonus, night, codes, edge, zoc, blocked, stop, allowed, ocean_side,
            nbr, room, base, remnant_level, level, bufs, _NO_GOALS, dist, _NO_GOALS, 0)
        dest, mp = bufs[8], bufs[9]
        if k < 0:
            continue                                   # may not move (17.7, 6.0)
        best, best_d, best_mp = -1, 0, 0.0
        for a in range(k):
            h = dest[a]
            dh = np.int64(d_target[h]) if how == CLOSE else np.int64(dist[h, goal])
            if best < 0 or dh < best_d or (dh == best_d and mp[a] < best_mp):
                best, best_d, best_mp = h, dh, mp[a]                       # ascending: lowest hex on ties
        if best >= 0 and best_d < d_here:
            return i, best
    return order.shape[0], -1


#: the empty inputs of :func:`reserve_kernel` a kind of target does not read
_NO_GOALS = np.zeros(0, np.int64)
_NO_STAY = np.zeros(1, np.bool_)
_NO_DIST = np.zeros(1, np.int64)


# ------------------------------------------------------------------ Allied beach and shore-up moves
@nb.njit(cache=True)
def beach_kernel(order, side, live, holder_type, held, obj, control, enemy_units, box, hexes, level,
                 moved, entered_turn, out_of_supply, morale, defense, turn, night, bonus, may_act,
                 never, utype, move_class, ma_tab, strategic, edge, ocean_side, nbr, land, strat_ok,
                 zoc, blocked, stop, side_units, base, remnant_level, codes, bufs, least, dist):
    """The Allied bot's move onto an empty live beach hex the Axis controls
    (rules 6.1-6.6, 2.1, 18.32, 20.0; see :meth:`AlliedBot.next_move`, step 1): the
    first unit of ``order`` able to hold a hex, not the only holder of an
    objective, with such a hex among its legal destinations moves onto the
    one it reaches with the fewest MP (then the lowest hex).

    Parameters
    ----------
    order : int64[k]
        Candidates still to try this phase, ascending.
    side : int
        The bot's side (1, Allied).
    live : int64[b]
        The live beach hexes (:meth:`AlliedBot.live_beaches`).
    holder_type : bool[n_units]
        Pieces whose type may hold a hex (ground units, no artillery, HQ, AA,
        strongpoint, leader, warship or coastal gun).
    held : int64[n_hexes + 1]
        The bot's holders per hex (:meth:`AlliedBot._holders`).
    obj : float64[n_hexes]
        Objective weights that never change (victory cities 4, airfields 3,
        towns 1): a lone holder of one stays.
    control : int8[n_hexes]
        Hex control (2.1).
    enemy_units : int64[m]
        The enemy's pieces (on the map where their hex is not -1).
    box, hexes, level, moved, entered_turn, out_of_supply, morale : ndarray[n_units]
        The game state's per-piece arrays.
    defense : ndarray[n_units, levels]
        Printed defense strength per level.
    turn, night, bonus, may_act, never, utype, move_class, ma_tab
        As :func:`garrison_kernel`.
    strategic, edge, ocean_side, nbr, land, strat_ok, zoc, blocked, stop, side_units
        As :func:`garrison_kernel`.
    base, remnant_level, codes, bufs
        As :func:`reserve_kernel`.
    least, dist
        As :func:`garrison_kernel`: a unit too far from every goal hex is
        not searched.

    Returns
    -------
    stop_at : int
        Index into ``order`` of the unit that moves (every unit up to it
        tried); ``k`` when none moves; -1 when there is no such beach hex
        (no unit tried).
    dest_hex : int
        Its destination, -1 when none moves.
    """
    n = nbr.shape[0]
    occ = np.zeros(n, np.int64)
    for j in range(enemy_units.shape[0]):
        h = hexes[enemy_units[j]]
        if h >= 0:
            occ[h] += 1
    goal = np.zeros(n, np.bool_)
    glist = np.empty(live.shape[0], np.int64)
    ng = 0
    for j in range(live.shape[0]):
        h = live[j]
        if control[h] != side and occ[h] == 0 and held[h] == 0 and not goal[h]:
            goal[h] = True
            glist[ng] = h
            ng += 1
    if ng == 0:
        return -1, -1
    room = mv.stack_room_kernel(side_units, box, hexes, level, base, remnant_level, n, _ROOM)
    allowed = land & strat_ok if strategic else land
    for i in range(order.shape[0]):
        u = order[i]
        if not holder_type[u] or defense[u, level[u]] <= 0:
            continue
        here = np.int64(hexes[u])
        if here < 0 or (obj[here] > 0 and held[here] == 1):
            continue
        k = _unit_destinations(
            u, here, may_act, box, moved, entered_turn, turn, never, utype, ma_tab, move_class,
            out_of_supply, morale, bonus, night, codes, edge, zoc, blocked, stop, allowed, ocean_side,
            nbr, room, base, remnant_level, level, bufs, least, dist, glist, ng)
        dest, mp = bufs[8], bufs[9]
        if k < 0:
            continue                                   # may not move (17.7, 6.0)
        best, best_mp = -1, 0.0
        for a in range(k):
            h = dest[a]
            if goal[h] and (best < 0 or mp[a] < best_mp):
                best, best_mp = h, mp[a]                                   # ascending: lowest hex on ties
        if best >= 0:
            return i, best
    return order.shape[0], -1


@nb.njit(cache=True)
def shore_up_goals(side, need, key, land, control, box, hexes, level, ground, side_units, enemy_units,
                   attack, defense, nbr):
    """The objectives the Allied bot's ``shore_up`` reinforces, in the order
    it tries them (rules 9.1, 20.0; see :meth:`AlliedBot.next_move`, step 2): the
    land airfields and victory cities (``key``) it controls with enemy ground
    units next to them whose own defense strength is below ``need``, the hex
    with the most enemy attack strength next to it first, then the lowest.

    Parameters
    ----------
    side : int
        The bot's side.
    need : float
        The ``shore_up`` knob (defense strength).
    key, land : bool[n_hexes]
        Airfields and victory cities; land hexes.
    control : int8[n_hexes]
        Hex control (2.1).
    box, hexes, level : ndarray[n_units]
        The game state's per-piece arrays; ``ground`` bool[n_units] the
        ground combat units.
    side_units, enemy_units : int64[m]
        The bot's and the enemy's pieces.
    attack, defense : ndarray[n_units, levels]
        Printed strengths per level.
    nbr : int32[n_hexes, 6]
        Neighbour table (-1 off the map).

    Returns
    -------
    int64[g]
        The hexes, in order (empty when the enemy has no ground unit on the
        map).
    """
    n = nbr.shape[0]
    atk = np.zeros(n, np.float64)
    n_enemy = 0
    for j in range(enemy_units.shape[0]):
        x = enemy_units[j]
        if box[x] == 0 and ground[x]:
            atk[hexes[x]] += attack[x, level[x]]
            n_enemy += 1
    if n_enemy == 0:
        return np.zeros(0, np.int64)
    dfn = np.zeros(n, np.float64)
    for j in range(side_units.shape[0]):
        x = side_units[j]
        if box[x] == 0 and ground[x]:
            dfn[hexes[x]] += defense[x, level[x]]
    goals = np.empty(n, np.int64)
    threat = np.empty(n, np.float64)
    g = 0
    for h in range(n):
        if key[h] and land[h] and control[h] == side:
            th = 0.0
            for d in range(nbr.shape[1]):
                o = nbr[h, d]
                if o >= 0:
                    th += atk[o]
            if th > 0 and dfn[h] < need:
                q = g                                      # insertion: most threat first, then lowest hex
                while q > 0 and threat[q - 1] < th:
                    goals[q] = goals[q - 1]
                    threat[q] = threat[q - 1]
                    q -= 1
                goals[q] = h
                threat[q] = th
                g += 1
    return goals[:g]


@nb.njit(cache=True)
def shore_up_kernel(order, goals, tried, key, holders, box, hexes, level, moved, entered_turn,
                    out_of_supply, morale, turn, night, bonus, may_act, never, utype, move_class,
                    ma_tab, strategic, edge, ocean_side, nbr, land, strat_ok, zoc, blocked, stop,
                    side_units, base, remnant_level, codes, bufs, least, dist):
    """The Allied bot's ``shore_up`` move (rules 6.1-6.6, 9.1, 20.0; see
    :meth:`AlliedBot.next_move`, step 2): for each of ``goals`` in turn, the reserve
    unit of ``order`` not yet tried for it that reaches it with the fewest MP
    (then the lowest unit) moves there; a unit already on the goal, or alone
    on an airfield or victory city, does not.

    Parameters
    ----------
    order : int64[k]
        The reserve candidates, ascending (no leaders, no artillery).
    goals : int64[g]
        :func:`shore_up_goals`.
    tried : bool[k, g]
        Whether each candidate was tried for each goal earlier this phase.
    key : bool[n_hexes]
        Airfields and victory cities.
    holders : int64[n_hexes + 1]
        The bot's holders per hex (:meth:`AlliedBot._holders`).
    box, hexes, level, moved, entered_turn, out_of_supply, morale, turn, night, bonus
        As :func:`reserve_kernel`.
    may_act, never, utype, move_class, ma_tab, strategic, edge, ocean_side, nbr, land
        As :func:`reserve_kernel`.
    strat_ok, zoc, blocked, stop, side_units, base, remnant_level, codes, bufs
        As :func:`reserve_kernel`.
    least, dist
        As :func:`garrison_kernel`: a unit too far from every goal is not searched.

    Returns
    -------
    done : int
        Goals worked through (every candidate tried for each): the index of
        the goal that gets a unit plus one, or ``g``.
    unit, dest_hex : int
        The unit that moves and its goal; -1, -1 when none does.
    """
    n = nbr.shape[0]
    k = order.shape[0]
    room = mv.stack_room_kernel(side_units, box, hexes, level, base, remnant_level, n, _ROOM)
    allowed = land & strat_ok if strategic else land
    g = goals.shape[0]
    searched = np.zeros(k, np.bool_)
    mp_to = np.full((k, g), -1.0)              # MP to each goal per candidate; -1: not a destination
    for gi in range(g):
        goal = goals[gi]
        best_u, best_mp = -1, 0.0
        for i in range(k):
            if tried[i, gi]:
                continue
            u = order[i]
            here = np.int64(hexes[u])
            if here == goal or (key[here] and holders[here] == 1):
                continue
            if not searched[i]:                # nothing moves during this call: one search per unit
                searched[i] = True
                nd = _unit_destinations(
                    u, here, may_act, box, moved, entered_turn, turn, never, utype, ma_tab, move_class,
                    out_of_supply, morale, bonus, night, codes, edge, zoc, blocked, stop, allowed, ocean_side,
                    nbr, room, base, remnant_level, level, bufs, least, dist, goals, g)
                dest, mp = bufs[8], bufs[9]
                if nd < 0:
                    continue                                   # may not move (17.7, 6.0)
                for a in range(nd):
                    for j in range(g):
                        if dest[a] == goals[j]:
                            mp_to[i, j] = mp[a]
            m = mp_to[i, gi]
            if m >= 0 and (best_u < 0 or m < best_mp):
                best_u, best_mp = u, m                                     # ascending: lowest unit on ties
        if best_u >= 0:
            return gi + 1, best_u, goal
    return goals.shape[0], -1, -1


def _allied_move_args(game, mode: str, side: int) -> tuple:
    """The movement arguments :func:`beach_kernel` and :func:`shore_up_kernel`
    share with :func:`reserve_kernel` (from ``box`` to ``remnant_level``,
    ``turn`` to ``stop`` and ``side_units`` in their order)."""
    s = game.state
    never, utype, move_class, ma_tab, _fhq, edges, ocean_side, nbr, land, base, rem, \
        _dist, _ring = _statics(game)
    strategic = mode == "strategic"
    zoc, block, trivial = mv._side_masks(game, side)
    strat_ok = mv.move_area(game, side, mode)
    turn = game.turn
    return (turn, turn % 4 == NIGHT, s.leader_bonus, _may_act(game, side), never, utype, move_class,
            ma_tab, strategic, edges[strategic], ocean_side, nbr, land, strat_ok, zoc, block, trivial,
            mv._side_units(game, side), base, rem, _CODES)


# ------------------------------------------------------------------ the Allied bot's whole move decision
#: rows of the Allied bot's table of candidates tried this phase
#: (:func:`allied_move_kernel`): each unit is tried once a phase for each kind of move
TRIED_BEACH, TRIED_RESERVE, TRIED_REINFORCE, TRIED_GARRISON, TRIED_RETAKE = 0, 1, 2, 3, 4
#: rows of that table
N_TRIED = 5

#: what :func:`allied_move_kernel` answers besides a move: the bot's mobile
#: reserve is not fixed yet and must be, on the position as it stands, before the walk goes on
NEED_RESERVE = 1


@nb.njit(cache=True)
def _untried(units, tried, row):
    """int64[j]: the units of ``units`` (int64[k], order kept) not marked in
    row ``row`` of ``tried`` (bool[N_TRIED, n_units])."""
    out = np.empty(units.shape[0], np.int64)
    k = 0
    for i in range(units.shape[0]):
        u = units[i]
        if not tried[row, u]:
            out[k] = u
            k += 1
    return out[:k]


@nb.njit(cache=True)
def _mark_tried(tried, row, units, upto):
    """Mark the first ``upto`` units of ``units`` in row ``row`` of ``tried``."""
    for i in range(min(upto, units.shape[0])):
        tried[row, units[i]] = True


@nb.njit(cache=True)
def allied_move_kernel(cands, side, beaches, need, reinforce, live, holder_type, reserve_fixed, has_res,
                       res_mask, tried, tried_goal, key_index, key, key_land, obj, d_weak, has_weak,
                       threat, engaged, n_axis_ground, control, enemy_units, box, hexes, level, moved,
                       entered_turn, out_of_supply, morale, defense, attack, ground, fort, fort_destroyed,
                       dist, aa, turn, night, bonus, may_act, never, utype, move_class, ma_tab, strategic,
                       edge, ocean_side, nbr, land, strat_ok, zoc, blocked, stop, side_units, base,
                       remnant_level, codes, least, retake=False):
    """The Allied bot's next move of a movement phase (rules 6.1-6.6, 2.1, 7.1,
    9.1, 17.7, 18.32, 20.0; see :meth:`malta_sim.bots.allied.AlliedBot.next_move`)
    in one call, its kinds of move tried in the bot's order:

    1. with ``beaches`` and live beach hexes: a lone holder of a live beach
       hex stays; then :func:`beach_kernel` over the candidates not yet tried
       for it;
    2. with ``retake`` (the ``retake_empty`` knob), over all the
       candidates: :func:`garrison_kernel`'s retake move onto an empty
       objective the Axis controls (2.1, 20.0);
    3. with a mobile reserve, over the reserve's candidates: with ``need``
       (``shore_up``, not 0) :func:`shore_up_goals` and
       :func:`shore_up_kernel` (each unit tried once a phase per goal);
       :func:`reserve_kernel` closing on the weak Axis stacks (``d_weak``);
       with ``reinforce``, when that moved none, :func:`reserve_kernel`
       toward the threatened held objectives;
    4. :func:`garrison_kernel` over the other candidates.

    Each kind of move tries a unit once a phase: ``tried`` and
    ``tried_goal`` are the bot's records of this phase, updated here as
    each walk tries units (every unit up to the one that moves; all of them
    when none moves; none when a walk has nothing to head for).

    Parameters
    ----------
    cands : int64[k]
        The units the engine offers, ascending.
    side : int
        The bot's side (1, Allied).
    beaches : bool
        The ``beaches`` knob is on.
    need : float
        The ``shore_up`` knob (defense strength; 0: off).
    reinforce : bool
        The ``reinforce`` knob is on.
    live : int64[b]
        The live beach hexes (:meth:`AlliedBot.live_beaches`; empty without ``beaches``).
    holder_type : bool[n_units]
        Pieces whose type may hold a hex (:func:`malta_sim.bots.allied._holder_type_mask`).
    reserve_fixed : bool
        The mobile reserve is fixed (:meth:`AlliedBot.reserve_units`);
        when it is not, the kernel stops after the beach moves and answers
        :data:`NEED_RESERVE`.
    has_res : bool
        The reserve holds at least one unit.
    res_mask : bool[n_units]
        The reserve's units.
    tried : bool[N_TRIED, n_units]
        Rows :data:`TRIED_BEACH`, :data:`TRIED_RESERVE`,
        :data:`TRIED_REINFORCE`, :data:`TRIED_GARRISON`, :data:`TRIED_RETAKE`: units tried this
        phase for each kind of move (updated).
    tried_goal : bool[n_units, K]
        Units tried this phase for each airfield or victory city by the
        shore-up (updated); column ``key_index[h]`` for hex ``h``.
    key_index : int64[n_hexes]
        Column of each airfield or victory city in ``tried_goal``, -1 elsewhere.
    key : bool[n_hexes]
        Airfields and victory cities; ``key_land`` int64[j] those on land, ascending.
    obj : float64[n_hexes]
        Objective weights that never change (victory cities 4, airfields 3, towns 1).
    d_weak : int64[n_hexes]
        Distance of each hex to the nearest weak Axis stack near an
        objective, read when ``has_weak``.
    threat, engaged : int64[n_hexes], bool[n_hexes]
        :meth:`AlliedBot._axis_view`'s ``threat`` and ``engaged``, read when
        ``n_axis_ground`` (its Axis ground units on the map) is not 0.
    control, enemy_units, box, hexes, level, moved, entered_turn, out_of_supply, morale, defense
        As :func:`beach_kernel`.
    attack, ground
        As :func:`shore_up_goals`.
    fort, fort_destroyed, dist, aa
        As :func:`garrison_kernel`.
    turn ... codes
        The movement arguments of :func:`beach_kernel` (as
        :func:`_allied_move_args` gathers them).
    least : int64[4]
        As :func:`garrison_kernel`.
    retake : bool
        The ``retake_empty`` knob (:func:`garrison_kernel`).

    Returns
    -------
    status : int
        0, or :data:`NEED_RESERVE`.
    unit, dest_hex : int
        The move; -1, -1 when the bot moves no unit.
    """
    n = nbr.shape[0]
    bufs = search_buffers(n, ma_tab, bonus)
    held = np.zeros(0, np.int64)
    have_held = False
    # 1. beach hexes (20.0, 18.32)
    if beaches and live.shape[0] > 0:
        held = holders_kernel(side_units, holder_type, box, hexes, defense, level, n)
        have_held = True
        lone = np.zeros(n + 1, np.bool_)       # the last slot: what a hex of -1 reads
        n_lone = 0
        for j in range(live.shape[0]):
            if held[live[j]] == 1 and not lone[live[j]]:
                lone[live[j]] = True
                n_lone += 1
        if n_lone > 0:
            keep = np.empty(cands.shape[0], np.int64)
            k = 0
            for i in range(cands.shape[0]):
                if not lone[hexes[cands[i]]]:
                    keep[k] = cands[i]
                    k += 1
            cands = keep[:k]
        todo = _untried(cands, tried, TRIED_BEACH)
        if todo.shape[0] > 0:
            stop_at, best = beach_kernel(
                todo, side, live, holder_type, held, obj, control, enemy_units, box, hexes, level, moved,
                entered_turn, out_of_supply, morale, defense, turn, night, bonus, may_act, never, utype,
                move_class, ma_tab, strategic, edge, ocean_side, nbr, land, strat_ok, zoc, blocked, stop,
                side_units, base, remnant_level, codes, bufs, least, dist)
            if stop_at >= 0:
                _mark_tried(tried, TRIED_BEACH, todo, stop_at + 1)
                if best >= 0:
                    return 0, todo[stop_at], best
    if not reserve_fixed:
        return NEED_RESERVE, -1, -1
    # 2. with retake: onto an empty objective the enemy holds (2.1, 20.0), any candidate
    if retake:
        todo = _untried(cands, tried, TRIED_RETAKE)
        if todo.shape[0] > 0:
            stop_at, best = garrison_kernel(
                todo, side, box, hexes, level, moved, entered_turn, out_of_supply, morale, turn, night,
                bonus, may_act, ground, never, utype, move_class, ma_tab, strategic, edge, ocean_side,
                nbr, land, strat_ok, zoc, blocked, stop, side_units, enemy_units, base, remnant_level,
                dist, obj, fort, fort_destroyed, control, codes, aa, bufs, least, True)
            if stop_at >= 0:
                _mark_tried(tried, TRIED_RETAKE, todo, stop_at + 1)
                if best >= 0:
                    return 0, todo[stop_at], best
    # 3. the mobile reserve
    if has_res:
        mine = np.empty(cands.shape[0], np.int64)
        k = 0
        for i in range(cands.shape[0]):
            if res_mask[cands[i]]:
                mine[k] = cands[i]
                k += 1
        mine = mine[:k]
        if need != 0.0 and k > 0:                                   # shore-up (9.1, 20.0)
            if not have_held:
                held = holders_kernel(side_units, holder_type, box, hexes, defense, level, n)
            goals = shore_up_goals(side, need, key, land, control, box, hexes, level, ground, side_units,
                                   enemy_units, attack, defense, nbr)
            g = goals.shape[0]
            if g > 0:
                tm = np.zeros((k, g), np.bool_)
                every = True
                for i in range(k):
                    for j in range(g):
                        tm[i, j] = tried_goal[mine[i], key_index[goals[j]]]
                        every = every and tm[i, j]
                if every:                  # every candidate tried for every goal: none moves
                    done, u, dest = g, -1, -1
                else:
                    done, u, dest = shore_up_kernel(
                        mine, goals, tm, key, held, box, hexes, level, moved, entered_turn, out_of_supply,
                        morale, turn, night, bonus, may_act, never, utype, move_class, ma_tab, strategic,
                        edge, ocean_side, nbr, land, strat_ok, zoc, blocked, stop, side_units, base,
                        remnant_level, codes, bufs, least, dist)
                for j in range(done):
                    c = key_index[goals[j]]
                    for i in range(k):
                        tried_goal[mine[i], c] = True
                if u >= 0:
                    return 0, u, dest
        todo = _untried(mine, tried, TRIED_RESERVE)                 # close on weak stacks
        if todo.shape[0] > 0 and has_weak:
            stop_at, best = reserve_kernel(
                todo, CLOSE, d_weak, _NO_STAY, _NO_GOALS, _NO_GOALS, box, hexes, level, moved, entered_turn,
                out_of_supply, morale, turn, night, bonus, may_act, never, utype, move_class, ma_tab,
                strategic, edge, ocean_side, nbr, land, strat_ok, zoc, blocked, stop, side_units, base,
                remnant_level, dist, codes, bufs)
            _mark_tried(tried, TRIED_RESERVE, todo, stop_at + 1)
            if best >= 0:
                return 0, todo[stop_at], best
        if reinforce:                                               # threatened objectives
            todo = _untried(mine, tried, TRIED_REINFORCE)
            if todo.shape[0] > 0 and n_axis_ground > 0:
                goals = np.empty(key_land.shape[0], np.int64)
                gt = np.empty(key_land.shape[0], np.int64)
                g = 0
                for h in key_land:
                    if control[h] == side and threat[h] > 0:
                        goals[g] = h
                        gt[g] = threat[h]
                        g += 1
                if g > 0:
                    stop_at, best = reserve_kernel(
                        todo, GOAL, _NO_DIST, engaged, goals[:g], gt[:g], box, hexes, level, moved,
                        entered_turn, out_of_supply, morale, turn, night, bonus, may_act, never, utype,
                        move_class, ma_tab, strategic, edge, ocean_side, nbr, land, strat_ok, zoc, blocked,
                        stop, side_units, base, remnant_level, dist, codes, bufs)
                    _mark_tried(tried, TRIED_REINFORCE, todo, stop_at + 1)
                    if best >= 0:
                        return 0, todo[stop_at], best
    # 4. garrison the objectives
    others = np.empty(cands.shape[0], np.int64)
    k = 0
    for i in range(cands.shape[0]):
        if not (has_res and res_mask[cands[i]]):
            others[k] = cands[i]
            k += 1
    todo = _untried(others[:k], tried, TRIED_GARRISON)
    if todo.shape[0] > 0:
        stop_at, best = garrison_kernel(
            todo, side, box, hexes, level, moved, entered_turn, out_of_supply, morale, turn, night, bonus,
            may_act, ground, never, utype, move_class, ma_tab, strategic, edge, ocean_side, nbr, land,
            strat_ok, zoc, blocked, stop, side_units, enemy_units, base, remnant_level, dist, obj, fort,
            fort_destroyed, control, codes, aa, bufs, least)
        if stop_at >= 0:
            _mark_tried(tried, TRIED_GARRISON, todo, stop_at + 1)
            if best >= 0:
                return 0, todo[stop_at], best
    return 0, -1, -1


def allied_step(game, mode: str, cands: np.ndarray, side: int, beaches: bool, need: float,
                reinforce: bool, live: np.ndarray, holder_type: np.ndarray, reserve: tuple | None,
                tried: np.ndarray, tried_goal: np.ndarray, key_index: np.ndarray, key: np.ndarray,
                key_land: np.ndarray, obj: np.ndarray, view: dict | None,
                walk: AlliedWalk | None = None, cand_list: list | None = None, retake: bool = False):
    """Run :func:`allied_move_kernel` for movement ``mode`` (rules 6.2, 6.3).

    ``reserve`` is ``(has_res, res_mask)`` once the bot's reserve is fixed,
    else None; ``view`` the bot's :meth:`AlliedBot._axis_view` (None when it
    has no reserve).  The other arguments are as the kernel's.  With
    ``walk`` (and ``cand_list``, the candidates as a list), the decisions
    after the first are made ahead by :func:`allied_walk_kernel` and kept
    in ``walk`` (:class:`AlliedWalk`).

    Returns
    -------
    (int, int, int)
        ``(status, unit, dest_hex)`` as :func:`allied_move_kernel`.
    """
    s, t = game.state, game.static
    if reserve is None:
        fixed, has_res, res_mask = False, False, _NO_STAY
    else:
        fixed, (has_res, res_mask) = True, reserve
    if view is None:
        d_weak, has_weak, threat, engaged, n_ax = _NO_DIST, False, _NO_DIST, _NO_STAY, 0
    else:
        d_weak, threat, engaged = view["d_weak"], view["threat"], view["engaged"]
        has_weak = d_weak is not None
        if not has_weak:
            d_weak = _NO_DIST
        n_ax = len(view["ah"])
    args = (cands, side, beaches, need, reinforce, live, holder_type, fixed, has_res, res_mask, tried,
            tried_goal, key_index, key, key_land, obj, d_weak, has_weak, threat, engaged, n_ax, s.control,
            mv._side_units(game, 1 - side), s.box, s.hex, s.level, s.moved, s.entered_turn, s.out_of_supply,
            s.morale_state, t.defense, t.attack, game.ground_mask, t.fort, s.fort_destroyed,
            t.grid.distance_table, _AA, *_allied_move_args(game, mode, side),
            mv._least_edge_cost(t)[1 if mode == "strategic" else 0], bool(retake))
    if walk is None:
        return allied_move_kernel(*args)
    status, *rows = allied_walk_kernel(ALLIED_WALK_MOVES, *args)
    walk.start(game, allied_walk_key(game, mode), cand_list, rows, mv.move_area(game, side, mode))
    return status, rows[0][0], rows[1][0]


def allied_walk_key(game, mode: str) -> tuple:
    """What an :class:`AlliedWalk` is kept for: the turn, phase and movement mode."""
    return (game.turn, game.phase_name, mode)



#: most decisions one :func:`allied_walk_kernel` call makes ahead for :class:`AlliedWalk`
ALLIED_WALK_MOVES = 8


@nb.njit(cache=True)
def allied_walk_kernel(n_moves, cands, side, beaches, need, reinforce, live, holder_type, reserve_fixed,
                       has_res, res_mask, tried, tried_goal, key_index, key, key_land, obj, d_weak,
                       has_weak, threat, engaged, n_axis_ground, control, enemy_units, box, hexes, level,
                       moved, entered_turn, out_of_supply, morale, defense, attack, ground, fort,
                       fort_destroyed, dist, aa, turn, night, bonus, may_act, never, utype, move_class,
                       ma_tab, strategic, edge, ocean_side, nbr, land, strat_ok, zoc, blocked, stop,
                       side_units, base, remnant_level, codes, least, retake=False):
    """Up to ``n_moves`` decisions of :func:`allied_move_kernel` in a row
    (rules 6.1-6.6, 2.1, 7.1, 9.1, 17.7, 18.32, 20.0): the first on the
    game as given (``tried`` and ``tried_goal`` updated in place, as
    :func:`allied_move_kernel` does), each later one on the position the
    earlier moves leave when executing a move changes only the mover's hex,
    its moved flag and the control of its destination (2.1, 6.1), with the
    mover gone from the candidates.  The walk stops after a decision that
    moves no unit, or one with a status other than 0.

    Parameters
    ----------
    n_moves : int
        Most decisions to make (1: only the first).
    cands ... least, retake
        As :func:`allied_move_kernel`.

    Returns
    -------
    status : int
        The first decision's status (0, or :data:`NEED_RESERVE`).
    units, dests : int64[m]
        The decisions' units and destination hexes, -1 for no move
        (``m`` at most ``n_moves``).
    tried_rows : bool[m, 4, n_units]
        ``tried`` after each decision (row 0 as left in ``tried``).
    goal_rows : bool[m, n_units, K]
        ``tried_goal`` after each decision.
    after_hex : (m, n_units), after_moved : bool[m, n_units], after_control : (m, n_hexes)
        Each piece's hex, moved flag and each hex's control once the moves
        up to each decision are made (the row of a decision that moves no
        unit is the position it was made on).
    """
    n_units = hexes.shape[0]
    units = np.full(n_moves, -1, np.int64)
    dests = np.full(n_moves, -1, np.int64)
    tried_rows = np.empty((n_moves, tried.shape[0], tried.shape[1]), np.bool_)
    goal_rows = np.empty((n_moves, tried_goal.shape[0], tried_goal.shape[1]), np.bool_)
    after_hex = np.empty((n_moves, n_units), hexes.dtype)
    after_moved = np.empty((n_moves, n_units), np.bool_)
    after_control = np.empty((n_moves, control.shape[0]), control.dtype)
    hw, mw, cw = hexes.copy(), moved.copy(), control.copy()
    tw, gw = tried, tried_goal                       # the first decision updates the bot's records
    left = cands
    status = 0
    m = 0
    for r in range(n_moves):
        st_r, u, dest = allied_move_kernel(
            left, side, beaches, need, reinforce, live, holder_type, reserve_fixed, has_res, res_mask, tw,
            gw, key_index, key, key_land, obj, d_weak, has_weak, threat, engaged, n_axis_ground, cw,
            enemy_units, box, hw, level, mw, entered_turn, out_of_supply, morale, defense, attack, ground,
            fort, fort_destroyed, dist, aa, turn, night, bonus, may_act, never, utype, move_class, ma_tab,
            strategic, edge, ocean_side, nbr, land, strat_ok, zoc, blocked, stop, side_units, base,
            remnant_level, codes, least, retake)
        if r == 0:
            status = st_r
        elif st_r != 0:
            break
        units[r], dests[r] = u, dest
        tried_rows[r] = tw
        goal_rows[r] = gw
        if u >= 0:
            hw[u] = dest
            mw[u] = True
            cw[dest] = side
        after_hex[r] = hw
        after_moved[r] = mw
        after_control[r] = cw
        m = r + 1
        if st_r != 0 or u < 0:
            break
        if r == 0:
            tw, gw = tried.copy(), tried_goal.copy()     # later decisions: the walk's own records
        rest = np.empty(left.shape[0], np.int64)
        k = 0
        for i in range(left.shape[0]):
            if left[i] != u:
                rest[k] = left[i]
                k += 1
        left = rest[:k]
    return (status, units[:m], dests[:m], tried_rows[:m], goal_rows[:m], after_hex[:m], after_moved[:m],
            after_control[:m])


class AlliedWalk(_Walk):
    """The decisions an :func:`allied_walk_kernel` call made beyond the first
    (rules 6.1-6.6), handed out one per :meth:`AlliedBot.next_move` call while
    the game stands exactly where the walk assumed it would.

    The walk assumed that executing each move changes only the mover's hex,
    its moved flag and the control of its destination (2.1, 6.1), and that
    the engine offers the candidates less the mover.  Before a later
    decision is handed out, :meth:`take` checks that against the game:
    candidates, every piece's hex and moved flag and every hex's control
    equal the walk's rows, and everything else the kernel read (boxes and
    box slots, levels, entry turns, supply, destroyed forts, the leader
    bonus, the strategic-movement hexes, turn, phase and mode; the Axis
    positions the bot's views and the 17.7 map are made of are among the
    hexes and boxes) is unchanged.  Morale is read only for units not yet
    moved (their allowance, 6.71, 11.4), so a mover disorganized at night by
    its own move (6.71) leaves the walk standing; any other change drops
    the rest of the walk and the bot asks the kernel afresh: the decision is
    the one a fresh call would make either way.  The bot's records of the
    units tried are set to the walk's after the decision handed out.
    """

    __slots__ = ("cands",)

    @staticmethod
    def _fixed(s, strat_ok) -> tuple:
        """The bytes of what the kernel reads that executing a move leaves as
        it is (morale apart: see :meth:`take`)."""
        return (s.box.tobytes(), s.box_slot.tobytes(), s.level.tobytes(), s.entered_turn.tobytes(),
                s.out_of_supply.tobytes(), s.fort_destroyed.tobytes(), s.leader_bonus.tobytes(),
                strat_ok.tobytes())

    def take(self, game, key: tuple, cands: list, strat_ok, tried: tuple):
        """The walk's next decision ``(unit, dest_hex)`` (-1, -1: no move)
        for the candidates ``cands`` (ascending), with the bot's records
        ``tried`` (its two arrays, set here to the walk's), or None when
        there is none or the game is not where the walk assumed."""
        rows = self._rows_for(game, key)
        if rows is None:
            return None
        r = self.r
        units = rows[0]
        after_hex, after_moved, after_control = rows[4], rows[5], rows[6]
        s = game.state
        if (cands != self.cands
                or not _walked_to(s, after_hex[r - 1], after_moved[r - 1], after_control[r - 1],
                                  self._fixed(s, strat_ok), self.fixed, self.morale)):
            return None
        tried[0][...] = rows[2][r]
        tried[1][...] = rows[3][r]
        u = int(units[r])
        if r + 1 < len(units):
            self.rows, self.r = rows, r + 1
            self.cands = [x for x in cands if x != u]
        return u, int(rows[1][r])

    def start(self, game, key: tuple, cands: list, rows: tuple, strat_ok) -> None:
        """Keep the decisions of ``rows`` (:func:`allied_walk_kernel`'s
        answer less its status, for candidates ``cands``) after the first,
        when there are any."""
        units = rows[0]
        if len(units) > 1:
            s = game.state
            u = int(units[0])
            self.game, self.key, self.rows, self.r = game, key, rows, 1
            self.cands = [x for x in cands if x != u]         # what the engine offers next
            self.fixed = self._fixed(s, strat_ok)
            self.morale = s.morale_state.copy()
        else:
            self.rows = None
