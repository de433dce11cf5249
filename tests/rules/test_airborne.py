"""Airborne landings (rule 19): drop zone markers, sticks and their plans, scatter onto
the ocean, airborne losses, hostile landings; the marker reach, stick targets and the
hex arithmetic of stick plans against plain references on random positions.

Statistical tests draw with a fixed seed (:func:`tests.conftest.kernel_stream`) and compare
frequencies with the exact probabilities by a binomial or chi-square test at significance
1e-4 each (false-alarm rate 1e-4 per test; with the fixed seed the outcome is deterministic).
"""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from malta_sim import play
from malta_sim.bots.allied import AlliedBot
from malta_sim.bots.axis import AxisBot
from malta_sim.iod import invasion as H, sequence, static as st
from malta_sim.iod.engine import setup_game
from malta_sim.iod.rules import airborne, airborne as ab, airborne as ap
from malta_sim.iod.state import ALLIED, AXIS, BOX_DISBANDMENT, BOX_MAP
from malta_sim.kernels import drop as kdrop
from malta_sim.play import new_game

from tests.conftest import binom_ok, clear_allied, hercules_game, hex_index, kernel_stream, N_DRAWS
from tests.oracles import iod_rules as ref


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
        assert not s.fort_destroyed[h]                                                  # no fort in 1312


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
    (the first-turn jumps of 32 Hercules games, seed 1942, by the random
    Axis bot, which also jumps its HQ and engineer sticks on the first turn)."""
    reduced = engineers = full = 0
    for g in range(32):
        game = play.new_game("hercules", 1942, g, axis_policy="random", allied_policy="static")
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


def test_hex_memos_equal_plain_functions():
    """Stick targets, plan offsets and hex indices through the memo equal the
    hex-id functions, on every hex and offsets reaching off the grid; twice
    (the second time from the memo)."""
    g = hercules_game(axis="balanced", allied="static")
    inv, grid = H.inv_static(g), g.static.grid
    inv.hex_memo.clear()
    gen = np.random.default_rng(5)
    n = grid.n_hexes
    for _rep in range(2):
        for m in range(n):
            off = (int(gen.integers(-7, 8)), int(gen.integers(-7, 8)))
            want = ab.apply_offset(grid.hex_id(m), off)
            got = ap._stick_target(inv, grid, m, off)
            assert got == want
            want_i = grid.index(want) if want is not None and grid.contains(want) else -1
            assert ap._target_index(inv, grid, got) == want_i
            x = int(gen.integers(0, n))
            assert ap._plan_offset(inv, grid, m, x) == ab.relative_offset(grid.hex_id(m), grid.hex_id(x))
        gen = np.random.default_rng(5)                  # the same inputs again: from the memo
    assert ap._target_index(inv, grid, None) == -1
    assert ap._target_index(inv, grid, "9999") == -1    # off the grid
    assert any(v == -1 for k, v in inv.hex_memo.items() if k[0] == "index")


def test_planning_hexes_are_the_mask_and_a_fresh_list():
    g = hercules_game(axis="balanced", allied="static")
    arr, lst = ap._planning_hexes(g)
    np.testing.assert_array_equal(arr, np.flatnonzero(ap._target_hexes_ok(g)))
    assert lst == arr.tolist() and not arr.flags.writeable
    lst.clear()                                          # a bot may change its list
    assert ap._planning_hexes(g)[1] == arr.tolist()


def test_marker_reach_on_random_positions():
    g = hercules_game(axis="balanced", allied="static")
    s, t = g.state, g.static
    inv = H.inv_static(g)
    gen = np.random.default_rng(11)
    land = np.flatnonzero(t.land)
    sizes = []
    for _ in range(60):
        s.control[:] = np.where(gen.random(t.n_hexes) < 0.8, 0, 1)
        on = gen.random(t.n_units) < 0.3
        s.hex[:] = np.where(on, gen.choice(land, size=t.n_units), -1)
        zoc = gen.random(t.n_hexes) < 0.2
        here = int(gen.choice(land))
        for steps in (0, 1, 3, 5):
            got = ap.marker_reach_kernel(here, steps, inv.near_padded, t.land, s.control, zoc, s.hex, t.side)
            want = ref.marker_reach(g, here, zoc, steps)
            assert got.tolist() == want
            sizes.append(len(want))
    assert max(sizes) > 10 and min(sizes) == 0


def test_stick_targets_kept_equal_plain_and_fresh():
    """The stick targets kept per marker hex (19.22, 19.33) equal
    :func:`airborne.stick_targets` worked out afresh, the second time from the
    kept answers, and each caller gets a list of its own."""
    g = hercules_game(axis="balanced", allied="static")
    inv, d = H.inv_static(g), g.static.grid.distance_table
    legal, _ = ap._planning_hexes(g)
    gen = np.random.default_rng(3)
    for _ in range(2):                                   # the second round from the memo
        for m in gen.choice(legal, 40).tolist() + [0, g.static.n_hexes - 1]:
            for lu in (False, True):
                got = ap._stick_targets_kept(inv, d, m, legal, lu)
                assert got == ap.stick_targets(d, m, legal, lu)
                got.clear()                              # the caller's own list
        gen = np.random.default_rng(3)


def test_stick_targets_equal_plan_target_ok():
    """Rules 19.22 / 19.33: the vectorised stick targets equal
    ``airborne.plan_target_ok`` hex by hex, with and without the long stick."""
    from malta_sim.iod.rules import airborne as ab
    from malta_sim.iod.rules.airborne import _target_hexes_ok, stick_targets

    g = new_game("hercules", 9, 0, axis_policy="balanced", allied_policy="static")
    d = g.static.grid.distance_table
    legal = np.flatnonzero(_target_hexes_ok(g))
    long_sticks = 0
    for r in list(legal[::9]) + [int(np.flatnonzero(g.static.land)[0])]:
        for long_used in (False, True):
            want = []
            for x in legal.tolist():
                ok, uses_long, _ = ab.plan_target_ok(True, int(d[r, x]), long_used)
                if ok:
                    want.append((x, uses_long))
            assert stick_targets(d, int(r), legal, long_used) == want
            long_sticks += sum(lg for _, lg in want)
    assert long_sticks > 0


def test_drop_marker_moves_offer_the_rule_19_13_reach():
    """Rule 19.13: the hexes offered for a drop zone marker move equal a
    hex-by-hex search, on positions with Axis control spread at random."""
    from malta_sim.iod.rules.airborne import move_drop_markers

    seen = []

    class Spy(AxisBot):
        def move_drop_marker(self, game, f, options):
            seen.append((int(game.state.dz_hex[0, f]), list(options)))
            return None

    g = setup_game("intro", 12, 0, (Spy(AXIS), AlliedBot(ALLIED)))
    s, t = g.state, g.static
    gen = np.random.default_rng(3)
    land = np.flatnonzero(t.land)
    n_checked = 0
    for trial in range(15):
        s.control[land] = np.where(gen.random(len(land)) < 0.6, 0, 1)
        for f in (1, 2):
            s.dz_hex[0, f] = int(gen.choice(land))
        seen.clear()
        move_drop_markers(g)
        for here, options in seen:
            assert options == ref.marker_reach(g, here, H.enemy_zoc(g, AXIS), ap.MARKER_MOVE)
            n_checked += 1
    assert n_checked > 5


class PopMarkerBot(AxisBot):
    """Moves each drop zone marker to the last option, taken with ``pop()``."""

    def move_drop_marker(self, game, formation, options):
        return options.pop() if options else None


def test_drop_marker_options_may_be_changed_by_the_bot():
    """A bot that takes its choice out of the options list moves the marker
    (rule 19.13): the move is checked against the hexes the search found,
    and the games play to their end."""
    moved = 0
    for g in range(2):
        game = setup_game("hercules", 3, g, (PopMarkerBot(AXIS), AlliedBot(ALLIED)), event_log=True)
        sequence.play_game(game)
        assert game.state.over[0]
        moved += sum(r["action"] == "drop_zone_moved" for r in game.events.rows)
    assert moved > 0


# ----------------------------------------------------------------- 19.7, 19.8 arrival turn
def _arrived_position(arrived_turn):
    """Ramcke's 1/2 Battalion in 1310 next to the British 8M (1311), with
    Ramcke, on turn 8, having landed on ``arrived_turn``; it advanced after a
    combat (eligible for penetration but for the arrival)."""
    from tests.conftest import make, Scripted, u
    g = make({"1310": ["axis.ram.1_2", "axis.ram.ldr.ramcke"], "1311": ["allied.uk.8m"]}, turn=8,
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    g.state.entered_turn[u("axis.ram.1_2")] = arrived_turn
    g.state.advanced[u("axis.ram.1_2")] = True
    return g, u("axis.ram.1_2")


def test_rule_19_7_no_attack_in_the_jump_turn():
    """Rule 19.7: units may not attack in the Axis Combat Phase or the Axis
    Penetration Phase of the turn in which they jumped; in the next turn they
    may.  Asked through the per-unit test and the attack options of play."""
    from malta_sim.iod.rules import combat
    from tests.conftest import hex_index
    for arrived, may in ((8, False), (7, True)):
        g, x = _arrived_position(arrived)
        assert combat.can_attack(g, x) is may
        offered = {int(v) for us in combat.attack_options(g, AXIS).values() for v in us}
        assert (x in offered) is may

        class Spy:
            asked = []

            def next_attack(self, game, options, penetration=False):
                Spy.asked.append(dict(options))
                return None
        g.policies = (Spy(), g.policies[1])
        combat.penetration_phase(g, AXIS)
        assert [sorted(a) for a in Spy.asked] == ([[hex_index(g, "1311")]] if may else []), arrived


def test_rule_19_8_no_move_in_the_jump_turn():
    """Rule 19.8: a unit may not move in the turn of its airborne landing (the
    one-hex rally move of 19.6 apart); in the next turn it moves normally."""
    from malta_sim.iod.rules import movement
    for arrived, may in ((8, False), (7, True)):
        g, x = _arrived_position(arrived)
        assert movement.movable(g, x) is may
        assert (x in movement.movable_units(g, AXIS)) is may


# ----------------------------------------------------------------- 19.35, 19.47, 19.6, 21
class _Axis:
    """Axis decisions of the Airborne Landing Phase for the tests below: the
    jumps to cancel (``cancel(pids)``), one-hex rally moves taken to the first
    option offered and recorded, the solitaire stick count ``n_sticks``; every
    other decision as the game's random bot."""

    def __init__(self, game, cancel=lambda pids: [], n_sticks=0):
        self.base = game.policies[AXIS]
        self.cancel = cancel
        self.n_sticks = n_sticks
        self.asked_cancel: list = []
        self.rally: list = []
        self.sticks_max: list = []

    def __getattr__(self, name):
        return getattr(self.base, name)

    def cancel_jumps(self, game, pids):
        self.asked_cancel.append(list(pids))
        return self.cancel(pids)

    def one_hex_move(self, game, unit, options, reason):
        self.rally.append((int(unit), list(options), reason))
        return options[0] if options else None

    def solitaire_n_sticks(self, game, turn, max_n):
        self.sticks_max.append(int(max_n))
        return self.n_sticks


