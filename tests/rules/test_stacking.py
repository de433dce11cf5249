"""Stacking (rule 7) and the checks made at every phase end with it: the stacking limit
(7.1, 7.2), caught leaders (14.42) and the control of hexes (2.1), on constructed
positions; the compiled phase-end passes and the kept stacking totals against the plain
checks on random positions.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod import static as st
from malta_sim.iod.rules import (movement, organisation, phase_end_checks as phase_checks,
                                 retreat_advance as combat_moves)
from malta_sim.iod.rules.phase_end_checks import (PHASE_END_CAUGHT, PHASE_END_DONE,
                                                  phase_end_kernel, PHASE_END_OVER)
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP

from tests.conftest import h, make, random_position, Scripted, u
from tests.oracles import iod_rules as ref


def test_rule_7_1_stacking_limits_and_7_2_check():
    g = make({"1612": ["allied.uk.8m", "allied.uk.2rwk", "allied.uk.11lf", "allied.uk.4b",
                       "allied.hq.malta", "allied.ldr.beak", "allied.uk.inf_coy.1"]},
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    assert organisation.hex_stack(g, h("1612"), ALLIED) == 9        # 4 bns + 1 company (halves)
    organisation.stacking_check(g)
    assert organisation.hex_stack(g, h("1612"), ALLIED) <= 8
    assert g.state.box[u("allied.hq.malta")] == BOX_MAP             # HQ may exceed (7.1)
    # remnants count half (17.31)
    g2 = make({"1612": [("allied.uk.8m", 2)]})
    assert organisation.hex_stack(g2, h("1612"), ALLIED) == 1


def test_stacking_limit_is_defined_once():
    """Rule 7.1: every module that tests the limit reads the one constant."""
    assert st.STACK_LIMIT_HALVES == 8
    assert organisation.STACK_LIMIT_HALVES == st.STACK_LIMIT_HALVES
    assert combat_moves._STACK_LIMIT_HALVES == st.STACK_LIMIT_HALVES
    assert phase_checks._STACK_LIMIT_HALVES == st.STACK_LIMIT_HALVES
    assert movement.STACK_ROOM == st.STACK_LIMIT_HALVES


def test_stack_totals_memo_is_read_only_and_follows_moves():
    """The kept stacking totals are returned read-only and recomputed when a
    unit moves (rule 7.1)."""
    g = make({"1315": ["axis.185.v_186", "axis.185.vi_186"]})
    a = organisation.stack_totals(g, 0)
    assert a[h("1315")] == 4 and not a.flags.writeable
    g.state.hex[u("axis.185.vi_186")] = h("1316")
    b = organisation.stack_totals(g, 0)
    assert b[h("1315")] == 2 and b[h("1316")] == 2
    assert np.array_equal(b, ref.stack_totals(g, 0))


def test_update_control_last_unit_in_hex_decides():
    """Rule 2.1 with two sides in one hex: the higher-numbered unit's side, as
    a loop over the units in order gives."""
    g = make({"1315": ["axis.185.v_186"], "1316": ["allied.uk.8m"]})
    g.state.hex[u("allied.uk.8m")] = h("1315")          # both sides in one hex
    want = ref.update_control(g, g.state.control.copy())
    organisation.update_control(g)
    assert np.array_equal(g.state.control, want)


def test_phase_end_checks_skip_only_unchanged_positions():
    """Rules 2.1, 7.2, 14.42: the phase-end checks act again as soon as a
    piece moves after a check that found nothing to do."""
    g = make({"1315": ["axis.185.v_186"], "1316": ["allied.uk.8m"]})
    organisation.update_control(g)
    assert g.state.control[h("1316")] == 1
    g.state.hex[u("axis.185.v_186")] = h("1316")
    g.state.hex[u("allied.uk.8m")] = h("1317")
    organisation.update_control(g)
    assert g.state.control[h("1316")] == 0 and g.state.control[h("1317")] == 1
    g.state.control[h("1316")] = 1                     # changed elsewhere: written again
    organisation.update_control(g)
    assert g.state.control[h("1316")] == 0
    organisation.stacking_check(g)
    stack = ["axis.185.vi_186", "axis.185.vii_186", "axis.185.ii_187", "axis.185.iv_187"]
    for name in stack:
        g.state.box[u(name)] = BOX_MAP
        g.state.hex[u(name)] = h("1316")
    organisation.stacking_check(g)                     # five battalions: one must go
    assert ref.stack_totals(g, 0)[h("1316")] <= organisation.STACK_LIMIT_HALVES


def test_phase_end_acts_again_after_a_change():
    """Rules 2.1, 7.1-7.2: after a pass that found nothing, the checks are
    skipped only while the position is unchanged; a move, a control map
    written elsewhere or an over-stacked hex are each acted on."""
    g = make({"1315": ["axis.185.v_186"], "1316": ["allied.uk.8m"]})
    s = g.state
    organisation.phase_end(g)
    assert s.control[h("1316")] == 1
    s.control[h("1316")] = 0                       # changed elsewhere: written again
    organisation.phase_end(g)
    assert s.control[h("1316")] == 1
    s.hex[u("axis.185.v_186")] = h("1316")
    s.hex[u("allied.uk.8m")] = h("1317")
    organisation.phase_end(g)
    assert s.control[h("1316")] == 0 and s.control[h("1317")] == 1
    organisation.phase_end(g)                      # unchanged: skipped, same answer
    assert s.control[h("1316")] == 0 and s.control[h("1317")] == 1
    stack = ["axis.185.vi_186", "axis.185.vii_186", "axis.185.ii_187", "axis.185.iv_187"]
    for name in stack:
        s.box[u(name)] = BOX_MAP
        s.hex[u(name)] = h("1316")
    organisation.phase_end(g)                      # five battalions: one must go (7.2)
    w = organisation.stack_weights(g)
    on = (s.box == BOX_MAP) & (s.hex == h("1316")) & (g.static.side == 0)
    assert int(w[on].sum()) <= st.STACK_LIMIT_HALVES


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
        g = random_position(rng, trial)
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
        over = any(ref.stack_totals(g, side).max() > organisation.STACK_LIMIT_HALVES
                   for side in (0, 1))
        want = ref.caught_leaders(g)
        if over:
            assert code == PHASE_END_OVER and not len(caught)
            assert np.array_equal(s.control, before)
        elif want:
            assert code == PHASE_END_CAUGHT and caught.tolist() == want
            assert np.array_equal(s.control, before)
        else:
            assert code == PHASE_END_DONE and not len(caught)
            assert np.array_equal(s.control, ref.update_control(g, before.copy()))
        seen[code] += 1
    assert all(v > 0 for v in seen.values()), seen


def test_phase_end_overruns_caught_leaders_then_updates_control():
    """A leader left alone with an enemy battalion is overrun by
    :func:`.organisation.phase_end` (14.42: off the map either way) and the
    hex goes to the enemy (2.1)."""
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


@pytest.mark.parametrize("seed", [7, 8])
def test_phase_end_checks_equal_plain_versions_on_random_positions(seed):
    """The compiled phase-end passes equal the plain versions on random
    positions with crowded hexes: over-stacking per side (7.1, 7.2), caught
    leaders (14.42) and the control map (2.1)."""
    from malta_sim.iod.rules import organisation
    from malta_sim.iod.rules.phase_end_checks import (caught_leader_list, control_update,
                                                              over_stacked)


    rng = np.random.default_rng(seed)
    seen = {"over": 0, "caught": 0}
    for trial in range(30):
        g = random_position(rng, trial)
        s, t, tb = g.state, g.static, g.tables
        on = np.flatnonzero(s.box == BOX_MAP)
        few = rng.choice(np.unique(s.hex[on]), 6, replace=False)   # crowd the pieces
        side_on = t.side[on]
        s.hex[on] = np.where(side_on == 0, rng.choice(few[:3], len(on)), rng.choice(few[3:], len(on)))
        s.hex[on[rng.random(len(on)) < 0.1]] = few[0]                # some mixed hexes
        lead = np.flatnonzero(t.utype == st.LEADER)[:12]
        s.box[lead] = BOX_MAP
        s.hex[lead] = np.where(rng.random(len(lead)) < 0.7, rng.choice(few, len(lead)),
                               rng.choice(np.flatnonzero(t.land), len(lead)))
        s.control[:] = rng.integers(-1, 2, len(s.control))
        got = over_stacked(s.box, s.hex, s.level, t.side, tb.base_weight, tb.remnant_level_full,
                           t.n_hexes).tolist()
        want = [bool(ref.stack_totals(g, side).max() > organisation.STACK_LIMIT_HALVES)
                for side in (0, 1)]
        assert got == want
        seen["over"] += sum(want)
        want = ref.caught_leaders(g)
        assert caught_leader_list(s.box, s.hex, t.side, tb.leader, tb.controls).tolist() == want
        seen["caught"] += len(want)
        want = ref.update_control(g, s.control.copy())
        control_update(s.box, s.hex, t.side, tb.controls, s.control)
        assert np.array_equal(s.control, want)
    assert all(v > 0 for v in seen.values()), seen
