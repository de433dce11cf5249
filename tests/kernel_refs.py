"""Reference versions of compiled kernels, kept as they were before their
faster rewrites (the walk's and the garrison move's reach searches, the
attack forecast), so that ``tests/test_perf6_kernels.py`` and
``benchmarks/kernel_replay.py --vs`` can check and time the new kernels
against them on every call of whole games.  Each takes the arguments of the
kernel it stands for (an argument added since is taken and not read).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from malta_sim.games.island_of_death import movement as mv
from malta_sim.games.island_of_death.state import DEMORALIZED
from malta_sim.policies.axis import _best_step, _goal_hex
from malta_sim.policies.move_choice import _AA, DONE, MOVE, PYTHON, _ROOM  # noqa: F401

@nb.njit(cache=True)
def _allowance_ref(u, box, moved, entered_turn, turn, never, utype, ma_tab, level, move_class,
               out_of_supply, morale, bonus, night, codes):
    """Movement allowance of Axis combat unit ``u`` this phase in MP, -1 when
    it may not move: :func:`movement._ma_if_movable` for a piece that is no
    artillery and no leader (rules 6.0, 6.53, 6.54, 8.33, 11.4, 14.1, 6.71,
    16.13, 17.81, 19.8)."""
    if box[u] != 0 or moved[u]:
        return -1
    if never[u] or entered_turn[u] == turn:
        return -1
    if utype[u] == codes[0]:
        ma = 14                                        # 14.3
    else:
        ma = np.int64(ma_tab[u, level[u]])
        if ma <= 0:
            return -1
        foot = move_class[u] == codes[3]
        if out_of_supply[u] and not foot:
            ma = max(1, ma - 2)                        # 8.33
        if morale[u] == DEMORALIZED:
            ma = max(1, ma - (2 if foot else 4))       # 11.4
    ma += np.int64(bonus[u])                           # 14.1
    if morale[u] == DEMORALIZED and night:
        ma = -(-ma // 2)                               # 6.71
    return ma



@nb.njit(cache=True)
def _formation_distance_ref(h, u, f, side_units, box, formation, ground, utype, codes, dist, hexes):
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
def _objectives_ref(control, weights, obj):
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
def axis_walk_ref(order, box, hexes, level, moved, hitched, entered_turn, out_of_supply, morale,
                     formation, turn, night, bonus, ground, never, utype, move_class, ma_tab,
                     formation_hq, strategic, edge, ocean_side, nbr, land, strat_ok, zoc,
                     blocked, stop, side_units, base, remnant_level, dist, ring, weights, control,
                     enemy_units, envelop_w, decay, radius, codes, max_moves):
    """The walk of :func:`malta_sim.policies.move_choice.axis_walk_kernel` as it stood
    before the sparse reach searches (``ring`` not read): the reference."""
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
    # what the bot reads of the whole position (AxisBot._move_setup): the
    # objectives it does not hold, the hexes of enemy ground units
    obj = np.empty(n, np.float64)
    gh = _objectives_ref(control, weights, obj)
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
            near_here = _formation_distance_ref(here, u, f, side_units, box, formation, ground,
                                            utype, codes, dist, hexes)
            if near_here == 1 << 30 or near_here <= 4:
                continue
            ma = _allowance_ref(u, box, moved, entered_turn, turn, never, utype, ma_tab, level,
                            move_class, out_of_supply, morale, bonus, night, codes)
            if ma < 0:
                continue
            dest, mp, pred, k = _destinations_ref(u, here, ma, move_class, edge, zoc, blocked, stop,
                                              allowed, ocean_side, nbr, room, base, remnant_level,
                                              level)
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
                nh = _formation_distance_ref(h, u, f, side_units, box, formation, ground, utype,
                                         codes, dist, hexes)
                c = mp[a]
                if best < 0 or nh < best_near or (nh == best_near and c < best_cost):
                    best, best_near, best_cost = h, nh, c          # dest ascending: lowest hex on ties
            if best < 0 or best_near >= near_here:
                continue
        else:
            if gh.shape[0] == 0:
                continue
            goal = _goal_hex(obj, gh, dist[here], decay)
            d_here = np.int64(dist[here, goal])
            if d_here == 0:
                continue
            ma = _allowance_ref(u, box, moved, entered_turn, turn, never, utype, ma_tab, level,
                            move_class, out_of_supply, morale, bonus, night, codes)
            if ma < 0:
                continue
            dest, mp, pred, k = _destinations_ref(u, here, ma, move_class, edge, zoc, blocked, stop,
                                              allowed, ocean_side, nbr, room, base, remnant_level,
                                              level)
            if k == 0:
                continue
            f = np.int64(formation[u])
            anchor = -1
            if 0 <= f < nf:
                hq = np.int64(formation_hq[f])
                if hq >= 0 and box[hq] == 0 and hexes[hq] >= 0:
                    anchor = np.int64(hexes[hq])
            best = _best_step(dist, dest[:k], mp[:k], goal, d_here, anchor, radius, ehex, envelop)
            if best < 0:
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
        # the position it leaves (movement.execute_move): the mover in its
        # destination, moved; the hexes it entered controlled by the Axis
        # (2.1); its stacking weight moved with it (7.1)
        w = 1 if level[u] == remnant_level[u] else base[u]
        room[here] += w
        room[best] -= w
        for j in range(plen):
            control[paths[m, j]] = 0
        hexes[u] = best
        moved[u] = True
        after_hex[m] = hexes
        after_moved[m] = moved
        after_control[m] = control
        m += 1
        if m == max_moves:
            return steps[:m], dests, mps, preds, after_hex, after_moved, after_control, paths
        gh = _objectives_ref(control, weights, obj)
    steps[m, 0], steps[m, 1], steps[m, 2] = order.shape[0], DONE, -1
    return steps[:m + 1], dests, mps, preds, after_hex, after_moved, after_control, paths



@nb.njit(cache=True)
def _destinations_ref(u, here, ma, move_class, edge, zoc, blocked, stop, allowed, ocean_side, nbr, room,
                  base, remnant_level, level):
    """Legal destinations of unit ``u`` (not a leader, not artillery) from
    hex ``here`` with ``ma`` MP: :func:`movement.legal_kernel`'s search
    (rules 5.2, 6.1-6.3, 6.53) and stacking test (7.1) with the side's
    stacking ``room`` per hex (int32[n_hexes], before the mover) given.
    Returns ``(dest int64[n], mp float64[n], pred int32[n], k)``: the first
    ``k`` entries of ``dest``/``mp`` are the hexes (ascending) and MP."""
    n = nbr.shape[0]
    cls = np.int64(move_class[u])
    cost, pred = mv.reach_core(here, 2 * ma, cls, edge[cls + 1], zoc, blocked, stop, allowed,
                               ocean_side, nbr, mv.ZOC_ENTER, mv.ZOC_EXIT)
    w = 1 if level[u] == remnant_level[u] else np.int64(base[u])     # 7.1, 17.31
    dest = np.empty(n, np.int64)
    mp = np.empty(n, np.float64)
    k = 0
    for h in range(n):
        if h != here and cost[h] < (1 << 28) and room[h] - w >= 0:
            dest[k] = h
            mp[k] = cost[h] / 2.0
            k += 1
    return dest, mp, pred, k



@nb.njit(cache=True)
def garrison_ref(order, side, box, hexes, level, moved, entered_turn, out_of_supply, morale, turn,
                    night, bonus, may_act, ground, never, utype, move_class, ma_tab,
                    strategic, edge, ocean_side, nbr, land, strat_ok, zoc, blocked, stop,
                    side_units, enemy_units, base, remnant_level, dist, static_val, fort,
                    fort_destroyed, control, codes, aa):
    """:func:`malta_sim.policies.move_choice.garrison_kernel` as it stood before
    its allowance took the piece's entries as scalars: the reference."""
    n = nbr.shape[0]
    empty_i = np.zeros(0, np.int64)
    empty_f = np.zeros(0, np.float64)
    empty_p = np.zeros(0, np.int32)
    val = np.zeros(n, np.float64)
    for h in range(n):
        if control[h] == side and land[h]:
            v = static_val[h]
            if fort[h] and not fort_destroyed[h]:
                v = v + 2.0
            val[h] = v
    occupied = np.zeros(n, np.bool_)
    for j in range(side_units.shape[0]):
        x = side_units[j]
        if box[x] == 0 and ground[x]:
            occupied[hexes[x]] = True
    n_empty = 0
    for h in range(n):
        if val[h] > 0 and not occupied[h]:
            n_empty += 1
    if n_empty == 0:
        return -1, -1, empty_i, empty_f, empty_p
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
        if ut == codes[0] or ut == codes[1] or ut == codes[2] or ut == aa or val[here] > 0:
            continue
        near = False
        for j in range(ne):
            if dist[eh[j], here] <= 1:
                near = True
                break
        if near:
            continue
        if not may_act[here]:
            continue
        ma = _allowance_ref(u, box, moved, entered_turn, turn, never, utype, ma_tab, level, move_class,
                        out_of_supply, morale, bonus, night, codes)
        if ma < 0:
            continue
        dest, mp, pred, k = _destinations_ref(u, here, ma, move_class, edge, zoc, blocked, stop, allowed,
                                          ocean_side, nbr, room, base, remnant_level, level)
        best, best_val, best_mp = -1, 0.0, 0.0
        for a in range(k):
            h = dest[a]
            if val[h] > 0 and not occupied[h]:
                if best < 0 or val[h] > best_val or (val[h] == best_val and mp[a] < best_mp):
                    best, best_val, best_mp = h, val[h], mp[a]     # ascending: lowest hex on ties
        if best >= 0:
            return i, best, dest[:k], mp[:k], pred
    return order.shape[0], -1, empty_i, empty_f, empty_p


