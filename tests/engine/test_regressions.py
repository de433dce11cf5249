"""Regression tests for illegal decisions once made by built-in policies."""
import numpy as np

from malta_sim.iod import static as st
from malta_sim.play import new_game, play_games
from malta_sim.iod.rules.organisation import fits_stacking, stack_weight
from malta_sim.iod.state import AXIS
from malta_sim.bots import make_policy


def test_random_choose_advance_respects_stacking_limit():
    """Rule 9.83: the random policy never advances more into the attacked hex
    than the stacking limit (7.1) allows, however many units are eligible."""
    g = new_game("intro", 5, 0)
    t = g.static
    bns = [int(u) for u in range(t.n_units)
           if t.side[u] == AXIS and t.size[u] == st.BATTALION and t.utype[u] != st.LEADER
           and stack_weight(g, int(u)) == 2][:8]
    assert len(bns) == 8                       # 16 halves: twice the limit
    target = next(int(x) for x in np.flatnonzero(t.land) if not len(g.units_at(int(x), AXIS)))
    pol = make_policy("random", AXIS)
    sizes = set()
    for _ in range(200):
        out = pol.choose_advance(g, bns, target, 1)
        assert not out or fits_stacking(g, out, target)
        sizes.add(len(out))
    assert max(sizes) == 4                     # the limit is reached, never passed


def test_hercules_1942_game_102_is_legal():
    """Rule 10.32: Hercules seed 1942 game 102 (balanced Axis, static Allies)
    once raised an illegal penetration attempt without a unit with or next to
    its leader; it must play to the end."""
    r = play_games("hercules", 1942, [102], axis_policy="balanced", allied_policy="static")
    assert len(r.games) == 1 and r.games["winner"].iloc[0] in ("axis", "allied", "none")
