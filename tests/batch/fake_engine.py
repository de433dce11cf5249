"""A deterministic stand-in engine for the batch-runner tests.

It obeys the engine <-> batch contract of :mod:`malta_sim.games.registry`: each
game's row is drawn only from ``malta_sim.rng`` streams of ``(seed, game,
purpose)``, so it must come out the same for any chunking, worker count or
backend.  It registers the scenario ``batch-fake`` when imported (also in
worker processes, which import this module by name through the scenario's
``play`` path).

Knobs for the tests:

* option ``rainy``: changes the weather draw (results differ);
* option ``slow``: sleeps 20 ms per game (for the kill-and-resume test);
* ``policy_params={"axis": {"aggression": x}}`` shifts the end turn (a consulted
  parameter); any other key is never consulted;
* ``data_dir`` holding ``broken.csv``: raises a :class:`DataError` (as a real
  loader would on a bad file);
* ``CRASH_AT``: a set of game indices that raise once, in this process;
* ``FAIL_AT``: game indices that raise every time, in this process;
* ``INTERRUPT_AT``: game indices where Ctrl-C lands inside compiled code
  (a ``SystemError`` caused by ``KeyboardInterrupt``, as numba gives).
"""

from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd
from malta_sim.errors import DataError
from malta_sim.games.registry import GameBatchResult, ScenarioSpec, register
from malta_sim.rng import GameStreams

SPEC = register(
    ScenarioSpec(
        name="batch-fake",
        game="island_of_death",
        title="Batch runner test double",
        play="tests.batch.fake_engine:play_games",
        axis_policies=("attack", "cautious"),
        allied_policies=("defend", "counter"),
        options=("rainy", "slow", "unused_rule"),
    )
)

#: Games that raise the next time they are played in this process (then are removed).
CRASH_AT: set[int] = set()
#: Games that raise every time they are played in this process (an engine bug).
FAIL_AT: set[int] = set()
#: Games where an interrupt comes out wrapped in a SystemError, as from numba.
INTERRUPT_AT: set[int] = set()

DATES = pd.date_range("1942-06-29", periods=12, freq="D")
SLOTS = ("AM", "noon", "PM", "night")


class SimulatedCrash(RuntimeError):
    pass


def _one_game(seed, g, axis_policy, allied_policy, options, params, per_turn):
    s = GameStreams(seed, g)
    aggression = float(((params or {}).get("axis") or {}).get("aggression", 0.0))
    rain_p = 0.6 if "rainy" in options else 0.2
    rainy = int((s["weather"].random(12) < rain_p).sum())
    end_turn = int(s["combat"].integers(8, 49)) - int(aggression)
    end_turn = max(1, min(48, end_turn))
    bias = 0.1 if axis_policy == "attack" else 0.0
    bias -= 0.05 if allied_policy == "counter" else 0.0
    axis_wins = bool(s["surrender"].random() < 0.45 + bias)
    reason = "surrender" if axis_wins else ("time limit" if end_turn == 48 else "operation cancelled")
    row = {
        "game": g,
        "winner": "axis" if axis_wins else "allied",
        "end_reason": reason,
        "end_turn": end_turn,
        "end_date": f"{DATES[(end_turn - 1) // 4].date()} {SLOTS[(end_turn - 1) % 4]}",
        "axis_steps_lost": int(s["combat"].integers(0, 30)),
        "allied_steps_lost": int(s["combat"].integers(0, 30)),
        "first_airfield_turn": float(end_turn // 2) if axis_wins else np.nan,
        "weather_days_rainy": rainy,
    }
    turns = []
    if per_turn:
        for t in range(1, end_turn + 1):
            turns.append({"game": g, "turn": t, "axis_steps": 40 - t // 2, "allied_steps": 50 - t // 3})
    return row, turns


def play_games(scenario, seed, games, *, axis_policy, allied_policy, options, data_dir,
               per_turn=False, event_log=False, policy_params=None):
    if data_dir is not None and os.path.exists(os.path.join(data_dir, "broken.csv")):
        raise DataError(os.path.join(data_dir, "broken.csv"), 2, "hex", "'99ZZ' is not a hex id")
    rows, turns = [], []
    for g in np.asarray(games, dtype=np.int64):
        g = int(g)
        if g in CRASH_AT:
            CRASH_AT.discard(g)
            raise SimulatedCrash(f"simulated crash at game {g}")
        if g in FAIL_AT:
            raise SimulatedCrash("simulated engine bug")
        if g in INTERRUPT_AT:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as exc:
                raise SystemError("CPUDispatcher returned a result with an exception set") from exc
        if "slow" in options:
            time.sleep(0.02)
        r, t = _one_game(seed, g, axis_policy, allied_policy, options, policy_params, per_turn)
        rows.append(r)
        turns.extend(t)
    return GameBatchResult(
        games=pd.DataFrame(rows),
        per_turn=pd.DataFrame(turns) if per_turn else None,
        provenance={"reconstructed_components": ["fake engine"], "engine": "batch-fake"},
    )
