"""Zones of control (rule 5) and movement (6): who exerts a ZOC, movement costs (against
a networkx shortest-path oracle), strategic and night movement, infiltration, artillery
hitching, on constructed positions; the compiled reach searches, occupancy, move paths,
entering a path, one-hex moves (18.7, 19.6) and the strategic movement phase against plain
references on random maps and positions.
"""

from __future__ import annotations

import copy

import networkx as nx
import numpy as np
import pytest

from malta_sim.bots.base import Move
from malta_sim.bots.random import RandomPolicy
from malta_sim.iod import invasion as H, static as st
from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.rules import movement, movement as mv
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP, DEMORALIZED, DISORGANIZED

from tests.conftest import (h, hercules_game, last_move_predecessors, make, phase_start_zoc,
                            random_hex_patch, random_position, Scripted, set_phase_start_zoc,
                            set_strategic_hexes, static, u)
from tests.oracles import iod_rules as ref


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


def _crossing(into, strategic=False, side="", cls=0, chart=None):
    """Half MPs (rule 6.1; >= 198 prohibited) for movement class ``cls`` (0 foot, 1
    mot, 2 mech, -1 a leader) to cross one hexside into a hex whose terrain costs are
    ``into`` (``(tactical, strategic)`` rows per class), the hexside carrying the
    features in ``side`` ("road", "creek", "rise"); ``chart`` gives the hexside
    costs (road, road strategic, creek, creek with rise per class), the TEC's by
    default.  The costs go in as float64, the type the compiled search works
    them out in (numba widens the chart's float32 to its float64 running
    minimum)."""
    t = static()
    road_cost, road_strat, creek_cost, rise_cost = chart or (t.road_cost, t.road_strat_cost, t.creek_cost,
                                                             t.rise_cost)
    move = np.array([[1, 1, 1], into[0]], np.float64)
    strat = np.array([[1, 1, 1], into[1]], np.float64)
    flags = {k: np.zeros((2, 6), bool) for k in ("road", "creek", "rise")}
    for k in side.split():
        flags[k][0, 0] = True
    return movement._edge2(0, 0, 1, cls, strategic, move, strat, flags["road"], flags["creek"], flags["rise"],
                           np.asarray(road_cost, np.float64), np.asarray(road_strat, np.float64),
                           np.asarray(creek_cost, np.float64), np.asarray(rise_cost, np.float64))


#: TEC hex rows (tactical, strategic) per class foot, mot, mech
_CLEAR = ([1, 2, 2], [1, 1, 1])
_WOODS = ([2, 3, 3], [2, 3, 3])
_AIRFIELD = ([1, 1, 1], [1, 0.5, 0.5])
_OCEAN = ([99, 99, 99], [99, 99, 99])


def test_rule_6_12_tec_cost_of_each_movement_class():
    """Rules 6.11, 6.12, 6.3 and the TEC: each class pays its own column (clear 1
    foot, 2 mot and mech; woods 2/3/3), a creek adds 1/2/2, a creek with rise adds
    2 for foot and is prohibited to mot and mech, an ocean hex to all (costs in
    half MPs)."""
    assert [_crossing(_CLEAR, cls=c) for c in range(3)] == [2, 4, 4]
    assert [_crossing(_WOODS, cls=c) for c in range(3)] == [4, 6, 6]
    assert [_crossing(_CLEAR, side="creek", cls=c) for c in range(3)] == [4, 8, 8]
    assert _crossing(_CLEAR, side="rise", cls=0) == 6
    assert all(_crossing(_CLEAR, side="rise", cls=c) >= 198 for c in (1, 2))
    assert all(_crossing(_OCEAN, cls=c) >= 198 for c in range(3))
    assert all(_crossing(_OCEAN, strategic=True, cls=c) >= 198 for c in range(3))


def test_rule_6_11_a_road_across_the_hexside_replaces_the_terrain_cost():
    """Rules 6.11, 6.51: crossing a road hexside pays the road (1 MP, 1/2 MP by
    strategic movement), whatever the hex holds and even across a creek with rise
    (a road cancels it for mot and mech, 5.0)."""
    for c in range(3):
        assert _crossing(_WOODS, side="road", cls=c) == 2
        assert _crossing(_WOODS, strategic=True, side="road", cls=c) == 1
        assert _crossing(_CLEAR, side="road creek rise", cls=c) == 2


def test_rule_6_2_strategic_costs_after_the_slash_else_the_normal_cost():
    """Rule 6.2: strategic movement pays the cost after the slash (clear 1 for mot
    and mech, airfield 1/2), the normal cost where none is shown (woods)."""
    assert [_crossing(_CLEAR, strategic=True, cls=c) for c in range(3)] == [2, 2, 2]
    assert [_crossing(_AIRFIELD, strategic=True, cls=c) for c in range(3)] == [2, 1, 1]
    assert [_crossing(_WOODS, strategic=True, cls=c) for c in range(3)] == [4, 6, 6]


def test_rule_6_12_a_unit_pays_its_own_column_even_where_another_is_cheaper():
    """Rule 6.12: a foot unit pays the Foot column, a motorized unit the Mot
    column, a mechanized unit the Mech column, on a chart where another column
    is the cheapest (made up: 3/2/1)."""
    assert [_crossing(([3, 2, 1], [3, 2, 1]), cls=c) for c in range(3)] == [6, 4, 2]
    assert [_crossing(([3, 2, 1], [3, 2, 1]), strategic=True, cls=c) for c in range(3)] == [6, 4, 2]


def test_rule_14_3_a_leader_crosses_each_hexside_with_the_cheapest_class():
    """Rule 14.3: a leader may move with any movement class and change class
    during movement, so each crossing costs it the cheapest column open to it:
    foot on the TEC; on made-up charts the mech column where it is cheapest, and
    the other columns where foot (or the foot creek-with-rise cost) is
    prohibited."""
    assert _crossing(_CLEAR, cls=-1) == 2
    assert _crossing(_CLEAR, side="rise", cls=-1) == 6
    assert _crossing(_OCEAN, cls=-1) >= 198
    assert _crossing(([3, 2, 1], [3, 2, 1]), cls=-1) == 2                    # mech column
    assert _crossing(([99, 3, 2], [99, 3, 2]), cls=-1) == 4                  # foot prohibited
    t = static()
    chart = (t.road_cost, t.road_strat_cost, t.creek_cost, np.array([99, 1, 2], np.float32))
    assert _crossing(_CLEAR, side="rise", cls=-1, chart=chart) == 6          # mot: 2 + 1
    assert _crossing(_CLEAR, side="rise", cls=0, chart=chart) >= 198


def test_rule_6_53_a_prohibited_hexside_is_not_a_one_hex_move():
    """Rule 6.53: the one-hex move at the cost of the whole allowance is not open
    across terrain impassable to the unit.  A motorcycle company (mot) in 0911,
    out of supply and demoralized (MA 8 - 2 - 4 = 2, rules 8.33, 11.4), may not
    cross the creek-with-rise hexside (no road) into 0811, and no other way there
    costs 2 MP or less; a foot battalion may cross it."""
    t = static()
    d = list(t.neighbours[h("0911")]).index(h("0811"))
    assert t.rise[h("0911"), d] and not t.road[h("0911"), d]
    x = u("axis.80.mc_39.1")
    g = make({"0911": ["axis.80.mc_39.1"]}, turn=5)
    g.state.out_of_supply[x] = True
    g.state.morale_state[x] = DEMORALIZED
    movement.invalidate(g)
    assert movement.effective_ma(g, x) == 2
    legal = movement.legal_moves(g, x, "tactical")
    assert legal and h("0811") not in legal
    g = make({"0911": ["axis.4.1_34"]}, turn=5)
    assert h("0811") in movement.legal_moves(g, u("axis.4.1_34"), "tactical")


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


