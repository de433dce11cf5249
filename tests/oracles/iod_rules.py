"""Plain references of Island of Death rule queries (test oracles).

Each function is the plain-Python statement of a query the engine answers
with a compiled kernel or a kept answer; its docstring names the package
function it checks.
"""

from __future__ import annotations

import numpy as np

from malta_sim.hexgrid import hex_line

from malta_sim.iod.rules import airborne as ap
from malta_sim.iod.rules import combat, special_rules as special, supply
from malta_sim.iod import static as st
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP, DEMORALIZED, RAINY


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
    that did not attack (HQs and AA included, never leaders: they go along
    by themselves), never artillery or pieces that cannot move."""
    s = game.state
    origins0 = {int(s.hex[u]) for u in stayers}
    ut, ground, stay = game.tables.utype, game._ground, set(stayers)
    extra = [x for o in origins0 for x in game.units_at(o, side).tolist()
             if x not in stay and ground[x] and ut[x] != st.LEADER]
    return [u for u in list(stayers) + extra
            if ut[u] != st.ARTILLERY and not combat._ma_zero(game, u)]


# ------------------------------------------------------------------ unit and hex queries
def units_at(game, h: int, side=None) -> np.ndarray:
    """:meth:`Game.units_at`: the pieces in hex ``h`` (of ``side``), ascending."""
    s, t = game.state, game.static
    idx = np.flatnonzero(s.hex == h)
    if side is not None:
        idx = idx[t.side[idx] == side]
    return idx


def on_map(game, side=None) -> np.ndarray:
    """:meth:`Game.on_map`: the pieces on the map (of ``side``), ascending."""
    s, t = game.state, game.static
    m = s.box == BOX_MAP
    if side is not None:
        m &= t.side == side
    return np.flatnonzero(m)


def is_remnant(game, u) -> bool:
    """:meth:`Game.is_remnant` (rule 17.32): a battalion other than artillery on
    its last strength level."""
    t = game.static
    return bool(t.size[u] == st.BATTALION and t.utype[u] != st.ARTILLERY
                and t.n_levels[u] >= 2 and game.state.level[u] == t.n_levels[u] - 1)


def morale_value(game, u) -> int:
    """:meth:`Game.morale_value` (rules 11.2, 11.4, 16.24)."""
    m = int(game.static.morale[u, game.state.level[u]])
    if game.static.utype[u] == st.STRONGPOINT:
        m = 4
    if game.state.morale_state[u] == DEMORALIZED:
        m -= 1
    return m


def steps(game, u) -> int:
    """:meth:`Game.steps` (rule 17.3)."""
    t = game.static
    return 1 if t.size[u] == st.COMPANY else int(t.n_levels[u] - game.state.level[u])


def movement_allowance(game, u) -> int:
    """:meth:`Game.movement_allowance` (rules 6.0, 8.33, 11.4, 12.11, 14.1)."""
    t, s = game.static, game.state
    if t.utype[u] == st.LEADER:
        return 14
    if t.utype[u] == st.ARTILLERY and not s.hitched[u]:
        return 0
    ma = int(t.ma[u, s.level[u]])
    if ma <= 0:
        return 0
    if s.out_of_supply[u] and t.move_class[u] != st.FOOT:
        ma = max(1, ma - 2)
    if s.morale_state[u] == DEMORALIZED:
        ma = max(1, ma - (2 if t.move_class[u] == st.FOOT else 4))
    return ma


# ------------------------------------------------------------------ stacking and control (7, 2.1, 14.42)
def stack_weight(game, u) -> int:
    """:func:`organisation.stack_weight` in half-battalions (rule 7.1)."""
    t = game.static
    ut = t.utype[u]
    if ut in (st.LEADER, st.COASTAL_GUN, st.MILITIA, st.WARSHIP, st.HQ):
        return 0
    if t.size[u] == st.COMPANY or ut == st.STRONGPOINT:
        return 1
    return 1 if is_remnant(game, u) else 2


def stack_totals(game, side) -> np.ndarray:
    """:func:`organisation.stack_totals`: the weight of ``side`` per hex (int32)."""
    s, t = game.state, game.static
    out = np.zeros(t.n_hexes, np.int32)
    for x in on_map(game, side):
        out[s.hex[x]] += stack_weight(game, int(x))
    return out


def update_control(game, control) -> np.ndarray:
    """Rule 2.1 applied to a copy ``control`` (int8[n_hexes]): each hex with a
    piece other than a leader or warship goes to that piece's side, the pieces
    taken in index order (the last one decides)."""
    s, t = game.state, game.static
    for x in on_map(game):
        if t.utype[x] not in (st.LEADER, st.WARSHIP):
            control[s.hex[x]] = t.side[x]
    return control


def caught_leaders(game) -> list:
    """Leaders that rule 14.42 catches at a phase end, ascending: a leader in a
    hex with enemy units and none of its own."""
    s, t = game.state, game.static
    out = []
    for ld in np.flatnonzero((t.utype == st.LEADER) & (s.box == BOX_MAP)):
        side, here = int(t.side[ld]), units_at(game, int(s.hex[ld]))
        ctl = [x for x in here if t.utype[x] not in (st.LEADER, st.WARSHIP)]
        if any(t.side[x] != side for x in ctl) and not any(t.side[x] == side for x in ctl):
            out.append(int(ld))
    return out


# ------------------------------------------------------------------ organisation (13)
def breakdown_candidates(game, side) -> list:
    """The battalions :func:`organisation.breakdowns` offers (rule 13.1):
    :func:`can_break_down` and not arrived this turn."""
    s = game.state
    return [int(x) for x in on_map(game, side) if can_break_down(game, int(x))
            and s.entered_turn[x] != game.turn]


def can_break_down(game, b) -> bool:
    """:func:`organisation.can_break_down` (rules 13.1, 17.31): a battalion
    type that may break down, not Maltese, not a remnant, with steps left
    and at least that many pieces in :func:`companies_for`."""
    s, t = game.state, game.static
    if not t.can_break[b] or t.nation[b] == st.MALTESE:
        return False
    if (t.size[b] == st.BATTALION and t.n_levels[b] >= 2 and t.utype[b] != st.ARTILLERY
            and s.level[b] == t.n_levels[b] - 1):
        return False                                               # 17.31: a remnant
    n = int(t.breakdown_n[b]) - int(s.level[b])
    return n > 0 and len(companies_for(game, b)) >= n


def companies_for(game, b) -> list:
    """:func:`organisation.companies_for` (rule 13.1): the battalion's own
    companies in the pool or Disbandment Box, else the pool's companies of its
    kind."""
    from malta_sim.iod.state import BOX_DISBANDMENT, BOX_POOL

    s, t = game.state, game.static
    spec = [int(c) for c in np.flatnonzero(t.battalion_of == b)
            if s.box[c] in (BOX_POOL, BOX_DISBANDMENT) and s.parent[c] < 0]
    if spec:
        return spec
    k = t.breakdown_kind[b]
    if k < 0:
        return []
    return [int(c) for c in np.flatnonzero((t.company_kind == k) & (s.box == BOX_POOL))]


def reform_options(game, side) -> list:
    """:func:`organisation.reform_options` (rule 13.2): ``(battalion,
    companies, hex, steps lost)`` for each broken-down battalion whose
    surviving companies stand together in good order."""
    from malta_sim.iod.state import BOX_DISBANDMENT, BOX_ELIMINATED

    s, t = game.state, game.static
    out = []
    for b in np.flatnonzero((t.side == side) & (s.box == BOX_DISBANDMENT) & (t.size == st.BATTALION)):
        b = int(b)
        alive = [int(c) for c in np.flatnonzero(s.parent == b) if s.box[c] != BOX_ELIMINATED]
        if not alive or any(s.box[c] != BOX_MAP for c in alive):
            continue
        hexes = {int(s.hex[c]) for c in alive}
        if len(hexes) != 1 or any(s.morale_state[c] == DEMORALIZED for c in alive):
            continue
        lost = int(t.breakdown_n[b]) - len(alive) + sum(bool(s.reduced[c]) for c in alive)
        if lost <= t.n_levels[b] - 1:
            out.append((b, alive, hexes.pop(), lost))
    return out


def attachment_options(game) -> dict:
    """The formations :func:`organisation.formation_changes` offers each Axis
    unit (rule 15.21): those of the units it is stacked with that are in their
    printed formation, other than its own."""
    s, t = game.state, game.static
    opts = {}
    for x in on_map(game, 0):
        x = int(x)
        if t.utype[x] in (st.LEADER, st.HQ, st.WARSHIP):
            continue
        forms = set()
        for o in units_at(game, int(s.hex[x]), 0):
            f = int(t.printed_formation[o])
            if f >= 0 and int(s.formation[o]) == f and f != s.formation[x]:
                forms.add(f)
        if forms:
            opts[x] = sorted(forms)
    return opts


# ------------------------------------------------------------------ combat options (9, 10, 12)
def defenders_in(game, h, side) -> list:
    """:func:`combat.defenders_in`: ``side``'s pieces in ``h`` other than
    leaders, coastal guns and warships."""
    t = game.static
    return [int(x) for x in units_at(game, h, side)
            if t.utype[x] not in (st.LEADER, st.COASTAL_GUN, st.WARSHIP)]


def can_attack(game, u) -> bool:
    """:func:`combat.can_attack` (rules 9.11, 9.13, 9.16, 10.21, 12.1)."""
    s, t = game.state, game.static
    if s.box[u] != BOX_MAP or s.attacked[u]:
        return False
    if t.utype[u] in (st.LEADER, st.WARSHIP, st.COASTAL_GUN, st.ARTILLERY, st.AA, st.HQ):
        return False
    if t.attack[u, s.level[u]] <= 0:
        return False
    if s.entered_turn[u] == game.turn:
        return False
    if game.night and s.morale_state[u] == DEMORALIZED:
        return False
    return True


def attackable(game, h, enemy) -> bool:
    """Rule 9.15: hex ``h`` holds a piece of ``enemy`` with a defense strength."""
    s, t = game.state, game.static
    return any(t.defense[x, s.level[x]] > 0 for x in defenders_in(game, h, enemy))


def attack_options(game, side, units=None) -> dict:
    """:func:`combat.attack_options` (rules 9.11-9.16): ``{target hex:
    [attackers]}`` in the order the units and their hexsides are met."""
    s, t = game.state, game.static
    out = {}
    cand = units if units is not None else [int(x) for x in on_map(game, side)
                                            if can_attack(game, int(x))]
    for x in cand:
        hx = int(s.hex[x])
        for d in range(6):
            o = int(t.neighbours[hx, d])
            if o < 0 or t.ocean_side[hx, d]:
                continue
            if attackable(game, o, 1 - side):
                out.setdefault(o, []).append(int(x))
    return out


def discovered(game, h, side) -> bool:
    """:func:`combat.discovered` (rule 10.11): a ground unit of ``side`` next
    to ``h``, or by day two hexes away with an open hex between, when ``h``
    is not a town, city or woods hex."""
    s, t = game.state, game.static
    dist = t.grid.distance_table
    mine = [x for x in on_map(game, side) if game.is_ground(int(x))]
    if not mine:
        return False
    hx = np.unique(s.hex[mine])
    d = dist[h, hx]
    if (d == 1).any():
        return True
    if game.night:
        return False
    blocks = t.town | t.city | t.woods
    if blocks[h]:
        return False
    for f in hx[d == 2]:
        mids = [int(m) for m in t.neighbours[h] if m >= 0 and dist[m, f] == 1]
        if any(not blocks[m] for m in mids):
            return True
    return False


def plan_options(game, side):
    """:func:`combat.plan_options` (rules 9.2 a, 10.1, 10.11, 12.2, 12.52,
    16.41): targets, support and bombardment firers per hex, air markers and
    the pieces that may fire a fire hurricane."""
    from malta_sim.iod.rules import combat, movement

    s, t = game.state, game.static
    opts = combat.PlanOptions()
    atk = attack_options(game, side)
    opts.attack_targets = sorted(atk)
    ezoc = movement.zoc_map(game, 1 - side)
    dist = t.grid.distance_table
    firers = [int(x) for x in on_map(game, side) if art_can_fire(game, int(x), ezoc)]
    for tgt in opts.attack_targets:
        opts.support[tgt] = [x for x in firers if dist[s.hex[x], tgt] <= t.art_range[x]]
    enemy = [x for x in on_map(game, 1 - side)
             if t.utype[x] not in (st.LEADER, st.WARSHIP, st.COASTAL_GUN)]
    for tgt in np.unique(s.hex[enemy]) if enemy else []:
        tgt = int(tgt)
        if not attackable(game, tgt, 1 - side) or not discovered(game, tgt, side):
            continue
        us = [x for x in firers if dist[s.hex[x], tgt] <= t.art_range[x]]
        if us:
            opts.bombard[tgt] = us
    if side == 0 and not game.night:
        opts.air_markers = int(s.air_support_left[0])
    opts.hurricane_ok = {x for x in firers if t.utype[x] == st.ARTILLERY and s.salvos[x] >= 2}
    return opts


def defensive_options(game, side, threatened) -> dict:
    """:func:`combat.defensive_options` (rule 9.2 b): the firers of ``side``
    in range of each threatened hex, hexes in the order given."""
    from malta_sim.iod.rules import movement

    s, t = game.state, game.static
    ezoc = movement.zoc_map(game, 1 - side)
    dist = t.grid.distance_table
    firers = [int(x) for x in on_map(game, side) if art_can_fire(game, int(x), ezoc)]
    out = {}
    for hh in threatened:
        us = [x for x in firers if dist[s.hex[x], hh] <= t.art_range[x]]
        if us:
            out[int(hh)] = us
    return out


def crt_column(charts, line, level) -> int:
    """:func:`combat.crt_column` (rule 9.3): the rightmost column of the
    terrain ``line`` whose odds level is at most ``level``; -1 below the
    line's first column."""
    lo, hi = int(charts.line_cols[line, 0]), int(charts.line_cols[line, 1])
    if level < charts.col_level[lo]:
        return -1
    return max([k for k in range(lo, hi + 1) if charts.col_level[k] <= level], default=lo)


