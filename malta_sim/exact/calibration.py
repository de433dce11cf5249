"""Construction principles of the reconstructed Island of Death charts.

Our copy of the rulebook prints none of the charts, so the Combat Results Table
(CRT), the Bombardment Table, the Drop Table and the Scatter Diagram shipped in
``malta_sim/data/island_of_death/`` are reconstructions.  This module is the
recipe that wrote them; it is kept so the calibration can be read, checked and
re-run (``python -m malta_sim.exact.calibration OUT_DIR``).  The simulator reads
the CSV files, never this module, so a designer who owns the printed charts
simply replaces the files.

CRT (rules 9.3-9.4, 10.2)
    Every cell is a rung of one *result ladder*, ordered so that each rung is at
    least as good for the attacker as the one below it in every component
    (attacker hits and morale effect never rise, defender hits and morale effect
    never fall).  The rung of a cell is ``floor((2*roll + 3*c + k_line) / 3)``
    clipped to the ladder, where ``c`` is the position of the odds column on the
    common column scale (1:3 = 0 ... 10:1 = 9) and ``k_line`` the line's offset
    (rougher terrain = lower offset: woods/town one column worse than clear,
    city/fort two, night a column and a third).  Hence one column shift is
    worth one rung and one and a half pips on the dice, the table is monotone in the roll and in the odds on every line
    (first-order stochastic dominance between neighbouring columns holds cell
    by cell), and the printed fixed point of the rule 9.9 example (day "All
    Other Terrains" line, 6:1, roll 6 = ``-/3D``) fixes ``k_line`` in -9..-7 for the
    clear line (we take -8).

Bombardment Table (rule 10.12)
    Score ``roll + c + (stack - 4)`` with ``c`` the column position
    (2, 3, 4, 6, 8, 10, 12, 15, 18, 24, 30 -> 0..10) and ``stack`` the stacking
    total in battalions (1-5, 5 = five or more); thresholds map the score to
    ``-`` (<=12), ``D`` (13-14), ``Z`` (15-16), ``1`` (17-18), ``2`` (>=19).
    Crowded hexes suffer more; the rule 10.12 example (column 6, 4 battalions,
    roll 11 = ``D``) is a fixed point.  Minimum strength per row = the number
    of battalions (the printed 10.12 example, strength 5 against 4 battalions,
    is effective).

Drop Table (rules 19.41, 19.44, 21.1)
    Modified 2d6: 6 or less on target; 7 adjacent for a drop zone marker (on
    target for a stick); 8-9 adjacent / half; 10-11 half / half; 12-13 ``1``;
    14 or more ``2``.  Modifiers push the roll up, so more AA and solitaire play
    scatter more and the Germans (-1) scatter less.

Scatter Diagram (rule 19.41)
    One die: 1 N, 2 NE, 3 SE, 4 S, 5 SW, 6 NW (the hex-grid direction order).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

#: Common odds-column scale of the CRT, weakest first.
CRT_COLUMNS = ("1:3", "1:2", "1:1", "2:1", "3:1", "4:1", "5:1", "6:1", "8:1", "10:1")

#: The result ladder, worst for the attacker first.
CRT_LADDER = (
    "3D/-", "2D/-", "2/-", "1/-", "1/1", "-/1", "-/1D",
    "-/2D", "-/3D", "-/3Z", "-/4Z", "-/5Z",
)

#: Terrain lines: name, time, lowest column, highest column, terrains, defender rank, offset.
CRT_LINES = (
    ("all_other_terrains", "day", "1:3", "10:1", "clear;airfield;beach;coastal", 0, -8),
    ("woods_town", "day", "1:2", "8:1", "woods;town", 1, -11),
    ("city_fort", "day", "1:1", "6:1", "city;fort", 2, -14),
    ("night", "night", "1:2", "6:1", "all", 0, -12),
)

LINE_TITLES = {
    "all_other_terrains": "All Other Terrains (day turns)",
    "woods_town": "Woods and Town (day turns)",
    "city_fort": "City and Fort (day turns)",
    "night": "Night Attacks (all terrain types)",
}

BOMB_COLUMNS = (2, 3, 4, 6, 8, 10, 12, 15, 18, 24, 30)
BOMB_STACKS = (1, 2, 3, 4, 5)


def crt_cell(line_offset: int, column: str, roll: int) -> str:
    """Result of one CRT cell from the ladder recipe."""
    c = CRT_COLUMNS.index(column)
    rung = (2 * roll + 3 * c + line_offset) // 3
    rung = max(0, min(len(CRT_LADDER) - 1, rung))
    return CRT_LADDER[rung]


def bomb_cell(column: int, stack: int, roll: int) -> str:
    """Result of one Bombardment Table cell from the score recipe."""
    score = roll + BOMB_COLUMNS.index(column) + (stack - 4)
    if score <= 12:
        return "-"
    if score <= 14:
        return "D"
    if score <= 16:
        return "Z"
    if score <= 18:
        return "1"
    return "2"


def write_charts(out: str | Path) -> None:
    """Write crt.csv, crt_lines.csv, bombardment.csv, bombardment_lines.csv,
    drop_table.csv and scatter.csv into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rec = "reconstructed"
    with open(out / "crt_lines.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["line", "title", "time", "lowest", "highest", "terrains", "defender_rank", "source"])
        for name, time, lo, hi, terr, rank, _ in CRT_LINES:
            src = "rule 10.2" if name == "night" else ("rule 9.9 example" if name == "all_other_terrains" else rec)
            if name in ("all_other_terrains", "night"):
                src += ", columns reconstructed"
            w.writerow([name, LINE_TITLES[name], time, lo, hi, terr, rank, src])
    with open(out / "crt.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["line", "column", "roll", "result", "source"])
        for name, _time, lo, hi, _t, _r, off in CRT_LINES:
            cols = CRT_COLUMNS[CRT_COLUMNS.index(lo): CRT_COLUMNS.index(hi) + 1]
            for col in cols:
                for roll in range(2, 13):
                    res = crt_cell(off, col, roll)
                    src = rec + ": result ladder"
                    if name == "all_other_terrains" and col == "6:1" and roll == 6:
                        src = "rule 9.9 example"
                    w.writerow([name, col, roll, res, src])
    with open(out / "bombardment_lines.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["stack", "min_strength", "source"])
        for s in BOMB_STACKS:
            w.writerow([s, s, rec + (": 5 means five or more battalions" if s == 5 else "")])
    with open(out / "bombardment.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["stack", "column", "roll", "result", "source"])
        for s in BOMB_STACKS:
            for col in BOMB_COLUMNS:
                for roll in range(2, 13):
                    src = rec + ": score ladder"
                    if s == 4 and col == 6 and roll == 11:
                        src = "rule 10.12 example"
                    w.writerow([s, col, roll, bomb_cell(col, s, roll), src])
    with open(out / "drop_table.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["roll_min", "roll_max", "marker", "stick", "source"])
        rows = [
            (-20, 6, "on_target", "on_target"),
            (7, 7, "adjacent", "on_target"),
            (8, 9, "adjacent", "half"),
            (10, 11, "half", "half"),
            (12, 13, "one", "one"),
            (14, 99, "two", "two"),
        ]
        for lo, hi, m, s in rows:
            w.writerow([lo, hi, m, s, rec + ": higher modified rolls scatter more (rules 19.41, 19.44)"])
    with open(out / "scatter.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["die", "direction", "source"])
        for die, d in zip(range(1, 7), ("N", "NE", "SE", "S", "SW", "NW")):
            w.writerow([die, d, rec + ": one die to one of six hex directions (rule 19.41)"])


if __name__ == "__main__":  # pragma: no cover
    write_charts(sys.argv[1] if len(sys.argv) > 1 else "malta_sim/data/island_of_death")
