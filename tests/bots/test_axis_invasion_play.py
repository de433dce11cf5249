"""Whole-game checks of the Axis bot's invasion play in Operation Hercules
(default presets, seeded games): what a wargamer reading the replays must
never see."""

from __future__ import annotations

import pytest

from malta_sim.play import play_games

GAMES = range(40)


@pytest.fixture(scope="module", params=["axis:tuned", "axis:balanced"])
def hercules_events(request):
    """Event logs of 40 Hercules games of the default Axis preset (``tuned``)
    and of ``balanced`` against the default Allied preset."""
    return play_games("hercules", 3, GAMES, axis_policy=request.param, allied_policy="allied:active",
                      event_log=True).events


def _hq_sticks_before_battalions(events):
    """(game, turn, formation) of each HQ stick that jumped on or before the
    turn of its formation's first battalion stick."""
    drops = events[events["action"] == "stick_drop"]
    is_hq = drops["units"].str.contains(r"\.hq\b")
    out = []
    for _, row in drops[is_hq].iterrows():
        formation = row["units"].split()[0].split(".")[1]
        mine = drops[(drops["game"] == row["game"]) & ~is_hq
                     & drops["units"].str.contains(f"axis.{formation}.", regex=False)]
        if not len(mine) or int(mine["turn"].min()) >= int(row["turn"]):
            out.append((int(row["game"]), int(row["turn"]), formation))
    return out


def test_hq_stick_jumps_only_after_its_battalions(hercules_events):
    """Rules 19.2-19.3, 16.8, 20.0: a division HQ's stick (with its engineers)
    is planned only onto a hex its formation's combat units already hold or
    touch, so it jumps on a later turn than the formation's first battalion
    stick, never with or before it (a lost HQ is +2 to the surrender roll)."""
    drops = hercules_events[hercules_events["action"] == "stick_drop"]
    assert len(drops) > 100                      # the sticks do jump in these games
    assert _hq_sticks_before_battalions(hercules_events) == []


def test_the_hq_stick_check_can_fail():
    """The random Axis bot jumps HQ sticks on 29 June with the battalions."""
    events = play_games("hercules", 3, range(3), axis_policy="random", allied_policy="allied:active",
                        event_log=True).events
    assert len(_hq_sticks_before_battalions(events)) >= 1


def _planned_hostile_landings(events):
    """Hostile landing attacks (19.5) by a stick that landed on its planned
    hex (Drop Table "on target", no scatter) on a turn after its formation's
    first jump, when the drop zone marker was already down and the target
    could be checked at the start of the phase (19.35)."""
    out = []
    for g, eg in events.groupby("game"):
        drops = eg[eg["action"] == "stick_drop"]
        last = None
        for _, r in eg.iterrows():
            if r["action"] == "stick_drop":
                last = r
            elif r["action"] == "hostile landing attack" and last is not None:
                f = last["units"].split()[0].split(".")[1]
                first = drops[drops["units"].str.contains(f"axis.{f}.", regex=False)]["turn"].min()
                if last["cell"] == "on_target" and r["turn"] > first and r["hexes"] == last["hexes"]:
                    out.append((int(g), int(r["turn"]), r["hexes"]))
    return out


def test_no_planned_jump_into_an_allied_held_hex(hercules_events):
    """Rules 19.35, 19.5: at the start of the Airborne Landing Phase the bot
    cancels every jump whose target the Allies hold, so once the drop zone
    marker is down no stick that lands on its planned hex fights a hostile
    landing (hostile landings after a scatter, 19.41/19.44, remain: the
    player cannot see a scatter coming).  The random Axis bot does this in
    1 of these 40 games (game 7)."""
    assert _planned_hostile_landings(hercules_events) == []


def test_the_planned_hostile_landing_check_can_fail():
    """The check above finds such landings when the bot does not cancel."""
    events = play_games("hercules", 3, [16], axis_policy="random", allied_policy="allied:active",
                        event_log=True).events
    assert len(_planned_hostile_landings(events)) >= 1
