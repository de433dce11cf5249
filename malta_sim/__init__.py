"""malta_sim: Monte Carlo simulation and balance analysis for the Malta 1942
invasion wargames *Island of Death* and *Invasion: Malta*."""

from importlib.metadata import PackageNotFoundError, version as _version

from . import numba_cache as _numba_cache

# The one import-time side effect: compiled kernels are kept per source
# fingerprint, so a changed module never leaves stale copies in its callers.
_numba_cache.configure()

try:  # installed
    __version__ = _version("malta_sim")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.1.0"

__all__ = ["__version__"]


def __getattr__(name):  # lazy public API
    if name == "run_games":
        from .batch import run_games

        return run_games
    raise AttributeError(f"module 'malta_sim' has no attribute {name!r}")
