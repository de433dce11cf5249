"""Capture the calls of compiled kernels in whole seeded games, then replay
them: time a kernel alone over the recorded calls and check that a kernel
(the current one, or a candidate) gives the recorded answers on every call.

    python benchmarks/kernel_replay.py capture -o calls.pkl [--kernel axis_walk_kernel ...]
        [--scenario hercules --scenario intro] [--games 20] [--seed 1942]
    python benchmarks/kernel_replay.py replay calls.pkl [--kernel NAME ...]
        [--candidate NAME=module:function] [--vs NAME=module:function --rounds 3] [--repeat 3]

``capture`` plays ``--games`` seeded games of each scenario under its default
bots (after a warm-up block, so no kernel is typed while recording) with the
named kernels (numba dispatchers bound at a ``malta_sim`` module's top level,
as :mod:`benchmarks.kernel_share` finds them; default: the six that take the
most of a game) wrapped: each call's arguments are kept as copies taken
before the call, and its answer as the returned value together with every
argument array the kernel wrote to (``out_*`` buffers).  Arrays are kept
once per distinct content (static tables are shared by all calls), with
their read-only flag, so a replayed call is typed as the recorded one.

``replay`` calls each kernel (the module's current one, or the
``--candidate`` function given for it) on fresh copies of every recorded
call, checks that every returned array and every written argument equals the
recorded one (``np.array_equal``; float arrays compared bit for bit, NaN
included) and reports the time inside the calls: microseconds per call, the
best of ``--repeat`` passes over all calls (argument copies not timed).  A
capture saved from an older commit therefore times old against new on the
very same inputs and checks that the new kernel answers as the old one did;
``--vs`` times another version (the older kernel kept as a reference)
alternately with it in one process, ``--rounds`` times, the best of each kept.

:func:`capture` and :func:`check_calls` are the library entries (used by
``tests/batch/test_benchmarks.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

#: kernels captured by default (the largest share of a game's compiled time)
DEFAULT_KERNELS = ("axis_walk_kernel", "best_attack", "plan_kernel", "plan_targets",
                   "garrison_kernel", "units_in_run")


# ------------------------------------------------------------------ values
class _Pool:
    """Arrays kept once per distinct content (dtype, shape, bytes, read-only flag)."""

    def __init__(self):
        self.arrays: list[np.ndarray] = []
        self._key: dict[tuple, int] = {}

    def put(self, a: np.ndarray) -> int:
        c = np.ascontiguousarray(a)
        key = (a.dtype.str, a.shape, bool(a.flags.writeable), hashlib.blake2b(c.view(np.uint8).reshape(-1).data if c.size else b"", digest_size=16).digest())
        i = self._key.get(key)
        if i is None:
            k = a.copy()
            k.flags.writeable = bool(a.flags.writeable)
            i = self._key[key] = len(self.arrays)
            self.arrays.append(k)
        return i


def _pack(v, pool: _Pool):
    """A recorded value: arrays as pool references, tuples/lists element by element."""
    if isinstance(v, np.ndarray):
        return ("A", pool.put(v))
    if isinstance(v, tuple):
        return ("T", tuple(_pack(x, pool) for x in v))
    if isinstance(v, list):
        return ("L", [_pack(x, pool) for x in v])
    return ("V", v)


def _unpack(p, arrays: list[np.ndarray], fresh: bool):
    """The value of a recorded one; ``fresh``: arrays copied (read-only flag kept)."""
    tag, x = p
    if tag == "A":
        a = arrays[x]
        if not fresh:
            return a
        c = a.copy()
        c.flags.writeable = a.flags.writeable
        return c
    if tag == "T":
        return tuple(_unpack(y, arrays, fresh) for y in x)
    if tag == "L":
        return [_unpack(y, arrays, fresh) for y in x]
    return x


def same(a, b) -> bool:
    """Exact equality of two kernel answers: arrays by dtype, shape and bytes
    (floats bit for bit), tuples element by element, scalars by ``==`` (NaN
    equal to NaN)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return type(a) is type(b) and a == b


