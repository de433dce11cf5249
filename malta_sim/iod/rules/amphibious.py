"""Amphibious landings (rule 18): wave-box limits, landing losses, combat at the
water's edge, beach movement.

This module holds the rule kernels (compiled, drawing from a per-game
``uint64[4]`` state) and their exact probabilities; the phase driver that moves
units between the Follow-up / First Wave / Second Wave boxes and the beach
lives in :mod:`.hercules` (``amphibious_landing_phase``), so this file can be
tested on constructed positions without a whole game.

Wave-box limits (18.31, 18.32) per Amphibious Landing Phase:

* First Wave box: up to two infantry or engineer companies plus up to one
  marine company -- or two or three marine companies and nothing else; never
  artillery, motorcycle, HQ or tank; units of one division only.
* Second Wave box: exactly one unit of any kind (a company, an HQ or an
  artillery battalion); a Second Wave box whose First Wave box is empty may be
  used only if its beach hex is not adjacent to an Allied unit.
* No box connected to a beach hex occupied by the Allies (18.91); no two
  divisions land on one beach hex in the same phase (18.92); no landings at
  night (18.93).
"""

from __future__ import annotations

from fractions import Fraction

import numba as nb
import numpy as np

from malta_sim.rng import nb_die
from dataclasses import dataclass
from malta_sim.iod.rules import breakdown_reform
from malta_sim.iod import proximity
from malta_sim.iod import static as st
from malta_sim.iod.state import (ALLIED, AXIS, BOX_FIRST_WAVE, BOX_FOLLOW_UP, BOX_MAP, BOX_NOT_YET, BOX_SECOND_WAVE, NIGHT)
from malta_sim.iod import invasion
from malta_sim.iod.rules import coastal_guns

# Unit kinds used by the wave-box checks (18.31, 18.32).
KIND_INFANTRY = 0  # infantry company (incl. blackshirt companies)
KIND_ENGINEER = 1
KIND_MARINE = 2
KIND_ARTILLERY = 3
KIND_MOTORCYCLE = 4
KIND_TANK = 5
KIND_HQ = 6
KIND_OTHER = 7  # leaders ride with their HQ and are not counted

FIRST_WAVE_KINDS = (KIND_INFANTRY, KIND_ENGINEER, KIND_MARINE)
SECOND_WAVE_ONLY_KINDS = (KIND_ARTILLERY, KIND_MOTORCYCLE, KIND_TANK, KIND_HQ)


# ---------------------------------------------------------------- 18.31 / 18.32
def first_wave_ok(kinds: list[int], divisions: list[int]) -> tuple[bool, str]:
    """Check one First Wave box's contents for this phase (rules 18.31, 18.32).

    Parameters
    ----------
    kinds : list of int
        Unit kinds (``KIND_*``) of the units placed in the box.
    divisions : list of int
        Division (formation) id of each unit.

    Returns
    -------
    (bool, str)
        Whether the placement is legal, and the reason when it is not.
    """
    if not kinds:
        return True, ""
    if len(set(divisions)) > 1:
        return False, "rule 18.32: units of different divisions in one First Wave box"
    for k in kinds:
        if k not in FIRST_WAVE_KINDS:
            return False, "rule 18.32: artillery, motorcycle, HQ and tank units go to Second Wave boxes only"
    n_marine = sum(1 for k in kinds if k == KIND_MARINE)
    n_other = len(kinds) - n_marine
    if n_other == 0:
        if n_marine > 3:
            return False, "rule 18.31: at most three marine companies in a marine-only First Wave box"
        return True, ""
    if n_other > 2:
        return False, "rule 18.31: at most two infantry or engineer companies in a First Wave box"
    if n_marine > 1:
        return False, "rule 18.31: at most one marine company with infantry or engineers in a First Wave box"
    return True, ""


def second_wave_ok(n_units: int) -> tuple[bool, str]:
    """A Second Wave box holds at most one unit (an HQ counts as one unit; its
    leader rides along) (rule 18.32)."""
    if n_units > 1:
        return False, "rule 18.32: at most one unit in a Second Wave box"
    return True, ""


