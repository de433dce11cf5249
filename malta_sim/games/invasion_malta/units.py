"""Counters and positions of Invasion: Malta, with the printed unit concepts.

* :func:`d10` -- the ten-sided die, 0 read as 10 (rule 2.4).
* Steps (rule 3.4), halving and rounding (rule 3.5), movement classes (rule 3.6),
  stacking points and excess stacking (rule 3.3).

Static unit arrays (``u = n_units``; :class:`UnitTable`)::

    side        int8[u]   0 Axis, 1 Allied (rule 3.11)
    nat         <U1[u]    G German, I Italian, B British (rule 2.22 A)
    formation   <U3[u]    formation code (7, O, R, St, Fo, F, L, M; '' for Army units) (rule 2.22 B)
    army        bool[u]   Axis Army unit, white type box (rules 4.32, 7.2)
    max_steps   int8[u]   1 or 2 (rule 3.41; HQ and artillery 1, rule 3.42)
    attack, defense, ma, er : int8[u, 2]   values on [reduced, full] side (index steps-1)
    ma_class    int8[u]   0 plain (non-motorized), 1 orange circle, 2 red box (rules 3.61-3.62)
    stacking    int8[u]   stacking points (rule 3.31)
    cp          int8[u]   command points (rule 2.23)
    range_      int8[u]   artillery range, 0 if not artillery (rule 2.24)
    no_zoc      bool[u]   No ZOC band (rule 3.24)
    armored     bool[u]   vehicle icon (rule 3.64)
    commando, paratroop, hq, infantry : bool[u]

Dynamic arrays of one game (:class:`Position`)::

    hex          int32[u]  dense hex index, -1 off the map (set-up card, box)
    steps        int8[u]   current steps, 0 = eliminated
    disrupted    bool[u]   Disruption marker (rule 3.8)
    oos          bool[u]   Out of Supply marker (rule 6.12)
    overstacked  bool[u]   under an Excess Stacking marker (rule 3.34)
    activated    bool[u]   Activated marker (rules 4.52, 7.22)
    fired        bool[u]   artillery on its Fired side (rule 3.42)
    paradropped  bool[u]   arrived by paradrop (rule 6.31)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ...errors import OptionError

AXIS, ALLIED = 0, 1
SIDE_NAMES = ("Axis", "Allied")
PLAIN, ORANGE, RED = 0, 1, 2
#: Regular stacking limit, points per hex at the end of any phase (rule 3.32).
STACK_LIMIT = 9


def d10(rng, size=None):
    """Roll the ten-sided die; a face of 0 is read as 10 (rule 2.4).

    Parameters
    ----------
    rng : numpy.random.Generator
    size : int or tuple, optional

    Returns
    -------
    int or int64 ndarray
        Values ``1..10``.
    """
    face = rng.integers(0, 10, size=size)  # faces 0..9 as printed
    return np.where(face == 0, 10, face) if size is not None else (10 if face == 0 else int(face))


def read_d10_face(face: int) -> int:
    """Value of a printed d10 face ``0..9``: 0 counts as ten (rule 2.4).

    Raises
    ------
    OptionError
        If ``face`` is not 0..9.
    """
    if not 0 <= int(face) <= 9:
        raise OptionError(f"d10 face must be 0..9, got {face}")
    return 10 if int(face) == 0 else int(face)


@dataclass
class UnitTable:
    """Static counter values (see module docstring for the arrays)."""

    ids: list
    side: np.ndarray
    nat: np.ndarray
    formation: np.ndarray
    army: np.ndarray
    max_steps: np.ndarray
    attack: np.ndarray
    defense: np.ndarray
    ma: np.ndarray
    er: np.ndarray
    ma_class: np.ndarray
    stacking: np.ndarray
    cp: np.ndarray
    range_: np.ndarray
    no_zoc: np.ndarray
    armored: np.ndarray
    commando: np.ndarray
    paratroop: np.ndarray
    hq: np.ndarray
    infantry: np.ndarray
    extra: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.ids)

    def index(self, uid: str) -> int:
        """Array index of unit id ``uid`` (raises OptionError listing nothing more than the id)."""
        try:
            return self.ids.index(uid)
        except ValueError:
            raise OptionError(f"unknown unit id {uid!r}") from None

    @property
    def motorized(self) -> np.ndarray:
        """``bool[u]``: orange-circle or red-box MA (rule 3.62)."""
        return self.ma_class != PLAIN

    @property
    def artillery(self) -> np.ndarray:
        """``bool[u]``: any combat unit with a range value (rule 2.24)."""
        return self.range_ > 0


def make_units(rows: list[dict]) -> UnitTable:
    """Build a :class:`UnitTable` from plain records.

    Each record has ``id, side ('Axis'|'Allied'), nat, formation, army, steps,
    attack, defense, ma, er`` (full side), optional ``attack_r, defense_r, ma_r,
    er_r`` (reduced side; default = full), ``ma_class ('plain'|'orange'|'red')``,
    ``stacking, cp, range, no_zoc, armored, commando, paratroop, hq, infantry``.
    """
    n = len(rows)
    a = lambda dt: np.zeros(n, dtype=dt)  # noqa: E731
    two = lambda: np.zeros((n, 2), dtype=np.int8)  # noqa: E731
    t = UnitTable([r["id"] for r in rows], a(np.int8), np.array([r.get("nat", "B") for r in rows], dtype="<U1"),
                  np.array([r.get("formation", "") for r in rows], dtype="<U3"), a(bool), a(np.int8),
                  two(), two(), two(), two(), a(np.int8), a(np.int8), a(np.int8), a(np.int8), a(bool), a(bool),
                  a(bool), a(bool), a(bool), a(bool))
    for k, r in enumerate(rows):
        t.side[k] = AXIS if r.get("side", "Axis") == "Axis" else ALLIED
        t.army[k] = bool(r.get("army", False))
        t.max_steps[k] = int(r.get("steps", 2))
        for name in ("attack", "defense", "ma", "er"):
            full = int(r.get(name, 0))
            red = r.get(name + "_r", "")
            arr = getattr(t, name)
            arr[k, 1] = full
            arr[k, 0] = full if red in ("", None) else int(red)
        t.ma_class[k] = {"plain": PLAIN, "orange": ORANGE, "red": RED}[r.get("ma_class", "plain") or "plain"]
        t.stacking[k] = int(r.get("stacking", 1))
        t.cp[k] = int(r.get("cp", 0))
        t.range_[k] = int(r.get("range", 0))
        for flag in ("no_zoc", "armored", "commando", "paratroop", "hq", "infantry"):
            getattr(t, flag)[k] = bool(r.get(flag, False))
    return t


@dataclass
class Position:
    """Mutable state of one game (see module docstring).  ``copy()`` is deep."""

    hex: np.ndarray
    steps: np.ndarray
    disrupted: np.ndarray
    oos: np.ndarray
    overstacked: np.ndarray
    activated: np.ndarray
    fired: np.ndarray
    paradropped: np.ndarray
    beachheads: set = field(default_factory=set)
    airheads: dict = field(default_factory=dict)   # hex index -> nationality ('G'/'I')
    hex_owner: np.ndarray | None = None            # int8[n_hexes], side last there (rule 3.11), -1 none

    @classmethod
    def fresh(cls, units: UnitTable, n_hexes: int = 0) -> "Position":
        """All units off the map at full strength (rule 4.13), no markers."""
        n = units.n
        return cls(np.full(n, -1, np.int32), units.max_steps.copy(), np.zeros(n, bool), np.zeros(n, bool),
                   np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool),
                   set(), {}, np.full(n_hexes, -1, np.int8))

    def copy(self) -> "Position":
        return replace(self, **{k: getattr(self, k).copy() for k in
                                ("hex", "steps", "disrupted", "oos", "overstacked", "activated", "fired",
                                 "paradropped", "hex_owner")},
                       beachheads=set(self.beachheads), airheads=dict(self.airheads))

    def alive(self) -> np.ndarray:
        """``bool[u]``: units still in play (steps > 0)."""
        return self.steps > 0

    def on_map(self) -> np.ndarray:
        """``bool[u]``: units in play and on a map hex."""
        return (self.steps > 0) & (self.hex >= 0)

    def at(self, h: int) -> np.ndarray:
        """Indices of the units in play in hex ``h`` (``int64[k]``)."""
        return np.flatnonzero((self.hex == h) & (self.steps > 0))


# --- steps (rule 3.4) ------------------------------------------------------------------------------

def side_index(pos: Position, u: int) -> int:
    """Which printed side a unit shows: 1 full (front), 0 reduced (reverse) (rule 3.41)."""
    return 1 if pos.steps[u] >= 2 else 0


def lose_step(units: UnitTable, pos: Position, u: int) -> bool:
    """Take one step of loss from unit ``u`` (rule 3.41): a two-step unit flips to its
    reduced side, a one-step (or reduced) unit is eliminated.

    Returns
    -------
    bool
        True if the unit was eliminated.
    """
    if pos.steps[u] <= 0:
        raise OptionError(f"unit {units.ids[u]} is already eliminated")
    pos.steps[u] -= 1
    if pos.steps[u] == 0:
        pos.hex[u] = -1
        pos.disrupted[u] = pos.oos[u] = pos.overstacked[u] = False
        return True
    return False


def check_steps(units: UnitTable) -> list[str]:
    """Ids of units that break rules 3.41-3.42 (steps not 1-2; HQ or artillery with two steps)."""
    bad = []
    for k in range(units.n):
        if units.max_steps[k] not in (1, 2) or ((units.hq[k] or units.range_[k] > 0) and units.max_steps[k] != 1):
            bad.append(units.ids[k])
    return bad


# --- halving and rounding (rule 3.5) ----------------------------------------------------------------

def halved_total(strengths, halved, kind: str = "attack") -> int:
    """Total strength where some units are halved (rules 3.51-3.52).

    The halved units' strengths are summed, the sum halved and the fraction
    dropped, then the unhalved strengths are added.

    Parameters
    ----------
    strengths : array_like of int, shape (k,)
    halved : array_like of bool, shape (k,)
    kind : {'attack', 'movement', 'defense'}
        Defense strength can never be halved (rule 3.51).

    Returns
    -------
    int

    Raises
    ------
    OptionError
        If asked to halve a defense strength.
    """
    s = np.asarray(strengths, dtype=np.int64)
    h = np.asarray(halved, dtype=bool)
    if kind == "defense" and h.any():
        raise OptionError("defense strength cannot be halved (rule 3.51)")
    return int(s[~h].sum() + s[h].sum() // 2)


def can_attack(attack_strength: int) -> bool:
    """A unit whose attack strength was reduced to zero cannot attack (rule 3.53)."""
    return attack_strength > 0


# --- movement classes (rule 3.6) ---------------------------------------------------------------------

def movement_class(units: UnitTable, u: int) -> str:
    """``'non-motorized'`` (plain MA, rule 3.61), ``'orange-circle'`` or ``'red-box'``
    (both motorized, rule 3.62)."""
    return ("non-motorized", "orange-circle", "red-box")[int(units.ma_class[u])]


def may_retreat_or_advance(units: UnitTable, u: int) -> bool:
    """Orange-circle units cannot retreat, advance after combat or infiltrate (rule 3.63)."""
    return units.ma_class[u] != ORANGE


# --- stacking (rule 3.3) ------------------------------------------------------------------------------

def stack_points(units: UnitTable, pos: Position, h: int, include_overstacked: bool = True) -> int:
    """Stacking points of the units in hex ``h`` (rule 3.31)."""
    k = pos.at(h)
    if not include_overstacked:
        k = k[~pos.overstacked[k]]
    return int(units.stacking[k].sum())


def designate_excess(units: UnitTable, pos: Position, h: int, keep_order=None) -> np.ndarray:
    """End-of-phase excess stacking in hex ``h`` (rules 3.32, 3.34).

    If the stack is within the limit of 9 points every Excess Stacking marker
    there is removed.  Otherwise the owner keeps units under the limit in
    ``keep_order`` (default: highest defense first, then highest ER) and puts the
    rest under the marker.  A unit that would cross the limit is wholly
    over-stacked (3.34 note); smaller units further down the order still fill
    the room left, because a unit cannot be over-stacked while regular stacking
    room exists.  Zero-point units are never over-stacked (rule 3.31).

    Returns
    -------
    ndarray of int
        Units now over-stacked.
    """
    k = pos.at(h)
    pos.overstacked[k] = False
    if units.stacking[k].sum() <= STACK_LIMIT:
        return np.empty(0, dtype=np.int64)
    if keep_order is None:
        si = np.array([side_index(pos, u) for u in k], dtype=np.int64)
        key = [(-units.defense[u, s], -units.er[u, s], u) for u, s in zip(k, si)]
        keep_order = [u for *_, u in sorted(key)]
    room = STACK_LIMIT
    over = []
    for u in keep_order:
        sp = int(units.stacking[u])
        if sp <= room:
            room -= sp
        else:
            over.append(u)
    over = np.array(over, dtype=np.int64)
    pos.overstacked[over] = True
    return over


def end_phase_stacking(units: UnitTable, pos: Position) -> np.ndarray:
    """Excess-stacking check of every hex at the end of a phase (rules 3.32, 3.34).

    Clears every Excess Stacking marker (units that left a stack lose it) and
    designates the excess again hex by hex with :func:`designate_excess`.

    Returns
    -------
    ndarray of int
        All units now over-stacked.
    """
    pos.overstacked[:] = False
    out = [designate_excess(units, pos, int(h)) for h in np.unique(pos.hex[pos.on_map()])]
    return np.concatenate(out) if out else np.empty(0, dtype=np.int64)


def armored_conflict(units: UnitTable, pos: Position, h: int) -> bool:
    """True if hex ``h`` holds more than one armored unit (forbidden at any time, rules 3.33, 3.64)."""
    k = pos.at(h)
    return int(units.armored[k].sum()) > 1
