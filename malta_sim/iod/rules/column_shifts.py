"""The odds-level modifiers of rule 9.92 (with 11.2, 11.4, 16.24, 17.32) as
compiled kernels over the state arrays, and the static tables they read.

:func:`odds_parts` gives each modifier of an attack (armor, engineers,
envelopment, integrity, mixed formations, morale); leader rolls (14.2) and
air support (16.42) are added by :func:`.combat.odds_modifiers`, the one
place the engine asks.  The bots' forecasts (:mod:`malta_sim.bots.forecast`)
call the same kernels.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from malta_sim.iod import static as st
from malta_sim.iod.state import BOX_MAP, DEMORALIZED

# columns of the packed per-unit table (:class:`CombatTables` ``unit``)
_TANK, _PARTNER, _REG, _REM, _SP, _ENG, _UTYPE, _SIDE, _COMPANY, _NLEV, _OFFSUP, _DEF0, _DEF1 = range(13)
# columns of the packed per-hex table (``hexes``)
_FORT, _CITY, _TOWN, _LINE, _LINE_NOFORT = range(5)


class CombatTables:
    """The static tables the compiled combat queries read, for one static
    data set (built once, :func:`combat_tables`; every array read-only).

    Attributes
    ----------
    unit : int64[n_units, 13]
        Per unit: tank, armor partner (9.92), regiment (-1 none), remnant
        level (17.31, -1 never), strongpoint (16.24), engineer, unit type,
        side, company, number of levels, offensive support value, takes part
        in the defense of an Axis hex, of an Allied hex (14.0, 16.57).
    attack, defense, morale : int64[n_units, n_levels_max]
        Printed values per unit and level.
    mem_ptr, mem_idx : int64[n_regiments + 1], int64[k]
        Battalions of each regiment or brigade (9.92), as offsets into
        ``mem_idx``.
    hexes : int64[n_hexes, 5]
        Per hex: fort, city, town, day CRT line, day CRT line once the fort is
        destroyed (9.3 f, 17.1).
    line_cols : int64[n_lines, 2], col_level : int64[n_cols]
        CRT columns of each line and odds level of each column (9.3 g).
    night_line : int
        CRT line used at night (10.2).
    """

    def __init__(self, static):
        from malta_sim.iod.game import static_tables

        t, tb = static, static_tables(static)
        n = len(t.utype)
        u = np.zeros((n, 13), np.int64)
        u[:, _TANK] = t.utype == st.TANK
        u[:, _PARTNER] = np.asarray(tb.armor_partner, bool)
        u[:, _REG] = t.regiment
        u[:, _REM] = tb.remnant_level
        u[:, _SP] = t.utype == st.STRONGPOINT
        u[:, _ENG] = np.asarray(tb.engineer, bool)
        u[:, _UTYPE] = t.utype
        u[:, _SIDE] = t.side
        u[:, _COMPANY] = np.asarray(tb.company, bool)
        u[:, _NLEV] = t.n_levels
        u[:, _OFFSUP] = [int(x) for x in t.off_support]
        u[:, _DEF0] = tb.defends_side[0]
        u[:, _DEF1] = tb.defends_side[1]
        self.unit = u
        self.attack = np.asarray(t.attack, np.int64)
        self.defense = np.asarray(t.defense, np.int64)
        self.morale = np.asarray(t.morale, np.int64)
        ptr = [0]
        idx: list = []
        for mem in tb.members:
            idx.extend(mem)
            ptr.append(len(idx))
        self.mem_ptr = np.array(ptr, np.int64)
        self.mem_idx = np.array(idx, np.int64)
        hx = np.zeros((len(t.fort), 5), np.int64)
        hx[:, _FORT] = t.fort
        hx[:, _CITY] = t.city
        hx[:, _TOWN] = t.town
        hx[:, _LINE] = t.crt_line
        hx[:, _LINE_NOFORT] = t.crt_line_nofort
        self.hexes = hx
        ch = t.charts
        self.line_cols = np.asarray(ch.line_cols, np.int64)
        self.col_level = np.asarray(ch.col_level, np.int64)
        self.night_line = int(ch.night_line)
        for a in (self.unit, self.attack, self.defense, self.morale, self.mem_ptr, self.mem_idx,
                  self.hexes, self.line_cols, self.col_level):
            a.flags.writeable = False


@st.per_static
def combat_tables(static) -> CombatTables:
    """The :class:`CombatTables` of ``static`` (built once per static data)."""
    return CombatTables(static)


def odds_modifier_parts(game, attackers, defenders, target: int) -> tuple:
    """The entries of :func:`odds_parts` for an attack by ``attackers`` on
    ``defenders`` in hex ``target`` on the game's position (rules 9.92, 11.2,
    11.4, 16.24, 17.32): eight odds levels, 0 where a modifier does not apply.

    Parameters
    ----------
    game : Game
    attackers, defenders : sequence of int
        Unit indices.
    target : int
        Dense index of the attacked hex.

    Returns
    -------
    tuple of 8 int
    """
    ct = combat_tables(game.static)
    s = game.state
    grp = np.array(attackers, np.int64)
    dfd = np.array(defenders, np.int64)
    n, nd = len(grp), len(dfd)
    fort = bool(game.static.fort[target] and not s.fort_destroyed[target])
    return odds_parts(grp, n, dfd, nd, int(target), fort, ct.unit, ct.morale, ct.mem_ptr,
                      ct.mem_idx, s.integrity_lost[0], s.hex, s.box, s.morale_state, s.level,
                      s.formation, np.empty(max(n, nd, 1), np.int64))



@nb.njit(cache=True, inline="always")
def _regiment_intact(r, grp, n, unit, mem_ptr, mem_idx, lost, box, mor, lev):
    """Rules 9.92, 9.95, 17.32: regiment ``r`` has battalions, all among
    ``grp[:n]``, on the map, none demoralized or a remnant, and its integrity
    is not lost."""
    a, b = mem_ptr[r], mem_ptr[r + 1]
    ok = a != b and not lost[r]
    k = a
    while ok and k < b:
        m = mem_idx[k]
        found = False
        i = 0
        while i < n and not found:
            found = grp[i] == m
            i += 1
        rem = unit[m, _REM]
        ok = found and not (box[m] != BOX_MAP or mor[m] == DEMORALIZED or (rem >= 0 and lev[m] == rem))
        k += 1
    _keep = (grp, unit, mem_ptr, mem_idx, lost, box, mor, lev)  # noqa: F841 (see above)
    return ok


@nb.njit(cache=True, inline="always")
def _side_shifts(grp, n, unit, morale_tab, mem_ptr, mem_idx, lost, hexa, box, mor, lev, scratch):
    """The 9.92 facts of one side of a combat (``grp[:n]`` its units): armor
    (a non-demoralized tank and a partner in one hex), intact regiment, morale
    total (16.24 strongpoints 4, 11.4 demoralized -1) and the number of units.
    ``scratch`` int64[>= n] is working space."""
    armor = False
    i = 0
    while i < n and not armor:
        u = grp[i]
        if unit[u, _TANK] and mor[u] != DEMORALIZED:
            h = hexa[u]
            j = 0
            while j < n and not armor:
                armor = unit[grp[j], _PARTNER] != 0 and hexa[grp[j]] == h
                j += 1
        i += 1
    intact = False
    nr = 0
    i = 0
    while i < n and not intact:
        r = unit[grp[i], _REG]
        if r >= 0:
            seen = False
            for j in range(nr):
                seen = seen or scratch[j] == r
            if not seen:
                scratch[nr] = r
                nr += 1
                intact = _regiment_intact(r, grp, n, unit, mem_ptr, mem_idx, lost, box, mor, lev)
        i += 1
    tot = 0
    for i in range(n):
        u = grp[i]
        v = 4 if unit[u, _SP] else morale_tab[u, lev[u]]
        tot += v - 1 if mor[u] == DEMORALIZED else v
    _keep = (grp, unit, morale_tab, mem_ptr, mem_idx, lost, hexa, box, mor, lev, scratch)  # noqa: F841
    return armor, intact, tot


@nb.njit(cache=True)
def odds_parts(grp, n, dfd, nd, target, fort, unit, morale_tab, mem_ptr, mem_idx, lost, hexa, box,
               mor, lev, form, scratch):
    """The 9.92 odds-level modifiers, one by one, of an attack by ``grp[:n]``
    on the defenders ``dfd[:nd]`` in hex ``target``, leader rolls and air
    support left out: the entries of
    :func:`.combat.odds_modifiers` (rules 9.92,
    11.2, 11.4, 16.24, 17.32).

    Parameters
    ----------
    grp : int64[>= n]
        Attacking units.
    dfd : int64[>= nd]
        Defending units.
    target : int
        Dense index of the attacked hex.
    fort : bool
        Undestroyed fort in the target hex (engineers +1).
    unit, morale_tab, mem_ptr, mem_idx : arrays
        :class:`CombatTables` fields.
    lost : bool[n_regiments]
        ``integrity_lost[0]`` (9.95).
    hexa, box, mor, lev, form : int[n_units]
        Unit hex, box, morale state, level and formation.
    scratch : int64[>= max(n, nd)]
        Working space.

    Returns
    -------
    tuple of 8 int
        Odds levels for: attacking armor (+2), defending armor (-1),
        engineers against a fort (+1), envelopment from four hexes (+1),
        attacker integrity (+2), defender integrity (-1), mixed formations
        (-1) and the morale difference (-2..+3); 0 where the modifier does
        not apply.
    """
    d_armor, d_intact, tot_d = _side_shifts(dfd, nd, unit, morale_tab, mem_ptr, mem_idx, lost,
                                            hexa, box, mor, lev, scratch)
    return _attack_parts(grp, n, nd, d_armor, d_intact, tot_d, fort, unit, morale_tab, mem_ptr,
                         mem_idx, lost, hexa, box, mor, lev, form, scratch)


@nb.njit(cache=True, inline="always")
def _attack_parts(grp, n, nd, d_armor, d_intact, tot_d, fort, unit, morale_tab, mem_ptr, mem_idx,
                  lost, hexa, box, mor, lev, form, scratch):
    """:func:`odds_parts` with the defending side's 9.92 facts given
    (``nd`` defenders; ``d_armor``, ``d_intact``, ``tot_d`` from
    :func:`_side_shifts` of the defenders), so that the groups of attackers
    of one target share them (rules 9.92, 11.2, 11.4, 16.24, 17.32)."""
    a_armor, a_intact, tot_a = _side_shifts(grp, n, unit, morale_tab, mem_ptr, mem_idx, lost,
                                            hexa, box, mor, lev, scratch)
    # distinct attacker hexes; engineers in each of them (9.92 vs a fort)
    nh = 0
    all_eng = True
    for i in range(n):
        h = hexa[grp[i]]
        seen = False
        j = 0
        while j < i and not seen:
            seen = hexa[grp[j]] == h
            j += 1
        if not seen:
            nh += 1
            eng = False
            j = 0
            while j < n and not eng:
                eng = hexa[grp[j]] == h and unit[grp[j], _ENG] != 0
                j += 1
            if not eng:
                all_eng = False
    # mixed formations (17.32: each remnant counts as its own formation)
    keys = 0
    for i in range(n):
        u = grp[i]
        rem = unit[u, _REM]
        if rem >= 0 and lev[u] == rem:
            keys += 1
        else:
            f = form[u]
            seen = False
            j = 0
            while j < i and not seen:
                w = grp[j]
                rw = unit[w, _REM]
                seen = not (rw >= 0 and lev[w] == rw) and form[w] == f
                j += 1
            if not seen:
                keys += 1
    ca = -(-tot_a // n) if n else 0
    cd = -(-tot_d // nd) if nd else 0
    diff = ca - cd
    morale = min(3, max(-2, diff)) if diff else 0
    _keep = (grp, unit, morale_tab, mem_ptr, mem_idx, lost, hexa, box, mor, lev, form,  # noqa: F841
             scratch)
    return (2 if a_armor else 0, -1 if d_armor else 0, 1 if fort and all_eng else 0,
            1 if nh >= 4 else 0, 2 if a_intact else 0, -1 if d_intact else 0,
            -1 if keys > 1 else 0, morale)


@nb.njit(cache=True)
def odds_shift_total(grp, n, dfd, nd, target, fort, unit, morale_tab, mem_ptr, mem_idx, lost,
                     hexa, box, mor, lev, form, scratch):
    """Sum of the 9.92 odds-level modifiers an attack by ``grp[:n]`` on the
    defenders ``dfd[:nd]`` in hex ``target`` gets without leader rolls and
    air support: the values of
    :func:`.combat.odds_modifiers` with
    ``roll_leaders=False``, ``air=0`` (rules 9.92, 11.2, 16.24, 17.32).

    Parameters
    ----------
    grp : int64[>= n]
        Attacking units (distinct).
    dfd : int64[>= nd]
        Defending units.
    target : int
        Dense index of the attacked hex.
    fort : bool
        Undestroyed fort in the target hex (engineers +1).
    unit, morale_tab, mem_ptr, mem_idx : arrays
        :class:`CombatTables` fields.
    lost : bool[n_regiments]
        ``integrity_lost[0]`` (9.95).
    hexa, box, mor, lev, form : int[n_units]
        Unit hex, box, morale state, level and formation.
    scratch : int64[>= n_units]
        Working space.

    Returns
    -------
    int
        Total column shift in odds levels.
    """
    p = odds_parts(grp, n, dfd, nd, target, fort, unit, morale_tab, mem_ptr, mem_idx, lost, hexa,
                   box, mor, lev, form, scratch)
    return p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7]
