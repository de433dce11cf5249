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


# --- wrapper bots and a bot's own unchecked answers (engine_method) ---------

CALLS = {"next_attack": 0, "next_move": 0, "attack_now": 0}


class _Wrapper:
    """A user's bot that wraps a preset and changes one decision; every other
    attribute is the inner bot's (policies are duck-typed)."""

    inner_name = "balanced"

    def __init__(self, side, params=None):
        from malta_sim.policies import make_policy
        self.inner = make_policy(self.inner_name if side == 0 else "counterattack", side, params)

    def __getattr__(self, name):
        return getattr(self.inner, name)


class NoAttackWrapper(_Wrapper):
    def next_attack(self, game, options, penetration=False):
        CALLS["next_attack"] += 1
        return None


class NoMoveWrapper(_Wrapper):
    def next_move(self, game, mode, candidates):
        CALLS["next_move"] += 1
        return None


class NoAttackSub(AxisBot):
    def next_attack(self, game, options, penetration=False):
        return None


class NoMoveSub(AxisBot):
    def next_move(self, game, mode, candidates):
        return None


class OwnAttackNow(AxisBot):
    """Answers ``attack_now`` with an attack on the farthest Allied hex: not
    an option (9.3); the engine must not take it unchecked."""

    def attack_now(self, game):
        CALLS["attack_now"] += 1
        s, t = game.state, game.static
        ax = np.flatnonzero((s.box == 0) & (t.side == 0))
        al = np.flatnonzero((s.box == 0) & (t.side == 1))
        d = t.grid.distance_table
        return int(max(s.hex[al], key=lambda h: d[s.hex[ax[0]], h])), [int(ax[0])]


for _name, _cls in (("t_wrap_noattack", NoAttackWrapper), ("t_wrap_nomove", NoMoveWrapper),
                    ("t_sub_noattack", NoAttackSub), ("t_sub_nomove", NoMoveSub),
                    ("t_own_attack_now", OwnAttackNow)):
    register_policy(_name, f"{__name__}:{_cls.__name__}")


@pytest.mark.parametrize("wrapper,subclass,counted", [
    ("t_wrap_noattack", "t_sub_noattack", "next_attack"),
    ("t_wrap_nomove", "t_sub_nomove", "next_move"),
])
def test_wrapper_bot_is_asked_its_own_decisions(wrapper, subclass, counted):
    """A wrapper's own ``next_attack``/``next_move`` is asked every time: the
    engine does not take the inner bot's compiled ``attack_now`` or
    ``planned_move`` reached through the wrapper; its games equal those of a
    subclass making the same change."""
    from malta_sim.policies.base import engine_method
    from malta_sim.policies import make_policy

    bot = make_policy(wrapper, 0)
    assert engine_method(bot, "attack_now", axis_mod._ParamBot.attack_now) is None
    assert engine_method(bot, "planned_move", AxisBot.planned_move) is None
    assert engine_method(bot.inner, "planned_move", AxisBot.planned_move) is not None
    CALLS[counted] = 0
    assert _digest(wrapper, "static") == _digest(subclass, "static")
    assert CALLS[counted] > 20
    assert _digest(wrapper, "static") != _digest("balanced", "static")


def test_own_attack_now_is_not_trusted():
    """A bot's own ``attack_now`` is never carried out unchecked (rule 9.3):
    the engine asks ``attack_options`` and ``next_attack`` instead, so the
    games equal the unmodified bot's."""
    CALLS["attack_now"] = 0
    assert _digest("t_own_attack_now", "static") == _digest("balanced", "static")
    assert CALLS["attack_now"] == 0
