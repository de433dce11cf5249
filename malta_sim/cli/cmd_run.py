"""``malta-sim run``: play N seeded games of a scenario and write one row per game.

A thin layer over :func:`malta_sim.batch.run_games`; the summary printed at the
end comes from :func:`malta_sim.summary.format_summary`.
"""

from __future__ import annotations

import click

from ..errors import OptionError


#: What each scenario option does and the rule behind it (``--option NAME``).
OPTION_DOCS: dict[str, tuple[str, str]] = {
    "no_invasion": ("testing aid, not a printed rule: the invasion rules (amphibious and airborne "
                    "landings, warships, coastal guns, militia, Hercules preparation; rules 16-19, "
                    "21, 22.3) are switched off, so only the set-up and the land war are played",
                    "none (engine switch)"),
    "solitaire": ("solo rules: the Axis beach zones are rolled, drop zone markers are placed by "
                  "one of the two solo methods, and every jump rolls with the solo +2",
                  "rules 21.0-21.2"),
    "variable_allied_placement": ("the Allied bot places its units in any eligible hex instead of "
                                  "the printed set-up (RN security in ports, RAF security on "
                                  "airfields, one per hex)", "rule 22.39"),
    "delayed_landings": ("each day-time Axis Status Phase the Axis rolls whether the Regia Marina "
                         "delays the Italian landings", "rules 22.39, 4.21 e"),
    "weather-roll": ("roll the weather each turn instead of the scenario's always-Good weather",
                     "rules 5.11, 5.13"),
    "dispersed-group-b": ("Allied Group B units are placed at random within their sectors "
                          "instead of the historical set-up", "rules 4.14, 4.15"),
    "no-first-turn-penalty": ("drop the Allied movement-point penalty of game turn 1 (scenario "
                              "setting allied_gt1_mp_penalty)", "rule 7.12"),
}


class RunCommand(click.Command):
    """``run`` with the scenario options listed after the option table."""

    def format_epilog(self, ctx, formatter):
        from ..games.registry import get_scenario, scenario_names

        with formatter.section("Bots (--axis-policy / --allied-policy; the first is the default)"):
            rows = []
            for n in scenario_names():
                spec = get_scenario(n)
                if not spec.play.startswith("malta_sim."):
                    continue
                ax = [p for p in spec.axis_policies if ":" not in p]      # 'axis:balanced' spellings left out
                al = [p for p in spec.allied_policies if ":" not in p]
                rows.append((n, f"Axis: {', '.join(ax) or '(one built-in)'}; Allied: {', '.join(al) or '(one built-in)'}"))
            formatter.write_dl(rows)
            formatter.write_paragraph()
            formatter.write_text("What each bot does: docs/policies.md.")
        with formatter.section("Scenario options"):
            from ..games.registry import get_scenario, scenario_names

            names = [n for n in scenario_names() if get_scenario(n).play.startswith("malta_sim.")]
            rows = [(n, ", ".join(get_scenario(n).options) or "(none)") for n in names]
            formatter.write_dl(rows)
            formatter.write_paragraph()
            seen: list[str] = []
            for n in names:
                seen += [o for o in get_scenario(n).options if o not in seen]
            formatter.write_dl([(o, "%s [%s]" % OPTION_DOCS.get(o, ("(undocumented)", "?")))
                                for o in seen])
        super().format_epilog(ctx, formatter)


def check_backend(backend: str, scheduler: str | None) -> None:
    """Refuse an unknown backend, or a scheduler without the Dask backend (one line)."""
    from ..batch import BACKENDS

    if backend not in BACKENDS:
        raise OptionError(f"unknown --backend {backend!r}; choose one of: {', '.join(BACKENDS)}")
    if scheduler and backend != "dask":
        raise OptionError("--scheduler needs --backend dask")


