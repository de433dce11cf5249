"""Operation Hercules invasion: constructed positions per rule and whole-game
invariants (rules 3.0, 16.1-16.7, 17.5-17.8, 18, 19, 20.0, 21, 22.3, 22.39)."""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod.rules import airborne as ap
from malta_sim.iod import invasion as H, sequence
from malta_sim.iod.rules import special_rules, special_rules as special, warships
from malta_sim.iod import static as st
from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.state import (ALLIED, AXIS, BOX_CUP, BOX_DAMAGED, BOX_DISBANDMENT,
                                                   BOX_FIRST_WAVE, BOX_FOLLOW_UP, BOX_MAP, BOX_NAMES,
                                                   BOX_NOT_YET, BOX_SECOND_WAVE, RAINY)
from malta_sim.iod.rules import airfields
from malta_sim.iod.rules import amphibious
from malta_sim.iod.rules import coastal_guns
from malta_sim.iod.rules import victory
from malta_sim import play


def _game(seed=3, idx=0, axis="random", allied="random", options=(), check=False):
    return play.new_game("hercules", seed, idx, axis_policy=axis, allied_policy=allied,
                           options=options, check=check, event_log=True)


def _hex(g, hid):
    return g.static.grid.index(hid)


def _clear_allied(g):
    """Take every Allied piece off the map (constructed positions)."""
    s = g.state
    for u in g.on_map(ALLIED):
        s.box[u], s.hex[u] = 9, -1
    s.box[s.box == BOX_CUP] = 9          # and no militia uprisings


# ----------------------------------------------------------------- 3.0 preparation
def test_rule_3_0_preparation():
    """3.0 a-f / 22.33-22.37: divisions with attached units wait for the Follow-up
    boxes, each has a beach zone, jumps of the first two days are planned with
    both markers on 29 June, strongpoints next to beaches, militia in the cup."""
    g = _game()
    s, t, m = g.state, g.static, H.memo(g)
    amph = [u for u in range(len(t.names)) if s.box[u] == BOX_NOT_YET and t.side[u] == AXIS
            and t.utype[u] != st.WARSHIP]
    assert amph and all(int(s.formation[u]) in H.DIVISIONS for u in amph)            # 15.21
    assert set(m.division_zone) == set(H.DIVISIONS)                                   # 18.21
    markers = [p for p in m.plans if p.kind == "marker"]
    assert {p.formation for p in markers} == {1, 2} and all(p.turn in (0, 2) for p in markers)  # 19.0
    assert all(p.turn < 8 for p in m.plans)                                            # 19.3
    sps = [u for u in g.on_map(ALLIED) if t.utype[u] == st.STRONGPOINT]
    hexes = [int(s.hex[u]) for u in sps]
    assert len(hexes) == len(set(hexes))                                               # 16.2
    for h in hexes:
        assert any(t.beach[o] for o in t.neighbours[h] if o >= 0)
    assert int((s.box == BOX_CUP).sum()) == 5                                          # 16.31
    assert all(s.box[u] == BOX_NOT_YET for u in np.flatnonzero(t.utype == st.WARSHIP))  # 22.34


def test_rule_18_22_follow_up_boxes_on_first_initial_segment():
    g = _game()
    amphibious.place_follow_up_boxes(g)
    s, t, m = g.state, g.static, H.memo(g)
    for d in H.DIVISIONS:
        units = np.flatnonzero((s.formation == d) & (t.side == AXIS) & (t.utype != st.HQ - 100))
        units = [u for u in units if s.box[u] == BOX_FOLLOW_UP]
        assert units and all(s.box_slot[u] == m.division_zone[d] for u in units)


def test_rule_21_2_solitaire_zones_differ():
    for i in range(5):
        g = _game(idx=i, options=("solitaire",))
        m = H.memo(g)
        assert m.division_zone[4] != m.division_zone[5]
        assert not m.plans                                                             # 21.1


# ----------------------------------------------------------------- 18.3 wave boxes
def _zone_game():
    g = _game()
    amphibious.place_follow_up_boxes(g)
    m = H.memo(g)
    z = m.division_zone[4]
    beaches = [int(b) for b in H.inv_static(g).zone_beaches[z]]
    return g, z, beaches


