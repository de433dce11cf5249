"""Charts of result frames (matplotlib, Agg canvas; no pyplot global state).

Every function draws one figure from an analysis frame (see
:mod:`malta_sim.analysis`) and writes it as a PNG; it returns the path.
Map pictures of single games live in :mod:`malta_sim.plots_map`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from .analysis.frames import calendar_for
from .plots_map import ALLIED_COLOUR, AXIS_COLOUR

#: Colours of arms (curves of the timing charts), in arm order; none is a side colour.
_COLOURS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666",
            "#17becf", "#8c564b"]
#: End reasons: Axis wins in shades of the Axis colour, Allied wins in shades of the Allied colour.
REASON_COLOURS = {"surrender": AXIS_COLOUR, "sudden victory": "#d6604d", "objectives at end": "#f4a582",
                  "operation cancelled": ALLIED_COLOUR, "Axis eliminated": "#4393c3", "time limit": "#92c5de",
                  "turn cap": "#999999"}


def _reason_order(reason: str) -> tuple:
    order = list(REASON_COLOURS)
    return (order.index(reason) if reason in order else len(order), reason)


def _figure(w=7.5, h=4.5):
    fig = Figure(figsize=(w, h), dpi=110)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path, bottom: float = 0.0) -> Path:
    """Lay out ``fig`` (leaving ``bottom`` inches free below the axes for a
    figure legend) and write it to ``path``, creating its folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout(rect=(0, bottom / fig.get_figheight(), 1, 1))
    fig.savefig(path)
    return path


def _short(label: str, n: int = 38) -> str:
    label = str(label)
    return label if len(label) <= n else label[: n - 1] + "…"


