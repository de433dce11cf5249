"""Plain references of the scripted bots' compiled decisions (test oracles).

:class:`PlainAxisBot` is the Axis preset bot with its compiled decisions
(attack scoring and picks, the combat plan, the movement walk) replaced by
plain Python loops over the engine's queries: one target, one group of
attackers, one unit at a time.  It decides as the preset does, bit for bit;
the tests play both on the same games and compare every answer.
"""

from __future__ import annotations

import numpy as np

from malta_sim.iod import static as st
from malta_sim.iod.rules.combat import _penetration_leader, support_value
from malta_sim.bots import params as P
from malta_sim.bots.allied import _NOT_HOLDERS, AlliedBot, _key_mask
from malta_sim.iod.rules import movement as _movement_module
from malta_sim.bots.axis import (AxisBot, _base_value, _best_step, _forecast_base,
                                     _goal_hex, attack_groups, support_points)
from malta_sim.bots.base import CombatPlan, Move


def bombard_order(game, enemy: int, bombard: dict) -> list:
    """:func:`malta_sim.bots.axis._bombard_order` from ``game.units_at``
    per hex (rule 10.1)."""
    return sorted(bombard.items(), key=lambda kv: -len(game.units_at(kv[0], enemy)))


def pick_attack(bot, game, options, penetration=False):
    """Rules 9.3 a, 10.31: the first target with the highest gain among
    those that pass, each scored by :meth:`_score_target`."""
    plan = bot._plan or CombatPlan()
    best = None
    s = game.state
    for tgt in sorted(options):
        sup = [] if penetration else [u for u in plan.support.get(tgt, []) if not s.fired[u]]
        air = 0 if penetration else int(plan.air.get(tgt, 0))
        hur = plan.hurricane & set(sup)
        sc = score_target(bot, game, tgt, options[tgt], sup, air, hur, penetration)
        if sc is None:
            continue
        ok, gain, lv, grp = sc
        if ok and (best is None or gain > best[0]):
            best = (gain, tgt, grp)
    if best is None:
        return None
    return (best[1], list(best[2]))


def score_target(bot, game, tgt, units, support_units=(), air=0, hurricane=(),
                  penetration=False):
    """Best (ok, gain, level, attackers) over :func:`attack_groups`; a
    penetration attempt keeps only groups with a unit with or next to its
    formation leader (10.32)."""
    thr = bot._thresholds(bot._thr_idx)
    tgt = int(tgt)
    best = None
    groups = attack_groups(game, units)
    if penetration:
        groups = [g for g in groups if _penetration_leader(game, g) is not None]
    side = int(bot.side)
    for grp in groups:
        base = _forecast_base(game, side, tgt, tuple(grp))[0]
        sp = support_points(game, support_units, tgt, grp, hurricane) if support_units else 0
        ok, gain, lv = _base_value(game, base, thr, sp, air)
        if best is None or (ok, gain) > (best[0], best[1]):
            best = (ok, gain, lv, grp)
    return best


def plan_support(bot, game, options, q_t, q_u, air_markers, allow_hurricane, thr):
    """:meth:`_plan_support` for the targets ``q_t`` (attackers ``q_u``)
    with :meth:`_score_target` asked per target: the plain reference of
    :meth:`_plan_compiled` (rules 9.2 a, 9.3, 9.92, 10.1, 12.2, 12.52,
    16.42, 16.74)."""
    t = game.static
    scored = []
    for tgt, units in zip(q_t, q_u):
        sup = options.support.get(tgt, [])
        arty = [u for u in sup if t.utype[u] != st.WARSHIP]
        ships = [u for u in sup if t.utype[u] == st.WARSHIP][:3]
        full = (arty if support_points(game, arty, tgt, units) >= support_points(game, ships, tgt, units)
                else ships)
        ok, gain, lv, grp = score_target(bot, game, tgt, units, full, min(1, air_markers))
        scored.append((ok, gain, tgt, grp, None))
    return place_support(bot, game, options, scored, air_markers, allow_hurricane, thr)


def place_support(bot, game, options, scored, air_markers, allow_hurricane, thr):
    """The second half of :meth:`_plan_support` (rules 9.2 a, 10.1, 12.2,
    12.52, 16.42, 16.74): ``scored`` holds ``(ok, gain, target, group,
    base)`` per target (``base`` the group's :func:`_forecast_base` tuple,
    or None to look it up)."""
    t = game.static
    plan = CombatPlan()
    used: set = set()
    mo = thr[0]
    scored.sort(key=lambda x: (not x[0], -x[1], x[2]))
    air_left = air_markers
    side = int(bot.side)
    utype = t.utype
    for ok, gain, tgt, grp, base in scored:
        if not ok:
            continue
        tgt = int(tgt)
        if base is None:
            base = _forecast_base(game, side, tgt, tuple(int(u) for u in grp))[0]
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
        if allow_hurricane and bot._hurricane_ok():
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
    return bot._plan_bombard(game, options, plan, used)


