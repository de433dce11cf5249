"""The cost of each kind of game operation, old and new code, in one process.

    python benchmarks/work_matched.py REV [--games 300] [--axis-policy balanced --allied-policy static]

Two versions playing "the same" bots need not do the same work: when a bot
was mended, a preset of the same name may move, attack or land many times
more often, so CPU time per game or per turn compares the work as much as
the engine.  This script plays both versions as :mod:`interleaved` does (one
process, 10 games at a time each) with a timer around each engine operation
that both versions have -- a unit's move (``execute_move``, rules 6.1-6.6),
an attack (``resolve_attack``, 9.3-9.8; a hostile landing's combat of rule
19.51 is left out, the old code resolved it apart), an amphibious wave
(``land_wave``, 18.x) and a paratroop stick's jump (``jump_stick``, 19.4) --
and prints, per operation, how often each version did it per game and its
mean CPU cost per call (inclusive: an attack's advance and its entries
count to the attack).  Nothing is asserted; exit status 2 when ``REV`` is
not a revision of this repository.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import interleaved as IL

#: (label, modules holding the function in either layout, function name)
OPERATIONS = (
    ("move (6.1)", ("iod.rules.movement", "games.island_of_death.movement"), "execute_move"),
    ("attack (9.3)", ("iod.rules.combat", "games.island_of_death.combat"), "resolve_attack"),
    ("amphibious wave (18)", ("iod.rules.amphibious", "games.island_of_death.hercules"), "land_wave"),
    ("stick jump (19.4)", ("iod.rules.airborne", "games.island_of_death.airborne_phase"), "jump_stick"),
)


def _module(package: str, candidates):
    for c in candidates:
        try:
            return importlib.import_module(f"{package}.{c}")
        except ModuleNotFoundError:
            continue
    raise ModuleNotFoundError(f"none of {candidates} in {package}")


def instrument(package: str) -> dict:
    """Put a CPU timer around each of :data:`OPERATIONS` in ``package``
    (the module's global, so calls from inside the module are timed too).

    Returns
    -------
    (dict, callable)
        label -> ``[calls, CPU seconds]`` (lists, updated as games play),
        and a function that puts the untimed functions back.
    """
    acc, kept = {}, []
    for label, mods, fn in OPERATIONS:
        mod = _module(package, mods)
        f = getattr(mod, fn)
        kept.append((mod, fn, f))
        cell = acc[label] = [0, 0.0]

        def timed(*a, _f=f, _cell=cell, **k):
            if k.get("drop"):                       # 19.51: not timed (see the module's text)
                return _f(*a, **k)
            c = time.process_time()
            try:
                return _f(*a, **k)
            finally:
                _cell[0] += 1
                _cell[1] += time.process_time() - c

        setattr(mod, fn, timed)

    def restore():
        for mod, fn, f in kept:
            setattr(mod, fn, f)

    return acc, restore


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="git revision to compare this checkout with")
    ap.add_argument("--games", type=int, default=300, help="games each version plays (default 300)")
    ap.add_argument("--seed", type=int, default=1942)
    ap.add_argument("--axis-policy", default=None)
    ap.add_argument("--allied-policy", default=None)
    a = ap.parse_args(argv)
    policies = {k: v for k, v in (("axis_policy", a.axis_policy), ("allied_policy", a.allied_policy)) if v}
    try:
        path, name = IL.old_package(a.rev)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
    versions, acc = {}, {}
    for v, pkg in (("old", name), ("new", "malta_sim")):
        play, kw = IL.play_fn(pkg, "hercules", policies)
        play("hercules", a.seed + 1, np.arange(20, dtype=np.int64), **kw)       # warm-up
        acc[v], _restore = instrument(pkg)
        versions[v] = (play, kw)
    block = 10
    n_blocks = max(1, a.games // block)
    for k in range(n_blocks):
        idx = np.arange(k * block, (k + 1) * block, dtype=np.int64)
        for v in (("old", "new") if k % 2 == 0 else ("new", "old")):
            play, kw = versions[v]
            play("hercules", a.seed, idx, **kw)
    n = n_blocks * block
    bots = {v: f"{kw['axis_policy']} vs {kw['allied_policy']}" for v, (_p, kw) in versions.items()}
    print(f"hercules, {n} games a version, one process; old = {a.rev} ({bots['old']}), "
          f"new = this checkout ({bots['new']})")
    print()
    print("| operation | calls per game, old / new | us per call, old / new | cost per call new/old |")
    print("|---|---|---|---:|")
    for label, _m, _f in OPERATIONS:
        (co, so), (cn, sn) = acc["old"][label], acc["new"][label]
        po = so / co * 1e6 if co else float("nan")
        pn = sn / cn * 1e6 if cn else float("nan")
        print(f"| {label} | {co / n:.1f} / {cn / n:.1f} | {po:.0f} / {pn:.0f} | {pn / po:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
