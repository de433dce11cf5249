"""The Allied bot's standing-ground decision (rule 9.7) on constructed
positions: with ``stand_survive`` a stack stands only where its steps outlast
the hits (9.71: standing units take every remaining hit as a step loss)."""

from __future__ import annotations

import pytest

from malta_sim.bots import make_policy
from malta_sim.iod.game import EventLog
from malta_sim.iod.rules import combat
from malta_sim.iod.state import ALLIED, AXIS, BOX_MAP

from tests.conftest import h, make, u

BRIT = "allied.uk.8m"           # 6-6 British battalion, three steps
COY = "allied.uk.inf_coy.1"     # 2-2 British company, one step
COY2 = "allied.uk.inf_coy.2"
CITY = "1711"                   # a victory city (20.0)
AIRFIELD, NEXT = "1515", "1514"  # an airfield (20.0) and a clear hex next to it
INF, INF2, INF3 = "axis.4.1_34", "axis.4.2_34", "axis.4.3_34"


def _asks(pieces, hits, **params):
    bot = make_policy("active", ALLIED, params or None)
    g = make({CITY: pieces, "1712": [INF]}, policies=(make_policy("tuned", AXIS), bot))
    return bot.stand_ground(g, [u(pieces[0])], hits, attacker=False)


@pytest.mark.parametrize("pieces, hits, survive, stands", [
    ([COY], 1, 1, False),          # one step, one hit: the hex is lost either way
    ([COY], 1, 0, True),           # without the knob stand_max_hits alone decides
    ([BRIT], 1, 1, True),          # three steps outlast one hit
    ([COY, BRIT], 1, 1, True),     # the hex's steps count together
    ([BRIT], 2, 1, False),         # stand_max_hits (1 in active) refuses two hexes
])
def test_stand_survive_stands_only_where_a_step_is_left(pieces, hits, survive, stands):
    assert _asks(pieces, hits, stand_survive=survive) is stands


def _two_companies_hit(survive: int):
    """Two British one-step companies on an airfield attacked by three Axis
    battalions at the first roll whose CRT cell gives the defender two hits
    (rule 9.42: one step lost, one hex of retreat for the survivor) and the
    attacker none; returns the game and the surviving company's name."""
    for roll in range(2, 13):
        bot = make_policy("active", ALLIED, {"stand_survive": survive})
        g = make({AIRFIELD: [COY, COY2], NEXT: [INF, INF2, INF3]},
                 policies=(make_policy("tuned", AXIS), bot))
        g.events = EventLog()
        res = combat.resolve_attack(g, AXIS, h(AIRFIELD), [u(x) for x in (INF, INF2, INF3)],
                                    fixed_roll=roll)
        assert not res.cancelled
        if tuple(int(x) for x in res.result[:3]) == (0, 0, 2):
            alive = [n for n in (COY, COY2) if g.state.box[u(n)] == BOX_MAP]
            assert len(alive) == 1, roll
            return g, alive[0]
    raise AssertionError("no roll gives the defender two hits and the attacker none")


def test_the_last_one_step_company_retreats_instead_of_standing_to_die():
    """Played through the engine: the company left after the step loss must
    retreat one hex from an airfield, a hex the bot stands in.  With
    ``stand_survive`` it does not try to stand (no 9.71 die) and leaves the
    airfield alive; without it the bot tries (stand_max_hits 1), which can
    only end with the company dead or retreating."""
    g, survivor = _two_companies_hit(1)
    assert not [r for r in g.events.rows if r.get("action") == "stand ground"]
    assert g.state.box[u(survivor)] == BOX_MAP
    assert g.static.grid.hex_id(int(g.state.hex[u(survivor)])) != AIRFIELD
    g, _ = _two_companies_hit(0)
    assert [r for r in g.events.rows if r.get("action") == "stand ground"]
