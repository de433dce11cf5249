"""Activation (rules 4.3-4.5, 7): the cup, pool and pass, Army units, sectors;
exact Markov chain vs closed forms vs Monte Carlo (statistical, fixed seeds)."""

import numpy as np
import pytest
from scipy.stats import binomtest, chisquare

from malta_sim.errors import OptionError
from malta_sim.games.invasion_malta import activation as ac
from malta_sim.games.invasion_malta import examples as ex
from malta_sim.games.invasion_malta import setup as su
from malta_sim.games.invasion_malta import sequence as sq
from malta_sim.games.invasion_malta import units as un
from malta_sim.games.invasion_malta.terrain import SECTORS
from malta_sim.rng import generator

AX = ["7", "O", "R", "St", "Fo", "F", "L", "M"]


def cup(ax=AX, al=SECTORS, air=2):
    pieces = [ac.PieceType(0, ac.AM, f) for f in ax] + [ac.PieceType(1, ac.AM, s) for s in al]
    pieces += [ac.PieceType(0, ac.AIR, "CAS")] * air
    return ac.Cup.from_pieces(pieces)


def livorno_units():
    rows = [dict(id=f"L{k}", side="Axis", nat="I", formation="L", er=6) for k in range(3)]
    rows += [dict(id=f"Fo{k}", side="Axis", nat="I", formation="Fo", er=7) for k in range(2)]
    rows += [dict(id=f"A{k}", side="Axis", nat="G", formation="", army=True, er=7, armored=True, ma_class="red")
             for k in range(5)]
    return un.make_units(rows)


def test_rule_4_42_livorno_example_with_army_units():
    """Rule 4.42 example: the Livorno AM is drawn; the Axis plays it, activating all
    Livorno units plus Army units he chooses (at most four, 7.23); or he passes."""
    u = livorno_units()
    p = un.Position.fresh(u)
    c = ac.Cup.from_pieces([ac.PieceType(0, ac.AM, "L"), ac.PieceType(0, ac.AM, "Fo"), ac.PieceType(1, ac.AM, "Central")])
    k = c.types.index(ac.PieceType(0, ac.AM, "L"))
    after = (0, 1, 1)
    ev, pools = ac.resolve_draw(c, k, after, (-1, -1), (ac.ALWAYS_PLAY, ac.ALWAYS_PLAY))
    assert ev == [("draw", 0, "L"), ("act", 0, "L")] and pools == (-1, -1)
    active = ac.formation_units(u, p, 0, "L", np.zeros(0, np.int8))
    assert [u.ids[x] for x in active] == ["L0", "L1", "L2"]  # only Livorno, not Folgore, not Army
    army = [u.index(f"A{k}") for k in range(4)]
    assert ac.activate_army_units(u, p, army) == army and p.activated[army].all()
    # an activated Army unit joins the active formation: it can be the Lead unit (7.24, 3.74)
    from malta_sim.games.invasion_malta.efficiency import lead_candidates
    cands = lead_candidates(u, p, [u.index("L0"), army[0], u.index("A4"), u.index("Fo0")], "L", p.activated)
    assert cands == [u.index("L0"), army[0]]
    with pytest.raises(OptionError):  # already activated this turn (7.22)
        ac.activate_army_units(u, p, [army[0]])
    with pytest.raises(OptionError):  # not an Army unit
        ac.activate_army_units(u, p, [u.index("Fo0")])
    # the Pass option: Livorno goes to the Activation Pool, nothing activates
    hold = ac.HoldPolicy(hold=frozenset({"L"}))
    ev, pools = ac.resolve_draw(c, k, after, (-1, -1), (hold, ac.ALWAYS_PLAY))
    assert ev == [("draw", 0, "L"), ("pass", 0, "L")] and pools == (k, -1)


def test_rule_7_23_at_most_four_army_units_per_activation():
    u = livorno_units()
    army = [u.index(f"A{k}") for k in range(5)]
    p = un.Position.fresh(u)
    with pytest.raises(OptionError, match="7.23"):
        ac.activate_army_units(u, p, army)  # five fresh Army units: one too many
    assert not p.activated.any()  # refused whole, nothing marked
    assert ac.activate_army_units(u, p, army[:4]) == army[:4] and p.activated[army[:4]].all()
    assert not p.activated[army[4]]
    # the fifth may go with a later formation's activation (7.21)
    assert ac.activate_army_units(u, p, [army[4]]) == [army[4]] and p.activated[army].all()


