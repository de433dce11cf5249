"""``malta-sim sweep``: play a grid of arms on common random numbers.

The sweep file format is documented in ``docs/batch.md``; an example is
``experiments/sweep_example.toml``.  Library side:
:func:`malta_sim.batch.load_sweep`, :func:`malta_sim.batch.run_sweep`.
"""

from __future__ import annotations

import click

from .cmd_run import (
    batch_options,
    check_data_dir,
    check_outputs,
    play_keeping_games,
    remove_default_checkpoint,
    write_outputs,
)


@click.command("sweep")
@click.argument("sweep_file", metavar="FILE.toml")
@click.option("--games", "n_games", default=None, type=int, help="Games per arm (default: games = N in the file).")
@click.option("--seed", default=None, type=int, help="Master seed (default: seed = S in the file).")
@batch_options(
    checkpoint_help="Keep finished games here, one subdirectory per arm (default: FILE.checkpoint beside --out, "
                    "removed when the sweep completes); re-running the same command resumes.",
    per_turn_help="Also write the per-turn frames (with an arm column), .parquet or .csv.",
)
def command(sweep_file, n_games, seed, n_jobs, data_dir, backend, scheduler, chunk_size, checkpoint, overwrite,
            per_turn_out, out, skip_failed, quiet):
    """Play every arm of FILE.toml on the same game seeds; one frame with an `arm` column.

    Arms are a grid of policies, bot parameters, options and data folders
    (docs/batch.md); --data-dir is the data of arms that name none.  Every
    arm plays games 0..N-1 under the same seed (common random numbers), so
    differences between arms are paired game by game.
    """
    from ..batch import load_sweep, run_sweep
    from ..errors import OptionError
    from ..summary import format_summary

    check_outputs(backend, scheduler, out, per_turn_out, overwrite)
    if n_games is not None and n_games < 1:
        raise OptionError(f"--games must be an integer >= 1, got {n_games}")
    sweep = load_sweep(sweep_file)
    check_data_dir(sweep.scenario, data_dir)
    for folder in dict.fromkeys(a.data_dir for a in sweep.arms if a.data_dir is not None):
        check_data_dir(sweep.scenario, folder)

    def play(folder):
        return run_sweep(
            sweep,
            n_games,
            seed=seed,
            n_jobs=n_jobs,
            backend=backend,
            scheduler=scheduler,
            chunk_size=chunk_size,
            checkpoint=folder,
            data_dir=data_dir,
            per_turn=per_turn_out is not None,
            progress=not quiet,
            on_error="skip" if skip_failed else "raise",
        )

    res, own_folder = play_keeping_games(play, checkpoint, out, overwrite)
    df, turns = write_outputs(res, out, per_turn_out)
    remove_default_checkpoint(own_folder)
    if not quiet:
        click.echo(format_summary(df))
        click.echo(f"wrote {out} ({len(df)} rows, {df['arm'].nunique()} arms)")
