"""Airborne jump planning (rules 19.0, 19.2, 19.21, 19.22, 19.3, 19.31, 19.34, 22.26, 22.35):
the sticks a formation may form, the drop zone markers and sticks planned two days
ahead, the scenario's per-turn limits and the decisions the engine refuses.

The Axis planner below answers the planning decisions from a script and records
what it was asked; every other decision is the default Axis bot's.
"""

from __future__ import annotations

import pytest

from malta_sim.bots.allied import AlliedBot
from malta_sim.bots.axis import AxisBot
from malta_sim.iod import invasion as H
from malta_sim.iod.engine import setup_game
from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.rules import airborne
from malta_sim.iod.state import ALLIED, AXIS, BOX_DISBANDMENT, BOX_ELIMINATED, BOX_MAP

from tests.conftest import hercules_game, u

#: the stick kinds allowed on 29 June AM (22.35: no artillery)
AM_KINDS = ("battalion", "hq_engineers", "returning")


class _Planner(AxisBot):
    """Axis bot whose jump plans follow a script (19.31).

    ``markers`` maps ``(formation, turn)`` to the hex id planned for that
    formation's drop zone marker (missing: not planned that turn).  ``picks``
    is ``picks(game, turn, sticks, targets, limits) -> [(stick id, hex)]``;
    by default the first stick offered of each formation on its first target.
    ``marker_calls`` and ``stick_calls`` record what was asked."""

    def __init__(self, markers=None, picks=None, cancel=False):
        super().__init__(AXIS)
        self.markers = dict(markers or {})
        self.picks = picks or first_stick_of_each_formation
        self.cancel = cancel
        self.marker_calls: list = []
        self.stick_calls: list = []
        self.reform_options: list = []

    def cancel_jumps(self, game, plans):
        return list(plans) if self.cancel else []

    def one_hex_move(self, game, unit, options, reason):
        return None                                  # no rally move (19.6 is voluntary)

    def reforms(self, game, options):
        self.reform_options.append(list(options))
        return list(options)                         # every battalion that may reform does (13.2)

    def plan_marker(self, game, formation, turn, options):
        self.marker_calls.append((int(formation), int(turn)))
        hx = self.markers.get((int(formation), int(turn)))
        return None if hx is None else game.static.grid.index(hx)

    def plan_sticks(self, game, turn, sticks, targets, limits):
        self.stick_calls.append({"turn": int(turn), "sticks": list(sticks),
                                 "targets": {f: list(v) for f, v in targets.items()},
                                 "limits": dict(limits)})
        return self.picks(game, turn, sticks, targets, limits)


def first_stick_of_each_formation(game, turn, sticks, targets, limits):
    """One stick per formation (the first offered of an allowed kind) on the
    formation's first target hex within 3 hexes, while the turn's total allows."""
    out, seen = [], set()
    for sid, f, kind in sticks:
        if f in seen or len(out) >= limits["total"] or limits.get(f, 0) <= 0:
            continue
        if limits["kinds"] and kind not in limits["kinds"].get(f, ()):
            continue
        near = [hx for hx, long in targets[f] if not long]
        out.append((sid, near[0]))
        seen.add(f)
    return out


def _hercules(bot, seed=3):
    return setup_game("hercules", seed, 0, (bot, AlliedBot(ALLIED)), event_log=True)


def _idx(g, hex_id):
    return g.static.grid.index(hex_id)


# ----------------------------------------------------------------- 19.21 the sticks
def _names(g, sticks):
    return [(kind, [g.static.names[x] for x in units]) for kind, units in sticks]


