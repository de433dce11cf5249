"""Build the Island of Death map data from geography.

Run ``python -m malta_sim.mapgen.iod [--out DIR]`` (development only: needs
``roaring-landmask``, the ``mapgen`` extra).  It writes ``hexes.csv``,
``hexsides.csv``, ``beach_zones.csv``, ``beach_boxes.csv`` and ``places.csv``
into ``malta_sim/data/island_of_death/`` (or ``DIR``).  The simulator only reads
those CSV files; it never imports this module.

Steps (docs/map.md explains each choice):

1. Fit the km -> map-plane affine transform on the seven identifications of
   :data:`malta_sim.mapgen.geo.FIT_POINTS` (least squares).
2. Sample a land mask (OpenStreetMap polygons of ``roaring-landmask``) at 135
   points inside each hex: the land fraction.  Ocean below 15 %, coastal
   below 85 %, otherwise inland.  Gozo and Comino are cut away.
3. Place cities, towns, airfields, forts, ports and woods at their real
   coordinates; beaches at the nearest sea-side hex of their zone.
4. Apply the hexes the rulebook names (rules 10.12, 12.56, 16.51, 20.0, 21.11,
   22.23, 22.24, 22.25, 22.33): they win where geography disagrees.
5. Hexsides: main roads hex by hex between towns, creeks and creeks with rise
   along wied valleys, all-ocean sides where a hexside between two land hexes
   lies entirely on water (harbours, bays), and the Dingli cliffs.
"""

from __future__ import annotations

import argparse
import csv
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..hexgrid import DIRECTION_NAMES, IOD_GRID, Grid, direction_between, hex_line, neighbour
from . import geo

OCEAN_BELOW = 0.15
COASTAL_BELOW = 0.85

#: Hexes the rulebook names, with what they must be (DATA_NOTES table).
RULE_CITIES = {"1711": ("Marsa", "rule 20.0"), "1809": ("Valletta", "rule 20.0"),
               "1810": ("Floriana", "rule 20.0"), "1911": ("Three Cities", "rule 20.0")}
RULE_TOWNS = {"1210": ("Musta", "rule 10.12")}
RULE_FORTS = {"1110": ("Fort Mosta (Victoria Lines)", "rule 22.23"),
              "1111": ("Victoria Lines (Mosta)", "rule 22.23")}
RULE_AIRFIELDS = {"1211": ("Takali", "Tak", "rule 22.33"), "1515": ("Krendi", "Krn", "rule 22.33")}
RULE_NORTH_BEACHES = {"1107": "Qawra", "1207": "Salina", "1308": "Bahar ic-Caghaq"}
RULE_INLAND = {"0911": "rule 21.11", "1313": "rule 21.11", "1512": "rule 21.11",
               "1813": "rule 21.11", "2012": "rule 21.11"}
RULE_LAND_NOT_BEACH = {"1316": "rule 16.51"}
RULE_AMMO_POINTS = {"1711": "rule 12.56", "1715": "rule 12.56"}
#: Every hex where a scenario places a ground unit (rules 22.24, 22.25, 22.33).
SCENARIO_HEXES = {
    "rule 22.24": ["1309", "1311", "1312", "1314", "1315", "1316", "1408", "1409", "1412", "1413", "1414"],
    "rule 22.25": ["0708", "0809", "0812", "0909", "1009", "1011", "1012", "1013", "1107", "1110", "1111"],
    "rule 22.33": ["0809", "1011", "1111", "1208", "1211", "1311", "1515", "1609", "1611", "1612", "1613"],
}
#: Rule 22.23: the West beach zone lies entirely in columns 05-11.
WEST_COLUMNS = (5, 11)

TERRAIN_PRECEDENCE = ("city", "fort", "town", "airfield", "beach", "woods", "coastal", "clear")


@dataclass
class HexRec:
    hex: str
    land_fraction: float
    ocean: bool
    flags: set = field(default_factory=set)
    port: str = ""
    beach_zone: str = ""
    names: list = field(default_factory=list)
    sources: list = field(default_factory=list)

    def terrain(self) -> str:
        if self.ocean:
            return "ocean"
        for t in TERRAIN_PRECEDENCE:
            if t in self.flags:
                return t
        return "clear"


