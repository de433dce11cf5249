"""Simple sensible default bots for the land decisions of Island of Death.

* ``balanced`` (Axis): moves its units toward the nearest objective it does not
  hold (airfields, victory cities, towns), attacks where the CRT gives a good
  expected exchange, supports those attacks with artillery and air markers,
  advances into vacated hexes.
* ``static`` (Allied): holds its positions, supports threatened hexes,
  counter-attacks only at very good expected exchanges, stands its ground in
  cities, forts, towns and airfields.

Decisions not listed fall back to :class:`~malta_sim.bots.random.RandomPolicy`
(including the invasion decisions).  Parameters (``params``): ``min_edge`` --
least expected (defender hits - attacker hits) over the 2d6 distribution to
attack (balanced 0.5, static 1.5).
"""

from __future__ import annotations

import numpy as np

from malta_sim.bots.base import CombatPlan, Move
from malta_sim.bots.random import RandomPolicy
from malta_sim.iod import static as st
from malta_sim.kernels.crt import hex_defense, support_cap

#: 2d6 probabilities indexed by the total (0..12).
P2D6 = np.array([0, 0] + [min(k - 1, 13 - k) / 36 for k in range(2, 13)])


def objective_mask(game, side: int) -> np.ndarray:
    """bool[n_hexes]: airfields, victory cities and towns not held by ``side``."""
    t, s = game.static, game.state
    m = t.airfield | t.town
    m = m.copy()
    m[t.victory_cities] = True
    return m & (s.control != side) & t.land


def stand_leaves_a_step(game, units, hits: int) -> bool:
    """Rule 9.71: whether standing ground against ``hits`` retreat hexes can
    keep the hex.  Units that stand take all the remaining hits as step
    losses, shared with the pieces of the hex that must stand (9.72, 16.23,
    16.34), so a hex whose defending pieces hold ``hits`` steps or fewer is
    left empty either way: standing only loses the pieces a retreat would
    have saved.

    ``units``: the pieces free to retreat (non-empty, all in one hex);
    ``hits``: the retreat length of the result.  Returns True when the
    defending pieces of the hex (:func:`malta_sim.iod.rules.combat.defenders_in`)
    hold more steps than ``hits``."""
    from malta_sim.iod.rules import combat
    u0 = int(units[0])
    side = int(game.tables.side[u0])
    h = int(game.state.hex[u0])
    return sum(game.steps(u) for u in combat.defenders_in(game, h, side)) > hits


def expected_edge(game, side: int, target: int, attackers, support=()) -> float:
    """Expected defender hits minus attacker hits of an attack, over 2d6, at
    the odds column the attack would use (leader rolls left out); -inf when
    the attack would be cancelled (9.3 g)."""
    from malta_sim.iod.rules import combat
    from malta_sim.iod.static import odds_level
    t, s = game.static, game.state
    defenders = combat.defenders_in(game, target, 1 - side)
    if not defenders:
        return -np.inf
    att = sum(combat.attack_strength(game, u) for u in attackers)
    att += min(sum(combat.support_value(game, u, True, target, attackers) for u in support),
               int(support_cap(True, sum(int(t.attack[u, s.level[u]]) for u in attackers), 0)))  # 12.21
    dfn = int(hex_defense(sum(combat.defense_strength(game, u) for u in defenders),        # 9.91
                          bool(t.city[target]), bool(t.fort[target] and not s.fort_destroyed[target])))
    lvl = odds_level(att, dfn) + sum(combat.odds_modifiers(game, side, list(attackers), defenders,
                                                           target, roll_leaders=False).values())
    line = combat.crt_line(game, target)
    col = combat.crt_column(t.charts, line, lvl)
    if col < 0:
        return -np.inf
    cells = t.charts.crt[line, col, 2:13].astype(float)
    ah, dh = cells[:, 0], cells[:, 2]
    if t.fort[target] and not s.fort_destroyed[target]:
        dh = np.maximum(0, dh - 1)
    p = P2D6[2:13]
    return float((p * (dh - ah)).sum())


