"""Every Allied bot parameter changes play: each is moved off the default
Allied preset's value and a few seeded Operation Hercules games are played on
common random numbers (same seed, same game indices, so the dice streams match
until a decision differs); some game's event log must differ from the
default's.  A parameter that changed no game would be a knob that does nothing
and would have to go (docs/policies.md)."""

from __future__ import annotations

import hashlib

import pytest

from malta_sim.bots import params as P
from malta_sim.bots.presets import PRESETS, preset_names
from malta_sim.errors import OptionError
from malta_sim.play import new_game, play_games

SEED = 11
DEFAULT = preset_names(1, prefixed=False)[0]

#: parameter -> (value off the default preset's, optional rules, games)
MOVES = {
    "min_odds": (4, (), 2),
    "min_gain": (1.5, (), 2),
    "risk_weight": (2.5, (), 2),
    "retreat_value": (1.5, (), 3),
    "reserve_fraction": (0.0, (), 2),
    "reserve_radius": (3, (), 2),
    "weak_stack": (30, (), 2),
    "stand_max_hits": (3, (), 3),
    "waters_edge": (0, (), 2),
    "dismantle": (0, (), 2),
    "place_radius": (4, ("variable_allied_placement",), 2),
    "w_retake": (0, (), 3),
    # the Axis bot keeps its HQs out of reach in Hercules; they are exposed in the intro
    "w_hq": (0, (), 2, "intro"),
    "reinforce": (0, (), 2),
    "beaches": (0, (), 2),
    "shore_up": (0, (), 2),
    "retake_empty": (0, (), 3),
    "stand_survive": (0, (), 4),
}


def _digests(options, games, params=None, scenario="hercules") -> list:
    r = play_games(scenario, SEED, range(games), axis_policy="axis:balanced",
                   allied_policy=f"allied:{DEFAULT}", options=options, event_log=True,
                   policy_params={"allied": params} if params else None)
    ev = r.events
    return [hashlib.sha256(ev[ev["game"] == g].drop(columns=["game"]).to_csv(index=False)
                           .encode()).hexdigest() for g in range(games)]


_BASE: dict = {}


def test_every_allied_parameter_is_moved():
    assert set(MOVES) == {p.name for p in P.ALLIED_PARAMS}
    base = P.make_vector(1, PRESETS[DEFAULT][1])
    for name, (value, *_rest) in MOVES.items():
        assert base[P.AL[name]] != value, name


@pytest.mark.parametrize("name", sorted(MOVES))
def test_allied_parameter_changes_some_game(name):
    value, options, games, *scen = MOVES[name]
    scenario = scen[0] if scen else "hercules"
    key = (options, games, scenario)
    if key not in _BASE:
        _BASE[key] = _digests(options, games, scenario=scenario)
    moved = _digests(options, games, {name: value}, scenario=scenario)
    assert moved != _BASE[key], f"allied {name}={value} changed none of {games} games"


def test_place_radius_without_variable_placement_is_refused():
    """Rule 22.39: ``place_radius`` acts only under Variable Allied Placement;
    given without that option it is refused, naming the option."""
    with pytest.raises(OptionError, match="variable_allied_placement"):
        new_game("hercules", 1, 0, axis_policy="balanced", allied_policy=DEFAULT,
                 policy_params={"allied": {"place_radius": 2}})
    with pytest.raises(OptionError, match="place_radius"):
        play_games("hercules", 1, [0], axis_policy="balanced", allied_policy=DEFAULT,
                   policy_params={"allied": {"place_radius": 2}})
    new_game("hercules", 1, 0, axis_policy="balanced", allied_policy=DEFAULT,
             options=("variable_allied_placement",), policy_params={"allied": {"place_radius": 2}})
