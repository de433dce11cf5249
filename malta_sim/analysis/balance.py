"""Balance under best play: the preset matrix as a two-player zero-sum game.

A *balance run* (``malta-sim balance``) plays every Axis preset against every
Allied preset on the same game indices and seed (common random numbers, CRN).
Its result frame has one row per (pairing, game) with the pairing in the
``axis_policy`` and ``allied_policy`` columns.  This module turns such a frame
into

* the **matrix** ``A[i, j]`` = share of games Axis preset ``i`` won against
  Allied preset ``j`` (``winner == "axis"``, the ``axis_win`` column of
  :func:`malta_sim.analysis.frames.with_outcomes`; Island of Death has no draw:
  every game ends in a surrender, an Axis win, or an Allied win by time limit
  or cancelled operation), with a Wilson interval per cell
  (:func:`malta_sim.analysis.rates.proportion_interval`);
* the **equilibrium** of the zero-sum game in which the Axis picks a row to
  raise ``A`` and the Allies a column to lower it (:func:`solve_matrix_game`,
  two linear programs solved with :func:`scipy.optimize.linprog`, HiGHS): the
  value ``v`` (the Axis win rate when both sides choose their presets as well
  as they can, knowing the other does too) and each side's mixture;
* a **bootstrap** interval of the value (:func:`bootstrap_equilibrium`): game
  indices are resampled with replacement *jointly* across cells, because the
  cells share their dice game by game;
* the **support** (presets with positive weight in the mixtures), presets
  **dominated** by another preset, and the games per cell that would narrow
  the value's interval to a target width.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from scipy.optimize import linprog

from ..errors import OptionError
from .frames import with_outcomes
from .rates import proportion_interval

#: Weight below which a preset counts as outside the support of a mixture.
SUPPORT_TOL = 1e-7

#: Default number of bootstrap resamples.
BOOTSTRAP = 1000


@dataclass
class Equilibrium:
    """A solution of a zero-sum matrix game (row player maximises).

    Attributes
    ----------
    value : float
        ``max_x min_y x' A y`` (= ``min_y max_x``, von Neumann).
    row : numpy.ndarray
        float64[m], the row player's optimal mixture (sums to 1).
    col : numpy.ndarray
        float64[n], the column player's optimal mixture (sums to 1).
    """

    value: float
    row: np.ndarray
    col: np.ndarray

    @property
    def row_support(self) -> np.ndarray:
        """int64 indices of the rows with weight > :data:`SUPPORT_TOL`."""
        return np.flatnonzero(self.row > SUPPORT_TOL)

    @property
    def col_support(self) -> np.ndarray:
        """int64 indices of the columns with weight > :data:`SUPPORT_TOL`."""
        return np.flatnonzero(self.col > SUPPORT_TOL)


def _check_matrix(a) -> np.ndarray:
    A = np.asarray(a, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] < 1 or A.shape[1] < 1:
        raise OptionError(f"payoff matrix must be 2-D with at least one row and column, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise OptionError("payoff matrix holds NaN or infinite entries")
    return A


def _max_min(A: np.ndarray) -> tuple[float, np.ndarray]:
    """Row player's LP: maximise v subject to A' x >= v, sum x = 1, x >= 0."""
    m, n = A.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0                                            # maximise v
    a_ub = np.hstack([-A.T, np.ones((n, 1))])               # v - (A' x)_j <= 0
    b_ub = np.zeros(n)
    a_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * m + [(None, None)]
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if res.status != 0:                                     # pragma: no cover - a finite game always has a value
        raise RuntimeError(f"linprog failed on the matrix game: {res.message}")
    x = np.clip(res.x[:m], 0.0, None)
    return float(res.x[-1]), x / x.sum()


def solve_matrix_game(a) -> Equilibrium:
    """Value and optimal mixtures of a zero-sum matrix game.

    The row player (the Axis) chooses a row to maximise ``A``, the column
    player (the Allies) a column to minimise it.  Each side's optimal mixture
    is a linear program solved with :func:`scipy.optimize.linprog` (HiGHS);
    the column player's is the row player's LP of ``-A'``.

    Parameters
    ----------
    a : array_like of float, shape (m, n)
        Payoff to the row player (here: Axis win rates in [0, 1], though any
        finite numbers are accepted).

    Returns
    -------
    Equilibrium
        ``value`` (float), ``row`` (float64[m]) and ``col`` (float64[n]).
        Weakly dominated strategies (:func:`dominated`) are removed first,
        round after round, and get weight 0: this leaves the value as it is
        (a dominating strategy does at least as well against everything), so
        when several mixtures are optimal the answer uses no dominated
        preset; among the rest the LP returns one (a vertex of the optimal
        set).

    Raises
    ------
    OptionError
        Not a 2-D finite matrix with at least one row and column.
    """
    A = _check_matrix(a)
    rows, cols = _undominated(A)
    B = A[np.ix_(rows, cols)]
    v, xb = _max_min(B)
    w, yb = _max_min(-B.T)
    value = 0.5 * (v - w)                                   # equal up to the solver's tolerance
    x = np.zeros(A.shape[0])
    y = np.zeros(A.shape[1])
    x[rows], y[cols] = xb, yb
    return Equilibrium(value=float(value), row=x, col=y)


def _undominated(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices left after removing weakly dominated pure
    strategies round after round (each round: every row and column that
    :func:`dominated` names; a strategy identical to another stays)."""
    rows, cols = np.arange(A.shape[0]), np.arange(A.shape[1])
    while True:
        dr, dc = dominated(A[np.ix_(rows, cols)])
        drop_r = {i for i, _ in dr}
        drop_c = {j for j, _ in dc}
        if not drop_r and not drop_c:
            return rows, cols
        rows = np.array([r for k, r in enumerate(rows) if k not in drop_r])
        cols = np.array([c for k, c in enumerate(cols) if k not in drop_c])


