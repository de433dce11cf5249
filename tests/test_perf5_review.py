"""Review of the fifth round of speed work: the fast paths leave what a user's
bot sees and may do, and what a user's replacement of an engine function
decides, as the plain code left it.

* 19.13 drop zone markers: the bot may change the list of options it is
  handed (e.g. ``options.pop()``); the move is checked against the hexes
  the search found, not against the list after the bot is done with it.
"""

from __future__ import annotations

import functools

import numpy as np

from malta_sim.iod.rules import airborne as ab
from malta_sim.iod.rules import airborne as ap
from malta_sim.iod import invasion as H
from malta_sim.iod import static as st
from malta_sim.play import new_game, play_games
from malta_sim.bots import register_policy
from malta_sim.bots.axis import AxisBot
from malta_sim.iod.rules import airfields


class PopMarkerBot(AxisBot):
    """Moves each drop zone marker to the last option, taken with ``pop()``."""

    name = "t_pop_marker"

    def move_drop_marker(self, game, formation, options):
        return options.pop() if options else None


register_policy("t_pop_marker", f"{__name__}:PopMarkerBot")


def test_drop_marker_options_may_be_changed_by_the_bot():
    """A bot that takes its choice out of the options list moves the marker
    (rule 19.13) and the games play to their end."""
    r = play_games("hercules", 3, range(2), axis_policy="t_pop_marker", allied_policy="static",
                   event_log=True)
    assert len(r.games) == 2
    assert (r.events["action"] == "drop_zone_moved").any()


# ---------------------------------------------------------------- 18.31 break-downs


class RecordFollowUpBot(AxisBot):
    """Records the battalions it asks to break down in Follow-up boxes (18.31)."""

    name = "t_record_follow_up"
    asked: list = []

    def follow_up_breakdowns(self, game, battalions):
        pick = super().follow_up_breakdowns(game, battalions)
        type(self).asked.extend(int(b) for b in pick)
        return pick


register_policy("t_record_follow_up", f"{__name__}:RecordFollowUpBot")




# ---------------------------------------------------------------- 19.3 stick targets


def _stick_target_calls(monkeypatch, use_wraps: bool) -> int:
    orig = ap.stick_targets
    calls = [0]

    def counting(*a, **k):
        calls[0] += 1
        return orig(*a, **k)

    monkeypatch.setattr(ap, "stick_targets", functools.wraps(orig)(counting) if use_wraps else counting)
    play_games("hercules", 3, range(2), axis_policy="balanced", allied_policy="static")
    monkeypatch.setattr(ap, "stick_targets", orig)
    return calls[0]




# ---------------------------------------------------------------- 19.43 stick targets




# ---------------------------------------------------------------- 20.3 surrender phase




def test_kept_stick_targets_follow_the_stick_ranges(monkeypatch):
    """The stick targets kept per marker hex (19.22) follow
    ``airborne.STICK_RANGE`` and ``LONG_STICK_RANGE`` as :func:`stick_targets`
    reads them, also when they change after answers were kept."""
    g = new_game("hercules", 3, 0, axis_policy="balanced", allied_policy="static")
    inv, d = H.inv_static(g), g.static.grid.distance_table
    legal, _ = ap._planning_hexes(g)
    marker = int(legal[len(legal) // 2])
    for long_used in (False, True):
        assert ap._stick_targets_kept(inv, d, marker, legal, long_used) == \
            ap.stick_targets(d, marker, legal, long_used)
    monkeypatch.setattr(ab, "STICK_RANGE", 1)
    monkeypatch.setattr(ab, "LONG_STICK_RANGE", 2)
    for long_used in (False, True):
        want = ap.stick_targets(d, marker, legal, long_used)
        assert ap._stick_targets_kept(inv, d, marker, legal, long_used) == want




def test_airfield_entry_after_a_replaced_break_down_that_returns_nothing(monkeypatch):
    """Rule 16.1: a battalion broken down when the airfield entry begins is
    never offered, even when a replaced ``break_down`` gives no sign of what
    it did: the broken-down list is made again whenever the pieces' parents
    or boxes changed.  Here a house rule breaks an airlanding artillery
    battalion down with the first glider battalion (one company attached to
    it) and returns None."""
    from malta_sim.iod.state import BOX_DISBANDMENT, BOX_POOL
    from tests.conftest import airfield_entry_spy

    g = new_game("hercules", 14, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    inv = H.inv_static(g)
    art = [int(u) for u in np.flatnonzero(inv.airfield_entrants & (t.size == st.BATTALION)
                                          & (t.utype == st.ARTILLERY))]
    comps = np.flatnonzero(t.battalion_of >= 0)
    assert art and len(comps)
    real = H.break_down
    done = []

    def house_rule_break_down(game, b):
        real(game, b)
        if not done:                                   # the artillery goes with the first
            c = int(comps[0])
            game.state.parent[c], game.state.box[c] = art[0], BOX_DISBANDMENT
            done.append(c)
        return None

    monkeypatch.setattr(H, "break_down", house_rule_break_down)
    seen = airfield_entry_spy(g)
    bns = inv.airfield_battalions
    s.box[bns], s.hex[bns] = BOX_DISBANDMENT, -1
    s.box[art], s.hex[art] = BOX_DISBANDMENT, -1
    s.parent[comps], s.box[comps] = -1, BOX_POOL
    airfields.airfield_entry(g)
    assert done and seen and H.is_broken(g, art[0])
    assert art[0] not in seen[0]
    assert all(u in seen[0] for u in art[1:])          # the others are still offered
