"""Victory (20), weather (17.2) and the Introductory Scenario's opening state (22.2, 22.29)."""

import numpy as np

from malta_sim.iod.rules import victory
from malta_sim.play import new_game
from malta_sim.iod.state import (ALLIED, AXIS, BOX_ELIMINATED, CLEAR, END_REASONS)

from tests.conftest import make, static, u


def test_rule_22_29_opening_surrender_modifier():
    """The Intro starts with 10 Allied steps (-1), two destroyed forts (-1), five
    Axis towns (-1) and 22 Axis steps (+2); Takali airfield is Axis (-1)."""
    g = new_game("intro", 1, 0, options=("no_invasion",))
    mod, terms = victory.surrender_modifier(g)
    assert terms["allied_steps"] == -1 and terms["axis_steps"] == 2
    assert terms["forts"] == -1
    c = victory.objective_counts(g)
    assert c["forts_destroyed"] == 2
    assert 4 <= c["towns"] <= 7 and terms["towns"] == -1      # five printed; our map: same band
    assert terms["airfields"] == -c["airfields"] and c["airfields"] >= 1
    assert terms["cities"] == 0 and terms["date"] == 0 and terms["axis_hqs"] == 0
    assert mod == sum(terms.values())
    assert g.state.turn[0] == 4 and g.state.weather[0] == CLEAR   # 30 June, first day Clear (17.2)


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


def test_rule_17_2_weather_bands():
    """2d6: 2-8 Clear, 9-10 Cloudy, 11-12 Rainy; over many days the rain
    frequency is near 3/36 (binomial bound, false-alarm rate < 1e-6)."""
    g = make({"1711": ["axis.4.1_34"]}, turn=8)
    g.scenario.first_day = 0
    counts = np.zeros(3, int)
    n = 600
    for _ in range(n):
        victory.weather(g)
        counts[g.state.weather[0]] += 1
    p = np.array([26, 7, 3]) / 36
    from scipy.stats import binom
    for k in range(3):
        lo, hi = binom.ppf(1e-7, n, p[k]), binom.ppf(1 - 1e-7, n, p[k])
        assert lo <= counts[k] <= hi
    assert g.state.air_support_left[0] in (0, 1, 3)               # 16.41


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
