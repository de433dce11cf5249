"""Plain references of Island of Death rule queries (test oracles).

Each function is the plain-Python statement of a query the engine answers
with a compiled kernel or a kept answer; its docstring names the package
function it checks.
"""

from __future__ import annotations

import numpy as np

from malta_sim.iod.rules import airborne as ap
from malta_sim.iod.rules import combat, special_rules as special, supply
from malta_sim.iod import static as st
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP, DEMORALIZED


def marker_reach(game, here: int, zoc: np.ndarray, steps: int = ap.MARKER_MOVE) -> list:
    """Hexes a drop zone marker on ``here`` may move to (rule 19.13), the
    plain search :func:`airborne_phase.marker_reach_kernel` answers: up to ``steps``
    hexes, each entered hex land, Axis-controlled, free of Allied units, and
    not in the Allied ZOC (``zoc``, bool[H]) unless Axis units stand there.
    Returns the hexes other than ``here``, ascending (Python ints)."""
    s, t = game.state, game.static
    near = game.static.invasion.near_lists
    on = s.hex >= 0
    allied_at = set(s.hex[on & (t.side == ALLIED)].tolist())
    axis_at = set(s.hex[on & (t.side == AXIS)].tolist())
    land, axis_ctrl, zoc_l = t.land.tolist(), (s.control == AXIS).tolist(), zoc.tolist()
    reach = {here: 0}
    frontier = [here]
    while frontier:
        nxt = []
        for x in frontier:
            if reach[x] >= steps:
                continue
            for y in near[x][1:]:
                if y in reach or not land[y] or not axis_ctrl[y]:
                    continue
                if y in allied_at:
                    continue
                if zoc_l[y] and y not in axis_at:
                    continue
                reach[y] = reach[x] + 1
                nxt.append(y)
        frontier = nxt
    return sorted(x for x in reach if x != here)


def occupancy(game, side: int) -> tuple[np.ndarray, np.ndarray]:
    """(blocking, trivial) bool[n_hexes] of ``side`` from whole-array numpy
    steps (rule 6.52): the reference of :func:`movement.occupancy_kernel`."""
    s, t = game.state, game.static
    nh = t.n_hexes
    block = np.zeros(nh, bool)
    anyp = np.zeros(nh, bool)
    units = game.on_map(side)
    units = units[t.utype[units] != st.WARSHIP]
    ut = t.utype[units]
    h = s.hex[units]
    anyp[h] = True
    b = (ut != st.LEADER) & (ut != st.COASTAL_GUN) & (t.defense[units, s.level[units]] > 0)
    block[h[b]] = True
    trivial = anyp & ~block
    return block, trivial


def barred(game, cand: np.ndarray, failed) -> np.ndarray:
    """:func:`combat._barred` with :func:`special.delayed_reaction_ok` asked
    per piece (rules 16.73, 17.7)."""
    t = game.static
    barred = np.zeros(len(game.state.box), bool)
    for u in cand.tolist():
        if t.utype[u] == st.WARSHIP:
            barred[u] = bool(failed) and u in failed                  # 16.73
        elif t.side[u] == 1:
            barred[u] = not special.delayed_reaction_ok(game, u)               # 17.7
    barred.flags.writeable = False
    return barred


def command_leader(game, side: int, units):
    """:func:`combat._command_leader` from the state masks and per-unit
    reads (rules 14.2, 14.21, 15.3)."""
    s, t = game.state, game.static
    dist = t.grid.distance_table
    best = None
    tb = game.tables
    for ld in ((s.box == BOX_MAP) & tb.leader & tb.side_mask[side]).nonzero()[0].tolist():
        if s.leader_uses[ld] >= 2:          # the side's leaders on the map, ascending
            continue
        f = int(t.printed_formation[ld])
        if any(s.formation[u] == f and dist[s.hex[ld], s.hex[u]] <= 1 for u in units):
            tv = int(t.tactical[ld, s.level[ld]])
            if best is None or tv > best[1]:
                best = (ld, tv)
    return best


