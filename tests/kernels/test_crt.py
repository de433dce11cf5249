"""Combat and bombardment kernels: rules 9.3-9.9, 10.1, 11.2 and the worked examples."""

import numpy as np
import pytest
from scipy import stats

from malta_sim.exact.combat import bombardment_distribution, cell_probabilities, combat_distribution
from malta_sim.kernels import bombard as B
from malta_sim.kernels import crt as K
from malta_sim.loaders.iod_charts import format_result, load_charts
from malta_sim.rng import numba_state, numba_states
from tests.oracles import kernels as ref


@pytest.fixture(scope="module")
def ch():
    return load_charts()


def test_rule_9_3_basic_odds_rounding():
    assert K.basic_odds_level(16, 4) == 4
    assert K.basic_odds_level(15, 4) == 3
    assert K.basic_odds_level(10, 25) == -1  # 1:3
    assert K.basic_odds_level(10, 20) == 0  # 1:2
    assert K.basic_odds_level(29, 15) == 1
    assert K.basic_odds_level(0, 5) == K.LEVEL_NONE
    assert K.basic_odds_level(5, 0) == K.LEVEL_INFINITE


def test_rule_9_3_column_rounding_cancel_clamp(ch):
    li = ch.line_index("all_other_terrains")
    col = lambda lv: K.final_column(lv, li, ch.line_cols, ch.col_level)
    assert ch.crt_columns[col(7)] == "6:1"  # 7:1 rounds down to 6:1
    assert ch.crt_columns[col(9)] == "8:1"
    assert ch.crt_columns[col(40)] == "10:1"  # clamp at the highest column
    assert col(-2) == K.CANCELLED  # 1:4 below the lowest column 1:3
    cf = ch.line_index("city_fort")
    assert K.final_column(0, cf, ch.line_cols, ch.col_level) == K.CANCELLED  # 1:2 on city/fort


def test_rule_9_91_hex_defense_doubled_in_a_city_or_behind_a_standing_fort():
    assert K.hex_defense(5, False, False) == 5
    assert K.hex_defense(5, True, False) == 10
    assert K.hex_defense(5, False, True) == 10
    assert K.hex_defense(5, True, True) == 10  # doubled once, not twice
    assert K.hex_defense(0, True, True) == 0


def test_rule_12_21_support_cap_twice_printed_attack_or_the_printed_defense():
    assert K.support_cap(True, 4, 9) == 8
    assert K.support_cap(False, 4, 9) == 9
    assert K.support_cap(True, 0, 9) == 0


def test_rule_10_2_crt_line_night_whatever_the_terrain_and_17_1_fort_destroyed():
    night_line, day, nofort = 7, 2, 5
    assert K.crt_line_of(True, night_line, False, day, nofort) == night_line
    assert K.crt_line_of(True, night_line, True, day, nofort) == night_line
    assert K.crt_line_of(False, night_line, False, day, nofort) == day
    assert K.crt_line_of(False, night_line, True, day, nofort) == nofort


def test_rule_9_91_strength_modifiers():
    assert K.unit_attack(6, False, False, True) == 3
    assert K.unit_attack(5, True, False, True) == 2  # 8.4: halve (3) then -1
    assert K.unit_attack(1, True, False, False) == 1  # never below 1
    assert K.unit_attack(0, True, True, False) == 0
    assert K.unit_defense(5, True) == 3
    # artillery: night halves, town halves offensive, round up each time
    assert K.support_strength(5, False, False, False, True, False, True, False, False) == 2
    assert K.support_strength(5, False, False, True, False, False, False, False, False) == 0
    assert K.support_strength(5, False, False, False, False, False, False, True, False) == 10
    assert K.support_strength(2, False, True, False, False, False, False, False, False) == 2  # never below 2
    # a penalty never lifts a value already under its floor (9.91 "never below 2")
    assert K.support_strength(1, False, True, False, False, False, False, False, False) == 1
    # fire hurricane doubles the unit's current strength: (5 - 1 supply - 1 disorganized) x 2 (12.52)
    assert K.support_strength(5, True, True, False, False, False, False, True, False) == 6
    # warships: no state penalties, no hurricane (16.78)
    assert K.support_strength(5, True, True, False, False, False, False, True, True) == 5


