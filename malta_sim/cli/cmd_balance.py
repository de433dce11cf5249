"""``malta-sim balance SCENARIO``: every Axis preset against every Allied preset,
on common random numbers, and the equilibrium of the preset matrix.

Library side: :func:`malta_sim.batch.run_balance` (the games) and
:func:`malta_sim.analysis.balance.analyse_balance` (matrix, equilibrium,
bootstrap, support, dominance).  Method: ``docs/balance.md``.
"""

from __future__ import annotations

import click

from ..errors import OptionError
from .cmd_run import (
    batch_options,
    check_data_dir,
    check_outputs,
    play_keeping_games,
    remove_default_checkpoint,
    split_options,
    write_outputs,
)


def _names(values) -> list[str] | None:
    out = split_options(values)
    return out or None


@click.command("balance")
@click.argument("scenario")
@click.option("--games", "n_games", required=True, type=int, help="Games per cell (pairing of presets), >= 1.")
@click.option("--seed", required=True, type=int, help="Master seed shared by every cell (>= 0).")
@click.option("--axis", "axis", multiple=True, metavar="PRESET",
              help="Axis presets to play (repeat or comma-separate; default: every Axis preset, random included).")
@click.option("--allied", "allied", multiple=True, metavar="PRESET",
              help="Allied presets to play (default: every Allied preset, random included).")
@click.option("--option", "options", multiple=True, metavar="NAME",
              help="Optional rule of every cell; repeat (or comma-separate) for several (see malta-sim run --help).")
@click.option("--bootstrap", "n_boot", default=1000, show_default=True, type=int,
              help="Bootstrap resamples of the games for the equilibrium's interval.")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="1 - confidence level of the intervals.")
@batch_options(
    checkpoint_help="Keep finished games here, one subfolder per cell (default: FILE.checkpoint beside --out, "
                    "removed when the run completes); re-running the same command resumes.",
    per_turn_help="Also write the per-turn frames (with an arm column), .parquet or .csv.",
)
def command(scenario, n_games, seed, axis, allied, options, n_boot, alpha, n_jobs, data_dir, backend, scheduler,
            chunk_size, checkpoint, overwrite, per_turn_out, out, skip_failed, quiet):
    """Play every Axis preset against every Allied preset of SCENARIO and solve the matrix.

    Every cell plays games 0..N-1 under the same --seed (common random
    numbers).  Writes one row per game to --out (columns axis_policy and
    allied_policy name the pairing; arm = "<axis> vs <allied>") and prints the
    matrix of Axis win rates with Wilson intervals, the equilibrium Axis win
    rate with a bootstrap interval, each side's best mixture of presets, the
    cells it rests on and the dominated presets.  `malta-sim report FILE`
    draws the heat map.  Method: docs/balance.md.  Example:

      malta-sim balance hercules --games 300 --seed 1942 --jobs 2 --out hercules_balance.parquet
    """
    from ..batch import run_balance

    if n_games < 1:
        raise OptionError(f"--games must be an integer >= 1, got {n_games}")
    if seed < 0:
        raise OptionError(f"--seed must be an integer >= 0, got {seed}")
    if n_boot < 1:
        raise OptionError(f"--bootstrap must be an integer >= 1, got {n_boot}")
    if not 0 < alpha < 1:
        raise OptionError(f"--alpha must lie in (0, 1), got {alpha}")
    check_outputs(backend, scheduler, out, per_turn_out, overwrite)
    check_data_dir(scenario, data_dir)
    opts = split_options(options)
    axis_names, allied_names = _names(axis), _names(allied)
    from ..batch import balance_sweep

    balance_sweep(scenario, seed, axis_names, allied_names, opts)       # every name checked before any game

    def play(folder):
        return run_balance(scenario, n_games, seed, axis=axis_names, allied=allied_names, options=opts,
                           n_jobs=n_jobs, backend=backend, scheduler=scheduler, chunk_size=chunk_size,
                           checkpoint=folder, data_dir=data_dir, per_turn=per_turn_out is not None,
                           progress=not quiet, on_error="skip" if skip_failed else "raise")

    res, own_folder = play_keeping_games(play, checkpoint, out, overwrite)
    df, _ = write_outputs(res, out, per_turn_out)
    remove_default_checkpoint(own_folder)
    if not quiet:
        from ..analysis.balance import analyse_balance, format_balance

        click.echo(format_balance(analyse_balance(df, n_boot=n_boot, alpha=alpha)))
        click.echo(f"wrote {out} ({len(df)} rows, {df['arm'].nunique()} cells); "
                   f"malta-sim report {out} --out DIR draws the heat map")
