"""Tune a bot's parameter vector: ``malta-sim tune``.

The search runs over one side's parameter vector (:mod:`malta_sim.bots.params`:
every slot's range and kind come from its :class:`~malta_sim.bots.params.Param`)
with optuna's TPE sampler.  Every candidate plays the *same* games (indices
``0 .. games-1`` under one seed: common random numbers) against a fixed
opponent, so candidates differ only by their decisions, never by their dice;
its score is the tuned side's win rate (``winner`` column: a game has no draw).
The starting preset's own vector is the first trial, so the best found is
never worse than the start on these games.

``rounds > 1`` alternates best responses: round 1 tunes ``side`` against the
opponent preset, round 2 tunes the other side (from the opponent preset)
against round 1's best, round 3 the first side again against round 2's best,
and so on.

Resuming: the trials live in an optuna journal file (``tune.journal`` in the
checkpoint folder, with ``manifest.json`` recording the inputs).  Each trial's
candidate is drawn by a sampler seeded from ``(seed, round, finished trials)``,
so a run interrupted and run again asks the same candidates as one that was
never interrupted (an interrupted trial is played again with its candidate).

The number of trials is not part of the checkpoint's inputs: the same
command with more ``--trials`` goes on from the trials already finished and
ends where a run asked for that many from the start would.

The best vector is then checked where it was not chosen: start and best play
``validate_games`` fresh games (another seed) against the same opponent, and
:func:`malta_sim.analysis.paired.paired_comparison` gives the paired
difference of win rates (Tango's interval, McNemar's test).  The in-sample
figure (on the tuning games) is reported too; it flatters the best candidate,
which was picked for doing well on exactly those games.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import os
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from . import __version__
from .analysis.paired import paired_comparison, tango_paired_interval
from .batch import Arm, Sweep, _check_int, _validate, run_games, run_sweep
from .bots import params as P
from .bots.presets import preset_names, preset_vector
from .errors import OptionError
from .games.registry import get_scenario

SIDES = ("axis", "allied")
_MANIFEST = "manifest.json"
_JOURNAL = "tune.journal"


@dataclass
class RoundResult:
    """What one round of the search found.

    Attributes
    ----------
    round : int
        1-based.
    side : str
        ``"axis"`` or ``"allied"``: the side tuned.
    start : str
        Preset the tuned side started from.
    start_params : dict
        Overrides of the start (empty in the first round of a side; the side's
        best so far in later rounds).
    opponent : str
        Opponent preset.
    opponent_params : dict
        Overrides of the opponent (its best vector from an earlier round).
    trials : pandas.DataFrame
        One row per finished trial: ``trial``, ``rate`` (win rate of the tuned
        side, float), ``wins``, ``games`` (int) and one column per searched
        parameter.
    best : dict
        ``{name: value}`` of the best trial (highest rate; the earliest on ties).
    best_rate, start_rate : float
        Win rates on the tuning games.
    in_sample : dict
        Paired comparison start -> best on the tuning games: ``difference``,
        ``low``, ``high`` (Tango), ``start_only``, ``best_only``, ``games``.
    """

    round: int
    side: str
    start: str
    start_params: dict
    opponent: str
    opponent_params: dict
    trials: pd.DataFrame
    best: dict
    best_rate: float
    start_rate: float
    in_sample: dict


@dataclass
class TuneResult:
    """Result of :func:`tune`: the rounds and, per side tuned, its validation."""

    scenario: str
    seed: int
    games: int
    rounds: list
    best: dict                      # side -> {"start": preset, "params": full vector dict}
    validation: dict = field(default_factory=dict)   # side -> PairedResult.to_dict() plus opponent

    def trials_frame(self) -> pd.DataFrame:
        """Every trial of every round: ``round``, ``side``, then the trial columns."""
        frames = [r.trials.assign(round=r.round, side=r.side) for r in self.rounds]
        df = pd.concat(frames, ignore_index=True)
        front = ["round", "side"]
        return df[front + [c for c in df.columns if c not in front]]


# --------------------------------------------------------------------------- checks


def _side_index(side: str) -> int:
    if side not in SIDES:
        raise OptionError(f"--side must be one of: {', '.join(SIDES)}; got {side!r}")
    return SIDES.index(side)


def _check_preset(option: str, name: str, side: int, scenario: str) -> str:
    bare = name.split(":", 1)[1] if name.startswith(f"{SIDES[side]}:") else name
    valid = [n for n in preset_names(side, prefixed=False) if n != "random"]
    if bare not in valid:
        raise OptionError(f"{option}: unknown {SIDES[side]} preset {name!r}; choose one of: {', '.join(valid)}")
    spec = get_scenario(scenario)
    if not spec.play.startswith("malta_sim.play"):
        raise OptionError(f"scenario {scenario!r} is not played by the parameterised bots; tune needs "
                          "an Island of Death scenario (intro, hercules)")
    return bare


def _idle_params(side: int, options: Sequence[str]) -> set[str]:
    """Names of ``side``'s parameters that the optional rules ``options``
    leave without effect (:func:`malta_sim.bots.presets.option_warnings`,
    :func:`malta_sim.bots.params.check_allied_options`)."""
    from .bots.presets import option_warnings

    if side == 0:
        return {p.name for p in P.AXIS_PARAMS if option_warnings("balanced", 0, {p.name: p.default}, options)}
    return set() if "variable_allied_placement" in tuple(options or ()) else {"place_radius"}


def search_params(side: int, names: Sequence[str] | None = None, options: Sequence[str] = ()) -> list[P.Param]:
    """The parameters searched for ``side``.

    Parameters
    ----------
    side : int
        0 Axis, 1 Allied.
    names : sequence of str, optional
        Parameter names; default every slot of the side's vector that the
        optional rules ``options`` let act (not ``solitaire_method_a``
        without ``solitaire``, rule 21.11; not ``place_radius`` without
        ``variable_allied_placement``, 22.39).
    options : sequence of str
        The optional rules of the games.

    Returns
    -------
    list of Param

    Raises
    ------
    OptionError
        An unknown name (the message lists the valid ones) or a name twice.
    """
    table = P.param_table(side)
    if not names:
        return [p for p in table if p.name not in _idle_params(side, options)]
    by = {p.name: p for p in table}
    out = []
    for n in names:
        if n not in by:
            raise OptionError(f"--params: unknown {SIDES[side]} bot parameter {n!r}; valid names: "
                              f"{', '.join(by)}")
        if by[n] in out:
            raise OptionError(f"--params: {n!r} named twice")
        out.append(by[n])
    return out


def _suggest(trial, p: P.Param) -> float:
    if p.kind == "flag":
        return float(trial.suggest_categorical(p.name, [0, 1]))
    if p.kind == "int":
        return float(trial.suggest_int(p.name, int(p.low), int(p.high)))
    return float(trial.suggest_float(p.name, float(p.low), float(p.high)))


def _enqueue_value(p: P.Param, v: float):
    return int(round(v)) if p.kind in ("flag", "int") else float(v)


# --------------------------------------------------------------------------- scoring


def _play(scenario, side, games, seed, start, over, opponent, opp_over, options, data_dir, n_jobs,
          progress=False) -> np.ndarray:
    """bool[games]: did the tuned side win game g (games 0..games-1 of ``seed``)."""
    pols = [None, None]
    pols[side], pols[1 - side] = start, opponent
    pp = {}
    if over:
        pp[SIDES[side]] = dict(over)
    if opp_over:
        pp[SIDES[1 - side]] = dict(opp_over)
    df = run_games(scenario, games, seed, axis_policy=pols[0], allied_policy=pols[1], options=options,
                   n_jobs=n_jobs, policy_params=pp or None, data_dir=data_dir, progress=progress)
    return df.sort_values("game")["winner"].astype(str).eq(SIDES[side]).to_numpy()


def _bits(w: np.ndarray) -> str:
    return "".join("1" if x else "0" for x in w)


def _unbits(s: str) -> np.ndarray:
    return np.frombuffer(s.encode(), dtype=np.uint8) == ord("1")


def _paired_bits(a: np.ndarray, b: np.ndarray, alpha: float = 0.05) -> dict:
    n10 = int(np.sum(a & ~b))
    n01 = int(np.sum(~a & b))
    lo, hi = tango_paired_interval(n10, n01, len(a), alpha)
    return {"games": int(len(a)), "start_rate": float(a.mean()), "best_rate": float(b.mean()),
            "difference": float(b.mean() - a.mean()), "low": float(lo), "high": float(hi),
            "start_only": n10, "best_only": n01}


# --------------------------------------------------------------------------- checkpoint


def _open_storage(folder: Path, key: dict):
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    if folder.exists() and not folder.is_dir():
        raise OptionError(f"--checkpoint {str(folder)!r} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OptionError(f"--checkpoint {str(folder)!r}: cannot create folder ({exc.strerror})") from None
    man = folder / _MANIFEST
    if man.is_file():
        try:
            old = json.loads(man.read_text())["inputs"]
        except (ValueError, KeyError, TypeError):
            raise OptionError(f"--checkpoint {str(folder)!r}: {_MANIFEST} is unreadable; use a new folder") from None
        if old != key:
            diffs = [f"{k} {json.dumps(key.get(k))} here vs {json.dumps(old.get(k))} in checkpoint"
                     for k in sorted(set(key) | set(old)) if key.get(k) != old.get(k)]
            from .batch import CheckpointMismatch

            raise CheckpointMismatch(str(folder), diffs)
    else:
        stray = [p.name for p in folder.iterdir() if not p.name.startswith(".")]
        if stray:
            raise OptionError(f"--checkpoint {str(folder)!r} is not empty and has no {_MANIFEST} "
                              "(not a malta_sim tune checkpoint); use a new or empty folder")
        man.write_text(json.dumps({"format": 1, "inputs": key}, indent=2, sort_keys=True) + "\n")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return JournalStorage(JournalFileBackend(str(folder / _JOURNAL)))


def _mark_interrupt(exc: BaseException, storage, folder: Path | None, total: int) -> None:
    """Tell the command line how many trials an interrupted tune kept, and where."""
    from optuna.trial import TrialState

    done = sum(1 for st in storage.get_all_studies()
               for t in storage.get_all_trials(storage.get_study_id_from_name(st.study_name), deepcopy=False, states=(TrialState.COMPLETE,)))
    exc.malta_sim_saved = (done, total, str(folder) if folder is not None else None)
    exc.malta_sim_unit = "trials"


def _sampler_seed(seed: int, rnd: int, done: int) -> int:
    h = hashlib.sha256(f"malta-sim-tune/{seed}/{rnd}/{done}".encode()).digest()
    return int.from_bytes(h[:4], "little")


# --------------------------------------------------------------------------- the search


def tune(
    scenario: str,
    *,
    side: str = "axis",
    start: str | None = None,
    opponent: str | None = None,
    params: Sequence[str] | None = None,
    trials: int = 20,
    games: int = 50,
    seed: int = 0,
    rounds: int = 1,
    options: Sequence[str] = (),
    validate_games: int | None = None,
    validate_seed: int | None = None,
    checkpoint: str | os.PathLike | None = None,
    data_dir: str | os.PathLike | None = None,
    n_jobs: int = 1,
    startup_trials: int | None = None,
    progress: bool = False,
    alpha: float = 0.05,
) -> TuneResult:
    """Search a side's bot parameters against a fixed opponent (or by alternating best responses).

    Parameters
    ----------
    scenario : str
        ``intro`` or ``hercules`` (the parameterised bots).
    side : {"axis", "allied"}
        The side tuned (in round 1).
    start : str, optional
        Preset the search starts from (its vector is trial 0); default the
        side's default preset.
    opponent : str, optional
        The other side's preset; default its default preset.
    params : sequence of str, optional
        Parameters searched (names of :mod:`malta_sim.bots.params`); default
        every slot.  In rounds that tune the other side, every slot of that side.
    trials : int
        Trials per round (>= 1), the start included.
    games : int
        Games per trial (>= 1): indices ``0 .. games-1`` under ``seed``.
    seed : int
        Master seed of the tuning games; also seeds the sampler.
    rounds : int
        1: a best response to ``opponent``; more: alternate the sides.
    options : sequence of str
        Optional rules of every game.
    validate_games : int, optional
        Fresh games on which start and best are compared, paired; default
        ``2 * games``; 0 skips the check.
    validate_seed : int, optional
        Seed of those games; default ``seed + 1``.
    checkpoint : path, optional
        Folder of the journal and the validation games; a run with the same
        inputs resumes there.  None: nothing is kept (an in-memory study).
    data_dir : path, optional
        Game-data folder.
    n_jobs : int
        Worker processes for each trial's games (results never depend on it).
    startup_trials : int, optional
        Random trials before TPE models the results; default
        ``max(2, trials // 3)``.
    progress : bool
        A progress bar over trials (stderr).
    alpha : float
        1 - confidence level of the paired intervals.

    Returns
    -------
    TuneResult

    Raises
    ------
    OptionError
        Unknown scenario, side, preset, parameter or option; a bad count or
        seed; a checkpoint made with other inputs.
    """
    import optuna
    from optuna.trial import TrialState

    s0 = _side_index(side)
    if not isinstance(scenario, str):
        raise OptionError(f"scenario must be a name (str), got {scenario!r}")
    spec = get_scenario(scenario)
    start = _check_preset("--start", start or preset_names(s0, prefixed=False)[0], s0, spec.name)
    opponent = _check_preset("--opponent", opponent or preset_names(1 - s0, prefixed=False)[0], 1 - s0, spec.name)
    trials = _check_int("--trials", trials, 1)
    games = _check_int("--games", games, 1)
    seed = _check_int("--seed", seed, 0, 2**63 - 1)
    rounds = _check_int("--rounds", rounds, 1)
    validate_games = 2 * games if validate_games is None else _check_int("--validate-games", validate_games, 0)
    validate_seed = seed + 1 if validate_seed is None else _check_int("--validate-seed", validate_seed, 0, 2**63 - 1)
    startup = max(2, trials // 3) if startup_trials is None else _check_int("--startup-trials", startup_trials, 0)
    # validates scenario, options and data folder once, before any game
    run_inputs = _validate(spec.name, seed, start if s0 == 0 else opponent,
                           opponent if s0 == 0 else start, options, data_dir, None)
    options = list(run_inputs.options)
    space0 = search_params(s0, params, options)
    key = {"scenario": spec.name, "side": SIDES[s0], "start": start, "opponent": opponent,
           "params": [p.name for p in space0], "games": games, "seed": seed, "rounds": rounds,
           "options": options, "startup_trials": startup, "validate_games": validate_games,
           "validate_seed": validate_seed, "data_hash": run_inputs.data_hash, "package_version": __version__,
           "presets": {SIDES[s0]: preset_vector(start, s0).tolist(),
                       SIDES[1 - s0]: preset_vector(opponent, 1 - s0).tolist()}}
    folder = Path(checkpoint) if checkpoint is not None else None
    storage = _open_storage(folder, key) if folder is not None else optuna.storages.InMemoryStorage()

    current = {s0: (start, {}), 1 - s0: (opponent, {})}      # side -> (preset, overrides)
    first_start = {s0: start, 1 - s0: opponent}
    last_opponent: dict = {}
    results: list[RoundResult] = []
    for rnd in range(1, rounds + 1):
        sd = s0 if rnd % 2 == 1 else 1 - s0
        space = space0 if sd == s0 else search_params(sd, None, options)
        base_name, base_over = current[sd]
        opp_name, opp_over = current[1 - sd]
        base_vec = P.make_vector(sd, base_over, preset_vector(base_name, sd))
        # named by what the round starts from and plays against, so a round whose opponent
        # changed (more trials in an earlier round) starts afresh
        tag = hashlib.sha256(json.dumps([base_name, base_over, opp_name, opp_over], sort_keys=True)
                             .encode()).hexdigest()[:12]
        study = optuna.create_study(study_name=f"round-{rnd}-{SIDES[sd]}-{tag}", storage=storage,
                                    direction="maximize", load_if_exists=True)
        # trials left running by an interrupted run: closed, and their candidates asked again
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.WAITING)):
            if t.state == TrialState.RUNNING:
                study.tell(t.number, state=TrialState.FAIL)
                study.enqueue_trial(t.params, skip_if_exists=False)
        if not study.get_trials(deepcopy=False):
            study.enqueue_trial({p.name: _enqueue_value(p, base_vec[P.param_table(sd).index(p)]) for p in space})
        done = lambda: study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))  # noqa: E731
        from .batch import _tqdm_class

        bar = _tqdm_class()(total=trials, initial=min(len(done()), trials), unit="trial", file=sys.stderr,
                            desc=f"round {rnd}: {SIDES[sd]} vs {opp_name}", disable=not progress,
                            dynamic_ncols=True)
        try:
            while len(done()) < trials:
                n_done = len(done())
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                    study.sampler = optuna.samplers.TPESampler(seed=_sampler_seed(seed, rnd, n_done),
                                                               n_startup_trials=startup, multivariate=True)
                try:
                    trial = study.ask()
                except KeyboardInterrupt as exc:
                    _mark_interrupt(exc, storage, folder, trials * rounds)
                    raise
                over = {p.name: _suggest(trial, p) for p in space}
                over_full = dict(base_over)
                over_full.update(over)
                try:
                    wins = _play(spec.name, sd, games, seed, base_name, over_full, opp_name, opp_over, options,
                                 data_dir, n_jobs)
                except KeyboardInterrupt as exc:
                    _mark_interrupt(exc, storage, folder, trials * rounds)
                    raise
                trial.set_user_attr("wins", _bits(wins))
                study.tell(trial, float(wins.mean()))
                best = study.best_trial
                bar.update(1)
                bar.set_postfix_str(f"trial {trial.number}: {100 * wins.mean():.1f}%, best {100 * best.value:.1f}%"
                                    f" (trial {best.number})")
        finally:
            bar.close()
        fin = sorted(done(), key=lambda t: t.number)[:trials]     # a run with more trials may have left more
        rows = [{"trial": i, "rate": t.value, "wins": int(_unbits(t.user_attrs["wins"]).sum()),
                 "games": games, **{p.name: float(t.params[p.name]) for p in space}} for i, t in enumerate(fin)]
        frame = pd.DataFrame(rows)
        best_t = max(fin, key=lambda t: (t.value, -t.number))
        start_t = fin[0]
        best = {p.name: float(best_t.params[p.name]) for p in space}
        in_sample = _paired_bits(_unbits(start_t.user_attrs["wins"]), _unbits(best_t.user_attrs["wins"]), alpha)
        results.append(RoundResult(rnd, SIDES[sd], base_name, dict(base_over), opp_name, dict(opp_over), frame,
                                   best, float(best_t.value), float(start_t.value), in_sample))
        new_over = dict(base_over)
        new_over.update(best)
        current[sd] = (base_name, new_over)
        last_opponent[sd] = (opp_name, dict(opp_over))

    best_out = {}
    for sd, (name, over) in current.items():
        if sd not in last_opponent:
            continue
        vec = P.make_vector(sd, over, preset_vector(name, sd))
        best_out[SIDES[sd]] = {"start": first_start[sd],
                               "params": {p.name: float(v) for p, v in zip(P.param_table(sd), vec)},
                               "overrides": over}
    res = TuneResult(spec.name, seed, games, results, best_out)
    if validate_games:
        for sd in sorted(last_opponent):
            res.validation[SIDES[sd]] = _validate_best(spec.name, sd, first_start[sd], current[sd][1],
                                                       last_opponent[sd], validate_games, validate_seed, options,
                                                       data_dir, n_jobs, folder, progress, alpha)
    return res


def _validate_best(scenario, sd, start, over, opp, n, vseed, options, data_dir, n_jobs, folder, progress,
                   alpha) -> dict:
    """Start vs tuned on fresh games (paired), against the opponent of the side's last round."""
    opp_name, opp_over = opp
    pols = {SIDES[sd]: start, SIDES[1 - sd]: opp_name}
    arms = []
    for arm, o in (("start", {}), ("tuned", over)):
        pp = {}
        if o:
            pp[SIDES[sd]] = dict(o)
        if opp_over:
            pp[SIDES[1 - sd]] = dict(opp_over)
        arms.append(Arm(name=arm, axis_policy=pols["axis"], allied_policy=pols["allied"], options=tuple(options),
                        policy_params=pp or None))
    sw = Sweep(scenario=scenario, seed=vseed, arms=tuple(arms), source="tune validation")
    ck = (folder / f"validate-{SIDES[sd]}") if folder is not None else None
    df = run_sweep(sw, n, checkpoint=ck, n_jobs=n_jobs, data_dir=data_dir, progress=progress)
    df["allied_win"] = df["winner"].astype(str).eq("allied")
    r = paired_comparison(df, "start", "tuned", outcome="axis_win" if sd == 0 else "allied_win", alpha=alpha)
    d = r.to_dict()
    d.pop("table")
    d.update({"seed": vseed, "opponent": opp_name, "opponent_params": opp_over})
    return d


# --------------------------------------------------------------------------- reporting and presets


def _fmt(v: float) -> str:
    return f"{v:g}"


def format_tune(res: TuneResult) -> str:
    """Plain-text report of a tune: per round the best vector (changed slots)
    and the in-sample paired figure; per side the validation on fresh games."""
    L = []
    for r in res.rounds:
        opp = r.opponent + (" (tuned in an earlier round)" if r.opponent_params else "")
        L.append(f"round {r.round}: {r.side} from {r.start} against {opp}, {len(r.trials)} trials of "
                 f"{res.games} games (seed {res.seed})")
        ch = {k: v for k, v in r.best.items()}
        L.append("  best vector: " + ", ".join(f"{k}={_fmt(v)}" for k, v in ch.items()))
        s = r.in_sample
        L.append(f"  on the tuning games: {100 * s['start_rate']:.1f}% -> {100 * s['best_rate']:.1f}% win rate, "
                 f"paired difference {100 * s['difference']:+.1f} points ({100 * s['low']:+.1f} to "
                 f"{100 * s['high']:+.1f}; {s['start_only']} games won by the start only, {s['best_only']} by "
                 "the best only) -- chosen on these games, so flattering")
    for side, v in res.validation.items():
        L.append(f"validation ({side}, {v['games']} fresh games, seed {v['seed']}, against {v['opponent']}): "
                 f"start {100 * v['rate_a']:.1f}% -> tuned {100 * v['rate_b']:.1f}%, paired difference "
                 f"{100 * v['difference']:+.1f} points ({100 * (1 - 0.05):.0f}% Tango interval "
                 f"{100 * v['low']:+.1f} to {100 * v['high']:+.1f}); {v['a_only']} games won by the start only, "
                 f"{v['b_only']} by the tuned only; McNemar p = {v['mcnemar_pvalue']:.3g}")
    return "\n".join(L)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return json.dumps(str(v))
        r = repr(float(v))
        return r if any(c in r for c in ".en") else r + ".0"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    if v is None:
        return '""'
    return json.dumps(str(v))


def _toml_key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)


