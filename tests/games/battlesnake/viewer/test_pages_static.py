"""Battlesnake's page modules under Node: the tester's rows, boards and stream, and seeds.

``js/pages.test.mjs``, run by ``node --test``; the browser tests drive the DOM parts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

JS = Path(__file__).resolve().parent / "js"
"""The Node test files of this folder."""

BIG_SEED = "2618439174457646105"  # a JavaScript number would make it ...6000


def test_the_page_modules_under_node(node_test: Callable[..., int]) -> None:
    assert node_test(JS / "pages.test.mjs", {"bigSeed": BIG_SEED}) == 3
