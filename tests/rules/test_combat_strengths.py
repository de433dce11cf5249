"""Who may attack and what may be attacked (rules 9.13, 9.15, 9.16, 10.21), the support
strength of one artillery unit or warship (9.91, 10.22, 12.22, 12.52), the CRT line of a
fort hex (9.3, 17.1), the odds modifiers an attack reads by default (14.2, 16.42) and the
pieces that must stand their ground (9.63, 12.24), on constructed positions.
"""

from __future__ import annotations

from malta_sim.iod.rules import combat
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP, DEMORALIZED, DISORGANIZED

from tests.conftest import h, make, Scripted, static, u


# ------------------------------------------------------------------ 9.13, 9.16, 10.21
def test_rule_9_13_a_unit_attacks_once_per_phase_and_only_from_the_map():
    """Rule 9.13: a battalion that has attacked this phase may not attack
    again; one off the map may not attack at all."""
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"]})
    x = u("axis.4.1_34")
    assert combat.can_attack(g, x)
    g.state.attacked[x] = True
    assert not combat.can_attack(g, x)
    assert not combat.can_attack(g, u("axis.4.2_34"))            # not placed: off the map


def test_rule_9_1_only_ground_units_with_an_attack_strength_attack():
    """Rules 9.11 and 9.15: artillery supports or bombards but does not attack
    as a ground unit; a unit with an attack strength of 0 (the RAF security
    company) may not attack; the 1-8 tank company, attack 1, may."""
    g = make({"1310": ["axis.4.art_28", "axis.un.tank_10"], "1311": ["allied.raf.tak"],
              "1211": ["allied.uk.8m"]})
    assert not combat.can_attack(g, u("axis.4.art_28"))
    assert not combat.can_attack(g, u("allied.raf.tak"))
    assert combat.can_attack(g, u("axis.un.tank_10"))


def test_rule_10_21_demoralized_units_attack_by_day_but_not_at_night():
    """Rule 10.21: demoralized units may not attack at night; by day they may,
    and a unit in good order may attack at night."""
    x = u("axis.4.1_34")
    day = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"]})
    day.state.morale_state[x] = DEMORALIZED
    assert combat.can_attack(day, x)
    night = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"]}, turn=7)
    assert night.night and combat.can_attack(night, x)
    night.state.morale_state[x] = DEMORALIZED
    assert not combat.can_attack(night, x)


# ------------------------------------------------------------------ 9.15
def test_rule_9_15_a_hex_of_zero_defense_units_may_not_be_attacked():
    """Rule 9.15: a hex holding only a 0-0 strongpoint may not be attacked (nor
    bombarded); one holding only a defense-1 piece (a British strongpoint, the
    4th Division's artillery) may."""
    g = make({"1311": ["allied.sp.b.1"], "1211": ["allied.sp.a.1"], "1309": ["axis.4.art_28"]})
    assert not combat.attackable(g, h("1311"), ALLIED)
    assert combat.attackable(g, h("1211"), ALLIED)
    assert combat.attackable(g, h("1309"), AXIS)


# ------------------------------------------------------------------ 9.91, 10.22, 12.22
def test_rule_12_22_axis_artillery_halved_for_another_formation_only():
    """Rule 12.22: the 4th Division's artillery (offensive support 6) supports
    the 4th Division's 1/34 at full strength, the 185th Division's battalion
    at half; the British artillery (9) supports any unit in full."""
    g = make({"1310": ["axis.4.1_34", "axis.185.v_186"], "1311": ["allied.uk.8m"], "1309": ["axis.4.art_28"],
              "1312": ["allied.uk.art_12"], "1412": ["allied.uk.2rwk"]})
    art, tgt = u("axis.4.art_28"), h("1311")
    assert combat.support_value(g, art, True, tgt, [u("axis.4.1_34")]) == 6
    assert combat.support_value(g, art, True, tgt, [u("axis.185.v_186")]) == 3
    assert combat.support_value(g, art, True, tgt, [u("axis.185.v_186"), u("axis.4.1_34")]) == 6
    gb = u("allied.uk.art_12")
    assert combat.support_value(g, gb, True, h("1310"), [u("allied.uk.2rwk")]) == 9 // 2 + 1   # town (9.91)
    assert combat.support_value(g, gb, True, h("1411"), [u("allied.uk.2rwk")]) == 9


