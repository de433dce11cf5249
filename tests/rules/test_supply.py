"""Supply (rule 8) on constructed positions: routes, HQs, cities and forts, sources,
automatic supply.
"""

from __future__ import annotations

import numpy as np

from malta_sim.iod.rules import supply
from malta_sim.iod.state import ALLIED, AXIS, BOX_ELIMINATED

from tests.conftest import h, make, static, u


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
