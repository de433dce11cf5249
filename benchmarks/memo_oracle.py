"""Oracle for the engine's memos: play games with every memo answer checked
against a fresh computation at the moment it is used.

    python benchmarks/memo_oracle.py hercules balanced static 0 8 [opt1,opt2]

Wrapped (by monkeypatching, nothing in the package changes): the ZOC and
occupancy memos and the per-phase enemy masks of movement (5.0, 6.52), the
last-legal-move shortcut of execute_move (6.1), stack totals and the skipped
phase-end checks (7.2, 14.42, 2.1; the fused pass of organisation.phase_end
when the position is as its last pass left it), attackable hexes (9.15), the 17.7 map,
the Allied answers of the invasion engine (16.12, 18.5, 19.41), and the Axis
bot's move set-up.  Prints how many
answers were checked and every mismatch (the first example of each); exit
status 1 when any answer differed from the fresh one.  Slow (each memo use is
computed twice): a few games per pairing.
"""
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from malta_sim.games.island_of_death import movement as mv, organisation as org, combat as cb, special as sp
from malta_sim.games.island_of_death import hercules as hc
from malta_sim.games.island_of_death.engine import play_games
from malta_sim.policies import axis as ax

COUNT = collections.Counter()
FAIL = collections.Counter()
EX = {}

def bad(name, msg):
    FAIL[name] += 1
    EX.setdefault(name, msg)

def eq(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b))
    return a == b

def restore(game, name, saved):
    """Put back the memo ``name`` popped before a fresh computation (or drop
    the one that computation made, when there was none)."""
    if saved is None:
        game.extra.pop(name, None)
    else:
        game.extra[name] = saved


def fresh_wrap(mod, name, keys):
    orig = getattr(mod, name)
    def w(game, *a, **k):
        r = orig(game, *a, **k)
        saved = {kk: game.extra.pop(kk) for kk in keys if kk in game.extra}
        r2 = orig(game, *a, **k)
        for kk in keys:
            game.extra.pop(kk, None)
        game.extra.update(saved)
        COUNT[name] += 1
        if not eq(r, r2):
            bad(name, (game.game_index, game.turn, game.phase_name, a))
        return r
    setattr(mod, name, w)

fresh_wrap(mv, "_zoc_memo", ["_zoc_memo"])
fresh_wrap(mv, "_occupancy_memo", ["_occupancy_memo"])
fresh_wrap(org, "stack_totals", ["_stack_totals"])
fresh_wrap(sp, "_may_act_map", ["_delayed_reaction_map"])
for n in ("allied_unit_hexes", "dist_to_allied", "aa_within"):
    fresh_wrap(hc, n, ["_allied_answers"])

# _masks: the per-phase cache of the enemy masks vs the current position
orig_masks = mv._masks
def masks(game, u, mode):
    r = orig_masks(game, u, mode)
    side = int(game.static.side[u])
    e, f = mv.exerting_hexes(game, 1 - side)
    z = mv.paths.zoc_map(game.static.neighbours, e, (~f).astype(np.int8), mv.zoc_across(game.static))
    saved = game.extra.pop("_occupancy_memo", None)
    b, t = mv._occupancy_memo(game, 1 - side, mv._position_key(game, 1 - side))
    restore(game, "_occupancy_memo", saved)
    COUNT["_masks"] += 1
    if not (np.array_equal(z, r[0]) and np.array_equal(b, r[1]) and np.array_equal(t, r[2])):
        bad("_masks", (game.game_index, game.turn, game.phase_name, u))
    return r
mv._masks = masks

# execute_move's last_legal shortcut
orig_exec = mv.execute_move
def execm(game, m, mode):
    u = int(m.unit)
    last = game.extra.get("last_legal")
    if last is not None and int(m.dest) != int(game.state.hex[u]) and last[0] == (u, mode, bool(m.hitch), mv._version(game)):
        lp = game.extra.get("last_pred")
        c = game.extra.get("move_cache", {}).copy()
        game.extra["move_cache"] = {k: v for k, v in c.items() if k == "version"}
        fresh = mv.legal_moves(game, u, mode, hitch=m.hitch)
        game.extra["move_cache"] = c
        COUNT["last_legal"] += 1
        if fresh != dict(zip(*last[1])):
            bad("last_legal", (game.game_index, game.turn, game.phase_name, u))
        game.extra["last_legal"], game.extra["last_pred"] = last, lp
    return orig_exec(game, m, mode)
