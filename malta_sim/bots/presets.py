"""Named bot presets: a bot class plus a base parameter vector.

========================  =====================================================
name                      meaning
========================  =====================================================
``axis:balanced``         the hand-made Axis bot: attacks at 2:1 or better
                          with a positive expected exchange; all parameter
                          defaults (the default Axis bot is ``axis:tuned``,
                          a tuned vector of the same bot, see
                          :data:`DEFAULT_AXIS`)
``axis:aggressive``       attacks from 1:1 with risk weighted down, stands
                          ground more, breaks battalions down to envelop
``axis:cautious``         attacks only at 3:1 or better with a clearly
                          favourable exchange; no bombardment
``axis:solitaire``        balanced play with the rule 21 choices: drop zone
                          markers chosen near the beaches (21.11 method a),
                          every allowed stick jumps (21.12)
``allied:active``         default Allied bot, an active defence: garrisons
                          objectives; two thirds of the mobile units form a
                          reserve that closes on weak Axis stacks and else
                          reinforces the most threatened airfield or city;
                          counterattacks from 2:1 valuing retaken airfields
                          and cities and Axis HQs; retakes and holds the
                          beach hexes of zones whose Follow-up box still
                          holds Axis units (20.0, 18.32); a reserve unit
                          steps into a thinly held airfield or city with
                          Axis units next to it; walks into the empty
                          airfields, cities and towns the Axis holds (2.1,
                          20.0); stands ground only where a step would be
                          left (9.71); dismantles strongpoints into
                          engineers (16.25)
``allied:static``         garrisons objectives, counterattacks only at 3:1
                          and a clear gain
``allied:counterattack``  a third of the mobile units form a reserve that
                          closes on weak Axis stacks; counterattacks from 2:1;
                          dismantles strongpoints into engineers (16.25)
``random``                random legal decisions (either side)
========================  =====================================================

Each preset is a function ``(side, params) -> policy`` registered in
:mod:`malta_sim.bots` under its bare name (``balanced``, ``aggressive``
...); ``params`` overrides slots of the preset vector by name
(:mod:`malta_sim.bots.params`).
"""

from __future__ import annotations

from malta_sim.errors import OptionError
from malta_sim.bots import params as P
from malta_sim.bots import tuned as _tuned

#: preset name -> (side, overrides of the side's default vector, description)
PRESETS: dict[str, tuple[int, dict, str]] = {
    "balanced": (0, {}, "hand-made Axis bot (all parameter defaults)"),
    "aggressive": (0, {"min_odds": 1, "min_gain": -0.2, "risk_weight": 0.5, "stand_max_hits": 2,
                       "breakdown": 1, "envelop_weight": 1.0, "dist_decay": 0.2},
                   "Axis bot attacking from 1:1"),
    "cautious": (0, {"min_odds": 3, "min_gain": 0.8, "risk_weight": 2.0, "stand_max_hits": 0,
                     "bombard": 0, "dist_decay": 0.5},
                 "Axis bot attacking only at 3:1 or better"),
    "solitaire": (0, {"solitaire_method_a": 1, "stick_fraction": 1.0},
                  "balanced Axis bot with rule 21 solitaire choices"),
    "active": (1, {"min_odds": 2, "min_gain": 0.0, "risk_weight": 1.0, "reserve_fraction": 0.67,
                   "reserve_radius": 8, "weak_stack": 8, "dismantle": 1, "w_retake": 8.0,
                   "w_hq": 6.0, "reinforce": 1, "beaches": 1,
                   "shore_up": 10, "retake_empty": 1, "stand_survive": 1},
               "default Allied bot: active defence with a committed reserve"),
    "static": (1, {}, "Allied bot that holds its objectives"),
    "counterattack": (1, {"min_odds": 2, "min_gain": 0.3, "risk_weight": 1.0,
                          "reserve_fraction": 0.34, "reserve_radius": 5, "dismantle": 1},
                      "Allied bot with a mobile counterattack reserve"),
}

#: Registry entries (bare name -> "module:factory") added to malta_sim.bots.
REGISTRY = {name: f"malta_sim.bots.presets:{name}" for name in PRESETS}

#: Full names per side, default first (for the scenario registry).
AXIS_NAMES = ("balanced", "aggressive", "cautious", "solitaire", "random")
ALLIED_NAMES = ("active", "static", "counterattack", "random")

#: Tuned presets (``malta-sim tune``; ``malta_sim/data/bots/tuned.toml``): (side, name) -> TunedPreset.
#: They join the names of their side (before ``random``) and the registry.
TUNED = _tuned.load(reserved=tuple(PRESETS) + ("random",))


def _with_tuned(names: tuple[str, ...], side: int) -> tuple[str, ...]:
    extra = tuple(n for (s, n) in TUNED if s == side and n not in names)
    if "random" in names:
        i = names.index("random")
        return names[:i] + extra + names[i:]
    return names + extra


#: The default Axis preset, when the packaged tuned presets hold it: on
#: common random numbers it beats ``balanced`` (the default before it)
#: against every scripted Allied preset in Operation Hercules and ties or beats it in
#: the Introductory Scenario (``experiments/ladder.py``; docs/policies.md,
#: "Measured strength").  Without it (a preset file that lacks it) the
#: default stays ``balanced``.
DEFAULT_AXIS = "tuned"


