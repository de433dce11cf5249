"""Engine entry point: ``play_games`` for the Island of Death scenarios.

Signature and purity follow :mod:`malta_sim.games.registry`: the row of game
``g`` depends only on ``(seed, g, scenario, policies, options, data)``.  Each
game gets its own :class:`~.game.Game` (state arrays + named random streams) and
is played by the Python orchestration loop of :mod:`.sequence`.

Performance shape
-----------------
State is a NamedTuple of numpy arrays (:mod:`.state`).  The spatial hot paths
and the decisions are compiled, one call per decision over all candidates:
legal moves (``movement.legal_kernel``), supply (``supply.supply_kernel``),
attack options, retreats and phase-end checks (``combat_options``,
``combat_moves``, ``phase_checks``), the Axis forecasts and attack picks
(:mod:`malta_sim.policies.forecast`) and move choice
(:mod:`malta_sim.policies.move_choice`).  Facts that hold for a whole phase or
game are computed once (tables per static data, memos keyed on what they
read).  The phases themselves still run per game in Python (about 20-30 ms of
CPU per game; figures in ``docs/performance.md``).  Moving them into numba
needs: (1) the remaining bot callbacks (step losses, retreats, advances,
beach moves, stick plans) as compiled functions over a parameter vector
(``Policy.params``); (2) the event log as a preallocated int array (kind,
turn, hexes, units, dice, cell) decoded afterwards; (3) unit entry, the entry
hook and elimination over ``GameState`` fields only (no ``Game`` object, no
dicts/lists); (4) the invasion phases likewise compiled.  The Python-side
dice streams are ``numpy.random.Generator`` objects, which numba accepts as
arguments and draws from identically.  Games would then run batched with
``numba.prange`` over the leading game axis of a batched state.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from ...errors import OptionError
from ..registry import GameBatchResult, get_scenario
from . import sequence, victory
from .game import Game
from .state import SIDE_NAMES, turn_name

#: Columns of the one-row-per-game frame, in order.
RESULT_COLUMNS = (
    "game", "seed", "scenario", "axis_policy", "allied_policy", "options", "winner",
    "end_reason", "end_turn", "end_date", "final_surrender_modifier", "last_surrender_roll",
    "axis_steps_lost", "allied_steps_lost", "airfields_axis", "cities_axis", "towns_axis",
    "forts_destroyed", "first_airfield_turn", "axis_hqs_lost", "warships_damaged",
    "rn_intervention", "weather_days_rainy",
)


@lru_cache(maxsize=4)
def _static_cached(data_dir: str | None):
    """Static data of a data folder, built once per folder.

    The folder first goes through the validated loader
    (:func:`malta_sim.loaders.load_iod`, cached by :func:`setup.load_data`),
    so a broken ``--data-dir`` raises a one-line
    :class:`~malta_sim.errors.DataError` naming file, line and field before
    the engine reads any table.

    Raises
    ------
    DataError
        The first problem in the data folder.
    """
    from .setup import load_data, load_static
    load_data(data_dir)
    return load_static(data_dir)


def _provenance(scenario: str, data_dir) -> dict:
    """What the run rests on: the components of the loaded data folder whose
    rows are reconstructed rather than printed (``source`` column), per the
    DATA loader's counts, and whether the charts (TEC, CRT, bombardment,
    drop, scatter) are reconstructed or printed."""
    from .setup import load_data
    d = load_data(None if data_dir is None else str(data_dir))
    comps = d.reconstructed_components(scenario)
    charts = {"TEC", "CRT", "bombardment", "drop", "scatter"}
    return {"engine": "island_of_death",
            "charts": "reconstructed" if charts & set(comps) else "printed",
            "reconstructed_components": comps,
            "reconstructed_rows": {f: int(n) for f, n in d.reconstructed.items() if n}}


def new_game(scenario: str, seed: int, game_index: int, *, axis_policy="random",
             allied_policy="random", options=(), data_dir=None, event_log=False,
             check=False, policy_params=None) -> Game:
    """Set up one game of ``scenario`` ready to play (its set-up done).

    Raises
    ------
    OptionError
        Unknown scenario, policy or option.
    """
    from ...policies import make_policy
    from . import load_invasion_modules
    from .setup import setup_scenario

    spec = get_scenario(scenario)
    for o in options:
        if o not in spec.options:
            raise OptionError(f"unknown option {o!r} for scenario {scenario}; "
                              f"choose from: {', '.join(spec.options) or '(none)'}")
    load_invasion_modules()
    static = _static_cached(None if data_dir is None else str(data_dir))
    pp = policy_params or {}
    bad = sorted(str(k) for k in pp if k not in ("axis", "allied"))
    if bad:
        raise OptionError(f"--policy-params: unknown side {bad[0]!r}; valid sides: axis, allied")
    policies = (make_policy(axis_policy, 0, pp.get("axis")),
                make_policy(allied_policy, 1, pp.get("allied")))
    return setup_scenario(static, scenario, seed, game_index, policies, options=tuple(options),
                          log=event_log, check=check)


def game_row(game: Game, axis_policy: str, allied_policy: str) -> dict:
    """The result row of a finished (or stopped) game."""
    s = game.state
    counts = victory.objective_counts(game)
    return {
        "game": game.game_index,
        "seed": game.seed,
        "scenario": game.scenario.name,
        "axis_policy": axis_policy,
        "allied_policy": allied_policy,
        "options": ",".join(game.options),
        "winner": SIDE_NAMES[int(s.winner[0])] if s.winner[0] >= 0 else "none",
        "end_reason": victory.END_REASON_NAMES[int(s.end_reason[0])],
        "end_turn": int(s.turn[0]),
        "end_date": turn_name(int(s.turn[0])),
        "final_surrender_modifier": int(s.surrender_modifier[0]),
        "last_surrender_roll": int(s.last_surrender_roll[0]),
        "axis_steps_lost": int(s.axis_steps_lost[0]),
        "allied_steps_lost": int(s.allied_steps_lost[0]),
        "airfields_axis": counts["airfields"],
        "cities_axis": counts["cities"],
        "towns_axis": counts["towns"],
        "forts_destroyed": counts["forts_destroyed"],
        "first_airfield_turn": int(s.first_airfield_turn[0]),
        "axis_hqs_lost": int(s.hqs_lost[0]),
        "warships_damaged": int(s.warships_damaged[0]),
        "rn_intervention": int(s.rn_result[0]),
        "weather_days_rainy": int(s.rainy_days[0]),
    }


def play_games(scenario: str, seed: int, games, *, axis_policy: str = "random",
               allied_policy: str = "random", options=(), data_dir=None,
               per_turn: bool = False, event_log: bool = False,
               policy_params: dict | None = None, check: bool = False) -> GameBatchResult:
    """Play a block of Island of Death games (registry contract).

    Parameters
    ----------
    scenario : {"intro", "hercules"}
    seed : int
        Master seed.
    games : array of int64
        Game indices to play; each game's row depends only on (seed, index,
        scenario, policies, options, data).
    axis_policy, allied_policy : str
        Policy names (``random``, ``balanced``, ``static``; optional side
        prefix ``axis:``/``allied:``).
    options : tuple of str
        Optional rules (see the scenario's ``options``).
    data_dir : str or None
        Data folder (packaged data when None).
    per_turn, event_log : bool
        Also return the long per-turn frame / the event log.
    check : bool
        Test mode: verify the invariants at every phase end (slower).

    Returns
    -------
    GameBatchResult
        ``games`` frame with :data:`RESULT_COLUMNS`, sorted by ``game``.
    """
    games = np.asarray(games, dtype=np.int64).ravel()
    rows, turns, events = [], [], []
    for g in sorted(int(x) for x in games):
        game = new_game(scenario, seed, g, axis_policy=axis_policy, allied_policy=allied_policy,
                        options=options, data_dir=data_dir, event_log=event_log, check=check,
                        policy_params=policy_params)
        game.record_turns = per_turn
        sequence.play_game(game)
        rows.append(game_row(game, axis_policy, allied_policy))
        if per_turn:
            turns.extend(game.per_turn_rows)
        if event_log:
            events.extend(game.events.rows)
    frame = pd.DataFrame(rows, columns=list(RESULT_COLUMNS))
    res = GameBatchResult(
        games=frame,
        per_turn=pd.DataFrame(turns) if per_turn else None,
        events=pd.DataFrame(events) if event_log else None,
        provenance=_provenance(scenario, data_dir),
    )
    return res
