"""What every column of a result frame means, and the one name of each end reason.

One table serves ``malta-sim glossary``, ``docs/results.md`` (written from it by
:func:`glossary_markdown`; a test keeps the page in step) and the summary and
report wording.  Each entry is ``column -> (type and unit, meaning)``.

End reasons: the engines write short codes in ``end_reason``
(:data:`END_REASON_CODES`); the summary, the report and the docs always show
the one name of each (:func:`malta_sim.analysis.frames.canonical_end_reason`).
"""

from __future__ import annotations

#: Identity and provenance columns, first in every game row (``malta_sim.batch.ID_COLUMNS``).
ID_COLUMNS = {
    "game": ("int", "game index in the run, 0 .. games-1; with the seed it fixes every die roll of the game"),
    "seed": ("int", "master seed of the run (--seed)"),
    "scenario": ("text", "scenario name: intro, hercules (Island of Death), im-c3 (Invasion: Malta)"),
    "axis_policy": ("text", "Axis bot (--axis-policy)"),
    "allied_policy": ("text", "Allied bot (--allied-policy)"),
    "options": ("text", "optional rules, comma-joined and sorted; 'none' when none"),
    "policy_params": ("JSON text", "bot parameters (--policy-params); '{}' when none"),
    "data_hash": ("text, 16 hex digits", "hash of the game-data folder the game was played with "
                  "('malta-sim data info' prints it); rows with different hashes are never pooled"),
    "arm": ("text", "sweep arm (malta-sim sweep only): the arm's name from the sweep file"),
}

#: Result columns of Island of Death games (rule numbers of the printed rules).
IOD_COLUMNS = {
    "winner": ("axis / allied", "side that won (rule 20.3)"),
    "end_reason": ("code", "how the game ended; see the end reasons below"),
    "end_turn": ("turn", "last game turn played, absolute: turn 0 = 29 June 1942 AM, four a day "
                 "(AM, noon, PM, night; rule 4.0)"),
    "end_date": ("text", "that turn as a date, e.g. '1 July noon'"),
    "final_surrender_modifier": ("die-roll modifier", "total surrender modifier at the last Surrender Phase "
                                 "(rule 20.0)"),
    "last_surrender_roll": ("2d6, 2-12", "last unmodified surrender roll (rule 20.3)"),
    "axis_steps_lost": ("steps", "Axis steps eliminated, counted for victory (rules 20.1, 20.2; warships "
                        "damaged count one each)"),
    "allied_steps_lost": ("steps", "Allied steps eliminated, counted for victory, with the scenario's "
                          "starting count (rules 20.1, 22.29)"),
    "airfields_axis": ("hexes", "airfields in Axis hands at the end"),
    "cities_axis": ("hexes", "victory cities (1711, 1809, 1810, 1911) in Axis hands at the end (rule 20.0)"),
    "towns_axis": ("hexes", "towns in Axis hands at the end"),
    "forts_destroyed": ("forts", "forts destroyed by the end"),
    "first_airfield_turn": ("turn, -1 never", "first turn at whose end the Axis held an airfield it "
                            "captured in play (not one held at set-up)"),
    "axis_hqs_lost": ("count", "Axis HQ eliminations (rule 16.82)"),
    "warships_damaged": ("count", "Axis warships damaged by coastal guns (rule 16.55)"),
    "rn_intervention": ("die, 0-6", "Royal Navy intervention result; 0 = not rolled (rules 17.6, 20.0)"),
    "weather_days_rainy": ("days", "days with Rainy weather (rule 17.2)"),
}

#: Causes of the first-turn step losses (``<side>_first_turn_loss_<cause>``):
#: cause -> what it covers, with rules (the LOSS_* codes of ``malta_sim.iod.state``).
FIRST_TURN_LOSS_CAUSES = {
    "landing": "landing losses (rule 18.5)",
    "coastal_fire": "coastal gun fire at the wave boxes (rule 16.56) and at warships (rule 16.55)",
    "waters_edge": "water's edge combat (rules 18.61 Axis losses, 18.62 Allied losses)",
    "drowned": "paratroops dropped into the sea (rule 19.45)",
    "combat": "ground combat and its retreats (rules 9.5, 9.61, 9.62, 9.71) and hostile landings "
              "(rules 19.51-19.53)",
    "bombardment": "bombardment results (rule 10.12), the Z result's step losses included (rule 9.41)",
    "overstack": "over-stacked units eliminated (rule 7.2)",
    "other": "any other cause (overrun 6.52, demoralized again 11.4, AA fire 16.12, air attack 17.52, "
             "airborne losses 19.46)",
}
#: The Island of Death columns that show what decided a game (first-turn losses by
#: cause, the divisions' first turn ashore, Allied HQs, bombardments that could do
#: nothing, games over on the first day): outcomes, never sweep parameters.
BLUNDER_COLUMNS = {
    f"{side}_steps_lost_first_turn": (
        "steps", f"{side.capitalize()} steps eliminated, counted for victory as {side}_steps_lost (rules 20.1, "
        "20.2), during the scenario's first game turn (Operation Hercules: turn 0, 29 June AM; Introductory "
        "Scenario: turn 4, 30 June AM); the scenario's starting count excluded, replacements not subtracted; "
        f"the sum of the {side}_first_turn_loss_* columns") for side in ("axis", "allied")}
