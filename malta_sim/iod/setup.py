"""Static data from the packaged data files, and scenario set-up (rule 22).

:func:`load_static` turns the data folder (units, unit steps, artillery,
leaders, breakdown chart, map, Terrain Effects Chart, charts) into
:class:`.static.StaticData`.  :func:`setup_scenario` places the pieces of a
scenario into a fresh :class:`.game.Game` (Introductory Scenario 22.2; the
Operation Hercules set-up is the invasion engine's ``setup`` hook).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from malta_sim.errors import DataError
from malta_sim.hexgrid import IOD_GRID
from malta_sim.loaders.common import resolve_data_dir
from malta_sim.loaders.iod_charts import load_charts
from malta_sim.iod import static as st
from malta_sim.iod.game import Game
from malta_sim.iod.state import (ALLIED, AXIS, BOX_CUP, BOX_DISBANDMENT, BOX_FOLLOW_UP, BOX_MAP,
                    BOX_NOT_YET, BOX_POOL, allocate, copy_state)

FORMATION_CODES = {"malta": 0, "ram": 1, "185": 2, "80": 3, "4": 4, "20": 5}
FORMATION_NAMES = ["Malta Garrison", "Ramcke Brigade", "185th Folgore", "80th La Spezia",
                   "4th Livorno", "20th Friuli"]
#: Formations of paratroopers (their ADCs/HQs return to the Disbandment Box, 14.43, 16.82).
PARA_FORMATIONS = (1, 2)
AIRBORNE_FORMATIONS = (1, 2, 3)
INFANTRY_DIVISIONS = (4, 5)

_TYPES = {
    "infantry": st.INFANTRY, "paratrooper": st.PARATROOP, "glider": st.GLIDER,
    "marines": st.MARINE, "engineer": st.ENGINEER, "para_engineer": st.ENGINEER,
    "mg": st.MG, "tank": st.TANK, "motorcycle": st.MOTORCYCLE, "artillery": st.ARTILLERY,
    "para_artillery": st.ARTILLERY, "glider_artillery": st.ARTILLERY, "aa": st.AA,
    "hq": st.HQ, "leader": st.LEADER, "coastal_gun": st.COASTAL_GUN,
    "strongpoint": st.STRONGPOINT, "militia": st.MILITIA, "raf_security": st.SECURITY,
    "rn_security": st.SECURITY, "commando": st.COMMANDO, "warship": st.WARSHIP,
}
_SIZES = {"battalion": st.BATTALION, "company": st.COMPANY, "hq": st.HQ_SIZE}
_NATIONS = {"de": st.GERMAN, "it": st.ITALIAN, "uk": st.BRITISH, "mt": st.MALTESE}
_CLASSES = {"foot": st.FOOT, "mot": st.MOT, "mech": st.MECH, "none": st.FOOT}


def _csv(folder: Path, name: str) -> pd.DataFrame:
    path = folder / name
    if not path.exists():
        raise DataError(str(path), None, None, "data file missing")
    return pd.read_csv(path, comment="#", dtype=str, keep_default_na=False)


def _cost(v: str) -> float:
    v = str(v).strip()
    if v == "P":
        return 99.0
    return float(v) if v else np.nan


def load_static(data_dir: str | None = None) -> st.StaticData:
    """Build :class:`StaticData` from the data folder (packaged data when None).

    Raises
    ------
    DataError
        A missing file or a value the engine cannot use (names the file/field).
    """
    folder = resolve_data_dir(data_dir)
    units = _csv(folder, "units.csv")
    steps = _csv(folder, "unit_steps.csv")
    arty = _csv(folder, "artillery.csv").set_index("unit")
    leaders = _csv(folder, "leaders.csv")
    warships = _csv(folder, "warships.csv").set_index("unit")
    breakdown = _csv(folder, "breakdown.csv")

    # expand generic counters: id.<k>
    rows = []
    for r in units.to_dict("records"):
        n = int(r["count"] or 1)
        if n == 1:
            rows.append((r["id"], r))
        else:
            for k in range(1, n + 1):
                rows.append((f"{r['id']}.{k}", r))
    # the pieces grouped by side, the side of the file's first row first
    # (file order within a side): each side's pieces are one run of unit
    # indices (StaticTables.side_run)
    first = rows[0][1]["side"] if rows else ""
    rows.sort(key=lambda ir: ir[1]["side"] != first)
    names = [i for i, _ in rows]
    index = {n: i for i, n in enumerate(names)}
    n = len(rows)
    L = st.MAX_LEVELS

    def arr(dtype, fill=0, shape=None):
        return np.full(shape or (n,), fill, dtype=dtype)

    side, nation, utype, size, mclass = (arr(np.int8) for _ in range(5))
    pform, reg = arr(np.int8, -1), arr(np.int16, -1)
    nlev = arr(np.int8, 1)
    att, dfn, mor, ma = (arr(np.int8, 0, (n, L)) for _ in range(4))
    offs, defs, rng_, = arr(np.int8), arr(np.int8), arr(np.int8)
    airb = arr(np.bool_, False)
    fb, mb, tac = (arr(np.int8, 0, (n, L)) for _ in range(3))
    aa = arr(np.bool_, False)
    engineer = arr(np.bool_, False)
    paratroop = arr(np.bool_, False)
    airborne = arr(np.bool_, False)
    two_sided = arr(np.bool_, False)
    can_break = arr(np.bool_, False)
    weight = arr(np.int8, 1)
    bkind, bn_, ckind, bof = arr(np.int32, -1), arr(np.int8), arr(np.int32, -1), arr(np.int32, -1)
    regiments: dict[str, int] = {}
    by_base = {}
    steps_by = {u: g.sort_values("level", key=lambda s: s.astype(int)) for u, g in steps.groupby("unit")}
    for i, (uid, r) in enumerate(rows):
        side[i] = AXIS if r["side"] == "axis" else ALLIED
        nation[i] = _NATIONS.get(r["nationality"], st.ITALIAN)
        utype[i] = _TYPES[r["type"]]
        size[i] = _SIZES.get(r["size"], st.NO_SIZE)
        mclass[i] = _CLASSES.get(r["move_class"], st.FOOT)
        pform[i] = FORMATION_CODES.get(r["formation"], -1)
        if r["integrity"]:
            key = f"{r['side']}:{r['integrity']}"
            reg[i] = regiments.setdefault(key, len(regiments))
        flags = set(filter(None, r["flags"].split(";")))
        engineer[i] = "engineer" in flags or r["type"] in ("engineer", "para_engineer")
        aa[i] = "aa" in flags or r["type"] == "aa"
        paratroop[i] = "paratroop" in flags
        airborne[i] = "airborne" in flags
        two_sided[i] = "two_sided" in flags
        can_break[i] = "breakdown" in flags
        base_morale = int(r["morale"] or 0)
        g = steps_by.get(r["id"])
        if g is not None:
            lv = g.to_dict("records")
            nlev[i] = len(lv)
            for k, s in enumerate(lv[:L]):
                att[i, k] = int(s["attack"] or 0)
                dfn[i, k] = int(s["defense"] or 0)
                ma[i, k] = int(s["movement"] or 0)
                mor[i, k] = int(s["morale"]) if s["morale"] else base_morale
        else:
            mor[i, 0] = base_morale
        if r["id"] in arty.index:
            a = arty.loc[r["id"]]
            offs[i], defs[i], rng_[i] = int(a["offensive"]), int(a["defensive"]), int(a["range"])
            airb[i] = str(a["airborne_prep"]).lower() == "true"
        if r["id"] in warships.index:
            w = warships.loc[r["id"]]
            offs[i], defs[i], rng_[i] = int(w["offensive"]), int(w["defensive"]), int(w["range"])
        if utype[i] == st.LEADER:
            lr = leaders[leaders["unit"] == r["id"]]
            nlev[i] = 2
            for _, x in lr.iterrows():
                k = 0 if x["side_of_piece"] == "leader" else 1
                fb[i, k], mb[i, k], tac[i, k] = int(x["foot_bonus"]), int(x["mot_bonus"]), int(x["tactical"])
        # victory weight (20.1, 20.2)
        if utype[i] == st.TANK:
            weight[i] = 2
        elif utype[i] in (st.COASTAL_GUN, st.MILITIA, st.LEADER, st.WARSHIP):
            weight[i] = 0
        elif utype[i] == st.HQ and side[i] == AXIS:
            weight[i] = 0
        if r["parent"]:
            bof[i] = index.get(r["parent"], -1)
        by_base.setdefault(r["id"], []).append(i)
    # generic company kinds and breakdown chart (13.1)
    kinds: dict[str, int] = {}
    for base, idxs in by_base.items():
        if len(idxs) > 1 or base.endswith("_coy"):
            k = kinds.setdefault(base, len(kinds))
            for i in idxs:
                ckind[i] = k
    for r in breakdown.to_dict("records"):
        b = index.get(r["battalion"])
        if b is None:
            continue
        if r["company"] in kinds:
            bkind[b] = kinds[r["company"]]
            bn_[b] = int(r["count"])
        else:
            bkind[b] = -1
            bn_[b] = bn_[b] + int(r["count"])
    # formations
    nf = len(FORMATION_CODES)
    f_hq = np.full(nf, -1, np.int32)
    f_ldr = np.full(nf, -1, np.int32)
    for i in range(n):
        if pform[i] >= 0 and utype[i] == st.HQ:
            f_hq[pform[i]] = i
        if pform[i] >= 0 and utype[i] == st.LEADER:
            f_ldr[pform[i]] = i
    nreg = max(1, len(regiments))
    members = [np.flatnonzero((reg == k) & (size == st.BATTALION)) for k in range(nreg)]

    grid = IOD_GRID
    nb = grid.neighbour_table
    mp, side_costs, terrains = _load_map(folder, grid)
    charts = load_charts(folder)
    line, line_nofort = _crt_lines(mp, terrains, charts)
    vc = grid.indices(["1711", "1809", "1810", "1911"])
    ammo = grid.indices(["1711", "1715"])
    sd = st.StaticData(
        names=names, side=side, nation=nation, utype=utype, size=size, move_class=mclass,
        printed_formation=pform, regiment=reg, n_levels=nlev, attack=att, defense=dfn,
        morale=mor, ma=ma, off_support=offs, def_support=defs, art_range=rng_,
        airborne_art=airb, foot_bonus=fb, mot_bonus=mb, tactical=tac, aa=aa,
        step_weight=weight, breakdown_kind=bkind, breakdown_n=bn_, company_kind=ckind,
        battalion_of=bof, n_formations=nf, formation_names=list(FORMATION_NAMES),
        formation_hq=f_hq, formation_leader=f_ldr, n_regiments=nreg,
        regiment_members=members, grid=grid, neighbours=nb, charts=charts,
        crt_line=line, victory_cities=vc, allied_ammo_points=ammo, **mp,
        crt_line_nofort=line_nofort, engineer=engineer, paratroop=paratroop,
        airborne=airborne, two_sided=two_sided, can_break=can_break,
        regiment_names={v: k for k, v in regiments.items()},
        provenance={"data_dir": str(folder)}, **side_costs,
    )
    return sd


def _load_map(folder: Path, grid) -> dict:
    hexes = _csv(folder, "hexes.csv")
    tec = _csv(folder, "terrain_effects.csv")
    sides = _csv(folder, "hexsides.csv")
    nh = grid.n_hexes
    flags = {k: np.zeros(nh, bool) for k in ("land", "beach", "coastal", "town", "city", "fort",
                                              "airfield", "woods", "main_port", "minor_port")}
    hexcost = {r["terrain"]: r for r in tec.to_dict("records") if r["kind"] == "hex"}
    sidecost = {r["terrain"]: r for r in tec.to_dict("records") if r["kind"] == "hexside"}
    move = np.full((nh, 3), 99.0, np.float32)
    strat = np.full((nh, 3), 99.0, np.float32)
    terrains = [set() for _ in range(nh)]
    zones: dict[int, str] = {}
    cls = ("foot", "mot", "mech")
    for r in hexes.to_dict("records"):
        h = grid.index(r["hex"])
        ts = {r["terrain"]}
        for k in ("woods", "town", "city", "fort", "airfield", "beach", "coastal"):
            if r[k] == "1":
                ts.add(k)
        terrains[h] = ts
        if r["beach_zone"]:
            zones[h] = r["beach_zone"]
        if r["terrain"] != "ocean":
            flags["land"][h] = True
        for k in ("beach", "coastal", "town", "city", "fort", "airfield", "woods"):
            flags[k][h] = k in ts
        if r["port"] == "main":
            flags["main_port"][h] = True
        elif r["port"] == "minor":
            flags["minor_port"][h] = True
        if not flags["land"][h]:
            continue
        # rule 6.11: the most expensive terrain, unless a town/city replaces it
        pick = [t for t in ("city", "town") if t in ts] or sorted(ts)
        for c, name in enumerate(cls):
            vals = [_cost(hexcost[t][name]) for t in pick if t in hexcost]
            svals = []
            for t in pick:
                if t in hexcost:
                    sv = _cost(hexcost[t][name + "_strategic"])
                    svals.append(_cost(hexcost[t][name]) if np.isnan(sv) else sv)
            move[h, c] = max(vals) if vals else 1.0
            strat[h, c] = max(svals) if svals else move[h, c]
    # ports from places.csv
    pl = _csv(folder, "places.csv")
    for r in pl.to_dict("records"):
        if r["kind"] == "port_main":
            flags["main_port"][grid.index(r["hex"])] = True
        if r["kind"] == "port_minor":
            flags["minor_port"][grid.index(r["hex"])] = True
    nb = grid.neighbour_table
    feat = {k: np.zeros((nh, 6), bool) for k in ("road", "creek", "rise", "ocean_side")}
    key = {"road": "road", "creek": "creek", "creek_rise": "rise", "ocean": "ocean_side"}
    for r in sides.to_dict("records"):
        h = grid.index(r["hex"])
        d = ("N", "NE", "SE", "S", "SW", "NW").index(r["direction"])
        k = key[r["feature"]]
        feat[k][h, d] = True
        o = nb[h, d]
        if o >= 0:
            feat[k][o, (d + 3) % 6] = True
    road = sidecost["road"]
    side_costs = {
        "road_cost": np.array([_cost(road[c]) for c in cls], np.float32),
        "road_strat_cost": np.array([_cost(road[c + "_strategic"]) for c in cls], np.float32),
        "creek_cost": np.array([_cost(sidecost["creek"][c]) for c in cls], np.float32),
        "rise_cost": np.array([_cost(sidecost["creek_rise"][c]) for c in cls], np.float32),
    }
    out = dict(flags)
    out.update(move_cost=move, strat_cost=strat, road=feat["road"], creek=feat["creek"],
               rise=feat["rise"], ocean_side=feat["ocean_side"])
    out["beach_zone_of"] = zones
    return out, side_costs, terrains


def _crt_lines(mp: dict, terrains: list, charts) -> tuple[np.ndarray, np.ndarray]:
    """Day CRT line per hex (rule 9.3 f), with and without its fort (17.1)."""
    nh = len(terrains)
    line = np.full(nh, -1, np.int8)
    nofort = np.full(nh, -1, np.int8)
    for h, ts in enumerate(terrains):
        if not mp["land"][h]:
            continue
        line[h] = charts.line_for_terrains(ts)
        rest = ts - {"fort"} or {"clear"}
        nofort[h] = charts.line_for_terrains(rest)
    return line, nofort


# ====================================================================== scenarios
from dataclasses import dataclass, field as _field

ZONES = ("North", "South", "East", "West")     #: beach_zones.csv order; box_slot of Follow-up boxes


@dataclass
class ScenarioInfo:
    """What the engine needs of a scenario while playing.

    ``first_day``/``last_day``: day indices (0 = 29 June); ``last_turn``: the
    absolute turn after whose Surrender Phase the game ends (4.41);
    ``hq_cutoff_day``: first day on which an eliminated Axis HQ no longer
    returns (16.82); ``start_airfields``: Axis-held airfields at the start;
    ``follow_up_zone``: formation -> beach zone of its Follow-up box (14.43,
    16.82); ``data``: the loader's Scenario object (for the invasion engine).
    """

    name: str
    first_day: int
    last_day: int
    last_turn: int
    hq_cutoff_day: int
    start_airfields: int = 0
    follow_up_zone: dict = _field(default_factory=dict)
    data: object = None


_IOD_CACHE: dict = {}


def load_data(data_dir=None):
    """The DATA loader's :class:`malta_sim.loaders.IodData` (cached per folder)."""
    from malta_sim.loaders import load_iod
    key = str(data_dir)
    if key not in _IOD_CACHE:
        _IOD_CACHE[key] = load_iod(data_dir)
    return _IOD_CACHE[key]


