"""Study 2: invasion timing (rules 18.3, 22.39 Delayed Landings).

Arms: the base bot (``study_common.BASE_BOT``, the default Axis preset) as
is; with the Delayed Landings optional rule (22.39); and with every
amphibious landing held back until absolute turn N (N = 1, 2, 4, 8: 29 June
noon, 29 June PM, 30 June AM, 1 July AM).  Win rate, end reasons and
the surrender-date curves, paired on common random numbers.  Writes
``results.parquet``, ``win_rates.csv``, ``paired.csv``, ``surrender_dates.png``,
``end_reasons.png`` and ``summary.md``.

    python experiments/invasion_timing.py --games 200 --jobs 8
"""

from __future__ import annotations

import study_common as sc

from malta_sim.analysis import compare_arms, end_reasons, median_event_turn, timing_curve, win_rates
from malta_sim.analysis.frames import Calendar
from malta_sim.plots import plot_end_reasons, plot_timing, plot_win_rates


def main(argv=None):
    args = sc.cli(__doc__.splitlines()[0], default_games=10).parse_args(argv)
    out = sc.out_dir(args, "invasion_timing")
    arms = {
        "as planned": {},
        "delayed landings rule": {"options": ("delayed_landings",)},
        "hold to 29 Jun noon": {"params": {"landing_delay": 1}},
        "hold to 29 Jun PM": {"params": {"landing_delay": 2}},
        "hold to 30 Jun AM": {"params": {"landing_delay": 4}},
        "hold to 1 Jul AM": {"params": {"landing_delay": 8}},
    }
    df = sc.get_results(args, out, arms)
    args.games = int(df.groupby("arm").size().max()) + len(df.attrs.get("dropped_games", []))
    wr = win_rates(df)
    wr.to_csv(out / "win_rates.csv", index=False)
    paired = compare_arms(df, baseline="as planned")
    paired.to_csv(out / "paired.csv", index=False)
    med = median_event_turn(df, "surrender").set_index("arm")
    curve = timing_curve(df, "surrender", scenario="hercules")
    plot_timing(curve, out / "surrender_dates.png", scenario="hercules", order=list(arms),
                title="Share of games with Malta surrendered, by date (95% band)")
    plot_end_reasons(end_reasons(df), out / "end_reasons.png", order=list(arms))
    plot_win_rates(wr.set_index("arm").loc[list(arms)].reset_index(), out / "win_rates.png",
                   title="Axis win rate by landing timing")
    lines = [
        "# Invasion timing (Operation Hercules)",
        "",
        f"{sc.games_line(df, args.games)}, seed {int(df['seed'].iloc[0])}, {df.attrs['seconds']:.0f} s; "
        f"{sc.bots_line(df)}",
        "",
        "| arm | Axis win rate [95%] | vs as planned (paired) | McNemar p | median surrender (games with one) | operation cancelled |",
        "|---|---|---|---|---|---|",
    ]
    pmap = paired.set_index("arm_b")
    er = end_reasons(df).set_index(["arm", "end_reason"])
    for arm in arms:
        r = wr.set_index("arm").loc[arm]
        r = {"rate": r["rate"], "low": r["low"], "high": r["high"]}
        if arm in pmap.index:
            p = pmap.loc[arm]
            diff = sc.md_diff(p)
            pv = f"{p['mcnemar_pvalue']:.2g}"
        else:
            diff, pv = "baseline", ""
        m = med.loc[arm, "median_turn"]
        ms = f"{Calendar.label(int(m))} ({int(med.loc[arm, 'with_event'])} games)" if m == m else "none"
        c = er.loc[(arm, "operation cancelled")]
        lines.append(f"| {arm} | {sc.md_rate(r)} | {diff} | {pv} | {ms} | {sc.md_rate({'rate': c['share'], 'low': c['low'], 'high': c['high']})} |")
    lines += ["", "![surrender dates](surrender_dates.png)", "", "![end reasons](end_reasons.png)", ""]
    lines += sc.failures_md(df)
    (out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
