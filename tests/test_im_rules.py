"""Invasion: Malta printed rules (2.4, 3.1-3.8, 5, 6, 8) as unit tests, with the
rulebook's worked examples (rule 8.22 ZOC example, rule 6.2 supply example)."""

import numpy as np
import pytest

from malta_sim.errors import OptionError
from malta_sim.games.invasion_malta import efficiency as ef
from malta_sim.games.invasion_malta import examples as ex
from malta_sim.games.invasion_malta import movement as mv
from malta_sim.games.invasion_malta import supply as sp
from malta_sim.games.invasion_malta import units as un
from malta_sim.games.invasion_malta import weather as we
from malta_sim.games.invasion_malta import zoc as zc
from malta_sim.games.invasion_malta.grid import IMGrid, distance
from malta_sim.rng import generator


def hexes(m, mask):
    return {m.hid(i) for i in np.flatnonzero(mask)}


class Faces:
    """Dice for a test: the d10 faces to come (0..9, a 0 read as ten, rule 2.4), in order."""

    def __init__(self, *faces):
        self.faces = list(faces)

    def integers(self, lo, hi=None, size=None):
        return self.faces.pop(0)


def _no_zoc_foot_gun(side="Allied"):
    """A coast-artillery-like unit: No ZOC band, plain (non-motorized) MA, no range."""
    return dict(id="CA", side=side, nat="B", steps=1, attack=0, defense=2, ma=2, er=5, no_zoc=True, stacking=1)


# --- 2.1 / 2.4 -------------------------------------------------------------------------------

def test_rule_2_1_grid_parity_from_zoc_example():
    g = IMGrid(10, 18, 20, 28)
    assert set(g.neighbours("1425")) >= {"1424", "1524"} and "1523" not in g.neighbours("1425")
    assert {"1523", "1524"} <= set(g.neighbours("1424"))
    assert distance("1424", "1524") == 1 and distance("1523", "1425") == 2


def test_rule_2_4_d10_zero_reads_ten():
    assert un.read_d10_face(0) == 10 and un.read_d10_face(7) == 7
    with pytest.raises(OptionError):
        un.read_d10_face(10)
    r = un.d10(generator(1, 0, "misc"), size=20000)
    assert r.min() == 1 and r.max() == 10 and not (r == 0).any()
    counts = np.bincount(r, minlength=11)[1:]
    # chi-square uniformity, false-alarm rate 0.001
    from scipy.stats import chisquare
    assert chisquare(counts).pvalue > 1e-3


# --- 3.1 control, 3.2 ZOC ------------------------------------------------------------------------

def test_rule_3_21_zoc_is_hex_and_six_neighbours():
    m, u, p = ex.zoc_example()
    z = zc.zoc_map(m, u, p, un.ALLIED)
    assert hexes(m, z) == {"1425", "1424", "1524", "1525", "1426", "1325", "1324"}


def test_rule_3_12_3_13_control_and_contested():
    m, u, p = ex.zoc_example()
    c = zc.control_map(m, u, p)
    assert c[m.idx("1424")] == un.AXIS  # occupied: controlled even in enemy ZOC (3.21)
    assert c[m.idx("1425")] == un.ALLIED
    assert c[m.idx("1524")] == zc.CONTESTED and c[m.idx("1324")] == zc.CONTESTED
    assert c[m.idx("1423")] == un.AXIS and c[m.idx("1426")] == un.ALLIED
    assert c[m.idx("1121")] == zc.NONE
    assert zc.contiguous(m, [m.idx("1424"), m.idx("1523"), m.idx("1524")])
    assert not zc.contiguous(m, [m.idx("1424"), m.idx("1525")])


def test_rule_3_22_3_25_zoc_not_into_fort_nor_across_cliff_or_sea():
    sides = [dict(hex_a="1425", hex_b="1426", feature="cliff")]
    m = ex.block_map(hexsides=sides, fort=["1524"], land=[h for h in IMGrid(*ex.EXAMPLE_GRID).hex_ids if h != "1325"])
    u = ex.example_units()
    p = ex.place(m, u, {"B/3 KOMR": "1425"})
    z = hexes(m, zc.zoc_map(m, u, p, un.ALLIED))
    assert "1524" not in z  # fort, even unoccupied (3.25 note)
    assert "1426" not in z  # cliff (3.22, 8.35)
    assert "1325" not in z  # sea hex
    # ZOC still extends out of a fort
    p2 = ex.place(m, u, {"B/3 KOMR": "1524"})
    assert "1523" in hexes(m, zc.zoc_map(m, u, p2, un.ALLIED))
    # commandos project across the cliff, unless Disrupted (3.83)
    p3 = ex.place(m, u, {"Cdo": "1425"})
    assert "1426" in hexes(m, zc.zoc_map(m, u, p3, un.ALLIED))
    p3.disrupted[u.index("Cdo")] = True
    assert "1426" not in hexes(m, zc.zoc_map(m, u, p3, un.ALLIED))


def test_rule_3_22_red_box_projects_along_road_only():
    sides = [dict(hex_a="1425", hex_b="1426", feature="road_minor")]
    m = ex.block_map(hexsides=sides)
    u = ex.example_units()
    p = ex.place(m, u, {"Matilda": "1425"})
    assert hexes(m, zc.zoc_map(m, u, p, un.ALLIED)) == {"1425", "1426"}
    # and into urban or airfield hexes, which it may enter off-road (8.33)
    m2 = ex.block_map(hexsides=sides, urban=["1424"], airfield=["1524"])
    assert hexes(m2, zc.zoc_map(m2, u, ex.place(m2, u, {"Matilda": "1425"}), un.ALLIED)) == {"1425", "1426", "1424", "1524"}


def test_rule_3_24_limited_zoc_and_3_34_overstacked():
    m = ex.block_map()
    u = ex.example_units()
    gun, inf = u.index("25pdr"), u.index("B/3 KOMR")
    p = ex.place(m, u, {"25pdr": "1425"})
    assert hexes(m, zc.zoc_map(m, u, p, un.ALLIED)) == {"1425"}
    p.hex[inf] = m.idx("1425")
    assert len(hexes(m, zc.zoc_map(m, u, p, un.ALLIED))) == 7
    p.overstacked[inf] = True  # over-stacked units exert no ZOC, and do not lend it (3.24, 3.34)
    assert hexes(m, zc.zoc_map(m, u, p, un.ALLIED)) == {"1425"}


def test_rule_3_24_stack_zoc_is_the_union_of_what_its_units_project():
    """A road-bound tank (3.22 note) lends ZOC to a No-ZOC foot unit in its hex, which then
    projects into all six neighbours: the stack's ZOC is the union, not the tank's road hex only."""
    m = ex.block_map(hexsides=[dict(hex_a="1425", hex_b="1426", feature="road_minor")])
    rows = [dict(id="Matilda", side="Allied", nat="B", steps=2, attack=6, defense=5, ma=6, er=6, ma_class="red",
                 armored=True, stacking=2),
            dict(id="25pdr", side="Allied", nat="B", steps=1, defense=2, ma=4, er=6, ma_class="orange", range=6,
                 no_zoc=True, stacking=1),
            _no_zoc_foot_gun()]
    u = un.make_units(rows)
    all7 = {"1425", "1424", "1524", "1525", "1426", "1325", "1324"}
    assert hexes(m, zc.zoc_map(m, u, ex.place(m, u, {"CA": "1425"}), un.ALLIED)) == {"1425"}
    assert hexes(m, zc.zoc_map(m, u, ex.place(m, u, {"Matilda": "1425"}), un.ALLIED)) == {"1425", "1426"}
    p = ex.place(m, u, {"Matilda": "1425", "CA": "1425"})
    assert hexes(m, zc.zoc_map(m, u, p, un.ALLIED)) == all7
    # a motorized No-ZOC gun gets ZOC from the tank but, like it, only along the road (3.22)
    p2 = ex.place(m, u, {"Matilda": "1425", "25pdr": "1425"})
    assert hexes(m, zc.zoc_map(m, u, p2, un.ALLIED)) == {"1425", "1426"}
    # an over-stacked tank lends nothing (3.24 bracket, 3.34)
    p.overstacked[u.index("Matilda")] = True
    assert hexes(m, zc.zoc_map(m, u, p, un.ALLIED)) == {"1425"}
    # for Supply Routes a Disrupted tank's own ZOC is ignored (6.23), but the foot unit it
    # enables is not Disrupted and still closes its six hexes
    p.overstacked[:] = False
    p.disrupted[u.index("Matilda")] = True
    assert hexes(m, zc.zoc_map(m, u, p, un.ALLIED, skip_disrupted=True)) == all7
    p.disrupted[u.index("CA")] = True
    assert hexes(m, zc.zoc_map(m, u, p, un.ALLIED, skip_disrupted=True)) == set()
    assert hexes(m, zc.zoc_map(m, u, p, un.ALLIED)) == all7  # Disrupted units keep their ZOC otherwise (3.2)
    # hex by hex: a lone No-ZOC unit elsewhere borrows nothing from this stack
    p.disrupted[:] = False
    p.hex[u.index("25pdr")] = m.idx("1122")
    assert hexes(m, zc.zoc_map(m, u, p, un.ALLIED)) == all7 | {"1122"}
    p.hex[u.index("CA")] = m.idx("1121")
    assert hexes(m, zc.zoc_map(m, u, p, un.ALLIED)) == {"1425", "1426", "1122", "1121"}
    # and the stack's ZOC stops movement in all six hexes (8.22): an Axis unit entering 1424 stops
    ax = un.make_units(rows + [dict(id="5/3", side="Axis", nat="G", formation="St", steps=2, ma=4, er=8)])
    q = ex.place(m, ax, {"Matilda": "1425", "CA": "1425", "5/3": "1423"})
    c = mv.reach(m, ax, q, [ax.index("5/3")])
    assert c[m.idx("1424")] == 4 and c[m.idx("1524")] == 6  # 1 MP + 1 MP ZOC; 1524 only via 1523


