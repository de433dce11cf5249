"""The sequence of play (rule 4) observed in played, seeded games: the phase
names at every phase end (``game.observers``), who is active, the night and
noon turns, the Initial Segment once a day, the per-turn markers cleared at the
turn transition, and the order of the logged steps inside a phase (event log).
"""

from __future__ import annotations

import pytest

from malta_sim.iod import sequence
from malta_sim.iod.state import ALLIED, AM, AXIS, NIGHT, NOON
from malta_sim.play import new_game

#: the phases of one game turn in the printed order (4.1, 4.2, 4.3)
_ORDER = ("initial_segment", "axis_status", "amphibious_landing", "airborne_landing",
          "axis_movement", "axis_combat", "axis_penetration",
          "allied_status", "allied_movement", "allied_combat", "allied_penetration")
_AXIS_PHASES = set(_ORDER[1:7])
_ALLIED_PHASES = set(_ORDER[7:])


def _expected(tod: int, invasion: bool = True) -> list[str]:
    """The phases of a turn at time of day ``tod`` (4.1 once a day before the
    AM turn; 4.22 skipped at night; 4.23 skipped at noon and night)."""
    out = []
    for p in _ORDER:
        if p == "initial_segment" and tod != AM:
            continue
        if p == "amphibious_landing" and (tod == NIGHT or not invasion):
            continue
        if p == "airborne_landing" and (tod in (NOON, NIGHT) or not invasion):
            continue
        out.append(p)
    return out


_PER_TURN = ("moved", "strategic", "attacked", "fired", "advanced", "penetrated")


def _play(scenario: str, seed: int, options=()):
    """Play one seeded game to its end, recording at every phase end the turn,
    the phase, the active side and whether any per-turn marker (moved,
    strategic, attacked, fired, advanced, penetrated, leader uses) is set."""
    g = new_game(scenario, seed, 0, options=options, event_log=True)
    seen = []
    rolls = []
    g.rolls_seen = rolls

    def obs(game, phase):
        s = game.state
        marks = any(bool(getattr(s, f).any()) for f in _PER_TURN) or bool(s.leader_uses.any())
        seen.append((int(s.turn[0]), phase, int(game.active), marks, sequence.PHASES[int(s.phase[0])]))
        rolls.append((int(s.turn[0]), phase, int(s.last_surrender_roll[0])))

    g.observers.append(obs)
    start = int(g.state.turn[0])
    sequence.play_game(g)
    return g, seen, start


@pytest.fixture(scope="module")
def hercules():
    return _play("hercules", 3)


@pytest.fixture(scope="module")
def intro_no_invasion():
    return _play("intro", 2, options=("no_invasion",))


def _by_turn(seen):
    turns: dict = {}
    for t, p, *_ in seen:
        turns.setdefault(t, []).append(p)
    return turns


def test_rule_4_0_days_of_four_turns_each_axis_then_allied(hercules):
    """Rule 4.0 / 4.2 / 4.3: every turn of a played game is the Axis player
    turn followed by the Allied player turn; a day is AM, noon, PM and night;
    the Initial Segment comes once a day, before the AM turn (4.1); the
    Amphibious Landing Phase is skipped at night (4.22), the Airborne Landing
    Phase at noon and at night (4.23)."""
    g, seen, start = hercules
    turns = _by_turn(seen)
    assert start == 0 and len(turns) >= 8                   # at least two whole days
    assert sorted(turns) == list(range(start, start + len(turns)))   # 4.42: one turn at a time
    for t, phases in turns.items():
        assert phases == _expected(t % 4), (t, phases)
    # the event log of the whole game follows the same order (4.4: surrender last)
    assert {t % 4 for t in turns} == {0, 1, 2, 3}


def test_rule_4_2_4_3_active_player(hercules):
    """Rules 4.2 and 4.3: the Axis is the active player in its six phases
    (4.21-4.26), the Allies in theirs (4.31-4.34); the phase code in the state
    names the phase that ended."""
    g, seen, _ = hercules
    axis = [a for _, p, a, _, _ in seen if p in _AXIS_PHASES]
    allied = [a for _, p, a, _, _ in seen if p in _ALLIED_PHASES]
    assert axis and allied
    assert set(axis) == {AXIS} and set(allied) == {ALLIED}
    assert all(p == code for _, p, _, _, code in seen)


