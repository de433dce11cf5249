"""Blunder indicators of the Axis presets in one table: what decided the games.

    python experiments/blunders.py --scenario hercules --games 400 --seed 11 --axis tuned balanced random --allied active

Plays each Axis preset against the Allied preset on the same games (common
random numbers) with the batch runner and prints, per Axis preset, the means
of the result frame's blunder indicators (``docs/results.md``): steps lost on
the scenario's first turn per side and cause, the share of games in which
each Axis division got a piece ashore and the mean first turn it did, HQs
lost, bombardments and the share of them at a Bombardment Table column with
no possible effect, and the share of games that ended on the first day.
Nothing is asserted: this is a measurement (``docs/policies.md``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from malta_sim.analysis.rates import proportion_interval  # noqa: E402
from malta_sim.batch import run_games  # noqa: E402


def indicators(df: pd.DataFrame) -> dict:
    """The blunder figures of one arm's game rows (means and shares)."""
    n = len(df)
    out = {"games": n, "axis_win": float((df["winner"] == "axis").mean())}
    for side in ("axis", "allied"):
        out[f"{side}_steps_lost_first_turn"] = float(df[f"{side}_steps_lost_first_turn"].mean())
    for c in sorted(c for c in df.columns if c.startswith("axis_first_turn_loss_")):
        out[c.replace("axis_first_turn_loss_", "axis_first_turn_")] = float(df[c].mean())
    for d in ("div4", "div20"):
        col = df[f"{d}_first_ashore_turn"]
        out[f"{d}_ashore_share"] = float((col >= 0).mean())
        out[f"{d}_first_ashore_turn"] = float(col[col >= 0].mean()) if (col >= 0).any() else float("nan")
    out["axis_hqs_lost"] = float(df["axis_hqs_lost"].mean())
    out["allied_hqs_lost"] = float(df["allied_hqs_lost"].mean())
    b, nb = int(df["axis_bombardments"].sum()), int(df["axis_bombardments_no_effect"].sum())
    out["axis_bombardments"] = b / n
    out["axis_bombardments_no_effect_share"] = nb / b if b else float("nan")
    k = int(df["ended_first_day"].sum())
    lo, hi = proportion_interval(k, n)
    out["ended_first_day"] = k / n
    out["ended_first_day_low"], out["ended_first_day_high"] = float(lo), float(hi)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", choices=["hercules", "intro"], default="hercules")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--axis", nargs="+", default=["tuned", "balanced", "random"])
    ap.add_argument("--allied", default="active")
    ap.add_argument("--out", help="parquet file for the game rows of every arm")
    a = ap.parse_args(argv)
    rows, frames = {}, []
    for ax in a.axis:
        df = run_games(a.scenario, a.games, a.seed, axis_policy=ax, allied_policy=a.allied, n_jobs=a.jobs)
        df["arm"] = f"{ax} vs {a.allied}"
        frames.append(df)
        rows[ax] = indicators(df)
    if a.out:
        from malta_sim.batch import write_frame
        write_frame(pd.concat(frames, ignore_index=True), a.out)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_rows", 100):
        print(f"{a.scenario}, {a.games} games, seed {a.seed}, Allied {a.allied}")
        print(table.to_string(float_format=lambda x: f"{x:.3f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
