"""Scenario set-up (rule 22).

:func:`setup_scenario` places the pieces of a scenario into a fresh
:class:`.game.Game` (Introductory Scenario 22.2; the Operation Hercules
set-up is the invasion engine's ``setup`` hook); :func:`constructed_game`
builds a position for rule tests.  The static data they play on comes from
:func:`malta_sim.iod.static.load_static` (the data folder is read and
validated once, by :mod:`malta_sim.loaders`).
"""

from __future__ import annotations

from dataclasses import dataclass, field as _field

import numpy as np

from malta_sim.iod import static as st
from malta_sim.iod.static import FORMATION_CODES, load_data
from malta_sim.iod.game import Game
from malta_sim.iod.state import (ALLIED, AXIS, BOX_CUP, BOX_DISBANDMENT, BOX_FOLLOW_UP, BOX_MAP,
                    BOX_NOT_YET, BOX_POOL, allocate, copy_state)

#: Formations of paratroopers (their ADCs/HQs return to the Disbandment Box, 14.43, 16.82).
PARA_FORMATIONS = (1, 2)
AIRBORNE_FORMATIONS = (1, 2, 3)
INFANTRY_DIVISIONS = (4, 5)

ZONES = ("North", "South", "East", "West")     #: beach_zones.csv order; box_slot of Follow-up boxes


@dataclass
class ScenarioInfo:
    """What the engine needs of a scenario while playing.

    ``first_day``/``last_day``: day indices (0 = 29 June); ``last_turn``: the
    absolute turn after whose Surrender Phase the game ends (4.41);
    ``hq_cutoff_day``: first day on which an eliminated Axis HQ no longer
    returns (16.82); ``start_airfields``: Axis-held airfields at the start;
    ``follow_up_zone``: formation -> beach zone of its Follow-up box (14.43,
    16.82); ``data``: the loader's Scenario object (for the invasion engine).
    """

    name: str
    first_day: int
    last_day: int
    last_turn: int
    hq_cutoff_day: int
    start_airfields: int = 0
    follow_up_zone: dict = _field(default_factory=dict)
    data: object = None


