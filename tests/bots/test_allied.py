"""The Allied preset's decisions against plain references: defensive support (9.2 b,
16.74) on random positions and the compiled move choice (6.1-6.6, 9.1, 17.7, 20.0) on
every call of whole games.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from malta_sim.bots import make_policy
from malta_sim.iod import sequence, static as st
from malta_sim.iod.engine import setup_game
from malta_sim.iod.rules import combat

from tests.conftest import perturb_walk_inputs, random_position
from tests.oracles import bots as bots_ref


def _ref_defensive_support(bot, game, options):
    """The Allied bot's defensive support as written before (one unit query
    per neighbour for the threat of each hex)."""
    t = game.static
    out, used = {}, set()

    def threat(h):
        return sum(len(game.units_at(int(o), 1 - bot.side)) for o in t.neighbours[h] if o >= 0)
    for h in sorted(options, key=lambda x: (-threat(x), x)):
        free = [u for u in options[h] if u not in used]
        arty = sorted((u for u in free if t.utype[u] != st.WARSHIP),
                      key=lambda u: (-int(t.def_support[u]), u))
        pick = arty if arty else [u for u in free if t.utype[u] == st.WARSHIP][:2]
        if pick:
            out[h] = pick
            used.update(pick)
    return out


@pytest.mark.parametrize("seed", [11, 12])
def test_allied_defensive_support_equals_unit_query_version(seed):
    """The Allied bot's defensive support (9.2 b, 16.74), with the threat of
    each hex from one count per hex, equals the version with one unit query
    per neighbour (same hexes, guns and order) on random positions."""
    from malta_sim.bots.allied import AlliedBot

    rng = np.random.default_rng(seed)
    n = 0
    for trial in range(25):
        g = random_position(rng, trial)
        t = g.static
        bot = AlliedBot(1, {})
        hexes = rng.permutation(np.flatnonzero(t.land))[:80].tolist()
        opts = combat.defensive_options(g, 1, hexes)
        want = _ref_defensive_support(bot, g, opts)
        got = bot.defensive_support(g, opts)
        assert got == want and list(got) == list(want)
        n += len(got)
    assert n > 0


@pytest.mark.parametrize("seed", [3, 4])
def test_holders_per_hex_equal_a_count_over_the_pieces(seed):
    """The Allied bot's holders per hex (the hexes a lone ``beaches`` holder
    keeps, 20.0) equal a plain count over its pieces: on the map, of a type
    that may hold a hex, with a positive defense strength at their level."""
    from malta_sim.bots.allied import _NOT_HOLDERS, AlliedBot

    rng = np.random.default_rng(seed)
    for trial in range(10):
        g = random_position(rng, trial)
        t, s = g.static, g.state
        want = np.zeros(t.n_hexes + 1, np.int64)
        for u in range(len(t.utype)):
            if (t.side[u] == 1 and g.is_ground(u) and t.utype[u] not in _NOT_HOLDERS and s.box[u] == 0
                    and t.defense[u, s.level[u]] > 0):
                want[s.hex[u]] += 1
        got = AlliedBot(1, {})._holders(g)
        assert want.sum() > 0
        np.testing.assert_array_equal(got, want)


def _tried_as_sets(bot, game) -> tuple:
    """The compiled bot's record of the units tried this phase, written as
    the plain reference keeps it: ``(skip, tried_pairs)`` (see
    :func:`tests.oracles.bots.next_move_allied`)."""
    from malta_sim.bots.allied import _key_index

    tried, tried_goal = bot._tried_tables(game)
    tags = (lambda u: ("b", u), lambda u: u, lambda u: ("r", u), lambda u: ("g", u), lambda u: ("t", u))
    skip = {tag(int(u)) for row, tag in enumerate(tags) for u in np.flatnonzero(tried[row])}
    col = _key_index(game.static)
    hexes = np.flatnonzero(col >= 0)
    pairs = {(int(u), int(hexes[c])) for u, c in zip(*np.nonzero(tried_goal))}
    assert all(col[h] == c for c, h in enumerate(hexes))
    return skip, pairs


class _CheckedNextMove:
    """The Allied preset with its compiled move choice compared, on every
    call, with the plain loops (:func:`tests.oracles.bots.next_move_allied`:
    one :meth:`Game.legal_moves` query per candidate) asked first from the
    same bot state: the same move, and the same units tried for each kind of
    move (and, shore-up, for each hex).  ``seen["walk"]`` counts the
    decisions handed out from a walk the compiled kernel made ahead
    (:class:`malta_sim.bots.move_choice.AlliedWalk`)."""

    seen: Counter = Counter()
    perturb = None
    rng = np.random.default_rng(3)

    def next_move(self, game, mode, candidates):
        if self.perturb is not None:
            type(self).perturb(game, candidates, self.rng)
        self._phase_reset(game, mode)
        want = bots_ref.next_move_allied(self, game, mode, list(candidates))
        walk = self._walk
        rows, r = walk.rows, getattr(walk, "r", None)
        got = super().next_move(game, mode, candidates)
        assert got == want
        assert _tried_as_sets(self, game) == (self._skip, self._tried_pairs)
        self.seen["calls"] += 1
        self.seen["moves"] += got is not None
        if rows is not None and ((walk.rows is rows and walk.r == r + 1)
                                 or (walk.rows is None and r + 1 == len(rows[0]))):
            self.seen["walk"] += 1
        return got


@pytest.mark.parametrize("scen,ax,al,n", [
    ("hercules", "balanced", "static", 3), ("hercules", "balanced", "counterattack", 3),
    ("intro", "balanced", "static", 2), ("hercules", "tuned", "active", 5),
    ("hercules", "balanced", "active", 3), ("intro", "tuned", "active", 2)])
def test_allied_move_choice_equals_plain_through_games(scen, ax, al, n, monkeypatch):
    """Rules 6.1-6.6, 9.1, 17.7, 20.0: the compiled move choice of the
    Allied presets (beach, shore-up, reserve, reinforcement and garrison
    moves) gives the plain loops' move and tries the same units on every
    call of whole games (turns 0 and 1 of Operation Hercules, under rule
    17.7, included); the games of ``active`` in Operation Hercules make
    moves of every kind."""
    seen = _CheckedNextMove.seen = Counter()
    for name in ("beach_move", "shore_up", "move_reserve", "reinforce", "garrison_move"):
        ref = getattr(bots_ref, name)

        def counted(*a, ref=ref, name=name):
            mv = ref(*a)
            seen[name] += mv is not None
            return mv
        monkeypatch.setattr(bots_ref, name, counted)
    for g in range(n):
        pols = (make_policy(ax, 0), bots_ref.preset_with(al, 1, _CheckedNextMove))
        sequence.play_game(setup_game(scen, 5, g, pols))
    assert seen["calls"] > 10 and seen["moves"] > 2, dict(seen)
    if scen == "hercules" and al == "active":
        assert all(seen[k] > 0 for k in ("beach_move", "shore_up", "move_reserve", "reinforce",
                                         "garrison_move")), dict(seen)
        # most decisions after a phase's first come from the walk made ahead
        assert seen["walk"] > seen["moves"] / 2, dict(seen)


def _perturb_allied(game, candidates, rng):
    """Change, at random, something the Allied walk reads and executing a
    move never changes: a candidate's supply, morale or entry turn, a hex's
    control, an Axis piece's hex (the bot's views of the Axis)."""
    perturb_walk_inputs(game, candidates, rng, move_axis=True)


def test_allied_walk_dropped_when_the_game_changed():
    """A walk of the Allied move choice whose assumed position no longer
    holds (supply, morale, entry turn, control or an Axis piece's hex
    changed between calls by a bot that does so on purpose) is not used:
    every answer still equals the plain loops' on the changed position."""
    seen = _CheckedNextMove.seen = Counter()
    _CheckedNextMove.perturb = _perturb_allied
    _CheckedNextMove.rng = np.random.default_rng(3)
    try:
        for g in range(2):
            pols = (make_policy("tuned", 0), bots_ref.preset_with("active", 1, _CheckedNextMove))
            sequence.play_game(setup_game("hercules", 5, g, pols))
    finally:
        _CheckedNextMove.perturb = None
    assert seen["moves"] > 10 and seen["walk"] > 0, dict(seen)


