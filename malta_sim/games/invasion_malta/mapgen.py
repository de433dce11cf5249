"""Build-time generator of the reconstructed Invasion: Malta map.

Run ``python -m malta_sim.games.invasion_malta.mapgen [OUT_DIR]`` to rewrite
``map_grid.csv``, ``hexes.csv`` and ``hexsides.csv`` (default: the packaged
folder).  Only this module imports ``roaring_landmask`` (the ``mapgen`` extra);
running the simulator reads the committed CSV files.

Geometry (rule 2.1): flat-topped hexes of 630 yards (0.576 km) from side to side,
columns west to east, rows north to south, odd columns half a hex lower (see
:mod:`.grid`), north up, no rotation.  A hex is land when at least three of
seven sample points (centre and six points at 60% of the radius) fall on land.
Features come from real coordinates (DATA_NOTES): towns -> urban, airfields,
forts, beaches, upland areas -> rough, the Great Fault (Victoria Lines) ->
slope (cliff at its western end), the Mellieha ridge -> slope, roads ->
shortest land paths between towns (main or minor).  The three Allied sectors
are split by a meridian and a parallel.  Every row is ``reconstructed``.
"""

from __future__ import annotations

import csv
import math
import sys
from pathlib import Path

import numpy as np

from .csvio import DATA_DIR
from .grid import IMGrid

HEX_KM = 0.576  # 630 yards (rule 2.1)
LON0, LAT0 = 14.318, 35.995
KM_PER_LON = 111.32 * math.cos(math.radians(35.89))
KM_PER_LAT = 110.95
COLS, ROWS = 50, 40

TOWNS = {  # name: (lat, lon, radius km)
    "Valletta": (35.899, 14.513, 0.55), "Floriana": (35.893, 14.506, 0.3), "Sliema": (35.912, 14.504, 0.6),
    "Vittoriosa": (35.888, 14.523, 0.25), "Senglea": (35.8875, 14.517, 0.2), "Cospicua": (35.883, 14.522, 0.3),
    "Mdina": (35.886, 14.403, 0.25), "Rabat": (35.882, 14.399, 0.45), "Mosta": (35.909, 14.426, 0.45),
    "Naxxar": (35.914, 14.444, 0.35), "Birkirkara": (35.897, 14.461, 0.7), "Hamrun": (35.886, 14.488, 0.5),
    "Qormi": (35.876, 14.472, 0.45), "Zebbug": (35.872, 14.441, 0.35), "Siggiewi": (35.854, 14.438, 0.3),
    "Zejtun": (35.856, 14.533, 0.45), "Zabbar": (35.876, 14.535, 0.35), "Paola": (35.873, 14.508, 0.45),
    "Marsa": (35.879, 14.495, 0.3), "Zurrieq": (35.831, 14.474, 0.3), "Attard": (35.890, 14.442, 0.3),
}
AIRFIELDS = {"Takali": (35.895, 14.421, 0.5), "Luqa": (35.857, 14.477, 0.7), "Hal Far": (35.816, 14.508, 0.55),
             "Krendi": (35.835, 14.440, 0.4), "Safi": (35.835, 14.490, 0.3)}
FORTS = {"Fort St Elmo": (35.902, 14.519), "Fort Ricasoli": (35.898, 14.528), "Fort St Angelo": (35.8925, 14.519),
         "Fort Tigne": (35.9075, 14.517), "Fort Manoel": (35.9025, 14.505), "Fort St Rocco": (35.895, 14.544),
         "Fort Leonardo": (35.872, 14.560), "Fort Delimara": (35.827, 14.562), "Fort Tas-Silg": (35.845, 14.555),
         "Fort St Lucian": (35.841, 14.540), "Fort Benghisa": (35.810, 14.529), "Fort Pembroke": (35.930, 14.480),
         "Fort Campbell": (35.958, 14.383), "Fort Madliena": (35.931, 14.462), "Fort Bingemma": (35.903, 14.363),
         "Fort Mosta": (35.917, 14.417)}
BEACHES = {"Golden Bay": (35.934, 14.344), "Ghajn Tuffieha": (35.928, 14.344), "Gnejna": (35.920, 14.345),
           "Mellieha Bay": (35.975, 14.360), "St Paul's Bay": (35.950, 14.400), "Salina": (35.945, 14.425),
           "Qawra": (35.957, 14.424), "Marsaxlokk": (35.842, 14.543), "Pretty Bay": (35.8225, 14.533),
           "Birzebbuga": (35.826, 14.527), "Marsaskala": (35.8625, 14.5675), "St Thomas Bay": (35.855, 14.570),
           "Ghar Lapsi": (35.827, 14.423)}
ROUGH = [(35.975, 14.345, 1.3), (35.960, 14.372, 1.0), (35.910, 14.370, 1.5), (35.930, 14.392, 1.0),
         (35.858, 14.388, 1.8), (35.905, 14.345, 1.0), (35.840, 14.415, 1.0), (35.828, 14.560, 0.7)]