HEADER = ("# Tuned bot presets of malta_sim, played by name (axis:NAME / allied:NAME) like the hand-made ones.\n"
          "# Written by `malta-sim tune ... --save-preset NAME`; each entry records the command and seed that\n"
          "# made it (run it again to re-make the preset).  Format: malta_sim/bots/tuned.py.\n")


def write_presets(doc: dict, path: str | os.PathLike) -> None:
    """Write a tuned-preset document (``{side: {name: entry}}``) as TOML.

    Each entry's scalar keys come first, then ``params`` (inline table), then
    a ``[side.name.result]`` table for a ``result`` dict.
    """
    L = [HEADER]
    for side in SIDES:
        for name, entry in (doc.get(side) or {}).items():
            L.append(f"[{side}.{_toml_key(name)}]")
            for k, v in entry.items():
                if k in ("result",):
                    continue
                L.append(f"{_toml_key(k)} = {_toml_value(v)}")
            if isinstance(entry.get("result"), dict):
                L.append("")
                L.append(f"[{side}.{_toml_key(name)}.result]")
                for k, v in entry["result"].items():
                    L.append(f"{_toml_key(k)} = {_toml_value(v)}")
            L.append("")
    p = Path(path)
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_text("\n".join(L), encoding="utf-8")
    os.replace(tmp, p)


