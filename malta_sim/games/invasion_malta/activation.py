"""Formations, activation markers and the Operations Segment draw (rules 4.3-4.5, 7).

Each turn every available activation marker (AM) and every CAS air unit goes
into one opaque cup (rules 4.14 steps 4-5, 7.11).  Pieces are drawn one at a
time at random (7.13).  A drawn AM lets its owner play it (a Ground Sequence),
or Pass and put it in his Activation Pool (7.14 B); with an AM already in the
pool he must play one of the two and pool the other (7.15); he may not pass
with his last AM (7.14 B note 4) nor hold an AM past the end of the turn (7.17).
A drawn air unit gives its owner a CAS placement, not an activation.

Reading of rule 7.17 adopted here: as soon as a player has no AM left in the
cup, an AM still in his pool is played as his next Operations Sequence.

The draw logic is one deterministic function, :func:`resolve_draw`, shared by
the Monte Carlo simulator (:func:`simulate_segment`) and the exact Markov-chain
calculator (:func:`exact_distribution`), so the two can be compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from ...errors import OptionError
from .units import ALLIED, AXIS, Position, UnitTable

AM, AIR = "am", "air"
#: Most Army units one Formation activation may take along (rule 7.23).
MAX_ARMY_UNITS = 4


@dataclass(frozen=True)
class PieceType:
    """A kind of piece in the cup: an AM of a formation, or a CAS air unit."""

    side: int
    kind: str
    name: str

    def label(self) -> str:
        return f"{'Axis' if self.side == AXIS else 'Allied'} {'AM' if self.kind == AM else 'air'} {self.name}"


@dataclass(frozen=True)
class HoldPolicy:
    """A simple, deterministic activation policy of one side.

    Attributes
    ----------
    hold : frozenset of str
        Formations the player passes on when drawn (if a pass is allowed), to
        keep them in the Activation Pool (rules 7.14 B, 7.15).
    priority : tuple of str
        When choosing between the drawn AM and the pooled one (7.15): play the
        formation not in ``hold``, then the one earlier in ``priority``; ties
        play the pooled AM.
    """

    hold: frozenset = frozenset()
    priority: tuple = ()

    def key(self, name: str) -> tuple:
        rank = self.priority.index(name) if name in self.priority else len(self.priority)
        return (name in self.hold, rank)


ALWAYS_PLAY = HoldPolicy()


@dataclass
class Cup:
    """Cup contents as counts per :class:`PieceType`."""

    types: list
    counts: list

    @classmethod
    def from_pieces(cls, pieces: Sequence[PieceType]) -> "Cup":
        types, counts = [], []
        for p in pieces:
            if p in types:
                counts[types.index(p)] += 1
            else:
                types.append(p)
                counts.append(1)
        return cls(types, counts)

    @property
    def total(self) -> int:
        return int(sum(self.counts))

    def side_ams(self, counts, side: int) -> int:
        return int(sum(c for t, c in zip(self.types, counts) if t.side == side and t.kind == AM))


def resolve_draw(cup: Cup, k: int, counts_after: tuple, pools: tuple, policies: tuple) -> tuple[list, tuple]:
    """What happens when piece type ``k`` is drawn (rules 7.13-7.17).

    Parameters
    ----------
    k : int
        Index into ``cup.types`` of the drawn piece.
    counts_after : tuple of int
        Cup counts after removing the drawn piece.
    pools : (int, int)
        Type index in the Axis and Allied Activation Pools, -1 if empty.
    policies : (HoldPolicy, HoldPolicy)

    Returns
    -------
    (events, pools) : (list of tuple, tuple)
        Events ``("draw", side, name)``, ``("air", side, name)``,
        ``("pass", side, name)``, ``("act", side, name)`` in order.
    """
    t = cup.types[k]
    s = t.side
    pools = list(pools)
    ev = [("draw", s, t.name)]
    if t.kind == AIR:
        ev.append(("air", s, t.name))  # CAS placement (rule 4.21 B2); no formation activates
    else:
        left = cup.side_ams(counts_after, s)
        pol = policies[s]
        if pools[s] < 0:
            if left > 0 and t.name in pol.hold:
                pools[s] = k
                ev.append(("pass", s, t.name))  # rule 7.14 B
            else:
                ev.append(("act", s, t.name))  # last AM cannot pass (7.14 B note 4)
        else:
            pk = pools[s]
            pname = cup.types[pk].name
            if pol.key(t.name) < pol.key(pname):
                ev.append(("act", s, t.name))
                # pooled AM stays pooled
            else:
                ev.append(("act", s, pname))
                pools[s] = k  # the drawn AM goes to the pool (rule 7.15)
    if pools[s] >= 0 and cup.side_ams(counts_after, s) == 0:
        ev.append(("act", s, cup.types[pools[s]].name))  # no holding past the turn (7.17)
        pools[s] = -1
    return ev, tuple(pools)


def remove_unavailable(cup: Cup, counts: list, pools: tuple, available: set) -> tuple[list, tuple, list]:
    """Take out of play, at once, the AMs of formations that have become unavailable (rule 4.43).

    An Axis formation whose units have all been removed from play, or an Allied
    sector with no Allied unit left in it, loses its AMs still in the cup and
    any AM of it in the Activation Pool.  (An Allied sector AM comes back only
    when a unit begins a turn in the sector, rule 4.51, i.e. when the next cup
    is built.)

    Parameters
    ----------
    counts : list of int
        Cup counts (modified in place).
    pools : (int, int)
        Pool contents (type index or -1).
    available : set of (side, code)

    Returns
    -------
    (counts, pools, removed) : removed lists ``(side, code)`` taken out.
    """
    removed = []
    for k, t in enumerate(cup.types):
        if t.kind == AM and counts[k] > 0 and (t.side, t.name) not in available:
            removed.append((t.side, t.name))
            counts[k] = 0
    pools = list(pools)
    for s in (0, 1):
        if pools[s] >= 0:
            t = cup.types[pools[s]]
            if (t.side, t.name) not in available:
                removed.append((t.side, t.name))
                pools[s] = -1
    return counts, tuple(pools), removed


def draw_from_cup(counts: list, rng) -> int:
    """Draw one marker blindly from the opaque cup (rules 4.3, 7.13).

    Parameters
    ----------
    counts : list of int
        Markers of each type still in the cup; the drawn type is decremented in place.
    rng : numpy.random.Generator
        The game's ``activation`` stream.

    Returns
    -------
    int
        Index of the marker type drawn; every marker in the cup is equally likely.

    Raises
    ------
    ValueError
        If the cup is empty.
    """
    total = sum(counts)
    if total <= 0:
        raise ValueError("the cup is empty")
    x = int(rng.integers(total))
    k = 0
    while x >= counts[k]:
        x -= counts[k]
        k += 1
    counts[k] -= 1
    return k


def simulate_segment(cup: Cup, rng, policies: tuple = (ALWAYS_PLAY, ALWAYS_PLAY)) -> list:
    """One Operations Segment by random draws (rules 7.13-7.17).

    Returns
    -------
    list of tuple
        The event list (see :func:`resolve_draw`).
    """
    counts = list(cup.counts)
    pools = (-1, -1)
    events = []
    total = sum(counts)
    while total > 0:
        k = draw_from_cup(counts, rng)
        total -= 1
        ev, pools = resolve_draw(cup, k, tuple(counts), pools, policies)
        events.extend(ev)
    return events


# --- trackers: statistics of an event sequence computed step by step ----------------------------------

class Before:
    """Which of two formations acts first: value 'A', 'B' or 'neither'."""

    def __init__(self, a: tuple, b: tuple):
        self.a, self.b = a, b

    def init(self):
        return 0

    def step(self, st, e):
        if st == 0 and e[0] == "act":
            if (e[1], e[2]) == self.a:
                return 1
            if (e[1], e[2]) == self.b:
                return 2
        return st

    def done(self, st):
        return st != 0

    def value(self, st):
        return ("neither", "A", "B")[st]


class FirstAct:
    """Number of pieces drawn when ``side`` first activates a formation (0 if never)."""

    def __init__(self, side: int):
        self.side = side

    def init(self):
        return (0, False)

    def step(self, st, e):
        n, fin = st
        if fin:
            return st
        if e[0] == "draw":
            return (n + 1, False)
        if e[0] == "act" and e[1] == self.side:
            return (n, True)
        return st

    def done(self, st):
        return st[1]

    def value(self, st):
        return st[0] if st[1] else 0


class Runs:
    """Runs of one side's activations in the order formations act (air draws and
    passes ignored).  ``what`` = 'longest' (longest run of either side) or 'count'
    (number of runs)."""

    def __init__(self, what: str = "longest"):
        if what not in ("longest", "count"):
            raise OptionError(f"runs statistic must be 'longest' or 'count', got {what!r}")
        self.what = what

    def init(self):
        return (-1, 0, 0, 0)

    def step(self, st, e):
        if e[0] != "act":
            return st
        last, cur, best, nruns = st
        if e[1] == last:
            cur += 1
        else:
            cur, nruns = 1, nruns + 1
        return (e[1], cur, max(best, cur), nruns)

    def done(self, st):
        return False

    def value(self, st):
        return st[2] if self.what == "longest" else st[3]


def apply(tracker, st, events):
    for e in events:
        st = tracker.step(st, e)
    return st


def monte_carlo(cup: Cup, tracker, n: int, seed: int, policies: tuple = (ALWAYS_PLAY, ALWAYS_PLAY)) -> dict:
    """Distribution of ``tracker``'s value over ``n`` simulated segments.

    Each replicate ``g`` draws from ``malta_sim.rng.generator(seed, g, 'activation')``.

    Returns
    -------
    dict
        value -> frequency (sums to 1).
    """
    from ...rng import generator

    out: dict = {}
    for g in range(n):
        rng = generator(seed, g, "activation")
        v = tracker.value(apply(tracker, tracker.init(), simulate_segment(cup, rng, policies)))
        out[v] = out.get(v, 0) + 1
    return {k: c / n for k, c in sorted(out.items(), key=lambda kv: str(kv[0]))}


OTHER = "*other*"


def lump(cup: Cup, tracker, policies: tuple) -> Cup:
    """Merge AMs that neither the policies nor the tracker tell apart into one
    piece type per side (exact: the draw is symmetric in them), so the chain of
    :func:`exact_distribution` stays small."""
    keep = set()
    for s, pol in enumerate(policies):
        keep |= {(s, n) for n in pol.hold} | {(s, n) for n in pol.priority}
    for attr in ("a", "b"):
        if hasattr(tracker, attr):
            keep.add(tuple(getattr(tracker, attr)))
    pieces = []
    for t, c in zip(cup.types, cup.counts):
        if t.kind == AM and (t.side, t.name) not in keep:
            t = PieceType(t.side, AM, OTHER)
        pieces += [t] * c
    return Cup.from_pieces(pieces)


def exact_distribution(cup: Cup, tracker, policies: tuple = (ALWAYS_PLAY, ALWAYS_PLAY), max_states: int = 2_000_000) -> dict:
    """Exact distribution of ``tracker``'s value: a Markov chain over
    (cup counts, pools, tracker state), every draw equally likely among the
    pieces left (rule 7.13).

    Returns
    -------
    dict
        value -> probability (floats summing to 1).

    Raises
    ------
    OptionError
        If the chain exceeds ``max_states`` states (use Monte Carlo instead).
    """
    cup = lump(cup, tracker, policies)
    seen = [0]

    @lru_cache(maxsize=None)
    def rec(counts, pools, st):
        seen[0] += 1
        if seen[0] > max_states:
            raise OptionError(f"exact activation chain exceeds {max_states} states; use Monte Carlo")
        total = sum(counts)
        if total == 0 or tracker.done(st):
            return ((tracker.value(st), 1.0),)
        acc: dict = {}
        for k, c in enumerate(counts):
            if c == 0:
                continue
            after = counts[:k] + (c - 1,) + counts[k + 1:]
            ev, np_ = resolve_draw(cup, k, after, pools, policies)
            for v, p in rec(after, np_, apply(tracker, st, ev)):
                acc[v] = acc.get(v, 0.0) + p * c / total
        return tuple(acc.items())

    res = dict(rec(tuple(cup.counts), (-1, -1), tracker.init()))
    return {k: res[k] for k in sorted(res, key=str)}


def expected_value(dist: dict) -> float:
    """Mean of a numeric distribution ``{value: prob}``."""
    return float(sum(k * p for k, p in dist.items()))


# --- closed forms for the all-play policy (exact combinatorics) ----------------------------------------

def p_before_closed(a: int, b: int) -> float:
    """With no passes the draw order is a uniform random permutation (rule 7.13), so a
    formation with ``a`` AMs acts before one with ``b`` AMs with chance ``a/(a+b)``."""
    return a / (a + b)


def expected_first_closed(n_pieces: int, n_side_ams: int) -> float:
    """Expected number of draws up to and including a side's first AM with no passes:
    ``(N + 1) / (s + 1)`` for ``s`` marked pieces among ``N`` in random order."""
    return (n_pieces + 1) / (n_side_ams + 1)


def expected_runs_closed(n_axis: int, n_allied: int) -> float:
    """Expected number of runs of one side in a random order of ``n_axis`` Axis and
    ``n_allied`` Allied activations: ``1 + 2 n1 n2 / (n1 + n2)``."""
    n = n_axis + n_allied
    return 1 + 2 * n_axis * n_allied / n if n else 0.0


# --- formations, availability and activation of units -------------------------------------------------

@dataclass(frozen=True)
class FormationDef:
    """A formation and its AMs (rules 4.3-4.5).

    ``code`` is the Axis formation code (2.22 B) or the Allied sector name
    (4.51); ``markers`` AMs in the cup every turn, ``night_markers`` extra AMs
    marked "Night Turns" (2.25), in the cup on Night turns only.
    """

    side: int
    code: str
    name: str
    markers: int = 1
    night_markers: int = 0
    source: str = "reconstructed"


def available_formations(formations: Sequence[FormationDef], units: UnitTable, pos: Position, sector_of: np.ndarray) -> list:
    """Formations whose AM goes into the cup this turn (rules 4.43, 4.51).

    An Axis formation with every unit removed from play has no AM; an Allied
    sector formation needs an Allied unit in its sector at the start of the turn.
    ``sector_of`` is ``int8[n_hexes]`` (map sector index).
    """
    from .terrain import SECTORS

    out = []
    alive = pos.alive()
    for f in formations:
        if f.side == AXIS:
            if (alive & (units.formation == f.code) & (units.side == AXIS)).any():
                out.append(f)
        else:
            k = pos.on_map() & (units.side == ALLIED)
            secs = set(int(sector_of[h]) for h in pos.hex[k])
            if f.code in SECTORS and SECTORS.index(f.code) in secs:
                out.append(f)
    return out


def build_cup(formations: Sequence[FormationDef], air_units: Sequence[tuple], night: bool) -> Cup:
    """All available AMs and CAS air units, none omitted (rules 4.14 steps 4-5, 7.11).

    ``air_units`` are ``(side, name)``; air units fly no missions at night
    (rule 11.15, listed in 8.43), so they stay out of the cup on Night turns.
    """
    pieces = []
    for f in formations:
        n = f.markers + (f.night_markers if night else 0)
        pieces += [PieceType(f.side, AM, f.code)] * n
    if not night:
        pieces += [PieceType(s, AIR, nm) for s, nm in air_units]
    return Cup.from_pieces(pieces)


def formation_units(units: UnitTable, pos: Position, side: int, code: str, sector_of: np.ndarray) -> np.ndarray:
    """Units activated by playing formation ``code``'s AM (rules 4.42, 4.51-4.52).

    Axis: every unit of the formation wherever it is.  Allied: every Allied unit
    now in the sector, except those with an Activated marker (moved in from
    another sector this turn, 4.52).
    """
    from .terrain import SECTORS

    alive = pos.alive()
    if side == AXIS:
        return np.flatnonzero(alive & (units.side == AXIS) & (units.formation == code) & ~units.army)
    s = SECTORS.index(code)
    on = pos.on_map() & (units.side == ALLIED) & ~pos.activated
    return np.array([u for u in np.flatnonzero(on) if sector_of[pos.hex[u]] == s], dtype=np.int64)


def activate_army_units(units: UnitTable, pos: Position, chosen: Sequence[int]) -> list:
    """Army units declared at the start of a formation's activation (rules 7.21-7.24).

    At most four, Axis Army units only, each once a turn (the Activated marker,
    7.22, stays until the Recovery Phase), wherever they are (7.23).

    Raises
    ------
    OptionError
        On more than four, a non-Army unit, or an already activated one.
    """
    chosen = [int(u) for u in chosen]
    if len(chosen) > MAX_ARMY_UNITS:
        raise OptionError(f"at most {MAX_ARMY_UNITS} Army units per formation activation (rule 7.23), got {len(chosen)}")
    for u in chosen:
        if not units.army[u] or units.side[u] != AXIS:
            raise OptionError(f"unit {units.ids[u]} is not an Axis Army unit (rules 4.32, 7.2)")
        if pos.activated[u]:
            raise OptionError(f"Army unit {units.ids[u]} already has an Activated marker (rule 7.22)")
        if pos.steps[u] <= 0:
            raise OptionError(f"Army unit {units.ids[u]} is not in play")
    pos.activated[chosen] = True
    return chosen


def sector_change(units: UnitTable, pos: Position, moved: Sequence[int], start_sector: dict, sector_of: np.ndarray) -> list:
    """Allied units that ended a move in another sector get an Activated marker (rule 4.52)."""
    out = []
    for u in moved:
        if units.side[u] == ALLIED and pos.hex[u] >= 0 and int(sector_of[pos.hex[u]]) != start_sector.get(int(u), -9):
            pos.activated[u] = True
            out.append(int(u))
    return out