GREAT_FAULT = [(35.906, 14.337), (35.903, 14.363), (35.912, 14.395), (35.917, 14.417), (35.925, 14.440),
               (35.931, 14.462)]
MELLIEHA_RIDGE = [(35.955, 14.340), (35.958, 14.365), (35.962, 14.385)]
MAIN_ROADS = [("Valletta", "Floriana", "Hamrun", "Birkirkara", "Mosta", "St Paul's Bay", "Mellieha Bay"),
              ("Hamrun", "Attard", "Rabat"), ("Marsa", "Luqa", "Hal Far", "Birzebbuga"), ("Mosta", "Takali", "Rabat"),
              ("Floriana", "Marsa", "Paola", "Cospicua")]
MINOR_ROADS = [("Marsa", "Qormi", "Zebbug", "Siggiewi"), ("Qormi", "Luqa"), ("Luqa", "Zurrieq", "Krendi", "Siggiewi"),
               ("Sliema", "Birkirkara"), ("Mosta", "Naxxar", "Salina"), ("Paola", "Zejtun", "Marsaxlokk"),
               ("Cospicua", "Zabbar", "Marsaskala"), ("Zejtun", "St Thomas Bay"), ("Rabat", "Dingli"),
               ("St Paul's Bay", "Golden Bay"), ("Mgarr", "Gnejna"), ("Mgarr", "Mosta"), ("Zurrieq", "Safi", "Hal Far"),
               ("Sliema", "Fort Pembroke", "Salina"), ("Zejtun", "Fort Tas-Silg")]
EXTRA_PLACES = {"Dingli": (35.861, 14.382), "Mgarr": (35.919, 14.366), "Takali": AIRFIELDS["Takali"][:2],
                "Luqa": AIRFIELDS["Luqa"][:2], "Hal Far": AIRFIELDS["Hal Far"][:2], "Krendi": AIRFIELDS["Krendi"][:2],
                "Safi": AIRFIELDS["Safi"][:2]}


def hex_centres_km(grid: IMGrid) -> np.ndarray:
    """Hex centres in km east/south of the origin, ``float64[n_hexes, 2]``."""
    xy = grid.centre_xy()  # x in hex widths * sqrt(3)/2, y in hex widths
    out = np.empty_like(xy)
    out[:, 0] = (xy[:, 0] - grid.col_min * np.sqrt(3) / 2) * HEX_KM
    out[:, 1] = (xy[:, 1] - grid.row_min) * HEX_KM
    return out


def to_km(lat: float, lon: float) -> tuple[float, float]:
    return (lon - LON0) * KM_PER_LON, (LAT0 - lat) * KM_PER_LAT


def to_lonlat(x, y):
    return LON0 + np.asarray(x) / KM_PER_LON, LAT0 - np.asarray(y) / KM_PER_LAT


def _seg_intersect(p1, p2, q1, q2) -> bool:
    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    d1, d2 = cross(q1, q2, p1), cross(q1, q2, p2)
    d3, d4 = cross(p1, p2, q1), cross(p1, p2, q2)
    return (d1 * d2 < 0) and (d3 * d4 < 0)


