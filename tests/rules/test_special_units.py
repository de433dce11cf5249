"""Special units (rule 16): airfields and AA, militia, air support, coastal guns, warships
and headquarters, on constructed positions and by the dice kernels' exact odds; the entry
effects of 16.22, 16.32 and 16.58, the kept lines of fire and gun reaches, fire ranges and
airfield entry candidates against plain references on random positions.

Statistical tests draw with a fixed seed (:func:`tests.conftest.kernel_stream`) and compare
frequencies with the exact probabilities by a binomial or chi-square test at significance
1e-4 each (false-alarm rate 1e-4 per test; with the fixed seed the outcome is deterministic).
"""

from __future__ import annotations

import copy
from fractions import Fraction

import numba as nb
import numpy as np
import pytest
from scipy.stats import chisquare

from malta_sim.hexgrid import IOD_GRID
from malta_sim.iod import invasion as H, static as st
from malta_sim.iod.rules import (airfields, amphibious, coastal_guns, coastal_guns as coastal,
                                 combat, militia, organisation, special_rules as special, warships)
from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.state import (ALLIED, AXIS, BOX_CUP, BOX_DAMAGED, BOX_DISBANDMENT,
                                 BOX_ELIMINATED, BOX_FIRST_WAVE, BOX_MAP, BOX_SECOND_WAVE, BOX_TURN_TRACK, RAINY)
from malta_sim.play import new_game, play_games

from tests.oracles import iod_rules as ref
from tests.conftest import (airfield_entry_spy, ALPHA, binom_ok, clear_allied,
                            failed_communications, h, hercules_game, kernel_stream,
                            landing_zone_game, make, N_DRAWS, Scripted, static, u)


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
    """Rule 16.74: at most three warships support one attack, and warships and
    artillery never support the same attack; three warships alone, or the
    artillery alone, are a legal plan."""
    from malta_sim.bots.base import CombatPlan
    from malta_sim.iod.game import IllegalDecision

    ships = ["axis.rm.trieste", "axis.rm.gorizia", "axis.rm.cadorna", "axis.rm.garibaldi"]
    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"], "1307": ships[:2],
              "1407": ships[2:], "1209": ["axis.185.art_1"]})          # four hexes off 1311, in range
    opts = combat.plan_options(g, AXIS)
    offered = opts.support[h("1311")]
    sup = [u(x) for x in ships]
    gun = u("axis.185.art_1")
    assert all(x in offered for x in sup) and gun in offered    # every piece could support alone
    with pytest.raises(IllegalDecision, match="16.74"):
        combat._validate_plan(g, AXIS, CombatPlan(support={h("1311"): sup}), opts)
    with pytest.raises(IllegalDecision, match="16.74"):
        combat._validate_plan(g, AXIS, CombatPlan(support={h("1311"): sup[:1] + [gun]}), opts)
    combat._validate_plan(g, AXIS, CombatPlan(support={h("1311"): sup[:3]}), opts)
    combat._validate_plan(g, AXIS, CombatPlan(support={h("1311"): [gun]}), opts)


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
            assert ref.line_of_fire_clear(t.grid.hex_id(int(s.hex[gun])), t.grid.hex_id(b), *ref.blocking_sets(t))


def test_rule_16_56_coastal_fire_at_boxes_options_hits_and_marks(monkeypatch):
    """Rule 16.56 in coastal_fire_at_boxes: the guns on the map that have not fired this turn
    (18.4: not at a warship) are offered the filled wave boxes whose beach hex they reach
    (range, line of fire 16.54); a gun that fires is revealed (16.52) and marked, its hits
    (+1 die within 3 hexes) each take a step from the box, excess hits are ignored; a box it
    does not reach is refused."""
    g, z, beaches = landing_zone_game()
    clear_allied(g)
    s, t = g.state, g.static
    inv = H.inv_static(g)
    gun = [x for x in range(len(t.names)) if t.utype[x] == st.COASTAL_GUN and inv.gun_value[x] > 0][0]
    d = t.grid.distance_table
    spot = next((x, b) for b in beaches for x in map(int, np.flatnonzero(t.land & ~t.beach))
                if d[x, b] == 3 and d[x, b] <= inv.gun_range[gun]
                and ref.line_of_fire_clear(t.grid.hex_id(x), t.grid.hex_id(b), *ref.blocking_sets(t)))
    x, b = spot
    s.box[gun], s.hex[gun], s.revealed[gun] = BOX_MAP, x, False
    marines = [u for u in range(len(t.names)) if t.utype[u] == st.MARINE][:3]
    second = marines.pop()
    for u in marines:
        s.box[u], s.box_slot[u], s.hex[u] = BOX_FIRST_WAVE, b, -1
    s.box[second], s.box_slot[second], s.hex[second] = BOX_SECOND_WAVE, b, -1
    far = [int(c) for c in beaches if not coastal.gun_reach(inv, t.grid, x, int(inv.gun_range[gun]))(int(c))]
    seen = {}

    def fire(game, options):
        seen.update(options)
        return {gun: (BOX_FIRST_WAVE, b)}
    g.policy(ALLIED).coastal_fire_boxes = fire
    g.policy(AXIS).choose_loss = lambda game, units, reason: units[0]
    rolls = []
    monkeypatch.setattr(coastal, "gun_fires_at_wave_box", lambda rs, value, w3: rolls.append((value, w3)) or 5)
    s.gun_fired_turn[gun] = g.turn                                   # fired at a warship this turn (18.4)
    coastal_guns.coastal_fire_at_boxes(g)
    assert seen == {} and rolls == []
    s.gun_fired_turn[gun] = g.turn - 1
    coastal_guns.coastal_fire_at_boxes(g)
    assert gun in seen and seen[gun] == [(BOX_FIRST_WAVE, b), (BOX_SECOND_WAVE, b)]   # only the filled boxes
    assert all(k[0] in (BOX_FIRST_WAVE, BOX_SECOND_WAVE) for ks in seen.values() for k in ks)
    assert rolls == [(int(inv.gun_value[gun]), True)]
    assert s.revealed[gun] and s.gun_fired_turn[gun] == g.turn
    assert all(s.box[u] != BOX_FIRST_WAVE for u in marines)          # 5 hits, 2 one-step marines: excess ignored
    assert s.box[second] == BOX_SECOND_WAVE                          # the box not fired upon
    row = [r for r in g.events.rows if r["action"] == "coastal_fire_box"][-1]
    assert row["hexes"] == t.grid.hex_id(b) and row["units"] == t.names[gun]
    # a gun off the map does not fire, whatever its mark
    s.box[gun] = BOX_ELIMINATED
    for u in marines:
        s.box[u], s.box_slot[u], s.hex[u] = BOX_FIRST_WAVE, b, -1
    seen.clear()
    coastal_guns.coastal_fire_at_boxes(g)
    assert gun not in seen
    assert far                                                       # a beach of the zone it does not reach
    s.box[gun], s.gun_fired_turn[gun] = BOX_MAP, -1
    g.policy(ALLIED).coastal_fire_boxes = lambda game, options: {gun: (BOX_FIRST_WAVE, far[0])}
    with pytest.raises(Exception, match="rule 16.56"):
        coastal_guns.coastal_fire_at_boxes(g)


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


