"""The one implementation of the combat arithmetic of rules 9.3-9.9 and 12.2
that the engine, the bots' forecasts and the exact odds calculators share:
unit strengths (9.91, 8.3-8.4, 11.3-11.4), support strength (12.22, 12.52,
10.22), a hex's defense (9.91) and the support cap (12.21), basic odds
(9.3 d), the CRT line (9.3 f, 10.2), column (9.3 g) and cell (9.4, 9.94), hits
to step losses and retreats with the order of damage and the excess-loss
rule (9.42, 9.43, 9.51), standing ground (9.71).

All functions are ``@njit(cache=True)`` pure functions of scalars and arrays:
compiled code calls them directly, and so does Python (numba compiles them on
first use).  The odds-level modifiers of 9.92 are
:mod:`malta_sim.iod.rules.column_shifts`.

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

Typical call
------------
>>> col, roll, ah, ae, dh, de = roll_combat(state, att, dfn, shift, line, fort, crt, line_cols, col_level)  # doctest: +SKIP
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
def hex_defense(total, city, fort_standing):
    """Defense strength of the pieces defending a hex (rule 9.91): ``total``,
    the sum of their modified defense strengths (:func:`unit_defense`),
    doubled in a city hex or behind a fort not yet destroyed (17.1).

    Parameters
    ----------
    total : int
    city, fort_standing : bool
        The hex is a city; it holds a fort that stands.

    Returns
    -------
    int
    """
    if city or fort_standing:
        return 2 * total
    return total


@nb.njit(cache=True)
def support_cap(offensive, printed_attack, printed_defense):
    """Most support points an attack or a defense may add (rules 12.21,
    16.74): twice the attackers' printed attack strength (``offensive``), or
    the defenders' printed defense strength; the modified support total is
    cut to it.  Printed strengths are those of the pieces' present level.

    Parameters
    ----------
    offensive : bool
        Offensive support (else defensive).
    printed_attack, printed_defense : int
        Sums of the attacking units' printed attack strengths and of the
        defending units' printed defense strengths.

    Returns
    -------
    int
    """
    if offensive:
        return 2 * printed_attack
    return printed_defense


@nb.njit(cache=True)
def crt_line_of(night, night_line, fort_destroyed, day_line, day_line_nofort):
    """CRT line of an attack on a hex (rules 9.3 f, 10.2, 17.1): the night
    line at night whatever the terrain; by day the hex's line
    (``day_line``), or once its fort is destroyed its line without the fort
    (``day_line_nofort``).  Ints and bools in, an int out."""
    if night:
        return night_line
    if fort_destroyed:
        return day_line_nofort
    return day_line


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


@nb.njit(cache=True, inline="always")
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
def _absorb(hits, defender, available, steps_only=False):
    if steps_only:
        st, rt = hits, 0                              # 19.51: every hit a step loss
    else:
        st, rt = split_hits(hits, defender)
    if st >= available:
        # every step gone: nobody is left to retreat (9.42)
        return available, 0, hits - available, st > available
    return st, rt, 0, False


@nb.njit(cache=True)
def apply_hits(att_hits, def_hits, att_steps_available, def_steps_available, attacker_steps_only=False):
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
    attacker_steps_only : bool
        Every attacker hit is a step loss, none a retreat (a hostile landing,
        rule 19.51).

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
        a_st, a_rt, a_left, a_ex = _absorb(a_h, False, att_steps_available, attacker_steps_only)
        if a_ex and d_rt > 0:
            d_rt -= 1
    else:
        a_st, a_rt, a_left, a_ex = _absorb(att_hits, False, att_steps_available, attacker_steps_only)
        d_h = def_hits - 1 if (a_ex and def_hits > 0) else def_hits
        d_st, d_rt, d_left, d_ex = _absorb(d_h, True, def_steps_available)
        if d_ex and a_rt > 0:
            a_rt -= 1
    return a_st, a_rt, d_st, d_rt, a_left, d_left


@nb.njit(cache=True)
def stands_ground(die, morale, with_leader):
    """Rule 9.71: a unit attempting to stand its ground stands when its
    current morale is greater than the die, less one when it is stacked with
    its formation leader."""
    mod = die - 1 if with_leader else die
    return morale > mod


@nb.njit(cache=True)
def stand_ground_roll(state, morale, with_leader):
    """Standing-ground attempt of one unit (rule 9.71) with a die drawn from
    ``state``: ``(stands, die)`` (:func:`stands_ground`)."""
    die = nb_die(state)
    return stands_ground(die, morale, with_leader), die


@nb.njit(cache=True)
def stand_ground_probability(morale, with_leader):
    """Exact probability that a unit stands its ground (rule 9.71,
    :func:`stands_ground` over the six faces of the die)."""
    k = 0
    for die in range(1, 7):
        if stands_ground(die, morale, with_leader):
            k += 1
    return k / 6.0


# --------------------------------------------------------------------------
# plain-Python reference (for tests and the benchmark)
# --------------------------------------------------------------------------
