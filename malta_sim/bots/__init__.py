"""Policies (bots) that make every decision the rules leave to a player.

:mod:`.base` defines the interface; :mod:`.random` is the random-legal baseline.
Policies are looked up by name with :func:`make_policy` (``"random"``,
``"balanced"``, ``"static"`` ...).
"""

from __future__ import annotations

from malta_sim.errors import OptionError

_REGISTRY: dict[str, str] = {
    "random": "malta_sim.bots.random:RandomPolicy",
    "balanced": "malta_sim.bots.simple:BalancedPolicy",
    "static": "malta_sim.bots.simple:StaticPolicy",
}
# Named presets (axis:balanced ... allied:counterattack) replace the simple bots.
from malta_sim.bots.presets import REGISTRY as _PRESETS  # noqa: E402

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
    factory = getattr(importlib.import_module(mod), cls)
    check_params(name, side, params, getattr(factory, "param_names", None))
    return factory(side, params or {})


def check_params(name: str, side: int, params, declared) -> None:
    """Refuse ``params`` names a policy does not read (nothing is silently ignored).

    Parameters
    ----------
    name : str
        Policy name, for the message.
    side : int
        0 Axis, 1 Allied.
    params : dict or None
        ``{parameter: value}`` for this side's bot.
    declared : tuple of str or None
        The names the policy reads; None when the policy validates its own
        parameters (the preset bots do, :mod:`.params`).

    Raises
    ------
    OptionError
        ``params`` is not a dict, or holds a name outside ``declared`` (the
        message lists the valid names, or says the policy takes none).
    """
    who = ("axis", "allied")[side]
    if params is None:
        return
    if not isinstance(params, dict):
        raise OptionError(f"--policy-params: the {who} entry must be an object of name: value, got {params!r}")
    if declared is None:
        return
    bad = sorted(k for k in params if k not in declared)
    if bad:
        valid = f"valid: {', '.join(declared)}" if declared else "it takes no parameters"
        raise OptionError(f"--policy-params: unknown parameter {bad[0]!r} for the {who} policy {name!r}; {valid}")
    for k, v in params.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise OptionError(f"--policy-params: {who}.{k} must be a number, got {v!r}")