# ---------------------------------------------------------------- 18.5
def landing_loss_modifier(dist_to_allied: int) -> int:
    """Die modifier for the Landing Losses roll (rule 18.5).

    ``+2`` when the beach hex is adjacent to an Allied unit, ``+1`` when it is
    two hexes from the nearest one; the two are not cumulative.  No roll at all
    beyond two hexes (returns ``-1`` as "no roll").
    """
    if dist_to_allied <= 1:
        return 2
    if dist_to_allied == 2:
        return 1
    return -1


@nb.njit(cache=True)
def landing_loss_roll(rs, dist_to_allied):
    """Roll on the Landing Losses table for one unit just landed (rule 18.5).

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state, advanced in place (no draw when no roll is due).
    dist_to_allied : int
        Hexes from the unit's beach hex to the nearest Allied unit.

    Returns
    -------
    bool
        True when the unit is eliminated (modified die of 7 or more).
    """
    if dist_to_allied > 2:
        return False
    mod = 2 if dist_to_allied <= 1 else 1
    return nb_die(rs) + mod >= 7


def p_landing_loss(dist_to_allied: int) -> Fraction:
    """Exact elimination probability of :func:`landing_loss_roll` (rule 18.5):
    1/3 adjacent, 1/6 at two hexes, 0 beyond."""
    if dist_to_allied <= 1:
        return Fraction(2, 6)
    if dist_to_allied == 2:
        return Fraction(1, 6)
    return Fraction(0)


# ---------------------------------------------------------------- 18.6
@nb.njit(cache=True)
def waters_edge_column(strength, col_min):
    """Column of the Water's Edge Combat Table for a strength total (rule 18.6).

    Parameters
    ----------
    strength : int
        Total combat (attack) strength firing.
    col_min : int32[C]
        Lowest strength of each column, ascending.

    Returns
    -------
    int
        Column index, or -1 when the strength is below the first column.
    """
    col = -1
    for c in range(col_min.shape[0]):
        if strength >= col_min[c]:
            col = c
    return col


@nb.njit(cache=True)
def waters_edge_fire(rs, strength, col_min, table):
    """One water's-edge fire (Allied 18.61 or Axis 18.62): one die on the table.

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state.
    strength : int
        Strength total firing.
    col_min : int32[C]
        Column lower bounds.
    table : int8[C, 6]
        Hits (``X`` count) per column and die 1..6.

    Returns
    -------
    int
        Number of ``X`` results (each one step, no retreats, 18.63).
    """
    col = waters_edge_column(strength, col_min)
    if col < 0:
        return 0
    d = nb_die(rs)
    return int(table[col, d - 1])


def waters_edge_pmf(strength: int, col_min: np.ndarray, table: np.ndarray) -> dict[int, Fraction]:
    """Exact distribution of hits of :func:`waters_edge_fire`: ``{hits: probability}``."""
    col = waters_edge_column(int(strength), np.asarray(col_min, dtype=np.int32))
    if col < 0:
        return {0: Fraction(1)}
    out: dict[int, Fraction] = {}
    for d in range(6):
        h = int(table[col, d])
        out[h] = out.get(h, Fraction(0)) + Fraction(1, 6)
    return out


#: Fallback Water's Edge Combat Table (reconstructed; used only if the data set
#: does not ship one): columns by strength total, one X per row result.
FALLBACK_WE_COL_MIN = np.array([1, 3, 6, 10, 15, 21], dtype=np.int32)
FALLBACK_WE_TABLE = np.array(
    [
        [0, 0, 0, 0, 0, 1],
        [0, 0, 0, 0, 1, 1],
        [0, 0, 0, 1, 1, 1],
        [0, 0, 1, 1, 1, 1],
        [0, 1, 1, 1, 1, 2],
        [1, 1, 1, 1, 2, 2],
    ],
    dtype=np.int8,
)


# ====================================================================================
# Moved from the invasion engine
# ====================================================================================
def place_follow_up_boxes(game) -> None:
    """Rule 4.1 a / 18.22: every unit of each infantry division (with its
    attached units) goes to the Follow-up box of its beach zone."""
    s, t = game.state, game.static
    zone = s.division_zone[0]
    for u in np.flatnonzero((s.box == BOX_NOT_YET) & (t.side == AXIS) & (t.utype != st.WARSHIP)):
        d = int(s.formation[u])
        if 0 <= d < len(zone) and zone[d] >= 0:
            s.box[u] = BOX_FOLLOW_UP
            s.box_slot[u] = int(zone[d])
    invasion._log(game, "follow_up_boxes", side=AXIS, rule="18.22")


