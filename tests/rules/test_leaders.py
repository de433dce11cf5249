"""Leader casualties, lone leaders and the return of leaders and HQs (rules 14.4-14.44,
6.52, 16.81-16.82) on constructed positions.

The dice of a leader's fate are read from the event log (the roll the engine
made), and the outcome is checked against what the rulebook prints for that
roll; the seeds are run until the rolls on both sides of each threshold were
seen.
"""

from __future__ import annotations

import pytest

from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.invariants import check_invariants
from malta_sim.iod.rules import organisation
from malta_sim.iod.state import (ALLIED, AXIS, BOX_DISBANDMENT, BOX_ELIMINATED, BOX_FOLLOW_UP,
                                 BOX_MAP, BOX_POOL, BOX_TURN_TRACK)

from tests.conftest import h, make, Recorder, static, u


class _Picker(Recorder):
    """Records the hexes offered to a returning leader (14.42, 14.43) and picks
    ``pick`` (the last one offered when None)."""

    def __init__(self, side, pick=None):
        super().__init__(side)
        self.pick = pick
        self.offered["leader_hex"] = []

    def leader_hex(self, game, options):
        self.offered["leader_hex"].append(list(options))
        return options[-1] if self.pick is None else self.pick


def _rows(g, action):
    return [r for r in g.events.rows if r["action"] == action]


BEAK, RAMCKE, FRATTINI, CHIRELSON = "allied.ldr.beak", "axis.ram.ldr.ramcke", "axis.185.ldr.frattini", \
    "axis.4.ldr.chirelson"


# ------------------------------------------------------------------ 14.41 combat losses
def test_rule_14_41_leader_casualty_threshold_and_extra_steps():
    """Rule 14.41: 2d6 minus the steps lost beyond the first; 3 or less
    eliminates the leader (ADC side, next day's box, 14.43), more leaves it in
    its hex.  Checked on every roll for one, two and three steps lost, until
    the rolls on both sides of the threshold were seen for one and two steps."""
    g = make({"1612": ["allied.uk.8m", BEAK]}, turn=8)
    s = g.state
    ld = u(BEAK)
    seen = set()
    for _ in range(400):
        for steps in (1, 2, 3):
            s.box[ld], s.hex[ld], s.level[ld], s.return_turn[ld] = BOX_MAP, h("1612"), 0, -1
            organisation.leader_casualty_roll(g, ld, steps)
            row = _rows(g, "leader casualty roll")[-1]
            r = int(row["dice"])
            dead = r - (steps - 1) <= 3
            assert row["rule"] == "14.41" and row["units"] == BEAK
            assert row["result"] == ("eliminated" if dead else "survives"), (r, steps)
            if dead:
                assert s.box[ld] == BOX_TURN_TRACK and s.level[ld] == 1 and s.return_turn[ld] == 12
            else:
                assert s.box[ld] == BOX_MAP and s.hex[ld] == h("1612") and s.level[ld] == 0
            seen.add((steps, r))
        if {(1, 3), (1, 4), (2, 4), (2, 5), (3, 5), (3, 6)} <= seen:
            break
    assert {(1, 3), (1, 4), (2, 4), (2, 5), (3, 5), (3, 6)} <= seen


# ------------------------------------------------------------------ 14.43, 14.44
def test_rule_14_43_eliminated_leader_turns_to_its_adc_for_the_next_day():
    """Rules 14.43-14.44: an eliminated leader (or ADC) is turned over and put
    in the next day's box on the turn record track, off the map, no steps
    counted (leaders are not combat units, 20.1); the event log names 14.43."""
    g = make({"1612": ["allied.uk.8m", BEAK]}, turn=9)
    s = g.state
    ld = u(BEAK)
    lost = int(s.allied_steps_lost[0])
    organisation.eliminate(g, ld, why="no retreat (9.61)")
    assert s.box[ld] == BOX_TURN_TRACK and s.level[ld] == 1 and s.hex[ld] == -1
    assert s.return_turn[ld] == 12                                  # 2 July AM (day 3)
    assert int(s.allied_steps_lost[0]) == lost
    assert [(r["units"], r["rule"], r["hexes"]) for r in _rows(g, "leader eliminated")] == [(BEAK, "14.43", "1612")]
    check_invariants(g, "test")
    s.turn[0] = 12
    organisation.return_leaders_and_hqs(g, initial_segment=True)
    organisation.eliminate(g, ld)                                   # the ADC eliminated (14.44)
    assert s.box[ld] == BOX_TURN_TRACK and s.level[ld] == 1 and s.return_turn[ld] == 16