def parse_policy_params(text: str | None) -> dict | None:
    """``--policy-params`` JSON text to a dict (None when not given).

    Raises
    ------
    OptionError
        Not JSON, or not a JSON object.
    """
    if text is None:
        return None
    import json

    try:
        value = json.loads(text)
    except ValueError as exc:
        raise OptionError(f"--policy-params is not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise OptionError('--policy-params must be a JSON object, e.g. \'{"axis": {"min_odds": 3}}\'')
    return value


def split_options(values) -> list[str]:
    """``--option`` values (repeated, each possibly a comma list) to a flat list of
    names, spaces around names stripped and empty items dropped: ``("a, b", "c")``
    -> ``["a", "b", "c"]`` (shared by ``run`` and ``replay``)."""
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def check_data_dir(scenario: str, data_dir) -> None:
    """Load the game data of ``scenario`` from ``--data-dir`` once, before any game
    is played, so a folder without (valid) game data is refused first, in one line
    naming the file (shared by ``run``, ``sweep`` and ``replay``).

    Nothing is checked without ``--data-dir`` (the packaged data) or for a
    scenario name the registry does not know (the batch refuses it itself).

    Raises
    ------
    DataError, DataErrors
        A file is missing or invalid (Island of Death: :func:`malta_sim.loaders.load_iod`,
        as ``malta-sim data check``; Invasion: Malta: the loader of ``malta-sim im check-data``).
    """
    if data_dir is None:
        return
    from ..errors import MaltaSimError
    from ..games.registry import get_scenario

    try:
        game = get_scenario(scenario).game
    except MaltaSimError:
        return
    if game == "island_of_death":
        from ..loaders import load_iod

        load_iod(data_dir)
    elif game == "invasion_malta":
        from ..games.invasion_malta.data import load_scenario

        load_scenario("c3", data_dir)


def check_outputs(backend, scheduler, out, per_turn_out, overwrite: bool = False) -> None:
    """Shared by ``run`` and ``sweep``: the backend choice and both output files,
    checked before any game is played (an existing file is refused unless
    ``overwrite``).

    Raises
    ------
    OptionError
    """
    from ..batch import check_output_path
    from .common import check_new_file

    check_backend(backend, scheduler)
    check_output_path(out, "--out")
    check_new_file(out, "--out", overwrite)
    if per_turn_out is not None:
        check_output_path(per_turn_out, "--per-turn")
        check_new_file(per_turn_out, "--per-turn", overwrite)
        if str(per_turn_out) == str(out):
            raise OptionError("--per-turn and --out must be different files")


def write_outputs(res, out, per_turn_out):
    """Write a batch result (a frame, or ``(games, per_turn)`` when a per-turn
    file was asked for) to ``out`` / ``per_turn_out``; return ``(games, per_turn)``."""
    from ..batch import write_frame

    games, turns = res if per_turn_out is not None else (res, None)
    write_frame(games, out)
    if turns is not None:
        write_frame(turns, per_turn_out)
    return games, turns


def play_keeping_games(play, checkpoint, out, overwrite: bool):
    """Run ``play(checkpoint_folder)`` so that an interrupted run keeps its games.

    Without ``--checkpoint`` the finished games go to ``<out>.checkpoint``
    (:func:`malta_sim.cli.common.default_checkpoint`), which is removed once
    the run is complete; a leftover folder of a run with other inputs is
    refused (or, with ``--overwrite``, discarded).  Ctrl-C prints how many
    games were saved where and exits with status 130; SIGTERM prints the same
    line before the usual ``error: terminated`` (status 143).

    Returns
    -------
    The value of ``play`` and the folder to remove after the outputs are
    written (None when the user chose the checkpoint).
    """
    import shutil
    import sys

    from ..batch import CheckpointMismatch
    from . import _Terminated
    from .common import default_checkpoint, interrupted_message

    folder, own = (checkpoint, False) if checkpoint is not None else (default_checkpoint(out), True)
    try:
        try:
            res = play(folder)
        except CheckpointMismatch as exc:
            if not own:
                raise
            if not overwrite:
                raise OptionError(f"{exc.directory} holds the finished games of a run with other inputs "
                                  f"({'; '.join(exc.differences)}); give --overwrite to discard them, or "
                                  "delete that folder") from None
            shutil.rmtree(exc.directory)
            res = play(folder)
    except KeyboardInterrupt as exc:
        click.echo(interrupted_message(exc), err=True)
        if isinstance(exc, _Terminated):
            raise
        sys.exit(130)
    except Exception:
        if own:
            _remove_if_no_games(folder)       # a run that failed before any game finished leaves nothing
        raise
    return res, (folder if own else None)


def _remove_if_no_games(folder) -> None:
    """Remove the run's own checkpoint folder when it holds no finished chunk
    (only its manifest), so the corrected command starts clean."""
    import shutil
    from pathlib import Path

    from ..batch import checkpoint_has_chunks

    if Path(folder).is_dir() and not checkpoint_has_chunks(folder):
        shutil.rmtree(folder, ignore_errors=True)


def remove_default_checkpoint(folder) -> None:
    """Remove the run's own checkpoint folder once its outputs are written."""
    import shutil

    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def batch_options(*, checkpoint_help: str, per_turn_help: str):
    """The options ``run`` and ``sweep`` share (workers, data, backend,
    checkpoints, outputs), applied as one decorator so both commands spell
    them alike.  ``checkpoint_help`` and ``per_turn_help`` say what those two
    mean for the command."""
    opts = [
        click.option("--jobs", "n_jobs", default=1, show_default=True, type=int,
                     help="Worker processes (-1: every core)."),
        click.option("--data-dir", default=None, metavar="DIR",
                     help="Game-data directory replacing the packaged data."),
        click.option("--backend", default="local", show_default=True, metavar="[local|dask]",
                     help="local: joblib processes here; dask: a dask.distributed cluster."),
        click.option("--scheduler", default=None, metavar="ADDRESS",
                     help="Dask scheduler (tcp://host:8786); none: a local cluster of --jobs workers."),
        click.option("--chunk-size", default=None, type=int,
                     help="Games per task and per checkpoint file (never changes results)."),
        click.option("--checkpoint", default=None, metavar="DIR", help=checkpoint_help),
        click.option("--overwrite", is_flag=True,
                     help="Replace --out / --per-turn files that already exist (without it the command refuses)."),
        click.option("--per-turn", "per_turn_out", default=None, metavar="FILE", help=per_turn_help),
        click.option("--out", "out", required=True, metavar="FILE",
                     help="Result file: .parquet (or .pq) or .csv."),
        click.option("--skip-failed", is_flag=True,
                     help="Leave out games that fail inside the engine (listed in the summary and "
                          "provenance) instead of stopping."),
        click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary."),
    ]

    def apply(fn):
        for opt in reversed(opts):
            fn = opt(fn)
        return fn
    return apply


@click.command("run", cls=RunCommand)
@click.option("--scenario", required=True, help="Scenario: intro, hercules (Island of Death) or im-c3 (Invasion: Malta).")
@click.option("--games", "n_games", required=True, type=int, help="Number of games (>= 1).")
@click.option("--seed", required=True, type=int, help="Master seed (>= 0); game g uses streams of (seed, g).")
@click.option("--axis-policy", default=None, help="Axis bot (default: the scenario's first); the names per "
                                                  "scenario are under 'Bots' below.")
@click.option("--allied-policy", default=None, help="Allied bot (default: the scenario's first); see 'Bots' below.")
@click.option("--option", "options", multiple=True, metavar="NAME", help="Optional rule; repeat (or comma-separate) for several. "
                   "Valid names per scenario: see 'Scenario options' below.")
@click.option("--policy-params", default=None, metavar="JSON",
              help='Bot parameters as JSON, e.g. \'{"axis": {"min_odds": 3}}\'.')
@batch_options(
    checkpoint_help="Keep finished games here (default: FILE.checkpoint beside --out, removed when the run "
                    "completes); re-running the same command resumes.",
    per_turn_help="Also write the per-turn frame (one row per game and turn), .parquet or .csv.",
)
def command(scenario, n_games, seed, n_jobs, axis_policy, allied_policy, options, policy_params, data_dir, backend,
            scheduler, chunk_size, checkpoint, overwrite, per_turn_out, out, skip_failed, quiet):
    """Play --games seeded games of a scenario; write one row per game to --out.

    Results depend only on the seed, the game index and the inputs, never on
    --jobs, --chunk-size or --backend.  Finished games are kept as they
    finish, so an interrupted run (Ctrl-C) resumes when the same command is
    run again.  The columns of the result are explained by 'malta-sim
    glossary'.  Example:

      malta-sim run --scenario hercules --games 1000 --seed 1942 --jobs 4 --out hercules.parquet
    """
    from ..batch import run_games

    check_outputs(backend, scheduler, out, per_turn_out, overwrite)
    check_data_dir(scenario, data_dir)
    options = split_options(options)
    params = parse_policy_params(policy_params)

    def play(folder):
        return run_games(
            scenario,
            n_games,
            seed,
            axis_policy=axis_policy,
            allied_policy=allied_policy,
            options=options,
            n_jobs=n_jobs,
            backend=backend,
            scheduler=scheduler,
            chunk_size=chunk_size,
            checkpoint=folder,
            per_turn=per_turn_out is not None,
            data_dir=data_dir,
            policy_params=params,
            progress=not quiet,
            on_error="skip" if skip_failed else "raise",
        )

    res, own_folder = play_keeping_games(play, checkpoint, out, overwrite)
    games, turns = write_outputs(res, out, per_turn_out)
    remove_default_checkpoint(own_folder)
    if not quiet:
        from ..summary import format_summary  # statsmodels/scipy: imported only when a summary is printed

        click.echo(format_summary(games))
        extra = f" and {per_turn_out} ({len(turns)} rows)" if turns is not None else ""
        click.echo(f"wrote {out} ({len(games)} rows){extra}")
