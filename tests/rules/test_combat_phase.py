"""The combat phase as a whole (rules 9.2-9.3 with 10.1, 12.51-12.52, 16.74): the
active player's plan, the defensive support the other player may place and its limits,
the bombardments, then the attacks one hex at a time until the active player stops, on
constructed positions played through :func:`malta_sim.iod.rules.combat.combat_phase`.
"""

from __future__ import annotations

import ast

import pytest

from malta_sim.bots.base import CombatPlan
from malta_sim.iod.game import IllegalDecision
from malta_sim.iod import static as st
from malta_sim.iod.rules import combat
from malta_sim.iod.state import ALLIED, AXIS, DEMORALIZED, NORMAL

from tests.conftest import h, make, Scripted, static, u


class _Phase(Scripted):
    """A bot of the combat phase: its plan (9.2 a) is ``plan`` (a function of
    the options, default none), its defensive support (9.2 b) ``dsup`` (a
    function of the options, default none); it attacks with ``order`` (a list
    of (hex, [units])) in turn and then passes. It records the attack offers
    (``offers``), the penetration offers (``pen_offers``) and the defensive
    support options (``dopts``)."""

    def __init__(self, side, order=(), plan=None, dsup=None):
        super().__init__(side)
        self.order, self.plan, self.dsup = list(order), plan, dsup
        self.offers: list = []
        self.pen_offers: list = []
        self.dopts: list = []
        self.plans = 0

    def combat_plan(self, game, options):
        self.plans += 1
        return self.plan(options) if self.plan else CombatPlan()

    def defensive_support(self, game, options):
        self.dopts.append({int(k): sorted(int(x) for x in v) for k, v in options.items()})
        return self.dsup(options) if self.dsup else {}

    def next_attack(self, game, options, penetration=False):
        rec = {int(k): sorted(int(x) for x in v) for k, v in options.items()}
        if penetration:
            self.pen_offers.append(rec)
            return None
        self.offers.append(rec)
        return self.order.pop(0) if self.order else None


def _rows(g, action):
    return [r for r in g.events.rows if r["action"] == action]


def _attack_row(g):
    """The one logged attack: (attack total, defense total, modifiers)."""
    rows = _rows(g, "attack")
    assert len(rows) == 1
    words = rows[0]["result"].split()
    mods = ast.literal_eval(rows[0]["result"].split("mods ", 1)[1])
    return int(words[words.index("att") + 1]), int(words[words.index("def") + 1]), mods


# -------------------------------------------------------------- 9.2 a-c, 9.3: one attack
def test_rule_9_2_planned_support_and_defensive_support_fire_in_the_attack():
    """Rules 9.2 and 12.51: the 4th Division's 1/34 (attack 6) attacks the
    British 8M (defense 6) with its division's artillery (support 6) placed in
    step a, no fire hurricane and no air support; the British battery (defense
    support 3) placed in step b supports the defense. The attack reads 12
    against 9 with no modifier, the Axis gun spends one salvo (12.51) and
    stays in good order, and the British gun rolls for its salvo."""
    art, inf, gb = u("axis.4.art_28"), u("axis.4.1_34"), u("allied.uk.art_12")
    tgt = h("1311")
    axis = _Phase(AXIS, order=[(tgt, [inf])], plan=lambda o: CombatPlan(support={tgt: [art]}))
    ally = _Phase(ALLIED, dsup=lambda o: {tgt: [gb]})
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"], "1309": ["axis.4.art_28"],
              "1312": ["allied.uk.art_12"]}, policies=(axis, ally))
    combat.combat_phase(g, AXIS)
    assert ally.dopts == [{tgt: [gb]}]
    att, dfn, mods = _attack_row(g)
    assert (att, dfn) == (12, 9)
    assert mods.get("air_support", 0) == 0
    assert g.state.salvos[art] == 1 and g.state.morale_state[art] == NORMAL and g.state.fired[art]
    assert len(_rows(g, "defensive fire ammunition")) == 1