def test_rule_14_43_adc_returns_to_its_hq_hex():
    """Rule 14.43: the ADC returns in the Initial Segment of the next day in the
    hex of its formation's HQ (not with some other unit); it is not back
    before that day (a Status Phase of the same day leaves it on the track),
    and the HQ itself stays where it is."""
    g = make({"1612": ["allied.hq.malta"], "1614": ["allied.uk.8m", BEAK]}, turn=8,
             policies=(_Picker(AXIS), _Picker(ALLIED)))
    s = g.state
    ld, hq = u(BEAK), u("allied.hq.malta")
    organisation.leader_eliminated(g, ld)
    s.turn[0] = 9
    organisation.return_leaders_and_hqs(g, initial_segment=False, side=ALLIED)
    assert s.box[ld] == BOX_TURN_TRACK and s.return_turn[ld] == 12           # not yet
    s.turn[0] = 12
    organisation.return_leaders_and_hqs(g, initial_segment=True)
    assert s.box[ld] == BOX_MAP and s.hex[ld] == h("1612") and s.level[ld] == 1
    assert s.return_turn[ld] == -1                                  # no return pending
    assert s.box[hq] == BOX_MAP and s.hex[hq] == h("1612")
    assert g.policy(ALLIED).offered["leader_hex"] == []              # no choice to make
    assert [(r["units"], r["rule"]) for r in _rows(g, "leader returns")] == [(BEAK, "14.43")]
    check_invariants(g, "test")


def test_rule_14_43_allied_adc_without_hq_joins_an_infantry_unit():
    """Rule 14.43: the Allied HQ eliminated, the returning Allied ADC is placed
    with any Allied infantry unit the Allied player chooses: the artillery's
    hex is not offered; a hex without an infantry unit is refused."""
    place = {"1612": ["allied.hq.malta", "allied.uk.art_12"], "1614": ["allied.uk.8m"], "1710": [BEAK]}
    bot = _Picker(ALLIED)
    g = make(place, turn=8, policies=(_Picker(AXIS), bot))
    s = g.state
    ld = u(BEAK)
    organisation.eliminate(g, u("allied.hq.malta"))
    organisation.leader_eliminated(g, ld)
    s.turn[0] = 12
    organisation.return_leaders_and_hqs(g, initial_segment=True)
    assert bot.offered["leader_hex"] == [[h("1614")]]
    assert s.box[ld] == BOX_MAP and s.hex[ld] == h("1614")
    assert [(r["units"], r["rule"]) for r in _rows(g, "leader returns")] == [(BEAK, "14.43")]
    g = make(place, turn=8, policies=(_Picker(AXIS), _Picker(ALLIED, pick=h("1612"))))
    organisation.eliminate(g, u("allied.hq.malta"))
    organisation.leader_eliminated(g, ld)
    g.state.turn[0] = 12
    with pytest.raises(IllegalDecision, match="14.43"):
        organisation.return_leaders_and_hqs(g, initial_segment=True)


def test_rule_14_43_allied_adc_waits_a_day_without_an_infantry_unit():
    """Rule 14.43 (reading): with the Allied HQ eliminated and no Allied
    infantry unit on the map the ADC has nowhere to go and waits for the next
    day's Initial Segment; the other pieces due (Ramcke's ADC, its HQ on the
    map) still return.  The next day, an infantry unit on the map, it joins it."""
    g = make({"1612": ["allied.hq.malta", "allied.uk.art_12"], "1310": ["axis.ram.hq", "axis.ram.1_2"]},
             turn=8, policies=(_Picker(AXIS), _Picker(ALLIED)))
    s = g.state
    beak, ram = u(BEAK), u(RAMCKE)
    organisation.eliminate(g, u("allied.hq.malta"))
    organisation.leader_eliminated(g, beak)
    organisation.leader_eliminated(g, ram)
    s.turn[0] = 12
    organisation.return_leaders_and_hqs(g, initial_segment=True)
    assert s.box[beak] == BOX_TURN_TRACK and s.return_turn[beak] == 16
    assert s.box[ram] == BOX_MAP and s.hex[ram] == h("1310")
    assert [r["units"] for r in _rows(g, "leader returns")] == [RAMCKE]
    s.box[u("allied.uk.8m")], s.hex[u("allied.uk.8m")] = BOX_MAP, h("1614")
    s.turn[0] = 16
    organisation.return_leaders_and_hqs(g, initial_segment=True)
    assert s.box[beak] == BOX_MAP and s.hex[beak] == h("1614")


