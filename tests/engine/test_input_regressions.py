"""Regression tests for inputs that used to be silently ignored or understated
(policy parameters, data check arguments, data hash, provenance, map set-up,
odds options, event causes)."""

import pytest
from click.testing import CliRunner

from malta_sim.cli import main
from malta_sim.errors import OptionError


def _one_line_exit_2(r, *words):
    assert r.exit_code == 2, (r.exit_code, r.output, r.exception)
    assert "Traceback" not in r.output
    out = r.output.strip()
    assert out.startswith("error:") and len(out.splitlines()) == 1, out
    for w in words:
        assert w in out, (w, out)


def test_policy_params_unknown_side_names_the_valid_sides(tmp_path):
    r = CliRunner().invoke(main, ["run", "--scenario", "intro", "--games", "1", "--seed", "1", "-q",
                                  "--policy-params", '{"axiss": {"min_odds": 3}}',
                                  "--out", str(tmp_path / "x.csv")])
    _one_line_exit_2(r, "axiss", "axis, allied")
    assert not (tmp_path / "x.csv").exists()


def test_policy_params_random_bot_lists_its_parameters(tmp_path):
    r = CliRunner().invoke(main, ["run", "--scenario", "intro", "--games", "1", "--seed", "1", "-q",
                                  "--axis-policy", "random",
                                  "--policy-params", '{"axis": {"anything": 3}}',
                                  "--out", str(tmp_path / "x.csv")])
    _one_line_exit_2(r, "anything", "p_move", "p_attack")


def test_policy_params_random_bot_declared_parameter_is_accepted():
    from malta_sim.batch import run_games

    df = run_games("intro", 1, 3, axis_policy="random", policy_params={"axis": {"p_move": 0.5}})
    assert len(df) == 1


def test_make_policy_refuses_undeclared_names_and_says_when_there_are_none():
    from malta_sim.bots import check_params, make_policy

    with pytest.raises(OptionError, match="valid: p_move, p_attack"):
        make_policy("random", 1, {"min_odds": 2})
    with pytest.raises(OptionError, match="takes no parameters"):
        check_params("dummy", 0, {"x": 1}, ())
    with pytest.raises(OptionError, match="must be a number"):
        make_policy("random", 0, {"p_move": "high"})


def test_play_games_refuses_an_unknown_side_key():
    from malta_sim.play import play_games

    with pytest.raises(OptionError, match="unknown side 'axiss'"):
        play_games("intro", 1, [0], policy_params={"axiss": {}})


