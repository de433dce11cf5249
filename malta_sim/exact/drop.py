"""Exact landing distributions of a planned drop (rules 19.41-19.45, 21.1).

One jump from hex ``h`` with Drop Table modifier ``m`` gives each result code
with the probability of its modified 2d6 range; each code gives a distance
distribution (Adjacent 1; Half ceil(d6/2) = 1, 2, 3 each 1/3; One 1..6; Two the
2d6 total) and the Scatter Diagram a direction (uniform over the six, one die
face each).  A stick's unit drowns when it ends in the ocean or off the map.

A drop zone marker that comes down in the ocean rolls again (19.42): the
re-rolls form an absorbing Markov chain whose transient states are the hexes
the marker rolls *from* and whose absorbing states are the land hexes.  With
the literal reading (re-roll from the planned hex) there is one transient
state and the answer is the one-jump distribution conditioned on land; with
the landing-hex reading the chain has a transient state per ocean hex reached,
solved with ``(I - Q)^-1 R``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..errors import OptionError
from ..kernels.drop import ADJACENT, HALF, ON_TARGET, ONE, drop_modifier, drop_result, walk
from ..loaders.iod_charts import IodCharts
from .combat import p_2d6

OFF_MAP = -1


def code_probabilities(modifier: int, is_marker: bool, charts: IodCharts) -> dict[int, Fraction]:
    """Exact probability of each Drop Table result code for a DRM."""
    out: dict[int, Fraction] = {}
    for roll in range(2, 13):
        c = int(drop_result(roll + modifier, is_marker, charts.drop_roll_min, charts.drop_roll_max,
                            charts.drop_marker, charts.drop_stick))
        out[c] = out.get(c, Fraction(0)) + p_2d6(roll)
    return out


def distance_probabilities(code: int) -> dict[int, Fraction]:
    """Exact distribution of the hexes moved for a result code (19.41, 19.44)."""
    if code == ON_TARGET:
        return {0: Fraction(1)}
    if code == ADJACENT:
        return {1: Fraction(1)}
    if code == HALF:
        return {k: Fraction(1, 3) for k in (1, 2, 3)}
    if code == ONE:
        return {k: Fraction(1, 6) for k in range(1, 7)}
    return {k: p_2d6(k) for k in range(2, 13)}


def one_jump(start: int, modifier: int, is_marker: bool, nbr: np.ndarray, charts: IodCharts,
             ) -> dict[tuple[int, int], Fraction]:
    """Distribution of ``(final hex or OFF_MAP, last on-map hex)`` after one roll
    on the Drop Table and the Scatter Diagram from ``start``."""
    out: dict[tuple[int, int], Fraction] = {}
    dirs = [int(charts.scatter_dir[die]) for die in range(1, 7)]
    for code, pc in code_probabilities(modifier, is_marker, charts).items():
        for dist, pd in distance_probabilities(code).items():
            if dist == 0:
                key = (start, start)
                out[key] = out.get(key, Fraction(0)) + pc * pd
                continue
            for d in dirs:
                f, last = walk(nbr, start, d, dist)
                key = (int(f), int(last))
                out[key] = out.get(key, Fraction(0)) + pc * pd / 6
    return out


def stick_unit_landing(placed: int, german: bool, aa_within3: int, solitaire: bool,
                       is_ocean: np.ndarray, nbr: np.ndarray, charts: IodCharts) -> tuple[dict[int, Fraction], Fraction]:
    """Where one unit of a stick placed on ``placed`` lands (rules 19.44, 19.45).

    The marginal of one unit (for Half the whole stick moves together, for
    One/Two each unit rolls separately; the marginal is the same).

    Returns
    -------
    (dict hex -> Fraction, Fraction)
        Landing probabilities on non-ocean hexes and the probability of drowning
        (ocean or off the map); they sum to one.

    Raises
    ------
    OptionError
        If ``placed`` is an ocean hex (the jump would be cancelled, 19.43).
    """
    if is_ocean[placed]:
        raise OptionError("a stick placed on an ocean hex has its jump cancelled (rule 19.43)")
    m = drop_modifier(german, aa_within3, solitaire)
    land: dict[int, Fraction] = {}
    drowned = Fraction(0)
    for (f, _last), p in one_jump(placed, m, False, nbr, charts).items():
        if f < 0 or is_ocean[f]:
            drowned += p
        else:
            land[f] = land.get(f, Fraction(0)) + p
    return land, drowned


def marker_landing(planned: int, german: bool, aa_count: np.ndarray, solitaire: bool,
                   is_ocean: np.ndarray, nbr: np.ndarray, charts: IodCharts,
                   reroll_from_landing: bool = False) -> dict[int, float]:
    """Landing distribution of a drop zone marker with the re-rolls of 19.42.

    Parameters
    ----------
    planned : int
        Planned hex (dense index).
    german, solitaire : bool
    aa_count : int[n]
        Allied AA units within three hexes of each hex.
    is_ocean : bool[n]
    nbr : int32[n, 6]
    charts : IodCharts
    reroll_from_landing : bool
        Reading of 19.42 (see :mod:`malta_sim.kernels.drop`).

    Returns
    -------
    dict int -> float
        Probability of each land hex; sums to one.

    Raises
    ------
    OptionError
        If the marker can never reach land (no land within scatter range).
    """
    if not reroll_from_landing:
        m = drop_modifier(german, int(aa_count[planned]), solitaire)
        land: dict[int, Fraction] = {}
        sea = Fraction(0)
        for (f, _last), p in one_jump(planned, m, True, nbr, charts).items():
            if f < 0 or is_ocean[f]:
                sea += p
            else:
                land[f] = land.get(f, Fraction(0)) + p
        if sea == 1:
            raise OptionError("a drop zone marker planned there can never land on a non-ocean hex")
        return {h: float(p / (1 - sea)) for h, p in land.items()}
    # absorbing chain over the hexes the marker rolls from
    transient = [planned]
    index = {planned: 0}
    rows: list[dict] = []
    k = 0
    while k < len(transient):
        s = transient[k]
        m = drop_modifier(german, int(aa_count[s]), solitaire)
        row: dict = {}
        for (f, last), p in one_jump(s, m, True, nbr, charts).items():
            if f >= 0 and not is_ocean[f]:
                key = ("land", f)
            else:
                nxt = f if f >= 0 else last
                if nxt not in index:
                    index[nxt] = len(transient)
                    transient.append(nxt)
                key = ("t", nxt)
            row[key] = row.get(key, 0.0) + float(p)
        rows.append(row)
        k += 1
    nt = len(transient)
    lands = sorted({key[1] for row in rows for key in row if key[0] == "land"})
    if not lands:
        raise OptionError("a drop zone marker planned there can never land on a non-ocean hex")
    li = {h: j for j, h in enumerate(lands)}
    Q = np.zeros((nt, nt))
    R = np.zeros((nt, len(lands)))
    for i, row in enumerate(rows):
        for key, p in row.items():
            if key[0] == "t":
                Q[i, index[key[1]]] += p
            else:
                R[i, li[key[1]]] += p
    try:
        B = np.linalg.solve(np.eye(nt) - Q, R)
    except np.linalg.LinAlgError:
        raise OptionError("a drop zone marker planned there can never land on a non-ocean hex") from None
    probs = B[0]
    return {h: float(p) for h, p in zip(lands, probs) if p > 0}
