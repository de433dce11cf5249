"""A short printable summary of a batch of games.

:func:`winner_shares` gives each side's share of wins with a 95% Wilson score
interval (:func:`malta_sim.analysis.proportion_interval`), :func:`end_reasons`
counts how games ended, :func:`median_end` finds the median end turn and its
date, and :func:`format_summary` puts them into a few lines for the terminal
(one line per arm for a sweep frame, with an ``arm`` column).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from .analysis.rates import proportion_interval

__all__ = ["winner_shares", "end_reasons", "median_end", "format_summary", "SIDES"]

#: Winners in display order; other values found in ``winner`` (e.g. a draw) follow.
SIDES = ("axis", "allied")


def winner_shares(df: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Each winner's count and share with a Wilson score interval.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per game with a ``winner`` column.
    alpha : float
        1 - confidence level (0.05: 95% intervals).

    Returns
    -------
    pandas.DataFrame
        Index ``winner`` (axis, allied, then any other value); columns
        ``games`` (int), ``share``, ``ci_low``, ``ci_high`` (floats in [0, 1]).
    """
    n = len(df)
    counts = df["winner"].value_counts() if n else pd.Series(dtype=int)
    names = list(SIDES) + sorted(str(w) for w in counts.index if w not in SIDES)
    rows = []
    for w in names:
        k = int(counts.get(w, 0))
        if n:
            lo, hi = proportion_interval(k, n, alpha=alpha, method="wilson")
            share = k / n
        else:
            lo = hi = share = float("nan")
        rows.append({"winner": w, "games": k, "share": share, "ci_low": float(lo), "ci_high": float(hi)})
    return pd.DataFrame(rows).set_index("winner")


def end_reasons(df: pd.DataFrame) -> pd.DataFrame:
    """How games ended: count and share per end reason, most common first.

    End reasons are named as in the report and the docs
    (:func:`malta_sim.analysis.frames.canonical_end_reason`: ``surrender``,
    ``operation cancelled``, ``time limit`` ...), whatever code the engine
    wrote in the frame.

    Returns
    -------
    pandas.DataFrame
        Index ``end_reason``; columns ``games`` (int), ``share`` (float).
    """
    from .analysis.frames import canonical_end_reason

    if "end_reason" not in df.columns or not len(df):
        return pd.DataFrame({"games": [], "share": []}, index=pd.Index([], name="end_reason"))
    c = df["end_reason"].map(canonical_end_reason).value_counts()
    out = pd.DataFrame({"games": c.astype(int), "share": c / len(df)})
    out.index.name = "end_reason"
    return out


def median_end(df: pd.DataFrame) -> dict:
    """Median end turn (a turn actually played: the lower median) and its date.

    Parameters
    ----------
    df : pandas.DataFrame
        With ``end_turn`` (int, game turn) and optionally ``end_date``.

    Returns
    -------
    dict
        ``turn`` (int or None), ``date`` (the ``end_date`` of a game ending on
        that turn, or None), ``q1`` and ``q3`` (lower/upper quartile turns).
    """
    if "end_turn" not in df.columns or not len(df):
        return {"turn": None, "date": None, "q1": None, "q3": None}
    t = df["end_turn"].dropna().to_numpy()
    if not len(t):
        return {"turn": None, "date": None, "q1": None, "q3": None}
    med = int(np.percentile(t, 50, method="lower"))
    q1 = int(np.percentile(t, 25, method="lower"))
    q3 = int(np.percentile(t, 75, method="higher"))
    date = None
    if "end_date" in df.columns:
        d = df.loc[df["end_turn"] == med, "end_date"]
        if len(d):
            date = str(d.iloc[0])
    return {"turn": med, "date": date, "q1": q1, "q3": q3}


def _pct(x: float) -> str:
    return "  n/a" if x != x else f"{100 * x:5.1f}%"


def _block(df: pd.DataFrame) -> list[str]:
    lines = []
    ws = winner_shares(df)
    lines.append("  winner    games   share   95% interval (Wilson)")
    for w, r in ws.iterrows():
        if w not in SIDES and r["games"] == 0:
            continue
        lines.append(f"  {w:<8} {int(r['games']):>6}  {_pct(r['share'])}   {_pct(r['ci_low'])} - {_pct(r['ci_high'])}")
    er = end_reasons(df)
    if len(er):
        lines.append("  end reason            games   share")
        for reason, r in er.iterrows():
            lines.append(f"  {str(reason):<20} {int(r['games']):>6}  {_pct(r['share'])}")
    m = median_end(df)
    if m["turn"] is not None:
        when = f"turn {m['turn']}" + (f" ({m['date']})" if m["date"] else "")
        lines.append(f"  median end: {when}; middle half of games end on turns {m['q1']}-{m['q3']}")
    return lines