def test_rule_4_0_introductory_scenario_starts_30_june(intro_no_invasion):
    """Rules 4.0 and 22.22: the Introductory Scenario begins with the Initial
    Segment of 30 June (turn 4) and plays the same player turns; played without
    the invasion modules (option no_invasion, a testing aid) it has no landing
    phases (4.22, 4.23) at all."""
    g, seen, start = intro_no_invasion
    turns = _by_turn(seen)
    assert start == 4 and seen[0][:2] == (4, "initial_segment")
    assert len(turns) >= 4
    for t, phases in turns.items():
        assert phases == _expected(t % 4, invasion=False), (t, phases)


def test_rule_4_42_turn_transition_sets_units_upright(hercules):
    """Rule 4.42: at the turn transition every unit is set upright again: at
    the end of the next turn's Initial Segment (before any landing, whose
    arrivals are marked as moved, 18.94 / 19.8) no unit is marked moved,
    strategic, attacked, fired, advanced or penetrated and no leader has used
    a command roll; the game did mark some units during the turns before."""
    g, seen, start = hercules
    marked_before = [t for t, p, _, m, _ in seen if p == "allied_penetration" and m]
    assert marked_before                                     # markers were set at turn ends
    for t, p, _, m, _ in seen:
        if p == "initial_segment" and t > start:
            assert not m, t


def test_rule_4_4_surrender_phase_ends_each_turn(hercules):
    """Rule 4.4 / 4.41: the end of turn follows the Allied Penetration Phase:
    every turn's event log ends with exactly one surrender roll, and at the
    end of each Allied Penetration Phase the last surrender roll made is the
    one of the turn before."""
    g, seen, start = hercules
    rows = g.events.rows
    roll_of = {r["turn"]: int(r["dice"]) for r in rows if r["action"] == "surrender roll"}
    at_pen = [(t, v) for t, p, v in g.rolls_seen if p == "allied_penetration" and t > start]
    assert len(at_pen) >= 7
    assert all(v == roll_of[t - 1] for t, v in at_pen), at_pen
    turns = sorted({r["turn"] for r in rows if r["phase"] != "setup"})
    assert len(turns) >= 8
    for t in turns:
        mine = [r for r in rows if r["turn"] == t and r["phase"] != "setup"]
        rolls = [i for i, r in enumerate(mine) if r["action"] == "surrender roll"]
        assert len(rolls) == 1, t
        assert all(r["phase"] == "surrender" for r in mine[rolls[0]:]), t
        assert all(r["phase"] != "surrender" for r in mine[:rolls[0]]), t


def _steps_in_order(rows, steps):
    """The ranks (index in ``steps``, a list of sets of logged actions) of the
    rows whose action is a step of the list, in log order."""
    rank = {a: i for i, group in enumerate(steps) for a in group}
    return [rank[r["action"]] for r in rows if r["action"] in rank]


def _phase_rows(g, phase):
    out: dict = {}
    for r in g.events.rows:
        if r["phase"] == phase:
            out.setdefault(r["turn"], []).append(r)
    return out


@pytest.mark.parametrize("phase, steps", [
    # 4.24 b strategic, c tactical, e infiltration, f airfields, g AA fire, h reform (the
    # breakdowns of 4.24 a are not compared: airborne battalions in the Disbandment Box
    # break down when they land at an airfield in step f, 16.1)
    ("axis_movement", [{"strategic move"}, {"tactical move"}, {"infiltration"},
                       {"airfield_landing"}, {"aa_fire"}, {"reform"}]),
    # 4.32 a breakdown, b strategic, c tactical, d infiltration, e reform
    ("allied_movement", [{"breakdown"}, {"strategic move"}, {"tactical move"}, {"infiltration"},
                         {"reform"}]),
    # 4.25 / 4.33 b bombardment, c attacks, d recovery
    ("axis_combat", [{"bombardment"}, {"attack", "advance", "retreat", "stand ground"},
                     {"recovery roll"}]),
    ("allied_combat", [{"bombardment"}, {"attack", "advance", "retreat", "stand ground"},
                       {"recovery roll"}]),
])
def test_rule_4_24_4_25_4_32_4_33_steps_in_printed_order(hercules, phase, steps):
    """Rules 4.24 and 4.32 (breakdown, strategic, tactical, infiltration,
    airfields, reform) and 4.25 and 4.33 (bombardments, attacks, recovery):
    within each phase of each turn the logged steps come in the printed
    order; across the game every step of the list was logged."""
    g, _, _ = hercules
    per_turn = _phase_rows(g, phase)
    assert per_turn
    for t, rows in per_turn.items():
        ranks = _steps_in_order(rows, steps)
        assert ranks == sorted(ranks), (t, ranks)
    logged = {r["action"] for rows in per_turn.values() for r in rows}
    assert len([grp for grp in steps if grp & logged]) >= min(3, len(steps) - 1)


