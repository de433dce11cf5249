"""Step losses and eliminations (rules 9.5, 17.3, 9.95, 7.2) and the steps they
count for victory (20.1, 20.2) on constructed positions.

After each change the position is checked with :func:`check_invariants`
(pieces off the map have no hex, strength levels in range, the per-side
tallies equal the recount of every piece's steps lost).
"""

from __future__ import annotations

import pytest

from malta_sim.iod import static as st
from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.invariants import check_invariants
from malta_sim.iod.rules import organisation
from malta_sim.iod.state import (ALLIED, AXIS, BOX_ELIMINATED, BOX_POOL, LOSS_COMBAT, LOSS_LANDING,
                                 LOSS_OTHER)

from tests.conftest import h, make, Recorder, static, u


def _rows(g, action):
    return [r for r in g.events.rows if r["action"] == action]


# ------------------------------------------------------------------ 9.5, 17.3 step losses
def test_rule_17_3_a_company_or_an_artillery_battalion_is_eliminated_by_one_step():
    """Rules 9.5 and 17.3: a company and an artillery battalion have one step:
    one step loss eliminates them (lose_step says so), a paratroop company
    even on its full-strength side (9.5); a battalion turns to its
    next level (lose_step says it survives) until its last level goes.  The
    event log cites 9.5 for a step loss without a cause, the cause's rule
    otherwise."""
    g = make({"1612": ["allied.uk.8m", "allied.uk.art_12", "allied.uk.1_r"], "1210": ["axis.ram.1_2.a"]})
    s, t = g.state, static()
    art, coy, bn = u("allied.uk.art_12"), u("allied.uk.1_r"), u("allied.uk.8m")
    para = u("axis.ram.1_2.a")
    assert t.size[coy] == st.COMPANY and t.size[art] == st.BATTALION
    assert t.size[para] == st.COMPANY and t.n_levels[para] == 2            # it has a reduced side (17.83)
    assert organisation.lose_step(g, art) is True
    assert organisation.lose_step(g, coy, "landing losses 18.5") is True
    assert organisation.lose_step(g, para, "combat") is True               # even at full strength (9.5)
    assert s.box[art] == s.box[coy] == s.box[para] == BOX_ELIMINATED
    assert organisation.lose_step(g, bn, "combat") is False and s.level[bn] == 1
    assert organisation.lose_step(g, bn, "combat") is False and s.level[bn] == 2
    assert organisation.lose_step(g, bn, "combat") is True and s.box[bn] == BOX_ELIMINATED
    assert [(r["units"], r["rule"]) for r in _rows(g, "eliminated")] == [
        ("allied.uk.art_12", "9.5"), ("allied.uk.1_r", "18.5"), ("axis.ram.1_2.a", "9.5"), ("allied.uk.8m", "9.5")]
    assert all(s.hex[x] == -1 for x in (art, coy, para, bn))                # off the map (state.py: hex -1)
    check_invariants(g, "test")


def test_rule_20_1_first_turn_losses_by_cause():
    """Rules 20.1, 20.2 (result columns): steps lost in the scenario's first
    turn are also counted by cause -- a step loss without a cause as ground
    combat (9.5), landing losses (18.5) as landing losses -- and not after the
    first turn."""
    g = make({"1612": ["allied.uk.8m", "allied.uk.2rwk"]}, turn=0)
    s = g.state
    organisation.lose_step(g, u("allied.uk.8m"))
    organisation.lose_step(g, u("allied.uk.2rwk"), "landing losses 18.5")
    organisation.lose_step(g, u("allied.uk.2rwk"), "landing losses 18.5")
    ft = s.first_turn_steps_lost[0, ALLIED]
    assert (int(ft[LOSS_COMBAT]), int(ft[LOSS_LANDING]), int(ft[LOSS_OTHER])) == (1, 2, 0)
    s.turn[0] = 1
    organisation.lose_step(g, u("allied.uk.8m"))
    assert int(s.first_turn_steps_lost[0, ALLIED].sum()) == 3 and int(s.allied_steps_lost[0]) == 4


