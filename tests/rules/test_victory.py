"""Victory conditions (rule 20): the terms of 20.0, the tally of 20.1 and the results of
20.3; the terms of 20.0 against plain array expressions on random positions.
"""

from __future__ import annotations

import numpy as np

from malta_sim.iod import invasion as H
from malta_sim.iod.rules import amphibious, victory
from malta_sim.iod.state import ALLIED, AXIS, BOX_ELIMINATED, BOX_MAP, END_REASONS
from malta_sim.play import new_game

from tests.conftest import hercules_game, make, static, u
from tests.oracles import iod_rules as ref


def test_rule_20_0_terms_recount():
    g = make({"1711": ["axis.4.1_34"], "1809": ["axis.4.2_34"]}, turn=40)
    g.state.allied_steps_lost[0] = 17            # 20.1: 17 -> -1
    g.state.axis_steps_lost[0] = 18              # 20.2: 18 -> +2
    mod, terms = victory.surrender_modifier(g)
    assert terms["cities"] == -2
    assert terms["allied_steps"] == -1 and terms["axis_steps"] == 2
    assert terms["date"] == 4                    # day 10 = 9 July: +4
    g.state.box[static().formation_hq[4]] = BOX_ELIMINATED
    assert victory.surrender_modifier(g)[1]["axis_hqs"] == 2


def test_rule_20_3_results():
    g = make({"1711": ["axis.4.1_34"]}, turn=8)
    g.state.allied_steps_lost[0] = 9 * 20       # modifier far below -12: surrender certain
    victory.surrender_phase(g)
    assert g.state.over[0] and g.state.winner[0] == AXIS
    assert END_REASONS[g.state.end_reason[0]] == "surrender"
    g2 = make({"1711": ["axis.4.1_34"]}, turn=8)
    g2.state.axis_steps_lost[0] = 9 * 20
    victory.surrender_phase(g2)
    assert g2.state.winner[0] == ALLIED and END_REASONS[g2.state.end_reason[0]] == "invasion_suspended"
    g3 = make({"1711": ["axis.4.1_34"]}, turn=47)
    victory.surrender_phase(g3)
    assert g3.state.over[0]


def _surrender_at_total(total: int, seed: int = 3, static_data=None):
    """A constructed position whose surrender roll (rule 20.3) comes to
    ``total``: the game's own 2d6 for the roll is read from a twin game with the
    same streams, and the 20.1 / 20.2 step tallies dial the modifier to
    ``total - roll`` (nine steps per point).  ``static_data``: another data
    folder's static data (the packaged data's when None)."""
    from malta_sim.bots.random import RandomPolicy
    from malta_sim.iod.setup import constructed_game

    def position():
        if static_data is None:
            return make({"1711": ["axis.4.1_34"]}, turn=8, seed=seed)
        return constructed_game(static_data, {"1711": ["axis.4.1_34"]}, (RandomPolicy(0), RandomPolicy(1)),
                                turn=8, seed=seed)

    roll = position().dice2("surrender")
    g = position()
    base, _ = victory.surrender_modifier(g)
    need = total - roll - base
    if need < 0:
        g.state.allied_steps_lost[0] = 9 * -need                  # 20.1: -1 per nine
    else:
        g.state.axis_steps_lost[0] = 9 * need                     # 20.2: +1 per nine
    assert victory.surrender_modifier(g)[0] + roll == total
    victory.surrender_phase(g)
    assert int(g.state.last_surrender_roll[0]) == roll
    return g


def test_rule_20_3_results_at_their_limits():
    """Rule 20.3: a modified roll of 0 or less, Malta surrenders; 14 or more, the
    invasion is suspended; 1 to 13, play goes on (before the last turn)."""
    for total, over, winner, reason in ((0, True, AXIS, "surrender"), (-1, True, AXIS, "surrender"),
                                        (1, False, None, None), (13, False, None, None),
                                        (14, True, ALLIED, "invasion_suspended"),
                                        (15, True, ALLIED, "invasion_suspended")):
        g = _surrender_at_total(total)
        assert bool(g.state.over[0]) == over, total
        if over:
            assert g.state.winner[0] == winner and END_REASONS[g.state.end_reason[0]] == reason, total


def test_rule_20_3_results_come_from_the_data_folders_table(tmp_path):
    """Rule 20.3 is read from ``tables/surrender_results.csv``: a data folder
    whose table lets play go on up to 15 turns a modified 14 into no result,
    and ends the game at 16."""
    import shutil

    from malta_sim.iod.static import load_static
    from malta_sim.loaders.common import resolve_data_dir

    folder = tmp_path / "data"
    shutil.copytree(resolve_data_dir(None), folder)
    table = folder / "tables" / "surrender_results.csv"
    text = table.read_text()
    assert "1,13,continue" in text and "14,99,allied_wins" in text
    table.write_text(text.replace("1,13,continue", "1,15,continue").replace("14,99,allied_wins", "16,99,allied_wins"))
    other = load_static(str(folder))
    assert not _surrender_at_total(14, static_data=other).state.over[0]
    assert _surrender_at_total(14).state.over[0]                   # the printed table
    g = _surrender_at_total(16, static_data=other)
    assert g.state.over[0] and END_REASONS[g.state.end_reason[0]] == "invasion_suspended"