def dominated(a, *, strict: bool = False) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Pure strategies dominated by another pure strategy.

    Row ``i`` is dominated by row ``k`` when ``A[k, :] >= A[i, :]`` everywhere
    and ``>`` somewhere (``strict``: ``>`` everywhere); the row player
    maximises.  Column ``j`` is dominated by column ``l`` when
    ``A[:, l] <= A[:, j]`` everywhere and ``<`` somewhere (the column player
    minimises).  Identical strategies do not dominate each other.

    Parameters
    ----------
    a : array_like of float, shape (m, n)
    strict : bool

    Returns
    -------
    rows, cols : list of (int, int)
        ``(dominated, dominating)`` index pairs.
    """
    A = _check_matrix(a)

    def find(M: np.ndarray) -> list[tuple[int, int]]:       # rows of M, larger is better
        out = []
        for i in range(M.shape[0]):
            for k in range(M.shape[0]):
                if i == k:
                    continue
                ge, gt = M[k] >= M[i], M[k] > M[i]
                if (gt.all() if strict else (ge.all() and gt.any())):
                    out.append((i, k))
        return out

    return find(A), find(-A.T)


@dataclass
class BalanceMatrix:
    """The preset matrix of a balance run.

    Attributes
    ----------
    axis, allied : list of str
        Row (Axis preset) and column (Allied preset) names, in run order.
    games : numpy.ndarray
        int64[G], the game indices played in *every* cell (the common games).
    wins : numpy.ndarray
        bool[m, n, G], ``wins[i, j, g]``: Axis preset ``i`` beat Allied preset
        ``j`` in common game ``g``.
    dropped : list of int
        Game indices missing from some cell (a game that failed under
        ``--skip-failed``), left out of every cell so the cells stay paired.
    """

    axis: list
    allied: list
    games: np.ndarray
    wins: np.ndarray
    dropped: list = field(default_factory=list)

    @property
    def rates(self) -> np.ndarray:
        """float64[m, n] Axis win rate of each cell."""
        return self.wins.mean(axis=2)

    @property
    def n_games(self) -> int:
        return int(self.wins.shape[2])


def is_balance_frame(games: pd.DataFrame) -> bool:
    """True when ``games`` holds a full preset matrix: one seed, one arm a
    pairing, and every (axis_policy, allied_policy) combination of the values
    present (at least two presets a side), or a frame of ``malta-sim balance``."""
    if not {"axis_policy", "allied_policy", "game", "winner"} <= set(games.columns):
        return False
    if "seed" in games.columns and games["seed"].nunique() > 1:
        return False
    if games.duplicated(["axis_policy", "allied_policy", "game"]).any():
        return False                   # several arms a pairing (a sweep over parameters or options)
    if (games.attrs or {}).get("balance"):
        return True
    pairs = games[["axis_policy", "allied_policy"]].astype(str).drop_duplicates()
    m, n = games["axis_policy"].nunique(), games["allied_policy"].nunique()
    return len(pairs) >= 2 and len(pairs) == m * n and m >= 2 and n >= 2


def balance_matrix(games: pd.DataFrame) -> BalanceMatrix:
    """Arrange the rows of a balance run as a win array per cell and game.

    Parameters
    ----------
    games : pandas.DataFrame
        One row per (pairing, game): columns ``axis_policy``,
        ``allied_policy``, ``game``, ``winner`` (``"axis"``/``"allied"``).
        Row and column order follow first appearance (the run's order).

    Returns
    -------
    BalanceMatrix

    Raises
    ------
    OptionError
        Missing columns, a pairing missing (not a full matrix), a (pairing,
        game) present twice, several seeds, or no game common to every cell.
    """
    need = {"axis_policy", "allied_policy", "game", "winner"}
    if not need <= set(games.columns):
        raise OptionError(f"not a balance run: the frame lacks {', '.join(sorted(need - set(games.columns)))}")
    if "seed" in games.columns and games["seed"].nunique() > 1:
        raise OptionError("a balance run is played under one seed; this frame holds several")
    df = with_outcomes(games)
    ax = list(dict.fromkeys(df["axis_policy"].astype(str)))
    al = list(dict.fromkeys(df["allied_policy"].astype(str)))
    df = df.assign(axis_policy=df["axis_policy"].astype(str), allied_policy=df["allied_policy"].astype(str))
    if df.duplicated(["axis_policy", "allied_policy", "game"]).any():
        raise OptionError("a (pairing, game) appears twice; cannot pair the cells")
    cells = df.groupby(["axis_policy", "allied_policy"])["game"].apply(lambda s: set(s.tolist()))
    missing = [f"{a} vs {b}" for a in ax for b in al if (a, b) not in cells.index]
    if missing:
        raise OptionError(f"not a full preset matrix: no games for {', '.join(missing)}")
    common = set.intersection(*cells.tolist())
    every = set.union(*cells.tolist())
    if not common:
        raise OptionError("no game index was played in every cell; the cells cannot be compared")
    g = np.array(sorted(common), dtype=np.int64)
    pos = {int(k): i for i, k in enumerate(g)}
    wins = np.zeros((len(ax), len(al), len(g)), dtype=bool)
    ia = {a: i for i, a in enumerate(ax)}
    ib = {b: j for j, b in enumerate(al)}
    sub = df[df["game"].isin(common)]
    wins[sub["axis_policy"].map(ia).to_numpy(), sub["allied_policy"].map(ib).to_numpy(),
         sub["game"].map(pos).to_numpy()] = sub["axis_win"].to_numpy(dtype=bool)
    return BalanceMatrix(ax, al, g, wins, sorted(int(x) for x in every - common))


def bootstrap_equilibrium(wins: np.ndarray, n_boot: int = BOOTSTRAP, seed: int = 0) -> dict:
    """Bootstrap the equilibrium by resampling games jointly across cells.

    Each resample draws ``G`` game indices with replacement; every cell takes
    the *same* indices (the cells share their dice game by game, so resampling
    cells independently would misstate the spread), the matrix is recomputed
    and the game solved again.

    Parameters
    ----------
    wins : array_like of bool, shape (m, n, G)
    n_boot : int
        Resamples (>= 1).
    seed : int
        Seed of the resampling (``numpy.random.default_rng``); results depend
        only on it and ``wins``.

    Returns
    -------
    dict
        ``values`` float64[n_boot] (the value in each resample),
        ``row_in_support`` float64[m] and ``col_in_support`` float64[n]
        (share of resamples in which each preset has positive weight),
        ``row_mean`` / ``col_mean`` (mean mixtures), ``matrices``
        float64[n_boot, m, n] (the resampled matrices).

    Raises
    ------
    OptionError
        ``n_boot < 1`` or no games.
    """
    W = np.asarray(wins, dtype=np.float64)
    if W.ndim != 3 or W.shape[2] == 0:
        raise OptionError("bootstrap needs a win array of shape (rows, columns, games) with games")
    if isinstance(n_boot, bool) or int(n_boot) < 1:
        raise OptionError(f"bootstrap resamples must be an integer >= 1, got {n_boot!r}")
    m, n, G = W.shape
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0xBA1A]))
    values = np.empty(int(n_boot))
    rs, cs = np.zeros(m), np.zeros(n)
    rm, cm = np.zeros(m), np.zeros(n)
    mats = np.empty((int(n_boot), m, n))
    for b in range(int(n_boot)):
        weight = np.bincount(rng.integers(0, G, size=G), minlength=G) / G
        mats[b] = W @ weight
        eq = solve_matrix_game(mats[b])
        values[b] = eq.value
        rs[eq.row_support] += 1
        cs[eq.col_support] += 1
        rm += eq.row
        cm += eq.col
    nb = float(n_boot)
    return {"values": values, "row_in_support": rs / nb, "col_in_support": cs / nb,
            "row_mean": rm / nb, "col_mean": cm / nb, "matrices": mats}


@dataclass
class BalanceResult:
    """Everything :func:`analyse_balance` finds (all rates are proportions).

    ``cells`` is a frame with one row per pairing: ``axis_policy``,
    ``allied_policy``, ``games``, ``wins``, ``rate``, ``low``, ``high``
    (Wilson), ``in_support`` (both presets in the equilibrium's support).
    """

    scenario: str | None
    seed: int | None
    axis: list
    allied: list
    games: int
    dropped: list
    rates: np.ndarray
    cells: pd.DataFrame
    value: float
    value_low: float
    value_high: float
    axis_mixture: np.ndarray
    allied_mixture: np.ndarray
    axis_in_support: np.ndarray
    allied_in_support: np.ndarray
    dominated_axis: list
    dominated_allied: list
    n_boot: int
    alpha: float
    games_needed: dict

    def to_dict(self) -> dict:
        """JSON-able form (numpy arrays as lists; the cells as records)."""
        d = asdict(self)
        d["cells"] = self.cells.to_dict(orient="records")
        for k, v in list(d.items()):
            if isinstance(v, np.ndarray):
                d[k] = v.tolist()
        return d


def _dominance(rates: np.ndarray, boots_w: np.ndarray | None, names_r, names_c) -> tuple[list, list]:
    rows, cols = dominated(rates)
    out_r, out_c = [], []
    for kind, pairs, names, out in (("row", rows, names_r, out_r), ("col", cols, names_c, out_c)):
        for i, k in pairs:
            share = None
            if boots_w is not None:
                share = float(np.mean([((R[k] >= R[i]).all() and (R[k] > R[i]).any()) if kind == "row" else
                                       ((R[:, k] <= R[:, i]).all() and (R[:, k] < R[:, i]).any())
                                       for R in boots_w]))
            out.append({"preset": names[i], "by": names[k], "strict": bool(
                (rates[k] > rates[i]).all() if kind == "row" else (rates[:, k] < rates[:, i]).all()),
                "bootstrap_share": share})
    return out_r, out_c


def analyse_balance(games: pd.DataFrame, *, n_boot: int = BOOTSTRAP, alpha: float = 0.05,
                    boot_seed: int | None = None, widths=(0.10, 0.04)) -> BalanceResult:
    """Matrix, equilibrium, bootstrap interval, support and dominance of a balance run.

    Parameters
    ----------
    games : pandas.DataFrame
        A balance frame (:func:`balance_matrix`).
    n_boot : int
        Bootstrap resamples (:func:`bootstrap_equilibrium`).
    alpha : float
        1 - confidence level of the cell intervals (Wilson) and of the
        bootstrap percentile interval of the value.
    boot_seed : int, optional
        Seed of the resampling; default the run's seed (0 when unknown).
    widths : tuple of float
        Full widths of the value's interval for which the games per cell are
        estimated (``games_needed``).

    Returns
    -------
    BalanceResult
        ``games_needed`` maps each width to the games per cell, from the
        bootstrap spread shrinking as one over the square root of the games
        (``G * (current width / target)**2``); ``None`` when the interval is
        already that narrow or has zero width.

    Raises
    ------
    OptionError
        Not a balance frame, or a bad ``alpha``.
    """
    if not 0.0 < float(alpha) < 1.0:
        raise OptionError(f"alpha must lie in (0, 1), got {alpha}")
    bm = balance_matrix(games)
    R = bm.rates
    eq = solve_matrix_game(R)
    attrs = games.attrs or {}
    seed = attrs.get("seed")
    if seed is None and "seed" in games.columns and len(games):
        seed = int(games["seed"].iloc[0])
    bseed = boot_seed if boot_seed is not None else int(seed or 0)
    boot = bootstrap_equilibrium(bm.wins, n_boot, bseed)
    lo, hi = np.quantile(boot["values"], [alpha / 2, 1 - alpha / 2])
    lo, hi = float(min(lo, eq.value)), float(max(hi, eq.value))
    G = bm.n_games
    k = bm.wins.sum(axis=2)
    clo, chi = proportion_interval(k, np.full(k.shape, G), alpha=alpha)
    rows = []
    rs, cs = set(eq.row_support.tolist()), set(eq.col_support.tolist())
    for i, a in enumerate(bm.axis):
        for j, b in enumerate(bm.allied):
            rows.append({"axis_policy": a, "allied_policy": b, "games": G, "wins": int(k[i, j]),
                         "rate": float(R[i, j]), "low": float(clo[i, j]), "high": float(chi[i, j]),
                         "in_support": i in rs and j in cs})
    cells = pd.DataFrame(rows)
    # dominance on the point estimates, with the share of resamples in which it holds
    dom_r, dom_c = _dominance(R, boot["matrices"], bm.axis, bm.allied)
    width = hi - lo
    need = {}
    for w in widths:
        need[f"{w:g}"] = (int(math.ceil(G * (width / w) ** 2)) if width > w else None)
    return BalanceResult(
        scenario=attrs.get("scenario") or (str(games["scenario"].iloc[0]) if "scenario" in games.columns
                                           and games["scenario"].nunique() == 1 else None),
        seed=None if seed is None else int(seed), axis=bm.axis, allied=bm.allied, games=G, dropped=bm.dropped,
        rates=R, cells=cells, value=eq.value, value_low=lo, value_high=hi, axis_mixture=eq.row,
        allied_mixture=eq.col, axis_in_support=boot["row_in_support"], allied_in_support=boot["col_in_support"],
        dominated_axis=dom_r, dominated_allied=dom_c, n_boot=int(n_boot), alpha=float(alpha), games_needed=need)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def matrix_table(res: BalanceResult) -> pd.DataFrame:
    """The matrix as text cells ``"61.7% (49-73)"``: rows Axis presets, columns Allied presets.

    Returns
    -------
    pandas.DataFrame
        Index ``axis \\ allied`` (Axis preset names), one column per Allied
        preset, strings; a cell in the equilibrium's support is marked ``*``.
    """
    t = {}
    for r in res.cells.itertuples():
        star = " *" if r.in_support else ""
        t.setdefault(r.allied_policy, {})[r.axis_policy] = \
            f"{_pct(r.rate)} ({100 * r.low:.0f}-{100 * r.high:.0f}){star}"
    df = pd.DataFrame(t).reindex(index=res.axis, columns=res.allied)
    df.index.name = "axis \\ allied"
    return df


def format_balance(res: BalanceResult) -> str:
    """The printed summary of a balance run (plain text, no trailing newline)."""
    conf = f"{100 * (1 - res.alpha):g}%"
    L = [f"Preset matrix: Axis win rate ({res.games} games a cell, seed {res.seed}; {conf} Wilson intervals; "
         "* = cell the equilibrium rests on)"]
    tab = matrix_table(res)
    L.append(tab.to_string())
    if res.dropped:
        L.append(f"left out of every cell (missing in some): games {', '.join(map(str, res.dropped[:20]))}"
                 + (" ..." if len(res.dropped) > 20 else ""))
    L.append("")
    L.append(f"Equilibrium Axis win rate: {_pct(res.value)} ({conf} bootstrap interval {_pct(res.value_low)} - "
             f"{_pct(res.value_high)}, {res.n_boot} resamples of the games, joint across cells)")

    def mix(names, w, share):
        return ", ".join(f"{n} {100 * x:.0f}%" + f" [in support in {100 * s:.0f}% of resamples]"
                         for n, x, s in zip(names, w, share) if x > SUPPORT_TOL) or "-"
    L.append(f"  Axis mixture:   {mix(res.axis, res.axis_mixture, res.axis_in_support)}")
    L.append(f"  Allied mixture: {mix(res.allied, res.allied_mixture, res.allied_in_support)}")
    for side, items in (("Axis", res.dominated_axis), ("Allied", res.dominated_allied)):
        for name in dict.fromkeys(d["preset"] for d in items):
            by = [d for d in items if d["preset"] == name]
            L.append(f"  dominated {side} preset {name}: by " + ", ".join(
                f"{d['by']} ({'strictly' if d['strict'] else 'weakly'}"
                + (f"; in {100 * d['bootstrap_share']:.0f}% of resamples" if d["bootstrap_share"] is not None
                   else "") + ")" for d in by))
    need = [f"±{100 * float(w) / 2:g} points: {n} games a cell" for w, n in res.games_needed.items() if n]
    if need:
        L.append("  to narrow the equilibrium interval to " + "; ".join(need)
                 + f" (now {res.games}; the bootstrap spread shrinks as 1/sqrt(games))")
    return "\n".join(L)
