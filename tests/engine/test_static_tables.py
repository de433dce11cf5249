"""Tables derived from the static data are built once per StaticData (static.per_static)
and equal the masks and arrays they are made from (invasion tables, one-hex move tables,
per-side unit lists, neighbourhoods)."""

from __future__ import annotations

import dataclasses

import numpy as np

from malta_sim.iod import invasion as H, static as st
from malta_sim.iod.rules import movement
from malta_sim.iod.static import load_static
from malta_sim.iod.state import ALLIED
from malta_sim.play import new_game


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


def test_static_tables_are_declared_and_built_once():
    """The invasion tables, the one-hex move tables and the warship list are
    per-static-data properties (built once, equal to their arrays)."""
    g = new_game("hercules", 1, 0, axis_policy="balanced", allied_policy="static")
    t = g.static
    inv = H.inv_static(g)
    assert inv is t.invasion is H.inv_static(g)
    assert t.one_hex_tables is t.one_hex_tables
    land, ocean_side, road, rise, move_cost, leader, move_class, harmless = t.one_hex_tables
    assert land == t.land.tolist() and ocean_side == t.ocean_side.tolist()
    assert road == t.road.tolist() and rise == t.rise.tolist() and move_cost == t.move_cost.tolist()
    assert leader == (t.utype == st.LEADER).tolist() and move_class == t.move_class.tolist()
    assert harmless == ((t.utype == st.LEADER) | (t.utype == st.COASTAL_GUN)).tolist()
    np.testing.assert_array_equal(t.warship_units, np.flatnonzero(t.utype == st.WARSHIP))
    np.testing.assert_array_equal(t.side_units[0], np.flatnonzero(t.side == 0))
    np.testing.assert_array_equal(t.side_units[1], np.flatnonzero(t.side == 1))
    np.testing.assert_array_equal(t.allied_aa_units, np.flatnonzero((t.side == 1) & t.aa))
    near = inv.near_padded
    n_h = t.n_hexes
    assert near.shape == (n_h + 1, 7) and (near[n_h] == n_h).all()
    for h in range(0, n_h, 5):
        row = near[h].tolist()
        assert row[:len(inv.near_lists[h])] == inv.near_lists[h]
        assert all(x == n_h for x in row[len(inv.near_lists[h]):])
    for name in ("_one_hex_tables", "_warship_units"):
        assert name not in vars(t)


def test_invasion_unit_tables_equal_masks():
    """The per-unit index tables of the invasion phases equal the masks they
    replace (Allied guns with dice 16.5, stragglers 17.83, Follow-up
    battalions 18.31, stick listing 19.21)."""
    g = new_game("hercules", 1, 0, axis_policy="balanced", allied_policy="static")
    t, inv = g.static, H.inv_static(g)
    np.testing.assert_array_equal(inv.allied_firing_guns, np.flatnonzero(
        (t.side == ALLIED) & (t.utype == st.COASTAL_GUN) & (inv.gun_value > 0)))
    np.testing.assert_array_equal(inv.straggler_pieces, np.flatnonzero(
        (t.side == 0) & t.two_sided & (t.size == st.COMPANY)))
    np.testing.assert_array_equal(inv.follow_up_battalions, np.flatnonzero(
        (t.side == 0) & (t.size == st.BATTALION) & (t.utype != st.ARTILLERY)))
    for f in range(-1, t.n_formations + 1):
        want = np.flatnonzero((t.side == 0) & (t.printed_formation == f))
        got = inv.axis_by_formation.get(f)
        if want.size:
            np.testing.assert_array_equal(got, want)
        else:
            assert got is None
    assert inv.unit_lists == (t.utype.tolist(), t.size.tolist(), t.battalion_of.tolist())


def test_invasion_static_neighbourhood_tables():
    """The per-hex tables used by the entry effects (16.22, 16.32) list a hex and
    its on-map neighbours in direction order, and the town/city ones among them."""
    from malta_sim.iod import invasion as H

    g = new_game("intro", 1, 0, axis_policy="balanced", allied_policy="static")
    t, inv = g.static, H.inv_static(g)
    for h in range(t.n_hexes):
        want = [h] + [int(x) for x in t.neighbours[h] if x >= 0]
        assert inv.near_lists[h] == want
        assert inv.near_sets[h] == set(want)
        assert inv.urban_near[h] == [x for x in want if t.town[x] or t.city[x]]