def ammo_eligible(game, side) -> list:
    """:func:`artillery.ammo_eligible` (rule 12.56): artillery short of salvos,
    in supply, with a route (8.2) to a hand-out hex (Axis: controlled beaches
    and ports; Allied: ammunition points free of Axis units), one search each."""
    s, t = game.state, game.static
    arts = [int(x) for x in on_map(game, side)
            if t.utype[x] == st.ARTILLERY and s.salvos[x] < 2 and not s.out_of_supply[x]]
    if not arts:
        return []
    if side == 0:
        tgt = np.flatnonzero((t.beach | t.main_port | t.minor_port) & (s.control == 0))
    else:
        tgt = np.array([hh for hh in t.allied_ammo_points if not len(units_at(game, hh, 0))], int)
    if len(tgt) == 0:
        return []
    passable = supply.passable_for(game, side)
    out = []
    for x in arts:
        p = passable.copy()
        p[int(s.hex[x])] = True
        dist = supply.route_distance(int(s.hex[x]), p, t.neighbours, t.ocean_side, supply.MAX_ROUTE)
        if (dist[tgt] >= 0).any():
            out.append(x)
    return out


# ------------------------------------------------------------------ movement (5, 6)
def exerting_hexes(game, side) -> tuple[np.ndarray, np.ndarray]:
    """:func:`movement.exerting_hexes` (rule 5.1): (hexes whose pieces of
    ``side`` exert a ZOC, hexes where a foot unit or a fort exerts one)."""
    s, t = game.state, game.static
    nh = t.n_hexes
    units = game.on_map(side)
    exert = np.zeros(nh, bool)
    foot = np.zeros(nh, bool)
    hx = s.hex[units]
    ut = t.utype[units]
    sp = ut == st.STRONGPOINT
    art = ut == st.ARTILLERY
    hs = hx[sp | (art & ~s.hitched[units] & (s.salvos[units] > 0))]
    exert[hs] = True
    foot[hs] = True
    ground = ~(sp | art | (ut == st.LEADER) | (ut == st.WARSHIP) | (ut == st.COASTAL_GUN))
    ug, hg = units[ground], hx[ground]
    a = t.attack[ug, s.level[ug]]
    att = np.bincount(hg, weights=a, minlength=nh)
    foot[hg[(a > 0) & (t.move_class[ug] == st.FOOT)]] = True
    hf = hg[t.fort[hg] & ~s.fort_destroyed[hg]]
    exert[hf] = True
    foot[hf] = True
    exert |= att >= 3
    return exert, foot