BLUNDER_COLUMNS.update({
    f"{side}_first_turn_loss_{cause}": ("steps", f"{side.capitalize()} steps lost in the scenario's first game "
                                        f"turn to {meaning}")
    for side in ("axis", "allied") for cause, meaning in FIRST_TURN_LOSS_CAUSES.items()})
BLUNDER_COLUMNS.update({
    "div4_first_ashore_turn": ("turn, -1 never", "first turn a piece of the Italian 4th Division 'Livorno' "
                               "(attached to it, rule 15.2, else printed in it; not its leader) was on the map: landed from a wave box (rules 18.5, 18.8) or "
                               "at an airfield (rule 16.13); the scenario's first turn when it was on the map "
                               "at set-up"),
    "div20_first_ashore_turn": ("turn, -1 never", "the same for the Italian 20th Division 'Friuli'"),
    "allied_hqs_lost": ("count", "Allied HQ eliminations (rule 16.81)"),
    "axis_bombardments": ("count", "Axis bombardments, one per target hex and combat phase (rule 10.12)"),
    "axis_bombardments_no_effect": ("count", "Axis bombardments that could have no effect: the Bombardment "
                                    "Table column used reads '-' on every 2d6 roll, or the strength is below the "
                                    "row's minimum (rule 10.12)"),
    "allied_bombardments": ("count", "Allied bombardments (rule 10.12)"),
    "allied_bombardments_no_effect": ("count", "Allied bombardments that could have no effect (as "
                                      "axis_bombardments_no_effect)"),
    "ended_first_day": ("bool", "the game ended on the scenario's first day (Operation Hercules: 29 June; "
                        "Introductory Scenario: 30 June)"),
})
IOD_COLUMNS.update(BLUNDER_COLUMNS)

#: Result columns of Invasion: Malta games (victory conditions reconstructed).
IM_COLUMNS = {
    "objectives_held": ("hexes", "objective hexes held by the Axis at the end"),
    "activations": ("count", "formation activations drawn and used (rules 7.11-7.17)"),
    "passes": ("count", "activations passed on (rule 7.14 B)"),
    "air_draws": ("count", "Axis air units drawn from the cup (rule 2.25)"),
    "attacks": ("count", "attacks made"),
    "weather_windy": ("turns", "turns of Windy weather (rule 5.1)"),
    "weather_storm": ("turns", "turns of Storm weather (rule 5.1)"),
    "oos_marked": ("count", "units marked Out of Supply (rule 6)"),
    "disruption_checks": ("count", "Disruption checks rolled (rule 3.7)"),
    "reconstructed_components": ("text", "';'-joined parts of the game that are reconstructed, not printed"),
}

#: Columns the analyses add (``malta_sim.analysis.with_outcomes``); never stored by a run.
DERIVED_COLUMNS = {
    "axis_win": ("bool", "winner == 'axis'"),
    "end_day": ("int", "day of the scenario the game ended on, 1 = its first day"),
    "end_turn_name": ("text", "turn of the day it ended on: AM, noon, PM, night (Invasion: Malta: AM, PM, Night)"),
    "end_reason_raw": ("code", "the engine's end-reason code, kept when end_reason is shown by its name"),
}

#: Per-turn frame (``--per-turn FILE``): one row per game and turn.
PER_TURN_COLUMNS = {
    "turn": ("turn", "game turn (as end_turn)"),
    "date": ("text", "that turn as a date (Island of Death)"),
    "part": ("text", "AM, PM or Night (Invasion: Malta)"),
    "weather": ("text", "weather of the turn"),
    "surrender_modifier": ("die-roll modifier", "surrender modifier at that turn's Surrender Phase (rule 20.0)"),
    "surrender_roll": ("2d6", "unmodified surrender roll of that turn (rule 20.3)"),
    "axis_units_on_map": ("count", "Axis pieces on the map at the end of the turn"),
    "allied_units_on_map": ("count", "Allied pieces on the map at the end of the turn"),
}