def test_rule_9_9_example(ch):
    """The worked example of rule 9.9 from the totals and the +5 shift to
    -/3D (the engine's way to the totals and the shift is
    ``tests/test_rules_combat.py::test_rule_9_9_example``)."""
    att, dfn, shift = 29, 15, 5
    assert K.basic_odds_level(att, dfn) == 1
    li = ch.terrain_line["clear"]
    col, ah, ae, dh, de = K.resolve_combat(att, dfn, shift, li, False, 6, ch.crt, ch.line_cols, ch.col_level)
    assert ch.crt_columns[col] == "6:1"
    assert format_result(ah, ae, dh, de) == "-/3D"
    # the British take one step and retreat two hexes
    assert K.split_hits(dh, True) == (1, 2)
    d = combat_distribution(att, dfn, shift, li, False, ch)
    assert d["basic_odds"] == "1:1" and d["column"] == "6:1"
    assert any(o["result"] == "-/3D" and 6 in o["rolls"] for o in d["outcomes"])


def test_rule_9_43_hits_to_steps():
    assert K.split_hits(1, True) == (0, 1)
    assert K.split_hits(1, False) == (1, 0)
    assert K.split_hits(3, True) == (1, 2)
    assert K.split_hits(3, False) == (2, 1)


def test_rule_9_51_order_and_excess_losses():
    # defender has 1 step, takes 4 hits -> 2 steps needed: excess -> attacker hits 1 -> 0
    assert K.apply_hits(1, 4, 5, 1) == (0, 0, 1, 0, 0, 3)
    # attacker has more hits: goes first; is wiped out with a step pending -> defender hits -1
    assert K.apply_hits(3, 2, 1, 5) == (1, 0, 0, 1, 2, 0)
    # equal hits: defender first
    assert K.apply_hits(2, 2, 5, 5) == (1, 1, 1, 1, 0, 0)
    # fort: one hit fewer
    ch = load_charts()
    li = ch.line_index("city_fort")
    a = K.resolve_combat(60, 10, 0, li, False, 12, ch.crt, ch.line_cols, ch.col_level)
    b = K.resolve_combat(60, 10, 0, li, True, 12, ch.crt, ch.line_cols, ch.col_level)
    assert b[3] == a[3] - 1


def test_rule_9_71_stand_ground():
    assert K.stand_ground_probability(4, False) == pytest.approx(3 / 6)
    assert K.stand_ground_probability(4, True) == pytest.approx(4 / 6)
    st = numba_state(1, 0, "combat")
    n = 6000
    k = sum(K.stand_ground_roll(st, 4, False)[0] for _ in range(n))
    assert stats.binomtest(k, n, 0.5).pvalue > 1e-4


def test_numba_matches_plain_python(ch):
    rng = np.random.default_rng(3)
    for _ in range(400):
        a, d = int(rng.integers(0, 60)), int(rng.integers(0, 40))
        s, li, fort, roll = int(rng.integers(-5, 6)), int(rng.integers(0, 4)), bool(rng.integers(0, 2)), int(rng.integers(2, 13))
        assert K.resolve_combat(a, d, s, li, fort, roll, ch.crt, ch.line_cols, ch.col_level) == \
            ref.py_resolve_combat(a, d, s, li, fort, roll, ch.crt, ch.line_cols, ch.col_level)
        st = int(rng.integers(0, 7))
        assert B.resolve_bombardment(a, st, s, roll, ch.bomb, ch.bomb_columns, ch.bomb_min_strength) == \
            ref.py_resolve_bombardment(a, st, s, roll, ch.bomb, ch.bomb_columns, ch.bomb_min_strength)


@pytest.mark.parametrize("att, dfn, shift, line", [(29, 15, 5, 0), (10, 10, 0, 3), (8, 20, 1, 1), (30, 6, 0, 2)])
def test_combat_monte_carlo_matches_exact(ch, att, dfn, shift, line):
    """Chi-square goodness of fit of 20 000 seeded combats to the exact cell
    distribution; rejection at p < 1e-4 (false-alarm rate 1e-4 per case)."""
    n = 20000
    states = numba_states(11, range(n), "combat")
    out = np.zeros((n, 6), dtype=np.int64)
    K.roll_combat_many(states, np.full(n, att), np.full(n, dfn), np.full(n, shift), np.full(n, line),
                       np.zeros(n, np.bool_), ch.crt, ch.line_cols, ch.col_level, out)
    exact = cell_probabilities(att, dfn, shift, line, False, ch)
    keys = list(exact)
    obs = np.array([np.sum(np.all(out[:, 2:] == np.array(k), axis=1)) for k in keys])
    assert obs.sum() == n
    exp = np.array([float(exact[k]) for k in keys]) * n
    assert stats.chisquare(obs, exp).pvalue > 1e-4


