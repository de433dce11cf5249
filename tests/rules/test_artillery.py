"""Artillery (rule 12): support and its cap, the approach of enemies, ammunition
distribution, on constructed positions; the compiled ammunition route test (12.56)
against one route search per piece on random masks.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod.rules import artillery, combat
from malta_sim.iod.state import ALLIED, AXIS

from tests.conftest import example_9_9, h, make, Scripted, static, u


def test_rule_12_21_support_cap():
    g, att, sup = example_9_9()
    # offensive support capped at twice the printed attack strength (12.21)
    tot = sum(combat.support_value(g, x, True, h("1311"), att) for x in sup)
    assert tot == 10
    one = [u("axis.un.tank_10")]
    res = combat.resolve_attack(g, AXIS, h("1311"), one, support=sup, fixed_roll=7)
    assert res.attack_total == 1 + 2                               # 1 + min(10, 2 * 1)


def test_rule_12_3_approach_of_enemies():
    g = make({"1412": ["allied.uk.art_12"], "1411": ["axis.4.1_34"]},
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    g.state.advanced[u("axis.4.1_34")] = True
    keep = combat._approach_of_enemies(g, AXIS, [u("allied.uk.art_12")])
    assert keep == []
    g.state.advanced[u("axis.4.1_34")] = False
    assert combat._approach_of_enemies(g, AXIS, [u("allied.uk.art_12")]) == [u("allied.uk.art_12")]


def test_rule_12_56_ammunition_distribution():
    g = make({"1612": ["allied.hq.malta", "allied.uk.art_12"]}, turn=8)
    x = u("allied.uk.art_12")
    g.state.salvos[x] = 0
    assert artillery.ammo_eligible(g, ALLIED) == [x]
    artillery.expend(g, x, 1)
    assert g.state.salvos[x] == 0
    # Axis needs stockpile and a route to an Axis beach or port (12.54, 12.56)
    g2 = make({"1107": ["axis.4.art_28"]}, turn=8, control={"1107": AXIS})
    g2.state.salvos[u("axis.4.art_28")] = 0
    assert artillery.ammo_eligible(g2, AXIS) == [u("axis.4.art_28")]


@pytest.mark.parametrize("seed", [21, 22])
def test_ammo_routes_equal_one_route_search_per_piece(seed):
    """The compiled ammunition route test (12.56, routes of 8.2) equals one
    :func:`.supply.route_distance` search per piece (its own hex made
    passable) on random passable masks, hand-out hexes and piece positions,
    including pieces on a hand-out hex and on an impassable hex."""
    from malta_sim.iod.rules.ammunition_routes import ammo_route_ok
    from malta_sim.iod.rules.supply import MAX_ROUTE, route_distance


    t = static()
    rng = np.random.default_rng(seed)
    land = np.flatnonzero(t.land)
    n_units = len(t.side)
    seen = {True: 0, False: 0}
    for trial in range(40):
        passable = t.land & (rng.random(t.n_hexes) < rng.uniform(0.3, 1.0))
        target = np.zeros(t.n_hexes, bool)
        target[rng.choice(land, rng.integers(1, 6), replace=False)] = True
        hexa = np.full(n_units, -1, np.int32)
        arts = rng.choice(n_units, 12, replace=False).astype(np.int64)
        hexa[arts] = rng.choice(land, len(arts))
        if trial % 5 == 0:
            hexa[arts[0]] = np.flatnonzero(target)[0]
        max_len = MAX_ROUTE if trial % 2 else int(rng.integers(1, 6))
        got = ammo_route_ok(arts, hexa, passable, target, t.neighbours, t.ocean_side,
                            max_len).tolist()
        want = []
        for u in arts.tolist():
            p = passable.copy()
            p[hexa[u]] = True
            dist = route_distance(int(hexa[u]), p, t.neighbours, t.ocean_side, max_len)
            want.append(bool((dist[np.flatnonzero(target)] >= 0).any()))
        assert got == want
        for w in want:
            seen[w] += 1
    assert all(v > 0 for v in seen.values()), seen


def _hurricane_position():
    """Three 4th Division battalions in 1310 and 1410 attack the British 8M in
    1311 (clear) with the 4th Division's artillery (two salvos) in 1309 as support."""
    return make({"1310": ["axis.4.1_34", "axis.4.2_34"], "1410": ["axis.4.3_34"], "1309": ["axis.4.art_28"],
                 "1311": ["allied.uk.8m"]}, policies=(Scripted(AXIS), Scripted(ALLIED)))


def _attack_total(g) -> int:
    row = [r for r in g.events.rows if r["action"] == "attack"][-1]
    words = row["result"].split()
    return int(words[words.index("att") + 1])


def test_rule_12_52_fire_hurricane_doubles_offensive_support_only():
    """Rule 12.52: a fire hurricane doubles the artillery's offensive support
    strength, never its defensive support value; a unit needs two salvos to
    fire one."""
    g = _hurricane_position()
    art, inf = u("axis.4.art_28"), [u("axis.4.1_34"), u("axis.4.2_34")]
    tgt = h("1311")
    one = combat.support_value(g, art, True, tgt, inf)
    assert one > 0
    assert combat.support_value(g, art, True, tgt, inf, hurricane=True) == 2 * one
    dfn = combat.support_value(g, art, False, h("1310"), inf)
    assert combat.support_value(g, art, False, h("1310"), inf, hurricane=True) == dfn
    assert art in combat.plan_options(g, AXIS).hurricane_ok
    g.state.salvos[art] = 1
    opts = combat.plan_options(g, AXIS)
    assert art in {x for us in opts.support.values() for x in us}      # may still support
    assert art not in opts.hurricane_ok


def test_rule_12_52_fire_hurricane_in_ground_combat_spends_both_salvos_and_disorganizes():
    """Rule 12.52: in an attack the hurricane adds twice the support to the
    attack total (below the 12.21 cap), spends both salvos and leaves the unit
    disorganized and out of ammunition; a normal fire adds the support once and
    spends one salvo."""
    from malta_sim.iod.state import DISORGANIZED, NORMAL
    art, tgt = u("axis.4.art_28"), h("1311")
    inf = [u("axis.4.1_34"), u("axis.4.2_34"), u("axis.4.3_34")]
    totals = {}
    for hur in (False, True):
        g = _hurricane_position()
        one = combat.support_value(g, art, True, tgt, inf)
        printed = sum(combat.attack_strength(g, x) for x in inf)
        assert printed + 2 * one <= 2 * printed                         # 12.21 cap not reached
        combat.resolve_attack(g, AXIS, tgt, inf, support=[art], hurricane=[art] if hur else [],
                              fixed_roll=7)
        totals[hur] = _attack_total(g) - printed
        s = g.state
        assert s.salvos[art] == (0 if hur else 1)
        assert s.morale_state[art] == (DISORGANIZED if hur else NORMAL)
    assert totals == {False: one, True: 2 * one}
