"""Advance after combat (rules 9.81-9.88, 10.23, 17.1) on constructed positions.

Each position is a straight line of clear land hexes: the attacker's start
hex, the vacated attacked hex and the hexes beyond it.  The attacking bot
advances every eligible piece it is told to and goes on as far as the rules
let it; the tests read where the stack ends.
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod.rules import combat
from malta_sim.iod.state import AXIS, BOX_MAP

from tests.conftest import Scripted, h, make, static, u

INF = "axis.4.1_34"          # Italian infantry battalion: foot (9.86: 2 hexes)
TANK = "axis.un.tank_10"     # tank company: mechanized (9.86: 3 hexes)
ZOC_STACK = ["allied.uk.inf_coy.1", "allied.uk.inf_coy.2"]   # attack 4: exerts a ZOC (5.1)


class GoOn(Scripted):
    """Advances the pieces named in ``who`` (all eligible when None) and goes
    on along ``path`` (hex ids) while the next hex of it is offered (9.84)."""

    def __init__(self, side, path=(), who=None):
        super().__init__(side, advance=True)
        self.who = who
        self.path = list(path)

    def choose_advance(self, game, units, target, length):
        return [x for x in units if self.who is None or x in self.who]

    def advance_further(self, game, units, options):
        here = game.static.grid.hex_id(int(game.state.hex[units[0]]))
        i = self.path.index(here) if here in self.path else -1
        nxt = h(self.path[i + 1]) if 0 <= i < len(self.path) - 1 else None
        return nxt if nxt in options else None


def _clear(t, x) -> bool:
    return bool(t.land[x] and not (t.city[x] or t.town[x] or t.fort[x] or t.woods[x] or t.beach[x]
                                   or t.airfield[x]))


def _line(n_beyond: int, side_hex: bool = False):
    """Hex ids ``[start, attacked, beyond...]`` in one straight line of clear
    land hexes joined by plain hexsides (no road, creek or ocean), and, with
    ``side_hex``, a clear hex next to the attacked hex but not to the start
    hex (an enemy piece there puts the attacked hex, not the start hex, in its
    ZOC)."""
    t = static()
    nb = t.neighbours
    plain = ~(t.road | t.creek | t.rise | t.ocean_side)
    for a in range(t.n_hexes):
        for d in range(6):
            line = [a]
            ok = _clear(t, a)
            while ok and len(line) < n_beyond + 2:
                x = int(nb[line[-1], d])
                ok = x >= 0 and _clear(t, x) and plain[line[-1], d]
                line.append(x)
            if not ok:
                continue
            if not side_hex:
                return [t.grid.hex_id(x) for x in line]
            target = line[1]
            for y in nb[target]:
                y = int(y)
                if y < 0 or y in line or not _clear(t, y):
                    continue
                if line[0] not in nb[y].tolist():
                    return [t.grid.hex_id(x) for x in line] + [t.grid.hex_id(y)]
    raise AssertionError("no such line of hexes on the map")


def _advance(placements, attackers, path, length, who=None, fort_destroyed=False, turn=4):
    """Advance ``attackers`` (from ``path[0]``) into ``path[1]``, going on
    along ``path`` as far as allowed; returns the game and the units moved."""
    target = path[1]
    g = make(placements, turn=turn, policies=(GoOn(AXIS, path, who), Scripted(1)))
    if fort_destroyed:
        g.state.fort_destroyed[h(target)] = True
    stayers = [u(x) for x in attackers]
    moved = combat.advance_after_combat(g, AXIS, h(target), stayers, length)
    return g, moved


def _where(g, name) -> str:
    x = u(name)
    assert g.state.box[x] == BOX_MAP
    return g.static.grid.hex_id(int(g.state.hex[x]))


def test_rule_9_86_foot_two_hexes_mechanized_three():
    line = _line(3)
    g, _ = _advance({line[0]: [INF]}, [INF], line, 5)
    assert _where(g, INF) == line[2]                       # foot: attacked hex + 1
    g, _ = _advance({line[0]: [TANK]}, [TANK], line, 5)
    assert _where(g, TANK) == line[3]                      # mechanized: attacked hex + 2


def test_rule_9_86_the_advancing_pieces_set_the_limit_not_all_eligible():
    """A tank that attacked with infantry and advances alone goes 3 hexes."""
    line = _line(3)
    g, moved = _advance({line[0]: [INF, TANK]}, [INF, TANK], line, 3, who={u(TANK)})
    assert moved == [u(TANK)]
    assert _where(g, TANK) == line[3] and _where(g, INF) == line[0]


def test_rule_9_86_a_stack_advances_as_far_as_its_slowest_piece():
    line = _line(3)
    g, moved = _advance({line[0]: [INF, TANK]}, [INF, TANK], line, 3)
    assert sorted(moved) == sorted([u(INF), u(TANK)])
    assert _where(g, TANK) == _where(g, INF) == line[2]


def test_rule_9_82_length_won_limits_the_advance():
    line = _line(3)
    g, _ = _advance({line[0]: [TANK]}, [TANK], line, 1)
    assert _where(g, TANK) == line[1]
    g, _ = _advance({line[0]: [TANK]}, [TANK], line, 2)
    assert _where(g, TANK) == line[2]


def test_rule_9_85_leaving_a_zoc_attacked_hex_shortens_the_advance_before_the_step():
    """Length 2, the attacked hex in an enemy ZOC: leaving it would cut the
    advance to one hex, so the stack stops in the attacked hex."""
    line = _line(2, side_hex=True)
    start, target, beyond, zoc_hex = line[0], line[1], line[2], line[-1]
    g, _ = _advance({start: [INF], zoc_hex: ZOC_STACK}, [INF], line[:-1], 2)
    zoc = combat.movement.zoc_map(g, 1)
    assert zoc[h(target)] and not zoc[h(start)]
    assert _where(g, INF) == target
    # mechanized, length 3: 3 - 1 for the ZOC hex left = attacked hex + 1
    g, _ = _advance({start: [TANK], zoc_hex: ZOC_STACK}, [TANK], line[:-1], 3)
    assert _where(g, TANK) == beyond


def test_rule_9_85_never_below_one_hex():
    line = _line(2, side_hex=True)
    start, target, zoc_hex = line[0], line[1], line[-1]
    g, moved = _advance({start: [INF], zoc_hex: ZOC_STACK}, [INF], line[:-1], 1)
    assert moved and _where(g, INF) == target


def test_rule_10_23_one_hex_at_night():
    line = _line(3)
    g, _ = _advance({line[0]: [TANK]}, [TANK], line, 3, turn=7)       # 30 June night
    assert g.night and _where(g, TANK) == line[1]


def _fort_line():
    """``[start, fort, beyond, beyond2]``: an undestroyed fort hex with clear
    land before and after it in a straight line (plain hexsides)."""
    t = static()
    nb = t.neighbours
    plain = ~(t.road | t.creek | t.rise | t.ocean_side)
    for f in np.flatnonzero(t.fort & ~t.city).tolist():
        for d in range(6):
            back = int(nb[f, (d + 3) % 6])
            b1 = int(nb[f, d])
            b2 = int(nb[b1, d]) if b1 >= 0 else -1
            if min(back, b1, b2) < 0 or not all(_clear(t, x) for x in (back, b1, b2)):
                continue
            if plain[back, d] and plain[f, d] and plain[b1, d]:
                return [t.grid.hex_id(x) for x in (back, f, b1, b2)]
    pytest.skip("no fort with clear hexes on both sides in this map data")


def test_rule_17_1_an_undestroyed_fort_stops_the_advance_in_the_fort_hex():
    line = _fort_line()
    g, _ = _advance({line[0]: [TANK]}, [TANK], line, 3)
    assert _where(g, TANK) == line[1]
    assert g.state.fort_destroyed[h(line[1])]               # 17.1: first Axis entry destroys it


def test_rule_17_1_a_destroyed_fort_has_no_effect_on_the_advance():
    line = _fort_line()
    g, _ = _advance({line[0]: [TANK]}, [TANK], line, 3, fort_destroyed=True)
    assert _where(g, TANK) == line[3]


def test_rule_9_86_a_city_stops_the_advance_in_the_city_hex():
    t = static()
    for c in np.flatnonzero(t.city).tolist():
        for d in range(6):
            back, nxt = int(t.neighbours[c, (d + 3) % 6]), int(t.neighbours[c, d])
            if (back >= 0 and nxt >= 0 and not t.ocean_side[c, d] and not t.ocean_side[back, d]
                    and all(t.land[x] and not (t.city[x] or t.fort[x]) for x in (back, nxt))):
                g, _ = _advance({t.grid.hex_id(back): [TANK]}, [TANK],
                                [t.grid.hex_id(x) for x in (back, c, nxt)], 3)
                assert _where(g, TANK) == t.grid.hex_id(c)
                return
    pytest.skip("no city with clear neighbours in this map data")


def test_rule_9_82_hits_left_pending_when_the_defender_is_eliminated_set_the_length():
    """A one-step defender eliminated by its step loss cannot retreat: the
    retreat hits it would have taken remain pending and set the length of the
    advance (9.82, 9.42)."""
    line = _line(3)
    seen = set()
    for roll in range(2, 13):
        g = make({line[0]: [INF], line[1]: [ZOC_STACK[0]]},
                 policies=(GoOn(AXIS, line), Scripted(1)))
        res = combat.resolve_attack(g, AXIS, h(line[1]), [u(INF)], fixed_roll=roll)
        ah, _ae, dh, _de = res.result
        if res.cancelled or ah or dh not in (2, 3):
            continue
        assert g.state.box[u(ZOC_STACK[0])] != BOX_MAP           # 1 step lost: eliminated
        assert res.pending == dh - dh // 2                       # its retreat hits
        assert _where(g, INF) == line[min(dh - dh // 2, 2)]      # foot: at most 2 hexes (9.86)
        seen.add(dh)
    assert 3 in seen, "no roll gave the defender three hits"


def test_rule_9_42_excess_loss_shortens_the_retreat_of_the_side_that_lost_first():
    """The attacker takes more hits and loses its steps first; the defender,
    wiped out with a step still to lose, takes one hit off the attacker, which
    then retreats one hex less (9.42, 9.51).  The engine takes its step and
    retreat counts from :func:`malta_sim.kernels.crt.apply_hits`; the packaged
    (reconstructed) CRT has no cell where this arises (no attacker result
    above a defender result of four hits), so it is shown on the counts."""
    from malta_sim.kernels.crt import apply_hits

    # attacker 5 hits: 3 steps and 2 hexes; defender 4 hits, one step to lose
    assert apply_hits(5, 4, 9, 1) == (3, 1, 1, 0, 0, 3)
    # without the excess the attacker retreats its two hexes
    assert apply_hits(5, 4, 9, 2) == (3, 2, 2, 0, 0, 2)
    # the defender exactly eliminated is no excess (its retreat hits stay pending, 9.82)
    assert apply_hits(3, 2, 5, 1) == (2, 1, 1, 0, 0, 1)


# ------------------------------------------------------------------ the advance hex by hex (9.82-9.88)
class _Taker(GoOn):
    """Advances every eligible piece and goes on into the first offered hex
    outside the enemy ZOC (any offered hex when there is none) as long as it
    is allowed, or stops after ``stop_after`` hexes beyond the attacked one;
    records each advance offer's length and each list of hexes offered."""

    def __init__(self, side, stop_after=9, who=None):
        super().__init__(side, who=who)
        self.stop_after = stop_after
        self.lengths: list = []
        self.options: list = []

    def choose_advance(self, game, units, target, length):
        self.lengths.append(int(length))
        return [x for x in units if self.who is None or x in self.who]

    def advance_further(self, game, units, options):
        self.options.append(list(options))
        if len(self.options) > self.stop_after:
            return None
        zoc = combat.movement.zoc_map(game, 1 - self.side)
        free = [x for x in options if not zoc[x]]
        return (free or list(options))[0]


