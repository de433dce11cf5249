"""Artillery ammunition (rule 12.5): salvos spent by offensive fire and bombardment
(12.51), the die roll after defensive fire (12.51), warships never running out (16.77),
the Axis ammunition landed each day (12.54), who may receive salvos (12.56) and the hand-out
itself (12.55, 12.56), on constructed positions.
"""

from __future__ import annotations

import pytest

from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.rules import artillery
from malta_sim.iod.state import ALLIED, AXIS

from tests.conftest import binom_ok, h, make, Scripted, static, u


class _Quartermaster(Scripted):
    """A bot that hands out ``give`` (names -> salvos) when asked to distribute
    ammunition and records what it was offered (eligible units, stock)."""

    def __init__(self, side, give=None):
        super().__init__(side)
        self.give = give or {}
        self.asked: list = []

    def distribute_ammo(self, game, eligible, stock):
        self.asked.append((sorted(int(x) for x in eligible), int(stock)))
        return {u(k): v for k, v in self.give.items()}


def _rows(g, action):
    return [r for r in g.events.rows if r["action"] == action]


# ------------------------------------------------------------------ 12.51, 16.77
def test_rule_12_51_16_77_a_salvo_spent_per_fire_warships_never_run_out():
    """Rule 12.51: each salvo spent turns the support marker (two salvos, one,
    none, never below none); rule 16.77: a warship's fire spends nothing."""
    g = make({"1309": ["axis.4.art_28"], "1307": ["axis.rm.trieste"]})
    art, ship = u("axis.4.art_28"), u("axis.rm.trieste")
    assert g.state.salvos[art] == 2
    artillery.expend(g, art, 1)
    assert g.state.salvos[art] == 1
    artillery.expend(g, art, 2)
    assert g.state.salvos[art] == 0
    before = int(g.state.salvos[ship])
    artillery.expend(g, ship, 1)
    assert g.state.salvos[ship] == before


def test_rule_12_51_defensive_fire_spends_a_salvo_on_a_die_of_1_or_2():
    """Rule 12.51: after defensive support the owner rolls one die: 1 or 2
    spends one salvo, 3 to 6 none; the roll is recorded. Warships roll no die
    (16.77)."""
    seen = set()
    for seed in range(60):
        g = make({"1309": ["axis.4.art_28"], "1307": ["axis.rm.trieste"]}, seed=seed)
        art, ship = u("axis.4.art_28"), u("axis.rm.trieste")
        artillery.defensive_expend(g, art)
        rows = _rows(g, "defensive fire ammunition")
        assert len(rows) == 1 and rows[0]["units"] == "axis.4.art_28" and rows[0]["rule"] == "12.51"
        die = int(rows[0]["dice"])
        seen.add(die)
        if die <= 2:
            assert g.state.salvos[art] == 1 and rows[0]["result"] == "salvo spent"
        else:
            assert g.state.salvos[art] == 2 and rows[0]["result"] == "no salvo spent"
        before = int(g.state.salvos[ship])
        artillery.defensive_expend(g, ship)
        assert g.state.salvos[ship] == before and len(_rows(g, "defensive fire ammunition")) == 1
    assert seen == {1, 2, 3, 4, 5, 6}


# ------------------------------------------------------------------ 12.54
def _landed(g) -> tuple[int, int]:
    """Run the 12.54 step; (salvos, dice) of its record, or None when no die
    was rolled."""
    before = int(g.state.stockpile[0])
    artillery.ammunition_landed(g)
    rows = _rows(g, "ammunition_landed")
    if not rows:
        assert g.state.stockpile[0] == before
        return None
    words = rows[-1]["result"].split()
    salvos, dice = int(words[0]), int(words[3])
    assert g.state.stockpile[0] == before + salvos and rows[-1]["rule"] == "12.54"
    return salvos, dice


def test_rule_12_54_dice_per_port_and_landed_beach():
    """Rule 12.54: six dice for each Axis-controlled Main Port (1911), three
    for each Minor Port (1709, 2213), one for each Axis-controlled beach hex
    where Axis units have landed; none for ports and beaches the Axis does not
    hold; no roll when there is nothing to roll for."""
    t = static()
    assert t.main_port[h("1911")] and t.minor_port[h("1709")] and not t.main_port[h("1709")]
    g = make({})
    assert not (g.state.control == AXIS).any()
    assert _landed(g) is None
    g.state.landed_beach[h("1107")] = True                   # landed, but not held
    assert _landed(g) is None
    g.state.control[h("1107")] = AXIS
    assert _landed(g)[1] == 1
    g = make({}, control={"1911": AXIS})
    assert _landed(g)[1] == 6
    g = make({}, control={"1709": AXIS, "2213": AXIS})
    assert _landed(g)[1] == 6
    g = make({}, control={"1911": AXIS, "1709": AXIS, "1107": AXIS, "1207": AXIS})
    g.state.landed_beach[[h("1107"), h("1207"), h("1308")]] = True
    assert _landed(g)[1] == 6 + 3 + 2


def test_rule_12_54_each_die_of_5_or_6_lands_one_salvo():
    """Rule 12.54: each die of 5 or 6 is one salvo: a third of the dice, tested
    on many days' rolls."""
    g = make({}, control={"1911": AXIS, "1709": AXIS, "2213": AXIS})
    salvos = dice = 0
    while dice < 12_000:
        k, n = _landed(g)
        salvos, dice = salvos + k, dice + n
    assert binom_ok(salvos, dice, 1 / 3), (salvos, dice)


