"""Whole games of both scenarios under the random-legal policies: phase-end
invariants (test mode and the invasion's own, checked by a phase-end observer),
result rows, reproducibility, independent games, illegal decisions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from malta_sim.bots.random import RandomPolicy
from malta_sim.games.registry import get_scenario
from malta_sim.iod import invasion as H, sequence, static as st
from malta_sim.iod.engine import RESULT_COLUMNS, setup_game
from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.state import (ALLIED, AXIS, BOX_FIRST_WAVE, BOX_MAP, BOX_NAMES,
                                 BOX_SECOND_WAVE)
from malta_sim.play import new_game, play_games


def test_intro_games_play_to_the_end_with_invariants():
    """Games end by surrender, suspension or the last turn; invariants are
    checked at every phase end (stacking 7.1, nothing at sea, steps, unit
    accounting, tallies = recount)."""
    res = play_games("intro", 11, [0, 1], check=True)
    df = res.games
    assert list(df.columns) == list(RESULT_COLUMNS)
    assert df["game"].tolist() == [0, 1]
    assert set(df["winner"]) <= {"axis", "allied"}
    assert set(df["end_reason"]) <= {"surrender", "invasion_suspended", "last_turn"}
    assert (df["end_turn"] <= 27).all() and (df["end_turn"] >= 4).all()
    last = df[df["end_reason"] == "last_turn"]
    assert (last["winner"] == "allied").all() and (last["end_turn"] == 27).all()


def test_intro_without_invasion_modules_plays():
    res = play_games("intro", 2, [5], options=("no_invasion",), check=True, per_turn=True)
    assert len(res.games) == 1
    pt = res.per_turn
    assert pt["turn"].is_monotonic_increasing and pt["turn"].iloc[0] == 4


def test_reproducible_regardless_of_batch_and_log():
    a = play_games("intro", 7, [2, 4], event_log=True)
    b = play_games("intro", 7, [4])
    ra = a.games[a.games.game == 4].reset_index(drop=True)
    pd.testing.assert_frame_equal(ra, b.games.reset_index(drop=True))
    ev = a.events
    assert {"phase", "hexes", "units", "dice", "cell", "result"} <= set(ev.columns)
    assert (ev.game.isin([2, 4])).all()


def test_registry_entry_point():
    spec = get_scenario("intro")
    assert spec.play_fn() is play_games
    assert "random" in spec.axis_policies and "random" in spec.allied_policies


class BadAttacker(RandomPolicy):
    def next_attack(self, game, options, penetration=False):
        if options:
            tgt = sorted(options)[0]
            far = [u for u in game.on_map(self.side) if u not in options[tgt]]
            return (tgt, far[:1]) if far else None
        return None


def test_illegal_decision_names_rule():
    g = setup_game("intro", 3, 0, (BadAttacker(0), RandomPolicy(1)), options=("no_invasion",))
    with pytest.raises(IllegalDecision, match=r"rule 9\.3"):
        for _ in range(8):
            sequence.play_turn(g)
            if g.state.over[0]:
                pytest.skip("game ended before an attack")


def test_intro_plays_with_jumps_and_landings():
    """The Introductory Scenario's jumps and landings (22.26, 22.27, 18.3,
    19.4) happen in a game played to its end in test mode."""
    g = new_game("intro", 5, 1, event_log=True, check=True)
    sequence.play_game(g)
    assert g.state.over[0] and g.state.winner[0] in (AXIS, ALLIED)
    ev = pd.DataFrame(g.events.rows)
    assert (ev.action == "stick_drop").any()
    assert (ev.action == "wave_box").any() or (ev.action == "landing").any()


def _invasion_invariants(game, phase, problems: list, seen: dict) -> None:
    """The invasion's invariants at a phase end: drop zone markers never on
    the ocean (19.42), unit accounting, wave-box limits (18.31) and no Axis
    piece landed this turn on a beach hex that holds an Allied unit (18.91)."""
    s, t = game.state, game.static
    inv = H.inv_static(game)
    for f in (1, 2):
        x = int(s.dz_hex[0, f])
        if x >= 0 and inv.ocean[x]:
            problems.append(f"{phase}: drop zone marker on ocean (19.42)")
    if len(s.box) != len(t.names) or ((s.box < 0) | (s.box >= len(BOX_NAMES))).any():
        problems.append(f"{phase}: unit accounting")
    if ((s.box == BOX_MAP) != (s.hex >= 0)).any():
        problems.append(f"{phase}: unit on map without hex")
    for w, lim in ((BOX_FIRST_WAVE, 3), (BOX_SECOND_WAVE, 1)):
        for b in np.unique(s.box_slot[s.box == w]):
            us = [x for x in np.flatnonzero((s.box == w) & (s.box_slot == b)) if t.utype[x] != st.LEADER]
            if len(us) > lim:
                problems.append(f"{phase}: wave box over its limit (18.31)")
    for x in game.on_map(AXIS):
        here = int(s.hex[x])
        if t.beach[here] and s.entered_turn[x] == game.turn:
            seen["landed"] += 1
            if any(t.utype[e] != st.LEADER for e in game.units_at(here, ALLIED)):
                problems.append(f"{phase}: landed on an Allied-occupied beach hex (18.91)")
    seen["phases"] += 1


@pytest.mark.parametrize("idx,options", [(0, ()), (1, ()), (2, ("solitaire",)),
                                         (3, ("variable_allied_placement", "delayed_landings"))])
def test_hercules_plays_to_the_end_with_invariants(idx, options):
    """Whole Operation Hercules games under the random-legal policies in test
    mode (the engine's phase-end invariants) with the invasion's invariants
    checked at every phase end by an observer."""
    g = new_game("hercules", 20260629, idx, options=options, check=True, event_log=True)
    problems: list = []
    seen = {"phases": 0, "landed": 0}
    g.observers.append(lambda game, phase: _invasion_invariants(game, phase, problems, seen))
    sequence.play_game(g)
    assert g.state.over[0] and g.state.winner[0] in (AXIS, ALLIED)
    assert not problems, problems[:5]
    assert seen["phases"] >= 10 and seen["landed"] > 0, seen


def test_games_share_no_state_arrays():
    """Two games of one scenario set up one after the other share no state
    array, and each array can be written."""
    a = new_game("hercules", 5, 0, axis_policy="balanced", allied_policy="static")
    b = new_game("hercules", 5, 1, axis_policy="balanced", allied_policy="static")
    for x, y in zip(a.state, b.state):
        assert not np.shares_memory(x, y)
        assert x.flags.writeable
