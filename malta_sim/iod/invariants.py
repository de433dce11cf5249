"""Whole-game invariants checked at every phase end in test mode
(``Game.check``): stacking (7.1), nothing on ocean, steps in range, unit
accounting, the victory tallies and surrender modifier against a direct
recount (20.0-20.2)."""

from __future__ import annotations

import numpy as np

from malta_sim.iod import static as st
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP, BOX_NAMES


class InvariantError(AssertionError):
    """A game state broke an invariant (a bug in the engine, not a user error)."""


def check_invariants(game, phase: str) -> None:
    """Raise :class:`InvariantError` naming the phase and the broken invariant."""
    from malta_sim.iod.rules.organisation import STACK_LIMIT_HALVES, hex_stack
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
    # surrender modifier against the data table's recount (20.0)
    from malta_sim.iod.rules.victory import surrender_modifier
    mod, _ = surrender_modifier(game)
    rc = recount_surrender_modifier(game)
    if mod != rc:
        raise InvariantError(f"{where}: surrender modifier {mod} != recount {rc} (20.0)")


def recount_surrender_modifier(game) -> int:
    """Rule 20.0 land terms recounted from the state with the data's surrender
    modifier table (an independent implementation of the same rule), plus the
    invasion terms."""
    from malta_sim.iod.static import load_data
    from malta_sim.iod.state import BOX_ELIMINATED, BOX_TURN_TRACK
    s, t = game.state, game.static
    tables = load_data(t.provenance.get("data_dir")).tables
    ax = s.control == AXIS
    sc = game.scenario.data
    base = {AXIS: sc.axis_steps_eliminated if sc is not None else 0,
            ALLIED: sc.allied_steps_eliminated if sc is not None else 0}
    steps = {}
    for side in (AXIS, ALLIED):
        m = t.side == side
        steps[side] = base[side] + int((s.steps_lost[m].astype(int) * t.step_weight[m]).sum())
    steps[AXIS] += int(s.warships_damaged[0])
    hq = (t.utype == st.HQ) & (t.side == AXIS) & ((s.box == BOX_ELIMINATED) | (s.box == BOX_TURN_TRACK))
    counts = {f"axis_city_{t.grid.hex_id(int(h))}": int(ax[h]) for h in t.victory_cities}
    counts.update(axis_airfields=int((t.airfield & ax).sum()), axis_towns=int((t.town & ax).sum()),
                  forts_destroyed=int((t.fort & s.fort_destroyed).sum()),
                  allied_steps=steps[ALLIED], axis_steps=steps[AXIS], axis_hq=int(hq.sum()))
    day = game.day
    if day >= 7:
        counts[f"date_07-{day - 1:02d}"] = 1
    from malta_sim.iod.rules.victory import surrender_modifier
    _, terms = surrender_modifier(game)
    return tables.surrender_modifier(counts) + terms["invasion"]