def test_rule_10_12_example(ch):
    """Strength 5+5 on a town halves to 5, column 4, +1 enemy artillery -> 6;
    4 battalions; roll 11 is D."""
    strength = B.bombard_strength(5 + 5, True)
    assert strength == 5
    stack = B.stacking_total(4, 0, 0, 0)
    shift = B.bombard_shift(True, False, False, False)
    col, res = B.resolve_bombardment(strength, stack, shift, 11, ch.bomb, ch.bomb_columns, ch.bomb_min_strength)
    assert ch.bomb_columns[col] == 6 and res == B.RESULT_D
    d = bombardment_distribution(strength, stack, shift, ch)
    assert d["column"] == 6 and any(o["result"] == "D" and 11 in o["rolls"] for o in d["outcomes"])


def test_rule_10_12_stacking_and_minimum(ch):
    assert B.stacking_total(0, 0, 3, 0) == 1
    assert B.stacking_total(1, 0, 1, 0) == 2  # 1 1/3 rounds up
    assert B.stacking_total(0, 0, 2, 1) == 1  # HQ = a company
    assert B.stacking_total(3, 1, 0, 0) == 4  # a remnant is half a battalion
    row, col = B.bombard_column(1, 4, 0, ch.bomb_columns, ch.bomb_min_strength)
    assert col == B.INEFFECTIVE


def test_rule_10_14_casualty_cap():
    assert B.bombard_steps_lost(B.RESULT_2, 3, 0) == 2
    assert B.bombard_steps_lost(B.RESULT_2, 1, 0) == 1
    assert B.bombard_steps_lost(B.RESULT_Z, 8, 6) == 4
    assert B.bombard_steps_lost(B.RESULT_D, 8, 6) == 0


def test_bombardment_monte_carlo_matches_exact(ch):
    """Chi-square of 20 000 seeded bombardments to the exact distribution;
    false-alarm rate 1e-4."""
    st = numba_state(5, 0, "bombardment")
    n = 20000
    res = np.array([B.roll_bombardment(st, 18, 5, 0, ch.bomb, ch.bomb_columns, ch.bomb_min_strength)[2]
                    for _ in range(n)])
    d = bombardment_distribution(18, 5, 0, ch)
    from malta_sim.loaders.iod_charts import BOMB_RESULTS
    obs = np.array([np.sum(res == BOMB_RESULTS.index(o["result"])) for o in d["outcomes"]])
    exp = np.array([o["probability"] for o in d["outcomes"]]) * n
    assert obs.sum() == n and stats.chisquare(obs, exp).pvalue > 1e-4


def test_engine_odds_helpers_agree_with_kernel(ch):
    """The land engine's Python odds helpers give the kernel's levels and columns."""
    static = pytest.importorskip("malta_sim.iod.static")
    combat = pytest.importorskip("malta_sim.iod.rules.combat")
    for a in range(1, 40):
        for d in range(1, 40):
            assert static.odds_level(a, d) == K.basic_odds_level(a, d)
    for li in range(len(ch.line_names)):
        for lv in range(-6, 14):
            assert combat.crt_column(ch, li, lv) == K.final_column(lv, li, ch.line_cols, ch.col_level)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hst  # noqa: E402


_CHARTS = load_charts()


@settings(max_examples=300, deadline=None)
@given(a=hst.integers(1, 80), d=hst.integers(1, 60), shift=hst.integers(-6, 6), line=hst.integers(0, 3),
       roll=hst.integers(2, 12), fort=hst.booleans())
def test_more_attack_never_hurts_the_attacker(a, d, shift, line, roll, fort):
    """Property: one more attack point, one less defense point or one more
    column shift never gives the attacker a worse cell for the same dice."""
    ch = _CHARTS

    def res(a_, d_, s_):
        col, ah, ae, dh, de = K.resolve_combat(a_, d_, s_, line, fort, roll, ch.crt, ch.line_cols, ch.col_level)
        return col, (ah, ae), (dh, de)

    base = res(a, d, shift)
    for other in (res(a + 1, d, shift), res(a, max(1, d - 1), shift), res(a, d, shift + 1)):
        if base[0] == K.CANCELLED:
            continue
        assert other[0] >= base[0]
        assert other[1][0] <= base[1][0] and other[1][1] <= base[1][1]
        assert other[2][0] >= base[2][0] and other[2][1] >= base[2][1]