# --- 3.3 stacking, 3.4 steps, 3.5 halving, 3.6 classes -------------------------------------------

def _stack_units():
    rows = [dict(id=f"u{k}", side="Allied", steps=2, attack=3, defense=d, ma=4, er=6, stacking=s)
            for k, (s, d) in enumerate([(3, 6), (3, 5), (2, 4), (2, 3), (0, 1), (1, 2)])]
    rows.append(dict(id="tk1", side="Allied", steps=2, attack=5, defense=5, ma=6, er=6, ma_class="red", armored=True, stacking=2))
    rows.append(dict(id="tk2", side="Allied", steps=2, attack=5, defense=5, ma=6, er=6, ma_class="red", armored=True, stacking=2))
    return un.make_units(rows)


def test_rule_3_32_3_34_excess_stacking():
    m = ex.block_map()
    u = _stack_units()
    p = un.Position.fresh(u, m.n)
    h = m.idx("1424")
    p.hex[:6] = h  # 3+3+2+2+0+1 = 11 points
    assert un.stack_points(u, p, h) == 11
    over = un.designate_excess(u, p, h)
    # keep by defense: 3 (d6) + 3 (d5) + 2 (d4) = 8, u3 (2 pts) would exceed; u5 (1 pt) fills; zero-point u4 never over
    assert [u.ids[k] for k in over] == ["u3"]
    assert un.stack_points(u, p, h, include_overstacked=False) == 9
    p.hex[u.index("u3")] = -1
    assert len(un.end_phase_stacking(u, p)) == 0 and not p.overstacked.any()  # marker removed (3.34)


def test_rule_3_33_one_armored_unit_per_hex():
    m = ex.block_map()
    u = _stack_units()
    p = un.Position.fresh(u, m.n)
    p.hex[u.index("tk1")] = m.idx("1424")
    p.hex[u.index("tk2")] = m.idx("1423")
    assert not un.armored_conflict(u, p, m.idx("1424"))
    c = mv.reach(m, u, p, [u.index("tk2")], mv.MoveContext(night=True))
    assert c[m.idx("1424")] >= mv.INF


def test_rule_3_41_3_42_steps():
    u = ex.example_units()
    p = un.Position.fresh(u)
    k = u.index("5/3")
    assert un.side_index(p, k) == 1
    assert not un.lose_step(u, p, k) and un.side_index(p, k) == 0
    assert un.lose_step(u, p, k) and p.hex[k] == -1
    with pytest.raises(OptionError):
        un.lose_step(u, p, k)
    bad = un.make_units([dict(id="gun", range=5, steps=2), dict(id="hq", hq=True, steps=1)])
    assert un.check_steps(bad) == ["gun"]


def test_rule_3_5_halving_and_rounding():
    assert un.halved_total([3, 4, 5], [True, True, False]) == 3 + 5  # (3+4)//2 = 3
    assert un.halved_total([1], [True]) == 0 and not un.can_attack(0)  # 3.53
    with pytest.raises(OptionError):
        un.halved_total([4], [True], kind="defense")  # 3.51
    assert ef.disrupted_ma(5) == 2


def test_rule_3_6_movement_classes():
    u = ex.example_units()
    assert un.movement_class(u, u.index("5/3")) == "non-motorized"
    assert un.movement_class(u, u.index("25pdr")) == "orange-circle"
    assert un.movement_class(u, u.index("Matilda")) == "red-box"
    assert list(u.motorized) == [False, False, False, False, True, True]
    assert not un.may_retreat_or_advance(u, u.index("25pdr")) and un.may_retreat_or_advance(u, u.index("Matilda"))


# --- 3.7 ER and lead units, 3.8 disruption ------------------------------------------------------

def test_rule_3_71_er_pass_probabilities():
    assert ef.er_pass_probability(6) == 0.6
    assert ef.er_pass_probability(6, drm=2) == 0.4
    assert ef.er_pass_probability(6, drm=-5) == 1.0 and ef.er_pass_probability(1, drm=1) == 0.0
    rng = generator(3, 0, "misc")
    n = 5000
    passes = sum(ef.er_check(6, rng, 1)[0] for _ in range(n))
    from scipy.stats import binomtest
    assert binomtest(passes, n, 0.5).pvalue > 1e-3  # false-alarm rate 0.001


def test_rule_3_72_3_75_lead_unit_and_current_er():
    u = ex.example_units()
    p = un.Position.fresh(u)
    para, inf = u.index("5/3"), u.index("II/104")
    assert ef.current_er(u, p, para) == 8
    p.disrupted[para] = True
    p.oos[para] = True
    assert ef.current_er(u, p, para) == 5  # -2 disrupted, -1 OoS (3.75, 6.15)
    p2 = un.Position.fresh(un.make_units([dict(id="x", er=2, steps=1)]))
    p2.disrupted[0] = p2.oos[0] = True
    assert ef.current_er(un.make_units([dict(id="x", er=2, steps=1)]), p2, 0) == 1  # never below 1
    c = ef.lead_candidates(u, p, [para, inf])
    assert ef.choose_lead(u, p, c) == inf  # best current ER: 7 > 5
    assert ef.choose_lead(u, p, c, lead=para) == para  # need not choose the best (3.73)
    p.overstacked[inf] = True
    assert ef.lead_candidates(u, p, [para, inf]) == [para]  # over-stacked never lead
    assert ef.lead_candidates(u, p, [para, inf], active_formation="St") == [para]  # 3.74
    with pytest.raises(OptionError):
        ef.choose_lead(u, p, [])


def test_rule_3_84_disruption_of_already_disrupted():
    m = ex.block_map()
    u = ex.example_units()
    p = ex.place(m, u, {"5/3": "1424", "II/104": "1424"})
    para, inf = u.index("5/3"), u.index("II/104")
    h = m.idx("1424")
    r = ef.apply_disruption(u, p, h, generator(1, 0, "misc"))
    assert r["roll"] is None and p.disrupted[[para, inf]].all()  # first result: no check
    # second result: group check, lead among previously disrupted; find a seed that fails
    for s in range(200):
        q = p.copy()
        r = ef.apply_disruption(u, q, h, generator(s, 0, "misc"))
        if not r["passed"]:
            break
    assert r["roll"] + 0 > ef.current_er(u, q, r["lead"]) or q.steps[r["step_lost"]] >= 0
    assert r["step_lost"] is not None and q.disrupted[[para, inf]].all()
    assert int(q.steps.sum()) == int(p.steps.sum()) - 1
    # newly disrupted units do not check and cannot be the lead
    q2 = ex.place(m, u, {"5/3": "1424", "II/104": "1424"})
    q2.disrupted[para] = True
    with pytest.raises(OptionError):
        ef.apply_disruption(u, q2, h, generator(1, 0, "misc"), lead=inf)
    r2 = ef.apply_disruption(u, q2, h, generator(1, 0, "misc"))
    assert r2["checked"] == [para] and r2["newly"] == [inf] and r2["lead"] == para


def _disrupted_pair(m, h="1424"):
    """Two previously Disrupted two-step Axis units in one hex: 'hi' (ER 9, current 7) and 'lo' (ER 6, current 4)."""
    rows = [dict(id="hi", side="Axis", nat="G", formation="St", steps=2, attack=4, defense=6, er=9, er_r=8, stacking=3),
            dict(id="lo", side="Axis", nat="G", formation="St", steps=2, attack=4, defense=3, er=6, er_r=5, stacking=3)]
    u = un.make_units(rows)
    p = ex.place(m, u, {"hi": h, "lo": h})
    p.disrupted[:] = True
    return u, p


