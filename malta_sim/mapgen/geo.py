"""Real-world geography of Malta and the affine fit that lays it on the Island of
Death hex grid.

The printed map compresses the island.  Seven places whose hexes the rulebook
fixes (rules 10.12, 12.56, 20.0, 22.33) are matched to their real coordinates
by a least-squares affine transform from local kilometres to map-plane
coordinates (:func:`fit_affine`).  Every other place is then put on the grid
through that transform.

Map-plane coordinates (used by the generator and the map plot): flat-topped
hexes of 1 unit across the flats (1 km on the printed map, rule 2.6);
``x = column * sqrt(3)/2``, ``y = row + 0.5`` for even columns and ``y = row``
for odd ones (even columns sit half a hex lower); ``y`` grows southwards.

Coordinates are (latitude N, longitude E) in degrees, good to about half a km.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..hexgrid import cube_round, from_axial, parse_hex

#: Origin of the local kilometre frame (equirectangular projection).
LAT0 = 35.88
LON0 = 14.45
KM_PER_DEG_LAT = 110.57
KM_PER_DEG_LON = 111.32 * float(np.cos(np.radians(LAT0)))
SQRT3 = float(np.sqrt(3.0))

#: The seven identifications of the fit: (hex, place, lat, lon).  The Three
#: Cities point is the centroid of Vittoriosa, Senglea and Cospicua.
FIT_POINTS: tuple[tuple[str, str, float, float], ...] = (
    ("1211", "Takali airfield", 35.895, 14.421),
    ("1210", "Mosta (Musta)", 35.909, 14.426),
    ("1515", "Krendi strip", 35.835, 14.435),
    ("1809", "Valletta", 35.899, 14.515),
    ("1810", "Floriana", 35.893, 14.506),
    ("1911", "Three Cities", (35.888 + 35.8875 + 35.883) / 3, (14.523 + 14.517 + 14.522) / 3),
    ("1711", "Marsa", 35.879, 14.495),
)


def to_km(lat, lon):
    """Latitude/longitude (degrees) to local km ``(east, north)``; arrays broadcast."""
    lat = np.asarray(lat, dtype=float)
    lon = np.asarray(lon, dtype=float)
    return (lon - LON0) * KM_PER_DEG_LON, (lat - LAT0) * KM_PER_DEG_LAT


def from_km(x, y):
    """Local km ``(east, north)`` back to ``(lat, lon)`` in degrees."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    return y / KM_PER_DEG_LAT + LAT0, x / KM_PER_DEG_LON + LON0


def hex_centre(hex_id: str) -> tuple[float, float]:
    """Map-plane centre ``(x, y)`` of a hex (see module docstring)."""
    col, row = parse_hex(hex_id)
    return col * SQRT3 / 2.0, row + (0.5 if col % 2 == 0 else 0.0)


def plane_to_hex(x: float, y: float) -> str:
    """The hex id containing map-plane point ``(x, y)`` (cube rounding)."""
    q = x / (SQRT3 / 2.0)
    r = y - 0.5 - q / 2.0
    rx, _, rz = cube_round(q, -q - r, r)
    return from_axial(rx, rz)


@dataclass(frozen=True)
class AffineFit:
    """Least-squares affine map from local km to the map plane.

    Attributes
    ----------
    matrix : ndarray, float64[3, 2]
        ``[x_plane, y_plane] = [east_km, north_km, 1] @ matrix``.
    residuals : ndarray, float64[n_points]
        Distance (hexes) between each fit point's image and its hex centre.
    """

    matrix: np.ndarray
    residuals: np.ndarray

    @property
    def linear(self) -> np.ndarray:
        """The 2x2 linear part (plane = linear @ km + offset)."""
        return self.matrix[:2].T

    @property
    def offset(self) -> np.ndarray:
        return self.matrix[2]

    @property
    def scales(self) -> np.ndarray:
        """Singular values of the linear part: hexes per km along the two principal axes."""
        return np.linalg.svd(self.linear, compute_uv=False)

    @property
    def rotation_deg(self) -> float:
        """Rotation of the real east axis on the map (degrees, clockwise on the page)."""
        lin = self.linear
        return float(np.degrees(np.arctan2(lin[1, 0], lin[0, 0])))

    def to_plane(self, lat, lon) -> np.ndarray:
        """``(lat, lon)`` to map-plane points, ``float64[..., 2]``."""
        x, y = to_km(lat, lon)
        pts = np.stack([np.atleast_1d(x), np.atleast_1d(y), np.ones_like(np.atleast_1d(x))], axis=-1)
        return pts @ self.matrix

    def to_latlon(self, pts) -> tuple[np.ndarray, np.ndarray]:
        """Map-plane points ``float[..., 2]`` back to ``(lat, lon)`` arrays."""
        pts = np.atleast_2d(np.asarray(pts, dtype=float))
        km = (pts - self.offset) @ np.linalg.inv(self.linear).T
        return from_km(km[:, 0], km[:, 1])

    def hex_of(self, lat: float, lon: float) -> str:
        """Hex id where a real place falls."""
        p = self.to_plane(lat, lon)[0]
        return plane_to_hex(float(p[0]), float(p[1]))


