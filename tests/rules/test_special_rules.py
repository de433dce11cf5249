"""Special rules (rule 17): steps and remnants, weather, replacements, air attacks, the
Royal Navy, delayed reaction and stragglers; the delayed-reaction map (17.7) and the
pieces barred from firing (16.73, 17.7) against plain references on random positions.

Statistical tests draw with a fixed seed (:func:`tests.conftest.kernel_stream`) and compare
frequencies with the exact probabilities by a binomial or chi-square test at significance
1e-4 each (false-alarm rate 1e-4 per test; with the fixed seed the outcome is deterministic).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numba as nb
import numpy as np
import pytest

from malta_sim.hexgrid import IOD_GRID
from malta_sim.iod import invasion as H, static as st
from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.invariants import check_invariants
from malta_sim.iod.rules import (amphibious, combat, organisation, special_rules,
                                 special_rules as special, victory, warships)
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP, BOX_NOT_YET, BOX_REMOVED
from malta_sim.play import new_game

from tests.conftest import (binom_ok, clear_allied, h, hercules_game, hex_index, kernel_stream, make,
                            N_DRAWS, random_position, Scripted, static, u)
from tests.oracles import iod_rules as ref


def test_rule_17_3_steps_and_20_1_tally():
    g = make({"1612": ["allied.uk.8m", "allied.uk.1_r"]})
    b, tank = u("allied.uk.8m"), u("allied.uk.1_r")
    t = static()
    seen = []
    while g.state.box[b] == BOX_MAP:
        lv = g.state.level[b]
        seen.append(f"{t.attack[b, lv]}-{t.defense[b, lv]}")
        organisation.lose_step(g, b)
    assert seen == ["6-6", "4-4", "2-2"]
    assert g.state.allied_steps_lost[0] == 3
    organisation.lose_step(g, tank)
    assert g.state.allied_steps_lost[0] == 5                          # tank company counts 2 (20.1)


def test_rule_17_4_replacements_and_17_42_absorption():
    g = make({"1612": [("allied.uk.8m", 1), "allied.raf.krn"]}, turn=16,
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    g.policies[ALLIED].absorb = lambda game, pairs: pairs[:1]
    organisation.replacements(g)
    assert g.state.level[u("allied.uk.8m")] == 0
    assert g.state.box[u("allied.raf.krn")] == BOX_REMOVED
    g2 = make({"1011": [("axis.4.1_34", 1)], "1311": ["allied.uk.2rwk"]}, turn=16,
              policies=(Scripted(AXIS), Scripted(ALLIED)))
    g2.state.axis_steps_lost[0] = 5
    g2.state.steps_lost[u("axis.4.1_34")] = 1
    organisation.replacements(g2)                                     # 3 July: day 4
    assert g2.state.level[u("axis.4.1_34")] == 0
    assert g2.state.axis_steps_lost[0] == 4                           # 17.41: not counted lost
    g3 = make({"1111": [("axis.4.1_34", 1)], "1311": ["allied.uk.2rwk"]}, turn=16)
    organisation.replacements(g3)                                     # within 3 hexes of enemy
    assert g3.state.level[u("axis.4.1_34")] == 1


class _Replacer(Scripted):
    """Records the replacement offers (17.41: eligible units, number, kind;
    17.42: battalion-company pairs) and answers with ``pick`` (a function of
    the offer); by default as many as allowed."""

    def __init__(self, side, pick=None):
        super().__init__(side)
        self.pick = pick
        self.offers = []

    def replacements(self, game, eligible, n, kind):
        self.offers.append((kind, sorted(eligible), n))
        return self.pick(eligible, n, kind) if self.pick else list(eligible)[:n]

    def absorb(self, game, pairs):
        self.offers.append(list(pairs))
        return self.pick(pairs) if self.pick else list(pairs)[:1]


#: reduced Italian infantry, glider and paratroop battalions three or more hexes
#: from the one Allied unit (1311)
_AXIS_REDUCED = {"1013": ["axis.4.1_34"], "0911": ["axis.4.2_34"], "0912": ["axis.4.3_34"],
                 "0910": ["axis.80.1_125"], "0913": ["axis.80.2_125"], "1014": ["axis.185.v_186"],
                 "1311": ["allied.uk.2rwk"]}


def _axis_reduced_game(turn, bot, place=_AXIS_REDUCED):
    g = make(place, turn=turn, policies=(bot, Scripted(ALLIED)))
    for units in place.values():
        for x in units:
            if x.startswith("axis"):
                organisation.lose_step(g, u(x))
    return g


def test_rule_17_41_two_infantry_and_one_glider_replacement_on_3_july():
    """Rule 17.41: in the Initial Segment of 3 July the Axis gets two Italian
    infantry replacements and one Italian glider replacement, for reduced
    battalions of that type three or more hexes from enemy units (not an
    Italian paratroop battalion); each raises its battalion one step, and the
    step no longer counts as lost (20.2)."""
    bot = _Replacer(AXIS)
    g = _axis_reduced_game(16, bot)
    s = g.state
    lost = int(s.axis_steps_lost[0])
    organisation.replacements(g)
    inf = sorted(u(x) for x in ("axis.4.1_34", "axis.4.2_34", "axis.4.3_34"))
    gl = sorted(u(x) for x in ("axis.80.1_125", "axis.80.2_125"))
    assert bot.offers == [("italian infantry", inf, 2), ("italian glider", gl, 1)]
    assert [int(s.level[x]) for x in inf] == [0, 0, 1] and [int(s.level[x]) for x in gl] == [0, 1]
    assert s.level[u("axis.185.v_186")] == 1
    assert int(s.axis_steps_lost[0]) == lost - 3
    rows = [r for r in g.events.rows if r["action"] == "replacement"]
    assert [(r["result"], r["rule"]) for r in rows] == [("italian infantry", "17.41")] * 2 + [
        ("italian glider", "17.41")]
    check_invariants(g, "test")


def test_rule_17_41_axis_replacements_only_on_3_july():
    """Rule 17.41: these are the only Axis replacements: on 4 July (and 2 July)
    none are offered."""
    for turn in (12, 20):
        bot = _Replacer(AXIS)
        g = _axis_reduced_game(turn, bot)
        organisation.replacements(g)
        assert bot.offers == [] and all(g.state.level[u(x)] == 1 for x in ("axis.4.1_34", "axis.80.1_125"))


def test_rule_17_41_glider_replacement_without_infantry_to_replace():
    """Rule 17.41: with no Italian infantry battalion that may take a
    replacement, the glider replacement is still given."""
    bot = _Replacer(AXIS)
    g = _axis_reduced_game(16, bot, {"0910": ["axis.80.1_125"], "1311": ["allied.uk.2rwk"]})
    organisation.replacements(g)
    assert bot.offers == [("italian glider", [u("axis.80.1_125")], 1)]
    assert g.state.level[u("axis.80.1_125")] == 0


@pytest.mark.parametrize("pick", ["three", "not eligible"])
def test_rule_17_41_bad_replacement_choices_are_refused(pick):
    """Rule 17.41: at most two infantry replacements, only for the units
    eligible (not the paratroop battalion)."""
    para = u("axis.185.v_186")
    choose = {"three": lambda el, n, k: list(el)[:3],
              "not eligible": lambda el, n, k: [para] if k == "italian infantry" else []}[pick]
    g = _axis_reduced_game(16, _Replacer(AXIS, choose))
    with pytest.raises(IllegalDecision, match="17.41"):
        organisation.replacements(g)


#: 2nd Royal West Kent reduced with two security companies; 8th Manchester at
#: full strength with one; 1st King's Own Malta reduced with one
_ALLIED_ABSORB = {"1612": ["allied.uk.8m", "allied.raf.tak"],
                  "1710": [("allied.uk.2rwk", 1), "allied.raf.krn", "allied.rn.1"],
                  "1614": [("allied.mt.1k", 1), "allied.raf.luq"]}


def test_rule_17_42_reduced_british_infantry_absorbs_a_security_company():
    """Rule 17.42: any day, a reduced British infantry battalion (not Maltese,
    not one at full strength) stacked with a RAF or RN security company may
    absorb it: one step back, the company removed from the game, no step
    counted (20.1)."""
    bot = _Replacer(ALLIED)
    g = make(_ALLIED_ABSORB, turn=8, policies=(Scripted(AXIS), bot))
    s = g.state
    rwk, krn = u("allied.uk.2rwk"), u("allied.raf.krn")
    organisation.replacements(g)
    assert bot.offers == [[(rwk, krn), (rwk, u("allied.rn.1"))]]
    assert s.level[rwk] == 0 and s.box[krn] == BOX_REMOVED and s.hex[krn] == -1
    assert s.level[u("allied.mt.1k")] == 1 and s.box[u("allied.rn.1")] == BOX_MAP
    assert int(s.allied_steps_lost[0]) == 0
    assert [(r["units"], r["rule"]) for r in g.events.rows if r["action"] == "absorb security company"] == [
        ("allied.uk.2rwk allied.raf.krn", "17.42")]
    check_invariants(g, "test")


@pytest.mark.parametrize("pick", ["two companies", "not offered"])
def test_rule_17_42_bad_absorptions_are_refused(pick):
    """Rule 17.42 (17.4: one replacement per turn): a battalion absorbs one
    company; a pair not offered is refused."""
    rwk, tak = u("allied.uk.2rwk"), u("allied.raf.tak")
    choose = {"two companies": lambda pairs: list(pairs),
              "not offered": lambda pairs: [(rwk, tak)]}[pick]
    g = make(_ALLIED_ABSORB, turn=8, policies=(Scripted(AXIS), _Replacer(ALLIED, choose)))
    with pytest.raises(IllegalDecision, match="17.42"):
        organisation.replacements(g)


def test_rule_17_2_weather_bands():
    """2d6: 2-8 Clear, 9-10 Cloudy, 11-12 Rainy; over many days the rain
    frequency is near 3/36 (binomial bound, false-alarm rate < 1e-6)."""
    g = make({"1711": ["axis.4.1_34"]}, turn=8)
    g.scenario.first_day = 0
    counts = np.zeros(3, int)
    n = 600
    for _ in range(n):
        victory.weather(g)
        counts[g.state.weather[0]] += 1
    p = np.array([26, 7, 3]) / 36
    from scipy.stats import binom
    for k in range(3):
        lo, hi = binom.ppf(1e-7, n, p[k]), binom.ppf(1 - 1e-7, n, p[k])
        assert lo <= counts[k] <= hi
    assert g.state.air_support_left[0] in (0, 1, 3)               # 16.41


# ----------------------------------------------------------------- 17.5 - 17.8
def test_rule_17_5_air_attacks_only_at_guns():
    g = hercules_game(axis="random")
    s, t = g.state, g.static
    guns_before = sum(1 for u in g.on_map(ALLIED) if t.utype[u] == st.COASTAL_GUN)
    others_before = sum(1 for u in g.on_map(ALLIED) if t.utype[u] != st.COASTAL_GUN)
    special_rules.air_attacks(g)
    assert sum(1 for u in g.on_map(ALLIED) if t.utype[u] != st.COASTAL_GUN) == others_before  # 17.53
    assert sum(1 for u in g.on_map(ALLIED) if t.utype[u] == st.COASTAL_GUN) <= guns_before


def test_rule_17_6_royal_navy_six():
    g = hercules_game()
    warships.place_warships(g)
    amphibious.place_follow_up_boxes(g)
    g.die = lambda purpose: 6
    special_rules.royal_navy_intervention(g)
    s = g.state
    assert int(s.rn_result[0]) == 6
    assert special.rn_surrender_modifier(6) == 3
    assert int(s.warships_damaged[0]) >= 1


def test_rule_17_7_delayed_reaction_blocks_far_allied_moves():
    from malta_sim.iod.rules import movement

    g = hercules_game()
    s, t = g.state, g.static
    u = [v for v in g.on_map(ALLIED) if t.utype[v] == st.INFANTRY and t.size[v] == st.BATTALION][0]
    assert s.turn[0] == 0 and not H.axis_ground_hexes(g).size
    assert not movement.movable(g, u)
    s.turn[0] = 2                                                                       # 29 June PM
    assert movement.movable(g, u)


def test_rule_17_8_stragglers_may_not_move():
    g = hercules_game()
    clear_allied(g)
    s, t = g.state, g.static
    c = [u for u in range(len(t.names)) if t.utype[u] == st.PARATROOP and t.size[u] == st.COMPANY][0]
    s.box[c], s.hex[c], s.reduced[c] = BOX_MAP, hex_index(g, "1312"), True
    special_rules.stragglers(g)
    assert s.moved[c] or s.straggler_turn[c] < 0                                   # 17.81


@nb.njit(cache=True)
def _many_air_attack(rs, n, att, aa):
    k = 0
    for _ in range(n):
        if special.air_attack_gun(rs, att, aa):
            k += 1
    return k


# ----------------------------------------------------------------- 17.52
@pytest.mark.parametrize("att,aa", [(3, 0), (4, 1), (1, 2)])
def test_rule_17_52_air_attack_statistical(att, aa):
    """Rule 17.52: dice = attacks - AA within 3; any 6 destroys.  False-alarm 1e-4."""
    k = _many_air_attack(kernel_stream(30 + att), N_DRAWS, att, aa)
    p = special.p_air_attack_kill(att, aa)
    if p == 0:
        assert k == 0
    else:
        assert binom_ok(k, N_DRAWS, p)


def test_rule_17_51_air_attacks_by_day_and_weather():
    from malta_sim.iod.state import CLEAR, CLOUDY, RAINY

    assert special.air_attacks_available(0, CLEAR) == 14
    assert special.air_attacks_available(1, CLOUDY) == 6
    assert special.air_attacks_available(2, RAINY) == 0
    assert special.air_attacks_available(3, CLEAR) == 8
    assert special.air_attacks_available(4, CLEAR) == 0
    assert special.air_attacks_available(0, CLEAR, scenario="intro") == 0  # 17.53


# ----------------------------------------------------------------- 17.7, 17.8, 22.39
def test_rule_17_7_delayed_reaction():
    assert special.delayed_reaction_radius(0) == 4
    assert special.delayed_reaction_radius(1) == 7
    assert special.delayed_reaction_radius(2) == -1
    assert special.delayed_reaction_radius(0, "intro") == -1
    dist = IOD_GRID.distance_table
    u = IOD_GRID.index("1210")
    ax = np.array([IOD_GRID.index("1610")], dtype=np.int32)
    assert special.allied_may_act(4, u, ax, dist)
    ax = np.array([IOD_GRID.index("1810")], dtype=np.int32)
    assert not special.allied_may_act(4, u, ax, dist)
    assert special.allied_may_act(7, u, ax, dist)


def test_rule_17_6_rn_surrender_modifier():
    assert [special.rn_surrender_modifier(d) for d in range(7)] == [0, 0, 0, 0, 1, 1, 3]


def test_delayed_reaction_map_equals_kernel():
    """Rule 17.7: the per-hex map answers as ``allied_may_act`` for every hex,
    on random Axis positions on turns 0 and 1 (and the memo follows moves)."""
    from malta_sim.iod.rules import special_rules as sp
    from malta_sim.iod.invasion import axis_ground_hexes
    from malta_sim.iod.state import BOX_MAP

    g = new_game("hercules", 4, 0, axis_policy="balanced", allied_policy="static")
    s, t = g.state, g.static
    gen = np.random.default_rng(0)
    axis = np.flatnonzero(t.side == 0)
    land = np.flatnonzero(t.land)
    d = t.grid.distance_table
    answers = set()
    for trial in range(12):
        k = int(gen.integers(0, 6))
        s.box[axis] = 4
        s.hex[axis] = -1
        pick = gen.choice(axis, size=k, replace=False)
        s.box[pick] = BOX_MAP
        s.hex[pick] = gen.choice(land, size=k)
        for turn in (0, 1):
            s.turn[0] = turn
            radius = sp.delayed_reaction_radius(turn, "hercules")
            m = sp._may_act_map(g, radius)
            hx = axis_ground_hexes(g)
            for h in list(range(0, t.n_hexes, 7)) + [-1]:
                assert bool(m[h]) == bool(sp.allied_may_act(radius, h, hx, d))
                answers.add(bool(m[h]))
    assert answers == {True, False}
    s.turn[0] = 2
    assert sp.delayed_reaction_ok(g, int(np.flatnonzero(t.side == 1)[0]))


@pytest.mark.parametrize("turn", [0, 1, 2])
def test_barred_equals_plain_on_random_positions(turn):
    """Rule 17.7 (turns 0 and 1 of Hercules hold Allied pieces back that no
    Axis ground unit is near) and 16.73 (failed warships): the same mask as
    asking ``delayed_reaction_ok`` per piece."""
    rng = np.random.default_rng(90 + turn)
    seen = 0
    for trial in range(6):
        g = random_position(rng, trial)
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
            want = ref.barred(g, cand.astype(np.int64), failed)
            assert np.array_equal(got, want)
            held = [u for u in cand.tolist() if t.utype[u] == st.ARTILLERY and got[u]]
            seen += len(held)
    assert seen > 0 or turn > 1


# ----------------------------------------------------------------- 17.5 air attacks, played
class _Bots:
    """One side's decisions for the tests below: the air attack plan
    (17.52), the stragglers that try (17.8) and the strongpoints dismantled
    (16.25) are given, and what the engine offers is recorded; every other
    decision as the game's own bot."""

    def __init__(self, base, plan=None, dismantle=()):
        self.base = base
        self.plan = plan or {}
        self.dismantle = list(dismantle)
        self.asked_air: list = []
        self.asked_stragglers: list = []
        self.asked_dismantle: list = []

    def __getattr__(self, name):
        return getattr(self.base, name)

    def air_attacks(self, game, guns, n, aa_near):
        self.asked_air.append((sorted(guns), int(n)))
        return dict(self.plan)

    def stragglers(self, game, units):
        self.asked_stragglers.append(sorted(int(x) for x in units))
        return list(units)

    def dismantle_strongpoints(self, game, strongpoints, max_n):
        self.asked_dismantle.append(int(max_n))
        k = self.dismantle.pop(0) if self.dismantle else 0
        return sorted(strongpoints)[:k]

    def engineer_hex(self, game, options):
        return options[-1]


