"""Shared helpers of the Island of Death tests: constructed and random positions.

The tests import these plain functions with ``from tests.conftest import ...``:

* :func:`static` -- the packaged static data (loaded once);
* :func:`make` -- a constructed position (:func:`malta_sim.iod.setup.constructed_game`)
  from ``{hex id: [unit names]}``;
* :func:`u`, :func:`h` -- a unit's index from its name, a hex's index from its id;
* :class:`Scripted` -- a random bot with fixed answers for the decisions a test pins;
* :class:`Recorder` -- a random bot that records the options it is offered;
* :func:`random_position` -- a constructed game with random pieces and per-piece state;
* :func:`airfield_entry_spy` -- a game made ready for airfield entries (16.1) with a
  bot that records the candidates it is offered;
* :func:`failed_communications`, :func:`set_failed_communications` -- the warships whose
  communications failed this turn (16.73), read and written in one place.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from malta_sim.bots.random import RandomPolicy
from malta_sim.iod import static as st
from malta_sim.iod.setup import constructed_game, load_static
from malta_sim.iod.state import BOX_ELIMINATED, BOX_MAP, RAINY


@lru_cache(maxsize=1)
def static():
    """The packaged Island of Death static data (:func:`load_static`), loaded once."""
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


class Recorder(RandomPolicy):
    """Random policy that records what it is offered and declines.

    ``offered[name]`` lists, per call of decision ``name``, a copy of the
    options: ``breakdowns`` (battalions that may break down, 13.1) and
    ``attachments`` (formations each unit may attach to, 15.21).  It breaks
    nothing down and attaches nothing.
    """

    def __init__(self, side, params=None):
        super().__init__(side, params or {})
        self.offered: dict = {"breakdowns": [], "attachments": []}

    def breakdowns(self, game, eligible):
        self.offered["breakdowns"].append(list(eligible))
        return []

    def attachments(self, game, options):
        self.offered["attachments"].append(dict(options))
        return {}


def make(placements, turn=4, policies=None, **kw):
    """A constructed position (:func:`malta_sim.iod.setup.constructed_game`)
    played by random bots unless ``policies`` are given.

    Parameters
    ----------
    placements : dict
        ``{hex id: [unit name, ...]}``; every other piece is off the map.
    turn : int
        Game turn (0 = 29 June AM; ``turn % 4 == 3`` is a night turn).
    policies : tuple of two bots, optional

    Returns
    -------
    malta_sim.iod.game.Game
    """
    pols = policies or (RandomPolicy(0), RandomPolicy(1))
    return constructed_game(static(), placements, pols, turn=turn, **kw)


def u(name):
    """The index of the unit called ``name`` in the packaged data."""
    return static().unit(name)


def h(hex_id):
    """The dense index of hex ``hex_id`` (``"XXYY"``)."""
    return static().grid.index(hex_id)


def failed_communications(game) -> set | None:
    """The warships whose communications failed this turn (rule 16.73), or None."""
    return game.extra.get("comm_failed", {}).get(game.turn)


def set_failed_communications(game, ships) -> None:
    """Record ``ships`` as the warships whose communications failed this turn (16.73)."""
    game.extra["comm_failed"] = {game.turn: set(ships)}


def random_position(rng, trial: int, policies=None):
    """A constructed game with random pieces of both sides on random land hexes.

    Forty random pieces of each side (leaders apart) and the first eight
    artillery and warship pieces of each, on random land hexes; random levels,
    morale states, attacked / fired / hitched flags, salvos, entry turns and
    fired coastal guns; rain on every third ``trial``, failed warship
    communications (16.73) on odd ones.

    Parameters
    ----------
    rng : numpy.random.Generator
    trial : int
    policies : tuple of two bots, optional (random bots when None)

    Returns
    -------
    malta_sim.iod.game.Game
    """
    t = static()
    land = np.flatnonzero(t.land)
    pick = []
    for side in (0, 1):
        idx = np.flatnonzero((t.side == side) & (t.utype != st.LEADER))
        pick += rng.choice(idx, min(len(idx), 40), replace=False).tolist()
        arty = np.flatnonzero((t.side == side) & ((t.utype == st.ARTILLERY) | (t.utype == st.WARSHIP)))
        pick += [int(x) for x in arty[:8] if int(x) not in pick]
    spots = rng.choice(land, len(pick))
    place: dict = {}
    for x, hh in zip(pick, spots):
        place.setdefault(t.grid.hex_id(int(hh)), []).append(t.names[x])
    g = make(place, turn=int(rng.integers(0, 12)), policies=policies)
    s = g.state
    n = len(s.box)
    on = s.box == BOX_MAP
    s.level[:] = np.minimum(rng.integers(0, 3, n), t.n_levels - 1).astype(s.level.dtype)
    s.morale_state[:] = rng.integers(0, 3, n)
    s.attacked[:] = rng.random(n) < 0.2
    s.fired[:] = rng.random(n) < 0.2
    s.hitched[:] = rng.random(n) < 0.3
    s.salvos[:] = rng.integers(0, 3, n)
    s.entered_turn[:] = np.where(rng.random(n) < 0.15, g.turn, -1)
    s.gun_fired_turn[:] = np.where(rng.random(n) < 0.2, g.turn, -1)
    s.weather[0] = RAINY if trial % 3 == 0 else 0
    ships = np.flatnonzero(on & (t.utype == st.WARSHIP)).tolist()
    if ships and trial % 2:
        set_failed_communications(g, ships[::2])
    return g


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
