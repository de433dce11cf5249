"""Parameterised Allied bot for Island of Death (presets ``allied:static``
and ``allied:counterattack``).

Builds on :class:`malta_sim.bots.simple.StaticPolicy` (garrisons the
objectives it holds) and the invasion defaults of
:class:`malta_sim.bots.invasion.InvasionDecisions` (Variable Allied
Placement 22.39, coastal guns, AA fire, water's edge attacks), adding:

* counterattacks chosen by the exact CRT forecast of
  :mod:`malta_sim.bots.axis` (``min_odds``, ``min_gain``, ``risk_weight``);
* a mobile reserve (``reserve_fraction`` of the mobile combat units) that
  closes on weak (``weak_stack``) Axis stacks near the objectives;
* standing ground in key hexes (9.7), defensive artillery support (9.2 b) on
  the most threatened hexes and strongpoint dismantling (16.25) as switches;
  security companies offered for absorption (17.42) are always absorbed (a
  step back that is no loss, 20.0);
* an attack value beyond the exchange of steps: ``w_retake`` for driving the
  Axis out of an airfield or victory city it holds and ``w_hq`` for each Axis
  HQ in the hex, each times the exact chance that the attack empties the hex
  (:func:`vacate_table`, from the engine's CRT cells);
* ``reinforce``: reserve units with no weak stack to close on move onto the
  most threatened held airfield or victory city, so the reserve is committed
  all game;
* ``beaches``: the beach hexes of the zones whose Follow-up box still holds
  Axis units (rule 20.0: +1 to every surrender roll per such hex the Allies
  control; 18.32: no landing on an Allied-occupied one) are retaken by
  moving onto them, held by a lone unit that stays, and valued ``w_retake``
  in attacks like an airfield;
* ``shore_up``: a held airfield or victory city with Axis units next to it
  and less Allied defense strength than ``shore_up`` gets a reserve unit
  before the reserve closes on weak stacks (9.1, 20.0).

Knobs: :data:`malta_sim.bots.params.ALLIED_PARAMS`.
"""

from __future__ import annotations

from math import isfinite

import numba as nb
import numpy as np

from malta_sim.iod import invasion
from malta_sim.iod import static as st
from malta_sim.iod.state import AXIS, BOX_FOLLOW_UP
from malta_sim.kernels.crt import crt_cell, split_hits
from malta_sim.bots import params as P
from malta_sim.bots.axis import _ParamBot
from malta_sim.bots.base import CombatPlan, Move
from malta_sim.bots.forecast import forecast_tables
from malta_sim.bots.simple import StaticPolicy, stand_leaves_a_step

#: 2d6 probabilities of the totals 2..12.
_P2D6 = np.array([6 - abs(r - 7) for r in range(2, 13)], dtype=np.float64) / 36.0

_VACATE: dict = {}

#: Piece types that never hold a beach hex for ``beaches`` (no defense of
#: their own there, or bound to their post).
_NOT_HOLDERS = (st.ARTILLERY, st.HQ, st.AA, st.STRONGPOINT, st.LEADER, st.WARSHIP,
                st.COASTAL_GUN)


def vacate_table(charts, d_max: int) -> np.ndarray:
    """Exact chance that an attack empties the defender's hex (rules 9.4,
    9.42, 9.43, 9.94), from the engine's CRT cells
    (:func:`malta_sim.kernels.crt.crt_cell`, :func:`~malta_sim.kernels.crt.split_hits`).

    Parameters
    ----------
    charts : IodCharts
        Combat charts (``crt``, ``line_cols``).
    d_max : int
        Largest defending step count looked up (larger counts read the cap).

    Returns
    -------
    float64[n_lines, n_cols, 2, d_max + 1, 2]
        ``[line, col, fort, def_steps, 0]``: probability over 2d6 that the
        defenders lose every step or owe a retreat (standing ground, 9.7, not
        counted); ``[..., 1]``: that they lose every step (the hex's pieces
        are eliminated, 9.42); NaN for columns not on the line.
    """
    key = (id(charts), int(d_max))
    hit = _VACATE.get(key)
    if hit is not None and hit[0] is charts:
        return hit[1]
    crt = charts.crt
    n_lines, n_cols = crt.shape[0], crt.shape[1]
    out = np.full((n_lines, n_cols, 2, d_max + 1, 2), np.nan)
    for line in range(n_lines):
        lo, hi = int(charts.line_cols[line, 0]), int(charts.line_cols[line, 1])
        for col in range(lo, hi + 1):
            for fort in (0, 1):
                dh = np.array([crt_cell(crt, line, col, r, bool(fort))[2] for r in range(2, 13)],
                              np.int64)
                steps = np.array([split_hits(x, True)[0] for x in dh], np.int64)
                for ds in range(d_max + 1):
                    wiped = steps >= ds
                    out[line, col, fort, ds, 0] = float(_P2D6 @ (wiped | (dh - steps > 0)))
                    out[line, col, fort, ds, 1] = float(_P2D6 @ wiped)
    out.flags.writeable = False
    if len(_VACATE) > 8:
        _VACATE.clear()
    _VACATE[key] = (charts, out)
    return out