def test_rule_6_0_which_pieces_may_move_this_phase():
    """Rules 6.0, 6.53, 6.54 (and 16.23, 16.34, 16.53): a unit on the map that
    has not moved may move; not once it has moved, nor off the map; coastal
    guns, strongpoints and militia never move; a unit that arrived this turn
    may not (6.54), one that arrived earlier may; prepared artillery may (it
    hitches first, 6.6); a demoralized 3 MP unit keeps an allowance of 1 and
    may move (6.53, 11.4)."""
    g = make({"1612": ["allied.uk.8m", "allied.uk.art_12"], "1713": ["allied.uk.aa_65"],
              "1711": ["allied.cg.heavy.1", "allied.sp.a.1", "allied.mil.1"],
              "1210": ["axis.4.1_34", "axis.4.2_34"]}, turn=5)
    s = g.state
    mv_ = lambda name: movement.movable(g, u(name))                  # noqa: E731
    assert mv_("allied.uk.8m") and mv_("axis.4.1_34")
    assert not mv_("allied.uk.2rwk")                                 # off the map
    assert not any(mv_(x) for x in ("allied.cg.heavy.1", "allied.sp.a.1", "allied.mil.1"))
    assert mv_("allied.uk.art_12") and not s.hitched[u("allied.uk.art_12")]
    s.morale_state[u("allied.uk.aa_65")] = DEMORALIZED
    assert g.movement_allowance(u("allied.uk.aa_65")) == 1 and mv_("allied.uk.aa_65")
    s.moved[u("allied.uk.8m")] = True
    assert not mv_("allied.uk.8m")
    s.entered_turn[u("axis.4.1_34")] = 5                             # landed or jumped this turn
    s.entered_turn[u("axis.4.2_34")] = 4
    assert not mv_("axis.4.1_34") and mv_("axis.4.2_34")


def test_rule_6_0_allowance_by_the_printed_rules():
    """Rules 6.0, 6.53, 6.54, 8.33, 11.4, 14.1, 14.3, 6.71: ``movement.allowance``
    (the one allowance the engine's move check, its queries and the bots'
    walks read), case by case: none off the map, once moved, for a piece
    that never moves or arrived this turn, nor with a printed MA of 0; the
    printed MA; out of supply, -2 unless foot (never below 1); demoralized,
    -2 for foot and artillery, -4 else (never below 1); a leader 14; plus
    the leader bonus; a demoralized piece at night half, rounded up."""
    from malta_sim.iod.state import DISORGANIZED

    def ma(printed, *, on_map=True, moved=False, entered=3, never=False, leader=False, art=False,
           foot=True, oos=False, morale=0, bonus=0, night=False):
        return int(movement.allowance(on_map, moved, entered, 4, never, leader, art, printed, foot, oos,
                                      morale, bonus, night))

    assert ma(4) == 4 and ma(1) == 1
    assert ma(4, on_map=False) == -1 and ma(4, moved=True) == -1                   # 6.0
    assert ma(4, never=True) == -1 and ma(4, entered=4) == -1                      # 16.23 ..., 6.54
    assert ma(0) == -1 and ma(0, oos=True, foot=False) == -1 and ma(0, morale=DEMORALIZED) == -1
    assert ma(6, oos=True, foot=False) == 4 and ma(2, oos=True, foot=False) == 1   # 8.33
    assert ma(3, oos=True, foot=False) == 1 and ma(6, oos=True) == 6
    assert ma(6, morale=DEMORALIZED) == 4 and ma(6, morale=DEMORALIZED, foot=False) == 2     # 11.4
    assert ma(2, morale=DEMORALIZED) == 1 and ma(4, morale=DEMORALIZED, foot=False) == 1
    assert ma(4, morale=DEMORALIZED, foot=False, art=True) == 2
    assert ma(6, morale=DISORGANIZED, foot=False) == 6
    assert ma(8, oos=True, foot=False, morale=DEMORALIZED) == 2                    # 8.33 then 11.4
    assert ma(5, oos=True, foot=False, morale=DEMORALIZED) == 1
    assert ma(0, leader=True) == 14 and ma(0, leader=True, bonus=2) == 16          # 14.3, 14.1
    assert ma(4, bonus=2) == 6 and ma(4, bonus=2, night=True) == 6                 # 14.1
    assert ma(7, morale=DEMORALIZED, night=True) == 3                              # 11.4 then 6.71: 5 -> 3
    assert ma(0, leader=True, morale=DEMORALIZED, night=True) == 7                 # 6.71
    assert ma(6, morale=DISORGANIZED, night=True) == 6


def _check_against_legal_moves(g, units, mode, hexes) -> int:
    """Each of ``hexes`` as a destination of each of ``units`` (indices) by
    ``mode`` movement, with and without hitching: the one-move check
    (``movement._move_check``) equals ``legal_moves`` (MP and path) or
    refuses.  Returns the legal answers met."""
    legal_total = 0
    for x in units:
        for hitch in (False, True):
            legal = movement.legal_moves(g, x, mode, hitch)
            pred = g.cache["last_pred"][3] if legal else None
            start = int(g.state.hex[x])
            for y in hexes:
                got = movement._move_check(g, x, mode, hitch, y)
                if y in legal:
                    legal_total += 1
                    assert got == (legal[y], movement._path(pred, start, y)), (x, mode, hitch, y)
                else:
                    assert got is None, (x, mode, hitch, y, got)
    return legal_total


def test_rule_6_1_a_move_is_checked_as_legal_moves_lists_it_for_each_kind_of_piece():
    """Rules 5.2, 6.0-6.3, 6.6, 6.71, 7.1, 8.33, 11.4, 14.0, 14.1, 14.3, 17.31,
    17.7: the check of one move (``movement.unit_move_check``) gives for
    every land hex (and for indices off the map) what ``legal_moves`` lists
    for the piece, MP and path, and refuses the rest: a battalion beside a
    full stack (7.1) and beside a stack with room for one half battalion,
    which a remnant may join and a battalion may not (17.31); a tank out of
    supply and demoralized at night, foot out of supply, demoralized foot;
    prepared artillery with and without hitching, also demoralized, when
    hitching leaves no MP (6.6); a leader in the open by a lone enemy HQ
    (14.0, 14.3); a piece that has moved; and, on the first turn of
    Operation Hercules, an Allied battalion far from the Axis (17.7)."""
    g = make({"1612": ["allied.uk.8m", "allied.uk.art_12"], "1613": ["allied.uk.2rwk", "allied.uk.1_r"],
              "1611": ["allied.uk.11lf", "allied.uk.4b", "allied.uk.1h", "allied.uk.1dli"],
              "1712": ["allied.uk.1dor", "allied.uk.2dev", "allied.mt.1k", "allied.uk.inf_coy.1"],
              "1513": ["allied.uk.2rif"], "1512": ["allied.mt.2k"], "1615": ["allied.ldr.beak"],
              "1614": ["axis.4.hq"], "1210": ["axis.4.1_34", "axis.4.2_34"],
              "1411": ["axis.185.art_1"], "1809": ["axis.185.art_2"]}, turn=7)
    s = g.state
    s.level[u("allied.uk.2rwk")] = g.tables.remnant_level[u("allied.uk.2rwk")]      # a remnant (17.31)
    s.out_of_supply[u("allied.uk.1_r")] = True                                      # 8.33
    s.morale_state[u("allied.uk.1_r")] = DEMORALIZED                                # 11.4, 6.71
    s.out_of_supply[u("allied.uk.2rif")] = True                                     # foot: no loss
    s.morale_state[u("allied.mt.2k")] = DEMORALIZED
    s.morale_state[u("axis.185.art_2")] = DEMORALIZED           # 4 MP -> 2: hitching leaves none
    s.moved[u("allied.mt.8k")] = True
    pieces = [u(x) for x in ("allied.uk.8m", "allied.uk.2rwk", "allied.uk.1_r", "allied.uk.2rif", "allied.mt.2k",
                             "allied.uk.art_12", "allied.ldr.beak", "axis.4.1_34", "axis.185.art_1",
                             "axis.185.art_2")]
    hexes = [-1, static().n_hexes] + np.flatnonzero(static().land).tolist()
    n = _check_against_legal_moves(g, pieces, "tactical", hexes)
    set_strategic_hexes(g, ALLIED, static().land.copy())
    set_strategic_hexes(g, AXIS, static().land.copy())
    n += _check_against_legal_moves(g, pieces, "strategic", hexes)
    assert n > 300
    # the cases above: stacking, the remnant, the leader and the hitch that leaves no MP
    check = movement._move_check
    assert check(g, u("allied.uk.8m"), "tactical", False, h("1611")) is None            # full (7.1)
    assert check(g, u("allied.uk.8m"), "tactical", False, h("1712")) is None            # 7 of 8 halves
    assert check(g, u("allied.uk.2rwk"), "tactical", False, h("1712")) is not None      # a remnant fits
    assert check(g, u("allied.ldr.beak"), "tactical", False, h("1614")) is None          # 14.0
    assert check(g, u("allied.ldr.beak"), "tactical", False, h("1515")) is not None
    assert movement.legal_moves(g, u("axis.185.art_2"), "tactical", True) == {}
    # a piece that has moved, and rule 17.7 on 29 June AM: no destination at all
    g.state.moved[u("allied.uk.8m")] = True
    assert all(check(g, u("allied.uk.8m"), "tactical", False, y) is None for y in range(static().n_hexes))
    g0 = hercules_game()                                     # 29 June AM, no Axis ground unit ashore
    x = [v for v in g0.on_map(ALLIED) if g0.static.utype[v] == st.INFANTRY
         and g0.static.size[v] == st.BATTALION][0]
    assert movement.legal_moves(g0, x, "tactical") == {}
    assert all(check(g0, x, "tactical", False, y) is None for y in range(static().n_hexes))
    g0.state.turn[0] = 2                                     # 29 June PM: the rule is over
    assert any(check(g0, x, "tactical", False, y) is not None for y in movement.legal_moves(g0, x, "tactical"))