def test_rule_7_14_b_note_4_no_pass_with_the_last_am():
    """A player holding every AM he can (pass policy) still plays his last one at once:
    no Pass event, the Activation Pool stays empty."""
    c = cup(ax=["L"], al=["Central", "Western"], air=1)
    hold = ac.HoldPolicy(hold=frozenset({"L"}))
    kL = c.types.index(ac.PieceType(0, ac.AM, "L"))
    counts = list(c.counts)
    counts[kL] -= 1
    ev, pools = ac.resolve_draw(c, kL, tuple(counts), (-1, -1), (hold, ac.ALWAYS_PLAY))
    assert ev == [("draw", 0, "L"), ("act", 0, "L")] and pools == (-1, -1)
    # with a second Axis AM still in the cup the same player does pass (7.14 B)
    c2 = cup(ax=["L", "Fo"], al=["Central"], air=0)
    k2 = c2.types.index(ac.PieceType(0, ac.AM, "L"))
    after = tuple(n - (i == k2) for i, n in enumerate(c2.counts))
    ev, pools = ac.resolve_draw(c2, k2, after, (-1, -1), (hold, ac.ALWAYS_PLAY))
    assert ev == [("draw", 0, "L"), ("pass", 0, "L")] and pools == (k2, -1)
    # in whole segments: the lone Livorno AM is never passed, however the draw falls
    rng = generator(9, 0, "activation")
    for _ in range(40):
        ev = ac.simulate_segment(c, rng, (hold, ac.ALWAYS_PLAY))
        assert ("pass", 0, "L") not in ev and ev.count(("act", 0, "L")) == 1


def test_rule_7_14_no_pass_with_last_am_and_7_15_pool_choice():
    c = cup(ax=["L", "Fo"], al=["Central"], air=0)
    hold = ac.HoldPolicy(hold=frozenset({"L", "Fo"}))
    kL, kF = c.types.index(ac.PieceType(0, ac.AM, "L")), c.types.index(ac.PieceType(0, ac.AM, "Fo"))
    # last Axis AM drawn with an empty pool: must play
    ev, pools = ac.resolve_draw(c, kL, (0, 0, 1), (-1, -1), (hold, ac.ALWAYS_PLAY))
    assert ev[-1] == ("act", 0, "L")
    # drawn with Fo in the pool: one is played, no pass; last AM so the pool is emptied too (7.17)
    ev, pools = ac.resolve_draw(c, kL, (0, 0, 1), (kF, -1), (hold, ac.ALWAYS_PLAY))
    assert [e for e in ev if e[0] == "act"] == [("act", 0, "Fo"), ("act", 0, "L")] and pools == (-1, -1)
    # pool never holds more than one AM (7.15)
    rng = generator(4, 0, "activation")
    big = cup()
    for _ in range(50):
        ev = ac.simulate_segment(big, rng, (ac.HoldPolicy(frozenset(AX[:4])), ac.HoldPolicy(frozenset({"Central"}))))
        acts = [e for e in ev if e[0] == "act"]
        assert sorted((e[1], e[2]) for e in acts) == sorted((t.side, t.name) for t in big.types if t.kind == ac.AM)
        assert sum(e[0] == "draw" for e in ev) == big.total  # all pieces drawn (7.16)


def test_rule_7_11_build_cup_and_4_43_4_51_availability():
    forms = [ac.FormationDef(0, "L", "Livorno"), ac.FormationDef(0, "Fo", "Folgore", night_markers=1),
             ac.FormationDef(1, "Central", "Central"), ac.FormationDef(1, "Western", "Western")]
    u = livorno_units()
    p = un.Position.fresh(u)
    p.steps[[u.index("Fo0"), u.index("Fo1")]] = 0  # Folgore removed from play: its AM leaves (4.43)
    sector_of = np.array([1, 1, 0], dtype=np.int8)  # three hexes: Central, Central, Western
    allied = un.make_units([dict(id="x", side="Allied")])
    av = ac.available_formations(forms, u, p, sector_of)
    assert [f.code for f in av] == ["L"]
    # an Allied sector needs an Allied unit in it (4.51)
    pa = un.Position.fresh(allied)
    pa.hex[0] = 0
    assert [f.code for f in ac.available_formations(forms, allied, pa, sector_of)] == ["Central"]
    c_day = ac.build_cup(forms, [(0, "Ju87")], night=False)
    c_night = ac.build_cup(forms, [(0, "Ju87")], night=True)
    assert c_day.total == 5 and c_night.total == 5  # night: +1 Folgore "Night Turns" AM, no air unit


