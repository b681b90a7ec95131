"""The game page's latency chart (``pages/latency_chart.js``) under Node, fed with the
frames and header of a real local game played under the unofficial timing rules.

The checks are ``js/latency_chart.test.mjs``, run by ``node --test``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from tests.waiting import wait_finished

JS = Path(__file__).resolve().parent / "js"
"""The Node test files of this folder."""


@pytest.fixture(scope="module")
def chart_input() -> dict[str, Any]:
    """What ``js/latency_chart.test.mjs`` reads: a finished game's first page of frames."""
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        body = {
            "snakes": ["random", "greedy"],
            "seed": 9,
            "width": 7,
            "height": 7,
            "maxTurns": 6,
            "params": {"timeBank": 1000, "retryTimeout": True},
        }
        gid = client.post("/api/games", json=body).json()["id"]
        wait_finished(client, gid)
        page: dict[str, Any] = client.get(f"/api/games/{gid}/frames").json()
    return {"page": page}


def test_the_latency_chart_module_under_node(
    chart_input: dict[str, Any], node_test: Callable[..., int]
) -> None:
    assert node_test(JS / "latency_chart.test.mjs", chart_input) == 4
