"""Replay one game of a batch with its full event log and map pictures.

A game's result depends only on ``(seed, game index, scenario, policies,
options, data)`` (see :mod:`malta_sim.games.registry`), so game ``I`` of any
batch can be played again alone.  :func:`replay_game` calls the scenario's
``play_games`` for that one game with ``event_log=True`` and writes:

``events.csv``
    One row per logged event: ``game, turn, turn_name, phase, side, action,
    rule, hexes, units, dice, table_cell, result`` (turn = absolute game turn,
    0 = 29 June AM).
``result.json``
    The game's result row, exactly as the batch runner gives it.
``per_turn.csv``
    The game's per-turn frame, when the engine provides one.
``map_<date>.png``
    For Island of Death games, the map at the end of each day (after the
    night turn's surrender phase, rule 4.41) and at the end of the game:
    control, units, drop zone markers, beach boxes.  The pictures come from a
    second, turn-by-turn play of the same game through the engine's sequence
    of play; ``result.json`` records whether that play reached the same result
    (``maps_consistent``; the event log and row come from ``play_games``).
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import OptionError

#: Columns of ``events.csv`` (engine column ``cell`` is written as ``table_cell``).
EVENT_COLUMNS = ("game", "turn", "turn_name", "phase", "side", "action", "rule", "hexes", "units", "dice",
                 "table_cell", "result")


@dataclass
class Replay:
    """What :func:`replay_game` produced.

    Attributes
    ----------
    row : dict
        The result row (JSON types).
    events : pandas.DataFrame
        Event log with :data:`EVENT_COLUMNS` first.
    per_turn : pandas.DataFrame or None
    snapshots : list of dict
        Day-end states (see :func:`malta_sim.plots.plot_game_state`).
    files : list of str
        Files written (names inside ``out_dir``).
    maps_consistent : bool or None
        Whether the turn-by-turn play for the pictures reached the same row
        (None when no pictures were made).
    """

    row: dict
    events: pd.DataFrame
    per_turn: pd.DataFrame | None = None
    snapshots: list = field(default_factory=list)
    files: list = field(default_factory=list)
    maps_consistent: bool | None = None


def _json_value(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return None if not np.isfinite(v) else float(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    if isinstance(v, float) and not np.isfinite(v):
        return None
    if isinstance(v, np.ndarray):
        return [_json_value(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    return v


def row_to_json(row) -> dict:
    """A result row (``pandas.Series`` or dict) as a JSON-ready dict."""
    items = row.items() if isinstance(row, dict) else row.to_dict().items()
    return {str(k): _json_value(v) for k, v in items}


def _resolve(scenario, seed, axis_policy, allied_policy, options, data_dir, policy_params):
    # The batch runner's own validation, so defaults and option order match its rows.
    from ..batch import _validate

    return _validate(scenario, seed, axis_policy, allied_policy, options, data_dir, policy_params)


def batch_rows(games: pd.DataFrame, inp) -> pd.DataFrame:
    """Engine rows dressed as :func:`malta_sim.batch.run_games` dresses them:
    the id columns (seed, scenario, policies, options text, policy parameters
    text, data hash) in front and the same Arrow round trip of dtypes."""
    from ..batch import _normalise, _with_ids

    ids = {
        "seed": inp.seed,
        "scenario": inp.spec.name,
        "axis_policy": inp.axis_policy,
        "allied_policy": inp.allied_policy,
        "options": ",".join(inp.options) or "none",
        "policy_params": json.dumps(inp.policy_params, sort_keys=True, separators=(",", ":"))
        if inp.policy_params else "{}",
        "data_hash": inp.data_hash,
    }
    return _with_ids(_normalise(games.sort_values("game", kind="stable")), ids)


def replay_game(
    scenario: str,
    seed: int,
    game: int,
    *,
    axis_policy: str | None = None,
    allied_policy: str | None = None,
    options=(),
    data_dir=None,
    policy_params: dict | None = None,
    out_dir=None,
    maps: bool = True,
) -> Replay:
    """Play game ``game`` of a batch again with its event log (and map pictures).

    Parameters
    ----------
    scenario : str
        Registered scenario name.
    seed : int
        The batch's master seed.
    game : int
        Game index (>= 0) in the batch.
    axis_policy, allied_policy : str, optional
        Policies (default: the scenario's first, as in the batch).
    options : iterable of str
        Optional rules.
    data_dir : path, optional
        Game data folder (packaged data when None).
    policy_params : dict, optional
        Bot parameters, as in a sweep arm.
    out_dir : path, optional
        Where to write ``events.csv``, ``result.json``, ``per_turn.csv`` and
        the map PNGs; nothing is written when None.
    maps : bool
        Draw the day-end map pictures (Island of Death scenarios).

    Returns
    -------
    Replay

    Raises
    ------
    OptionError
        Unknown scenario, policy or option; negative seed or game index.
    """
    if isinstance(game, bool) or int(game) < 0:
        raise OptionError(f"--game must be an integer >= 0, got {game!r}")
    game = int(game)
    inp = _resolve(scenario, seed, axis_policy, allied_policy, options, data_dir, policy_params)
    fn = inp.spec.play_fn()
    res = fn(inp.spec.name, inp.seed, np.array([game], dtype=np.int64), axis_policy=inp.axis_policy,
             allied_policy=inp.allied_policy, options=tuple(inp.options), data_dir=inp.data_dir,
             per_turn=True, event_log=True, policy_params=inp.policy_params)
    rows = batch_rows(res.games, inp)
    row = row_to_json(rows.iloc[0])
    events = res.events if res.events is not None else pd.DataFrame(columns=list(EVENT_COLUMNS))
    events = events.rename(columns={"cell": "table_cell"})
    for c in EVENT_COLUMNS:
        if c not in events.columns:
            events[c] = game if c == "game" else ""
    events = events[list(EVENT_COLUMNS) + [c for c in events.columns if c not in EVENT_COLUMNS]]
    rep = Replay(row=row, events=events, per_turn=res.per_turn)

    if maps and inp.spec.game == "island_of_death":
        try:
            snaps, loop_row = _iod_day_end_snapshots(inp, game)
        except Exception as exc:  # engine internals not ready: keep events and row
            warnings.warn(f"no map pictures: {type(exc).__name__}: {exc}", stacklevel=2)
            snaps, loop_row = [], None
        if snaps:
            rep.snapshots = snaps
            rep.maps_consistent = loop_row is not None and all(
                str(loop_row.get(k)) == str(v) for k, v in row.items() if k in loop_row
            )
    if out_dir is not None:
        _write(rep, Path(out_dir), inp, game, data_dir)
    return rep


def _iod_day_end_snapshots(inp, game: int):
    """Play the game turn by turn through the engine's sequence; copy the state
    after each night turn (end of day, rule 4.41) and at game end."""
    from ..iod import sequence
    from ..iod.engine import game_row
    from ..play import new_game

    g = new_game(inp.spec.name, inp.seed, game, axis_policy=inp.axis_policy, allied_policy=inp.allied_policy,
                 options=tuple(inp.options), data_dir=inp.data_dir, event_log=False,
                 policy_params=inp.policy_params)
    snaps = [_snapshot(g, "set-up")]
    cap = 4 * 20
    n = 0
    while not bool(np.asarray(g.state.over).ravel()[0]) and n <= cap:
        t = int(np.asarray(g.state.turn).ravel()[0])
        sequence.play_turn(g)
        n += 1
        over = bool(np.asarray(g.state.over).ravel()[0])
        if t % 4 == 3 or over:
            snaps.append(_snapshot(g, "game end" if over else "day end", turn=t))
    loop_rows = batch_rows(pd.DataFrame([game_row(g, inp.axis_policy, inp.allied_policy)]), inp)
    return snaps, row_to_json(loop_rows.iloc[0])


def _first(a):
    a = np.asarray(a)
    return a[0] if a.ndim >= 2 else a


def _snapshot(g, when: str, turn: int | None = None) -> dict:
    from ..iod import state as st

    s = g.state
    static = g.static
    box = _first(s.box).astype(int)
    hexes = np.where(box == st.BOX_MAP, _first(s.hex).astype(int), -1)
    side = np.asarray(static.side).astype(int).ravel()
    boxes = {
        "Axis in Follow-up boxes": int(np.sum((box == st.BOX_FOLLOW_UP) & (side == 0))),
        "Axis in First/Second Wave boxes": int(np.sum(((box == st.BOX_FIRST_WAVE) | (box == st.BOX_SECOND_WAVE))
                                                      & (side == 0))),
        "Axis eliminated": int(np.sum((box == st.BOX_ELIMINATED) & (side == 0))),
        "Allied eliminated": int(np.sum((box == st.BOX_ELIMINATED) & (side == 1))),
    }
    t = int(_first(s.turn).ravel()[0]) if turn is None else turn
    notes = [
        f"steps lost: Axis {int(_first(s.axis_steps_lost).ravel()[0])}, "
        f"Allied {int(_first(s.allied_steps_lost).ravel()[0])}",
        f"surrender modifier {int(_first(s.surrender_modifier).ravel()[0])}",
    ]
    dz = getattr(s, "dz_hex", np.array([-1]))
    return {
        "when": when,
        "turn": t,
        "unit_hex": hexes,
        "unit_side": side,
        "unit_names": list(static.names),
        "control": _first(s.control).astype(int).copy(),
        "dz_hex": np.asarray(dz).astype(int).ravel().copy(),
        "boxes": boxes,
        "notes": notes,
    }


def _write(rep: Replay, out: Path, inp, game: int, data_dir) -> None:
    from ..analysis.frames import calendar_for

    cal = calendar_for(inp.spec.name)

    out.mkdir(parents=True, exist_ok=True)
    rep.events.to_csv(out / "events.csv", index=False)
    rep.files.append("events.csv")
    if rep.per_turn is not None:
        rep.per_turn.to_csv(out / "per_turn.csv", index=False)
        rep.files.append("per_turn.csv")
    if rep.snapshots:
        from ..loaders.iod_map import load_map
        from ..plots import plot_game_state

        m = load_map(data_dir)
        for snap in rep.snapshots:
            if snap["when"] == "set-up":
                name, label = "map_setup.png", "set-up"
            else:
                d = pd.Timestamp(cal.date_of(snap["turn"]))
                name = f"map_{d.strftime('%m%d')}" + ("_end" if snap["when"] == "game end" else "") + ".png"
                label = f"end of {cal.label(snap['turn'])}" + (" (game over)" if snap["when"] == "game end" else "")
            title = f"{inp.spec.name} seed {inp.seed} game {game}: {label}"
            plot_game_state(snap, out / name, title=title, map_data=m)
            rep.files.append(name)
    doc = dict(rep.row)
    (out / "result.json").write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n")
    meta = {"scenario": inp.spec.name, "seed": inp.seed, "game": game, "axis_policy": inp.axis_policy,
            "allied_policy": inp.allied_policy, "options": list(inp.options), "policy_params": inp.policy_params,
            "data_hash": inp.data_hash, "events": int(len(rep.events)), "maps_consistent": rep.maps_consistent,
            "files": rep.files + ["result.json", "replay.json"]}
    (out / "replay.json").write_text(json.dumps(meta, indent=2) + "\n")
    rep.files.extend(["result.json", "replay.json"])