def test_first_airfield_turn_is_the_first_surrender_phase_with_a_new_airfield():
    """The per-game record of when the Axis first holds more airfields (rule
    20.0's airfield term) than at the start: not while the count is the
    start's, then the turn of the first surrender phase with one more, and it
    is not moved by later phases."""
    g = make({"1711": ["axis.4.1_34"]}, turn=8)
    s, t = g.state, static()
    s.allied_steps_lost[0] = 0
    start = g.scenario.start_airfields
    victory.surrender_phase(g)
    assert int(s.first_airfield_turn[0]) == -1 and not s.over[0]
    fields = [int(x) for x in np.flatnonzero(t.airfield & (s.control != AXIS))]
    assert fields, "an airfield the Axis does not hold"
    s.control[fields[0]] = AXIS
    assert victory.objective_counts(g)["airfields"] == start + 1
    s.axis_steps_lost[0] = 9 * 3                                   # keep the roll from ending the game
    victory.surrender_phase(g)
    assert int(s.first_airfield_turn[0]) == 8
    s.turn[0] = 9
    victory.surrender_phase(g)
    assert int(s.first_airfield_turn[0]) == 8


def test_first_airfield_turn_recorded_at_turn_0_is_kept():
    """Turn 0 (29 June AM, rule 4.0) is a turn like any other for the record: an airfield
    taken then is recorded as turn 0, and the next surrender phase leaves it there (the
    record is read as unset only below 0)."""
    g = make({"1711": ["axis.4.1_34"]}, turn=0)
    s, t = g.state, static()
    s.allied_steps_lost[0] = 0
    fields = [int(x) for x in np.flatnonzero(t.airfield & (s.control != AXIS))]
    s.control[fields[0]] = AXIS
    assert victory.objective_counts(g)["airfields"] == g.scenario.start_airfields + 1
    s.axis_steps_lost[0] = 9 * 3                                   # keep the roll from ending the game
    victory.surrender_phase(g)
    assert int(s.first_airfield_turn[0]) == 0 and not s.over[0]
    s.turn[0] = 1
    victory.surrender_phase(g)
    assert int(s.first_airfield_turn[0]) == 0


def test_rule_20_0_modifier_equals_table_recount():
    """The engine's modifier equals the data table's rule-20.0 recount."""
    from malta_sim.iod.invariants import recount_surrender_modifier
    g = new_game("intro", 1, 0, options=("no_invasion",))
    assert victory.surrender_modifier(g)[0] == recount_surrender_modifier(g)
    g2 = make({"1711": ["axis.4.1_34"], "1809": ["axis.4.2_34"], "1211": ["axis.4.3_34"],
               "1612": ["allied.uk.8m", "allied.uk.2rwk", "allied.uk.1_r"]}, turn=41)
    from malta_sim.iod.rules import organisation
    for x in ("allied.uk.8m", "allied.uk.2rwk", "allied.uk.1_r"):
        organisation.eliminate(g2, u(x))
    assert g2.state.allied_steps_lost[0] == 8
    assert victory.surrender_modifier(g2)[0] == recount_surrender_modifier(g2)


# ----------------------------------------------------------------- 20.0
def test_rule_20_0_beach_hexes_against_occupied_follow_up_boxes():
    g = hercules_game()
    amphibious.place_follow_up_boxes(g)
    inv, s = H.inv_static(g), g.state
    zones = {int(z) for z in s.division_zone[0] if z >= 0}
    expect = sum(int((s.control[inv.zone_beaches[z]] == ALLIED).sum()) for z in zones)
    assert victory.invasion_terms(g) == expect
    s.rn_result[0] = 5
    assert victory.invasion_terms(g) == expect + 1


