"""The batch runner: many seeded games of one scenario, in parallel, to tidy frames.

:func:`run_games` plays games ``0 .. n_games-1`` of a registered scenario
(:mod:`malta_sim.games.registry`) and returns one row per game, sorted by game
index.  Game ``g``'s row depends only on ``(seed, g, scenario, policies, policy
parameters, options, data)``: the engines draw every random number from
:mod:`malta_sim.rng` streams keyed by ``(seed, g, purpose)``, so the result is the
same for any ``n_jobs``, chunk size, backend or resume.

How the work is spread
----------------------
The game indices still to play are cut into *chunks* (contiguous ranges of at
most ``chunk_size`` games).  Each chunk is one call of the scenario's
``play_games`` entry point, run

* in this process (``backend="local"``, ``n_jobs=1``);
* in ``n_jobs`` worker processes through joblib's ``loky`` backend
  (``backend="local"``, ``n_jobs > 1`` or ``-1`` for every core);
* on a ``dask.distributed`` cluster (``backend="dask"``): the scheduler at
  ``scheduler`` (``"tcp://host:8786"``), or a local cluster of ``n_jobs``
  single-threaded worker processes when no scheduler is given.  Workers need
  ``malta_sim`` installed (``pip install malta_sim[dask]``).

Checkpoints
-----------
With ``checkpoint=DIR``, every finished chunk is written to ``DIR`` as Parquet
(written to a temporary name, then moved into place with :func:`os.replace`, so
a file present is always complete) and ``DIR/manifest.json`` records the inputs
that decide the results: scenario, seed, policies, policy parameters, options,
data hash and package version.  Run the same call again after a crash or kill
and only the missing games are played; the final frame equals an uninterrupted
run's.  Chunking never changes results, so the resumed run may use another
chunk size, other ``n_jobs``, another backend, or more games (games already in
the checkpoint are reused).  A checkpoint made with other inputs is refused
with an :class:`~malta_sim.errors.OptionError` naming the differences.

Failures
--------
A failing engine call is narrowed down to the failing game (games are
independent), which the error names.  ``on_error="skip"`` leaves such games
out and lists them in ``attrs["failed_games"]`` instead of stopping.

Provenance
----------
``DataFrame.attrs`` of the result carries ``package_version``, ``data_hash``
(SHA-256 of the data files), ``scenario``, ``game``, ``seed``, ``n_games``,
``options``, ``axis_policy``, ``allied_policy``, ``policy_params`` and what the
engine reports (e.g. ``reconstructed_components``).  :func:`write_frame` stores
it in the Parquet metadata (or a ``.provenance.json`` file beside a CSV) and
:func:`read_frame` restores it.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import math
import numbers
import os
import re
import sys
import tomllib
import uuid
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import __version__
from .errors import DataError, DataErrors, MaltaSimError, NoEffectWarning, OptionError
from .games.registry import GameBatchResult, ScenarioSpec, get_scenario

__all__ = [
    "run_games",
    "run_sweep",
    "load_sweep",
    "balance_sweep",
    "run_balance",
    "Arm",
    "Sweep",
    "write_frame",
    "read_frame",
    "check_output_path",
    "data_hash",
    "RemoteUserError",
    "CheckpointMismatch",
    "ID_COLUMNS",
    "BACKENDS",
]

#: Identity columns put in front of every game row, in this order.
ID_COLUMNS = ("game", "seed", "scenario", "axis_policy", "allied_policy", "options", "policy_params", "data_hash")

#: Accepted values of ``backend``.
BACKENDS = ("local", "dask")

#: How long ``backend="dask"`` waits to reach a ``scheduler`` before giving up.
DASK_CONNECT_TIMEOUT = "15s"

#: Largest chunk the automatic chunk size picks (games per ``play_games`` call).
MAX_AUTO_CHUNK = 1000

_MANIFEST = "manifest.json"
_CHECKPOINT_FORMAT = 1
_CHUNK_RE = re.compile(r"^(games|turns|failed)-(\d{10})-(\d{10})\.(parquet|json)$")
_PROVENANCE_KEY = b"malta_sim_provenance"

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- validation


@dataclass(frozen=True)
class _Inputs:
    """Validated inputs that decide every game's result (the checkpoint key)."""

    spec: ScenarioSpec
    seed: int
    axis_policy: str
    allied_policy: str
    options: tuple[str, ...]
    policy_params: dict | None
    data_dir: str | None
    data_hash: str

    def key(self) -> dict:
        """The JSON-able record compared when resuming a checkpoint."""
        return {
            "scenario": self.spec.name,
            "game": self.spec.game,
            "seed": self.seed,
            "axis_policy": self.axis_policy,
            "allied_policy": self.allied_policy,
            "options": list(self.options),
            "policy_params": self.policy_params,
            "data_hash": self.data_hash,
            "package_version": __version__,
        }


#: most games one run plays (a per-game table of that many rows still fits a
#: workstation's memory; a larger study is several runs with other seeds)
MAX_GAMES = 100_000_000


def _check_int(name: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    what = f"{name} must be an integer >= {minimum}" + ("" if maximum is None else f" and <= {maximum}")
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, str)):
        raise OptionError(f"{what}, got {value!r}")
    try:
        v = int(value)
    except ValueError:
        raise OptionError(f"{what}, got {value!r}") from None
    if v < minimum or (maximum is not None and v > maximum):
        raise OptionError(f"{what}, got {v}")
    return v


def _check_policy(side: str, policy: str | None, valid: tuple[str, ...]) -> str:
    choices = valid or ("default",)
    if policy is None:
        return choices[0]
    if not isinstance(policy, str) or policy not in choices:
        shown = [c for c in choices if ":" not in c] or list(choices)     # 'axis:balanced' spellings left out
        raise OptionError(f"unknown {side} policy {policy!r}; choose one of: {', '.join(shown)}")
    return policy


def _check_options(options: Iterable[str] | str | None, valid: tuple[str, ...], scenario: str) -> tuple[str, ...]:
    if options is None:
        return ()
    if isinstance(options, str):
        options = [options]
    out = set()
    for o in options:
        if not isinstance(o, str) or o not in valid:
            choices = ", ".join(valid) if valid else "(this scenario has no options)"
            raise OptionError(f"unknown option {o!r} for scenario {scenario!r}; choose from: {choices}")
        out.add(o)
    return tuple(sorted(out))


def _check_policy_params(params: Any) -> dict | None:
    if params is None:
        return None
    if not isinstance(params, dict):
        raise OptionError(f"policy_params must be a dict (e.g. {{'axis': {{'min_odds': 3}}}}), got {type(params).__name__}")
    bad = sorted(str(k) for k in params if k not in ("axis", "allied"))
    if bad:
        raise OptionError(f"--policy-params: unknown side {bad[0]!r}; valid sides: axis, allied "
                          f"(e.g. {{'axis': {{'min_odds': 3}}}})")
    for side, kv in params.items():
        if not isinstance(kv, dict):
            raise OptionError(f"--policy-params: the {side} entry must be an object of name: value, got {kv!r}")
    try:
        return json.loads(json.dumps(params, sort_keys=True))
    except (TypeError, ValueError) as exc:
        raise OptionError(f"policy_params must hold only numbers, strings, lists and dicts: {exc}") from None


def _packaged_data_dir(game: str) -> Path:
    return Path(__file__).resolve().parent / "data" / game


