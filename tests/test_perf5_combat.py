"""Fifth round of speed work on the combat phases (results unchanged).

Each fast path is compared with its plain reference on every call through
whole games (the references are asked on the same position just before the
fast answer is used) and, where a position can be made up, on random
positions:

* the leader who makes a command roll (rules 14.2, 14.21, 15.3) from the
  side's leader pieces (:func:`.combat._command_leader`) against the mask
  walk (:func:`.combat._command_leader_plain`);
* the leaders in a hex (14.3) from the side's leader pieces
  (:func:`.combat._leaders_in`) against ``game.units_at``;
* the pieces barred from firing (16.73, 17.7) with the rule 17.7 map looked
  up once (:func:`.combat._barred`) against ``delayed_reaction_ok`` per piece
  (:func:`.combat._barred_plain`);
* the leader of a penetration attempt (10.31) from the per-formation leader
  list (:func:`.combat._penetration_leader`) against per-unit reads
  (:func:`.combat._penetration_leader_plain`);
* the hexes a supply route may enter (8.2, 5.3), kept per side with the
  state they read (:func:`.supply.passable_for`), against a fresh
  :func:`.supply.passable_for_plain`;
* the Axis bot's bombardment order (10.1, most enemy pieces first) from one
  count over all hexes (:func:`malta_sim.bots.axis._bombard_order`)
  against ``units_at`` per hex.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from malta_sim.iod.rules import combat, supply
from malta_sim.iod import static as st
from malta_sim.iod.state import BOX_MAP, BOX_NOT_YET
from malta_sim.bots import axis
from tests.test_perf3_combat import _random_game
from tests.oracles import iod_rules as oracle
from tests.oracles import bots as bots_ref


def _leaders_in_plain(game, h, side):
    """The leaders of ``side`` in hex ``h`` from the unit query (rule 14.3)."""
    return [int(x) for x in game.units_at(h, side).tolist() if game.static.utype[x] == st.LEADER]


def _checked(monkeypatch, counts):
    """Wrap the fast paths: each answer equals its plain reference."""
    leader, leaders_in, barred = combat._command_leader, combat._leaders_in, combat._barred

    def cl(game, side, units):
        got = leader(game, side, units)
        assert got == oracle.command_leader(game, side, units)
        counts["leader"] = counts.get("leader", 0) + 1
        counts["leader_found"] = counts.get("leader_found", 0) + (got is not None)
        return got

    def li(game, h, side):
        got = leaders_in(game, h, side)
        assert got == _leaders_in_plain(game, h, side)
        assert all(type(x) is int for x in got)
        counts["leaders_in"] = counts.get("leaders_in", 0) + 1
        return got

    def ba(game, cand, failed):
        got = barred(game, cand, failed)
        assert np.array_equal(got, oracle.barred(game, cand, failed))
        assert not got.flags.writeable
        counts["barred"] = counts.get("barred", 0) + 1
        counts["barred_any"] = counts.get("barred_any", 0) + bool(got.any())
        return got

    order = axis._bombard_order

    def bo(game, enemy, bombard):
        got = order(game, enemy, bombard)
        assert got == bots_ref.bombard_order(game, enemy, bombard)
        counts["bombard"] = counts.get("bombard", 0) + 1
        counts["bombard_many"] = counts.get("bombard_many", 0) + (len(got) > 1)
        return got

    pen = combat._penetration_leader

    def pl(game, units):
        got = pen(game, units)
        assert got == oracle.penetration_leader(game, units)
        assert got is None or type(got) is int
        counts["pen"] = counts.get("pen", 0) + 1
        counts["pen_found"] = counts.get("pen_found", 0) + (got is not None)
        return got

    passable = supply.passable_for

    def pf(game, side):
        hit = game.kept("_passable_for", side, (
            game.state.box.tobytes(), game.state.hex.tobytes(), game.state.level.tobytes(),
            game.state.hitched.tobytes(), game.state.salvos.tobytes(),
            game.state.fort_destroyed.tobytes())) is not None
        got = passable(game, side)
        assert np.array_equal(got, supply._passable_for_now(game, side))
        got2 = passable(game, side)
        assert got2 is not got and np.array_equal(got2, got)     # a fresh array each time
        counts["passable"] = counts.get("passable", 0) + 1
        counts["passable_kept"] = counts.get("passable_kept", 0) + hit
        return got

    monkeypatch.setattr(supply, "passable_for", pf)
    monkeypatch.setattr(combat, "_penetration_leader", pl)
    monkeypatch.setattr(axis, "_bombard_order", bo)
    monkeypatch.setattr(combat, "_command_leader", cl)
    monkeypatch.setattr(combat, "_leaders_in", li)
    monkeypatch.setattr(combat, "_barred", ba)




@pytest.mark.parametrize("seed", [81, 82])
def test_command_leader_and_leaders_in_equal_plain_on_random_positions(seed):
    """Random positions with the leaders placed next to random groups, random
    leader uses and levels: the same commanding leader and the same leaders
    per hex as the plain versions (rules 14.2, 14.21, 14.3, 15.3)."""
    rng = np.random.default_rng(seed)
    found = 0
    for trial in range(8):
        g = _random_game(rng, trial)
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
                assert got == oracle.command_leader(g, side, units)
                found += got is not None
                got = combat._penetration_leader(g, units)
                assert got == oracle.penetration_leader(g, units)
                found += got is not None
            for h in own_hexes.tolist():
                assert combat._leaders_in(g, h, side) == _leaders_in_plain(g, h, side)
    assert found > 0


@pytest.mark.parametrize("turn", [0, 1, 2])
def test_barred_equals_plain_on_random_positions(turn):
    """Rule 17.7 (turns 0 and 1 of Hercules hold Allied pieces back that no
    Axis ground unit is near) and 16.73 (failed warships): the same mask as
    asking ``delayed_reaction_ok`` per piece."""
    rng = np.random.default_rng(90 + turn)
    seen = 0
    for trial in range(6):
        g = _random_game(rng, trial)
        s, t = g.state, g.static
        s.turn[0] = turn
        g.scenario = dataclasses.replace(g.scenario, name="hercules")     # rule 17.7 applies
        if trial % 2:                     # few Axis pieces left: some Allied pieces held back
            axis_on = np.flatnonzero((s.box == BOX_MAP) & (t.side == 0)
                                     & (t.utype != st.WARSHIP)).tolist()
            for u in axis_on[2:]:
                s.box[u], s.hex[u] = BOX_NOT_YET, -1
        ships = np.flatnonzero((s.box == BOX_MAP) & (t.utype == st.WARSHIP)).tolist()
        failed = set(ships[trial % 2::2]) if trial % 3 else None
        for side in (0, 1):
            cand = np.flatnonzero((s.box == BOX_MAP) & (t.side == side)
                                  & ((t.utype == st.ARTILLERY) | (t.utype == st.WARSHIP)))
            got = combat._barred(g, cand.astype(np.int64), failed)
            want = oracle.barred(g, cand.astype(np.int64), failed)
            assert np.array_equal(got, want)
            held = [u for u in cand.tolist() if t.utype[u] == st.ARTILLERY and got[u]]
            seen += len(held)
    assert seen > 0 or turn > 1


@pytest.mark.parametrize("seed", [95, 96])
def test_bombard_order_equals_plain_on_random_positions(seed):
    """Rule 10.1: random sets of enemy hexes (held, empty, crowded) come out
    in the same order as sorting by ``len(game.units_at(h, enemy))``."""
    rng = np.random.default_rng(seed)
    for trial in range(6):
        g = _random_game(rng, trial)
        s, t = g.state, g.static
        for enemy in (0, 1):
            held = np.unique(s.hex[(s.box == BOX_MAP) & (t.side == enemy)]).tolist()
            land = np.flatnonzero(t.land).tolist()
            for _ in range(10):
                hexes = sorted(set(rng.choice(held, min(len(held), 6)).tolist()
                                   + rng.choice(land, 2).tolist()))
                bombard = {int(h): [int(i)] for i, h in enumerate(hexes)}
                got = axis._bombard_order(g, enemy, bombard)
                assert got == bots_ref.bombard_order(g, enemy, bombard)


def test_passable_for_follows_the_position():
    """The kept supply-route hexes (8.2, 5.3) change with a piece's move and
    with an enemy step loss, and a caller's writes do not reach the memo."""

    rng = np.random.default_rng(97)
    g = _random_game(rng, 1)
    s, t = g.state, g.static
    for side in (0, 1):
        first = supply.passable_for(g, side)
        first[:] = ~first                                   # the caller's copy only
        assert np.array_equal(supply.passable_for(g, side), supply._passable_for_now(g, side))
        own = np.flatnonzero((s.box == BOX_MAP) & (t.side == side) & (t.utype != st.LEADER)
                             & (t.utype != st.WARSHIP))
        enemy = np.flatnonzero((s.box == BOX_MAP) & (t.side != side) & (t.n_levels > 1))
        changed = 0
        for k in range(6):
            before = supply.passable_for(g, side)
            if k % 2:
                u = int(own[k % len(own)])
                s.hex[u] = int(rng.choice(np.flatnonzero(t.land)))
            else:
                u = int(enemy[k % len(enemy)])
                s.level[u] = (int(s.level[u]) + 1) % int(t.n_levels[u])
            after = supply.passable_for(g, side)
            assert np.array_equal(after, supply._passable_for_now(g, side))
            changed += not np.array_equal(before, after)
        assert changed > 0
