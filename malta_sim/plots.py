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

from .analysis.frames import calendar_for

_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f",
            "#bcbd22", "#17becf"]
REASON_COLOURS = {"surrender": "#b2182b", "sudden victory": "#d6604d", "objectives at end": "#f4a582",
                  "operation cancelled": "#2166ac", "Axis eliminated": "#4393c3", "time limit": "#67a9cf"}


def _reason_order(reason: str) -> tuple:
    order = list(REASON_COLOURS)
    return (order.index(reason) if reason in order else len(order), reason)


def _figure(w=7.5, h=4.5):
    fig = Figure(figsize=(w, h), dpi=110)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
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
    fig = _figure(7.5, max(2.2, 0.45 * len(wr) + 1.4))
    ax = fig.add_subplot()
    y = np.arange(len(wr))
    rate = wr["rate"].to_numpy() * 100
    err = np.vstack([rate - wr["low"].to_numpy() * 100, wr["high"].to_numpy() * 100 - rate])
    ax.errorbar(rate, y, xerr=err, fmt="o", color="#b2182b", ecolor="#444", capsize=4)
    for yi, r, n in zip(y, rate, wr["games"]):
        ax.annotate(f"{r:.1f}%  (n={n})", (r, yi), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.axvline(50, ls="--", color="#888", lw=1)
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, len(wr) - 0.3)
    ax.invert_yaxis()
    lo = max(0, min(40, float(np.nanmin(wr["low"])) * 100 - 5))
    hi = min(100, max(60, float(np.nanmax(wr["high"])) * 100 + 5))
    ax.set_xlim(lo, hi)
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
                order=None, last_turn: int | None = None) -> Path:
    """Cumulative share of games with an event by turn, a band per arm (from ``timing_curve``).

    ``order``: arm names in legend order (default sorted); ``last_turn``:
    zoom the x axis to turns up to this absolute turn.
    """
    if last_turn is not None:
        curve = curve[curve["turn"] <= last_turn]
    fig = _figure()
    ax = fig.add_subplot()
    groups = list(curve.groupby(by, sort=True)) if by in curve.columns else [("all", curve)]
    if order is not None:
        rank = {a: i for i, a in enumerate(order)}
        groups.sort(key=lambda g: rank.get(g[0], len(rank)))
    for k, (g, sub) in enumerate(groups):
        c = _COLOURS[k % len(_COLOURS)]
        t = sub["turn"].to_numpy()
        ax.step(t, sub["share"] * 100, where="post", color=c, label=_short(g), lw=1.8)
        ax.fill_between(t, sub["low"] * 100, sub["high"] * 100, step="post", color=c,
                        alpha=0.18 if len(groups) <= 4 else 0.07, lw=0)
    _date_axis(ax, scenario, None, int(curve["turn"].min()), int(curve["turn"].max()))
    if int(curve["turn"].max()) - int(curve["turn"].min()) < 16:  # short span: label every turn
        ts = np.arange(int(curve["turn"].min()), int(curve["turn"].max()) + 1)
        cal = calendar_for(scenario, None)
        ax.set_xticks(ts, [cal.label(t) for t in ts], rotation=45, ha="right", fontsize=8)
        ax.set_xlabel("turn")
    ax.set_ylim(0, 100)
    ax.set_ylabel(ylabel or "share of games, %")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if len(groups) > 1 or groups[0][0] != "all":
        ax.legend(fontsize=8, loc="upper left")
    return _save(fig, path)


def plot_steps_lost(games: pd.DataFrame, path, *, by: str = "arm") -> Path:
    """Distribution of steps eliminated per side and arm (box plots)."""
    cols = [c for c in ("axis_steps_lost", "allied_steps_lost") if c in games.columns]
    fig = _figure(7.5, 4.5)
    ax = fig.add_subplot()
    groups = list(games.groupby(by, sort=True))
    data, labels, colours = [], [], []
    for c, side, col in zip(cols, ("Axis", "Allied"), ("#b2182b", "#2166ac")):
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


