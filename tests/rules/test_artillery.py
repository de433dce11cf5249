"""Artillery (rule 12): support and its cap, the approach of enemies, ammunition
distribution, on constructed positions.
"""

from __future__ import annotations


from malta_sim.iod.rules import artillery, combat
from malta_sim.iod.state import ALLIED, AXIS

from tests.conftest import h, make, Scripted, u


def example_9_9(stand=False):
    """Rule 9.9 example: three 186th Regiment 6-7-6 paratroop battalions and the
    1-8 tank company attack two British 6-6 battalions on clear terrain by day,
    with two 5-2 artillery battalions against the British 9-3 artillery."""
    g = make({
        "1311": ["allied.uk.8m", "allied.uk.2rwk"],
        "1210": ["axis.185.v_186", "axis.un.tank_10"],
        "1310": ["axis.185.vi_186"],
        "1211": ["axis.185.vii_186"],
        "1209": ["axis.185.art_1", "axis.185.art_2"],
        "1412": ["allied.uk.art_12"],
    }, policies=(Scripted(AXIS), Scripted(ALLIED, stand=stand)))
    att = [u("axis.185.v_186"), u("axis.un.tank_10"), u("axis.185.vi_186"), u("axis.185.vii_186")]
    sup = [u("axis.185.art_1"), u("axis.185.art_2")]
    return g, att, sup


def test_rule_12_21_support_cap():
    g, att, sup = example_9_9()
    # offensive support capped at twice the printed attack strength (12.21)
    tot = sum(combat.support_value(g, x, True, h("1311"), att) for x in sup)
    assert tot == 10
    one = [u("axis.un.tank_10")]
    res = combat.resolve_attack(g, AXIS, h("1311"), one, support=sup, fixed_roll=7)
    assert res.attack_total == 1 + 2                               # 1 + min(10, 2 * 1)


def test_rule_12_3_approach_of_enemies():
    g = make({"1412": ["allied.uk.art_12"], "1411": ["axis.4.1_34"]},
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    g.state.advanced[u("axis.4.1_34")] = True
    keep = combat._approach_of_enemies(g, AXIS, [u("allied.uk.art_12")])
    assert keep == []
    g.state.advanced[u("axis.4.1_34")] = False
    assert combat._approach_of_enemies(g, AXIS, [u("allied.uk.art_12")]) == [u("allied.uk.art_12")]


def test_rule_12_56_ammunition_distribution():
    g = make({"1612": ["allied.hq.malta", "allied.uk.art_12"]}, turn=8)
    x = u("allied.uk.art_12")
    g.state.salvos[x] = 0
    assert artillery.ammo_eligible(g, ALLIED) == [x]
    artillery.expend(g, x, 1)
    assert g.state.salvos[x] == 0
    # Axis needs stockpile and a route to an Axis beach or port (12.54, 12.56)
    g2 = make({"1107": ["axis.4.art_28"]}, turn=8, control={"1107": AXIS})
    g2.state.salvos[u("axis.4.art_28")] = 0
    assert artillery.ammo_eligible(g2, AXIS) == [u("axis.4.art_28")]
