"""Worked examples of the rulebook as small positions (used by tests, docs and the CLI).

Only the hexes, units and features each example names are taken from the
rulebook; the surrounding terrain is the simplest that lets the example read
as printed (all clear land), and is stated in each function.
"""

from __future__ import annotations

from .grid import IMGrid
from .terrain import build_map
from .units import Position, make_units

#: Hex block used by the examples (the rule 6.2 and 8.22 examples sit in columns 12-16, rows 23-25).
EXAMPLE_GRID = (10, 18, 20, 28)


def block_map(land: list[str] | None = None, hexsides: list[dict] | None = None, **flags):
    """Clear-land map on :data:`EXAMPLE_GRID`; ``land`` restricts the land hexes,
    ``flags`` maps a flag name (``fort``, ``urban``, ``rough``, ``airfield``) to hex ids."""
    g = IMGrid(*EXAMPLE_GRID)
    ids = land if land is not None else [h for h in g.hex_ids if h[:2] not in ("10", "18")]
    rows = []
    for h in ids:
        r = dict(hex=h, terrain="urban" if h in flags.get("urban", ()) else "clear", sector="Central")
        for f in ("fort", "rough", "airfield", "beach"):
            r[f] = h in flags.get(f, ())
        rows.append(r)
    return build_map(g, rows, hexsides or [])


def example_units():
    """Counters for the examples: Axis paratroops 5/3 (German, Sturm Regiment),
    a German non-paratroop battalion, the Allied "B/3 KOMR", an Allied commando,
    a red-box Allied tank, an Allied no-ZOC field gun; values reconstructed."""
    rows = [
        dict(id="5/3", side="Axis", nat="G", formation="St", steps=2, attack=4, defense=4, ma=4, er=8, er_r=7,
             paratroop=True, infantry=True, stacking=2),
        dict(id="II/104", side="Axis", nat="G", formation="O", steps=2, attack=5, defense=5, ma=4, er=7, er_r=6,
             infantry=True, stacking=3),
        dict(id="B/3 KOMR", side="Allied", nat="B", formation="", steps=1, attack=2, defense=3, ma=3, er=5,
             infantry=True, stacking=1),
        dict(id="Cdo", side="Allied", nat="B", steps=2, attack=3, defense=3, ma=5, er=7, commando=True,
             infantry=True, stacking=1),
        dict(id="Matilda", side="Allied", nat="B", steps=2, attack=6, defense=5, ma=6, er=6, ma_class="red",
             armored=True, stacking=2),
        dict(id="25pdr", side="Allied", nat="B", steps=1, attack=0, defense=2, ma=4, er=6, ma_class="orange",
             range=6, no_zoc=True, stacking=1),
    ]
    return make_units(rows)


def place(m, units, where: dict) -> Position:
    """Fresh position with ``where = {unit_id: hex_id}``."""
    pos = Position.fresh(units, m.n)
    for uid, h in where.items():
        pos.hex[units.index(uid)] = m.idx(h)
    return pos


def zoc_example():
    """Rule 8.22 example: Axis 5/3 in 1424, Allied B/3 KOMR in 1425, all clear terrain."""
    m = block_map()
    u = example_units()
    return m, u, place(m, u, {"5/3": "1424", "B/3 KOMR": "1425"})


def supply_example():
    """Rule 6.2 example: GT 3, Axis 5/3 paratroops in 1524, Airhead in 1623,
    Beachhead in 1225, Allied B/3 KOMR in 1425, cliff hexsides on 1324's west,
    south-west and south sides (toward 1224, 1225, 1325)."""
    sides = [dict(hex_a="1324", hex_b=h, feature="cliff") for h in ("1224", "1225", "1325")]
    m = block_map(hexsides=sides)
    u = example_units()
    pos = place(m, u, {"5/3": "1524", "B/3 KOMR": "1425"})
    pos.paradropped[u.index("5/3")] = True
    pos.airheads[m.idx("1623")] = "G"
    pos.beachheads.add(m.idx("1225"))
    return m, u, pos
