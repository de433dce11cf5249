"""Supply (8), morale (11), ammunition (12.5), breakdown/reform (13), leaders
(14), HQs (16.8), steps and replacements (17.3-17.4) on constructed positions."""

import numpy as np

from malta_sim.iod.rules import artillery, morale, organisation, supply
from malta_sim.iod.state import (ALLIED, AXIS, BOX_DISBANDMENT, BOX_ELIMINATED,
                                                   BOX_MAP, BOX_POOL, BOX_REMOVED, BOX_TURN_TRACK,
                                                   DEMORALIZED, DISORGANIZED, NORMAL)

from tests.conftest import Scripted, h, make, static, u


def test_rule_8_2_route_length_and_blocking():
    t = static()
    passable = t.land.copy()
    d = supply.route_distance(h("1612"), passable, t.neighbours, t.ocean_side, 12)
    assert d[h("1612")] == 0 and d[h("1611")] == 1
    assert (d[d >= 0] <= 12).all()
    # an empty hex in enemy ZOC blocks; a friendly-occupied one does not (5.3)
    g = make({"1612": ["allied.hq.malta"], "1610": ["allied.uk.8m"], "1509": ["axis.4.1_34"]}, turn=8)
    p = supply.passable_for(g, ALLIED)
    zoc_axis = __import__("malta_sim.iod.rules.movement", fromlist=["x"]).zoc_map(g, AXIS)
    for x in np.flatnonzero(zoc_axis):
        if not len(g.units_at(int(x), ALLIED)):
            assert not p[x]
    assert not p[h("1509")]


def test_rule_8_12_units_trace_to_hq_and_8_52_cities():
    g = make({"2112": ["allied.hq.malta"], "2012": ["allied.uk.8m"], "0609": ["allied.uk.2rwk"]}, turn=8)
    assert static().grid.distance_table[h("2112"), h("0609")] > 12
    ok = supply.compute_supply(g, ALLIED)
    assert ok[u("allied.hq.malta")] and ok[u("allied.uk.8m")]
    assert not ok[u("allied.uk.2rwk")]
    # HQ eliminated: only units in/next to an Allied city or undestroyed fort (16.81, 8.52)
    g.state.box[u("allied.hq.malta")] = BOX_ELIMINATED
    g.state.hex[u("allied.hq.malta")] = -1
    g2 = make({"1810": ["allied.uk.4b"], "0609": ["allied.uk.2rwk"]}, turn=8)
    ok2 = supply.compute_supply(g2, ALLIED)
    assert ok2[u("allied.uk.4b")] and not ok2[u("allied.uk.2rwk")]


def test_rule_8_53_automatic_supply():
    g = make({"0609": ["allied.uk.2rwk"]}, turn=1)
    assert supply.compute_supply(g, ALLIED)[u("allied.uk.2rwk")]
    g2 = make({"1011": ["axis.185.v_186"]}, turn=8)
    assert not supply.compute_supply(g2, AXIS)[u("axis.185.v_186")]   # no HQ on map (8.12)
    g2.state.entered_turn[u("axis.185.v_186")] = 8
    assert supply.compute_supply(g2, AXIS)[u("axis.185.v_186")]       # jumped this turn


def test_rule_8_51_axis_sources():
    g = make({"1107": ["axis.4.hq"], "1108": ["axis.4.1_34"]}, turn=8,
             control={"1107": AXIS, "1108": AXIS})
    assert not supply.compute_supply(g, AXIS)[u("axis.4.hq")]        # beach not landed on
    g.state.landed_beach[h("1107")] = True
    ok = supply.compute_supply(g, AXIS)
    assert ok[u("axis.4.hq")] and ok[u("axis.4.1_34")]


def test_rule_11_disorganization_demoralization_recovery():
    g = make({"1612": ["allied.uk.8m"], "0609": ["allied.uk.2rwk"], "1611": ["axis.4.1_34"]})
    a, b = u("allied.uk.8m"), u("allied.uk.2rwk")
    morale.disorganize(g, [a, b])
    assert g.state.morale_state[a] == DISORGANIZED
    morale.disorganize(g, [a])
    assert g.state.morale_state[a] == DEMORALIZED                   # 11.3
    morale.disorganize(g, [a])
    assert g.state.morale_state[a] == DEMORALIZED                   # 11.4: D has no effect
    lv = int(g.state.level[a])
    morale.demoralize(g, [a])
    assert g.state.level[a] == lv + 1                                # Z on demoralized: a step
    assert g.morale_value(a) == static().morale[a, g.state.level[a]] - 1
    morale.recovery(g, ALLIED)
    assert g.state.morale_state[b] == NORMAL                         # not adjacent: recovers (11.5)


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