def test_rule_18_91_no_box_for_allied_occupied_beach():
    """18.91 / 18.32: an Allied unit on a beach hex closes both of its boxes;
    a beach next to an Allied unit needs its First Wave box filled first."""
    g, z, beaches = _zone_game()
    _clear_allied(g)
    s, t = g.state, g.static
    inf = [u for u in range(len(t.names)) if t.side[u] == ALLIED and t.utype[u] == st.INFANTRY
           and t.size[u] == st.BATTALION][0]
    s.box[inf], s.hex[inf] = BOX_MAP, beaches[0]
    opts = amphibious.wave_options(g)
    assert beaches[0] not in opts.first[z]
    nb = [int(o) for o in t.neighbours[beaches[0]] if o in beaches]
    for b in nb:
        assert b in opts.second_needs_first[z]


def test_rule_18_31_first_wave_limits_enforced():
    g, z, beaches = _zone_game()
    _clear_allied(g)
    opts = amphibious.wave_options(g)
    units = opts.zones[z]
    arts = [u for u in units if g.static.utype[u] == st.ARTILLERY]
    with pytest.raises(IllegalDecision):
        amphibious.validate_waves(g, opts, {(BOX_FIRST_WAVE, beaches[0]): arts[:1]})
    two = [u for u in units if g.static.utype[u] in (st.ENGINEER, st.MARINE)][:2]
    with pytest.raises(IllegalDecision):
        amphibious.validate_waves(g, opts, {(BOX_SECOND_WAVE, beaches[0]): two})
    fill = amphibious.fill_wave_boxes(g, opts, None)
    amphibious.validate_waves(g, opts, fill)                                                    # default is legal
    for (w, b), us in fill.items():
        assert len(us) <= (3 if w == BOX_FIRST_WAVE else 1)


def test_rule_18_5_no_landing_losses_far_from_allies():
    """18.5: no roll beyond two hexes of every Allied unit; 18.7: beach move."""
    g, z, beaches = _zone_game()
    _clear_allied(g)
    s = g.state
    opts = amphibious.wave_options(g)
    fill = amphibious.fill_wave_boxes(g, opts, None)
    for (w, b), us in fill.items():
        for u in us:
            s.box[u], s.box_slot[u] = w, b
    n = sum(len(v) for v in fill.values())
    amphibious.land_wave(g, BOX_FIRST_WAVE)
    amphibious.land_wave(g, BOX_SECOND_WAVE)
    landed = [u for u in g.on_map(AXIS)]
    assert len(landed) >= n                                                            # nothing lost
    assert all(s.landed_beach[b] for (w, b) in fill)                                   # 8.51, 12.54


def test_rule_18_6_waters_edge_losses_are_steps_only():
    """18.6 / 18.63: water's edge fire costs steps, never retreats; Allied
    units across an all-ocean hexside cannot fire."""
    g, z, beaches = _zone_game()
    _clear_allied(g)
    s, t = g.state, g.static
    b = beaches[0]
    land_nb = [int(t.neighbours[b, d]) for d in range(6)
               if t.neighbours[b, d] >= 0 and t.land[t.neighbours[b, d]] and not t.ocean_side[b, d]
               and not t.beach[t.neighbours[b, d]]]
    if not land_nb:
        pytest.skip("beach without a land neighbour")
    bns = [u for u in range(len(t.names)) if t.side[u] == ALLIED and t.utype[u] == st.INFANTRY
           and t.size[u] == st.BATTALION and t.nation[u] == st.BRITISH][:2]
    for u in bns:
        s.box[u], s.hex[u], s.level[u] = BOX_MAP, land_nb[0], 0
    opts = amphibious.wave_options(g)
    units = [u for u in opts.zones[z] if g.static.utype[u] in (st.ENGINEER, st.MARINE)][:2]
    for u in units:
        s.box[u], s.box_slot[u] = BOX_FIRST_WAVE, b
    before = int(s.allied_steps_lost[0]) + int(s.axis_steps_lost[0])
    amphibious.land_wave(g, BOX_FIRST_WAVE)
    for u in bns:
        assert s.box[u] in (BOX_MAP, 5) and (s.box[u] != BOX_MAP or s.hex[u] == land_nb[0])  # no retreat
    assert int(s.allied_steps_lost[0]) + int(s.axis_steps_lost[0]) >= before


