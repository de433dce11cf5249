"""The fast paths of the combat and organisation modules against plain
reference versions.

Each reference below is the straightforward per-unit version of a rule query
(one Python test per unit or hexside).  The tests play whole games with the
engine's functions wrapped so that every call also asks the reference on the
same state and checks that both answers are equal (same values, same order),
so the fast versions are checked on thousands of real positions.
"""

from __future__ import annotations

import numpy as np

from malta_sim.iod.rules import artillery, combat, morale, movement, organisation
from malta_sim.iod import static as st
from malta_sim.iod.game import Game
from malta_sim.iod.state import BOX_MAP, DEMORALIZED


# ------------------------------------------------------------------ references
def ref_units_at(game, h, side=None):
    s, t = game.state, game.static
    idx = np.flatnonzero(s.hex == h)
    if side is not None:
        idx = idx[t.side[idx] == side]
    return idx


def ref_on_map(game, side=None):
    s, t = game.state, game.static
    m = s.box == BOX_MAP
    if side is not None:
        m &= t.side == side
    return np.flatnonzero(m)


def ref_is_remnant(game, u):
    t = game.static
    return bool(t.size[u] == st.BATTALION and t.utype[u] != st.ARTILLERY
                and t.n_levels[u] >= 2 and game.state.level[u] == t.n_levels[u] - 1)


def ref_morale_value(game, u):
    m = int(game.static.morale[u, game.state.level[u]])
    if game.static.utype[u] == st.STRONGPOINT:
        m = 4
    if game.state.morale_state[u] == DEMORALIZED:
        m -= 1
    return m


def ref_defenders_in(game, h, side):
    t = game.static
    return [int(u) for u in ref_units_at(game, h, side)
            if t.utype[u] not in (st.LEADER, st.COASTAL_GUN, st.WARSHIP)]


def ref_can_attack(game, u):
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


def ref_attackable(game, h, enemy):
    s, t = game.state, game.static
    return any(t.defense[u, s.level[u]] > 0 for u in ref_defenders_in(game, h, enemy))


def ref_attack_options(game, side, units=None):
    s, t = game.state, game.static
    out = {}
    cand = units if units is not None else [int(u) for u in ref_on_map(game, side)
                                            if ref_can_attack(game, int(u))]
    for u in cand:
        h = int(s.hex[u])
        for d in range(6):
            o = int(t.neighbours[h, d])
            if o < 0 or t.ocean_side[h, d]:
                continue
            if ref_attackable(game, o, 1 - side):
                out.setdefault(o, []).append(int(u))
    return out


def ref_discovered(game, h, side):
    s, t = game.state, game.static
    dist = t.grid.distance_table
    mine = [u for u in ref_on_map(game, side) if game.is_ground(int(u))]
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


def ref_plan_options(game, side):
    s, t = game.state, game.static
    opts = combat.PlanOptions()
    atk = ref_attack_options(game, side)
    opts.attack_targets = sorted(atk)
    ezoc = movement.zoc_map(game, 1 - side)
    dist = t.grid.distance_table
    firers = [int(u) for u in ref_on_map(game, side) if combat._art_can_fire(game, int(u), ezoc)]
    for tgt in opts.attack_targets:
        opts.support[tgt] = [u for u in firers if dist[s.hex[u], tgt] <= t.art_range[u]]
    enemy = [u for u in ref_on_map(game, 1 - side)
             if t.utype[u] not in (st.LEADER, st.WARSHIP, st.COASTAL_GUN)]
    for tgt in np.unique(s.hex[enemy]) if enemy else []:
        tgt = int(tgt)
        if not ref_attackable(game, tgt, 1 - side) or not ref_discovered(game, tgt, side):
            continue
        us = [u for u in firers if dist[s.hex[u], tgt] <= t.art_range[u]]
        if us:
            opts.bombard[tgt] = us
    if side == 0 and not game.night:
        opts.air_markers = int(s.air_support_left[0])
    opts.hurricane_ok = {u for u in firers if t.utype[u] == st.ARTILLERY and s.salvos[u] >= 2}
    return opts