def test_rule_9_2_bombardment_spends_one_salvo_without_a_fire_hurricane():
    """Rules 10.12 and 12.51-12.52: two battalions bombard 1311 in step c, the
    4th Division's battery supports the attack with a fire hurricane; the
    bombarding guns fire no hurricane, so each spends one salvo and stays in
    good order, while the hurricane gun spends both and is disorganized."""
    b1, b2, art, inf = u("axis.185.art_1"), u("axis.185.art_2"), u("axis.4.art_28"), u("axis.4.1_34")
    tgt = h("1311")
    plan = lambda o: CombatPlan(support={tgt: [art]}, bombard={tgt: [b1, b2]}, hurricane={art})
    axis = _Phase(AXIS, order=[(tgt, [inf])], plan=plan)
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"], "1309": ["axis.4.art_28"],
              "1209": ["axis.185.art_1", "axis.185.art_2"]}, policies=(axis, _Phase(ALLIED)))
    combat.combat_phase(g, AXIS)
    assert len(_rows(g, "bombardment")) == 1
    for b in (b1, b2):
        assert g.state.salvos[b] == 1 and g.state.morale_state[b] == NORMAL
    assert g.state.salvos[art] == 0 and g.state.morale_state[art] != NORMAL


def test_rule_10_1_bombardment_without_any_attack():
    """Rules 9.2 c and 10.1: at night the demoralized Axis battalion next to the
    British 8M may not attack (10.21) but discovers it (10.11); the battery two
    hexes away bombards it though no attack is possible this phase."""
    gun, inf = u("axis.185.art_1"), u("axis.4.1_34")
    tgt = h("1311")
    axis = _Phase(AXIS, plan=lambda o: CombatPlan(bombard={tgt: [gun]}))
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"], "1309": ["axis.185.art_1"]},
             turn=7, policies=(axis, _Phase(ALLIED)))
    g.state.morale_state[inf] = DEMORALIZED
    opts = combat.plan_options(g, AXIS)
    assert not opts.attack_targets and gun in opts.bombard[tgt]
    combat.combat_phase(g, AXIS)
    assert axis.plans == 1
    assert len(_rows(g, "bombardment")) + len(_rows(g, "bombardment ineffective")) == 1
    assert g.state.fired[gun] and g.state.salvos[gun] == 1


def test_rule_10_1_allied_bombardment_in_the_allied_combat_phase():
    """Rule 10.1 for the Allies: the British battery bombards the Axis battalion
    next to the British 8M; the Axis hex is bombarded once."""
    gb = u("allied.uk.art_12")
    tgt = h("1310")
    ally = _Phase(ALLIED, plan=lambda o: CombatPlan(bombard={tgt: [gb]}))
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"], "1312": ["allied.uk.art_12"]},
             policies=(_Phase(AXIS), ally))
    assert gb in combat.plan_options(g, ALLIED).bombard[tgt]
    combat.combat_phase(g, ALLIED)
    rows = _rows(g, "bombardment") + _rows(g, "bombardment ineffective")
    assert len(rows) == 1 and rows[0]["side"] == "allied" and rows[0]["hexes"] == "1310"
    assert g.state.bombardments[0, ALLIED] == 1 and g.state.salvos[gb] == 1


def test_rule_9_3_the_attacks_end_when_the_active_player_passes():
    """Rule 9.3: attacks are made one hex at a time as long as the active player
    chooses to; once it passes it is not asked again in that phase."""
    axis = _Phase(AXIS)
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"]}, policies=(axis, _Phase(ALLIED)))
    combat.combat_phase(g, AXIS)
    assert axis.offers == [{h("1311"): [u("axis.4.1_34")]}]
    assert not _rows(g, "attack")


def test_rule_9_3_an_attack_on_a_hex_not_offered_or_without_units_is_refused():
    """Rules 9.11 and 9.3: an attack on a hex no unit can attack, or with no
    attacking unit, is an illegal decision."""
    inf = u("axis.4.1_34")
    place = {"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"], "1714": ["allied.uk.4b"]}
    for pick in ((h("1714"), [inf]), (h("1311"), [])):
        g = make(place, policies=(_Phase(AXIS, order=[pick]), _Phase(ALLIED)))
        with pytest.raises(IllegalDecision, match="9.3"):
            combat.combat_phase(g, AXIS)


