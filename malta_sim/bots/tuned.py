"""Tuned bot presets: parameter vectors found by ``malta-sim tune``, shipped
in ``malta_sim/data/bots/tuned.toml`` and played by name like the hand-made
presets (``axis:tuned``, ``allied:tuned``).

File format (one table per side and name; written by the tune command, which
records how to make the preset again)::

    [axis.tuned]
    description = "balanced, tuned against allied:static on hercules"
    start = "balanced"            # the preset the search started from
    command = "malta-sim tune hercules --side axis ..."
    seed = 7                      # the seed of the games that scored it
    params = { min_odds = 1, min_gain = -0.4, ... }   # every slot of the vector
    [axis.tuned.result]           # what the tune measured (informative only)
    ...

A name may appear once per side (``axis.tuned`` and ``allied.tuned`` are two
presets); it must not be a hand-made preset's name or ``random``.  The
parameters are checked by :func:`malta_sim.bots.params.make_vector`.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from malta_sim.errors import DataError, OptionError

#: The packaged file of tuned presets.
TUNED_FILE = Path(__file__).resolve().parent.parent / "data" / "bots" / "tuned.toml"

SIDES = ("axis", "allied")


@dataclass(frozen=True)
class TunedPreset:
    """One tuned preset.

    Attributes
    ----------
    name : str
    side : int
        0 Axis, 1 Allied.
    params : dict
        ``{parameter name: float}``, every slot of the side's vector.
    description : str
    info : dict
        The rest of the file's table (start preset, command, seed, result).
    """

    name: str
    side: int
    params: dict
    description: str = ""
    info: dict = field(default_factory=dict, compare=False, hash=False)


def load(path: str | Path | None = None, reserved: tuple[str, ...] = ()) -> dict[tuple[int, str], TunedPreset]:
    """Read a tuned-preset file.

    Parameters
    ----------
    path : path, optional
        Default :data:`TUNED_FILE`; a missing file gives no presets.
    reserved : tuple of str
        Names a tuned preset may not take (the hand-made presets, ``random``).

    Returns
    -------
    dict
        ``(side, name) -> TunedPreset``, in file order.

    Raises
    ------
    DataError
        Not TOML, an unknown side, a reserved name, or parameters
        :func:`malta_sim.bots.params.make_vector` refuses.
    """
    from malta_sim.bots import params as P

    p = Path(path) if path is not None else TUNED_FILE
    if not p.is_file():
        return {}
    try:
        doc = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise DataError(str(p), None, None, f"not valid TOML: {exc}") from None
    out: dict[tuple[int, str], TunedPreset] = {}
    for side_name, table in doc.items():
        if side_name not in SIDES or not isinstance(table, dict):
            raise DataError(str(p), None, side_name, f"unknown side; tables are [axis.NAME] or [allied.NAME]")
        side = SIDES.index(side_name)
        for name, entry in table.items():
            where = f"{side_name}.{name}"
            if name in reserved or ":" in name or not name:
                raise DataError(str(p), None, where, "this name is taken by a hand-made preset (or is not a name)")
            if not isinstance(entry, dict) or not isinstance(entry.get("params"), dict):
                raise DataError(str(p), None, where, "needs a params table of name = value")
            try:
                vec = P.make_vector(side, entry["params"])
            except OptionError as exc:
                raise DataError(str(p), None, f"{where}.params", str(exc)) from None
            params = {q.name: float(v) for q, v in zip(P.param_table(side), vec)}
            info = {k: v for k, v in entry.items() if k not in ("params", "description")}
            out[(side, name)] = TunedPreset(name, side, params, str(entry.get("description", "")), info)
    return out


def __getattr__(name: str):
    """``malta_sim.bots.tuned.<name>``: the factory ``(side, params) -> bot`` of
    tuned preset ``name`` (the bot registry looks factories up by attribute)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from malta_sim.bots import presets

    if not any(n == name for (_, n) in presets.TUNED):
        raise AttributeError(name)

    def factory(side, params=None):
        return presets.make_preset(name, side, params)
    factory.__name__ = name
    return factory
