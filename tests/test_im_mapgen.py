"""The committed Invasion: Malta map is what the generator builds (630-yard hexes, rule 2.1)."""

import pytest

from malta_sim.games.invasion_malta import csvio, mapgen
from malta_sim.games.invasion_malta.grid import IMGrid


def test_scale_is_630_yards():
    assert abs(mapgen.HEX_KM - 630 * 0.9144 / 1000) < 1e-3
    c = mapgen.hex_centres_km(IMGrid(1, 3, 1, 3))
    g = IMGrid(1, 3, 1, 3)
    a, b = g.index("0201"), g.index("0202")  # same column, next row: one hex width apart
    assert abs(((c[a] - c[b]) ** 2).sum() ** 0.5 - mapgen.HEX_KM) < 1e-9


def test_generator_reproduces_packaged_map(tmp_path):
    pytest.importorskip("roaring_landmask")
    counts = mapgen.generate(tmp_path)
    assert counts["land"] > 700
    for name in ("map_grid.csv", "hexes.csv", "hexsides.csv"):
        assert (tmp_path / name).read_text() == (csvio.DATA_DIR / name).read_text(), name