# ----------------------------------------------------------------- 16.5 / 16.7
def test_rule_16_56_guns_fire_only_in_range_and_line_of_fire():
    g, z, beaches = _zone_game()
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
    g = _game()
    warships.place_warships(g)
    s, t = g.state, g.static
    inv = H.inv_static(g)
    ships = warships.ships_in_play(g)
    assert len(ships) == 8
    hexes = [int(s.hex[u]) for u in ships]
    assert all(inv.ocean[h] for h in hexes)
    assert max(hexes.count(h) for h in hexes) <= 2


def test_rule_16_55_damaged_warship_counts_one_axis_step():
    g = _game()
    warships.place_warships(g)
    s = g.state
    u = warships.ships_in_play(g)[0]
    before = int(s.axis_steps_lost[0])
    warships.damage_warship(g, u)
    assert s.box[u] == BOX_DAMAGED and int(s.warships_damaged[0]) == 1
    assert int(s.axis_steps_lost[0]) == before + 1                                     # 20.2


def test_rule_16_76_no_warship_fire_in_rain():
    g = _game()
    warships.place_warships(g)
    g.state.weather[0] = RAINY
    assert not warships.may_fire(g)


# ----------------------------------------------------------------- 17.5 - 17.8
def test_rule_17_5_air_attacks_only_at_guns():
    g = _game(axis="random")
    s, t = g.state, g.static
    guns_before = sum(1 for u in g.on_map(ALLIED) if t.utype[u] == st.COASTAL_GUN)
    others_before = sum(1 for u in g.on_map(ALLIED) if t.utype[u] != st.COASTAL_GUN)
    special_rules.air_attacks(g)
    assert sum(1 for u in g.on_map(ALLIED) if t.utype[u] != st.COASTAL_GUN) == others_before  # 17.53
    assert sum(1 for u in g.on_map(ALLIED) if t.utype[u] == st.COASTAL_GUN) <= guns_before


def test_rule_17_6_royal_navy_six():
    g = _game()
    warships.place_warships(g)
    amphibious.place_follow_up_boxes(g)
    g.die = lambda purpose: 6
    special_rules.royal_navy_intervention(g)
    s = g.state
    assert int(s.rn_result[0]) == 6
    assert special.rn_surrender_modifier(6) == 3
    assert int(s.warships_damaged[0]) >= 1


def test_rule_17_7_delayed_reaction_blocks_far_allied_moves():
    from malta_sim.iod.rules import movement

    g = _game()
    s, t = g.state, g.static
    u = [v for v in g.on_map(ALLIED) if t.utype[v] == st.INFANTRY and t.size[v] == st.BATTALION][0]
    assert s.turn[0] == 0 and not H.axis_ground_hexes(g).size
    assert not movement.movable(g, u)
    s.turn[0] = 2                                                                       # 29 June PM
    assert movement.movable(g, u)


def test_rule_17_8_stragglers_may_not_move():
    g = _game()
    _clear_allied(g)
    s, t = g.state, g.static
    c = [u for u in range(len(t.names)) if t.utype[u] == st.PARATROOP and t.size[u] == st.COMPANY][0]
    s.box[c], s.hex[c], s.reduced[c] = BOX_MAP, _hex(g, "1312"), True
    special_rules.stragglers(g)
    assert s.moved[c] or not H.memo(g).straggler_turn                                   # 17.81


# ----------------------------------------------------------------- 19 airborne
def test_rule_19_43_stick_on_ocean_cancelled():
    g = _game()
    s, t = g.state, g.static
    inv = H.inv_static(g)
    ocean = g.static.grid.hex_id(int(np.flatnonzero(inv.ocean)[0]))
    bn = [u for u in range(len(t.names)) if t.utype[u] == st.PARATROOP and t.size[u] == st.BATTALION
          and s.box[u] == BOX_DISBANDMENT][0]
    assert ap.jump_stick(g, int(t.printed_formation[bn]), [bn], ocean, solitaire=False) == []
    assert s.box[bn] == BOX_DISBANDMENT                                                 # still available
    assert ap.jump_stick(g, int(t.printed_formation[bn]), [bn], None, solitaire=False) == []


