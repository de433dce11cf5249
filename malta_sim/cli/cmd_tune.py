"""``malta-sim tune SCENARIO``: search a side's bot parameters on common random numbers.

Library side: :func:`malta_sim.tuning.tune`.  Tuned presets are written with
``--save-preset NAME`` into ``malta_sim/data/bots/tuned.toml`` (the file the
package loads, :mod:`malta_sim.bots.tuned`), with the command that made them.
Method: ``docs/balance.md``.
"""

from __future__ import annotations

import shlex

import click

from ..errors import OptionError
from .cmd_run import check_data_dir, play_keeping_games, remove_default_checkpoint, split_options


def _command_line(scenario, side, start, opponent, params, trials, games, seed, rounds, options, validate_games,
                  validate_seed, startup, name) -> str:
    parts = ["malta-sim", "tune", scenario, "--side", side, "--start", start, "--opponent", opponent]
    if params:
        parts += ["--params", ",".join(params)]
    parts += ["--trials", str(trials), "--games", str(games), "--seed", str(seed), "--rounds", str(rounds)]
    if startup is not None:
        parts += ["--startup-trials", str(startup)]
    for o in options:
        parts += ["--option", o]
    parts += ["--validate-games", str(validate_games), "--validate-seed", str(validate_seed)]
    if name:
        parts += ["--save-preset", name, "--overwrite"]
    parts += ["--out", "tune.csv"]
    return " ".join(shlex.quote(p) for p in parts)


@click.command("tune")
@click.argument("scenario")
@click.option("--side", default="axis", show_default=True, type=str, help="Side tuned (in round 1): axis or allied.")
@click.option("--start", default=None, metavar="PRESET", help="Preset the search starts from (default: the side's default).")
@click.option("--opponent", default=None, metavar="PRESET",
              help="The other side's preset, held fixed (default: its default preset).")
@click.option("--params", "params", multiple=True, metavar="NAME",
              help="Parameters searched (repeat or comma-separate; default: every slot of the side's vector; "
                   "names in docs/policies.md).")
@click.option("--trials", default=20, show_default=True, type=int, help="Trials per round, the start included.")
@click.option("--games", "n_games", default=50, show_default=True, type=int,
              help="Games per trial (the same game indices and seed for every trial).")
@click.option("--seed", required=True, type=int, help="Seed of the tuning games and of the sampler (>= 0).")
@click.option("--rounds", default=1, show_default=True, type=int,
              help="1: best response to --opponent; more: alternate best responses, side by side.")
@click.option("--startup-trials", default=None, type=int,
              help="Random trials before the sampler models the results (default: a third of --trials, at least 2).")
@click.option("--option", "options", multiple=True, metavar="NAME", help="Optional rule of every game.")
@click.option("--validate-games", default=None, type=int,
              help="Fresh games on which start and best are compared, paired (default: 2 x --games; 0: none).")
@click.option("--validate-seed", default=None, type=int, help="Seed of the validation games (default: --seed + 1).")
@click.option("--jobs", "n_jobs", default=1, show_default=True, type=int, help="Worker processes for each trial's games.")
@click.option("--data-dir", default=None, metavar="DIR", help="Game-data directory replacing the packaged data.")
@click.option("--checkpoint", default=None, metavar="DIR",
              help="Keep the trials here (optuna journal; default: FILE.checkpoint beside --out, removed when the "
                   "tune completes); re-running the same command resumes.")
@click.option("--save-preset", "save_name", default=None, metavar="NAME",
              help="Save the best vector as preset NAME (axis:NAME / allied:NAME) in --preset-file.")
@click.option("--preset-file", default=None, metavar="FILE.toml",
              help="File of tuned presets (default: the packaged malta_sim/data/bots/tuned.toml).")
@click.option("--out", "out", required=True, metavar="FILE", help="Table of trials: .parquet (or .pq) or .csv.")
@click.option("--overwrite", is_flag=True, help="Replace --out, or a saved preset of the same name.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def command(scenario, side, start, opponent, params, trials, n_games, seed, rounds, startup_trials, options,
            validate_games, validate_seed, n_jobs, data_dir, checkpoint, save_name, preset_file, out, overwrite,
            quiet):
    """Search a bot's parameter vector of SCENARIO against a fixed opponent preset.

    Every candidate plays the same --games games (indices 0..N-1 of --seed:
    common random numbers) and is scored by its side's win rate; the start
    preset is trial 0.  With --rounds 2 or more the sides take turns, each
    tuned against the other's best so far.  Prints progress, the best vector
    and its paired win-rate difference against the start, on the tuning
    games and on fresh validation games.  Interrupted (Ctrl-C), the same
    command resumes.  Example:

      malta-sim tune hercules --side axis --start balanced --opponent active --trials 10 --games 60 --seed 7 --jobs 2 --out tune.csv

    Tune against an opponent that wins some games: against static, balanced
    and tuned win every Hercules game, so every candidate ties and nothing is
    learnt.
    """
    from ..batch import check_output_path, write_frame
    from ..bots.tuned import TUNED_FILE
    from ..tuning import format_tune, save_presets, tune
    from .common import check_new_file

    check_output_path(out, "--out")
    check_new_file(out, "--out", overwrite)
    if side not in ("axis", "allied"):
        raise OptionError(f"--side must be axis or allied, got {side!r}")
    for opt, v, lo in (("--trials", trials, 1), ("--games", n_games, 1), ("--seed", seed, 0), ("--rounds", rounds, 1),
                       ("--jobs", n_jobs, 1), ("--validate-games", validate_games, 0),
                       ("--validate-seed", validate_seed, 0), ("--startup-trials", startup_trials, 0)):
        if v is not None and v < lo:
            raise OptionError(f"{opt} must be an integer >= {lo}, got {v}")
    if save_name is not None:
        from ..bots.presets import PRESETS

        if not save_name.replace("_", "").isalnum() or save_name in PRESETS or save_name == "random":
            raise OptionError(f"--save-preset {save_name!r}: give a new name of letters, digits and _ "
                              f"(not a hand-made preset: {', '.join(PRESETS)}, random)")
    if preset_file is not None and not str(preset_file).endswith(".toml"):
        raise OptionError(f"--preset-file {preset_file!r}: must be a .toml file")
    check_data_dir(scenario, data_dir)
    opts = split_options(options)
    names = split_options(params) or None
    vg = 2 * n_games if validate_games is None else validate_games
    vs = seed + 1 if validate_seed is None else validate_seed

    def play(folder):
        return tune(scenario, side=side, start=start, opponent=opponent, params=names, trials=trials, games=n_games,
                    seed=seed, rounds=rounds, options=opts, validate_games=vg, validate_seed=vs, checkpoint=folder,
                    data_dir=data_dir, n_jobs=n_jobs, startup_trials=startup_trials, progress=not quiet)

    res, own = play_keeping_games(play, checkpoint, out, overwrite)
    write_frame(res.trials_frame(), out)
    click.echo(format_tune(res))
    if save_name is not None:
        r0 = res.rounds[0]
        cmd = _command_line(scenario, side, r0.start, r0.opponent, names, trials, n_games, seed, rounds, opts, vg, vs,
                            startup_trials, save_name)
        written = save_presets(res, save_name, preset_file or TUNED_FILE, cmd, overwrite=overwrite)
        click.echo(f"saved preset(s) {', '.join(written)} in {preset_file or TUNED_FILE}")
    remove_default_checkpoint(own)
    click.echo(f"wrote {out} ({len(res.trials_frame())} trials)")
