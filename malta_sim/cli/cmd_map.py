"""``malta-sim map``: draw the Island of Death map (terrain, hexsides, hex ids,
beach zones and boxes, named places) with a scenario's set-up stacks, as a PNG."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import OptionError
from .common import check_new_file, overwrite_option

SCENARIOS = ("intro", "hercules")


@click.command("map")
@click.option("--scenario", default=None, help="Draw the set-up stacks of this scenario: intro or hercules.")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False), help="PNG file to write.")
@click.option("--data-dir", "data_dir", default=None, type=click.Path(), help="Data directory (default: packaged).")
@click.option("--full", is_flag=True, default=False, help="Draw the whole 26x20 grid, not only the island.")
@click.option("--no-ids", is_flag=True, default=False, help="Leave out the hex ids.")
@overwrite_option
def command(scenario, out, data_dir, full, no_ids, overwrite):
    """Draw the Island of Death map to a PNG file."""
    if scenario is not None and scenario not in SCENARIOS:
        raise OptionError(f"unknown --scenario {scenario!r}; choose one of: {', '.join(SCENARIOS)}")
    out_path = Path(out)
    if out_path.suffix.lower() != ".png":
        raise OptionError(f"--out {out!r} must name a .png file")
    if out_path.parent and not out_path.parent.exists():
        raise OptionError(f"--out: folder {str(out_path.parent)!r} does not exist")
    check_new_file(out_path, "--out", overwrite)
    from ..loaders.iod_map import load_map
    from ..plots_map import draw_map

    if scenario is not None:
        # the set-up must pass the same validation as `data check` and `run`
        # (e.g. ground units on an ocean hex): the first problem, one line, exit 2
        from ..loaders import load_iod

        load_iod(data_dir).scenario(scenario)
    m = load_map(data_dir)
    draw_map(m, scenario=scenario, data_dir=data_dir, show_ids=not no_ids, full=full, out=out_path)
    click.echo(f"wrote {out_path}")
