"""Loaders: parse and validate data files into typed tables and dense arrays.

:func:`load_iod` reads a whole Island of Death data directory (default: the
packaged ``malta_sim/data/island_of_death``) and returns :class:`IodData`:

- ``units`` (:class:`~malta_sim.loaders.iod_units.UnitTables`) and
  ``unit_arrays`` (:class:`~malta_sim.loaders.iod_units.UnitArrays`): every piece,
  its strength levels and values, as typed rows and as ``[n_pieces, MAX_LEVELS]``
  arrays;
- ``scenarios`` (name -> :class:`~malta_sim.loaders.iod_scenarios.Scenario`);
- ``tables`` (:class:`~malta_sim.loaders.iod_tables.IodTables`): weather,
  surrender, militia, Royal Navy intervention, landing and airborne losses,
  Water's Edge Combat, air attacks and the small printed procedure tables;
- ``map`` (``malta_sim.loaders.iod_map.load_map``) and ``charts``
  (``malta_sim.loaders.iod_charts.load_charts``) when those modules are present;
- ``data_hash``: sha256 (16 hex digits) over every CSV/TOML file, for provenance.

:func:`check_iod` runs the same validation and returns every problem found
(``malta-sim data check``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DataError, DataErrors
from .common import Collector, hash_dir, one_read_per_file, read_text, resolve_data_dir

__all__ = ["IodData", "load_iod", "check_iod", "reconstructed_components", "COMPONENTS"]


@dataclass
class IodData:
    """Everything the Island of Death engine reads, validated.

    Attributes
    ----------
    data_dir : Path
    units : UnitTables
    unit_arrays : UnitArrays
    scenarios : dict[str, Scenario]
    tables : IodTables or None
        None only while ``iod_tables`` is absent.
    map : object or None
        Result of ``malta_sim.loaders.iod_map.load_map(data_dir)``; None when that
        module is absent.
    charts : IodCharts or None
        Result of ``malta_sim.loaders.iod_charts.load_charts(data_dir)``; None when absent.
    data_hash : str
        :func:`malta_sim.loaders.common.hash_dir` of ``data_dir``.
    reconstructed : dict[str, int]
        Data file -> number of rows whose ``source`` is ``reconstructed`` (provenance).
    """

    data_dir: Path
    units: object
    unit_arrays: object
    scenarios: dict
    tables: object = None
    map: object = None
    charts: object = None
    data_hash: str = ""
    reconstructed: dict = field(default_factory=dict)

    def reconstructed_components(self, scenario: str | None = None) -> list[str]:
        """The data components that hold reconstructed (not printed) rows.

        Read from :attr:`reconstructed` (rows whose ``source`` says
        ``reconstructed``), so a folder given with ``--data-dir`` whose rows
        all cite rules (``source = rule N.NN``) lists nothing for those files.

        Parameters
        ----------
        scenario : str, optional
            Only this scenario's file counts among ``scenarios/``; default all.

        Returns
        -------
        list of str
            Component names in a fixed order (:data:`COMPONENTS`): ``map``,
            ``TEC``, ``CRT``, ``bombardment``, ``drop``, ``scatter``,
            ``tables/<name>``, ``units``, ``scenario <name>``; a file this list
            does not know is named by its path.
        """
        return reconstructed_components(self.reconstructed, scenario)

    def scenario(self, name: str):
        """The scenario ``name``.

        Raises
        ------
        OptionError
            If there is no such scenario (the message lists the names).
        """
        from ..errors import OptionError

        if name not in self.scenarios:
            raise OptionError(f"unknown scenario {name!r}; the data has: {', '.join(sorted(self.scenarios))}")
        return self.scenarios[name]


#: Data file -> the component it belongs to (provenance names, rule areas):
#: the map (rules 4, 12.5), the Terrain Effects Chart (rule 6/9.7), the charts
#: of combat (9.3), bombardment (10), airborne drop (14) and scatter (14.4),
#: the counters (units, leaders, artillery, warships, coastal guns, breakdown).
COMPONENTS: dict[str, str] = {
    "hexes.csv": "map", "hexsides.csv": "map", "beach_zones.csv": "map", "beach_boxes.csv": "map",
    "places.csv": "map", "terrain.csv": "map",
    "terrain_effects.csv": "TEC",
    "crt.csv": "CRT", "crt_lines.csv": "CRT",
    "bombardment.csv": "bombardment", "bombardment_lines.csv": "bombardment",
    "drop_table.csv": "drop",
    "scatter.csv": "scatter",
    "units.csv": "units", "unit_steps.csv": "units", "leaders.csv": "units", "artillery.csv": "units",
    "warships.csv": "units", "coastal_guns.csv": "units", "breakdown.csv": "units",
}
_ORDER = ("map", "TEC", "CRT", "bombardment", "drop", "scatter", "tables", "units", "scenario")


def reconstructed_components(reconstructed: dict[str, int], scenario: str | None = None) -> list[str]:
    """Components with reconstructed rows, from ``{file: reconstructed rows}``.

    See :meth:`IodData.reconstructed_components`.  ``tables/<name>.csv`` gives
    ``tables/<name>``, ``scenarios/<name>.toml`` gives ``scenario <name>``.
    """
    found: dict[str, None] = {}
    for f, n in reconstructed.items():
        if not n:
            continue
        rel = Path(f).as_posix()
        if rel.startswith("scenarios/"):
            stem = Path(rel).stem
            if scenario is not None and stem != scenario:
                continue
            found[f"scenario {stem}"] = None
        elif rel.startswith("tables/"):
            found[f"tables/{Path(rel).stem}"] = None
        else:
            found[COMPONENTS.get(rel, rel)] = None

    def key(c):
        head = c.split("/")[0].split(" ")[0]
        return (_ORDER.index(head) if head in _ORDER else len(_ORDER), c)

    return sorted(found, key=key)


def _optional(module: str, fn: str):
    """``malta_sim.loaders.<module>.<fn>`` or None when the module is not in this build."""
    try:
        mod = importlib.import_module(f"{__name__}.{module}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__name__}.{module}":
            return None
        raise
    return getattr(mod, fn, None)


def _count_reconstructed(folder: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in sorted(folder.rglob("*")):
        if p.suffix not in (".csv", ".toml") or not p.is_file():
            continue
        try:
            text = read_text(p)
        except DataError:      # not UTF-8: the file's own loader reports it
            text = ""
        n = sum(1 for ln in text.split("\n") if "reconstructed" in ln and not ln.lstrip().startswith("#"))
        out[str(p.relative_to(folder))] = n
    return out


def _load(data_dir, collector: Collector | None) -> IodData:
    """Every loader of the folder, each file read from disk once
    (:func:`~malta_sim.loaders.common.one_read_per_file`)."""
    with one_read_per_file():
        return _load_files(data_dir, collector)


def _load_files(data_dir, collector: Collector | None) -> IodData:
    from .iod_scenarios import MapView, load_scenarios
    from .iod_units import load_units, unit_arrays

    folder = resolve_data_dir(data_dir)
    run = (lambda f: collector.run(f)) if collector is not None else (lambda f: f())

    units = run(lambda: load_units(folder, collector))
    mp = None
    load_map = _optional("iod_map", "load_map")
    if load_map is not None:
        mp = run(lambda: load_map(folder))
    charts = None
    load_charts = _optional("iod_charts", "load_charts")
    if load_charts is not None:
        charts = run(lambda: load_charts(folder))
    view = run(lambda: MapView.from_dir(folder, collector))
    tables = None
    load_tables = _optional("iod_tables", "load_tables")
    if load_tables is not None:
        tables = run(lambda: load_tables(folder, collector, view))
    scenarios = {}
    if units is not None:
        scenarios = run(lambda: load_scenarios(units, folder, view, collector)) or {}
    arrays = unit_arrays(units) if units is not None else None
    return IodData(folder, units, arrays, scenarios, tables, mp, charts, hash_dir(folder),
                   _count_reconstructed(folder))


def load_iod(data_dir: str | Path | None = None) -> IodData:
    """Load and validate an Island of Death data directory.

    Parameters
    ----------
    data_dir : path, optional
        Directory holding ``units.csv``, ``scenarios/``, ``tables/``, the map and chart
        files; default the packaged data.

    Returns
    -------
    IodData

    Raises
    ------
    DataError
        The first problem found (file, line, field, what was expected).
    """
    return _load(data_dir, None)


#: Files whose problems make the checks of other files meaningless: a unit that
#: ``units.csv`` lost reappears as an "unknown unit" in every file naming it.
#: Keys and values are paths relative to the data folder (a value ending in
#: ``/`` covers the folder).
DEPENDS_ON: dict[str, tuple[str, ...]] = {
    "units.csv": ("unit_steps.csv", "leaders.csv", "artillery.csv", "warships.csv", "coastal_guns.csv",
                  "breakdown.csv", "scenarios/"),
    "unit_steps.csv": ("scenarios/",),
    "hexes.csv": ("hexsides.csv", "beach_zones.csv", "beach_boxes.csv", "places.csv", "scenarios/", "tables/"),
}


def _follow_on(errors: list[DataError], folder: Path) -> list[DataError]:
    """Drop the problems of files that depend on a file that has problems
    (:data:`DEPENDS_ON`), with one line saying which files were not checked."""
    def rel(e):
        try:
            return Path(e.file).resolve().relative_to(folder.resolve()).as_posix()
        except (ValueError, OSError):
            return e.file

    failed = {rel(e) for e in errors}
    muted: dict[str, str] = {}
    for up, downs in DEPENDS_ON.items():          # upstream files first
        if up not in failed or up in muted:
            continue
        for r in failed:
            if r != up and r not in muted and any(r == d or (d.endswith("/") and r.startswith(d)) for d in downs):
                muted[r] = up
    if not muted:
        return errors
    kept = [e for e in errors if rel(e) not in muted]
    by_up: dict[str, list[str]] = {}
    for r, up in muted.items():
        by_up.setdefault(up, []).append(r)
    for up, files in by_up.items():
        kept.append(DataError(str(folder / up), None, None,
                              f"{', '.join(sorted(files))} not checked further: they refer to {up}, which has the "
                              "problems above; fix those first"))
    return kept


def check_iod(data_dir: str | Path | None = None) -> list[DataError]:
    """Validate a data directory and return every problem found (empty list: valid).

    Each loader collects the problems of its files; a file that cannot be read at
    all (missing, missing column, not UTF-8) gives one problem and the checks
    that depend on it are skipped.  Problems that only follow from another
    file's (a unit missing from a truncated ``units.csv`` named in the scenarios
    and counter files) are not listed: one line names the files left unchecked
    (:data:`DEPENDS_ON`).
    """
    col = Collector()
    try:
        _load(data_dir, col)
    except DataErrors as es:
        col.errors.extend(es.errors)
    except DataError as e:
        col.add(e)
    except Exception as exc:  # a check must report, never crash, on a broken directory
        if not col.errors:
            raise
        col.add(DataError(str(data_dir or "data"), None, None,
                          f"checking stopped after the problems above ({type(exc).__name__}: {exc})"))
    folder = Path(data_dir) if data_dir is not None else None
    errors = col.errors
    if folder is not None or data_dir is None:
        try:
            errors = _follow_on(errors, resolve_data_dir(data_dir))
        except DataError:
            pass
    # de-duplicate while keeping order
    seen, out = set(), []
    for e in errors:
        k = e.format()
        if k not in seen:
            seen.add(k)
            out.append(e)
    return out
