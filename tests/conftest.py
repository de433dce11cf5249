"""Shared helpers of the Island of Death tests: constructed and random positions.

The tests import these plain functions with ``from tests.conftest import ...``:

* :func:`static` -- the packaged static data (loaded once);
* :func:`make` -- a constructed position (:func:`malta_sim.iod.setup.constructed_game`)
  from ``{hex id: [unit names]}``;
* :func:`u`, :func:`h` -- a unit's index from its name, a hex's index from its id;
* :class:`Scripted` -- a random bot with fixed answers for the decisions a test pins;
* :class:`Recorder` -- a random bot that records the options it is offered;
* :func:`random_position` -- a constructed game with random pieces and per-piece state;
* :func:`random_hex_patch` -- a square patch of hex grid with random masks and costs;
* :func:`airfield_entry_spy` -- a game made ready for airfield entries (16.1) with a
  bot that records the candidates it is offered;
* :func:`failed_communications`, :func:`set_failed_communications`,
  :func:`set_strategic_hexes`, :func:`set_phase_start_zoc`, :func:`phase_start_zoc`,
  :func:`last_move_predecessors`
  -- the per-phase records the engine keeps for a game (warships whose communications
  failed, 16.73; hexes open to strategic movement, 6.2; the enemy ZOC at the start of
  the movement phase, 6.41; the reach search of the last legal-move query), read and
  written in this one place;
* :func:`hercules_game`, :func:`hex_index`, :func:`clear_allied`, :func:`landing_zone_game`
  -- Operation Hercules games set up for the invasion rules;
* :data:`ALPHA`, :data:`N_DRAWS`, :func:`kernel_stream`, :func:`binom_ok` -- the
  statistical tests of the dice kernels: each draws ``N_DRAWS`` times from a fixed
  stream and compares with the exact probability at significance ``ALPHA`` (so a
  correct kernel fails one such test for 1 seed in 10,000: false-alarm rate 1e-4).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.stats import binomtest

from malta_sim.bots.random import RandomPolicy
from malta_sim.iod import static as st
from malta_sim.iod.setup import constructed_game
from malta_sim.iod.static import load_static
from malta_sim.iod.state import ALLIED, AXIS, BOX_CUP, BOX_ELIMINATED, BOX_MAP, RAINY
from malta_sim.rng import numba_state

#: significance of each statistical test of a dice kernel (false-alarm rate)
ALPHA = 1e-4
#: draws per statistical test
N_DRAWS = 20_000


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


def example_9_9(stand=False):
    """The position of the rule 9.9 combat example (``stand``: the British bot
    tries to stand its ground, 9.7): three 186th Regiment 6-7-6 paratroop battalions and the
    1-8 tank company attack two British 6-6 battalions on clear terrain by day,
    with two 5-2 artillery battalions against the British 9-3 artillery."""
    g = make({
        "1311": ["allied.uk.8m", "allied.uk.2rwk"],
        "1210": ["axis.185.v_186", "axis.un.tank_10"],
        "1310": ["axis.185.vi_186"],
        "1211": ["axis.185.vii_186"],
        "1209": ["axis.185.art_1", "axis.185.art_2"],
        "1412": ["allied.uk.art_12"],
    }, policies=(Scripted(AXIS), Scripted(ALLIED, stand=stand)))
    att = [u("axis.185.v_186"), u("axis.un.tank_10"), u("axis.185.vi_186"), u("axis.185.vii_186")]
    sup = [u("axis.185.art_1"), u("axis.185.art_2")]
    return g, att, sup


def u(name):
    """The index of the unit called ``name`` in the packaged data."""
    return static().unit(name)


def h(hex_id):
    """The dense index of hex ``hex_id`` (``"XXYY"``)."""
    return static().grid.index(hex_id)


def failed_communications(game) -> set | None:
    """The warships whose communications failed this turn (rule 16.73), or None."""
    from malta_sim.iod.rules.combat import failed_communications as failed
    return failed(game)


def set_failed_communications(game, ships) -> None:
    """Record ``ships`` as the warships whose communications failed this turn (16.73)."""
    s = game.state
    s.comm_failed_turn[:] = np.where(s.comm_failed_turn == s.turn[0], -1, s.comm_failed_turn)
    for u in ships:
        s.comm_failed_turn[u] = s.turn[0]


def set_strategic_hexes(game, side: int, allowed) -> None:
    """Record ``allowed`` (bool[n_hexes]) as the hexes ``side`` may enter by
    strategic movement this phase (rule 6.2)."""
    game.state.strategic_allowed[0, side] = allowed


def set_phase_start_zoc(game, zoc) -> None:
    """Record ``zoc`` (bool[n_hexes]) as the enemy ZOC at the start of the
    movement phase (rule 6.41, infiltration)."""
    game.state.zoc_at_phase_start[:] = zoc


def phase_start_zoc(game):
    """The enemy ZOC recorded at the start of the last movement phase (rule
    6.41; bool[n_hexes])."""
    return game.state.zoc_at_phase_start


def last_move_predecessors(game):
    """The predecessor of each hex in the reach search of the last
    :func:`movement.legal_moves` query (int[n_hexes], -1 where none)."""
    return game.cache["last_pred"][3]


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


def kernel_stream(tag: int = 0):
    """A fixed generator state for the compiled dice kernels (seed 20260629,
    stream ``tag``)."""
    return numba_state(20260629, tag, "misc")


def binom_ok(k, n, p) -> bool:
    """True when ``k`` successes in ``n`` draws pass a two-sided binomial test
    of probability ``p`` at significance :data:`ALPHA`."""
    return binomtest(int(k), int(n), float(p)).pvalue > ALPHA


def hercules_game(seed=3, idx=0, axis="random", allied="random", options=(), check=False):
    """An Operation Hercules game after its set-up (rule 22.3), event log on."""
    from malta_sim import play

    return play.new_game("hercules", seed, idx, axis_policy=axis, allied_policy=allied,
                         options=options, check=check, event_log=True)


def hex_index(game, hex_id) -> int:
    """The dense index of hex ``hex_id`` in ``game``'s grid."""
    return game.static.grid.index(hex_id)


