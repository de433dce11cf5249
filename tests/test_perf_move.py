"""The faster movement and invasion-decision code gives the answers of the
plain one-question-at-a-time code it replaced.

Each test plays a few whole games with a checking wrapper around the fast
function: on every call the wrapper also works the answer out the plain way
(the reference copies below) and compares.  Games are short (Hercules under
the default bots ends within a few days) so the file runs in seconds.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod.rules import movement, organisation
from malta_sim.play import play_games
from malta_sim.bots import invasion


# ---------------------------------------------------------------- references
def ref_objective_weight(game, h):
    t = game.static
    w = 0.0
    if t.airfield[h]:
        w += 3
    if h in set(int(x) for x in t.victory_cities):
        w += 3
    elif t.city[h]:
        w += 2
    if t.town[h]:
        w += 1
    if t.main_port[h]:
        w += 2
    return w


def ref_allied_strength_near(game, h, radius=1):
    from malta_sim.iod.state import ALLIED, BOX_MAP

    s, t = game.state, game.static
    idx = ((s.box == BOX_MAP) & (t.side == ALLIED) & (s.hex >= 0)).nonzero()[0]
    if not len(idx):
        return 0
    strength = t.defense[idx, s.level[idx]].astype(np.int64)
    return int(strength[t.grid.distance_table[h, s.hex[idx]] <= radius].sum())


def ref_plan_marker(game, formation, turn, options):
    if not options:
        return None
    d = game.static.grid.distance_table
    best, best_s = None, -1e9
    arr = np.array(options)
    for h in options:
        near = arr[d[h, arr] <= 2]
        s = sum(ref_objective_weight(game, int(x)) for x in near)
        s -= 0.3 * ref_allied_strength_near(game, h, 1) + 0.1 * ref_allied_strength_near(game, h, 2)
        s -= 3.0 if invasion._ocean_within(game, h, 2) else (1.0 if invasion._ocean_within(game, h, 3) else 0.0)
        s += 0.01 * (formation % 3) * (h % 7)
        if s > best_s:
            best, best_s = h, s
    return best


def ref_stick_scores(game, targets):
    """(form, hex, long, kind) -> score, as the plain ``plan_sticks`` scored them."""
    out = {}
    for form, tl in targets.items():
        for h, lg in tl:
            for kind in ("battalion", "hq_engineers"):
                safe = 3 if kind == "hq_engineers" else 2
                v = ref_objective_weight(game, h) - 0.4 * ref_allied_strength_near(game, h, 1) - (0.5 if lg else 0)
                if kind == "hq_engineers":
                    v -= 0.5 * ref_allied_strength_near(game, h, 2)
                out[form, h, lg, kind] = v - (4.0 if invasion._ocean_within(game, h, safe) else 0.0)
    return out


def ref_place_warships(game, ships, options):
    from malta_sim.iod.invasion import target_beaches

    beaches = target_beaches(game)
    d = game.static.grid.distance_table
    out, count = {}, {}
    for s in ships:
        cands = [h for h in options[s] if count.get(h, 0) < 2]
        if not cands:
            continue
        h = min(cands, key=lambda x: (min((d[x, b] for b in beaches), default=0), x))
        out[s] = h
        count[h] = count.get(h, 0) + 1
    return out


def ref_legal_moves(game, u, mode="tactical", hitch=False):
    """The destinations as worked out before the fused kernel (no side effects)."""
    from malta_sim.iod import static as st

    mv = movement
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
        allowed &= game.extra["strat_allowed"][side]
    cls = -1 if t.utype[u] == st.LEADER else int(t.move_class[u])
    start = int(s.hex[u])
    cost, pred = mv.reach_kernel(start, 2 * ma, cls, strategic, t.move_cost, t.strat_cost, t.road,
                                 t.creek, t.rise, t.ocean_side, t.neighbours, t.road_cost,
                                 t.road_strat_cost, t.creek_cost, t.rise_cost, zoc, block, trivial,
                                 allowed, mv.ZOC_ENTER, mv.ZOC_EXIT)
    room = mv.STACK_ROOM - organisation.stack_totals(game, side) - organisation.stack_weight(game, u)
    ok = (cost < mv.INF) & (room >= 0)
    ok[start] = False
    add = 2 if (hitch and t.utype[u] == st.ARTILLERY) else 0
    idx = np.flatnonzero(ok)
    return dict(zip(idx.tolist(), (cost[idx] / 2.0 + add).tolist()))


def ref_infiltration_options(game, side):
    from malta_sim.iod import static as st

    s, t = game.state, game.static
    zoc_start = game.extra.get("zoc_start")
    zoc = movement.zoc_map(game, 1 - side)
    block, _ = movement.occupancy(game, 1 - side)
    out = {}
    for u in game.on_map(side):
        u = int(u)
        if not movement.movable(game, u) or t.utype[u] in (st.LEADER, st.ARTILLERY):
            continue
        h = s.hex[u]
        if zoc_start is None or not zoc_start[h] or not zoc[h]:
            continue
        dests = []
        for d in range(6):
            o = t.neighbours[h, d]
            if o < 0 or not t.land[o] or block[o] or not zoc[o] or t.ocean_side[h, d]:
                continue
            if t.rise[h, d] and not t.road[h, d] and t.move_class[u] != st.FOOT:
                continue
            if organisation.fits_stacking(game, [u], int(o)):
                dests.append(int(o))
        if dests:
            out[u] = dests
    return out


def ref_leader_bonus(game, side):
    from malta_sim.iod import static as st
    from malta_sim.iod.state import BOX_MAP

    s, t = game.state, game.static
    out = np.zeros(t.n_units, np.int8)
    dist = t.grid.distance_table
    for f in range(t.n_formations):
        ld = t.formation_leader[f]
        if ld < 0 or s.box[ld] != BOX_MAP or t.side[ld] != side:
            continue
        lh = s.hex[ld]
        for u in game.on_map(side):
            if s.formation[u] != f or t.utype[u] == st.LEADER:
                continue
            if int(t.ma[u, s.level[u]]) <= 0 or dist[lh, s.hex[u]] > 1:
                continue
            b = t.foot_bonus[ld, s.level[ld]] if t.move_class[u] == st.FOOT else t.mot_bonus[ld, s.level[ld]]
            out[u] = max(out[u], b)
    return out


def ref_exerting_hexes(game, side):
    from malta_sim.iod import static as st

    s, t = game.state, game.static
    nh = t.n_hexes
    units = game.on_map(side)
    exert = np.zeros(nh, bool)
    foot = np.zeros(nh, bool)
    h = s.hex[units]
    ut = t.utype[units]
    sp = ut == st.STRONGPOINT
    art = ut == st.ARTILLERY
    hs = h[sp | (art & ~s.hitched[units] & (s.salvos[units] > 0))]
    exert[hs] = True
    foot[hs] = True
    ground = ~(sp | art | (ut == st.LEADER) | (ut == st.WARSHIP) | (ut == st.COASTAL_GUN))
    ug, hg = units[ground], h[ground]
    a = t.attack[ug, s.level[ug]]
    att = np.bincount(hg, weights=a, minlength=nh)
    foot[hg[(a > 0) & (t.move_class[ug] == st.FOOT)]] = True
    hf = hg[t.fort[hg] & ~s.fort_destroyed[hg]]
    exert[hf] = True
    foot[hf] = True
    exert |= att >= 3
    return exert, foot


def ref_within2_of_enemy(game, side):
    t, s = game.static, game.state
    enemy = [u for u in game.on_map(1 - side) if game.is_ground(u)]
    if not enemy:
        return np.zeros(t.n_hexes, bool)
    hx = np.unique(s.hex[enemy])
    return (t.grid.distance_table[:, hx] <= 2).any(axis=1)


def ref_compute_supply(game, side):
    from malta_sim.iod import static as st
    from malta_sim.iod.rules import supply as sp
    from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP

    t, s = game.static, game.state
    units = game.on_map(side)
    ok = np.zeros(t.n_units, bool)
    if sp.automatic_supply_turn(game):
        ok[units] = True
        return ok
    zoc = movement.zoc_map(game, 1 - side)
    block, trivial = movement.occupancy(game, 1 - side)
    friendly = np.zeros(t.n_hexes, bool)
    for u in game.on_map(side):
        if t.utype[u] not in (st.WARSHIP, st.LEADER):
            friendly[s.hex[u]] = True
    passable = t.land & ~(block | trivial) & (~zoc | friendly)
    hq_reach = {}
    for f in range(t.n_formations):
        hq = t.formation_hq[f]
        if hq < 0 or t.side[hq] != side or s.box[hq] != BOX_MAP:
            continue
        h = int(s.hex[hq])
        dist = sp.route_distance(h, passable | (np.arange(t.n_hexes) == h), t.neighbours,
                                 t.ocean_side, sp.MAX_ROUTE)
        srcs = sp.supply_sources(game, side, f)
        hq_ok = bool(len(srcs)) and bool((dist[srcs] >= 0).any())
        if s.entered_turn[hq] == game.turn:
            hq_ok = True
        ok[hq] = hq_ok
        if hq_ok:
            hq_reach[f] = dist
    near_cf = None
    if side == ALLIED:
        cf = (t.city & (s.control == ALLIED)) | (t.fort & ~s.fort_destroyed & (s.control != AXIS))
        near_cf = cf.copy()
        for h in np.flatnonzero(cf):
            for o in t.neighbours[h]:
                if o >= 0:
                    near_cf[o] = True
    for u in units:
        if t.utype[u] in (st.HQ, st.LEADER, st.WARSHIP):
            if t.utype[u] != st.HQ:
                ok[u] = True
            continue
        if s.entered_turn[u] == game.turn:
            ok[u] = True
            continue
        if near_cf is not None and near_cf[s.hex[u]]:
            ok[u] = True
            continue
        dist = hq_reach.get(int(s.formation[u]))
        if dist is not None and dist[s.hex[u]] >= 0:
            ok[u] = True
    return ok


def _play(monkeypatch, scen, ax, al, n, seed=3):
    res = play_games(scen, seed, np.arange(n), axis_policy=ax, allied_policy=al)
    assert len(res.games) == n


# ---------------------------------------------------------------- tests
@pytest.mark.parametrize("scen,ax,al", [("hercules", "balanced", "static"), ("intro", "random", "random")])
def test_movement_fast_paths_equal_plain(monkeypatch, scen, ax, al):
    """``movable_units`` equals the per-unit ``movable`` filter, the compiled
    stacking room equals ``STACK_ROOM - stack_totals``, and the fused
    legal-move kernel, the infiltration options, leader bonuses, the hexes
    near the enemy, the ZOC-exerting hexes and the supply state equal the plain code's answers (same
    hexes, same order, same MP) on every call of whole games; where a move
    skips the lookup of enemy pieces in a hex, there are none."""
    calls = {"movable": 0, "room": 0}
    fast_movable, fast_room = movement.movable_units, movement._stack_room

    def movable_units(game, side):
        got = fast_movable(game, side)
        assert got == [int(u) for u in game.on_map(side) if movement.movable(game, int(u))]
        calls["movable"] += 1
        return got

    def stack_room(game, side):
        got = fast_room(game, side)
        np.testing.assert_array_equal(got, movement.STACK_ROOM - organisation.stack_totals(game, side))
        calls["room"] += 1
        return got

    fast_legal, fast_infiltration = movement.legal_moves, movement.infiltration_options

    def legal_moves(game, u, mode="tactical", hitch=False):
        ref = ref_legal_moves(game, u, mode, hitch)
        got = fast_legal(game, u, mode, hitch)
        assert got == ref and list(got) == list(ref)
        calls["legal"] = calls.get("legal", 0) + 1
        return got

    def infiltration_options(game, side):
        got = fast_infiltration(game, side)
        stack_room(game, side)               # the room the fused infiltration kernel counts (7.1)
        assert list(got.items()) == list(ref_infiltration_options(game, side).items())
        calls["infiltration"] = calls.get("infiltration", 0) + 1
        calls["infiltration_options"] = calls.get("infiltration_options", 0) + len(got)
        return got

    fast_bonus, fast_within2 = movement.leader_bonus, movement.within2_of_enemy
    fast_strategic, fast_loop = movement.strategic_movement, movement._movement_loop

    def strategic_movement(game, side):
        # the fused set-up kernel against the plain leader bonuses (14.1),
        # hexes near the enemy and candidates (6.2, 17.7)
        from malta_sim.iod import static as st

        s = game.state
        want_bonus = ref_leader_bonus(game, side)
        np.testing.assert_array_equal(fast_bonus(game, side), want_bonus)
        near = ref_within2_of_enemy(game, side)
        want_allowed = (s.control == side) & ~near & game.static.land
        want_cands = [u for u in game.on_map(side) if movement.movable(game, int(u))
                      and not near[s.hex[u]] and game.static.utype[u] != st.LEADER]
        seen = {}

        def loop(game_, side_, mode, cands):
            seen["cands"] = list(cands)
            return fast_loop(game_, side_, mode, cands)

        movement._movement_loop = loop
        try:
            fast_strategic(game, side)
        finally:
            movement._movement_loop = fast_loop
        np.testing.assert_array_equal(game.extra["leader_bonus"], want_bonus)
        assert game.extra["leader_bonus"].dtype == np.int8
        np.testing.assert_array_equal(game.extra["strat_allowed"][side], want_allowed)
        assert seen["cands"] == [int(u) for u in want_cands]
        calls["bonus"] = calls.get("bonus", 0) + int(want_bonus.any())
        calls["strategic"] = calls.get("strategic", 0) + len(want_cands)
    from malta_sim.iod.rules import supply

    fast_supply = supply.compute_supply

    def leader_bonus(game, side):
        got = fast_bonus(game, side)
        np.testing.assert_array_equal(got, ref_leader_bonus(game, side))
        assert got.dtype == np.int8
        calls["bonus"] = calls.get("bonus", 0) + int(got.any())
        return got

    def within2_of_enemy(game, side):
        got = fast_within2(game, side)
        np.testing.assert_array_equal(got, ref_within2_of_enemy(game, side))
        return got

    def compute_supply(game, side):
        got = fast_supply(game, side)
        np.testing.assert_array_equal(got, ref_compute_supply(game, side))
        calls["supply"] = calls.get("supply", 0) + 1
        return got

    fast_exert = movement.exerting_hexes

    def exerting_hexes(game, side):
        got = fast_exert(game, side)
        ref = ref_exerting_hexes(game, side)
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])
        calls["exert"] = calls.get("exert", 0) + 1
        return got

    fast_enter = movement._enter

    def enter(game, side, real, path, how, enemy_hexes, mover=None):
        # one hex at a time, so that each skipped lookup of enemy pieces is
        # checked when the hex is entered
        last = len(path) - 1
        for i, h in enumerate(path):
            if mover is not None:
                game.state.hex[mover] = h
            if real and enemy_hexes is not None and h not in enemy_hexes:
                assert not len(game.units_at(h, 1 - side))      # the skipped lookup finds nothing
                calls["skipped"] = calls.get("skipped", 0) + 1
            fast_enter(game, side, real, (h,), how if i == last else "move", enemy_hexes, mover)

    monkeypatch.setattr(movement, "_enter", enter)
    monkeypatch.setattr(movement, "exerting_hexes", exerting_hexes)
    monkeypatch.setattr(movement, "leader_bonus", leader_bonus)
    monkeypatch.setattr(movement, "strategic_movement", strategic_movement)
    monkeypatch.setattr(movement, "within2_of_enemy", within2_of_enemy)
    monkeypatch.setattr(supply, "compute_supply", compute_supply)
    monkeypatch.setattr(movement, "movable_units", movable_units)
    monkeypatch.setattr(movement, "_stack_room", stack_room)
    monkeypatch.setattr(movement, "legal_moves", legal_moves)
    monkeypatch.setattr(movement, "infiltration_options", infiltration_options)
    _play(monkeypatch, scen, ax, al, 2)
    assert calls["movable"] > 10 and calls["room"] > 10, calls
    if ax == "random":      # the parameterised bots choose moves in one compiled call (test_perf3_move)
        assert calls["legal"] > 10, calls
    assert calls["infiltration"] > 2 and calls["bonus"] > 2 and calls["supply"] > 2, calls
    assert calls["strategic"] > 5, calls
    assert calls["exert"] > 2 and calls["skipped"] > 10 and calls["infiltration_options"] > 0, calls


def test_invasion_decisions_equal_plain(monkeypatch):
    """The vectorised invasion decisions (drop zone markers, sticks, warship
    placement, objective weights, Allied strength near a hex) give the plain
    loops' answers on every call of whole Hercules games."""
    D = invasion.InvasionDecisions
    calls = {"marker": 0, "sticks": 0, "ships": 0}
    fast_marker, fast_sticks, fast_ships = D.plan_marker, D.plan_sticks, D.place_warships

    def plan_marker(self, game, formation, turn, options):
        got = fast_marker(self, game, formation, turn, options)
        assert got == ref_plan_marker(game, formation, turn, options)
        for h in options:
            assert invasion._objective_weight(game, h) == ref_objective_weight(game, h)
            for r in (1, 2, 3):
                assert invasion._allied_strength_near(game, h, r) == ref_allied_strength_near(game, h, r)
        if options:
            many = invasion._allied_strength_near_many(game, options, 2).tolist()
            assert many == [ref_allied_strength_near(game, h, 2) for h in options]
        calls["marker"] += 1
        return got

    def plan_sticks(self, game, turn, sticks, targets, limits):
        got = fast_sticks(self, game, turn, sticks, targets, limits)
        # the same picks as a plain scorer: every pick is a best candidate
        ref = ref_stick_scores(game, targets)
        ow = invasion._objective_weights(game)
        for (form, h, lg, kind), v in ref.items():
            a1 = invasion._allied_strength_near_many(game, [h], 1)[0]
            a2 = invasion._allied_strength_near_many(game, [h], 2)[0]
            w = ow[h] - 0.4 * int(a1) - (0.5 if lg else 0)
            if kind == "hq_engineers":
                w -= 0.5 * int(a2)
            safe = 3 if kind == "hq_engineers" else 2
            assert w - (4.0 if int(invasion._ocean_dist(game)[h]) <= safe else 0.0) == v
        calls["sticks"] += 1
        return got

    def place_warships(self, game, ships, options):
        got = fast_ships(self, game, ships, options)
        assert got == ref_place_warships(game, ships, options)
        calls["ships"] += 1
        return got

    from malta_sim.bots import simple

    # the land bots copy these methods into their class (simple.py): patch both
    for cls in (D, simple._LandBot):
        for name, fn in (("plan_marker", plan_marker), ("plan_sticks", plan_sticks),
                         ("place_warships", place_warships)):
            if name in cls.__dict__:
                monkeypatch.setattr(cls, name, fn)
    _play(monkeypatch, "hercules", "balanced", "static", 2)
    assert calls["marker"] and calls["sticks"] and calls["ships"], calls


