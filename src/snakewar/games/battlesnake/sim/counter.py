"""Counter-based randomness: every random number of a fast-mode game is a pure function.

With ``randomness="fast"`` the simulator draws nothing from a stream.  Each number is
``draw(seed, turn, purpose, index)``: a hash of the game's seed, the turn it is drawn
on, what it is for and its index among that turn's draws for that purpose.  So a game
is a function of its seed and moves alone, whatever the batch it sits in, the order
games are stepped in or the number of threads, and every backend (numpy, numba, a
future JAX one) that implements this spec plays the same games.

The spec (all arithmetic modulo 2**32 unless said otherwise):

* ``mix(x)`` is the "lowbias32" integer mixer::

      x ^= x >> 16;  x *= 0x7FEB352D;  x ^= x >> 15;  x *= 0x846CA68B;  x ^= x >> 16

* ``draw(seed, turn, purpose, index)``, with ``seed`` a signed 64-bit integer taken
  as its two's-complement ``uint64`` ``s``, ``lo = s & 0xFFFFFFFF`` and ``hi = s >> 32``::

      h = mix(lo + 0x9E3779B9)
      h = mix(h ^ hi)
      h = mix(h ^ turn)
      h = mix(h ^ purpose)
      h = mix(h ^ index)
      return h

* ``uniform(n, ...) = (draw(...) * n) >> 32`` (exact integer product) for
  ``1 <= n < 2**32``: an integer in ``[0, n)``.  Its bias is below ``n / 2**32``
  (under 2e-7 on a 25x25 board), far under anything a game can show.

What each purpose draws (``turn`` is the game's turn before the step that draws):

* :data:`SETUP` (turn 0): the board setup.  Square boards from 7x7 (the reference's
  fixed start squares): index 0-2 shuffle the four corners (Fisher-Yates from the
  back, ``j = uniform(i + 1)`` for ``i = 3, 2, 1``), 3-5 the four edge midpoints the
  same way, 6 picks which group comes first (``uniform(2) == 0``: corners), and
  ``7 + i`` picks snake ``i``'s setup food among its free candidate squares
  (``uniform(k)``; maps with food only).  Other boards run the rules engine's own
  setup with a :class:`CounterRand` (index counts its draws).
* :data:`ZONE` (turn 0): royale shrink ``i + 1`` takes side ``uniform(4, ..., i)``
  (0 left, 1 right, 2 bottom, 3 top: as the rules' ``intn(4)``).
* :data:`CHANCE` (index 0): food spawns when ``100 - uniform(100) < foodSpawnChance``
  (when the board has its minimum food; below it, the missing food spawns).
* :data:`SPAWN` (index ``k``): the ``k``-th spawned food goes on the
  ``uniform(m)``-th of the ``m`` free squares, in padded-cell order (row by row from
  the bottom), taken after the earlier ``k`` are placed.
"""

from __future__ import annotations

from collections.abc import Callable, MutableSequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

__all__ = ["CHANCE", "SETUP", "SPAWN", "ZONE", "CounterRand", "draw", "draw_int", "uniform"]

_T = TypeVar("_T")
U64Array = npt.NDArray[np.uint64]
U32Array = npt.NDArray[np.uint32]

SETUP = 1
"""Purpose code of the board setup's draws."""
ZONE = 2
"""Purpose code of the royale shrink sides."""
CHANCE = 3
"""Purpose code of the per-turn food chance."""
SPAWN = 4
"""Purpose code of the spawned food's squares."""

_M32 = 0xFFFFFFFF
_GOLDEN = 0x9E3779B9
_MUL1 = 0x7FEB352D
_MUL2 = 0x846CA68B


def _mix_int(x: int) -> int:
    x ^= x >> 16
    x = (x * _MUL1) & _M32
    x ^= x >> 15
    x = (x * _MUL2) & _M32
    return x ^ (x >> 16)


def draw_int(seed: int, turn: int, purpose: int, index: int) -> int:
    """One ``draw`` of the spec, on Python integers.

    >>> draw_int(1, 0, SETUP, 0) == int(draw(np.array([1]), 0, SETUP, 0)[0])
    True
    """
    s = seed & ((1 << 64) - 1)
    h = _mix_int(((s & _M32) + _GOLDEN) & _M32)
    h = _mix_int(h ^ (s >> 32))
    h = _mix_int(h ^ (turn & _M32))
    h = _mix_int(h ^ (purpose & _M32))
    return _mix_int(h ^ (index & _M32))


