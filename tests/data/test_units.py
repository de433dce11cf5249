"""Island of Death counters: the values the rulebook prints are in the data, and
the counter tables are consistent (rules 2.x, 9.9, 10.12, 12.5, 13, 14, 16, 17.3)."""

import numpy as np
import pytest

from malta_sim.loaders import load_iod
from malta_sim.loaders.iod_units import MAX_LEVELS, TYPES, load_units, unit_arrays


@pytest.fixture(scope="module")
def units():
    return load_units()


def labels(units, uid):
    return [lv.label() for lv in units.designs[uid].levels]


BRITISH_BNS = ["8m", "2rwk", "11lf", "4b", "2rif", "1h", "1dli", "1dor", "2dev"]


def test_rule_17_3_british_infantry_steps(units):
    """17.3: a British infantry battalion is 6-6, 4-6 and the 2-6 remnant; morale 4 (9.9)."""
    for b in BRITISH_BNS:
        d = units.designs[f"allied.uk.{b}"]
        assert labels(units, d.id) == ["6-6", "4-6", "2-6"]
        assert [lv.remnant for lv in d.levels] == [False, False, True]
        assert d.steps == 3 and d.morale == 4


def test_rule_13_2_ramcke_reforms_at_4_5_7(units):
    """13.2 example: a German 6-7-7 paratroop battalion with one company lost or reduced
    comes back one level down, at 4-5-7; its companies are its own three (19.21)."""
    for b in ("1_2", "1_3", "2_5"):
        d = units.designs[f"axis.ram.{b}"]
        assert d.levels[0].label() == "6-7-7"
        assert d.level_for("4-5-7") == 2
        comps = units.breakdown[d.id]
        assert [c for c, _ in comps] == [f"axis.ram.{b}.{x}" for x in "abc"]
        for c, _ in comps:
            assert units.designs[c].parent == d.id and "two_sided" in units.designs[c].flags
    assert labels(units, "axis.ram.ram")[0] == "7-8-6"


def test_italian_paratroop_levels_rule_22_25(units):
    """22.35 lists Folgore battalions at 6-7-6; 22.25 has V/186 reduced at 4-5-6."""
    for b in ("v_186", "vi_186", "vii_186", "ii_187", "iv_187", "ix_187"):
        d = units.designs[f"axis.185.{b}"]
        assert labels(units, d.id)[:2] == ["6-7-6", "4-5-6"] and d.morale == 6


