"""The bots' invasion decisions (:mod:`malta_sim.bots.invasion`) against plain references on
every call of whole games: drop zone markers (19.13, 19.31), sticks (19.32), warship
placement (16.72), beach and rally moves (18.7, 19.6), with the objective weights and the
Allied strength near a hex they read.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from malta_sim.bots import invasion, invasion as pinv, make_policy
from malta_sim.bots.random import RandomPolicy
from malta_sim.iod import invasion as H, sequence
from malta_sim.iod.engine import setup_game
from malta_sim.iod.state import ALLIED, BOX_MAP
from malta_sim.play import new_game

from tests.oracles import bots as bots_ref


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


def _ref_one_hex_move(game, unit, options):
    """The plain one-hex choice (18.7, 19.6): a score per hex, one Allied
    total at a time."""
    from malta_sim.bots import invasion as inv

    if not options:
        return None
    here = int(game.state.hex[unit])

    def score(h):
        return (inv._objective_weight(game, h) - 0.3 * inv._allied_strength_near(game, h, 1)
                + (0.5 if not game.static.beach[h] else 0))
    best = max(options, key=lambda h: (score(h), -h))
    return best if score(best) > score(here) else None


def _ref_move_drop_marker(game, formation, options):
    """The plain drop zone marker move (19.13)."""
    from malta_sim.bots import invasion as inv

    here = int(game.state.dz_hex[0, formation])
    if here < 0 or not options or inv._allied_strength_near(game, here, 1) == 0:
        return None
    return max(options, key=lambda h: (-inv._allied_strength_near(game, h, 2), -h))


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


def test_ocean_distance_is_static_and_read_only():
    """The bots' distance to the nearest ocean hex (19.45) is built once per
    static data, equals the per-hex minimum and cannot be written."""
    g = new_game("hercules", 1, 0, axis_policy="balanced", allied_policy="static")
    inv, d = H.inv_static(g), g.static.grid.distance_table
    od = pinv._ocean_dist(g)
    assert od is inv.ocean_dist and not od.flags.writeable
    np.testing.assert_array_equal(od, d[:, np.flatnonzero(inv.ocean)].min(axis=1))


class _CheckedInvasion:
    """The Axis preset with each invasion decision compared, on every call,
    with its plain reference on the position of the moment; the stick plan
    also with three other random limits and stick kinds on the same inputs.
    Counts in ``seen``."""

    seen: Counter = Counter()
    gen = np.random.default_rng(2)

    def plan_marker(self, game, formation, turn, options):
        # the shared default (the Axis presets draw among the good hexes,
        # AxisInvasionDecisions, and play what super() answers)
        assert invasion.InvasionDecisions.plan_marker(self, game, formation, turn, options) == \
            ref_plan_marker(game, formation, turn, options)
        got = super().plan_marker(game, formation, turn, options)
        for hh in options:
            assert invasion._objective_weight(game, hh) == ref_objective_weight(game, hh)
            for r in (1, 2, 3):
                assert invasion._allied_strength_near(game, hh, r) == ref_allied_strength_near(game, hh, r)
        if options:
            many = invasion._allied_strength_near_many(game, options, 2).tolist()
            assert many == [ref_allied_strength_near(game, hh, 2) for hh in options]
        self.seen["marker"] += 1
        return got

    def plan_sticks(self, game, turn, sticks, targets, limits):
        plain = invasion.InvasionDecisions.plan_sticks
        assert plain(self, game, turn, sticks, targets, limits) == ref_plan_sticks(game, turn, sticks, targets, limits)
        got = super().plan_sticks(game, turn, sticks, targets, limits)
        ow = invasion._objective_weights(game)
        for (form, hh, lg, kind), v in ref_stick_scores(game, targets).items():
            a1 = invasion._allied_strength_near_many(game, [hh], 1)[0]
            a2 = invasion._allied_strength_near_many(game, [hh], 2)[0]
            w = ow[hh] - 0.4 * int(a1) - (0.5 if lg else 0)
            if kind == "hq_engineers":
                w -= 0.5 * int(a2)
            safe = 3 if kind == "hq_engineers" else 2
            assert w - (4.0 if int(invasion._ocean_dist(game)[hh]) <= safe else 0.0) == v
        for _ in range(3):
            kinds = ("battalion", "artillery", "hq_engineers", "returning")
            st2 = [(i, f, kinds[int(self.gen.integers(4))]) for i, f, _ in sticks]
            lim2 = {"total": int(self.gen.integers(0, 8)), 1: int(self.gen.integers(0, 5)),
                    2: int(self.gen.integers(0, 5)), "kinds": {}}
            assert plain(self, game, turn, st2, targets, lim2) == \
                ref_plan_sticks(game, turn, st2, targets, lim2)
        self.seen["sticks"] += len(got)
        return got

    def place_warships(self, game, ships, options):
        got = super().place_warships(game, ships, options)
        assert got == ref_place_warships(game, ships, options)
        self.seen["ships"] += len(got)
        return got

    def one_hex_move(self, game, unit, options, reason):
        want = _ref_one_hex_move(game, unit, options)
        plain = invasion.InvasionDecisions.one_hex_move(self, game, unit, options, reason)
        assert plain == want and type(plain) is type(want)
        got = super().one_hex_move(game, unit, options, reason)
        self.seen["one_hex"] += 1
        self.seen["one_hex_moved"] += got is not None
        return got

    def move_drop_marker(self, game, formation, options):
        want = _ref_move_drop_marker(game, formation, options)
        got = super().move_drop_marker(game, formation, options)
        assert got == want and type(got) is type(want)
        self.seen["marker_moves"] += 1
        return got


@pytest.mark.parametrize("scenario,ax,al,seed,n", [("hercules", "balanced", "static", 21, 4),
                                                   ("hercules", "aggressive", "counterattack", 3, 3),
                                                   ("intro", "balanced", "static", 9, 2)])
def test_invasion_decisions_equal_plain_through_games(scenario, ax, al, seed, n):
    """Drop zone markers, sticks, warships, beach and rally moves of the
    shared invasion defaults (:class:`InvasionDecisions`, which the Axis
    presets build on) equal the plain references on every call of whole
    games of the Axis preset."""
    seen = _CheckedInvasion.seen = Counter()
    _CheckedInvasion.gen = np.random.default_rng(2)
    for g in range(n):
        pols = (bots_ref.preset_with(ax, 0, _CheckedInvasion), make_policy(al, 1))
        sequence.play_game(setup_game(scenario, seed, g, pols))
    assert seen["sticks"] > 0 and seen["marker_moves"] > 0 and seen["one_hex"] > 10, dict(seen)
    if scenario == "hercules":                    # the Introductory Scenario places its markers (22.26)
        assert seen["marker"] > 0 and seen["ships"] > 0 and seen["one_hex_moved"] > 0, dict(seen)


class _PlainWarships(RandomPolicy):
    """The random bot with its warship placement (16.72) compared with the
    plain filter of the full hexes, drawing the same numbers."""

    calls = 0

    def place_warships(self, game, ships, options):
        bitgen = self.rng(game).bit_generator
        before = bitgen.state
        want, count = {}, {}
        for x in ships:
            cands = [hh for hh in options[x] if count.get(hh, 0) < 2]
            if cands:
                hh = self._choice(game, cands)
                want[x] = hh
                count[hh] = count.get(hh, 0) + 1
        after = bitgen.state
        bitgen.state = before
        got = super().place_warships(game, ships, options)
        assert got == want and bitgen.state == after
        type(self).calls += 1
        return got


def test_random_warship_placement_equals_plain():
    """The random bot's warship placement draws the same numbers and places
    the same ships as the plain filter of the full hexes (16.72)."""
    _PlainWarships.calls = 0
    for g in range(2):
        sequence.play_game(setup_game("hercules", 3, g, (_PlainWarships(0), RandomPolicy(1))))
    assert _PlainWarships.calls == 2
