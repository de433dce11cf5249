"""Invasion decisions (rules 16.1-16.7, 17.5-17.8, 18, 19, 21, 22.3, 22.39).

Two mixins add the invasion methods to the policy interface:

* :class:`InvasionDecisions` -- the documented interface **and** a sensible
  default for each decision (used by every policy that does not override it,
  e.g. ``axis:balanced`` and ``allied:static``).  The defaults play the way a
  careful player would: both divisions on different beach zones weighted by
  nearby objectives, waves landed as early and as fully as the boxes allow,
  drop zone markers near airfields and away from strong Allied stacks, coastal
  guns firing at the fullest wave box, Allied units firing at the water's edge
  whenever they can.
* :class:`RandomInvasionDecisions` -- uniformly random legal choices (the
  conformance baseline, mixed into :class:`malta_sim.bots.random.RandomPolicy`).

The engine (``malta_sim.iod.invasion``) computes the legal
options, calls these methods and validates the answers; an illegal answer
raises ``IllegalDecision`` naming the rule.  Units and hexes are indices (unit
table rows, dense hex indices).  Randomness only from ``self.rng(game)``.
"""

from __future__ import annotations


import numpy as np

from malta_sim.bots import params as P
from malta_sim.iod.static import per_static


def _dist(game):
    return game.static.grid.distance_table


_ENGINE: list = []


def _engine() -> tuple:
    """The engine modules :mod:`.allied_proximity` and :mod:`.hercules`
    (imported on first use: the engine imports the policies)."""
    if not _ENGINE:
        from malta_sim.iod import proximity as allied_proximity, invasion as hercules
        _ENGINE.extend((allied_proximity, hercules))
    return _ENGINE[0], _ENGINE[1]


def _allied_strength_near(game, h, radius=1):
    """Allied defense strength total within ``radius`` of hex ``h`` (a threat
    measure): :func:`~malta_sim.iod.proximity.allied_strength_near`
    of the one hex."""
    return int(_engine()[0].allied_strength_near(game, (int(h),), radius)[0])


def _allied_strength_near_many(game, hexes, radius=1) -> np.ndarray:
    """:func:`_allied_strength_near` of each hex of ``hexes`` at once (one
    compiled pass over the Allied pieces).

    Parameters
    ----------
    hexes : sequence of int
        Dense hex indices.
    radius : int
        Hexes.

    Returns
    -------
    int64[len(hexes)]
        Allied defense strength total within ``radius`` of each hex (integer
        sums, so equal to the one-hex answers).
    """
    return _engine()[0].allied_strength_near(game, hexes, radius)


def _objective_weights(game) -> list:
    """Objective weight of every hex (see :func:`_objective_weight`), a list of
    Python floats indexed by dense hex (:func:`_objective_tables`)."""
    return _objective_tables(game.static)[1]


@per_static
def _objective_tables(t) -> tuple:
    """The objective weights of every hex (rules 20.0, 12.54: airfields 3,
    victory cities 3, cities 2, towns 1, main ports 2), built once per
    :class:`StaticData` (read only).

    Returns
    -------
    (float64[n_hexes], list of float, list of float)
        The weights as an array and as a list of Python floats indexed by
        dense hex, and per hex the weight of the land hexes within 3 hexes
        of it (the sum :meth:`AxisInvasionDecisions._landing_beaches` reads;
        whole numbers, so exact in any order).
    """
    vc = np.zeros(t.n_hexes, bool)
    vc[np.asarray(t.victory_cities, np.int64)] = True
    arr = (np.where(t.airfield, 3.0, 0.0) + np.where(vc, 3.0, np.where(t.city, 2.0, 0.0))
           + np.where(t.town, 1.0, 0.0) + np.where(t.main_port, 2.0, 0.0))
    d = t.grid.distance_table
    land = np.flatnonzero(t.land)
    within3 = [float(arr[land[d[b, land] <= 3]].sum()) for b in range(t.n_hexes)]
    arr.flags.writeable = False
    return arr, arr.tolist(), within3


def _ocean_within(game, h, r):
    """Whether an ocean hex (or the map edge) lies within ``r`` hexes of ``h``:
    scatter toward it drowns (19.45)."""
    return int(_ocean_dist(game)[h]) <= r


def _ocean_dist(game) -> np.ndarray:
    """int[n_hexes]: distance in hexes from each hex to the nearest ocean hex
    (99 when the map has none), built once per static data
    (``InvasionStatic.ocean_dist``; read-only)."""
    return _engine()[1].inv_static(game).ocean_dist


def _objective_weight(game, h):
    """Weight of a hex as an Axis objective: airfields 3, victory cities 3,
    cities 2, towns 1, main ports 2 (rules 20.0, 12.54)."""
    return _objective_weights(game)[h]



def _zone_scores(game, zones: dict, threat: float = 0.05) -> dict:
    """Default score of each beach zone for the division assignment (rules
    18.21, 18.1, 18.5, 18.61): the objective weight of the land hexes within
    four hexes of its beaches, less ``threat`` x the Allied defense strength
    within two hexes of each beach.

    Parameters
    ----------
    zones : dict
        Zone name -> beach hexes (dense indices).
    threat : float
        Weight of one Allied strength point (the Axis knob ``zone_threat``;
        0.05 for the default decisions).

    Returns
    -------
    dict
        Zone name -> score (float).
    """
    d = _dist(game)
    land = np.flatnonzero(game.static.land)
    w = _objective_tables(game.static)[0]
    score = {}
    for z, beaches in zones.items():
        b = np.asarray(beaches, np.int64).reshape(-1)
        # the land hexes within four hexes of any beach, each once; the
        # weights are whole numbers, so their sum is exact in any order
        near = land[(d[np.ix_(b, land)] <= 4).any(axis=0)] if len(b) else land[:0]
        score[z] = float(w[near].sum()) - threat * sum(_allied_strength_near_many(game, b, 2).tolist())
    return score


