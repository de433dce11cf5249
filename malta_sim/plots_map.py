"""Drawing the Island of Death map with matplotlib: terrain colours, hexsides
(roads, creeks, creeks with rise, all-ocean sides), hex ids, beach zones with
their First / Second Wave and Follow-up boxes (rule 18.1), named places and
scenario set-up stacks (rules 22.24, 22.25, 22.33).

Uses the non-interactive Agg backend; the figure is written to a file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .loaders.iod_map import HEX_TERRAINS, ZONES, MapData, load_map
from .mapgen.geo import SQRT3, hex_centre

TERRAIN_COLOURS = {
    "ocean": "#a9cfe8",
    "clear": "#e9e3c3",
    "coastal": "#d9dcb6",
    "woods": "#6f9a5a",
    "town": "#c9a27e",
    "city": "#9a6a4f",
    "fort": "#8a8a8a",
    "airfield": "#c8c8b4",
    "beach": "#f2d98a",
}
ZONE_COLOURS = {"North": "#1f77b4", "South": "#d62728", "East": "#2ca02c", "West": "#9467bd"}
SIDE_COLOURS = {"creek": "#2b7bba", "creek_rise": "#5b3a1a", "ocean": "#0b2e59"}
SIDE_COLOURS_AXIS = "#4d4d4d"


def _corners(x: float, y: float) -> np.ndarray:
    r = 1.0 / SQRT3
    ang = np.radians([0, 60, 120, 180, 240, 300])
    return np.stack([x + r * np.cos(ang), y + r * np.sin(ang)], axis=1)


def scenario_stacks(scenario: str, data_dir=None) -> list[tuple[str, str, list[str]]]:
    """Set-up stacks of a scenario: ``[(side, hex, [piece ids])]``, one entry per
    side and hex, in file order.

    Uses the scenario loader (:func:`malta_sim.loaders.load_iod`) when the data
    directory loads; otherwise reads the ``[[setup]]`` tables of
    ``scenarios/<scenario>.toml`` directly (so the map can still be drawn while
    other data files are broken).

    Raises
    ------
    DataError
        If the scenario file is missing or malformed.
    """
    try:
        from .loaders import load_iod

        sc = load_iod(data_dir).scenario(scenario)
        grouped: dict[tuple[str, str], list[str]] = {}
        for p in sc.setup:
            if p.hex:
                grouped.setdefault((p.side, p.hex), []).append(p.piece)
        return [(side, h, units) for (side, h), units in grouped.items()]
    except Exception:  # noqa: BLE001 - any problem elsewhere in the data: fall back to the TOML tables
        pass
    from .loaders.common import read_toml, resolve_data_dir

    folder = resolve_data_dir(data_dir)
    doc = read_toml(folder / "scenarios" / f"{scenario}.toml")
    out = []
    for st in doc.get("setup", []):
        if "hex" in st:
            out.append((st.get("side", "?"), st["hex"], [str(u) for u in st.get("units", [])]))
    return out


def box_contents(scenario: str, data_dir=None) -> dict[str, int]:
    """Number of pieces a scenario puts in each box (``followup.<Zone>``,
    ``disbandment``); empty when the scenario loader is unavailable."""
    try:
        from .loaders import load_iod

        sc = load_iod(data_dir).scenario(scenario)
    except Exception:  # noqa: BLE001
        return {}
    out: dict[str, int] = {}
    for p in sc.boxes:
        if p.box:
            out[p.box] = out.get(p.box, 0) + 1
    return out


def _short(unit: str) -> str:
    """A compact counter label: ``allied.uk.2rwk=6-6`` -> ``2rwk``."""
    base = unit.split("=")[0]
    n = ""
    if "*" in base:
        n, base = base.split("*", 1)
        n = n + "x"
    return n + base.split(".")[-1]


def draw_map(m: MapData | None = None, *, scenario: str | None = None, data_dir=None, out: str | Path | None = None,
             show_ids: bool = True, title: str | None = None, full: bool = False, margin: float = 2.2,
             width_in: float = 20.0, dpi: int = 110):
    """Draw the map; optionally with a scenario's set-up stacks.

    Parameters
    ----------
    m : MapData, optional
        Loaded map (``load_map(data_dir)`` when None).
    scenario : {"intro", "hercules"}, optional
        Draw the set-up stacks of this scenario.
    data_dir : path, optional
        Data directory (packaged data when None).
    out : path, optional
        PNG file to write.
    show_ids : bool
        Print the ``XXYY`` id in every hex.
    full : bool
        Draw the whole grid; otherwise only the island plus ``margin`` hexes.
    width_in : float
        Figure width in inches (the height follows the drawn area).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.patches import FancyBboxPatch

    if m is None:
        m = load_map(data_dir)
    g = m.grid
    centres = np.array([hex_centre(h) for h in g.hex_ids])
    if full:
        x0, x1 = centres[:, 0].min() - 0.8, centres[:, 0].max() + 0.8
        y0, y1 = centres[:, 1].min() - 0.8, centres[:, 1].max() + 0.8
    else:
        lc = centres[m.land]
        x0, x1 = lc[:, 0].min() - margin, lc[:, 0].max() + margin
        y0, y1 = lc[:, 1].min() - margin, lc[:, 1].max() + margin
    visible = ((centres[:, 0] > x0 - 0.6) & (centres[:, 0] < x1 + 0.6)
               & (centres[:, 1] > y0 - 0.6) & (centres[:, 1] < y1 + 0.6))
    polys = [_corners(x, y) for x, y in centres[visible]]
    colours = [TERRAIN_COLOURS[HEX_TERRAINS[int(t)]] for t in m.terrain[visible]]
    fig, ax = plt.subplots(figsize=(width_in, width_in * (y1 - y0) / (x1 - x0) + 0.5), dpi=dpi)
    ax.add_collection(PolyCollection(polys, facecolors=colours, edgecolors="#7f7f7f", linewidths=0.3))

    # coastal hexes: a light hatch; beach hexes: outline in the zone colour
    for i in np.flatnonzero(m.coastal & ~m.beach):
        ax.add_patch(plt.Polygon(_corners(*centres[i]), closed=True, fill=False, hatch="...", edgecolor="#8fb3cc",
                                 linewidth=0))
    for i in np.flatnonzero(m.beach):
        z = ZONES[int(m.beach_zone[i])]
        ax.add_patch(plt.Polygon(_corners(*centres[i]), closed=True, fill=False, edgecolor=ZONE_COLOURS[z], linewidth=2.2))

    # hexsides
    roads, by_feat = [], {"creek": [], "creek_rise": [], "ocean": []}
    for i in range(g.n_hexes):
        for d in range(3):  # each side once: N, NE, SE from this hex
            j = m.neighbours[i, d]
            if j < 0:
                continue
            ci, cj = centres[i], centres[j]
            if m.side_road[i, d]:
                roads.append([ci, cj])
            mid = (ci + cj) / 2
            v = (cj - ci) / np.linalg.norm(cj - ci)
            perp = np.array([-v[1], v[0]]) * (0.5 / SQRT3)
            seg = [mid - perp, mid + perp]
            if m.side_creek[i, d]:
                by_feat["creek"].append(seg)
            if m.side_rise[i, d]:
                by_feat["creek_rise"].append(seg)
            if m.side_ocean[i, d]:
                by_feat["ocean"].append(seg)
    ax.add_collection(LineCollection(roads, colors="#b22222", linewidths=1.6, zorder=3))
    ax.add_collection(LineCollection(by_feat["creek"], colors=SIDE_COLOURS["creek"], linewidths=2.6, zorder=4))
    ax.add_collection(LineCollection(by_feat["creek_rise"], colors=SIDE_COLOURS["creek_rise"], linewidths=4.0,
                                     zorder=4))
    ax.add_collection(LineCollection(by_feat["creek_rise"], colors=SIDE_COLOURS["creek"], linewidths=1.2,
                                     zorder=5))
    ax.add_collection(LineCollection(by_feat["ocean"], colors=SIDE_COLOURS["ocean"], linewidths=3.5, zorder=4))

    # symbols
    for i in np.flatnonzero(m.land):
        x, y = centres[i]
        if m.airfield[i]:
            ax.plot([x - 0.25, x + 0.25], [y + 0.1, y - 0.1], color="k", lw=2.5, zorder=6)
            ax.plot([x - 0.2, x + 0.2], [y - 0.12, y + 0.12], color="k", lw=2.5, zorder=6)
        if m.fort[i]:
            ax.add_patch(plt.Polygon(_corners(x, y) * 0.45 + np.array([x, y]) * 0.55, closed=True,
                                     facecolor="none", edgecolor="k", lw=1.8, zorder=6))
            ax.plot(x, y, marker="*", color="k", ms=9, zorder=6)
        if m.port[i]:
            ax.plot(x + 0.22, y - 0.22, marker="$\u2693$", color="#0b2e59", ms=13 if m.port[i] == 2 else 10, zorder=7)
        if m.city[i]:
            ax.plot(x, y + 0.05, marker="s", color="#4a2a1a", ms=10, zorder=6)
        elif m.town[i]:
            ax.plot(x, y + 0.05, marker="s", color="#6e4a2e", ms=6, zorder=6)

    if show_ids:
        for i in np.flatnonzero(visible):
            x, y = centres[i]
            ax.text(x, y - 0.33, g.hex_id(i), ha="center", va="center", fontsize=5.5,
                    color="#555555" if m.land[i] else "#6d8fa8", zorder=8, clip_on=True)

    # place names (first name of each hex)
    for hid, name in m.place_names.items():
        i = g.index(hid)
        x, y = centres[i]
        label = name.split(" / ")[0]
        if len(label) > 18:
            label = label[:17] + "."
        ax.text(x, y + 0.3, label, ha="center", va="center", fontsize=6.2, weight="bold", color="#222222",
                zorder=9)

    # beach zones: wave boxes beside each beach hex, a Follow-up box per zone
    island_c = centres[m.land].mean(axis=0)
    zone_pts: dict[str, list] = {z: [] for z in ZONES}
    for k, box in enumerate(m.box_ids):
        i = int(m.box_beach[k])
        z = ZONES[int(m.box_zone[k])]
        w = int(m.box_wave[k])
        ci = centres[i]
        sea = [centres[j] - ci for j in m.neighbours[i] if j >= 0 and m.ocean[j]]
        v = np.mean(sea, axis=0) if sea else ci - island_c
        v = v / (np.linalg.norm(v) + 1e-9)
        perp = np.array([-v[1], v[0]])
        p = ci + v * 1.05 + perp * (0.22 if w == 0 else -0.22)
        ax.plot([ci[0], p[0]], [ci[1], p[1]], color=ZONE_COLOURS[z], lw=0.8, zorder=9)
        ax.add_patch(FancyBboxPatch((p[0] - 0.17, p[1] - 0.12), 0.34, 0.24, boxstyle="round,pad=0.02",
                                    facecolor="white", edgecolor=ZONE_COLOURS[z], lw=1.0, zorder=10))
        ax.text(p[0], p[1], f"{w + 1}", ha="center", va="center", fontsize=6, color=ZONE_COLOURS[z], zorder=11)
        zone_pts[z].append(ci + v * 2.4)
    contents = box_contents(scenario, data_dir) if scenario is not None else {}
    for zi, z in enumerate(ZONES):
        if not zone_pts[z]:
            continue
        p = np.mean(zone_pts[z], axis=0)
        d = p - island_c
        p = p + d / (np.linalg.norm(d) + 1e-9) * 0.8
        p = np.array([min(max(p[0], x0 + 1.3), x1 - 1.3), min(max(p[1], y0 + 0.9), y1 - 0.9)])
        fu = m.follow_up_boxes[zi]
        extra = ""
        if scenario is not None:
            n_fu = contents.get(fu, contents.get(f"followup.{z}", 0))
            extra = f"\n{n_fu} pieces" if n_fu else "\nempty"
        ax.text(p[0], p[1], f"{z} zone\nFollow-up box{extra}", ha="center", va="center",
                fontsize=8, color="white", zorder=11,
                bbox=dict(boxstyle="round", facecolor=ZONE_COLOURS[z], edgecolor="k", lw=0.8))

    # scenario set-up stacks
    if scenario is not None:
        for side, hid, units in scenario_stacks(scenario, data_dir):
            if not g.contains(hid):
                continue
            x, y = centres[g.index(hid)]
            dx = -0.16 if side.lower().startswith("allied") else 0.16
            col = "#c8102e" if side.lower().startswith("allied") else "#3a5f0b"
            txt = "\n".join(_short(u) for u in units[:5]) + ("\n..." if len(units) > 5 else "")
            ax.text(x + dx, y + 0.02, txt, ha="center", va="center", fontsize=5.4, color="white", zorder=12,
                    bbox=dict(boxstyle="square,pad=0.15", facecolor=col, edgecolor="k", lw=0.5, alpha=0.92))

    # legend
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=c, edgecolor="#777777", label=t) for t, c in TERRAIN_COLOURS.items()]
    handles += [Line2D([0], [0], color="#b22222", lw=1.6, label="road"),
                Line2D([0], [0], color=SIDE_COLOURS["creek"], lw=2.6, label="creek"),
                Line2D([0], [0], color=SIDE_COLOURS["creek_rise"], lw=4, label="creek with rise"),
                Line2D([0], [0], color=SIDE_COLOURS["ocean"], lw=3.5, label="all-ocean hexside")]
    handles += [Patch(facecolor="white", edgecolor=ZONE_COLOURS[z], lw=2, label=f"{z} beach zone") for z in ZONES]
    if scenario is not None:
        handles += [Patch(facecolor="#c8102e", label="Allied set-up"), Patch(facecolor="#3a5f0b", label="Axis set-up")]
    ax.legend(handles=handles, loc="lower left", fontsize=9, ncol=2, framealpha=0.9)

    ax.set_xlim(x0, x1)
    ax.set_ylim(y1, y0)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title or ("Island of Death map" + (f" - {scenario} set-up" if scenario else "")), fontsize=16)
    fig.tight_layout()
    if out is not None:
        fig.savefig(out)
        plt.close(fig)
    return fig


def crop_to_land(fig, m: MapData, margin: float = 2.0):
    """Zoom the axes of a map figure to the land hexes plus ``margin`` hexes
    (``draw_map`` already does this unless ``full=True``)."""
    ax = fig.axes[0]
    c = np.array([hex_centre(h) for h in m.grid.hex_ids])[m.land]
    ax.set_xlim(c[:, 0].min() - margin, c[:, 0].max() + margin)
    ax.set_ylim(c[:, 1].max() + margin, c[:, 1].min() - margin)
    return fig
