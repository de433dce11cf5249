"""Steps and elimination (9.5, 17.3, 20.1-20.2), stacking (7), control (2.1),
leader casualties and returns (14.4), HQ loss and return (16.8), formations
(15.2), breaking down and reforming battalions (13), replacements (17.4),
day and turn bookkeeping (4.1, 4.42)."""

from __future__ import annotations

import re

import numpy as np

from malta_sim.iod import static as st
from malta_sim.iod.rules import retreat_advance
from malta_sim.iod.rules import phase_end_checks
from malta_sim.iod.rules import breakdown_reform
from malta_sim.iod.game import illegal
from malta_sim.iod.state import (ALLIED, AXIS, BOX_DISBANDMENT, BOX_ELIMINATED, BOX_FOLLOW_UP, BOX_MAP,
                    BOX_POOL, BOX_REMOVED, BOX_TURN_TRACK, CLEAR, CLOUDY,
                    DISORGANIZED, NORMAL, RAINY, LOSS_BOMBARDMENT, LOSS_COASTAL_FIRE, LOSS_COMBAT,
                    LOSS_DROWNED, LOSS_LANDING, LOSS_OTHER, LOSS_OVERSTACK, LOSS_WATERS_EDGE)

from malta_sim.iod.static import STACK_LIMIT_HALVES   # rule 7.1


# ------------------------------------------------------------------ steps (9.5, 17.3)
def tally_side(game, side: int, weighted: int, cause: int) -> None:
    """Count ``weighted`` steps as eliminated for victory for ``side`` (rules
    20.1, 20.2): the one place the per-side victory tallies grow.  During the
    scenario's first game turn the steps are also added to the first-turn
    tally of their cause (``first_turn_steps_lost[side, cause]``, a LOSS_*
    code of :mod:`malta_sim.iod.state`; a result column only, no rule reads it).

    Inputs: ``side`` AXIS or ALLIED; ``weighted`` steps already multiplied by
    the pieces' step weight; ``cause`` a LOSS_* code.  Output: none."""
    s = game.state
    if side == AXIS:
        s.axis_steps_lost[0] += weighted
    else:
        s.allied_steps_lost[0] += weighted
    if s.turn[0] == game.scenario.first_day * 4:
        s.first_turn_steps_lost[0, side, cause] += weighted


def _tally(game, u: int, steps: int, cause: int = LOSS_OTHER) -> None:
    """Count ``steps`` of unit ``u`` as eliminated for victory (20.1, 20.2),
    lost to ``cause`` (a LOSS_* code, :func:`loss_cause`)."""
    s, t = game.state, game.static
    if steps <= 0:
        return
    s.steps_lost[u] += steps
    tally_side(game, int(t.side[u]), int(t.step_weight[u]) * steps, cause)


def lose_step(game, u: int, reason: str = "") -> bool:
    """One step loss (rules 9.5, 17.3): a battalion turns to its next lower
    level; a company, an artillery battalion or a unit at its lowest level is
    eliminated.  Returns True when the unit was eliminated."""
    s, t = game.state, game.static
    _tally(game, u, 1, loss_cause(reason or "step loss (9.5)"))
    if (t.size[u] != st.BATTALION or t.utype[u] == st.ARTILLERY
            or s.level[u] >= t.n_levels[u] - 1):
        eliminate(game, u, counted=True, why=reason or "step loss (9.5)")
        return True
    s.level[u] += 1
    return False


#: Causes passed without a rule number, and the rule the event log gives them:
#: step losses of a combat result (9.5) and of a bombardment result (10.1).
_CAUSE_RULES = {"combat": "9.5", "bombardment": "10.1"}


def cause_rule(why: str) -> str:
    """The rule an elimination cause cites: the first ``N.NN`` in ``why`` (e.g.
    ``"landing losses 18.5"`` -> ``"18.5"``), else the rule of a known cause
    without a number (``"combat"`` -> 9.5, ``"bombardment"`` -> 10.1); ``""``
    when none applies.  Each cause's answer is worked out once and kept (the
    causes are a few fixed strings)."""
    r = _CAUSE_RULE_OF.get(why)
    if r is None:
        m = _RULE_NUMBER.search(why or "")
        r = m.group(1) if m else _CAUSE_RULES.get(why, "")
        if len(_CAUSE_RULE_OF) < 4096:
            _CAUSE_RULE_OF[why] = r
    return r


