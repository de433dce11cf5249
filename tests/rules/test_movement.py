"""Zones of control (rule 5) and movement (6): who exerts a ZOC, movement costs (against
a networkx shortest-path oracle), strategic and night movement, infiltration, artillery
hitching, on constructed positions.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from malta_sim.bots.base import Move
from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.rules import movement
from malta_sim.iod.state import ALLIED, AXIS, DISORGANIZED

from tests.conftest import (h, last_move_predecessors, make, Scripted, set_phase_start_zoc,
                            set_strategic_hexes, static, u)


def test_rule_5_1_who_exerts_zoc():
    g = make({"1311": ["allied.uk.a_1c"], "1515": ["allied.uk.8m"], "1713": ["allied.uk.art_12"]})
    exert, _ = movement.exerting_hexes(g, ALLIED)
    assert not exert[h("1311")]            # MG company attack 1 < 3
    assert exert[h("1515")]                # 6-6 battalion
    assert exert[h("1713")]                # prepared artillery with ammunition
    g.state.salvos[u("allied.uk.art_12")] = 0
    exert, _ = movement.exerting_hexes(g, ALLIED)
    assert not exert[h("1713")]
    zoc = movement.zoc_map(g, ALLIED)
    t = static()
    for o in t.neighbours[h("1515")]:
        if o >= 0 and t.land[o] and not t.ocean_side[h("1515"), list(t.neighbours[h("1515")]).index(o)]:
            assert zoc[o]


def _oracle(g, unit, ma):
    """networkx Dijkstra over land hexes with the engine's edge costs (no ZOC)."""
    t = static()
    G = nx.DiGraph()
    for a in np.flatnonzero(t.land):
        for d in range(6):
            b = t.neighbours[a, d]
            if b < 0:
                continue
            c = movement._edge2(a, d, b, int(t.move_class[unit]), False, t.move_cost, t.strat_cost,
                                t.road, t.creek, t.rise, t.road_cost, t.road_strat_cost,
                                t.creek_cost, t.rise_cost)
            if c < 198 and not t.ocean_side[a, d] and t.land[b]:
                G.add_edge(int(a), int(b), weight=c)
    dist = nx.single_source_dijkstra_path_length(G, int(g.state.hex[unit]), cutoff=2 * ma)
    return {k: v / 2 for k, v in dist.items() if k != int(g.state.hex[unit])}


def test_rule_6_1_costs_match_networkx_oracle():
    g = make({"1612": ["allied.uk.8m"]}, turn=5)
    x = u("allied.uk.8m")
    legal = movement.legal_moves(g, x, "tactical")
    oracle = _oracle(g, x, movement.effective_ma(g, x))
    # every oracle hex within the allowance is legal at that cost; one-hex moves (6.53) extra
    for k, v in oracle.items():
        assert k in legal and legal[k] == pytest.approx(v)
    for k in legal:
        assert k in oracle or static().grid.distance_table[k, h("1612")] == 1


def test_rule_5_2_stop_in_zoc_and_no_zoc_to_zoc():
    g = make({"1311": ["allied.uk.8m"], "1109": ["axis.4.1_34"]}, turn=5)
    x = u("axis.4.1_34")
    zoc = movement.zoc_map(g, ALLIED)
    legal = movement.legal_moves(g, x, "tactical")
    t = static()
    cost, pred = movement.reach_kernel(h("1109"), 2 * 6, 0, False, t.move_cost, t.strat_cost, t.road,
                                       t.creek, t.rise, t.ocean_side, t.neighbours, t.road_cost,
                                       t.road_strat_cost, t.creek_cost, t.rise_cost, zoc,
                                       np.zeros(t.n_hexes, bool), np.zeros(t.n_hexes, bool),
                                       t.land.copy(), movement.ZOC_ENTER, movement.ZOC_EXIT)
    for k in legal:
        # no path continues through a ZOC hex
        p = pred[k]
        while p >= 0 and p != h("1109"):
            assert not zoc[p]
            p = pred[p]
    assert h("1311") not in legal                  # enemy-occupied (6.52)
    # a unit that starts in enemy ZOC may not move straight into another ZOC hex
    g2 = make({"1311": ["allied.uk.8m"], "1310": ["axis.4.1_34"]}, turn=5)
    zoc2 = movement.zoc_map(g2, ALLIED)
    legal2 = movement.legal_moves(g2, u("axis.4.1_34"), "tactical")
    pred2 = last_move_predecessors(g2)
    assert all(pred2[k] != h("1310") for k in legal2 if zoc2[k])


