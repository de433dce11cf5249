"""Solo rules (rule 21).
"""

from __future__ import annotations

from malta_sim.iod.rules import airborne

from tests.conftest import hercules_game


def test_rule_21_2_solitaire_zones_differ():
    for i in range(5):
        g = hercules_game(idx=i, options=("solitaire",))
        zone = g.state.division_zone[0]
        assert zone[4] >= 0 and zone[5] >= 0 and zone[4] != zone[5]
        assert not airborne.jump_plans(g)                                                             # 21.1
