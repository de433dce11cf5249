"""The compiled option finding of the combat phase
(:mod:`malta_sim.iod.rules.combat_options`) against the plain
per-unit rule tests, on random positions.

Whole games are covered by ``tests/test_perf_combat.py``, which checks every
call of :func:`combat.attack_options`, :func:`combat.plan_options`,
:func:`combat.defensive_options` and :func:`combat.attackers_now` made during
games against plain references; here the positions are drawn at random
(pieces of both sides on random land hexes, random levels, morale states,
fired / attacked / arrived flags, hitched guns, salvos, day and night, rain,
warship communications failures) so that rare combinations are met too.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod.rules import combat, movement
from malta_sim.iod import static as st
from malta_sim.iod.state import BOX_MAP, RAINY
from tests.test_perf_combat import (ref_attack_options, ref_can_attack, ref_defensive_options,
                                    ref_on_map, ref_plan_options)


def _random_game(rng, trial):
    """A constructed game with random pieces of both sides on random land
    hexes and random per-piece state."""
    from tests.conftest import make, static

    t = static()
    land = np.flatnonzero(t.land)
    pick = []
    for side in (0, 1):
        idx = np.flatnonzero((t.side == side) & (t.utype != st.LEADER))
        pick += rng.choice(idx, min(len(idx), 40), replace=False).tolist()
        arty = np.flatnonzero((t.side == side) & ((t.utype == st.ARTILLERY) | (t.utype == st.WARSHIP)))
        pick += [int(x) for x in arty[:8] if int(x) not in pick]
    spots = rng.choice(land, len(pick))
    place: dict = {}
    for u, hh in zip(pick, spots):
        place.setdefault(t.grid.hex_id(int(hh)), []).append(t.names[u])
    g = make(place, turn=int(rng.integers(0, 12)))
    s = g.state
    n = len(s.box)
    on = s.box == BOX_MAP
    s.level[:] = np.minimum(rng.integers(0, 3, n), t.n_levels - 1).astype(s.level.dtype)
    s.morale_state[:] = rng.integers(0, 3, n)
    s.attacked[:] = rng.random(n) < 0.2
    s.fired[:] = rng.random(n) < 0.2
    s.hitched[:] = rng.random(n) < 0.3
    s.salvos[:] = rng.integers(0, 3, n)
    s.entered_turn[:] = np.where(rng.random(n) < 0.15, g.turn, -1)
    s.gun_fired_turn[:] = np.where(rng.random(n) < 0.2, g.turn, -1)
    s.weather[0] = RAINY if trial % 3 == 0 else 0
    ships = np.flatnonzero(on & (t.utype == st.WARSHIP)).tolist()
    if ships and trial % 2:
        g.extra["comm_failed"] = {g.turn: set(ships[::2])}
    return g


@pytest.mark.parametrize("seed", [1, 2])
def test_combat_options_equal_plain_rule_tests_on_random_positions(seed):
    """attack_options (all attackers and given ones), plan_options,
    defensive_options, attackers_now and _firers equal the plain per-unit
    versions (rules 9.11, 9.13, 9.15, 9.16, 10.1, 10.11, 10.21, 12.2, 12.4,
    12.5, 16.73, 16.76, 17.7) on random positions, values and order."""
    rng = np.random.default_rng(seed)
    seen = {"targets": 0, "support": 0, "bombard": 0, "defensive": 0}
    for trial in range(25):
        g = _random_game(rng, trial)
        t, s = g.static, g.state
        for side in (0, 1):
            want = ref_attack_options(g, side)
            got = combat.attack_options(g, side)
            assert got == want and list(got) == list(want)
            seen["targets"] += len(got)
            cand = [int(u) for u in ref_on_map(g, side) if ref_can_attack(g, int(u))]
            assert combat.attackers_now(g, side).tolist() == cand
            units = rng.permutation(cand)[: max(1, len(cand) // 2)].tolist() if cand else []
            want = ref_attack_options(g, side, units) if units else {}
            got = combat.attack_options(g, side, units)
            assert got == want and list(got) == list(want)
            ezoc = movement.zoc_map(g, 1 - side)
            firers = [int(u) for u in ref_on_map(g, side) if combat._art_can_fire(g, int(u), ezoc)]
            assert combat._firers(g, side) == firers
            want = ref_plan_options(g, side)
            got = combat.plan_options(g, side)
            for f in ("attack_targets", "support", "bombard", "air_markers", "hurricane_ok"):
                a, b = getattr(got, f), getattr(want, f)
                assert a == b and (not isinstance(a, dict) or list(a) == list(b)), f
            seen["support"] += sum(map(len, got.support.values()))
            seen["bombard"] += len(got.bombard)
            threatened = rng.permutation(np.flatnonzero(t.land))[:30].tolist()
            got = combat.defensive_options(g, side, set(threatened))
            want = ref_defensive_options(g, side, list(set(threatened)))
            assert got == want and list(got) == list(want)
            seen["defensive"] += len(got)
    assert all(v > 0 for v in seen.values()), seen


@pytest.mark.parametrize("seed", [3, 4])
def test_reorganisation_candidates_equal_plain_tests_on_random_positions(seed):
    """breakdowns (13.1) and reform_options (13.2) find the battalions the
    per-battalion tests accept, in the same order, on random boxes, levels,
    parents, reduced flags and morale states."""
    from malta_sim.iod.rules import organisation
    from malta_sim.iod.state import (BOX_DISBANDMENT, BOX_ELIMINATED,
                                                       BOX_POOL)
    from tests.test_perf_combat import ref_breakdown_candidates, ref_reform_options

    rng = np.random.default_rng(seed)
    seen = {"breakdown": 0, "reform": 0}
    for trial in range(40):
        g = _random_game(rng, trial)
        s, t = g.state, g.static
        n = len(s.box)
        comp = np.flatnonzero(t.size == st.COMPANY)
        bns = np.flatnonzero((t.size == st.BATTALION) & (s.box == BOX_MAP))
        boxes = np.array([BOX_POOL, BOX_DISBANDMENT, BOX_ELIMINATED, BOX_MAP])
        s.box[comp] = boxes[rng.integers(0, 4, len(comp))]
        s.parent[:] = -1
        if len(bns):
            gone = rng.choice(bns, min(len(bns), 6), replace=False)
            for b in gone:                      # broken down: companies on the map nearby
                s.box[b] = BOX_DISBANDMENT
                kids = rng.choice(comp, 3, replace=False)
                s.parent[kids] = b
                s.box[kids] = np.where(rng.random(3) < 0.8, BOX_MAP, BOX_ELIMINATED)
                h = int(s.hex[b]) if s.hex[b] >= 0 else int(np.flatnonzero(t.land)[0])
                s.hex[kids] = np.where(rng.random(3) < 0.8, h, h + 1)
                s.hex[b] = -1
        s.hex[s.box != BOX_MAP] = -1
        s.reduced[:] = rng.random(n) < 0.3
        for side in (0, 1):
            want = ref_breakdown_candidates(g, side)
            pol = g.policy(side)
            got = []
            pol.breakdowns = lambda game, el: (got.append(list(el)), [])[1]
            organisation.breakdowns(g, side)
            del pol.breakdowns
            assert got == ([want] if want else [])
            seen["breakdown"] += len(want)
            want = ref_reform_options(g, side)
            assert organisation.reform_options(g, side) == want
            seen["reform"] += len(want)
    assert all(v > 0 for v in seen.values()), seen


def _ref_retreat_options(game, units, cur, visited, block, zoc, enemy_hexes, last):
    """The per-hexside retreat ranking as written before it was compiled
    (rules 9.6, 9.61, 7.3)."""
    from tests.oracles.iod_rules import fits_stacking

    t = game.static
    dist = t.grid.distance_table
    side = int(t.side[units[0]])
    cands = []
    for d in range(6):
        b = int(t.neighbours[cur, d])
        if b < 0 or b in visited or block[b] or not combat._enterable(game, units, cur, d):
            continue
        d_b = [int(dist[b, e]) for e in enemy_hexes]
        farther = all(db > dist[cur, e] for db, e in zip(d_b, enemy_hexes))
        friendly = any(t.utype[x] != st.LEADER for x in game.units_at(b, side).tolist())
        rank = 1 if not zoc[b] else 2 if farther else 3 if friendly else 4
        cands.append((rank, -(min(d_b) if d_b else 0), b))
    if not cands:
        return 0, []
    best = min(c[:2] for c in cands)
    opts = [c[2] for c in cands if c[:2] == best]
    if last:
        fit = [b for b in opts if fits_stacking(game, units, b)]
        if fit:
            opts = fit
    return len(cands), opts


@pytest.mark.parametrize("seed", [5, 6])
def test_retreat_and_advance_options_equal_plain_versions(seed):
    """The compiled retreat ranking (9.6, 9.61, 7.3) and advance options
    (9.84) equal the per-hexside versions on random stacks, visited hexes,
    blocking and ZOC maps and enemy hexes."""
    from malta_sim.iod.rules.retreat_advance import advance_options, retreat_options
    from tests.oracles.iod_rules import fits_stacking

    rng = np.random.default_rng(seed)
    seen = {"retreat": 0, "ranked": 0, "none": 0, "advance": 0, "blocking": 0}
    for trial in range(15):
        g = _random_game(rng, trial)
        s, t, tb = g.state, g.static, g.tables
        nh = t.n_hexes
        for _ in range(40):
            side = int(rng.integers(2))
            mine = np.flatnonzero((s.box == BOX_MAP) & (t.side == side))
            if not len(mine):
                continue
            h0 = int(s.hex[rng.choice(mine)])
            units = [int(u) for u in np.flatnonzero((s.hex == h0) & (t.side == side))]
            visited = set(rng.choice(nh, int(rng.integers(0, 40))).tolist()) | {h0}
            vmask = np.zeros(nh, bool)
            vmask[list(visited)] = True
            block = rng.random(nh) < 0.15
            zoc = rng.random(nh) < 0.5
            eh = sorted(set(rng.choice(np.flatnonzero(t.land), int(rng.integers(0, 4))).tolist()))
            last = bool(rng.integers(2))
            args = (s.hex, s.level, tb.side_mask[side], tb.base_weight, tb.remnant_level_full,
                    t.neighbours, t.land, t.ocean_side, t.move_class, t.move_cost, t.rise, t.road,
                    t.rise_cost, t.utype)
            n, opts = retreat_options(h0, np.array(units, np.int64), vmask, block, zoc,
                                      np.array(eh, np.int64), last, *args, t.grid.distance_table)
            want = _ref_retreat_options(g, units, h0, visited, block, zoc, eh, last)
            assert (n, opts.tolist()) == want
            seen["retreat"] += 1
            seen["ranked"] += len(set(want[1])) > 0 and want[0] > len(want[1])
            seen["none"] += want[0] == 0
            got = advance_options(h0, np.array(units, np.int64), vmask, block, *args).tolist()
            want = [int(t.neighbours[h0, d]) for d in range(6)
                    if t.neighbours[h0, d] >= 0 and not vmask[t.neighbours[h0, d]]
                    and not block[t.neighbours[h0, d]] and combat._enterable(g, units, h0, d)
                    and fits_stacking(g, units, int(t.neighbours[h0, d]))]
            assert got == want
            seen["advance"] += len(want)
            hh = int(rng.choice(np.unique(s.hex[mine])))
            assert combat._blocking_in(g, hh, side) == bool(movement.occupancy(g, side)[0][hh])
            seen["blocking"] += combat._blocking_in(g, hh, side)
    assert all(v > 0 for v in seen.values()), seen


@pytest.mark.parametrize("seed", [7, 8])
def test_phase_end_checks_equal_plain_versions_on_random_positions(seed):
    """The compiled phase-end passes equal the plain versions on random
    positions with crowded hexes: over-stacking per side (7.1, 7.2), caught
    leaders (14.42) and the control map (2.1)."""
    from malta_sim.iod.rules import organisation
    from malta_sim.iod.rules.phase_end_checks import (caught_leader_list, control_update,
                                                              over_stacked)
    from tests.test_perf_combat import ref_caught, ref_stack_totals, ref_update_control

    rng = np.random.default_rng(seed)
    seen = {"over": 0, "caught": 0}
    for trial in range(30):
        g = _random_game(rng, trial)
        s, t, tb = g.state, g.static, g.tables
        on = np.flatnonzero(s.box == BOX_MAP)
        few = rng.choice(np.unique(s.hex[on]), 6, replace=False)   # crowd the pieces
        side_on = t.side[on]
        s.hex[on] = np.where(side_on == 0, rng.choice(few[:3], len(on)), rng.choice(few[3:], len(on)))
        s.hex[on[rng.random(len(on)) < 0.1]] = few[0]                # some mixed hexes
        lead = np.flatnonzero(t.utype == st.LEADER)[:12]
        s.box[lead] = BOX_MAP
        s.hex[lead] = np.where(rng.random(len(lead)) < 0.7, rng.choice(few, len(lead)),
                               rng.choice(np.flatnonzero(t.land), len(lead)))
        s.control[:] = rng.integers(-1, 2, len(s.control))
        got = over_stacked(s.box, s.hex, s.level, t.side, tb.base_weight, tb.remnant_level_full,
                           t.n_hexes).tolist()
        want = [bool(ref_stack_totals(g, side).max() > organisation.STACK_LIMIT_HALVES)
                for side in (0, 1)]
        assert got == want
        seen["over"] += sum(want)
        want = ref_caught(g)
        assert caught_leader_list(s.box, s.hex, t.side, tb.leader, tb.controls).tolist() == want
        seen["caught"] += len(want)
        want = ref_update_control(g, s.control.copy())
        control_update(s.box, s.hex, t.side, tb.controls, s.control)
        assert np.array_equal(s.control, want)
    assert all(v > 0 for v in seen.values()), seen


def _ref_attachment_options(game):
    """Rule 15.21 per Axis unit, as written before it was compiled."""
    s, t = game.state, game.static
    opts = {}
    for u in game.on_map(0):
        u = int(u)
        if t.utype[u] in (st.LEADER, st.HQ, st.WARSHIP):
            continue
        forms = set()
        for o in game.units_at(int(s.hex[u]), 0):
            f = int(t.printed_formation[o])
            if f >= 0 and int(s.formation[o]) == f and f != s.formation[u]:
                forms.add(f)
        if forms:
            opts[u] = sorted(forms)
    return opts


@pytest.mark.parametrize("seed", [9, 10])
def test_attachment_options_equal_plain_version_on_random_positions(seed):
    """The formations offered to each Axis unit (15.21) equal the per-unit
    version on random crowded positions with random current formations."""
    from malta_sim.iod.rules import organisation

    rng = np.random.default_rng(seed)
    n_opts = 0
    for trial in range(30):
        g = _random_game(rng, trial)
        s, t = g.state, g.static
        on = np.flatnonzero(s.box == BOX_MAP)
        few = rng.choice(np.unique(s.hex[on]), 5, replace=False)
        s.hex[on] = rng.choice(few, len(on))
        keep = rng.random(len(s.formation)) < 0.6
        s.formation[:] = np.where(keep, t.printed_formation,
                                  rng.integers(-1, t.printed_formation.max() + 1, len(keep)))
        want = _ref_attachment_options(g)
        pol = g.policy(0)
        got = []
        pol.attachments = lambda game, opts: (got.append(dict(opts)), {})[1]
        organisation.formation_changes(g)
        del pol.attachments
        assert got == ([want] if want else [])
        assert not got or list(got[0]) == list(want)
        n_opts += len(want)
    assert n_opts > 0


def _ref_defensive_support(bot, game, options):
    """The Allied bot's defensive support as written before (one unit query
    per neighbour for the threat of each hex)."""
    from malta_sim.bots import params as P

    t = game.static
    out, used = {}, set()
    k = int(bot.vec[P.AL_SUPPORT])

    def threat(h):
        return sum(len(game.units_at(int(o), 1 - bot.side)) for o in t.neighbours[h] if o >= 0)
    for h in sorted(options, key=lambda x: (-threat(x), x)):
        free = [u for u in options[h] if u not in used]
        arty = sorted((u for u in free if t.utype[u] != st.WARSHIP),
                      key=lambda u: (-int(t.def_support[u]), u))[:k]
        pick = arty if arty else [u for u in free if t.utype[u] == st.WARSHIP][:min(2, k)]
        if pick:
            out[h] = pick
            used.update(pick)
    return out


@pytest.mark.parametrize("seed", [11, 12])
def test_allied_defensive_support_equals_unit_query_version(seed):
    """The Allied bot's defensive support (9.2 b, 16.74), with the threat of
    each hex from one count per hex, equals the version with one unit query
    per neighbour (same hexes, guns and order) on random positions."""
    from malta_sim.bots.allied import AlliedBot

    rng = np.random.default_rng(seed)
    n = 0
    for trial in range(25):
        g = _random_game(rng, trial)
        t = g.static
        bot = AlliedBot(1, {"support_per_hex": int(rng.integers(1, 4))} if trial % 2 else {})
        hexes = rng.permutation(np.flatnonzero(t.land))[:80].tolist()
        opts = combat.defensive_options(g, 1, hexes)
        want = _ref_defensive_support(bot, g, opts)
        got = bot.defensive_support(g, opts)
        assert got == want and list(got) == list(want)
        n += len(got)
    assert n > 0
