"""The packaged Island of Death map honours every hex the rulebook names, and its
arrays are consistent (hexside symmetry, costs, ZOC, boxes, all-ocean hexsides marked from both sides)."""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.hexgrid import distance, IOD_GRID, neighbour
from malta_sim.loaders.iod_map import (FOOT, load_map, MECH, MOT, SIDE_OCEAN, SIDE_RISE, SIDE_ROAD,
                                       ZONES)

from tests.conftest import static

SCENARIO_HEXES = sorted(set(
    # rule 22.24 (Introductory, Allied)
    "1309 1311 1312 1314 1315 1316 1408 1409 1412 1413 1414".split()
    # rule 22.25 (Introductory, Axis)
    + "0708 0809 0812 0909 1009 1011 1012 1013 1107 1110 1111".split()
    # rule 22.33 (Operation Hercules, Allied)
    + "0809 1011 1111 1208 1211 1311 1515 1609 1611 1612 1613".split()
))


@pytest.fixture(scope="module")
def m():
    return load_map()


def test_rule_20_0_victory_cities(m):
    """Rule 20.0: 1711, 1809, 1810, 1911 are city hexes, and the only ones."""
    assert m.cities == ("1711", "1809", "1810", "1911")


def test_rule_10_12_musta_town_and_adjacency(m):
    """Rule 10.12 example: Musta 1210 is a town; 1310 touches it, 1309 is two hexes away."""
    assert m.town[m.index("1210")]
    assert m.artillery_halved[m.index("1210")]  # a town halves the bombardment (rule 10.12)
    assert distance("1210", "1310") == 1
    assert distance("1210", "1309") == 2
    assert m.grid.distance_table[m.index("1210"), m.index("1310")] == 1
    assert m.grid.distance_table[m.index("1210"), m.index("1309")] == 2


def test_rule_22_23_forts_and_north_beaches(m):
    """Rule 22.23: forts 1110 and 1111; 1107, 1207, 1308 are North-zone beaches;
    the whole West zone lies in columns 05-11."""
    assert m.fort[m.index("1110")] and m.fort[m.index("1111")]
    assert {"1107", "1207", "1308"} <= set(m.beach_hexes("North"))
    assert all(5 <= int(h[:2]) <= 11 for h in m.beach_hexes("West"))


def test_rule_22_29_five_towns_in_the_axis_area(m):
    """Rule 22.29 with 22.23: the Introductory Axis area (land of columns 05-11,
    1207-1211, 1308) holds exactly five towns; no land west of column 05."""
    area = [h for h in IOD_GRID.hex_ids if m.land[m.index(h)]
            and (5 <= int(h[:2]) <= 11 or h in {"1207", "1208", "1209", "1210", "1211", "1308"})]
    assert sum(bool(m.town[m.index(h)]) for h in area) == 5
    assert not any(m.city[m.index(h)] for h in area)
    assert not any(m.land[m.index(h)] for h in IOD_GRID.hex_ids if int(h[:2]) < 5)
    # the only forts there are the two destroyed ones (rule 22.29 counts two destroyed)
    assert sorted(h for h in area if m.fort[m.index(h)]) == ["1110", "1111"]


def test_rule_22_33_airfields_five_one_raf_company_each(m):
    """Rules 22.33, 22.39: Takali 1211 and Krendi 1515 are airfields; five airfield
    hexes for the five RAF companies, one per hex."""
    assert m.airfield_codes["1211"] == "Tak"
    assert m.airfield_codes["1515"] == "Krn"
    assert len(m.airfields) == 5
    assert sorted(m.airfield_codes) == list(m.airfields)
    assert len(set(m.airfield_codes.values())) == 5


def test_rule_21_11_drop_hexes_inland(m):
    """Rule 21.11: the solitaire drop-zone hexes are land, not beach or coastal."""
    for h in ("0911", "1313", "1512", "1813", "2012"):
        i = m.index(h)
        assert m.land[i] and not m.beach[i] and not m.coastal[i], h


def test_rule_16_51_coastal_gun_hex_not_beach(m):
    """Rule 16.51 with 22.24: 1316 holds coastal guns, so it is land and not a beach."""
    i = m.index("1316")
    assert m.land[i] and not m.beach[i]


def test_rule_12_56_ammunition_points_are_land(m):
    """Rule 12.56: Allied ammunition at 1711 and 1715 (land hexes)."""
    assert m.ammo_points == ("1711", "1715")
    assert all(m.land[m.index(h)] for h in m.ammo_points)


def test_rule_12_54_ports(m):
    """Rule 12.54: a Main Port and Minor Ports exist, on land by the water."""
    assert len(m.main_ports) >= 1 and len(m.minor_ports) >= 1
    for h in m.main_ports + m.minor_ports:
        i = m.index(h)
        assert m.land[i]
        assert any(j >= 0 and m.ocean[j] for j in m.neighbours[i]) or (m.hexside[i] & SIDE_OCEAN).any()


@pytest.mark.parametrize("h", SCENARIO_HEXES)
def test_scenario_hexes_are_land(m, h):
    """Rules 22.24, 22.25, 22.33: every set-up hex is land."""
    assert m.land[m.index(h)]


