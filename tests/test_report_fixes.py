"""Regression tests of report fixes (calendar, provenance, intervals, arm order)."""

import numpy as np
import pandas as pd
import pytest

from malta_sim.report import write_report


def _sweep_frame():
    rng = np.random.default_rng(3)
    rows = []
    for arm in ("zeta", "alpha"):              # sweep-file order: zeta first
        for g in range(20):
            w = "axis" if rng.random() < 0.5 else "allied"
            rows.append({"arm": arm, "game": g, "seed": 1, "scenario": "intro", "winner": w,
                         "end_reason": "surrender" if w == "axis" else "time limit",
                         "end_turn": 10 if w == "axis" else 27})
    return pd.DataFrame(rows)


def test_sweep_baseline_is_first_arm_in_frame_order(tmp_path):
    s = write_report(_sweep_frame(), tmp_path / "r")
    assert s["arms"][0] == "zeta"
    assert {c["arm_a"] for c in s["paired_comparisons"]} == {"zeta"}


def test_headline_verdict_reads_as_a_sentence(tmp_path):
    df = pd.DataFrame({"game": range(8), "winner": ["axis", "allied"] * 4,
                       "end_reason": ["surrender", "time limit"] * 4, "end_turn": [10, 27] * 4,
                       "scenario": "intro"})
    write_report(df, tmp_path / "r")
    md = (tmp_path / "r" / "report.md").read_text()
    assert "Wilson): no clear winner: too few games" in md
    assert "the scenario no clear winner" not in md and "the scenario favours" not in md
