"""Airborne landings (rule 19): drop zone markers, sticks, planning, drop and
scatter, drowning, airborne losses, hostile landings, rally.

Kernels (compiled, per-game ``uint64[4]`` random state):

* :func:`drop_code` -- the Drop Table for a drop zone marker or a stick
  (19.41, 19.44; German -1, +1 per Allied AA unit within 3 hexes, solitaire +2).
* :func:`move_in_direction` / :func:`scatter_distance` -- the Scatter Diagram
  and the distances of "Adjacent", "Half", "1", "2".
* :func:`drop_marker` -- a drop zone marker's final hex, re-rolled from the
  planned hex while it lands on an ocean hex (19.42).
* :func:`drop_stick` -- every unit's final hex for one stick (19.44), ocean =
  drowned (19.45; off the map counts as ocean).
* :func:`airborne_loss_roll` -- the Airborne Losses roll (19.46).

The phase driver (placing markers and sticks, hostile landings, rally) is in
:mod:`.hercules`.  Where the kernels package ships its own drop kernel the
driver can use it; these kernels follow the same tables.
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np

from ...rng import nb_2d6, nb_die

# Drop Table result codes (19.41, 19.44).
ON_TARGET = 0
ADJACENT = 1  # drop zone markers only
HALF = 2
ONE_DIE = 3
TWO_DICE = 4
DROP_RESULT_NAMES = ("on_target", "adjacent", "half", "1", "2")

#: Solitaire modifier to every jump roll (rule 21.12, Drop Table).
SOLITAIRE_DROP_MOD = 2

#: Fallback Drop Table (reconstructed; used only when the data set has none):
#: modified 2d6 from 0 to 20 -> result code, one row for drop zone markers,
#: one for sticks (sticks have no "Adjacent" result, 19.44).
FALLBACK_DROP_TABLE = np.array(
    [
        # modified roll:  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20
        [0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4],  # marker
        [0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4],  # stick
    ],
    dtype=np.int8,
)


@nb.njit(cache=True)
def drop_code(rs, modifier, is_marker, table):
    """Roll 2d6 + ``modifier`` on the Drop Table (rules 19.41, 19.44).

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state (``drop`` purpose).
    modifier : int
        Sum of modifiers: German -1, +1 per Allied AA unit within 3 hexes,
        solitaire +2.
    is_marker : bool
        Drop zone marker (row 0) or stick (row 1).
    table : int8[2, R]
        Result code per modified roll 0..R-1 (clamped at both ends).

    Returns
    -------
    int
        ON_TARGET, ADJACENT, HALF, ONE_DIE or TWO_DICE.
    """
    r = nb_2d6(rs) + modifier
    if r < 0:
        r = 0
    if r > table.shape[1] - 1:
        r = table.shape[1] - 1
    return table[0 if is_marker else 1, r]


@nb.njit(cache=True)
def scatter_distance(rs, code):
    """Hexes moved for a Drop Table result (19.41, 19.44): Adjacent 1, Half
    ceil(d6/2), "1" one die, "2" two dice; On Target 0."""
    if code == ON_TARGET:
        return 0
    if code == ADJACENT:
        return 1
    if code == HALF:
        return (nb_die(rs) + 1) // 2
    if code == ONE_DIE:
        return nb_die(rs)
    return nb_die(rs) + nb_die(rs)


@nb.njit(cache=True)
def move_in_direction(h, direction, n, neighbours):
    """Walk ``n`` hexes from ``h`` in one Scatter Diagram direction.

    Parameters
    ----------
    h : int
        Start hex (dense index).
    direction : int
        0..5 in the grid's order (N, NE, SE, S, SW, NW); the Scatter Diagram's
        die result d gives direction d - 1.
    n : int
        Hexes to move.
    neighbours : int32[H, 6]

    Returns
    -------
    int
        Final hex, or -1 when the walk leaves the map (treated as ocean, 19.45).
    """
    for _ in range(n):
        h = neighbours[h, direction]
        if h < 0:
            return -1
    return h


@nb.njit(cache=True)
def drop_marker(rs, planned, modifier_base, aa_within3, is_ocean, neighbours, table, max_tries=100):
    """Final hex of a drop zone marker (rules 19.41, 19.42).

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state.
    planned : int
        Planned hex.
    modifier_base : int
        German -1 and/or solitaire +2.
    aa_within3 : int
        Allied AA units within 3 hexes of the planned hex (+1 each).
    is_ocean : bool[H]
        Ocean hexes (coastal and beach hexes are not ocean).
    neighbours : int32[H, 6]
    table : int8[2, R]
        Drop Table.
    max_tries : int
        Safety bound on the re-rolls of 19.42.

    Returns
    -------
    int
        The marker's hex; never an ocean hex (after ``max_tries`` it stays on
        the planned hex, which is never ocean by 19.33).
    """
    for _ in range(max_tries):
        code = drop_code(rs, modifier_base + aa_within3, True, table)
        if code == ON_TARGET:
            return planned
        n = scatter_distance(rs, code)
        d = nb_die(rs) - 1
        h = move_in_direction(planned, d, n, neighbours)
        if h >= 0 and not is_ocean[h]:
            return h
    return planned


@nb.njit(cache=True)
def drop_stick(rs, placed, n_units, modifier, is_ocean, neighbours, table, out):
    """Scatter one stick (rules 19.44, 19.45).

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state.
    placed : int
        Hex where the stick was placed relative to its drop zone marker.
    n_units : int
        Units rolling separately on "1" / "2" results (leaders ride with
        their HQ and are not counted here).
    modifier : int
        German -1, +1 per Allied AA within 3 of ``placed``, solitaire +2.
    is_ocean : bool[H]
    neighbours : int32[H, 6]
    table : int8[2, R]
    out : int32[n_units]
        Output: final hex of each unit, -1 = drowned (ocean or off the map).

    Returns
    -------
    int
        The Drop Table result code.
    """
    code = drop_code(rs, modifier, False, table)
    if code == ON_TARGET or code == HALF:
        n = scatter_distance(rs, code)
        h = placed
        if n > 0:
            d = nb_die(rs) - 1
            h = move_in_direction(placed, d, n, neighbours)
        for i in range(n_units):
            out[i] = h if (h >= 0 and not is_ocean[h]) else -1
        return code
    for i in range(n_units):
        n = scatter_distance(rs, code)
        d = nb_die(rs) - 1
        h = move_in_direction(placed, d, n, neighbours)
        out[i] = h if (h >= 0 and not is_ocean[h]) else -1
    return code


# ---------------------------------------------------------------- 19.46

@nb.njit(cache=True)
def airborne_loss_roll(rs, enemy_in_hex, aa_within3, rough_hex):
    """Airborne Losses roll for one unit that landed (rule 19.46).

    Parameters
    ----------
    rs : uint64[4]
    enemy_in_hex : bool
        Enemy units (other than coastal guns, zero-strength units, leaders) in the hex: +1.
    aa_within3 : bool
        One or more enemy AA units within 3 hexes: +1.
    rough_hex : bool
        Woods, town, city or fort hex: +1.

    Returns
    -------
    bool
        True on a modified 7+: the unit is reduced (eliminated if it has no
        reduced side or is artillery).
    """
    m = 0
    if enemy_in_hex:
        m += 1
    if aa_within3:
        m += 1
    if rough_hex:
        m += 1
    return nb_die(rs) + m >= 7


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
