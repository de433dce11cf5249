"""Head-to-head measure of the Axis bot on common random numbers.

Plays ``--games`` games of a scenario for one Axis arm against each Allied
preset (same seed, same game indices for every arm, so the dice streams match
until a decision differs) with event logs, and writes per-game figures to
``--out`` (parquet):  winner, end turn, Axis steps lost on turn 0 (from the
per-turn frame), Axis pieces eliminated on turn 0 by the rule of their cause
(18.5 landing losses, 16.56 coastal fire, 18.61 water's edge, 19.45 drowned,
9.5 combat ...), 20th Division battalions that broke down to land, stick HQs
lost.  ``--summary`` reads several such files (arms) and prints win rates
with Wilson intervals, the paired difference of each arm against the first
(:func:`malta_sim.analysis.paired.paired_comparison`) and the means.

    python experiments/axis_bot_measure.py play --arm new --scenario hercules --games 200 --seed 7 --out new_h.parquet
    python experiments/axis_bot_measure.py summary old_h.parquet new_h.parquet
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd

from malta_sim.analysis.paired import paired_comparison
from malta_sim.analysis.rates import proportion_interval
from malta_sim.play import new_game, play_games

CAUSES = ("18.5", "16.56", "18.61", "19.45", "9.5", "19.51", "7.2")


def play(arm: str, scenario: str, games: int, seed: int, allied: str, axis: str = "axis:balanced",
         params: dict | None = None) -> pd.DataFrame:
    """Per-game figures of ``games`` games (see module docstring)."""
    g0 = new_game(scenario, seed, 0, axis_policy=axis, allied_policy=allied)
    start_lost = int(g0.state.axis_steps_lost[0])
    names = g0.static.names
    rows = []
    block = 25
    for lo in range(0, games, block):
        idx = list(range(lo, min(games, lo + block)))
        r = play_games(scenario, seed, idx, axis_policy=axis, allied_policy=allied, event_log=True,
                       per_turn=True, policy_params={"axis": params} if params else None)
        ev, pt = r.events, r.per_turn
        for _, row in r.games.iterrows():
            g = int(row["game"])
            e = ev[ev["game"] == g]
            ptg = pt[pt["game"] == g]
            first = int(ptg["turn"].min()) if len(ptg) else 0
            t0 = ptg[ptg["turn"] == first]
            lost0 = int(t0["axis_steps_lost"].iloc[0]) - start_lost if len(t0) else np.nan
            el0 = e[(e["turn"] == first) & (e["side"] == "axis") & (e["action"] == "eliminated")]
            by = el0["rule"].astype(str).value_counts().to_dict()
            bd = e[(e["action"] == "breakdown") & (e["side"] == "axis")]
            div20 = set()
            for us in bd["units"]:
                bn = str(us).split(";")[0].split(" ")[0].split(",")[0]
                if bn.startswith("axis.20.") and "_" in bn and "." not in bn[len("axis.20."):]:
                    div20.add(bn)
            ax = e["side"] == "axis"
            bomb = e["action"].isin(["bombardment", "bombardment ineffective"])
            hq_lost = int(((e["action"] == "eliminated") & e["units"].astype(str).str.contains(r"\.hq\b")
                           & (e["side"] == "axis")).sum())
            out = dict(arm=arm, scenario=scenario, allied=allied, game=g, winner=row["winner"], end_reason=row["end_reason"],
                       end_turn=int(row["end_turn"]), first_turn=first, axis_lost_t0=lost0,
                       axis_steps_lost=int(row["axis_steps_lost"]), allied_steps_lost=int(row["allied_steps_lost"]),
                       div20_battalions_landed=len(div20), axis_hq_eliminations=hq_lost,
                       bombardments=int((bomb & ax).sum()),
                       bombardments_no_effect=int((bomb & ax & ((e["action"] == "bombardment ineffective")
                                                                 | (e["result"].astype(str) == "-"))).sum()),
                       jumps_cancelled=int((e["action"] == "jumps_cancelled").sum()))
            for c in CAUSES:
                out[f"t0_elim_{c}"] = int(by.get(c, 0))
            out["t0_elim_other"] = int(sum(v for k, v in by.items() if k not in CAUSES))
            rows.append(out)
    return pd.DataFrame(rows)


def summary(paths: list[str]) -> None:
    """Print the figures of the arms in ``paths`` (first = baseline)."""
    frames = [pd.read_parquet(p) for p in paths]
    for f in frames:
        if "first_turn" not in f:
            f["first_turn"] = 0
        if "end_reason" not in f:
            f["end_reason"] = "unknown"
    df = pd.concat(frames, ignore_index=True)
    df["first_turn"] = df["first_turn"].astype(int)
    df["axis_win"] = (df["winner"] == "axis").astype(int)
    df["day1_end"] = (df["end_turn"] <= df["first_turn"] + 3).astype(int)
    arms = list(dict.fromkeys(df["arm"]))
    for (scen, allied), sub in df.groupby(["scenario", "allied"], sort=False):
        print(f"\n== {scen} vs {allied}")
        for arm in arms:
            a = sub[sub["arm"] == arm]
            if not len(a):
                continue
            k, n = int(a["axis_win"].sum()), len(a)
            lo, hi = proportion_interval(k, n)
            cols = ["axis_lost_t0", "day1_end", "div20_battalions_landed", "axis_hq_eliminations",
                    "bombardments", "bombardments_no_effect", "jumps_cancelled",
                    "axis_steps_lost", "allied_steps_lost"] + \
                   [c for c in a.columns if c.startswith("t0_elim_")]
            means = {c: round(float(a[c].mean()), 3) for c in cols}
            print(f"  {arm:>10}: Axis wins {k}/{n} = {k / n:.3f} [{lo:.3f}, {hi:.3f}]  " + json.dumps(means))
        base = arms[0]
        for arm in arms[1:]:
            pair = sub[sub["arm"].isin([base, arm])]
            if pair["arm"].nunique() == 2:
                res = paired_comparison(pair, base, arm)
                print(f"  paired {arm} - {base}: {res}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    sp = ap.add_subparsers(dest="cmd", required=True)
    p = sp.add_parser("play")
    p.add_argument("--arm", required=True)
    p.add_argument("--scenario", default="hercules")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--allied", default="allied:static,allied:counterattack")
    p.add_argument("--axis", default="axis:balanced")
    p.add_argument("--params", default="")
    p.add_argument("--out", required=True)
    s = sp.add_parser("summary")
    s.add_argument("paths", nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "play":
        frames = [play(a.arm, a.scenario, a.games, a.seed, al, a.axis, json.loads(a.params) if a.params else None)
                  for al in a.allied.split(",")]
        pd.concat(frames, ignore_index=True).to_parquet(a.out)
    else:
        summary(a.paths)


if __name__ == "__main__":
    main()