def _air_game(weather=0, cut=0, plan=None):
    """A Hercules game on 29 June (14 air attacks, 17.51) with the given
    weather, Royal Navy cut (17.6) and Axis air attack plan."""
    g = hercules_game()
    g.state.turn[0] = 0
    g.state.weather[0] = weather
    g.state.air_attacks_cut[0] = cut
    bot = _Bots(g.policies[AXIS], plan=plan)
    g.policies = (bot, g.policies[ALLIED])
    return g, bot


def _unit_of(g, row):
    """The one unit an event row names."""
    return g.static.unit(row["units"])


def _guns(g):
    t = g.static
    return sorted(int(x) for x in g.on_map(ALLIED) if t.utype[x] == st.COASTAL_GUN)


def test_rule_17_52_air_attacks_resolved_per_gun_as_planned():
    """17.51 / 17.52: on 29 June in Clear weather the Axis has 14 air
    attacks; each gun given attacks is attacked (a gun given none is not,
    and does not stop the others), a gun is destroyed exactly when its attack
    is logged as a hit, and no attack is left once all 14 are assigned."""
    g0, _ = _air_game()
    guns = _guns(g0)
    assert len(guns) >= 3
    plan = {guns[0]: 0, guns[1]: 1, guns[2]: 13}
    g, bot = _air_game(plan=plan)
    special_rules.air_attacks(g)
    assert bot.asked_air == [(guns, 14)]
    rows = [r for r in g.events.rows if r["action"] == "air_attack"]
    assert sorted(_unit_of(g, r) for r in rows) == [guns[1], guns[2]]
    for r in rows:
        gone = g.state.box[_unit_of(g, r)] != BOX_MAP
        assert (r["result"] == "destroyed") == gone
    assert g.state.box[guns[0]] == BOX_MAP
    assert int(g.state.air_attacks_left[0]) == 0


