"""The ``malta-sim`` command line.

Subcommands live in modules ``malta_sim/cli/cmd_<name>.py``; each exposes
``command`` (a ``click.Command`` or ``click.Group``) and is found automatically.
Errors caused by the user (:class:`malta_sim.errors.MaltaSimError`) print as one
line on stderr and exit with status 2.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from .. import __version__
from ..errors import MaltaSimError


class _Main(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except MaltaSimError as exc:
            for line in str(exc).splitlines() or [type(exc).__name__]:
                click.echo(f"error: {line}", err=True)
            sys.exit(2)
        except OSError as exc:  # a file the user named cannot be read or written
            name = f" {exc.filename!r}" if getattr(exc, "filename", None) else ""
            click.echo(f"error: cannot use{name}: {exc.strerror or exc}", err=True)
            sys.exit(2)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="malta-sim")
def main():
    """Play the Malta 1942 invasion wargames thousands of times and analyse the results.

    Games: Island of Death (scenarios 'intro', 'hercules') and Invasion: Malta.
    """


def _register() -> None:
    pkg = importlib.import_module(__name__)
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if not info.name.startswith("cmd_"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        cmd = getattr(mod, "command", None)
        if isinstance(cmd, click.Command):
            main.add_command(cmd)


_register()
