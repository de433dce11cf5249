"""A user's replacement of a bot method is honoured by the compiled paths.

The compiled decision paths (:mod:`malta_sim.policies.forecast`,
:mod:`malta_sim.policies.move_choice`) stand in for groups of plain methods;
a bot that replaces one of them -- in a subclass, or on the object itself --
must be played through its plain path, which calls the replacement.  Each bot
here is played twice: as is, and with every compiled path switched off; the
games must be identical, and differ from the unmodified bot's.
"""
import hashlib

import numpy as np
import pandas as pd
import pytest

from malta_sim.games.island_of_death.engine import play_games
from malta_sim.policies import allied as allied_mod
from malta_sim.policies import axis as axis_mod
from malta_sim.policies import register_policy
from malta_sim.policies.allied import AlliedBot
from malta_sim.policies.axis import AxisBot

GAMES = np.arange(6)


class SetupBot(AxisBot):
    """Replaces the private ``_move_setup`` in a subclass: airfields only."""

    def _move_setup(self, game):
        obj, gh, ehex, ehex64, envelop, goals = super()._move_setup(game)
        obj = np.where(game.static.airfield, obj, 0.0)
        return (obj, np.flatnonzero(obj > 0), ehex, ehex64, envelop, {})


class InstanceScoreBot(AxisBot):
    """Replaces ``_score_target`` on the object: attacks only with gain > 1."""

    def __init__(self, side, params=None):
        super().__init__(side, params)
        orig = self._score_target

        def score(*a, **k):
            r = orig(*a, **k)
            return r if r is None else (r[0] and r[1] > 1.0, r[1], r[2], r[3])
        self._score_target = score


class InstanceObjectiveBot(AxisBot):
    """Replaces ``objective_values`` on the object: airfields only."""

    def __init__(self, side, params=None):
        super().__init__(side, params)
        orig = self.objective_values
        self.objective_values = lambda game: np.where(game.static.airfield, orig(game), 0.0)


class InstanceGarrisonBot(AlliedBot):
    """Replaces ``garrison_values`` on the object: no objective worth holding."""

    def __init__(self, side, params=None):
        super().__init__(side, params)
        orig = self.garrison_values
        self.garrison_values = lambda game: np.zeros_like(orig(game))


for _name, _cls in (("t_setup", SetupBot), ("t_inst_score", InstanceScoreBot),
                    ("t_inst_obj", InstanceObjectiveBot), ("t_inst_garrison", InstanceGarrisonBot)):
    register_policy(_name, f"{__name__}:{_cls.__name__}")


def _digest(axis, allied):
    r = play_games("hercules", 31, GAMES, axis_policy=axis, allied_policy=allied, event_log=True)
    return hashlib.sha1(pd.util.hash_pandas_object(r.events, index=False).values.tobytes()).hexdigest()


@pytest.mark.parametrize("axis,allied,plain", [
    ("t_setup", "static", ("balanced", "static")),
    ("t_inst_score", "static", ("balanced", "static")),
    ("t_inst_obj", "static", ("balanced", "static")),
    ("balanced", "t_inst_garrison", ("balanced", "static")),
])
def test_replaced_method_is_called(monkeypatch, axis, allied, plain):
    as_is = _digest(axis, allied)
    monkeypatch.setattr(axis_mod, "own_methods", lambda *a: False)
    monkeypatch.setattr(allied_mod, "own_methods", lambda *a: False)
    assert _digest(axis, allied) == as_is            # compiled = plain path
    monkeypatch.undo()
    assert _digest(*plain) != as_is                   # the replacement mattered


@pytest.mark.parametrize("name", ["balanced", "aggressive", "cautious", "solitaire"])
def test_axis_presets_take_the_compiled_paths(name):
    """The presets replace no method, so the compiled scoring and move choice
    answer for them (a static method such as ``_anchor_hex`` counts as
    unreplaced)."""
    from malta_sim.policies import make_policy
    from malta_sim.policies.base import own_methods
    bot = make_policy(name, 0)
    assert bot._compiled_scores()
    assert own_methods(bot, axis_mod._MOVED_BY_KERNEL)
    assert own_methods(bot, axis_mod._OBJECTIVES_PLAIN)
    bot._anchor_hex = lambda game, u: -1            # replaced on the object
    assert not own_methods(bot, axis_mod._MOVED_BY_KERNEL)


@pytest.mark.parametrize("name", ["static", "counterattack"])
def test_allied_presets_take_the_compiled_paths(name):
    from malta_sim.policies import make_policy
    from malta_sim.policies.base import own_methods
    bot = make_policy(name, 1)
    assert bot._compiled_scores()
    assert own_methods(bot, allied_mod._GARRISON_BY_KERNEL)