def _placed_template(static: st.StaticData, scenario: str, sc):
    """The state of ``scenario`` before its first die roll, with the Follow-up
    zones of the divisions (rule 22: printed placement, attachments 15.21,
    disbanded battalions 13.1, control 2.1 / 22.23, forts, landed beaches 8.51,
    drop zone markers, printed victory counts 22.29).

    Nothing here depends on the seed or the game, so it is built once per
    static data and scenario and copied into each game.

    Returns
    -------
    (GameState, dict)
        The template state (never handed out: callers copy it) and
        ``formation -> beach zone`` of the Follow-up boxes (14.43, 16.82).
    """
    key = (id(static), scenario, id(sc))
    hit = _TEMPLATES.get(key)
    if hit is not None and hit[0] is static and hit[1] is sc:
        return hit[2], hit[3]
    t = static
    s = allocate(t.n_units, t.n_hexes, sizes={"n_regiments": t.n_regiments,
                                               "n_formations": t.n_formations})
    s.turn[0] = sc.first_day * 4
    # defaults: formations as printed, artillery salvos (12.53), generic pieces in the pool
    s.formation[:] = t.printed_formation
    s.salvos[t.utype == st.ARTILLERY] = 2
    s.box[:] = BOX_NOT_YET
    s.box[t.company_kind >= 0] = BOX_POOL
    s.box[t.battalion_of >= 0] = BOX_POOL
    s.box[t.utype == st.MILITIA] = BOX_POOL
    for side_name, ids in sc.eliminated.items():
        for uid in ids:
            if uid in t._index:
                s.box[t.unit(uid)] = 5  # BOX_ELIMINATED (counted in the printed totals)
    for p in sc.setup:
        u = t.unit(p.piece)
        s.box[u] = BOX_MAP
        s.hex[u] = t.grid.index(p.hex)
        s.level[u] = p.level - 1
        s.hitched[u] = False
    for p in sc.boxes:
        u = t.unit(p.piece)
        s.level[u] = p.level - 1
        if p.box == "disbandment":
            s.box[u] = BOX_DISBANDMENT
        else:
            s.box[u] = BOX_FOLLOW_UP
            s.box_slot[u] = ZONES.index(p.box.split(".", 1)[1])
        s.hitched[u] = True
    for uid, f in sc.attach.items():
        s.formation[t.unit(uid)] = FORMATION_CODES[str(f)]
    # 15.21: unassigned Axis units (not commandos) must belong to the 4th or the
    # 20th Division; one placed on the map without an attachment joins the
    # division of a unit it is stacked with (the 4th when none).
    for u in np.flatnonzero((s.box == BOX_MAP) & (t.side == AXIS) & (s.formation < 0)
                            & (t.utype != st.COMMANDO) & (t.utype != st.WARSHIP)):
        mates = [int(x) for x in np.flatnonzero((s.box == BOX_MAP) & (s.hex == s.hex[u]))
                 if s.formation[x] in INFANTRY_DIVISIONS]
        s.formation[u] = s.formation[mates[0]] if mates else INFANTRY_DIVISIONS[0]
    # disbanded battalions: their generic companies on the map belong to them (13.1)
    for uid in sc.disbanded:
        b = t.unit(uid)
        s.box[b] = BOX_DISBANDMENT
        k = t.breakdown_kind[b]
        comps = [int(c) for c in np.flatnonzero((t.company_kind == k) & (s.box == BOX_MAP)
                                                & (s.parent < 0))][: int(t.breakdown_n[b])]
        for c in comps:
            s.parent[c] = b
    # control (2.1, 22.23), forts (22.23), landed beaches (8.51)
    s.control[t.land] = ALLIED
    if sc.control_axis_columns:
        lo, hi = sc.control_axis_columns
        cols = np.array([int(h[:2]) for h in t.grid.hex_ids])
        s.control[t.land & (cols >= lo) & (cols <= hi)] = AXIS
    for h in sc.control_axis_hexes:
        s.control[t.grid.index(h)] = AXIS
    for h in sc.forts_destroyed:
        s.fort_destroyed[t.grid.index(h)] = True
    for h in sc.landed_hexes:
        s.landed_beach[t.grid.index(h)] = True
    for z in sc.landed_zones:
        for i in np.flatnonzero(t.beach):
            if _beach_zone(static, int(i)) == z:
                s.landed_beach[i] = True
    for m, h in sc.markers.items():
        f = 1 if m.endswith("ramcke") else 2
        s.dz_hex[0, f] = t.grid.index(h)
    s.allied_steps_lost[0] = sc.allied_steps_eliminated
    s.axis_steps_lost[0] = sc.axis_steps_eliminated
    follow_up_zone = {}
    for f in (4, 5):
        zone = None
        for p in list(sc.boxes):
            if p.box.startswith("followup") and t.printed_formation[t.unit(p.piece)] == f:
                zone = ZONES.index(p.box.split(".", 1)[1])
        for p in sc.boxes:
            if p.box.startswith("followup") and s.formation[t.unit(p.piece)] == f:
                zone = ZONES.index(p.box.split(".", 1)[1])
        if zone is not None:
            follow_up_zone[f] = zone
    for a in s:
        a.flags.writeable = False
    _TEMPLATES[key] = (static, sc, s, follow_up_zone)
    return s, follow_up_zone


