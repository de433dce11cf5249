"""Solo airborne landings (rules 21.1, 21.11, 21.12; stick limits of 22.35):
drop zone markers placed on 29 June by method (a) or (b), sticks on their
marker's hex, the Drop Table's solitaire +2, the scenario's stick limits.

Every test plays the Airborne Landing Phase (4.23) of an Operation Hercules
game with ``--option solitaire`` from a position set up by hand, with the
Allied pieces off the map (no anti-aircraft modifier, no hostile landings).
"""

from __future__ import annotations

import numpy as np
import pytest

from malta_sim.iod import invasion as H
from malta_sim.iod.game import IllegalDecision
from malta_sim.iod.rules import airborne
from malta_sim.iod.state import ALLIED, AM, AXIS, BOX_DISBANDMENT, BOX_ELIMINATED, BOX_MAP, PM
from malta_sim.kernels import drop as K

from tests.conftest import clear_allied, hercules_game, hex_index

#: rule 21.11 b: the solo drop zone marker table (die 1-2, 3, 4, 5, 6)
TABLE_B = ("0911", "1313", "1512", "1813", "2012")
RAMCKE, FOLGORE = 1, 2
CLEAR, RAINY = 0, 2


class _Solo:
    """Axis decisions of the solo Airborne Landing Phase: the marker method
    (21.11), the hex of a method (a) marker, the number of sticks (21.12), all
    recorded; no rally move (19.6) and no reform after it (so the landed
    companies stay as they fell); anything else as the game's random bot."""

    def __init__(self, game, method="b", n_sticks=0, pick=lambda opts: opts[-1]):
        self.base = game.policies[AXIS]
        self.method, self.n_sticks, self.pick = method, n_sticks, pick
        self.methods: list = []
        self.marker_options: list = []
        self.sticks_max: list = []

    def __getattr__(self, name):
        return getattr(self.base, name)

    def solitaire_marker_method(self, game, formation):
        self.methods.append(int(formation))
        return self.method

    def plan_marker(self, game, formation, turn, options):
        self.marker_options.append((int(formation), list(options)))
        return self.pick(list(options))

    def solitaire_n_sticks(self, game, turn, max_n):
        self.sticks_max.append(int(max_n))
        return self.n_sticks

    def one_hex_move(self, game, unit, options, reason):
        return None

    def reforms(self, game, options):
        return []


def _game(turn, weather=CLEAR, markers=None, **bot):
    """A solo Hercules game at ``turn`` (day * 4 + time of day), Allied pieces
    off the map, drop zone markers ``{formation: hex id}`` already down."""
    g = hercules_game(options=("solitaire",))
    clear_allied(g)
    g.state.turn[0] = turn
    g.state.weather[0] = weather
    for f, hx in (markers or {}).items():
        g.state.dz_hex[0, f] = hex_index(g, hx)
    pol = _Solo(g, **bot)
    g.policies = (pol, g.policies[ALLIED])
    return g, pol


def _rows(g, action):
    return [r for r in g.events.rows if r["action"] == action]


def _hexes(g, row):
    """Dense hexes of an event row (logged as hex ids)."""
    return [hex_index(g, x) for x in row["hexes"].split()]


def _units(g, row):
    """Units of an event row (logged by name)."""
    names = list(g.static.names)
    return [names.index(x) for x in row["units"].split()]


def _formation_of(g, units):
    forms = {int(g.static.printed_formation[u]) for u in units}
    assert len(forms) == 1
    return forms.pop()


def _axis_on_beach(g):
    """Put one Axis battalion on a beach hex (a beach occupied by Axis units, 21.11 a)."""
    s, t = g.state, g.static
    beach = int(np.flatnonzero(t.beach & t.land)[0])
    u = [x for x in range(len(t.names)) if t.side[x] == AXIS and s.box[x] != BOX_MAP
         and s.box[x] != BOX_DISBANDMENT][0]
    s.box[u], s.hex[u], s.level[u] = BOX_MAP, beach, 0
    return beach