def within2_of_enemy(game, side) -> np.ndarray:
    """:func:`movement.within2_of_enemy` (rule 6.2): hexes within two hexes of
    an enemy ground unit."""
    t, s = game.static, game.state
    enemy = [x for x in game.on_map(1 - side) if game.is_ground(x)]
    if not enemy:
        return np.zeros(t.n_hexes, bool)
    hx = np.unique(s.hex[enemy])
    return (t.grid.distance_table[:, hx] <= 2).any(axis=1)


def leader_bonus(game, side) -> np.ndarray:
    """:func:`movement.leader_bonus` (rule 14.1): per unit (int8) the best
    movement bonus of its formation's leader when within one hex of it."""
    s, t = game.state, game.static
    out = np.zeros(t.n_units, np.int8)
    dist = t.grid.distance_table
    for f in range(t.n_formations):
        ld = t.formation_leader[f]
        if ld < 0 or s.box[ld] != BOX_MAP or t.side[ld] != side:
            continue
        lh = s.hex[ld]
        for x in game.on_map(side):
            if s.formation[x] != f or t.utype[x] == st.LEADER:
                continue
            if int(t.ma[x, s.level[x]]) <= 0 or dist[lh, s.hex[x]] > 1:
                continue
            b = t.foot_bonus[ld, s.level[ld]] if t.move_class[x] == st.FOOT else t.mot_bonus[ld, s.level[ld]]
            out[x] = max(out[x], b)
    return out


