"""Island of Death tables other than the combat charts: ``tables/*.csv``.

Band tables (a die or dice roll range -> a result):

``weather.csv``            2d6 -> clear / cloudy / rainy and what each allows (rules 17.2, 16.41, 17.51).
``surrender_results.csv``  modified 2d6 -> axis_wins / continue / allied_wins (rule 20.3).
``waters_edge.csv``        total strength band x one die -> ``X`` or ``-`` (rule 18.6; reconstructed).
``solo_drop_zones.csv``    one die -> drop zone hex (rule 21.11).
``solo_beach_zones.csv``   one die -> beach zone (rule 21.2).

Keyed tables:

``surrender_modifiers.csv`` modifier name -> value, per, max_times (rule 20.0).
``militia.csv``             city / town -> least die roll that draws a militia piece (rule 16.32).
``rn_intervention.csv``     one die -> effects of the Royal Navy intervention (rule 17.6; reconstructed).
``air_attacks.csv``         date -> air attacks against coastal guns (rule 17.51).

Parameter tables (``item, value, source``; every printed number of a procedure):
``landing_losses`` (18.5), ``airborne_losses`` (19.46), ``infiltration`` (6.41),
``stand_ground`` (9.71), ``leader_casualties`` (14.4), ``ammunition`` (12.5),
``replacements`` (17.4), ``stragglers`` (17.8), ``delayed_landings`` (22.39),
``airfields`` (16.11, 16.12), ``naval`` (16.55-16.79, 17.52), ``constants`` (the other printed
numbers: ZOC costs 5.2, stacking 7.1, supply length 8.2, advance 9.86, morale caps 11.2 ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import DataError
from .common import Col, Collector, read_csv, resolve_data_dir, source_col

WEATHERS = ("clear", "cloudy", "rainy")          #: codes 0, 1, 2 (rule 17.2)
SURRENDER_OUTCOMES = ("axis_wins", "continue", "allied_wins")
ZONES = ("North", "South", "East", "West")

#: Items each parameter table must define (no more, no less).
PARAM_ITEMS: dict[str, tuple[str, ...]] = {
    "landing_losses": ("range", "drm_adjacent", "drm_within_range", "eliminate_min"),
    "airborne_losses": ("drm_enemy_in_hex", "drm_enemy_aa_within", "aa_range", "drm_woods_town_city_fort", "loss_min"),
    "infiltration": ("add_morale", "drm_friendly_in_destination", "drm_night", "drm_tank", "drm_motorized",
                     "drm_enemy_forts", "success_min"),
    "stand_ground": ("drm_leader_in_hex",),
    "leader_casualties": ("combat_max", "drm_per_extra_step", "lone_max"),
    "ammunition": ("dice_main_port", "dice_minor_port", "dice_landed_beach", "salvo_min", "first_date",
                   "defensive_expend_max", "max_salvos"),
    "replacements": ("axis_day", "axis_italian_infantry", "axis_italian_glider", "min_enemy_distance"),
    "stragglers": ("recover_min",),
    "delayed_landings": ("drm_no_axis_airfield", "para_steps_threshold", "drm_para_steps", "drm_per_para_hq",
                         "drm_rain", "cancel_min"),
    "airfields": ("companies_per_turn", "hq_counts_as", "artillery_counts_as", "aa_range", "aa_hit_min"),
    "constants": ("zoc_enter_foot", "zoc_exit_foot", "zoc_enter_mot", "zoc_exit_mot", "zoc_enter_mech",
                  "zoc_exit_mech", "zoc_min_attack", "stack_battalions", "supply_route_hexes", "out_of_supply_attack",
                  "out_of_supply_mot_mech_ma", "advance_foot_max", "advance_mot_mech_max", "morale_shift_max",
                  "morale_shift_min", "demoralized_ma_foot", "demoralized_ma_mot_mech", "leader_ma",
                  "leader_hexes_per_phase", "hq_return_days", "prep_mp_airborne_artillery", "hitch_mp_artillery",
                  "delayed_reaction_am_hexes", "delayed_reaction_noon_hexes", "drop_one_stick_hexes",
                  "drop_other_sticks_hexes", "dz_move_hexes", "discovery_day_hexes", "bombard_casualty_fraction_den",
                  "first_wave_infantry", "first_wave_marines_max", "second_wave_units"),
    "naval": ("gun_hit_min", "gun_drm_close", "gun_close_range", "ship_hit_min", "communications_fail_max",
              "max_ships_per_hex", "max_ships_offensive", "max_ships_defensive", "air_attack_hit_min",
              "air_attack_aa_range"),
}

#: Allowed values of parameter-table items whose sign the rule fixes: penalties
#: are zero or less, divisors and the stacking limit at least one.  Die
#: modifiers (``drm_*``) may take either sign; every other item is a count, a
#: distance, a movement cost or a die threshold and must not be negative.
PARAM_RANGES: dict[str, tuple[int, int]] = {
    "constants.out_of_supply_attack": (-99, 0),          # 8.31: a reduction
    "constants.out_of_supply_mot_mech_ma": (-99, 0),     # 8.33
    "constants.morale_shift_min": (-99, 0),              # 11.2
    "constants.demoralized_ma_foot": (-99, 0),           # 11.4
    "constants.demoralized_ma_mot_mech": (-99, 0),       # 11.4
    "constants.stack_battalions": (1, 99),               # 7.1
    "constants.bombard_casualty_fraction_den": (1, 99),  # 10.14: a divisor
}


def param_range(table: str, item: str) -> tuple[int, int]:
    """Allowed ``(min, max)`` of parameter ``item`` of ``table`` (see
    :data:`PARAM_RANGES`)."""
    key = f"{table}.{item}"
    if key in PARAM_RANGES:
        return PARAM_RANGES[key]
    return (-99, 99) if item.startswith("drm_") else (0, 99)


#: Surrender modifiers rule 20.0 prints; ``axis_city_<hex>`` and ``date_<MM-DD>`` rows may be added.
SURRENDER_REQUIRED = ("axis_airfields", "axis_towns", "forts_destroyed", "allied_steps", "axis_steps", "axis_hq",
                      "beach_followup", "rn_4_5", "rn_6")
_SURR_RE = re.compile(r"^(axis_city_\d{4}|date_0[67]-[0-3]\d)$")

TABLE_FILES = ("weather.csv", "surrender_modifiers.csv", "surrender_results.csv", "militia.csv",
               "rn_intervention.csv", "waters_edge.csv", "air_attacks.csv", "solo_drop_zones.csv",
               "solo_beach_zones.csv") + tuple(f"{k}.csv" for k in PARAM_ITEMS)


@dataclass(frozen=True)
class WeatherBand:
    """One band of the weather roll (rule 17.2)."""

    roll_min: int
    roll_max: int
    weather: str
    air_support_markers: int
    air_attacks: str
    warship_support: bool
    jumps: bool
    airfield_landings: bool
    source: str


@dataclass(frozen=True)
class SurrenderModifier:
    """Applied ``floor(count / per)`` times, at most ``max_times`` (0: no cap) (rule 20.0)."""

    value: int
    per: int
    max_times: int
    source: str

    def amount(self, count: int) -> int:
        n = count // self.per
        if self.max_times:
            n = min(n, self.max_times)
        return self.value * n


@dataclass(frozen=True)
class RnResult:
    """Royal Navy Intervention Table row (rule 17.6); see ``rn_intervention.csv``."""

    die: int
    warships_damaged: int
    followup_units_lost: int
    beach_supply_days: int
    air_support_lost: int
    air_support_days: int
    air_attacks_lost: int
    air_attacks_days: int
    surrender_modifier: int
    source: str


@dataclass
class IodTables:
    """Typed tables plus the dense arrays the engine indexes with dice.

    Attributes
    ----------
    weather : list[WeatherBand]
    weather_by_roll : int8[13]
        Weather code (index into :data:`WEATHERS`) by 2d6 total (indices 0, 1 unused: -1).
    air_support_by_weather : int8[3]
        Air support markers per weather code (rule 16.41).
    surrender_modifiers : dict[str, SurrenderModifier]
    surrender_results : list[tuple[int, int, str]]
    militia_min : dict[str, int]
        ``city`` / ``town`` -> least die that draws a militia piece (rule 16.32).
    rn : dict[int, RnResult]
        Die 1..6 -> result (rule 17.6).
    waters_edge_min : int16[n_bands]
        Least total strength of each band (rule 18.6).
    waters_edge_x : bool[n_bands, 6]
        X on die 1..6 (column k = die k+1).
    air_attacks : dict[int, int]
        Day (0 = 29 June) -> air attacks (rule 17.51); later days 0.
    solo_drop_zones : list[str]
        Index die-1 -> hex (rule 21.11).
    solo_beach_zones : list[str]
        Index die-1 -> zone (rule 21.2).
    params : dict[str, dict[str, int]]
        Parameter table name -> item -> value.
    sources : dict[str, str]
        ``<table>.<key>`` -> source of the row.
    """

    weather: list
    weather_by_roll: np.ndarray
    air_support_by_weather: np.ndarray
    surrender_modifiers: dict
    surrender_results: list
    militia_min: dict
    rn: dict
    waters_edge_min: np.ndarray
    waters_edge_x: np.ndarray
    air_attacks: dict
    solo_drop_zones: list
    solo_beach_zones: list
    params: dict
    sources: dict = field(default_factory=dict)

    def surrender_outcome(self, modified_roll: int) -> str:
        """Rule 20.3: ``axis_wins`` / ``continue`` / ``allied_wins`` for a modified 2d6 total."""
        for lo, hi, out in self.surrender_results:
            if lo <= modified_roll <= hi:
                return out
        return "axis_wins" if modified_roll < self.surrender_results[0][0] else "allied_wins"

    def surrender_modifier(self, counts: dict[str, int]) -> int:
        """Total rule 20.0 modifier for ``counts`` (modifier name -> count; absent = 0)."""
        return sum(m.amount(int(counts.get(k, 0))) for k, m in self.surrender_modifiers.items())

    def waters_edge(self, strength: int, die: int) -> bool:
        """Rule 18.6: whether total ``strength`` and a die roll of ``die`` (1..6) give an X."""
        band = int(np.searchsorted(self.waters_edge_min, strength, side="right")) - 1
        return bool(self.waters_edge_x[max(band, 0), die - 1])


def _bands(rows, lo_name, hi_name, first, last, fname, collector, what) -> bool:
    """Check that bands cover first..last without gaps or overlaps; report the first problem."""
    expected = first
    ok = True
    for r in sorted(rows, key=lambda r: r[lo_name]):
        if r[hi_name] < r[lo_name]:
            _err(collector, DataError(fname, r.line, hi_name, f"{r[hi_name]} is below {lo_name} {r[lo_name]}"))
            return False
        if r[lo_name] != expected:
            _err(collector, DataError(fname, r.line, lo_name,
                                      f"{what} must continue at {expected} (no gaps or overlaps), got {r[lo_name]}"))
            return False
        expected = r[hi_name] + 1
    if expected != last + 1:
        _err(collector, DataError(fname, None, hi_name, f"{what} must cover up to {last}; covers up to {expected - 1}"))
        ok = False
    return ok


def _err(collector: Collector | None, e: DataError) -> None:
    if collector is None:
        raise e
    collector.add(e)


def load_tables(data_dir: str | Path | None = None, collector: Collector | None = None,
                map_view=None) -> IodTables:
    """Read and check ``tables/*.csv``.

    Parameters
    ----------
    data_dir : path, optional
    collector : Collector, optional
        Gather every problem instead of raising at the first.
    map_view : MapView, optional
        When given, solo drop-zone hexes are checked to be inland (rule 21.11).

    Returns
    -------
    IodTables

    Raises
    ------
    DataError
        Missing file or column, bad value, bands with gaps or overlaps, missing or
        unknown item, Royal Navy surrender modifiers that disagree with rule 20.0.
    """
    folder = resolve_data_dir(data_dir) / "tables"
    f = {name: folder / name for name in TABLE_FILES}
    sources: dict[str, str] = {}

    broken: set[str] = set()    # files with unreadable rows: skip completeness checks (no follow-on noise)

    def rd(name, spec, unique=None):
        n0 = len(collector.errors) if collector is not None else 0
        try:
            rows = read_csv(f[name], spec, unique=unique, collector=collector)
        except DataError as e:
            if collector is None:
                raise
            collector.add(e)
            broken.add(name)
            return []
        if collector is not None and len(collector.errors) > n0:
            broken.add(name)
        return rows

    # weather (17.2) ----------------------------------------------------------
    rows = rd("weather.csv", {
        "roll_min": Col(int, min=2, max=12), "roll_max": Col(int, min=2, max=12),
        "weather": Col(str, choices=WEATHERS), "air_support_markers": Col(int, min=0, max=3),
        "air_attacks": Col(str, choices=("all", "half", "none")), "warship_support": Col(bool),
        "jumps": Col(bool), "airfield_landings": Col(bool), "source": source_col()}, unique=["weather"])
    weather = [WeatherBand(r.roll_min, r.roll_max, r.weather, r.air_support_markers, r.air_attacks,
                           r.warship_support, r.jumps, r.airfield_landings, r.source) for r in rows]
    w_by_roll = np.full(13, -1, np.int8)
    air_by_w = np.zeros(3, np.int8)
    if rows and "weather.csv" not in broken and _bands(rows, "roll_min", "roll_max", 2, 12, str(f["weather.csv"]),
                                                       collector, "2d6 bands"):
        for b in weather:
            w_by_roll[b.roll_min:b.roll_max + 1] = WEATHERS.index(b.weather)
            air_by_w[WEATHERS.index(b.weather)] = b.air_support_markers

    # surrender (20.0, 20.3) --------------------------------------------------
    rows = rd("surrender_modifiers.csv", {
        "modifier": Col(str), "value": Col(int, min=-9, max=9), "per": Col(int, min=1, max=99),
        "max_times": Col(int, min=0, max=99), "source": source_col()}, unique=["modifier"])
    mods: dict[str, SurrenderModifier] = {}
    for r in rows:
        if r.modifier not in SURRENDER_REQUIRED and not _SURR_RE.match(r.modifier):
            _err(collector, DataError(str(f["surrender_modifiers.csv"]), r.line, "modifier",
                                      f"unknown modifier {r.modifier!r}; expected one of {', '.join(SURRENDER_REQUIRED)}, "
                                      "axis_city_<hex> or date_<MM-DD>"))
            continue
        if r.modifier.startswith("axis_city_") and map_view is not None \
                and map_view.terrain.get(r.modifier[10:]) != "city":
            _err(collector, DataError(str(f["surrender_modifiers.csv"]), r.line, "modifier",
                                      f"hex {r.modifier[10:]} is not a city hex on the map (rule 20.0)"))
        mods[r.modifier] = SurrenderModifier(r.value, r.per, r.max_times, r.source)
        sources[f"surrender_modifiers.{r.modifier}"] = r.source
    if rows and "surrender_modifiers.csv" not in broken:
        for k in SURRENDER_REQUIRED:
            if k not in mods:
                _err(collector, DataError(str(f["surrender_modifiers.csv"]), None, "modifier", f"missing modifier {k!r} (rule 20.0)"))
    rows = rd("surrender_results.csv", {
        "roll_min": Col(int, min=-99, max=99), "roll_max": Col(int, min=-99, max=99),
        "outcome": Col(str, choices=SURRENDER_OUTCOMES), "source": source_col()})
    results = [(r.roll_min, r.roll_max, r.outcome) for r in sorted(rows, key=lambda r: r.roll_min)]
    if rows and "surrender_results.csv" not in broken:
        _bands(rows, "roll_min", "roll_max", -99, 99, str(f["surrender_results.csv"]), collector, "roll bands")

    # militia (16.32) ---------------------------------------------------------
    rows = rd("militia.csv", {"place": Col(str, choices=("city", "town")), "min_roll": Col(int, min=1, max=7),
                              "source": source_col()}, unique=["place"])
    militia = {r.place: r.min_roll for r in rows}
    if rows and "militia.csv" not in broken and set(militia) != {"city", "town"}:
        _err(collector, DataError(str(f["militia.csv"]), None, "place", "needs one row for city and one for town"))

    # Royal Navy intervention (17.6) ------------------------------------------
    rows = rd("rn_intervention.csv", {
        "die": Col(int, min=1, max=6), "warships_damaged": Col(int, min=-1, max=20),
        "followup_units_lost": Col(int, min=0, max=20), "beach_supply_days": Col(int, min=0, max=12),
        "air_support_lost": Col(int, min=0, max=3), "air_support_days": Col(int, min=0, max=12),
        "air_attacks_lost": Col(int, min=-1, max=14), "air_attacks_days": Col(int, min=0, max=12),
        "surrender_modifier": Col(int, min=0, max=9), "source": source_col()}, unique=["die"])
    rn = {r.die: RnResult(r.die, r.warships_damaged, r.followup_units_lost, r.beach_supply_days, r.air_support_lost,
                          r.air_support_days, r.air_attacks_lost, r.air_attacks_days, r.surrender_modifier, r.source)
          for r in rows}
    if rows and "rn_intervention.csv" not in broken and sorted(rn) != [1, 2, 3, 4, 5, 6]:
        _err(collector, DataError(str(f["rn_intervention.csv"]), None, "die", "needs exactly one row per die result 1-6"))
    for r in rows:
        want = mods["rn_4_5"].value if r.die in (4, 5) and "rn_4_5" in mods else (
            mods["rn_6"].value if r.die == 6 and "rn_6" in mods else 0)
        if r.surrender_modifier != want:
            _err(collector, DataError(str(f["rn_intervention.csv"]), r.line, "surrender_modifier",
                                      f"{r.surrender_modifier} disagrees with surrender_modifiers.csv ({want}; rule 20.0)"))

    # Water's edge (18.6) -----------------------------------------------------
    dspec = {f"d{k}": Col(str, choices=("X", "-")) for k in range(1, 7)}
    rows = rd("waters_edge.csv", {"strength_min": Col(int, min=0, max=99), "strength_max": Col(int, min=0, max=99),
                                  **dspec, "source": source_col()})
    rows = sorted(rows, key=lambda r: r.strength_min)
    we_min = np.array([r.strength_min for r in rows], np.int16)
    we_x = np.array([[r[f"d{k}"] == "X" for k in range(1, 7)] for r in rows], bool).reshape(len(rows), 6)
    if rows and "waters_edge.csv" not in broken:
        _bands(rows, "strength_min", "strength_max", 0, 99, str(f["waters_edge.csv"]), collector, "strength bands")

    # air attacks (17.51) -----------------------------------------------------
    from .iod_scenarios import date_to_day

    rows = rd("air_attacks.csv", {"date": Col(str, pattern=r"0[67]-[0-3]\d"), "attacks": Col(int, min=0, max=99),
                                  "source": source_col()}, unique=["date"])
    air = {}
    for r in rows:
        try:
            air[date_to_day(r.date)] = r.attacks
        except ValueError as e:
            _err(collector, DataError(str(f["air_attacks.csv"]), r.line, "date", str(e)))

    # solitaire (21.11, 21.2) -------------------------------------------------
    rows = rd("solo_drop_zones.csv", {"die_min": Col(int, min=1, max=6), "die_max": Col(int, min=1, max=6),
                                      "hex": Col(str, pattern=r"\d{4}"), "source": source_col()})
    drop = [""] * 6
    if rows and "solo_drop_zones.csv" not in broken and _bands(rows, "die_min", "die_max", 1, 6, str(f["solo_drop_zones.csv"]), collector, "die bands"):
        for r in rows:
            for d in range(r.die_min, r.die_max + 1):
                drop[d - 1] = r.hex
            if map_view is not None and (r.hex not in map_view.land or r.hex in map_view.beach
                                         or map_view.terrain.get(r.hex) == "coastal"):
                _err(collector, DataError(str(f["solo_drop_zones.csv"]), r.line, "hex",
                                          f"hex {r.hex} must be an inland hex (not ocean, beach or coastal; rules 19.33, 21.11)"))
    rows = rd("solo_beach_zones.csv", {"die_min": Col(int, min=1, max=6), "die_max": Col(int, min=1, max=6),
                                       "zone": Col(str, choices=ZONES), "source": source_col()})
    zones = [""] * 6
    if rows and "solo_beach_zones.csv" not in broken and _bands(rows, "die_min", "die_max", 1, 6, str(f["solo_beach_zones.csv"]), collector, "die bands"):
        for r in rows:
            for d in range(r.die_min, r.die_max + 1):
                zones[d - 1] = r.zone

    # parameter tables --------------------------------------------------------
    params: dict[str, dict[str, int]] = {}
    for name, items in PARAM_ITEMS.items():
        rows = rd(f"{name}.csv", {"item": Col(str), "value": Col(int, min=-99, max=99), "source": source_col()},
                  unique=["item"])
        vals = {}
        for r in rows:
            if r.item not in items:
                _err(collector, DataError(str(f[f"{name}.csv"]), r.line, "item",
                                          f"unknown item {r.item!r}; expected: {', '.join(items)}"))
                continue
            lo, hi = param_range(name, r.item)
            if not lo <= r.value <= hi:
                what = ("at least 1" if lo == 1 else "0 or more" if lo == 0 else "0 or less")
                _err(collector, DataError(str(f[f"{name}.csv"]), r.line, "value",
                                          f"{r.item} = {r.value}: must be {what} ({r.source})"))
            vals[r.item] = r.value
            sources[f"{name}.{r.item}"] = r.source
        if f"{name}.csv" not in broken:
            for it in items:
                if it not in vals:
                    _err(collector, DataError(str(f[f"{name}.csv"]), None, "item", f"missing item {it!r}"))
        params[name] = vals

    return IodTables(weather, w_by_roll, air_by_w, mods, results, militia, rn, we_min, we_x, air, drop, zones,
                     params, sources)
