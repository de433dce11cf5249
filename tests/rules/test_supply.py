"""Supply (rule 8) on constructed positions: routes, HQs, cities and forts, sources,
automatic supply; the kept hexes a supply route may enter follow the position.
"""

from __future__ import annotations

import numpy as np

from malta_sim.iod import static as st
from malta_sim.iod.rules import supply
from malta_sim.iod.state import ALLIED, AXIS, BOX_ELIMINATED, BOX_MAP

from tests.conftest import h, make, random_position, static, u


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


def test_passable_for_follows_the_position():
    """The kept supply-route hexes (8.2, 5.3) change with a piece's move and
    with an enemy step loss, and a caller's writes do not reach the memo."""

    rng = np.random.default_rng(97)
    g = random_position(rng, 1)
    s, t = g.state, g.static
    for side in (0, 1):
        first = supply.passable_for(g, side)
        first[:] = ~first                                   # the caller's copy only
        assert np.array_equal(supply.passable_for(g, side), supply._passable_for_now(g, side))
        own = np.flatnonzero((s.box == BOX_MAP) & (t.side == side) & (t.utype != st.LEADER)
                             & (t.utype != st.WARSHIP))
        enemy = np.flatnonzero((s.box == BOX_MAP) & (t.side != side) & (t.n_levels > 1))
        changed = 0
        for k in range(6):
            before = supply.passable_for(g, side)
            if k % 2:
                u = int(own[k % len(own)])
                s.hex[u] = int(rng.choice(np.flatnonzero(t.land)))
            else:
                u = int(enemy[k % len(enemy)])
                s.level[u] = (int(s.level[u]) + 1) % int(t.n_levels[u])
            after = supply.passable_for(g, side)
            assert np.array_equal(after, supply._passable_for_now(g, side))
            changed += not np.array_equal(before, after)
        assert changed > 0


def test_rule_8_13_status_phase_places_and_removes_out_of_supply_markers():
    """Rule 8.13 (4.21 a): in its Status Phase a unit that traces a supply route
    to its HQ (the 4th Division HQ on a landed beach, 8.51) loses its Out of
    Supply marker; one that cannot (no HQ of its formation on the map) gets one."""
    g = make({"1107": ["axis.4.hq"], "1108": ["axis.4.1_34"], "1413": ["axis.185.v_186"]}, turn=8,
             control={"1107": AXIS, "1108": AXIS, "1413": AXIS})
    g.state.landed_beach[h("1107")] = True
    s = g.state
    s.out_of_supply[u("axis.4.1_34")] = True
    s.out_of_supply[u("axis.185.v_186")] = False
    supply.status_phase_supply(g, AXIS)
    assert not s.out_of_supply[u("axis.4.1_34")] and not s.out_of_supply[u("axis.4.hq")]
    assert s.out_of_supply[u("axis.185.v_186")]


def test_rule_19_9_jumpers_supplied_in_the_jump_turn_only():
    """Rule 19.9: a unit is automatically supplied in the turn of its airborne
    landing (no Out of Supply marker in that turn's Status Phase even with no
    HQ on the map); in the next turn it follows the normal rules."""
    g = make({"1413": ["axis.185.v_186"]}, turn=8, control={"1413": AXIS})
    s, x = g.state, u("axis.185.v_186")
    s.entered_turn[x] = 8
    supply.status_phase_supply(g, AXIS)
    assert not s.out_of_supply[x]
    s.turn[0] = 9
    supply.status_phase_supply(g, AXIS)
    assert s.out_of_supply[x]


def test_rule_19_11_19_12_drop_zone_marker_is_a_source_unless_an_allied_unit_holds_it():
    """Rule 19.11: the Folgore drop zone marker is a supply source of its
    formation's HQ (the HQ two hexes away, a battalion beside it, are supplied);
    rule 19.12: while an Allied unit is in the marker's hex it is no source,
    and it works again once the hex is empty of Allied units."""
    folgore = int(static().printed_formation[u("axis.185.hq")])
    g = make({"1413": ["axis.185.hq"], "1412": ["axis.185.v_186"], "1415": ["allied.uk.8m"]}, turn=8,
             control={"1413": AXIS, "1412": AXIS})
    s = g.state
    assert static().grid.distance_table[h("1413"), h("1415")] == 2
    assert not supply.compute_supply(g, AXIS)[u("axis.185.hq")]          # no marker yet
    s.dz_hex[0, folgore] = h("1415")
    s.hex[u("allied.uk.8m")], s.box[u("allied.uk.8m")] = h("1611"), BOX_MAP
    assert h("1415") in supply.supply_sources(g, AXIS, folgore).tolist()
    ok = supply.compute_supply(g, AXIS)
    assert ok[u("axis.185.hq")] and ok[u("axis.185.v_186")]
    s.hex[u("allied.uk.8m")] = h("1415")                                # 19.12: Allied unit enters
    assert h("1415") not in supply.supply_sources(g, AXIS, folgore).tolist()
    assert not supply.compute_supply(g, AXIS)[u("axis.185.hq")]
    s.box[u("allied.uk.8m")], s.hex[u("allied.uk.8m")] = BOX_ELIMINATED, -1   # and leaves
    assert supply.compute_supply(g, AXIS)[u("axis.185.hq")]