#: the first rule number ``N.NN`` in an elimination cause (:func:`cause_rule`)
_RULE_NUMBER = re.compile(r"\b(\d{1,2}\.\d{1,3})\b")
#: :func:`cause_rule` answers per cause
_CAUSE_RULE_OF: dict = {}

#: Loss cause (LOSS_* code) of the rules an elimination cause may cite
#: (:func:`loss_cause`); a rule of chapter 9 not listed is ground combat.
_RULE_LOSS_CAUSE = {
    "18.5": LOSS_LANDING, "16.56": LOSS_COASTAL_FIRE, "16.55": LOSS_COASTAL_FIRE,
    "18.61": LOSS_WATERS_EDGE, "18.62": LOSS_WATERS_EDGE, "19.45": LOSS_DROWNED,
    "19.5": LOSS_COMBAT, "19.51": LOSS_COMBAT, "19.52": LOSS_COMBAT, "19.53": LOSS_COMBAT,
    "10.1": LOSS_BOMBARDMENT, "10.12": LOSS_BOMBARDMENT, "10.14": LOSS_BOMBARDMENT,
    "7.2": LOSS_OVERSTACK,
}
#: :func:`loss_cause` answers per cause text
_LOSS_CAUSE_OF: dict = {}


def loss_cause(why: str) -> int:
    """The LOSS_* code (:mod:`malta_sim.iod.state`) of an elimination cause
    ``why``, from the rule it cites (:func:`cause_rule`): 18.5 landing losses,
    16.55/16.56 coastal fire, 18.61/18.62 water's edge, 19.45 drowned, 10.1x
    bombardment (a cause that starts with "bombardment" too: the Z result's
    9.41 losses), 7.2 over-stacking, 19.5x hostile landings and any other 9.x
    rule ground combat (9.5 combat, 9.61/9.62 retreats, 9.71); anything else
    (overrun 6.52, 11.4, 16.12, 17.52, 17.6, 19.46, no rule) is LOSS_OTHER.
    Each cause's answer is worked out once and kept (a few fixed strings)."""
    c = _LOSS_CAUSE_OF.get(why)
    if c is None:
        r = cause_rule(why)
        if (why or "").startswith("bombardment"):
            c = LOSS_BOMBARDMENT
        else:
            c = _RULE_LOSS_CAUSE.get(r, LOSS_COMBAT if r.startswith("9.") else LOSS_OTHER)
        if len(_LOSS_CAUSE_OF) < 4096:
            _LOSS_CAUSE_OF[why] = c
    return c


def eliminate(game, u: int, counted: bool = False, why: str = "") -> None:
    """Remove unit ``u`` from play (box ELIMINATED).

    ``counted``: its last step was already tallied by :func:`lose_step`;
    otherwise all its remaining steps are tallied now (stacking 7.2, retreat
    failure 9.61, overrun 6.52).  Side effects: regiment integrity (9.95), HQ
    loss and return date (16.81-16.82), leader return (14.43).
    """
    s, t = game.state, game.static
    if s.box[u] == BOX_ELIMINATED or (s.box[u] == BOX_POOL and t.company_kind[u] >= 0):
        return
    if t.utype[u] == st.LEADER:
        leader_eliminated(game, u)
        return
    if not counted:
        _tally(game, u, game.steps(u), loss_cause(why))
    h = int(s.hex[u])
    s.box[u] = BOX_ELIMINATED
    s.hex[u] = -1
    s.morale_state[u] = NORMAL
    r = t.regiment[u]
    if r >= 0:                                  # 9.95: any unit of the regiment, a named company too
        s.integrity_lost[0, r] = True
    if t.utype[u] == st.HQ:
        hq_eliminated(game, u)
    if game.events is not None:
        game.log("eliminated", side=int(t.side[u]), hexes=[h], units=[u], result=why,
                 rule=cause_rule(why))
    parent = int(s.parent[u])
    if t.company_kind[u] >= 0:
        generic_company_returns(game, u)
    if parent >= 0:
        battalion_without_companies(game, parent)