def test_rule_6_2_strategic_movement_not_near_enemy():
    g = make({"1311": ["allied.uk.8m"], "1210": ["axis.4.1_34"], "0909": ["axis.4.2_34"]}, turn=5,
             control={hx: AXIS for hx in ("1109", "0909", "1009", "1010", "0910", "0810", "1008", "0908")})
    near = movement.within2_of_enemy(g, AXIS)
    assert near[h("1210")] and not near[h("0909")]
    set_strategic_hexes(g, AXIS, (g.state.control == AXIS) & ~near & static().land)
    legal = movement.legal_moves(g, u("axis.4.2_34"), "strategic")
    assert legal and all(g.state.control[k] == AXIS and not near[k] for k in legal)


class _Offered(RandomPolicy):
    """Moves nothing; records the units it is offered each time (rule 6.1)."""

    def __init__(self, side):
        super().__init__(side, {})
        self.offered = []

    def next_move(self, game, mode, units):
        self.offered.append((mode, list(units)))
        return None


@pytest.mark.parametrize("side", [AXIS, ALLIED])
def test_rule_6_2_strategic_phase_offers_only_units_beyond_two_hexes_of_the_enemy(side):
    """Rule 6.2: a strategic movement phase offers the units (not leaders) that
    are not within two hexes of an enemy ground unit, and opens to them the
    friendly-controlled land hexes beyond two hexes of the enemy; the enemy
    ZOC at the start of the phase is recorded for infiltration (6.41)."""
    pols = (_Offered(AXIS), _Offered(ALLIED))
    control = {hx: AXIS for hx in ("1109", "0909", "1009", "1010", "0910", "0810", "1008", "0908", "1210")}
    g = make({"1311": ["allied.uk.8m"], "1612": ["allied.uk.2rwk"], "1210": ["axis.4.1_34"],
              "0909": ["axis.4.2_34", "axis.4.ldr.chirelson"]}, turn=5, control=control, policies=pols)
    t, s = static(), g.state
    movement.strategic_movement(g, side)
    enemy = [x for x in g.on_map(1 - side) if g.ground_mask[x]]
    dist = t.grid.distance_table
    near = np.zeros(t.n_hexes, bool)
    for x in enemy:
        near |= dist[s.hex[x]] <= 2
    want_units = [x for x in g.on_map(side) if t.utype[x] != st.LEADER and not near[s.hex[x]]]
    assert pols[side].offered == [("strategic", want_units)]
    assert want_units == ([u("axis.4.2_34")] if side == AXIS else [u("allied.uk.2rwk")])
    assert np.array_equal(s.strategic_allowed[0, side], t.land & (s.control == side) & ~near)
    assert np.array_equal(phase_start_zoc(g), movement.zoc_map(g, 1 - side))


def test_rule_17_7_no_allied_strategic_move_far_from_the_axis_on_29_june():
    """Rule 17.7: on 29 June AM only Allied units within four hexes of an Axis
    ground unit may move, so the strategic phase (6.2) offers none of the
    units far from the only Axis battalion (and none near it, within two
    hexes, 6.2); on 30 June it offers the far ones."""
    for turn, offered in ((0, []), (4, ["allied.uk.2rwk"])):
        pols = (_Offered(AXIS), _Offered(ALLIED))
        g = make({"1311": ["allied.uk.8m"], "2413": ["allied.uk.2rwk"], "1210": ["axis.4.1_34"]}, turn=turn,
                 scenario="hercules", policies=pols)
        assert static().grid.distance_table[h("2413"), h("1210")] > 7
        movement.strategic_movement(g, ALLIED)
        assert pols[ALLIED].offered == ([("strategic", [u(x) for x in offered])] if offered else [])


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


def _logged_mp(g, x):
    """The MP the last move of unit ``x`` spent, as the game's record gives it."""
    rows = [r for r in g.events.rows if r["action"].endswith(" move") and r["units"] == static().names[x]]
    return float(rows[-1]["result"].split()[0])


def test_rule_6_1_a_move_without_a_query_first_is_checked_the_same_way():
    """Rule 6.1: a move made without first asking for the unit's legal moves goes
    to a legal destination at its cost and is refused for any other hex, on
    either side (in hex order) of the legal ones, and for a unit that has moved."""
    x = u("allied.uk.8m")
    legal = movement.legal_moves(make({"1612": ["allied.uk.8m"]}, turn=5), x, "tactical")
    far = max(legal, key=legal.get)
    g = make({"1612": ["allied.uk.8m"]}, turn=5)
    movement.execute_move(g, Move(x, far), "tactical")
    assert g.state.hex[x] == far and g.state.moved[x] and _logged_mp(g, x) == legal[far]
    with pytest.raises(IllegalDecision, match="rule 6.1"):          # it has moved (6.0)
        movement.execute_move(g, Move(x, h("1612")), "tactical")
    t = static()
    land = [k for k in np.flatnonzero(t.land).tolist() if k not in legal and k != h("1612")]
    between = [k for k in land if min(legal) < k < max(legal)]
    assert land[0] < min(legal) and max(legal) < land[-1]
    for dest in (land[0], between[0], land[-1]):           # below, among, above the legal hexes
        g = make({"1612": ["allied.uk.8m"]}, turn=5)
        with pytest.raises(IllegalDecision, match="rule 6.1"):
            movement.execute_move(g, Move(x, dest), "tactical")
        assert g.state.hex[x] == h("1612") and not g.state.moved[x]


def test_rule_6_1_a_move_is_checked_against_the_position_it_is_made_in():
    """Rule 6.1 (and 7.1): the legal moves asked for one unit do not stand for
    another unit's move, nor for the same unit once the position has changed
    (here four friendly battalions have since filled the destination)."""
    a, b = u("allied.uk.8m"), u("allied.uk.2rwk")
    g = make({"1612": ["allied.uk.8m"], "2012": ["allied.uk.2rwk"]}, turn=5)
    la = movement.legal_moves(g, a, "tactical")
    lb = movement.legal_moves(make({"1612": ["allied.uk.8m"], "2012": ["allied.uk.2rwk"]}, turn=5), b,
                              "tactical")
    only_b = min(k for k in lb if k not in la)
    movement.execute_move(g, Move(b, only_b), "tactical")
    assert g.state.hex[b] == only_b and _logged_mp(g, b) == lb[only_b]
    assert movement.legal_moves(g, b, "tactical") == {}
    # the same unit, the position changed after the query
    g = make({"1612": ["allied.uk.8m"]}, turn=5)
    legal = movement.legal_moves(g, a, "tactical")
    dest = min(legal)
    four = ["allied.uk.2rwk", "allied.uk.1dli", "allied.uk.2dev", "allied.uk.1dor"]
    for name in four:
        g.state.box[u(name)] = BOX_MAP
        g.state.hex[u(name)] = dest
    movement.invalidate(g)
    with pytest.raises(IllegalDecision, match="rule 6.1"):
        movement.execute_move(g, Move(a, dest), "tactical")


