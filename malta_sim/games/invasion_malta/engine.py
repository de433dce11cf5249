"""Invasion: Malta game loop over the printed Sequence of Play (rule 4.21).

One :class:`Game` plays one seeded game.  Per turn::

    Strategic Segment        weather (5.11, 5.13, 7.12) -> air readiness (CAS air
                             units to the cup, 4.14 step 4) -> air/naval
                             bombardment [reconstructed: none] -> AA reset
    Operations Segment       GT 1: first Operations Sequence, the named Axis
                             formations together (7.12) with their paradrops;
                             then draws from the cup (7.13-7.17), each played AM
                             runs a Ground Sequence (7.14 A):
                               naval transport -> airborne operations -> movement
                               -> combat declaration -> bombardment -> reaction
                               movement -> combat -> reset
    Reorganization Segment   supply status (6.1) -> recovery (3.84, 4.52, 6.32,
                             7.22) -> victory conditions [reconstructed]

Printed rules run as written (activation, pool and pass, Army units, sectors,
ZOC, stacking, movement, supply, disruption and recovery, weather).  Combat,
bombardment, air, paradrop, naval transport and victory are the
:class:`.components.ReconstructedComponents`; the bots that decide moves are
reconstructed too.  Results depend only on (seed, game, scenario, policies,
options, data).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...errors import OptionError
from ...rng import GameStreams
from . import activation as ac
from .components import RECONSTRUCTED, ReconstructedComponents
from .data import load_scenario
from .efficiency import recovery
from .movement import INF, MoveContext, reach
from .sequence import is_night, turn_part
from .supply import recovery_markers, supply_status_phase
from .units import ALLIED, AXIS, end_phase_stacking
from .weather import roll_weather
from .zoc import control_map, crossable, zoc_map

AXIS_POLICIES = ("advance", "hold-first")
ALLIED_POLICIES = ("counter", "static")
OPTIONS = ("weather-roll", "dispersed-group-b", "no-first-turn-penalty")


class Game:
    """State and phases of one game (see module docstring)."""

    def __init__(self, scenario, seed: int, game: int, axis_policy: str = "advance", allied_policy: str = "counter",
                 options: tuple = (), components=None, event_log: bool = False, params: dict | None = None):
        self.scenario = scenario
        self.map = scenario.map
        self.units = scenario.units
        self.streams = GameStreams(seed, game)
        self.axis_policy, self.allied_policy = axis_policy, allied_policy
        self.options = set(options)
        self.comp = components or ReconstructedComponents()
        self.params = dict(attack_odds=1.5, counter_odds=1.0, counter_range=6)
        self.params.update(params or {})
        self.log = [] if event_log else None
        self.turn = 0
        self.weather = "good"
        self.night = False
        self.cas = [0, 0]
        self.stats = dict(activations=0, passes=0, air_draws=0, attacks=0, weather_windy=0, weather_storm=0,
                          first_airfield_turn=-1, oos_marked=0, disruption_checks=0)
        m = self.map
        self.objectives = [m.idx(h) for h, nm in m.names.items()
                           if nm in scenario.setting("victory_objectives").split(";")]
        self.landed = set()
        self.per_turn = []
        self._setup()

    # -- helpers ------------------------------------------------------------------------------------
    def event(self, phase, **kw):
        if self.log is not None:
            self.log.append(dict(turn=self.turn, phase=phase, **{k: (str(v) if isinstance(v, (list, dict, tuple)) else v)
                                                                 for k, v in kw.items()}))

    def mark(self, u, h):
        """Hex ``h`` becomes friendly to unit ``u``'s side (rule 3.11)."""
        self.pos.hex_owner[h] = self.units.side[u]

    def objectives_held(self) -> int:
        ctrl = control_map(self.map, self.units, self.pos)
        return int(sum(1 for h in self.objectives if ctrl[h] == AXIS))

    def pending_axis(self) -> bool:
        return any(self.units.side[k] == AXIS and k not in self.landed and self.pos.steps[k] > 0
                   for k, (g, *_rest) in self.scenario.placement.items() if g in ("convoy", "drop", "airland", "card"))

    # -- set-up (rule 4.1) --------------------------------------------------------------------------
    def _setup(self):
        from .setup import dispersed_group_b, place_scenario
        from .units import Position

        s, u, m = self.scenario, self.units, self.map
        group_a = {k: h for k, (g, h, z, t) in s.placement.items() if g == "A"}
        group_b = [k for k, (g, *_r) in s.placement.items() if g == "B"]
        if "dispersed-group-b" in self.options:
            rng = self.streams["setup"]

            def place_b():
                out = {}
                for sec in range(3):
                    ks = [k for k in group_b if m.sector[s.placement[k][1]] == sec]
                    cand = [int(h) for h in np.flatnonzero(m.land & (m.sector == sec))]
                    out.update(dispersed_group_b(u, ks, cand, rng))
                return out
        else:
            def place_b():  # optional historical placement (rule 4.15)
                return {k: s.placement[k][1] for k in group_b}
        self.pos, self.setup_log = place_scenario(u, m.n, group_a, place_b, group_b, m.land)
        assert isinstance(self.pos, Position)
        self.pos.hex_owner[:] = -1
        self.pos.hex_owner[m.land] = ALLIED  # the island, and its forts, start friendly to the Allies (3.11)
        self.pos.steps[[k for k, (g, *_r) in s.placement.items() if g not in ("A", "B")]] = u.max_steps[
            [k for k, (g, *_r) in s.placement.items() if g not in ("A", "B")]]

    # -- Strategic Segment (rule 4.21 A) -------------------------------------------------------------
    def strategic_segment(self):
        always_good = self.scenario.setting("always_good_weather", int) == 1 and "weather-roll" not in self.options
        self.weather, roll = roll_weather(self.scenario.weather_table, self.streams["weather"], self.turn, always_good)
        if self.weather != "good":
            self.stats["weather_" + self.weather] += 1
        self.event("weather", weather=self.weather, roll=roll)
        self.cas = [0, 0]

    # -- Operations Segment (rules 4.21 B, 7) --------------------------------------------------------
    def cup(self):
        forms = ac.available_formations(self.scenario.formations, self.units, self.pos, self.map.sector)
        n_air = self.scenario.setting("axis_cas_air_units", int)
        return ac.build_cup(forms, [(AXIS, f"CAS{k}") for k in range(n_air)], self.night)

    def policies(self):
        ax = ac.HoldPolicy(frozenset({"L", "F"})) if self.axis_policy == "hold-first" else ac.ALWAYS_PLAY
        return (ax, ac.ALWAYS_PLAY)

    def operations_segment(self):
        if self.turn == 1:
            first = self.scenario.setting("first_activation_formations").split(";")
            self.event("first_operations_sequence", formations=first)
            self.ground_sequence(AXIS, first)  # rule 7.12: named formations activate together, no AM used
        cup = self.cup()
        rng = self.streams["activation"]
        counts = list(cup.counts)
        pools = (-1, -1)
        total = sum(counts)
        pol = self.policies()
        while total > 0:
            k = ac.draw_from_cup(counts, rng)
            total -= 1
            evs, pools = ac.resolve_draw(cup, k, tuple(counts), pools, pol)
            for e in evs:
                if e[0] == "act":
                    self.stats["activations"] += 1
                    self.ground_sequence(e[1], [e[2]])
                elif e[0] == "pass":
                    self.stats["passes"] += 1
                    self.event("pass", side=e[1], formation=e[2])
                elif e[0] == "air":
                    self.stats["air_draws"] += 1
                    self.event("air", side=e[1], result=self.comp.air_mission(self, e[1], self.streams["air"]))
            # rule 4.43: AMs of formations gone from play leave the cup (and pool) at once
            avail = {(f.side, f.code) for f in ac.available_formations(self.scenario.formations, self.units, self.pos,
                                                                     self.map.sector)}
            counts, pools, removed = ac.remove_unavailable(cup, counts, pools, avail)
            if removed:
                self.event("am_removed", formations=removed)
            for s_ in (AXIS, ALLIED):  # rule 7.17: a pooled AM is not held past the player's last one
                if pools[s_] >= 0 and cup.side_ams(counts, s_) == 0:
                    name = cup.types[pools[s_]].name
                    pools = tuple(-1 if i == s_ else p_ for i, p_ in enumerate(pools))
                    self.stats["activations"] += 1
                    self.ground_sequence(s_, [name])
            total = sum(counts)

    def active_units(self, side, codes):
        if side == AXIS:
            act = np.concatenate([ac.formation_units(self.units, self.pos, AXIS, c, self.map.sector) for c in codes])
            return [int(k) for k in act]
        return [int(k) for c in codes for k in ac.formation_units(self.units, self.pos, ALLIED, c, self.map.sector)]

    def ground_sequence(self, side, codes):
        """One Ground Sequence (rule 7.14 A) for the formations ``codes``."""
        u, pos = self.units, self.pos
        self.event("activate", side=side, formations=codes)
        active = self.active_units(side, codes)
        if side == AXIS:
            army = [int(k) for k in np.flatnonzero(u.army & (pos.steps > 0) & (pos.hex >= 0) & ~pos.activated)][:ac.MAX_ARMY_UNITS]
            if army:
                ac.activate_army_units(u, pos, army)  # rule 7.23: at most four
                active += army
        # 1. naval transport (reconstructed component)
        if side == AXIS:
            self.naval_phase(list(codes) + ["army"])
        # 2. airborne operations (reconstructed: GT 1 paradrops of the first sequence)
        if side == AXIS and self.turn == 1:
            self.airborne_phase(codes)
        active = [k for k in self.active_units(side, codes) if pos.hex[k] >= 0] + \
                 [k for k in active if u.army[k] and pos.hex[k] >= 0]
        # 3. movement (printed rule 8, moves chosen by the reconstructed bot)
        start_sector = {k: int(self.map.sector[pos.hex[k]]) for k in active if pos.hex[k] >= 0}
        self.movement_phase(side, active)
        if side == ALLIED:
            ac.sector_change(u, pos, active, start_sector, self.map.sector)  # rule 4.52
        end_phase_stacking(u, pos)  # rule 3.34
        # 4-7. declaration, bombardment, reaction, combat (reconstructed)
        self.combat_phase(side, active)
        end_phase_stacking(u, pos)
        # 8. reset: Fired artillery flips back if supplied (rule 6.15)
        pos.fired[~pos.oos] = False

    def naval_phase(self, codes):
        s, u, pos = self.scenario, self.units, self.pos
        by_zone: dict = {}
        for k, (g, h, z, t) in s.placement.items():
            if g != "convoy" or k in self.landed or pos.steps[k] <= 0 or t > self.turn:
                continue
            if (u.army[k] and "army" in codes) or (u.formation[k] in codes and not u.army[k]):
                by_zone.setdefault(z, []).append(k)
        for z, ks in by_zone.items():
            res = self.comp.naval_transport(self, ks, s.zones[z], self.streams["navy"])
            self.event("naval_transport", zone=z, units=len(ks), result=res.get("result"))
            if res.get("result") == "landed":
                self.landed.update(res["placed"])
                for k in res["placed"]:
                    self.mark(k, int(pos.hex[k]))

    def airborne_phase(self, codes):
        s, u = self.scenario, self.units
        ks = [k for k, (g, h, z, t) in s.placement.items()
              if g == "drop" and t <= self.turn and k not in self.landed and u.formation[k] in codes]
        if not ks:
            return
        res = self.comp.paradrop(self, ks, [s.placement[k][1] for k in ks], self.streams["drop"])
        if not (res and res[0].get("result") == "cancelled"):
            self.landed.update(ks)
        self.event("airborne_operations", units=len(ks), landed=sum(r.get("result") == "landed" for r in res))

    def ctx(self, side):
        pen = self.turn == 1 and side == ALLIED and self.scenario.setting("allied_gt1_mp_penalty", int) > 0 \
            and "no-first-turn-penalty" not in self.options
        return MoveContext(night=self.night, weather=self.weather, first_turn_penalty=pen)

    def movement_phase(self, side, active):
        """Movement Phase (rule 8): each active unit moves alone (bot: reconstructed)."""
        m, u, pos = self.map, self.units, self.pos
        dist = m.grid.distance_table
        ctrl = control_map(m, u, pos)
        if side == AXIS:
            targets = [h for h in self.objectives if ctrl[h] != AXIS] or self.objectives
        else:
            axis_hexes = sorted(set(int(h) for h in pos.hex[pos.on_map() & (u.side == AXIS)]))
            if self.allied_policy == "static" or not axis_hexes:
                return
            targets = axis_hexes
        tarr = np.asarray(targets)
        for k in active:
            if pos.hex[k] < 0 or pos.steps[k] <= 0:
                continue
            here = int(pos.hex[k])
            if side == ALLIED and (dist[here, tarr].min() > self.params["counter_range"] or here in self.objectives):
                continue  # Allied units hold objectives, and elsewhere hold unless the enemy is close
            if side == AXIS and any(h == here for h in self.objectives):
                continue  # hold a taken objective
            c = reach(m, u, pos, [k], self.ctx(side))
            ok = np.flatnonzero(c < INF)
            if len(ok) <= 1:
                continue
            d = dist[ok][:, tarr].min(axis=1).astype(np.int64)
            best = ok[np.lexsort((c[ok], d))][0]
            if best != here:
                pos.hex[k] = best
                self.mark(k, int(best))
        if side == AXIS:
            for h in self.objectives:
                if m.airfield[h] and self.stats["first_airfield_turn"] < 0 and (pos.at(h).size and (u.side[pos.at(h)] == AXIS).all()):
                    self.stats["first_airfield_turn"] = self.turn

    def combat_phase(self, side, active):
        """Combat (reconstructed): attack each adjacent enemy hex at the bot's odds,
        never across a hexside the attacker could not cross (sea, cliff, off-road
        for motorized units; rule 3.33 states it for motorized units)."""
        m, u, pos = self.map, self.units, self.pos
        enemy_hexes = sorted(set(int(h) for h in pos.hex[pos.on_map() & (u.side != side)]))
        need = self.params["attack_odds"] if side == AXIS else self.params["counter_odds"]
        used = set()
        for t in enemy_hexes:
            atk = [k for k in active if k not in used and pos.hex[k] >= 0 and pos.steps[k] > 0
                   and t in m.nbr[pos.hex[k]]
                   and crossable(m, u, pos, k, int(pos.hex[k]), list(m.nbr[pos.hex[k]]).index(t))  # cf. rule 3.33
                   and u.attack[k, 1 if pos.steps[k] >= 2 else 0] > 0 and not (u.range_[k] > 0)
                   and not (u.armored[k] and pos.oos[k])]
            if not atk:
                continue
            a = sum(u.attack[k, 1 if pos.steps[k] >= 2 else 0] for k in atk)
            dfn = sum(u.defense[k, 1 if pos.steps[k] >= 2 else 0] for k in pos.at(t))
            if a < need * max(1, dfn):
                continue
            arty = [k for k in active if u.range_[k] > 0 and pos.hex[k] >= 0
                    and m.grid.distance_table[pos.hex[k], t] <= u.range_[k]]
            if arty:
                self.comp.bombardment(self, arty, t, self.streams["bombardment"])
            shift = 1 if self.cas[side] > 0 else 0
            self.cas[side] -= shift
            used.update(atk)
            self.stats["attacks"] += 1
            res = self.comp.combat(self, atk, t, shift, self.streams["combat"])
            self.event("combat", side=side, target=m.hid(t), **{k: v for k, v in res.items() if k != "result"},
                       result=res.get("result"))

    # -- Reorganization Segment (rule 4.21 C) ---------------------------------------------------------
    def reorganization_segment(self):
        m, u, pos = self.map, self.units, self.pos
        r = supply_status_phase(m, u, pos, self.night)  # rules 6.12-6.13
        self.stats["oos_marked"] += len(r["marked"])
        zocs = {s: zoc_map(m, u, pos, s) for s in (0, 1)}
        rec = recovery(u, pos, lambda s: zocs[1 - s], self.streams["misc"])  # rule 3.84
        self.stats["disruption_checks"] += len(rec["checks"])
        recovery_markers(m, u, pos, control_map(m, u, pos) == AXIS)  # rule 6.32
        pos.activated[:] = False  # rules 4.52, 7.22
        self.event("reorganization", oos=len(r["marked"]), recovered=len(rec["auto"]) + sum(c[2] for c in rec["checks"]))

    def check_invariants(self) -> list:
        """Whole-game invariants after a phase (for tests): units only on land, never
        both sides in one hex (8.14), at most one armored unit per hex (3.33), at
        most 9 stacking points not over-stacked per hex (3.32, 3.34), steps within
        0..max (3.41), eliminated units off the map."""
        m, u, pos = self.map, self.units, self.pos
        bad = []
        on = pos.on_map()
        if (~m.land[pos.hex[on]]).any():
            bad.append("unit on a sea hex")
        for h in np.unique(pos.hex[on]):
            k = pos.at(int(h))
            if len(set(u.side[k])) > 1:
                bad.append(f"both sides in {m.hid(h)}")
            if u.armored[k].sum() > 1:
                bad.append(f"two armored units in {m.hid(h)}")
            if u.stacking[k[~pos.overstacked[k]]].sum() > 9:
                bad.append(f"over 9 stacking points in {m.hid(h)}")
        if ((pos.steps < 0) | (pos.steps > u.max_steps)).any():
            bad.append("steps out of range")
        if (pos.hex[pos.steps == 0] >= 0).any():
            bad.append("eliminated unit on the map")
        return bad

    # -- the game ---------------------------------------------------------------------------------------
    def play(self) -> dict:
        n_turns = self.scenario.setting("turns", int)
        self.finished = False
        winner, reason = None, None
        for t in range(1, n_turns + 1):
            self.turn = t
            self.night = is_night(t)
            self.strategic_segment()
            self.operations_segment()
            self.reorganization_segment()
            winner, reason = self.comp.victory(self, final=(t == n_turns))
            self.per_turn.append(dict(turn=t, part=turn_part(t), weather=self.weather,
                                      objectives_held=self.objectives_held(), **self.steps_lost()))
            if winner is not None:
                break
        return dict(winner=winner, end_reason=reason, end_turn=self.turn, objectives_held=self.objectives_held(),
                    **self.steps_lost(), **self.stats)

    def steps_lost(self) -> dict:
        u, pos = self.units, self.pos
        lost = u.max_steps.astype(int) - pos.steps.astype(int)
        return dict(axis_steps_lost=int(lost[u.side == AXIS].sum()), allied_steps_lost=int(lost[u.side == ALLIED].sum()))


