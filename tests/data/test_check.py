"""``malta-sim data check``: exit 0 on the packaged data, exit 2 with one precise line
per problem on broken copies built in tmp_path."""

import re
import shutil

import pytest
from click.testing import CliRunner

from malta_sim.cli import main
from malta_sim.errors import DataError
from malta_sim.loaders import check_iod, load_iod
from malta_sim.loaders.common import packaged_data_dir


@pytest.fixture
def copy(tmp_path):
    dst = tmp_path / "iod"
    shutil.copytree(packaged_data_dir(), dst)
    return dst


def edit(path, old, new, count=1):
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def one_problem(folder, file_part, line, field, words):
    probs = check_iod(folder)
    hits = [p for p in probs if file_part in p.file and (field is None or p.field == field)
            and words in p.message and (line is None or p.line == line)]
    assert hits, "\n".join(p.format() for p in probs)
    return hits[0]


def line_of(path, needle):
    for i, ln in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if needle in ln and not ln.lstrip().startswith("#"):
            return i
    raise AssertionError(needle)


def test_packaged_data_is_valid():
    assert check_iod() == []
    r = CliRunner().invoke(main, ["data", "check"])
    assert r.exit_code == 0 and "ok:" in r.output
    d = load_iod()
    assert re.fullmatch(r"[0-9a-f]{16}", d.data_hash)


def test_unknown_unit_in_scenario(copy):
    f = copy / "scenarios" / "intro.toml"
    edit(f, '"allied.uk.4b@1"', '"allied.uk.4bb@1"')
    one_problem(copy, "intro.toml", line_of(f, "allied.uk.4bb"), "setup[3].units", "unknown unit 'allied.uk.4bb'")


def test_wrong_printed_strength(copy):
    f = copy / "scenarios" / "intro.toml"
    edit(f, 'units = ["allied.uk.8m@2"', 'units = ["allied.uk.8m=5-6"')
    p = one_problem(copy, "intro.toml", line_of(f, "allied.uk.8m=5-6"), None, "has no strength level 5-6")
    assert "@1 = 6-6, @2 = 4-6, @3 = 2-6" in p.message


def test_setup_names_a_strength_level(copy):
    """A set-up row may name the level (``@2``); the values then live in unit_steps.csv
    alone: changing them there breaks no set-up row, and the piece starts at the
    level's new values.  The printed-values form still works; a level the unit lacks
    is refused with its levels listed."""
    from malta_sim.loaders import load_iod

    f = copy / "scenarios" / "intro.toml"
    assert 'units = ["allied.uk.8m@2"' in f.read_text(encoding="utf-8")     # the packaged form
    steps = copy / "unit_steps.csv"
    edit(steps, "allied.uk.8m,2,4,4,6,", "allied.uk.8m,2,5,5,6,")             # raise its 4-6 level to 5-6
    d = load_iod(copy)
    p = d.scenario("intro").placement("allied.uk.8m")
    assert p.level == 2 and d.units.designs["allied.uk.8m"].levels[1].label() == "5-6"
    edit(f, 'units = ["allied.uk.8m@2"', 'units = ["allied.uk.8m=5-6"')
    assert load_iod(copy).scenario("intro").placement("allied.uk.8m").level == 2
    edit(f, 'units = ["allied.uk.8m=5-6"', 'units = ["allied.uk.8m@7"')
    one_problem(copy, "intro.toml", line_of(f, "allied.uk.8m@7"), None, "has no strength level 7 (levels: @1 = 6-6")


def test_unit_on_ocean_hex(copy):
    f = copy / "scenarios" / "hercules.toml"
    edit(f, 'hex = "0809"', 'hex = "0101"')
    one_problem(copy, "hercules.toml", line_of(f, 'hex = "0101"'), "setup[0].hex", "ocean hex")


def test_hex_off_the_grid(copy):
    f = copy / "scenarios" / "hercules.toml"
    edit(f, 'hex = "0809"', 'hex = "2725"')
    one_problem(copy, "hercules.toml", line_of(f, 'hex = "2725"'), "setup[0].hex", "not a hex id")


def test_piece_used_twice_and_stacking(copy):
    f = copy / "scenarios" / "hercules.toml"
    edit(f, 'units = ["allied.uk.8m@1"]', 'units = ["allied.uk.8m@1", "allied.uk.2rif", "allied.uk.1h", "allied.uk.4b", "allied.uk.1dli"]')
    one_problem(copy, "hercules.toml", None, "setup.units", "limit is 4 (rule 7.1)")
    one_problem(copy, "hercules.toml", None, None, "is used twice")