def test_rule_19_21_sticks_a_formation_may_form():
    """Rule 19.21: a stick is a paratroop battalion (its three companies), an
    artillery battalion, or the HQ with the leader and all engineer companies
    of the formation; units already in a planned jump are not offered again
    (19.34), units out of the Disbandment Box neither, and a formation without
    pieces has no sticks."""
    g = hercules_game()
    assert _names(g, airborne.available_sticks(g, 1, set())) == [
        ("battalion", ["axis.ram.1_2"]), ("battalion", ["axis.ram.1_3"]), ("battalion", ["axis.ram.2_5"]),
        ("battalion", ["axis.ram.ram"]), ("artillery", ["axis.ram.art"]),
        ("hq_engineers", ["axis.ram.ldr.ramcke", "axis.ram.hq", "axis.ram.eng"])]
    assert _names(g, airborne.available_sticks(g, 2, set())) == [
        ("battalion", ["axis.185.v_186"]), ("battalion", ["axis.185.vi_186"]),
        ("battalion", ["axis.185.vii_186"]), ("battalion", ["axis.185.ii_187"]),
        ("battalion", ["axis.185.iv_187"]), ("battalion", ["axis.185.ix_187"]),
        ("artillery", ["axis.185.art_1"]), ("artillery", ["axis.185.art_2"]),
        ("hq_engineers", ["axis.185.ldr.frattini", "axis.185.hq", "axis.185.viii_eng.1", "axis.185.viii_eng.2"])]
    planned = {u("axis.ram.1_3"), u("axis.ram.art")}
    assert _names(g, airborne.available_sticks(g, 1, planned)) == [
        ("battalion", ["axis.ram.1_2"]), ("battalion", ["axis.ram.2_5"]), ("battalion", ["axis.ram.ram"]),
        ("hq_engineers", ["axis.ram.ldr.ramcke", "axis.ram.hq", "axis.ram.eng"])]
    g.state.box[u("axis.ram.2_5")] = BOX_MAP
    assert ("battalion", ["axis.ram.2_5"]) not in _names(g, airborne.available_sticks(g, 1, set()))
    assert airborne.available_sticks(g, 0, set()) == []                  # no paratroop formation


def test_rule_19_21_broken_down_battalion_jumps_as_its_three_companies():
    """Rules 13.1, 19.2, 19.21: a battalion broken down in the Disbandment Box
    is offered as the stick of its three companies, not as the battalion piece;
    once its companies have jumped it is not offered at all."""
    g = hercules_game()
    s = g.state
    bn = u("axis.ram.1_2")
    comps = H.break_down(g, bn)
    assert len(comps) == 3 and all(s.box[c] == BOX_DISBANDMENT for c in comps)
    got = _names(g, airborne.available_sticks(g, 1, set()))
    assert ("battalion", ["axis.ram.1_2.a", "axis.ram.1_2.b", "axis.ram.1_2.c"]) in got
    assert ("battalion", ["axis.ram.1_2"]) not in got
    assert len(got) == 6
    s.box[comps], s.hex[comps] = BOX_MAP, _idx(g, "1413")               # they jumped
    got = _names(g, airborne.available_sticks(g, 1, set()))
    assert all("axis.ram.1_2" not in x for _, xs in got for x in xs)
    assert len(got) == 5


def test_rule_19_21_returning_hq_and_leader_are_a_stick_of_their_own():
    """Rules 19.21, 16.82, 14.43: with the engineers gone, the HQ and leader
    back in the Disbandment Box form the stick of a returning HQ/leader."""
    g = hercules_game()
    eng = u("axis.ram.eng")
    g.state.box[eng] = BOX_ELIMINATED
    got = _names(g, airborne.available_sticks(g, 1, set()))
    assert got[-1] == ("returning", ["axis.ram.ldr.ramcke", "axis.ram.hq"])
    assert all(kind != "hq_engineers" for kind, _ in got)


