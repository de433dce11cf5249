"""Soundness of the per-process set-up memo (``setup._finish_setup``) against
bots written by users.

The memo replays the Hercules preparation (rules 3.0 c-e, 18.21) of an
earlier game when its key -- state, scenario, options, policies, hook -- is
equal.  A user's bot may base a set-up decision on something the key leaves
out (here the game index), so only engine code is replayed."""

from __future__ import annotations

import numpy as np

from malta_sim.games.island_of_death import setup as su
from malta_sim.games.island_of_death.engine import new_game
from malta_sim.games.island_of_death.sequence import HOOKS
from malta_sim.policies import register_policy
from malta_sim.policies.axis import AxisBot


class ZonesByIndex(AxisBot):
    """Balanced Axis bot whose beach zones (18.21) rotate with the game index
    (a deterministic choice that draws no random number)."""

    name = "zones_by_index"

    def hercules_beach_zones(self, game, divisions, zones):
        z = sorted(zones)
        k = game.game_index % len(z)
        return {d: z[(k + i) % len(z)] for i, d in enumerate(divisions)}


register_policy("test_zones_by_index", f"{__name__}:ZonesByIndex")


def _zones(game):
    return tuple(int(z) for z in game.state.division_zone[0, 4:6])


def test_user_bot_setup_not_replayed_across_games():
    """Rule 18.21: each game's beach zones are the bot's answer for that game,
    in one process (memo) as in a fresh one per game."""
    batch = [_zones(new_game("hercules", 3, g, axis_policy="test_zones_by_index",
                             allied_policy="static")) for g in range(4)]
    fresh = []
    for g in range(4):
        su.clear_setup_memo()
        fresh.append(_zones(new_game("hercules", 3, g, axis_policy="test_zones_by_index",
                                     allied_policy="static")))
    assert batch == fresh
    assert len(set(batch)) == 4


def test_engine_bots_still_replayed():
    """The preset bots' set-up stays memoised and equal to a fresh set-up."""
    su.clear_setup_memo()
    a = new_game("hercules", 3, 0, axis_policy="balanced", allied_policy="static")
    assert su._engine_only(a, HOOKS.get("setup"))
    assert len(su._SETUP_MEMO) == 1 and next(iter(su._SETUP_MEMO.values()))[2] is not None
    b = new_game("hercules", 3, 1, axis_policy="balanced", allied_policy="static")
    su.clear_setup_memo()
    c = new_game("hercules", 3, 1, axis_policy="balanced", allied_policy="static")
    for x, y in zip(b.state, c.state):
        assert np.array_equal(x, y)


def test_engine_only_rejects_user_code():
    """A preset bot with one method replaced by user code is not engine code."""
    g = new_game("hercules", 3, 0, axis_policy="balanced", allied_policy="static")
    hook = HOOKS.get("setup")
    assert su._engine_only(g, hook)
    g.policies[0].hercules_beach_zones = lambda game, divisions, zones: {}
    assert not su._engine_only(g, hook)
    del g.policies[0].hercules_beach_zones
    assert not su._engine_only(g, lambda game: None)
