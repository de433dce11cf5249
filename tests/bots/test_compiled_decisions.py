"""The preset bots' compiled decisions against their plain references.

The preset bots score attacks, plan support and walk their units in compiled
kernels (:mod:`malta_sim.bots.forecast`, :mod:`malta_sim.bots.move_choice`).
:mod:`oracles.bots` states the same decisions as plain Python loops over the
engine's queries.  Played on the same seeds, a preset and its plain twin
must play the same game: the same result row and the same event log, entry
for entry (every move, attack, support and die roll).
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.oracles.bots import plain_preset

from malta_sim.iod import sequence
from malta_sim.bots import make_policy
from malta_sim.iod.engine import setup_game


def _play(scenario, axis, allied, seed, g, plain_side=None, params=None):
    params = params or {}
    pols = [make_policy(axis, 0, params.get("axis")), make_policy(allied, 1, params.get("allied"))]
    if plain_side is not None:
        name = (axis, allied)[plain_side]
        pols[plain_side] = plain_preset(name, plain_side, params.get(("axis", "allied")[plain_side]))
    game = setup_game(scenario, seed, g, tuple(pols), event_log=True)
    sequence.play_game(game)
    return [dict(r) for r in game.events.rows]


CASES = [
    ("hercules", "balanced", "static", 0, 7, 2),
    ("hercules", "aggressive", "counterattack", 0, 11, 2),
    ("intro", "cautious", "counterattack", 0, 3, 2),
    ("intro", "solitaire", "static", 0, 5, 1),
    ("hercules", "random", "static", 1, 7, 2),
    ("hercules", "balanced", "counterattack", 1, 13, 2),
    ("intro", "aggressive", "counterattack", 1, 17, 2),
    ("hercules", "balanced", "active", 1, 19, 3),
]


@pytest.mark.parametrize("scenario,axis,allied,side,seed,n", CASES)
def test_preset_plays_as_its_plain_reference(scenario, axis, allied, side, seed, n):
    """The same event log, entry for entry, with the compiled decisions of
    one side's preset or their plain references; the logs hold the moves,
    attacks and (for the Axis) the bombardments those decisions made."""
    seen = Counter()
    for g in range(n):
        fast = _play(scenario, axis, allied, seed, g)
        plain = _play(scenario, axis, allied, seed, g, plain_side=side)
        assert len(fast) == len(plain), f"game {g}: {len(fast)} events against {len(plain)}"
        for i, (a, b) in enumerate(zip(fast, plain)):
            assert a == b, f"game {g}, event {i}: {a} != {b}"
        seen.update(r["action"] for r in fast if r["side"] == ("axis", "allied")[side])
    assert seen["tactical move"] > 0 and seen["attack"] > 0, dict(seen)


def test_plain_reference_with_parameter_vector():
    params = {"axis": {"min_odds": 1, "risk_weight": 0.2, "bombard": 0, "breakdown": 1}}
    fast = _play("hercules", "balanced", "counterattack", 23, 0, params=params)
    plain = _play("hercules", "balanced", "counterattack", 23, 0, plain_side=0, params=params)
    assert fast == plain


def test_active_reserve_walks_move_units(monkeypatch):
    """The games of the ``allied:active`` case above exercise both compiled
    reserve walks (closing on weak stacks and reinforcing threatened
    objectives, rules 6.1-6.6): their plain references move units there."""
    from tests.oracles import bots as oracle

    moved = Counter()
    for name in ("move_reserve", "reinforce"):
        ref = getattr(oracle, name)

        def counted(bot, game, mode, cands, ref=ref, name=name):
            mv = ref(bot, game, mode, cands)
            moved[name] += mv is not None
            return mv
        monkeypatch.setattr(oracle, name, counted)
    for g in range(3):
        _play("hercules", "balanced", "active", 19, g, plain_side=1)
    assert moved["move_reserve"] > 0 and moved["reinforce"] > 0, dict(moved)
