"""Fast paths of the movement and combat modules against their plain
versions, checked on every call made during whole games.

* :func:`movement._ma_if_movable` equals ``effective_ma`` when ``movable``,
  else None (rules 6.0, 6.71, 8.33, 11.4, 14.1, 17.7);
* :func:`combat.odds_modifiers` equals the modifiers built from
  :func:`combat._armor`, :func:`combat._integrity` and
  :func:`combat._avg_morale` (rule 9.92), including positions where whole
  regiments attack or defend (integrity);
* :func:`combat.discovered_kernel` equals :func:`combat.discovered` for
  every hex, by day and by night (rule 10.11);
* :func:`combat_options.in_range_kernel` equals the per-firer distance test (12.2);
* :func:`combat.attack_strength` equals :func:`malta_sim.kernels.crt.unit_attack`
  (9.91, 8.31, 8.4, 11.3, 11.4);
* :func:`movement._side_hexes` (kept between moves) equals the side's hexes now.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracles import iod_rules as oracle
from malta_sim.iod.rules import combat, movement
from malta_sim.iod.rules.combat_options import in_range_kernel
from malta_sim.iod.state import DEMORALIZED, DISORGANIZED
from malta_sim.kernels import crt as kcrt
from malta_sim.games.registry import get_scenario


def ref_odds_modifiers(game, side, attackers, defenders, target):
    """Rule 9.92 without leader rolls or air, one helper per modifier."""
    s, t, tb = game.state, game.static, game.tables
    m = {}
    if oracle._armor(game, attackers):
        m["armor_attacking"] = 2
    if oracle._armor(game, defenders):
        m["armor_defending"] = -1
    a_hex = [int(s.hex[u]) for u in attackers]
    hexes = set(a_hex)
    if t.fort[target] and not s.fort_destroyed[target]:
        if hexes == {h for u, h in zip(attackers, a_hex) if tb.engineer[u]}:
            m["engineers"] = 1
    if len(hexes) >= 4:
        m["envelopment"] = 1
    if oracle._integrity(game, attackers, set(attackers)):
        m["attacker_integrity"] = 2
    if oracle._integrity(game, defenders, set(defenders)):
        m["defender_integrity"] = -1
    keys = set()
    for u in attackers:
        r = tb.remnant_level_l[u]
        keys.add(("remnant", u) if r >= 0 and s.level[u] == r else int(s.formation[u]))
    if len(keys) > 1:
        m["mixed_formations"] = -1
    d = oracle._avg_morale(game, attackers) - oracle._avg_morale(game, defenders)
    if d:
        m["morale"] = int(min(3, max(-2, d)))
    return m


def _check_position(game, rng, counts):
    """Compare the fast paths with their references on the current state."""
    s, t = game.state, game.static
    for u in range(t.n_units):
        want = movement.effective_ma(game, u) if movement.movable(game, u) else None
        assert movement._ma_if_movable(game, u) == want, u
    counts["ma"] = counts.get("ma", 0) + 1
    for u in range(t.n_units):
        m = int(s.morale_state[u])
        assert combat.attack_strength(game, u) == kcrt.unit_attack(
            int(t.attack[u, s.level[u]]), bool(s.out_of_supply[u]), m == DISORGANIZED, m == DEMORALIZED)
    for side in (0, 1):
        assert movement._side_hexes(game, side) == set(s.hex[t.side == side].tolist())
    hexes = list(range(t.n_hexes))
    for side in (0, 1):
        got = combat.discovered_hexes(game, hexes, side).tolist()
        assert got == [combat.discovered(game, h, side) for h in hexes]
        firers = combat._firers(game, side)
        if firers:
            dist = t.grid.distance_table
            want = [[u for u in firers if dist[s.hex[u], h] <= t.art_range[u]] for h in hexes]
            ok = in_range_kernel(np.array(hexes, np.int64), np.array(firers, np.int64), s.hex,
                                 t.art_range, dist)
            assert [[u for u, y in zip(firers, row) if y] for row in ok.tolist()] == want
            counts["range"] = counts.get("range", 0) + 1
        own = [int(u) for u in game.on_map(side) if game.is_ground(int(u))]
        enemy = [int(u) for u in game.on_map(1 - side) if game.is_ground(int(u))]
        if not own or not enemy:
            continue
        groups = []
        for r in {t.regiment[u] for u in own + enemy if t.regiment[u] >= 0}:
            groups.append([int(m) for m in game.tables.members[r]])   # whole regiments
        for _ in range(30):
            groups.append(rng.choice(own, min(len(own), rng.integers(1, 7)), replace=False).tolist())
        for att in groups:
            dfn = rng.choice(enemy, min(len(enemy), rng.integers(0, 5)), replace=False).tolist()
            if rng.random() < 0.3:
                dfn = groups[rng.integers(len(groups))]
            target = int(rng.integers(t.n_hexes))
            got = combat.odds_modifiers(game, side, att, dfn, target, roll_leaders=False)
            want = ref_odds_modifiers(game, side, att, dfn, target)
            assert list(got.items()) == list(want.items())
            counts["integrity"] = counts.get("integrity", 0) + ("attacker_integrity" in got)


@pytest.mark.parametrize("scenario,axis,allied,seed", [
    ("hercules", "balanced", "static", 3),
    ("intro", "random", "random", 4),
])
def test_fast_paths_equal_plain_versions_in_a_game(monkeypatch, scenario, axis, allied, seed):
    """At the start of each combat phase of a whole game, every fast path
    answers as its plain version."""
    from malta_sim.iod import sequence

    rng = np.random.default_rng(seed)
    counts: dict = {}
    orig = sequence.combat_phase

    def phase(game, *a, **k):
        _check_position(game, rng, counts)
        return orig(game, *a, **k)

    monkeypatch.setattr(sequence, "combat_phase", phase)
    play = get_scenario(scenario).play_fn()
    play(scenario, seed, np.arange(1), axis_policy=axis, allied_policy=allied, options=(),
         data_dir=None)
    assert counts.get("ma", 0) >= 4
    assert counts.get("range", 0) > 0
    assert counts.get("integrity", 0) > 0          # whole regiments were tried


def test_units_in_run_equals_mask_lookup():
    """The compiled per-side lookup of :meth:`Game.units_at` equals the mask
    lookup on random hex arrays, runs and hexes (off-map -1 included)."""
    from malta_sim.iod.game import units_in_run

    rng = np.random.default_rng(11)
    for _ in range(300):
        n = int(rng.integers(1, 60))
        hexes = rng.integers(-1, 6, n).astype(np.int32)
        lo = int(rng.integers(0, n))
        hi = int(rng.integers(lo, n + 1))
        h = int(rng.integers(-1, 6))
        want = np.flatnonzero(hexes == h)
        want = want[(want >= lo) & (want < hi)]
        got = units_in_run(hexes, h, lo, hi)
        assert got.dtype == np.int64 and np.array_equal(got, want)


def test_path_reads_predecessors_back_from_the_destination():
    """The move path (rule 6.1) read from the reach search's predecessors
    equals the two-reads-per-step reference on random predecessor trees."""
    def ref(pred, start, dest):
        path = [dest]
        while path[-1] != start and pred[path[-1]] >= 0:
            path.append(int(pred[path[-1]]))
        path.reverse()
        return path[1:]

    rng = np.random.default_rng(3)
    for _ in range(2000):
        n = int(rng.integers(2, 30))
        pred = rng.integers(-1, n, n)
        pred = np.where(pred < np.arange(n), pred, -1).astype(np.int32)    # a forest
        start, dest = int(rng.integers(0, n)), int(rng.integers(0, n))
        assert movement._path(pred, start, dest) == ref(pred, start, dest)
