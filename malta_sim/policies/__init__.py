"""Policies (bots) that make every decision the rules leave to a player.

:mod:`.base` defines the interface; :mod:`.random` is the random-legal baseline.
Policies are looked up by name with :func:`make_policy` (``"random"``,
``"balanced"``, ``"static"`` ...).
"""

from __future__ import annotations

from ..errors import OptionError

_REGISTRY: dict[str, str] = {
    "random": "malta_sim.policies.random:RandomPolicy",
    "balanced": "malta_sim.policies.simple:BalancedPolicy",
    "static": "malta_sim.policies.simple:StaticPolicy",
}
# Named presets (axis:balanced ... allied:counterattack) replace the simple bots.
from .presets import REGISTRY as _PRESETS  # noqa: E402

_REGISTRY.update(_PRESETS)


def register_policy(name: str, target: str) -> None:
    """Register ``"module:Class"`` under ``name``."""
    _REGISTRY[name] = target


def policy_names() -> list[str]:
    return sorted(_REGISTRY)


def make_policy(name: str, side: int, params: dict | None = None):
    """Instantiate policy ``name`` for ``side`` (0 Axis, 1 Allied).

    ``name`` may carry a side prefix (``"axis:balanced"``), which must match.

    Raises
    ------
    OptionError
        Unknown name (lists the valid ones) or wrong side prefix.
    """
    import importlib

    if ":" in name:
        pre, name = name.split(":", 1)
        if pre not in ("axis", "allied") or ("axis", "allied").index(pre) != side:
            raise OptionError(f"policy {pre}:{name} given for the {('axis', 'allied')[side]} side")
    if name not in _REGISTRY:
        raise OptionError(f"unknown policy {name!r}; choose one of: {', '.join(policy_names())}")
    mod, cls = _REGISTRY[name].split(":")
    return getattr(importlib.import_module(mod), cls)(side, params or {})