# =====================================================================================
# 4.22 Amphibious Landing Phase
# =====================================================================================
@dataclass
class WaveOptions:
    """Legal wave-box placements for one Amphibious Landing Phase (18.31, 18.32).

    Attributes
    ----------
    zones : dict zone -> list of units in its Follow-up box (companies, HQs,
        artillery; leaders excluded: they ride with their HQ, 18.33).
    first : dict zone -> beach hexes whose First Wave box may be used.
    second_free : dict zone -> beach hexes whose Second Wave box may be used even
        with an empty First Wave box (beach not adjacent to an Allied unit).
    second_needs_first : dict zone -> beach hexes whose Second Wave box needs
        its First Wave box filled this phase.
    """

    zones: dict
    first: dict
    second_free: dict
    second_needs_first: dict


def _kind(game, u: int) -> int:
    """Landing kind of unit ``u`` (18.31, 18.32): a table lookup (see :func:`_unit_kind`)."""
    return invasion.inv_static(game).unit_kinds[u]


def _unit_kind(t, u: int) -> int:
    """Landing kind of unit ``u`` from the static tables: marines, engineers,
    artillery, motorcycles, tanks, HQs, infantry companies; ``KIND_OTHER``
    (cannot land) for leaders and unbroken battalions (18.31)."""
    ut = t.utype[u]
    if ut == st.MARINE:
        return KIND_MARINE
    if ut == st.ENGINEER:
        return KIND_ENGINEER
    if ut == st.ARTILLERY:
        return KIND_ARTILLERY
    if ut == st.MOTORCYCLE:
        return KIND_MOTORCYCLE
    if ut == st.TANK:
        return KIND_TANK
    if ut == st.HQ:
        return KIND_HQ
    if ut == st.LEADER:
        return KIND_OTHER
    if t.size[u] == st.COMPANY:
        return KIND_INFANTRY
    return KIND_OTHER     # an unbroken battalion cannot land (18.31)


def wave_options(game) -> WaveOptions:
    """Legal boxes this phase (18.31, 18.32, 18.91)."""
    inv = invasion.inv_static(game)
    zones, first, free, needs = {}, {}, {}, {}
    s, t = game.state, game.static
    ax = t.side_units[AXIS]                          # the Axis pieces, ascending
    ax_box = s.box[ax]
    in_waves = set(s.box_slot[ax[(ax_box == BOX_FIRST_WAVE) | (ax_box == BOX_SECOND_WAVE)]].tolist())
    # (beach hexes with a filled wave box)
    # the units that may land, per zone's Follow-up box, ascending (one pass over the boxes)
    kinds = inv.unit_kinds
    fu = ax[ax_box == BOX_FOLLOW_UP]
    by_zone: dict = {}
    for u, z in zip(fu.tolist(), s.box_slot[fu].tolist()):
        if kinds[u] != KIND_OTHER:
            by_zone.setdefault(z, []).append(u)
    for z in range(len(inv.zone_names)):
        units = by_zone.get(z)
        if not units:
            continue
        zones[z] = units
        first[z], free[z], needs[z] = [], [], []
        beaches = inv.zone_beaches[z]
        # distance from each beach hex to the nearest Allied unit (99: none)
        near = proximity.nearest_allied_units(game, beaches).tolist()
        for b, dn in zip(beaches.tolist(), near):
            if dn == 0:
                continue                                       # 18.91
            if b in in_waves:
                continue
            first[z].append(b)
            adjacent = dn <= 1
            (needs[z] if adjacent else free[z]).append(b)
    return WaveOptions(zones, first, free, needs)


