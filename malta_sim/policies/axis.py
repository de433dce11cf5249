"""Parameterised Axis bot for Island of Death (presets ``axis:balanced``,
``axis:aggressive``, ``axis:cautious``, ``axis:solitaire``).

The bot builds on :class:`malta_sim.policies.simple.BalancedPolicy` (land
decisions) and :class:`malta_sim.policies.invasion.InvasionDecisions` (the
invasion defaults it inherits through the simple bots) and replaces the
decisions where a knob matters.  Every knob is a slot of the float64 vector
``self.vec`` documented in :mod:`malta_sim.policies.params`.

Attack selection (rules 9.2-9.4, 9.92) uses the exact 2d6 distribution of the
CRT cell the attack would land on: for each target the bot forecasts the final
odds level (strengths, support, the 9.92 shifts it can foresee: armour,
engineers, envelopment, integrity, mixed formations, morale, air support;
leader rolls are left out) and from it the expected enemy steps lost, own
steps lost and enemy retreat hexes (:func:`attack_forecast`).  It attacks when
the final odds reach ``min_odds`` and ``E[enemy steps] + retreat_value x
E[retreat] - risk_weight x E[own steps] >= min_gain``.

A combat plan, and each attack pick, is worked out for all targets in one
compiled call (:mod:`malta_sim.policies.forecast`) with the same arithmetic and
tie-breaks as the plain Python methods kept here (:meth:`_ParamBot._score_target`,
:meth:`_ParamBot._plan_plain`); those answer instead when a subclass replaces
``_score_target``.
"""

from __future__ import annotations

from itertools import accumulate, chain

import numba as nb
import numpy as np

from ..games.island_of_death import static as st
from ..games.island_of_death.state import BOX_MAP
from . import params as P
from .base import CombatPlan, Move, own_methods, plain_methods
from .forecast import (best_attack, forecast_tables, options_and_pick, plan_targets,
                       score_targets)
from .simple import BalancedPolicy


_MODULES: dict = {}


def _combat():
    """The combat rules module (imported on first use: the engine package
    imports the policies while it is being set up)."""
    m = _MODULES.get("combat")
    if m is None:
        from ..games.island_of_death import combat as m
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
    from ..games.island_of_death.combat import crt_column

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
        Bot parameter vector (:mod:`malta_sim.policies.params`).
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


#: Per-unit state fields a forecast base reads (see :class:`_ForecastMemo`).
_FC_UNIT_FIELDS = ("hex", "box", "level", "morale_state", "out_of_supply", "formation")
#: Bases kept per game at most (the memo is emptied beyond; a bound, not a policy).
_FC_MAX_ENTRIES = 4096


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
    if t.city[target] or fort:
        dfn *= 2                                                               # 9.91
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
    cap = 2 * sum([attack[u][lev[u]] for u in attackers])                      # 12.21
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


@nb.njit(cache=True)
def _changed_units(hx, box, level, morale, oos, form, hx0, box0, level0, morale0, oos0, form0):
    """Units whose hex, box, level, morale state, supply or formation differ
    from the copy (``*0``, int/bool[n_units] each); the copy is brought up to
    date in place.

    Returns
    -------
    out : int64[3, k]
        Per changed unit: its index, its hex in the copy before the update
        (-1 off the map), and 1 when its box, level or morale state changed
        (else 0).
    """
    n = hx.shape[0]
    out = np.empty((3, n), np.int64)
    k = 0
    for u in range(n):
        blm = box[u] != box0[u] or level[u] != level0[u] or morale[u] != morale0[u]
        if blm or hx[u] != hx0[u] or oos[u] != oos0[u] or form[u] != form0[u]:
            out[0, k] = u
            out[1, k] = hx0[u]
            out[2, k] = 1 if blm else 0
            k += 1
            hx0[u] = hx[u]
            box0[u] = box[u]
            level0[u] = level[u]
            morale0[u] = morale[u]
            oos0[u] = oos[u]
            form0[u] = form[u]
    return out[:, :k]


