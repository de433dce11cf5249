"""Airborne units landing at airfields and the AA fire against them (rules
16.1, 16.11-16.15).

Each Axis Movement Phase, except on Rainy or Night turns, two "company
equivalents" in total may land on Axis-controlled airfields that have no
adjacent Allied unit (16.11): a company counts 1, the 80th Division HQ counts 1,
a glider artillery battalion counts 2.  Battalions must be broken down into
companies first (16.1; commandos break down into glider companies, 16.14).
Then each Allied AA unit may fire at one airfield within 3 hexes where units
just landed: one die, a 6 eliminates one of the units just landed there (the
Axis player's choice) (16.12).
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb

from ...rng import nb_die

#: Company equivalents that may land at airfields per Axis Movement Phase (16.11).
AIRFIELD_CAPACITY = 2
#: AA range in hexes (16.12).
AA_RANGE = 3


def airfield_cost(is_artillery: bool) -> int:
    """Company equivalents a piece uses of the airfield capacity (rule 16.11):
    2 for a glider artillery battalion, 1 for a company or the 80th HQ."""
    return 2 if is_artillery else 1


@nb.njit(cache=True)
def aa_fire(rs):
    """One Allied AA unit fires at an airfield where airborne units just landed
    (rule 16.12).

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state.

    Returns
    -------
    bool
        True on a 6: one unit just landed on that airfield is eliminated.
    """
    return nb_die(rs) == 6


def p_aa_kill() -> Fraction:
    """Exact probability that one AA unit's fire eliminates a unit (1/6, 16.12)."""
    return Fraction(1, 6)
