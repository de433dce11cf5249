"""Compiled order of step losses for the default bots (rules 9.5, 9.52, 9.92,
17.3): the pieces that take ``n`` step losses one after the other, as the
default bots' :meth:`~malta_sim.policies.simple._LandBot.choose_loss` picks
them, in one call.

:func:`.combat.take_steps` calls :func:`loss_order` when the owner's
``choose_loss`` is the default bots' own (``policies.base.own_methods``) and
then applies each step with :func:`.organisation.lose_step` in the order
given; any other bot is asked step by step.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from . import static as st
from .state import BOX_MAP

_BOX_MAP = BOX_MAP
_HQ = st.HQ
_ARTILLERY = st.ARTILLERY
_BATTALION = st.BATTALION


@nb.njit(cache=True)
def loss_order(units, n, engineers_first, box, level, utype, size, n_levels, engineer,
               step_weight, attack, defense):
    """The pieces that take ``n`` step losses among ``units``, in order.

    Each step goes, among the pieces of ``units`` still on the map (the first
    ``engineers_first`` steps among their engineers while any remain, 9.92),
    to the one with the lowest key (not an HQ before an HQ: 20.0, 8.5; fewer
    victory steps, 20.1-20.2; lower attack plus defense at its current level;
    lower index), as the default bots choose.  A step then turns a battalion
    to its next lower level or eliminates the piece (a company, an artillery
    battalion, a piece at its lowest level: 9.5, 17.3), as
    :func:`.organisation.lose_step` does; nothing else here changes.

    Parameters
    ----------
    units : int64[k]
        The owner's pieces that may take the losses (one side).
    n : int
        Step losses to take.
    engineers_first : int
        Steps that fall on engineers while any remain (9.92).
    box, level : arrays [n_units]
        State fields ``box`` and ``level`` (read only; the losses are
        followed on copies of the pieces' entries).
    utype, size : int8[n_units]
        Unit type and size codes.
    n_levels : int[n_units]
        Printed levels of each piece.
    engineer : bool[n_units]
        Engineers of any kind.
    step_weight : int[n_units]
        Victory steps per step (20.1, 20.2).
    attack, defense : int[n_units, n_levels]
        Printed strengths per level.

    Returns
    -------
    int64[m]
        The piece taking each step, ``m <= n`` (fewer when every piece is
        gone).
    """
    k = units.shape[0]
    alive = np.zeros(k, np.bool_)
    lev = np.zeros(k, np.int64)
    for i in range(k):
        u = units[i]
        alive[i] = box[u] == _BOX_MAP
        lev[i] = level[u]
    out = np.empty(max(n, 0), np.int64)
    m = 0
    for step in range(n):
        eng_only = False
        if step < engineers_first:
            for i in range(k):
                if alive[i] and engineer[units[i]]:
                    eng_only = True
                    break
        best = -1
        bh = bw = bs = bu = 0
        for i in range(k):
            if not alive[i]:
                continue
            u = units[i]
            if eng_only and not engineer[u]:
                continue
            h = 1 if utype[u] == _HQ else 0
            w = np.int64(step_weight[u])
            sv = np.int64(attack[u, lev[i]]) + np.int64(defense[u, lev[i]])
            if (best < 0 or h < bh or (h == bh and (w < bw or (w == bw and (
                    sv < bs or (sv == bs and u < bu)))))):
                best, bh, bw, bs, bu = i, h, w, sv, u
        if best < 0:
            break
        u = units[best]
        out[m] = u
        m += 1
        if size[u] != _BATTALION or utype[u] == _ARTILLERY or lev[best] >= n_levels[u] - 1:
            alive[best] = False
        else:
            lev[best] += 1
    return out[:m].copy()
