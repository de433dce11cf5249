"""Amphibious landings (rule 18): wave-box limits, landing losses, combat at the
water's edge, beach movement.

This module holds the rule kernels (compiled, drawing from a per-game
``uint64[4]`` state) and their exact probabilities; the phase driver that moves
units between the Follow-up / First Wave / Second Wave boxes and the beach
lives in :mod:`.hercules` (``amphibious_landing_phase``), so this file can be
tested on constructed positions without a whole game.

Wave-box limits (18.31, 18.32) per Amphibious Landing Phase:

* First Wave box: up to two infantry or engineer companies plus up to one
  marine company -- or two or three marine companies and nothing else; never
  artillery, motorcycle, HQ or tank; units of one division only.
* Second Wave box: exactly one unit of any kind (a company, an HQ or an
  artillery battalion); a Second Wave box whose First Wave box is empty may be
  used only if its beach hex is not adjacent to an Allied unit.
* No box connected to a beach hex occupied by the Allies (18.91); no two
  divisions land on one beach hex in the same phase (18.92); no landings at
  night (18.93).
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np

from ...rng import nb_die

# Unit kinds used by the wave-box checks (18.31, 18.32).
KIND_INFANTRY = 0  # infantry company (incl. blackshirt companies)
KIND_ENGINEER = 1
KIND_MARINE = 2
KIND_ARTILLERY = 3
KIND_MOTORCYCLE = 4
KIND_TANK = 5
KIND_HQ = 6
KIND_OTHER = 7  # leaders ride with their HQ and are not counted

FIRST_WAVE_KINDS = (KIND_INFANTRY, KIND_ENGINEER, KIND_MARINE)
SECOND_WAVE_ONLY_KINDS = (KIND_ARTILLERY, KIND_MOTORCYCLE, KIND_TANK, KIND_HQ)


# ---------------------------------------------------------------- 18.31 / 18.32
def first_wave_ok(kinds: list[int], divisions: list[int]) -> tuple[bool, str]:
    """Check one First Wave box's contents for this phase (rules 18.31, 18.32).

    Parameters
    ----------
    kinds : list of int
        Unit kinds (``KIND_*``) of the units placed in the box.
    divisions : list of int
        Division (formation) id of each unit.

    Returns
    -------
    (bool, str)
        Whether the placement is legal, and the reason when it is not.
    """
    if not kinds:
        return True, ""
    if len(set(divisions)) > 1:
        return False, "rule 18.32: units of different divisions in one First Wave box"
    for k in kinds:
        if k not in FIRST_WAVE_KINDS:
            return False, "rule 18.32: artillery, motorcycle, HQ and tank units go to Second Wave boxes only"
    n_marine = sum(1 for k in kinds if k == KIND_MARINE)
    n_other = len(kinds) - n_marine
    if n_other == 0:
        if n_marine > 3:
            return False, "rule 18.31: at most three marine companies in a marine-only First Wave box"
        return True, ""
    if n_other > 2:
        return False, "rule 18.31: at most two infantry or engineer companies in a First Wave box"
    if n_marine > 1:
        return False, "rule 18.31: at most one marine company with infantry or engineers in a First Wave box"
    return True, ""


def second_wave_ok(n_units: int) -> tuple[bool, str]:
    """A Second Wave box holds at most one unit (an HQ counts as one unit; its
    leader rides along) (rule 18.32)."""
    if n_units > 1:
        return False, "rule 18.32: at most one unit in a Second Wave box"
    return True, ""


# ---------------------------------------------------------------- 18.5
def landing_loss_modifier(dist_to_allied: int) -> int:
    """Die modifier for the Landing Losses roll (rule 18.5).

    ``+2`` when the beach hex is adjacent to an Allied unit, ``+1`` when it is
    two hexes from the nearest one; the two are not cumulative.  No roll at all
    beyond two hexes (returns ``-1`` as "no roll").
    """
    if dist_to_allied <= 1:
        return 2
    if dist_to_allied == 2:
        return 1
    return -1


@nb.njit(cache=True)
def landing_loss_roll(rs, dist_to_allied):
    """Roll on the Landing Losses table for one unit just landed (rule 18.5).

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state, advanced in place (no draw when no roll is due).
    dist_to_allied : int
        Hexes from the unit's beach hex to the nearest Allied unit.

    Returns
    -------
    bool
        True when the unit is eliminated (modified die of 7 or more).
    """
    if dist_to_allied > 2:
        return False
    mod = 2 if dist_to_allied <= 1 else 1
    return nb_die(rs) + mod >= 7


def p_landing_loss(dist_to_allied: int) -> Fraction:
    """Exact elimination probability of :func:`landing_loss_roll` (rule 18.5):
    1/3 adjacent, 1/6 at two hexes, 0 beyond."""
    if dist_to_allied <= 1:
        return Fraction(2, 6)
    if dist_to_allied == 2:
        return Fraction(1, 6)
    return Fraction(0)


# ---------------------------------------------------------------- 18.6
@nb.njit(cache=True)
def waters_edge_column(strength, col_min):
    """Column of the Water's Edge Combat Table for a strength total (rule 18.6).

    Parameters
    ----------
    strength : int
        Total combat (attack) strength firing.
    col_min : int32[C]
        Lowest strength of each column, ascending.

    Returns
    -------
    int
        Column index, or -1 when the strength is below the first column.
    """
    col = -1
    for c in range(col_min.shape[0]):
        if strength >= col_min[c]:
            col = c
    return col


@nb.njit(cache=True)
def waters_edge_fire(rs, strength, col_min, table):
    """One water's-edge fire (Allied 18.61 or Axis 18.62): one die on the table.

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state.
    strength : int
        Strength total firing.
    col_min : int32[C]
        Column lower bounds.
    table : int8[C, 6]
        Hits (``X`` count) per column and die 1..6.

    Returns
    -------
    int
        Number of ``X`` results (each one step, no retreats, 18.63).
    """
    col = waters_edge_column(strength, col_min)
    if col < 0:
        return 0
    d = nb_die(rs)
    return int(table[col, d - 1])


def waters_edge_pmf(strength: int, col_min: np.ndarray, table: np.ndarray) -> dict[int, Fraction]:
    """Exact distribution of hits of :func:`waters_edge_fire`: ``{hits: probability}``."""
    col = waters_edge_column(int(strength), np.asarray(col_min, dtype=np.int32))
    if col < 0:
        return {0: Fraction(1)}
    out: dict[int, Fraction] = {}
    for d in range(6):
        h = int(table[col, d])
        out[h] = out.get(h, Fraction(0)) + Fraction(1, 6)
    return out


#: Fallback Water's Edge Combat Table (reconstructed; used only if the data set
#: does not ship one): columns by strength total, one X per row result.
FALLBACK_WE_COL_MIN = np.array([1, 3, 6, 10, 15, 21], dtype=np.int32)
FALLBACK_WE_TABLE = np.array(
    [
        [0, 0, 0, 0, 0, 1],
        [0, 0, 0, 0, 1, 1],
        [0, 0, 0, 1, 1, 1],
        [0, 0, 1, 1, 1, 1],
        [0, 1, 1, 1, 1, 2],
        [1, 1, 1, 1, 2, 2],
    ],
    dtype=np.int8,
)