def test_rule_6_2_strategic_movement_not_near_enemy():
    g = make({"1311": ["allied.uk.8m"], "1210": ["axis.4.1_34"], "0909": ["axis.4.2_34"]}, turn=5,
             control={hx: AXIS for hx in ("1109", "0909", "1009", "1010", "0910", "0810", "1008", "0908")})
    near = movement.within2_of_enemy(g, AXIS)
    assert near[h("1210")] and not near[h("0909")]
    set_strategic_hexes(g, AXIS, (g.state.control == AXIS) & ~near & static().land)
    legal = movement.legal_moves(g, u("axis.4.2_34"), "strategic")
    assert legal and all(g.state.control[k] == AXIS and not near[k] for k in legal)


def test_rule_6_6_artillery_hitch_prepare():
    g = make({"1612": ["allied.uk.art_12"]}, turn=5, policies=(Scripted(AXIS), Scripted(ALLIED)))
    x = u("allied.uk.art_12")
    assert movement.legal_moves(g, x, "tactical") == {}          # prepared: MA 0 (12.11)
    with pytest.raises(IllegalDecision, match="6.6"):
        movement.execute_move(g, Move(x, h("1611")), "tactical")
    legal = movement.legal_moves(g, x, "tactical", hitch=True)
    dest = sorted(legal)[0]
    movement.execute_move(g, Move(x, dest, hitch=True), "tactical")
    assert g.state.hitched[x] and g.state.hex[x] == dest
    # non-airborne artillery needs all its MPs to prepare (6.6)
    assert not movement.can_prepare_after(g, x, legal[dest] - 2, True)


def test_rule_6_53_illegal_destination_raises():
    g = make({"1612": ["allied.uk.8m"]}, turn=5)
    with pytest.raises(IllegalDecision, match="rule 6.1"):
        movement.execute_move(g, Move(u("allied.uk.8m"), h("0101")), "tactical")


def test_rule_6_1_move_checked_against_the_engine_list_not_the_bots_copy():
    """A bot that writes into the dict legal_moves gave it cannot make an
    illegal destination legal: execute_move checks its own list (6.1)."""
    g = make({"1612": ["allied.uk.8m"]}, turn=5)
    x = u("allied.uk.8m")
    legal = movement.legal_moves(g, x, "tactical")
    assert h("0101") not in legal
    legal[h("0101")] = 0.0                 # the caller edits its copy
    with pytest.raises(IllegalDecision, match="rule 6.1"):
        movement.execute_move(g, Move(x, h("0101")), "tactical")
    assert movement.legal_moves(g, x, "tactical") == {k: v for k, v in legal.items() if k != h("0101")}


def test_rule_6_71_night_movement_disorganizes():
    g = make({"1612": ["allied.uk.8m"]}, turn=7)
    x = u("allied.uk.8m")
    legal = movement.legal_moves(g, x, "tactical")
    far = max(legal, key=legal.get)
    assert legal[far] > 3
    movement.execute_move(g, Move(x, far), "tactical")
    assert g.state.morale_state[x] == DISORGANIZED


def test_rule_6_41_infiltration():
    g = make({"1311": ["allied.uk.8m"], "1410": ["allied.uk.2rwk"], "1310": ["axis.4.1_34"]}, turn=5)
    set_phase_start_zoc(g, movement.zoc_map(g, ALLIED))
    opts = movement.infiltration_options(g, AXIS)
    assert u("axis.4.1_34") in opts
    zoc = movement.zoc_map(g, ALLIED)
    assert all(zoc[d] for d in opts[u("axis.4.1_34")])