# ------------------------------------------------------------------ 12.56
def test_rule_12_56_who_may_receive_ammunition():
    """Rule 12.56: supplied artillery on the map with fewer than two salvos and
    a supply route to an Axis-held beach or port receives ammunition: a Main
    Port or a Minor Port alone will do; a beach the Axis does not hold will
    not; a battery with two salvos needs none."""
    for port in ("1911", "1709"):
        near = [x for x in range(static().n_hexes) if static().land[x]
                and static().grid.distance_table[x, h(port)] == 2 and not static().beach[x]]
        hx = static().grid.hex_id(near[0])
        g = make({hx: ["axis.4.art_28", "axis.185.art_1"]}, turn=8, control={port: AXIS})
        full, one = u("axis.4.art_28"), u("axis.185.art_1")
        g.state.salvos[one] = 1
        assert artillery.ammo_eligible(g, AXIS) == [one], port
    g = make({"1209": ["axis.185.art_1"]}, turn=8)       # three hexes from the beach 1107, not held
    assert not static().beach[h("1209")] and static().grid.distance_table[h("1209"), h("1107")] == 3
    g.state.salvos[u("axis.185.art_1")] = 0
    assert artillery.ammo_eligible(g, AXIS) == []


def _handout(side, give, stock=0, salvos=None):
    """A Status Phase hand-out (12.56): two Axis batteries next to the Axis-held
    beach 1107, or the British battery near its dump; returns game and bot."""
    bot = _Quartermaster(side, give)
    if side == AXIS:
        g = make({"1207": ["axis.4.art_28", "axis.185.art_1"]}, turn=8, control={"1107": AXIS},
                 policies=(bot, Scripted(ALLIED)))
    else:
        g = make({"1612": ["allied.hq.malta", "allied.uk.art_12"]}, turn=8, policies=(Scripted(AXIS), bot))
    g.state.stockpile[0] = stock
    for k, v in (salvos or {}).items():
        g.state.salvos[u(k)] = v
    artillery.distribute_ammunition(g, side)
    return g, bot


def test_rule_12_56_axis_hands_out_its_stockpile():
    """Rules 12.54 and 12.56: the Axis gives its three stockpiled salvos, two to
    an empty battery and one to a battery with one; the stockpile is spent;
    the hand-out is recorded."""
    salvos = {"axis.4.art_28": 0, "axis.185.art_1": 1}
    g, bot = _handout(AXIS, {"axis.4.art_28": 2, "axis.185.art_1": 1}, stock=3, salvos=salvos)
    assert bot.asked == [(sorted([u("axis.4.art_28"), u("axis.185.art_1")]), 3)]
    assert g.state.salvos[u("axis.4.art_28")] == 2 and g.state.salvos[u("axis.185.art_1")] == 2
    assert g.state.stockpile[0] == 0
    rows = _rows(g, "ammunition")
    assert len(rows) == 1 and rows[0]["result"] == "3 salvos"


def test_rule_12_56_one_salvo_in_the_stockpile_is_handed_out_none_is_not_asked():
    """Rule 12.56: with one salvo in the stockpile the Axis may hand it out;
    with none it is not asked; handing out nothing records nothing."""
    g, bot = _handout(AXIS, {"axis.4.art_28": 1}, stock=1, salvos={"axis.4.art_28": 0})
    assert g.state.salvos[u("axis.4.art_28")] == 1 and g.state.stockpile[0] == 0
    g, bot = _handout(AXIS, {}, stock=0, salvos={"axis.4.art_28": 0})
    assert bot.asked == []
    g, bot = _handout(AXIS, {"axis.4.art_28": 0}, stock=2, salvos={"axis.4.art_28": 0})
    assert bot.asked and g.state.stockpile[0] == 2 and not _rows(g, "ammunition")


def test_rule_12_55_allied_ammunition_is_unlimited():
    """Rule 12.55: the Allies have no stockpile: they are offered an unlimited
    supply, hand out two salvos, and no stockpile is touched."""
    g, bot = _handout(ALLIED, {"allied.uk.art_12": 2}, stock=0, salvos={"allied.uk.art_12": 0})
    assert bot.asked == [([u("allied.uk.art_12")], -1)]
    assert g.state.salvos[u("allied.uk.art_12")] == 2 and g.state.stockpile[0] == 0
    assert len(_rows(g, "ammunition")) == 1


@pytest.mark.parametrize("give,salvos,stock", [
    ({"axis.ram.art": 1}, {"axis.4.art_28": 0}, 3),                 # not eligible (not placed)
    ({"axis.4.art_28": -1}, {"axis.4.art_28": 0}, 3),               # a negative hand-out
    ({"axis.4.art_28": 2}, {"axis.4.art_28": 1}, 3),                # three salvos
    ({"axis.4.art_28": 2, "axis.185.art_1": 2}, {"axis.4.art_28": 0, "axis.185.art_1": 0}, 3),  # over the stock
])
def test_rule_12_56_hand_outs_beyond_the_rules_are_refused(give, salvos, stock):
    """Rule 12.56: salvos go only to eligible artillery, never more than two
    per unit, and the Axis never more than its stockpile."""
    with pytest.raises(IllegalDecision, match=r"12\.56"):
        _handout(AXIS, give, stock=stock, salvos=salvos)