class _ForecastMemo:
    """Forecast bases of one game (:func:`_forecast_base`), kept while nothing
    they read changes.

    A base is a pure function of the attacking side, the target hex, the
    attackers, night (9.3 f), the target's fort (9.94, 17.1), the whole
    ``integrity_lost`` table (9.92), the fields :data:`_FC_UNIT_FIELDS` of the
    units of its ``core`` deps (attackers and defenders; the defenders are the
    units in the target hex) and the box, level and morale state of its
    ``members`` deps (9.92 integrity).  The first five are the memo key;
    :meth:`sync` compares the unit fields and ``integrity_lost`` with the copy
    taken at the previous sync and drops every base with a changed unit among
    its ``core``, a ``members`` unit with a changed box, level or morale state,
    or a changed unit leaving, entering or staying in its target hex (a new or
    changed defender), and every base when ``integrity_lost`` changed.  A base
    kept is therefore equal to the one recomputed on the current state.
    Target scores (``scores``, see :meth:`_ParamBot._score_target`) are kept by
    the same rule, their deps being those of their bases plus the supporting
    units (in ``core``).
    """

    __slots__ = ("snap", "integ", "entries", "sup", "scores", "night")

    def __init__(self, game):
        s = game.state
        self.night = game.night              # of the state at the last sync (9.3 f, 10.2)
        self.snap = [getattr(s, f).copy() for f in _FC_UNIT_FIELDS]
        self.integ = s.integrity_lost.copy()
        self.entries: dict = {}
        self.scores: dict = {}
        self.sup: dict = {}                  # unit -> {(target, formations, hurricane, night): value}

    def _put(self, which: int, key: tuple, value, deps) -> None:
        """Keep ``value`` (with its ``(core, members)`` deps, frozensets) under
        ``key`` in ``entries`` (``which`` 0) or ``scores`` (1)."""
        memo = self.scores if which else self.entries
        if len(memo) >= _FC_MAX_ENTRIES:
            memo.clear()
        memo[key] = (value, deps)

    def sync(self, game) -> "_ForecastMemo":
        """Drop the bases the state changes since the last sync invalidate."""
        s = game.state
        self.night = game.night
        if self.integ.tobytes() != s.integrity_lost.tobytes():
            self.__init__(game)
            return self
        out = _changed_units(s.hex, s.box, s.level, s.morale_state, s.out_of_supply,
                             s.formation, *self.snap)
        if out.shape[1]:
            ch = out[0]
            units = set(ch.tolist())
            if self.entries or self.scores:
                hexes = set(out[1].tolist())
                hexes.update(s.hex[ch].tolist())
                blm = set(ch[out[2] == 1].tolist())
                for memo in (self.entries, self.scores):
                    drop = [k for k, (_v, (core, members)) in memo.items()
                            if k[1] in hexes or not core.isdisjoint(units)
                            or not members.isdisjoint(blm)]
                    for k in drop:
                        del memo[k]
            if self.sup:
                for u in units:
                    self.sup.pop(u, None)
        return self

    def base(self, game, side: int, target: int, attackers: tuple) -> tuple:
        """The :func:`_forecast_base` tuple (memoised; call :meth:`sync` after
        any state change first)."""
        return self.entry(game, side, target, attackers)[0]

    def entry(self, game, side: int, target: int, attackers: tuple) -> tuple:
        """``(base, deps)`` of :func:`_forecast_base` (memoised)."""
        fd = bool(game.state.fort_destroyed[target])
        key = (side, target, attackers, self.night, fd)
        hit = self.entries.get(key)
        if hit is None:
            dkey = (side, target, None, self.night, fd)      # the defending side, kept alike
            part = self.entries.get(dkey)
            if part is None:
                d = _defence_part(game, side, target)
                part = (d, (frozenset(d[0]), frozenset()))
                self._put(0, dkey, *part)
            hit = _forecast_base(game, side, target, attackers, part[0])
            self._put(0, key, *hit)
        return hit

    def support(self, game, units, target: int, attackers, hurricane=()) -> int:
        """:func:`support_points` of ``units`` (memoised; call :meth:`sync`
        after any state change first).

        One unit's support (:func:`~malta_sim.games.island_of_death.combat.support_value`,
        rules 9.91, 12.22, 12.52) reads the unit's supply, morale and
        formation (kept in the sync copy), night, the target hex's terrain,
        the formations of ``attackers`` and whether it fires a hurricane:
        those (the hex and formations by value) key each unit's value, which
        is dropped when the unit changes.
        """
        if not units:
            return 0
        support_value = _combat().support_value
        form = game.state.formation
        forms = frozenset([int(form[c]) for c in attackers])
        night = self.night
        sup = self.sup
        total = 0
        for u in units:
            hur = u in hurricane
            key = (target, forms, hur, night)
            mine = sup.get(u)
            if mine is None:
                mine = sup[u] = {}
            v = mine.get(key)
            if v is None:
                if len(mine) >= _FC_MAX_ENTRIES:
                    mine.clear()
                v = mine[key] = support_value(game, u, True, target, attackers, hur)
            total += v
        return total


