"""Parameterised Axis bot for Island of Death (presets ``axis:balanced``,
``axis:aggressive``, ``axis:cautious``, ``axis:solitaire``).

The bot builds on :class:`malta_sim.bots.simple.BalancedPolicy` (land
decisions) and :class:`malta_sim.bots.invasion.InvasionDecisions` (the
invasion defaults it inherits through the simple bots) and replaces the
decisions where a knob matters.  Every knob is a slot of the float64 vector
``self.vec`` documented in :mod:`malta_sim.bots.params`.

Attack selection (rules 9.2-9.4, 9.92) uses the exact 2d6 distribution of the
CRT cell the attack would land on: for each target the bot forecasts the final
odds level (strengths, support, the 9.92 shifts it can foresee: armour,
engineers, envelopment, integrity, mixed formations, morale, air support;
leader rolls are left out) and from it the expected enemy steps lost, own
steps lost and enemy retreat hexes (:func:`attack_forecast`).  It attacks when
the final odds reach ``min_odds`` and ``E[enemy steps] + retreat_value x
E[retreat] - risk_weight x E[own steps] >= min_gain``.

A combat plan, and each attack pick, is worked out for all targets in one
compiled call (:mod:`malta_sim.bots.forecast`).  Movement is the compiled
walk of :mod:`malta_sim.bots.move_choice`.
"""

from __future__ import annotations

from itertools import accumulate, chain

import numba as nb
import numpy as np

from malta_sim.kernels.crt import hex_defense, support_cap
from malta_sim.iod import static as st
from malta_sim.iod.state import BOX_MAP
from malta_sim.bots import params as P
from malta_sim.bots.base import CombatPlan, Move
from malta_sim.bots.forecast import (best_attack, forecast_tables, plan_targets,
                       score_targets)
from malta_sim.bots.invasion import AxisInvasionDecisions
from malta_sim.bots.simple import BalancedPolicy


_MODULES: dict = {}


def _combat():
    """The combat rules module (imported on first use: the engine package
    imports the policies while it is being set up)."""
    m = _MODULES.get("combat")
    if m is None:
        from malta_sim.iod.rules import combat as m
        _MODULES["combat"] = m
    return m


# ------------------------------------------------------------------ exact forecasts
def expected_losses(game, line: int, level: int, fort: bool, def_steps: int, att_steps: int):
    """Exact expected losses of an attack resolved at final odds ``level``.

    Parameters
    ----------
    line : int
        CRT line (rule 9.3 f).
    level : int
        Final odds level (9.3 d plus 9.92 shifts).
    fort : bool
        Undestroyed fort in the target hex (9.94: defender hits -1).
    def_steps, att_steps : int
        Steps each side has in the combat (losses are capped at them, 9.42).

    Returns
    -------
    tuple of float or None
        ``(E[attacker steps lost], E[defender steps lost], E[defender retreat
        hexes])`` over the 2d6 distribution (rule 9.43: hits split into steps,
        the attacker rounding up, the defender down); None when the attack
        would be cancelled (9.3 g).
    """
    # one table of every cell's answers per static data, shared with the
    # compiled forecasts (forecast.loss_table: the same expressions, the same
    # floats); step counts above its caps give the answer of the cap
    from malta_sim.iod.rules.combat import crt_column

    col = crt_column(game.static.charts, line, level)
    if col < 0:
        return None
    ft = forecast_tables(game)
    e = ft.losses[line, col, 1 if fort else 0, min(max(def_steps, 0), ft.d_max),
                  min(max(att_steps, 0), ft.a_max)]
    return (float(e[0]), float(e[1]), float(e[2]))


