"""The compiled attack forecasts (:mod:`malta_sim.bots.forecast`) give
the answers of the plain Python bots: on every call through whole games, and
on random positions."""

import numpy as np
import pytest

from malta_sim.iod.rules import combat as C
from malta_sim.play import play_games
from malta_sim.bots import axis as AX
from malta_sim.bots import forecast as FC
from tests.oracles import iod_rules as oracle
from tests.oracles import bots as bots_ref


def _reference_score(bot, game, tgt, units, sup, hur, air, plan_mode):
    """The plain reference's score of one target (:func:`oracles.bots.score_target`)."""
    if plan_mode:
        t = game.static
        arty = [u for u in sup if t.utype[u] != C.st.WARSHIP]
        ships = [u for u in sup if t.utype[u] == C.st.WARSHIP][:3]
        sp = AX.support_points
        full = arty if sp(game, arty, tgt, units) >= sp(game, ships, tgt, units) else ships
        return bots_ref.score_target(bot, game, tgt, units, full, air, (), False)
    return bots_ref.score_target(bot, game, tgt, units, sup, air, set(hur) & set(sup), False)


@pytest.fixture
def checked(monkeypatch):
    """Every compiled scoring and every compiled combat plan is compared with
    the plain Python answer on the state of the moment."""
    seen = {"targets": 0, "plans": 0, "support": 0, "hurricane": 0, "air": 0, "picks": 0,
            "penetration": 0}
    orig_many = AX._ParamBot._score_many

    def score_many(self, game, tgts, unit_lists, sup_lists, hur, airs, plan_mode, whole=False):
        got = orig_many(self, game, tgts, unit_lists, sup_lists, hur, airs, plan_mode, whole)
        for tgt, units, sup, air, (ok, gain, lv, grp, base) in zip(tgts, unit_lists, sup_lists, airs, got):
            if whole:                      # one group as given (penetration, 10.32)
                b = AX._forecast_base(game, self.side, tgt, tuple(units))[0]
                ref = (*AX._base_value(game, b, self._thresholds(self._thr_idx), 0, 0), units)
            else:
                ref = _reference_score(self, game, tgt, units, sup, hur, air, plan_mode)
            assert (ok, gain, lv, grp) == (ref[0], ref[1], ref[2], list(ref[3])), (tgt, ref, got)
            assert base == AX._forecast_base(game, self.side, tgt, tuple(grp))[0]
            seen["targets"] += 1
        return got

    monkeypatch.setattr(AX._ParamBot, "_score_many", score_many)
    orig_plan = AX._ParamBot._plan_support

    def plan_support(self, game, options, air_markers, allow_hurricane):
        cls = type(self)
        cls._compiled_scores = lambda _self: False
        try:
            ref = orig_plan(self, game, options, air_markers, allow_hurricane)
        finally:
            del cls._compiled_scores
        got = orig_plan(self, game, options, air_markers, allow_hurricane)
        assert (got.support, got.air, got.hurricane, got.bombard) == \
            (ref.support, ref.air, ref.hurricane, ref.bombard)
        seen["plans"] += 1
        seen["support"] += bool(got.support)
        seen["hurricane"] += bool(got.hurricane)
        seen["air"] += bool(got.air)
        return got

    monkeypatch.setattr(AX._ParamBot, "_plan_support", plan_support)
    orig_pick = AX._ParamBot._pick_attack

    def pick_attack(self, game, options, penetration=False):
        cls = type(self)
        cls._compiled_scores = lambda _self: False
        try:
            ref = orig_pick(self, game, options, penetration)
        finally:
            del cls._compiled_scores
        got = orig_pick(self, game, options, penetration)
        assert got == ref, (penetration, got, ref)
        seen["penetration" if penetration else "picks"] += 1
        return got

    monkeypatch.setattr(AX._ParamBot, "_pick_attack", pick_attack)
    return seen


@pytest.mark.parametrize("scenario,axis,allied,seed,games", [
    ("hercules", "axis:balanced", "allied:static", 1942, [0, 1, 2]),
    ("hercules", "axis:aggressive", "allied:counterattack", 11, [0]),
    ("intro", "axis:balanced", "allied:counterattack", 3, [0, 1]),
    ("intro", "axis:cautious", "allied:static", 5, [0]),
])
def test_compiled_scores_equal_reference_through_games(checked, scenario, axis, allied, seed, games):
    """Rules 9.2 a, 9.3, 9.91, 9.92, 12.21, 16.42: each target's best group,
    gain and odds level, each forecast base and each combat plan of the
    compiled path equal the plain bot's, through whole games (combats,
    retreats, losses, morale, night turns)."""
    play_games(scenario, seed, games, axis_policy=axis, allied_policy=allied)
    assert checked["plans"] > 0 and checked["support"] > 0
    assert checked["picks"] > 0
    if scenario == "intro":
        assert checked["penetration"] > 0          # 10.3 attempts were made and compared
        assert checked["targets"] > 0              # scored through _score_many (10.32 groups)