def _forecast_memo(game) -> _ForecastMemo:
    """The game's :class:`_ForecastMemo`, synced with the current state."""
    memo = game.extra.get("_bot_forecast_memo")
    if memo is None:
        memo = game.extra["_bot_forecast_memo"] = _ForecastMemo(game)
        return memo
    return memo.sync(game)


class Forecast:
    """What the bot foresees of an attack on ``target`` by ``attackers``
    (rules 9.3 b-g, 9.91, 9.92); support, air and fire hurricanes are added by
    :meth:`level`.  ``memo`` (a synced :class:`_ForecastMemo`) skips the sync
    when a decision builds many forecasts on one state."""

    __slots__ = ("target", "attackers", "att", "cap", "dfn", "mods", "line", "fort",
                 "def_steps", "att_steps")

    def __init__(self, game, side: int, target: int, attackers, memo=None):
        self.target = int(target)
        self.attackers = [int(u) for u in attackers]
        if memo is None:
            memo = _forecast_memo(game)
        (self.att, self.cap, self.dfn, self.mods, self.line, self.fort, self.def_steps,
         self.att_steps) = memo.base(game, int(side), self.target, tuple(self.attackers))

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
    from ..games.island_of_death.combat import support_value

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
        self._plan = None

    def _phase_reset(self, game, mode=""):
        key = (game.turn, game.phase_name, mode)
        if key != self._phase_key:
            self._phase_key = key
            self._skip = set()

    def _thresholds(self, idx):
        v = self.vec
        return v[idx[0]], v[idx[1]], v[idx[2]], v[idx[3]]

    # ---- shared combat logic (9.2 a, 9.3 a)
    def _score_target(self, game, tgt, units, support_units=(), air=0, hurricane=(),
                      penetration=False, memo=None):
        """Best (ok, gain, level, attackers) over :func:`attack_groups`; a
        penetration attempt keeps only groups with a unit with or next to its
        formation leader (10.32).  ``memo``: a synced :class:`_ForecastMemo`."""
        thr = self._thresholds(self._thr_idx)
        if memo is None:
            memo = _forecast_memo(game)
        tgt = int(tgt)
        key = None
        if not penetration:
            # the score reads the forecast bases, the support values (both kept
            # by the memo's rule), the thresholds and the pure expected losses
            key = (self.side, tgt, tuple(units), tuple(support_units), air,
                   frozenset(hurricane), thr, memo.night, bool(game.state.fort_destroyed[tgt]))
            hit = memo.scores.get(key)
            if hit is not None:
                ok, gain, lv, grp = hit[0]
                return ok, gain, lv, list(grp)
        best = None
        groups = attack_groups(game, units)
        if penetration:
            from ..games.island_of_death.combat import _penetration_leader
            groups = [g for g in groups if _penetration_leader(game, g) is not None]
        side = int(self.side)
        core, members = set(support_units), set()
        for grp in groups:
            base, (c, m) = memo.entry(game, side, tgt, tuple(grp))
            if key is not None:
                core.update(c)
                members.update(m)
            sp = memo.support(game, support_units, tgt, grp, hurricane) if support_units else 0
            ok, gain, lv = _base_value(game, base, thr, sp, air)
            if best is None or (ok, gain) > (best[0], best[1]):
                best = (ok, gain, lv, grp)
        if key is not None and best is not None:
            memo._put(1, key, (best[0], best[1], best[2], tuple(best[3])),
                      (frozenset(core), frozenset(members - core)))
        return best

    def _compiled_scores(self) -> bool:
        """Whether :meth:`_score_target` and :meth:`_place_support` are the
        plain ones, so that :mod:`malta_sim.policies.forecast` may answer for
        them (a replacement, in a subclass or on the bot object, is asked
        instead; see :func:`~malta_sim.policies.base.own_methods`)."""
        return own_methods(self, _SCORED_BY_KERNEL)

    def _score_many(self, game, tgts, unit_lists, sup_lists, hur, airs, plan_mode,
                    whole=False) -> list:
        """:meth:`_score_target` of several targets in one compiled call
        (:func:`malta_sim.policies.forecast.score_targets`; rules 9.3 a-g,
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
        flat = list(chain.from_iterable(sup_lists))
        args = self._kernel_inputs(game, tgts, unit_lists, sup_lists, flat,
                                   self._thresholds(self._thr_idx))
        s_hur = np.array([u in hur for u in flat] if hur else [False] * len(flat), np.bool_)
        out_grp, out_base = args[-2], args[-1]
        ok, gain, lv = score_targets(*args[:4], plan_mode, whole, *args[5:10], s_hur,
                                     np.array(airs, np.int64), *args[12:])
        u_ptr = args[6]
        res = []
        grps = out_grp.tolist()
        bases = out_base.tolist()
        offs = u_ptr.tolist()
        for i, (o, g, v) in enumerate(zip(ok.tolist(), gain.tolist(), lv.tolist())):
            b = bases[i]
            base = (b[1], b[2], b[3], b[4], b[5], bool(b[6]), b[7], b[8])
            res.append((o, g, v, grps[offs[i]:offs[i] + b[0]], base))
        return res

    def _kernel_inputs(self, game, tgts, unit_lists, sup_lists, flat, thr) -> tuple:
        """The arguments of :func:`~malta_sim.policies.forecast.score_targets`
        (``plan_mode``, ``s_hur`` and ``airs``, positions 4, 10 and 11, left
        to the caller):
        the targets, their attackers and supporters (``flat``, all
        ``sup_lists`` in a row) as offset arrays, the static tables, the unit
        state and fresh output arrays."""
        ft = forecast_tables(game)
        s = game.state
        u_ptr = np.array([0, *accumulate(map(len, unit_lists))], np.int64)
        s_ptr = np.array([0, *accumulate(map(len, sup_lists))], np.int64)
        n_u = int(u_ptr[-1])
        return (int(self.side), bool(game.night), ft.night_line, np.array(thr, np.float64), None,
                np.array(tgts, np.int64), u_ptr,
                np.fromiter(chain.from_iterable(unit_lists), np.int64, n_u), s_ptr,
                np.array(flat, np.int64), None, None,
                ft.unit, ft.attack, ft.defense, ft.morale, ft.mem_ptr,
                ft.mem_idx, ft.hexes, ft.line_cols, ft.col_level, ft.losses, ft.d_max, ft.a_max,
                s.hex, s.box, s.level, s.morale_state, s.out_of_supply, s.formation,
                s.fort_destroyed, s.integrity_lost[0], np.empty(n_u, np.int64),
                np.zeros((len(tgts), 9), np.int64))

    def _pick_penetration(self, game, options):
        """:meth:`_pick_attack` of a penetration attempt (rules 10.3, 10.31,
        10.32): the groups of :func:`attack_groups` with a unit with or next
        to its formation leader, scored without support or air in one
        compiled call; per target the first best group by ``(ok, gain)``, then
        the first target with the highest gain among those that pass."""
        from ..games.island_of_death.combat import _penetration_leader

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
        plan = self._plan or CombatPlan()
        best = None
        s = game.state
        if penetration and self._compiled_scores():
            return self._pick_penetration(game, options)
        if not penetration and self._compiled_scores():
            return self._pick_compiled(game, options, plan)
        memo = _forecast_memo(game)
        for tgt in sorted(options):
            sup = [] if penetration else [u for u in plan.support.get(tgt, []) if not s.fired[u]]
            air = 0 if penetration else int(plan.air.get(tgt, 0))
            hur = plan.hurricane & set(sup)
            sc = self._score_target(game, tgt, options[tgt], sup, air, hur, penetration, memo)
            if sc is None:
                continue
            ok, gain, lv, grp = sc
            if ok and (best is None or gain > best[0]):
                best = (gain, tgt, grp)
        if best is None:
            return None
        return (best[1], list(best[2]))

    def _pick_compiled(self, game, options, plan):
        """:meth:`_pick_attack` (not a penetration attempt) in one compiled
        call (:func:`malta_sim.policies.forecast.best_attack`; rules 9.3 a-g,
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

    def attack_now(self, game):
        """The engine's attack options (rules 9.11, 9.13, 9.15, 9.16, 10.21)
        and :meth:`next_attack`'s answer to them in one compiled call
        (:func:`malta_sim.policies.forecast.options_and_pick`; rules 9.3 a-g,
        9.91, 9.92, 12.21, 12.22, 12.52, 16.42), for the combat phase's
        attack loop (not penetration attempts).

        Returns
        -------
        NotImplemented, None or tuple of (int, list of int)
            NotImplemented when a method this call stands in for was replaced
            (:data:`_PICKED_BY_KERNEL`; the engine then asks
            :func:`~malta_sim.games.island_of_death.combat.attack_options`
            and :meth:`next_attack`); None when there is no attack option or
            none passes; else the target hex and the attacking units.
        """
        if not own_methods(self, _PICKED_BY_KERNEL):
            return NotImplemented
        plan = self._plan or CombatPlan()
        s, t, tb = game.state, game.static, game.tables
        ft = forecast_tables(game)
        side = int(self.side)
        support = plan.support
        if support:
            keys = list(support)
            lists = [support[h] for h in keys]
            p_tgt = np.array(keys, np.int64)
            p_ptr = np.array([0, *accumulate(map(len, lists))], np.int64)
            flat = list(chain.from_iterable(lists))
            p_idx = np.array(flat, np.int64)
            p_hur = _hurricane_mask(ft, flat, plan.hurricane)
        else:
            p_tgt = p_idx = _EMPTY
            p_ptr = _ZERO1
            p_hur = ft.no_hur
        air = plan.air
        if air:
            a_tgt = np.array(list(air), np.int64)
            a_n = np.array([int(v) for v in air.values()], np.int64)
        else:
            a_tgt = a_n = _EMPTY
        night = bool(game.night)
        status, tgt, grp = options_and_pick(
            side, night, ft.night_line, self._thr_array(), s.box, s.attacked, s.entered_turn,
            s.morale_state, s.level, s.hex, tb.attacker_side[side], t.attack,
            tb.defends_side[1 - side], t.defense, tb.adj_table, game.turn, s.fired, p_tgt, p_ptr,
            p_idx, p_hur, a_tgt, a_n, *ft.kargs, s.out_of_supply, s.formation, s.fort_destroyed,
            s.integrity_lost[0])
        if status <= 0:
            return None
        return (int(tgt), grp.tolist())

    def _plan_support(self, game, options, air_markers: int, allow_hurricane: bool):
        """Rule 9.2 a: support (12.2, 16.74), air support (16.42), fire
        hurricanes (12.52) and bombardments (10.1) for the attacks this bot
        expects to make.  Returns a :class:`CombatPlan`.

        Every target is scored (:meth:`_score_target`, in one compiled call
        when that is the plain method) with its artillery, or its first three
        warships when these support more, and one air marker if any is left;
        then, best first, each attack that passes takes the guns that still
        raise its expected gain, a fire hurricane when it stays below
        ``min_odds``, and an air marker when it adds more than 0.05 steps."""
        atk = options.attackers
        if atk is None:
            atk = _combat().attack_options(game, self.side)
        thr = self._thresholds(self._thr_idx)
        q_t, q_u = [], []
        for tgt in options.attack_targets:
            units = atk.get(tgt, [])
            if units:
                q_t.append(tgt)
                q_u.append(units)
        if self._compiled_scores():
            return self._plan_compiled(game, options, q_t, q_u, air_markers,
                                       allow_hurricane and self._hurricane_ok(), thr)
        return self._plan_plain(game, options, q_t, q_u, air_markers, allow_hurricane, thr)

    def _plan_plain(self, game, options, q_t, q_u, air_markers, allow_hurricane, thr):
        """:meth:`_plan_support` for the targets ``q_t`` (attackers ``q_u``)
        with :meth:`_score_target` asked per target: the plain reference of
        :meth:`_plan_compiled` (rules 9.2 a, 9.3, 9.92, 10.1, 12.2, 12.52,
        16.42, 16.74)."""
        t = game.static
        scored = []
        memo = _forecast_memo(game)
        for tgt, units in zip(q_t, q_u):
            sup = options.support.get(tgt, [])
            arty = [u for u in sup if t.utype[u] != st.WARSHIP]
            ships = [u for u in sup if t.utype[u] == st.WARSHIP][:3]
            full = arty if memo.support(game, arty, tgt, units) >= memo.support(game, ships, tgt, units) else ships
            ok, gain, lv, grp = self._score_target(game, tgt, units, full, min(1, air_markers),
                                                   memo=memo)
            scored.append((ok, gain, tgt, grp, None))
        return self._place_support(game, options, scored, air_markers, allow_hurricane, thr)

    def _place_support(self, game, options, scored, air_markers, allow_hurricane, thr):
        """The second half of :meth:`_plan_support` (rules 9.2 a, 10.1, 12.2,
        12.52, 16.42, 16.74): ``scored`` holds ``(ok, gain, target, group,
        base)`` per target (``base`` the group's :func:`_forecast_base` tuple,
        or None to look it up)."""
        from ..games.island_of_death.combat import support_value

        t = game.static
        plan = CombatPlan()
        used: set = set()
        mo = thr[0]
        scored.sort(key=lambda x: (not x[0], -x[1], x[2]))
        air_left = air_markers
        side = int(self.side)
        utype = t.utype
        for ok, gain, tgt, grp, base in scored:
            if not ok:
                continue
            tgt = int(tgt)
            if base is None:
                base = _forecast_memo(game).base(game, side, tgt, tuple(int(u) for u in grp))
            sup = [u for u in options.support.get(tgt, []) if u not in used]
            # one support value per unit (9.91, 12.22): sums of them are the
            # support of any set of these units
            sv = {u: support_value(game, u, True, tgt, grp, False) for u in sup}
            arty = sorted((u for u in sup if utype[u] != st.WARSHIP), key=lambda u: -sv[u])
            ships = [u for u in sup if utype[u] == st.WARSHIP][:3]          # 16.74
            pool = arty if sum([sv[u] for u in arty]) >= sum([sv[u] for u in ships]) else ships
            chosen: list = []
            _base_ok, base_gain, _ = _base_value(game, base, thr, 0, 0)
            cur_gain = base_gain
            sp_chosen = 0
            for u in pool:                       # add guns while they still help
                _, g2, _ = _base_value(game, base, thr, sp_chosen + sv[u], 0)
                if g2 > cur_gain + 1e-9:
                    chosen.append(u)
                    sp_chosen += sv[u]
                    cur_gain = g2
            hur: set = set()
            if allow_hurricane and self._hurricane_ok():
                att, cap, dfn, mods = base[0], base[1], base[2], base[3]
                if int(st.odds_level(att + min(int(sp_chosen), cap), dfn) + mods) < mo:
                    for u in chosen:
                        if u in options.hurricane_ok:
                            hur.add(u)
            if chosen:
                plan.support[tgt] = chosen
                used.update(chosen)
                plan.hurricane |= hur
            if air_left > 0:
                sp = sum([support_value(game, u, True, tgt, grp, True) if u in hur else sv[u]
                          for u in chosen])
                _, g0, _ = _base_value(game, base, thr, sp, 0)
                _, g1, _ = _base_value(game, base, thr, sp, 1)
                if g1 > g0 + 0.05:
                    plan.air[tgt] = 1
                    air_left -= 1
        return self._plan_bombard(game, options, plan, used)

    def _plan_compiled(self, game, options, q_t, q_u, air_markers, allow_hurricane, thr):
        """:meth:`_plan_support` for the targets ``q_t`` (attackers ``q_u``)
        in one compiled call (:func:`malta_sim.policies.forecast.plan_targets`;
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
    (0 or 1) first, ties in the dict's order: :func:`_bombard_order_plain`
    with the pieces of every hex counted in one pass."""
    items = list(bombard.items())
    if len(items) > 1:
        hx = game.state.hex[game.tables.side_mask[enemy]]
        cnt = np.bincount(hx[hx >= 0], minlength=game.static.n_hexes).tolist()
        items.sort(key=lambda kv: -cnt[kv[0]])
    return items


def _bombard_order_plain(game, enemy: int, bombard: dict) -> list:
    """:func:`_bombard_order` from ``game.units_at`` per hex: the plain
    reference (rule 10.1)."""
    return sorted(bombard.items(), key=lambda kv: -len(game.units_at(kv[0], enemy)))


def _hurricane_mask(ft, flat: list, hurricane) -> np.ndarray:
    """bool[len(flat)]: which of the support units ``flat`` are in the set
    ``hurricane`` (fire hurricanes, 12.52); the shared all-False array of
    ``ft`` (:class:`~malta_sim.policies.forecast.ForecastTables`, read only)
    when the set is empty."""
    if hurricane:
        return np.array([u in hurricane for u in flat], np.bool_)
    if len(flat) <= ft.no_hur.shape[0]:
        return ft.no_hur
    return np.zeros(len(flat), np.bool_)


#: The plain methods the compiled scoring and plan stand in for.
_SCORED_BY_KERNEL = plain_methods(_ParamBot, ("_score_target", "_place_support"))
#: The plain methods :meth:`_ParamBot.attack_now` stands in for (with the
#: engine's attack options, which it works out itself).
_PICKED_BY_KERNEL = plain_methods(_ParamBot, ("next_attack", "_pick_attack", "_pick_compiled",
                                              "_compiled_scores", "_score_target",
                                              "_place_support"))
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
    compiled walk (:func:`malta_sim.policies.move_choice.axis_walk_kernel`)
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


class AxisBot(_ParamBot, BalancedPolicy):
    """Parameterised Axis bot (see module docstring and
    :data:`malta_sim.policies.params.AXIS_PARAMS`).

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
        if self.side != 0 or not own_methods(self, _MOVED_BY_KERNEL):
            return self._next_move_plain(game, mode, candidates)
        return self._next_move_compiled(game, mode, candidates, False)

    def planned_move(self, game, mode, candidates):
        """:meth:`next_move` for the engine's movement loop, a move of the
        compiled choice handed over with what the choice already knows of it
        (rules 6.1-6.6): ``(unit, dest, spent, path)`` with the MP spent and
        the hexes entered in order (:func:`movement.execute_planned` carries
        it out without a second search); a :class:`Move` (artillery
        preparing, 6.6) or None as :meth:`next_move` answers.  Returns
        ``NotImplemented`` when the compiled choice may not answer (another
        side, or a method it stands in for replaced, :func:`own_methods`):
        the engine then asks :meth:`next_move`."""
        self._phase_reset(game, mode)
        if self.side != 0 or not own_methods(self, _PLANNED_BY_KERNEL):
            return NotImplemented
        return self._next_move_compiled(game, mode, candidates, True)

    def _next_move_compiled(self, game, mode, candidates, planned):
        """:meth:`next_move` by the compiled walk of
        :func:`malta_sim.policies.move_choice.axis_step` (``planned``: as
        :meth:`planned_move` answers)."""
        mc = _MODULES.get("move_choice")
        if mc is None:
            from . import move_choice as mc
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
            out = mc.axis_step(game, mode, order, weights[1], envelop, decay, radius, walk, planned)
            stop_at, what = out[0], out[1]
            skip.update(order[:stop_at + 1])
            if what == mc.MOVE:
                if planned:
                    return (order[stop_at], out[2], out[3], out[4])
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
                from ..games.island_of_death import movement as mv
                zoc = mv._masks(game, u, mode)[0]          # the test execute_move applies (5.4)
                if not zoc[here] and not mv.zoc_map(game, 1 - self.side)[here]:
                    return Move(u, here, prepare=True)
            return None
        return self._move_hq(game, u, mode, ehex)

    def _next_move_plain(self, game, mode, candidates):
        """:meth:`next_move` as a plain loop over the candidates, one
        :meth:`Game.legal_moves` call each (the reference the compiled walk
        of :mod:`.move_choice` is tested against; also used by a bot that is
        not the Axis side or has its own supply anchor)."""
        t, s = game.static, game.state
        v = self.vec
        dist = t.grid.distance_table
        obj, gh, ehex, ehex64, envelop, goals = self._move_setup(game)
        decay = float(v[P.AX_DECAY])
        radius = float(v[P.AX_SUPPLY_RADIUS])
        for u in sorted(candidates):
            if u in self._skip:
                continue
            self._skip.add(u)
            ut = t.utype[u]
            if ut == st.LEADER or s.moved[u]:
                continue
            here = int(s.hex[u])
            if ut == st.ARTILLERY or ut == st.HQ:
                mv = self._special_move(game, mode, u, ehex)
                if mv is not None:
                    return mv
                continue
            if not len(gh):
                continue
            goal = goals.get(here)
            if goal is None:
                goal = goals[here] = int(_goal_hex(obj, gh, len(gh), dist, here, decay))
            d_here = int(dist[here, goal])
            if d_here == 0:
                continue
            legal = game.legal_moves(u, mode)
            if not legal:
                continue
            n = len(legal)
            best = _best_step(dist, np.fromiter(legal, np.int64, n),
                              np.fromiter(legal.values(), np.float64, n), goal, d_here,
                              self._anchor_hex(game, u), radius, ehex64, envelop)
            if best >= 0:
                return Move(u, int(best))
        return None

    def _move_setup(self, game) -> tuple:
        """What :meth:`next_move` reads of the whole position: objective
        weights ``obj`` and the hexes ``gh`` where they are positive, the
        hexes of enemy ground units (``ehex``, and as int64), the envelopment
        bonus and a dict of goal hexes by unit hex (filled by
        :meth:`next_move`).  All are functions of the game's data, the bot's
        vector, hex control (16.1) and the enemy units' box and hex, so the
        answer is kept while those are unchanged (the last position only; a
        subclass with its own :meth:`objective_values` is asked every time)."""
        s = game.state
        key = None
        if own_methods(self, _OBJECTIVES_PLAIN):
            sel = self._enemy_sel
            if sel is None or sel[0] is not game.static:
                from ..games.island_of_death.special import side_selector
                sel = self._enemy_sel = (game.static, side_selector(game.static, 1 - self.side))
            sel = sel[1]
            key = (s.control.tobytes(), s.box[sel].tobytes(), s.hex[sel].tobytes())
            memo = self._move_memo
            if memo is not None and memo[0] is game and memo[1] == key:
                return memo[2]
        v = self.vec
        obj = self.objective_values(game)
        gh = np.flatnonzero(obj > 0)
        enemy = game.on_map(1 - self.side)
        enemy = enemy[game.ground_mask[enemy]]
        ehex = np.unique(s.hex[enemy]) if len(enemy) else np.zeros(0, np.int64)
        envelop = float(v[P.AX_ENVELOP]) if len(ehex) and v[P.AX_ENVELOP] > 0 else 0.0
        out = (obj, gh, ehex, ehex.astype(np.int64), envelop, {})
        self._move_memo = (game, key, out) if key is not None else None
        return out

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
        enemy = [int(x) for x in game.on_map(1 - self.side) if game.is_ground(int(x))]
        if not enemy:
            return []
        ehex = np.unique(s.hex[enemy])
        return [b for b in eligible if dist[s.hex[b], ehex].min() == 1]

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


#: The plain methods the compiled move choice (:mod:`.move_choice`) stands in for.
_MOVED_BY_KERNEL = plain_methods(AxisBot, ("_anchor_hex", "_move_hq", "objective_values",
                                           "_move_setup", "_special_move"))
#: The methods :meth:`AxisBot.planned_move` stands in for (with its own and
#: those of the compiled move choice).
_PLANNED_BY_KERNEL = dict(_MOVED_BY_KERNEL, **plain_methods(AxisBot, ("next_move", "planned_move",
                                                                      "_next_move_compiled")))
#: :meth:`AxisBot.objective_values`, whose answer :meth:`AxisBot._move_setup` may keep.
_OBJECTIVES_PLAIN = plain_methods(AxisBot, ("objective_values",))