def plot_win_rates(wr: pd.DataFrame, path, *, by: str = "arm", side: str = "Axis", title: str | None = None) -> Path:
    """Win rate per arm as points with interval bars (from ``win_rates``).

    A dashed line marks 50 % (a balanced scenario).
    """
    labels = [_short(x) for x in wr[by]]
    fig = _figure(7.5, max(2.2, 0.5 * len(wr) + 1.4))
    ax = fig.add_subplot()
    y = np.arange(len(wr))
    rate = wr["rate"].to_numpy() * 100
    low = np.clip(wr["low"].to_numpy() * 100, 0, rate)          # limits hold the rate (unanimous results too)
    high = np.clip(wr["high"].to_numpy() * 100, rate, 100)
    err = np.vstack([rate - low, high - rate])
    colour = AXIS_COLOUR if side.lower().startswith("axis") else ALLIED_COLOUR
    ax.errorbar(rate, y, xerr=err, fmt="o", color=colour, ecolor="#444", capsize=4, clip_on=False, zorder=3)
    lo = max(0.0, min(40.0, float(np.nanmin(low)) - 5))
    hi = min(100.0, max(60.0, float(np.nanmax(high)) + 5))
    pad = 0.02 * (hi - lo)
    ax.set_xlim(lo - pad, hi + pad)
    for yi, r, n in zip(y, rate, wr["games"]):
        ha = "right" if r > hi - 0.15 * (hi - lo) else "left" if r < lo + 0.15 * (hi - lo) else "center"
        ax.annotate(f"{r:.1f}%  (n={n})", (r, yi), textcoords="offset points", xytext=(0, 7), ha=ha, fontsize=8)
    ax.axvline(50, ls="--", color="#888", lw=1)
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, len(wr) - 0.3)
    ax.invert_yaxis()
    ax.set_xlabel(f"{side} win rate, % (bars: 95% interval)")
    ax.set_title(title or f"{side} win rate per arm")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def _date_axis(ax, scenario, frame, first_turn, last_turn):
    cal = calendar_for(scenario, frame)
    tpd = cal.turns_per_day
    start = cal.origin + ((first_turn - cal.origin) // tpd) * tpd
    starts = np.arange(start, last_turn + 1, tpd)
    ax.set_xticks(starts, [cal.day_label(t) for t in starts], rotation=45, ha="right")
    ax.set_xlim(first_turn - 0.5, last_turn + 0.5)
    ax.set_xlabel(("date" if cal.dated else "day") + " (tick = AM turn of the day)")


def plot_timing(curve: pd.DataFrame, path, *, by: str = "arm", title: str, scenario=None, ylabel=None,
                order=None, last_turn: int | None = None, band_label: str | None = None) -> Path:
    """Cumulative share of games with an event by turn, a band per arm (from ``timing_curve``).

    ``order``: arm names in legend order (default sorted); ``last_turn``:
    zoom the x axis to turns up to this absolute turn; ``band_label``: what
    the bands are (``"95% pointwise band"``), added to the title when they
    are drawn.  Above six arms only the lines are drawn (the bands would
    hide them), each arm in its own colour and line style.
    """
    if last_turn is not None:
        curve = curve[curve["turn"] <= last_turn]
    groups = list(curve.groupby(by, sort=True)) if by in curve.columns else [("all", curve)]
    several = len(groups) > 1 or groups[0][0] != "all"
    fig = _figure(9.5 if several else 7.5, 4.5)
    ax = fig.add_subplot()
    if order is not None:
        rank = {a: i for i, a in enumerate(order)}
        groups.sort(key=lambda g: rank.get(g[0], len(rank)))
    bands = len(groups) <= _MAX_BANDS
    for k, (g, sub) in enumerate(groups):
        c, ls = _line_style(k)
        t = sub["turn"].to_numpy()
        ax.step(t, sub["share"] * 100, where="post", color=c, ls=ls, label=_short(g), lw=1.8)
        if bands:
            ax.fill_between(t, sub["low"] * 100, sub["high"] * 100, step="post", color=c,
                            alpha=0.18 if len(groups) <= 4 else 0.07, lw=0)
    if bands and band_label:
        title = f"{title} ({band_label})"
    elif not bands:
        title = f"{title}\n(lines only: the intervals are left out above {_MAX_BANDS} arms)"
    _date_axis(ax, scenario, None, int(curve["turn"].min()), int(curve["turn"].max()))
    if int(curve["turn"].max()) - int(curve["turn"].min()) < 16:  # short span: label every turn
        ts = np.arange(int(curve["turn"].min()), int(curve["turn"].max()) + 1)
        cal = calendar_for(scenario, None)
        ax.set_xticks(ts, [cal.label(t) for t in ts], rotation=45, ha="right", fontsize=8)
        ax.set_xlabel("turn")
    ax.set_ylim(0, 100)
    ax.set_ylabel(ylabel or "share of games, %")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    if several:  # beside the plot, never over a curve; two columns when one would not fit
        ax.legend(fontsize=8 if len(groups) <= 16 else 7, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  borderaxespad=0, title="arm", title_fontsize=8, ncols=1 if len(groups) <= 22 else 2)
    return _save(fig, path)


#: Most arms whose interval bands a timing chart draws (more: lines only).
_MAX_BANDS = 6
_LINE_STYLES = ("-", "--", ":", "-.")


def _line_style(k: int) -> tuple[str, str]:
    """Colour and line style of the ``k``-th curve: the colours in turn,
    then again with the next line style, so up to 40 curves differ."""
    return _COLOURS[k % len(_COLOURS)], _LINE_STYLES[(k // len(_COLOURS)) % len(_LINE_STYLES)]


def plot_steps_lost(games: pd.DataFrame, path, *, by: str = "arm") -> Path:
    """Distribution of steps eliminated per side and arm (box plots)."""
    cols = [c for c in ("axis_steps_lost", "allied_steps_lost") if c in games.columns]
    fig = _figure(7.5, 4.5)
    ax = fig.add_subplot()
    groups = list(games.groupby(by, sort=True))
    data, labels, colours = [], [], []
    for c, side, col in zip(cols, ("Axis", "Allied"), (AXIS_COLOUR, ALLIED_COLOUR)):
        for g, sub in groups:
            data.append(pd.to_numeric(sub[c], errors="coerce").dropna().to_numpy())
            labels.append(f"{side}\n{_short(g, 18)}" if len(groups) > 1 else side)
            colours.append(col)
    bp = ax.boxplot(data, patch_artist=True, showmeans=True, widths=0.6)
    for patch, col in zip(bp["boxes"], colours):
        patch.set_facecolor(col)
        patch.set_alpha(0.45)
    ax.set_xticks(np.arange(1, len(labels) + 1), labels, fontsize=8)
    ax.set_ylabel("steps eliminated per game (rule 20.1/20.2 counting)")
    ax.set_title("Steps lost per side (box: quartiles, triangle: mean)")
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


def plot_end_reasons(er: pd.DataFrame, path, *, by: str = "arm", order=None) -> Path:
    """Stacked bars: share of games ending each way, one bar per arm (from ``end_reasons``).

    Every share above zero is drawn at least half a point wide and labelled
    (small ones beside the bar), so a rare ending never vanishes; the legend
    sits below the axis label.  ``order``: arm names top to bottom (default:
    the order of ``er``).
    """
    piv = er.pivot_table(index=by, columns="end_reason", values="share", aggfunc="sum", fill_value=0)
    arms = list(order) if order is not None else list(dict.fromkeys(er[by]))
    piv = piv.reindex([a for a in arms if a in piv.index])
    piv = piv[sorted(piv.columns, key=_reason_order)]
    n_reasons = len(piv.columns)
    fig = _figure(7.5, 0.55 * len(piv) + 1.6 + 0.22 * -(-n_reasons // 3))
    ax = fig.add_subplot()
    y = np.arange(len(piv))
    shares = piv.to_numpy() * 100
    shown = np.where(shares > 0, np.maximum(shares, 0.5), 0.0)
    shown = shown * np.where(shown.sum(axis=1, keepdims=True) > 0, 100 / np.maximum(shown.sum(axis=1, keepdims=True),
                                                                                     1e-9), 1)
    left = np.zeros(len(piv))
    for j, reason in enumerate(piv.columns):
        w = shown[:, j]
        ax.barh(y, w, left=left, color=REASON_COLOURS.get(reason, "#999"), label=reason, edgecolor="white", lw=0.4,
                height=0.7)
        for yi, l, wi, true in zip(y, left, w, shares[:, j]):
            if true <= 0:
                continue
            txt = f"{true:.0f}%" if true >= 1 else f"{true:.1f}%"
            if wi >= 7:
                ax.text(l + wi / 2, yi, txt, ha="center", va="center", fontsize=8, color="white")
            else:  # a thin slice: its share just above the bar
                ax.text(l + wi / 2, yi - 0.36, txt, ha="center", va="bottom", fontsize=7,
                        color=REASON_COLOURS.get(reason, "#555"))
        left += w
    ax.set_yticks(y, [_short(x) for x in piv.index])
    ax.set_ylim(len(piv) - 0.45, -0.75)
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of games, %")
    ax.set_title("How games end", fontsize=10)
    fig.legend(*ax.get_legend_handles_labels(), fontsize=8, ncols=min(3, n_reasons), loc="lower center",
               frameon=False)
    legend_in = 0.18 + 0.22 * -(-n_reasons // 3)
    return _save(fig, path, bottom=legend_in)


#: ``plot_end_dates`` draws one small panel per group up to this many groups,
#: and one heat map (a row per group) beyond.
END_DATES_MAX_PANELS = 36
#: Tallest end-dates figure, inches: the panels shrink to fit, never the page grow.
_END_DATES_MAX_HEIGHT = 14.0


def _panel_columns(n: int) -> int:
    """Columns of a grid of ``n`` small panels (one column for up to 3)."""
    return 1 if n <= 3 else 2 if n <= 8 else 3 if n <= 12 else 4 if n <= 24 else 6


def plot_end_dates(table: pd.DataFrame, path, *, by: str = "arm", dates=None, days=None, order=None,
                   ncols: int | None = None) -> Path:
    """The day games end on, stacked by end reason, per group (from ``end_day_table``).

    One group: one bar chart.  Several: a grid of small panels on the same
    axes (same days, same game scale), one per group, in ``order``, with one
    legend for all.  More than :data:`END_DATES_MAX_PANELS` groups: a heat
    map, one row per group, of the share of its games ending each day, Axis
    wins beside the other endings.  The figure is never taller than
    ``_END_DATES_MAX_HEIGHT`` inches.

    ``days`` (sequence of str): day labels on the x axis in order (the
    scenario's days, :meth:`Calendar.day_label`), to show empty days too;
    ``dates`` (datetime-like sequence) does the same for a dated calendar.
    Default: the days present in ``table``.  ``order``: group names in
    panel order (default: the order of ``table``); ``ncols``: panels a row
    (e.g. the Allied presets of a balance matrix, so each row is one Axis
    preset; default by the number of groups).
    """
    if "day" not in table.columns:  # a table from an older end_day_table
        table = table.assign(day=pd.to_datetime(table["date"]).dt.strftime("%d %b"),
                             end_day=pd.to_datetime(table["date"]).rank(method="dense"))
    present = list(table.sort_values("end_day")["day"].drop_duplicates())
    if days is None and dates is not None:
        days = [pd.Timestamp(d).strftime("%d %b") for d in sorted(pd.to_datetime(dates))]
    days_order = list(days) + [d for d in present if d not in set(days)] if days is not None else present
    found = list(dict.fromkeys(table[by]))
    names = [g for g in order if g in set(found)] if order is not None else []
    names += [g for g in found if g not in set(names)]
    reasons = sorted(table["end_reason"].unique(), key=_reason_order)
    counts = {g: (sub.pivot_table(index="day", columns="end_reason", values="count", aggfunc="sum", fill_value=0)
                  .reindex(index=days_order, columns=reasons, fill_value=0))
              for g, sub in table.groupby(by, sort=False)}
    if len(names) > END_DATES_MAX_PANELS:
        return _end_dates_heatmap(counts, names, days_order, reasons, path)

    n = len(names)
    cols = max(1, min(ncols or _panel_columns(n), n))
    rows = -(-n // cols)
    width = 7.5 if cols == 1 else 9.5 if cols == 2 else 11.0
    extra = 1.6 + (0.25 if n > 1 else 0)                  # title, day labels and the legend row
    panel_h = min(2.6 if cols == 1 else 1.9, (_END_DATES_MAX_HEIGHT - extra) / rows)
    fig = _figure(width, rows * panel_h + extra)
    grid = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False)
    x = np.arange(len(days_order))
    fit = max(1, int(width / cols / 0.2))               # rotated day labels that fit across one panel
    step = -(-len(days_order) // fit)
    small = n > 3
    for k, ax in enumerate(grid.flat):
        if k >= n:                                        # an empty slot of the last row
            ax.set_visible(False)
            above = grid.flat[k - cols]
            above.xaxis.set_tick_params(labelbottom=True)  # its column's day labels go on the panel above
            continue
        piv = counts[names[k]]
        bottom = np.zeros(len(days_order))
        for reason in reasons:
            ax.bar(x, piv[reason], bottom=bottom, color=REASON_COLOURS.get(reason, "#999"), label=reason,
                   width=0.8)
            bottom += piv[reason].to_numpy()
        ax.set_title(_short(names[k], max(18, int(14 * width / cols))), fontsize=8 if small else 9)
        if k % cols == 0:
            ax.set_ylabel("games", fontsize=8 if small else 10)
        ax.tick_params(labelsize=7 if small else 9)
        ax.grid(axis="y", alpha=0.3)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))   # games are whole
        ax.set_xticks(x[::step], days_order[::step], rotation=45, ha="right")
    top = max(float(sum(counts[nm][r].to_numpy() for r in reasons).max()) for nm in names)
    grid.flat[0].set_ylim(0, max(1.0, top * 1.06))          # shared: the tallest bar stays inside
    handles = [Rectangle((0, 0), 1, 1, color=REASON_COLOURS.get(r, "#999")) for r in reasons]
    fig.legend(handles, reasons, fontsize=8, ncols=min(len(reasons), 4), loc="lower center", frameon=False)
    title = "Day on which games end"
    if n > 1:
        title += f" ({n} {'arms' if by == 'arm' else 'groups'}; every panel on the same scales)"
    fig.suptitle(title, fontsize=11)
    return _save(fig, path, bottom=0.35)


def _end_dates_heatmap(counts: dict, names: list, days: list, reasons: list, path) -> Path:
    """The end-dates chart of many groups: share of each group's games ending each day, by winner."""
    from .analysis.breakdown import REASON_WINNER

    axis_r = [r for r in reasons if REASON_WINNER.get(r) == "axis"]
    other_r = [r for r in reasons if r not in axis_r]
    parts = [(axis_r, "Reds", "Axis wins"), (other_r, "Blues", "Allied wins and other endings")]
    parts = [p for p in parts if p[0]]
    mats = []
    for rs, _, _ in parts:
        m = np.array([counts[g][rs].sum(axis=1).to_numpy() for g in names], dtype=float)
        totals = np.array([counts[g].to_numpy().sum() for g in names], dtype=float)
        mats.append(100 * m / np.maximum(totals, 1)[:, None])
    n = len(names)
    row_h = min(0.22, (_END_DATES_MAX_HEIGHT - 2.2) / n)
    fig = _figure(11.0 if len(parts) > 1 else 7.5, n * row_h + 2.2)
    axes = fig.subplots(1, len(parts), sharey=True, squeeze=False)[0]
    label_every = -(-n // 60)                            # at most 60 row labels
    for ax, m, (rs, cmap, what) in zip(axes, mats, parts):
        im = ax.imshow(m, aspect="auto", cmap=cmap, vmin=0, vmax=float(m.max()) or 1.0, interpolation="nearest")
        ax.set_xticks(np.arange(len(days)), days, rotation=45, ha="right", fontsize=7)
        ax.set_title(f"{what}\n({', '.join(rs)})", fontsize=9)
        fig.colorbar(im, ax=ax, label="share of the row's games, %", fraction=0.05, pad=0.02)
    ticks = np.arange(0, n, label_every)
    axes[0].set_yticks(ticks, [_short(names[i], 40) for i in ticks], fontsize=6 if n > 40 else 7)
    fig.suptitle(f"Day on which games end ({n} arms, one row each)", fontsize=11)
    return _save(fig, path)


def plot_level_rates(lr: pd.DataFrame, path) -> Path:
    """Axis win rate at each level of each sweep parameter (from ``level_rates``)."""
    params = list(dict.fromkeys(lr["parameter"]))
    fig = _figure(7.5, max(2.5, 0.35 * len(lr) + 0.8 * len(params)))
    axes = fig.subplots(len(params), 1, squeeze=False)[:, 0]
    for ax, p in zip(axes, params):
        sub = lr[lr["parameter"] == p]
        y = np.arange(len(sub))
        r = sub["rate"].to_numpy() * 100
        lo = np.clip(sub["low"].to_numpy() * 100, 0, r)
        hi = np.clip(sub["high"].to_numpy() * 100, r, 100)
        ax.errorbar(r, y, xerr=[r - lo, hi - r], fmt="o", capsize=3, color=AXIS_COLOUR)
        ax.set_yticks(y, [_short(v, 24) for v in sub["level"]])
        ax.invert_yaxis()
        ax.axvline(50, ls="--", color="#888", lw=1)
        ax.set_title(p, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[-1].set_xlabel("Axis win rate, % (95% interval)")
    return _save(fig, path)


def plot_heatmap(matrix: pd.DataFrame, path, *, title: str, fmt: str = "{:.0f}", cbar: str = "") -> Path:
    """Annotated heat map of a small matrix (e.g. win rate per beach-zone pair)."""
    fig = _figure(6.5, 5)
    ax = fig.add_subplot()
    m = matrix.to_numpy(dtype=float)
    im = ax.imshow(m, cmap="RdBu_r", vmin=np.nanmin(m), vmax=np.nanmax(m))
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if np.isfinite(m[i, j]):
                dark = abs(float(im.norm(m[i, j])) - 0.5) > 0.3    # deep red or blue: white text
                ax.text(j, i, fmt.format(m[i, j]), ha="center", va="center", fontsize=9,
                        color="white" if dark else "black")
    ax.set_xticks(range(m.shape[1]), matrix.columns, rotation=30, ha="right")
    ax.set_yticks(range(m.shape[0]), matrix.index)
    ax.set_xlabel(matrix.columns.name or "")
    ax.set_ylabel(matrix.index.name or "")
    fig.colorbar(im, ax=ax, label=cbar)
    ax.set_title(title)
    return _save(fig, path)


def plot_balance_matrix(cells: pd.DataFrame, path, *, axis: list, allied: list, title: str,
                        dominated: tuple = ((), ())) -> Path:
    """Heat map of a preset matrix (:func:`malta_sim.analysis.balance.analyse_balance`).

    Parameters
    ----------
    cells : pandas.DataFrame
        One row per pairing: ``axis_policy``, ``allied_policy``, ``rate``,
        ``low``, ``high`` (proportions), ``in_support`` (bool).
    axis, allied : list of str
        Row and column order.
    title : str
    dominated : (list of str, list of str)
        Axis and Allied presets to label "(dominated)".

    Returns
    -------
    pathlib.Path
        The PNG written: cells coloured by the Axis win rate (0-100 %), each
        with its rate and interval; cells of the equilibrium's support
        outlined in black.
    """
    m = np.full((len(axis), len(allied)), np.nan)
    text = {}
    support = []
    for r in cells.itertuples():
        i, j = axis.index(r.axis_policy), allied.index(r.allied_policy)
        m[i, j] = 100 * r.rate
        text[(i, j)] = f"{100 * r.rate:.0f}%\n({100 * r.low:.0f}-{100 * r.high:.0f})"
        if r.in_support:
            support.append((i, j))
    fig = _figure(max(4.5, 1.5 * len(allied) + 2.8), max(3.2, 0.75 * len(axis) + 1.6))
    ax = fig.add_subplot()
    im = ax.imshow(m, cmap="RdBu_r", vmin=0, vmax=100, aspect="auto")
    for (i, j), t in text.items():
        ax.text(j, i, t, ha="center", va="center", fontsize=8,
                color="white" if abs(m[i, j] - 50) > 30 else "black")
    for i, j in support:
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=2.5, ec="black"))
    dom_ax, dom_al = (set(d) for d in dominated)
    ax.set_xticks(range(len(allied)), [a + ("\n(dominated)" if a in dom_al else "") for a in allied])
    ax.set_yticks(range(len(axis)), [a + (" (dominated)" if a in dom_ax else "") for a in axis])
    ax.set_xlabel("Allied preset")
    ax.set_ylabel("Axis preset")
    fig.colorbar(im, ax=ax, label="Axis win rate (%)")
    ax.set_title(title, fontsize=10)
    return _save(fig, path)


# --------------------------------------------------------------------------- one game's map


def _unit_label(name: str) -> str:
    """Short counter name of a piece: ``axis.it.ram.1_2`` -> ``ram.1_2``, ``allied.uk.2rwk`` -> ``2rwk``."""
    parts = str(name).split(".")
    if parts and parts[0] in ("axis", "allied"):
        parts = parts[1:]
    if len(parts) > 1 and len(parts[0]) == 2:       # nation code (de, it, uk, mt)
        parts = parts[1:]
    return ".".join(parts)


def plot_game_state(snapshot: dict, path, *, title: str = "", map_data=None, data_dir=None,
                    width_in: float = 16.0, dpi: int = 100) -> Path:
    """Map picture of one game at one moment: control, units, drop zones, boxes.

    Draws the Island of Death map with :func:`malta_sim.plots_map.draw_map`
    (terrain, beach zones and their Follow-up / First / Second Wave boxes,
    place names, a legend of every symbol) and overlays the game state in the
    two side colours of every picture (:data:`malta_sim.plots_map.AXIS_COLOUR`,
    :data:`~malta_sim.plots_map.ALLIED_COLOUR`): Axis-controlled hexes
    tinted, each side's stack in a hex as a square with its piece count and
    the top piece's name beside it (placed where it covers no other label),
    drop zone markers as stars, box contents and steps lost in a corner.

    Parameters
    ----------
    snapshot : dict
        ``turn`` (int, absolute), ``unit_hex`` (int32[n_units], dense hex or
        -1), ``unit_side`` (int8[n_units], 0 Axis / 1 Allied), ``unit_names``
        (list of str), ``control`` (int8[n_hexes], 0 Axis / 1 Allied / -1
        nobody), optional ``dz_hex`` (int array of dense hexes, drop zone
        markers), ``boxes`` (dict box label -> unit count), ``notes`` (list of str).
    path : path-like
        PNG to write.
    title : str
    map_data : MapData, optional
        Loaded map (``load_map(data_dir)`` when None).
    width_in, dpi : float, int
        Picture size: 16 in at 100 dpi is 1600 pixels wide, where unit names
        are about 10 pixels high.

    Returns
    -------
    pathlib.Path
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from .loaders.iod_map import load_map
    from .mapgen.geo import hex_centre
    from .plots_map import ALLIED_COLOUR, AXIS_COLOUR, AXIS_CONTROL_TINT, _corners, draw_map

    m = map_data if map_data is not None else load_map(data_dir)
    ids = m.grid.hex_ids
    side_colour = (AXIS_COLOUR, ALLIED_COLOUR)
    unit_pt = None

    def overlay(ax, placer):
        nonlocal unit_pt
        # points per map unit, for marker and font sizes
        (a, _), (b, _) = ax.transData.transform([(0, 0), (1, 0)])
        unit_pt = abs(b - a) * 72.0 / ax.figure.dpi
        fs = max(6.5, min(9.0, unit_pt * 0.15))
        control = np.asarray(snapshot.get("control", []), dtype=int).ravel()
        for i in np.flatnonzero((control == 0) & np.asarray(m.land)[: len(control)]):
            x, y = hex_centre(ids[i])
            ax.add_patch(plt.Polygon(_corners(x, y), closed=True, facecolor=AXIS_CONTROL_TINT, alpha=0.45, lw=0,
                                     zorder=3))
        hexes = np.asarray(snapshot["unit_hex"], dtype=int).ravel()
        sides = np.asarray(snapshot["unit_side"], dtype=int).ravel()
        names = list(snapshot.get("unit_names", []))
        labels = []
        for h in np.unique(hexes[hexes >= 0]):
            here = np.flatnonzero(hexes == h)
            x, y = hex_centre(ids[int(h)])
            both = np.any(sides[here] == 0) and np.any(sides[here] == 1)
            for side in (0, 1):
                us = here[sides[here] == side]
                if len(us) == 0:
                    continue
                dx = (-0.2 if side == 0 else 0.2) if both else 0.0
                sq = plt.Rectangle((x + dx - 0.19, y - 0.19), 0.38, 0.38, facecolor=side_colour[side],
                                   edgecolor="white", lw=0.8, zorder=6)
                ax.add_patch(sq)
                placer.reserve(sq)
                ax.text(x + dx, y, str(len(us)), ha="center", va="center", color="white", fontsize=fs * 1.15,
                        zorder=7, fontweight="bold")
                if names:
                    lab = _unit_label(names[int(us[0])]) + (f" +{len(us) - 1}" if len(us) > 1 else "")
                    labels.append((x + dx, y, lab, side))
        for dz in np.asarray(snapshot.get("dz_hex", []), dtype=int).ravel():
            if dz >= 0:
                x, y = hex_centre(ids[int(dz)])
                ax.plot([x], [y - 0.3], marker="*", ms=unit_pt * 0.3, color="#f1c40f", mec="black", zorder=8)
                placer.reserve_data_box(x - 0.15, y - 0.45, x + 0.15, y - 0.15)
        near = ((0.0, 0.21, "center", "top"), (0.0, -0.21, "center", "bottom"), (0.21, 0.0, "left", "center"),
                (-0.21, 0.0, "right", "center"), (0.0, 0.45, "center", "top"), (0.0, -0.45, "center", "bottom"))
        for x, y, lab, side in labels:
            placer.place(x, y, lab, candidates=near, fontsize=fs, zorder=9, color=side_colour[side],
                         fontweight="bold", bbox=dict(boxstyle="round,pad=0.1", facecolor="white", alpha=0.85, lw=0))
        lines = [f"{k}: {v}" for k, v in (snapshot.get("boxes") or {}).items() if v]
        lines += list(snapshot.get("notes") or [])
        if lines:
            t = ax.text(0.005, 0.995, "\n".join(lines), transform=ax.transAxes, va="top", ha="left",
                        fontsize=fs * 1.1, bbox=dict(facecolor="white", alpha=0.9, edgecolor="#888"), zorder=12)
            placer.reserve(t)

    extra = [(Patch(facecolor=AXIS_CONTROL_TINT, alpha=0.45), "Axis-controlled hex"),
             (Patch(facecolor=AXIS_COLOUR, edgecolor="white"), "Axis stack (number of pieces; top piece named)"),
             (Patch(facecolor=ALLIED_COLOUR, edgecolor="white"), "Allied stack (number of pieces; top piece named)"),
             (Line2D([], [], marker="*", ls="", ms=13, color="#f1c40f", mec="black"), "drop zone marker")]
    fig = draw_map(m, show_ids=False, title=title, margin=2.0, width_in=width_in, dpi=dpi, overlay=overlay,
                   extra_legend=extra)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