def _plan_turn(g):
    """The first turn after 29 June with a planned stick (19.3)."""
    turns = sorted({p.turn for p in airborne.jump_plans(g) if p.kind == "stick" and p.turn >= 4})
    assert turns
    return turns[0]


def test_rule_19_35_rain_cancels_every_jump_of_the_turn():
    """Rule 19.35 (4.23 a): in Rainy weather all jumps planned for the turn are
    cancelled, without asking the Axis: no stick drops, the units stay in the
    Disbandment Box and are free for new plans; in Clear weather the Axis is
    asked, and a jump it keeps is made."""
    from malta_sim.iod.state import RAINY
    seen = {}
    for rain in (True, False):
        g = hercules_game()
        t = _plan_turn(g)
        g.state.turn[0] = t
        g.state.weather[0] = RAINY if rain else 0
        mine = airborne.jump_plans(g, t)
        units = sorted({x for p in mine if p.kind == "stick" for x in p.units})
        assert units and all(g.state.box[x] == BOX_DISBANDMENT for x in units)
        for p in mine:
            g.state.dz_hex[0, p.formation] = hex_index(g, "1413")   # the markers are down (19.1)
        bot = _Axis(g, cancel=lambda pids: [])
        g.policies = (bot, g.policies[ALLIED])
        airborne.airborne_landing_phase(g)
        drops = [r for r in g.events.rows if r["action"] == "stick_drop" and r["turn"] == t]
        assert airborne.jump_plans(g, t) == []
        seen[rain] = (len(bot.asked_cancel), len(drops) > 0,
                      all(g.state.box[x] == BOX_DISBANDMENT for x in units),
                      not set(units) & airborne.planned_units(g))
    assert seen[True] == (0, False, True, True)          # rain: not asked, nothing jumps, free again
    assert seen[False][:2] == (1, True)                  # clear: asked, the kept jumps are made


