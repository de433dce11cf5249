"""The sequence of play (rule 4), in one place.

Reading order of :func:`play_game` is the rulebook's outline::

    for each day:                                       (4.0)
        Initial Segment                                 (4.1, 3.0 e-k)
        for AM, noon, PM, night:
            Axis player turn                            (4.2)
                Axis Status Phase                       (4.21)
                Amphibious Landing Phase                (4.22; not at night)
                Airborne Landing Phase                  (4.23; AM and PM only)
                Axis Movement Phase                     (4.24; warships 16.71, airfields 16.1)
                Axis Combat Phase                       (4.25)
                Axis Penetration Phase                  (4.26)
            Allied player turn                          (4.3)
                Allied Status Phase                     (4.31)
                Allied Movement Phase                   (4.32)
                Allied Combat Phase                     (4.33)
                Allied Penetration Phase                (4.34)
            End of turn                                 (4.4)
                Surrender Phase                         (4.41, 20)
                Turn Transition Phase                   (4.42)

Each phase is one function below; each calls the rule modules.  The
invasion's steps and phases (:mod:`.invasion`: amphibious and airborne
landings, warships, airfields, the invasion's Initial Segment and Status
Phase steps) are skipped when the game is played without the invasion
(option ``no_invasion``).  In test mode (``game.check``) the invariants of
:mod:`.invariants` are verified at the end of every phase, then the game's
observers (``game.observers``) are called.
"""

from __future__ import annotations

from malta_sim.iod import invasion
from malta_sim.iod.rules import airborne, airfields, amphibious, warships
from malta_sim.iod.rules import artillery, combat, morale, movement, organisation, supply, victory
from malta_sim.iod.state import AM, AXIS, ALLIED, NIGHT, NOON

#: Phase codes (``state.phase``) and names.
PHASES = (
    "initial_segment",        # 0  4.1
    "axis_status",            # 1  4.21
    "amphibious_landing",     # 2  4.22
    "airborne_landing",       # 3  4.23
    "axis_movement",          # 4  4.24
    "axis_combat",            # 5  4.25
    "axis_penetration",       # 6  4.26
    "allied_status",          # 7  4.31
    "allied_movement",        # 8  4.32
    "allied_combat",          # 9  4.33
    "allied_penetration",     # 10 4.34
    "surrender",              # 11 4.41
    "turn_transition",        # 12 4.42
)
PHASE_INDEX = {n: i for i, n in enumerate(PHASES)}

def _enter(game, phase: str) -> None:
    game.state.phase[0] = PHASE_INDEX[phase]
    game.phase_name = phase


def _leave(game, phase: str) -> None:
    """End of a phase: stacking check (rule 7.2), control, invariants in test mode."""
    organisation.phase_end(game)               # 7.2, 14.42, 2.1
    if game.check:
        from malta_sim.iod.invariants import check_invariants
        check_invariants(game, phase)
    for f in game.observers:
        f(game, phase)


# --------------------------------------------------------------------- phases
def initial_segment(game) -> None:
    """Rule 4.1 (with the daily steps of 3.0 e-k)."""
    _enter(game, "initial_segment")
    organisation.new_day(game)                 # day bookkeeping, air support (16.41)
    organisation.formation_changes(game)       # 4.1 b, 15.21
    victory.weather(game)                      # 4.1 c, 17.2
    organisation.return_leaders_and_hqs(game, initial_segment=True)   # 3.0 f, 14.43, 16.82
    organisation.replacements(game)            # 3.0 g-h, 17.4, 17.41, 17.42
    if not game.skip_invasion:
        invasion.initial_segment(game)         # 4.1 a, d; 3.0 i-k
    _leave(game, "initial_segment")


def axis_status(game) -> None:
    """Rule 4.21."""
    _enter(game, "axis_status")
    supply.status_phase_supply(game, AXIS)     # 4.21 a, 8.0
    artillery.distribute_ammunition(game, AXIS)  # 4.21 b, 12.56
    organisation.return_leaders_and_hqs(game, initial_segment=False, side=AXIS)  # 4.21 c
    if not game.skip_invasion:
        invasion.axis_status(game)             # 4.21 d-e: 17.8, 22.39
    _leave(game, "axis_status")


