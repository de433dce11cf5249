"""Island of Death scenarios (rule 22): ``scenarios/<name>.toml``.

A scenario file gives the time period, control, destroyed forts, beaches already
landed on, the printed victory counts (rule 22.29), the militia cup (rule 16.31),
the set-up (hex -> pieces with their starting strength), drop zone markers,
boxes (Follow-up, Disbandment), disbanded battalions, free placements
(strongpoints, rule 16.2), amphibious divisions (rule 22.36), the jump schedule
(rules 22.26, 22.35), warships (rule 16.7) and optional rules (rule 22.39).
``docs/data.md`` describes every key.

Unit references inside a scenario:

``"allied.uk.8m"``
    the piece at full strength (rule 2.1: unless the scenario says otherwise);
``"allied.uk.8m@2"``
    the piece at its strength level 2 (levels numbered as in ``unit_steps.csv``:
    1 = full strength; ``@remnant`` names the remnant level, rule 17.31).  The
    values then live only in ``unit_steps.csv``, so changing a unit's values
    never breaks a set-up row;
``"allied.uk.8m=4-6"``
    the piece at the strength level whose printed values are ``4-6`` (rule 22.1:
    units are listed by starting strength; ``4-6-6`` with movement too);
``"2*allied.uk.inf_coy"``
    two pieces of a generic design (the next unused ``<id>.<k>``).  A plain
    reference to a generic design means one piece.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DataError
from ..hexgrid import IOD_GRID, neighbours
from .common import (Col, Collector, check_source, did_you_mean, read_csv, read_text, read_toml, resolve_data_dir,
                     toml_line)
from .iod_units import UnitTables

SCENARIO_NAMES = ("intro", "hercules")
TURNS = ("AM", "noon", "PM", "night")          #: rule 4.0: three day turns and one night turn
FIRST_DATE = (6, 29)                            #: day 0 of the calendar: 29 June 1942
BOX_NAMES = ("followup.North", "followup.South", "followup.East", "followup.West", "disbandment")
MARKERS = ("drop_zone.ramcke", "drop_zone.folgore")
FREE_CONSTRAINTS = ("adjacent_to_beach", "airfield", "port", "any_land")
STICK_TYPES = ("leader", "hq", "paratrooper", "para_engineer", "para_artillery", "glider_artillery")
_REF_RE = re.compile(r"^(?:(\d+)\*)?([a-z0-9_.]+)(?:=(\d+-\d+(?:-\d+)?)|@(\d+|remnant))?$")
_DATE_RE = re.compile(r"^(0[67])-([0-3]\d)$")


def date_to_day(text: str) -> int:
    """``"06-30"`` -> 1: days after 29 June 1942 (June has 30 days).

    Raises
    ------
    ValueError
        If ``text`` is not a June/July ``MM-DD`` date on or after 29 June.
    """
    m = _DATE_RE.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a date MM-DD in June or July")
    month, day = int(m.group(1)), int(m.group(2))
    if (month == 6 and not 1 <= day <= 30) or (month == 7 and not 1 <= day <= 31):
        raise ValueError(f"{text!r} is not a calendar date")
    n = (day - 29) if month == 6 else (day + 1)
    if n < 0:
        raise ValueError(f"{text!r} is before 29 June, the first day of the campaign")
    return n


def day_to_date(day: int) -> str:
    """Inverse of :func:`date_to_day`: 0 -> ``"06-29"``, 2 -> ``"07-01"``."""
    return f"06-{29 + day}" if day <= 1 else f"07-{day - 1:02d}"


@dataclass(frozen=True)
class Placement:
    """One piece in a scenario: on a hex or in a box, at a strength level (1 = full)."""

    piece: str
    level: int
    side: str
    hex: str | None
    box: str | None
    source: str
    line: int | None


@dataclass(frozen=True)
class FreePlacement:
    """Pieces the owning player places himself (e.g. strongpoints, rule 16.2)."""

    side: str
    pieces: tuple
    constraint: str
    one_per_hex: bool
    default_hexes: tuple
    source: str


@dataclass(frozen=True)
class JumpTurn:
    """Airborne jump limits of one turn (rules 22.26, 22.35).

    ``max_sticks`` is a total over both formations (-1: use the per-nation limits),
    ``forced`` lists battalions that must jump this turn on marker ``at``.
    ``stick_types`` empty = any type.
    """

    day: int
    turn: int
    max_sticks: int
    max_sticks_german: int
    max_sticks_italian: int
    markers: bool
    forced: tuple
    at: str
    stick_types: tuple
    source: str


@dataclass
class Scenario:
    """A typed scenario (rule 22).

    Attributes
    ----------
    name, title, source : str
    first_day, last_day : int
        Days after 29 June 1942 (0 = 29 June).  The game runs from the Initial
        Segment of ``first_day`` to the night turn of ``last_day``.
    n_turns : int
        Game turns: 4 per day (AM, noon, PM, night; rule 4.0).
    delayed_reaction, air_attacks : bool
        Whether rules 17.7 and 17.5 apply.
    hq_return_last_day : int
        Last day on which an eliminated Axis HQ may still return (rule 16.82).
    control_axis_columns : tuple[int, int] or None
        Inclusive column range whose non-ocean hexes start Axis-controlled.
    control_axis_hexes : tuple[str]
        Further Axis-controlled hexes; everything else is Allied (rules 2.1, 22.23).
    forts_destroyed : tuple[str]
    landed_zones, landed_hexes : tuple[str]
        Beach zones / beach hexes where Axis units have landed before the start.
    allied_steps_eliminated, axis_steps_eliminated, forts_destroyed_count, axis_towns : int
        Printed counts for rule 20 at the start (rule 22.29).
    militia_in_cup : int
    militia_draw_random : bool
        Rule 16.31: draw this many of the militia pieces at random.
    setup : list[Placement]
        Pieces on the map.
    markers : dict[str, str]
        Drop zone markers on the map at the start (marker -> hex).
    boxes : list[Placement]
        Pieces in boxes (``followup.<Zone>``, ``disbandment``).
    box_purpose : dict[str, str]
        Piece -> ``jump`` / ``airfield`` for Disbandment Box pieces.
    attach : dict[str, str]
        Unassigned piece -> formation it is attached to (rule 15.2).
    disbanded : tuple[str]
        Battalions whose pieces start in the Disbandment Box (rule 13.1).
    free_placement : list[FreePlacement]
    amphibious : dict[str, list[Placement]]
        Division (``4``, ``20``, ``unassigned``) -> pieces for its Follow-up box (rule 22.36).
    jumps : list[JumpTurn]
        Turn-specific jump limits; ``jumps_after`` applies to every later AM/PM turn.
    jumps_after_max, jumps_after_turns : int, tuple[int]
    warships : tuple[str]
    options : dict[str, dict]
        Optional rules accepted (rule 22.39).
    eliminated : dict[str, tuple[str]]
        Pieces lost before the start (documentation of the printed counts).
    file : str
    """

    name: str
    title: str
    source: str
    first_day: int
    last_day: int
    delayed_reaction: bool
    air_attacks: bool
    hq_return_last_day: int
    control_axis_columns: tuple | None
    control_axis_hexes: tuple
    forts_destroyed: tuple
    landed_zones: tuple
    landed_hexes: tuple
    allied_steps_eliminated: int
    axis_steps_eliminated: int
    forts_destroyed_count: int
    axis_towns: int
    militia_in_cup: int
    militia_draw_random: bool
    setup: list = field(default_factory=list)
    markers: dict = field(default_factory=dict)
    boxes: list = field(default_factory=list)
    box_purpose: dict = field(default_factory=dict)
    attach: dict = field(default_factory=dict)
    disbanded: tuple = ()
    free_placement: list = field(default_factory=list)
    amphibious: dict = field(default_factory=dict)
    jumps: list = field(default_factory=list)
    jumps_after_max: int = 0
    jumps_after_turns: tuple = ()
    warships: tuple = ()
    options: dict = field(default_factory=dict)
    eliminated: dict = field(default_factory=dict)
    file: str = ""

    @property
    def n_days(self) -> int:
        return self.last_day - self.first_day + 1

    @property
    def n_turns(self) -> int:
        return 4 * self.n_days

    def pieces(self) -> list[str]:
        """Every piece the scenario uses (map, boxes, amphibious, free placement, warships)."""
        out = [p.piece for p in self.setup] + [p.piece for p in self.boxes]
        for lst in self.amphibious.values():
            out += [p.piece for p in lst]
        for fp in self.free_placement:
            out += list(fp.pieces)
        return out + list(self.warships)

    def control_axis(self, h: str) -> bool:
        """Whether land hex ``h`` starts Axis-controlled (rules 2.1, 22.23)."""
        if h in self.control_axis_hexes:
            return True
        if self.control_axis_columns:
            c = int(h[:2])
            return self.control_axis_columns[0] <= c <= self.control_axis_columns[1]
        return False

    def placement(self, piece: str) -> Placement | None:
        for p in self.setup + self.boxes + [q for v in self.amphibious.values() for q in v]:
            if p.piece == piece:
                return p
        return None


@dataclass
class MapView:
    """The little of the map a scenario check needs: terrain per hex and beach zones."""

    terrain: dict
    beach_zone: dict
    land: frozenset
    beach: frozenset
    airfield: frozenset
    port: frozenset
    town: frozenset

    @classmethod
    def from_dir(cls, folder: Path, collector: Collector | None = None) -> "MapView | None":
        """Read ``hexes.csv`` (MAP's file) if present; None when there is no map yet."""
        path = folder / "hexes.csv"
        if not path.is_file():
            return None
        spec = {"hex": Col(str, pattern=r"\d{4}"), "terrain": Col(str),
                "beach_zone": Col(str, required=False, default=""),
                "airfield": Col(bool, required=False, default=False),
                "port": Col(str, required=False, default=""),
                "town": Col(bool, required=False, default=False),
                "beach": Col(bool, required=False, default=False)}
        rows = read_csv(path, spec, unique=["hex"], collector=collector)
        terrain = {r.hex: r.terrain for r in rows}
        land = frozenset(h for h, t in terrain.items() if t != "ocean")
        beach = frozenset(r.hex for r in rows if r.beach or r.terrain == "beach")
        return cls(terrain, {r.hex: r.beach_zone for r in rows if r.beach_zone}, land, beach,
                   frozenset(r.hex for r in rows if r.airfield or r.terrain == "airfield"),
                   frozenset(r.hex for r in rows if r.port), frozenset(r.hex for r in rows if r.town))


#: Stacking weight in battalions (rule 7.1): companies and remnants count half,
#: HQs, leaders, coastal guns and militia not at all.
def _stack_weight(design, level: int) -> float:
    if design.size == "battalion":
        remnant = 0 < level <= len(design.levels) and design.levels[level - 1].remnant
        return 0.5 if remnant else 1.0
    if design.size in ("company", "strongpoint"):
        return 0.5
    return 0.0


def load_scenario(name_or_path: str | Path, units: UnitTables, data_dir: str | Path | None = None,
                  map_view: MapView | None = None, collector: Collector | None = None) -> Scenario:
    """Read and check one scenario file.

    Parameters
    ----------
    name_or_path : str or path
        ``intro`` / ``hercules`` (read from ``<data_dir>/scenarios/``) or a file path.
    units : UnitTables
        Counters from :func:`malta_sim.loaders.iod_units.load_units`.
    data_dir : path, optional
    map_view : MapView, optional
        When given, hexes are checked against the map (land, beach, adjacency).
    collector : Collector, optional
        Gather all problems instead of raising at the first.

    Returns
    -------
    Scenario

    Raises
    ------
    DataError
        Unknown unit or strength, piece used twice, bad hex id, ground unit on an
        ocean hex, coastal gun on a beach (16.51), stacking over four battalions
        (7.1), bad date, missing key, unknown option or box name.
    """
    folder = resolve_data_dir(data_dir)
    p = Path(name_or_path)
    path = p if p.suffix == ".toml" else folder / "scenarios" / f"{name_or_path}.toml"
    fname = str(path)
    doc = read_toml(path)
    col = collector if collector is not None else Collector()

    text_lines = read_text(path).split("\n")

    def find_line(needle: str | None, fld: str | None) -> int | None:
        """1-based line of ``needle`` (outside comments), searched from the start of the
        table named by ``fld`` (``setup[3].units`` -> the 4th ``[[setup]]``)."""
        start = 0
        if fld:
            m = re.match(r"^(\w+)(?:\[(\d+)\])?", fld)
            if m:
                name, idx = m.group(1), int(m.group(2) or 0)
                heads = [i for i, ln in enumerate(text_lines)
                         if ln.strip() in (f"[[{name}]]", f"[{name}]")]
                if len(heads) > idx:
                    start = heads[idx]
        if needle is None:
            return start + 1 if start else None
        for i in range(start, len(text_lines)):
            ln = text_lines[i].split("#", 1)[0] if not text_lines[i].lstrip().startswith("#") else ""
            if needle in ln:
                return i + 1
        return start + 1 if start else None

    def err(needle: str | None, fld: str | None, msg: str, line: int | None = None):
        ln = line if line is not None else find_line(needle, fld)
        e = DataError(fname, ln, fld, msg)
        if collector is None:
            raise e
        col.add(e)

    def need(tbl: dict, key: str, typ, where: str):
        if key not in tbl:
            err(f"[{where}]" if where else None, f"{where}.{key}" if where else key, "missing key")
            return None
        v = tbl[key]
        if typ is int and isinstance(v, bool) or not isinstance(v, typ):
            err(f"{key} =", f"{where}.{key}", f"must be {typ.__name__ if isinstance(typ, type) else typ}, got {v!r}")
            return None
        return v

    def src(tbl: dict, where: str) -> str:
        s = tbl.get("source")
        if not isinstance(s, str):
            err(f"[{where}]", f"{where}.source", "missing source ('rule N.NN' or 'reconstructed')")
            return "reconstructed"
        msg = check_source(s)
        if msg:
            err(s, f"{where}.source", msg)
        return s

    def day_of(text, fld):
        try:
            return date_to_day(str(text))
        except ValueError as e:
            err(f'"{text}"', fld, str(e))
            return 0

    sc = doc.get("scenario")
    if not isinstance(sc, dict):
        raise DataError(fname, None, "scenario", "missing [scenario] table")
    name = need(sc, "name", str, "scenario") or "?"
    first = day_of(need(sc, "first_date", str, "scenario") or "06-29", "scenario.first_date")
    last = day_of(need(sc, "last_date", str, "scenario") or "06-29", "scenario.last_date")
    if last < first:
        err("last_date", "scenario.last_date", "must not be before first_date")
    hq_last = day_of(sc.get("hq_return_last_date", sc.get("last_date", "06-29")), "scenario.hq_return_last_date")

    ctl = doc.get("control", {})
    src(ctl, "control")
    cols = ctl.get("axis_columns")
    if cols is not None and (not isinstance(cols, list) or len(cols) != 2 or not all(isinstance(c, int) for c in cols)):
        err("axis_columns", "control.axis_columns", "must be [first, last] column numbers")
        cols = None
    axis_hexes = tuple(ctl.get("axis_hexes", []))
    forts = doc.get("forts", {})
    src(forts, "forts")
    landed = doc.get("landed_beaches", {})
    src(landed, "landed_beaches")
    vic = doc.get("victory", {})
    src(vic, "victory")
    mil = doc.get("militia", {})
    src(mil, "militia")
    militia_n = need(mil, "pieces_in_cup", int, "militia") or 0
    n_militia = sum(d.count for d in units.designs.values() if d.type == "militia")
    if not 0 <= militia_n <= n_militia:
        err("pieces_in_cup", "militia.pieces_in_cup", f"{militia_n} is not between 0 and the {n_militia} militia pieces (rule 16.31)")

    s = Scenario(
        name=name, title=sc.get("title", name), source=src(sc, "scenario"), first_day=first, last_day=last,
        delayed_reaction=bool(sc.get("delayed_reaction", False)), air_attacks=bool(sc.get("air_attacks", False)),
        hq_return_last_day=hq_last, control_axis_columns=tuple(cols) if cols else None,
        control_axis_hexes=axis_hexes, forts_destroyed=tuple(forts.get("destroyed", [])),
        landed_zones=tuple(landed.get("zones", [])), landed_hexes=tuple(landed.get("hexes", [])),
        allied_steps_eliminated=need(vic, "allied_steps_eliminated", int, "victory") or 0,
        axis_steps_eliminated=need(vic, "axis_steps_eliminated", int, "victory") or 0,
        forts_destroyed_count=int(vic.get("forts_destroyed", 0)), axis_towns=int(vic.get("axis_towns", 0)),
        militia_in_cup=militia_n, militia_draw_random=bool(mil.get("draw_random", False)), file=fname)

    # ------------------------------------------------------------ unit references
    used: dict[str, str] = {}
    next_generic: dict[str, int] = {}

    def resolve(ref, side: str | None, where: str) -> list[tuple[str, int]]:
        if not isinstance(ref, str):
            err(None, where, f"unit reference must be a string, got {ref!r}")
            return []
        m = _REF_RE.match(ref.strip())
        if not m:
            err(f'"{ref}"', where, f"{ref!r} is not a unit reference (id, id@2 for strength level 2, id=4-6 for "
                "the level printed 4-6, or n*id)")
            return []
        n_txt, uid, label, level_txt = m.groups()
        d = units.designs.get(uid)
        if d is None:
            if uid in units.piece_design:
                d = units.designs[units.piece_design[uid]]
                ids = [uid]
            else:
                err(f'"{ref}"', where, f"unknown unit {uid!r} (not in units.csv)"
                    + did_you_mean(uid, list(units.designs) + list(units.piece_design)))
                return []
        else:
            ids = None
        if side and d.side != side:
            err(f'"{ref}"', where, f"{uid!r} is an {d.side} unit, listed for the {side} side")
        level = 1
        levels = ", ".join(f"@{k} = {x.label()}" + (" (remnant)" if x.remnant else "")
                           for k, x in enumerate(d.levels, start=1))
        if label:
            lv = d.level_for(label)
            if lv is None:
                err(f'"{ref}"', where, f"{uid!r} has no strength level {label} (levels: {levels})")
            else:
                level = lv
        elif level_txt:
            if level_txt == "remnant":
                rem = [k for k, x in enumerate(d.levels, start=1) if x.remnant]
                if not rem:
                    err(f'"{ref}"', where, f"{uid!r} has no remnant level (levels: {levels})")
                else:
                    level = rem[0]
            elif not 1 <= int(level_txt) <= len(d.levels):
                err(f'"{ref}"', where, f"{uid!r} has no strength level {level_txt} (levels: {levels})")
            else:
                level = int(level_txt)
        n = int(n_txt) if n_txt else 1
        if ids is None:
            if d.count == 1:
                if n != 1:
                    err(f'"{ref}"', where, f"{uid!r} is a single piece; '{n}*' needs a generic design")
                ids = [d.id]
            else:
                k0 = next_generic.get(d.id, 0)
                if k0 + n > d.count:
                    err(f'"{ref}"', where, f"only {d.count} pieces of {uid!r} exist; this needs {k0 + n}")
                    n = max(0, d.count - k0)
                ids = d.piece_ids()[k0:k0 + n]
                next_generic[d.id] = k0 + n
        out = []
        for pid in ids:
            if pid in used:
                err(f'"{ref}"', where, f"piece {pid!r} is used twice (first in {used[pid]})")
                continue
            used[pid] = where
            out.append((pid, level))
        return out

    def check_hex(h, where, design=None) -> bool:
        if not (isinstance(h, str) and re.fullmatch(r"\d{4}", h) and IOD_GRID.contains(h)):
            err(f'"{h}"', where, f"{h!r} is not a hex id on the map grid (XXYY, columns 01-26, rows 01-20)")
            return False
        if map_view is not None and design is not None:
            if h not in map_view.terrain:
                err(f'"{h}"', where, f"hex {h} is not in hexes.csv")
                return False
            if h not in map_view.land and design.type != "warship":
                err(f'"{h}"', where, f"hex {h} is an ocean hex; {design.id!r} is a ground unit")
                return False
            if design.type == "coastal_gun" and h in map_view.beach:
                err(f'"{h}"', where, f"coastal gun {design.id!r} on beach hex {h} (rule 16.51)")
            if design.type == "strongpoint" and (h in map_view.beach or not any(
                    n in map_view.beach for n in neighbours(h) if n)):
                err(f'"{h}"', where, f"strongpoint on hex {h}, which is not next to a beach hex (rule 16.2)")
        return True

    # ------------------------------------------------------------ set-up
    stack: dict[str, float] = {}
    for i, row in enumerate(doc.get("setup", [])):
        where = f"setup[{i}]"
        side = need(row, "side", str, where)
        h = need(row, "hex", str, where)
        rsrc = src(row, where)
        if side not in ("axis", "allied"):
            err(f'hex = "{h}"', f"{where}.side", f"side must be 'axis' or 'allied', got {side!r}")
            continue
        for ref in row.get("units", []):
            for pid, level in resolve(ref, side, where + ".units"):
                d = units.design_of(pid)
                if h is None or not check_hex(h, where + ".hex", d):
                    continue
                s.setup.append(Placement(pid, level, side, h, None, rsrc, find_line(f'hex = "{h}"', where)))
                stack[h] = stack.get(h, 0.0) + _stack_weight(d, level)
    for h, w in stack.items():
        if w > 4.0:
            err(f'hex = "{h}"', "setup.units", f"hex {h} stacks {w:g} battalions; the limit is 4 (rule 7.1)")

    for i, row in enumerate(doc.get("markers", [])):
        where = f"markers[{i}]"
        m = need(row, "marker", str, where)
        h = need(row, "hex", str, where)
        src(row, where)
        if m not in MARKERS:
            err(f'"{m}"', f"{where}.marker", f"unknown marker {m!r}; one of {', '.join(MARKERS)}")
        elif h and check_hex(h, where + ".hex"):
            if map_view is not None and h not in map_view.land:
                err(f'"{h}"', f"{where}.hex", f"drop zone marker on ocean hex {h} (rule 19.42)")
            s.markers[m] = h

    # ------------------------------------------------------------ boxes
    for i, row in enumerate(doc.get("boxes", [])):
        where = f"boxes[{i}]"
        box = need(row, "box", str, where)
        rsrc = src(row, where)
        if box not in BOX_NAMES:
            err(f'"{box}"', f"{where}.box", f"unknown box {box!r}; one of {', '.join(BOX_NAMES)}")
            continue
        attach = row.get("attach_to")
        purpose = row.get("purpose")
        if purpose is not None and purpose not in ("jump", "airfield"):
            err(f'"{purpose}"', f"{where}.purpose", "purpose must be 'jump' or 'airfield'")
        for ref in row.get("units", []):
            for pid, level in resolve(ref, "axis", where + ".units"):
                s.boxes.append(Placement(pid, level, "axis", None, box, rsrc, find_line(f'box = "{box}"', where)))
                if purpose:
                    s.box_purpose[pid] = purpose
                d = units.design_of(pid)
                if attach and "unassigned" in d.flags:
                    if attach not in ("4", "20"):
                        err(f'"{attach}"', f"{where}.attach_to", "unassigned units join the 4th or the 20th Division (rule 15.2)")
                    s.attach[pid] = attach

    for i, row in enumerate(doc.get("disbanded", [])):
        where = f"disbanded[{i}]"
        src(row, where)
        b = need(row, "battalion", str, where)
        d = units.designs.get(b) if b else None
        if d is None or b not in units.breakdown:
            err(f'"{b}"', f"{where}.battalion", f"{b!r} is not a battalion on the Battalion Breakdown Chart")
        else:
            s.disbanded = s.disbanded + (b,)
            used.setdefault(b, where)

    for i, row in enumerate(doc.get("free_placement", [])):
        where = f"free_placement[{i}]"
        rsrc = src(row, where)
        side = need(row, "side", str, where) or "allied"
        cons = need(row, "constraint", str, where)
        if cons not in FREE_CONSTRAINTS:
            err(f'"{cons}"', f"{where}.constraint", f"unknown constraint; one of {', '.join(FREE_CONSTRAINTS)}")
        pieces = [pid for ref in row.get("units", []) for pid, _ in resolve(ref, side, where + ".units")]
        dh = tuple(row.get("default_hexes", []))
        if dh and len(dh) != len(pieces):
            err("default_hexes", f"{where}.default_hexes", f"{len(dh)} hexes for {len(pieces)} pieces")
        if row.get("one_per_hex") and len(set(dh)) != len(dh):
            err("default_hexes", f"{where}.default_hexes", "a hex appears twice (one per hex, rule 16.2)")
        for h in dh:
            if not check_hex(h, f"{where}.default_hexes", units.design_of(pieces[0]) if pieces else None):
                continue
            if map_view is not None and cons == "adjacent_to_beach":
                if h in map_view.beach or not any(n in map_view.beach for n in neighbours(h) if n):
                    err(f'"{h}"', f"{where}.default_hexes", f"hex {h} is not a non-beach hex adjacent to a beach hex (rule 16.2)")
        s.free_placement.append(FreePlacement(side, tuple(pieces), cons or "", bool(row.get("one_per_hex", False)), dh, rsrc))

    for i, row in enumerate(doc.get("amphibious", [])):
        where = f"amphibious[{i}]"
        rsrc = src(row, where)
        div = need(row, "division", str, where)
        if div not in ("4", "20", "unassigned"):
            err(f'"{div}"', f"{where}.division", "division must be '4', '20' or 'unassigned' (rule 18.0)")
            continue
        lst = s.amphibious.setdefault(div, [])
        for ref in row.get("units", []):
            for pid, level in resolve(ref, "axis", where + ".units"):
                d = units.design_of(pid)
                if "amphibious" not in d.flags and d.type != "leader":
                    err(f'"{ref}"', f"{where}.units", f"{pid!r} cannot make amphibious landings (rule 18.0)")
                lst.append(Placement(pid, level, "axis", None, "followup", rsrc, find_line(f'division = "{div}"', where)))

    # ------------------------------------------------------------ jumps
    for i, row in enumerate(doc.get("jumps", [])):
        where = f"jumps[{i}]"
        rsrc = src(row, where)
        day = day_of(need(row, "date", str, where) or "06-29", f"{where}.date")
        turn = need(row, "turn", str, where)
        if turn not in ("AM", "PM"):
            err(f'turn = "{turn}"', f"{where}.turn", "jumps happen only in AM and PM turns (rules 19.33, 22.35)")
            continue
        forced = tuple(pid for ref in row.get("forced", []) for pid in [ref] if ref in units.designs)
        for ref in row.get("forced", []):
            if ref not in units.designs:
                err(f'"{ref}"', f"{where}.forced", f"unknown unit {ref!r}" + did_you_mean(ref, units.designs))
            elif s.placement(ref) is None or s.placement(ref).box != "disbandment":
                err(f'"{ref}"', f"{where}.forced", f"{ref!r} must be in the Disbandment Box to jump (rule 22.26)")
        at = row.get("at", "")
        if at and at not in MARKERS:
            err(f'"{at}"', f"{where}.at", f"unknown marker {at!r}; one of {', '.join(MARKERS)}")
        types = tuple(row.get("stick_types", []))
        for t in types:
            if t not in STICK_TYPES:
                err(f'"{t}"', f"{where}.stick_types", f"unknown stick type {t!r}; one of {', '.join(STICK_TYPES)}")
        s.jumps.append(JumpTurn(day, TURNS.index(turn), int(row.get("max_sticks", -1)),
                                int(row.get("max_sticks_german", -1)), int(row.get("max_sticks_italian", -1)),
                                bool(row.get("markers", False)), forced, at, types, rsrc))
    ja = doc.get("jumps_after", {})
    if ja:
        src(ja, "jumps_after")
        s.jumps_after_max = int(ja.get("max_sticks", 0))
        s.jumps_after_turns = tuple(TURNS.index(t) for t in ja.get("turns", []) if t in TURNS)

    ws = doc.get("warships", {})
    if ws:
        src(ws, "warships")
        ids = []
        for ref in ws.get("units", []):
            for pid, _ in resolve(ref, "axis", "warships.units"):
                if units.design_of(pid).type != "warship":
                    err(f'"{ref}"', "warships.units", f"{pid!r} is not a warship")
                ids.append(pid)
        s.warships = tuple(ids)

    for i, row in enumerate(doc.get("options", [])):
        where = f"options[{i}]"
        src(row, where)
        nm = need(row, "name", str, where)
        if nm not in ("variable_allied_placement", "delayed_landings"):
            err(f'"{nm}"', f"{where}.name", "unknown optional rule; rule 22.39 has variable_allied_placement, delayed_landings")
        s.options[nm] = dict(row)

    el = doc.get("eliminated", {})
    if el:
        src(el, "eliminated")
        for side in ("allied", "axis"):
            for ref in el.get(side, []):
                if ref not in units.designs:
                    err(f'"{ref}"', f"eliminated.{side}", f"unknown unit {ref!r}" + did_you_mean(ref, units.designs))
                elif ref in used:
                    err(f'"{ref}"', f"eliminated.{side}", f"{ref!r} is listed as eliminated but is also in play")
            s.eliminated[side] = tuple(el.get(side, []))

    # ------------------------------------------------------------ cross checks with the map
    if map_view is not None:
        for h in s.forts_destroyed:
            if map_view.terrain.get(h) != "fort":
                err(f'"{h}"', "forts.destroyed", f"hex {h} is not a fort on the map")
        for h in s.landed_hexes:
            if h not in map_view.beach:
                err(f'"{h}"', "landed_beaches.hexes", f"hex {h} is not a beach hex on the map")
        zones = set(map_view.beach_zone.values())
        for z in s.landed_zones:
            if z not in zones:
                err(f'"{z}"', "landed_beaches.zones", f"unknown beach zone {z!r}; the map has {', '.join(sorted(zones))}")
        for p_ in s.setup:
            if p_.side == "allied" and s.control_axis(p_.hex):
                err(f'"{p_.hex}"', "setup.hex", f"Allied {p_.piece!r} on Axis-controlled hex {p_.hex} (rule 22.23)")
    if collector is None:
        col.raise_if_any()
    return s


def load_scenarios(units: UnitTables, data_dir: str | Path | None = None, map_view: MapView | None = None,
                   collector: Collector | None = None) -> dict[str, Scenario]:
    """Every ``scenarios/*.toml`` of the data directory, by scenario name.

    Raises
    ------
    DataError
        See :func:`load_scenario`; also when the file name and ``scenario.name`` differ.
    """
    folder = resolve_data_dir(data_dir)
    out: dict[str, Scenario] = {}
    files = sorted((folder / "scenarios").glob("*.toml"))
    if not files:
        e = DataError(str(folder / "scenarios"), None, None, "no scenario files (*.toml)")
        if collector is None:
            raise e
        collector.add(e)
    for f in files:
        try:
            s = load_scenario(f, units, folder, map_view, collector)
        except DataError as e:
            if collector is None:
                raise
            collector.add(e)
            continue
        if s.name != f.stem:
            e = DataError(str(f), toml_line(f, "name ="), "scenario.name", f"name {s.name!r} differs from the file name {f.stem!r}")
            if collector is None:
                raise e
            collector.add(e)
        out[s.name] = s
    return out
