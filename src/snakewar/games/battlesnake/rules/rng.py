"""Seeded random sources, including a bit-exact port of Go's ``math/rand``.

Battlesnake's reference engine draws all of its map randomness from Go's seeded
``math/rand`` (``rand.New(rand.NewSource(seed))``), always through a *fresh* source
seeded with ``seed + turn``.  :class:`GoRand` reproduces that stream bit for bit, so a
Snakewar game with seed ``S`` is the official engine's game with seed ``S``.

Go's source is an additive lagged Fibonacci generator over 607 64-bit words
(lag 273).  Seeding fills the words from a Park-Miller sequence
(``x <- 48271 * x mod (2**31 - 1)``) mixed with 607 fixed constants.  Filling all
607 words costs far more than the one or two draws a typical turn makes, so the
words are computed on first use: the Park-Miller sequence is a plain modular
power, which lets any word be computed on its own from a precomputed power table.

All sources here implement :class:`Rand`, the small interface the rules use
(``intn``, ``range``, ``shuffle``).  :data:`MIN_RAND` and :data:`MAX_RAND` are the
deterministic test doubles the reference's own tests use.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, MutableSequence
from typing import Any, Final, Protocol, TypeVar

from mypy_extensions import i64

from snakewar.games.battlesnake.rules._gocooked import RNG_COOKED

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "MAX_RAND",
    "MIN_RAND",
    "GoRand",
    "MaxRand",
    "MinRand",
    "Rand",
    "go_int",
    "wrap_int64",
]

_T = TypeVar("_T")

_RNG_LEN: Final = 607
_RNG_TAP: Final = 273
_MASK64: Final = (1 << 64) - 1
_MASK63: Final = (1 << 63) - 1
_MASK32: Final = (1 << 32) - 1
_MASK31: Final = (1 << 31) - 1
INT64_MIN: Final = -(1 << 63)
"""The smallest value of Go's 64-bit ``int``."""
INT64_MAX: Final = (1 << 63) - 1
"""The largest value of Go's 64-bit ``int``."""
_INT32_MAX: Final = (1 << 31) - 1  # the Park-Miller modulus
_PM_MULTIPLIER: Final = 48271
# Go replaces a seed that reduces to 0 with this constant.
_ZERO_SEED_SUBSTITUTE: Final = 89482311
# Seeding runs 20 warm-up steps, then three steps per word.
_WARMUP: Final = 20
_STEPS: Final = _WARMUP + 3 * _RNG_LEN


def _powers() -> tuple[int, ...]:
    table = [1] * (_STEPS + 1)
    for k in range(1, _STEPS + 1):
        table[k] = table[k - 1] * _PM_MULTIPLIER % _INT32_MAX
    return tuple(table)


# _PM_POW[k] == 48271**k mod (2**31 - 1): step k of the seeding sequence is seed * _PM_POW[k].
_PM_POW: Final = _powers()


# The cooked constants as 32-bit halves (see GoRand._word).
_COOKED_HI: Final[tuple[int, ...]] = tuple(c >> 32 for c in RNG_COOKED)
_COOKED_LO: Final[tuple[int, ...]] = tuple(c & _MASK32 for c in RNG_COOKED)


def _all_words(seed: int) -> list[int]:
    """All 607 seeded words for a reduced seed (``1 <= seed < 2**31 - 1``)."""
    return _word_array(seed).tolist()  # type: ignore[no-any-return]


def _word_array(seed: int) -> Any:
    """All 607 seeded words as a numpy ``uint64`` array."""
    import numpy as np  # imported here: only long shuffles need it

    x = (_pow_array() * seed) % _INT32_MAX  # < 2**62: exact in int64
    u = x.view(np.uint64)  # non-negative, so the bits are the same
    return (u[:, 0] << np.uint64(40)) ^ (u[:, 1] << np.uint64(20)) ^ u[:, 2] ^ _cooked_array()


