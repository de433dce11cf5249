"""Combat rules 9-10 on constructed positions, with the rulebook's worked
examples (9.9 combat, 10.12 bombardment) in play."""

import pytest

from malta_sim.iod.rules import combat
from malta_sim.iod.state import (ALLIED, AXIS, BOX_ELIMINATED, BOX_MAP,
                                                   DEMORALIZED, DISORGANIZED)
from malta_sim.iod.static import odds_level

from tests.conftest import Scripted, h, make, static, u


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


def test_rule_10_11_discovery():
    """10.12 example: artillery two hexes from the town of Musta cannot
    discover it; a unit adjacent to it can."""
    g = make({"1210": ["allied.uk.8m"], "1309": ["axis.185.art_1"]})
    assert not combat.discovered(g, h("1210"), AXIS)
    g2 = make({"1210": ["allied.uk.8m"], "1309": ["axis.185.art_1"], "1310": ["axis.4.1_34"]})
    assert combat.discovered(g2, h("1210"), AXIS)
    g2.state.turn[0] = 7                                          # night: adjacent still discovers
    assert combat.discovered(g2, h("1210"), AXIS)


def test_rule_10_12_example():
    """Two 5-strength artillery battalions (10) bombard Musta (town: 5, column
    4), +1 for enemy artillery in the hex -> column 6, four battalions; 11 -> D."""
    g = make({
        "1210": ["allied.uk.8m", "allied.uk.2rwk", "allied.uk.11lf", "allied.uk.art_12"],
        "1309": ["axis.185.art_1", "axis.185.art_2"],
        "1310": ["axis.4.1_34"],
    }, policies=(Scripted(AXIS), Scripted(ALLIED)))
    opts = combat.plan_options(g, AXIS)
    assert set(opts.bombard[h("1210")]) == {u("axis.185.art_1"), u("axis.185.art_2")}
    out = combat.resolve_bombardment(g, AXIS, h("1210"), [u("axis.185.art_1"), u("axis.185.art_2")],
                                     fixed_roll=11)
    ch = static().charts
    assert out["strength"] == 5 and out["stack"] == 4
    assert int(ch.bomb_columns[out["column"]]) == 6
    assert out["result"] == 1                                     # D
    for x in ("allied.uk.8m", "allied.uk.2rwk", "allied.uk.11lf", "allied.uk.art_12"):
        assert g.state.morale_state[u(x)] == DISORGANIZED
    assert g.state.salvos[u("axis.185.art_1")] == 1


def test_rule_10_14_casualty_limit():
    g = make({"1210": ["allied.uk.inf_coy.1"], "1309": ["axis.185.art_1"],
              "1310": ["axis.4.1_34"]}, policies=(Scripted(AXIS), Scripted(ALLIED)))
    # a "2" result on a one-step hex kills at most one step (half of 1, rounded up)
    ch = static().charts
    g.state.steps_lost[:] = 0
    combat.take_steps(g, [u("allied.uk.inf_coy.1")], min(2, 1), "bombardment")
    assert g.state.box[u("allied.uk.inf_coy.1")] == BOX_ELIMINATED


def test_rule_10_21_night_attack_disorganizes_attackers():
    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"]}, turn=7,
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    assert g.night
    res = combat.resolve_attack(g, AXIS, h("1311"), [u("axis.4.1_34")], fixed_roll=7)
    assert static().charts.line_names[res.line] == "night"
    assert g.state.morale_state[u("axis.4.1_34")] in (DISORGANIZED, DEMORALIZED)
    # demoralized units may not attack at night
    g.state.morale_state[u("axis.4.1_34")] = DEMORALIZED
    g.state.attacked[:] = False
    assert not combat.can_attack(g, u("axis.4.1_34"))


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


def test_rule_12_21_support_cap():
    g, att, sup = example_9_9()
    # offensive support capped at twice the printed attack strength (12.21)
    tot = sum(combat.support_value(g, x, True, h("1311"), att) for x in sup)
    assert tot == 10
    one = [u("axis.un.tank_10")]
    res = combat.resolve_attack(g, AXIS, h("1311"), one, support=sup, fixed_roll=7)
    assert res.attack_total == 1 + 2                               # 1 + min(10, 2 * 1)