def save_presets(res: TuneResult, name: str, path: str | os.PathLike, command: str, overwrite: bool = False) -> list:
    """Add the best vector of each side tuned to a tuned-preset file under ``name``.

    Returns
    -------
    list of str
        ``"axis:NAME"`` / ``"allied:NAME"`` written.

    Raises
    ------
    OptionError
        A bad name (a hand-made preset's, ``random``, not an identifier), or
        an entry of that side and name already in the file without ``overwrite``.
    """
    import tomllib

    from .bots.presets import PRESETS

    if not name.replace("_", "").isalnum() or name in PRESETS or name == "random":
        raise OptionError(f"--save-preset {name!r}: give a new name of letters, digits and _ "
                          f"(not a hand-made preset: {', '.join(PRESETS)}, random)")
    p = Path(path)
    doc = tomllib.loads(p.read_text(encoding="utf-8")) if p.is_file() else {}
    written = []
    for side, best in res.best.items():
        if name in (doc.get(side) or {}) and not overwrite:
            raise OptionError(f"--save-preset: {side}:{name} is already in {p}; give --overwrite to replace it")
    for side, best in res.best.items():
        last = [r for r in res.rounds if r.side == side][-1]
        v = res.validation.get(side)
        result = {"tuning_games": res.games, "tuning_seed": res.seed, "trials": len(last.trials),
                  "start_rate": last.start_rate, "best_rate": last.best_rate}
        if v:
            result.update({"validation_games": v["games"], "validation_seed": v["seed"],
                           "validation_start_rate": round(v["rate_a"], 6),
                           "validation_tuned_rate": round(v["rate_b"], 6),
                           "validation_difference": round(v["difference"], 6),
                           "validation_low": round(v["low"], 6), "validation_high": round(v["high"], 6),
                           "validation_mcnemar_p": round(v["mcnemar_pvalue"], 6)})
        opp = f"{SIDES[1 - SIDES.index(side)]}:{last.opponent}"
        doc.setdefault(side, {})[name] = {
            "description": f"{best['start']} tuned against {opp}" + (" (itself tuned)" if last.opponent_params
                                                                       else "") + f" on {res.scenario}",
            "start": best["start"],
            "scenario": res.scenario,
            "opponent": opp,
            "seed": res.seed,
            "command": command,
            "made": _dt.date.today().isoformat(),
            "package_version": __version__,
            "params": {k: (int(x) if float(x).is_integer() else x) for k, x in best["params"].items()},
            "result": result,
        }
        written.append(f"{side}:{name}")
    p.parent.mkdir(parents=True, exist_ok=True)
    write_presets(doc, p)
    return written