def test_rule_3_73_explicit_lead_cannot_be_overstacked():
    m = ex.block_map()
    u, p = _disrupted_pair(m)
    hi, lo = u.index("hi"), u.index("lo")
    p.overstacked[hi] = True
    with pytest.raises(OptionError, match="3.73"):
        ef.apply_disruption(u, p, m.idx("1424"), Faces(1), lead=hi)
    assert p.steps.tolist() == [2, 2]  # refused before any roll or loss
    r = ef.apply_disruption(u, p, m.idx("1424"), Faces(5), lead=lo)  # 5 > current ER 4: fails
    assert r["lead"] == lo and r["passed"] is False
    # the default never picks the over-stacked unit either, though its ER is the better one
    r = ef.apply_disruption(u, p, m.idx("1424"), Faces(3))
    assert r["lead"] == lo
    # when every previously Disrupted unit is over-stacked, one of them must still lead (3.84)
    p.overstacked[lo] = True
    assert ef.apply_disruption(u, p, m.idx("1424"), Faces(1), lead=lo)["lead"] == lo


def test_rule_3_84_owner_chooses_which_unit_loses_the_step():
    """Reading recorded in docs/invasion_malta.md: on a failed 3.84 check the owner picks
    the unit that loses the step (3.84 'owner's choice of unit'), overriding 3.74's Lead
    takes the first step.  The default choice spares the Lead; the owner may name it."""
    m = ex.block_map()
    u, p = _disrupted_pair(m)
    hi, lo = u.index("hi"), u.index("lo")
    r = ef.apply_disruption(u, p, m.idx("1424"), Faces(8))  # 8 > current ER 7 of the Lead: fails
    assert r["lead"] == hi and r["passed"] is False
    assert r["step_lost"] == lo and p.steps[hi] == 2 and p.steps[lo] == 1
    assert p.disrupted.all()  # the group stays Disrupted
    u, p = _disrupted_pair(m)
    r = ef.apply_disruption(u, p, m.idx("1424"), Faces(8), loss_choice=lambda units, pos, group, lead: lead)
    assert r["step_lost"] == hi and p.steps[hi] == 1 and p.steps[lo] == 2
    # default choice among the others: a full two-step unit flips before a reduced one is
    # eliminated, even with the higher defense; the Lead only when it is alone
    u, p = _disrupted_pair(m)
    p.steps[lo] = 1
    assert ef.default_loss_choice(u, p, [hi, lo], hi) == lo
    assert ef.default_loss_choice(u, p, [hi, lo], lo) == hi
    assert ef.default_loss_choice(u, p, [hi], hi) == hi
    p.steps[lo] = 2
    assert ef.default_loss_choice(u, p, [hi, lo], hi) == lo
    p.steps[hi] = 2
    three = un.make_units([dict(id="a", side="Axis", steps=2, defense=9), dict(id="b", side="Axis", steps=2, defense=1),
                           dict(id="c", side="Axis", steps=2, defense=5)])
    q = ex.place(m, three, {"a": "1424", "b": "1424", "c": "1424"})
    q.steps[1] = 1
    assert ef.default_loss_choice(three, q, [0, 1, 2], 0) == 2  # c flips (two steps) before b is eliminated
    q.steps[1] = 2
    assert ef.default_loss_choice(three, q, [0, 1, 2], 0) == 1  # then the lowest defense
    # a pass costs nothing
    u, p = _disrupted_pair(m)
    r = ef.apply_disruption(u, p, m.idx("1424"), Faces(7))
    assert r["passed"] is True and r["step_lost"] is None and p.steps.tolist() == [2, 2]


def test_rule_3_84_one_check_per_hex_for_attackers_in_several_hexes():
    """Reading recorded in docs/invasion_malta.md: 3.84 checks the previously Disrupted units
    'in that hex', so attackers Disrupted together from several hexes check hex by hex, each
    with a Lead from its own hex."""
    from types import SimpleNamespace

    from malta_sim.games.invasion_malta.components import ReconstructedComponents

    m = ex.block_map()
    rows = [dict(id="X", side="Axis", nat="G", formation="St", steps=2, attack=2, defense=4, er=10, er_r=10, stacking=3),
            dict(id="Y", side="Axis", nat="G", formation="St", steps=2, attack=2, defense=4, er=3, er_r=3, stacking=3),
            dict(id="D", side="Allied", nat="B", steps=2, attack=2, defense=4, er=5, stacking=3)]
    u = un.make_units(rows)
    x, y = u.index("X"), u.index("Y")

    def position():
        p = ex.place(m, u, {"X": "1423", "Y": "1425", "D": "1424"})
        p.disrupted[[x, y]] = True  # current ER: X 8, Y 1
        return p

    # the reconstructed combat: 2 (halved, Disrupted) vs 4 is 1:2, a 1 is 'attacker loses':
    # the Lead X takes the first step (3.74), then each attacking hex checks (3.84)
    p = position()
    game = SimpleNamespace(map=m, units=u, pos=p, mark=lambda k, h: None)
    r = ReconstructedComponents().combat(game, [x, y], m.idx("1424"), 0, Faces(1, 5, 5))
    assert r["result"] == "attacker loses" and r["column"] == 0
    assert p.steps[x] == 1 and p.steps[y] == 1  # one check for both hexes, led by X, would spare Y
    # the rule itself, for any Disruption result on units in several hexes
    p = position()
    res = ef.disrupt_by_hex(u, p, [x, y], Faces(5, 5))
    assert [(m.hid(r["hex"]), r["lead"], r["passed"]) for r in res] == [("1423", x, True), ("1425", y, False)]
    assert p.steps[x] == 2 and p.steps[y] == 1


def test_rule_3_84_recovery_with_italian_exception():
    m = ex.block_map()
    rows = [dict(id="it", side="Axis", nat="I", formation="L", er=10, steps=2),
            dict(id="de", side="Axis", nat="G", formation="St", er=1, steps=2),
            dict(id="dz", side="Axis", nat="G", formation="St", er=3, steps=2),
            dict(id="al", side="Allied", nat="B", er=5, steps=2)]
    u = un.make_units(rows)
    p = un.Position.fresh(u, m.n)
    p.hex[:] = [m.idx("1121"), m.idx("1321"), m.idx("1624"), m.idx("1625")]
    p.disrupted[:3] = True
    zoc = lambda s: zc.zoc_map(m, u, p, 1 - s)  # noqa: E731
    r = ef.recovery(u, p, zoc, generator(5, 0, "misc"))
    assert r["auto"] == [1]  # German out of enemy ZOC: automatic
    checked = [c[0] for c in r["checks"]]
    assert checked == [0, 2]  # the Italian (anywhere) and the unit in enemy ZOC roll
    it_roll = r["checks"][0][1]
    assert r["checks"][0][2] == (it_roll <= 8)  # lowered ER 10 - 2 = 8
    assert p.disrupted[0] == (it_roll > 8)


# --- 5 weather -----------------------------------------------------------------------------------

def test_rule_5_weather_table_and_effects():
    tab = we.load_weather_table()
    pr = we.weather_probabilities(tab)
    assert abs(sum(pr.values()) - 1) < 1e-12
    assert we.roll_weather(tab, generator(1, 0, "weather"), turn=1) == ("good", None)  # 7.12
    assert we.roll_weather(tab, generator(1, 0, "weather"), turn=4, always_good=True)[0] == "good"  # 5.13
    w, r = we.roll_weather(tab, generator(1, 0, "weather"), turn=4)
    assert 1 <= r <= 10 and w == we.WEATHER[tab[r]]
    assert not we.allowed("paradrop", "windy") and we.allowed("naval_transport", "windy")
    assert not we.allowed("naval_transport", "storm") and not we.allowed("amphibious", "storm")
    assert not we.allowed("air_mission", "storm") and not we.allowed("air_mission", "good", night=True)


# --- 6 supply ------------------------------------------------------------------------------------

def test_rule_6_2_supply_example_paratroop_and_beachhead():
    m, u, p = ex.supply_example()
    para = u.index("5/3")
    assert sp.supplied_units(m, u, p)[para]  # airhead 1623 or around the KOMR to 1225
    # only the Airhead: still supplied (paratroop)
    p.beachheads.clear()
    assert sp.supplied_units(m, u, p)[para]
    # a non-paratroop unit cannot use an Airhead off an airfield (6.31)
    p.paradropped[para] = False
    assert not sp.supplied_units(m, u, p)[para]
    # ... but traces around B/3 KOMR and its ZOC to the Beachhead in 1225
    p.beachheads.add(m.idx("1225"))
    assert sp.supplied_units(m, u, p)[para]