def _walk_view(out):
    """What the callers read of an :func:`axis_walk_kernel` answer: the
    steps, and for each MOVE row ``r`` the first ``k`` destinations and MP,
    the predecessors, the position after it and the first ``n_path`` hexes
    of its path (the rest of those rows is working space, never read)."""
    steps = out[0]
    parts = [steps]
    for r in range(steps.shape[0]):
        _s, what, _b, k, plen, _a = steps[r].tolist()
        if what == 1:
            parts += [out[1][r, :k], out[2][r, :k], out[3][r], out[4][r], out[5][r], out[6][r],
                      out[7][r, :plen]]
    return tuple(parts)


#: per kernel, the part of its answer the callers read, where that is not all of it
VIEWS = {"axis_walk_kernel": _walk_view}


def _ring_args(name: str):
    """Bring arguments of kernel ``name`` recorded before it took ``ring``
    (:func:`malta_sim.bots.move_choice.near_table` of ``dist``) to its
    current signature: ``ring`` put in where the signature has it."""
    def adapt(a: tuple) -> tuple:
        import inspect

        from malta_sim.bots import move_choice

        params = list(inspect.signature(getattr(move_choice, name).py_func).parameters)
        if "ring" in params and len(a) == len(params) - 1:
            r = params.index("ring")
            return a[:r] + (move_choice.near_table(a[params.index("dist")]),) + a[r:]
        return a
    return adapt


#: per kernel, how arguments recorded from an older signature are brought
#: to the current one (a capture from an older commit stays usable)
ADAPT = {"axis_walk_kernel": _ring_args("axis_walk_kernel")}


# ------------------------------------------------------------------ capture
def _bindings(names) -> dict[str, list[tuple[object, str, object]]]:
    """Per kernel name, every ``(module, name, dispatcher)`` binding of it in
    the package (found as :func:`benchmarks.kernel_share._dispatchers` finds them)."""
    from benchmarks.kernel_share import _dispatchers

    out: dict[str, list] = {n: [] for n in names}
    for mod, name, disp in _dispatchers():
        if name in out:
            out[name].append((mod, name, disp))
    missing = [n for n, b in out.items() if not b]
    if missing:
        raise SystemExit(f"no compiled kernel named {missing}")
    return out


def capture(kernels=DEFAULT_KERNELS, scenarios=("hercules", "intro"), n_games: int = 20,
            seed: int = 1942, warm_games: int = 5) -> dict:
    """Record the calls of ``kernels`` in ``n_games`` seeded games of each
    scenario (default bots).

    Returns ``{"arrays": [ndarray], "calls": {kernel: [(args, written, out)]}}``:
    ``args`` the packed arguments before the call, ``written`` the positions
    of the argument arrays the call changed with their packed values after
    it, ``out`` the packed returned value.
    """
    from malta_sim.games.registry import get_scenario

    bind = _bindings(kernels)
    pool = _Pool()
    calls: dict[str, list] = {k: [] for k in kernels}

    def wrapped(name, disp):
        rec = calls[name]

        def call(*a, **k):
            if k:
                raise TypeError(f"{name} called with keywords; capture records positional calls")
            before = _pack(a, pool)
            out = disp(*a)
            after = _pack(a, pool)
            written = tuple((i, q) for i, (p, q) in enumerate(zip(before[1], after[1])) if p != q)
            rec.append((before, written, _pack(out, pool)))
            return out
        return call

    for scen in scenarios:
        spec = get_scenario(scen)
        play = spec.play_fn()
        kw = dict(axis_policy=spec.axis_policies[0], allied_policy=spec.allied_policies[0],
                  options=(), data_dir=None)
        play(scen, seed + 1, np.arange(warm_games), **kw)     # every kernel typed before the wrappers
        try:
            for name, bs in bind.items():
                for mod, attr, disp in bs:
                    setattr(mod, attr, wrapped(name, disp))
            play(scen, seed, np.arange(n_games), **kw)
        finally:
            for bs in bind.values():
                for mod, attr, disp in bs:
                    setattr(mod, attr, disp)
    return {"arrays": pool.arrays, "calls": calls}


# ------------------------------------------------------------------ replay
def resolve(name: str, candidate: str | None = None):
    """The function to replay for kernel ``name``: ``candidate``
    (``module:function``) or the package's current dispatcher of that name."""
    if candidate:
        mod, attr = candidate.split(":")
        return getattr(importlib.import_module(mod), attr)
    return _bindings([name])[name][0][2]


