"""Strength ladder of the bots: each preset against its predecessor, paired on common random numbers.

    python experiments/ladder.py --scenario hercules --games 400 --seed 11 --jobs 2 --out ladder_h.parquet
    python experiments/ladder.py --from ladder_h.parquet ladder_i.parquet --markdown

A *rung* is a preset and the preset it is meant to beat (its predecessor):

* Axis rungs (``AXIS_LADDER``): ``random`` -> ``cautious`` -> ``balanced`` ->
  ``tuned``; each pair is played against every Allied preset of the ladder,
  so a claim such as "the default beats its predecessor against each Allied
  preset" is read off one table.
* Allied rungs (``ALLIED_LADDER``): ``random`` -> ``static`` ->
  ``counterattack`` -> ``active``, each pair against every Axis preset.

Every arm plays games ``0 .. games-1`` under the same master seed (the batch
runner's per-game streams, :mod:`malta_sim.rng`), so game ``g`` of two arms
shares its dice until a decision differs: a paired comparison.  Each pair
gets the difference of the Axis win rate (arm minus predecessor) with Tango's
95 % interval and McNemar's test
(:func:`malta_sim.analysis.paired.paired_comparison`), and each arm its win
rate with a Wilson interval.

``--out`` keeps every game row (parquet, with an ``arm`` column
``"<axis> vs <allied>"``); ``--from`` re-reads such files and prints the
tables without playing.  Nothing is asserted: this is a measurement.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from malta_sim.analysis.paired import paired_comparison  # noqa: E402
from malta_sim.analysis.rates import proportion_interval  # noqa: E402
from malta_sim.batch import read_frame, run_games, write_frame  # noqa: E402

#: Axis presets from weakest intended to strongest; each rung is (predecessor, preset).
AXIS_LADDER = ("random", "cautious", "balanced", "tuned")
#: Allied presets likewise.
ALLIED_LADDER = ("random", "static", "counterattack", "active")


def arm_name(axis: str, allied: str) -> str:
    """The ``arm`` label of a pairing: ``"<axis> vs <allied>"``."""
    return f"{axis} vs {allied}"


def pairings(axis=AXIS_LADDER, allied=ALLIED_LADDER) -> list[tuple[str, str]]:
    """Every (Axis preset, Allied preset) the ladder plays: all of the product."""
    return [(a, b) for a in axis for b in allied]


def play(scenario: str, games: int, seed: int, jobs: int, axis=AXIS_LADDER, allied=ALLIED_LADDER,
         echo=print) -> pd.DataFrame:
    """Play every pairing on games ``0 .. games-1`` of ``seed``.

    Returns
    -------
    pandas.DataFrame
        The batch runner's game rows of all pairings, with ``arm``
        (``arm_name``), ``axis_win`` (bool) and ``scenario``.
    """
    frames = []
    for a, b in pairings(axis, allied):
        t0 = time.perf_counter()
        df = run_games(scenario, games, seed, axis_policy=a, allied_policy=b, n_jobs=jobs, progress=False)
        df["arm"] = arm_name(a, b)
        df["axis_win"] = df["winner"] == "axis"
        frames.append(df)
        echo(f"{scenario}: {arm_name(a, b):28s} Axis wins {df['axis_win'].mean():.3f} "
             f"({time.perf_counter() - t0:.0f} s)")
    return pd.concat(frames, ignore_index=True)


def rung_table(games: pd.DataFrame, side: str, ladder, opponents) -> pd.DataFrame:
    """Paired comparisons of each rung of ``ladder`` (presets of ``side``)
    against every preset in ``opponents``.

    Returns
    -------
    pandas.DataFrame
        One row per (rung, opponent): ``scenario``, ``side``, ``preset``,
        ``predecessor``, ``opponent``, ``games``, the Axis win rates of both
        arms, ``difference`` (preset minus predecessor, Axis win rate; for an
        Allied rung a negative difference is the new preset's gain), Tango's
        ``low`` / ``high``, the discordant counts and McNemar's p value.
    """
    rows = []
    scen = games["scenario"].iloc[0] if "scenario" in games and len(games) else ""
    for old, new in zip(ladder[:-1], ladder[1:]):
        for opp in opponents:
            if side == "axis":
                a, b = arm_name(old, opp), arm_name(new, opp)
            else:
                a, b = arm_name(opp, old), arm_name(opp, new)
            if a not in set(games["arm"]) or b not in set(games["arm"]):
                continue
            r = paired_comparison(games, a, b, outcome="axis_win")
            rows.append(dict(scenario=scen, side=side, preset=new, predecessor=old, opponent=opp,
                             games=r.games, rate_predecessor=r.rate_a, rate_preset=r.rate_b,
                             difference=r.difference, low=r.low, high=r.high,
                             predecessor_only=r.a_only, preset_only=r.b_only, p_value=r.mcnemar_pvalue))
    return pd.DataFrame(rows)


def arm_table(games: pd.DataFrame) -> pd.DataFrame:
    """Axis win rate of every arm with a 95 % Wilson interval, games and mean end turn."""
    g = games.groupby(["scenario", "arm"], sort=False)
    out = g.agg(games=("axis_win", "size"), axis_wins=("axis_win", "sum"), end_turn=("end_turn", "mean"))
    lo, hi = proportion_interval(out["axis_wins"].to_numpy(), out["games"].to_numpy())
    out["axis_win_rate"] = out["axis_wins"] / out["games"]
    out["low"], out["high"] = lo, hi
    return out.reset_index()


def matrix_markdown(arms: pd.DataFrame, axis, allied) -> str:
    """Axis win rate (95 % Wilson interval) of every pairing of one scenario
    as a markdown table: Axis presets down, Allied presets across."""
    cell = {a: f"{100 * r:.1f}% ({100 * lo:.0f}-{100 * hi:.0f})"
            for a, r, lo, hi in zip(arms["arm"], arms["axis_win_rate"], arms["low"], arms["high"])}
    lines = ["| Axis \\ Allied | " + " | ".join(f"`{b}`" for b in allied) + " |",
             "|---|" + "---|" * len(allied)]
    for a in axis:
        lines.append(f"| `{a}` | " + " | ".join(cell.get(arm_name(a, b), "") for b in allied) + " |")
    return "\n".join(lines)


def markdown(rungs: pd.DataFrame) -> str:
    """The rung table as a markdown table (differences in points of Axis win rate)."""
    lines = ["| scenario | side | preset | over | against | games | Axis wins: predecessor | preset | "
             "difference | 95% CI | discordant (pred. only / preset only) | McNemar p |",
             "|---|---|---|---|---|---:|---:|---:|---:|---|---|---:|"]
    for r in rungs.itertuples():
        lines.append(f"| {r.scenario} | {r.side} | `{r.preset}` | `{r.predecessor}` | `{r.opponent}` | {r.games} | "
                     f"{r.rate_predecessor:.3f} | {r.rate_preset:.3f} | {100 * r.difference:+.1f} | "
                     f"[{100 * r.low:+.1f}, {100 * r.high:+.1f}] | {r.predecessor_only} / {r.preset_only} | "
                     f"{r.p_value:.2g} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", choices=["hercules", "intro"], default="hercules")
    ap.add_argument("--games", type=int, default=400, help="games per pairing (default 400)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--axis", nargs="+", default=list(AXIS_LADDER), help="Axis ladder, weakest first")
    ap.add_argument("--allied", nargs="+", default=list(ALLIED_LADDER), help="Allied ladder, weakest first")
    ap.add_argument("--out", help="parquet file for every game row")
    ap.add_argument("--from", dest="inputs", nargs="+", help="read game rows written by --out instead of playing")
    ap.add_argument("--markdown", action="store_true", help="print the tables as markdown")
    a = ap.parse_args(argv)
    if a.inputs:
        games = pd.concat([read_frame(p) for p in a.inputs], ignore_index=True)
    else:
        if a.games < 1:
            ap.error("--games must be at least 1")
        games = play(a.scenario, a.games, a.seed, a.jobs, a.axis, a.allied)
        if a.out:
            write_frame(games, a.out)
    parts = []
    for scen, g in games.groupby("scenario", sort=False):
        parts.append(rung_table(g, "axis", a.axis, a.allied))
        parts.append(rung_table(g, "allied", a.allied, a.axis))
    rungs = pd.concat(parts, ignore_index=True)
    arms = arm_table(games)
    if a.markdown:
        for scen, g in arms.groupby("scenario", sort=False):
            print(f"{scen}: Axis win rate (95% Wilson interval), {int(g['games'].max())} games a pairing\n")
            print(matrix_markdown(g, a.axis, a.allied))
            print()
        print(markdown(rungs))
    else:
        with pd.option_context("display.width", 200, "display.max_rows", 200):
            print(arms.to_string(index=False))
            print()
            print(rungs.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
