"""Combat (rule 9) on constructed positions, with the rulebook's worked example of 9.9 in
play: who may attack, odds, strength and odds modifiers, losses, standing ground,
advance after combat.
"""

from __future__ import annotations

import pytest

from malta_sim.iod.rules import combat
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP, DEMORALIZED, DISORGANIZED
from malta_sim.iod.static import odds_level

from tests.conftest import h, make, Scripted, static, u


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


def test_rule_9_9_example():
    g, att, sup = example_9_9()
    res = combat.resolve_attack(g, AXIS, h("1311"), att, support=sup,
                                dsupport=[u("allied.uk.art_12")], fixed_roll=6)
    assert res.attack_total == 29 and res.defense_total == 15
    assert res.basic_level == 1                                   # 1.93:1 -> 1:1
    m = res.modifiers
    assert m["attacker_integrity"] == 2 and m["morale"] == 2
    assert m["armor_attacking"] == 2 and m["mixed_formations"] == -1
    assert res.final_level == 6                                   # 6:1
    assert static().charts.line_names[res.line] == "all_other_terrains"
    assert static().charts.crt_columns[res.column] == "6:1"
    assert res.result == (0, 0, 3, 1)                             # -/3D
    s = g.state
    # one step lost (3 hits, defender rounds down), the rest retreat two hexes
    lost = sum(int(s.level[x]) for x in (u("allied.uk.8m"), u("allied.uk.2rwk")))
    assert lost == 1
    for x in (u("allied.uk.8m"), u("allied.uk.2rwk")):
        assert s.box[x] == BOX_MAP
        assert s.morale_state[x] == DISORGANIZED
        assert static().grid.distance_table[s.hex[x], h("1311")] == 2
    # ammunition: one salvo each for offensive support (12.51)
    assert all(s.salvos[x] == 1 for x in sup)
    assert g.state.allied_steps_lost[0] == 1


def test_rule_9_7_standing_ground_takes_all_hits():
    """9.9 example, the British stand their ground: morale 4 above the die
    stands and takes all three hits as steps; otherwise they retreat."""
    for seed in range(6):
        g, att, sup = example_9_9(stand=True)
        g.streams = type(g.streams)(seed, 0)
        combat.resolve_attack(g, AXIS, h("1311"), att, support=sup,
                              dsupport=[u("allied.uk.art_12")], fixed_roll=6)
        s = g.state
        brit = (u("allied.uk.8m"), u("allied.uk.2rwk"))
        steps_lost = int(s.allied_steps_lost[0])
        assert steps_lost in (1, 3)
        if steps_lost == 3:
            assert all(s.box[x] != BOX_MAP or s.hex[x] == h("1311") for x in brit)


def test_rule_9_3_odds_rounding():
    assert odds_level(16, 4) == 4 and odds_level(15, 4) == 3      # 9.3 d
    assert odds_level(29, 15) == 1
    assert odds_level(5, 12) == -1                                # 1:3
    ch = static().charts
    line = ch.line_names.index("all_other_terrains")
    assert ch.crt_columns[combat.crt_column(ch, line, 7)] == "6:1"  # 9.3 g: 7:1 -> 6:1
    assert combat.crt_column(ch, line, 99) == ch.line_cols[line, 1]
    city = ch.line_names.index("city_fort")
    assert combat.crt_column(ch, city, 0) == -1                   # below 1:1: cancelled


def test_rule_9_91_strength_modifiers():
    g = make({"1311": ["allied.uk.8m"], "1310": ["axis.4.1_34"]})
    s, x = g.state, u("axis.4.1_34")
    assert combat.attack_strength(g, x) == 6
    s.out_of_supply[x] = True
    assert combat.attack_strength(g, x) == 5                      # 8.31
    s.morale_state[x] = DEMORALIZED
    assert combat.attack_strength(g, x) == 2                      # 8.4: halve then -1
    s.morale_state[x] = DISORGANIZED
    s.out_of_supply[x] = False
    assert combat.attack_strength(g, x) == 5                      # 11.3
    y = u("allied.uk.8m")
    s.morale_state[y] = DEMORALIZED
    assert combat.defense_strength(g, y) == 3                     # 11.4


def test_rule_9_15_cannot_attack_zero_defense_hex():
    g = make({"1311": ["allied.cg.light.1"], "1310": ["axis.4.1_34"]})
    assert h("1311") not in combat.attack_options(g, AXIS)


def test_rule_9_8_advance_after_combat_into_vacated_hex():
    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"]},
             policies=(Scripted(AXIS, advance=True), Scripted(ALLIED)))
    ch = static().charts
    line = ch.line_names.index("all_other_terrains")
    res = None
    for roll in range(2, 13):
        gg = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"]},
                  policies=(Scripted(AXIS, advance=True), Scripted(ALLIED)))
        res = combat.resolve_attack(gg, AXIS, h("1311"), [u("axis.4.1_34")], fixed_roll=roll)
        if gg.state.box[u("allied.uk.inf_coy.1")] != BOX_MAP or gg.state.hex[u("allied.uk.inf_coy.1")] != h("1311"):
            if gg.state.box[u("axis.4.1_34")] == BOX_MAP and res.result[0] == 0:
                assert gg.state.hex[u("axis.4.1_34")] == h("1311")        # 9.84 first hex
                assert gg.state.advanced[u("axis.4.1_34")]                 # 9.88
                assert gg.state.control[h("1311")] == AXIS
                return
    pytest.fail("no roll cleared the hex")


def test_rule_9_92_envelopment_and_engineers():
    g = make({"1110": ["allied.uk.inf_coy.1"],
              "1009": ["axis.4.1_34", "axis.4.eng_11.1"], "1010": ["axis.4.2_34", "axis.4.eng_11.2"]})
    s = g.state
    s.fort_destroyed[h("1110")] = False
    m = combat.odds_modifiers(g, AXIS, [u("axis.4.1_34"), u("axis.4.eng_11.1"),
                                        u("axis.4.2_34"), u("axis.4.eng_11.2")],
                              [u("allied.uk.inf_coy.1")], h("1110"), roll_leaders=False)
    assert m.get("engineers") == 1 and "envelopment" not in m
