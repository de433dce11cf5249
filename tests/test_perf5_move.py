"""Fifth round of movement speed work.

* ``move_choice.axis_walk_kernel`` walks past hitched artillery standing in
  an enemy ZOC (it may not prepare there, rule 5.4, so
  ``AxisBot._special_move`` leaves it where it is) instead of stopping for
  the Python code to decide.  The walk's decisions against the plain loop on
  every call of whole games: ``tests/test_perf4_move.py``; here, that the
  walk stops exactly at the artillery that may prepare and passes over the
  rest, and that it does pass over some.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod import static as st
from malta_sim.play import play_games
from malta_sim.bots import move_choice as mc


@pytest.mark.parametrize("scen,ax,al,n", [("hercules", "balanced", "static", 4),
                                          ("intro", "balanced", "static", 3)])
def test_walk_stops_only_at_artillery_that_may_prepare(monkeypatch, scen, ax, al, n):
    """Every walk through whole games: a PYTHON stop is hitched artillery
    outside the enemy ZOC that did not arrive this turn; hitched artillery
    the walk passed over stood in the enemy ZOC (or arrived this turn)."""
    kernel = mc.axis_walk_kernel
    seen = {"stops": 0, "passed": 0}

    def checked(order, box, hexes, level, moved, hitched, entered_turn, *rest):
        out = kernel(order, box, hexes, level, moved, hitched, entered_turn, *rest)
        turn, utype, zoc = rest[3], rest[8], rest[18]
        steps = out[0]
        last = int(steps[-1, 0])
        for i, u in enumerate(order.tolist()[:last + 1]):
            if utype[u] != st.ARTILLERY or moved[u] or not hitched[u] or entered_turn[u] == turn:
                continue
            if i == last and steps[-1, 1] == mc.PYTHON:
                assert not zoc[hexes[u]]
                seen["stops"] += 1
            else:
                assert zoc[hexes[u]]
                seen["passed"] += 1
        for r in range(len(steps)):
            if steps[r, 1] == mc.PYTHON:
                assert r == len(steps) - 1
        return out

    monkeypatch.setattr(mc, "axis_walk_kernel", checked)
    play_games(scen, 9, np.arange(n), axis_policy=ax, allied_policy=al)
    assert seen["stops"] > 0, seen
    if scen == "hercules":
        assert seen["passed"] > 0, seen
