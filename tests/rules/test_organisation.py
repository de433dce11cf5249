"""Breaking down and reforming battalions (rule 13), leaders (14) and formations (15) on
constructed positions, with the rulebook's example of 13.2; the battalions offered for a
break-down, the reform options, the formations offered for attachment and the
commanding leaders against plain references on random positions.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod import static as st
from malta_sim.iod.rules import combat, organisation
from malta_sim.iod.state import (AXIS, BOX_DISBANDMENT, BOX_MAP, BOX_POOL, BOX_TURN_TRACK,
                                 DEMORALIZED, DISORGANIZED)

from tests.conftest import h, make, random_position, Recorder, static, u
from tests.oracles import iod_rules as ref


def _ramcke_broken_down():
    g = make({"1210": ["axis.ram.1_2"]})
    s, t = g.state, static()
    b = u("axis.ram.1_2")
    assert organisation.can_break_down(g, b)
    comps = organisation.break_down(g, b)                          # 13.1
    assert sorted(t.names[c] for c in comps) == ["axis.ram.1_2.a", "axis.ram.1_2.b", "axis.ram.1_2.c"]
    assert s.box[b] == BOX_DISBANDMENT and all(s.hex[c] == h("1210") for c in comps)
    return g, b, comps


def _reform_and_check(g, b, comps, disorganized: bool):
    s, t = g.state, static()
    opts = organisation.reform_options(g, AXIS)
    assert len(opts) == 1
    organisation.reform(g, opts[0])
    assert s.box[b] == BOX_MAP and s.hex[b] == h("1210")
    lv = s.level[b]
    assert (t.attack[b, lv], t.defense[b, lv], t.ma[b, lv]) == (4, 5, 7)
    assert (s.morale_state[b] == DISORGANIZED) == disorganized
    assert all(s.box[c] != BOX_MAP for c in comps)


def test_rule_13_2_reform_example():
    """13.2 example: Ramcke's battalion breaks down into its three 6-7-7
    companies (13.1); one of them is turned to its reduced side (what rule
    19.46 or 17.83 leaves: ``reduced`` and its second level) and disorganized;
    they meet again in one hex: the battalion returns at 4-5-7, disorganized,
    and the companies leave the map."""
    from malta_sim.iod.rules import morale

    g, b, comps = _ramcke_broken_down()
    hurt = u("axis.ram.1_2.c")
    g.state.reduced[hurt] = True
    g.state.level[hurt] = 1
    morale.disorganize(g, [hurt])
    _reform_and_check(g, b, comps, disorganized=True)


def test_rule_13_2_reform_after_a_company_is_lost():
    """Rule 13.2: a company eliminated by a step loss (9.5) costs the battalion
    a step when the other two reform it: 4-5-7, in good order."""
    g, b, comps = _ramcke_broken_down()
    combat.take_steps(g, [u("axis.ram.1_2.c")], 1, "combat")
    assert g.state.box[u("axis.ram.1_2.c")] != BOX_MAP
    _reform_and_check(g, b, comps, disorganized=False)


def test_rule_13_2_no_reform_with_a_demoralized_company():
    """Rule 13.2: none of the companies may be demoralized."""
    g = make({"1210": ["axis.ram.1_2"]})
    comps = organisation.break_down(g, u("axis.ram.1_2"))
    g.state.morale_state[comps[0]] = DEMORALIZED
    assert organisation.reform_options(g, AXIS) == []


def test_rule_13_1_breakdown():
    g = make({"1612": [("allied.uk.8m", 1)]})
    b = u("allied.uk.8m")
    assert organisation.can_break_down(g, b)
    comps = organisation.break_down(g, b)
    assert len(comps) == 2                                            # 3 companies - 1 step lost
    assert g.state.box[b] == BOX_DISBANDMENT
    assert all(g.state.hex[c] == h("1612") for c in comps)
    g2 = make({"1612": [("allied.uk.8m", 2)]})
    assert not organisation.can_break_down(g2, b)                     # remnant
    g3 = make({"1612": ["allied.mt.1k"]})
    assert not organisation.can_break_down(g3, u("allied.mt.1k"))     # Maltese


def test_rule_14_41_leader_casualty_and_14_43_return():
    g = make({"1612": ["allied.uk.8m", "allied.ldr.beak", "allied.hq.malta"]}, turn=8)
    ld = u("allied.ldr.beak")
    organisation.leader_eliminated(g, ld)
    assert g.state.box[ld] == BOX_TURN_TRACK and g.state.level[ld] == 1   # ADC side
    assert g.state.return_turn[ld] == 12
    g.state.turn[0] = 12
    organisation.return_leaders_and_hqs(g, initial_segment=True)
    assert g.state.box[ld] == BOX_MAP and g.state.hex[ld] == h("1612")


def test_rule_14_42_leader_caught_with_enemy_units():
    g = make({"1413": ["allied.mil.4", "axis.ram.ldr.ramcke"]}, turn=8)
    organisation.caught_leaders(g)
    ld = u("axis.ram.ldr.ramcke")
    assert g.state.box[ld] == BOX_TURN_TRACK                      # eliminated (ADC) or escaped
    assert g.state.return_turn[ld] in (9, 12)


@pytest.mark.parametrize("seed", [3, 4])
def test_reorganisation_candidates_equal_plain_tests_on_random_positions(seed):
    """breakdowns (13.1) and reform_options (13.2) find the battalions the
    per-battalion tests accept, in the same order, on random boxes, levels,
    parents, reduced flags and morale states."""
    from malta_sim.iod.rules import organisation
    from malta_sim.iod.state import (BOX_DISBANDMENT, BOX_ELIMINATED,
                                                       BOX_POOL)


    rng = np.random.default_rng(seed)
    seen = {"breakdown": 0, "reform": 0}
    for trial in range(40):
        g = random_position(rng, trial, policies=(Recorder(0), Recorder(1)))
        s, t = g.state, g.static
        n = len(s.box)
        comp = np.flatnonzero(t.size == st.COMPANY)
        bns = np.flatnonzero((t.size == st.BATTALION) & (s.box == BOX_MAP))
        boxes = np.array([BOX_POOL, BOX_DISBANDMENT, BOX_ELIMINATED, BOX_MAP])
        s.box[comp] = boxes[rng.integers(0, 4, len(comp))]
        s.parent[:] = -1
        if len(bns):
            gone = rng.choice(bns, min(len(bns), 6), replace=False)
            for b in gone:                      # broken down: companies on the map nearby
                s.box[b] = BOX_DISBANDMENT
                kids = rng.choice(comp, 3, replace=False)
                s.parent[kids] = b
                s.box[kids] = np.where(rng.random(3) < 0.8, BOX_MAP, BOX_ELIMINATED)
                h = int(s.hex[b]) if s.hex[b] >= 0 else int(np.flatnonzero(t.land)[0])
                s.hex[kids] = np.where(rng.random(3) < 0.8, h, h + 1)
                s.hex[b] = -1
        s.hex[s.box != BOX_MAP] = -1
        s.reduced[:] = rng.random(n) < 0.3
        for side in (0, 1):
            want = ref.breakdown_candidates(g, side)
            got = g.policy(side).offered["breakdowns"]
            got.clear()
            organisation.breakdowns(g, side)
            assert got == ([want] if want else [])
            seen["breakdown"] += len(want)
            want = ref.reform_options(g, side)
            assert organisation.reform_options(g, side) == want
            seen["reform"] += len(want)
    assert all(v > 0 for v in seen.values()), seen


@pytest.mark.parametrize("seed", [9, 10])
def test_attachment_options_equal_plain_version_on_random_positions(seed):
    """The formations offered to each Axis unit (15.21) equal the per-unit
    version on random crowded positions with random current formations."""
    rng = np.random.default_rng(seed)
    n_opts = 0
    for trial in range(30):
        g = random_position(rng, trial, policies=(Recorder(0), Recorder(1)))
        s, t = g.state, g.static
        on = np.flatnonzero(s.box == BOX_MAP)
        few = rng.choice(np.unique(s.hex[on]), 5, replace=False)
        s.hex[on] = rng.choice(few, len(on))
        keep = rng.random(len(s.formation)) < 0.6
        s.formation[:] = np.where(keep, t.printed_formation,
                                  rng.integers(-1, t.printed_formation.max() + 1, len(keep)))
        want = ref.attachment_options(g)
        got = g.policy(0).offered["attachments"]
        organisation.formation_changes(g)
        assert got == ([want] if want else [])
        assert not got or list(got[0]) == list(want)
        n_opts += len(want)
    assert n_opts > 0


def _leaders_in_plain(game, h, side):
    """The leaders of ``side`` in hex ``h`` from the unit query (rule 14.3)."""
    return [int(x) for x in game.units_at(h, side).tolist() if game.static.utype[x] == st.LEADER]


@pytest.mark.parametrize("seed", [81, 82])
def test_command_leader_and_leaders_in_equal_plain_on_random_positions(seed):
    """Random positions with the leaders placed next to random groups, random
    leader uses and levels: the same commanding leader and the same leaders
    per hex as the plain versions (rules 14.2, 14.21, 14.3, 15.3)."""
    rng = np.random.default_rng(seed)
    found = 0
    for trial in range(8):
        g = random_position(rng, trial)
        s, t = g.state, g.static
        own_hexes = np.unique(s.hex[s.box == BOX_MAP])
        for ld in np.flatnonzero(t.utype == st.LEADER).tolist():
            if rng.random() < 0.8:
                s.box[ld] = BOX_MAP
                s.hex[ld] = int(rng.choice(own_hexes))
            s.leader_uses[ld] = int(rng.integers(0, 3))
        for side in (0, 1):
            own = np.flatnonzero((s.box == BOX_MAP) & (t.side == side)
                                 & (t.utype != st.LEADER)).tolist()
            for _ in range(20):
                k = int(rng.integers(0, min(len(own), 6) + 1))
                units = [int(x) for x in rng.choice(own, k, replace=False)] if k else []
                got = combat._command_leader(g, side, units)
                assert got == ref.command_leader(g, side, units)
                found += got is not None
                got = combat._penetration_leader(g, units)
                assert got == ref.penetration_leader(g, units)
                found += got is not None
            for h in own_hexes.tolist():
                assert combat._leaders_in(g, h, side) == _leaders_in_plain(g, h, side)
    assert found > 0


def test_rule_13_0_eliminated_generic_company_returns_to_the_pool():
    """13.0/13.2 reading (rules_coverage.csv 13.0): an eliminated generic
    company piece is a marker, not the company: it goes back to the pool
    free for any battalion of its kind, the step it stood for stays lost
    (tallied for rule 20) and its battalion reforms one level lower."""
    g = make({"1612": ["axis.20.1_87"]})
    s, t = g.state, static()
    b = u("axis.20.1_87")
    kind = int(t.breakdown_kind[b])
    generic = np.flatnonzero(t.company_kind == kind)
    free = int((s.box[generic] == BOX_POOL).sum())
    comps = organisation.break_down(g, b)
    assert len(comps) == 3 and all(t.company_kind[c] == kind for c in comps)
    assert int((s.box[generic] == BOX_POOL).sum()) == free - 3
    lost0 = int(s.axis_steps_lost[0])
    assert organisation.lose_step(g, comps[0], "landing losses 18.5")     # a company: eliminated
    assert int(s.axis_steps_lost[0]) == lost0 + int(t.step_weight[comps[0]])   # the step stays lost
    assert s.box[comps[0]] == BOX_POOL and s.parent[comps[0]] < 0 and s.hex[comps[0]] < 0
    assert int((s.box[generic] == BOX_POOL).sum()) == free - 2
    organisation.eliminate(g, comps[0])                                    # no second tally
    assert int(s.axis_steps_lost[0]) == lost0 + int(t.step_weight[comps[0]])
    opts = organisation.reform_options(g, AXIS)
    assert [(o[0], sorted(o[1]), o[3]) for o in opts] == [(b, sorted(comps[1:]), 1)]
