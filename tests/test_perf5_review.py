"""Review of the fifth round of speed work: the fast paths leave what a user's
bot sees and may do, and what a user's replacement of an engine function
decides, as the plain code left it.

* 19.13 drop zone markers: the bot may change the list of options it is
  handed (e.g. ``options.pop()``); the move is checked against the hexes
  the search found, not against the list after the bot is done with it.
"""

from __future__ import annotations

import functools
import sys
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from malta_sim.games.island_of_death import airborne as ab
from malta_sim.games.island_of_death import airborne_phase as ap
from malta_sim.games.island_of_death import hercules as H
from malta_sim.games.island_of_death import organisation as org
from malta_sim.games.island_of_death import static as st
from malta_sim.games.island_of_death import victory
from malta_sim.games.island_of_death.engine import new_game, play_games
from malta_sim.policies import register_policy
from malta_sim.policies.axis import AxisBot


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


@pytest.mark.parametrize("where", ["hercules.break_down", "organisation.can_break_down"])
def test_wrapped_break_down_is_asked_for_every_pick(monkeypatch, where):
    """A replacement made with ``functools.wraps`` (it carries the plain
    function's ``__module__`` and name) is still a replacement: the compiled
    pass of 18.31 steps aside and each battalion picked is handed to it."""
    mod, name = (H, "break_down") if where.startswith("hercules") else (org, "can_break_down")
    depth = 1 if mod is H else 2             # frames up to the 18.31 loop
    orig = getattr(mod, name)
    seen = []

    @functools.wraps(orig)
    def wrapped(game, b, *a, **k):
        f = sys._getframe(depth)
        if f.f_code.co_name == "_follow_up_breakdowns":
            seen.append(int(b))
        return orig(game, b, *a, **k)

    monkeypatch.setattr(mod, name, wrapped)
    RecordFollowUpBot.asked = []
    play_games("hercules", 5, range(2), axis_policy="t_record_follow_up", allied_policy="static")
    assert RecordFollowUpBot.asked, "no follow-up break-downs asked: pick other games"
    assert Counter(seen) == Counter(RecordFollowUpBot.asked)


def test_plain_breakdowns_sees_wrapped_is_remnant(monkeypatch):
    """``Game.is_remnant`` replaced on the class by a ``functools.wraps``
    wrapper: the compiled 18.31 pass does not stand in for it."""
    from malta_sim.games.island_of_death.game import Game

    g = new_game("hercules", 3, 0, axis_policy="balanced", allied_policy="static")
    assert H._plain_breakdowns(g)
    orig = Game.is_remnant

    @functools.wraps(orig)
    def wrapped(self, u):
        return orig(self, u)

    monkeypatch.setattr(Game, "is_remnant", wrapped)
    assert not H._plain_breakdowns(g)


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


def test_wrapped_stick_targets_is_always_asked(monkeypatch):
    """A replacement of :func:`airborne_phase.stick_targets` made with
    ``functools.wraps`` is asked as often as any other replacement (rule
    19.22: the kept answers stand only for the plain function)."""
    plain = _stick_target_calls(monkeypatch, False)
    assert plain > 0
    assert _stick_target_calls(monkeypatch, True) == plain


# ---------------------------------------------------------------- 16.54 coastal gun reach
def test_replaced_line_of_fire_is_asked_after_kept_answers(monkeypatch):
    """Coastal fire at wave boxes (16.56) with :func:`hercules.line_of_fire`
    replaced by one that blocks every line (16.54): no gun fires, even after
    games of the plain rule in the same process kept their answers."""
    def fired():
        r = play_games("hercules", 3, range(3), axis_policy="balanced", allied_policy="static",
                       event_log=True)
        return int((r.events["action"] == "coastal_fire_box").sum())

    assert fired() > 0
    monkeypatch.setattr(H, "line_of_fire", lambda inv, grid, a, b: False)
    assert fired() == 0


# ---------------------------------------------------------------- 19.43 stick targets


def test_replaced_apply_offset_is_asked_after_kept_answers(monkeypatch):
    """:func:`airborne.apply_offset` replaced by one that finds no hex: every
    stick is cancelled (19.43), even after games of the plain rule in the
    same process kept their answers."""
    def drops():
        r = play_games("hercules", 3, range(2), axis_policy="balanced", allied_policy="static",
                       event_log=True)
        a = r.events["action"]
        return int((a == "stick_drop").sum()), int((a == "stick_cancelled").sum())

    assert drops()[0] > 0
    monkeypatch.setattr(ab, "apply_offset", lambda marker, offset: None)
    dropped, cancelled = drops()
    assert dropped == 0 and cancelled > 0


