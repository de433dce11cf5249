"""Review of the fifth round of speed work: the fast paths leave what a user's
bot sees and may do as the plain code left it.

* 19.13 drop zone markers: the bot may change the list of options it is
  handed (e.g. ``options.pop()``); the move is checked against the hexes
  the search found, not against the list after the bot is done with it.
"""

from __future__ import annotations

from malta_sim.games.island_of_death.engine import play_games
from malta_sim.policies import register_policy
from malta_sim.policies.axis import AxisBot


class PopMarkerBot(AxisBot):
    """Moves each drop zone marker to the last option, taken with ``pop()``."""

    name = "t_pop_marker"

    def move_drop_marker(self, game, formation, options):
        return options.pop() if options else None


register_policy("t_pop_marker", f"{__name__}:PopMarkerBot")


def test_drop_marker_options_may_be_changed_by_the_bot():
    """A bot that takes its choice out of the options list moves the marker
    (rule 19.13) and the games play to their end."""
    r = play_games("hercules", 3, range(2), axis_policy="t_pop_marker", allied_policy="static",
                   event_log=True)
    assert len(r.games) == 2
    assert (r.events["action"] == "drop_zone_moved").any()