#: modules imported on first use, by name
_MODULES: dict = {}


def _move_choice():
    """The module :mod:`malta_sim.bots.move_choice` (imported on first use:
    it imports the engine's movement rules, which load the policies)."""
    mc = _MODULES.get("move_choice")
    if mc is None:
        from malta_sim.bots import move_choice as mc
        _MODULES["move_choice"] = mc
    return mc


@st.per_static
def _key_mask(t) -> np.ndarray:
    """bool[n_hexes]: airfields and victory cities (rule 20.0 objectives the
    surrender roll counts), once per :class:`StaticData` (read only)."""
    key = t.airfield.copy()
    key[t.victory_cities] = True
    key.flags.writeable = False
    return key


def _holder_type_mask(game, side: int) -> np.ndarray:
    """bool[n_units]: pieces of ``side`` whose type may hold a hex for
    ``beaches`` (ground units not of the :data:`_NOT_HOLDERS` types), kept
    per game (read only)."""
    m = game.cache.get(("_allied_holder_types", side))
    if m is None:
        t = game.static
        m = game.ground_mask & ~np.isin(t.utype, _NOT_HOLDERS) & game.tables.side_mask[side]
        m.flags.writeable = False
        game.cache[("_allied_holder_types", side)] = m
    return m


def _movement():
    """The engine's movement rules module (:mod:`malta_sim.iod.rules.movement`),
    imported on first use."""
    mv = _MODULES.get("movement")
    if mv is None:
        from malta_sim.iod.rules import movement as mv
        _MODULES["movement"] = mv
    return mv


@st.per_static
def _key_index(t) -> np.ndarray:
    """int64[n_hexes]: each airfield and victory city (:func:`_key_mask`)
    numbered 0, 1, ... in hex order, -1 for the other hexes; once per
    :class:`StaticData` (read only).  The columns of the Allied bot's
    shore-up record (:meth:`AlliedBot._tried_tables`)."""
    key = _key_mask(t)
    out = np.full(len(key), -1, np.int64)
    out[key] = np.arange(int(key.sum()))
    out.flags.writeable = False
    return out


def _key_count(t) -> int:
    """The number of airfields and victory cities (:func:`_key_index`)."""
    return int(_key_mask(t).sum())


@st.per_static
def _key_land_hexes(t) -> np.ndarray:
    """int64[k]: the land hexes of :func:`_key_mask`, ascending, once per
    :class:`StaticData` (read only)."""
    out = np.flatnonzero(_key_mask(t) & t.land)
    out.flags.writeable = False
    return out


@st.per_static
def _objective_hexes(t) -> np.ndarray:
    """int64[k]: land airfields, towns and victory cities (rule 20.0), the
    objectives the reserve guards, ascending, once per :class:`StaticData`
    (read only)."""
    obj = (t.airfield | t.town).copy()
    obj[t.victory_cities] = True
    out = np.flatnonzero(obj & t.land)
    out.flags.writeable = False
    return out


@st.per_static
def _axis_hqs(t) -> np.ndarray:
    """int64[k]: the Axis HQ pieces (rule 8.5), once per :class:`StaticData`
    (read only)."""
    out = np.flatnonzero((t.utype == st.HQ) & (t.side == AXIS))
    out.flags.writeable = False
    return out


@st.per_static
def _near_table(t) -> np.ndarray:
    """int64[n_hexes, w]: per hex the hexes at most one hex from it
    (:func:`malta_sim.bots.move_choice.near_table` of the distance table),
    once per :class:`StaticData` (read only)."""
    from malta_sim.bots.move_choice import near_table

    return near_table(t.grid.distance_table)