def test_rule_9_9_example_values(units):
    """9.9: three 6-7-6 paratroop battalions (morale 6) + the 1-8 tank (morale 4) and two
    5-2 artillery battalions attack 29 against two 6-6 battalions + the 9-3 artillery = 15."""
    att = 3 * units.designs["axis.185.v_186"].levels[0].attack + units.designs["axis.un.tank_10"].levels[0].attack
    att += units.artillery["axis.185.art_1"].offensive + units.artillery["axis.185.art_2"].offensive
    dfn = 2 * units.designs["allied.uk.2rwk"].levels[0].defense + units.artillery["allied.uk.art_12"].defensive
    assert (att, dfn) == (29, 15)
    assert labels(units, "axis.un.tank_10") == ["1-8"] and units.designs["axis.un.tank_10"].morale == 4
    morale = [6, 6, 6, units.designs["axis.un.tank_10"].morale]
    assert -(-sum(morale) // len(morale)) == 6       # 5.5 rounds up (11.1)


def test_rule_10_12_example_artillery(units):
    """10.12: the 185th's 1st and 2nd artillery battalions have offensive support 5 each."""
    assert units.artillery["axis.185.art_1"].offensive == units.artillery["axis.185.art_2"].offensive == 5


def test_artillery_ammunition_and_prep(units):
    """12.54: every Axis artillery unit uses Type 1; 12.53 two salvos; 6.6 airborne prep."""
    for uid, a in units.artillery.items():
        d = units.designs[uid]
        assert a.salvos == 2
        if d.side == "axis":
            assert a.ammo_type == 1
        assert a.airborne_prep == (d.type in ("para_artillery", "glider_artillery"))
        assert d.steps == 1                           # 17.3: artillery battalions have one step


def test_rule_16_79_trieste_three_dice(units):
    """16.79 example: Trieste rolls three dice in all (half its offensive support, up)."""
    assert -(-units.warships["axis.rm.trieste"].offensive // 2) == 3
    assert len(units.warships) == 8


def test_security_engineers_militia_strongpoints(units):
    """16.6: two RN 1-5 companies, five RAF 0-1-5 companies; 16.25: two British engineer
    companies and at least eight strongpoints; 16.31: five militia; 16.24: strongpoint morale 4;
    16.23: 1-0 and 0-0 strongpoints exist."""
    d = units.designs
    rn = [u for u in d.values() if u.type == "rn_security"]
    raf = [u for u in d.values() if u.type == "raf_security"]
    assert len(rn) == 2 and all(labels(units, u.id) == ["1-5"] for u in rn)
    assert len(raf) == 5 and all(labels(units, u.id) == ["0-1-5"] for u in raf)
    assert {u.name for u in raf} >= {"Tak", "Krn"}
    assert sum(1 for u in d.values() if u.type == "engineer" and u.side == "allied") == 2
    sps = [u for u in d.values() if u.type == "strongpoint"]
    assert sum(u.count for u in sps) >= 8 and all(u.morale == 4 for u in sps)
    assert {labels(units, u.id)[0] for u in sps} == {"1-0", "0-0"}
    assert sum(u.count for u in d.values() if u.type == "militia") == 5


def test_movement_classes_rule_2_1(units):
    """2.1: the three tank units are the only mechanized units, the motorcycles the only motorized."""
    d = units.designs.values()
    assert sorted(u.id for u in d if u.move_class == "mech") == ["allied.uk.1_r", "axis.un.tank_10", "axis.un.tank_t"]
    assert all(u.type == "motorcycle" for u in d if u.move_class == "mot")


def test_unassigned_units_rule_2_1(units):
    """2.1: Italian navy companies, the three 10B companies, both Axis tanks and the two commandos are unassigned."""
    un = {u.id for u in units.designs.values() if "unassigned" in u.flags}
    assert un == {f"axis.un.sm_{k}" for k in range(1, 7)} | {"axis.un.mc_10b", "axis.un.tank_10", "axis.un.tank_t",
                                                             "axis.un.ard", "axis.un.lor"}
    assert units.designs["axis.un.mc_10b"].count == 3


def test_breakdown_chart_rule_13(units):
    """13.0: Maltese battalions never break down; commandos break into glider companies;
    British and Italian infantry use generic companies."""
    for b, comps in units.breakdown.items():
        assert units.designs[b].nationality != "mt"
    assert units.breakdown["axis.un.ard"] == [("axis.it.glider_coy", 3)]
    assert units.breakdown["allied.uk.8m"] == [("allied.uk.inf_coy", 3)]
    assert units.breakdown["axis.4.1_33"] == [("axis.it.inf_coy", 3)]
    assert [c for c, _ in units.breakdown["axis.20.ccnn_88"]] == [f"axis.20.ccnn_88.{x}" for x in "abc"]
    # the Hercules garrison's generic company is 2-6 (22.33)
    assert labels(units, "allied.uk.inf_coy") == ["2-6"]


def test_leaders_rule_14(units):
    """14: each leader has a front and an ADC side, foot/mot bonuses and a tactical value 1-6."""
    assert set(units.leaders) == {"allied.ldr.beak", "axis.ram.ldr.ramcke", "axis.185.ldr.frattini",
                                  "axis.4.ldr.chirelson"}
    for v in units.leaders.values():
        assert set(v) == {"leader", "adc"}
        assert 1 <= v["leader"].tactical <= 6


def test_every_row_has_source():
    d = load_iod()
    for uid, u in d.units.designs.items():
        assert u.source.startswith(("rule", "reconstructed"))
        for lv in u.levels:
            assert lv.source.startswith(("rule", "reconstructed"))


def test_unit_arrays_shapes(units):
    """Dense arrays: one row per piece (generic designs expanded), MAX_LEVELS columns."""
    a = unit_arrays(units)
    n = a.n
    assert n == sum(u.count for u in units.designs.values())
    assert a.attack.shape == (n, MAX_LEVELS) and a.attack.dtype == np.int8
    assert a.remnant.shape == (n, MAX_LEVELS) and a.remnant.dtype == bool
    i = a.index["allied.uk.8m"]
    assert list(a.attack[i, :3]) == [6, 4, 2] and a.remnant[i, 2] and not a.remnant[i, 3]
    assert a.steps[i] == 3 and a.n_levels[i] == 3 and a.breakdown_n[i] == 3
    j = a.index["axis.ram.1_2.a"]
    assert a.n_levels[j] == 2 and a.steps[j] == 1 and a.ids[a.parent[j]] == "axis.ram.1_2"
    k = a.index["allied.uk.art_12"]
    assert (a.art_offensive[k], a.art_defensive[k]) == (9, 3) and TYPES[a.type[k]] == "artillery"
    assert "allied.uk.inf_coy.12" in a.index and "allied.uk.inf_coy" not in a.index
    g = a.index["allied.cg.medium.1"]
    assert (a.art_offensive[g], a.art_range[g]) == (2, 6)
