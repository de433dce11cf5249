"""Maltese militia and the militia cup (rule 16.3).

The cup holds the militia pieces still available (Hercules: all five, 16.31;
the Introductory Scenario: four drawn at random from the five).  The first time
an Axis unit moves, lands or parachutes into a town or city hex or a hex next
to one, the Allied player rolls once for that town / city hex (16.32): 5-6 for
a town, 3-6 for a city draws a militia piece at random from the cup and places
it in the town / city hex.  One roll per town / city hex per game; no more
rolls once the cup is empty (16.36).

Militia do not count for stacking (16.33), never move, advance or retreat and
stand their ground (16.34); those are properties of the unit type the land
engine reads.  The piece is face down (``?``) unless a paratroop unit landed in
that very town / city hex (16.32); it is revealed when attacked or attacking
(16.35) -- revealing has no effect on the simulation (both players' decisions
in the bots do not peek at hidden values beyond what the rules let them see).
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np

from malta_sim.rng import nb_die
from malta_sim.iod import static as st
from malta_sim.iod.state import (ALLIED, AXIS, BOX_CUP, BOX_ELIMINATED,
                    BOX_MAP)
from malta_sim.iod import invasion

#: Lowest die that draws a militia piece (rule 16.32).
TOWN_THRESHOLD = 5
CITY_THRESHOLD = 3


@nb.njit(cache=True)
def militia_roll(rs, is_city):
    """Roll for a militia uprising in one town / city hex (rule 16.32).

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state.
    is_city : bool
        City hex (3-6 draws) rather than town (5-6 draws).

    Returns
    -------
    bool
        True when a militia piece is drawn.
    """
    d = nb_die(rs)
    return d >= (3 if is_city else 5)


def p_militia(is_city: bool) -> Fraction:
    """Exact probability of :func:`militia_roll`: 2/3 for a city, 1/3 for a town."""
    return Fraction(4, 6) if is_city else Fraction(2, 6)


# =====================================================================================
# Entering hexes: militia (16.32); the cup is filled at set-up (16.31,
# malta_sim.iod.setup.setup_scenario)
# =====================================================================================
def _militia_in_cup(game) -> list:
    """Militia pieces in the cup (16.32), ascending unit indices (Python ints)."""
    t = game.static
    mil = game.cache.get("_militia_units")
    if mil is None:
        idx = np.flatnonzero(t.utype == st.MILITIA)
        mil = game.cache["_militia_units"] = (idx, idx.tolist())
    idx, units = mil
    return [m for m, b in zip(units, game.state.box[idx].tolist()) if b == BOX_CUP]


def _cup_has_militia(game) -> bool:
    """Whether a militia piece is left in the cup (16.32, 16.36)."""
    mil = game.cache.get("_militia_units")
    if mil is None:
        idx = np.flatnonzero(game.static.utype == st.MILITIA)
        mil = game.cache["_militia_units"] = (idx, idx.tolist())
    return BOX_CUP in game.state.box[mil[0]].tolist()


def queue_uprisings(game, hexes: list) -> None:
    """Rule 16.32: the uprising rolls for the town or city ``hexes`` (dense
    indices) next to a hex passed through in the middle of a move wait for
    the move's end; each hex is queued once, in the order first met."""
    pending = game.state.militia_pending
    nxt = int(pending.max()) + 1
    for x in hexes:
        if pending[x] == 0:
            pending[x] = nxt
            nxt += 1


def take_queued_uprisings(game) -> list:
    """The hexes queued by :func:`queue_uprisings`, in queue order (list of
    int); the queue is emptied (rule 16.32)."""
    pending = game.state.militia_pending
    hexes = pending.nonzero()[0]
    if not len(hexes):
        return []                          # nothing queued: the queue is already empty
    out = hexes[np.argsort(pending[hexes], kind="stable")].tolist()
    pending[:] = 0
    return out


def _militia_uprisings(game, inv, near: list, h: int, how: str) -> None:
    """Rule 16.32: an uprising roll for each town or city hex of ``near`` (in
    order, each hex once per game) after an Axis unit's entry into hex ``h``
    (``how`` as in :func:`on_enter_hex`)."""
    s, t = game.state, game.static
    urban = inv.urban
    for x in dict.fromkeys(near):
        if x < 0 or not urban[x] or s.militia_rolled[x]:
            continue
        cup = _militia_in_cup(game)
        if not cup:
            return                                              # 16.36
        s.militia_rolled[x] = True
        if not militia_roll(invasion.nstate(game, "militia"), bool(t.city[x])):
            continue
        piece = cup[int(invasion.rng(game, "militia").integers(len(cup)))]
        axis_there = x == h or any(t.utype[v] != st.LEADER for v in game.units_at(x, AXIS))
        if axis_there and not (how == "jump" and x == h):
            s.box[piece], s.hex[piece] = BOX_ELIMINATED, -1     # crushed at once (see docstring)
            invasion._log(game, "militia_crushed", side=ALLIED, hexes=[x], units=[piece], rule="16.32")
            continue
        s.box[piece], s.hex[piece] = BOX_MAP, x
        s.formation[piece] = 0
        s.revealed[piece] = how == "jump" and x == h            # 16.32 face up
        if not axis_there:
            s.control[x] = ALLIED
        invasion._log(game, "militia", side=ALLIED, hexes=[x], units=[piece], rule="16.32")
