"""Movement (rule 8), in half movement points (hmp).

A stack moves hex by hex paying the Terrain Effects Chart cost of each hex and
hexside (rules 8.11, 8.3), +1 MP to enter an enemy ZOC (rule 8.21), and stops on
entering one (rule 8.22) unless red-box units continue through vacant ZOC hexes
(rule 8.23).  :func:`reach` returns the least cost of every reachable hex; the
stop rules depend only on the hex entered (and on the start hex for 8.24), so
a Dijkstra search over hexes is exact.

Conditions (:class:`MoveContext`): day/night (rule 8.4), weather (Storm gives
Allied units the 1/2 MP road rate, rule 8.33), the game turn (GT 1 Allied -2 MP,
rule 7.12).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from ...errors import OptionError
from .terrain import COST_ROAD_ALLIED_DAY, COST_ROAD_HALF, COST_SLOPE, COST_ZOC, IMMap
from .units import ALLIED, AXIS, RED, Position, UnitTable, side_index
from .zoc import occupied, zoc_map

INF = 1 << 30
#: :func:`step_cost` of a move the rules forbid.
BARRED = -1


@dataclass(frozen=True)
class MoveContext:
    """Conditions of a Movement Phase.

    Attributes
    ----------
    night : bool
        Night turn (rules 8.33, 8.41, 8.42).
    weather : str
        'good', 'windy' or 'storm' (rule 5.1).
    first_turn_penalty : bool
        Allied units lose 2 MP (GT 1, scenarios 2 and 3; rule 7.12).
    """

    night: bool = False
    weather: str = "good"
    first_turn_penalty: bool = False


def road_cost(side: int, ctx: MoveContext) -> int:
    """Cost (hmp) of one road hex (rules 8.33, 8.42): Axis always 1/2 MP; Allied 1 MP
    on Day turns, 1/2 MP on Night turns and in Storm.

    Notes
    -----
    Rule 8.42 names only Night turns for the Allied 1/2 MP rate; rule 8.33 adds
    Storm weather.  We apply 8.33, the more detailed rule.
    """
    if side == AXIS or ctx.night or ctx.weather == "storm":
        return COST_ROAD_HALF
    return COST_ROAD_ALLIED_DAY


def movement_allowance(units: UnitTable, pos: Position, u: int, ctx: MoveContext) -> int:
    """Current MA of unit ``u`` in hmp.

    Printed MA of the side shown (rule 3.41), halved with the fraction dropped
    when Disrupted (rules 3.83, 3.5), zero for an Out-of-Supply armored unit
    (rule 6.15), minus 2 MP for Allied units on GT 1 (rule 7.12), zero for Allied
    artillery on a Day turn (rule 8.41).
    """
    ma = int(units.ma[u, side_index(pos, u)])
    if pos.disrupted[u]:
        ma //= 2
    if pos.oos[u] and units.armored[u]:
        ma = 0
    if ctx.first_turn_penalty and units.side[u] == ALLIED:
        ma = max(0, ma - 2)
    if units.side[u] == ALLIED and units.range_[u] > 0 and not ctx.night:
        ma = 0
    return 2 * ma


@dataclass
class StackInfo:
    """Per-search facts about a moving stack and the hexes around it (precomputed once per :func:`reach`)."""

    side: int
    cliff_ok: bool          # every unit a non-Disrupted commando (rules 8.35, 3.83)
    motor: bool             # any motorized unit (rule 8.33)
    armored: bool           # any armored unit (rules 3.33, 3.64)
    artillery: bool         # any artillery unit (rule 8.25)
    all_red: bool           # every unit red-box (rule 8.23)
    friend_any: np.ndarray  # bool[n]: other friendly units there
    friend_motor: np.ndarray
    friend_armor: np.ndarray


def stack_info(m: IMMap, units: UnitTable, pos: Position, stack) -> StackInfo:
    """Facts used by :func:`step_cost` for ``stack`` (units other than the stack count as 'friends')."""
    stack = np.asarray(stack, dtype=np.int64)
    side = int(units.side[stack[0]])
    others = pos.on_map() & (units.side == side)
    others[stack] = False
    fa = np.zeros(m.n, bool)
    fm = np.zeros(m.n, bool)
    fr = np.zeros(m.n, bool)
    fa[pos.hex[others]] = True
    fm[pos.hex[others & units.motorized]] = True
    fr[pos.hex[others & units.armored]] = True
    return StackInfo(side, bool((units.commando[stack] & ~pos.disrupted[stack]).all()),
                     bool(units.motorized[stack].any()), bool(units.armored[stack].any()),
                     bool((units.range_[stack] > 0).any()), bool((units.ma_class[stack] == RED).all()), fa, fm, fr)


def step_cost(m: IMMap, info: StackInfo, i: int, d: int, ctx: MoveContext, enemy_zoc: np.ndarray,
              enemy_occ: np.ndarray, start_in_zoc: bool, at_start: bool) -> int:
    """Cost (hmp) for a stack to move from hex ``i`` across side ``d``; :data:`BARRED` if not allowed.

    Implements rules 8.14 (no enemy hexes), 8.24 (ZOC to ZOC only via a free
    hex), 8.25 (artillery into enemy ZOC only with a friend there), 8.31
    (highest natural terrain), 8.33 (roads; motorized only on roads, urban,
    airfields; motorized pass through motorized only on main road, airfield,
    urban; one armored unit per hex, 3.33), 8.34 (urban to urban at road rate),
    8.35 (sea and cliff), 8.36 (slope, uphill only), 8.37 (other features free),
    8.21 (+1 MP for enemy ZOC).
    """
    if m.water[i, d]:
        return BARRED  # rule 8.35 sea hexside (every side off the map or touching a sea hex is one)
    j = int(m.nbr[i, d])
    if m.cliff[i, d] and not info.cliff_ok:
        return BARRED  # rule 8.35 cliff
    road = m.road[i, d]
    if info.motor and not (road > 0 or m.urban[j] or m.airfield[j]):
        return BARRED  # rule 8.33
    if enemy_occ[j]:
        return BARRED  # rule 8.14
    if info.motor and info.friend_motor[j] and not (road == 2 or m.urban[j] or m.airfield[j]):
        return BARRED  # rules 3.33, 8.33
    if info.armored and info.friend_armor[j]:
        return BARRED  # rules 3.33, 3.64
    if enemy_zoc[j]:
        if at_start and start_in_zoc and not info.all_red:
            return BARRED  # rule 8.24 (red-box units excepted, 8.23 and the ZOC example)
        if info.artillery and not info.friend_any[j]:
            return BARRED  # rule 8.25
    if road > 0 or (m.urban[i] and m.urban[j]):
        c = road_cost(info.side, ctx)
    else:
        c = m.terrain_cost(j) + (COST_SLOPE if m.slope_up[i, d] else 0)
    if enemy_zoc[j]:
        c += COST_ZOC
    return c


def reach(m: IMMap, units: UnitTable, pos: Position, stack, ctx: MoveContext = MoveContext(),
          start: int | None = None, ma_hmp: int | None = None) -> np.ndarray:
    """Least MP cost (hmp) for a stack to reach every hex this Movement Phase.

    Parameters
    ----------
    stack : sequence of int
        Units moving together; the stack uses the lowest MA (rule 8.12) and may
        only cross what every unit may cross.
    start : int, optional
        Start hex (default: the stack's hex).
    ma_hmp : int, optional
        Override the allowance (hmp).

    Returns
    -------
    ndarray of int64, shape (n_hexes,)
        Cost in hmp, ``INF`` where unreachable; the start hex costs 0.

    Raises
    ------
    OptionError
        If the stack is empty, split over hexes, or mixes sides.
    """
    stack = np.asarray(stack, dtype=np.int64)
    if stack.size == 0:
        raise OptionError("empty stack")
    if start is None:
        hs = set(int(h) for h in pos.hex[stack])
        if len(hs) != 1 or -1 in hs:
            raise OptionError("a stack must start together in one map hex (rule 8.12)")
        start = hs.pop()
    if len(set(int(s) for s in units.side[stack])) != 1:
        raise OptionError("a stack holds units of one side")
    side = int(units.side[stack[0]])
    enemy = 1 - side
    if ma_hmp is None:
        ma_hmp = min(movement_allowance(units, pos, int(u), ctx) for u in stack)
    ez = zoc_map(m, units, pos, enemy)
    eo = occupied(units, pos, enemy, m.n)
    info = stack_info(m, units, pos, stack)
    start_in_zoc = bool(ez[start])
    cost = np.full(m.n, INF, dtype=np.int64)
    cost[start] = 0
    if ma_hmp <= 0:
        return cost  # rule 8.15
    heap = [(0, start)]
    done = np.zeros(m.n, dtype=bool)
    while heap:
        c, i = heapq.heappop(heap)
        if done[i]:
            continue
        done[i] = True
        if i != start and ez[i]:
            # rule 8.22 stop; 8.23 red-box units go on through vacant ZOC hexes
            if not (info.all_red and not info.friend_any[i]):
                continue
        for d in range(6):
            j = m.nbr[i, d]
            if m.water[i, d] or done[j]:
                continue  # off the map or sea (rule 8.35), or settled
            sc = step_cost(m, info, i, d, ctx, ez, eo, start_in_zoc, i == start)
            if sc == BARRED:
                continue
            nc = c + sc
            if nc <= ma_hmp and nc < cost[j]:  # rules 8.13, 8.32
                cost[j] = nc
                heapq.heappush(heap, (nc, int(j)))
    return cost


def phases_to_reach(m: IMMap, units: UnitTable, pos: Position, stack, ctx: MoveContext = MoveContext(),
                    max_phases: int = 12) -> np.ndarray:
    """Movement Phases needed to reach each hex (turns-to-objective map when a
    formation moves once a turn).

    Phase ``k+1`` starts from every hex reachable in ``k`` phases with the same
    enemy position (rules 8.13: a unit moves once per phase; unused MPs are lost).

    Returns
    -------
    ndarray of int16, shape (n_hexes,)
        0 at the start hex, ``-1`` unreachable within ``max_phases``.
    """
    stack = np.asarray(stack, dtype=np.int64)
    start = int(pos.hex[stack[0]])
    out = np.full(m.n, -1, dtype=np.int16)
    out[start] = 0
    frontier = [start]
    for k in range(1, max_phases + 1):
        new = []
        for h in frontier:
            c = reach(m, units, pos, stack, ctx, start=h)
            for j in np.flatnonzero(c < INF):
                if out[j] < 0:
                    out[j] = k
                    new.append(int(j))
        if not new:
            break
        frontier = new
    return out


def move_stack(m: IMMap, units: UnitTable, pos: Position, stack, dest: int, ctx: MoveContext = MoveContext()) -> int:
    """Move a stack to ``dest`` if it can get there this phase (rules 8.11-8.13).

    Returns
    -------
    int
        Cost in hmp.

    Raises
    ------
    OptionError
        If ``dest`` is out of reach.
    """
    c = reach(m, units, pos, stack, ctx)
    if c[dest] >= INF:
        raise OptionError(f"hex {m.hid(dest)} is out of reach this Movement Phase")
    pos.hex[np.asarray(stack)] = dest
    return int(c[dest])