def test_rule_6_2_supply_example_disrupted_zoc_and_cliff():
    # only the hexes of the direct route exist: 1524-1424-1324-1225, KOMR in 1425
    land = ["1524", "1424", "1324", "1225", "1425"]
    sides = [dict(hex_a="1324", hex_b="1225", feature="cliff")]
    u = ex.example_units()
    para, komr = u.index("5/3"), u.index("B/3 KOMR")
    for cliff, disrupted, expect in [(True, True, False), (False, True, True), (False, False, False)]:
        m = ex.block_map(land=land, hexsides=sides if cliff else [])
        p = ex.place(m, u, {"5/3": "1524", "B/3 KOMR": "1425"})
        p.beachheads.add(m.idx("1225"))
        p.disrupted[komr] = disrupted
        assert sp.supplied_units(m, u, p)[para] == expect, (cliff, disrupted)


def test_rule_6_12_6_13_out_of_supply_only_at_night():
    m, u, p = ex.supply_example()
    para = u.index("5/3")
    p.beachheads.clear()
    p.airheads.clear()
    assert sp.supply_status_phase(m, u, p, night=False)["marked"] == [] and not p.oos[para]
    assert sp.supply_status_phase(m, u, p, night=True)["marked"] == [para] and p.oos[para]
    assert p.oos[para]  # stays
    p.beachheads.add(m.idx("1225"))
    assert sp.supply_status_phase(m, u, p, night=False)["cleared"] == [para] and not p.oos[para]
    # off-map units and Allied units are always supplied (6.0, 6.14)
    p.hex[para] = -1
    assert sp.supplied_units(m, u, p).all()


def test_rule_6_22_enemy_fort_blocks_and_6_32_markers():
    land = ["1524", "1424", "1324", "1225"]
    m = ex.block_map(land=land, fort=["1324"], airfield=["1424"])
    u = ex.example_units()
    p = ex.place(m, u, {"5/3": "1524"})
    p.beachheads.add(m.idx("1225"))
    p.hex_owner[m.idx("1324")] = un.ALLIED
    assert not sp.supplied_units(m, u, p)[u.index("5/3")]
    p.hex_owner[m.idx("1324")] = un.AXIS
    assert sp.supplied_units(m, u, p)[u.index("5/3")]
    ctrl = zc.control_map(m, u, p) == un.AXIS
    sp.recovery_markers(m, u, p, ctrl)
    assert p.airheads == {m.idx("1424"): "G"}
    p.hex[u.index("B/3 KOMR")] = m.idx("1225")
    sp.recovery_markers(m, u, p, ctrl)
    assert m.idx("1225") not in p.beachheads


def test_rule_6_31_airhead_on_an_airfield_removes_off_airfield_airheads():
    """Two land areas with no land route between them: a paradropped German unit traces only
    to its Airhead in the east.  Once the Recovery Phase puts an Airhead on the airfield in the
    west (6.32), the German Airheads off airfields leave the map (6.31) and the unit is cut off;
    the Italian one stays."""
    west = ["1121", "1122", "1221"]
    east = ["1623", "1624", "1723"]
    m = ex.block_map(land=west + east, airfield=["1121"])
    u = ex.example_units()
    para, inf = u.index("5/3"), u.index("II/104")
    p = ex.place(m, u, {"5/3": "1624", "II/104": "1121"})
    p.paradropped[para] = True
    p.airheads = {m.idx("1623"): "G", m.idx("1723"): "I"}
    assert sp.supplied_units(m, u, p)[para]
    sp.recovery_markers(m, u, p, zc.control_map(m, u, p) == un.AXIS)
    assert p.airheads == {m.idx("1121"): "G", m.idx("1723"): "I"}
    assert not sp.supplied_units(m, u, p)[para] and sp.supplied_units(m, u, p)[inf]
    # an Airhead put on a hex that is not an airfield removes nothing
    assert sp.place_airhead(m, p, m.idx("1624"), "G") == [] and m.idx("1121") in p.airheads
    # a second airfield Airhead removes the off-airfield ones again, and keeps the other airfield's
    m2 = ex.block_map(land=west + east, airfield=["1121", "1723"])
    assert sp.place_airhead(m2, p, m2.idx("1723"), "G") == [m2.idx("1624")]
    assert p.airheads == {m2.idx("1121"): "G", m2.idx("1723"): "G"}


def test_rule_6_23_supply_map_agrees_with_a_unit_standing_in_each_hex():
    """The supply map marks a hex Supplied exactly when an Axis unit standing there could
    trace a Supply Route: a Beachhead in an enemy ZOC is Supplied for the unit on it (6.23)."""
    m = ex.block_map()
    u = ex.example_units()
    komr, para = u.index("B/3 KOMR"), u.index("5/3")
    p = ex.place(m, u, {"B/3 KOMR": "1425"})
    p.beachheads.add(m.idx("1424"))  # in the KOMR's ZOC
    p.airheads[m.idx("1121")] = "G"
    for paradropped in (False, True):
        smap = sp.supply_map(m, u, p, "G", paradropped)
        assert smap[m.idx("1424")]
        for h in np.flatnonzero(m.land):
            q = p.copy()
            q.hex[para] = h
            q.paradropped[para] = paradropped
            expect = bool(sp.supplied_units(m, u, q)[para]) if h != q.hex[komr] else False
            assert smap[h] == expect, (m.hid(h), paradropped)
    # the analysis map that `malta-sim im supply` prints says the same
    from malta_sim.games.invasion_malta.analysis import supply_status_map
    out = supply_status_map(m, u, p)
    assert "1424" in out["supplied"] and "1424" not in out["out_of_supply"]


# --- 8 movement ------------------------------------------------------------------------------------

def test_rule_8_22_zoc_example():
    m, u, p = ex.zoc_example()
    para = u.index("5/3")
    c = mv.reach(m, u, p, [para])
    # 1424 -> 1524 direct is barred (8.24); via 1523 (1 MP) then 1524 (1 + 1 ZOC) = 3 MP
    assert c[m.idx("1523")] == 2 and c[m.idx("1524")] == 6
    # after entering the ZOC hex 1524 the unit stops: 1625 is beyond
    assert c[m.idx("1625")] < mv.INF  # reached via 1624, not through 1524
    # a red-box unit may go directly (exception in the example, 8.23)
    rows = [dict(id="tank", side="Axis", nat="G", formation="", army=True, steps=2, attack=6, defense=5, ma=4,
                 er=7, ma_class="red", armored=True, stacking=2),
            dict(id="B/3 KOMR", side="Allied", steps=1, attack=2, defense=3, ma=3, er=5)]
    u2 = un.make_units(rows)
    m2 = ex.block_map(urban=list(IMGrid(*ex.EXAMPLE_GRID).hex_ids))  # urban everywhere so the tank can move
    p2 = ex.place(m2, u2, {"tank": "1424", "B/3 KOMR": "1425"})
    c2 = mv.reach(m2, u2, p2, [0])
    assert c2[m2.idx("1524")] == 1 + 2  # urban-to-urban road rate 1/2 MP + 1 MP ZOC
    assert c2[m2.idx("1525")] == 6  # continues through vacant ZOC hexes paying 1 MP each


def _corridor(**flags):
    """Four land hexes: 1422 - 1423 - 1523 is the only way east, and an Allied unit in 1323
    puts 1423, and no other hex of the way, in its ZOC."""
    m = ex.block_map(land=["1422", "1423", "1523", "1323"], **flags)
    assert {m.hid(j) for j in m.nbr[m.idx("1323")] if j >= 0 and m.land[j]} == {"1423"}
    return m


def test_rule_8_22_unit_stops_on_entering_an_enemy_zoc():
    m = _corridor()
    u = ex.example_units()
    para = u.index("5/3")  # MA 4
    p = ex.place(m, u, {"5/3": "1422", "B/3 KOMR": "1323"})
    c = mv.reach(m, u, p, [para])
    assert c[m.idx("1423")] == 4  # 1 MP + 1 MP for the ZOC (8.21)
    assert c[m.idx("1523")] >= mv.INF  # 1 MP more would do, but the unit stopped in 1423
    p.hex[u.index("B/3 KOMR")] = -1
    assert mv.reach(m, u, p, [para])[m.idx("1523")] == 4  # no ZOC: straight through


def test_rule_8_23_red_box_unit_continues_through_vacant_zoc_hexes():
    m = _corridor(urban=["1422", "1423", "1523", "1323"])  # urban to urban: road rate, so the tank may move
    rows = [dict(id="tank", side="Axis", nat="G", formation="", army=True, steps=2, attack=6, defense=5, ma=4,
                 er=7, ma_class="red", armored=True, stacking=2),
            dict(id="inf", side="Axis", nat="G", formation="St", steps=2, attack=4, defense=4, ma=4, er=7, stacking=2),
            dict(id="KOMR", side="Allied", nat="B", steps=1, attack=2, defense=3, ma=3, er=5, stacking=1)]
    u = un.make_units(rows)
    tank = u.index("tank")
    p = ex.place(m, u, {"tank": "1422", "KOMR": "1323"})
    c = mv.reach(m, u, p, [tank])
    assert c[m.idx("1423")] == 3  # 1/2 MP + 1 MP for the ZOC
    assert c[m.idx("1523")] == 4  # and on through the ZOC hex
    assert mv.reach(m, u, p, [tank], ma_hmp=3)[m.idx("1523")] >= mv.INF  # the ZOC MP is paid in full
    # only through vacant hexes: with a friend in 1423 the tank stops there (8.22)
    p.hex[u.index("inf")] = m.idx("1423")
    c = mv.reach(m, u, p, [tank])
    assert c[m.idx("1423")] == 3 and c[m.idx("1523")] >= mv.INF
    # a foot unit in the tank's place stops in the ZOC hex
    p.hex[u.index("inf")] = m.idx("1422")
    p.hex[tank] = -1
    assert mv.reach(m, u, p, [u.index("inf")])[m.idx("1523")] >= mv.INF


