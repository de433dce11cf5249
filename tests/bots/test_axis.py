"""The Axis preset's combat plan (:class:`malta_sim.bots.axis.AxisBot`): the order of its
bombardments (10.1) and the plan made from the attackers the plan options carry (9.2 a), on
random positions.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.bots import axis, make_policy
from malta_sim.iod.rules import combat
from malta_sim.iod.state import BOX_MAP

from tests.conftest import random_position
from tests.oracles import bots as bots_ref


@pytest.mark.parametrize("seed", [95, 96])
def test_bombard_order_equals_plain_on_random_positions(seed):
    """Rule 10.1: random sets of enemy hexes (held, empty, crowded) come out
    in the same order as sorting by ``len(game.units_at(h, enemy))``."""
    rng = np.random.default_rng(seed)
    reordered = 0
    for trial in range(6):
        g = random_position(rng, trial)
        s, t = g.state, g.static
        for enemy in (0, 1):
            held = np.unique(s.hex[(s.box == BOX_MAP) & (t.side == enemy)]).tolist()
            land = np.flatnonzero(t.land).tolist()
            for _ in range(10):
                hexes = sorted(set(rng.choice(held, min(len(held), 6)).tolist()
                                   + rng.choice(land, 2).tolist()))
                bombard = {int(h): [int(i)] for i, h in enumerate(hexes)}
                got = axis._bombard_order(g, enemy, bombard)
                assert got == bots_ref.bombard_order(g, enemy, bombard)
                reordered += [k for k, _ in got] != sorted(bombard)
    assert reordered > 10                    # orders other than the hexes' own


@pytest.mark.parametrize("preset", ["balanced", "aggressive"])
def test_plan_from_the_options_attackers_equals_plan_asking_attack_options(preset):
    """Rules 9.11-9.16, 9.2 a: the Axis preset's combat plan made from the
    attackers the step 9.2 a options carry equals the plan it makes when the
    options carry none and it asks :func:`combat.attack_options` itself, on
    random positions."""
    rng = np.random.default_rng(17)
    plans = supported = 0
    for trial in range(30):
        g = random_position(rng, trial)
        opts = combat.plan_options(g, 0)
        if not opts.attack_targets:
            continue
        bot = make_policy(preset, 0)
        mine = bot.combat_plan(g, opts)
        opts.attackers = None
        asked = make_policy(preset, 0).combat_plan(g, opts)
        for f in ("support", "air", "bombard"):
            assert list(getattr(mine, f).items()) == list(getattr(asked, f).items()), f
        assert mine.hurricane == asked.hurricane
        plans += 1
        supported += bool(mine.support)
    assert plans > 10 and supported > 0, (plans, supported)
