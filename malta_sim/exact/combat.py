"""Exact outcome distribution of one combat and one bombardment (rules 9.3-9.4,
9.94, 10.12): every result cell with its probability and the 2d6 rolls that give
it, and the expected hits and step losses per side."""

from __future__ import annotations

from fractions import Fraction

from ..kernels.bombard import INEFFECTIVE, bombard_column
from ..kernels.crt import (
    CANCELLED,
    LEVEL_INFINITE,
    LEVEL_NONE,
    basic_odds_level,
    combat_column,
    crt_cell,
    split_hits,
)
from ..loaders.iod_charts import BOMB_RESULTS, IodCharts, format_result, level_to_odds_label

#: Ways to roll each 2d6 total (out of 36).
WAYS_2D6 = {r: 6 - abs(r - 7) for r in range(2, 13)}


def p_2d6(roll: int) -> Fraction:
    """Exact probability of a 2d6 total."""
    return Fraction(WAYS_2D6.get(roll, 0), 36)


def _level_label(lv: int) -> str:
    if lv == LEVEL_INFINITE:
        return "inf"
    if lv == LEVEL_NONE:
        return "0"
    return level_to_odds_label(lv)


def combat_distribution(att_total: int, def_total: int, shift: int, line: int, fort: bool,
                        charts: IodCharts) -> dict:
    """Full outcome distribution of one attack.

    Parameters
    ----------
    att_total, def_total : int
        Modified totals (strength points).
    shift : int
        Total column shift (rule 9.92).
    line : int
        CRT line index.
    fort : bool
        Defender in a fort hex (defender hits -1, rule 9.94).
    charts : IodCharts

    Returns
    -------
    dict
        ``basic_odds`` / ``final_odds`` (labels like ``"1:1"``), ``column``
        (label, or None when cancelled), ``line`` (name), ``cancelled``,
        ``outcomes``: list of ``{"result", "probability" (float), "p" (Fraction),
        "rolls"}`` in roll order, and ``expected``: attacker/defender hits and
        step losses (before the excess-loss rule and standing ground, which
        depend on the units), exact as floats.
    """
    lv = basic_odds_level(att_total, def_total)
    final = lv if lv in (LEVEL_INFINITE, LEVEL_NONE) else lv + shift
    col = combat_column(att_total, def_total, shift, line, charts.line_cols, charts.col_level)
    out = {
        "basic_odds": _level_label(lv),
        "final_odds": _level_label(final),
        "line": charts.line_names[line],
        "cancelled": bool(col == CANCELLED),  # a plain bool also when the kernel runs as Python (rule 9.3 g)
        "column": None if col == CANCELLED else charts.crt_columns[col],
        "outcomes": [],
        "expected": {"attacker_hits": 0.0, "defender_hits": 0.0, "attacker_steps": 0.0, "defender_steps": 0.0},
    }
    if col == CANCELLED:
        return out
    cells: dict[str, dict] = {}
    e = {k: Fraction(0) for k in ("ah", "dh", "as", "ds")}
    for roll in range(2, 13):
        ah, ae, dh, de = (int(x) for x in crt_cell(charts.crt, line, col, roll, fort))   # 9.4, 9.94
        key = format_result(ah, ae, dh, de)
        c = cells.setdefault(key, {"result": key, "p": Fraction(0), "rolls": []})
        p = p_2d6(roll)
        c["p"] += p
        c["rolls"].append(roll)
        e["ah"] += p * ah
        e["dh"] += p * dh
        e["as"] += p * split_hits(ah, False)[0]
        e["ds"] += p * split_hits(dh, True)[0]
    for c in cells.values():
        c["probability"] = float(c["p"])
    out["outcomes"] = list(cells.values())
    out["expected"] = {
        "attacker_hits": float(e["ah"]),
        "defender_hits": float(e["dh"]),
        "attacker_steps": float(e["as"]),
        "defender_steps": float(e["ds"]),
    }
    return out


def cell_probabilities(att_total, def_total, shift, line, fort, charts) -> dict[tuple, Fraction]:
    """Exact probability of each raw result tuple ``(ah, ae, dh, de)``; empty
    when the attack is cancelled."""
    col = combat_column(att_total, def_total, shift, line, charts.line_cols, charts.col_level)
    out: dict[tuple, Fraction] = {}
    if col == CANCELLED:
        return out
    for roll in range(2, 13):
        ah, ae, dh, de = (int(x) for x in crt_cell(charts.crt, line, col, roll, fort))   # 9.4, 9.94
        out[(ah, ae, dh, de)] = out.get((ah, ae, dh, de), Fraction(0)) + p_2d6(roll)
    return out


def bombardment_distribution(strength: int, stack: int, shift: int, charts: IodCharts) -> dict:
    """Full outcome distribution of one bombardment (rule 10.12).

    Returns
    -------
    dict
        ``row`` (battalions row), ``column`` (strength heading, or None when the
        fire is ineffective), ``ineffective``, ``outcomes`` (``result``,
        ``probability``, ``rolls``) and ``expected`` step losses from ``1``/``2``
        results (before the cap of 10.14 and Z losses, which depend on the hex).
    """
    row, col = bombard_column(strength, stack, shift, charts.bomb_columns, charts.bomb_min_strength)
    out = {"row": int(row) + 1, "ineffective": col == INEFFECTIVE,
           "column": None if col == INEFFECTIVE else int(charts.bomb_columns[col]),
           "outcomes": [], "expected": {"steps": 0.0}}
    if col == INEFFECTIVE:
        out["outcomes"] = [{"result": "-", "probability": 1.0, "p": Fraction(1), "rolls": []}]
        return out
    cells: dict[str, dict] = {}
    es = Fraction(0)
    for roll in range(2, 13):
        code = int(charts.bomb[row, col, roll])
        key = BOMB_RESULTS[code]
        c = cells.setdefault(key, {"result": key, "p": Fraction(0), "rolls": []})
        c["p"] += p_2d6(roll)
        c["rolls"].append(roll)
        es += p_2d6(roll) * {3: 1, 4: 2}.get(code, 0)
    for c in cells.values():
        c["probability"] = float(c["p"])
    out["outcomes"] = list(cells.values())
    out["expected"] = {"steps": float(es)}
    return out
