"""Combat (rule 9), bombardment, night combat and penetration (rule 10),
artillery support (12.2), leaders in battle (14.2), formations (15.4).

Order inside a combat phase (9.2, 9.3): the active player places support,
bombardment and air markers; the inactive player places defensive support;
bombardments are resolved; then attacks one hex at a time, each with its
strength totals, odds, modifiers, CRT roll, step losses, standing ground,
morale effects, retreats and advance after combat.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from malta_sim.kernels import bombard as kbomb
from malta_sim.kernels import crt as kcrt
from malta_sim.iod import static as st
from malta_sim.iod.rules import artillery
from malta_sim.iod.rules import retreat_advance
from malta_sim.iod.rules import column_shifts
from malta_sim.iod.rules import combat_options
from malta_sim.iod.rules import morale
from malta_sim.iod.rules import movement
from malta_sim.iod.rules import organisation
from malta_sim.iod.game import illegal, units_in_run
from malta_sim.iod.state import AXIS, BOX_MAP, DEMORALIZED, DISORGANIZED, NORMAL, RAINY
from malta_sim.iod.static import odds_level, odds_name


def _ceil_half(v: int) -> int:
    return -(-int(v) // 2)


# The strength kernels are pure functions of a few small integers and flags:
# their answers are kept per argument tuple (a dict lookup instead of a
# compiled-function call per unit).
_unit_attack = functools.lru_cache(maxsize=None)(kcrt.unit_attack)
_unit_defense = functools.lru_cache(maxsize=None)(kcrt.unit_defense)
_support_strength = functools.lru_cache(maxsize=None)(kcrt.support_strength)


@dataclass
class PlanOptions:
    """What the active player may place in step 9.2 a.

    ``attack_targets``: enemy hexes that may be attacked; ``support``: target
    hex -> artillery/warships able to support an attack there; ``bombard``:
    target hex -> artillery/warships able to bombard it (10.1, 10.11);
    ``air_markers``: air support markers left (16.41); ``hurricane_ok``:
    artillery with two salvos (12.52); ``attackers``: target hex -> the units
    that may attack it (9.11-9.16) when the options were made, for each of
    ``attack_targets`` (:func:`attack_options` of that moment), or None when
    not given.
    """

    attack_targets: list = field(default_factory=list)
    support: dict = field(default_factory=dict)
    bombard: dict = field(default_factory=dict)
    air_markers: int = 0
    hurricane_ok: set = field(default_factory=set)
    attackers: dict | None = None


@dataclass
class AttackResult:
    """Record of one resolved attack (used by tests and the event log)."""

    target: int
    attack_total: int = 0
    defense_total: int = 0
    basic_level: int = 0
    modifiers: dict = field(default_factory=dict)
    final_level: int = 0
    line: int = -1
    column: int = -1
    roll: int = 0
    result: tuple = (0, 0, 0, 0)
    cancelled: bool = False
    defender_retreat: int = 0
    pending: int = 0
    advanced: list = field(default_factory=list)


# ------------------------------------------------------------------ eligibility
def defenders_in(game, h: int, side: int) -> list[int]:
    """Ground units of ``side`` in hex ``h`` that take part in its defense
    (leaders and coastal guns do not, 14.0, 16.57).

    Returns
    -------
    list of int
        Unit indices in ascending order.
    """
    tb = game.tables
    lo, hi = tb.side_run[side]           # the side's pieces are one run of indices
    idx = units_in_run(game.state.hex, int(h), lo, hi)
    if not len(idx):
        return []
    return idx[tb.defends_side[side][idx]].tolist()


def attackable(game, h: int, enemy: int) -> bool:
    """Rule 9.15: a hex may be attacked only if some defender has a defense
    strength above zero."""
    lev, dfn = game.state.level, game.tables.defense
    return any(dfn[u][lev[u]] > 0 for u in defenders_in(game, h, enemy))


def can_attack(game, u: int) -> bool:
    """Ground unit ``u`` may attack this phase (9.13, 9.16, 10.21, 19.7, 18.94)."""
    s, t = game.state, game.static
    if s.box[u] != BOX_MAP or s.attacked[u]:
        return False
    if not game.tables.attacker_type[u]:
        return False
    if t.attack[u, s.level[u]] <= 0:
        return False
    if s.entered_turn[u] == game.turn:
        return False
    if game.night and s.morale_state[u] == DEMORALIZED:
        return False
    return True


def attackers_now(game, side: int) -> np.ndarray:
    """Units of ``side`` that :func:`can_attack` accepts, in one pass.

    Rules 9.13, 9.16, 10.21, 19.7, 18.94: on the map, not yet attacked this
    phase, of a unit type that attacks, attack strength above zero at its
    level, not arrived this turn, not demoralized at night.

    Returns
    -------
    int64[k]
        Unit indices in ascending order (the order of ``game.on_map(side)``).
    """
    s, t = game.state, game.static
    return combat_options.attackers_kernel(s.box, s.attacked, s.entered_turn, s.morale_state, s.level,
                            game.tables.attacker_side[side], t.attack, game.turn, game.night)


_NOT_DEFENDING = (st.LEADER, st.COASTAL_GUN, st.WARSHIP)


def attackable_hexes(game, enemy: int) -> set:
    """Every hex that :func:`attackable` accepts for ``enemy``, in one pass.

    Rule 9.15: a hex may be attacked only if one of its defenders (ground
    units; not leaders, coastal guns or warships, 14.0, 16.57) has a defense
    strength above zero at its current level.

    Parameters
    ----------
    game : Game
    enemy : int
        Side of the defenders (AXIS 0, ALLIED 1).

    Returns
    -------
    set of int
        Dense hex indices; ``h in attackable_hexes(game, e)`` equals
        ``attackable(game, h, e)`` for every hex (both read the units' hexes
        only, so the answers agree on any state).
    """
    s, t = game.state, game.static
    idx = ((s.hex >= 0) & game.tables.defends_side[enemy]).nonzero()[0]
    ok = t.defense[idx, s.level[idx]] > 0
    return set(s.hex[idx[ok]].tolist())


def attack_options(game, side: int, units=None) -> dict:
    """target hex -> list of units that may attack it (9.11: adjacent, not
    across an all-ocean hexside; 9.15: the hex must be attackable).

    Parameters
    ----------
    side : int
        Attacking side.
    units : sequence of int, optional
        Candidate attackers; default every unit :func:`can_attack` accepts.

    Returns
    -------
    dict
        Target hex -> attacking units (int), targets in the order their first
        attacker (by candidate order) reaches them, each hex's neighbours
        taken in direction order.
    """
    s, t, tb = game.state, game.static, game.tables
    if units is None:
        use, cand = False, _NO_UNITS
    else:
        if not len(units):
            return {}
        use, cand = True, np.asarray(units, np.int64)
    order, start, flat = combat_options.attack_options_kernel(
        use, cand, s.box, s.attacked, s.entered_turn, s.morale_state, s.level, s.hex,
        tb.attacker_side[side], t.attack, tb.defends_side[1 - side], t.defense, tb.adj_table,
        game.turn, game.night)
    if not len(order):
        return {}
    flat = flat.tolist()
    start = start.tolist()
    return {h: flat[start[i]:start[i + 1]] for i, h in enumerate(order.tolist())}


#: no candidate units (the kernel's argument when it finds the candidates itself)
_NO_UNITS = np.zeros(0, np.int64)


def _firers(game, side: int) -> list[int]:
    """Artillery and warships of ``side`` that may fire (rules 12.4, 12.5,
    11.4, 12.23, 16.76, 17.7), in ascending order; only
    artillery and warships are asked (no other piece can fire), and the
    enemy ZOC map is made only when there is one to ask."""
    return _firer_array(game, side).tolist()


def _firer_array(game, side: int) -> np.ndarray:
    """:func:`_firers` as int64[F], from one pass for the candidates and one
    compiled test of them all (:func:`.combat_options.firers_kernel`; the
    inputs from :func:`_fire_inputs`)."""
    cand, ezoc, barred, ships_ok = _fire_inputs(game, side)
    if not len(cand):
        return cand
    s, t = game.state, game.static
    return combat_options.firers_kernel(cand, t.utype, s.hitched, s.salvos, s.morale_state, s.hex,
                         s.entered_turn, s.gun_fired_turn, ezoc, barred, ships_ok, game.turn)


def _fire_inputs(game, side: int) -> tuple:
    """What the compiled firing tests (:func:`.combat_options.firers_kernel`;
    rules 12.4, 12.5, 11.4, 12.23, 16.73, 16.76, 17.7, 18.4) read besides the
    state arrays.

    Returns
    -------
    cand : int64[C]
        Artillery and warships of ``side`` on the map that have not fired
        (:func:`.combat_options.firer_candidates`), ascending.
    ezoc : bool[n_hexes]
        The enemy's ZOC map, made only when there is a candidate (else an
        all-False map that is never read).
    barred : bool[n_units]
        The rare reasons held in Python, as a mask: a warship whose
        communications roll failed this turn (16.73), Allied artillery held
        back by rule 17.7 on the first two turns (read only).
    ships_ok : bool
        Warships may fire: day, weather not rainy (16.76).
    """
    s, t = game.state, game.static
    cand = combat_options.firer_candidates(s.box, s.fired, game.tables.firer_side[side])
    n = len(s.box)
    ships_ok = not game.night and int(s.weather[0]) != RAINY
    if not len(cand):
        ezoc = _NO_ZOC.get(t.n_hexes)
        if ezoc is None:
            ezoc = _NO_ZOC[t.n_hexes] = np.zeros(t.n_hexes, bool)
        return cand, ezoc, _no_bar(n), ships_ok
    ezoc = movement.zoc_map(game, 1 - side)
    turn = game.turn
    failed = failed_communications(game)
    if failed or (side == 1 and turn <= 1):
        barred = _barred(game, cand, failed)
    else:
        barred = _no_bar(n)
    return cand, ezoc, barred, ships_ok


def failed_communications(game) -> set | None:
    """Rule 16.73: the warships whose communications roll failed this turn
    (a set of unit indices), or None when there are none."""
    s = game.state
    hit = (s.comm_failed_turn == s.turn[0]).nonzero()[0]
    return set(hit.tolist()) if len(hit) else None


def _barred(game, cand: np.ndarray, failed) -> np.ndarray:
    """The ``barred`` mask of :func:`_fire_inputs` (read only): among the
    candidates ``cand``, warships in the set ``failed`` (their
    communications roll failed this turn, rule 16.73; None or empty: none)
    and Allied pieces that rule 17.7 holds back.

    The rule 17.7 map is looked up once for all candidates
    (:func:`.special._may_act_map`, the map behind
    :func:`.special.delayed_reaction_ok`)."""
    from malta_sim.iod.rules.special_rules import _may_act_map, delayed_reaction_radius

    s, t = game.state, game.static
    barred = np.zeros(len(s.box), bool)
    turn = int(s.turn[0])
    radius = -1 if turn > 1 else delayed_reaction_radius(
        turn, getattr(game.scenario, "name", "hercules"))
    may_act = None
    utype, uside = game.tables.utype, game.tables.side
    for u in cand.tolist():
        if utype[u] == st.WARSHIP:
            barred[u] = bool(failed) and u in failed                  # 16.73
        elif uside[u] == 1 and radius >= 0:
            if may_act is None:
                may_act = _may_act_map(game, radius)
            barred[u] = not may_act[int(s.hex[u])]                    # 17.7
    barred.flags.writeable = False
    return barred


def _no_bar(n: int) -> np.ndarray:
    """The all-False "barred" mask of ``n`` pieces (read only, shared)."""
    barred = _NO_BAR.get(n)
    if barred is None:
        barred = _NO_BAR[n] = np.zeros(n, bool)
        barred.flags.writeable = False
    return barred


#: an all-False ZOC map per number of hexes, handed to the kernels when no
#: piece can fire (they do not read it then; never written)
_NO_ZOC: dict = {}
#: an all-False "barred" mask per number of pieces (:func:`_firer_array`)
_NO_BAR: dict = {}


def _ground_hexes(game, side: int) -> np.ndarray:
    """Sorted distinct hexes holding ground units of ``side`` (10.11)."""
    s = game.state
    m = (s.box == BOX_MAP) & game.tables.ground & game.tables.side_mask[side]
    return np.unique(s.hex[m])


def discovered(game, h: int, side: int) -> bool:
    """Rule 10.11: an enemy hex is discovered by ``side`` when adjacent to one
    of its units, or (day) within two hexes with no town, city or woods in the
    enemy hex or in a hex between."""
    return _discovered_from(game, h, _ground_hexes(game, side))


def _discovered_from(game, h: int, hx: np.ndarray) -> bool:
    """:func:`discovered` with the hexes ``hx`` of the side's ground units
    given (rule 10.11)."""
    if not len(hx):
        return False
    t = game.static
    dist = t.grid.distance_table
    d = dist[h, hx]
    if (d == 1).any():
        return True
    if game.night:
        return False
    blocks = t.town | t.city | t.woods
    if blocks[h]:
        return False
    for f in hx[d == 2]:
        mids = [int(m) for m in t.neighbours[h] if m >= 0 and dist[m, f] == 1]
        if any(not blocks[m] for m in mids):
            return True
    return False


def discovered_hexes(game, hexes, side: int) -> np.ndarray:
    """:func:`discovered` for many enemy hexes at once (rule 10.11).

    Parameters
    ----------
    hexes : sequence of int, length T
        Dense hex indices of enemy hexes.
    side : int
        The side looking.

    Returns
    -------
    bool[T]
        ``discovered(game, hexes[i], side)`` for each ``i``.
    """
    hexes = np.asarray(hexes, np.int64)
    hx = _ground_hexes(game, side)
    if not len(hx) or not len(hexes):
        return np.zeros(len(hexes), bool)
    t = game.static
    return combat_options.discovered_kernel(hexes, hx.astype(np.int64), t.grid.distance_table, t.neighbours,
                             game.tables.sight_blocking, bool(game.night))


def plan_options(game, side: int) -> PlanOptions:
    """Legal choices of step 9.2 a for ``side`` (9.11, 9.15, 10.1, 10.11,
    12.2, 12.52, 16.41), from one compiled pass
    (:func:`.combat_options.plan_kernel`)."""
    s, t, tb = game.state, game.static, game.tables
    opts = PlanOptions()
    cand, ezoc, barred, ships_ok = _fire_inputs(game, side)
    atk, a_ptr, a_idx, firers, s_ptr, s_idx, b_tgt, b_ptr, b_idx = combat_options.plan_kernel(
        s.box, s.attacked, s.entered_turn, s.morale_state, s.level, s.hex, tb.attacker_side[side],
        t.attack, tb.defends_side[1 - side], t.defense, tb.adj_table, game.turn, game.night,
        cand, t.utype, s.hitched, s.salvos, s.gun_fired_turn, ezoc, barred, ships_ok,
        t.art_range, t.grid.distance_table, t.neighbours, tb.sight_blocking,
        tb.ground_side[side])
    targets = opts.attack_targets = atk.tolist()
    a_ptr = a_ptr.tolist()
    a_idx = a_idx.tolist()
    opts.attackers = {h: a_idx[a_ptr[i]:a_ptr[i + 1]] for i, h in enumerate(targets)}
    s_ptr = s_ptr.tolist()
    s_idx = s_idx.tolist()
    opts.support = {h: s_idx[s_ptr[i]:s_ptr[i + 1]] for i, h in enumerate(targets)}
    if len(b_tgt):
        # 10.1: bombard any attackable enemy hex that is discovered (10.11),
        # in ascending hex order
        b_ptr = b_ptr.tolist()
        b_idx = b_idx.tolist()
        opts.bombard = {h: b_idx[b_ptr[i]:b_ptr[i + 1]] for i, h in enumerate(b_tgt.tolist())}
    if side == AXIS and not game.night:
        opts.air_markers = int(s.air_support_left[0])
    utype, salvos = t.utype, s.salvos
    opts.hurricane_ok = {u for u in firers.tolist() if utype[u] == st.ARTILLERY and salvos[u] >= 2}
    return opts


def defensive_options(game, side: int, threatened) -> dict:
    """Step 9.2 b: own hex -> artillery/warships of ``side`` able to support
    it (rules 12.2, 12.4, 12.5, 16.73, 16.76, 17.7), hexes in the order of
    ``threatened``, from one compiled call
    (:func:`.combat_options.defense_kernel`)."""
    cand, ezoc, barred, ships_ok = _fire_inputs(game, side)
    out = {}
    if not len(cand):
        return out
    threatened = [int(h) for h in threatened]
    if not threatened:
        return out
    s, t = game.state, game.static
    _f, ptr, idx = combat_options.defense_kernel(np.array(threatened, np.int64), cand, t.utype, s.hitched,
                                  s.salvos, s.morale_state, s.hex, s.entered_turn,
                                  s.gun_fired_turn, ezoc, barred, ships_ok, game.turn,
                                  t.art_range, t.grid.distance_table)
    ptr = ptr.tolist()
    idx = idx.tolist()
    for i, h in enumerate(threatened):
        if ptr[i + 1] > ptr[i]:
            out[h] = idx[ptr[i]:ptr[i + 1]]
    return out


def _validate_plan(game, side, plan, opts) -> None:
    s, t = game.state, game.static
    used = set()
    for kind, d in (("support", plan.support), ("bombard", plan.bombard)):
        for tgt, units in d.items():
            allowed = getattr(opts, kind).get(int(tgt), [])
            for u in units:
                if u not in allowed:
                    raise illegal("9.2", f"{t.names[u]} cannot {kind} hex {game.hex_name(tgt)}")
                if u in used:
                    raise illegal("10.1", f"{t.names[u]} placed twice")
                used.add(u)
            ships = [u for u in units if t.utype[u] == st.WARSHIP]
            if ships and len(ships) != len(units):
                raise illegal("16.74" if kind == "support" else "10.13",
                              "warships and artillery may not fire at the same hex")
            if kind == "support" and len(ships) > 3:
                raise illegal("16.74", "at most three warships support an attack")
    if sum(plan.air.values()) > opts.air_markers:
        raise illegal("16.41", "more air support markers than available")
    for tgt in plan.air:
        if tgt not in opts.attack_targets:
            raise illegal("16.42", "air support may only be placed on a hex under attack")
    for u in plan.hurricane:
        if u not in opts.hurricane_ok or u not in used:
            raise illegal("12.52", f"{t.names[u]} cannot fire a fire hurricane")


# ------------------------------------------------------------------ strengths (9.91)
def attack_strength(game, u: int) -> int:
    """Modified attack strength of unit ``u`` (9.91, 8.31, 8.4, 11.3, 11.4),
    computed by :func:`malta_sim.kernels.crt.unit_attack` (read from
    :func:`_attack_rows`)."""
    s = game.state
    rows = _ATTACK_ROWS.get(game.tables.attack[u][s.level[u]])
    if rows is None:
        rows = _attack_rows(game.tables.attack[u][s.level[u]])
    return rows[1 if s.out_of_supply[u] else 0][s.morale_state[u]]


#: _attack_rows answers per printed attack strength
_ATTACK_ROWS: dict = {}


def _attack_rows(base: int) -> tuple:
    """Modified attack strengths (9.91, 8.31, 8.4, 11.3, 11.4) of a unit of
    printed attack strength ``base``: ``rows[out_of_supply][morale_state]``
    (morale state NORMAL, DISORGANIZED, DEMORALIZED), from
    :func:`malta_sim.kernels.crt.unit_attack`; worked out once per value."""
    rows = tuple(tuple(_unit_attack(base, oos, m == DISORGANIZED, m == DEMORALIZED)
                       for m in (NORMAL, DISORGANIZED, DEMORALIZED)) for oos in (False, True))
    _ATTACK_ROWS[base] = rows
    return rows


def defense_strength(game, u: int) -> int:
    """Modified defense strength of unit ``u`` (9.91: halved when demoralized,
    11.4), computed by :func:`malta_sim.kernels.crt.unit_defense`."""
    s = game.state
    return _unit_defense(game.tables.defense[u][s.level[u]], int(s.morale_state[u]) == DEMORALIZED)



def support_value(game, u: int, offensive: bool, target: int, combat_units, hurricane=False) -> int:
    """One artillery unit's or warship's support (9.91, 8.32, 11.3, 11.4,
    12.22, 10.22, 12.52), computed by
    :func:`malta_sim.kernels.crt.support_strength`: the unit's state first (out
    of supply -1, min 1; disorganized -1, min 2), then a fire hurricane doubles
    offensive support, then other formation, night and offensive fire into a
    city or town each halve (fractions up).  Warships and coastal guns take
    neither the state penalties nor the formation halving."""
    s, t = game.state, game.static
    v = int(t.off_support[u] if offensive else t.def_support[u])
    is_art = bool(t.utype[u] == st.ARTILLERY)
    other = bool(
        is_art
        and t.side[u] == AXIS
        and not any(s.formation[c] == s.formation[u] for c in combat_units)
    )
    return int(
        _support_strength(
            v,
            is_art and bool(s.out_of_supply[u]),
            is_art and bool(s.morale_state[u] == DISORGANIZED),
            False,  # demoralized artillery is never offered as a supporter (11.4)
            bool(game.night),
            other,
            bool(offensive and (t.city[target] or t.town[target])),
            bool(hurricane and offensive and is_art),
            not is_art,
        )
    )


# ------------------------------------------------------------------ modifiers (9.92)
def _command_roll(game, side: int, units, target: int, sign: int) -> int:
    """Rules 14.2, 14.21, 15.3: one leader of ``side`` stacked with or next to a
    unit of its formation in the combat rolls one die; <= tactical value gives
    ``sign`` (+1 attacking, -1 defending).
    The leader is :func:`_command_leader`'s."""
    return _command_die(game, side, _command_leader(game, side, units), sign)