def _placed_template(static: st.StaticData, scenario: str, sc):
    """The state of ``scenario`` before its first die roll, with the Follow-up
    zones of the divisions (rule 22: printed placement, attachments 15.21,
    disbanded battalions 13.1, control 2.1 / 22.23, forts, landed beaches 8.51,
    drop zone markers, printed victory counts 22.29).

    Nothing here depends on the seed or the game, so it is built once per
    static data and scenario and copied into each game.

    Returns
    -------
    (GameState, dict)
        The template state (never handed out: callers copy it) and
        ``formation -> beach zone`` of the Follow-up boxes (14.43, 16.82).
    """
    key = (id(static), scenario, id(sc))
    hit = _TEMPLATES.get(key)
    if hit is not None and hit[0] is static and hit[1] is sc:
        return hit[2], hit[3]
    t = static
    s = allocate(t.n_units, t.n_hexes, sizes={"n_regiments": t.n_regiments,
                                               "n_formations": t.n_formations})
    s.turn[0] = sc.first_day * 4
    # defaults: formations as printed, artillery salvos (12.53), generic pieces in the pool
    s.formation[:] = t.printed_formation
    s.salvos[t.utype == st.ARTILLERY] = 2
    s.box[:] = BOX_NOT_YET
    s.box[t.company_kind >= 0] = BOX_POOL
    s.box[t.battalion_of >= 0] = BOX_POOL
    s.box[t.utype == st.MILITIA] = BOX_POOL
    for side_name, ids in sc.eliminated.items():
        for uid in ids:
            if uid in t._index:
                s.box[t.unit(uid)] = 5  # BOX_ELIMINATED (counted in the printed totals)
    for p in sc.setup:
        u = t.unit(p.piece)
        s.box[u] = BOX_MAP
        s.hex[u] = t.grid.index(p.hex)
        s.level[u] = p.level - 1
        s.hitched[u] = False
    for p in sc.boxes:
        u = t.unit(p.piece)
        s.level[u] = p.level - 1
        if p.box == "disbandment":
            s.box[u] = BOX_DISBANDMENT
        else:
            s.box[u] = BOX_FOLLOW_UP
            s.box_slot[u] = ZONES.index(p.box.split(".", 1)[1])
        s.hitched[u] = True
    for uid, f in sc.attach.items():
        s.formation[t.unit(uid)] = FORMATION_CODES[str(f)]
    # 15.21: unassigned Axis units (not commandos) must belong to the 4th or the
    # 20th Division; one placed on the map without an attachment joins the
    # division of a unit it is stacked with (the 4th when none).
    for u in np.flatnonzero((s.box == BOX_MAP) & (t.side == AXIS) & (s.formation < 0)
                            & (t.utype != st.COMMANDO) & (t.utype != st.WARSHIP)):
        mates = [int(x) for x in np.flatnonzero((s.box == BOX_MAP) & (s.hex == s.hex[u]))
                 if s.formation[x] in INFANTRY_DIVISIONS]
        s.formation[u] = s.formation[mates[0]] if mates else INFANTRY_DIVISIONS[0]
    # disbanded battalions: their generic companies on the map belong to them (13.1)
    for uid in sc.disbanded:
        b = t.unit(uid)
        s.box[b] = BOX_DISBANDMENT
        k = t.breakdown_kind[b]
        comps = [int(c) for c in np.flatnonzero((t.company_kind == k) & (s.box == BOX_MAP)
                                                & (s.parent < 0))][: int(t.breakdown_n[b])]
        for c in comps:
            s.parent[c] = b
    # control (2.1, 22.23), forts (22.23), landed beaches (8.51)
    s.control[t.land] = ALLIED
    if sc.control_axis_columns:
        lo, hi = sc.control_axis_columns
        cols = np.array([int(h[:2]) for h in t.grid.hex_ids])
        s.control[t.land & (cols >= lo) & (cols <= hi)] = AXIS
    for h in sc.control_axis_hexes:
        s.control[t.grid.index(h)] = AXIS
    for h in sc.forts_destroyed:
        s.fort_destroyed[t.grid.index(h)] = True
    for h in sc.landed_hexes:
        s.landed_beach[t.grid.index(h)] = True
    for z in sc.landed_zones:
        for i in np.flatnonzero(t.beach):
            if _beach_zone(static, int(i)) == z:
                s.landed_beach[i] = True
    for m, h in sc.markers.items():
        f = 1 if m.endswith("ramcke") else 2
        s.dz_hex[0, f] = t.grid.index(h)
    s.allied_steps_lost[0] = sc.allied_steps_eliminated
    s.axis_steps_lost[0] = sc.axis_steps_eliminated
    follow_up_zone = {}
    for f in (4, 5):
        zone = None
        for p in list(sc.boxes):
            if p.box.startswith("followup") and t.printed_formation[t.unit(p.piece)] == f:
                zone = ZONES.index(p.box.split(".", 1)[1])
        for p in sc.boxes:
            if p.box.startswith("followup") and s.formation[t.unit(p.piece)] == f:
                zone = ZONES.index(p.box.split(".", 1)[1])
        if zone is not None:
            follow_up_zone[f] = zone
    for a in s:
        a.flags.writeable = False
    _TEMPLATES[key] = (static, sc, s, follow_up_zone)
    return s, follow_up_zone


#: ``(id(static), scenario, id(scenario data)) -> (static, data, state, zones)``
#: of :func:`_placed_template` (the objects are kept so that the ids stay theirs).
_TEMPLATES: dict = {}


def setup_scenario(static: st.StaticData, scenario: str, seed: int, game_index: int, policies,
                   options=(), log=False, check=False, data_dir=None) -> Game:
    """A :class:`Game` at the start of ``scenario`` (rule 22): pieces placed,
    control, destroyed forts, landed beaches, printed victory counts (22.29),
    Follow-up and Disbandment boxes, drop zone markers; then the invasion
    engine's ``setup`` hook (militia cup 16.31, Hercules preparation 3.0).

    The placement before the first die roll is copied from a per-process
    template (:func:`_placed_template`, keyed on the static data and the
    scenario); the steps that follow are played for each game.  Each game's
    state, event log and random streams are those of a set-up done from
    scratch.

    Raises
    ------
    OptionError
        Unknown scenario.
    """
    data = load_data(static.provenance.get("data_dir"))
    sc = data.scenario(scenario)
    t = static
    template, follow_up_zone = _placed_template(static, scenario, sc)
    s = copy_state(template)
    info = ScenarioInfo(name=scenario, first_day=sc.first_day, last_day=sc.last_day,
                        last_turn=sc.last_day * 4 + 3, hq_cutoff_day=sc.hq_return_last_day + 1,
                        follow_up_zone=dict(follow_up_zone), data=sc)
    game = Game(t, s, seed, game_index, policies, info, log=log, check=check, options=options)
    game.skip_invasion = "no_invasion" in options
    # militia cup (16.31): draw the scenario's number at random, discard the rest
    mil = [int(u) for u in np.flatnonzero(t.utype == st.MILITIA)]
    rng = game.streams["setup"]
    order = list(rng.permutation(len(mil)))
    for k, i in enumerate(order):
        s.box[mil[i]] = BOX_CUP if k < sc.militia_in_cup else 9  # BOX_REMOVED
    s.revealed[:] = False
    _finish_setup(game)
    return game


