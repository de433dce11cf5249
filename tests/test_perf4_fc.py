"""The fourth round's compiled combat-planning steps give the answers of the
plain paths: the attack loop's options and pick in one call
(:meth:`malta_sim.policies.axis._ParamBot.attack_now`), on every call through
whole games and on random positions."""

import numpy as np
import pytest

from malta_sim.games.island_of_death import combat as C
from malta_sim.games.island_of_death.engine import play_games
from malta_sim.policies import axis as AX
from malta_sim.policies.base import CombatPlan


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
    ("hercules", "axis:balanced", "allied:static", 1942, [0, 1, 2]),
    ("hercules", "axis:aggressive", "allied:counterattack", 11, [0]),
    ("intro", "axis:balanced", "allied:counterattack", 3, [0, 1]),
    ("intro", "axis:cautious", "allied:static", 5, [0]),
])
def test_attack_now_equals_options_and_next_attack_through_games(monkeypatch, scenario, axis,
                                                                  allied, seed, games):
    """Rules 9.11-9.16, 9.3 a, 9.92, 12.22, 12.52, 16.42: on every step of
    the attack loop of whole games, the one-call options and pick give the
    attack (target and group, in order) that :func:`combat.attack_options`
    and the plain ``next_attack`` give, and no attack exactly when they do."""
    seen = {"calls": 0, "picks": 0, "none": 0, "no_options": 0, "support": 0, "air": 0,
            "hurricane": 0}
    orig = AX._ParamBot.attack_now

    def attack_now(self, game):
        options, ref = _plain_pick(self, game)
        got = orig(self, game)
        assert got is not NotImplemented
        assert got == ref, (got, ref)
        seen["calls"] += 1
        if options is None:
            seen["no_options"] += 1
        elif got is None:
            seen["none"] += 1
        else:
            seen["picks"] += 1
            plan = self._plan
            if plan is not None:
                seen["support"] += bool(plan.support.get(got[0]))
                seen["air"] += bool(plan.air.get(got[0]))
                seen["hurricane"] += bool(plan.hurricane & set(plan.support.get(got[0], [])))
        return got

    monkeypatch.setattr(AX._ParamBot, "attack_now", attack_now)
    play_games(scenario, seed, games, axis_policy=axis, allied_policy=allied)
    assert seen["picks"] > 0 and seen["none"] + seen["no_options"] > 0, seen
    if scenario == "hercules" and axis == "axis:balanced":
        assert seen["support"] > 0 and seen["air"] > 0, seen


def test_attack_now_on_random_positions():
    """Rules 9.11, 9.13, 9.15, 9.16, 10.21, 9.3 a, 9.92, 12.22, 12.52, 16.42:
    on random positions (units attacked or arrived this turn, demoralized at
    night, planned support partly fired, fire hurricanes, air markers) the
    one-call pick equals :func:`combat.attack_options` followed by the plain
    ``next_attack``."""
    from iod_helpers import make

    from malta_sim.policies.allied import AlliedBot
    from malta_sim.policies.axis import AxisBot

    rng = np.random.default_rng(44)
    g = make({"1311": ["allied.uk.inf_coy.1"]})
    s, t, tb = g.state, g.static, g.tables
    n_units = len(t.utype)
    land = np.flatnonzero(t.land)
    bots = (AxisBot(0), AlliedBot(1))
    counts = {"picks": 0, "none": 0, "no_options": 0, "support": 0}
    for trial in range(150):
        s.box[:] = 1
        s.hex[:] = -1
        s.fired[:] = False
        s.attacked[:] = False
        centres = [int(c) for c in rng.choice(land, size=3, replace=False)]
        hexes = sorted({h for c in centres for h in [c, *tb.adj[c]] if h >= 0})
        on = rng.choice(n_units, size=min(n_units, 70), replace=False)
        for x in on:
            s.box[x] = 0
            s.hex[x] = int(rng.choice(hexes))
            s.level[x] = int(rng.integers(0, max(1, int(t.n_levels[x]))))
            s.morale_state[x] = int(rng.integers(0, 3))
            s.out_of_supply[x] = bool(rng.integers(0, 2))
            s.attacked[x] = rng.random() < 0.15
            s.entered_turn[x] = -1 if rng.random() < 0.9 else 0
        s.integrity_lost[0, :] = rng.random(s.integrity_lost.shape[1]) < 0.2
        s.fort_destroyed[:] = rng.random(len(s.fort_destroyed)) < 0.3
        g.state.turn[0] = int(rng.integers(0, 9))
        side = int(rng.integers(0, 2))
        bot = bots[side]
        guns = [int(x) for x in np.flatnonzero(tb.firer_type & (t.side == side))]
        plan = CombatPlan()
        for c in hexes:
            if guns and rng.random() < 0.3:
                plan.support[c] = [int(u) for u in rng.choice(guns, size=min(len(guns), 3),
                                                              replace=False)]
            if rng.random() < 0.2:
                plan.air[c] = 1
        for u in guns:
            s.fired[u] = rng.random() < 0.2
            if rng.random() < 0.3:
                plan.hurricane.add(u)
        bot._plan = plan if rng.random() < 0.9 else None
        options, ref = _plain_pick(bot, g)
        got = bot.attack_now(g)
        assert got == ref, (trial, got, ref)
        if options is None:
            counts["no_options"] += 1
        elif got is None:
            counts["none"] += 1
        else:
            counts["picks"] += 1
            counts["support"] += bool(plan.support.get(got[0]))
    assert counts["picks"] > 20 and counts["none"] > 0 and counts["support"] > 5, counts


def test_attack_now_stands_aside_for_replaced_methods():
    """The one-call pick answers only for the plain methods it stands in for
    (``next_attack``, ``_pick_attack``, ``_pick_compiled``, the scoring); a
    replacement, in a subclass or on the object, or a bot without it, gets
    the engine's options and its own ``next_attack``."""
    from iod_helpers import make

    from malta_sim.policies import make_policy
    from malta_sim.policies.axis import AxisBot

    g = make({"1311": ["allied.uk.inf_coy.1"]})

    class Picky(AxisBot):
        def next_attack(self, game, options, penetration=False):
            return None

    assert Picky(0).attack_now(g) is NotImplemented
    bot = AxisBot(0)
    assert bot.attack_now(g) is not NotImplemented
    bot._score_target = lambda *a, **k: None
    assert bot.attack_now(g) is NotImplemented
    for name, side in (("balanced", 0), ("aggressive", 0), ("cautious", 0), ("solitaire", 0),
                       ("static", 1), ("counterattack", 1)):
        assert make_policy(name, side).attack_now(g) is not NotImplemented, name
    g.policies = (make_policy("random", 0), make_policy("random", 1))
    assert C._compiled_pick(g, 0) is NotImplemented


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