def data_hash(directory: str | os.PathLike | None, game: str | None = None) -> str:
    """The data hash of a game-data directory, as every part of malta_sim reports it.

    The one definition is :func:`malta_sim.loaders.common.hash_dir` (sha256 over the
    relative names and bytes of every CSV/TOML file, first 16 hex digits): the value
    ``malta-sim data info`` prints and ``load_iod(...).data_hash`` holds.

    Parameters
    ----------
    directory : path or None
        The directory given as ``--data-dir``; ``None`` hashes the packaged
        data of ``game`` (``malta_sim/data/<game>``).
    game : str, optional
        ``island_of_death`` or ``invasion_malta``; needed when ``directory`` is None.

    Returns
    -------
    str
        16 hex digits; ``"none"`` when the directory does not exist (an engine
        without packaged data yet).
    """
    from .loaders.common import hash_dir

    root = Path(directory) if directory is not None else _packaged_data_dir(game or "")
    if not root.is_dir():
        return "none"
    return hash_dir(root)


def _validate(scenario, seed, axis_policy, allied_policy, options, data_dir, policy_params) -> _Inputs:
    if not isinstance(scenario, str):
        raise OptionError(f"scenario must be a name (str), got {scenario!r}")
    spec = get_scenario(scenario)
    seed = _check_int("seed", seed, 0, 2**63 - 1)
    axis = _check_policy("axis", axis_policy, tuple(spec.axis_policies))
    allied = _check_policy("allied", allied_policy, tuple(spec.allied_policies))
    opts = _check_options(options, tuple(spec.options), spec.name)
    params = _check_policy_params(policy_params)
    if spec.game == "island_of_death" and spec.play.startswith("malta_sim."):
        from .bots import make_policy
        from .bots.presets import option_warnings

        if params:
            # build the bots once so a parameter they do not read fails before any game runs
            make_policy(axis, 0, params.get("axis"))
            make_policy(allied, 1, params.get("allied"))
        # a preset or parameter the optional rules leave idle: said once here,
        # not once per chunk of games (the workers' copies are silenced)
        for msg in option_warnings(axis, 0, (params or {}).get("axis"), opts):
            warnings.warn(msg, NoEffectWarning, stacklevel=3)
    if data_dir is not None:
        d = Path(data_dir)
        if not d.is_dir():
            raise OptionError(f"--data-dir {str(data_dir)!r} is not a directory")
        data_dir = str(d.resolve())
    return _Inputs(spec, seed, axis, allied, opts, params, data_dir, data_hash(data_dir, spec.game))


def _check_jobs(n_jobs: Any) -> int:
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or (n_jobs < 1 and n_jobs != -1):
        raise OptionError(f"n_jobs (--jobs) must be an integer >= 1, or -1 for every core; got {n_jobs!r}")
    return int(n_jobs) if n_jobs != -1 else (os.cpu_count() or 1)


# --------------------------------------------------------------------------- output files


_EXTENSIONS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}


def _format_of(path: str | os.PathLike, what: str = "--out") -> str:
    ext = Path(path).suffix.lower()
    if ext not in _EXTENSIONS:
        raise OptionError(
            f"{what} {str(path)!r}: unknown file type {ext or '(none)'!r}; use one of: {', '.join(_EXTENSIONS)}"
        )
    return _EXTENSIONS[ext]


def check_output_path(path: str | os.PathLike, what: str = "--out") -> Path:
    """Check that a result file can be written, before any game is played.

    Parameters
    ----------
    path : path
        ``.parquet``/``.pq`` (Parquet) or ``.csv``.
    what : str
        The option name used in messages.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OptionError
        Unknown extension, missing or unwritable directory, a directory in the
        way, or an existing file that cannot be overwritten.
    """
    p = Path(path)
    _format_of(p, what)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise OptionError(f"{what} {str(path)!r} is a directory, not a file")
    if not parent.is_dir():
        raise OptionError(f"{what} {str(path)!r}: directory {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OptionError(f"{what} {str(path)!r}: directory {str(parent)!r} is not writable")
    if p.exists() and not os.access(p, os.W_OK):
        raise OptionError(f"{what} {str(path)!r} exists and is not writable")
    probe_writable(parent, what, path)
    return p


def probe_writable(folder: str | os.PathLike, what: str, path: str | os.PathLike | None = None) -> None:
    """Create and remove a scratch file in ``folder`` to prove it takes writes.

    Permission bits alone can mislead (root, read-only mounts, ``/proc``), and
    finding out after the games were played would lose them.

    Raises
    ------
    OptionError
        Naming ``what`` (the option) when the folder does not accept a file.
    """
    import tempfile

    shown = str(path if path is not None else folder)
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".malta-sim-probe-", delete=True) as fh:
            fh.write(b"x")
            fh.flush()
    except OSError as exc:
        raise OptionError(f"{what} {shown!r}: cannot write in {str(folder)!r} ({exc.strerror or exc})") from None


def _json_attrs(attrs: dict) -> str:
    return json.dumps(attrs, sort_keys=True, default=str)