def test_rule_19_42_drop_zone_marker_never_on_ocean():
    g = _game()
    inv = H.inv_static(g)
    for k in range(200):
        h = ap.drop_marker(g, 1 + k % 2, _hex(g, "0911"), solitaire=True)
        assert not inv.ocean[h]


def test_rule_19_53_hostile_landing_at_hopeless_odds_eliminates():
    g = _game()
    s, t = g.state, g.static
    _clear_allied(g)
    h = _hex(g, "1312")
    bns = [u for u in range(len(t.names)) if t.side[u] == ALLIED and t.utype[u] == st.INFANTRY
           and t.size[u] == st.BATTALION][:4]
    for u in bns:
        s.box[u], s.hex[u], s.level[u] = BOX_MAP, h, 0
    eng = [u for u in range(len(t.names)) if t.utype[u] == st.ENGINEER and t.side[u] == AXIS
           and t.printed_formation[u] == 1][0]
    s.box[eng], s.hex[eng] = BOX_MAP, h
    ap.hostile_landing(g, h, [eng])
    assert s.box[eng] != BOX_MAP                                                        # 19.53 (or lost in combat)
    assert all(s.box[u] == BOX_MAP for u in bns)


def test_rule_19_5_hostile_landing_ends_with_one_side():
    for seed in range(6):
        g = _game(seed=seed)
        s, t = g.state, g.static
        _clear_allied(g)
        h = _hex(g, "1312")
        coy = [u for u in range(len(t.names)) if t.side[u] == ALLIED and t.utype[u] == st.INFANTRY
               and t.size[u] == st.COMPANY][0]
        s.box[coy], s.hex[coy] = BOX_MAP, h
        comps = [u for u in range(len(t.names)) if t.utype[u] == st.PARATROOP and t.size[u] == st.COMPANY
                 and t.printed_formation[u] == 1][:3]
        for c in comps:
            s.box[c], s.hex[c] = BOX_MAP, h
        ap.hostile_landing(g, h, comps)
        sides = {int(t.side[u]) for u in g.units_at(h)}
        assert len(sides) <= 1                                                          # 19.51


# ----------------------------------------------------------------- 16.1 airfields
def test_rule_16_11_airfield_capacity_and_aa():
    g = _game()
    s, t = g.state, g.static
    _clear_allied(g)
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
    g = _game()
    s, t = g.state, g.static
    town = [int(h) for h in np.flatnonzero(t.town)][0]
    c = [u for u in range(len(t.names)) if t.utype[u] == st.MARINE][0]
    s.box[c], s.hex[c] = BOX_MAP, town
    for _ in range(3):
        H.on_enter_hex(g, c, town, "move_end")
    assert not any(t.utype[e] == st.MILITIA for e in g.units_at(town, ALLIED))
    assert s.militia_rolled[town]


# ----------------------------------------------------------------- 20.0
def test_rule_20_0_beach_hexes_against_occupied_follow_up_boxes():
    g = _game()
    amphibious.place_follow_up_boxes(g)
    inv, m, s = H.inv_static(g), H.memo(g), g.state
    zones = set(m.division_zone.values())
    expect = sum(int((s.control[inv.zone_beaches[z]] == ALLIED).sum()) for z in zones)
    assert victory.invasion_terms(g) == expect
    s.rn_result[0] = 5
    assert victory.invasion_terms(g) == expect + 1


# ----------------------------------------------------------------- 22.39 options
def test_rule_22_39_variable_allied_placement_legal():
    g = _game(options=("variable_allied_placement",))
    s, t = g.state, g.static
    for u in g.on_map(ALLIED):
        if t.utype[u] == st.SECURITY and ".rn." in t.names[u]:
            assert t.main_port[s.hex[u]] or t.minor_port[s.hex[u]]
        if t.utype[u] == st.SECURITY and ".raf." in t.names[u]:
            assert t.airfield[s.hex[u]]


