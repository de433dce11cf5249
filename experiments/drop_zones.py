"""Study 3: drop-zone choice (rules 19.31, 19.33, 21.11 b).

Each arm plans both drop zone markers on one hex: the five hexes of the
solitaire placement table (0911, 1313, 1512, 1813, 2012) and hexes next to the
airfields Takali (1210), Hal Far (1814) and Luqa (1712); the base bot's own
choice (``study_common.BASE_BOT``, the default Axis preset) is the baseline.  Reports the Axis win rate and the time to
the first airfield in Axis hands (share by each date, median turn).  Writes
``results.parquet``, ``win_rates.csv``, ``airfield.csv``,
``airfield_capture.png`` and ``summary.md``.

    python experiments/drop_zones.py --games 200 --jobs 8
"""

from __future__ import annotations

import study_common as sc

from malta_sim.analysis import compare_arms, median_event_turn, timing_curve, win_rates
from malta_sim.analysis.frames import Calendar
from malta_sim.plots import plot_timing, plot_win_rates

HEXES = ("0911", "1313", "1512", "1813", "2012", "1210", "1814", "1712")


def main(argv=None):
    args = sc.cli(__doc__.splitlines()[0], default_games=10).parse_args(argv)
    out = sc.out_dir(args, "drop_zones")
    arms = {"bot choice": {}}
    arms.update({f"drop {h}": {"params": {"drop_hex": h}} for h in HEXES})
    df = sc.get_results(args, out, arms)
    args.games = int(df.groupby("arm").size().max()) + len(df.attrs.get("dropped_games", []))
    wr = win_rates(df)
    wr.to_csv(out / "win_rates.csv", index=False)
    paired = compare_arms(df, baseline="bot choice").set_index("arm_b")
    air = median_event_turn(df, "first_airfield").set_index("arm")
    curve = timing_curve(df, "first_airfield", scenario="hercules")
    day2 = curve[curve["turn"] == 7].set_index("arm")  # end of 30 June
    curve.to_csv(out / "airfield.csv", index=False)
    plot_timing(curve, out / "airfield_capture.png", scenario="hercules", order=list(arms), last_turn=7,
                title="Share of games with an airfield in Axis hands, 29-30 June (95% band)")
    plot_win_rates(wr.set_index("arm").loc[list(arms)].reset_index(), out / "win_rates.png",
                   title="Axis win rate by drop zone hex")
    lines = [
        "# Drop-zone choice (Operation Hercules)",
        "",
        f"{sc.games_line(df, args.games)}, seed {int(df['seed'].iloc[0])}, {df.attrs['seconds']:.0f} s; "
        f"{sc.bots_line(df)}",
        "",
        "| arm | Axis win rate [95%] | vs bot (paired) | airfield by 30 Jun night [95%] | median first airfield (games with one) |",
        "|---|---|---|---|---|",
    ]
    for arm in arms:
        r = wr.set_index("arm").loc[arm]
        if arm in paired.index:
            p = paired.loc[arm]
            diff = sc.md_diff(p)
        else:
            diff = "baseline"
        d = day2.loc[arm]
        m = air.loc[arm, "median_turn"]
        ms = f"{Calendar.label(int(m))} ({int(air.loc[arm, 'with_event'])} games)" if m == m else "never"
        lines.append(f"| {arm} | {sc.md_rate(r)} | {diff} | {sc.md_rate({'rate': d['share'], 'low': d['low'], 'high': d['high']})} | {ms} |")
    lines += ["", "![airfield capture](airfield_capture.png)", ""]
    lines += sc.failures_md(df)
    (out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
