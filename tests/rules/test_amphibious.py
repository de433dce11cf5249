"""Amphibious landings (rule 18): Follow-up and wave boxes, landing losses, water's edge
combat, on constructed positions and by the dice kernels' exact odds; the battalions that
may break down in the Follow-up boxes (18.31) on random positions.

Statistical tests draw with a fixed seed (:func:`tests.conftest.kernel_stream`) and compare
frequencies with the exact probabilities by a binomial or chi-square test at significance
1e-4 each (false-alarm rate 1e-4 per test; with the fixed seed the outcome is deterministic).
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np
import pytest
from scipy.stats import chisquare

from malta_sim import play
from malta_sim.iod import invasion as H, sequence, static as st
from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.rules import amphibious, amphibious as landings, amphibious as ld
from malta_sim.iod.state import (ALLIED, AXIS, BOX_FIRST_WAVE, BOX_FOLLOW_UP, BOX_MAP,
                                 BOX_SECOND_WAVE)

from tests.conftest import (ALPHA, binom_ok, clear_allied, hercules_game, kernel_stream,
                            landing_zone_game, N_DRAWS)
from tests.oracles import iod_rules as ref


def test_rule_18_22_follow_up_boxes_on_first_initial_segment():
    g = hercules_game()
    amphibious.place_follow_up_boxes(g)
    s, t = g.state, g.static
    for d in H.DIVISIONS:
        units = np.flatnonzero((s.formation == d) & (t.side == AXIS) & (t.utype != st.HQ - 100))
        units = [u for u in units if s.box[u] == BOX_FOLLOW_UP]
        assert units and all(s.box_slot[u] == s.division_zone[0, d] for u in units)


def test_rule_18_91_no_box_for_allied_occupied_beach():
    """18.91 / 18.32: an Allied unit on a beach hex closes both of its boxes;
    a beach next to an Allied unit needs its First Wave box filled first."""
    g, z, beaches = landing_zone_game()
    clear_allied(g)
    s, t = g.state, g.static
    inf = [u for u in range(len(t.names)) if t.side[u] == ALLIED and t.utype[u] == st.INFANTRY
           and t.size[u] == st.BATTALION][0]
    s.box[inf], s.hex[inf] = BOX_MAP, beaches[0]
    opts = amphibious.wave_options(g)
    assert beaches[0] not in opts.first[z]
    nb = [int(o) for o in t.neighbours[beaches[0]] if o in beaches]
    for b in nb:
        assert b in opts.second_needs_first[z]


def test_rule_18_31_first_wave_limits_enforced():
    g, z, beaches = landing_zone_game()
    clear_allied(g)
    opts = amphibious.wave_options(g)
    units = opts.zones[z]
    arts = [u for u in units if g.static.utype[u] == st.ARTILLERY]
    with pytest.raises(IllegalDecision):
        amphibious.validate_waves(g, opts, {(BOX_FIRST_WAVE, beaches[0]): arts[:1]})
    two = [u for u in units if g.static.utype[u] in (st.ENGINEER, st.MARINE)][:2]
    with pytest.raises(IllegalDecision):
        amphibious.validate_waves(g, opts, {(BOX_SECOND_WAVE, beaches[0]): two})
    fill = amphibious.fill_wave_boxes(g, opts, None)
    amphibious.validate_waves(g, opts, fill)                                                    # default is legal
    for (w, b), us in fill.items():
        assert len(us) <= (3 if w == BOX_FIRST_WAVE else 1)


def test_rule_18_5_no_landing_losses_far_from_allies():
    """18.5: no roll beyond two hexes of every Allied unit; 18.7: beach move."""
    g, z, beaches = landing_zone_game()
    clear_allied(g)
    s = g.state
    opts = amphibious.wave_options(g)
    fill = amphibious.fill_wave_boxes(g, opts, None)
    for (w, b), us in fill.items():
        for u in us:
            s.box[u], s.box_slot[u] = w, b
    n = sum(len(v) for v in fill.values())
    amphibious.land_wave(g, BOX_FIRST_WAVE)
    amphibious.land_wave(g, BOX_SECOND_WAVE)
    landed = [u for u in g.on_map(AXIS)]
    assert len(landed) >= n                                                            # nothing lost
    assert all(s.landed_beach[b] for (w, b) in fill)                                   # 8.51, 12.54


def test_rule_18_6_waters_edge_losses_are_steps_only():
    """18.6 / 18.63: water's edge fire costs steps, never retreats; Allied
    units across an all-ocean hexside cannot fire."""
    g, z, beaches = landing_zone_game()
    clear_allied(g)
    s, t = g.state, g.static
    b = beaches[0]
    land_nb = [int(t.neighbours[b, d]) for d in range(6)
               if t.neighbours[b, d] >= 0 and t.land[t.neighbours[b, d]] and not t.ocean_side[b, d]
               and not t.beach[t.neighbours[b, d]]]
    if not land_nb:
        pytest.skip("beach without a land neighbour")
    bns = [u for u in range(len(t.names)) if t.side[u] == ALLIED and t.utype[u] == st.INFANTRY
           and t.size[u] == st.BATTALION and t.nation[u] == st.BRITISH][:2]
    for u in bns:
        s.box[u], s.hex[u], s.level[u] = BOX_MAP, land_nb[0], 0
    opts = amphibious.wave_options(g)
    units = [u for u in opts.zones[z] if g.static.utype[u] in (st.ENGINEER, st.MARINE)][:2]
    for u in units:
        s.box[u], s.box_slot[u] = BOX_FIRST_WAVE, b
    before = int(s.allied_steps_lost[0]) + int(s.axis_steps_lost[0])
    amphibious.land_wave(g, BOX_FIRST_WAVE)
    for u in bns:
        assert s.box[u] in (BOX_MAP, 5) and (s.box[u] != BOX_MAP or s.hex[u] == land_nb[0])  # no retreat
    assert int(s.allied_steps_lost[0]) + int(s.axis_steps_lost[0]) >= before


def test_rule_18_5_engine_landing_losses_statistical():
    """Rule 18.5 through the landing driver: a marine company landing next to an
    Allied RAF company (attack 0, so no water's edge fire) is eliminated with
    probability exactly 1/3.  Binomial test, false-alarm rate 1e-4."""
    from scipy.stats import binomtest

    g, z, beaches = landing_zone_game()
    clear_allied(g)
    s, t = g.state, g.static
    b = beaches[0]
    nb = [int(o) for o in t.neighbours[b] if o >= 0 and t.land[o] and not t.beach[o]]
    raf = [u for u in range(len(t.names)) if t.utype[u] == st.SECURITY and ".raf." in t.names[u]][0]
    s.box[raf], s.hex[raf] = BOX_MAP, nb[0]
    sm = [u for u in range(len(t.names)) if t.utype[u] == st.MARINE][0]
    n, lost = 450, 0
    for _ in range(n):
        s.box[sm], s.box_slot[sm], s.hex[sm] = BOX_FIRST_WAVE, b, -1
        s.steps_lost[sm] = 0
        amphibious.land_wave(g, BOX_FIRST_WAVE)
        lost += int(s.box[sm] == 5)
        s.box[sm], s.hex[sm] = 9, -1
        s.control[b] = ALLIED
    assert binomtest(lost, n, 1 / 3).pvalue > 1e-4


def _hercules_after_setup(g: int = 0):
    return play.new_game("hercules", 1942, g, axis_policy="balanced", allied_policy="static")


def test_default_first_wave_covers_every_open_beach():
    """Rules 18.31/18.32 with 20.0: the default filling puts at least one
    company in the First Wave box of each open beach hex of an occupied zone
    while First-Wave companies remain (deterministic: no dice involved)."""
    for g in range(3):
        game = _hercules_after_setup(g)
        sequence.initial_segment(game)
        amphibious._follow_up_breakdowns(game)
        opts = amphibious.wave_options(game)
        assign = game.policy(0).wave_boxes(game, opts)
        amphibious.validate_waves(game, opts, assign)
        for z, units in opts.zones.items():
            n_first = sum(1 for u in units if amphibious._kind(game, u) in ld.FIRST_WAVE_KINDS)
            covered = [b for b in opts.first[z] if assign.get((BOX_FIRST_WAVE, b))]
            assert len(covered) == min(len(opts.first[z]), n_first)


@nb.njit(cache=True)
def _many_landing(rs, n, dist):
    k = 0
    for _ in range(n):
        if landings.landing_loss_roll(rs, dist):
            k += 1
    return k


@nb.njit(cache=True)
def _many_we(rs, n, strength, col_min, table, out):
    for i in range(n):
        out[i] = landings.waters_edge_fire(rs, strength, col_min, table)


# ----------------------------------------------------------------- 18.5
@pytest.mark.parametrize("dist", [1, 2, 3])
def test_rule_18_5_landing_losses_statistical(dist):
    """Rule 18.5: die +2 adjacent / +1 at two hexes, 7+ eliminates; no roll beyond.
    False-alarm rate 1e-4."""
    k = _many_landing(kernel_stream(40 + dist), N_DRAWS, dist)
    p = landings.p_landing_loss(dist)
    if p == 0:
        assert k == 0
    else:
        assert binom_ok(k, N_DRAWS, p)


def test_rule_18_5_exact():
    assert landings.p_landing_loss(1) == Fraction(1, 3)
    assert landings.p_landing_loss(2) == Fraction(1, 6)
    assert landings.landing_loss_modifier(0) == 2
    assert landings.landing_loss_modifier(3) == -1


# ----------------------------------------------------------------- 18.6
@pytest.mark.parametrize("strength", [2, 7, 30])
def test_rule_18_6_waters_edge_statistical(strength):
    """Rule 18.6: one die on the Water's Edge Combat Table.  Chi-square vs the
    table's exact distribution, false-alarm rate 1e-4."""
    out = np.empty(N_DRAWS, dtype=np.int64)
    cm, tb = landings.FALLBACK_WE_COL_MIN, landings.FALLBACK_WE_TABLE
    _many_we(kernel_stream(50 + strength), N_DRAWS, strength, cm, tb, out)
    pmf = landings.waters_edge_pmf(strength, cm, tb)
    keys = sorted(pmf)
    obs = np.array([(out == k).sum() for k in keys])
    exp = np.array([float(pmf[k]) * N_DRAWS for k in keys])
    assert obs.sum() == N_DRAWS
    if len(keys) > 1:
        assert chisquare(obs, exp).pvalue > ALPHA


def test_rule_18_6_zero_strength_no_fire():
    assert landings.waters_edge_pmf(0, landings.FALLBACK_WE_COL_MIN, landings.FALLBACK_WE_TABLE) == {0: 1}


# ----------------------------------------------------------------- 18.31, 18.32
def test_rule_18_31_first_wave_limits():
    K = landings
    assert K.first_wave_ok([K.KIND_INFANTRY, K.KIND_ENGINEER, K.KIND_MARINE], [4, 4, 4])[0]
    assert not K.first_wave_ok([K.KIND_INFANTRY] * 3, [4, 4, 4])[0]
    assert K.first_wave_ok([K.KIND_MARINE] * 3, [4, 4, 4])[0]
    assert not K.first_wave_ok([K.KIND_MARINE] * 4, [4] * 4)[0]
    assert not K.first_wave_ok([K.KIND_INFANTRY, K.KIND_MARINE, K.KIND_MARINE], [4] * 3)[0]
    assert not K.first_wave_ok([K.KIND_ARTILLERY], [4])[0]
    assert not K.first_wave_ok([K.KIND_INFANTRY, K.KIND_INFANTRY], [4, 20])[0]
    assert K.second_wave_ok(1)[0] and not K.second_wave_ok(2)[0]


def test_breakable_on_random_positions():
    from malta_sim.iod.rules import organisation as org
    g = hercules_game(axis="balanced", allied="static")
    s, t = g.state, g.static
    gen = np.random.default_rng(8)
    units = np.arange(t.n_units)
    boxes = np.array([0, 1, 4, 5, 6, 7, 9], s.box.dtype)       # on the map, pool, Disbandment, ...
    seen = set()
    for _ in range(30):
        s.box[:] = gen.choice(boxes, size=t.n_units)
        s.parent[:] = np.where(gen.random(t.n_units) < 0.3, gen.integers(0, t.n_units, t.n_units), -1)
        s.level[:] = gen.integers(0, 4, t.n_units)
        got = amphibious.breakable(g, units)
        assert got == [ref.can_break_down(g, int(b)) for b in units]       # the plain rule
        seen.update(got)
    assert seen == {True, False}


def test_rule_18_94_no_attack_in_the_landing_turn():
    """Rule 18.94: units may not attack in the Axis Combat Phase of the turn in
    which they made an amphibious landing; they may the next turn.  A 4th
    Division battalion landed on the beach next to the British 8M."""
    from malta_sim.iod.rules import combat
    from tests.conftest import make, u
    for arrived, may in ((8, False), (7, True)):
        g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"]}, turn=8)
        x = u("axis.4.1_34")
        g.state.entered_turn[x] = arrived
        assert combat.can_attack(g, x) is may
        offered = {int(v) for us in combat.attack_options(g, AXIS).values() for v in us}
        assert (x in offered) is may
        assert (x in combat.attackers_now(g, AXIS).tolist()) is may


class _Waves:
    """Axis decisions of the Amphibious Landing Phase for the tests below: the
    wave boxes chosen by ``pick(game, options)`` (recorded calls), no
    break-down in the Follow-up boxes, every other decision as a random bot's."""

    def __init__(self, game, pick):
        self.base = game.policies[AXIS]
        self.pick = pick
        self.asked = 0

    def __getattr__(self, name):
        return getattr(self.base, name)

    def follow_up_breakdowns(self, game, battalions):
        return []                                                  # 18.31: none broken down

    def wave_boxes(self, game, options):
        self.asked += 1
        return self.pick(game, options)


def _landing_game(pick, turn):
    g, z, beaches = landing_zone_game()
    clear_allied(g)
    g.state.turn[0] = turn
    bot = _Waves(g, pick)
    g.policies = (bot, g.policies[ALLIED])
    return g, z, beaches, bot


def test_rule_18_0_18_3_landings_are_voluntary_and_go_through_the_wave_boxes():
    """Rules 18.0 and 18.3 (4.22 a, e, i): no landing is forced: with empty wave
    boxes every unit stays in its Follow-up box; the units the Axis puts in a
    wave box land on that box's beach hex in the same phase."""
    g, z, beaches, bot = _landing_game(lambda game, opts: {}, turn=0)
    s = g.state
    follow = np.flatnonzero(s.box == BOX_FOLLOW_UP).tolist()
    assert follow
    amphibious.amphibious_landing_phase(g)
    assert bot.asked == 1 and np.flatnonzero(s.box == BOX_FOLLOW_UP).tolist() == follow
    assert not any(r["action"] == "landing" for r in g.events.rows)

    chosen = {}

    def pick(game, opts):
        chosen.update(amphibious.fill_wave_boxes(game, opts, None))
        return dict(chosen)

    g, z, beaches, bot = _landing_game(pick, turn=0)
    s = g.state
    amphibious.amphibious_landing_phase(g)
    assert chosen
    first = [(b, x) for (w, b), us in chosen.items() if w == BOX_FIRST_WAVE for x in us]
    assert first
    landed = [r for r in g.events.rows if r["action"] == "landing"]
    assert landed
    names = set(" ".join(r["units"] for r in landed).split())
    for b, x in first:
        assert g.static.names[x] in names                         # 4.22 e: it landed this phase
        assert s.box[x] != BOX_FIRST_WAVE and s.box[x] != BOX_FOLLOW_UP
    untouched = [x for x in np.flatnonzero(s.box == BOX_FOLLOW_UP).tolist()]
    assert all(x not in [y for us in chosen.values() for y in us] for x in untouched)


def test_rule_18_93_no_landings_at_night():
    """Rule 18.93 (4.22): units may not make amphibious landings in night turns:
    on the night turn of 29 June the phase asks nothing and every unit stays in
    its Follow-up box; the next AM turn it asks again."""
    def pick(game, opts):
        return amphibious.fill_wave_boxes(game, opts, None)

    g, z, beaches, bot = _landing_game(pick, turn=3)
    s = g.state
    follow = np.flatnonzero(s.box == BOX_FOLLOW_UP).tolist()
    amphibious.amphibious_landing_phase(g)
    assert bot.asked == 0 and np.flatnonzero(s.box == BOX_FOLLOW_UP).tolist() == follow
    assert not any(r["action"] in ("landing", "wave_box") and r["turn"] == 3 for r in g.events.rows)
    s.turn[0] = 4
    amphibious.amphibious_landing_phase(g)
    assert bot.asked == 1 and any(r["action"] == "landing" and r["turn"] == 4 for r in g.events.rows)


def test_rule_18_33_chirelson_lands_with_the_4th_division_hq():
    """Rule 18.33: the first time the 4th Division HQ is placed in a Second Wave
    box, Chirelson is placed in the same box: they land together (one landing
    entry of the Second Wave holds both)."""
    from tests.conftest import u
    hq, ldr = u("axis.4.hq"), u("axis.4.ldr.chirelson")
    picked = {}

    def pick(game, opts):
        fill = amphibious.fill_wave_boxes(game, opts, None)
        for key, us in fill.items():
            if hq in us:
                picked["box"] = key
        return fill

    g, z, beaches, bot = _landing_game(pick, turn=0)
    s = g.state
    assert s.box[hq] == BOX_FOLLOW_UP and s.box[ldr] == BOX_FOLLOW_UP
    amphibious.amphibious_landing_phase(g)
    assert picked["box"][0] == BOX_SECOND_WAVE                     # the HQ went to a Second Wave box
    rows = [r["units"].split() for r in g.events.rows if r["action"] == "landing"]
    with_hq = [r for r in rows if "axis.4.hq" in r]
    assert len(with_hq) == 1 and "axis.4.ldr.chirelson" in with_hq[0]


# ----------------------------------------------------------------- 18.6 water's edge combat, on the map
class _WatersEdge:
    """Both sides' bots for water's edge combat (18.61, 18.62): the Allied bot
    records the fire options it is offered and fires with the units ``fire``
    chooses (default: each unit at the first hex offered); each side's
    ``choose_loss`` records the units offered and takes the lowest index."""

    def __init__(self, fire=None):
        from tests.conftest import Scripted

        rec = self

        class Axis(Scripted):
            def choose_loss(self, game, units, reason):
                rec.losses.append((AXIS, reason, sorted(int(x) for x in units)))
                return sorted(units)[0]

        class Allied(Scripted):
            def waters_edge_attacks(self, game, options):
                rec.offered.append({int(a): [int(b) for b in v] for a, v in options.items()})
                return fire(options) if fire else {a: v[0] for a, v in options.items()}

            def choose_loss(self, game, units, reason):
                rec.losses.append((ALLIED, reason, sorted(int(x) for x in units)))
                return sorted(units)[0]

        self.offered: list = []
        self.losses: list = []
        self.policies = (Axis(AXIS), Allied(ALLIED))


def _put(g, names, box, h, slot):
    """Place the pieces ``names`` at full strength in ``box`` (hex ``h``,
    box slot ``slot``); returns their indices."""
    from tests.conftest import u
    s = g.state
    out = []
    for n in names:
        x = u(n)
        s.box[x], s.hex[x], s.box_slot[x] = box, h, slot
        s.level[x], s.steps_lost[x] = 0, 0
        out.append(x)
    return out


def _on_map(g, hex_id, *names):
    return _put(g, names, BOX_MAP, g.static.grid.index(hex_id), -1)


def test_rule_18_61_units_that_may_fire_at_the_waters_edge():
    """Rule 18.61 (16.57): the Allied units offered water's edge fire are those
    adjacent to a beach hex with newly landed Axis units, not across an
    all-water hexside, each with the beach hexes it is adjacent to; leaders,
    coastal guns and units of attack strength 0 never fire; Axis units next to
    another landing hex are not offered."""
    from tests.conftest import u
    g = hercules_game()
    clear_allied(g)
    we = _WatersEdge(fire=lambda options: {})
    g.policies = we.policies
    t = g.static
    landed = _on_map(g, "0807", "axis.un.sm_1") + _on_map(g, "1207", "axis.un.sm_2") \
        + _on_map(g, "1308", "axis.un.sm_3")
    _on_map(g, "0908", "allied.uk.8m")                         # across the all-water hexside of 0807
    _on_map(g, "0808", "allied.uk.2rwk")
    _on_map(g, "1208", "allied.ldr.beak", "allied.hq.malta", "allied.uk.11lf")
    _on_map(g, "1408", "allied.raf.tak", "allied.cg.heavy.1", "allied.uk.a_1c")
    assert [int(x) for x in t.neighbours[t.grid.index("0807")]].index(t.grid.index("0908")) \
        < [int(x) for x in t.neighbours[t.grid.index("0807")]].index(t.grid.index("0808"))
    before = len(g.events.rows)
    amphibious.waters_edge_combat(g, landed)
    b0807, b1207, b1308 = (t.grid.index(x) for x in ("0807", "1207", "1308"))
    assert we.offered == [{u("allied.uk.2rwk"): [b0807],
                           u("allied.uk.11lf"): [b1207, b1308],
                           u("allied.uk.a_1c"): [b1308]}]
    assert not we.losses and len(g.events.rows) == before           # no one fired


def test_rule_18_61_no_fire_without_an_adjacent_allied_unit():
    """Rule 18.61: with no Allied unit able to fire next to the landing hex, the
    Allied player is offered nothing (a unit farther off, a leader and a
    coastal gun next to it do not count)."""
    g = hercules_game()
    clear_allied(g)
    we = _WatersEdge()
    g.policies = we.policies
    landed = _on_map(g, "1308", "axis.un.sm_1")
    _on_map(g, "1309", "allied.ldr.beak", "allied.cg.heavy.1")
    _on_map(g, "1410", "allied.uk.8m")                           # two hexes off
    amphibious.waters_edge_combat(g, landed)
    assert we.offered == [] and we.losses == []
    _on_map(g, "0908", "allied.uk.2rwk")                         # only across the all-water hexside
    amphibious.waters_edge_combat(g, _on_map(g, "0807", "axis.un.sm_2"))
    assert we.offered == [] and we.losses == []


def test_rule_18_61_fire_at_a_hex_not_adjacent_is_illegal():
    """Rule 18.61: a unit may fire only at a beach hex it is adjacent to."""
    g = hercules_game()
    clear_allied(g)
    t = g.static
    far = t.grid.index("0807")
    we = _WatersEdge(fire=lambda options: {a: far for a in options})
    g.policies = we.policies
    landed = _on_map(g, "1308", "axis.un.sm_1") + _on_map(g, "0807", "axis.un.sm_2")
    _on_map(g, "1309", "allied.uk.8m")
    with pytest.raises(IllegalDecision):
        amphibious.waters_edge_combat(g, landed)


def test_rule_18_6_waters_edge_fire_on_the_games_dice():
    """Rules 18.61-18.63 on the game's own dice: each attacked beach hex is
    fired at with the total strength of its attackers (one die on the Water's
    Edge Combat Table, each X eliminates one Axis unit of the Axis player's
    choice, leaders never); then each attacked hex with Axis units left fires
    back with the strength of all of them (leaders add nothing), each X one
    step of an Allied unit of the Allied player's choice in any adjacent hex
    (not a leader or coastal gun); a hex whose landed units were all
    eliminated does not fire.  Thirty landings, each predicted die by die."""
    from malta_sim.rng import nb_die
    from tests.conftest import u

    g = hercules_game()
    clear_allied(g)
    t = g.static
    s = g.state
    inv = H.inv_static(g)
    p, q = t.grid.index("1308"), t.grid.index("1415")
    assert t.grid.index("1315") == int(t.neighbours[q, 5])         # the last direction
    lone = u("axis.un.sm_1")
    trio = [u("axis.un.sm_2"), u("axis.un.sm_3"), u("axis.un.sm_4")]
    ldr = u("axis.4.ldr.chirelson")
    bn_p, bn_q = u("allied.uk.8m"), u("allied.uk.2rwk")

    def table(strength, die):
        col = amphibious.waters_edge_column(strength, inv.we_col_min)
        return 0 if col < 0 else int(inv.we_table[col, die - 1])

    seen = {"axis_x": 0, "allied_x": 0, "emptied": 0}
    for trial in range(30):
        we = _WatersEdge()
        g.policies = we.policies
        landed = _on_map(g, "1308", "axis.un.sm_1") \
            + _on_map(g, "1415", "axis.un.sm_2", "axis.un.sm_3", "axis.un.sm_4", "axis.4.ldr.chirelson")
        _on_map(g, "1309", "allied.uk.8m")
        _on_map(g, "1315", "allied.uk.2rwk", "allied.ldr.beak", "allied.cg.heavy.1")
        rows = len(g.events.rows)
        dice = H.nstate(g, "combat").copy()
        # the prediction, as printed
        alive = {p: [lone], q: list(trio)}
        want_lost = {bn_p: 0, bn_q: 0}
        want_losses = []
        for b, a in ((p, bn_p), (q, bn_q)):                               # 18.61, hexes in order
            if table(H.attack_strength(g, a), nb_die(dice)):
                want_losses.append((AXIS, "water's edge 18.61", sorted(alive[b])))
                alive[b] = sorted(alive[b])[1:]
                seen["allied_x"] += 1
        for b, a in ((p, bn_p), (q, bn_q)):                               # 18.62
            if not alive[b]:
                seen["emptied"] += 1
                continue
            strength = sum(H.attack_strength(g, x) for x in alive[b])
            if table(strength, nb_die(dice)):
                want_losses.append((ALLIED, "water's edge 18.62", [a]))
                want_lost[a] += 1
                seen["axis_x"] += 1
        amphibious.waters_edge_combat(g, landed)
        assert we.offered == [{bn_p: [p], bn_q: [q]}]
        assert we.losses == want_losses
        assert np.array_equal(H.nstate(g, "combat"), dice)                # one die per fire, no more
        for b in (p, q):
            assert sorted(int(x) for x in g.units_at(b, AXIS) if x != ldr) == alive[b]
        assert s.box[ldr] == BOX_MAP and s.hex[ldr] == q                  # leaders are never hit
        assert {a: int(s.level[a]) for a in (bn_p, bn_q)} == want_lost     # steps, no retreat (18.63)
        assert all(s.hex[a] == h for a, h in ((bn_p, t.grid.index("1309")), (bn_q, t.grid.index("1315"))))
        logged = g.events.rows[rows:]
        assert [r["action"] for r in logged if r["action"] == "waters_edge_allied"] == ["waters_edge_allied"] * 2
        axis_rows = [r for r in logged if r["action"] == "waters_edge_axis"]
        assert [r["units"].split() for r in axis_rows] == [[t.names[x] for x in alive[b]] for b in (p, q) if alive[b]]
        for x in [lone] + trio + [ldr] + [bn_p, bn_q]:
            s.box[x], s.hex[x] = 9, -1
    assert seen["allied_x"] and seen["axis_x"] and seen["emptied"]


# ----------------------------------------------------------------- 18.5, 18.7, 18.8, 18.91: one wave lands
class _Beach:
    """Bots for a wave landing: the Axis bot records the beach moves it is
    offered (18.7) and answers from ``moves`` (a list of callables ``opts ->
    hex or None``, one per call; None when exhausted), reforms every battalion
    offered (13.2), takes the lowest-index unit as a loss; the Allied bot
    records its water's edge options and never fires."""

    def __init__(self, moves=()):
        from tests.conftest import Scripted

        rec = self
        self.moves, self.reform_offers, self.we_offers = [], [], []
        answers = list(moves)

        class Axis(Scripted):
            def one_hex_move(self, game, unit, options, reason):
                rec.moves.append((int(unit), list(options)))
                return answers.pop(0)(options) if answers else None

            def reforms(self, game, options):
                rec.reform_offers.append(list(options))
                return list(options)

        class Allied(Scripted):
            def waters_edge_attacks(self, game, options):
                rec.we_offers.append({int(a): list(v) for a, v in options.items()})
                return {}

        self.policies = (Axis(AXIS), Allied(ALLIED))


def _to_box(g, wave, beach, *names):
    return _put(g, names, wave, -1, beach)


def test_rule_18_5_landing_losses_on_the_games_dice():
    """Rule 18.5 on the game's own dice: every unit landed (HQs and leaders
    excepted) within two hexes of an Allied unit rolls one die, +2 when its
    beach hex is adjacent to one, +1 at two hexes; 7 or more eliminates it; a
    unit farther off does not roll.  Thirty landings, each die predicted."""
    from malta_sim.rng import nb_die
    from tests.conftest import u

    g, z, beaches = landing_zone_game()
    clear_allied(g)
    s, t = g.state, g.static
    d = t.grid.distance_table
    raf = u("allied.raf.tak")                                   # attack 0: no water's edge fire
    near = [int(x) for x in np.flatnonzero(t.land & ~t.beach)
             if {1, 2} <= {int(d[b, x]) for b in beaches} and max(d[b, x] for b in beaches) >= 3][0]
    s.box[raf], s.hex[raf] = BOX_MAP, near
    ba = [b for b in beaches if d[b, near] == 1][0]
    bb = [b for b in beaches if d[b, near] == 2][0]
    bc = [b for b in beaches if d[b, near] >= 3][0]
    seen = set()
    for trial in range(30):
        bot = _Beach()
        g.policies = bot.policies
        at_a = _to_box(g, BOX_FIRST_WAVE, ba, "axis.4.hq", "axis.4.ldr.chirelson", "axis.4.eng_11.1", "axis.un.sm_2")
        at_b = _to_box(g, BOX_FIRST_WAVE, bb, "axis.4.eng_11.2")
        at_c = _to_box(g, BOX_FIRST_WAVE, bc, "axis.un.sm_6")
        rows = len(g.events.rows)
        dice = H.nstate(g, "landing").copy()
        lost = []
        for x in sorted(at_a[2:] + at_b + at_c):                 # the HQ and the leader never roll
            dist = int(d[s.box_slot[x], near])
            if dist <= 2 and nb_die(dice) + (2 if dist == 1 else 1) >= 7:
                lost.append(x)
                seen.add(dist)
        amphibious.land_wave(g, BOX_FIRST_WAVE)
        assert np.array_equal(H.nstate(g, "landing"), dice)
        assert [x for x in at_a + at_b + at_c if s.box[x] != BOX_MAP] == [x for x in at_a + at_b + at_c if x in lost]
        assert all(s.hex[x] == ba for x in at_a if x not in lost)
        logged = [r for r in g.events.rows[rows:] if r["action"] == "landing_loss"]
        assert sorted(u(r["units"]) for r in logged) == sorted(lost)
        for x in at_a + at_b + at_c:
            s.box[x], s.hex[x] = 9, -1
    assert seen == {1, 2}


def test_rule_18_91_18_8_a_blocked_beach_sends_its_unit_back_and_the_second_wave():
    """Rule 18.91: a unit whose beach hex became Allied-occupied (after the
    boxes were filled) goes back to its Follow-up box; the other units of the
    wave still land.  4.22 e and i (18.5, 18.8): the First and then the Second
    Wave land, each logged under its rule."""
    from tests.conftest import u

    g, z, beaches = landing_zone_game()
    clear_allied(g)
    s, t = g.state, g.static
    ba, bc, bd = t.grid.index("1415"), t.grid.index("2115"), t.grid.index("1815")
    bot = _Beach()
    g.policies = bot.policies
    back = _to_box(g, BOX_FIRST_WAVE, ba, "axis.4.eng_11.1")
    on = _to_box(g, BOX_FIRST_WAVE, bc, "axis.un.sm_2")
    second = _to_box(g, BOX_SECOND_WAVE, bd, "axis.4.eng_11.2")
    inf = u("allied.uk.8m")
    s.box[inf], s.hex[inf] = BOX_MAP, ba                          # an uprising took the beach
    rows = len(g.events.rows)
    amphibious.land_wave(g, BOX_FIRST_WAVE)
    assert s.box[back[0]] == BOX_FOLLOW_UP and s.box_slot[back[0]] == z and s.hex[back[0]] < 0
    assert s.box[on[0]] == BOX_MAP and s.hex[on[0]] == bc
    assert s.box[second[0]] == BOX_SECOND_WAVE
    amphibious.land_wave(g, BOX_SECOND_WAVE)
    assert s.box[second[0]] == BOX_MAP and s.hex[second[0]] == bd
    landing = [(r["rule"], r["units"]) for r in g.events.rows[rows:] if r["action"] == "landing"]
    assert landing == [("18.5", "axis.un.sm_2"), ("18.8", "axis.4.eng_11.2")]


def test_rule_18_6_18_7_waters_edge_then_beach_movement_out_of_enemy_zoc():
    """Rules 18.6, 18.7: after the landing the Allied units next to a landed
    unit are offered water's edge fire; then each landed unit not in an enemy
    ZOC may move one hex (the player may decline for one unit and move
    another); a landed unit in an Allied ZOC may not move."""
    from tests.conftest import u

    g, z, beaches = landing_zone_game()
    clear_allied(g)
    s, t = g.state, g.static
    ba, bc, bd = t.grid.index("1415"), t.grid.index("2115"), t.grid.index("1815")
    bn = u("allied.uk.8m")
    s.box[bn], s.hex[bn] = BOX_MAP, t.grid.index("1315")            # next to 1415 only
    bot = _Beach(moves=[lambda opts: None, lambda opts: opts[0]])
    g.policies = bot.policies
    hq = _to_box(g, BOX_FIRST_WAVE, ba, "axis.4.hq")[0]            # an HQ: no landing loss (18.5)
    stay = _to_box(g, BOX_FIRST_WAVE, bc, "axis.4.eng_11.1")[0]
    go = _to_box(g, BOX_FIRST_WAVE, bd, "axis.un.sm_2")[0]
    amphibious.land_wave(g, BOX_FIRST_WAVE)
    assert bot.we_offers == [{bn: [ba]}]                            # 18.61
    assert [m[0] for m in bot.moves] == [stay, go]                  # not the HQ in the ZOC
    assert s.hex[hq] == ba and s.hex[stay] == bc
    to = bot.moves[1][1][0]
    assert s.hex[go] == to and t.grid.distance_table[to, bd] == 1


def test_rule_18_7_companies_landed_together_reform():
    """Rule 18.7 (13.2): companies of one battalion that landed in one hex may
    reform it there after the beach movement."""
    from tests.conftest import u

    g, z, beaches = landing_zone_game()
    clear_allied(g)
    s, t = g.state, g.static
    bc = t.grid.index("2115")
    bn = u("axis.4.1_33")
    coys = H.break_down(g, bn)
    assert len(coys) == 3 and all(s.box[c] == BOX_FOLLOW_UP for c in coys)
    bot = _Beach()
    g.policies = bot.policies
    for c in coys:
        s.box[c], s.box_slot[c] = BOX_FIRST_WAVE, bc
    amphibious.land_wave(g, BOX_FIRST_WAVE)
    assert [o[0] for o in bot.reform_offers[0]] == [bn]
    assert s.box[bn] == BOX_MAP and s.hex[bn] == bc
    assert not any(s.box[c] == BOX_MAP for c in coys)


# ----------------------------------------------------------------- 18.33 the 4th Division's leader
def _landed_with(g, name):
    """Names landing together with ``name`` in this game's landing entries (or None)."""
    for r in g.events.rows:
        if r["action"] == "landing" and name in r["units"].split():
            return r["units"].split()
    return None


def test_rule_18_33_chirelson_waits_for_the_hq_in_the_follow_up_box():
    """Rule 18.33: Chirelson and the 4th Division HQ make their first landing
    together: while the HQ is still in the Follow-up box the leader stays
    there, even when other units of the division land."""
    from tests.conftest import u
    hq, ldr, eng = u("axis.4.hq"), u("axis.4.ldr.chirelson"), u("axis.4.eng_11.1")

    def pick(game, opts):
        return {(BOX_FIRST_WAVE, opts.first[z][0]): [eng]}

    g, z, beaches, bot = _landing_game(pick, turn=0)
    amphibious.amphibious_landing_phase(g)
    s = g.state
    assert s.box[hq] == BOX_FOLLOW_UP and s.box[ldr] == BOX_FOLLOW_UP
    assert _landed_with(g, "axis.4.eng_11.1") == ["axis.4.eng_11.1"]


def test_rule_18_33_leader_whose_hq_has_landed_goes_with_a_unit_of_its_division():
    """Rule 18.33: once the HQ has landed, the leader in the Follow-up box
    (an ADC, 14.43) lands with a unit of the 4th Division placed in a wave
    box (here the only one, in a First Wave box)."""
    from tests.conftest import u
    hq, ldr, eng = u("axis.4.hq"), u("axis.4.ldr.chirelson"), u("axis.4.eng_11.1")

    chosen = []

    def pick(game, opts):
        chosen.append(opts.first[z][0])
        return {(BOX_FIRST_WAVE, chosen[0]): [eng]}

    g, z, beaches, bot = _landing_game(pick, turn=0)
    g.policies[AXIS].one_hex_move = lambda game, unit, options, reason: None     # no beach movement
    s = g.state
    s.box[hq], s.hex[hq], s.box_slot[hq] = BOX_MAP, beaches[-1], -1          # landed on an earlier turn
    amphibious.amphibious_landing_phase(g)
    assert _landed_with(g, "axis.4.eng_11.1") == ["axis.4.eng_11.1", "axis.4.ldr.chirelson"]
    assert s.box[ldr] == BOX_MAP and s.hex[ldr] == s.hex[eng] == chosen[0]


def test_rule_18_33_returning_leader_joins_the_lowest_numbered_unit_of_its_division_first_wave_first():
    """Rule 18.33 leaves to the player which unit's box a returning leader
    (HQ landed) joins; the engine's reading (rules_coverage.csv 18.33): the
    box of the lowest-numbered unit of its division in a First Wave box, a
    Second Wave box only when no First Wave box holds one.  Here two
    engineer companies in two First Wave boxes and a third unit in a Second
    Wave box: the leader lands with the lower-numbered company."""
    from tests.conftest import u
    hq, ldr = u("axis.4.hq"), u("axis.4.ldr.chirelson")
    e1, e2 = u("axis.4.eng_11.1"), u("axis.4.eng_11.2")
    where = {}

    def pick(game, opts):
        b1, b2 = opts.first[z][:2]
        b3 = [b for b in opts.second_free[z] if b not in (b1, b2)][0]
        third = [x for x in opts.zones[z] if x not in (e1, e2, hq) and game.static.printed_formation[x] == 4][0]
        where.update({e2: b1, e1: b2, third: b3})
        return {(BOX_FIRST_WAVE, b1): [e2], (BOX_FIRST_WAVE, b2): [e1], (BOX_SECOND_WAVE, b3): [third]}

    g, z, beaches, bot = _landing_game(pick, turn=0)
    g.policies[AXIS].one_hex_move = lambda game, unit, options, reason: None     # no beach movement
    s = g.state
    s.box[hq], s.hex[hq], s.box_slot[hq] = BOX_MAP, beaches[-1], -1          # landed on an earlier turn
    assert e1 < e2
    amphibious.amphibious_landing_phase(g)
    assert s.box[ldr] == BOX_MAP and s.hex[ldr] == s.hex[e1] == where[e1] != where[e2]


def test_rule_18_7_leaders_make_their_beach_move_after_the_units_they_landed_with():
    """Rule 18.7 (beach movement, one hex per landed unit) leaves the order of
    the moves to the player; the engine's reading (rules_coverage.csv 18.7):
    the units of a wave land and then move in piece order with the leaders
    last, so a leader may follow the unit it landed with into the hex that
    unit moved to."""
    from tests.conftest import u
    hq, ldr, eng = u("axis.4.hq"), u("axis.4.ldr.chirelson"), u("axis.4.eng_11.1")
    asked = []

    def pick(game, opts):
        return {(BOX_FIRST_WAVE, opts.first[z][0]): [eng]}

    def move(game, unit, options, reason):
        asked.append(int(unit))
        if unit == eng:
            return options[0]
        return int(game.state.hex[eng]) if int(game.state.hex[eng]) in options else None

    g, z, beaches, bot = _landing_game(pick, turn=0)
    g.policies[AXIS].one_hex_move = move
    s = g.state
    s.box[hq], s.hex[hq], s.box_slot[hq] = BOX_MAP, beaches[-1], -1          # landed on an earlier turn
    amphibious.amphibious_landing_phase(g)
    assert asked == [eng, ldr]
    assert s.box[ldr] == BOX_MAP and s.hex[ldr] == s.hex[eng] != s.box_slot[eng]


def test_rule_18_33_a_leader_already_ashore_stays_when_a_new_hq_goes_to_a_box():
    """Rule 18.33 (14.43): a replacement HQ may land without the leader; a
    leader already on the map is not taken back into a wave box with it."""
    from tests.conftest import u
    hq, ldr = u("axis.4.hq"), u("axis.4.ldr.chirelson")

    def pick(game, opts):
        return {(BOX_SECOND_WAVE, opts.second_free[z][0]): [hq]}

    g, z, beaches, bot = _landing_game(pick, turn=0)
    s = g.state
    mate = u("axis.4.eng_11.2")
    for x in (ldr, mate):
        s.box[x], s.hex[x], s.box_slot[x] = BOX_MAP, beaches[-1], -1
    amphibious.amphibious_landing_phase(g)
    assert s.box[ldr] == BOX_MAP and s.hex[ldr] == beaches[-1]
    assert _landed_with(g, "axis.4.hq") == ["axis.4.hq"]


# ----------------------------------------------------------------- 18.31, 18.32, 18.92: wave-box checks
def _both_divisions_in_one_zone():
    g = hercules_game()
    clear_allied(g)
    s = g.state
    s.division_zone[0, 5] = s.division_zone[0, 4]                         # 18.21: both may use one zone
    amphibious.place_follow_up_boxes(g)
    z = int(s.division_zone[0, 4])
    return g, z, [int(b) for b in H.inv_static(g).zone_beaches[z]]


def test_rule_18_32_18_92_one_division_per_box_and_per_beach_hex():
    """Rules 18.32 and 18.92: units of different divisions may not share a
    First Wave box, nor land on one beach hex in one phase (First Wave of one,
    Second Wave of the other); each unit comes from the box's Follow-up box
    and is placed once."""
    from tests.conftest import u
    g, z, beaches = _both_divisions_in_one_zone()
    opts = amphibious.wave_options(g)
    e4, e4b, e20 = u("axis.4.eng_11.1"), u("axis.4.eng_11.2"), u("axis.20.eng_20.1")
    b0, b1 = beaches[0], beaches[1]
    assert e20 in opts.zones[z]
    amphibious.validate_waves(g, opts, {(BOX_FIRST_WAVE, b0): [e4], (BOX_SECOND_WAVE, b0): [e4b],
                                        (BOX_FIRST_WAVE, b1): [e20]})                  # legal
    with pytest.raises(IllegalDecision, match="different divisions in one First Wave box"):
        amphibious.validate_waves(g, opts, {(BOX_FIRST_WAVE, b0): [e4, e20]})         # 18.32
    with pytest.raises(IllegalDecision, match="18.92"):
        amphibious.validate_waves(g, opts, {(BOX_FIRST_WAVE, b0): [e4], (BOX_SECOND_WAVE, b0): [e20]})
    for bad in ({(BOX_FIRST_WAVE, b0): [e4, e20]},
                {(BOX_FIRST_WAVE, b0): [e4], (BOX_SECOND_WAVE, b0): [e20]},
                {(BOX_FIRST_WAVE, b0): [e4], (BOX_FIRST_WAVE, b1): [e4]},
                {(BOX_FIRST_WAVE, b0): [e4, u("axis.185.viii_eng.1")]}):
        with pytest.raises(IllegalDecision):
            amphibious.validate_waves(g, opts, bad)


def test_rule_18_32_18_91_boxes_offered():
    """Rules 18.31, 18.32, 18.91: the units that may go to the wave boxes are
    the companies, HQ and artillery of the Follow-up box (not leaders nor
    battalions not broken down); no box for a beach hex held by the Allies
    nor for one whose boxes are already filled this phase; a Second Wave box
    needs its First Wave box only when its beach hex is adjacent to an Allied
    unit (two hexes away it does not)."""
    from tests.conftest import u
    g, z, beaches = landing_zone_game()
    clear_allied(g)
    s, t = g.state, g.static
    d = t.grid.distance_table
    x, y = u("allied.uk.8m"), u("allied.uk.2rwk")
    s.box[x], s.hex[x] = BOX_MAP, t.grid.index("1615")                   # on a beach hex
    s.box[y], s.hex[y] = BOX_MAP, t.grid.index("1914")
    f1, f2 = u("axis.4.eng_11.1"), u("axis.4.eng_11.2")
    s.box[f1], s.box_slot[f1] = BOX_FIRST_WAVE, beaches[0]
    s.box[f2], s.box_slot[f2] = BOX_SECOND_WAVE, beaches[-2]
    opts = amphibious.wave_options(g)
    assert opts.zones[z] == sorted(u(n) for n in ("axis.4.hq", "axis.4.art_28", "axis.un.sm_2", "axis.un.sm_6",
                                                  "axis.un.mc_10b.2", "axis.un.mc_10b.3", "axis.un.tank_10",
                                                  "axis.un.tank_t"))
    open_ = [b for b in beaches if b not in (t.grid.index("1615"), beaches[0], beaches[-2])]
    near = {b: min(int(d[b, s.hex[x]]), int(d[b, s.hex[y]])) for b in open_}
    assert opts.first[z] == open_
    assert opts.second_needs_first[z] == [b for b in open_ if near[b] == 1]
    assert opts.second_free[z] == [b for b in open_ if near[b] >= 2]
    assert 1 in near.values() and 2 in near.values()


def test_rule_18_22_follow_up_boxes_take_the_divisions_units_only():
    """Rule 18.22: on the first Initial Segment every unit of each infantry
    division not yet in play (with the units attached to it) goes to the
    Follow-up box of the beach zone planned for it (here the 4th Division's
    North zone, the first); no other piece changes box (generic pieces in
    the pool, Allied pieces, warships)."""
    g = hercules_game()
    s, t = g.state, g.static
    s.division_zone[0, 4] = 0
    box0, slot0 = s.box.copy(), s.box_slot.copy()
    amphibious.place_follow_up_boxes(g)
    moved = np.flatnonzero(s.box != box0).tolist()
    want = [x for x in range(len(box0)) if box0[x] == 11 and t.side[x] == AXIS and s.formation[x] in (4, 5)]
    assert moved == want and len(want) == 35
    assert all(s.box[x] == BOX_FOLLOW_UP and s.box_slot[x] == s.division_zone[0, s.formation[x]] for x in want)
    assert (s.box_slot[[x for x in want if s.formation[x] == 4]] == 0).all()
    assert (s.box_slot[s.box == box0] == slot0[s.box == box0]).all()