def _hexes(g, name):
    return g.static.grid.hex_id(int(g.state.hex[u(name)]))


def _taken(placements, side, movers, target, length, turn=4, stop_after=9, who=None):
    bot = _Taker(side, stop_after, who)
    pols = (bot, Scripted(1)) if side == AXIS else (Scripted(0), bot)
    g = make(placements, turn=turn, policies=pols)
    moved = combat.advance_after_combat(g, side, h(target), [u(x) for x in movers], length)
    return g, bot, moved


def test_rule_9_85_a_start_hex_in_enemy_zoc_shortens_the_advance():
    """Rule 9.85: the start hex counts as an enemy ZOC hex left: a tank
    allowed three hexes, starting next to a British stack (0610) that does not
    reach the attacked hex, advances into it and one hex beyond, not two."""
    start, target, b1, b2 = "0710", "0809", "0909", "1008"
    d = static().grid.distance_table
    assert d[h("0610"), h(start)] == 1 and d[h("0610"), h(target)] == 2
    g, bot, moved = _taken({start: [TANK], "0610": ZOC_STACK}, AXIS, [TANK], target, 3)
    zoc = combat.movement.zoc_map(g, 1)
    assert zoc[h(start)] and not zoc[h(target)]
    assert bot.lengths == [3] and moved == [u(TANK)]
    assert len(bot.options) == 1 and h(target) not in bot.options[0]
    assert d[g.state.hex[u(TANK)], h(target)] == 1


