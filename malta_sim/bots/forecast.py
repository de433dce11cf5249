"""Compiled attack forecasts of the scripted bots: every candidate target of a
combat plan scored in one call (rules 9.3 b-g, 9.42, 9.43, 9.91, 9.92, 9.94,
12.21, 12.22, 12.52, 16.42, 17.3).

:meth:`malta_sim.bots.axis._ParamBot._score_target` (the plain Python
reference) scores one target at a time: for each candidate group of attackers
(:func:`malta_sim.bots.axis.attack_groups`) it builds the forecast base
(attack and defense strengths, the foreseeable 9.92 column shifts of
:func:`malta_sim.iod.rules.combat.odds_modifiers` without leader
rolls, the CRT line, the fort and the steps of each side), adds support and
air, and reads the exact expected losses of the CRT cell.  :func:`score_targets`
does the same for all targets of a decision at once over the state arrays,
with the same tie-breaks and the same floating-point operations in the same
order, so its answers are bit-for-bit those of the reference.

The expected losses are read from a table (:func:`loss_table`), one per
static data; :func:`malta_sim.bots.axis.expected_losses`, which the plain
Python bots ask, reads the same table, so the sums that decide ties are the
very same floats on both paths.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from malta_sim.iod import static as st
from malta_sim.iod.state import AXIS, DEMORALIZED, DISORGANIZED
from malta_sim.kernels.crt import (CANCELLED, crt_cell, crt_line_of, final_column, hex_defense, split_hits,
                                  support_cap, support_strength, unit_attack, unit_defense)

#: 2d6 probabilities of the totals 2..12.
_P2D6 = np.array([6 - abs(r - 7) for r in range(2, 13)], dtype=np.float64) / 36.0

# the packed static tables and the 9.92 kernels are the engine's
from malta_sim.iod.rules.column_shifts import (_CITY, _COMPANY, _DEF0, _DEF1, _FORT, _LINE,  # noqa: F401
                                                _LINE_NOFORT, _NLEV, _OFFSUP, _PARTNER, _REG, _REM,
                                                _SIDE, _SP, _TANK, _TOWN, _UTYPE, _ENG, _attack_parts,
                                                _side_shifts, combat_tables, odds_parts,
                                                odds_shift_total)


def loss_table(charts) -> tuple:
    """Exact expected losses of every CRT cell (rules 9.42, 9.43, 9.94), for
    every step count up to the most any cell can take.

    Parameters
    ----------
    charts : IodCharts
        Combat charts (``crt`` int8[n_lines, n_cols, 13, 4], ``line_cols``).

    Returns
    -------
    table : float64[n_lines, n_cols, 2, d_max + 1, a_max + 1, 3]
        ``table[line, col, fort, def_steps, att_steps]`` = (E[attacker steps
        lost], E[defender steps lost], E[defender retreat hexes]) over the 2d6
        distribution, the fort (9.94) taking one defender hit off; NaN for
        columns not on the line.  Step counts above ``d_max`` / ``a_max`` give
        the answer of the cap (no cell's hits reach further).
    d_max, a_max : int
        The caps.
    """
    crt = charts.crt
    n_lines, n_cols = crt.shape[0], crt.shape[1]
    cells = []
    d_max = a_max = 0
    for line in range(n_lines):
        lo, hi = int(charts.line_cols[line, 0]), int(charts.line_cols[line, 1])
        for col in range(lo, hi + 1):
            for fort in (0, 1):
                cell = [crt_cell(crt, line, col, roll, bool(fort)) for roll in range(2, 13)]   # 9.4, 9.94
                ah = np.array([c[0] for c in cell], np.int64)
                dh = np.array([c[2] for c in cell], np.int64)
                a_steps = np.array([split_hits(x, False)[0] for x in ah], np.int64)            # 9.43
                d_steps = np.array([split_hits(x, True)[0] for x in dh], np.int64)
                a_max = max(a_max, int(a_steps.max()))
                d_max = max(d_max, int(d_steps.max()) + 1)
                cells.append((line, col, fort, a_steps, d_steps, dh - d_steps))
    out = np.full((n_lines, n_cols, 2, d_max + 1, a_max + 1, 3), np.nan)
    for line, col, fort, a_st, d_st, d_rt in cells:
        for ds in range(d_max + 1):
            for as_ in range(a_max + 1):
                # steps capped at the steps present; no retreat once all are lost (9.42)
                a_steps = np.minimum(a_st, as_)
                d_steps = np.minimum(d_st, ds)
                d_ret = np.where(d_st >= ds, 0, d_rt)
                out[line, col, fort, ds, as_] = (float(_P2D6 @ a_steps), float(_P2D6 @ d_steps),
                                                 float(_P2D6 @ d_ret))
    out.flags.writeable = False
    return out, d_max, a_max


class ForecastTables:
    """Static inputs of :func:`score_targets` for one game data set (unit
    values, regiments, hex terrain, CRT), built once and shared by every game
    that uses that data.

    Attributes
    ----------
    unit : int64[n_units, 13]
        Per unit: tank, armor partner (9.92), regiment (-1 none), remnant
        level (17.31, -1 never), strongpoint (16.24), engineer, unit type,
        side, company, number of levels, offensive support value, takes part
        in the defense of an Axis hex, of an Allied hex (14.0, 16.57).
    attack, defense, morale : int64[n_units, n_levels_max]
        Printed values per unit and level.
    mem_ptr, mem_idx : int64[n_regiments + 1], int64[k]
        Battalions of each regiment or brigade (9.92), as offsets into
        ``mem_idx``.
    hexes : int64[n_hexes, 5]
        Per hex: fort, city, town, day CRT line, day CRT line once the fort is
        destroyed (9.3 f, 17.1).
    line_cols : int64[n_lines, 2], col_level : int64[n_cols]
        CRT columns of each line and odds level of each column (9.3 g).
    night_line : int
        CRT line used at night (10.2).
    losses : float64[...]
        :func:`loss_table`; ``d_max``, ``a_max`` its step caps.
    kargs : tuple
        ``unit, attack, defense, morale, mem_ptr, mem_idx, hexes, line_cols,
        col_level, losses, d_max, a_max``: these arguments of the kernels in
        their order.
    no_hur : bool[4 * n_units]
        All False (no fire hurricane); the kernels only read it.
    """

    def __init__(self, static, tables):
        ct = combat_tables(static)
        n = len(static.utype)
        self.unit, self.attack, self.defense, self.morale = ct.unit, ct.attack, ct.defense, ct.morale
        self.mem_ptr, self.mem_idx, self.hexes = ct.mem_ptr, ct.mem_idx, ct.hexes
        self.line_cols, self.col_level, self.night_line = ct.line_cols, ct.col_level, ct.night_line
        ch = static.charts
        self.losses, self.d_max, self.a_max = loss_table(ch)
        #: the static arguments of the kernels, in their order (``unit`` ... ``a_max``)
        self.kargs = (self.unit, self.attack, self.defense, self.morale, self.mem_ptr,
                      self.mem_idx, self.hexes, self.line_cols, self.col_level, self.losses,
                      self.d_max, self.a_max)
        #: false flags for the supporters of a pick without fire hurricanes (never written)
        self.no_hur = np.zeros(4 * n, np.bool_)


_TABLES: dict = {}


def forecast_tables(game) -> ForecastTables:
    """The :class:`ForecastTables` of ``game``'s static data (built on first
    use; the static object is kept with them so that its id stays its own)."""
    t = game.static
    hit = _TABLES.get(id(t))
    if hit is None or hit[0] is not t:
        if len(_TABLES) > 16:
            _TABLES.clear()
        hit = _TABLES[id(t)] = (t, ForecastTables(t, game.tables))
    return hit[1]


# ------------------------------------------------------------------ compiled forecast
# The helpers below are called once per group of attackers or per gun, with
# many arrays each.  Numba counts a reference to every array argument on
# entry and drops it on exit (two atomic operations each); its pruning pass
# removes the pair only when the function has one way out and reads each
# array on it, and when it passes none of them on to a call that is not
# inlined.  So they are written with one ``return``, no ``break``, a last
# read of their arrays (``_keep``) before it, and the helpers they call with
# arrays inlined (``inline="always"``): the same answers, without the counts
# (which took about 40 % of the forecast kernels' time).
@nb.njit(cache=True, inline="always")
def _support_one(u, target, grp, n, hurricane, unit, hexes, oos, mor, form, night):
    """One unit's offensive support on ``target`` for the attackers ``grp[:n]``
    (:func:`malta_sim.iod.rules.combat.support_value`; rules 9.91,
    8.32, 11.3, 12.22, 10.22, 12.52)."""
    artillery = unit[u, _UTYPE] == st.ARTILLERY
    other = artillery and unit[u, _SIDE] == AXIS
    fu = form[u]
    i = 0
    while other and i < n:
        other = form[grp[i]] != fu
        i += 1
    oos_u = oos[u] != 0
    dis_u = mor[u] == DISORGANIZED
    town = (hexes[target, _CITY] != 0) | (hexes[target, _TOWN] != 0)
    _keep = (grp, unit, hexes, oos, mor, form)  # noqa: F841 (see _regiment_intact)
    return support_strength(unit[u, _OFFSUP], artillery and oos_u, artillery and dis_u, False, night,
                            other, town, hurricane and artillery, not artillery)


#: :func:`malta_sim.iod.static.odds_level` compiled (rule 9.3 d).
_odds_level = st.odds_level


@nb.njit(cache=True, inline="always")
def _value(att, cap, dfn, mods, line, fort, def_steps, att_steps, sp, air, thr, line_cols,
           col_level, losses, d_max, a_max):
    """:func:`malta_sim.bots.axis._base_value`: ``(ok, gain, level)`` of
    a forecast base with ``sp`` support points and ``air`` markers (rules
    9.3 d-g, 9.43, 12.21, 16.42)."""
    lv = _odds_level(att + min(sp, cap), dfn) + mods + air
    col = final_column(lv, line, line_cols, col_level)
    ok = False
    gain = -np.inf
    if not (col == CANCELLED or dfn <= 0):             # 9.3 g: below the lowest column
        f = 1 if fort else 0
        ds = min(max(def_steps, 0), d_max)
        as_ = min(max(att_steps, 0), a_max)
        e0 = losses[line, col, f, ds, as_, 0]
        e1 = losses[line, col, f, ds, as_, 1]
        e2 = losses[line, col, f, ds, as_, 2]
        gain = e1 + thr[3] * e2 - thr[2] * e0
        ok = lv >= thr[0] and gain >= thr[1]
    _keep = (thr, line_cols, col_level, losses)  # noqa: F841 (see _regiment_intact)
    return ok, gain, lv


@nb.njit(cache=True)
def score_targets(side, night, night_line, thr, plan_mode, whole, tgts, u_ptr, u_idx, s_ptr, s_idx,
                  s_hur, airs, unit, attack_tab, defense_tab, morale_tab, mem_ptr, mem_idx, hexes,
                  line_cols, col_level, losses, d_max, a_max, hexa, box, lev, mor, oos, form,
                  fort_destroyed, lost, out_grp, out_base):
    """Best attack on each of several targets (rules 9.3 a-g, 9.91, 9.92,
    9.94, 12.21, 12.22, 16.42, 17.3): for each target the best of its
    candidate attacker groups (all units; each formation's units alone when
    more than one formation, in order of their lowest unit) by ``(ok, gain)``,
    the first best kept, as :meth:`malta_sim.bots.axis._ParamBot._score_target`.

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
        (:func:`malta_sim.bots.axis._forecast_base`).

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
        dfn = hex_defense(dfn, hexes[target, _CITY] != 0, fort)               # 9.91
        d_armor = d_intact = False
        tot_d = 0
        if nd:                                   # the defenders' 9.92 facts, for every group
            d_armor, d_intact, tot_d = _side_shifts(dfd, nd, unit, morale_tab, mem_ptr, mem_idx,
                                                    lost, hexa, box, mor, lev, scratch)
        line = crt_line_of(night, night_line, fort_destroyed[target], hexes[target, _LINE],
                           hexes[target, _LINE_NOFORT])                          # 9.3 f, 10.2
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
                    arty_sum += _support_one(u, target, units, nu, False, unit, hexes, oos, mor,
                                             form, night)
                elif n_ships < 3:
                    n_ships += 1
                    ship_sum += _support_one(u, target, units, nu, False, unit, hexes, oos, mor,
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
            printed = 0
            att_steps = 0
            for j in range(ng):
                u = grp[j]
                base = attack_tab[u, lev[u]]
                att += unit_attack(base, oos[u] != 0, mor[u] == DISORGANIZED, mor[u] == DEMORALIZED)
                printed += base
                att_steps += 1 if unit[u, _COMPANY] else unit[u, _NLEV] - lev[u]
            cap = support_cap(True, printed, 0)                                 # 12.21
            mods = 0
            if nd:
                p = _attack_parts(grp, ng, nd, d_armor, d_intact, tot_d, fort, unit, morale_tab,
                                  mem_ptr, mem_idx, lost, hexa, box, mor, lev, form, scratch)
                mods = p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7]
            sp = 0
            for j in range(ns):
                sp += _support_one(sup[j], target, grp, ng, hur[j], unit, hexes, oos, mor, form,
                                   night)
            ok, gain, lv = _value(att, cap, dfn, mods, line, fort, def_steps, att_steps, sp, air,
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
def plan_targets(side, night, night_line, thr, tgts, u_ptr, u_idx, s_ptr, s_idx, s_hok, air_one,
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
    are those of :meth:`malta_sim.bots.axis._ParamBot._place_support`.

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
    ok, gain, _lv = score_targets(side, night, night_line, thr, True, False, tgts, u_ptr, u_idx, s_ptr,
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
            sv[nc] = _support_one(u, target, grp, ng, False, unit, hexes, oos, mor, form, night)
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
        _o, cur, _l = _value(att, cap, dfn, mods, line, fort, def_steps, att_steps, 0, 0, thr,
                             line_cols, col_level, losses, d_max, a_max)
        sp = 0
        o = s_ptr[i]
        nch = 0
        for j in range(np_):
            _o, g2, _l = _value(att, cap, dfn, mods, line, fort, def_steps, att_steps,
                                sp + pool_sv[j], 0, thr, line_cols, col_level, losses, d_max,
                                a_max)
            if g2 > cur + 1e-9:
                out_sup[o + nch] = pool[j]
                out_hur[o + nch] = False
                nch += 1
                sp += pool_sv[j]
                cur = g2
        if allow_hurricane:
            if _odds_level(att + min(sp, cap), dfn) + mods < thr[0]:
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
                sp_h += _support_one(out_sup[o + j], target, grp, ng, out_hur[o + j], unit, hexes,
                                     oos, mor, form, night)
            _o, g0, _l = _value(att, cap, dfn, mods, line, fort, def_steps, att_steps, sp_h, 0,
                                thr, line_cols, col_level, losses, d_max, a_max)
            _o, g1, _l = _value(att, cap, dfn, mods, line, fort, def_steps, att_steps, sp_h, 1,
                                thr, line_cols, col_level, losses, d_max, a_max)
            if g1 > g0 + 0.05:
                air[i] = True
                air_left -= 1
    return order[:n], n_sup, air


@nb.njit(cache=True)
def best_attack(side, night, night_line, thr, tgts, u_ptr, u_idx, s_ptr, s_idx, s_hur, airs,
                unit, attack_tab, defense_tab, morale_tab, mem_ptr, mem_idx, hexes, line_cols,
                col_level, losses, d_max, a_max, hexa, box, lev, mor, oos, form, fort_destroyed,
                lost, out_grp, out_base):
    """The attack a scripted bot makes next (rules 9.3 a-g, 9.91, 9.92,
    12.21, 12.22, 12.52, 16.42): every target scored as by
    :func:`score_targets` (not in ``plan_mode``; the support, fire
    hurricanes and air markers as given), then the first target, in the
    order of ``tgts``, with the highest expected gain among those that pass
    ``min_odds`` and ``min_gain``, as
    :meth:`malta_sim.bots.axis._ParamBot._pick_attack`.

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
    ok, gain, _lv = score_targets(side, night, night_line, thr, False, False, tgts, u_ptr, u_idx,
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