@nb.njit(cache=True)
def live_beaches_kernel(units, box, box_slot, beach_flat, beach_flat_zone, follow_up):
    """The beach hexes of the zones whose Follow-up box holds one of
    ``units`` (rules 18.32, 20.0; see :meth:`AlliedBot.live_beaches`).

    Parameters
    ----------
    units : int64[k]
        The Axis pieces other than leaders.
    box, box_slot : ndarray[n_units]
        The game state's boxes and box slots (a Follow-up box's slot is its
        beach zone).
    beach_flat, beach_flat_zone : int64[b]
        Every beach hex, zone by zone, and its zone.
    follow_up : int
        The Follow-up box's code.

    Returns
    -------
    int64[j]
        The live beach hexes, in ``beach_flat``'s order (a zone without
        beaches has none).
    """
    n_zones = 0
    for i in range(beach_flat_zone.shape[0]):
        n_zones = max(n_zones, beach_flat_zone[i] + 1)
    live = np.zeros(n_zones, np.bool_)
    for i in range(units.shape[0]):
        u = units[i]
        if box[u] == follow_up and 0 <= box_slot[u] < n_zones:
            live[box_slot[u]] = True
    out = np.empty(beach_flat.shape[0], np.int64)
    k = 0
    for i in range(beach_flat.shape[0]):
        if live[beach_flat_zone[i]]:
            out[k] = beach_flat[i]
            k += 1
    return out[:k]


@nb.njit(cache=True)
def holders_kernel(units, holder_type, box, hexes, defense, level, n_hexes):
    """int64[n_hexes + 1]: per hex, the pieces of ``units`` (int64[k]) on the
    map (``box`` 0) whose type may hold a hex (``holder_type``,
    bool[n_units]) and whose defense strength at their level is positive
    (``defense`` [n_units, levels], ``level``); the last slot stays 0."""
    out = np.zeros(n_hexes + 1, np.int64)
    for i in range(units.shape[0]):
        u = units[i]
        if holder_type[u] and box[u] == 0 and defense[u, level[u]] > 0 and hexes[u] >= 0:
            out[hexes[u]] += 1
    return out


@nb.njit(cache=True)
def axis_view_kernel(lo, hi, box, hexes, level, ground, defense, dist, obj_hexes, key_hexes, ring,
                     weak_max, radius):
    """The Axis side of the reserve's choice (rules 6.1-6.6; see
    :meth:`AlliedBot._axis_view`) in one pass.

    Parameters
    ----------
    lo, hi : int
        The Axis pieces' run of unit indices.
    box, hexes, level : ndarray[n_units]
        The game state's per-piece arrays.
    ground : bool[n_units]
        Ground combat units.
    defense : int[n_units, levels]
        Printed defense strength per level.
    dist : int[n_hexes, n_hexes]
        Hex distances.
    obj_hexes : int64[j]
        The objectives the reserve guards (:func:`_objective_hexes`).
    key_hexes : int64[q]
        The land airfields and victory cities (:func:`_key_land_hexes`).
    ring : int64[n_hexes, w]
        Per hex ``h`` the hexes ``x`` with ``dist[h, x] <= 1``, padded with
        -1 (:func:`malta_sim.bots.move_choice.near_table`).
    weak_max, radius : float
        ``weak_stack`` (most total defense of a weak stack) and
        ``reserve_radius`` (hexes from an objective).

    Returns
    -------
    ah : int64[m]
        Hexes of the Axis ground units on the map, in unit order.
    weak : int64[k]
        Hexes of their stacks with total defense at most ``weak_max``,
        ascending.
    d_weak : int64[n_hexes]
        Each hex's distance to the nearest weak stack within ``radius`` of
        an objective (meaningless when there is none).
    n_near : int
        How many weak stacks lie within ``radius`` of an objective.
    threat : int64[n_hexes]
        Per hex of ``key_hexes`` the Axis ground units within ``radius``
        (each unit counted, as ``(dist[h, ah] <= radius).sum()``); 0
        elsewhere.
    engaged : bool[n_hexes]
        Hexes at most one hex from an Axis ground unit (``dist[h, ah].min()
        <= 1``, read off ``ring``).
    """
    n = dist.shape[0]
    tot = np.zeros(n, np.int64)
    there = np.zeros(n, np.bool_)
    ah = np.empty(hi - lo, np.int64)
    m = 0
    for u in range(lo, hi):
        if box[u] == 0 and ground[u]:              # BOX_MAP
            h = np.int64(hexes[u])
            ah[m] = h
            m += 1
            tot[h] += np.int64(defense[u, level[u]])
            there[h] = True
    weak = np.empty(n, np.int64)
    near = np.empty(n, np.int64)
    k = 0
    n_near = 0
    for h in range(n):
        if there[h] and tot[h] <= weak_max:
            weak[k] = h
            k += 1
            if obj_hexes.shape[0]:
                d = np.int64(dist[h, obj_hexes[0]])
                for x in obj_hexes[1:]:
                    d = min(d, np.int64(dist[h, x]))
                if d <= radius:
                    near[n_near] = h
                    n_near += 1
    d_weak = np.zeros(n, np.int64)
    if n_near:
        for h in range(n):
            d = np.int64(dist[h, near[0]])
            for j in range(1, n_near):
                d = min(d, np.int64(dist[h, near[j]]))
            d_weak[h] = d
    threat = np.zeros(n, np.int64)
    for h in key_hexes:
        c = 0
        for j in range(m):
            if dist[h, ah[j]] <= radius:
                c += 1
        threat[h] = c
    engaged = np.zeros(n, np.bool_)
    for h in range(n):
        for x in ring[h]:
            if x < 0:
                break
            if there[x]:
                engaged[h] = True
                break
    return ah[:m], weak[:k], d_weak, n_near, threat, engaged