def test_rule_20_2_steps_counted_with_their_weight():
    """Rules 20.1, 20.2: each step lost counts once for its side, a tank
    company two (Allied 1st Royal Tank company, Axis tank company); an
    eliminated unit counts all the steps it had left (over-stacking,
    retreat failure); coastal guns, militia and Axis HQs count nothing."""
    g = make({"1612": [("allied.uk.8m", 1), "allied.uk.1_r", "allied.mil.5"],
              "1310": ["axis.un.tank_10", "axis.4.1_34", "axis.4.hq"]})
    s = g.state
    organisation.lose_step(g, u("allied.uk.1_r"))
    assert int(s.allied_steps_lost[0]) == 2 and int(s.steps_lost[u("allied.uk.1_r")]) == 1
    organisation.eliminate(g, u("allied.uk.8m"), why="no retreat (9.61)")
    assert int(s.allied_steps_lost[0]) == 4 and int(s.steps_lost[u("allied.uk.8m")]) == 2
    organisation.eliminate(g, u("allied.mil.5"))
    assert int(s.allied_steps_lost[0]) == 4
    organisation.lose_step(g, u("axis.un.tank_10"))
    organisation.lose_step(g, u("axis.4.1_34"))
    organisation.eliminate(g, u("axis.4.hq"))
    assert int(s.axis_steps_lost[0]) == 3
    check_invariants(g, "test")


# ------------------------------------------------------------------ eliminations
def test_rule_20_1_a_unit_already_eliminated_is_not_counted_again():
    """Rule 20.1: an eliminated unit's steps count once: eliminating it again
    (a generic company piece back in its pool included, 13.0 reading) adds no
    step and no event."""
    g = make({"1612": ["allied.uk.8m", "allied.uk.inf_coy.1"]})
    s = g.state
    bn, coy = u("allied.uk.8m"), u("allied.uk.inf_coy.1")
    assert static().company_kind[coy] == 0
    organisation.eliminate(g, bn)
    organisation.lose_step(g, coy)
    assert int(s.allied_steps_lost[0]) == 4
    n = len(g.events.rows)
    organisation.eliminate(g, bn)
    organisation.eliminate(g, coy)
    assert int(s.allied_steps_lost[0]) == 4 and len(g.events.rows) == n
    assert s.box[bn] == BOX_ELIMINATED and s.box[coy] == BOX_POOL
    check_invariants(g, "test")


def test_rule_13_0_eliminated_generic_company_on_the_map_goes_back_to_its_pool():
    """Rules 13.0, 9.5 (reading of 13.0 in rules_coverage.csv): a generic
    company piece on the map that is eliminated counts its step and goes
    back to the pool of its kind, off the map and at full strength, free for
    another break-down; an eliminated battalion stays in the eliminated box."""
    g = make({"1612": ["allied.uk.8m", ("allied.uk.inf_coy.1", 0)], "1310": ["axis.it.inf_coy.1"]})
    s = g.state
    coy, bn, it = u("allied.uk.inf_coy.1"), u("allied.uk.8m"), u("axis.it.inf_coy.1")
    s.reduced[coy] = True
    organisation.eliminate(g, coy, why="combat")
    organisation.eliminate(g, it, why="combat")
    organisation.eliminate(g, bn, why="combat")
    assert s.box[coy] == s.box[it] == BOX_POOL and s.hex[coy] == s.hex[it] == -1
    assert s.level[coy] == 0 and not s.reduced[coy] and s.parent[coy] == -1   # state.py: -1, no battalion
    assert s.box[bn] == BOX_ELIMINATED and s.hex[bn] == -1
    assert int(s.allied_steps_lost[0]) == 4 and int(s.axis_steps_lost[0]) == 1
    assert [r["units"] for r in _rows(g, "eliminated")] == ["allied.uk.inf_coy.1", "axis.it.inf_coy.1",
                                                            "allied.uk.8m"]
    check_invariants(g, "test")


def test_rule_9_95_a_battalion_of_a_regiment_eliminated_ends_its_integrity():
    """Rule 9.95: a battalion of an infantry regiment eliminated (the British
    8th Manchester, regiment 0 of the data; the 1/34th of the 4th Livorno)
    ends that regiment's integrity for the game, no other's; an eliminated
    battalion of no regiment (artillery) ends none."""
    g = make({"1612": ["allied.uk.8m", "allied.uk.art_12"], "1310": ["axis.4.1_34"]})
    s, t = g.state, static()
    organisation.eliminate(g, u("allied.uk.art_12"))
    assert not s.integrity_lost[0].any()
    organisation.eliminate(g, u("allied.uk.8m"))
    organisation.eliminate(g, u("axis.4.1_34"))
    assert t.regiment[u("allied.uk.8m")] == 0
    assert sorted(int(r) for r in s.integrity_lost[0].nonzero()[0]) == sorted(
        [0, int(t.regiment[u("axis.4.1_34")])])


