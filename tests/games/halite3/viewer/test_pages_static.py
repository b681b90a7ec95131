"""Halite III's page modules (its ``viewer/pages/``): their pure parts under Node.

The stored games' rows, the game page's state line and the new-game form's Halite game:
``js/pages.test.mjs``, run by ``node --test``; the browser tests drive the DOM parts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

JS = Path(__file__).resolve().parent / "js"
"""The Node test files of this folder."""


def test_the_page_modules_under_node(node_test: Callable[..., int]) -> None:
    assert node_test(JS / "pages.test.mjs") == 4