def battalion_without_companies(game, b: int) -> None:
    """Rules 13.1-13.2: a broken-down battalion ``b`` (its piece in the
    Disbandment Box) none of whose disbanded companies survives is out of
    play: 13.2 reforms a battalion from all its surviving companies, so with
    none left it can never come back, nor break down again (13.1) into fresh
    companies.  Its steps were tallied with its companies (20.1), so none is
    counted here.  Input: ``b`` a battalion index.  Output: none; ``b`` goes
    to BOX_ELIMINATED when it is in the Disbandment Box with no company on
    the map or in a box (a named company eliminated keeps its parent, a
    generic one returns to the pool without it, 13.0)."""
    s, t = game.state, game.static
    if s.box[b] != BOX_DISBANDMENT:
        return
    boxes = s.box[s.parent == b]          # its disbanded companies' boxes
    if np.count_nonzero((boxes != BOX_ELIMINATED) & (boxes != BOX_POOL)):
        return
    s.box[b] = BOX_ELIMINATED
    s.hex[b] = -1
    if game.events is not None:
        game.log("eliminated", side=int(t.side[b]), units=[b], result="all its companies eliminated (13.2)",
                 rule="13.2")


def generic_company_returns(game, u: int) -> None:
    """Rules 13.0, 13.2: an eliminated generic company piece goes back to the
    pool of its kind, free for any battalion of that kind to break down into.

    Reading (docs/rules_coverage.csv, 13.0): the generic pieces carry no unit
    designation and 13.2 lets a battalion reform from companies other than
    the ones it broke into, so a generic piece is a marker of a company, not
    the company itself.  The step it stood for stays lost: its steps were
    tallied for victory (20.1) by :func:`eliminate`, and its battalion
    reforms one level lower per company it no longer has (13.2, the
    battalion's count of companies, not the piece).  The counter mix is
    reconstructed data, so its size must not decide whether a battalion can
    land (18.31).

    Input: ``u`` a generic company piece (``company_kind >= 0``) just
    eliminated.  Output: none; the piece is in BOX_POOL, off the map, with
    no parent battalion.
    """
    s = game.state
    s.box[u] = BOX_POOL
    s.hex[u] = -1
    s.parent[u] = -1
    s.reduced[u] = False
    s.level[u] = 0


def hq_eliminated(game, u: int) -> None:
    """Rules 16.81-16.82: the Allied HQ never returns; an Axis HQ returns in the
    Initial Segment of the fourth day after, unless lost on or after the
    scenario's cut-off day.  Each side's HQ eliminations are counted for the
    result row (``hqs_lost``, ``allied_hqs_lost``)."""
    s, t = game.state, game.static
    if t.side[u] == ALLIED:
        s.allied_hqs_lost[0] += 1                # result column only (16.81)
        return
    s.hqs_lost[0] += 1
    if game.day >= game.scenario.hq_cutoff_day:
        return
    s.box[u] = BOX_TURN_TRACK
    s.return_turn[u] = (game.day + 4) * 4


def leader_eliminated(game, u: int) -> None:
    """Rules 14.43-14.44: the piece turns to its ADC side and returns in the
    next day's Initial Segment."""
    s = game.state
    h = int(s.hex[u])
    s.level[u] = 1
    s.box[u] = BOX_TURN_TRACK
    s.hex[u] = -1
    s.return_turn[u] = (game.day + 1) * 4
    s.leader_uses[u] = 0
    if game.events is not None:
        game.log("leader eliminated", side=int(game.static.side[u]), hexes=[h], units=[u], rule="14.43")


def leader_casualty_roll(game, leader: int, steps: int) -> None:
    """Rule 14.41: a stack with a leader loses ``steps`` >= 1 steps: 2d6, minus
    the steps beyond the first, 3 or less eliminates the leader."""
    r = game.dice2("leaders")
    mod = r - max(0, steps - 1)
    dead = mod <= 3
    if game.events is not None:
        game.log("leader casualty roll", side=int(game.static.side[leader]), units=[leader], dice=[r],
                 result="eliminated" if dead else "survives", rule="14.41")
    if dead:
        leader_eliminated(game, leader)


def leader_escapes(game, u: int) -> None:
    """Rule 14.42: leader ``u``, not eliminated by its lone-leader roll, leaves
    the map for the next turn's box of the turn record track and returns in
    its side's Status Phase of that turn (:func:`return_leaders_and_hqs`),
    even when that turn begins a day (its Initial Segment brings back ADCs
    and HQs, 14.43, 16.82, not escaped leaders)."""
    s = game.state
    s.box[u] = BOX_TURN_TRACK
    s.hex[u] = -1
    s.return_turn[u] = game.turn + 1
    s.escaped[u] = True