def test_rule_19_35_cancelled_by_choice():
    """Rule 19.35: in Clear weather the Axis may cancel any planned jump of the
    turn: the cancelled sticks do not jump and their units become available."""
    g = hercules_game()
    t = _plan_turn(g)
    g.state.turn[0] = t
    g.state.weather[0] = 0
    mine = [p for p in airborne.jump_plans(g, t) if p.kind == "stick"]
    units = sorted({x for p in mine for x in p.units})
    bot = _Axis(g, cancel=lambda pids: list(pids))
    g.policies = (bot, g.policies[ALLIED])
    airborne.airborne_landing_phase(g)
    assert bot.asked_cancel and not [r for r in g.events.rows if r["action"] == "stick_drop"]
    assert all(g.state.box[x] == BOX_DISBANDMENT for x in units)
    assert not set(units) & airborne.planned_units(g)


def _jump(seed, units, target="1413"):
    """Jump one Ramcke stick of ``units`` (names) at ``target`` on 30 June AM
    in a Hercules game with no Allied piece (19.43-19.45); returns the game,
    the units landed and the Axis bot."""
    from tests.conftest import u
    g = hercules_game(seed=seed)
    clear_allied(g)
    g.state.turn[0] = 4
    bot = _Axis(g)
    g.policies = (bot, g.policies[ALLIED])
    xs = [u(x) for x in units]
    assert all(g.state.box[x] == BOX_DISBANDMENT for x in xs)
    g.state.hitched[xs] = False                                  # the jump decides the side (19.47)
    landed = airborne.jump_stick(g, 1, xs, target, solitaire=False)
    return g, [x for x in landed if g.state.box[x] == BOX_MAP], bot


def test_rule_19_47_parachute_artillery_lands_hitched_and_stays():
    """Rule 19.47: parachute artillery that survives the jump is on its hitched
    side and may not move (nor rally, 19.6) in the jump turn."""
    from malta_sim.iod.rules import movement
    from tests.conftest import u
    art = u("axis.ram.art")
    for seed in range(3, 30):
        g, landed, bot = _jump(seed, ["axis.ram.art"])
        if art in landed:
            break
    assert art in landed
    assert g.state.hitched[art] and not movement.movable(g, art)
    airborne.rally(g, landed)
    assert bot.rally == []


def test_rule_19_6_rally_one_hex_except_in_enemy_zoc():
    """Rule 19.6: companies that jumped this turn and are not in an enemy hex or
    ZOC may move one hex (the Axis is offered hexes next to theirs and the
    move is made); one landed next to an Allied unit (its ZOC) is not."""
    from tests.conftest import hex_index, u
    g, landed, bot = _jump(3, ["axis.ram.1_2"])
    assert landed
    s, t = g.state, g.static
    assert len(landed) >= 2
    free, caught = landed[0], landed[1]
    # the second company on a hex four hexes off, an Allied battalion next to it
    d = t.grid.distance_table
    inf = u("allied.uk.8m")
    spots = [(x, int(o)) for x in np.flatnonzero(t.land & (d[s.hex[free]] >= 4)).tolist()
             for o in t.neighbours[x] if o >= 0 and t.land[o] and d[o, s.hex[free]] >= 3]
    assert spots
    s.hex[caught] = spots[0][0]
    s.box[inf], s.hex[inf] = BOX_MAP, spots[0][1]
    g.cache.clear()
    start = {x: int(s.hex[x]) for x in landed}
    airborne.rally(g, landed)
    moved = {x: opts for x, opts, _ in bot.rally}
    assert free in moved and caught not in moved
    assert all(d[start[free], o] == 1 for o in moved[free])
    assert int(s.hex[free]) == moved[free][0]
    assert int(s.hex[caught]) == start[caught]


