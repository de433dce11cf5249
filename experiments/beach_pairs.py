"""Study 1: Operation Hercules beach-zone choice (rule 18.21).

Every ordered pair (zone of the 4th Division, zone of the 20th Division) of
the four beach zones is one arm (16 arms, both divisions may share a zone);
the base bot's own choice (``study_common.BASE_BOT``, the default Axis
preset) is the baseline arm.  All arms play the same
games (common random numbers).  Writes ``results.parquet``, ``win_rates.csv``,
``paired.csv``, ``heatmap.png`` and ``summary.md``.

    python experiments/beach_pairs.py --games 200 --jobs 8
"""

from __future__ import annotations

import study_common as sc

from malta_sim.analysis import compare_arms, win_rates
from malta_sim.plots import plot_heatmap, plot_win_rates


def main(argv=None):
    args = sc.cli(__doc__.splitlines()[0], default_games=10).parse_args(argv)
    out = sc.out_dir(args, "beach_pairs")
    arms = {"bot choice": {}}
    for z4 in sc.ZONE_NAMES:
        for z20 in sc.ZONE_NAMES:
            arms[f"{z4}+{z20}"] = {"params": {"beach_zones": [z4, z20]}}
    df = sc.get_results(args, out, arms)
    args.games = int(df.groupby("arm").size().max()) + len(df.attrs.get("dropped_games", []))
    wr = win_rates(df)
    wr.to_csv(out / "win_rates.csv", index=False)
    paired = compare_arms(df, baseline="bot choice")
    paired.to_csv(out / "paired.csv", index=False)
    mat = wr[wr["arm"] != "bot choice"].copy()
    mat[["4th Division", "20th Division"]] = mat["arm"].str.split("+", expand=True)
    grid = mat.pivot(index="4th Division", columns="20th Division", values="rate").reindex(
        index=list(sc.ZONE_NAMES), columns=list(sc.ZONE_NAMES)) * 100
    plot_heatmap(grid, out / "heatmap.png", title=f"Axis win rate (%) by beach zones, {int(wr['games'].min())} paired games per pair",
                 cbar="Axis win rate, %")
    plot_win_rates(wr.sort_values(["rate", "arm"], ascending=[False, True]), out / "win_rates.png",
                   title="Axis win rate by beach-zone pair (4th+20th Division)")
    best = wr.sort_values("rate", ascending=False).iloc[0]
    lines = [
        "# Beach-zone pairs (Operation Hercules)",
        "",
        f"{sc.games_line(df, args.games)}, seed {int(df['seed'].iloc[0])}, {len(arms)} arms, {df.attrs['seconds']:.0f} s; "
        f"{sc.bots_line(df)}",
        "",
        f"Best pair: **{best['arm']}** with {sc.md_rate(best)} Axis wins.",
        "",
        "| arm | Axis win rate [95%] | vs bot choice (paired) | McNemar p |",
        "|---|---|---|---|",
    ]
    pmap = paired.set_index("arm_b")
    for _, r in wr.sort_values("rate", ascending=False).iterrows():
        if r["arm"] in pmap.index:
            p = pmap.loc[r["arm"]]
            diff = sc.md_diff(p)
            pv = f"{p['mcnemar_pvalue']:.2g}"
        else:
            diff, pv = "baseline", ""
        lines.append(f"| {r['arm']} | {sc.md_rate(r)} | {diff} | {pv} |")
    lines += ["", "![heat map](heatmap.png)", ""]
    lines += sc.failures_md(df)
    (out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