def legal_moves(game, u, mode="tactical", hitch=False, strategic_hexes=None) -> dict:
    """:func:`movement.legal_moves` (rules 5.2, 6.1-6.3, 6.53, 7.1): ``{hex:
    MP spent}`` worked out with one bucket search (:func:`movement.reach_kernel`)
    and the stacking room taken from the totals per hex; ``strategic_hexes``
    (bool[n_hexes]) are the hexes strategic movement may enter."""
    from malta_sim.iod.rules import movement as mv

    s, t = game.state, game.static
    if not mv.movable(game, u):
        return {}
    ma = mv.effective_ma(game, u)
    if t.utype[u] == st.ARTILLERY:
        if not s.hitched[u]:
            if not hitch:
                return {}
            ma -= 2
        if ma <= 0:
            return {}
    side = int(t.side[u])
    zoc, block, trivial = mv._masks(game, u, mode)
    if t.utype[u] == st.LEADER:
        block = block | trivial
    allowed = t.land.copy()
    strategic = mode == "strategic"
    if strategic:
        allowed &= strategic_hexes
    cls = -1 if t.utype[u] == st.LEADER else int(t.move_class[u])
    start = int(s.hex[u])
    cost, _pred = mv.reach_kernel(start, 2 * ma, cls, strategic, t.move_cost, t.strat_cost, t.road,
                                  t.creek, t.rise, t.ocean_side, t.neighbours, t.road_cost,
                                  t.road_strat_cost, t.creek_cost, t.rise_cost, zoc, block, trivial,
                                  allowed, mv.ZOC_ENTER, mv.ZOC_EXIT)
    room = mv.STACK_ROOM - stack_totals(game, side) - stack_weight(game, u)
    ok = (cost < mv.INF) & (room >= 0)
    ok[start] = False
    add = 2 if (hitch and t.utype[u] == st.ARTILLERY) else 0
    idx = np.flatnonzero(ok)
    return dict(zip(idx.tolist(), (cost[idx] / 2.0 + add).tolist()))


