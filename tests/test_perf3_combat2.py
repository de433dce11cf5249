"""The merged phase-end pass (:func:`.phase_checks.phase_end_kernel`,
:func:`.organisation.phase_end`: rules 7.2, 14.42, 2.1 in one call) against
the plain references, on random positions.

Whole games are covered by ``tests/test_perf_combat.py``, which checks every
call of :func:`.organisation.phase_end` made during games: nothing left over
the stacking limit, the caught leaders overrun in the reference's order, and
the control map equal to the reference update of the pieces left.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod.rules import organisation
from malta_sim.iod import static as st
from malta_sim.iod.rules.phase_end_checks import (PHASE_END_CAUGHT, PHASE_END_DONE,
                                                          PHASE_END_OVER, phase_end_kernel)
from malta_sim.iod.state import BOX_MAP
from tests.test_perf3_combat import _random_game
from tests.test_perf_combat import ref_caught, ref_stack_totals, ref_update_control


@pytest.mark.parametrize("seed", [11, 12])
def test_phase_end_kernel_equals_plain_checks_on_random_positions(seed):
    """One compiled phase-end pass equals the plain checks on random
    positions, from spread-out pieces to crowded hexes: the over-stacked
    answer exactly when some hex of a side is over the limit (7.1, 7.2),
    else the caught leaders (14.42) in ascending order, and the control map
    (2.1) updated only when nothing is left to do."""
    rng = np.random.default_rng(seed)
    seen = {PHASE_END_OVER: 0, PHASE_END_CAUGHT: 0, PHASE_END_DONE: 0}
    for trial in range(45):
        g = _random_game(rng, trial)
        s, t, tb = g.state, g.static, g.tables
        on = np.flatnonzero(s.box == BOX_MAP)
        n_spots = (6, 30, 200)[trial % 3]                          # crowded to spread out
        spots = rng.choice(np.unique(s.hex[on]), min(n_spots, len(np.unique(s.hex[on]))),
                           replace=False)
        half = max(1, len(spots) // 2)
        side_on = t.side[on]
        s.hex[on] = np.where(side_on == 0, rng.choice(spots[:half], len(on)),
                             rng.choice(spots[half:] if len(spots) > half else spots, len(on)))
        lead = np.flatnonzero(t.utype == st.LEADER)[:12]
        s.box[lead] = BOX_MAP
        s.hex[lead] = np.where(rng.random(len(lead)) < 0.7, rng.choice(spots, len(lead)),
                               rng.choice(np.flatnonzero(t.land), len(lead)))
        s.control[:] = rng.integers(-1, 2, len(s.control))
        before = s.control.copy()
        code, caught = phase_end_kernel(s.box, s.hex, s.level, t.side, tb.base_weight,
                                        tb.remnant_level_full, t.n_hexes, tb.leader,
                                        tb.controls, s.control)
        over = any(ref_stack_totals(g, side).max() > organisation.STACK_LIMIT_HALVES
                   for side in (0, 1))
        want = ref_caught(g)
        if over:
            assert code == PHASE_END_OVER and not len(caught)
            assert np.array_equal(s.control, before)
        elif want:
            assert code == PHASE_END_CAUGHT and caught.tolist() == want
            assert np.array_equal(s.control, before)
        else:
            assert code == PHASE_END_DONE and not len(caught)
            assert np.array_equal(s.control, ref_update_control(g, before.copy()))
        seen[code] += 1
    assert all(v > 0 for v in seen.values()), seen


def test_phase_end_overruns_caught_leaders_then_updates_control():
    """A leader left alone with an enemy battalion is overrun by
    :func:`.organisation.phase_end` (14.42: off the map either way) and the
    hex goes to the enemy (2.1)."""
    from tests.conftest import h, make, u

    g = make({"1315": ["axis.185.v_186"]})
    t = g.static
    t_leader = int(np.flatnonzero((t.utype == st.LEADER) & (t.side == 1))[0])
    g.state.box[t_leader] = BOX_MAP
    g.state.hex[t_leader] = h("1315")
    g.state.control[h("1315")] = 1
    organisation.phase_end(g)
    assert g.state.box[t_leader] != BOX_MAP
    assert g.state.control[h("1315")] == 0
    assert g.state.box[u("axis.185.v_186")] == BOX_MAP


@pytest.mark.parametrize("seed", [21, 22])
def test_ammo_routes_equal_one_route_search_per_piece(seed):
    """The compiled ammunition route test (12.56, routes of 8.2) equals one
    :func:`.supply.route_distance` search per piece (its own hex made
    passable) on random passable masks, hand-out hexes and piece positions,
    including pieces on a hand-out hex and on an impassable hex."""
    from malta_sim.iod.rules.ammunition_routes import ammo_route_ok
    from malta_sim.iod.rules.supply import MAX_ROUTE, route_distance
    from tests.conftest import static

    t = static()
    rng = np.random.default_rng(seed)
    land = np.flatnonzero(t.land)
    n_units = len(t.side)
    seen = {True: 0, False: 0}
    for trial in range(40):
        passable = t.land & (rng.random(t.n_hexes) < rng.uniform(0.3, 1.0))
        target = np.zeros(t.n_hexes, bool)
        target[rng.choice(land, rng.integers(1, 6), replace=False)] = True
        hexa = np.full(n_units, -1, np.int32)
        arts = rng.choice(n_units, 12, replace=False).astype(np.int64)
        hexa[arts] = rng.choice(land, len(arts))
        if trial % 5 == 0:
            hexa[arts[0]] = np.flatnonzero(target)[0]
        max_len = MAX_ROUTE if trial % 2 else int(rng.integers(1, 6))
        got = ammo_route_ok(arts, hexa, passable, target, t.neighbours, t.ocean_side,
                            max_len).tolist()
        want = []
        for u in arts.tolist():
            p = passable.copy()
            p[hexa[u]] = True
            dist = route_distance(int(hexa[u]), p, t.neighbours, t.ocean_side, max_len)
            want.append(bool((dist[np.flatnonzero(target)] >= 0).any()))
        assert got == want
        for w in want:
            seen[w] += 1
    assert all(v > 0 for v in seen.values()), seen