def test_rule_21_0_21_12_solitaire_sticks_without_plans():
    """Rules 21.0, 21.1 and 21.12: in solitaire play no jump is planned; in the
    Airborne Landing Phase the player picks how many sticks jump, within the
    scenario's limit for the turn (more is refused), and each stick is placed
    on its formation's drop zone marker (the landing roll has the +2, 19.44)."""
    from malta_sim.iod.game import IllegalDecision
    g = hercules_game(options=("solitaire",))
    assert airborne.jump_plans(g) == []
    g.state.turn[0] = 4
    g.state.weather[0] = 0
    g.state.dz_hex[0, 1] = hex_index(g, "1413")                     # Ramcke's marker down
    bot = _Axis(g, n_sticks=1)
    g.policies = (bot, g.policies[ALLIED])
    airborne.airborne_landing_phase(g)
    assert len(bot.sticks_max) == 1 and bot.sticks_max[0] >= 1
    drops = [r for r in g.events.rows if r["action"] == "stick_drop"]
    assert len(drops) == 1
    g2 = hercules_game(options=("solitaire",))
    g2.state.turn[0] = 4
    g2.state.weather[0] = 0
    g2.state.dz_hex[0, 1] = hex_index(g2, "1413")
    bot2 = _Axis(g2, n_sticks=10 ** 3)
    g2.policies = (bot2, g2.policies[ALLIED])
    with pytest.raises(IllegalDecision, match="21.12"):
        airborne.airborne_landing_phase(g2)


# ----------------------------------------------------------------- 19.43-19.47 one stick, many times
def _stick_game(seed=5):
    """A Hercules game on 30 June AM with no Allied piece (the jumps below)."""
    g = hercules_game(seed=seed)
    clear_allied(g)
    g.state.turn[0] = 4
    return g


def _rejump(g, f, units, target, back=()):
    """Put ``units`` (and the Allied pieces ``back``: (unit, hex)) back where
    they were before a jump, jump the stick of ``units`` of formation ``f`` on
    hex id ``target`` (19.43-19.5) and return the Drop Table cell of the jump
    (None when no stick_drop was logged) and the event rows of the jump."""
    s = g.state
    us = list(units)
    s.box[us], s.hex[us], s.reduced[us], s.level[us] = BOX_DISBANDMENT, -1, False, 0
    s.entered_turn[us], s.hitched[us] = -1, False
    for a, x in back:
        s.box[a], s.hex[a], s.level[a], s.reduced[a] = BOX_MAP, x, 0, False
    g.cache.clear()
    n0 = len(g.events.rows)
    airborne.jump_stick(g, f, us, target, solitaire=False)
    rows = g.events.rows[n0:]
    cells = [r["cell"] for r in rows if r["action"] == "stick_drop"]
    return (cells[0] if cells else None), rows


def _on_line(g, a, b):
    """Hexes ``a`` and ``b`` lie on one of the six straight hex lines."""
    from malta_sim.hexgrid import to_axial
    grid = g.static.grid
    (qa, ra), (qb, rb) = to_axial(grid.hex_id(a)), to_axial(grid.hex_id(b))
    dq, dr = qb - qa, rb - ra
    return dq == 0 or dr == 0 or dq == -dr


def _check_landing(g, cell, units, th, rows):
    """Rules 19.44, 19.45: where the units of one stick ended for its Drop Table
    cell.  Each unit is on the map, having entered this turn, or drowned."""
    from malta_sim.iod.state import BOX_ELIMINATED
    s, d = g.state, g.static.grid.distance_table
    drowned = {int(x) for r in rows if r["action"] == "drowned" for x in [u_name(g, r["units"])]}
    where = []
    for x in units:
        if int(x) in drowned:
            assert s.box[x] == BOX_ELIMINATED
            where.append(None)
            continue
        assert s.box[x] == BOX_MAP and s.entered_turn[x] == g.turn
        where.append(int(s.hex[x]))
    landed = [w for w in where if w is not None]
    if cell == "on_target":
        assert not drowned and landed == [th] * len(units)
    elif cell == "half":                     # the entire stick 1-3 hexes along one line
        assert len(set(where)) == 1
        assert all(1 <= d[th, w] <= 3 and _on_line(g, th, w) for w in landed)
    elif cell == "1":
        assert all(1 <= d[th, w] <= 6 and _on_line(g, th, w) for w in landed)
    elif cell == "2":
        assert all(2 <= d[th, w] <= 12 and _on_line(g, th, w) for w in landed)
    else:
        raise AssertionError(f"no Drop Table cell logged: {cell!r}")
    return where


def u_name(g, name):
    return list(g.static.names).index(name)


def test_rule_19_44_german_stick_without_aa_on_the_drop_table():
    """Rules 19.43-19.44: an all-German stick (-1) with no Allied AA near rolls
    2d6 - 1 on the Drop Table: On Target (7 or less, 26/36) leaves the whole
    stick on its hex, Half (8-11) moves the entire stick 1-3 hexes in one
    direction; nothing else can happen.  Each jump is logged with its cell.
    False-alarm rate 1e-4."""
    g = _stick_game()
    comps = H.break_down(g, u_name(g, "axis.ram.1_2"))
    th = hex_index(g, "1312")
    n, hits = 400, 0
    for _ in range(n):
        cell, rows = _rejump(g, 1, comps, "1312")
        assert cell in ("on_target", "half")
        _check_landing(g, cell, comps, th, rows)
        hits += cell == "on_target"
    assert binom_ok(hits, n, 26 / 36)