def test_rule_21_1_no_marker_or_stick_in_a_rainy_turn():
    """Rule 21.1 (19.35): no jump in a Rainy turn, not even the drop zone
    markers of 29 June AM; nothing is asked of the player."""
    g, pol = _game(4 * 0 + AM, weather=RAINY, n_sticks=7)
    airborne.airborne_landing_phase(g)
    assert not _rows(g, "drop_zone_marker") and not _rows(g, "stick_drop")
    assert (g.state.dz_hex[0, [RAMCKE, FOLGORE]] == -1).all()
    assert pol.methods == [] and pol.sticks_max == []


def test_rule_21_11_b_both_markers_rolled_on_29_june():
    """Rule 21.11 b: on 29 June AM each marker not yet down is placed by a die
    on the table (0911, 1313, 1512, 1813, 2012) - the die, not the player, even
    when method (a) hexes exist - then rolls on the Drop Table; both are down
    after the phase.  With no stick chosen (21.12) none jumps."""
    g, pol = _game(4 * 0 + AM, method="b", n_sticks=0)
    _axis_on_beach(g)
    assert airborne and H.solitaire(g)
    airborne.airborne_landing_phase(g)
    rows = _rows(g, "drop_zone_marker")
    assert len(rows) == 2
    table = {hex_index(g, x) for x in TABLE_B}
    assert all(_hexes(g, r)[0] in table for r in rows)                      # planned by the die
    assert sorted(pol.methods) == [RAMCKE, FOLGORE] and pol.marker_options == []
    assert (g.state.dz_hex[0, [RAMCKE, FOLGORE]] >= 0).all()
    assert [int(g.state.dz_hex[0, f]) for f in (RAMCKE, FOLGORE)] == [_hexes(g, r)[1] for r in rows]
    assert pol.sticks_max == [7] and not _rows(g, "stick_drop")


def test_rule_21_11_a_marker_on_players_hex_near_a_landing_beach():
    """Rule 21.11 a: the player places the marker on a hex of his choice within
    3 hexes of a beach hex occupied by Axis units; the marker then rolls from
    that hex (19.41)."""
    g, pol = _game(4 * 0 + AM, method="a", pick=lambda opts: opts[-1])
    beach = _axis_on_beach(g)
    airborne.airborne_landing_phase(g)
    rows = _rows(g, "drop_zone_marker")
    assert [f for f, _ in pol.marker_options] == [RAMCKE, FOLGORE]
    d = g.static.grid.distance_table
    for (f, opts), r in zip(pol.marker_options, rows):
        assert opts and all(d[x, beach] <= 3 for x in opts)
        assert _hexes(g, r)[0] == opts[-1]                                  # the player's hex
    assert opts[-1] not in {hex_index(g, x) for x in TABLE_B}


def test_rule_21_11_a_hex_farther_than_3_from_the_beaches_refused():
    """Rule 21.11 a: a marker hex not within 3 hexes of a landing beach is refused."""
    g, pol = _game(4 * 0 + AM, method="a", pick=lambda opts: hex_index(g, "2012"))
    beach = _axis_on_beach(g)
    assert g.static.grid.distance_table[hex_index(g, "2012"), beach] > 3
    with pytest.raises(IllegalDecision, match="21.11"):
        airborne.airborne_landing_phase(g)


def test_rule_21_11_second_marker_may_wait_for_the_pm_turn():
    """Rule 21.11: the markers need not drop in the same turn; on 29 June PM
    the marker not yet down is placed and the one already down stays."""
    g, pol = _game(4 * 0 + PM, markers={RAMCKE: "1313"})
    airborne.airborne_landing_phase(g)
    assert pol.methods == [FOLGORE] and len(_rows(g, "drop_zone_marker")) == 1
    assert g.state.dz_hex[0, RAMCKE] == hex_index(g, "1313") and g.state.dz_hex[0, FOLGORE] >= 0


