"""Airborne landings (rule 19): result codes, the airborne-losses odds and the
planning helpers (19.22, 19.32).

The random work of a jump -- Drop Table, Scatter Diagram, drowning and
airborne losses -- is done by :mod:`malta_sim.kernels.drop` (with its exact
counterpart in :mod:`malta_sim.exact.drop`); the phase driver (planning,
markers, sticks, hostile landings, rally) is :mod:`.airborne_phase`.
"""

from __future__ import annotations

from fractions import Fraction

# Drop Table result codes (19.41, 19.44), as in malta_sim.kernels.drop.
ON_TARGET = 0
ADJACENT = 1  # drop zone markers only
HALF = 2
ONE_DIE = 3
TWO_DICE = 4
DROP_RESULT_NAMES = ("on_target", "adjacent", "half", "1", "2")

#: Solitaire modifier to every jump roll (rule 21.12, Drop Table).
SOLITAIRE_DROP_MOD = 2


# ---------------------------------------------------------------- 19.46

def p_airborne_loss(n_modifiers: int) -> Fraction:
    """Exact probability of :func:`airborne_loss_roll` with ``n_modifiers`` of +1."""
    return Fraction(max(0, int(n_modifiers)), 6)


# ---------------------------------------------------------------- 19.22, 19.3

#: A stick may be planned within 3 hexes of its marker, one per formation within 5 (19.22).
STICK_RANGE = 3
LONG_STICK_RANGE = 5


def relative_offset(marker: str, target: str) -> tuple[int, int]:
    """Axial offset of ``target`` from ``marker`` (the "two hexes northeast of
    the drop zone marker" record of rule 19.32)."""
    from ...hexgrid import to_axial

    qm, rm = to_axial(marker)
    qt, rt = to_axial(target)
    return qt - qm, rt - rm


def apply_offset(marker: str, offset: tuple[int, int]) -> str | None:
    """Hex at axial ``offset`` from ``marker`` (19.43); None off the id space."""
    from ...hexgrid import axial_to_offset, format_hex, to_axial

    q, r = to_axial(marker)
    col, row = axial_to_offset(q + offset[0], r + offset[1])
    if not (0 <= col <= 99 and 0 <= row <= 99):
        return None
    return format_hex(col, row)


def plan_target_ok(target_terrain_ok: bool, dist_from_marker: int, long_used: bool) -> tuple[bool, bool, str]:
    """Check a planned stick target (rules 19.22, 19.33).

    Parameters
    ----------
    target_terrain_ok : bool
        The target is not ocean, beach or coastal (19.33).
    dist_from_marker : int
        Hexes from the formation's planned drop zone marker hex.
    long_used : bool
        The formation's one stick beyond 3 (up to 5) hexes is already used.

    Returns
    -------
    (ok, uses_long, reason)
    """
    if not target_terrain_ok:
        return False, False, "rule 19.33: sticks may not be planned on ocean, beach or coastal hexes"
    if dist_from_marker <= STICK_RANGE:
        return True, False, ""
    if dist_from_marker <= LONG_STICK_RANGE and not long_used:
        return True, True, ""
    return False, False, "rule 19.22: sticks land within 3 hexes of the marker (one per formation within 5)"