def test_rule_9_85_leaving_the_zoc_attacked_hex_costs_one_more():
    """Rule 9.85: a tank allowed three hexes whose attacked hex is in a
    British ZOC (0808) leaves it for a hex outside the ZOC: the advance ends
    there (3 - 1 for the ZOC hex left = 2 hexes), though more is offered."""
    start, target = "0710", "0809"
    g, bot, moved = _taken({start: [TANK], "0808": ZOC_STACK}, AXIS, [TANK], target, 3)
    zoc = combat.movement.zoc_map(g, 1)
    assert not zoc[h(start)] and zoc[h(target)]
    assert len(bot.options) == 1
    here = g.state.hex[u(TANK)]
    assert not zoc[here] and static().grid.distance_table[here, h(target)] == 1


def test_rule_9_84_the_advance_never_turns_back_into_the_attacked_hex():
    """Rule 9.84: after the attacked hex the advance goes on into new hexes:
    the attacked hex is not offered again, and the advance is logged with its
    path."""
    line = _line(3)
    g, bot, moved = _taken({line[0]: [TANK]}, AXIS, [TANK], line[1], 3)
    assert len(bot.options) == 2
    assert all(h(line[1]) not in opts for opts in bot.options)
    rows = [r for r in g.events.rows if r["action"] == "advance"]
    assert len(rows) == 1 and rows[0]["rule"] == "9.8"
    assert rows[0]["hexes"].split()[0] == line[1] and len(rows[0]["hexes"].split()) == 3


