r"""The one registry of Island of Death game-state fields.

Every mutable array of a game (or of a batch of games) is listed once in
:data:`FIELDS`, with its scope, dtype, fill value, owner and meaning.  The state
itself is a :class:`GameState` ``NamedTuple`` of numpy arrays built from that
list, so numba kernels can take it (or single fields of it) directly.

Scopes and shapes (batch axis first when batched)::

    scope   single game             batch of G games        indexed by
    ------  ----------------------  ----------------------  --------------------------
    unit    [n_units]               [G, n_units]            unit index u (static table)
    hex     [n_hexes]               [G, n_hexes]            dense hex index h
    game    [1] (+ extra dims)      [G] (+ extra dims)      -- (per-game scalar)

A per-game scalar of a single game is a length-1 array so that it stays a
mutable view: read and write it as ``s.day[0]``.  Fields with ``extra`` dims
(e.g. ``integrity_lost`` over regiments) have shape ``[1, *extra]`` /
``[G, *extra]``.

Hex indexing is :class:`malta_sim.hexgrid.Grid` dense indexing on
``IOD_GRID`` (columns 01-26, rows 01-20, ``idx = (col-1)*20 + (row-1)``);
even columns sit half a hex lower::

          col 11   col 12   col 13          direction order of
          _____             _____           neighbour_table[h, d]:
         /     \   _____   /     \                 0 N
        / 1109  \ /     \ / 1309  \          5 NW  ___  1 NE
        \ h=208 // 1209  \\       /               /   \
         \_____/ \ h=228 / \_____/                \___/
         /     \  \_____/  /     \           4 SW       2 SE
        / 1110  \ /     \ / 1310  \                3 S
        \ h=209 // 1210  \\       /
         \_____/ \ h=229 / \_____/
                  \_____/

Unit indices address the static unit table (:mod:`.static`); every physical
game piece (battalion, company, HQ, leader, artillery, warship, coastal gun,
strongpoint, militia piece, generic company piece) has one index for the whole
game.  Where a unit is: ``hex >= 0`` on the map (``box == BOX_MAP``), or
``hex == -1`` and ``box`` names the off-map box.

Ownership
---------
Fields are grouped by owner.  The *land* section (sequence of play, rules 4-17
and 20) belongs to the land-warfare engine; the *invasion* section (rules 16.1-
16.7, 17.5-17.8, 18, 19, 21, 22.39) belongs to the invasion engine, which may
append fields to its section.  Add a field by appending a :class:`Field` to
:data:`FIELDS`; :class:`GameState` and :func:`allocate` follow automatically.
Never reorder: code may index the tuple positionally inside numba.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from typing import Iterable

import numpy as np

# ---------------------------------------------------------------------------
# Codes shared by all modules
# ---------------------------------------------------------------------------

#: Sides.  ``control`` of a hex uses the same codes (-1: nobody, e.g. ocean).
AXIS = 0
ALLIED = 1
NOBODY = -1
SIDE_NAMES = ("axis", "allied")

#: Where a unit is (``box``).  ``hex >= 0`` only with ``BOX_MAP``.
BOX_MAP = 0           #: on the map, ``hex`` gives the hex
BOX_FOLLOW_UP = 1     #: a "Follow-up" box (rule 18.1); ``box_slot`` = beach zone
BOX_FIRST_WAVE = 2    #: a First Wave box; ``box_slot`` = beach hex index it feeds
BOX_SECOND_WAVE = 3   #: a Second Wave box; ``box_slot`` = beach hex index it feeds
BOX_DISBANDMENT = 4   #: the Disbandment Box (rules 3.0 b, 13.1, 16.1)
BOX_ELIMINATED = 5    #: eliminated (counts for rule 20 as the static table says)
BOX_TURN_TRACK = 6    #: waiting on the turn record track; ``return_turn`` says when
BOX_POOL = 7          #: a generic piece not in use (generic companies, rule 13.0)
BOX_CUP = 8           #: militia piece in the cup (rule 16.31)
BOX_REMOVED = 9       #: out of the game, not a loss (absorbed 17.42, dismantled 16.25,
#:                       discarded militia 16.31, damaged warship kept apart: see below)
BOX_DAMAGED = 10      #: damaged warship (16.55): out of the game, one Axis step (20.2)
BOX_NOT_YET = 11      #: scenario piece that has not entered play (e.g. warships before 4.22 b)
BOX_NAMES = (
    "map", "follow_up", "first_wave", "second_wave", "disbandment", "eliminated",
    "turn_track", "pool", "cup", "removed", "damaged", "not_yet",
)

#: Morale state of a unit (rule 11): a unit is never both (9.9).
NORMAL = 0
DISORGANIZED = 1
DEMORALIZED = 2

#: Weather (rule 17.2).
CLEAR = 0
CLOUDY = 1
RAINY = 2
WEATHER_NAMES = ("clear", "cloudy", "rainy")

#: Time of day of a game turn (rule 4.0).
AM = 0
NOON = 1
PM = 2
NIGHT = 3
TOD_NAMES = ("AM", "noon", "PM", "night")

#: Day index 0 is 29 June 1942; 1 is 30 June; 2 is 1 July ... 11 is 10 July.
FIRST_DATE_DAY = 0


def date_name(day: int) -> str:
    """Calendar name of day index ``day`` (0 = 29 June 1942)."""
    return f"{29 + day} June" if day <= 1 else f"{day - 1} July"


def turn_name(turn: int) -> str:
    """``"30 June AM"`` style name of absolute game turn ``turn`` (0 = 29 June AM)."""
    return f"{date_name(turn // 4)} {TOD_NAMES[turn % 4]}"


#: Causes of a step loss, for the first-turn loss tallies (``first_turn_steps_lost``;
#: result columns ``<side>_first_turn_loss_<name>``).  The cause is read from
#: the rule an elimination cites (:func:`malta_sim.iod.rules.organisation.loss_cause`).
LOSS_LANDING = 0        #: landing losses (18.5)
LOSS_COASTAL_FIRE = 1   #: coastal gun fire at wave boxes (16.56) and at warships (16.55)
LOSS_WATERS_EDGE = 2    #: water's edge combat (18.61 Axis, 18.62 Allied)
LOSS_DROWNED = 3        #: paratroops dropped into the sea (19.45)
LOSS_COMBAT = 4         #: ground combat and its retreats (9.x), hostile landings (19.51-19.53)
LOSS_BOMBARDMENT = 5    #: bombardment results (10.12), the Z result's step losses included (9.41)
LOSS_OVERSTACK = 6      #: over-stacked units eliminated (7.2)
LOSS_OTHER = 7          #: anything else (overrun 6.52, airborne losses 19.46, AA fire 16.12, ...)
LOSS_CAUSE_NAMES = ("landing", "coastal_fire", "waters_edge", "drowned", "combat", "bombardment",
                    "overstack", "other")

#: Game end reasons (row column ``end_reason``).
END_NONE = 0
END_SURRENDER = 1     #: modified surrender roll <= 0 (20.3): Axis win
END_SUSPENDED = 2     #: modified surrender roll >= 14 (20.3): Allied win
END_LAST_TURN = 3     #: last turn over without surrender (4.41, 20.3): Allied win
END_TURN_CAP = 4      #: safety cap (should never happen)
END_REASONS = ("none", "surrender", "invasion_suspended", "last_turn", "turn_cap")


@dataclass(frozen=True)
class Field:
    """One state array.

    Attributes
    ----------
    name : str
        Attribute name on :class:`GameState`.
    scope : {"unit", "hex", "game"}
        Leading (per-game) dimension: units, hexes or none.
    dtype : str
        numpy dtype name.
    fill : int or bool
        Initial value.
    owner : {"land", "invasion"}
        Which engine module group maintains it.
    meaning : str
        What the value means, with units and rule numbers.
    extra : tuple of str
        Names of static sizes for extra trailing dims (keys of ``sizes`` in
        :func:`allocate`), e.g. ``("n_regiments",)``.
    """

    name: str
    scope: str
    dtype: str
    fill: int | bool
    owner: str
    meaning: str
    extra: tuple[str, ...] = ()


FIELDS: list[Field] = [
    # ----------------------------------------------------------------- land: units
    Field("hex", "unit", "int32", -1, "land",
          "dense hex index of the unit on the map; -1 when off the map (see box)"),
    Field("box", "unit", "int8", BOX_POOL, "land",
          "where the unit is: BOX_* code (map, Follow-up/First/Second Wave, Disbandment, "
          "eliminated, turn track, pool, cup, removed, damaged, not yet in play)"),
    Field("box_slot", "unit", "int16", -1, "land",
          "which box: beach zone for Follow-up, beach hex index for First/Second Wave, -1 else"),
    Field("level", "unit", "int8", 0, "land",
          "strength level, 0 = full strength; steps left = n_levels - level "
          "(rules 9.5, 17.3); for one-step pieces with a reduced side see `reduced`"),
    Field("reduced", "unit", "bool", False, "land",
          "one-step piece shown on its reduced side (paratroop companies 17.83, 19.46; "
          "companies of a reformed battalion 13.2)"),
    Field("morale_state", "unit", "int8", NORMAL, "land",
          "NORMAL / DISORGANIZED / DEMORALIZED (rules 11.3, 11.4, 9.41)"),
    Field("out_of_supply", "unit", "bool", False, "land", "Out of Supply marker (8.1, 8.3)"),
    Field("hitched", "unit", "bool", False, "land",
          "artillery on its hitched (movement) side; False = prepared to fire (6.6, 12.4)"),
    Field("salvos", "unit", "int8", 0, "land", "salvos of ammunition available, 0..2 (12.5)"),
    Field("formation", "unit", "int8", -1, "land",
          "formation the unit is attached/assigned to now (15.2); -1 unassigned"),
    Field("parent", "unit", "int32", -1, "land",
          "for a company on the map: battalion it was broken down from (13.1); -1 otherwise"),
    Field("return_turn", "unit", "int16", -1, "land",
          "absolute turn at whose Initial Segment / Status Phase a unit on the turn track "
          "returns (14.42, 14.43, 16.82); -1 never"),
    Field("escaped", "unit", "bool", False, "land",
          "a leader on the turn track that escaped a hex entered by the enemy (14.42: it "
          "returns in its side's Status Phase), not an eliminated one (14.43: its ADC returns "
          "in the Initial Segment)"),
    Field("entered_turn", "unit", "int16", -1, "land",
          "absolute turn the unit entered the map by jump, landing or airfield "
          "(6.54, 8.53, 9.16, 16.13, 19.7-19.9); -1 otherwise"),
    Field("moved", "unit", "bool", False, "land", "moved in this player turn (6.0; 17.81)"),
    Field("strategic", "unit", "bool", False, "land", "used strategic movement this turn (6.2)"),
    Field("attacked", "unit", "bool", False, "land", "attacked in this combat phase (9.13)"),
    Field("fired", "unit", "bool", False, "land",
          "artillery/warship bombarded or gave offensive support this phase (10.13); "
          "warship communications failure (16.73)"),
    Field("advanced", "unit", "bool", False, "land",
          "advanced after combat this combat phase: eligible for penetration (9.88, 10.3)"),
    Field("penetrated", "unit", "bool", False, "land",
          "took part in a penetration attempt this phase (10.32)"),
    Field("leader_uses", "unit", "int8", 0, "land",
          "leader: command rolls used this phase (14.21, at most 2)"),
    Field("steps_lost", "unit", "int8", 0, "land",
          "steps of this unit counted as eliminated for victory (20.1, 20.2); "
          "replacements subtract (17.41, 17.42)"),
    Field("revealed", "unit", "bool", False, "land",
          "strongpoint / militia / coastal gun shown face up (16.22, 16.35, 16.52)"),
    Field("replaced_today", "unit", "bool", False, "land",
          "received a replacement this Initial Segment (17.4: one per turn)"),
    # ----------------------------------------------------------------- land: hexes
    Field("control", "hex", "int8", NOBODY, "land",
          "side that controls the hex: last side to have a unit there (2.1); -1 nobody/ocean"),
    Field("fort_destroyed", "hex", "bool", False, "land", "fort destroyed (17.1, 22.23)"),
    # ----------------------------------------------------------------- land: game
    Field("turn", "game", "int16", 0, "land",
          "absolute game turn, 0 = 29 June AM; day = turn // 4, time of day = turn % 4 (4.0)"),
    Field("phase", "game", "int8", 0, "land", "current phase code (sequence.PHASES)"),
    Field("weather", "game", "int8", CLEAR, "land", "weather of the day (17.2)"),
    Field("axis_steps_lost", "game", "int16", 0, "land",
          "Axis steps eliminated for victory, incl. scenario start count (20.2, 22.29)"),
    Field("allied_steps_lost", "game", "int16", 0, "land",
          "Allied steps eliminated for victory, incl. scenario start count (20.1, 22.29)"),
    Field("forts_destroyed_base", "game", "int16", 0, "land",
          "forts destroyed off the modelled map before the start (kept 0: 22.23 forts are "
          "in fort_destroyed)"),
    Field("air_support_left", "game", "int8", 0, "land",
          "Axis air support markers still usable today (16.41, 16.42)"),
    Field("stockpile", "game", "int16", 0, "land", "Axis artillery stockpile, salvos (12.54)"),
    Field("axis_replacements", "game", "int8", 0, "land",
          "Italian infantry replacements left this Initial Segment (17.41)"),
    Field("glider_replacements", "game", "int8", 0, "land",
          "Italian glider replacements left this Initial Segment (17.41)"),
    Field("over", "game", "bool", False, "land", "game has ended"),
    Field("winner", "game", "int8", NOBODY, "land", "AXIS / ALLIED / -1 while running"),
    Field("end_reason", "game", "int8", END_NONE, "land", "END_* code"),
    Field("last_surrender_roll", "game", "int8", 0, "land",
          "last unmodified 2d6 surrender roll (20.0)"),
    Field("surrender_modifier", "game", "int8", 0, "land",
          "total surrender modifier at the last Surrender Phase (20.0)"),
    Field("first_airfield_turn", "game", "int16", -1, "land",
          "first turn at whose end the Axis controlled an airfield captured in play; -1 never"),
    Field("hqs_lost", "game", "int16", 0, "land", "Axis HQ eliminations in this game (row column)"),
    Field("rainy_days", "game", "int8", 0, "land", "days with Rainy weather (row column)"),
    Field("integrity_lost", "game", "bool", False, "land",
          "regiment/brigade barred from the integrity bonus for the rest of the game (9.95)",
          ("n_regiments",)),
    Field("leader_bonus", "unit", "int8", 0, "land",
          "MP a unit gets from its formation leader in this movement phase (14.1), set at the "
          "phase's start for the side moving and kept until the next movement phase"),
    Field("strategic_allowed", "game", "bool", False, "land",
          "per side, the hexes that side's strategic movement may use this movement phase (6.2: "
          "own-controlled land not within two hexes of an enemy ground unit), fixed at the "
          "phase's start", ("n_sides", "n_hexes")),
    Field("zoc_at_phase_start", "hex", "bool", False, "land",
          "the enemy's ZOC at the start of the current movement phase (6.41 infiltration)"),
    Field("comm_failed_turn", "unit", "int16", -1, "land",
          "turn in which a warship's communications roll failed (16.73: no fire for the rest "
          "of that turn); -1 never"),
    # ----------------------------------------------------------------- invasion (E2)
    Field("militia_rolled", "hex", "bool", False, "invasion",
          "militia roll already made for this town/city hex (16.32)"),
    Field("landed_beach", "hex", "bool", False, "invasion",
          "Axis units have landed on this beach hex at some time (8.51, 12.54)"),
    Field("dz_hex", "game", "int32", -1, "invasion",
          "hex of each formation's drop zone marker, -1 not dropped (19.1)", ("n_formations",)),
    Field("rn_result", "game", "int8", 0, "invasion",
          "Royal Navy intervention die result, 0 = not rolled (17.6, 20.0)"),
    Field("warships_damaged", "game", "int16", 0, "invasion",
          "warships damaged (16.55; one Axis step each, 20.2)"),
    Field("air_attacks_left", "game", "int16", 0, "invasion",
          "air attacks on coastal guns left this Initial Segment (17.51)"),
    Field("beach_supply_barred", "game", "bool", False, "invasion",
          "Royal Navy result bars beach hexes as Axis supply sources (17.6)"),
    Field("air_support_cut", "game", "int8", 0, "invasion",
          "air support markers removed per day by Royal Navy result (17.6)"),
    Field("gun_fired_turn", "unit", "int16", -1, "invasion",
          "turn a coastal gun last fired (16.55/16.56: one target a phase) or a warship "
          "fired at coastal guns (18.4: no support for the rest of that turn); -1 never"),
    Field("division_zone", "game", "int8", -1, "invasion",
          "beach zone each formation lands in (18.21); -1 none", ("n_formations",)),
    Field("landings_cancelled_turn", "game", "int16", -1, "invasion",
          "turn whose Amphibious Landing Phase the Delayed Landings roll cancelled (22.39)"),
    Field("warships_placed", "game", "bool", False, "invasion",
          "the warships have been placed at sea (4.22 b, 16.7)"),
    Field("rn_beach_until_day", "game", "int16", -1, "invasion",
          "day on which the Royal Navy's bar on beach supply ends (17.6); -1 none"),
    Field("rn_air_support_until_day", "game", "int16", -1, "invasion",
          "day on which the Royal Navy's cut of air support markers ends (17.6); -1 none"),
    Field("rn_air_attacks_until_day", "game", "int16", -1, "invasion",
          "day on which the Royal Navy's cut of air attacks ends (17.6); -1 none"),
    Field("air_attacks_cut", "game", "int8", 0, "invasion",
          "air attacks the Royal Navy result removes per day (17.6)"),
    Field("strongpoints_dismantled", "game", "int16", 0, "invasion",
          "strongpoints the Allies have dismantled so far (16.25)"),
    Field("engineers_placed", "game", "int16", 0, "invasion",
          "engineer companies placed for dismantled strongpoints so far (16.25)"),
    Field("straggler_turn", "unit", "int16", -1, "invasion",
          "turn a reduced paratroop company last tried to recover (17.8; it may not move that "
          "turn, 17.81); -1 never"),
    Field("militia_pending", "hex", "int16", 0, "invasion",
          "place (1, 2, ...) of a town or city hex in the queue of militia uprising rolls that "
          "wait for the end of the current move (16.32); 0 not queued"),
    Field("planned_through_day", "game", "int16", -1, "invasion",
          "last day whose jumps have been planned (19.3, 3.0 a, 3.0 e)"),
    Field("next_plan_id", "game", "int16", 0, "invasion",
          "id the next planned jump gets (19.3; the plans of a turn are taken in id order)"),
    Field("marker_plan_id", "game", "int16", -1, "invasion",
          "per formation, id of its planned drop zone marker jump (19.31 a); -1 none",
          ("n_formations",)),
    Field("marker_plan_turn", "game", "int16", -1, "invasion",
          "per formation, turn of its planned drop zone marker jump (19.31 a)", ("n_formations",)),
    Field("marker_plan_hex", "game", "int32", -1, "invasion",
          "per formation, hex its drop zone marker is planned on (19.31 a)", ("n_formations",)),
    Field("long_stick_used", "game", "bool", False, "invasion",
          "per formation, its one stick beyond three hexes of the marker is planned (19.22)",
          ("n_formations",)),
    Field("stick_plan_id", "unit", "int16", -1, "invasion",
          "id of the planned stick jump the unit belongs to (19.31 b, 19.34: one plan per unit); "
          "-1 none"),
    Field("stick_plan_turn", "unit", "int16", -1, "invasion", "turn of that planned stick jump"),
    Field("stick_plan_slot", "unit", "int8", -1, "invasion",
          "the unit's place in its stick's list of units (the order in which it jumps)"),
    Field("stick_plan_formation", "unit", "int8", -1, "invasion",
          "formation whose drop zone marker the stick is planned from (19.32)"),
    Field("stick_plan_dq", "unit", "int8", 0, "invasion",
          "axial column offset of the stick's target from its marker (19.32)"),
    Field("stick_plan_dr", "unit", "int8", 0, "invasion",
          "axial row offset of the stick's target from its marker (19.32)"),
    # ----------------------------------------------------------------- result indicators
    # Counters read only by the result row (engine.game_row); no rule reads them.
    Field("first_turn_steps_lost", "game", "int16", 0, "land",
          "steps counted as eliminated for victory (20.1, 20.2; weighted as axis_steps_lost / "
          "allied_steps_lost) during the scenario's first game turn, per side and LOSS_* cause; "
          "replacements (17.41) do not subtract", ("n_sides", "n_loss_causes")),
    Field("allied_hqs_lost", "game", "int16", 0, "land",
          "Allied HQ eliminations in this game (16.81; row column)"),
    Field("bombardments", "game", "int16", 0, "land",
          "bombardments resolved per side (10.12; one per target hex and combat phase)",
          ("n_sides",)),
    Field("bombardments_no_effect", "game", "int16", 0, "land",
          "bombardments per side whose Bombardment Table column gives no result on any 2d6 roll, "
          "or whose strength is below the row's minimum (10.12)", ("n_sides",)),
    Field("first_ashore_turn", "game", "int16", -1, "invasion",
          "per formation, the first turn one of its pieces (not a leader) entered the map by "
          "landing (18.5, 18.8), airfield landing (16.13) or jump (19.4); the scenario's first "
          "turn when it had pieces on the map at set-up; -1 never", ("n_formations",)),
]

_BY_NAME = {f.name: f for f in FIELDS}
if len(_BY_NAME) != len(FIELDS):  # pragma: no cover - guards edits of FIELDS
    raise RuntimeError("duplicate field name in FIELDS")

#: The state type: one attribute per registered field, in registry order.
GameState = namedtuple("GameState", [f.name for f in FIELDS])
GameState.__doc__ = (
    "Island of Death state: a NamedTuple of numpy arrays, one per entry of "
    "state.FIELDS (see the module docstring for shapes).")


def field_info(name: str) -> Field:
    """The :class:`Field` called ``name`` (KeyError if unknown)."""
    return _BY_NAME[name]


def allocate(n_units: int, n_hexes: int, n_games: int | None = None,
             sizes: dict[str, int] | None = None) -> GameState:
    """Allocate a state with every field at its fill value.

    Parameters
    ----------
    n_units, n_hexes : int
        Sizes of the static unit table and of the hex grid.
    n_games : int or None
        ``None`` for a single game (unit/hex fields 1-D, game fields shape
        ``[1, *extra]``); else the batch size ``G`` (all fields get a leading
        ``G`` axis).
    sizes : dict
        Extra dimension sizes by name (``n_regiments``, ``n_formations``; ``n_sides``,
        ``n_hexes`` and ``n_loss_causes`` have their fixed defaults).

    Returns
    -------
    GameState
    """
    sizes = {"n_regiments": 1, "n_formations": 1, "n_sides": 2, "n_hexes": n_hexes,
             "n_loss_causes": len(LOSS_CAUSE_NAMES), **(sizes or {})}
    arrays = []
    for f in FIELDS:
        extra = tuple(sizes[e] for e in f.extra)
        if f.scope == "unit":
            shape = (n_units,)
        elif f.scope == "hex":
            shape = (n_hexes,)
        else:
            shape = ()
        if n_games is None:
            full = shape + extra if f.scope != "game" else (1,) + extra
        else:
            full = (n_games,) + shape + extra
        arrays.append(np.full(full, f.fill, dtype=f.dtype))
    return GameState(*arrays)


def game_view(batch: GameState, g: int) -> GameState:
    """Single-game view (no copy) of game ``g`` of a batched state."""
    out = []
    for f, arr in zip(FIELDS, batch):
        out.append(arr[g:g + 1] if f.scope == "game" else arr[g])
    return GameState(*out)


def copy_state(s: GameState) -> GameState:
    """Deep copy of a state."""
    return GameState(*(a.copy() for a in s))


def stack_states(states: Iterable[GameState]) -> GameState:
    """Batch single-game states into one batched state (new arrays)."""
    states = list(states)
    out = []
    for i, f in enumerate(FIELDS):
        if f.scope == "game":
            out.append(np.concatenate([s[i] for s in states], axis=0))
        else:
            out.append(np.stack([s[i] for s in states], axis=0))
    return GameState(*out)


def describe() -> str:
    """The registry as a text table (name, scope, dtype, owner, meaning)."""
    lines = [f"{'name':22s} {'scope':5s} {'dtype':6s} {'owner':8s} meaning"]
    for f in FIELDS:
        ex = f"[{','.join(f.extra)}] " if f.extra else ""
        lines.append(f"{f.name:22s} {f.scope:5s} {f.dtype:6s} {f.owner:8s} {ex}{f.meaning}")
    return "\n".join(lines)
