"""Count what unit entry actually does: how often each branch of the entry
loop (``movement._enter``: overrun 6.52, control 2.1, forts 17.1) and of the
invasion entry hook (``hercules.on_enter_hex``: coastal guns 16.58,
strongpoints 16.22, militia uprisings 16.32) is taken through whole games.

    python benchmarks/entry_branches.py [--scenario hercules] [--games 30] [--seed 1942]

Plays the games under the scenario's default bots (the first policies the
registry lists) with counting wrappers around ``movement._enter`` and the
registered ``on_enter_hex`` hook, and prints the counts per game.  The
wrappers only read the state (they call the wrapped functions unchanged), so
the games play exactly as without them.

What is counted:

* ``enter``: calls (by entry kind ``how``), hexes entered, entering units,
  hexes looked up for enemy pieces, hexes found holding enemy pieces (the
  overrun of 6.52 is tried), forts destroyed (17.1); read when the call
  starts (enemy pieces only leave the hexes of a path during the call).
* ``hook``: every call of the hook, read just before it, in one of these
  exclusive classes:

  - ``not an Axis unit``: Allied units (and off-map hexes): nothing happens;
  - ``nothing``: no gun or strongpoint in or next to the hex, and no town or
    city to note or roll for (none near, none pending, or the cup empty);
  - ``town noted``: a hex passed through with a town near and militia in the
    cup: the hex's towns are added to the pending list, nothing else;
  - ``all rolled``: the end of a path with towns to roll for, every one of
    them rolled for already: at most the pending list is dropped;
  - ``uprising roll``: a town not yet rolled for (16.32 dice are drawn);
  - ``gun``/``strongpoint``/``revealed strongpoint``: a coastal gun in the
    hex (16.58), an unrevealed strongpoint in or next to it (16.22), or only
    strongpoints revealed already (revealing them again changes nothing);
    these take precedence over the militia classes.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

#: The exclusive classes of a hook call (see the module docstring).
HOOK_CLASSES = ("not an Axis unit", "nothing", "town noted", "all rolled", "uprising roll", "gun",
                "strongpoint", "revealed strongpoint")


def _hook_class(game, u: int, h: int, how: str) -> str:
    """The class of one call of the entry hook, read from the state just
    before it (mirrors the branches of ``hercules.on_enter_hex``; reads only)."""
    from malta_sim.games.island_of_death import hercules as hc
    from malta_sim.games.island_of_death import static as st
    from malta_sim.games.island_of_death.state import ALLIED, BOX_CUP
    s, t = game.state, game.static
    inv = hc.inv_static(game)
    if h < 0 or not inv.entry_effects[u]:
        return "not an Axis unit"
    guns = s.hex[(t.utype == st.COASTAL_GUN) & (t.side == ALLIED)]
    if h in guns.tolist():
        return "gun"
    sp = (t.utype == st.STRONGPOINT) & (t.side == ALLIED)
    near_h = inv.near_sets[h]
    sp_near = [bool(r) for x, r in zip(s.hex[sp].tolist(), s.revealed[sp].tolist()) if x in near_h]
    if sp_near:
        return "strongpoint" if not all(sp_near) else "revealed strongpoint"
    near = inv.urban_near[h]
    cup = BOX_CUP in s.box[t.utype == st.MILITIA].tolist()
    pending = game.extra.get("militia_pending")
    if how == "move":
        return "town noted" if near and cup else "nothing"
    if not cup or not (near or (how == "move_end" and pending is not None)):
        return "nothing"
    towns = (list(pending) if how == "move_end" and pending else []) + list(near)
    rolled = s.militia_rolled
    if any(x >= 0 and inv.urban[x] and not rolled[x] for x in towns):
        return "uprising roll"
    return "all rolled"


def count_entries(scenario: str = "hercules", games: int = 30, seed: int = 1942,
                  axis_policy: str | None = None, allied_policy: str | None = None) -> tuple[Counter, object]:
    """Play ``games`` games with the counting wrappers in place (removed
    afterwards, also on an error).

    Returns
    -------
    counts : Counter
        ``"enter: ..."`` and ``"hook: ..."`` keys (totals over the games).
    result : GameBatchResult
        The games' results (with the event log).
    """
    from malta_sim.games.island_of_death import load_invasion_modules, movement, sequence
    from malta_sim.games.island_of_death.state import AXIS
    from malta_sim.games.registry import get_scenario

    spec = get_scenario(scenario)
    axis_policy = axis_policy or spec.axis_policies[0]
    allied_policy = allied_policy or spec.allied_policies[0]
    load_invasion_modules()                     # the hooks are registered on first load
    c: Counter = Counter()
    enter, hook = movement._enter, sequence.HOOKS.get("on_enter_hex")

    def counted_enter(game, side, real, path, how, enemy_hexes, mover=None):
        s, t = game.state, game.static
        c["enter: calls"] += 1
        c[f"enter: calls how={how}"] += 1
        c["enter: hexes"] += len(path)
        c["enter: units"] += len(real)
        if real:
            with_hook = not game.skip_invasion and sequence.HOOKS.get("on_enter_hex") is not None
            c["enter: unit-hex pairs (hook calls due)"] += len(real) * len(path) * with_hook
            for h in path:
                if enemy_hexes is None or h in enemy_hexes:
                    c["enter: enemy lookups"] += 1
                    if len(game.units_at(h, 1 - side)):
                        c["enter: enemy found (6.52 overrun tried)"] += 1
                if side == AXIS and t.fort[h] and not s.fort_destroyed[h]:
                    c["enter: fort destroyed (17.1)"] += 1
        else:
            c["enter: calls without units"] += 1
        return enter(game, side, real, path, how, enemy_hexes, mover)

    def counted_hook(game, u, h, how="move"):
        c["hook: calls"] += 1
        c["hook: " + _hook_class(game, u, h, how)] += 1
        return hook(game, u, h, how)

    movement._enter = counted_enter
    if hook is not None:
        sequence.HOOKS["on_enter_hex"] = counted_hook
    try:
        res = spec.play_fn()(scenario, seed, np.arange(games), axis_policy=axis_policy,
                             allied_policy=allied_policy, options=(), data_dir=None, event_log=True)
    finally:
        movement._enter = enter
        if hook is not None:
            sequence.HOOKS["on_enter_hex"] = hook
    return c, res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="hercules")
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1942)
    a = ap.parse_args(argv)
    c, _ = count_entries(a.scenario, a.games, a.seed)
    print(f"{a.games} {a.scenario} games (default bots): totals and per game")
    for k in sorted(c):
        print(f"  {k:48s} {c[k]:8d} {c[k] / a.games:9.1f}")


if __name__ == "__main__":
    main()