def plot_end_reasons(er: pd.DataFrame, path, *, by: str = "arm") -> Path:
    """Stacked bars: share of games ending by surrender / cancellation / time limit."""
    piv = er.pivot_table(index=by, columns="end_reason", values="share", aggfunc="sum", fill_value=0)
    piv = piv[sorted(piv.columns, key=_reason_order)]
    fig = _figure(7.5, max(2.6, 0.45 * len(piv) + 2.0))
    ax = fig.add_subplot()
    left = np.zeros(len(piv))
    y = np.arange(len(piv))
    for reason in piv.columns:
        v = piv[reason].to_numpy() * 100
        ax.barh(y, v, left=left, color=REASON_COLOURS.get(reason, "#999"), label=reason)
        for yi, l, w in zip(y, left, v):
            if w >= 6:
                ax.text(l + w / 2, yi, f"{w:.0f}%", ha="center", va="center", fontsize=8, color="white")
        left += v
    ax.set_yticks(y, [_short(x) for x in piv.index])
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of games, %")
    ax.set_title("How games end")
    ax.legend(fontsize=8, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.28))
    return _save(fig, path)


def plot_end_dates(table: pd.DataFrame, path, *, by: str = "arm", dates=None, days=None) -> Path:
    """Histogram of the day games end on, stacked by end reason (from ``end_day_table``).

    ``days`` (sequence of str): day labels on the x axis in order (the
    scenario's days, :meth:`Calendar.day_label`), to show empty days too;
    ``dates`` (datetime-like sequence) does the same for a dated calendar.
    Default: the days present in ``table``.
    """
    groups = list(table.groupby(by, sort=False))
    fig = _figure(7.5, 2.6 * len(groups) + 0.8)
    axes = fig.subplots(len(groups), 1, sharex=True, sharey=True, squeeze=False)[:, 0]
    if "day" not in table.columns:  # a table from an older end_day_table
        table = table.assign(day=pd.to_datetime(table["date"]).dt.strftime("%d %b"),
                             end_day=pd.to_datetime(table["date"]).rank(method="dense"))
    present = list(table.sort_values("end_day")["day"].drop_duplicates())
    if days is None and dates is not None:
        days = [pd.Timestamp(d).strftime("%d %b") for d in sorted(pd.to_datetime(dates))]
    order = list(days) + [d for d in present if d not in set(days)] if days is not None else present
    x = np.arange(len(order))
    for ax, (g, sub) in zip(axes, groups):
        piv = sub.pivot_table(index="day", columns="end_reason", values="count", aggfunc="sum", fill_value=0)
        piv = piv.reindex(order, fill_value=0)
        piv = piv[sorted(piv.columns, key=_reason_order)]
        bottom = np.zeros(len(order))
        for reason in piv.columns:
            ax.bar(x, piv[reason], bottom=bottom, color=REASON_COLOURS.get(reason, "#999"), label=reason)
            bottom += piv[reason].to_numpy()
        ax.set_title(_short(g, 60), fontsize=9)
        ax.set_ylabel("games")
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    axes[-1].set_xticks(x, order, rotation=45, ha="right")
    fig.suptitle("Day on which games end", fontsize=11)
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
        ax.errorbar(r, y, xerr=[r - sub["low"] * 100, sub["high"] * 100 - r], fmt="o", capsize=3, color="#b2182b")
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
                ax.text(j, i, fmt.format(m[i, j]), ha="center", va="center", fontsize=9)
    ax.set_xticks(range(m.shape[1]), matrix.columns, rotation=30, ha="right")
    ax.set_yticks(range(m.shape[0]), matrix.index)
    ax.set_xlabel(matrix.columns.name or "")
    ax.set_ylabel(matrix.index.name or "")
    fig.colorbar(im, ax=ax, label=cbar)
    ax.set_title(title)
    return _save(fig, path)


# --------------------------------------------------------------------------- one game's map


SIDE_MARKER_COLOURS = ("#c0392b", "#1f4e9c")  # Axis, Allied