def ref_defensive_options(game, side, threatened):
    s, t = game.state, game.static
    ezoc = movement.zoc_map(game, 1 - side)
    dist = t.grid.distance_table
    firers = [int(u) for u in ref_on_map(game, side) if combat._art_can_fire(game, int(u), ezoc)]
    out = {}
    for h in threatened:
        us = [u for u in firers if dist[s.hex[u], h] <= t.art_range[u]]
        if us:
            out[int(h)] = us
    return out


def ref_odds_modifiers(game, side, attackers, defenders, target, air=0):
    """Rule 9.92 without the leaders' command rolls (which roll dice)."""
    s, t = game.state, game.static

    def armor(units):
        by_hex = {}
        for u in units:
            by_hex.setdefault(int(s.hex[u]), []).append(u)
        return any(any(t.utype[u] == st.TANK and s.morale_state[u] != DEMORALIZED for u in us)
                   and any(t.utype[u] in st.ARMOR_PARTNERS for u in us) for us in by_hex.values())

    def integrity(units, need):
        for r in {int(t.regiment[u]) for u in units if t.regiment[u] >= 0}:
            mem = t.regiment_members[r]
            if s.integrity_lost[0, r] or len(mem) == 0:
                continue
            if all(s.box[m] == BOX_MAP and int(m) in need and s.morale_state[m] != DEMORALIZED
                   and not ref_is_remnant(game, int(m)) for m in mem):
                return True
        return False

    def avg(units):
        v = [ref_morale_value(game, u) for u in units]
        return -(-sum(v) // len(v)) if v else 0

    m = {}
    if armor(attackers):
        m["armor_attacking"] = 2
    if armor(defenders):
        m["armor_defending"] = -1
    if t.fort[target] and not s.fort_destroyed[target]:
        hexes = {int(s.hex[u]) for u in attackers}
        if all(any(t.engineer[u] and s.hex[u] == h for u in attackers) for h in hexes):
            m["engineers"] = 1
    if len({int(s.hex[u]) for u in attackers}) >= 4:
        m["envelopment"] = 1
    if integrity(attackers, set(attackers)):
        m["attacker_integrity"] = 2
    if integrity(defenders, set(defenders)):
        m["defender_integrity"] = -1
    keys = {("remnant", u) if ref_is_remnant(game, u) else int(s.formation[u]) for u in attackers}
    if len(keys) > 1:
        m["mixed_formations"] = -1
    diff = avg(attackers) - avg(defenders)
    if diff:
        m["morale"] = int(min(3, max(-2, diff)))
    if air:
        m["air_support"] = int(air)
    return m


def ref_stack_totals(game, side):
    s, t = game.state, game.static
    out = np.zeros(t.n_hexes, np.int32)
    for u in ref_on_map(game, side):
        out[s.hex[u]] += organisation.stack_weight(game, int(u))
    return out


def ref_update_control(game, control):
    s, t = game.state, game.static
    for u in ref_on_map(game):
        if t.utype[u] not in (st.LEADER, st.WARSHIP):
            control[s.hex[u]] = t.side[u]
    return control


def ref_stack_weight(game, u):
    t = game.static
    ut = t.utype[u]
    if ut in (st.LEADER, st.COASTAL_GUN, st.MILITIA, st.WARSHIP, st.HQ):
        return 0
    if t.size[u] == st.COMPANY or ut == st.STRONGPOINT:
        return 1
    return 1 if ref_is_remnant(game, u) else 2


def ref_fits_stacking(game, units, h):
    side = int(game.static.side[units[0]])
    moving = {int(v) for v in units}
    here = [int(x) for x in ref_units_at(game, h, side) if int(x) not in moving]
    tot = sum(ref_stack_weight(game, x) for x in here) + sum(ref_stack_weight(game, int(u)) for u in units)
    return tot <= organisation.STACK_LIMIT_HALVES


def ref_steps(game, u):
    t = game.static
    return 1 if t.size[u] == st.COMPANY else int(t.n_levels[u] - game.state.level[u])


def ref_movement_allowance(game, u):
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


def ref_caught(game):
    """Leaders that rule 14.42 catches at a phase end."""
    s, t = game.state, game.static
    out = []
    for ld in np.flatnonzero((t.utype == st.LEADER) & (s.box == BOX_MAP)):
        side, here = int(t.side[ld]), ref_units_at(game, int(s.hex[ld]))
        ctl = [x for x in here if t.utype[x] not in (st.LEADER, st.WARSHIP)]
        if any(t.side[x] != side for x in ctl) and not any(t.side[x] == side for x in ctl):
            out.append(int(ld))
    return out


def ref_breakdown_candidates(game, side):
    s = game.state
    return [int(u) for u in ref_on_map(game, side) if organisation.can_break_down(game, int(u))
            and s.entered_turn[u] != game.turn]


def ref_crt_column(charts, line, level):
    lo, hi = int(charts.line_cols[line, 0]), int(charts.line_cols[line, 1])
    if level < charts.col_level[lo]:
        return -1
    return max([k for k in range(lo, hi + 1) if charts.col_level[k] <= level], default=lo)


def ref_companies_for(game, b):
    s, t = game.state, game.static
    spec = [int(c) for c in np.flatnonzero(t.battalion_of == b)
            if s.box[c] in (organisation.BOX_POOL, organisation.BOX_DISBANDMENT) and s.parent[c] < 0]
    if spec:
        return spec
    k = t.breakdown_kind[b]
    if k < 0:
        return []
    return [int(c) for c in np.flatnonzero((t.company_kind == k) & (s.box == organisation.BOX_POOL))]


def ref_reform_options(game, side):
    s, t = game.state, game.static
    out = []
    for b in np.flatnonzero((t.side == side) & (s.box == organisation.BOX_DISBANDMENT)
                            & (t.size == st.BATTALION)):
        b = int(b)
        alive = [int(c) for c in np.flatnonzero(s.parent == b) if s.box[c] != organisation.BOX_ELIMINATED]
        if not alive or any(s.box[c] != BOX_MAP for c in alive):
            continue
        hexes = {int(s.hex[c]) for c in alive}
        if len(hexes) != 1 or any(s.morale_state[c] == DEMORALIZED for c in alive):
            continue
        lost = int(t.breakdown_n[b]) - len(alive) + sum(bool(s.reduced[c]) for c in alive)
        if lost <= t.n_levels[b] - 1:
            out.append((b, alive, hexes.pop(), lost))
    return out


def ref_recovery(game, side):
    s, t = game.state, game.static
    enemy_hex = set(int(s.hex[u]) for u in ref_on_map(game, 1 - side)
                    if t.utype[u] not in (st.LEADER, st.WARSHIP))
    for u in ref_on_map(game, side):
        if s.morale_state[u] == 0 or t.utype[u] in (st.LEADER, st.WARSHIP):
            continue
        if any(int(o) in enemy_hex for o in t.neighbours[s.hex[u]] if o >= 0):
            if not game.die("morale") < ref_morale_value(game, u):
                continue
        s.morale_state[u] = 1 if s.morale_state[u] == DEMORALIZED else 0


def ref_ammo_eligible(game, side):
    s, t = game.state, game.static
    arts = [int(u) for u in ref_on_map(game, side)
            if t.utype[u] == st.ARTILLERY and s.salvos[u] < 2 and not s.out_of_supply[u]]
    if not arts:
        return []
    if side == 0:
        tgt = np.flatnonzero((t.beach | t.main_port | t.minor_port) & (s.control == 0))
    else:
        tgt = np.array([h for h in t.allied_ammo_points if not len(ref_units_at(game, h, 0))], int)
    if len(tgt) == 0:
        return []
    passable = artillery.passable_for(game, side)
    out = []
    for u in arts:
        p = passable.copy()
        p[int(s.hex[u])] = True
        dist = artillery.route_distance(int(s.hex[u]), p, t.neighbours, t.ocean_side, artillery.MAX_ROUTE)
        if (dist[tgt] >= 0).any():
            out.append(u)
    return out


# ------------------------------------------------------------------ harness
def _checked(monkeypatch, counts):
    """Wrap the fast functions: each call is compared with its reference."""

    def wrap(obj, name, check):
        fast = getattr(obj, name)

        def w(*a, **k):
            counts[name] = counts.get(name, 0) + 1
            return check(fast, *a, **k)
        monkeypatch.setattr(obj, name, w)

    def same_array(ref, fast, *a, **k):
        want = ref(*a, **k)
        got = fast(*a, **k)
        assert np.array_equal(np.asarray(got), np.asarray(want)), (a[1:], got, want)
        return got

    def same(ref):
        def check(fast, *a, **k):
            want = ref(*a, **k)
            got = fast(*a, **k)
            assert got == want and list(got) == list(want) if isinstance(got, dict) else got == want
            return got
        return check

    wrap(Game, "units_at", lambda f, *a, **k: same_array(ref_units_at, f, *a, **k))
    wrap(Game, "on_map", lambda f, *a, **k: same_array(ref_on_map, f, *a, **k))
    wrap(Game, "is_remnant", same(ref_is_remnant))
    wrap(Game, "morale_value", same(ref_morale_value))
    wrap(combat, "defenders_in", same(ref_defenders_in))
    wrap(combat, "can_attack", same(ref_can_attack))
    wrap(combat, "discovered", same(ref_discovered))

    def attack_opts(fast, game, side, units=None):
        want = ref_attack_options(game, side, units)
        got = fast(game, side, units)
        assert got == want and list(got) == list(want)
        return got
    wrap(combat, "attack_options", attack_opts)

    def plan_opts(fast, game, side):
        want = ref_plan_options(game, side)
        got = fast(game, side)
        for f in ("attack_targets", "support", "bombard", "air_markers", "hurricane_ok"):
            a, b = getattr(got, f), getattr(want, f)
            assert a == b and (not isinstance(a, dict) or list(a) == list(b)), f
        return got
    wrap(combat, "plan_options", plan_opts)

    def odds(fast, game, side, attackers, defenders, target, air=0, roll_leaders=True):
        want = ref_odds_modifiers(game, side, attackers, defenders, target, air)
        got = fast(game, side, attackers, defenders, target, air, False)
        assert got == want and list(got) == list(want)
        return fast(game, side, attackers, defenders, target, air, roll_leaders)
    wrap(combat, "odds_modifiers", odds)

    def totals(fast, game, side):
        want = ref_stack_totals(game, side)
        got = fast(game, side)
        assert np.array_equal(got, want)
        return got
    wrap(organisation, "stack_totals", totals)

    wrap(Game, "steps", same(ref_steps))
    wrap(Game, "movement_allowance", same(ref_movement_allowance))
    wrap(organisation, "stack_weight", same(ref_stack_weight))
    wrap(organisation, "fits_stacking", same(ref_fits_stacking))
    wrap(combat, "crt_column", same(ref_crt_column))
    wrap(combat, "attack_strength", same(lambda g, u: int(combat.kcrt.unit_attack(
        int(g.static.attack[u, g.state.level[u]]), bool(g.state.out_of_supply[u]),
        g.state.morale_state[u] == combat.DISORGANIZED, g.state.morale_state[u] == DEMORALIZED))))
    wrap(combat, "defense_strength", same(lambda g, u: int(combat.kcrt.unit_defense(
        int(g.static.defense[u, g.state.level[u]]), g.state.morale_state[u] == DEMORALIZED))))

    def caught(fast, game):
        want = ref_caught(game)
        seen = []
        orig = organisation.overrun_trivial
        organisation.overrun_trivial = lambda g, units, side: (seen.extend(units), orig(g, units, side))[1]
        try:
            fast(game)
        finally:
            organisation.overrun_trivial = orig
        assert seen == want
    wrap(organisation, "caught_leaders", caught)

    def breakdowns(fast, game, side):
        want = ref_breakdown_candidates(game, side)
        pol = game.policy(side)
        seen = []
        orig = pol.breakdowns
        pol.breakdowns = lambda g, el: (seen.append(list(el)), orig(g, el))[1]
        try:
            fast(game, side)
        finally:
            del pol.breakdowns
        assert seen == ([want] if want else [])
    wrap(organisation, "breakdowns", breakdowns)

    wrap(organisation, "companies_for", same(ref_companies_for))
    wrap(organisation, "reform_options", same(ref_reform_options))
    wrap(combat, "attackers_now", lambda f, g, side: same_array(
        lambda g2, s2: [int(u) for u in ref_on_map(g2, s2) if ref_can_attack(g2, int(u))], f, g, side))

    def recovery(fast, game, side):
        import copy

        twin = copy.deepcopy(game)
        ref_recovery(twin, side)
        fast(game, side)
        assert np.array_equal(game.state.morale_state, twin.state.morale_state)
        assert game.streams["morale"].integers(1, 1 << 30) == twin.streams["morale"].integers(1, 1 << 30)
    wrap(morale, "recovery", recovery)

    wrap(artillery, "ammo_eligible", same(ref_ammo_eligible))

    def ground(fast, game, side=None):
        got = fast(game, side)
        assert got == [int(u) for u in ref_on_map(game, side) if game.is_ground(int(u))]
        return got
    wrap(Game, "ground_units", ground)

    def defensive(fast, game, side, threatened):
        want = ref_defensive_options(game, side, threatened)
        got = fast(game, side, threatened)
        assert got == want and list(got) == list(want)
        return got
    wrap(combat, "defensive_options", defensive)

    def stacking(fast, game):
        fast(game)
        for side in (0, 1):                    # 7.2: nothing left over the limit
            assert ref_stack_totals(game, side).max() <= organisation.STACK_LIMIT_HALVES
    wrap(organisation, "stacking_check", stacking)

    def control(fast, game):
        want = ref_update_control(game, game.state.control.copy())
        fast(game)
        assert np.array_equal(game.state.control, want)
    wrap(organisation, "update_control", control)

    def phase_end(fast, game):
        over = any(ref_stack_totals(game, side).max() > organisation.STACK_LIMIT_HALVES
                   for side in (0, 1))
        want = None if over else ref_caught(game)
        before = game.state.control.copy()
        seen = []
        orig = organisation.overrun_trivial
        organisation.overrun_trivial = lambda g, units, side: (seen.extend(units), orig(g, units, side))[1]
        try:
            fast(game)
        finally:
            organisation.overrun_trivial = orig
        if want is not None:                   # 14.42: the reference's leaders, in order
            assert seen == want
        for side in (0, 1):                    # 7.2: nothing left over the limit
            assert ref_stack_totals(game, side).max() <= organisation.STACK_LIMIT_HALVES
        assert np.array_equal(game.state.control, ref_update_control(game, before))   # 2.1
    wrap(organisation, "phase_end", phase_end)




def test_stack_totals_memo_is_read_only_and_follows_moves():
    """The kept stacking totals are returned read-only and recomputed when a
    unit moves (rule 7.1)."""
    from tests.conftest import make, h, u

    g = make({"1315": ["axis.185.v_186", "axis.185.vi_186"]})
    a = organisation.stack_totals(g, 0)
    assert a[h("1315")] == 4 and not a.flags.writeable
    g.state.hex[u("axis.185.vi_186")] = h("1316")
    b = organisation.stack_totals(g, 0)
    assert b[h("1315")] == 2 and b[h("1316")] == 2
    assert np.array_equal(b, ref_stack_totals(g, 0))


def test_update_control_last_unit_in_hex_decides():
    """Rule 2.1 with two sides in one hex: the higher-numbered unit's side, as
    a loop over the units in order gives."""
    from tests.conftest import make, h, u

    g = make({"1315": ["axis.185.v_186"], "1316": ["allied.uk.8m"]})
    g.state.hex[u("allied.uk.8m")] = h("1315")          # both sides in one hex
    want = ref_update_control(g, g.state.control.copy())
    organisation.update_control(g)
    assert np.array_equal(g.state.control, want)


def test_phase_end_checks_skip_only_unchanged_positions():
    """Rules 2.1, 7.2, 14.42: the phase-end checks act again as soon as a
    piece moves after a check that found nothing to do."""
    from tests.conftest import make, h, u

    g = make({"1315": ["axis.185.v_186"], "1316": ["allied.uk.8m"]})
    organisation.update_control(g)
    assert g.state.control[h("1316")] == 1
    g.state.hex[u("axis.185.v_186")] = h("1316")
    g.state.hex[u("allied.uk.8m")] = h("1317")
    organisation.update_control(g)
    assert g.state.control[h("1316")] == 0 and g.state.control[h("1317")] == 1
    g.state.control[h("1316")] = 1                     # changed elsewhere: written again
    organisation.update_control(g)
    assert g.state.control[h("1316")] == 0
    organisation.stacking_check(g)
    stack = ["axis.185.vi_186", "axis.185.vii_186", "axis.185.ii_187", "axis.185.iv_187"]
    for name in stack:
        g.state.box[u(name)] = BOX_MAP
        g.state.hex[u(name)] = h("1316")
    organisation.stacking_check(g)                     # five battalions: one must go
    assert ref_stack_totals(g, 0)[h("1316")] <= organisation.STACK_LIMIT_HALVES


def test_discovered_hexes_equals_per_hex_rule_10_11():
    """Every enemy hex of random positions, by day and by night: the one-pass
    answer equals the per-hex reference (rule 10.11)."""
    from tests.conftest import make, static

    t = static()
    rng = np.random.default_rng(5)
    land = np.flatnonzero(t.land)
    axis = [t.names[i] for i in np.flatnonzero((t.side == 0) & (t.size == st.BATTALION))[:12]]
    allied = [t.names[i] for i in np.flatnonzero((t.side == 1) & (t.size == st.BATTALION))[:12]]
    for trial in range(20):
        spots = rng.choice(land, len(axis) + len(allied), replace=False)
        place: dict = {}
        for name, hh in zip(axis + allied, spots):
            place.setdefault(t.grid.hex_id(int(hh)), []).append(name)
        g = make(place, turn=4 + 3 * (trial % 2))                  # day, night
        for side in (0, 1):
            enemy = sorted({int(x) for x in g.state.hex[ref_on_map(g, 1 - side)]})
            got = combat.discovered_hexes(g, enemy, side).tolist()
            assert got == [ref_discovered(g, hh, side) for hh in enemy]


def test_ground_units_lists_ground_pieces():
    """Leaders are not ground combat units; the list is ascending Python ints."""
    from tests.conftest import make, u

    g = make({"1315": ["axis.185.v_186", "allied.ldr.beak"], "1316": ["allied.uk.8m"]})
    assert g.ground_units(1) == [u("allied.uk.8m")] and g.ground_units(0) == [u("axis.185.v_186")]
    assert g.ground_units() == sorted([u("allied.uk.8m"), u("axis.185.v_186")])
