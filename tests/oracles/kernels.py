"""Plain-Python statements of the compiled kernels (test oracles and the
benchmark's reference speed).

Each function takes the inputs of a kernel of :mod:`malta_sim.kernels` and
gives its answer by the most direct reading of the rule; the kernel tests
compare the two on many inputs, and ``benchmarks/bench_kernels.py`` times
both.
"""

from __future__ import annotations


from malta_sim.kernels.bombard import INEFFECTIVE, RESULT_NONE
from malta_sim.kernels.crt import CANCELLED, LEVEL_INFINITE
from malta_sim.kernels.drop import ADJACENT, GERMAN_DRM, HALF, ON_TARGET, ONE, SOLITAIRE_DRM


def py_resolve_combat(att_total, def_total, shift, line, fort, roll, crt, line_cols, col_level):
    """Plain-Python twin of :func:`resolve_combat` (same inputs, same output)."""
    att_total, def_total = int(att_total), int(def_total)
    if att_total <= 0:
        return CANCELLED, 0, 0, 0, 0
    if def_total <= 0:
        lv = LEVEL_INFINITE
    elif att_total >= def_total:
        lv = att_total // def_total + shift
    else:
        lv = 2 - (-(-def_total // att_total)) + shift
    lo, hi = int(line_cols[line][0]), int(line_cols[line][1])
    levels = [int(x) for x in col_level]
    if lv < levels[lo]:
        return CANCELLED, 0, 0, 0, 0
    col = max(j for j in range(lo, hi + 1) if levels[j] <= lv)
    ah, ae, dh, de = (int(x) for x in crt[line][col][roll])
    if fort and dh > 0:
        dh -= 1
    return col, ah, ae, dh, de


def py_drop_marker(rng, planned, german, aa_count, solitaire, is_ocean, nbr, charts, reroll_from_landing=False,
                   max_tries=1000):
    """Plain-Python twin of :func:`drop_marker` (``rng``: a ``numpy.random.Generator``);
    for the benchmark's speed-up figure and as a readable reference."""
    def d6():
        return int(rng.integers(1, 7))

    pos = planned
    for t in range(max_tries):
        m = aa_count[pos] + (GERMAN_DRM if german else 0) + (SOLITAIRE_DRM if solitaire else 0)
        roll = d6() + d6() + m
        r = 0
        while r + 1 < len(charts.drop_roll_min) and roll > charts.drop_roll_max[r]:
            r += 1
        code = int(charts.drop_marker[r])
        land = last = pos
        if code != ON_TARGET:
            n = {ADJACENT: lambda: 1, HALF: lambda: (d6() + 1) // 2, ONE: d6}.get(code, lambda: d6() + d6())()
            d = int(charts.scatter_dir[d6()])
            for _ in range(n):
                j = int(nbr[last, d])
                if j < 0:
                    land = -1
                    break
                last = land = j
        if land >= 0 and not is_ocean[land]:
            return land, t + 1
        pos = (land if land >= 0 else last) if reroll_from_landing else planned
    return -1, max_tries


def py_resolve_bombardment(strength, stack, shift, roll, bomb, bomb_columns, bomb_min_strength):
    """Plain-Python twin of :func:`resolve_bombardment`."""
    if stack <= 0:
        return INEFFECTIVE, RESULT_NONE
    row = min(stack, len(bomb_min_strength)) - 1
    cols = [int(x) for x in bomb_columns]
    if strength < bomb_min_strength[row] or strength < cols[0]:
        return INEFFECTIVE, RESULT_NONE
    j = max(i for i, v in enumerate(cols) if v <= strength)
    j = min(max(j + shift, 0), len(cols) - 1)
    return j, int(bomb[row][j][roll])


def py_line_of_fire(grid, gun: str, target: str, hex_blocks, side_blocks) -> bool:
    """Plain-Python reference built on :func:`malta_sim.hexgrid.hex_line` (hex ids)."""
    from malta_sim.hexgrid import direction_between, hex_line

    steps = hex_line(gun, target)
    blocks = lambda h: grid.contains(h) and bool(hex_blocks[grid.index(h)])  # noqa: E731

    def side(a, b):
        if not (grid.contains(a) and grid.contains(b)):
            return False
        return bool(side_blocks[grid.index(a), direction_between(a, b)])

    for s in steps[1:-1]:
        if len(s) == 1:
            if blocks(s[0]):
                return False
        else:
            if blocks(s[0]) and blocks(s[1]):
                return False
            if side(s[0], s[1]):
                return False
    for s, t in zip(steps, steps[1:]):
        if len(s) == 1 and len(t) == 1 and side(s[0], t[0]):
            return False
    return True
