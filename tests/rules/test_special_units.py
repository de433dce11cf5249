"""Special units (rule 16): airfields and AA, militia, air support, coastal guns, warships
and headquarters, on constructed positions and by the dice kernels' exact odds.

Statistical tests draw with a fixed seed (:func:`tests.conftest.kernel_stream`) and compare
frequencies with the exact probabilities by a binomial or chi-square test at significance
1e-4 each (false-alarm rate 1e-4 per test; with the fixed seed the outcome is deterministic).
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np
import pytest
from scipy.stats import chisquare

from malta_sim.hexgrid import Grid, IOD_GRID
from malta_sim.iod import invasion as H, static as st
from malta_sim.iod.rules import (airfields, amphibious, coastal_guns, coastal_guns as coastal,
                                 combat, militia, organisation, special_rules as special, warships)
from malta_sim.iod.state import (ALLIED, AXIS, BOX_DAMAGED, BOX_DISBANDMENT, BOX_ELIMINATED,
                                 BOX_FIRST_WAVE, BOX_MAP, BOX_TURN_TRACK, RAINY)

from tests.conftest import (ALPHA, binom_ok, clear_allied, failed_communications, h, hercules_game,
                            kernel_stream, landing_zone_game, make, N_DRAWS, Scripted, static, u)


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
        failed = ship in (failed_communications(g) or set())
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


def test_rule_16_82_axis_hq_returns_four_days_later():
    g = make({"1107": ["axis.4.hq"]}, turn=5)
    g.scenario.hq_cutoff_day = 3
    g.scenario.follow_up_zone[4] = 0
    organisation.eliminate(g, u("axis.4.hq"))
    assert g.state.box[u("axis.4.hq")] == BOX_TURN_TRACK
    assert g.state.return_turn[u("axis.4.hq")] == (1 + 4) * 4
    assert g.state.axis_steps_lost[0] == 0                            # HQs not counted (20.0)
    g2 = make({"1107": ["axis.4.hq"]}, turn=13)
    g2.scenario.hq_cutoff_day = 3
    organisation.eliminate(g2, u("axis.4.hq"))
    assert g2.state.box[u("axis.4.hq")] == BOX_ELIMINATED             # too late to return


# ----------------------------------------------------------------- 16.5 / 16.7
def test_rule_16_56_guns_fire_only_in_range_and_line_of_fire():
    g, z, beaches = landing_zone_game()
    s, t = g.state, g.static
    inv = H.inv_static(g)
    opts = amphibious.wave_options(g)
    fill = amphibious.fill_wave_boxes(g, opts, None)
    for (w, b), us in fill.items():
        for u in us:
            s.box[u], s.box_slot[u] = w, b
    seen = {}

    def spy(game, options):
        seen.update(options)
        return {}
    g.policy(ALLIED).coastal_fire_boxes = spy
    coastal_guns.coastal_fire_at_boxes(g)
    d = t.grid.distance_table
    for gun, boxes in seen.items():
        for (w, b) in boxes:
            assert d[s.hex[gun], b] <= inv.gun_range[gun]
            assert coastal_guns.line_of_fire_clear(t.grid.hex_id(int(s.hex[gun])), t.grid.hex_id(b),
                                           inv.los_block, inv.los_block_sides)


def test_rule_16_7_warships_placed_at_sea_two_per_hex():
    g = hercules_game()
    warships.place_warships(g)
    s, t = g.state, g.static
    inv = H.inv_static(g)
    ships = warships.ships_in_play(g)
    assert len(ships) == 8
    hexes = [int(s.hex[u]) for u in ships]
    assert all(inv.ocean[h] for h in hexes)
    assert max(hexes.count(h) for h in hexes) <= 2


def test_rule_16_55_damaged_warship_counts_one_axis_step():
    g = hercules_game()
    warships.place_warships(g)
    s = g.state
    u = warships.ships_in_play(g)[0]
    before = int(s.axis_steps_lost[0])
    warships.damage_warship(g, u)
    assert s.box[u] == BOX_DAMAGED and int(s.warships_damaged[0]) == 1
    assert int(s.axis_steps_lost[0]) == before + 1                                     # 20.2


def test_rule_16_76_no_warship_fire_in_rain():
    g = hercules_game()
    warships.place_warships(g)
    g.state.weather[0] = RAINY
    assert not warships.may_fire(g)


# ----------------------------------------------------------------- 16.1 airfields
def test_rule_16_11_airfield_capacity_and_aa():
    g = hercules_game()
    s, t = g.state, g.static
    clear_allied(g)
    af = [int(h) for h in np.flatnonzero(t.airfield)][0]
    s.control[af] = AXIS
    aa = [u for u in range(len(t.names)) if t.aa[u]][0]
    far = [int(x) for x in np.flatnonzero(t.land) if t.grid.distance_table[af, x] == 3][0]
    s.box[aa], s.hex[aa] = BOX_MAP, far
    airfields.airfield_entry(g)
    landed = [u for u in g.units_at(af, AXIS)]
    dead = [u for u in range(len(t.names)) if s.box[u] == 5 and t.printed_formation[u] == 3]
    cost = sum(2 if t.utype[u] == st.ARTILLERY else 1 for u in landed + dead)
    assert 0 < cost <= 2                                                                # 16.11
    assert all(s.entered_turn[u] == g.turn for u in landed)                             # 16.13
    s.weather[0] = RAINY
    n = len(g.on_map(AXIS))
    airfields.airfield_entry(g)
    assert len(g.on_map(AXIS)) == n                                                     # 16.15


# ----------------------------------------------------------------- 16.3 militia
def test_rule_16_32_militia_never_shares_a_hex_with_the_mover():
    g = hercules_game()
    s, t = g.state, g.static
    town = [int(h) for h in np.flatnonzero(t.town)][0]
    c = [u for u in range(len(t.names)) if t.utype[u] == st.MARINE][0]
    s.box[c], s.hex[c] = BOX_MAP, town
    for _ in range(3):
        H.on_enter_hex(g, c, town, "move_end")
    assert not any(t.utype[e] == st.MILITIA for e in g.units_at(town, ALLIED))
    assert s.militia_rolled[town]


def test_rule_16_12_engine_aa_fire_statistical():
    """Rule 16.12 through the airfield driver: one AA unit within three hexes
    kills a unit just landed with probability 1/6 per landing phase.
    Binomial test, false-alarm rate 1e-4."""
    from scipy.stats import binomtest

    g = hercules_game()
    clear_allied(g)
    s, t = g.state, g.static
    af = [int(h) for h in np.flatnonzero(t.airfield)][0]
    s.control[af] = AXIS
    aa = [u for u in range(len(t.names)) if t.aa[u]][0]
    far = [int(x) for x in np.flatnonzero(t.land) if t.grid.distance_table[af, x] == 3][0]
    s.box[aa], s.hex[aa] = BOX_MAP, far
    coy = [u for u in range(len(t.names)) if t.utype[u] == st.ENGINEER and t.printed_formation[u] == 3][0]
    others = [u for u in range(len(t.names)) if s.box[u] == BOX_DISBANDMENT and u != coy]
    for u in others:
        s.box[u] = 9
    n, kills = 450, 0
    for _ in range(n):
        s.box[coy], s.hex[coy] = BOX_DISBANDMENT, -1
        s.steps_lost[coy] = 0
        airfields.airfield_entry(g)
        kills += int(s.box[coy] == 5)
        s.box[coy], s.hex[coy] = 9, -1
    assert binomtest(kills, n, 1 / 6).pvalue > 1e-4


def test_rule_16_56_engine_coastal_fire_statistical():
    """Rule 16.56 through the driver: a gun within three hexes of a wave box's
    beach hex (with line of fire) takes binomial(value, 1/3) steps from the box.
    Chi-square against the exact distribution, false-alarm rate 1e-4."""
    from scipy.stats import chisquare

    g, z, beaches = landing_zone_game()
    clear_allied(g)
    s, t = g.state, g.static
    inv = H.inv_static(g)
    gun = [u for u in range(len(t.names)) if t.utype[u] == st.COASTAL_GUN and inv.gun_value[u] > 0][0]
    spot = None
    for b in beaches:
        for x in np.flatnonzero(t.land & ~t.beach):
            x = int(x)
            if 1 <= t.grid.distance_table[x, b] <= 3 and t.grid.distance_table[x, b] <= inv.gun_range[gun] \
                    and coastal_guns.line_of_fire_clear(t.grid.hex_id(x), t.grid.hex_id(b), inv.los_block, inv.los_block_sides):
                spot = (x, b)
                break
        if spot:
            break
    x, b = spot
    s.box[gun], s.hex[gun] = BOX_MAP, x
    marines = [u for u in range(len(t.names)) if t.utype[u] == st.MARINE][:3]
    g.policy(ALLIED).coastal_fire_boxes = lambda game, options: {gg: v[0] for gg, v in options.items()}
    g.policy(AXIS).choose_loss = lambda game, units, reason: units[0]
    n = 600
    hits = np.zeros(n, int)
    for i in range(n):
        for u in marines:
            s.box[u], s.box_slot[u], s.hex[u] = BOX_FIRST_WAVE, b, -1
            s.steps_lost[u] = 0
        s.gun_fired_turn[gun] = -1
        coastal_guns.coastal_fire_at_boxes(g)
        hits[i] = sum(int(s.box[u] == 5) for u in marines)
    k = int(inv.gun_value[gun])
    pmf = coastal_guns.wave_box_hits_pmf(k, True)
    obs = np.bincount(hits, minlength=k + 1)[: k + 1]
    assert obs.sum() == n
    assert chisquare(obs, pmf * n).pvalue > 1e-4


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
def _many_aa(rs, n):
    k = 0
    for _ in range(n):
        if airfields.aa_fire(rs):
            k += 1
    return k


# ----------------------------------------------------------------- 16.55
@pytest.mark.parametrize("av,w3", [(1, False), (2, True), (3, False), (4, True)])
def test_rule_16_55_coastal_gun_vs_warship_statistical(av, w3):
    """Rule 16.55: P(damage) = 1 - (5/6)^n, or 1 - (4/6)^n within 3 hexes.
    False-alarm rate 1e-4."""
    k = _many_warship(kernel_stream(av), N_DRAWS, av, w3)
    assert binom_ok(k, N_DRAWS, coastal.p_warship_damaged(av, w3))


def test_rule_16_55_exact_values():
    assert coastal.p_warship_damaged(1, False) == Fraction(1, 6)
    assert coastal.p_warship_damaged(1, True) == Fraction(1, 3)
    assert coastal.p_warship_damaged(2, False) == 1 - Fraction(25, 36)


@pytest.mark.parametrize("av,w3", [(2, False), (3, True)])
def test_rule_16_56_coastal_gun_vs_wave_box_statistical(av, w3):
    """Rule 16.56: hits are binomial(n, 1/6), or (n, 1/3) within 3 hexes.
    Chi-square, false-alarm rate 1e-4."""
    out = np.empty(N_DRAWS, dtype=np.int64)
    _many_wave(kernel_stream(10 + av), N_DRAWS, av, w3, out)
    pmf = coastal.wave_box_hits_pmf(av, w3)
    obs = np.bincount(out, minlength=av + 1)
    assert chisquare(obs, pmf * N_DRAWS).pvalue > ALPHA


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


# ----------------------------------------------------------------- 16.12
def test_rule_16_12_aa_fire_statistical():
    """Rule 16.12: each AA die of 6 eliminates one unit.  False-alarm rate 1e-4."""
    k = _many_aa(kernel_stream(60), N_DRAWS)
    assert binom_ok(k, N_DRAWS, airfields.p_aa_kill())


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
    rs = kernel_stream(90)
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
    k = _many_militia(kernel_stream(91 + is_city), N_DRAWS, is_city)
    assert binom_ok(k, N_DRAWS, militia.p_militia(is_city))


def test_rule_16_31_cup():
    rs = kernel_stream(95)
    assert militia.initial_cup(5, 5, rs).sum() == 5
    assert militia.initial_cup(5, 4, rs).sum() == 4


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
