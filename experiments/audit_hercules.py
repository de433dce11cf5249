"""Audit of where Island of Death games are decided: step losses by side,
phase and cause; rule 20.0 surrender-modifier terms per turn; end reasons;
airfield capture times.

Plays seeded games in this process with the engine's own entry points and
attributes every step tallied for rules 20.1/20.2 to the phase it happened in
and to its cause (the rule the engine named when it took the loss: landing
losses 18.5, coastal fire 16.56, water's edge 18.61/18.62, drowning 19.45,
airborne losses 19.46, hostile landing 19.5x, combat 9.4x, stand ground 9.7,
retreat through ZOC 9.62, no retreat 9.61, Royal Navy 17.6, AA 16.12 ...).

Example::

    python experiments/audit_hercules.py --scenario hercules --games 30 --seed 1942
    python experiments/audit_hercules.py --scenario intro --games 20 --first-day-only
"""

from __future__ import annotations

import argparse
import collections
import inspect
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from malta_sim.iod import engine, sequence  # noqa: E402

from malta_sim.iod.rules import organisation, victory, warships
from malta_sim.iod.state import AXIS, turn_name  # noqa: E402
from malta_sim.play import new_game  # noqa: E402

_REC: dict = {"losses": [], "terms": [], "game": -1}


def _cause_from_stack() -> str:
    """The reason string the engine passed to ``lose_step``/``eliminate`` (or
    the name of the rule function that called them)."""
    funcs = []
    for fr in inspect.stack()[2:14]:
        loc = fr.frame.f_locals
        funcs.append(fr.function)
        for key in ("reason", "why", "cause"):
            v = loc.get(key)
            if isinstance(v, str) and v:
                return v
    for f in funcs:
        if f not in ("lose_step", "eliminate", "_tally", "take_steps", "_box_unit_loss"):
            return f
    return "?"