def test_rule_10_3_no_penetration_after_a_combat_phase_without_advance():
    """Rules 9.88 and 10.3: only units that advanced after combat in the
    combat phase just played may attempt penetration; the 4th Division
    battalions with their leader did not attack, so none is offered."""
    axis = _Phase(AXIS)
    g = make({"1310": ["axis.4.1_34", "axis.4.3_34", "axis.4.ldr.chirelson"], "1311": ["allied.uk.8m"]},
             policies=(axis, _Phase(ALLIED)))
    combat.combat_phase(g, AXIS)
    assert len(axis.offers) == 1
    combat.penetration_phase(g, AXIS)
    assert axis.pen_offers == []


# -------------------------------------------------------------- 9.2 b: defensive support
#: the Allied 8M in 1311 attacks the Axis 1/34 in 1310; four Italian warships
#: at sea and four Axis batteries are in range of 1310 and may support its defense
_SHIPS = ["axis.rm.trieste", "axis.rm.gorizia", "axis.rm.cadorna", "axis.rm.garibaldi"]
_GUNS = ["axis.ram.art", "axis.185.art_1", "axis.185.art_2", "axis.4.art_28"]


def _allied_attack(dsup):
    """Play the Allied combat phase (the 8M attacks 1310) with the Axis
    defensive support ``dsup`` (names); returns the game."""
    tgt = h("1310")
    ally = _Phase(ALLIED, order=[(tgt, [u("allied.uk.8m")])])
    axis = _Phase(AXIS, dsup=lambda o: {tgt: [u(x) for x in dsup]})
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"], "1307": _SHIPS[:2], "1407": _SHIPS[2:],
              "1309": _GUNS[1:], "1209": _GUNS[:1]}, policies=(axis, ally))
    combat.combat_phase(g, ALLIED)
    offered = axis.dopts[0][tgt]
    assert all(u(x) in offered for x in _SHIPS + _GUNS)
    return g


def test_rule_16_74_two_warships_may_support_a_defense():
    """Rule 16.74: two warships may support the defense of a hex; both roll
    for their communications (16.73)."""
    g = _allied_attack(_SHIPS[:2])
    assert len(_rows(g, "warship communications")) == 2


def test_rule_16_74_three_warships_may_not_support_a_defense():
    """Rule 16.74: no more than two warships support one defense."""
    with pytest.raises(IllegalDecision, match="16.74"):
        _allied_attack(_SHIPS[:3])


def test_rule_16_74_warship_and_artillery_may_not_support_the_same_defense():
    """Rule 16.74: one warship and one battery may not support the same defense."""
    with pytest.raises(IllegalDecision, match="16.74"):
        _allied_attack(_SHIPS[:1] + _GUNS[:1])


def test_rule_9_2_three_batteries_may_support_a_defense():
    """Rules 9.2 b and 12.21: any number of batteries may support a defense
    (their total is capped, not their number); each rolls for its salvo
    (12.51)."""
    g = _allied_attack(_GUNS[1:])
    assert len(_rows(g, "defensive fire ammunition")) == 3


def test_rule_9_2_defensive_support_only_from_the_units_offered_and_once():
    """Rule 9.2 b: a unit not offered for a hex (here an Allied company) may
    not support its defense, and no unit supports two hexes."""
    tgt = h("1310")
    ally = _Phase(ALLIED, order=[(tgt, [u("allied.uk.8m")])])
    axis = _Phase(AXIS, dsup=lambda o: {tgt: [u("axis.4.art_28"), u("allied.uk.inf_coy.1")]})
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"], "1309": ["axis.4.art_28"],
              "1714": ["allied.uk.inf_coy.1"]}, policies=(axis, ally))
    with pytest.raises(IllegalDecision, match="9.2"):
        combat.combat_phase(g, ALLIED)
    # two threatened Axis hexes, one battery in range of both, placed on both
    a, b = h("1310"), h("1312")
    gun = u("axis.4.art_28")
    ally = _Phase(ALLIED, order=[(a, [u("allied.uk.8m")])])
    axis = _Phase(AXIS, dsup=lambda o: {a: [gun], b: [gun]})
    g = make({"1310": ["axis.4.1_34"], "1312": ["axis.4.2_34"], "1311": ["allied.uk.8m"],
              "1309": ["axis.4.art_28"]}, policies=(axis, ally))
    with pytest.raises(IllegalDecision, match="9.2"):
        combat.combat_phase(g, ALLIED)
    assert gun in axis.dopts[0][a] and gun in axis.dopts[0][b]