def test_vacate_table_equals_exact_combat_distribution():
    """The Allied bot's chance of emptying or wiping out the defender's hex
    (rules 9.4, 9.42, 9.43, 9.94) equals the sum over the exact result cells of
    :func:`malta_sim.exact.combat.cell_probabilities`, for every CRT line,
    column, fort flag and defending step count up to four."""
    from fractions import Fraction

    from malta_sim.bots.allied import vacate_table
    from malta_sim.exact.combat import cell_probabilities
    from malta_sim.kernels.crt import combat_column, split_hits
    from tests.conftest import static

    ch = static().charts
    vac = vacate_table(ch, 6)
    n = 0
    for line in range(ch.crt.shape[0]):
        for att, dfn in ((1, 4), (1, 2), (2, 2), (4, 2), (6, 2), (8, 2), (10, 2), (14, 2), (30, 2)):
            col = combat_column(att, dfn, 0, line, ch.line_cols, ch.col_level)
            if col < 0:
                continue
            for fort in (False, True):
                cells = cell_probabilities(att, dfn, 0, line, fort, ch)
                for ds in range(1, 5):
                    gone = wiped = Fraction(0)
                    for (_ah, _ae, dh, _de), p in cells.items():
                        steps, ret = split_hits(dh, True)
                        wiped += p if steps >= ds else 0
                        gone += p if steps >= ds or ret > 0 else 0
                    assert vac[line, col, int(fort), ds, 0] == pytest.approx(float(gone), abs=1e-12)
                    assert vac[line, col, int(fort), ds, 1] == pytest.approx(float(wiped), abs=1e-12)
                    n += 1
    assert n > 50