def hex_sample_offsets(n: int = 15) -> np.ndarray:
    """Offsets of sample points inside a flat-topped hex of 1 across the flats,
    ``float64[k, 2]`` (k = 135 for n = 15)."""
    rad = 1.0 / geo.SQRT3
    out = []
    for dx in np.linspace(-rad, rad, n):
        for dy in np.linspace(-0.5, 0.5, 13):
            if geo.SQRT3 * abs(dx) + abs(dy) <= geo.SQRT3 * rad + 1e-9:
                out.append((dx, dy))
    return np.array(out)


def hexside_segment(a: str, b: str) -> tuple[np.ndarray, np.ndarray]:
    """End points (map plane) of the hexside shared by adjacent hexes a and b."""
    ca = np.array(geo.hex_centre(a))
    cb = np.array(geo.hex_centre(b))
    mid = (ca + cb) / 2.0
    d = (cb - ca) / np.linalg.norm(cb - ca)
    perp = np.array([-d[1], d[0]])
    half = 0.5 / geo.SQRT3
    return mid - perp * half, mid + perp * half


class Landmask:
    """Land test in (lat, lon) with Gozo and Comino removed."""

    def __init__(self, provider: str = "osm"):
        from roaring_landmask import LandmaskProvider, RoaringLandmask  # development-only dependency

        prov = LandmaskProvider.Osm if provider == "osm" else LandmaskProvider.Gshhg
        self._mask = RoaringLandmask.new_with_provider(prov)

    def land(self, lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
        lat = np.ascontiguousarray(lat, dtype=np.float64)
        lon = np.ascontiguousarray(lon, dtype=np.float64)
        ok = np.asarray(self._mask.contains_many(lon, lat), dtype=bool)
        return ok & (lat < geo.GOZO_CUT_LAT)


def land_fractions(fit: geo.AffineFit, mask: Landmask, grid: Grid = IOD_GRID) -> dict[str, float]:
    """Land fraction of every hex of ``grid`` (sampled points inside the hex)."""
    offs = hex_sample_offsets()
    out = {}
    for h in grid.hex_ids:
        pts = np.array(geo.hex_centre(h)) + offs
        lat, lon = fit.to_latlon(pts)
        out[h] = float(mask.land(lat, lon).mean())
    return out


class MapBuilder:
    """Accumulates hexes and hexsides, then writes the CSV files."""

    def __init__(self, fit: geo.AffineFit, fractions: dict[str, float], mask: Landmask | None,
                 grid: Grid = IOD_GRID):
        self.fit = fit
        self.grid = grid
        self.mask = mask
        self.hexes: dict[str, HexRec] = {
            h: HexRec(h, f, ocean=f < OCEAN_BELOW) for h, f in fractions.items()
        }
        for rec in self.hexes.values():
            if not rec.ocean and rec.land_fraction < COASTAL_BELOW:
                rec.flags.add("coastal")
        self.sides: dict[tuple[str, str, str], str] = {}  # (a, b, feature) with a < b -> source
        self.places: list[dict] = []
        self.beaches: dict[str, list[tuple[str, str, str]]] = {}
        self.forced_land: dict[str, str] = {}

    # -- helpers ---------------------------------------------------------
    def hex_of(self, lat: float, lon: float) -> str:
        return self.fit.hex_of(lat, lon)

    def on_grid(self, h: str | None) -> bool:
        return h is not None and self.grid.contains(h)

    def make_land(self, h: str, source: str) -> None:
        rec = self.hexes[h]
        if rec.ocean:
            rec.ocean = False
            rec.flags.add("coastal")
            rec.sources.append(f"{source} land")
        self.forced_land[h] = source

    def add_place(self, name, kind, h, lat, lon, source, code=""):
        self.places.append(dict(name=name, kind=kind, hex=h, lat=lat, lon=lon, code=code, source=source))
        rec = self.hexes[h]
        if name not in rec.names:
            rec.names.append(name)

    def add_side(self, a: str, b: str, feature: str, source: str) -> None:
        if not (self.on_grid(a) and self.on_grid(b)) or a == b:
            return
        direction_between(a, b)  # raises if not adjacent
        key = (min(a, b), max(a, b), feature)
        self.sides.setdefault(key, source)

    def on_water(self, h: str) -> bool:
        """Next to an ocean hex or with an all-ocean hexside (a harbour or bay)."""
        return self.is_sea_side(h) or any((a == h or b == h) and f == "ocean" for a, b, f in self.sides)

    def is_sea_side(self, h: str) -> bool:
        return any(n is None or not self.on_grid(n) or self.hexes[n].ocean for n in
                   (neighbour(h, d) for d in range(6)))

    # -- steps ------------------------------------------------------------
    def clear_west_of_column_05(self) -> None:
        """Rule 22.23 gives the Axis every land hex of columns 05-11 as the north-west
        third of the island: no land lies west of column 05 (the Marfa tip is cut)."""
        for h, rec in self.hexes.items():
            if int(h[:2]) < WEST_COLUMNS[0] and not rec.ocean:
                rec.ocean = True
                rec.flags.clear()
                rec.sources.append("rule 22.23 ocean west of column 05")

    def place_features(self) -> None:
        """Real places (reconstructed positions), before the rulebook overrides."""
        used_city = set(RULE_CITIES)
        for name, (lat, lon) in geo.TOWNS.items():
            h = self.hex_of(lat, lon)
            if h in used_city or name == "Mosta":
                continue
            if "town" in self.hexes[h].flags:
                self.hexes[h].names.append(name)
                self.places.append(dict(name=name, kind="town", hex=h, lat=lat, lon=lon, code="",
                                        source="reconstructed: real position, shares the hex"))
                continue
            self.make_land(h, "reconstructed: town")
            self.hexes[h].flags.add("town")
            self.add_place(name, "town", h, lat, lon, "reconstructed: real position through the affine fit")
        for name, (lat, lon, code) in geo.AIRFIELDS.items():
            if code in ("Tak", "Krn"):
                continue
            h = self.hex_of(lat, lon)
            self.make_land(h, "reconstructed: airfield")
            self.hexes[h].flags.add("airfield")
            self.add_place(name, "airfield", h, lat, lon, "reconstructed: real position through the affine fit", code)
        for name, (lat, lon) in geo.FORTS.items():
            if name in ("Fort Mosta", "Victoria Lines (Mosta)"):
                continue
            h = self.hex_of(lat, lon)
            if h in used_city or self.hexes[h].flags & {"town", "airfield"}:
                continue
            self.make_land(h, "reconstructed: fort")
            self.hexes[h].flags.add("fort")
            self.add_place(name, "fort", h, lat, lon, "reconstructed: real position through the affine fit")
        for name, (lat, lon) in geo.WOODS.items():
            h = self.hex_of(lat, lon)
            if self.hexes[h].ocean or self.hexes[h].flags & {"town", "city", "fort", "airfield"}:
                continue
            self.hexes[h].flags.add("woods")
            self.add_place(name, "woods", h, lat, lon, "reconstructed: real position through the affine fit")

    def apply_rule_hexes(self) -> None:
        """The hexes the rulebook names win (DATA_NOTES table)."""
        for h, (name, src) in RULE_CITIES.items():
            self.make_land(h, src)
            rec = self.hexes[h]
            rec.flags -= {"town", "fort", "airfield", "woods", "beach"}
            rec.flags.add("city")
            rec.sources.append(f"{src} city")
            lat, lon = geo.CITIES[name]
            self.add_place(name, "city", h, lat, lon, src)
        for h, (name, src) in RULE_TOWNS.items():
            self.make_land(h, src)
            self.hexes[h].flags.add("town")
            self.hexes[h].sources.append(f"{src} town")
            lat, lon = geo.TOWNS["Mosta"]
            self.add_place(name, "town", h, lat, lon, src)
        for h, (name, src) in RULE_FORTS.items():
            self.make_land(h, src)
            self.hexes[h].flags -= {"town", "woods"}
            self.hexes[h].flags.add("fort")
            self.hexes[h].sources.append(f"{src} fort")
            lat, lon = geo.FORTS[name if name in geo.FORTS else "Fort Mosta"]
            self.add_place(name, "fort", h, lat, lon, src)
        for h, (name, code, src) in RULE_AIRFIELDS.items():
            self.make_land(h, src)
            self.hexes[h].flags -= {"town", "woods"}
            self.hexes[h].flags.add("airfield")
            self.hexes[h].sources.append(f"{src} airfield")
            lat, lon, _ = geo.AIRFIELDS[name]
            self.add_place(name, "airfield", h, lat, lon, src, code)
        for h, src in RULE_INLAND.items():
            self.make_land(h, src)
            self.hexes[h].flags -= {"coastal", "beach"}
            self.hexes[h].sources.append(f"{src} inland")
        for h, src in RULE_LAND_NOT_BEACH.items():
            self.make_land(h, src)
            self.hexes[h].sources.append(f"{src} land")
        for h, src in RULE_AMMO_POINTS.items():
            self.make_land(h, src)
            self.hexes[h].sources.append(f"{src} ammunition point")
            lat, lon = self.fit.to_latlon(np.array(geo.hex_centre(h)))
            self.add_place(f"Allied ammunition point {h}", "ammo_point", h, float(lat[0]), float(lon[0]), src)
        for src, hexes in SCENARIO_HEXES.items():
            for h in hexes:
                self.make_land(h, src)

    def place_ports(self) -> None:
        for name, (lat, lon, kind) in geo.PORTS.items():
            if kind == "main":
                h = "1911"  # Grand Harbour's dockyard: the Three Cities (rule 20.0 city hex)
            else:
                # the nearest land hex on the sea (not a beach, fort or city)
                h = self.nearest_hex(lat, lon, lambda r: not r.ocean and self.on_water(r.hex)
                                     and not r.flags & {"city", "fort", "beach", "airfield"})
            self.hexes[h].port = kind
            self._road_spur(h, f"reconstructed: road to the {name} quays")
            self.add_place(name, f"port_{kind}", h, lat, lon,
                           "reconstructed: Main Port on Grand Harbour (rule 12.54)" if kind == "main"
                           else "reconstructed: Minor Port (rule 12.54)")

    def nearest_hex(self, lat: float, lon: float, ok) -> str:
        p = self.fit.to_plane(lat, lon)[0]
        best = None
        for h, rec in self.hexes.items():
            if not ok(rec):
                continue
            c = np.array(geo.hex_centre(h))
            d = float(np.hypot(*(c - p)))
            if best is None or d < best[0]:
                best = (d, h)
        assert best is not None
        return best[1]

    def place_beaches(self) -> None:
        """22 beach hexes in four zones (rule 18.1); North holds 1107, 1207, 1308 (rule 22.23)."""
        taken: set[str] = set()
        zones: dict[str, list[tuple[str, str, str]]] = {z: [] for z in ("North", "South", "East", "West")}
        for h, name in RULE_NORTH_BEACHES.items():
            self.make_land(h, "rule 22.23")
            zones["North"].append((h, name, "rule 22.23"))
            taken.add(h)
        blocked = set(RULE_INLAND) | set(RULE_LAND_NOT_BEACH) | set(RULE_CITIES)
        for zone, lst in geo.BEACHES.items():
            for name, lat, lon in lst:
                if zone == "North" and name in RULE_NORTH_BEACHES.values():
                    continue
                if zone == "North" and name in ("Qawra", "Salina", "Bahar ic-Caghaq"):
                    continue

                def ok(rec, zone=zone):
                    col = int(rec.hex[:2])
                    if rec.ocean or rec.hex in taken or rec.hex in blocked:
                        return False
                    if rec.flags & {"city", "fort", "airfield", "town", "woods"}:
                        return False
                    if zone == "West" and not (WEST_COLUMNS[0] <= col <= WEST_COLUMNS[1]):
                        return False
                    return self.is_sea_side(rec.hex)

                h = self.nearest_hex(lat, lon, ok)
                taken.add(h)
                zones[zone].append((h, name, "reconstructed: nearest sea-side hex to the real beach"))
        for zone, lst in zones.items():
            for h, name, src in lst:
                rec = self.hexes[h]
                rec.flags.add("beach")
                rec.beach_zone = zone
                rec.names.append(f"{name} beach")
                rec.sources.append(f"{src} beach")
        self.beaches = zones

    def add_roads(self) -> None:
        for chain in geo.ROADS:
            hexes = [self.hex_of(lat, lon) for lat, lon in chain]
            path: list[str] = []
            for a, b in zip(hexes, hexes[1:]):
                for step in hex_line(a, b):
                    cand = [h for h in step if self.on_grid(h) and not self.hexes[h].ocean] or list(step)
                    h = cand[0]
                    if not path or path[-1] != h:
                        path.append(h)
            for a, b in zip(path, path[1:]):
                if self.hexes[a].ocean or self.hexes[b].ocean:
                    continue
                self.add_side(a, b, "road", "reconstructed: 1942 main road between the towns it joins")

    def _road_spur(self, h: str, source: str) -> None:
        """Join a hex to the road network by one road hexside if it is not on it."""
        on_road = {x for a, b, f in self.sides if f == "road" for x in (a, b)}
        if h in on_road:
            return
        for d in range(6):
            n = neighbour(h, d)
            if self.on_grid(n) and n in on_road and not self.hexes[n].ocean \
                    and (min(h, n), max(h, n), "ocean") not in self.sides:
                self.add_side(h, n, "road", source)
                return

    def _nearest_sides(self, poly: list[tuple[float, float]], step: float = 0.15) -> list[tuple[str, str]]:
        pts = self.fit.to_plane(np.array([p[0] for p in poly]), np.array([p[1] for p in poly]))
        samples = []
        for p, q in zip(pts, pts[1:]):
            n = max(2, int(np.hypot(*(q - p)) / step) + 1)
            for t in np.linspace(0, 1, n):
                samples.append(p + (q - p) * t)
        sides = []
        for s in samples:
            h = geo.plane_to_hex(float(s[0]), float(s[1]))
            if not self.on_grid(h):
                continue
            best = None
            for d in range(6):
                n = neighbour(h, d)
                if not self.on_grid(n):
                    continue
                mid = (np.array(geo.hex_centre(h)) + np.array(geo.hex_centre(n))) / 2
                dist = float(np.hypot(*(mid - s)))
                if best is None or dist < best[0]:
                    best = (dist, n)
            if best is not None:
                key = (min(h, best[1]), max(h, best[1]))
                if not sides or sides[-1] != key:
                    sides.append(key)
        return sides

    def add_creeks(self) -> None:
        for name, rise, poly in geo.CREEKS:
            feat = "creek_rise" if rise else "creek"
            for a, b in self._nearest_sides(poly):
                if self.hexes[a].ocean or self.hexes[b].ocean:
                    continue
                if (a, b, "creek") in self.sides or (a, b, "creek_rise") in self.sides:
                    continue
                self.add_side(a, b, feat, f"reconstructed: {name}")

    def add_ocean_sides(self) -> None:
        """All-ocean hexsides (rules 5.0, 8.2, 18.61): between two land hexes whose
        shared side lies wholly on water (bays, harbour mouths), the harbour sides of
        :data:`geo.HARBOUR_SIDES`, and the Dingli cliffs."""
        assert self.mask is not None
        done = set()
        for h, rec in self.hexes.items():
            if rec.ocean:
                continue
            for d in range(6):
                n = neighbour(h, d)
                if not self.on_grid(n) or self.hexes[n].ocean:
                    continue
                key = (min(h, n), max(h, n))
                if key in done:
                    continue
                done.add(key)
                p, q = hexside_segment(h, n)
                seg = p[None, :] + (q - p)[None, :] * np.linspace(0.0, 1.0, 15)[:, None]
                lat, lon = self.fit.to_latlon(seg)
                if not self.mask.land(lat, lon).any():
                    self.add_side(h, n, "ocean", "reconstructed: the hexside lies on open water")
        for a, b, name in geo.HARBOUR_SIDES:
            if not (self.hexes[a].ocean or self.hexes[b].ocean):
                self.add_side(a, b, "ocean", f"reconstructed: {name} between the two hexes")
        for a, b in self._nearest_sides(geo.DINGLI_CLIFFS):
            if self.hexes[a].ocean or self.hexes[b].ocean:
                continue
            if "coastal" in self.hexes[a].flags or "coastal" in self.hexes[b].flags:
                self.add_side(a, b, "ocean", "reconstructed: Dingli cliffs, impassable")

    def reconnect(self) -> None:
        """Drop all-ocean hexsides that would cut land hexes off from the island
        (every land hex stays reachable on foot)."""
        while True:
            blocked = {(a, b) for (a, b, f) in self.sides if f == "ocean"}
            land = [h for h, r in self.hexes.items() if not r.ocean]
            start = "1211"
            seen = {start}
            dq = deque([start])
            while dq:
                h = dq.popleft()
                for d in range(6):
                    n = neighbour(h, d)
                    if not self.on_grid(n) or self.hexes[n].ocean or n in seen:
                        continue
                    if (min(h, n), max(h, n)) in blocked:
                        continue
                    seen.add(n)
                    dq.append(n)
            cut = [h for h in land if h not in seen]
            if not cut:
                return
            h = cut[0]
            for d in range(6):
                n = neighbour(h, d)
                if self.on_grid(n):
                    self.sides.pop((min(h, n), max(h, n), "ocean"), None)

    def prune_islets(self) -> None:
        """Unforced land hexes not joined to the main island become ocean."""
        land = [h for h, r in self.hexes.items() if not r.ocean]
        comp: dict[str, int] = {}
        k = 0
        for s in land:
            if s in comp:
                continue
            comp[s] = k
            dq = deque([s])
            while dq:
                h = dq.popleft()
                for d in range(6):
                    n = neighbour(h, d)
                    if self.on_grid(n) and not self.hexes[n].ocean and n not in comp:
                        comp[n] = k
                        dq.append(n)
            k += 1
        sizes = defaultdict(int)
        for c in comp.values():
            sizes[c] += 1
        main = max(sizes, key=sizes.get)
        for h, c in comp.items():
            if c != main:
                if h in self.forced_land:
                    raise RuntimeError(f"forced land hex {h} is cut off from the island")
                self.hexes[h].ocean = True
                self.hexes[h].flags.clear()

    def check(self) -> list[str]:
        """Generator-side checks of the constraints (the tests check them again)."""
        problems = []
        n_beach = sum(len(v) for v in self.beaches.values())
        if n_beach != 22:
            problems.append(f"{n_beach} beach hexes, expected 22")
        for h in self.forced_land:
            if self.hexes[h].ocean:
                problems.append(f"{h} must be land")
        axis = [h for h, r in self.hexes.items() if not r.ocean and
                (5 <= int(h[:2]) <= 11 or h in ("1207", "1208", "1209", "1210", "1211", "1308"))]
        towns = [h for h in axis if "town" in self.hexes[h].flags]
        if len(towns) != 5:
            problems.append(f"{len(towns)} towns in the Introductory Axis area ({towns}), rule 22.29 says 5")
        return problems

    # -- output -----------------------------------------------------------
    def write(self, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        with open(out / "hexes.csv", "w", newline="", encoding="utf-8") as f:
            f.write("# Island of Death map: one row per hex of the grid (columns 01-26, rows 01-20); see docs/map.md.\n")
            f.write("# Generated by python -m malta_sim.mapgen.iod, then editable by hand.\n")
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["hex", "terrain", "woods", "town", "city", "fort", "airfield", "port", "beach",
                        "beach_zone", "coastal", "land_fraction", "name", "source"])
            for h in self.grid.hex_ids:
                r = self.hexes[h]
                fl = r.flags if not r.ocean else set()
                rules = [s for s in dict.fromkeys(r.sources) if s.startswith("rule")]
                if rules:
                    src = ", ".join(rules) + " (rest reconstructed from geography)"
                elif r.sources:
                    src = "reconstructed: " + "; ".join(
                        s.replace("reconstructed: ", "") for s in dict.fromkeys(r.sources))
                else:
                    src = "reconstructed: land mask through the affine fit"
                w.writerow([h, r.terrain(), int("woods" in fl), int("town" in fl), int("city" in fl),
                            int("fort" in fl), int("airfield" in fl), r.port if not r.ocean else "",
                            int("beach" in fl), r.beach_zone, int("coastal" in fl), f"{r.land_fraction:.2f}",
                            " / ".join(r.names), src])
        with open(out / "hexsides.csv", "w", newline="", encoding="utf-8") as f:
            f.write("# Hexside features, each hexside listed once from one of its two hexes; the loader mirrors it.\n")
            f.write("# direction: N NE SE S SW NW (malta_sim.hexgrid order). feature: road creek creek_rise ocean.\n")
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["hex", "direction", "feature", "source"])
            for (a, b, feat), src in sorted(self.sides.items()):
                w.writerow([a, DIRECTION_NAMES[direction_between(a, b)], feat, src])
        with open(out / "beach_zones.csv", "w", newline="", encoding="utf-8") as f:
            f.write("# Beach zones of the Planning Map (rule 18.1): one Follow-up box each.\n")
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["zone", "follow_up_box", "source"])
            for zone in ("North", "South", "East", "West"):
                w.writerow([zone, f"followup.{zone}", "rule 18.1"])
        with open(out / "beach_boxes.csv", "w", newline="", encoding="utf-8") as f:
            f.write("# First and Second Wave boxes (rule 18.1): each connected to one beach hex of its zone.\n")
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["box", "zone", "wave", "beach_hex", "source"])
            for zone in ("North", "South", "East", "West"):
                for h, _name, src in self.beaches[zone]:
                    s = src if src.startswith("rule") else "reconstructed: one First and one Second Wave box per beach hex"
                    w.writerow([f"first.{zone}.{h}", zone, "first", h, s])
                    w.writerow([f"second.{zone}.{h}", zone, "second", h, s])
        with open(out / "places.csv", "w", newline="", encoding="utf-8") as f:
            f.write("# Named places: kind city town airfield fort port_main port_minor woods ammo_point;\n")
            f.write("# lat/lon are the real coordinates the generator used (degrees); code = RAF company of an airfield.\n")
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["name", "kind", "hex", "code", "lat", "lon", "source"])
            seen = set()
            for p in self.places:
                key = (p["name"], p["kind"], p["hex"])
                if key in seen:
                    continue
                seen.add(key)
                w.writerow([p["name"], p["kind"], p["hex"], p["code"], f"{p['lat']:.4f}", f"{p['lon']:.4f}", p["source"]])