def test_rule_8_12_stack_lowest_ma_and_8_15_zero_ma():
    m = ex.block_map()
    u = ex.example_units()
    p = ex.place(m, u, {"B/3 KOMR": "1121", "Cdo": "1121", "5/3": "1721"})
    c = mv.reach(m, u, p, [u.index("B/3 KOMR"), u.index("Cdo")])
    assert c[c < mv.INF].max() == 6  # 3 MP (lowest MA)
    c1 = mv.reach(m, u, p, [u.index("Cdo")])
    assert c1[c1 < mv.INF].max() == 10
    assert (mv.reach(m, u, p, [u.index("5/3")], ma_hmp=0) < mv.INF).sum() == 1
    with pytest.raises(OptionError):
        mv.reach(m, u, ex.place(m, u, {"B/3 KOMR": "1121", "Cdo": "1122"}), [u.index("B/3 KOMR"), u.index("Cdo")])
    with pytest.raises(OptionError):
        mv.reach(m, u, p, [u.index("5/3"), u.index("Cdo")])


def test_rule_8_14_no_entry_into_enemy_hex():
    """A lone No-ZOC gun leaves its neighbours free, so an Axis unit next to it could afford to
    enter its hex (1 MP + 1 MP ZOC of the hex itself): only 8.14 keeps it out.  Friendly
    hexes cost nothing extra."""
    m = ex.block_map()
    u = ex.example_units()
    p = ex.place(m, u, {"5/3": "1424", "25pdr": "1425", "II/104": "1423"})
    c = mv.reach(m, u, p, [u.index("5/3")])
    assert c[m.idx("1425")] >= mv.INF
    assert c[m.idx("1423")] == 2 and c[m.idx("1524")] == 2 and c[m.idx("1525")] == 4  # around the gun
    p.hex[u.index("25pdr")] = -1
    assert mv.reach(m, u, p, [u.index("5/3")])[m.idx("1425")] == 2  # the same hex, empty


def test_rule_8_25_artillery_enters_enemy_zoc_only_with_a_friend_there():
    """An Axis foot gun (Axis artillery moves any time, 8.41) two hexes from the Allied ZOC:
    an infantry unit with the same MA gets into 1424, the gun only when a friend holds it."""
    m = ex.block_map()
    rows = [dict(id="gun", side="Axis", nat="G", formation="St", steps=1, attack=0, defense=2, ma=4, er=7, range=4,
                 no_zoc=True, stacking=1),
            dict(id="inf", side="Axis", nat="G", formation="St", steps=2, attack=4, defense=4, ma=4, er=7, stacking=2),
            dict(id="pal", side="Axis", nat="G", formation="St", steps=2, attack=4, defense=4, ma=4, er=7, stacking=2),
            dict(id="KOMR", side="Allied", nat="B", steps=1, attack=2, defense=3, ma=3, er=5, stacking=1)]
    u = un.make_units(rows)
    p = ex.place(m, u, {"gun": "1422", "inf": "1422", "KOMR": "1425"})
    assert mv.reach(m, u, p, [u.index("inf")])[m.idx("1424")] == 6  # 1 + 1 + 1 ZOC
    cg = mv.reach(m, u, p, [u.index("gun")])
    assert cg[m.idx("1423")] == 2 and cg[m.idx("1424")] >= mv.INF and cg[m.idx("1324")] >= mv.INF
    p.hex[u.index("pal")] = m.idx("1424")
    cg = mv.reach(m, u, p, [u.index("gun")])
    assert cg[m.idx("1424")] == 6 and cg[m.idx("1324")] >= mv.INF  # only the hex with the friend
    # a stack holding a gun obeys it too (8.12: the stack crosses only what every unit may)
    p.hex[u.index("pal")] = -1
    assert mv.reach(m, u, p, [u.index("gun"), u.index("inf")])[m.idx("1424")] >= mv.INF


def test_rule_8_31_8_36_terrain_slope_cliff():
    sides = [dict(hex_a="1323", hex_b="1423", feature="slope", high="1423"),
             dict(hex_a="1322", hex_b="1422", feature="cliff")]
    m = ex.block_map(hexsides=sides, rough=["1324"])
    u = ex.example_units()
    p = ex.place(m, u, {"II/104": "1323"})
    k = u.index("II/104")
    c = mv.reach(m, u, p, [k])
    assert c[m.idx("1324")] == 4  # rough 2 MP (8.31 example)
    assert c[m.idx("1423")] == 4  # clear 1 + slope up 1 (8.36)
    p.hex[k] = m.idx("1423")
    assert mv.reach(m, u, p, [k])[m.idx("1323")] == 2  # down slope costs nothing extra
    p.hex[k] = m.idx("1322")
    assert mv.reach(m, u, p, [k])[m.idx("1422")] > 2  # cliff: must go round (8.35)
    p.hex[u.index("Cdo")] = m.idx("1322")
    assert mv.reach(m, u, p, [u.index("Cdo")])[m.idx("1422")] == 2  # commandos cross cliffs (17.31)


def test_rule_8_33_roads_axis_allied_day_night_storm_and_motorized():
    g = IMGrid(*ex.EXAMPLE_GRID)
    road = [("1121", "1122"), ("1122", "1123"), ("1123", "1124"), ("1124", "1125")]
    sides = [dict(hex_a=a, hex_b=b, feature="road_minor") for a, b in road]
    m = ex.block_map(hexsides=sides, rough=list(g.hex_ids))
    u = ex.example_units()
    p = ex.place(m, u, {"II/104": "1121", "B/3 KOMR": "1621"})
    cax = mv.reach(m, u, p, [u.index("II/104")])
    assert cax[m.idx("1125")] == 4  # four road hexes at 1/2 MP (Axis, any turn)
    p = ex.place(m, u, {"B/3 KOMR": "1121", "II/104": "1621"})
    kom = u.index("B/3 KOMR")
    assert mv.reach(m, u, p, [kom])[m.idx("1124")] == 6  # Allied by day: 1 MP per road hex
    assert mv.reach(m, u, p, [kom], mv.MoveContext(night=True))[m.idx("1125")] == 4
    assert mv.reach(m, u, p, [kom], mv.MoveContext(weather="storm"))[m.idx("1125")] == 4
    assert mv.road_cost(un.ALLIED, mv.MoveContext()) == 2 and mv.road_cost(un.AXIS, mv.MoveContext()) == 1
    # motorized units only on road / urban / airfield
    p = ex.place(m, u, {"Matilda": "1121", "II/104": "1621"})
    c = mv.reach(m, u, p, [u.index("Matilda")], mv.MoveContext(night=True))
    assert hexes(m, c < mv.INF) == {"1121", "1122", "1123", "1124", "1125"}


def test_rule_8_33_motorized_pass_only_on_main_road():
    road = [("1121", "1122"), ("1122", "1123")]
    for kind, ok in (("road_minor", False), ("road_main", True)):
        m = ex.block_map(hexsides=[dict(hex_a=a, hex_b=b, feature=kind) for a, b in road])
        rows = [dict(id="t1", side="Allied", steps=2, ma=6, er=6, ma_class="red", stacking=1),
                dict(id="t2", side="Allied", steps=2, ma=6, er=6, ma_class="red", stacking=1)]
        u = un.make_units(rows)
        p = ex.place(m, u, {"t1": "1121", "t2": "1122"})
        c = mv.reach(m, u, p, [0], mv.MoveContext(night=True))
        assert (c[m.idx("1123")] < mv.INF) == ok


def test_rule_8_34_urban():
    m = ex.block_map(urban=["1322", "1323"], rough=["1323"])
    u = ex.example_units()
    p = ex.place(m, u, {"II/104": "1321", "B/3 KOMR": "1721"})
    k = u.index("II/104")
    assert mv.reach(m, u, p, [k])[m.idx("1322")] == 2  # urban entered off-road: TEC value (1 MP)
    p.hex[k] = m.idx("1322")
    assert mv.reach(m, u, p, [k])[m.idx("1323")] == 1  # urban to urban at road rate; urban beats rough