# ---------------------------------------------------------------- attack forecast (policies.forecast)
from malta_sim.games.island_of_death import static as st  # noqa: E402
from malta_sim.games.island_of_death.state import AXIS, BOX_MAP, DISORGANIZED  # noqa: E402
from malta_sim.games.island_of_death.combat_options import attack_options_kernel, by_target_hex  # noqa: E402
from malta_sim.kernels.crt import support_strength, unit_attack, unit_defense  # noqa: E402
from malta_sim.policies.forecast import (_CITY, _COMPANY, _DEF0, _DEF1, _ENG, _FORT, _LINE,  # noqa: E402
                                         _LINE_NOFORT, _NLEV, _OFFSUP, _PARTNER, _REG, _REM, _SIDE,
                                         _SP, _TANK, _TOWN, _UTYPE)

@nb.njit(cache=True)
def _regiment_intact_ref(r, grp, n, unit, mem_ptr, mem_idx, lost, box, mor, lev):
    """Rules 9.92, 9.95, 17.32: regiment ``r`` has battalions, all among
    ``grp[:n]``, on the map, none demoralized or a remnant, and its integrity
    is not lost."""
    a, b = mem_ptr[r], mem_ptr[r + 1]
    if a == b or lost[r]:
        return False
    for k in range(a, b):
        m = mem_idx[k]
        found = False
        for i in range(n):
            if grp[i] == m:
                found = True
                break
        if not found:
            return False
        rem = unit[m, _REM]
        if box[m] != BOX_MAP or mor[m] == DEMORALIZED or (rem >= 0 and lev[m] == rem):
            return False
    return True


