"""Island of Death scenarios (rule 22): the printed set-up is used exactly, the
reconstructed completion is consistent with what the rules fix."""

from collections import Counter

import pytest

from malta_sim.loaders import load_iod
from malta_sim.loaders.iod_scenarios import date_to_day, day_to_date


@pytest.fixture(scope="module")
def data():
    return load_iod()


def on_hex(data, scen, side):
    """hex -> Counter of (design id, printed strength label)."""
    s = data.scenarios[scen]
    out = {}
    for p in s.setup:
        if p.side != side:
            continue
        d = data.units.design_of(p.piece)
        out.setdefault(p.hex, Counter())[(d.id, d.levels[p.level - 1].label())] += 1
    return out


#: Rule 22.24 as printed (hexes 1309-1413; the 1414 row is cut in our copy).
INTRO_ALLIED = {
    "1309": {("allied.mt.1k", "2-6"): 1, ("allied.sp.a", "1-0"): 1},
    "1311": {("allied.uk.8m", "4-6"): 1, ("allied.uk.2rwk", "6-6"): 1, ("allied.uk.a_1c", "1-3-5"): 1,
             ("allied.uk.c_1c", "1-3-5"): 1, ("allied.ldr.beak", "0-14"): 1},
    "1312": {("allied.uk.11lf", "6-6"): 1, ("allied.uk.b_1c", "1-3-5"): 1, ("allied.uk.d_1c", "1-3-5"): 1},
    "1314": {("allied.uk.4b", "6-6"): 1},
    "1315": {("allied.mt.8k", "5-6"): 1},
    "1316": {("allied.cg.medium", "0-0"): 1, ("allied.cg.light", "0-0"): 1},
    "1408": {("allied.uk.2rif", "6-6"): 1},
    "1409": {("allied.uk.1h", "6-6"): 1, ("allied.mt.10k", "4-6"): 1, ("allied.uk.1_r", "2-8"): 1},
    "1412": {("allied.uk.aa_65", "0-2-3"): 1},
    "1413": {("allied.uk.1dli", "6-6"): 1},
}
#: Rule 22.25 as printed (hexes 0708-1110).
INTRO_AXIS = {
    "0708": {("axis.20.3_88", "4-5-6"): 1},
    "0809": {("axis.20.hq", "0-2-6"): 1},
    "0812": {("axis.20.eng_20.1", "1-6"): 1},
    "0909": {("axis.4.2_34", "6-6"): 1},
    "1009": {("axis.4.3_34", "6-6"): 1},
    "1011": {("axis.un.sm_1", "2-5"): 1, ("axis.20.1_88", "4-5-6"): 1},
    "1012": {("axis.185.v_186", "4-5-6"): 1},
    "1013": {("axis.20.eng_20.2", "1-6"): 1},
    "1107": {("axis.4.hq", "0-2-6"): 1, ("axis.4.art_28", "0-1-3"): 1, ("axis.4.ldr.chirelson", "0-14"): 1},
    "1110": {("axis.4.1_34", "6-6"): 1},
}
#: Rule 22.33 as printed (hexes 0809-1612; the 1613 row is cut).
HERCULES_ALLIED = {
    "0809": {("allied.mt.2k", "6-6"): 1},
    "1011": {("allied.uk.inf_coy", "2-6"): 2},
    "1111": {("allied.uk.inf_coy", "2-6"): 1, ("allied.mt.aa_3", "0-2-3"): 1},
    "1208": {("allied.mt.1k", "6-6"): 1},
    "1211": {("allied.raf.tak", "0-1-5"): 1, ("allied.uk.aa_32", "0-2-3"): 1},
    "1311": {("allied.uk.8m", "6-6"): 1},
    "1515": {("allied.mt.8k", "5-6"): 1, ("allied.raf.krn", "0-1-5"): 1},
    "1609": {("allied.uk.2rif", "6-6"): 1},
    "1611": {(f"allied.uk.{c}_1c", "1-3-5"): 1 for c in "abcd"},
    "1612": {("allied.uk.2rwk", "6-6"): 1, ("allied.uk.1_r", "2-8"): 1, ("allied.uk.art_12", "0-2-3"): 1,
             ("allied.hq.malta", "0-2-6"): 1, ("allied.ldr.beak", "0-14"): 1},
}


def test_rule_22_24_printed_allied_setup(data):
    got = on_hex(data, "intro", "allied")
    for h, want in INTRO_ALLIED.items():
        assert dict(got[h]) == want, h
    assert all(h >= "1414" for h in got if h not in INTRO_ALLIED)     # the rest is the cut part


def test_rule_22_25_printed_axis_setup(data):
    got = on_hex(data, "intro", "axis")
    for h, want in INTRO_AXIS.items():
        assert dict(got[h]) == want, h
    assert all(h >= "1111" for h in got if h not in INTRO_AXIS)
    s = data.scenarios["intro"]
    assert s.markers["drop_zone.folgore"] == "1011"
    assert set(s.markers) == {"drop_zone.folgore", "drop_zone.ramcke"}      # 21.11