@functools.cache
def _pow_array() -> Any:
    import numpy as np

    # Row i holds the multipliers of seeding steps 21+3i, 22+3i and 23+3i.
    start = _WARMUP + 1
    return np.array(_PM_POW[start : start + 3 * _RNG_LEN], dtype=np.int64).reshape(_RNG_LEN, 3)


@functools.cache
def _cooked_array() -> Any:
    import numpy as np

    return np.array(RNG_COOKED, dtype=np.uint64)


def wrap_int64(value: int) -> int:
    """Wrap ``value`` to a signed 64-bit integer, as Go's ``int64`` arithmetic does.

    >>> wrap_int64(2**63)
    -9223372036854775808
    """
    value &= _MASK64
    return value - (1 << 64) if value >> 63 else value


def go_int(value: int) -> int:
    """The result of a Go ``int`` (64-bit) sum or difference: ``value``, wrapped if out of range.

    The rules call it on every sum they make of health, turn and damage (``Health - 1``,
    ``Turn + 1``, ``Health - damage``): Python's integers do not overflow, Go's do.
    Only an out-of-range value pays for the wrap.

    >>> go_int(-(2**63) - 1), go_int(2**63), go_int(99)
    (9223372036854775807, -9223372036854775808, 99)
    """
    if INT64_MIN <= value <= INT64_MAX:
        return value
    return wrap_int64(value)


# Shuffles longer than this fill all words in one vectorised numpy pass first: in
# Python that beats computing a hundred words one by one.  Compiled with mypyc, the
# word-by-word loop is the faster one at every size the maps use (a board has at most
# 255 x 255 squares), so the numpy path is left to longer shuffles.
_FILL_THRESHOLD = 24 if isinstance(wrap_int64, types.FunctionType) else 1 << 17


class Rand(Protocol):
    """The random interface the rules use (the reference engine's ``rules.Rand``)."""

    def intn(self, n: int) -> int:
        """Return a uniform integer in ``[0, n)``; ``n`` must be positive."""
        ...

    def range(self, lo: int, hi: int) -> int:
        """Return a uniform integer in ``[lo, hi]`` (both ends included)."""
        ...

    def shuffle(self, n: int, swap: Callable[[int, int], None]) -> None:
        """Shuffle ``n`` elements through ``swap(i, j)``, as Go's ``Shuffle`` does."""
        ...

    def shuffle_list(self, items: MutableSequence[_T]) -> None:
        """Shuffle ``items`` in place; the same permutation as :meth:`shuffle`."""
        ...