def test_rule_8_41_allied_artillery_moves_only_at_night():
    """The Allied 25pdr (motorized) stands on a road it could follow: by day it cannot move at
    all, at night it moves along the road; an Axis gun on the same road moves by day."""
    road = [("1121", "1122"), ("1122", "1123"), ("1123", "1124")]
    m = ex.block_map(hexsides=[dict(hex_a=a, hex_b=b, feature="road_minor") for a, b in road])
    rows = [dict(id="25pdr", side="Allied", nat="B", steps=1, defense=2, ma=4, er=6, ma_class="orange", range=6,
                 no_zoc=True, stacking=1),
            dict(id="Axis gun", side="Axis", nat="I", formation="L", steps=1, defense=2, ma=4, er=6,
                 ma_class="orange", range=6, no_zoc=True, stacking=1),
            dict(id="KOMR", side="Allied", nat="B", steps=1, defense=3, ma=3, er=5, stacking=1)]
    u = un.make_units(rows)
    gun, axis_gun, komr = u.index("25pdr"), u.index("Axis gun"), u.index("KOMR")
    p = ex.place(m, u, {"25pdr": "1121"})
    for weather in ("good", "storm"):
        day = mv.reach(m, u, p, [gun], mv.MoveContext(night=False, weather=weather))
        assert hexes(m, day < mv.INF) == {"1121"}
    assert mv.movement_allowance(u, p, gun, mv.MoveContext()) == 0
    night = mv.reach(m, u, p, [gun], mv.MoveContext(night=True))
    assert hexes(m, night < mv.INF) == {"1121", "1122", "1123", "1124"} and night[m.idx("1124")] == 3
    # other Allied units move by day (at the Allied day road rate, 8.33)
    p.hex[komr] = m.idx("1121")
    assert mv.reach(m, u, p, [komr])[m.idx("1122")] == 2
    q = ex.place(m, u, {"Axis gun": "1121"})
    assert mv.reach(m, u, q, [axis_gun])[m.idx("1124")] == 3  # Axis artillery moves any time


def test_rule_7_12_allied_first_turn_penalty_and_disrupted_ma():
    u = ex.example_units()
    p = un.Position.fresh(u)
    kom = u.index("B/3 KOMR")
    assert mv.movement_allowance(u, p, kom, mv.MoveContext(first_turn_penalty=True)) == 2
    p.disrupted[u.index("5/3")] = True
    assert mv.movement_allowance(u, p, u.index("5/3"), mv.MoveContext()) == 4  # 4 // 2 = 2 MP


def test_phases_to_reach_map():
    m, u, p = ex.zoc_example()
    t = mv.phases_to_reach(m, u, p, [u.index("5/3")], max_phases=4)
    assert t[m.idx("1424")] == 0 and t[m.idx("1523")] == 1 and t[m.idx("1725")] >= 1


def test_rule_8_37_fort_has_no_movement_effect():
    m = ex.block_map(fort=["1322"])
    u = ex.example_units()
    p = ex.place(m, u, {"II/104": "1321"})
    assert mv.reach(m, u, p, [u.index("II/104")])[m.idx("1322")] == 2  # clear cost, fort ignored
    assert m.terrain_cost(m.idx("1322")) == m.terrain_cost(m.idx("1323"))


# --- edge cases each rule's code must get right (each found by benchmarks/rule_knockout.py) ----------------

def test_rule_2_1_grid_ids_parity_and_bounds():
    for g in (IMGrid(10, 18, 20, 28), IMGrid(11, 17, 21, 27)):  # parity does not depend on the block's origin
        assert {"1523", "1524"} <= set(g.neighbours("1424")) and "1523" not in g.neighbours("1425")
        assert all(g.hex_id(g.index(h)) == h for h in g.hex_ids)
        assert [g.index(h) for h in g.hex_ids] == list(range(g.n_hexes))
    g = IMGrid(10, 12, 20, 22)
    assert g.index("1020") == 0 and g.hex_id(0) == "1020" and g.n_hexes == 9
    assert g.contains("1020") and g.contains("1222") and not g.contains("0920") and not g.contains("1320")
    assert not g.contains("1019") and not g.contains("1023")
    assert "1020" in g.neighbours("1021") and g.neighbours("1020")[0] is None  # the corner: no hex to the north
    with pytest.raises(OptionError):
        g.index("1320")
    with pytest.raises(OptionError):
        IMGrid(10, 99, 20, 22)
    assert IMGrid(10, 98, 20, 20).n_hexes == 89
    assert IMGrid(0, 2, 0, 2).hex_id(0) == "0000" and distance("9820", "9821") == 1 and distance("0020", "0021") == 1
    with pytest.raises(OptionError, match="outside the Invasion: Malta id space"):
        distance("9920", "9921")  # column 99 is outside the id space once shifted
    from malta_sim.games.invasion_malta.grid import direction_between
    assert [direction_between("1424", h) for h in ("1423", "1523", "1524", "1425", "1324", "1323")] == list(range(6))
    assert [direction_between("1323", h) for h in ("1322", "1423", "1424", "1324", "1224", "1223")] == list(range(6))
    with pytest.raises(OptionError):
        direction_between("1424", "1426")


def test_rule_2_24_unit_table_classes():
    u = ex.example_units()
    assert list(u.artillery) == [False, False, False, False, False, True]
    assert list(u.motorized) == [False, False, False, False, True, True]
    one = un.make_units([dict(id="g", range=1, ma_class="orange"), dict(id="p", range=0)])
    assert list(one.artillery) == [True, False] and list(one.motorized) == [True, False]
    assert u.index("Cdo") == 3 and u.n == 6
    with pytest.raises(OptionError, match="unknown unit id"):
        u.index("nope")


def test_rule_2_29_position_markers_and_units_in_play():
    m = ex.block_map()
    u = ex.example_units()
    p = un.Position.fresh(u, m.n)
    assert (p.hex == -1).all() and (p.steps == u.max_steps).all() and (p.hex_owner == -1).all()
    assert p.hex_owner.size == m.n and un.Position.fresh(u).hex_owner.size == 0
    for a in (p.disrupted, p.oos, p.overstacked, p.activated, p.fired, p.paradropped):
        assert a.dtype == bool and not a.any()
    assert not p.on_map().any() and p.alive().all() and p.at(0).size == 0
    p.hex[[0, 1, 2]] = [0, 0, 5]  # hex index 0 is an ordinary hex
    p.steps[1] = 0  # eliminated: out of play (3.41)
    p.steps[0] = 1
    assert list(np.flatnonzero(p.on_map())) == [0, 2] and list(np.flatnonzero(p.alive())) == [0, 2, 3, 4, 5]
    assert list(p.at(0)) == [0] and list(p.at(5)) == [2]
    q = p.copy()  # deep
    q.hex[0] = 7
    q.beachheads.add(3)
    q.airheads[4] = "G"
    q.hex_owner[0] = 1
    assert p.hex[0] == 0 and not p.beachheads and not p.airheads and p.hex_owner[0] == -1


def test_rule_2_4_d10_single_rolls():
    assert [un.d10(Faces(f)) for f in (0, 1, 9)] == [10, 1, 9]
    assert un.read_d10_face(9) == 9 and un.read_d10_face(0) == 10
    for bad in (-1, 10):
        with pytest.raises(OptionError):
            un.read_d10_face(bad)


def test_rule_3_41_steps_edge_cases():
    u = ex.example_units()
    p = un.Position.fresh(u)
    k = u.index("B/3 KOMR")  # one step
    p.hex[k] = 3
    p.disrupted[k] = p.oos[k] = p.overstacked[k] = True
    assert un.lose_step(u, p, k) and p.hex[k] == -1
    assert not (p.disrupted[k] or p.oos[k] or p.overstacked[k])  # its markers go with it
    bad = un.make_units([dict(id="three", steps=3), dict(id="gun1", range=1, steps=2), dict(id="ok", steps=2),
                         dict(id="gun", range=1, steps=1)])
    assert un.check_steps(bad) == ["three", "gun1"]
    assert un.can_attack(1) and not un.can_attack(0)


def test_rule_3_32_stack_at_the_limit_and_3_34_order():
    m = ex.block_map()
    u = _stack_units()
    p = un.Position.fresh(u, m.n)
    h = m.idx("1424")
    p.hex[[0, 1, 2, 5]] = h  # 3 + 3 + 2 + 1 = 9 points: regular stacking
    assert un.designate_excess(u, p, h).size == 0 and un.end_phase_stacking(u, p).size == 0
    p.hex[3] = h  # 11 points
    assert [u.ids[k] for k in un.end_phase_stacking(u, p)] == ["u3"]
    assert un.end_phase_stacking(u, un.Position.fresh(u, m.n)).tolist() == []  # nobody on the map
    # equal defense: the higher ER stays regular
    v = un.make_units([dict(id=f"v{k}", side="Allied", steps=1, defense=4, er=er, stacking=5) for k, er in enumerate((3, 7))])
    q = un.Position.fresh(v, m.n)
    q.hex[:] = h
    assert [v.ids[k] for k in un.designate_excess(v, q, h)] == ["v0"]
    assert not un.armored_conflict(u, p, h)
    p.hex[[u.index("tk1"), u.index("tk2")]] = m.idx("1121")
    assert un.armored_conflict(u, p, m.idx("1121"))


