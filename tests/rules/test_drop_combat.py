"""Hostile landings (rules 19.5-19.53) fought through the normal combat procedure.

Paratroop companies that land in an Allied-held hex attack it with the normal
combat procedure (:func:`malta_sim.iod.rules.combat.resolve_attack`) and the
differences rule 19.51 prints: no support, every Axis hit a step loss, no
advance after combat, and again until one side is left.  Each test plays the
landing on many seeds of a constructed position and checks a rule whenever
the dice bring its case about (and that they did at least once).
"""

from __future__ import annotations

import numpy as np

from malta_sim.iod.rules import airborne
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP

from tests.conftest import Scripted, h, make, static, u

PARAS = ["axis.ram.1_2.a", "axis.ram.1_2.b", "axis.ram.1_2.c", "axis.ram.1_3.a"]
LEADER = "allied.ldr.beak"
COMPANIES = ["allied.uk.inf_coy.1", "allied.uk.inf_coy.2"]


def _clear_hex() -> str:
    """A clear land hex with no road or ocean around it (no fort, town, city)."""
    t = static()
    for x in range(t.n_hexes):
        if (t.land[x] and not (t.city[x] or t.town[x] or t.fort[x] or t.woods[x] or t.beach[x]
                               or t.airfield[x]) and all(t.land[o] for o in t.neighbours[x] if o >= 0)
                and not t.ocean_side[x].any()):
            return t.grid.hex_id(x)
    raise AssertionError("no clear inland hex")


class Retreats(Scripted):
    """Never stands its ground (9.7): every retreat result is taken."""

    def stand_ground(self, game, units, hits, attacker):
        return False


class Stands(Scripted):
    """Always tries to stand its ground (9.7)."""

    def stand_ground(self, game, units, hits, attacker):
        return True


def _land(seed, defenders, hex_id=None, allied=None, log=True):
    x = hex_id or _clear_hex()
    g = make({x: PARAS + defenders}, seed=seed, policies=(Scripted(AXIS), allied or Retreats(ALLIED)),
             log=log)
    paras = [u(p) for p in PARAS]
    before = {k: (int(g.state.box[u(k)]), int(g.state.hex[u(k)])) for k in defenders}
    airborne.hostile_landing(g, h(x), paras)
    return g, h(x), paras, before


def _events(g, action):
    return [r for r in g.events.rows if r["action"] == action]


def test_rule_19_5_fights_until_one_side_is_left_and_never_advances():
    for seed in range(25):
        g, x, paras, _ = _land(seed, COMPANIES + [LEADER])
        s = g.state
        axis_left = [p for p in paras if s.box[p] == BOX_MAP and s.hex[p] == x]
        allied_left = [v for v in (u(c) for c in COMPANIES) if s.box[v] == BOX_MAP and s.hex[v] == x]
        assert not (axis_left and allied_left)                       # 19.51: until one side is left
        assert all(s.hex[p] in (x, -1) for p in paras)               # 19.53: no advance
        attacks = _events(g, "hostile landing attack")
        assert attacks and all(r["rule"] == "19.51" for r in attacks)


def test_rule_14_3_a_leader_retreats_with_the_stack_it_was_with():
    """The Allied leader stacked with units that retreat from the drop hex
    goes with them; it is not left behind alone with the paratroopers."""
    seen = 0
    for seed in range(60):
        g, x, _, _ = _land(seed, COMPANIES + [LEADER])
        s = g.state
        ld = u(LEADER)
        movers = [v for v in (u(c) for c in COMPANIES) if s.box[v] == BOX_MAP and s.hex[v] != x]
        if movers and s.box[ld] == BOX_MAP:
            assert s.hex[ld] == s.hex[movers[0]]
            seen += 1
    assert seen, "no seed made the defenders retreat with their leader alive"


def test_rule_14_41_leader_casualty_roll_after_step_losses_in_the_drop_hex():
    seen = 0
    for seed in range(40):
        g, x, _, before = _land(seed, COMPANIES + [LEADER])
        lost = [r for r in g.events.rows if r["action"] in ("step lost", "eliminated")
                and any(c in r["units"] for c in COMPANIES)]
        rolls = [r for r in _events(g, "leader casualty roll") if LEADER in r["units"]]
        if lost:
            assert rolls, f"seed {seed}: Allied steps lost in the drop hex without a 14.41 roll"
            seen += 1
    assert seen


def test_rule_9_71_stand_ground_is_rolled_before_the_z_effect():
    """A unit standing its ground rolls against its morale before the Z of the
    same result demoralizes it (9.7 before 9.41): each stand-ground roll that
    follows a Z against the defenders stands exactly the units whose
    undamaged morale beats the die."""
    seen = 0
    for seed in range(150):
        g, x, _, _ = _land(seed, COMPANIES, allied=Stands(ALLIED))
        morale = {c: int(static().morale[u(c)][0]) for c in COMPANIES}
        rows = g.events.rows
        for i, r in enumerate(rows):
            if r["action"] != "hostile landing attack":
                continue
            d_res = r["result"].split(" ")[0].split("/")[1]
            if "Z" not in d_res:
                continue
            for q in rows[i + 1:]:
                if q["action"] == "hostile landing attack":
                    break
                if q["action"] == "stand ground" and q["side"] == "allied":
                    die = int(q["dice"])
                    units = q["units"].split()
                    want = sum(morale[c] > die for c in units)
                    assert q["result"] == f"{want} stand", (seed, q, morale)
                    seen += 1
                    break
    assert seen, "no seed gave a Z with a stand-ground roll"


def test_rule_17_1_a_fort_falls_when_its_defenders_are_gone():
    t = static()
    forts = [t.grid.hex_id(x) for x in np.flatnonzero(t.fort & ~t.city)]
    seen = 0
    for seed in range(40):
        for fx in forts[:2]:
            g, x, paras, _ = _land(seed, COMPANIES[:1], hex_id=fx)
            s = g.state
            axis_left = any(s.box[p] == BOX_MAP and s.hex[p] == x for p in paras)
            if axis_left and not len(g.units_at(x, ALLIED)):
                assert s.fort_destroyed[x]
                seen += 1
            elif len(g.units_at(x, ALLIED)):
                assert not s.fort_destroyed[x]
    assert seen
