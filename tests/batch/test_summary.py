"""The printable batch summary: Wilson intervals, end reasons, median end."""

from __future__ import annotations

import pandas as pd
import pytest

from malta_sim.summary import end_reasons, format_summary, median_end, winner_shares


def _frame():
    return pd.DataFrame({
        "winner": ["axis"] * 3 + ["allied"] * 7,
        "end_reason": ["surrender"] * 3 + ["time limit"] * 5 + ["operation cancelled"] * 2,
        "end_turn": [10, 12, 14, 48, 48, 48, 48, 48, 3, 5],
        "end_date": ["d10", "d12", "d14"] + ["d48"] * 5 + ["d3", "d5"],
    })


def test_winner_shares_wilson():
    ws = winner_shares(_frame())
    assert list(ws.index) == ["axis", "allied"]
    assert ws.loc["axis", "games"] == 3 and ws.loc["axis", "share"] == pytest.approx(0.3)
    # Wilson 95% interval for 3/10 (z = 1.95996): 0.1078 .. 0.6032
    assert ws.loc["axis", "ci_low"] == pytest.approx(0.10779, abs=1e-4)
    assert ws.loc["axis", "ci_high"] == pytest.approx(0.60322, abs=1e-4)


def test_end_reasons_and_median_end():
    er = end_reasons(_frame())
    assert er.index[0] == "time limit" and er.loc["time limit", "games"] == 5
    m = median_end(_frame())
    assert m["turn"] == 14 and m["date"] == "d14"  # lower median of 10 turns is the 5th smallest


def test_format_summary_blocks_for_arms():
    df = pd.concat([_frame().assign(arm="a"), _frame().assign(arm="b")], ignore_index=True)
    text = format_summary(df)
    lines = text.splitlines()
    assert lines[1].strip() == "20 games (2 arms), seed ?"
    assert lines[2].split()[:4] == ["arm", "games", "axis", "wins"]
    assert lines[3].split()[:3] == ["a", "10", "30.0%"] and "time limit 50.0%" in lines[3]
    assert lines[4].endswith("turn 14 (d14)")
