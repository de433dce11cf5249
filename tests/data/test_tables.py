"""Island of Death tables: the printed numbers (rules 6.41, 9.71, 12.54, 14.4, 16.32,
17.2, 17.4, 17.51, 17.8, 18.5, 19.46, 20.0-20.3, 21.11, 21.2, 22.39) and the shape of
the reconstructed ones (17.6, 18.6)."""

import numpy as np
import pytest

from malta_sim.loaders.iod_tables import WEATHERS, load_tables


@pytest.fixture(scope="module")
def t():
    return load_tables()


def test_rule_17_2_weather(t):
    """2-8 clear (3 air support markers), 9-10 cloudy (1, air attacks halved), 11-12 rainy (none)."""
    w = [WEATHERS[c] for c in t.weather_by_roll[2:]]
    assert w == ["clear"] * 7 + ["cloudy"] * 2 + ["rainy"] * 2
    assert list(t.air_support_by_weather) == [3, 1, 0]            # 16.41
    rainy = [b for b in t.weather if b.weather == "rainy"][0]
    assert not (rainy.jumps or rainy.airfield_landings or rainy.warship_support) and rainy.air_attacks == "none"
    assert [b for b in t.weather if b.weather == "cloudy"][0].air_attacks == "half"


def test_rule_20_0_surrender_modifiers(t):
    m = {k: (v.value, v.per, v.max_times) for k, v in t.surrender_modifiers.items()}
    for h in ("1711", "1809", "1810", "1911"):
        assert m[f"axis_city_{h}"] == (-1, 1, 1)
    assert m["axis_airfields"] == (-1, 1, 0)
    assert m["axis_towns"] == (-1, 4, 0)
    assert m["forts_destroyed"] == (-1, 2, 1)
    assert m["allied_steps"] == (-1, 9, 0) and m["axis_steps"] == (1, 9, 0)
    assert m["axis_hq"] == (2, 1, 0) and m["beach_followup"] == (1, 1, 0)
    assert m["rn_4_5"][0] == 1 and m["rn_6"][0] == 3
    assert [m[f"date_07-{d:02d}"][0] for d in range(6, 11)] == [1, 2, 3, 4, 5]
    # 20.1 / 20.2: 17 steps lost round down to one nine
    assert t.surrender_modifiers["allied_steps"].amount(17) == -1
    assert t.surrender_modifiers["axis_steps"].amount(17) == 1
    # fractions of four towns do not count; five forts still -1
    assert t.surrender_modifiers["axis_towns"].amount(7) == -1
    assert t.surrender_modifiers["forts_destroyed"].amount(5) == -1
    # Intro opening position (22.29): Takali, 5 towns, 2 forts, 10 Allied and 22 Axis steps lost
    counts = {"axis_airfields": 1, "axis_towns": 5, "forts_destroyed": 2, "allied_steps": 10, "axis_steps": 22}
    assert t.surrender_modifier(counts) == -1 - 1 - 1 - 1 + 2


def test_rule_20_3_results(t):
    assert [t.surrender_outcome(r) for r in (-5, 0, 1, 13, 14, 20)] == [
        "axis_wins", "axis_wins", "continue", "continue", "allied_wins", "allied_wins"]


def test_rule_16_32_militia(t):
    assert t.militia_min == {"city": 3, "town": 5}


def test_rule_17_51_air_attacks(t):
    assert t.air_attacks == {0: 14, 1: 12, 2: 10, 3: 8}


def test_procedure_numbers(t):
    p = t.params
    assert p["landing_losses"] == {"range": 2, "drm_adjacent": 2, "drm_within_range": 1, "eliminate_min": 7}   # 18.5
    assert p["airborne_losses"]["loss_min"] == 7 and p["airborne_losses"]["aa_range"] == 3                      # 19.46
    assert p["infiltration"]["success_min"] == 9 and p["infiltration"]["drm_enemy_forts"] == -2                 # 6.41
    assert p["stand_ground"] == {"drm_leader_in_hex": -1}                                                       # 9.71
    assert p["leader_casualties"] == {"combat_max": 3, "drm_per_extra_step": -1, "lone_max": 7}                 # 14.4
    a = p["ammunition"]
    assert (a["dice_main_port"], a["dice_minor_port"], a["dice_landed_beach"], a["salvo_min"]) == (6, 3, 1, 5)  # 12.54
    assert p["replacements"] == {"axis_day": 4, "axis_italian_infantry": 2, "axis_italian_glider": 1,
                                 "min_enemy_distance": 3}                                                       # 17.4
    assert p["stragglers"] == {"recover_min": 6}                                                                # 17.8
    assert p["delayed_landings"]["cancel_min"] == 7 and p["delayed_landings"]["drm_no_axis_airfield"] == 2      # 22.39
    assert p["airfields"]["companies_per_turn"] == 2 and p["airfields"]["aa_hit_min"] == 6                      # 16.11-12


def test_solitaire_tables(t):
    """21.11 drop zone hexes and 21.2 beach zones by die."""
    assert t.solo_drop_zones == ["0911", "0911", "1313", "1512", "1813", "2012"]
    assert t.solo_beach_zones == ["West", "West", "North", "North", "East", "South"]


def test_waters_edge_monotone(t):
    """18.6 (reconstructed): more strength never fewer X; a higher die never fewer X; X is never certain."""
    x = t.waters_edge_x
    assert np.all(x[1:] >= x[:-1])
    assert np.all(x[:, 1:] >= x[:, :-1])
    assert not x[:, 0].any()
    assert t.waters_edge(0, 6) and not t.waters_edge(2, 5) and t.waters_edge(40, 2)


def test_royal_navy_table(t):
    """17.6 (reconstructed): results worsen for the Axis with the die; 4-5 and 6 carry the 20.0 modifiers."""
    rows = [t.rn[d] for d in range(1, 7)]
    assert [r.surrender_modifier for r in rows] == [0, 0, 0, 1, 1, 3]
    ships = [99 if r.warships_damaged == -1 else r.warships_damaged for r in rows]
    assert ships == sorted(ships)


def test_printed_constants(t):
    """5.2 ZOC costs, 7.1 stacking, 8.2 supply length, 9.86 advance, 11.2 morale caps, 14.3 leader MA."""
    c = t.params["constants"]
    assert [c[f"zoc_{a}_{m}"] for m in ("foot", "mot", "mech") for a in ("enter", "exit")] == [2, 2, 3, 3, 2, 1]
    assert (c["stack_battalions"], c["supply_route_hexes"], c["leader_ma"]) == (4, 12, 14)
    assert (c["advance_foot_max"], c["advance_mot_mech_max"], c["morale_shift_max"], c["morale_shift_min"]) == (2, 3, 3, -2)