def test_rule_4_22_landing_steps_before_the_first_wave_lands(hercules):
    """Rule 4.22 a-e: units go to the wave boxes, the warships are placed (first
    turn), warships and coastal guns exchange fire, the guns fire at the boxes,
    and only then does the First Wave land."""
    g, _, _ = hercules
    steps = [{"wave_box"}, {"warships_placed"}, {"warship_fire", "coastal_fire_ship", "warship_damaged"},
             {"coastal_fire_box"}, {"landing"}]
    per_turn = _phase_rows(g, "amphibious_landing")
    first = per_turn[0]
    assert [r["action"] for r in first if r["action"] == "warships_placed"] == ["warships_placed"]
    before_landing = set().union(*steps[:-1])
    landing_turns = 0
    for t, rows in per_turn.items():
        k = next((i for i, r in enumerate(rows) if r["action"] == "landing"), len(rows))
        ranks = _steps_in_order(rows[:k + 1], steps)
        assert ranks == sorted(ranks), (t, ranks)
        assert not [r["action"] for r in rows[k:] if r["action"] in before_landing], t
        landing_turns += k < len(rows)
    assert landing_turns
    assert all(r["phase"] != "amphibious_landing" or r["turn"] % 4 != NIGHT for r in g.events.rows)


def test_rule_4_23_cancellation_before_markers_before_sticks(hercules):
    """Rule 4.23 a-c: cancelled jumps are announced before the drop zone markers
    are placed, and the markers before any stick drops; never at noon or night."""
    g, _, _ = hercules
    steps = [{"jumps_cancelled"}, {"drop_zone_marker"}, {"stick_drop"}]
    per_turn = _phase_rows(g, "airborne_landing")
    assert per_turn and all(t % 4 not in (NOON, NIGHT) for t in per_turn)
    for t, rows in per_turn.items():
        ranks = _steps_in_order(rows, steps)
        assert ranks == sorted(ranks), (t, ranks)
    logged = {r["action"] for rows in per_turn.values() for r in rows}
    assert {"drop_zone_marker", "stick_drop"} <= logged


def test_rule_4_21_4_31_supply_status_each_status_phase(hercules):
    """Rules 4.21 a and 4.31 a-b: the supply status is set in every Status
    Phase except 29 June AM and noon (8.53), in the side's own Status Phase."""
    g, _, _ = hercules
    for phase, side in (("axis_status", "axis"), ("allied_status", "allied")):
        per_turn = _phase_rows(g, phase)
        sup = {t for t, rows in per_turn.items() if any(r["action"] == "supply" for r in rows)}
        played = {r["turn"] for r in g.events.rows if r["phase"] == "surrender"}
        assert sup == {t for t in played if t not in (0, 1)}, (phase, sup, played)
        assert all(r["side"] in (side, "") for rows in per_turn.values() for r in rows
                   if r["action"] == "supply")


def test_rule_4_42_turn_transition_advances_the_turn_and_records_rows_only_on_request():
    """Rule 4.42: the turn transition sets every unit upright (moved,
    strategic, attacked, fired, advanced, penetrated and leader uses cleared)
    and advances the turn marker by one; the per-turn result row is recorded
    only for a game asked to record turns (the batch's per_turn option)."""
    from malta_sim.iod.rules import organisation
    from tests.conftest import make, u
    g = make({"1612": ["allied.uk.8m", "allied.ldr.beak"]}, turn=5)
    s = g.state
    b = u("allied.uk.8m")
    s.moved[b] = s.strategic[b] = s.attacked[b] = s.fired[b] = s.advanced[b] = s.penetrated[b] = True
    s.leader_uses[u("allied.ldr.beak")] = 2
    organisation.turn_transition(g)
    assert int(s.turn[0]) == 6 and g.turn == 6
    assert not (s.moved.any() or s.strategic.any() or s.attacked.any() or s.fired.any() or s.advanced.any()
                or s.penetrated.any()) and not s.leader_uses.any()
    assert g.per_turn_rows == []
    g.record_turns = True
    organisation.turn_transition(g)
    assert [r["turn"] for r in g.per_turn_rows] == [6] and g.turn == 7
