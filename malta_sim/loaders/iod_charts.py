"""Island of Death charts as arrays: Combat Results Table with its terrain lines,
Bombardment Table, Drop Table and Scatter Diagram.

Files (in the data directory, default the packaged ``malta_sim/data/island_of_death``):

``crt_lines.csv``
    ``line, title, time (day|night), lowest, highest, terrains, defender_rank, source``.
    ``lowest`` / ``highest`` are odds columns (``1:3``, ``6:1``); ``terrains`` is a
    ``;``-separated list of hex terrains whose defenders use the line (rule 9.3 f),
    or ``all`` for the night line (rule 10.2).  ``defender_rank``: larger = more
    favourable to the defender (used to pick the line of a hex with several terrains).
``crt.csv``
    ``line, column, roll, result, source``: one row per line x column x 2d6 roll
    (2..12) for every column from the line's lowest to its highest.  ``result`` is
    ``A/D``; each side is ``-`` or a hit count and/or ``D`` / ``Z`` (rule 9.4),
    e.g. ``-/3D``, ``1/1``, ``2D/-``.
``bombardment_lines.csv``
    ``stack, min_strength, source``: rows of the Bombardment Table by stacking
    total in battalions (the last row means "this many or more") and the least
    bombardment strength that has any effect on that row (rule 10.12).
``bombardment.csv``
    ``stack, column, roll, result, source``; columns are bombardment strengths
    (4 and 6 are columns, 5 is not); results ``-``, ``D``, ``Z``, ``1``, ``2``.
``drop_table.csv``
    ``roll_min, roll_max, marker, stick, source``: modified 2d6 ranges (inclusive,
    together covering every integer from the first ``roll_min`` to the last
    ``roll_max``) to a result for a drop zone marker and for a stick: ``on_target``,
    ``adjacent`` (markers only), ``half``, ``one``, ``two`` (rules 19.41, 19.44).
``scatter.csv``
    ``die, direction, source``: one die (1..6) to a hex direction ``N NE SE S SW NW``
    (the :mod:`malta_sim.hexgrid` direction order 0..5).

Odds levels.  Whole-number odds are coded as one integer *level* so that one
column shift is one level (rule 9.3 e): ``n:1`` is level ``n`` and ``1:n`` is level
``2 - n`` (so 1:1 = 1, 1:2 = 0, 1:3 = -1, 2:1 = 2, 6:1 = 6).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DataError
from .common import Col, read_csv, resolve_data_dir, source_col

#: Effect codes of one side of a CRT result (rule 9.41).
EFFECT_NONE, EFFECT_D, EFFECT_Z = 0, 1, 2
EFFECT_LETTERS = ("", "D", "Z")

#: Bombardment result codes (rule 10.12).
BOMB_RESULTS = ("-", "D", "Z", "1", "2")
BOMB_NONE, BOMB_D, BOMB_Z, BOMB_1, BOMB_2 = range(5)

#: Drop Table result codes (rules 19.41, 19.44).
DROP_RESULTS = ("on_target", "adjacent", "half", "one", "two")
DROP_ON_TARGET, DROP_ADJACENT, DROP_HALF, DROP_ONE, DROP_TWO = range(5)

DIRECTIONS = ("N", "NE", "SE", "S", "SW", "NW")

_SIDE_RE = re.compile(r"^(?:-|(\d+)?([DZ])?)$")
_ODDS_RE = re.compile(r"^(\d+):(\d+)$")


def odds_label_to_level(label: str) -> int:
    """``"6:1"`` -> 6, ``"1:3"`` -> -1 (see module docstring).

    Raises
    ------
    ValueError
        If the label is not whole-number odds ``n:1`` or ``1:n`` with n >= 1.
    """
    m = _ODDS_RE.match(label.strip())
    if not m:
        raise ValueError(f"{label!r} is not odds like 3:1 or 1:2")
    a, d = int(m.group(1)), int(m.group(2))
    if a >= 1 and d == 1:
        return a
    if a == 1 and d >= 1:
        return 2 - d
    raise ValueError(f"{label!r} is not whole-number odds (n:1 or 1:n)")


def level_to_odds_label(level: int) -> str:
    """Inverse of :func:`odds_label_to_level`: 6 -> ``"6:1"``, -1 -> ``"1:3"``."""
    level = int(level)
    return f"{level}:1" if level >= 1 else f"1:{2 - level}"


def parse_result(text: str) -> tuple[int, int, int, int]:
    """Parse a CRT result ``A/D`` into ``(att_hits, att_effect, def_hits, def_effect)``.

    Raises
    ------
    ValueError
        If the text is not a valid result.
    """
    parts = text.strip().split("/")
    if len(parts) != 2:
        raise ValueError(f"{text!r} is not a result 'A/D' (e.g. -/3D, 1/1, 2D/-)")
    out = []
    for p in parts:
        m = _SIDE_RE.match(p.strip())
        if not m or p.strip() == "":
            raise ValueError(f"{text!r}: side {p!r} must be '-' or hits and/or D/Z (e.g. 3D, 1, Z)")
        hits = int(m.group(1)) if m.group(1) else 0
        eff = {None: EFFECT_NONE, "D": EFFECT_D, "Z": EFFECT_Z}[m.group(2)]
        out += [hits, eff]
    return out[0], out[1], out[2], out[3]


def format_result(att_hits: int, att_eff: int, def_hits: int, def_eff: int) -> str:
    """Inverse of :func:`parse_result`."""

    def side(h, e):
        s = (str(int(h)) if h else "") + EFFECT_LETTERS[int(e)]
        return s or "-"

    return f"{side(att_hits, att_eff)}/{side(def_hits, def_eff)}"


@dataclass
class IodCharts:
    """The charts as dense arrays (shared, read-only static data for the kernels).

    Attributes
    ----------
    crt_columns : tuple of str
        Labels of the common odds-column scale, weakest first (``n_cols``).
    col_level : int32[n_cols]
        Odds level of each column (strictly increasing).
    line_names, line_titles : tuple of str
        CRT terrain lines (``n_lines``).
    line_cols : int32[n_lines, 2]
        Lowest and highest column index of each line (rule 9.3 g).
    line_night : bool[n_lines]
        True for the night line (rule 10.2).
    line_rank : int32[n_lines]
        Defender rank (larger = more favourable to the defender, rule 9.3 f).
    night_line : int
        Index of the night line.
    terrain_line : dict str -> int
        Day line of each hex terrain.
    crt : int8[n_lines, n_cols, 13, 4]
        ``crt[line, col, roll]`` = (attacker hits, attacker effect, defender hits,
        defender effect); effect 0 none, 1 D, 2 Z; roll index = the 2d6 total
        (2..12; rows 0-1 unused); ``-1`` everywhere outside the line's columns.
    bomb_columns : int32[n_bcols]
        Bombardment strength heading each column (increasing).
    bomb_min_strength : int32[n_stacks]
        Least effective strength per stacking row (row ``s`` = ``s + 1`` battalions).
    bomb : int8[n_stacks, n_bcols, 13]
        Bombardment result code (0 ``-``, 1 D, 2 Z, 3 one step, 4 two steps).
    drop_roll_min, drop_roll_max : int32[n_drop]
        Modified 2d6 ranges of the Drop Table rows (first row open below, last
        row open above).
    drop_marker, drop_stick : int8[n_drop]
        Drop Table result code per row for markers / sticks (0 on target,
        1 adjacent, 2 half, 3 one, 4 two).
    scatter_dir : int8[7]
        Direction (0..5, N NE SE S SW NW) for die 1..6 (index 0 unused).
    files : dict str -> str
        Paths the tables were read from.
    """

    crt_columns: tuple
    col_level: np.ndarray
    line_names: tuple
    line_titles: tuple
    line_cols: np.ndarray
    line_night: np.ndarray
    line_rank: np.ndarray
    night_line: int
    terrain_line: dict
    crt: np.ndarray
    bomb_columns: np.ndarray
    bomb_min_strength: np.ndarray
    bomb: np.ndarray
    drop_roll_min: np.ndarray
    drop_roll_max: np.ndarray
    drop_marker: np.ndarray
    drop_stick: np.ndarray
    scatter_dir: np.ndarray
    files: dict

    def line_index(self, name: str) -> int:
        """Index of a CRT line by name (``OptionError``-free; raises KeyError)."""
        return self.line_names.index(name)

    def line_for_terrains(self, terrains, night: bool = False) -> int:
        """The CRT line for a defending hex (rules 9.3 f, 10.2).

        Parameters
        ----------
        terrains : iterable of str
            Terrains of the defending hex.
        night : bool
            Night turn: always the night line.

        Returns
        -------
        int
            The line most favourable to the defender among the terrains' lines.

        Raises
        ------
        KeyError
            For a terrain no day line lists.
        """
        if night:
            return self.night_line
        best = -1
        for t in terrains:
            li = self.terrain_line[t]
            if best < 0 or self.line_rank[li] > self.line_rank[best]:
                best = li
        if best < 0:
            raise KeyError("no terrain given")
        return best


def _odds_check(v: str) -> str | None:
    try:
        odds_label_to_level(v)
    except ValueError as e:
        return str(e)
    return None


def _result_check(v: str) -> str | None:
    try:
        parse_result(v)
    except ValueError as e:
        return str(e)
    return None


def _tec_lines(folder: Path) -> dict[str, tuple[str, int]] | None:
    """Hex terrains of the Terrain Effects Chart in the same folder, if present,
    with the CRT line the TEC names for each (``""`` when it has no
    ``crt_line`` column) and the TEC line number."""
    p = folder / "terrain_effects.csv"
    if not p.is_file():
        return None
    try:
        rows = read_csv(p, {"terrain": Col(str), "kind": Col(str)})
    except DataError:
        return None
    return {r.terrain: (str(r.get("crt_line", "")).strip(), r.line) for r in rows if r.kind == "hex"}


def load_charts(data_dir: str | Path | None = None) -> IodCharts:
    """Read and validate the chart files into :class:`IodCharts`.

    Parameters
    ----------
    data_dir : path, optional
        Data directory; the packaged Island of Death data when ``None``.

    Returns
    -------
    IodCharts

    Raises
    ------
    DataError
        Naming file, line and field: missing file or column, bad odds label or
        result code, roll outside 2..12, duplicate or missing cell, cell outside
        its line's columns, unknown line or terrain, gaps in the Drop Table,
        a Scatter Diagram that does not map each die to a distinct direction.
    """
    folder = resolve_data_dir(data_dir)
    files = {
        k: str(folder / f"{k}.csv")
        for k in ("crt_lines", "crt", "bombardment_lines", "bombardment", "drop_table", "scatter")
    }

    # ---- CRT lines -------------------------------------------------------
    f = files["crt_lines"]
    lines = read_csv(
        f,
        {
            "line": Col(str, pattern=r"[a-z0-9_]+"),
            "title": Col(str, required=False, default=""),
            "time": Col(str, choices=("day", "night")),
            "lowest": Col(str, check=_odds_check),
            "highest": Col(str, check=_odds_check),
            "terrains": Col(str),
            "defender_rank": Col(int, min=0, max=99),
            "source": source_col(),
        },
        unique=["line"],
    )
    if not lines:
        raise DataError(f, None, None, "no CRT lines")
    night = [r for r in lines if r.time == "night"]
    if len(night) != 1:
        raise DataError(f, (night[1].line if len(night) > 1 else None), "time",
                        f"exactly one night line is required (rule 10.2), found {len(night)}")
    tec = _tec_lines(folder)
    known = None if tec is None else {t for t, (ln, _) in tec.items() if ln not in ("none",)}
    terrain_line: dict[str, int] = {}
    for i, r in enumerate(lines):
        lo, hi = odds_label_to_level(r.lowest), odds_label_to_level(r.highest)
        if lo > hi:
            raise DataError(f, r.line, "highest", f"{r.highest} is below the lowest column {r.lowest}")
        if r.time == "night":
            continue
        for t in [x.strip() for x in r.terrains.split(";") if x.strip()]:
            if known is not None and t not in known:
                raise DataError(f, r.line, "terrains",
                                f"unknown terrain {t!r} (terrain_effects.csv hex terrains: {', '.join(sorted(known))})")
            if t in terrain_line:
                raise DataError(f, r.line, "terrains", f"terrain {t!r} is already on line {lines[terrain_line[t]]['line']}")
            terrain_line[t] = i
    line_index = {r["line"]: i for i, r in enumerate(lines)}
    if tec is not None:
        # the TEC also names each terrain's CRT line: both files must agree (rule 9.3 f)
        for t, (ln, tec_line) in tec.items():
            if not ln or ln == "none":
                continue
            if ln not in line_index:
                raise DataError(str(folder / "terrain_effects.csv"), tec_line, "crt_line",
                                f"CRT line {ln!r} of terrain {t!r} is not in crt_lines.csv ({', '.join(line_index)})")
            if terrain_line.get(t) != line_index[ln]:
                raise DataError(f, None, "terrains",
                                f"terrain {t!r} uses line {ln!r} in terrain_effects.csv but "
                                f"{lines[terrain_line[t]]['line'] if t in terrain_line else 'no line'!r} here")

    # ---- CRT cells -------------------------------------------------------
    f = files["crt"]
    cells = read_csv(
        f,
        {
            "line": Col(str, choices=tuple(line_index)),
            "column": Col(str, check=_odds_check),
            "roll": Col(int, min=2, max=12),
            "result": Col(str, check=_result_check),
            "source": source_col(),
        },
        unique=["line", "column", "roll"],
    )
    levels = sorted({odds_label_to_level(c.column) for c in cells}
                    | {odds_label_to_level(r.lowest) for r in lines}
                    | {odds_label_to_level(r.highest) for r in lines})
    col_of = {lv: j for j, lv in enumerate(levels)}
    n_lines, n_cols = len(lines), len(levels)
    crt = np.full((n_lines, n_cols, 13, 4), -1, dtype=np.int8)
    line_cols = np.zeros((n_lines, 2), dtype=np.int32)
    for i, r in enumerate(lines):
        line_cols[i] = col_of[odds_label_to_level(r.lowest)], col_of[odds_label_to_level(r.highest)]
    for c in cells:
        li = line_index[c["line"]]
        j = col_of[odds_label_to_level(c.column)]
        if not (line_cols[li, 0] <= j <= line_cols[li, 1]):
            raise DataError(f, c.line, "column",
                            f"{c.column} is outside line {c['line']} ({lines[li].lowest} to {lines[li].highest})")
        crt[li, j, c.roll] = parse_result(c.result)
    for i, r in enumerate(lines):
        for j in range(line_cols[i, 0], line_cols[i, 1] + 1):
            for roll in range(2, 13):
                if crt[i, j, roll, 0] < 0:
                    raise DataError(f, None, "result",
                                    f"missing cell: line {r['line']}, column {level_to_odds_label(levels[j])}, roll {roll}")

    # ---- Bombardment Table ----------------------------------------------
    f = files["bombardment_lines"]
    brows = read_csv(f, {"stack": Col(int, min=1, max=20), "min_strength": Col(int, min=0, max=999),
                         "source": source_col()}, unique=["stack"])
    stacks = sorted(r.stack for r in brows)
    if stacks != list(range(1, len(stacks) + 1)):
        raise DataError(f, None, "stack", f"rows must be 1..N battalions without gaps, found {stacks}")
    min_strength = np.zeros(len(stacks), dtype=np.int32)
    for r in brows:
        min_strength[r.stack - 1] = r.min_strength
    f = files["bombardment"]
    bcells = read_csv(
        f,
        {
            "stack": Col(int, min=1, max=len(stacks)),
            "column": Col(int, min=1, max=999),
            "roll": Col(int, min=2, max=12),
            "result": Col(str, choices=BOMB_RESULTS),
            "source": source_col(),
        },
        unique=["stack", "column", "roll"],
    )
    bcols = sorted({c.column for c in bcells})
    bcol_of = {v: j for j, v in enumerate(bcols)}
    bomb = np.full((len(stacks), len(bcols), 13), -1, dtype=np.int8)
    for c in bcells:
        bomb[c.stack - 1, bcol_of[c.column], c.roll] = BOMB_RESULTS.index(c.result)
    for s in range(len(stacks)):
        for j, cv in enumerate(bcols):
            for roll in range(2, 13):
                if bomb[s, j, roll] < 0:
                    raise DataError(f, None, "result", f"missing cell: stack {s + 1}, column {cv}, roll {roll}")

    # ---- Drop Table -------------------------------------------------------
    f = files["drop_table"]
    drows = read_csv(
        f,
        {
            "roll_min": Col(int, min=-99, max=99),
            "roll_max": Col(int, min=-99, max=99),
            "marker": Col(str, choices=DROP_RESULTS),
            "stick": Col(str, choices=tuple(x for x in DROP_RESULTS if x != "adjacent")),
            "source": source_col(),
        },
    )
    if not drows:
        raise DataError(f, None, None, "no Drop Table rows")
    drows.sort(key=lambda r: r.roll_min)
    for a, b in zip(drows, drows[1:]):
        if b.roll_min != a.roll_max + 1:
            raise DataError(f, b.line, "roll_min",
                            f"{b.roll_min} does not follow the previous row's roll_max {a.roll_max} (gap or overlap)")
    for r in drows:
        if r.roll_min > r.roll_max:
            raise DataError(f, r.line, "roll_max", f"{r.roll_max} is below roll_min {r.roll_min}")
    if drows[0].roll_min > 0 or drows[-1].roll_max < 16:
        raise DataError(f, None, "roll_min", "the rows must cover at least modified rolls 0..16 "
                        "(2d6 with German -1, AA and solitaire +2; first and last rows are open-ended)")

    # ---- Scatter Diagram -------------------------------------------------
    f = files["scatter"]
    srows = read_csv(f, {"die": Col(int, min=1, max=6), "direction": Col(str, choices=DIRECTIONS),
                         "source": source_col()}, unique=["die"])
    if len(srows) != 6:
        raise DataError(f, None, "die", f"all six die results are needed, found {len(srows)}")
    scatter = np.full(7, -1, dtype=np.int8)
    seen = {}
    for r in srows:
        d = DIRECTIONS.index(r.direction)
        if d in seen:
            raise DataError(f, r.line, "direction", f"{r.direction} is already given to die {seen[d]}")
        seen[d] = r.die
        scatter[r.die] = d

    return IodCharts(
        crt_columns=tuple(level_to_odds_label(lv) for lv in levels),
        col_level=np.array(levels, dtype=np.int32),
        line_names=tuple(r["line"] for r in lines),
        line_titles=tuple(r.title or r["line"] for r in lines),
        line_cols=line_cols,
        line_night=np.array([r.time == "night" for r in lines], dtype=np.bool_),
        line_rank=np.array([r.defender_rank for r in lines], dtype=np.int32),
        night_line=line_index[night[0]["line"]],
        terrain_line=terrain_line,
        crt=crt,
        bomb_columns=np.array(bcols, dtype=np.int32),
        bomb_min_strength=min_strength,
        bomb=bomb,
        drop_roll_min=np.array([r.roll_min for r in drows], dtype=np.int32),
        drop_roll_max=np.array([r.roll_max for r in drows], dtype=np.int32),
        drop_marker=np.array([DROP_RESULTS.index(r.marker) for r in drows], dtype=np.int8),
        drop_stick=np.array([DROP_RESULTS.index(r.stick) for r in drows], dtype=np.int8),
        scatter_dir=scatter,
        files=files,
    )
