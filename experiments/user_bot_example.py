"""A plain-Python user bot played in the Island of Death engine.

A bot is any object with the decision methods of
:class:`malta_sim.bots.base.Policy` (one method per decision; the engine
lists the legal options, calls the method and validates the answer, raising
``IllegalDecision`` naming the rule when it is not legal).  The easy way is to
subclass a preset bot and override only the decisions you care about; the
rest keep the preset's behaviour.

This example, ``airfield_rush``, is the balanced Axis bot with two changes:

* movement (rules 6.1-6.6): every combat unit heads for the nearest airfield
  not yet held, ignoring the other objectives;
* attacks (rule 9.3 a): any attack on an airfield hex is made once the odds
  reach 1:1, other targets keep the preset's thresholds.

Run it (a few seconds)::

    python experiments/user_bot_example.py --games 6 --scenario hercules

It registers the bot under the name ``airfield_rush`` and plays it against
``allied:static`` and, for comparison, the ``axis:balanced`` preset on the same
seeds (common random numbers), printing Axis wins and mean airfields held.
"""

from __future__ import annotations

import argparse

import numpy as np

from malta_sim.play import play_games
from malta_sim.bots import register_policy
from malta_sim.bots.axis import AxisBot, Forecast
from malta_sim.bots.base import Move


class AirfieldRush(AxisBot):
    """Axis bot that goes for the airfields (see module docstring)."""

    name = "airfield_rush"

    def next_move(self, game, mode, candidates):
        t, s = game.static, game.state
        dist = t.grid.distance_table
        targets = np.flatnonzero(t.airfield & (s.control != self.side))
        if not len(targets):
            return super().next_move(game, mode, candidates)
        for u in sorted(candidates):
            if not game.is_ground(u) or game.is_artillery(u) or s.moved[u]:
                continue
            here = int(s.hex[u])
            legal = game.legal_moves(u, mode)       # hex -> MP spent; only legal hexes
            if not legal:
                continue
            best = min(legal, key=lambda h: (int(dist[h, targets].min()), legal[h], h))
            if dist[best, targets].min() < dist[here, targets].min():
                return Move(u, int(best))
        # nothing gets closer to an airfield: the preset decides for the rest
        return super().next_move(game, mode, candidates)

    def next_attack(self, game, options, penetration=False):
        t = game.static
        for tgt in sorted(options):
            if t.airfield[tgt] and Forecast(game, self.side, tgt, options[tgt]).level() >= 1:
                return tgt, list(options[tgt])
        return super().next_attack(game, options, penetration)


register_policy("airfield_rush", f"{__name__}:AirfieldRush")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenario", default="hercules", choices=["intro", "hercules"])
    a = ap.parse_args(argv)
    for bot in ("airfield_rush", "axis:balanced"):
        r = play_games(a.scenario, a.seed, range(a.games), axis_policy=bot,
                       allied_policy="allied:static").games
        print(f"{bot:15s} Axis wins {int((r.winner == 'axis').sum())}/{len(r)}  "
              f"mean airfields held {r.airfields_axis.mean():.2f}  "
              f"mean Axis steps lost {r.axis_steps_lost.mean():.1f}")


if __name__ == "__main__":
    main()
