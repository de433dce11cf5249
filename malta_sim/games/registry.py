"""Scenario registry: the contract between game engines and the batch runner.

Each scenario name is unique across both games.  A scenario's ``play`` entry
point (``"module:function"``, imported lazily) has the signature::

    play_games(scenario: str, seed: int, games: numpy.ndarray[int64], *,
               axis_policy: str, allied_policy: str,
               options: tuple[str, ...], data_dir: str | None,
               per_turn: bool = False, event_log: bool = False,
               policy_params: dict | None = None) -> GameBatchResult

and must be a pure function of its arguments: the row of game ``g`` depends
only on ``(seed, g, scenario, policies, options, data)``, never on which other
games are in ``games``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from ..errors import OptionError


@dataclass
class GameBatchResult:
    """What a scenario's ``play_games`` returns for a block of games.

    Attributes
    ----------
    games : pandas.DataFrame
        One row per game, sorted by ``game``; columns as listed in
        :data:`ScenarioSpec.result_columns` (at least ``game``, ``winner``,
        ``end_reason``, ``end_turn``).
    per_turn : pandas.DataFrame or None
        Long format, one row per (game, turn), when ``per_turn=True``.
    events : pandas.DataFrame or None
        The event log (turn, phase, side, action, hexes, units, dice, table cell,
        result) when ``event_log=True``.
    provenance : dict
        Extra provenance (e.g. ``data_hash``, ``reconstructed_components``).
    """

    games: pd.DataFrame
    per_turn: pd.DataFrame | None = None
    events: pd.DataFrame | None = None
    provenance: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ScenarioSpec:
    """A playable scenario.

    Attributes
    ----------
    name : str
        Unique scenario name used on the command line (``intro``, ``hercules`` ...).
    game : str
        ``island_of_death`` or ``invasion_malta``.
    title : str
        Human title.
    play : str
        ``"module:function"`` of the ``play_games`` entry point.
    axis_policies, allied_policies : tuple of str
        Policy names accepted; the first is the default.
    options : tuple of str
        Optional rule names accepted by ``--option``.
    """

    name: str
    game: str
    title: str
    play: str
    axis_policies: tuple[str, ...] = ()
    allied_policies: tuple[str, ...] = ()
    options: tuple[str, ...] = ()

    def play_fn(self) -> Callable[..., GameBatchResult]:
        mod, fn = self.play.split(":")
        return getattr(importlib.import_module(mod), fn)


SCENARIOS: dict[str, ScenarioSpec] = {}


def register(spec: ScenarioSpec) -> ScenarioSpec:
    """Add a scenario (engines call this from their package ``__init__``)."""
    if spec.name in SCENARIOS and SCENARIOS[spec.name] != spec:
        raise ValueError(f"scenario name {spec.name!r} registered twice")
    SCENARIOS[spec.name] = spec
    return spec


_ENGINE_PACKAGES = ("malta_sim.play", "malta_sim.games.invasion_malta")


def _load_all() -> None:
    for pkg in _ENGINE_PACKAGES:
        try:
            importlib.import_module(pkg)
        except ModuleNotFoundError as exc:  # engine not present in this build
            if exc.name != pkg:
                raise


def get_scenario(name: str) -> ScenarioSpec:
    """Look a scenario up by name.

    Raises
    ------
    OptionError
        If the name is unknown; the message lists the valid names.
    """
    _load_all()
    if name not in SCENARIOS:
        valid = ", ".join(sorted(SCENARIOS)) or "(none registered)"
        raise OptionError(f"unknown scenario {name!r}; choose one of: {valid}")
    return SCENARIOS[name]


def scenario_names() -> list[str]:
    """All registered scenario names, sorted."""
    _load_all()
    return sorted(SCENARIOS)
