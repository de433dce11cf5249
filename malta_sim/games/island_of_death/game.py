"""One game in progress: static data, state arrays, random streams, policies,
event log.  Rule modules take a :class:`Game` and read/write ``game.state``.

The :class:`Game` is the per-game orchestration object of the Python loop; the
rules themselves work on its arrays (``game.state`` fields and ``game.static``
tables), so they can move into compiled kernels piece by piece.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import OptionError
from ...rng import GameStreams
from . import static as st
from .state import (ALLIED, AXIS, BOX_MAP, DEMORALIZED, NIGHT, GameState, allocate,
                    turn_name)


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
        self.extra: dict = {}     # free room for invasion modules (planned jumps...)
        # per-unit "ground combat unit" flags (unit types never change during a
        # game): a list lookup in place of a numpy-scalar test per query
        self.ground_mask = ~np.isin(static.utype, (st.LEADER, st.WARSHIP, st.COASTAL_GUN))
        self._ground = self.ground_mask.tolist()

    # ------------------------------------------------------------ time
    @property
    def turn(self) -> int:
        return int(self.state.turn[0])

    @property
    def day(self) -> int:
        """Day index, 0 = 29 June."""
        return self.turn // 4

    @property
    def tod(self) -> int:
        """Time of day: AM, NOON, PM, NIGHT."""
        return self.turn % 4

    @property
    def night(self) -> bool:
        return self.tod == NIGHT

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

    # ------------------------------------------------------------ queries
    def on_map(self, side: int | None = None) -> np.ndarray:
        """Indices of units on the map (optionally of one side), int64[k]."""
        s, t = self.state, self.static
        m = s.box == BOX_MAP
        if side is not None:
            m &= t.side == side
        return m.nonzero()[0]        # = np.flatnonzero on 1-D, without its per-call overhead

    def units_at(self, h: int, side: int | None = None) -> np.ndarray:
        """Units on hex ``h`` (optionally of one side)."""
        s, t = self.state, self.static
        idx = (s.hex == h).nonzero()[0]        # hex >= 0 only for units on the map
        if side is not None and len(idx):              # an empty hex needs no side filter
            idx = idx[t.side[idx] == side]
        return idx

    def steps(self, u: int) -> int:
        """Steps the unit has left (17.3): levels left, 1 for companies."""
        t = self.static
        if t.size[u] == st.COMPANY:
            return 1
        return int(t.n_levels[u] - self.state.level[u])

    def is_remnant(self, u: int) -> bool:
        """Rule 17.31: lowest level of a battalion (not artillery) with 2+ levels."""
        t = self.static
        return (t.size[u] == st.BATTALION and t.utype[u] != st.ARTILLERY
                and t.n_levels[u] >= 2 and self.state.level[u] == t.n_levels[u] - 1)

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
        m = int(self.static.morale[u, self.state.level[u]])
        if self.static.utype[u] == st.STRONGPOINT:
            m = 4                                      # 16.24
        if self.state.morale_state[u] == DEMORALIZED:
            m -= 1
        return m

    def movement_allowance(self, u: int) -> int:
        """Movement allowance this phase (6.0): printed, 0 for prepared artillery
        (12.11); out of supply mot/mech -2 (8.33); demoralized foot -2, mot/mech
        -4 (11.4); never below 1 by those; leader bonus is added by movement."""
        t, s = self.static, self.state
        if t.utype[u] == st.LEADER:
            return 14                                  # 14.3
        if t.utype[u] == st.ARTILLERY and not s.hitched[u]:
            return 0
        ma = int(t.ma[u, s.level[u]])
        if ma <= 0:
            return 0
        if s.out_of_supply[u] and t.move_class[u] != st.FOOT:
            ma = max(1, ma - 2)                        # 8.33
        if s.morale_state[u] == DEMORALIZED:
            ma = max(1, ma - (2 if t.move_class[u] == st.FOOT else 4))   # 11.4
        return ma

    def formation_of(self, u: int) -> int:
        return int(self.state.formation[u])

    def is_artillery(self, u: int) -> bool:
        return self.static.utype[u] == st.ARTILLERY

    def legal_moves(self, u: int, mode: str = "tactical", hitch: bool = False) -> dict:
        """Destinations (hex -> MP spent) of unit ``u`` (see movement.legal_moves)."""
        from .movement import legal_moves
        return legal_moves(self, int(u), mode, hitch)

    def can_prepare_after(self, u: int, spent: float, hitch: bool, dest: int | None = None) -> bool:
        from .movement import can_prepare_after
        return can_prepare_after(self, int(u), spent, hitch, dest)

    def hex_name(self, h: int) -> str:
        return self.static.grid.hex_id(int(h))
