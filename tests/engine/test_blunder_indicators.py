"""The blunder indicators of the result row (engine.blunder_indicators) against
recounts from the games' own records: the event log, the per-turn frame, and
the step losses seen where the rules apply them.

Each recount here maps rules to causes with its own table, so a cause filed
under the wrong column, a loss counted outside the first turn, a landing not
noticed or a bombardment miscounted makes a test fail.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from malta_sim.iod import static as st
from malta_sim.iod.engine import RESULT_COLUMNS, _static_cached
from malta_sim.iod.rules import organisation
from malta_sim.iod.rules.combat import bombardment_column_has_effect
from malta_sim.iod.state import LOSS_CAUSE_NAMES
from malta_sim.play import new_game, play_games

#: The recount's own reading of the causes (the glossary's FIRST_TURN_LOSS_CAUSES).
RULE_CAUSE = {"18.5": "landing", "16.55": "coastal_fire", "16.56": "coastal_fire", "18.61": "waters_edge",
              "18.62": "waters_edge", "19.45": "drowned", "7.2": "overstack"}
FIRST_TURN = {"hercules": 0, "intro": 4}


def _cause(why: str) -> str:
    if why.startswith("bombardment"):
        return "bombardment"
    m = re.search(r"(\d{1,2}\.\d{1,3})", why)
    rule = m.group(1) if m else ("9.5" if why in ("", "combat") else "")
    if rule in RULE_CAUSE:
        return RULE_CAUSE[rule]
    if rule.startswith("9.") or rule.startswith("19.5"):
        return "combat"
    return "other"


def _play_recording(monkeypatch, scenario, seed, games, axis="balanced", allied="active"):
    """Play ``games`` with the event log and the per-turn frame, recording every
    outermost step loss (organisation.lose_step / eliminate) with the steps it
    added to the unit's own tally (``steps_lost``, rule 20.1) and its cause."""
    lose, elim = organisation.lose_step, organisation.eliminate
    calls: list = []
    depth = [0]

    def wrap(fn, kind):
        def inner(game, u, *a, **k):
            why = k.get("reason", k.get("why", a[-1] if a and isinstance(a[-1], str) else ""))
            before = int(game.state.steps_lost[u])
            turn = int(game.state.turn[0])
            depth[0] += 1
            try:
                out = fn(game, u, *a, **k)
            finally:
                depth[0] -= 1
            if depth[0] == 0:
                added = int(game.state.steps_lost[u]) - before
                if added:
                    t = game.static
                    calls.append(dict(game=game.game_index, turn=turn, unit=int(u), side=int(t.side[u]),
                                      weighted=added * int(t.step_weight[u]), why=why, kind=kind))
            return out
        return inner

    monkeypatch.setattr(organisation, "lose_step", wrap(lose, "lose_step"))
    monkeypatch.setattr(organisation, "eliminate", wrap(elim, "eliminate"))
    res = play_games(scenario, seed, games, axis_policy=axis, allied_policy=allied, event_log=True,
                     per_turn=True)
    return res, pd.DataFrame(calls, columns=["game", "turn", "unit", "side", "weighted", "why", "kind"])