def test_loss_table_equals_expected_losses():
    """Rules 9.42, 9.43, 9.94: the table read by the compiled forecast holds
    exactly (bit for bit) the floats of :func:`axis.expected_losses` (which
    reads it: one table of answers; ``tests/test_perf_bot*.py`` check its
    floats against a fresh computation per cell)."""
    from tests.conftest import make

    g = make({"1311": ["allied.uk.inf_coy.1"]})
    ch = g.static.charts
    table, d_max, a_max = FC.loss_table(ch)
    n = 0
    for line in range(ch.crt.shape[0]):
        for level in range(-6, 12):
            col = C.crt_column(ch, line, level)
            for fort in (False, True):
                for ds in range(0, d_max + 3):
                    for as_ in range(0, a_max + 3):
                        e = AX.expected_losses(g, line, level, fort, ds, as_)
                        if col < 0:
                            assert e is None
                            continue
                        got = tuple(table[line, col, int(fort), min(ds, d_max), min(as_, a_max)])
                        assert got == e
                        n += 1
    assert n > 100


def test_odds_shifts_and_scores_on_random_positions():
    """Rule 9.92 (with 11.2, 16.24, 17.32): on random positions (levels,
    morale states, hexes, integrity lost) and random attacker groups, the
    compiled shift total equals the sum of :func:`combat.odds_modifiers_plain`
    without leader rolls, :func:`combat.odds_modifiers` gives its modifiers,
    and the compiled score of a target equals :meth:`_ParamBot._score_target`."""
    from tests.conftest import make

    from malta_sim.bots.axis import AxisBot

    rng = np.random.default_rng(5)
    g = make({"1311": ["allied.uk.inf_coy.1"]})
    s, t, tb = g.state, g.static, g.tables
    ft = FC.forecast_tables(g)
    n_units = len(t.utype)
    land = np.flatnonzero(t.land)
    bot = AxisBot(0)
    checked = 0
    for trial in range(300):
        # a random position: some units on a few neighbouring hexes
        centre = int(rng.choice(land))
        ring = [centre] + [o for o in tb.adj[centre]]
        s.box[:] = 1
        s.hex[:] = -1
        on = rng.choice(n_units, size=min(n_units, 40), replace=False)
        for x in on:
            s.box[x] = 0
            s.hex[x] = int(rng.choice(ring))
            s.level[x] = int(rng.integers(0, max(1, int(t.n_levels[x]))))
            s.morale_state[x] = int(rng.integers(0, 3))
            s.out_of_supply[x] = bool(rng.integers(0, 2))
        s.integrity_lost[0, :] = rng.random(s.integrity_lost.shape[1]) < 0.2
        s.fort_destroyed[centre] = bool(rng.integers(0, 2))
        side = int(rng.integers(0, 2))
        dfd = C.defenders_in(g, centre, 1 - side)
        att = [int(x) for x in on if t.side[x] == side and s.hex[x] != centre
               and tb.attacker_type[x]]
        if not att or not dfd:
            continue
        k = int(rng.integers(1, len(att) + 1))
        grp = sorted(rng.choice(att, size=k, replace=False).tolist())
        regs = [r for r, mem in enumerate(tb.members) if mem and t.side[mem[0]] == side]
        if regs and rng.random() < 0.5:
            # a whole regiment in the attack, mostly in good order (9.92 integrity)
            mem = tb.members[int(rng.choice(regs))]
            for x in mem:
                s.box[x] = 0
                s.hex[x] = int(rng.choice(ring[1:]))
                if rng.random() < 0.9:
                    s.level[x] = 0
                    s.morale_state[x] = int(rng.integers(0, 2))
            grp = sorted(set(grp) | set(mem))
            s.integrity_lost[0, tb.regiment[mem[0]]] = rng.random() < 0.1
        ref_m = oracle.odds_modifiers(g, side, grp, dfd, centre, roll_leaders=False)
        assert list(C.odds_modifiers(g, side, grp, dfd, centre, roll_leaders=False).items()) == \
            list(ref_m.items())
        ref = sum(ref_m.values())
        fort = bool(t.fort[centre] and not s.fort_destroyed[centre])
        got = FC.odds_shift_total(np.array(grp, np.int64), len(grp), np.array(dfd, np.int64),
                                  len(dfd), centre, fort, ft.unit, ft.morale, ft.mem_ptr,
                                  ft.mem_idx, s.integrity_lost[0], s.hex, s.box, s.morale_state,
                                  s.level, s.formation, np.empty(n_units, np.int64))
        assert got == ref, (trial, grp, dfd)
        bot.side = side
        sup = [int(x) for x in np.flatnonzero(tb.firer_type & (t.side == side))[:4]]
        for plan_mode in (True, False):
            hur = set(sup[:1])
            air = int(rng.integers(0, 2))
            res = bot._score_many(g, [centre], [grp], [sup], hur, [air], plan_mode)
            ok, gain, lv, best, base = res[0]
            refs = _reference_score(bot, g, centre, grp, sup, hur, air, plan_mode)
            assert (ok, gain, lv, best) == (refs[0], refs[1], refs[2], list(refs[3]))
            assert base == AX._forecast_base(g, side, centre, tuple(best))[0]
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("preset,params", [
    ("balanced", {}),
    ("aggressive", {}),
    ("balanced", {"min_odds": 4, "min_gain": -1.0, "risk_weight": 0.2}),
])
def test_compiled_plan_equals_plain_on_random_positions(preset, params):
    """Rules 9.2 a, 12.2, 12.52, 16.42, 16.74: on random positions with several
    targets sharing guns (artillery and warships, some able to fire a fire
    hurricane) and 0-2 air markers, the compiled plan (support per target in
    its order, hurricanes, air markers, bombardments) equals the plain one."""
    from tests.conftest import make

    from malta_sim.iod.rules.combat import PlanOptions
    from malta_sim.bots.allied import AlliedBot
    from malta_sim.bots.axis import AxisBot
    from malta_sim.bots.base import CombatPlan  # noqa: F401

    rng = np.random.default_rng(11)
    g = make({"1311": ["allied.uk.inf_coy.1"]})
    s, t, tb = g.state, g.static, g.tables
    n_units = len(t.utype)
    land = np.flatnonzero(t.land)
    counts = {"support": 0, "hurricane": 0, "air": 0}
    for trial in range(150):
        side = int(rng.integers(0, 2))
        bot = AxisBot(0, params) if side == 0 else AlliedBot(1, {})
        if side == 0 and preset == "aggressive":
            bot = AxisBot(0, {"min_odds": 1, "min_gain": -0.2, "risk_weight": 0.5, **params})
        s.box[:] = 1
        s.hex[:] = -1
        hexes = rng.choice(land, size=4, replace=False).tolist()
        on = rng.choice(n_units, size=min(n_units, 60), replace=False)
        for x in on:
            s.box[x] = 0
            s.hex[x] = int(rng.choice(hexes))
            s.level[x] = int(rng.integers(0, max(1, int(t.n_levels[x]))))
            s.morale_state[x] = int(rng.choice([0, 0, 1, 2]))
            s.out_of_supply[x] = bool(rng.random() < 0.3)
        g.state.turn[0] = int(rng.integers(1, 9))
        q_t, q_u = [], []
        own = [int(x) for x in on if t.side[x] == side and tb.attacker_type[x]]
        firers = [int(x) for x in np.flatnonzero(tb.firer_type & (t.side == side))]
        for x in firers:
            s.morale_state[x] = int(rng.choice([0, 0, 1]))
        support = {}
        for h in hexes:
            if not C.defenders_in(g, h, 1 - side) or not own:
                continue
            q_t.append(h)
            q_u.append(sorted(rng.choice(own, size=int(rng.integers(1, min(6, len(own)) + 1)),
                                         replace=False).tolist()))
            support[h] = rng.permutation(firers)[:int(rng.integers(0, 7))].tolist()
        if not q_t:
            continue
        opts = PlanOptions(attack_targets=sorted(q_t), support=support,
                           bombard={h: support[h] for h in q_t if rng.random() < 0.5},
                           air_markers=int(rng.integers(0, 3)),
                           hurricane_ok={u for u in firers if rng.random() < 0.6})
        thr = bot._thresholds(bot._thr_idx)
        for allow in (True, False):
            air = opts.air_markers if side == 0 else 0
            ref = bots_ref.plan_support(bot, g, opts, q_t, q_u, air, allow, thr)
            got = bot._plan_compiled(g, opts, q_t, q_u, air, allow and bot._hurricane_ok(), thr)
            assert list(got.support.items()) == list(ref.support.items()), trial
            assert list(got.air.items()) == list(ref.air.items()), trial
            assert got.hurricane == ref.hurricane and list(got.hurricane) == list(ref.hurricane)
            assert list(got.bombard.items()) == list(ref.bombard.items())
            counts["support"] += bool(ref.support)
            counts["hurricane"] += bool(ref.hurricane)
            counts["air"] += bool(ref.air)
    assert counts["support"] > 5 and counts["air"] > 0, counts


