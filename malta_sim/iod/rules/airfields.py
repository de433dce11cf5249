"""Airborne units landing at airfields and the AA fire against them (rules
16.1, 16.11-16.15).

Each Axis Movement Phase, except on Rainy or Night turns, two "company
equivalents" in total may land on Axis-controlled airfields that have no
adjacent Allied unit (16.11): a company counts 1, the 80th Division HQ counts 1,
a glider artillery battalion counts 2.  Battalions must be broken down into
companies first (16.1; commandos break down into glider companies, 16.14).
Then each Allied AA unit may fire at one airfield within 3 hexes where units
just landed: one die, a 6 eliminates one of the units just landed there (the
Axis player's choice) (16.12).
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb

from malta_sim.rng import nb_die
import numpy as np
from malta_sim.iod import proximity
from malta_sim.iod import static as st
from malta_sim.iod.state import (ALLIED, AXIS, BOX_DISBANDMENT, BOX_ELIMINATED,
                    BOX_MAP, BOX_POOL,
                    NIGHT, RAINY)
from malta_sim.iod import invasion

#: Company equivalents that may land at airfields per Axis Movement Phase (16.11).
AIRFIELD_CAPACITY = 2
#: AA range in hexes (16.12).
AA_RANGE = 3


def airfield_cost(is_artillery: bool) -> int:
    """Company equivalents a piece uses of the airfield capacity (rule 16.11):
    2 for a glider artillery battalion, 1 for a company or the 80th HQ."""
    return 2 if is_artillery else 1


@nb.njit(cache=True)
def aa_fire(rs):
    """One Allied AA unit fires at an airfield where airborne units just landed
    (rule 16.12).

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state.

    Returns
    -------
    bool
        True on a 6: one unit just landed on that airfield is eliminated.
    """
    return nb_die(rs) == 6


def p_aa_kill() -> Fraction:
    """Exact probability that one AA unit's fire eliminates a unit (1/6, 16.12)."""
    return Fraction(1, 6)


# ====================================================================================
# Moved from the invasion engine
# ====================================================================================
# =====================================================================================
# Axis Movement Phase hooks: airfields (16.1)
# =====================================================================================
def airfield_entry(game) -> None:
    """Rules 16.11-16.15 (4.24 f-g): up to two company equivalents land on
    Axis-controlled airfields with no adjacent Allied unit (not Rainy, not
    Night); then Allied AA units within 3 hexes fire at them (16.12)."""
    from malta_sim.iod.rules import airfields as af

    s, t = game.state, game.static
    if game.tod == NIGHT or s.weather[0] == RAINY:
        return                                                  # 16.15
    inv = invasion.inv_static(game)
    rel = inv.airfield_pieces
    if not np.count_nonzero(s.box[rel] == BOX_DISBANDMENT):
        return              # nothing to break down and no candidate below: nothing happens
    d = t.grid.distance_table
    held = np.flatnonzero(t.airfield & (s.control == AXIS))
    if held.size:
        held = held[proximity.nearest_allied_units(game, held) > 1]   # no Allied unit in or next to it
    fields = held.tolist()
    if not fields:
        return
    # battalions with companies in play (is_broken for every battalion at once;
    # breaking one battalion down gives companies to it alone)
    broken = set(s.parent[(s.parent >= 0) & (s.box != BOX_ELIMINATED) & (s.box != BOX_POOL)].tolist())
    # battalions of the 80th Division and the commandos break down first (16.1, 16.14)
    bns = inv.airfield_battalions
    before = None
    for b in bns[s.box[bns] == BOX_DISBANDMENT].tolist():
        if b not in broken:
            if before is None:
                before = (s.parent.tobytes(), s.box.tobytes())
            invasion.break_down(game, b)
    # the broken-down battalions now (nothing changes while the candidates are
    # listed; nor above unless a break-down changed the pieces' parents or
    # boxes, whatever a replaced break_down returns)
    if before is not None and before != (s.parent.tobytes(), s.box.tobytes()):
        broken = set(s.parent[(s.parent >= 0) & (s.box != BOX_ELIMINATED) & (s.box != BOX_POOL)].tolist())
    battalion = inv.battalion
    # companies (16.1) and artillery battalions not broken down; no leaders
    ok = (s.box == BOX_DISBANDMENT) & inv.airfield_entrants
    cands = [u for u in ok.nonzero()[0].tolist() if not (battalion[u] and u in broken)]
    if not cands:
        return
    cost = {u: af.airfield_cost(a) for u, a in zip(cands, (t.utype[cands] == st.ARTILLERY).tolist())}
    pick = game.policy(AXIS).airfield_landings(game, cands, fields, af.AIRFIELD_CAPACITY, cost)
    if sum(cost.get(u, 99) for u, _ in pick) > af.AIRFIELD_CAPACITY:
        raise invasion._illegal("16.11", "at most two company equivalents land at airfields per phase")
    landed: dict = {}
    for u, h in pick:
        if u not in cost or h not in fields:
            raise invasion._illegal("16.11", "airborne entry only on Axis airfields with no adjacent Allied unit")
        if s.formation[u] < 0 and t.printed_formation[u] >= 0:
            s.formation[u] = t.printed_formation[u]
        # commando companies stay unassigned until attached in an Initial Segment (16.14, 15.21)
        s.entered_turn[u] = game.turn
        s.moved[u] = True                                       # 16.13
        if t.utype[u] == st.ARTILLERY:
            s.hitched[u] = True                                 # 16.13
        invasion.move_unit(game, u, int(h), "airfield")
        landed.setdefault(int(h), []).append(u)
    if not landed:
        return
    invasion._log(game, "airfield_landing", side=AXIS, hexes=list(landed), units=[u for u, _ in pick], rule="16.11")
    # 16.12 AA fire
    aas = game.on_map(ALLIED)
    aas = aas[t.aa[aas]].tolist()                               # Allied AA units on the map
    options = {a: [h for h in landed if d[s.hex[a], h] <= af.AA_RANGE] for a in aas}
    options = {a: v for a, v in options.items() if v}
    if not options:
        return
    choice = game.policy(ALLIED).aa_targets(game, options)
    rs = invasion.nstate(game, "air")
    for a, h in sorted(choice.items()):
        if a not in options or h not in options[a]:
            raise invasion._illegal("16.12", "AA fires at one airfield within three hexes")
        if af.aa_fire(rs):
            victims = [u for u in landed[h] if s.box[u] == BOX_MAP]
            if victims:
                v = game.policy(AXIS).choose_loss(game, victims, "AA fire 16.12")
                if v not in victims:
                    raise invasion._illegal("16.12", "AA loss must be a unit just landed there")
                invasion.eliminate(game, v, "AA fire 16.12")
                invasion._log(game, "aa_fire", side=ALLIED, hexes=[h], units=[a, v], result="eliminated", rule="16.12")