@nb.njit(cache=True)
def _side_shifts_ref(grp, n, unit, morale_tab, mem_ptr, mem_idx, lost, hexa, box, mor, lev, scratch):
    """The 9.92 facts of one side of a combat (``grp[:n]`` its units): armor
    (a non-demoralized tank and a partner in one hex), intact regiment, morale
    total (16.24 strongpoints 4, 11.4 demoralized -1) and the number of units.
    ``scratch`` int64[>= n] is working space."""
    armor = False
    for i in range(n):
        u = grp[i]
        if unit[u, _TANK] and mor[u] != DEMORALIZED:
            h = hexa[u]
            for j in range(n):
                if unit[grp[j], _PARTNER] and hexa[grp[j]] == h:
                    armor = True
                    break
            if armor:
                break
    intact = False
    nr = 0
    for i in range(n):
        r = unit[grp[i], _REG]
        if r < 0:
            continue
        seen = False
        for j in range(nr):
            if scratch[j] == r:
                seen = True
                break
        if seen:
            continue
        scratch[nr] = r
        nr += 1
        if _regiment_intact_ref(r, grp, n, unit, mem_ptr, mem_idx, lost, box, mor, lev):
            intact = True
            break
    tot = 0
    for i in range(n):
        u = grp[i]
        v = 4 if unit[u, _SP] else morale_tab[u, lev[u]]
        tot += v - 1 if mor[u] == DEMORALIZED else v
    return armor, intact, tot


@nb.njit(cache=True)
def odds_parts_ref(grp, n, dfd, nd, target, fort, unit, morale_tab, mem_ptr, mem_idx, lost, hexa, box,
               mor, lev, form, scratch):
    """The 9.92 odds-level modifiers, one by one, of an attack by ``grp[:n]``
    on the defenders ``dfd[:nd]`` in hex ``target``, leader rolls and air
    support left out: the entries of
    :func:`malta_sim.games.island_of_death.combat.odds_modifiers` (rules 9.92,
    11.2, 11.4, 16.24, 17.32).

    Parameters
    ----------
    grp : int64[>= n]
        Attacking units.
    dfd : int64[>= nd]
        Defending units.
    target : int
        Dense index of the attacked hex.
    fort : bool
        Undestroyed fort in the target hex (engineers +1).
    unit, morale_tab, mem_ptr, mem_idx : arrays
        :class:`ForecastTables` fields.
    lost : bool[n_regiments]
        ``integrity_lost[0]`` (9.95).
    hexa, box, mor, lev, form : int[n_units]
        Unit hex, box, morale state, level and formation.
    scratch : int64[>= max(n, nd)]
        Working space.

    Returns
    -------
    tuple of 8 int
        Odds levels for: attacking armor (+2), defending armor (-1),
        engineers against a fort (+1), envelopment from four hexes (+1),
        attacker integrity (+2), defender integrity (-1), mixed formations
        (-1) and the morale difference (-2..+3); 0 where the modifier does
        not apply.
    """
    d_armor, d_intact, tot_d = _side_shifts_ref(dfd, nd, unit, morale_tab, mem_ptr, mem_idx, lost,
                                            hexa, box, mor, lev, scratch)
    return _attack_parts_ref(grp, n, nd, d_armor, d_intact, tot_d, fort, unit, morale_tab, mem_ptr,
                         mem_idx, lost, hexa, box, mor, lev, form, scratch)


