"""The Hercules studies in experiments/: the pinned Axis choices take effect
and a study script runs end to end at tiny N."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

EXP = Path(__file__).resolve().parents[2] / "experiments"


@pytest.fixture(scope="module")
def sc():
    sys.path.insert(0, str(EXP))
    import study_common

    if study_common.StudyPolicy is None:
        pytest.skip("the Island of Death bots are not in this build yet")
    try:
        from malta_sim.play import new_game

        new_game("hercules", 1, 0)
    except Exception as exc:  # engine not ready
        pytest.skip(f"the Island of Death engine cannot set up a game: {exc}")
    return study_common


def test_pinned_beach_zones_are_used(sc):
    """Rule 18.21: the study bot puts the 4th Division on West, the 20th on South."""
    from malta_sim.play import new_game

    g = new_game("hercules", 1, 0, axis_policy="study", event_log=True,
                 policy_params={"axis": {"beach_zones": ["West", "South"]}})
    setup = [r for r in g.events.rows if r["action"] == "hercules_setup"]
    assert setup and "4th=West" in setup[0]["result"] and "20th=South" in setup[0]["result"]


def test_study_bot_starts_from_the_default_axis_preset(sc):
    """The study bot is the package's default Axis preset (presets.DEFAULT_AXIS,
    read from the package) with the pinned choice on top: its parameter vector
    is the preset's vector, and a pinned choice leaves it unchanged."""
    import numpy as np

    from malta_sim.bots import make_policy, presets

    assert sc.BASE_BOT == presets.AXIS_NAMES[0]
    if presets.DEFAULT_AXIS in presets.AXIS_NAMES:
        assert sc.BASE_BOT == presets.DEFAULT_AXIS
    bot = make_policy("study", 0, {"drop_hex": "1313", "landing_delay": 2})
    assert bot.study == {"drop_hex": "1313", "landing_delay": 2}
    np.testing.assert_array_equal(bot.vec, presets.preset_vector(sc.BASE_BOT, 0))
    assert isinstance(bot, type(make_policy(sc.BASE_BOT, 0)))


def test_study_bot_other_presets(sc):
    """``base`` (--axis-base) starts the study bot from another Axis preset,
    and with_presets sets both sides for every arm (--axis-base, --allied)."""
    import numpy as np

    from malta_sim.bots import make_policy, presets

    bot = make_policy("study", 0, {"base": "balanced", "beach_zones": ["West", "West"]})
    assert bot.study == {"beach_zones": ["West", "West"]}
    np.testing.assert_array_equal(bot.vec, presets.preset_vector("balanced", 0))
    arms = sc.with_presets({"a": {}, "b": {"params": {"landing_delay": 2}}}, "axis:balanced", "allied:static")
    assert arms == {"a": {"params": {"base": "balanced"}, "allied_policy": "static"},
                    "b": {"params": {"landing_delay": 2, "base": "balanced"}, "allied_policy": "static"}}
    assert sc.with_presets({"a": {}}) == {"a": {}}


def test_invasion_timing_study_runs(sc, tmp_path):
    """End to end at one game an arm; the summary names the presets that played."""
    import invasion_timing

    from malta_sim.games.registry import get_scenario

    invasion_timing.main(["--games", "1", "--out", str(tmp_path)])
    text = (tmp_path / "summary.md").read_text()
    assert "| as planned |" in text and "| hold to 1 Jul AM |" in text
    assert f"`axis:{sc.BASE_BOT}`" in text
    assert f"`allied:{get_scenario('hercules').allied_policies[0]}`" in text
    assert (tmp_path / "surrender_dates.png").exists()


def test_ladder_pairs_each_preset_with_its_predecessor(tmp_path):
    """experiments/ladder.py: every rung is the paired comparison (common
    random numbers) of a preset with its predecessor against each opponent,
    the same numbers as :func:`paired_comparison` on those two arms; the
    frame written with --out gives the same table read back with --from."""
    sys.path.insert(0, str(EXP))
    import ladder

    from malta_sim.analysis.paired import paired_comparison

    games = ladder.play("hercules", 4, 3, 1, axis=("random", "balanced"), allied=("static",), echo=lambda *_: None)
    assert set(games["arm"]) == {"random vs static", "balanced vs static"}
    assert games.groupby("arm")["game"].apply(sorted).map(tuple).nunique() == 1   # the same games in every arm
    rungs = ladder.rung_table(games, "axis", ("random", "balanced"), ("static",))
    assert len(rungs) == 1
    r = rungs.iloc[0]
    ref = paired_comparison(games, "random vs static", "balanced vs static")
    assert (r.preset, r.predecessor, r.opponent, r.games) == ("balanced", "random", "static", 4)
    assert r.difference == pytest.approx(ref.difference) and r.p_value == pytest.approx(ref.mcnemar_pvalue)
    assert r.rate_preset == pytest.approx((games.loc[games["arm"] == "balanced vs static", "winner"] == "axis").mean())
    out = tmp_path / "ladder.parquet"
    assert ladder.main(["--games", "4", "--seed", "3", "--jobs", "1", "--axis", "random", "balanced",
                        "--allied", "static", "--out", str(out)]) == 0
    assert ladder.main(["--from", str(out), "--axis", "random", "balanced", "--allied", "static",
                        "--markdown"]) == 0


def test_blunder_table_reads_the_result_frame():
    """experiments/blunders.py: the figures are the means and shares of the
    result frame's blunder columns (a hand recount on a tiny batch)."""
    sys.path.insert(0, str(EXP))
    import blunders

    from malta_sim.batch import run_games

    df = run_games("hercules", 3, 5, axis_policy="random", allied_policy="static", n_jobs=1)
    f = blunders.indicators(df)
    assert f["games"] == 3
    assert f["axis_steps_lost_first_turn"] == pytest.approx(df["axis_steps_lost_first_turn"].mean())
    assert f["div20_ashore_share"] == pytest.approx((df["div20_first_ashore_turn"] >= 0).mean())
    b = df["axis_bombardments"].sum()
    if b:
        assert f["axis_bombardments_no_effect_share"] == pytest.approx(df["axis_bombardments_no_effect"].sum() / b)
    assert f["ended_first_day_low"] <= f["ended_first_day"] <= f["ended_first_day_high"]
    parts = sum(v for k, v in f.items() if k.startswith("axis_first_turn_"))
    assert parts == pytest.approx(f["axis_steps_lost_first_turn"])   # the causes add up
