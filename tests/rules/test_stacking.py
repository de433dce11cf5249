"""Stacking (rule 7) on constructed positions.
"""

from __future__ import annotations


from malta_sim.iod.rules import organisation
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP

from tests.conftest import h, make, Scripted, u


def test_rule_7_1_stacking_limits_and_7_2_check():
    g = make({"1612": ["allied.uk.8m", "allied.uk.2rwk", "allied.uk.11lf", "allied.uk.4b",
                       "allied.hq.malta", "allied.ldr.beak", "allied.uk.inf_coy.1"]},
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    assert organisation.hex_stack(g, h("1612"), ALLIED) == 9        # 4 bns + 1 company (halves)
    organisation.stacking_check(g)
    assert organisation.hex_stack(g, h("1612"), ALLIED) <= 8
    assert g.state.box[u("allied.hq.malta")] == BOX_MAP             # HQ may exceed (7.1)
    # remnants count half (17.31)
    g2 = make({"1612": [("allied.uk.8m", 2)]})
    assert organisation.hex_stack(g2, h("1612"), ALLIED) == 1
