"""``malta-sim data``: validate, describe and export game data folders."""

from __future__ import annotations

import click

from ..errors import DataErrors, OptionError


@click.group("data")
def command():
    """Check, describe or export game data (map, charts, counters, scenarios, tables)."""


def _one_folder(cmd: str, data_dir, data_dir_opt):
    """The data folder given as the DATA_DIR argument or as ``--data-dir``
    (None: the packaged data).

    Raises
    ------
    OptionError
        Both were given.
    """
    if data_dir is not None and data_dir_opt is not None:
        raise OptionError(f"data {cmd}: give the data directory once, either as DATA_DIR or as --data-dir, "
                          "not both")
    folder = data_dir or data_dir_opt
    if folder is not None and _is_invasion_malta(folder):
        raise OptionError(f"data {cmd}: {folder} holds Invasion: Malta data (it has {_IM_MARKER}), and "
                          f"`data {cmd}` reads Island of Death folders; check it with "
                          f"`malta-sim im check-data --data-dir {folder}`")
    return folder


#: A file only an Invasion: Malta data folder has (malta_sim.games.invasion_malta.data).
_IM_MARKER = "invasion_zones.csv"


def _is_invasion_malta(folder) -> bool:
    """``folder`` is an Invasion: Malta data folder: it has the Invasion Zone
    file and not the Island of Death ``tables/`` folder."""
    from pathlib import Path

    p = Path(folder)
    return (p / _IM_MARKER).is_file() and not (p / "tables").is_dir()


@command.command("check")
@click.argument("data_dir", required=False, type=click.Path(file_okay=False))
@click.option("--data-dir", "data_dir_opt", type=click.Path(file_okay=False), default=None,
              help="Data directory (same as the DATA_DIR argument); default: the packaged data.")
def check(data_dir, data_dir_opt):
    """Validate DATA_DIR (default: the packaged Island of Death data).

    Exit status 0 when every file is valid; otherwise one line per problem
    (file:line: field 'name': what is wrong) and exit status 2.
    """
    from ..loaders import check_iod
    from ..loaders.common import hash_dir, resolve_data_dir

    folder = _one_folder("check", data_dir, data_dir_opt)
    problems = check_iod(folder)
    if problems:
        raise DataErrors(problems)
    path = resolve_data_dir(folder)
    click.echo(f"ok: {path} is valid (data hash {hash_dir(path)})")


@command.command("info")
@click.argument("data_dir", required=False, type=click.Path(file_okay=False))
@click.option("--data-dir", "data_dir_opt", type=click.Path(file_okay=False), default=None,
              help="Data directory (same as the DATA_DIR argument); default: the packaged data.")
def info(data_dir, data_dir_opt):
    """Summarise DATA_DIR (default: the packaged data): pieces, scenarios, hash
    and reconstructed rows per file."""
    from ..loaders import load_iod

    d = load_iod(_one_folder("info", data_dir, data_dir_opt))
    click.echo(f"data directory: {d.data_dir}")
    click.echo(f"data hash: {d.data_hash}")
    click.echo(f"pieces: {d.unit_arrays.n} ({len(d.units.designs)} counter designs)")
    for name, s in sorted(d.scenarios.items()):
        click.echo(f"scenario {name}: {s.title}; {s.n_turns} turns; {len(s.setup)} pieces on the map, "
                   f"{len(s.boxes)} in boxes")
    click.echo("reconstructed rows per file:")
    for f, n in d.reconstructed.items():
        if n:
            click.echo(f"  {f}: {n}")


#: Games whose packaged data ``data export`` writes.
GAMES = ("island_of_death", "invasion_malta")


@command.command("export")
@click.argument("out_dir", metavar="DIR", type=click.Path(file_okay=False))
@click.option("--game", default="island_of_death", show_default=True, metavar="GAME",
              help="Whose data: island_of_death or invasion_malta.")
@click.option("--overwrite", is_flag=True, help="Write into DIR even if it already holds files.")
def export(out_dir, game, overwrite):
    """Write the packaged data of a game into DIR as an editable folder.

    Edit the copy, check it with 'malta-sim data check DIR' (Invasion: Malta:
    'malta-sim im check-data --data-dir DIR'), then play it with 'malta-sim
    run --data-dir DIR' or name it as data_dir in a sweep arm.  The copy has
    the packaged data's hash until a file is changed.
    """
    import shutil
    from pathlib import Path

    from ..loaders.common import hash_dir, packaged_data_dir
    from .common import check_new_folder

    if game not in GAMES:
        raise OptionError(f"unknown --game {game!r}; choose one of: {', '.join(GAMES)}")
    check_new_folder(out_dir, "DIR", overwrite)
    src = packaged_data_dir(game)
    dst = Path(out_dir)
    files = sorted(p for p in src.rglob("*") if p.is_file() and p.suffix in (".csv", ".toml", ".md")
                   and "__pycache__" not in p.parts)
    for p in files:
        target = dst / p.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, target)
    check = f"malta-sim data check {dst}" if game == "island_of_death" else f"malta-sim im check-data --data-dir {dst}"
    click.echo(f"wrote {dst}: {len(files)} files of the packaged {game} data (data hash {hash_dir(dst)}); "
               f"edit them, check with '{check}' and play with --data-dir {dst}")
