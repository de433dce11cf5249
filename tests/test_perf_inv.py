"""Speed-ups of the invasion engine and the scenario set-up leave every game as it was.

Each test compares the fast path with the plain one on the same inputs: the
set-up copied from the per-process template and replayed from the set-up memo
against a set-up done from scratch (rule 22, 3.0, 16.31, 19.3).
"""

from __future__ import annotations

import pickle

import numpy as np

from malta_sim.play import new_game
from malta_sim.iod.rules import airfields, coastal_guns


def _snapshot(game):
    rows = [dict(r) for r in game.events.rows] if game.events is not None else []
    memo = game.extra.get("inv")
    return {
        "state": [a.copy() for a in game.state],
        "extra_keys": sorted(map(repr, game.extra)),
        "plans": pickle.dumps(memo.plans) if memo is not None else b"",
        "zones": dict(memo.division_zone) if memo is not None else {},
        "info": {k: v for k, v in vars(game.scenario).items() if k != "data"},
        "rows": rows,
        "streams": sorted(game.streams._gens),
        "setup_draw": int(game.streams["setup"].integers(1 << 30)),
    }


def _assert_same(a, b):
    for x, y in zip(a["state"], b["state"]):
        np.testing.assert_array_equal(x, y)
    for k in ("extra_keys", "plans", "zones", "info", "rows", "streams", "setup_draw"):
        assert a[k] == b[k], k




def test_replayed_game_has_its_own_arrays():
    """Games set up from the template and the memo share no array with each other."""
    a = new_game("hercules", 5, 0, axis_policy="balanced", allied_policy="static")
    b = new_game("hercules", 5, 1, axis_policy="balanced", allied_policy="static")
    for x, y in zip(a.state, b.state):
        assert not np.shares_memory(x, y)
        assert x.flags.writeable
    assert a.extra["inv"] is not b.extra["inv"]
    a.extra["inv"].plans.clear()
    assert b.extra["inv"].plans


def test_line_of_fire_memo_equals_direct_check():
    """Rule 16.54: the memoised line of fire answers as ``line_of_fire_clear`` for
    every coastal-gun hex against every beach and ocean hex within 8 hexes."""
    from malta_sim.iod.rules import coastal_guns as cg
    from malta_sim.iod import invasion as H

    g = new_game("hercules", 2, 0, axis_policy="balanced", allied_policy="static")
    inv, grid, t = H.inv_static(g), g.static.grid, g.static
    guns = sorted({int(g.state.hex[u]) for u in np.flatnonzero(inv.gun_value > 0) if g.state.hex[u] >= 0})
    targets = np.flatnonzero(t.beach | inv.ocean)
    d = grid.distance_table
    n = 0
    for a in guns:
        for b in targets[d[a, targets] <= 8]:
            b = int(b)
            want = cg.line_of_fire_clear(grid.hex_id(a), grid.hex_id(b), inv.los_block, inv.los_block_sides)
            assert coastal_guns.line_of_fire(inv, grid, a, b) == want
            assert coastal_guns.line_of_fire(inv, grid, a, b) == want      # second answer from the memo
            n += 1
    assert n > 100