# ----------------------------------------------------------------- 19.0, 19.31 a markers
@pytest.mark.parametrize("late", [1, 2])
def test_rule_19_0_19_31_a_one_marker_may_wait_for_29_june_pm(late):
    """Rules 19.0, 19.1, 19.31: both drop zone markers are planned on 29 June,
    one may wait for the PM turn; a formation's sticks are offered only from
    the turn of its marker, positioned from the marker's planned hex (19.32),
    within 3 hexes or one within 5 (19.22); the scenario's limits of 29 June AM
    (22.35: 3 German and 4 Italian sticks, no artillery) are handed over; the
    second day's jumps are planned for its AM and PM turns (19.3)."""
    early = 3 - late
    hexes = {early: "1413", late: "1210"}
    bot = _Planner(markers={(early, 0): hexes[early], (late, 2): hexes[late]})
    g = _hercules(bot)
    assert bot.marker_calls == [(1, 0), (2, 0), (late, 2)]
    markers = {p.formation: (p.turn, p.hex) for p in airborne.jump_plans(g) if p.kind == "marker"}
    assert markers == {early: (0, _idx(g, hexes[early])), late: (2, _idx(g, hexes[late]))}
    assert [c["turn"] for c in bot.stick_calls] == [0, 2, 4, 6]
    am, pm = bot.stick_calls[0], bot.stick_calls[1]
    assert {f for _, f, _ in am["sticks"]} == {early} and set(am["targets"]) == {early}
    assert {f for _, f, _ in pm["sticks"]} == {1, 2} and set(pm["targets"]) == {1, 2}
    legal, _ = airborne._planning_hexes(g)
    d = g.static.grid.distance_table
    assert am["targets"][early] == airborne.stick_targets(d, _idx(g, hexes[early]), legal, False)
    assert am["limits"] == {"total": 7, 1: 3, 2: 4, "kinds": {1: AM_KINDS, 2: AM_KINDS}}
    assert pm["limits"] == {"total": 4, 1: 2, 2: 2, "kinds": {}}
    assert bot.stick_calls[2]["limits"] == {"total": 1, 1: 1, 2: 1, "kinds": {}}
    sticks = [p for p in airborne.jump_plans(g) if p.kind == "stick"]
    assert sorted((p.turn, p.formation) for p in sticks) == sorted(
        [(0, early), (2, 1), (2, 2), (4, 1), (6, 1)])
    for p in sticks:
        ref = _idx(g, hexes[p.formation])
        assert 1 <= d[ref, _idx(g, airborne.apply_offset(hexes[p.formation], p.offset))] <= 3


def test_rule_19_0_both_markers_may_wait_for_29_june_pm():
    """Rule 19.0: with neither marker planned for 29 June AM, no stick can be
    planned for that turn (19.1) and both markers are planned in the PM turn."""
    bot = _Planner(markers={(1, 2): "1413", (2, 2): "1210"})
    g = _hercules(bot)
    assert bot.marker_calls == [(1, 0), (2, 0), (1, 2), (2, 2)]
    assert sorted((p.formation, p.turn) for p in airborne.jump_plans(g) if p.kind == "marker") == [(1, 2), (2, 2)]
    assert [c["turn"] for c in bot.stick_calls] == [2, 4, 6]


def test_rule_19_0_a_marker_not_planned_on_29_june_is_refused():
    """Rule 19.0 (22.25): both drop zone markers drop on 29 June; a marker left
    unplanned in the PM turn of 29 June is refused."""
    bot = _Planner(markers={(1, 0): "1413"})
    with pytest.raises(IllegalDecision, match="19.0"):
        _hercules(bot)
    assert bot.marker_calls == [(1, 0), (2, 0), (2, 2)]


# ----------------------------------------------------------------- refused stick plans
def _bad_picks(kind):
    def picks(game, turn, sticks, targets, limits):
        ram = [sid for sid, f, k in sticks if f == 1 and k in AM_KINDS]
        near = [hx for hx, long in targets[1] if not long]
        far = [hx for hx, long in targets[1] if long]
        if kind == "unknown_low":
            return [(-1, near[0])]
        if kind == "unknown_high":
            return [(len(sticks), near[0])]
        if kind == "too_many":                 # 4 German sticks, 3 allowed on 29 June AM (22.35)
            return [(sid, near[i]) for i, sid in enumerate(ram[:4])]
        if kind == "two_long":                 # two sticks of one formation beyond 3 hexes (19.22)
            return [(ram[0], far[0]), (ram[1], far[1])]
        raise AssertionError(kind)
    return picks


@pytest.mark.parametrize("kind,rule", [("unknown_low", "19.31"), ("unknown_high", "19.31"),
                                       ("too_many", "22.35"), ("two_long", "19.22")])
def test_rule_19_22_22_35_stick_plans_out_of_bounds_are_refused(kind, rule):
    """Rules 19.31, 19.22, 22.35: a stick that was not offered, more German
    sticks than 29 June AM allows (3), or a second stick of a formation
    beyond 3 hexes of its marker are refused."""
    bot = _Planner(markers={(1, 0): "1413", (2, 0): "1210"}, picks=_bad_picks(kind))
    with pytest.raises(IllegalDecision, match=rule.replace(".", r"\.")):
        _hercules(bot)