def _command_leader(game, side: int, units):
    """Rules 14.2, 14.21, 15.3: ``(leader, tactical value)`` of the leader of
    ``side`` who commands in a combat of ``units`` (list of int), or None: on
    the map, used fewer than twice this phase, stacked with or next to a unit
    of its printed formation among ``units``; the highest tactical value, the
    lowest index on ties.  Walks the side's leaders from the static table
    (``StaticTables.leaders_side``, ascending) and reads each unit's
    formation and hex once."""
    s, t, tb = game.state, game.static, game.tables
    box, uses = s.box, s.leader_uses
    best = None
    fu = None
    for ld in tb.leaders_side[side]:
        if box[ld] != BOX_MAP or uses[ld] >= 2:
            continue
        if fu is None:
            if not len(units):
                return None
            form, hexa = s.formation, s.hex
            fu = [(int(form[u]), int(hexa[u])) for u in units]
            dist = t.grid.distance_table
            pf = tb.printed_formation_l
        f = pf[ld]
        drow = dist[int(s.hex[ld])]
        for uf, uh in fu:
            if uf == f and drow[uh] <= 1:
                tv = int(t.tactical[ld, s.level[ld]])
                if best is None or tv > best[1]:
                    best = (ld, tv)
                break
    return best


def _command_die(game, side: int, best, sign: int) -> int:
    """The command roll of :func:`_command_roll` for the leader ``best``
    (``(leader, tactical value)`` or None: no roll, 0); rules 14.2, 14.21."""
    if best is None:
        return 0
    s = game.state
    ld, tv = best
    s.leader_uses[ld] += 1
    die = game.die("leaders")
    if game.events is not None:
        game.log("command roll", side=side, units=[ld], dice=[die],
                 result="success" if die <= tv else "no effect", rule="14.2")
    return sign if die <= tv else 0


