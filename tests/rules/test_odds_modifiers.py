"""The combat odds modifiers of rule 9.92 (armor, engineers, envelopment,
integrity, mixed formations, morale) with the morale levels of 9.93, 11.1,
11.2 and 11.4, the strongpoints' morale (16.24) and remnants (9.95, 17.32),
each on a small constructed position where the modifier decides the answer.

Every test asserts the whole set of modifiers the attack gets (leader rolls
left out, no air support), so that a modifier appearing where the rules give
none fails as well as one missing.
"""

from __future__ import annotations

from malta_sim.iod.rules import combat
from malta_sim.iod.state import ALLIED, AXIS, DEMORALIZED

from tests.conftest import h, make, u

# a clear hex and its six neighbours; a fort hex and five of its neighbours
CLEAR, AROUND = "1311", ("1310", "1410", "1411", "1312", "1211", "1210")
FORT, FORT_AROUND = "1110", ("1109", "1209", "1210", "1010", "1009")


def _mods(game, side, attackers, defenders, target):
    """The odds modifiers of ``attackers`` (names) on ``defenders`` in hex
    ``target``, without leader rolls or air support markers."""
    return combat.odds_modifiers(game, side, [u(x) for x in attackers], [u(x) for x in defenders],
                                 h(target), roll_leaders=False)


def _place(pairs):
    """``{hex: [unit, ...]}`` from ``(unit, hex)`` pairs."""
    out: dict = {}
    for name, hx in pairs:
        out.setdefault(hx, []).append(name)
    return out


def _attack(pairs, defenders, target=CLEAR, side=AXIS, demoralized=(), levels=None, fort=None):
    """Place ``pairs`` (attackers, in this order) and ``defenders`` in
    ``target``, apply the given morale states and levels, and return the
    attack's odds modifiers."""
    placed = _place(pairs)
    placed.setdefault(target, []).extend(defenders)
    g = make(placed)
    s = g.state
    for x in demoralized:
        s.morale_state[u(x)] = DEMORALIZED
    for x, lv in (levels or {}).items():
        s.level[u(x)] = lv
    if fort is not None:
        s.fort_destroyed[h(target)] = not fort
    return _mods(g, side, [n for n, _ in pairs], defenders, target)


# ------------------------------------------------------------------ 9.92 armor
def test_rule_9_92_armor_attacking_tank_stacked_with_a_marine():
    """9.92: non-demoralized tank stacked with a marine unit attacking: +2
    (tank first in the attack; tank 4 and marine 6 average 5 against the
    company's 4: morale +1)."""
    m = _attack([("axis.un.tank_10", "1210"), ("axis.un.sm_1", "1210")], ["allied.uk.inf_coy.1"])
    assert m == {"armor_attacking": 2, "morale": 1}


def test_rule_9_92_no_armor_bonus_when_the_partner_is_in_another_hex():
    """9.92: the tank must be *stacked* with the infantry-type unit; a tank
    alone in its hex gives no armor bonus even though a marine attacks from
    the next hex, and a second tank is no partner."""
    m = _attack([("axis.un.tank_10", "1210"), ("axis.un.sm_1", "1310")], ["allied.uk.inf_coy.1"])
    assert m == {"morale": 1}
    m = _attack([("axis.un.tank_10", "1210"), ("axis.un.tank_t", "1210"), ("axis.un.sm_1", "1310")],
                ["allied.uk.inf_coy.1"])
    assert m == {"morale": 2}                       # (4 + 6 + 6) / 3 = 5.33 -> 6 (11.1)


def test_rule_11_4_demoralized_tank_gives_no_armor_bonus():
    """11.4 / 9.92: a demoralized tank may not give the armor bonus (its
    morale 4 - 1 = 3 and the marine's 6 average 4.5 -> 5: +1)."""
    m = _attack([("axis.un.tank_10", "1210"), ("axis.un.sm_1", "1210")], ["allied.uk.inf_coy.1"],
                demoralized=["axis.un.tank_10"])
    assert m == {"morale": 1}


def test_rule_9_92_armor_defending():
    """9.92: a tank stacked with an infantry company in the defending hex:
    -1 for the attacker."""
    m = _attack([("axis.4.1_34", "1310")], ["allied.uk.1_r", "allied.uk.inf_coy.1"])
    assert m == {"armor_defending": -1}


# ------------------------------------------------------------------ 9.92 engineers
def test_rule_9_92_engineers_in_every_attacking_hex_against_a_fort():
    """9.92: defender in a fort hex and each attacking hex holds an engineer:
    +1 (the engineer listed first in its hex, the other hex's engineer after
    a battalion)."""
    m = _attack([("axis.4.eng_11.1", "1009"), ("axis.4.1_34", "1009"), ("axis.4.2_34", "1010"),
                 ("axis.4.eng_11.2", "1010")], ["allied.uk.inf_coy.1"], target=FORT, fort=True)
    assert m == {"engineers": 1}