# -------------------------------------------------------------- 9.2 a: the plan's options
def test_rule_16_41_air_support_markers_offered_to_the_axis_by_day_only():
    """Rule 16.41: the Axis plan may use the air support markers left for the
    day; none on a night turn, and the Allies have none."""
    place = {"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"]}
    g = make(place)
    g.state.air_support_left[0] = 3
    assert combat.plan_options(g, AXIS).air_markers == 3
    assert combat.plan_options(g, ALLIED).air_markers == 0
    g = make(place, turn=7)
    g.state.air_support_left[0] = 3
    assert combat.plan_options(g, AXIS).air_markers == 0


def test_rule_12_52_16_78_fire_hurricane_offered_to_artillery_with_two_salvos():
    """Rules 12.52 and 16.78: a battery with two salvos may fire a fire
    hurricane, one with a single salvo may not, nor may a warship."""
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"], "1309": ["axis.4.art_28", "axis.185.art_1"],
              "1307": ["axis.rm.trieste"]})
    two, one, ship = u("axis.4.art_28"), u("axis.185.art_1"), u("axis.rm.trieste")
    g.state.salvos[one] = 1
    opts = combat.plan_options(g, AXIS)
    assert {two, one, ship} <= set(opts.support[h("1311")])
    assert opts.hurricane_ok == {two}


def test_rule_9_2_plan_refuses_pieces_not_offered_placed_twice_or_air_off_target():
    """Rules 9.2 a, 10.1, 16.42 and 12.52: the plan may only place a piece
    offered for that hex, each piece once (support or bombardment), air
    support only on a hex that can be attacked, and a fire hurricane only by
    a battery that may fire one and fires in the plan."""
    g = make({"1310": ["axis.4.1_34"], "1311": ["allied.uk.8m"], "1309": ["axis.4.art_28", "axis.185.art_1"],
              "1714": ["allied.uk.4b"]})
    g.state.air_support_left[0] = 3
    art, other = u("axis.4.art_28"), u("axis.185.art_1")
    tgt = h("1311")
    opts = combat.plan_options(g, AXIS)
    assert art in opts.support[tgt] and art in opts.bombard[tgt] and h("1714") not in opts.bombard
    combat._validate_plan(g, AXIS, CombatPlan(support={tgt: [art]}, air={tgt: 2}, hurricane={art}), opts)
    bad = [
        ("9.2", CombatPlan(bombard={h("1714"): [art]})),
        ("9.2", CombatPlan(support={tgt: [u("axis.4.1_34")]})),
        ("10.1", CombatPlan(support={tgt: [art]}, bombard={tgt: [art]})),
        ("16.42", CombatPlan(air={h("1714"): 1})),
        ("16.41", CombatPlan(air={tgt: 4})),
        ("12.52", CombatPlan(support={tgt: [other]}, hurricane={art})),
    ]
    for rule, plan in bad:
        with pytest.raises(IllegalDecision, match=rule.replace(".", r"\.")):
            combat._validate_plan(g, AXIS, plan, opts)
    g.state.salvos[art] = 1
    opts = combat.plan_options(g, AXIS)
    with pytest.raises(IllegalDecision, match=r"12\.52"):
        combat._validate_plan(g, AXIS, CombatPlan(support={tgt: [art]}, hurricane={art}), opts)


# -------------------------------------------------------------- 12.3 approach of enemies
def test_rule_12_3_only_the_battery_next_to_the_advanced_enemy_loses_its_support():
    """Rule 12.3: of two Axis batteries placed in defensive support, the one
    next to the British battalion that advanced after combat (and exerts a
    ZOC) loses its support for the later combats, still rolling for its salvo
    (12.51); the battery farther away keeps supporting."""
    near, far = u("axis.4.art_28"), u("axis.185.art_1")
    g = make({"1411": ["allied.uk.8m"], "1412": ["axis.4.art_28"], "1609": ["axis.185.art_1"]},
             policies=(Scripted(AXIS), Scripted(ALLIED)))
    g.state.advanced[u("allied.uk.8m")] = True
    assert combat._approach_of_enemies(g, ALLIED, [near, far]) == [far]
    withdrawn = _rows(g, "support withdrawn")
    assert len(withdrawn) == 1 and withdrawn[0]["units"] == "axis.4.art_28" and withdrawn[0]["rule"] == "12.3"
    rolls = _rows(g, "defensive fire ammunition")
    assert len(rolls) == 1 and rolls[0]["units"] == "axis.4.art_28"