def fill_wave_boxes(game, opts: WaveOptions, gen) -> dict:
    """A legal filling of the wave boxes: the default (``gen`` None: fill
    everything, infantry first) or random legal (``gen`` a Generator)."""
    t = game.static
    kinds = invasion.inv_static(game).unit_kinds          # landing kind per unit (18.31)
    out: dict = {}
    for z, units in opts.zones.items():
        pool = list(units)
        if gen is not None:
            gen.shuffle(pool)
        beaches = list(opts.first[z])
        if gen is not None:
            gen.shuffle(beaches)
        by_beach_div: dict = {}
        if gen is None:
            by_beach_div = _spread_first_wave(game, pool, beaches, out)
        for b in (beaches if gen is not None else ()):
            if gen is not None and gen.random() < 0.3:
                continue
            divs = sorted({int(game.state.formation[u]) for u in pool})
            if not divs:
                break
            div = divs[int(gen.integers(len(divs)))] if gen is not None else \
                max(divs, key=lambda dv: sum(1 for u in pool if int(game.state.formation[u]) == dv))
            mine = [u for u in pool if int(game.state.formation[u]) == div]
            inf = [u for u in mine if kinds[u] in (KIND_INFANTRY, KIND_ENGINEER)]
            mar = [u for u in mine if kinds[u] == KIND_MARINE]
            pick = []
            if (gen is not None and gen.random() < 0.2 and len(mar) >= 2) or (not inf and mar):
                pick = mar[: (3 if gen is None else int(gen.integers(2, 4)))]
            else:
                pick = inf[:2] + mar[:1]
            if not pick:
                continue
            out[(BOX_FIRST_WAVE, b)] = pick
            by_beach_div[b] = div
            for u in pick:
                pool.remove(u)
        order_pref = (KIND_HQ, KIND_INFANTRY, KIND_ENGINEER, KIND_MARINE, KIND_TANK,
                      KIND_MOTORCYCLE, KIND_ARTILLERY)
        seconds = [b for b in opts.second_free[z]] + [b for b in opts.second_needs_first[z] if b in by_beach_div]
        if gen is not None:
            gen.shuffle(seconds)
        for b in seconds:
            if gen is not None and gen.random() < 0.3:
                continue
            cand = [u for u in pool if b not in by_beach_div or int(game.state.formation[u]) == by_beach_div[b]]
            if not cand:
                continue
            if gen is None:
                # the default keeps an HQ back until its beach hex is held or quiet
                held = any(t.utype[v] != st.LEADER for v in game.units_at(b, AXIS))
                quiet = invasion.dist_to_allied(game, b) > 2
                if not (held or quiet):
                    cand = [u for u in cand if kinds[u] != KIND_HQ] or []
                if not cand:
                    continue
                cand.sort(key=lambda u: (order_pref.index(kinds[u]), u))
                u = cand[0]
            else:
                u = cand[int(gen.integers(len(cand)))]
            out[(BOX_SECOND_WAVE, b)] = [u]
            pool.remove(u)
    return out


def _spread_first_wave(game, pool: list, beaches: list, out: dict) -> dict:
    """Default First Wave filling of one zone: every open beach hex gets a
    company before any gets a second, then a third (rules 18.31, 18.32).

    Each beach hex still Allied-controlled while the zone's Follow-up box holds
    Axis units adds +1 to every surrender roll (20.0), and a landing takes the
    hex (2.1), so the default lands on as many beach hexes as its companies
    allow.  Per beach hex one division (18.92): the one with the most
    First-Wave companies left.  Infantry and engineers before marines; each box
    stays legal under :func:`landings.first_wave_ok`.  Moves the chosen units
    out of ``pool`` into ``out[(BOX_FIRST_WAVE, beach)]``; returns beach hex ->
    division.
    """
    kinds = invasion.inv_static(game).unit_kinds
    kind = {u: kinds[u] for u in pool}
    div_of = {u: int(game.state.formation[u]) for u in pool}
    firsts = [u for u in pool if kind[u] in FIRST_WAVE_KINDS]
    firsts.sort(key=lambda u: (kind[u] == KIND_MARINE, u))
    by_beach_div: dict = {}
    for _round in range(3):
        for b in beaches:
            if not firsts:
                break
            if b in by_beach_div:
                div = by_beach_div[b]
            else:
                divs = sorted({div_of[u] for u in firsts})
                div = max(divs, key=lambda dv: (sum(1 for u in firsts if div_of[u] == dv), -dv))
            box = out.get((BOX_FIRST_WAVE, b), [])
            for u in firsts:
                if div_of[u] != div:
                    continue
                trial = box + [u]
                if first_wave_ok([kind[v] for v in trial], [div] * len(trial))[0]:
                    out[(BOX_FIRST_WAVE, b)] = trial
                    by_beach_div[b] = div
                    firsts.remove(u)
                    pool.remove(u)
                    break
    return by_beach_div