@nb.njit(cache=True)
def _attack_parts_ref(grp, n, nd, d_armor, d_intact, tot_d, fort, unit, morale_tab, mem_ptr, mem_idx,
                  lost, hexa, box, mor, lev, form, scratch):
    """:func:`odds_parts` with the defending side's 9.92 facts given
    (``nd`` defenders; ``d_armor``, ``d_intact``, ``tot_d`` from
    :func:`_side_shifts` of the defenders), so that the groups of attackers
    of one target share them (rules 9.92, 11.2, 11.4, 16.24, 17.32)."""
    a_armor, a_intact, tot_a = _side_shifts_ref(grp, n, unit, morale_tab, mem_ptr, mem_idx, lost,
                                            hexa, box, mor, lev, scratch)
    # distinct attacker hexes; engineers in each of them (9.92 vs a fort)
    nh = 0
    all_eng = True
    for i in range(n):
        h = hexa[grp[i]]
        seen = False
        for j in range(i):
            if hexa[grp[j]] == h:
                seen = True
                break
        if seen:
            continue
        nh += 1
        eng = False
        for j in range(n):
            if hexa[grp[j]] == h and unit[grp[j], _ENG]:
                eng = True
                break
        if not eng:
            all_eng = False
    # mixed formations (17.32: each remnant counts as its own formation)
    keys = 0
    for i in range(n):
        u = grp[i]
        rem = unit[u, _REM]
        if rem >= 0 and lev[u] == rem:
            keys += 1
        else:
            f = form[u]
            seen = False
            for j in range(i):
                w = grp[j]
                rw = unit[w, _REM]
                if not (rw >= 0 and lev[w] == rw) and form[w] == f:
                    seen = True
                    break
            if not seen:
                keys += 1
    ca = -(-tot_a // n) if n else 0
    cd = -(-tot_d // nd) if nd else 0
    diff = ca - cd
    morale = min(3, max(-2, diff)) if diff else 0
    return (2 if a_armor else 0, -1 if d_armor else 0, 1 if fort and all_eng else 0,
            1 if nh >= 4 else 0, 2 if a_intact else 0, -1 if d_intact else 0,
            -1 if keys > 1 else 0, morale)


@nb.njit(cache=True)
def odds_shift_total_ref(grp, n, dfd, nd, target, fort, unit, morale_tab, mem_ptr, mem_idx, lost,
                     hexa, box, mor, lev, form, scratch):
    """Sum of the 9.92 odds-level modifiers an attack by ``grp[:n]`` on the
    defenders ``dfd[:nd]`` in hex ``target`` gets without leader rolls and
    air support: the values of
    :func:`malta_sim.games.island_of_death.combat.odds_modifiers` with
    ``roll_leaders=False``, ``air=0`` (rules 9.92, 11.2, 16.24, 17.32).

    Parameters
    ----------
    grp : int64[>= n]
        Attacking units (distinct).
    dfd : int64[>= nd]
        Defending units.
    target : int
        Dense index of the attacked hex.
    fort : bool
        Undestroyed fort in the target hex (engineers +1).
    unit, morale_tab, mem_ptr, mem_idx : arrays
        :class:`ForecastTables` fields.
    lost : bool[n_regiments]
        ``integrity_lost[0]`` (9.95).
    hexa, box, mor, lev, form : int[n_units]
        Unit hex, box, morale state, level and formation.
    scratch : int64[>= n_units]
        Working space.

    Returns
    -------
    int
        Total column shift in odds levels.
    """
    p = odds_parts_ref(grp, n, dfd, nd, target, fort, unit, morale_tab, mem_ptr, mem_idx, lost, hexa,
                   box, mor, lev, form, scratch)
    return p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7]


@nb.njit(cache=True)
def _support_one_ref(u, target, grp, n, hurricane, unit, hexes, oos, mor, form, night):
    """One unit's offensive support on ``target`` for the attackers ``grp[:n]``
    (:func:`malta_sim.games.island_of_death.combat.support_value`; rules 9.91,
    8.32, 11.3, 12.22, 10.22, 12.52)."""
    artillery = unit[u, _UTYPE] == st.ARTILLERY
    other = False
    if artillery and unit[u, _SIDE] == AXIS:
        other = True
        for i in range(n):
            if form[grp[i]] == form[u]:
                other = False
                break
    return support_strength(unit[u, _OFFSUP], artillery and oos[u] != 0,
                            artillery and mor[u] == DISORGANIZED, False, night, other,
                            hexes[target, _CITY] != 0 or hexes[target, _TOWN] != 0,
                            hurricane and artillery, not artillery)


#: :func:`malta_sim.games.island_of_death.static.odds_level` compiled (rule 9.3 d).
_odds_level_ref = nb.njit(cache=True)(st.odds_level)


@nb.njit(cache=True)
def _value_ref(att, cap, dfn, mods, line, fort, def_steps, att_steps, sp, air, thr, line_cols,
           col_level, losses, d_max, a_max):
    """:func:`malta_sim.policies.axis._base_value`: ``(ok, gain, level)`` of
    a forecast base with ``sp`` support points and ``air`` markers (rules
    9.3 d-g, 9.43, 12.21, 16.42)."""
    lv = _odds_level_ref(att + min(sp, cap), dfn) + mods + air
    lo, hi = line_cols[line, 0], line_cols[line, 1]
    if lv < col_level[lo] or dfn <= 0:                 # 9.3 g: below the lowest column
        return False, -np.inf, lv
    col = lo
    for k in range(lo, hi + 1):
        if col_level[k] <= lv:
            col = k
    f = 1 if fort else 0
    ds = min(max(def_steps, 0), d_max)
    as_ = min(max(att_steps, 0), a_max)
    e0 = losses[line, col, f, ds, as_, 0]
    e1 = losses[line, col, f, ds, as_, 1]
    e2 = losses[line, col, f, ds, as_, 2]
    gain = e1 + thr[3] * e2 - thr[2] * e0
    return lv >= thr[0] and gain >= thr[1], gain, lv


@nb.njit(cache=True)
def score_targets_ref(side, night, night_line, thr, plan_mode, whole, tgts, u_ptr, u_idx, s_ptr, s_idx,
                  s_hur, airs, unit, attack_tab, defense_tab, morale_tab, mem_ptr, mem_idx, hexes,
                  line_cols, col_level, losses, d_max, a_max, hexa, box, lev, mor, oos, form,
                  fort_destroyed, lost, out_grp, out_base):
    """Best attack on each of several targets (rules 9.3 a-g, 9.91, 9.92,
    9.94, 12.21, 12.22, 16.42, 17.3): for each target the best of its
    candidate attacker groups (all units; each formation's units alone when
    more than one formation, in order of their lowest unit) by ``(ok, gain)``,
    the first best kept, as :meth:`malta_sim.policies.axis._ParamBot._score_target`.

    Parameters
    ----------
    side : int
        Attacking side.
    night : bool
        Night turn (9.3 f, 10.2, 10.22).
    night_line : int
        CRT line at night.
    thr : float64[4]
        ``min_odds``, ``min_gain``, ``risk_weight``, ``retreat_value``.
    plan_mode : bool
        True: step 9.2 a scoring, the support offered is all of
        ``s_idx`` and each target uses its artillery, or its first three
        warships (16.74) when these support more (judged against all the
        target's units); no fire hurricanes.  False: the support given is
        used as it is, ``s_hur`` marking fire hurricanes (12.52).
    whole : bool
        True: each target's units are one group (no formation groups), as
        given by a caller that chose the groups itself.
    tgts : int64[k]
        Target hexes (dense indices).
    u_ptr, u_idx : int64[k + 1], int64[m]
        Candidate attackers of each target (offsets into ``u_idx``).
    s_ptr, s_idx, s_hur : int64[k + 1], int64[p], bool[p]
        Supporting artillery and warships of each target and their fire
        hurricane flags.
    airs : int64[k]
        Air support markers per target (16.42).
    unit ... a_max : arrays
        :class:`ForecastTables` fields.
    hexa, box, lev, mor, oos, form : int[n_units]
        Unit state (hex, box, level, morale state, out of supply, formation).
    fort_destroyed : bool[n_hexes]
    lost : bool[n_regiments]
        ``integrity_lost[0]``.
    out_grp : int64[m]
        Written: the best group of each target, from ``u_ptr[i]`` on, in
        ascending unit order.
    out_base : int64[k, 9]
        Written per target: the best group's size, then its forecast base
        ``att, cap, dfn, mods, line, fort, def_steps, att_steps``
        (:func:`malta_sim.policies.axis._forecast_base`).

    Returns
    -------
    ok : bool[k]
    gain : float64[k]
        Expected gain in steps (``-inf`` when cancelled or undefended).
    level : int64[k]
        Final odds level.
    """
    k = tgts.shape[0]
    n_units = hexa.shape[0]
    ok_out = np.zeros(k, np.bool_)
    gain_out = np.empty(k, np.float64)
    lv_out = np.zeros(k, np.int64)
    scratch = np.empty(n_units, np.int64)
    dfd = np.empty(n_units, np.int64)
    grp = np.empty(n_units, np.int64)
    units = np.empty(n_units, np.int64)
    forms = np.empty(n_units, np.int64)
    sup = np.empty(n_units, np.int64)
    hur = np.zeros(n_units, np.bool_)
    enemy_col = _DEF1 if side == AXIS else _DEF0
    # the pieces on the map that take part in the enemy's defense, ascending
    # (one pass for all targets)
    enemy = np.empty(n_units, np.int64)
    ne = 0
    for u in range(n_units):
        if hexa[u] >= 0 and unit[u, enemy_col]:
            enemy[ne] = u
            ne += 1
    for i in range(k):
        target = tgts[i]
        # ---- the defending side (9.91, 9.94, 17.3, 9.3 f)
        nd = 0
        dfn = 0
        def_steps = 0
        for q in range(ne):
            u = enemy[q]
            if hexa[u] == target:
                dfd[nd] = u
                nd += 1
                dfn += unit_defense(defense_tab[u, lev[u]], mor[u] == DEMORALIZED)
                def_steps += 1 if unit[u, _COMPANY] else unit[u, _NLEV] - lev[u]
        fort = hexes[target, _FORT] != 0 and not fort_destroyed[target]
        if hexes[target, _CITY] or fort:
            dfn *= 2
        d_armor = d_intact = False
        tot_d = 0
        if nd:                                   # the defenders' 9.92 facts, for every group
            d_armor, d_intact, tot_d = _side_shifts_ref(dfd, nd, unit, morale_tab, mem_ptr, mem_idx,
                                                    lost, hexa, box, mor, lev, scratch)
        if night:
            line = night_line
        elif fort_destroyed[target]:
            line = hexes[target, _LINE_NOFORT]
        else:
            line = hexes[target, _LINE]
        # ---- candidate attackers, ascending
        nu = 0
        for j in range(u_ptr[i], u_ptr[i + 1]):          # insertion sort (few units)
            v = u_idx[j]
            m = nu
            while m > 0 and units[m - 1] > v:
                units[m] = units[m - 1]
                m -= 1
            units[m] = v
            nu += 1
        # ---- the support used
        ns = 0
        if plan_mode:
            arty_sum = 0
            ship_sum = 0
            n_ships = 0
            for j in range(s_ptr[i], s_ptr[i + 1]):
                u = s_idx[j]
                if unit[u, _UTYPE] != st.WARSHIP:
                    arty_sum += _support_one_ref(u, target, units, nu, False, unit, hexes, oos, mor,
                                             form, night)
                elif n_ships < 3:
                    n_ships += 1
                    ship_sum += _support_one_ref(u, target, units, nu, False, unit, hexes, oos, mor,
                                             form, night)
            use_arty = arty_sum >= ship_sum
            n_ships = 0
            for j in range(s_ptr[i], s_ptr[i + 1]):
                u = s_idx[j]
                if unit[u, _UTYPE] != st.WARSHIP:
                    if use_arty:
                        sup[ns] = u
                        hur[ns] = False
                        ns += 1
                elif n_ships < 3:
                    n_ships += 1
                    if not use_arty:
                        sup[ns] = u
                        hur[ns] = False
                        ns += 1
        else:
            for j in range(s_ptr[i], s_ptr[i + 1]):
                sup[ns] = s_idx[j]
                hur[ns] = s_hur[j]
                ns += 1
        air = airs[i]
        # ---- formations in order of their lowest unit
        nf = 0
        for j in range(nu):
            f = form[units[j]]
            seen = False
            for q in range(nf):
                if forms[q] == f:
                    seen = True
                    break
            if not seen:
                forms[nf] = f
                nf += 1
        n_groups = 1 if nf <= 1 or whole else 1 + nf
        have = False
        b_ok = False
        b_gain = 0.0
        b_lv = 0
        for g in range(n_groups):
            ng = 0
            for j in range(nu):
                if g == 0 or form[units[j]] == forms[g - 1]:
                    grp[ng] = units[j]
                    ng += 1
            att = 0
            cap = 0
            att_steps = 0
            for j in range(ng):
                u = grp[j]
                base = attack_tab[u, lev[u]]
                att += unit_attack(base, oos[u] != 0, mor[u] == DISORGANIZED, mor[u] == DEMORALIZED)
                cap += base
                att_steps += 1 if unit[u, _COMPANY] else unit[u, _NLEV] - lev[u]
            cap *= 2
            mods = 0
            if nd:
                p = _attack_parts_ref(grp, ng, nd, d_armor, d_intact, tot_d, fort, unit, morale_tab,
                                  mem_ptr, mem_idx, lost, hexa, box, mor, lev, form, scratch)
                mods = p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7]
            sp = 0
            for j in range(ns):
                sp += _support_one_ref(sup[j], target, grp, ng, hur[j], unit, hexes, oos, mor, form,
                                   night)
            ok, gain, lv = _value_ref(att, cap, dfn, mods, line, fort, def_steps, att_steps, sp, air,
                                  thr, line_cols, col_level, losses, d_max, a_max)
            if not have or (ok and not b_ok) or (ok == b_ok and gain > b_gain):
                have = True
                b_ok, b_gain, b_lv = ok, gain, lv
                o = u_ptr[i]
                for j in range(ng):
                    out_grp[o + j] = grp[j]
                out_base[i, 0] = ng
                out_base[i, 1] = att
                out_base[i, 2] = cap
                out_base[i, 3] = dfn
                out_base[i, 4] = mods
                out_base[i, 5] = line
                out_base[i, 6] = 1 if fort else 0
                out_base[i, 7] = def_steps
                out_base[i, 8] = att_steps
        ok_out[i] = b_ok
        gain_out[i] = b_gain
        lv_out[i] = b_lv
    return ok_out, gain_out, lv_out