def test_rule_9_11_plan_options_name_the_units_that_may_attack_each_hex():
    """Rules 9.11 and 9.2 a: with the plan's options the active player learns,
    for each hex it may attack, the units adjacent to it that may attack it:
    1/34 next to both British hexes, 2/34 next to 1209 only, 3/34 to 1311 only."""
    g = make({"1310": ["axis.4.1_34"], "1208": ["axis.4.2_34"], "1410": ["axis.4.3_34"],
              "1311": ["allied.uk.8m"], "1209": ["allied.uk.2rwk"]})
    a, b, c = u("axis.4.1_34"), u("axis.4.2_34"), u("axis.4.3_34")
    opts = combat.plan_options(g, AXIS)
    assert sorted(opts.attack_targets) == sorted([h("1311"), h("1209")])
    assert {k: sorted(v) for k, v in opts.attackers.items()} == {h("1311"): sorted([a, c]), h("1209"): sorted([a, b])}
    assert opts.attackers == combat.attack_options(g, AXIS)


# -------------------------------------------------------------- 9.3: no limit on the attacks
class _OneByOne(Scripted):
    """Attacks the first hex offered with its first offered unit, every time."""

    def next_attack(self, game, options, penetration=False):
        tgt = next(iter(options))
        return (tgt, [options[tgt][0]])


def test_rule_9_3_every_unit_may_attack_alone_even_past_a_hundred_attacks():
    """Rules 9.12 and 9.3: each unit may attack once per combat phase and the
    attacks go on as long as the active player makes them: 108 Axis pieces
    (every attacking piece but the tanks and commandos, companies in place of
    their battalions), demoralized and three to a hex around six hexes of two
    British or Maltese battalions, attack one by one; all 108 attacks are made
    (at odds below 1:3 they are cancelled, 9.3 g)."""
    t = static()
    names = [n for n in t.names if n.startswith("axis.") and t.attack[u(n), 0] > 0
             and t.utype[u(n)] not in (st.TANK, st.COMMANDO)]
    axis = [n for n in names if not any(m.startswith(n + ".") and m[len(n) + 1:] in ("a", "b", "c") for m in names)]
    brit = ["allied.uk.8m", "allied.mt.1k", "allied.uk.2rwk", "allied.mt.2k", "allied.uk.11lf", "allied.mt.8k",
            "allied.uk.4b", "allied.mt.10k", "allied.uk.2rif", "allied.uk.1h", "allied.uk.1dli", "allied.uk.1dor"]
    d = t.grid.distance_table
    inland = [x for x in range(t.n_hexes) if t.land[x] and not (t.town[x] or t.city[x])
              and all(n >= 0 and t.land[n] for n in t.neighbours[x]) and not t.ocean_side[x].any()]
    hexes: list = []
    for x in inland:
        if len(hexes) < 6 and all(d[x, y] >= 3 for y in hexes):
            hexes.append(x)
    place = {t.grid.hex_id(x): brit[2 * i:2 * i + 2] for i, x in enumerate(hexes)}
    around = [int(n) for x in hexes for n in t.neighbours[x]]
    assert len(set(around)) == 36 and len(axis) >= 108
    for i, n in enumerate(around):
        place[t.grid.hex_id(n)] = axis[3 * i:3 * i + 3]
    placed = [x for i in range(36) for x in axis[3 * i:3 * i + 3]]
    g = make(place, policies=(_OneByOne(AXIS), _Phase(ALLIED)))
    for n in placed:
        g.state.morale_state[u(n)] = DEMORALIZED
    assert len(placed) == 108 and all(combat.can_attack(g, u(n)) for n in placed)
    combat.combat_phase(g, AXIS)
    assert len(_rows(g, "attack cancelled")) == 108 and not _rows(g, "attack")
    assert all(g.state.attacked[u(n)] for n in placed)