def next_move(bot, game, mode, candidates):
    """:meth:`next_move` as a plain loop over the candidates, one
    :meth:`Game.legal_moves` call each (the reference of the compiled
    walk of :mod:`malta_sim.bots.move_choice`)."""
    t, s = game.static, game.state
    v = bot.vec
    dist = t.grid.distance_table
    obj, gh, ehex, ehex64, envelop, goals = move_setup(bot, game)
    decay = float(v[P.AX_DECAY])
    radius = float(v[P.AX_SUPPLY_RADIUS])
    for u in sorted(candidates):
        if u in bot._skip:
            continue
        bot._skip.add(u)
        ut = t.utype[u]
        if ut == st.LEADER or s.moved[u]:
            continue
        here = int(s.hex[u])
        if ut == st.ARTILLERY or ut == st.HQ:
            mv = bot._special_move(game, mode, u, ehex)
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
                          bot._anchor_hex(game, u), radius, ehex64, envelop)
        if best >= 0:
            return Move(u, int(best))
    return None


def move_setup(bot, game) -> tuple:
    """What :meth:`next_move` reads of the whole position: objective
    weights ``obj`` and the hexes ``gh`` where they are positive, the
    hexes of enemy ground units (``ehex``, and as int64), the envelopment
    bonus and a dict of goal hexes by unit hex (filled by
    :meth:`next_move`), worked out afresh."""
    s = game.state
    v = bot.vec
    obj = bot.objective_values(game)
    gh = np.flatnonzero(obj > 0)
    enemy = game.on_map(1 - bot.side)
    enemy = enemy[game.ground_mask[enemy]]
    ehex = np.unique(s.hex[enemy]) if len(enemy) else np.zeros(0, np.int64)
    envelop = float(v[P.AX_ENVELOP]) if len(ehex) and v[P.AX_ENVELOP] > 0 else 0.0
    out = (obj, gh, ehex, ehex.astype(np.int64), envelop, {})
    return out


class PlainAxisBot(AxisBot):
    """The Axis preset bot deciding by plain loops (see the module docstring)."""

    def _pick_attack(self, game, options, penetration=False):
        return pick_attack(self, game, options, penetration)

    def _plan_compiled(self, game, options, q_t, q_u, air_markers, allow_hurricane, thr):
        return plan_support(self, game, options, q_t, q_u, air_markers, allow_hurricane, thr)

    def next_move(self, game, mode, candidates):
        self._phase_reset(game, mode)
        return next_move(self, game, mode, candidates)


class PlainAlliedBot(AlliedBot):
    """The Allied preset bot with its move choice
    (:func:`malta_sim.bots.move_choice.allied_move_kernel`) as plain loops,
    the position read afresh at every call, the units tried kept in the
    bot's sets (``_skip``, ``_tried_pairs``)."""

    def next_move(self, game, mode, candidates):
        return next_move_allied(self, game, mode, candidates)


def next_move_allied(bot, game, mode, candidates):
    """:meth:`AlliedBot.next_move` as plain Python: its kinds of move tried
    in order, each a plain loop (:func:`beach_move`, :func:`retake_move`,
    :func:`shore_up`, :func:`move_reserve`, :func:`reinforce`,
    :func:`garrison_move`), the units tried recorded in ``bot._skip``
    (``("b", u)``, ``("t", u)``, ``u``, ``("r", u)``, ``("g", u)``) and
    ``bot._tried_pairs`` (unit, goal hex)."""
    bot._phase_reset(game, mode)
    s = game.state
    if bot.vec[P.AL_BEACHES]:
        live = bot.live_beaches(game)
        if len(live):
            held = bot._holders(game)
            lone = {int(h) for h in live if held[h] == 1}          # lone holders stay (20.0)
            candidates = [u for u in candidates if int(s.hex[u]) not in lone]
            mv = beach_move(bot, game, mode, live, candidates)
            if mv is not None:
                return mv
    res = bot.reserve_units(game)
    if bot.vec[P.AL_RETAKE_EMPTY]:
        mv = retake_move(bot, game, mode, candidates)
        if mv is not None:
            return mv
    if res:
        mine = [u for u in candidates if u in res]
        if bot.vec[P.AL_SHORE_UP] and mine:
            mv = shore_up(bot, game, mode, mine)
            if mv is not None:
                return mv
        mv = move_reserve(bot, game, mode, mine)
        if mv is None and bot.vec[P.AL_REINFORCE]:
            mv = reinforce(bot, game, mode, mine)
        if mv is not None:
            return mv
    garrison = [u for u in candidates if u not in res]
    return garrison_move(bot, game, mode, garrison) if garrison else None