def _defensive_support_reference(bot, game, options):
    """The plain form of BalancedPolicy.defensive_support (rule 9.2 b): the
    threat of a hex counted by asking each neighbour for enemy pieces."""
    out, used = {}, set()
    t = game.static

    def threat(h):
        return sum(1 for o in t.neighbours[h] if o >= 0 and len(game.units_at(int(o), 1 - bot.side)))
    for h in sorted(options, key=threat, reverse=True):
        free = [u for u in options[h] if u not in used]
        arty = [u for u in free if game.is_artillery(u)]
        pick = arty[:2] if arty else free[:2]
        if pick:
            out[h] = pick
            used.update(pick)
    return out


def test_defensive_support_equals_reference_through_games(monkeypatch):
    """Rule 9.2 b: the defensive support of the simple bots, threat counted
    from one set of enemy-held hexes, equals the per-neighbour count on every
    call through whole games (same hexes in the same order)."""
    from malta_sim.bots.simple import BalancedPolicy

    orig = BalancedPolicy.defensive_support
    seen = [0]

    def ds(self, game, options):
        got = orig(self, game, options)
        ref = _defensive_support_reference(self, game, options)
        assert list(got.items()) == list(ref.items())
        seen[0] += 1
        return got

    monkeypatch.setattr(BalancedPolicy, "defensive_support", ds)
    play_games("hercules", 1942, [0, 1], axis_policy="axis:balanced", allied_policy="allied:static")
    play_games("intro", 3, [0], axis_policy="axis:balanced", allied_policy="allied:counterattack")
    assert seen[0] > 5