def play_games(scenario: str, seed: int, games, *, axis_policy: str = "advance", allied_policy: str = "counter",
               options: tuple = (), data_dir: str | None = None, per_turn: bool = False, event_log: bool = False,
               policy_params: dict | None = None):
    """Play a block of Invasion: Malta games (registry contract, see :mod:`malta_sim.games.registry`).

    Parameters
    ----------
    scenario : str
        Registered name (``im-c3``).
    seed : int
    games : ndarray of int64
        Game indices; row ``g`` depends only on ``(seed, g, inputs)``.
    axis_policy, allied_policy : str
        One of :data:`AXIS_POLICIES` / :data:`ALLIED_POLICIES`.
    options : tuple of str
        Subset of :data:`OPTIONS`.
    policy_params : dict, optional
        Per side: ``{"axis": {"attack_odds": 1.5}, "allied": {"counter_odds": 1.0,
        "counter_range": 4}}`` (minimum attack:defense ratios; hexes).

    Returns
    -------
    GameBatchResult
        ``games`` has one row per game: ``game, winner ('axis'|'allied'),
        end_reason, end_turn, objectives_held, axis_steps_lost,
        allied_steps_lost, activations, passes, air_draws, attacks,
        first_airfield_turn, ..., reconstructed_components``.

    Raises
    ------
    OptionError
        Unknown policy, option or policy parameter.
    """
    from ..registry import GameBatchResult

    if axis_policy not in AXIS_POLICIES:
        raise OptionError(f"--axis-policy {axis_policy!r} unknown for {scenario}; choose one of: {', '.join(AXIS_POLICIES)}")
    if allied_policy not in ALLIED_POLICIES:
        raise OptionError(f"--allied-policy {allied_policy!r} unknown for {scenario}; choose one of: {', '.join(ALLIED_POLICIES)}")
    bad = [o for o in options if o not in OPTIONS]
    if bad:
        raise OptionError(f"--option {bad[0]!r} unknown for {scenario}; choose from: {', '.join(OPTIONS)}")
    params = {}
    valid = {"axis": ("attack_odds",), "allied": ("counter_odds", "counter_range")}
    for side, kv in (policy_params or {}).items():
        if side not in valid or not isinstance(kv, dict):
            raise OptionError(f"policy parameters are given per side as {{'axis': {{...}}, 'allied': {{...}}}}; got key {side!r}")
        for k, v in kv.items():
            if k not in valid[side]:
                raise OptionError(f"policy parameter {side}.{k} unknown; valid: axis.attack_odds, allied.counter_odds, allied.counter_range")
            try:
                params[k] = float(v)
            except (TypeError, ValueError):
                raise OptionError(f"policy parameter {side}.{k} must be a number, got {v!r}") from None
            if params[k] < 0:
                raise OptionError(f"policy parameter {side}.{k} must be >= 0")
    sc = load_scenario("c3", data_dir)
    rows, turns, events = [], [], []
    for g in np.asarray(games, dtype=np.int64):
        game = Game(sc, seed, int(g), axis_policy, allied_policy, tuple(options), event_log=event_log, params=params)
        r = game.play()
        rows.append(dict(game=int(g), **r, reconstructed_components=";".join(RECONSTRUCTED)))
        if per_turn:
            turns += [dict(game=int(g), **t) for t in game.per_turn]
        if event_log:
            events += [dict(game=int(g), **e) for e in game.log]
    df = pd.DataFrame(rows)
    return GameBatchResult(
        games=df,
        per_turn=pd.DataFrame(turns) if per_turn else None,
        events=pd.DataFrame(events) if event_log else None,
        provenance=dict(reconstructed_components=list(RECONSTRUCTED), components=ReconstructedComponents.name,
                        printed_rules="invasion_malta 1.3-8.4"),
    )