def test_rule_22_33_printed_hercules_setup(data):
    got = on_hex(data, "hercules", "allied")
    for h, want in HERCULES_ALLIED.items():
        assert dict(got[h]) == want, h
    assert all(h >= "1613" for h in got if h not in HERCULES_ALLIED)


def test_rule_22_29_opening_counts(data):
    """22.29: 10 Allied and 22 Axis steps eliminated, two forts destroyed, five towns held.
    Our reconstruction of who was lost tallies to the printed counts."""
    s = data.scenarios["intro"]
    assert (s.allied_steps_eliminated, s.axis_steps_eliminated, s.forts_destroyed_count, s.axis_towns) == (10, 22, 2, 5)
    assert s.forts_destroyed == ("1110", "1111")                 # 22.23
    u = data.units

    herc = data.scenarios["hercules"]

    def lost(side):
        n = 0
        for p in s.setup + s.boxes:
            d = u.design_of(p.piece)
            if d.side == side and d.size == "battalion" and d.steps > 1:
                base = herc.placement(p.piece)                     # 8K starts at 5-6 in both
                n += p.level - (base.level if base is not None and side == "allied" else 1)
        for uid in s.eliminated[side]:
            d = u.designs[uid]
            n += 1 if d.type == "warship" else (2 * d.steps if d.type == "tank" else d.steps)
        return n

    assert lost("allied") == 10 and lost("axis") == 22
    # Towns under Axis control at the start, on the map (22.29: five).
    if data.map is not None:
        from malta_sim.loaders.iod_scenarios import MapView

        mv = MapView.from_dir(data.data_dir)
        axis_towns = [h for h in mv.town if s.control_axis(h)]
        assert len(axis_towns) == 5, axis_towns


def test_intro_survivors_are_a_subset_of_the_garrison(data):
    """DATA_NOTES 10: the Intro's Allied pieces are a subset of the Hercules garrison."""
    def allied(scen):
        s = data.scenarios[scen]
        c = Counter(data.units.piece_design[p] for p in s.pieces() if data.units.design_of(p).side == "allied")
        c.update(s.disbanded)
        return c

    i, h = allied("intro"), allied("hercules")
    for k, v in i.items():
        assert h[k] >= v, k


def test_hercules_garrison(data):
    """9 regular battalions and 4 King's Own Malta Regiment battalions (two British ones disbanded, 22.39)."""
    s = data.scenarios["hercules"]
    bns = {data.units.piece_design[p] for p in s.pieces()} | set(s.disbanded)
    uk = [b for b in bns if b.startswith("allied.uk.") and data.units.designs[b].type == "infantry"
          and data.units.designs[b].size == "battalion"]
    mt = [b for b in bns if b.startswith("allied.mt.") and data.units.designs[b].type == "infantry"]
    assert len(uk) == 9 and len(mt) == 4
    assert len(s.disbanded) == 2
    raf = [p for p in s.pieces() if data.units.design_of(p).type == "raf_security"]
    assert len(raf) == 5
    # 22.39: RAF companies one per airfield hex, RN companies in ports (the map must agree)
    from malta_sim.loaders.iod_scenarios import MapView

    mv = MapView.from_dir(data.data_dir)
    if mv is not None:
        raf_hexes = [p.hex for p in s.setup if data.units.design_of(p.piece).type == "raf_security"]
        assert len(set(raf_hexes)) == 5 and set(raf_hexes) <= mv.airfield
        rn_hexes = [p.hex for p in s.setup if data.units.design_of(p.piece).type == "rn_security"]
        assert set(rn_hexes) <= mv.port


def test_warships(data):
    """22.25 names six warships for the Intro; 22.34 places eight in Hercules."""
    assert len(data.scenarios["intro"].warships) == 6
    assert len(data.scenarios["hercules"].warships) == 8
    assert set(data.scenarios["intro"].warships) <= set(data.scenarios["hercules"].warships)


def test_jump_schedules(data):
    """22.26: Ram 1/2 on 30 June AM, II/187 on 30 June PM, then one stick per AM/PM turn.
    22.35: 3 German + 4 Italian sticks on 29 June AM (paratroop companies, engineers, HQs,
    leaders), 2 + 2 of any type on 29 June PM, then one per AM/PM turn."""
    i = data.scenarios["intro"]
    assert [(j.day, j.turn, j.forced, j.max_sticks) for j in i.jumps] == [
        (1, 0, ("axis.ram.1_2",), 1), (1, 2, ("axis.185.ii_187",), 1)]
    assert i.jumps_after_max == 1 and i.jumps_after_turns == (0, 2)
    h = data.scenarios["hercules"]
    j0, j1 = h.jumps
    assert (j0.day, j0.turn, j0.max_sticks_german, j0.max_sticks_italian) == (0, 0, 3, 4)
    assert set(j0.stick_types) == {"leader", "hq", "paratrooper", "para_engineer"}
    assert (j1.day, j1.turn, j1.max_sticks_german, j1.max_sticks_italian, j1.stick_types) == (0, 2, 2, 2, ())
    assert h.jumps_after_max == 1


