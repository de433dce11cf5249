"""Analyses the printed Invasion: Malta rules support on their own.

* Activation order (rules 7.11-7.17): exact Markov chain, closed forms and
  Monte Carlo -- :func:`activation_report`.
* ER-check pass probabilities with DRMs and the Lead-unit choice (rules 3.71-3.75):
  :func:`er_table`, :func:`lead_choice`.
* Expected losses of repeated Disruption of a stack (rule 3.84): exact chain
  :func:`repeated_disruption_exact` and :func:`repeated_disruption_mc`.
* Movement reach and turns-to-objective maps (rule 8): :func:`reach_map`.
* Supply status maps (rule 6): :func:`supply_status_map`.

All results are plain dicts / arrays ready for JSON.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...errors import OptionError
from ...rng import generator
from . import activation as ac
from .efficiency import apply_disruption, er_pass_probability
from .units import Position, make_units


# --- activation -------------------------------------------------------------------------------------

def parse_side(s: str) -> int:
    """'axis' -> 0, 'allied' -> 1 (raises OptionError)."""
    k = s.strip().lower()
    if k in ("axis", "0"):
        return 0
    if k in ("allied", "allies", "1"):
        return 1
    raise OptionError(f"side must be 'axis' or 'allied', got {s!r}")


def make_cup(axis: Sequence[str], allied: Sequence[str], axis_air: int = 0, allied_air: int = 0) -> ac.Cup:
    """A cup from formation codes (repeat a code for a formation with several AMs) and air-unit counts."""
    pieces = [ac.PieceType(0, ac.AM, f) for f in axis] + [ac.PieceType(1, ac.AM, f) for f in allied]
    pieces += [ac.PieceType(0, ac.AIR, "air")] * axis_air + [ac.PieceType(1, ac.AIR, "air")] * allied_air
    if not pieces:
        raise OptionError("the cup is empty: give at least one activation marker")
    return ac.Cup.from_pieces(pieces)


def activation_report(cup: ac.Cup, a: tuple | None = None, b: tuple | None = None,
                      policies: tuple = (ac.ALWAYS_PLAY, ac.ALWAYS_PLAY), mc: int = 0, seed: int = 0,
                      exact: bool = True) -> dict:
    """Activation-order statistics of one Operations Segment.

    Parameters
    ----------
    cup : Cup
    a, b : (side, code), optional
        Formations for P(a acts before b).
    policies : (HoldPolicy, HoldPolicy)
    mc : int
        Monte Carlo replicates (0 = none).
    seed : int
        Master seed of the Monte Carlo runs (stream purpose 'activation').
    exact : bool
        Compute the exact chain.

    Returns
    -------
    dict
        ``exact`` and/or ``monte_carlo`` with ``p_a_before_b``, ``first_act``
        (per side: expected draws and distribution), ``longest_run`` and
        ``runs`` distributions; ``closed_form`` when no side passes.
    """
    out: dict = {"pieces": cup.total}
    trackers = {"first_act_axis": ac.FirstAct(0), "first_act_allied": ac.FirstAct(1),
                "longest_run": ac.Runs("longest"), "runs": ac.Runs("count")}
    if a is not None and b is not None:
        trackers["a_before_b"] = ac.Before(a, b)

    def pack(fn):
        res = {}
        for name, tr in trackers.items():
            d = fn(tr)
            res[name] = {"distribution": {str(k): v for k, v in d.items()}}
            if name != "a_before_b":
                res[name]["mean"] = ac.expected_value(d)
            else:
                res[name]["p"] = d.get("A", 0.0)
        return res

    if exact:
        out["exact"] = pack(lambda tr: ac.exact_distribution(cup, tr, policies))
    if mc > 0:
        out["monte_carlo"] = pack(lambda tr: ac.monte_carlo(cup, tr, mc, seed, policies))
        out["monte_carlo"]["n"] = mc
    if all(not p.hold for p in policies):
        n_ax = cup.side_ams(cup.counts, 0)
        n_al = cup.side_ams(cup.counts, 1)
        cf = {"first_act_axis_mean": ac.expected_first_closed(cup.total, n_ax) if n_ax else None,
              "first_act_allied_mean": ac.expected_first_closed(cup.total, n_al) if n_al else None,
              "runs_mean": ac.expected_runs_closed(n_ax, n_al)}
        if a is not None and b is not None:
            ca = sum(c for t, c in zip(cup.types, cup.counts) if (t.side, t.name) == a and t.kind == ac.AM)
            cb = sum(c for t, c in zip(cup.types, cup.counts) if (t.side, t.name) == b and t.kind == ac.AM)
            cf["p_a_before_b"] = ac.p_before_closed(ca, cb) if ca + cb else None
        out["closed_form"] = cf
    return out


# --- ER checks ----------------------------------------------------------------------------------------

def er_table(ers: Sequence[int] = range(1, 11), drms: Sequence[int] = range(-3, 4)) -> dict:
    """Pass probabilities of an ER check (rule 3.71) for each ER and DRM.

    Returns
    -------
    dict
        ``{"er": [...], "drm": [...], "p": [[p(er, drm) for drm] for er]}``.
    """
    ers, drms = list(ers), list(drms)
    return {"er": ers, "drm": drms, "p": [[er_pass_probability(e, d) for d in drms] for e in ers]}


def effective_er(er: int, disrupted: bool = False, oos: bool = False) -> int:
    """Current ER from a printed ER (rules 3.75, 3.83, 6.15): -2 Disrupted, -1 OoS, at least 1."""
    return max(1, er - (2 if disrupted else 0) - (1 if oos else 0))


def lead_choice(candidates: Sequence[dict], drm: int = 0) -> dict:
    """Pass chance with each eligible Lead unit (rules 3.72-3.74).

    ``candidates``: dicts ``{"id", "er", "disrupted", "oos", "overstacked"}``.
    Over-stacked units cannot lead (3.73).

    Returns
    -------
    dict
        ``by_lead`` (id -> pass probability, eligible units only) and ``best``.
    """
    by = {}
    for c in candidates:
        if c.get("overstacked"):
            continue
        by[c["id"]] = er_pass_probability(effective_er(int(c["er"]), c.get("disrupted", False), c.get("oos", False)), drm)
    if not by:
        raise OptionError("no eligible Lead unit (all over-stacked)")
    best = max(by, key=by.get)
    return {"by_lead": by, "best": best, "p_best": by[best]}


# --- repeated disruption ----------------------------------------------------------------------------------

def _stack(specs: Sequence[tuple]):
    rows = []
    for k, s in enumerate(specs):
        er, er_r, steps = s[0], s[1], s[2]
        defense = s[3] if len(s) > 3 else 1
        rows.append(dict(id=f"u{k}", side="Axis", nat="G", steps=steps, er=er, er_r=er_r, defense=defense, stacking=0))
    units = make_units(rows)
    return units


def _state_pos(units, steps: tuple, oos: bool) -> Position:
    pos = Position.fresh(units, 1)
    pos.hex[:] = 0
    pos.steps[:] = steps
    pos.hex[np.asarray(steps) == 0] = -1
    pos.disrupted[:] = np.asarray(steps) > 0
    pos.oos[:] = oos
    return pos


class _FixedRng:
    """A stand-in generator whose next d10 face is fixed (0..9), for enumerating outcomes."""

    def __init__(self, face: int):
        self.face = face

    def integers(self, lo, hi=None, size=None):
        return self.face


def repeated_disruption_exact(specs: Sequence[tuple], k: int, drm: int = 0, oos: bool = False) -> dict:
    """Exact step losses when an already-Disrupted stack suffers ``k`` more Disruption results (rule 3.84).

    Each result makes the previously Disrupted units check as a group with the
    best current ER as Lead (ER -2 Disrupted, -1 if Out of Supply); a fail costs
    one step, owner's choice (:func:`.efficiency.default_loss_choice`).

    Parameters
    ----------
    specs : sequence of (er_full, er_reduced, steps[, defense])
        The units of the stack, all Disrupted.
    k : int
        Number of further Disruption results.

    Returns
    -------
    dict
        ``distribution`` (steps lost -> probability), ``expected_steps_lost``,
        ``p_stack_eliminated``.
    """
    if k < 0:
        raise OptionError("number of Disruption results must be >= 0")
    units = _stack(specs)
    start = tuple(int(s[2]) for s in specs)
    dist = {start: 1.0}
    for _ in range(k):
        nxt: dict = {}
        for st, p in dist.items():
            if sum(st) == 0:
                nxt[st] = nxt.get(st, 0) + p
                continue
            for face in range(10):  # every d10 face equally likely (rule 2.4)
                pos = _state_pos(units, st, oos)
                apply_disruption(units, pos, 0, _FixedRng(face), drm=drm)
                ns = tuple(int(x) for x in pos.steps)
                nxt[ns] = nxt.get(ns, 0) + p / 10
        dist = nxt
    total = sum(start)
    lost: dict = {}
    for st, p in dist.items():
        lost[total - sum(st)] = lost.get(total - sum(st), 0) + p
    lost = dict(sorted(lost.items()))
    return {"distribution": lost, "expected_steps_lost": float(sum(a * p for a, p in lost.items())),
            "p_stack_eliminated": float(sum(p for st, p in dist.items() if sum(st) == 0))}


def repeated_disruption_mc(specs: Sequence[tuple], k: int, n: int, seed: int, drm: int = 0, oos: bool = False) -> dict:
    """Monte Carlo version of :func:`repeated_disruption_exact` (stream purpose 'misc')."""
    units = _stack(specs)
    start = tuple(int(s[2]) for s in specs)
    lost: dict = {}
    for g in range(n):
        rng = generator(seed, g, "misc")
        pos = _state_pos(units, start, oos)
        for _ in range(k):
            if pos.steps.sum() == 0:
                break
            apply_disruption(units, pos, 0, rng, drm=drm)
        x = sum(start) - int(pos.steps.sum())
        lost[x] = lost.get(x, 0) + 1
    lost = {a: c / n for a, c in sorted(lost.items())}
    return {"distribution": lost, "expected_steps_lost": float(sum(a * p for a, p in lost.items())), "n": n}


# --- maps ----------------------------------------------------------------------------------------------

def reach_map(m, units, pos, stack, ctx, phases: int = 1) -> dict:
    """Reach (one Movement Phase) or phases-to-reach map of a stack (rule 8).

    Returns
    -------
    dict
        ``{hex_id: cost_in_MP}`` for ``phases == 1``; ``{hex_id: phases}`` otherwise.
    """
    from .movement import INF, phases_to_reach, reach

    if phases <= 1:
        c = reach(m, units, pos, stack, ctx)
        return {m.hid(i): c[i] / 2 for i in np.flatnonzero(c < INF)}
    t = phases_to_reach(m, units, pos, stack, ctx, max_phases=phases)
    return {m.hid(i): int(t[i]) for i in np.flatnonzero(t >= 0)}


def supply_status_map(m, units, pos, nationality: str = "G", paradropped: bool = False) -> dict:
    """Supply status of every land hex for an Axis unit there (rule 6).

    Returns
    -------
    dict
        ``supplied``: sorted hex ids; ``out_of_supply``: sorted land hex ids
        without a route (enemy-occupied hexes excluded); ``sources``.
    """
    from .supply import supply_map
    from .zoc import occupied

    s = supply_map(m, units, pos, nationality, paradropped)
    enemy = occupied(units, pos, 1, m.n)
    return {"supplied": sorted(m.hid(i) for i in np.flatnonzero(s & m.land)),
            "out_of_supply": sorted(m.hid(i) for i in np.flatnonzero(~s & m.land & ~enemy)),
            "sources": {"beachheads": sorted(m.hid(h) for h in pos.beachheads),
                        "airheads": {m.hid(h): n for h, n in sorted(pos.airheads.items())}}}


def plot_hex_values(m, values: dict, path, title: str = "", cmap: str = "viridis", marks: dict | None = None) -> None:
    """Draw a value per hex on the Invasion: Malta map into an image file (Agg backend).

    Parameters
    ----------
    m : IMMap
    values : dict
        ``{hex_id: number}``; land hexes without a value are drawn grey, sea white.
    path : str or Path
        Output file (``.png``, ``.pdf`` ...).
    marks : dict, optional
        ``{hex_id: label}`` written on top (units, sources).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import RegularPolyCollection

    xy = m.grid.centre_xy()
    xy[:, 1] = -xy[:, 1]
    land = np.flatnonzero(m.land)
    fig, ax = plt.subplots(figsize=(10, 8.5))
    grey = RegularPolyCollection(6, sizes=[55] * len(land), rotation=np.pi / 6, offsets=xy[land],
                                 offset_transform=ax.transData, facecolors="0.85", edgecolors="0.6", linewidths=0.2)
    ax.add_collection(grey)
    idx = [m.idx(h) for h in values]
    if idx:
        vals = np.array(list(values.values()), dtype=float)
        col = RegularPolyCollection(6, sizes=[55] * len(idx), rotation=np.pi / 6, offsets=xy[idx],
                                    offset_transform=ax.transData, array=vals, cmap=cmap, edgecolors="0.4",
                                    linewidths=0.2)
        ax.add_collection(col)
        fig.colorbar(col, ax=ax, shrink=0.7)
    for h, lab in (marks or {}).items():
        i = m.idx(h)
        ax.text(xy[i, 0], xy[i, 1], lab, fontsize=6, ha="center", va="center", color="red")
    ax.set_xlim(xy[land, 0].min() - 1, xy[land, 0].max() + 1)
    ax.set_ylim(xy[land, 1].min() - 1, xy[land, 1].max() + 1)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
