"""Solo rules (rule 21).
"""

from __future__ import annotations

from malta_sim.iod import invasion as H

from tests.conftest import hercules_game


def test_rule_21_2_solitaire_zones_differ():
    for i in range(5):
        g = hercules_game(idx=i, options=("solitaire",))
        m = H.memo(g)
        assert m.division_zone[4] != m.division_zone[5]
        assert not m.plans                                                             # 21.1