def overrun_trivial(game, enemy_units, mover_side: int) -> None:
    """Rules 6.52, 14.42, 16.53, 16.58: enemy leaders, coastal guns and units
    with zero defense in a hex entered by ``mover_side`` are eliminated;
    leaders roll 2d6: 7 or less eliminated, else to the next turn's box."""
    s, t = game.state, game.static
    for u in enemy_units:
        u = int(u)
        if s.box[u] != BOX_MAP or t.utype[u] == st.WARSHIP:
            continue
        if t.utype[u] == st.LEADER:
            r = game.dice2("leaders")
            if r <= 7:
                leader_eliminated(game, u)
            else:
                leader_escapes(game, u)
            if game.events is not None:
                game.log("lone leader", side=int(t.side[u]), units=[u], dice=[r],
                         result="eliminated" if r <= 7 else "escapes", rule="14.42")
        elif t.utype[u] == st.COASTAL_GUN or t.defense[u, s.level[u]] == 0:
            eliminate(game, u, why="overrun (6.52)")


# ------------------------------------------------------------------ stacking (7)
def stack_weight(game, u: int) -> int:
    """Half-battalion units a piece counts for stacking (7.1, 16.33, 16.51)."""
    tb = game.tables
    # 0 for leaders, coastal guns, militia, warships, HQs; 1 for companies and
    # strongpoints; 2 for battalions, 1 once a remnant (17.31)
    return tb.base_weight_l[u] - (int(game.state.level[u]) == tb.remnant_level_full_l[u])


def stack_weights(game) -> np.ndarray:
    """int16[n_units]: :func:`stack_weight` of every piece (vectorised; rules
    7.1, 16.33, 16.51, a remnant counting one half battalion, 17.31)."""
    tb = game.tables
    return tb.base_weight - (game.state.level == tb.remnant_level_full)


def stack_totals(game, side: int) -> np.ndarray:
    """int32[n_hexes]: stacking total of ``side`` per hex, in half battalions (7.1).

    The last answer per side is kept with the units' boxes, hexes and levels
    it was computed from (all that it reads) and returned again, read-only,
    while they are unchanged."""
    s, t = game.state, game.static
    key = (s.box.tobytes(), s.hex.tobytes(), s.level.tobytes())
    out = game.kept("_stack_totals", side, key)
    if out is not None:
        return out
    idx = ((s.box == BOX_MAP) & game.tables.side_mask[side]).nonzero()[0]
    # bincount sums the small integer weights exactly (faster than np.add.at)
    out = np.bincount(s.hex[idx], weights=stack_weights(game)[idx],
                      minlength=t.n_hexes).astype(np.int32)
    out.flags.writeable = False
    return game.keep("_stack_totals", side, key, out)


def hex_stack(game, h: int, side: int) -> int:
    return sum(stack_weight(game, int(u)) for u in game.units_at(h, side))


def fits_stacking(game, units, h: int) -> bool:
    """Would ``units`` (of one side) fit in hex ``h`` with what is there (7.1)?"""
    tb, s = game.tables, game.state
    side = tb.side[units[0]]
    # the side's pieces already in the hex (not among ``units``) plus ``units``,
    # in one compiled pass (stack_weight of each)
    return bool(retreat_advance.fits(np.array(units, np.int64), int(h), s.hex, s.level, tb.side_mask[side],
                     tb.base_weight, tb.remnant_level_full))


def stacking_check(game) -> None:
    """Rule 7.2: at the end of each phase, units over the limit are eliminated,
    the enemy player choosing which."""
    s, t, tb = game.state, game.static, game.tables
    # one compiled pass says whether any hex is over the limit; only then
    # are the hexes gone through and the enemy asked
    over = phase_end_checks.over_stacked(s.box, s.hex, s.level, t.side, tb.base_weight, tb.remnant_level_full,
                        t.n_hexes)
    if not over.any():
        return
    for side in (AXIS, ALLIED):
        if not over[side]:
            continue
        totals = stack_totals(game, side)
        if totals.max(initial=0) <= STACK_LIMIT_HALVES:
            continue
        hexes = np.flatnonzero(totals > STACK_LIMIT_HALVES)
        for h in hexes:
            while hex_stack(game, int(h), side) > STACK_LIMIT_HALVES:
                cand = [int(u) for u in game.units_at(int(h), side) if stack_weight(game, int(u)) > 0]
                pick = int(game.policy(1 - side).stacking_eliminate(game, cand))
                if pick not in cand:
                    raise illegal("7.2", f"{t.names[pick]} is not in the over-stacked hex")
                eliminate(game, pick, why="over-stacked (7.2)")