def beach_move(bot, game, mode, live, cands):
    """:func:`malta_sim.bots.move_choice.beach_kernel` as a plain loop: the goals worked out
    afresh, one :meth:`Game.legal_moves` call per candidate within reach
    (rules 6.1-6.6, 2.1, 20.0)."""
    t, s = game.static, game.state
    held = bot._holders(game)
    enemy = game.tables.side_mask[1 - bot.side]
    ex = s.hex[enemy]
    occ = np.bincount(ex[ex >= 0], minlength=t.n_hexes + 1)
    goals = set(int(h) for h in live if s.control[h] != bot.side and occ[h] == 0
                and held[h] == 0)
    if not goals:
        return None
    obj = bot._garrison_weights(t)
    goal_arr = np.fromiter(goals, np.int64, len(goals))
    dist = t.grid.distance_table
    mv = _movement_module
    for u in sorted(cands):
        if ("b", u) in bot._skip:
            continue
        bot._skip.add(("b", u))
        if t.utype[u] in _NOT_HOLDERS or not game.is_ground(u) \
                or int(t.defense[u, s.level[u]]) <= 0:
            continue
        here = int(s.hex[u])
        if here < 0 or (obj[here] > 0 and held[here] == 1):
            continue
        if int(dist[here, goal_arr].min()) > mv.reach_bound(game, u, mode):
            continue                   # no goal within reach: no legal move ends there
        legal = game.legal_moves(u, mode)
        best = None
        for h, mp in legal.items():
            if int(h) in goals and (best is None or (mp, h) < best):
                best = (mp, int(h))
        if best is not None:
            return Move(u, best[1])
    return None


def shore_up(bot, game, mode, cands):
    """:func:`malta_sim.bots.move_choice.shore_up_kernel` as a plain loop: the threatened objectives
    worked out with numpy, one :meth:`Game.legal_moves` call per candidate
    within reach (rules 6.1-6.6, 9.1, 20.0)."""
    t, s = game.static, game.state
    need = float(bot.vec[P.AL_SHORE_UP])
    on_ground = (s.box == 0) & game.ground_mask           # ground units on the map
    ax = np.flatnonzero(on_ground & game.tables.side_mask[1 - bot.side])
    if not len(ax) or not cands:
        return None
    key = _key_mask(t)
    held = np.flatnonzero(key & t.land & (s.control == bot.side))
    if not len(held):
        return None
    # strengths summed per hex (whole numbers: exact in any order)
    atk = np.bincount(s.hex[ax], weights=t.attack[ax, s.level[ax]].astype(np.float64),
                      minlength=t.n_hexes + 1)            # last slot: off the grid
    threat = atk[t.neighbours[held]].sum(axis=1)
    al = np.flatnonzero(on_ground & game.tables.side_mask[bot.side])
    dfn = np.bincount(s.hex[al], weights=t.defense[al, s.level[al]].astype(np.float64),
                      minlength=t.n_hexes)
    order = [int(held[i]) for i in np.lexsort((held, -threat))
             if threat[i] > 0 and dfn[held[i]] < need]
    if not order:
        return None
    holders = bot._holders(game)
    dist = t.grid.distance_table
    mv = _movement_module
    bound: dict = {}
    legal_of: dict = {}
    for goal in order:
        best = None
        for u in sorted(cands):
            if (u, goal) in bot._tried_pairs:
                continue
            bot._tried_pairs.add((u, goal))
            here = int(s.hex[u])
            if here == goal or (key[here] and holders[here] == 1):
                continue
            b = bound.get(u)
            if b is None:
                b = bound[u] = mv.reach_bound(game, u, mode)
            if int(dist[here, goal]) > b:
                continue               # the goal is out of reach: not among the legal moves
            legal = legal_of.get(u)
            if legal is None:          # nothing moves during this call: one query per unit
                legal = legal_of[u] = game.legal_moves(u, mode)
            mp = legal.get(goal)
            if mp is not None and (best is None or (mp, u) < best):
                best = (mp, u)
        if best is not None:
            return Move(best[1], goal)
    return None


