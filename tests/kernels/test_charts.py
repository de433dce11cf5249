"""Reconstructed charts: loading, printed fixed points, monotonicity, broken copies."""

import shutil

import numpy as np
import pytest

from malta_sim.errors import DataError
from malta_sim.loaders.common import packaged_data_dir
from malta_sim.loaders.iod_charts import (
    BOMB_RESULTS,
    format_result,
    level_to_odds_label,
    load_charts,
    odds_label_to_level,
    parse_result,
)

CHART_FILES = ["crt.csv", "crt_lines.csv", "bombardment.csv", "bombardment_lines.csv",
               "drop_table.csv", "scatter.csv", "terrain_effects.csv"]


@pytest.fixture(scope="module")
def charts():
    return load_charts()


def test_odds_levels_round_trip():
    assert odds_label_to_level("1:1") == 1
    assert odds_label_to_level("1:3") == -1
    assert odds_label_to_level("6:1") == 6
    for lv in range(-6, 12):
        assert odds_label_to_level(level_to_odds_label(lv)) == lv
    with pytest.raises(ValueError):
        odds_label_to_level("3:2")


def test_result_parse_round_trip():
    for s in ["-/3D", "1/1", "2D/-", "-/-", "Z/1", "3Z/2D", "-/D"]:
        assert format_result(*parse_result(s)) == s
    for bad in ["3", "x/1", "1//2", "/", "1/DZ"]:
        with pytest.raises(ValueError):
            parse_result(bad)


def test_rule_9_9_example_cell(charts):
    """Day All Other Terrains line, 6:1, roll 6 is -/3D (rule 9.9 example)."""
    li = charts.line_index("all_other_terrains")
    col = charts.crt_columns.index("6:1")
    assert format_result(*charts.crt[li, col, 6]) == "-/3D"
    assert "7:1" not in charts.crt_columns  # DATA_NOTES item 1
    assert charts.line_for_terrains(["clear"]) == li
    assert charts.line_for_terrains(["clear", "town"]) == charts.line_index("woods_town")
    assert charts.line_for_terrains(["clear"], night=True) == charts.night_line


def test_rule_10_12_example_cell(charts):
    """Bombardment column 6, 4 battalions, roll 11 is D (rule 10.12 example)."""
    j = list(charts.bomb_columns).index(6)
    assert BOMB_RESULTS[charts.bomb[3, j, 11]] == "D"
    assert 5 not in charts.bomb_columns and 4 in charts.bomb_columns


def _dominance_ok(p_low, p_high, values, higher_is_better):
    """First-order stochastic dominance of p_high over p_low (values ascending)."""
    cdf_lo = np.cumsum(p_low)
    cdf_hi = np.cumsum(p_high)
    if higher_is_better:  # high column puts less mass on low values
        return np.all(cdf_hi <= cdf_lo + 1e-12)
    return np.all(cdf_hi >= cdf_lo - 1e-12)


def test_crt_stochastic_dominance_every_line(charts):
    """Across neighbouring odds columns on every line: attacker hits and effects
    never grow, defender hits and effects never shrink (marginal first-order
    stochastic dominance) and cell by cell for the same roll (a coupling)."""
    p2d6 = np.array([0, 0] + [min(r - 1, 13 - r) / 36 for r in range(2, 13)])
    for li in range(len(charts.line_names)):
        lo, hi = charts.line_cols[li]
        for j in range(lo, hi):
            a, b = charts.crt[li, j], charts.crt[li, j + 1]
            for k, better_high in ((0, False), (1, False), (2, True), (3, True)):
                assert np.all(b[2:, k] >= a[2:, k]) if better_high else np.all(b[2:, k] <= a[2:, k])
                vals = np.arange(0, 10)
                pa = np.array([p2d6[a[:, k] == v].sum() for v in vals])
                pb = np.array([p2d6[b[:, k] == v].sum() for v in vals])
                assert _dominance_ok(pa, pb, vals, better_high), (charts.line_names[li], j, k)
        # monotone in the roll too
        for j in range(lo, hi + 1):
            t = charts.crt[li, j, 2:]
            assert np.all(np.diff(t[:, 2]) >= 0) and np.all(np.diff(t[:, 0]) <= 0)


def test_bombardment_monotone(charts):
    b = charts.bomb[:, :, 2:].astype(int)
    assert np.all(np.diff(b, axis=1) >= 0)  # stronger column never milder
    assert np.all(np.diff(b, axis=2) >= 0)  # higher roll never milder


def test_drop_and_scatter(charts):
    assert sorted(charts.scatter_dir[1:]) == [0, 1, 2, 3, 4, 5]
    assert np.all(np.diff(charts.drop_marker) >= 0) and np.all(np.diff(charts.drop_stick) >= 0)
    assert 1 not in charts.drop_stick  # Adjacent is for markers only


def _copy(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    for f in CHART_FILES:
        src = packaged_data_dir() / f
        if src.exists():
            shutil.copy(src, d / f)
    return d


def _edit(path, old, new, count=1):
    s = path.read_text()
    assert old in s
    path.write_text(s.replace(old, new, count))


@pytest.mark.parametrize(
    "fname, old, new, expect",
    [
        ("crt.csv", "all_other_terrains,6:1,6,-/3D", "all_other_terrains,6:1,6,-/3Q", "crt.csv:"),
        ("crt.csv", "all_other_terrains,6:1,6,-/3D", "all_other_terrains,6:1,13,-/3D", "roll"),
        ("crt.csv", "all_other_terrains,6:1,6,-/3D", "all_other_terrains,7:1,6,-/3D", "column"),
        ("crt.csv", "all_other_terrains,6:1,6,-/3D", "all_other_terrains,6:1,7,-/3D", "duplicate"),
        ("crt_lines.csv", "woods;town", "woods;tawn", "unknown terrain"),
        ("crt_lines.csv", "woods;town", "woods", "terrain_effects.csv"),
        ("terrain_effects.csv", "replace,woods_town,", "replace,woods_towns,", "crt_line"),
        ("bombardment.csv", "4,6,11,D", "4,6,11,X", "result"),
        ("drop_table.csv", "7,7,adjacent", "8,7,adjacent", "roll"),
        ("scatter.csv", "2,NE", "2,N", "direction"),
        ("crt.csv", "rule 9.9 example", "printed", "source"),
    ],
)
def test_broken_copies_name_file_line_field(tmp_path, fname, old, new, expect):
    d = _copy(tmp_path)
    _edit(d / fname, old, new)
    with pytest.raises(DataError) as ei:
        load_charts(d)
    msg = str(ei.value)
    assert fname in msg and expect in msg


def test_missing_file(tmp_path):
    d = _copy(tmp_path)
    (d / "scatter.csv").unlink()
    with pytest.raises(DataError, match="scatter.csv: file not found"):
        load_charts(d)