def caught_leaders(game) -> None:
    """Rule 14.42 at a phase end: a leader left in a hex holding enemy units and
    no friendly unit (e.g. a militia piece placed there, 16.32) is treated as
    overrun: 2d6, 7 or less eliminated, else to the next turn's box."""
    s, t, tb = game.state, game.static, game.tables
    # the caught leaders from one compiled pass (controls: not a leader or
    # warship); a caught leader leaves the map and no other leader's hex
    # changes its controlling pieces, so each is overrun in ascending order
    # as a loop that tested them one by one would
    for ld in phase_end_checks.caught_leader_list(s.box, s.hex, t.side, tb.leader, tb.controls).tolist():
        overrun_trivial(game, [ld], 1 - tb.side[ld])


def update_control(game) -> None:
    """Rule 2.1: a hex is controlled by the last side with a unit there."""
    s, t = game.state, game.static
    # pieces that take control (not leaders, warships) in ascending order,
    # the last one in a hex deciding, in one compiled pass
    phase_end_checks.control_update(s.box, s.hex, t.side, game.tables.controls, s.control)


def phase_end(game) -> None:
    """The checks at the end of every phase, in order: over-stacked hexes
    (rule 7.2, :func:`stacking_check`), leaders caught alone with enemy
    pieces (14.42, :func:`caught_leaders`) and hex control (2.1,
    :func:`update_control`).

    One compiled pass (:func:`.phase_checks.phase_end_kernel`) answers the
    usual case where no hex is over the limit and no leader is caught, and
    then updates control itself; a caught leader is overrun here in
    ascending order before control is updated; an over-stacked hex runs the
    three checks one by one (the enemy player chooses, 7.2).

    The pass reads only the pieces' boxes, hexes and levels and the control
    map (besides static data), and when it finds nothing to do its control
    update is idempotent: a second pass over the same four arrays finds
    nothing and writes the same control.  So when the arrays are byte for
    byte as the last such pass left them, the checks are skipped (about two
    phase ends in three: the status phases move no piece).
    """
    s, t, tb = game.state, game.static, game.tables
    pos = (s.box.tobytes(), s.hex.tobytes(), s.level.tobytes())
    if game.kept("_phase_end", 0, pos + (s.control.tobytes(),)) is not None:
        return
    code, caught = phase_end_checks.phase_end_kernel(s.box, s.hex, s.level, t.side, tb.base_weight,
                                    tb.remnant_level_full, t.n_hexes, tb.leader, tb.controls,
                                    s.control)
    if code == phase_end_checks.PHASE_END_DONE:
        game.keep("_phase_end", 0, pos + (s.control.tobytes(),), True)
        return
    if code == phase_end_checks.PHASE_END_OVER:
        stacking_check(game)
        caught_leaders(game)
    else:
        for ld in caught.tolist():                 # as caught_leaders does
            overrun_trivial(game, [ld], 1 - tb.side[ld])
    update_control(game)


# ------------------------------------------------------------------ formations (15)
def formation_changes(game) -> None:
    """Rules 4.1 b, 15.21: Axis units may be attached to the formation of an
    assigned unit they are stacked with (commandos once landed, 16.14)."""
    s, t, tb = game.state, game.static, game.tables
    # per Axis unit, the formations it may join, from one compiled pass
    units, start, forms = breakdown_reform.attachment_options(s.box, s.hex, s.formation, tb.may_attach,
                                             tb.side_mask[AXIS], t.printed_formation)
    if not len(units):
        return
    start, forms = start.tolist(), forms.tolist()
    opts = {u: forms[start[i]:start[i + 1]] for i, u in enumerate(units.tolist())}
    ch = game.policy(AXIS).attachments(game, opts)
    for u, f in ch.items():
        if u not in opts or f not in opts[u]:
            raise illegal("15.21", f"{t.names[u]} cannot join formation {f} now")
        s.formation[u] = f
        if game.events is not None:
            game.log("attachment", side=AXIS, units=[u], result=t.formation_names[f], rule="15.21")


# ------------------------------------------------------------------ breakdown (13)
def companies_for(game, b: int) -> list[int]:
    """Rule 13.1: the company pieces battalion ``b`` may break down into now,
    as Python ints (:func:`.breakdown_reform.free_companies`: its own free
    pieces, else the generic pieces of its kind in the pool)."""
    s, t, tb = game.state, game.static, game.tables
    return breakdown_reform.free_companies(int(b), s.box, s.parent, t.breakdown_kind, *tb.companies_of_csr,
                                           *tb.companies_of_kind_csr).tolist()


