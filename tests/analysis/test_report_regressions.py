"""Regression tests of report fixes (calendar, provenance, intervals, arm order)."""

import numpy as np
from scipy import stats
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


def test_report_names_failed_games(tmp_path):
    df = pd.DataFrame({"game": [0, 1, 3], "winner": ["axis", "allied", "axis"],
                       "end_reason": ["surrender", "time limit", "surrender"], "end_turn": [10, 27, 12],
                       "scenario": "intro"})
    df.attrs.update({"scenario": "intro", "n_games": 4,
                     "failed_games": [{"game": 2, "error": "IllegalDecision: example"}]})
    s = write_report(df, tmp_path / "r")
    md = (tmp_path / "r" / "report.md").read_text()
    assert "1 game(s) failed in the engine and are left out" in md and "game(s) 2" in md
    assert s["failed_games"] == [{"game": 2, "error": "IllegalDecision: example"}]


def test_report_states_reconstructed_data_and_bots(tmp_path):
    df = pd.DataFrame({"game": range(4), "winner": ["axis", "allied"] * 2, "axis_policy": "advance",
                       "allied_policy": "counter", "end_reason": ["surrender", "time limit"] * 2,
                       "end_turn": [10, 27] * 2, "scenario": "intro"})
    df.attrs.update({"scenario": "intro", "reconstructed_components": ["combat", "air"], "data_hash": "abc123"})
    s = write_report(df, tmp_path / "r")
    md = (tmp_path / "r" / "report.md").read_text()
    head = md[: md.index("## Who wins")]
    assert "Reconstructed data" in head and "combat, air" in head and "abc123" in head
    assert "Axis `advance` vs Allied `counter`" in head
    assert s["reconstructed_components"] == ["combat", "air"]


def test_report_cli_refuses_per_turn_of_another_run(tmp_path):
    from click.testing import CliRunner

    from malta_sim.cli import main

    games = pd.DataFrame({"game": range(3), "seed": 5, "winner": "axis", "end_reason": "surrender",
                          "end_turn": [10, 11, 12], "scenario": "intro"})
    games.to_csv(tmp_path / "g.csv", index=False)
    pt = pd.DataFrame({"game": [0, 1, 2], "seed": 9, "turn": [4, 4, 4], "cities_axis": [0, 1, 0]})
    pt.to_csv(tmp_path / "pt.csv", index=False)
    r = CliRunner().invoke(main, ["report", str(tmp_path / "g.csv"), "--per-turn", str(tmp_path / "pt.csv"),
                                  "--out", str(tmp_path / "r")])
    assert r.exit_code == 2 and r.output.startswith("error:") and "seed 9 there, 5 in RESULTS" in r.output
    pt.assign(seed=5).iloc[:2].to_csv(tmp_path / "pt.csv", index=False)
    r = CliRunner().invoke(main, ["report", str(tmp_path / "g.csv"), "--per-turn", str(tmp_path / "pt.csv"),
                                  "--out", str(tmp_path / "r")])
    assert r.exit_code == 2 and "1 game(s) of RESULTS missing there (first: 2)" in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_count_means_never_get_a_negative_bound():
    from malta_sim.analysis import numeric_summary

    x = np.zeros(120, dtype=int)
    x[[3, 50, 77, 90]] = 1                     # rare count: the t interval reaches below 0
    df = pd.DataFrame({"game": range(120), "winner": "axis", "end_reason": "surrender", "end_turn": 10,
                       "scenario": "intro", "axis_hqs_lost": x})
    r = numeric_summary(df, ["axis_hqs_lost"]).iloc[0]
    assert 0 <= r["low"] < r["mean"] < r["high"] <= 1
    # a count seen in 4 games is rare: the exact Poisson (Garwood) interval of 4 events in 120 games
    assert r["interval"] == "exact Poisson (Garwood)"
    assert (r["low"], r["high"]) == pytest.approx((stats.chi2.ppf(0.025, 8) / 2 / 120,
                                                   stats.chi2.ppf(0.975, 10) / 2 / 120))
    never = numeric_summary(df.assign(axis_hqs_lost=0), ["axis_hqs_lost"]).iloc[0]
    assert never["low"] == 0 and never["high"] == pytest.approx(-np.log(0.025) / 120)   # not [0, 0]
    common = numeric_summary(df.assign(axis_hqs_lost=np.arange(120) % 3), ["axis_hqs_lost"]).iloc[0]
    assert common["interval"] == "t" and common["low"] >= 0


def test_im_report_uses_im_calendar_and_end_reasons(tmp_path):
    from malta_sim.batch import run_games

    games = run_games("im-c3", 3, 1)
    s = write_report(games, tmp_path / "r")
    md = (tmp_path / "r" / "report.md").read_text()
    assert s["game"] == "invasion_malta"
    assert s["calendar"]["start"] is None and s["calendar"]["turns_per_day"] == 3
    assert s["calendar"]["first_turn"] == 1 and s["calendar"]["last_turn"] == 12
    assert "surrender" not in s["timing_by_day"] and "axis_win" in s["timing_by_day"]
    assert "29 Jun" not in md and "Malta surrenders" not in md and "rule 20.3" not in md
    assert "early August 1942" in md and "day 1" in md and "rule 4.22" in md
    reasons = {r["end_reason"] for r in s["end_reasons"]}
    assert "surrender" not in reasons and "sudden victory" in reasons


def test_surrender_curve_counts_only_surrenders():
    from malta_sim.analysis.timing import event_turns

    df = pd.DataFrame({"game": range(3), "winner": ["axis", "axis", "allied"],
                       "end_reason": ["surrender", "sudden_objectives", "time limit"], "end_turn": [9, 10, 27]})
    assert event_turns(df, "surrender").tolist()[:1] == [9.0]
    assert np.isnan(event_turns(df, "surrender")[1:]).all()
    assert event_turns(df, "axis_win").tolist()[:2] == [9.0, 10.0]


def test_iod_calendar_unchanged():
    from malta_sim.analysis import Calendar, calendar_for

    h = calendar_for("hercules")
    assert h.start == "1942-06-29" and h.label(47) == "10 Jul night" and h.day_label(4) == "30 Jun"
    assert Calendar.label(2) == "29 Jun PM"        # class-level form still works
    assert list(h.day_starts()[:2]) == [0, 4] and bool(h.is_day_end(3))


def test_airfield_curve_says_capture_not_possession(tmp_path):
    df = pd.DataFrame({"game": range(4), "winner": ["axis", "allied"] * 2, "scenario": "intro",
                       "end_reason": ["surrender", "time limit"] * 2, "end_turn": [10, 27] * 2,
                       "airfields_axis": [1, 1, 2, 1], "first_airfield_turn": [-1, -1, 8, -1]})
    s = write_report(df, tmp_path / "r")
    md = (tmp_path / "r" / "report.md").read_text()
    assert "## First airfield captured by the Axis" in md
    assert "capture, not possession" in md and "more* airfields than at set-up" in md
    assert "first_airfield" in s["timing_by_day"]


def test_per_turn_rows_of_skipped_games_are_tolerated(tmp_path):
    games = pd.DataFrame({"game": [0, 2], "seed": 5, "winner": "axis", "end_reason": "surrender",
                          "end_turn": [10, 11], "scenario": "intro"})
    games.attrs.update({"seed": 5, "failed_games": [{"game": 1, "error": "X"}]})
    pt = pd.DataFrame({"game": [0, 1, 2], "turn": [4, 4, 4], "cities_axis": [0, 0, 1]})
    s = write_report(games, tmp_path / "r", per_turn=pt)
    assert "victory_city" in s["timing_by_day"]