def test_rule_8_52_allied_sources_are_allied_cities_and_undestroyed_forts():
    """Rule 8.52: every Allied-controlled city hex and every undestroyed fort hex
    (not held by the Axis, 17.1) is a source for the Allied HQ; a city the Axis
    controls, a destroyed fort and an Axis-held fort are not, nor is any other
    Allied hex."""
    t = static()
    g = make({"1612": ["allied.hq.malta"]}, turn=8)
    cities, forts = set(np.flatnonzero(t.city).tolist()), set(np.flatnonzero(t.fort).tolist())
    assert set(supply.supply_sources(g, ALLIED, 0).tolist()) == cities | forts
    s = g.state
    s.control[h("1711")] = AXIS                 # a city
    s.fort_destroyed[h("1110")] = True          # a fort
    s.control[h("1111")] = AXIS                 # a fort, not destroyed
    want = (cities | forts) - {h("1711"), h("1110"), h("1111")}
    assert set(supply.supply_sources(g, ALLIED, 0).tolist()) == want


def test_rule_8_51_axis_sources_beaches_landed_on_and_airfields_of_the_80th():
    """Rule 8.51: an Axis HQ may use an Axis-controlled beach hex where Axis units
    have landed (not one only landed on, nor one only controlled); only the HQ
    of the 80th (airborne) Division may use Axis-controlled airfields; with
    beaches barred as sources (17.6) only those airfields are left."""
    g = make({"1612": ["allied.uk.8m"]}, turn=8,
             control={"1107": AXIS, "0509": AXIS, "1211": AXIS})
    s = g.state
    s.landed_beach[h("1107")] = True
    s.landed_beach[h("0508")] = True            # landed on, Allied-controlled now
    t = static()
    eightieth = int(t.printed_formation[u("axis.80.hq")])
    for hq in ("axis.ram.hq", "axis.185.hq", "axis.80.hq", "axis.4.hq", "axis.20.hq"):
        f = int(t.printed_formation[u(hq)])
        want = {h("1107"), h("1211")} if f == eightieth else {h("1107")}
        assert set(supply.supply_sources(g, AXIS, f).tolist()) == want, hq
    s.beach_supply_barred[0] = True             # rule 17.6
    assert supply.supply_sources(g, AXIS, eightieth).tolist() == [h("1211")]
    assert supply.supply_sources(g, AXIS, int(t.printed_formation[u("axis.4.hq")])).tolist() == []


def test_rule_17_6_barred_beaches_leave_an_axis_hq_there_out_of_supply():
    """Rules 8.51, 17.6: the 4th Division HQ on the beach it landed on is supplied
    while beaches are sources and out of supply once the Royal Navy bars them."""
    g = make({"1107": ["axis.4.hq"], "1108": ["axis.4.1_34"]}, turn=8, control={"1107": AXIS, "1108": AXIS})
    g.state.landed_beach[h("1107")] = True
    assert supply.compute_supply(g, AXIS)[u("axis.4.hq")]
    g.state.beach_supply_barred[0] = True
    ok = supply.compute_supply(g, AXIS)
    assert not ok[u("axis.4.hq")] and not ok[u("axis.4.1_34")]


def test_rule_8_53_everybody_is_supplied_29_june_am_and_noon():
    """Rule 8.53: on 29 June in the AM (turn 0) and noon (turn 1) turns all units
    are supplied, even with no HQ on the map, and the Status Phase leaves no
    Out of Supply marker; in the PM turn (2) they are out of supply again."""
    for turn, supplied in ((0, True), (1, True), (2, False)):
        g = make({"1413": ["axis.185.v_186"]}, turn=turn, control={"1413": AXIS})
        x = u("axis.185.v_186")
        assert supply.automatic_supply_turn(g) == supplied
        assert supply.compute_supply(g, AXIS)[x] == supplied
        g.state.out_of_supply[x] = True
        supply.status_phase_supply(g, AXIS)
        assert g.state.out_of_supply[x] == (not supplied), turn


def test_rule_8_13_status_phase_record_counts_markers_and_new_ones():
    """Rule 8.13: the Status Phase record gives the units left out of supply and
    how many of them had no marker before: three Folgore battalions with no HQ
    on the map (two already marked), the 4th Division's HQ and battalion
    supplied from their beach."""
    g = make({"1107": ["axis.4.hq"], "1108": ["axis.4.1_34"],
              "1413": ["axis.185.v_186", "axis.185.vi_186", "axis.185.vii_186"]}, turn=8,
             control={"1107": AXIS, "1108": AXIS, "1413": AXIS})
    s = g.state
    s.landed_beach[h("1107")] = True
    s.out_of_supply[u("axis.185.v_186")] = s.out_of_supply[u("axis.185.vi_186")] = True
    supply.status_phase_supply(g, AXIS)
    rows = [r for r in g.events.rows if r["action"] == "supply"]
    assert len(rows) == 1 and rows[0]["rule"] == "8.1"
    assert rows[0]["result"] == "3 out of supply (1 new)"


def test_rule_19_11_a_formation_without_a_drop_zone_marker_has_no_marker_source():
    """Rule 19.11: only a drop zone marker on the map is a source for its
    formation's HQ: the Folgore without one has no source (no beach landed on,
    8.51), wherever the Allied pieces stand (here every one of them on the
    map, 2413); with its marker in 1415 that hex is its one source."""
    t = static()
    folgore = int(t.printed_formation[u("axis.185.hq")])
    g = make({"1413": ["axis.185.hq"]}, turn=8, control={"1413": AXIS})
    s = g.state
    allied = np.flatnonzero(t.side == ALLIED)
    s.box[allied], s.hex[allied] = BOX_MAP, h("2413")
    assert s.dz_hex[0, folgore] == -1
    assert supply.supply_sources(g, AXIS, folgore).tolist() == []
    s.dz_hex[0, folgore] = h("1415")
    assert supply.supply_sources(g, AXIS, folgore).tolist() == [h("1415")]
