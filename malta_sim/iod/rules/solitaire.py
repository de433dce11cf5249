"""Solitaire rules (rule 21), used with ``--option solitaire``.

* 21.2: each infantry division's beach zone is rolled (1-2 West, 3-4 North,
  5 East, 6 South), again when both divisions roll the same zone.
* 21.11: each drop zone marker is placed on 29 June either (a) on a hex within
  3 hexes of a beach hex occupied by Axis units or where they have landed, or
  (b) by a die on the table 1-2 0911, 3 1313, 4 1512, 5 1813, 6 2012; then it
  rolls on the Drop Table with the solitaire +2, re-rolling from ocean.
* 21.12: in each AM and PM turn the player picks how many sticks jump (within
  the scenario's limits, and only for formations whose marker is down); each
  is placed on its marker's hex and rolls with +2; no jump is ever cancelled,
  none in Rainy, noon or night turns (21.1).  In the Introductory Scenario the
  battalion named for 30 June AM or PM jumps alone on its marker, without the
  +2 (22.26).
"""

from __future__ import annotations

import numpy as np

from malta_sim.iod.state import AM, AXIS, BOX_DISBANDMENT, BOX_MAP, PM, RAINY
from malta_sim.iod import invasion
from malta_sim.iod.rules import amphibious




def roll_beach_zones(game) -> dict:
    """Rule 21.2: roll a die per division for its beach zone; re-roll the second
    division while it matches the first.  Returns formation -> zone index."""
    h = invasion
    inv = h.inv_static(game)
    out = {}
    used = set()
    for f in h.DIVISIONS:
        for _ in range(100):
            z = inv.solo_zones[game.die("setup")]
            if z not in used:
                break
        out[f] = z
        used.add(z)
    game.log("solitaire_beach_zones", side=AXIS, result=str({k: inv.zone_names[v] for k, v in out.items()}),
             rule="21.2")
    return out


def method_a_hexes(game) -> list:
    """Rule 21.11 a: hexes within 3 of a beach hex with Axis units or where Axis
    units have landed, that a marker may be planned on (19.33)."""
    s, t = game.state, game.static
    beaches = set(int(b) for b in np.flatnonzero(s.landed_beach))
    for u in game.on_map(AXIS):
        if t.beach[s.hex[u]]:
            beaches.add(int(s.hex[u]))
    if not beaches:
        return []
    d = t.grid.distance_table
    ok = t.land & ~t.beach & ~t.coastal
    b = np.array(sorted(beaches))
    return [int(x) for x in np.flatnonzero(ok) if (d[x, b] <= 3).any()]


def solitaire_airborne_phase(game) -> None:
    """Rules 21.11, 21.12 (4.23 in solitaire play)."""
    from malta_sim.iod.rules.airborne import PARA, _limits, available_sticks, drop_marker, jump_stick, rally

    h = invasion
    s, t = game.state, game.static
    inv = h.inv_static(game)
    if s.weather[0] == RAINY or game.tod not in (AM, PM):
        return
    pol = game.policy(AXIS)
    # 21.11 markers on 29 June (both by the PM turn)
    if game.day == 0:
        for f in PARA:
            if s.dz_hex[0, f] >= 0:
                continue
            opts = method_a_hexes(game)
            method = pol.solitaire_marker_method(game, f)
            if method == "a" and opts:
                hx = pol.plan_marker(game, f, game.turn, opts)
                if hx not in opts:
                    raise h._illegal("21.11", "method (a) hex must be within 3 hexes of a landing beach")
            else:
                hx = inv.solo_dz_hexes[game.die("drop")]
            drop_marker(game, f, int(hx), solitaire=True)
    lim = _limits(game, game.turn)
    if lim["total"] <= 0:
        return
    if lim["forced"]:
        # 22.26 (21.12): the named battalion jumps on its formation's marker and no
        # other stick jumps; these are the Introductory Scenario's first two sticks,
        # whose rolls have no solitaire +2
        f = 1 if lim["at"].endswith("ramcke") else 2
        units = [t.unit(x) for x in lim["forced"] if x in t._index]
        units = [u for u in units if s.box[u] == BOX_DISBANDMENT]
        jumped = []
        if units and s.dz_hex[0, f] >= 0:
            jumped = jump_stick(game, f, units, t.grid.hex_id(int(s.dz_hex[0, f])), solitaire=False)
        rally(game, jumped)
        amphibious._reform(game, [int(s.hex[u]) for u in jumped if s.box[u] == BOX_MAP])
        return
    sticks = []
    for f in PARA:
        if s.dz_hex[0, f] < 0:
            continue
        for kind, units in available_sticks(game, f, set()):
            if lim["kinds"] and kind not in lim["kinds"].get(f, ()):
                continue
            pri = {"hq_engineers": 0, "battalion": 1, "returning": 2, "artillery": 3}[kind]
            sticks.append((pri, f, kind, units))
    if not sticks:
        return
    n = pol.solitaire_n_sticks(game, game.turn, lim["total"])
    if not (0 <= n <= lim["total"]):
        raise h._illegal("21.12", "more sticks than the scenario allows this turn")
    sticks.sort(key=lambda x: (x[0], x[3]))
    per: dict = {}
    jumped = []
    for pri, f, kind, units in sticks:
        if sum(per.values()) >= n:
            break
        if per.get(f, 0) >= lim.get(f, 0):
            continue
        per[f] = per.get(f, 0) + 1
        target = t.grid.hex_id(int(s.dz_hex[0, f]))
        jumped += jump_stick(game, f, list(units), target, solitaire=True)
        if sum(per.values()) >= n:
            break
    rally(game, jumped)
    amphibious._reform(game, [int(s.hex[u]) for u in jumped if s.box[u] == BOX_MAP])
