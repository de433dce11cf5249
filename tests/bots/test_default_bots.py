"""The default land bots (``axis:balanced``, ``allied:static``) play legal games."""


from malta_sim.play import play_games
from malta_sim.bots import make_policy
from malta_sim.bots.simple import expected_edge

from tests.conftest import h, make, u


def test_bots_play_intro_with_invariants():
    r = play_games("intro", 21, [0, 1], axis_policy="axis:balanced",
                   allied_policy="allied:static", check=True)
    assert set(r.games["winner"]) <= {"axis", "allied"}
    assert (r.games["axis_policy"] == "axis:balanced").all()


def test_expected_edge_prefers_better_odds():
    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"], "1210": ["axis.4.2_34"]})
    one = expected_edge(g, 0, h("1311"), [u("axis.4.1_34")])
    two = expected_edge(g, 0, h("1311"), [u("axis.4.1_34"), u("axis.4.2_34")])
    assert two >= one


def test_policy_names_and_sides():
    assert make_policy("axis:balanced", 0).name == "balanced"
    assert make_policy("allied:static", 1).name == "static"
    import pytest
    from malta_sim.errors import OptionError
    with pytest.raises(OptionError):
        make_policy("allied:balanced", 0)
    with pytest.raises(OptionError):
        make_policy("nosuch", 0)
