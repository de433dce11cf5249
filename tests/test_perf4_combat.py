"""Fourth round of speed work on combat resolution and the phase-end checks
(results unchanged):

* the default bots' advance after combat (rules 9.8, 9.83) in one compiled
  call (:func:`.combat_moves.fit_in_order`) against its plain reference
  :func:`malta_sim.policies.simple.choose_advance_plain`, on random positions
  and on every call through whole games;
* the phase-end checks (rules 7.2, 14.42, 2.1) skipped when the position is
  byte for byte as the last pass that found nothing left it: on every call
  through whole games, a skipped call is checked against a fresh pass, and a
  constructed position shows the checks act again after a change;
* the rule 7.1 stacking limit defined once (:data:`.static.STACK_LIMIT_HALVES`).
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.games.island_of_death import combat, combat_moves, movement, organisation, phase_checks
from malta_sim.games.island_of_death import static as st
from malta_sim.games.island_of_death.phase_checks import PHASE_END_DONE, phase_end_kernel
from malta_sim.games.island_of_death.state import BOX_MAP
from malta_sim.games.registry import get_scenario
from malta_sim.policies import simple
from tests.test_perf3_combat import _random_game


def test_stacking_limit_is_defined_once():
    """Rule 7.1: every module that tests the limit reads the one constant."""
    assert st.STACK_LIMIT_HALVES == 8
    assert organisation.STACK_LIMIT_HALVES == st.STACK_LIMIT_HALVES
    assert combat_moves._STACK_LIMIT_HALVES == st.STACK_LIMIT_HALVES
    assert phase_checks._STACK_LIMIT_HALVES == st.STACK_LIMIT_HALVES
    assert movement.STACK_ROOM == st.STACK_LIMIT_HALVES


@pytest.mark.parametrize("seed", [41, 42])
def test_choose_advance_equals_plain_on_random_positions(seed):
    """The compiled advance choice (9.8, 9.83, 7.1) equals the plain greedy
    fit on random positions, random candidate groups (in random order) and
    random target hexes, including crowded and empty targets."""
    rng = np.random.default_rng(seed)
    bot = simple.BalancedPolicy(0)
    seen_partial = seen_all = 0
    for trial in range(12):
        g = _random_game(rng, trial)
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
                want = simple.choose_advance_plain(g, units, target)
                assert got == want and all(type(x) is int for x in got)
                seen_partial += 0 < len(got) < len(units)
                seen_all += len(got) == len(units)
    assert seen_partial and seen_all
    assert simple.BalancedPolicy(0).choose_advance(g, [], 0, 1) == []


def _phase_end_checked(monkeypatch, counts):
    """Wrap ``organisation.phase_end``: a call that will be skipped is first
    checked against a fresh pass on copies (nothing to do, control as is)."""
    fast = organisation.phase_end

    def pe(game):
        s, t, tb = game.state, game.static, game.tables
        key = (s.box.tobytes(), s.hex.tobytes(), s.level.tobytes(), s.control.tobytes())
        if game.kept("_phase_end", 0, key) is not None:
            counts["skipped"] = counts.get("skipped", 0) + 1
            ctl = s.control.copy()
            code, caught = phase_end_kernel(s.box, s.hex, s.level, t.side, tb.base_weight,
                                            tb.remnant_level_full, t.n_hexes, tb.leader,
                                            tb.controls, ctl)
            assert code == PHASE_END_DONE and not len(caught)
            assert np.array_equal(ctl, s.control)
        else:
            counts["run"] = counts.get("run", 0) + 1
        return fast(game)
    monkeypatch.setattr(organisation, "phase_end", pe)


def _advance_checked(monkeypatch, counts):
    """Wrap the default bots' advance choice: each answer equals the plain one."""
    fast = simple._LandBot.choose_advance

    def ca(self, game, units, target, length):
        got = fast(self, game, units, target, length)
        assert got == simple.choose_advance_plain(game, units, target)
        counts["advance"] = counts.get("advance", 0) + 1
        return got
    monkeypatch.setattr(simple._LandBot, "choose_advance", ca)


@pytest.mark.parametrize("scenario,axis,allied,seed,n", [
    ("hercules", "balanced", "static", 1942, 2),
    ("intro", "balanced", "static", 1942, 2),
    ("intro", "aggressive", "counterattack", 4, 1),
])
def test_fast_paths_equal_reference_through_games(monkeypatch, scenario, axis, allied, seed, n):
    """Every advance choice of the default bots and every skipped phase-end
    check during whole games equal their references."""
    counts: dict = {}
    _phase_end_checked(monkeypatch, counts)
    _advance_checked(monkeypatch, counts)
    play = get_scenario(scenario).play_fn()
    play(scenario, seed, np.arange(n), axis_policy=axis, allied_policy=allied, options=(),
         data_dir=None)
    assert counts.get("skipped", 0) > 0 and counts.get("run", 0) > 0, counts
    assert counts.get("advance", 0) > 0, counts


def test_phase_end_acts_again_after_a_change():
    """Rules 2.1, 7.1-7.2: after a pass that found nothing, the checks are
    skipped only while the position is unchanged; a move, a control map
    written elsewhere or an over-stacked hex are each acted on."""
    from tests.iod_helpers import h, make, u

    g = make({"1315": ["axis.185.v_186"], "1316": ["allied.uk.8m"]})
    s = g.state
    organisation.phase_end(g)
    assert s.control[h("1316")] == 1
    s.control[h("1316")] = 0                       # changed elsewhere: written again
    organisation.phase_end(g)
    assert s.control[h("1316")] == 1
    s.hex[u("axis.185.v_186")] = h("1316")
    s.hex[u("allied.uk.8m")] = h("1317")
    organisation.phase_end(g)
    assert s.control[h("1316")] == 0 and s.control[h("1317")] == 1
    organisation.phase_end(g)                      # unchanged: skipped, same answer
    assert s.control[h("1316")] == 0 and s.control[h("1317")] == 1
    stack = ["axis.185.vi_186", "axis.185.vii_186", "axis.185.ii_187", "axis.185.iv_187"]
    for name in stack:
        s.box[u(name)] = BOX_MAP
        s.hex[u(name)] = h("1316")
    organisation.phase_end(g)                      # five battalions: one must go (7.2)
    w = organisation.stack_weights(g)
    on = (s.box == BOX_MAP) & (s.hex == h("1316")) & (g.static.side == 0)
    assert int(w[on].sum()) <= st.STACK_LIMIT_HALVES


def test_penetration_phase_returns_when_no_piece_advanced():
    """Rule 10.31: with no piece of the side advanced (or all having tried),
    the penetration phase asks nothing and resets the per-phase markers."""
    from tests.iod_helpers import make

    g = make({"1315": ["axis.185.v_186"], "1316": ["allied.uk.8m"]})

    class Never(simple.BalancedPolicy):
        def next_attack(self, game, options, penetration=False):
            raise AssertionError("asked with no eligible piece")

    g.policies = (Never(0), Never(1))
    g.state.attacked[:] = True
    g.state.advanced[:] = False
    combat.penetration_phase(g, 0)
    assert not g.state.attacked.any()
