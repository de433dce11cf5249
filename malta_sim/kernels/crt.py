"""Combat kernel: modified totals, odds, column shifts, terrain line, CRT result,
hits to step losses and retreats, standing ground (rules 9.3-9.9, 10.2, 11.1-11.2,
8.3-8.4, 12.21-12.22).

All functions are ``@njit(cache=True)`` pure functions on scalars and arrays, so
the land engine can call them from its own compiled loops; plain-Python callers
can call them directly too (numba compiles them on first use).

Odds levels
-----------
Whole-number odds are one integer *level* so a column shift is +-1 (rule 9.3 e):
``n:1`` is level ``n`` and ``1:n`` is level ``2 - n`` (1:1 = 1, 1:2 = 0, 1:3 = -1,
2:1 = 2, 6:1 = 6).  :func:`malta_sim.loaders.iod_charts.level_to_odds_label`
prints them.

Static CRT arrays (from :func:`malta_sim.loaders.iod_charts.load_charts`)
---------------------------------------------------------------------------
``crt`` int8[n_lines, n_cols, 13, 4]
    (attacker hits, attacker effect, defender hits, defender effect) per line,
    column and 2d6 roll (index = roll); effect 0 none, 1 D, 2 Z.
``line_cols`` int32[n_lines, 2]
    lowest and highest column index of each line.
``col_level`` int32[n_cols]
    odds level of each column.

Typical engine call
-------------------
>>> sup = capped_support(sum_of_support_strengths, printed_support, printed_attack, True)  # doctest: +SKIP
>>> a = attack_total(att_strengths, att_oos, att_disorg, att_demor, sup)               # doctest: +SKIP
>>> d = defense_total(def_strengths, def_demor, def_support, city_or_fort)             # doctest: +SKIP
>>> shift = odds_shift(armor_att, armor_def, engineers, n_att_hexes, att_int, def_int,
...                    mixed, att_morale - def_morale, air, att_cmd, def_cmd)         # doctest: +SKIP
>>> col, roll, ah, ae, dh, de = roll_combat(state, a, d, shift, line, fort, crt, line_cols, col_level)  # doctest: +SKIP
>>> a_st, a_rt, d_st, d_rt, a_left, d_left = apply_hits(ah, dh, att_steps, def_steps)  # doctest: +SKIP
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..rng import nb_2d6, nb_die

#: Column index returned when an attack is cancelled (rule 9.3 g).
CANCELLED = -1
#: Odds level used for "no defender strength" / "no attacker strength".
LEVEL_INFINITE = 1000
LEVEL_NONE = -1000


# --------------------------------------------------------------------------
# strengths (9.91, 8.3, 8.4, 11.3, 11.4, 12.21, 12.22, 10.22)
# --------------------------------------------------------------------------
@nb.njit(cache=True)
def ceil_half(x):
    """Half of a non-negative integer, fractions rounded up (rules 9.91, 11.4)."""
    return (x + 1) // 2


@nb.njit(cache=True)
def unit_attack(base, out_of_supply, disorganized, demoralized):
    """Modified attack strength of one unit (rules 9.91, 8.31, 8.4, 11.3, 11.4).

    Demoralized halves (round up) first; then out of supply -1 and disorganized
    -1, never below 1 (rule 8.4 order: the supply penalty comes after halving).
    A unit with attack strength 0 is unaffected.

    Parameters
    ----------
    base : int
        Printed attack strength of the unit's current step.
    out_of_supply, disorganized, demoralized : bool
        Unit state (a unit is never both disorganized and demoralized, 9.9).

    Returns
    -------
    int
    """
    if base <= 0:
        return 0
    s = base
    if demoralized:
        s = ceil_half(s)
    if out_of_supply:
        s = max(1, s - 1)
    if disorganized:
        s = max(1, s - 1)
    return s


@nb.njit(cache=True)
def unit_defense(base, demoralized):
    """Modified defense strength of one unit: halved, round up, when
    demoralized (rules 9.91, 11.4); supply and disorganization do not touch
    defense (8.31)."""
    if base <= 0:
        return 0
    return ceil_half(base) if demoralized else base


@nb.njit(cache=True)
def support_strength(base, out_of_supply, disorganized, demoralized, night,
                     other_formation, against_town_or_city, fire_hurricane, warship):
    """Modified offensive or defensive support strength of one artillery unit or
    warship (rules 9.91, 8.32, 11.3, 11.4, 10.22, 12.22, 12.52, 16.73).

    Order: the unit's own state first -- out of supply -1 (never below 1),
    disorganized -1 (never below 2; 9.91 lists offensive and defensive support,
    11.3 repeats it for offensive) -- a penalty never raises a value already
    under its floor; then a fire hurricane doubles that current offensive
    strength (12.52; not warships, 16.78); then each halving rounds up: night
    (10.22), mixed formation for Axis artillery but not warships (12.22),
    offensive fire against a town or city (9.91).  Demoralized artillery gives
    no support (11.4).

    Parameters
    ----------
    base : int
        Printed support value.
    out_of_supply, disorganized, demoralized, night : bool
    other_formation : bool
        Axis artillery supporting only units of another formation.
    against_town_or_city : bool
        Offensive support into a town or city hex (pass False for defensive).
    fire_hurricane : bool
        Offensive support fired as a fire hurricane.
    warship : bool
        The supporter is a warship.

    Returns
    -------
    int
    """
    if demoralized or base <= 0:
        return 0
    s = base
    if out_of_supply and not warship:
        s = max(1, s - 1) if s >= 1 else s
    if disorganized and not warship:
        s = max(2, s - 1) if s >= 2 else s
    if fire_hurricane and not warship:
        s = 2 * s
    if night:
        s = ceil_half(s)
    if other_formation and not warship:
        s = ceil_half(s)
    if against_town_or_city:
        s = ceil_half(s)
    return s


@nb.njit(cache=True)
def capped_support(support_total, printed_support_total, printed_ground_total, offensive):
    """Apply the support caps of rule 12.21.

    The printed offensive support may not exceed twice the printed attack
    strength of the attacking ground units; the printed defensive support may
    not exceed the printed strength of the defenders.  When the printed total
    is over the cap, the modified total counted is cut to the cap.

    Returns
    -------
    int
        Support strength to add.
    """
    cap = 2 * printed_ground_total if offensive else printed_ground_total
    if printed_support_total <= cap:
        return support_total
    return min(support_total, cap)


@nb.njit(cache=True)
def attack_total(attack, out_of_supply, disorganized, demoralized, support):
    """Modified attack total (rule 9.3 b): sum of :func:`unit_attack` over the
    attackers plus the (already modified and capped) offensive support.

    Parameters
    ----------
    attack : int[n]
        Printed attack strengths of the attacking units.
    out_of_supply, disorganized, demoralized : bool[n]
    support : int
        Offensive support to add (see :func:`support_strength`, :func:`capped_support`).

    Returns
    -------
    int
    """
    t = 0
    for i in range(attack.shape[0]):
        t += unit_attack(attack[i], out_of_supply[i], disorganized[i], demoralized[i])
    return t + support


@nb.njit(cache=True)
def defense_total(defense, demoralized, support, doubled):
    """Modified defense total (rule 9.3 c): sum of :func:`unit_defense`, doubled
    in a city or fort hex (9.91), then plus defensive support (not doubled).

    Parameters
    ----------
    defense : int[n]
    demoralized : bool[n]
    support : int
    doubled : bool
        Defending hex is a city or fort.

    Returns
    -------
    int
    """
    t = 0
    for i in range(defense.shape[0]):
        t += unit_defense(defense[i], demoralized[i])
    if doubled:
        t *= 2
    return t + support


# --------------------------------------------------------------------------
# odds (9.3 d-g, 9.92, 11.1-11.2)
# --------------------------------------------------------------------------
@nb.njit(cache=True)
def basic_odds_level(attack, defense):
    """Basic combat odds as a level, rounded down in the defender's favour
    (rule 9.3 d): 16:4 is 4:1 (level 4), 15:4 is 3:1 (3), 10:25 is 1:3 (-1).

    Returns ``LEVEL_INFINITE`` when ``defense <= 0`` and ``LEVEL_NONE`` when
    ``attack <= 0``.
    """
    if attack <= 0:
        return LEVEL_NONE
    if defense <= 0:
        return LEVEL_INFINITE
    if attack >= defense:
        return attack // defense
    n = (defense + attack - 1) // attack  # 1:n with n = ceil(D/A)
    return 2 - n


@nb.njit(cache=True)
def morale_level(morale):
    """A side's morale level: the mean of its units' current morale, rounded
    up (rule 11.1).  ``morale`` int[n] (already -1 for demoralized, 9.93)."""
    n = morale.shape[0]
    if n == 0:
        return 0
    s = 0
    for i in range(n):
        s += morale[i]
    return -((-s) // n)


@nb.njit(cache=True)
def morale_shift(att_level, def_level):
    """Odds shift from morale (rules 9.92, 11.2): attacker level minus defender
    level, capped at +3 and -2."""
    d = att_level - def_level
    if d > 3:
        return 3
    if d < -2:
        return -2
    return d


@nb.njit(cache=True)
def odds_shift(armor_attacking, armor_defending, engineers_vs_fort, attacking_hexes,
               attacker_integrity, defender_integrity, mixed_formations, morale_diff,
               air_support, attacker_command, defender_command):
    """Total column shift of rule 9.92.

    Parameters
    ----------
    armor_attacking : bool
        Non-demoralized tank attacking stacked with infantry-type units: +2.
    armor_defending : bool
        Same on defence: -1.
    engineers_vs_fort : bool
        Fort defender and every attacking hex has an engineer: +1.
    attacking_hexes : int
        Hexes the (non-artillery) attackers attack from; 4 or more: +1 (envelopment).
    attacker_integrity : bool
        Whole regiment/brigade attacking (rules 9.92, 9.95): +2.
    defender_integrity : bool
        Whole regiment/brigade defending: -1.
    mixed_formations : bool
        Attackers from more than one formation (15.4, remnants 9.95): -1.
    morale_diff : int
        Attacker morale level minus defender level (capped here, 11.2).
    air_support : int
        Air support markers on the hex (16.42): +1 each.
    attacker_command, defender_command : bool
        Leader command rolls succeeded (14.2): +1 / -1.

    Returns
    -------
    int
        Column shift (positive favours the attacker).
    """
    s = 0
    if armor_attacking:
        s += 2
    if armor_defending:
        s -= 1
    if engineers_vs_fort:
        s += 1
    if attacking_hexes >= 4:
        s += 1
    if attacker_integrity:
        s += 2
    if defender_integrity:
        s -= 1
    if mixed_formations:
        s -= 1
    s += morale_shift(morale_diff, 0)
    s += air_support
    if attacker_command:
        s += 1
    if defender_command:
        s -= 1
    return s


@nb.njit(cache=True)
def command_roll(state, tactical_value):
    """Leader command roll (rule 14.2): one die <= tactical value succeeds."""
    return nb_die(state) <= tactical_value


@nb.njit(cache=True)
def terrain_line(hex_lines, line_rank, night, night_line):
    """CRT line for a defending hex (rules 9.3 f, 10.2).

    Parameters
    ----------
    hex_lines : int[k]
        Day line of each terrain in the hex (``-1`` entries ignored).
    line_rank : int32[n_lines]
        Defender rank of each line (larger = more favourable to the defender).
    night : bool
        Night turn: the night line whatever the terrain.
    night_line : int

    Returns
    -------
    int
    """
    if night:
        return night_line
    best = -1
    for i in range(hex_lines.shape[0]):
        li = hex_lines[i]
        if li < 0:
            continue
        if best < 0 or line_rank[li] > line_rank[best]:
            best = li
    return best


@nb.njit(cache=True)
def final_column(level, line, line_cols, col_level):
    """CRT column for final odds ``level`` on ``line`` (rule 9.3 g).

    Rounds down to the next lower column, cancels below the line's lowest
    column (returns ``CANCELLED``), clamps at its highest.
    """
    lo = line_cols[line, 0]
    hi = line_cols[line, 1]
    if level < col_level[lo]:
        return CANCELLED
    if level >= col_level[hi]:
        return hi
    j = lo
    while j < hi and col_level[j + 1] <= level:
        j += 1
    return j


@nb.njit(cache=True)
def combat_column(att_total, def_total, shift, line, line_cols, col_level):
    """Basic odds, plus shifts, to a column (rules 9.3 d, e, g).  ``CANCELLED``
    when the attack has no strength or the odds fall below the line."""
    lv = basic_odds_level(att_total, def_total)
    if lv == LEVEL_NONE:
        return CANCELLED
    if lv != LEVEL_INFINITE:
        lv += shift
    return final_column(lv, line, line_cols, col_level)


@nb.njit(cache=True)
def resolve_combat(att_total, def_total, shift, line, fort, roll, crt, line_cols, col_level):
    """Resolve one attack with a given 2d6 roll (rules 9.3-9.4, 9.94).

    Parameters
    ----------
    att_total, def_total : int
        Modified attack and defense totals (:func:`attack_total`, :func:`defense_total`).
    shift : int
        Total column shift (:func:`odds_shift`).
    line : int
        CRT line (:func:`terrain_line`).
    fort : bool
        Defenders in a fort hex: defender hits reduced by one (9.94).
    roll : int
        2d6 total, 2..12.
    crt, line_cols, col_level : arrays
        Static CRT (module docstring).

    Returns
    -------
    tuple of int
        ``(column, att_hits, att_effect, def_hits, def_effect)``; column is
        ``CANCELLED`` (and the rest 0) when the attack is cancelled.
    """
    col = combat_column(att_total, def_total, shift, line, line_cols, col_level)
    if col == CANCELLED:
        return CANCELLED, 0, 0, 0, 0
    ah, ae, dh, de = crt_cell(crt, line, col, roll, fort)
    return col, ah, ae, dh, de


@nb.njit(cache=True, inline="always")
def crt_cell(crt, line, col, roll, fort):
    """The CRT cell of ``line``, column ``col`` and 2d6 ``roll`` (rule 9.4),
    defender hits reduced by one in a fort hex (9.94).

    Returns
    -------
    tuple of int
        ``(att_hits, att_effect, def_hits, def_effect)``.
    """
    c = crt[line, col, roll]
    dh = np.int64(c[2])
    if fort and dh > 0:
        dh -= 1
    return np.int64(c[0]), np.int64(c[1]), dh, np.int64(c[3])


@nb.njit(cache=True, inline="always")
def roll_combat(state, att_total, def_total, shift, line, fort, crt, line_cols, col_level):
    """:func:`resolve_combat` with the 2d6 drawn from ``state`` (``uint64[4]``,
    the game's ``combat`` stream, advanced in place).  No dice are rolled for a
    cancelled attack.  Returns ``(column, roll, att_hits, att_effect, def_hits,
    def_effect)`` (roll 0 when cancelled)."""
    col = combat_column(att_total, def_total, shift, line, line_cols, col_level)
    if col == CANCELLED:
        return CANCELLED, 0, 0, 0, 0, 0
    roll = nb_2d6(state)
    ah, ae, dh, de = crt_cell(crt, line, col, roll, fort)  # the column is worked out once
    return col, roll, ah, ae, dh, de


@nb.njit(cache=True)
def roll_combat_many(states, att_total, def_total, shift, line, fort, crt, line_cols, col_level, out):
    """Batch of combats, one per game (row ``g`` uses ``states[g]``).

    Parameters
    ----------
    states : uint64[n, 4]
    att_total, def_total, shift, line : int64[n]
    fort : bool[n]
    out : int64[n, 6]
        Filled with the tuple of :func:`roll_combat`.

    :func:`roll_combat` and :func:`crt_cell` are inlined here (numba
    ``inline="always"``) and the tuple is stored field by field: called as
    separate functions, with the tuple copied by index, the loop ran at less
    than half the speed (``benchmarks/bench_kernels.py``).
    """
    for g in range(att_total.shape[0]):
        col, roll, ah, ae, dh, de = roll_combat(states[g], att_total[g], def_total[g], shift[g], line[g], fort[g],
                                                crt, line_cols, col_level)
        out[g, 0] = col
        out[g, 1] = roll
        out[g, 2] = ah
        out[g, 3] = ae
        out[g, 4] = dh
        out[g, 5] = de


# --------------------------------------------------------------------------
# results (9.41-9.43, 9.5, 9.51, 9.94, 9.71)
# --------------------------------------------------------------------------
@nb.njit(cache=True)
def split_hits(hits, defender):
    """Hits to (step losses, retreat hexes) (rules 9.42-9.43): half the hits
    are steps, rounded down for the defender and up for the attacker."""
    steps = hits // 2 if defender else (hits + 1) // 2
    return steps, hits - steps


@nb.njit(cache=True)
def _absorb(hits, defender, available):
    st, rt = split_hits(hits, defender)
    if st >= available:
        # every step gone: nobody is left to retreat (9.42)
        return available, 0, hits - available, st > available
    return st, rt, 0, False


@nb.njit(cache=True)
def apply_hits(att_hits, def_hits, att_steps_available, def_steps_available):
    """Step losses and retreats of both sides in the order of damage (rule
    9.51) with the excess-loss rule (9.42, 9.94).

    The side with more hits takes its losses first (the defender first on a
    tie).  If a side loses every step while step losses are still pending, the
    other side's hits drop by one; when that side has already taken its losses,
    the reduction comes off its retreat.

    Parameters
    ----------
    att_hits, def_hits : int
        Hits from the CRT (defender hits already reduced for a fort, 9.94).
    att_steps_available, def_steps_available : int
        Steps of the attacking units that must take losses and of the defenders.

    Returns
    -------
    tuple of int
        ``(att_steps, att_retreat, def_steps, def_retreat, att_left, def_left)``:
        steps lost, hexes of retreat (0 when the side is wiped out), and hits
        left unabsorbed by a side that lost every step (``def_left`` bounds the
        advance after combat, 9.82).  Standing ground (9.71) is decided after
        this by the engine, per unit.
    """
    if def_hits >= att_hits:
        d_st, d_rt, d_left, d_ex = _absorb(def_hits, True, def_steps_available)
        a_h = att_hits - 1 if (d_ex and att_hits > 0) else att_hits
        a_st, a_rt, a_left, a_ex = _absorb(a_h, False, att_steps_available)
        if a_ex and d_rt > 0:
            d_rt -= 1
    else:
        a_st, a_rt, a_left, a_ex = _absorb(att_hits, False, att_steps_available)
        d_h = def_hits - 1 if (a_ex and def_hits > 0) else def_hits
        d_st, d_rt, d_left, d_ex = _absorb(d_h, True, def_steps_available)
        if d_ex and a_rt > 0:
            a_rt -= 1
    return a_st, a_rt, d_st, d_rt, a_left, d_left


@nb.njit(cache=True)
def stand_ground_roll(state, morale, with_leader):
    """Standing-ground attempt of one unit (rule 9.71): one die, -1 when stacked
    with its formation leader; the unit stands when its current morale is
    greater than the modified die.  Returns ``(stands, die)``."""
    die = nb_die(state)
    mod = die - 1 if with_leader else die
    return morale > mod, die


@nb.njit(cache=True)
def stand_ground_probability(morale, with_leader):
    """Exact probability that :func:`stand_ground_roll` succeeds (rule 9.71)."""
    k = 0
    for die in range(1, 7):
        mod = die - 1 if with_leader else die
        if morale > mod:
            k += 1
    return k / 6.0


@nb.njit(cache=True)
def morale_effect(effect, disorganized, demoralized):
    """New morale state and step loss of one unit hit by a D or Z (rules 9.41,
    11.3, 11.4).

    Parameters
    ----------
    effect : int
        0 none, 1 D, 2 Z.
    disorganized, demoralized : bool
        Current state.

    Returns
    -------
    tuple
        ``(disorganized, demoralized, step_lost)``.  D: normal -> disorganized,
        disorganized -> demoralized, demoralized -> no effect (11.4).  Z:
        -> demoralized; already demoralized -> one step lost.
    """
    if effect == 1:
        if demoralized:
            return False, True, False
        if disorganized:
            return False, True, False
        return True, False, False
    if effect == 2:
        if demoralized:
            return False, True, True
        return False, True, False
    return disorganized, demoralized, False


# --------------------------------------------------------------------------
# plain-Python reference (for tests and the benchmark)
# --------------------------------------------------------------------------
def py_resolve_combat(att_total, def_total, shift, line, fort, roll, crt, line_cols, col_level):
    """Plain-Python twin of :func:`resolve_combat` (same inputs, same output)."""
    att_total, def_total = int(att_total), int(def_total)
    if att_total <= 0:
        return CANCELLED, 0, 0, 0, 0
    if def_total <= 0:
        lv = LEVEL_INFINITE
    elif att_total >= def_total:
        lv = att_total // def_total + shift
    else:
        lv = 2 - (-(-def_total // att_total)) + shift
    lo, hi = int(line_cols[line][0]), int(line_cols[line][1])
    levels = [int(x) for x in col_level]
    if lv < levels[lo]:
        return CANCELLED, 0, 0, 0, 0
    col = max(j for j in range(lo, hi + 1) if levels[j] <= lv)
    ah, ae, dh, de = (int(x) for x in crt[line][col][roll])
    if fort and dh > 0:
        dh -= 1
    return col, ah, ae, dh, de
