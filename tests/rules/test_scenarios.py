"""The scenarios (rule 22) and the preparation of 3.0: the Introductory Scenario's
opening state and forced jumps, Operation Hercules' set-up and its optional rules.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from malta_sim import play
from malta_sim.iod import invasion as H, static as st
from malta_sim.iod.rules import airborne, special_rules as special, victory
from malta_sim.iod.state import ALLIED, AXIS, BOX_CUP, BOX_NOT_YET, CLEAR
from malta_sim.play import new_game

from tests.conftest import hercules_game


def test_rule_22_29_opening_surrender_modifier():
    """The Intro starts with 10 Allied steps (-1), two destroyed forts (-1), five
    Axis towns (-1) and 22 Axis steps (+2); Takali airfield is Axis (-1)."""
    g = new_game("intro", 1, 0, options=("no_invasion",))
    mod, terms = victory.surrender_modifier(g)
    assert terms["allied_steps"] == -1 and terms["axis_steps"] == 2
    assert terms["forts"] == -1
    c = victory.objective_counts(g)
    assert c["forts_destroyed"] == 2
    assert 4 <= c["towns"] <= 7 and terms["towns"] == -1      # five printed; our map: same band
    assert terms["airfields"] == -c["airfields"] and c["airfields"] >= 1
    assert terms["cities"] == 0 and terms["date"] == 0 and terms["axis_hqs"] == 0
    assert mod == sum(terms.values())
    assert g.state.turn[0] == 4 and g.state.weather[0] == CLEAR   # 30 June, first day Clear (17.2)


def test_intro_forced_jumps_planned():
    """22.26: Ram 1/2 jumps on the Ramcke marker on 30 June AM, II/187 on the
    Folgore marker on 30 June PM, alone in their turns."""
    g = play.new_game("intro", 5, 0, event_log=True)
    plans = [p for p in airborne.jump_plans(g) if p.kind == "stick"]
    t = g.static
    am = [p for p in plans if p.turn == 4]
    pm = [p for p in plans if p.turn == 6]
    assert len(am) == 1 and t.names[am[0].units[0]] == "axis.ram.1_2" and am[0].offset == (0, 0)
    assert len(pm) == 1 and t.names[pm[0].units[0]] == "axis.185.ii_187"


# ----------------------------------------------------------------- 3.0 preparation
def test_rule_3_0_preparation():
    """3.0 a-f / 22.33-22.37: divisions with attached units wait for the Follow-up
    boxes, each has a beach zone, jumps of the first two days are planned with
    both markers on 29 June, strongpoints next to beaches, militia in the cup."""
    g = hercules_game()
    s, t = g.state, g.static
    plans = airborne.jump_plans(g)
    amph = [u for u in range(len(t.names)) if s.box[u] == BOX_NOT_YET and t.side[u] == AXIS
            and t.utype[u] != st.WARSHIP]
    assert amph and all(int(s.formation[u]) in H.DIVISIONS for u in amph)            # 15.21
    assert set(np.flatnonzero(s.division_zone[0] >= 0).tolist()) == set(H.DIVISIONS)                                   # 18.21
    markers = [p for p in plans if p.kind == "marker"]
    assert {p.formation for p in markers} == {1, 2} and all(p.turn in (0, 2) for p in markers)  # 19.0
    assert plans and all(p.turn < 8 for p in plans)                                            # 19.3
    sps = [u for u in g.on_map(ALLIED) if t.utype[u] == st.STRONGPOINT]
    hexes = [int(s.hex[u]) for u in sps]
    assert len(hexes) == len(set(hexes))                                               # 16.2
    for h in hexes:
        assert any(t.beach[o] for o in t.neighbours[h] if o >= 0)
    assert int((s.box == BOX_CUP).sum()) == 5                                          # 16.31
    assert all(s.box[u] == BOX_NOT_YET for u in np.flatnonzero(t.utype == st.WARSHIP))  # 22.34


# ----------------------------------------------------------------- 22.39 options
def test_rule_22_39_variable_allied_placement_legal():
    g = hercules_game(options=("variable_allied_placement",))
    s, t = g.state, g.static
    for u in g.on_map(ALLIED):
        if t.utype[u] == st.SECURITY and ".rn." in t.names[u]:
            assert t.main_port[s.hex[u]] or t.minor_port[s.hex[u]]
        if t.utype[u] == st.SECURITY and ".raf." in t.names[u]:
            assert t.airfield[s.hex[u]]


def test_rule_22_39_delayed_landings_modifier():
    from malta_sim.iod.state import RAINY

    assert special.delayed_landings_modifier(0, 9, 1, RAINY) == 5
    assert special.delayed_landings_modifier(1, 0, 0, 0) == 0
    assert special.p_delayed(0) == 0
    assert special.p_delayed(1) == Fraction(1, 6)
    assert special.p_delayed(6) == 1