def test_rule_6_6_only_prepared_artillery_hitches():
    """Rule 6.6: hitching turns a prepared artillery unit to its hitched side; a
    unit that is not artillery, or artillery already hitched, cannot hitch."""
    g = make({"1612": ["allied.uk.8m", "allied.uk.art_12"]}, turn=5)
    with pytest.raises(IllegalDecision, match="6.6"):
        movement.execute_move(g, Move(u("allied.uk.8m"), h("1612"), hitch=True), "tactical")
    x = u("allied.uk.art_12")
    g.state.hitched[x] = True
    movement.invalidate(g)
    with pytest.raises(IllegalDecision, match="6.6"):
        movement.execute_move(g, Move(x, h("1612"), hitch=True), "tactical")


@pytest.mark.parametrize("turn", [5, 7])
def test_rule_6_6_hitching_in_place_costs_2_mp(turn):
    """Rule 6.6: hitching costs 2 MP; the unit is hitched and has moved (by
    night too, without disorganization: it did not move, 6.72)."""
    g = make({"1612": ["allied.uk.art_12"]}, turn=turn)
    x = u("allied.uk.art_12")
    movement.execute_move(g, Move(x, h("1612"), hitch=True), "tactical")
    assert g.state.hitched[x] and g.state.moved[x] and g.state.hex[x] == h("1612")
    assert _logged_mp(g, x) == 2
    assert g.state.morale_state[x] != DISORGANIZED


def test_rule_6_6_artillery_other_than_airborne_prepares_only_without_spending_mp():
    """Rule 6.6: artillery other than parachute or glider artillery prepares
    with all its MPs: a hitched battery that has spent nothing may prepare
    where it stands (its whole allowance spent), one that has moved or hitched
    may not, and prepared artillery cannot prepare again."""
    x = u("allied.uk.art_12")
    g = make({"1612": ["allied.uk.art_12"]}, turn=5)
    g.state.hitched[x] = True
    movement.invalidate(g)
    ma = movement.effective_ma(g, x)
    movement.execute_move(g, Move(x, h("1612"), prepare=True), "tactical")
    assert not g.state.hitched[x] and g.state.moved[x] and _logged_mp(g, x) == ma
    g = make({"1612": ["allied.uk.art_12"]}, turn=5)
    with pytest.raises(IllegalDecision, match="6.6"):                # already prepared
        movement.execute_move(g, Move(x, h("1612"), prepare=True), "tactical")
    with pytest.raises(IllegalDecision, match="6.6"):                # hitch then prepare
        movement.execute_move(g, Move(x, h("1612"), hitch=True, prepare=True), "tactical")
    g = make({"1612": ["allied.uk.art_12"]}, turn=5)
    g.state.hitched[x] = True
    movement.invalidate(g)
    with pytest.raises(IllegalDecision, match="6.6"):                # moved then prepare
        movement.execute_move(g, Move(x, h("1613"), prepare=True), "tactical")


#: the hitched 185th airborne artillery (MA 4) in 1612: 1613 costs it 1 MP, 1512 2 MP, 1411 3 MP
_AIRBORNE_ART = "axis.185.art_1"


def _hitched_airborne(turn=5):
    g = make({"1612": [_AIRBORNE_ART]}, turn=turn)
    x = u(_AIRBORNE_ART)
    g.state.hitched[x] = True
    movement.invalidate(g)
    assert movement.effective_ma(g, x) == 4
    legal = movement.legal_moves(g, x, "tactical")
    assert (legal[h("1613")], legal[h("1512")], legal[h("1411")]) == (1, 2, 3)
    return g, x


def test_rule_6_6_airborne_artillery_moves_and_prepares_within_its_allowance():
    """Rule 6.6: parachute and glider artillery pays 2 MP to prepare, so a
    hitched one (MA 4) that moved 2 MP may still prepare (4 MP in all), one that
    moved 3 MP may not; a prepared one may hitch and prepare again where it
    stands (2 + 2 MP)."""
    g, x = _hitched_airborne()
    movement.execute_move(g, Move(x, h("1512"), prepare=True), "tactical")
    assert g.state.hex[x] == h("1512") and not g.state.hitched[x] and _logged_mp(g, x) == 4
    g, x = _hitched_airborne()
    with pytest.raises(IllegalDecision, match="6.6"):
        movement.execute_move(g, Move(x, h("1411"), prepare=True), "tactical")
    g = make({"1612": [_AIRBORNE_ART]}, turn=5)
    movement.execute_move(g, Move(x, h("1612"), hitch=True, prepare=True), "tactical")
    assert not g.state.hitched[x] and _logged_mp(g, x) == 4


def test_rule_6_71_airborne_artillery_moving_and_preparing_at_night_counts_both():
    """Rules 6.71, 6.72, 6.6: at night a hitched airborne battery (MA 4, half 2)
    that moves 1 MP stays organized; moving 1 MP and preparing (2 MP) spends 3,
    more than half its allowance, and disorganizes it."""
    g, x = _hitched_airborne(turn=7)
    movement.execute_move(g, Move(x, h("1613")), "tactical")
    assert g.state.morale_state[x] != DISORGANIZED and _logged_mp(g, x) == 1
    g, x = _hitched_airborne(turn=7)
    movement.execute_move(g, Move(x, h("1613"), prepare=True), "tactical")
    assert g.state.morale_state[x] == DISORGANIZED and _logged_mp(g, x) == 3


def test_rule_6_6_airborne_artillery_that_hitched_and_moved_cannot_prepare_beyond_its_allowance():
    """Rules 6.6, 6.53: a prepared airborne battery (MA 4) that hitches (2 MP)
    and moves one hex (1 MP) has 1 MP left, not the 2 MP preparing costs."""
    g = make({"1612": [_AIRBORNE_ART]}, turn=5)
    x = u(_AIRBORNE_ART)
    assert movement.legal_moves(g, x, "tactical", hitch=True)[h("1613")] == 3
    with pytest.raises(IllegalDecision, match="6.6"):
        movement.execute_move(g, Move(x, h("1613"), hitch=True, prepare=True), "tactical")


