"""The new-game page's game selector (``pages/new_game_games.js``) under Node.

Which game's form is shown and the URL that keeps the choice: ``js/new_game_games.test.mjs``,
run by ``node --test``; the browser tests drive the page (tests/browser/test_halite_web.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

JS = Path(__file__).resolve().parent / "js"
"""The Node test files of this folder."""


def test_the_game_selector_under_node(node_test: Callable[..., int]) -> None:
    assert node_test(JS / "new_game_games.test.mjs") == 2
