"""Pieces the ``malta-sim`` commands share: the ``--overwrite`` rule for
every file or folder a command writes, and the message of an interrupted run."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ..errors import OptionError


def overwrite_option(fn):
    """``--overwrite``: replace files the command would otherwise refuse to replace."""
    return click.option("--overwrite", is_flag=True,
                        help="Replace output files that already exist (without it the command refuses).")(fn)


def check_new_file(path, what: str, overwrite: bool) -> Path:
    """Refuse to replace an existing file unless ``overwrite``.

    Parameters
    ----------
    path : path
        The file the command will write.
    what : str
        The option naming it (``--out``), used in the message.
    overwrite : bool
        The ``--overwrite`` flag.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OptionError
        ``path`` exists (and ``overwrite`` is False) or is a folder.
    """
    p = Path(path)
    if p.is_dir():
        raise OptionError(f"{what} {str(path)!r} is a directory, not a file")
    if p.exists() and not overwrite:
        raise OptionError(f"{what} {str(path)!r} already exists; give --overwrite to replace it")
    return p


def check_new_folder(path, what: str, overwrite: bool, products: tuple[str, ...] = ()) -> Path:
    """Refuse an output folder that already holds what the command writes.

    Parameters
    ----------
    path : path
        The folder (it may not exist yet).
    what : str
        The option or argument naming it.
    overwrite : bool
        The ``--overwrite`` flag.
    products : tuple of str
        File names (or glob patterns) the command writes there; empty: any
        file in the folder counts.

    Raises
    ------
    OptionError
        ``path`` is a file, or holds one of ``products`` (any file when
        ``products`` is empty) and ``overwrite`` is False.
    """
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OptionError(f"{what} {str(path)!r} is a file, not a folder")
    if p.is_dir() and not overwrite:
        found = sorted({f.name for pat in products for f in p.glob(pat)}) if products else \
            sorted(f.name for f in p.iterdir() if not f.name.startswith("."))
        if found:
            shown = ", ".join(found[:3]) + (" ..." if len(found) > 3 else "")
            raise OptionError(f"{what} {str(path)!r} already holds {shown}; give --overwrite to replace "
                              "(or choose another folder)")
    return p


def default_checkpoint(out) -> Path:
    """Where ``run``/``sweep`` keep finished games when no ``--checkpoint`` is
    given: ``<out>.checkpoint`` beside the result file (removed after a
    complete run)."""
    p = Path(out)
    return p.with_name(p.name + ".checkpoint")


def interrupted_message(exc: BaseException) -> str:
    """The line printed when a run is interrupted: what was kept, and how to go on."""
    saved, total, folder = getattr(exc, "malta_sim_saved", (0, None, None))
    unit = getattr(exc, "malta_sim_unit", "games")          # "trials" for malta-sim tune
    if folder and saved:
        shown = os.path.normpath(folder)
        return (f"interrupted: {saved} of {total} {unit} saved in {shown}; "
                "run the same command to resume")
    return f"interrupted: no {unit[:-1]} had finished; nothing was saved"
