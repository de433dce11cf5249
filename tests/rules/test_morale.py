"""Morale (rule 11): disorganization, demoralization and recovery on constructed positions.
"""

from __future__ import annotations

from malta_sim.iod.rules import morale
from malta_sim.iod.state import ALLIED, BOX_ELIMINATED, DEMORALIZED, DISORGANIZED, NORMAL

from tests.conftest import make, static, u


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


def test_rule_11_5_recovery_next_to_an_enemy_needs_a_die_below_morale():
    """Rule 11.51: a unit next to an enemy unit recovers only on a die less than its current
    morale (equal is not enough), one roll each, logged; a unit with no enemy next to it
    recovers without a roll (11.5); each recovers one stage (11.52)."""
    g = make({"1612": ["allied.uk.8m"], "0609": ["allied.uk.2rwk"], "1611": ["axis.4.1_34"]})
    s = g.state
    a, b = u("allied.uk.8m"), u("allied.uk.2rwk")
    s.morale_state[a], s.morale_state[b] = DEMORALIZED, DEMORALIZED
    m = g.morale_value(a)
    rolls = []
    g.die = lambda tag: rolls.append(tag) or m                    # equal to the morale: no recovery
    morale.recovery(g, ALLIED)
    assert rolls == ["morale"] and s.morale_state[a] == DEMORALIZED and s.morale_state[b] == DISORGANIZED
    row = [r for r in g.events.rows if r["action"] == "recovery roll"][-1]
    assert row["result"] == "no recovery"
    g.die = lambda tag: rolls.append(tag) or m - 1                # one less: recovers one stage
    morale.recovery(g, ALLIED)
    assert len(rolls) == 2 and s.morale_state[a] == DISORGANIZED and s.morale_state[b] == NORMAL
    row = [r for r in g.events.rows if r["action"] == "recovery roll"][-1]
    assert row["result"] == "recovers"


def test_rule_11_3_11_4_effects_skip_units_off_the_map():
    """D and Z effects change only units on the map; a unit off the map earlier in the list
    does not stop the others."""
    g = make({"1612": ["allied.uk.8m"], "0609": ["allied.uk.2rwk"], "1611": ["axis.4.1_34"]})
    s = g.state
    a, b = u("allied.uk.8m"), u("allied.uk.2rwk")
    s.box[a] = BOX_ELIMINATED
    morale.disorganize(g, [a, b])
    assert s.morale_state[a] == NORMAL and s.morale_state[b] == DISORGANIZED
    morale.demoralize(g, [a, b])
    assert s.morale_state[a] == NORMAL and s.morale_state[b] == DEMORALIZED
