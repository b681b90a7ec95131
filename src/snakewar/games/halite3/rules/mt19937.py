"""A bit-exact port of C++'s ``std::mt19937`` (32-bit Mersenne Twister).

The Halite III engine seeds every random source with ``std::mt19937(seed)``, and
its map generator draws doubles through libstdc++'s
``std::uniform_real_distribution<double>``.  :class:`MT19937` reproduces both bit
for bit: the raw 32-bit outputs, and ``generate_canonical<double, 53>``, which
libstdc++ builds from **two** raw outputs.

The state is advanced one whole block of 624 words at a time, exactly as the C++
engine does, with the twist and the tempering done in NumPy.  Scalar draws and
array draws read the same block, so mixing them keeps one stream.

NumPy is imported inside the functions: importing it pulls in the standard
``random`` module, which the pure core must not load merely by being imported.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["MT19937"]

_N = 624
_M = 397
_MATRIX_A = 0x9908B0DF
_UPPER_MASK = 0x80000000
_LOWER_MASK = 0x7FFFFFFF
_MASK32 = 0xFFFFFFFF
_INIT_MULTIPLIER = 1812433253

_TWO_32 = 4294967296.0
_TWO_64 = 18446744073709551616.0
# libstdc++ replaces a canonical value that rounds up to 1.0 with the largest double below 1.
_BELOW_ONE = math.nextafter(1.0, 0.0)


def _init_genrand(seed: int) -> list[int]:
    """The 624 state words ``std::mt19937(seed)`` starts from (``init_genrand``)."""
    key = [seed % (1 << 32)]
    for i in range(1, _N):
        prev = key[-1]
        key.append((_INIT_MULTIPLIER * (prev ^ (prev >> 30)) + i) & _MASK32)
    return key


def _twist(old: NDArray[np.uint32]) -> NDArray[np.uint32]:
    """One full regeneration of the 624 state words.

    The sequential C loop reads ``mt[i + 1]`` before it is rewritten and
    ``mt[(i + 397) % 624]``, which is an old word for ``i < 227`` and an already
    rewritten one after.  The three slices below follow those dependencies, so
    the result equals the sequential loop word for word.
    """
    import numpy as np

    new = np.empty(_N, dtype=np.uint32)
    upper = np.uint32(_UPPER_MASK)
    lower = np.uint32(_LOWER_MASK)
    matrix = np.uint32(_MATRIX_A)
    one = np.uint32(1)

    def mix(
        cur: NDArray[np.uint32], nxt: NDArray[np.uint32], far: NDArray[np.uint32]
    ) -> NDArray[np.uint32]:
        y = (cur & upper) | (nxt & lower)
        out: NDArray[np.uint32] = far ^ (y >> one) ^ ((y & one) * matrix)
        return out

    split = _N - _M  # 227
    new[0:split] = mix(old[0:split], old[1 : split + 1], old[_M:_N])
    new[split : 2 * split] = mix(
        old[split : 2 * split], old[split + 1 : 2 * split + 1], new[0:split]
    )
    new[2 * split : _N - 1] = mix(
        old[2 * split : _N - 1], old[2 * split + 1 : _N], new[split : _M - 1]
    )
    new[_N - 1 : _N] = mix(old[_N - 1 : _N], new[0:1], new[_M - 1 : _M])
    return new


def _temper(words: NDArray[np.uint32]) -> NDArray[np.uint32]:
    """The output tempering of every word of a block."""
    import numpy as np

    y = words ^ (words >> np.uint32(11))
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


class MT19937:
    """``std::mt19937`` seeded like the C++ constructor ``std::mt19937(seed)``.

    Args:
        seed: Any integer; like the C++ constructor it is taken modulo ``2**32``.

    Example:
        >>> MT19937(5489).next_u32()
        3499211612
    """

    __slots__ = ("_block", "_block_list", "_pos", "_state")

    def __init__(self, seed: int) -> None:
        import numpy as np

        self._state: NDArray[np.uint32] = np.array(_init_genrand(seed), dtype=np.uint32)
        self._block: NDArray[np.uint32] = np.empty(0, dtype=np.uint32)
        self._block_list: list[int] = []
        # Position in the current block of tempered outputs; _N means "twist first".
        self._pos = _N

    def _refill(self) -> None:
        self._state = _twist(self._state)
        self._block = _temper(self._state)
        self._block_list = [int(v) for v in self._block.tolist()]
        self._pos = 0

    def next_u32(self) -> int:
        """The next raw 32-bit output, as ``rng()`` returns it in C++."""
        if self._pos >= _N:
            self._refill()
        value = self._block_list[self._pos]
        self._pos += 1
        return value

    def next_u32_array(self, n: int) -> NDArray[np.uint32]:
        """The next ``n`` raw outputs as a ``uint32`` array (same stream as :meth:`next_u32`).

        Raises:
            ValueError: If ``n`` is negative.
        """
        import numpy as np

        if n < 0:
            raise ValueError(f"draw count {n!r} is negative; expected n >= 0")
        parts: list[NDArray[np.uint32]] = []
        left = n
        while left > 0:
            if self._pos >= _N:
                self._refill()
            take = min(left, _N - self._pos)
            parts.append(self._block[self._pos : self._pos + take])
            self._pos += take
            left -= take
        if not parts:
            return np.empty(0, dtype=np.uint32)
        return np.concatenate(parts)

    def canonical_double(self) -> float:
        """libstdc++'s ``generate_canonical<double, 53>``: a double in ``[0, 1)``.

        It takes two raw outputs ``lo`` then ``hi`` and returns
        ``(lo + hi * 2**32) / 2**64``; the sum is rounded to a double first, so a
        result of exactly 1.0 is possible and is replaced by the double just below 1.
        """
        lo = float(self.next_u32())
        hi = float(self.next_u32())
        value = (lo + hi * _TWO_32) / _TWO_64
        return _BELOW_ONE if value >= 1.0 else value

    def canonical_array(self, n: int) -> NDArray[np.float64]:
        """``n`` successive :meth:`canonical_double` values, computed with the same rounding."""
        import numpy as np

        raw = self.next_u32_array(2 * n).astype(np.float64)
        values: NDArray[np.float64] = (raw[0::2] + raw[1::2] * _TWO_32) / _TWO_64
        values[values >= 1.0] = _BELOW_ONE
        return values

    def uniform_real(self, a: float, b: float) -> float:
        """``std::uniform_real_distribution<double>(a, b)`` as libstdc++ draws it."""
        return self.canonical_double() * (b - a) + a
