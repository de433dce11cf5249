"""The policy interface: every decision the Island of Death rules leave to a player.

A policy is an object with one method per kind of decision.  The engine
computes the legal options (it never asks an open question), calls the method,
and validates the answer: an answer outside the options raises
:class:`malta_sim.iod.game.IllegalDecision` naming the rule.
Methods receive the :class:`~malta_sim.iod.game.Game`
(read-only by convention: ``game.state`` arrays, ``game.static`` tables and
query helpers) and must draw any randomness from
``game.streams["axis_policy"]`` / ``["allied_policy"]`` (see :meth:`Policy.rng`).

Unit and hex arguments are indices: units index the static unit table, hexes
are dense hex indices (``game.static.grid``).

Compiled presets
----------------
The preset bots (:mod:`.axis`, :mod:`.allied`) make their heavier decisions
(attack scoring, the combat plan, movement) inside their own methods by
compiled kernels over the game's state arrays and a float64 parameter
vector (``vec``, :mod:`.params`); the engine asks every bot through the same
methods and checks every answer alike.  A subclass overriding a decision
method replaces that decision whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from malta_sim.bots.invasion import InvasionDecisions


@dataclass
class Move:
    """One unit's movement order (rules 6.1-6.6).

    ``dest`` is the hex to end in (may be the current hex when the order only
    hitches or prepares artillery).  ``hitch`` / ``prepare`` change an
    artillery unit's side at the start / end of its move (6.6, 12.4).
    """

    unit: int
    dest: int
    hitch: bool = False
    prepare: bool = False


@dataclass
class CombatPlan:
    """Step 9.2 a of the active player.

    ``support``: target hex -> artillery/warship units giving offensive support;
    ``bombard``: target hex -> artillery/warship units bombarding (10.1);
    ``air``: target hex -> number of air support markers (16.42);
    ``hurricane``: artillery units firing a fire hurricane (12.52).
    """

    support: dict = field(default_factory=dict)
    bombard: dict = field(default_factory=dict)
    air: dict = field(default_factory=dict)
    hurricane: set = field(default_factory=set)


class Policy(InvasionDecisions):
    """Base class: documents every decision.  Subclasses implement them all
    (see :class:`malta_sim.bots.random.RandomPolicy`)."""

    name = "base"

    def __init__(self, side: int, params: dict | None = None):
        self.side = side
        self.params = dict(params or {})

    def rng(self, game) -> np.random.Generator:
        """This policy's random stream in ``game``."""
        return game.streams["axis_policy" if self.side == 0 else "allied_policy"]

    # ------------------------------------------------------------ Initial Segment
    def attachments(self, game, options: dict) -> dict:
        """Rule 15.21 (4.1 b): ``options`` unit -> list of formations it may join
        now.  Return unit -> formation for the changes wanted."""
        raise NotImplementedError

    def replacements(self, game, eligible: list, n: int, kind: str) -> list:
        """Rule 17.4/17.41: choose up to ``n`` battalions of ``eligible`` to
        receive one replacement of ``kind``."""
        raise NotImplementedError

    def absorb(self, game, pairs: list) -> list:
        """Rule 17.42: ``pairs`` of (British battalion, security company) stacked
        together; return the pairs to absorb (each unit at most once)."""
        raise NotImplementedError

    def leader_hex(self, game, options: list) -> int:
        """Rules 14.42-14.43: hex (among ``options``) where a returning
        leader is placed when its HQ is not on the map."""
        raise NotImplementedError

    # ------------------------------------------------------------ Status Phase
    def distribute_ammo(self, game, eligible: list, stockpile: int) -> dict:
        """Rule 12.56: ``eligible`` artillery that may receive salvos; Axis limited
        by ``stockpile`` (-1 = unlimited, Allied).  Return unit -> salvos (>=0)."""
        raise NotImplementedError

    # ------------------------------------------------------------ Movement Phase
    def breakdowns(self, game, eligible: list) -> list:
        """Rule 13.1: battalions to break down into companies now."""
        raise NotImplementedError

    def next_move(self, game, mode: str, candidates: list):
        """Rules 6.1-6.6: pick the next unit to move (mode ``"strategic"`` or
        ``"tactical"``) among ``candidates`` and return a :class:`Move`, or
        ``None`` to end this kind of movement.  ``game.legal_moves(u, mode)``
        lists the hexes a unit may end in (with MP cost)."""
        raise NotImplementedError

    def next_infiltration(self, game, options: dict):
        """Rule 6.4: ``options`` unit -> list of destination hexes; return
        ``(unit, hex)`` to attempt, or ``None`` to stop."""
        raise NotImplementedError

    def reforms(self, game, options: list) -> list:
        """Rule 13.2: ``options`` are reformations possible now (each a tuple
        ``(battalion, companies, hex)``); return the ones to carry out."""
        raise NotImplementedError

    # ------------------------------------------------------------ Combat Phase
    def combat_plan(self, game, options) -> CombatPlan:
        """Rule 9.2 a: place support, bombardment and air markers.
        ``options`` is a :class:`malta_sim.iod.rules.combat.PlanOptions`."""
        raise NotImplementedError

    def defensive_support(self, game, options: dict) -> dict:
        """Rule 9.2 b: ``options`` own hex -> artillery/warships able to support
        it; return hex -> list of supporting units (each unit once)."""
        raise NotImplementedError

    def next_attack(self, game, options: dict, penetration: bool = False):
        """Rule 9.3 a (and 10.31): ``options`` target hex -> list of units able to
        attack it; return ``(target, [attackers])`` or ``None`` to stop."""
        raise NotImplementedError

    def penetration_air(self, game, target: int, available: int) -> int:
        """Rule 10.32/16.42: air support markers (0..``available``) to add to a
        penetration attack on ``target`` that passed its leader roll."""
        raise NotImplementedError

    def choose_loss(self, game, units: list, reason: str) -> int:
        """Rules 9.5, 10.12, 9.62: one unit among ``units`` to lose a step."""
        raise NotImplementedError

    def stand_ground(self, game, units: list, hits: int, attacker: bool) -> bool:
        """Rule 9.7: attempt to stand ground instead of retreating ``hits`` hexes."""
        raise NotImplementedError

    def choose_retreat(self, game, units: list, options: list) -> int:
        """Rule 9.61: next retreat hex among the equally ranked ``options``."""
        raise NotImplementedError

    def choose_advance(self, game, units: list, target: int, length: int) -> list:
        """Rule 9.8: which of ``units`` advance into ``target`` (may be empty)."""
        raise NotImplementedError

    def advance_further(self, game, units: list, options: list):
        """Rule 9.84: next hex of an advance beyond the attacked hex among
        ``options``, or ``None`` to stop."""
        raise NotImplementedError

    def stacking_eliminate(self, game, units: list) -> int:
        """Rule 7.2: the enemy player picks a unit of an over-stacked hex to
        eliminate."""
        raise NotImplementedError

    # ------------------------------------------------------------ invasion decisions
    # The invasion engine (rules 16.1-16.7, 18, 19, 21, 22.3) adds its decision
    # methods below this line.
