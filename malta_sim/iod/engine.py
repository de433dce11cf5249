"""The Island of Death engine's entry points: set up a game with two bots
(:func:`setup_game`), play it (:func:`play_game`, the sequence of play of
:mod:`.sequence`), read its result row (:func:`game_row`), and play a block
of games (:func:`play_games`).

A game's row depends only on ``(seed, game index, scenario, bots, options,
data)``.  Each game gets its own :class:`~.game.Game` (state arrays and named
random streams).  The engine knows bots only through their decision methods
(:class:`malta_sim.bots.base.Policy` documents them); turning bot names into
bots is done above, in :mod:`malta_sim.play`.

Performance shape: state is a NamedTuple of numpy arrays (:mod:`.state`);
the spatial hot paths (legal moves, supply, attack options, retreats,
phase-end checks) are compiled kernels called once per decision over all
candidates; the phases run per game in Python (figures in
``docs/performance.md``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from malta_sim.games.registry import GameBatchResult
from malta_sim.iod import sequence
from malta_sim.iod.rules import victory
from malta_sim.iod.game import Game
from malta_sim.iod.state import LOSS_CAUSE_NAMES, SIDE_NAMES, turn_name
from malta_sim.iod.static import FORMATION_CODES

#: Columns of the one-row-per-game frame, in order.
RESULT_COLUMNS = (
    "game", "seed", "scenario", "axis_policy", "allied_policy", "options", "winner",
    "end_reason", "end_turn", "end_date", "final_surrender_modifier", "last_surrender_roll",
    "axis_steps_lost", "allied_steps_lost", "airfields_axis", "cities_axis", "towns_axis",
    "forts_destroyed", "first_airfield_turn", "axis_hqs_lost", "warships_damaged",
    "rn_intervention", "weather_days_rainy",
    # what decided the game: first-turn losses by cause, landings, wasted fire
    "axis_steps_lost_first_turn", "allied_steps_lost_first_turn",
    *(f"{side}_first_turn_loss_{cause}" for side in SIDE_NAMES for cause in LOSS_CAUSE_NAMES),
    "div4_first_ashore_turn", "div20_first_ashore_turn", "allied_hqs_lost",
    "axis_bombardments", "axis_bombardments_no_effect",
    "allied_bombardments", "allied_bombardments_no_effect", "ended_first_day",
)

#: Formation codes of the two Italian infantry divisions that land from the
#: sea (4th "Livorno", 20th "Friuli"; rules 15.1, 18.x) and their row columns.
_DIVISION_COLUMNS = (("div4_first_ashore_turn", FORMATION_CODES["4"]),
                     ("div20_first_ashore_turn", FORMATION_CODES["20"]))


@lru_cache(maxsize=4)
def _static_cached(data_dir: str | None):
    """Static data of a data folder, built once per folder.

    The folder is read and validated once by the loaders
    (:func:`malta_sim.loaders.load_iod`, cached by
    :func:`malta_sim.iod.static.load_data`), so a broken ``--data-dir``
    raises a one-line :class:`~malta_sim.errors.DataError` naming file, line
    and field; :func:`malta_sim.iod.static.build_static` then builds the
    arrays from the loaded tables.

    Raises
    ------
    DataError
        The first problem in the data folder.
    """
    from malta_sim.iod.static import load_static
    return load_static(data_dir)


def _provenance(scenario: str, data_dir) -> dict:
    """What the run rests on: the components of the loaded data folder whose
    rows are reconstructed rather than printed (``source`` column), per the
    DATA loader's counts, and whether the charts (TEC, CRT, bombardment,
    drop, scatter) are reconstructed or printed."""
    from malta_sim.iod.static import load_data
    d = load_data(None if data_dir is None else str(data_dir))
    comps = d.reconstructed_components(scenario)
    charts = {"TEC", "CRT", "bombardment", "drop", "scatter"}
    return {"engine": "island_of_death",
            "charts": "reconstructed" if charts & set(comps) else "printed",
            "reconstructed_components": comps,
            "reconstructed_rows": {f: int(n) for f, n in d.reconstructed.items() if n}}


def setup_game(scenario: str, seed: int, game_index: int, policies, *, options=(),
               data_dir=None, event_log=False, check=False) -> Game:
    """Set up one game of ``scenario`` ready to play (its set-up done, rule 3.0, 22).

    Parameters
    ----------
    scenario : {"intro", "hercules"}
    seed, game_index : int
        Master seed and game index: the game's random streams.
    policies : tuple of two bots
        The Axis and the Allied player (objects with the decision methods of
        :class:`malta_sim.bots.base.Policy`); fresh objects for each game.
    options : tuple of str
        Optional rules the scenario accepts (:mod:`malta_sim.iod.scenarios`).
    data_dir : str or None
        Data folder (packaged data when None).
    event_log, check : bool
        Keep the event log; verify the invariants at every phase end.

    Returns
    -------
    Game

    Raises
    ------
    OptionError
        Unknown scenario or option.
    DataError
        The first problem in the data folder.
    """
    from malta_sim.iod.scenarios import check_options
    from malta_sim.iod.setup import setup_scenario

    check_options(scenario, options)
    static = _static_cached(None if data_dir is None else str(data_dir))
    return setup_scenario(static, scenario, seed, game_index, tuple(policies),
                          options=tuple(options), log=event_log, check=check)


def play_game(game: Game) -> Game:
    """Play ``game`` to its end (the sequence of play, rule 4); returns it."""
    sequence.play_game(game)
    return game


def game_row(game: Game, axis_policy: str, allied_policy: str) -> dict:
    """The result row of a finished (or stopped) game: one value per column of
    :data:`RESULT_COLUMNS` (meanings in :mod:`malta_sim.analysis.glossary`)."""
    s = game.state
    counts = victory.objective_counts(game)
    row = {
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
    row.update(blunder_indicators(game))
    return row


def blunder_indicators(game: Game) -> dict:
    """The columns that show what decided a game, read from the state's
    result counters (:mod:`.state`, section "result indicators").

    Returns
    -------
    dict
        ``<side>_steps_lost_first_turn`` and ``<side>_first_turn_loss_<cause>``
        (steps lost for victory, 20.1-20.2, in the scenario's first game turn,
        by LOSS_* cause), ``div4_first_ashore_turn`` / ``div20_first_ashore_turn``
        (first turn a piece of the division was on the map, -1 never; 18.x),
        ``allied_hqs_lost`` (16.81), ``<side>_bombardments`` and
        ``<side>_bombardments_no_effect`` (10.12), ``ended_first_day`` (bool: the
        game ended on the scenario's first day).
    """
    s = game.state
    lost = s.first_turn_steps_lost[0]
    row = {}
    for side, name in enumerate(SIDE_NAMES):
        row[f"{name}_steps_lost_first_turn"] = int(lost[side].sum())
    for side, name in enumerate(SIDE_NAMES):
        for c, cause in enumerate(LOSS_CAUSE_NAMES):
            row[f"{name}_first_turn_loss_{cause}"] = int(lost[side, c])
    for col, f in _DIVISION_COLUMNS:
        row[col] = int(s.first_ashore_turn[0, f])
    row["allied_hqs_lost"] = int(s.allied_hqs_lost[0])
    for side, name in enumerate(SIDE_NAMES):
        row[f"{name}_bombardments"] = int(s.bombardments[0, side])
        row[f"{name}_bombardments_no_effect"] = int(s.bombardments_no_effect[0, side])
    row["ended_first_day"] = bool(s.over[0]) and int(s.turn[0]) // 4 == game.scenario.first_day
    return row


def play_games(scenario: str, seed: int, games, make_policies, *, policy_names=("", ""),
               options=(), data_dir=None, per_turn: bool = False, event_log: bool = False,
               check: bool = False) -> GameBatchResult:
    """Play a block of Island of Death games.

    Parameters
    ----------
    scenario : {"intro", "hercules"}
    seed : int
        Master seed.
    games : array of int64
        Game indices to play; each game's row depends only on (seed, index,
        scenario, policies, options, data).
    make_policies : callable
        ``f(game_index) -> (axis bot, allied bot)``: fresh bots for a game.
    policy_names : (str, str)
        The names written in the rows' ``axis_policy`` / ``allied_policy``.
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
        game = setup_game(scenario, seed, g, make_policies(g), options=options, data_dir=data_dir,
                          event_log=event_log, check=check)
        game.record_turns = per_turn
        sequence.play_game(game)
        rows.append(game_row(game, *policy_names))
        if per_turn:
            turns.extend(game.per_turn_rows)
        if event_log:
            events.extend(game.events.rows)
    frame = pd.DataFrame(rows, columns=list(RESULT_COLUMNS))
    return GameBatchResult(
        games=frame,
        per_turn=pd.DataFrame(turns) if per_turn else None,
        events=pd.DataFrame(events) if event_log else None,
        provenance=_provenance(scenario, data_dir),
    )
