"""Airborne landings (rule 19): drop zone markers, sticks and their plans, scatter onto
the ocean, airborne losses, hostile landings.

Statistical tests draw with a fixed seed (:func:`tests.conftest.kernel_stream`) and compare
frequencies with the exact probabilities by a binomial or chi-square test at significance
1e-4 each (false-alarm rate 1e-4 per test; with the fixed seed the outcome is deterministic).
"""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from malta_sim import play
from malta_sim.iod import invasion as H, sequence, static as st
from malta_sim.iod.rules import airborne, airborne as ap
from malta_sim.iod.state import ALLIED, AXIS, BOX_DISBANDMENT, BOX_MAP
from malta_sim.kernels import drop as kdrop

from tests.conftest import binom_ok, clear_allied, hercules_game, hex_index, kernel_stream, N_DRAWS


# ----------------------------------------------------------------- 19 airborne
def test_rule_19_43_stick_on_ocean_cancelled():
    g = hercules_game()
    s, t = g.state, g.static
    inv = H.inv_static(g)
    ocean = g.static.grid.hex_id(int(np.flatnonzero(inv.ocean)[0]))
    bn = [u for u in range(len(t.names)) if t.utype[u] == st.PARATROOP and t.size[u] == st.BATTALION
          and s.box[u] == BOX_DISBANDMENT][0]
    assert ap.jump_stick(g, int(t.printed_formation[bn]), [bn], ocean, solitaire=False) == []
    assert s.box[bn] == BOX_DISBANDMENT                                                 # still available
    assert ap.jump_stick(g, int(t.printed_formation[bn]), [bn], None, solitaire=False) == []


def test_rule_19_42_drop_zone_marker_never_on_ocean():
    g = hercules_game()
    inv = H.inv_static(g)
    for k in range(200):
        h = ap.drop_marker(g, 1 + k % 2, hex_index(g, "0911"), solitaire=True)
        assert not inv.ocean[h]


def test_rule_19_53_hostile_landing_at_hopeless_odds_eliminates():
    g = hercules_game()
    s, t = g.state, g.static
    clear_allied(g)
    h = hex_index(g, "1312")
    bns = [u for u in range(len(t.names)) if t.side[u] == ALLIED and t.utype[u] == st.INFANTRY
           and t.size[u] == st.BATTALION][:4]
    for u in bns:
        s.box[u], s.hex[u], s.level[u] = BOX_MAP, h, 0
    eng = [u for u in range(len(t.names)) if t.utype[u] == st.ENGINEER and t.side[u] == AXIS
           and t.printed_formation[u] == 1][0]
    s.box[eng], s.hex[eng] = BOX_MAP, h
    ap.hostile_landing(g, h, [eng])
    assert s.box[eng] != BOX_MAP                                                        # 19.53 (or lost in combat)
    assert all(s.box[u] == BOX_MAP for u in bns)


def test_rule_19_5_hostile_landing_ends_with_one_side():
    for seed in range(6):
        g = hercules_game(seed=seed)
        s, t = g.state, g.static
        clear_allied(g)
        h = hex_index(g, "1312")
        coy = [u for u in range(len(t.names)) if t.side[u] == ALLIED and t.utype[u] == st.INFANTRY
               and t.size[u] == st.COMPANY][0]
        s.box[coy], s.hex[coy] = BOX_MAP, h
        comps = [u for u in range(len(t.names)) if t.utype[u] == st.PARATROOP and t.size[u] == st.COMPANY
                 and t.printed_formation[u] == 1][:3]
        for c in comps:
            s.box[c], s.hex[c] = BOX_MAP, h
        ap.hostile_landing(g, h, comps)
        sides = {int(t.side[u]) for u in g.units_at(h)}
        assert len(sides) <= 1                                                          # 19.51


@nb.njit(cache=True)
def _many_airborne_loss(rs, n, a, b, c):
    k = 0
    for _ in range(n):
        reduced, _d = kdrop.airborne_loss_roll(rs, a, b, c)
        if reduced:
            k += 1
    return k


# ----------------------------------------------------------------- 19.46
@pytest.mark.parametrize("mods", [(False, False, False), (True, True, False), (True, True, True)])
def test_rule_19_46_airborne_losses_statistical(mods):
    """Rule 19.46: die + one per modifier, 7+ reduces.  False-alarm rate 1e-4."""
    k = _many_airborne_loss(kernel_stream(70 + sum(mods)), N_DRAWS, *mods)
    p = airborne.p_airborne_loss(sum(mods))
    if p == 0:
        assert k == 0
    else:
        assert binom_ok(k, N_DRAWS, p)


def test_rule_19_32_relative_positions_roundtrip():
    off = airborne.relative_offset("1210", "1312")
    assert airborne.apply_offset("1210", off) == "1312"
    assert airborne.apply_offset("1511", off) is not None


def test_rule_19_22_plan_limits():
    assert airborne.plan_target_ok(True, 3, False)[0]
    ok, long_used, _ = airborne.plan_target_ok(True, 5, False)
    assert ok and long_used
    assert not airborne.plan_target_ok(True, 5, True)[0]
    assert not airborne.plan_target_ok(False, 1, False)[0]


def test_airborne_loss_turns_two_sided_company_to_its_reduced_values():
    """Rule 19.46 / 17.83: a paratroop or para-engineer company that an
    airborne-loss roll reduces lands on its reduced side and then shows the
    values of its second strength level; the others land at full strength
    (the first-turn jumps of eight Hercules games, seed 1942)."""
    reduced = engineers = full = 0
    for g in range(8):
        game = play.new_game("hercules", 1942, g, axis_policy="balanced", allied_policy="static")
        t, s = game.static, game.state
        sequence.initial_segment(game)
        sequence.axis_status(game)
        sequence.amphibious_landing(game)
        sequence.airborne_landing(game)
        landed = np.flatnonzero((s.box == BOX_MAP) & t.two_sided & (s.entered_turn == game.turn))
        for x in landed.tolist():
            if not s.reduced[x]:
                assert s.level[x] == 0
                full += 1
                continue
            assert s.level[x] == 1
            assert game.base_attack(x) == int(t.attack[x, 1])
            assert game.base_defense(x) == int(t.defense[x, 1])
            reduced += 1
            engineers += bool(t.engineer[x])
    assert reduced > 0 and engineers > 0 and full > 0, (reduced, engineers, full)
