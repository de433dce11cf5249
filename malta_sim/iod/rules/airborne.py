"""Airborne landings (rules 4.23, 19.1-19.9, 21.1): result codes and odds,
jump planning and the Airborne Landing Phase.

The random work of a jump -- Drop Table, Scatter Diagram, drowning and
airborne losses -- is done by :mod:`malta_sim.kernels.drop` (with its exact
counterpart in :mod:`malta_sim.exact.drop`).

* :func:`plan_jumps` -- 19.3: drop zone markers and sticks planned two days
  ahead (the first two days during preparation, 3.0 a), with the per-turn
  limits of the scenario (22.35) and the target limits of 19.22 / 19.33; each
  stick's position is recorded relative to its formation's drop zone marker
  (19.32).
* :func:`move_drop_markers` -- 19.13 (Initial Segment).
* :func:`airborne_landing_phase` -- 4.23 a-h: cancellation (19.35), drop zone
  markers (19.41-19.42), sticks (19.43-19.45), airborne losses (19.46),
  hostile landings (19.5), rally (19.6), reforming (13.2).  In solitaire play
  (21.1) markers and sticks are placed by :mod:`.solitaire` instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numba as nb
import numpy as np

from malta_sim.kernels import drop as kd
from malta_sim.iod import invasion
from malta_sim.iod import static as st
from malta_sim.iod.state import (ALLIED, AM, AXIS, BOX_DISBANDMENT, BOX_MAP, NIGHT, NOON, PM, RAINY)
from malta_sim.iod.rules import amphibious, combat, organisation


# =====================================================================================
# Result codes, odds and planning helpers (19.22, 19.32, 19.44, 19.46)
# =====================================================================================
# Drop Table result codes (19.41, 19.44), as in malta_sim.kernels.drop.
ON_TARGET = 0
ADJACENT = 1  # drop zone markers only
HALF = 2
ONE_DIE = 3
TWO_DICE = 4
DROP_RESULT_NAMES = ("on_target", "adjacent", "half", "1", "2")

#: Solitaire modifier to every jump roll (rule 21.12, Drop Table).
SOLITAIRE_DROP_MOD = 2


# ---------------------------------------------------------------- 19.46

def p_airborne_loss(n_modifiers: int) -> Fraction:
    """Exact probability of :func:`airborne_loss_roll` with ``n_modifiers`` of +1."""
    return Fraction(max(0, int(n_modifiers)), 6)


# ---------------------------------------------------------------- 19.22, 19.3

#: A stick may be planned within 3 hexes of its marker, one per formation within 5 (19.22).
STICK_RANGE = 3
LONG_STICK_RANGE = 5


def relative_offset(marker: str, target: str) -> tuple[int, int]:
    """Axial offset of ``target`` from ``marker`` (the "two hexes northeast of
    the drop zone marker" record of rule 19.32)."""
    from malta_sim.hexgrid import to_axial

    qm, rm = to_axial(marker)
    qt, rt = to_axial(target)
    return qt - qm, rt - rm


def apply_offset(marker: str, offset: tuple[int, int]) -> str | None:
    """Hex at axial ``offset`` from ``marker`` (19.43); None off the id space."""
    from malta_sim.hexgrid import axial_to_offset, format_hex, to_axial

    q, r = to_axial(marker)
    col, row = axial_to_offset(q + offset[0], r + offset[1])
    if not (0 <= col <= 99 and 0 <= row <= 99):
        return None
    return format_hex(col, row)


def plan_target_ok(target_terrain_ok: bool, dist_from_marker: int, long_used: bool) -> tuple[bool, bool, str]:
    """Check a planned stick target (rules 19.22, 19.33).

    Parameters
    ----------
    target_terrain_ok : bool
        The target is not ocean, beach or coastal (19.33).
    dist_from_marker : int
        Hexes from the formation's planned drop zone marker hex.
    long_used : bool
        The formation's one stick beyond 3 (up to 5) hexes is already used.

    Returns
    -------
    (ok, uses_long, reason)
    """
    if not target_terrain_ok:
        return False, False, "rule 19.33: sticks may not be planned on ocean, beach or coastal hexes"
    if dist_from_marker <= STICK_RANGE:
        return True, False, ""
    if dist_from_marker <= LONG_STICK_RANGE and not long_used:
        return True, True, ""
    return False, False, "rule 19.22: sticks land within 3 hexes of the marker (one per formation within 5)"




PARA = (1, 2)  # Ramcke, Folgore formation codes

#: Type of the answers kept for one loop over landed units (hex -> answer);
#: a test replaces it by a dict that keeps nothing, to play the plain path.
_loop_memo = dict


def _stick_target(inv, grid, marker: int, offset) -> str | None:
    """The hex id at axial ``offset`` from the dense hex ``marker`` (rule
    19.43): ``apply_offset(grid.hex_id(marker), offset)``, kept in
    ``inv.hex_memo`` (a pure function of the grid and its arguments)."""
    key = ("apply", marker, offset)
    memo_ = inv.hex_memo
    if key in memo_:
        return memo_[key]
    out = memo_[key] = apply_offset(grid.hex_id(marker), offset)
    return out


def _plan_offset(inv, grid, marker: int, target: int) -> tuple:
    """Axial offset of dense hex ``target`` from dense hex ``marker`` (rule
    19.32): ``relative_offset`` of their hex ids, kept in ``inv.hex_memo``."""
    key = ("rel", marker, target)
    memo_ = inv.hex_memo
    out = memo_.get(key)
    if out is None:
        out = memo_[key] = relative_offset(grid.hex_id(marker), grid.hex_id(target))
    return out


def _target_index(inv, grid, target) -> int:
    """Dense index of hex id ``target``, -1 when it is None or off the grid
    (a cancelled stick, 19.43): ``grid.contains`` then ``grid.index``, kept
    in ``inv.hex_memo``."""
    if target is None:
        return -1
    key = ("index", target)
    memo_ = inv.hex_memo
    out = memo_.get(key)
    if out is None:
        out = memo_[key] = grid.index(target) if grid.contains(target) else -1
    return out


# =====================================================================================
# Sticks (19.21)
# =====================================================================================
def available_sticks(game, formation: int, planned_units: set) -> list:
    """Sticks of ``formation`` that could be planned now (rule 19.21): each
    paratroop battalion (or its three companies), each artillery battalion, the
    HQ with the leader and all engineer companies, or a returning HQ/leader.

    Returns
    -------
    list of (kind, tuple of units)
    """
    s = game.state
    inv = invasion.inv_static(game)
    utype, size, battalion_of = inv.unit_lists
    broken = set(s.parent[(s.parent >= 0) & (s.box != 5)].tolist())
    mine = inv.axis_by_formation.get(int(formation))          # the formation's Axis pieces
    if mine is None:
        return []
    inbox = [u for u in mine[s.box[mine] == BOX_DISBANDMENT].tolist()
             if u not in planned_units and u not in broken]
    out = []
    comps_by_bn: dict = {}
    hq_group = []
    for u in inbox:
        ut, sz = utype[u], size[u]
        if ut == st.PARATROOP and sz == st.BATTALION:
            out.append(("battalion", (u,)))
        elif ut == st.PARATROOP and sz == st.COMPANY and battalion_of[u] >= 0:
            comps_by_bn.setdefault(battalion_of[u], []).append(u)
        elif ut == st.ARTILLERY:
            out.append(("artillery", (u,)))
        elif ut in (st.HQ, st.LEADER, st.ENGINEER):
            hq_group.append(u)
    for bn, comps in sorted(comps_by_bn.items()):
        out.append(("battalion", tuple(sorted(comps))))
    if hq_group:
        has_eng = any(utype[u] == st.ENGINEER for u in hq_group)
        out.append(("hq_engineers" if has_eng else "returning", tuple(sorted(hq_group))))
    return out


def _target_hexes_ok(game) -> np.ndarray:
    """Hexes a marker or stick may be planned on (19.33): land, not beach or coastal."""
    t = game.static
    return t.land & ~t.beach & ~t.coastal


def _planning_hexes(game) -> tuple:
    """The hexes of :func:`_target_hexes_ok` (rule 19.33), ascending: a
    read-only int64 array kept per static data (``inv.hex_memo``) and a new
    list of Python ints (handed to the bot, which may keep or change it)."""
    memo_ = invasion.inv_static(game).hex_memo
    hit = memo_.get("planning_hexes")
    if hit is None:
        arr = np.flatnonzero(_target_hexes_ok(game))
        arr.flags.writeable = False
        hit = memo_["planning_hexes"] = (arr, arr.tolist())
    return hit[0], list(hit[1])


def _scenario(game):
    sc = getattr(game.scenario, "data", None)
    if sc is None:
        sc = invasion.inv_static(game).scenario_cfg.get("scenario_obj")
    return sc


def _limits(game, turn: int) -> dict:
    """Stick limits of ``turn`` from the scenario (22.26, 22.35): ``total``,
    per formation (1 Ramcke / German, 2 Folgore / Italian), allowed stick kinds,
    whether markers may drop, forced battalions and their marker."""
    sc = _scenario(game)
    day, tod = turn // 4, turn % 4
    out = {"total": 0, 1: 0, 2: 0, "kinds": {}, "markers": False, "forced": (), "at": ""}
    if tod not in (AM, PM) or sc is None:
        return out
    for j in sc.jumps:
        if j.day == day and j.turn == tod:
            if j.max_sticks >= 0:
                out.update({"total": j.max_sticks, 1: j.max_sticks, 2: j.max_sticks})
            else:
                out.update({1: j.max_sticks_german, 2: j.max_sticks_italian,
                            "total": j.max_sticks_german + j.max_sticks_italian})
            out["markers"] = bool(j.markers)
            out["forced"], out["at"] = tuple(j.forced), j.at
            if j.stick_types:
                allowed = ("battalion", "hq_engineers", "returning")
                out["kinds"] = {1: allowed, 2: allowed}
            return out
    first = min((j.day for j in sc.jumps), default=sc.first_day)
    if day > first or (day == first and tod not in [j.turn for j in sc.jumps if j.day == first]):
        if tod in tuple(sc.jumps_after_turns) and day > max((j.day for j in sc.jumps), default=-1):
            n = int(sc.jumps_after_max)
            out.update({"total": n, 1: n, 2: n, "markers": True})
    return out


# =====================================================================================
# 19.3 planning
# =====================================================================================
def stick_targets(dist_table: np.ndarray, marker: int, legal: np.ndarray, long_used: bool) -> list:
    """Hexes a stick may be planned on relative to its marker (rules 19.22,
    19.33): :func:`plan_target_ok` for every hex of ``legal`` at once.

    Parameters
    ----------
    dist_table : int16[H, H]
        Hex distances.
    marker : int
        Dense hex of the formation's (planned) drop zone marker.
    legal : int64[K]
        Ascending hexes that are not ocean, beach or coastal (19.33).
    long_used : bool
        The formation's one stick beyond 3 (up to 5) hexes is already planned.

    Returns
    -------
    list of (int, bool)
        ``(hex, uses the long stick)`` in the order of ``legal``.
    """
    dist = dist_table[marker, legal]
    fit = dist <= (STICK_RANGE if long_used else max(STICK_RANGE, LONG_STICK_RANGE))
    idx = fit.nonzero()[0]
    return [(x, dx > STICK_RANGE) for x, dx in zip(legal[idx].tolist(), dist[idx].tolist())]


def _stick_targets_kept(inv, dist_table, marker: int, legal: np.ndarray, long_used: bool) -> list:
    """:func:`stick_targets` (rules 19.22, 19.33) over the planning hexes (:func:`_planning_hexes`),
    each answer kept in ``inv.hex_memo`` (a pure function of the static
    distances, the marker hex, ``long_used`` and the stick ranges of
    this module, all in the key); returns a new list (the bot
    may keep or change it)."""
    key = ("sticks", int(marker), bool(long_used), STICK_RANGE, LONG_STICK_RANGE)
    hit = inv.hex_memo.get(key)
    if hit is None:
        hit = inv.hex_memo[key] = tuple(stick_targets(dist_table, marker, legal, long_used))
    return list(hit)


# =====================================================================================
# 19.3 planned jumps, kept in the game state
# =====================================================================================
@dataclass(frozen=True)
class JumpPlan:
    """One preplanned airborne jump (rules 19.31, 19.32), as read from the
    game state by :func:`jump_plans`.

    ``kind`` is ``"marker"`` (``hex`` = dense index of the planned hex) or
    ``"stick"`` (``offset`` = axial offset ``(dq, dr)`` from the formation's
    drop zone marker, 19.32; ``units`` the stick's unit indices in jump
    order, 19.21).  ``pid`` orders the plans of a turn."""

    pid: int
    formation: int
    turn: int
    kind: str
    hex: int = -1
    offset: tuple = (0, 0)
    units: tuple = ()


def jump_plans(game, turn: int | None = None) -> list:
    """The planned jumps (rule 19.3) of ``turn`` (all turns when None), as
    :class:`JumpPlan` in plan-id order.

    Reads the state fields ``marker_plan_*`` (per formation) and
    ``stick_plan_*`` (per unit)."""
    s = game.state
    out = []
    for f in np.flatnonzero(s.marker_plan_id[0] >= 0).tolist():
        tn = int(s.marker_plan_turn[0, f])
        if turn is None or tn == turn:
            out.append(JumpPlan(int(s.marker_plan_id[0, f]), f, tn, "marker", hex=int(s.marker_plan_hex[0, f])))
    units = np.flatnonzero(s.stick_plan_id >= 0)
    if turn is not None:
        units = units[s.stick_plan_turn[units] == turn]
    if units.size:
        units = units[np.lexsort((s.stick_plan_slot[units], s.stick_plan_id[units]))]
        ids = s.stick_plan_id[units].tolist()
        start = 0
        for i in range(1, len(ids) + 1):
            if i == len(ids) or ids[i] != ids[start]:
                u0 = int(units[start])
                out.append(JumpPlan(ids[start], int(s.stick_plan_formation[u0]), int(s.stick_plan_turn[u0]),
                                    "stick", offset=(int(s.stick_plan_dq[u0]), int(s.stick_plan_dr[u0])),
                                    units=tuple(units[start:i].tolist())))
                start = i
    out.sort(key=lambda p: p.pid)
    return out


def planned_units(game) -> set:
    """Units already in a planned stick (rule 19.34: one planned jump each)."""
    return set(np.flatnonzero(game.state.stick_plan_id >= 0).tolist())


def _plan_marker(game, f: int, turn: int, hx: int) -> None:
    """Record a drop zone marker jump of formation ``f`` on hex ``hx`` (19.31 a)."""
    s = game.state
    s.marker_plan_id[0, f] = s.next_plan_id[0]
    s.marker_plan_turn[0, f] = turn
    s.marker_plan_hex[0, f] = hx
    s.next_plan_id[0] += 1


def _plan_stick(game, f: int, turn: int, offset, units) -> None:
    """Record a stick jump of ``units`` (in jump order) at axial ``offset``
    from formation ``f``'s marker (19.31 b, 19.32)."""
    s = game.state
    pid = int(s.next_plan_id[0])
    for k, u in enumerate(units):
        s.stick_plan_id[u] = pid
        s.stick_plan_turn[u] = turn
        s.stick_plan_slot[u] = k
        s.stick_plan_formation[u] = f
        s.stick_plan_dq[u], s.stick_plan_dr[u] = int(offset[0]), int(offset[1])
    s.next_plan_id[0] = pid + 1


def _drop_plan(game, p: JumpPlan) -> None:
    """Remove plan ``p`` (it has jumped or is cancelled, 19.35)."""
    s = game.state
    if p.kind == "marker":
        s.marker_plan_id[0, p.formation] = -1
        s.marker_plan_turn[0, p.formation] = -1
        s.marker_plan_hex[0, p.formation] = -1
    else:
        u = list(p.units)
        s.stick_plan_id[u] = -1
        s.stick_plan_turn[u] = -1
        s.stick_plan_slot[u] = -1
        s.stick_plan_formation[u] = -1
        s.stick_plan_dq[u] = 0
        s.stick_plan_dr[u] = 0


def plan_jumps(game, days) -> None:
    """Plan the jumps of the given days (rule 19.3; 3.0 a for days 0-1, 3.0 e
    for day d + 2 in the Initial Segment of day d).  Markers not yet planned
    are planned first (both on 29 June, 19.0); then sticks, positioned relative
    to the marker (19.32) within 3 hexes, one per formation within 5 (19.22),
    never planned on ocean, beach or coastal hexes (19.33)."""
    h = invasion
    s, t = game.state, game.static
    inv = h.inv_static(game)
    sc = _scenario(game)
    n_days = int(sc.last_day) + 1 if sc is not None else 12
    legal_arr, legal = _planning_hexes(game)
    pol = game.policy(h.AXIS)
    d = t.grid.distance_table
    for day in days:
        if day >= n_days or day <= s.planned_through_day[0]:
            continue
        s.planned_through_day[0] = max(int(s.planned_through_day[0]), day)
        for tod in (AM, PM):
            turn = day * 4 + tod
            lim = _limits(game, turn)
            if lim["total"] <= 0 and not lim["markers"]:
                continue
            # markers (19.31 a)
            for f in PARA:
                if s.dz_hex[0, f] >= 0 or s.marker_plan_id[0, f] >= 0:
                    continue
                if not lim["markers"]:
                    continue
                hx = pol.plan_marker(game, f, turn, legal)
                if hx is None and day == 0 and tod == PM:
                    raise h._illegal("19.0", "both drop zone markers drop on 29 June")
                if hx is None:
                    continue
                if hx not in legal:
                    raise h._illegal("19.33", "drop zone markers are not planned on ocean, beach or coastal hexes")
                _plan_marker(game, f, turn, int(hx))
            if lim["total"] <= 0:
                continue
            planned = planned_units(game)
            if lim["forced"]:
                # 22.26: the named battalion jumps on its marker's hex; no other stick
                f = 1 if lim["at"].endswith("ramcke") else 2
                units = tuple(t.unit(x) for x in lim["forced"] if x in t._index)
                units = tuple(u for u in units if u not in planned and s.box[u] == BOX_DISBANDMENT)
                if units:
                    _plan_stick(game, f, turn, (0, 0), units)
                continue
            sticks, ref = [], {}
            for f in PARA:
                r = int(s.dz_hex[0, f])
                if r < 0:
                    if s.marker_plan_id[0, f] >= 0 and s.marker_plan_turn[0, f] <= turn:
                        r = int(s.marker_plan_hex[0, f])
                if r < 0:
                    continue
                ref[f] = r
                for kind, units in available_sticks(game, f, planned):
                    sticks.append((len(sticks), f, kind, units))
            if not sticks:
                continue
            long_used = s.long_stick_used[0]
            targets = {}
            for f, r in ref.items():
                targets[f] = _stick_targets_kept(inv, d, r, legal_arr, bool(long_used[f]))
            limits = {"total": lim["total"], 1: lim[1], 2: lim[2], "kinds": lim["kinds"]}
            picks = pol.plan_sticks(game, turn, [(i, f, k) for i, f, k, _ in sticks], targets, limits)
            per = {}
            allowed_of = {}                          # formation -> {hex: uses the long stick}
            for sid, hx in picks:
                if not (0 <= sid < len(sticks)):
                    raise h._illegal("19.31", "unknown stick")
                _, f, kind, units = sticks[sid]
                if any(u in planned for u in units):
                    raise h._illegal("19.34", "a unit may be in one planned jump only")
                allowed = allowed_of.get(f)
                if allowed is None:
                    allowed = allowed_of[f] = {x: lg for x, lg in targets.get(f, [])}
                if hx not in allowed:
                    raise h._illegal("19.22", "stick target not within reach of its drop zone marker")
                if allowed[hx]:
                    if long_used[f]:
                        raise h._illegal("19.22", "only one stick per formation within five hexes")
                    long_used[f] = True
                per[f] = per.get(f, 0) + 1
                if per[f] > lim.get(f, 0) or sum(per.values()) > lim["total"]:
                    raise h._illegal("22.35", "too many sticks planned for this turn")
                if lim["kinds"] and kind not in lim["kinds"].get(f, ()):
                    raise h._illegal("22.35", "stick type not allowed on 29 June AM")
                planned.update(units)
                off = _plan_offset(inv, t.grid, int(ref[f]), int(hx))
                _plan_stick(game, f, turn, off, tuple(units))
    if game.events is not None:              # the count is read only for a kept log
        game.log("jumps_planned", side=h.AXIS, result=f"{len(jump_plans(game))} plans", rule="19.3")


# =====================================================================================
# 19.13 moving drop zone markers
# =====================================================================================
def move_drop_markers(game) -> None:
    """Rule 19.13: in an Initial Segment the Axis may move each drop zone marker
    up to three hexes along friendly-controlled hexes without entering enemy
    units or empty enemy-ZOC hexes; not while an Allied unit (other than coastal
    guns) shares its hex (19.12)."""
    h = invasion
    s, t = game.state, game.static
    inv = h.inv_static(game)
    zoc = None
    for f in PARA:
        here = int(s.dz_hex[0, f])
        if here < 0:
            continue
        if any(t.utype[e] != st.COASTAL_GUN for e in game.units_at(here, ALLIED)):
            continue
        if zoc is None:
            # (nothing moves until a marker is moved below: one map for both)
            zoc = h.enemy_zoc(game, AXIS)
        options = marker_reach_kernel(here, MARKER_MOVE, inv.near_padded, t.land, s.control, zoc, s.hex,
                                      t.side).tolist()
        if not options:
            continue
        allowed = set(options)                # (the bot may change the list it is handed)
        new = game.policy(AXIS).move_drop_marker(game, f, options)
        if new is None:
            continue
        if new != here and new not in allowed:
            raise h._illegal("19.13", "drop zone markers move up to three friendly hexes")
        s.dz_hex[0, f] = int(new)
        game.log("drop_zone_moved", side=AXIS, hexes=[here, int(new)], rule="19.13")


#: Hexes a drop zone marker may move in an Initial Segment (19.13).
MARKER_MOVE = 3


@nb.njit(cache=True)
def marker_reach_kernel(here, steps, near_padded, land, control, zoc, hexpos, side):
    """Hexes a drop zone marker on ``here`` may move to (rule 19.13), in
    one breadth-first search: up to ``steps`` hexes, each entered hex land,
    Axis-controlled, free of Allied units, and not in the Allied ZOC unless
    Axis units stand there.

    Parameters
    ----------
    here : int
        Dense hex of the marker.
    steps : int
        Most hexes moved.
    near_padded : int64[H+1, 7]
        ``InvasionStatic.near_padded``: each hex, then its on-map neighbours,
        padded with ``H``.
    land : bool[H]; control : int8[H]; zoc : bool[H]
        Land hexes, controlling side, hexes in the Allied ZOC.
    hexpos, side : arrays [n_units]
        Hex of every piece (-1 off the map) and its side.

    Returns
    -------
    int64[k]
        The hexes reached, ``here`` excluded, ascending.
    """
    H = land.shape[0]
    allied = np.zeros(H, np.bool_)
    axis = np.zeros(H, np.bool_)
    for u in range(hexpos.shape[0]):
        x = hexpos[u]
        if x >= 0:
            if side[u] == ALLIED:
                allied[x] = True
            elif side[u] == AXIS:
                axis[x] = True
    dist = np.full(H, -1, np.int64)
    queue = np.empty(H, np.int64)
    dist[here] = 0
    queue[0] = here
    head, tail = 0, 1
    while head < tail:
        x = queue[head]
        head += 1
        if dist[x] >= steps:
            continue
        for j in range(1, near_padded.shape[1]):
            y = near_padded[x, j]
            if y >= H or dist[y] >= 0 or not land[y] or control[y] != AXIS:
                continue
            if allied[y]:
                continue
            if zoc[y] and not axis[y]:
                continue
            dist[y] = dist[x] + 1
            queue[tail] = y
            tail += 1
    k = 0
    out = np.empty(H, np.int64)
    for y in range(H):
        if dist[y] > 0:
            out[k] = y
            k += 1
    return out[:k]


# =====================================================================================
# 4.23 the phase
# =====================================================================================
def airborne_landing_phase(game) -> None:
    """Rule 4.23 a-h (AM and PM turns; nothing jumps in Rainy weather)."""
    h = invasion
    s = game.state
    if game.tod in (NOON, NIGHT):
        return                                                   # 19.33
    if h.solitaire(game):
        from malta_sim.iod.rules.solitaire import solitaire_airborne_phase
        solitaire_airborne_phase(game)
        return
    turn = game.turn
    mine = jump_plans(game, turn)
    if not mine:
        return
    # a) cancellation (19.35)
    if s.weather[0] == RAINY:
        cancel = {p.pid for p in mine}
    else:
        cancel = set(game.policy(AXIS).cancel_jumps(game, [p.pid for p in mine]))
        # 29 June markers must drop (19.0): never cancelled on day 0
        cancel -= {p.pid for p in mine if p.kind == "marker" and game.day == 0}
    if cancel:
        for p in jump_plans(game):
            if p.pid in cancel:
                _drop_plan(game, p)
                if p.kind == "marker":  # replan the marker for a later turn (19.35)
                    _plan_marker(game, p.formation, game.turn + 4 - (game.turn % 4) + AM, p.hex)
        game.log("jumps_cancelled", side=AXIS, result=f"{len(cancel)}", rule="19.35")
    mine = jump_plans(game, turn)
    # b) drop zone markers (19.41, 19.42)
    for p in [p for p in mine if p.kind == "marker"]:
        drop_marker(game, p.formation, p.hex, solitaire=False)
        _drop_plan(game, p)
    # c-e) sticks, one at a time (19.43-19.5)
    inv, grid = h.inv_static(game), game.static.grid
    jumped = []
    for p in [p for p in mine if p.kind == "stick"]:
        _drop_plan(game, p)
        marker = int(s.dz_hex[0, p.formation])
        if marker < 0:
            continue                                             # 19.1: marker first
        target = _stick_target(inv, grid, marker, p.offset)
        jumped += jump_stick(game, p.formation, list(p.units), target, solitaire=False)
    rally(game, jumped)                                          # f) 19.6
    amphibious._reform(game, [int(s.hex[u]) for u in jumped if s.box[u] == BOX_MAP])  # h) 13.2


def _aa_count(game) -> np.ndarray:
    """int32[H]: Allied AA units on the map within three hexes of each hex (19.41)."""
    s, t = game.state, game.static
    m = (s.box == BOX_MAP) & (t.side == ALLIED) & t.aa
    if not m.any():
        return np.zeros(t.grid.n_hexes, np.int32)
    return (t.grid.distance_table[:, s.hex[m]] <= 3).sum(axis=1).astype(np.int32)


def drop_marker(game, formation: int, planned: int, solitaire: bool) -> int:
    """Drop one drop zone marker (19.41, 19.42) with the kernels' drop kernel:
    Drop Table 2d6, German -1, +1 per Allied AA within 3 hexes, solitaire +2;
    on an ocean hex the whole procedure is repeated from the planned hex."""
    h = invasion
    inv, s, t = h.inv_static(game), game.state, game.static
    ch = t.charts
    hx, _ = kd.drop_marker(h.nstate(game, "scatter"), int(planned), formation == 1, _aa_count(game),
                           bool(solitaire), inv.ocean, t.neighbours, ch.drop_roll_min, ch.drop_roll_max,
                           ch.drop_marker, ch.drop_stick, ch.scatter_dir, False, 1000)
    if hx < 0:
        hx = int(planned)                      # planned hexes are never ocean (19.33)
    s.dz_hex[0, formation] = int(hx)
    game.log("drop_zone_marker", side=AXIS, hexes=[int(planned), int(hx)], rule="19.41")
    return int(hx)


def jump_stick(game, formation: int, units: list, target, solitaire: bool, first_intro: bool = False) -> list:
    """Jump one stick (19.43-19.5).  ``target`` is the hex id where the stick is
    placed (None or off the map: cancelled, 19.43).  Returns the units that
    landed (alive or not)."""
    h = invasion
    inv, s, t = h.inv_static(game), game.state, game.static
    grid = t.grid
    th = _target_index(inv, grid, target)
    if th < 0:
        game.log("stick_cancelled", side=AXIS, units=units, rule="19.43")
        return []
    if inv.ocean[th]:
        game.log("stick_cancelled", side=AXIS, hexes=[th], units=units, rule="19.43")
        return []
    # 4.23 c: paratroop battalions break down into their companies
    utype, turn = game.tables.utype, game.turn         # (unit types as Python ints)
    expanded = []
    for u in units:
        if utype[u] == st.PARATROOP and t.size[u] == st.BATTALION and s.box[u] == BOX_DISBANDMENT:
            comps = h.break_down(game, u)
            expanded += comps if comps else []
        elif s.box[u] == BOX_DISBANDMENT:
            expanded.append(u)
    units = expanded
    if not units:
        return []
    # the pieces that roll on the Drop Table; a returning leader jumping
    # alone (19.21) is a stick of its own and rolls (19.44)
    rollers = [u for u in units if utype[u] != st.LEADER] or list(units)
    german = all(t.nation[u] == st.GERMAN for u in rollers)
    out = np.empty(max(1, len(rollers)), np.int32)
    ch = t.charts
    code = kd.drop_stick(h.nstate(game, "scatter"), th, len(rollers), german, h.aa_within(game, th),
                         bool(solitaire), inv.ocean, t.neighbours, ch.drop_roll_min, ch.drop_roll_max,
                         ch.drop_marker, ch.drop_stick, ch.scatter_dir, out)
    if code < 0:
        game.log("stick_cancelled", side=AXIS, hexes=[th], units=units, rule="19.43")
        return []
    final = {u: int(out[i]) for i, u in enumerate(rollers)}
    hq = [u for u in rollers if utype[u] == st.HQ]
    for u in units:
        if utype[u] == st.LEADER:                             # 19.44: with the HQ
            final[u] = final[hq[0]] if hq else (final[rollers[0]] if rollers else th)
    if game.events is not None:
        game.log("stick_drop", side=AXIS, hexes=[th], units=units,
                 cell=DROP_RESULT_NAMES[int(code)] if 0 <= code < 5 else "", rule="19.44")
    landed = []
    for u in units:
        x = final[u]
        if x < 0:                                                # 19.45 drowned
            if utype[u] == st.LEADER:
                h.eliminate_leader(game, u)
            else:
                h.eliminate(game, u, "drowned 19.45")
            game.log("drowned", side=AXIS, units=[u], rule="19.45")
            continue
        s.entered_turn[u] = turn
        s.moved[u] = True                                        # 19.8
        if utype[u] == st.ARTILLERY:
            s.hitched[u] = True                                  # 19.47
        if s.formation[u] < 0:
            s.formation[u] = formation
        h.move_unit(game, u, x, "jump")
        landed.append(u)
    # 19.46 airborne losses
    rs = h.nstate(game, "drop")
    # per hex: real Allied defenders there, Allied AA within 3 hexes, rough
    # terrain; only Axis pieces are reduced or eliminated in this loop, so all
    # three stay as found
    seen = _loop_memo()
    for u in landed:
        if utype[u] in (st.LEADER, st.HQ) or s.box[u] != BOX_MAP:
            continue
        x = int(s.hex[u])
        hit = seen.get(x)
        if hit is None:
            hit = seen[x] = (bool(_real_enemy(game, x)), h.aa_within(game, x) > 0,
                             bool(t.woods[x] or t.town[x] or t.city[x] or (t.fort[x] and not s.fort_destroyed[x])))
        reduced, _die = kd.airborne_loss_roll(rs, hit[0], hit[1], hit[2])
        if reduced:
            # any one-step company with a reduced side (paratroop and para engineer
            # companies, 17.83) turns over; its values are those of its second level
            if t.size[u] == st.COMPANY and getattr(t, "two_sided", None) is not None \
                    and t.two_sided[u] and not s.reduced[u]:
                s.reduced[u] = True
                s.level[u] = min(1, int(t.n_levels[u]) - 1)
                game.log("airborne_loss", side=AXIS, units=[u], result="reduced", rule="19.46")
            else:
                h.eliminate(game, u, "airborne losses 19.46")
                game.log("airborne_loss", side=AXIS, units=[u], result="eliminated", rule="19.46")
    # 19.5 hostile landings, hex by hex
    for x in sorted({int(s.hex[u]) for u in landed if s.box[u] == BOX_MAP}):
        here = [u for u in landed if s.box[u] == BOX_MAP and s.hex[u] == x]
        hostile_landing(game, x, here)
    return landed


def _real_enemy(game, x: int) -> list:
    """Allied units in ``x`` other than coastal guns, zero-defense units and leaders."""
    t = game.static
    return [int(e) for e in game.units_at(x, ALLIED)
            if t.utype[e] not in (st.COASTAL_GUN, st.LEADER) and game.base_defense(e) > 0]


def hostile_landing(game, x: int, axis_units: list) -> None:
    """Rule 19.5: the units of one stick that land in an enemy-occupied hex
    attack it at once, through the normal combat procedure with the
    differences of 19.51 and 19.53 (:func:`.combat.resolve_attack` with
    ``drop=True``: no support of any kind, every Axis hit a step loss, no
    advance after combat), again and again until only one side is left.
    Odds below the line's lowest column eliminate the landed units (19.53).
    Parachute artillery does not attack and dies if alone or if its comrades
    die (19.52).  A hex left with only coastal guns, zero-strength units and
    leaders of the Allies: those are eliminated (6.52, 16.58, 19.53).  A fort
    falls once its Allied defenders are gone (17.1).

    Parameters
    ----------
    game : Game
    x : int
        Dense index of the drop hex.
    axis_units : list of int
        The stick's units that landed in ``x``.
    """
    s, t = game.state, game.static
    if not len(game.units_at(x, ALLIED)):
        return
    if not _real_enemy(game, x):
        _clear_trivial(game, x)
        return
    for _ in range(30):
        axis_here = [u for u in axis_units if s.box[u] == BOX_MAP and s.hex[u] == x and t.utype[u] != st.LEADER]
        fighters = [u for u in axis_here if t.utype[u] != st.ARTILLERY and t.utype[u] != st.HQ]
        if not _real_enemy(game, x):
            _clear_trivial(game, x)
            break
        if not fighters:
            for u in axis_here:                                  # 19.52
                invasion.eliminate(game, u, "hostile landing 19.52")
            break
        res = combat.resolve_attack(game, AXIS, x, fighters, drop=True)            # 19.51
        if res.cancelled:
            for u in axis_here:                                  # 19.53 odds too low
                invasion.eliminate(game, u, "hostile landing 19.53")
            break
    held = any(s.box[u] == BOX_MAP and s.hex[u] == x and t.utype[u] != st.LEADER for u in axis_units)
    if held and not len(game.units_at(x, ALLIED)) and t.fort[x] and not s.fort_destroyed[x]:
        s.fort_destroyed[x] = True                               # 17.1: the fort falls now
        game.log("fort destroyed", side=AXIS, hexes=[x], rule="17.1")
    if not held:
        _leaders_fate(game, x, axis_units)


def _clear_trivial(game, x: int) -> None:
    """Only coastal guns, zero-strength units and leaders of the Allies left with
    Axis units: eliminate them, roll for the leaders (6.52, 19.53)."""
    h = invasion
    t = game.static
    for e in game.units_at(x, ALLIED):
        if t.utype[e] == st.LEADER:
            if game.dice2("leaders") <= 7:
                h.eliminate_leader(game, int(e))
            else:
                organisation.leader_escapes(game, int(e))
        else:
            h.eliminate(game, int(e), "overrun 6.52")


def _leaders_fate(game, x, axis_units) -> None:
    """Axis leaders left alone with Allied units in a drop hex (6.52)."""
    h = invasion
    s, t = game.state, game.static
    for u in axis_units:
        if t.utype[u] == st.LEADER and s.box[u] == BOX_MAP and s.hex[u] == x:
            if not any(t.utype[v] != st.LEADER for v in game.units_at(x, AXIS)) and len(game.units_at(x, ALLIED)):
                if game.dice2("leaders") <= 7:
                    h.eliminate_leader(game, u)
                else:
                    organisation.leader_escapes(game, u)


def rally(game, jumped: list) -> None:
    """Rule 19.6: surviving leaders, HQs, engineers and paratroop companies that
    jumped this turn and are not in an enemy hex or enemy ZOC may move one hex
    (not parachute artillery)."""
    h = invasion
    s, t = game.state, game.static
    zoc = h.enemy_zoc(game, AXIS)
    pol = game.policy(AXIS)
    for u in jumped:
        if s.box[u] != BOX_MAP or t.utype[u] == st.ARTILLERY:
            continue
        x = int(s.hex[u])
        if zoc[x] or _real_enemy(game, x):
            continue
        opts = h.one_hex_options(game, u)
        y = pol.one_hex_move(game, u, opts, "rally 19.6")
        if y is None:
            continue
        if y not in opts:
            raise h._illegal("19.6", "rally is one hex")
        h.move_unit(game, u, int(y), "move")