def test_rule_3_33_armored_unit_cannot_enter_a_hex_with_another():
    """Urban hexes, so both tanks could move; only 3.33 keeps one out of the other's hex."""
    m = ex.block_map(urban=list(IMGrid(*ex.EXAMPLE_GRID).hex_ids))
    u = _stack_units()
    p = un.Position.fresh(u, m.n)
    p.hex[u.index("tk1")] = m.idx("1424")
    p.hex[u.index("tk2")] = m.idx("1423")
    c = mv.reach(m, u, p, [u.index("tk2")], mv.MoveContext(night=True))
    assert c[m.idx("1424")] >= mv.INF and c[m.idx("1523")] == 1 and c[m.idx("1525")] == 3
    p.hex[u.index("tk1")] = -1
    assert mv.reach(m, u, p, [u.index("tk2")], mv.MoveContext(night=True))[m.idx("1424")] == 1


def test_rule_8_33_motorized_pass_through_urban_and_airfield():
    for flag in ("urban", "airfield"):
        m = ex.block_map(**{flag: ["1121", "1122", "1123"]})
        rows = [dict(id="t1", side="Allied", steps=2, ma=6, er=6, ma_class="red", stacking=1),
                dict(id="t2", side="Allied", steps=2, ma=6, er=6, ma_class="red", stacking=1)]
        u = un.make_units(rows)
        p = ex.place(m, u, {"t1": "1121", "t2": "1122"})
        c = mv.reach(m, u, p, [0], mv.MoveContext(night=True))
        assert c[m.idx("1123")] < mv.INF, flag


def test_rule_8_13_8_15_allowance_and_whole_search():
    m = ex.block_map(hexsides=[dict(hex_a="1121", hex_b="1122", feature="road_minor")])
    u = ex.example_units()
    p = ex.place(m, u, {"5/3": "1121"})
    k = u.index("5/3")
    c = mv.reach(m, u, p, [k], ma_hmp=1)  # 1/2 MP: one Axis road hex, nothing else (8.13)
    assert hexes(m, c < mv.INF) == {"1121", "1122"} and c[m.idx("1121")] == 0
    assert hexes(m, mv.reach(m, u, p, [k], ma_hmp=0) < mv.INF) == {"1121"}  # 8.15
    with pytest.raises(OptionError, match="empty stack"):
        mv.reach(m, u, p, [])
    with pytest.raises(OptionError, match="one map hex"):
        mv.reach(m, u, ex.place(m, u, {}), [k])  # off the map
    # the search runs past the first enemy-ZOC hex it settles: far hexes on a free path
    q = ex.place(ex.block_map(), u, {"5/3": "1422", "B/3 KOMR": "1425"})
    cq = mv.reach(ex.block_map(), u, q, [k])
    assert cq[m.idx("1724")] == 8 and cq[m.idx("1124")] == 8 and cq[m.idx("1424")] == 6
    assert [cq[m.idx(h)] for h in ("1421", "1521", "1522", "1423", "1322", "1321")] == [2] * 6  # all six directions
    # a forbidden first direction (an enemy hex to the north, 8.14) leaves the other five open
    q3 = ex.place(m, u, {"5/3": "1422", "25pdr": "1421"})
    c3 = mv.reach(m, u, q3, [k])
    assert c3[m.idx("1421")] >= mv.INF and [c3[m.idx(h)] for h in ("1521", "1522", "1423", "1322", "1321")] == [2] * 5
    # a hex first found across rough ground and then, cheaper, along a road: the search still settles
    # everything else (1322 is rough next to 1422, and also two road hexes from it)
    road = [dict(hex_a="1422", hex_b="1423", feature="road_minor"), dict(hex_a="1423", hex_b="1322", feature="road_minor")]
    mr = ex.block_map(hexsides=road, rough=["1322"])
    cr = mv.reach(mr, u, ex.place(mr, u, {"5/3": "1422"}), [k])
    assert cr[mr.idx("1322")] == 2 and cr[mr.idx("1724")] == 7 and cr[mr.idx("1124")] == 7
    # an Allied unit is stopped by Axis ZOC the same way (8.21-8.22)
    q2 = ex.place(m, u, {"5/3": "1425", "B/3 KOMR": "1422"})
    c2 = mv.reach(m, u, q2, [u.index("B/3 KOMR")])
    assert c2[m.idx("1424")] == 6 and c2[m.idx("1425")] >= mv.INF and c2[m.idx("1524")] >= mv.INF
    assert mv.move_stack(m, u, q2, [u.index("B/3 KOMR")], m.idx("1424")) == 6 and q2.hex[u.index("B/3 KOMR")] == m.idx("1424")
    with pytest.raises(OptionError):
        mv.move_stack(m, u, q2, [u.index("B/3 KOMR")], m.idx("1121"))


def test_rule_6_15_7_12_allowance_changes():
    rows = [dict(id="tank", side="Axis", nat="G", army=True, steps=2, ma=6, er=7, ma_class="red", armored=True),
            dict(id="inf", side="Axis", nat="G", formation="St", steps=2, ma=4, er=7),
            dict(id="slow", side="Allied", steps=1, ma=1, er=5),
            dict(id="gun1", side="Allied", steps=1, ma=4, er=5, range=1, ma_class="orange")]
    u = un.make_units(rows)
    p = un.Position.fresh(u)
    day, pen = mv.MoveContext(), mv.MoveContext(first_turn_penalty=True)
    p.oos[[0, 1]] = True
    assert mv.movement_allowance(u, p, 0, day) == 0 and mv.movement_allowance(u, p, 1, day) == 8  # 6.15: armored only
    assert mv.movement_allowance(u, p, 1, pen) == 8  # the GT 1 penalty is Allied only (7.12)
    assert mv.movement_allowance(u, p, 2, pen) == 0 and mv.movement_allowance(u, p, 2, day) == 2  # never below 0
    assert mv.movement_allowance(u, p, 3, day) == 0 and mv.movement_allowance(u, p, 3, mv.MoveContext(night=True)) == 8


def test_rule_3_71_check_without_modifier_and_3_72_candidates():
    assert ef.er_check(6, Faces(6)) == (True, 6) and ef.er_check(6, Faces(7)) == (False, 7)
    assert ef.er_check(6, Faces(0)) == (False, 10)
    u = ex.example_units()
    p = un.Position.fresh(u)
    para, inf, komr = u.index("5/3"), u.index("II/104"), u.index("B/3 KOMR")
    p.overstacked[para] = True
    p.steps[inf] = 1
    assert ef.lead_candidates(u, p, [para, inf, komr]) == [inf, komr]  # one-step units lead; the over-stacked not
    p.steps[inf] = 0
    assert ef.lead_candidates(u, p, [inf, komr]) == [komr]  # an eliminated unit cannot
    p.overstacked[para] = False
    assert ef.lead_candidates(u, p, [inf, komr, para], active_formation="St") == [para]


def test_rule_3_84_eliminated_and_off_map_units_take_no_part():
    m = ex.block_map()
    u, p = _disrupted_pair(m)
    hi, lo = u.index("hi"), u.index("lo")
    p.steps[lo] = 0
    p.hex[lo] = -1
    r = ef.apply_disruption(u, p, m.idx("1424"), Faces(9), affected=[hi, lo])
    assert r["checked"] == [hi] and r["step_lost"] == hi  # the Lead alone: it takes the step
    assert ef.default_loss_choice(u, p, [lo, hi], hi) == hi
    u, p = _disrupted_pair(m)
    p.hex[lo] = -1
    res = ef.disrupt_by_hex(u, p, [hi, lo], Faces(9))  # default drm 0: 9 > 7 fails
    assert [(r["hex"], r["checked"], r["passed"]) for r in res] == [(m.idx("1424"), [hi], False)]
    u, p = _disrupted_pair(m)
    p.hex[lo] = -1
    assert ef.disrupt_by_hex(u, p, [hi], Faces(7))[0]["passed"] is True  # no modifier: 7 is the current ER
    assert ef.disrupt_by_hex(u, p, [hi], Faces(8))[0]["passed"] is False
    u, p = _disrupted_pair(m)
    p.disrupted[lo] = False
    p.steps[lo] = 1  # a reduced unit named in the result is Disrupted like any other
    r = ef.apply_disruption(u, p, m.idx("1424"), Faces(1), affected=[lo])
    assert r["newly"] == [lo] and p.disrupted[lo]
    u, p = _disrupted_pair(m)
    p.hex[[hi, lo]] = 0  # hex index 0 is a hex like any other
    assert [r["hex"] for r in ef.disrupt_by_hex(u, p, [hi, lo], Faces(1))] == [0]
    r = ef.apply_disruption(u, p, 0, Faces(1))
    assert r["eliminated"] is False and r["passed"] is True


