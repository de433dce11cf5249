"""Rule kernels of the invasion: exact odds and statistical checks.

Statistical tests draw with a fixed seed and compare frequencies to the exact
probabilities with a chi-square (or binomial) test at significance 1e-4 each:
with the fixed seed the outcome is deterministic; across seeds the chance that
a correct kernel fails one such test is 1 in 10,000 (false-alarm rate 1e-4).
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np
import pytest
from scipy.stats import binomtest, chisquare

from malta_sim.iod.rules import airborne, airfields, coastal_guns as coastal, amphibious as landings, militia, special_rules as special
from malta_sim.hexgrid import IOD_GRID, Grid
from malta_sim.kernels import drop as kdrop
from malta_sim.rng import numba_state

ALPHA = 1e-4
N = 20_000


def _state(tag: int = 0):
    return numba_state(20260629, tag, "misc")


@nb.njit(cache=True)
def _many_warship(rs, n, av, w3):
    out = 0
    for _ in range(n):
        if coastal.gun_fires_at_warship(rs, av, w3):
            out += 1
    return out


@nb.njit(cache=True)
def _many_wave(rs, n, av, w3, out):
    for i in range(n):
        out[i] = coastal.gun_fires_at_wave_box(rs, av, w3)


@nb.njit(cache=True)
def _many_landing(rs, n, dist):
    k = 0
    for _ in range(n):
        if landings.landing_loss_roll(rs, dist):
            k += 1
    return k


@nb.njit(cache=True)
def _many_we(rs, n, strength, col_min, table, out):
    for i in range(n):
        out[i] = landings.waters_edge_fire(rs, strength, col_min, table)


@nb.njit(cache=True)
def _many_aa(rs, n):
    k = 0
    for _ in range(n):
        if airfields.aa_fire(rs):
            k += 1
    return k


@nb.njit(cache=True)
def _many_air_attack(rs, n, att, aa):
    k = 0
    for _ in range(n):
        if special.air_attack_gun(rs, att, aa):
            k += 1
    return k


@nb.njit(cache=True)
def _many_airborne_loss(rs, n, a, b, c):
    k = 0
    for _ in range(n):
        reduced, _d = kdrop.airborne_loss_roll(rs, a, b, c)
        if reduced:
            k += 1
    return k


def _binom_ok(k, n, p):
    return binomtest(int(k), int(n), float(p)).pvalue > ALPHA


# ----------------------------------------------------------------- 16.55
@pytest.mark.parametrize("av,w3", [(1, False), (2, True), (3, False), (4, True)])
def test_rule_16_55_coastal_gun_vs_warship_statistical(av, w3):
    """Rule 16.55: P(damage) = 1 - (5/6)^n, or 1 - (4/6)^n within 3 hexes.
    False-alarm rate 1e-4."""
    k = _many_warship(_state(av), N, av, w3)
    assert _binom_ok(k, N, coastal.p_warship_damaged(av, w3))


def test_rule_16_55_exact_values():
    assert coastal.p_warship_damaged(1, False) == Fraction(1, 6)
    assert coastal.p_warship_damaged(1, True) == Fraction(1, 3)
    assert coastal.p_warship_damaged(2, False) == 1 - Fraction(25, 36)


@pytest.mark.parametrize("av,w3", [(2, False), (3, True)])
def test_rule_16_56_coastal_gun_vs_wave_box_statistical(av, w3):
    """Rule 16.56: hits are binomial(n, 1/6), or (n, 1/3) within 3 hexes.
    Chi-square, false-alarm rate 1e-4."""
    out = np.empty(N, dtype=np.int64)
    _many_wave(_state(10 + av), N, av, w3, out)
    pmf = coastal.wave_box_hits_pmf(av, w3)
    obs = np.bincount(out, minlength=av + 1)
    assert chisquare(obs, pmf * N).pvalue > ALPHA


def test_rule_16_79_warship_dice():
    """Rule 16.79: half the offensive support, rounded up; any 6 destroys."""
    assert coastal.warship_dice(5) == 3
    assert coastal.warship_dice(4) == 2
    assert coastal.p_any_six(3) == 1 - Fraction(125, 216)


# ----------------------------------------------------------------- 16.54
def test_rule_16_54_line_of_fire_blocked_by_town():
    """Rule 16.54: a town between gun and target blocks; the end hexes do not."""
    # 1210 lies between 1110 and 1310? use a straight column line instead.
    assert coastal.line_of_fire_clear("1205", "1208", {"1206"}) is False
    assert coastal.line_of_fire_clear("1205", "1208", {"1205", "1208"}) is True
    assert coastal.line_of_fire_clear("1205", "1208", set()) is True


def test_rule_16_54_line_of_fire_hexside_tie():
    """Rule 16.54: along a hexside, fire is blocked only when both sides block."""
    from malta_sim.hexgrid import hex_line

    # find a pair with a tie step
    a = "1010"
    for b in ["1209", "1211", "1308", "1312", "1410"]:
        steps = hex_line(a, b)
        ties = [s for s in steps if len(s) == 2]
        if ties:
            x, y = ties[0]
            assert coastal.line_of_fire_clear(a, b, {x}) is True
            assert coastal.line_of_fire_clear(a, b, {x, y}) is False
            return
    pytest.skip("no tie line found")


def test_rule_16_54_line_of_fire_creek_with_rise_hexside():
    """Rule 16.54: a crossed Creek-with-Rise hexside blocks."""
    assert coastal.line_of_fire_clear("1205", "1208", set(), {frozenset(("1206", "1207"))}) is False
    assert coastal.line_of_fire_clear("1205", "1208", set(), {frozenset(("1106", "1107"))}) is True


def test_line_of_fire_table_range():
    g = Grid(1, 26, 1, 20)
    t = coastal.line_of_fire_table(g, ["1205"], ["1208", "1215"], [4], set())
    assert t.tolist() == [[True, False]]


# ----------------------------------------------------------------- 17.52
@pytest.mark.parametrize("att,aa", [(3, 0), (4, 1), (1, 2)])
def test_rule_17_52_air_attack_statistical(att, aa):
    """Rule 17.52: dice = attacks - AA within 3; any 6 destroys.  False-alarm 1e-4."""
    k = _many_air_attack(_state(30 + att), N, att, aa)
    p = special.p_air_attack_kill(att, aa)
    if p == 0:
        assert k == 0
    else:
        assert _binom_ok(k, N, p)


def test_rule_17_51_air_attacks_by_day_and_weather():
    from malta_sim.iod.state import CLEAR, CLOUDY, RAINY

    assert special.air_attacks_available(0, CLEAR) == 14
    assert special.air_attacks_available(1, CLOUDY) == 6
    assert special.air_attacks_available(2, RAINY) == 0
    assert special.air_attacks_available(3, CLEAR) == 8
    assert special.air_attacks_available(4, CLEAR) == 0
    assert special.air_attacks_available(0, CLEAR, scenario="intro") == 0  # 17.53


# ----------------------------------------------------------------- 18.5
@pytest.mark.parametrize("dist", [1, 2, 3])
def test_rule_18_5_landing_losses_statistical(dist):
    """Rule 18.5: die +2 adjacent / +1 at two hexes, 7+ eliminates; no roll beyond.
    False-alarm rate 1e-4."""
    k = _many_landing(_state(40 + dist), N, dist)
    p = landings.p_landing_loss(dist)
    if p == 0:
        assert k == 0
    else:
        assert _binom_ok(k, N, p)


def test_rule_18_5_exact():
    assert landings.p_landing_loss(1) == Fraction(1, 3)
    assert landings.p_landing_loss(2) == Fraction(1, 6)
    assert landings.landing_loss_modifier(0) == 2
    assert landings.landing_loss_modifier(3) == -1


# ----------------------------------------------------------------- 18.6
@pytest.mark.parametrize("strength", [2, 7, 30])
def test_rule_18_6_waters_edge_statistical(strength):
    """Rule 18.6: one die on the Water's Edge Combat Table.  Chi-square vs the
    table's exact distribution, false-alarm rate 1e-4."""
    out = np.empty(N, dtype=np.int64)
    cm, tb = landings.FALLBACK_WE_COL_MIN, landings.FALLBACK_WE_TABLE
    _many_we(_state(50 + strength), N, strength, cm, tb, out)
    pmf = landings.waters_edge_pmf(strength, cm, tb)
    keys = sorted(pmf)
    obs = np.array([(out == k).sum() for k in keys])
    exp = np.array([float(pmf[k]) * N for k in keys])
    assert obs.sum() == N
    if len(keys) > 1:
        assert chisquare(obs, exp).pvalue > ALPHA