def test_rule_9_92_envelopment_and_engineers():
    g = make({"1110": ["allied.uk.inf_coy.1"],
              "1009": ["axis.4.1_34", "axis.4.eng_11.1"], "1010": ["axis.4.2_34", "axis.4.eng_11.2"]})
    s = g.state
    s.fort_destroyed[h("1110")] = False
    m = combat.odds_modifiers(g, AXIS, [u("axis.4.1_34"), u("axis.4.eng_11.1"),
                                        u("axis.4.2_34"), u("axis.4.eng_11.2")],
                              [u("allied.uk.inf_coy.1")], h("1110"), roll_leaders=False)
    assert m.get("engineers") == 1 and "envelopment" not in m


def test_rule_12_3_approach_of_enemies():
    g = make({"1412": ["allied.uk.art_12"], "1411": ["axis.4.1_34"]},
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    g.state.advanced[u("axis.4.1_34")] = True
    keep = combat._approach_of_enemies(g, AXIS, [u("allied.uk.art_12")])
    assert keep == []
    g.state.advanced[u("axis.4.1_34")] = False
    assert combat._approach_of_enemies(g, AXIS, [u("allied.uk.art_12")]) == [u("allied.uk.art_12")]


def test_rule_16_73_warship_communications_and_16_77():
    """A supporting warship rolls 1-3: no support; else its value is added;
    warships never spend ammunition (16.77) nor fire hurricanes (16.78)."""
    seen = set()
    ship = u("axis.rm.trieste")
    for seed in range(12):
        g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"], "1006": [ship_name()]},
                 policies=(Scripted(AXIS), Scripted(ALLIED)))
        g.streams = type(g.streams)(seed, 0)
        before = int(g.state.salvos[ship])
        res = combat.resolve_attack(g, AXIS, h("1311"), [u("axis.4.1_34")], support=[ship],
                                    fixed_roll=7)
        assert int(g.state.salvos[ship]) == before                    # 16.77
        seen.add(res.attack_total)
        failed = ship in g.extra.get("comm_failed", {}).get(g.turn, set())
        assert res.attack_total == (6 if failed else 6 + min(static().off_support[ship], 12))
    assert len(seen) == 2
    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"], "1006": [ship_name()]})
    assert ship not in combat.plan_options(g, AXIS).hurricane_ok


def ship_name():
    return "axis.rm.trieste"


def test_rule_16_74_warship_support_limits():
    ships = ["axis.rm.trieste", "axis.rm.gorizia", "axis.rm.cadorna", "axis.rm.aviere"]
    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"], "1006": ships[:2],
              "1005": ships[2:], "1209": ["axis.185.art_1"]})
    opts = combat.plan_options(g, AXIS)
    from malta_sim.bots.base import CombatPlan
    from malta_sim.iod.game import IllegalDecision
    sup = [s for s in opts.support[h("1311")] if static().names[s] in ships]
    if len(sup) == 4:
        with pytest.raises(IllegalDecision, match="16.74"):
            combat._validate_plan(g, AXIS, CombatPlan(support={h("1311"): sup}), opts)
    mixed = sup[:1] + [u("axis.185.art_1")]
    if all(x in opts.support[h("1311")] for x in mixed):
        with pytest.raises(IllegalDecision, match="16.74"):
            combat._validate_plan(g, AXIS, CombatPlan(support={h("1311"): mixed}), opts)


def test_rule_16_42_air_support_and_16_23_16_34_standing():
    g = make({"1311": ["allied.uk.8m"], "1310": ["axis.4.1_34"]})
    m = combat.odds_modifiers(g, AXIS, [u("axis.4.1_34")], [u("allied.uk.8m")], h("1311"),
                              air=2, roll_leaders=False)
    assert m["air_support"] == 2
    g2 = make({"1311": ["allied.mil.1", "allied.sp.a.1", "allied.uk.8m"]})
    assert combat._ma_zero(g2, u("allied.mil.1")) and combat._ma_zero(g2, u("allied.sp.a.1"))
    assert not combat._ma_zero(g2, u("allied.uk.8m"))
    from malta_sim.iod.rules import organisation, movement
    assert organisation.stack_weight(g2, u("allied.mil.1")) == 0          # 16.33
    g3 = make({"1311": ["allied.cg.light.1"]})
    block, trivial = movement.occupancy(g3, ALLIED)
    assert not block[h("1311")] and trivial[h("1311")]                     # 16.53
