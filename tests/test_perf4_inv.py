"""Fourth round of invasion-engine speed work: the compiled Allied proximity
passes (:mod:`malta_sim.iod.proximity`) equal their
plain array references on every call through whole games and on random
positions, and the per-static-data tables are declared, built once and equal
to the arrays they come from.

* Allied defense strength near hexes (the bots' threat measure: beach
  movement 18.7, rally 19.6, drop zone markers 19.13 / 19.31, sticks 19.32).
* Distance to the nearest Allied unit (landing losses 18.5, wave boxes 18.32,
  stragglers 17.8, airfield entry 16.11), leaders excluded (14.0).
* Allied AA within range (16.12, 17.52, 19.41).
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod import proximity as ap
from malta_sim.iod import invasion as H
from malta_sim.iod import static as st
from malta_sim.play import new_game, play_games
from malta_sim.iod.state import ALLIED, BOX_MAP
from malta_sim.bots import invasion as pinv
from tests.oracles import iod_rules as oracle
from malta_sim.iod.rules import airfields


# --------------------------------------------------------------------- plain references
def ref_strength_near(game, hexes, radius):
    """The array expression the compiled pass replaced (int64 per hex)."""
    s, t = game.state, game.static
    idx = ((s.box == BOX_MAP) & (t.side == ALLIED) & (s.hex >= 0)).nonzero()[0]
    hexes = np.asarray(hexes, np.int64).reshape(-1)
    if not len(idx) or not len(hexes):
        return np.zeros(len(hexes), np.int64)
    strength = t.defense[idx, s.level[idx]].astype(np.int64)
    near = t.grid.distance_table[hexes[:, None], s.hex[idx][None, :]] <= radius
    return near.astype(np.int64) @ strength


def ref_nearest(game, hexes):
    """Hexes to the nearest Allied unit (leaders excluded), 99 when none."""
    s, t = game.state, game.static
    hx = np.unique(s.hex[(s.box == BOX_MAP) & (t.side == ALLIED) & (t.utype != st.LEADER)])
    hexes = np.asarray(hexes, np.int64).reshape(-1)
    if hx.size == 0:
        return np.full(len(hexes), 99, np.int64)
    return t.grid.distance_table[hexes][:, hx].min(axis=1).astype(np.int64)


def ref_aa_within(game, h, radius):
    s, t = game.state, game.static
    aa = s.hex[(s.box == BOX_MAP) & (t.side == ALLIED) & t.aa]
    return int((t.grid.distance_table[h, aa] <= radius).sum())


# --------------------------------------------------------------------- random positions
def _scramble(game, gen, p_off=0.3):
    """Random Allied positions: each Allied piece on a random land hex or off
    the map, at a random level of its table."""
    s, t = game.state, game.static
    land = np.flatnonzero(t.land)
    for u in np.flatnonzero(t.side == ALLIED):
        if gen.random() < p_off:
            s.box[u], s.hex[u] = 5, -1
        else:
            s.box[u], s.hex[u] = BOX_MAP, int(gen.choice(land))
        s.level[u] = int(gen.integers(0, max(1, int(t.n_levels[u]))))


@pytest.mark.parametrize("p_off", [0.0, 0.5, 1.0])
def test_kernels_equal_references_on_random_positions(p_off):
    """Every pass against its plain reference on random Allied positions
    (including none on the map), random hexes and radii."""
    g = new_game("hercules", 3, 0, axis_policy="balanced", allied_policy="static")
    gen = np.random.default_rng(4)
    n_h = g.static.n_hexes
    for _ in range(15):
        _scramble(g, gen, p_off)
        hexes = gen.integers(0, n_h, size=int(gen.integers(0, 40))).tolist()
        for r in (0, 1, 2, 3, 5):
            got = ap.allied_strength_near(g, hexes, r)
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, ref_strength_near(g, hexes, r))
            np.testing.assert_array_equal(pinv._allied_strength_near_many(g, hexes, r),
                                          ref_strength_near(g, hexes, r))
        np.testing.assert_array_equal(ap.nearest_allied_units(g, hexes), ref_nearest(g, hexes))
        for h in hexes[:10]:
            assert pinv._allied_strength_near(g, h, 2) == int(ref_strength_near(g, [h], 2)[0])
            assert H.dist_to_allied(g, h) == int(ref_nearest(g, [h])[0])
            assert ap.nearest_allied_unit(g, h) == int(ref_nearest(g, [h])[0])
            for r in (1, 3):
                assert H.aa_within(g, h, r) == ref_aa_within(g, h, r)


def test_kernels_raw_on_random_arrays():
    """The kernels themselves on random arrays (units in any order, boxes,
    levels, skip flags) against numpy one-liners."""
    gen = np.random.default_rng(9)
    H_, U = 40, 30
    pts = gen.integers(0, 10, size=(H_, 2))
    dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2).astype(np.int16)
    for _ in range(50):
        box = gen.integers(0, 3, size=U).astype(np.int8)
        hexpos = np.where(box == BOX_MAP, gen.integers(0, H_, size=U), -1).astype(np.int16)
        level = gen.integers(0, 4, size=U).astype(np.int8)
        defense = gen.integers(0, 9, size=(U, 4)).astype(np.int8)
        skip = gen.random(U) < 0.2
        units = np.sort(gen.choice(U, size=int(gen.integers(0, U)), replace=False)).astype(np.int64)
        hexes = gen.integers(0, H_, size=7).astype(np.int64)
        r = int(gen.integers(0, 6))
        on = units[box[units] == BOX_MAP]
        want = np.array([int(defense[on, level[on]][dist[h, hexpos[on]] <= r].astype(np.int64).sum())
                         for h in hexes], np.int64)
        np.testing.assert_array_equal(ap.strength_near_kernel(dist, hexes, r, units, box, hexpos, level,
                                                              defense), want)
        cnt = on[~skip[on]]
        want_n = [int(dist[h, hexpos[cnt]].min()) if cnt.size else 99 for h in hexes]
        assert ap.nearest_many_kernel(dist, hexes, units, box, hexpos, skip).tolist() == want_n
        assert [int(ap.nearest_many_kernel(dist, np.array([h], np.int64), units, box, hexpos, skip)[0])
                for h in hexes] == want_n
        assert [ap.count_within_kernel(dist, int(h), r, units, box, hexpos) for h in hexes] == \
            [int((dist[h, hexpos[on]] <= r).sum()) for h in hexes]




def test_static_tables_are_declared_and_built_once():
    """The invasion tables, the one-hex move tables and the warship list are
    per-static-data properties (built once, equal to their arrays)."""
    g = new_game("hercules", 1, 0, axis_policy="balanced", allied_policy="static")
    t = g.static
    inv = H.inv_static(g)
    assert inv is t.invasion is H.inv_static(g)
    assert t.one_hex_tables is t.one_hex_tables
    land, ocean_side, road, rise, move_cost, leader, move_class, harmless = t.one_hex_tables
    assert land == t.land.tolist() and ocean_side == t.ocean_side.tolist()
    assert road == t.road.tolist() and rise == t.rise.tolist() and move_cost == t.move_cost.tolist()
    assert leader == (t.utype == st.LEADER).tolist() and move_class == t.move_class.tolist()
    assert harmless == ((t.utype == st.LEADER) | (t.utype == st.COASTAL_GUN)).tolist()
    np.testing.assert_array_equal(t.warship_units, np.flatnonzero(t.utype == st.WARSHIP))
    np.testing.assert_array_equal(t.side_units[0], np.flatnonzero(t.side == 0))
    np.testing.assert_array_equal(t.side_units[1], np.flatnonzero(t.side == 1))
    np.testing.assert_array_equal(t.allied_aa_units, np.flatnonzero((t.side == 1) & t.aa))
    near = inv.near_padded
    n_h = t.n_hexes
    assert near.shape == (n_h + 1, 7) and (near[n_h] == n_h).all()
    for h in range(0, n_h, 5):
        row = near[h].tolist()
        assert row[:len(inv.near_lists[h])] == inv.near_lists[h]
        assert all(x == n_h for x in row[len(inv.near_lists[h]):])
    for name in ("_one_hex_tables", "_warship_units"):
        assert name not in vars(t)


def _engine_only_plain(game, hook) -> bool:
    """The set-up memo's engine-code test without the per-class verdicts."""
    from malta_sim.iod import setup as su

    if hook is not None and not su._engine_code(hook):
        return False
    for p in game.policies:
        for c in type(p).__mro__:
            if c is object:
                continue
            if not su._engine_code(c):
                return False
            for v in c.__dict__.values():
                if (callable(v) or isinstance(v, (staticmethod, classmethod, property))) \
                        and not su._engine_code(v):
                    return False
        for v in getattr(p, "__dict__", {}).values():
            if callable(v) and not su._engine_code(v):
                return False
    return True


