"""The fourth round's compiled combat-planning steps give the answers of the
plain paths: the attack loop's options and pick in one call
(:meth:`malta_sim.bots.axis._ParamBot.attack_now`), on every call through
whole games and on random positions."""

import pytest

from malta_sim.iod.rules import combat as C
from malta_sim.play import play_games
from malta_sim.bots import axis as AX


def _plain_pick(bot, game):
    """The attack the bot makes asked the plain way: the engine's
    :func:`combat.attack_options`, then ``next_attack`` with the plain Python
    scoring (``_compiled_scores`` off)."""
    options = C.attack_options(game, bot.side)
    if not options:
        return None, None
    fast = bot.next_attack(game, options)
    cls = type(bot)
    cls._compiled_scores = lambda _self: False
    try:
        plain = bot.next_attack(game, options)
    finally:
        del cls._compiled_scores
    assert fast == plain
    return options, plain




@pytest.mark.parametrize("scenario,axis,allied,seed,games", [
    ("hercules", "axis:balanced", "allied:static", 1942, [0, 1]),
    ("intro", "axis:aggressive", "allied:counterattack", 3, [0]),
])
def test_plan_options_attackers_equal_attack_options_through_games(monkeypatch, scenario, axis,
                                                                   allied, seed, games):
    """Rules 9.11-9.16, 9.2 a: the attackers the step 9.2 a options carry
    for each attack target are :func:`combat.attack_options` of the moment,
    target for target and unit for unit, and a bot's plan made from them
    equals the plan made when it asks :func:`combat.attack_options` itself."""
    seen = {"calls": 0, "targets": 0, "plans": 0}
    orig = C.plan_options

    def plan_options(game, side):
        got = orig(game, side)
        ref = C.attack_options(game, side)
        assert list(got.attackers) == got.attack_targets == sorted(ref)
        assert got.attackers == ref
        seen["calls"] += 1
        seen["targets"] += len(ref)
        bot = game.policy(side)
        if isinstance(bot, AX._ParamBot) and got.attack_targets:
            saved = bot._plan
            mine = bot.combat_plan(game, got)
            got.attackers = None
            asked = bot.combat_plan(game, got)
            got.attackers = ref
            bot._plan = saved
            for f in ("support", "air", "bombard"):
                assert list(getattr(mine, f).items()) == list(getattr(asked, f).items())
            assert mine.hurricane == asked.hurricane
            seen["plans"] += 1
        return got

    monkeypatch.setattr(C, "plan_options", plan_options)
    play_games(scenario, seed, games, axis_policy=axis, allied_policy=allied)
    assert seen["targets"] > 0 and seen["plans"] > 0, seen
