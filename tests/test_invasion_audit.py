"""Regression tests for two findings of the Operation Hercules audit
(experiments/audit_hercules.py): the default First Wave filling covers every
open beach hex of a zone (rule 20.0 beach term, 18.31), and one-step
companies turned to their reduced side by airborne losses fight with their
reduced values (19.46, 17.83)."""

from __future__ import annotations

import numpy as np

from malta_sim.iod import sequence
from malta_sim.iod.rules import amphibious
from malta_sim.iod.rules import amphibious as ld
from malta_sim.iod.state import BOX_FIRST_WAVE, BOX_MAP
from malta_sim import play


def _hercules_after_setup(g: int = 0):
    return play.new_game("hercules", 1942, g, axis_policy="balanced", allied_policy="static")


def test_default_first_wave_covers_every_open_beach():
    """Rules 18.31/18.32 with 20.0: the default filling puts at least one
    company in the First Wave box of each open beach hex of an occupied zone
    while First-Wave companies remain (deterministic: no dice involved)."""
    for g in range(3):
        game = _hercules_after_setup(g)
        sequence.initial_segment(game)
        amphibious._follow_up_breakdowns(game)
        opts = amphibious.wave_options(game)
        assign = game.policy(0).wave_boxes(game, opts)
        amphibious.validate_waves(game, opts, assign)
        for z, units in opts.zones.items():
            n_first = sum(1 for u in units if amphibious._kind(game, u) in ld.FIRST_WAVE_KINDS)
            covered = [b for b in opts.first[z] if assign.get((BOX_FIRST_WAVE, b))]
            assert len(covered) == min(len(opts.first[z]), n_first)


def test_airborne_loss_turns_two_sided_company_to_its_reduced_values(monkeypatch):
    """Rule 19.46 / 17.83: with every airborne-loss roll failing, the
    paratroop and para-engineer companies that land are reduced, not
    eliminated, and then show the values of their second strength level."""
    from malta_sim.kernels import drop as kd

    monkeypatch.setattr(kd, "airborne_loss_roll", lambda rs, enemy, aa, rough: (True, 6))
    game = _hercules_after_setup(0)
    t, s = game.static, game.state
    sequence.initial_segment(game)
    sequence.axis_status(game)
    sequence.amphibious_landing(game)
    sequence.airborne_landing(game)
    landed = [int(u) for u in np.flatnonzero((s.box == BOX_MAP) & t.two_sided & (s.entered_turn == game.turn))]
    assert landed, "some two-sided companies jumped on the first turn"
    engineers = [u for u in landed if t.engineer[u]]
    assert engineers, "the HQ sticks' para engineers are two-sided and survive as reduced"
    for u in landed:
        assert s.reduced[u]
        assert s.level[u] == 1
        assert game.base_attack(u) == int(t.attack[u, 1])
        assert game.base_defense(u) == int(t.defense[u, 1])
