"""Per-game random streams.

A game's randomness depends only on ``(master seed, game index, purpose)``:

* :func:`game_seed_sequence` gives game ``g`` the ``SeedSequence`` that
  ``SeedSequence(master_seed).spawn(...)`` would give it as child ``g`` -- but
  computed directly from the spawn key, so any subset of games, in any order,
  in any chunk or worker, gets the same stream.
* Inside a game, each purpose (``"combat"``, ``"scatter"``, ``"weather"``,
  ``"axis_policy"`` ...) has its own sub-stream, spawned from the game's
  sequence with a stable purpose number, so adding draws for one purpose never
  shifts the draws of another.
* For compiled kernels that must draw inside numba, :func:`numba_state` /
  :func:`numba_states` give a xoshiro256** state (``uint64[4]`` per game,
  ``uint64[n_games, 4]`` for a batch) that kernels pass in and advance in place
  with :func:`nb_next`, :func:`nb_uniform`, :func:`nb_die`, :func:`nb_2d6`.
  There is no global generator anywhere.
"""

from __future__ import annotations

import zlib
from typing import Iterable

import numba as nb
import numpy as np

from .errors import OptionError

#: Stable purpose numbers.  Append new purposes; never renumber.
PURPOSES: dict[str, int] = {
    "setup": 1,
    "weather": 2,
    "combat": 3,
    "bombardment": 4,
    "drop": 5,
    "scatter": 6,
    "landing": 7,
    "morale": 8,
    "militia": 9,
    "surrender": 10,
    "leaders": 11,
    "air": 12,
    "navy": 13,
    "supply": 14,
    "movement": 15,
    "axis_policy": 16,
    "allied_policy": 17,
    "replacements": 18,
    "activation": 19,
    "misc": 20,
}


def purpose_id(purpose: str | int) -> int:
    """Stable integer for a purpose name.

    Registered names use :data:`PURPOSES`; other names use a CRC32 of the name
    offset past the registered range, so they are stable too.
    """
    if isinstance(purpose, (int, np.integer)):
        return int(purpose)
    if purpose in PURPOSES:
        return PURPOSES[purpose]
    return 1_000 + zlib.crc32(purpose.encode("utf-8"))


def _check_seed(master_seed: int) -> int:
    try:
        s = int(master_seed)
    except (TypeError, ValueError):
        raise OptionError(f"seed must be a non-negative integer, got {master_seed!r}") from None
    if s < 0:
        raise OptionError(f"seed must be a non-negative integer, got {master_seed}")
    return s


def game_seed_sequence(master_seed: int, game: int) -> np.random.SeedSequence:
    """The ``SeedSequence`` of game ``game`` under ``master_seed``.

    Identical to ``np.random.SeedSequence(master_seed).spawn(game + 1)[game]``.

    Raises
    ------
    OptionError
        If the seed or game index is negative or not an integer.
    """
    s = _check_seed(master_seed)
    if int(game) < 0:
        raise OptionError(f"game index must be >= 0, got {game}")
    return np.random.SeedSequence(s, spawn_key=(int(game),))


def stream_seed_sequence(master_seed: int, game: int, purpose: str | int) -> np.random.SeedSequence:
    """The ``SeedSequence`` of one purpose inside one game."""
    s = _check_seed(master_seed)
    return np.random.SeedSequence(s, spawn_key=(int(game), purpose_id(purpose)))


def generator(master_seed: int, game: int, purpose: str | int) -> np.random.Generator:
    """A numpy ``Generator`` (PCG64) for one purpose of one game."""
    return np.random.Generator(np.random.PCG64(stream_seed_sequence(master_seed, game, purpose)))


class GameStreams:
    """Lazily created named generators of one game.

    >>> g = GameStreams(7, 3)
    >>> int(g["combat"].integers(1, 7)) == int(GameStreams(7, 3)["combat"].integers(1, 7))
    True
    """

    def __init__(self, master_seed: int, game: int):
        self.master_seed = _check_seed(master_seed)
        self.game = int(game)
        self._gens: dict[str, np.random.Generator] = {}
        self._nb: dict[str, np.ndarray] = {}

    def __getitem__(self, purpose: str) -> np.random.Generator:
        g = self._gens.get(purpose)
        if g is None:
            g = generator(self.master_seed, self.game, purpose)
            self._gens[purpose] = g
        return g

    def numba_state(self, purpose: str) -> np.ndarray:
        """A fresh numba generator state for ``purpose`` (see :func:`numba_state`)."""
        return numba_state(self.master_seed, self.game, purpose)

    def numba(self, purpose: str) -> np.ndarray:
        """The game's numba generator state for ``purpose``, ``uint64[4]``:
        created on first use, then the same array (advanced in place by the
        kernels that draw from it) for the rest of the game."""
        st = self._nb.get(purpose)
        if st is None:
            st = self._nb[purpose] = numba_state(self.master_seed, self.game, purpose)
        return st


def numba_state(master_seed: int, game: int, purpose: str | int) -> np.ndarray:
    """xoshiro256** state for one purpose of one game, ``uint64[4]``, never all zero."""
    st = stream_seed_sequence(master_seed, game, purpose).generate_state(4, np.uint64)
    if not np.count_nonzero(st):  # pragma: no cover - probability 2**-256
        st[0] = 1
    return st


def numba_states(master_seed: int, games: Iterable[int], purpose: str | int) -> np.ndarray:
    """xoshiro256** states for a batch of games, ``uint64[n_games, 4]``.

    Row ``i`` depends only on ``(master_seed, games[i], purpose)``.
    """
    games = list(games)
    out = np.empty((len(games), 4), dtype=np.uint64)
    for i, g in enumerate(games):
        out[i] = numba_state(master_seed, g, purpose)
    return out


@nb.njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@nb.njit(cache=True)
def nb_next(state):
    """Advance a xoshiro256** ``state`` (``uint64[4]``, in place); return a ``uint64``."""
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return result


@nb.njit(cache=True)
def nb_uniform(state):
    """A float in [0, 1) with 53 random bits."""
    return (nb_next(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(cache=True)
def nb_randint(state, n):
    """An integer uniform on ``0 .. n-1`` (unbiased, by rejection)."""
    n64 = np.uint64(n)
    limit = np.uint64(0xFFFFFFFFFFFFFFFF) - (np.uint64(0xFFFFFFFFFFFFFFFF) % n64)
    while True:
        x = nb_next(state)
        if x < limit:
            return np.int64(x % n64)


@nb.njit(cache=True)
def nb_die(state, sides=6):
    """One die, ``1 .. sides`` (default d6)."""
    return nb_randint(state, sides) + 1


@nb.njit(cache=True)
def nb_2d6(state):
    """Two six-sided dice summed, ``2 .. 12``."""
    return nb_randint(state, 6) + nb_randint(state, 6) + 2
