"""Drawing the Island of Death map with matplotlib: terrain colours, hexsides
(roads, creeks, creeks with rise, all-ocean sides), hex ids, beach zones with
their First / Second Wave and Follow-up boxes (rule 18.1), named places and
scenario set-up stacks (rules 22.24, 22.25, 22.33), with a legend of every
colour and symbol.  Names are placed where they overlap nothing
(:class:`LabelPlacer`).  The two sides have one colour each in every picture
of the package (:data:`AXIS_COLOUR`, :data:`ALLIED_COLOUR`; the report charts
of :mod:`malta_sim.plots` use the same).

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
#: The two sides, the same in every picture of the package (maps, replays, report charts).
AXIS_COLOUR = "#b2182b"
ALLIED_COLOUR = "#2166ac"
SIDE_COLOURS = {"axis": AXIS_COLOUR, "allied": ALLIED_COLOUR}
#: Light tint of the Axis colour for Axis-controlled hexes.
AXIS_CONTROL_TINT = "#e8838a"
#: Beach zones: hues kept clear of the two side colours.
ZONE_COLOURS = {"North": "#1b9e77", "South": "#d95f02", "East": "#7570b3", "West": "#a6761d"}
HEXSIDE_COLOURS = {"creek": "#41b6c4", "creek_rise": "#5b3a1a", "ocean": "#2f4f4f", "road": "#8c510a"}
SYMBOL_COLOUR = "#222222"


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
    base = unit.split("=")[0].split("@")[0]
    n = ""
    if "*" in base:
        n, base = base.split("*", 1)
        n = n + "x"
    return n + base.split(".")[-1]


def place_label(name: str) -> str:
    """The label of a named place on the map: its first name, without a
    parenthesis (``"Xemxija (St Paul's Bay) beach"`` -> ``"Xemxija beach"``,
    ``"Sliema / Marsamxett"`` -> ``"Sliema"``); never cut in the middle."""
    import re

    first = name.split(" / ")[0]
    return re.sub(r"\s*\([^)]*\)", "", first).strip() or first


class LabelPlacer:
    """Places text labels on a map axes without overlapping each other or
    what was reserved, and never across the edge of the axes.

    Each label is tried at a list of candidate positions (offsets from its
    anchor, in map units) and kept at the first free one; a label with no
    free position is left out and counted in :attr:`skipped`.  The axes must
    have its final position, limits and aspect (display boxes are measured
    with the figure's renderer).
    """

    #: (dx, dy, ha, va): below, above, right, left, the diagonals, then further
    #: below/above (the map's y axis points down).
    AROUND = ((0.0, 0.30, "center", "top"), (0.0, -0.30, "center", "bottom"), (0.42, 0.0, "left", "center"),
              (-0.42, 0.0, "right", "center"), (0.3, 0.3, "left", "top"), (-0.3, 0.3, "right", "top"),
              (0.3, -0.3, "left", "bottom"), (-0.3, -0.3, "right", "bottom"), (0.0, 0.62, "center", "top"),
              (0.0, -0.62, "center", "bottom"), (0.0, 0.95, "center", "top"), (0.0, -0.95, "center", "bottom"))

    def __init__(self, fig, ax):
        self.fig, self.ax = fig, ax
        self.renderer = fig.canvas.get_renderer()
        self.frame = ax.get_window_extent(self.renderer)
        self.taken: list = []
        self.skipped: list[str] = []

    def reserve(self, artist) -> None:
        """Keep the display box of a drawn artist (a patch, a text) free of labels."""
        self.taken.append(artist.get_window_extent(self.renderer))

    def reserve_data_box(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """Keep a rectangle given in map units free of labels."""
        from matplotlib.transforms import Bbox

        (a, b), (c, d) = self.ax.transData.transform([(x0, y0), (x1, y1)])
        self.taken.append(Bbox.from_extents(min(a, c), min(b, d), max(a, c), max(b, d)))

    def place(self, x: float, y: float, text: str, candidates=AROUND, **kw):
        """Draw ``text`` near ``(x, y)`` at the first free candidate position.

        Returns
        -------
        matplotlib.text.Text or None
            None when every position overlapped (the label is then left out).
        """
        for dx, dy, ha, va in candidates:
            t = self.ax.text(x + dx, y + dy, text, ha=ha, va=va, **kw)
            bb = t.get_window_extent(self.renderer)
            inside = (bb.x0 >= self.frame.x0 and bb.x1 <= self.frame.x1
                      and bb.y0 >= self.frame.y0 and bb.y1 <= self.frame.y1)
            if inside and not any(bb.overlaps(o) for o in self.taken):
                self.taken.append(bb.expanded(1.08, 1.25))
                return t
            t.remove()
        self.skipped.append(text)
        return None


def _legend_handles(scenario: bool, show_ids: bool):
    """Legend entries of the map drawing itself: terrain, hexsides, symbols,
    beach zones and their boxes, hex ids.

    Returns
    -------
    (handles, labels) : two lists of equal length
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    pairs = [(Patch(facecolor=c, edgecolor="#777777"), t) for t, c in TERRAIN_COLOURS.items()]
    pairs += [
        (Line2D([], [], color=HEXSIDE_COLOURS["road"], lw=1.6), "road"),
        (Line2D([], [], color=HEXSIDE_COLOURS["creek"], lw=2.6), "creek"),
        ((Line2D([], [], color=HEXSIDE_COLOURS["creek_rise"], lw=4),
          Line2D([], [], color=HEXSIDE_COLOURS["creek"], lw=1.2)), "creek with rise"),
        (Line2D([], [], color=HEXSIDE_COLOURS["ocean"], lw=3.5), "all-ocean hexside"),
        (Line2D([], [], ls="", marker="x", ms=9, mew=2.5, color=SYMBOL_COLOUR), "airfield (X)"),
        ((Line2D([], [], ls="", marker="h", ms=13, mfc="none", mec=SYMBOL_COLOUR, mew=1.5),
          Line2D([], [], ls="", marker="*", ms=8, color=SYMBOL_COLOUR)), "fort (star in a hexagon)"),
        (Line2D([], [], ls="", marker="$\u2693$", ms=11, color=SYMBOL_COLOUR), "port (larger: main port)"),
        (Line2D([], [], ls="", marker="s", ms=9, color="#4a2a1a"), "city"),
        (Line2D([], [], ls="", marker="s", ms=6, color="#6e4a2e"), "town"),
    ]
    pairs += [(Patch(facecolor="white", edgecolor=ZONE_COLOURS[z], lw=2.2), f"{z} beach zone (beach hexes, boxes)")
              for z in ZONES]
    pairs += [(Line2D([], [], ls="", marker="s", ms=10, mfc="white", mec="#555555"),
               "1 / 2: First / Second Wave box of a beach hex"),
              (Patch(facecolor="#999999", edgecolor="k"), "Follow-up box of a zone (zone colour)")]
    if show_ids:
        pairs.append((Line2D([], [], ls="", marker="$0412$", ms=18, color="#555555"), "hex id (column, row)"))
    return [h for h, _ in pairs], [t for _, t in pairs]


def draw_map(m: MapData | None = None, *, scenario: str | None = None, data_dir=None, out: str | Path | None = None,
             show_ids: bool = True, title: str | None = None, full: bool = False, margin: float = 2.2,
             width_in: float = 20.0, dpi: int = 110, overlay=None, extra_legend=()):
    """Draw the map; optionally with a scenario's set-up stacks.

    Place names are set where they overlap nothing else and are never cut at
    the edge; the legend, below the map, names every colour and symbol
    drawn.  The two sides have one colour each, in every picture of the
    package: :data:`AXIS_COLOUR` and :data:`ALLIED_COLOUR`.

    Parameters
    ----------
    m : MapData, optional
        Loaded map (``load_map(data_dir)`` when None).
    scenario : {"intro", "hercules"}, optional
        Draw the set-up stacks of this scenario.
    data_dir : path, optional
        Data directory (packaged data when None).
    out : path, optional
        PNG file to write (the figure is then closed).
    show_ids : bool
        Print the ``XXYY`` id in every hex.
    title : str, optional
    full : bool
        Draw the whole grid; otherwise only the island plus ``margin`` hexes.
    width_in : float
        Figure width in inches (the height follows the drawn area and the legend).
    dpi : int
    overlay : callable, optional
        ``overlay(ax, placer)`` draws more on the map (a game state) before the
        place names are set; it reserves what it draws with the
        :class:`LabelPlacer` so that no name covers it.
    extra_legend : sequence of (handle, label)
        Further legend entries (those of the overlay).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.legend_handler import HandlerTuple
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
    # font sizes follow the size of a hex on the page (points per map unit)
    unit_pt = 72.0 * width_in / (x1 - x0)
    fs = max(6.0, min(9.0, unit_pt * 0.16))
    map_h = width_in * (y1 - y0) / (x1 - x0)
    ncol = max(3, int(width_in / 3.6))
    n_entries = len(_legend_handles(scenario is not None, show_ids)[0]) + len(extra_legend) + (2 if scenario else 0)
    rows = -(-n_entries // ncol)
    title_h, legend_h = 0.3 + fs * 2.0 / 72, rows * fs * 1.05 * 1.75 / 72 + 0.2
    fig = plt.figure(figsize=(width_in, map_h + title_h + legend_h), dpi=dpi)
    H = map_h + title_h + legend_h
    ax = fig.add_axes([0.0, legend_h / H, 1.0, map_h / H])
    ax.set_xlim(x0, x1)
    ax.set_ylim(y1, y0)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.apply_aspect()
    placer = LabelPlacer(fig, ax)

    visible = ((centres[:, 0] > x0 - 0.6) & (centres[:, 0] < x1 + 0.6)
               & (centres[:, 1] > y0 - 0.6) & (centres[:, 1] < y1 + 0.6))
    polys = [_corners(x, y) for x, y in centres[visible]]
    colours = [TERRAIN_COLOURS[HEX_TERRAINS[int(t)]] for t in m.terrain[visible]]
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
    ax.add_collection(LineCollection(roads, colors=HEXSIDE_COLOURS["road"], linewidths=1.6, zorder=3))
    ax.add_collection(LineCollection(by_feat["creek"], colors=HEXSIDE_COLOURS["creek"], linewidths=2.6, zorder=4))
    ax.add_collection(LineCollection(by_feat["creek_rise"], colors=HEXSIDE_COLOURS["creek_rise"], linewidths=4.0,
                                     zorder=4))
    ax.add_collection(LineCollection(by_feat["creek_rise"], colors=HEXSIDE_COLOURS["creek"], linewidths=1.2,
                                     zorder=5))
    ax.add_collection(LineCollection(by_feat["ocean"], colors=HEXSIDE_COLOURS["ocean"], linewidths=3.5, zorder=4))

    # symbols (sizes in points follow the hex size)
    ms = unit_pt * 0.22
    for i in np.flatnonzero(m.land):
        x, y = centres[i]
        if m.airfield[i]:
            ax.plot([x - 0.25, x + 0.25], [y + 0.1, y - 0.1], color=SYMBOL_COLOUR, lw=2.5, zorder=6)
            ax.plot([x - 0.2, x + 0.2], [y - 0.12, y + 0.12], color=SYMBOL_COLOUR, lw=2.5, zorder=6)
        if m.fort[i]:
            ax.add_patch(plt.Polygon(_corners(x, y) * 0.45 + np.array([x, y]) * 0.55, closed=True,
                                     facecolor="none", edgecolor=SYMBOL_COLOUR, lw=1.8, zorder=6))
            ax.plot(x, y, marker="*", color=SYMBOL_COLOUR, ms=ms * 0.9, zorder=6)
        if m.port[i]:
            ax.plot(x + 0.22, y - 0.22, marker="$\u2693$", color=SYMBOL_COLOUR, ms=ms * (1.2 if m.port[i] == 2 else 0.9),
                    zorder=7)
        if m.city[i]:
            ax.plot(x, y + 0.05, marker="s", color="#4a2a1a", ms=ms * 0.9, zorder=6)
        elif m.town[i]:
            ax.plot(x, y + 0.05, marker="s", color="#6e4a2e", ms=ms * 0.55, zorder=6)

    if show_ids:
        for i in np.flatnonzero(visible):
            x, y = centres[i]
            ax.text(x, y - 0.36, g.hex_id(i), ha="center", va="center", fontsize=fs * 0.72,
                    color="#555555" if m.land[i] else "#6d8fa8", zorder=8, clip_on=True)

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
        patch = FancyBboxPatch((p[0] - 0.17, p[1] - 0.12), 0.34, 0.24, boxstyle="round,pad=0.02",
                               facecolor="white", edgecolor=ZONE_COLOURS[z], lw=1.0, zorder=10)
        ax.add_patch(patch)
        placer.reserve(patch)
        ax.text(p[0], p[1], f"{w + 1}", ha="center", va="center", fontsize=fs * 0.8, color=ZONE_COLOURS[z], zorder=11)
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
        t = ax.text(p[0], p[1], f"{z} zone\nFollow-up box{extra}", ha="center", va="center",
                    fontsize=fs * 1.05, color="white", zorder=11,
                    bbox=dict(boxstyle="round", facecolor=ZONE_COLOURS[z], edgecolor="k", lw=0.8))
        placer.reserve(t)

    legend = list(extra_legend)
    # scenario set-up stacks
    if scenario is not None:
        from matplotlib.patches import Patch

        for side, hid, units in scenario_stacks(scenario, data_dir):
            if not g.contains(hid):
                continue
            x, y = centres[g.index(hid)]
            allied = side.lower().startswith("allied")
            dx = -0.16 if allied else 0.16
            col = ALLIED_COLOUR if allied else AXIS_COLOUR
            txt = "\n".join(_short(u) for u in units[:5]) + ("\n..." if len(units) > 5 else "")
            t = ax.text(x + dx, y + 0.02, txt, ha="center", va="center", fontsize=fs * 0.85, color="white",
                        zorder=12, bbox=dict(boxstyle="square,pad=0.15", facecolor=col, edgecolor="k", lw=0.5,
                                             alpha=0.92))
            placer.reserve(t)
        legend += [(Patch(facecolor=AXIS_COLOUR, edgecolor="k"), "Axis set-up stack (pieces)"),
                   (Patch(facecolor=ALLIED_COLOUR, edgecolor="k"), "Allied set-up stack (pieces)")]

    if overlay is not None:
        overlay(ax, placer)

    # place names (first name of each hex): cities first, beaches last; none over another
    def rank(item):
        hid, name = item
        i = g.index(hid)
        return (0 if m.city[i] else 1 if m.town[i] else 3 if "beach" in name else 2, hid)

    for hid, name in sorted(m.place_names.items(), key=rank):
        x, y = centres[g.index(hid)]
        placer.place(x, y, place_label(name), fontsize=fs, weight="bold", color="#222222", zorder=13,
                     bbox=dict(boxstyle="round,pad=0.12", facecolor="white", alpha=0.75, lw=0))

    handles, labels = _legend_handles(scenario is not None, show_ids)
    for h, lab in legend:
        handles.append(h)
        labels.append(lab)
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.005), ncol=ncol, fontsize=fs * 1.05,
               frameon=False, handler_map={tuple: HandlerTuple(ndivide=None, pad=0)}, handlelength=2.2,
               columnspacing=1.4)
    fig.text(0.5, 1 - 0.5 * title_h / H, title or ("Island of Death map" + (f" - {scenario} set-up" if scenario else "")),
             ha="center", va="center", fontsize=fs * 2.0)
    fig.malta_sim_skipped_labels = placer.skipped
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