def _atomic_write_parquet(df: pd.DataFrame, path: Path, attrs: dict | None = None) -> None:
    table = pa.Table.from_pandas(df, preserve_index=False)
    if attrs:
        meta = dict(table.schema.metadata or {})
        meta[_PROVENANCE_KEY] = _json_attrs(attrs).encode("utf-8")
        meta[b"PANDAS_ATTRS"] = _json_attrs(attrs).encode("utf-8")
        table = table.replace_schema_metadata(meta)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_frame(df: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write a result frame to Parquet or CSV (by extension) with its provenance.

    Parquet keeps ``df.attrs`` in the file's schema metadata (key
    ``malta_sim_provenance``, and ``PANDAS_ATTRS`` so ``pandas.read_parquet``
    restores ``attrs``); CSV gets a ``<path>.provenance.json`` file beside it.
    Both are written to a temporary name first and moved into place.

    Parameters
    ----------
    df : pandas.DataFrame
    path : path
        ``.parquet``, ``.pq`` or ``.csv``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OptionError
        Unknown extension or unwritable place (see :func:`check_output_path`).
    """
    p = check_output_path(path)
    if _format_of(p) == "parquet":
        _atomic_write_parquet(df, p, dict(df.attrs))
    else:
        tmp = p.with_name(f".{p.name}.{uuid.uuid4().hex}.tmp")
        try:
            df.to_csv(tmp, index=False)
            os.replace(tmp, p)
        finally:
            if tmp.exists():
                tmp.unlink()
        side = p.with_name(p.name + ".provenance.json")
        side.write_text(json.dumps(dict(df.attrs), sort_keys=True, indent=2, default=str) + "\n")
    return p


def read_frame(path: str | os.PathLike) -> pd.DataFrame:
    """Read a frame written by :func:`write_frame`, provenance restored to ``attrs``.

    Raises
    ------
    OptionError
        Unknown extension or missing file.
    """
    p = Path(path)
    fmt = _format_of(p, "file")
    if not p.is_file():
        raise OptionError(f"file {str(path)!r} does not exist")
    if fmt == "parquet":
        table = pq.read_table(p)
        df = table.to_pandas()
        meta = table.schema.metadata or {}
        if _PROVENANCE_KEY in meta:
            df.attrs = json.loads(meta[_PROVENANCE_KEY])
        return df
    df = pd.read_csv(p)
    side = p.with_name(p.name + ".provenance.json")
    if side.is_file():
        df.attrs = json.loads(side.read_text())
    return df


# --------------------------------------------------------------------------- chunks


class CheckpointMismatch(OptionError):
    """A checkpoint folder holds the games of a run with other inputs.

    Attributes
    ----------
    directory : str
    differences : list of str
        ``"<key> <value here> here vs <value there> in checkpoint"``.
    """

    def __init__(self, directory: str, differences: list[str]):
        self.directory, self.differences = str(directory), list(differences)
        super().__init__(f"--checkpoint {self.directory!r} was made with other inputs ({'; '.join(differences)}); "
                         "use another checkpoint directory or delete this one")

    def __reduce__(self):
        return (type(self), (self.directory, self.differences))


class RemoteUserError(MaltaSimError):
    """A user-caused error (bad data file, bad option) raised inside a worker.

    Carries the original message as one line; workers send this instead of the
    original exception so that it survives pickling between processes.
    """


@dataclass
class _Chunk:
    start: int
    stop: int
    games: pd.DataFrame
    turns: pd.DataFrame | None
    provenance: dict = field(default_factory=dict)
    failed: list = field(default_factory=list)  # [{"game": g, "error": "Type: message"}]


def _normalise(df: pd.DataFrame) -> pd.DataFrame:
    """Pass a frame through Arrow so in-memory and checkpointed chunks have equal dtypes."""
    return pa.Table.from_pandas(df.reset_index(drop=True), preserve_index=False).to_pandas()


def _reraise_interrupt(exc: BaseException) -> None:
    """Raise the ``KeyboardInterrupt`` hidden in ``exc``'s chain of causes, if
    any: Ctrl-C that lands inside compiled code (numba loading a cached
    kernel, say) can come out as a ``SystemError`` whose cause is the
    interrupt; it is an interrupt, not a failed game."""
    seen = set()
    e = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, KeyboardInterrupt):
            raise e
        e = e.__cause__ or e.__context__


def _play_chunk(spec: ScenarioSpec, inputs: dict, start: int, stop: int, per_turn: bool,
                on_error: str = "raise") -> _Chunk:
    """Play games ``start .. stop-1`` (one ``play_games`` call); runs in a worker.

    When the call fails, the games are played one by one (they are independent)
    to find the failing game: with ``on_error="raise"`` its error is raised with
    the game named; with ``"skip"`` the other games' rows are kept and the
    failures listed in :attr:`_Chunk.failed`.  Data errors always raise.
    """
    games = np.arange(start, stop, dtype=np.int64)
    fn = spec.play_fn()

    def play(gs: np.ndarray) -> GameBatchResult:
        with warnings.catch_warnings():      # said once per run, by _validate
            warnings.simplefilter("ignore", NoEffectWarning)
            res = fn(
                spec.name,
                inputs["seed"],
                gs,
                axis_policy=inputs["axis_policy"],
                allied_policy=inputs["allied_policy"],
                options=tuple(inputs["options"]),
                data_dir=inputs["data_dir"],
                per_turn=per_turn,
                event_log=False,
                policy_params=inputs["policy_params"],
            )
        _check_result(spec, res, gs, per_turn)
        return res

    def where(what: str) -> str:
        return f"scenario {spec.name}, seed {inputs['seed']}, {what}"

    def user_error(exc: MaltaSimError, what: str) -> RemoteUserError:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return RemoteUserError(f"{msg} ({where(what)})")

    try:
        results = [play(games)]
        failed: list = []
    except (DataError, DataErrors) as exc:
        raise user_error(exc, f"games {start}-{stop - 1}") from None
    except Exception as exc:
        _reraise_interrupt(exc)
        results, failed, first = [], [], None
        for g in range(start, stop):
            try:
                results.append(play(np.array([g], dtype=np.int64)))
            except (DataError, DataErrors) as e:
                raise user_error(e, f"game {g}") from None
            except Exception as e:
                _reraise_interrupt(e)
                first = first or (g, e)
                failed.append({"game": g, "error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"})
                if on_error != "skip":
                    break
        if on_error != "skip":
            what = f"game {first[0]}" if first else f"games {start}-{stop - 1}"
            if isinstance(exc, MaltaSimError):
                raise user_error(exc, what) from None
            exc.add_note(f"while playing {where(what)}")
            raise
    frames = [r.games for r in results]
    if frames:
        g = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        g = _normalise(g.sort_values("game", kind="stable"))
    else:  # every game of the chunk failed (on_error="skip")
        g = pd.DataFrame({"game": np.zeros(0, dtype=np.int64)})
    turns = None
    if per_turn:
        ts = [r.per_turn for r in results if r.per_turn is not None and len(r.per_turn.columns)]
        if ts:
            t = pd.concat(ts, ignore_index=True) if len(ts) > 1 else ts[0]
            sort = [c for c in ("game", "turn") if c in t.columns]
            turns = _normalise(t.sort_values(sort, kind="stable") if sort else t)
        else:
            turns = pd.DataFrame({"game": np.zeros(0, dtype=np.int64), "turn": np.zeros(0, dtype=np.int64)})
    prov = next((dict(r.provenance) for r in results if r.provenance), {})
    return _Chunk(start, stop, g, turns, prov, failed)


def _check_result(spec: ScenarioSpec, res: Any, games: np.ndarray, per_turn: bool) -> None:
    """Engine contract checks (registry): a ``GameBatchResult`` with one row per game."""
    if not isinstance(res, GameBatchResult):
        raise TypeError(f"scenario {spec.name!r}: play_games returned {type(res).__name__}, not GameBatchResult")
    g = res.games
    if "game" not in g.columns or len(g) != len(games) or not np.array_equal(np.sort(g["game"].to_numpy()), games):
        raise RuntimeError(f"scenario {spec.name!r}: play_games did not return one row per game asked for")
    if per_turn and res.per_turn is None:
        raise RuntimeError(f"scenario {spec.name!r}: per_turn=True but play_games returned no per-turn frame")


def _ranges(todo: np.ndarray, chunk_size: int) -> list[tuple[int, int]]:
    """Cut sorted game indices into contiguous ranges of at most ``chunk_size``."""
    out = []
    if len(todo) == 0:
        return out
    breaks = np.flatnonzero(np.diff(todo) != 1) + 1
    for run in np.split(todo, breaks):
        a, b = int(run[0]), int(run[-1]) + 1
        for s in range(a, b, chunk_size):
            out.append((s, min(s + chunk_size, b)))
    return out


# --------------------------------------------------------------------------- checkpoints


def checkpoint_has_chunks(directory: str | os.PathLike) -> bool:
    """Whether the checkpoint folder ``directory`` holds any finished chunk
    file (games, per-turn rows or failures); False for a missing folder or
    one with only its ``manifest.json``."""
    d = Path(directory)
    return d.is_dir() and any(_CHUNK_RE.match(p.name) for p in d.iterdir())


class _Checkpoint:
    """A directory of finished chunks plus ``manifest.json`` (see module docstring)."""

    def __init__(self, directory: str | os.PathLike, key: dict):
        self.dir = Path(directory)
        if self.dir.exists() and not self.dir.is_dir():
            raise OptionError(f"--checkpoint {str(directory)!r} is a file, not a directory")
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OptionError(f"--checkpoint {str(directory)!r}: cannot create directory ({exc.strerror})") from None
        if not os.access(self.dir, os.W_OK | os.X_OK):
            raise OptionError(f"--checkpoint {str(directory)!r}: directory is not writable")
        manifest = self.dir / _MANIFEST
        record = {"format": _CHECKPOINT_FORMAT, "inputs": key}
        if manifest.is_file():
            try:
                old = json.loads(manifest.read_text())
                old_key = old["inputs"]
            except (ValueError, KeyError, TypeError):
                raise OptionError(f"--checkpoint {str(directory)!r}: {_MANIFEST} is unreadable; use a new directory") from None
            if old_key != key and not self.holds_chunks():
                old_key = key                       # no finished game to keep: the folder is this run's
                self._write_manifest(record)
            if old_key != key:
                diffs = [
                    f"{k} {_short(key.get(k))} here vs {_short(old_key.get(k))} in checkpoint"
                    for k in sorted(set(key) | set(old_key))
                    if key.get(k) != old_key.get(k)
                ]
                raise CheckpointMismatch(str(directory), diffs)
        else:
            stray = [p.name for p in self.dir.iterdir() if not p.name.startswith(".")]
            if stray:
                raise OptionError(
                    f"--checkpoint {str(directory)!r} is not empty and has no {_MANIFEST} "
                    "(not a malta_sim checkpoint); use a new or empty directory"
                )
            self._write_manifest(record)
        for p in self.dir.glob(".*.tmp"):  # left by a killed run; never a finished chunk
            try:
                p.unlink()
            except OSError:
                pass

    def _write_manifest(self, record: dict) -> None:
        tmp = self.dir / f".{_MANIFEST}.{uuid.uuid4().hex}.tmp"
        tmp.write_text(json.dumps(record, sort_keys=True, indent=2) + "\n")
        os.replace(tmp, self.dir / _MANIFEST)

    def holds_chunks(self) -> bool:
        """Whether the folder holds any finished chunk (games, turns or failures)."""
        return checkpoint_has_chunks(self.dir)


    def finished(self, per_turn: bool, skip_failed: bool = False) -> list[tuple[int, int]]:
        """Ranges ``(start, stop)`` of finished chunks: with a per-turn file when
        ``per_turn``; chunks with failed games only when ``skip_failed``."""
        found: dict[str, set] = {"games": set(), "turns": set(), "failed": set()}
        for p in self.dir.iterdir():
            m = _CHUNK_RE.match(p.name)
            if m:
                found[m.group(1)].add((int(m.group(2)), int(m.group(3))))
        done = found["games"] & found["turns"] if per_turn else found["games"]
        if not skip_failed:
            done -= found["failed"]
        return sorted(done)

    def path(self, kind: str, start: int, stop: int) -> Path:
        ext = "json" if kind == "failed" else "parquet"
        return self.dir / f"{kind}-{start:010d}-{stop:010d}.{ext}"

    def write(self, chunk: _Chunk) -> None:
        # The per-turn and failed-games files go first: the games file marks the chunk finished.
        fp = self.path("failed", chunk.start, chunk.stop)
        if chunk.failed:
            tmp = fp.with_name(f".{fp.name}.{uuid.uuid4().hex}.tmp")
            tmp.write_text(json.dumps(chunk.failed, indent=1) + "\n")
            os.replace(tmp, fp)
        elif fp.exists():
            fp.unlink()
        if chunk.turns is not None:
            _atomic_write_parquet(chunk.turns, self.path("turns", chunk.start, chunk.stop))
        _atomic_write_parquet(chunk.games, self.path("games", chunk.start, chunk.stop), {"provenance": chunk.provenance})

    def read(self, start: int, stop: int, per_turn: bool) -> _Chunk:
        p = self.path("games", start, stop)
        table = pq.read_table(p)
        meta = table.schema.metadata or {}
        prov = json.loads(meta[_PROVENANCE_KEY]).get("provenance", {}) if _PROVENANCE_KEY in meta else {}
        turns = pq.read_table(self.path("turns", start, stop)).to_pandas() if per_turn else None
        fp = self.path("failed", start, stop)
        failed = json.loads(fp.read_text()) if fp.exists() else []
        return _Chunk(start, stop, table.to_pandas(), turns, prov, failed)


def _short(v: Any) -> str:
    if isinstance(v, str) and len(v) > 30:
        return json.dumps(v[:27] + "...")
    s = json.dumps(v, sort_keys=True)
    return s if len(s) <= 60 else s[:57] + "..."


# --------------------------------------------------------------------------- executors


def _run_local(spec, inputs, ranges, per_turn, n_jobs, on_error) -> Iterator[_Chunk]:
    if n_jobs == 1 or len(ranges) <= 1:
        for a, b in ranges:
            yield _play_chunk(spec, inputs, a, b, per_turn, on_error)
        return
    from joblib import Parallel, delayed

    par = Parallel(n_jobs=min(n_jobs, len(ranges)), backend="loky", return_as="generator_unordered")
    yield from par(delayed(_play_chunk)(spec, inputs, a, b, per_turn, on_error) for a, b in ranges)


def _run_dask(spec, inputs, ranges, per_turn, n_jobs, scheduler, on_error) -> Iterator[_Chunk]:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise OptionError(
            "--backend dask needs dask.distributed; install it with: pip install 'malta_sim[dask]'"
        ) from None
    cluster = None
    try:
        if scheduler:
            try:
                client = Client(scheduler, timeout=DASK_CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as exc:
                raise OptionError(f"--scheduler {scheduler!r}: cannot connect ({exc})") from None
        else:
            with warnings.catch_warnings():
                # The scheduler's HTTP endpoint moves to a free port when 8787 is taken.
                warnings.filterwarnings("ignore", message="Port .* is already in use")
                cluster = LocalCluster(
                    n_workers=max(1, min(n_jobs, len(ranges))),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
            client = Client(cluster)
        try:
            futures = [
                client.submit(_play_chunk, spec, inputs, a, b, per_turn, on_error, pure=False, key=f"malta-sim-chunk-{a}-{b}-{uuid.uuid4().hex}")
                for a, b in ranges
            ]
            for fut in as_completed(futures):
                yield fut.result()
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


# --------------------------------------------------------------------------- progress


class _Progress:
    """The games progress bar (tqdm, on stderr) with an honest time estimate.

    The first chunk of each worker includes loading the data and, on the
    first run of a version, compiling the kernels, so a rate measured from
    the start would promise hours.  The estimate ("left") is shown only once
    every worker has finished a chunk, and is measured from that moment.
    """

    def __init__(self, total: int, initial: int, desc: str, enabled: bool, workers: int = 1):
        tqdm = _tqdm_class()
        self.total, self.workers = total, max(1, workers)
        self.completions = 0
        self.t0 = self.n0 = None
        self.bar = tqdm(total=total, initial=initial, unit="game", desc=desc, disable=not enabled,
                        file=sys.stderr, dynamic_ncols=True,
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]")
        self.bar.set_postfix_str("starting, no time estimate yet", refresh=True)

    def update(self, n: int) -> None:
        import time

        self.completions += 1
        now = time.monotonic()
        self.bar.update(n)
        if self.completions == self.workers:
            self.t0, self.n0 = now, self.bar.n
            self.bar.set_postfix_str("measuring speed")
        elif self.t0 is not None and self.bar.n > self.n0 and now > self.t0:
            rate = (self.bar.n - self.n0) / (now - self.t0)
            left = (self.total - self.bar.n) / rate
            self.bar.set_postfix_str(f"{self.bar.format_interval(left)} left, {rate:.3g} games/s")
        else:
            self.bar.set_postfix_str("no time estimate yet")

    def close(self) -> None:
        if self.bar.n >= self.total:
            self.bar.set_postfix_str("done", refresh=False)
        self.bar.close()


def _tqdm_class():
    """tqdm's notebook bar where it can draw (ipywidgets installed), else the text bar."""
    try:
        from IPython import get_ipython

        if get_ipython() is not None and type(get_ipython()).__name__ == "ZMQInteractiveShell":
            import ipywidgets  # noqa: F401

            from tqdm.notebook import tqdm
            return tqdm
    except ImportError:
        pass
    from tqdm import tqdm

    return tqdm