@nb.njit(cache=True)
def plan_targets_ref(side, night, night_line, thr, tgts, u_ptr, u_idx, s_ptr, s_idx, s_hok, air_one,
                 air_markers, allow_hurricane, unit, attack_tab, defense_tab, morale_tab, mem_ptr,
                 mem_idx, hexes, line_cols, col_level, losses, d_max, a_max, hexa, box, lev, mor,
                 oos, form, fort_destroyed, lost, out_grp, out_base, out_sup, out_hur):
    """A whole step 9.2 a plan in one call (rules 9.2 a, 9.3, 9.91, 9.92,
    12.21, 12.22, 12.52, 16.42, 16.74): every target scored as by
    :func:`score_targets` in ``plan_mode`` (with ``air_one`` air markers),
    then, best gain first (ties: lower hex), each attack that passes takes
    the guns of its target not used by a better one, best support first, as
    long as each still raises the expected gain by more than 1e-9 steps (its
    artillery, or its first three warships when these support more); those
    with two salvos fire a hurricane when ``allow_hurricane`` and the attack
    stays below ``min_odds``; one air marker goes to the attack while markers
    last when it adds more than 0.05 steps.  The operations and their order
    are those of :meth:`malta_sim.policies.axis._ParamBot._place_support`.

    Parameters
    ----------
    side ... s_idx : as :func:`score_targets`
        (``s_idx`` the artillery and warships offered per target, in the
        order offered).
    s_hok : bool[p]
        Per offered supporter: it may fire a fire hurricane (12.52).
    air_one : int
        Air markers assumed when scoring (``min(1, markers left)``).
    air_markers : int
        Air support markers to place (16.41).
    allow_hurricane : bool
    unit ... lost : arrays
        As :func:`score_targets`.
    out_grp, out_base : int64 arrays
        Written as by :func:`score_targets`.
    out_sup : int64[p]
        Written: the guns each target takes, from ``s_ptr[i]`` on.
    out_hur : bool[p]
        Written alongside ``out_sup``: the gun fires a hurricane.

    Returns
    -------
    order : int64[n]
        The targets (indices into ``tgts``) that pass, in the order their
        support was placed.
    n_sup : int64[k]
        Guns taken per target.
    air : bool[k]
        An air marker placed on the target.
    """
    k = tgts.shape[0]
    n_units = hexa.shape[0]
    airs = np.full(k, air_one, np.int64)
    s_hur = np.zeros(s_idx.shape[0], np.bool_)
    ok, gain, _lv = score_targets_ref(side, night, night_line, thr, True, False, tgts, u_ptr, u_idx, s_ptr,
                                  s_idx, s_hur, airs, unit, attack_tab, defense_tab, morale_tab,
                                  mem_ptr, mem_idx, hexes, line_cols, col_level, losses, d_max,
                                  a_max, hexa, box, lev, mor, oos, form, fort_destroyed, lost,
                                  out_grp, out_base)
    # passing targets, highest gain first, then lowest hex (insertion sort)
    order = np.empty(k, np.int64)
    n = 0
    for i in range(k):
        if not ok[i]:
            continue
        j = n
        while j > 0:
            p = order[j - 1]
            if gain[p] > gain[i] or (gain[p] == gain[i] and tgts[p] < tgts[i]):
                break
            order[j] = p
            j -= 1
        order[j] = i
        n += 1
    n_sup = np.zeros(k, np.int64)
    air = np.zeros(k, np.bool_)
    used = np.zeros(n_units, np.bool_)
    cand = np.empty(n_units, np.int64)
    cand_hok = np.zeros(n_units, np.bool_)
    sv = np.empty(n_units, np.int64)
    pool = np.empty(n_units, np.int64)
    pool_hok = np.zeros(n_units, np.bool_)
    pool_sv = np.empty(n_units, np.int64)
    air_left = air_markers
    for q in range(n):
        i = order[q]
        target = tgts[i]
        ng = out_base[i, 0]
        grp = out_grp[u_ptr[i]:u_ptr[i] + ng]
        att, cap, dfn, mods = out_base[i, 1], out_base[i, 2], out_base[i, 3], out_base[i, 4]
        line, fort = out_base[i, 5], out_base[i, 6] != 0
        def_steps, att_steps = out_base[i, 7], out_base[i, 8]
        # the guns offered and not yet used, their support for this group
        nc = 0
        for j in range(s_ptr[i], s_ptr[i + 1]):
            u = s_idx[j]
            if used[u]:
                continue
            cand[nc] = u
            cand_hok[nc] = s_hok[j]
            sv[nc] = _support_one_ref(u, target, grp, ng, False, unit, hexes, oos, mor, form, night)
            nc += 1
        # artillery by support, highest first (stable), or the first three warships
        na = 0
        arty_sum = 0
        for j in range(nc):
            if unit[cand[j], _UTYPE] == st.WARSHIP:
                continue
            v = sv[j]
            arty_sum += v
            m = na
            while m > 0 and -pool_sv[m - 1] > -v:
                pool[m] = pool[m - 1]
                pool_sv[m] = pool_sv[m - 1]
                pool_hok[m] = pool_hok[m - 1]
                m -= 1
            pool[m] = cand[j]
            pool_sv[m] = v
            pool_hok[m] = cand_hok[j]
            na += 1
        ship_sum = 0
        n_ships = 0
        for j in range(nc):
            if unit[cand[j], _UTYPE] == st.WARSHIP and n_ships < 3:
                ship_sum += sv[j]
                n_ships += 1
        np_ = na
        if not arty_sum >= ship_sum:
            np_ = 0
            for j in range(nc):
                if unit[cand[j], _UTYPE] == st.WARSHIP and np_ < 3:
                    pool[np_] = cand[j]
                    pool_sv[np_] = sv[j]
                    pool_hok[np_] = cand_hok[j]
                    np_ += 1
        # add guns while they still help
        _o, cur, _l = _value_ref(att, cap, dfn, mods, line, fort, def_steps, att_steps, 0, 0, thr,
                             line_cols, col_level, losses, d_max, a_max)
        sp = 0
        o = s_ptr[i]
        nch = 0
        for j in range(np_):
            _o, g2, _l = _value_ref(att, cap, dfn, mods, line, fort, def_steps, att_steps,
                                sp + pool_sv[j], 0, thr, line_cols, col_level, losses, d_max,
                                a_max)
            if g2 > cur + 1e-9:
                out_sup[o + nch] = pool[j]
                out_hur[o + nch] = False
                nch += 1
                sp += pool_sv[j]
                cur = g2
        if allow_hurricane:
            if _odds_level_ref(att + min(sp, cap), dfn) + mods < thr[0]:
                for j in range(nch):
                    for m in range(np_):
                        if pool[m] == out_sup[o + j]:
                            out_hur[o + j] = pool_hok[m]
                            break
        for j in range(nch):
            used[out_sup[o + j]] = True
        n_sup[i] = nch
        if air_left > 0:
            sp_h = 0
            for j in range(nch):
                sp_h += _support_one_ref(out_sup[o + j], target, grp, ng, out_hur[o + j], unit, hexes,
                                     oos, mor, form, night)
            _o, g0, _l = _value_ref(att, cap, dfn, mods, line, fort, def_steps, att_steps, sp_h, 0,
                                thr, line_cols, col_level, losses, d_max, a_max)
            _o, g1, _l = _value_ref(att, cap, dfn, mods, line, fort, def_steps, att_steps, sp_h, 1,
                                thr, line_cols, col_level, losses, d_max, a_max)
            if g1 > g0 + 0.05:
                air[i] = True
                air_left -= 1
    return order[:n], n_sup, air


