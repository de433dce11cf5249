"""Efficiency ratings, lead units and disruption (rules 3.7 and 3.8).

ER checks roll the d10 (0 = 10, rule 2.4), add the DRMs and pass when the
result is at most the unit's current ER (rule 3.71).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ...errors import OptionError
from .units import Position, UnitTable, d10, lose_step, side_index


def current_er(units: UnitTable, pos: Position, u: int) -> int:
    """Current ER of unit ``u`` (rule 3.75): the printed ER of the side it shows
    (step reduction, rule 3.41), minus 2 if Disrupted (rule 3.83), minus 1 if Out of
    Supply (rule 6.15), never below 1."""
    er = int(units.er[u, side_index(pos, u)])
    if pos.disrupted[u]:
        er -= 2
    if pos.oos[u]:
        er -= 1
    return max(1, er)


def er_pass_probability(er: int, drm: int = 0) -> float:
    """Exact chance of passing an ER check (rule 3.71) with the d10 (rule 2.4).

    Parameters
    ----------
    er : int
        The (current) efficiency rating used.
    drm : int
        Sum of die roll modifiers added to the roll (negative helps).

    Returns
    -------
    float
        ``#{r in 1..10 : r + drm <= er} / 10``.
    """
    return sum(1 for r in range(1, 11) if r + drm <= er) / 10.0


def er_check(er: int, rng, drm: int = 0) -> tuple[bool, int]:
    """Roll one ER check (rule 3.71).

    Returns
    -------
    (passed, roll) : (bool, int)
        ``roll`` is the unmodified d10 value 1..10.
    """
    r = d10(rng)
    return (r + drm <= er), r


def lead_candidates(units: UnitTable, pos: Position, group: Sequence[int], active_formation: str | None = None,
                    army_active: np.ndarray | None = None) -> list[int]:
    """Units of ``group`` eligible as Lead unit (rules 3.73-3.74).

    Over-stacked units are never eligible (rule 3.73).  When ``active_formation``
    is given, only its units and Army units activated with it qualify (rule 3.74;
    pass ``army_active`` as ``bool[u]``).  For Allied sector formations pass the
    group already restricted to the sector.
    """
    out = []
    for u in group:
        if pos.overstacked[u] or pos.steps[u] <= 0:
            continue
        if active_formation is not None:
            own = units.formation[u] == active_formation
            army = bool(units.army[u]) and army_active is not None and bool(army_active[u])
            if not (own or army):
                continue
        out.append(int(u))
    return out


def choose_lead(units: UnitTable, pos: Position, candidates: Sequence[int], lead: int | None = None) -> int:
    """The owner's Lead unit (rules 3.72-3.73).

    The owner may pick any candidate (``lead``), not necessarily the best; by
    default the candidate with the highest current ER (ties: first listed).

    Raises
    ------
    OptionError
        If there is no candidate or ``lead`` is not a candidate.
    """
    if not candidates:
        raise OptionError("no unit can be the Lead unit (all over-stacked or not active)")
    if lead is not None:
        if lead not in candidates:
            raise OptionError(f"unit {units.ids[lead]} cannot be the Lead unit here (rules 3.73-3.74)")
        return int(lead)
    ers = [current_er(units, pos, u) for u in candidates]
    return int(candidates[int(np.argmax(ers))])


def group_er_check(units: UnitTable, pos: Position, candidates: Sequence[int], rng, drm: int = 0,
                   lead: int | None = None) -> tuple[bool, int, int]:
    """One ER check for a group decided by its Lead unit (rules 3.71-3.72).

    Returns
    -------
    (passed, roll, lead)
    """
    ld = choose_lead(units, pos, candidates, lead)
    ok, r = er_check(current_er(units, pos, ld), rng, drm)
    return ok, r, ld


def default_loss_choice(units: UnitTable, pos: Position, group: Sequence[int], lead: int) -> int:
    """The owner's default choice of the unit that takes the step lost on a failed
    rule 3.84 check.

    Rule 3.84 leaves the choice to the owner ("owner's choice of unit"), and it
    is read as overriding the Lead-takes-the-first-step clause of rule 3.74 (see
    :func:`apply_disruption`).  The default spares the Lead unit when another
    unit of the group can take the step, then prefers flipping a full two-step
    unit (rule 3.41) over eliminating one, then the lowest defense strength, then
    the lowest index.

    Parameters
    ----------
    group : sequence of int
        The previously Disrupted units that made the check.
    lead : int
        Their Lead unit.

    Returns
    -------
    int
        The unit that loses the step.
    """
    pool = [u for u in group if pos.steps[u] > 0]
    others = [u for u in pool if u != lead] or pool
    key = lambda u: (0 if pos.steps[u] >= 2 else 1, int(units.defense[u, side_index(pos, u)]), u)  # noqa: E731
    return int(sorted(others, key=key)[0])


def apply_disruption(units: UnitTable, pos: Position, h: int, rng, drm: int = 0, affected: Sequence[int] | None = None,
                     lead: int | None = None, loss_choice: Callable | None = None) -> dict:
    """A Disruption result on hex ``h`` (rules 3.81-3.84).

    If units there are already Disrupted, those units (over-stacked included)
    make one ER check as a group with a Lead unit chosen among them; on a fail
    the group loses one step (owner's choice) and stays Disrupted.  Units not yet
    Disrupted only become Disrupted (no check).

    Parameters
    ----------
    units, pos
        The counters and the position (``pos`` is modified in place).
    h : int
        Hex index.
    rng : numpy.random.Generator
        Rolls the d10 (rule 2.4) of the check.
    drm : int
        Die roll modifier of the check (rule 3.71).
    affected : sequence of int, optional
        The units in ``h`` the result applies to (default: every unit in the
        hex, e.g. Bombardment 10.28); combat passes its participating units (9.1).
    lead : int, optional
        Lead unit for the check: a previously Disrupted unit that is not
        over-stacked (rule 3.73), unless every previously Disrupted unit is
        over-stacked.  Default: the best current ER among those eligible.
    loss_choice : callable, optional
        ``f(units, pos, group, lead) -> unit``, the owner's choice of the unit
        that loses the step (default :func:`default_loss_choice`).

    Returns
    -------
    dict
        ``newly`` (list of units), ``checked`` (list), ``roll`` (int or None),
        ``passed`` (bool or None), ``lead``, ``step_lost`` (unit or None),
        ``eliminated`` (bool).

    Raises
    ------
    OptionError
        If ``lead`` was not already Disrupted (rule 3.84) or is over-stacked
        while another previously Disrupted unit is not (rule 3.73).

    Notes
    -----
    Rule 3.74 makes the Lead unit take the first step of any loss, while rule
    3.84 gives the step lost on this check to a unit of the owner's choice.  We
    read 3.84 as the specific rule for its own check: 3.74 is written for the
    active formation's procedures (its Lead must come from the active
    formation, which a defending stack never is), while 3.84 names its own Lead
    (the previously Disrupted units) and its own loss ("owner's choice of
    unit").  So the owner may give the step to any unit of the group, the Lead
    included; :func:`default_loss_choice` spares the Lead.
    """
    here = pos.at(h) if affected is None else np.asarray([u for u in affected if pos.steps[u] > 0], dtype=np.int64)
    prev = [int(u) for u in here if pos.disrupted[u]]
    newly = [int(u) for u in here if not pos.disrupted[u]]
    res = dict(newly=newly, checked=prev, roll=None, passed=None, lead=None, step_lost=None, eliminated=False)
    if prev:
        cands = [u for u in prev if not pos.overstacked[u]] or prev  # rules 3.73, 3.84
        if lead is None:
            ers = [current_er(units, pos, u) for u in cands]
            ld = cands[int(np.argmax(ers))]
        else:
            if lead not in prev:
                raise OptionError("the Lead unit must be one of the previously Disrupted units (rule 3.84)")
            if lead not in cands:
                raise OptionError(f"unit {units.ids[lead]} is over-stacked and cannot be the Lead unit (rule 3.73)")
            ld = int(lead)
        ok, r = er_check(current_er(units, pos, ld), rng, drm)
        res.update(roll=r, passed=ok, lead=ld)
        if not ok:
            victim = (loss_choice or default_loss_choice)(units, pos, prev, ld)
            res["step_lost"] = victim
            res["eliminated"] = lose_step(units, pos, victim)
    pos.disrupted[newly] = True
    return res


def disrupt_by_hex(units: UnitTable, pos: Position, group: Sequence[int], rng, drm: int = 0) -> list[dict]:
    """A Disruption result on ``group``, units that may stand in several hexes (rules 3.82, 3.84).

    Rule 3.84 checks hex by hex: each hex holding units of ``group`` suffers
    the result once, so its previously Disrupted units of ``group`` make one
    group ER check with a Lead unit from among themselves, and a unit in
    another hex neither leads nor shares that check.  (Attackers from several
    hexes that are all Disrupted by one combat result thus make one check per
    hex.)  Hexes are taken in increasing index order.

    Parameters
    ----------
    group : sequence of int
        Units the result applies to; eliminated or off-map units are ignored.

    Returns
    -------
    list of dict
        One :func:`apply_disruption` result per hex, with ``hex`` added.
    """
    on = pos.on_map()
    alive = [int(k) for k in group if on[k]]
    out = []
    for h in sorted({int(pos.hex[k]) for k in alive}):
        r = apply_disruption(units, pos, h, rng, drm, affected=[k for k in alive if pos.hex[k] == h])
        r["hex"] = h
        out.append(r)
    return out


def disrupted_ma(ma: int) -> int:
    """MA of a Disrupted unit: halved, fraction dropped (rules 3.83, 3.51)."""
    return ma // 2


def recovery(units: UnitTable, pos: Position, enemy_zoc_of: Callable[[int], np.ndarray], rng,
             drm: Callable[[int], int] | None = None) -> dict:
    """Recovery Phase removal of Disruption markers (rule 3.84, second part).

    Units not in an enemy ZOC lose their marker automatically, except Italian
    units; Italian units anywhere and units in an enemy ZOC make an ER check
    each (with the lowered ER) and recover on a pass.

    Parameters
    ----------
    enemy_zoc_of : callable
        ``side -> bool[n_hexes]``: hexes in the ZOC of the enemy of ``side``.
    drm : callable, optional
        ``unit -> DRM`` (e.g. command points, reconstructed rule 17.2).

    Returns
    -------
    dict
        ``auto`` (units recovered without a roll), ``checks`` (list of
        ``(unit, roll, passed)``).
    """
    zocs = {s: enemy_zoc_of(s) for s in (0, 1)}
    on = pos.on_map()
    auto, checks = [], []
    for u in np.flatnonzero(pos.disrupted & pos.alive()):
        u = int(u)
        in_zoc = bool(on[u] and zocs[int(units.side[u])][pos.hex[u]])
        if not in_zoc and units.nat[u] != "I":
            pos.disrupted[u] = False
            auto.append(u)
            continue
        ok, r = er_check(current_er(units, pos, u), rng, drm(u) if drm else 0)
        if ok:
            pos.disrupted[u] = False
        checks.append((u, r, ok))
    return dict(auto=auto, checks=checks)