# --------------------------------------------------------------------------- run_games


def run_games(
    scenario: str,
    n_games: int,
    seed: int,
    axis_policy: str | None = None,
    allied_policy: str | None = None,
    options: Sequence[str] = (),
    n_jobs: int = 1,
    backend: str = "local",
    scheduler: str | None = None,
    chunk_size: int | None = None,
    checkpoint: str | os.PathLike | None = None,
    per_turn: bool = False,
    data_dir: str | os.PathLike | None = None,
    policy_params: dict | None = None,
    progress: bool = False,
    on_error: str = "raise",
):
    """Play ``n_games`` seeded games of a scenario and return one row per game.

    Parameters
    ----------
    scenario : str
        A registered scenario name (``"intro"``, ``"hercules"``, the Invasion:
        Malta scenario ...); see :func:`malta_sim.games.registry.scenario_names`.
    n_games : int
        Number of games, >= 1; games ``0 .. n_games-1`` are played.
    seed : int
        Master seed, >= 0.  Game ``g`` draws from ``malta_sim.rng`` streams of
        ``(seed, g, purpose)``.
    axis_policy, allied_policy : str, optional
        Bot names accepted by the scenario; default: the scenario's first.
    options : sequence of str
        Optional rules (``--option``); order and repeats do not matter.
    n_jobs : int
        Worker processes (``-1``: every core).  With ``backend="dask"`` and no
        scheduler, the size of the local cluster.
    backend : {"local", "dask"}
        joblib/loky processes on this machine, or a ``dask.distributed`` cluster.
    scheduler : str, optional
        Dask scheduler address (``backend="dask"`` only); none: a local cluster.
    chunk_size : int, optional
        Games per ``play_games`` call and per checkpoint file; default about a
        sixteenth of each worker's share, at most 1000.  Never changes results.
    checkpoint : path, optional
        Directory for finished chunks and the manifest; re-running resumes.
        When the run is interrupted (``KeyboardInterrupt``, also SIGTERM on
        the command line) the exception carries ``malta_sim_saved``:
        ``(games saved, n_games, checkpoint folder or None)``.
    per_turn : bool
        Also return the long per-turn frame (one row per game and turn).
    data_dir : path, optional
        Game-data directory replacing the packaged data (passed to the engine,
        hashed into ``data_hash``).
    policy_params : dict, optional
        Bot parameters passed to the engine, e.g. ``{"axis": {"min_odds": 3}}``
        (JSON-able; part of the checkpoint key).
    progress : bool
        Show a tqdm progress bar (games) on stderr, with no time estimate
        until every worker has finished a chunk (:class:`_Progress`); before
        the first run of a version compiles the game kernels, say so in one
        line (:func:`malta_sim.numba_cache.kernels_cached`).
    on_error : {"raise", "skip"}
        When a game fails inside the engine (a bug, not bad data): ``"raise"``
        stops the run with the error, naming the game; ``"skip"`` leaves that
        game's row out, lists it in ``attrs["failed_games"]`` (``game``,
        ``error``) and plays on.  Data errors always stop the run.

    Returns
    -------
    games : pandas.DataFrame
        ``n_games`` rows sorted by ``game`` (RangeIndex).  Columns: ``game``
        (int64), ``seed``, ``scenario``, ``axis_policy``, ``allied_policy``,
        ``options`` (comma-joined sorted names or ``"none"``), ``policy_params``
        (JSON text), then the engine's result columns (``winner``,
        ``end_reason``, ``end_turn``, ``end_date``, steps lost, objectives
        held ...).  ``attrs`` holds the provenance (module docstring).
    per_turn : pandas.DataFrame
        Only when ``per_turn=True`` (then a tuple ``(games, per_turn)`` is
        returned): long format sorted by ``(game, turn)``.

    Raises
    ------
    OptionError
        Unknown scenario, policy or option (the message lists the valid
        choices), ``n_games < 1``, a bad seed, ``n_jobs`` or chunk size, an
        unknown backend, a scheduler given without ``backend="dask"``, a
        missing data directory, or a checkpoint made with other inputs.
    RemoteUserError
        A data or option error raised by the engine inside a worker.

    Examples
    --------
    >>> from malta_sim import run_games                                 # doctest: +SKIP
    >>> df = run_games("hercules", 1000, seed=1942, n_jobs=4)           # doctest: +SKIP
    >>> df["winner"].value_counts(normalize=True)                       # doctest: +SKIP
    """
    n_games = _check_int("n_games (--games)", n_games, 1, MAX_GAMES)
    n_jobs = _check_jobs(n_jobs)
    if backend not in BACKENDS:
        raise OptionError(f"unknown backend {backend!r}; choose one of: {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise OptionError("--scheduler needs --backend dask")
    if chunk_size is not None:
        chunk_size = _check_int("chunk_size", chunk_size, 1)
    if on_error not in ("raise", "skip"):
        raise OptionError(f"on_error must be 'raise' or 'skip', got {on_error!r}")
    inp = _validate(scenario, seed, axis_policy, allied_policy, options, data_dir, policy_params)
    ckpt = _Checkpoint(checkpoint, inp.key()) if checkpoint is not None else None

    # Which games remain.
    loaded: list[_Chunk] = []
    done = np.zeros(n_games, dtype=bool)
    if ckpt is not None:
        for a, b in ckpt.finished(per_turn, skip_failed=on_error == "skip"):
            if a >= n_games or done[a : min(b, n_games)].all():
                continue
            try:
                c = ckpt.read(a, b, per_turn)
            except (OSError, pa.ArrowException, ValueError, KeyError) as exc:
                why = " ".join(str(exc).split()) or type(exc).__name__
                print(f"checkpoint {ckpt.dir}: the file of games {a}-{b - 1} is unreadable ({why[:120]}); "
                      "playing those games again", file=sys.stderr)
                continue
            loaded.append(c)
            done[a : min(b, n_games)] = True
    todo = np.flatnonzero(~done).astype(np.int64)
    workers = n_jobs
    if chunk_size is None:
        chunk_size = max(1, min(MAX_AUTO_CHUNK, math.ceil(max(len(todo), 1) / (16 * workers))))
    ranges = _ranges(todo, chunk_size)

    inputs = {
        "seed": inp.seed,
        "axis_policy": inp.axis_policy,
        "allied_policy": inp.allied_policy,
        "options": list(inp.options),
        "data_dir": inp.data_dir,
        "policy_params": inp.policy_params,
    }
    if progress and ckpt is not None and done.any():
        print(f"resuming from {ckpt.dir}: {int(done.sum())} of {n_games} games already played", file=sys.stderr)
    if progress and len(ranges) and inp.spec.game == "island_of_death":
        from .numba_cache import COMPILE_HINT, kernels_cached

        if not kernels_cached():
            print(f"compiling the game kernels for this version of malta_sim ({COMPILE_HINT}); "
                  "this happens once, later runs start in seconds", file=sys.stderr)
    bar = _Progress(n_games, int(done.sum()), inp.spec.name, progress, workers=min(n_jobs, max(len(ranges), 1)))
    computed: list[_Chunk] = []
    try:
        if backend == "local":
            it = _run_local(inp.spec, inputs, ranges, per_turn, n_jobs, on_error)
        else:
            it = _run_dask(inp.spec, inputs, ranges, per_turn, n_jobs, scheduler, on_error)
        for chunk in it:
            if ckpt is not None:
                ckpt.write(chunk)
            computed.append(chunk)
            bar.update(chunk.stop - chunk.start)
    except KeyboardInterrupt as exc:
        saved = int(done.sum()) + sum(c.stop - c.start for c in computed) if ckpt is not None else 0
        exc.malta_sim_saved = (saved, n_games, str(ckpt.dir) if ckpt is not None else None)
        raise
    finally:
        bar.close()

    chunks = loaded + computed
    games = _assemble([c.games for c in chunks], ["game"], n_games)
    engine_prov = next((c.provenance for c in sorted(chunks, key=lambda c: c.start) if c.provenance), {})
    opt_text = ",".join(inp.options) or "none"
    params_text = json.dumps(inp.policy_params, sort_keys=True, separators=(",", ":")) if inp.policy_params else "{}"
    ids = {
        "seed": inp.seed,
        "scenario": inp.spec.name,
        "axis_policy": inp.axis_policy,
        "allied_policy": inp.allied_policy,
        "options": opt_text,
        "policy_params": params_text,
        "data_hash": inp.data_hash,
    }
    games = _with_ids(games, ids)
    attrs = {k: v for k, v in engine_prov.items() if _jsonable(v)}
    if "data_hash" in attrs and attrs["data_hash"] != inp.data_hash:
        attrs["engine_data_hash"] = attrs.pop("data_hash")
    attrs.update(
        {
            "package": "malta_sim",
            "package_version": __version__,
            "data_hash": inp.data_hash,
            "data_dir": inp.data_dir,
            "scenario": inp.spec.name,
            "game": inp.spec.game,
            "title": inp.spec.title,
            "seed": inp.seed,
            "n_games": n_games,
            "options": list(inp.options),
            "axis_policy": inp.axis_policy,
            "allied_policy": inp.allied_policy,
            "policy_params": inp.policy_params,
        }
    )
    attrs.setdefault("reconstructed_components", [])
    if on_error == "skip":
        seen: dict[int, str] = {}
        played = set(games["game"].tolist())
        for c in chunks:
            for f in c.failed:
                if f["game"] < n_games and int(f["game"]) not in played:
                    seen.setdefault(int(f["game"]), f["error"])
        attrs["failed_games"] = [{"game": g, "error": e} for g, e in sorted(seen.items())]
    games.attrs = attrs
    if not per_turn:
        return games
    turns = _assemble([c.turns for c in chunks], ["game", "turn"], n_games)
    turns.attrs = dict(attrs)
    return games, turns


def _jsonable(v: Any) -> bool:
    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError):
        return False