# ----------------------------------------------------------------- whole games
def _invariant_wrapper(g, problems):
    """Extra invasion invariants checked after every phase."""
    inv = H.inv_static(g)
    n_units = len(g.static.names)

    def check(phase):
        s, t = g.state, g.static
        for f in (1, 2):
            h = int(s.dz_hex[0, f])
            if h >= 0 and inv.ocean[h]:
                problems.append(f"{phase}: drop zone marker on ocean (19.42)")
        if len(s.box) != n_units or ((s.box < 0) | (s.box >= len(BOX_NAMES))).any():
            problems.append(f"{phase}: unit accounting")
        if ((s.box == BOX_MAP) != (s.hex >= 0)).any():
            problems.append(f"{phase}: unit on map without hex")
        for w, lim in ((BOX_FIRST_WAVE, 3), (BOX_SECOND_WAVE, 1)):
            for b in np.unique(s.box_slot[s.box == w]):
                us = [u for u in np.flatnonzero((s.box == w) & (s.box_slot == b)) if t.utype[u] != st.LEADER]
                if len(us) > lim:
                    problems.append(f"{phase}: wave box over its limit (18.31)")
    return check


@pytest.mark.parametrize("idx,options", [(0, ()), (1, ()), (2, ("solitaire",)),
                                         (3, ("variable_allied_placement", "delayed_landings"))])
def test_hercules_plays_to_the_end_with_invariants(idx, options, monkeypatch):
    """Whole game under the random-legal policies with the land engine's phase-end
    invariants (check mode) plus: drop zone markers never on ocean, wave-box
    limits, unit accounting, nothing lands on an Allied-occupied beach hex."""
    g = _game(seed=20260629, idx=idx, options=options, check=True)
    problems: list = []
    check = _invariant_wrapper(g, problems)
    orig_land = amphibious.land_wave

    def land_checked(game, wave):
        s = game.state
        for u in np.flatnonzero((s.box == wave) & (game.static.side == AXIS)):
            b = int(s.box_slot[u])
            if any(game.static.utype[e] != st.LEADER for e in game.units_at(b, ALLIED)):
                # the engine must send such units back, never land them (18.91)
                pass
        orig_land(game, wave)
        for u in game.on_map(AXIS):
            h = int(s.hex[u])
            if game.static.beach[h] and s.entered_turn[u] == game.turn and len(game.units_at(h, ALLIED)):
                problems.append("landed on an Allied-occupied beach hex (18.91)")
        check(f"land_wave {wave}")
    monkeypatch.setattr(amphibious, "land_wave", land_checked)
    orig_leave = sequence._leave

    def leave(game, phase):
        orig_leave(game, phase)
        check(phase)
    monkeypatch.setattr(sequence, "_leave", leave)
    sequence.play_game(g)
    assert g.state.over[0] and g.state.winner[0] in (AXIS, ALLIED)
    assert not problems, problems[:5]


def test_rule_18_5_engine_landing_losses_statistical():
    """Rule 18.5 through the landing driver: a marine company landing next to an
    Allied RAF company (attack 0, so no water's edge fire) is eliminated with
    probability exactly 1/3.  Binomial test, false-alarm rate 1e-4."""
    from scipy.stats import binomtest

    g, z, beaches = _zone_game()
    _clear_allied(g)
    s, t = g.state, g.static
    b = beaches[0]
    nb = [int(o) for o in t.neighbours[b] if o >= 0 and t.land[o] and not t.beach[o]]
    raf = [u for u in range(len(t.names)) if t.utype[u] == st.SECURITY and ".raf." in t.names[u]][0]
    s.box[raf], s.hex[raf] = BOX_MAP, nb[0]
    sm = [u for u in range(len(t.names)) if t.utype[u] == st.MARINE][0]
    n, lost = 450, 0
    for _ in range(n):
        s.box[sm], s.box_slot[sm], s.hex[sm] = BOX_FIRST_WAVE, b, -1
        s.steps_lost[sm] = 0
        amphibious.land_wave(g, BOX_FIRST_WAVE)
        lost += int(s.box[sm] == 5)
        s.box[sm], s.hex[sm] = 9, -1
        s.control[b] = ALLIED
    assert binomtest(lost, n, 1 / 3).pvalue > 1e-4


def test_rule_16_12_engine_aa_fire_statistical():
    """Rule 16.12 through the airfield driver: one AA unit within three hexes
    kills a unit just landed with probability 1/6 per landing phase.
    Binomial test, false-alarm rate 1e-4."""
    from scipy.stats import binomtest

    g = _game()
    _clear_allied(g)
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

    g, z, beaches = _zone_game()
    _clear_allied(g)
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
