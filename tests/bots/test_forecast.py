"""The Axis preset's compiled attack forecasts (:mod:`malta_sim.bots.forecast`) against the
plain references of :mod:`tests.oracles.bots`: the table of expected losses, the odds
shifts, the score of each target, the combat plan and the attack pick, on constructed and
random positions and on every call of whole games (a preset with checking methods).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from malta_sim.bots import axis as AX, forecast as FC, make_policy
from malta_sim.iod import sequence
from malta_sim.iod.engine import setup_game
from malta_sim.iod.rules import combat as C

from tests.conftest import h, make, u
from tests.oracles import bots as bots_ref, iod_rules as ref


def test_loss_table_equals_expected_losses():
    """Rules 9.42, 9.43, 9.94: the table read by the compiled forecast holds
    exactly (bit for bit) the floats of :func:`axis.expected_losses` (which
    reads it: one table of answers; :func:`test_expected_losses_capped_steps_exact` checks its
    floats against a fresh computation per cell)."""
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


def test_base_value_equals_forecast_value():
    """Rules 9.3 d-g, 12.21, 16.42: the value of a base tuple is exactly
    :meth:`Forecast.value` (same floats, same level, same verdict) for a range
    of support points, air markers and thresholds."""
    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"], "1210": ["axis.4.2_34"]})
    att = (u("axis.4.1_34"), u("axis.4.2_34"))
    fc = AX.Forecast(g, 0, h("1311"), att)
    base = AX._forecast_base(g, 0, h("1311"), att)[0]
    for thr in ((1.0, 0.0, 1.0, 0.3), (3.0, 0.5, 0.5, 0.0), (-2.0, -1.0, 2.0, 1.0)):
        thr = tuple(np.float64(x) for x in thr)
        for sp in (0, 1, 3, 7, 40):
            for air in (0, 1):
                want = fc.value(g, *thr, support=sp, air=air)
                got = AX._base_value(g, base, thr, sp, air)
                assert got == want and type(got[1]) is type(want[1])


def test_expected_losses_capped_steps_exact():
    """Rules 9.3 g, 9.42, 9.43, 9.94: answers kept per CRT cell with the step
    counts capped at what the cell's hits can take are the very floats a fresh
    computation gives, for step counts far beyond the caps."""
    from malta_sim.iod.rules.combat import crt_column

    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"]})
    charts = g.static.charts
    crt = charts.crt
    p = np.array([6 - abs(r - 7) for r in range(2, 13)], dtype=np.float64) / 36.0
    for line in range(crt.shape[0]):
        for level in range(-4, 9):
            col = crt_column(charts, line, level)
            for fort in (False, True):
                for ds in (0, 1, 2, 3, 5, 9, 30):
                    for as_ in (1, 2, 4, 7, 25):
                        got = AX.expected_losses(g, line, level, fort, ds, as_)
                        if col < 0:
                            assert got is None
                            continue
                        ah = crt[line, col, 2:13, 0].astype(np.int64)
                        dh = crt[line, col, 2:13, 2].astype(np.int64)
                        if fort:
                            dh = np.maximum(0, dh - 1)
                        want = (float(p @ np.minimum((ah + 1) // 2, as_)),
                                float(p @ np.minimum(dh // 2, ds)),
                                float(p @ np.where(dh // 2 >= ds, 0, dh - dh // 2)))
                        assert got == want


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


def test_odds_shifts_and_scores_on_random_positions():
    """Rule 9.92 (with 11.2, 16.24, 17.32): on random positions (levels,
    morale states, hexes, integrity lost) and random attacker groups, the
    compiled shift total equals the sum of the plain modifiers
    (:func:`tests.oracles.iod_rules.odds_modifiers`, without leader rolls),
    :func:`combat.odds_modifiers` gives those modifiers, and the compiled
    score of a target equals the plain one (:func:`tests.oracles.bots.score_target`)."""
    from malta_sim.bots.axis import AxisBot

    rng = np.random.default_rng(5)
    g = make({"1311": ["allied.uk.inf_coy.1"]})
    s, t, tb = g.state, g.static, g.tables
    ft = FC.forecast_tables(g)
    n_units = len(t.utype)
    land = np.flatnonzero(t.land)
    bot = AxisBot(0)
    checked = 0
    shifted = 0
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
        ref_m = ref.odds_modifiers(g, side, grp, dfd, centre, roll_leaders=False)
        assert list(C.odds_modifiers(g, side, grp, dfd, centre, roll_leaders=False).items()) == \
            list(ref_m.items())
        want_total = sum(ref_m.values())
        fort = bool(t.fort[centre] and not s.fort_destroyed[centre])
        got = FC.odds_shift_total(np.array(grp, np.int64), len(grp), np.array(dfd, np.int64),
                                  len(dfd), centre, fort, ft.unit, ft.morale, ft.mem_ptr,
                                  ft.mem_idx, s.integrity_lost[0], s.hex, s.box, s.morale_state,
                                  s.level, s.formation, np.empty(n_units, np.int64))
        assert got == want_total, (trial, grp, dfd)
        shifted += want_total != 0
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
    assert checked > 50 and shifted > 25, (checked, shifted)


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
    from malta_sim.iod.rules.combat import PlanOptions
    from malta_sim.bots.allied import AlliedBot
    from malta_sim.bots.axis import AxisBot

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


def test_attack_pick_on_random_positions():
    """Rules 9.3 a, 9.92, 12.22, 12.52, 16.42: on random positions the
    compiled pick (:func:`forecast.best_attack`, through
    ``_ParamBot._pick_compiled``) chooses the target and group the plain
    reference (:func:`tests.oracles.bots.pick_attack`) chooses, with planned
    support (some of it fired), fire hurricanes and air markers."""
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
        want = bots_ref.pick_attack(bot, g, options)
        assert got == want, (trial, got, want)
        compared += 1
        picked += got is not None
    assert compared > 50 and picked > 5


class _CheckedForecasts:
    """The Axis preset with each compiled decision of combat compared with its
    plain reference on the position of the moment: the scores of penetration
    groups (10.32, ``_score_many``), the combat plan (9.2 a, 10.1, 12.2, 12.52,
    16.42; :func:`tests.oracles.bots.plan_support`) and each attack picked
    (9.3 a; :func:`tests.oracles.bots.pick_attack`).  Counts in ``seen``."""

    seen: Counter = Counter()

    def _score_many(self, game, tgts, unit_lists, sup_lists, hur, airs, plan_mode, whole=False):
        got = super()._score_many(game, tgts, unit_lists, sup_lists, hur, airs, plan_mode, whole)
        thr = self._thresholds(self._thr_idx)
        for tgt, units, sup, air, (ok, gain, lv, grp, base) in zip(tgts, unit_lists, sup_lists, airs, got):
            if whole:                      # one group as given (penetration, 10.32)
                b = AX._forecast_base(game, self.side, tgt, tuple(units))[0]
                want = (*AX._base_value(game, b, thr, 0, 0), units)
            else:
                want = _reference_score(self, game, tgt, units, sup, hur, air, plan_mode)
            assert (ok, gain, lv, grp) == (want[0], want[1], want[2], list(want[3])), (tgt, want, got)
            assert base == AX._forecast_base(game, self.side, tgt, tuple(grp))[0]
            self.seen["scores"] += 1
        return got

    def _plan_compiled(self, game, options, q_t, q_u, air_markers, allow_hurricane, thr):
        want = bots_ref.plan_support(self, game, options, q_t, q_u, air_markers, allow_hurricane, thr)
        got = super()._plan_compiled(game, options, q_t, q_u, air_markers, allow_hurricane, thr)
        for f in ("support", "air", "bombard"):
            assert list(getattr(got, f).items()) == list(getattr(want, f).items()), f
        assert got.hurricane == want.hurricane
        self.seen["plans"] += 1
        self.seen["support"] += bool(got.support)
        self.seen["air"] += bool(got.air)
        self.seen["bombard"] += bool(got.bombard)
        return got

    def _pick_attack(self, game, options, penetration=False):
        want = bots_ref.pick_attack(self, game, options, penetration)
        got = super()._pick_attack(game, options, penetration)
        assert got == want, (penetration, got, want)
        self.seen["penetration" if penetration else "picks"] += got is not None
        return got


@pytest.mark.parametrize("scenario,axis,allied,seed,games", [
    ("hercules", "balanced", "static", 1942, 3),
    ("hercules", "aggressive", "counterattack", 11, 1),
    ("intro", "balanced", "counterattack", 3, 2),
    ("intro", "cautious", "static", 5, 1),
])
def test_compiled_forecasts_equal_plain_through_games(scenario, axis, allied, seed, games):
    """Rules 9.2 a, 9.3, 9.91, 9.92, 10.32, 12.21, 16.42: every combat plan,
    attack pick and penetration score of the Axis preset in whole games equals
    the plain reference's on the position of the moment (combats, retreats,
    losses, morale, night turns)."""
    seen = _CheckedForecasts.seen = Counter()
    for g in range(games):
        bot = bots_ref.preset_with(axis, 0, _CheckedForecasts)
        game = setup_game(scenario, seed, g, (bot, make_policy(allied, 1)))
        sequence.play_game(game)
    assert seen["plans"] > 0 and seen["support"] > 0 and seen["picks"] > 0, dict(seen)
    if scenario == "intro":
        assert seen["penetration"] > 0 and seen["scores"] > 0, dict(seen)
