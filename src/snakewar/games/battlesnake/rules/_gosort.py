"""Go's ``sort.Slice``, step for step, so that ties end up where the reference puts them.

The reference orders snakes with ``sort.Slice``, which is not stable.  Since Go 1.19
it is a pattern-defeating quicksort (pdqsort) over the slice's indices:

* up to 12 elements: insertion sort, which *is* stable;
* otherwise: a pivot from the median of three (or, from 50 elements on, Tukey's
  ninther of three medians of three), counting the comparisons that swapped to
  guess whether the range is ascending or descending; a descending guess reverses
  the range, an ascending one tries a short partial insertion sort first; a range
  whose left neighbour is not less than the pivot is split into "equal" and
  "greater"; after an unbalanced split (a side below 1/8 of the range) a few
  elements are swapped with positions drawn from a xorshift generator seeded with
  the range's length (so the result stays deterministic); after ``bits.Len(n)``
  unbalanced splits the range falls back to heapsort.

Which of two equal elements comes first is therefore a function of the whole
input, and only an exact replay of every comparison and swap reproduces it.  This
module is written from the algorithm's published description and behaviour; the
only contract is: same comparisons, same swaps, same order as Go.

>>> items = [3, 1, 2]
>>> go_sort_slice(items, lambda a, b: a < b)
>>> items
[1, 2, 3]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["INSERTION_SORT_MAX", "go_sort_slice", "go_sort_slice_by_key"]

T = TypeVar("T")

INSERTION_SORT_MAX = 12
"""Ranges up to this length are insertion-sorted (stable)."""
_NINTHER_MIN = 50  # from this length the pivot is Tukey's ninther
_MAX_PIVOT_SWAPS = 12  # all three medians of three swapped: a descending guess
_PARTIAL_STEPS = 5  # out-of-order pairs a partial insertion sort may fix
_PARTIAL_MIN_SHIFT = 50  # shorter ranges are never shifted by it
_MASK64 = (1 << 64) - 1

# The pivot's guess about the order of the range.
_UNKNOWN, _INCREASING, _DECREASING = 0, 1, 2


class _Sorter(Generic[T]):
    """One ``sort.Slice`` call: the list and ``less`` on positions, as Go sees them."""

    __slots__ = ("items", "less_items")

    def __init__(self, items: list[T], less: Callable[[T, T], bool]) -> None:
        self.items = items
        self.less_items = less

    def less(self, i: int, j: int) -> bool:
        items = self.items
        return self.less_items(items[i], items[j])

    def swap(self, i: int, j: int) -> None:
        items = self.items
        items[i], items[j] = items[j], items[i]

    # -- the small pieces ------------------------------------------------------------

    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        first, hi = a, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(0, i, first)

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        n = b - a
        swaps = [0]
        quarter = n // 4
        i, j, k = a + quarter, a + quarter * 2, a + quarter * 3
        if n >= 8:
            if n >= _NINTHER_MIN:
                i = self.median(i - 1, i, i + 1, swaps)
                j = self.median(j - 1, j, j + 1, swaps)
                k = self.median(k - 1, k, k + 1, swaps)
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING
        if swaps[0] == _MAX_PIVOT_SWAPS:
            return j, _DECREASING
        return j, _UNKNOWN

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i += 1
            j -= 1

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        """Fix up to a few out-of-order pairs; True if the range ends up sorted."""
        i = a + 1
        for _ in range(_PARTIAL_STEPS):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < _PARTIAL_MIN_SHIFT:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                # Go's loop runs down to index 1, not to a + 1: kept as it is.
                j = i - 1
                while j >= 1:
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j -= 1
            if b - i >= 2:
                j = i + 1
                while j < b:
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j += 1
        return False

    def break_patterns(self, a: int, b: int) -> None:
        n = b - a
        if n < 8:
            return
        state = n  # the xorshift state starts at the length
        modulus = 1 << n.bit_length()  # the power of two above n
        idx = a + (n // 4) * 2 - 1
        for i in range(3):
            state ^= (state << 13) & _MASK64
            state ^= state >> 17
            state ^= (state << 5) & _MASK64
            other = state & (modulus - 1)
            if other >= n:
                other -= n
            self.swap(idx + i, a + other)

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        """Split around the pivot (moved to ``a`` first); returns its new place."""
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i += 1
        j -= 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        """Split into "equal to the pivot" then "greater"; returns the first greater."""
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        return i

    # -- the driver ------------------------------------------------------------------

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        was_balanced = True
        was_partitioned = True
        while True:
            n = b - a
            if n <= INSERTION_SORT_MAX:
                self.insertion_sort(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING
            if (
                was_balanced
                and was_partitioned
                and hint == _INCREASING
                and self.partial_insertion_sort(a, b)
            ):
                return
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, was_partitioned = self.partition(a, b, pivot)
            left, right = mid - a, b - mid
            threshold = n // 8
            if left < right:
                was_balanced = left >= threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right >= threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid


def go_sort_slice(items: list[T], less: Callable[[T, T], bool]) -> None:
    """Sort ``items`` in place exactly as Go's ``sort.Slice(items, less)`` does.

    ``less(x, y)`` compares two elements (Go's callback gets their positions; the
    elements at those positions are what it looks at).  It must be a strict weak
    order for the result to be sorted, but whatever it is, the comparisons and
    swaps are Go's, so the result is Go's.
    """
    n = len(items)
    _Sorter(items, less).pdqsort(0, n, n.bit_length())


def go_sort_slice_by_key(items: list[T], key: Callable[[T], int]) -> None:
    """``sort.Slice`` with ``less(x, y) = key(x) < key(y)``, in place.

    Up to :data:`INSERTION_SORT_MAX` elements Go's sort is a stable insertion sort,
    which for a key order is exactly Python's stable sort (used then, as it is
    faster); above that every comparison and swap is replayed.

    >>> snakes = ["a3", "b2", "c3", "d1"]
    >>> go_sort_slice_by_key(snakes, lambda s: -int(s[1]))
    >>> snakes
    ['a3', 'c3', 'b2', 'd1']
    """
    if len(items) <= INSERTION_SORT_MAX:
        items.sort(key=key)
        return
    keyed = [(key(x), x) for x in items]
    go_sort_slice(keyed, lambda p, q: p[0] < q[0])
    items[:] = [x for _, x in keyed]
