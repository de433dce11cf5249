"""Shared machinery of the Operation Hercules studies in ``experiments/``.

The studies vary Axis choices that the registered bots make by themselves
(beach zones, when to land, where to drop).  ``StudyPolicy`` is the
default Axis preset of the package (:data:`malta_sim.bots.presets.DEFAULT_AXIS`,
``tuned`` since December 2026: the parameter vector of
``malta_sim/data/bots/tuned.toml`` on the Axis bot class; ``balanced`` when the
preset file lacks it, the random-legal bot when neither is in the build:
:data:`BASE_BOT` says which) with three of its decisions pinned by parameters:

``beach_zones``   [zone of the 4th Division, zone of the 20th Division]
                  (names North/South/East/West; rule 18.21)
``landing_delay`` absolute turn before which no wave box is filled, so no
                  amphibious landing happens (turn 0 = 29 June AM; rules 18.3, 4.22)
``drop_hex``      hex id where both drop zone markers are planned (the legal
                  hex nearest to it when it is not legal; rules 19.31, 19.33)
``base``          another Axis preset to start from instead of :data:`BASE_BOT`
                  (``--axis-base`` of the scripts; e.g. ``balanced`` to compare
                  with runs made before ``tuned`` became the default)

Games are played through the scenario's registry entry point
(``play_games``), game by game on common random numbers: every arm plays game
indices 0..N-1 under the same master seed.  The rows are therefore the same
as ``malta-sim run`` would give for the same policy, and arms pair game by game.
The Allied bot is the scenario's default (``allied:active``) unless an arm
names another; the summaries name both (:func:`bots_line`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

from malta_sim.errors import OptionError  # noqa: E402
from malta_sim.bots import make_policy, register_policy  # noqa: E402

ZONE_NAMES = ("North", "South", "East", "West")


#: Policy parameters handled here (the rest go to the base bot).
STUDY_KEYS = ("beach_zones", "landing_delay", "drop_hex", "base")


def _pick_base_bot() -> str:
    """The package's default Axis preset (the first of
    :data:`malta_sim.bots.presets.AXIS_NAMES`, i.e. ``DEFAULT_AXIS`` when the
    preset file holds it), else ``balanced``, else the random-legal bot."""
    try:
        from malta_sim.bots.presets import AXIS_NAMES
    except ImportError:
        AXIS_NAMES = ()
    for name in tuple(AXIS_NAMES[:1]) + ("balanced", "random"):
        try:
            make_policy(name, 0)
        except (OptionError, ImportError, AttributeError):
            continue
        return name
    raise ImportError("no Axis bot available")


class _StudyMixin:
    """Overrides of the base Axis bot driven by ``self.study`` (pinned choices)."""

    study: dict = {}

    def hercules_beach_zones(self, game, divisions, zones):  # rule 18.21
        want = self.study.get("beach_zones")
        if not want:
            return super().hercules_beach_zones(game, divisions, zones)
        idx = [ZONE_NAMES.index(z) if isinstance(z, str) else int(z) for z in want]
        return {d: idx[i % len(idx)] for i, d in enumerate(divisions)}

    def wave_boxes(self, game, options):  # rules 18.3, 4.22: hold the landings back
        delay = int(self.study.get("landing_delay", 0))
        if int(np.asarray(game.state.turn).ravel()[0]) < delay:
            return {}
        return super().wave_boxes(game, options)

    def plan_marker(self, game, formation, turn, options):  # rules 19.31, 19.33
        target = self.study.get("drop_hex")
        if target is None or not options:
            return super().plan_marker(game, formation, turn, options)
        grid = game.static.grid
        t = grid.index(str(target))
        if t in options:
            return t
        from malta_sim.hexgrid import distance

        return min(options, key=lambda h: (distance(grid.hex_id(int(h)), str(target)), h))


_CLASSES: dict = {}


def study(side: int, params: dict | None = None):
    """Policy factory registered as ``study``: the base bot with the pinned
    choices of :data:`STUDY_KEYS` taken out of ``params``."""
    params = dict(params or {})
    pinned = {k: params.pop(k) for k in STUDY_KEYS if k in params}
    bot = make_policy(str(pinned.pop("base", BASE_BOT)), side, params)
    base = type(bot)
    if base not in _CLASSES:
        _CLASSES[base] = type(f"Study{base.__name__}", (_StudyMixin, base), {})
    bot.__class__ = _CLASSES[base]
    bot.study = pinned
    return bot


try:
    BASE_BOT = _pick_base_bot()
    register_policy("study", "study_common:study")
    StudyPolicy = study
except ImportError as _exc:  # engine policies not in this build
    BASE_BOT = None
    StudyPolicy = None
    _IMPORT_ERROR = _exc


def play_arms(arms: dict, n_games: int, seed: int, *, scenario: str = "hercules", n_jobs: int = 1,
              chunk: int = 10) -> pd.DataFrame:
    """Play every arm on games 0..n_games-1 (common random numbers).

    Parameters
    ----------
    arms : dict
        Arm name -> dict with optional ``axis_policy`` (default ``study``),
        ``allied_policy`` (default the scenario's first), ``options`` (tuple)
        and ``params`` (Axis policy parameters, see the module docstring).
    n_games, seed : int
    n_jobs : int
        Worker processes (joblib).

    Returns
    -------
    pandas.DataFrame
        One row per (arm, game) with an ``arm`` column and one column per
        parameter (``p_<name>``).
    """
    if StudyPolicy is None:
        raise SystemExit(f"the Island of Death bots are not available: {_IMPORT_ERROR}")
    from joblib import Parallel, delayed

    from malta_sim.games.registry import get_scenario

    spec = get_scenario(scenario)
    jobs = []
    for name, a in arms.items():
        for start in range(0, n_games, chunk):
            jobs.append((name, a, np.arange(start, min(n_games, start + chunk), dtype=np.int64)))
    t0 = time.time()
    out = Parallel(n_jobs=n_jobs)(delayed(_play)(spec.name, seed, a, g) for _, a, g in jobs)
    frames, failed = [], {}
    for (name, a, _), (df, errs) in zip(jobs, out):
        for g, msg in errs:
            failed[(name, g)] = msg
        df = df.copy()
        df.insert(0, "arm", name)
        for k, v in (a.get("params") or {}).items():
            df[f"p_{k}"] = str(v) if isinstance(v, (list, tuple)) else v
        frames.append(df)
    res = pd.concat(frames, ignore_index=True)
    # A game that failed in any arm is dropped from every arm, so arms stay paired.
    bad = sorted({g for _, g in failed})
    res = res[~res["game"].isin(bad)].reset_index(drop=True)
    res.attrs["failed"] = [f"{arm} game {g}: {msg}" for (arm, g), msg in sorted(failed.items())]
    res.attrs["dropped_games"] = bad
    res.attrs["seconds"] = time.time() - t0
    bases = sorted({str((a.get("params") or {}).get("base", BASE_BOT)) for a in arms.values()})
    res.attrs["base_bot"] = bases[0] if len(bases) == 1 else ", ".join(bases)
    res.attrs["allied_bots"] = sorted({str(a.get("allied_policy", spec.allied_policies[0])) for a in arms.values()})
    return res


def _play(scenario, seed, arm, games):
    """Play a block of games; if the block fails, play them one by one and
    report the games that fail (message) instead of losing the block."""
    import study_common  # noqa: F401  (registers the study policy in worker processes)
    from malta_sim.games.registry import get_scenario

    spec = get_scenario(scenario)

    def run(gs):
        return spec.play_fn()(scenario, seed, gs, axis_policy=arm.get("axis_policy", "study"),
                              allied_policy=arm.get("allied_policy", spec.allied_policies[0]),
                              options=tuple(arm.get("options", ())), data_dir=None,
                              policy_params={"axis": arm.get("params") or {}}).games

    try:
        return run(games), []
    except Exception:
        rows, errs = [], []
        for g in games:
            try:
                rows.append(run(np.array([g], dtype=np.int64)))
            except Exception as exc:  # an engine or bot error in this game
                errs.append((int(g), f"{type(exc).__name__}: {exc}".splitlines()[0]))
        return (pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()), errs


def cli(description: str, default_games: int = 20):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--games", type=int, default=default_games, help="games per arm")
    ap.add_argument("--seed", type=int, default=1942)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="output folder (default experiments/results/<study>)")
    ap.add_argument("--axis-base", default=None, metavar="PRESET",
                    help="Axis preset the study bot starts from (default: the package's default Axis preset)")
    ap.add_argument("--allied", default=None, metavar="PRESET",
                    help="Allied preset (default: the scenario's default)")
    ap.add_argument("--reuse", action="store_true",
                    help="rebuild tables and charts from OUT/results.parquet instead of playing")
    return ap


def get_results(args, out: Path, arms: dict) -> pd.DataFrame:
    """Play the arms, or with ``--reuse`` read the saved ``results.parquet``."""
    f = out / "results.parquet"
    if args.reuse and f.exists():
        df = pd.read_parquet(f)
        missing = set(arms) - set(df["arm"])
        if missing:
            raise SystemExit(f"{f} lacks arms {sorted(missing)}; run without --reuse")
        return df
    arms = with_presets(arms, getattr(args, "axis_base", None), getattr(args, "allied", None))
    df = play_arms(arms, args.games, args.seed, n_jobs=args.jobs)
    df.to_parquet(f)
    return df


def with_presets(arms: dict, axis_base: str | None = None, allied: str | None = None) -> dict:
    """``arms`` with the study bot started from Axis preset ``axis_base`` and
    played against Allied preset ``allied`` (None: the defaults)."""
    out = {}
    for name, a in arms.items():
        a = dict(a)
        if axis_base:
            a["params"] = {**(a.get("params") or {}), "base": axis_base.split(":", 1)[-1]}
        if allied:
            a["allied_policy"] = allied.split(":", 1)[-1]
        out[name] = a
    return out


def out_dir(args, study: str) -> Path:
    d = args.out or (HERE / "results" / study)
    d.mkdir(parents=True, exist_ok=True)
    return d


def bots_line(df) -> str:
    """The presets that played, for a summary's header: the Axis base preset
    (with the studied choice pinned) and the Allied preset(s)."""
    base = df.attrs.get("base_bot") or BASE_BOT
    allied = df.attrs.get("allied_bots") or sorted(set(df["allied_policy"].astype(str)))
    ax = f"Axis bot: preset `axis:{base}`" if base != "random" else "Axis bot: `random`"
    if BASE_BOT is not None and base == getattr(_presets(), "DEFAULT_AXIS", None):
        ax += " (the default Axis preset)"
    al = ", ".join(f"`allied:{a}`" if a != "random" else "`random`" for a in allied)
    return (f"{ax} with the studied choice pinned; Allied bot: preset {al}"
            f"{' (the scenario default)' if allied == [_default_allied()] else ''}.")


def _presets():
    from malta_sim.bots import presets

    return presets


def _default_allied() -> str:
    from malta_sim.games.registry import get_scenario

    return get_scenario("hercules").allied_policies[0]


def games_line(df, played: int) -> str:
    """'N games per arm' with the dropped games, if any."""
    dropped = len(df.attrs.get("dropped_games", []))
    return f"{played - dropped} games per arm" + (f" ({played} played, {dropped} dropped)" if dropped else "")


def failures_md(df) -> list[str]:
    """Lines for a summary: games dropped because the engine or a bot failed."""
    if not df.attrs.get("failed"):
        return []
    lines = ["", f"Games dropped from every arm because a game failed in some arm: "
             f"{', '.join(map(str, df.attrs['dropped_games']))}.", ""]
    lines += [f"- {m}" for m in df.attrs["failed"][:10]]
    return lines


def md_diff(p) -> str:
    """Paired difference of two win rates in points with its interval."""
    f = lambda x: f"{round(100 * x) + 0:+d}"  # noqa: E731  (no '-0')
    return f"{f(p['difference'])} pts [{f(p['low'])}, {f(p['high'])}]"


def md_rate(r) -> str:
    return f"{100 * r['rate']:.0f}% [{100 * r['low']:.0f}, {100 * r['high']:.0f}]"