def can_break_down(game, b: int) -> bool:
    """Rule 13.1 (17.31, 13.0): battalion ``b`` may break down now, wherever
    it stands: a type that may (``StaticTables.can_break``: never Maltese),
    not a remnant, with steps left and company pieces enough
    (:func:`.breakdown_reform.companies_suffice`, the test the compiled
    passes make)."""
    s, t, tb = game.state, game.static, game.tables
    return bool(tb.can_break[b]) and bool(breakdown_reform.companies_suffice(
        int(b), s.box, s.level, s.parent, tb.remnant_level, t.breakdown_n, t.breakdown_kind,
        *tb.companies_of_csr, *tb.companies_of_kind_csr))


def break_down(game, b: int, to_box: int | None = None) -> list[int]:
    """Replace battalion ``b`` by its companies (13.1): full count minus steps
    lost; the battalion piece goes to the Disbandment Box.  The companies go
    where the battalion stands (its hex, or its box: Follow-up, Disbandment),
    or to box ``to_box``.  Returns the company indices."""
    s, t = game.state, game.static
    n = int(t.breakdown_n[b]) - int(s.level[b])
    comps = companies_for(game, b)[:n]
    for c in comps:
        s.parent[c] = b
        s.formation[c] = s.formation[b]
        s.level[c] = 0
        s.reduced[c] = False
        if t.company_kind[c] < 0:
            s.steps_lost[c] = 0               # a generic piece keeps its tally (13.0 reading, 20.2)
        if to_box is None:
            s.box[c] = s.box[b]
            s.hex[c] = s.hex[b]
            s.box_slot[c] = s.box_slot[b]
        else:
            s.box[c] = to_box
            s.hex[c] = -1
            s.box_slot[c] = s.box_slot[b]
        s.morale_state[c] = s.morale_state[b]
        s.out_of_supply[c] = s.out_of_supply[b]
        s.entered_turn[c] = s.entered_turn[b]
        s.moved[c] = s.moved[b]
    h = int(s.hex[b])
    s.box[b] = BOX_DISBANDMENT
    s.hex[b] = -1
    if game.events is not None:
        game.log("breakdown", side=int(t.side[b]), hexes=[h], units=[b] + comps, rule="13.1")
    return comps


def breakdowns(game, side: int) -> None:
    """Rule 13.1 (4.24 a / 4.32 a): at the start of the movement phase."""
    s, t, tb = game.state, game.static, game.tables
    # every battalion of the side that can_break_down accepts and that did not
    # arrive this turn, from one compiled pass
    el = breakdown_reform.breakdown_eligible(s.box, s.level, s.entered_turn, s.parent, tb.may_break_side[side],
                            tb.remnant_level, t.breakdown_n, t.breakdown_kind,
                            *tb.companies_of_csr, *tb.companies_of_kind_csr, game.turn).tolist()
    if not el:
        return
    for b in game.policy(side).breakdowns(game, el):
        if b not in el:
            raise illegal("13.1", f"{game.static.names[b]} cannot break down now")
        break_down(game, int(b))


def reform_options(game, side: int) -> list[tuple]:
    """Rule 13.2: battalions whose surviving companies all stand in one hex,
    none demoralized -> (battalion, companies, hex, level)."""
    s, t = game.state, game.static
    bns, hexes, lost, start, comps = breakdown_reform.reform_candidates(
        s.box, s.hex, s.morale_state, s.reduced, s.parent, game.tables.battalion_side[side],
        t.breakdown_n, t.n_levels)
    if not len(bns):
        return []
    comps, start = comps.tolist(), start.tolist()
    return [(b, comps[start[i]:start[i + 1]], h, lv)
            for i, (b, h, lv) in enumerate(zip(bns.tolist(), hexes.tolist(), lost.tolist()))]


