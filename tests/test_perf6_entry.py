"""The unit-entry branch counter (``benchmarks/entry_branches.py``), the
measuring tool behind the sixth round's look at unit entry (rules 6.1, 2.1,
6.52, 17.1; invasion entry effects 16.22, 16.32, 16.58):

* its classes of hook calls are exclusive and cover every call, and the hook
  calls equal the unit-hex pairs of the entry loop (one call per unit and
  hex entered, ``movement._enter``);
* its wrappers only read: the games play exactly as without it (results and
  event log), and the engine's functions are back in place afterwards.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import entry_branches as eb  # noqa: E402
from malta_sim.games.island_of_death import movement, sequence  # noqa: E402
from malta_sim.games.island_of_death.engine import play_games  # noqa: E402
from malta_sim.games.registry import get_scenario  # noqa: E402


@pytest.mark.parametrize("scenario", ["hercules", "intro"])
def test_entry_counts_cover_every_hook_call_and_change_nothing(scenario):
    enter = movement._enter
    counts, res = eb.count_entries(scenario, games=3, seed=5)
    assert movement._enter is enter
    hook = sequence.HOOKS["on_enter_hex"]
    assert hook.__name__ == "on_enter_hex" and hook.__module__.endswith("hercules")
    calls = counts["hook: calls"]
    assert calls > 100
    assert sum(counts["hook: " + k] for k in eb.HOOK_CLASSES) == calls
    assert counts["enter: unit-hex pairs (hook calls due)"] == calls
    assert counts["enter: hexes"] >= counts["enter: calls"] > 0
    for k in ("nothing", "not an Axis unit", "town noted", "all rolled"):
        assert counts["hook: " + k] > 0, k
    # the same games without the counters
    spec = get_scenario(scenario)
    plain = play_games(scenario, 5, list(range(3)), axis_policy=spec.axis_policies[0],
                       allied_policy=spec.allied_policies[0], event_log=True)
    pd.testing.assert_frame_equal(res.games, plain.games)
    pd.testing.assert_frame_equal(res.events, plain.events)


def test_hook_classes_on_a_made_up_position():
    """Each class of :func:`entry_branches._hook_class` on a position built
    for it (a strongpoint unrevealed then revealed next to the hex, a town
    with militia in the cup, rolled and not)."""
    import numpy as np

    from malta_sim.games.island_of_death import hercules as hc
    from malta_sim.games.island_of_death import static as st
    from malta_sim.games.island_of_death.engine import new_game
    from malta_sim.games.island_of_death.state import ALLIED, AXIS, BOX_CUP, BOX_MAP

    g = new_game("hercules", 3, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    inv = hc.inv_static(g)
    u = int(np.flatnonzero((t.side == AXIS) & (t.utype == st.INFANTRY))[0])
    allied = int(np.flatnonzero(t.side == ALLIED)[0])
    assert eb._hook_class(g, allied, 0, "advance") == "not an Axis unit"
    guns = np.flatnonzero((t.utype == st.COASTAL_GUN) & (t.side == ALLIED))
    sps = np.flatnonzero((t.utype == st.STRONGPOINT) & (t.side == ALLIED))
    mil = np.flatnonzero(t.utype == st.MILITIA)
    s.box[guns], s.hex[guns] = BOX_MAP, -1
    s.box[sps], s.hex[sps] = BOX_MAP, -1
    g.extra.pop("militia_pending", None)
    town = next(h for h in range(t.n_hexes) if inv.urban_near[h] == [h] and t.land[h])
    quiet = next(h for h in range(t.n_hexes) if not inv.urban_near[h] and t.land[h])
    s.box[mil] = BOX_CUP
    s.militia_rolled[:] = False
    assert eb._hook_class(g, u, quiet, "advance") == "nothing"
    assert eb._hook_class(g, u, town, "move") == "town noted"
    assert eb._hook_class(g, u, town, "advance") == "uprising roll"
    s.militia_rolled[town] = True
    assert eb._hook_class(g, u, town, "advance") == "all rolled"
    g.extra["militia_pending"] = [town]
    assert eb._hook_class(g, u, quiet, "move_end") == "all rolled"
    s.militia_rolled[town] = False
    assert eb._hook_class(g, u, quiet, "move_end") == "uprising roll"
    assert eb._hook_class(g, u, quiet, "retreat") == "nothing"
    s.box[mil] = BOX_MAP
    assert eb._hook_class(g, u, town, "move") == "nothing"
    s.hex[sps[0]], s.revealed[sps[0]] = quiet, False
    assert eb._hook_class(g, u, quiet, "advance") == "strongpoint"
    s.revealed[sps[0]] = True
    assert eb._hook_class(g, u, quiet, "advance") == "revealed strongpoint"
    s.hex[guns[0]] = quiet
    assert eb._hook_class(g, u, quiet, "advance") == "gun"
