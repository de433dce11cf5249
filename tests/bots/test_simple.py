"""The land bots' simple decisions (:mod:`malta_sim.bots.simple`) against plain references:
the advance after combat (9.8, 9.83, 7.1), defensive support (9.2 b) and the step to lose
(9.4, 20.0), on random positions and through whole games.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from malta_sim.bots import simple
from malta_sim.iod import sequence, static as st
from malta_sim.iod.engine import setup_game
from malta_sim.iod.rules import combat
from malta_sim.iod.state import BOX_MAP

from tests.conftest import random_position
from tests.oracles import bots as bots_ref


@pytest.mark.parametrize("seed", [41, 42])
def test_choose_advance_equals_plain_on_random_positions(seed):
    """The compiled advance choice (9.8, 9.83, 7.1) equals the plain greedy
    fit on random positions, random candidate groups (in random order) and
    random target hexes, including crowded and empty targets."""
    rng = np.random.default_rng(seed)
    bot = simple.BalancedPolicy(0)
    seen_partial = seen_all = 0
    for trial in range(12):
        g = random_position(rng, trial)
        s, t = g.state, g.static
        land = np.flatnonzero(t.land)
        for side in (0, 1):
            own = np.flatnonzero((s.box == BOX_MAP) & (t.side == side)).tolist()
            if not own:
                continue
            for k in range(15):
                n = int(rng.integers(1, min(len(own), 9) + 1))
                units = [int(x) for x in rng.choice(own, n, replace=False)]
                if k % 3 == 0:                 # a hex the side already holds
                    target = int(s.hex[own[int(rng.integers(len(own)))]])
                else:
                    target = int(rng.choice(land))
                got = bot.choose_advance(g, units, target, 1)
                want = bots_ref.choose_advance(g, units, target)
                assert got == want and all(type(x) is int for x in got)
                seen_partial += 0 < len(got) < len(units)
                seen_all += len(got) == len(units)
    assert seen_partial and seen_all
    assert simple.BalancedPolicy(0).choose_advance(g, [], 0, 1) == []


def _defensive_support_reference(bot, game, options):
    """Rule 9.2 b, plainly: the threat of a hex counted by asking each of its
    neighbours for enemy pieces; the most threatened hexes first, each with
    up to two free artillery units, else up to two of the firers offered."""
    out, used = {}, set()
    t = game.static

    def threat(hh):
        return sum(1 for o in t.neighbours[hh] if o >= 0 and len(game.units_at(int(o), 1 - bot.side)))
    for hh in sorted(options, key=threat, reverse=True):
        free = [x for x in options[hh] if x not in used]
        arty = [x for x in free if game.is_artillery(x)]
        pick = arty[:2] if arty else free[:2]
        if pick:
            out[hh] = pick
            used.update(pick)
    return out


@pytest.mark.parametrize("seed", [13, 14])
def test_defensive_support_equals_reference_on_random_positions(seed):
    """Rule 9.2 b: the land bots' defensive support, the threat of a hex
    counted from one set of enemy-held hexes, equals the per-neighbour count
    (same hexes, same guns, same order) for both sides on random positions."""
    rng = np.random.default_rng(seed)
    n = 0
    for trial in range(25):
        g = random_position(rng, trial)
        hexes = rng.permutation(np.flatnonzero(g.static.land))[:80].tolist()
        for side in (0, 1):
            bot = simple.BalancedPolicy(side)
            opts = combat.defensive_options(g, side, hexes)
            got = bot.defensive_support(g, opts)
            want = _defensive_support_reference(bot, g, opts)
            assert list(got.items()) == list(want.items())
            n += len(got)
    assert n > 20


@pytest.mark.parametrize("seed", [15, 16])
def test_choose_loss_equals_array_reads_on_random_positions(seed):
    """Rules 9.4, 20.0-20.2: the step the land bots lose, read from the
    per-unit lists, is the one the static arrays give (no HQ while another
    unit can take it, fewest victory steps, weakest, lowest index), on random
    stacks at random levels."""
    rng = np.random.default_rng(seed)
    hq_spared = 0
    for trial in range(25):
        g = random_position(rng, trial)
        t, s = g.static, g.state
        for side in (0, 1):
            bot = simple.BalancedPolicy(side)
            own = np.flatnonzero((s.box == BOX_MAP) & (t.side == side)).tolist()
            hqs = np.flatnonzero((t.side == side) & (t.utype == st.HQ)).tolist()
            for _ in range(10):
                units = [int(x) for x in rng.choice(own, min(len(own), int(rng.integers(1, 6))), replace=False)]
                if hqs and rng.random() < 0.3:
                    units.append(int(rng.choice(hqs)))
                got = bot.choose_loss(g, units, "combat")
                want = min(units, key=lambda x: (int(t.utype[x] == st.HQ), int(t.step_weight[x]),
                                                 int(t.attack[x, s.level[x]]) + int(t.defense[x, s.level[x]]), x))
                assert got == want
                hq_spared += any(t.utype[x] == st.HQ for x in units) and len(units) > 1
    assert hq_spared > 0


class _CheckedAdvance:
    """A preset whose advance after combat (9.8, 9.83) is compared with the
    plain greedy fit (:func:`tests.oracles.bots.choose_advance`) on every call."""

    seen: Counter = Counter()

    def choose_advance(self, game, units, target, length):
        got = super().choose_advance(game, units, target, length)
        assert got == bots_ref.choose_advance(game, units, target)
        self.seen["calls"] += 1
        self.seen["advanced"] += len(got)
        return got


@pytest.mark.parametrize("scenario,axis,allied,seed,n", [
    ("hercules", "balanced", "static", 1942, 2),
    ("intro", "balanced", "static", 1942, 2),
    ("intro", "aggressive", "counterattack", 4, 1),
])
def test_advance_choices_equal_plain_through_games(scenario, axis, allied, seed, n):
    """Every advance after combat chosen by the presets of both sides in
    whole games equals the plain greedy fit."""
    seen = _CheckedAdvance.seen = Counter()
    for g in range(n):
        pols = (bots_ref.preset_with(axis, 0, _CheckedAdvance), bots_ref.preset_with(allied, 1, _CheckedAdvance))
        sequence.play_game(setup_game(scenario, seed, g, pols))
    assert seen["calls"] > 0 and seen["advanced"] > 0, dict(seen)
