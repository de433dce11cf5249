"""``malta-sim odds crt|bombard|drop`` (worked examples of rules 9.9 and 10.12)."""

import json

import pytest
from click.testing import CliRunner

from malta_sim.cli import main


def run(*args):
    return CliRunner().invoke(main, ["odds", *args])


def test_odds_crt_rule_9_9_example_json():
    r = run("crt", "--attack", "29", "--defense", "15", "--shift", "5", "--terrain", "clear", "--time", "day", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["basic_odds"] == "1:1" and d["final_odds"] == "6:1" and d["column"] == "6:1"
    assert d["line"] == "all_other_terrains"
    cell = [o for o in d["outcomes"] if 6 in o["rolls"]][0]
    assert cell["result"] == "-/3D"
    assert sum(o["probability"] for o in d["outcomes"]) == pytest.approx(1.0)
    assert set(d["expected"]) == {"attacker", "defender"} and "steps" in d["expected"]["defender"]


def test_odds_crt_table_and_cancel():
    r = run("crt", "--attack", "29", "--defense", "15", "--shift", "5", "--terrain", "clear", "--time", "day")
    assert r.exit_code == 0 and "-/3D" in r.output and "6:1" in r.output
    r = run("crt", "--attack", "3", "--defense", "15", "--terrain", "city", "--time", "day")
    assert r.exit_code == 0 and "cancelled" in r.output


@pytest.mark.parametrize("shift, time, column, why", [
    (6, "day", "6:1", "fall between columns"),              # 7:1: the 6:1 column (9.3 g's example)
    (99, "day", "10:1", "above the line's highest column"),
    (6, "night", "6:1", "above the line's highest column"),
    (3, "day", "4:1", None),
])
def test_odds_crt_says_why_the_column_differs_from_the_final_odds(shift, time, column, why):
    """Rule 9.3 g: final odds between two columns use the lower one; odds
    above the line's highest column use that column; the table says which."""
    r = run("crt", "--attack", "6", "--defense", "6", "--shift", str(shift), "--terrain", "clear",
            "--time", time)
    assert r.exit_code == 0, r.output
    line = [x for x in r.output.splitlines() if x.startswith("column:")][0]
    assert line.split()[1] == column
    assert (why in line) if why else ("9.3 g" not in line)


def test_odds_bombard_rule_10_12_example():
    r = run("bombard", "--strength", "10", "--battalions", "4", "--terrain", "town", "--enemy-artillery", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["column"] == 6 and d["modified_strength"] == 5
    assert [o for o in d["outcomes"] if 11 in o["rolls"]][0]["result"] == "D"


def test_odds_drop_json_and_png(tmp_path):
    png = tmp_path / "drop.png"
    r = run("drop", "--hex", "1313", "--aa", "1", "--json", "--out", str(png))
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert sum(x["probability"] for x in d["landing"]) + d["drowned"] == pytest.approx(1.0)
    assert png.stat().st_size > 1000
    r = run("drop", "--hex", "1313", "--marker", "--german", "--json")
    d = json.loads(r.output)
    assert d["drowned"] == 0 and sum(x["probability"] for x in d["landing"]) == pytest.approx(1.0)


@pytest.mark.parametrize("args, word", [
    (["crt", "--attack", "-2", "--defense", "3", "--terrain", "clear", "--time", "day"], "--attack"),
    (["crt", "--attack", "2", "--defense", "3", "--terrain", "swamp", "--time", "day"], "--terrain"),
    (["bombard", "--strength", "-1", "--battalions", "2"], "--strength"),
    (["bombard", "--strength", "4", "--battalions", "2", "--terrain", "lava"], "--terrain"),
    (["drop", "--hex", "9999"], "off the map"),
    (["drop", "--hex", "0101"], "ocean"),
    (["drop", "--hex", "1313", "--aa", "-1"], "--aa"),
])
def test_odds_errors_one_line_exit_2(args, word):
    r = run(*args)
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and word in lines[0] and "Traceback" not in r.output


def test_odds_explain_codes_and_say_when_the_table_is_reconstructed(tmp_path):
    """Each calculator says whether its table is printed or reconstructed and ends
    with a key to its codes; a data folder whose chart rows all cite rules is
    reported as printed."""
    import re
    import shutil

    from click.testing import CliRunner

    from malta_sim.cli import main
    from malta_sim.cli.cmd_odds import table_source
    from malta_sim.loaders.common import packaged_data_dir

    runner = CliRunner()
    crt = runner.invoke(main, ["odds", "crt", "--attack", "29", "--defense", "15", "--shift", "5", "--terrain",
                               "clear", "--time", "day"])
    assert crt.exit_code == 0 and crt.output.startswith("table: RECONSTRUCTED")
    assert "D = every unit of that side disorganized, Z = demoralized" in crt.output
    bomb = runner.invoke(main, ["odds", "bombard", "--strength", "10", "--battalions", "4"])
    assert bomb.exit_code == 0 and "table: RECONSTRUCTED" in bomb.output and "key: - = no effect" in bomb.output
    drop = runner.invoke(main, ["odds", "drop", "--hex", "1313", "--json"])
    assert json.loads(drop.output)["table"]["status"] == "reconstructed"
    d = tmp_path / "printed"
    shutil.copytree(packaged_data_dir(), d)
    for f in ("crt.csv", "crt_lines.csv"):
        p = d / f
        p.write_text(re.sub(r"reconstructed[^\n]*", "rule 9.4", p.read_text(encoding="utf-8")), encoding="utf-8")
    assert table_source(d, "crt")["status"] == "printed"
    out = runner.invoke(main, ["odds", "crt", "--attack", "29", "--defense", "15", "--terrain", "clear", "--time",
                               "day", "--data-dir", str(d)])
    assert out.exit_code == 0 and out.output.startswith("table: printed")
