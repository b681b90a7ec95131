"""The snake SDK: a decorated function becomes a correct API v1 server."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import jsonschema
import pytest

from snakewar.games.battlesnake import GameConfig, Settings
from snakewar.games.battlesnake.bots.sdk import FunctionBot, snake
from snakewar.games.battlesnake.records import CallStatus
from snakewar.games.battlesnake.referee.clients import new_http_client
from snakewar.games.battlesnake.referee.runner import connect, play_game
from snakewar.games.battlesnake.rules.wire import MoveReply, SnakeRequest, api_schema
from tests.asgi_server import free_port, serve

SEEN: list[SnakeRequest] = []


@snake(author="tester", color="#00ff00", head="smile", tail="bolt", version="1.2")
def walker(request: SnakeRequest) -> MoveReply:
    """Walks towards the centre column, then around; shouts its turn."""
    SEEN.append(request)
    head = request.you.body[0]
    move = "right" if head.x < request.board.width // 2 else "up"
    if head.y >= request.board.height - 1:
        move = "left" if head.x > 0 else "down"
    return MoveReply(move, shout=f"turn {request.turn}")


@snake
def broken(request: SnakeRequest) -> str:
    return "sideways"


@pytest.fixture(scope="module")
def walker_url() -> Iterator[str]:
    with serve(walker.app, lifespan="off") as url:
        yield url


def test_decorated_function_is_a_bot_and_a_server(walker_url: str) -> None:
    assert isinstance(walker, FunctionBot)
    meta = httpx.get(walker_url + "/", timeout=60).json()
    jsonschema.validate(meta, {"$ref": "#/$defs/Metadata", "$defs": api_schema()["$defs"]})
    assert meta == {
        "apiversion": "1",
        "author": "tester",
        "color": "#00ff00",
        "head": "smile",
        "tail": "bolt",
        "version": "1.2",
    }

    async def run() -> None:
        async with new_http_client() as http:
            snakes = await connect([walker_url, "builtin:random"], ["walker"], http)
            SEEN.clear()
            record = await play_game(
                GameConfig(settings=Settings.defaults(seed=9)), snakes, max_turns=10
            )
            calls = [t.calls[record.snakes[0].id] for t in record.turns]
            assert all(c.status is CallStatus.OK for c in calls)
            assert calls[0].shout == "turn 0"
            # The move function received typed objects matching the referee's state.
            first = SEEN[0]
            assert first.you.body == record.initial.snake(record.snakes[0].id).body
            assert first.game.id == record.id and first.game.timeout == 500
            assert first.infos[record.snakes[1].id].name == "random-2"

    asyncio.run(run())


def test_server_rejects_bad_requests_with_a_named_field(walker_url: str) -> None:
    bad = httpx.post(walker_url + "/move", json={"game": {"id": "g"}, "turn": "one"}, timeout=60)
    assert bad.status_code == 400
    assert "request.turn" in bad.json()["error"]
    not_json = httpx.post(walker_url + "/move", content=b"{oops", timeout=60)
    assert not_json.status_code == 400 and "not JSON" in not_json.json()["error"]
    huge = httpx.post(walker_url + "/move", content=b"[" + b"1," * 3_000_000 + b"1]", timeout=60)
    assert huge.status_code == 413


def test_invalid_move_from_a_function_is_a_server_error_not_a_bad_reply() -> None:
    with serve(broken.app, lifespan="off") as url:

        async def run() -> None:
            async with new_http_client() as http:
                snakes = await connect([url, "builtin:random"], [], http)
                record = await play_game(
                    GameConfig(settings=Settings.defaults(seed=2)), snakes, max_turns=3
                )
                call = record.turns[0].calls[record.snakes[0].id]
                assert call.status is CallStatus.HTTP_STATUS and call.http_status == 500
                assert call.move == "up"

        asyncio.run(run())


def test_bot_serve_command_serves_a_builtin() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "snakewar", "bot", "serve", "random", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                meta = httpx.get(f"http://127.0.0.1:{port}/", timeout=60).json()
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.1)
        assert meta["apiversion"] == "1" and meta["author"] == "snakewar"
    finally:
        proc.terminate()
        proc.wait(10)
