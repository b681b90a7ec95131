"""Bad input is a 4xx naming the field, never a 500, never echoed whole, never stored.

Each case is one a probe of the running server turned into a 500 (or a background
failure) before; both modes are checked, as the public one takes other paths (its
address checks resolve names).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import zstandard
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from snakewar.server.safety import MAX_BODY_BYTES
from tests.asgi_server import serve
from tests.server.accounts import local_or_public


@pytest.fixture(params=[False, True], ids=["local", "public"])
def client(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    with local_or_public(request.param) as test_client:
        yield test_client
        return
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, raise_server_exceptions=False, base_url="http://localhost") as test_client:
        yield test_client


def post_json(client: TestClient, path: str, body: Any) -> httpx.Response:
    # ASCII JSON: lone surrogates travel as \ud800 escapes, as a hostile client sends them.
    data = json.dumps(body, ensure_ascii=True)
    response: httpx.Response = client.post(
        path, content=data, headers={"content-type": "application/json"}
    )
    return response


@pytest.mark.parametrize(
    ("path", "body", "status", "names"),
    [
        ("/api/games", {"snakes": ["builtin:random?x=²", "random"]}, 400, "'x=²'"),
        ("/api/games", {"snakes": ["hunter?depth=40", "random"]}, 400, "depth=40: expected"),
        ("/api/games", {"snakes": ["hunter?budget=10001", "random"]}, 400, "(1..10000)"),
        ("/api/games", {"snakes": ["http://127.0.0.1:1/\x7f", "random"]}, 400, "control"),
        ("/api/games", {"snakes": ["http://" + "a" * 64 + ".com/", "random"]}, 400, "DNS"),
        ("/api/test", {"url": "http://127.0.0.1:1/\x7f"}, 400, "control"),
        ("/api/test", {"url": "http://" + "a" * 64 + ".com/"}, 400, "DNS"),
        ("/api/games", {"snakes": ["random", "random"], "names": ["\ud800", "b"]}, 422, "names"),
        ("/api/games", {"snakes": ["random"], "x\ud800": 1}, 422, "unicode string"),
        ("/api/games", {"snakes": ["random"], "ruleset": "\ud800"}, 422, "lone surrogate"),
        ("/api/ladders", {"name": "x" * 64 + "\ud800"}, 422, "name"),
        ("/api/tournaments", {"name": "\udfff", "snakes": ["random", "random"]}, 422, "name"),
        ("/api/games", {"snakes": ["random"], "seed": "9" * 5000}, 422, "seed"),
        ("/api/games", {"snakes": ["random"], "seed": 2**63}, 422, "seed"),
    ],
)
def test_bad_requests_are_4xx_naming_the_field(
    client: TestClient, path: str, body: Any, status: int, names: str
) -> None:
    response = post_json(client, path, body)
    assert response.status_code == status, response.text
    assert names in response.text
    assert len(response.content) < 2000  # the input is not echoed whole
    assert client.get("/api/games").json()["games"] == []  # nothing started, nothing stored


def test_huge_offsets_are_422(client: TestClient) -> None:
    for path in ("/api/games", "/api/halite/games"):
        response = client.get(path, params={"offset": str(2**63)})
        assert response.status_code == 422
        assert response.json()["detail"][0]["loc"] == ["query", "offset"]


def test_a_deeply_nested_replay_is_a_400(client: TestClient) -> None:
    nested = b"[" * 100_000 + b"]" * 100_000
    for body in (nested, zstandard.ZstdCompressor().compress(nested)):
        for path in ("/api/halite/games", "/api/halite/decode"):
            response = client.post(
                path, content=body, headers={"content-type": "application/octet-stream"}
            )
            assert response.status_code == 400, (path, response.text)
            assert "replay" in response.json()["detail"]


def test_a_body_past_the_cap_is_413_and_not_echoed(client: TestClient) -> None:
    snake = "http://example.com/" + "a" * MAX_BODY_BYTES
    response = post_json(client, "/api/games", {"snakes": [snake, "random"]})
    assert response.status_code == 413
    assert len(response.content) < 200
    # Just under the cap, the same field is checked and refused by its own limit.
    response = post_json(client, "/api/ladders/x/snakes", {"snake": "a" * 5000})
    assert response.status_code == 422 and len(response.content) < 2000


def test_a_streamed_body_past_the_cap_is_cut_off_over_real_http() -> None:
    app = create_app(ServerConfig(database_url="memory"))

    def chunks() -> Iterator[bytes]:
        yield b'{"snakes": ["'
        for _ in range(64):
            yield b"a" * 65536  # 4 MiB in all, no Content-Length
        yield b'"]}'

    with serve(app, lifespan="on") as base:
        response = httpx.post(
            f"{base}/api/games",
            content=chunks(),
            headers={"content-type": "application/json"},
            timeout=30,
        )
        assert response.status_code == 413, response.text
        assert "larger than 1048576 bytes" in response.json()["detail"]
        # The server goes on serving.
        assert httpx.get(f"{base}/api/games", timeout=10).status_code == 200
