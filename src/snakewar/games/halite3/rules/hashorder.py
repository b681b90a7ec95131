"""The iteration order of the official engine's hash tables (libstdc++'s unordered containers).

The official Halite III engine keeps ships, changed cells, per-turn move destinations and
a few statistics in ``std::unordered_map``/``std::unordered_set`` and writes them to bots
and to replays in the order those containers iterate.  Bots see that order (most of them
act on ships in the order they are listed), so the engine's order is part of the game.

:class:`HashOrder` reproduces that order exactly for the engine's build (GCC's libstdc++,
64-bit ``size_t``) by following the same rules, not by copying the library:

* a key's bucket is its hash code modulo the bucket count; integer ids hash to
  themselves, locations with the engine's own :func:`location_hash`;
* the nodes form one singly linked list in which every bucket's nodes are contiguous.
  A node entering an empty bucket goes to the very front of the list; a node entering a
  non-empty bucket goes to the front of that bucket's run;
* the bucket count follows the prime rehash policy (maximum load factor 1): a new
  container has one bucket and no capacity, its first insertion sizes it for 11
  elements (13 buckets), and an insertion past capacity grows it to the smallest listed
  prime at least twice the old count.  A rehash walks the list in order and re-inserts
  every node by the rule above;
* erasing unlinks a node and leaves the others in place; ``clear()`` empties the
  list but keeps the bucket count.

The list is kept as runs per bucket.  A dict maps each non-empty bucket to the first key
that entered its run (the run's back); the dict's own insertion order is the runs' order
from the back of the list.  Most buckets hold one key, so the keys that entered a run
after its first one are kept apart, oldest first, for the few buckets that have them:
a table of one key per bucket then is a single dict, with no list per run.
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import Generic, TypeVar

__all__ = ["HashOrder", "fresh_order", "location_hash"]

K = TypeVar("K", bound=Hashable)

_MASK = (1 << 64) - 1

# Bucket counts for small requests (index: the requested count), then the primes the
# policy picks from for larger ones: libstdc++'s table, as its ``_M_next_bkt`` returns it
# (checked against the library).  Containers here never come near the end of it.
_FAST_BUCKETS = (1, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
# fmt: off
_PRIMES = (
    17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109, 113,
    127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359,
    383, 409, 439, 467, 503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193,
    1289, 1381, 1493, 1613, 1741, 1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739,
    4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011,
    12983, 14033, 15173, 16411, 17749, 19183, 20753, 22447, 24281, 26267, 28411, 30727, 33223,
    35933, 38873, 42043, 45481, 49201, 53201, 57557, 62233, 67307, 72817, 78779, 85229, 92203,
    99733, 107897, 116731, 126271, 136607, 147793, 159871, 172933, 187091, 202409, 218971,
    236897, 256279, 277261, 299951, 324503, 351061, 379787, 410857, 444487, 480881, 520241,
    562841, 608903, 658753, 712697, 771049, 834181, 902483, 976369, 1056323, 1142821, 1236397,
    1337629, 1447153, 1565659, 1693859, 1832561, 1982627, 2144977, 2320627, 2510653, 2716249,
    2938679, 3179303, 3439651, 3721303, 4026031, 4355707, 4712381, 5098259, 5515729, 5967347,
    6456007, 6984629, 7556579, 8175383, 8844859, 9569143, 10352717, 11200489, 12117689,
    13109983, 14183539, 15345007, 16601593, 17961079, 19431899, 21023161, 22744717, 24607243,
    26622317, 28802401, 31160981, 33712729, 36473443, 39460231, 42691603, 46187573, 49969847,
    54061849, 58488943, 63278561, 68460391, 74066549, 80131819, 86693767, 93793069, 101473717,
    109783337, 118773397, 128499677, 139022417, 150406843, 162723577, 176048909, 190465427,
    206062531, 222936881, 241193053, 260944219, 282312799, 305431229, 330442829, 357502601,
    386778277, 418451333, 452718089, 489790921, 529899637, 573292817, 620239453, 671030513,
    725980837, 785430967, 849749479, 919334987, 994618837, 1076067617, 1164186217, 1259520799,
    1362662261, 1474249943, 1594975441, 1725587117, 1866894511, 2019773507, 2185171673,
    2364114217, 2557710269, 2767159799, 2993761039, 3238918481, 3504151727, 3791104843,
    4101556399, 4294967291,
)
# fmt: on


def location_hash(x: int, y: int) -> int:
    """The engine's hash of a location: ``hash_combine(x, y)`` in 64-bit arithmetic."""
    return (x ^ (y + 0x9E3779B9 + (x << 6) + (x >> 2))) & _MASK


