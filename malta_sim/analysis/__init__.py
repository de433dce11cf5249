"""Balance analysis of result frames.

Public API
----------
Loading and calendar
    :func:`load_results`, :func:`with_outcomes`, :data:`CALENDARS`, :func:`calendar_for`
Win rates
    :func:`win_rates`, :func:`proportion_interval`, :func:`clustered_proportion_interval`,
    :func:`games_needed` (with its assurance, :func:`width_probability`)
Paired (common random numbers) comparisons
    :func:`paired_comparison` (Tango's score interval, :func:`tango_paired_interval`),
    :func:`compare_arms`, :func:`paired_mean_difference`,
    :func:`paired_games_needed`
Timing
    :func:`event_turns`, :func:`timing_curve`, :func:`median_event_turn`
Breakdowns
    :func:`end_reasons`, :func:`game_length`, :func:`end_day_table`, :func:`numeric_summary`
Sweeps
    :func:`sweep_parameters`, :func:`level_rates`, :func:`parameter_effects`
"""

from .breakdown import end_day_table, end_reasons, end_turn_names, game_length, numeric_summary
from .frames import CALENDARS, Calendar, calendar_for, load_results, scenario_of, with_outcomes
from .paired import (
    PairedResult,
    compare_arms,
    newcombe_paired_interval,
    paired_comparison,
    paired_games_needed,
    paired_mean_difference,
    tango_paired_interval,
)
from .rates import (
    clustered_proportion_interval,
    design_effect,
    games_needed,
    interval_width,
    proportion_interval,
    width_probability,
    win_rates,
)
from .sweeps import level_rates, parameter_effects, sweep_parameters
from .timing import event_turns, median_event_turn, timing_curve

__all__ = [
    "CALENDARS", "Calendar", "calendar_for", "load_results", "scenario_of", "with_outcomes",
    "win_rates", "proportion_interval", "games_needed", "interval_width",
    "PairedResult", "paired_comparison", "compare_arms", "paired_mean_difference", "paired_games_needed",
    "newcombe_paired_interval", "tango_paired_interval", "clustered_proportion_interval", "design_effect",
    "width_probability",
    "event_turns", "timing_curve", "median_event_turn",
    "end_reasons", "game_length", "end_day_table", "numeric_summary", "end_turn_names",
    "sweep_parameters", "level_rates", "parameter_effects",
]