def fit_affine(points=FIT_POINTS) -> AffineFit:
    """Fit the km -> map-plane affine transform by least squares.

    Parameters
    ----------
    points : sequence of (hex, name, lat, lon)

    Returns
    -------
    AffineFit
    """
    a = []
    b = []
    for hex_id, _name, lat, lon in points:
        x, y = to_km(lat, lon)
        a.append([float(x), float(y), 1.0])
        b.append(hex_centre(hex_id))
    a = np.array(a)
    b = np.array(b)
    m, *_ = np.linalg.lstsq(a, b, rcond=None)
    res = np.linalg.norm(a @ m - b, axis=1)
    return AffineFit(matrix=m, residuals=res)


# ---------------------------------------------------------------------------
# Places (lat, lon).  Kinds: city, town, airfield, fort, port_main, port_minor,
# woods, landmark.  Values from DATA_NOTES (about half a km) and the 1942 map.
# ---------------------------------------------------------------------------

CITIES = {  # the four victory cities of rule 20.0 (their hexes are forced below)
    "Valletta": (35.899, 14.515),
    "Floriana": (35.893, 14.506),
    "Three Cities": (35.886, 14.521),
    "Marsa": (35.879, 14.495),
}

TOWNS = {
    "Mosta": (35.909, 14.426),
    "Mdina": (35.886, 14.403),
    "Rabat": (35.882, 14.399),
    "Mellieha": (35.956, 14.362),
    "St Paul's Bay": (35.950, 14.400),
    "Naxxar": (35.914, 14.444),
    "Birkirkara": (35.897, 14.461),
    "Sliema": (35.912, 14.504),
    "Qormi": (35.876, 14.472),
    "Zebbug": (35.872, 14.441),
    "Siggiewi": (35.854, 14.438),
    "Paola": (35.873, 14.508),
    "Zabbar": (35.876, 14.535),
    "Zejtun": (35.856, 14.533),
    "Zurrieq": (35.831, 14.474),
    "Gudja": (35.849, 14.503),
}

AIRFIELDS = {  # code = the RAF security company of rule 22.33 / 22.39
    "Takali": (35.895, 14.421, "Tak"),
    "Krendi": (35.835, 14.435, "Krn"),
    "Luqa": (35.857, 14.477, "Luq"),
    "Hal Far": (35.816, 14.508, "HF"),
    "Safi": (35.835, 14.490, "Saf"),
}

FORTS = {
    "Fort Mosta": (35.917, 14.417),
    "Victoria Lines (Mosta)": (35.912, 14.410),
    "Fort Madliena": (35.931, 14.462),
    "Fort Manoel": (35.9025, 14.505),
    "Fort Ricasoli": (35.898, 14.528),
    "Fort St Rocco": (35.895, 14.544),
    "Fort Leonardo": (35.872, 14.560),
    "Fort St Lucian": (35.841, 14.540),
    "Fort Delimara": (35.827, 14.562),
    "Fort Benghisa": (35.810, 14.529),
}

PORTS = {
    "Grand Harbour": (35.886, 14.521, "main"),
    "Marsaxlokk": (35.842, 14.543, "minor"),
    "Marsamxett": (35.901, 14.506, "minor"),
}

WOODS = {
    "Buskett": (35.859, 14.397),
    "Mizieb": (35.955, 14.380),
}

#: Beaches by zone (name, lat, lon); the generator takes the nearest non-ocean
#: sea-side hex; rulebook hexes win (rule 22.23).
BEACHES = {
    "North": [
        ("Qawra", 35.957, 14.424),
        ("Salina", 35.945, 14.425),
        ("Bahar ic-Caghaq", 35.940, 14.450),
        ("St George's Bay", 35.926, 14.489),
        ("Xemxija (St Paul's Bay)", 35.947, 14.385),
    ],
    "West": [
        ("Ghadira (Mellieha Bay)", 35.972, 14.352),
        ("Anchor Bay", 35.962, 14.340),
        ("Ghajn Tuffieha", 35.928, 14.344),
        ("Golden Bay", 35.934, 14.344),
        ("Gnejna", 35.920, 14.345),
        ("Fomm ir-Rih", 35.906, 14.337),
    ],
    "East": [
        ("Rinella", 35.893, 14.535),
        ("Xghajra", 35.886, 14.548),
        ("Marsaskala", 35.8625, 14.5675),
        ("St Thomas Bay", 35.855, 14.570),
        ("Zonqor", 35.870, 14.566),
    ],
    "South": [
        ("Marsaxlokk", 35.842, 14.543),
        ("Birzebbuga", 35.826, 14.527),
        ("Pretty Bay", 35.8225, 14.533),
        ("Wied iz-Zurrieq", 35.820, 14.455),
        ("Ghar Lapsi", 35.827, 14.423),
        ("Hal Far coast", 35.815, 14.490),
    ],
}

