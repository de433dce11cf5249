"""Penetration combat (rules 10.3, 10.31, 10.32, 14.21, 14.22, 16.42) on constructed
positions: which leader commands an attempt, the units a bot may name, the air support
offered after a successful leader roll, and the leaders' uses counted afresh each phase.
"""

from __future__ import annotations

import pytest

from malta_sim.iod import static as st
from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.rules import combat
from malta_sim.iod.state import ALLIED, AXIS

from tests.conftest import h, make, Scripted, static, u

FRATTINI = "axis.185.ldr.frattini"      # 185th Division, tactical value 4
CHIRELSON = "axis.4.ldr.chirelson"      # 4th Division, tactical value 3
RAMCKE = "axis.ram.ldr.ramcke"          # Ramcke Brigade, tactical value 4
PARA = "axis.185.v_186"
INF = "axis.4.1_34"
BRIT = "allied.uk.8m"


class _Pen(Scripted):
    """A bot of the penetration phase: attempts the lowest offered target with
    ``pick(options)`` (default: all its offered units), records the offers, and
    asks for ``air`` air support markers, recording what is available."""

    def __init__(self, side, pick=None, air=0):
        super().__init__(side)
        self.pick, self.air = pick, air
        self.offers: list = []
        self.air_asked: list = []

    def next_attack(self, game, options, penetration=False):
        assert penetration
        self.offers.append({int(k): sorted(int(x) for x in v) for k, v in options.items()})
        if self.pick is not None:
            return self.pick(options)
        tgt = sorted(options)[0]
        return (tgt, list(options[tgt]))

    def penetration_air(self, game, target, available):
        self.air_asked.append(int(available))
        return self.air


def _run(placements, advanced, side=AXIS, seed=0, air_left=0, turn=4, **kw):
    bot = _Pen(side, **kw)
    pols = (bot, Scripted(ALLIED)) if side == AXIS else (Scripted(AXIS), bot)
    g = make(placements, seed=seed, turn=turn, policies=pols)
    s = g.state
    s.advanced[:] = False
    for x in advanced:
        s.advanced[u(x)] = True
    s.air_support_left[0] = air_left
    combat.penetration_phase(g, side)
    tries = [r for r in g.events.rows if r["action"] == "penetration attempt"]
    return g, bot, tries


def _until_attack(n_attacks=1, seeds=range(200), **kw):
    """:func:`_run` over seeds until ``n_attacks`` attempts succeeded."""
    for seed in seeds:
        g, bot, tries = _run(seed=seed, **kw)
        if len(tries) >= n_attacks and all(r["result"] == "attack" for r in tries[:n_attacks]):
            return g, bot, tries
    raise AssertionError("no seed gave the successful attempts")


def _attack_mods(g):
    return [r["result"] for r in g.events.rows if r["action"] == "attack"]


def test_rule_10_31_14_22_the_leader_with_the_highest_tactical_value_commands():
    """Rules 10.31 and 14.22: with two formation leaders next to the units of
    the attempt, the roll is made against the higher tactical value
    (Frattini's 4, not Chirelson's 3), in whatever order the units are named;
    on equal values (Ramcke and Frattini, 4 each) the leader of the first
    unit named commands."""
    t = static()
    assert int(t.tactical[u(FRATTINI), 0]) == 4 == int(t.tactical[u(RAMCKE), 0])
    assert int(t.tactical[u(CHIRELSON), 0]) == 3
    place = {"1310": [PARA, INF, FRATTINI, CHIRELSON], "1311": [BRIT]}
    for order in ([PARA, INF], [INF, PARA]):
        g, bot, tries = _run(place, [PARA, INF], pick=lambda o, order=order: (h("1311"), [u(x) for x in order]))
        assert len(tries) == 1
        assert tries[0]["units"].split()[-1] == FRATTINI, order
        die = int(tries[0]["dice"])
        assert tries[0]["result"] == ("attack" if die <= 4 else "failed")
    ram = "axis.ram.1_2"
    place = {"1310": [ram, PARA, RAMCKE, FRATTINI], "1311": [BRIT]}
    for order, first in (([ram, PARA], RAMCKE), ([PARA, ram], FRATTINI)):
        g, bot, tries = _run(place, [ram, PARA], pick=lambda o, order=order: (h("1311"), [u(x) for x in order]))
        assert tries[0]["units"].split()[-1] == first, order