def test_victory_terms_on_random_positions():
    """Rule 20.0: the objective counts, the Axis HQs out and the invasion's
    beach term equal the plain array expressions on random control, destroyed
    forts, boxes and slots."""
    from malta_sim.iod.state import BOX_ELIMINATED, BOX_FOLLOW_UP, BOX_TURN_TRACK

    g = new_game("hercules", 2, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    gen = np.random.default_rng(12)
    boxes = np.array([BOX_MAP, BOX_FOLLOW_UP, BOX_ELIMINATED, BOX_TURN_TRACK, 5], np.int8)
    seen = {"counts": 0, "hqs_out": 0, "terms": 0}
    for _ in range(40):
        s.control[:] = gen.integers(-1, 2, size=s.control.shape)
        s.fort_destroyed[:] = gen.random(s.fort_destroyed.shape) < 0.5
        s.box[:] = gen.choice(boxes, size=s.box.shape)
        s.box_slot[:] = gen.integers(-1, 5, size=s.box_slot.shape)
        s.rn_result[0] = int(gen.integers(0, 7))
        got = victory.objective_counts(g)
        assert got == ref.objective_counts(g)
        assert victory.axis_hqs_out(g) == ref.axis_hqs_out(g)
        assert victory.invasion_terms(g) == ref.invasion_terms(g)
        seen["counts"] += int(all(got.values()))
        seen["hqs_out"] += int(victory.axis_hqs_out(g) > 0)
        seen["terms"] += int(victory.invasion_terms(g) != 0)
    assert all(v > 0 for v in seen.values()), seen


# ----------------------------------------------------------------- 17.2 / 20.0 at their limits
def test_rule_17_2_weather_first_day_clear_and_roll_bands_at_their_limits():
    """Rule 17.2: the scenario's first day is Clear without a roll; later days 2d6, 8 Clear,
    9 and 10 Cloudy, 11 Rainy (each Rainy day counted); the day's air support follows (16.41:
    3, 1, 0 markers); the roll is logged."""
    from malta_sim.iod.state import CLEAR, CLOUDY, RAINY

    g = make({"1711": ["axis.4.1_34"]}, turn=8)
    s = g.state
    g.scenario.first_day = g.day
    s.weather[0], s.rainy_days[0], s.air_support_cut[0] = RAINY, 2, 0
    rolls = []
    g.dice2 = lambda tag: rolls.append(tag) or 12
    victory.weather(g)
    assert rolls == [] and int(s.weather[0]) == CLEAR and int(s.rainy_days[0]) == 2
    assert int(s.air_support_left[0]) == 3
    g.scenario.first_day = g.day - 1
    for r, w, rainy, air in ((8, CLEAR, 2, 3), (9, CLOUDY, 2, 1), (10, CLOUDY, 2, 1), (11, RAINY, 3, 0),
                             (2, CLEAR, 3, 3), (12, RAINY, 4, 0)):
        g.dice2 = lambda tag, r=r: r
        victory.weather(g)
        assert (int(s.weather[0]), int(s.rainy_days[0]), int(s.air_support_left[0])) == (w, rainy, air), r
        row = g.events.rows[-1]
        assert row["action"] == "weather" and row["result"] == victory.WEATHER_NAMES[w] and str(r) in str(row["dice"])


def test_rule_20_0_surrender_modifier_terms_at_their_limits(monkeypatch):
    """Rule 20.0 terms at their limits: every full four Axis towns -1, two destroyed forts
    -1 (one none), every nine Allied steps -1 and nine Axis steps +1, the date, and without
    the invasion modules the Royal Navy result (17.6: 4-5 +1, 6 +3, else 0); with them the
    invasion hook's terms."""
    g = make({"1711": ["axis.4.1_34"]}, turn=8)
    s = g.state
    counts = dict(cities=0, airfields=0, towns=0, forts_destroyed=0)
    monkeypatch.setattr(victory, "objective_counts", lambda game: dict(counts))
    monkeypatch.setattr(victory, "axis_hqs_out", lambda game: 0)

    def terms(**kw):
        counts.update({k: v for k, v in kw.items() if k in counts})
        s.allied_steps_lost[0] = kw.get("allied", 0)
        s.axis_steps_lost[0] = kw.get("axis", 0)
        s.rn_result[0] = kw.get("rn", 0)
        total, t = victory.surrender_modifier(g)
        assert total == sum(t.values())
        return t

    assert g.skip_invasion
    for towns, term in ((3, 0), (4, -1), (7, -1), (8, -2), (12, -3)):
        assert terms(towns=towns)["towns"] == term, towns
    for forts, term in ((0, 0), (1, 0), (2, -1), (3, -1)):
        assert terms(towns=0, forts_destroyed=forts)["forts"] == term, forts
    for n, term in ((8, 0), (9, 1), (17, 1), (18, 2)):
        t = terms(forts_destroyed=0, allied=n, axis=n)
        assert (t["allied_steps"], t["axis_steps"]) == (-term, term), n
    for rn, term in ((0, 0), (3, 0), (4, 1), (5, 1), (6, 3)):
        assert terms(rn=rn)["invasion"] == term, rn
    assert terms()["date"] == max(0, g.day - 6)
    g.skip_invasion = False
    monkeypatch.setattr(victory, "invasion_terms", lambda game: 7)
    assert terms(rn=6)["invasion"] == 7