def test_missing_column(copy):
    f = copy / "units.csv"
    edit(f, ",morale,morale_source,", ",moral,morale_source,")
    one_problem(copy, "units.csv", line_of(f, "id,name,side"), "morale", "missing column")


def test_duplicate_id(copy):
    f = copy / "units.csv"
    text = f.read_text()
    row = next(ln for ln in text.splitlines() if ln.startswith("allied.uk.8m,"))
    f.write_text(text + row + "\n")
    n = len(text.splitlines()) + 1
    one_problem(copy, "units.csv", n, "id", "duplicate id 'allied.uk.8m'")


def test_value_out_of_range(copy):
    f = copy / "unit_steps.csv"
    edit(f, "allied.uk.2rwk,1,6,6,6", "allied.uk.2rwk,1,6,6,66")
    one_problem(copy, "unit_steps.csv", line_of(f, "allied.uk.2rwk,1,"), "movement", "above the maximum")


def test_bad_source(copy):
    f = copy / "artillery.csv"
    edit(f, "allied.uk.art_12,9,3,6,2,2,false,rule 9.9 example", "allied.uk.art_12,9,3,6,2,2,false,from memory")
    one_problem(copy, "artillery.csv", line_of(f, "allied.uk.art_12"), "source", "source must be")


def test_maltese_never_break_down(copy):
    f = copy / "breakdown.csv"
    f.write_text(f.read_text() + "allied.mt.2k,allied.uk.inf_coy,3,reconstructed\n")
    one_problem(copy, "breakdown.csv", None, "battalion", "Maltese battalions never break down")


def test_weather_gap_and_missing_modifier(copy):
    edit(copy / "tables" / "weather.csv", "9,10,cloudy", "10,10,cloudy")
    one_problem(copy, "weather.csv", None, "roll_min", "no gaps or overlaps")
    f = copy / "tables" / "surrender_modifiers.csv"
    edit(f, "axis_hq,2,1,0,rule 20.0\n", "")
    one_problem(copy, "surrender_modifiers.csv", None, "modifier", "missing modifier 'axis_hq'")


def test_bad_result_code(copy):
    f = copy / "tables" / "waters_edge.csv"
    edit(f, "0,2,-,-,-,-,-,X", "0,2,-,-,-,-,-,Y")
    one_problem(copy, "waters_edge.csv", line_of(f, "0,2,"), "d6", "is not one of")


def test_rn_modifier_must_match_rule_20(copy):
    f = copy / "tables" / "rn_intervention.csv"
    edit(f, "6,-1,2,2,2,2,-1,2,3,", "6,-1,2,2,2,2,-1,2,2,")
    one_problem(copy, "rn_intervention.csv", line_of(f, "6,-1,"), "surrender_modifier", "rule 20.0")


def test_cli_exit_2_one_line_per_problem(copy):
    edit(copy / "scenarios" / "intro.toml", '"allied.uk.4b@1"', '"allied.uk.4bb@1"')
    edit(copy / "tables" / "militia.csv", "town,5,", "town,9,")
    r = CliRunner().invoke(main, ["data", "check", str(copy)])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 2 and all(ln.startswith("error: ") for ln in lines)
    assert "Traceback" not in r.output
    r = CliRunner().invoke(main, ["data", "check", str(copy / "nope")])
    assert r.exit_code == 2 and "does not exist" in r.output


def test_load_iod_raises_first_problem(copy):
    edit(copy / "tables" / "militia.csv", "town,5,", "town,9,")
    with pytest.raises(DataError) as ei:
        load_iod(copy)
    assert "militia.csv" in ei.value.file and ei.value.field == "min_roll"


def test_strongpoint_must_touch_a_beach(copy):
    f = copy / "scenarios" / "intro.toml"
    edit(f, 'units = ["allied.uk.4b@1"]', 'units = ["allied.uk.4b@1", "allied.sp.b"]')
    one_problem(copy, "intro.toml", line_of(f, 'hex = "1314"'), "setup[3].hex", "not next to a beach hex (rule 16.2)")


def test_surrender_city_must_be_a_city(copy):
    f = copy / "tables" / "surrender_modifiers.csv"
    edit(f, "axis_city_1711,", "axis_city_1311,")
    one_problem(copy, "surrender_modifiers.csv", line_of(f, "axis_city_1311"), "modifier", "not a city hex")