def infiltration_options(game, side, zoc_start) -> dict:
    """:func:`movement.infiltration_options` (rule 6.41): for each unit that
    may move and began the phase in an enemy ZOC (``zoc_start``), the hexes
    next to it in an enemy ZOC it may infiltrate into."""
    from malta_sim.iod.rules import movement

    s, t = game.state, game.static
    zoc = movement.zoc_map(game, 1 - side)
    block, _ = occupancy(game, 1 - side)
    out = {}
    for x in game.on_map(side):
        x = int(x)
        if not movement.movable(game, x) or t.utype[x] in (st.LEADER, st.ARTILLERY):
            continue
        hx = s.hex[x]
        if zoc_start is None or not zoc_start[hx] or not zoc[hx]:
            continue
        dests = []
        for d in range(6):
            o = t.neighbours[hx, d]
            if o < 0 or not t.land[o] or block[o] or not zoc[o] or t.ocean_side[hx, d]:
                continue
            if t.rise[hx, d] and not t.road[hx, d] and t.move_class[x] != st.FOOT:
                continue
            if fits_stacking(game, [x], int(o)):
                dests.append(int(o))
        if dests:
            out[x] = dests
    return out


def can_enter(game, u, h) -> bool:
    """:func:`invasion.can_enter` (rules 6.52, 6.53): one hex's move of ``u``
    (beach movement 18.7, rally 19.6): a land neighbour across a hexside that
    is not all ocean, passable for its class, with no enemy piece that has a
    defense strength."""
    t, s = game.static, game.state
    if h < 0 or not t.land[h]:
        return False
    here = int(s.hex[u])
    d = -1
    for k in range(6):
        if t.neighbours[here, k] == h:
            d = k
    if d < 0 or t.ocean_side[here, d]:
        return False
    cls = int(t.move_class[u]) if t.utype[u] != st.LEADER else 0
    if t.move_cost[h, cls] >= 99 and not t.road[here, d]:
        return False
    if cls != st.FOOT and t.rise[here, d] and not t.road[here, d]:
        return False
    for e in game.units_at(h, 1 - int(t.side[u])):
        if t.utype[e] in (st.LEADER, st.COASTAL_GUN):
            continue
        if game.base_defense(e) > 0:
            return False
    return True


