"""Morale (rule 11): disorganization, demoralization and recovery on constructed positions.
"""

from __future__ import annotations

from malta_sim.iod.rules import morale
from malta_sim.iod.state import ALLIED, DEMORALIZED, DISORGANIZED, NORMAL

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