def test_rule_17_51_one_air_attack_left_after_the_royal_navy_cut():
    """17.51 / 17.6: 14 air attacks less 13 cut by the Royal Navy leave one;
    the Axis is offered it, uses it on a gun, and none is left."""
    g0, _ = _air_game()
    gun = _guns(g0)[0]
    g, bot = _air_game(cut=13, plan={gun: 1})
    special_rules.air_attacks(g)
    assert bot.asked_air == [(_guns(g0), 1)]
    assert [_unit_of(g, r) for r in g.events.rows if r["action"] == "air_attack"] == [gun]
    assert int(g.state.air_attacks_left[0]) == 0


def test_rule_17_51_rain_loses_every_air_attack():
    """17.51: in Rainy weather all air attacks of the day are lost: the Axis
    has none to assign, no gun is attacked."""
    from malta_sim.iod.state import RAINY

    g, bot = _air_game(weather=RAINY)
    special_rules.air_attacks(g)
    assert bot.asked_air == [] and int(g.state.air_attacks_left[0]) == 0
    assert not [r for r in g.events.rows if r["action"] == "air_attack"]


def test_rule_17_52_illegal_air_attack_plans():
    """17.52 / 17.53: more attacks than available, an attack on a piece that
    is no coastal gun, or a negative number of attacks is refused."""
    g0, _ = _air_game()
    guns = _guns(g0)
    other = [int(x) for x in g0.on_map(ALLIED) if g0.static.utype[x] != st.COASTAL_GUN][0]
    for plan in ({guns[0]: 8, guns[1]: 7}, {other: 1}, {guns[0]: -1}):
        g, _ = _air_game(plan=plan)
        with pytest.raises(IllegalDecision, match="17.52"):
            special_rules.air_attacks(g)


