"""Scripted bots (malta_sim.bots.axis / allied): decisions on constructed
positions and legal whole games."""

import pytest

from malta_sim.iod.rules import combat
from malta_sim.play import play_games
from malta_sim.bots import make_policy
from malta_sim.bots import params as P
from malta_sim.errors import OptionError

from tests.conftest import h, make, u


def _position():
    return make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"], "1210": ["axis.4.2_34"]})


def test_min_odds_threshold_gates_attacks():
    """Rule 9.3 a: the bot attacks only when the forecast clears its thresholds."""
    g = _position()
    opts = combat.attack_options(g, 0)
    assert h("1311") in opts
    keen = make_policy("axis:balanced", 0, {"min_odds": -2, "min_gain": -3})
    shy = make_policy("axis:balanced", 0, {"min_odds": 8})
    pick = keen.next_attack(g, opts)
    assert pick is not None and pick[0] == h("1311") and set(pick[1]) <= set(opts[h("1311")])
    assert shy.next_attack(g, opts) is None


def test_forecast_prefers_more_attackers():
    from malta_sim.bots.axis import Forecast
    g = _position()
    one = Forecast(g, 0, h("1311"), [u("axis.4.1_34")])
    two = Forecast(g, 0, h("1311"), [u("axis.4.1_34"), u("axis.4.2_34")])
    assert two.level() >= one.level()


def test_allied_switches():
    """Rule 17.42: every security company offered is absorbed (each unit
    once); 16.25 (dismantle) follows its flag."""
    g = _position()
    on = make_policy("allied:static", 1)
    assert on.absorb(g, [(1, 2), (1, 3)]) == [(1, 2)]
    with pytest.raises(OptionError):
        make_policy("allied:static", 1, {"absorb": 0})
    assert on.dismantle_strongpoints(g, [1, 2, 3, 4], 4) == []      # static: off
    ca = make_policy("allied:counterattack", 1)
    assert ca.vec[P.AL_DISMANTLE] == 1


def test_solitaire_choices():
    """Rule 21.11-21.12: the solitaire preset picks method a and every stick."""
    g = _position()
    b = make_policy("axis:solitaire", 0)
    assert b.solitaire_marker_method(g, 0) == "a"
    assert b.solitaire_n_sticks(g, 0, 5) == 5
    half = make_policy("axis:balanced", 0, {"stick_fraction": 0.5})
    assert half.solitaire_marker_method(g, 0) == "b" and half.solitaire_n_sticks(g, 0, 5) == 3


@pytest.mark.parametrize("scenario,axis,allied,options", [
    ("hercules", "axis:aggressive", "allied:counterattack", ()),
    ("hercules", "axis:balanced", "allied:static", ("variable_allied_placement",)),
    ("hercules", "axis:solitaire", "allied:counterattack", ("solitaire",)),
    ("hercules", "axis:cautious", "random", ()),
])
def test_presets_play_legal_games(scenario, axis, allied, options):
    """Whole games in validation mode (invariants each phase; an illegal answer
    would raise IllegalDecision)."""
    r = play_games(scenario, 5, [0], axis_policy=axis, allied_policy=allied, options=options,
                   check=True)
    assert r.games["winner"].iloc[0] in ("axis", "allied", "none")


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["intro", "hercules"])
def test_many_seeded_games_legal(scenario):
    """Twelve seeded games per preset pairing, validation mode on."""
    pairs = [("axis:balanced", "allied:static"), ("axis:aggressive", "allied:counterattack"),
             ("axis:cautious", "allied:static"), ("random", "allied:counterattack"),
             ("axis:balanced", "random")]
    for a, b in pairs:
        r = play_games(scenario, 123, range(12), axis_policy=a, allied_policy=b, check=True)
        assert len(r.games) == 12


def test_counterattack_reserve_and_garrison_values():
    """The counterattack preset keeps about a third of the mobile units in
    reserve; the static preset none.  Held victory cities outrank airfields,
    forts and towns as garrison hexes."""
    from malta_sim.play import new_game
    g = new_game("intro", 3, 0, axis_policy="axis:balanced", allied_policy="allied:counterattack")
    ca = g.policy(1)
    res = ca.reserve_units(g)
    assert len(res) > 0
    assert all(g.is_ground(x) and not g.is_artillery(x) for x in res)
    st_bot = make_policy("allied:static", 1)
    assert st_bot.reserve_units(g) == set()
    val = ca.garrison_values(g)
    vc = [int(x) for x in g.static.victory_cities if val[int(x)] > 0]
    if vc:
        assert val[vc[0]] >= val.max() - 3.0


@pytest.mark.slow
def test_penetration_groups_keep_a_leader():
    """Rule 10.32 regression: intro games 5 and 10 of seed 11 once made an
    aggressive penetration attempt without a unit next to its leader."""
    r = play_games("intro", 11, [5, 10], axis_policy="axis:aggressive", allied_policy="allied:static")
    assert len(r.games) == 2