def move_reserve(bot, game, mode, cands):
    """:func:`malta_sim.bots.move_choice.reserve_kernel` (closing on weak stacks) as a plain loop: the weak Axis stacks
    and the objectives worked out afresh, one :meth:`Game.legal_moves` call
    per candidate (rules 6.1-6.6)."""
    t, s = game.static, game.state
    dist = t.grid.distance_table
    tot: dict = {}
    for u in game.on_map(1 - bot.side):
        u = int(u)
        if game.is_ground(u):
            h = int(s.hex[u])
            tot[h] = tot.get(h, 0) + int(t.defense[u, s.level[u]])
    weak = np.array([h for h, d in tot.items() if d <= bot.vec[P.AL_WEAK]], dtype=np.int64)
    if not len(weak) or not cands:
        return None
    obj = (t.airfield | t.town).copy()
    obj[t.victory_cities] = True
    oh = np.flatnonzero(obj & t.land)
    near_obj = weak[dist[np.ix_(weak, oh)].min(axis=1) <= bot.vec[P.AL_RESERVE_RADIUS]]
    if not len(near_obj):
        return None
    for u in sorted(cands):
        if u in bot._skip:
            continue
        bot._skip.add(u)
        here = int(s.hex[u])
        if dist[here, near_obj].min() <= 1:
            continue
        legal = game.legal_moves(u, mode)
        if not legal:
            continue
        n = len(legal)
        hs = np.fromiter(legal, np.int64, n)
        near = dist[hs[:, None], near_obj].min(axis=1)
        i = np.lexsort((hs, np.fromiter(legal.values(), np.float64, n), near))[0]
        if near[i] < dist[here, near_obj].min():         # nearest, fewest MP, lowest hex
            return Move(u, int(hs[i]))
    return None


def reinforce(bot, game, mode, cands):
    """:func:`malta_sim.bots.move_choice.reserve_kernel` (toward threatened objectives) as a plain loop: the Axis units and the
    threatened objectives worked out afresh, one :meth:`Game.legal_moves`
    call per candidate (rules 6.1-6.6)."""
    t, s = game.static, game.state
    dist = t.grid.distance_table
    axis = [int(x) for x in game.on_map(1 - bot.side) if game.is_ground(int(x))]
    if not axis or not cands:
        return None
    ah = s.hex[axis]
    key = t.airfield.copy()
    key[t.victory_cities] = True
    held = np.flatnonzero(key & t.land & (s.control == bot.side))
    if not len(held):
        return None
    threat = (dist[np.ix_(held, ah)] <= bot.vec[P.AL_RESERVE_RADIUS]).sum(axis=1)
    if not threat.any():
        return None
    goals = held[threat > 0]
    gthreat = threat[threat > 0]
    for u in sorted(cands):
        if ("r", u) in bot._skip:
            continue
        bot._skip.add(("r", u))
        here = int(s.hex[u])
        if dist[here, ah].min() <= 1:
            continue                                   # engaged: it attacks from here
        goal = int(goals[np.lexsort((goals, dist[here, goals], -gthreat))[0]])
        if here == goal:
            continue
        legal = game.legal_moves(u, mode)
        if not legal:
            continue
        n = len(legal)
        hs = np.fromiter(legal, np.int64, n)
        near = dist[hs, goal]
        i = np.lexsort((hs, np.fromiter(legal.values(), np.float64, n), near))[0]
        if near[i] < dist[here, goal]:
            return Move(u, int(hs[i]))
    return None


def garrison_move(bot, game, mode, cands):
    """:func:`malta_sim.bots.move_choice.garrison_kernel` as a plain loop, one
    :meth:`Game.legal_moves` call per candidate (rules 6.1-6.6)."""
    todo = [u for u in sorted(cands) if ("g", u) not in bot._skip]
    if not todo:                       # every candidate already tried this phase
        return None
    t, s = game.static, game.state
    val = bot.garrison_values(game)
    occupied = np.zeros(t.n_hexes, bool)
    own = game.on_map(bot.side)
    occupied[s.hex[own[game.ground_mask[own]]]] = True
    empty = np.flatnonzero((val > 0) & ~occupied)
    if not len(empty):
        return None
    enemy = game.on_map(1 - bot.side)
    enemy = enemy[game.ground_mask[enemy]]
    ehex = np.unique(s.hex[enemy]) if len(enemy) else np.zeros(0, np.int64)
    empty_list = empty.tolist()
    # hexes within one hex of an enemy unit, from the same distance table
    near_enemy = (t.grid.distance_table[ehex] <= 1).any(axis=0) if len(ehex) else None
    return _first_to_reach(bot, game, mode, todo, "g", empty_list, val, val, near_enemy)