#: The keys of :func:`odds_modifiers` for the parts of
#: :func:`.column_shifts.odds_parts`, in their order.
_ODDS_PARTS = ("armor_attacking", "armor_defending", "engineers", "envelopment",
               "attacker_integrity", "defender_integrity", "mixed_formations", "morale")


def odds_modifiers(game, side, attackers, defenders, target, air=0, roll_leaders=True) -> dict:
    """Odds-level modifiers of rule 9.92 (+ 11.2, 11.4, 14.2, 15.4, 16.24,
    16.42, 17.32) of an attack.

    Parameters
    ----------
    game : Game
    side : int
        Attacking side.
    attackers, defenders : sequence of int
        Units attacking and defending.
    target : int
        Dense index of the attacked hex.
    air : int
        Air support markers on the attack (16.42).
    roll_leaders : bool
        Roll the leaders' command checks (14.2, 15.4; uses the combat dice).

    Returns
    -------
    dict
        Modifier name -> odds levels, only the modifiers that apply, in the
        order armor attacking/defending, engineers, envelopment, attacker/
        defender integrity, mixed formations, morale, air support, attacker/
        defender command.  The terrain-free modifiers come from one compiled
        call (:func:`.column_shifts.odds_parts`).
    """
    parts = column_shifts.odds_modifier_parts(game, attackers, defenders, target)
    m = {}
    for name, v in zip(_ODDS_PARTS, parts):
        if v:
            m[name] = v
    return _air_and_command(game, m, side, attackers, defenders, target, air, roll_leaders)


