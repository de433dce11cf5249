"""Airborne drop and scatter kernels (rules 19.41-19.46, 21.1).

Static arrays from :func:`malta_sim.loaders.iod_charts.load_charts`:
``drop_roll_min``, ``drop_roll_max`` int32[k], ``drop_marker``, ``drop_stick``
int8[k] (the Drop Table; result codes 0 on target, 1 adjacent, 2 half, 3 one
die, 4 two dice) and ``scatter_dir`` int8[7] (the Scatter Diagram: die 1..6 to a
direction 0..5, N NE SE S SW NW).

Map inputs: ``nbr`` int32[n, 6] (``-1`` off the map) and ``is_ocean`` bool[n]
(``MapData.ocean``; coastal and beach hexes are not ocean).  **A unit or marker
that scatters off the map edge is treated as landing in the ocean** (the map
edge is open sea around Malta): a stick's unit drowns (19.45) and a drop zone
marker rolls again (19.42).

Drop zone marker re-rolls (19.42).  "Repeat the above procedure" is read
literally by default: the marker is placed on its planned hex again and the
whole procedure (Drop Table, distance, Scatter Diagram) is repeated
(``reroll_from_landing=False``).  The alternative reading -- roll again from the
ocean hex where it came down (from the last hex on the map when it left the
map) -- is available with ``reroll_from_landing=True``; :mod:`malta_sim.exact.drop`
solves both exactly as an absorbing Markov chain.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..rng import nb_2d6, nb_die

ON_TARGET, ADJACENT, HALF, ONE, TWO = 0, 1, 2, 3, 4
#: Stick landing code for a drowned unit / a cancelled jump.
DROWNED = -1
CANCELLED = -2

#: Drop Table modifiers (19.41, 19.44, 21.1).
GERMAN_DRM = -1
AA_DRM = 1
SOLITAIRE_DRM = 2


@nb.njit(cache=True)
def drop_modifier(german, aa_within3, solitaire):
    """Drop Table DRM: -1 German (Ramcke) marker or all-German stick, +1 per
    Allied AA unit within three hexes, +2 in solitaire play (rules 19.41,
    19.44, 21.1)."""
    m = aa_within3 * AA_DRM
    if german:
        m += GERMAN_DRM
    if solitaire:
        m += SOLITAIRE_DRM
    return m


@nb.njit(cache=True)
def drop_result(modified_roll, is_marker, drop_roll_min, drop_roll_max, drop_marker, drop_stick):
    """Drop Table result code for a modified 2d6 (rules 19.41, 19.44); the
    first row is open below and the last open above."""
    k = drop_roll_min.shape[0]
    r = 0
    while r + 1 < k and modified_roll > drop_roll_max[r]:
        r += 1
    return drop_marker[r] if is_marker else drop_stick[r]


@nb.njit(cache=True)
def scatter_distance(state, code):
    """Hexes moved for a Drop Table result: Adjacent 1, Half one die halved
    rounding up, One one die, Two two dice (rules 19.41, 19.44); 0 on target."""
    if code == ON_TARGET:
        return 0
    if code == ADJACENT:
        return 1
    if code == HALF:
        return (nb_die(state) + 1) // 2
    if code == ONE:
        return nb_die(state)
    return nb_2d6(state)


@nb.njit(cache=True)
def walk(nbr, h, direction, n):
    """Move ``n`` hexes from ``h`` in ``direction``.  Returns ``(final, last)``:
    the final hex (``-1`` when the walk leaves the map) and the last hex on
    the map passed through."""
    last = h
    for _ in range(n):
        j = nbr[last, direction]
        if j < 0:
            return -1, last
        last = j
    return last, last


@nb.njit(cache=True)
def drop_marker(state, planned, german, aa_count, solitaire, is_ocean, nbr,
                drop_roll_min, drop_roll_max, drop_marker_t, drop_stick_t, scatter_dir,
                reroll_from_landing, max_tries):
    """Landing hex of a drop zone marker (rules 19.41, 19.42, 21.11).

    Parameters
    ----------
    state : uint64[4]
        The game's ``scatter`` stream (advanced in place).
    planned : int
        Planned hex.
    german, solitaire : bool
    aa_count : int[n]
        Allied AA units within three hexes of each hex (:func:`aa_within3`).
    is_ocean : bool[n]
    nbr : int32[n, 6]
    drop_* , scatter_dir : chart arrays
    reroll_from_landing : bool
        Reading of 19.42 (module docstring); False = from the planned hex.
    max_tries : int
        Safety bound on re-rolls (the loop ends far earlier in practice).

    Returns
    -------
    tuple of int
        ``(hex, rolls)``: the landing hex (never ocean unless ``max_tries`` ran
        out, then ``-1``) and the number of Drop Table rolls made.
    """
    pos = planned
    for t in range(max_tries):
        m = drop_modifier(german, aa_count[pos], solitaire)
        code = drop_result(nb_2d6(state) + m, True, drop_roll_min, drop_roll_max, drop_marker_t, drop_stick_t)
        land = pos
        last = pos
        if code != ON_TARGET:
            n = scatter_distance(state, code)
            d = scatter_dir[nb_die(state)]
            land, last = walk(nbr, pos, d, n)
        if land >= 0 and not is_ocean[land]:
            return land, t + 1
        if reroll_from_landing:
            pos = land if land >= 0 else last
        else:
            pos = planned
    return -1, max_tries


@nb.njit(cache=True)
def drop_stick(state, placed, n_units, german, aa_within3_placed, solitaire, is_ocean, nbr,
               drop_roll_min, drop_roll_max, drop_marker_t, drop_stick_t, scatter_dir, out):
    """Scatter one stick (rules 19.43-19.45).

    Parameters
    ----------
    state : uint64[4]
        The game's ``scatter`` stream.
    placed : int
        Hex where the stick is placed (its planned position from the marker).
    n_units : int
        Units in the stick (leaders are not rolled: they follow their HQ).
    german : bool
        All units of the stick German.
    aa_within3_placed : int
        Allied AA units within three hexes of ``placed``.
    solitaire : bool
    is_ocean : bool[n]
    nbr : int32[n, 6]
    out : int32[n_units]
        Filled with each unit's landing hex, ``DROWNED`` (-1) for ocean or off
        the map (19.45), or ``CANCELLED`` (-2) for all units when ``placed``
        is an ocean hex or off the map (19.43, the jump is cancelled).

    Returns
    -------
    int
        The Drop Table result code (``-1`` when cancelled).
    """
    if placed < 0 or is_ocean[placed]:
        for u in range(n_units):
            out[u] = CANCELLED
        return -1
    m = drop_modifier(german, aa_within3_placed, solitaire)
    code = drop_result(nb_2d6(state) + m, False, drop_roll_min, drop_roll_max, drop_marker_t, drop_stick_t)
    if code == ON_TARGET:
        for u in range(n_units):
            out[u] = placed
        return code
    if code == HALF or code == ADJACENT:
        n = scatter_distance(state, code)
        d = scatter_dir[nb_die(state)]
        land, _ = walk(nbr, placed, d, n)
        if land >= 0 and is_ocean[land]:
            land = DROWNED
        for u in range(n_units):
            out[u] = land
        return code
    for u in range(n_units):
        n = scatter_distance(state, code)
        d = scatter_dir[nb_die(state)]
        land, _ = walk(nbr, placed, d, n)
        if land >= 0 and is_ocean[land]:
            land = DROWNED
        out[u] = land
    return code


@nb.njit(cache=True)
def airborne_loss_roll(state, enemy_in_hex, aa_near, rough_terrain):
    """Airborne losses of one unit after its jump (rule 19.46): one die, +1 enemy
    units in the landing hex (not coastal guns, zero-strength units, leaders),
    +1 enemy AA within three hexes, +1 woods/town/city/fort; 7 or more reduces
    the unit (one-step units and artillery are eliminated; HQs and leaders do
    not roll).  Returns ``(reduced, die)``."""
    die = nb_die(state)
    t = die
    if enemy_in_hex:
        t += 1
    if aa_near:
        t += 1
    if rough_terrain:
        t += 1
    return t >= 7, die


def airborne_loss_probability(n_modifiers: int) -> float:
    """Exact chance of an airborne loss with ``n_modifiers`` (0..3) of +1 (19.46)."""
    return sum(1 for die in range(1, 7) if die + n_modifiers >= 7) / 6


@nb.njit(cache=True)
def aa_within3(dist_table, aa_units):
    """Allied AA units within three hexes of every hex, int32[n] (rules 19.41,
    19.44, 19.46).  ``aa_units`` int[n] = AA units in each hex."""
    n = dist_table.shape[0]
    out = np.zeros(n, dtype=np.int32)
    for h in range(n):
        if aa_units[h] == 0:
            continue
        for i in range(n):
            if dist_table[h, i] <= 3:
                out[i] += aa_units[h]
    return out


@nb.njit(cache=True)
def drop_marker_many(states, planned, german, aa_count, solitaire, is_ocean, nbr,
                     drop_roll_min, drop_roll_max, drop_marker_t, drop_stick_t, scatter_dir,
                     reroll_from_landing, out):
    """:func:`drop_marker` for a batch of games (row ``g`` uses ``states[g]``);
    ``out`` int32[n_games] receives the landing hexes."""
    for g in range(states.shape[0]):
        out[g] = drop_marker(states[g], planned, german, aa_count, solitaire, is_ocean, nbr,
                             drop_roll_min, drop_roll_max, drop_marker_t, drop_stick_t, scatter_dir,
                             reroll_from_landing, 1000)[0]


