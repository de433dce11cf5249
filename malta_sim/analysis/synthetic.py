"""Synthetic result frames with known truth, for tests, docs and the notebook.

These frames are *not* game results: each arm has a chosen Axis win
probability and the games of different arms share uniform draws per game
index (common random numbers), exactly as a sweep's arms share seeds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rng import generator
from .frames import CALENDARS
from .glossary import BLUNDER_COLUMNS


def synthetic_results(
    n_games: int = 200,
    arms: dict[str, float] | None = None,
    *,
    seed: int = 0,
    scenario: str = "hercules",
    per_turn: bool = False,
):
    """A result frame with the columns of a batch, outcomes drawn from known rates.

    Parameters
    ----------
    n_games : int
        Games per arm.
    arms : dict of str to float
        Arm name -> Axis win probability (default ``{'base': 0.5}``).
    seed : int
        Master seed (draws via :func:`malta_sim.rng.generator`).
    scenario : str
        Scenario whose calendar bounds ``end_turn``.
    per_turn : bool
        Also return a long per-turn frame (``game, arm, turn, cities_axis,
        airfields_axis, surrender_modifier``).

    Returns
    -------
    pandas.DataFrame or (pandas.DataFrame, pandas.DataFrame)
    """
    arms = arms or {"base": 0.5}
    cal = CALENDARS.get(scenario, CALENDARS["hercules"])
    last = cal.last_turn
    g = generator(seed, 0, "misc")
    u_win = g.random(n_games)  # shared across arms (CRN)
    u_time = g.random(n_games)
    u_air = g.random(n_games)
    u_city = g.random(n_games)
    u_cancel = g.random(n_games)
    steps_a = g.poisson(30, n_games)
    steps_b = g.poisson(25, n_games)
    first = cal.first_turn
    span = last - first
    rows, pt_rows = [], []
    # the indicators of what decided a game (glossary.BLUNDER_COLUMNS): no first-turn
    # losses, both divisions ashore on the first turn, no bombardments
    blunders = {c: 0 for c in BLUNDER_COLUMNS if c != "ended_first_day"}
    blunders.update(div4_first_ashore_turn=first, div20_first_ashore_turn=first)
    for k, (arm, p) in enumerate(arms.items()):
        win = u_win < p
        t_sur = first + np.floor(u_time * span).astype(int)
        t_air = np.where(u_air < min(0.95, p + 0.3), first + np.floor(u_air * span / 2).astype(int), -1)
        t_city = np.where(u_city < p, first + np.floor((0.3 + 0.7 * u_city) * span).astype(int), -1)
        cancelled = (~win) & (u_cancel < 0.2)
        end_turn = np.where(win, t_sur, np.where(cancelled, first + np.floor(u_cancel * 5 * span).astype(int), last))
        t_air = np.where((t_air > end_turn), -1, t_air)
        t_city = np.where((t_city > end_turn), -1, t_city)
        reason = np.where(win, "surrender", np.where(cancelled, "invasion_suspended", "last_turn"))
        for i in range(n_games):
            rows.append(
                {
                    "game": i,
                    "seed": seed,
                    "scenario": scenario,
                    "axis_policy": "synthetic",
                    "allied_policy": "synthetic",
                    "options": "",
                    "arm": arm,
                    "arm_rate": p,
                    "winner": "axis" if win[i] else "allied",
                    "end_reason": reason[i],
                    "end_turn": int(end_turn[i]),
                    "end_date": str(cal.date_of(int(end_turn[i]))),
                    "final_surrender_modifier": int(-3 if win[i] else 2),
                    "last_surrender_roll": int(2 if win[i] else 7),
                    "axis_steps_lost": int(steps_a[i] + 3 * k),
                    "allied_steps_lost": int(steps_b[i]),
                    "airfields_axis": int(t_air[i] >= 0),
                    "cities_axis": int(t_city[i] >= 0),
                    "towns_axis": 0,
                    "forts_destroyed": 0,
                    "first_airfield_turn": int(t_air[i]),
                    "axis_hqs_lost": 0,
                    "warships_damaged": 0,
                    "rn_intervention": 0,
                    "weather_days_rainy": 0,
                    **blunders,
                    "ended_first_day": bool(int(end_turn[i]) // cal.turns_per_day == first // cal.turns_per_day),
                }
            )
            if per_turn:
                for t in range(first, int(end_turn[i]) + 1):
                    pt_rows.append(
                        {
                            "game": i,
                            "arm": arm,
                            "turn": t,
                            "cities_axis": int(0 <= t_city[i] <= t),
                            "airfields_axis": int(0 <= t_air[i] <= t),
                        }
                    )
    games = pd.DataFrame(rows)
    if per_turn:
        return games, pd.DataFrame(pt_rows)
    return games