@pytest.mark.parametrize("scenario,seed", [("hercules", 3), ("hercules", 11), ("intro", 5)])
def test_first_turn_losses_by_cause_match_a_recount(monkeypatch, scenario, seed):
    """Rules 20.1-20.2 and the causes 18.5, 16.55/16.56, 18.61/18.62, 19.45, 9.x,
    10.12, 7.2: each ``<side>_first_turn_loss_<cause>`` equals the steps lost
    to that cause in the scenario's first turn, the totals equal the per-turn
    frame's tally at the end of that turn less the scenario's starting count,
    and every whole piece lost is an ``eliminated`` event of that turn with
    the same rule."""
    res, calls = _play_recording(monkeypatch, scenario, seed, [0, 1])
    games, ev, pt = res.games, res.events, res.per_turn
    first = FIRST_TURN[scenario]
    start = new_game(scenario, seed, 0).state
    start_count = {"axis": int(start.axis_steps_lost[0]), "allied": int(start.allied_steps_lost[0])}
    seen_causes = set()
    for _, row in games.iterrows():
        g = int(row["game"])
        c = calls[(calls["game"] == g) & (calls["turn"] == first)]
        e = ev[(ev["game"] == g) & (ev["turn"] == first)]
        for side_code, side in enumerate(("axis", "allied")):
            mine = c[c["side"] == side_code]
            want = {cause: 0 for cause in LOSS_CAUSE_NAMES}
            for why, w in zip(mine["why"], mine["weighted"]):
                want[_cause(why)] += int(w)
            if side == "axis":                                  # damaged warships: one step each (16.55, 20.2)
                want["coastal_fire"] += int((e["action"] == "warship_damaged").sum())
            got = {cause: int(row[f"{side}_first_turn_loss_{cause}"]) for cause in LOSS_CAUSE_NAMES}
            assert got == want, (g, side)
            assert int(row[f"{side}_steps_lost_first_turn"]) == sum(want.values())
            seen_causes |= {k for k, v in want.items() if v}
            # the per-turn frame's running tally, when no replacement (17.41) gave steps back that turn
            if not (e["action"].str.contains("replacement")).any():
                end_first = pt[(pt["game"] == g) & (pt["turn"] == first)][f"{side}_steps_lost"]
                assert int(end_first.iloc[0]) - start_count[side] == int(row[f"{side}_steps_lost_first_turn"])
        # whole pieces lost that turn: an "eliminated" event citing the same rule
        gone = e[e["action"] == "eliminated"]
        logged = sorted(zip(gone["units"], gone["rule"]))
        names = _static_cached(None).names
        for u, why in zip(c.loc[c["kind"] == "eliminate", "unit"], c.loc[c["kind"] == "eliminate", "why"]):
            rule = organisation.cause_rule(why)
            assert (names[u], rule) in logged, (names[u], why)
    if scenario == "hercules":                                  # the landing causes do occur
        assert {"landing", "waters_edge", "combat"} <= seen_causes


def test_first_turn_losses_leave_later_turns_out():
    """Only the first turn counts: the game's whole tally is larger than its
    first-turn tally (games lose steps after the first turn too)."""
    g = play_games("hercules", 3, [0, 1], axis_policy="balanced", allied_policy="active").games
    start = new_game("hercules", 3, 0).state
    later = g["axis_steps_lost"] - int(start.axis_steps_lost[0]) - g["axis_steps_lost_first_turn"]
    assert (later >= 0).all() and (later > 0).any()


def _division_of(ev: pd.DataFrame, game: int) -> dict:
    """Unit name -> division code ("4", "20") from the names (``axis.4.…``)
    and, for generic companies, from the battalion they were broken down from
    (13.1 ``breakdown`` events: the battalion first, then its companies)."""
    out = {}
    for units in ev.loc[(ev["game"] == game) & (ev["action"] == "breakdown"), "units"]:
        names = units.split()
        div = names[0].split(".")[1]
        for n in names[1:]:
            out.setdefault(n, div)
    return out


@pytest.mark.parametrize("scenario,seed", [("hercules", 3), ("hercules", 8), ("intro", 5)])
def test_division_first_ashore_turn_matches_the_log(scenario, seed):
    """Rules 18.5, 18.8, 16.13: ``div4_first_ashore_turn`` / ``div20_first_ashore_turn``
    is the turn of the first landing (beach or airfield) event holding a piece
    of the division; the scenario's first turn when the division is on the map
    at set-up (the Introductory Scenario); -1 when it never lands."""
    res = play_games(scenario, seed, [0, 1, 2], axis_policy="balanced", allied_policy="active", event_log=True)
    ev = res.events
    t = _static_cached(None)
    for _, row in res.games.iterrows():
        g = int(row["game"])
        comp = _division_of(ev, g)
        for div, code in (("4", st.FORMATION_CODES["4"]), ("20", st.FORMATION_CODES["20"])):
            set_up = new_game(scenario, seed, g)
            s = set_up.state
            ashore = ((s.box == 0) & (s.formation == code) & (t.utype != st.LEADER)).any()
            if ashore:
                want = FIRST_TURN[scenario]
            else:
                lands = ev[(ev["game"] == g) & ev["action"].isin(["landing", "airfield_landing"])]
                turns = [int(tn) for tn, units in zip(lands["turn"], lands["units"])
                         if any(n.split(".")[1] == div or comp.get(n) == div for n in units.split())]
                want = min(turns) if turns else -1
            assert int(row[f"div{div}_first_ashore_turn"]) == want, (g, div)
    if scenario == "hercules":
        assert (res.games["div4_first_ashore_turn"] >= 0).any()