def _marker_scores(game, options):
    """Default score of each legal drop zone marker hex (rules 19.31 a, 19.33):
    objective weight within 2 hexes, less Allied strength within 1 and 2
    hexes, less a penalty near the sea (scatter into it drowns, 19.45).

    Parameters
    ----------
    options : list of int
        Legal marker hexes (dense indices), length k.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The options as an int array [k] and their float64 scores [k].  The
        weights are small integers, so the sums are exact, and each float
        step is the one-hex formula's (same operations in the same order).
    """
    d = _dist(game)
    arr = np.array(options)
    ai = arr.astype(np.int64)
    w = _objective_tables(game.static)[0]
    s = (d[ai[:, None], ai[None, :]] <= 2).astype(np.float64) @ w[ai]
    s = s - (0.3 * _allied_strength_near_many(game, ai, 1) + 0.1 * _allied_strength_near_many(game, ai, 2))
    od = _ocean_dist(game)[ai]
    return arr, s - np.where(od <= 2, 3.0, np.where(od <= 3, 1.0, 0.0))

class InvasionDecisions:
    """Invasion decision methods with sensible defaults (see module docstring)."""

    # ------------------------------------------------------------ preparation (3.0)
    def hercules_attachments(self, game, units: list, divisions: list) -> dict:
        """Rules 15.21, 18.21: attach each unassigned unit to one infantry
        division.  Default: alternate so both divisions get marines, tanks and
        motorcycles in turn.  Returns unit -> division (every unit)."""
        return {u: divisions[i % len(divisions)] for i, u in enumerate(units)}

    def hercules_beach_zones(self, game, divisions: list, zones: dict) -> dict:
        """Rules 3.0 d, 18.21: choose the beach zone of each division.
        ``zones`` maps zone index -> list of its beach hexes.  Default: the two
        zones with the most objective weight within 4 hexes of their beaches,
        the best for the first division (both may share a zone, 18.21)."""
        score = _zone_scores(game, zones)
        ranked = sorted(zones, key=lambda z: (-score[z], z))
        return {div: ranked[i % len(ranked)] for i, div in enumerate(divisions)}

    # ------------------------------------------------------------ airborne planning (19.3)
    def plan_marker(self, game, formation: int, turn: int, options: list):
        """Rules 19.31 a, 19.33: planned hex of a drop zone marker (``options``
        are legal hexes) or ``None`` not to plan it for ``turn``.  Default: the
        legal hex with the best objective weight within 2 hexes, not adjacent
        to an Allied unit, preferring hexes near an airfield."""
        if not options:
            return None
        arr, s = _marker_scores(game, options)
        s = s + 0.01 * (formation % 3) * (arr % 7)  # spread the two formations
        best, best_s = None, -1e9
        for h, v in zip(options, s.tolist()):
            if v > best_s:
                best, best_s = h, v
        return best

    def plan_sticks(self, game, turn: int, sticks: list, targets: dict, limits: dict) -> list:
        """Rules 19.2, 19.31 b, 19.32: choose sticks to jump in ``turn``.

        Parameters
        ----------
        sticks : list of (stick_id, formation, kind)
            Sticks available (kind: ``battalion``, ``artillery``, ``hq_engineers``, ``returning``).
        targets : dict formation -> list of (hex, uses_long)
            Legal target hexes for that formation's sticks.
        limits : dict
            ``{"total": n, formation: n, "kinds": {formation: allowed kinds}}``.

        Returns
        -------
        list of (stick_id, hex)
        Default: as many sticks as allowed, HQ stick first, each on the best
        objective hex within reach not adjacent to Allied units, at most one
        stick per hex.
        """
        out, used_hex = [], set()
        per_form = {}
        total = limits.get("total", 99)
        # the facts each candidate's score reads, per target of a formation
        # (in the targets' order), for all of them at once when its first
        # stick is scored: hexes, long-range flags, Allied defense strength
        # within 1 and 2 hexes (integer sums), distance to the ocean
        ow = _objective_tables(game.static)[0]
        od = _ocean_dist(game)
        facts = {}

        def facts_of(form):
            f = facts.get(form)
            if f is None:
                cs = targets.get(form, [])
                hx = np.fromiter((int(c[0]) for c in cs), np.int64, len(cs))
                lg = np.fromiter((bool(c[1]) for c in cs), np.bool_, len(cs))
                f = facts[form] = (hx, lg, _allied_strength_near_many(game, hx, 1),
                                   _allied_strength_near_many(game, hx, 2), od[hx])
            return f
        ranked = {}

        def ranking(form, hq_like):
            # the targets of ``form`` by score, then lowest hex, best first,
            # ties in the targets' order: the first one a stick may take is
            # the first candidate with the best key, as max() picks it (the
            # scores read nothing the plan changes)
            r = ranked.get((form, hq_like))
            if r is None:
                cs = targets.get(form, [])
                hx, lg, a1, a2, odist = facts_of(form)
                v = ow[hx] - 0.4 * a1 - np.where(lg, 0.5, 0.0)
                if hq_like:
                    v = v - 0.5 * a2           # HQs and guns stay clear of fights
                v = v - np.where(odist <= (3 if hq_like else 2), 4.0, 0.0)
                # lexsort is stable: equal scores and hexes keep the targets' order
                r = ranked[(form, hq_like)] = [cs[i] for i in np.lexsort((hx, -v)).tolist()]
            return r
        long_used = {}
        order = sorted(sticks, key=lambda s: (0 if s[2] == "hq_engineers" else 1 if s[2] == "battalion" else 2))
        for sid, form, kind in order:
            if len(out) >= total:
                break
            if per_form.get(form, 0) >= limits.get(form, 99):
                continue
            if kind not in limits.get("kinds", {}).get(form, (kind,)):
                continue
            if not targets.get(form):
                continue
            no_long = long_used.get(form)
            best = None
            for c in ranking(form, kind in ("hq_engineers", "returning", "artillery")):
                if c[0] not in used_hex and not (c[1] and no_long):
                    best = c
                    break
            if best is None:
                continue
            h, lg = best
            out.append((sid, h))
            used_hex.add(h)
            per_form[form] = per_form.get(form, 0) + 1
            if lg:
                long_used[form] = True
        return out

    def cancel_jumps(self, game, plans: list) -> list:
        """Rule 19.35: plans (ids) to cancel voluntarily this turn.  Default: none."""
        return []

    def move_drop_marker(self, game, formation: int, options: list):
        """Rule 19.13: new hex for the marker or ``None`` to leave it.  Default:
        keep it, unless an Allied unit is adjacent: then the option farthest from
        Allied units."""
        here = int(game.state.dz_hex[0, formation])
        if here < 0 or not options or _allied_strength_near(game, here, 1) == 0:
            return None
        near = _allied_strength_near_many(game, options, 2).tolist()     # one pass, integer totals
        best = max(range(len(options)), key=lambda i: (-near[i], -options[i]))
        return options[best]

    # ------------------------------------------------------------ amphibious (18)
    def follow_up_breakdowns(self, game, battalions: list) -> list:
        """Rule 18.31 / 13.1: battalions in Follow-up boxes to break down into
        companies now.  Default: all of them (only companies land)."""
        return list(battalions)

    def wave_boxes(self, game, options) -> dict:
        """Rules 18.31, 18.32: fill First / Second Wave boxes.

        ``options`` is a ``hercules.WaveOptions``: per box its key, wave, beach
        hex and the units that may enter it.  Returns box key -> list of units.
        Default: fill every legal box, companies of infantry and engineers
        first, HQ with its leader early, artillery after.
        """
        from malta_sim.iod.rules.amphibious import fill_wave_boxes

        return fill_wave_boxes(game, options, None)

    def place_warships(self, game, ships: list, options: dict) -> dict:
        """Rule 16.7 (4.22 b): hex for each warship (at most two per hex, 16.72).
        ``options`` ship -> legal ocean hexes.  Default: as close as possible to
        the beach zones in use."""
        from malta_sim.iod.invasion import target_beaches

        beaches = target_beaches(game)
        d = _dist(game)
        # distance from every hex to the nearest beach in use, once
        near = d[:, beaches].min(axis=1) if beaches else np.zeros(d.shape[0], d.dtype)
        out, count = {}, {}
        for s in ships:
            opts = options[s]
            if not len(opts):
                continue
            arr = np.asarray(opts, np.int64)
            # options by (distance, hex), a stable sort: the first one with
            # room (16.72) is the first minimum of the plain scan
            for i in np.lexsort((arr, near[arr])).tolist():
                h = opts[i]
                if count.get(h, 0) < 2:
                    break
            else:
                continue
            out[s] = h
            count[h] = count.get(h, 0) + 1
        return out

    def move_warships(self, game, ships: list, options: dict) -> dict:
        """Rule 16.71: new hex per warship (omit to stay).  Default: stay."""
        return {}

    def warship_fire(self, game, options: dict) -> dict:
        """Rule 16.79: ``options`` ship -> (dice, guns in range).  Returns ship ->
        {gun: dice} (dice of a ship may be split).  Default: every ship with guns
        in range fires all its dice at the nearest gun."""
        out = {}
        d = _dist(game)
        for ship, (n, guns) in options.items():
            if guns and n > 0:
                g = min(guns, key=lambda x: (d[game.state.hex[ship], game.state.hex[x]], x))
                out[ship] = {g: n}
        return out

    def coastal_fire_warships(self, game, options: dict) -> dict:
        """Rule 16.55 (Allied): gun -> warship to fire at (omit to hold fire for
        the landing craft).  Default: hold fire unless no wave box is in range."""
        out = {}
        box_ok = getattr(game, "_guns_with_box_targets", set())
        for g, ships in options.items():
            if ships and g not in box_ok:
                out[g] = ships[0]
        return out

    def coastal_fire_boxes(self, game, options: dict) -> dict:
        """Rule 16.56 (Allied): gun -> wave box key.  Default: the box holding
        the most steps, First Wave before Second."""
        out = {}
        from malta_sim.iod.invasion import box_steps

        steps = {}                        # steps per box, counted once for all guns

        def key(b):
            n = steps.get(b)
            if n is None:
                n = steps[b] = box_steps(game, b)
            return (n, b[0] == 2 and 0 or 1, -b[1])
        for g, boxes in options.items():
            if boxes:
                out[g] = max(boxes, key=key)
        return out

    def waters_edge_attacks(self, game, options: dict) -> dict:
        """Rule 18.61 (Allied): unit -> beach hex to fire at.  Default: every
        able unit fires, at the hex with the most Axis units."""
        from malta_sim.iod.state import AXIS

        out = {}
        for u, hexes in options.items():
            if hexes:
                out[u] = max(hexes, key=lambda h: (len(game.units_at(h, AXIS)), -h))
        return out

    def one_hex_move(self, game, unit: int, options: list, reason: str):
        """Rules 18.7 (beach movement) and 19.6 (rally): hex to move to, or
        ``None``.  Default: towards the best objective, off the beach, avoiding
        hexes adjacent to strong Allied stacks."""
        if not options:
            return None
        here = int(game.state.hex[unit])
        hexes = list(options) + [here]
        # the Allied totals of every hex in one pass (integer sums: the
        # one-hex answers), then each score with the same float operations
        near = _allied_strength_near_many(game, hexes, 1).tolist()
        w, beach = _objective_weights(game), game.static.beach
        scores = [w[h] - 0.3 * a + (0.5 if not beach[h] else 0) for h, a in zip(hexes, near)]
        best = max(range(len(options)), key=lambda i: (scores[i], -options[i]))
        return options[best] if scores[best] > scores[-1] else None

    # ------------------------------------------------------------ airfields (16.1)
    def airfield_landings(self, game, candidates: list, airfields: list, capacity: int, cost: dict) -> list:
        """Rule 16.11: list of (unit, airfield hex) to land now, total cost <=
        ``capacity``.  Default: infantry-type companies first (the HQ once two
        companies are down), on the airfield farthest from Allied units."""
        if not airfields:
            return []
        from malta_sim.iod import static as st

        t = game.static

        def prio(u):
            if t.utype[u] == st.HQ:
                return 1
            if t.utype[u] == st.ARTILLERY:
                return 3
            return 0
        cands = sorted(candidates, key=lambda u: (prio(u), u))
        af = max(airfields, key=lambda h: (-_allied_strength_near(game, h, 3), -h))
        out, used = [], 0
        for u in cands:
            c = cost[u]
            if used + c <= capacity:
                out.append((u, af))
                used += c
        return out

    def aa_targets(self, game, options: dict) -> dict:
        """Rule 16.12 (Allied): AA unit -> airfield to fire at.  Default: all fire,
        at the airfield with the most units just landed."""
        out = {}
        for aa, fields in options.items():
            if fields:
                out[aa] = max(fields, key=lambda h: (len(game.units_at(h)), -h))
        return out

    # ------------------------------------------------------------ Initial Segment
    def air_attacks(self, game, guns: list, n: int, aa_near: dict) -> dict:
        """Rule 17.52: gun -> air attacks (sum <= ``n``).  Default: spread the
        attacks over the guns closest to the planned beach zones, three per gun,
        more where AA protects the gun."""
        from malta_sim.iod.invasion import target_beaches

        if n <= 0 or not guns:
            return {}
        beaches = target_beaches(game)
        d = _dist(game)
        ranked = sorted(guns, key=lambda g: (min((d[game.state.hex[g], b] for b in beaches), default=0), g))
        out, left = {}, n
        for g in ranked:
            k = min(left, 3 + aa_near.get(g, 0))
            if k <= aa_near.get(g, 0):
                break
            out[g] = k
            left -= k
            if left <= 0:
                break
        return out

    def stragglers(self, game, units: list) -> list:
        """Rule 17.8: reduced paratroop companies that try to recover (they may
        not move this turn, 17.81).  Default: those not within 2 hexes of an
        Allied unit."""
        return [u for u in units if _allied_strength_near(game, int(game.state.hex[u]), 2) == 0]

    def dismantle_strongpoints(self, game, strongpoints: list, max_n: int) -> list:
        """Rule 16.25 (Allied): strongpoints to dismantle (a multiple of four
        makes engineers).  Default: none."""
        return []

    def engineer_hex(self, game, options: list) -> int:
        """Rule 16.25 (Allied): hex (of a dismantled strongpoint) for the engineer company."""
        return options[0]

    def rn_damage(self, game, ships: list, n: int) -> list:
        """Rule 17.6 (Allied): which ``n`` warships the Royal Navy damages.
        Default: the strongest."""
        t = game.static
        return sorted(ships, key=lambda s: (-int(t.off_support[s]), s))[:n]

    def allied_placement(self, game, units: list, options: dict) -> dict:
        """Rule 22.39 Variable Allied Placement: unit -> hex among ``options[unit]``.
        Default: infantry near beaches and airfields, artillery and HQ central."""
        from malta_sim.iod.scenarios.hercules import default_allied_placement

        return default_allied_placement(game, units, options, None)

    # ------------------------------------------------------------ solitaire (21)
    def solitaire_marker_method(self, game, formation: int) -> str:
        """Rule 21.11: ``"a"`` (choose a hex near a landing beach) or ``"b"`` (roll)."""
        return "b"

    def solitaire_n_sticks(self, game, turn: int, max_n: int) -> int:
        """Rule 21.12: how many sticks jump this turn (at most ``max_n``)."""
        return max_n