class _LandBot(RandomPolicy):
    name = "landbot"
    default_edge = 1.0
    param_names = ("min_edge", "p_move", "p_attack")
    moves = True

    def _edge(self):
        return float(self.params.get("min_edge", self.default_edge))

    # ---- status / organisation
    def distribute_ammo(self, game, eligible, stockpile):
        out, left = {}, stockpile
        for u in eligible:
            need = 2 - int(game.state.salvos[u])
            if left >= 0:
                need = min(need, left)
                left -= need
            if need > 0:
                out[u] = need
        return out

    def breakdowns(self, game, eligible):
        return []

    def reforms(self, game, options):
        return list(options)

    def attachments(self, game, options):
        return {}

    def replacements(self, game, eligible, n, kind):
        return list(eligible)[:n]

    def absorb(self, game, pairs):
        used, out = set(), []
        for a, b in pairs:
            if a not in used and b not in used:
                out.append((a, b))
                used.update((a, b))
        return out

    def next_infiltration(self, game, options):
        return None

    # ---- combat
    def _best_attack(self, game, options, support_for=None):
        best = None
        for tgt, units in sorted(options.items()):
            sup = (support_for or {}).get(tgt, [])
            e = expected_edge(game, self.side, tgt, units, sup)
            if e >= self._edge() and (best is None or e > best[0]):
                best = (e, tgt, list(units))
        return best

    def combat_plan(self, game, options):
        from malta_sim.iod.rules import combat
        plan = CombatPlan()
        atk = combat.attack_options(game, self.side)
        used = set()
        scored = []
        for tgt in options.attack_targets:
            sup = [u for u in options.support.get(tgt, [])]
            e = expected_edge(game, self.side, tgt, atk.get(tgt, []), sup)
            scored.append((e, tgt))
        scored.sort(reverse=True)
        air = options.air_markers
        for e, tgt in scored:
            if e < self._edge() - 1.0:
                continue
            sup = [u for u in options.support.get(tgt, []) if u not in used]
            arty = [u for u in sup if game.is_artillery(u)]
            sup = arty if arty else sup[:3]          # 16.74: no mixing, at most 3 warships
            if sup:
                plan.support[tgt] = sup
                used.update(sup)
            if air > 0 and e < self._edge() + 1.0:
                plan.air[tgt] = 1
                air -= 1
        return plan

    def defensive_support(self, game, options):
        """Rule 9.2 b (12.2, 16.74): the most threatened hexes (most
        neighbouring hexes holding enemy pieces) first, each takes up to two
        free artillery units, or up to two warships when no artillery is free."""
        out, used = {}, set()
        s, t, tb = game.state, game.static, game.tables
        # the hexes holding a piece of the enemy (-1, off the map, left out,
        # so that off-grid neighbours, -1, never count); the threat of each
        # offered hex from its own neighbours only
        enemy = 1 - self.side
        run = tb.side_run[enemy]
        hx = s.hex[run[0]:run[1]]
        held = set(hx.tolist())
        held.discard(-1)
        nbr = t.neighbours
        threat_of = {h: sum([n in held for n in nbr[h].tolist()]) for h in options}
        for h in sorted(options, key=threat_of.__getitem__, reverse=True):
            free = [u for u in options[h] if u not in used]
            arty = [u for u in free if game.is_artillery(u)]
            pick = arty[:2] if arty else free[:2]     # 16.74: no mixing, two warships at most
            if pick:
                out[h] = pick
                used.update(pick)
        return out

    def next_attack(self, game, options, penetration=False):
        best = self._best_attack(game, options)
        if best is None:
            return None
        return (best[1], best[2])

    def penetration_air(self, game, target, available):
        return 1 if available > 0 else 0

    def choose_loss(self, game, units, reason):
        """The step to lose: never an HQ while another unit can take it (an
        Axis HQ lost is +2 to every surrender roll, 20.0; HQs carry supply,
        8.5), then the fewest victory steps (tank companies count two, 20.1,
        20.2), then the weakest unit."""
        tb = game.tables
        lev, sw = game.state.level.item, game.static.step_weight.item     # integer arrays
        ut, att, dfn = tb.utype, tb.attack, tb.defense       # per-unit lists of the printed values
        hq = st.HQ

        def key(u):
            lv = lev(u)
            return (int(ut[u] == hq), sw(u), att[u][lv] + dfn[u][lv], u)
        return min(units, key=key)

    def stand_ground(self, game, units, hits, attacker):
        if attacker:
            return False
        t, s = game.static, game.state
        h = int(s.hex[units[0]])
        key = t.city[h] or t.fort[h] or t.town[h] or t.airfield[h]
        return bool(key and hits <= 1)

    def choose_retreat(self, game, units, options):
        return options[0]

    def choose_advance(self, game, units, target, length):
        """Rules 9.8, 9.83: every eligible piece but HQs and AA, lowest
        index first, that still fits the stacking limit of ``target`` with
        those before it (rule 7.1), in one compiled call.  The bot keeps its
        HQs and AA where they stand (9.81 would let them go): an HQ in the
        hex just taken is the first in reach of a counterattack, and its loss
        costs victory points (20.0)."""
        from malta_sim.iod.rules.retreat_advance import fit_in_order

        tb, s = game.tables, game.state
        units = [x for x in units if tb.utype[x] != st.HQ and tb.utype[x] != st.AA]
        if not units:
            return []
        side = tb.side[units[0]]
        return fit_in_order(np.array(sorted(units), np.int64), int(target), s.hex, s.level,
                            tb.side_mask[side], tb.base_weight, tb.remnant_level_full).tolist()

    def advance_further(self, game, units, options):
        return None

    def stacking_eliminate(self, game, units):
        t, s = game.static, game.state
        return max(units, key=lambda u: (int(t.attack[u, s.level[u]]), u))

    def leader_hex(self, game, options):
        return options[0]


