"""``malta-sim replay``: one game of a batch again, with its event log and map pictures."""

from __future__ import annotations

import json
import os

import click

from ..errors import OptionError
from .common import check_new_folder, overwrite_option

#: Files a replay writes (an existing one is replaced only with --overwrite).
REPLAY_FILES = ("events.csv", "per_turn.csv", "result.json", "replay.json", "map_*.png")


@click.command("replay")
@click.option("--scenario", required=True, help="Scenario name (as given to malta-sim run).")
@click.option("--seed", required=True, type=int, help="The batch's master seed.")
@click.option("--game", "game", required=True, type=int, help="Game index in the batch (>= 0).")
@click.option("--axis-policy", default=None, help="Axis bot (default: the scenario's first).")
@click.option("--allied-policy", default=None, help="Allied bot (default: the scenario's first).")
@click.option("--option", "options", multiple=True, metavar="NAME", help="Optional rule; repeat (or comma-separate) for several.")
@click.option("--policy-params", default=None, metavar="JSON",
              help='Bot parameters as in a sweep arm, e.g. \'{"axis": {"min_odds": 3}}\'.')
@click.option("--data-dir", default=None, metavar="DIR", help="Game-data directory replacing the packaged data.")
@click.option("--no-maps", is_flag=True, help="Skip the day-end map pictures.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output folder.")
@overwrite_option
def command(scenario, seed, game, axis_policy, allied_policy, options, policy_params, data_dir, no_maps, out_dir,
            overwrite):
    """Replay game --game of a batch: DIR/events.csv, DIR/result.json, day-end map PNGs.

    result.json is the same row `malta-sim run` wrote for that game.  Example:

      malta-sim replay --scenario hercules --seed 1942 --game 17 --out game17/
    """
    from ..analysis.replay import replay_game
    from .cmd_run import check_data_dir, split_options

    check_new_folder(out_dir, "--out", overwrite, REPLAY_FILES)
    check_data_dir(scenario, data_dir)
    options = split_options(options)

    params = None
    if policy_params is not None:
        try:
            params = json.loads(policy_params)
        except json.JSONDecodeError as exc:
            raise OptionError(f"--policy-params is not valid JSON: {exc}") from None
    rep = replay_game(scenario, seed, game, axis_policy=axis_policy, allied_policy=allied_policy,
                      options=options, data_dir=data_dir, policy_params=params, out_dir=out_dir,
                      maps=not no_maps)
    r = rep.row
    date = f" {r['end_date']}" if r.get("end_date") else ""
    click.echo(f"game {game}: winner {r.get('winner')} ({r.get('end_reason')}) at turn {r.get('end_turn')}"
               f"{date}; {len(rep.events)} events")
    if rep.maps_consistent is False:
        click.echo("warning: the turn-by-turn play for the map pictures ended differently from the batch play",
                   err=True)
    click.echo(f"wrote {os.path.join(os.path.normpath(out_dir), '')}: {', '.join(rep.files)}")