def _aa_ring(g, th, dist=3, away=()):
    """Three Allied AA units on one hex ``dist`` hexes from ``th`` (the one
    farthest from the hexes ``away``): ``(unit, hex)``."""
    d, t = g.static.grid.distance_table, g.static
    xs = np.flatnonzero(t.land & (d[th] == dist)).tolist()
    x = max(xs, key=lambda y: (min([int(d[y, a]) for a in away] or [0]), -y))
    aa = [u_name(g, n) for n in ("allied.uk.aa_65", "allied.uk.aa_32", "allied.mt.aa_3")]
    return [(a, x) for a in aa]


def test_rule_19_44_19_45_italian_stick_with_aa_scatters_unit_by_unit():
    """Rules 19.44, 19.45: an Italian stick placed within three hexes of three
    Allied AA units rolls 2d6 + 3: On Target (6/36), Half (20/36), 1 (7/36:
    each company one die of hexes in its own direction) and 2 (3/36: two dice
    each); companies that end in the ocean drown, the others land (the stick
    is placed two hexes from the coast).  False-alarm rate 1e-4 per cell."""
    g = _stick_game(seed=7)
    s, t = g.state, g.static
    d = t.grid.distance_table
    comps = H.break_down(g, u_name(g, "axis.185.v_186"))
    coast = np.flatnonzero(t.land & ~t.coastal & ~t.beach)
    th = int([x for x in coast.tolist() if (d[x, np.flatnonzero(H.inv_static(g).ocean)] == 2).any()][0])
    back = _aa_ring(g, th)
    assert len({x for _, x in back}) == 1 and d[th, back[0][1]] == 3
    n = 500
    seen = {"on_target": 0, "half": 0, "1": 0, "2": 0}
    some_drowned = False
    for _ in range(n):
        cell, rows = _rejump(g, 2, comps, t.grid.hex_id(th), back)
        if any(s.hex[c] == back[0][1] for c in comps if s.box[c] == BOX_MAP) or \
                any(r["action"] == "attack" for r in rows):
            seen[cell] += 1
            continue                           # a company came down on the AA hex (19.5)
        where = _check_landing(g, cell, comps, th, rows)
        some_drowned |= None in where and any(w is not None for w in where)
        seen[cell] += 1
    for cell, p in (("on_target", 6 / 36), ("half", 20 / 36), ("1", 7 / 36), ("2", 3 / 36)):
        assert binom_ok(seen[cell], n, p), (cell, seen)
    assert some_drowned                       # one company drowned, the next still landed


def test_rule_19_44_leader_ends_with_its_hq():
    """Rule 19.44: the leader does not roll; it always ends in the hex of its
    HQ, also when the stick scatters unit by unit (Italian HQ stick next to
    Allied AA)."""
    g = _stick_game(seed=9)
    s, t = g.state, g.static
    stick = [u_name(g, n) for n in ("axis.185.ldr.frattini", "axis.185.hq", "axis.185.viii_eng.1",
                                    "axis.185.viii_eng.2")]
    ldr, hq = stick[0], stick[1]
    th = hex_index(g, "1312")
    back = _aa_ring(g, th)
    apart = 0
    for _ in range(150):
        cell, rows = _rejump(g, 2, stick, "1312", back)
        if s.box[hq] == BOX_MAP:
            assert s.box[ldr] == BOX_MAP and s.hex[ldr] == s.hex[hq]
        apart += len({int(s.hex[x]) for x in stick[1:] if s.box[x] == BOX_MAP}) > 1
    assert apart > 5


def test_rule_19_21_19_44_a_returning_leader_may_jump_alone():
    """Rules 19.21, 14.43: a returning leader (an ADC) is a stick by itself;
    it lands on the map this turn."""
    g = _stick_game()
    ldr = u_name(g, "axis.185.ldr.frattini")
    cell, rows = _rejump(g, 2, [ldr], "1312")
    assert g.state.box[ldr] == BOX_MAP and g.state.entered_turn[ldr] == g.turn
    assert cell is not None


def test_rule_19_44_a_lone_returning_leader_scatters_as_a_stick():
    """Rule 19.44: every stick that is not cancelled rolls on the Drop Table,
    and Half moves the entire stick; a returning leader jumping alone (19.21)
    is such a stick (Italian, no AA: off target with 2d6 of 8 or more, 15/36)."""
    g = _stick_game()
    ldr = u_name(g, "axis.185.ldr.frattini")
    th = hex_index(g, "1312")
    off = 0
    for _ in range(60):
        _rejump(g, 2, [ldr], "1312")
        off += g.state.box[ldr] != BOX_MAP or g.state.hex[ldr] != th
    assert off > 0


def test_rule_19_2_a_battalion_jumps_as_its_three_companies():
    """Rules 19.2 and 4.23 c: a paratroop battalion planned as a stick is
    broken down into its three companies, which jump; the battalion piece
    stays in the Disbandment Box."""
    g = _stick_game()
    s = g.state
    bn = u_name(g, "axis.ram.1_3")
    landed = airborne.jump_stick(g, 1, [bn], "1312", solitaire=False)
    assert sorted(g.static.names[x] for x in landed) == ["axis.ram.1_3.a", "axis.ram.1_3.b", "axis.ram.1_3.c"]
    assert s.box[bn] == BOX_DISBANDMENT
    assert all(s.box[x] == BOX_MAP and s.entered_turn[x] == g.turn for x in landed)


def _loss_mods(g, x, aa_hexes):
    """Modifiers of rule 19.46 for a unit landed in hex ``x`` (no enemy unit in it)."""
    t, s = g.static, g.state
    d = t.grid.distance_table
    rough = bool(t.woods[x] or t.town[x] or t.city[x] or (t.fort[x] and not s.fort_destroyed[x]))
    aa = any(d[x, a] <= 3 for a in aa_hexes)
    return int(rough) + int(aa)