def test_rule_9_91_artillery_out_of_supply_or_disorganized_supports_less():
    """Rule 9.91 (8.32, 11.3): artillery out of supply supports at -1 (never
    below 1), disorganized at -1 (never below 2); a warship takes neither."""
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"], "1309": ["axis.4.art_28"],
              "1307": ["axis.rm.trieste"]})
    s = g.state
    art, ship, inf, tgt = u("axis.4.art_28"), u("axis.rm.trieste"), [u("axis.4.1_34")], h("1311")
    assert combat.support_value(g, art, True, tgt, inf) == 6
    s.out_of_supply[art] = True
    assert combat.support_value(g, art, True, tgt, inf) == 5
    s.out_of_supply[art] = False
    s.morale_state[art] = DISORGANIZED
    assert combat.support_value(g, art, True, tgt, inf) == 5
    base = int(static().off_support[ship])
    s.out_of_supply[ship] = True
    s.morale_state[ship] = DISORGANIZED
    assert combat.support_value(g, ship, True, tgt, inf) == base


def test_rule_9_91_offensive_support_into_a_town_is_halved():
    """Rule 9.91: offensive support fired into a town is halved (fractions
    up); defensive support in a town is not."""
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"], "1309": ["axis.4.art_28"]})
    art, inf = u("axis.4.art_28"), [u("axis.4.1_34")]
    assert static().town[h("1310")] and not static().city[h("1310")]
    assert combat.support_value(g, art, True, h("1310"), inf) == 3
    assert combat.support_value(g, art, False, h("1310"), inf) == int(static().def_support[art])


# ------------------------------------------------------------------ 9.3 f, 17.1
def test_rule_9_3_fort_line_until_the_fort_is_destroyed():
    """Rules 9.3 and 17.1: by day an attack on the fort hex 1110 is read on the
    city/fort line; once the fort is destroyed, on the hex's other terrain."""
    g = make({"1110": ["allied.uk.8m"]})
    names = static().charts.line_names
    assert names[combat.crt_line(g, h("1110"))] == "city_fort"
    g.state.fort_destroyed[h("1110")] = True
    assert names[combat.crt_line(g, h("1110"))] == "all_other_terrains"


# ------------------------------------------------------------------ 9.92, 14.2, 16.42
def test_rule_16_42_no_air_support_unless_markers_are_placed():
    """Rule 16.42: the air support shift comes only from markers placed on the
    attack: asked without any, the modifiers hold no air support."""
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"]})
    m = combat.odds_modifiers(g, AXIS, [u("axis.4.1_34")], [u("allied.uk.8m")], h("1311"), roll_leaders=False)
    assert "air_support" not in m
    m = combat.odds_modifiers(g, AXIS, [u("axis.4.1_34")], [u("allied.uk.8m")], h("1311"), air=2,
                              roll_leaders=False)
    assert m["air_support"] == 2


def test_rule_14_2_the_leader_with_the_attackers_rolls_for_command():
    """Rule 14.2: in every attack the formation leader stacked with an attacker
    rolls one die for command (a success shifts the odds one column)."""
    g = make({"1310": ["axis.4.1_34", "axis.4.ldr.chirelson"], "1311": ["allied.uk.8m"]},
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    combat.resolve_attack(g, AXIS, h("1311"), [u("axis.4.1_34")], fixed_roll=7)
    rolls = [r for r in g.events.rows if r["action"] == "command roll"]
    assert len(rolls) == 1 and rolls[0]["units"] == "axis.4.ldr.chirelson"
    assert g.state.leader_uses[u("axis.4.ldr.chirelson")] == 1


# ------------------------------------------------------------------ 9.63, 12.24
def test_rule_12_24_prepared_artillery_stands_hitched_artillery_may_retire():
    """Rule 12.24: prepared artillery has a movement allowance of zero and must
    stand its ground (no roll); hitched artillery may retire like any unit."""
    g = make({"1312": ["allied.uk.art_12"]})
    gb = u("allied.uk.art_12")
    g.state.hitched[gb] = False
    assert combat._ma_zero(g, gb)
    g.state.hitched[gb] = True
    assert not combat._ma_zero(g, gb)


def test_rule_12_24_prepared_artillery_takes_its_retreat_as_a_loss():
    """Rules 12.24 and 9.7: the prepared British artillery alone in its hex,
    attacked with results that make it retreat, never moves: it stands without
    a roll and takes the hits as steps; hitched, it retreats out of the hex on
    some of the same rolls."""
    moved = {False: 0, True: 0}
    for hitched in (False, True):
        for roll in range(2, 13):
            g = make({"1312": ["allied.uk.art_12"], "1311": ["axis.4.1_34", "axis.4.2_34"]},
                     policies=(Scripted(AXIS), Scripted(ALLIED)))
            gb = u("allied.uk.art_12")
            g.state.hitched[gb] = hitched
            res = combat.resolve_attack(g, AXIS, h("1312"), [u("axis.4.1_34"), u("axis.4.2_34")], fixed_roll=roll)
            if res.cancelled or res.result[2] == 0:
                continue
            assert not [r for r in g.events.rows if r["action"] == "stand ground"]
            if g.state.box[gb] == BOX_MAP and g.state.hex[gb] != h("1312"):
                moved[hitched] += 1
    assert moved[False] == 0 and moved[True] > 0
