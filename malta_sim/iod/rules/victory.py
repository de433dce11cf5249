"""Weather (17.2) and victory: the surrender roll (20.0-20.3, 4.41)."""

from __future__ import annotations


import numba as nb

from malta_sim.iod.state import (ALLIED, AXIS, BOX_ELIMINATED, BOX_TURN_TRACK, CLEAR, CLOUDY, END_REASONS, RAINY, WEATHER_NAMES, turn_name)
import numpy as np
from malta_sim.iod.rules import special_rules as sp
from malta_sim.iod.state import (BOX_FOLLOW_UP)
from malta_sim.iod import invasion

END_REASON_NAMES = END_REASONS


def weather(game) -> None:
    """Rule 17.2 (4.1 c): Clear on the scenario's first day; else 2d6: 2-8
    Clear, 9-10 Cloudy, 11-12 Rainy.  Sets the day's air support (16.41)."""
    s = game.state
    if game.day == game.scenario.first_day:
        s.weather[0] = CLEAR
    else:
        r = game.dice2("weather")
        s.weather[0] = CLEAR if r <= 8 else (CLOUDY if r <= 10 else RAINY)
        game.log("weather", dice=[r], result=WEATHER_NAMES[int(s.weather[0])], rule="17.2")
    if s.weather[0] == RAINY:
        s.rainy_days[0] += 1
    from malta_sim.iod.rules.organisation import set_air_support
    set_air_support(game)


@nb.njit(cache=True)
def objective_counts_kernel(control, airfield, town, fort, fort_destroyed, victory_cities):
    """Axis-held objectives of rule 20.0 in one pass over the hexes.

    Parameters
    ----------
    control : int8[H]
        Controlling side per hex.
    airfield, town, fort, fort_destroyed : bool[H]
        Terrain flags and the forts destroyed (17.1).
    victory_cities : int32[4]
        The victory city hexes (dense indices).

    Returns
    -------
    (int, int, int, int)
        Axis-controlled airfield hexes, victory cities and towns; destroyed
        fort hexes (without the scenario's printed count).
    """
    airfields, towns, forts = 0, 0, 0
    for h in range(control.shape[0]):
        if control[h] == AXIS:
            if airfield[h]:
                airfields += 1
            if town[h]:
                towns += 1
        if fort[h] and fort_destroyed[h]:
            forts += 1
    cities = 0
    for i in range(victory_cities.shape[0]):
        if control[victory_cities[i]] == AXIS:
            cities += 1
    return airfields, cities, towns, forts


def objective_counts(game) -> dict:
    """Axis-held objectives (20.0): airfield hexes, victory cities, towns,
    destroyed forts (one compiled pass, :func:`objective_counts_kernel`)."""
    s, t = game.state, game.static
    airfields, cities, towns, forts = objective_counts_kernel(s.control, t.airfield, t.town, t.fort,
                                                              s.fort_destroyed, t.victory_cities)
    return {
        "airfields": int(airfields),
        "cities": int(cities),
        "towns": int(towns),
        "forts_destroyed": int(forts) + int(s.forts_destroyed_base[0]),
    }


def axis_hqs_out(game) -> int:
    """Axis HQs eliminated and not yet returned to play (20.0: +2 each)."""
    boxes = game.state.box[game.static.axis_hq_units].tolist()
    return sum(1 for b in boxes if b == BOX_ELIMINATED or b == BOX_TURN_TRACK)