def test_rule_14_43_axis_adc_without_hq_goes_to_disbandment_or_follow_up_box():
    """Rule 14.43: the HQ of an Axis formation eliminated and not back, its ADC
    goes to the Disbandment Box when it leads a paratroop formation (Ramcke)
    or to its division's Follow-up box when it leads an infantry division
    (Chirelson, 4th Livorno) -- not onto the map, although units of its side
    stand there."""
    g = make({"1310": ["axis.ram.1_2", "axis.4.1_34"]}, turn=8, policies=(_Picker(AXIS), _Picker(ALLIED)))
    g.scenario.follow_up_zone[4] = 2
    s = g.state
    ram, chi = u(RAMCKE), u(CHIRELSON)
    for ld in (ram, chi):
        organisation.leader_eliminated(g, ld)
    s.turn[0] = 12
    organisation.return_leaders_and_hqs(g, initial_segment=True)
    assert s.box[ram] == BOX_DISBANDMENT and s.hex[ram] == -1
    assert s.box[chi] == BOX_FOLLOW_UP and s.box_slot[chi] == 2 and s.hex[chi] == -1
    assert g.policy(AXIS).offered["leader_hex"] == []
    assert [r["units"] for r in _rows(g, "leader returns")] == [RAMCKE, CHIRELSON]


# ------------------------------------------------------------------ 14.42, 6.52 lone leaders
def test_rule_14_42_lone_leader_roll_coastal_gun_and_zero_defense_units():
    """Rules 6.52, 14.42, 16.53: a hex entered that holds only an enemy leader,
    a coastal gun and a zero-defense strongpoint: the gun and the strongpoint
    are eliminated (the strongpoint counts one step, the gun none, 20.1); the
    leader rolls 2d6: 7 or less eliminated (ADC, next day, 14.43), else off to
    the next turn's box.  Seeds are run until a 7 and an 8 were rolled."""
    seen = set()
    for seed in range(200):
        g = make({"1612": [BEAK, "allied.cg.heavy.1", "allied.sp.b.1"]}, turn=9, seed=seed)
        s = g.state
        ld, gun, sp = u(BEAK), u("allied.cg.heavy.1"), u("allied.sp.b.1")
        lost = int(s.allied_steps_lost[0])
        organisation.overrun_trivial(g, g.units_at(h("1612"), ALLIED), AXIS)
        row = _rows(g, "lone leader")[-1]
        r = int(row["dice"])
        assert row["rule"] == "14.42" and row["units"] == BEAK
        assert row["result"] == ("eliminated" if r <= 7 else "escapes")
        if r <= 7:
            assert s.level[ld] == 1 and s.return_turn[ld] == 12
        else:
            assert s.level[ld] == 0 and s.return_turn[ld] == 10       # the next turn
        assert s.box[ld] == BOX_TURN_TRACK and s.hex[ld] == -1
        assert s.box[gun] == s.box[sp] == BOX_POOL                   # generic pieces (13.0 reading)
        assert int(s.allied_steps_lost[0]) == lost + 1
        check_invariants(g, "test")
        seen.add(r)
        if {7, 8} <= seen:
            break
    assert {7, 8} <= seen


def _escaped(g, ld):
    """Leader ``ld`` in ``hex_id`` overrun with an escape (a roll of 8 or more,
    14.42): the seed's roll decides, so the caller tries seeds."""
    organisation.overrun_trivial(g, [ld], 1 - int(static().side[ld]))
    return g.state.box[ld] == BOX_TURN_TRACK and g.state.level[ld] == 0


def _escape_game(place, ld_names, turn, policies=None):
    """A game on ``place`` in which each leader of ``ld_names`` escaped a lone
    leader roll this turn (the first seed where all of them escape)."""
    for seed in range(500):
        g = make(place, turn=turn, seed=seed, policies=policies)
        if all(_escaped(g, u(n)) for n in ld_names):
            return g
    raise AssertionError("no seed with all escapes")