@pytest.mark.parametrize("ma_spent, disorganized", [("half", False), ("more", True)])
def test_rule_6_71_night_move_of_exactly_half_the_allowance_does_not_disorganize(ma_spent, disorganized):
    """Rule 6.71: at night only a move of more than half the allowance (rounded
    up) disorganizes: the British 8m, MA 6 on 1 July night, stays organized after
    a 3 MP move and is disorganized after a longer one."""
    g = make({"1612": ["allied.uk.8m"]}, turn=7)
    x = u("allied.uk.8m")
    ma = movement.effective_ma(g, x)
    half = -(-ma // 2)
    legal = movement.legal_moves(g, x, "tactical")
    dest = min(k for k, v in legal.items() if (v == half if ma_spent == "half" else v > half))
    movement.execute_move(g, Move(x, dest), "tactical")
    assert (g.state.morale_state[x] == DISORGANIZED) == disorganized


def test_rule_6_41_infiltration():
    g = make({"1311": ["allied.uk.8m"], "1410": ["allied.uk.2rwk"], "1310": ["axis.4.1_34"]}, turn=5)
    set_phase_start_zoc(g, movement.zoc_map(g, ALLIED))
    opts = movement.infiltration_options(g, AXIS)
    assert u("axis.4.1_34") in opts
    zoc = movement.zoc_map(g, ALLIED)
    assert all(zoc[d] for d in opts[u("axis.4.1_34")])


class _Infiltrator(RandomPolicy):
    """Attempts the infiltrations ``picks`` (``(unit name, hex id)``) in order, then
    stops; records the options it is offered each time (rule 6.41)."""

    def __init__(self, side, picks):
        super().__init__(side, {})
        self.picks = [(u(x), h(y)) for x, y in picks]
        self.offered = []

    def next_infiltration(self, game, options):
        self.offered.append({k: list(v) for k, v in options.items()})
        return self.picks.pop(0) if self.picks else None


def _infiltrate(placements, name, dest, turn=5, seed=0):
    """One infiltration attempt of ``name`` into ``dest`` (the Allied ZOC of the
    position as the ZOC at the phase's start); returns the game and the die."""
    pol = _Infiltrator(AXIS, [(name, dest)])
    g = make(placements, turn=turn, seed=seed, policies=(pol, RandomPolicy(ALLIED)))
    set_phase_start_zoc(g, movement.zoc_map(g, ALLIED))
    assert h(dest) in movement.infiltration_options(g, AXIS)[u(name)]
    movement.infiltration_movement(g, AXIS)
    rows = [r for r in g.events.rows if r["action"] == "infiltration"]
    assert len(rows) == 1 and rows[0]["rule"] == "6.41"
    assert all(u(name) not in o for o in pol.offered[1:])               # it has moved (6.4)
    return g, int(rows[0]["dice"]), rows[0]


#: the Axis battalion 1/34 (morale 4) in 1310, in the ZOC of the British 8m in
#: 1311, next to 1210, also in that ZOC
_LINE = {"1311": ["allied.uk.8m"], "1410": ["allied.uk.2rwk"]}


@pytest.mark.parametrize("placements, name, dest, turn, morale, modifier", [
    # morale 4 only: 9 or more on die + 4, so 5 or 6 succeeds
    ({**_LINE, "1310": ["axis.4.1_34"]}, "axis.4.1_34", "1210", 5, 4, 0),
    # a friendly unit in the destination: +2
    ({**_LINE, "1310": ["axis.4.1_34"], "1210": ["axis.4.2_34"]}, "axis.4.1_34", "1210", 5, 4, +2),
    # night: +1
    ({**_LINE, "1310": ["axis.4.1_34"]}, "axis.4.1_34", "1210", 7, 4, +1),
    # a tank (morale 4): +1
    ({**_LINE, "1310": ["axis.un.tank_10"]}, "axis.un.tank_10", "1210", 5, 4, +1),
    # a motorized motorcycle company (morale 5): -1
    ({**_LINE, "1310": ["axis.80.mc_39.1"]}, "axis.80.mc_39.1", "1210", 5, 5, -1),
    # origin 1210 and destination 1209 both next to the Allied-held fort 1110: -2,
    # and +2 for the friendly battalion in 1209
    ({"1110": ["allied.uk.8m"], "1210": ["axis.4.1_34"], "1209": ["axis.4.2_34"]},
     "axis.4.1_34", "1209", 5, 4, -2 + 2),
])
def test_rule_6_41_infiltration_die_plus_morale_and_modifiers_nine_or_more(placements, name, dest, turn,
                                                                           morale, modifier):
    """Rule 6.41: one die plus the unit's morale plus the printed modifiers
    (friendly units in the destination +2, night +1, tank +1, motorized -1,
    origin and destination both next to an enemy-held undestroyed fort -2);
    9 or more and the unit moves into the hex, 8 or less and it stays and is
    disorganized (11.3).  Either way it has moved this phase (6.4: all its
    MPs); every die value is tried."""
    x = u(name)
    seen = set()
    for seed in range(40):
        g, die, row = _infiltrate(placements, name, dest, turn=turn, seed=seed)
        assert g.morale_value(x) == morale
        modified = morale + modifier
        start = row["hexes"].split()[0]
        if die + modified >= 9:
            assert g.state.hex[x] == h(dest) and g.state.morale_state[x] != DISORGANIZED, die
            assert row["result"] == "success"
        else:
            assert g.state.hex[x] == h(start) and g.state.morale_state[x] == DISORGANIZED, die
            assert row["result"] == "failed, disorganized"
        assert g.state.moved[x]
        seen.add(die)
        if len(seen) == 6:
            break
    assert seen == set(range(1, 7))


def test_rule_6_41_every_unit_in_enemy_zoc_may_attempt_infiltration_in_one_phase():
    """Rule 6.41: the player rolls one die for each unit attempting
    infiltration, with no limit on how many: 128 Axis units (all that move,
    leaders and artillery apart) spread three to a hex over the ZOC of 18 British
    battalions each get their attempt, one after the other, in one phase."""
    t = static()
    british = [t.names[x] for x in np.flatnonzero((t.side == ALLIED) & (t.utype == st.INFANTRY))][:18]
    line = ["0908", "0910", "0912", "0914", "1208", "1210", "1212", "1214", "1508", "1510", "1512", "1514",
            "1810", "1812", "1814", "2110", "2112", "2114"]
    placements = {hx: [b] for hx, b in zip(line, british)}
    zoc = movement.zoc_map(make(placements, turn=5), ALLIED)
    free = [int(x) for x in np.flatnonzero(zoc & t.land) if t.grid.hex_id(int(x)) not in placements]
    axis = [t.names[x] for x in np.flatnonzero((t.side == AXIS) & (t.utype != st.LEADER)
                                                & (t.utype != st.ARTILLERY) & (t.ma[:, 0] > 0))]
    assert len(axis) == 128 and 3 * len(free) >= len(axis)
    for k, x in enumerate(axis):
        placements.setdefault(t.grid.hex_id(free[k // 3]), []).append(x)

    class First(RandomPolicy):
        def next_infiltration(self, game, options):
            x = min(options)
            return x, options[x][0]

    g = make(placements, turn=5, policies=(First(AXIS, {}), RandomPolicy(ALLIED)))
    set_phase_start_zoc(g, movement.zoc_map(g, ALLIED))
    assert len(movement.infiltration_options(g, AXIS)) == 128
    movement.infiltration_movement(g, AXIS)
    rows = [r for r in g.events.rows if r["action"] == "infiltration"]
    assert sorted(r["units"] for r in rows) == sorted(axis)
    assert movement.infiltration_options(g, AXIS) == {}


def test_rule_6_41_infiltration_into_a_hex_not_offered_is_refused():
    """Rule 6.41: only an adjacent hex in enemy ZOC; a pick outside the
    options (the enemy-held hex itself) raises and nothing is rolled."""
    pol = _Infiltrator(AXIS, [("axis.4.1_34", "1311")])
    g = make({**_LINE, "1310": ["axis.4.1_34"]}, turn=5, policies=(pol, RandomPolicy(ALLIED)))
    set_phase_start_zoc(g, movement.zoc_map(g, ALLIED))
    with pytest.raises(IllegalDecision, match="6.41"):
        movement.infiltration_movement(g, AXIS)
    assert g.state.hex[u("axis.4.1_34")] == h("1310") and not g.state.moved[u("axis.4.1_34")]


def test_rule_6_41_two_units_infiltrate_in_one_phase_and_a_declined_attempt_rolls_nothing():
    """Rule 6.41: each unit attempting it rolls its own die; the player may
    attempt with several units in the phase, and with none."""
    picks = [("axis.4.1_34", "1210"), ("axis.4.2_34", "1409")]
    pol = _Infiltrator(AXIS, picks)
    g = make({**_LINE, "1310": ["axis.4.1_34", "axis.4.2_34"]}, turn=5, policies=(pol, RandomPolicy(ALLIED)))
    set_phase_start_zoc(g, movement.zoc_map(g, ALLIED))
    movement.infiltration_movement(g, AXIS)
    rows = [r for r in g.events.rows if r["action"] == "infiltration"]
    assert [r["units"] for r in rows] == ["axis.4.1_34", "axis.4.2_34"]
    assert g.state.moved[u("axis.4.1_34")] and g.state.moved[u("axis.4.2_34")]
    assert len(pol.offered) == 2 and list(pol.offered[1]) == [u("axis.4.2_34")]
    # declining: no die, nothing moves
    pol = _Infiltrator(AXIS, [])
    g = make({**_LINE, "1310": ["axis.4.1_34"]}, turn=5, policies=(pol, RandomPolicy(ALLIED)))
    set_phase_start_zoc(g, movement.zoc_map(g, ALLIED))
    movement.infiltration_movement(g, AXIS)
    assert len(pol.offered) == 1 and u("axis.4.1_34") in pol.offered[0]
    assert not [r for r in g.events.rows if r["action"] == "infiltration"]
    assert g.state.hex[u("axis.4.1_34")] == h("1310") and not g.state.moved[u("axis.4.1_34")]

# ---------------------------------------------------------------- reach search
def ref_reach(start, ma2, cls, strategic, t, zoc, blocked, stop, allowed):
    """The search as first written (hexside costs worked out per step), plain Python."""
    import math

    def cls_pick(vec):
        return min(vec[0], vec[1], vec[2]) if cls < 0 else vec[cls]

    def edge2(g, d, h):
        best = 1e9
        for c in (range(0, 3) if cls < 0 else (cls,)):
            if t.road[g, d]:
                v = t.road_strat_cost[c] if strategic else t.road_cost[c]
            else:
                v = t.strat_cost[h, c] if strategic else t.move_cost[h, c]
                if v >= 99:
                    continue
                if t.creek[g, d]:
                    v += t.creek_cost[c]
                if t.rise[g, d]:
                    if t.rise_cost[c] >= 99:
                        continue
                    v += t.rise_cost[c]
            if v < best:
                best = v
        return 198 if best >= 99 else int(math.ceil(best * 2 - 1e-9))

    nbr = t.neighbours
    n = nbr.shape[0]
    cost = np.full(n, 1 << 28, np.int64)
    pred = np.full(n, -1, np.int64)
    done = np.zeros(n, bool)
    cost[start] = 0
    buckets = [[] for _ in range(ma2 + 2)]
    buckets[0].append(start)
    for c in range(ma2 + 2):
        for g in buckets[c]:
            if done[g] or cost[g] != c:
                continue
            done[g] = True
            if g != start and (zoc[g] or stop[g]):
                continue
            for d in range(6):
                h = nbr[g, d]
                if h < 0 or blocked[h] or not allowed[h] or t.ocean_side[g, d]:
                    continue
                if zoc[g] and zoc[h]:
                    continue
                e = edge2(g, d, h)
                if e >= 198:
                    continue
                if zoc[g]:
                    e += 2 * cls_pick(movement.ZOC_EXIT)
                if zoc[h]:
                    e += 2 * cls_pick(movement.ZOC_ENTER)
                nc = c + e
                if g == start and nc > ma2 and ma2 > 0:
                    nc = ma2
                if nc <= ma2 and nc < cost[h]:
                    cost[h] = nc
                    pred[h] = g
                    buckets[nc].append(h)
    return cost, pred


def test_reach_search_with_cost_table_equals_first_search():
    """The bucket search over the per-static hexside cost table (``reach_core``
    with ``edge_cost_table``) gives the first search's costs and paths, for
    every class (leaders too) and both kinds of movement, on random masks."""
    from malta_sim.iod.static import load_static

    t = load_static()
    edge = movement.edge_cost_table(t.move_cost, t.strat_cost, t.road, t.creek, t.rise, t.neighbours,
                                    t.road_cost, t.road_strat_cost, t.creek_cost, t.rise_cost)
    rng = np.random.default_rng(11)
    land = np.flatnonzero(t.land)
    far = 0
    for k in range(48):
        n = t.n_hexes
        zoc = rng.random(n) < 0.15
        blocked = rng.random(n) < 0.05
        stop = rng.random(n) < 0.03
        allowed = t.land & (rng.random(n) < (0.7 if k % 2 else 1.0))
        start = int(rng.choice(land))
        cls = int(rng.integers(-1, 3))
        strategic = bool(k % 3 == 0)
        ma2 = int(rng.integers(0, 31))
        got = movement.reach_core(start, ma2, cls, edge[int(strategic), cls + 1], zoc, blocked, stop,
                                  allowed, t.ocean_side, t.neighbours, movement.ZOC_ENTER,
                                  movement.ZOC_EXIT)
        ref = ref_reach(start, ma2, cls, strategic, t, zoc, blocked, stop, allowed)
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])
        far += int((ref[0] < (1 << 28)).sum() > 10)
    assert far > 10                                  # searches that reached beyond the first ring


def test_reach_sparse_matches_reach_core_on_random_maps():
    """``movement.reach_sparse`` finds the costs and predecessors of
    ``movement.reach_core`` (rules 5.2, 6.1, 6.53) on random patches and
    allowances, lists each hex reached once, and leaves its buffers as it
    found them after ``reach_sparse_reset``."""
    rng = np.random.default_rng(6)
    for _ in range(40):
        nbr, _dist, edge, zoc, blocked, stop, allowed, ocean = random_hex_patch(rng)
        n = nbr.shape[0]
        cost, pred, done, pool_h, pool_n, seen = mv.reach_sparse_buffers(n)
        assert (cost == 1 << 28).all() and (pred == -1).all() and not done.any()
        assert pool_h.shape == pool_n.shape == (6 * n + 1,) and seen.shape == (n,)
        for _ in range(5):
            start = int(rng.integers(n))
            ma = int(rng.integers(0, 12))
            cls = int(rng.integers(-1, 3))
            head = np.empty(2 * ma + 2, np.int64)
            tail = np.empty(2 * ma + 2, np.int64)
            c0, p0 = mv.reach_core(start, 2 * ma, cls, edge[cls + 1], zoc, blocked, stop, allowed,
                                   ocean, nbr, mv.ZOC_ENTER, mv.ZOC_EXIT)
            t = mv.reach_sparse(start, 2 * ma, cls, edge, zoc, blocked, stop, allowed, ocean, nbr,
                                mv.ZOC_ENTER, mv.ZOC_EXIT, cost, pred, done, pool_h, pool_n, seen,
                                head, tail)
            assert np.array_equal(cost, c0) and np.array_equal(pred, p0)
            assert seen[0] == start
            assert sorted(seen[:t].tolist()) == np.flatnonzero(c0 < (1 << 28)).tolist()
            mv.reach_sparse_reset(seen, t, cost, pred, done)
            assert (cost == 1 << 28).all() and (pred == -1).all() and not done.any()


def test_move_check_gives_the_legal_search_answer_for_one_destination():
    """Rules 5.2, 6.1-6.3, 6.53, 7.1: ``move_check_kernel`` (the check of one
    move, its search stopped once the destination is settled) answers, for
    every hex, what ``legal_kernel``'s full search gives for it: the MP
    spent and the path read from its predecessors when the hex is a legal
    destination, -1 and no path otherwise, on random masks, allowances,
    classes, both kinds of movement and random stacks."""
    from malta_sim.iod.static import load_static

    t = load_static()
    edge = movement.edge_cost_table(t.move_cost, t.strat_cost, t.road, t.creek, t.rise, t.neighbours,
                                    t.road_cost, t.road_strat_cost, t.creek_cost, t.rise_cost)
    base, rem = movement.stack_tables(t)
    rng = np.random.default_rng(29)
    land = np.flatnonzero(t.land)
    n, nu = t.n_hexes, len(t.side)
    checked = legal = 0
    for k in range(30):
        zoc = rng.random(n) < 0.15
        blocked = rng.random(n) < 0.05
        stop = rng.random(n) < 0.03
        strat_ok = t.land & (rng.random(n) < 0.8)
        start = int(rng.choice(land))
        cls = int(rng.integers(-1, 3))
        strategic = bool(k % 3 == 0)
        ma2 = int(rng.integers(0, 25))
        units = np.arange(nu, dtype=np.int64)
        box = np.where(rng.random(nu) < 0.5, 0, 1).astype(np.int8)
        hexes = rng.choice(land, nu).astype(np.int32)
        level = np.zeros(nu, np.int16)
        args = (start, ma2, cls, strategic, edge[int(strategic), cls + 1], t.ocean_side, t.neighbours,
                zoc, blocked, stop, t.land, strat_ok, movement.ZOC_ENTER, movement.ZOC_EXIT, units, box,
                hexes, level, base, rem, int(rng.integers(0, 9)), int(rng.integers(0, 3)))
        dest, mp, pred = movement.legal_kernel(*args)
        answer = dict(zip(dest.tolist(), mp.tolist()))
        for h in range(-1, n + 1):
            got_mp, got_path = movement.move_check_kernel(*args, h)
            checked += 1
            if h in answer:
                legal += 1
                assert got_mp == answer[h]
                assert got_path.tolist() == movement._path(pred, start, h)
            else:
                assert got_mp == -1.0 and len(got_path) == 0
    assert legal > 100 and checked > legal                # both kinds of answer met
    # random patches, where the first and the last hex may be destinations too
    rng = np.random.default_rng(31)
    ends = 0
    for _ in range(60):
        nbr, _dist, edge, zoc, blocked, stop, allowed, ocean = random_hex_patch(rng, 6)
        n = nbr.shape[0]
        cls = int(rng.integers(-1, 3))
        units = np.arange(6, dtype=np.int64)
        box = np.zeros(6, np.int8)
        hexes = rng.integers(0, n, 6).astype(np.int32)
        level = np.zeros(6, np.int16)
        wt = np.full(6, 2, np.int64)
        rem = np.full(6, -1, np.int16)
        start = int(rng.integers(n))
        args = (start, int(rng.integers(0, 16)), cls, False, edge[cls + 1], ocean, nbr, zoc, blocked,
                stop, allowed, allowed, movement.ZOC_ENTER, movement.ZOC_EXIT, units, box, hexes, level,
                wt, rem, int(rng.integers(0, 5)), 0)
        dest, mp, pred = movement.legal_kernel(*args)
        answer = dict(zip(dest.tolist(), mp.tolist()))
        ends += (0 in answer) + (n - 1 in answer)
        for h in range(-1, n + 1):
            got_mp, got_path = movement.move_check_kernel(*args, h)
            if h in answer:
                assert got_mp == answer[h]
                assert got_path.tolist() == movement._path(pred, start, h)
            else:
                assert got_mp == -1.0 and len(got_path) == 0
    assert ends > 5                                       # the end hexes were legal destinations


class _CheckEveryMove:
    """A preset whose first move decision of each phase first checks, for
    every piece of its side on the map, every hex as a destination with the
    engine's check of one move against the piece's legal moves."""

    seen: dict = {}

    def next_move(self, game, mode, candidates):
        key = (game.turn, game.phase_name, mode)
        if key not in self.seen:
            self.seen[key] = _check_all_destinations(game, self.side, mode)
        return super().next_move(game, mode, candidates)


def _check_all_destinations(game, side, mode) -> int:
    return _check_against_legal_moves(game, game.on_map(side).tolist(), mode,
                                      list(range(-1, game.static.n_hexes + 1)))


def test_rule_6_1_move_check_equals_legal_moves_for_every_piece_in_played_games():
    """Rules 5.2, 6.0-6.3, 6.53, 6.6, 7.1, 14.0, 17.7: the check of one move
    (:func:`movement.unit_move_check`: the piece's allowance, rule 17.7,
    hitching artillery, its stacking weight, a leader's blocked hexes) gives
    for every hex what :func:`movement.legal_moves` lists for the piece (the
    MP, and the path read from its search) and refuses the others, for every
    piece of both sides at the first move decision of each movement phase of
    a seeded Operation Hercules game (turns 0 and 1 under rule 17.7
    included), tactical and strategic, with and without hitching."""
    from malta_sim.iod import sequence
    from malta_sim.iod.engine import setup_game
    from tests.oracles.bots import preset_with

    _CheckEveryMove.seen = {}
    pols = (preset_with("balanced", 0, _CheckEveryMove), preset_with("active", 1, _CheckEveryMove))
    game = setup_game("hercules", 3, 0, pols)
    while game.turn < 2 and not game.state.over[0]:
        sequence.play_turn(game)
    seen = _CheckEveryMove.seen
    assert {k[2] for k in seen} == {"tactical", "strategic"}
    assert sum(seen.values()) > 500, seen


def test_path_reads_predecessors_back_from_the_destination():
    """The move path (rule 6.1) read from the reach search's predecessors
    equals the two-reads-per-step reference on random predecessor trees."""
    def ref(pred, start, dest):
        path = [dest]
        while path[-1] != start and pred[path[-1]] >= 0:
            path.append(int(pred[path[-1]]))
        path.reverse()
        return path[1:]

    rng = np.random.default_rng(3)
    for _ in range(2000):
        n = int(rng.integers(2, 30))
        pred = rng.integers(-1, n, n)
        pred = np.where(pred < np.arange(n), pred, -1).astype(np.int32)    # a forest
        start, dest = int(rng.integers(0, n)), int(rng.integers(0, n))
        assert movement._path(pred, start, dest) == ref(pred, start, dest)


def test_occupancy_kernel_random():
    """The kernel against the numpy steps of ``_occupancy_plain`` on random
    pieces (warships, leaders, coastal guns, zero defense, shared hexes)."""
    from malta_sim.iod import static as st
    rng = np.random.default_rng(5)
    types = np.array([st.WARSHIP, st.LEADER, st.COASTAL_GUN, st.INFANTRY,
                      st.ARTILLERY, st.HQ], np.int8)
    seen = {"block": 0, "trivial": 0}
    for _ in range(300):
        n_units, n_hexes = int(rng.integers(1, 60)), int(rng.integers(1, 40))
        utype = types[rng.integers(0, len(types), n_units)]
        defense = rng.integers(0, 3, (n_units, 3))
        level = rng.integers(0, 3, n_units).astype(np.int8)
        hexes = rng.integers(0, n_hexes, n_units).astype(np.int32)
        units = np.sort(rng.choice(n_units, int(rng.integers(0, n_units + 1)), replace=False)).astype(np.int64)
        block, trivial = movement.occupancy_kernel(units, hexes, level, utype, defense, n_hexes,
                                                   movement._OCC_CODES)
        u = units[utype[units] != st.WARSHIP]
        rb, anyp = np.zeros(n_hexes, bool), np.zeros(n_hexes, bool)
        anyp[hexes[u]] = True
        b = (utype[u] != st.LEADER) & (utype[u] != st.COASTAL_GUN) & (defense[u, level[u]] > 0)
        rb[hexes[u][b]] = True
        np.testing.assert_array_equal(block, rb)
        np.testing.assert_array_equal(trivial, anyp & ~rb)
        seen["block"] += int(rb.any())
        seen["trivial"] += int((anyp & ~rb).any())
    assert seen["block"] > 50 and seen["trivial"] > 50, seen


def _copies(game):
    """Two independent copies of ``game`` sharing its static data and tables."""
    keep = {id(game.static): game.static, id(game.tables): game.tables}
    return copy.deepcopy(game, dict(keep)), copy.deepcopy(game, dict(keep))


def _same_games(a, b, where) -> None:
    for x, y in zip(a.state, b.state):
        np.testing.assert_array_equal(x, y, err_msg=str(where))
    assert [dict(r) for r in a.events.rows] == [dict(r) for r in b.events.rows], where
    assert np.array_equal(H.nstate(a, "militia"), H.nstate(b, "militia")), where
    assert a.streams["militia"].integers(1 << 30) == b.streams["militia"].integers(1 << 30), where


@pytest.mark.parametrize("seed", [31, 32])
def test_entering_a_path_equals_entering_its_hexes_one_by_one(seed):
    """Rules 6.1, 6.52, 2.1, 17.1 with the invasion's entry effects (16.22,
    16.32, 16.58): an Axis unit entering a path in one call, enemy pieces
    looked up only in the hexes the enemy held when the move began, leaves
    the position, the event log and the dice as entering each hex in a call
    of its own with every hex looked up.  Paths of two to six hexes start
    next to Allied strongpoints, coastal guns, towns and cities of random
    Hercules set-ups."""
    rng = np.random.default_rng(seed)
    seen = {"moves": 0, "events": 0, "overrun": 0}
    for trial in range(8):
        g = hercules_game(seed=int(rng.integers(1 << 20)))
        s, t = g.state, g.static
        allied = np.unique(s.hex[g.on_map(ALLIED)])
        urban = np.flatnonzero(t.town | t.city)
        starts = np.concatenate([allied, urban])
        movers = np.flatnonzero((t.side == AXIS) & g.tables.ground & (t.utype != st.ARTILLERY))
        for _ in range(6):
            x = int(rng.choice(movers))
            path = [int(rng.choice(starts))]
            while len(path) < int(rng.integers(2, 7)):
                nxt = [int(o) for o in t.neighbours[path[-1]] if o >= 0 and t.land[o] and o not in path]
                if not nxt:
                    break
                path.append(int(rng.choice(nxt)))
            s.box[x], s.hex[x] = BOX_MAP, path[0]
            a, b = _copies(g)
            movement._enter(a, AXIS, [x], path[1:], "move_end", movement._side_hexes(a, ALLIED), x)
            for i, hh in enumerate(path[1:]):
                movement._enter(b, AXIS, [x], (hh,), "move_end" if i == len(path) - 2 else "move", None, x)
            _same_games(a, b, (trial, x, path))
            seen["moves"] += 1
            seen["events"] += len(a.events.rows) > len(g.events.rows)
            seen["overrun"] += int((a.state.box[g.on_map(ALLIED)] != BOX_MAP).any())
            g = a                                     # go on from the position reached
    assert seen["moves"] == 48 and seen["events"] > 5 and seen["overrun"] > 0, seen


@pytest.mark.parametrize("seed", [3, 4])
def test_one_hex_options_equal_plain_on_random_positions(seed):
    """The compiled one-hex move options (beach movement 18.7, rally 19.6)
    equal the plain neighbour checks (6.52, 6.53) and stacking (7.1), and
    :func:`invasion.can_enter` the plain check, for units of both sides on
    random crowded positions (levels at random)."""
    g = hercules_game(seed=seed, axis="balanced", allied="static")
    s, t = g.state, g.static
    gen = np.random.default_rng(seed)
    land = np.flatnonzero(t.land)
    spot = gen.choice(land, size=25)
    seen = 0
    for _ in range(6):
        on = gen.random(t.n_units) < 0.6
        s.box[:] = np.where(on, BOX_MAP, 5)
        s.hex[:] = np.where(on, gen.choice(spot, size=t.n_units), -1)
        s.level[:] = np.minimum(gen.integers(0, 3, size=t.n_units), np.maximum(t.n_levels - 1, 0))
        for x in np.flatnonzero(on & (t.utype != st.WARSHIP) & (t.utype != st.COASTAL_GUN))[::3].tolist():
            got = H.one_hex_options(g, x)
            assert got == ref.one_hex_options(g, x), x
            seen += len(got)
            for o in t.neighbours[s.hex[x]].tolist():
                assert H.can_enter(g, x, o) == ref.can_enter(g, x, o)
    assert seen > 0


def test_rule_6_53_one_hex_move_never_into_prohibited_terrain_unless_by_road():
    """The one-hex move (beach movement 18.7, rally 19.6) follows the normal
    entry rules (6.53): a hex whose terrain the Terrain Effects Chart
    prohibits to the unit's class (``P``, cost 99) is left out unless a road
    crosses the hexside; the other neighbours stay in.  No land hex of the
    map is prohibited to any class, so the compiled check is given a cost
    table with two neighbours of 0608 prohibited: the one across a plain
    hexside (direction 0) and the one across a road (direction 1)."""
    from malta_sim.iod.rules import one_hex_movement

    g = make({"0608": ["allied.uk.8m"]})
    s, t, tb = g.state, g.static, g.tables
    x, here = u("allied.uk.8m"), h("0608")
    cls = int(t.move_class[x])
    nbrs = [int(o) for o in t.neighbours[here]]
    assert not t.road[here, 0] and t.road[here, 1]
    assert ref.one_hex_options(g, x) == H.one_hex_options(g, x) == nbrs       # all six open

    def options(cost):
        return one_hex_movement.one_hex_kernel(
            x, here, cls, t.neighbours, t.land, t.ocean_side, t.road, t.rise, cost, s.hex, s.level,
            tb.side_mask[AXIS], t.harmless_in_hex, t.defense, tb.side_mask[ALLIED], tb.base_weight,
            tb.remnant_level_full).tolist()

    assert options(t.move_cost) == nbrs
    cost = t.move_cost.copy()
    cost[nbrs[0], cls] = cost[nbrs[1], cls] = st.PROHIBITED_MP
    assert options(cost) == nbrs[1:]                  # the road opens direction 1, not direction 0


class _StrategicProbe(RandomPolicy):
    """Records, at the first strategic movement call of a phase, the
    candidates offered and every candidate's strategic legal moves; moves
    nothing."""

    def __init__(self, side):
        super().__init__(side, {})
        self.offered = None

    def next_move(self, game, mode, candidates):
        if mode == "strategic" and self.offered is None:
            self.offered = (list(candidates), {x: game.legal_moves(x, mode) for x in candidates})
        return None


@pytest.mark.parametrize("seed", [51, 52])
def test_strategic_movement_offers_units_far_from_the_enemy(seed):
    """Rule 6.2: the strategic movement phase offers the side's movable units
    (leaders apart) that stand more than two hexes from enemy ground units,
    and each may move only through hexes its side controls that are more than
    two hexes from the enemy (legal moves as the plain reference finds them
    with those hexes); on random positions."""
    rng = np.random.default_rng(seed)
    seen = {"offered": 0, "moves": 0}
    for trial in range(12):
        g = random_position(rng, trial, policies=(_StrategicProbe(AXIS), _StrategicProbe(ALLIED)))
        s, t = g.state, g.static
        s.moved[:] = False
        s.control[t.land] = np.where(rng.random(int(t.land.sum())) < 0.7, AXIS, ALLIED)
        side = AXIS
        near = ref.within2_of_enemy(g, side)
        allowed = (s.control == side) & ~near & t.land
        want = [x for x in g.on_map(side).tolist() if movement.movable(g, x) and not near[s.hex[x]]
                and t.utype[x] != st.LEADER]
        movement.strategic_movement(g, side)
        offered = g.policy(side).offered
        if offered is None:
            assert not want
            continue
        cands, legal = offered
        assert cands == want
        for x in cands:
            assert legal[x] == ref.legal_moves(g, x, "strategic", strategic_hexes=allowed), x
            seen["moves"] += len(legal[x])
        seen["offered"] += len(cands)
    assert seen["offered"] > 10 and seen["moves"] > 10, seen


@pytest.mark.parametrize("mode", ["tactical", "strategic"])
def test_rule_6_1_reach_bound_covers_every_legal_destination(mode):
    """Rules 6.1-6.3, 6.53: :func:`movement.reach_bound` is an upper bound of
    the grid distance of every destination :func:`movement.legal_moves`
    offers, and -1 only for a unit that cannot move, on random positions of
    both sides (the bound lets a bot skip a legal-move query for a hex out
    of reach without changing its answer)."""
    rng = np.random.default_rng(6)
    dist = static().grid.distance_table
    checked, slack = 0, []
    for trial in range(6):
        g = random_position(rng, trial)
        g.state.turn[0] = 5                        # 30 June noon: day, no 17.7 hold-back
        for side in (AXIS, ALLIED):
            set_strategic_hexes(g, side, g.static.land.copy())     # 6.2: every land hex open to it
            for x in g.on_map(side).tolist():
                b = movement.reach_bound(g, x, mode)
                legal = movement.legal_moves(g, x, mode, hitch=True)
                if b < 0:
                    assert not legal
                    continue
                here = int(g.state.hex[x])
                far = max((int(dist[here, k]) for k in legal), default=0)
                assert far <= b, (trial, g.static.names[x], far, b)
                if legal and b < g.static.n_hexes:
                    checked += 1
                    slack.append(b - far)
    assert checked > 50                            # units that move, with a finite bound
    assert min(slack) <= 2                         # and the bound is near the reach for some