def test_rule_18_6_zero_strength_no_fire():
    assert landings.waters_edge_pmf(0, landings.FALLBACK_WE_COL_MIN, landings.FALLBACK_WE_TABLE) == {0: 1}


# ----------------------------------------------------------------- 18.31, 18.32
def test_rule_18_31_first_wave_limits():
    K = landings
    assert K.first_wave_ok([K.KIND_INFANTRY, K.KIND_ENGINEER, K.KIND_MARINE], [4, 4, 4])[0]
    assert not K.first_wave_ok([K.KIND_INFANTRY] * 3, [4, 4, 4])[0]
    assert K.first_wave_ok([K.KIND_MARINE] * 3, [4, 4, 4])[0]
    assert not K.first_wave_ok([K.KIND_MARINE] * 4, [4] * 4)[0]
    assert not K.first_wave_ok([K.KIND_INFANTRY, K.KIND_MARINE, K.KIND_MARINE], [4] * 3)[0]
    assert not K.first_wave_ok([K.KIND_ARTILLERY], [4])[0]
    assert not K.first_wave_ok([K.KIND_INFANTRY, K.KIND_INFANTRY], [4, 20])[0]
    assert K.second_wave_ok(1)[0] and not K.second_wave_ok(2)[0]


# ----------------------------------------------------------------- 16.12
def test_rule_16_12_aa_fire_statistical():
    """Rule 16.12: each AA die of 6 eliminates one unit.  False-alarm rate 1e-4."""
    k = _many_aa(_state(60), N)
    assert _binom_ok(k, N, airfields.p_aa_kill())


