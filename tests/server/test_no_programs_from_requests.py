"""No text from a web request ever becomes a program the server starts.

The payloads are the ones that ran a shell command through a Halite ladder before
entrants went through the game protocol: each is refused when given, nothing is
added or played, and the command's marker file never appears.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from tests.server.accounts import local_or_public


@pytest.fixture(params=[False, True], ids=["local", "public"])
def client(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    with local_or_public(request.param) as test_client:
        yield test_client
        return
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, raise_server_exceptions=False, base_url="http://localhost") as test_client:
        yield test_client


def payloads(marker: Path) -> list[str]:
    return [
        f"greedy?x;touch {marker} #",
        f"http://8.8.8.8/;touch {marker} #",
        f"legacy:http://8.8.8.8/;touch {marker} #",
        f'python3 -c \'open("{marker}", "w")\'',
        f"builtin:greedy; touch {marker}",
    ]


def test_program_entrants_are_refused_everywhere(client: TestClient, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    created = client.post("/api/ladders", json={"name": "h3", "game": "halite3", "game_size": 2})
    assert created.status_code == 201, created.text
    for payload in payloads(marker):
        added = client.post("/api/ladders/h3/snakes", json={"snake": payload})
        assert added.status_code in (400, 403), (payload, added.text)
        game = client.post("/api/games", json={"game": "halite3", "snakes": [payload, payload]})
        assert game.status_code in (400, 403), (payload, game.text)
        cup = client.post(
            "/api/tournaments",
            json={"name": "c", "game": "halite3", "snakes": [payload, "builtin:random"]},
        )
        assert cup.status_code in (400, 403), (payload, cup.text)
        snake = client.post("/api/games", json={"snakes": [payload, "random"]})
        assert snake.status_code in (400, 403), (payload, snake.text)
    assert client.get("/api/ladders/h3").json()["standings"] == []
    assert client.post("/api/ladders/h3/run", json={"games": 5}).status_code in (400, 409, 422)
    time.sleep(0.5)
    assert not marker.exists()
    # What a request may name: built-in bots, which run in the server's own code.
    ok = client.post("/api/ladders/h3/snakes", json={"snake": "builtin:greedy"})
    assert ok.status_code in (200, 201), ok.text


def test_the_refusal_says_why(client: TestClient) -> None:
    refused = client.post("/api/games", json={"game": "halite3", "snakes": ["python3 bot.py"] * 2})
    assert refused.status_code == 403
    assert "would start a program on the server" in refused.json()["detail"]