def test_data_info_cli():
    r = CliRunner().invoke(main, ["data", "info"])
    assert r.exit_code == 0 and "scenario intro" in r.output and "reconstructed rows" in r.output


def test_data_info_takes_the_folder_like_check(copy):
    """``data info DIR`` and ``data info --data-dir DIR`` describe the same folder;
    both at once is refused in one line."""
    a = CliRunner().invoke(main, ["data", "info", str(copy)])
    b = CliRunner().invoke(main, ["data", "info", "--data-dir", str(copy)])
    assert a.exit_code == 0 and a.output == b.output and str(copy) in a.output
    c = CliRunner().invoke(main, ["data", "info", str(copy), "--data-dir", str(copy)])
    assert c.exit_code == 2 and "give the data directory once" in c.output


def test_corrupted_copies_never_crash(tmp_path):
    """Random one-line corruptions (fixed seed) of counter, scenario and table files give
    DataErrors or nothing, never another exception (no traceback for bad input)."""
    import random

    src = packaged_data_dir()
    files = sorted(p.relative_to(src) for p in src.rglob("*")
                   if p.suffix in (".csv", ".toml") and (p.parent.name in ("tables", "scenarios")
                                                         or p.name in ("units.csv", "unit_steps.csv", "breakdown.csv")))
    rng = random.Random(7)
    for trial in range(6):
        dst = tmp_path / f"t{trial}"
        shutil.copytree(src, dst)
        f = dst / rng.choice(files)
        lines = f.read_text(encoding="utf-8").splitlines()
        i = rng.randrange(len(lines))
        ln = lines[i]
        lines[i] = "".join(str(rng.randrange(10)) if c.isdigit() and rng.random() < 0.5 else c
                           for c in ln)[: max(1, len(ln) - rng.randrange(3))]
        f.write_text("\n".join(lines) + "\n", encoding="utf-8")
        for p in check_iod(dst):
            assert isinstance(p, DataError) and p.format().startswith(str(dst))


def test_did_you_mean_names_each_close_choice_once():
    from malta_sim.loaders.common import did_you_mean

    assert did_you_mean("allied.mt.2x", ["allied.mt.2k", "allied.mt.2k", "allied.mt.8k"]) == \
        "; did you mean allied.mt.2k, allied.mt.8k?"
    assert did_you_mean("zzz", ["allied.mt.2k"]) == ""
    assert did_you_mean("a=1 b=2", ["a=1, b=2", "a=1, b=3"], n=1, quote=True) == "; did you mean 'a=1, b=2'?"


@pytest.mark.parametrize("cmd", ["check", "info"])
def test_invasion_malta_folder_is_sent_to_its_own_check(cmd):
    """``data check`` / ``data info`` read Island of Death folders; given the
    Invasion: Malta data they say so and name ``im check-data``, instead of
    listing every Island of Death file as missing."""
    im = packaged_data_dir("invasion_malta")
    r = CliRunner().invoke(main, ["data", cmd, str(im)])
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "Invasion: Malta" in lines[0]
    assert f"im check-data --data-dir {im}" in lines[0]
    assert CliRunner().invoke(main, ["im", "check-data", "--data-dir", str(im)]).exit_code == 0


@pytest.mark.parametrize("row, bad, words", [
    ("stack_battalions,4,", "stack_battalions,-4,", "must be at least 1"),
    ("bombard_casualty_fraction_den,2,", "bombard_casualty_fraction_den,0,", "must be at least 1"),
    ("leader_ma,14,", "leader_ma,-14,", "must be 0 or more"),
    ("out_of_supply_attack,-1,", "out_of_supply_attack,1,", "must be 0 or less"),
])
def test_parameter_sign_fixed_by_the_rule(copy, row, bad, words):
    """A count, distance or divisor below its least value, or a penalty
    turned into a bonus, is one error naming the file, row and field."""
    f = copy / "tables" / "constants.csv"
    edit(f, row, bad)
    probs = check_iod(copy)
    assert len(probs) == 1, probs
    one_problem(copy, "constants.csv", line_of(f, bad), "value", words)


def test_die_modifiers_take_either_sign(copy):
    edit(copy / "tables" / "stand_ground.csv", "drm_leader_in_hex,-1,", "drm_leader_in_hex,1,")
    assert check_iod(copy) == []
