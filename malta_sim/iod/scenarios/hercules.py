"""Operation Hercules (rule 22.3): the set-up of 22.31-22.38 and the optional rules of 22.39."""

from __future__ import annotations
import numpy as np
from malta_sim.iod.rules import special_rules as sp
from malta_sim.iod import static as st
from malta_sim.iod.state import (ALLIED, AXIS, BOX_ELIMINATED,
                    BOX_MAP, BOX_NOT_YET, BOX_TURN_TRACK)
from malta_sim.iod import invasion
from malta_sim.iod.rules import organisation


# =====================================================================================
# 3.0 Preparation and set-up (22.33-22.37)
# =====================================================================================
def invasion_setup(game) -> None:
    """Prepare Operation Hercules (rules 3.0 a-f, 22.33-22.37), after the land
    engine's scenario set-up has placed the printed Allied units, filled the
    Disbandment Box (3.0 b) and the militia cup (16.31).

    a) jumps of the first two days are planned (19.3; solitaire: none, 21.1);
    c) unassigned amphibious units are attached to the 4th or 20th Division (15.21);
    d) each division's beach zone is chosen (18.21; solitaire: rolled, 21.2);
    e) strongpoints go adjacent to beach hexes, one per hex (16.2); under 22.39
       Variable Allied Placement the Allied policy places every piece.
    The amphibious units wait off the map (``BOX_NOT_YET``) for the Initial
    Segment of 29 June (18.22); the warships for the first Amphibious Landing
    Phase (22.34).
    """
    s, t = game.state, game.static
    solo = invasion.solitaire(game)
    sc = getattr(game.scenario, "data", None) or invasion.inv_static(game).scenario_cfg.get("scenario_obj")
    # amphibious units (22.36)
    unassigned = []
    for div, places in sc.amphibious.items():
        for p in places:
            u = t.unit(p.piece)
            s.box[u], s.hex[u], s.box_slot[u] = BOX_NOT_YET, -1, -1
            s.level[u] = p.level - 1
            if t.utype[u] == st.ARTILLERY:
                s.hitched[u] = True
            if div == "unassigned":
                s.formation[u] = -1
                unassigned.append(u)
            else:
                s.formation[u] = {"4": invasion.F_4, "20": invasion.F_20}[str(div)]
    pol = game.policy(AXIS)
    # (c) attachments (15.21, 18.21)
    if unassigned:
        att = pol.hercules_attachments(game, list(unassigned), list(invasion.DIVISIONS))
        for u in unassigned:
            d = att.get(u)
            if d not in invasion.DIVISIONS:
                raise invasion._illegal("15.21", f"unassigned unit {t.names[u]} must join the 4th or 20th Division")
            s.formation[u] = d
    # (d) beach zones (18.21 / 21.2)
    inv = invasion.inv_static(game)
    zones = {z: [int(b) for b in inv.zone_beaches[z]] for z in range(len(inv.zone_names))}
    if solo:
        from malta_sim.iod.rules.solitaire import roll_beach_zones
        zone_of = roll_beach_zones(game)
    else:
        ch = pol.hercules_beach_zones(game, list(invasion.DIVISIONS), zones)
        for d in invasion.DIVISIONS:
            if ch.get(d) not in zones:
                raise invasion._illegal("18.21", "each infantry division needs a beach zone")
        zone_of = {d: int(ch[d]) for d in invasion.DIVISIONS}
    for d in invasion.DIVISIONS:
        s.division_zone[0, d] = zone_of[d]
        fz = getattr(game.scenario, "follow_up_zone", None)
        if isinstance(fz, dict):
            fz[d] = zone_of[d]                            # 16.82: where a lost HQ returns
    # (a) jump planning for the first two days (19.3), before the Allied set-up
    if not solo:
        from malta_sim.iod.rules.airborne import plan_jumps
        plan_jumps(game, days=(0, 1))
    # (e) Allied placement: strongpoints (16.2), or everything under 22.39
    _allied_placement(game, sc)
    invasion._log(game, "hercules_setup", side=AXIS,
         result=f"zones 4th={inv.zone_names[zone_of[invasion.F_4]]} 20th={inv.zone_names[zone_of[invasion.F_20]]}",
         rule="3.0")


def _allied_placement(game, sc) -> None:
    """Strongpoints adjacent to beach hexes, one per hex (16.2), on the
    scenario's default hexes; under optional rule 22.39 Variable Allied
    Placement the Allied policy then places every Allied piece on the map."""
    s, t = game.state, game.static
    grid = t.grid
    for fp in getattr(sc, "free_placement", []):
        for pc, hx in zip(fp.pieces, fp.default_hexes):
            u = t.unit(pc)
            s.box[u], s.hex[u] = BOX_MAP, grid.index(hx)
            s.formation[u] = 0
    if "variable_allied_placement" in game.options:
        placed = [int(u) for u in game.on_map(ALLIED)]
        variable_allied_placement(game, placed)