def test_replaced_relative_offset_is_asked_after_kept_answers(monkeypatch):
    """:func:`airborne.relative_offset` replaced (19.32): the offset of a
    planned stick is its answer, even where the plain answer is kept."""
    g = new_game("hercules", 3, 0, axis_policy="balanced", allied_policy="static")
    inv, grid = H.inv_static(g), g.static.grid
    plain = ap._plan_offset(inv, grid, 10, 12)
    assert plain == ab.relative_offset(grid.hex_id(10), grid.hex_id(12)) != (99, 99)
    monkeypatch.setattr(ab, "relative_offset", lambda a, b: (99, 99))
    assert ap._plan_offset(inv, grid, 10, 12) == (99, 99)


# ---------------------------------------------------------------- 20.3 surrender phase


def test_replaced_surrender_modifier_first_airfield_turn(monkeypatch):
    """:func:`victory.surrender_modifier` replaced by one with other terms
    (a house rule: the same total, no breakdown): the first turn the Axis
    holds more airfields than at the start (20.3) is still recorded from
    the airfield count, as with the plain modifier."""
    def first_turns():
        r = play_games("intro", 7, range(4), axis_policy="aggressive", allied_policy="static")
        return r.games["first_airfield_turn"].tolist()

    want = first_turns()
    assert any(x >= 0 for x in want)
    orig = victory.surrender_modifier
    monkeypatch.setattr(victory, "surrender_modifier", lambda game: (orig(game)[0], {}))
    assert first_turns() == want


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


# ---------------------------------------------------------------- 9.3 combat totals
def test_replaced_defense_strength_is_asked_in_combat(monkeypatch):
    """:func:`combat.defense_strength` replaced (a house rule: every defender
    +1, 9.91): the defense total of each attack (9.3) is worked out from it."""
    from malta_sim.games.island_of_death import combat

    orig = combat.defense_strength
    asked = []

    def plus_one(game, u):
        asked.append(int(u))
        return orig(game, u) + 1

    monkeypatch.setattr(combat, "defense_strength", plus_one)
    seen = []
    resolve = combat.resolve_attack

    def watched(game, side, target, attackers, *a, **k):
        seen.extend(combat.defenders_in(game, target, 1 - side))
        return resolve(game, side, target, attackers, *a, **k)

    monkeypatch.setattr(combat, "resolve_attack", watched)
    play_games("intro", 8, range(1), axis_policy="balanced", allied_policy="static")
    assert seen
    assert not set(seen) - set(asked)


# ---------------------------------------------------------------- 17.7 delayed reaction
def test_replaced_delayed_reaction_ok_is_asked_for_fire(monkeypatch):
    """:func:`special.delayed_reaction_ok` replaced (a house rule: no Allied
    piece reacts on the first two turns, 17.7): the firing candidates are
    barred as the plain per-piece loop bars them."""
    from malta_sim.games.island_of_death import combat, special

    monkeypatch.setattr(special, "delayed_reaction_ok", lambda game, u: False)

    def events():
        r = play_games("hercules", 8, range(3), axis_policy="balanced", allied_policy="counterattack",
                       event_log=True)
        return r.events

    fast = events()
    monkeypatch.setattr(combat, "_barred", combat._barred_plain)
    pd.testing.assert_frame_equal(fast, events())


# ---------------------------------------------------------------- 8.2 supply routes
def test_passable_for_asks_a_replaced_zoc_map(monkeypatch):
    """:func:`supply.passable_for` with ``supply.zoc_map`` replaced (a house
    rule: no ZOC blocks supply, 8.2): the answer of the replacement, also
    where the plain answer for the same position was kept."""
    from malta_sim.games.island_of_death import supply

    g = new_game("intro", 3, 0, axis_policy="balanced", allied_policy="static")
    for side in (0, 1):
        assert np.array_equal(supply.passable_for(g, side), supply.passable_for_plain(g, side))
    monkeypatch.setattr(supply, "zoc_map", lambda game, side: np.zeros(game.static.n_hexes, bool))
    for side in (0, 1):
        assert np.array_equal(supply.passable_for(g, side), supply.passable_for_plain(g, side))


def test_airfield_entry_after_a_replaced_break_down_that_returns_nothing(monkeypatch):
    """Rule 16.1: a battalion broken down when the airfield entry begins is
    never offered, even when a replaced ``break_down`` gives no sign of what
    it did: the broken-down list is made again whenever the pieces' parents
    or boxes changed.  Here a house rule breaks an airlanding artillery
    battalion down with the first glider battalion (one company attached to
    it) and returns None."""
    from malta_sim.games.island_of_death.state import BOX_DISBANDMENT, BOX_POOL
    from tests.iod_helpers import airfield_entry_spy

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
    H.airfield_entry(g)
    assert done and seen and H.is_broken(g, art[0])
    assert art[0] not in seen[0]
    assert all(u in seen[0] for u in art[1:])          # the others are still offered