class GoRand:
    """Go's ``rand.New(rand.NewSource(seed))``, bit for bit.

    The methods keep Go's names in snake case and Go's exact algorithms, including
    the rejection loops, so every stream matches Go 1.19 (and later, whose seeded
    ``math/rand`` is unchanged).

    >>> r = GoRand(1)
    >>> [r.intn(100) for _ in range(5)]
    [81, 87, 47, 59, 81]
    """

    __slots__ = ("_draws", "_feed", "_hi", "_lo", "_seed", "_tap", "seed")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        # Go: seed % int32max with the sign of the dividend, then folded into [0, int32max).
        s = abs(seed) % _INT32_MAX
        if seed < 0 and s:
            s = _INT32_MAX - s
        if s == 0:
            s = _ZERO_SEED_SUBSTITUTE
        self._seed: i64 = s
        # The 607 words, each as two 32-bit halves (compiled with mypyc, halves are
        # machine integers where whole words would be heap-allocated big integers), or
        # None while no draw can read a word an earlier draw wrote.  Draw d (from 0)
        # reads words 333 - d and 606 - d and writes word 333 - d, so the first 273
        # draws (the lag) read only seeded words, which _word computes on its own.  The
        # rules seed a fresh source every turn and mostly draw once from it: building
        # and freeing two 607-slot lists each turn cost 8% of a compiled turn.
        self._hi: list[int] | None = None
        self._lo: list[int] | None = None
        self._tap: i64 = 0
        self._feed: i64 = _RNG_LEN - _RNG_TAP
        self._draws: i64 = 0

    def __reduce__(self) -> tuple[type[GoRand], tuple[int], tuple[object, ...]]:
        # Pickle and copy through __init__ and __setstate__: a mypyc-compiled class has
        # no bare instances.
        return GoRand, (self.seed,), (self._hi, self._lo, self._tap, self._feed, self._draws)

    def __setstate__(self, state: tuple[object, ...]) -> None:
        hi, lo, tap, feed, draws = state
        assert (hi is None and lo is None) or (isinstance(hi, list) and isinstance(lo, list))
        assert isinstance(tap, int) and isinstance(feed, int) and isinstance(draws, int)
        self._hi = None if hi is None else list(hi)
        self._lo = None if lo is None else list(lo)
        self._tap, self._feed, self._draws = tap, feed, draws

    def _word(self, i: i64) -> tuple[i64, i64]:
        # Word i is built from seeding steps 21+3i, 22+3i and 23+3i (after 20 warm-up
        # steps): (a << 40) ^ (b << 20) ^ c ^ cooked[i] modulo 2**64, in halves.  Every
        # intermediate stays below 2**62: i64 makes them machine integers once compiled.
        s: i64 = self._seed
        k = _WARMUP + 1 + 3 * i
        a: i64 = s * _PM_POW[k] % _INT32_MAX
        b: i64 = s * _PM_POW[k + 1] % _INT32_MAX
        c: i64 = s * _PM_POW[k + 2] % _INT32_MAX
        hi: i64 = ((a << 8) & _MASK32) ^ (b >> 12) ^ _COOKED_HI[i]
        lo: i64 = ((b << 20) & _MASK32) ^ c ^ _COOKED_LO[i]
        return hi, lo

    def _next(self) -> tuple[i64, i64]:
        # The source's next value, as (high, low) halves: Go's Uint64.
        tap: i64 = self._tap - 1
        if tap < 0:
            tap += _RNG_LEN
        feed: i64 = self._feed - 1
        if feed < 0:
            feed += _RNG_LEN
        self._tap = tap
        self._feed = feed
        draws: i64 = self._draws
        self._draws = draws + 1
        a_hi: i64
        a_lo: i64
        b_hi: i64
        b_lo: i64
        his = self._hi
        los = self._lo
        if his is None or los is None:
            if draws < _RNG_TAP:
                # Both words still have their seeded values; nothing needs storing, as
                # _words replays these draws' writes if the stream gets that long.
                a_hi, a_lo = self._word(feed)
                b_hi, b_lo = self._word(tap)
                lo: i64 = a_lo + b_lo
                return (a_hi + b_hi + (lo >> 32)) & _MASK32, lo & _MASK32
            his, los = self._words(draws)
        a_hi = his[feed]
        a_lo = los[feed]
        b_hi = his[tap]
        b_lo = los[tap]
        lo = a_lo + b_lo
        hi: i64 = (a_hi + b_hi + (lo >> 32)) & _MASK32
        lo &= _MASK32
        his[feed] = hi
        los[feed] = lo
        return hi, lo

    def _words(self, draws: i64) -> tuple[list[int], list[int]]:
        # Store all 607 words: the seeded ones, then what the first ``draws`` draws (at
        # most the lag, so each read two seeded words) wrote.  One vectorised pass (numpy)
        # costs about as much as a dozen words computed one by one in Python.
        words = _all_words(self._seed)
        his = [w >> 32 for w in words]
        los = [w & _MASK32 for w in words]
        feed0 = _RNG_LEN - _RNG_TAP - 1
        for k in range(draws):
            f = feed0 - k
            t = _RNG_LEN - 1 - k
            lo = los[f] + los[t]
            his[f] = (his[f] + his[t] + (lo >> 32)) & _MASK32
            los[f] = lo & _MASK32
        self._hi = his
        self._lo = los
        return his, los

    def _fill(self) -> None:
        # A long shuffle touches most of the words: store them all at once.
        if self._hi is None:
            self._words(min(self._draws, _RNG_TAP))

    def uint64(self) -> int:
        """Return the next raw 64-bit value of the source (Go's ``Uint64``)."""
        hi, lo = self._next()
        return (hi << 32) | lo

    def int63(self) -> int:
        """Return a non-negative 63-bit integer (Go's ``Int63``)."""
        hi, lo = self._next()
        return ((hi & _MASK31) << 32) | lo

    def int31(self) -> int:
        """Return a non-negative 31-bit integer (Go's ``Int31``)."""
        hi, _ = self._next()
        return hi & _MASK31

    def uint32(self) -> int:
        """Return a 32-bit unsigned integer (Go's ``Uint32``)."""
        hi, lo = self._next()
        return ((hi & _MASK31) << 1) | (lo >> 31)

    def int63n(self, n: int) -> int:
        """Return a uniform integer in ``[0, n)`` for 64-bit ``n`` (Go's ``Int63n``)."""
        if n <= 0:
            raise ValueError(f"invalid argument to int63n: {n!r} (expected a positive integer)")
        if n & (n - 1) == 0:
            return self.int63() & (n - 1)
        limit = _MASK63 - (1 << 63) % n
        v = self.int63()
        while v > limit:
            v = self.int63()
        return v % n

    def int31n(self, n: int) -> int:
        """Return a uniform integer in ``[0, n)`` for 32-bit ``n`` (Go's ``Int31n``)."""
        if n <= 0:
            raise ValueError(f"invalid argument to int31n: {n!r} (expected a positive integer)")
        if n & (n - 1) == 0:
            return self.int31() & (n - 1)
        limit = _INT32_MAX - (1 << 31) % n
        v = self.int31()
        while v > limit:
            v = self.int31()
        return v % n

    def fast_int31n(self, n: int) -> int:
        """Go's unexported ``int31n``: Lemire's multiply-shift method, used by ``Shuffle``."""
        prod = self.uint32() * n
        low = prod & _MASK32
        if low < n:
            thresh = ((1 << 32) - n) % n
            while low < thresh:
                prod = self.uint32() * n
                low = prod & _MASK32
        return prod >> 32

    def intn(self, n: int) -> int:
        """Return a uniform integer in ``[0, n)`` (Go's ``Intn``).

        Raises:
            ValueError: if ``n`` is not positive (Go panics).
        """
        if n <= 0:
            raise ValueError(f"invalid argument to intn: {n!r} (expected a positive integer)")
        if n <= _INT32_MAX:
            return self.int31n(n)
        return self.int63n(n)

    def range(self, lo: int, hi: int) -> int:
        """Return a uniform integer in ``[lo, hi]``: ``intn(hi - lo + 1) + lo``."""
        return self.intn(hi - lo + 1) + lo

    def shuffle(self, n: int, swap: Callable[[int, int], None]) -> None:
        """Shuffle ``n`` elements through ``swap(i, j)`` (Go's ``Shuffle``).

        Raises:
            ValueError: if ``n`` is negative.
        """
        if n < 0:
            raise ValueError(f"invalid argument to shuffle: {n!r} (expected n >= 0)")
        if n > _FILL_THRESHOLD:
            self._fill()
        i = n - 1
        while i > _INT32_MAX - 1:
            swap(i, self.int63n(i + 1))
            i -= 1
        while i > 0:
            swap(i, self.fast_int31n(i + 1))
            i -= 1

    def _shuffle_vectorized(self, items: MutableSequence[_T]) -> bool:
        # While fewer than 273 (the lag) values have been drawn, every draw adds two
        # words that no earlier draw wrote, so a whole shuffle's draws can be
        # computed at once.  Returns False, changing nothing, when that does not
        # hold or Lemire's method would reject a draw (a 1-in-10-million event).
        import numpy as np

        m = len(items) - 1
        if self._draws + m > _RNG_TAP:  # _draws never undercounts
            return False
        words = _word_array(self._seed)
        k = np.arange(1, m + 1)
        feed_idx = self._feed - k
        tap_idx = (self._tap - k) % _RNG_LEN
        x = words[feed_idx] + words[tap_idx]  # wraps modulo 2**64, as Go's int64 does
        v = (x & np.uint64(_MASK63)) >> np.uint64(31)
        ns = np.arange(m + 1, 1, -1, dtype=np.uint64)
        prod = v * ns
        low = prod & np.uint64(0xFFFFFFFF)
        if (low < ns).any() and (low < (np.uint64(1 << 32) - ns) % ns).any():
            return False
        for i, j in zip(range(m, 0, -1), (prod >> np.uint64(32)).tolist(), strict=True):
            items[i], items[j] = items[j], items[i]
        # Store the words the draws wrote (feed - m .. feed - 1, in that order), unless
        # none are stored yet (see __init__); every other word this shuffle read still
        # has its seeded value, which _word gives.
        feed = self._feed
        if self._hi is not None and self._lo is not None:
            self._hi[feed - m : feed] = (x[::-1] >> np.uint64(32)).tolist()
            self._lo[feed - m : feed] = (x[::-1] & np.uint64(_MASK32)).tolist()
        self._feed -= m
        self._tap = int(tap_idx[-1])
        self._draws += m
        return True

    def shuffle_list(self, items: MutableSequence[_T]) -> None:
        """Shuffle ``items`` in place with the same permutation as :meth:`shuffle`."""
        # The hot path of food spawning: Go's Shuffle with Lemire's int31n.
        n_items = len(items)
        if n_items < 2:
            return
        if n_items > _FILL_THRESHOLD:
            if self._shuffle_vectorized(items):
                return
            self._fill()
        # Swaps on a list (typed as one) compile to direct element access.
        work: list[_T] = items if isinstance(items, list) else list(items)
        for i in range(n_items - 1, 0, -1):
            n = i + 1
            hi, lo = self._next()
            prod = (((hi & _MASK31) << 1) | (lo >> 31)) * n
            low = prod & _MASK32
            if low < n:
                thresh = ((1 << 32) - n) % n
                while low < thresh:
                    prod = self.uint32() * n
                    low = prod & _MASK32
            j = prod >> 32
            work[i], work[j] = work[j], work[i]
        if work is not items:
            items[:] = work

    def __repr__(self) -> str:
        return f"GoRand({self.seed!r})"