def test_rule_19_46_airborne_losses_by_landing_hex():
    """Rule 19.46: each company that lands rolls one die, +1 in woods, town,
    city or an undestroyed fort, +1 with Allied AA within three hexes; 7 or
    more turns it to its reduced side (its second strength level, 17.83).
    Leaders and HQs never roll.  Sticks jump again and again on woods, town,
    city and clear hexes, forts destroyed (17.1) and next to one AA unit; the reductions by kind of
    landing hex match the probabilities (none with no modifier).
    False-alarm rate 1e-4 per kind."""
    g = _stick_game(seed=11)
    s, t = g.state, g.static
    d = t.grid.distance_table
    comps = H.break_down(g, u_name(g, "axis.ram.2_5"))
    hq_stick = [u_name(g, n) for n in ("axis.ram.ldr.ramcke", "axis.ram.hq", "axis.ram.eng")]
    clear_aa = hex_index(g, "1510")
    back = _aa_ring(g, clear_aa, away=[hex_index(g, x) for x in ("1214", "1112", "1711", "1110", "1413", "1312")])[:1]
    aa_hexes = [back[0][1]]
    destroyed = hex_index(g, "1111")
    s.fort_destroyed[destroyed] = True                       # 17.1: treated as its other terrain
    kinds = {}                                               # kind -> [landings, reductions]
    hq_rolls = 0

    def kind_of(x):
        terr = ("woods" if t.woods[x] else "town" if t.town[x] else "city" if t.city[x]
                else "fort" if t.fort[x] and not s.fort_destroyed[x] else "clear")
        return terr + ("+aa" if any(d[x, a] <= 3 for a in aa_hexes) else "")

    plan = [("1214", comps, 1, 60), ("1112", comps, 1, 60), ("1711", comps, 1, 60), ("1110", comps, 1, 60),
            ("1111", comps, 1, 40), ("1510", comps, 1, 60), ("1312", comps, 1, 60), ("1413", hq_stick, 1, 150)]
    for target, units, f, n in plan:
        for _ in range(n):
            _cell, rows = _rejump(g, f, units, target, back)
            if any(r["action"] == "attack" for r in rows) or any(
                    s.box[x] == BOX_MAP and s.hex[x] in aa_hexes for x in units):
                continue                                     # a hostile landing on the AA hex (19.5)
            lost = {}
            for r in rows:
                if r["action"] == "airborne_loss":
                    for nm in r["units"].split():
                        lost[u_name(g, nm)] = r["result"]
            hq_rolls += sum(x in lost for x in hq_stick[:2])
            for x in units:
                if t.utype[x] in (st.LEADER, st.HQ) or s.box[x] != BOX_MAP:
                    continue
                if x in lost:
                    assert lost[x] == "reduced"              # two-sided companies turn over
                    assert s.reduced[x] and s.level[x] == 1
                    assert g.base_attack(x) == int(t.attack[x, 1])
                else:
                    assert not s.reduced[x] and s.level[x] == 0
                k = kinds.setdefault((kind_of(int(s.hex[x])), _loss_mods(g, int(s.hex[x]), aa_hexes),
                                      t.utype[x] == st.ENGINEER), [0, 0])
                k[0] += 1
                k[1] += x in lost
    assert hq_rolls == 0                                     # HQs and leaders are not affected
    for (kind, mods, _eng), (n, k) in kinds.items():
        if mods == 0:
            assert k == 0, (kind, n, k)
        elif n >= 20:
            assert binom_ok(k, n, mods / 6), (kind, mods, n, k)
    big = {(kind, eng) for (kind, _m, eng), (n, _k) in kinds.items() if n >= 60}
    assert {("woods", False), ("town", False), ("city", False), ("clear", False),
            ("clear+aa", False), ("town", True)} <= big, kinds
    assert s.fort_destroyed[hex_index(g, "1110")]            # 17.1: entered by Axis units


# ----------------------------------------------------------------- 19.5 hostile landings
def _landed(g, names, hex_id):
    """Put the Axis pieces ``names`` on ``hex_id`` as landed this turn."""
    s = g.state
    xs = [u_name(g, n) for n in names]
    for x in xs:
        s.box[x], s.hex[x], s.entered_turn[x] = BOX_MAP, hex_index(g, hex_id), g.turn
    return xs


def test_rule_19_52_parachute_artillery_alone_in_an_enemy_hex_is_eliminated():
    """Rule 19.52: parachute artillery may not attack units in its hex; the
    only unit landing in an enemy-occupied hex, it is eliminated (no combat,
    the Allied company unharmed).  With only a coastal gun in the hex the gun
    is eliminated and the artillery stays (19.53, 16.58)."""
    from malta_sim.iod.state import BOX_ELIMINATED
    g = _stick_game()
    s = g.state
    coy = u_name(g, "allied.uk.inf_coy.1")
    s.box[coy], s.hex[coy] = BOX_MAP, hex_index(g, "1312")
    (art,) = _landed(g, ["axis.ram.art"], "1312")
    n0 = len(g.events.rows)
    ap.hostile_landing(g, hex_index(g, "1312"), [art])
    assert s.box[art] == BOX_ELIMINATED
    assert s.box[coy] == BOX_MAP and s.hex[coy] == hex_index(g, "1312") and s.level[coy] == 0
    assert not [r for r in g.events.rows[n0:] if r["action"] == "attack"]
    cg = u_name(g, "allied.cg.light.1")
    s.box[cg], s.hex[cg] = BOX_MAP, hex_index(g, "1213")
    (art2,) = _landed(g, ["axis.185.art_1"], "1213")
    ap.hostile_landing(g, hex_index(g, "1213"), [art2])
    assert s.box[art2] == BOX_MAP and s.box[cg] != BOX_MAP