class RandomInvasionDecisions(InvasionDecisions):
    """Uniformly random legal invasion decisions (for ``RandomPolicy``)."""

    def _r(self, game):
        return self.rng(game)

    def _choice(self, game, seq):
        seq = list(seq)
        return seq[int(self._r(game).integers(len(seq)))]

    def hercules_attachments(self, game, units, divisions):
        return {u: self._choice(game, divisions) for u in units}

    def hercules_beach_zones(self, game, divisions, zones):
        return {d: self._choice(game, sorted(zones)) for d in divisions}

    def plan_marker(self, game, formation, turn, options):
        return self._choice(game, options) if options else None

    def plan_sticks(self, game, turn, sticks, targets, limits):
        out, per_form, long_used = [], {}, {}
        order = list(sticks)
        self._r(game).shuffle(order)
        total = limits.get("total", 99)
        for sid, form, kind in order:
            if len(out) >= total or self._r(game).random() < 0.3:
                continue
            if per_form.get(form, 0) >= limits.get(form, 99):
                continue
            if kind not in limits.get("kinds", {}).get(form, (kind,)):
                continue
            cands = [(h, lg) for h, lg in targets.get(form, []) if not (lg and long_used.get(form))]
            if not cands:
                continue
            h, lg = cands[int(self._r(game).integers(len(cands)))]
            out.append((sid, h))
            per_form[form] = per_form.get(form, 0) + 1
            if lg:
                long_used[form] = True
        return out

    def cancel_jumps(self, game, plans):
        return [p for p in plans if self._r(game).random() < 0.1]

    def move_drop_marker(self, game, formation, options):
        if options and self._r(game).random() < 0.3:
            return self._choice(game, options)
        return None

    def follow_up_breakdowns(self, game, battalions):
        return [b for b in battalions if self._r(game).random() < 0.7]

    def wave_boxes(self, game, options):
        from malta_sim.iod.rules.amphibious import fill_wave_boxes

        return fill_wave_boxes(game, options, self._r(game))

    def place_warships(self, game, ships, options):
        out, count = {}, {}
        for s in ships:
            full = {h for h, c in count.items() if c >= 2}        # 16.72: two per hex at most
            cands = [h for h in options[s] if h not in full] if full else list(options[s])
            if cands:
                h = self._choice(game, cands)
                out[s] = h
                count[h] = count.get(h, 0) + 1
        return out

    def move_warships(self, game, ships, options):
        out = {}
        where = {s: int(game.state.hex[s]) for s in ships}
        for s in ships:
            if options.get(s) and self._r(game).random() < 0.3:
                h = self._choice(game, options[s])
                if sum(1 for x, y in where.items() if y == h and x != s) < 2:   # 16.72
                    out[s] = h
                    where[s] = h
        return out

    def warship_fire(self, game, options):
        out = {}
        for ship, (n, guns) in options.items():
            if guns and n > 0 and self._r(game).random() < 0.6:
                split = {}
                for _ in range(n):
                    g = self._choice(game, guns)
                    split[g] = split.get(g, 0) + 1
                out[ship] = split
        return out

    def coastal_fire_warships(self, game, options):
        return {g: self._choice(game, s) for g, s in options.items() if s and self._r(game).random() < 0.5}

    def coastal_fire_boxes(self, game, options):
        return {g: self._choice(game, b) for g, b in options.items() if b and self._r(game).random() < 0.8}

    def waters_edge_attacks(self, game, options):
        return {u: self._choice(game, h) for u, h in options.items() if h and self._r(game).random() < 0.6}

    def one_hex_move(self, game, unit, options, reason):
        if options and self._r(game).random() < 0.5:
            return self._choice(game, options)
        return None

    def airfield_landings(self, game, candidates, airfields, capacity, cost):
        if not airfields or not candidates:
            return []
        cands = list(candidates)
        self._r(game).shuffle(cands)
        out, used = [], 0
        for u in cands:
            if used + cost[u] <= capacity and self._r(game).random() < 0.8:
                out.append((u, self._choice(game, airfields)))
                used += cost[u]
        return out

    def aa_targets(self, game, options):
        return {a: self._choice(game, f) for a, f in options.items() if f}

    def air_attacks(self, game, guns, n, aa_near):
        out = {}
        for _ in range(n):
            if not guns:
                break
            g = self._choice(game, guns)
            out[g] = out.get(g, 0) + 1
        return out

    def stragglers(self, game, units):
        return [u for u in units if self._r(game).random() < 0.5]

    def dismantle_strongpoints(self, game, strongpoints, max_n):
        if max_n >= 4 and self._r(game).random() < 0.2:
            sp = list(strongpoints)
            self._r(game).shuffle(sp)
            return sp[:4]
        return []

    def engineer_hex(self, game, options):
        return self._choice(game, options)

    def rn_damage(self, game, ships, n):
        sh = list(ships)
        self._r(game).shuffle(sh)
        return sh[:n]

    def allied_placement(self, game, units, options):
        from malta_sim.iod.scenarios.hercules import default_allied_placement

        return default_allied_placement(game, units, options, self._r(game))

    def solitaire_marker_method(self, game, formation):
        return self._choice(game, ["a", "b"])

    def solitaire_n_sticks(self, game, turn, max_n):
        return int(self._r(game).integers(0, max_n + 1))