#: ``(id(static), scenario, id(scenario data)) -> (static, data, state, zones)``
#: of :func:`_placed_template` (the objects are kept so that the ids stay theirs).
_TEMPLATES: dict = {}


def setup_scenario(static: st.StaticData, scenario: str, seed: int, game_index: int, policies,
                   options=(), log=False, check=False, data_dir=None) -> Game:
    """A :class:`Game` at the start of ``scenario`` (rule 22): pieces placed,
    control, destroyed forts, landed beaches, printed victory counts (22.29),
    Follow-up and Disbandment boxes, drop zone markers; then the invasion
    engine's ``setup`` hook (militia cup 16.31, Hercules preparation 3.0).

    The placement before the first die roll is copied from a per-process
    template (:func:`_placed_template`, keyed on the static data and the
    scenario); the steps that follow are played for each game.  Each game's
    state, event log and random streams are those of a set-up done from
    scratch.

    Raises
    ------
    OptionError
        Unknown scenario.
    """
    data = load_data(static.provenance.get("data_dir"))
    sc = data.scenario(scenario)
    t = static
    template, follow_up_zone = _placed_template(static, scenario, sc)
    s = copy_state(template)
    info = ScenarioInfo(name=scenario, first_day=sc.first_day, last_day=sc.last_day,
                        last_turn=sc.last_day * 4 + 3, hq_cutoff_day=sc.hq_return_last_day + 1,
                        follow_up_zone=dict(follow_up_zone), data=sc)
    game = Game(t, s, seed, game_index, policies, info, log=log, check=check, options=options)
    game.skip_invasion = "no_invasion" in options
    # militia cup (16.31): draw the scenario's number at random, discard the rest
    mil = [int(u) for u in np.flatnonzero(t.utype == st.MILITIA)]
    rng = game.streams["setup"]
    order = list(rng.permutation(len(mil)))
    for k, i in enumerate(order):
        s.box[mil[i]] = BOX_CUP if k < sc.militia_in_cup else 9  # BOX_REMOVED
    s.revealed[:] = False
    _finish_setup(game)
    return game