@nb.njit(cache=True)
def nb_attack_value(vec, thr, crt, line_cols, col_level, line, level, fort, def_steps, att_steps):
    """Compiled attack test with a bot parameter vector (the fast path of
    :meth:`Forecast.value`; rules 9.3 g, 9.43, 9.94).

    Parameters
    ----------
    vec : float64[n_params]
        Bot parameter vector (:mod:`malta_sim.bots.params`).
    thr : int64[4]
        Slots of ``min_odds``, ``min_gain``, ``risk_weight``, ``retreat_value``
        in ``vec`` (``AX_*`` or ``AL_*``).
    crt : int[n_lines, n_cols, 13, 4]
        CRT cells (``charts.crt``); ``line_cols`` int[n_lines, 2] and
        ``col_level`` int[n_cols] as in :mod:`malta_sim.kernels.crt`.
    line, level : int
        CRT line and final odds level.
    fort : bool
        Undestroyed fort (defender hits -1).
    def_steps, att_steps : int
        Steps in the combat (caps).

    Returns
    -------
    (bool, float)
        Whether the attack passes the thresholds, and its expected gain in
        steps (``-inf`` when cancelled).
    """
    lo, hi = line_cols[line, 0], line_cols[line, 1]
    if level < col_level[lo]:
        return False, -np.inf
    col = lo
    for k in range(lo, hi + 1):
        if col_level[k] <= level:
            col = k
    ea = 0.0
    ed = 0.0
    er = 0.0
    for roll in range(2, 13):
        p = (6 - abs(roll - 7)) / 36.0
        ah = crt[line, col, roll, 0]
        dh = crt[line, col, roll, 2]
        if fort and dh > 0:
            dh -= 1
        ea += p * min((ah + 1) // 2, att_steps)
        ds = dh // 2
        ed += p * min(ds, def_steps)
        if ds < def_steps:
            er += p * (dh - ds)
    gain = ed + vec[thr[3]] * er - vec[thr[2]] * ea
    return level >= vec[thr[0]] and gain >= vec[thr[1]], gain


def _defence_part(game, side: int, target: int) -> tuple:
    """The defending side of a forecast on ``target`` (rules 9.3 f, 9.91,
    9.94, 17.3), shared by every group of attackers of ``side``.

    Returns
    -------
    tuple
        ``(defenders, dfn, fort, line, def_steps)``: the defending units (list
        of int, ascending), their defense strength (doubled in a city or
        behind an undestroyed fort), the undestroyed fort flag, the CRT line
        and the defenders' steps.  It reads the units in the target hex (their
        level and morale state), the hex's fort and night.
    """
    combat = _combat()
    t, s = game.static, game.state
    defenders = combat.defenders_in(game, target, 1 - side)
    dfn = sum([combat.defense_strength(game, u) for u in defenders])
    fort = bool(t.fort[target] and not s.fort_destroyed[target])
    dfn = int(hex_defense(dfn, bool(t.city[target]), fort))                     # 9.91
    line = combat.crt_line(game, target)
    def_steps = sum([game.steps(u) for u in defenders])
    return defenders, dfn, fort, line, def_steps


def _forecast_base(game, side: int, target: int, attackers: tuple, defence=None):
    """The parts of a forecast that support and air do not change (rules
    9.3 b-f, 9.91, 9.92, 12.21, 17.3).

    Parameters
    ----------
    game : Game
    side : int
        Attacking side.
    target : int
        Dense hex index of the attacked hex.
    attackers : tuple of int
        Attacking units.
    defence : tuple, optional
        :func:`_defence_part` of ``side`` and ``target`` on the current state
        (worked out when not given).

    Returns
    -------
    base : tuple
        ``(att, cap, dfn, mods, line, fort, def_steps, att_steps)``: total
        attack strength (9.91), support cap (twice the printed attack, 12.21),
        defense strength (doubled in a city or behind a fort, 9.91), sum of
        the foreseeable 9.92 shifts (no leader rolls, no air), CRT line (9.3 f),
        undestroyed fort (9.94), and the steps of each side (17.3).
    deps : (frozenset of int, frozenset of int)
        Units whose state the base read: ``core``, the attackers and the
        defenders (every field of :data:`_FC_UNIT_FIELDS`), and ``members``,
        the other members of their regiments or brigades, of which only box,
        level and morale state are read (9.92 integrity: on the map, not
        demoralized, not a remnant).
    """
    combat = _combat()
    s, tb = game.state, game.tables
    if defence is None:
        defence = _defence_part(game, side, target)
    defenders, dfn, fort, line, def_steps = defence
    att = sum([combat.attack_strength(game, u) for u in attackers])
    lev, attack = s.level, tb.attack
    cap = int(support_cap(True, sum([attack[u][lev[u]] for u in attackers]), 0))   # 12.21
    mods = sum(combat.odds_modifiers(game, side, list(attackers), defenders, target,
                                     roll_leaders=False).values()) if defenders else 0
    att_steps = sum([game.steps(u) for u in attackers])
    core = set(attackers)
    core.update(defenders)
    reg = tb.regiment
    members = set()
    for r in {reg[u] for u in core if reg[u] >= 0}:
        members.update(tb.members[r])
    members -= core
    return (att, cap, dfn, mods, line, fort, def_steps, att_steps), (frozenset(core),
                                                                     frozenset(members))


class Forecast:
    """What the bot foresees of an attack on ``target`` by ``attackers``
    (rules 9.3 b-g, 9.91, 9.92); support, air and fire hurricanes are added by
    :meth:`level`.  Worked out on the position of the moment, from the
    engine's own strength and odds rules (:func:`_forecast_base`)."""

    __slots__ = ("target", "attackers", "att", "cap", "dfn", "mods", "line", "fort",
                 "def_steps", "att_steps")

    def __init__(self, game, side: int, target: int, attackers):
        self.target = int(target)
        self.attackers = [int(u) for u in attackers]
        (self.att, self.cap, self.dfn, self.mods, self.line, self.fort, self.def_steps,
         self.att_steps) = _forecast_base(game, int(side), self.target, tuple(self.attackers))[0]

    def level(self, support: float = 0.0, air: int = 0) -> int:
        """Final odds level with ``support`` strength points (capped, 12.21)
        and ``air`` air support markers (16.42)."""
        lv = st.odds_level(self.att + min(int(support), self.cap), self.dfn)
        return int(lv + self.mods + air)

    def value(self, game, vec_min_odds, min_gain, risk, retreat, support=0.0, air=0):
        """``(ok, gain, level)``: expected gain in steps and whether it passes
        the thresholds."""
        lv = self.level(support, air)
        e = expected_losses(game, self.line, lv, self.fort, self.def_steps, self.att_steps)
        if e is None or self.dfn <= 0:
            return False, -np.inf, lv
        gain = e[1] + retreat * e[2] - risk * e[0]
        return bool(lv >= vec_min_odds and gain >= min_gain), gain, lv


def _base_value(game, base: tuple, thr: tuple, support, air: int) -> tuple:
    """:meth:`Forecast.value` of a forecast base tuple (:func:`_forecast_base`)
    without building the :class:`Forecast`: the same operations in the same
    order (rules 9.3 d-g, 12.21, 16.42).

    Parameters
    ----------
    base : tuple
        ``(att, cap, dfn, mods, line, fort, def_steps, att_steps)``.
    thr : tuple of float
        ``(min_odds, min_gain, risk_weight, retreat_value)``.
    support : int or float
        Support strength points (capped at ``cap``).
    air : int
        Air support markers.

    Returns
    -------
    (bool, float, int)
        ``(ok, gain, level)`` as :meth:`Forecast.value`.
    """
    att, cap, dfn, mods, line, fort, def_steps, att_steps = base
    lv = int(st.odds_level(att + min(int(support), cap), dfn) + mods + air)
    e = expected_losses(game, line, lv, fort, def_steps, att_steps)
    if e is None or dfn <= 0:
        return False, -np.inf, lv
    gain = e[1] + thr[3] * e[2] - thr[2] * e[0]
    return bool(lv >= thr[0] and gain >= thr[1]), gain, lv


def attack_groups(game, units) -> list[list[int]]:
    """Candidate attacker sets for one target: all units, and each
    formation's units alone (avoids the mixed-formations shift, 9.92)."""
    s = game.state
    units = sorted(int(u) for u in units)
    groups = [units]
    by_f: dict[int, list[int]] = {}
    for u in units:
        by_f.setdefault(int(s.formation[u]), []).append(u)
    if len(by_f) > 1:
        groups += [g for g in by_f.values()]
    return groups


def support_points(game, units, target, attackers, hurricane=()) -> int:
    """Offensive support strength of ``units`` (12.22, 12.52) on ``target``."""
    from malta_sim.iod.rules.combat import support_value

    return sum(support_value(game, u, True, target, attackers, u in hurricane) for u in units)


class _ParamBot:
    """Mixin: validated parameter vector ``self.vec`` from a preset base plus
    the user's overrides (names in :mod:`.params`)."""

    side_index = 0
    preset_base: dict = {}

    def _init_vec(self, side, params):
        base = P.make_vector(self.side_index, self.preset_base)
        self.vec = P.make_vector(self.side_index, params or {}, base)
        self._phase_key = None
        self._skip: set = set()
        self._tried_pairs: set = set()      # (unit, hex) pairs an Allied shore-up tried this phase
        self._plan = None

    def _phase_reset(self, game, mode=""):
        key = (game.turn, game.phase_name, mode)
        if key != self._phase_key:
            self._phase_key = key
            self._skip = set()
            self._tried_pairs = set()

    def _thresholds(self, idx):
        v = self.vec
        return v[idx[0]], v[idx[1]], v[idx[2]], v[idx[3]]

    # ---- shared combat logic (9.2 a, 9.3 a)
    def _score_many(self, game, tgts, unit_lists, sup_lists, hur, airs, plan_mode,
                    whole=False) -> list:
        """:meth:`_score_target` of several targets in one compiled call
        (:func:`malta_sim.bots.forecast.score_targets`; rules 9.3 a-g,
        9.91, 9.92, 9.94, 12.21, 12.22, 12.52, 16.42, 17.3).

        Parameters
        ----------
        tgts : list of int
            Target hexes.
        unit_lists : list of list of int
            Candidate attackers per target.
        sup_lists : list of list of int
            Support per target: in ``plan_mode`` all the artillery and
            warships offered (the target uses its artillery or its first three
            warships, whichever supports more, as :meth:`_plan_support`);
            otherwise the supporters as given.
        hur : set of int
            Supporters firing a fire hurricane (12.52; ignored in ``plan_mode``).
        airs : list of int
            Air support markers per target.
        plan_mode : bool
        whole : bool
            Each list of ``unit_lists`` is one group of attackers, scored as
            it is (no formation groups; ``tgts`` may repeat).

        Returns
        -------
        list of tuple
            Per target ``(ok, gain, level, group, base)``: the answer of
            :meth:`_score_target` and the group's forecast base
            (:func:`_forecast_base`).
        """
        k = len(tgts)
        if not k:
            return []
        ok, gain, lv, out_grp, out_base, u_ptr = self._score_arrays(
            game, tgts, unit_lists, sup_lists, hur, airs, plan_mode, whole)
        res = []
        grps = out_grp.tolist()
        bases = out_base.tolist()
        offs = u_ptr.tolist()
        for i, (o, g, v) in enumerate(zip(ok.tolist(), gain.tolist(), lv.tolist())):
            b = bases[i]
            base = (b[1], b[2], b[3], b[4], b[5], bool(b[6]), b[7], b[8])
            res.append((o, g, v, grps[offs[i]:offs[i] + b[0]], base))
        return res

    def _score_arrays(self, game, tgts, unit_lists, sup_lists, hur, airs, plan_mode,
                      whole=False) -> tuple:
        """:meth:`_score_many` (same inputs, at least one target) as the
        compiled call's own arrays (rules 9.3 a-g, 9.91, 9.92, 9.94, 12.21,
        12.22, 12.52, 16.42, 17.3).

        Returns
        -------
        ok : bool[k]
        gain : float64[k]
        level : int64[k]
        out_grp : int64[m]
            The best group of target ``i`` from ``u_ptr[i]`` on.
        out_base : int64[k, 9]
            Per target the group's size, then its forecast base.
        u_ptr : int64[k + 1]
            Offsets of the targets' attackers.
        """
        flat = list(chain.from_iterable(sup_lists))
        args = self._kernel_inputs(game, tgts, unit_lists, sup_lists, flat,
                                   self._thresholds(self._thr_idx))
        s_hur = _hurricane_mask(forecast_tables(game), flat, hur)
        ok, gain, lv = score_targets(*args[:4], plan_mode, whole, *args[5:10], s_hur,
                                     np.array(airs, np.int64), *args[12:])
        return ok, gain, lv, args[-2], args[-1], args[6]

    def _kernel_inputs(self, game, tgts, unit_lists, sup_lists, flat, thr) -> tuple:
        """The arguments of :func:`~malta_sim.bots.forecast.score_targets`
        (``plan_mode``, ``s_hur`` and ``airs``, positions 4, 10 and 11, left
        to the caller):
        the targets, their attackers and supporters (``flat``, all
        ``sup_lists`` in a row) as offset arrays, the static tables, the unit
        state and fresh output arrays."""
        ft = forecast_tables(game)
        s = game.state
        k = len(tgts)
        u_ptr = list(accumulate(map(len, unit_lists), initial=0))
        n_u = u_ptr[-1]
        # the integer inputs as views of one array
        buf = np.array([*tgts, *u_ptr, *chain.from_iterable(unit_lists),
                        *accumulate(map(len, sup_lists), initial=0), *flat], np.int64)
        o1 = 2 * k + 1
        o2 = o1 + n_u
        o3 = o2 + k + 1
        return (int(self.side), bool(game.night), ft.night_line, np.array(thr, np.float64), None,
                buf[:k], buf[k:o1], buf[o1:o2], buf[o2:o3], buf[o3:], None, None,
                *ft.kargs, s.hex, s.box, s.level, s.morale_state, s.out_of_supply, s.formation,
                s.fort_destroyed, s.integrity_lost[0], np.empty(n_u, np.int64),
                np.zeros((k, 9), np.int64))

    def _pick_penetration(self, game, options):
        """:meth:`_pick_attack` of a penetration attempt (rules 10.3, 10.31,
        10.32): the groups of :func:`attack_groups` with a unit with or next
        to its formation leader, scored without support or air in one
        compiled call; per target the first best group by ``(ok, gain)``, then
        the first target with the highest gain among those that pass."""
        from malta_sim.iod.rules.combat import _penetration_leader

        q_t, q_u = [], []
        for tgt in sorted(options):
            for grp in attack_groups(game, options[tgt]):
                if _penetration_leader(game, grp) is not None:
                    q_t.append(tgt)
                    q_u.append(grp)
        n = len(q_t)
        res = self._score_many(game, q_t, q_u, [[]] * n, (), [0] * n, False, whole=True)
        best = None
        tb = None
        for i, (tgt, (ok, gain, _lv, grp, _b)) in enumerate(zip(q_t, res)):
            if tb is None or tb[1] != tgt:
                tb = [ok, tgt, gain, grp]
            elif (ok, gain) > (tb[0], tb[2]):
                tb[0], tb[2], tb[3] = ok, gain, grp
            if i + 1 == n or q_t[i + 1] != tgt:          # the target's best group
                if tb[0] and (best is None or tb[2] > best[0]):
                    best = (tb[2], tgt, tb[3])
        if best is None:
            return None
        return (best[1], list(best[2]))

    def _pick_attack(self, game, options, penetration=False):
        """Rules 9.3 a, 10.31: the attack pick, in one compiled call
        (:meth:`_pick_penetration`, :meth:`_pick_compiled`)."""
        if penetration:
            return self._pick_penetration(game, options)
        return self._pick_compiled(game, options, self._plan or CombatPlan())

    def _pick_compiled(self, game, options, plan):
        """:meth:`_pick_attack` (not a penetration attempt) in one compiled
        call (:func:`malta_sim.bots.forecast.best_attack`; rules 9.3 a-g,
        9.91, 9.92, 12.21, 12.22, 12.52, 16.42): the targets in hex order, each
        with the planned supporters that have not fired, their fire hurricanes
        and air markers; the first target with the highest gain among those
        that pass.  The integer inputs go to the kernel as views of one array.

        Returns
        -------
        tuple of (int, list of int) or None
            Target hex and attacking units.
        """
        tgts = sorted(options)
        k = len(tgts)
        unit_lists = [options[t] for t in tgts]
        support = plan.support
        flat: list = []
        if support:
            fired = game.state.fired
            sups = [[u for u in support.get(tgt, []) if not fired[u]] for tgt in tgts]
            s_ptr = list(accumulate(map(len, sups), initial=0))
            flat = list(chain.from_iterable(sups))
        else:
            s_ptr = [0] * (k + 1)
        air = plan.air
        airs = [int(air.get(tgt, 0)) for tgt in tgts] if air else [0] * k
        u_ptr = list(accumulate(map(len, unit_lists), initial=0))
        n_u = u_ptr[-1]
        buf = np.array([*tgts, *u_ptr, *s_ptr, *airs, *chain.from_iterable(unit_lists), *flat],
                       np.int64)
        o1 = 2 * k + 1
        o2 = o1 + k + 1
        o3 = o2 + k
        o4 = o3 + n_u
        ft = forecast_tables(game)
        s_hur = _hurricane_mask(ft, flat, plan.hurricane)
        st_ = game.state
        out_grp = np.empty(n_u, np.int64)
        best, size = best_attack(int(self.side), bool(game.night), ft.night_line,
                                 self._thr_array(), buf[:k], buf[k:o1], buf[o3:o4], buf[o1:o2],
                                 buf[o4:], s_hur, buf[o2:o3], *ft.kargs, st_.hex, st_.box,
                                 st_.level, st_.morale_state, st_.out_of_supply, st_.formation,
                                 st_.fort_destroyed, st_.integrity_lost[0], out_grp,
                                 np.empty((k, 9), np.int64))
        if best < 0:
            return None
        o = u_ptr[best]
        return (tgts[best], out_grp[o:o + size].tolist())

    def _thr_array(self) -> np.ndarray:
        """The thresholds (``min_odds``, ``min_gain``, ``risk_weight``,
        ``retreat_value``) as float64[4], made again only when they change."""
        thr = self._thresholds(self._thr_idx)
        kept = getattr(self, "_thr_kept", None)
        if kept is None or kept[0] != thr:
            kept = self._thr_kept = (thr, np.array(thr, np.float64))
        return kept[1]

    def next_attack(self, game, options, penetration=False):
        """Rules 9.3 a, 10.31: the attack with the best expected exchange that
        passes ``min_odds`` / ``min_gain``; penetration attempts (10.3) use the
        same test without support."""
        if not options:
            return None
        return self._pick_attack(game, options, penetration)

    def _plan_support(self, game, options, air_markers: int, allow_hurricane: bool):
        """Rule 9.2 a: support (12.2, 16.74), air support (16.42), fire
        hurricanes (12.52) and bombardments (10.1) for the attacks this bot
        expects to make.  Returns a :class:`CombatPlan`.

        Every target is scored (in one compiled call, :meth:`_plan_compiled`)
        with its artillery, or its first three warships when these support
        more, and one air marker if any is left;
        then, best first, each attack that passes takes the guns that still
        raise its expected gain, a fire hurricane when it stays below
        ``min_odds``, and an air marker when it adds more than 0.05 steps."""
        q_t, q_u = self._attack_queue(game, options)
        return self._plan_compiled(game, options, q_t, q_u, air_markers,
                                   allow_hurricane and self._hurricane_ok(),
                                   self._thresholds(self._thr_idx))

    def _attack_queue(self, game, options) -> tuple[list, list]:
        """Rules 9.1, 9.2 a: the targets of ``options`` (a ``PlanOptions``)
        that some unit can attack, in the order offered, and the attacking
        units of each (``options.attackers``, or the engine's
        ``combat.attack_options`` when the options do not carry them).
        Returns ``(targets, units)``: list of int, list of lists of int."""
        atk = options.attackers
        if atk is None:
            atk = _combat().attack_options(game, self.side)
        q_t, q_u = [], []
        for tgt in options.attack_targets:
            units = atk.get(tgt, [])
            if units:
                q_t.append(tgt)
                q_u.append(units)
        return q_t, q_u

    def _plan_compiled(self, game, options, q_t, q_u, air_markers, allow_hurricane, thr):
        """:meth:`_plan_support` for the targets ``q_t`` (attackers ``q_u``)
        in one compiled call (:func:`malta_sim.bots.forecast.plan_targets`;
        rules 9.2 a, 9.3, 9.92, 12.2, 12.52, 16.42, 16.74), then the
        bombardments (10.1)."""
        plan = CombatPlan()
        used: set = set()
        if q_t:
            k = len(q_t)
            sget = options.support.get
            sup_lists = [sget(tgt, []) for tgt in q_t]
            hok = options.hurricane_ok
            flat = list(chain.from_iterable(sup_lists))
            n_s = len(flat)
            if not n_s and air_markers <= 0:
                # no gun offered and no air marker: nothing to place (12.2, 16.42)
                return self._plan_bombard(game, options, plan, used)
            u_ptr = list(accumulate(map(len, q_u), initial=0))
            s_ptr = list(accumulate(map(len, sup_lists), initial=0))
            n_u = u_ptr[-1]
            # the integer inputs as views of one array
            buf = np.array([*q_t, *u_ptr, *s_ptr, *chain.from_iterable(q_u), *flat], np.int64)
            o1 = 2 * k + 1
            o2 = o1 + k + 1
            o3 = o2 + n_u
            ft = forecast_tables(game)
            st_ = game.state
            s_hok = _hurricane_mask(ft, flat, hok)
            out_sup = np.empty(n_s, np.int64)
            out_hur = np.zeros(n_s, np.bool_)
            order, n_sup, air = plan_targets(
                int(self.side), bool(game.night), ft.night_line, np.array(thr, np.float64),
                buf[:k], buf[k:o1], buf[o2:o3], buf[o1:o2], buf[o3:], s_hok,
                min(1, air_markers), int(air_markers), bool(allow_hurricane), *ft.kargs,
                st_.hex, st_.box, st_.level, st_.morale_state, st_.out_of_supply,
                st_.formation, st_.fort_destroyed, st_.integrity_lost[0],
                np.empty(n_u, np.int64), np.empty((k, 9), np.int64), out_sup, out_hur)
            n_sup = n_sup.tolist()
            air = air.tolist()
            sups = out_sup.tolist()
            hurs = out_hur.tolist()
            for i in order.tolist():
                tgt = q_t[i]
                n = n_sup[i]
                if n:
                    o = s_ptr[i]
                    chosen = sups[o:o + n]
                    hur: set = set()
                    for u, f in zip(chosen, hurs[o:o + n]):
                        if f:
                            hur.add(u)
                    plan.support[tgt] = chosen
                    used.update(chosen)
                    plan.hurricane |= hur
                if air[i]:
                    plan.air[tgt] = 1
        return self._plan_bombard(game, options, plan, used)

    def _plan_bombard(self, game, options, plan, used):
        """Rule 10.1: with ``bombard`` on, the free artillery bombards the
        targets that get no support, most defenders first; the plan is kept
        for :meth:`next_attack`."""
        t = game.static
        if self._bombard_ok() and options.bombard:
            for tgt, units in _bombard_order(game, 1 - self.side, options.bombard):
                if tgt in plan.support:
                    continue
                free = [u for u in units if u not in used and t.utype[u] != st.WARSHIP]
                if free:
                    plan.bombard[tgt] = free
                    used.update(free)
        self._plan = plan
        return plan

    def _hurricane_ok(self):
        return False

    def _bombard_ok(self):
        return False


def _bombard_order(game, enemy: int, bombard: dict) -> list:
    """The ``(hex, units)`` items of ``bombard`` (rule 10.1 options: enemy
    hex -> artillery able to bombard it) with the most pieces of ``enemy``
    (0 or 1) first, ties in the dict's order, the pieces of every hex
    counted in one pass."""
    items = list(bombard.items())
    if len(items) > 1:
        hx = game.state.hex[game.tables.side_mask[enemy]]
        cnt = np.bincount(hx[hx >= 0], minlength=game.static.n_hexes).tolist()
        items.sort(key=lambda kv: -cnt[kv[0]])
    return items


def _hurricane_mask(ft, flat: list, hurricane) -> np.ndarray:
    """bool[len(flat)]: which of the support units ``flat`` are in the set
    ``hurricane`` (fire hurricanes, 12.52); the shared all-False array of
    ``ft`` (:class:`~malta_sim.bots.forecast.ForecastTables`, read only)
    when the set is empty."""
    if hurricane:
        return np.array([u in hurricane for u in flat], np.bool_)
    if len(flat) <= ft.no_hur.shape[0]:
        return ft.no_hur
    return np.zeros(len(flat), np.bool_)


#: empty index arrays and a zero offset (a plan without support or air
#: markers; the kernel only reads them)
_EMPTY = np.zeros(0, np.int64)
_ZERO1 = np.zeros(1, np.int64)


@nb.njit(cache=True)
def _goal_hex(obj, gh, ng, dist, here, decay):
    """The objective a unit in hex ``here`` heads for (rules 6.1-6.6, see
    :meth:`AxisBot.next_move`): the first of ``gh[:ng]`` (int64 hexes) with
    the highest ``obj[h] - decay x dist[here, h]`` (``obj`` float64[n_hexes]
    weights, ``dist`` int[n_hexes, n_hexes] hex distances); -1 when
    ``ng`` is 0.  Reads ``dist`` without making a view of its row, so the
    compiled walk (:func:`malta_sim.bots.move_choice.axis_walk_kernel`)
    calls it without reference counts."""
    best = -1
    best_score = 0.0
    for i in range(ng):
        h = gh[i]
        score = obj[h] - decay * dist[here, h]
        if best < 0 or score > best_score:
            best, best_score = h, score
    return best


@nb.njit(cache=True)
def _best_step(dist, hs, cost, goal, d_here, anchor, radius, ehex, envelop):
    """The destination :meth:`AxisBot.next_move` takes (rules 6.1-6.6, 8.2,
    9.92).

    Parameters
    ----------
    dist : int[n_hexes, n_hexes]
        Hex distances.
    hs : int64[k]
        Legal destinations; ``cost`` float64[k] the MP each costs.
    goal, d_here : int
        Goal hex and the unit's distance to it.
    anchor : int
        Hex to stay within ``radius`` hexes of (supply, 8.2); -1: none.
    ehex : int64[m]
        Hexes of enemy ground units.
    envelop : float
        Bonus per adjacent enemy hex (envelopment, 9.92); 0: none.

    Returns
    -------
    int
        The destination closer to the goal with the least
        ``distance - envelop x adjacent enemy hexes``, then fewest MP, then
        lowest hex index; -1 when none is closer within the radius.
    """
    best = -1
    best_key = 0.0
    best_cost = 0.0
    for i in range(hs.shape[0]):
        h = hs[i]
        dh = dist[h, goal]
        if dh >= d_here:
            continue
        if anchor >= 0 and dist[h, anchor] > radius:
            continue
        key = float(dh)
        if envelop != 0.0:
            n = 0
            for e in ehex:
                if dist[h, e] == 1:
                    n += 1
            key = key - envelop * n
        c = cost[i]
        if (best < 0 or key < best_key or (key == best_key and (c < best_cost
                                                                 or (c == best_cost and h < best)))):
            best, best_key, best_cost = h, key, c
    return best


#: least expected value, in steps, of a bombardment the Axis bot fires (10.12;
#: the columns where the table gives nothing, and the nearly empty ones, are
#: skipped)
BOMBARD_MIN_VALUE = 0.05
#: least gain, in steps, for which the Axis bot turns a bombardment into a
#: fire hurricane (12.52: both salvos, the guns disorganized)
HURRICANE_MIN_GAIN = 0.1
#: value in steps of each Bombardment Table result (10.12): D a quarter step,
#: Z half a step, 1 and 2 their steps
_BOMB_VALUE = {"-": 0.0, "D": 0.25, "Z": 0.5, "1": 1.0, "2": 2.0}

_BOMB_KEPT: dict = {}


def bombard_value(strength: int, stack: int, shift: int, charts) -> float:
    """Expected value in steps of one bombardment (rules 10.12-10.14): the
    probability of each Bombardment Table result of the exact outcome
    distribution (:func:`malta_sim.exact.combat.bombardment_distribution`)
    times its :data:`_BOMB_VALUE`, summed in the distribution's order.

    Parameters
    ----------
    strength, stack, shift : int
        Bombardment strength, stacking total of the target hex and column
        shift, as :meth:`AxisBot._plan_bombard` works them out.
    charts : IodCharts
        The game's combat charts.

    Returns
    -------
    float

    A cache only: the answer is a function of its inputs and is kept per
    ``(charts, strength, stack, shift)`` (the charts object itself is checked,
    so another game's data recomputes); the kept answers are dropped when
    there are more than 4096.
    """
    key = (id(charts), strength, stack, shift)
    hit = _BOMB_KEPT.get(key)
    if hit is not None and hit[0] is charts:
        return hit[1]
    from malta_sim.exact.combat import bombardment_distribution

    d = bombardment_distribution(strength, stack, shift, charts)
    v = sum(o["probability"] * _BOMB_VALUE[o["result"]] for o in d["outcomes"])
    if len(_BOMB_KEPT) > 4096:
        _BOMB_KEPT.clear()
    _BOMB_KEPT[key] = (charts, v)
    return v


class AxisBot(_ParamBot, AxisInvasionDecisions, BalancedPolicy):
    """Parameterised Axis bot (see module docstring and
    :data:`malta_sim.bots.params.AXIS_PARAMS`).

    Parameters
    ----------
    side : int
        Must be 0 (Axis).
    params : dict, optional
        Overrides of the preset's parameter vector (names of ``AXIS_PARAMS``).

    Raises
    ------
    OptionError
        Unknown parameter name or value out of range.
    """

    name = "balanced"
    side_index = 0
    preset_base: dict = {}
    _thr_idx = (P.AX_MIN_ODDS, P.AX_MIN_GAIN, P.AX_RISK, P.AX_RETREAT)

    def __init__(self, side: int, params: dict | None = None):
        super().__init__(side, {})
        self._init_vec(side, params)
        self._obj_weights = None
        self._move_memo = None        # (game, position key, next_move set-up): the last one
        self._enemy_sel = None        # (static, enemy units' index: slice or int array)
        self._walk = None             # move_choice.AxisWalk: decisions made ahead by the move kernel

    # ------------------------------------------------------------ objectives
    def objective_values(self, game) -> np.ndarray:
        """float64[n_hexes]: weighted objectives the Axis does not control
        (airfields, victory cities, towns, main ports; rules 16.1, 20); every
        hex the Axis controls, and every hex that is no objective, weighs 0."""
        t, s = game.static, game.state
        cached = self._obj_weights
        if cached is None or cached[0] is not t:      # the static weights, once per game data
            v = self.vec
            w = (v[P.AX_W_AIRFIELD] * t.airfield + v[P.AX_W_TOWN] * t.town
                 + v[P.AX_W_PORT] * t.main_port).astype(np.float64)
            w[t.victory_cities] += v[P.AX_W_CITY]
            cached = self._obj_weights = (t, w * t.land)
        held = s.control == self.side
        return np.where(held, 0.0, cached[1])

    def _supply_anchor(self, game, u):
        """Hexes a unit keeps within ``supply_radius`` of (units trace supply
        to their HQ, rule 8.2): its formation HQ's hex, or None (no limit)
        while that HQ is off the map."""
        h = self._anchor_hex(game, u)
        return np.array([h]) if h >= 0 else None

    @staticmethod
    def _anchor_hex(game, u) -> int:
        """The hex of :meth:`_supply_anchor` as an int, -1 for none."""
        s = game.state
        fh = game.static.formation_hq
        f = int(s.formation[u])
        hq = int(fh[f]) if 0 <= f < len(fh) else -1
        if hq >= 0 and s.box[hq] == BOX_MAP and s.hex[hq] >= 0:
            return int(s.hex[hq])
        return -1

    # ------------------------------------------------------------ movement (6)
    def next_move(self, game, mode, candidates):
        """Rules 6.1-6.6: each combat unit heads for the objective with the
        best ``weight - dist_decay x distance``; among its legal destinations
        it takes the one nearest that goal, with a bonus for envelopment
        (hexes next to an enemy stack already touched from other hexes, 9.92)
        and never beyond ``supply_radius`` of its HQ (8.2).  Hitched artillery
        prepares in place (6.6); HQs follow their units at a safe distance."""
        self._phase_reset(game, mode)
        return self._next_move_compiled(game, mode, candidates)

    def _next_move_compiled(self, game, mode, candidates):
        """:meth:`next_move` by the compiled walk of
        :func:`malta_sim.bots.move_choice.axis_step`."""
        mc = _MODULES.get("move_choice")
        if mc is None:
            from malta_sim.bots import move_choice as mc
            _MODULES["move_choice"] = mc
        weights = self._obj_weights
        if weights is None or weights[0] is not game.static:
            self.objective_values(game)         # keeps the static weights
            weights = self._obj_weights
        v = self.vec
        decay = float(v[P.AX_DECAY])
        radius = float(v[P.AX_SUPPLY_RADIUS])
        envelop = float(v[P.AX_ENVELOP])
        walk = getattr(self, "_walk", None)
        if walk is None:
            walk = self._walk = mc.AxisWalk()
        skip = self._skip
        order = [u for u in sorted(candidates) if u not in skip]
        while order:
            out = mc.axis_step(game, mode, order, weights[1], envelop, decay, radius, walk)
            stop_at, what = out[0], out[1]
            skip.update(order[:stop_at + 1])
            if what == mc.MOVE:
                return Move(order[stop_at], int(out[2]))
            if what == mc.DONE:
                return None
            u = order[stop_at]                  # hitched artillery: decided here
            order = order[stop_at + 1:]
            mv = self._special_move(game, mode, u, None)
            if mv is not None:
                return mv
        return None

    def _special_move(self, game, mode, u, ehex):
        """The move of artillery (prepare in place when it may, rule 6.6,
        never in an enemy ZOC, 5.4) or an HQ (:meth:`_move_hq`) for
        :meth:`next_move`; None when it stays."""
        s = game.state
        if game.static.utype[u] == st.ARTILLERY:
            here = int(s.hex[u])
            if s.hitched[u] and game.can_prepare_after(u, 0.0, False):
                from malta_sim.iod.rules import movement as mv
                zoc = mv._masks(game, u, mode)[0]          # the test execute_move applies (5.4)
                if not zoc[here] and not mv.zoc_map(game, 1 - self.side)[here]:
                    return Move(u, here, prepare=True)
            return None
        return self._move_hq(game, u, mode, ehex)

    def _move_hq(self, game, u, mode, ehex):
        """An HQ moves toward its formation's units when more than four hexes
        from the nearest, ending at least two hexes from enemy units (8.2, 16.8)."""
        t, s = game.static, game.state
        dist = t.grid.distance_table
        f = int(s.formation[u])
        mine = game.on_map(self.side)
        ut = t.utype[mine]
        mine = mine[(s.formation[mine] == f) & (mine != u) & game.ground_mask[mine]
                    & (ut != st.HQ) & (ut != st.ARTILLERY)]
        if not len(mine):
            return None
        mh = np.unique(s.hex[mine])
        here = int(s.hex[u])
        if dist[here, mh].min() <= 4:
            return None
        legal = game.legal_moves(u, mode)
        if not legal:
            return None
        n = len(legal)
        hs = np.fromiter(legal, np.int64, n)
        cost = np.fromiter(legal.values(), np.float64, n)
        if len(ehex):
            ok = dist[hs[:, None], ehex].min(axis=1) >= 3
            hs, cost = hs[ok], cost[ok]
            if not len(hs):
                return None
        near = dist[hs[:, None], mh].min(axis=1)
        i = np.lexsort((hs, cost, near))[0]            # nearest, fewest MP, lowest hex
        if near[i] < dist[here, mh].min():
            return Move(u, int(hs[i]))
        return None

    # ------------------------------------------------------------ organisation
    def breakdowns(self, game, eligible):
        """Rule 13.1: with ``breakdown`` on, battalions next to an enemy stack
        break down so their companies can surround it."""
        if not self.vec[P.AX_BREAKDOWN]:
            return []
        t, s = game.static, game.state
        dist = t.grid.distance_table
        enemy = game.on_map(1 - self.side)
        enemy = enemy[game.ground_mask[enemy]]
        if not len(enemy):
            return []
        ehex = s.hex[enemy]
        eligible = list(eligible)
        if not eligible:
            return []
        near = dist[s.hex[eligible][:, None], ehex[None, :]].min(axis=1) == 1
        return [b for b, ok in zip(eligible, near.tolist()) if ok]

    def reforms(self, game, options):
        """Rule 13.2: reform whenever possible when ``reform`` is on."""
        return list(options) if self.vec[P.AX_REFORM] else []

    def attachments(self, game, options):
        """Rule 15.21: attach an unassigned unit to the formation whose HQ is
        nearest (keeps it in supply, 8.2)."""
        t, s = game.static, game.state
        dist = t.grid.distance_table
        out = {}
        for u, forms in options.items():
            if not forms or s.hex[u] < 0:
                continue
            best = None
            for f in forms:
                hq = int(t.formation_hq[f]) if 0 <= f < len(t.formation_hq) else -1
                if hq >= 0 and s.hex[hq] >= 0:
                    d = int(dist[s.hex[u], s.hex[hq]])
                    if best is None or d < best[0]:
                        best = (d, f)
            if best is not None and best[1] != int(s.formation[u]):
                out[u] = best[1]
        return out

    # ------------------------------------------------------------ combat (9, 10, 12)
    def combat_plan(self, game, options):
        """Rule 9.2 a (12.2, 12.52, 16.42, 16.74, 10.1): see
        :meth:`_ParamBot._plan_support`."""
        return self._plan_support(game, options, int(options.air_markers), True)

    def _hurricane_ok(self):
        return bool(self.vec[P.AX_HURRICANE])

    def _bombard_ok(self):
        return bool(self.vec[P.AX_BOMBARD])

    def _plan_bombard(self, game, options, plan, used):
        """Rules 10.12-10.14, 12.51-12.52: with ``bombard`` on, the free
        artillery bombards the targets that get no support, most defenders
        first, but only where the exact outcome distribution of the
        Bombardment Table (:func:`bombard_value`, from
        :func:`malta_sim.exact.combat.bombardment_distribution`, at the strength, stacking total and column shift the engine will use,
        :func:`~malta_sim.iod.rules.combat.bombardment_strength`,
        :func:`~malta_sim.iod.rules.combat.stacking_total`,
        :func:`~malta_sim.iod.rules.combat.bombardment_shift`) is worth the
        salvo: an expected value of at least :data:`BOMBARD_MIN_VALUE` steps,
        counting a D result as a quarter step and a Z as half a step.  With
        ``hurricane`` on, the guns that hold two salvos fire a fire hurricane
        (12.52: double strength, both salvos, the guns disorganized) when it
        adds at least :data:`HURRICANE_MIN_GAIN` steps.  The plan is kept for
        :meth:`next_attack`."""
        t = game.static
        cb = _combat()
        if self._bombard_ok() and options.bombard:
            hok = options.hurricane_ok
            for tgt, units in _bombard_order(game, 1 - self.side, options.bombard):
                if tgt in plan.support:
                    continue
                free = [u for u in units if u not in used and t.utype[u] != st.WARSHIP]
                if not free:
                    continue
                stack = cb.stacking_total(game, tgt, 1 - self.side)
                shift = cb.bombardment_shift(game, self.side, tgt)

                def value(hur):
                    return bombard_value(cb.bombardment_strength(game, tgt, free, hur), stack,
                                         shift, t.charts)
                v = value(())
                hur = {u for u in free if u in hok} if self._hurricane_ok() else set()
                vh = value(hur) if hur else v
                if hur and vh >= v + HURRICANE_MIN_GAIN and vh >= BOMBARD_MIN_VALUE:
                    plan.bombard[tgt] = free
                    plan.hurricane |= hur
                    used.update(free)
                elif v >= BOMBARD_MIN_VALUE:
                    plan.bombard[tgt] = free
                    used.update(free)
        self._plan = plan
        return plan

    def stand_ground(self, game, units, hits, attacker):
        """Rule 9.7: a defending stack in an airfield, city, fort or town tries
        to stand against at most ``stand_max_hits`` retreat hexes."""
        if attacker:
            return False
        t, s = game.static, game.state
        h = int(s.hex[units[0]])
        key = bool(t.city[h] or t.fort[h] or t.town[h] or t.airfield[h])
        return bool(key and hits <= self.vec[P.AX_STAND])

    def advance_further(self, game, units, options):
        """Rule 9.84: continue the advance into the option nearest an objective."""
        if not options or not self.vec[P.AX_ADVANCE]:
            return None
        dist = game.static.grid.distance_table
        obj = self.objective_values(game)
        gh = np.flatnonzero(obj > 0)
        if not len(gh):
            return None
        here = int(game.state.hex[units[0]])
        best = min(options, key=lambda h: (int(dist[h, gh].min()), h))
        return int(best) if dist[best, gh].min() < dist[here, gh].min() else None

    # ------------------------------------------------------------ invasion (18, 19, 21)
    def plan_sticks(self, game, turn, sticks, targets, limits):
        """Rules 19.2, 19.3: the default stick plan, trimmed to
        ``stick_fraction`` of the allowed sticks."""
        out = super().plan_sticks(game, turn, sticks, targets, limits)
        frac = float(self.vec[P.AX_STICK_FRACTION])
        if frac < 1.0:
            out = out[:int(np.ceil(frac * len(out)))]
        return out

    def solitaire_marker_method(self, game, formation):
        """Rule 21.11: method ``a`` when ``solitaire_method_a`` is set, else ``b``."""
        return "a" if self.vec[P.AX_SOL_METHOD_A] else "b"

    def solitaire_n_sticks(self, game, turn, max_n):
        """Rule 21.12: ``stick_fraction`` of the allowed sticks (rounded up)."""
        return int(min(max_n, np.ceil(self.vec[P.AX_STICK_FRACTION] * max_n)))
