"""Bot parameter vectors and presets (malta_sim.bots.params / presets)."""

import numpy as np
import pytest

from malta_sim.errors import OptionError
from malta_sim.exact.combat import combat_distribution
from malta_sim.bots import make_policy, policy_names
from malta_sim.bots import params as P
from malta_sim.bots.axis import expected_losses
from malta_sim.bots.presets import PRESETS, preset_names, preset_vector

from tests.conftest import make, static


def test_defaults_within_ranges_and_slots_match_names():
    for side, table, idx in ((0, P.AXIS_PARAMS, P.AX), (1, P.ALLIED_PARAMS, P.AL)):
        v = P.defaults(side)
        assert v.dtype == np.float64 and v.shape == (len(table),)
        for i, p in enumerate(table):
            assert p.low <= p.default <= p.high, p.name
            assert idx[p.name] == i
    assert P.AXIS_PARAMS[P.AX_MIN_ODDS].name == "min_odds"
    assert P.AXIS_PARAMS[P.AX_STICK_FRACTION].name == "stick_fraction"
    assert P.ALLIED_PARAMS[P.AL_REINFORCE].name == "reinforce"


def test_unknown_parameter_lists_valid_names():
    with pytest.raises(OptionError, match="valid names: min_odds, min_gain"):
        P.axis_vector({"min_odd": 2})
    with pytest.raises(OptionError, match=r"\[-2, 8\]"):
        P.axis_vector({"min_odds": 12})
    with pytest.raises(OptionError, match="whole"):
        P.allied_vector({"min_odds": 1.5})
    with pytest.raises(OptionError, match="flag"):
        P.allied_vector({"reinforce": 0.5})
    with pytest.raises(OptionError, match="number"):
        P.axis_vector({"min_gain": "lots"})


def test_overrides_apply_on_top_of_preset():
    v = P.make_vector(0, {"min_gain": 1.25}, preset_vector("aggressive"))
    assert v[P.AX_MIN_GAIN] == 1.25 and v[P.AX_MIN_ODDS] == 1


def test_presets_registered_for_both_sides():
    names = policy_names()
    for n in PRESETS:
        assert n in names
    assert make_policy("axis:aggressive", 0).vec[P.AX_MIN_ODDS] == 1
    assert make_policy("allied:counterattack", 1, {"weak_stack": 3}).vec[P.AL_WEAK] == 3
    assert make_policy("random", 1).name == "random"
    with pytest.raises(OptionError):
        make_policy("counterattack", 0)          # an Allied bot for the Axis
    with pytest.raises(OptionError):
        make_policy("axis:balanced", 0, {"nosuch": 1})
    assert preset_names(0)[0] == "tuned" and "axis:solitaire" in preset_names(0)
    assert preset_names(1)[0] == "active" and "allied:static" in preset_names(1)


def test_scenarios_accept_presets():
    from malta_sim.games.registry import get_scenario
    import malta_sim.iod  # noqa: F401  (registers)
    for sc in ("intro", "hercules"):
        spec = get_scenario(sc)
        assert spec.axis_policies[0] == "tuned" and "axis:cautious" in spec.axis_policies
        assert "balanced" in spec.axis_policies
        assert spec.allied_policies[0] == "active" and "allied:counterattack" in spec.allied_policies


@pytest.mark.parametrize("att,dfn,line,fort", [(6, 3, 0, False), (4, 4, 0, True), (12, 2, 1, False),
                                               (3, 5, 0, False)])
def test_expected_losses_match_exact_distribution(att, dfn, line, fort):
    """The bot's forecast equals malta_sim.exact.combat_distribution (rules 9.3, 9.43, 9.94)
    when the step caps do not bind."""
    g = make({})
    charts = static().charts
    from malta_sim.iod.static import odds_level
    exact = combat_distribution(att, dfn, 0, line, fort, charts)
    mine = expected_losses(g, line, odds_level(att, dfn), fort, 99, 99)
    if exact["cancelled"]:
        assert mine is None
        return
    assert mine[0] == pytest.approx(exact["expected"]["attacker_steps"])
    assert mine[1] == pytest.approx(exact["expected"]["defender_steps"])


def test_describe_tables():
    assert "`min_odds`" in P.describe(0) and "`reserve_fraction`" in P.describe(1)


def test_compiled_attack_value_matches_python():
    """The numba attack test (parameter vector in, decision out) agrees with the
    Python forecast for every level of both lines."""
    from malta_sim.bots.axis import nb_attack_value
    g = make({})
    ch = static().charts
    vec = P.axis_vector()
    thr = np.array([P.AX_MIN_ODDS, P.AX_MIN_GAIN, P.AX_RISK, P.AX_RETREAT], np.int64)
    for line in (0, 1):
        for lv in range(-3, 9):
            for fort in (False, True):
                ok, gain = nb_attack_value(vec, thr, ch.crt, ch.line_cols, ch.col_level, line, lv,
                                           fort, 3, 4)
                e = expected_losses(g, line, lv, fort, 3, 4)
                if e is None:
                    assert not ok and gain == -np.inf
                    continue
                want = e[1] + vec[P.AX_RETREAT] * e[2] - vec[P.AX_RISK] * e[0]
                assert gain == pytest.approx(want)
                assert ok == (lv >= vec[P.AX_MIN_ODDS] and want >= vec[P.AX_MIN_GAIN])