def amphibious_landing(game) -> None:
    """Rule 4.22 (skipped on night turns)."""
    if game.tod == NIGHT or game.skip_invasion:
        return
    _enter(game, "amphibious_landing")
    amphibious.amphibious_landing_phase(game)
    _leave(game, "amphibious_landing")


def airborne_landing(game) -> None:
    """Rule 4.23 (AM and PM turns only)."""
    if game.tod in (NOON, NIGHT) or game.skip_invasion:
        return
    _enter(game, "airborne_landing")
    airborne.airborne_landing_phase(game)
    _leave(game, "airborne_landing")


def movement_phase(game, side: int) -> None:
    """Rules 4.24 (Axis) and 4.32 (Allied)."""
    name = "axis_movement" if side == AXIS else "allied_movement"
    _enter(game, name)
    organisation.breakdowns(game, side)        # 4.24 a / 4.32 a, 13.1
    movement.strategic_movement(game, side)    # 4.24 b / 4.32 b, 6.2
    movement.tactical_movement(game, side)     # 4.24 c / 4.32 c, 6.3
    if side == AXIS and not game.skip_invasion:
        warships.warship_movement(game)        # 4.24 d, 16.71
    movement.infiltration_movement(game, side)  # 4.24 e / 4.32 d, 6.4
    if side == AXIS and not game.skip_invasion:
        airfields.airfield_entry(game)         # 4.24 f-g, 16.11-16.12
    organisation.reforms(game, side)           # 4.23 h / 4.32 e, 13.2
    _leave(game, name)


def combat_phase(game, side: int) -> None:
    """Rules 4.25 (Axis) and 4.33 (Allied)."""
    name = "axis_combat" if side == AXIS else "allied_combat"
    _enter(game, name)
    combat.combat_phase(game, side)            # a-c: 9.2, 10.1, 9.3-9.8
    morale.recovery(game, side)                # d: 11.5
    _leave(game, name)


def penetration_phase(game, side: int) -> None:
    """Rules 4.26 (Axis) and 4.34 (Allied), 10.3."""
    name = "axis_penetration" if side == AXIS else "allied_penetration"
    _enter(game, name)
    combat.penetration_phase(game, side)
    _leave(game, name)


def status_phase_allied(game) -> None:
    """Rule 4.31."""
    _enter(game, "allied_status")
    supply.status_phase_supply(game, ALLIED)   # a-b, 8.0
    artillery.distribute_ammunition(game, ALLIED)  # c, 12.56
    organisation.return_leaders_and_hqs(game, initial_segment=False, side=ALLIED)  # d
    _leave(game, "allied_status")


def surrender_phase(game) -> None:
    """Rule 4.41 and 20."""
    _enter(game, "surrender")
    victory.surrender_phase(game)
    if game.check:
        from malta_sim.iod.invariants import check_invariants
        check_invariants(game, "surrender")


def turn_transition(game) -> None:
    """Rule 4.42: units upright again, advance the turn marker."""
    _enter(game, "turn_transition")
    organisation.turn_transition(game)


# --------------------------------------------------------------------- game loop
def play_turn(game) -> None:
    """One game turn: Axis player turn, Allied player turn, end of turn (4.0)."""
    if game.tod == AM:
        initial_segment(game)
    # 4.2 Axis player turn
    game.active = AXIS
    axis_status(game)
    amphibious_landing(game)
    airborne_landing(game)
    movement_phase(game, AXIS)
    combat_phase(game, AXIS)
    penetration_phase(game, AXIS)
    # 4.3 Allied player turn
    game.active = ALLIED
    status_phase_allied(game)
    movement_phase(game, ALLIED)
    combat_phase(game, ALLIED)
    penetration_phase(game, ALLIED)
    # 4.4 End of turn
    surrender_phase(game)
    if not game.state.over[0]:
        turn_transition(game)


def play_game(game) -> None:
    """Play ``game`` from its current turn to its end (4.41, 20.3)."""
    cap = 4 * 20
    n = 0
    while not game.state.over[0]:
        play_turn(game)
        n += 1
        if n > cap:  # pragma: no cover - scenarios always end by their last turn
            victory.end_game(game, -1, "turn_cap")
    if getattr(game, "record_turns", False):
        game.per_turn_rows.append(victory.per_turn_row(game))   # the final turn
