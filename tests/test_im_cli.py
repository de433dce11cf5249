"""`malta-sim im ...` subcommands: readable and JSON output, one-line errors with exit 2."""

import json

from click.testing import CliRunner

from malta_sim.cli import main


def run(*args):
    return CliRunner().invoke(main, ["im", *args])


def test_activation_json_exact_matches_closed_form():
    r = run("activation", "--axis", "L,Fo", "--allied", "Central", "--axis-air", "1", "--a", "axis:L", "--b", "allied:Central", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert abs(d["exact"]["a_before_b"]["p"] - 0.5) < 1e-12 and d["closed_form"]["p_a_before_b"] == 0.5


def test_activation_scenario_cup_readable_with_monte_carlo():
    r = run("activation", "--mc", "50", "--seed", "3", "--hold-axis", "L")
    assert r.exit_code == 0 and "monte carlo (n=50)" in r.output and "closed form" not in r.output


def test_er_disruption_weather():
    r = run("er", "--er", "6", "--drm", "0,2", "--json")
    assert json.loads(r.output)["table"]["p"] == [[0.6, 0.4]]
    r = run("disruption", "--unit", "7/6/2", "--results", "1", "--json")
    assert json.loads(r.output)["exact"]["expected_steps_lost"] == 0.5
    r = run("weather", "--json")
    assert abs(sum(json.loads(r.output).values()) - 1) < 1e-12


def test_reach_and_supply_on_packaged_map():
    r = run("reach", "--unit", "5/3", "--hex", "2630", "--json")
    d = json.loads(r.output)
    assert r.exit_code == 0 and d["map"]["2630"] == 0 and len(d["map"]) > 5
    r = run("reach", "--unit", "5/3", "--hex", "2630", "--phases", "3", "--to", "3028")
    assert r.exit_code == 0 and "3028" in r.output
    r = run("supply", "--axis", "5/3=2630", "--beachhead", "4331", "--json")
    assert json.loads(r.output)["units"] == {"5/3": True}


def test_errors_are_one_line_exit_2():
    for args in (("er", "--er", "x"), ("reach", "--unit", "nope", "--hex", "2630"), ("disruption", "--unit", "7/6"),
                 ("activation", "--a", "axis:L"), ("supply", "--axis", "5/3=2630"), ("reach", "--unit", "5/3", "--hex", "9999")):
        r = CliRunner().invoke(main, ["im", *args])
        assert r.exit_code == 2, (args, r.output)
        assert r.output.count("\n") <= 1 and "Traceback" not in r.output


def test_png_maps(tmp_path):
    r = run("reach", "--unit", "5/3", "--hex", "2630", "--phases", "2", "--png", str(tmp_path / "r.png"), "--json")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "r.png").stat().st_size > 1000
    r = run("supply", "--axis", "5/3=2630", "--allied", "1 KORR=2331", "--beachhead", "4331", "--png", str(tmp_path / "s.png"))
    assert r.exit_code == 0 and (tmp_path / "s.png").stat().st_size > 1000


def test_check_data_ok_and_broken(tmp_path):
    import shutil

    from malta_sim.games.invasion_malta import csvio

    r = run("check-data")
    assert r.exit_code == 0 and r.output.startswith("ok:") and "reconstructed" in r.output
    d = tmp_path / "im"
    shutil.copytree(csvio.DATA_DIR, d)
    p = d / "hexes.csv"
    lines = p.read_text().splitlines()
    lines[5] = lines[5].replace(",clear,", ",swamp,").replace(",rough,", ",swamp,").replace(",urban,", ",swamp,")
    p.write_text("\n".join(lines) + "\n")
    r = CliRunner().invoke(main, ["im", "check-data", "--data-dir", str(d)])
    assert r.exit_code == 2 and "hexes.csv:6" in r.output and "terrain" in r.output


def test_supply_map_beachhead_in_enemy_zoc_rule_6_23():
    """An Allied unit beside the Beachhead puts it in its ZOC; the unit standing on the
    Beachhead is Supplied (6.23), and the map says the same of that hex."""
    r = run("supply", "--axis", "5/3=4331", "--allied", "1 KORR=4330", "--beachhead", "4331", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["units"] == {"5/3": True} and "4331" in d["supplied"] and "4330" not in d["supplied"]
    # the map is for a unit that would stand in each hex: the same Beachhead with the unit elsewhere
    r = run("supply", "--axis", "5/3=2630", "--allied", "1 KORR=4330", "--beachhead", "4331", "--json")
    d = json.loads(r.output)
    assert "4331" in d["supplied"] and "4331" not in d["out_of_supply"]