# ---------------------------------------------------------------- reach search
def ref_reach(start, ma2, cls, strategic, t, zoc, blocked, stop, allowed):
    """The search as first written (hexside costs worked out per step), plain Python."""
    import math

    def cls_pick(vec):
        return min(vec[0], vec[1], vec[2]) if cls < 0 else vec[cls]

    def edge2(g, d, h):
        best = 1e9
        for c in (range(0, 3) if cls < 0 else (cls,)):
            if t.road[g, d]:
                v = t.road_strat_cost[c] if strategic else t.road_cost[c]
            else:
                v = t.strat_cost[h, c] if strategic else t.move_cost[h, c]
                if v >= 99:
                    continue
                if t.creek[g, d]:
                    v += t.creek_cost[c]
                if t.rise[g, d]:
                    if t.rise_cost[c] >= 99:
                        continue
                    v += t.rise_cost[c]
            if v < best:
                best = v
        return 198 if best >= 99 else int(math.ceil(best * 2 - 1e-9))

    nbr = t.neighbours
    n = nbr.shape[0]
    cost = np.full(n, 1 << 28, np.int64)
    pred = np.full(n, -1, np.int64)
    done = np.zeros(n, bool)
    cost[start] = 0
    buckets = [[] for _ in range(ma2 + 2)]
    buckets[0].append(start)
    for c in range(ma2 + 2):
        for g in buckets[c]:
            if done[g] or cost[g] != c:
                continue
            done[g] = True
            if g != start and (zoc[g] or stop[g]):
                continue
            for d in range(6):
                h = nbr[g, d]
                if h < 0 or blocked[h] or not allowed[h] or t.ocean_side[g, d]:
                    continue
                if zoc[g] and zoc[h]:
                    continue
                e = edge2(g, d, h)
                if e >= 198:
                    continue
                if zoc[g]:
                    e += 2 * cls_pick(movement.ZOC_EXIT)
                if zoc[h]:
                    e += 2 * cls_pick(movement.ZOC_ENTER)
                nc = c + e
                if g == start and nc > ma2 and ma2 > 0:
                    nc = ma2
                if nc <= ma2 and nc < cost[h]:
                    cost[h] = nc
                    pred[h] = g
                    buckets[nc].append(h)
    return cost, pred


