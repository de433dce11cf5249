"""The ``malta-sim`` command line.

Subcommands live in modules ``malta_sim/cli/cmd_<name>.py``; each exposes
``command`` (a ``click.Command`` or ``click.Group``) and is found automatically.
Errors caused by the user (:class:`malta_sim.errors.MaltaSimError` and click's
usage errors) print as one line on stderr and exit with status 2; Ctrl-C exits
with status 130.  Shared option helpers live in :mod:`malta_sim.cli.common`.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import signal
import sys
import threading

import click

from .. import __version__
from ..errors import MaltaSimError


class _Terminated(KeyboardInterrupt):
    """SIGTERM turned into an interrupt, so running work (joblib/loky workers,
    Dask clusters, progress bars) is torn down exactly as for Ctrl-C."""


def _on_sigterm(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not break the clean-up
    raise _Terminated()


class _Main(click.Group):
    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """Run the command line.

        Usage errors of any command or group (unknown option or command, missing
        or bad value) print one ``error: ...`` line and exit with status 2.
        Ctrl-C ends it with status 130 (128 + SIGINT), after ``run`` and
        ``sweep`` said how many games were kept and where; SIGTERM ends it
        the same way, with ``error: terminated`` and exit status 143 (128 + 15).
        """
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        old = None
        if threading.current_thread() is threading.main_thread():
            old = signal.signal(signal.SIGTERM, _on_sigterm)
        try:
            try:
                rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            except click.Abort as exc:
                if isinstance(exc.__context__, _Terminated) or isinstance(exc.__cause__, _Terminated):
                    click.echo("error: terminated", err=True)
                    sys.exit(128 + signal.SIGTERM)
                click.echo("interrupted", err=True)
                sys.exit(128 + signal.SIGINT)
            except _Terminated:
                click.echo("error: terminated", err=True)
                sys.exit(128 + signal.SIGTERM)
            except click.exceptions.NoArgsIsHelpError as exc:  # a bare group: its help, as click prints it
                exc.show()
                sys.exit(exc.exit_code)
            except click.ClickException as exc:  # usage errors of every command: one line, exit 2
                msg = " ".join(exc.format_message().split()) or type(exc).__name__
                click.echo(f"error: {msg}", err=True)
                sys.exit(exc.exit_code)
            sys.exit(rv if isinstance(rv, int) else 0)
        finally:
            if old is not None:
                signal.signal(signal.SIGTERM, old)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except MaltaSimError as exc:
            for line in str(exc).splitlines() or [type(exc).__name__]:
                click.echo(f"error: {line}", err=True)
            sys.exit(2)
        except BrokenPipeError:  # the reader of our output went away (`... | head`): stop quietly
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # nothing more to flush at exit
            sys.exit(1)
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
    _one_line_warnings()


def _one_line_warnings() -> None:
    """Print the package's :class:`~malta_sim.errors.NoEffectWarning` as one
    ``warning: ...`` line on stderr (no file name, no source line); other
    warnings as Python prints them."""
    import warnings

    from ..errors import NoEffectWarning

    shown = warnings.showwarning
    if getattr(shown, "_malta_sim", False):
        return

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, NoEffectWarning):
            click.echo(f"warning: {message}", err=True)
        else:
            shown(message, category, filename, lineno, file, line)

    show._malta_sim = True
    warnings.showwarning = show


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
