"""Analyses of the printed Invasion: Malta rules: ER tables, lead choice, repeated
disruption (exact chain vs Monte Carlo), activation report, reach and supply maps."""

import pytest
from scipy.stats import chisquare

from malta_sim.errors import OptionError
from malta_sim.games.invasion_malta import activation as ac
from malta_sim.games.invasion_malta import analysis as an
from malta_sim.games.invasion_malta import examples as ex
from malta_sim.games.invasion_malta.movement import MoveContext


def test_er_table_and_lead_choice():
    t = an.er_table([6], [0, 1])
    assert t["p"] == [[0.6, 0.5]]
    r = an.lead_choice([dict(id="a", er=8, disrupted=True), dict(id="b", er=7), dict(id="c", er=9, overstacked=True)])
    assert r["by_lead"] == {"a": 0.6, "b": 0.7} and r["best"] == "b"
    with pytest.raises(OptionError):
        an.lead_choice([dict(id="c", er=9, overstacked=True)])
    assert an.effective_er(2, True, True) == 1


def test_repeated_disruption_exact_single_unit_closed_form():
    # one 2-step unit ER 7/6, Disrupted: first check at ER 5 (p fail .5), then ER 4 (p fail .6)
    r = an.repeated_disruption_exact([(7, 6, 2)], k=1)
    assert r["distribution"] == pytest.approx({0: 0.5, 1: 0.5})
    r2 = an.repeated_disruption_exact([(7, 6, 2)], k=2)
    assert r2["expected_steps_lost"] == pytest.approx(0.5 + 0.5 * 0.5 + 0.5 * 0.6)
    assert r2["p_stack_eliminated"] == pytest.approx(0.5 * 0.6)


def test_repeated_disruption_exact_vs_monte_carlo():
    """Chi-square goodness of fit of simulated step losses against the exact chain;
    false-alarm rate 0.001 at a fixed seed."""
    specs = [(8, 6, 2), (6, 5, 2), (5, 5, 1)]
    k = 3
    e = an.repeated_disruption_exact(specs, k, drm=1)
    n = 3000
    mc = an.repeated_disruption_mc(specs, k, n, seed=7, drm=1)
    keys = [a for a in e["distribution"] if e["distribution"][a] * n >= 5]
    obs = [mc["distribution"].get(a, 0) * n for a in keys]
    exp = [e["distribution"][a] * n for a in keys]
    s = sum(obs) / sum(exp)
    assert chisquare(obs, [x * s for x in exp]).pvalue > 1e-3


def test_activation_report_closed_form_agrees():
    cup = an.make_cup(["L", "Fo"], ["Central"], axis_air=1)
    r = an.activation_report(cup, a=(0, "L"), b=(1, "Central"), mc=200, seed=1)
    assert r["exact"]["a_before_b"]["p"] == pytest.approx(r["closed_form"]["p_a_before_b"])
    assert r["exact"]["first_act_allied"]["mean"] == pytest.approx(r["closed_form"]["first_act_allied_mean"])
    assert r["monte_carlo"]["n"] == 200
    with pytest.raises(OptionError):
        an.make_cup([], [])
    assert an.parse_side("Axis") == 0
    with pytest.raises(OptionError):
        an.parse_side("x")


def test_reach_and_supply_maps_on_examples():
    m, u, p = ex.zoc_example()
    r = an.reach_map(m, u, p, [u.index("5/3")], MoveContext())
    assert r["1524"] == 3.0 and r["1424"] == 0
    t = an.reach_map(m, u, p, [u.index("5/3")], MoveContext(), phases=3)
    assert t["1523"] == 1
    m, u, p = ex.supply_example()
    s = an.supply_status_map(m, u, p, paradropped=True)
    assert "1524" in s["supplied"] and "1425" not in s["supplied"] + s["out_of_supply"]
    assert s["sources"]["beachheads"] == ["1225"]