# ----------------------------------------------------------------- 17.7 delayed reaction, played
def _hex_at(d, frm="1311"):
    """The first land hex at distance ``d`` from ``frm`` (a hex id)."""
    t = static()
    i = t.grid.index(frm)
    cand = np.flatnonzero((t.grid.distance_table[i] == d) & t.land)
    return t.grid.hex_id(int(cand[0]))


@pytest.mark.parametrize("turn,radius", [(0, 4), (1, 7)])
def test_rule_17_7_allied_unit_moves_only_with_an_axis_unit_near(turn, radius):
    """17.7: on 29 June AM (noon) an Allied battalion may move only when an
    Axis ground unit is within 4 (7) hexes of it; one hex farther it may not.
    From the afternoon turn on it may move either way."""
    from malta_sim.iod.rules import movement

    for d in (radius, radius + 1):
        g = make({"1311": ["allied.uk.8m"], _hex_at(d): ["axis.4.1_34"]}, turn=turn, scenario="hercules")
        assert movement.movable(g, u("allied.uk.8m")) == (d <= radius)
        g.state.turn[0] = 2
        assert movement.movable(g, u("allied.uk.8m"))


@pytest.mark.parametrize("turn", [0, 1])
def test_rule_17_7_does_not_apply_in_the_introductory_scenario(turn):
    """17.7: the rule does not apply in the Introductory Scenario: an Allied
    battalion with no Axis unit anywhere near may move on turns 0 and 1."""
    from malta_sim.iod.rules import movement

    g = make({"1311": ["allied.uk.8m"], _hex_at(9): ["axis.4.1_34"]}, turn=turn, scenario="intro")
    assert movement.movable(g, u("allied.uk.8m"))