def test_rule_3_84_recovery_checks_and_markers():
    m = ex.block_map()
    rows = [dict(id="it", side="Axis", nat="I", formation="L", er=10, steps=2),
            dict(id="de", side="Axis", nat="G", formation="St", er=7, steps=2),
            dict(id="al", side="Allied", nat="B", er=6, steps=2),
            dict(id="ax", side="Axis", nat="G", formation="St", er=7, steps=2),
            dict(id="gone", side="Axis", nat="G", formation="St", er=7, steps=2)]
    u = un.make_units(rows)
    p = un.Position.fresh(u, m.n)
    p.hex[:] = [m.idx("1121"), m.idx("1721"), m.idx("1625"), m.idx("1624"), -1]
    p.disrupted[:] = True
    p.steps[4] = 0
    zoc = lambda s: zc.zoc_map(m, u, p, 1 - s)  # noqa: E731
    # Allied 'al' is in the ZOC of Axis 'ax' and rolls (current ER 4): a 4 passes; the Italian (current 8)
    # rolls an 8 and passes; 'ax' is in the ZOC of 'al' (current ER 5) and a 6 fails it
    r = ef.recovery(u, p, zoc, Faces(8, 4, 6))
    assert r["auto"] == [1] and [(c[0], c[1], c[2]) for c in r["checks"]] == [(0, 8, True), (2, 4, True), (3, 6, False)]
    assert list(p.disrupted) == [False, False, False, True, True]  # eliminated units are not touched
    p.disrupted[:4] = True
    r = ef.recovery(u, p, zoc, Faces(9, 4, 6), drm=lambda k: -1)
    assert [c[2] for c in r["checks"]] == [True, True, True]


def test_rule_5_11_weather_table_rows(tmp_path):
    def table(rows):
        (tmp_path / "weather.csv").write_text("roll,weather,source\n" + "".join(f"{r},{w},reconstructed\n" for r, w in rows))
        return we.load_weather_table(tmp_path)

    full = [(r, "good") for r in range(1, 10)] + [(10, "storm")]
    tab = table(full)
    assert tab[10] == 2 and (tab[1:10] == 0).all() and tab[0] == -1 and tab.dtype == np.int8
    from malta_sim.errors import DataError
    for rows, field in ((full[:-1], "roll"), (full[1:], "roll"), (full + [(3, "windy")], "roll"),
                        (full + [(0, "good")], "roll"), (full + [(11, "good")], "roll")):
        with pytest.raises(DataError) as e:
            table(rows)
        assert e.value.field == field
    assert we.allowed("naval_transport", "good", night=True) and we.allowed("amphibious", "windy", night=True)
    assert we.allowed("paradrop", "good") and not we.allowed("paradrop", "good", night=True)
    with pytest.raises(ValueError):
        we.allowed("swim", "good")


def test_rule_6_12_status_phase_lists_and_allied_units():
    m = ex.block_map()
    u = ex.example_units()
    para, inf, komr = u.index("5/3"), u.index("II/104"), u.index("B/3 KOMR")
    m = ex.block_map(land=["1124", "1224", "1225", "1324", "1424", "1524", "1624"])  # a strip of land
    p = ex.place(m, u, {"5/3": "1624", "II/104": "1224", "B/3 KOMR": "1424"})
    p.beachheads.add(m.idx("1225"))  # II/104 beside it; the KOMR cuts 5/3 off
    p.oos[komr] = True  # an Allied unit is never Out of Supply (6.0)
    r = sp.supply_status_phase(m, u, p, night=True)
    assert r == dict(marked=[para], cleared=[]) and p.oos[para] and not p.oos[inf] and not p.oos[komr]
    r = sp.supply_status_phase(m, u, p, night=True)  # still cut off: the marker stays, nothing cleared
    assert r == dict(marked=[], cleared=[]) and p.oos[para]
    p.hex[komr] = -1
    assert sp.supply_status_phase(m, u, p, night=False) == dict(marked=[], cleared=[para])


def test_rule_6_21_6_22_sources_and_routes_edge_cases():
    # a Beachhead under an enemy unit is no source, even for the unit next to it
    m = ex.block_map()
    u = ex.example_units()
    para = u.index("5/3")
    p = ex.place(m, u, {"5/3": "1121", "B/3 KOMR": "1424"})
    p.beachheads.add(m.idx("1424"))
    p.disrupted[u.index("B/3 KOMR")] = True  # its ZOC is ignored; the hex itself is not
    p.hex[para] = m.idx("1423")
    assert not sp.supplied_units(m, u, p)[para]
    p.beachheads.add(m.idx("1121"))
    assert sp.supplied_units(m, u, p)[para]
    # a route along a strip of land that runs north-west from the Beachhead, one step at a time
    strip = ["1424"]
    g = IMGrid(*ex.EXAMPLE_GRID)
    for _ in range(3):
        strip.append(g.neighbours(strip[-1])[5])
    ms = ex.block_map(land=strip)
    ps = ex.place(ms, u, {"5/3": strip[-1]})
    ps.beachheads.add(ms.idx("1424"))
    assert sp.supplied_units(ms, u, ps)[para] and sp.supply_map(ms, u, ps)[ms.idx(strip[-1])]
    # a position without a record of friendly hexes: no fort counts as the enemy's
    q = un.Position.fresh(u)
    q.hex[para] = m.idx("1423")
    q.beachheads.add(m.idx("1121"))
    mf = ex.block_map(fort=["1322"])
    assert sp.supplied_units(mf, u, q)[para]
    # the map's default is a unit that was not paradropped
    p2 = ex.place(m, u, {"B/3 KOMR": "1425"})
    p2.airheads[m.idx("1121")] = "G"  # not an airfield: a source for paradropped units only (6.31)
    assert not sp.supply_map(m, u, p2).any() and sp.supply_map(m, u, p2, "G", True)[m.idx("1122")]


def test_rule_6_23_supply_map_configurations():
    """More positions for the map-against-unit comparison, with what the rules print for each."""
    m = ex.block_map()
    u = un.make_units([dict(id="ax", side="Axis", nat="G", formation="St", steps=2, ma=4, er=7)]
                      + [dict(id=f"al{k}", side="Allied", nat="B", steps=1, ma=3, er=5) for k in range(5)])
    ring = {"al0": "1422", "al1": "1622", "al2": "1624", "al3": "1426", "al4": "1224"}
    p = ex.place(m, u, ring)
    p.beachheads.add(m.idx("1424"))  # outside every ZOC, but all six neighbours are in one
    smap = sp.supply_map(m, u, p)
    nbrs = {"1423", "1523", "1524", "1425", "1324", "1323"}
    assert hexes(m, smap) == nbrs | {"1424"}  # each neighbour: a unit there traces to the Beachhead (6.23)
    for h in np.flatnonzero(m.land):
        q = p.copy()
        q.hex[0] = h
        if not sp.occupied(u, p, un.ALLIED, m.n)[h]:
            assert smap[h] == sp.supplied_units(m, u, q)[0], m.hid(h)
    # a Disrupted enemy's ZOC is ignored, but its hex is never Supplied
    p = ex.place(m, u, {"al0": "1424"})
    p.disrupted[1] = True
    p.beachheads.add(m.idx("1423"))
    smap = sp.supply_map(m, u, p)
    assert not smap[m.idx("1424")] and smap[m.idx("1425")] and smap[m.idx("1524")]


def test_rule_6_32_recovery_markers_nationality_and_removal():
    m = ex.block_map(airfield=["1121", "1621"])
    rows = [dict(id="it", side="Axis", nat="I", formation="L", steps=2, er=6),
            dict(id="de", side="Axis", nat="G", formation="St", steps=2, er=7),
            dict(id="al", side="Allied", nat="B", steps=1, er=5)]
    u = un.make_units(rows)
    p = ex.place(m, u, {"al": "1621", "it": "1121", "de": "1121"})
    p.beachheads |= {m.idx("1424"), m.idx("1621")}
    p.airheads[m.idx("1621")] = "G"
    sp.recovery_markers(m, u, p, zc.control_map(m, u, p) == un.AXIS)
    assert p.airheads == {m.idx("1121"): "I"}  # nationality of the first Axis unit there; the Allied-held one goes
    assert p.beachheads == {m.idx("1424")}  # only the Beachhead under the Allied unit goes
    q = ex.place(m, u, {"al": "1125"})
    ctrl = np.zeros(m.n, dtype=bool)
    ctrl[m.idx("1121")] = True  # an Axis-controlled airfield with no Axis unit in it
    sp.recovery_markers(m, u, q, ctrl)
    assert q.airheads == {m.idx("1121"): "G"}