def _arm_table(df: pd.DataFrame) -> list[str]:
    """One line per arm: Axis share with its interval, commonest end reason, median end."""
    rows = []
    for arm in pd.unique(df["arm"]):
        sub = df[df["arm"] == arm]
        ax = winner_shares(sub).loc["axis"]
        er = end_reasons(sub)
        top = f"{er.index[0]} {_pct(er['share'].iloc[0]).strip()}" if len(er) else "-"
        m = median_end(sub)
        end = "-" if m["turn"] is None else f"turn {m['turn']}" + (f" ({m['date']})" if m["date"] else "")
        rows.append((str(arm), str(len(sub)), _pct(ax["share"]), f"{_pct(ax['ci_low'])} - {_pct(ax['ci_high'])}", top, end))
    head = ("arm", "games", "axis wins", "95% interval (Wilson)", "commonest end", "median end")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    fmt = "  " + "  ".join(f"{{:{'>' if i in (1, 2) else '<'}{w}}}" for i, w in enumerate(widths))
    return [fmt.format(*head).rstrip()] + [fmt.format(*r).rstrip() for r in rows]


def data_line(attrs: dict, games: pd.DataFrame | None = None) -> str | None:
    """``data: <folder> (hash <16 hex>)`` for a frame's provenance; None when unknown.

    The packaged data is named as such; a sweep whose arms used different data
    folders names each arm's (``arms`` in ``attrs``).
    """
    arms = attrs.get("arms") or {}
    hashes = {info.get("data_hash") for info in arms.values() if isinstance(info, dict)}
    if len(hashes) > 1:
        parts = [f"{arm}: {_folder(info.get('data_dir'))} ({info.get('data_hash')})" for arm, info in arms.items()]
        return "data per arm: " + "; ".join(parts)
    h = attrs.get("data_hash")
    if h is None and games is not None and "data_hash" in games.columns and games["data_hash"].nunique() == 1:
        h = str(games["data_hash"].iloc[0])
    if h is None:
        return None
    return f"data: {_folder(attrs.get('data_dir'))} (hash {h})"


def _folder(d) -> str:
    return "the packaged data" if not d else str(d)


def format_summary(df: pd.DataFrame) -> str:
    """A few lines describing a batch: header, winner shares, end reasons, median end.

    Parameters
    ----------
    df : pandas.DataFrame
        A :func:`malta_sim.batch.run_games` frame (provenance in ``attrs``) or
        a sweep frame (``arm`` column: one line per arm, in frame order, with
        the Axis share and its interval, the commonest end reason and the
        median end).

    Returns
    -------
    str
        Text without a trailing newline.
    """
    a = df.attrs or {}
    scen = a.get("scenario") or (df["scenario"].iloc[0] if "scenario" in df.columns and len(df) else "?")
    lines = [f"{a['title']} [{scen}]" if a.get("title") else str(scen)]
    n_arms = df["arm"].nunique() if "arm" in df.columns else 0
    per_arm = f" ({n_arms} arms)" if n_arms else ""
    asked = a.get("n_games")
    of = f" of {asked * max(n_arms, 1)}" if isinstance(asked, int) and asked * max(n_arms, 1) != len(df) else ""
    lines.append(f"  {len(df)}{of} games{per_arm}, seed {a.get('seed', '?')}")
    dl = data_line(a, df)
    if "arm" in df.columns:
        if dl:
            lines.append(f"  {dl}")
        lines.extend(_arm_table(df))
        for arm, info in (a.get("arms") or {}).items():
            failed = info.get("failed_games") if isinstance(info, dict) else None
            if failed:
                lines.append(f"  arm {arm}: {len(failed)} game(s) failed in the engine and are left out: "
                             + ", ".join(str(f["game"]) for f in failed[:10]) + (" ..." if len(failed) > 10 else ""))
        return "\n".join(lines)
    opts = a.get("options")
    opts = ", ".join(opts) if opts else "none"
    lines[-1] += f"; axis policy {a.get('axis_policy', '?')}, allied policy {a.get('allied_policy', '?')}; options: {opts}"
    if a.get("policy_params"):
        lines.append(f"  policy parameters: {a['policy_params']}")
    if dl:
        lines.append(f"  {dl}")
    lines.extend(_block(df))
    failed = a.get("failed_games") or []
    if failed:
        shown = ", ".join(f"{f['game']}" for f in failed[:10]) + (" ..." if len(failed) > 10 else "")
        lines.append(f"  {len(failed)} game(s) failed in the engine and are left out: {shown} "
                     f"(first error: {failed[0]['error']})")
    rc = a.get("reconstructed_components") or []
    if isinstance(rc, str):                       # ";"-joined by some engines
        rc = [c for c in rc.split(";") if c]
    rc = list(rc)
    if not rc:                                    # engines that only flag e.g. charts="reconstructed"
        rc = [k for k, v in a.items() if v == "reconstructed"]
    if rc:
        lines.append("  reconstructed (not printed) data used by these results: "
                     + ", ".join(map(str, rc)))
        if a.get("engine") == "island_of_death" or a.get("game") == "island_of_death":
            lines.append("    (rows per file: malta-sim data info; printed values can be given with --data-dir)")
    lines.append("  columns of the result file: malta-sim glossary")
    return "\n".join(lines)
