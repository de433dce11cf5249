"""Bugs found by driving the installed tool as a new user would.

Each test states the expected behaviour; tests marked ``xfail(strict=True)``
show a bug that is still open (the reason names it), so the suite stays green
and turns red the moment the bug is fixed (then drop the marker).
"""

import pandas as pd
import pytest
from click.testing import CliRunner

from malta_sim.cli import main


def _not_a_dir(tmp_path):
    """A path whose parent is a regular file: no process (root included) can
    create it, so it stands for any unwritable output location."""
    f = tmp_path / "afile"
    f.write_text("x")
    return f / "out"


def _one_line_exit_2(r):
    assert r.exit_code == 2, (r.exit_code, r.output, r.exception)
    assert "Traceback" not in r.output
    assert r.output.strip().startswith("error:")


def test_map_unwritable_out_is_one_line(tmp_path):
    r = CliRunner().invoke(main, ["map", "--out", str(_not_a_dir(tmp_path)) + ".png"])
    _one_line_exit_2(r)


def test_odds_drop_unwritable_out_is_one_line(tmp_path):
    r = CliRunner().invoke(main, ["odds", "drop", "--hex", "1210", "--out",
                                  str(_not_a_dir(tmp_path)) + ".png"])
    _one_line_exit_2(r)


def test_report_unwritable_out_is_one_line(tmp_path):
    df = pd.DataFrame({"game": range(4), "winner": ["axis", "allied"] * 2,
                       "end_reason": ["surrender", "time limit"] * 2, "end_turn": [10, 27] * 2,
                       "scenario": "intro"})
    src = tmp_path / "g.csv"
    df.to_csv(src, index=False)
    r = CliRunner().invoke(main, ["report", str(src), "--out", str(_not_a_dir(tmp_path))])
    _one_line_exit_2(r)


def test_replay_unwritable_out_is_one_line(tmp_path):
    r = CliRunner().invoke(main, ["replay", "--scenario", "intro", "--seed", "1", "--game", "0",
                                  "--no-maps", "--out", str(_not_a_dir(tmp_path))])
    _one_line_exit_2(r)


def _im_like_frame():
    """Result rows shaped like `malta-sim run --scenario im-c3`: Axis wins by
    sudden-death objectives, never by a surrender roll (IM has none)."""
    return pd.DataFrame({"game": range(4), "seed": 1, "scenario": "im-c3",
                         "axis_policy": "advance", "allied_policy": "counter", "options": "none",
                         "policy_params": "{}", "winner": "axis",
                         "end_reason": "sudden_objectives", "end_turn": [10, 11, 10, 11],
                         "axis_steps_lost": 9, "allied_steps_lost": 25})


def test_report_im_sudden_death_is_not_a_surrender(tmp_path):
    from malta_sim.report import write_report

    s = write_report(_im_like_frame(), tmp_path / "r")
    shares = [row["share"] for row in s["timing_by_day"].get("surrender", [])]
    assert max(shares, default=0.0) == 0.0


def test_report_im_calendar_is_not_iod(tmp_path):
    from malta_sim.report import write_report

    s = write_report(_im_like_frame(), tmp_path / "r")
    assert s["calendar"]["start"] != "1942-06-29"


def test_report_md_mentions_failed_games(tmp_path):
    from malta_sim.report import write_report

    df = pd.DataFrame({"game": [0, 1, 3], "winner": ["axis", "allied", "axis"],
                       "end_reason": ["surrender", "time limit", "surrender"], "end_turn": [10, 27, 12],
                       "scenario": "intro"})
    df.attrs.update({"scenario": "intro", "n_games": 4,
                     "failed_games": [{"game": 2, "error": "IllegalDecision: example"}]})
    write_report(df, tmp_path / "r")
    md = (tmp_path / "r" / "report.md").read_text()
    assert "fail" in md.lower() or "left out" in md.lower()