def test_delayed_reaction_map_equals_kernel():
    """Rule 17.7: the per-hex map answers as ``allied_may_act`` for every hex,
    on random Axis positions on turns 0 and 1 (and the memo follows moves)."""
    from malta_sim.iod.rules import special_rules as sp
    from malta_sim.iod.invasion import axis_ground_hexes
    from malta_sim.iod.state import BOX_MAP

    g = new_game("hercules", 4, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    gen = np.random.default_rng(0)
    axis = np.flatnonzero(t.side == 0)
    land = np.flatnonzero(t.land)
    d = t.grid.distance_table
    for trial in range(12):
        k = int(gen.integers(0, 6))
        s.box[axis] = 4
        s.hex[axis] = -1
        pick = gen.choice(axis, size=k, replace=False)
        s.box[pick] = BOX_MAP
        s.hex[pick] = gen.choice(land, size=k)
        for turn in (0, 1):
            s.turn[0] = turn
            radius = sp.delayed_reaction_radius(turn, "hercules")
            m = sp._may_act_map(g, radius)
            hx = axis_ground_hexes(g)
            for h in list(range(0, t.n_hexes, 7)) + [-1]:
                assert bool(m[h]) == bool(sp.allied_may_act(radius, h, hx, d))
    s.turn[0] = 2
    assert sp.delayed_reaction_ok(g, int(np.flatnonzero(t.side == 1)[0]))


def test_allied_answers_follow_every_move():
    """Allied hexes, distance to the nearest Allied unit and AA counts (16.12,
    18.5, 19.41) from the per-position memo equal direct computations, move
    after move."""
    from malta_sim.iod import invasion as H
    from malta_sim.iod import static as st
    from malta_sim.iod.state import BOX_MAP

    g = new_game("hercules", 6, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    d = t.grid.distance_table
    allied = np.flatnonzero(t.side == 1)
    land = np.flatnonzero(t.land)
    gen = np.random.default_rng(1)
    for step in range(25):
        u = int(gen.choice(allied))
        if gen.random() < 0.2:
            s.box[u], s.hex[u] = 5, -1
        else:
            s.box[u], s.hex[u] = BOX_MAP, int(gen.choice(land))
        for guns in (True, False):
            m = (s.box == BOX_MAP) & (t.side == 1) & (t.utype != st.LEADER)
            if not guns:
                m &= t.utype != st.COASTAL_GUN
            np.testing.assert_array_equal(H.allied_unit_hexes(g, guns), np.unique(s.hex[m]))
        hx = np.unique(s.hex[(s.box == BOX_MAP) & (t.side == 1) & (t.utype != st.LEADER)])
        aa = s.hex[(s.box == BOX_MAP) & (t.side == 1) & t.aa]
        for h in gen.choice(land, size=8):
            h = int(h)
            assert H.dist_to_allied(g, h) == (int(d[h, hx].min()) if hx.size else 99)
            for r in (1, 3):
                assert H.aa_within(g, h, r) == int((d[h, aa] <= r).sum())


def test_on_enter_hex_reveals_strongpoints_and_overruns_guns():
    """16.22 / 16.58: an Axis unit entering a hex reveals the Allied strongpoints
    in it and next to it (no others) and eliminates the coastal guns in it."""
    from malta_sim.iod import invasion as H
    from malta_sim.iod import static as st
    from malta_sim.iod.state import BOX_MAP

    g = new_game("hercules", 8, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    d = t.grid.distance_table
    sp = np.flatnonzero((t.utype == st.STRONGPOINT) & (t.side == 1))
    guns = np.flatnonzero((t.utype == st.COASTAL_GUN) & (t.side == 1) & (s.box == BOX_MAP))
    axis_u = int(np.flatnonzero((t.side == 0) & (t.utype == st.INFANTRY))[0])
    for target in [int(s.hex[sp[0]]), int(s.hex[guns[0]])]:
        s.revealed[:] = False
        want_sp = sp[(s.hex[sp] >= 0) & (d[target][s.hex[sp]] <= 1)]
        want_gone = guns[s.hex[guns] == target]
        H.on_enter_hex(g, axis_u, target, "move")
        np.testing.assert_array_equal(np.flatnonzero(s.revealed[sp]), np.flatnonzero(np.isin(sp, want_sp)))
        assert (s.box[want_gone] != BOX_MAP).all()


def test_stick_targets_equal_plan_target_ok():
    """Rules 19.22 / 19.33: the vectorised stick targets equal
    ``airborne.plan_target_ok`` hex by hex, with and without the long stick."""
    from malta_sim.iod.rules import airborne as ab
    from malta_sim.iod.rules.airborne import _target_hexes_ok, stick_targets

    g = new_game("hercules", 9, 0, axis_policy="balanced", allied_policy="static")
    d = g.static.grid.distance_table
    legal = np.flatnonzero(_target_hexes_ok(g))
    for r in list(legal[::9]) + [int(np.flatnonzero(g.static.land)[0])]:
        for long_used in (False, True):
            want = []
            for x in legal.tolist():
                ok, uses_long, _ = ab.plan_target_ok(True, int(d[r, x]), long_used)
                if ok:
                    want.append((x, uses_long))
            assert stick_targets(d, int(r), legal, long_used) == want


def _reference_marker_options(game, here):
    """Rule 19.13 reach of a drop zone marker, hex by hex through ``units_at``."""
    from malta_sim.iod import invasion as H

    s, t = game.state, game.static
    zoc = H.enemy_zoc(game, 0)
    reach, frontier = {here: 0}, [here]
    while frontier:
        nxt = []
        for x in frontier:
            if reach[x] >= 3:
                continue
            for y in t.neighbours[x]:
                y = int(y)
                if y < 0 or y in reach or not t.land[y] or s.control[y] != 0:
                    continue
                if len(game.units_at(y, 1)) or (zoc[y] and not len(game.units_at(y, 0))):
                    continue
                reach[y] = reach[x] + 1
                nxt.append(y)
        frontier = nxt
    return sorted(x for x in reach if x != here)


def test_drop_marker_moves_offer_the_rule_19_13_reach():
    """Rule 19.13: the hexes offered for a drop zone marker move equal a
    hex-by-hex search, on positions with Axis control spread at random."""
    from malta_sim.iod.rules.airborne import move_drop_markers

    g = new_game("intro", 12, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    seen = []

    class Spy:
        def move_drop_marker(self, game, f, options):
            seen.append((int(game.state.dz_hex[0, f]), list(options)))
            return None

    g.policies = (Spy(), g.policies[1])
    gen = np.random.default_rng(3)
    land = np.flatnonzero(t.land)
    n_checked = 0
    for trial in range(15):
        s.control[land] = np.where(gen.random(len(land)) < 0.6, 0, 1)
        for f in (1, 2):
            s.dz_hex[0, f] = int(gen.choice(land))
        seen.clear()
        move_drop_markers(g)
        for here, options in seen:
            assert options == _reference_marker_options(g, here)
            n_checked += 1
    assert n_checked > 5


def test_invasion_static_neighbourhood_tables():
    """The per-hex tables used by the entry effects (16.22, 16.32) list a hex and
    its on-map neighbours in direction order, and the town/city ones among them."""
    from malta_sim.iod import invasion as H

    g = new_game("intro", 1, 0, axis_policy="balanced", allied_policy="static")
    t, inv = g.static, H.inv_static(g)
    for h in range(t.n_hexes):
        want = [h] + [int(x) for x in t.neighbours[h] if x >= 0]
        assert inv.near_lists[h] == want
        assert inv.near_sets[h] == set(want)
        assert inv.urban_near[h] == [x for x in want if t.town[x] or t.city[x]]




def test_airfield_entry_candidates_match_rule_16_1_filter():
    """Rule 16.1: the units offered for airfield entry equal a unit-by-unit
    filter (80th Division, commandos, glider companies; companies or
    artillery; battalions not broken down; no leaders), on random boxes."""
    from malta_sim.iod import invasion as H
    from malta_sim.iod import static as st
    from malta_sim.iod.state import BOX_DISBANDMENT, BOX_POOL

    from tests.conftest import airfield_entry_spy

    g = new_game("hercules", 14, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    seen = airfield_entry_spy(g)                      # a day, no Allied unit near the airfields
    gen = np.random.default_rng(5)
    axis = np.flatnonzero(t.side == 0)
    offered = 0
    for trial in range(10):
        pick = gen.choice(axis, size=60, replace=False)
        s.box[pick] = BOX_DISBANDMENT
        s.hex[pick] = -1
        comps = np.flatnonzero(t.battalion_of >= 0)
        s.parent[comps] = np.where(gen.random(len(comps)) < 0.3, t.battalion_of[comps], -1)
        s.box[comps] = np.where(gen.random(len(comps)) < 0.5, BOX_POOL, BOX_DISBANDMENT)
        seen.clear()
        airfields.airfield_entry(g)
        want = []
        for u in np.flatnonzero((s.box == BOX_DISBANDMENT) & (t.side == 0)):
            u = int(u)
            air = t.printed_formation[u] == H.F_80 or t.utype[u] == st.COMMANDO or (
                t.utype[u] == st.GLIDER and t.size[u] == st.COMPANY)
            if not air or (t.size[u] == st.BATTALION and H.is_broken(g, u)):
                continue
            if t.size[u] == st.BATTALION and t.utype[u] != st.ARTILLERY:
                continue
            if t.utype[u] == st.LEADER:
                continue
            want.append(u)
        assert seen == ([want] if want else [])
        offered += bool(want)
    assert offered >= 3


def test_fire_ranges_equal_pairwise_checks():
    """Rules 16.54, 16.55, 16.79: ship -> guns in its range and gun -> ships in
    range and line of fire equal pair-by-pair checks, on random ship hexes."""
    from malta_sim.iod.rules import coastal_guns as cg
    from malta_sim.iod import invasion as H
    from malta_sim.iod import static as st
    from malta_sim.iod.rules.warships import _fire_ranges

    g = new_game("hercules", 15, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    inv, grid, d = H.inv_static(g), t.grid, t.grid.distance_table
    ships = np.flatnonzero(t.utype == st.WARSHIP).tolist()
    guns = np.flatnonzero((t.utype == st.COASTAL_GUN) & (inv.gun_value > 0) & (s.hex >= 0)).tolist()
    ocean = np.flatnonzero(inv.ocean)
    gen = np.random.default_rng(7)
    for trial in range(10):
        ship_hex = gen.choice(ocean, size=len(ships)).tolist()
        gun_hex = s.hex[guns].tolist()
        by_ship, by_gun = _fire_ranges(g, ships, ship_hex, guns, gun_hex)
        want_ship = {}
        for u, uh in zip(ships, ship_hex):
            r = [gg for gg, gh in zip(guns, gun_hex) if d[uh, gh] <= t.art_range[u]]
            if r:
                want_ship[u] = r
        want_gun = {}
        for gg, gh in zip(guns, gun_hex):
            r = [u for u, uh in zip(ships, ship_hex) if d[gh, uh] <= inv.gun_range[gg]
                 and cg.line_of_fire_clear(grid.hex_id(gh), grid.hex_id(uh), inv.los_block, inv.los_block_sides)]
            if r:
                want_gun[gg] = r
        assert by_ship == want_ship and list(by_ship) == list(want_ship)
        assert by_gun == want_gun and list(by_gun) == list(want_gun)


def test_side_selector_selects_the_side_in_order():
    """The unit selector of a side (slice or index array) picks exactly that
    side's units in unit order, contiguous or not."""
    from types import SimpleNamespace

    from malta_sim.iod.rules.special_rules import side_selector

    x = np.arange(10) * 3
    for sides in ([0, 0, 0, 1, 1, 1, 1, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0], [0] * 10):
        side = np.array(sides)
        for k in (0, 1):
            sel = side_selector(SimpleNamespace(side=side), k)
            np.testing.assert_array_equal(x[sel], x[side == k])
