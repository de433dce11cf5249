"""Parameter vectors of the scripted Island of Death bots.

Each side's bot is driven by a small float64 vector whose slots are documented
here (name, unit, range, default).  The Python bots of :mod:`.axis` and
:mod:`.allied` read their knobs from that vector only (``self.vec[AX_MIN_ODDS]``
...), so a compiled decision loop can take the very same array: the slot
indices are module constants (``AX_*``, ``AL_*``) and the vector is plain
``numpy.ndarray[float64]`` of length ``len(AXIS_PARAMS)`` /
``len(ALLIED_PARAMS)``.

Flags (``kind="flag"``) are 0.0 / 1.0.  Odds levels follow rule 9.3 d
(:func:`malta_sim.iod.static.odds_level`): ``1`` = 1:1,
``2`` = 2:1, ``3`` = 3:1, ``0`` = 1:2, ``-1`` = 1:3; the bots compare the
*final* level, after the column shifts of rule 9.92.

Use :func:`axis_vector` / :func:`allied_vector` (or :func:`make_vector`) to
turn a ``{name: value}`` override dict into a validated vector; unknown names
or values outside the range raise :class:`malta_sim.errors.OptionError`
listing the valid names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from malta_sim.errors import OptionError


@dataclass(frozen=True)
class Param:
    """One slot of a bot parameter vector.

    Attributes
    ----------
    name : str
        Key used in ``policy_params`` (``{"axis": {"min_odds": 2}}``).
    unit : str
        Unit of the value (odds level, steps, hexes, weight, flag ...).
    low, high : float
        Inclusive valid range.
    default : float
        Value of the ``balanced`` / ``static`` presets.
    doc : str
        What the knob does and which rule it touches.
    kind : {"real", "int", "flag"}
        ``int`` values must be whole, ``flag`` values 0 or 1.
    """

    name: str
    unit: str
    low: float
    high: float
    default: float
    doc: str
    kind: str = "real"


#: Axis bot parameters, in vector order.
AXIS_PARAMS: tuple[Param, ...] = (
    Param("min_odds", "odds level", -2, 8, 2,
          "least final odds level (rule 9.3 d, after 9.92 shifts) at which the bot attacks; "
          "2 = 2:1", "int"),
    Param("min_gain", "steps", -3, 5, 0.3,
          "least expected enemy steps lost minus risk_weight x own expected steps lost "
          "(exact over 2d6, rules 9.3-9.4) for an attack"),
    Param("risk_weight", "weight", 0, 5, 1.0,
          "price of one own expected step lost against one enemy step"),
    Param("retreat_value", "steps per hex", 0, 2, 0.25,
          "value of one expected enemy retreat hex (9.6), in steps"),
    Param("w_airfield", "weight", 0, 10, 4.0, "objective weight of an airfield hex (16.1, 20)"),
    Param("w_city", "weight", 0, 10, 3.0, "objective weight of a victory city hex (20)"),
    Param("w_town", "weight", 0, 10, 1.0, "objective weight of a town hex"),
    Param("w_port", "weight", 0, 10, 1.5, "objective weight of a main port hex (12.54)"),
    Param("dist_decay", "weight per hex", 0, 5, 0.35,
          "objective score lost per hex of distance when a unit picks its goal"),
    Param("supply_radius", "hexes", 1, 20, 10,
          "a move may not end farther than this from the nearest own HQ or beach hex "
          "(keeps supply, rule 8.2: 12-hex routes)", "int"),
    Param("envelop_weight", "weight", 0, 5, 0.6,
          "bonus for a move ending next to an enemy stack already adjacent to other "
          "friendly hexes (envelopment, 9.92)"),
    Param("stand_max_hits", "hexes", 0, 4, 1,
          "stand ground (9.7) when defending a key hex against at most this many retreat hexes",
          "int"),
    Param("hurricane", "flag", 0, 1, 1,
          "fire hurricanes (12.52): in a bombardment when the exact table gives 0.1 steps more, "
          "and with artillery supporting an attack below min_odds", "flag"),
    Param("bombard", "flag", 0, 1, 1,
          "bombard (10.1) enemy hexes that no attack is planned against with spare artillery, "
          "where the exact Bombardment Table expectation is at least 0.05 steps",
          "flag"),
    Param("breakdown", "flag", 0, 1, 0,
          "break battalions down into companies (13.1) when next to the enemy to widen "
          "envelopments", "flag"),
    Param("reform", "flag", 0, 1, 1, "reform battalions from companies (13.2)", "flag"),
    Param("advance_further", "flag", 0, 1, 1,
          "advance beyond the attacked hex (9.84) toward the objectives", "flag"),
    Param("solitaire_method_a", "flag", 0, 1, 0,
          "rule 21.11: choose drop zone marker hexes near the landing beaches (method a) "
          "instead of rolling (method b)", "flag"),
    Param("stick_fraction", "fraction", 0, 1, 1.0,
          "share of the allowed sticks that jump each turn (19.3, 21.12)"),
    Param("beach_threat", "strength", 0, 40, 12,
          "most Allied defense strength next to a beach hex the bot lands on while another "
          "beach hex of the zone is quieter (18.5, 18.61; 6 = one full British battalion)"),
    Param("jump_threat", "strength", 1, 40, 6,
          "Allied defense strength next to a stick's target hex from which the bot cancels "
          "the jump (19.35); a target the Allies hold is always cancelled (19.5)"),
    Param("opening_spread", "fraction", 0, 1, 0.25,
          "how far below the best score (as a share of it) a beach zone or drop zone may "
          "be and still be drawn for the opening (18.21, 19.31); 0 = always the best"),
    Param("one_zone", "flag", 0, 1, 1,
          "both infantry divisions land in the same beach zone (18.21, 18.92), so only one "
          "zone's Allied-held beach hexes count against the Axis in the surrender roll (20.0); "
          "0: the two divisions take different zones", "flag"),
    Param("zone_threat", "weight per strength point", 0, 10, 2.0,
          "weight of the Allied defense strength within 2 hexes of a beach zone's beach hexes "
          "against the objective weight within 4 hexes of them, in the zone score of the opening "
          "(18.21, 18.5, 18.61: the landing losses and the water's edge fights happen there)"),
    Param("second_wave_any", "flag", 0, 1, 0,
          "artillery, HQs, tanks, motorcycles and companies left in a Follow-up box also land in "
          "the Second Wave boxes of quiet beach hexes the Axis does not hold (18.32: no Allied "
          "unit next to the hex), once those of held beach hexes are taken, so the box empties "
          "(20.0: while it holds Axis units, each beach hex of its zone the Allies control is "
          "+1 to every surrender roll); 0: only onto held beach hexes", "flag"),
)

#: Allied bot parameters, in vector order.
ALLIED_PARAMS: tuple[Param, ...] = (
    Param("min_odds", "odds level", -2, 8, 3,
          "least final odds level (9.3 d) for a counterattack", "int"),
    Param("min_gain", "steps", -3, 5, 1.0,
          "least expected Axis steps lost minus risk_weight x own expected steps lost"),
    Param("risk_weight", "weight", 0, 5, 1.5, "price of one own expected step lost"),
    Param("retreat_value", "steps per hex", 0, 2, 0.25, "value of one expected Axis retreat hex"),
    Param("reserve_fraction", "fraction", 0, 1, 0.0,
          "share of mobile Allied combat units kept as a mobile reserve instead of garrisoning"),
    Param("reserve_radius", "hexes", 1, 12, 4,
          "reserve units close on Axis stacks within this distance of an objective", "int"),
    Param("weak_stack", "strength points", 0, 30, 6,
          "Axis stacks with at most this total defense strength count as weak targets"),
    Param("stand_max_hits", "hexes", 0, 4, 1,
          "stand ground (9.7) in cities, forts, towns and airfields against at most this "
          "many retreat hexes", "int"),
    Param("waters_edge", "flag", 0, 1, 1, "fire water's edge attacks (18.61)", "flag"),
    Param("dismantle", "flag", 0, 1, 0,
          "dismantle four strongpoints far from the Axis into an engineer company (16.25)",
          "flag"),
    Param("place_radius", "hexes", 0, 6, 1,
          "Variable Allied Placement (22.39): combat units start within this distance of a "
          "victory city or airfield, artillery within two more (0: the engine's default "
          "placement near the beaches); only with the option variable_allied_placement", "int"),
    Param("w_retake", "steps", 0, 10, 0,
          "value, in Axis steps, of driving the Axis out of an airfield or victory city it "
          "holds (20.0), times the exact chance that the attack empties the hex (every "
          "defending step lost or a retreat, 9.4); 0: attacks weigh steps only"),
    Param("w_hq", "steps", 0, 10, 0,
          "value, in Axis steps, of each Axis HQ in the attacked hex (+2 to the surrender roll "
          "when eliminated, 20.0; its formation's supply, 8.5), times the exact chance that the "
          "attack eliminates the hex's pieces (every defending step lost, 9.42)"),
    Param("reinforce", "flag", 0, 1, 0,
          "reserve units with no weak Axis stack to close on move onto the held airfield or "
          "victory city with the most Axis units within reserve_radius (the reserve stays "
          "committed all game)", "flag"),
    Param("beaches", "flag", 0, 1, 0,
          "retake and hold the beach hexes of the zones whose Follow-up box still holds Axis "
          "units (rule 20.0: +1 to every surrender roll per such beach hex the Allies control; "
          "18.32: no landing on an Allied-occupied beach hex): a unit that can reach an empty "
          "one the Axis controls moves onto it, a lone unit on one stays, and attacks on an "
          "Axis-held one count w_retake like an airfield", "flag"),
    Param("shore_up", "strength points", 0, 40, 0,
          "a held airfield or victory city with Axis ground units next to it (they may attack "
          "it next, 9.1; -1 to every surrender roll if lost, 20.0) and less Allied defense "
          "strength than this gets the reserve unit that reaches it with the fewest MP, before "
          "the reserve closes on weak stacks; 0: off"),
    Param("retake_empty", "flag", 0, 1, 0,
          "before the reserve's moves, a unit not on an objective the Allies hold (not "
          "artillery, an HQ, a leader or AA) that can reach an empty airfield, victory city or "
          "town the Axis controls moves onto it, retaking it (2.1; each airfield or victory city "
          "the Axis controls is -1 to every surrender roll, 20.0); 0: off", "flag"),
    Param("stand_survive", "flag", 0, 1, 0,
          "stand ground (9.7) only when the defending pieces of the hex hold more steps than "
          "the hits: standing units take every remaining hit as a step loss (9.71), so with "
          "fewer steps the hex is lost either way and standing only loses the pieces a "
          "retreat would save; 0: stand_max_hits alone decides", "flag"),
)

AX = {p.name: i for i, p in enumerate(AXIS_PARAMS)}
AL = {p.name: i for i, p in enumerate(ALLIED_PARAMS)}

# Slot indices (for compiled loops and the bots).
(AX_MIN_ODDS, AX_MIN_GAIN, AX_RISK, AX_RETREAT, AX_W_AIRFIELD, AX_W_CITY, AX_W_TOWN, AX_W_PORT,
 AX_DECAY, AX_SUPPLY_RADIUS, AX_ENVELOP, AX_STAND, AX_HURRICANE, AX_BOMBARD, AX_BREAKDOWN,
 AX_REFORM, AX_ADVANCE, AX_SOL_METHOD_A, AX_STICK_FRACTION, AX_BEACH_THREAT, AX_JUMP_THREAT,
 AX_OPENING_SPREAD, AX_ONE_ZONE, AX_ZONE_THREAT, AX_SECOND_WAVE_ANY) = range(len(AXIS_PARAMS))
(AL_MIN_ODDS, AL_MIN_GAIN, AL_RISK, AL_RETREAT, AL_RESERVE, AL_RESERVE_RADIUS, AL_WEAK,
 AL_STAND, AL_WATERS_EDGE, AL_DISMANTLE, AL_PLACE_RADIUS, AL_W_RETAKE,
 AL_W_HQ, AL_REINFORCE, AL_BEACHES, AL_SHORE_UP, AL_RETAKE_EMPTY,
 AL_STAND_SURVIVE) = range(len(ALLIED_PARAMS))


def param_table(side: int) -> tuple[Param, ...]:
    """The parameter table of ``side`` (0 Axis, 1 Allied)."""
    return AXIS_PARAMS if side == 0 else ALLIED_PARAMS


def defaults(side: int) -> np.ndarray:
    """float64[n_params]: the default vector of ``side``."""
    return np.array([p.default for p in param_table(side)], dtype=np.float64)


def make_vector(side: int, overrides: dict | None = None, base: np.ndarray | None = None) -> np.ndarray:
    """Validated parameter vector of ``side``.

    Parameters
    ----------
    side : int
        0 Axis, 1 Allied.
    overrides : dict, optional
        ``{name: number}``; names from :data:`AXIS_PARAMS` / :data:`ALLIED_PARAMS`.
    base : float64[n_params], optional
        Starting vector (a preset's); the side's defaults when None.

    Returns
    -------
    numpy.ndarray
        float64[n_params], a fresh copy.

    Raises
    ------
    OptionError
        Unknown name (the message lists the valid ones), non-numeric value,
        value outside ``[low, high]``, non-whole ``int`` or non-0/1 ``flag``.
    """
    table = param_table(side)
    index = AX if side == 0 else AL
    vec = defaults(side) if base is None else np.array(base, dtype=np.float64, copy=True)
    who = ("axis", "allied")[side]
    for name, value in (overrides or {}).items():
        if name not in index:
            raise OptionError(f"unknown {who} bot parameter {name!r}; valid names: "
                              f"{', '.join(p.name for p in table)}")
        p = table[index[name]]
        if isinstance(value, bool):
            value = float(value)
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise OptionError(f"{who} bot parameter {name} must be a number, got {value!r}") from None
        if not (p.low <= v <= p.high):
            raise OptionError(f"{who} bot parameter {name} must lie in [{p.low:g}, {p.high:g}] "
                              f"({p.unit}), got {v:g}")
        if p.kind == "int" and v != int(v):
            raise OptionError(f"{who} bot parameter {name} must be a whole number, got {v:g}")
        if p.kind == "flag" and v not in (0.0, 1.0):
            raise OptionError(f"{who} bot parameter {name} is a flag (0 or 1), got {v:g}")
        vec[index[name]] = v
    return vec


def check_allied_options(allied_params: dict | None, options) -> None:
    """Refuse Allied parameters that the game's options leave without effect.

    Parameters
    ----------
    allied_params : dict or None
        The Allied overrides (``policy_params["allied"]``).
    options : iterable of str
        The game's optional rules.

    Raises
    ------
    OptionError
        ``place_radius`` given without the option ``variable_allied_placement``
        (rule 22.39: without it the Allies set up as the scenario prints).
    """
    if isinstance(allied_params, dict) and "place_radius" in allied_params \
            and "variable_allied_placement" not in tuple(options or ()):
        raise OptionError("allied bot parameter place_radius needs the option "
                          "variable_allied_placement (rule 22.39)")


def axis_vector(overrides: dict | None = None) -> np.ndarray:
    """:func:`make_vector` for the Axis."""
    return make_vector(0, overrides)


def allied_vector(overrides: dict | None = None) -> np.ndarray:
    """:func:`make_vector` for the Allies."""
    return make_vector(1, overrides)


def describe(side: int) -> str:
    """Markdown table of ``side``'s parameters (name, unit, range, default, meaning)."""
    rows = ["| slot | name | unit | range | default | meaning |", "|---|---|---|---|---|---|"]
    for i, p in enumerate(param_table(side)):
        rows.append(f"| {i} | `{p.name}` | {p.unit} | {p.low:g} .. {p.high:g} | {p.default:g} | {p.doc} |")
    return "\n".join(rows)