def test_rule_19_22_one_long_stick_per_formation_is_allowed():
    """Rule 19.22: one stick of each formation may be planned 4-5 hexes from
    its marker; the formation's long stick is then used for the game."""
    def picks(game, turn, sticks, targets, limits):
        if turn != 0:
            return []
        ram = [sid for sid, f, k in sticks if f == 1 and k in AM_KINDS]
        far = [hx for hx, long in targets[1] if long]
        near = [hx for hx, long in targets[1] if not long]
        return [(ram[0], far[0]), (ram[1], near[0])]
    bot = _Planner(markers={(1, 0): "1413", (2, 0): "1210"}, picks=picks)
    g = _hercules(bot)
    assert bool(g.state.long_stick_used[0, 1]) and not bool(g.state.long_stick_used[0, 2])
    assert len([p for p in airborne.jump_plans(g) if p.kind == "stick"]) == 2
    # from then on only the hexes within 3 are offered to Ramcke
    assert all(not long for _hx, long in bot.stick_calls[1]["targets"][1])


# ----------------------------------------------------------------- 19.3 two days ahead
def test_rule_19_3_each_day_planned_once_up_to_the_last_day():
    """Rule 19.3 (3.0 e): the jumps of day d + 2 are planned in the Initial
    Segment of day d, each day once, AM and PM turns only, and none past the
    scenario's last day (Operation Hercules: 10 July, day 11)."""
    bot = _Planner(markers={(1, 0): "1413", (2, 0): "1210"})
    g = _hercules(bot)
    assert [c["turn"] for c in bot.stick_calls] == [0, 2, 4, 6]
    bot.stick_calls.clear()
    airborne.plan_jumps(g, days=(1, 2))             # day 1 is planned already
    assert [c["turn"] for c in bot.stick_calls] == [8, 10]
    airborne.plan_jumps(g, days=(2,))
    assert [c["turn"] for c in bot.stick_calls] == [8, 10]
    airborne.plan_jumps(g, days=(11,))
    airborne.plan_jumps(g, days=(12,))
    assert [c["turn"] for c in bot.stick_calls] == [8, 10, 44, 46]
    assert max(p.turn for p in airborne.jump_plans(g)) == 46
    assert int(g.state.planned_through_day[0]) == 11


def test_rule_19_3_22_26_intro_forced_battalions_then_one_stick_a_turn():
    """Rules 22.26 and 19.3 in the Introductory Scenario: on 30 June AM Ram 1/2
    jumps on the Ramcke marker's hex and on 30 June PM II/187 on the Folgore
    marker's hex, planned without asking (no other stick those turns); from
    1 July one stick a turn is the Axis player's choice; nothing is planned
    past the last day (5 July, day 6)."""
    bot = _Planner()
    g = setup_game("intro", 3, 0, (bot, AlliedBot(ALLIED)), event_log=True)
    sticks = {p.turn: p for p in airborne.jump_plans(g) if p.kind == "stick"}
    assert (sticks[4].formation, sticks[4].offset, sticks[4].units) == (1, (0, 0), (u("axis.ram.1_2"),))
    assert (sticks[6].formation, sticks[6].offset, sticks[6].units) == (2, (0, 0), (u("axis.185.ii_187"),))
    assert [c["turn"] for c in bot.stick_calls] == [8, 10]
    assert all(c["limits"]["total"] == 1 for c in bot.stick_calls)
    assert bot.marker_calls == []                      # the markers are on the map (22.2)
    airborne.plan_jumps(g, days=(6,))
    airborne.plan_jumps(g, days=(7,))
    assert [c["turn"] for c in bot.stick_calls] == [8, 10, 24, 26]


def test_rule_19_21_a_battalion_with_all_companies_eliminated_is_no_stick():
    """Rules 19.21 and 13.2: a stick is the three companies of a paratroop
    battalion; once its companies have jumped and all been eliminated, the
    battalion piece in the Disbandment Box cannot reform (13.2) and has no
    companies to jump, so it is no stick."""
    g = hercules_game()
    s = g.state
    bn = u("axis.ram.1_2")
    comps = H.break_down(g, bn)
    s.box[comps], s.hex[comps] = BOX_MAP, _idx(g, "1413")
    for c in comps:
        H.eliminate(g, c, "test")
    assert all(s.box[c] == BOX_ELIMINATED for c in comps)
    got = _names(g, airborne.available_sticks(g, 1, set()))
    assert all("axis.ram.1_2" not in x for _, xs in got for x in xs)