def _install() -> None:
    orig_tally = organisation._tally

    def tally(game, u, steps):
        if steps > 0:
            s, t = game.state, game.static
            w = int(t.step_weight[u]) * steps
            if w:
                _REC["losses"].append({
                    "game": game.game_index, "turn": game.turn, "phase": sequence.PHASES[int(s.phase[0])],
                    "side": "axis" if t.side[u] == AXIS else "allied", "steps": w,
                    "cause": _cause_from_stack()})
        return orig_tally(game, u, steps)

    organisation._tally = tally
    from malta_sim.iod import invasion as hercules
    orig_dw = warships.damage_warship

    def damage_warship(game, u):
        if game.state.box[u] != hercules.BOX_DAMAGED:
            _REC["losses"].append({"game": game.game_index, "turn": game.turn,
                                   "phase": sequence.PHASES[int(game.state.phase[0])], "side": "axis",
                                   "steps": 1, "cause": "warship damaged 16.55"})
        return orig_dw(game, u)

    warships.damage_warship = damage_warship
    orig_sm = victory.surrender_modifier

    def surrender_modifier(game):
        tot, terms = orig_sm(game)
        if sequence.PHASES[int(game.state.phase[0])] == "surrender":
            row = {"game": game.game_index, "turn": game.turn, "total": tot, **terms}
            rn = hercules.sp.rn_surrender_modifier(int(game.state.rn_result[0])) if not game.skip_invasion else 0
            row["beaches"] = terms["invasion"] - rn
            row["royal_navy"] = rn
            _REC["terms"].append(row)
        return tot, terms

    victory.surrender_modifier = surrender_modifier


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson score interval for a binomial share."""
    from statsmodels.stats.proportion import proportion_confint
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return float(lo), float(hi)


def play(scenario, seed, games, axis_policy, allied_policy, options, policy_params=None):
    rows, turns = [], []
    from malta_sim.errors import MaltaSimError
    from malta_sim.iod.game import IllegalDecision
    failed = []
    for g in games:
        game = new_game(scenario, seed, g, axis_policy=axis_policy, allied_policy=allied_policy,
                               options=options, policy_params=policy_params)
        game.record_turns = True
        base = (int(game.state.axis_steps_lost[0]), int(game.state.allied_steps_lost[0]))
        try:
            sequence.play_game(game)
        except (IllegalDecision, MaltaSimError) as exc:      # a bot error: leave the game out, say so
            failed.append((g, str(exc)))
            _REC["losses"] = [x for x in _REC["losses"] if x["game"] != g]
            _REC["terms"] = [x for x in _REC["terms"] if x["game"] != g]
            continue
        r = engine.game_row(game, axis_policy, allied_policy)
        r["base_axis"], r["base_allied"] = base
        rows.append(r)
        turns.extend(game.per_turn_rows)
    if failed:
        print(f"left out {len(failed)} game(s) that failed in the engine: {failed}")
    return pd.DataFrame(rows), pd.DataFrame(turns)


def report(res: pd.DataFrame, per_turn: pd.DataFrame) -> None:
    n = len(res)
    k = int((res.winner == "axis").sum())
    lo, hi = wilson(k, n)
    print(f"games {n}: Axis wins {k}/{n} = {k / n:.2f} (Wilson 95% {lo:.2f}-{hi:.2f}); "
          f"median end turn {res.end_turn.median():.1f} "
          f"(= {turn_name(int(res.end_turn.median()))}); mean {res.end_turn.mean():.1f}")
    print("end reasons:", dict(collections.Counter(zip(res.winner, res.end_reason))))
    print("end turn histogram:", dict(sorted(collections.Counter(res.end_turn).items())))
    fa = res.first_airfield_turn
    print("first airfield turn (-1 = never):", dict(sorted(collections.Counter(fa).items())))
    L = pd.DataFrame(_REC["losses"])
    if L.empty:
        print("no step losses recorded")
        return
    t_start = int(per_turn.turn.min()) if len(per_turn) else 0
    first_day = t_start // 4                      # four turns a day (4.0)
    first_day_turns = f"{t_start}-{4 * first_day + 3}"
    day1 = L[L.turn // 4 == first_day]
    print(f"steps already lost at the start (scenario set-up): axis {res.base_axis.mean():.0f}, "
          f"allied {res.base_allied.mean():.0f}")
    per_game = day1.groupby(["game", "side"]).steps.sum().unstack(fill_value=0).reindex(res.game, fill_value=0)
    print(f"\nfirst-day (turns {first_day_turns}) steps lost per game during play "
          f"(games that ended earlier count what they lost): "
          f"axis mean {per_game.get('axis', pd.Series([0])).mean():.1f} median {per_game.get('axis', pd.Series([0])).median():.0f}; "
          f"allied mean {per_game.get('allied', pd.Series([0])).mean():.1f} median {per_game.get('allied', pd.Series([0])).median():.0f}")
    t0 = L[L.turn == t_start].groupby(["game", "side"]).steps.sum().unstack(fill_value=0).reindex(res.game, fill_value=0)
    print(f"turn {t_start} ({turn_name(t_start)}) steps lost per game: axis mean {t0.get('axis', pd.Series([0])).mean():.1f}, "
          f"allied mean {t0.get('allied', pd.Series([0])).mean():.1f}")
    pd.set_option("display.width", 200)
    print("\nsteps lost per game by side and cause (all turns; first day):")
    tab = L.groupby(["side", "cause"]).steps.sum() / n
    tab1 = day1.groupby(["side", "cause"]).steps.sum() / n
    out = pd.DataFrame({"all": tab, "day1": tab1}).fillna(0).round(2).sort_values(["all"], ascending=False)
    print(out.sort_index(level=0, sort_remaining=False).to_string())
    print("\nsteps lost per game by side and phase (first day):")
    print((day1.groupby(["side", "phase"]).steps.sum() / n).round(2).to_string())
    T = pd.DataFrame(_REC["terms"])
    if not T.empty:
        cols = ["total", "cities", "airfields", "towns", "forts", "allied_steps", "axis_steps",
                "axis_hqs", "beaches", "royal_navy", "date"]
        print("\nsurrender modifier terms, mean over the games still running at that turn (20.0):")
        g = T.groupby("turn")[cols].mean().round(2)
        g.insert(0, "games", T.groupby("turn").size())
        print(g.head(16).to_string())


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="hercules")
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1942)
    ap.add_argument("--axis-policy", default=None)
    ap.add_argument("--allied-policy", default=None)
    ap.add_argument("--option", action="append", default=[])
    a = ap.parse_args(argv)
    from malta_sim.games.registry import get_scenario
    spec = get_scenario(a.scenario)
    ax = a.axis_policy or (spec.axis_policies[0] if spec.axis_policies else "balanced")
    al = a.allied_policy or (spec.allied_policies[0] if spec.allied_policies else "static")
    _install()
    res, pt = play(a.scenario, a.seed, range(a.games), ax, al, tuple(a.option))
    print(f"scenario {a.scenario}, seed {a.seed}, policies {ax} / {al}")
    report(res, pt)


if __name__ == "__main__":
    main()
