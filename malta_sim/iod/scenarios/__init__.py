"""The scenarios of rule 22: what each plays and how it is set up.

The engine reads this table: the options a scenario accepts and the
invasion set-up step that follows its printed placement
(:func:`malta_sim.iod.setup.setup_scenario`).  Registering the scenarios for
the batch runner, with the bots that may play them, is done above the bots
(:mod:`malta_sim.play`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from malta_sim.errors import OptionError
from malta_sim.iod.scenarios import hercules, intro


@dataclass(frozen=True)
class Scenario:
    """One Island of Death scenario.

    Attributes
    ----------
    name : str
        Name used on the command line.
    title : str
        Printed title (rule 22.2, 22.3).
    options : tuple of str
        Optional rules it accepts (``no_invasion``, ``solitaire`` 21, 22.39).
    invasion_setup : callable
        ``f(game)``: the invasion's set-up steps after the printed placement.
    """

    name: str
    title: str
    options: tuple[str, ...]
    invasion_setup: Callable


SCENARIOS: dict[str, Scenario] = {
    "intro": Scenario("intro", "Introductory Scenario: With Heart in Mouth (30 June - 5 July 1942)",
                      ("no_invasion", "solitaire"), intro.invasion_setup),
    "hercules": Scenario("hercules", "Operation Hercules: The Axis Invades Malta (29 June - 10 July 1942)",
                         ("no_invasion", "solitaire", "variable_allied_placement", "delayed_landings"),
                         hercules.invasion_setup),
}


def scenario(name: str) -> Scenario:
    """The :class:`Scenario` called ``name``.

    Raises
    ------
    OptionError
        Unknown name (the message lists the valid ones).
    """
    try:
        return SCENARIOS[name]
    except KeyError:
        raise OptionError(f"unknown Island of Death scenario {name!r}; choose one of: "
                          f"{', '.join(SCENARIOS)}") from None


def check_options(name: str, options) -> None:
    """Refuse an option ``name`` does not accept.

    Raises
    ------
    OptionError
        The first unknown option, with the valid ones.
    """
    valid = scenario(name).options
    for o in options:
        if o not in valid:
            raise OptionError(f"unknown option {o!r} for scenario {name}; "
                              f"choose from: {', '.join(valid) or '(none)'}")