def validate_waves(game, opts: WaveOptions, assign: dict) -> None:
    """Check a wave-box assignment (18.31, 18.32, 18.91, 18.92); raise IllegalDecision."""
    used = set()
    div_of_beach: dict = {}
    zone_of_first = {}
    for z, bs in opts.first.items():
        for b in bs:
            zone_of_first[b] = z
    in_zone: dict = {}                        # zone -> its units as a set (membership only)
    for (wave, b), units in assign.items():
        if b not in zone_of_first:
            raise invasion._illegal("18.32", "box not connected to an occupied Follow-up box, or its beach is Allied-occupied")
        z = zone_of_first[b]
        zu = in_zone.get(z)
        if zu is None:
            zu = in_zone[z] = set(opts.zones[z])
        for u in units:
            if u in used or u not in zu:
                raise invasion._illegal("18.32", "unit not in the box's Follow-up box (or used twice)")
            used.add(u)
        divs = {int(game.state.formation[u]) for u in units}
        if wave == BOX_FIRST_WAVE:
            ok, why = first_wave_ok([_kind(game, u) for u in units], list(divs) * len(units))
            if len(divs) > 1:
                ok, why = False, "rule 18.32: units of different divisions in one First Wave box"
            if not ok:
                raise invasion._illegal("18.31", why)
        else:
            ok, why = second_wave_ok(len(units))
            if not ok:
                raise invasion._illegal("18.32", why)
            if b not in opts.second_free[z] and (BOX_FIRST_WAVE, b) not in assign:
                raise invasion._illegal("18.32", "Second Wave box of an empty First Wave box next to Allied units")
        for dv in divs:
            if div_of_beach.setdefault(b, dv) != dv:
                raise invasion._illegal("18.92", "two divisions on one beach hex in one phase")


def amphibious_landing_phase(game) -> None:
    """Rule 4.22 a-l: wave boxes, warships, coastal fire, two waves landing with
    landing losses, water's edge combat and beach movement (18.3-18.9)."""
    s = game.state
    if game.tod == NIGHT:
        return                                                  # 18.93
    if int(s.landings_cancelled_turn[0]) == game.turn:
        return                                                  # 22.39
    _follow_up_breakdowns(game)                                 # 18.31 / 13.1
    opts = wave_options(game)
    if opts.zones:
        assign = game.policy(AXIS).wave_boxes(game, opts)      # 4.22 a
        validate_waves(game, opts, assign)
        s = game.state
        for (wave, b), units in assign.items():
            for u in units:
                s.box[u], s.box_slot[u] = wave, b
            invasion._log(game, "wave_box", side=AXIS, hexes=[b], units=units, rule="18.31")
        _leaders_with_hq(game)                                  # 18.33
    from malta_sim.iod.rules import warships as ws
    if not s.warships_placed[0]:
        ws.place_warships(game)                                 # 4.22 b, 16.7
    ws.exchange_fire(game)                                      # 4.22 c, 16.55, 16.79
    coastal_guns.coastal_fire_at_boxes(game)                                 # 4.22 d, 16.56
    land_wave(game, BOX_FIRST_WAVE)                             # 4.22 e-h
    land_wave(game, BOX_SECOND_WAVE)                            # 4.22 i-l, 18.8


def _follow_up_breakdowns(game) -> None:
    """Rule 18.31: battalions in Follow-up boxes broken down as the Axis wishes
    (artillery never).

    Most battalions asked for cannot break down (13.1: no company pieces
    left), and :func:`break_down` then changes nothing; one compiled pass
    (:func:`breakable_kernel`) finds those, and they are passed over until a
    break-down changes the position (then each is asked afresh)."""
    s, t = game.state, game.static
    cand = invasion.inv_static(game).follow_up_battalions
    bns = cand[s.box[cand] == BOX_FOLLOW_UP].tolist()
    if not bns:
        return
    pick = [u for u in game.policy(AXIS).follow_up_breakdowns(game, bns) if u in bns]
    if not pick:
        return
    ok = breakable(game, pick)
    for i, b in enumerate(pick):
        if ok is not None and not ok[i]:
            continue                          # can_break_down is False: nothing would change
        if invasion.break_down(game, b):
            ok = None                         # the position changed: ask afresh