def test_rule_9_84_friendly_units_do_not_block_the_advance():
    """Rules 9.84 and 6.52: a hex beyond the attacked one holding a friendly
    unit may be entered (stacking permitting): it is offered."""
    line = _line(3)
    g, bot, moved = _taken({line[0]: [TANK], line[2]: ["axis.4.3_34"]}, AXIS, [TANK], line[1], 3)
    assert h(line[2]) in bot.options[0]


def test_rule_9_8_the_owner_may_stop_and_the_advance_ends_where_nothing_is_offered():
    """Rule 9.84: the attacking player chooses the hexes beyond the attacked
    one and may stop at any time: the tank stops in the attacked hex when its
    owner declines to go on; and with every hex around the attacked one
    held by the enemy (companies, which exert no ZOC, 5.1) or full (the start
    hex, 7.1) the advance ends there, nothing further offered."""
    line = _line(3)
    g, bot, moved = _taken({line[0]: [TANK]}, AXIS, [TANK], line[1], 3, stop_after=0)
    assert _hexes(g, TANK) == line[1] and len(bot.options) == 1
    t = static()
    around = [t.grid.hex_id(int(y)) for y in t.neighbours[h("1311")] if y >= 0 and y != h("1310")]
    coys = [f"allied.uk.inf_coy.{k}" for k in range(1, 6)]      # attack 2: no ZOC (5.1), but they block
    full = ["axis.4.1_34", "axis.4.2_34", "axis.4.3_34", "axis.4.1_33"]   # the start hex full behind it
    g, bot, moved = _taken({"1310": [TANK] + full, **{x: [c] for x, c in zip(around, coys)}}, AXIS,
                           [TANK], "1311", 3, who={u(TANK)})
    assert not combat.movement.zoc_map(g, 1)[h("1311")]
    assert moved == [u(TANK)] and _hexes(g, TANK) == "1311" and bot.options == []


