"""The game page's keys for a person playing (``pages/human_keys.js``) under Node, fed
with a real server's answers (a game waiting for its person's move, one with nobody).

The checks are ``js/human_keys.test.mjs``, run by ``node --test``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app

JS = Path(__file__).resolve().parent / "js"


def seats() -> dict[str, Any]:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        board = {"seed": "3", "width": 7, "height": 7}
        body = {**board, "snakes": ["human?timeout=60000", "random"]}
        human = client.post("/api/games", json=body).json()["id"]
        deadline = time.monotonic() + 120
        while not (waiting := client.get(f"/api/games/{human}/human").json())["waiting"]:
            assert time.monotonic() < deadline, waiting
            time.sleep(0.05)
        bots = client.post("/api/games", json={**board, "snakes": ["random", "random"]}).json()
        nobody = client.get(f"/api/games/{bots['id']}/human").json()
        client.post(f"/api/games/{human}/cancel")
    return {"waiting": waiting, "nobody": nobody}


def test_the_human_keys_module_under_node(node_test: Callable[..., int]) -> None:
    assert node_test(JS / "human_keys.test.mjs", seats()) == 2
