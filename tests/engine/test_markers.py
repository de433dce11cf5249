"""Rule 2.3: the printed markers are state fields, not units."""
import numpy as np

from malta_sim.iod import state as st
from malta_sim.play import new_game

#: printed marker -> (state field, scope)
MARKERS = {
    "Air Support": ("air_support_left", "game"),
    "Drop Zone": ("dz_hex", "game"),
    "Disrupted": ("morale_state", "unit"),
    "Demoralized": ("morale_state", "unit"),
    "Out of Ammunition": ("salvos", "unit"),
    "Out of Supply": ("out_of_supply", "unit"),
}


def test_rule_2_3_markers_are_state_fields():
    """Every printed marker maps to a state field; markers are never counters
    (no unit row carries a marker name), so they have no combat, movement or
    morale values (2.3)."""
    for marker, (name, scope) in MARKERS.items():
        f = st.field_info(name)
        assert f.scope == scope, marker
    assert st.DEMORALIZED != st.NORMAL
    g = new_game("intro", 1, 0)
    names = " ".join(g.static.names).lower()
    for marker in MARKERS:
        assert marker.lower() not in names
    s = g.state
    assert s.out_of_supply.dtype == np.bool_ and s.morale_state.shape == s.out_of_supply.shape