def test_rule_4_52_sector_change_gets_activated_marker():
    m = ex.block_map()
    u = ex.example_units()
    p = ex.place(m, u, {"B/3 KOMR": "1121"})
    sector_of = np.full(m.n, 1, np.int8)
    sector_of[m.idx("1122")] = 0
    k = u.index("B/3 KOMR")
    assert list(ac.formation_units(u, p, 1, "Central", sector_of)) == [k]
    start = {k: 1}
    p.hex[k] = m.idx("1122")
    assert ac.sector_change(u, p, [k], start, sector_of) == [k] and p.activated[k]
    assert list(ac.formation_units(u, p, 1, "Western", sector_of)) == []  # cannot move again this turn


def test_exact_chain_matches_closed_forms_without_passes():
    c = cup(ax=["L", "Fo", "F"], al=["Central", "Western"], air=2)
    d = ac.exact_distribution(c, ac.Before((0, "L"), (1, "Central")))
    assert d["A"] == pytest.approx(ac.p_before_closed(1, 1))
    for side, s in ((0, 3), (1, 2)):
        e = ac.expected_value(ac.exact_distribution(c, ac.FirstAct(side)))
        assert e == pytest.approx(ac.expected_first_closed(c.total, s))
    e = ac.expected_value(ac.exact_distribution(c, ac.Runs("count")))
    assert e == pytest.approx(ac.expected_runs_closed(3, 2))
    two = ac.Cup.from_pieces([ac.PieceType(0, ac.AM, "Fo")] * 2 + [ac.PieceType(1, ac.AM, "Central")])
    assert ac.exact_distribution(two, ac.Before((0, "Fo"), (1, "Central")))["A"] == pytest.approx(2 / 3)


def test_exact_vs_monte_carlo_with_pass_policy():
    """Statistical agreement of the exact chain and the simulator when players pass.

    Binomial test on P(Livorno acts before Central) and chi-square goodness of fit
    on the draw of the Allied first activation; each false-alarm rate 0.001
    (fixed seeds, so the outcome is deterministic)."""
    c = cup(ax=["L", "Fo", "F", "M"], al=["Central", "Western"], air=2)
    pol = (ac.HoldPolicy(frozenset({"L"}), priority=("Fo",)), ac.HoldPolicy(frozenset({"Central"})))
    n = 6000
    tr = ac.Before((0, "L"), (1, "Central"))
    pe = ac.exact_distribution(c, tr, pol)["A"]
    mc = ac.monte_carlo(c, tr, n, seed=11, policies=pol)
    assert binomtest(int(round(mc.get("A", 0) * n)), n, pe).pvalue > 1e-3
    tr2 = ac.FirstAct(1)
    de = ac.exact_distribution(c, tr2, pol)
    dm = ac.monte_carlo(c, tr2, n, seed=12, policies=pol)
    keys = sorted(de)
    obs = np.array([dm.get(k, 0) * n for k in keys])
    exp = np.array([de[k] * n for k in keys])
    # pool tiny cells into their neighbour so expected counts are >= 5
    keep = exp >= 5
    obs2 = np.append(obs[keep], obs[~keep].sum())
    exp2 = np.append(exp[keep], exp[~keep].sum())
    if exp2[-1] == 0:
        obs2, exp2 = obs2[:-1], exp2[:-1]
    assert chisquare(obs2, exp2 * obs2.sum() / exp2.sum()).pvalue > 1e-3
    # passing changes the answer: holding Livorno delays it
    assert pe < ac.exact_distribution(c, tr)["A"]


