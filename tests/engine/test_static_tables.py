"""Tables derived from the static data are built once per StaticData (static.per_static)."""

import dataclasses

import numpy as np

from malta_sim.iod.rules import movement
from malta_sim.iod import static as st
from malta_sim.iod.setup import load_static


def test_built_once_and_kept_per_static_data():
    calls = []

    @st.per_static
    def land_count(t):
        calls.append(1)
        return int(t.land.sum())

    t = load_static()
    assert land_count(t) == land_count(t) == int(t.land.sum())
    assert len(calls) == 1
    other = dataclasses.replace(t)                   # a copy starts with nothing derived
    assert other.derived == {}
    land_count(other)
    assert len(calls) == 2


def test_a_changed_copy_gets_its_own_tables():
    """dataclasses.replace with new terrain must not reuse the first data's ZOC table (rule 5.0)."""
    t = load_static()
    first = movement.zoc_across(t)
    land = t.land.copy()
    land[:] = False
    changed = dataclasses.replace(t, land=land)
    assert movement.zoc_across(t) is first
    assert not movement.zoc_across(changed).any() and first.any()
    np.testing.assert_array_equal(movement.stack_tables(changed)[0], movement.stack_tables(t)[0])
