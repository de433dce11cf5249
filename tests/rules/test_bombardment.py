"""Bombardment (rule 10.1, with 10.12-10.14, 12.51-12.52) on constructed positions: the
Bombardment Table line and column, the column shifts and their limits, each result, the
ammunition and fire-hurricane bookkeeping of the guns, and who may bombard.
"""

from __future__ import annotations

from malta_sim.iod.rules import combat
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP, DEMORALIZED, DISORGANIZED, NORMAL

from tests.conftest import h, make, Scripted, static, u

#: the town of Musta, two hexes from the Axis guns in 1309 and next to the Axis
#: battalion in 1310 (the position of the 10.12 example)
_TOWN = "1210"
#: a clear hex next to the Axis battalion in 1310
_CLEAR = "1311"


def _game(placements, turn=4):
    return make(placements, turn=turn, policies=(Scripted(AXIS), Scripted(ALLIED)))


def _events(g, action):
    return [r for r in g.events.rows if r["action"] == action]


def _roll_for(row: int, col: int, code: int) -> int:
    """A 2d6 roll giving ``code`` on Bombardment Table line ``row`` (stacking
    total - 1) and column ``col``; fails the test if there is none."""
    ch = static().charts
    rolls = [r for r in range(2, 13) if int(ch.bomb[row, col, r]) == code]
    assert rolls, f"no roll gives result {code} on line {row + 1}, column {col}"
    return rolls[0]


def test_rule_10_12_strength_equal_to_the_line_minimum_fires_on_the_first_column():
    """Rule 10.12: a strength of 1 (the 4 of a 20th Division battalion halved at
    night, 10.22, and again for the town, TEC) against one battalion is not
    below the 1 printed for that line, so the fire is resolved: below every
    column heading it stays on the first column, then +1 for the enemy
    artillery in the hex. The bombardment is counted, and counted as one that
    no roll of its column could affect."""
    g = _game({_TOWN: ["allied.uk.art_12"], "1309": ["axis.20.art_1"], "1310": ["axis.4.1_34"]}, turn=7)
    assert g.night
    out = combat.resolve_bombardment(g, AXIS, h(_TOWN), [u("axis.20.art_1")], fixed_roll=12)
    assert out == {"strength": 1, "stack": 1, "column": 1, "roll": 12, "result": 0}
    assert g.state.bombardments[0, AXIS] == 1 and g.state.bombardments[0, ALLIED] == 0
    assert g.state.bombardments_no_effect[0, AXIS] == 1
    ev = _events(g, "bombardment")
    assert len(ev) == 1 and ev[0]["result"] == "-" and ev[0]["dice"] == "12"
    assert not _events(g, "bombardment ineffective")


def test_rule_10_12_strength_below_the_line_minimum_is_ineffective():
    """Rule 10.12: the same strength of 1 against two battalions is less than
    the 2 printed for their line: the fire is ineffective (no column, no roll,
    no result), the gun still fired and spent its salvo (12.51)."""
    g = _game({_TOWN: ["allied.uk.8m", "allied.uk.2rwk"], "1309": ["axis.20.art_1"],
               "1310": ["axis.4.1_34"]}, turn=7)
    gun = u("axis.20.art_1")
    out = combat.resolve_bombardment(g, AXIS, h(_TOWN), [gun], fixed_roll=12)
    assert out == {"strength": 1, "stack": 2, "column": -1, "roll": 0, "result": 0}
    assert g.state.bombardments[0, AXIS] == 1
    assert g.state.bombardments_no_effect[0, AXIS] == 1
    assert len(_events(g, "bombardment ineffective")) == 1 and not _events(g, "bombardment")
    assert g.state.fired[gun] and g.state.salvos[gun] == 1
    for x in ("allied.uk.8m", "allied.uk.2rwk"):
        assert g.state.morale_state[u(x)] == NORMAL


def test_rule_10_12_a_column_that_can_do_something_is_not_counted_as_without_effect():
    """Rule 10.12: strength 8 by day (two 20th Division battalions) on a clear
    hex holding one battalion is exactly the heading of column 8 (no rounding
    down), no shift applies;
    that column can give a result, so the bombardment is counted but not
    among those without effect; the bombarding gun is turned (fired) and
    spends one salvo (12.51)."""
    g = _game({_CLEAR: ["allied.uk.8m"], "1309": ["axis.20.art_1", "axis.20.art_2"],
               "1310": ["axis.4.1_34"]})
    gun = u("axis.20.art_1")
    out = combat.resolve_bombardment(g, AXIS, h(_CLEAR), [gun, u("axis.20.art_2")], fixed_roll=2)
    ch = static().charts
    assert out["strength"] == 8 and out["stack"] == 1
    assert int(ch.bomb_columns[out["column"]]) == 8
    assert combat.bombardment_column_has_effect(ch, 0, out["column"])
    assert g.state.bombardments[0, AXIS] == 1 and g.state.bombardments_no_effect[0, AXIS] == 0
    assert g.state.fired[gun] and g.state.salvos[gun] == 1 and g.state.morale_state[gun] == NORMAL


def test_rule_10_12_column_shifts_stop_at_the_first_column():
    """Rule 10.12: strength 2 (a 20th Division battalion at night) on the
    first column; the target hex is not next to any Axis unit (-1): the
    column stays the first one."""
    g = _game({_CLEAR: ["allied.uk.8m"], "1309": ["axis.20.art_1"]}, turn=7)
    out = combat.resolve_bombardment(g, AXIS, h(_CLEAR), [u("axis.20.art_1")], fixed_roll=12)
    assert out["strength"] == 2 and out["column"] == 0 and out["result"] == 0
    # next to an Axis unit no shift applies: the first column again
    g = _game({_CLEAR: ["allied.uk.8m"], "1309": ["axis.20.art_1"], "1310": ["axis.4.1_34"]}, turn=7)
    out = combat.resolve_bombardment(g, AXIS, h(_CLEAR), [u("axis.20.art_1")], fixed_roll=12)
    assert out["strength"] == 2 and out["column"] == 0