def test_rule_19_53_6_52_leader_left_alone_in_the_drop_hex_rolls_for_its_fate():
    """Rules 19.53, 6.52, 17.1: an HQ stick (leader, HQ, engineer company)
    that lands in an undestroyed fort held by four Allied battalions attacks
    below the lowest odds column: its units are eliminated; the leader, left
    alone with the enemy, rolls 2d6 (7 or less eliminated, else it escapes
    to the next turn, 14.42) and does not stay in the hex; the fort stands."""
    outcomes = set()
    for seed in range(12):
        g = _stick_game(seed=seed)
        s, t = g.state, g.static
        fort = hex_index(g, "1110")
        bns = [x for x in range(len(t.names)) if t.side[x] == ALLIED and t.utype[x] == st.INFANTRY
               and t.size[x] == st.BATTALION][:4]
        for x in bns:
            s.box[x], s.hex[x], s.level[x] = BOX_MAP, fort, 0
        ldr, hq, eng = _landed(g, ["axis.ram.ldr.ramcke", "axis.ram.hq", "axis.ram.eng"], "1110")
        ap.hostile_landing(g, fort, [ldr, hq, eng])
        assert s.box[hq] != BOX_MAP and s.box[eng] != BOX_MAP
        assert s.box[ldr] != BOX_MAP                                 # 6.52: never left with the enemy
        outcomes.add("escaped" if s.escaped[ldr] else "eliminated")
        assert all(s.box[x] == BOX_MAP for x in bns)
        assert t.fort[fort] and not s.fort_destroyed[fort]           # held by the Allies (17.1, 19.5)
    assert outcomes == {"escaped", "eliminated"}


# ----------------------------------------------------------------- 19.12, 19.13 moving the markers
class _MarkerMover(AxisBot):
    """Answers 19.13 per formation: ``"last"`` (the last hex offered),
    ``"stay"`` (its own hex), ``"off"`` (a hex not offered) or None (no move);
    records the formations asked."""

    def __init__(self, answers):
        super().__init__(AXIS)
        self.answers = dict(answers)
        self.asked: list = []

    def move_drop_marker(self, game, formation, options):
        self.asked.append(int(formation))
        a = self.answers.get(int(formation))
        here = int(game.state.dz_hex[0, formation])
        if a == "last":
            return options[-1]
        if a == "stay":
            return here
        if a == "off":
            return int(next(x for x in np.flatnonzero(game.static.land).tolist()
                            if x not in options and x != here))
        return None


def _marker_game(answers, markers=("1413", "1210"), allied=()):
    """Introductory game, every land hex Axis-controlled, no Allied piece but
    ``allied`` ((name, hex id) pairs), the markers on ``markers``."""
    bot = _MarkerMover(answers)
    g = setup_game("intro", 12, 0, (bot, AlliedBot(ALLIED)), event_log=True)
    s, t = g.state, g.static
    clear_allied(g)
    s.control[np.flatnonzero(t.land)] = AXIS
    for name, hx in allied:
        x = u_name(g, name)
        s.box[x], s.hex[x] = BOX_MAP, hex_index(g, hx)
    for f, hx in zip((1, 2), markers):
        s.dz_hex[0, f] = hex_index(g, hx)
    g.cache.clear()
    return g, bot


def test_rule_19_12_19_13_marker_with_an_allied_unit_stays():
    """Rules 19.12, 19.13: a drop zone marker sharing its hex with an Allied
    unit (other than coastal guns) may not move; the other formation's marker
    still may, to a hex of the 19.13 search."""
    g, bot = _marker_game({1: "last", 2: "last"}, allied=[("allied.uk.inf_coy.1", "1413")])
    want = ref.marker_reach(g, hex_index(g, "1210"), H.enemy_zoc(g, AXIS), ap.MARKER_MOVE)
    ap.move_drop_markers(g)
    assert bot.asked == [2]
    assert int(g.state.dz_hex[0, 1]) == hex_index(g, "1413")
    assert int(g.state.dz_hex[0, 2]) == want[-1]


def test_rule_19_12_a_coastal_gun_does_not_hold_the_marker():
    """Rule 19.12 (coastal guns do not count): a marker with only a coastal
    gun in its hex may move; a formation that declines keeps its marker and
    the other is still asked."""
    g, bot = _marker_game({1: None, 2: "last"}, allied=[("allied.cg.light.1", "1413")])
    ap.move_drop_markers(g)
    assert bot.asked == [1, 2]
    assert int(g.state.dz_hex[0, 1]) == hex_index(g, "1413")
    assert int(g.state.dz_hex[0, 2]) != hex_index(g, "1210")


def test_rule_19_13_a_marker_with_nowhere_to_go_is_not_asked():
    """Rule 19.13: a marker surrounded by Allied-controlled hexes has no
    route; its formation is not asked and the other is."""
    g, bot = _marker_game({1: "last", 2: "last"})
    s, t = g.state, g.static
    here = hex_index(g, "1413")
    s.control[[o for o in t.neighbours[here] if o >= 0]] = ALLIED
    g.cache.clear()
    ap.move_drop_markers(g)
    assert bot.asked == [2]
    assert int(s.dz_hex[0, 1]) == here and int(s.dz_hex[0, 2]) != hex_index(g, "1210")


