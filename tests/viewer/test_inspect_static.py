"""The game page's step controls and request inspector (``pages/inspect.js``) under Node,
fed with real answers of a local server's step-mode game.

The checks are ``js/inspect.test.mjs``, run by ``node --test``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app

JS = Path(__file__).resolve().parent / "js"
"""The Node test files of this folder."""


@pytest.fixture(scope="module")
def inspect_input() -> dict[str, Any]:
    """What ``js/inspect.test.mjs`` reads: a step-mode game's answers from a real server."""
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        body = {"snakes": ["random", "greedy"], "seed": 9, "width": 7, "height": 7, "step": True}
        gid = client.post("/api/games", json=body).json()["id"]
        paused = client.post(f"/api/games/{gid}/step").json()
        running = client.post(f"/api/games/{gid}/resume").json()
        turn0 = client.get(f"/api/games/{gid}/calls", params={"turn": 0}).json()
        later = client.get(f"/api/games/{gid}/calls", params={"turn": 4000}).json()
        over = client.post(f"/api/games/{gid}/cancel").json()
    public = {**turn0, "records_calls": False, "calls": []}
    return {
        "games": [paused, {**running, "status": "running"}, over],
        "calls": [turn0, later, public],
    }


def test_the_inspector_module_under_node(
    inspect_input: dict[str, Any], node_test: Callable[..., int]
) -> None:
    assert node_test(JS / "inspect.test.mjs", inspect_input) == 5