class HashOrder(Generic[K]):
    """The keys of one libstdc++ unordered container with unique keys, in iteration order.

    Drive it with the same insertions and erasures as the engine's container, giving each
    key's hash code; iterating yields the keys in the order the engine's loop visits them.
    """

    __slots__ = ("_bucket_count", "_codes", "_firsts", "_later", "_next_resize", "_order")

    def __init__(self) -> None:
        self._bucket_count = 1
        # 0 means "never sized": the first insertion allocates room for 11 elements.
        self._next_resize = 0
        self._codes: dict[K, int] = {}
        # Bucket -> the first key of its run; bucket -> the run's later keys, oldest first.
        self._firsts: dict[int, K] = {}
        self._later: dict[int, list[K]] = {}
        # The keys in order, kept until the next change (tables are read more than changed).
        self._order: list[K] | None = None

    @classmethod
    def of(cls, keys: Iterable[K], codes: Iterable[int]) -> HashOrder[K]:
        """A new table after adding ``keys`` (distinct) with their ``codes``, in order.

        The same table as :meth:`add_all` on an empty one, built faster: the keys need
        no check, and only the rehashes cost more than one step per key.
        """
        table: HashOrder[K] = cls()
        keys = list(keys)
        known = table._codes = dict(zip(keys, codes, strict=True))
        if len(known) != len(keys):
            raise ValueError("HashOrder.of needs distinct keys")
        hashes = list(known.values())  # in the keys' order, as they are distinct
        start = 0
        while start < len(keys):
            # Grow as the insertion past capacity does: the rehash walks the keys added
            # so far (later ones are in ``_codes`` but not yet in the runs).
            table._order = None
            table._grow(start + 1)
            end = table._next_resize
            table._insert(keys[start:end], hashes[start:end])
            start = end
        table._order = None
        return table

    @property
    def bucket_count(self) -> int:
        """The container's current number of buckets."""
        return self._bucket_count

    def __len__(self) -> int:
        return len(self._codes)

    def __contains__(self, key: object) -> bool:
        return key in self._codes

    def __iter__(self) -> Iterator[K]:
        """The keys in iteration order (changing the table meanwhile does not disturb it)."""
        order = self._order
        if order is None:
            order = self._order = self._walk()
        return iter(order)

    def _walk(self) -> list[K]:
        """The keys in list order: the runs from the front, each from its newest key."""
        firsts = self._firsts
        later = self._later
        # Back to front, the list is each run's first key followed by its later ones.
        if not later:
            back_to_front = list(firsts.values())
        else:
            back_to_front = []
            for bucket, key in firsts.items():
                back_to_front.append(key)
                more = later.get(bucket)
                if more is not None:
                    back_to_front += more
        back_to_front.reverse()
        return back_to_front

    def _insert(self, keys: Iterable[K], codes: Iterable[int]) -> None:
        """Put each new key at the front of its bucket's run (the bucket count holds)."""
        firsts = self._firsts
        later = self._later
        count = self._bucket_count
        for key, code in zip(keys, codes, strict=True):
            bucket = code % count
            # setdefault hands back the key itself when it starts a new run.
            if firsts.setdefault(bucket, key) is not key:
                more = later.get(bucket)
                if more is None:
                    later[bucket] = [key]
                else:
                    more.append(key)

    def add(self, key: K, code: int) -> bool:
        """Insert ``key`` (hash ``code``) unless present; True when it was inserted."""
        codes = self._codes
        if key in codes:
            return False
        n = len(codes) + 1
        if n > self._next_resize:
            self._grow(n)
        self._order = None
        codes[key] = code
        self._insert((key,), (code,))
        return True

    def add_all(self, keys: Iterable[K], codes: Iterable[int]) -> None:
        """:meth:`add` each key with its code, in order (one call for many keys)."""
        known = self._codes
        new_keys: list[K] = []
        new_codes: list[int] = []
        for key, code in zip(keys, codes, strict=True):
            if key in known:
                continue
            if len(known) >= self._next_resize:
                # The rehash walks the keys added so far: they go in first.
                self._insert(new_keys, new_codes)
                new_keys, new_codes = [], []
                self._order = None
                self._grow(len(known) + 1)
            known[key] = code
            new_keys.append(key)
            new_codes.append(code)
        self._insert(new_keys, new_codes)
        self._order = None

    def discard_all(self, keys: Iterable[K]) -> None:
        """:meth:`discard` each key (one call for many keys)."""
        self._order = None
        known = self._codes
        firsts = self._firsts
        later = self._later
        count = self._bucket_count
        for key in keys:
            code = known.pop(key, None)
            if code is None:
                continue
            bucket = code % count
            more = later.get(bucket)
            if more is None:
                del firsts[bucket]
                continue
            if firsts[bucket] == key:
                # The run keeps its place; its next key becomes its first.
                firsts[bucket] = more.pop(0)
            else:
                more.remove(key)
            if not more:
                del later[bucket]

    def discard(self, key: K) -> None:
        """Erase ``key`` if present (the other keys keep their places)."""
        if key in self._codes:
            self.discard_all((key,))

    def clear(self) -> None:
        """Erase every key; the bucket count stays."""
        self._codes.clear()
        self._firsts.clear()
        self._later.clear()
        self._order = None

    def _grow(self, n: int) -> None:
        """The rehash policy's check before the container reaches ``n`` elements."""
        wanted = max(n, 11 if self._next_resize == 0 else 0)
        if wanted < self._bucket_count:
            # Enough buckets already (after a clear): only the threshold moves.
            self._next_resize = self._bucket_count
            return
        count = self._next_bucket_count(max(wanted + 1, self._bucket_count * 2))
        order = list(self)
        self._bucket_count = count
        self._firsts = {}
        self._later = {}
        codes = self._codes
        self._insert(order, [codes[key] for key in order])

    def _next_bucket_count(self, n: int) -> int:
        if n < len(_FAST_BUCKETS):
            count = _FAST_BUCKETS[n]
        else:
            index = bisect.bisect_left(_PRIMES, n)
            if index >= len(_PRIMES):
                raise OverflowError(f"a hash table of {n} buckets is past the modelled sizes")
            count = _PRIMES[index]
        self._next_resize = count
        return count