def _user_zones(self, game, divisions, zones):
    return {d: sorted(zones)[0] for d in divisions}




# --------------------------------------------------------------------- victory terms (20.0)
def ref_objective_counts(game) -> dict:
    s, t = game.state, game.static
    ax = s.control == 0
    return {"airfields": int((t.airfield & ax).sum()), "cities": int(ax[t.victory_cities].sum()),
            "towns": int((t.town & ax).sum()),
            "forts_destroyed": int((t.fort & s.fort_destroyed).sum()) + int(s.forts_destroyed_base[0])}


def ref_axis_hqs_out(game) -> int:
    from malta_sim.iod.state import BOX_ELIMINATED, BOX_TURN_TRACK

    s, t = game.state, game.static
    hq = (t.utype == st.HQ) & (t.side == 0)
    return int((hq & ((s.box == BOX_ELIMINATED) | (s.box == BOX_TURN_TRACK))).sum())


def ref_invasion_modifier(game) -> int:
    from malta_sim.iod.rules import special_rules as sp
    from malta_sim.iod.state import BOX_FOLLOW_UP

    s, t, inv = game.state, game.static, H.inv_static(game)
    held = set(s.box_slot[(s.box == BOX_FOLLOW_UP) & (t.side == 0) & (t.utype != st.LEADER)].tolist())
    mod = sum(int((s.control[inv.zone_beaches[z]] == ALLIED).sum()) for z in range(len(inv.zone_names))
              if z in held)
    return mod + sp.rn_surrender_modifier(int(s.rn_result[0]))