@nb.njit(cache=True)
def bonus_kernel(hs, key, live, control, hq_units, hexes, w_retake, w_hq, axis):
    """The values of :meth:`AlliedBot._bonus` in one pass (rules 8.5, 20.0).

    Parameters
    ----------
    hs : int64[k]
        The target hexes.
    key : bool[n_hexes]
        Airfields and victory cities (:func:`_key_mask`).
    live : int64[j]
        Live beach hexes that count as ``key`` too (empty without
        ``beaches``).
    control : ndarray[n_hexes]
        Hex control (2.1); ``axis`` the Axis side's code.
    hq_units : int64[q]
        The Axis HQ pieces (:func:`_axis_hqs`); ``hexes`` the pieces' hexes
        (-1 off the map).
    w_retake, w_hq : float
        The knobs.

    Returns
    -------
    retake, hq : float64[k]
        ``w_retake`` times 1.0 for an Axis-held ``key`` or live beach hex,
        else times 0.0; ``w_hq`` times the number of Axis HQs in the hex
        when ``w_hq`` is not 0 and some Axis HQ is on the map, else 0.0.
    """
    k = hs.shape[0]
    retake = np.empty(k, np.float64)
    hq = np.zeros(k, np.float64)
    on_map = 0
    if w_hq != 0:
        for j in range(hq_units.shape[0]):
            if hexes[hq_units[j]] >= 0:
                on_map += 1
    for i in range(k):
        h = hs[i]
        flag = key[h]
        if not flag:
            for x in live:
                if x == h:
                    flag = True
                    break
        retake[i] = w_retake * (1.0 if flag and control[h] == axis else 0.0)
        if on_map:
            c = 0
            for j in range(hq_units.shape[0]):
                if hexes[hq_units[j]] == h:
                    c += 1
            hq[i] = w_hq * np.float64(c)
    return retake, hq


#: the live beach hexes without ``beaches`` (none; read only by :meth:`AlliedBot._bonus` and :meth:`AlliedBot.next_move`)
_NO_LIVE = np.zeros(0, np.int64)