def _air_and_command(game, m: dict, side, attackers, defenders, target, air,
                     roll_leaders) -> dict:
    """The last two odds modifiers of :func:`odds_modifiers` added to ``m``:
    air support (16.42) and, when ``roll_leaders``, the leaders' command
    rolls of attacker and defender (14.2, 14.21, 15.3; these draw dice).
    Returns ``m``."""
    if air:
        m["air_support"] = int(air)
    if roll_leaders:
        c = _command_roll(game, side, attackers, target, +1)
        if c:
            m["attacker_command"] = c
        c = _command_roll(game, 1 - side, defenders, target, -1)
        if c:
            m["defender_command"] = c
    return m


# ------------------------------------------------------------------ CRT lookup
def crt_line(game, target: int) -> int:
    """Rule 9.3 f / 10.2: night line at night, else the hex's day line (the
    fort ignored once destroyed, 17.1); :func:`malta_sim.kernels.crt.crt_line_of`
    on the hex's lines."""
    s, t = game.state, game.static
    return int(kcrt.crt_line_of(game.night, int(t.charts.night_line), bool(s.fort_destroyed[target]),
                                int(t.crt_line[target]), int(t.crt_line_nofort[target])))


#: crt_column answers per (charts, line, level); the charts object is kept
#: with its answers so that its id stays its own
_CRT_COLUMNS: dict = {}


def crt_column(charts, line: int, level: int) -> int:
    """Rule 9.3 g: highest column at or below ``level`` on ``line``; -1 when
    below the line's lowest column (attack cancelled); capped at its highest
    (:func:`malta_sim.kernels.crt.final_column`).

    The charts are static data, so each answer is worked out once and kept."""
    memo = _CRT_COLUMNS.get(id(charts))
    if memo is None or memo[0] is not charts:
        if len(_CRT_COLUMNS) > 16:
            _CRT_COLUMNS.clear()
        memo = _CRT_COLUMNS[id(charts)] = (charts, {})
    key = (line, level)
    c = memo[1].get(key)
    if c is None:
        c = memo[1][key] = int(kcrt.final_column(level, line, charts.line_cols, charts.col_level))
    return c


# ------------------------------------------------------------------ losses
def take_steps(game, units, n: int, reason: str, engineers_first: int = 0) -> int:
    """The owner takes ``n`` step losses among ``units`` (9.5, 9.52); the first
    ``engineers_first`` fall on engineers while any remain (9.92).  Leader
    casualty rolls per hex that lost steps (14.41).  Returns the steps that
    could not be taken (every unit gone).

    The owner's bot chooses each step (``choose_loss``) among the pieces
    still on the map; the engine checks the choice."""
    s, t = game.state, game.static
    if n <= 0:
        return 0
    side = int(t.side[units[0]]) if len(units) else 0
    lost_by_hex: dict[int, int] = {}
    left = n
    pol = game.policy(side)
    for i in range(n):
        alive = [u for u in units if s.box[u] == BOX_MAP]
        if not alive:
            break
        if i < engineers_first:
            eng = [u for u in alive if t.engineer[u]]
            if eng:
                alive = eng
        u = int(pol.choose_loss(game, alive, reason))
        if u not in alive:
            raise illegal("9.5", f"{t.names[u]} cannot take this step loss")
        h = int(s.hex[u])
        organisation.lose_step(game, u, reason)
        lost_by_hex[h] = lost_by_hex.get(h, 0) + 1
        left -= 1
    if lost_by_hex:
        hexa = s.hex
        leaders = game.tables.leaders_side[side]
        for h, k in lost_by_hex.items():
            # the side's leaders in hex h, ascending (game.units_at(h, side)'s leaders)
            here = [ld for ld in leaders if hexa[ld] == h]
            for ld in here:
                organisation.leader_casualty_roll(game, ld, k)
    movement.invalidate(game)
    return left


# ------------------------------------------------------------------ retreat (9.6)
def _enterable(game, units, a: int, d: int) -> bool:
    t = game.static
    b = int(t.neighbours[a, d])
    if b < 0 or not t.land[b] or t.ocean_side[a, d]:
        return False
    for u in units:
        if t.utype[u] == st.LEADER:
            continue
        c = int(t.move_class[u])
        if t.move_cost[b, c] >= 99:
            return False
        if t.rise[a, d] and not t.road[a, d] and t.rise_cost[c] >= 99:
            return False
    return True


def retreat_stack(game, units, n: int, enemy_hexes) -> None:
    """Retreat the stack ``units`` (one hex) ``n`` hexes (9.6, 9.61, 9.62, 7.3).

    Each hex is chosen among the best-ranked neighbours: (1) not in enemy ZOC,
    (2) one hex farther from every enemy unit in the combat, (3) friendly-
    occupied in enemy ZOC, (4) empty in enemy ZOC; never an enemy-occupied hex
    (except leaders/coastal guns/zero-defense pieces, which are overrun) or
    prohibited terrain; then preferring hexes farther from the enemy and, at
    the end, hexes within the stacking limit (7.3, going on at most three
    more hexes to reach one).  No eligible hex: the stack is eliminated.  Each
    hex in enemy ZOC entered costs the stack a step (9.62).
    """
    s, t = game.state, game.static
    units = [int(u) for u in units if s.box[u] == BOX_MAP]
    if not units or n <= 0:
        return
    side = int(t.side[units[0]])
    dist = t.grid.distance_table
    tb = game.tables
    eh = np.array(sorted(int(e) for e in enemy_hexes), np.int64)
    cur = int(s.hex[units[0]])
    visited = np.zeros(t.n_hexes, bool)
    visited[cur] = True
    steps = 0
    extra = 0
    path = [cur]
    while True:
        zoc = movement.zoc_map(game, 1 - side)
        block = _blocking_next_to(game, cur, 1 - side)
        # the neighbours the stack may enter, ranked (9.61), best ones kept
        # (on the last hex those within the stacking limit, 7.3), in one call
        last = steps + 1 >= n
        n_cands, opts = retreat_advance.retreat_options(
            cur, np.array(units, np.int64), visited, block, zoc, eh, last, s.hex, s.level,
            tb.side_mask[side], tb.base_weight, tb.remnant_level_full, t.neighbours, t.land,
            t.ocean_side, t.move_class, t.move_cost, t.rise, t.road, t.rise_cost, t.utype, dist)
        if not n_cands:
            for u in units:
                if s.box[u] == BOX_MAP:
                    organisation.eliminate(game, u, why="no retreat (9.61)")
            if game.events is not None:
                game.log("retreat impossible", side=side, hexes=path, units=units, rule="9.61")
            movement.invalidate(game)
            return
        opts = opts.tolist()
        b = int(game.policy(side).choose_retreat(game, units, opts)) if len(opts) > 1 else opts[0]
        if b not in opts:
            raise illegal("9.61", f"retreat into {game.hex_name(b)} is not allowed")
        for u in units:
            if s.box[u] == BOX_MAP:
                s.hex[u] = b
        alive = [u for u in units if s.box[u] == BOX_MAP]
        movement.enter_hex(game, alive, b, "retreat")
        visited[b] = True
        path.append(b)
        cur = b
        steps += 1
        if zoc[b]:
            take_steps(game, [u for u in units if t.utype[u] != st.LEADER], 1, "retreat through ZOC (9.62)")
        units = [u for u in units if s.box[u] == BOX_MAP]
        if not [u for u in units if t.utype[u] != st.LEADER]:
            break
        if steps >= n:
            if organisation.fits_stacking(game, units, cur) or extra >= 3:
                break
            extra += 1
    if game.events is not None:
        game.log("retreat", side=side, hexes=path, units=units, result=f"{steps} hexes", rule="9.6")
    movement.invalidate(game)