def legal_allied_hexes(game, u: int) -> list:
    """Hexes where an Allied unit may be placed under Variable Allied
    Placement (22.39): RN security in ports, RAF security on airfields,
    strongpoints adjacent to beach hexes (16.2), coastal guns off beaches
    (16.51), all others on land."""
    t = game.static
    land = t.land & ~t.beach if t.utype[u] in (st.COASTAL_GUN,) else t.land
    if t.utype[u] == st.SECURITY:
        nm = t.names[u]
        if ".rn." in nm:
            land = t.main_port | t.minor_port
        else:
            land = t.airfield
    if t.utype[u] == st.STRONGPOINT:
        adj = np.zeros_like(t.land)
        for b in np.flatnonzero(t.beach):
            for o in t.neighbours[b]:
                if o >= 0:
                    adj[o] = True
        land = adj & t.land & ~t.beach
    return [int(h) for h in np.flatnonzero(land)]


def variable_allied_placement(game, units: list) -> None:
    """Optional rule 22.39: the Allied policy re-places ``units`` in eligible
    hexes; engineers stay out (they only come from strongpoints, 16.25);
    stacking (7.1), one RAF company / strongpoint per hex, two guns per hex."""
    s, t = game.state, game.static
    units = [u for u in units if t.utype[u] != st.ENGINEER]
    options = {u: legal_allied_hexes(game, u) for u in units}
    choice = game.policy(ALLIED).allied_placement(game, units, options)
    per_hex_single = {}
    for u in units:
        h = choice.get(u)
        if h not in options[u]:
            raise invasion._illegal("22.39", f"{t.names[u]} cannot be placed there")
        if t.utype[u] in (st.STRONGPOINT,) or (t.utype[u] == st.SECURITY and ".raf." in t.names[u]):
            k = (int(t.utype[u]), h)
            if per_hex_single.get(k):
                raise invasion._illegal("22.39", "one RAF company / strongpoint per hex")
            per_hex_single[k] = True
        s.hex[u] = h
    _check_allied_stacking(game)


def _check_allied_stacking(game) -> None:
    s, t = game.state, game.static
    tot: dict = {}
    guns: dict = {}
    for u in game.on_map(ALLIED):
        h = int(s.hex[u])
        tot[h] = tot.get(h, 0) + organisation.stack_weight(game, u) / 2
        if t.utype[u] == st.COASTAL_GUN:
            guns[h] = guns.get(h, 0) + 1
    if any(v > 4 for v in tot.values()):
        raise invasion._illegal("7.1", "Allied placement over four battalions in a hex")
    if any(v > 2 for v in guns.values()):
        raise invasion._illegal("16.51", "more than two coastal guns in a hex")


def default_allied_placement(game, units: list, options: dict, gen) -> dict:
    """A legal placement for 22.39 (the bots' default and the random policy's):
    one-per-hex pieces spread first, others near beaches and airfields within
    the stacking limit.  ``gen`` None = deterministic, else shuffled."""
    t = game.static
    inv = invasion.inv_static(game)
    beaches = np.concatenate(inv.zone_beaches) if inv.zone_beaches else np.zeros(0, np.int32)
    d = t.grid.distance_table
    load: dict = {}
    guns: dict = {}
    single: set = set()
    out = {}
    order = list(units)
    if gen is not None:
        gen.shuffle(order)
    for u in order:
        opts = list(options[u])
        if gen is not None:
            gen.shuffle(opts)
        else:
            def key(h):
                nb = float(d[h, beaches].min()) if beaches.size else 0.0
                return (abs(nb - 2) + 0.5 * load.get(h, 0) - (2 if t.airfield[h] else 0), h)
            opts.sort(key=key)
        v = organisation.stack_weight(game, u) / 2
        for h in opts:
            if load.get(h, 0) + v > 4:
                continue
            if t.utype[u] == st.COASTAL_GUN and guns.get(h, 0) >= 2:
                continue
            single_key = (int(t.utype[u]), h)
            if (t.utype[u] == st.STRONGPOINT or (t.utype[u] == st.SECURITY and ".raf." in t.names[u])) \
                    and single_key in single:
                continue
            out[u] = h
            load[h] = load.get(h, 0) + v
            if t.utype[u] == st.COASTAL_GUN:
                guns[h] = guns.get(h, 0) + 1
            single.add(single_key)
            break
    return out


def delayed_landings(game) -> None:
    """Optional rule 22.39 Delayed Landings: a modified die of 7+ cancels this
    turn's Amphibious Landing Phase."""
    s, t = game.state, game.static
    airfields = int(((s.control == AXIS) & t.airfield).sum())
    para = (t.side == AXIS) & (t.paratroop if hasattr(t, "paratroop") else (t.utype == st.PARATROOP))
    para_steps = int(s.steps_lost[para & (t.utype != st.HQ)].sum())
    hq_lost = sum(1 for f in invasion.PARA_FORMATIONS
                  if t.formation_hq[f] >= 0 and s.box[t.formation_hq[f]] in (BOX_ELIMINATED, BOX_TURN_TRACK))
    mod = sp.delayed_landings_modifier(airfields, para_steps, hq_lost, int(s.weather[0]))
    if sp.delayed_landings_roll(invasion.nstate(game, "navy"), mod):
        s.landings_cancelled_turn[0] = game.turn
        invasion._log(game, "landings_delayed", side=AXIS, result=f"modifier {mod}", rule="22.39")