def reform(game, option: tuple) -> None:
    """Carry out one reformation (13.2): companies leave, the battalion appears
    at full strength minus companies lost/reduced, disorganized if any was."""
    s, t = game.state, game.static
    b, comps, h, lost = option
    s.box[b] = BOX_MAP
    s.hex[b] = h
    s.level[b] = lost
    s.morale_state[b] = DISORGANIZED if any(s.morale_state[c] == DISORGANIZED for c in comps) else NORMAL
    s.out_of_supply[b] = any(bool(s.out_of_supply[c]) for c in comps)
    s.formation[b] = s.formation[comps[0]]
    s.moved[b] = True
    s.entered_turn[b] = max(int(s.entered_turn[c]) for c in comps)
    for c in (s.parent == b).nonzero()[0].tolist():
        if s.box[c] != BOX_ELIMINATED:
            s.box[c] = BOX_POOL
            s.hex[c] = -1
        s.parent[c] = -1
        s.morale_state[c] = NORMAL
        s.reduced[c] = False
    if game.events is not None:
        game.log("reform", side=int(t.side[b]), hexes=[h], units=[b] + list(comps),
                 result=f"level {lost}", rule="13.2")


def reforms(game, side: int, hexes=None) -> None:
    """Rule 13.2 (4.23 h / 4.32 e): reform battalions at the end of the
    movement phase; the side's player picks among :func:`reform_options`.
    ``hexes`` (iterable of int): only companies standing in these hexes may
    reform, as after beach movement (18.7) and the rally after a jump (19.6)."""
    opts = reform_options(game, side)
    if hexes is not None:
        keep = set(int(x) for x in hexes)
        opts = [o for o in opts if o[2] in keep]
    if not opts:
        return
    for o in game.policy(side).reforms(game, opts):
        if o not in opts:
            raise illegal("13.2", "reformation not possible now")
        reform(game, o)


# ------------------------------------------------------------------ replacements (17.4)
def _replacement_ok(game, u: int, enemy_hexes: np.ndarray) -> bool:
    s, t = game.state, game.static
    if s.box[u] != BOX_MAP or t.size[u] != st.BATTALION or s.level[u] == 0:
        return False
    if s.morale_state[u] != NORMAL or s.out_of_supply[u] or s.replaced_today[u]:
        return False
    if len(enemy_hexes) and t.grid.distance_table[s.hex[u], enemy_hexes].min() < 3:
        return False
    return True


def replacements(game) -> None:
    """Rules 17.4-17.42 (3.0 g-h): on 3 July the Axis gets two Italian infantry
    and one Italian glider replacement; any day, reduced British infantry
    battalions stacked with a security company may absorb it.  Eligible:
    below full strength, three or more hexes from enemy units, not
    disorganized, demoralized or out of supply, one per turn."""
    s, t = game.state, game.static
    s.replaced_today[:] = False
    for side in (AXIS, ALLIED):
        foes = game.on_map(1 - side)
        enemy = np.unique(s.hex[foes[game.tables.ground[foes]]])     # their ground units' hexes
        if side == AXIS and game.day == 4:
            for kind, utype, n in (("italian infantry", st.INFANTRY, 2), ("italian glider", st.GLIDER, 1)):
                el = [int(u) for u in game.on_map(AXIS) if t.utype[u] == utype
                      and t.nation[u] == st.ITALIAN and _replacement_ok(game, int(u), enemy)]
                if not el:
                    continue
                pick = game.policy(AXIS).replacements(game, el, n, kind)
                if len(pick) > n or any(p not in el for p in pick) or len(set(pick)) != len(pick):
                    raise illegal("17.41", f"bad {kind} replacement choice")
                for u in pick:
                    s.level[u] -= 1
                    s.replaced_today[u] = True
                    s.steps_lost[u] -= 1                      # 17.41 / 20.2
                    s.axis_steps_lost[0] -= int(t.step_weight[u])
                    if game.events is not None:
                        game.log("replacement", side=AXIS, units=[u], result=kind, rule="17.41")
        if side == ALLIED:
            pairs = []
            on = game.on_map(ALLIED)
            for u in on[(t.utype[on] == st.INFANTRY) & (t.nation[on] == st.BRITISH)].tolist():
                if not _replacement_ok(game, u, enemy):
                    continue
                for c in game.units_at(int(s.hex[u]), ALLIED):
                    if t.utype[c] == st.SECURITY:
                        pairs.append((u, int(c)))
            if pairs:
                pick = game.policy(ALLIED).absorb(game, pairs)
                used = set()
                for a, c in pick:
                    if (a, c) not in pairs or a in used or c in used:
                        raise illegal("17.42", "bad absorption choice")
                    used.update((a, c))
                    s.level[a] -= 1
                    s.replaced_today[a] = True
                    s.box[c] = BOX_REMOVED
                    s.hex[c] = -1
                    if game.events is not None:
                        game.log("absorb security company", side=ALLIED, units=[a, c], rule="17.42")