def test_rule_10_12_column_shifts_stop_at_the_last_column():
    """Rules 10.12 and 12.52: three fire hurricanes and a fourth battalion (36)
    are on the last column; +1 for the British artillery in the hex leaves
    them there."""
    guns = ["axis.ram.art", "axis.185.art_1", "axis.185.art_2", "axis.4.art_28"]
    g = _game({_CLEAR: ["allied.uk.art_12"], "1309": guns, "1310": ["axis.4.1_34"]})
    ch = static().charts
    last = len(ch.bomb_columns) - 1
    roll = _roll_for(0, last, 0)
    out = combat.resolve_bombardment(g, AXIS, h(_CLEAR), [u(x) for x in guns],
                                     hurricane=[u(x) for x in guns[:3]], fixed_roll=roll)
    assert out["strength"] == 36 and out["column"] == last


def test_rule_12_52_fire_hurricane_spends_both_salvos_and_disorganizes_the_gun():
    """Rules 12.51-12.52: of two battalions bombarding together, the one firing
    a fire hurricane spends both its salvos and ends disorganized; the other
    spends one salvo and stays in good order; both are turned (fired)."""
    g = _game({_CLEAR: ["allied.uk.8m"], "1309": ["axis.185.art_1", "axis.185.art_2"],
               "1310": ["axis.4.1_34"]})
    hur, plain = u("axis.185.art_1"), u("axis.185.art_2")
    out = combat.resolve_bombardment(g, AXIS, h(_CLEAR), [hur, plain], hurricane=[hur], fixed_roll=2)
    assert out["strength"] == 15
    assert g.state.salvos[hur] == 0 and g.state.morale_state[hur] == DISORGANIZED
    assert g.state.salvos[plain] == 1 and g.state.morale_state[plain] == NORMAL
    assert g.state.fired[hur] and g.state.fired[plain]


def test_rule_10_12_allied_artillery_bombards_the_axis():
    """Rule 10.12 for the Allied side: the British 9 (column 8) against the
    one Axis battalion of a clear hex next to British units; the line read
    is the Axis stacking total."""
    g = _game({_CLEAR: ["axis.4.1_34"], "1211": ["allied.uk.art_12"], _TOWN: ["allied.uk.8m"]})
    ch = static().charts
    col = 4                                      # heading 8
    assert int(ch.bomb_columns[col]) == 8
    roll = _roll_for(0, col, 0)
    out = combat.resolve_bombardment(g, ALLIED, h(_CLEAR), [u("allied.uk.art_12")], fixed_roll=roll)
    assert out["strength"] == 9 and out["stack"] == 1 and out["column"] == col
    assert g.state.bombardments[0, ALLIED] == 1 and g.state.bombardments[0, AXIS] == 0


def _big_bombardment(target: list[str], roll_code: int, demoralized=()):
    """36 strength (three fire hurricanes and a fourth battalion) on the clear
    hex 1311 holding ``target``, with a roll giving ``roll_code`` on the last
    column of the target's line; ``demoralized`` of them start demoralized.
    Returns the game and the result."""
    guns = ["axis.ram.art", "axis.185.art_1", "axis.185.art_2", "axis.4.art_28"]
    g = _game({_CLEAR: target, "1309": guns, "1310": ["axis.4.1_34"]})
    for x in demoralized:
        g.state.morale_state[u(x)] = DEMORALIZED
    ch = static().charts
    stack = combat.stacking_total(g, h(_CLEAR), ALLIED)
    roll = _roll_for(min(stack, len(ch.bomb_min_strength)) - 1, len(ch.bomb_columns) - 1, roll_code)
    out = combat.resolve_bombardment(g, AXIS, h(_CLEAR), [u(x) for x in guns],
                                     hurricane=[u(x) for x in guns[:3]], fixed_roll=roll)
    assert out["result"] == roll_code
    return g, out


def _steps(g, names):
    return sum(g.steps(u(x)) for x in names if g.state.box[u(x)] == BOX_MAP)


def test_rule_10_12_z_demoralizes_all_and_costs_the_demoralized_a_step():
    """Rule 10.12 "Z": every unit in the hex becomes demoralized; a unit that
    was demoralized already loses one step (one, not more)."""
    target = ["allied.uk.8m", "allied.uk.2rwk"]
    g, _ = _big_bombardment(target, 2, demoralized=["allied.uk.2rwk"])
    assert g.state.morale_state[u("allied.uk.8m")] == DEMORALIZED
    assert g.state.morale_state[u("allied.uk.2rwk")] == DEMORALIZED
    assert g.steps(u("allied.uk.8m")) == 3 and g.steps(u("allied.uk.2rwk")) == 2
    ev = _events(g, "bombardment")
    assert len(ev) == 1 and ev[0]["result"] == "Z"


def test_rule_10_12_one_step_result_costs_one_step():
    """Rule 10.12 "1": one step is lost in the hex, though 10.14 would allow
    two of its four steps."""
    target = [f"allied.uk.inf_coy.{k}" for k in range(1, 5)]
    g, _ = _big_bombardment(target, 3)
    assert _steps(g, target) == 3


def test_rule_10_12_two_step_result_costs_two_steps_when_the_hex_has_six():
    """Rules 10.12 "2" and 10.14: six one-step companies may lose three steps
    to one roll, so the two-step result costs exactly two."""
    target = [f"allied.uk.inf_coy.{k}" for k in range(1, 7)]
    g, _ = _big_bombardment(target, 4)
    assert _steps(g, target) == 4