def one_hex_options(game, u) -> list:
    """:func:`invasion.one_hex_options` (rules 6.52, 6.53, 7.1): the
    neighbours :func:`can_enter` accepts where ``u`` fits (:func:`fits_stacking`)."""
    hh = int(game.state.hex[u])
    return [int(o) for o in game.static.neighbours[hh]
            if o >= 0 and can_enter(game, u, int(o)) and fits_stacking(game, [int(u)], int(o))]


# ------------------------------------------------------------------ victory (20.0)
def objective_counts(game) -> dict:
    """:func:`victory.objective_counts` (rule 20.0): Axis-held airfields,
    victory cities and towns, and destroyed forts."""
    s, t = game.state, game.static
    ax = s.control == 0
    return {"airfields": int((t.airfield & ax).sum()), "cities": int(ax[t.victory_cities].sum()),
            "towns": int((t.town & ax).sum()),
            "forts_destroyed": int((t.fort & s.fort_destroyed).sum()) + int(s.forts_destroyed_base[0])}


def axis_hqs_out(game) -> int:
    """:func:`victory.axis_hqs_out` (rule 20.0): Axis HQs eliminated or on the
    turn track."""
    from malta_sim.iod.state import BOX_ELIMINATED, BOX_TURN_TRACK

    s, t = game.state, game.static
    hq = (t.utype == st.HQ) & (t.side == 0)
    return int((hq & ((s.box == BOX_ELIMINATED) | (s.box == BOX_TURN_TRACK))).sum())


def invasion_terms(game) -> int:
    """:func:`victory.invasion_terms` (rules 20.0, 17.6): one per
    Allied-controlled beach hex of each zone whose Follow-up box holds an Axis
    unit, plus the Royal Navy result's modifier."""
    from malta_sim.iod import invasion as H
    from malta_sim.iod.state import BOX_FOLLOW_UP

    s, t, inv = game.state, game.static, H.inv_static(game)
    held = set(s.box_slot[(s.box == BOX_FOLLOW_UP) & (t.side == 0) & (t.utype != st.LEADER)].tolist())
    mod = sum(int((s.control[inv.zone_beaches[z]] == ALLIED).sum()) for z in range(len(inv.zone_names))
              if z in held)
    return mod + special.rn_surrender_modifier(int(s.rn_result[0]))


# ------------------------------------------------------------------ airborne (19)
def available_sticks(game, formation, planned_units) -> list:
    """:func:`airborne.available_sticks` (rule 19.21): the sticks a formation
    may still plan from its pieces in the Disbandment Box: each paratroop
    battalion, the companies of each broken-down battalion, each artillery
    piece, and its HQ, leader and engineers as one stick."""
    from malta_sim.iod.state import BOX_DISBANDMENT

    s, t = game.state, game.static
    broken = set(s.parent[(s.parent >= 0) & (s.box != 5)].tolist())
    inbox = [x for x in np.flatnonzero((s.box == BOX_DISBANDMENT) & (t.side == AXIS)
                                       & (t.printed_formation == formation)).tolist()
             if x not in planned_units and x not in broken]
    out, comps_by_bn, hq_group = [], {}, []
    for x in inbox:
        ut, sz = t.utype[x], t.size[x]
        if ut == st.PARATROOP and sz == st.BATTALION:
            out.append(("battalion", (x,)))
        elif ut == st.PARATROOP and sz == st.COMPANY and t.battalion_of[x] >= 0:
            comps_by_bn.setdefault(int(t.battalion_of[x]), []).append(x)
        elif ut == st.ARTILLERY:
            out.append(("artillery", (x,)))
        elif ut in (st.HQ, st.LEADER, st.ENGINEER):
            hq_group.append(x)
    for _bn, comps in sorted(comps_by_bn.items()):
        out.append(("battalion", tuple(sorted(comps))))
    if hq_group:
        has_eng = any(t.utype[x] == st.ENGINEER for x in hq_group)
        out.append(("hq_engineers" if has_eng else "returning", tuple(sorted(hq_group))))
    return out


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