# ----------------------------------------------------------------- 17.8 stragglers, played
def _straggler_game():
    g = hercules_game()
    clear_allied(g)
    s = g.state
    s.turn[0] = 4
    bot = _Bots(g.policies[AXIS])
    g.policies = (bot, g.policies[ALLIED])
    return g, bot


def _put(g, x, hex_id, reduced):
    s = g.state
    s.box[x], s.hex[x] = BOX_MAP, hex_index(g, hex_id)
    s.reduced[x] = reduced
    s.level[x] = 1 if reduced else 0


def test_rule_17_8_who_may_try_to_recover():
    """17.8: the reduced paratroop companies on the map that are not adjacent
    to an enemy unit may try (one two hexes away may); one adjacent to an
    Allied unit, one at full strength and one off the map are not offered.
    Those that try may not move this turn (17.81)."""
    g, bot = _straggler_game()
    s = g.state
    p = [int(x) for x in H.inv_static(g).straggler_pieces[:5]]
    s.box[u("allied.uk.8m")], s.hex[u("allied.uk.8m")] = BOX_MAP, hex_index(g, "1311")
    _put(g, p[0], _hex_at(6), True)                # far
    _put(g, p[1], "1310", True)                    # adjacent to the Allied battalion
    _put(g, p[2], _hex_at(2), True)                # two hexes away
    _put(g, p[3], _hex_at(6), False)               # full strength
    s.box[p[4]], s.hex[p[4]], s.reduced[p[4]] = BOX_NOT_YET, -1, True      # off the map
    special_rules.stragglers(g)
    assert bot.asked_stragglers == [sorted([p[0], p[2]])]
    assert s.moved[p[0]] and s.moved[p[2]] and not s.moved[p[1]]
    assert s.straggler_turn[p[0]] == g.turn and s.straggler_turn[p[2]] == g.turn