# ------------------------------------------------------------------ leaders/HQs return
def return_leaders_and_hqs(game, initial_segment: bool, side: int | None = None) -> None:
    """Rules 14.42, 14.43, 16.82 (3.0 f, 4.21 c, 4.31 d): pieces on the turn
    record track whose time has come return: HQs and ADCs in the Initial
    Segment, lone-leader escapes (``escaped``) in their side's Status Phase."""
    s, t = game.state, game.static
    if s.return_turn.max(initial=-1) < 0:
        return                                  # no piece is on its way back
    due = np.flatnonzero((s.box == BOX_TURN_TRACK) & (s.return_turn >= 0) & (s.return_turn <= game.turn))
    for u in due:
        u = int(u)
        if side is not None and t.side[u] != side:
            continue
        f = int(t.printed_formation[u])
        if t.utype[u] == st.HQ:
            if not initial_segment:
                continue
            s.return_turn[u] = -1
            s.level[u] = 0
            if f in game.scenario.follow_up_zone:
                s.box[u] = BOX_FOLLOW_UP
                s.box_slot[u] = game.scenario.follow_up_zone[f]
            else:
                s.box[u] = BOX_DISBANDMENT
            s.formation[u] = f
            if game.events is not None:
                game.log("HQ returns", side=int(t.side[u]), units=[u], rule="16.82")
            continue
        if t.utype[u] != st.LEADER:
            continue
        if initial_segment and s.escaped[u]:
            continue                            # 14.42: back in the Status Phase
        s.return_turn[u] = -1
        s.escaped[u] = False
        hq = t.formation_hq[f] if f >= 0 else -1
        if hq >= 0 and s.box[hq] == BOX_MAP:
            s.box[u] = BOX_MAP
            s.hex[u] = s.hex[hq]
        elif t.side[u] == ALLIED or not initial_segment:
            opts = sorted({int(s.hex[x]) for x in game.on_map(int(t.side[u]))
                           if t.utype[x] in (st.INFANTRY, st.PARATROOP, st.GLIDER)
                           or (not initial_segment and game.is_ground(int(x)))})
            if not opts:
                s.box[u] = BOX_TURN_TRACK
                s.return_turn[u] = (game.day + 1) * 4
                continue
            h = int(game.policy(int(t.side[u])).leader_hex(game, opts))
            if h not in opts:
                raise illegal("14.43", "returning leader must join a friendly unit")
            s.box[u] = BOX_MAP
            s.hex[u] = h
        elif f in game.scenario.follow_up_zone:
            s.box[u] = BOX_FOLLOW_UP
            s.box_slot[u] = game.scenario.follow_up_zone[f]
        else:
            s.box[u] = BOX_DISBANDMENT
        if game.events is not None:
            game.log("leader returns", side=int(t.side[u]), units=[u], rule="14.43")


# ------------------------------------------------------------------ day / turn
def new_day(game) -> None:
    """Start of a day (4.1): reset daily markers."""
    s = game.state
    s.replaced_today[:] = False


def set_air_support(game) -> None:
    """Rule 16.41: three markers in Clear weather, one when Cloudy, none in
    Rain (fewer after a Royal Navy result, 17.6)."""
    s = game.state
    n = {CLEAR: 3, CLOUDY: 1, RAINY: 0}[int(s.weather[0])]
    s.air_support_left[0] = max(0, n - int(s.air_support_cut[0]))


def reset_phase_flags(game) -> None:
    """Per-phase markers (9.13, 10.13, 10.32, 14.21)."""
    s = game.state
    s.attacked[:] = False
    s.fired[:] = False
    s.penetrated[:] = False
    s.leader_uses[:] = 0


def turn_transition(game) -> None:
    """Rule 4.42: units upright again (per-turn markers cleared), advance the
    turn marker; record the per-turn row."""
    s = game.state
    if getattr(game, "record_turns", False):
        from malta_sim.iod.rules.victory import per_turn_row
        game.per_turn_rows.append(per_turn_row(game))
    s.moved[:] = False
    s.strategic[:] = False
    s.attacked[:] = False
    s.fired[:] = False
    s.advanced[:] = False
    s.penetrated[:] = False
    s.leader_uses[:] = 0
    s.turn[0] += 1

