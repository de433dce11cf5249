"""Morale (rule 11): disorganization, demoralization and recovery."""

from __future__ import annotations

import numba as nb
import numpy as np

from malta_sim.iod.state import BOX_MAP, DEMORALIZED, DISORGANIZED, NORMAL


def disorganize(game, units) -> None:
    """Apply a "D" effect (rules 9.41, 10.12, 11.3): normal -> disorganized,
    disorganized -> demoralized; no effect on a demoralized unit (11.4)."""
    s = game.state
    for u in units:
        if s.box[u] != BOX_MAP:
            continue
        if s.morale_state[u] == NORMAL:
            s.morale_state[u] = DISORGANIZED
        elif s.morale_state[u] == DISORGANIZED:
            s.morale_state[u] = DEMORALIZED


def demoralize(game, units, reason: str = "Z") -> None:
    """Apply a "Z" effect (rules 9.41, 10.12, 11.4): not demoralized ->
    demoralized; an already demoralized unit loses a step."""
    from malta_sim.iod.rules.organisation import lose_step
    s = game.state
    for u in list(units):
        if s.box[u] != BOX_MAP:
            continue
        if s.morale_state[u] == DEMORALIZED:
            lose_step(game, int(u), reason="demoralized again (11.4)")
        else:
            s.morale_state[u] = DEMORALIZED


def recovery(game, side: int) -> None:
    """Rule 11.5 (4.25 d / 4.33 d): at the end of the combat phase the active
    player's disorganized/demoralized units recover one stage (11.52):
    automatically when not adjacent to an enemy unit, else on one die less
    than the current morale (11.51)."""
    s, tb = game.state, game.tables
    # units of the side that are disorganized or demoralized, in ascending
    # order (leaders and warships have no morale state to recover), and
    # whether each is next to an enemy unit, from one compiled pass
    units, adj = recovery_candidates(s.box, s.hex, s.morale_state, tb.controls_side[side],
                                     tb.controls_side[1 - side], game.static.neighbours)
    if not len(units):
        return
    for u, adjacent in zip(units.tolist(), adj.tolist()):
        if adjacent:
            die = game.die("morale")
            ok = die < game.morale_value(u)
            if game.events is not None:
                game.log("recovery roll", side=side, units=[u], dice=[die],
                         result="recovers" if ok else "no recovery", rule="11.51")
            if not ok:
                continue
        s.morale_state[u] = DISORGANIZED if s.morale_state[u] == DEMORALIZED else NORMAL


@nb.njit(cache=True)
def recovery_candidates(box, hexa, morale_state, own, enemy, nbr):
    """Rule 11.51: the units of a side on the map that are disorganized or
    demoralized, and whether each is adjacent to an enemy unit.

    Parameters
    ----------
    box, hexa, morale_state : arrays [n_units]
        State fields ``box``, ``hex``, ``morale_state``.
    own, enemy : bool[n_units]
        The side's and the enemy's pieces that take control of a hex (not
        leaders or warships).
    nbr : int32[n_hexes, 6]
        Neighbour table (-1 off the grid).

    Returns
    -------
    units : int64[k]
        The units, ascending.
    adjacent : bool[k]
        Whether an enemy unit on the map stands next to each.
    """
    n = box.shape[0]
    ehex = np.zeros(nbr.shape[0], np.bool_)
    for x in range(n):
        if enemy[x] and box[x] == BOX_MAP:
            ehex[hexa[x]] = True
    units = np.empty(n, np.int64)
    adj = np.zeros(n, np.bool_)
    k = 0
    for u in range(n):
        if not own[u] or box[u] != BOX_MAP or morale_state[u] == NORMAL:
            continue
        h = hexa[u]
        for d in range(6):
            o = nbr[h, d]
            if o >= 0 and ehex[o]:
                adj[k] = True
                break
        units[k] = u
        k += 1
    return units[:k].copy(), adj[:k].copy()