class AlliedBot(_ParamBot, StaticPolicy):
    """Parameterised Allied bot.

    Parameters
    ----------
    side : int
        Must be 1 (Allied).
    params : dict, optional
        Overrides of the preset's vector (names of ``ALLIED_PARAMS``).

    Raises
    ------
    OptionError
        Unknown parameter name or value out of range.
    """

    name = "static"
    side_index = 1
    preset_base: dict = {}
    _thr_idx = (P.AL_MIN_ODDS, P.AL_MIN_GAIN, P.AL_RISK, P.AL_RETREAT)

    def __init__(self, side: int, params: dict | None = None):
        super().__init__(side, {})
        self._init_vec(side, params)
        self._reserve: set | None = None
        self._reserve_arr = None      # (reserve set, (has_res, mask)): see _reserve_mask
        self._tried = None            # see _tried_tables
        self._garrison_static = None
        self._axis_memo = None        # (game, key, view): see _axis_view
        self._walk = _move_choice().AlliedWalk()    # decisions made ahead by the move kernel

    # ------------------------------------------------------------ reserve
    def reserve_units(self, game) -> set:
        """The mobile reserve: ``reserve_fraction`` of the Allied mobile
        combat units on the map (motorised/mechanised first, then the
        strongest foot battalions), fixed the first time it is asked for."""
        if self._reserve is None:
            t, s = game.static, game.state
            frac = float(self.vec[P.AL_RESERVE])
            pool = [int(u) for u in game.on_map(self.side) if game.is_ground(int(u))
                    and t.utype[u] not in (st.ARTILLERY, st.HQ, st.AA, st.STRONGPOINT, st.MILITIA,
                                           st.SECURITY)
                    and int(t.ma[u, s.level[u]]) > 0]
            pool.sort(key=lambda u: (-int(t.move_class[u]), -int(t.attack[u, s.level[u]]), u))
            self._reserve = set(pool[:int(round(frac * len(pool)))])
        return self._reserve

    def _weak_axis_hexes(self, game) -> np.ndarray:
        """int64[k]: hexes of Axis stacks (ground combat units on the map)
        with total defense at most ``weak_stack``, ascending (from
        :meth:`_axis_view`)."""
        return self._axis_view(game)["weak"]

    def _axis_view(self, game) -> dict:
        """What the reserve decisions read of the Axis ground units on the
        map (rules 6.1-6.6), computed from their positions and steps in one
        compiled call (:func:`axis_view_kernel`):

        ``ah``
            int64[m]: hexes of the Axis ground units, in unit order.
        ``weak``
            int64[k]: :meth:`_weak_axis_hexes`, ascending.
        ``d_weak``
            int64[n_hexes] or None: each hex's distance to the nearest weak
            stack within ``reserve_radius`` of an objective (airfield, town,
            victory city); None when there is no such stack.
        ``threat``
            int64[n_hexes]: per land airfield or victory city, the Axis
            ground units within ``reserve_radius``; 0 elsewhere.
        ``engaged``
            bool[n_hexes]: hexes at most one hex from an Axis ground unit.

        A cache only: the answer is kept with the game, the bot's
        ``weak_stack`` and ``reserve_radius`` and the bytes of the Axis
        pieces' boxes, hexes and levels it was computed from, and computed
        again when any of these differs (Axis pieces stand still during the
        Allied movement phase but an Allied move may overrun some, 6.52; a
        new game or another phase finds other positions)."""
        s = game.state
        lo, hi = game.tables.side_run[1 - self.side]
        weak_max = float(self.vec[P.AL_WEAK])
        radius = float(self.vec[P.AL_RESERVE_RADIUS])
        key = (s.box[lo:hi].tobytes(), s.hex[lo:hi].tobytes(), s.level[lo:hi].tobytes(),
               weak_max, radius)
        memo = self._axis_memo
        if memo is not None and memo[0] is game and memo[1] == key:
            return memo[2]
        t = game.static
        dist = t.grid.distance_table
        ah, weak, d_weak, n_near, threat, engaged = axis_view_kernel(
            lo, hi, s.box, s.hex, s.level, game.ground_mask, t.defense, dist, _objective_hexes(t),
            _key_land_hexes(t), _near_table(t), weak_max, radius)
        view = {"ah": ah, "weak": weak, "d_weak": d_weak if n_near else None, "threat": threat,
                "engaged": engaged}
        self._axis_memo = (game, key, view)
        return view

    # ------------------------------------------------------------ movement (6)
    def next_move(self, game, mode, candidates):
        """Rules 6.1-6.6, 2.1, 9.1, 17.7, 18.32, 20.0: with ``beaches``, a
        lone holder of a live beach hex stays and a unit moves onto an empty
        live beach hex the Axis controls (:meth:`live_beaches`); with
        ``retake_empty`` a unit not on a held objective moves onto an empty
        airfield, victory city or town the Axis controls; then the
        reserve units shore up threatened airfields and victory cities
        (``shore_up``), close on weak Axis stacks within ``reserve_radius``
        of an objective (ending next to them when they can) or, with
        ``reinforce``, head for the most threatened held objective; the
        others garrison the objectives (:meth:`garrison_values`).  Each unit
        is tried once a phase for each kind of move.  The whole choice is
        one compiled call (:func:`malta_sim.bots.move_choice.allied_move_kernel`);
        ``tests/oracles/bots.py`` holds it as plain loops."""
        self._phase_reset(game, mode)
        mc = _move_choice()
        walk = self._walk
        if walk.rows is not None:             # a decision made ahead, if the game is where it assumed
            hit = walk.take(game, mc.allied_walk_key(game, mode), sorted(candidates),
                            _movement().move_area(game, self.side, mode), self._tried_tables(game))
            if hit is not None:
                return Move(hit[0], hit[1]) if hit[0] >= 0 else None
        t = game.static
        v = self.vec
        beaches = bool(v[P.AL_BEACHES])
        live = self.live_beaches(game) if beaches else _NO_LIVE
        cand_list = sorted(candidates)
        cands = np.array(cand_list, np.int64)
        tried, tried_goal = self._tried_tables(game)
        args = (game, mode, cands, self.side, beaches, float(v[P.AL_SHORE_UP]), bool(v[P.AL_REINFORCE]),
                live, _holder_type_mask(game, self.side))
        tail = (tried, tried_goal, _key_index(t), _key_mask(t), _key_land_hexes(t), self._garrison_weights(t))
        retake = bool(v[P.AL_RETAKE_EMPTY])
        if self._reserve is None:
            status, u, dest = mc.allied_step(*args, None, *tail, None, retake=retake)
            if status != mc.NEED_RESERVE:
                return Move(int(u), int(dest)) if u >= 0 else None
        reserve = self._reserve_mask(game)
        view = self._axis_view(game) if reserve[0] else None
        _status, u, dest = mc.allied_step(*args, reserve, *tail, view, walk, cand_list, retake=retake)
        return Move(int(u), int(dest)) if u >= 0 else None

    def _phase_reset(self, game, mode=""):
        """A new phase (or movement mode): every unit may be tried again
        (the sets of :class:`_ParamBot` and the tables of :meth:`_tried_tables`)."""
        if (game.turn, game.phase_name, mode) != self._phase_key:
            super()._phase_reset(game, mode)
            self._tried = None

    def _tried_tables(self, game) -> tuple:
        """The units tried this phase (see
        :func:`malta_sim.bots.move_choice.allied_move_kernel`): ``(tried
        bool[N_TRIED, n_units], tried_goal bool[n_units, K])``, K the airfields and
        victory cities; zeroed at the start of each phase."""
        if self._tried is None:
            n = len(game.static.utype)
            self._tried = (np.zeros((_move_choice().N_TRIED, n), np.bool_), np.zeros((n, _key_count(game.static)), np.bool_))
        return self._tried

    def _reserve_mask(self, game) -> tuple:
        """``(has_res, res_mask bool[n_units])``: whether the mobile reserve
        (:meth:`reserve_units`, fixed now if it is not yet) holds a unit, and
        its units, kept with the reserve."""
        res = self.reserve_units(game)
        kept = self._reserve_arr
        if kept is None or kept[0] is not res:
            mask = np.zeros(len(game.static.utype), np.bool_)
            mask[list(res)] = True
            kept = self._reserve_arr = (res, (bool(res), mask))
        return kept[1]

    # ------------------------------------------------------------ beaches (18, 20.0)
    def live_beaches(self, game) -> np.ndarray:
        """int64[k]: the beach hexes of the zones whose Follow-up box holds
        Axis units other than leaders (rule 20.0: each such hex the Allies
        control adds +1 to every surrender roll; 18.32: no unit may be placed
        in a landing box connected with an Allied-occupied beach hex).  Empty
        when the game is played without the invasion."""
        if game.skip_invasion:
            return np.zeros(0, np.int64)
        s = game.state
        inv = invasion.inv_static(game)
        return live_beaches_kernel(inv.axis_units_not_leaders, s.box, s.box_slot, inv.beach_flat,
                                   inv.beach_flat_zone, BOX_FOLLOW_UP)

    def _holders(self, game) -> np.ndarray:
        """int64[n_hexes + 1]: Allied units able to hold a hex (ground units
        with a defense strength, not artillery, HQs, AA, strongpoints or
        leaders) on the map, per hex; the last slot is 0 (what a hex index
        of -1 reads).  One compiled pass (:func:`holders_kernel`)."""
        t, s = game.static, game.state
        return holders_kernel(_movement()._side_units(game, self.side), _holder_type_mask(game, self.side),
                              s.box, s.hex, t.defense, s.level, t.n_hexes)

    def garrison_values(self, game) -> np.ndarray:
        """float64[n_hexes]: hexes the Allies hold and want garrisoned --
        victory cities 4, airfields 3, undestroyed forts 2, towns 1 (rule 20.0
        objectives; forts also supply, 8.52)."""
        t, s = game.static, game.state
        w = self._garrison_weights(t) + 2.0 * (t.fort & ~s.fort_destroyed)   # whole numbers: exact in any order
        return np.where((s.control == self.side) & t.land, w, 0.0)

    def _garrison_weights(self, t) -> np.ndarray:
        """float64[n_hexes]: the part of :meth:`garrison_values` that never
        changes (victory cities 4, airfields 3, towns 1), once per game data."""
        cached = self._garrison_static
        if cached is None or cached[0] is not t:
            w = 3.0 * t.airfield + 1.0 * t.town
            w = w.astype(np.float64)
            w[t.victory_cities] += 4.0
            cached = self._garrison_static = (t, w)
        return cached[1]

    # ------------------------------------------------------------ combat (9)
    def _valued(self) -> bool:
        return bool(self.vec[P.AL_W_RETAKE] or self.vec[P.AL_W_HQ])

    def _bonus(self, game, tgts) -> tuple:
        """The values beyond the step exchange of attacking each hex of
        ``tgts``: ``(retake, hq)``, float64[len(tgts)] each -- ``w_retake``
        for an Axis-held airfield or victory city (rule 20.0: -1 to the
        surrender roll each) and ``w_hq`` per Axis HQ in the hex (20.0: +2
        each eliminated; 8.5)."""
        t, s = game.static, game.state
        v = self.vec
        # 20.0: +1 per beach hex
        live = self.live_beaches(game) if v[P.AL_BEACHES] else _NO_LIVE
        return bonus_kernel(np.asarray(tgts, np.int64), _key_mask(t), live, s.control, _axis_hqs(t),
                            s.hex, float(v[P.AL_W_RETAKE]), float(v[P.AL_W_HQ]), AXIS)

    def combat_plan(self, game, options):
        """Rule 9.2 a: support for the counterattacks the bot expects to make
        (12.2, 16.74); no bombardment, no fire hurricane.  With ``w_retake`` /
        ``w_hq`` the support goes to the attacks whose step exchange falls
        short of ``min_gain`` by less than the largest value of an objective
        or HQ among the targets (the attack pick then weighs them exactly)."""
        if not self._valued():
            return self._plan_support(game, options, 0, False)
        q_t, q_u = self._attack_queue(game, options)
        thr = list(self._thresholds(self._thr_idx))
        if q_t:
            retake, hq = self._bonus(game, q_t)
            thr[1] -= float((retake + hq).max())
        return self._plan_compiled(game, options, q_t, q_u, 0, False, tuple(thr))

    def next_attack(self, game, options, penetration=False):
        """Rules 9.3 a, 10.31: the attack with the best value that passes
        ``min_odds`` and ``min_gain``.  The value is the exact expected
        exchange (``E[Axis steps] + retreat_value x E[retreat hexes] -
        risk_weight x E[own steps]``, :mod:`malta_sim.bots.forecast`) plus
        the :meth:`_bonus` values: ``w_retake`` times the exact chance of
        emptying the hex, ``w_hq`` times the exact chance of eliminating its
        pieces (:func:`vacate_table`).  Without ``w_retake`` and ``w_hq``, and for
        penetration attempts (10.3), the exchange alone
        (:meth:`malta_sim.bots.axis._ParamBot.next_attack`).

        Returns
        -------
        tuple of (int, list of int) or None
            Target hex and attacking units, or None to stop attacking.
        """
        if not options:
            return None
        if penetration or not self._valued():
            return self._pick_attack(game, options, penetration)
        tgts = sorted(options)
        plan = self._plan or CombatPlan()
        fired = game.state.fired
        sups = [[u for u in plan.support.get(h, []) if not fired[u]] for h in tgts]
        airs = [int(plan.air.get(h, 0)) for h in tgts]
        _ok, gains, lvs, out_grp, out_base, u_ptr = self._score_arrays(
            game, tgts, [options[h] for h in tgts], sups, plan.hurricane, airs, False)
        retake, hq = self._bonus(game, tgts)
        ft = forecast_tables(game)
        vac = vacate_table(game.static.charts, int(ft.d_max))
        min_odds, min_gain = float(self.vec[P.AL_MIN_ODDS]), float(self.vec[P.AL_MIN_GAIN])
        retake, hq = retake.tolist(), hq.tolist()
        best = None
        # the group and forecast base are read only for the attacks that pass
        for i, (gain, lv) in enumerate(zip(gains.tolist(), lvs.tolist())):
            if not isfinite(gain) or lv < min_odds:
                continue
            value = gain
            if retake[i] or hq[i]:
                b = out_base[i].tolist()
                line, fort, def_steps = b[5], b[6], b[7]
                lo, hi = int(ft.line_cols[line, 0]), int(ft.line_cols[line, 1])
                col = lo
                for k in range(lo, hi + 1):
                    if ft.col_level[k] <= lv:
                        col = k
                p = vac[line, col, int(bool(fort)), min(max(def_steps, 0), ft.d_max)]
                value += retake[i] * p[0] + hq[i] * p[1]
            if value >= min_gain and (best is None or value > best[0]):
                best = (value, i)
        if best is None:
            return None
        i = best[1]
        o = int(u_ptr[i])
        return tgts[i], out_grp[o:o + int(out_base[i, 0])].tolist()

    def defensive_support(self, game, options):
        """Rule 9.2 b: the hexes with the most Axis units adjacent first, each
        gets every free artillery unit offered (strongest first), or, when
        none, warships alone, at most two (16.74).

        Parameters
        ----------
        options : dict
            Own hex -> artillery and warships able to support it.

        Returns
        -------
        dict
            Hex -> supporting units (each unit once)."""
        t = game.static
        out, used = {}, set()
        if not options:
            return out
        # threat of a hex: the enemy pieces in its neighbours (all pieces with
        # a hex, as game.units_at counts them), from one count per hex
        enemy = game.tables.side_mask[1 - self.side]
        hx = game.state.hex[enemy]
        cnt = np.bincount(hx[hx >= 0], minlength=t.n_hexes + 1)
        cnt[t.n_hexes] = 0                               # index -1 below: off the grid
        hs = np.fromiter(options, np.int64, len(options))
        threat = cnt[t.neighbours[hs]].sum(axis=1).tolist()
        for _, h in sorted(zip((-x for x in threat), hs.tolist())):
            free = [u for u in options[h] if u not in used]
            arty = sorted((u for u in free if t.utype[u] != st.WARSHIP),
                          key=lambda u: (-int(t.def_support[u]), u))
            pick = arty if arty else [u for u in free if t.utype[u] == st.WARSHIP][:2]
            if pick:
                out[h] = pick
                used.update(pick)
        return out

    def stand_ground(self, game, units, hits, attacker):
        """Rule 9.7: stand in cities, forts, towns and airfields against at
        most ``stand_max_hits`` retreat hexes; never when attacking; with
        ``stand_survive`` only when the hex's pieces hold more steps than
        the hits (:func:`~malta_sim.bots.simple.stand_leaves_a_step`)."""
        if attacker:
            return False
        t, s = game.static, game.state
        h = int(s.hex[units[0]])
        key = bool(t.city[h] or t.fort[h] or t.town[h] or t.airfield[h])
        if not (key and hits <= self.vec[P.AL_STAND]):
            return False
        return not self.vec[P.AL_STAND_SURVIVE] or stand_leaves_a_step(game, units, hits)

    # ------------------------------------------------------------ special rules
    def dismantle_strongpoints(self, game, strongpoints, max_n):
        """Rule 16.25: with ``dismantle`` on, the four strongpoints farthest
        from Axis units (or from the invasion beaches before the landings)
        become an engineer company."""
        if not self.vec[P.AL_DISMANTLE] or max_n < 4 or len(strongpoints) < 4:
            return []
        t, s = game.static, game.state
        dist = t.grid.distance_table
        axis = [int(x) for x in game.on_map(1 - self.side) if game.is_ground(int(x))]
        ref = np.unique(s.hex[axis]) if axis else np.flatnonzero(t.beach)
        if not len(ref):
            return []
        far = sorted(strongpoints, key=lambda u: (-int(dist[s.hex[u], ref].min()), u))
        return far[:4]

    def engineer_hex(self, game, options):
        """Rule 16.25: the option nearest an Allied-held victory city."""
        t = game.static
        dist = t.grid.distance_table
        vc = np.asarray(t.victory_cities)
        return min(options, key=lambda h: (int(dist[h, vc].min()), h))

    def allied_placement(self, game, units, options):
        """Rule 22.39 Variable Allied Placement: combat units (not artillery,
        AA, coastal guns, strongpoints, security companies, HQs, leaders) are
        offered only hexes within ``place_radius`` of a victory city or
        airfield, artillery within ``place_radius + 2`` of a victory city; the
        engine's default placement (``hercules.default_allied_placement``:
        stacking 7.1, one strongpoint / RAF company per hex, two guns per hex)
        then picks among them.  Falls back to the unrestricted default when
        some unit finds no room."""
        from malta_sim.iod.scenarios.hercules import default_allied_placement

        r = int(self.vec[P.AL_PLACE_RADIUS])
        if r <= 0:
            return default_allied_placement(game, units, options, None)
        t = game.static
        dist = t.grid.distance_table
        vc = np.asarray(t.victory_cities)
        keys = np.concatenate([vc, np.flatnonzero(t.airfield)])
        fixed = (st.ARTILLERY, st.AA, st.COASTAL_GUN, st.STRONGPOINT, st.SECURITY, st.MILITIA,
                 st.HQ, st.LEADER, st.WARSHIP)
        narrowed = {}
        for u in units:
            opts = list(options[u])
            if t.utype[u] == st.ARTILLERY:
                near = [h for h in opts if dist[h, vc].min() <= r + 2]
            elif t.utype[u] in fixed:
                near = opts
            else:
                near = [h for h in opts if dist[h, keys].min() <= r]
            narrowed[u] = near or opts
        out = default_allied_placement(game, units, narrowed, None)
        if any(u not in out for u in units):
            out = default_allied_placement(game, units, options, None)
        return out

    def waters_edge_attacks(self, game, options):
        """Rule 18.61: fire at the beach hex with the most Axis units when
        ``waters_edge`` is on."""
        if not self.vec[P.AL_WATERS_EDGE]:
            return {}
        return super().waters_edge_attacks(game, options)
