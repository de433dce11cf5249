"""Where numba keeps malta_sim's compiled kernels, and when they are stale.

Every ``@njit(cache=True)`` function of the package is compiled once and
kept on disk.  Numba decides whether a kept function is still good by the
modification time and size of *its own* source file only.  A kernel that
calls a kernel of another module keeps a copy of the callee inside its own
compiled code, so after the callee's module changes, numba would keep using
the old copy.  To rule that out, the cache lives in a folder named after a
fingerprint of the package: the SHA-256 of the contents of every ``.py`` file
under ``malta_sim/``.  Any change to the package's source starts a fresh
folder; an unchanged package (a reinstall, a ``git checkout`` that moves file
times) keeps its compiled kernels.

The folder is ``$XDG_CACHE_HOME/malta_sim/numba/<fingerprint>`` (or
``~/.cache/...``).  Each import marks its folder as used (its modification
time).  When a new folder is made, the :data:`KEEP` most recently used ones are
kept and any other not used for :data:`IDLE_S` seconds is removed, so
checkouts and versions in use side by side keep their kernels while an
edit-and-run loop does not fill the disk.  A ``NUMBA_CACHE_DIR``
set by the user is respected as it is (and then the user owns the staleness
question).  Set ``MALTA_SIM_CACHE_DIR`` to move the root elsewhere.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

#: Environment variable naming the folder this module put in
#: ``NUMBA_CACHE_DIR``: a child process (a pool worker, a subprocess) that
#: inherits both works its own folder out again instead of taking the
#: parent's as a user's setting (the source may have changed in between).
MARKER = "MALTA_SIM_NUMBA_CACHE_SET"

#: Fingerprint folders always kept, the most recently used first.
KEEP = 8
#: Beyond those, folders unused for this many seconds are removed.
IDLE_S = 3600.0

PACKAGE_DIR = Path(__file__).resolve().parent


def source_fingerprint(package_dir: Path = PACKAGE_DIR) -> str:
    """Fingerprint of a package's Python source.

    Parameters
    ----------
    package_dir : Path
        Folder whose ``*.py`` files (recursively, ``__pycache__`` excluded)
        are hashed, in sorted relative-path order.

    Returns
    -------
    str
        First 16 hex digits of the SHA-256 over each file's relative path and
        contents.  Equal for equal sources, whatever the file times.
    """
    digest = hashlib.sha256()
    files = sorted(p for p in Path(package_dir).rglob("*.py") if "__pycache__" not in p.parts)
    for path in files:
        digest.update(path.relative_to(package_dir).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    """Root folder of the fingerprint folders: ``MALTA_SIM_CACHE_DIR`` (made
    absolute), else ``$XDG_CACHE_HOME/malta_sim/numba`` when that is an
    absolute path (a relative one is ignored, as the XDG convention says),
    else ``~/.cache/malta_sim/numba``."""
    explicit = os.environ.get("MALTA_SIM_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser().absolute()
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "malta_sim" / "numba"


def _prune(root: Path, current: Path, keep: int = KEEP, idle_s: float = IDLE_S) -> None:
    """Remove fingerprint folders beyond the ``keep`` most recently used that
    were not used for ``idle_s`` seconds."""
    try:
        folders = [(p.stat().st_mtime, p) for p in root.iterdir() if p.is_dir() and p != current]
    except OSError:
        return
    folders.sort(reverse=True)
    now = time.time()
    for used, old in folders[max(keep - 1, 0):]:
        if now - used > idle_s:
            shutil.rmtree(old, ignore_errors=True)


def configure(package_dir: Path = PACKAGE_DIR) -> str | None:
    """Point numba's on-disk cache at the folder for this package's source.

    Called once when :mod:`malta_sim` is imported.  Does nothing when the user
    set ``NUMBA_CACHE_DIR`` (one not set by this function, see
    :data:`MARKER`).  If the folder cannot be made (a read-only home),
    numba's own default place is left in use.

    Returns
    -------
    str or None
        The cache folder in use, or None when the user's or numba's default
        applies.
    """
    set_here = os.environ.get(MARKER)
    user_dir = os.environ.get("NUMBA_CACHE_DIR")
    if user_dir and user_dir != set_here:
        return None                  # the user's own setting (not one this module set)
    root = cache_root()
    folder = root / source_fingerprint(package_dir)
    try:
        fresh = not folder.exists()
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)  # marks it used
    except OSError:
        return None
    if fresh:
        _prune(root, folder)
    os.environ["NUMBA_CACHE_DIR"] = os.environ[MARKER] = str(folder)
    numba_config = sys.modules.get("numba.core.config")
    if numba_config is not None:  # numba was imported first: its config is already read
        numba_config.CACHE_DIR = str(folder)
    return str(folder)


#: Rough first-run compile time shown to the user (measured on the quick
#: start, README "Quick start"); the kernels are compiled once per version.
COMPILE_HINT = "about 1-2 minutes on 2 cores, longer on a busy machine"


def kernels_cached(folder: str | os.PathLike | None = None) -> bool:
    """Whether numba's on-disk cache already holds compiled kernels.

    Parameters
    ----------
    folder : path, optional
        The cache folder; default the ``NUMBA_CACHE_DIR`` in effect (the one
        :func:`configure` chose, or the user's own).

    Returns
    -------
    bool
        True when the folder holds at least one numba index file (``*.nbi``):
        this version has run before and will load its kernels instead of
        compiling them.  False for a missing or empty folder, and when no
        cache folder is known (then numba keeps its cache beside the source,
        and nothing is promised).
    """
    folder = folder if folder is not None else os.environ.get("NUMBA_CACHE_DIR")
    if not folder:
        return False
    try:
        return next(Path(folder).rglob("*.nbi"), None) is not None
    except OSError:
        return False