def test_rule_21_11_marker_rolls_with_the_solitaire_plus_2():
    """Rule 21.11 (19.41, Drop Table): each marker rolls with the solo +2
    (German -1 for Ramcke's): the landing hexes are those of the Drop Table
    with +2 on the game's own dice."""
    g, pol = _game(4 * 0 + AM, method="b")
    stream = g.streams.numba("scatter")
    with_2, without = stream.copy(), stream.copy()
    airborne.airborne_landing_phase(g)
    inv, t, ch = H.inv_static(g), g.static, g.static.charts
    aa = airborne._aa_count(g)
    got, want, plain = [], [], []
    for f, r in zip((RAMCKE, FOLGORE), _rows(g, "drop_zone_marker")):
        planned = _hexes(g, r)[0]
        got.append(_hexes(g, r)[1])
        for st, solo, out in ((with_2, True, want), (without, False, plain)):
            out.append(K.drop_marker(st, planned, f == RAMCKE, aa, solo, inv.ocean, t.neighbours,
                                     ch.drop_roll_min, ch.drop_roll_max, ch.drop_marker, ch.drop_stick,
                                     ch.scatter_dir, False, 1000)[0])
    assert got == want
    assert plain != want                          # these dice tell +2 from no modifier


def test_rule_21_12_stick_rolls_with_the_solitaire_plus_2():
    """Rule 21.12: a stick is placed on its formation's marker hex and rolls on
    the Drop Table with the solo +2 (19.44)."""
    g, pol = _game(4 * 1 + AM, markers={RAMCKE: "1313", FOLGORE: "1512"}, n_sticks=1)
    stream = g.streams.numba("scatter")
    with_2, without = stream.copy(), stream.copy()
    airborne.airborne_landing_phase(g)
    (row,) = _rows(g, "stick_drop")
    f = _formation_of(g, _units(g, row))
    th = int(g.state.dz_hex[0, f])
    assert _hexes(g, row) == [th]                                          # on the marker's hex
    inv, t, ch = H.inv_static(g), g.static, g.static.charts
    rollers = [u for u in _units(g, row) if g.tables.utype[u] != airborne.st.LEADER]
    german = f == RAMCKE
    codes, hexes = [], []
    for st, solo in ((with_2, True), (without, False)):
        out = np.empty(len(rollers), np.int32)
        codes.append(K.drop_stick(st, th, len(rollers), german, 0, solo, inv.ocean, t.neighbours,
                                  ch.drop_roll_min, ch.drop_roll_max, ch.drop_marker, ch.drop_stick,
                                  ch.scatter_dir, out))
        hexes.append(out.tolist())
    assert row["cell"] == airborne.DROP_RESULT_NAMES[codes[0]]
    landed = [int(g.state.hex[u]) if g.state.box[u] == BOX_MAP else -1 for u in rollers]
    assert landed == hexes[0]
    assert (codes[0], hexes[0]) != (codes[1], hexes[1])  # these dice tell +2 from no modifier


def test_rule_21_12_22_35_at_most_two_sticks_a_formation_on_29_june_pm():
    """Rules 21.12, 22.35: on 29 June PM at most 2 German and 2 Italian sticks;
    the player who asks for all 4 gets 2 of each, each on its own marker."""
    g, pol = _game(4 * 0 + PM, markers={RAMCKE: "1313", FOLGORE: "1813"}, n_sticks=4)
    airborne.airborne_landing_phase(g)
    assert pol.sticks_max == [4]
    rows = _rows(g, "stick_drop")
    forms = [_formation_of(g, _units(g, r)) for r in rows]
    assert sorted(forms) == [RAMCKE, RAMCKE, FOLGORE, FOLGORE]
    for f, r in zip(forms, rows):
        assert _hexes(g, r) == [int(g.state.dz_hex[0, f])]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_rule_21_12_as_many_sticks_as_the_player_chooses(n):
    """Rule 21.12: the player decides how many sticks jump (here 1, 2 or 3 of
    the 4 allowed on 29 June PM) and exactly that many jump."""
    g, pol = _game(4 * 0 + PM, markers={RAMCKE: "1313", FOLGORE: "1813"}, n_sticks=n)
    airborne.airborne_landing_phase(g)
    assert len(_rows(g, "stick_drop")) == n


def test_rule_21_12_more_or_fewer_than_allowed_refused():
    """Rule 21.12: the number of sticks is between 0 and the scenario's maximum."""
    for n in (-1, 2):
        g, pol = _game(4 * 1 + AM, markers={RAMCKE: "1313", FOLGORE: "1813"}, n_sticks=n)
        with pytest.raises(IllegalDecision, match="21.12"):
            airborne.airborne_landing_phase(g)


