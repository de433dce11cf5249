"""The Island of Death scenarios as the batch runner plays them: the engine
(:mod:`malta_sim.iod`) with bots chosen by name (:mod:`malta_sim.bots`).

Importing this module registers ``intro`` (rule 22.2) and ``hercules``
(rule 22.3) in :mod:`malta_sim.games.registry`, with the bot names each side
accepts; :func:`play_games` is their entry point (the registry's contract)
and :func:`new_game` sets up one game by bot names.
"""

from __future__ import annotations

import warnings

from malta_sim.bots import make_policy
from malta_sim.bots.params import check_allied_options
from malta_sim.bots.presets import option_warnings, preset_names
from malta_sim.errors import NoEffectWarning, OptionError
from malta_sim.games.registry import GameBatchResult, ScenarioSpec, register
from malta_sim.iod import engine
from malta_sim.iod.game import Game
from malta_sim.iod.scenarios import SCENARIOS

for _sc in SCENARIOS.values():
    register(ScenarioSpec(name=_sc.name, game="island_of_death", title=_sc.title,
                          play="malta_sim.play:play_games", axis_policies=preset_names(0),
                          allied_policies=preset_names(1), options=_sc.options))


def _policy_maker(axis_policy: str, allied_policy: str, policy_params: dict | None, options=()):
    """``f(game_index) -> (axis bot, allied bot)``, fresh bots each call.
    Warns (:class:`~malta_sim.errors.NoEffectWarning`, one line each) about a preset or parameter that the
    optional rules ``options`` leave without effect
    (:func:`malta_sim.bots.presets.option_warnings`).

    Raises
    ------
    OptionError
        Unknown bot name, a name of the other side, an unknown side or
        parameter in ``policy_params``.
    """
    pp = policy_params or {}
    bad = sorted(str(k) for k in pp if k not in ("axis", "allied"))
    if bad:
        raise OptionError(f"--policy-params: unknown side {bad[0]!r}; valid sides: axis, allied")
    make_policy(axis_policy, 0, pp.get("axis"))              # an early, clear error
    make_policy(allied_policy, 1, pp.get("allied"))
    for msg in option_warnings(axis_policy, 0, pp.get("axis"), options):
        warnings.warn(msg, NoEffectWarning, stacklevel=3)

    def make(_game_index: int) -> tuple:
        return (make_policy(axis_policy, 0, pp.get("axis")),
                make_policy(allied_policy, 1, pp.get("allied")))
    return make


def new_game(scenario: str, seed: int, game_index: int, *, axis_policy: str = "random",
             allied_policy: str = "random", options=(), data_dir=None, event_log: bool = False,
             check: bool = False, policy_params: dict | None = None) -> Game:
    """Set up one game of ``scenario`` played by the bots named
    ``axis_policy`` and ``allied_policy`` (:func:`malta_sim.iod.engine.setup_game`).

    Raises
    ------
    OptionError
        Unknown scenario, bot, parameter or option.
    """
    check_allied_options((policy_params or {}).get("allied"), options)
    pols = _policy_maker(axis_policy, allied_policy, policy_params, options)(game_index)
    return engine.setup_game(scenario, seed, game_index, pols, options=options, data_dir=data_dir,
                             event_log=event_log, check=check)


def play_games(scenario: str, seed: int, games, *, axis_policy: str = "random",
               allied_policy: str = "random", options=(), data_dir=None, per_turn: bool = False,
               event_log: bool = False, policy_params: dict | None = None,
               check: bool = False) -> GameBatchResult:
    """Play a block of Island of Death games (the registry's contract,
    :mod:`malta_sim.games.registry`): :func:`malta_sim.iod.engine.play_games`
    with the bots named ``axis_policy`` and ``allied_policy`` (presets of
    :mod:`malta_sim.bots.presets`, ``random``, or a registered user bot), with
    ``policy_params`` overrides (``{"axis": {...}, "allied": {...}}``).

    Raises
    ------
    OptionError
        Unknown scenario, bot, parameter or option.
    """
    check_allied_options((policy_params or {}).get("allied"), options)
    make = _policy_maker(axis_policy, allied_policy, policy_params, options)
    return engine.play_games(scenario, seed, games, make, policy_names=(axis_policy, allied_policy),
                             options=options, data_dir=data_dir, per_turn=per_turn,
                             event_log=event_log, check=check)
