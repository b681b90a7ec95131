"""Go's ``sort.Slice`` replayed: the order of ties must be Go's, exactly.

The vectors were made with Go's own ``sort.Slice`` (the file says which Go and
holds the program); they reach every path of its pdqsort: insertion sort, median of
three and Tukey's ninther, the reversal of a descending guess, the partial insertion
sort, the "equal to the pivot" partition, pattern breaking and the heapsort fallback.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from snakewar.games.battlesnake.rules._gosort import (
    INSERTION_SORT_MAX,
    go_sort_slice,
    go_sort_slice_by_key,
)
from tests.conformance_data import DATA, require

VECTORS_FILE = DATA / "battlesnake" / "go_sort_slice_vectors.json"


def _vectors() -> list[dict[str, Any]]:
    require(VECTORS_FILE, "Go sort.Slice vectors")
    vectors: list[dict[str, Any]] = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))["vectors"]
    return vectors


def test_vectors_cover_long_inputs() -> None:
    lengths = {len(v["keys"]) for v in _vectors()}
    assert set(range(41)) <= lengths and max(lengths) > 200


def _by_keys(keys: list[int]) -> tuple[list[int], list[int]]:
    # Positions sorted by key, with a less function and with a key function.
    order = list(range(len(keys)))
    go_sort_slice(order, lambda a, b: keys[a] < keys[b])
    by_key = list(range(len(keys)))
    go_sort_slice_by_key(by_key, keys.__getitem__)
    return order, by_key


def test_go_sort_slice_matches_go_on_every_vector() -> None:
    wrong = []
    for v in _vectors():
        keys = v["keys"]
        order, by_key = _by_keys(keys)
        if order != v["order"] or by_key != v["order"]:
            wrong.append(keys)
    assert not wrong, f"{len(wrong)} vectors differ from Go, first keys: {wrong[0]}"


@pytest.mark.parametrize("n", [0, 1, 2, 5, 12, 13, 16, 49, 50, 51, 300])
def test_result_is_sorted_permutation(n: int) -> None:
    rng = random.Random(n)
    for spread in (1, 2, 3, n + 1):
        keys = [rng.randrange(spread) for _ in range(n)]
        items, _ = _by_keys(keys)
        assert sorted(items) == list(range(n))
        assert [keys[i] for i in items] == sorted(keys)


def test_up_to_twelve_elements_it_is_stable() -> None:
    rng = random.Random(12)
    for _ in range(500):
        n = rng.randrange(INSERTION_SORT_MAX + 1)
        keys = [rng.randrange(3) for _ in range(n)]
        items, _ = _by_keys(keys)
        assert items == sorted(range(n), key=keys.__getitem__)


def test_above_twelve_ties_move() -> None:
    # The 13-snake pile-up of the conformance repro: lengths 3, 4, 4, then ten 3s,
    # longest first.  Go puts the third snake before the second.
    lengths = [3, 4, 4] + [3] * 10
    order = list(range(13))
    go_sort_slice_by_key(order, lambda i: -lengths[i])
    assert order == [2, 1, 6, 3, 4, 5, 0, 7, 8, 9, 10, 11, 12]
