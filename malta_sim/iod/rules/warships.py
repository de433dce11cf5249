"""Warships (rule 16.7): placement on the first Amphibious Landing Phase,
movement, duels with coastal guns (16.55, 16.79, 18.4), and the helpers the
combat phase uses for warship support and bombardment (16.73-16.78).

Warships are units of the unit table (``utype == WARSHIP``) with
``off_support``, ``def_support`` and ``art_range``; on the map they stand on
ocean hexes (16.71), at most two per hex (16.72).  A damaged warship is in
``BOX_DAMAGED`` and counts one Axis step (20.2).
"""

from __future__ import annotations

import numpy as np

from malta_sim.iod.rules import coastal_guns as cg
from malta_sim.iod import invasion
from malta_sim.iod import static as st
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP, BOX_NOT_YET, NIGHT, RAINY
from malta_sim.iod.state import (BOX_DAMAGED, LOSS_COASTAL_FIRE)
from malta_sim.iod.rules import organisation

#: Most warships per hex (16.72); most warships supporting one attack / defense (16.74).
MAX_PER_HEX = 2
MAX_OFFENSIVE = 3
MAX_DEFENSIVE = 2




def _ocean(game) -> tuple:
    """The ocean hexes (16.71) as an ascending tuple and as a set, built once
    per invasion static data."""
    inv = invasion.inv_static(game)
    return inv.ocean_hexes, inv.ocean_set


def warship_hexes(game) -> list:
    """Ocean hexes of the map a warship may occupy (16.71), ascending (a new list)."""
    return list(_ocean(game)[0])


def ships_in_play(game) -> list:
    """Warships on the map (16.7), ascending unit indices (Python ints)."""
    t = game.static
    ships = t.warship_units                                      # all warship pieces
    return ships[game.state.box[ships] == BOX_MAP].tolist()


def _check_stacking(game, where: dict) -> None:
    count: dict = {}
    for h in where.values():
        count[h] = count.get(h, 0) + 1
        if count[h] > MAX_PER_HEX:
            raise invasion._illegal("16.72", "no more than two warships in a hex")


def place_warships(game) -> None:
    """Rule 16.7 / 4.22 b: the Axis places all warships on ocean hexes in the
    Amphibious Landing Phase of the first turn."""
    s, t = game.state, game.static
    game.state.warships_placed[0] = True
    ships = [int(u) for u in np.flatnonzero((t.utype == st.WARSHIP) & (s.box == BOX_NOT_YET))]
    if not ships:
        return
    hexes = warship_hexes(game)
    legal = _ocean(game)[1]
    options = {u: hexes for u in ships}
    where = game.policy(AXIS).place_warships(game, ships, options)
    for u in ships:
        if u not in where or where[u] not in legal:
            raise invasion._illegal("16.7", f"warship {t.names[u]} must be placed on an ocean hex")
    _check_stacking(game, where)
    for u, h in where.items():
        s.box[u], s.hex[u], s.box_slot[u] = BOX_MAP, int(h), -1
    game.log("warships_placed", side=AXIS, hexes=sorted(set(where.values())), units=ships, rule="16.7")


def warship_movement(game) -> None:
    """Rule 16.71 (4.24 d): warships move to any ocean hex (two per hex, 16.72)."""
    s = game.state
    ships = ships_in_play(game)
    if not ships:
        return
    hexes = warship_hexes(game)
    legal = _ocean(game)[1]
    moves = game.policy(AXIS).move_warships(game, ships, {u: hexes for u in ships})
    where = {u: int(s.hex[u]) for u in ships}
    for u, h in moves.items():
        if u not in where or h not in legal:
            raise invasion._illegal("16.71", "warships move only to ocean hexes")
        where[u] = int(h)
    _check_stacking(game, where)
    for u, h in where.items():
        s.hex[u] = h


def may_fire(game) -> bool:
    """Rule 16.76: no warship support, bombardment or fire at coastal guns in
    Rainy weather or on Night turns."""
    return game.tod != NIGHT and int(game.state.weather[0]) != RAINY


def support_allowed(game, u: int) -> bool:
    """Whether warship ``u`` may give offensive/defensive support or bombard now
    (16.73, 16.76; 18.4: not in a turn it fired at coastal guns)."""
    s = game.state
    return (s.box[u] == BOX_MAP and may_fire(game) and int(s.gun_fired_turn[u]) != game.turn)


def communications_roll(game) -> bool:
    """Rule 16.73: one die per supporting warship; 1-3 = no communication (the
    support is not added and the ship may not fire for the rest of the turn)."""
    return game.die("combat") >= 4