# ------------------------------------------------------------------ one attack
def resolve_attack(game, side: int, target: int, attackers, support=(), air: int = 0,
                   hurricane=(), dsupport=(), penetration: bool = False,
                   fixed_roll: int | None = None, drop: bool = False) -> AttackResult:
    """Resolve one attack on hex ``target`` (rules 9.3-9.8, 10.2, 12.2, 12.51).

    Parameters
    ----------
    side : int
        Attacking side.
    attackers : list of int
        Attacking ground units (adjacent to ``target``).
    support, dsupport : list of int
        Offensive / defensive artillery or warships (placed in 9.2).
    air : int
        Air support markers on the hex (16.42).
    hurricane : iterable of int
        Supporting artillery firing a fire hurricane (12.52).
    fixed_roll : int, optional
        Use this 2d6 total (tests of the rulebook examples).
    drop : bool
        A hostile landing (rules 19.5, 19.51, 19.53): the units that jumped
        into ``target`` attack the enemy units there with no support of any
        kind, take every hit as a step loss (none as a retreat) and never
        advance after combat; otherwise the combat is resolved normally.

    Returns
    -------
    AttackResult
        ``cancelled`` when the odds fall below the line's lowest column (9.3 g;
        for a hostile landing the landed units are then eliminated, 19.53).
    """
    if drop and (support or dsupport or air):
        raise illegal("19.51", "no air, artillery or warship support in a hostile landing")
    s, t = game.state, game.static
    attackers = [int(u) for u in attackers]
    support = [int(u) for u in support]
    dsupport = [int(u) for u in dsupport]
    hurricane = set(int(u) for u in hurricane)
    enemy = 1 - side
    defenders = defenders_in(game, target, enemy)
    res = AttackResult(target=int(target))
    night = game.night
    # read only by the night rule (10.21) below
    was_disorg = {u: s.morale_state[u] != NORMAL for u in attackers + support} if night else None
    for u in attackers:
        s.attacked[u] = True
    # 9.3 b-c: totals, modified (attack_strength, defense_strength) and
    # printed, one pass per side
    tb = game.tables
    mor, lev = s.morale_state, s.level
    a_tab, d_tab = tb.attack, tb.defense
    att = printed_att = 0
    for u in attackers:
        att += attack_strength(game, u)                               # 9.91, 8.31, 8.4, 11.3, 11.4
        printed_att += a_tab[u][lev[u]]
    dfn = printed_def = 0
    for u in defenders:
        base = d_tab[u][lev[u]]
        dfn += _unit_defense(base, int(mor[u]) == DEMORALIZED)               # 9.91, 11.4
        printed_def += base
    dfn = int(kcrt.hex_defense(dfn, bool(t.city[target]),
                               bool(t.fort[target] and not s.fort_destroyed[target])))   # 9.91

    def sup_total(units, offensive, cu):
        v = sum(support_value(game, u, offensive, target, cu, u in hurricane) for u in units)
        return min(v, int(kcrt.support_cap(offensive, printed_att, printed_def)))   # 12.21, 16.74

    # 16.73: communications roll for warships
    failed = set()
    utype = tb.utype
    for u in support + dsupport:
        if utype[u] == st.WARSHIP:
            die = game.die("combat")
            if die <= 3:
                failed.add(u)
                s.comm_failed_turn[u] = game.turn                     # no fire this turn
            if game.events is not None:
                game.log("warship communications", side=int(t.side[u]), units=[u], dice=[die],
                         result="failed" if die <= 3 else "ok", rule="16.73")
    support_ok = [u for u in support if u not in failed]
    dsupport_ok = [u for u in dsupport if u not in failed]
    att_total = att + sup_total(support_ok, True, attackers)
    def_total = dfn + sup_total(dsupport_ok, False, defenders)
    res.attack_total, res.defense_total = att_total, def_total
    res.basic_level = odds_level(att_total, def_total)
    mods = odds_modifiers(game, side, attackers, defenders, target, air)
    res.modifiers = mods
    res.final_level = res.basic_level + sum(mods.values())
    line = crt_line(game, target)
    col = crt_column(t.charts, line, res.final_level)
    res.line, res.column = line, col
    for u in support_ok:
        s.fired[u] = True
    if col < 0:
        res.cancelled = True
        if game.events is not None:
            game.log("attack cancelled", side=side, hexes=[target], units=attackers,
                     cell=f"{t.charts.line_names[line]} {odds_name(res.final_level)}", rule="9.3")
        return res
    roll = fixed_roll if fixed_roll is not None else game.dice2("combat")
    res.roll = roll
    fort = bool(t.fort[target]) and not s.fort_destroyed[target]
    ah, ae, dh, de = kcrt.crt_cell(t.charts.crt, line, col, roll, fort)   # 9.4, 9.94
    ah, ae, dh, de = int(ah), int(ae), int(dh), int(de)
    res.result = (ah, ae, dh, de)
    if game.events is not None:            # the entry's text is made only when it is kept
        game.log("hostile landing attack" if drop else "attack", side=side, hexes=[target],
                 units=attackers + defenders, dice=[roll],
                 cell=f"{t.charts.line_names[line]} {t.charts.crt_columns[col]}",
                 result=f"{ah}{'DZ'[ae - 1] if ae else ''}/{dh}{'DZ'[de - 1] if de else ''} "
                        f"att {att_total} def {def_total} mods {mods}", rule="19.51" if drop else "9.3")
    _apply_results(game, side, target, attackers, defenders, ah, ae, dh, de, mods, res, drop)
    # 10.21: night attackers (and their support) become disorganized / demoralized
    if night:
        for u in attackers + support_ok:
            if s.box[u] != BOX_MAP:
                continue
            hit = (ae > 0) if u in attackers else False
            if was_disorg[u] or hit:
                if s.morale_state[u] != DEMORALIZED:
                    s.morale_state[u] = DEMORALIZED
            else:
                morale.disorganize(game, [u])
    # 12.51 / 12.52 ammunition
    for u in support_ok:
        if u in hurricane:
            artillery.expend(game, u, 2)
            morale.disorganize(game, [u])
        else:
            artillery.expend(game, u, 1)
    for u in dsupport_ok:
        artillery.defensive_expend(game, u)
    movement.invalidate(game)
    return res