_SORTED_FROM = 32
"""Rehash stages of at least this many keys are ordered by sorting (:func:`fresh_order`)."""


def fresh_order(keys: Sequence[K], codes: Sequence[int]) -> list[K]:
    """The order a new table iterates after ``keys`` (distinct) go in with ``codes``.

    The same as ``list(HashOrder.of(keys, codes))``, for a table that is only read.  A
    rehash stage is a stable rule: the runs go in the order of their buckets' first
    keys in the stage's sequence (the last stage's order, then the new keys), latest
    first, and each run lists its keys latest first.  So a big stage is one sort, with
    numpy, rather than one step per key.
    """
    n = len(keys)
    if n < _SORTED_FROM:
        return list(HashOrder.of(keys, codes))
    import numpy as np

    stages: list[tuple[int, int, int]] = []  # (first key, end, bucket count)
    sizing: HashOrder[int] = HashOrder()  # empty: it only follows the growth policy
    start = 0
    while start < n:
        sizing._grow(start + 1)
        stages.append((start, min(sizing._next_resize, n), sizing._bucket_count))
        start = sizing._next_resize
    small = 0
    while small < len(stages) and stages[small][1] < _SORTED_FROM:
        small += 1
    done = stages[small - 1][1] if small else 0
    hashes = np.asarray(codes, dtype=np.uint64)
    order = np.array(list(HashOrder.of(range(done), hashes[:done].tolist())), dtype=np.intp)
    for start, end, count in stages[small:]:
        sequence = np.concatenate((order, np.arange(start, end, dtype=np.intp)))
        buckets = (hashes[sequence] % np.uint64(count)).astype(np.intp)
        positions = np.arange(len(sequence), dtype=np.intp)
        first = np.full(count, len(sequence), dtype=np.intp)
        np.minimum.at(first, buckets, positions)
        rank = first[buckets] * len(sequence) + positions
        order = sequence[np.argsort(rank)[::-1]]
    return [keys[index] for index in order.tolist()]
