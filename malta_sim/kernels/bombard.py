"""Bombardment kernel (rules 10.1, 10.11-10.14).

Static arrays from :func:`malta_sim.loaders.iod_charts.load_charts`:
``bomb`` int8[n_stacks, n_cols, 13] (result code per stacking row, strength
column and 2d6 roll: 0 ``-``, 1 D, 2 Z, 3 one step, 4 two steps),
``bomb_columns`` int32[n_cols] (strength heading each column) and
``bomb_min_strength`` int32[n_stacks] (least effective strength per row; row
``s`` is ``s + 1`` battalions, the last row "that many or more").
"""

from __future__ import annotations

import numba as nb

from ..rng import nb_2d6

INEFFECTIVE = -1
RESULT_NONE, RESULT_D, RESULT_Z, RESULT_1, RESULT_2 = 0, 1, 2, 3, 4


@nb.njit(cache=True)
def bombard_strength(support_total, halved):
    """Bombardment strength (rule 10.12): the sum of the bombarding units'
    offensive support (already modified per unit: supply, disorganization,
    night, fire hurricane), halved with fractions up when the target hex's
    terrain halves artillery (town, city; 9.91, TEC)."""
    if halved:
        return (support_total + 1) // 2
    return support_total


@nb.njit(cache=True)
def stacking_total(battalions, remnants, companies, hqs):
    """Stacking total of the target hex in battalions (rules 10.12, 7.1).

    One HQ counts as a company, three companies as a battalion, a remnant as
    half a battalion; fractions round up.  Leaders, coastal guns and militia do
    not count (7.1).

    Returns
    -------
    int
    """
    sixths = 6 * battalions + 3 * remnants + 2 * (companies + hqs)
    return (sixths + 5) // 6


@nb.njit(cache=True)
def bombard_shift(enemy_artillery, fort, not_adjacent_to_friendly, only_tanks):
    """Column shift of rule 10.12: +1 enemy artillery in the hex, -1 fort,
    -1 target not adjacent to any friendly unit, -1 only tanks in the hex."""
    s = 0
    if enemy_artillery:
        s += 1
    if fort:
        s -= 1
    if not_adjacent_to_friendly:
        s -= 1
    if only_tanks:
        s -= 1
    return s


@nb.njit(cache=True)
def bombard_column(strength, stack, shift, bomb_columns, bomb_min_strength):
    """Bombardment Table row and column (rule 10.12).

    Parameters
    ----------
    strength : int
        Bombardment strength (:func:`bombard_strength`).
    stack : int
        Stacking total in battalions (:func:`stacking_total`); values above
        the last row use the last row.
    shift : int
        Column shift (:func:`bombard_shift`).

    Returns
    -------
    tuple of int
        ``(row, column)``; column ``INEFFECTIVE`` when the strength is below the
        row's minimum, there is no target, or no column is low enough.  A shift
        left past the first column stays on the first column; right past the
        last stays on the last (our reading; the rule says only "shift").
    """
    if stack <= 0:
        return 0, INEFFECTIVE
    n_rows = bomb_min_strength.shape[0]
    row = min(stack, n_rows) - 1
    if strength < bomb_min_strength[row] or strength < bomb_columns[0]:
        return row, INEFFECTIVE
    j = 0
    n = bomb_columns.shape[0]
    while j + 1 < n and bomb_columns[j + 1] <= strength:
        j += 1
    j += shift
    if j < 0:
        j = 0
    if j > n - 1:
        j = n - 1
    return row, j


@nb.njit(cache=True)
def resolve_bombardment(strength, stack, shift, roll, bomb, bomb_columns, bomb_min_strength):
    """Bombardment result for a given 2d6 roll (rule 10.12).

    Returns
    -------
    tuple of int
        ``(column, result)``; ``(INEFFECTIVE, 0)`` for ineffective fire.
    """
    row, col = bombard_column(strength, stack, shift, bomb_columns, bomb_min_strength)
    if col == INEFFECTIVE:
        return INEFFECTIVE, RESULT_NONE
    return col, bomb[row, col, roll]


@nb.njit(cache=True, inline="always")
def roll_bombardment(state, strength, stack, shift, bomb, bomb_columns, bomb_min_strength):
    """:func:`resolve_bombardment` with 2d6 drawn from ``state`` (the game's
    ``bombardment`` stream).  No dice for ineffective fire.  Returns
    ``(column, roll, result)``."""
    row, col = bombard_column(strength, stack, shift, bomb_columns, bomb_min_strength)
    if col == INEFFECTIVE:
        return INEFFECTIVE, 0, RESULT_NONE
    roll = nb_2d6(state)
    return col, roll, bomb[row, col, roll]


@nb.njit(cache=True)
def bombard_steps_lost(result, steps_in_hex, demoralized_units):
    """Steps eliminated by one bombardment result, capped by rule 10.14.

    Parameters
    ----------
    result : int
        Result code.
    steps_in_hex : int
        Steps of all units in the target hex.
    demoralized_units : int
        Units already demoralized (each loses a step on a Z).

    Returns
    -------
    int
        Steps lost: ``1`` / ``2`` for those results, the demoralized units on a
        Z, 0 otherwise; never more than half the steps in the hex, rounded up.
    """
    if result == RESULT_1:
        lost = 1
    elif result == RESULT_2:
        lost = 2
    elif result == RESULT_Z:
        lost = demoralized_units
    else:
        lost = 0
    cap = (steps_in_hex + 1) // 2
    return min(lost, cap, steps_in_hex)


