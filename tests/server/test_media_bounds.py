"""Bounds of the downloads that cost CPU: at once (``media_workers``), and pixels a video."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from snakewar.server.routers import games as games_router
from tests.waiting import wait_finished


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = create_app(ServerConfig(database_url="memory", media_workers=1))
    with TestClient(app, raise_server_exceptions=False, base_url="http://localhost") as test:
        yield test


def finished(client: TestClient) -> str:
    created = client.post("/api/games", json={"snakes": ["greedy", "greedy"], "seed": 3})
    assert created.status_code == 201, created.text
    game = str(created.json()["id"])
    assert wait_finished(client, game)["status"] == "complete"
    return game


def test_drawings_past_media_workers_are_refused_and_slots_are_given_back(
    client: TestClient,
) -> None:
    game = finished(client)
    url = f"/api/games/{game}/media"
    # One slot: each drawing gives it back, or the second would be refused.
    for _ in range(2):
        answer = client.get(url, params={"format": "png"})
        assert answer.status_code == 200 and answer.content.startswith(b"\x89PNG")
    scenario = f"/api/games/{game}/scenario"
    first = client.get(f"/api/games/{game}/frames").json()["frames"][0]["Snakes"][0]["ID"]
    saved = client.get(scenario, params={"turn": 1, "snake": first, "keep": True})
    assert saved.status_code == 200, saved.text
    app = client.app
    app.state.media_slots = asyncio.Semaphore(0)  # type: ignore[attr-defined]  # all taken
    answer = client.get(url, params={"format": "gif"})
    assert answer.status_code == 429
    assert "drawing" in answer.json()["detail"]
    # A turn saved as a test scenario is the rules engine's work too: the same slots.
    answer = client.get(scenario, params={"turn": 1, "snake": first, "keep": True})
    assert answer.status_code == 429


def test_a_video_past_the_pixel_budget_is_a_422_naming_size(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = finished(client)
    turns = len(client.get(f"/api/games/{game}/frames").json()["frames"])
    monkeypatch.setattr(games_router, "MAX_MEDIA_FRAME_PIXELS", turns * 200 * 200)
    url = f"/api/games/{game}/media"
    for format in ("gif", "mp4"):
        answer = client.get(url, params={"format": format, "size": 400})
        assert answer.status_code == 422, answer.text
        detail = answer.json()["detail"][0]
        assert detail["loc"][-1] == "size" and "at most 200 pixels wide" in detail["msg"]
    # Within the budget it is drawn; a single picture is never a video's size.
    assert client.get(url, params={"format": "gif", "size": 200}).status_code == 200
    assert client.get(url, params={"format": "png", "size": 1280}).status_code == 200