def _finish_setup_now(game: Game) -> None:
    """Control of the start position (2.1), the Axis airfields at the start,
    then the scenario's invasion set-up (3.0, 16.31, 19.3, 22.2, 22.3;
    :data:`malta_sim.iod.scenarios.SCENARIOS`)."""
    from malta_sim.iod.rules.organisation import update_control
    from malta_sim.iod.scenarios import scenario
    t, s, info = game.static, game.state, game.scenario
    update_control(game)
    info.start_airfields = int((t.airfield & (s.control == AXIS)).sum())
    if not game.skip_invasion:
        scenario(info.name).invasion_setup(game)


def _finish_setup(game: Game) -> None:
    """The set-up steps after the pieces are placed (:func:`_finish_setup_now`)."""
    _finish_setup_now(game)


def _beach_zone(static, h: int) -> str | None:
    return static.beach_zone_of.get(h) if hasattr(static, "beach_zone_of") else None


def constructed_game(static: st.StaticData, placements: dict, policies, *, turn: int = 4,
                     seed: int = 0, game_index: int = 0, control: dict | None = None,
                     log: bool = True, check: bool = False, scenario: str = "intro") -> Game:
    """A game holding only the given pieces, for rule tests on constructed positions.

    Parameters
    ----------
    placements : dict
        ``hex id -> list of unit ids`` or ``(unit id, level)`` pairs (level 0 =
        full strength); artillery is placed prepared with two salvos.
    turn : int
        Absolute turn (default 4 = 30 June AM, a day turn).
    control : dict, optional
        ``hex id -> side``; by default every land hex is Allied-controlled and
        occupied hexes belong to their occupant.
    policies : (Policy, Policy)
        The Axis and the Allied bot.
    """
    data = load_data(static.provenance.get("data_dir"))
    sc = data.scenario(scenario)
    t = static
    s = allocate(t.n_units, t.n_hexes, sizes={"n_regiments": t.n_regiments,
                                               "n_formations": t.n_formations})
    info = ScenarioInfo(name=scenario, first_day=0, last_day=11, last_turn=47,
                        hq_cutoff_day=99, data=None)
    game = Game(t, s, seed, game_index, tuple(policies), info, log=log, check=check)
    game.skip_invasion = True
    s.turn[0] = turn
    s.formation[:] = t.printed_formation
    s.salvos[t.utype == st.ARTILLERY] = 2
    s.box[:] = BOX_NOT_YET
    s.box[(t.company_kind >= 0) | (t.battalion_of >= 0)] = BOX_POOL
    s.control[t.land] = ALLIED
    for hid, units in placements.items():
        h = t.grid.index(hid)
        for x in units:
            uid, lv = (x, 0) if isinstance(x, str) else x
            u = t.unit(uid)
            s.box[u] = BOX_MAP
            s.hex[u] = h
            s.level[u] = lv
    for hid, side in (control or {}).items():
        s.control[t.grid.index(hid)] = side
    from malta_sim.iod.rules.organisation import update_control
    update_control(game)
    return game