@pytest.mark.parametrize("answer", ["stay", "off"])
def test_rule_19_13_marker_moves_only_within_its_reach(answer):
    """Rule 19.13: the marker may stay where it is; a hex outside the
    three-hex friendly route is refused."""
    from malta_sim.iod.game import IllegalDecision
    g, bot = _marker_game({1: answer, 2: None})
    if answer == "off":
        with pytest.raises(IllegalDecision, match=r"19\.13"):
            ap.move_drop_markers(g)
    else:
        ap.move_drop_markers(g)
        assert int(g.state.dz_hex[0, 1]) == hex_index(g, "1413")


def test_rule_19_6_rally_skips_artillery_units_in_zoc_and_declined_moves():
    """Rule 19.6: parachute artillery does not rally, a unit in an enemy ZOC
    neither, the Axis may decline a unit's move; the units after them in the
    list are still offered their one-hex move."""
    from tests.conftest import u
    g, landed, bot = _jump(3, ["axis.ram.1_2"])
    s, t = g.state, g.static
    d = t.grid.distance_table
    assert len(landed) >= 2
    caught, free = landed[0], landed[1]
    art = u("axis.ram.art")
    s.box[art], s.hex[art], s.entered_turn[art] = BOX_MAP, s.hex[free], g.turn
    inf = u("allied.uk.8m")
    spots = [(x, int(o)) for x in np.flatnonzero(t.land & (d[s.hex[free]] >= 4)).tolist()
             for o in t.neighbours[x] if o >= 0 and t.land[o] and d[o, s.hex[free]] >= 3]
    s.hex[caught] = spots[0][0]
    s.box[inf], s.hex[inf] = BOX_MAP, spots[0][1]
    declined = landed[2] if len(landed) > 2 else None
    g.cache.clear()
    start = int(s.hex[free])

    bot.one_hex_move = lambda game, unit, options, reason: (
        None if unit == declined else (bot.rally.append((int(unit), list(options), reason)) or options[0]))
    airborne.rally(g, [art, caught] + ([declined] if declined is not None else []) + [free])
    assert [x for x, _o, _r in bot.rally] == [free]
    assert d[start, s.hex[free]] == 1


def test_rule_19_21_14_43_adc_jumps_with_the_engineers_when_the_hq_is_gone():
    """Rules 19.21, 14.43, 16.82 (Introductory Scenario): with Ramcke's HQ
    eliminated and not yet back, its ADC waits in the Disbandment Box with
    the engineer company that has not jumped; they form one stick, and the
    ADC, which does not roll (19.44), lands with the engineers."""
    from malta_sim.iod.state import BOX_TURN_TRACK
    g = play.new_game("intro", 5, 0, axis_policy="random", allied_policy="random", event_log=True)
    s = g.state
    clear_allied(g)
    hq, ldr, eng = (u_name(g, n) for n in ("axis.ram.hq", "axis.ram.ldr.ramcke", "axis.ram.eng"))
    s.box[hq], s.hex[hq], s.return_turn[hq] = BOX_TURN_TRACK, -1, 4 * 6
    s.box[ldr], s.hex[ldr], s.level[ldr] = BOX_DISBANDMENT, -1, 1
    sticks = [(k, xs) for k, xs in airborne.available_sticks(g, 1, set()) if ldr in xs]
    assert sticks == [("hq_engineers", tuple(sorted((ldr, eng))))]
    for _ in range(20):
        _cell, _rows = _rejump(g, 1, sticks[0][1], "1312")
        if s.box[eng] == BOX_MAP:
            assert s.box[ldr] == BOX_MAP and s.hex[ldr] == s.hex[eng]


def test_rule_19_43_stick_placed_off_the_map_is_cancelled_without_a_hex():
    """Rule 19.43: a stick whose planned position falls off the map is
    cancelled like one on the ocean: it stays in the Disbandment Box, and
    the log names its units but no hex."""
    g = _stick_game()
    comps = H.break_down(g, u_name(g, "axis.ram.ram"))
    for target in (None, "9999"):
        n0 = len(g.events.rows)
        assert airborne.jump_stick(g, 1, comps, target, solitaire=False) == []
        (row,) = g.events.rows[n0:]
        assert row["action"] == "stick_cancelled" and row["hexes"] == "" and row["units"]
        assert all(g.state.box[x] == BOX_DISBANDMENT for x in comps)


def test_rule_19_51_19_52_parachute_artillery_takes_no_attackers_loss():
    """Rules 19.51 and 19.52: parachute artillery that lands with its
    companies in an enemy hex does not attack, so the step losses of the
    attack fall on the companies only (the Axis is never offered the
    artillery as a loss); the companies fight the company in the hex."""
    from tests.conftest import Scripted
    offered, fights = [], 0
    for seed in range(30):
        g = _stick_game(seed=seed)
        s = g.state

        class Rec(Scripted):
            def choose_loss(self, game, units, reason):
                offered.append(sorted(int(x) for x in units))
                return super().choose_loss(game, units, reason)
        g.policies = (Rec(AXIS), g.policies[ALLIED])
        for name in ("allied.uk.8m", "allied.uk.inf_coy.1"):
            x = u_name(g, name)
            s.box[x], s.hex[x], s.level[x] = BOX_MAP, hex_index(g, "1312"), 0
        landed = _landed(g, ["axis.ram.1_2.a", "axis.ram.1_2.b", "axis.ram.art"], "1312")
        n0 = len(offered)
        ap.hostile_landing(g, hex_index(g, "1312"), landed)
        fights += len(offered) > n0
    assert fights >= 3
    art = u_name(g, "axis.ram.art")
    assert all(art not in units for units in offered)