def build(out: Path | None = None, provider: str = "osm", verbose: bool = True) -> MapBuilder:
    """Run every generator step and write the CSV files.

    Parameters
    ----------
    out : Path, optional
        Output folder (default: the packaged ``malta_sim/data/island_of_death``).
    provider : {"osm", "gshhg"}
        Land mask of ``roaring-landmask``.

    Returns
    -------
    MapBuilder
        With the hex records, hexsides and the fit (for inspection).
    """
    fit = geo.fit_affine()
    mask = Landmask(provider)
    fr = land_fractions(fit, mask)
    b = MapBuilder(fit, fr, mask)
    b.clear_west_of_column_05()
    b.place_features()
    b.apply_rule_hexes()
    b.prune_islets()
    b.place_beaches()
    b.add_roads()
    b.add_creeks()
    b.add_ocean_sides()
    b.reconnect()
    b.place_ports()
    problems = b.check()
    if verbose:
        print(f"affine fit: residuals (hexes) {np.round(fit.residuals, 2).tolist()}, "
              f"scales {np.round(fit.scales, 3).tolist()} hex/km, rotation {fit.rotation_deg:.1f} deg")
        for p in problems:
            print("PROBLEM:", p)
    if out is None:
        out = Path(__file__).resolve().parent.parent / "data" / "island_of_death"
    b.write(Path(out))
    return b


def ascii_map(b: MapBuilder) -> str:
    """A text picture of the terrain (one character per hex; odd columns only
    would hide half the map, so both are shown row by row)."""
    code = {"ocean": " ", "clear": ".", "coastal": ",", "woods": "w", "town": "t", "city": "C",
            "fort": "F", "airfield": "A", "beach": "b"}
    lines = []
    for r in range(b.grid.row_min, b.grid.row_max + 1):
        lines.append(f"{r:02d} " + "".join(code[b.hexes[f'{c:02d}{r:02d}'].terrain()]
                                           for c in range(b.grid.col_min, b.grid.col_max + 1)))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Build the Island of Death map CSVs from geography.")
    ap.add_argument("--out", type=Path, default=None, help="output folder (default: packaged data)")
    ap.add_argument("--provider", choices=["osm", "gshhg"], default="osm")
    args = ap.parse_args(argv)
    b = build(args.out, args.provider)
    print(ascii_map(b))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