def test_data_check_refuses_argument_and_option_together(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    r = CliRunner().invoke(main, ["data", "check", str(a), "--data-dir", str(b)])
    _one_line_exit_2(r, "DATA_DIR", "--data-dir")


def _printed_copy(tmp_path, files):
    """A copy of the packaged data whose ``files`` cite a rule in every row."""
    import csv
    import shutil
    from importlib.resources import files as res

    data = tmp_path / "iod"
    shutil.copytree(str(res("malta_sim") / "data" / "island_of_death"), data)
    for name in files:
        p = data / name
        with p.open(newline="") as fh:
            rows = list(csv.DictReader(fh))
            cols = list(rows[0])
        with p.open("w", newline="") as fh:
            w = csv.DictWriter(fh, cols)
            w.writeheader()
            for r in rows:
                r["source"] = "rule 9.3"
                w.writerow(r)
    return data


def test_provenance_follows_the_data_actually_loaded(tmp_path):
    """Printed charts given with --data-dir are not called reconstructed; the
    packaged data lists its reconstructed components (map, CRT, units ...)."""
    from malta_sim.batch import run_games
    from malta_sim.summary import format_summary

    packaged = run_games("intro", 1, 0).attrs
    assert {"map", "CRT", "units", "scenario intro"} <= set(packaged["reconstructed_components"])
    assert "scenario hercules" not in packaged["reconstructed_components"]
    assert packaged["charts"] == "reconstructed"
    assert packaged["reconstructed_rows"]["crt.csv"] > 0

    data = _printed_copy(tmp_path, ["crt.csv", "crt_lines.csv", "scatter.csv"])
    df = run_games("intro", 1, 0, data_dir=data)
    comps = df.attrs["reconstructed_components"]
    assert "CRT" not in comps and "scatter" not in comps and "map" in comps
    text = format_summary(df)
    assert "reconstructed (not printed) data used by these results: map, TEC, bombardment" in text


def test_map_scenario_gives_the_message_of_run_for_invalid_setup(tmp_path):
    """map --scenario refuses a set-up run refuses, with the same line."""
    import shutil
    from importlib.resources import files as res

    data = tmp_path / "iod"
    shutil.copytree(str(res("malta_sim") / "data" / "island_of_death"), data)
    toml = data / "scenarios" / "intro.toml"
    toml.write_text(toml.read_text().replace('hex = "1309"', 'hex = "0101"', 1))
    run = CliRunner().invoke(main, ["run", "--scenario", "intro", "--games", "1", "--seed", "1", "-q", "--data-dir", str(data),
                                    "--out", str(tmp_path / "x.csv")])
    mp = CliRunner().invoke(main, ["map", "--scenario", "intro", "--data-dir", str(data),
                                   "--out", str(tmp_path / "m.png")])
    _one_line_exit_2(mp, "ocean")
    assert run.exit_code == 2 and mp.output.strip() in run.output   # run adds the scenario, seed, games
    assert not (tmp_path / "m.png").exists()
    ok = CliRunner().invoke(main, ["map", "--data-dir", str(data), "--out", str(tmp_path / "m2.png")])
    assert ok.exit_code == 0, ok.output                # the map alone is still drawable


def test_every_dotted_name_in_the_docs_resolves():
    """docs/*.md name ``malta_sim.x.y`` objects that exist (e.g.
    malta_sim.exact.combat.combat_distribution, not malta_sim.exact.combat_distribution)."""
    import importlib
    import re
    from pathlib import Path

    bad = []
    for f in sorted((Path(__file__).resolve().parents[2] / "docs").glob("*.md")):
        for name in sorted(set(re.findall(r"`(malta_sim(?:\.[A-Za-z_]\w*)+)", f.read_text()))):
            parts = name.split(".")
            obj = importlib.import_module(parts[0])
            for i, a in enumerate(parts[1:], 1):
                if hasattr(obj, a):
                    obj = getattr(obj, a)
                    continue
                try:
                    obj = importlib.import_module(".".join(parts[:i + 1]))
                except ImportError:
                    bad.append(f"{f.name}: {name}")
                    break
    assert not bad, bad


def test_every_scenario_option_is_in_run_help_and_docs_with_its_rule():
    from pathlib import Path

    from malta_sim.cli.cmd_run import OPTION_DOCS
    from malta_sim.games.registry import get_scenario, scenario_names

    doc = (Path(__file__).resolve().parents[2] / "docs" / "batch.md").read_text()
    help_text = " ".join(CliRunner().invoke(main, ["run", "--help"]).output.split())
    for name in scenario_names():
        if not get_scenario(name).play.startswith("malta_sim.games."):
            continue                                   # test doubles registered by other tests
        for o in get_scenario(name).options:
            what, rule = OPTION_DOCS[o]
            assert o in help_text and rule in help_text, o
            row = next(ln for ln in doc.splitlines() if ln.startswith(f"| `{o}` |"))
            assert name in row.split("|")[2], (o, name)


def test_every_eliminated_event_has_a_rule_and_a_cause():
    """Eliminations in the event log (landings, combat, step losses ...) name
    their cause and a printed rule id."""
    from pathlib import Path

    from malta_sim.play import play_games
    from malta_sim.iod.rules.organisation import cause_rule

    ids = set((Path("/work/shared/rules/island_of_death_rule_ids.txt").read_text().split())
              if Path("/work/shared/rules/island_of_death_rule_ids.txt").exists() else ())
    ev = play_games("hercules", 1, [0, 1], event_log=True).events
    el = ev[ev["action"] == "eliminated"]
    assert len(el) > 10
    assert (el["rule"].astype(str) != "").all(), el[el["rule"].astype(str) == ""].to_string()
    assert (el["result"].astype(str) != "").all()
    if ids:
        assert set(el["rule"]) <= ids, set(el["rule"]) - ids
    assert cause_rule("landing losses 18.5") == "18.5" and cause_rule("combat") == "9.5"
    assert cause_rule("bombardment") == "10.1" and cause_rule("step loss (9.5)") == "9.5"


def test_odds_crt_refuses_fort_with_another_terrain():
    base = ["odds", "crt", "--attack", "12", "--defense", "4", "--time", "day"]
    r = CliRunner().invoke(main, base + ["--terrain", "clear", "--fort"])
    _one_line_exit_2(r, "--fort", "--terrain fort")
    a = CliRunner().invoke(main, base + ["--terrain", "fort", "--fort", "--json"])
    b = CliRunner().invoke(main, base + ["--terrain", "fort", "--json"])
    assert a.exit_code == 0 and a.output == b.output
