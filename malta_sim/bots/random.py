"""Random-legal policy for both sides: the conformance baseline.

Every decision is drawn uniformly (or with a fixed simple probability) from the
legal options the engine offers, using the policy's own random stream, so a
game is reproducible from (seed, game index).
"""

from __future__ import annotations

from malta_sim.bots.base import CombatPlan, Move, Policy
from malta_sim.bots.invasion import RandomInvasionDecisions


class RandomPolicy(RandomInvasionDecisions, Policy):
    """Uniformly random legal decisions.

    Parameters (``params``)
    -----------------------
    p_move : float
        Probability a candidate unit is moved when offered (default 0.6).
    p_attack : float
        Probability of making another attack when one is possible (0.7).
    """

    name = "random"
    #: Names this bot reads from ``params`` (probabilities, 0..1); any other name
    #: is refused by :func:`malta_sim.bots.make_policy`.
    param_names = ("p_move", "p_attack")

    def _p(self, key, default):
        return float(self.params.get(key, default))

    def _pick(self, game, seq):
        seq = list(seq)
        return seq[int(self.rng(game).integers(len(seq)))]

    def _no_mix(self, game, pick, max_ships):
        """Warships and artillery never fire at one hex together (10.13, 16.74);
        at most ``max_ships`` warships."""
        ships = [u for u in pick if game.static.utype[u] == 17]   # WARSHIP
        if ships and len(ships) != len(pick):
            pick = ships if self._coin(game, 0.5) else [u for u in pick if u not in ships]
            ships = [u for u in pick if game.static.utype[u] == 17]
        if len(ships) > max_ships:
            pick = ships[:max_ships]
        return pick

    def _coin(self, game, p):
        return bool(self.rng(game).random() < p)

    # Initial Segment
    def attachments(self, game, options):
        out = {}
        for u, forms in options.items():
            if forms and self._coin(game, 0.1):
                out[u] = self._pick(game, forms)
        return out

    def replacements(self, game, eligible, n, kind):
        el = list(eligible)
        self.rng(game).shuffle(el)
        return el[:n]

    def absorb(self, game, pairs):
        used, out = set(), []
        for a, b in pairs:
            if a not in used and b not in used and self._coin(game, 0.5):
                out.append((a, b))
                used.update((a, b))
        return out

    def leader_hex(self, game, options):
        return self._pick(game, options)

    # Status
    def distribute_ammo(self, game, eligible, stockpile):
        out = {}
        left = stockpile
        for u in eligible:
            need = 2 - int(game.state.salvos[u])
            if left >= 0:
                need = min(need, left)
            k = int(self.rng(game).integers(0, need + 1)) if need > 0 else 0
            if k:
                out[u] = k
                if left >= 0:
                    left -= k
        return out

    # Movement
    def breakdowns(self, game, eligible):
        return [u for u in eligible if self._coin(game, 0.05)]

    def next_move(self, game, mode, candidates):
        cands = list(candidates)
        rng = self.rng(game)           # the draws below are those of _coin / _pick, in order
        p_move = self._p("p_move", 0.6)
        hitched = game.state.hitched
        while cands:
            u = cands.pop(int(rng.integers(len(cands))))
            if not rng.random() < p_move:
                continue
            art = game.is_artillery(u)
            hitch = False
            if art and not hitched[u]:
                if not rng.random() < 0.5:
                    continue
                hitch = True
            legal = game.legal_moves(u, mode, hitch=hitch)
            if not legal:
                if hitch:
                    return Move(u, int(game.state.hex[u]), hitch=True)
                continue
            seq = sorted(legal)
            dest = seq[int(rng.integers(len(seq)))]
            prepare = False
            if art and game.can_prepare_after(u, legal.get(dest, 0), hitch, dest):
                prepare = bool(rng.random() < 0.5)
            return Move(u, int(dest), hitch=hitch, prepare=prepare)
        return None

    def next_infiltration(self, game, options):
        if not options or not self._coin(game, 0.3):
            return None
        u = self._pick(game, sorted(options))
        return (u, self._pick(game, options[u]))

    def reforms(self, game, options):
        return [o for o in options if self._coin(game, 0.7)]

    # Combat
    def combat_plan(self, game, options):
        plan = CombatPlan()
        used = set()
        for tgt, units in sorted(options.bombard.items()):
            free = [u for u in units if u not in used]
            if free and self._coin(game, 0.3):
                pick = self._no_mix(game, [u for u in free if self._coin(game, 0.7)], 99)
                if pick:
                    plan.bombard[tgt] = pick
                    used.update(pick)
        for tgt, units in sorted(options.support.items()):
            if tgt in plan.bombard:
                continue
            free = [u for u in units if u not in used]
            if free and self._coin(game, 0.5):
                pick = self._no_mix(game, [u for u in free if self._coin(game, 0.5)], 3)
                if pick:
                    plan.support[tgt] = pick
                    used.update(pick)
        left = options.air_markers
        for tgt in sorted(options.support):
            if left > 0 and self._coin(game, 0.5):
                plan.air[tgt] = 1
                left -= 1
        for u in used:
            if u in options.hurricane_ok and self._coin(game, 0.1):
                plan.hurricane.add(u)
        return plan

    def defensive_support(self, game, options):
        out, used = {}, set()
        for h, units in sorted(options.items()):
            free = [u for u in units if u not in used]
            if free and self._coin(game, 0.5):
                pick = [u for u in free if self._coin(game, 0.5)]
                pick = self._no_mix(game, pick, 2)
                if pick:
                    out[h] = pick
                    used.update(pick)
        return out

    def next_attack(self, game, options, penetration=False):
        if not options or not self._coin(game, self._p("p_attack", 0.7)):
            return None
        tgt = self._pick(game, sorted(options))
        if penetration:
            # 10.32: the attempt needs a unit with or next to its leader; take them all
            return (tgt, list(options[tgt]))
        units = [u for u in options[tgt] if self._coin(game, 0.7)]
        if not units:
            units = [self._pick(game, options[tgt])]
        return (tgt, units)

    def penetration_air(self, game, target, available):
        return int(self.rng(game).integers(0, available + 1)) if available > 0 else 0

    def choose_loss(self, game, units, reason):
        return self._pick(game, units)

    def stand_ground(self, game, units, hits, attacker):
        return self._coin(game, 0.3)

    def choose_retreat(self, game, units, options):
        return self._pick(game, options)

    def choose_advance(self, game, units, target, length):
        from malta_sim.iod.rules.organisation import fits_stacking
        out = []
        for u in units:
            if self._coin(game, 0.6) and fits_stacking(game, out + [u], target):
                out.append(u)     # 9.83: never beyond the stacking limit
        return out

    def advance_further(self, game, units, options):
        if options and self._coin(game, 0.4):
            return self._pick(game, options)
        return None

    def stacking_eliminate(self, game, units):
        return self._pick(game, units)