def _assemble(frames: list[pd.DataFrame | None], sort: list[str], n_games: int) -> pd.DataFrame:
    frames = [f for f in frames if f is not None and "game" in f.columns and len(f)]
    if not frames:
        return pd.DataFrame({"game": np.zeros(0, dtype=np.int64)})
    df = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    df = df[df["game"] < n_games]
    sort = [c for c in sort if c in df.columns]
    df = df.drop_duplicates(subset=sort).sort_values(sort, kind="stable").reset_index(drop=True)
    return df


def _with_ids(games: pd.DataFrame, ids: dict) -> pd.DataFrame:
    n = len(games)
    front = {"game": games["game"].to_numpy(dtype=np.int64)}
    for k, v in ids.items():
        front[k] = np.full(n, v, dtype=np.int64) if isinstance(v, int) else pd.Series([v] * n, dtype=object)
    front_df = pd.DataFrame(front)
    rest = games.drop(columns=[c for c in games.columns if c in front], errors="ignore")
    return _normalise(pd.concat([front_df, rest.reset_index(drop=True)], axis=1))


# --------------------------------------------------------------------------- sweeps


_ARM_KEYS = ("axis_policy", "allied_policy", "options", "policy_params", "data_dir")


@dataclass(frozen=True)
class Arm:
    """One arm of a sweep: a policy/parameter/option setting.

    Attributes
    ----------
    name : str
        Label written in the ``arm`` column.
    axis_policy, allied_policy : str or None
    options : tuple of str
    policy_params : dict or None
    data_dir : str or None
        Game-data folder of this arm (a data variant); None: the sweep's
        ``data_dir`` argument (``--data-dir``), else the packaged data.
    varied : dict
        The grid values that define this arm (flattened key -> value), written
        as extra columns.
    """

    name: str
    axis_policy: str | None = None
    allied_policy: str | None = None
    options: tuple[str, ...] = ()
    policy_params: dict | None = None
    data_dir: str | None = None
    varied: dict = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Sweep:
    """A parsed sweep file (see ``docs/batch.md``)."""

    scenario: str
    seed: int
    arms: tuple[Arm, ...]
    games: int | None = None
    source: str = ""


