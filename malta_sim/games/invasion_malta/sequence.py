"""The Sequence of Play (rule 4.21) written down once, in rulebook order.

A turn has a Strategic Segment (weather, air readiness, air and naval
bombardment, Allied AA reset), an Operations Segment (the special first
Operations Sequence of GT 1, then draws from the cup until every AM has been
played) and a Reorganization Segment (supply status, recovery, victory
conditions).  Each Ground Sequence of the Operations Segment runs the eight
phases of rule 7.14 A.  :mod:`.engine` calls one function per phase in this
order.  Turns of a day are AM, PM and Night (rules 4.14, 6.13).
"""

from __future__ import annotations

#: Segments and their phases (rule 4.21).
SEQUENCE_OF_PLAY = (
    ("strategic", ("weather", "air_readiness", "air_naval_bombardment", "aa_reset")),
    ("operations", ("first_operations_sequence", "subsequent_operations_sequences")),
    ("reorganization", ("supply_status", "recovery", "victory_conditions")),
)

#: Phases of one Ground Sequence (rule 7.14 A).
GROUND_SEQUENCE = (
    "naval_transport",
    "airborne_operations",
    "movement",
    "combat_declaration",
    "bombardment",
    "reaction_movement",
    "combat",
    "reset",
)

#: Turn parts of one day; GT 1 is AM (reconstructed start; 6.13 names AM and PM turns, 8.4 Night).
TURN_PARTS = ("AM", "PM", "Night")


def turn_part(turn: int) -> str:
    """'AM', 'PM' or 'Night' for game turn ``turn`` (1-based)."""
    if turn < 1:
        raise ValueError("turns start at 1")
    return TURN_PARTS[(turn - 1) % 3]


def is_night(turn: int) -> bool:
    """Night turn (rule 8.4)."""
    return turn_part(turn) == "Night"


def phases(turn: int) -> list:
    """Flat list ``(segment, phase)`` of a turn in rulebook order (rules 4.21-4.22)."""
    return [(seg, ph) for seg, phs in SEQUENCE_OF_PLAY for ph in phs]
