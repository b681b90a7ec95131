"""The game page's Export menu module under Node (``js/export_menu.test.mjs``).

Its pure functions: the media route's URL for each format and option, the downloaded
file's name, the options typed.  The browser tests (``tests/browser/test_export_halite.py``,
``tests/browser/test_export_html.py``) click the menu on a real server.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

JS = Path(__file__).resolve().parent / "js"


def test_the_export_menu_module_under_node(node_test: Callable[..., int]) -> None:
    assert node_test(JS / "export_menu.test.mjs") == 6