def _first_to_reach(bot, game, mode, todo, tag, goals, val, held, near_enemy=None):
    """The first unit of ``todo`` (each recorded as tried, ``(tag, u)``), not
    artillery, an HQ, a leader or AA, not on a hex ``held`` values, not on
    a ``near_enemy`` hex, with one of ``goals`` among its
    :meth:`Game.legal_moves`: its move onto the one of most ``val``, then
    fewest MP, then lowest hex; None when there is none."""
    t, s = game.static, game.state
    for u in todo:
        bot._skip.add((tag, u))
        if t.utype[u] in (st.ARTILLERY, st.HQ, st.LEADER, st.AA) or held[s.hex[u]] > 0:
            continue
        if near_enemy is not None and near_enemy[s.hex[u]]:
            continue
        legal = game.legal_moves(u, mode)
        dests = [h for h in goals if h in legal]
        if dests:
            return Move(u, min(dests, key=lambda h: (-val[h], legal[h], h)))
    return None


def retake_move(bot, game, mode, cands):
    """The retake move of :func:`malta_sim.bots.move_choice.garrison_kernel`
    (``retake``) as a plain loop: the first candidate, ascending, not tried
    yet, not artillery, an HQ, a leader or AA and not on an objective its
    side holds, with an empty objective the enemy controls among its
    :meth:`Game.legal_moves` moves onto the most valuable one (fewest MP,
    then lowest hex, on ties); rules 2.1, 6.1-6.6, 20.0."""
    todo = [u for u in sorted(cands) if ("t", u) not in bot._skip]
    if not todo:
        return None
    t, s = game.static, game.state
    held = bot.garrison_values(game)
    w = bot._garrison_weights(t) + 2.0 * (t.fort & ~s.fort_destroyed)
    val = np.where((s.control == 1 - bot.side) & t.land, w, 0.0)
    occupied = np.zeros(t.n_hexes, bool)
    for side in (0, 1):
        units = game.on_map(side)
        occupied[s.hex[units[game.ground_mask[units]]]] = True
    goals = np.flatnonzero((val > 0) & ~occupied).tolist()
    if not goals:
        return None
    return _first_to_reach(bot, game, mode, todo, "t", goals, val, held)


def choose_advance(game, units, target) -> list:
    """The default bots' advance after combat (rules 9.8, 9.83): the eligible
    pieces ``units`` (int), lowest index first, each kept when it fits in hex
    ``target`` with those kept before it (:func:`.organisation.fits_stacking`,
    7.1).  The plain reference of
    :meth:`malta_sim.bots.simple._LandBot.choose_advance`.

    Returns
    -------
    list of int
        The advancing pieces, ascending.
    """
    from malta_sim.iod.rules.organisation import fits_stacking

    out = []
    ut = game.static.utype
    for u in sorted(units):
        if ut[u] in (st.HQ, st.AA):
            continue                  # the bots keep HQs and AA where they stand
        if fits_stacking(game, out + [u], target):
            out.append(u)
    return out


def preset_with(name: str, side: int, mixin, params: dict | None = None):
    """The preset bot ``name`` (:data:`malta_sim.bots.presets.PRESETS`) with the
    methods of class ``mixin`` put in front of its own (a mixin calls the
    preset's through ``super()``): a bot a test writes, played through the
    engine's public interface."""
    from malta_sim.bots.allied import AlliedBot
    from malta_sim.bots.axis import AxisBot
    from malta_sim.bots.presets import PRESETS

    base = AxisBot if side == 0 else AlliedBot
    cls = type(f"{mixin.__name__}_{name}", (mixin, base), {"name": name, "preset_base": dict(PRESETS[name][1])})
    return cls(side, params)


def plain_preset(name: str, side: int, params: dict | None = None):
    """The preset bot ``name`` (:data:`malta_sim.bots.presets.PRESETS`)
    deciding by the plain references of this module."""
    from malta_sim.bots.presets import PRESETS

    base = PlainAxisBot if side == 0 else PlainAlliedBot
    cls = type(f"Plain_{name}", (base,), {"name": name, "preset_base": dict(PRESETS[name][1])})
    return cls(side, params)