class MinRand:
    """A test double that always returns the smallest value and never shuffles."""

    __slots__ = ()

    def intn(self, n: int) -> int:
        """Return 0."""
        return 0

    def range(self, lo: int, hi: int) -> int:
        """Return ``lo``."""
        return lo

    def shuffle(self, n: int, swap: Callable[[int, int], None]) -> None:
        """Leave the order unchanged."""

    def shuffle_list(self, items: MutableSequence[_T]) -> None:
        """Leave the order unchanged."""

    def __repr__(self) -> str:
        return "MIN_RAND"


class MaxRand:
    """A test double that returns the largest value and rotates every shuffle by one."""

    __slots__ = ()

    def intn(self, n: int) -> int:
        """Return ``n - 1``."""
        return n - 1

    def range(self, lo: int, hi: int) -> int:
        """Return ``hi``."""
        return hi

    def shuffle(self, n: int, swap: Callable[[int, int], None]) -> None:
        """Move every element one place towards the front (the first goes last)."""
        if n < 2:
            return
        for i in range(n - 1):
            swap(i, i + 1)

    def shuffle_list(self, items: MutableSequence[_T]) -> None:
        """Rotate ``items`` left by one, as :meth:`shuffle` does."""
        if len(items) >= 2:
            items.append(items.pop(0))

    def __repr__(self) -> str:
        return "MAX_RAND"


MIN_RAND = MinRand()
"""The shared :class:`MinRand` instance."""
MAX_RAND = MaxRand()
"""The shared :class:`MaxRand` instance."""