@pytest.mark.parametrize("scenario,pols", [("hercules", ("balanced", "static")), ("hercules", ("random", "random")),
                                           ("intro", ("aggressive", "counterattack"))])
def test_victory_terms_equal_reference_on_every_call(monkeypatch, scenario, pols):
    """Objective counts, Axis HQs out and the invasion's beach term of 20.0
    equal the plain array expressions at every surrender phase of whole games."""
    from malta_sim.iod.rules import victory

    n = [0]
    fast_counts, fast_hqs, fast_inv = victory.objective_counts, victory.axis_hqs_out, victory.invasion_terms

    def counts(game):
        got = fast_counts(game)
        assert got == ref_objective_counts(game)
        n[0] += 1
        return got

    def hqs(game):
        got = fast_hqs(game)
        assert got == ref_axis_hqs_out(game)
        return got

    def inv_mod(game):
        got = fast_inv(game)
        assert got == ref_invasion_modifier(game)
        return got

    monkeypatch.setattr(victory, "objective_counts", counts)
    monkeypatch.setattr(victory, "axis_hqs_out", hqs)
    monkeypatch.setattr(victory, "invasion_terms", inv_mod)
    play_games(scenario, 8, np.arange(2), axis_policy=pols[0], allied_policy=pols[1])
    assert n[0] > 10


