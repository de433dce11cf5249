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