def _mix(x: U32Array) -> U32Array:
    # In place on uint32 arrays (at least 1-d: array arithmetic wraps without a warning).
    x ^= x >> np.uint32(16)
    x *= np.uint32(_MUL1)
    x ^= x >> np.uint32(15)
    x *= np.uint32(_MUL2)
    x ^= x >> np.uint32(16)
    return x


def draw(seeds: npt.ArrayLike, turn: npt.ArrayLike, purpose: int, index: npt.ArrayLike) -> U64Array:
    """``draw`` of the spec, broadcast over numpy arrays (``uint64`` values below 2**32)."""
    s = np.atleast_1d(np.asarray(seeds, dtype=np.int64)).astype(np.uint64)
    t = np.atleast_1d(np.asarray(turn, dtype=np.int64)).astype(np.uint32)
    i = np.atleast_1d(np.asarray(index, dtype=np.int64)).astype(np.uint32)
    h = (s & np.uint64(_M32)).astype(np.uint32)
    h += np.uint32(_GOLDEN)
    h = _mix(h)
    h ^= (s >> np.uint64(32)).astype(np.uint32)
    h = _mix(h)
    h = _mix(h ^ t)
    h ^= np.uint32(purpose)
    h = _mix(h)
    h = _mix(h ^ i)
    shape = np.broadcast_shapes(np.shape(seeds), np.shape(turn), np.shape(index))
    out: U64Array = h.astype(np.uint64).reshape(shape)
    return out


def uniform(
    n: npt.ArrayLike, seeds: npt.ArrayLike, turn: npt.ArrayLike, purpose: int, index: npt.ArrayLike
) -> npt.NDArray[np.int64]:
    """``uniform(n, ...)`` of the spec over arrays: integers in ``[0, n)`` (``n >= 1``)."""
    nn = np.asarray(n, dtype=np.int64).astype(np.uint64)
    out: npt.NDArray[np.int64] = ((draw(seeds, turn, purpose, index) * nn) >> np.uint64(32)).astype(
        np.int64
    )
    return out


class CounterRand:
    """The rules engine's ``Rand`` interface over the counter hash.

    Draw ``k`` (counting from 0 over every method) is ``draw(seed, turn, purpose, k)``;
    ``intn(n)`` is the spec's ``uniform(n)`` and shuffles are Fisher-Yates from the back.

    >>> r = CounterRand(7, 0, SETUP)
    >>> [r.intn(10) for _ in range(3)] == [CounterRand(7, 0, SETUP).intn(10)] + [
    ...     (draw_int(7, 0, SETUP, k) * 10) >> 32 for k in (1, 2)]
    True
    """

    __slots__ = ("index", "purpose", "seed", "turn")

    def __init__(self, seed: int, turn: int, purpose: int) -> None:
        self.seed, self.turn, self.purpose = seed, turn, purpose
        self.index = 0

    def intn(self, n: int) -> int:
        """Uniform integer in ``[0, n)``.

        Raises:
            ValueError: if ``n`` is not in ``1 .. 2**32 - 1``.
        """
        if not 1 <= n <= _M32:
            raise ValueError(f"invalid argument to intn: {n!r} (expected 1 .. 2**32 - 1)")
        k = self.index
        self.index += 1
        return (draw_int(self.seed, self.turn, self.purpose, k) * n) >> 32

    def range(self, lo: int, hi: int) -> int:
        """Uniform integer in ``[lo, hi]``."""
        return self.intn(hi - lo + 1) + lo

    def shuffle(self, n: int, swap: Callable[[int, int], None]) -> None:
        """Fisher-Yates through ``swap``."""
        for i in range(n - 1, 0, -1):
            swap(i, self.intn(i + 1))

    def shuffle_list(self, items: MutableSequence[_T]) -> None:
        """Shuffle ``items`` in place (the permutation of :meth:`shuffle`)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.intn(i + 1)
            items[i], items[j] = items[j], items[i]