def check_calls(fn, recorded: list, arrays: list[np.ndarray], name: str = "") -> list[int]:
    """Indices of the recorded calls on which ``fn`` answers otherwise than
    recorded (returned value, or an argument array it writes; only the part
    :data:`VIEWS` names for kernel ``name``, where it names one)."""
    view = VIEWS.get(name, lambda x: x)
    adapt = ADAPT.get(name, lambda x: x)
    bad = []
    for n, (args, written, out) in enumerate(recorded):
        a = _unpack(args, arrays, True)
        got = fn(*adapt(a))
        ok = same(view(got), view(_unpack(out, arrays, False)))
        for i, q in written:
            ok = ok and same(a[i], _unpack(q, arrays, False))
        if not ok:
            bad.append(n)
    return bad


def time_calls(fn, recorded: list, arrays: list[np.ndarray], repeat: int = 3, name: str = "") -> float:
    """Seconds inside ``fn`` over all recorded calls (fresh argument copies,
    not timed), the best of ``repeat`` passes."""
    adapt = ADAPT.get(name, lambda x: x)
    prepared = [adapt(_unpack(args, arrays, True)) for args, _w, _o in recorded]
    best = float("inf")
    clock = time.perf_counter
    for _ in range(repeat):
        fresh = [tuple(x.copy() if isinstance(x, np.ndarray) and x.flags.writeable else x for x in a)
                 for a in prepared]
        tot = 0.0
        for a in fresh:
            t0 = clock()
            fn(*a)
            tot += clock() - t0
        best = min(best, tot)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("-o", "--out", required=True)
    c.add_argument("--kernel", action="append")
    c.add_argument("--scenario", action="append")
    c.add_argument("--games", type=int, default=20)
    c.add_argument("--seed", type=int, default=1942)
    r = sub.add_parser("replay")
    r.add_argument("file")
    r.add_argument("--kernel", action="append")
    r.add_argument("--candidate", action="append", default=[], help="NAME=module:function")
    r.add_argument("--vs", action="append", default=[],
                   help="NAME=module:function timed alternately with the kernel (e.g. the older version)")
    r.add_argument("--repeat", type=int, default=3)
    r.add_argument("--rounds", type=int, default=1, help="alternations (with --vs)")
    a = ap.parse_args(argv)
    if a.cmd == "capture":
        data = capture(tuple(a.kernel or DEFAULT_KERNELS), tuple(a.scenario or ("hercules", "intro")),
                       a.games, a.seed)
        with open(a.out, "wb") as f:
            pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)
        for k, v in data["calls"].items():
            print(f"{k:28s} {len(v):6d} calls")
        print(f"{len(data['arrays'])} distinct arrays, "
              f"{sum(x.nbytes for x in data['arrays']) / 2**20:.1f} MiB")
        return 0
    with open(a.file, "rb") as f:
        data = pickle.load(f)
    cands = dict(x.split("=", 1) for x in a.candidate)
    vs = dict(x.split("=", 1) for x in a.vs)
    fails = 0
    for name in a.kernel or list(data["calls"]):
        rec = data["calls"][name]
        if not rec:
            continue
        fns = [("", resolve(name, cands.get(name)))]
        if name in vs:
            fns.append((vs[name], resolve(name, vs[name])))
        best = {}
        for label, fn in fns:
            bad = check_calls(fn, rec, data["arrays"], name)    # also types every signature before timing
            fails += len(bad)
            best[label] = (float("inf"), bad)
        for _ in range(a.rounds):                               # alternately, the best of all rounds
            for label, fn in fns:
                s = time_calls(fn, rec, data["arrays"], a.repeat, name)
                best[label] = (min(best[label][0], s), best[label][1])
        for label, (s, bad) in best.items():
            print(f"{name:28s} {len(rec):6d} calls {1e6 * s / len(rec):8.2f} us/call  "
                  f"{'same' if not bad else f'DIFFERENT on {len(bad)} calls (first {bad[:5]})'}"
                  f"{'  (' + label + ')' if label else ''}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