def test_rule_16_7_place_warships_asks_for_every_warship_and_refuses_land():
    """Rule 16.7 (4.22 b): the Axis places every warship not yet in play, each on an ocean
    hex (two per hex, 16.72); the placement is recorded; a ship left out or put on land is
    refused."""
    g = hercules_game()
    s, t = g.state, g.static
    ocean = warships.warship_hexes(g)
    land = int(np.flatnonzero(t.land)[0])
    assert land not in ocean
    asked = {}

    def place(game, ships, options):
        asked.update(options)
        return {u: ocean[i // 2] for i, u in enumerate(ships)}
    g.policy(AXIS).place_warships = place
    s.warships_placed[0] = False
    warships.place_warships(g)
    ships = [int(x) for x in np.flatnonzero(t.utype == st.WARSHIP)]
    assert sorted(asked) == ships and all(v == ocean for v in asked.values())
    assert bool(s.warships_placed[0])
    assert [(int(s.box[x]), int(s.hex[x]), int(s.box_slot[x])) for x in ships] == \
        [(BOX_MAP, ocean[i // 2], -1) for i in range(len(ships))]
    row = [r for r in g.events.rows if r["action"] == "warships_placed"][-1]
    assert row["units"] == " ".join(t.names[x] for x in ships)
    for bad in (lambda game, ships, options: {u: land for u in ships},
                lambda game, ships, options: {u: ocean[0] for u in ships[1:2]},
                lambda game, ships, options: {u: ocean[0] for u in ships}):
        g2 = hercules_game()
        g2.policy(AXIS).place_warships = bad
        with pytest.raises(Exception, match="rule 16.7"):
            warships.place_warships(g2)


def test_rule_16_71_warship_movement_to_ocean_hexes_two_per_hex():
    """Rule 16.71 (4.24 d): the Axis moves warships in play to any ocean hex; a ship it
    does not move stays; land, a ship not in play or a third ship in a hex is refused;
    with no ship in play nothing is asked."""
    g = hercules_game()
    warships.place_warships(g)
    s, t = g.state, g.static
    ships = warships.ships_in_play(g)
    ocean = warships.warship_hexes(g)
    empty = [x for x in ocean if x not in set(s.hex[ships].tolist())]
    before = {u: int(s.hex[u]) for u in ships}
    asked = []

    def move(game, sh, options):
        asked.append((list(sh), options))
        return {ships[0]: empty[0], ships[1]: empty[0]}
    g.policy(AXIS).move_warships = move
    warships.warship_movement(g)
    assert asked[0][0] == ships and asked[0][1] == {u: ocean for u in ships}
    assert int(s.hex[ships[0]]) == empty[0] == int(s.hex[ships[1]])
    assert all(int(s.hex[u]) == before[u] for u in ships[2:])
    land = int(np.flatnonzero(t.land)[0])
    off = [int(x) for x in np.flatnonzero(t.utype == st.WARSHIP) if int(x) not in ships]
    for moves, rule in (({ships[0]: land}, "16.71"), ({ships[2]: empty[0]}, "16.72")):
        g.policy(AXIS).move_warships = lambda game, sh, options, m=moves: m
        with pytest.raises(Exception, match=f"rule {rule}"):
            warships.warship_movement(g)
    if off:
        g.policy(AXIS).move_warships = lambda game, sh, options: {off[0]: empty[1]}
        with pytest.raises(Exception, match="rule 16.71"):
            warships.warship_movement(g)
    for u in ships:
        s.box[u] = BOX_DAMAGED
    asked.clear()
    g.policy(AXIS).move_warships = move
    warships.warship_movement(g)
    assert asked == []


def test_rule_16_76_warships_fire_by_day_in_clear_or_cloudy_weather():
    from malta_sim.iod.state import CLEAR, CLOUDY

    g = hercules_game()
    s = g.state
    for turn, w, ok in ((0, CLEAR, True), (1, CLOUDY, True), (2, CLEAR, True), (3, CLEAR, False), (1, RAINY, False)):
        s.turn[0], s.weather[0] = turn, w
        assert warships.may_fire(g) is ok, (turn, w)


def test_rule_16_55_damaged_warship_counts_one_axis_step():
    g = hercules_game()
    warships.place_warships(g)
    s = g.state
    u = warships.ships_in_play(g)[0]
    before = int(s.axis_steps_lost[0])
    warships.damage_warship(g, u)
    assert s.box[u] == BOX_DAMAGED and int(s.warships_damaged[0]) == 1
    assert int(s.axis_steps_lost[0]) == before + 1                                     # 20.2


def _duel_game():
    """The Hercules set-up with its warships placed: turn 0 (AM), ships 213, 215 and 219
    have coastal guns within their artillery range and guns 62, 63, 69 and 71 have ships
    within their range and line of fire (checked below)."""
    g = hercules_game()
    warships.place_warships(g)
    s = g.state
    inv = H.inv_static(g)
    ships = warships.ships_in_play(g)
    guns = inv.allied_firing_guns[s.box[inv.allied_firing_guns] == BOX_MAP].tolist()
    return g, ships, guns, warships._fire_ranges(g, ships, s.hex[ships].tolist(), guns, s.hex[guns].tolist())


def test_rule_16_55_16_79_exchange_fire_designation_and_simultaneous_results(monkeypatch):
    """Rules 16.79, 16.55, 16.52, 18.4 in exchange_fire: the Axis names its ships' dice
    per gun first (at most half the offensive support, rounded up, guns in range), then the
    Allies name a ship per gun (range and line of fire); results are applied together: a 6
    on a ship's dice for a gun eliminates it, a hit on a ship damages it; ships and guns
    that fired are marked for the turn, guns that fired are revealed."""
    g, ships, guns, (ship_targets, gun_targets) = _duel_game()
    s, t = g.state, g.static
    inv = H.inv_static(g)
    assert ship_targets[213] == [63, 64, 65, 66, 67, 69, 70, 71] and gun_targets[69] == [213]
    assert gun_targets[71] == [213, 219]
    assert coastal.warship_dice(int(t.off_support[213])) == 3
    seen = {}

    def axis_fire(game, options):
        seen["axis"] = options
        return {213: {63: 2, 64: 1, 65: 0}}           # all three dice, one gun named with none

    def allied_fire(game, options):
        seen["allied"] = options
        return {62: 215, 71: 213}
    g.policy(AXIS).warship_fire = axis_fire
    g.policy(ALLIED).coastal_fire_warships = allied_fire
    ship_rolls, gun_rolls = [], []
    # dice fixed: the first roll of each kind hits, the others miss
    monkeypatch.setattr(coastal, "dice_any_six", lambda rs, k: ship_rolls.append(k) or len(ship_rolls) == 1)
    monkeypatch.setattr(coastal, "gun_fires_at_warship",
                        lambda rs, value, w3: gun_rolls.append((value, w3)) or len(gun_rolls) == 1)
    fired_before = s.gun_fired_turn.copy()
    d = t.grid.distance_table
    assert d[s.hex[62], s.hex[215]] == 8 and d[s.hex[71], s.hex[213]] == 3      # +1 die within 3 hexes
    warships.exchange_fire(g)
    assert seen["axis"] == {u: (coastal.warship_dice(int(t.off_support[u])), tg) for u, tg in ship_targets.items()}
    assert seen["allied"] == gun_targets
    assert ship_rolls == [2, 1]                                   # guns 63 then 64; no roll with 0 dice
    assert gun_rolls == [(int(inv.gun_value[62]), False), (int(inv.gun_value[71]), True)]
    assert s.box[63] != BOX_MAP and s.box[64] == BOX_MAP and s.box[65] == BOX_MAP       # 16.79: 63 eliminated
    assert s.box[215] == BOX_DAMAGED and s.box[213] == BOX_MAP and s.box[219] == BOX_MAP       # 16.55
    assert int(s.warships_damaged[0]) == 1
    assert s.gun_fired_turn[213] == g.turn and s.gun_fired_turn[62] == g.turn == s.gun_fired_turn[71]  # 18.4
    assert s.gun_fired_turn[219] == fired_before[219] and s.gun_fired_turn[69] == fired_before[69]
    assert s.revealed[62] and s.revealed[71] and not s.revealed[69]                            # 16.52
    name = lambda *us: " ".join(t.names[x] for x in us)  # noqa: E731
    acts = [(r["action"], r["units"]) for r in g.events.rows
            if r["action"] in ("warship_fire", "coastal_fire_ship", "warship_damaged")]
    assert acts == [("warship_fire", name(213, 63, 64, 65)), ("coastal_fire_ship", name(62, 215)),
                    ("coastal_fire_ship", name(71, 213)), ("warship_damaged", name(215))]


def test_rule_16_79_a_ship_that_names_no_dice_does_not_fire(monkeypatch):
    """A ship whose split is empty neither rolls nor loses its support (18.4); the ships
    after it still fire."""
    g, *_ = _duel_game()
    s = g.state
    g.policy(AXIS).warship_fire = lambda game, options: {213: {}, 215: {64: 1}}
    g.policy(ALLIED).coastal_fire_warships = lambda game, options: {}
    rolls = []
    monkeypatch.setattr(coastal, "dice_any_six", lambda rs, k: rolls.append(k) or False)
    before = int(s.gun_fired_turn[213])
    warships.exchange_fire(g)
    assert rolls == [1] and s.gun_fired_turn[215] == g.turn and s.gun_fired_turn[213] == before


@pytest.mark.parametrize("axis, allied, rule", [
    ({213: {63: 3, 64: 1}}, {}, "16.79"),          # more dice than half the offensive support
    ({213: {68: 1}}, {}, "16.79"),                 # a gun out of the ship's range
    ({213: {63: -1}}, {}, "16.79"),                # negative dice
    ({214: {63: 1}}, {}, "16.79"),                 # a ship with no gun in range
    ({}, {62: 219}, "16.55"),                      # a ship out of the gun's range or line of fire
    ({}, {64: 215}, "16.55"),                      # a gun with no ship in reach
])
def test_rule_16_55_16_79_exchange_fire_refuses_illegal_designations(axis, allied, rule):
    g, *_ = _duel_game()
    g.policy(AXIS).warship_fire = lambda game, options: axis
    g.policy(ALLIED).coastal_fire_warships = lambda game, options: allied
    with pytest.raises(Exception, match=f"rule {rule}"):
        warships.exchange_fire(g)


def test_rule_16_55_exchange_fire_only_in_daylight_and_with_targets_kept_current():
    """No exchange at night (16.76) or without both ships and guns; the targets follow the
    pieces: a ship moved out of every gun's reach is offered to no gun."""
    g, ships, guns, (ship_targets, gun_targets) = _duel_game()
    s = g.state
    asked = []
    g.policy(AXIS).warship_fire = lambda game, options: asked.append(dict(options)) or {}
    g.policy(ALLIED).coastal_fire_warships = lambda game, options: asked.append(dict(options)) or {}
    s.turn[0] = 3                                                   # the night turn
    warships.exchange_fire(g)
    assert asked == []
    s.turn[0] = 1
    warships.exchange_fire(g)
    assert asked == [{u: (coastal.warship_dice(int(g.static.off_support[u])), tg) for u, tg in ship_targets.items()},
                     gun_targets]
    far = [int(x) for x in np.flatnonzero(H.inv_static(g).ocean)
           if not any(warships._fire_ranges(g, [219], [int(x)], guns, s.hex[guns].tolist()))]
    s.hex[219] = far[0]
    asked.clear()
    warships.exchange_fire(g)
    assert 219 not in asked[0] and all(219 not in tg for tg in asked[1].values())
    for u in ships:
        s.box[u] = BOX_DAMAGED
    asked.clear()
    warships.exchange_fire(g)
    assert asked == []


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


def _uprising_next_to(occupants):
    """An Axis marine battalion ends its move in 0607, next to the town 0608
    (and no other town or city), which holds the Axis pieces ``occupants``
    (names) and is Axis-controlled; no Allied piece is on the map.  The
    move is repeated, the town's roll marked as not made, until the roll
    draws a militia piece (16.32).  Returns (game, town, piece drawn)."""
    g = hercules_game()
    s, t = g.state, g.static
    for x in g.on_map(ALLIED):
        s.box[x], s.hex[x] = 9, -1
    mover, here, town = u("axis.un.sm_2"), h("0607"), h("0608")
    assert H.inv_static(g).urban_near[here] == [town]
    s.box[mover], s.hex[mover] = BOX_MAP, here
    for name in occupants:
        s.box[u(name)], s.hex[u(name)] = BOX_MAP, town
    s.control[town] = AXIS
    cup = set(militia._militia_in_cup(g))
    for _ in range(40):
        s.militia_rolled[town] = False
        H.on_enter_hex(g, mover, here, "move_end")
        assert s.militia_rolled[town]
        drawn = cup - set(militia._militia_in_cup(g))
        if drawn:
            assert len(drawn) == 1
            return g, town, drawn.pop()
    raise AssertionError("no militia drawn")


def test_rule_16_32_militia_drawn_for_an_axis_occupied_town_is_crushed_else_takes_the_town():
    """Rule 16.32 with its coverage reading: a militia piece drawn for a town
    next to the mover's hex goes into that town and takes control of it
    (2.1) when no Axis unit is there, also when only an Axis leader is
    there (a leader never holds a hex); drawn for a town an Axis unit
    occupies, it is crushed at once (eliminated, the town stays Axis)."""
    g, town, p = _uprising_next_to(["axis.un.sm_6"])
    s = g.state
    assert s.box[p] == BOX_ELIMINATED and s.hex[p] == -1
    assert not len(g.units_at(town, ALLIED)) and s.control[town] == AXIS
    assert [r["action"] for r in g.events.rows if r["rule"] == "16.32"][-1] == "militia_crushed"
    for occupants in ([], ["axis.4.ldr.chirelson"]):
        g, town, p = _uprising_next_to(occupants)
        s = g.state
        assert s.box[p] == BOX_MAP and s.hex[p] == town and not s.revealed[p]
        assert g.units_at(town, ALLIED).tolist() == [p] and s.control[town] == ALLIED
        assert [r["action"] for r in g.events.rows if r["rule"] == "16.32"][-1] == "militia"


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
                    and ref.line_of_fire_clear(t.grid.hex_id(x), t.grid.hex_id(b), *ref.blocking_sets(t)):
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
def _lof(a: str, b: str, blocks=(), sides=()) -> bool:
    """The engine's line-of-fire kernel (rule 16.54) on the Island of Death grid
    with the given blocking hexes and Creek-with-Rise hexsides."""
    from malta_sim.hexgrid import direction_between
    from malta_sim.kernels import los

    g = IOD_GRID
    hb = np.zeros(g.n_hexes, np.bool_)
    sb = np.zeros((g.n_hexes, 6), np.bool_)
    for h in blocks:
        hb[g.index(h)] = True
    for x, y in sides:
        sb[g.index(x), direction_between(x, y)] = sb[g.index(y), direction_between(y, x)] = True
    return bool(los.line_of_fire(g.axial.astype(np.int32), g.neighbour_table, g.index(a), g.index(b),
                                 hb, sb, g.col_min, g.row_min, g.n_cols, g.n_rows))


def test_rule_16_54_line_of_fire_blocked_by_town():
    """Rule 16.54: a town between gun and target blocks; the end hexes do not."""
    assert _lof("1205", "1208", {"1206"}) is False
    assert _lof("1205", "1208", {"1205", "1208"}) is True
    assert _lof("1205", "1208") is True


def test_rule_16_54_line_of_fire_hexside_tie():
    """Rule 16.54: along a hexside, fire is blocked only when both sides block."""
    from malta_sim.hexgrid import hex_line

    a = "1010"
    for b in ["1209", "1211", "1308", "1312", "1410"]:
        ties = [s for s in hex_line(a, b) if len(s) == 2]
        if ties:
            x, y = ties[0]
            assert _lof(a, b, {x}) is True
            assert _lof(a, b, {x, y}) is False
            return
    raise AssertionError("no line from 1010 runs along a hexside")


def test_rule_16_54_line_of_fire_creek_with_rise_hexside():
    """Rule 16.54: a crossed Creek-with-Rise hexside blocks; one off the line does not."""
    assert _lof("1205", "1208", sides=[("1206", "1207")]) is False
    assert _lof("1205", "1208", sides=[("1106", "1107")]) is True


# ----------------------------------------------------------------- 16.12
def test_rule_16_12_aa_fire_statistical():
    """Rule 16.12: each AA die of 6 eliminates one unit.  False-alarm rate 1e-4."""
    k = _many_aa(kernel_stream(60), N_DRAWS)
    assert binom_ok(k, N_DRAWS, airfields.p_aa_kill())


# ----------------------------------------------------------------- 16.32
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


@pytest.mark.parametrize("scenario, in_cup", [("hercules", 5), ("intro", 4)])
def test_rule_16_31_militia_cup_at_set_up(scenario, in_cup):
    """Rule 16.31 with the scenarios' militia (22.2, 22.3): Operation Hercules
    starts with all five militia pieces in the cup, the Introductory Scenario
    with four of the five drawn at random (the fifth out of play).  Over a few
    set-ups each piece is sometimes the one left out (a random draw, not a
    fixed piece)."""
    from malta_sim import play
    from malta_sim.iod.state import BOX_CUP

    left_out = set()
    for idx in range(12):
        g = play.new_game(scenario, seed=5, game_index=idx)
        t, s = g.static, g.state
        mil = np.flatnonzero(t.utype == st.MILITIA)
        assert len(mil) == 5
        assert int((s.box[mil] == BOX_CUP).sum()) == in_cup
        assert not (s.box[mil] == BOX_MAP).any()
        left_out |= set(mil[s.box[mil] != BOX_CUP].tolist())
    if in_cup == 5:
        assert not left_out
    else:             # 12 draws of one piece of five: fewer than 3 distinct has probability < 2e-4
        assert len(left_out) >= 3


def test_rule_16_41_air_support_markers():
    from malta_sim.iod.state import CLEAR, CLOUDY, RAINY

    assert special.air_support_markers(CLEAR) == 3
    assert special.air_support_markers(CLOUDY) == 1
    assert special.air_support_markers(RAINY) == 0
    assert special.air_support_markers(CLEAR, 1) == 2


def test_rule_17_6_royal_navy_cut_leaves_no_fewer_than_zero_air_support_markers():
    """16.41 / 17.6: a Royal Navy cut of one marker on a Rainy day (no
    markers), or of two on a Cloudy day (one marker), leaves none, not a
    negative number."""
    from malta_sim.iod.state import CLOUDY, RAINY

    assert special.air_support_markers(RAINY, 1) == 0
    assert special.air_support_markers(CLOUDY, 2) == 0


def test_rule_16_25_engineers_from_strongpoints():
    assert special.engineers_from_dismantling(4, 0) == 1
    assert special.engineers_from_dismantling(8, 1) == 1
    assert special.engineers_from_dismantling(12, 2) == 0


def test_rule_16_25_hercules_engineers_enter_from_the_not_yet_box():
    """Rule 16.25 in Operation Hercules: the British engineer companies start out
    of play (22.3; 22.39: they enter only by dismantling), yet four strongpoints
    dismantled put one of them on a dismantled strongpoint's hex; eight put both."""
    from malta_sim.iod.state import BOX_NOT_YET, BOX_REMOVED

    g = hercules_game(allied="counterattack")            # dismantles four at a time
    s, t = g.state, g.static
    eng = np.flatnonzero((t.side == ALLIED) & (t.utype == st.ENGINEER))
    assert len(eng) == 2 and (s.box[eng] == BOX_NOT_YET).all()
    sps = np.flatnonzero((t.side == ALLIED) & (t.utype == st.STRONGPOINT) & (s.box == BOX_MAP))
    sp_hex = {int(x): int(s.hex[x]) for x in sps}
    assert len(sps) >= 8
    special.dismantle_strongpoints(g)
    gone = [x for x in sp_hex if s.box[x] == BOX_REMOVED]
    assert len(gone) == 4 and int(s.strongpoints_dismantled[0]) == 4
    on = [int(e) for e in eng if s.box[e] == BOX_MAP]
    assert len(on) == 1 and int(s.engineers_placed[0]) == 1
    assert int(s.hex[on[0]]) in {sp_hex[x] for x in gone}
    special.dismantle_strongpoints(g)
    assert (s.box[eng] == BOX_MAP).all() and int(s.strongpoints_dismantled[0]) == 8
    special.dismantle_strongpoints(g)                    # both placed: no more (16.25)
    assert int(s.strongpoints_dismantled[0]) == 8


class _Dismantler:
    """The Allied player of the 16.25 test below: dismantles the given numbers
    of strongpoints, one number per Initial Segment (the lowest pieces
    offered), puts each engineer company on the last hex offered, and records
    the most strongpoints the engine lets it dismantle each time; every other
    decision as the game's own bot."""

    def __init__(self, base, counts):
        self.base, self.counts, self.offered = base, list(counts), []

    def __getattr__(self, name):
        return getattr(self.base, name)

    def dismantle_strongpoints(self, game, strongpoints, max_n):
        self.offered.append(int(max_n))
        return sorted(strongpoints)[: self.counts.pop(0)] if self.counts else []

    def engineer_hex(self, game, options):
        return options[-1]


def test_rule_16_25_one_engineer_per_four_strongpoints_at_most_eight():
    """Rule 16.25: every four strongpoints dismantled (in total, over several
    Initial Segments) put one British engineer company on the hex of a
    dismantled strongpoint, and only eight may be dismantled for the two
    companies: 2 dismantled place none (6 more allowed), 5 more (7) place the
    first (one more allowed), the 8th places the second, then none is
    offered.  Asked for everything at once, the Allied player gets eight.
    Dismantled strongpoints leave the map; the engineers join the Allied
    formation."""
    from malta_sim.iod.state import BOX_REMOVED

    for counts, offered, placed in (([2, 5, 1, 3], [8, 6, 1], [0, 1, 2]), ([99, 99], [8], [2])):
        g = hercules_game()
        s, t = g.state, g.static
        bot = _Dismantler(g.policies[ALLIED], counts)
        g.policies = (g.policies[AXIS], bot)
        eng = [int(x) for x in np.flatnonzero((t.side == ALLIED) & (t.utype == st.ENGINEER))]
        sps = [int(x) for x in np.flatnonzero((t.side == ALLIED) & (t.utype == st.STRONGPOINT)
                                              & (s.box == BOX_MAP))]
        sp_hex = {x: int(s.hex[x]) for x in sps}
        got = []
        for _ in range(len(counts)):
            special.dismantle_strongpoints(g)
            got.append(sum(s.box[e] == BOX_MAP for e in eng))
        assert bot.offered == offered
        assert got[: len(placed)] == placed and got[-1] == 2
        gone = [x for x in sps if s.box[x] == BOX_REMOVED]
        assert len(gone) == 8 and int(s.strongpoints_dismantled[0]) == 8
        assert all(s.hex[x] == -1 for x in gone)
        for e in eng:
            assert int(s.hex[e]) in {sp_hex[x] for x in gone}
            assert s.formation[e] == s.formation[u("allied.uk.8m")]


def test_line_of_fire_memo_equals_direct_check():
    """Rule 16.54: the memoised line of fire answers as ``line_of_fire_clear`` for
    every coastal-gun hex against every beach and ocean hex within 8 hexes."""
    from malta_sim.iod.rules import coastal_guns as cg
    from malta_sim.iod import invasion as H

    g = new_game("hercules", 2, 0, axis_policy="balanced", allied_policy="static")
    inv, grid, t = H.inv_static(g), g.static.grid, g.static
    guns = sorted({int(g.state.hex[u]) for u in np.flatnonzero(inv.gun_value > 0) if g.state.hex[u] >= 0})
    targets = np.flatnonzero(t.beach | inv.ocean)
    d = grid.distance_table
    n = 0
    for a in guns:
        for b in targets[d[a, targets] <= 8]:
            b = int(b)
            want = ref.line_of_fire_clear(grid.hex_id(a), grid.hex_id(b), *ref.blocking_sets(g.static))
            assert coastal_guns.line_of_fire(inv, grid, a, b) == want
            assert coastal_guns.line_of_fire(inv, grid, a, b) == want      # second answer from the memo
            n += 1
    assert n > 100


def test_on_enter_hex_reveals_strongpoints_and_overruns_guns():
    """16.22 / 16.58: an Axis unit entering a hex reveals the Allied strongpoints
    in it and next to it (no others) and eliminates the coastal guns in it."""
    from malta_sim.iod import invasion as H
    from malta_sim.iod import static as st
    from malta_sim.iod.state import BOX_MAP

    g = new_game("hercules", 8, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    d = t.grid.distance_table
    sp = np.flatnonzero((t.utype == st.STRONGPOINT) & (t.side == 1))
    guns = np.flatnonzero((t.utype == st.COASTAL_GUN) & (t.side == 1) & (s.box == BOX_MAP))
    axis_u = int(np.flatnonzero((t.side == 0) & (t.utype == st.INFANTRY))[0])
    for target in [int(s.hex[sp[0]]), int(s.hex[guns[0]])]:
        s.revealed[:] = False
        want_sp = sp[(s.hex[sp] >= 0) & (d[target][s.hex[sp]] <= 1)]
        want_gone = guns[s.hex[guns] == target]
        H.on_enter_hex(g, axis_u, target, "move")
        np.testing.assert_array_equal(np.flatnonzero(s.revealed[sp]), np.flatnonzero(np.isin(sp, want_sp)))
        assert (s.box[want_gone] != BOX_MAP).all()


def test_passing_hexes_quiet_names_exactly_the_hexes_where_the_entry_hook_does_nothing():
    """16.22 / 16.32 / 16.58: a hex :func:`invasion.passing_hexes_quiet`
    calls quiet is one where an Axis unit passing through (``"move"``)
    leaves the state and the event log as they were; every other hex
    changes something (reveals a strongpoint, eliminates a gun or queues a
    militia roll) in a fresh game.  Checked on every land hex at the start
    of Operation Hercules, with militia in the cup and with the cup empty."""
    from malta_sim.iod.state import copy_state

    for empty_cup in (False, True):
        g = new_game("hercules", 8, 0, axis_policy="balanced", allied_policy="static", event_log=True)
        s, t = g.state, g.static
        if empty_cup:
            s.box[(t.utype == st.MILITIA) & (s.box == BOX_CUP)] = 9
        mover = int(np.flatnonzero((t.side == AXIS) & (t.utype == st.INFANTRY))[0])
        land = [int(x) for x in np.flatnonzero(t.land)]
        quiet = H.passing_hexes_quiet(g, land)
        assert len(quiet) == len(land) and 0 < sum(quiet) < len(land)
        start, n_events = copy_state(s), len(g.events.rows)
        for h, q in zip(land, quiet):
            H.on_enter_hex(g, mover, h, "move")
            changed = (any(not np.array_equal(a, b) for a, b in zip(g.state, start))
                       or len(g.events.rows) != n_events)
            assert changed != q, (h, q)
            for a, b in zip(g.state, start):
                a[...] = b
            del g.events.rows[n_events:]
            g.cache.clear()


def test_airfield_entry_candidates_match_rule_16_1_filter():
    """Rule 16.1: the units offered for airfield entry equal a unit-by-unit
    filter (80th Division, commandos, glider companies; companies or
    artillery; battalions not broken down; no leaders), on random boxes."""
    from malta_sim.iod import invasion as H
    from malta_sim.iod import static as st
    from malta_sim.iod.state import BOX_DISBANDMENT, BOX_POOL


    g = new_game("hercules", 14, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    seen = airfield_entry_spy(g)                      # a day, no Allied unit near the airfields
    gen = np.random.default_rng(5)
    axis = np.flatnonzero(t.side == 0)
    offered = 0
    for trial in range(10):
        pick = gen.choice(axis, size=60, replace=False)
        s.box[pick] = BOX_DISBANDMENT
        s.hex[pick] = -1
        comps = np.flatnonzero(t.battalion_of >= 0)
        s.parent[comps] = np.where(gen.random(len(comps)) < 0.3, t.battalion_of[comps], -1)
        s.box[comps] = np.where(gen.random(len(comps)) < 0.5, BOX_POOL, BOX_DISBANDMENT)
        seen.clear()
        airfields.airfield_entry(g)
        want = []
        for u in np.flatnonzero((s.box == BOX_DISBANDMENT) & (t.side == 0)):
            u = int(u)
            air = t.printed_formation[u] == H.F_80 or t.utype[u] == st.COMMANDO or (
                t.utype[u] == st.GLIDER and t.size[u] == st.COMPANY)
            if not air or (t.size[u] == st.BATTALION and H.is_broken(g, u)):
                continue
            if t.size[u] == st.BATTALION and t.utype[u] != st.ARTILLERY:
                continue
            if t.utype[u] == st.LEADER:
                continue
            want.append(u)
        assert seen == ([want] if want else [])
        offered += bool(want)
    assert offered >= 3


def test_fire_ranges_equal_pairwise_checks():
    """Rules 16.54, 16.55, 16.79: ship -> guns in its range and gun -> ships in
    range and line of fire equal pair-by-pair checks, on random ship hexes."""
    from malta_sim.iod.rules import coastal_guns as cg
    from malta_sim.iod import invasion as H
    from malta_sim.iod import static as st
    from malta_sim.iod.rules.warships import _fire_ranges

    g = new_game("hercules", 15, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    inv, grid, d = H.inv_static(g), t.grid, t.grid.distance_table
    ships = np.flatnonzero(t.utype == st.WARSHIP).tolist()
    guns = np.flatnonzero((t.utype == st.COASTAL_GUN) & (inv.gun_value > 0) & (s.hex >= 0)).tolist()
    ocean = np.flatnonzero(inv.ocean)
    gen = np.random.default_rng(7)
    seen = 0
    for trial in range(10):
        ship_hex = gen.choice(ocean, size=len(ships)).tolist()
        gun_hex = s.hex[guns].tolist()
        by_ship, by_gun = _fire_ranges(g, ships, ship_hex, guns, gun_hex)
        want_ship = {}
        for u, uh in zip(ships, ship_hex):
            r = [gg for gg, gh in zip(guns, gun_hex) if d[uh, gh] <= t.art_range[u]]
            if r:
                want_ship[u] = r
        want_gun = {}
        for gg, gh in zip(guns, gun_hex):
            r = [u for u, uh in zip(ships, ship_hex) if d[gh, uh] <= inv.gun_range[gg]
                 and ref.line_of_fire_clear(grid.hex_id(gh), grid.hex_id(uh), *ref.blocking_sets(g.static))]
            if r:
                want_gun[gg] = r
        assert by_ship == want_ship and list(by_ship) == list(want_ship)
        assert by_gun == want_gun and list(by_gun) == list(want_gun)
        seen += int(bool(want_ship) and bool(want_gun))
    assert seen > 0


def test_entry_flags_and_aa_counts_on_random_positions():
    """The watch map of the entry hook (16.22, 16.58) and the AA counts
    (16.12, 19.41) equal plain loops over the pieces."""
    g = new_game("hercules", 2, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    inv = H.inv_static(g)
    d = t.grid.distance_table
    gen = np.random.default_rng(9)
    land = np.flatnonzero(t.land)
    cgu = np.flatnonzero((t.utype == st.COASTAL_GUN) & (t.side == ALLIED))
    sp = np.flatnonzero((t.utype == st.STRONGPOINT) & (t.side == ALLIED))
    allied = np.flatnonzero(t.side == ALLIED)
    seen = {"aa": 0, "flags": 0}
    for _ in range(50):
        gh = np.where(gen.random(cgu.size) < 0.3, -1, gen.choice(land, size=cgu.size))
        sh = np.where(gen.random(sp.size) < 0.3, -1, gen.choice(land, size=sp.size))
        flags = [False] * t.n_hexes
        for x in gh.tolist():
            if x >= 0:
                flags[x] = True
        for x in sh.tolist():
            if x >= 0:
                for y in inv.near_lists[x]:
                    flags[y] = True
        assert H._entry_flags(g, inv, gh, sh).tolist() == flags
        k = gen.choice(allied, size=20, replace=False)
        s.box[k] = np.where(gen.random(20) < 0.3, BOX_CUP, BOX_MAP)
        s.hex[k] = np.where(s.box[k] == BOX_MAP, gen.choice(land, size=20), -1)
        m = (s.box == BOX_MAP) & (t.side == ALLIED) & t.aa
        for h in gen.choice(land, size=10).tolist():
            for r in (1, 3):
                assert H.aa_within(g, h, r) == int((d[h, s.hex[m]] <= r).sum())
                seen["aa"] += H.aa_within(g, h, r) > 0
        seen["flags"] += sum(flags)
    assert seen["aa"] > 0 and seen["flags"] > 0, seen


def test_guns_with_box_targets_on_random_positions():
    """Coastal guns with a filled wave box in range (16.56; the default Allied
    bot keeps them for the landing craft) equal the plain per-gun test."""
    from malta_sim.iod.rules import warships as ws
    from malta_sim.iod.state import BOX_FIRST_WAVE, BOX_SECOND_WAVE

    g = new_game("hercules", 4, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    inv = H.inv_static(g)
    d = t.grid.distance_table
    gen = np.random.default_rng(2)
    land = np.flatnonzero(t.land)
    beaches = np.flatnonzero(inv.beach_zone >= 0)
    cgu = np.flatnonzero((t.utype == st.COASTAL_GUN) & (t.side == ALLIED))
    axis = np.flatnonzero(t.side == AXIS)
    seen = 0
    for trial in range(40):
        s.hex[cgu] = gen.choice(land, size=cgu.size)
        k = gen.choice(axis, size=int(gen.integers(0, 6)), replace=False)
        s.box[k] = gen.choice([BOX_FIRST_WAVE, BOX_SECOND_WAVE], size=k.size)
        s.box_slot[k] = gen.choice(beaches, size=k.size)
        guns = sorted(gen.choice(cgu, size=int(gen.integers(0, cgu.size + 1)), replace=False).tolist())
        slots = sorted({int(s.box_slot[u]) for u in np.flatnonzero((s.box == 2) | (s.box == 3))})
        ref = {q for q in guns if any(d[s.hex[q], b] <= inv.gun_range[q] for b in slots)}
        assert ws._guns_with_box_targets(g, guns) == ref
        s.box[k] = BOX_MAP
        seen += int(bool(ref) and len(ref) < len(guns))
    assert seen > 0


def test_ships_in_play_on_random_boxes():
    """Warships on the map (16.7) from the per-static warship list equal a
    mask over every piece."""
    from malta_sim.iod.rules import warships as ws

    g = new_game("hercules", 4, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    ships = np.flatnonzero(t.utype == st.WARSHIP)
    assert ships.size
    gen = np.random.default_rng(5)
    for _ in range(20):
        s.box[ships] = gen.choice([BOX_MAP, BOX_ELIMINATED, 0], size=ships.size)
        ref = [int(u) for u in np.flatnonzero((t.utype == st.WARSHIP) & (s.box == BOX_MAP))]
        assert ws.ships_in_play(g) == ref


def _entry_effects_plain(game, x: int, hh: int, how: str, pending: list) -> None:
    """The entry effects of :func:`invasion.on_enter_hex` written out plainly:
    the coastal guns and strongpoints looked up on every entry (16.22, 16.58),
    a militia roll per town or city hex in or next to ``hh`` not rolled before
    (16.32, 16.36), those of the hexes passed through (``how == "move"``, kept
    in ``pending``) rolled when the move ends."""
    s, t = game.state, game.static
    if t.side[x] != AXIS or t.utype[x] in (st.LEADER, st.WARSHIP) or hh < 0:
        return
    cgu = np.flatnonzero((t.utype == st.COASTAL_GUN) & (t.side == ALLIED))
    sp = np.flatnonzero((t.utype == st.STRONGPOINT) & (t.side == ALLIED))
    inv = H.inv_static(game)
    flags = [False] * t.n_hexes
    for y in s.hex[cgu].tolist():
        if y >= 0:
            flags[y] = True
    for y in s.hex[sp].tolist():
        if y >= 0:
            for z in inv.near_lists[y]:
                flags[z] = True
    if flags[hh]:
        H._guns_and_strongpoints(game, cgu, cgu.tolist(), sp, sp.tolist(), inv, hh, how)
    if not militia._militia_in_cup(game):
        return
    near = inv.urban_near[hh]
    if how == "move":
        pending.extend(near)
        return
    if how == "move_end":
        near = pending + near
        pending.clear()
    urban = inv.urban
    for y in dict.fromkeys(near):
        if y < 0 or not urban[y] or s.militia_rolled[y]:
            continue
        cup = militia._militia_in_cup(game)
        if not cup:
            return
        s.militia_rolled[y] = True
        if not militia.militia_roll(H.nstate(game, "militia"), bool(t.city[y])):
            continue
        piece = cup[int(H.rng(game, "militia").integers(len(cup)))]
        axis_there = y == hh or any(t.utype[v] != st.LEADER for v in game.units_at(y, AXIS))
        if axis_there and not (how == "jump" and y == hh):
            s.box[piece], s.hex[piece] = BOX_ELIMINATED, -1
            H._log(game, "militia_crushed", side=ALLIED, hexes=[y], units=[piece], rule="16.32")
            continue
        s.box[piece], s.hex[piece] = BOX_MAP, y
        s.formation[piece] = 0
        s.revealed[piece] = how == "jump" and y == hh
        if not axis_there:
            s.control[y] = ALLIED
        H._log(game, "militia", side=ALLIED, hexes=[y], units=[piece], rule="16.32")


@pytest.mark.parametrize("seed", [11, 12])
def test_entry_effects_equal_plain_version_on_random_entries(seed):
    """Rules 16.22, 16.32, 16.58: Axis units entering hexes next to Allied
    strongpoints, coastal guns, towns and cities of random Hercules set-ups
    (moves through several hexes, landings, jumps, advances) leave the
    position, the event log and the dice as the plain version does."""
    rng = np.random.default_rng(seed)
    seen = {"entries": 0, "militia": 0, "revealed": 0, "guns": 0}
    keep = lambda g: {id(g.static): g.static, id(g.tables): g.tables}       # noqa: E731
    for trial in range(6):
        g = hercules_game(seed=int(rng.integers(1 << 20)))
        s, t = g.state, g.static
        sp_gun = np.flatnonzero(((t.utype == st.STRONGPOINT) | (t.utype == st.COASTAL_GUN))
                                & (t.side == ALLIED) & (s.box == BOX_MAP))
        targets = np.concatenate([s.hex[sp_gun], np.flatnonzero(t.town | t.city)])
        movers = np.flatnonzero((t.side == AXIS) & g.tables.ground)
        a, b = copy.deepcopy(g, keep(g)), copy.deepcopy(g, keep(g))
        for _ in range(12):
            x = int(rng.choice(movers))
            kind = str(rng.choice(["move", "landing", "jump", "advance"]))
            hexes = [int(rng.choice(targets))]
            if kind == "move":
                while len(hexes) < 3:
                    hexes.append(int(rng.choice([o for o in t.neighbours[hexes[-1]] if o >= 0])))
            pending: list = []
            for i, hh in enumerate(hexes):
                how = kind if kind != "move" else ("move_end" if i == len(hexes) - 1 else "move")
                for gm in (a, b):
                    gm.state.box[x], gm.state.hex[x] = BOX_MAP, hh
                H.on_enter_hex(a, x, hh, how)
                _entry_effects_plain(b, x, hh, how, pending)
            for p, q in zip(a.state, b.state):
                np.testing.assert_array_equal(p, q, err_msg=str((trial, x, hexes, kind)))
            assert [dict(r) for r in a.events.rows] == [dict(r) for r in b.events.rows]
            assert np.array_equal(H.nstate(a, "militia"), H.nstate(b, "militia"))
            seen["entries"] += 1
        rows = [dict(r) for r in a.events.rows]
        seen["militia"] += sum(r["action"] in ("militia", "militia_crushed") for r in rows)
        seen["revealed"] += int(a.state.revealed[sp_gun].any())
        seen["guns"] += int((a.state.box[sp_gun] != BOX_MAP).any())
        assert a.streams["militia"].integers(1 << 30) == b.streams["militia"].integers(1 << 30)
    assert all(v > 0 for v in seen.values()), seen


def test_airfield_entry_tables_equal_their_masks():
    """The airfield entry's per-unit tables (16.1, 16.14): airlanding
    battalions (glider and commando), the pieces that may enter (80th
    Division, commandos, glider companies; companies or artillery; no
    leaders) and the two together, equal the masks over the counters."""
    g = hercules_game(seed=1, axis="balanced", allied="static")
    t, inv = g.static, H.inv_static(g)
    axis, battalion = t.side == 0, t.size == st.BATTALION
    bns = axis & battalion & ((t.utype == st.GLIDER) | (t.utype == st.COMMANDO))
    airlanding = ((t.printed_formation == H.F_80) | (t.utype == st.COMMANDO)
                  | ((t.utype == st.GLIDER) & (t.size == st.COMPANY)))
    entrants = axis & airlanding & ~(battalion & (t.utype != st.ARTILLERY)) & (t.utype != st.LEADER)
    np.testing.assert_array_equal(inv.airfield_battalions, np.flatnonzero(bns))
    np.testing.assert_array_equal(inv.airfield_entrants, entrants)
    np.testing.assert_array_equal(inv.airfield_pieces, np.flatnonzero(bns | entrants))
    assert inv.battalion == battalion.tolist()


def test_gun_reach_equals_range_and_line_of_fire():
    """Every (gun hex, range, target) answer kept equals the distance test
    and the line of fire worked out afresh."""
    play_games("hercules", 5, np.arange(2), axis_policy="balanced", allied_policy="static")
    g = hercules_game(axis="balanced", allied="static")
    inv, d = H.inv_static(g), g.static.grid.distance_table
    assert inv.gun_reach
    for (gh, rg), reach in inv.gun_reach.items():
        for b, ok in reach.items():
            want = bool(d[gh, b] <= rg and ref.line_of_fire_clear(g.static.grid.hex_id(gh), g.static.grid.hex_id(b), *ref.blocking_sets(g.static)))
            assert ok == want


# ----------------------------------------------------------------- 16.1 airfield entry, on the map
class _AirfieldBots:
    """Bots for the airfield entry (16.11, 16.12): the Axis bot records what it
    is offered (candidates, airfields, capacity, cost) and lands ``land(cands,
    fields)``; the Allied bot records the AA options and fires as ``fire``
    says (default: each AA unit at the first airfield offered); the Axis
    ``choose_loss`` records the units offered and takes the lowest index."""

    def __init__(self, land=None, fire=None):
        rec = self
        self.offers, self.aa_offers, self.losses = [], [], []

        class Axis(Scripted):
            def airfield_landings(self, game, cands, fields, capacity, cost):
                rec.offers.append((list(cands), list(fields), capacity, dict(cost)))
                return land(cands, fields) if land else []

            def choose_loss(self, game, units, reason):
                rec.losses.append((reason, sorted(int(x) for x in units)))
                return sorted(units)[0]

        class Allied(Scripted):
            def aa_targets(self, game, options):
                rec.aa_offers.append({int(a): list(v) for a, v in options.items()})
                return fire(options) if fire else {a: v[0] for a, v in options.items()}

        self.policies = (Axis(AXIS), Allied(ALLIED))


def _airfield_game(land=None, fire=None):
    """A clear Hercules day turn, every airfield Axis-controlled, no Allied
    piece on the map (16.11), with :class:`_AirfieldBots`."""
    g = hercules_game()
    airfield_entry_spy(g)
    bots = _AirfieldBots(land, fire)
    g.policies = bots.policies
    return g, bots


_ENTRANTS_80 = ["axis.80.hq", "axis.80.mc_39.1", "axis.80.mc_39.2", "axis.80.mc_39.3", "axis.80.eng_80.1",
                "axis.80.eng_80.2", "axis.80.art_1", "axis.80.art_2"]


def test_rule_16_1_16_14_battalions_break_down_and_only_companies_hq_and_artillery_land():
    """Rules 16.1, 16.11, 16.14: before airborne units land at airfields the
    80th Division's glider battalions and the two commando battalions are
    broken down into glider companies; the units offered are the companies,
    the 80th Division HQ and its artillery battalions (never a battalion that
    was broken down, never a leader or a paratroop unit of the Disbandment
    Box); the artillery counts two company equivalents, the others one.  On a
    later phase (nothing landed) the same units are offered again; units that
    landed are not."""
    g, bots = _airfield_game()
    t = g.static
    coys = [u(f"axis.it.glider_coy.{i}") for i in range(1, 25)]
    want = sorted([u(n) for n in _ENTRANTS_80] + coys)
    airfields.airfield_entry(g)
    cands, fields, cap, cost = bots.offers[-1]
    assert sorted(cands) == want
    assert cap == 2 and cost == {x: (2 if t.utype[x] == st.ARTILLERY else 1) for x in want}
    bns = [u(n) for n in ("axis.80.1_125", "axis.80.2_125", "axis.80.3_125", "axis.80.1_126", "axis.80.2_126",
                          "axis.80.3_126", "axis.un.ard", "axis.un.lor")]
    assert all(g.state.parent[c] in bns for c in coys)                             # broken down (13.1)
    airfields.airfield_entry(g)                                                     # nothing landed
    assert len(bots.offers) == 2 and sorted(bots.offers[-1][0]) == want
    land = [coys[0], coys[20]]
    bots2 = _AirfieldBots(land=lambda cands, fields: [(x, fields[0]) for x in land])
    g.policies = bots2.policies
    airfields.airfield_entry(g)
    assert all(g.state.box[x] == BOX_MAP for x in land)
    bots3 = _AirfieldBots()
    g.policies = bots3.policies
    airfields.airfield_entry(g)
    assert sorted(bots3.offers[-1][0]) == [x for x in want if x not in land]


def test_rule_16_11_only_axis_airfields_without_an_adjacent_allied_unit():
    """Rule 16.11: airborne units land only on Axis-controlled airfields that
    have no adjacent Allied unit (an Allied unit two hexes away does not
    close it; other Axis-controlled hexes are no airfields)."""
    g, bots = _airfield_game()
    s, t = g.state, g.static
    d = t.grid.distance_table
    afs = [int(x) for x in np.flatnonzero(t.airfield)]
    a1211, a1515, a1713, a1914, a2015 = afs
    land = np.flatnonzero(t.land & ~t.airfield)
    nxt = [int(x) for x in land if d[x, a1914] == 1 and min(d[x, a] for a in afs if a != a1914) >= 2][0]
    two = [int(x) for x in land if d[x, a1211] == 2 and min(d[x, a] for a in afs if a != a1211) >= 3][0]
    for name, x in (("allied.uk.8m", nxt), ("allied.uk.2rwk", two)):
        s.box[u(name)], s.hex[u(name)] = BOX_MAP, x
    s.control[a1515] = ALLIED
    s.control[int(land[0])] = AXIS
    airfields.airfield_entry(g)
    assert sorted(bots.offers[-1][1]) == [a1211, a1713, a2015]


def test_rule_16_11_16_13_landing_effects_and_16_12_aa_options():
    """Rules 16.11, 16.13, 16.14: a landed unit is placed on its airfield, may
    not move this turn, artillery lands hitched (a company does not); the 80th
    Division's glider companies stay in the division, the commandos' are
    unassigned; the landing is logged.  16.12: each Allied AA unit within
    three hexes (not four) is offered the airfields just landed on."""
    g, bots = _airfield_game()
    s, t = g.state, g.static
    d = t.grid.distance_table
    a1211 = t.grid.index("1211")
    land = np.flatnonzero(t.land & ~t.airfield)
    at3 = [int(x) for x in land if d[x, a1211] == 3]
    at4 = [int(x) for x in land if d[x, a1211] == 4]
    aa = [u("allied.uk.aa_65"), u("allied.uk.aa_32"), u("allied.mt.aa_3")]
    for x, hh in zip(aa, (at3[0], at4[0], at3[1])):
        s.box[x], s.hex[x] = BOX_MAP, hh
    art = u("axis.80.art_1")
    bots2 = _AirfieldBots(land=lambda cands, fields: [(art, a1211)], fire=lambda options: {})
    g.policies = bots2.policies
    airfields.airfield_entry(g)
    assert s.box[art] == BOX_MAP and s.hex[art] == a1211 and s.entered_turn[art] == g.turn
    assert s.moved[art] and s.hitched[art]                                           # 16.13
    assert bots2.aa_offers == [{aa[0]: [a1211], aa[2]: [a1211]}]                     # 16.12: within 3
    assert [r["units"] for r in g.events.rows if r["action"] == "airfield_landing"] == ["axis.80.art_1"]
    coy80, coy_cmd = u("axis.it.glider_coy.1"), u("axis.it.glider_coy.19")
    bots3 = _AirfieldBots(land=lambda cands, fields: [(coy80, a1211), (coy_cmd, a1211)], fire=lambda o: {})
    g.policies = bots3.policies
    airfields.airfield_entry(g)
    assert all(s.hex[x] == a1211 and s.moved[x] and not s.hitched[x] for x in (coy80, coy_cmd))
    assert s.formation[coy80] == 3 and s.formation[coy_cmd] == -1                     # 16.14


def test_rule_16_11_16_12_illegal_landings_and_aa_targets():
    """Rule 16.11: a unit offered may not land on a hex that is not an open
    airfield, nor more than two company equivalents; 16.12: an AA unit fires
    only at an airfield within three hexes where units just landed."""
    for pick in (lambda cands, fields: [(u("axis.80.hq"), h("1212"))],
                 lambda cands, fields: [(u("axis.80.hq"), fields[0]), (u("axis.80.art_1"), fields[0])]):
        g, bots = _airfield_game(land=pick)
        with pytest.raises(IllegalDecision):
            airfields.airfield_entry(g)
    g, bots = _airfield_game(land=lambda cands, fields: [(u("axis.80.hq"), h("1211")), (u("axis.80.eng_80.1"), h("1515"))],
                             fire=lambda options: {a: h("1515") for a in options})
    s = g.state
    aa = u("allied.uk.aa_65")
    s.box[aa], s.hex[aa] = BOX_MAP, h("1011")                    # near 1211 only
    assert g.static.grid.distance_table[h("1011"), h("1211")] <= 3 < g.static.grid.distance_table[h("1011"), h("1515")]
    with pytest.raises(IllegalDecision):
        airfields.airfield_entry(g)


def test_rule_16_12_aa_fire_on_the_games_dice():
    """Rule 16.12 on the game's own dice: each AA unit that fires rolls one
    die; a 6 eliminates one unit just landed on that airfield (the Axis
    player's choice among those still there).  Forty landings of two glider
    companies under two AA units, each die predicted."""
    from malta_sim.rng import nb_die

    g, bots = _airfield_game()
    s, t = g.state, g.static
    d = t.grid.distance_table
    a1211 = h("1211")
    at3 = [int(x) for x in np.flatnonzero(t.land & ~t.airfield) if d[x, a1211] == 3]
    aa = [u("allied.uk.aa_65"), u("allied.uk.aa_32")]
    for x, hh in zip(aa, at3):
        s.box[x], s.hex[x] = BOX_MAP, hh
    airfields.airfield_entry(g)                                   # the break-downs
    pair = [u("axis.it.glider_coy.4"), u("axis.it.glider_coy.5")]
    kills = 0
    for trial in range(40):
        for x in pair:
            s.box[x], s.hex[x], s.moved[x] = BOX_DISBANDMENT, -1, False
        bots = _AirfieldBots(land=lambda cands, fields: [(x, a1211) for x in pair])
        g.policies = bots.policies
        dice = H.nstate(g, "air").copy()
        alive, want = list(pair), []
        for a in sorted(aa):
            if nb_die(dice) == 6 and alive:
                want.append(("AA fire 16.12", list(alive)))
                alive = alive[1:]
        airfields.airfield_entry(g)
        assert bots.aa_offers == [{aa[0]: [a1211], aa[1]: [a1211]}]
        assert bots.losses == want
        assert [x for x in pair if s.box[x] == BOX_MAP and s.hex[x] == a1211] == alive
        assert all(s.box[x] != BOX_MAP and s.hex[x] < 0 for x in pair if x not in alive)
        assert np.array_equal(H.nstate(g, "air"), dice)
        kills += len(want)
    assert kills


def test_rule_16_12_aa_fire_is_a_six():
    """Rule 16.12: the AA die eliminates a unit on a 6 and only on a 6."""
    from malta_sim.rng import nb_die

    rs = kernel_stream(61)
    faces = set()
    for _ in range(300):
        peek = rs.copy()
        face = nb_die(peek)
        faces.add(face)
        assert airfields.aa_fire(rs) == (face == 6)
        assert np.array_equal(rs, peek)
    assert faces == {1, 2, 3, 4, 5, 6}


def test_rule_13_1_16_1_a_battalion_broken_down_is_not_broken_down_again():
    """Rules 13.1, 16.1: the glider battalions break down once; while their
    companies are in play a battalion is not broken down again, even when
    generic glider company pieces have come free (three companies of three
    different battalions eliminated): the free pieces stay unused and the
    same companies are offered."""
    g, bots = _airfield_game()
    s = g.state
    airfields.airfield_entry(g)
    coys = [u(f"axis.it.glider_coy.{i}") for i in range(1, 25)]
    parents = {c: int(s.parent[c]) for c in coys}
    dead = [u("axis.it.glider_coy.4"), u("axis.it.glider_coy.7"), u("axis.it.glider_coy.10")]
    assert len({parents[c] for c in dead}) == 3
    for c in dead:
        s.box[c], s.hex[c] = BOX_MAP, h("1211")
        H.eliminate(g, c, "test")
    free = [c for c in coys if s.box[c] not in (BOX_MAP, BOX_DISBANDMENT)]
    assert sorted(free) == sorted(dead)
    airfields.airfield_entry(g)
    assert all(s.box[c] not in (BOX_MAP, BOX_DISBANDMENT) for c in dead)
    assert {c: int(s.parent[c]) for c in coys if c not in dead} == {c: p for c, p in parents.items() if c not in dead}
    assert sorted(x for x in bots.offers[-1][0] if x in coys) == sorted(c for c in coys if c not in dead)


def test_rule_13_2_16_1_a_battalion_whose_companies_were_all_eliminated_does_not_come_back():
    """Rule 13.2 (16.1): disbanded companies that are eliminated are lost to
    their battalion (it may reform only at its strength minus the companies
    lost, and broken down again a lost company does not return): a glider
    battalion whose three companies were all eliminated offers no company at
    a later airfield entry."""
    g, bots = _airfield_game()
    s = g.state
    airfields.airfield_entry(g)
    bn = u("axis.80.1_125")
    mine = [c for c in range(len(s.parent)) if s.parent[c] == bn]
    assert len(mine) == 3
    for c in mine:
        s.box[c], s.hex[c] = BOX_MAP, h("1211")
        H.eliminate(g, c, "test")
    assert s.box[bn] == BOX_ELIMINATED and s.hex[bn] == -1  # out of play with its last company
    last = [r for r in g.events.rows if r["action"] == "eliminated"][-1]
    assert last["units"] == g.static.names[bn] and last["rule"] == "13.2"
    airfields.airfield_entry(g)
    assert not any(s.parent[c] == bn and s.box[c] in (BOX_MAP, BOX_DISBANDMENT) for c in range(len(s.parent)))