# ----------------------------------------------------------------- 4.23 the Airborne Landing Phase
def test_rule_19_0_19_35_markers_of_29_june_drop_even_when_all_jumps_are_cancelled():
    """Rules 19.0 and 19.35: on 29 June the Axis may cancel his sticks, but
    both drop zone markers must drop; the cancelled sticks' units stay in
    the Disbandment Box, free for new plans."""
    bot = _Planner(markers={(1, 0): "1413", (2, 0): "1210"}, cancel=True)
    g = _hercules(bot)
    g.state.weather[0] = 0
    sticks = [p for p in airborne.jump_plans(g, 0) if p.kind == "stick"]
    units = [x for p in sticks for x in p.units]
    assert units
    airborne.airborne_landing_phase(g)
    assert int(g.state.dz_hex[0, 1]) >= 0 and int(g.state.dz_hex[0, 2]) >= 0
    assert airborne.jump_plans(g, 0) == []
    assert not [r for r in g.events.rows if r["action"] == "stick_drop"]
    assert all(g.state.box[x] == BOX_DISBANDMENT for x in units)
    assert not set(units) & airborne.planned_units(g)


def test_rule_19_6_13_2_companies_that_land_together_reform():
    """Rules 4.23 h, 19.6 and 13.2: after the jumps, paratroop companies of one
    battalion that ended in the same hex may reform their battalion there
    (the Axis is offered the hex and reforms: the battalion piece stands in
    the hex, its companies leave the map)."""
    def picks(game, turn, sticks, targets, limits):
        if turn != 4:
            return []
        sid = [i for i, f, k in sticks if f == 1 and k == "battalion"][0]
        return [(sid, [hx for hx, long in targets[1] if not long][0])]
    done = 0
    for seed in range(3, 12):
        bot = _Planner(markers={(1, 0): "1413", (2, 0): "1210"}, picks=picks)
        g = _hercules(bot, seed=seed)
        s = g.state
        for x in g.on_map(ALLIED):
            s.box[x], s.hex[x] = 9, -1                     # no Allied piece: no hostile landing
        s.weather[0] = 0
        airborne.airborne_landing_phase(g)                 # 29 June AM: the markers drop
        s.turn[0] = 4
        (p,) = [p for p in airborne.jump_plans(g, 4) if p.kind == "stick"]
        bn = p.units[0]
        airborne.airborne_landing_phase(g)
        name = g.static.names[bn]
        comps = [x for x in range(len(g.static.names)) if g.static.names[x].startswith(name + ".")]
        on = [x for x in comps if s.box[x] == BOX_MAP]
        if s.box[bn] == BOX_MAP:                           # reformed where its companies ended
            assert not on
            assert [(o[0], sorted(o[1]), o[2]) for opts in bot.reform_options for o in opts] == \
                [(bn, sorted(comps), int(s.hex[bn]))]
            done += 1
        else:
            assert len({int(s.hex[x]) for x in on}) > 1 or len(on) < 3
    assert done >= 2


def test_rule_19_41_planned_markers_roll_the_drop_table_without_the_solitaire_plus_2():
    """Rule 19.41: a planned drop zone marker stays on its hex with a modified
    2d6 of 6 or less: Ramcke (German, -1) with 2d6 of 7 or less (21/36),
    Folgore with 6 or less (15/36), no Allied AA near; the solitaire +2
    (21.11) is not added (with it: 10/36 and 6/36).  A marker that scatters
    onto the ocean rolls again from its planned hex (19.42), which only adds
    to the hexes on target.  Thresholds: 0.45 and 0.30 of 80 drops each."""
    on = {1: 0, 2: 0}
    n = 80
    for seed in range(n):
        bot = _Planner(markers={(1, 0): "1413", (2, 0): "1210"}, picks=lambda *a: [])
        g = _hercules(bot, seed=seed)
        for x in g.on_map(ALLIED):
            g.state.box[x], g.state.hex[x] = 9, -1              # no AA anywhere
        g.state.weather[0] = 0
        airborne.airborne_landing_phase(g)
        on[1] += int(g.state.dz_hex[0, 1]) == _idx(g, "1413")
        on[2] += int(g.state.dz_hex[0, 2]) == _idx(g, "1210")
    assert on[1] >= 0.45 * n and on[2] >= 0.30 * n, on
