"""Whole-game invariants checked at every phase end in test mode
(``Game.check``): stacking (7.1), nothing on ocean, steps in range, unit
accounting, the victory tallies and surrender modifier against a direct
recount (20.0-20.2)."""

from __future__ import annotations

import numpy as np

from . import static as st
from .state import ALLIED, AXIS, BOX_MAP, BOX_NAMES


class InvariantError(AssertionError):
    """A game state broke an invariant (a bug in the engine, not a user error)."""


def check_invariants(game, phase: str) -> None:
    """Raise :class:`InvariantError` naming the phase and the broken invariant."""
    from .organisation import STACK_LIMIT_HALVES, hex_stack
    s, t = game.state, game.static
    where = f"turn {game.turn} phase {phase}"
    on = s.box == BOX_MAP
    # unit accounting: on map <=> hex >= 0; box code known
    if ((s.hex >= 0) != on).any():
        bad = np.flatnonzero((s.hex >= 0) != on)[:3]
        raise InvariantError(f"{where}: hex/box mismatch for {[t.names[i] for i in bad]}")
    if (s.box < 0).any() or (s.box >= len(BOX_NAMES)).any():
        raise InvariantError(f"{where}: unknown box code")
    # nothing on ocean except warships; warships only at sea (16.71)
    for u in np.flatnonzero(on):
        land = t.land[s.hex[u]]
        if t.utype[u] == st.WARSHIP:
            if land:
                raise InvariantError(f"{where}: warship {t.names[u]} on land")
        elif not land:
            raise InvariantError(f"{where}: {t.names[u]} on an ocean hex {game.hex_name(s.hex[u])}")
    # steps in range (17.3)
    if ((s.level < 0) | (s.level >= t.n_levels)).any():
        bad = np.flatnonzero((s.level < 0) | (s.level >= t.n_levels))[:3]
        raise InvariantError(f"{where}: strength level out of range for {[t.names[i] for i in bad]}")
    if ((s.salvos < 0) | (s.salvos > 2)).any():
        raise InvariantError(f"{where}: salvos out of 0..2 (12.5)")
    # stacking (7.1) after the end-of-phase check
    for side in (AXIS, ALLIED):
        for h in np.unique(s.hex[game.on_map(side)]):
            if hex_stack(game, int(h), side) > STACK_LIMIT_HALVES:
                raise InvariantError(f"{where}: over-stacked hex {game.hex_name(h)}")
    # both sides never share a hex at a phase end
    ax = set(int(h) for u in game.on_map(AXIS) for h in [s.hex[u]] if t.utype[u] != st.WARSHIP)
    al = set(int(h) for u in game.on_map(ALLIED) for h in [s.hex[u]])
    if ax & al:
        h = sorted(ax & al)[0]
        raise InvariantError(f"{where}: both sides in hex {game.hex_name(h)}")
    # control agrees with occupation (2.1)
    for u in game.on_map():
        if t.utype[u] in (st.LEADER, st.WARSHIP):
            continue
        if s.control[s.hex[u]] != t.side[u]:
            raise InvariantError(f"{where}: hex {game.hex_name(s.hex[u])} not controlled by its occupant")
    # victory tallies against a recount (20.1, 20.2, 22.29)
    sc = game.scenario.data
    base = {AXIS: sc.axis_steps_eliminated if sc is not None else 0,
            ALLIED: sc.allied_steps_eliminated if sc is not None else 0}
    for side, tally in ((AXIS, int(s.axis_steps_lost[0])), (ALLIED, int(s.allied_steps_lost[0]))):
        m = t.side == side
        recount = base[side] + int((s.steps_lost[m].astype(int) * t.step_weight[m]).sum())
        if side == AXIS:
            recount += int(s.warships_damaged[0])
        if recount != tally:
            raise InvariantError(f"{where}: {('Axis', 'Allied')[side]} steps lost tally {tally} "
                                 f"!= recount {recount}")
