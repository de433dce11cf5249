"""Morale (rule 11): disorganization, demoralization and recovery."""

from __future__ import annotations

from .state import BOX_MAP, DEMORALIZED, DISORGANIZED, NORMAL


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
    from .organisation import lose_step
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
    on = s.box == BOX_MAP
    # units of the side that are disorganized or demoralized, in ascending
    # order (leaders and warships have no morale state to recover)
    units = (on & tb.side_mask[side] & tb.controls & (s.morale_state != NORMAL)).nonzero()[0]
    if not len(units):
        return
    enemy_hex = set(s.hex[on & tb.side_mask[1 - side] & tb.controls].tolist())
    nbrs = tb.neighbours
    for u in units.tolist():
        adjacent = any(o in enemy_hex for o in nbrs[s.hex[u]])
        if adjacent:
            die = game.die("morale")
            ok = die < game.morale_value(u)
            game.log("recovery roll", side=side, units=[u], dice=[die],
                     result="recovers" if ok else "no recovery", rule="11.51")
            if not ok:
                continue
        s.morale_state[u] = DISORGANIZED if s.morale_state[u] == DEMORALIZED else NORMAL