def test_rule_14_42_escaped_leader_returns_in_its_side_status_phase():
    """Rule 14.42: an escaped lone leader returns in its own side's Status
    Phase of the next turn, in the hex of its formation's HQ: an Axis Status
    Phase brings back the Axis leader only, the Allied one the Allied leader;
    neither comes back in the turn it escaped."""
    place = {"1612": ["allied.hq.malta", BEAK], "1614": ["allied.uk.8m"],
             "1310": ["axis.ram.hq", RAMCKE], "1209": ["axis.ram.1_2"]}
    g = _escape_game(place, [BEAK, RAMCKE], turn=8)
    s = g.state
    beak, ram = u(BEAK), u(RAMCKE)
    assert s.return_turn[beak] == s.return_turn[ram] == 9
    organisation.return_leaders_and_hqs(g, initial_segment=False, side=ALLIED)
    assert s.box[beak] == s.box[ram] == BOX_TURN_TRACK             # same turn: not yet
    s.turn[0] = 9
    organisation.return_leaders_and_hqs(g, initial_segment=False, side=AXIS)
    assert s.box[ram] == BOX_MAP and s.hex[ram] == h("1310") and s.level[ram] == 0
    assert s.box[beak] == BOX_TURN_TRACK
    organisation.return_leaders_and_hqs(g, initial_segment=False, side=ALLIED)
    assert s.box[beak] == BOX_MAP and s.hex[beak] == h("1612")
    assert [r["units"] for r in _rows(g, "leader returns")] == [RAMCKE, BEAK]
    check_invariants(g, "test")


def test_rule_14_42_leader_escaping_at_night_is_not_an_adc_in_the_initial_segment():
    """Rule 14.42 against 14.43: a leader that escapes in the night turn goes to
    the next turn's box, the first turn of the next day; that day's Initial
    Segment (which brings back ADCs and HQs) leaves it there, and it returns
    in its side's Status Phase, with its HQ, not as an ADC without an HQ on
    the map would (an Axis paratroop ADC goes to the Disbandment Box); an ADC
    due the same morning still returns then, whatever the order of the pieces."""
    place = {"1612": ["allied.hq.malta", BEAK], "1614": ["allied.uk.8m"],
             "1310": ["axis.ram.hq", RAMCKE], "1209": ["axis.ram.1_2"],
             "1410": ["axis.185.hq", FRATTINI]}
    g = _escape_game(place, [BEAK, RAMCKE], turn=7)              # 29 June night
    s = g.state
    beak, ram, fra = u(BEAK), u(RAMCKE), u(FRATTINI)
    assert s.return_turn[beak] == s.return_turn[ram] == 8 and s.escaped[beak] and s.escaped[ram]
    organisation.leader_eliminated(g, fra)                       # an ADC due the same morning
    assert s.return_turn[fra] == 8 and not s.escaped[fra] and beak < fra
    s.turn[0] = 8                                                # 30 June AM
    organisation.return_leaders_and_hqs(g, initial_segment=True)
    assert s.box[beak] == s.box[ram] == BOX_TURN_TRACK            # no ADC return for them
    assert s.box[fra] == BOX_MAP and s.hex[fra] == h("1410")      # the ADC returns (14.43)
    organisation.return_leaders_and_hqs(g, initial_segment=False, side=AXIS)
    assert s.box[ram] == BOX_MAP and s.hex[ram] == h("1310") and s.level[ram] == 0 and not s.escaped[ram]
    organisation.return_leaders_and_hqs(g, initial_segment=False, side=ALLIED)
    assert s.box[beak] == BOX_MAP and s.hex[beak] == h("1612") and not s.escaped[beak]
    check_invariants(g, "test")


def test_rule_14_42_escaped_leader_without_hq_on_map_joins_any_friendly_unit():
    """Rule 14.42: an escaped leader whose HQ is not on the map is placed with
    any friendly unit, artillery included (not only infantry, as an ADC of
    14.43); its player chooses among those hexes."""
    bot = _Picker(AXIS, pick=h("1209"))
    place = {"1310": ["axis.185.v_186", FRATTINI], "1209": ["axis.185.art_1"]}
    g = _escape_game(place, [FRATTINI], turn=8, policies=(bot, _Picker(ALLIED)))
    s = g.state
    s.turn[0] = 9
    organisation.return_leaders_and_hqs(g, initial_segment=False, side=AXIS)
    assert bot.offered["leader_hex"] == [sorted([h("1310"), h("1209")])]
    assert s.box[u(FRATTINI)] == BOX_MAP and s.hex[u(FRATTINI)] == h("1209")


