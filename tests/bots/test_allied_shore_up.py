"""The Allied bot's ``shore_up`` (rules 9.1, 20.0): a held airfield or victory
city with Axis ground units next to it, thinly held, gets a reserve unit before
the reserve closes on weak Axis stacks."""

from __future__ import annotations

from malta_sim.bots import make_policy

from tests.conftest import h, make, u


def _position(extra=None):
    """Luqa airfield (1515) held by one British company with an Italian
    battalion next to it (1614); 2RIF and 2K of the reserve behind."""
    placements = {"1515": ["allied.uk.inf_coy.1"], "1614": ["axis.4.1_34"],
                  "1412": ["allied.uk.2rif"], "1711": ["allied.mt.2k"]}
    placements.update(extra or {})
    g = make(placements)
    g.phase_name = "allied_movement"
    return g


CANDS = ("allied.uk.2rif", "allied.mt.2k", "allied.uk.inf_coy.1")


def test_reserve_moves_into_threatened_airfield():
    """Rules 9.1, 20.0: 2RIF (reserve) moves onto the airfield 1515, held by
    2 defense points with an Axis battalion next to it, instead of closing
    on that battalion in the open (1514) as it does without ``shore_up``."""
    g = _position()
    cands = [u(n) for n in CANDS]
    bot = make_policy("allied:active", 1)
    assert u("allied.uk.2rif") in bot.reserve_units(g)
    mv = bot.next_move(g, "tactical", cands)
    assert mv is not None and mv.unit == u("allied.uk.2rif") and mv.dest == h("1515")
    off = make_policy("allied:active", 1, {"shore_up": 0}).next_move(g, "tactical", cands)
    assert off is not None and off.dest != h("1515")


def test_well_held_airfield_is_not_shored_up():
    """An airfield already holding ``shore_up`` defense strength gets no one."""
    g = _position({"1515": ["allied.uk.inf_coy.1", "allied.uk.4b", "allied.uk.1dli"]})
    cands = [u(n) for n in CANDS]
    mv = make_policy("allied:active", 1).next_move(g, "tactical", cands)
    assert mv is None or mv.dest != h("1515")


def test_lone_holder_of_an_objective_does_not_leave_it():
    """The 1/R tank alone on Takali airfield (1211) is not sent to the
    threatened airfield 1515 (that would trade one airfield for another,
    20.0); with 4B beside it on Takali it goes."""
    cands = [u("allied.uk.1_r")]
    params = {"reserve_fraction": 1.0, "weak_stack": 0}
    g = make({"1515": ["allied.uk.inf_coy.1"], "1614": ["axis.4.1_34"],
              "1211": ["allied.uk.1_r"]})
    g.phase_name = "allied_movement"
    mv = make_policy("allied:active", 1, params).next_move(g, "tactical", cands)
    assert mv is None or mv.dest != h("1515")
    g = make({"1515": ["allied.uk.inf_coy.1"], "1614": ["axis.4.1_34"],
              "1211": ["allied.uk.1_r", "allied.uk.4b"]})
    g.phase_name = "allied_movement"
    mv = make_policy("allied:active", 1, params).next_move(g, "tactical", cands)
    assert mv is not None and mv.dest == h("1515")
