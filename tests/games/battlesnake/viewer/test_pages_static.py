"""Battlesnake's page modules under Node: the new-game form, the tester, and seeds.

``js/pages.test.mjs``, run by ``node --test``, on a real server's maps; the browser tests
drive the DOM parts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

JS = Path(__file__).resolve().parent / "js"
"""The Node test files of this folder."""

BIG_SEED = "2618439174457646105"  # a JavaScript number would make it ...6000


@pytest.fixture(scope="module")
def pages_input() -> dict[str, Any]:
    """What ``js/pages.test.mjs`` reads: the maps a real server lists, and a big seed."""
    from fastapi.testclient import TestClient

    from snakewar.server import ServerConfig, create_app

    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        maps = client.get("/api/maps").json()
    return {"bigSeed": BIG_SEED, "maps": maps}


def test_the_page_modules_under_node(
    pages_input: dict[str, Any], node_test: Callable[..., int]
) -> None:
    assert node_test(JS / "pages.test.mjs", pages_input) == 9