def test_rule_4_1_group_b_placement():
    m = ex.block_map()
    u = ex.example_units()
    kom, cdo, tank = u.index("B/3 KOMR"), u.index("Cdo"), u.index("Matilda")
    h = m.idx("1424")
    with pytest.raises(OptionError):
        su.check_group_b(u, {kom: h, cdo: h}, [kom, cdo, tank], m.land)
    su.check_group_b(u, {kom: h, tank: h}, [kom, cdo, tank], m.land)
    pos, log = su.place_scenario(u, m.n, {}, lambda: {kom: h, cdo: m.idx("1425")}, [kom, cdo], m.land,
                                 disrupted=[cdo])
    assert log == list(su.PLACEMENT_STEPS) and pos.disrupted[cdo] and pos.steps[kom] == u.max_steps[kom]
    gb = su.dispersed_group_b(u, [kom, cdo, tank], [m.idx("1424"), m.idx("1425")], generator(1, 0, "setup"))
    assert gb[kom] != gb[cdo]


def test_rule_4_21_turn_outline():
    assert [s for s, _ in sq.SEQUENCE_OF_PLAY] == ["strategic", "operations", "reorganization"]
    assert sq.phases(1)[0] == ("strategic", "weather") and sq.phases(1)[-1] == ("reorganization", "victory_conditions")
    assert sq.GROUND_SEQUENCE[2] == "movement" and len(sq.GROUND_SEQUENCE) == 8
    assert [sq.turn_part(t) for t in (1, 2, 3, 4)] == ["AM", "PM", "Night", "AM"] and sq.is_night(3)


def test_rule_4_43_unavailable_formation_leaves_cup_and_pool():
    c = cup(ax=["L", "Fo"], al=["Central", "Western"], air=1)
    counts = list(c.counts)
    kL = c.types.index(ac.PieceType(0, ac.AM, "L"))
    kW = c.types.index(ac.PieceType(1, ac.AM, "Western"))
    avail = {(0, "Fo"), (1, "Central"), (1, "Western")}
    counts, pools, removed = ac.remove_unavailable(c, counts, (kL, -1), avail)
    assert removed == [(0, "L"), (0, "L")] and pools == (-1, -1) and counts[kL] == 0  # from the cup and the pool
    counts, pools, removed = ac.remove_unavailable(c, list(c.counts), (-1, -1), {(0, "Fo"), (0, "L"), (1, "Central")})
    assert removed == [(1, "Western")] and counts[kW] == 0 and sum(counts) == c.total - 1


def test_exact_chain_equals_brute_force_enumeration():
    """Oracle: every ordering of a small cup (all equally likely, rule 7.13) run
    through resolve_draw, vs the lumped Markov chain."""
    import itertools
    from collections import Counter

    pieces = [ac.PieceType(0, ac.AM, f) for f in ("L", "Fo", "F")] + [ac.PieceType(1, ac.AM, s) for s in ("Central", "Western")]
    pieces += [ac.PieceType(0, ac.AIR, "CAS")]
    c = ac.Cup.from_pieces(pieces)
    pol = (ac.HoldPolicy(frozenset({"L"})), ac.HoldPolicy(frozenset({"Western"})))
    for tr in (ac.Before((0, "Fo"), (1, "Central")), ac.FirstAct(1), ac.Runs("longest")):
        tally = Counter()
        perms = list(itertools.permutations(range(len(pieces))))
        for perm in perms:
            counts = list(c.counts)
            pools = (-1, -1)
            st = tr.init()
            for i in perm:
                k = c.types.index(pieces[i])
                counts[k] -= 1
                ev, pools = ac.resolve_draw(c, k, tuple(counts), pools, pol)
                st = ac.apply(tr, st, ev)
            tally[tr.value(st)] += 1
        brute = {k: v / len(perms) for k, v in tally.items()}
        exact = ac.exact_distribution(c, tr, pol)
        assert set(brute) == set(exact) and all(abs(brute[k] - exact[k]) < 1e-12 for k in brute)


def test_rule_4_43_pools_of_both_sides_and_empty_types():
    c = cup(ax=["L", "Fo"], al=["Central", "Western"], air=0)
    counts = list(c.counts)
    kL = c.types.index(ac.PieceType(0, ac.AM, "L"))
    kW = c.types.index(ac.PieceType(1, ac.AM, "Western"))
    counts[kL] = 0  # already drawn: nothing left to take out of the cup
    counts, pools, removed = ac.remove_unavailable(c, counts, (-1, kW), {(0, "Fo"), (1, "Central")})
    assert removed == [(1, "Western"), (1, "Western")] and pools == (-1, -1)  # cup and Allied pool
    assert counts[kW] == 0 and sum(counts) == 2