def test_rule_9_92_no_engineer_bonus_when_one_attacking_hex_has_none():
    """9.92: *each* attacking hex must include an engineer; 1009 has only
    battalions, so there is no bonus though two other hexes have engineers."""
    m = _attack([("axis.4.1_34", "1009"), ("axis.4.eng_11.1", "1010"), ("axis.20.eng_20.1", "1210"),
                 ("axis.4.2_34", "1009")], ["allied.uk.inf_coy.1"], target=FORT, fort=True)
    assert m == {"mixed_formations": -1}            # 4th and 20th divisions


def test_rule_9_92_no_engineer_bonus_without_engineers_or_without_a_fort():
    """9.92: battalions alone against a fort get no engineer bonus, and
    engineers in every attacking hex of a hex without a fort get none
    either (destroyed fort, 17.1)."""
    m = _attack([("axis.4.1_34", "1009"), ("axis.4.2_34", "1010")], ["allied.uk.inf_coy.1"],
                target=FORT, fort=True)
    assert m == {}
    m = _attack([("axis.4.eng_11.1", "1009"), ("axis.4.eng_11.2", "1010")], ["allied.uk.inf_coy.1"],
                target=FORT, fort=False)
    assert m == {}


# ------------------------------------------------------------------ 9.92 envelopment
def test_rule_9_92_envelopment_from_four_hexes():
    """9.92: units in four hexes attack the same hex: +1 (marines, morale 6
    against 4: +2)."""
    m = _attack([("axis.un.sm_1", "1310"), ("axis.un.sm_2", "1410"), ("axis.un.sm_3", "1411"),
                 ("axis.un.sm_4", "1312")], ["allied.uk.inf_coy.1"])
    assert m == {"envelopment": 1, "morale": 2}


def test_rule_9_92_envelopment_counts_hexes_not_units():
    """9.92: four units from three hexes: no envelopment; five units from
    four hexes (the first and the last stacked): +1."""
    m = _attack([("axis.un.sm_1", "1310"), ("axis.un.sm_2", "1410"), ("axis.un.sm_3", "1410"),
                 ("axis.un.sm_4", "1411")], ["allied.uk.inf_coy.1"])
    assert m == {"morale": 2}
    m = _attack([("axis.un.sm_1", "1310"), ("axis.un.sm_2", "1410"), ("axis.un.sm_3", "1411"),
                 ("axis.un.sm_4", "1312"), ("axis.un.sm_5", "1310")], ["allied.uk.inf_coy.1"])
    assert m == {"envelopment": 1, "morale": 2}


# ------------------------------------------------------------------ 9.92 integrity
def test_rule_9_92_attacker_integrity_of_a_four_battalion_brigade():
    """9.92: all four battalions of the Allied Northern brigade (the first
    brigade of the data) attack the same hex from two hexes: +2 (morale 4
    against the paratroopers' 6: -2)."""
    m = _attack([("allied.uk.8m", "1310"), ("allied.uk.2rif", "1310"), ("allied.mt.1k", "1410"),
                 ("allied.mt.10k", "1410")], ["axis.185.ii_187"], side=ALLIED)
    assert m == {"attacker_integrity": 2, "morale": -2}


def test_rule_9_92_defender_integrity():
    """9.92: all three battalions of the 186th Regiment defend the hex: -1
    (morale 4 against 6: -2)."""
    m = _attack([("allied.uk.8m", "1310")], ["axis.185.v_186", "axis.185.vi_186", "axis.185.vii_186"],
                side=ALLIED)
    assert m == {"defender_integrity": -1, "morale": -2}


def test_rule_9_92_integrity_found_among_other_attackers():
    """9.92: the integrity bonus is +2 when the whole 186th attacks, whatever
    other units attack with it: listed after a battalion of the 187th, or
    between marine companies."""
    m = _attack([("axis.185.ii_187", "1310"), ("axis.185.v_186", "1310"), ("axis.185.vi_186", "1410"),
                 ("axis.185.vii_186", "1410")], ["allied.uk.inf_coy.1"])
    assert m == {"attacker_integrity": 2, "morale": 2}
    m = _attack([("axis.un.sm_1", "1310"), ("axis.185.v_186", "1310"), ("axis.un.sm_2", "1410"),
                 ("axis.185.vi_186", "1410"), ("axis.un.sm_3", "1411"), ("axis.185.vii_186", "1411")],
                ["allied.uk.inf_coy.1"])
    assert m == {"attacker_integrity": 2, "mixed_formations": -1, "morale": 2}