# ------------------------------------------------------------------ 16.81, 16.82 HQs
def test_rule_16_82_hq_returns_only_in_the_initial_segment_to_its_box():
    """Rules 16.82: an eliminated Axis HQ returns in the Initial Segment of the
    fourth day after -- not in a Status Phase of that day (a leader due then
    still returns there) -- the HQ of an infantry division (4th Livorno) to
    the Follow-up box where it began, any other (Ramcke) to the Disbandment
    Box, at full strength."""
    g = make({"1310": ["axis.ram.hq", "axis.4.hq", "axis.4.1_34", FRATTINI]}, turn=4,
             policies=(_Picker(AXIS), _Picker(ALLIED)))
    g.scenario.follow_up_zone[4] = 1
    s = g.state
    ram_hq, div_hq, fr = u("axis.ram.hq"), u("axis.4.hq"), u(FRATTINI)
    for x in (ram_hq, div_hq):
        organisation.eliminate(g, x, why="combat")
        assert s.box[x] == BOX_TURN_TRACK and s.return_turn[x] == 20
    s.box[fr], s.hex[fr], s.return_turn[fr] = BOX_TURN_TRACK, -1, 20    # escaped on turn 19 (14.42)
    s.turn[0] = 20
    organisation.return_leaders_and_hqs(g, initial_segment=False, side=AXIS)
    assert s.box[ram_hq] == s.box[div_hq] == BOX_TURN_TRACK
    assert s.box[fr] == BOX_MAP and s.hex[fr] == h("1310")          # the leader is back
    organisation.return_leaders_and_hqs(g, initial_segment=True)
    assert s.box[ram_hq] == BOX_DISBANDMENT
    assert s.box[div_hq] == BOX_FOLLOW_UP and s.box_slot[div_hq] == 1
    for x in (ram_hq, div_hq):
        assert s.level[x] == 0 and s.return_turn[x] == -1 and s.hex[x] == -1
    assert [r["units"] for r in _rows(g, "HQ returns")] == ["axis.ram.hq", "axis.4.hq"]
    assert {r["rule"] for r in _rows(g, "HQ returns")} == {"16.82"}
    check_invariants(g, "test")


def test_rule_16_81_hq_losses_counted_allied_hq_never_returns():
    """Rules 16.81-16.82: the Allied HQ eliminated never returns (it stays in
    the eliminated box); an Axis HQ lost on or after the scenario's cut-off
    day stays lost too.  Each side's HQ losses are counted once per HQ for the
    result row.  The Allied HQ counts its one step (20.1); an Axis HQ counts
    none (the surrender terms count Axis HQs lost apart, 20.0)."""
    g = make({"1612": ["allied.hq.malta"], "1310": ["axis.ram.hq", "axis.185.hq"]}, turn=8)
    g.scenario.hq_cutoff_day = 2
    s = g.state
    organisation.eliminate(g, u("allied.hq.malta"))
    assert s.box[u("allied.hq.malta")] == BOX_ELIMINATED and s.return_turn[u("allied.hq.malta")] == -1
    assert int(s.allied_hqs_lost[0]) == 1 and int(s.hqs_lost[0]) == 0
    organisation.eliminate(g, u("axis.ram.hq"))                     # day 2: the cut-off day
    assert s.box[u("axis.ram.hq")] == BOX_ELIMINATED
    assert int(s.hqs_lost[0]) == 1 and int(s.allied_hqs_lost[0]) == 1
    g.scenario.hq_cutoff_day = 3
    organisation.eliminate(g, u("axis.185.hq"))
    assert s.box[u("axis.185.hq")] == BOX_TURN_TRACK and s.return_turn[u("axis.185.hq")] == 24
    assert int(s.hqs_lost[0]) == 2
    assert int(s.allied_steps_lost[0]) == 1 and int(s.axis_steps_lost[0]) == 0
    check_invariants(g, "test")