def clear_allied(game) -> None:
    """Take every Allied piece off the map, and the militia out of the cup."""
    s = game.state
    for x in game.on_map(ALLIED):
        s.box[x], s.hex[x] = 9, -1
    s.box[s.box == BOX_CUP] = 9          # and no militia uprisings


def landing_zone_game():
    """A Hercules game with the Follow-up boxes placed (18.22): ``(game, zone,
    beach hexes)`` of the 4th Division's zone."""
    from malta_sim.iod import invasion as H
    from malta_sim.iod.rules import amphibious

    g = hercules_game()
    amphibious.place_follow_up_boxes(g)
    z = int(g.state.division_zone[0, 4])
    beaches = [int(b) for b in H.inv_static(g).zone_beaches[z]]
    return g, z, beaches


def random_hex_patch(rng, n_side=9):
    """A square patch of ``n_side`` x ``n_side`` hexes: ``(neighbours
    int32[n, 6], distances int16[n, n], hexside costs int32[4, n, 6] (198:
    impassable), zoc, blocked, stop, allowed bool[n], ocean sides bool[n, 6])``
    with random costs and masks drawn from ``rng``."""
    n = n_side * n_side
    q = np.arange(n) % n_side
    r = np.arange(n) // n_side
    dirs = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
    nbr = np.full((n, 6), -1, np.int32)
    for x in range(n):
        for d, (dq, dr) in enumerate(dirs):
            qq, rr = q[x] + dq, r[x] + dr
            if 0 <= qq < n_side and 0 <= rr < n_side:
                nbr[x, d] = rr * n_side + qq
    dq = q[:, None] - q[None, :]
    dr = r[:, None] - r[None, :]
    dist = ((np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2).astype(np.int16)
    edge = rng.integers(1, 7, size=(4, n, 6)).astype(np.int32)
    edge[rng.random((4, n, 6)) < 0.05] = 198
    return (nbr, dist, edge, rng.random(n) < 0.15, rng.random(n) < 0.05, rng.random(n) < 0.05,
            rng.random(n) > 0.05, rng.random((n, 6)) < 0.05)


def perturb_walk_inputs(game, candidates, rng, move_axis: bool = False) -> None:
    """Change, at random, something a bot's move walk reads and executing a
    move never changes: a candidate's supply, morale or entry turn, a hex's
    control, or (``move_axis``) an Axis ground piece's hex.  For tests that
    a walk made ahead is dropped when the game is not where it assumed."""
    from malta_sim.iod.state import DEMORALIZED

    s, t = game.state, game.static
    k = rng.integers(0, 6)
    cands = [x for x in candidates if not s.moved[x]]
    if k == 0 and cands:
        s.out_of_supply[rng.choice(cands)] ^= True
    elif k == 1 and cands:
        s.morale_state[rng.choice(cands)] = DEMORALIZED
    elif k == 2 and cands:
        s.entered_turn[rng.choice(cands)] = game.turn
    elif k == 3:
        x = int(rng.choice(np.flatnonzero(t.land)))
        s.control[x] = 1 - s.control[x] if s.control[x] >= 0 else 1
    elif k == 4 and move_axis:
        axis = [int(x) for x in game.on_map(0) if game.is_ground(int(x))]
        if axis:
            s.hex[rng.choice(axis)] = int(rng.choice(np.flatnonzero(t.land)))