def _apply_results(game, side, target, attackers, defenders, ah, ae, dh, de, mods, res,
                   drop: bool = False) -> None:
    """Rules 9.41-9.43, 9.51, 9.7, 9.6, 9.8 for one combat result (with
    ``drop``: the attacker's hits all step losses and no advance, 19.51, 19.53)."""
    s, t = game.state, game.static
    # 9.42, 9.43, 9.51: steps and retreats of both sides, the order of damage
    # and the excess-loss rule (malta_sim.kernels.crt.apply_hits)
    a_avail = sum(game.steps(u) for u in attackers if s.box[u] == BOX_MAP)
    d_avail = sum(game.steps(u) for u in defenders if s.box[u] == BOX_MAP)
    att_steps, att_ret, def_steps, def_ret, _att_left, pending_def = (
        int(x) for x in kcrt.apply_hits(ah, dh, a_avail, d_avail, drop))
    eng_first = -(-att_steps // 2) if "engineers" in mods else 0      # 9.92
    order = ("def", "att") if dh >= ah else ("att", "def")            # 9.51
    for who in order:
        if who == "def":
            take_steps(game, defenders, def_steps, "combat")
        else:
            take_steps(game, attackers, att_steps, "combat", eng_first)
    defenders_alive = [u for u in defenders if s.box[u] == BOX_MAP]
    attackers_alive = [u for u in attackers if s.box[u] == BOX_MAP]
    # 9.7 standing ground (before D/Z effects)
    def_retreating = _stand_ground(game, 1 - side, defenders_alive, def_ret, attacker=False)
    att_retreating = _stand_ground(game, side, attackers_alive, att_ret, attacker=True)
    # 9.41 morale effects
    for units, eff in ((attackers_alive, ae), (defenders_alive, de)):
        alive = [u for u in units if s.box[u] == BOX_MAP]
        if eff == 1:
            morale.disorganize(game, alive)
        elif eff == 2:
            morale.demoralize(game, alive)
    # 9.6 retreats: defenders first, as a stack, with their leaders (14.3)
    att_hexes = {int(s.hex[u]) for u in attackers if s.box[u] == BOX_MAP}
    def_retreating = [u for u in def_retreating if s.box[u] == BOX_MAP]
    if def_retreating and def_ret > 0:
        stay = [u for u in defenders if s.box[u] == BOX_MAP and u not in def_retreating]
        stack = list(def_retreating)
        if not stay:
            stack += _leaders_in(game, target, 1 - side)
        retreat_stack(game, stack, def_ret, att_hexes)
        res.defender_retreat = def_ret
    att_retreating = [u for u in att_retreating if s.box[u] == BOX_MAP]
    if att_retreating and att_ret > 0:
        by_hex: dict[int, list[int]] = {}
        for u in att_retreating:
            by_hex.setdefault(int(s.hex[u]), []).append(u)
        for h, us in by_hex.items():
            rest = [int(x) for x in game.units_at(h, side)
                    if int(x) not in us and t.utype[x] not in (st.LEADER, st.WARSHIP)]
            if not rest:   # 14.3: a leader left with no unit retreats with the stack
                us = us + _leaders_in(game, h, side)
            retreat_stack(game, us, att_ret, {target})
    res.pending = pending_def
    # 9.8 advance after combat (never from a hostile landing, 19.53)
    if not drop and not [u for u in defenders_in(game, target, 1 - side)
            if t.defense[u, s.level[u]] > 0]:
        stayers = [u for u in attackers if s.box[u] == BOX_MAP and u not in att_retreating]
        length = max(res.defender_retreat, pending_def, 1)
        advance_after_combat(game, side, target, stayers, length, res)


def _stand_ground(game, side: int, units, hits: int, attacker: bool) -> list[int]:
    """Rule 9.7 (9.63, 9.72, 12.24, 16.23, 16.34): returns the units that
    retreat.  Units that cannot move stand without a roll; otherwise the owner
    may roll one die (-1 for units with their formation leader): units with
    morale above it stand.  Standing units take all remaining hits as steps."""
    s, t = game.state, game.static
    if hits <= 0 or not units:
        return []
    forced = [u for u in units if _ma_zero(game, u)]
    free = [u for u in units if u not in forced]
    standing = list(forced)
    retreating = list(free)
    if free and game.policy(side).stand_ground(game, free, hits, attacker):
        die = game.die("combat")
        retreating = []
        for u in free:
            ld = t.formation_leader[s.formation[u]] if s.formation[u] >= 0 else -1
            with_leader = bool(ld >= 0 and s.box[ld] == BOX_MAP and s.hex[ld] == s.hex[u])
            stands = kcrt.stands_ground(die, game.morale_value(u), with_leader)          # 9.71
            (standing if stands else retreating).append(u)
        if game.events is not None:
            game.log("stand ground", side=side, units=free, dice=[die],
                     result=f"{len(free) - len(retreating)} stand", rule="9.71")
    if standing:
        take_steps(game, standing, hits, "stood ground (9.71)")
    return retreating


def _ma_zero(game, u: int) -> bool:
    """The piece cannot move (movement allowance zero): strongpoints,
    militia, coastal guns, prepared artillery (12.11), or a printed allowance
    of zero at its level (9.81, 9.63)."""
    tb = game.tables
    ut = tb.utype[u]
    if ut in _NO_MA:
        return True
    if ut == st.ARTILLERY:
        return not game.state.hitched[u]
    return tb.ma[u][game.state.level[u]] <= 0


#: unit types that never move (strongpoints, militia, coastal guns)
_NO_MA = (st.STRONGPOINT, st.MILITIA, st.COASTAL_GUN)


def _leaders_in(game, h: int, side: int) -> list[int]:
    """The leaders of ``side`` (0 or 1) in hex ``h``, ascending (rule 14.3):
    ``[x for x in game.units_at(h, side) if utype[x] == LEADER]``, read from
    the side's leader pieces (``StaticTables.leaders_side``)."""
    hexa = game.state.hex
    return [ld for ld in game.tables.leaders_side[side] if hexa[ld] == h]


def _blocking_in(game, h: int, side: int) -> bool:
    """Rule 6.52: does hex ``h`` hold a piece of ``side`` on the map that stops
    enemy entry (not a warship, leader or coastal gun, defense strength above
    zero)?  The entry of :func:`.movement.occupancy`'s blocking map for one
    hex, read from the pieces in it."""
    s, t = game.state, game.static
    ut = game.tables.utype
    for x in game.units_at(h, side).tolist():
        if (s.box[x] == BOX_MAP and ut[x] not in _NOT_DEFENDING
                and t.defense[x, s.level[x]] > 0):
            return True
    return False


def _blocking_next_to(game, cur: int, side: int) -> np.ndarray:
    """bool[n_hexes]: rule 6.52 blocking pieces of ``side`` in the hexes next
    to ``cur`` (the only entries a retreat or advance step reads): one
    compiled pass (:func:`.combat_moves.blocking_around`), equal there to
    :func:`.movement.occupancy`'s blocking map; False elsewhere."""
    run = game.tables.side_run[side]
    s, t = game.state, game.static
    return retreat_advance.blocking_around(cur, t.neighbours, run[0], run[1], s.box, s.hex, s.level, t.utype,
                           t.defense)


def _advance_eligible(game, side: int, stayers) -> list[int]:
    """Rule 9.81: the pieces that may advance after combat: the surviving
    attackers that did not retreat (``stayers``), then the units stacked with
    them that did not attack (per origin hex, ascending; HQs and AA too,
    leaders go along by themselves); never artillery or pieces that cannot
    move (:func:`_ma_zero`, 9.87).
    One compiled pass (:func:`.combat_moves.advance_eligible`).

    Returns
    -------
    list of int
    """
    s, t, tb = game.state, game.static, game.tables
    run = tb.side_run[side]
    origins0 = {int(s.hex[u]) for u in stayers}
    return retreat_advance.advance_eligible(np.array(stayers, np.int64), np.array(list(origins0), np.int64),
                            run[0], run[1], s.hex, s.level, s.hitched, t.utype, tb.ground,
                            t.ma).tolist()


#: Most hexes a piece of each movement class may advance in one combat phase
#: (rule 9.86): foot 2, motorized and mechanized 3.
MAX_ADVANCE = {st.FOOT: 2, st.MOT: 3, st.MECH: 3}


def advance_limit(game, units) -> int:
    """Rule 9.86: the most hexes ``units`` (sequence of unit indices,
    advancing together as one stack) may advance in a combat phase: the
    least :data:`MAX_ADVANCE` of their movement classes."""
    mc = game.static.move_class
    return min(MAX_ADVANCE.get(int(mc[u]), 2) for u in units)


def advance_after_combat(game, side: int, target: int, stayers, length: int, res=None) -> list:
    """Rule 9.8 (9.81-9.88, 10.23, 17.1): survivors advance into the
    vacated hex ``target`` and, when the length allows, beyond it.

    Parameters
    ----------
    game : Game
    side : int
        The attacking side.
    target : int
        Dense index of the attacked hex (now empty of defenders).
    stayers : sequence of int
        The surviving attackers that did not retreat (9.81).
    length : int
        Length of advance won (9.82): the greater of the hexes the defender
        retreated, the hits left pending, and one.
    res : AttackResult, optional
        Gets the advancing units in ``advanced``.

    Returns
    -------
    list of int
        The units that advanced (leaders going along not counted).

    Notes
    -----
    The owner picks who advances (``choose_advance``, offered the most hexes
    any eligible piece could go) and the hexes beyond the attacked one
    (``advance_further``).  The pieces advance as one stack, so the slowest
    limits it (9.86): foot 2, motorized and mechanized 3.  Into the attacked
    hex only after an attack on a city or an undestroyed fort (9.86, 17.1; a
    destroyed fort has no effect) or at night (9.82, 10.23).  Each enemy ZOC
    hex left during the advance, the start hex included, shortens it by one,
    never below one (9.85): a step out of a ZOC hex is taken only when the
    shortened length still allows it.

    Raises
    ------
    IllegalDecision
        A chosen unit that may not advance, a stack over the limit (9.83),
        a hex beyond the attacked one that the advance may not enter (9.84).
    """
    s, t = game.state, game.static
    tb = game.tables
    elig = _advance_eligible(game, side, stayers)                      # 9.81, 9.87
    if not elig or _blocking_in(game, target, 1 - side):
        return []
    fort_intact = bool(t.fort[target]) and not s.fort_destroyed[target]
    if t.city[target] or fort_intact or game.night:
        length = 1                                                     # 9.86, 17.1, 10.23
    offered = min(length, max(advance_limit(game, [u]) for u in elig))
    chosen = [int(u) for u in game.policy(side).choose_advance(game, elig, target, offered)]
    if not chosen:
        return []
    if any(u not in elig for u in chosen):
        raise illegal("9.81", "only surviving attackers that did not retreat may advance")
    if not organisation.fits_stacking(game, chosen, target):
        raise illegal("9.83", "advance would exceed the stacking limit")
    length = min(length, advance_limit(game, chosen))                  # 9.86
    origins = {int(s.hex[u]) for u in chosen}
    left = length - 1                # hexes still allowed beyond the attacked hex
    if left >= 1:                    # (none allowed: no ZOC can shorten it, none is asked)
        zoc = movement.zoc_map(game, 1 - side)
        if any(zoc[o] for o in origins):
            left -= 1                                                  # 9.85: the start hex
    # leaders stacked with advancing units may go along (9.81)
    leaders = [x for o in origins for x in _leaders_in(game, o, side)]
    group = chosen + leaders
    for u in group:
        s.hex[u] = target
    movement.enter_hex(game, group, target, "advance")
    path = [target]
    cur = target
    on_path = np.zeros(t.n_hexes, bool)
    on_path[target] = True
    ca = np.array(chosen, np.int64)
    while True:
        if left < 1:
            break                                                      # 9.85: no hex beyond left
        zoc = movement.zoc_map(game, 1 - side)
        if left - (1 if zoc[cur] else 0) < 1:
            break                                                      # 9.85: leaving cur would end it
        block = _blocking_next_to(game, cur, 1 - side)
        # 9.84: the hexes the group may go on into, in one call
        opts = retreat_advance.advance_options(cur, ca, on_path, block, s.hex, s.level, tb.side_mask[side],
                               tb.base_weight, tb.remnant_level_full, t.neighbours, t.land,
                               t.ocean_side, t.move_class, t.move_cost, t.rise, t.road,
                               t.rise_cost, t.utype).tolist()
        if not opts:
            break
        nxt = game.policy(side).advance_further(game, chosen, opts)
        if nxt is None:
            break
        nxt = int(nxt)
        if nxt not in opts:
            raise illegal("9.84", f"cannot advance into {game.hex_name(nxt)}")
        left -= 1 + (1 if zoc[cur] else 0)
        for u in group:
            s.hex[u] = nxt
        movement.enter_hex(game, group, nxt, "advance")
        path.append(nxt)
        on_path[nxt] = True
        cur = nxt
    for u in chosen:
        s.advanced[u] = True                                           # 9.88
    if res is not None:
        res.advanced = chosen
    if game.events is not None:
        game.log("advance", side=side, hexes=path, units=group, rule="9.8")
    movement.invalidate(game)
    return chosen


# ------------------------------------------------------------------ bombardment (10.1)
def stacking_total(game, h: int, side: int) -> int:
    """Rule 10.12: battalions + companies/3 (an HQ counts as a company),
    fractions up."""
    s, t = game.state, game.static
    thirds = 0
    for u in defenders_in(game, h, side):
        if t.size[u] == st.BATTALION:
            thirds += 3
        else:
            thirds += 1
    return -(-thirds // 3)


def bombardment_strength(game, target: int, units, hurricane=()) -> int:
    """Rule 10.12 (10.21, 12.51-12.52): the bombardment strength of
    ``units`` on hex ``target``: support values, artillery out of supply -1
    (at least 1) and disorganized -1 (at least 2), doubled in a fire
    hurricane; halved (fractions up) at night and in a town or city.

    Inputs: unit indices ``units``; ``hurricane`` the subset firing a fire
    hurricane.  Output: int strength."""
    s, t = game.state, game.static
    strength = 0
    for u in units:
        u = int(u)
        v = int(t.off_support[u])
        if t.utype[u] == st.ARTILLERY:
            if s.out_of_supply[u]:
                v = max(1, v - 1)
            if s.morale_state[u] == DISORGANIZED:
                v = max(2, v - 1)
            if u in hurricane:
                v *= 2
        strength += v
    if game.night:
        strength = _ceil_half(strength)
    if t.town[target] or t.city[target]:
        strength = _ceil_half(strength)                                # TEC, 10.12 example
    return strength


def bombardment_shift(game, side: int, target: int) -> int:
    """Rule 10.12 (column shifts): the bombardment column shift on hex ``target`` fired by
    ``side`` (:func:`malta_sim.kernels.bombard.bombard_shift`: artillery or
    an undestroyed fort in the hex, no friendly ground unit adjacent, only
    tanks).  Output: int columns."""
    s, t = game.state, game.static
    dfs = defenders_in(game, target, 1 - side)
    friends = game.ground_units(side)
    adjacent = bool(friends) and bool((t.grid.distance_table[target, s.hex[friends]] == 1).any())
    return int(kbomb.bombard_shift(
        any(t.utype[u] == st.ARTILLERY for u in dfs),
        bool(t.fort[target] and not s.fort_destroyed[target]),
        not adjacent,
        bool(dfs) and all(t.utype[u] == st.TANK for u in dfs)))


def bombardment_column_has_effect(charts, row: int, col: int) -> bool:
    """Rule 10.12: whether row ``row`` (stacking total - 1) and column ``col``
    of the Bombardment Table give a result (D, Z or steps) on some 2d6 roll;
    False for a column whose every roll 2-12 reads ``-``.

    Inputs: ``charts`` with ``bomb`` int8[n_rows, n_cols, 13] (result code per
    roll, :mod:`malta_sim.kernels.bombard`).  Output: bool.  The answers of
    one chart are worked out once and kept."""
    memo = _BOMB_EFFECTIVE.get(id(charts))
    if memo is None or memo[0] is not charts:
        if len(_BOMB_EFFECTIVE) > 16:
            _BOMB_EFFECTIVE.clear()
        memo = _BOMB_EFFECTIVE[id(charts)] = (charts, (np.asarray(charts.bomb)[:, :, 2:13] != 0)
                                              .any(axis=2).tolist())
    return memo[1][row][col]


#: ``id(charts) -> (charts, [row][col] -> has effect)`` (:func:`bombardment_column_has_effect`)
_BOMB_EFFECTIVE: dict = {}


def resolve_bombardment(game, side: int, target: int, units, hurricane=(),
                        fixed_roll: int | None = None) -> dict:
    """Rule 10.12 (10.13, 10.14, 10.21, 12.51-12.52): bombard ``target``.

    Counts the bombardment for ``side`` in the result counters
    ``bombardments`` and, when no roll of the column used could have an
    effect (:func:`bombardment_column_has_effect`) or the strength is below
    the row's minimum, ``bombardments_no_effect``.

    Returns
    -------
    dict
        strength, stack, column, roll, result code.

    Notes
    -----
    The column shift comes from :func:`malta_sim.kernels.bombard.bombard_shift`.
    The row/column lookup stays here: with no stacking units in the target
    (stack 0) this fires on the first row, while
    :func:`malta_sim.kernels.bombard.bombard_column` calls it ineffective.
    """
    s, t = game.state, game.static
    ch = t.charts
    units = [int(u) for u in units]
    hurricane = set(int(u) for u in hurricane)
    enemy = 1 - side
    strength = bombardment_strength(game, target, units, hurricane)
    stack = stacking_total(game, target, enemy)
    row = min(max(stack, 1), len(ch.bomb_min_strength)) - 1
    out = {"strength": strength, "stack": stack, "column": -1, "roll": 0, "result": 0}
    for u in units:
        s.fired[u] = True
        artillery.expend(game, u, 2 if u in hurricane else 1)
        if u in hurricane:
            morale.disorganize(game, [u])
    s.bombardments[0, side] += 1                      # result columns only
    if strength < ch.bomb_min_strength[row]:
        s.bombardments_no_effect[0, side] += 1
        if game.events is not None:
            game.log("bombardment ineffective", side=side, hexes=[target], units=units,
                     result=f"strength {strength}", rule="10.12")
        _night_fire(game, units)
        return out
    col = 0
    for k, c in enumerate(ch.bomb_columns):
        if c <= strength:
            col = k
    dfs = defenders_in(game, target, enemy)
    shift = bombardment_shift(game, side, target)
    col = int(min(max(col + shift, 0), len(ch.bomb_columns) - 1))
    if not bombardment_column_has_effect(ch, row, col):
        s.bombardments_no_effect[0, side] += 1        # no roll could do anything (10.12)
    roll = fixed_roll if fixed_roll is not None else game.dice2("bombardment")
    code = int(ch.bomb[row, col, roll])
    out.update(column=col, roll=roll, result=code)
    total_steps = sum(game.steps(u) for u in dfs)
    cap = _ceil_half(total_steps)                                      # 10.14
    if code == 1:
        morale.disorganize(game, dfs)
    elif code == 2:
        demor = [u for u in dfs if s.morale_state[u] == DEMORALIZED]
        for u in dfs:
            if s.morale_state[u] != DEMORALIZED:
                s.morale_state[u] = DEMORALIZED
        k = min(len(demor), cap)
        for u in demor[:k]:
            take_steps(game, [u], 1, "bombardment Z (9.41)")
    elif code in (3, 4):
        take_steps(game, dfs, min(code - 2, cap), "bombardment")
    if game.events is not None:
        game.log("bombardment", side=side, hexes=[target], units=units, dice=[roll],
                 cell=f"stack {stack} column {int(ch.bomb_columns[col])} "
                      f"(strength {strength}, shift {shift:+d})",
                 result=("-", "D", "Z", "1", "2")[code], rule="10.12")
    _night_fire(game, units)
    movement.invalidate(game)
    return out


def _night_fire(game, units) -> None:
    """Rule 10.21: units firing at night become disorganized (demoralized if
    already disorganized)."""
    if game.night:
        morale.disorganize(game, [u for u in units if game.static.utype[u] != st.WARSHIP])


# ------------------------------------------------------------------ phases
def combat_phase(game, side: int) -> None:
    """Rules 9.2-9.3 (4.25 a-c / 4.33 a-c)."""
    s, t = game.state, game.static
    organisation.reset_phase_flags(game)
    s.advanced[:] = False
    opts = plan_options(game, side)
    if not opts.attack_targets and not opts.bombard:
        return
    plan = game.policy(side).combat_plan(game, opts)
    _validate_plan(game, side, plan, opts)
    # 9.2 b defensive support on own hexes that can be attacked
    threatened = set()
    for tgt in opts.attack_targets:
        threatened.add(int(tgt))
    dopts = defensive_options(game, 1 - side, threatened)
    dsup = game.policy(1 - side).defensive_support(game, dopts) if dopts else {}
    used = set()
    for h, us in dsup.items():
        for u in us:
            if u not in dopts.get(int(h), []) or u in used:
                raise illegal("9.2", f"{t.names[u]} cannot support hex {game.hex_name(h)}")
            used.add(u)
        n_ships = sum(t.utype[u] == st.WARSHIP for u in us)
        if n_ships > 2:
            raise illegal("16.74", "at most two warships support a defense")
        if 0 < n_ships < len(us):
            raise illegal("16.74", "warships and artillery may not support the same defense")
    # 9.2 c / 10.1 bombardments
    for tgt, units in plan.bombard.items():
        if attackable(game, int(tgt), 1 - side):
            resolve_bombardment(game, side, int(tgt), units, plan.hurricane & set(units))
    air_left = dict(plan.air)
    s.air_support_left[0] -= sum(plan.air.values())
    # 9.3 attacks one hex at a time, as many as the player makes: each marks
    # at least one more unit attacked (9.12), so the offers run out
    while True:
        options = attack_options(game, side)
        if not options:
            break
        pick = game.policy(side).next_attack(game, options)
        if pick is None:
            break
        tgt, units = int(pick[0]), [int(u) for u in pick[1]]
        if tgt not in options or not units or any(u not in options[tgt] for u in units):
            raise illegal("9.3", f"illegal attack on {game.hex_name(tgt)}")
        sup = [u for u in plan.support.get(tgt, []) if s.box[u] == BOX_MAP and not s.fired[u]]
        ds = [u for u in dsup.get(tgt, []) if s.box[u] == BOX_MAP]
        ds = _approach_of_enemies(game, side, ds)
        resolve_attack(game, side, tgt, units, support=sup, air=air_left.pop(tgt, 0),
                       hurricane=plan.hurricane & set(sup), dsupport=ds)
        plan.support.pop(tgt, None)
        dsup.pop(tgt, None)


def _approach_of_enemies(game, side: int, dsupport) -> list[int]:
    """Rule 12.3: defensive artillery that units of ``side`` reached by an
    advance after combat (and whose hex exerts a ZOC) now touch loses its
    support for combats not yet resolved; the ammunition roll is still made."""
    s, t = game.state, game.static
    if not dsupport:
        return dsupport
    from malta_sim.iod.rules.movement import exerting_hexes
    exert, _ = exerting_hexes(game, side)
    adv_hexes = {int(s.hex[u]) for u in game.on_map(side) if s.advanced[u] and exert[s.hex[u]]}
    keep = []
    for u in dsupport:
        if t.utype[u] == st.ARTILLERY and any(
                int(o) in adv_hexes for o in t.neighbours[s.hex[u]] if o >= 0):
            artillery.defensive_expend(game, u)
            if game.events is not None:
                game.log("support withdrawn", side=int(t.side[u]), units=[u], rule="12.3")
            continue
        keep.append(u)
    return keep


def penetration_phase(game, side: int) -> None:
    """Rule 10.3 (4.26 / 4.34): units that advanced after combat may attack
    again if one of them is with or next to its formation leader and a die
    roll is at most the leader's tactical value; no artillery or warship
    support (10.32); each unit in one attempt; a failed roll ends those
    units' penetration for the turn."""
    s, t = game.state, game.static
    s.attacked[:] = False                    # 9.13: a new phase for attacks
    s.leader_uses[:] = 0                     # 14.21: counted per phase
    may = game.tables.side_mask[side]
    # each attempt marks its units (at least one, 10.32), so the eligible
    # pieces run out: every one may try, however many advanced (10.31)
    while True:
        if not np.count_nonzero(s.advanced & ~s.penetrated & may):
            return                                      # no piece of the side may try (10.31)
        cand = attackers_now(game, side)                # can_attack, in one pass
        elig = cand[s.advanced[cand] & ~s.penetrated[cand]].tolist()
        if not elig:
            return
        opts = attack_options(game, side, elig)
        opts2 = {}
        for tgt, us in opts.items():
            if _penetration_leader(game, us) is not None:
                opts2[tgt] = us
        if not opts2:
            return
        pick = game.policy(side).next_attack(game, opts2, penetration=True)
        if pick is None:
            return
        tgt, units = int(pick[0]), [int(u) for u in pick[1]]
        if tgt not in opts2 or any(u not in opts2[tgt] for u in units):
            raise illegal("10.31", "illegal penetration attempt")
        ld = _penetration_leader(game, units)
        if ld is None:
            raise illegal("10.32", "no unit of the attempt is with or next to its leader")
        for u in units:
            s.penetrated[u] = True
        die = game.die("combat")
        tv = int(t.tactical[ld, s.level[ld]])
        if game.events is not None:
            game.log("penetration attempt", side=side, hexes=[tgt], units=units + [ld], dice=[die],
                     result="attack" if die <= tv else "failed", rule="10.31")
        if die <= tv:
            air = 0
            avail = int(s.air_support_left[0]) if side == AXIS and not game.night else 0
            if avail > 0:                                              # 10.32, 16.42
                air = int(game.policy(side).penetration_air(game, tgt, avail))
                if not 0 <= air <= avail:
                    raise illegal("16.41", "more air support markers than available")
                s.air_support_left[0] -= air
            resolve_attack(game, side, tgt, units, air=air, penetration=True)


def _penetration_leader(game, units):
    """Rule 10.31: the formation leader with or next to one of ``units`` (on
    the map) with the highest tactical value, the first found on ties; None
    when there is none.  The leaders come from the static per-formation list
    (``StaticTables.formation_leader_l``) and each leader's value is read
    once."""
    s, t = game.state, game.static
    form, hexa, box = s.formation, s.hex, s.box
    fl = game.tables.formation_leader_l
    dist = t.grid.distance_table
    best = None
    best_tv = 0
    for u in units:
        f = int(form[u])
        if f < 0:
            continue
        ld = fl[f]
        if ld < 0 or ld == best or box[ld] != BOX_MAP or dist[hexa[ld], hexa[u]] > 1:
            continue
        tv = int(t.tactical[ld, s.level[ld]])
        if best is None or tv > best_tv:
            best, best_tv = ld, tv
    return best


