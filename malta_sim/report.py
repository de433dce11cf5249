"""Balance report of a result frame: ``summary.json``, ``report.md`` and PNG charts.

:func:`write_report` is the library function behind ``malta-sim report``.
The report answers, in order, the questions a designer asks of a batch:
who wins and how sure we are; how games end and when; when the first
airfield and the victory cities fall; what each side loses; and, for sweeps,
which arm or parameter moves the balance (paired on common random numbers).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from . import plots
from .analysis import (
    compare_arms,
    end_day_table,
    end_reasons,
    game_length,
    games_needed,
    level_rates,
    numeric_summary,
    parameter_effects,
    sweep_parameters,
    timing_curve,
    win_rates,
)
from .analysis.balance import SUPPORT_TOL, analyse_balance, is_balance_frame, matrix_table
from .analysis.breakdown import RARE_NONZERO
from .analysis.frames import END_REASON_MEANING, calendar_for, game_of, scenario_of, with_outcomes
from .analysis.timing import EVENT_TITLES
from .errors import OptionError
from .loaders.common import did_you_mean

BALANCE_BAND = (0.45, 0.55)

#: Probability with which the report's "games needed" figures reach their width.
NEED_ASSURANCE = 0.9

#: Below this many discordant games the paired interval is conservative (see docs/analysis.md).
FEW_DISCORDANT = 5


def _pct(x, nd=1):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{nd}f}%"


def _clean(obj):
    """JSON-safe copy (NaN -> None, numpy scalars -> Python, timestamps -> ISO)."""
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        return None if not np.isfinite(obj) else float(obj)
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, (pd.Timestamp, np.datetime64)):
        return str(pd.Timestamp(obj).date())
    return obj


def _records(df: pd.DataFrame) -> list[dict]:
    return _clean(df.to_dict(orient="records"))


def _md_table(df: pd.DataFrame, fmt: dict | None = None) -> str:
    fmt = fmt or {}
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for _, r in df.iterrows():
        cells = []
        for c in cols:
            v = r[c]
            f = fmt.get(c)
            cells.append(f(v) if f else ("" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def verdict(rate: float, low: float, high: float, band=BALANCE_BAND) -> str:
    """One clause on balance from an Axis win rate interval.

    The clause reads on its own after a colon ("Axis win rate 61%: ...") and
    speaks of the bots that played, since a win rate measures the scenario
    *and* the players together.

    Parameters
    ----------
    rate, low, high : float
        Axis win rate and its interval (proportions).
    band : tuple of float
        Win rates counted as balanced.

    Returns
    -------
    str
    """
    if low >= band[0] and high <= band[1]:
        return (f"balanced with these bots: the Axis win rate lies within {_pct(band[0], 0)}-{_pct(band[1], 0)} "
                "(whole interval)")
    if low > 0.5:
        return "the Axis wins more often with these bots (the whole interval lies above 50%)"
    if high < 0.5:
        return "the Allies win more often with these bots (the whole interval lies below 50%)"
    return ("no clear winner: too few games to call it balanced within the "
            f"{100 * band[0]:.0f}-{100 * band[1]:.0f}% band")


def check_per_turn(games: pd.DataFrame, per_turn: pd.DataFrame) -> None:
    """Refuse a per-turn frame that does not come from the same run as ``games``.

    The two frames must agree on scenario and seed (provenance ``attrs`` and
    the ``scenario``/``seed`` columns, where both carry them) and cover the
    same games (``game``, plus ``arm`` in sweeps); per-turn rows of games that
    ``--skip-failed`` left out (``attrs["failed_games"]``) are tolerated.

    Raises
    ------
    OptionError
        Naming the first mismatch (``--per-turn``).
    """
    ga, pa = dict(games.attrs or {}), dict(per_turn.attrs or {})
    if "game" not in per_turn.columns:
        raise OptionError("--per-turn: the per-turn frame has no 'game' column")
    for key in ("scenario", "seed"):
        gv = ga.get(key)
        if gv is None and key in games.columns and games[key].nunique() == 1:
            gv = games[key].iloc[0]
        pv = pa.get(key)
        if pv is None and key in per_turn.columns and per_turn[key].nunique() == 1:
            pv = per_turn[key].iloc[0]
        if gv is not None and pv is not None and str(gv) != str(pv):
            raise OptionError(f"--per-turn: the per-turn frame is from another run ({key} {pv} there, "
                              f"{gv} in RESULTS)")
    keys = ["arm", "game"] if "arm" in games.columns and "arm" in per_turn.columns else ["game"]
    g_set = set(games[keys].astype(str).itertuples(index=False, name=None))
    p_set = set(per_turn[keys].astype(str).drop_duplicates().itertuples(index=False, name=None))
    if g_set != p_set:
        failed = {(str(f["arm"]), str(f["game"])) if keys == ["arm", "game"] else (str(f["game"]),)
                  for f in _failed_games(ga) if keys == ["game"] or f.get("arm") is not None}
        missing = sorted(g_set - p_set)
        extra = sorted(p_set - g_set - failed)  # partial rows of a game --skip-failed left out are fine
        what = []
        if not missing and not extra:
            return
        if missing:
            what.append(f"{len(missing)} game(s) of RESULTS missing there (first: {' '.join(missing[0])})")
        if extra:
            what.append(f"{len(extra)} game(s) not in RESULTS (first: {' '.join(extra[0])})")
        raise OptionError("--per-turn: the per-turn frame does not cover the same games: " + "; ".join(what))


def _end_date_panels(games: pd.DataFrame, df: pd.DataFrame, arms: list) -> tuple[list, int | None]:
    """Arms in the order of the end-dates panels, and panels a row: a preset
    matrix is laid out as the matrix (a row per Axis preset, a column per
    Allied preset); any other frame in arm order."""
    if len(arms) < 2 or not is_balance_frame(games):
        return arms, None
    axis = list(dict.fromkeys(df["axis_policy"].astype(str)))
    allied = list(dict.fromkeys(df["allied_policy"].astype(str)))
    if len(allied) > 6:
        return arms, None
    cell = {(str(r.axis_policy), str(r.allied_policy)): r.arm
            for r in df[["axis_policy", "allied_policy", "arm"]].drop_duplicates().itertuples()}
    if len(cell) != len(axis) * len(allied) or len(set(cell.values())) != len(arms):
        return arms, None                                   # not a full matrix of one arm a cell
    return [cell[(a, b)] for a in axis for b in allied], len(allied)


def write_report(
    games: pd.DataFrame,
    out_dir,
    *,
    per_turn: pd.DataFrame | None = None,
    alpha: float = 0.05,
    baseline: str | None = None,
    title: str | None = None,
    source: str | None = None,
) -> dict:
    """Analyse a result frame and write the report files.

    Parameters
    ----------
    games : pandas.DataFrame
        Result frame, one row per game (per arm in a sweep).
    out_dir : path-like
        Output folder (created).
    per_turn : pandas.DataFrame, optional
        Long per-turn frame (enables the victory-city curve when the game
        rows lack ``first_city_turn``).
    alpha : float
        1 - confidence level for all intervals.
    baseline : str, optional
        Baseline arm for the paired comparisons (default: the first arm in
        frame order, i.e. the first arm of the sweep file).
    title : str, optional
        Report title.
    source : str, optional
        Where the results came from (printed in the report).

    Returns
    -------
    dict
        The summary also written to ``out_dir/summary.json``.  Files written:
        ``summary.json``, ``report.md``, ``win_rates.png``, ``end_reasons.png``,
        ``end_dates.png``, ``surrender_dates.png``, ``steps_lost.png`` and,
        when the data allow, ``airfield_capture.png``, ``victory_city.png``,
        ``parameter_effects.png``.

    Raises
    ------
    OptionError
        For a frame lacking the required columns, an unknown baseline arm, or a
        per-turn frame from another run (:func:`check_per_turn`).
    """
    if per_turn is not None:
        check_per_turn(games, per_turn)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    df = with_outcomes(games)
    arms = list(dict.fromkeys(df["arm"]))  # frame (sweep file) order, not alphabetical
    if baseline is None:
        baseline = arms[0]
    elif baseline not in arms:
        hint = did_you_mean(baseline, arms, quote=True) or "."
        raise OptionError(f"--baseline: no arm is named {baseline!r}{hint} Choose one of the {len(arms)} arms "
                          f"(quote a name with spaces): {', '.join(repr(a) for a in arms)}")
    scen = scenario_of(df)
    cal = calendar_for(scen, df)
    conf = f"{100 * (1 - alpha):g}%"
    wr = win_rates(df, alpha=alpha)
    wr = wr.set_index("arm").loc[arms].reset_index()            # sweep-file order
    headline = [{"arm": r.arm, "games": int(r.games), "wins": int(r.wins), "rate": r.rate, "low": r.low,
                 "high": r.high, "verdict": verdict(r.rate, r.low, r.high)} for r in wr.itertuples()]
    er = end_reasons(df, alpha=alpha)
    gl = game_length(df)
    ns = numeric_summary(df, alpha=alpha)
    files = {}
    files["win_rates"] = plots.plot_win_rates(wr, out / "win_rates.png").name
    files["end_reasons"] = plots.plot_end_reasons(er, out / "end_reasons.png", order=arms).name
    game = game_of(scen, games)
    days = [cal.day_label(t) for t in cal.day_starts()]
    panels, per_row = _end_date_panels(games, df, arms)
    files["end_dates"] = plots.plot_end_dates(end_day_table(df, scenario=scen), out / "end_dates.png", days=days,
                                              order=panels, ncols=per_row).name

    # Island of Death: the Axis wins only by a surrender roll (rule 20.3); Invasion: Malta has no
    # surrender, its Axis wins are (reconstructed) sudden victory or objectives at the end.
    win_event = "axis_win" if game == "invasion_malta" else "surrender"
    curves = {}
    for event in (win_event, "first_airfield", "victory_city"):
        try:
            c = timing_curve(df, event, per_turn=per_turn, alpha=alpha, scenario=scen)
        except OptionError:
            continue
        curves[event] = c
    fname = {"surrender": "surrender_dates.png", "axis_win": "axis_win_dates.png",
             "first_airfield": "airfield_capture.png",
             "victory_city": "victory_city.png"}
    for event, c in curves.items():
        files[event] = plots.plot_timing(
            c, out / fname[event], scenario=scen, order=arms,
            title=f"Share of games with {EVENT_TITLES[event]}, by {'date' if cal.dated else 'day'}",
            band_label=f"{conf} pointwise band",
        ).name
    if {"axis_steps_lost", "allied_steps_lost"} & set(df.columns):
        files["steps_lost"] = plots.plot_steps_lost(df, out / "steps_lost.png").name

    comparisons = compare_arms(df, baseline=baseline, alpha=alpha) if len(arms) > 1 else pd.DataFrame()
    params = sweep_parameters(games) if len(arms) > 1 else []
    lr = level_rates(df, params, alpha=alpha) if params else pd.DataFrame()
    eff = pd.DataFrame()
    eff_note = ""
    if params:
        try:
            eff = parameter_effects(df, params, alpha=alpha)
            eff_note = eff.attrs.get("note", "")
        except OptionError as exc:
            eff_note = str(exc)
        files["parameter_effects"] = plots.plot_level_rates(lr, out / "parameter_effects.png").name

    # games per arm for a given width, at the observed rate nearest one half (the widest), with 90 % assurance
    p_need = float(min(wr["rate"], key=lambda r: abs(r - 0.5)))
    p_need = p_need if 0 < p_need < 1 else 0.5
    need = {w: games_needed(w, p=p_need, alpha=alpha, assurance=NEED_ASSURANCE) for w in (0.10, 0.04, 0.02)}

    day_rows = {}
    for event, c in curves.items():
        d = c.loc[cal.is_day_end(c["turn"].to_numpy()), ["arm", "day", "date", "share", "low", "high"]]
        if not cal.dated:
            d = d.drop(columns="date")
        day_rows[event] = d

    balance = None
    if is_balance_frame(games):
        bal = analyse_balance(games, alpha=alpha)
        dom = ([d["preset"] for d in bal.dominated_axis], [d["preset"] for d in bal.dominated_allied])
        files["balance_matrix"] = plots.plot_balance_matrix(
            bal.cells, out / "balance_matrix.png", axis=bal.axis, allied=bal.allied, dominated=dom,
            title=f"Axis win rate by preset pairing ({bal.games} games a cell; outlined: equilibrium support)").name
        balance = bal.to_dict()
        balance["matrix_text"] = matrix_table(bal).reset_index().to_dict(orient="records")

    highlight_arm = baseline if len(arms) > 1 else None
    highlights = _highlights(df[df["arm"] == baseline] if highlight_arm else df, curves, cal, game,
                             arm=highlight_arm)
    summary = {
        "malta_sim_version": __version__,
        "highlights": highlights,
        "source": source,
        "scenario": scen,
        "game": game,
        "calendar": {"start": cal.start, "dated": cal.dated, "period": cal.period, "days": cal.days,
                     "turns_per_day": cal.turns_per_day, "turn_names": list(cal.turn_names),
                     "first_turn": cal.first_turn, "last_turn": cal.last_turn, "numbering": cal.describe()},
        "games": int(len(df)),
        "arms": arms,
        "alpha": alpha,
        "provenance": _clean(dict(games.attrs)) if games.attrs else {},
        "reconstructed_components": _reconstructed(dict(games.attrs), games),
        "data": _data_variants(dict(games.attrs), df),
        "bots": _bots(dict(games.attrs), games),
        "failed_games": _failed_games(dict(games.attrs)),
        "axis_win_rate": headline[0] if len(headline) == 1 else None,
        "axis_win_rate_by_arm": headline,
        "win_rates": _records(wr),
        "games_needed_for_width": {f"{w:g}": n for w, n in need.items()},
        "games_needed_at": {"rate": p_need, "assurance": NEED_ASSURANCE},
        "end_reasons": _records(er),
        "game_length": _records(gl),
        "numeric": _records(ns),
        "timing_by_day": {e: _records(d) for e, d in day_rows.items()},
        "paired_comparisons": _records(comparisons) if len(comparisons) else [],
        "sweep_parameters": params,
        "level_rates": _records(lr) if len(lr) else [],
        "parameter_effects": _records(eff) if len(eff) else [],
        "parameter_effects_note": eff_note,
        "balance": balance,
        "files": files,
    }
    summary = _clean(summary)
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    (out / "report.md").write_text(_markdown(summary, df, wr, er, gl, ns, day_rows, comparisons, lr, eff, eff_note,
                                             files, title, conf))
    return summary


def _highlights(df: pd.DataFrame, curves: dict, cal, game: str | None = None, arm: str | None = None) -> list[str]:
    """A few plain sentences a designer reads first, worded for the game.

    ``df`` holds one arm's games (the baseline's when ``arm`` names it: arms
    share their seeds, so their games are never pooled into one figure).
    """
    out = []
    n = len(df)
    if arm is not None:
        out.append(f"In the baseline arm `{arm}` ({n} games):")
    first_day_end = int(cal.day_starts()[0]) + cal.turns_per_day - 1
    early = df[df["end_turn"] <= first_day_end]
    if len(early):
        why = early["end_reason"].value_counts()
        parts = ", ".join(f"{k} {v}" for k, v in why.items())
        out.append(f"{_pct(len(early) / n, 0)} of games were over by the end of the first day "
                   f"({cal.label(first_day_end)}): {parts}.")
    wins = df[df["axis_win"]]
    if len(wins):
        med = int(wins["end_turn"].median())
        how = "; ".join(f"{_pct(v / len(wins), 0)} {k}" for k, v in wins["end_reason"].value_counts().items())
        out.append(f"Half of the Axis wins came by {cal.label(med)} (median end turn {med}); "
                   f"the latest on {cal.label(int(wins['end_turn'].max()))}. Axis wins: {how}.")
    allied = df[~df["axis_win"]]
    if len(allied):
        parts = [f"{_pct(v / len(allied), 0)} {END_REASON_MEANING.get(k, k)}"
                 for k, v in allied["end_reason"].value_counts().items()]
        out.append("Allied wins: " + "; ".join(parts) + ".")
    out += _first_turn_lines(df)
    c = curves.get("first_airfield")
    if c is not None:
        if arm is not None:
            c = c[c["arm"] == arm]
        end1 = c.loc[c["turn"] == first_day_end, "events"].sum() / max(1, c.loc[c["turn"] == first_day_end, "games"].sum())
        out.append(f"An airfield had been captured by the Axis by the end of the first day in {_pct(end1, 0)} of "
                   "games" + (" (beyond the airfields it held at set-up)." if game != "invasion_malta" else "."))
    return out


#: Loss causes of the ``<side>_first_turn_loss_<cause>`` columns, as the report words them.
_CAUSE_WORDS = {"coastal_fire": "coastal fire", "waters_edge": "water's edge", "overstack": "over-stacking"}


def _first_turn_lines(df: pd.DataFrame) -> list[str]:
    """The blunder indicators in a sentence or two (Island of Death frames that
    carry them, :data:`malta_sim.analysis.glossary.BLUNDER_COLUMNS`): mean steps
    lost per game on the scenario's first turn, by cause, and the share of Axis
    bombardments fired at a column that could do nothing (rule 10.12)."""
    out = []
    if "axis_steps_lost_first_turn" in df.columns and len(df):
        causes = [c[len("axis_first_turn_loss_"):] for c in df.columns if c.startswith("axis_first_turn_loss_")]
        parts = ", ".join(f"{_CAUSE_WORDS.get(c, c)} {df['axis_first_turn_loss_' + c].mean():.1f}"
                          for c in causes if df["axis_first_turn_loss_" + c].mean() >= 0.05)
        line = f"On the first game turn the Axis lost {df['axis_steps_lost_first_turn'].mean():.1f} steps a game"
        line += f" ({parts})" if parts else ""
        if "allied_steps_lost_first_turn" in df.columns:
            line += f", the Allies {df['allied_steps_lost_first_turn'].mean():.1f}"
        out.append(line + ".")
    if {"axis_bombardments", "axis_bombardments_no_effect"} <= set(df.columns):
        n, k = int(df["axis_bombardments"].sum()), int(df["axis_bombardments_no_effect"].sum())
        if n:
            out.append(f"{k} of {n} Axis bombardments ({_pct(k / n, 0)}) were fired at a Bombardment Table "
                       "column that could have no effect.")
    return out


def _failed_games(attrs: dict) -> list[dict]:
    """Games left out by ``--skip-failed`` (``attrs["failed_games"]``, per arm in sweeps)."""
    out = [dict(f) for f in attrs.get("failed_games") or []]
    for arm, info in (attrs.get("arms") or {}).items():
        for f in (info.get("failed_games") or []) if isinstance(info, dict) else []:
            out.append({**f, "arm": arm})
    return out


def _reconstructed(attrs: dict, games: pd.DataFrame) -> list[str]:
    """Names of the reconstructed (not printed) components the results rest on."""
    rc = attrs.get("reconstructed_components")
    if rc is None and "reconstructed_components" in games.columns and len(games):
        rc = games["reconstructed_components"].dropna().astype(str).iloc[0] if games[
            "reconstructed_components"].notna().any() else None
    if isinstance(rc, str):
        rc = [c for c in rc.split(";") if c]
    rc = [str(c) for c in (rc or [])]
    if not rc:  # older provenance: only a summary flag such as charts="reconstructed"
        rc = [k for k, v in attrs.items() if v == "reconstructed"]
    return rc


def _data_variants(attrs: dict, df: pd.DataFrame) -> list[dict]:
    """One entry per game-data hash in the frame: ``hash``, ``folder`` (None:
    unknown or packaged), ``packaged`` (bool: the packaged, reconstructed
    data of its game) and ``arms`` (the arms played with it)."""
    from .batch import data_hash as packaged_hash

    arms_info = attrs.get("arms") or {}
    if "data_hash" in df.columns:
        groups = df.groupby(df["data_hash"].astype(str), sort=False)["arm"].unique()
        items = [(h, list(a)) for h, a in groups.items()]
    elif attrs.get("data_hash"):
        items = [(str(attrs["data_hash"]), list(dict.fromkeys(df["arm"])))]
    else:
        return []
    game = attrs.get("game") or game_of(scenario_of(df), df)
    home = packaged_hash(None, game) if game else None
    out = []
    for h, arms in items:
        folder = None
        for a in arms:
            info = arms_info.get(a) or {}
            if info.get("data_hash") == h and info.get("data_dir"):
                folder = info["data_dir"]
        if folder is None and attrs.get("data_hash") == h:
            folder = attrs.get("data_dir")
        out.append({"hash": h, "folder": folder, "packaged": h == home, "arms": [str(a) for a in arms]})
    return out


def _bots(attrs: dict, games: pd.DataFrame) -> list[str]:
    """'Axis <policy> vs Allied <policy>' for each configuration that played."""
    if {"axis_policy", "allied_policy"} <= set(games.columns):
        pairs = games[["axis_policy", "allied_policy"]].astype(str).drop_duplicates()
        return [f"Axis `{a}` vs Allied `{b}`" for a, b in pairs.itertuples(index=False)]
    if attrs.get("axis_policy") or attrs.get("allied_policy"):
        return [f"Axis `{attrs.get('axis_policy', '?')}` vs Allied `{attrs.get('allied_policy', '?')}`"]
    return []


def _provenance_lines(s: dict) -> list[str]:
    """Markdown paragraphs on what the results rest on: data, bots, games left out."""
    L = []
    ck = (s.get("provenance") or {}).get("checkpoint")
    if ck:
        L.append(f"> **Partial results.** Read from the checkpoint folder `{ck}`: the games finished so far "
                 "(the run may have been stopped before its last game); the inputs are those its manifest "
                 "records.")
        L.append("")
    rc = s.get("reconstructed_components") or []
    data = s.get("data") or []
    if not rc and any(d["packaged"] for d in data):
        rc = ["the packaged data (map, charts, counters and scenarios are reconstructed; see docs/data.md)"]
    if len(data) > 1:
        L.append("**Data variants.** These games were played with more than one set of game data; every figure "
                 "below is per arm, never pooled across data:")
        L.append("")
        for d in data:
            where = "packaged data" if d["packaged"] else (f"`{d['folder']}`" if d["folder"] else "folder not recorded")
            L.append(f"- data `{d['hash']}` ({where}): {', '.join(f'`{a}`' for a in d['arms'])}")
        L.append("")
    elif data:
        d = data[0]
        where = "the packaged data" if d["packaged"] else (f"`{d['folder']}`" if d["folder"] else "a data folder")
        L.append(f"Game data: {where} (hash `{d['hash']}`).")
        L.append("")
    if rc:
        p = s.get("provenance") or {}
        extra = "; ".join(f"{k} `{p[k]}`" for k in ("components", "data_hash") if p.get(k))
        L.append(f"> **Reconstructed data.** These results rest on reconstructed (not printed) components: "
                 f"{', '.join(rc)}" + (f" ({extra})" if extra else "") + ". Every number below describes the "
                 "game as reconstructed, not necessarily the published game.")
        L.append("")
    bots = s.get("bots") or []
    L.append("Win rates measure the scenario *as played by these bots*"
             + (f" ({'; '.join(bots)})" if bots else " (policies not recorded in the frame)")
             + "; other players, human or bot, can get different results.")
    failed = s.get("failed_games") or []
    if failed:
        shown = ", ".join((f"{f['arm']}: " if f.get("arm") else "") + str(f.get("game")) for f in failed[:20])
        more = " ..." if len(failed) > 20 else ""
        first = failed[0].get("error")
        L.append("")
        L.append(f"**{len(failed)} game(s) failed in the engine and are left out** (`--skip-failed`): game(s) "
                 f"{shown}{more}" + (f" (first error: {first})" if first else "")
                 + ". The rates below count only the games that finished.")
    return L


#: What the airfield curve counts (the engines' ``first_airfield_turn``): capture, not possession.
_AIRFIELD_NOTE = {
    "island_of_death": ("This curve shows **capture, not possession**: `first_airfield_turn` is the first turn "
                        "(checked in the surrender phase, rule 20.3) on which the Axis holds *more* airfields than "
                        "at set-up. Airfields the Axis holds from set-up (e.g. in the Introductory Scenario) do "
                        "not count, so a game can end with `airfields_axis` > 0 and no capture (-1)."),
    "invasion_malta": ("This curve shows **capture**: `first_airfield_turn` is the first turn an airfield hex is "
                       "held by Axis units alone."),
}


def _rules_line(game: str | None) -> str:
    """Methods line naming the rules behind end reasons, per game."""
    if game == "invasion_malta":
        return ("- Invasion: Malta prints rules 1-8 only: a game ends early on a sudden victory (rule 4.22), but "
                "its victory conditions (all objectives held; objectives at the end; Axis eliminated) are "
                "reconstructed (docs/invasion_malta.md). There is no surrender roll.\n")
    return "- Surrender roll and end reasons follow rule 20.3; victory cities and modifiers rule 20.0.\n"


def _markdown(s, df, wr, er, gl, ns, day_rows, comparisons, lr, eff, eff_note, files, title, conf) -> str:
    pct = _pct
    L = []
    scen = s["scenario"] or "mixed scenarios"
    L.append(f"# {title or 'Balance report: ' + scen}")
    L.append("")
    a = s["axis_win_rate"]
    cal = s["calendar"]
    when = f"from {cal['start']}" if cal["start"] else (cal["period"] or "no calendar date printed")
    L.append(
        f"**{s['games']} games**, {len(s['arms'])} arm(s), scenario `{scen}` "
        f"({when}, {cal['days']} days of {cal['turns_per_day']} turns: turns "
        f"{cal['first_turn']}-{cal['last_turn']})."
        + (f" Results: `{s['source']}`." if s.get("source") else "")
    )
    L.append("")
    if a is not None:
        L.append(f"**Axis win rate {pct(a['rate'])}** ({conf} interval {pct(a['low'])} - "
                 f"{pct(a['high'])}, Wilson): {a['verdict']}.")
    else:
        L.append("**Axis win rate per arm** (arms play the same games with the same dice, so their games are "
                 f"never pooled into one rate; {conf} Wilson intervals):")
        L.append("")
        for h in s["axis_win_rate_by_arm"]:
            L.append(f"- `{h['arm']}`: **{pct(h['rate'])}** ({pct(h['low'])} - {pct(h['high'])}; {h['games']} games): "
                     f"{h['verdict']}.")
    L.append("")
    L.extend(_provenance_lines(s))
    need = s["games_needed_for_width"]
    at = s["games_needed_at"]
    L.append("")
    L.append(f"Games per arm for a {conf} interval no wider than ±5 points: {need['0.1']}; ±2 points: "
             f"{need['0.04']}; ±1 point: {need['0.02']}, each with {100 * at['assurance']:.0f}% probability at a "
             f"true win rate of {pct(at['rate'], 0)} (the observed rate nearest 50%; 50% when every game went one "
             "way).")
    if min(h["games"] for h in s["axis_win_rate_by_arm"]) < 30:
        L.append("")
        L.append("*Fewer than 30 games in an arm: the intervals' actual coverage varies between about 91% and "
                 "98% with the true rate (docs/analysis.md, \"Coverage\").*")
    if s.get("highlights"):
        hl = list(s["highlights"])
        L.append("")
        if hl[0].startswith("In the baseline arm"):
            L.append(hl.pop(0))
            L.append("")
        L.extend(f"- {h}" for h in hl)
    if s.get("balance"):
        L.extend(_balance_lines(s["balance"], files, conf))
    L.append("")
    L.append("## Who wins")
    L.append("")
    show = wr.rename(columns={"arm": "arm", "rate": "Axis win rate"})
    L.append(_md_table(show[["arm", "games", "wins", "Axis win rate", "low", "high"]],
                       {"Axis win rate": pct, "low": pct, "high": pct}))
    L.append("")
    L.append(f"![win rates]({files['win_rates']})")
    if len(comparisons):
        L.append("")
        L.append("### Arms compared game by game (common random numbers)")
        L.append("")
        L.append("Each arm played the same game indices with the same seeds, so only games decided differently "
                 "count. `difference` = arm - baseline Axis win rate (Tango's score interval for paired "
                 "proportions); McNemar's test (exact when fewer than 25 discordant games).")
        few = comparisons[(comparisons["a_only"] + comparisons["b_only"]) < FEW_DISCORDANT]
        if len(few):
            L.append("")
            L.append(f"*Fewer than {FEW_DISCORDANT} games decided differently for "
                     + ", ".join(f"`{x}`" for x in few["arm_b"])
                     + ": the interval is then conservative (it covers the true difference more often than "
                     f"{conf}) and says mostly that the arms rarely differ.*")
        L.append("")
        c = comparisons[["arm_a", "arm_b", "games", "rate_a", "rate_b", "difference", "low", "high",
                         "a_only", "b_only", "mcnemar_pvalue"]].rename(
            columns={"arm_a": "baseline", "arm_b": "arm", "a_only": "baseline only", "b_only": "arm only",
                     "mcnemar_pvalue": "McNemar p"})
        L.append(_md_table(c, {"rate_a": pct, "rate_b": pct, "difference": pct, "low": pct, "high": pct,
                               "McNemar p": lambda v: f"{v:.3g}"}))
    L.append("")
    L.append("## How and when games end")
    L.append("")
    e = er[er["count"] > 0][["arm", "end_reason", "winner", "count", "share", "low", "high"]]
    L.append(_md_table(e, {"share": pct, "low": pct, "high": pct}))
    L.append("")
    L.append(f"![end reasons]({files['end_reasons']})")
    L.append("")
    g = gl[["arm", "winner", "games", "mean_turn", "median_turn", "q25", "q75", "mean_day"]]
    L.append(f"Game length in turns ({s['calendar']['numbering']}):")
    L.append("")
    L.append(_md_table(g, {k: (lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.1f}")
                           for k in ("mean_turn", "median_turn", "q25", "q75", "mean_day")}))
    L.append("")
    L.append(f"![end dates]({files['end_dates']})")
    titles = {"surrender": "Malta surrenders", "axis_win": "Axis victory (sudden victory or objectives at the end)",
              "first_airfield": "First airfield captured by the Axis",
              "victory_city": "First victory city (1711, 1809, 1810, 1911) in Axis hands"}
    for event, d in day_rows.items():
        L.append("")
        L.append(f"## {titles[event]}")
        L.append("")
        L.append(f"Share of all games in which this had happened by the end of each day ({conf} Wilson band; "
                 "games that ended first count as never).")
        if event == "first_airfield":
            L.append("")
            L.append(_AIRFIELD_NOTE.get(s.get("game"), _AIRFIELD_NOTE["island_of_death"]))
        L.append("")
        piv = d.assign(v=[f"{pct(r.share, 0)} ({pct(r.low, 0)}-{pct(r.high, 0)})" for r in d.itertuples()])
        piv = piv.pivot(index="day", columns="arm", values="v").reindex(d["day"].drop_duplicates())
        L.append(_md_table(piv.reset_index()))
        L.append("")
        L.append(f"![{event}]({files[event]})")
    if len(ns):
        L.append("")
        L.append("## Losses and places held at game end")
        L.append("")
        how = sorted(set(ns["interval"]) - {"", "exact"}) if "interval" in ns.columns else []
        L.append(f"Mean per game ({conf} interval of the mean"
                 + (f"; {', '.join(how)}" if how else "") + f": a count seen in fewer than {RARE_NONZERO} games "
                 "gets the exact Poisson interval, any other number the t interval; a count never gets a "
                 "negative bound):")
        L.append("")
        nn = ns[ns["column"] != "end_turn"].copy()
        nn["v"] = [f"{r.mean:.2f} [{r.low:.2f}, {r.high:.2f}]" if r.games else "" for r in nn.itertuples()]
        piv = nn.pivot(index="column", columns="arm", values="v").reindex(list(dict.fromkeys(nn["column"])))
        L.append(_md_table(piv.reset_index()))
        if "steps_lost" in files:
            L.append("")
            L.append(f"![steps lost]({files['steps_lost']})")
    if len(lr):
        L.append("")
        L.append("## Sweep parameters")
        L.append("")
        L.append("Axis win rate at each level, pooled over the other parameters. A level holds several arms that "
                 "share their game seeds, so its interval counts the effective number of independent games "
                 "(games divided by `design_effect`, measured between game indices), not every row:")
        L.append("")
        L.append(_md_table(lr, {"rate": pct, "low": pct, "high": pct, "design_effect": lambda v: f"{v:.2f}"}))
        L.append("")
        L.append(f"![parameter effects]({files['parameter_effects']})")
        if len(eff):
            L.append("")
            L.append(f"Logistic regression of the Axis win on all parameters ({eff_note}); odds ratio per unit "
                     "(numeric) or against the first level (factors):")
            L.append("")
            f3 = lambda v: f"{v:.3g}"  # noqa: E731
            L.append(_md_table(eff, {"log_odds": f3, "odds_ratio": f3, "low": f3, "high": f3, "pvalue": f3}))
        elif eff_note:
            L.append("")
            L.append(f"Logistic regression: {eff_note}")
    L.append("")
    L.append("## Methods")
    L.append("")
    L.append(
        f"- Win rates and shares: Wilson score intervals ({conf}, statsmodels `proportion_confint`), clipped to "
        "[0, 1]; per arm, never pooled over arms, which share their dice. Rates pooled over arms (sweep "
        "levels) use the effective number of games (design effect between game indices).\n"
        "- Means of per-game numbers: Student t interval (statsmodels `DescrStatsW`), not below 0 for counts; a "
        f"count seen in fewer than {RARE_NONZERO} games gets the exact Poisson (Garwood) interval "
        "(statsmodels `confint_poisson`).\n"
        "- Paired comparisons: arms share game indices and seeds (common random numbers); difference of rates "
        "with Tango's score interval, McNemar's test (statsmodels).\n"
        "- Coverage of each of these intervals on simulated data with known truth: docs/analysis.md.\n"
        "- Timing curves: cumulative share of *all* games; a game that ended before the event counts as never "
        "(nothing is censored because every game is followed to its end). Pointwise Wilson bands.\n"
        + _rules_line(s.get("game")) +
        f"- malta_sim {s['malta_sim_version']}."
    )
    L.append("")
    return "\n".join(L)


def _balance_lines(b: dict, files: dict, conf: str) -> list[str]:
    """The report's preset-matrix section (docs/balance.md explains the method)."""
    L = ["", "## Balance under best play (preset matrix)", ""]
    L.append(f"Every Axis preset played every Allied preset on the same {b['games']} games (same seed and game "
             f"indices: common random numbers). A cell is the Axis win rate ({conf} Wilson interval); `*` marks "
             "the cells the equilibrium rests on. Method: docs/balance.md.")
    L.append("")
    rows = b["matrix_text"]
    cols = [c for c in rows[0] if c != "axis \\ allied"]
    L.append("| Axis \\ Allied | " + " | ".join(f"`{c}`" for c in cols) + " |")
    L.append("|---|" + "---|" * len(cols))
    dom_ax = {d["preset"] for d in b["dominated_axis"]}
    for r in rows:
        name = r["axis \\ allied"]
        L.append(f"| `{name}`" + (" (dominated)" if name in dom_ax else "") + " | "
                 + " | ".join(str(r[c]) for c in cols) + " |")
    L.append("")

    def mix(names, w):
        return ", ".join(f"`{n}` {100 * x:.0f}%" for n, x in zip(names, w) if x > SUPPORT_TOL)
    L.append(f"**Equilibrium Axis win rate {_pct(b['value'])}** ({conf} bootstrap interval {_pct(b['value_low'])} - "
             f"{_pct(b['value_high'])}; {b['n_boot']} resamples of the games, the same games in every cell): the "
             "Axis win rate when each side picks its presets as well as it can against the other's best choice.")
    L.append("")
    L.append(f"- Axis mixture: {mix(b['axis'], b['axis_mixture'])}")
    L.append(f"- Allied mixture: {mix(b['allied'], b['allied_mixture'])}")
    share = "; ".join(f"`{n}` {100 * x:.0f}%" for n, x in zip(b["axis"] + b["allied"],
                                                               b["axis_in_support"] + b["allied_in_support"]) if x > 0)
    L.append(f"- Share of resamples in which a preset is in the support: {share}.")
    for side, items in (("Axis", b["dominated_axis"]), ("Allied", b["dominated_allied"])):
        for name in dict.fromkeys(d["preset"] for d in items):
            by = [d for d in items if d["preset"] == name]
            L.append(f"- **Dominated {side} preset `{name}`**: never better, and somewhere worse, than "
                     + ", ".join(f"`{d['by']}` ({'strictly' if d['strict'] else 'weakly'}; holds in "
                                 f"{100 * (d['bootstrap_share'] or 0):.0f}% of resamples)" for d in by) + ".")
    need = [f"±{100 * float(w) / 2:g} points: about {n} games a cell" for w, n in b["games_needed"].items() if n]
    if need:
        L.append(f"- To narrow the equilibrium's interval to " + "; ".join(need) + f" (now {b['games']}).")
    if b.get("dropped"):
        L.append(f"- Games left out of every cell because some cell lacks them: {b['dropped']}.")
    L.append("")
    L.append(f"![preset matrix]({files['balance_matrix']})")
    return L