def test_rule_17_8_a_six_restores_full_strength():
    """17.8: each company that tries turns to its full-strength side on a 6
    (binomial test at 1e-4 over many tries); one that recovers is at full
    strength, the others stay reduced."""
    g, bot = _straggler_game()
    s = g.state
    pieces = [int(x) for x in H.inv_static(g).straggler_pieces]
    far = [int(x) for x in np.flatnonzero(g.static.land)][: len(pieces)]
    k = n = 0
    for _ in range(40):
        for x, hx in zip(pieces, far):
            s.box[x], s.hex[x], s.reduced[x], s.level[x], s.moved[x] = BOX_MAP, hx, True, 1, False
        g.events.rows.clear()
        special_rules.stragglers(g)
        up = {_unit_of(g, r) for r in g.events.rows if r["action"] == "straggler_recovered"}
        for x in pieces:
            assert bool(s.reduced[x]) == (x not in up)
            assert int(s.level[x]) == (0 if x in up else 1)
        k += len(up)
        n += len(pieces)
    assert binom_ok(k, n, Fraction(1, 6))


@pytest.mark.parametrize("turn,radius", [(0, 4), (1, 7)])
def test_rule_17_7_allied_artillery_supports_only_with_an_axis_unit_near(turn, radius):
    """17.7: on 29 June AM (noon) Allied artillery may give defensive support
    only when an Axis ground unit is within 4 (7) hexes of the artillery;
    one hex farther it may not support the battalion next to it."""
    for d in (radius, radius + 1):
        g = make({"1311": ["allied.uk.art_12"], "1310": ["allied.uk.8m"], _hex_at(d): ["axis.4.1_34"]},
                 turn=turn, scenario="hercules")
        got = combat.defensive_options(g, ALLIED, [h("1310")])
        assert got == ({h("1310"): [u("allied.uk.art_12")]} if d <= radius else {})
