"""The Introductory Scenario with its jumps and landings (rules 22.26, 22.27,
18.3, 19.4), played to the end under the random-legal policies in check mode."""

from __future__ import annotations

import pandas as pd

from malta_sim.iod import invasion as H, sequence
from malta_sim.iod.state import ALLIED, AXIS
from malta_sim import play


def test_intro_forced_jumps_planned():
    """22.26: Ram 1/2 jumps on the Ramcke marker on 30 June AM, II/187 on the
    Folgore marker on 30 June PM, alone in their turns."""
    g = play.new_game("intro", 5, 0, event_log=True)
    plans = [p for p in H.memo(g).plans if p.kind == "stick"]
    t = g.static
    am = [p for p in plans if p.turn == 4]
    pm = [p for p in plans if p.turn == 6]
    assert len(am) == 1 and t.names[am[0].units[0]] == "axis.ram.1_2" and am[0].offset == (0, 0)
    assert len(pm) == 1 and t.names[pm[0].units[0]] == "axis.185.ii_187"


def test_intro_plays_with_jumps_and_landings():
    g = play.new_game("intro", 5, 1, event_log=True, check=True)
    sequence.play_game(g)
    assert g.state.over[0] and g.state.winner[0] in (AXIS, ALLIED)
    ev = pd.DataFrame(g.events.rows)
    assert (ev.action == "stick_drop").any()
    assert (ev.action == "wave_box").any() or (ev.action == "landing").any()
