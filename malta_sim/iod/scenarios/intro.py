"""The Introductory Scenario, "With Heart in Mouth" (rule 22.2): the invasion's
set-up steps after the printed placement."""

from __future__ import annotations

from malta_sim.iod import invasion
from malta_sim.iod.rules import airborne


def invasion_setup(game) -> None:
    """Rules 22.2, 22.26, 19.3: the divisions are already in their Follow-up
    boxes (their beach zones recorded for 18.21 and 16.82) and the drop zone
    markers on the map; the jumps of the first two days are planned (none in
    solitaire play, 21.1)."""
    s = game.state
    fz = getattr(game.scenario, "follow_up_zone", {}) or {}
    for f, z in fz.items():
        s.division_zone[0, int(f)] = int(z)                      # 18.21
    if not invasion.solitaire(game):
        d0 = int(getattr(game.scenario, "first_day", game.day))
        airborne.plan_jumps(game, days=(d0, d0 + 1))
