"""The zero-sum solver of the preset matrix (malta_sim.analysis.balance) on games
with known equilibria, checked against two other methods: nashpy's support
enumeration, and a brute-force support enumeration written here."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from malta_sim.analysis.balance import (
    analyse_balance,
    balance_matrix,
    bootstrap_equilibrium,
    dominated,
    format_balance,
    is_balance_frame,
    matrix_table,
    solve_matrix_game,
)
from malta_sim.errors import OptionError

nashpy = pytest.importorskip("nashpy")


def brute_force_value(A: np.ndarray) -> tuple[float, list]:
    """Value of a zero-sum game by enumerating square supports (Shapley-Snow):
    for every pair of equal-size supports solve the indifference equations and
    keep the solutions that are mixtures and best responses."""
    A = np.asarray(A, dtype=float)
    m, n = A.shape
    found = []
    for k in range(1, min(m, n) + 1):
        for rs in itertools.combinations(range(m), k):
            for cs in itertools.combinations(range(n), k):
                sub = A[np.ix_(rs, cs)]
                # x' sub = v 1, sum x = 1 ; sub y = v 1, sum y = 1
                M = np.block([[sub.T, -np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
                N = np.block([[sub, -np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
                rhs = np.r_[np.zeros(k), 1.0]
                try:
                    xs = np.linalg.solve(M, rhs)
                    ys = np.linalg.solve(N, rhs)
                except np.linalg.LinAlgError:
                    continue
                x = np.zeros(m)
                y = np.zeros(n)
                x[list(rs)] = xs[:k]
                y[list(cs)] = ys[:k]
                if (x < -1e-9).any() or (y < -1e-9).any():
                    continue
                v = float(x @ A @ y)
                if (x @ A >= v - 1e-9).all() and (A @ y <= v + 1e-9).all():
                    found.append((v, x, y))
    assert found, "a finite zero-sum game always has an equilibrium"
    return found[0][0], found


def nashpy_value(A: np.ndarray) -> float:
    """Value from nashpy's support enumeration, or its vertex enumeration when
    support enumeration finds no equilibrium (it looks at equal-size supports)."""
    import warnings

    A = np.asarray(A, dtype=float)
    g = nashpy.Game(A)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        eqs = list(g.support_enumeration()) or list(g.vertex_enumeration())
    x, y = eqs[0]
    return float(x @ A @ y)


def test_matching_pennies_half_with_even_mixtures():
    A = np.array([[1.0, 0.0], [0.0, 1.0]])
    eq = solve_matrix_game(A)
    assert eq.value == pytest.approx(0.5)
    np.testing.assert_allclose(eq.row, [0.5, 0.5], atol=1e-9)
    np.testing.assert_allclose(eq.col, [0.5, 0.5], atol=1e-9)
    assert nashpy_value(A) == pytest.approx(0.5)
    assert brute_force_value(A)[0] == pytest.approx(0.5)


def test_pure_saddle_point():
    # row 1 / column 0 is a saddle: 0.6 is the largest of its column's minima
    A = np.array([[0.2, 0.9, 0.5], [0.6, 0.8, 0.7], [0.1, 0.3, 0.95]])
    eq = solve_matrix_game(A)
    assert eq.value == pytest.approx(0.6)
    np.testing.assert_allclose(eq.row, [0, 1, 0], atol=1e-9)
    np.testing.assert_allclose(eq.col, [1, 0, 0], atol=1e-9)
    assert list(eq.row_support) == [1] and list(eq.col_support) == [0]
    assert nashpy_value(A) == pytest.approx(0.6)


def test_dominated_row_and_column_get_no_weight():
    # row 2 is strictly dominated by row 0; column 2 by column 1 (the Allies minimise)
    A = np.array([[0.8, 0.3, 0.9], [0.2, 0.7, 0.8], [0.1, 0.2, 0.85]])
    rows, cols = dominated(A)
    assert (2, 0) in rows and (2, 1) in cols
    eq = solve_matrix_game(A)
    assert eq.row[2] == pytest.approx(0) and eq.col[2] == pytest.approx(0)
    # what is left is a 2x2 game without a saddle: v = (ad - bc) / (a + d - b - c)
    a, b, c, d = 0.8, 0.3, 0.2, 0.7
    assert eq.value == pytest.approx((a * d - b * c) / (a + d - b - c))
    np.testing.assert_allclose(eq.row[:2], [(d - c) / (a + d - b - c), (a - b) / (a + d - b - c)], atol=1e-9)
    assert nashpy_value(A) == pytest.approx(eq.value)
    assert dominated(A, strict=True)[0] == [(2, 0)]


def test_weak_dominance_needs_one_strict_cell():
    A = np.array([[0.5, 0.5], [0.5, 0.4], [0.5, 0.5]])
    rows, _ = dominated(A)
    assert (1, 0) in rows and (1, 2) in rows
    assert (0, 2) not in rows and (2, 0) not in rows       # equal rows do not dominate each other


def test_ties_are_broken_away_from_weakly_dominated_presets():
    # the first Allied column ties the second where the Axis plays row 0 and is
    # worse for the Allies elsewhere: weakly dominated, so no weight on it even
    # though a mixture on it would be optimal too
    A = np.array([[0.975, 0.975, 1.0], [0.6, 0.5, 0.9]])
    assert (0, 1) in dominated(A)[1]
    for B in (A, A[:, [1, 0, 2]]):                 # whichever column the LP would meet first
        eq = solve_matrix_game(B)
        dom = [j for j, _ in dominated(B)[1]]
        assert eq.value == pytest.approx(0.975)
        assert all(eq.col[j] == 0 for j in dom)
        assert (eq.row @ B >= eq.value - 1e-9).all() and (B @ eq.col <= eq.value + 1e-9).all()


@pytest.mark.parametrize("shape", [(2, 2), (3, 2), (2, 4), (4, 3), (5, 3)])
def test_random_games_agree_with_two_oracles(shape):
    rng = np.random.default_rng(shape[0] * 10 + shape[1])
    for _ in range(15):
        A = rng.random(shape)                      # non-degenerate (almost surely), as support enumeration needs
        eq = solve_matrix_game(A)
        # the mixtures guarantee the value from both sides
        assert (eq.row @ A >= eq.value - 1e-7).all()
        assert (A @ eq.col <= eq.value + 1e-7).all()
        assert eq.row.sum() == pytest.approx(1) and eq.col.sum() == pytest.approx(1)
        assert brute_force_value(A)[0] == pytest.approx(eq.value, abs=1e-7)
        assert nashpy_value(A) == pytest.approx(eq.value, abs=1e-7)


def test_bad_matrix_is_an_option_error():
    with pytest.raises(OptionError, match="2-D"):
        solve_matrix_game([1.0, 2.0])
    with pytest.raises(OptionError, match="NaN"):
        solve_matrix_game([[np.nan, 1.0]])


def _frame(wins: np.ndarray, axis, allied, seed=5) -> pd.DataFrame:
    rows = []
    for i, a in enumerate(axis):
        for j, b in enumerate(allied):
            for g in range(wins.shape[2]):
                rows.append({"arm": f"{a} vs {b}", "game": g, "seed": seed, "scenario": "hercules",
                             "axis_policy": a, "allied_policy": b, "winner": "axis" if wins[i, j, g] else "allied",
                             "end_reason": "surrender" if wins[i, j, g] else "last_turn", "end_turn": 20})
    return pd.DataFrame(rows)


def test_matrix_from_frame_and_joint_bootstrap():
    rng = np.random.default_rng(1)
    # matching pennies played 400 times a cell, the cells driven by the same dice
    u = rng.random(400)
    W = np.zeros((2, 2, 400), dtype=bool)
    W[0, 0] = W[1, 1] = u < 0.8
    W[0, 1] = W[1, 0] = u < 0.2
    df = _frame(W, ["balanced", "random"], ["static", "random"])
    assert is_balance_frame(df)
    bm = balance_matrix(df)
    assert bm.axis == ["balanced", "random"] and bm.allied == ["static", "random"]
    np.testing.assert_array_equal(bm.wins, W)
    res = analyse_balance(df, n_boot=300)
    assert res.value == pytest.approx(0.5, abs=0.03)
    assert res.value_low < res.value < res.value_high
    assert res.value_high - res.value_low < 0.12
    np.testing.assert_allclose(res.axis_mixture, [0.5, 0.5], atol=0.05)
    assert res.cells["in_support"].all()
    text = format_balance(res)
    assert "Equilibrium Axis win rate: 50" in text.replace("49.", "50.") or "Equilibrium Axis win rate" in text
    assert matrix_table(res).shape == (2, 2)
    # the bootstrap depends only on its seed
    a = bootstrap_equilibrium(W, 50, seed=3)["values"]
    b = bootstrap_equilibrium(W, 50, seed=3)["values"]
    np.testing.assert_array_equal(a, b)


def test_missing_game_is_left_out_of_every_cell_and_missing_cell_refused():
    W = np.ones((2, 2, 10), dtype=bool)
    df = _frame(W, ["a", "b"], ["x", "y"])
    short = df[~((df["arm"] == "a vs x") & (df["game"] == 3))]
    bm = balance_matrix(short)
    assert bm.dropped == [3] and bm.n_games == 9
    with pytest.raises(OptionError, match="not a full preset matrix: no games for b vs y"):
        balance_matrix(df[df["arm"] != "b vs y"])
    assert not is_balance_frame(df[df["arm"] == "a vs x"])
    # a sweep with two arms a pairing (another parameter varied) is no preset matrix
    twice = pd.concat([df, df.assign(arm=df["arm"] + " b")])
    assert not is_balance_frame(twice)


def test_dominated_preset_reported_with_bootstrap_share():
    rng = np.random.default_rng(2)
    u = rng.random(200)
    W = np.zeros((2, 2, 200), dtype=bool)
    W[0, 0], W[0, 1] = u < 0.7, u < 0.6            # balanced beats random against both
    W[1, 0], W[1, 1] = u < 0.1, u < 0.3
    res = analyse_balance(_frame(W, ["balanced", "random"], ["static", "random"]), n_boot=100)
    d = res.dominated_axis
    assert d and d[0]["preset"] == "random" and d[0]["by"] == "balanced" and d[0]["strict"]
    assert d[0]["bootstrap_share"] == pytest.approx(1.0)
    assert res.value == pytest.approx(W[0, 1].mean())
