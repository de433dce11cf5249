"""Bombardment, night combat and penetration (rule 10) on constructed positions, with the
rulebook's worked example of 10.12; discovery (10.11) against the per-hex reference on
random positions.
"""

from __future__ import annotations

import numpy as np

from malta_sim.bots import simple
from malta_sim.iod import static as st
from malta_sim.iod.rules import combat
from malta_sim.iod.state import BOX_POOL, ALLIED, AXIS, BOX_ELIMINATED, BOX_MAP, DEMORALIZED, DISORGANIZED

from tests.conftest import h, make, Scripted, static, u
from tests.oracles import iod_rules as ref


def test_rule_10_11_discovery():
    """10.12 example: artillery two hexes from the town of Musta cannot
    discover it; a unit adjacent to it can."""
    g = make({"1210": ["allied.uk.8m"], "1309": ["axis.185.art_1"]})
    assert not combat.discovered(g, h("1210"), AXIS)
    g2 = make({"1210": ["allied.uk.8m"], "1309": ["axis.185.art_1"], "1310": ["axis.4.1_34"]})
    assert combat.discovered(g2, h("1210"), AXIS)
    g2.state.turn[0] = 7                                          # night: adjacent still discovers
    assert combat.discovered(g2, h("1210"), AXIS)


def test_rule_10_12_example():
    """Two 5-strength artillery battalions (10) bombard Musta (town: 5, column
    4), +1 for enemy artillery in the hex -> column 6, four battalions; 11 -> D."""
    g = make({
        "1210": ["allied.uk.8m", "allied.uk.2rwk", "allied.uk.11lf", "allied.uk.art_12"],
        "1309": ["axis.185.art_1", "axis.185.art_2"],
        "1310": ["axis.4.1_34"],
    }, policies=(Scripted(AXIS), Scripted(ALLIED)))
    opts = combat.plan_options(g, AXIS)
    assert set(opts.bombard[h("1210")]) == {u("axis.185.art_1"), u("axis.185.art_2")}
    out = combat.resolve_bombardment(g, AXIS, h("1210"), [u("axis.185.art_1"), u("axis.185.art_2")],
                                     fixed_roll=11)
    ch = static().charts
    assert out["strength"] == 5 and out["stack"] == 4
    assert int(ch.bomb_columns[out["column"]]) == 6
    assert out["result"] == 1                                     # D
    for x in ("allied.uk.8m", "allied.uk.2rwk", "allied.uk.11lf", "allied.uk.art_12"):
        assert g.state.morale_state[u(x)] == DISORGANIZED
    assert g.state.salvos[u("axis.185.art_1")] == 1


#: three hurricanes and a fourth battalion: 10 + 10 + 10 + 6 = 36 strength, the
#: last Bombardment Table column; the Axis infantry next to the target avoids
#: the "no friendly unit adjacent" shift
_GUNS = ["axis.ram.art", "axis.185.art_1", "axis.185.art_2", "axis.4.art_28"]