def test_victory_terms_on_random_positions():
    """The same on random control, destroyed forts, boxes and slots."""
    from malta_sim.iod.rules import victory
    from malta_sim.iod.state import BOX_ELIMINATED, BOX_FOLLOW_UP, BOX_TURN_TRACK

    g = new_game("hercules", 2, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    gen = np.random.default_rng(12)
    boxes = np.array([BOX_MAP, BOX_FOLLOW_UP, BOX_ELIMINATED, BOX_TURN_TRACK, 5], np.int8)
    for _ in range(40):
        s.control[:] = gen.integers(-1, 2, size=s.control.shape)
        s.fort_destroyed[:] = gen.random(s.fort_destroyed.shape) < 0.5
        s.box[:] = gen.choice(boxes, size=s.box.shape)
        s.box_slot[:] = gen.integers(-1, 5, size=s.box_slot.shape)
        s.rn_result[0] = int(gen.integers(0, 7))
        assert victory.objective_counts(g) == ref_objective_counts(g)
        assert victory.axis_hqs_out(g) == ref_axis_hqs_out(g)
        assert victory.invasion_terms(g) == ref_invasion_modifier(g)


def _ref_one_hex_options(game, u):
    """Plain one-hex options (6.52, 6.53, 7.1): the neighbour checks of
    :func:`hercules.can_enter` and the plain stacking total
    (``organisation._fits_stacking_plain``)."""

    h = int(game.state.hex[u])
    return [int(o) for o in game.static.neighbours[h]
            if o >= 0 and H.can_enter(game, u, int(o)) and oracle.fits_stacking(game, [int(u)], int(o))]


def test_one_hex_kernel_equals_plain_on_random_positions():
    """The compiled one-hex options equal the plain checks for every unit on
    random positions (crowded hexes, levels, both sides)."""
    g = new_game("hercules", 4, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    gen = np.random.default_rng(3)
    land = np.flatnonzero(t.land)
    spot = gen.choice(land, size=25)
    for _ in range(6):
        on = gen.random(t.n_units) < 0.6
        s.box[:] = np.where(on, BOX_MAP, 5)
        s.hex[:] = np.where(on, gen.choice(spot, size=t.n_units), -1)
        s.level[:] = np.minimum(gen.integers(0, 3, size=t.n_units), np.maximum(t.n_levels - 1, 0))
        for u in np.flatnonzero(on)[::3].tolist():
            assert H.one_hex_options(g, u) == _ref_one_hex_options(g, u), u


def test_airfield_tables_equal_masks_and_early_return_is_exact(monkeypatch):
    """The airfield entry's per-unit tables (16.1, 16.14) equal their masks;
    through whole games, whenever none of their pieces is in the
    Disbandment Box the plain listing finds no battalion to break down and
    no candidate (so returning at once changes nothing)."""
    from malta_sim.iod.state import BOX_DISBANDMENT

    g = new_game("hercules", 1, 0, axis_policy="balanced", allied_policy="static")
    t, inv = g.static, H.inv_static(g)
    axis, battalion = t.side == 0, t.size == st.BATTALION
    bns = axis & battalion & ((t.utype == st.GLIDER) | (t.utype == st.COMMANDO))
    airlanding = ((t.printed_formation == H.F_80) | (t.utype == st.COMMANDO)
                  | ((t.utype == st.GLIDER) & (t.size == st.COMPANY)))
    entrants = axis & airlanding & ~(battalion & (t.utype != st.ARTILLERY)) & (t.utype != st.LEADER)
    np.testing.assert_array_equal(inv.airfield_battalions, np.flatnonzero(bns))
    np.testing.assert_array_equal(inv.airfield_entrants, entrants)
    np.testing.assert_array_equal(inv.airfield_pieces, np.flatnonzero(bns | entrants))
    assert inv.battalion == battalion.tolist()
    n = [0, 0]
    fast = airfields.airfield_entry

    def checked(game):
        s = game.state
        if not (s.box[inv.airfield_pieces] == BOX_DISBANDMENT).any():
            assert not ((s.box == BOX_DISBANDMENT) & (bns | entrants)).any()
            n[0] += 1
        n[1] += 1
        return fast(game)

    monkeypatch.setattr(airfields, "airfield_entry", checked)
    play_games("hercules", 2, np.arange(3), axis_policy="balanced", allied_policy="static")
    assert n[1] > 0


# --------------------------------------------------------------------- jump planning (19.21, 19.22)
def ref_available_sticks(game, formation, planned_units):
    """The stick listing of 19.21 from whole-table masks (the code before)."""
    from malta_sim.iod.state import AXIS, BOX_DISBANDMENT

    s, t = game.state, game.static
    broken = set(s.parent[(s.parent >= 0) & (s.box != 5)].tolist())
    inbox = [u for u in np.flatnonzero((s.box == BOX_DISBANDMENT) & (t.side == AXIS)
                                       & (t.printed_formation == formation)).tolist()
             if u not in planned_units and u not in broken]
    out, comps_by_bn, hq_group = [], {}, []
    for u in inbox:
        ut, sz = t.utype[u], t.size[u]
        if ut == st.PARATROOP and sz == st.BATTALION:
            out.append(("battalion", (u,)))
        elif ut == st.PARATROOP and sz == st.COMPANY and t.battalion_of[u] >= 0:
            comps_by_bn.setdefault(int(t.battalion_of[u]), []).append(u)
        elif ut == st.ARTILLERY:
            out.append(("artillery", (u,)))
        elif ut in (st.HQ, st.LEADER, st.ENGINEER):
            hq_group.append(u)
    for bn, comps in sorted(comps_by_bn.items()):
        out.append(("battalion", tuple(sorted(comps))))
    if hq_group:
        has_eng = any(t.utype[u] == st.ENGINEER for u in hq_group)
        out.append(("hq_engineers" if has_eng else "returning", tuple(sorted(hq_group))))
    return out


def ref_stick_targets(dist_table, marker, legal, long_used):
    from malta_sim.iod.rules import airborne as ab

    dist = dist_table[marker, legal]
    fit = dist <= ab.STICK_RANGE
    if not long_used:
        fit |= dist <= ab.LONG_STICK_RANGE
    return [(x, dx > ab.STICK_RANGE) for x, dx, k in zip(legal.tolist(), dist.tolist(), fit.tolist()) if k]


@pytest.mark.parametrize("scenario,pols", [("hercules", ("balanced", "static")), ("hercules", ("random", "random")),
                                           ("intro", ("balanced", "static"))])
def test_stick_listing_and_targets_equal_reference_through_games(monkeypatch, scenario, pols):
    """Every stick listing (19.21) and stick target list (19.22, 19.33) of
    whole games equals the plain version, with the same Python types."""
    from malta_sim.iod.rules import airborne as apm

    n = [0, 0]
    fast_sticks, fast_targets = apm.available_sticks, apm.stick_targets

    def sticks(game, formation, planned_units):
        got = fast_sticks(game, formation, planned_units)
        want = ref_available_sticks(game, formation, planned_units)
        assert got == want and [type(u) for _, us in got for u in us] == [type(u) for _, us in want for u in us]
        n[0] += 1
        return got

    def targets(dist_table, marker, legal, long_used):
        got = fast_targets(dist_table, marker, legal, long_used)
        want = ref_stick_targets(dist_table, marker, legal, long_used)
        assert got == want and [(type(x), type(y)) for x, y in got] == [(type(x), type(y)) for x, y in want]
        n[1] += 1
        return got

    monkeypatch.setattr(apm, "available_sticks", sticks)
    monkeypatch.setattr(apm, "stick_targets", targets)
    play_games(scenario, 6, np.arange(2), axis_policy=pols[0], allied_policy=pols[1])
    assert n[0] > 0          # stick targets are kept per marker hex: asked only on a first sight


def test_invasion_unit_tables_equal_masks():
    """The per-unit index tables of the invasion phases equal the masks they
    replace (Allied guns with dice 16.5, stragglers 17.83, Follow-up
    battalions 18.31, stick listing 19.21)."""
    g = new_game("hercules", 1, 0, axis_policy="balanced", allied_policy="static")
    t, inv = g.static, H.inv_static(g)
    np.testing.assert_array_equal(inv.allied_firing_guns, np.flatnonzero(
        (t.side == ALLIED) & (t.utype == st.COASTAL_GUN) & (inv.gun_value > 0)))
    np.testing.assert_array_equal(inv.straggler_pieces, np.flatnonzero(
        (t.side == 0) & t.two_sided & (t.size == st.COMPANY)))
    np.testing.assert_array_equal(inv.follow_up_battalions, np.flatnonzero(
        (t.side == 0) & (t.size == st.BATTALION) & (t.utype != st.ARTILLERY)))
    for f in range(-1, t.n_formations + 1):
        want = np.flatnonzero((t.side == 0) & (t.printed_formation == f))
        got = inv.axis_by_formation.get(f)
        if want.size:
            np.testing.assert_array_equal(got, want)
        else:
            assert got is None
    assert inv.unit_lists == (t.utype.tolist(), t.size.tolist(), t.battalion_of.tolist())


# --------------------------------------------------------------------- the default stick plan (19.3)
def ref_plan_sticks(game, turn, sticks, targets, limits):
    """The default stick plan as it was: facts for every target hex, each
    candidate scored by a closure, ``max`` with the (score, -hex) key."""
    ow = pinv._objective_weights(game)
    out, used_hex, per_form = [], set(), {}
    total = limits.get("total", 99)
    hexes = sorted({int(h) for tl in targets.values() for h, _ in tl})
    a1 = dict(zip(hexes, ref_strength_near(game, hexes, 1).tolist()))
    a2 = dict(zip(hexes, ref_strength_near(game, hexes, 2).tolist()))
    d = game.static.grid.distance_table
    ocean = H.inv_static(game).ocean
    od = d[:, np.flatnonzero(ocean)].min(axis=1) if ocean.any() else np.full(d.shape[0], 99)
    odist = dict(zip(hexes, od[hexes].tolist())) if hexes else {}
    long_used = {}
    order = sorted(sticks, key=lambda s: (0 if s[2] == "hq_engineers" else 1 if s[2] == "battalion" else 2))
    for sid, form, kind in order:
        if len(out) >= total:
            break
        if per_form.get(form, 0) >= limits.get(form, 99):
            continue
        if kind not in limits.get("kinds", {}).get(form, (kind,)):
            continue
        cands = [(h, lg) for h, lg in targets.get(form, []) if h not in used_hex
                 and not (lg and long_used.get(form))]
        if not cands:
            continue
        safe = 3 if kind in ("hq_engineers", "returning", "artillery") else 2

        def score(c):
            h = int(c[0])
            v = ow[h] - 0.4 * a1[h] - (0.5 if c[1] else 0)
            if kind in ("hq_engineers", "returning", "artillery"):
                v -= 0.5 * a2[h]
            return v - (4.0 if odist[h] <= safe else 0.0)
        h, lg = max(cands, key=lambda c: (score(c), -c[0]))
        out.append((sid, h))
        used_hex.add(h)
        per_form[form] = per_form.get(form, 0) + 1
        if lg:
            long_used[form] = True
    return out


@pytest.mark.parametrize("scenario", ["hercules", "intro"])
def test_plan_sticks_equals_reference_through_games_and_variations(monkeypatch, scenario):
    """The default stick plan equals the plain version on every call of whole
    games, and on each call's inputs with other limits and stick kinds."""
    fast = pinv.InvasionDecisions.plan_sticks
    n = [0]
    gen = np.random.default_rng(2)

    def checked(self, game, turn, sticks, targets, limits):
        got = fast(self, game, turn, sticks, targets, limits)
        assert got == ref_plan_sticks(game, turn, sticks, targets, limits)
        for _ in range(3):
            kinds = ("battalion", "artillery", "hq_engineers", "returning")
            st2 = [(i, f, kinds[int(gen.integers(4))]) for i, f, _ in sticks]
            lim2 = {"total": int(gen.integers(0, 8)), 1: int(gen.integers(0, 5)), 2: int(gen.integers(0, 5)),
                    "kinds": {}}
            assert fast(self, game, turn, st2, targets, lim2) == ref_plan_sticks(game, turn, st2, targets, lim2)
        n[0] += 1
        return got


    # the land bots carry a copy of the default (simple._use_sensible_invasion_defaults)
    bot = new_game(scenario, 9, 0, axis_policy="balanced", allied_policy="static").policies[0]
    for c in type(bot).__mro__:
        if c.__dict__.get("plan_sticks") is fast:
            monkeypatch.setattr(c, "plan_sticks", checked)
    play_games(scenario, 9, np.arange(3), axis_policy="balanced", allied_policy="static")
    assert n[0] > 0


def test_ocean_distance_is_static_and_read_only():
    """The bots' distance to the nearest ocean hex (19.45) is built once per
    static data, equals the per-hex minimum and cannot be written."""
    g = new_game("hercules", 1, 0, axis_policy="balanced", allied_policy="static")
    inv, d = H.inv_static(g), g.static.grid.distance_table
    od = pinv._ocean_dist(g)
    assert od is inv.ocean_dist and not od.flags.writeable
    np.testing.assert_array_equal(od, d[:, np.flatnonzero(inv.ocean)].min(axis=1))
