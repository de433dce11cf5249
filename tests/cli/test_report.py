"""`malta-sim report` on synthetic result frames: files, summary and errors."""

import json

import pandas as pd
from click.testing import CliRunner
from matplotlib.image import imread

from malta_sim.analysis.synthetic import synthetic_results
from malta_sim.cli import main
from malta_sim.report import verdict, write_report


def test_report_cli_writes_files(tmp_path):
    g, pt = synthetic_results(120, {"base": 0.4, "variant": 0.55}, per_turn=True, seed=11)
    res_dir = tmp_path / "run"
    res_dir.mkdir()
    g.to_parquet(res_dir / "games.parquet")
    pt.to_parquet(res_dir / "per_turn.parquet")
    out = tmp_path / "rep"
    r = CliRunner().invoke(main, ["report", str(res_dir), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "Axis win rate" in r.output
    s = json.loads((out / "summary.json").read_text())
    assert s["games"] == 240 and s["arms"] == ["base", "variant"]
    # arms share their seeds: one headline per arm, no pooled rate
    assert s["axis_win_rate"] is None
    by_arm = {h["arm"]: h for h in s["axis_win_rate_by_arm"]}
    for arm in ("base", "variant"):
        assert by_arm[arm]["wins"] == int(((g["arm"] == arm) & (g["winner"] == "axis")).sum())
    assert "base:" in r.output and "variant:" in r.output and "pooled over all arms" not in r.output
    assert len(s["paired_comparisons"]) == 1
    for f in ("win_rates", "surrender", "first_airfield", "victory_city", "steps_lost", "end_reasons"):
        png = out / s["files"][f]
        assert png.exists() and imread(png).shape[0] > 100
    md = (out / "report.md").read_text()
    assert "## Who wins" in md and "common random numbers" in md and "![win rates](win_rates.png)" in md


def test_report_single_arm_without_optional_columns(tmp_path):
    df = pd.DataFrame({"game": range(6), "winner": ["axis", "allied"] * 3,
                       "end_reason": ["surrender", "time limit"] * 3, "end_turn": [10, 27] * 3,
                       "scenario": "intro"})
    s = write_report(df, tmp_path / "r")
    assert s["calendar"]["start"] == "1942-06-30" and s["paired_comparisons"] == []
    assert "first_airfield" not in s["files"]
    assert (tmp_path / "r" / "report.md").exists()


def test_report_bad_input_is_one_line_error(tmp_path):
    r = CliRunner().invoke(main, ["report", str(tmp_path / "nope.parquet"), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and r.output.startswith("error: RESULTS: no such file")
    g = synthetic_results(10, {"a": 0.5})
    g.to_csv(tmp_path / "g.csv", index=False)
    r = CliRunner().invoke(main, ["report", str(tmp_path / "g.csv"), "--out", str(tmp_path / "o"),
                                  "--baseline", "zzz"])
    assert r.exit_code == 2 and "--baseline" in r.output


def test_unknown_baseline_names_the_arms_quoted_and_the_nearest(tmp_path):
    """Arm names hold spaces and commas (balance cells, sweep grid arms): the
    error quotes each arm, suggests the nearest, and --help says how to name one."""
    arms = {"tuned vs active": 0.5, "tuned vs static": 0.6, "axis_policy=balanced, options=none": 0.4}
    synthetic_results(10, arms).to_csv(tmp_path / "g.csv", index=False)
    r = CliRunner().invoke(main, ["report", str(tmp_path / "g.csv"), "--out", str(tmp_path / "o"),
                                  "--baseline", "tuned vs activ"])
    assert r.exit_code == 2 and len(r.stderr.splitlines()) == 1
    assert "no arm is named 'tuned vs activ'; did you mean 'tuned vs active'" in r.stderr
    assert ("Choose one of the 3 arms (quote a name with spaces): 'tuned vs active', 'tuned vs static', "
            "'axis_policy=balanced, options=none'") in r.stderr
    r = CliRunner().invoke(main, ["report", str(tmp_path / "g.csv"), "--out", str(tmp_path / "o"),
                                  "--baseline", "zzz"])
    assert "no arm is named 'zzz'. Choose one of the 3 arms" in r.stderr
    r = CliRunner().invoke(main, ["report", "--help"])
    assert "--baseline ARM" in r.output and '--baseline "tuned vs active"' in " ".join(r.output.split())


def test_verdict():
    assert verdict(0.5, 0.47, 0.53).startswith("balanced")
    assert "Axis" in verdict(0.6, 0.55, 0.65)
    assert "Allies" in verdict(0.3, 0.25, 0.35)


def test_report_on_a_sweep_of_the_batch_test_double(tmp_path):
    import tests.batch.fake_engine  # noqa: F401  (registers scenario 'batch-fake')
    from malta_sim.batch import load_sweep, run_sweep, write_frame

    toml = tmp_path / "s.toml"
    toml.write_text('scenario = "batch-fake"\nseed = 7\ngames = 40\n[base]\nallied_policy = "defend"\n'
                    '[grid]\naxis_policy = ["attack", "cautious"]\noptions = [[], ["rainy"]]\n')
    df = run_sweep(load_sweep(toml))
    write_frame(df, tmp_path / "sweep.parquet")
    r = CliRunner().invoke(main, ["report", str(tmp_path / "sweep.parquet"), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert s["sweep_parameters"] == ["axis_policy", "options"]
    assert len(s["paired_comparisons"]) == 3 and s["provenance"]["scenario"] == "batch-fake"
    assert {r["term"] for r in s["parameter_effects"]} >= {"axis_policy[T.cautious]"}
    assert (tmp_path / "rep" / "parameter_effects.png").exists()


def test_report_reads_a_checkpoint_folder(tmp_path):
    import tests.batch.fake_engine  # noqa: F401  (registers scenario 'batch-fake')
    from malta_sim.analysis import load_results
    from malta_sim.batch import run_games

    full, turns = run_games("batch-fake", 12, 3, chunk_size=5, checkpoint=tmp_path / "ck", per_turn=True)
    games, per_turn = load_results(tmp_path / "ck")
    assert list(games["game"]) == list(range(12))
    assert per_turn is not None and len(per_turn) == len(turns)
    assert (games["winner"].to_numpy() == full["winner"].to_numpy()).all()
    # the manifest's inputs come with the rows, and the report says the games are the finished ones
    assert games.attrs["seed"] == 3 and games.attrs["checkpoint"] == str(tmp_path / "ck")
    r = CliRunner().invoke(main, ["report", str(tmp_path / "ck"), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    assert "**Partial results.**" in (tmp_path / "rep" / "report.md").read_text()


def test_report_on_a_unanimous_run(tmp_path):
    """Every game won by the Axis (the Introductory Scenario's 30 of 30 with the
    default bots): the report is written, the interval reaches exactly 100 %."""
    g, pt = synthetic_results(30, {"base": 1.0}, per_turn=True, seed=1)
    g.to_csv(tmp_path / "g.csv", index=False)
    pt.to_csv(tmp_path / "g_per_turn.csv", index=False)
    r = CliRunner().invoke(main, ["report", str(tmp_path / "g.csv"), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "rep" / "summary.json").read_text())
    a = s["axis_win_rate"]
    assert (a["rate"], a["high"]) == (1.0, 1.0) and 0.85 < a["low"] < 1.0
    assert imread(tmp_path / "rep" / "win_rates.png").shape[0] > 100


def test_report_charts_keep_legends_clear(tmp_path):
    """The end-reason legend sits below the axis label, a 0.5 % ending is drawn and
    labelled, and the timing legend is outside the plotting area (never over a curve)."""
    import matplotlib.pyplot as plt

    from malta_sim import plots
    from malta_sim.analysis import end_reasons, timing_curve

    g = synthetic_results(200, {"a": 0.8, "b": 0.5}, seed=3)
    g.loc[(g["arm"] == "b") & (g["winner"] == "allied"), "end_reason"] = "last_turn"
    g.loc[g.index[(g["arm"] == "b") & (g["winner"] == "allied")][0], "end_reason"] = "invasion_suspended"
    kept = []
    orig = plots._save

    def keep(fig, path):
        kept.append(fig)
        return orig(fig, path)

    plots._save = keep
    try:
        plots.plot_timing(timing_curve(g, "first_airfield"), tmp_path / "t.png", title="t", scenario="hercules")
    finally:
        plots._save = orig
    fig = kept[0]
    r = fig.canvas.get_renderer()
    ax = fig.axes[0]
    assert not ax.get_legend().get_window_extent(r).overlaps(ax.get_window_extent(r))

    orig_savefig = plt.Figure.savefig
    figs = []
    plt.Figure.savefig = lambda self, *a, **k: (figs.append(self), orig_savefig(self, *a, **k))[1]
    try:
        plots.plot_end_reasons(end_reasons(g), tmp_path / "e.png", order=["a", "b"])
    finally:
        plt.Figure.savefig = orig_savefig
    fig = figs[0]
    r = fig.canvas.get_renderer()
    ax = fig.axes[0]
    assert not fig.legends[0].get_window_extent(r).overlaps(ax.xaxis.label.get_window_extent(r))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    assert "0.5%" in [t.get_text() for t in ax.texts]


_HERCULES_DAYS = [f"{d:02d} {m}" for d, m in [(29, "Jun"), (30, "Jun")] + [(d, "Jul") for d in range(1, 11)]]


def _drawn_figures(monkeypatch):
    """The figures saved from now on (matplotlib Figure objects), in order."""
    from matplotlib.figure import Figure

    figs = []
    orig = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: (figs.append(self), orig(self, *a, **k))[1])
    return figs


def test_end_dates_chart_of_many_arms_is_a_grid_of_readable_panels(tmp_path, monkeypatch):
    """24 arms (a balance matrix's cells) give a grid of small panels on shared
    scales, in the given order, within a capped figure, each panel tall enough
    to read, and one legend naming every end reason (not the first panel's)."""
    from malta_sim import plots
    from malta_sim.analysis import end_day_table

    names = [f"{a} vs {b}" for a in ("tuned", "balanced", "aggressive", "cautious", "solitaire", "random")
             for b in ("active", "static", "counterattack", "random")]
    g = synthetic_results(40, {n: 0.05 + 0.9 * i / 23 for i, n in enumerate(names)}, seed=4)
    g.loc[g["end_reason"] == "invasion_suspended", "end_reason"] = "last_turn"
    g.loc[g.index[g["arm"] == names[-1]][:3], ["winner", "end_reason"]] = ["allied", "invasion_suspended"]
    figs = _drawn_figures(monkeypatch)                # 'operation cancelled' only in the last panel
    path = plots.plot_end_dates(end_day_table(g, scenario="hercules"), tmp_path / "e.png", order=names,
                                days=_HERCULES_DAYS)
    fig = figs[-1]
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == names
    assert len({round(ax.get_position().x0, 3) for ax in panels}) == 4          # four columns
    assert fig.get_figheight() <= 14 and imread(path).shape[0] <= 14 * fig.dpi
    r = fig.canvas.get_renderer()
    assert min(ax.get_window_extent(r).height for ax in panels) >= 100            # pixels a panel
    assert all(ax.get_shared_y_axes().joined(panels[0], ax) for ax in panels)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["surrender", "operation cancelled", "time limit"]
    boxes = [ax.get_window_extent(r) for ax in panels]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_end_dates_chart_of_one_arm_and_of_very_many(tmp_path, monkeypatch):
    from malta_sim import plots
    from malta_sim.analysis import end_day_table

    figs = _drawn_figures(monkeypatch)
    one = synthetic_results(60, {"base": 0.5}, seed=2)
    plots.plot_end_dates(end_day_table(one, scenario="hercules"), tmp_path / "one.png", days=_HERCULES_DAYS)
    panels = [ax for ax in figs[-1].axes if ax.get_visible()]
    assert len(panels) == 1 and panels[0].get_title() == "base"
    assert len(panels[0].get_xticklabels()) == 12                                 # every day of Hercules
    many = synthetic_results(20, {f"arm {i:02d}": i / 60 for i in range(60)}, seed=2)
    path = plots.plot_end_dates(end_day_table(many, scenario="hercules"), tmp_path / "many.png", days=_HERCULES_DAYS)
    fig = figs[-1]
    assert fig.get_figheight() <= 14 and imread(path).shape[0] <= 14 * fig.dpi
    maps = [ax for ax in fig.axes if ax.images]                                   # heat maps, a row per arm
    assert len(maps) == 2 and maps[0].images[0].get_array().shape == (60, 12)
    assert maps[0].get_title().startswith("Axis wins")


def test_report_lays_out_end_dates_of_a_balance_matrix_as_the_matrix(tmp_path, monkeypatch):
    """A preset matrix's end-dates panels: a row per Axis preset, a column per
    Allied preset, whatever the order of the rows in the file."""
    cells = [(a, b) for a in ("tuned", "balanced", "cautious") for b in ("active", "static")]
    g = synthetic_results(30, {f"{a} vs {b}": 0.3 + 0.1 * k for k, (a, b) in enumerate(cells)}, seed=6)
    g["axis_policy"] = g["arm"].str.split(" vs ").str[0]
    g["allied_policy"] = g["arm"].str.split(" vs ").str[1]
    g = g.iloc[::-1].reset_index(drop=True)
    figs = _drawn_figures(monkeypatch)
    s = write_report(g, tmp_path / "rep")
    assert "balance_matrix" in s["files"]
    fig = next(f for f in figs if f._suptitle is not None and f._suptitle.get_text().startswith("Day on which"))
    panels = [ax for ax in fig.axes if ax.get_visible()]
    grid = sorted(panels, key=lambda ax: (-round(ax.get_position().y0, 3), ax.get_position().x0))
    assert [ax.get_title() for ax in grid] == ["cautious vs static", "cautious vs active", "balanced vs static",
                                               "balanced vs active", "tuned vs static", "tuned vs active"]


def test_timing_chart_of_many_arms_draws_each_arm_distinct_without_bands(tmp_path, monkeypatch):
    """Above six arms the timing chart leaves the interval bands out (they
    would cover the lines) and says so, and every arm keeps its own
    colour and line style (ten colours, then again dashed)."""
    from malta_sim import plots
    from malta_sim.analysis import timing_curve

    names = {f"arm{k:02d}": 0.3 + 0.04 * k for k in range(14)}
    g = synthetic_results(60, names, seed=5)
    kept = []
    orig = plots._save
    monkeypatch.setattr(plots, "_save", lambda fig, path: (kept.append(fig), orig(fig, path))[1])
    plots.plot_timing(timing_curve(g, "first_airfield"), tmp_path / "t.png", title="t",
                      scenario="hercules", band_label="95% pointwise band")
    ax = kept[0].axes[0]
    styles = [(ln.get_color(), ln.get_linestyle()) for ln in ax.get_lines()]
    assert len(styles) == 14 and len(set(styles)) == 14
    assert not ax.collections                      # no band
    assert "left out above 6 arms" in ax.get_title() and "pointwise band" not in ax.get_title()
    kept.clear()
    two = g[g["arm"].isin(["arm00", "arm01"])]
    plots.plot_timing(timing_curve(two, "first_airfield"), tmp_path / "t2.png", title="t",
                      scenario="hercules", band_label="95% pointwise band")
    ax = kept[0].axes[0]
    assert len(ax.collections) == 2 and ax.get_title().endswith("(95% pointwise band)")
