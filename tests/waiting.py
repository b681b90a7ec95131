"""Waiting for a game to finish, or a bot's build to end: the polls API and browser tests share.

A game the server plays runs in the background; a test that needs its end polls
``GET /api/games/{id}`` until the status is no longer ``running``.  An uploaded bot is
built in the background too: :func:`wait_built` polls ``GET /api/snakes/{id}`` until its
``build_status`` is no longer ``building``.  The waits are generous (the suite must pass
on a loaded machine) and fail with the game or snake as last seen.
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
    return _poll(
        client, f"/api/games/{game_id}", f"game {game_id}", "status", "running",
        headers=headers, timeout=timeout, every=every,
    )  # fmt: skip


def _poll(
    client: Any,
    path: str,
    what: str,
    field: str,
    busy: str,
    *,
    headers: Mapping[str, str] | None,
    timeout: float,
    every: float,
) -> dict[str, Any]:
    """GET ``path`` until its ``field`` is no longer ``busy``; return the last answer."""
    deadline = time.monotonic() + timeout
    while True:
        response = client.get(path, headers=headers)
        assert response.status_code == 200, f"{what}: {response.text}"
        seen: dict[str, Any] = response.json()
        if seen[field] != busy:
            return seen
        assert time.monotonic() < deadline, f"{what} still {busy} after {timeout} s: {seen}"
        time.sleep(every)


BUILD_PATIENCE_S = 240.0
"""How long a bot's build may take to end before the test fails (compilers are slow)."""


def wait_built(
    client: Any,
    snake_id: int,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = BUILD_PATIENCE_S,
    every: float = 0.1,
) -> dict[str, Any]:
    """Poll an uploaded bot until it is no longer ``building``; return it as the API shows it.

    Args:
        client: a client of the server (``httpx.Client`` or a FastAPI ``TestClient``).
        snake_id: the snake's id.
        headers: sent with every request (its owner's, to see its ``build_error``).
        timeout: seconds before the test fails.
        every: seconds between two polls.
    """
    return _poll(
        client, f"/api/snakes/{snake_id}", f"snake {snake_id}", "build_status", "building",
        headers=headers, timeout=timeout, every=every,
    )  # fmt: skip