def test_rule_10_32_a_named_unit_without_its_leader_does_not_spoil_the_attempt():
    """Rules 10.32 and 14.22: one unit of the attempt with its formation
    leader is enough, whatever the order the units are named in: an Italian
    company of no formation and a 185th Division battalion (its leader off
    the map) named before the 4th Division battalion with Chirelson."""
    coy = "axis.it.inf_coy.1"
    place = {"1310": [coy, PARA, INF, CHIRELSON], "1311": [BRIT]}
    g, bot, tries = _run(place, [coy, PARA, INF],
                         pick=lambda o: (h("1311"), [u(coy), u(PARA), u(INF)]))
    assert bot.offers[0] == {h("1311"): sorted([u(coy), u(PARA), u(INF)])}
    assert len(tries) == 1 and tries[0]["units"].split()[-1] == CHIRELSON


def test_rule_10_31_naming_a_unit_not_offered_is_refused():
    """Rule 10.31: only units that advanced after combat may be named: a
    battalion of the stack that did not advance is refused."""
    place = {"1310": [INF, "axis.4.2_34", CHIRELSON], "1311": [BRIT]}
    with pytest.raises(IllegalDecision, match="10.31"):
        _run(place, [INF], pick=lambda o: (h("1311"), [u(INF), u("axis.4.2_34")]))


def test_rule_10_32_an_allied_attempt_with_its_formation_leader():
    """Rules 10.3 and 14.22 for the Allies: a British battalion that advanced,
    stacked with Beak (its formation leader), may attempt penetration; no air
    support is offered to the Allies (16.4)."""
    g, bot, tries = _run({"1311": [BRIT, "allied.ldr.beak"], "1310": [INF]}, [BRIT], side=ALLIED,
                         air_left=3)
    assert bot.offers == [{h("1310"): [u(BRIT)]}]
    assert len(tries) == 1 and tries[0]["units"].split()[-1] == "allied.ldr.beak"
    assert bot.air_asked == []


_PLACE = {"1310": [INF, "axis.4.2_34", CHIRELSON], "1311": [BRIT]}


def test_rule_16_42_air_support_offered_only_by_day_when_markers_are_left():
    """Rules 10.32 and 16.42: after a successful leader roll the Axis player is
    offered its air support markers: none offered at night or with none left
    (and then none used); with one left it may add it (all of them) or none."""
    adv = [INF, "axis.4.2_34"]
    g, bot, tries = _until_attack(placements=_PLACE, advanced=adv, air_left=2, turn=7, air=0)
    assert g.night and bot.air_asked == []
    assert all("air_support" not in r for r in _attack_mods(g))
    g, bot, tries = _until_attack(placements=_PLACE, advanced=adv, air_left=0, air=0)
    assert bot.air_asked == [] and all("air_support" not in r for r in _attack_mods(g))
    g, bot, tries = _until_attack(placements=_PLACE, advanced=adv, air_left=1, air=1)
    assert bot.air_asked == [1] and int(g.state.air_support_left[0]) == 0
    assert "'air_support': 1" in _attack_mods(g)[0]
    g, bot, tries = _until_attack(placements=_PLACE, advanced=adv, air_left=1, air=0)
    assert bot.air_asked == [1] and int(g.state.air_support_left[0]) == 1
    assert "air_support" not in _attack_mods(g)[0]