def plot_game_state(snapshot: dict, path, *, title: str = "", map_data=None, data_dir=None) -> Path:
    """Map picture of one game at one moment: control, units, drop zones, boxes.

    Draws the Island of Death map with :func:`malta_sim.plots_map.draw_map`
    (terrain, beach zones and their Follow-up / First / Second Wave boxes) and
    overlays the game state.

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

    Returns
    -------
    pathlib.Path
    """
    import matplotlib.pyplot as plt

    from .loaders.iod_map import load_map
    from .mapgen.geo import hex_centre
    import inspect

    from . import plots_map
    from .plots_map import _corners, draw_map

    m = map_data if map_data is not None else load_map(data_dir)
    accepted = inspect.signature(draw_map).parameters
    wanted = {"width_in": 12.0, "figsize": (12, 9.5), "dpi": 90, "margin": 2.0, "show_ids": False, "title": title}
    fig = draw_map(m, **{k: v for k, v in wanted.items() if k in accepted})
    if "full" not in accepted and hasattr(plots_map, "crop_to_land"):
        plots_map.crop_to_land(fig, m, margin=2.0)
    ax = fig.axes[0]
    ids = m.grid.hex_ids
    control = np.asarray(snapshot.get("control", []), dtype=int).ravel()
    for i in np.flatnonzero((control == 0) & np.asarray(m.land)[: len(control)]):
        x, y = hex_centre(ids[i])
        ax.add_patch(plt.Polygon(_corners(x, y), closed=True, facecolor="#e74c3c", alpha=0.40, lw=0, zorder=3))
    hexes = np.asarray(snapshot["unit_hex"], dtype=int).ravel()
    sides = np.asarray(snapshot["unit_side"], dtype=int).ravel()
    names = list(snapshot.get("unit_names", []))
    for h in np.unique(hexes[hexes >= 0]):
        here = np.flatnonzero(hexes == h)
        x, y = hex_centre(ids[int(h)])
        for k, side in enumerate((0, 1)):
            us = here[sides[here] == side]
            if len(us) == 0:
                continue
            both = np.any(sides[here] == 0) and np.any(sides[here] == 1)
            dx = (-0.22 if side == 0 else 0.22) if both else 0.0
            ax.add_patch(plt.Rectangle((x + dx - 0.21, y - 0.21), 0.42, 0.42, facecolor=SIDE_MARKER_COLOURS[side],
                                       edgecolor="white", lw=0.8, zorder=6))
            ax.text(x + dx, y, str(len(us)), ha="center", va="center", color="white", fontsize=8, zorder=7,
                    fontweight="bold")
            if names:
                first = str(names[int(us[0])])
                for pre in ("axis.", "allied."):
                    first = first[len(pre):] if first.startswith(pre) else first
                lab = first + (f" +{len(us) - 1}" if len(us) > 1 else "")
                ax.text(x + dx, y + 0.26, lab, ha="center", va="top", fontsize=5, zorder=7,
                        color=SIDE_MARKER_COLOURS[side], fontweight="bold",
                        bbox=dict(facecolor="white", alpha=0.6, lw=0, pad=0.5))
    for dz in np.asarray(snapshot.get("dz_hex", []), dtype=int).ravel():
        if dz >= 0:
            x, y = hex_centre(ids[int(dz)])
            ax.plot([x], [y - 0.25], marker="*", ms=14, color="#f1c40f", mec="black", zorder=8)
    lines = [f"{k}: {v}" for k, v in (snapshot.get("boxes") or {}).items() if v]
    lines += list(snapshot.get("notes") or [])
    if lines:
        ax.text(0.01, 0.99, "\n".join(lines), transform=ax.transAxes, va="top", ha="left", fontsize=7,
                bbox=dict(facecolor="white", alpha=0.85, edgecolor="#888"), zorder=9)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Patch(facecolor="#e74c3c", alpha=0.40, label="Axis-controlled hex"),
               Patch(facecolor=SIDE_MARKER_COLOURS[0], label="Axis units (count)"),
               Patch(facecolor=SIDE_MARKER_COLOURS[1], label="Allied units (count)"),
               Line2D([], [], marker="*", ls="", ms=12, color="#f1c40f", mec="black", label="drop zone marker")]
    old = ax.get_legend()
    if old is not None:
        ax.add_artist(old)  # keep the map's own legend
    ax.legend(handles=handles, loc="lower right", fontsize=7, framealpha=0.9)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
