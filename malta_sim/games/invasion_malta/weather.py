"""Weather (rule 5): one d10 roll on the Weather Table each Weather Phase.

The table's bands are not printed in our rulebook copy; the packaged
``weather.csv`` is reconstructed (same format for the printed chart).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...errors import DataError
from . import csvio
from .units import d10

WEATHER = ("good", "windy", "storm")


def load_weather_table(data_dir: str | Path | None = None) -> np.ndarray:
    """The Weather Table, ``int8[11]`` indexed by d10 result 1..10 -> 0 good, 1 windy, 2 storm (rule 5.1).

    Raises
    ------
    DataError
        If a roll is missing, repeated or out of 1..10, or a condition is unknown.
    """
    p = csvio.data_path("weather.csv", data_dir)
    tab = np.full(11, -1, dtype=np.int8)
    for ln, r in csvio.read_rows(p, ("roll", "weather", "source")):
        roll = csvio.get_int(p, ln, r, "roll", 1, 10)
        w = csvio.get_choice(p, ln, r, "weather", WEATHER)
        csvio.get_source(p, ln, r)
        if tab[roll] >= 0:
            raise DataError(str(p), ln, "roll", f"roll {roll} listed twice")
        tab[roll] = WEATHER.index(w)
    missing = [k for k in range(1, 11) if tab[k] < 0]
    if missing:
        raise DataError(str(p), None, "roll", f"rolls {missing} missing; every d10 result 1..10 needs a row")
    return tab


def roll_weather(table: np.ndarray, rng, turn: int, always_good: bool = False) -> tuple[str, int | None]:
    """Weather Phase (rules 5.11-5.13, 7.12).

    GT 1 is always Good (7.12), and so is every turn of Scenarios 2 and 3
    (``always_good``, 5.13).  Otherwise one d10 with no DRMs (5.11).

    Returns
    -------
    (weather, roll) : (str, int or None)
    """
    if turn == 1 or always_good:
        return "good", None
    r = d10(rng)
    return WEATHER[int(table[r])], r


def weather_probabilities(table: np.ndarray) -> dict:
    """Exact chance of each condition from one d10 (rules 2.4, 5.11)."""
    return {w: float(np.mean(table[1:] == k)) for k, w in enumerate(WEATHER)}


def allowed(function: str, weather: str, night: bool = False) -> bool:
    """Whether a game function may take place (rules 5.21-5.22, 8.43).

    ``function`` is one of ``paradrop``, ``air_mission``, ``air_transport``,
    ``naval_transport``, ``amphibious``, ``air_bombardment``.  Windy forbids
    paradrop; Storm forbids air missions, paradrop, naval transport and
    amphibious invasion; Night forbids air missions, air transport and
    paradrop (rules 11.15, 11.65, 15.12 as listed in 8.43).  Windy's other
    effects (air transport, air bombardment, naval transport, amphibious) are
    modifiers of the reconstructed components, not prohibitions.
    """
    if function not in ("paradrop", "air_mission", "air_transport", "naval_transport", "amphibious", "air_bombardment"):
        raise ValueError(function)
    if night and function in ("paradrop", "air_mission", "air_transport", "air_bombardment"):
        return False
    if weather == "storm" and function in ("paradrop", "air_mission", "air_bombardment", "naval_transport",
                                           "amphibious", "air_transport"):
        return False
    if weather == "windy" and function == "paradrop":
        return False
    return True
