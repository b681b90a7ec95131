"""The sharing pages' modules under Node: share links, embed code, TV mode, exports' rows.

``js/sharing.test.mjs`` runs the functions the share panel, TV mode and the saved games
page export on a real server's answers: a games list with two live games (step-mode
games hold at turn 0; one is given a ladder's source), a finished game and a finished
export.  The browser tests (``tests/browser/test_sharing.py``) drive the pages.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.waiting import wait_finished

JS = Path(__file__).resolve().parent / "js"
BOARD = {"width": 7, "height": 7}


@pytest.fixture(scope="module")
def sharing_input() -> dict[str, Any]:
    """What ``js/sharing.test.mjs`` reads: a real server's games list and export."""
    from fastapi.testclient import TestClient

    from snakewar.server import ServerConfig, create_app

    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as client:
        body = {"snakes": ["builtin:random", "builtin:greedy"], "seed": 5, **BOARD}
        finished_id = client.post("/api/games", json=body).json()["id"]
        finished = wait_finished(client, finished_id)
        live = [
            client.post("/api/games", json={**body, "seed": seed, "step": True}).json()["id"]
            for seed in (6, 7)
        ]
        # One of them as a ladder's game (the manager keeps the spec a ladder would give).
        manager = client.app.state.manager  # type: ignore[attr-defined]
        ladder_game = live[0]
        playing = manager.games[ladder_game]
        playing.spec = dataclasses.replace(playing.spec, source="ladder:lad")
        games = client.get("/api/games").json()
        job = client.post("/api/exports", json={"kind": "user", "target": "local"}).json()
        deadline = time.monotonic() + 240
        while (job := client.get(f"/api/exports/{job['id']}").json())["state"] != "done":
            assert time.monotonic() < deadline and job["state"] != "failed", job
            time.sleep(0.05)
        for game_id in live:
            client.post(f"/api/games/{game_id}/cancel")
    return {"list": games, "finished": finished, "job": job, "ladderGame": ladder_game}


def test_the_sharing_modules_under_node(
    sharing_input: dict[str, Any], node_test: Callable[..., int]
) -> None:
    """``js/sharing.test.mjs``: the pages' functions on this server's answers."""
    assert node_test(JS / "sharing.test.mjs", sharing_input) == 8