def _default_first(names: tuple[str, ...], default: str) -> tuple[str, ...]:
    return (default,) + tuple(n for n in names if n != default) if default in names else names


AXIS_NAMES = _default_first(_with_tuned(AXIS_NAMES, 0), DEFAULT_AXIS)
ALLIED_NAMES = _with_tuned(ALLIED_NAMES, 1)
REGISTRY.update({n: f"malta_sim.bots.tuned:{n}" for (_, n) in TUNED})


def preset_names(side: int, prefixed: bool = True) -> tuple[str, ...]:
    """Policy names accepted for ``side``: bare names (default first) and,
    with ``prefixed``, the same with the ``axis:`` / ``allied:`` prefix."""
    bare = AXIS_NAMES if side == 0 else ALLIED_NAMES
    if not prefixed:
        return bare
    pre = ("axis", "allied")[side]
    return bare + tuple(f"{pre}:{n}" for n in bare)


def preset_vector(name: str, side: int | None = None):
    """float64 vector of preset ``name`` (validated); ``side`` (0 Axis, 1 Allied)
    picks between a tuned preset and a hand-made one of the same name."""
    if side is not None and (side, name) in TUNED:
        return P.make_vector(side, TUNED[(side, name)].params)
    if name not in PRESETS:
        hits = [k for k in TUNED if k[1] == name]
        if hits:
            return P.make_vector(hits[0][0], TUNED[hits[0]].params)
    side_, over, _ = PRESETS[name]
    return P.make_vector(side_, over)


def make_preset(name: str, side: int, params: dict | None = None):
    """Instantiate preset ``name`` for ``side`` with ``params`` overrides.

    Raises
    ------
    OptionError
        Unknown preset, preset of the other side, bad parameter.
    """
    if (side, name) in TUNED:
        pside, over, key = side, TUNED[(side, name)].params, (side, name)
    elif name not in PRESETS and (1 - side, name) in TUNED:
        pside, over, key = 1 - side, {}, name
    elif name not in PRESETS:
        raise OptionError(f"unknown preset {name!r}; choose one of: {', '.join(sorted(PRESETS))}, random")
    else:
        pside, over, _ = PRESETS[name]
        key = name
    if pside != side:
        raise OptionError(f"policy {name!r} is an {('axis', 'allied')[pside]} bot, "
                          f"given for the {('axis', 'allied')[side]} side")
    if side == 0:
        from malta_sim.bots.axis import AxisBot as cls
    else:
        from malta_sim.bots.allied import AlliedBot as cls
    bot = _CLASSES.get(key)
    if bot is None:
        bot = _CLASSES[key] = type(cls)(f"{cls.__name__}_{name}", (cls,),
                                         {"name": name, "preset_base": dict(over)})
    return bot(side, params)


_CLASSES: dict = {}

#: Axis presets and parameters that only act under an optional rule:
#: name -> (option, what is lost without it)
_NEEDS_OPTION = {
    "solitaire": ("solitaire", "the rule 21 choices (21.11 method a, 21.12 sticks) never arise, "
                                "so it plays as balanced"),
    "solitaire_method_a": ("solitaire", "rule 21.11 is asked only in solitaire play"),
}


def option_warnings(name: str, side: int, params: dict | None, options) -> list[str]:
    """Warnings for an Axis preset or parameter that cannot apply under the
    game's optional rules (rule 21 needs ``--option solitaire``).

    Parameters
    ----------
    name : str
        Bot name as given (``solitaire`` or ``axis:solitaire``).
    side : int
        0 Axis, 1 Allied (Allied names give none here).
    params : dict or None
        The side's parameter overrides.
    options : iterable of str
        The optional rules in play.

    Returns
    -------
    list of str
        One line per preset or parameter that has no effect.
    """
    if side != 0:
        return []
    opts = set(options or ())
    bare = name.split(":", 1)[1] if name.startswith("axis:") else name
    out = []
    for key in [bare] + sorted((params or {}).keys()):
        need = _NEEDS_OPTION.get(key)
        if need and need[0] not in opts and not (key != bare and key in PRESETS):
            kind = "preset" if key == bare else "parameter"
            out.append(f"axis {kind} {key!r} needs --option {need[0]}: {need[1]}")
    return out


def balanced(side, params=None):
    """``axis:balanced`` (see module docstring)."""
    return make_preset("balanced", side, params)


def aggressive(side, params=None):
    """``axis:aggressive``."""
    return make_preset("aggressive", side, params)


def cautious(side, params=None):
    """``axis:cautious``."""
    return make_preset("cautious", side, params)


def solitaire(side, params=None):
    """``axis:solitaire`` (rule 21 choices)."""
    return make_preset("solitaire", side, params)


def active(side, params=None):
    """``allied:active`` (default Allied bot)."""
    return make_preset("active", side, params)


def static(side, params=None):
    """``allied:static``."""
    return make_preset("static", side, params)


def counterattack(side, params=None):
    """``allied:counterattack``."""
    return make_preset("counterattack", side, params)