def breakable(game, units) -> list:
    """Per unit of ``units`` (sequence of unit indices), whether
    ``organisation.can_break_down`` holds now (rule 13.1; 17.31 remnants,
    Maltese units never), as Python bools: one :func:`breakable_kernel` pass."""
    s, t, tb = game.state, game.static, game.tables
    return breakable_kernel(np.asarray(units, np.int64), s.box, s.level, s.parent, tb.can_break,
                            tb.remnant_level, t.breakdown_n, t.breakdown_kind,
                            *tb.companies_of_csr, *tb.companies_of_kind_csr).tolist()


@nb.njit(cache=True)
def breakable_kernel(units, box, level, parent, can_break, remnant_level, breakdown_n, breakdown_kind,
                     own_start, own_flat, kind_start, kind_flat):
    """``organisation.can_break_down`` for each of ``units`` (rule 13.1): a
    battalion type that may break down (``can_break``: not Maltese) with
    company pieces enough (:func:`.reorganisation.companies_suffice`: not a
    remnant, 17.31; steps left to become companies; that many pieces free).

    Parameters
    ----------
    units : int64[k]
        Unit indices.
    box, level, parent : arrays [n_units]
        State fields of the same names.
    can_break : bool[n_units]
        ``StaticTables.can_break``.
    remnant_level : int8[n_units]
        ``StaticTables.remnant_level`` (-1: never a remnant).
    breakdown_n : int8[n_units]; breakdown_kind : int[n_units]
        Companies of a full-strength battalion; generic company kind (-1 none).
    own_start, own_flat, kind_start, kind_flat : int64 arrays
        ``StaticTables.companies_of_csr`` and ``companies_of_kind_csr``.

    Returns
    -------
    bool[k]
    """
    out = np.zeros(units.shape[0], np.bool_)
    for j in range(units.shape[0]):
        b = units[j]
        if can_break[b]:
            out[j] = breakdown_reform.companies_suffice(b, box, level, parent, remnant_level, breakdown_n, breakdown_kind,
                                       own_start, own_flat, kind_start, kind_flat)
    return out


def _leaders_with_hq(game) -> None:
    """Rule 18.33: the first time a division HQ goes to a Second Wave box its
    leader goes with it; a leader whose HQ has landed goes with any unit of
    its formation placed in a wave box."""
    s, t = game.state, game.static
    for f in invasion.DIVISIONS:
        ldr = int(t.formation_leader[f])
        hq = int(t.formation_hq[f])
        if ldr < 0 or s.box[ldr] != BOX_FOLLOW_UP:
            continue
        if hq >= 0 and s.box[hq] == BOX_SECOND_WAVE:
            s.box[ldr], s.box_slot[ldr] = BOX_SECOND_WAVE, s.box_slot[hq]
            continue
        if hq >= 0 and s.box[hq] == BOX_FOLLOW_UP:
            continue                                            # waits for its HQ
        for wave in (BOX_FIRST_WAVE, BOX_SECOND_WAVE):
            us = [u for u in np.flatnonzero((s.box == wave) & (s.formation == f)) if t.utype[u] != st.LEADER]
            if us:
                s.box[ldr], s.box_slot[ldr] = wave, s.box_slot[us[0]]
                break


def _box_unit_loss(game, v: int) -> None:
    """A step lost by a unit in a wave box; the 4th Division's leader dies with
    its HQ there (18.33); a leader alone in a box returns to the Follow-up box."""
    s, t = game.state, game.static
    box, slot = int(s.box[v]), int(s.box_slot[v])
    invasion.lose_step(game, v, "coastal fire 16.56")
    if t.utype[v] == st.HQ:
        f = int(t.printed_formation[v])
        ldr = int(t.formation_leader[f]) if f >= 0 else -1
        if ldr >= 0 and s.box[ldr] == box and s.box_slot[ldr] == slot:
            invasion.eliminate_leader(game, ldr)


def _landing_hex_ok(game, b: int) -> bool:
    return not any(game.static.utype[e] != st.LEADER for e in game.units_at(b, ALLIED))


