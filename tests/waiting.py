"""Waiting for a game to finish, the one poll every API and browser test shares.

A game the server plays runs in the background; a test that needs its end polls
``GET /api/games/{id}`` until the status is no longer ``running``.  The wait is generous
(the suite must pass on a loaded machine) and fails with the game as last seen.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import httpx

PATIENCE_S = 300.0
"""How long a game may take to finish before the test fails (a loaded machine is slow)."""


def wait_finished(
    client: httpx.Client | str,
    game_id: str,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = PATIENCE_S,
    every: float = 0.05,
) -> dict[str, Any]:
    """Poll a game until it is no longer running; return it as the API then shows it.

    Args:
        client: a client of the server (a FastAPI ``TestClient`` is one), or the server's
            base URL (``http://127.0.0.1:PORT``).
        game_id: the game's id.
        headers: sent with every request (a signed-in user's, say).
        timeout: seconds before the test fails.
        every: seconds between two polls.
    """
    if isinstance(client, str):
        with httpx.Client(base_url=client, timeout=60) as opened:
            return wait_finished(opened, game_id, headers=headers, timeout=timeout, every=every)
    deadline = time.monotonic() + timeout
    while True:
        response = client.get(f"/api/games/{game_id}", headers=headers)
        assert response.status_code == 200, f"game {game_id}: {response.text}"
        game: dict[str, Any] = response.json()
        if game["status"] != "running":
            return game
        assert time.monotonic() < deadline, (
            f"game {game_id} still running after {timeout} s: {game}"
        )
        time.sleep(every)