def test_rule_9_8_no_advance_into_a_hex_the_enemy_still_holds():
    """Rule 9.8: the advance is into a vacated hex: with an enemy unit still
    in the attacked hex nobody advances (Axis or Allied attacker)."""
    line = _line(2)
    g, bot, moved = _taken({line[0]: [TANK], line[1]: [ZOC_STACK[0]]}, AXIS, [TANK], line[1], 3)
    assert moved == [] and bot.lengths == [] and _hexes(g, TANK) == line[0]
    g, bot, moved = _taken({line[0]: ["allied.uk.8m"], line[1]: [INF]}, 1, ["allied.uk.8m"], line[1], 2)
    assert moved == [] and bot.lengths == [] and _hexes(g, "allied.uk.8m") == line[0]


def test_rule_9_85_9_86_an_allied_advance_counts_the_axis_zoc():
    """Rules 9.85 and 9.86 for an Allied attacker: a British battalion (foot,
    two hexes) advances into the attacked hex and one beyond; with the
    attacked hex in an Axis ZOC it stops there; starting in an Axis ZOC that
    does not reach the attacked hex, it also stops in the attacked hex."""
    brit = "allied.uk.8m"
    line = _line(3)
    g, bot, moved = _taken({line[0]: [brit]}, 1, [brit], line[1], 2)
    assert moved == [u(brit)] and len(bot.options) == 1
    assert static().grid.distance_table[g.state.hex[u(brit)], h(line[1])] == 1
    g, bot, moved = _taken({"0710": [brit], "0808": [INF]}, 1, [brit], "0809", 2)
    assert _hexes(g, brit) == "0809" and bot.options == []
    g, bot, moved = _taken({"0710": [brit], "0610": [INF]}, 1, [brit], "0809", 2)
    assert _hexes(g, brit) == "0809" and bot.options == []


def test_rule_10_23_9_86_one_hex_offered_at_night_and_into_a_fort():
    """Rules 10.23 and 9.86: at night, and after an attack on an undestroyed
    fort, the advance offered is one hex long (the attacked hex)."""
    line = _line(3)
    g, bot, moved = _taken({line[0]: [TANK]}, AXIS, [TANK], line[1], 3, turn=7)
    assert g.night and bot.lengths == [1] and _hexes(g, TANK) == line[1]
    fl = _fort_line()
    g, bot, moved = _taken({fl[0]: [TANK]}, AXIS, [TANK], fl[1], 3)
    assert bot.lengths == [1] and _hexes(g, TANK) == fl[1]


def test_rule_9_81_an_hq_and_an_aa_unit_stacked_with_the_attackers_may_advance():
    """Rule 9.81: units stacked with the attackers that did not attack may
    advance too; an HQ and an AA unit are units with a movement allowance
    (neither is artillery, 9.87), so the owner is offered both and they go
    with the stack.  A leader goes along by itself (9.81).  The default bots
    keep HQs and AA where they stand (their choice, not the rule's)."""
    from malta_sim.bots.simple import BalancedPolicy

    line = _line(3)
    hq, aa = "axis.4.hq", "allied.uk.aa_65"
    g, moved = _advance({line[0]: [INF, hq]}, [INF], line, 2)
    assert sorted(moved) == sorted([u(INF), u(hq)])
    assert _where(g, hq) == _where(g, INF) == line[2]
    # the Allied side: an AA battalion stacked with an attacking company
    coy = ZOC_STACK[0]
    g = make({line[0]: [coy, aa]}, turn=4, policies=(Scripted(0), GoOn(1, line)))
    assert combat._advance_eligible(g, 1, [u(coy)]) == [u(coy), u(aa)]
    moved = combat.advance_after_combat(g, 1, h(line[1]), [u(coy)], 2)
    assert sorted(moved) == sorted([u(coy), u(aa)])
    # the default bot is offered the HQ but leaves it behind
    g = make({line[0]: [INF, hq]}, turn=4, policies=(BalancedPolicy(AXIS), Scripted(1)))
    assert u(hq) in combat._advance_eligible(g, AXIS, [u(INF)])
    combat.advance_after_combat(g, AXIS, h(line[1]), [u(INF)], 2)
    assert _where(g, hq) == line[0] and _where(g, INF) != line[0]