@nb.njit(cache=True)
def best_attack_ref(side, night, night_line, thr, tgts, u_ptr, u_idx, s_ptr, s_idx, s_hur, airs,
                unit, attack_tab, defense_tab, morale_tab, mem_ptr, mem_idx, hexes, line_cols,
                col_level, losses, d_max, a_max, hexa, box, lev, mor, oos, form, fort_destroyed,
                lost, out_grp, out_base):
    """The attack a scripted bot makes next (rules 9.3 a-g, 9.91, 9.92,
    12.21, 12.22, 12.52, 16.42): every target scored as by
    :func:`score_targets` (not in ``plan_mode``; the support, fire
    hurricanes and air markers as given), then the first target, in the
    order of ``tgts``, with the highest expected gain among those that pass
    ``min_odds`` and ``min_gain``, as
    :meth:`malta_sim.policies.axis._ParamBot._pick_attack`.

    Parameters
    ----------
    side ... lost : as :func:`score_targets`
    out_grp : int64[>= u_ptr[-1]]
        Working space; on return the chosen group sits from
        ``u_ptr[best]`` on, in ascending unit order.
    out_base : int64[>= k, 9]
        Working space (:func:`score_targets`).

    Returns
    -------
    best : int
        Index into ``tgts`` of the attack to make, -1 when none passes.
    size : int
        Number of units in its group (0 when none).
    """
    ok, gain, _lv = score_targets_ref(side, night, night_line, thr, False, False, tgts, u_ptr, u_idx,
                                  s_ptr, s_idx, s_hur, airs, unit, attack_tab, defense_tab,
                                  morale_tab, mem_ptr, mem_idx, hexes, line_cols, col_level,
                                  losses, d_max, a_max, hexa, box, lev, mor, oos, form,
                                  fort_destroyed, lost, out_grp, out_base)
    best = -1
    for i in range(tgts.shape[0]):
        if ok[i] and (best < 0 or gain[i] > gain[best]):
            best = i
    if best < 0:
        return -1, 0
    return best, out_base[best, 0]