def test_attack_pick_on_random_positions():
    """Rules 9.3 a, 9.92, 12.22, 12.52, 16.42: on random positions the
    compiled pick (:func:`forecast.best_attack`, through
    ``_ParamBot._pick_compiled``) chooses the target and group the plain
    ``_pick_attack`` chooses, with planned support (some of it fired), fire
    hurricanes and air markers."""
    from tests.conftest import make

    from malta_sim.bots.axis import AxisBot
    from malta_sim.bots.base import CombatPlan

    rng = np.random.default_rng(11)
    g = make({"1311": ["allied.uk.inf_coy.1"]})
    s, t, tb = g.state, g.static, g.tables
    n_units = len(t.utype)
    land = np.flatnonzero(t.land)
    bot = AxisBot(0)
    picked = compared = 0
    for trial in range(200):
        s.box[:] = 1
        s.hex[:] = -1
        s.fired[:] = False
        centres = [int(c) for c in rng.choice(land, size=3, replace=False)]
        hexes = sorted({h for c in centres for h in [c, *tb.adj[c]] if h >= 0})
        on = rng.choice(n_units, size=min(n_units, 60), replace=False)
        for x in on:
            s.box[x] = 0
            s.hex[x] = int(rng.choice(hexes))
            s.level[x] = int(rng.integers(0, max(1, int(t.n_levels[x]))))
            s.morale_state[x] = int(rng.integers(0, 3))
            s.out_of_supply[x] = bool(rng.integers(0, 2))
        s.integrity_lost[0, :] = rng.random(s.integrity_lost.shape[1]) < 0.2
        side = int(rng.integers(0, 2))
        bot.side = side
        options = {}
        for c in centres:
            if not C.defenders_in(g, c, 1 - side):
                continue
            att = [int(x) for x in on if t.side[x] == side and s.hex[x] != c
                   and tb.attacker_type[x]]
            if att:
                k = int(rng.integers(1, len(att) + 1))
                options[c] = [int(u) for u in rng.choice(att, size=k, replace=False)]
        if not options:
            continue
        guns = [int(x) for x in np.flatnonzero(tb.firer_type & (t.side == side))]
        plan = CombatPlan()
        for c in options:
            if guns and rng.random() < 0.6:
                plan.support[c] = [int(u) for u in rng.choice(guns, size=min(len(guns), 3),
                                                              replace=False)]
            if rng.random() < 0.4:
                plan.air[c] = 1
        for u in guns:
            s.fired[u] = rng.random() < 0.2
            if rng.random() < 0.3:
                plan.hurricane.add(u)
        bot._plan = plan
        got = bot._pick_attack(g, options)
        AxisBot._compiled_scores = lambda _self: False
        try:
            ref = bot._pick_attack(g, options)
        finally:
            del AxisBot._compiled_scores
        assert got == ref, (trial, got, ref)
        compared += 1
        picked += got is not None
    assert compared > 50 and picked > 5


