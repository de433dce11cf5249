"""The Allied bot's beach play (``beaches``, rules 20.0, 18.32, 2.1): while a
beach zone's Follow-up box holds Axis units, each beach hex of the zone the
Allies control is +1 to every surrender roll, so an empty Axis-held one is
walked into, a lone holder stays, and an attack on an Axis-held one is worth
``w_retake``."""

from __future__ import annotations

import numpy as np

from malta_sim.bots import make_policy
from malta_sim.bots import params as P
from malta_sim.iod import invasion
from malta_sim.iod.rules import victory
from malta_sim.iod.state import BOX_FOLLOW_UP

from tests.conftest import h, make, u


def _north_box_game(placements, control):
    """A constructed position with the invasion on and the Italian tank
    company waiting in the North Follow-up box (22.27)."""
    g = make(placements, control=control)
    g.skip_invasion = False
    inv = invasion.inv_static(g)
    tank = u("axis.un.tank_10")
    g.state.box[tank] = BOX_FOLLOW_UP
    g.state.box_slot[tank] = inv.zone_names.index("North")
    g.phase_name = "allied_movement"
    return g


def test_live_beaches_are_the_zones_with_units_to_land():
    """Rule 20.0: only the zones whose Follow-up box holds Axis units count."""
    g = _north_box_game({"1408": ["allied.uk.2rif"]}, {"1308": 0, "1207": 0})
    bot = make_policy("allied:active", 1)
    inv = invasion.inv_static(g)
    north = inv.zone_beaches[inv.zone_names.index("North")]
    assert sorted(bot.live_beaches(g).tolist()) == sorted(int(x) for x in north)
    g.state.box[u("axis.un.tank_10")] = 9                 # the box empties
    assert len(bot.live_beaches(g)) == 0


def test_unit_retakes_empty_axis_held_beach_hex():
    """Rules 2.1, 20.0: 2RIF next to the empty Axis-held beach hex 1308 moves
    onto it (one hex, the fewest MP), worth +1 to every surrender roll while
    the North box holds Axis units; without ``beaches`` it does not."""
    g = _north_box_game({"1408": ["allied.uk.2rif"], "1711": ["allied.mt.2k"]},
                        {"1308": 0, "1207": 0, "1107": 0})
    cands = [u("allied.uk.2rif"), u("allied.mt.2k")]
    before, _ = victory.surrender_modifier(g)
    mv = make_policy("allied:active", 1).next_move(g, "tactical", cands)
    assert mv is not None and mv.unit == u("allied.uk.2rif") and mv.dest == h("1308")
    g.state.control[h("1308")] = 1                        # the move takes the hex (2.1)
    assert victory.surrender_modifier(g)[0] == before + 1
    off = make_policy("allied:active", 1, {"beaches": 0}).next_move(g, "tactical", cands)
    assert off is None or off.dest not in (h("1308"), h("1207"))


def test_lone_holder_of_a_live_beach_hex_stays():
    """Rule 20.0: 2RIF alone on the Allied-held beach hex 1308 stays instead of
    reinforcing toward the Axis battalion in the south; without ``beaches`` the
    reserve leaves (and the hex falls to the next landing, 18.32)."""
    g = _north_box_game({"1308": ["allied.uk.2rif"], "1613": ["axis.4.1_34"]},
                        {"1207": 0, "1107": 0})
    unit = [u("allied.uk.2rif")]
    assert make_policy("allied:active", 1).next_move(g, "tactical", unit) is None
    mv = make_policy("allied:active", 1, {"beaches": 0}).next_move(g, "tactical", unit)
    assert mv is not None and mv.dest != h("1308")


def test_attack_on_axis_held_live_beach_hex_is_valued_like_an_airfield():
    """Rule 20.0: an Axis-held beach hex of a live zone gets ``w_retake``
    (:meth:`AlliedBot._bonus`), a beach hex of an empty zone none."""
    g = _north_box_game({"1408": ["allied.uk.2rif"], "1308": ["axis.4.1_34"]},
                        {"1308": 0, "1207": 0})
    bot = make_policy("allied:active", 1)
    retake, _hq = bot._bonus(g, [h("1308")])
    assert np.allclose(retake, [bot.vec[P.AL_W_RETAKE]]) and retake[0] > 0
    assert make_policy("allied:active", 1, {"beaches": 0})._bonus(g, [h("1308")])[0][0] == 0
    g.state.box[u("axis.un.tank_10")] = 9                 # nothing left to land there
    assert bot._bonus(g, [h("1308")])[0][0] == 0
