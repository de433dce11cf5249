"""Island of Death engine: state registry (:mod:`.state`), sequence of play
(:mod:`.sequence`), land-warfare rule modules, the ``play_games`` entry point
(:mod:`.engine`) and the invasion modules.  Registers the scenarios ``intro``
(rule 22.2) and ``hercules`` (rule 22.3)."""

from __future__ import annotations

import importlib

from ..registry import ScenarioSpec, register

from ...policies.presets import preset_names  # noqa: E402

_POLICIES_AXIS = preset_names(0)      # ("balanced", ..., "axis:balanced", ...)
_POLICIES_ALLIED = preset_names(1)

register(ScenarioSpec(
    name="intro",
    game="island_of_death",
    title="Introductory Scenario: With Heart in Mouth (30 June - 5 July 1942)",
    play="malta_sim.games.island_of_death.engine:play_games",
    axis_policies=_POLICIES_AXIS,
    allied_policies=_POLICIES_ALLIED,
    options=("no_invasion", "solitaire"),
))
register(ScenarioSpec(
    name="hercules",
    game="island_of_death",
    title="Operation Hercules: The Axis Invades Malta (29 June - 10 July 1942)",
    play="malta_sim.games.island_of_death.engine:play_games",
    axis_policies=_POLICIES_AXIS,
    allied_policies=_POLICIES_ALLIED,
    options=("no_invasion", "solitaire", "variable_allied_placement", "delayed_landings"),
))

#: Invasion modules (rules 16-19, 21, 22.3) register their sequence hooks on import.
_INVASION_MODULES = ("landings", "airborne", "warships", "coastal", "militia", "airfields",
                     "special", "hercules", "solitaire")


def load_invasion_modules() -> None:
    """Import the invasion modules present in this build (each registers its hooks)."""
    for name in _INVASION_MODULES:
        try:
            importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