#: Type of the answers kept for one loop over landed units (hex -> answer);
#: a test replaces it by a dict that keeps nothing, to play the plain path.
_loop_memo = dict


def land_wave(game, wave: int) -> None:
    """Land one wave (4.22 e-h or i-l): move to the beach, landing losses
    (18.5), water's edge combat (18.6), beach movement (18.7)."""
    s, t = game.state, game.static
    ax = t.side_units[AXIS]
    units = ax[s.box[ax] == wave].tolist()
    if not units:
        return
    landed = []
    utype, turn = game.tables.utype, game.turn         # (unit types as Python ints)
    for u in sorted(units, key=lambda x: (utype[x] == st.LEADER, x)):
        b = int(s.box_slot[u])
        if not _landing_hex_ok(game, b):
            # 18.91: never onto an Allied-occupied beach hex (an uprising there in this phase)
            s.box[u], s.box_slot[u] = BOX_FOLLOW_UP, int(invasion.inv_static(game).beach_zone[b])
            continue
        s.entered_turn[u] = turn
        s.landed_beach[b] = True
        invasion.move_unit(game, u, b, "landing")
        s.control[b] = AXIS
        landed.append(u)
    if game.events is not None:
        invasion._log(game, "landing", side=AXIS, hexes=sorted({int(s.hex[u]) for u in landed}), units=landed,
             rule="18.5" if wave == BOX_FIRST_WAVE else "18.8")
    # 18.5 landing losses
    rs = invasion.nstate(game, "landing")
    dists = _loop_memo()      # hex -> dist_to_allied: only Axis pieces are eliminated in this loop
    for u in landed:
        if utype[u] in (st.LEADER, st.HQ) or s.box[u] != BOX_MAP:
            continue
        x = int(s.hex[u])
        dist = dists.get(x)
        if dist is None:
            dist = dists[x] = invasion.dist_to_allied(game, x)
        if dist <= 2 and landing_loss_roll(rs, dist):
            invasion._log(game, "landing_loss", side=AXIS, hexes=[x], units=[u], rule="18.5")
            invasion.eliminate(game, u, "landing losses 18.5")
    _leaders_alone(game, landed)
    waters_edge_combat(game, [u for u in landed if s.box[u] == BOX_MAP])
    # 18.7 beach movement (the Allied ZOC map only when a landed unit is left)
    movers = [u for u in landed if s.box[u] == BOX_MAP]
    if movers:
        zoc = invasion.enemy_zoc(game, AXIS)
        movers = [u for u in movers if not zoc[s.hex[u]]]
    pol = game.policy(AXIS)
    for u in movers:
        if s.box[u] != BOX_MAP:
            continue
        opts = invasion.one_hex_options(game, u)
        h = pol.one_hex_move(game, u, opts, "beach movement 18.7")
        if h is None:
            continue
        if h not in opts:
            raise invasion._illegal("18.7", "beach movement is one hex of normal movement")
        invasion.move_unit(game, u, int(h), "move")
    _reform(game, [int(s.hex[u]) for u in landed if s.box[u] == BOX_MAP])


def _leaders_alone(game, units) -> None:
    """A leader whose units on a beach hex were all lost goes back to the
    Follow-up box of its division (it may land again later, 14.43 reading)."""
    s, t = game.state, game.static
    for u in units:
        if t.utype[u] != st.LEADER or s.box[u] != BOX_MAP:
            continue
        h = int(s.hex[u])
        mates = [v for v in game.units_at(h, AXIS) if t.utype[v] != st.LEADER]
        if not mates:
            s.box[u], s.hex[u] = BOX_FOLLOW_UP, -1
            z = int(s.division_zone[0, int(t.printed_formation[u])]) if t.printed_formation[u] >= 0 else -1
            s.box_slot[u] = z if z >= 0 else 0


def _reform(game, hexes) -> None:
    """Rules 18.7, 19.6: Axis companies that end the beach movement or the
    rally in the same hex, among ``hexes``, may reform battalions (13.2), the
    Axis player choosing (:func:`organisation.reforms`)."""
    if hexes:
        invasion._org().reforms(game, AXIS, sorted(set(hexes)))