@pytest.mark.parametrize("down, up", [(RAMCKE, FOLGORE), (FOLGORE, RAMCKE)])
def test_rule_21_12_no_stick_without_its_formations_marker(down, up):
    """Rule 21.12: German sticks may not jump while the Ramcke marker is not
    down, Italian sticks while the Folgore marker is not: the one stick of
    30 June AM is of the formation whose marker is down, on that marker."""
    g, pol = _game(4 * 1 + AM, markers={down: "1313"}, n_sticks=1)
    airborne.airborne_landing_phase(g)
    (row,) = _rows(g, "stick_drop")
    assert _formation_of(g, _units(g, row)) == down
    assert _hexes(g, row) == [hex_index(g, "1313")] and g.state.dz_hex[0, up] == -1


def test_rule_22_35_no_artillery_stick_on_29_june_am():
    """Rules 21.12, 22.35: on 29 June AM only leader, HQ, paratroop and
    engineer sticks jump.  With the paratroop battalions gone, the eligible
    sticks are each formation's HQ with its engineers (the artillery may not
    jump): the player asking for the most gets those two."""
    g, pol = _game(4 * 0 + AM, markers={RAMCKE: "1313", FOLGORE: "1813"}, n_sticks=7)
    s, t = g.state, g.static
    for f in (RAMCKE, FOLGORE):
        for kind, units in airborne.available_sticks(g, f, set()):
            if kind == "battalion":
                s.box[list(units)] = BOX_ELIMINATED
    airborne.airborne_landing_phase(g)
    rows = _rows(g, "stick_drop")
    assert sorted(_formation_of(g, _units(g, r)) for r in rows) == [RAMCKE, FOLGORE]
    for r in rows:
        assert all(t.utype[u] != airborne.st.ARTILLERY for u in _units(g, r))
        assert any(t.utype[u] == airborne.st.HQ for u in _units(g, r))
    art = [u for u in range(len(t.names)) if t.utype[u] == airborne.st.ARTILLERY
           and int(t.printed_formation[u]) in (RAMCKE, FOLGORE) and t.side[u] == AXIS]
    assert art and all(s.box[u] == BOX_DISBANDMENT for u in art)


def _intro(weather=CLEAR, seed=3, **bot):
    """A solo Introductory Scenario game at its first turn (30 June AM), its
    two drop zone markers already down (21.11, 22.26)."""
    from malta_sim import play

    g = play.new_game("intro", seed, 0, axis_policy="random", allied_policy="random",
                      options=("solitaire",), event_log=True)
    clear_allied(g)
    g.state.weather[0] = weather
    pol = _Solo(g, **bot)
    g.policies = (pol, g.policies[ALLIED])
    return g, pol


@pytest.mark.parametrize("tod, name, marker, seed", [(AM, "axis.ram.1_2", RAMCKE, 3),
                                                     (PM, "axis.185.ii_187", FOLGORE, 4)])
def test_rule_22_26_21_12_named_battalion_jumps_alone_without_the_plus_2(tod, name, marker, seed):
    """Rules 22.26, 21.12: in the Introductory Scenario Ram 1/2 must jump on the
    Ramcke marker on 30 June AM, II/187 on the Folgore marker on 30 June PM, and
    no other stick jumps then; these first two sticks roll on the Drop Table
    without the solitaire +2."""
    g, pol = _intro(n_sticks=1, seed=seed)
    g.state.turn[0] = 4 * 1 + tod
    th = int(g.state.dz_hex[0, marker])
    assert th >= 0
    stream = g.streams.numba("scatter")
    plain, with_2 = stream.copy(), stream.copy()
    airborne.airborne_landing_phase(g)
    (row,) = _rows(g, "stick_drop")
    t, s = g.static, g.state
    bn = t.unit(name)
    comps = _units(g, row)
    assert comps and all(int(s.parent[u]) == bn for u in comps)                # its companies (4.23 c)
    assert _hexes(g, row) == [th]
    inv, ch = H.inv_static(g), t.charts
    codes = []
    for st, solo in ((plain, False), (with_2, True)):
        out = np.empty(len(comps), np.int32)
        codes.append((K.drop_stick(st, th, len(comps), t.nation[bn] == airborne.st.GERMAN, 0, solo, inv.ocean,
                                   t.neighbours, ch.drop_roll_min, ch.drop_roll_max, ch.drop_marker,
                                   ch.drop_stick, ch.scatter_dir, out), out.tolist()))
    assert row["cell"] == airborne.DROP_RESULT_NAMES[codes[0][0]]
    assert [int(s.hex[u]) if s.box[u] == BOX_MAP else -1 for u in comps] == codes[0][1]
    assert codes[0] != codes[1]                            # these dice tell +2 from no modifier


