"""`malta-sim replay`: the replayed row equals the batch row; files written.

Uses a small stand-in engine (scenario ``analysis-fake``) obeying the registry
contract, plus the Island of Death engine when it can play a game.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from malta_sim.analysis.replay import EVENT_COLUMNS, replay_game
from malta_sim.batch import run_games
from malta_sim.cli import main
from malta_sim.errors import OptionError
from malta_sim.games.registry import GameBatchResult, ScenarioSpec, register
from malta_sim.rng import GameStreams

register(ScenarioSpec(name="analysis-fake", game="analysis_fake", title="Replay test double",
                      play="tests.analysis.test_replay:play_games", axis_policies=("attack", "hold"),
                      allied_policies=("defend",), options=("rainy",)))


def play_games(scenario, seed, games, *, axis_policy, allied_policy, options, data_dir,
               per_turn=False, event_log=False, policy_params=None):
    rows, turns, events = [], [], []
    for g in np.asarray(games, dtype=np.int64):
        g = int(g)
        s = GameStreams(seed, g)
        dice = s["combat"].integers(1, 7, size=10)
        end = int(dice.sum()) + (3 if "rainy" in options else 0)
        win = bool(dice[0] >= 4) and axis_policy == "attack"
        rows.append({"game": g, "seed": seed, "scenario": scenario, "axis_policy": axis_policy,
                     "allied_policy": allied_policy, "options": ",".join(options),
                     "winner": "axis" if win else "allied", "end_reason": "surrender" if win else "last_turn",
                     "end_turn": end, "end_date": f"turn {end}", "axis_steps_lost": int(dice[1] + dice[2]),
                     "first_airfield_turn": int(dice[3]) if dice[3] > 3 else -1})
        for t, d in enumerate(dice):
            events.append({"game": g, "turn": t, "turn_name": f"t{t}", "phase": "axis_combat", "side": "axis",
                           "action": "attack", "rule": "9.1", "hexes": "1210 1310", "units": "1/33",
                           "dice": str(int(d)), "cell": f"3:1/{int(d)}", "result": "DR"})
        if per_turn:
            turns.extend({"game": g, "turn": t} for t in range(end))
    return GameBatchResult(games=pd.DataFrame(rows), per_turn=pd.DataFrame(turns) if per_turn else None,
                           events=pd.DataFrame(events) if event_log else None)


def test_replay_row_equals_batch_row(tmp_path):
    batch = run_games("analysis-fake", 6, 42, axis_policy="attack", options=("rainy",))
    rep = replay_game("analysis-fake", 42, 4, axis_policy="attack", options=["rainy"], out_dir=tmp_path)
    got = json.loads((tmp_path / "result.json").read_text())
    want = json.loads(batch.iloc[4].to_json())
    assert got == want
    ev = pd.read_csv(tmp_path / "events.csv")
    assert list(ev.columns[: len(EVENT_COLUMNS)]) == list(EVENT_COLUMNS)
    assert len(ev) == 10 and ev["table_cell"].str.startswith("3:1/").all()
    assert (tmp_path / "per_turn.csv").exists()
    assert rep.maps_consistent is None  # not an Island of Death game: no pictures


def test_replay_cli(tmp_path):
    r = CliRunner().invoke(main, ["replay", "--scenario", "analysis-fake", "--seed", "3", "--game", "2",
                                  "--out", str(tmp_path / "g2")])
    assert r.exit_code == 0, r.output
    assert "game 2: winner" in r.output
    row = json.loads((tmp_path / "g2" / "result.json").read_text())
    assert row["game"] == 2 and row["axis_policy"] == "attack"  # the scenario's default policy
    bad = CliRunner().invoke(main, ["replay", "--scenario", "analysis-fake", "--seed", "3", "--game", "-1",
                                    "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and bad.output.startswith("error: --game")
    bad = CliRunner().invoke(main, ["replay", "--scenario", "analysis-fake", "--seed", "3", "--game", "1",
                                    "--option", "nope", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "nope" in bad.output


def test_replay_errors():
    with pytest.raises(OptionError):
        replay_game("no-such-scenario", 1, 0)
    with pytest.raises(OptionError):
        replay_game("analysis-fake", -5, 0)


def test_game_state_picture(tmp_path):
    from matplotlib.image import imread

    from malta_sim.hexgrid import IOD_GRID
    from malta_sim.plots import plot_game_state

    n = IOD_GRID.n_hexes
    control = np.full(n, 1, dtype=np.int8)
    control[IOD_GRID.index("1210")] = 0
    snap = {"turn": 3, "unit_hex": np.array([IOD_GRID.index("1210"), IOD_GRID.index("1210"),
                                             IOD_GRID.index("1311"), -1]),
            "unit_side": np.array([0, 0, 1, 1]), "unit_names": ["1/33", "2/33", "8M", "4B"],
            "control": control, "dz_hex": np.array([IOD_GRID.index("1211"), -1]),
            "boxes": {"Axis in Follow-up boxes": 12}, "notes": ["surrender modifier -2"]}
    p = plot_game_state(snap, tmp_path / "m.png", title="test")
    assert imread(p).shape[1] >= 1600          # unit names about 10 pixels high at this width


def test_game_state_picture_labels_and_legend(tmp_path, monkeypatch):
    """The replay picture names the top piece of each stack in its side's colour,
    legibly, without overlapping another label; its legend has the overlay's
    entries besides the map's."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from malta_sim.hexgrid import IOD_GRID
    from malta_sim.plots import plot_game_state
    from malta_sim.plots_map import ALLIED_COLOUR, AXIS_COLOUR

    kept = {}
    real_close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: kept.setdefault("fig", fig))
    hexes = ["1210", "1211", "1311", "1310", "1209", "1110", "1111", "1212"]
    snap = {"turn": 3, "unit_hex": np.array([IOD_GRID.index(h) for h in hexes]),
            "unit_side": np.array([0, 0, 1, 1, 0, 1, 0, 1]),
            "unit_names": [f"{'axis.it' if k % 2 == 0 else 'allied.uk'}.unit_{k}" for k in range(8)],
            "control": np.full(IOD_GRID.n_hexes, 1, dtype=np.int8), "dz_hex": np.array([-1])}
    plot_game_state(snap, tmp_path / "m.png", title="labels")
    fig = kept["fig"]
    try:
        ax = fig.axes[0]
        r = fig.canvas.get_renderer()
        units = [t for t in ax.texts if t.get_text().startswith("unit_")]
        assert len(units) == 8
        assert {to_hex(t.get_color()) for t in units} == {AXIS_COLOUR, ALLIED_COLOUR}
        assert min(t.get_fontsize() for t in units) * fig.dpi / 72 >= 9
        boxes = [t.get_window_extent(r) for t in ax.texts if t.get_text() and t.get_bbox_patch() is not None
                 and t.get_fontsize() < 12]
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        assert any("Axis stack" in x for x in labels) and any("drop zone marker" in x for x in labels)
    finally:
        real_close(fig)


def _iod_plays() -> bool:
    try:
        from malta_sim.play import new_game

        new_game("hercules", 3, 3)
        return True
    except Exception:
        return False


def test_replay_of_a_hercules_batch_game_matches_its_row(tmp_path):
    """Game 3 of seed 3 ends early (a short game keeps the test fast)."""
    if not _iod_plays():
        pytest.skip("the Island of Death engine cannot set up a game in this build yet")
    batch = run_games("hercules", 4, 3)
    rep = replay_game("hercules", 3, 3, out_dir=tmp_path, maps=True)
    assert json.loads((tmp_path / "result.json").read_text()) == json.loads(batch.iloc[3].to_json())
    assert rep.maps_consistent is True
    ev = pd.read_csv(tmp_path / "events.csv")
    assert len(ev) > 0 and set(ev["turn"]) <= set(range(int(batch.iloc[3]["end_turn"]) + 1))
    maps = [f for f in rep.files if f.startswith("map_")]
    assert maps[0] == "map_setup.png" and maps[-1].endswith("_end.png")
    assert all((tmp_path / f).stat().st_size > 10_000 for f in maps)
