"""The operations pages' modules under Node: the dashboard's rows, the settings' body.

``js/ops.test.mjs`` runs the pure parts of ``admin_dashboard.js`` and
``notifications.js`` on a real server's answers (a dashboard with a complete and an
aborted game, a user's settings); the browser tests drive the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

JS = Path(__file__).resolve().parent / "js"


@pytest.fixture(scope="module")
def ops_input() -> dict[str, Any]:
    """A real server's dashboard and notification settings."""
    import time

    from fastapi.testclient import TestClient

    from snakewar.server import ServerConfig, create_app

    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        made = client.post("/api/games", json={"snakes": ["builtin:random"] * 2, "seed": 4})
        deadline = time.monotonic() + 120
        while client.get(f"/api/games/{made.json()['id']}").json()["status"] == "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        stepped = client.post("/api/games", json={"snakes": ["builtin:random"] * 2, "step": True})
        store = client.app.state.store.store  # type: ignore[attr-defined]
        store.games.abort(stepped.json()["id"], "the worker died")
        body = {"webhook_url": "http://127.0.0.1:9/h", "events": {"game_finished": ["webhook"]}}
        settings = client.put("/api/notifications/settings", json=body).json()
        return {"dashboard": client.get("/api/admin/dashboard").json(), "settings": settings}


def test_the_operations_modules_under_node(
    ops_input: dict[str, Any], node_test: Callable[..., int]
) -> None:
    """``js/ops.test.mjs``: the dashboard's rows and the settings' body on real answers."""
    assert node_test(JS / "ops.test.mjs", ops_input) == 7