def test_rule_9_95_a_named_company_of_a_regiment_eliminated_ends_its_integrity():
    """Rule 9.95 ("any unit belonging to an infantry regiment"): a named
    paratroop company broken down from a battalion of a regiment (13.1)
    belongs to that regiment, so its elimination ends the regiment's
    integrity for the game, as a battalion's does."""
    g = make({"1310": ["axis.ram.1_2.a"]})
    s, t = g.state, static()
    r = int(t.regiment[u("axis.ram.1_2.a")])
    assert r >= 0 and t.company_kind[u("axis.ram.1_2.a")] < 0
    organisation.eliminate(g, u("axis.ram.1_2.a"))
    assert sorted(int(x) for x in s.integrity_lost[0].nonzero()[0]) == [r]


# ------------------------------------------------------------------ 7.2 stacking check
class _Stacker(Recorder):
    """Records the units offered for over-stacking eliminations (7.2) and
    picks ``pick``; ``refuse``: being asked at all is a failure."""

    def __init__(self, side, pick=None, refuse=False):
        super().__init__(side)
        self.pick, self.refuse = pick, refuse
        self.offered["stacking"] = []

    def stacking_eliminate(self, game, units):
        assert not self.refuse, "the owner of the over-stacked units chose (7.2: the enemy chooses)"
        self.offered["stacking"].append(list(units))
        return self.pick


def test_rule_7_2_enemy_eliminates_over_stacked_units_down_to_the_limit():
    """Rules 7.1-7.2: four battalions and two companies (ten half-battalions)
    in a hex at a phase end: the enemy player chooses among the battalions and
    companies (not the HQ or leader, 7.1) which unit is eliminated, once the
    hex is back to four battalions' worth (eight halves) no more; the unit
    is eliminated with all its steps (two left on the reduced 8th Manchester,
    20.1) and the event log cites 7.2."""
    names = [("allied.uk.8m", 1), "allied.uk.2rwk", "allied.uk.11lf", "allied.uk.4b",
             "allied.uk.inf_coy.1", "allied.uk.inf_coy.2", "allied.hq.malta", "allied.ldr.beak"]
    axis = _Stacker(AXIS, pick=u("allied.uk.8m"))
    g = make({"1612": names}, policies=(axis, _Stacker(ALLIED, refuse=True)))
    s = g.state
    organisation.stacking_check(g)
    assert axis.offered["stacking"] == [sorted(u(n if isinstance(n, str) else n[0]) for n in names[:6])]
    assert s.box[u("allied.uk.8m")] == BOX_ELIMINATED
    assert organisation.hex_stack(g, h("1612"), ALLIED) == 8
    assert int(s.allied_steps_lost[0]) == 2
    assert [(r["units"], r["rule"], r["hexes"]) for r in _rows(g, "eliminated")] == [
        ("allied.uk.8m", "7.2", "1612")]
    check_invariants(g, "test")


def test_rule_7_2_the_allied_player_chooses_for_an_axis_stack():
    """Rule 7.2: an over-stacked Axis hex: the Allied player chooses; a unit not
    in the hex is refused."""
    names = ["axis.4.1_34", "axis.4.2_34", "axis.4.3_34", "axis.4.1_33", "axis.4.2_33"]
    allied = _Stacker(ALLIED, pick=u("axis.4.2_33"))
    g = make({"1310": names}, policies=(_Stacker(AXIS, refuse=True), allied))
    organisation.stacking_check(g)
    assert g.state.box[u("axis.4.2_33")] == BOX_ELIMINATED and len(allied.offered["stacking"]) == 1
    g = make({"1310": names}, policies=(_Stacker(AXIS, refuse=True), _Stacker(ALLIED, pick=u("axis.4.3_33"))))
    with pytest.raises(IllegalDecision, match="7.2"):
        organisation.stacking_check(g)