#: End reasons: engine code(s) -> (name shown everywhere, winner, meaning).
END_REASON_CODES = {
    "surrender": ("surrender", "axis", "Malta surrenders: modified surrender roll 0 or less (Island of Death "
                  "rule 20.3)"),
    "invasion_suspended": ("operation cancelled", "allied", "the Axis calls the operation off: modified "
                           "surrender roll 14 or more (Island of Death rule 20.3)"),
    "last_turn": ("time limit", "allied", "Malta still holds after the last night turn (Island of Death)"),
    "turn_cap": ("turn cap", "none", "the engine's safety stop on game length; never reached in a correct game"),
    "sudden_objectives": ("sudden victory", "axis", "the Axis holds every objective hex (Invasion: Malta rule "
                          "4.22; condition reconstructed)"),
    "objectives": ("objectives at end", "axis", "the Axis holds enough objectives at the end (Invasion: Malta; "
                   "reconstructed)"),
    "axis_eliminated": ("Axis eliminated", "allied", "no Axis unit left on the map or to arrive (Invasion: "
                        "Malta; reconstructed)"),
    "time": ("time limit", "allied", "the Axis holds too few objectives at the end (Invasion: Malta)"),
}


def all_columns() -> dict[str, tuple[str, str]]:
    """Every documented column of the game rows (identity, both games' results, derived)."""
    return {**ID_COLUMNS, **IOD_COLUMNS, **IM_COLUMNS, **DERIVED_COLUMNS}


def glossary_text(width: int = 100) -> str:
    """The glossary as plain text (``malta-sim glossary``)."""
    import textwrap

    def block(title: str, table: dict) -> list[str]:
        out = [title]
        for name, (kind, meaning) in table.items():
            head = f"  {name:<26} "
            body = textwrap.wrap(f"[{kind}] {meaning}", max(30, width - len(head)))
            out.append(head + body[0])
            out += [" " * len(head) + b for b in body[1:]]
        return out + [""]

    lines = block("Identity and provenance (every row):", ID_COLUMNS)
    lines += block("Island of Death results:", IOD_COLUMNS)
    lines += block("Invasion: Malta results (also winner, end_reason, end_turn, steps lost, first_airfield_turn):",
                   IM_COLUMNS)
    lines += block("Per-turn frame (--per-turn FILE; also game and the running counts above):", PER_TURN_COLUMNS)
    lines += block("Added by the analyses (malta_sim.analysis), not stored:", DERIVED_COLUMNS)
    lines.append("End reasons (frame code -> the name used in summaries, reports and docs):")
    for code, (name, winner, meaning) in END_REASON_CODES.items():
        head = f"  {code:<19} {name:<20} "
        body = textwrap.wrap(f"[{winner}] {meaning}", max(30, width - len(head)))
        lines.append(head + body[0])
        lines += [" " * len(head) + b for b in body[1:]]
    return "\n".join(lines)


def glossary_markdown() -> str:
    """The glossary as the Markdown page ``docs/results.md``."""
    def table(t: dict) -> list[str]:
        rows = ["| column | type / unit | meaning |", "|---|---|---|"]
        rows += [f"| `{k}` | {kind} | {meaning} |" for k, (kind, meaning) in t.items()]
        return rows + [""]

    L = ["# Result columns", "",
         "What each column of a result file means (`malta-sim run`, `malta-sim sweep`).  The same text is "
         "printed by `malta-sim glossary`; this page is written from `malta_sim/analysis/glossary.py`.", "",
         "## Identity and provenance (every row)", ""]
    L += table(ID_COLUMNS)
    L += ["## Island of Death results", ""] + table(IOD_COLUMNS)
    L += ["## Invasion: Malta results", "",
          "Also `winner`, `end_reason`, `end_turn` (turns from 1, three a day: AM, PM, Night; rule 8.4), "
          "`axis_steps_lost`, `allied_steps_lost` and `first_airfield_turn` (first turn an airfield hex is "
          "held by Axis units alone).", ""] + table(IM_COLUMNS)
    L += ["## Per-turn frame (`--per-turn FILE`)", "",
          "One row per game and turn, with `game` and the running counts of the columns above.", ""]
    L += table(PER_TURN_COLUMNS)
    L += ["## Added by the analyses", "", "`malta_sim.analysis.with_outcomes` adds these; runs never store "
          "them.", ""] + table(DERIVED_COLUMNS)
    L += ["## End reasons", "",
          "The frame keeps the engine's code; summaries, reports and these docs always use the name.", "",
          "| code in the frame | name | winner | meaning |", "|---|---|---|---|"]
    L += [f"| `{code}` | {name} | {winner} | {meaning} |" for code, (name, winner, meaning)
          in END_REASON_CODES.items()]
    return "\n".join(L) + "\n"