def odds_modifiers(game, side, attackers, defenders, target, air=0, roll_leaders=True) -> dict:
    """:func:`combat.odds_modifiers` in plain Python, the reference of the
    compiled parts (rule 9.92 + 11.2, 14.2, 15.4, 16.42, 17.32).

    One pass over each side's units gathers what the modifiers read: the
    hexes of tanks that are not demoralized and of their partners (armor), the
    attackers' hexes (engineers, envelopment), the regiments (integrity), the
    formation or remnant of each attacker (mixed formations) and the morale
    total (morale)."""
    s, t, tb = game.state, game.static, game.tables
    hexa, mor, lev, form = s.hex, s.morale_state, s.level, s.formation
    tank, partner, reg = tb.tank, tb.armor_partner, tb.regiment
    sp, mo, rem = tb.strongpoint, tb.morale, tb.remnant_level_l
    a_hex = []
    tank_h, partner_h, regs, keys = set(), set(), set(), set()
    tot_a = 0
    for u in attackers:
        h = int(hexa[u])
        a_hex.append(h)
        lu = lev[u]
        demoralized = mor[u] == DEMORALIZED
        if tank[u] and not demoralized:
            tank_h.add(h)
        if partner[u]:
            partner_h.add(h)
        r = reg[u]
        if r >= 0:
            regs.add(r)
        r = rem[u]
        keys.add(("remnant", u) if r >= 0 and lu == r else int(form[u]))     # 17.32
        v = 4 if sp[u] else mo[u][lu]                                        # 16.24
        tot_a += v - 1 if demoralized else v                                 # 11.4
    d_tank_h, d_partner_h, d_regs = set(), set(), set()
    tot_d = n_d = 0
    for u in defenders:
        demoralized = mor[u] == DEMORALIZED
        if tank[u] and not demoralized:
            d_tank_h.add(int(hexa[u]))
        if partner[u]:
            d_partner_h.add(int(hexa[u]))
        r = reg[u]
        if r >= 0:
            d_regs.add(r)
        v = 4 if sp[u] else mo[u][lev[u]]
        tot_d += v - 1 if demoralized else v
        n_d += 1
    m = {}
    if tank_h and not tank_h.isdisjoint(partner_h):
        m["armor_attacking"] = 2
    if d_tank_h and not d_tank_h.isdisjoint(d_partner_h):
        m["armor_defending"] = -1
    hexes = set(a_hex)
    if t.fort[target] and not s.fort_destroyed[target]:
        eng = tb.engineer
        if hexes == {h for u, h in zip(attackers, a_hex) if eng[u]}:   # an engineer in each hex
            m["engineers"] = 1
    if len(hexes) >= 4:
        m["envelopment"] = 1
    if regs and _regiments_intact(game, regs, set(attackers)):
        m["attacker_integrity"] = 2
    if d_regs and _regiments_intact(game, d_regs, set(defenders)):
        m["defender_integrity"] = -1
    if len(keys) > 1:
        m["mixed_formations"] = -1
    n_a = len(a_hex)
    diff = (-(-tot_a // n_a) if n_a else 0) - (-(-tot_d // n_d) if n_d else 0)   # 9.92, 11.2
    if diff:
        m["morale"] = int(min(3, max(-2, diff)))
    return combat._air_and_command(game, m, side, attackers, defenders, target, air, roll_leaders)


def penetration_leader(game, units):
    """:func:`combat._penetration_leader` with per-unit reads of the static
    and state arrays (rule 10.31)."""
    s, t = game.state, game.static
    dist = t.grid.distance_table
    best = None
    for u in units:
        f = int(s.formation[u])
        if f < 0:
            continue
        ld = int(t.formation_leader[f])
        if ld < 0 or s.box[ld] != BOX_MAP or dist[s.hex[ld], s.hex[u]] > 1:
            continue
        if best is None or t.tactical[ld, s.level[ld]] > t.tactical[best, s.level[best]]:
            best = ld
    return best


def compute_supply(game, side: int) -> np.ndarray:
    """:func:`supply.compute_supply` step by step in numpy (rules 8.1-8.5),
    the reference of :func:`supply.supply_kernel`."""
    t, s = game.static, game.state
    units = game.on_map(side)
    ok = np.zeros(t.n_units, bool)
    if supply.automatic_supply_turn(game):
        ok[units] = True
        return ok
    passable = supply.passable_for(game, side)
    hq_reach = {}
    for f in range(t.n_formations):
        hq = t.formation_hq[f]
        if hq < 0 or t.side[hq] != side or s.box[hq] != BOX_MAP:
            continue
        h = int(s.hex[hq])
        dist = supply.route_distance(h, passable, t.neighbours, t.ocean_side, supply.MAX_ROUTE)    # from the HQ's own hex
        srcs = supply.supply_sources(game, side, f)
        hq_ok = bool(len(srcs)) and bool((dist[srcs] >= 0).any())
        if s.entered_turn[hq] == game.turn:
            hq_ok = True                     # 8.53
        ok[hq] = hq_ok
        if hq_ok:
            hq_reach[f] = dist
    # the units, all at once (each test only ever sets ``ok``)
    ut = t.utype[units]
    ok[units[(ut == st.LEADER) | (ut == st.WARSHIP)]] = True     # HQs were settled above
    units = units[(ut != st.HQ) & (ut != st.LEADER) & (ut != st.WARSHIP)]
    hx = s.hex[units]
    ok[units[s.entered_turn[units] == game.turn]] = True          # 8.53
    if side == ALLIED:
        cf = (t.city & (s.control == ALLIED)) | (t.fort & ~s.fort_destroyed & (s.control != AXIS))
        near_cf = cf.copy()
        nb = t.neighbours[cf]
        near_cf[nb[nb >= 0]] = True
        ok[units[near_cf[hx]]] = True                              # 8.52
    form = s.formation[units]
    for f, dist in hq_reach.items():                               # 8.12
        ok[units[(form == f) & (dist[hx] >= 0)]] = True
    return ok


def fits_stacking(game, units, h: int) -> bool:
    """:func:`organisation.fits_stacking` from the unit queries (rule 7.1)."""
    tb, lev = game.tables, game.state.level
    bw, rl = tb.base_weight_l, tb.remnant_level_full_l
    side = tb.side[units[0]]
    moving = {int(v) for v in units}
    tot = 0
    for x in game.units_at(h, side).tolist():
        if x not in moving:
            tot += bw[x] - (int(lev[x]) == rl[x])          # stack_weight
    for u in units:
        tot += bw[u] - (int(lev[u]) == rl[u])
    return tot <= st.STACK_LIMIT_HALVES


def advance_eligible(game, side: int, stayers) -> list[int]:
    """:func:`combat._advance_eligible` from the unit queries (rule 9.81):
    the attackers that did not retreat, then the pieces stacked with them
    that did not attack (never leaders, HQs or AA), never artillery or
    pieces that cannot move."""
    s = game.state
    origins0 = {int(s.hex[u]) for u in stayers}
    ut, ground, stay = game.tables.utype, game._ground, set(stayers)
    extra = [x for o in origins0 for x in game.units_at(o, side).tolist()
             if x not in stay and ground[x] and ut[x] not in (st.LEADER, st.HQ, st.AA)]
    return [u for u in list(stayers) + extra
            if ut[u] != st.ARTILLERY and not combat._ma_zero(game, u)]


def _integrity(game, units, need_all_in: set) -> bool:
    """Rule 9.92/9.95/17.32: some regiment or brigade whose battalions are all
    on the map, none demoralized or a remnant, all among ``units``."""
    s, tb = game.state, game.tables
    reg = tb.regiment
    regs = {reg[u] for u in units if reg[u] >= 0}
    if not regs:
        return False
    box, mor, lev, rem = s.box, s.morale_state, s.level, tb.remnant_level_l
    for r in regs:
        if s.integrity_lost[0, r]:
            continue
        mem = tb.members[r]
        if not mem:
            continue
        if need_all_in.issuperset(mem) and all(
                box[m] == BOX_MAP and mor[m] != DEMORALIZED and not (rem[m] >= 0 and lev[m] == rem[m])
                for m in mem):
            return True
    return False


def _armor(game, units) -> bool:
    """Rule 9.92: a hex of ``units`` holds a tank that is not demoralized
    together with an infantry-type partner (:data:`static.ARMOR_PARTNERS`)."""
    s, tb = game.state, game.tables
    tank, mor, hexa = tb.tank, s.morale_state, s.hex
    tank_hexes = {int(hexa[u]) for u in units if tank[u] and mor[u] != DEMORALIZED}
    if not tank_hexes:
        return False
    partner = tb.armor_partner
    return any(partner[u] and int(hexa[u]) in tank_hexes for u in units)


def _avg_morale(game, units) -> int:
    """Rules 9.92, 11.2: average current morale (:meth:`Game.morale_value`) of
    ``units``, fractions rounded up; 0 for no units."""
    tb, s = game.tables, game.state
    sp, mo, lev, mor = tb.strongpoint, tb.morale, s.level, s.morale_state
    tot = n = 0
    for u in units:
        v = 4 if sp[u] else mo[u][lev[u]]                              # 16.24
        if mor[u] == DEMORALIZED:
            v -= 1                                                     # 11.4
        tot += v
        n += 1
    return -(-tot // n) if n else 0


def _regiments_intact(game, regs, units: set) -> bool:
    """:func:`_integrity` for the regiments ``regs`` of ``units`` (rules 9.92,
    9.95, 17.32): one of them has all its battalions among ``units``, on the
    map, none demoralized or a remnant."""
    s, tb = game.state, game.tables
    box, mor, lev, rem = s.box, s.morale_state, s.level, tb.remnant_level_l
    lost, members = s.integrity_lost, tb.members
    for r in regs:
        mem = members[r]
        if mem and units.issuperset(mem) and not lost[0, r] and all(
                box[m] == BOX_MAP and mor[m] != DEMORALIZED and not (rem[m] >= 0 and lev[m] == rem[m])
                for m in mem):
            return True
    return False