class AxisInvasionDecisions(InvasionDecisions):
    """The Axis bot's invasion decisions (``axis:balanced`` and the other
    parameterised Axis presets; rules 16.1, 18, 19, 20).

    They play to rule 20: every open beach hex is taken (an Allied beach
    hex of a zone with Axis units in its Follow-up box is +1 to each
    surrender roll), a battalion's companies on one hex or on a chain of
    adjacent hexes so they rejoin in the beach move (18.8) and reform
    (13.2), freeing their generic pieces for the next battalion; beaches
    next to strong Allied stacks are left while quieter ones serve; infantry lands before artillery, HQs and vehicles,
    which follow onto held beaches (with ``second_wave_any``, then onto
    the other quiet ones); each division breaks down only the
    battalions it can land this phase, both divisions in turn, so neither
    waits on the other's pieces; the HQ stick jumps only onto a drop zone its
    battalions hold; jumps onto hexes the Allies hold or threaten are
    cancelled (19.35); airfield landings respect stacking (7.2).  The
    opening (beach zone per division, drop zone hexes) is drawn from the
    bot's own random stream (:meth:`rng`) among the good choices, so games
    open differently; the draw depends only on the game's seed and index.

    Knobs (``self.vec``, :mod:`.params`): ``beach_threat`` (the most Allied
    strength next to a beach hex the bot lands on), ``jump_threat`` (the
    Allied strength next to a stick's target that cancels the jump),
    ``opening_spread`` (how far from the best opening the mixture reaches),
    ``second_wave_any`` (Second Wave units onto quiet beach hexes nobody
    holds).
    """

    # ------------------------------------------------------------ helpers
    def _vec(self, slot: str, default: float) -> float:
        idx = P.AX.get(slot)
        vec = getattr(self, "vec", None)
        return float(vec[idx]) if (idx is not None and vec is not None) else default

    def _landing_beaches(self, game, beaches: list) -> list:
        """Rules 18.5, 18.61, 18.91, 20.0: the open beach hexes of one zone
        to land on this phase, best first.  Each Allied-controlled beach hex
        of a zone whose Follow-up box holds Axis units adds +1 to every
        surrender roll (20.0), so every open hex is taken, except hexes
        with more than ``beach_threat`` Allied defense strength next to them
        (water's-edge fire, 18.61, and the stack's ZOC) while quieter hexes
        serve.  Order: no Allied strength next to the hex first, then the
        least threatened, then the most objective weight within 3 hexes.
        Input: open beach hexes (free First Wave boxes, 18.32).  Output: list
        of hexes (the least threatened alone when every hex is too strong)."""
        if not beaches:
            return []
        near1 = _allied_strength_near_many(game, beaches, 1).tolist()
        near2 = _allied_strength_near_many(game, beaches, 2).tolist()
        within3 = _objective_tables(game.static)[2]
        wt = [within3[b] for b in beaches]
        thr = self._vec("beach_threat", 12.0)
        ranked = sorted(range(len(beaches)), key=lambda i: (near1[i] > 0, near1[i], near2[i], -wt[i], beaches[i]))
        ok = [beaches[i] for i in ranked if near1[i] <= thr]
        return ok or [beaches[ranked[0]]]

    # ------------------------------------------------------------ set-up (3.0, 18.21)
    def hercules_beach_zones(self, game, divisions: list, zones: dict) -> dict:
        """Rules 3.0 d, 18.21, 20: the beach zone of each division, drawn
        from the bot's random stream among the zones whose score (objective
        weight near the beaches less the Allied strength there, as the
        default) is within ``opening_spread`` of the best; the two divisions
        take different zones while there are two, or, with ``one_zone``, one
        zone drawn for both (18.92 allows it; rule 20.0 then counts the
        Allied-held beach hexes of that zone only).  The Allied strength near
        the beaches weighs ``zone_threat`` a point.  Output: division -> zone."""
        score = _zone_scores(game, zones, self._vec("zone_threat", 0.05))
        ranked = sorted(zones, key=lambda z: (-score[z], z))
        spread = self._vec("opening_spread", 0.25) * max(abs(score[ranked[0]]), 1.0)
        good = [z for z in ranked if score[z] >= score[ranked[0]] - spread] or ranked[:1]
        gen = _policy_stream(self, game)
        if self._vec("one_zone", 1.0):
            z = good[int(gen.integers(len(good)))]
            return {div: z for div in divisions}
        out, taken = {}, []
        for div in divisions:
            pool = [z for z in good if z not in taken] or [z for z in ranked if z not in taken] or ranked
            z = pool[int(gen.integers(len(pool)))]
            out[div] = z
            taken.append(z)
        return out

    # ------------------------------------------------------------ airborne (19)
    def plan_marker(self, game, formation: int, turn: int, options: list):
        """Rules 19.31 a, 19.33: the drop zone marker's planned hex, drawn
        from the bot's random stream among the legal hexes whose default
        score (objectives within 2 hexes, Allied strength, the sea) is within
        ``opening_spread`` of the best, at least 3 hexes from the other
        formation's marker (so one Allied stack cannot face both).  Output:
        a hex of ``options`` or None."""
        if not options:
            return None
        arr, s = _marker_scores(game, options)
        st_ = game.state
        others = [int(x) for f, x in enumerate(st_.marker_plan_hex[0].tolist())
                  if f != formation and st_.marker_plan_id[0, f] >= 0 and x >= 0]
        others += [int(x) for f, x in enumerate(st_.dz_hex[0].tolist()) if f != formation and x >= 0]
        if others:
            ai = arr.astype(np.int64)
            s = s - np.where(_dist(game)[ai[:, None], np.asarray(others, np.int64)[None, :]].min(axis=1) < 3,
                             100.0, 0.0)
        best = float(s.max())
        spread = self._vec("opening_spread", 0.25) * max(abs(best), 1.0)
        good = [int(h) for h, v in zip(options, s.tolist()) if v >= best - spread]
        return good[int(_policy_stream(self, game).integers(len(good)))]

    def plan_sticks(self, game, turn: int, sticks: list, targets: dict, limits: dict) -> list:
        """Rules 19.2, 19.31 b, 19.32, 19.5: the default plan on safer
        targets: no stick onto a hex holding Allied units (a hostile landing,
        19.5, fought at the stick's strength alone) or an Allied fort; the
        HQ stick (with its engineers) only onto a hex its formation's combat
        units hold or touch with no Allied unit within 2 hexes (16.8: a lost
        HQ costs 2 victory points, 20).  Output: list of (stick_id, hex)."""
        from malta_sim.bots.move_choice import _walk_statics
        from malta_sim.iod.state import ALLIED, BOX_MAP

        s, t = game.state, game.static
        # the hexes holding an Allied piece or an Allied fort, as a list of
        # flags (a piece without a hex, -1, marks the extra last entry only)
        bad = np.zeros(t.n_hexes + 1, bool)
        bad[s.hex[(s.box == BOX_MAP) & (t.side == ALLIED)]] = True
        bad[:-1] |= t.fort & (s.control != 0)
        bad = bad.tolist()
        safe = {f: [(h, lg) for h, lg in hs if not bad[int(h)]] for f, hs in targets.items()}
        ring = _walk_statics(t)[-1]          # per hex the hexes at most one hex away, -1 padded
        hq_ok = {}
        axis = game.on_map(0)
        axis = axis[game.ground_mask[axis] & (t.utype[axis] != st_hq())]
        for f, hs in safe.items():
            mine = axis[s.formation[axis] == f]
            ok = []
            if len(mine) and hs:
                held = np.zeros(t.n_hexes + 1, bool)         # index -1 (ring padding): False
                held[s.hex[mine]] = True
                th = np.fromiter((int(h) for h, _ in hs), np.int64, len(hs))
                # next to (or on) a combat unit of the formation, then no
                # Allied unit within 2 hexes (asked only of those hexes)
                touch = np.flatnonzero(held[ring[th]].any(axis=1))
                if len(touch):
                    clear = _engine()[0].nearest_allied_units(game, th[touch]) > 2
                    ok = [hs[i] for i in touch[clear].tolist()]
            hq_ok[f] = ok
        out = []
        rest = [x for x in sticks if x[2] != "hq_engineers"]
        hqs = [x for x in sticks if x[2] == "hq_engineers"]
        if hqs:
            # the HQ sticks first (the default's order) onto their held hexes only
            out += InvasionDecisions.plan_sticks(self, game, turn, [x for x in hqs if hq_ok.get(x[1])],
                                                 hq_ok, limits)
        used = {h for _, h in out}
        lim = dict(limits)
        if "total" in lim:
            lim["total"] = lim["total"] - len(out)
        for f, _n in list(lim.items()):
            if isinstance(f, (int, np.integer)):
                lim[f] = _n - sum(1 for sid, _h in out for x in hqs if x[0] == sid and x[1] == f)
        more = InvasionDecisions.plan_sticks(
            self, game, turn, rest, {f: [(h, lg) for h, lg in hs if h not in used] for f, hs in safe.items()}, lim)
        return out + more

    def cancel_jumps(self, game, plans: list) -> list:
        """Rule 19.35: cancel the stick jumps of this turn whose target hex
        the Allies now hold (a hostile landing, 19.5) or threaten (Allied
        defense strength of ``jump_threat`` or more next to it: the stick
        lands in their ZOC and cannot rally, 19.6), and HQ sticks whose
        target no friendly unit holds.  Input: plan ids of this turn.
        Output: plan ids to cancel."""
        from malta_sim.iod.rules import airborne

        s, t = game.state, game.static
        inv, grid = _engine()[1].inv_static(game), t.grid
        thr = self._vec("jump_threat", 6.0)
        want = set(plans)
        out = []
        for p in airborne.jump_plans(game, game.turn):
            if p.pid not in want or p.kind != "stick":
                continue
            marker = int(s.dz_hex[0, p.formation])
            if marker < 0:
                continue
            hid = airborne._stick_target(inv, grid, marker, p.offset)
            if hid is None:
                continue
            h = grid.index(hid)
            if h < 0:
                continue
            if _engine()[1].dist_to_allied(game, h) == 0 or _allied_strength_near(game, h, 1) >= thr:
                out.append(p.pid)
                continue
            if any(t.utype[u] == st_hq() for u in p.units):
                mine = game.on_map(0)
                mine = mine[game.ground_mask[mine] & (t.utype[mine] != st_hq())]
                if not len(mine) or int(_dist(game)[h, s.hex[mine]].min()) > 1:
                    out.append(p.pid)
        return out

    # ------------------------------------------------------------ amphibious (18)
    def follow_up_breakdowns(self, game, battalions: list) -> list:
        """Rules 18.31, 13.1: break down only the battalions that can land
        this phase: per zone, one battalion per one and a half beach hexes it
        will land on (:meth:`_landing_beaches`; a battalion's third company
        may take the next hex along) less the companies already waiting there,
        the zones taking turns so both divisions get company pieces.
        Output: battalions, in the order to break them down."""
        from malta_sim.iod.rules import amphibious as am
        from malta_sim.iod.state import BOX_FOLLOW_UP

        s = game.state
        kinds = _engine()[1].inv_static(game).unit_kinds
        opts = am.wave_options(game)
        by_zone: dict = {}
        for b in battalions:
            by_zone.setdefault(int(s.box_slot[b]), []).append(int(b))
        queues = []
        for z, bns in sorted(by_zone.items()):
            beaches = self._landing_beaches(game, list(opts.first.get(z, [])))
            waiting = [u for u in opts.zones.get(z, []) if kinds[u] in (am.KIND_INFANTRY, am.KIND_ENGINEER)
                       and s.box[u] == BOX_FOLLOW_UP]
            need = -(-2 * len(beaches) // 3) - len(waiting) // 3
            queues.append(bns[:max(need, 0)])
        out = []
        for i in range(max((len(q) for q in queues), default=0)):
            out += [q[i] for q in queues if i < len(q)]
        return out

    def wave_boxes(self, game, options) -> dict:
        """Rules 18.31, 18.32, 18.92, 20.0: per zone, the battalions' company
        groups (most companies first) take the chosen beach hexes
        (:meth:`_landing_beaches`, least threatened first).  Each battalion
        gets as many hexes as leave one for every battalion after it, at most
        one per company, in a chain of adjacent hexes, its companies split
        over them (at most two per First Wave box, a marine company added when
        one waits); a company left over follows in the Second Wave box of the
        chain's first hex.  In the beach move the companies rejoin
        (:meth:`one_hex_move`) and the battalion reforms (13.2).  Marines alone
        (two or three) take further hexes; artillery, HQs, tanks and
        motorcycles go to Second Wave boxes of beach hexes the Axis already
        holds with no Allied strength next to them, and with the
        ``second_wave_any`` knob then to those of the other such quiet beach
        hexes.  Output: box key -> units."""
        from malta_sim.iod.rules import amphibious as am
        from malta_sim.iod.state import AXIS, BOX_FIRST_WAVE, BOX_SECOND_WAVE
        from malta_sim.iod import static as stt

        s, t = game.state, game.static
        kinds = _engine()[1].inv_static(game).unit_kinds
        out: dict = {}
        for z, units in options.zones.items():
            pool = list(units)
            div_of = {u: int(s.formation[u]) for u in pool}
            by_bn: dict = {}
            for u in pool:
                if kinds[u] in (am.KIND_INFANTRY, am.KIND_ENGINEER):
                    by_bn.setdefault((div_of[u], int(s.parent[u]) if s.parent[u] >= 0 else -1 - u), []).append(u)
            # whole battalions first (most companies), then the odd ones
            groups = sorted(by_bn.values(), key=lambda g: (-len(g), g[0]))
            marines = [u for u in pool if kinds[u] == am.KIND_MARINE]
            beaches = self._landing_beaches(game, list(options.first.get(z, [])))
            second_ok = set(options.second_free.get(z, [])) | set(options.second_needs_first.get(z, []))
            beach_div: dict = {}
            d = _dist(game)
            free = list(beaches)
            for gi, g in enumerate(groups):
                if not free:
                    break
                # as many beach hexes for this battalion as leave one for each
                # battalion after it, in a chain of adjacent hexes so its
                # companies rejoin in the beach move (18.8) and reform (13.2)
                k = max(1, min(len(g), len(free) - (len(groups) - gi - 1)))
                chain = [free.pop(0)]
                while len(chain) < k:
                    nxt = [x for x in free if any(d[c, x] == 1 for c in chain)]
                    if not nxt:
                        break
                    chain.append(nxt[0])
                    free.remove(nxt[0])
                div = div_of[g[0]]
                sizes = [len(g) // len(chain) + (1 if i < len(g) % len(chain) else 0) for i in range(len(chain))]
                sizes = [min(2, n) for n in sizes]
                pos = 0
                for b, n in zip(chain, sizes):
                    box = g[pos:pos + n]
                    pos += n
                    mar = [m for m in marines if div_of[m] == div][:1]
                    if am.first_wave_ok([kinds[u] for u in box + mar], [div] * len(box + mar))[0]:
                        box = box + mar
                    out[(BOX_FIRST_WAVE, b)] = box
                    beach_div[b] = div
                    for u in box:
                        pool.remove(u)
                        if u in marines:
                            marines.remove(u)
                if pos < len(g) and chain[0] in second_ok:
                    # the third company follows in the Second Wave box of the first hex
                    out[(BOX_SECOND_WAVE, chain[0])] = [g[pos]]
                    pool.remove(g[pos])
            # marines alone onto further quiet beach hexes (18.31: two or three)
            for b in beaches:
                if b in beach_div or len(marines) < 2:
                    continue
                div = div_of[marines[0]]
                box = [m for m in marines if div_of[m] == div][:3]
                if len(box) < 2:
                    continue
                out[(BOX_FIRST_WAVE, b)] = box
                beach_div[b] = div
                for u in box:
                    pool.remove(u)
                    marines.remove(u)
            # the rest follow onto held, quiet beaches (Second Wave, 18.31)
            order_pref = (am.KIND_INFANTRY, am.KIND_ENGINEER, am.KIND_HQ, am.KIND_TANK,
                          am.KIND_MOTORCYCLE, am.KIND_MARINE, am.KIND_ARTILLERY)
            quiet = [b for b in options.second_free.get(z, []) if _allied_strength_near(game, b, 1) == 0]
            held = [b for b in quiet if any(t.utype[v] != stt.LEADER for v in game.units_at(b, AXIS))]
            # with second_wave_any, the quiet beach hexes nobody holds take the
            # rest once the held ones are taken (18.32), so the box empties (20.0)
            rest = [b for b in quiet if b not in held] if self._vec("second_wave_any", 0.0) else []
            for b in held + rest:
                if (BOX_SECOND_WAVE, b) in out:
                    continue
                cand = [u for u in pool if kinds[u] in order_pref
                        and (b not in beach_div or div_of[u] == beach_div[b])]
                if not cand:
                    continue
                cand.sort(key=lambda u: (order_pref.index(kinds[u]), u))
                u = cand[0]
                out[(BOX_SECOND_WAVE, b)] = [u]
                pool.remove(u)
        return out

    def one_hex_move(self, game, unit: int, options: list, reason: str):
        """Rules 18.8 (beach movement), 19.6 (rally), 13.2: a company moves
        to an adjacent hex holding more companies of its own battalion than
        its own hex does, so the battalion reforms at the end of the move;
        otherwise the default (toward the objectives, off the beach, away
        from strong Allied stacks).  Output: a hex of ``options`` or None."""
        s = game.state
        b = int(s.parent[unit])
        if options and b >= 0:
            from malta_sim.iod.state import BOX_MAP

            sib = np.flatnonzero((s.parent == b) & (s.box == BOX_MAP))
            sib = sib[sib != unit]
            if len(sib):
                here = int(s.hex[unit])
                hx = s.hex[sib].tolist()           # the siblings' hexes, counted per option
                n_here = hx.count(here)
                best = max(options, key=lambda h: (hx.count(h), -h))
                n_best = hx.count(best)
                if n_best > n_here or (n_best and n_best == n_here and best < here):
                    return best                    # join the larger group (ties: the lower hex)
                if n_here:
                    return None                    # stay: the others join here
        return InvasionDecisions.one_hex_move(self, game, unit, options, reason)

    # ------------------------------------------------------------ airfields (16.1)
    def airfield_landings(self, game, candidates: list, airfields: list, capacity: int, cost: dict) -> list:
        """Rules 16.11, 7.2: the default order (infantry-type companies,
        then the HQ, then artillery), each onto the airfield farthest from
        Allied units where it still fits the stacking limit with what is
        there and what lands with it (an overstacked unit is eliminated,
        7.2).  Output: list of (unit, airfield hex)."""
        if not airfields:
            return []
        from malta_sim.iod import static as stt
        from malta_sim.iod.rules import organisation

        t = game.static

        def prio(u):
            return 1 if t.utype[u] == stt.HQ else 3 if t.utype[u] == stt.ARTILLERY else 0
        fields = sorted(airfields, key=lambda h: (_allied_strength_near(game, h, 3), h))
        there = {h: [int(v) for v in game.units_at(h, 0)] for h in fields}
        out, used = [], 0
        for u in sorted(candidates, key=lambda u: (prio(u), u)):
            c = cost[u]
            if used + c > capacity:
                continue
            for h in fields:
                if organisation.fits_stacking(game, there[h] + [u], h):
                    out.append((u, h))
                    there[h].append(u)
                    used += c
                    break
        return out


def _policy_stream(bot, game):
    """The bot's own random stream in ``game`` (:meth:`malta_sim.bots.base.Policy.rng`:
    a function of the seed and game index only)."""
    from malta_sim.bots.base import Policy

    return Policy.rng(bot, game)


def st_hq() -> int:
    """The HQ unit type code (:mod:`malta_sim.iod.static`)."""
    from malta_sim.iod import static as stt

    return stt.HQ