# ----------------------------------------------------------------- 19.46
@pytest.mark.parametrize("mods", [(False, False, False), (True, True, False), (True, True, True)])
def test_rule_19_46_airborne_losses_statistical(mods):
    """Rule 19.46: die + one per modifier, 7+ reduces.  False-alarm rate 1e-4."""
    k = _many_airborne_loss(_state(70 + sum(mods)), N, *mods)
    p = airborne.p_airborne_loss(sum(mods))
    if p == 0:
        assert k == 0
    else:
        assert _binom_ok(k, N, p)


def test_rule_19_32_relative_positions_roundtrip():
    off = airborne.relative_offset("1210", "1312")
    assert airborne.apply_offset("1210", off) == "1312"
    assert airborne.apply_offset("1511", off) is not None


def test_rule_19_22_plan_limits():
    assert airborne.plan_target_ok(True, 3, False)[0]
    ok, long_used, _ = airborne.plan_target_ok(True, 5, False)
    assert ok and long_used
    assert not airborne.plan_target_ok(True, 5, True)[0]
    assert not airborne.plan_target_ok(False, 1, False)[0]


# ----------------------------------------------------------------- 16.32
def test_rule_16_32_militia_trigger_one_roll_per_hex():
    """Rule 16.32: one roll per town/city hex per game; 16.36 stop when empty."""
    g = IOD_GRID
    H = g.n_hexes
    town = np.zeros(H, dtype=np.bool_)
    city = np.zeros(H, dtype=np.bool_)
    town[g.index("1210")] = True
    city[g.index("1809")] = True
    rolled = np.zeros(H, dtype=np.bool_)
    cup = np.ones(5, dtype=np.bool_)
    out = np.full(5, -1, dtype=np.int32)
    rs = _state(90)
    militia.militia_trigger(rs, g.index("1310"), town, city, rolled, g.neighbour_table, cup, out)
    assert rolled[g.index("1210")]
    before = cup.copy()
    militia.militia_trigger(rs, g.index("1210"), town, city, rolled, g.neighbour_table, cup, out)
    assert (cup == before).all()  # already rolled: no new roll


@nb.njit(cache=True)
def _many_militia(rs, n, is_city):
    k = 0
    for _ in range(n):
        if militia.militia_roll(rs, is_city):
            k += 1
    return k


@pytest.mark.parametrize("is_city", [False, True])
def test_rule_16_32_militia_roll_statistical(is_city):
    """Rule 16.32: town 5-6, city 3-6.  False-alarm rate 1e-4."""
    k = _many_militia(_state(91 + is_city), N, is_city)
    assert _binom_ok(k, N, militia.p_militia(is_city))


def test_rule_16_31_cup():
    rs = _state(95)
    assert militia.initial_cup(5, 5, rs).sum() == 5
    assert militia.initial_cup(5, 4, rs).sum() == 4


# ----------------------------------------------------------------- 17.7, 17.8, 22.39
def test_rule_17_7_delayed_reaction():
    assert special.delayed_reaction_radius(0) == 4
    assert special.delayed_reaction_radius(1) == 7
    assert special.delayed_reaction_radius(2) == -1
    assert special.delayed_reaction_radius(0, "intro") == -1
    dist = IOD_GRID.distance_table
    u = IOD_GRID.index("1210")
    ax = np.array([IOD_GRID.index("1610")], dtype=np.int32)
    assert special.allied_may_act(4, u, ax, dist)
    ax = np.array([IOD_GRID.index("1810")], dtype=np.int32)
    assert not special.allied_may_act(4, u, ax, dist)
    assert special.allied_may_act(7, u, ax, dist)


def test_rule_22_39_delayed_landings_modifier():
    from malta_sim.iod.state import RAINY

    assert special.delayed_landings_modifier(0, 9, 1, RAINY) == 5
    assert special.delayed_landings_modifier(1, 0, 0, 0) == 0
    assert special.p_delayed(0) == 0
    assert special.p_delayed(1) == Fraction(1, 6)
    assert special.p_delayed(6) == 1


def test_rule_17_6_rn_surrender_modifier():
    assert [special.rn_surrender_modifier(d) for d in range(7)] == [0, 0, 0, 0, 1, 1, 3]


def test_rule_16_41_air_support_markers():
    from malta_sim.iod.state import CLEAR, CLOUDY, RAINY

    assert special.air_support_markers(CLEAR) == 3
    assert special.air_support_markers(CLOUDY) == 1
    assert special.air_support_markers(RAINY) == 0
    assert special.air_support_markers(CLEAR, 1) == 2


def test_rule_16_25_engineers_from_strongpoints():
    assert special.engineers_from_dismantling(4, 0) == 1
    assert special.engineers_from_dismantling(8, 1) == 1
    assert special.engineers_from_dismantling(12, 2) == 0