@nb.njit(cache=True)
def options_and_pick_ref(side, night, night_line, thr, box, attacked, entered_turn, mor, lev, hexa,
                     can_type, attack_printed, defends_enemy, defense_printed, adj, turn, fired,
                     p_tgt, p_ptr, p_idx, p_hur, a_tgt, a_n, unit, attack_tab, defense_tab,
                     morale_tab, mem_ptr, mem_idx, hexes, line_cols, col_level, losses, d_max,
                     a_max, oos, form, fort_destroyed, lost):
    """One step 9.3 a decision in one call: the attack options of ``side``
    (:func:`malta_sim.games.island_of_death.combat.attack_options`; rules
    9.11, 9.13, 9.15, 9.16, 10.21) and the attack a scripted bot makes among
    them (:func:`best_attack` with the inputs
    :meth:`malta_sim.policies.axis._ParamBot._pick_compiled` builds: the
    targets in hex order, their attackers in unit order, the planned
    supporters that have not fired with their fire hurricanes, 12.52, and the
    planned air markers, 16.42).

    Parameters
    ----------
    side, night, night_line, thr : as :func:`score_targets`
    box, attacked, entered_turn, mor, lev, hexa : arrays [n_units]
        Unit state (box, attacked this phase, turn of arrival, morale state,
        level, hex).
    can_type : bool[n_units]
        ``StaticTables.attacker_side[side]``.
    attack_printed, defense_printed : int8[n_units, n_levels]
        Printed attack and defense strengths per level.
    defends_enemy : bool[n_units]
        ``StaticTables.defends_side[1 - side]``.
    adj : int64[n_hexes, 6]
        ``StaticTables.adj_table``.
    turn : int
    fired : bool[n_units]
        Pieces that have fired this phase.
    p_tgt, p_ptr, p_idx, p_hur : int64[P], int64[P + 1], int64[Q], bool[Q]
        The plan's support: target hexes, their guns (offsets into
        ``p_idx``, in the plan's order) and whether each fires a hurricane.
    a_tgt, a_n : int64[R], int64[R]
        The plan's air markers: target hexes and markers per target.
    unit ... a_max : arrays
        :class:`ForecastTables` fields (``attack_tab``, ``defense_tab``
        int64 copies of the printed tables).
    oos, form : arrays [n_units]
        Out of supply, formation.
    fort_destroyed : bool[n_hexes]
    lost : bool[n_regiments]
        ``integrity_lost[0]``.

    Returns
    -------
    status : int
        0: no attack option (no target is next to a unit that may attack);
        -1: options, but no attack passes ``min_odds`` and ``min_gain``;
        1: ``target`` and ``group`` are the attack to make.
    target : int
        Target hex (-1 unless ``status`` is 1).
    group : int64[g]
        Attacking units, ascending (empty unless ``status`` is 1).
    """
    order, start, units = attack_options_kernel(False, np.zeros(0, np.int64), box, attacked,
                                                entered_turn, mor, lev, hexa, can_type,
                                                attack_printed, defends_enemy, defense_printed,
                                                adj, turn, night)
    k = order.shape[0]
    if k == 0:
        return 0, -1, np.zeros(0, np.int64)
    tgts, u_ptr, u_idx = by_target_hex(order, start, units)   # targets in hex order (distinct)
    # the planned support that has not fired, and the air markers, per target
    s_ptr = np.zeros(k + 1, np.int64)
    s_idx = np.empty(p_idx.shape[0], np.int64)
    s_hur = np.zeros(p_idx.shape[0], np.bool_)
    airs = np.zeros(k, np.int64)
    m = 0
    for i in range(k):
        t = tgts[i]
        for j in range(p_tgt.shape[0]):
            if p_tgt[j] == t:
                for q in range(p_ptr[j], p_ptr[j + 1]):
                    u = p_idx[q]
                    if not fired[u]:
                        s_idx[m] = u
                        s_hur[m] = p_hur[q]
                        m += 1
                break
        s_ptr[i + 1] = m
        for j in range(a_tgt.shape[0]):
            if a_tgt[j] == t:
                airs[i] = a_n[j]
                break
    out_grp = np.empty(u_idx.shape[0], np.int64)
    best, size = best_attack_ref(side, night, night_line, thr, tgts, u_ptr, u_idx, s_ptr, s_idx[:m],
                             s_hur[:m], airs, unit, attack_tab, defense_tab, morale_tab, mem_ptr,
                             mem_idx, hexes, line_cols, col_level, losses, d_max, a_max, hexa, box,
                             lev, mor, oos, form, fort_destroyed, lost, out_grp,
                             np.empty((k, 9), np.int64))
    if best < 0:
        return -1, -1, np.zeros(0, np.int64)
    o = u_ptr[best]
    return 1, tgts[best], out_grp[o:o + size].copy()