class BalancedPolicy(_LandBot):
    """Axis default bot (``axis:balanced``)."""

    name = "balanced"
    default_edge = 0.5

    def next_move(self, game, mode, candidates):
        from malta_sim.iod import static as st
        t, s = game.static, game.state
        goal = objective_mask(game, self.side)
        if not goal.any():
            return None
        gh = np.flatnonzero(goal)
        dist = t.grid.distance_table
        for u in sorted(candidates):
            ut = t.utype[u]
            if ut in (st.ARTILLERY, st.HQ, st.LEADER) or s.moved[u]:
                continue
            here = int(dist[s.hex[u], gh].min())
            if here == 0:
                continue
            legal = game.legal_moves(u, mode)
            if not legal:
                continue
            best = min(legal, key=lambda h: (int(dist[h, gh].min()), legal[h], h))
            if int(dist[best, gh].min()) < here:
                return Move(u, int(best))
        return None


class StaticPolicy(_LandBot):
    """Allied default bot (``allied:static``): holds, counter-attacks only at
    very good expected exchanges."""

    name = "static"
    default_edge = 1.5

    def next_move(self, game, mode, candidates):
        """Hold: a unit that is not already garrisoning an objective, and is
        not next to the enemy, moves onto the nearest empty objective it holds
        (airfield, victory city, town) that it can reach this phase."""
        from malta_sim.iod import static as st
        t, s = game.static, game.state
        obj = (t.airfield | t.town).copy()
        obj[t.victory_cities] = True
        obj &= (s.control == self.side) & t.land
        occupied = np.zeros(t.n_hexes, bool)
        for x in game.on_map(self.side):
            if t.utype[x] not in (st.LEADER, st.WARSHIP, st.COASTAL_GUN):
                occupied[s.hex[x]] = True
        empty = np.flatnonzero(obj & ~occupied)
        if not len(empty):
            return None
        enemy = [int(x) for x in game.on_map(1 - self.side) if game.is_ground(int(x))]
        ehex = np.unique(s.hex[enemy]) if enemy else np.array([], int)
        dist = t.grid.distance_table
        for u in sorted(candidates):
            if t.utype[u] in (st.ARTILLERY, st.HQ, st.LEADER, st.AA) or obj[s.hex[u]]:
                continue
            if len(ehex) and dist[s.hex[u], ehex].min() <= 1:
                continue
            legal = game.legal_moves(u, mode)
            dests = [h for h in empty if int(h) in legal]
            if dests:
                best = min(dests, key=lambda h: (legal[int(h)], int(h)))
                return Move(u, int(best))
        return None


def _use_sensible_invasion_defaults(cls) -> None:
    """Give ``cls`` the sensible invasion decisions of
    :class:`malta_sim.bots.invasion.InvasionDecisions` in place of the
    random ones it inherits through :class:`RandomPolicy`."""
    from malta_sim.bots.invasion import InvasionDecisions, RandomInvasionDecisions
    for name, fn in RandomInvasionDecisions.__dict__.items():
        if callable(fn) and not name.startswith("__") and name in InvasionDecisions.__dict__ \
                and name not in cls.__dict__:
            setattr(cls, name, InvasionDecisions.__dict__[name])


_use_sensible_invasion_defaults(_LandBot)