def test_report_md_mentions_reconstructed_data(tmp_path):
    from malta_sim.report import write_report

    df = pd.DataFrame({"game": range(4), "winner": ["axis", "allied"] * 2,
                       "end_reason": ["surrender", "time limit"] * 2, "end_turn": [10, 27] * 2,
                       "scenario": "intro"})
    df.attrs.update({"scenario": "intro", "charts": "reconstructed",
                     "reconstructed_components": ["combat"]})
    write_report(df, tmp_path / "r")
    assert "reconstructed" in (tmp_path / "r" / "report.md").read_text().lower()


def test_batch_data_hash_matches_data_info():
    from malta_sim.batch import data_hash
    from malta_sim.loaders import load_iod

    loader_hash = load_iod(None).data_hash
    assert loader_hash == data_hash(None, "island_of_death")


def test_report_headline_is_a_sentence(tmp_path):
    from malta_sim.report import write_report

    df = pd.DataFrame({"game": range(8), "winner": ["axis", "allied"] * 4,
                       "end_reason": ["surrender", "time limit"] * 4, "end_turn": [10, 27] * 4,
                       "scenario": "intro"})
    write_report(df, tmp_path / "r")
    assert "the scenario no clear winner" not in (tmp_path / "r" / "report.md").read_text()


def test_iod_provenance_lists_reconstructed_data():
    from malta_sim.batch import run_games
    from malta_sim.loaders import load_iod

    rec = {f for f, n in load_iod(None).reconstructed.items() if n}
    assert "hexes.csv" in rec and "units.csv" in rec
    attrs = run_games("intro", 1, 0).attrs
    listed = " ".join(map(str, attrs.get("reconstructed_components") or []))
    assert "hexes" in listed or "map" in listed


def test_policy_params_unknown_side_is_an_error(tmp_path):
    r = CliRunner().invoke(main, ["run", "--scenario", "intro", "--games", "1", "--seed", "1", "-q",
                                  "--policy-params", '{"axiss": {"min_odds": 3}}',
                                  "--out", str(tmp_path / "x.csv")])
    _one_line_exit_2(r)


def test_policy_params_for_random_bot_are_checked(tmp_path):
    r = CliRunner().invoke(main, ["run", "--scenario", "intro", "--games", "1", "--seed", "1", "-q",
                                  "--axis-policy", "random",
                                  "--policy-params", '{"axis": {"no_such_parameter": 3}}',
                                  "--out", str(tmp_path / "x.csv")])
    _one_line_exit_2(r)


def test_report_rejects_per_turn_of_another_run(tmp_path):
    from malta_sim.errors import MaltaSimError
    from malta_sim.report import write_report

    games = pd.DataFrame({"game": range(4), "seed": 5, "winner": "axis", "end_reason": "surrender",
                          "end_turn": [10, 11, 12, 13], "scenario": "intro"})
    games.attrs.update({"scenario": "intro", "seed": 5, "n_games": 4})
    pt = pd.DataFrame({"game": [0, 0, 1], "turn": [4, 5, 4], "cities_axis": [0, 1, 0]})
    pt.attrs.update({"scenario": "intro", "seed": 9, "n_games": 2})
    with pytest.raises(MaltaSimError):
        write_report(games, tmp_path / "r", per_turn=pt)


def test_map_rejects_invalid_setup(tmp_path):
    import shutil
    from importlib.resources import files

    src = files("malta_sim") / "data" / "island_of_death"
    data = tmp_path / "iod"
    shutil.copytree(str(src), data)
    toml = data / "scenarios" / "intro.toml"
    text = toml.read_text()
    assert 'hex = "1309"' in text
    toml.write_text(text.replace('hex = "1309"', 'hex = "0101"', 1))
    check = CliRunner().invoke(main, ["data", "check", str(data)])
    assert check.exit_code == 2                      # the data are invalid
    r = CliRunner().invoke(main, ["map", "--scenario", "intro", "--data-dir", str(data),
                                  "--out", str(tmp_path / "m.png")])
    _one_line_exit_2(r)