def _bombard(companies: int, roll: int, demoralized: bool = False):
    """Bombard a clear hex holding ``companies`` one-step British companies with
    :data:`_GUNS` (three firing a hurricane, 12.52) and a fixed 2d6 ``roll``;
    return the result code and the steps the hex lost."""
    coys = [f"allied.uk.inf_coy.{k}" for k in range(1, companies + 1)]
    g = make({"1311": coys, "1309": _GUNS, "1310": ["axis.4.1_34"]},
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    if demoralized:
        for c in coys:
            g.state.morale_state[u(c)] = DEMORALIZED
    before = sum(g.steps(u(c)) for c in coys)
    out = combat.resolve_bombardment(g, AXIS, h("1311"), [u(x) for x in _GUNS],
                                     hurricane=[u(x) for x in _GUNS[:3]], fixed_roll=roll)
    after = sum(g.steps(u(c)) for c in coys if g.state.box[u(c)] == BOX_MAP)   # eliminated generic pieces go to the pool (13.0)
    return out, before - after


def _roll_for(code: int, companies: int) -> int:
    """A 2d6 roll giving ``code`` on the last column of the Bombardment Table
    row of ``companies`` one-step companies (the row of their stacking total,
    read off a bombardment whose roll has no effect); fails the test if the
    table has none."""
    ch = static().charts
    stack = _bombard(companies, 2)[0]["stack"]
    row = min(max(stack, 1), len(ch.bomb_min_strength)) - 1
    rolls = [r for r in range(2, 13) if int(ch.bomb[row, len(ch.bomb_columns) - 1, r]) == code]
    assert rolls, f"no roll gives result {code} on row {row}"
    return rolls[0]


def test_rule_10_14_casualty_limit_two_steps_lose_one():
    """Rule 10.14: a two-step result on a hex of two steps kills one step (half
    of two); the same roll's printed result is two steps."""
    roll = _roll_for(4, 2)
    out, lost = _bombard(2, roll)
    assert out["result"] == 4 and out["column"] == len(static().charts.bomb_columns) - 1
    assert lost == 1


def test_rule_10_14_casualty_limit_rounds_up():
    """Rule 10.14: three steps in the hex: at most two (half of three, rounded
    up) die to one two-step result, so both go; four steps, both go too."""
    for companies in (3, 4):
        out, lost = _bombard(companies, _roll_for(4, companies))
        assert out["result"] == 4 and lost == 2, companies


def test_rule_10_14_casualty_limit_on_demoralized_losses():
    """Rules 10.14 and 9.41: a Z result costs each unit already demoralized a
    step, but no more than half the hex's steps: two demoralized companies lose
    one step between them."""
    out, lost = _bombard(2, _roll_for(2, 2), demoralized=True)
    assert out["result"] == 2 and lost == 1


def test_rule_10_21_night_attack_disorganizes_attackers():
    g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"]}, turn=7,
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    assert g.night
    res = combat.resolve_attack(g, AXIS, h("1311"), [u("axis.4.1_34")], fixed_roll=7)
    assert static().charts.line_names[res.line] == "night"
    assert g.state.morale_state[u("axis.4.1_34")] in (DISORGANIZED, DEMORALIZED)
    # demoralized units may not attack at night
    g.state.morale_state[u("axis.4.1_34")] = DEMORALIZED
    g.state.attacked[:] = False
    assert not combat.can_attack(g, u("axis.4.1_34"))


def test_rule_10_21_night_attackers_end_disorganized_or_demoralized_as_printed():
    """Rule 10.21, every 2d6 roll of a night attack: an attacker that was in
    good order and took no morale result ends disorganized; one that was
    already disorganized, or that the attack's own result disorganized or
    demoralized (a D or Z for the attacker), ends demoralized."""
    from malta_sim.iod.state import NORMAL

    seen = set()
    for start in (NORMAL, DISORGANIZED):
        for roll in range(2, 13):
            g = make({"1311": ["allied.uk.inf_coy.1"], "1310": ["axis.4.1_34"]}, turn=7,
                     policies=(Scripted(AXIS), Scripted(ALLIED)))
            x = u("axis.4.1_34")
            g.state.morale_state[x] = start
            res = combat.resolve_attack(g, AXIS, h("1311"), [x], fixed_roll=roll)
            if g.state.box[x] != BOX_MAP:
                continue
            hit = res.result[1] > 0                       # the attacker's own D or Z
            want = DEMORALIZED if (start == DISORGANIZED or hit) else DISORGANIZED
            assert g.state.morale_state[x] == want, (start, roll, res.result)
            seen.add((int(start), bool(hit)))
    assert (int(NORMAL), False) in seen and (int(DISORGANIZED), False) in seen   # both branches shown


def test_discovered_hexes_equals_per_hex_rule_10_11():
    """Every enemy hex of random positions, by day and by night: the one-pass
    answer equals the per-hex reference (rule 10.11)."""
    t = static()
    rng = np.random.default_rng(5)
    land = np.flatnonzero(t.land)
    axis = [t.names[i] for i in np.flatnonzero((t.side == 0) & (t.size == st.BATTALION))[:12]]
    allied = [t.names[i] for i in np.flatnonzero((t.side == 1) & (t.size == st.BATTALION))[:12]]
    for trial in range(20):
        spots = rng.choice(land, len(axis) + len(allied), replace=False)
        place: dict = {}
        for name, hh in zip(axis + allied, spots):
            place.setdefault(t.grid.hex_id(int(hh)), []).append(name)
        g = make(place, turn=4 + 3 * (trial % 2))                  # day, night
        for side in (0, 1):
            enemy = sorted({int(x) for x in g.state.hex[ref.on_map(g, 1 - side)]})
            got = combat.discovered_hexes(g, enemy, side).tolist()
            assert got == [ref.discovered(g, hh, side) for hh in enemy]


def test_penetration_phase_returns_when_no_piece_advanced():
    """Rule 10.31: with no piece of the side advanced (or all having tried),
    the penetration phase asks nothing and resets the per-phase markers."""
    class Never(simple.BalancedPolicy):
        def next_attack(self, game, options, penetration=False):
            raise AssertionError("asked with no eligible piece")

    g = make({"1315": ["axis.185.v_186"], "1316": ["allied.uk.8m"]}, policies=(Never(0), Never(1)))
    g.state.attacked[:] = True
    g.state.advanced[:] = False
    combat.penetration_phase(g, 0)
    assert not g.state.attacked.any()


# ------------------------------------------------------------------ penetration (10.3, 14.22)
class _Penetrator(Scripted):
    """Axis bot that records every penetration offer (target -> units) and
    attempts the first target with all its offered units, asking ``air`` air
    support markers when a leader roll succeeds."""

    def __init__(self, side, air=0):
        super().__init__(side)
        self.offers: list = []
        self.air = air
        self.air_asked: list = []

    def next_attack(self, game, options, penetration=False):
        assert penetration
        self.offers.append({int(k): sorted(int(x) for x in v) for k, v in options.items()})
        tgt = sorted(options)[0]
        return (tgt, list(options[tgt]))

    def penetration_air(self, game, target, available):
        self.air_asked.append(int(available))
        return min(self.air, available)


def _penetration(placements, advanced, seed=0, air_left=0, air=0):
    """Run the Axis Penetration Phase on a constructed position where the
    units named in ``advanced`` advanced after combat; returns the game, the
    Axis bot and the logged penetration attempts (rule 10.31)."""
    bot = _Penetrator(AXIS, air=air)
    g = make(placements, seed=seed, policies=(bot, Scripted(ALLIED)))
    s = g.state
    s.advanced[:] = False
    for x in advanced:
        s.advanced[u(x)] = True
    s.air_support_left[0] = air_left
    combat.penetration_phase(g, AXIS)
    tries = [r for r in g.events.rows if r["action"] == "penetration attempt"]
    return g, bot, tries


_LEADER = "axis.4.ldr.chirelson"          # 4th Division, tactical value 3 at full strength


def test_rule_10_3_only_units_that_advanced_are_offered():
    """Rule 10.3: only active units that advanced after combat in the preceding
    combat phase may attempt penetration combat; a unit of the same stack that
    did not advance is not offered."""
    g, bot, _ = _penetration({"1310": ["axis.4.1_34", "axis.4.3_34", _LEADER], "1311": ["allied.uk.8m"]},
                             advanced=["axis.4.1_34"])
    assert bot.offers and bot.offers[0] == {h("1311"): [u("axis.4.1_34")]}


def test_rule_10_32_14_22_the_leader_must_be_with_or_next_to_a_unit_of_its_formation():
    """Rules 10.32 and 14.22: at least one unit of the attempt must be stacked
    with or adjacent to its formation leader: the leader next to the stack
    (1309) allows the attempt, two hexes away (1208) it does not, and the
    phase then asks nothing."""
    place = {"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"]}
    g, bot, tries = _penetration({**place, "1309": [_LEADER]}, advanced=["axis.4.1_34"])
    assert bot.offers and len(tries) == 1
    g, bot, tries = _penetration({**place, "1208": [_LEADER]}, advanced=["axis.4.1_34"])
    assert static().grid.distance_table[h("1208"), h("1310")] == 2
    assert bot.offers == [] and tries == []