def waters_edge_combat(game, landed: list) -> None:
    """Rule 18.6: Allied units adjacent to beach hexes with newly landed Axis
    units may fire (not across all-ocean hexsides); each X eliminates one Axis
    unit (Axis choice); then each attacked hex fires back with the combined
    strength of its Axis units; each X is one step lost by an Allied unit of the
    Allied player's choice adjacent to that hex (not coastal guns, 16.57).
    All hits are step losses, no retreat or advance (18.63)."""
    s, t = game.state, game.static
    inv = invasion.inv_static(game)
    targets = sorted({int(s.hex[u]) for u in landed if s.box[u] == BOX_MAP})
    if not targets:
        return
    options: dict = {}
    # Allied units per hex, ascending (= units_at(o, ALLIED)); nothing moves while options are listed
    # (only the Allied units next to a target hex are listed: one array pass)
    nb = t.neighbours[targets]
    adjacent = np.zeros(t.n_hexes + 1, bool)
    adjacent[nb[nb >= 0]] = True
    al = ((s.hex >= 0) & (t.side == ALLIED)).nonzero()[0]
    al = al[adjacent[s.hex[al]]]
    # (only those that may fire: not leaders or coastal guns, attack strength
    # above 0; each unit's strength asked once)
    allied_at: dict = {}
    utype = game.tables.utype
    for a, x in zip(al.tolist(), s.hex[al].tolist()):
        if utype[a] in (st.LEADER, st.COASTAL_GUN) or invasion.attack_strength(game, a) <= 0:
            continue
        allied_at.setdefault(x, []).append(a)
    if not allied_at:
        return
    for b in targets:
        for o, across_ocean in zip(t.neighbours[b].tolist(), t.ocean_side[b].tolist()):
            if o < 0 or across_ocean:
                continue
            for a in allied_at.get(o, ()):
                options.setdefault(a, []).append(b)
    if not options:
        return
    choice = game.policy(ALLIED).waters_edge_attacks(game, options)
    by_hex: dict = {}
    for a, b in choice.items():
        if a not in options or b not in options[a]:
            raise invasion._illegal("18.61", "water's edge attacker must be adjacent to the beach hex")
        by_hex.setdefault(b, []).append(a)
    rs = invasion.nstate(game, "combat")
    for b, attackers in sorted(by_hex.items()):
        strength = sum(invasion.attack_strength(game, a) for a in attackers)
        x = waters_edge_fire(rs, strength, inv.we_col_min, inv.we_table)
        if game.events is not None:
            invasion._log(game, "waters_edge_allied", side=ALLIED, hexes=[b], units=attackers,
                 result=f"{x} X (strength {strength})", rule="18.61")
        for _ in range(x):
            victims = [u for u in game.units_at(b, AXIS) if t.utype[u] != st.LEADER]
            if not victims:
                break
            v = game.policy(AXIS).choose_loss(game, victims, "water's edge 18.61")
            if v not in victims:
                raise invasion._illegal("18.61", "the unit eliminated must be in the attacked hex")
            invasion.eliminate(game, v, "water's edge 18.61")
        _leaders_alone(game, list(game.units_at(b, AXIS)))
    for b in sorted(by_hex):
        axis_units = [u for u in game.units_at(b, AXIS) if t.utype[u] != st.LEADER]
        if not axis_units:
            continue
        strength = sum(invasion.attack_strength(game, u) for u in axis_units)
        x = waters_edge_fire(rs, strength, inv.we_col_min, inv.we_table)
        if game.events is not None:
            invasion._log(game, "waters_edge_axis", side=AXIS, hexes=[b], units=axis_units,
                 result=f"{x} X (strength {strength})", rule="18.62")
        for _ in range(x):
            victims = []
            for d in range(6):
                o = t.neighbours[b, d]
                if o >= 0:
                    victims += [int(a) for a in game.units_at(int(o), ALLIED)
                                if t.utype[a] not in (st.LEADER, st.COASTAL_GUN)]
            if not victims:
                break
            v = game.policy(ALLIED).choose_loss(game, victims, "water's edge 18.62")
            if v not in victims:
                raise invasion._illegal("18.62", "the step lost must be in a hex adjacent to the attacked hex")
            invasion.lose_step(game, v, "water's edge 18.62")
