"""Breaking down and reforming battalions (rule 13) and leaders (14) on constructed
positions, with the rulebook's example of 13.2.
"""

from __future__ import annotations


from malta_sim.iod.rules import organisation
from malta_sim.iod.state import (AXIS, BOX_DISBANDMENT, BOX_MAP, BOX_POOL, BOX_TURN_TRACK,
                                 DISORGANIZED)

from tests.conftest import h, make, static, u


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


def test_rule_14_41_leader_casualty_and_14_43_return():
    g = make({"1612": ["allied.uk.8m", "allied.ldr.beak", "allied.hq.malta"]}, turn=8)
    ld = u("allied.ldr.beak")
    organisation.leader_eliminated(g, ld)
    assert g.state.box[ld] == BOX_TURN_TRACK and g.state.level[ld] == 1   # ADC side
    assert g.state.return_turn[ld] == 12
    g.state.turn[0] = 12
    organisation.return_leaders_and_hqs(g, initial_segment=True)
    assert g.state.box[ld] == BOX_MAP and g.state.hex[ld] == h("1612")


def test_rule_14_42_leader_caught_with_enemy_units():
    g = make({"1413": ["allied.mil.4", "axis.ram.ldr.ramcke"]}, turn=8)
    organisation.caught_leaders(g)
    ld = u("axis.ram.ldr.ramcke")
    assert g.state.box[ld] == BOX_TURN_TRACK                      # eliminated (ADC) or escaped
    assert g.state.return_turn[ld] in (9, 12)
