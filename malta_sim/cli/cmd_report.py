"""``malta-sim report RESULTS --out DIR``: balance report of a result frame."""

from __future__ import annotations

import os

import click

from ..errors import OptionError
from .common import check_new_folder, overwrite_option

#: Files a report writes (an existing one is replaced only with --overwrite).
REPORT_FILES = ("report.md", "summary.json", "*.png")


@click.command("report")
@click.argument("results", type=click.Path())
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output folder.")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="1 - confidence level of intervals.")
@click.option("--per-turn", "per_turn", default=None, type=click.Path(), help="Per-turn frame (malta-sim run --per-turn FILE).")
@click.option("--baseline", default=None, metavar="ARM",
              help="The arm the others are compared with, game by game: its name as this command prints it, "
                   "quoted when it has spaces (a balance cell: --baseline \"tuned vs active\"; a sweep grid arm: "
                   "--baseline \"axis_policy=balanced, options=none\").  Default: the first arm of the file.  "
                   "A name that is not an arm is refused with the list of arms.")
@click.option("--title", default=None, help="Report title.")
@overwrite_option
def command(results, out_dir, per_turn, alpha, baseline, title, overwrite):
    """Write DIR/summary.json, DIR/report.md and PNG charts for RESULTS.

    RESULTS is a .parquet/.csv file of game rows, or the checkpoint folder
    of `malta-sim run` / `malta-sim sweep` (FILE.checkpoint or --checkpoint
    DIR: the games finished so far; the report says it is partial).  An
    --out folder that already holds a report is refused unless --overwrite
    is given.
    """
    from ..analysis import load_results
    from ..report import write_report

    if not 0 < alpha < 1:
        raise OptionError(f"--alpha must lie in (0, 1), got {alpha}")
    check_new_folder(out_dir, "--out", overwrite, REPORT_FILES)
    games, per_turn = load_results(results, per_turn)
    s = write_report(games, out_dir, per_turn=per_turn, alpha=alpha, baseline=baseline, title=title,
                     source=str(results))
    heads = s["axis_win_rate_by_arm"]
    if len(heads) == 1:
        a = heads[0]
        click.echo(f"{s['games']} games, Axis win rate {100 * a['rate']:.1f}% "
                   f"({100 * a['low']:.1f}-{100 * a['high']:.1f}%): {a['verdict']}")
    else:
        click.echo(f"{s['games']} games in {len(heads)} arms (played on the same seeds; not pooled):")
        for a in heads:
            click.echo(f"  {a['arm']}: Axis win rate {100 * a['rate']:.1f}% "
                       f"({100 * a['low']:.1f}-{100 * a['high']:.1f}%): {a['verdict']}")
    b = s.get("balance")
    if b:
        click.echo(f"preset matrix: equilibrium Axis win rate {100 * b['value']:.1f}% "
                   f"({100 * b['value_low']:.1f}-{100 * b['value_high']:.1f}%, bootstrap), heat map balance_matrix.png")
    click.echo(f"wrote {os.path.join(os.path.normpath(out_dir), 'report.md')}, summary.json and "
               f"{len(s['files'])} charts")
