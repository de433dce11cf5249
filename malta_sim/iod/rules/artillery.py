"""Artillery ammunition (rule 12.5): expenditure, distribution in the Status
Phase.  (Axis ammunition landing, 12.54, is an Initial Segment step of the
invasion engine; it adds to ``state.stockpile``.)"""

from __future__ import annotations

from itertools import compress

import numpy as np

from malta_sim.iod import static as st
from malta_sim.iod.rules import ammunition_routes
from malta_sim.iod.rules import supply
from malta_sim.iod.game import illegal
from malta_sim.iod.state import AXIS, BOX_MAP
from malta_sim.iod import invasion


def expend(game, u: int, n: int = 1) -> None:
    """Rule 12.51: spend ``n`` salvos (warships never run out, 16.77)."""
    s, t = game.state, game.static
    if t.utype[u] == st.WARSHIP:
        return
    s.salvos[u] = max(0, int(s.salvos[u]) - n)


def defensive_expend(game, u: int) -> None:
    """Rule 12.51: after defensive support roll one die; 1-2 spends a salvo."""
    if game.static.utype[u] == st.WARSHIP:
        return
    die = game.die("combat")
    if die <= 2:
        expend(game, u, 1)
    if game.events is not None:
        game.log("defensive fire ammunition", side=int(game.static.side[u]), units=[u], dice=[die],
                 result="salvo spent" if die <= 2 else "no salvo spent", rule="12.51")


def ammo_eligible(game, side: int) -> list[int]:
    """Artillery of ``side`` that may receive salvos now (12.56, 4.21 b, 4.31 c):
    supplied, on the map, fewer than two salvos, and a supply route to an
    Axis-controlled beach hex or port (Axis) or to 1711/1715 not occupied by
    the Axis (Allied)."""
    s, t = game.state, game.static
    arts = ((s.box == BOX_MAP) & game.tables.side_mask[side] & (t.utype == st.ARTILLERY)
            & (s.salvos < 2) & ~s.out_of_supply).nonzero()[0].tolist()
    if not arts:
        return []
    if side == AXIS:
        tgt = (t.beach | t.main_port | t.minor_port) & (s.control == AXIS)
        if not tgt.any():
            return []
    else:
        pts = [h for h in t.allied_ammo_points if not len(game.units_at(h, AXIS))]
        if not pts:
            return []
        tgt = np.zeros(t.n_hexes, bool)
        tgt[pts] = True
    # one route search per piece (8.2, at most 12 hexes), all in one call
    ok = ammunition_routes.ammo_route_ok(np.array(arts, np.int64), s.hex, supply.passable_for(game, side), tgt,
                       t.neighbours, t.ocean_side, supply.MAX_ROUTE)
    return list(compress(arts, ok.tolist()))


def distribute_ammunition(game, side: int) -> None:
    """Rule 12.56: the active player hands salvos to eligible artillery; the
    Axis from the stockpile (12.54), the Allies without limit (12.55); never
    more than two salvos per unit (12.5)."""
    s, t = game.state, game.static
    stock = int(s.stockpile[0]) if side == AXIS else -1
    if side == AXIS and stock <= 0:
        return                                  # nothing to hand out (12.54)
    el = ammo_eligible(game, side)
    if not el:
        return
    give = game.policy(side).distribute_ammo(game, el, stock)
    total = 0
    for u, k in give.items():
        u, k = int(u), int(k)
        if u not in el or k < 0 or s.salvos[u] + k > 2:
            raise illegal("12.56", f"cannot give {k} salvos to {t.names[u]}")
        total += k
    if side == AXIS and total > stock:
        raise illegal("12.56", f"{total} salvos asked, stockpile holds {stock}")
    for u, k in give.items():
        s.salvos[int(u)] += int(k)
    if side == AXIS:
        s.stockpile[0] -= total
    if total and game.events is not None:
        game.log("ammunition", side=side, units=list(give), result=f"{total} salvos", rule="12.56")


# ====================================================================================
# Moved from the invasion engine
# ====================================================================================
def ammunition_landed(game) -> None:
    """Rule 12.54: six dice per Axis-controlled Main Port, three per Minor
    Port, one per Axis-controlled beach hex where Axis units have landed; each
    5 or 6 is one salvo for the Axis stockpile."""
    s, t = game.state, game.static
    ax = s.control == AXIS
    n = 6 * int((ax & t.main_port).sum()) + 3 * int((ax & t.minor_port & ~t.main_port).sum()) \
        + int((ax & s.landed_beach).sum())
    if n == 0:
        return
    g = invasion.rng(game, "supply")
    salvos = int((g.integers(1, 7, size=n) >= 5).sum())
    s.stockpile[0] += salvos
    invasion._log(game, "ammunition_landed", side=AXIS, result=f"{salvos} salvos from {n} dice", rule="12.54")