# ----------------------------------------------------------------- 16.54 line of fire
def blocking_sets(static):
    """Rule 16.54's blocking terrain of ``static`` as the plain reference takes
    it: the set of hex ids with city, town, fort or woods terrain, and the set
    of Creek-with-Rise hexsides as ``frozenset({hex id, hex id})``."""
    grid = static.grid
    block = static.town | static.city | static.fort | static.woods
    hexes = {grid.hex_id(int(h)) for h in np.flatnonzero(block)}
    sides = set()
    for h, d in zip(*np.nonzero(static.rise)):
        o = static.neighbours[h, d]
        if o >= 0:
            sides.add(frozenset((grid.hex_id(int(h)), grid.hex_id(int(o)))))
    return hexes, sides


def line_of_fire_clear(
    a: str,
    b: str,
    blocking_hexes: set[str],
    blocking_hexsides: set[frozenset] | None = None,
) -> bool:
    """Plain reference of rule 16.54 on hex ids and sets (the engine asks
    :func:`malta_sim.kernels.los.line_of_fire`): whether a coastal gun in ``a``
    may fire at ``b``.

    Parameters
    ----------
    a, b : str
        Gun hex and target hex ids (the target is a beach hex for fire at a wave
        box, 16.56, or an ocean hex holding a warship, 16.55).
    blocking_hexes : set of str
        Hexes with city, town, fort or woods terrain.  (Woods block as a
        hexside in the printed rule; the map carries woods as hex terrain, so a
        woods hex blocks as its hexsides would -- the reading a player with a
        hex-terrain map would take.)
    blocking_hexsides : set of frozenset({hex, hex}), optional
        Hexsides with Creek with Rise (or woods) terrain.

    Returns
    -------
    bool
        False when any hex the line passes through, other than the two end
        hexes, blocks, or the line crosses a blocking hexside.  When the line
        runs exactly along a hexside (a tie step of :func:`hex_line`), it is
        blocked only if the hexes on both sides block; a blocking hexside that
        the line runs along (between the two tie hexes) blocks as well.
    """
    sides = blocking_hexsides or set()
    steps = hex_line(a, b)
    ends = {a, b}
    for i, step in enumerate(steps):
        if len(step) == 1:
            h = step[0]
            if h not in ends and h in blocking_hexes:
                return False
            if i > 0 and len(steps[i - 1]) == 1 and frozenset((steps[i - 1][0], h)) in sides:
                return False  # the line crosses a blocking hexside
        else:
            x, y = step
            if x not in ends and y not in ends and x in blocking_hexes and y in blocking_hexes:
                return False  # along a hexside with blocking terrain on both sides
            if frozenset(step) in sides:
                return False  # along a Creek-with-Rise hexside
    return True


def art_can_fire(game, u: int, enemy_zoc) -> bool:
    """Plain per-piece reference of the firing test the engine makes in one
    compiled pass (:func:`malta_sim.iod.rules.combat_options.firers_kernel`):
    rules 12.4, 12.5, 11.4, 12.23, 16.76: prepared, ammunition, not
    demoralized, not in an enemy ZOC; warships only by day and not in rain."""
    s, t = game.state, game.static
    if s.box[u] != BOX_MAP or s.fired[u]:
        return False
    if t.utype[u] == st.WARSHIP:
        if game.night or s.weather[0] == RAINY:
            return False
        if int(s.gun_fired_turn[u]) == game.turn:
            return False                     # rule 18.4: fired at coastal guns this turn
        return int(s.comm_failed_turn[u]) != game.turn               # 16.73
    if t.side[u] == 1:
        from malta_sim.iod.rules.special_rules import delayed_reaction_ok
        if not delayed_reaction_ok(game, u):
            return False                     # rule 17.7
    if t.utype[u] != st.ARTILLERY or s.hitched[u] or s.salvos[u] <= 0:
        return False
    if s.morale_state[u] == DEMORALIZED or enemy_zoc[s.hex[u]]:
        return False
    if s.entered_turn[u] == game.turn:
        return False                         # 9.16, 16.13
    return True