def test_rule_14_22_15_3_one_unit_of_the_leaders_formation_is_enough():
    """Rules 10.3 and 14.22: not every unit must belong to the leader's
    formation; one that does, with the leader, lets a 20th Division battalion
    join the attempt.  Rule 15.3: a leader of another formation (Ramcke, with
    the 20th Division battalion alone) allows none."""
    g, bot, tries = _penetration({"1310": ["axis.4.1_34", "axis.20.2_87", _LEADER],
                                  "1311": ["allied.uk.8m"]},
                                 advanced=["axis.4.1_34", "axis.20.2_87"])
    assert bot.offers[0] == {h("1311"): sorted([u("axis.4.1_34"), u("axis.20.2_87")])}
    assert set(tries[0]["units"].split()) == {"axis.4.1_34", "axis.20.2_87", _LEADER}
    g, bot, tries = _penetration({"1310": ["axis.20.2_87", "axis.ram.ldr.ramcke"],
                                  "1311": ["allied.uk.8m"]}, advanced=["axis.20.2_87"])
    assert bot.offers == [] and tries == []


def test_rule_10_31_leader_roll_decides_and_each_unit_tries_once():
    """Rule 10.31: the attempt's die roll at most the leader's tactical value
    (3) lets the units attack, a higher roll does not; rule 10.32: each unit
    takes part in one attempt per phase, so with a second enemy hex adjacent
    (1209) the units are not offered again after their attempt, whatever its
    result.  Seeds are run until rolls of 3 and 4 (the edge) were both seen."""
    assert int(static().tactical[u(_LEADER), 0]) == 3
    seen = set()
    for seed in range(60):
        g, bot, tries = _penetration({"1310": ["axis.4.1_34", "axis.4.2_34", _LEADER],
                                      "1311": ["allied.uk.8m"], "1209": ["allied.uk.2rwk"]},
                                     advanced=["axis.4.1_34", "axis.4.2_34"], seed=seed)
        assert len(bot.offers) == 1 and len(tries) == 1
        die = int(tries[0]["dice"])
        attacks = [r for r in g.events.rows if r["action"] == "attack"]
        assert tries[0]["result"] == ("attack" if die <= 3 else "failed")
        assert len(attacks) == (1 if die <= 3 else 0), (seed, die)
        assert g.state.penetrated[u("axis.4.1_34")] and g.state.penetrated[u("axis.4.2_34")]
        seen.add(die)
        if {3, 4} <= seen:
            break
    assert {3, 4} <= seen


def test_rule_10_32_air_support_but_no_artillery_in_penetration():
    """Rule 10.32: after a successful leader roll the Axis may add available air
    support markers (one of two is spent); no artillery supports either side:
    the Axis battery next to the target and the British battery in the next hex
    keep both salvos and do not fire."""
    arts = ["axis.4.art_28", "allied.uk.art_12"]
    for seed in range(40):
        g, bot, tries = _penetration({"1310": ["axis.4.1_34", "axis.4.2_34", _LEADER],
                                      "1410": ["axis.4.art_28"],
                                      "1311": ["allied.uk.8m"], "1312": ["allied.uk.art_12"]},
                                     advanced=["axis.4.1_34", "axis.4.2_34"], seed=seed,
                                     air_left=2, air=1)
        if int(tries[0]["dice"]) <= 3:
            break
    assert tries[0]["result"] == "attack"
    assert bot.air_asked == [2] and int(g.state.air_support_left[0]) == 1
    for x in arts:
        assert g.state.salvos[u(x)] == 2 and not g.state.fired[u(x)], x
