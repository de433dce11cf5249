"""One game in progress: static data, state arrays, random streams, policies,
event log.  Rule modules take a :class:`Game` and read/write ``game.state``.

The :class:`Game` is the per-game orchestration object of the Python loop; the
rules themselves work on its arrays (``game.state`` fields and ``game.static``
tables), so they can move into compiled kernels piece by piece.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba as nb
import numpy as np

from malta_sim.errors import OptionError
from malta_sim.rng import GameStreams
from malta_sim.iod import static as st
from malta_sim.iod.rules import breakdown_reform
from malta_sim.iod.state import (ALLIED, AXIS, BOX_MAP, DEMORALIZED, NIGHT, GameState, turn_name)


class IllegalDecision(OptionError):
    """A policy asked for something the rules forbid; the message names the rule."""


def illegal(rule: str, message: str) -> IllegalDecision:
    """An :class:`IllegalDecision` saying which rule forbids ``message``."""
    return IllegalDecision(f"illegal decision (rule {rule}): {message}")


@dataclass
class EventLog:
    """Event records of one game (phase, hexes, units, dice, table cell, result)."""

    rows: list = field(default_factory=list)

    def add(self, game: "Game", action: str, side: int = -1, hexes=(), units=(), dice=(),
            cell: str = "", result: str = "", rule: str = "") -> None:
        s = game.static
        self.rows.append({
            "game": game.game_index,
            "turn": int(game.state.turn[0]),
            "turn_name": turn_name(int(game.state.turn[0])),
            "phase": game.phase_name,
            "side": ("axis", "allied")[side] if side in (0, 1) else "",
            "action": action,
            "rule": rule,
            "hexes": " ".join(s.grid.hex_id(int(h)) for h in hexes if h >= 0),
            "units": " ".join(s.names[int(u)] for u in units),
            "dice": " ".join(str(int(d)) for d in dice),
            "cell": cell,
            "result": result,
        })


#: unit types that never take part in a hex's defense: leaders (14.0),
#: coastal guns (16.57), warships (at sea, 16.71)
NOT_DEFENDING = (st.LEADER, st.COASTAL_GUN, st.WARSHIP)
#: unit types that never attack an adjacent hex in ground combat: leaders
#: (14.0), coastal guns (16.57), artillery and warships (they fire support
#: instead, 9.11, 16.73), AA and HQ pieces (as :func:`combat.can_attack`)
NEVER_ATTACKING = (st.LEADER, st.WARSHIP, st.COASTAL_GUN, st.ARTILLERY, st.AA, st.HQ)


class StaticTables:
    """Per-unit and per-hex facts derived once from a :class:`StaticData`.

    The rule modules ask the same questions about fixed facts (unit type,
    regiment, neighbouring hexes) many thousands of times per game; these
    tables answer them with a list lookup or one boolean mask instead of a
    numpy call per question.  Everything here is read-only and depends only on
    the static data (unit types, map), so one instance serves every game that
    shares the static data (see :func:`static_tables`).

    Attributes
    ----------
    side_mask : tuple(bool[n_units], bool[n_units])
        Units of the Axis, of the Allies.
    side_run : tuple(tuple(int, int), tuple(int, int))
        Per side, ``(first, last + 1)``: its pieces are one run of unit
        indices (the static builder orders them by side).
    ground : bool[n_units]
        Ground combat units (not leader, warship or coastal gun).
    defends, defends_side : bool[n_units], tuple of two bool[n_units]
        Units that take part in a hex's defense (all but :data:`NOT_DEFENDING`),
        and the same per side.
    attacker_type : bool[n_units]
        Unit types that may attack (not :data:`NEVER_ATTACKING`).
    firer_type : bool[n_units]
        Artillery and warships, the only pieces that may support or bombard
        (9.2, 10.1, 12.2, 16.7).
    controls : bool[n_units]
        Pieces that take control of their hex (2.1): all but leaders and
        warships.
    base_weight : int16[n_units]
        Stacking weight in half battalions at full strength (7.1, 16.33,
        16.51); a remnant counts one (17.31).
    remnant_level : int8[n_units]
        The level at which a unit is a remnant (17.31: lowest level of a
        non-artillery battalion with two or more levels); -1 when never.
    remnant_level_full : int8[n_units]
        :attr:`remnant_level` of the units whose full-strength stacking
        weight is two (one at that level); -1 for the others.
    neighbours : list of list of int
        Per dense hex, its neighbours on the grid in direction order.
    adj : list of list of int
        Per dense hex, its neighbours in direction order (N, NE, SE, S, SW,
        NW) that are on the grid and not across an all-ocean hexside (9.11).
    adj_table : int64[n_hexes, 6]
        :attr:`adj` as a table, each row padded with -1 (for compiled code).
    attacker_side, firer_side, ground_side : tuple of two bool[n_units]
        Per side: :attr:`attacker_type`, :attr:`firer_type` and :attr:`ground`
        restricted to that side's pieces.
    sight_blocking : bool[n_hexes]
        Town, city and woods hexes, which block discovery at two hexes (10.11).
    utype, regiment, engineer, tank, armor_partner, strongpoint : list
        Per unit: unit type code, regiment (-1 none), engineer flag, tank,
        armor partner of a tank (9.92), strongpoint (16.24).
    morale, attack, defense, ma : list of list of int
        Per unit and level, the printed values.
    foot, company, n_levels, side, controls_l, base_weight_l, remnant_level_full_l : list
        Per unit: foot movement class, company, number of levels, side, and
        :attr:`controls`, :attr:`base_weight`, :attr:`remnant_level_full` as
        lists.
    leader : bool[n_units]
        Leaders.
    leaders_side : tuple of two list of int
        Per side, its leader pieces in ascending order (14.0).
    printed_formation_l : list of int
        Per unit, its printed formation (-1 none), as a list (14.2, 15.3).
    formation_leader_l : list of int
        Per formation, its leader piece (-1 none), as a list (10.31, 15.3).
    can_break : bool[n_units]
        Battalions that may break down into companies by type (13.1: not
        Maltese).
    members : list of list of int
        Per regiment, its battalions (9.92, 9.95).
    companies_of_kind : list of int64[k]
        Per generic company kind (13.1), its company pieces in ascending order.
    companies_of : list of list of int
        Per unit, the company pieces made for breaking it down (13.1), in
        ascending order; empty for most.
    remnant_level_l : list of int
        :attr:`remnant_level` as a list.
    companies_of_csr, companies_of_kind_csr : tuple(int64[n + 1], int64[m])
        :attr:`companies_of` and :attr:`companies_of_kind` as ``(start, flat)``
        arrays (:func:`.reorganisation.csr`, for compiled code).
    may_break_side, battalion_side : tuple of two bool[n_units]
        Per side: :attr:`can_break`, and the battalion pieces (13.2), of that
        side.
    controls_side : tuple of two bool[n_units]
        Per side: :attr:`controls` of that side's pieces.
    may_attach : bool[n_units]
        Axis pieces that may be attached to a formation (15.21): not leaders,
        HQs or warships.
    """

    def __init__(self, t):
        n = len(t.utype)
        ut = t.utype
        self.side_mask = (t.side == AXIS, t.side == ALLIED)
        self.side_run = tuple(_index_run(m.nonzero()[0]) for m in self.side_mask)
        if None in self.side_run:
            raise ValueError("the static unit table must hold each side's pieces as one run "
                             "of indices")
        self.ground = ~np.isin(ut, (st.LEADER, st.WARSHIP, st.COASTAL_GUN))
        self.defends = ~np.isin(ut, NOT_DEFENDING)
        self.defends_side = (self.defends & self.side_mask[0], self.defends & self.side_mask[1])
        self.attacker_type = ~np.isin(ut, NEVER_ATTACKING)
        self.firer_type = (ut == st.ARTILLERY) | (ut == st.WARSHIP)
        self.controls = (ut != st.LEADER) & (ut != st.WARSHIP)
        w = np.full(n, 2, np.int16)
        w[(t.size == st.COMPANY) | (ut == st.STRONGPOINT)] = 1
        for code in (st.LEADER, st.COASTAL_GUN, st.MILITIA, st.WARSHIP, st.HQ):
            w[ut == code] = 0
        self.base_weight = w
        rem = (t.size == st.BATTALION) & (ut != st.ARTILLERY) & (t.n_levels >= 2)
        self.remnant_level = np.where(rem, t.n_levels.astype(np.int16) - 1, -1).astype(np.int8)
        self.remnant_level_l = self.remnant_level.tolist()
        self.remnant_level_full = np.where(w == 2, self.remnant_level, -1).astype(np.int8)
        nb, ocean = t.neighbours, t.ocean_side
        self.adj = [[int(nb[h, d]) for d in range(6) if nb[h, d] >= 0 and not ocean[h, d]]
                    for h in range(len(nb))]
        self.neighbours = [[int(o) for o in row if o >= 0] for row in nb]
        self.adj_table = np.full((len(nb), 6), -1, np.int64)
        for h, row in enumerate(self.adj):
            self.adj_table[h, :len(row)] = row
        self.attacker_side = tuple(self.attacker_type & m for m in self.side_mask)
        self.firer_side = tuple(self.firer_type & m for m in self.side_mask)
        self.ground_side = tuple(self.ground & m for m in self.side_mask)
        self.sight_blocking = t.town | t.city | t.woods
        self.utype = ut.tolist()
        self.regiment = t.regiment.tolist()
        self.engineer = [bool(x) for x in t.engineer]
        self.tank = (ut == st.TANK).tolist()
        self.armor_partner = np.isin(ut, st.ARMOR_PARTNERS).tolist()
        self.strongpoint = (ut == st.STRONGPOINT).tolist()
        self.morale = t.morale.tolist()
        self.attack = t.attack.tolist()
        self.defense = t.defense.tolist()
        self.ma = t.ma.tolist()
        self.foot = (t.move_class == st.FOOT).tolist()
        self.company = (t.size == st.COMPANY).tolist()
        self.n_levels = t.n_levels.tolist()
        self.side = t.side.tolist()
        self.controls_l = self.controls.tolist()
        self.base_weight_l = self.base_weight.tolist()
        self.remnant_level_full_l = self.remnant_level_full.tolist()
        self.leader = ut == st.LEADER
        self.leaders_side = tuple((self.leader & m).nonzero()[0].tolist() for m in self.side_mask)
        self.printed_formation_l = t.printed_formation.tolist()
        self.formation_leader_l = t.formation_leader.tolist()
        self.companies_of = [[] for _ in range(n)]
        for c in np.flatnonzero(t.battalion_of >= 0).tolist():
            self.companies_of[int(t.battalion_of[c])].append(c)
        self.can_break = t.can_break & (t.nation != st.MALTESE)
        n_kinds = int(t.company_kind.max()) + 1 if len(t.company_kind) else 0
        self.companies_of_kind = [np.flatnonzero(t.company_kind == k) for k in range(max(n_kinds, 0))]
        for arr in self.companies_of_kind:
            arr.flags.writeable = False
        self.members = [[int(m) for m in mem] for mem in t.regiment_members]
        self.companies_of_csr = breakdown_reform.csr(self.companies_of)
        self.companies_of_kind_csr = breakdown_reform.csr(self.companies_of_kind)
        self.may_break_side = tuple(self.can_break & m for m in self.side_mask)
        self.battalion_side = tuple((t.size == st.BATTALION) & m for m in self.side_mask)
        self.may_attach = self.side_mask[AXIS] & ~np.isin(ut, (st.LEADER, st.HQ, st.WARSHIP))
        self.controls_side = tuple(self.controls & m for m in self.side_mask)
        for arr in (*self.side_mask, self.ground, self.defends, *self.defends_side,
                    self.attacker_type, self.firer_type, self.controls, self.base_weight, self.leader,
                    self.can_break, self.remnant_level,
                    self.remnant_level_full, self.adj_table, *self.attacker_side,
                    *self.firer_side, *self.ground_side, self.sight_blocking,
                    *self.companies_of_csr, *self.companies_of_kind_csr, *self.may_break_side,
                    *self.battalion_side, self.may_attach, *self.controls_side):
            arr.flags.writeable = False             # shared by every game of the batch


def _index_run(idx: np.ndarray):
    """``(first, last + 1)`` when the ascending indices ``idx`` are one run of
    consecutive numbers (``(0, 0)`` when empty), else None."""
    if not len(idx):
        return 0, 0
    if int(idx[-1]) - int(idx[0]) + 1 == len(idx):
        return int(idx[0]), int(idx[-1]) + 1
    return None


@nb.njit(cache=True)
def units_in_run(hexes, h, lo, hi):
    """int64[k]: the indices ``i`` in ``lo <= i < hi`` with ``hexes[i] == h``,
    ascending: the pieces of one side on hex ``h`` (:meth:`Game.units_at`),
    or, given the box of each piece and ``BOX_MAP``, the side's pieces on the
    map (:meth:`Game.on_map`).

    Parameters
    ----------
    hexes : int32[n_units] or int8[n_units]
        Hex of each piece (-1 off the map), or its box.
    h : int
        Dense hex index, or box code.
    lo, hi : int
        The side's run of piece indices.
    """
    n = 0
    for i in range(lo, hi):
        if hexes[i] == h:
            n += 1
    out = np.empty(n, np.int64)
    j = 0
    for i in range(lo, hi):
        if hexes[i] == h:
            out[j] = i
            j += 1
    return out


_TABLES: dict = {}
_MODULES: dict = {}
_NO_MEMO: dict = {}


def _movement():
    """The movement module (imported on first use: it imports this one)."""
    m = _MODULES.get("movement")
    if m is None:
        from malta_sim.iod.rules import movement as m
        _MODULES["movement"] = m
    return m


def static_tables(static) -> StaticTables:
    """The :class:`StaticTables` of ``static``, built on first use and shared
    by the games that use the same static data."""
    hit = _TABLES.get(id(static))
    if hit is not None and hit[0]() is static:
        return hit[1]
    import weakref

    tb = StaticTables(static)
    try:
        ref = weakref.ref(static)
    except TypeError:                       # not weakly referenceable: keep it alive
        ref = (lambda obj: (lambda: obj))(static)
    if len(_TABLES) > 64:
        for k in [k for k, v in _TABLES.items() if v[0]() is None]:
            del _TABLES[k]
    _TABLES[id(static)] = (ref, tb)
    return tb


class Game:
    """A game being played.

    Parameters
    ----------
    static : StaticData
    state : GameState
        Single-game state (see :mod:`.state`).
    seed, game_index : int
        Master seed and game index: all randomness comes from
        ``GameStreams(seed, game_index)``.
    policies : tuple(Policy, Policy)
        Axis and Allied policies.
    scenario : ScenarioInfo
    log : bool
        Record the event log.
    check : bool
        Test mode: verify invariants at every phase end.
    """

    def __init__(self, static, state: GameState, seed: int, game_index: int, policies,
                 scenario, log: bool = False, check: bool = False, options=()):
        self.static = static
        self.state = state
        self.seed = int(seed)
        self.game_index = int(game_index)
        self.streams = GameStreams(seed, game_index)
        self.policies = policies
        self.scenario = scenario
        self.events = EventLog() if log else None
        self.check = check
        self.options = tuple(options)
        self.phase_name = "setup"
        self.active = AXIS
        self.skip_invasion = False
        self.per_turn_rows: list = []
        #: callables ``f(game, phase)`` called at the end of every phase of
        #: the sequence of play (4.0), after the phase-end checks: read-only
        #: observers for analyses and tests (they must not change the game)
        self.observers: list = []
        #: derived answers only (move caches, index lists built from the
        #: static data, the last answer of a query with the key it was
        #: computed from): everything here can be recomputed from the static
        #: data and the state, so clearing it at any phase end changes no game
        #: (tests/engine/test_cache_is_derived.py).  Rule state belongs in the
        #: state registry (:mod:`malta_sim.iod.state`), never here.
        self.cache: dict = {}
        # per-unit "ground combat unit" flags (unit types never change during a
        # game): a list lookup in place of a numpy-scalar test per query
        self.tables = static_tables(static)
        self.ground_mask = self.tables.ground
        self._ground = self.ground_mask.tolist()

    # ------------------------------------------------------------ time
    @property
    def turn(self) -> int:
        return self.state.turn.item(0)

    @property
    def day(self) -> int:
        """Day index, 0 = 29 June."""
        return self.state.turn.item(0) // 4

    @property
    def tod(self) -> int:
        """Time of day: AM, NOON, PM, NIGHT."""
        return self.state.turn.item(0) % 4

    @property
    def night(self) -> bool:
        """A Night turn (rule 4.0; 10.2)."""
        return self.state.turn.item(0) % 4 == NIGHT

    # ------------------------------------------------------------ dice
    def die(self, purpose: str) -> int:
        """One d6 from the game's ``purpose`` stream."""
        return int(self.streams[purpose].integers(1, 7))

    def dice2(self, purpose: str) -> int:
        """2d6 from the game's ``purpose`` stream."""
        g = self.streams[purpose]
        return int(g.integers(1, 7)) + int(g.integers(1, 7))

    def log(self, action: str, **kw) -> None:
        if self.events is not None:
            self.events.add(self, action, **kw)

    def policy(self, side: int):
        return self.policies[side]

    # ------------------------------------------------------------ kept answers
    def kept(self, memo: str, slot, key):
        """The answer kept by :meth:`keep` under ``memo``/``slot`` when it was
        computed from ``key``, else None.

        The engine keeps the last answer of a query (per side, say) with a key
        that holds exactly what the query reads of the state (array bytes);
        equal keys give equal answers, so nothing needs invalidating.  The memo
        lives in ``game.cache[memo]`` (a dict ``slot -> (key, answer)``), so
        it ends with the game, and clearing it only costs the recomputation."""
        hit = self.cache.get(memo, _NO_MEMO).get(slot)
        return hit[1] if hit is not None and hit[0] == key else None

    def keep(self, memo: str, slot, key, answer):
        """Keep ``answer`` under ``memo``/``slot`` with the ``key`` it was
        computed from (the previous answer of that slot is dropped); returns
        ``answer``.  See :meth:`kept`."""
        m = self.cache.get(memo)
        if m is None:
            m = self.cache[memo] = {}
        m[slot] = (key, answer)
        return answer

    # ------------------------------------------------------------ queries
    def on_map(self, side: int | None = None) -> np.ndarray:
        """Indices of units on the map (optionally of one side), int64[k]."""
        if side is not None:                           # the side's pieces are one run of indices
            lo, hi = self.tables.side_run[side]
            return units_in_run(self.state.box, BOX_MAP, lo, hi)
        return (self.state.box == BOX_MAP).nonzero()[0]        # = np.flatnonzero on 1-D, without its per-call overhead

    def ground_units(self, side: int | None = None) -> list[int]:
        """Ground combat units on the map (optionally of one side), as Python
        ints in ascending order: ``[int(u) for u in on_map(side) if
        is_ground(u)]`` in one mask."""
        m = (self.state.box == BOX_MAP) & self.tables.ground
        if side is not None:
            m &= self.tables.side_mask[side]
        return m.nonzero()[0].tolist()

    def units_at(self, h: int, side: int | None = None) -> np.ndarray:
        """Units on hex ``h`` (optionally of one side), int64[k] ascending."""
        if side is not None:                           # the side's pieces are one run of indices
            lo, hi = self.tables.side_run[side]
            return units_in_run(self.state.hex, int(h), lo, hi)
        return (self.state.hex == h).nonzero()[0]       # hex >= 0 only for units on the map

    def steps(self, u: int) -> int:
        """Steps the unit has left (17.3): levels left, 1 for companies."""
        tb = self.tables
        if tb.company[u]:
            return 1
        return tb.n_levels[u] - int(self.state.level[u])

    def is_remnant(self, u: int) -> bool:
        """Rule 17.31: lowest level of a battalion (not artillery) with 2+ levels."""
        rl = self.tables.remnant_level_l[u]
        return rl >= 0 and int(self.state.level[u]) == rl

    def is_ground(self, u: int) -> bool:
        """A ground combat unit (not leader, warship, coastal gun)."""
        return self._ground[u]

    def prepared_artillery(self, u: int) -> bool:
        t = self.static
        return t.utype[u] == st.ARTILLERY and not self.state.hitched[u]

    def base_attack(self, u: int) -> int:
        """Printed attack strength at the current level (hitched side for artillery)."""
        return int(self.static.attack[u, self.state.level[u]])

    def base_defense(self, u: int) -> int:
        return int(self.static.defense[u, self.state.level[u]])

    def morale_value(self, u: int) -> int:
        """Current morale: printed at this level, -1 when demoralized (11.4)."""
        tb = self.tables
        m = 4 if tb.strongpoint[u] else tb.morale[u][self.state.level[u]]    # 16.24
        if self.state.morale_state[u] == DEMORALIZED:
            m -= 1
        return m

    def movement_allowance(self, u: int) -> int:
        """Movement allowance this phase (6.0): printed, 0 for prepared artillery
        (12.11); out of supply mot/mech -2 (8.33); demoralized foot -2, mot/mech
        -4 (11.4); never below 1 by those; leader bonus is added by movement."""
        tb, s = self.tables, self.state
        ut = tb.utype[u]
        if ut == st.LEADER:
            return 14                                  # 14.3
        if ut == st.ARTILLERY and not s.hitched[u]:
            return 0
        ma = tb.ma[u][s.level[u]]
        if ma <= 0:
            return 0
        foot = tb.foot[u]
        if s.out_of_supply[u] and not foot:
            ma = max(1, ma - 2)                        # 8.33
        if s.morale_state[u] == DEMORALIZED:
            ma = max(1, ma - (2 if foot else 4))       # 11.4
        return ma

    def formation_of(self, u: int) -> int:
        return int(self.state.formation[u])

    def is_artillery(self, u: int) -> bool:
        return self.static.utype[u] == st.ARTILLERY

    def legal_moves(self, u: int, mode: str = "tactical", hitch: bool = False) -> dict:
        """Destinations (hex -> MP spent) of unit ``u`` (see movement.legal_moves)."""
        return _movement().legal_moves(self, int(u), mode, hitch)

    def can_prepare_after(self, u: int, spent: float, hitch: bool, dest: int | None = None) -> bool:
        from malta_sim.iod.rules.movement import can_prepare_after
        return can_prepare_after(self, int(u), spent, hitch, dest)

    def hex_name(self, h: int) -> str:
        return self.static.grid.hex_id(int(h))

