"""Shared helpers for the Island of Death engine tests (constructed positions)."""

from __future__ import annotations

from functools import lru_cache

from malta_sim.iod.setup import constructed_game, load_static
from malta_sim.iod.state import BOX_ELIMINATED
from malta_sim.bots.random import RandomPolicy


@lru_cache(maxsize=1)
def static():
    return load_static()


class Scripted(RandomPolicy):
    """Random policy with fixed answers for the decisions a test pins."""

    def __init__(self, side, stand=False, advance=False, **kw):
        super().__init__(side, {})
        self.stand = stand
        self.advance = advance
        self.kw = kw

    def stand_ground(self, game, units, hits, attacker):
        return self.stand

    def choose_advance(self, game, units, target, length):
        return list(units) if self.advance else []

    def advance_further(self, game, units, options):
        return None

    def choose_loss(self, game, units, reason):
        return sorted(units)[0]


def make(placements, turn=4, policies=None, **kw):
    """A constructed position (:func:`malta_sim.iod.setup.constructed_game`)
    played by random bots unless ``policies`` are given."""
    pols = policies or (RandomPolicy(0), RandomPolicy(1))
    return constructed_game(static(), placements, pols, turn=turn, **kw)


def u(name):
    return static().unit(name)


def h(hex_id):
    return static().grid.index(hex_id)


def airfield_entry_spy(game) -> list:
    """Make ``game`` a clear day (16.15) with every airfield Axis-controlled
    and no Allied piece on the map (16.11), and give the Axis a bot that
    records each list of airfield entry candidates it is offered and lands
    none; returns that (growing) list of lists."""
    seen: list = []

    class Spy:
        def airfield_landings(self, game, cands, fields, capacity, cost):
            seen.append(list(cands))
            return []

    s, t = game.state, game.static
    game.policies = (Spy(), game.policies[1])
    s.turn[0] = 5                                     # a day turn
    s.weather[0] = 0
    s.control[t.airfield] = 0
    s.hex[t.side == 1] = -1
    s.box[t.side == 1] = BOX_ELIMINATED
    return seen