def test_reach_search_with_cost_table_equals_first_search():
    """The bucket search over the per-static hexside cost table (``reach_core``
    with ``edge_cost_table``) gives the first search's costs and paths, for
    every class (leaders too) and both kinds of movement, on random masks."""
    from malta_sim.iod.setup import load_static

    t = load_static()
    edge = movement.edge_cost_table(t.move_cost, t.strat_cost, t.road, t.creek, t.rise, t.neighbours,
                                    t.road_cost, t.road_strat_cost, t.creek_cost, t.rise_cost)
    rng = np.random.default_rng(11)
    land = np.flatnonzero(t.land)
    for k in range(48):
        n = t.n_hexes
        zoc = rng.random(n) < 0.15
        blocked = rng.random(n) < 0.05
        stop = rng.random(n) < 0.03
        allowed = t.land & (rng.random(n) < (0.7 if k % 2 else 1.0))
        start = int(rng.choice(land))
        cls = int(rng.integers(-1, 3))
        strategic = bool(k % 3 == 0)
        ma2 = int(rng.integers(0, 31))
        got = movement.reach_core(start, ma2, cls, edge[int(strategic), cls + 1], zoc, blocked, stop,
                                  allowed, t.ocean_side, t.neighbours, movement.ZOC_ENTER,
                                  movement.ZOC_EXIT)
        ref = ref_reach(start, ma2, cls, strategic, t, zoc, blocked, stop, allowed)
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])


def test_random_warship_placement_equals_plain(monkeypatch):
    """The random bot's warship placement draws the same numbers and places
    the same ships as the plain filter of the full hexes (16.72)."""
    R = invasion.RandomInvasionDecisions
    fast = R.place_warships
    calls = {"n": 0}

    def plain(self, game, ships, options):
        out, count = {}, {}
        for s in ships:
            cands = [h for h in options[s] if count.get(h, 0) < 2]
            if cands:
                h = self._choice(game, cands)
                out[s] = h
                count[h] = count.get(h, 0) + 1
        return out

    def place_warships(self, game, ships, options):
        bitgen = self.rng(game).bit_generator
        before = bitgen.state
        ref = plain(self, game, ships, options)
        after = bitgen.state
        bitgen.state = before
        got = fast(self, game, ships, options)
        assert got == ref and bitgen.state == after
        calls["n"] += 1
        return got

    monkeypatch.setattr(R, "place_warships", place_warships)
    _play(monkeypatch, "hercules", "random", "random", 2)
    assert calls["n"] == 2