mv.execute_move = execm

# skip-if-unchanged phase-end checks: when skipping, a fresh run must do nothing
orig_sc = org.stacking_check
def sc(game):
    s = game.state
    key = (s.box.tobytes(), s.hex.tobytes(), s.level.tobytes())
    if game.extra.get("_stacking_checked") == key:
        COUNT["stacking_skip"] += 1
        saved = game.extra.pop("_stack_totals", None)
        for side in (0, 1):
            if org.stack_totals(game, side).max(initial=0) > org.STACK_LIMIT_HALVES:
                bad("stacking_skip", (game.game_index, game.turn, game.phase_name))
        restore(game, "_stack_totals", saved)
    return orig_sc(game)
org.stacking_check = sc

orig_uc = org.update_control
def uc(game):
    s = game.state
    key = (s.box.tobytes(), s.hex.tobytes(), s.control.tobytes())
    if game.extra.get("_control_updated") == key:
        COUNT["control_skip"] += 1
        before = s.control.copy()
        saved = game.extra.pop("_control_updated")
        orig_uc(game)
        if not np.array_equal(before, s.control):
            bad("control_skip", (game.game_index, game.turn, game.phase_name))
            s.control[:] = before
        game.extra["_control_updated"] = saved
    return orig_uc(game)
org.update_control = uc

orig_cl = org.caught_leaders
def cl(game):
    s, tb = game.state, game.tables
    key = (s.box.tobytes(), s.hex.tobytes())
    if game.extra.get("_leaders_checked") == key:
        COUNT["leaders_skip"] += 1
        for ld in (tb.leader & (s.box == org.BOX_MAP)).nonzero()[0].tolist():
            h, side = int(s.hex[ld]), tb.side[ld]
            here = game.units_at(h).tolist()
            if any(tb.side[x] != side and tb.controls_l[x] for x in here) and \
                    not any(tb.side[x] == side and tb.controls_l[x] for x in here):
                bad("leaders_skip", (game.game_index, game.turn, game.phase_name, ld))
    return orig_cl(game)
org.caught_leaders = cl

# the skipped phase-end pass (7.2, 14.42, 2.1): when skipped, a fresh pass on
# the same position must find nothing to do and leave the control map as it is
orig_pe = org.phase_end
def pe(game):
    s, t, tb = game.state, game.static, game.tables
    key = (s.box.tobytes(), s.hex.tobytes(), s.level.tobytes(), s.control.tobytes())
    if game.kept("_phase_end", 0, key) is not None:
        COUNT["phase_end_skip"] += 1
        ctl = s.control.copy()
        code, _ = org.phase_end_kernel(s.box, s.hex, s.level, t.side, tb.base_weight,
                                       tb.remnant_level_full, t.n_hexes, tb.leader, tb.controls, ctl)
        if code != org.PHASE_END_DONE or not np.array_equal(ctl, s.control):
            bad("phase_end_skip", (game.game_index, game.turn, game.phase_name))
    return orig_pe(game)
org.phase_end = pe

# the Axis bot's move set-up (objectives, enemy hexes, envelopment), kept per position
if hasattr(ax.AxisBot, "_move_setup"):
    orig_ms = ax.AxisBot._move_setup

    def move_setup(self, game):
        r = orig_ms(self, game)
        saved = self._move_memo
        self._move_memo = None
        f = orig_ms(self, game)
        self._move_memo = saved
        COUNT["move_setup"] += 1
        if not eq(list(r[:5]), list(f[:5])):
            bad("move_setup", (game.game_index, game.turn, game.phase_name))
        return r
    ax.AxisBot._move_setup = move_setup

if __name__ == "__main__":
    scen, a, b, n0, n1 = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    opts = tuple(o for o in (sys.argv[6].split(",") if len(sys.argv) > 6 else []) if o)
    r = play_games(scen, 5, range(n0, n1), axis_policy=a, allied_policy=b, options=opts)
    print(scen, a, b, opts, n1 - n0, "games")
    print("checks:", dict(COUNT))
    print("FAILURES:", dict(FAIL))
    for k, v in EX.items():
        print("  first", k, v)
    sys.exit(1 if FAIL else 0)
