"""The plain-Python user bot of experiments/user_bot_example.py runs in the engine."""

from malta_sim.play import play_games
from malta_sim.bots import make_policy, policy_names


def test_user_bot_registers_and_plays():
    import experiments.user_bot_example as ex
    assert "airfield_rush" in policy_names()
    assert isinstance(make_policy("airfield_rush", 0), ex.AirfieldRush)
    r = play_games("hercules", 2, [0], axis_policy="airfield_rush", allied_policy="allied:static",
                   check=True)
    assert r.games["winner"].iloc[0] in ("axis", "allied", "none")