#: Main roads of 1942 as chains of places (lat, lon) to join hex by hex.
ROADS = [
    # Valletta - Floriana - Marsa - Qormi - Zebbug - Rabat - Dingli
    [(35.899, 14.515), (35.893, 14.506), (35.879, 14.495), (35.876, 14.472), (35.872, 14.441),
     (35.882, 14.399), (35.861, 14.382)],
    # Marsa - Birkirkara - Mosta - St Paul's Bay - Mellieha - Cirkewwa
    [(35.879, 14.495), (35.897, 14.461), (35.909, 14.426), (35.950, 14.400), (35.956, 14.362),
     (35.987, 14.329)],
    # Mosta - Takali - Mdina
    [(35.909, 14.426), (35.895, 14.421), (35.886, 14.403)],
    # Birkirkara - Sliema - St Julian's - Pembroke - Bahar ic-Caghaq - Salina
    [(35.897, 14.461), (35.912, 14.504), (35.918, 14.489), (35.930, 14.480), (35.940, 14.450),
     (35.945, 14.425)],
    # Mosta - Naxxar - Madliena
    [(35.909, 14.426), (35.914, 14.444), (35.931, 14.462)],
    # Marsa - Luqa - Gudja - Hal Far - Birzebbuga
    [(35.879, 14.495), (35.857, 14.477), (35.849, 14.503), (35.816, 14.508), (35.826, 14.527)],
    # Luqa - Krendi - Zurrieq - Safi - Hal Far
    [(35.857, 14.477), (35.835, 14.435), (35.831, 14.474), (35.835, 14.490), (35.816, 14.508)],
    # Floriana - Paola - Zejtun - Marsaxlokk
    [(35.893, 14.506), (35.873, 14.508), (35.856, 14.533), (35.842, 14.543)],
    # Paola - Three Cities ; Paola - Zabbar - Marsaskala
    [(35.873, 14.508), (35.886, 14.521)],
    [(35.873, 14.508), (35.876, 14.535), (35.8625, 14.5675)],
    # Zebbug - Siggiewi - Krendi
    [(35.872, 14.441), (35.854, 14.438), (35.835, 14.435)],
    # Rabat - Bingemma - Mgarr - Ghajn Tuffieha ; Mosta - Mgarr
    [(35.882, 14.399), (35.903, 14.363), (35.920, 14.367), (35.928, 14.344)],
    [(35.909, 14.426), (35.920, 14.367)],
    # Zejtun - Gudja
    [(35.856, 14.533), (35.849, 14.503)],
]

#: Creeks (wied valleys) as polylines; ``rise`` marks steep-sided gorges and
#: escarpments (Creek with Rise).
CREEKS = [
    ("Wied il-Ghasel", True, [(35.905, 14.428), (35.925, 14.428), (35.940, 14.425)]),
    ("Wied il-Kbir", False, [(35.862, 14.445), (35.872, 14.465), (35.876, 14.485), (35.880, 14.497)]),
    ("Wied il-Qlejja (Chadwick Lakes)", False, [(35.880, 14.385), (35.895, 14.400), (35.905, 14.410)]),
    ("Wied Babu", True, [(35.840, 14.455), (35.820, 14.452)]),
    ("Wied Qirda", False, [(35.860, 14.425), (35.870, 14.440)]),
    ("Pwales valley", False, [(35.935, 14.355), (35.945, 14.385)]),
    ("Wied Ghomor", False, [(35.905, 14.470), (35.920, 14.487)]),
    ("Wied Dalam", False, [(35.840, 14.515), (35.828, 14.525)]),
    ("Wied il-Ghajn", False, [(35.862, 14.545), (35.862, 14.565)]),
    # Great Fault escarpment along the Victoria Lines west of Mosta (Bingemma to Fomm ir-Rih)
    ("Victoria Lines escarpment", True, [(35.906, 14.340), (35.903, 14.363), (35.910, 14.395)]),
]

#: Harbours too narrow to be ocean hexes at this scale: their hexsides are
#: all-ocean (Marsamxett between Valletta and Sliema/Manoel; Grand Harbour
#: between Valletta/Floriana and Kalkara/the Three Cities).
HARBOUR_SIDES = [
    ("1709", "1809", "Marsamxett Harbour"),
    ("1710", "1809", "Marsamxett Harbour"),
    ("1809", "1910", "Grand Harbour"),
    ("1810", "1910", "Grand Harbour"),
    ("1810", "1911", "Grand Harbour"),
]

#: Dingli cliffs on the south-west coast: land/sea hexsides along them are impassable.
DINGLI_CLIFFS = [(35.872, 14.362), (35.860, 14.375), (35.846, 14.392)]

#: Land north of this latitude is Gozo or Comino: not on the Island of Death map.
GOZO_CUT_LAT = 35.995