def test_rule_18_1_beach_zones_and_boxes(m):
    """Rule 18.1 (and the published map): 22 beach hexes in four zones, each beach
    hex connected to one First and one Second Wave box of its own zone; one
    Follow-up box per zone."""
    assert len(m.beaches) == 22
    assert len(m.follow_up_boxes) == 4 and len(set(m.follow_up_boxes)) == 4
    for z in ZONES:
        hexes = m.beach_hexes(z)
        assert hexes, z
        for wave in ("first", "second"):
            boxes = m.boxes_for(z, wave)
            assert sorted(h for _, h in boxes) == sorted(hexes)
    for k in range(len(m.box_ids)):
        i = int(m.box_beach[k])
        assert m.beach[i] and m.beach_zone[i] == m.box_zone[k]
    # every beach hex touches the sea
    for h in m.beaches:
        i = m.index(h)
        assert any(j < 0 or m.ocean[j] for j in m.neighbours[i]) or (m.hexside[i] & SIDE_OCEAN).any()


def test_hexside_symmetry(m):
    """Every hexside feature is the same seen from both sides."""
    nb = m.neighbours
    for i in range(m.n_hexes):
        for d in range(6):
            j = nb[i, d]
            if j < 0:
                assert m.hexside[i, d] == 0
                continue
            assert m.hexside[i, d] == m.hexside[j, (d + 3) % 6]
            assert m.zoc_across[i, d].tolist() == m.zoc_across[j, (d + 3) % 6].tolist()
            assert m.supply_across[i, d] == m.supply_across[j, (d + 3) % 6]


def test_island_connected_on_foot(m):
    """Every land hex can be reached on foot from Takali (no stranded hexes)."""
    import networkx as nx

    g = nx.Graph()
    for i in np.flatnonzero(m.land):
        g.add_node(int(i))
        for d in range(6):
            if np.isfinite(m.edge_cost[i, d, FOOT]):
                g.add_edge(int(i), int(m.neighbours[i, d]))
    assert nx.is_connected(g)


def test_rule_6_11_costs(m):
    """Rule 6.11: road sides cost the road; town/city hexes cost the town/city;
    ocean is prohibited; creek with rise stops vehicles unless a road crosses."""
    road = m.side_cost[0]
    for i, d in zip(*np.nonzero(m.side_road)):
        assert m.edge_cost[i, d].tolist() == road.tolist()
    for i in np.flatnonzero(m.town | m.city):
        assert m.hex_cost[i].tolist() == m.tec_cost[2 if m.town[i] and not m.city[i] else 3].tolist()
    assert np.isinf(m.hex_cost[m.ocean]).all()
    rise = (m.hexside & SIDE_RISE) != 0
    norise = rise & ((m.hexside & SIDE_ROAD) == 0)
    assert norise.any()
    assert np.isinf(m.edge_cost[norise][:, MOT]).all() and np.isinf(m.edge_cost[norise][:, MECH]).all()
    assert np.isfinite(m.edge_cost[norise][:, FOOT]).all()
    # rule 5.0: ZOC of vehicles does not cross a creek with rise, foot ZOC does
    assert m.zoc_across[norise][:, 0].all() and not m.zoc_across[norise][:, 1].any()
    # rule 6.2: strategic costs never exceed normal ones
    fin = np.isfinite(m.edge_cost)
    assert (m.edge_cost_strategic[fin] <= m.edge_cost[fin]).all()


def test_rule_5_0_and_8_2_ocean_sides(m):
    """Rules 5.0, 8.2: no ZOC and no supply route across an all-ocean hexside."""
    sea = (m.hexside & SIDE_OCEAN) != 0
    assert sea.any()
    assert not m.zoc_across[sea].any()
    assert not m.supply_across[sea].any()
    assert np.isinf(m.edge_cost[sea]).all()


def test_combat_terrain_effects(m):
    """Rules 9.3f, 9.91, 9.94, 10.12, 16.54, 19.46 through the TEC arrays."""
    fort = m.index("1110")
    city = m.index("1809")
    clear_hex = m.index("1313")
    assert m.crt_line_names[m.crt_line[fort]] == "city_fort"
    assert m.crt_line_names[m.crt_line[city]] == "city_fort"
    assert m.crt_line_names[m.crt_line[m.index("1210")]] == "woods_town"
    assert m.crt_line_names[m.crt_line[clear_hex]] == "all_other_terrains"
    assert m.defense_doubled[fort] and m.defense_doubled[city] and not m.defense_doubled[clear_hex]
    assert m.defender_hits_minus[fort] == 1 and m.defender_hits_minus[city] == 0
    assert m.bombard_shift[fort] == -1 and m.bombard_shift[clear_hex] == 0
    assert m.artillery_halved[city] and not m.artillery_halved[fort]
    assert m.blocks_line_of_fire[fort] and m.blocks_line_of_fire[city] and not m.blocks_line_of_fire[clear_hex]
    assert m.drop_loss_drm[fort] == 1 and m.drop_loss_drm[clear_hex] == 0
    assert (m.side_blocks_line_of_fire == m.side_rise).all()
    assert (m.crt_line[m.ocean] == -1).all()


def test_distance_vectors():
    """Hex distances the rules use (rule 10.12 example and the grid)."""
    assert distance("1210", "1310") == 1
    assert distance("1210", "1309") == 2
    assert neighbour("1210", 0) == "1209"
    assert distance("1107", "1308") == 2
    assert distance("0911", "2012") == 11


def test_ocean_hexsides_are_the_same_from_both_hexes():
    """The 12.56 route test searches from the hand-out hexes back to the
    pieces (:func:`.ammo_routes.ammo_route_ok`): that gives the pieces'
    own searches because every all-ocean hexside (8.2) is marked in both
    hexes it separates."""
    t = static()
    nbr = t.neighbours
    for i in range(t.n_hexes):
        for d in range(6):
            j = int(nbr[i, d])
            if j >= 0:
                assert t.ocean_side[i, d] == t.ocean_side[j, (d + 3) % 6]
