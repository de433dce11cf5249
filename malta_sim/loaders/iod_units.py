"""Island of Death counters: every game piece, its strength levels and the extra
values of leaders, artillery, warships and coastal guns, plus the Battalion
Breakdown Chart.

Files (in the data directory, default the packaged ``malta_sim/data/island_of_death``;
``docs/data.md`` describes every field):

``units.csv``
    One row per counter design: ``id, name, side, nationality, formation,
    integrity, size, type, move_class, morale, morale_source, count, parent,
    flags, source``.  ``count`` > 1 means that many identical generic counters;
    they are expanded to ids ``<id>.<k>`` (k = 1..count) — the *pieces*.
``unit_steps.csv``
    ``unit, level, attack, defense, movement, morale, remnant, source``: strength
    levels, full strength first (rule 17.3).  Artillery rows are the hitched side
    (rule 12.11).  An empty ``morale`` means the unit's morale.
``leaders.csv``
    ``unit, side_of_piece (leader|adc), name, foot_bonus, mot_bonus, tactical, source``
    (rules 14.1, 14.2, 14.43).
``artillery.csv``
    ``unit, offensive, defensive, range, ammo_type, salvos, airborne_prep, source``
    (rules 12.11, 12.12, 12.53, 6.6).
``warships.csv``
    ``unit, ship_class, offensive, defensive, range, source`` (rules 16.7, 16.73).
``coastal_guns.csv``
    ``unit, value, range, source`` (rule 16.5).
``breakdown.csv``
    ``battalion, company, count, source`` (rules 13.0, 13.1, 19.21).

Steps versus levels: a battalion loses one step per level (rule 17.3); a company
or an artillery battalion has one step (rule 9.5); a paratroop company has two
levels but one step (rule 17.83: its reduced side comes only from airborne
losses 19.46 and is restored by rule 17.8).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import DataError
from .common import Col, Collector, did_you_mean, read_csv, resolve_data_dir, source_col

SIDES = ("axis", "allied")                      #: code = index (AXIS = 0, ALLIED = 1)
NATIONALITIES = ("de", "it", "uk", "mt")        #: German, Italian, British, Maltese
SIZES = ("company", "battalion", "hq", "leader", "strongpoint", "militia", "gun", "ship")
TYPES = (
    "infantry", "paratrooper", "glider", "engineer", "para_engineer", "artillery",
    "para_artillery", "glider_artillery", "mg", "tank", "motorcycle", "marines", "commando",
    "aa", "hq", "raf_security", "rn_security", "militia", "strongpoint", "coastal_gun",
    "warship", "leader",
)
MOVE_CLASSES = ("foot", "mot", "mech", "none")  #: rule 2.1; ``none`` = never moves on land
FORMATIONS = {"allied": ("malta",), "axis": ("ram", "185", "4", "20", "80", "none", "")}
FLAGS = ("airborne", "paratroop", "glider", "amphibious", "engineer", "breakdown", "generic",
         "two_sided", "unassigned", "security", "aa", "blackshirt")
ARTILLERY_TYPES = ("artillery", "para_artillery", "glider_artillery")
ONE_STEP_SIZES = ("company", "hq", "leader", "strongpoint", "militia", "gun", "ship")
MAX_LEVELS = 4

#: ``docs/data.md`` lists these files as the counter data.
FILES = ("units.csv", "unit_steps.csv", "leaders.csv", "artillery.csv", "warships.csv",
         "coastal_guns.csv", "breakdown.csv")


@dataclass(frozen=True)
class Level:
    """One strength level (rule 17.3): attack, defense, movement allowance (MP),
    morale, whether it is the remnant level (rule 17.31)."""

    attack: int
    defense: int
    movement: int
    morale: int
    remnant: bool
    source: str

    def label(self) -> str:
        """The printed form: ``6-6`` when attack = defense, else ``4-5-6``."""
        if self.attack == self.defense:
            return f"{self.attack}-{self.movement}"
        return f"{self.attack}-{self.defense}-{self.movement}"


@dataclass
class CounterDesign:
    """A row of ``units.csv`` (one counter design; ``count`` identical pieces)."""

    id: str
    name: str
    side: str
    nationality: str
    formation: str
    integrity: str
    size: str
    type: str
    move_class: str
    morale: int
    morale_source: str
    count: int
    parent: str
    flags: frozenset
    source: str
    line: int
    levels: tuple = ()

    @property
    def steps(self) -> int:
        """Step losses that eliminate the piece (rules 9.5, 17.3, 17.83)."""
        if self.size == "battalion" and self.type not in ARTILLERY_TYPES and self.type != "aa":
            return len(self.levels)
        return 1

    def piece_ids(self) -> list[str]:
        """Ids of the physical pieces: the id itself, or ``<id>.<k>`` for generic designs."""
        if self.count == 1:
            return [self.id]
        return [f"{self.id}.{k}" for k in range(1, self.count + 1)]

    def level_for(self, label: str) -> int | None:
        """1-based level whose printed values are ``label`` (``4-6``, ``4-5-6``), or None."""
        for i, lv in enumerate(self.levels, start=1):
            if lv.label() == label or f"{lv.attack}-{lv.defense}-{lv.movement}" == label:
                return i
        return None


@dataclass(frozen=True)
class LeaderValues:
    """Rule 14: movement bonuses (MP) and tactical value (1d6 <= value succeeds)."""

    name: str
    foot_bonus: int
    mot_bonus: int
    tactical: int
    source: str


@dataclass(frozen=True)
class ArtilleryValues:
    """Prepared side (rule 12.11) and support marker (rule 12.12) of an artillery unit."""

    offensive: int
    defensive: int
    range: int
    ammo_type: int
    salvos: int
    airborne_prep: bool
    source: str


@dataclass(frozen=True)
class WarshipValues:
    """Rule 16.7: class, support strengths and range (hexes)."""

    ship_class: str
    offensive: int
    defensive: int
    range: int
    source: str


@dataclass(frozen=True)
class CoastalGunValues:
    """Rule 16.5: artillery value (dice rolled) and range (hexes)."""

    value: int
    range: int
    source: str


@dataclass
class UnitTables:
    """Typed counter tables.

    Attributes
    ----------
    designs : dict[str, CounterDesign]
        By design id, in file order.
    pieces : list[str]
        Physical piece ids in a stable order (file order, generic ``<id>.<k>``).
    piece_design : dict[str, str]
        Piece id -> design id.
    leaders : dict[str, dict[str, LeaderValues]]
        Leader unit id -> {"leader": ..., "adc": ...}.
    artillery, warships, coastal_guns : dict
        Design id -> values.
    breakdown : dict[str, list[tuple[str, int]]]
        Battalion id -> [(company design id, count)] (rule 13.1).
    files : dict[str, Path]
    """

    designs: dict
    pieces: list
    piece_design: dict
    leaders: dict
    artillery: dict
    warships: dict
    coastal_guns: dict
    breakdown: dict
    files: dict = field(default_factory=dict)

    def design_of(self, piece_id: str) -> CounterDesign:
        return self.designs[self.piece_design[piece_id]]


def _flags_check(v: str) -> str | None:
    bad = [f for f in v.split(";") if f.strip() and f.strip() not in FLAGS]
    if bad:
        return f"unknown flag {bad[0]!r}; flags are: {', '.join(FLAGS)}"
    return None


UNIT_SPEC = {
    "id": Col(str, pattern=r"(axis|allied)\.[a-z0-9_.]+"),
    "name": Col(str),
    "side": Col(str, choices=SIDES),
    "nationality": Col(str, choices=NATIONALITIES),
    "formation": Col(str, required=False, default=""),
    "integrity": Col(str, required=False, default=""),
    "size": Col(str, choices=SIZES),
    "type": Col(str, choices=TYPES),
    "move_class": Col(str, choices=MOVE_CLASSES),
    "morale": Col(int, min=0, max=9),
    "morale_source": source_col(),
    "count": Col(int, min=1, max=60),
    "parent": Col(str, required=False, default=""),
    "flags": Col(str, required=False, default="", check=_flags_check),
    "source": source_col(),
}
STEP_SPEC = {
    "unit": Col(str),
    "level": Col(int, min=1, max=MAX_LEVELS),
    "attack": Col(int, min=0, max=20),
    "defense": Col(int, min=0, max=20),
    "movement": Col(int, min=0, max=20),
    "morale": Col(int, required=False, default=None, min=0, max=9),
    "remnant": Col(bool),
    "source": source_col(),
}
LEADER_SPEC = {
    "unit": Col(str),
    "side_of_piece": Col(str, choices=("leader", "adc")),
    "name": Col(str),
    "foot_bonus": Col(int, min=0, max=6),
    "mot_bonus": Col(int, min=0, max=6),
    "tactical": Col(int, min=0, max=6),
    "source": source_col(),
}
ART_SPEC = {
    "unit": Col(str),
    "offensive": Col(int, min=0, max=30),
    "defensive": Col(int, min=0, max=30),
    "range": Col(int, min=1, max=30),
    "ammo_type": Col(int, min=1, max=3),
    "salvos": Col(int, min=0, max=2),
    "airborne_prep": Col(bool),
    "source": source_col(),
}
SHIP_SPEC = {
    "unit": Col(str),
    "ship_class": Col(str, choices=("BB", "CA", "CL", "DD", "TB")),
    "offensive": Col(int, min=0, max=30),
    "defensive": Col(int, min=0, max=30),
    "range": Col(int, min=1, max=30),
    "source": source_col(),
}
GUN_SPEC = {
    "unit": Col(str),
    "value": Col(int, min=1, max=12),
    "range": Col(int, min=1, max=30),
    "source": source_col(),
}
BREAKDOWN_SPEC = {
    "battalion": Col(str),
    "company": Col(str),
    "count": Col(int, min=1, max=6),
    "source": source_col(),
}


def load_units(data_dir: str | Path | None = None, collector: Collector | None = None) -> UnitTables:
    """Read and cross-check the counter files.

    Parameters
    ----------
    data_dir : path, optional
        Data directory (default: the packaged Island of Death data).
    collector : Collector, optional
        Gather every problem instead of raising at the first one (``data check``).

    Returns
    -------
    UnitTables

    Raises
    ------
    DataError
        Missing file or column, bad value, duplicate id, unknown unit, inconsistent
        levels (rule 17.3), missing artillery/warship/coastal-gun/leader values,
        breakdown of a Maltese or artillery battalion (rule 13.0).
    """
    folder = resolve_data_dir(data_dir)
    col = collector if collector is not None else Collector()
    files = {name: folder / name for name in FILES}

    def err(file: str, line, fld, msg):
        e = DataError(str(files[file]), line, fld, msg)
        if collector is None:
            raise e
        col.add(e)

    rows = read_csv(files["units.csv"], UNIT_SPEC, unique=["id"], collector=collector)
    designs: dict[str, CounterDesign] = {}
    for r in rows:
        d = CounterDesign(
            id=r.id, name=r.name, side=r.side, nationality=r.nationality, formation=r.formation,
            integrity=r.integrity, size=r.size, type=r.type, move_class=r.move_class, morale=r.morale,
            morale_source=r.morale_source, count=r.count, parent=r.parent,
            flags=frozenset(f.strip() for f in r.flags.split(";") if f.strip()), source=r.source, line=r.line)
        if not d.id.startswith(d.side + "."):
            err("units.csv", r.line, "id", f"id {d.id!r} must start with its side '{d.side}.'")
        if d.formation not in FORMATIONS[d.side]:
            err("units.csv", r.line, "formation",
                f"{d.formation!r} is not a {d.side} formation ({', '.join(f or '(empty)' for f in FORMATIONS[d.side])})")
        if d.side == "allied" and d.nationality not in ("uk", "mt"):
            err("units.csv", r.line, "nationality", "Allied units are British (uk) or Maltese (mt)")
        if d.side == "axis" and d.nationality not in ("de", "it"):
            err("units.csv", r.line, "nationality", "Axis units are German (de) or Italian (it)")
        if d.count > 1 and d.size not in ("company", "strongpoint", "gun", "militia"):
            err("units.csv", r.line, "count", "only companies, strongpoints, coastal guns and militia come as several identical pieces")
        designs[d.id] = d
    for d in designs.values():
        if d.parent:
            p = designs.get(d.parent)
            if p is None:
                err("units.csv", d.line, "parent", f"unknown unit {d.parent!r}" + did_you_mean(d.parent, designs))
            elif p.size != "battalion" or d.size != "company":
                err("units.csv", d.line, "parent", "parent must be a battalion and the unit a company")

    # strength levels --------------------------------------------------------
    srows = read_csv(files["unit_steps.csv"], STEP_SPEC, unique=["unit", "level"], collector=collector)
    by_unit: dict[str, list] = {}
    for r in srows:
        if r.unit not in designs:
            err("unit_steps.csv", r.line, "unit", f"unknown unit {r.unit!r} (not in units.csv)"
                + did_you_mean(r.unit, designs))
            continue
        by_unit.setdefault(r.unit, []).append(r)
    for uid, d in designs.items():
        lv = sorted(by_unit.get(uid, []), key=lambda r: r.level)
        if not lv:
            err("unit_steps.csv", None, "unit", f"unit {uid!r} has no strength level")
            continue
        if [r.level for r in lv] != list(range(1, len(lv) + 1)):
            err("unit_steps.csv", lv[0].line, "level", f"levels of {uid!r} must be 1..n without gaps")
            continue
        levels = []
        for r in lv:
            if r.remnant and (r.level != len(lv) or d.size != "battalion" or d.type in ARTILLERY_TYPES):
                err("unit_steps.csv", r.line, "remnant",
                    "only the lowest level of a non-artillery battalion is a remnant (rule 17.31)")
            levels.append(Level(r.attack, r.defense, r.movement, d.morale if r.morale is None else r.morale,
                                bool(r.remnant), r.source))
        for a, b in zip(levels, levels[1:]):
            if b.attack > a.attack or b.defense > a.defense:
                err("unit_steps.csv", lv[0].line, "attack",
                    f"levels of {uid!r} must not grow stronger as steps are lost (rule 17.3)")
                break
        if len(levels) > 1 and d.size != "battalion" and "two_sided" not in d.flags:
            err("unit_steps.csv", lv[1].line, "level",
                f"{uid!r} is a {d.size}: one level only (two for paratroop companies, flag two_sided, rule 17.83)")
        if "two_sided" in d.flags and len(levels) != 2:
            err("unit_steps.csv", lv[0].line, "level", f"{uid!r} is two_sided: exactly two levels (rule 17.83)")
        d.levels = tuple(levels)

    # leaders ----------------------------------------------------------------
    leaders: dict[str, dict[str, LeaderValues]] = {}
    for r in read_csv(files["leaders.csv"], LEADER_SPEC, unique=["unit", "side_of_piece"], collector=collector):
        d = designs.get(r.unit)
        if d is None or d.type != "leader":
            err("leaders.csv", r.line, "unit", f"{r.unit!r} is not a leader in units.csv")
            continue
        leaders.setdefault(r.unit, {})[r.side_of_piece] = LeaderValues(r.name, r.foot_bonus, r.mot_bonus,
                                                                       r.tactical, r.source)
    for d in designs.values():
        if d.type == "leader" and set(leaders.get(d.id, {})) != {"leader", "adc"}:
            err("leaders.csv", None, "unit", f"leader {d.id!r} needs a 'leader' and an 'adc' row (rule 14.43)")

    def keyed(fname, spec, types, cls, fields):
        out = {}
        for r in read_csv(files[fname], spec, unique=["unit"], collector=collector):
            d = designs.get(r.unit)
            if d is None or d.type not in types:
                err(fname, r.line, "unit", f"{r.unit!r} is not a unit of type {'/'.join(types)} in units.csv")
                continue
            out[r.unit] = cls(*[r[f] for f in fields], r.source)
        for d in designs.values():
            if d.type in types and d.id not in out:
                err(fname, None, "unit", f"no row for {d.type} {d.id!r}")
        return out

    artillery = keyed("artillery.csv", ART_SPEC, ARTILLERY_TYPES, ArtilleryValues,
                      ["offensive", "defensive", "range", "ammo_type", "salvos", "airborne_prep"])
    warships = keyed("warships.csv", SHIP_SPEC, ("warship",), WarshipValues,
                     ["ship_class", "offensive", "defensive", "range"])
    guns = keyed("coastal_guns.csv", GUN_SPEC, ("coastal_gun",), CoastalGunValues, ["value", "range"])

    # breakdown chart (rule 13.1) ---------------------------------------------
    breakdown: dict[str, list[tuple[str, int]]] = {}
    for r in read_csv(files["breakdown.csv"], BREAKDOWN_SPEC, unique=["battalion", "company"], collector=collector):
        b, c = designs.get(r.battalion), designs.get(r.company)
        if b is None:
            err("breakdown.csv", r.line, "battalion", f"unknown unit {r.battalion!r}" + did_you_mean(r.battalion, designs))
            continue
        if c is None:
            err("breakdown.csv", r.line, "company", f"unknown unit {r.company!r}" + did_you_mean(r.company, designs))
            continue
        if b.size != "battalion" or b.type in ARTILLERY_TYPES:
            err("breakdown.csv", r.line, "battalion", f"{b.id!r} is not a battalion that can break down (rule 13.0)")
            continue
        if b.nationality == "mt":
            err("breakdown.csv", r.line, "battalion", f"{b.id!r} is Maltese: Maltese battalions never break down (rule 13.0)")
            continue
        if c.size != "company":
            err("breakdown.csv", r.line, "company", f"{c.id!r} is not a company")
            continue
        if c.nationality != b.nationality:
            err("breakdown.csv", r.line, "company", "companies are of the battalion's nationality (rule 13.1)")
            continue
        if c.parent and c.parent != b.id:
            err("breakdown.csv", r.line, "company", f"{c.id!r} belongs to {c.parent!r}, not {b.id!r} (rule 13.2)")
            continue
        if c.count == 1 and r.count != 1:
            err("breakdown.csv", r.line, "count", "a named company appears once")
            continue
        breakdown.setdefault(b.id, []).append((c.id, r.count))
    for d in designs.values():
        if "breakdown" in d.flags and d.id not in breakdown:
            err("breakdown.csv", None, "battalion", f"battalion {d.id!r} is flagged 'breakdown' but has no row")

    pieces: list[str] = []
    piece_design: dict[str, str] = {}
    for d in designs.values():
        for pid in d.piece_ids():
            if pid in piece_design or (pid != d.id and pid in designs):
                err("units.csv", d.line, "id", f"piece id {pid!r} collides with another id")
            pieces.append(pid)
            piece_design[pid] = d.id
    if collector is None:
        col.raise_if_any()
    return UnitTables(designs, pieces, piece_design, leaders, artillery, warships, guns, breakdown,
                      {k: v for k, v in files.items()})


@dataclass
class UnitArrays:
    """Dense per-piece arrays (``n`` = number of pieces, order of ``UnitTables.pieces``).

    Attributes
    ----------
    ids : list[str]
    index : dict[str, int]
        Piece id -> row.
    design : list[str]
        Design id of each piece.
    side : int8[n]
        0 axis, 1 allied (:data:`SIDES`).
    nationality, size, type, move_class : int8[n]
        Indices into :data:`NATIONALITIES`, :data:`SIZES`, :data:`TYPES`, :data:`MOVE_CLASSES`.
    formation : int8[n]
        Index into ``formation_names`` (-1: none; unassigned and generic pieces).
    integrity : int16[n]
        Index into ``integrity_names`` (-1: no regiment/brigade; rule 9.92).
    n_levels : int8[n]
        Strength levels (1..MAX_LEVELS).
    steps : int8[n]
        Step losses that eliminate the piece (rules 9.5, 17.3, 17.83).
    attack, defense, movement, morale : int8[n, MAX_LEVELS]
        Values per level, full strength first; rows padded with the last level.
        Artillery: hitched side.  Units: strength points, MP, morale points.
    remnant : bool[n, MAX_LEVELS]
        True on the remnant level (rule 17.31).
    flags : dict[str, bool[n]]
        One boolean array per name of :data:`FLAGS`.
    parent : int32[n]
        Battalion row of a named company (-1 otherwise).
    art_offensive, art_defensive, art_range, art_ammo, art_salvos : int8[n]
        Artillery prepared side (12.11), ammunition type (12.12), starting salvos (12.53);
        warships: offensive, defensive and range; coastal guns: ``art_offensive`` = value
        (dice), ``art_range`` = range.  0 elsewhere.
    airborne_prep : bool[n]
        2 MP to hitch or prepare (rule 6.6).
    leader_foot, leader_mot, leader_tactical : int8[n, 2]
        Leaders: [front, ADC] bonuses and tactical value (rule 14); 0 elsewhere.
    breakdown_n : int8[n]
        Companies on the Battalion Breakdown Chart (0: cannot break down).
    """

    ids: list
    index: dict
    design: list
    side: np.ndarray
    nationality: np.ndarray
    size: np.ndarray
    type: np.ndarray
    move_class: np.ndarray
    formation: np.ndarray
    formation_names: tuple
    integrity: np.ndarray
    integrity_names: tuple
    n_levels: np.ndarray
    steps: np.ndarray
    attack: np.ndarray
    defense: np.ndarray
    movement: np.ndarray
    morale: np.ndarray
    remnant: np.ndarray
    flags: dict
    parent: np.ndarray
    art_offensive: np.ndarray
    art_defensive: np.ndarray
    art_range: np.ndarray
    art_ammo: np.ndarray
    art_salvos: np.ndarray
    airborne_prep: np.ndarray
    leader_foot: np.ndarray
    leader_mot: np.ndarray
    leader_tactical: np.ndarray
    breakdown_n: np.ndarray

    @property
    def n(self) -> int:
        return len(self.ids)


def unit_arrays(t: UnitTables) -> UnitArrays:
    """Compile :class:`UnitTables` into dense per-piece arrays (see :class:`UnitArrays`)."""
    ids = list(t.pieces)
    n = len(ids)
    index = {p: i for i, p in enumerate(ids)}
    form_names = tuple(f for f in ("malta", "ram", "185", "4", "20", "80"))
    integ_names = tuple(sorted({d.integrity for d in t.designs.values() if d.integrity}))
    i8 = lambda: np.zeros(n, np.int8)  # noqa: E731
    side, nat, size, typ, mc, form = i8(), i8(), i8(), i8(), i8(), i8()
    integ = np.full(n, -1, np.int16)
    nlev, steps = i8(), i8()
    att = np.zeros((n, MAX_LEVELS), np.int8)
    dfn, mov, mor = att.copy(), att.copy(), att.copy()
    rem = np.zeros((n, MAX_LEVELS), bool)
    flags = {f: np.zeros(n, bool) for f in FLAGS}
    parent = np.full(n, -1, np.int32)
    aoff, adef, arng, aammo, asalv = i8(), i8(), i8(), i8(), i8()
    aprep = np.zeros(n, bool)
    lf, lm, lt = (np.zeros((n, 2), np.int8) for _ in range(3))
    bdn = i8()
    for i, pid in enumerate(ids):
        d = t.design_of(pid)
        side[i] = SIDES.index(d.side)
        nat[i] = NATIONALITIES.index(d.nationality)
        size[i] = SIZES.index(d.size)
        typ[i] = TYPES.index(d.type)
        mc[i] = MOVE_CLASSES.index(d.move_class)
        form[i] = form_names.index(d.formation) if d.formation in form_names else -1
        integ[i] = integ_names.index(d.integrity) if d.integrity else -1
        nlev[i] = len(d.levels)
        steps[i] = d.steps
        for k in range(MAX_LEVELS if d.levels else 0):
            lv = d.levels[min(k, len(d.levels) - 1)]
            att[i, k], dfn[i, k], mov[i, k], mor[i, k] = lv.attack, lv.defense, lv.movement, lv.morale
            rem[i, k] = lv.remnant and k < len(d.levels)
        for f in d.flags:
            flags[f][i] = True
        if d.parent:
            parent[i] = index[d.parent]
        if d.id in t.artillery:
            a = t.artillery[d.id]
            aoff[i], adef[i], arng[i], aammo[i], asalv[i], aprep[i] = (
                a.offensive, a.defensive, a.range, a.ammo_type, a.salvos, a.airborne_prep)
        if d.id in t.warships:
            w = t.warships[d.id]
            aoff[i], adef[i], arng[i] = w.offensive, w.defensive, w.range
        if d.id in t.coastal_guns:
            g = t.coastal_guns[d.id]
            aoff[i], arng[i] = g.value, g.range
        if d.id in t.leaders:
            for k, s in enumerate(("leader", "adc")):
                v = t.leaders[d.id][s]
                lf[i, k], lm[i, k], lt[i, k] = v.foot_bonus, v.mot_bonus, v.tactical
        bdn[i] = sum(c for _, c in t.breakdown.get(d.id, []))
    return UnitArrays(ids, index, [t.piece_design[p] for p in ids], side, nat, size, typ, mc, form, form_names,
                      integ, integ_names, nlev, steps, att, dfn, mov, mor, rem, flags, parent,
                      aoff, adef, arng, aammo, asalv, aprep, lf, lm, lt, bdn)