@pytest.mark.parametrize("scenario,axis,allied,seed,games", [
    ("hercules", "axis:balanced", "allied:static", 1942, [0, 1]),
    ("intro", "axis:aggressive", "allied:counterattack", 3, [0]),
])
def test_odds_modifiers_equal_plain_through_games(monkeypatch, scenario, axis, allied, seed, games):
    """Rule 9.92 (11.2, 16.24, 16.42, 17.32): every call of
    :func:`combat.odds_modifiers` in whole games (the combat resolution and
    the bots' forecasts) gives the plain version's modifiers, keys in the same
    order; the leaders' command rolls (14.2, 15.4) are then added as before."""
    seen = {"calls": 0, "nonzero": 0}
    orig = C.odds_modifiers

    def wrapped(game, side, attackers, defenders, target, air=0, roll_leaders=True):
        ref = oracle.odds_modifiers(game, side, attackers, defenders, target, air, False)
        got = orig(game, side, attackers, defenders, target, air, roll_leaders)
        head = {k: v for k, v in got.items() if not k.endswith("_command")}
        assert list(head.items()) == list(ref.items()), (head, ref)
        seen["calls"] += 1
        seen["nonzero"] += bool(ref)
        return got

    monkeypatch.setattr(C, "odds_modifiers", wrapped)
    play_games(scenario, seed, games, axis_policy=axis, allied_policy=allied)
    assert seen["calls"] > 10 and seen["nonzero"] > 5


def test_bombard_order_equals_unit_queries_through_games(monkeypatch):
    """Rule 10.1: the bombardments of a combat plan take the targets most
    defenders first and the free artillery of each; on every plan of whole
    games (including the plans made without a scoring call, when no gun is
    offered and no air marker is left) they equal the reference written out
    here with one :meth:`Game.units_at` query per target."""
    from malta_sim.bots.base import CombatPlan

    seen = {"plans": 0, "bombard": 0}
    orig = AX._ParamBot._plan_bombard

    def plan_bombard(self, game, options, plan, used):
        ref_plan = CombatPlan(support=dict(plan.support), air=dict(plan.air),
                              hurricane=set(plan.hurricane))
        ref_used = set(used)
        t = game.static
        if self._bombard_ok():
            for tgt, units in sorted(options.bombard.items(),
                                     key=lambda kv: -len(game.units_at(kv[0], 1 - self.side))):
                if tgt in ref_plan.support:
                    continue
                free = [u for u in units if u not in ref_used and t.utype[u] != C.st.WARSHIP]
                if free:
                    ref_plan.bombard[tgt] = free
                    ref_used.update(free)
        got = orig(self, game, options, plan, used)
        assert list(got.bombard.items()) == list(ref_plan.bombard.items())
        assert used == ref_used
        seen["plans"] += 1
        seen["bombard"] += len(got.bombard) > 1
        return got

    monkeypatch.setattr(AX._ParamBot, "_plan_bombard", plan_bombard)
    play_games("hercules", 1942, [0, 1], axis_policy="axis:aggressive",
               allied_policy="allied:counterattack")
    play_games("intro", 3, [0], axis_policy="axis:balanced", allied_policy="allied:static")
    assert seen["plans"] > 10 and seen["bombard"] > 0


def test_choose_loss_equals_array_reads_through_games(monkeypatch):
    """Rules 9.4, 20.0-20.2: the step the simple bots lose, read from the
    per-unit lists, is the one the static arrays give (no HQ while another
    unit can take it, fewest victory steps, weakest, lowest index) on every
    call through whole games."""
    from malta_sim.bots.simple import _LandBot

    orig = _LandBot.choose_loss
    seen = [0]

    def choose_loss(self, game, units, reason):
        got = orig(self, game, units, reason)
        t, s = game.static, game.state
        ref = min(units, key=lambda u: (int(t.utype[u] == C.st.HQ), int(t.step_weight[u]),
                                        int(t.attack[u, s.level[u]]) + int(t.defense[u, s.level[u]]),
                                        u))
        assert got == ref
        seen[0] += 1
        return got

    monkeypatch.setattr(_LandBot, "choose_loss", choose_loss)
    play_games("hercules", 1942, [0, 1], axis_policy="axis:balanced", allied_policy="allied:static")
    play_games("intro", 3, [0], axis_policy="axis:aggressive", allied_policy="allied:counterattack")
    assert seen[0] > 10
