"""RECONSTRUCTED components of Invasion: Malta behind one interface.

Our rulebook copy prints rules 1.3-8.4 only.  Combat (9, 12, 13), bombardment
(10), air (11), paradrop and air transport (15), naval transport and amphibious
invasion (16), commandos and motor pool (17-18) and victory (19) are **not
printed**.  :class:`Components` is the interface the engine calls for them;
:class:`ReconstructedComponents` is our stand-in.  A designer with the real
rules replaces it by passing another object with the same methods.  Every
result frame lists :data:`RECONSTRUCTED` in its ``reconstructed_components``
column and provenance.

Where a stand-in needs a printed mechanism it uses it: Disruption results go
through rule 3.84 (:func:`.efficiency.apply_disruption`), step losses through
rule 3.41 with the Lead unit taking the first step (rule 3.74), halving through
rule 3.5, weather prohibitions through rule 5.2.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from .efficiency import apply_disruption, choose_lead, current_er, disrupt_by_hex, lead_candidates
from .supply import place_airhead
from .units import AXIS, d10, halved_total, lose_step, side_index
from .weather import allowed
from .zoc import occupied

#: Components that are reconstructions, not printed rules.
RECONSTRUCTED = ("combat", "bombardment", "air", "paradrop", "naval_transport", "victory", "policies")

#: Odds columns of the reconstructed d10 CRT (attack : defense).
ODDS = ((1, 2), (1, 1), (3, 2), (2, 1), (3, 1), (4, 1), (5, 1))


class Components(Protocol):
    """What the engine needs from the unprinted rules."""

    def paradrop(self, game, units: list, hexes: list, rng) -> list: ...
    def naval_transport(self, game, units: list, zone_hexes: list, rng) -> list: ...
    def air_mission(self, game, side: int, rng) -> dict: ...
    def bombardment(self, game, artillery: list, target: int, rng) -> dict: ...
    def combat(self, game, attackers: list, target: int, shift: int, rng) -> dict: ...
    def victory(self, game, final: bool) -> tuple: ...


def odds_column(att: int, dfn: int) -> int:
    """Index into :data:`ODDS` of the highest ratio ``att:dfn`` reaches (-1 below 1:2)."""
    col = -1
    for k, (a, d) in enumerate(ODDS):
        if att * d >= dfn * a:
            col = k
    return col


class ReconstructedComponents:
    """Stand-ins for the unprinted rules (documented in docs/invasion_malta.md)."""

    name = "reconstructed-v1"

    # -- paradrop (15, not printed) --
    def paradrop(self, game, units, hexes, rng):
        """Each unit rolls a d10: 1-6 lands on its drop hex, 7-8 scatters to a random
        adjacent land hex, 9 lands Disrupted, 10 loses a step and lands Disrupted;
        a unit whose landing hex holds the enemy or sea scatters again once, then is
        eliminated.  Prohibited in Windy/Storm weather and at night (rules 5.21-5.22, 8.43)."""
        m, u, pos = game.map, game.units, game.pos
        out = []
        if not allowed("paradrop", game.weather, game.night):
            return [dict(unit=k, result="cancelled") for k in units]
        enemy = occupied(u, pos, 1, m.n)
        for k, h in zip(units, hexes):
            r = d10(rng)
            land = h
            if r in (7, 8) or enemy[h]:
                cands = [j for j in m.nbr[h] if j >= 0 and m.land[j] and not enemy[j]]
                land = int(cands[int(rng.integers(len(cands)))]) if cands else -1
            if land < 0:
                pos.steps[k] = 0
                out.append(dict(unit=k, roll=r, result="lost"))
                continue
            pos.hex[k] = land
            pos.paradropped[k] = True
            if r == 10:
                lose_step(u, pos, k)
            if r >= 9 and pos.steps[k] > 0:
                pos.disrupted[k] = True
            out.append(dict(unit=k, roll=r, hex=land, result="landed"))
            if land not in pos.airheads and pos.steps[k] > 0:
                place_airhead(m, pos, land, str(u.nat[k]))  # first paratroops mark an Airhead (rule 6.31)
        return out

    # -- naval transport and amphibious invasion (16, not printed) --
    def naval_transport(self, game, units, zone_hexes, rng):
        """Convoy arrival: one d10 for the convoy; 1-8 arrives (Windy +2), 9-10 is
        delayed a turn; Storm prohibits (5.22).  Units land on the zone's beach hexes
        not held by the enemy, spread evenly (armored units one per hex); each landing hex rolls the Landing
        Condition: d10 of 9-10 disrupts the units there.  A Beachhead marker goes on
        every landing hex (rule 6.31)."""
        m, u, pos = game.map, game.units, game.pos
        if not allowed("naval_transport", game.weather, game.night):
            return dict(result="prohibited")
        r = d10(rng) + (2 if game.weather == "windy" else 0)
        if r >= 9:
            return dict(result="delayed", roll=r)
        enemy = occupied(u, pos, 1, m.n)
        free = [h for h in zone_hexes if not enemy[h]]
        if not free:
            # land next to the zone
            free = sorted({int(j) for h in zone_hexes for j in m.nbr[h] if j >= 0 and m.land[j] and not enemy[j]})
        if not free:
            return dict(result="no landing hex", roll=r)
        # one armored unit per hex at any time (rules 3.33, 3.64): tanks take distinct
        # hexes, spilling onto land next to the beaches; any left stay aboard
        armor_here = {int(h) for h in pos.hex[pos.on_map() & u.armored]}
        spill = [int(j) for h in free for j in m.nbr[h] if j >= 0 and m.land[j] and not enemy[j]]
        placed = []
        n = 0
        for k in units:
            if u.armored[k]:
                h = next((h for h in list(free) + spill if h not in armor_here), None)
                if h is None:
                    continue
                armor_here.add(h)
            else:
                h = free[n % len(free)]
                n += 1
            pos.hex[k] = h
            placed.append(k)
        for h in free:
            pos.beachheads.add(int(h))
            if d10(rng) >= 9:
                apply_disruption(u, pos, int(h), rng, affected=[k for k in units if pos.hex[k] == h])
        return dict(result="landed", roll=r, hexes=free, placed=placed)

    # -- air (11, not printed) --
    def air_mission(self, game, side, rng):
        """A drawn CAS air unit gives its side one column shift on its next attack
        this turn (none at night or in Storm, rules 5.22, 8.43)."""
        if not allowed("air_mission", game.weather, game.night):
            return dict(result="grounded")
        game.cas[side] += 1
        return dict(result="cas", shifts=game.cas[side])

    # -- bombardment (10, not printed) --
    def bombardment(self, game, artillery, target, rng):
        """Artillery in range fires: total fire strength (disrupted guns cannot fire,
        rule 3.83), one d10 per 4 points: each roll of 8+ disrupts the target hex
        (through rule 3.84).  Guns flip to Fired (rule 3.42)."""
        u, pos = game.units, game.pos
        guns = [k for k in artillery if not pos.disrupted[k] and not pos.fired[k]]
        if not guns:
            return dict(result="none")
        strength = int(sum(u.range_[k] // 2 + 1 for k in guns))
        pos.fired[guns] = True
        hits = 0
        for _ in range(max(1, strength // 4)):
            if d10(rng) >= 8:
                hits += 1
                apply_disruption(u, pos, target, rng)
        return dict(result="fired", strength=strength, hits=hits)

    # -- combat (9, 12, 13, not printed) --
    def combat(self, game, attackers, target, shift, rng):
        """d10 CRT.  Attack strength of Disrupted attackers is halved (rule 3.5
        arithmetic); defense doubled in fort and urban hexes, x1.5 rough; column by
        :data:`ODDS` plus ``shift``.  Modified roll = d10 + 2 x column:
        <=5 attacker loses a step (Lead unit first, 3.74) and is Disrupted (one
        rule 3.84 check per attacking hex);
        6-8 both sides Disrupted; 9-11 defender Disrupted; 12-14 defender loses a
        step and is Disrupted; >=15 defender loses two steps and is Disrupted.
        If the hex empties, the attackers advance into it."""
        m, u, pos = game.map, game.units, game.pos
        defenders = [int(k) for k in pos.at(target) if u.side[k] != u.side[attackers[0]]]
        if not defenders:
            return dict(result="no defender")
        atk = [int(k) for k in attackers if pos.steps[k] > 0 and not pos.overstacked[k]]
        a_str = halved_total([u.attack[k, side_index(pos, k)] for k in atk], [pos.disrupted[k] for k in atk])
        d_vis = [k for k in defenders if not pos.overstacked[k]] or defenders
        d_str = int(sum(u.defense[k, side_index(pos, k)] for k in d_vis))
        mult = 2.0 if (m.fort[target] or m.urban[target]) else (1.5 if m.rough[target] else 1.0)
        d_str = max(1, int(d_str * mult))
        if a_str <= 0:
            return dict(result="cannot attack")  # rule 3.53
        col = odds_column(a_str, d_str) + shift
        col = min(col, len(ODDS) - 1)
        if col < 0:
            return dict(result="below lowest column")
        roll = d10(rng)
        mod = roll + 2 * col
        res = dict(attack=a_str, defense=d_str, column=col, roll=roll, modified=mod)
        if mod <= 5:
            lead = choose_lead(u, pos, lead_candidates(u, pos, atk)) if atk else None
            if lead is not None:
                lose_step(u, pos, lead)
            disrupt_by_hex(u, pos, atk, rng)  # rule 3.84: one check per attacking hex
            res["result"] = "attacker loses"
        elif mod <= 8:
            apply_disruption(u, pos, target, rng, affected=defenders)
            disrupt_by_hex(u, pos, atk, rng)
            res["result"] = "both disrupted"
        else:
            losses = 0 if mod <= 11 else (1 if mod <= 14 else 2)
            for _ in range(losses):
                alive = [k for k in defenders if pos.steps[k] > 0]
                if not alive:
                    break
                lose_step(u, pos, max(alive, key=lambda k: (pos.steps[k], -current_er(u, pos, k))))
            alive = [k for k in defenders if pos.steps[k] > 0]
            if alive:
                apply_disruption(u, pos, target, rng, affected=alive)
            res["result"] = f"defender {losses} step(s)"
            if not alive:
                adv, tank = [], False
                for k in atk:  # orange circle never advances (3.63); one armored unit per hex (3.33)
                    if pos.steps[k] > 0 and u.ma_class[k] != 1 and not (u.armored[k] and tank) and len(adv) < 3:
                        adv.append(k)
                        tank |= bool(u.armored[k])
                pos.hex[adv] = target
                if adv:
                    game.mark(adv[0], target)
                res["advanced"] = len(adv)
        return res

    # -- victory (19, not printed) --
    def victory(self, game, final):
        """Axis sudden victory when it controls every objective hex; Allied when no
        Axis unit is on the map and none is still to arrive.  At the end, the Axis
        wins with at least ``victory_points_to_win`` objectives (1 point each)."""
        held = game.objectives_held()
        n_obj = len(game.objectives)
        if held == n_obj:
            return "axis", "sudden_objectives"
        axis_left = (game.pos.on_map() & (game.units.side == AXIS)).any() or game.pending_axis()
        if not axis_left:
            return "allied", "axis_eliminated"
        if final:
            need = game.scenario.setting("victory_points_to_win", int)
            return ("axis", "objectives") if held >= need else ("allied", "time")
        return None, None