def generate(out_dir: Path) -> dict:
    """Generate the map CSVs into ``out_dir``; returns counts."""
    import networkx as nx
    from roaring_landmask import RoaringLandmask

    grid = IMGrid(1, COLS, 1, ROWS)
    n = grid.n_hexes
    c = hex_centres_km(grid)
    mask = RoaringLandmask.new()
    r = HEX_KM / math.sqrt(3) * 0.6
    offs = [(0.0, 0.0)] + [(r * math.cos(a), r * math.sin(a)) for a in np.arange(6) * math.pi / 3]
    hits = np.zeros(n, dtype=int)
    for dx, dy in offs:
        lon, lat = to_lonlat(c[:, 0] + dx, c[:, 1] + dy)
        hits += mask.contains_many(np.ascontiguousarray(lon, dtype=np.float64), np.ascontiguousarray(lat, dtype=np.float64)).astype(int)
    land = hits >= 3
    lon_c, lat_c = to_lonlat(c[:, 0], c[:, 1])
    land &= lon_c > 14.30  # Malta and Comino only (Gozo west of the Gozo channel excluded)
    land &= ~((lat_c > 36.00))
    nbr = grid.neighbour_table

    def nearest(lat, lon, pred):
        x, y = to_km(lat, lon)
        d = (c[:, 0] - x) ** 2 + (c[:, 1] - y) ** 2
        d[~pred] = np.inf
        return int(np.argmin(d))

    def within(lat, lon, rad):
        x, y = to_km(lat, lon)
        d = np.hypot(c[:, 0] - x, c[:, 1] - y)
        return np.flatnonzero((d <= rad) & land)

    urban = np.zeros(n, bool)
    rough = np.zeros(n, bool)
    airfield = np.zeros(n, bool)
    fort = np.zeros(n, bool)
    beach = np.zeros(n, bool)
    names: dict = {}
    for nm, (la, lo, rad) in TOWNS.items():
        h = nearest(la, lo, land)
        urban[h] = True
        urban[within(la, lo, rad)] = True
        names.setdefault(h, nm)
    for la, lo, rad in ROUGH:
        rough[within(la, lo, rad)] = True
    for nm, (la, lo, rad) in AIRFIELDS.items():
        h = nearest(la, lo, land)
        airfield[h] = True
        airfield[within(la, lo, rad)] = True
        names[h] = nm
    urban &= ~airfield
    coastal = land & np.array([any(j < 0 or not land[j] for j in nbr[i]) for i in range(n)])
    for nm, (la, lo) in FORTS.items():
        h = nearest(la, lo, land)
        fort[h] = True
        names[h] = nm
    for nm, (la, lo) in BEACHES.items():
        h = nearest(la, lo, coastal)
        beach[h] = True
        names.setdefault(h, nm)
    # sectors (reconstructed boundaries): Western west of 14.425 E; east of it Central north of 35.872 N, else Southern
    sector = np.where(lon_c < 14.425, "Western", np.where(lat_c >= 35.872, "Central", "Southern"))
    # hexsides: slopes and cliffs along the escarpments
    sides = []
    seen = set()

    def line_sides(poly, feature_for, high_side):
        pts = [to_km(la, lo) for la, lo in poly]
        for i in np.flatnonzero(land):
            for d in range(6):
                j = nbr[i, d]
                if j < 0 or not land[j] or (j, i) in seen or (i, j) in seen:
                    continue
                for a, b in zip(pts, pts[1:]):
                    if _seg_intersect(c[i], c[j], a, b):
                        seen.add((i, j))
                        lon_mid = (to_lonlat(*a)[0] + to_lonlat(*b)[0]) / 2
                        # the higher hex lies on the `high_side` of the escarpment line
                        cr = (b[0] - a[0]) * (c[i][1] - a[1]) - (b[1] - a[1]) * (c[i][0] - a[0])
                        hi = i if (cr > 0) == (high_side == "south") else j
                        sides.append((grid.hex_id(i), grid.hex_id(j), feature_for(lon_mid), grid.hex_id(hi)))
                        break

    line_sides(GREAT_FAULT, lambda lon: "cliff" if lon < 14.36 else "slope", "south")
    line_sides(MELLIEHA_RIDGE, lambda lon: "slope", "north")
    # roads: shortest land paths between places, preferring clear and urban hexes
    G = nx.Graph()
    for i in np.flatnonzero(land):
        for d in range(6):
            j = nbr[i, d]
            if j >= 0 and land[j] and (i, j) not in seen and (j, i) not in seen:
                w = 1.0 + (1.0 if rough[j] or rough[i] else 0.0) - (0.3 if urban[i] and urban[j] else 0.0)
                G.add_edge(int(i), int(j), weight=w)
            elif j >= 0 and land[j]:
                G.add_edge(int(i), int(j), weight=3.0)
    places = {nm: nearest(la, lo, land) for nm, (la, lo, _) in TOWNS.items()}
    places.update({nm: nearest(la, lo, land) for nm, (la, lo) in {**BEACHES, **FORTS, **EXTRA_PLACES}.items()})
    road = {}
    for cls, routes in (("road_main", MAIN_ROADS), ("road_minor", MINOR_ROADS)):
        for route in routes:
            for a, b in zip(route, route[1:]):
                path = nx.shortest_path(G, places[a], places[b], weight="weight")
                for x, y in zip(path, path[1:]):
                    key = (min(x, y), max(x, y))
                    if road.get(key) != "road_main":
                        road[key] = cls
                    # later roads follow earlier ones
                    G[x][y]["weight"] = 0.5
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "map_grid.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["col_min", "col_max", "row_min", "row_max", "source"])
        w.writerow([1, COLS, 1, ROWS, "reconstructed (630-yard hexes, rule 2.1; block covering Malta and Comino)"])
    with open(out_dir / "hexes.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["hex", "terrain", "rough", "airfield", "fort", "beach", "sector", "name", "source"])
        for i in np.flatnonzero(land):
            t = "urban" if urban[i] else ("rough" if rough[i] else "clear")
            w.writerow([grid.hex_id(i), t, int(rough[i] and not urban[i]), int(airfield[i]), int(fort[i]),
                        int(beach[i]), sector[i], names.get(i, ""), "reconstructed (generated by mapgen.py)"])
    with open(out_dir / "hexsides.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["hex_a", "hex_b", "feature", "high", "source"])
        for a, b, feat, hi in sides:
            w.writerow([a, b, feat, hi if feat == "slope" else "", "reconstructed (Great Fault / Mellieha ridge)"])
        for (x, y), cls in sorted(road.items()):
            w.writerow([grid.hex_id(x), grid.hex_id(y), cls, "", "reconstructed (road between named places)"])
    return dict(land=int(land.sum()), urban=int(urban.sum()), airfield=int(airfield.sum()), fort=int(fort.sum()),
                beach=int(beach.sum()), slope_cliff=len(sides), road=len(road))


if __name__ == "__main__":  # pragma: no cover
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR
    print(generate(out))
