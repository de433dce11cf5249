"""Reproducer (run: PYTHONPATH=.:experiments python experiments/repro_legal_moves_dict.py).

execute_move validates a Move against the very dict legal_moves returned to
the bot (game.extra["last_legal"]); a bot that edits that dict (here: adds a
far hex) gets an illegal move accepted.  Pre-existing (6b6cbfa has it too)."""
import numpy as np
from malta_sim.errors import MaltaSimError
from malta_sim.games.island_of_death.engine import new_game
from malta_sim.games.island_of_death import sequence
from malta_sim.policies import register_policy
from malta_sim.policies.axis import AxisBot
from malta_sim.policies.base import Move

HITS = []

class Cheat(AxisBot):
    name = "cheat"
    def next_move(self, game, mode, candidates):
        t, s = game.static, game.state
        for u in sorted(candidates):
            if not game.is_ground(u) or game.is_artillery(u) or s.moved[u]:
                continue
            legal = game.legal_moves(u, mode)
            if not legal:
                continue
            here = int(s.hex[u])
            far = [h for h in np.flatnonzero(t.land) if t.grid.distance_table[here, h] >= 12 and h not in legal]
            if far:
                h = int(far[0])
                legal[h] = 0.0                     # the bot edits the dict it was given
                HITS.append((u, here, h))
                return Move(u, h)
        return super().next_move(game, mode, candidates)

register_policy("cheat", "repro_legal_moves_dict:Cheat")

if __name__ == "__main__":
    game = new_game("hercules", 1, 0, axis_policy="cheat", allied_policy="static")
    try:
        sequence.play_game(game)
        import repro_legal_moves_dict as m
        print("illegal moves accepted:", len(m.HITS), "e.g. (unit, from, to)", m.HITS[:2])
    except MaltaSimError as e:
        print("rejected:", type(e).__name__, e)