def _no_effect_from_cell(cell: str, ch) -> bool:
    """A ``bombardment`` event's cell (``stack S column C (strength …)``): the
    Bombardment Table column used reads '-' on every roll (rule 10.12)."""
    m = re.match(r"stack (\d+) column (\d+)", cell)
    stack, heading = int(m.group(1)), int(m.group(2))
    row = min(max(stack, 1), len(ch.bomb_min_strength)) - 1
    col = list(ch.bomb_columns).index(heading)
    return bool((np.asarray(ch.bomb)[row, col, 2:13] == 0).all())


@pytest.mark.parametrize("scenario,seed,games", [("intro", 1, [0, 1, 2]), ("hercules", 7, [0, 1, 2, 3])])
def test_bombardments_and_hqs_match_the_log(scenario, seed, games):
    """Rules 10.12 and 16.81: ``<side>_bombardments`` counts the ``bombardment``
    and ``bombardment ineffective`` events of the side; ``…_no_effect`` the
    ineffective ones and those whose table column (from the event's cell)
    reads '-' on every roll; ``allied_hqs_lost`` the Allied HQ eliminations;
    ``ended_first_day`` the games whose last turn is on the first day."""
    res = play_games(scenario, seed, games, axis_policy="balanced", allied_policy="active", event_log=True)
    ev = res.events
    t = _static_cached(None)
    hq_names = {t.names[u] for u in np.flatnonzero((t.utype == st.HQ) & (t.side == 1))}
    total = 0
    for _, row in res.games.iterrows():
        e = ev[ev["game"] == row["game"]]
        for side in ("axis", "allied"):
            b = e[(e["side"] == side) & (e["action"] == "bombardment")]
            ineff = e[(e["side"] == side) & (e["action"] == "bombardment ineffective")]
            assert int(row[f"{side}_bombardments"]) == len(b) + len(ineff)
            no_eff = len(ineff) + sum(_no_effect_from_cell(c, t.charts) for c in b["cell"])
            assert int(row[f"{side}_bombardments_no_effect"]) == no_eff
            total += len(b) + len(ineff)
        gone = e[(e["action"] == "eliminated") & e["units"].isin(hq_names)]
        assert int(row["allied_hqs_lost"]) == len(gone)
        assert bool(row["ended_first_day"]) == (int(row["end_turn"]) // 4 == FIRST_TURN[scenario] // 4)
    if scenario == "intro":
        assert total > 0                                        # the test sees bombardments


def test_no_effect_column_of_the_bombardment_table():
    """Rule 10.12: one battalion (row 0) under strength 2 (the first column)
    reads '-' on every roll; five or more battalions at that strength, or one
    battalion at the strongest column, do not.  A column with a result on roll
    12 only has an effect; the unused indices 0-1 are not rolls."""
    ch = _static_cached(None).charts
    assert not bombardment_column_has_effect(ch, 0, 0)
    assert bombardment_column_has_effect(ch, 4, 0)
    assert bombardment_column_has_effect(ch, 0, len(ch.bomb_columns) - 1)
    for row in range(ch.bomb.shape[0]):
        for col in range(ch.bomb.shape[1]):
            assert bombardment_column_has_effect(ch, row, col) == bool(ch.bomb[row, col, 2:13].any())
    bomb = np.zeros((1, 3, 13), np.int8)
    bomb[0, 1, 12] = 3                                          # one step on 12 only
    bomb[0, 2, 0] = bomb[0, 2, 1] = 4                           # not rolls of 2d6
    fake = SimpleNamespace(bomb=bomb)
    assert [bombardment_column_has_effect(fake, 0, c) for c in range(3)] == [False, True, False]


def test_result_columns_carry_the_indicators_in_batches(tmp_path):
    """The batch runner's frame (and its parquet file) has every indicator column."""
    from malta_sim.batch import run_games

    g = run_games("intro", 2, 1)
    p = tmp_path / "g.parquet"
    g.to_parquet(p)
    back = pd.read_parquet(p)
    for c in RESULT_COLUMNS[RESULT_COLUMNS.index("axis_steps_lost_first_turn"):]:
        assert c in back.columns, c
    assert back["ended_first_day"].dtype == bool
