"""Special rules around the invasion: air attacks on coastal guns (17.5), Royal
Navy intervention (17.6), delayed Allied reaction (17.7), straggling
paratroopers (17.8), the Delayed Landings option (22.39), air support markers
(16.4), security companies (16.6, 17.42) and strongpoints (16.2, 16.25).

The compiled kernels here draw from a per-game ``uint64[4]`` state; each has
its exact probability alongside for the statistical tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numba as nb
import numpy as np

from malta_sim.rng import nb_die
from malta_sim.iod.state import CLEAR, CLOUDY, RAINY
from malta_sim.iod import proximity
from malta_sim.iod import static as st
from malta_sim.iod.state import (ALLIED, AXIS, BOX_FOLLOW_UP, BOX_MAP, BOX_NOT_YET, BOX_POOL,
                    BOX_REMOVED, LOSS_OTHER)
from malta_sim.iod.rules import warships
from malta_sim.iod import invasion

# ---------------------------------------------------------------- 16.4 air support

#: Air support markers per day by weather (rule 16.41).
AIR_SUPPORT_BY_WEATHER = {CLEAR: 3, CLOUDY: 1, RAINY: 0}


def air_support_markers(weather: int, rn_cut: int = 0) -> int:
    """Air support markers available for the day (rules 16.41, 17.6).

    Parameters
    ----------
    weather : int
        CLEAR / CLOUDY / RAINY.
    rn_cut : int
        Markers removed by the Royal Navy intervention result (17.6).

    Returns
    -------
    int
        Markers, never below zero.  None are usable on night turns (16.41);
        the combat phase checks the time of day.
    """
    return max(0, AIR_SUPPORT_BY_WEATHER[int(weather)] - int(rn_cut))


# ---------------------------------------------------------------- 17.5 air attacks

#: Air attacks on coastal guns per Initial Segment, Operation Hercules only
#: (rule 17.51), by day index (0 = 29 June).
AIR_ATTACKS_BY_DAY = {0: 14, 1: 12, 2: 10, 3: 8}


def air_attacks_available(day: int, weather: int, rn_cut: int = 0, scenario: str = "hercules") -> int:
    """Air attacks the Axis may make in this Initial Segment (rules 17.51, 17.53, 17.6).

    Parameters
    ----------
    day : int
        Day index (0 = 29 June).
    weather : int
        Weather of the day; Cloudy halves (fractions rounded down -- the
        printed table gives even numbers, so only a Royal Navy cut can make a
        fraction), Rainy loses them all.
    rn_cut : int
        Air attacks removed per day by the Royal Navy intervention (17.6),
        applied before halving.
    scenario : str
        Only Operation Hercules has air attacks (17.53).

    Returns
    -------
    int
    """
    if scenario != "hercules":
        return 0
    n = max(0, AIR_ATTACKS_BY_DAY.get(int(day), 0) - int(rn_cut))
    if weather == RAINY:
        return 0
    if weather == CLOUDY:
        n //= 2
    return n


@nb.njit(cache=True)
def air_attack_gun(rs, n_attacks, n_aa_within_three):
    """Resolve the air attacks assigned to one coastal gun (rule 17.52).

    Parameters
    ----------
    rs : uint64[4]
        Per-game random state.
    n_attacks : int
        Air attacks assigned to the gun.
    n_aa_within_three : int
        Allied AA units within 3 hexes of the gun (one die fewer each).

    Returns
    -------
    bool
        True when any die shows 6: the gun is destroyed.
    """
    n = n_attacks - n_aa_within_three
    hit = False
    for _ in range(n):
        if nb_die(rs) == 6:
            hit = True
    return hit


def p_air_attack_kill(n_attacks: int, n_aa_within_three: int) -> Fraction:
    """Exact probability of :func:`air_attack_gun` destroying the gun."""
    n = max(0, int(n_attacks) - int(n_aa_within_three))
    return 1 - Fraction(5, 6) ** n


# ---------------------------------------------------------------- 17.6 Royal Navy

@dataclass(frozen=True)
class RNResult:
    """One row of the Royal Navy Intervention Table (rule 17.6).

    Attributes
    ----------
    warships_damaged : int
        Axis warships damaged (the Allied player's choice among those in
        play; 99 = all).
    follow_up_steps : int
        Units eliminated in each occupied Follow-up box (Axis choice).
    beach_supply_barred : bool
        Axis HQs may not use beach hexes as supply sources (8.51) from now on.
    air_support_cut : int
        Air support markers fewer per day from now on (16.41).
    air_attacks_cut : int
        Air attacks fewer per remaining Initial Segment (17.51).
    surrender_mod : int
        Surrender roll modifier from now on (20.0: +1 on 4-5, +3 on 6).
    source : str
        ``rule 20.0`` for the printed surrender modifier, ``reconstructed`` else.
    """

    warships_damaged: int = 0
    follow_up_steps: int = 0
    beach_supply_barred: bool = False
    air_support_cut: int = 0
    air_attacks_cut: int = 0
    surrender_mod: int = 0
    source: str = "reconstructed"
    beach_supply_days: int = 99
    air_support_days: int = 99
    air_attacks_days: int = 99

    @classmethod
    def from_table(cls, r) -> "RNResult":
        """From a data row (``malta_sim.loaders.iod_tables`` RnResult): ``-1``
        means all warships / all air attacks; effects last ``*_days`` days
        starting with 1 July."""
        return cls(
            warships_damaged=99 if r.warships_damaged < 0 else int(r.warships_damaged),
            follow_up_steps=int(r.followup_units_lost),
            beach_supply_barred=int(r.beach_supply_days) > 0,
            air_support_cut=int(r.air_support_lost),
            air_attacks_cut=99 if r.air_attacks_lost < 0 else int(r.air_attacks_lost),
            surrender_mod=int(r.surrender_modifier),
            source=str(r.source),
            beach_supply_days=int(r.beach_supply_days),
            air_support_days=int(r.air_support_days),
            air_attacks_days=int(r.air_attacks_days),
        )


#: Fallback Royal Navy Intervention Table (used only when the data set has no
#: table).  Die 1-3: the fleet stays away; 4-5 and 6: the surrender modifiers
#: are printed in 20.0; the material effects are reconstructed from the list
#: in 17.6 (warships, Follow-up boxes, beach supply, air support, air attacks).
FALLBACK_RN_TABLE: dict[int, RNResult] = {
    1: RNResult(),
    2: RNResult(),
    3: RNResult(warships_damaged=1),
    4: RNResult(warships_damaged=2, follow_up_steps=1, air_attacks_cut=2, surrender_mod=1),
    5: RNResult(warships_damaged=3, follow_up_steps=1, air_support_cut=1, air_attacks_cut=4,
                surrender_mod=1),
    6: RNResult(warships_damaged=99, follow_up_steps=2, beach_supply_barred=True,
                air_support_cut=1, air_attacks_cut=99, surrender_mod=3),
}


def rn_surrender_modifier(rn_result: int) -> int:
    """Surrender modifier of a Royal Navy Intervention die result (rule 20.0):
    +1 for 4 or 5, +3 for 6, else 0 (also 0 when not rolled)."""
    if rn_result == 6:
        return 3
    if rn_result in (4, 5):
        return 1
    return 0


#: Day index of the Royal Navy intervention roll: 1 July (rule 17.6).
RN_DAY = 2


# ---------------------------------------------------------------- 17.7 delayed reaction

def delayed_reaction_radius(turn: int, scenario: str = "hercules") -> int:
    """Hexes within which an Axis ground unit must be before an Allied unit may
    move, bombard or support (rule 17.7).

    Parameters
    ----------
    turn : int
        Absolute game turn (0 = 29 June AM).
    scenario : str
        The rule does not apply to the Introductory Scenario.

    Returns
    -------
    int
        4 on 29 June AM, 7 on 29 June noon, ``-1`` (no restriction) otherwise.
    """
    if scenario != "hercules":
        return -1
    if turn == 0:
        return 4
    if turn == 1:
        return 7
    return -1


@nb.njit(cache=True)
def allied_may_act(radius, unit_hex, axis_ground_hexes, dist):
    """Whether an Allied unit may move, bombard or support now (rule 17.7).

    Parameters
    ----------
    radius : int
        From :func:`delayed_reaction_radius`; ``-1`` means no restriction.
    unit_hex : int
        Dense hex index of the Allied unit.
    axis_ground_hexes : int32[K]
        Hexes holding Axis ground units (on the map).
    dist : int16[H, H]
        Distance table.

    Returns
    -------
    bool
    """
    if radius < 0:
        return True
    for k in range(axis_ground_hexes.shape[0]):
        h = axis_ground_hexes[k]
        if h >= 0 and dist[unit_hex, h] <= radius:
            return True
    return False


# ---------------------------------------------------------------- 17.8 stragglers

@nb.njit(cache=True)
def straggler_roll(rs):
    """Recover a reduced paratroop company to full strength on a 6 (rule 17.8)."""
    return nb_die(rs) == 6


def p_straggler() -> Fraction:
    """Exact probability of :func:`straggler_roll` (1/6)."""
    return Fraction(1, 6)


# ---------------------------------------------------------------- 22.39 delayed landings

def delayed_landings_modifier(axis_airfields: int, para_steps_lost: int, para_hqs_lost: int,
                              weather: int) -> int:
    """Modifier of the Delayed Landings roll (optional rule 22.39).

    +2 when the Axis controls no airfield, +1 when at least nine Axis paratroop
    steps have been eliminated, +1 per Axis paratroop HQ eliminated, +1 when
    the weather is Rainy.
    """
    m = 0
    if axis_airfields == 0:
        m += 2
    if para_steps_lost >= 9:
        m += 1
    m += int(para_hqs_lost)
    if weather == RAINY:
        m += 1
    return m


@nb.njit(cache=True)
def delayed_landings_roll(rs, modifier):
    """Roll for Delayed Landings (22.39); True = this turn's Amphibious Landing
    Phase is cancelled (modified die 7 or more)."""
    return nb_die(rs) + modifier >= 7


def p_delayed(modifier: int) -> Fraction:
    """Exact cancellation probability of :func:`delayed_landings_roll`."""
    need = 7 - int(modifier)
    n = sum(1 for d in range(1, 7) if d >= need)
    return Fraction(n, 6)


# ---------------------------------------------------------------- 16.25 strongpoints

#: Strongpoints dismantled per British engineer company placed (rule 16.25).
STRONGPOINTS_PER_ENGINEER = 4


def engineers_from_dismantling(n_dismantled_total: int, engineers_placed: int, engineers_in_mix: int = 2) -> int:
    """Engineer companies to place after dismantling (rule 16.25): one per four
    strongpoints dismantled in total, at most the two in the counter mix."""
    return min(engineers_in_mix, n_dismantled_total // STRONGPOINTS_PER_ENGINEER) - engineers_placed


def rn_table_from_rows(rows: list[dict]) -> dict[int, RNResult]:
    """Build a Royal Navy table from data rows (dicts with the RNResult field
    names and ``die``); missing fields take their defaults."""
    out = {}
    for r in rows:
        kw = {k: r[k] for k in RNResult.__dataclass_fields__ if k in r}
        for k in ("warships_damaged", "follow_up_steps", "air_support_cut", "air_attacks_cut", "surrender_mod"):
            if k in kw:
                kw[k] = int(kw[k])
        if "beach_supply_barred" in kw:
            v = kw["beach_supply_barred"]
            kw["beach_supply_barred"] = v if isinstance(v, bool) else str(v).lower() in ("1", "true", "yes")
        out[int(r["die"])] = RNResult(**kw)
    return out





def delayed_reaction_ok(game, u: int) -> bool:
    """Rule 17.7 for the land engine: may Allied unit ``u`` move, bombard or
    give artillery support now?  True except on the 29 June AM / noon turns of
    Operation Hercules when no Axis ground unit is within 4 / 7 hexes of it."""
    turn = int(game.state.turn[0])
    if turn > 1:
        return True                              # the rule covers only turns 0 and 1
    radius = delayed_reaction_radius(turn, getattr(game.scenario, "name", "hercules"))
    if radius < 0 or game.static.side[u] != 1:
        return True
    return bool(_may_act_map(game, radius)[int(game.state.hex[u])])



def side_selector(static, side: int):
    """Index of ``side``'s units in the unit table: a slice when they are
    contiguous (as in the packaged data; reading through it makes no copy),
    else the index array.  Either selects the same units in the same order."""
    idx = (static.side == side).nonzero()[0]
    if len(idx) and idx[-1] - idx[0] + 1 == len(idx):
        return slice(int(idx[0]), int(idx[-1]) + 1)
    return idx


def _may_act_map(game, radius: int) -> np.ndarray:
    """bool[H]: hexes from which an Allied unit may act under rule 17.7 (an
    Axis ground unit within ``radius``), i.e. :func:`allied_may_act` for every
    hex at once (index -1 reads the last hex, as the kernel's would).  Kept in
    ``game.cache`` while the Axis units' boxes and hexes (all that
    :func:`.hercules.axis_ground_hexes` reads of the state) stay the same."""
    from malta_sim.iod.invasion import axis_ground_hexes

    s = game.state
    ax = game.cache.get("_axis_units")
    if ax is None:
        ax = game.cache["_axis_units"] = side_selector(game.static, 0)
    key = (radius, s.box[ax].tobytes(), s.hex[ax].tobytes())
    ok = game.kept("_delayed_reaction_map", 0, key)
    if ok is not None:
        return ok
    hx = axis_ground_hexes(game)
    hx = hx[hx >= 0]
    if len(hx):
        ok = (game.static.grid.distance_table[:, hx] <= radius).any(axis=1)
    else:
        ok = np.zeros(game.static.grid.distance_table.shape[0], bool)
    return game.keep("_delayed_reaction_map", 0, key, ok)


# ====================================================================================
# Moved from the invasion engine
# ====================================================================================
def _rn_expiry(game) -> None:
    """Royal Navy effects that last a number of days (17.6 table) end."""
    s = game.state
    if 0 <= s.rn_beach_until_day[0] <= game.day:
        s.beach_supply_barred[0] = False
    if 0 <= s.rn_air_support_until_day[0] <= game.day:
        s.air_support_cut[0] = 0
        s.air_support_left[0] = air_support_markers(int(s.weather[0]), 0)
    if 0 <= s.rn_air_attacks_until_day[0] <= game.day:
        s.air_attacks_cut[0] = 0


def air_attacks(game) -> None:
    """Rule 17.5: air attacks against coastal guns in this Initial Segment."""
    s, t = game.state, game.static
    n = air_attacks_available(game.day, int(s.weather[0]), int(s.air_attacks_cut[0]))
    s.air_attacks_left[0] = n
    if n <= 0:
        return
    guns = [int(u) for u in game.on_map(ALLIED) if t.utype[u] == st.COASTAL_GUN]
    if not guns:
        return
    aa_near = {g: invasion.aa_within(game, int(s.hex[g])) for g in guns}
    plan = game.policy(AXIS).air_attacks(game, guns, n, aa_near)
    if sum(plan.values()) > n or any(g not in aa_near or k < 0 for g, k in plan.items()):
        raise invasion._illegal("17.52", "air attacks exceed those available or target a non-gun")
    rs = invasion.nstate(game, "air")
    for g, k in sorted(plan.items()):
        if k <= 0:
            continue
        hit = air_attack_gun(rs, int(k), int(aa_near[g]))
        invasion._log(game, "air_attack", side=AXIS, hexes=[int(s.hex[g])], units=[g],
             result="destroyed" if hit else "missed", rule="17.52")
        if hit:
            invasion.eliminate(game, g, "air attack 17.52")
    s.air_attacks_left[0] = n - sum(plan.values())


def dismantle_strongpoints(game) -> None:
    """Rule 16.25: the Allied player may dismantle strongpoints; every four
    dismantled put one British engineer company (at most two) on the hex of a
    dismantled strongpoint."""
    s, t = game.state, game.static
    # the British engineer companies not yet in play: in the pool, or (Operation
    # Hercules, 22.3) in the "not yet" box -- they enter only by dismantling (22.39)
    engineers = [int(u) for u in np.flatnonzero((t.side == ALLIED) & (t.utype == st.ENGINEER)
                                                & ((s.box == BOX_POOL) | (s.box == BOX_NOT_YET)))]
    dismantled, placed = int(s.strongpoints_dismantled[0]), int(s.engineers_placed[0])
    max_n = 4 * len(engineers) - (dismantled % 4)
    if max_n <= 0:
        return
    sps = [int(u) for u in game.on_map(ALLIED) if t.utype[u] == st.STRONGPOINT]
    if not sps:
        return
    pick = game.policy(ALLIED).dismantle_strongpoints(game, sps, max_n)
    pick = [u for u in pick if u in sps][:max_n]
    if not pick:
        return
    hexes = [int(s.hex[u]) for u in pick]
    for u in pick:
        s.box[u], s.hex[u] = BOX_REMOVED, -1                   # dismantled: not a loss (20.1)
    dismantled += len(pick)
    s.strongpoints_dismantled[0] = dismantled
    n_new = engineers_from_dismantling(dismantled, placed, len(engineers) + placed)
    for _ in range(max(0, n_new)):
        e = engineers.pop(0)
        h = game.policy(ALLIED).engineer_hex(game, hexes)
        if h not in hexes:
            raise invasion._illegal("16.25", "engineer company must go on a dismantled strongpoint's hex")
        s.box[e], s.hex[e] = BOX_MAP, h
        s.formation[e] = 0
        s.engineers_placed[0] += 1
    invasion._log(game, "dismantle_strongpoints", side=ALLIED, hexes=hexes, result=f"{len(pick)} dismantled",
         rule="16.25")


def royal_navy_intervention(game) -> None:
    """Rule 17.6: one die on the Royal Navy Intervention Table on 1 July."""
    s, t = game.state, game.static
    inv = invasion.inv_static(game)
    d = game.die("navy")
    s.rn_result[0] = d
    res = inv.rn_table.get(d, RNResult())
    ships = [int(u) for u in np.flatnonzero((t.utype == st.WARSHIP) & ((s.box == BOX_MAP) | (s.box == BOX_NOT_YET)))]
    n = min(len(ships), res.warships_damaged)
    if n:
        hit = game.policy(ALLIED).rn_damage(game, ships, n)
        hit = [u for u in hit if u in ships][:n]
        for u in hit:
            warships.damage_warship(game, u, LOSS_OTHER)
    if res.follow_up_steps:
        for z in range(len(inv.zone_names)):
            for _ in range(res.follow_up_steps):
                units = [u for u in invasion.units_in_box(game, BOX_FOLLOW_UP, z) if t.utype[u] != st.LEADER]
                if not units:
                    break
                v = game.policy(AXIS).choose_loss(game, units, "royal navy 17.6")
                if v not in units:
                    raise invasion._illegal("17.6", "loss must be taken in the Follow-up box")
                invasion.eliminate(game, v, "royal navy 17.6")              # a unit lost, not a step
    if res.beach_supply_barred:
        s.beach_supply_barred[0] = True
    s.air_support_cut[0] = res.air_support_cut
    s.air_support_left[0] = air_support_markers(int(s.weather[0]), int(s.air_support_cut[0]))
    s.air_attacks_cut[0] = res.air_attacks_cut
    s.rn_beach_until_day[0] = game.day + res.beach_supply_days
    s.rn_air_support_until_day[0] = game.day + res.air_support_days
    s.rn_air_attacks_until_day[0] = game.day + res.air_attacks_days
    invasion._log(game, "royal_navy", side=ALLIED, dice=[d], result=str(res), rule="17.6")


def stragglers(game) -> None:
    """Rule 17.8: reduced paratroop companies not adjacent to an enemy unit may
    roll to recover (6); a company that tries may not move this turn (17.81)."""
    s, t = game.state, game.static
    cands = []
    pieces = invasion.inv_static(game).straggler_pieces                              # 17.83 pieces
    reduced = pieces[(s.box[pieces] == BOX_MAP) & s.reduced[pieces]]
    if reduced.size:
        # not in or next to a hex with an Allied unit (99: none on the map)
        cands = reduced[proximity.nearest_allied_units(game, s.hex[reduced]) > 1].tolist()
    if not cands:
        return
    pick = [u for u in game.policy(AXIS).stragglers(game, cands) if u in cands]
    rs = invasion.nstate(game, "replacements")
    for u in pick:
        s.straggler_turn[u] = game.turn
        s.moved[u] = True                      # 17.81: no movement this turn
        if straggler_roll(rs):
            s.reduced[u] = False
            s.level[u] = 0                                      # full-strength side again
            invasion._log(game, "straggler_recovered", side=AXIS, units=[u], rule="17.8")
