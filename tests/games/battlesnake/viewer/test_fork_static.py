"""The position editor's and the fork button's modules under Node.

``js/fork.test.mjs`` checks what the editor builds from clicks and sends, against the
position built here and a real server's answer to it; the browser tests
(``tests/browser/test_fork_page.py``) drive the pages.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

JS = Path(__file__).resolve().parent / "js"

SENT = {
    "format": "snakewar-position",
    "version": 1,
    "state": {
        "turn": 4,
        "width": 7,
        "height": 7,
        "food": [[3, 3]],
        "hazards": [[0, 0]],
        "snakes": [
            {"id": "s1", "body": [[1, 1], [1, 0]], "health": 80, "eliminated_cause": ""},
            {"id": "s2", "body": [[5, 5], [5, 6]], "health": 70, "eliminated_cause": ""},
        ],
    },
    "names": ["A", "B"],
}
"""What the editor sends for the board ``fork.test.mjs`` draws."""


@pytest.fixture(scope="module")
def fork_input() -> dict[str, Any]:
    """The position sent and a real server's answer to it."""
    from fastapi.testclient import TestClient

    from snakewar.server import ServerConfig, create_app

    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        answer = client.post("/api/battlesnake/position", json={"position": SENT})
    assert answer.status_code == 200, answer.text
    return {"sent": SENT, "answer": answer.json()}


def test_the_fork_modules_under_node(
    fork_input: dict[str, Any], node_test: Callable[..., int]
) -> None:
    assert node_test(JS / "fork.test.mjs", fork_input) == 4