@pytest.mark.parametrize("air", [-1, 2])
def test_rule_16_41_no_more_air_support_markers_than_available(air):
    """Rule 16.41: a bot asking for more markers than are left (two of one),
    or a negative number, is refused."""
    with pytest.raises(IllegalDecision, match="16.41"):
        _until_attack(placements=_PLACE, advanced=[INF, "axis.4.2_34"], air_left=1, air=air)


def test_rule_14_21_a_leader_commands_twice_per_phase_counted_afresh():
    """Rule 14.21: a leader adds its command roll to at most two combats per
    phase, counted again from the penetration phase: Chirelson, used twice in
    the combat phase, rolls for the first two of three successful penetration
    attacks and not the third."""
    t1, t2, t3 = "1311", "1209", "1409"
    place = {"1310": [INF, "axis.4.2_34", "axis.4.3_34", CHIRELSON],
             t1: [BRIT], t2: ["allied.uk.2rwk"], t3: ["allied.uk.11lf"]}
    order = [(t1, INF), (t2, "axis.4.2_34"), (t3, "axis.4.3_34")]

    def pick(options, left=None):
        for tgt, name in order:
            if h(tgt) in options and u(name) in options[h(tgt)]:
                return (h(tgt), [u(name)])
        return None

    for seed in range(300):
        bot = _Pen(AXIS, pick=pick)
        g = make(place, seed=seed, policies=(bot, Scripted(ALLIED)))
        s = g.state
        s.advanced[:] = False
        for _, name in order:
            s.advanced[u(name)] = True
        s.leader_uses[u(CHIRELSON)] = 2
        combat.penetration_phase(g, AXIS)
        tries = [r for r in g.events.rows if r["action"] == "penetration attempt"]
        if len(tries) == 3 and all(r["result"] == "attack" for r in tries):
            break
    else:
        raise AssertionError("no seed gave three successful attempts")
    rolls = [r for r in g.events.rows if r["action"] == "command roll" and r["side"] == "axis"]
    assert len(rolls) == 2


def test_rule_14_22_a_warship_is_no_leader_for_a_formation_without_one():
    """Rules 10.32 and 14.22: the 20th Division has no leader piece, so its
    battalion may not attempt penetration, even with a warship (a piece of no
    formation) on the ocean hex next to it."""
    coast, sea, enemy = "0506", "0505", "0606"
    assert static().grid.distance_table[h(coast), h(sea)] == 1
    g, bot, tries = _run({coast: ["axis.20.1_87"], sea: ["axis.rm.carabiniere"], enemy: [BRIT]},
                         ["axis.20.1_87"])
    assert bot.offers == [] and tries == []


def test_rule_10_32_every_eligible_unit_may_make_its_attempt():
    """Rule 10.32: the active player may make as many penetration attempts as
    he has eligible units, each unit taking part in one: fifty-one advanced
    units of three formations, each stacked with its leader next to a
    British-held city, each try alone, one after the other, and all fifty-one
    attempts are made (every attack is at odds too low to be fought, 9.3 g, so the city
    stays held)."""
    t = static()
    leaders = {"axis.185.": FRATTINI, "axis.ram.": RAMCKE, "axis.4.": CHIRELSON}
    units = [n for p in leaders for n in t.names
             if n.startswith(p) and t.utype[u(n)] not in (st.LEADER, st.ARTILLERY) and ".hq" not in n]
    assert len(units) == 51                       # more than any fixed cap of 50 attempts would allow
    city, next_to = "1711", "1712"
    assert t.city[h(city)] and static().grid.distance_table[h(city), h(next_to)] == 1

    def one_at_a_time(options):
        tgt = sorted(options)[0]
        return (tgt, [sorted(options[tgt])[0]])

    g, bot, tries = _run({next_to: units + list(leaders.values()),
                          city: [BRIT, "allied.uk.2rwk", "allied.uk.11lf", "allied.uk.4b"]},
                         units, pick=one_at_a_time)
    assert len(tries) == len(units)
    assert all(g.state.penetrated[u(x)] for x in units)
    assert not [r for r in g.events.rows if r["action"] == "attack"]