def test_rule_21_12_22_26_named_battalion_needs_its_marker():
    """Rules 21.12, 22.26: German sticks may not jump while the Ramcke marker is
    not on the map, so without it Ram 1/2 stays in the Disbandment Box on
    30 June AM (and no other stick jumps in its place)."""
    g, pol = _intro(n_sticks=1)
    g.state.dz_hex[0, RAMCKE] = -1
    airborne.airborne_landing_phase(g)
    assert not _rows(g, "stick_drop")
    assert g.state.box[g.static.unit("axis.ram.1_2")] == BOX_DISBANDMENT


class _AllSticks(_Solo):
    """:class:`_Solo` asking for as many sticks as the turn allows (21.12)."""

    def solitaire_n_sticks(self, game, turn, max_n):
        self.sticks_max.append(int(max_n))
        return int(max_n)


def _all_sticks_game(turn, drop=()):
    """Solo Hercules at ``turn`` with both markers down and the pieces named in
    ``drop`` eliminated; the player asks for every allowed stick."""
    g, _ = _game(turn, markers={RAMCKE: "1313", FOLGORE: "1813"})
    g.policies = (_AllSticks(g), g.policies[ALLIED])
    t = g.static
    for name in drop:
        g.state.box[t.unit(name)] = BOX_ELIMINATED
    return g


@pytest.mark.parametrize("turn, drop, broken, want", [
    # 29 June AM (3 Ramcke, 4 Folgore sticks of 7, no artillery, 22.35): the two
    # HQ sticks first, then the battalions by lowest piece, a battalion broken
    # down in the box (its companies, the lowest pieces) before the others
    (AM, (), "axis.ram.1_2",
     ["axis.ram.ldr.ramcke", "axis.185.ldr.frattini", "axis.ram.1_2.a", "axis.ram.1_3",
      "axis.185.v_186", "axis.185.vi_186", "axis.185.vii_186"]),
    # 29 June PM (2 a formation): Ramcke without engineers or battalions (a
    # returning HQ, lower pieces, and its artillery) after the Folgore HQ
    # stick and the Folgore battalion
    (PM, ("axis.ram.eng", "axis.ram.1_2", "axis.ram.1_3", "axis.ram.2_5", "axis.ram.ram"), None,
     ["axis.185.ldr.frattini", "axis.185.v_186", "axis.ram.ldr.ramcke", "axis.ram.art"]),
    # the returning Folgore HQ before the Ramcke artillery, a lower piece
    (PM, ("axis.ram.ldr.ramcke", "axis.ram.hq", "axis.ram.eng", "axis.ram.1_2", "axis.ram.1_3",
          "axis.ram.2_5", "axis.ram.ram", "axis.185.viii_eng.1", "axis.185.viii_eng.2", "axis.185.v_186",
          "axis.185.vi_186", "axis.185.vii_186", "axis.185.ii_187", "axis.185.iv_187", "axis.185.ix_187"), None,
     ["axis.185.ldr.frattini", "axis.ram.art", "axis.185.art_1"]),
])
def test_rule_21_12_engine_takes_sticks_hq_battalions_returning_artillery(turn, drop, broken, want):
    """Rule 21.12 leaves to the player which eligible sticks jump and in what
    order; the engine's reading (docs/rules_coverage.csv, 21.12): the HQ
    with its engineers, then the paratroop battalions, then a returning HQ
    or leader, then the artillery, each kind by its lowest piece, within the
    per-formation and per-turn limits (22.35)."""
    from malta_sim.iod.rules import organisation

    g = _all_sticks_game(turn, drop)
    if broken:
        organisation.break_down(g, g.static.unit(broken))        # in the Disbandment Box (13.1)
    airborne.airborne_landing_phase(g)
    got = [r["units"].split()[0] for r in _rows(g, "stick_drop")]
    assert [x[:len(w)] for x, w in zip(got, want)] == want and len(got) == len(want)
