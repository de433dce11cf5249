"""Coastal guns: fire at warships and landing craft, line of fire, warship
counter-battery fire and Axis air attacks on the guns (rules 16.5, 16.79, 17.5, 18.4).

Everything random here is a small compiled kernel drawing from a per-game
xoshiro state (``uint64[4]``, see :mod:`malta_sim.rng`), paired with its exact
probability so the statistical tests can hold the kernel to it.

Dice conventions (all d6):

* coastal gun against a warship (16.55): ``artillery_value`` dice, +1 to each
  when the ship is within 3 hexes; the ship is damaged if any modified die is 6
  or more.
* coastal gun against a First / Second Wave box (16.56): the same dice against
  the connected beach hex; each modified die of 6 or more is one step lost in
  the box.
* warship against a coastal gun (16.79): ``ceil(offensive support / 2)`` dice,
  split between guns as the Axis player likes; any 6 destroys the gun.
* air attack against a coastal gun (17.52): one die per air attack assigned,
  minus one die per Allied AA unit within 3 hexes; any 6 destroys the gun.
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np


from malta_sim.kernels import los
from malta_sim.rng import nb_die
from malta_sim.iod import static as st
from malta_sim.iod.state import (ALLIED, AXIS, BOX_FIRST_WAVE, BOX_MAP, BOX_SECOND_WAVE)
from malta_sim.iod import invasion
from malta_sim.iod.rules import amphibious

#: Range (hexes) within which coastal fire gets +1 per die (16.55, 16.56).
CLOSE_RANGE = 3


# ---------------------------------------------------------------- kernels
@nb.njit(cache=True)
def gun_fires_at_warship(rs, artillery_value, within_three):
    """One coastal gun fires at one warship (rule 16.55).

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state, advanced in place.
    artillery_value : int
        The gun's artillery value = number of dice.
    within_three : bool
        The warship is within 3 hexes of the gun (+1 to each die).

    Returns
    -------
    bool
        True when the warship is damaged (removed for the rest of the game).
    """
    mod = 1 if within_three else 0
    hit = False
    for _ in range(artillery_value):
        if nb_die(rs) + mod >= 6:
            hit = True
    return hit


@nb.njit(cache=True)
def gun_fires_at_wave_box(rs, artillery_value, within_three):
    """One coastal gun fires at one First / Second Wave box (rule 16.56).

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state.
    artillery_value : int
        Number of dice.
    within_three : bool
        The box's connected beach hex is within 3 hexes of the gun.

    Returns
    -------
    int
        Steps eliminated in the box (the caller ignores hits beyond the box's steps).
    """
    mod = 1 if within_three else 0
    hits = 0
    for _ in range(artillery_value):
        if nb_die(rs) + mod >= 6:
            hits += 1
    return hits


@nb.njit(cache=True)
def dice_any_six(rs, n_dice):
    """Roll ``n_dice`` d6; True when any shows 6 (rules 16.79, 17.52)."""
    hit = False
    for _ in range(n_dice):
        if nb_die(rs) == 6:
            hit = True
    return hit


def warship_dice(offensive_support: int) -> int:
    """Dice a warship rolls against coastal guns: half its offensive support,
    fractions rounded up (rule 16.79)."""
    return (int(offensive_support) + 1) // 2


def air_attack_dice(n_attacks: int, n_aa_within_three: int) -> int:
    """Dice rolled against one coastal gun: attacks assigned minus one per Allied
    AA unit within 3 hexes of the gun, never below zero (rule 17.52)."""
    return max(0, int(n_attacks) - int(n_aa_within_three))


# ---------------------------------------------------------------- exact odds
def p_warship_damaged(artillery_value: int, within_three: bool) -> Fraction:
    """Exact probability that one gun damages a warship (rule 16.55)."""
    miss = Fraction(4, 6) if within_three else Fraction(5, 6)
    return 1 - miss ** int(artillery_value)


def wave_box_hits_pmf(artillery_value: int, within_three: bool) -> np.ndarray:
    """Exact distribution of steps lost from one gun's fire at a wave box
    (rule 16.56): binomial(``artillery_value``, 1/3 within 3 hexes, else 1/6).

    Returns
    -------
    float64[artillery_value + 1]
        Probability of 0, 1, ... hits.
    """
    from scipy.stats import binom

    p = 2 / 6 if within_three else 1 / 6
    return binom.pmf(np.arange(artillery_value + 1), artillery_value, p)


def p_any_six(n_dice: int) -> Fraction:
    """Exact probability that ``n_dice`` d6 show at least one 6 (16.79, 17.52)."""
    return 1 - Fraction(5, 6) ** max(0, int(n_dice))


# ====================================================================================
# Moved from the invasion engine
# ====================================================================================
def line_of_fire(inv: invasion.InvasionStatic, grid, a: int, b: int) -> bool:
    """Whether a coastal gun in hex ``a`` may fire at hex ``b`` (rule 16.54;
    dense hex indices; range is the caller's test): the line-of-fire kernel
    :func:`malta_sim.kernels.los.line_of_fire` over the blocking terrain of
    ``inv`` (``los_hex_blocks``, ``los_side_blocks``), each pair worked out once
    per process and kept in ``inv.los_memo``."""
    key = (a, b)
    ok = inv.los_memo.get(key)
    if ok is None:
        ok = inv.los_memo[key] = bool(los.line_of_fire(
            inv.los_axial, inv.los_nbr, a, b, inv.los_hex_blocks, inv.los_side_blocks,
            grid.col_min, grid.row_min, grid.n_cols, grid.n_rows))
    return ok


def gun_reach(inv: invasion.InvasionStatic, grid, gh: int, rg: int):
    """The test "a coastal gun on hex ``gh`` with range ``rg`` reaches hex
    ``b``": within the range and in line of fire (rules 16.54-16.56;
    :func:`line_of_fire`), as a function of ``b``; each answer is kept in
    ``inv.gun_reach`` (a pure function of the two hexes' terrain and the
    range).

    Parameters
    ----------
    inv : InvasionStatic
    grid : HexGrid
        The map grid (``game.static.grid``).
    gh : int
        Dense hex of the gun.
    rg : int
        The gun's range in hexes.

    Returns
    -------
    callable
        ``test(b: int) -> bool`` for a dense target hex ``b``.
    """
    d = grid.distance_table
    key = (gh, rg)
    reach = inv.gun_reach.get(key)
    if reach is None:
        reach = {}
        inv.gun_reach[key] = reach

    def test(b: int) -> bool:
        r = reach.get(b)
        if r is None:
            r = reach[b] = bool(d[gh, b] <= rg and line_of_fire(inv, grid, gh, b))
        return r
    return test


def coastal_fire_at_boxes(game) -> None:
    """Rule 16.56: guns that did not fire at warships fire at wave boxes whose
    beach hex is in range and in line of fire (16.54); +1 within 3 hexes; each
    6+ is one step (Axis choice); excess hits are ignored."""
    s, t = game.state, game.static
    inv = invasion.inv_static(game)
    cgu = inv.allied_firing_guns
    guns = cgu[(s.box[cgu] == BOX_MAP) & (s.gun_fired_turn[cgu] != game.turn)].tolist()
    ax = t.side_units[AXIS]
    ax_box = s.box[ax]
    filled = ax[(ax_box == BOX_FIRST_WAVE) | (ax_box == BOX_SECOND_WAVE)]
    boxes = sorted(set(zip(s.box[filled].tolist(), s.box_slot[filled].tolist())))
    if not guns or not boxes:
        return
    grid = t.grid
    d = grid.distance_table
    options = {}
    for g, gh in zip(guns, s.hex[guns].tolist()):
        reach = gun_reach(inv, grid, gh, int(inv.gun_range[g]))
        ok = [k for k in boxes if reach(k[1])]
        if ok:
            options[g] = ok
    if not options:
        return
    choice = game.policy(ALLIED).coastal_fire_boxes(game, options)
    rs = invasion.nstate(game, "landing")
    for g, k in sorted(choice.items()):
        if g not in options or k not in options[g]:
            raise invasion._illegal("16.56", "coastal gun target out of range or line of fire")
        within3 = d[int(s.hex[g]), k[1]] <= CLOSE_RANGE
        hits = gun_fires_at_wave_box(rs, int(inv.gun_value[g]), bool(within3))
        s.revealed[g] = True                                    # 16.52
        s.gun_fired_turn[g] = game.turn
        if game.events is not None:
            invasion._log(game, "coastal_fire_box", side=ALLIED, hexes=[k[1]], units=[g], result=f"{hits} hits",
                 rule="16.56")
        for _ in range(hits):
            victims = [u for u in invasion.units_in_box(game, k[0], k[1]) if t.utype[u] != st.LEADER]
            if not victims:
                break                                           # excess hits ignored
            v = game.policy(AXIS).choose_loss(game, victims, "coastal fire 16.56")
            if v not in victims:
                raise invasion._illegal("16.56", "loss must come from the box fired upon")
            amphibious._box_unit_loss(game, v)