def _set_dotted(d: dict, dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    for p in parts[:-1]:
        nxt = d.get(p)
        if not isinstance(nxt, dict):
            nxt = {}
            d[p] = nxt
        d = nxt
    d[parts[-1]] = value


def _merge(base: dict, over: dict) -> dict:
    out = json.loads(json.dumps(base))
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def _fmt_value(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return "+".join(str(x) for x in v) or "none"
    return str(v)


def load_sweep(path: str | os.PathLike) -> Sweep:
    """Read a sweep TOML file into arms.

    The format (documented with an example in ``docs/batch.md``): top-level
    ``scenario`` and ``seed`` (and optionally ``games``); a ``[base]`` table
    with ``axis_policy``, ``allied_policy``, ``options``, ``policy_params``
    and ``data_dir`` shared by all arms; a ``[grid]`` table whose keys (those
    five, or dotted ``policy_params.<side>.<name>``) map to lists, every
    combination being one arm; and optional ``[[arm]]`` tables, each a named
    explicit arm.  ``data_dir`` names a game-data folder (a data variant,
    e.g. one written by ``malta-sim data export``); a relative path is read
    from the sweep file's folder.

    Parameters
    ----------
    path : path

    Returns
    -------
    Sweep

    Raises
    ------
    DataError
        Unreadable TOML, unknown keys, wrong types, no arms, duplicate arm names.
    OptionError
        The file does not exist.
    """
    p = Path(path)
    if not p.is_file():
        raise OptionError(f"sweep file {str(path)!r} does not exist")
    try:
        doc = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise DataError(str(p), None, None, f"not valid TOML: {exc}") from None
    valid_top = ("scenario", "seed", "games", "base", "grid", "arm")
    for k in doc:
        if k not in valid_top:
            raise DataError(str(p), None, k, f"unknown key; valid keys: {', '.join(valid_top)}")
    if not isinstance(doc.get("scenario"), str):
        raise DataError(str(p), None, "scenario", "required: a scenario name, e.g. scenario = \"hercules\"")
    seed = doc.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise DataError(str(p), None, "seed", f"must be an integer >= 0, got {seed!r}")
    games = doc.get("games")
    if games is not None and (isinstance(games, bool) or not isinstance(games, int) or games < 1):
        raise DataError(str(p), None, "games", f"must be an integer >= 1, got {games!r}")

    def check_setting(where: str, d: Any, dotted_ok: bool) -> dict:
        if not isinstance(d, dict):
            raise DataError(str(p), None, where, "must be a table")
        for k, v in d.items():
            if k in ("name",) and where.startswith("arm"):
                continue
            if dotted_ok and k.startswith("policy_params."):
                continue
            if k not in _ARM_KEYS:
                extra = ", policy_params.<side>.<name>" if dotted_ok else ""
                raise DataError(str(p), None, f"{where}.{k}", f"unknown key; valid keys: {', '.join(_ARM_KEYS)}{extra}")
        return d

    def setting(d: dict, where: str) -> dict:
        out: dict = {}
        for k, v in d.items():
            if k == "name":
                continue
            if k in ("axis_policy", "allied_policy") and not isinstance(v, str):
                raise DataError(str(p), None, f"{where}.{k}", f"must be a policy name (string), got {v!r}")
            if k == "options" and not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
                raise DataError(str(p), None, f"{where}.{k}", f"must be a list of option names, got {v!r}")
            if k == "policy_params" and not isinstance(v, dict):
                raise DataError(str(p), None, f"{where}.{k}", "must be a table, e.g. policy_params = { axis = { min_odds = 3 } }")
            if k == "data_dir":
                if not isinstance(v, str) or not v:
                    raise DataError(str(p), None, f"{where}.{k}", f"must be a folder name (string), got {v!r}")
                folder = Path(v).expanduser()
                folder = folder if folder.is_absolute() else (p.parent / folder)
                if not folder.is_dir():
                    raise DataError(str(p), None, f"{where}.{k}", f"folder {str(folder)!r} does not exist")
                v = str(folder.resolve())
            if k.startswith("policy_params."):
                pp = out.setdefault("policy_params", {})
                _set_dotted(pp, k[len("policy_params."):], v)
            elif k == "policy_params":
                out["policy_params"] = _merge(out.get("policy_params", {}), v)
            else:
                out[k] = v
        return out

    base = setting(check_setting("base", doc.get("base", {}), False), "base")
    arms: list[Arm] = []

    def make(name: str, over: dict, varied: dict) -> Arm:
        s = _merge(base, over)
        return Arm(
            name=name,
            axis_policy=s.get("axis_policy"),
            allied_policy=s.get("allied_policy"),
            options=tuple(s.get("options", ())),
            policy_params=s.get("policy_params") or None,
            data_dir=s.get("data_dir"),
            varied=varied,
        )

    grid = check_setting("grid", doc.get("grid", {}), True)
    if grid:
        keys = list(grid)
        for k in keys:
            if not isinstance(grid[k], list) or not grid[k]:
                raise DataError(str(p), None, f"grid.{k}", "must be a non-empty list of values")
        for combo in itertools.product(*(grid[k] for k in keys)):
            over_raw = dict(zip(keys, combo))
            over = setting(over_raw, "grid")
            name = ", ".join(f"{k.removeprefix('policy_params.')}={_fmt_value(v)}" for k, v in over_raw.items())
            arms.append(make(name, over, {k: _fmt_value(v) if isinstance(v, list) else v for k, v in over_raw.items()}))
    explicit = doc.get("arm", [])
    if not isinstance(explicit, list):
        raise DataError(str(p), None, "arm", "must be an array of tables: [[arm]]")
    for i, a in enumerate(explicit):
        check_setting(f"arm[{i}]", a, True)
        if not isinstance(a.get("name"), str) or not a["name"]:
            raise DataError(str(p), None, f"arm[{i}].name", "each [[arm]] needs a name")
        arms.append(make(a["name"], setting(a, f"arm[{i}]"), {}))
    if not arms:
        arms.append(make("base", {}, {}))
    names = [a.name for a in arms]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise DataError(str(p), None, "arm", f"arm names must be unique; repeated: {', '.join(dup)}")
    return Sweep(scenario=doc["scenario"], seed=seed, arms=tuple(arms), games=games, source=str(p))


def run_sweep(
    sweep: Sweep,
    n_games: int | None = None,
    *,
    seed: int | None = None,
    checkpoint: str | os.PathLike | None = None,
    data_dir: str | os.PathLike | None = None,
    per_turn: bool = False,
    progress: bool = False,
    **kwargs: Any,
):
    """Play every arm of a sweep on the same game seeds (common random numbers).

    Each arm plays games ``0 .. n_games-1`` under the same master seed, so game
    ``g`` sees the same random streams in every arm and arm differences are
    paired.

    Parameters
    ----------
    sweep : Sweep
        From :func:`load_sweep` (or built by hand).
    n_games : int, optional
        Games per arm; default ``sweep.games``.
    seed : int, optional
        Overrides ``sweep.seed``.
    checkpoint : path, optional
        Directory; each arm checkpoints into its own subdirectory named by a
        hash of its resolved inputs (policies, options, parameters, data hash,
        package version), so editing the sweep file reuses unchanged arms.
    per_turn : bool
        Also return the per-turn frames of every arm, with an ``arm`` column
        first (then a tuple ``(games, per_turn)`` is returned).
    data_dir : path, optional
        Game-data folder of the arms that do not name their own
        (:attr:`Arm.data_dir`); default the packaged data.
    progress : bool
        Before each arm's progress bar (:func:`run_games`), print which arm
        of how many it is on stderr (``arm 3 of 12: NAME``; a balance run's
        sweep says ``cell``).
    **kwargs
        Passed to :func:`run_games` (``n_jobs``, ``backend``, ``scheduler``,
        ``chunk_size``).

    Returns
    -------
    pandas.DataFrame
        ``len(arms) * n_games`` rows: ``arm`` first, then one column per
        dotted grid key (``policy_params.axis.min_odds``: its value in that
        arm), then :func:`run_games` columns; sorted
        by arm (file order) then game; every row carries its arm's
        ``data_hash``.  ``attrs`` holds the common provenance and ``arms``
        (name -> settings, with ``data_dir`` and ``data_hash``); ``data_hash``
        and ``data_dir`` are common keys only when every arm used the same
        data (otherwise ``"mixed"`` and None).

    Raises
    ------
    OptionError
        As :func:`run_games`; also when no game count is given.
    """
    n = n_games if n_games is not None else sweep.games
    if n is None:
        raise OptionError("give the number of games per arm (--games N, or games = N in the sweep file)")
    n = _check_int("games per arm (--games)", n, 1, MAX_GAMES)
    seed = sweep.seed if seed is None else seed
    varied_keys: list[str] = []
    for a in sweep.arms:
        for k in a.varied:
            if k not in varied_keys and k not in ID_COLUMNS:
                varied_keys.append(k)
    # Validate every arm before playing any game.
    resolved = []
    for a in sweep.arms:
        try:
            resolved.append(
                _validate(sweep.scenario, seed, a.axis_policy, a.allied_policy, a.options,
                          a.data_dir if a.data_dir is not None else data_dir, a.policy_params)
            )
        except OptionError as exc:
            raise OptionError(f"arm {a.name!r}: {exc}") from None
    frames = []
    turn_frames = []
    arms_attr = {}
    saved, total = 0, n * len(sweep.arms)
    try:
        for i, (a, inp) in enumerate(zip(sweep.arms, resolved)):
            if progress:  # which arm of how many the bar below is playing
                noun = "cell" if sweep.source == "balance" else "arm"
                print(f"{noun} {i + 1} of {len(sweep.arms)}: {a.name}", file=sys.stderr)
            res = _sweep_arm(sweep, a, inp, n, seed, checkpoint, per_turn, progress, kwargs)
            saved += n
            df = res[0] if per_turn else res
            if per_turn:
                t = res[1].reset_index(drop=True)
                turn_frames.append(pd.concat([pd.DataFrame({"arm": [a.name] * len(t)}), t], axis=1))
            attrs = df.attrs
            front = {"arm": [a.name] * len(df)}
            for k in varied_keys:
                v = a.varied.get(k)
                front[k] = [json.dumps(v) if isinstance(v, (dict, list)) else v] * len(df)
            frames.append(pd.concat([pd.DataFrame(front), df.reset_index(drop=True)], axis=1))
            arms_attr[a.name] = {
                "axis_policy": attrs["axis_policy"],
                "allied_policy": attrs["allied_policy"],
                "options": attrs["options"],
                "policy_params": attrs["policy_params"],
                "data_dir": attrs.get("data_dir"),
                "data_hash": attrs.get("data_hash"),
                "reconstructed_components": attrs.get("reconstructed_components", []),
            }
            if "failed_games" in attrs:
                arms_attr[a.name]["failed_games"] = attrs["failed_games"]
    except KeyboardInterrupt as exc:
        done, _, folder = getattr(exc, "malta_sim_saved", (0, n, None))
        exc.malta_sim_saved = (saved + done, total, str(checkpoint) if checkpoint is not None else folder)
        raise
    out = _normalise(pd.concat(frames, ignore_index=True))
    per_arm = ("axis_policy", "allied_policy", "options", "policy_params", "failed_games")
    common = {k: v for k, v in attrs.items() if k not in per_arm}
    hashes = {info["data_hash"] for info in arms_attr.values()}
    if len(hashes) > 1:
        common["data_hash"], common["data_dir"] = "mixed", None
        common["reconstructed_components"] = list(dict.fromkeys(
            c for info in arms_attr.values() for c in info["reconstructed_components"]))
    out.attrs = {**common, "n_games": n, "sweep_file": sweep.source, "arms": arms_attr}
    if not per_turn:
        return out
    turns = _normalise(pd.concat(turn_frames, ignore_index=True))
    turns.attrs = dict(out.attrs)
    return out, turns


def _sweep_arm(sweep, a, inp, n, seed, checkpoint, per_turn, progress, kwargs):
    """Play one arm of :func:`run_sweep` (its checkpoint in a subfolder named by its inputs)."""
    sub = None
    if checkpoint is not None:
        # Named by the arm's resolved inputs (data hash and version included), so a
        # changed arm gets a fresh subdirectory and an unchanged one resumes.
        key = json.dumps(inp.key(), sort_keys=True)
        sub = Path(checkpoint) / ("arm-" + hashlib.sha256(key.encode()).hexdigest()[:16])
    res = run_games(
        sweep.scenario,
        n,
        seed,
        axis_policy=a.axis_policy,
        allied_policy=a.allied_policy,
        options=a.options,
        policy_params=a.policy_params,
        checkpoint=sub,
        data_dir=inp.data_dir,
        per_turn=per_turn,
        progress=progress,
        **kwargs,
    )
    return res


# --------------------------------------------------------------------------- balance runs


def _bare(names: Sequence[str]) -> tuple[str, ...]:
    return tuple(n for n in names if ":" not in n)


def balance_sweep(scenario: str, seed: int, axis: Sequence[str] | None = None,
                  allied: Sequence[str] | None = None, options: Sequence[str] = ()) -> Sweep:
    """The sweep of a balance run: every Axis preset against every Allied preset.

    Parameters
    ----------
    scenario : str
        A registered scenario.
    seed : int
        Master seed shared by every cell (common random numbers).
    axis, allied : sequence of str, optional
        Presets to play (bare or ``axis:``/``allied:`` names); default every
        bot the scenario registers for that side (for Island of Death:
        :data:`malta_sim.bots.presets.AXIS_NAMES` / ``ALLIED_NAMES``, with the
        tuned presets, ``random`` included as a floor), less the presets the
        optional rules leave without effect (``solitaire`` without the
        ``solitaire`` option, which would play as ``balanced``).
    options : sequence of str
        Optional rules of every cell.

    Returns
    -------
    Sweep
        One arm per pairing, named ``"<axis> vs <allied>"``, rows (Axis)
        outer, in the given order.

    Raises
    ------
    OptionError
        Unknown scenario or preset (the message lists the valid ones), a
        preset named twice, fewer than one preset a side.
    """
    if not isinstance(scenario, str):
        raise OptionError(f"scenario must be a name (str), got {scenario!r}")
    spec = get_scenario(scenario)
    seed = _check_int("seed", seed, 0, 2**63 - 1)
    opts = _check_options(options, tuple(spec.options), spec.name)
    sides = []
    for side, given, valid in (("axis", axis, spec.axis_policies), ("allied", allied, spec.allied_policies)):
        bare = _bare(valid)
        names = list(bare) if not given else [str(n).split(":", 1)[1] if str(n).startswith(f"{side}:") else str(n)
                                              for n in given]
        if not given and spec.game == "island_of_death" and spec.play.startswith("malta_sim."):
            from .bots.presets import option_warnings

            idx = 0 if side == "axis" else 1
            names = [n for n in names if not option_warnings(n, idx, None, opts)]
        for n in names:
            if n not in bare:
                raise OptionError(f"--{side}: unknown {side} preset {n!r} for scenario {spec.name!r}; "
                                  f"choose from: {', '.join(bare)}")
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise OptionError(f"--{side}: preset {dup[0]!r} named twice")
        if not names:
            raise OptionError(f"--{side}: name at least one preset")
        sides.append(names)
    arms = tuple(Arm(name=f"{a} vs {b}", axis_policy=a, allied_policy=b, options=opts)
                 for a in sides[0] for b in sides[1])
    return Sweep(scenario=spec.name, seed=seed, arms=arms, source="balance")


def run_balance(scenario: str, n_games: int, seed: int, *, axis: Sequence[str] | None = None,
                allied: Sequence[str] | None = None, options: Sequence[str] = (),
                checkpoint: str | os.PathLike | None = None, **kwargs: Any) -> pd.DataFrame:
    """Play the preset matrix of a scenario on common random numbers.

    Every cell (Axis preset, Allied preset) plays games ``0 .. n_games-1``
    under ``seed`` (:func:`run_sweep` of :func:`balance_sweep`), so game ``g``
    has the same random streams in every cell.

    Parameters
    ----------
    scenario, seed, axis, allied, options
        See :func:`balance_sweep`.
    n_games : int
        Games per cell (>= 1).
    checkpoint : path, optional
        Folder of finished games, one subfolder per cell; re-running resumes.
    **kwargs
        Passed to :func:`run_sweep` (``n_jobs``, ``backend``, ``scheduler``,
        ``chunk_size``, ``data_dir``, ``progress``, ``on_error``, ``per_turn``:
        then a tuple ``(games, per_turn)`` is returned).

    Returns
    -------
    pandas.DataFrame
        ``cells * n_games`` rows: ``arm`` (``"<axis> vs <allied>"``), then the
        :func:`run_games` columns (``game``, ``seed``, ``axis_policy``,
        ``allied_policy``, ``winner`` ...).  ``attrs`` is the sweep's plus
        ``balance``: ``{"axis": [...], "allied": [...]}`` (row and column
        order).

    Raises
    ------
    OptionError
        As :func:`balance_sweep` and :func:`run_games`.
    """
    sw = balance_sweep(scenario, seed, axis, allied, options)
    n_games = _check_int("n_games (--games)", n_games, 1, MAX_GAMES)
    res = run_sweep(sw, n_games, checkpoint=checkpoint, **kwargs)
    info = {"axis": list(dict.fromkeys(a.axis_policy for a in sw.arms)),
            "allied": list(dict.fromkeys(a.allied_policy for a in sw.arms))}
    for frame in (res if isinstance(res, tuple) else (res,)):
        frame.attrs["balance"] = info
        frame.attrs.pop("sweep_file", None)
    return res