def test_rule_13_2_reform_example():
    """13.2 example: Ramcke's three 6-7-7 companies meet again, one reduced and
    disorganized: the battalion returns at 4-5-7, disorganized."""
    g = make({"1210": ["axis.ram.1_2.a", "axis.ram.1_2.b", "axis.ram.1_2.c"]})
    s, t = g.state, static()
    b = u("axis.ram.1_2")
    s.box[b] = BOX_DISBANDMENT
    for c in ("a", "b", "c"):
        s.parent[u(f"axis.ram.1_2.{c}")] = b
    s.reduced[u("axis.ram.1_2.c")] = True
    s.morale_state[u("axis.ram.1_2.c")] = DISORGANIZED
    opts = organisation.reform_options(g, AXIS)
    assert len(opts) == 1
    organisation.reform(g, opts[0])
    assert s.box[b] == BOX_MAP and s.hex[b] == h("1210")
    lv = s.level[b]
    assert (t.attack[b, lv], t.defense[b, lv], t.ma[b, lv]) == (4, 5, 7)
    assert s.morale_state[b] == DISORGANIZED
    assert all(s.box[u(f"axis.ram.1_2.{c}")] == BOX_POOL for c in "abc")


def test_rule_13_1_breakdown():
    g = make({"1612": [("allied.uk.8m", 1)]})
    b = u("allied.uk.8m")
    assert organisation.can_break_down(g, b)
    comps = organisation.break_down(g, b)
    assert len(comps) == 2                                            # 3 companies - 1 step lost
    assert g.state.box[b] == BOX_DISBANDMENT
    assert all(g.state.hex[c] == h("1612") for c in comps)
    g2 = make({"1612": [("allied.uk.8m", 2)]})
    assert not organisation.can_break_down(g2, b)                     # remnant
    g3 = make({"1612": ["allied.mt.1k"]})
    assert not organisation.can_break_down(g3, u("allied.mt.1k"))     # Maltese


def test_rule_17_3_steps_and_20_1_tally():
    g = make({"1612": ["allied.uk.8m", "allied.uk.1_r"]})
    b, tank = u("allied.uk.8m"), u("allied.uk.1_r")
    t = static()
    seen = []
    while g.state.box[b] == BOX_MAP:
        lv = g.state.level[b]
        seen.append(f"{t.attack[b, lv]}-{t.defense[b, lv]}")
        organisation.lose_step(g, b)
    assert seen == ["6-6", "4-4", "2-2"]
    assert g.state.allied_steps_lost[0] == 3
    organisation.lose_step(g, tank)
    assert g.state.allied_steps_lost[0] == 5                          # tank company counts 2 (20.1)


def test_rule_14_41_leader_casualty_and_14_43_return():
    g = make({"1612": ["allied.uk.8m", "allied.ldr.beak", "allied.hq.malta"]}, turn=8)
    ld = u("allied.ldr.beak")
    organisation.leader_eliminated(g, ld)
    assert g.state.box[ld] == BOX_TURN_TRACK and g.state.level[ld] == 1   # ADC side
    assert g.state.return_turn[ld] == 12
    g.state.turn[0] = 12
    organisation.return_leaders_and_hqs(g, initial_segment=True)
    assert g.state.box[ld] == BOX_MAP and g.state.hex[ld] == h("1612")


def test_rule_16_82_axis_hq_returns_four_days_later():
    g = make({"1107": ["axis.4.hq"]}, turn=5)
    g.scenario.hq_cutoff_day = 3
    g.scenario.follow_up_zone[4] = 0
    organisation.eliminate(g, u("axis.4.hq"))
    assert g.state.box[u("axis.4.hq")] == BOX_TURN_TRACK
    assert g.state.return_turn[u("axis.4.hq")] == (1 + 4) * 4
    assert g.state.axis_steps_lost[0] == 0                            # HQs not counted (20.0)
    g2 = make({"1107": ["axis.4.hq"]}, turn=13)
    g2.scenario.hq_cutoff_day = 3
    organisation.eliminate(g2, u("axis.4.hq"))
    assert g2.state.box[u("axis.4.hq")] == BOX_ELIMINATED             # too late to return


def test_rule_17_4_replacements_and_17_42_absorption():
    g = make({"1612": [("allied.uk.8m", 1), "allied.raf.krn"]}, turn=16,
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    g.policies[ALLIED].absorb = lambda game, pairs: pairs[:1]
    organisation.replacements(g)
    assert g.state.level[u("allied.uk.8m")] == 0
    assert g.state.box[u("allied.raf.krn")] == BOX_REMOVED
    g2 = make({"1011": [("axis.4.1_34", 1)], "1311": ["allied.uk.2rwk"]}, turn=16,
              policies=(Scripted(AXIS), Scripted(ALLIED)))
    g2.state.axis_steps_lost[0] = 5
    g2.state.steps_lost[u("axis.4.1_34")] = 1
    organisation.replacements(g2)                                     # 3 July: day 4
    assert g2.state.level[u("axis.4.1_34")] == 0
    assert g2.state.axis_steps_lost[0] == 4                           # 17.41: not counted lost
    g3 = make({"1111": [("axis.4.1_34", 1)], "1311": ["allied.uk.2rwk"]}, turn=16)
    organisation.replacements(g3)                                     # within 3 hexes of enemy
    assert g3.state.level[u("axis.4.1_34")] == 1


def test_rule_14_42_leader_caught_with_enemy_units():
    g = make({"1413": ["allied.mil.4", "axis.ram.ldr.ramcke"]}, turn=8)
    organisation.caught_leaders(g)
    ld = u("axis.ram.ldr.ramcke")
    assert g.state.box[ld] == BOX_TURN_TRACK                      # eliminated (ADC) or escaped
    assert g.state.return_turn[ld] in (9, 12)