def test_rule_9_92_no_integrity_for_part_of_a_regiment():
    """9.92: one battalion of a regiment, or one battalion each of two
    regiments, gets no integrity bonus."""
    m = _attack([("axis.185.ii_187", "1310")], ["allied.uk.inf_coy.1"])
    assert m == {"morale": 2}
    m = _attack([("axis.185.ii_187", "1310"), ("axis.4.1_34", "1410")], ["allied.uk.inf_coy.1"])
    assert m == {"mixed_formations": -1, "morale": 1}       # (6 + 4) / 2 = 5


# ------------------------------------------------------------------ 9.92 mixed formations, 17.32
def test_rule_9_92_one_formation_is_not_mixed():
    """9.92: two, or three, battalions of the 185th Division (two regiments)
    attacking: no mixed-formation penalty; a battalion of the 4th Division
    with one of the 185th: -1."""
    m = _attack([("axis.185.v_186", "1310"), ("axis.185.vi_186", "1410")], ["allied.uk.inf_coy.1"])
    assert m == {"morale": 2}
    m = _attack([("axis.185.v_186", "1310"), ("axis.185.vi_186", "1410"), ("axis.185.ii_187", "1410")],
                ["allied.uk.inf_coy.1"])
    assert m == {"morale": 2}
    m = _attack([("axis.185.v_186", "1310"), ("axis.4.1_34", "1410")], ["allied.uk.inf_coy.1"])
    assert m == {"mixed_formations": -1, "morale": 1}


def test_rule_17_32_a_remnant_attacking_with_its_own_division_is_mixed():
    """17.32 / 9.95: a remnant is no part of any formation, so a remnant of
    the 186th attacking with another battalion of the 185th Division gets the
    mixed-formation penalty, listed first or second."""
    for order in ((("axis.185.v_186", "1310"), ("axis.185.vi_186", "1410")),
                  (("axis.185.vi_186", "1410"), ("axis.185.v_186", "1310"))):
        m = _attack(list(order), ["allied.uk.inf_coy.1"], levels={"axis.185.v_186": 2})
        assert m == {"mixed_formations": -1, "morale": 2}


# ------------------------------------------------------------------ 9.92 / 11.1 / 11.2 morale
def test_rule_11_2_morale_against_a_strongpoint():
    """16.24 / 11.2: a strongpoint defends with morale 4; one 186th battalion
    (6) attacking it: +2."""
    m = _attack([("axis.185.v_186", "1310")], ["allied.sp.a.1"])
    assert m == {"morale": 2}


def test_rule_9_93_demoralized_attacker_morale_minus_one():
    """9.93 / 11.4: a demoralized 186th battalion attacks with morale 6 - 1 =
    5 against the company's 4: +1."""
    m = _attack([("axis.185.v_186", "1310")], ["allied.uk.inf_coy.1"], demoralized=["axis.185.v_186"])
    assert m == {"morale": 1}


def test_rule_11_2_morale_difference_capped_at_plus_three_and_minus_two():
    """11.2: a Ramcke battalion (7) against an RAF company (3) differs by 4:
    +3; an Allied battalion (4) against a Ramcke battalion (7) differs by
    -3: -2; equal morale (4 against 4): no modifier."""
    assert _attack([("axis.ram.1_2", "1310")], ["allied.raf.tak"]) == {"morale": 3}
    assert _attack([("allied.uk.8m", "1310")], ["axis.ram.1_2"], side=ALLIED) == {"morale": -2}
    assert _attack([("axis.4.1_34", "1310")], ["allied.uk.inf_coy.1"]) == {}


def test_rule_9_95_17_32_a_remnant_attacking_alone_is_not_mixed():
    """9.95 and 17.32 disagree on a remnant attacking alone: 17.32 gives the
    mixed-formation penalty to "any attack" a remnant takes part in, 9.95 to
    a remnant that "attacks with any other unit".  The reading recorded
    (docs/rules_coverage.csv, 17.32): 9.95's, which matches the penalty's
    own definition in 9.92 (units of more than one formation): a lone
    remnant has no other formation to mix with, so no penalty; with another
    remnant beside it, -1."""
    m = _attack([("axis.185.v_186", "1310")], ["allied.uk.inf_coy.1"], levels={"axis.185.v_186": 2})
    assert m == {"morale": 2}
    m = _attack([("axis.185.v_186", "1310"), ("axis.185.vi_186", "1410")], ["allied.uk.inf_coy.1"],
                levels={"axis.185.v_186": 2, "axis.185.vi_186": 2})
    assert m == {"mixed_formations": -1, "morale": 2}