def test_rule_4_51_allied_sectors_count_allied_units_only():
    forms = [ac.FormationDef(1, "Central", "Central"), ac.FormationDef(1, "Western", "Western"),
             ac.FormationDef(0, "L", "Livorno")]
    u = un.make_units([dict(id="al", side="Allied"), dict(id="ax", side="Axis", formation="L"),
                       dict(id="act", side="Allied"), dict(id="off", side="Allied")])
    p = un.Position.fresh(u)
    sector_of = np.array([1, 0, 1], dtype=np.int8)  # Central, Western, Central
    p.hex[:] = [0, 1, 2, -1]  # an Axis unit alone in the Western sector
    p.activated[2] = True
    assert [f.code for f in ac.available_formations(forms, u, p, sector_of)] == ["Central", "L"]
    # the Central AM activates the Allied units now in Central without an Activated marker (4.52)
    assert list(ac.formation_units(u, p, 1, "Central", sector_of)) == [0]
    assert list(ac.formation_units(u, p, 1, "Western", sector_of)) == []
    p.steps[1] = 0  # Livorno's only unit removed from play (4.43)
    assert [f.code for f in ac.available_formations(forms, u, p, sector_of)] == ["Central"]


def test_rule_4_52_only_allied_units_that_change_sector():
    u = un.make_units([dict(id="a", side="Allied"), dict(id="b", side="Allied"), dict(id="x", side="Axis"),
                       dict(id="c", side="Allied")])
    p = un.Position.fresh(u)
    sector_of = np.array([0, 1, 2], dtype=np.int8)
    p.hex[:] = [1, 0, 1, -1]
    start = {0: 0, 1: 0, 2: 0, 3: 1}  # a moved from sector 0 to 1; b stayed; x is Axis; c left the map
    assert ac.sector_change(u, p, [0, 1, 2, 3], start, sector_of) == [0]
    assert list(p.activated) == [True, False, False, False]
    p.hex[1] = 0
    assert ac.sector_change(u, p, [1], {}, sector_of) == [1]  # no start sector known: it changed


def test_rule_7_22_army_units_in_play_only():
    u = livorno_units()
    p = un.Position.fresh(u)
    a0, a1 = u.index("A0"), u.index("A1")
    p.steps[a0] = 0
    with pytest.raises(OptionError, match="not in play"):
        ac.activate_army_units(u, p, [a0])
    p.steps[a1] = 1  # a reduced Army unit is still in play
    assert ac.activate_army_units(u, p, [a1]) == [a1]


def test_exact_chain_state_limit():
    two = ac.Cup.from_pieces([ac.PieceType(0, ac.AM, "L"), ac.PieceType(1, ac.AM, "Central")])
    tr = ac.Before((0, "L"), (1, "Central"))
    # three states: the full cup, then L drawn first (decided) or Central first (decided)
    assert ac.exact_distribution(two, tr, max_states=3) == {"A": 0.5, "B": 0.5}
    with pytest.raises(OptionError, match="exceeds 2"):
        ac.exact_distribution(two, tr, max_states=2)


def test_rule_4_14_placement_of_groups():
    m = ex.block_map()
    u = ex.example_units()
    kom, cdo, para = u.index("B/3 KOMR"), u.index("Cdo"), u.index("5/3")
    pos, log = su.place_scenario(u, m.n, {kom: m.idx("1424")}, lambda: {cdo: m.idx("1425")}, [cdo], m.land,
                                 axis_on_map={para: m.idx("1121")})
    assert pos.hex[kom] == m.idx("1424") and pos.hex[cdo] == m.idx("1425") and pos.hex[para] == m.idx("1121")
    assert log == list(su.PLACEMENT_STEPS) and not pos.disrupted.any()
    with pytest.raises(OptionError, match="Group A"):
        su.place_scenario(u, m.n, {para: m.idx("1424")}, lambda: {}, [], m.land)