def exchange_fire(game) -> None:
    """Rules 16.55, 16.79, 18.4 (4.22 c): warships and coastal guns within range
    may exchange fire.  The Axis names the targets of its ships first (each
    ship rolls half its offensive support, rounded up, splitting its dice as it
    likes; a 6 destroys the gun); then the Allies name which guns fire at which
    ship (dice = gun value, +1 each within 3 hexes; any 6+ damages the ship);
    the fire is simultaneous.  Ships that fired give no support this turn;
    guns that fired at ships may not fire at the wave boxes."""
    if not may_fire(game):
        return
    h = invasion
    s, t = game.state, game.static
    inv = h.inv_static(game)
    ships = ships_in_play(game)
    cgu = inv.allied_firing_guns
    guns = cgu[s.box[cgu] == BOX_MAP].tolist()
    if not ships or not guns:
        return
    d = t.grid.distance_table
    ship_hex = s.hex[ships].tolist()
    gun_hex = s.hex[guns].tolist()
    # who can fire at whom depends only on the ships' and guns' hexes: kept while they stay
    key = (tuple(ships), tuple(ship_hex), tuple(guns), tuple(gun_hex))
    ranges = game.cache.get("_exchange_fire_ranges")
    if ranges is None or ranges[0] != key:
        ranges = game.cache["_exchange_fire_ranges"] = (key,) + _fire_ranges(
            game, ships, ship_hex, guns, gun_hex)
    _, ship_targets, gun_targets = ranges
    # Axis designates first (16.55, 16.79)
    opts = {u: (cg.warship_dice(int(t.off_support[u])), list(in_range))
            for u, in_range in ship_targets.items()}
    axis_fire = game.policy(AXIS).warship_fire(game, opts) if opts else {}
    for u, split in axis_fire.items():
        if u not in opts:
            raise h._illegal("16.79", "warship has no coastal gun in range")
        n, in_range = opts[u]
        if sum(split.values()) > n or any(g not in in_range or k < 0 for g, k in split.items()):
            raise h._illegal("16.79", "warship dice exceed half its offensive support or target out of range")
    # Allied designates second (16.55), with line of fire (16.54)
    gopts = {g: list(tg) for g, tg in gun_targets.items()}
    game._guns_with_box_targets = _guns_with_box_targets(game, guns)
    allied_fire = game.policy(ALLIED).coastal_fire_warships(game, gopts) if gopts else {}
    for g, u in allied_fire.items():
        if g not in gopts or u not in gopts[g]:
            raise h._illegal("16.55", "coastal gun target out of range or line of fire")
    # simultaneous resolution
    rs = h.nstate(game, "navy")
    destroyed, damaged = [], []
    for u, split in sorted(axis_fire.items()):
        if not split:
            continue
        s.gun_fired_turn[u] = game.turn                        # 18.4: no support this turn
        for g, k in sorted(split.items()):
            if k > 0 and cg.dice_any_six(rs, int(k)):
                destroyed.append(g)
        game.log("warship_fire", side=AXIS, units=[u] + list(split), rule="16.79")
    for g, u in sorted(allied_fire.items()):
        s.gun_fired_turn[g] = game.turn
        s.revealed[g] = True                                    # 16.52
        w3 = d[s.hex[g], s.hex[u]] <= cg.CLOSE_RANGE
        if cg.gun_fires_at_warship(rs, int(inv.gun_value[g]), bool(w3)):
            damaged.append(u)
        game.log("coastal_fire_ship", side=ALLIED, units=[g, u], rule="16.55")
    for g in sorted(set(destroyed)):
        h.eliminate(game, g, "warship fire 16.79")
    for u in sorted(set(damaged)):
        damage_warship(game, u)
        game.log("warship_damaged", side=ALLIED, units=[u], rule="16.55")


def _fire_ranges(game, ships: list, ship_hex: list, guns: list, gun_hex: list) -> tuple:
    """Targets in range: per warship the coastal guns within its artillery
    range (16.79), per gun the warships within its range and line of fire
    (16.54, 16.55); only pieces with at least one target, in unit order.

    Returns
    -------
    (dict, dict)
        ``ship -> [gun, ...]`` and ``gun -> [ship, ...]``.
    """
    h = invasion
    t = game.static
    inv = h.inv_static(game)
    d = t.grid.distance_table
    gun_arr = np.asarray(guns)
    gun_hex_arr = np.asarray(gun_hex)
    ship_targets = {}
    for u, uh in zip(ships, ship_hex):
        in_range = gun_arr[d[uh, gun_hex_arr] <= t.art_range[u]].tolist()
        if in_range:
            ship_targets[u] = in_range
    gun_targets = {}
    for g, gh in zip(guns, gun_hex):
        reach = cg.gun_reach(inv, t.grid, gh, int(inv.gun_range[g]))
        tg = [u for u, uh in zip(ships, ship_hex) if reach(uh)]
        if tg:
            gun_targets[g] = tg
    return ship_targets, gun_targets


def _guns_with_box_targets(game, guns) -> set:
    """Guns that have a wave box in range (the default Allied bot keeps those for
    the landing craft, 16.56)."""
    h = invasion
    s, t = game.state, game.static
    inv = h.inv_static(game)
    d = t.grid.distance_table
    beaches = np.unique(s.box_slot[(s.box == 2) | (s.box == 3)])
    if not beaches.size or not len(guns):
        return set()
    guns = np.asarray(guns)
    in_range = (d[np.ix_(s.hex[guns], beaches)] <= inv.gun_range[guns][:, None]).any(axis=1)
    return set(guns[in_range].tolist())


# ====================================================================================
# Moved from the invasion engine
# ====================================================================================
def damage_warship(game, u: int, cause: int = LOSS_COASTAL_FIRE) -> None:
    """A warship is damaged: out of the game, one Axis step lost (16.55, 20.2).

    ``cause``: the LOSS_* code its step is tallied under (coastal fire 16.55;
    the Royal Navy result of 17.6 passes LOSS_OTHER)."""
    s = game.state
    if s.box[u] == BOX_DAMAGED:
        return
    s.box[u], s.hex[u] = BOX_DAMAGED, -1
    s.warships_damaged[0] += 1
    organisation.tally_side(game, AXIS, 1, cause)      # 20.2 (a warship's step weight is 0)
    s.steps_lost[u] += 1