def _finish_setup_now(game: Game) -> None:
    """Control of the start position (2.1), the Axis airfields at the start,
    then the scenario's invasion set-up (3.0, 16.31, 19.3, 22.2, 22.3;
    :data:`malta_sim.iod.scenarios.SCENARIOS`); the formations with pieces on
    the map are marked ashore on the first turn (``first_ashore_turn``)."""
    from malta_sim.iod.rules.organisation import update_control
    from malta_sim.iod.scenarios import scenario
    t, s, info = game.static, game.state, game.scenario
    update_control(game)
    info.start_airfields = int((t.airfield & (s.control == AXIS)).sum())
    if not game.skip_invasion:
        scenario(info.name).invasion_setup(game)
    # formations with pieces (not leaders) on the map at the start: ashore on
    # the first turn (result column first_ashore_turn, :func:`invasion.note_ashore`)
    on = (s.box == BOX_MAP) & (t.utype != st.LEADER)
    forms = np.where(s.formation >= 0, s.formation, t.printed_formation)[on]
    first = s.first_ashore_turn[0]
    forms = forms[forms >= 0]
    first[forms[first[forms] < 0]] = s.turn[0]


def _finish_setup(game: Game) -> None:
    """The set-up steps after the pieces are placed (:func:`_finish_setup_now`)."""
    _finish_setup_now(game)


def _beach_zone(static, h: int) -> str | None:
    return static.beach_zone_of.get(h) if hasattr(static, "beach_zone_of") else None


def constructed_game(static: st.StaticData, placements: dict, policies, *, turn: int = 4,
                     seed: int = 0, game_index: int = 0, control: dict | None = None,
                     log: bool = True, check: bool = False, scenario: str = "intro") -> Game:
    """A game holding only the given pieces, for rule tests on constructed positions.

    Parameters
    ----------
    placements : dict
        ``hex id -> list of unit ids`` or ``(unit id, level)`` pairs (level 0 =
        full strength); artillery is placed prepared with two salvos.
    turn : int
        Absolute turn (default 4 = 30 June AM, a day turn).
    control : dict, optional
        ``hex id -> side``; by default every land hex is Allied-controlled and
        occupied hexes belong to their occupant.
    policies : (Policy, Policy)
        The Axis and the Allied bot.
    """
    data = load_data(static.provenance.get("data_dir"))
    sc = data.scenario(scenario)
    t = static
    s = allocate(t.n_units, t.n_hexes, sizes={"n_regiments": t.n_regiments,
                                               "n_formations": t.n_formations})
    info = ScenarioInfo(name=scenario, first_day=0, last_day=11, last_turn=47,
                        hq_cutoff_day=99, data=None)
    game = Game(t, s, seed, game_index, tuple(policies), info, log=log, check=check)
    game.skip_invasion = True
    s.turn[0] = turn
    s.formation[:] = t.printed_formation
    s.salvos[t.utype == st.ARTILLERY] = 2
    s.box[:] = BOX_NOT_YET
    s.box[(t.company_kind >= 0) | (t.battalion_of >= 0)] = BOX_POOL
    s.control[t.land] = ALLIED
    for hid, units in placements.items():
        h = t.grid.index(hid)
        for x in units:
            uid, lv = (x, 0) if isinstance(x, str) else x
            u = t.unit(uid)
            s.box[u] = BOX_MAP
            s.hex[u] = h
            s.level[u] = lv
    for hid, side in (control or {}).items():
        s.control[t.grid.index(hid)] = side
    from malta_sim.iod.rules.organisation import update_control
    update_control(game)
    return game
