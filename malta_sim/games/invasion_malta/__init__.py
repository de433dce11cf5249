"""Invasion: Malta engine: the printed rules 1.3-8.4 (:mod:`.units`, :mod:`.zoc`,
:mod:`.efficiency`, :mod:`.activation`, :mod:`.weather`, :mod:`.supply`,
:mod:`.movement`, :mod:`.setup`, :mod:`.sequence`), analyses (:mod:`.analysis`),
data loaders (:mod:`.data`), reconstructed components (:mod:`.components`) and
the game loop (:mod:`.engine`).  Registers the scenario ``im-c3``."""

from __future__ import annotations

from ..registry import ScenarioSpec, register

register(ScenarioSpec(
    name="im-c3",
    game="invasion_malta",
    title="Invasion: Malta - Operazione C3, the planned invasion of early August 1942 (reconstructed scenario)",
    play="malta_sim.games.invasion_malta.engine:play_games",
    axis_policies=("advance", "hold-first"),
    allied_policies=("counter", "static"),
    options=("weather-roll", "dispersed-group-b", "no-first-turn-penalty"),
))
