"""Fourth round of speed work on combat resolution and the phase-end checks
(results unchanged):

* the default bots' advance after combat (rules 9.8, 9.83) in one compiled
  call (:func:`.combat_moves.fit_in_order`) against its plain reference
  :func:`malta_sim.bots.simple.choose_advance_plain`, on random positions
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

from malta_sim.iod.rules import combat, retreat_advance as combat_moves, movement, organisation, phase_end_checks as phase_checks
from malta_sim.iod import static as st
from malta_sim.iod.rules.phase_end_checks import PHASE_END_DONE, phase_end_kernel
from malta_sim.iod.state import BOX_MAP
from malta_sim.games.registry import get_scenario
from malta_sim.bots import simple
from tests.test_perf3_combat import _random_game
from tests.oracles import iod_rules as oracle
from tests.oracles import bots as bots_ref


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
                want = bots_ref.choose_advance(g, units, target)
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
        assert got == bots_ref.choose_advance(game, units, target)
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
    from tests.conftest import h, make, u

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
    from tests.conftest import make

    g = make({"1315": ["axis.185.v_186"], "1316": ["allied.uk.8m"]})

    class Never(simple.BalancedPolicy):
        def next_attack(self, game, options, penetration=False):
            raise AssertionError("asked with no eligible piece")

    g.policies = (Never(0), Never(1))
    g.state.attacked[:] = True
    g.state.advanced[:] = False
    combat.penetration_phase(g, 0)
    assert not g.state.attacked.any()


def test_ocean_hexsides_are_the_same_from_both_hexes():
    """The 12.56 route test searches from the hand-out hexes back to the
    pieces (:func:`.ammo_routes.ammo_route_ok`): that gives the pieces'
    own searches because every all-ocean hexside (8.2) is marked in both
    hexes it separates."""
    from tests.conftest import static

    t = static()
    nbr = t.neighbours
    for i in range(t.n_hexes):
        for d in range(6):
            j = int(nbr[i, d])
            if j >= 0:
                assert t.ocean_side[i, d] == t.ocean_side[j, (d + 3) % 6]






# ------------------------------------------------------------------ advance (9.81)
@pytest.mark.parametrize("seed", [61, 62])
def test_advance_eligible_equals_plain_on_random_positions(seed):
    """Rule 9.81 (9.63, 12.11): the compiled list of pieces that may advance
    equals the plain one, order included, on random positions with random
    stayers (artillery hitched or not, strongpoints, HQs, leaders, AA)."""
    rng = np.random.default_rng(seed)
    seen = 0
    for trial in range(12):
        g = _random_game(rng, trial)
        s, t = g.state, g.static
        for side in (0, 1):
            own = np.flatnonzero((s.box == BOX_MAP) & (t.side == side) & g.tables.ground).tolist()
            for k in range(10):
                m = int(rng.integers(0, min(len(own), 6) + 1))
                stayers = [int(x) for x in rng.choice(own, m, replace=False)]
                got = combat._advance_eligible(g, side, stayers)
                want = oracle.advance_eligible(g, side, stayers)
                assert got == want, (stayers, got, want)
                seen += len(want) > len(stayers)
    assert seen


def test_advance_eligible_equals_plain_through_games(monkeypatch):
    """Every advance after combat in whole games lists the eligible pieces
    (9.81) as the plain version does."""
    counts: dict = {}
    fast = combat._advance_eligible

    def ae(game, side, stayers):
        got = fast(game, side, stayers)
        assert got == oracle.advance_eligible(game, side, stayers)
        counts["n"] = counts.get("n", 0) + 1
        return got
    monkeypatch.setattr(combat, "_advance_eligible", ae)
    for scenario, axis, allied, seed in (("hercules", "balanced", "static", 1942),
                                         ("intro", "random", "random", 3)):
        get_scenario(scenario).play_fn()(scenario, seed, np.arange(2), axis_policy=axis,
                                          allied_policy=allied, options=(), data_dir=None)
    assert counts.get("n", 0) > 0


def test_ammo_routes_then_route_search_in_a_fresh_process():
    """The 12.56 route test and a supply route search (8.2) both answer in a
    process that loads the compiled functions from the cache, the route test
    first (run twice: the first run may compile and fill the cache)."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import numpy as np\n"
        "from tests.conftest import static\n"
        "from malta_sim.iod.rules.ammunition_routes import ammo_route_ok\n"
        "from malta_sim.iod.rules.supply import route_distance\n"
        "t = static()\n"
        "p = t.land.copy(); tg = np.zeros(t.n_hexes, bool); tg[100] = True\n"
        "hexa = np.full(len(t.side), -1, np.int32); hexa[5] = 120\n"
        "ok = ammo_route_ok(np.array([5], np.int64), hexa, p, tg, t.neighbours, t.ocean_side, 12)\n"
        "d = route_distance(120, p, t.neighbours, t.ocean_side, 12)\n"
        "assert bool(ok[0]) == bool(0 <= d[100] <= 12)\n"
    )
    root = Path(__file__).resolve().parent.parent
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]


# ------------------------------------------------------------------ blocking next to a hex (6.52)
@pytest.mark.parametrize("seed", [71, 72])
def test_blocking_next_to_equals_occupancy_on_random_positions(seed):
    """Rule 6.52: next to any hex, the compiled blocking map equals
    :func:`.movement.occupancy`'s (leaders, coastal guns, warships and
    zero-defense pieces do not block), and it is False elsewhere."""
    rng = np.random.default_rng(seed)
    seen = 0
    for trial in range(10):
        g = _random_game(rng, trial)
        s, t = g.state, g.static
        for side in (0, 1):
            want, _ = movement.occupancy(g, side)
            for cur in rng.choice(np.flatnonzero(t.land), 40, replace=False).tolist():
                got = combat._blocking_next_to(g, cur, side)
                near = np.zeros(t.n_hexes, bool)
                nb_ = t.neighbours[cur]
                near[nb_[nb_ >= 0]] = True
                assert np.array_equal(got, want & near)
                seen += int(got.any())
    assert seen


def test_blocking_next_to_equals_occupancy_through_games(monkeypatch):
    """Every retreat and advance step of whole games reads the blocking map
    (6.52) that :func:`.movement.occupancy` gives next to its hex."""
    counts: dict = {}
    fast = combat._blocking_next_to

    def bn(game, cur, side):
        got = fast(game, cur, side)
        want, _ = movement.occupancy(game, side)
        nb_ = game.static.neighbours[cur]
        nb_ = nb_[nb_ >= 0]
        assert np.array_equal(got[nb_], want[nb_])
        counts["n"] = counts.get("n", 0) + 1
        return got
    monkeypatch.setattr(combat, "_blocking_next_to", bn)
    for scenario, axis, allied, seed in (("hercules", "balanced", "static", 1942),
                                         ("intro", "random", "random", 3)):
        get_scenario(scenario).play_fn()(scenario, seed, np.arange(2), axis_policy=axis,
                                          allied_policy=allied, options=(), data_dir=None)
    assert counts.get("n", 0) > 0