def test_boxes_and_amphibious(data):
    """22.27 Follow-up boxes, 22.26/22.28 Disbandment Box; 22.36 amphibious divisions and the 11 unassigned units."""
    i = data.scenarios["intro"]
    north = Counter(data.units.piece_design[p.piece] for p in i.boxes if p.box == "followup.North")
    assert north == Counter({"axis.un.mc_10b": 2, "axis.un.tank_10": 1, "axis.un.tank_t": 1})
    west = Counter(data.units.piece_design[p.piece] for p in i.boxes if p.box == "followup.West")
    assert west == Counter({"axis.un.mc_10b": 1, "axis.20.ccnn_88": 1, "axis.20.art_1": 1, "axis.20.art_2": 1,
                            "axis.20.art_3": 1})
    jump = {p.piece: data.units.design_of(p.piece).levels[p.level - 1].label() for p in i.boxes
            if i.box_purpose.get(p.piece) == "jump"}
    assert jump == {"axis.ram.1_2": "6-7-7", "axis.ram.ram": "7-8-6", "axis.ram.eng": "2-7", "axis.ram.art": "0-1-4",
                    "axis.185.ii_187": "6-7-6", "axis.185.iv_187": "6-7-6", "axis.185.ix_187": "6-7-6",
                    "axis.185.art_1": "0-1-4", "axis.185.art_2": "0-1-4"}            # 22.26
    h = data.scenarios["hercules"]
    assert len(h.amphibious["unassigned"]) == 11                  # 18.21
    assert len(h.amphibious["4"]) == 11 and len(h.amphibious["20"]) == 12
    for p in h.boxes:
        assert p.level == 1                                        # full strength in Hercules


def test_time_periods_and_militia(data):
    """22.22/22.32 time periods; 16.31 militia cups; 22.39 optional rules."""
    i, h = data.scenarios["intro"], data.scenarios["hercules"]
    assert (day_to_date(i.first_day), day_to_date(i.last_day), i.n_turns) == ("06-30", "07-05", 24)
    assert (day_to_date(h.first_day), day_to_date(h.last_day), h.n_turns) == ("06-29", "07-10", 48)
    assert date_to_day("07-01") == 2
    assert (i.militia_in_cup, i.militia_draw_random, h.militia_in_cup) == (4, True, 5)
    assert set(h.options) == {"variable_allied_placement", "delayed_landings"}
    assert (i.delayed_reaction, h.delayed_reaction, i.air_attacks, h.air_attacks) == (False, True, False, True)
    assert day_to_date(i.hq_return_last_day) == "07-01" and day_to_date(h.hq_return_last_day) == "07-06"   # 16.82


def test_every_named_unit_appears(data):
    """DATA_NOTES 10: every unit the rules name has a counter."""
    names = {u.name for u in data.units.designs.values()}
    for n in ["1K", "2K", "8K", "10K", "8M", "2RWK", "11LF", "4B", "2RIF", "1H", "1DLI", "A/1C", "B/1C", "C/1C",
              "D/1C", "1/R", "65", "32", "3", "12", "Tak", "Krn", "Beak", "Malta HQ", "Ramcke", "Frattini",
              "Chirelson", "1/2", "1/3", "2/5", "Ram", "V/186", "VI/186", "VII/186", "II/187", "IV/187", "IX/187",
              "1/33", "2/33", "3/33", "1/34", "2/34", "3/34", "1/87", "2/87", "3/87", "1/88", "2/88", "3/88",
              "88 CC.NN.", "1/125", "2/125", "3/125", "1/126", "2/126", "3/126", "Ard", "Lor", "10", "T",
              "1 SM", "6 SM", "CA Trieste", "CA Gorizia", "CL Cadorna", "DD Aviere", "DD Alpino", "DD Corazziere"]:
        assert n in names, n
    # every piece is placed somewhere in Hercules except Intro-only pieces and the pool/engineers/militia
    h = data.scenarios["hercules"]
    used = {data.units.piece_design[p] for p in h.pieces()} | set(h.disbanded)
    unused = {d.id for d in data.units.designs.values()} - used
    allowed = {"allied.uk.eng_1", "allied.uk.eng_2", "axis.20.ccnn_88", "allied.uk.inf_coy", "axis.it.inf_coy",
               "axis.it.glider_coy"} | {f"allied.mil.{k}" for k in range(1, 6)}
    allowed |= {f"axis.20.ccnn_88.{x}" for x in "abc"}
    allowed |= {c for b, comps in data.units.breakdown.items() for c, _ in comps if data.units.designs[c].parent}
    assert unused <= allowed, unused - allowed
