"""The Go-compatible random source against Go's own outputs."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

from snakewar.games.battlesnake.rules._gocooked import RNG_COOKED
from snakewar.games.battlesnake.rules.rng import MAX_RAND, MIN_RAND, GoRand, wrap_int64
from tests.conformance_data import battlesnake_dir, require

VECTORS_PATH = battlesnake_dir() / "go_math_rand_vectors.json"
VECTORS = json.loads(VECTORS_PATH.read_text()) if VECTORS_PATH.exists() else []


def test_vectors_present() -> None:
    require(VECTORS_PATH, "Go's math/rand test vectors")
    assert len(VECTORS) >= 6, f"{VECTORS_PATH} holds {len(VECTORS)} vectors"


@pytest.mark.parametrize("vec", VECTORS, ids=[str(v["seed"]) for v in VECTORS])
def test_go_vectors(vec: dict[str, Any]) -> None:
    seed = vec["seed"]
    r = GoRand(seed)
    assert [str(r.int63()) for _ in range(5)] == vec["int63_x5_as_strings"]
    r = GoRand(seed)
    assert [r.intn(100) for _ in range(20)] == vec["intn_100_x20"]
    r = GoRand(seed)
    assert [r.intn(4) for _ in range(20)] == vec["intn_4_x20"]
    r = GoRand(seed)
    assert [r.range(2, 9) for _ in range(10)] == vec["range_2_9_x10"]
    for n in (4, 8, 12, 121):
        items = list(range(n))
        GoRand(seed).shuffle_list(items)
        assert items == vec[f"shuffle_{n}"]
        swapped = list(range(n))

        def swap(i: int, j: int, swapped: list[int] = swapped) -> None:
            swapped[i], swapped[j] = swapped[j], swapped[i]

        GoRand(seed).shuffle(n, swap)
        assert swapped == vec[f"shuffle_{n}"]


@pytest.mark.parametrize("draws_before", [0, 1, 3, 300, 333, 334, 400, 606, 607, 1300])
def test_fast_shuffle_matches_the_plain_algorithm_anywhere_in_the_stream(draws_before: int) -> None:
    # shuffle_list inlines the source and fills it with numpy; shuffle() is the plain port.
    fast, plain = GoRand(77), GoRand(77)
    for _ in range(draws_before):
        fast.int63()
        plain.int63()
    a, b = list(range(150)), list(range(150))
    fast.shuffle_list(a)

    def swap(i: int, j: int) -> None:
        b[i], b[j] = b[j], b[i]

    for i in range(149, 0, -1):
        swap(i, plain.fast_int31n(i + 1))
    assert a == b
    assert [fast.int63() for _ in range(700)] == [plain.int63() for _ in range(700)]


def test_seed_reduction_matches_go() -> None:
    # Go reduces the seed modulo 2**31-1 keeping the dividend's sign, then folds negatives up.
    assert [GoRand(2**31 - 1 + 5).intn(1000) for _ in range(1)] == [GoRand(5).intn(1000)]
    assert GoRand(-5).int63() == GoRand(2**31 - 1 - 5).int63()
    # A seed that reduces to 0 is replaced by a fixed constant, as in Go.
    assert GoRand(0).int63() == GoRand(2**31 - 1).int63()


def test_large_intn_uses_int63n() -> None:
    r = GoRand(9)
    values = [r.intn(2**40) for _ in range(50)]
    assert all(0 <= v < 2**40 for v in values)
    assert max(values) > 2**31


@pytest.mark.parametrize("bad", [0, -3])
def test_intn_rejects_non_positive(bad: int) -> None:
    with pytest.raises(ValueError, match=str(bad)):
        GoRand(1).intn(bad)


def test_min_and_max_rand() -> None:
    assert MIN_RAND.intn(10) == 0 and MIN_RAND.range(3, 8) == 3
    assert MAX_RAND.intn(10) == 9 and MAX_RAND.range(3, 8) == 8
    items = [1, 2, 3, 4]
    MIN_RAND.shuffle_list(items)
    assert items == [1, 2, 3, 4]
    MAX_RAND.shuffle_list(items)
    assert items == [2, 3, 4, 1]
    swapped = [1, 2, 3, 4]

    def swap(i: int, j: int) -> None:
        swapped[i], swapped[j] = swapped[j], swapped[i]

    MAX_RAND.shuffle(4, swap)
    assert swapped == [2, 3, 4, 1]


def test_wrap_int64() -> None:
    assert wrap_int64(2**63 - 1) == 2**63 - 1
    assert wrap_int64(2**63) == -(2**63)
    assert wrap_int64(-1) == -1


class _EagerSource:
    """Go's rngSource written the plain way: all 607 words seeded up front, then Uint64.

    An oracle for GoRand, which stores no word until a draw can read one it wrote.
    """

    def __init__(self, seed: int) -> None:
        m = 2**31 - 1
        x = seed % m  # Python's modulo is already non-negative here
        if x == 0:
            x = 89482311
        self.vec = [0] * 607
        for i in range(-20, 607):
            x = x * 48271 % m
            if i >= 0:
                u = x << 40
                x = x * 48271 % m
                u ^= x << 20
                x = x * 48271 % m
                u ^= x
                self.vec[i] = (u ^ RNG_COOKED[i]) & (2**64 - 1)
        self.tap, self.feed = 0, 607 - 273

    def int63(self) -> int:
        self.tap = (self.tap - 1) % 607
        self.feed = (self.feed - 1) % 607
        x = (self.vec[self.feed] + self.vec[self.tap]) & (2**64 - 1)
        self.vec[self.feed] = x
        return x & (2**63 - 1)


@pytest.mark.parametrize("seed", [1, 77, -5, 2**40 + 3])
def test_long_streams_match_an_eagerly_seeded_source(seed: int) -> None:
    # Past the lag (273 draws) draws read words earlier draws wrote: GoRand stores them
    # from then on, replaying the writes it skipped.  Interleave every kind of draw.
    ours, oracle = GoRand(seed), _EagerSource(seed)
    for _ in range(2000):
        assert ours.int63() == oracle.int63()
    ours, oracle = GoRand(seed), _EagerSource(seed)
    for step in range(60):
        if step % 7 == 3:  # a shuffle of 40: 39 draws, plain or vectorised by position
            items = list(range(40))
            ours.shuffle_list(items)
            for _ in range(39):
                oracle.int63()
        elif step % 11 == 5:  # a pickle round trip keeps the stream
            ours = pickle.loads(pickle.dumps(ours))
            ours = copy.deepcopy(ours)
        else:
            assert [ours.int63() for _ in range(step)] == [oracle.int63() for _ in range(step)]
    assert [ours.int63() for _ in range(700)] == [oracle.int63() for _ in range(700)]


@pytest.mark.parametrize("draws_before", [0, 100, 272, 273, 274, 900])
def test_pickle_keeps_the_stream(draws_before: int) -> None:
    r = GoRand(12345)
    for _ in range(draws_before):
        r.int63()
    copy_ = pickle.loads(pickle.dumps(r))
    assert [copy_.int63() for _ in range(700)] == [r.int63() for _ in range(700)]