def surrender_modifier(game) -> tuple[int, dict]:
    """The total die roll modifier of rule 20.0 and its terms.

    Terms: victory cities 1711/1809/1810/1911 Axis-held -1 each; each Axis
    airfield -1; each full four Axis towns -1; two or more destroyed forts -1;
    each nine Allied steps eliminated -1 (20.1); each nine Axis steps +1
    (20.2, damaged warships included in the tally); each Axis HQ out +2; the
    invasion terms (beach hexes / Follow-up boxes, Royal Navy result) from the
    invasion hook; the date: 6 July +1 ... 10 July +5.
    """
    s = game.state
    c = objective_counts(game)
    terms = {
        "cities": -c["cities"],
        "airfields": -c["airfields"],
        "towns": -(c["towns"] // 4),
        "forts": -1 if c["forts_destroyed"] >= 2 else 0,
        "allied_steps": -(int(s.allied_steps_lost[0]) // 9),
        "axis_steps": int(s.axis_steps_lost[0]) // 9,
        "axis_hqs": 2 * axis_hqs_out(game),
        "date": max(0, game.day - 6),       # day 7 = 6 July -> +1 ... day 11 = 10 July -> +5
        "invasion": 0,
    }
    if not game.skip_invasion:
        terms["invasion"] = invasion_terms(game)
    elif int(s.rn_result[0]) in (4, 5):
        terms["invasion"] = 1
    elif int(s.rn_result[0]) == 6:
        terms["invasion"] = 3
    return sum(terms.values()), terms


def end_game(game, winner: int, reason: str) -> None:
    s = game.state
    s.over[0] = True
    s.winner[0] = winner
    s.end_reason[0] = END_REASONS.index(reason)
    game.log("game over", side=winner, result=reason, rule="20.3")


def surrender_phase(game) -> None:
    """Rule 4.41 / 20.3: the Allied player rolls 2d6 + modifiers; the data
    folder's Surrender Results Table (``tables/surrender_results.csv``, as
    printed: 0 or less Malta surrenders, an Axis win; 14 or more the invasion
    is suspended, an Allied win) gives the result; otherwise play on, and
    after the last turn the Allies win.  Also
    records the first turn the Axis holds more airfields than at the start."""
    s = game.state
    mod, terms = surrender_modifier(game)
    r = game.dice2("surrender")
    s.last_surrender_roll[0] = r
    s.surrender_modifier[0] = mod
    total = r + mod
    if game.events is not None:            # the entry's text is made only when it is kept
        game.log("surrender roll", side=ALLIED, dice=[r], cell=f"modifier {mod:+d}",
                 result=f"{total}", rule="20.3")
    # the Axis airfields counted for the modifier (its term is minus the
    # count; nothing read by objective_counts has changed since)
    if s.first_airfield_turn[0] < 0:
        n_fields = -terms["airfields"]
        if n_fields > game.scenario.start_airfields:
            s.first_airfield_turn[0] = game.turn
    outcome = game.static.tables.surrender_outcome(total)             # 20.3, surrender_results.csv
    if outcome == "axis_wins":
        end_game(game, AXIS, "surrender")
    elif outcome == "allied_wins":
        end_game(game, ALLIED, "invasion_suspended")
    elif game.turn >= game.scenario.last_turn:
        end_game(game, ALLIED, "last_turn")


def per_turn_row(game) -> dict:
    """One row of the per-turn frame."""
    s = game.state
    c = objective_counts(game)
    return {
        "game": game.game_index, "turn": game.turn, "date": turn_name(game.turn),
        "weather": WEATHER_NAMES[int(s.weather[0])],
        "surrender_modifier": int(s.surrender_modifier[0]),
        "surrender_roll": int(s.last_surrender_roll[0]),
        "axis_steps_lost": int(s.axis_steps_lost[0]),
        "allied_steps_lost": int(s.allied_steps_lost[0]),
        "airfields_axis": c["airfields"], "cities_axis": c["cities"], "towns_axis": c["towns"],
        "forts_destroyed": c["forts_destroyed"],
        "axis_units_on_map": int(len(game.on_map(AXIS))),
        "allied_units_on_map": int(len(game.on_map(ALLIED))),
    }


# ====================================================================================
# Moved from the invasion engine
# ====================================================================================
# =====================================================================================
# 20.0 surrender modifiers of the invasion
# =====================================================================================
def invasion_terms(game) -> int:
    """Invasion terms of rule 20.0: +1 per Allied-controlled beach hex connected
    to a Follow-up box holding Axis units; Royal Navy result +1 (4-5) / +3 (6).
    (Damaged warships count as Axis steps through ``axis_steps_lost``, 20.2.)"""
    s = game.state
    inv = invasion.inv_static(game)
    mod = int(beach_term_kernel(s.box, s.box_slot, inv.axis_units_not_leaders, s.control, inv.beach_flat,
                                inv.beach_flat_zone, len(inv.zone_names)))
    return mod + sp.rn_surrender_modifier(int(s.rn_result[0]))


@nb.njit(cache=True)
def beach_term_kernel(box, box_slot, units, control, beach_hexes, beach_zone, n_zones):
    """The beach term of rule 20.0: Allied-controlled beach hexes of the zones
    whose Follow-up box holds Axis units (leaders are not units, 14.0).

    Parameters
    ----------
    box, box_slot : int arrays [U]
        State: box and slot (the zone of a Follow-up box) per unit.
    units : int64[k]
        The Axis pieces other than leaders.
    control : int8[H]
        Controlling side per hex.
    beach_hexes, beach_zone : int64[B]
        Every zone's beach hexes (``InvasionStatic.zone_beaches`` in zone
        order) and the zone of each.
    n_zones : int
        Beach zones.

    Returns
    -------
    int
        Die roll modifier (+1 per such hex).
    """
    held = np.zeros(n_zones, np.bool_)
    for j in range(units.shape[0]):
        u = units[j]
        if box[u] == BOX_FOLLOW_UP and 0 <= box_slot[u] < n_zones:
            held[box_slot[u]] = True
    mod = 0
    for i in range(beach_hexes.shape[0]):
        if held[beach_zone[i]] and control[beach_hexes[i]] == ALLIED:
            mod += 1
    return mod
