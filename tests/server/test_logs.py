"""The server's JSON logs: the formatter, the game id of a request and of a game's tasks."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from snakewar.server.app import create_app
from snakewar.server.config import ServerConfig
from snakewar.server.logs import (
    ACCESS_LOGGER,
    GAME_ID,
    GameIdFilter,
    JsonFormatter,
    game_context,
    game_id_of_path,
)
from tests.server.accounts import BASE_URL


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    """The ``snakewar`` loggers at INFO, written as JSON lines into a buffer."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(GameIdFilter())
    logger = logging.getLogger("snakewar")
    old_level, old_propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield buffer
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate


def lines(buffer: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


@pytest.mark.parametrize(
    ("path", "game_id"),
    [
        ("/api/games/abc-123", "abc-123"),
        ("/api/games/abc-123/frames", "abc-123"),
        ("/games/abc/events", "abc"),
        ("/view/4f1c2d", "4f1c2d"),
        ("/api/halite/games/g1/replay.hlt", "g1"),
        ("/api/games", None),
        ("/api/games/", None),
        ("/api/catalogue", None),
        ("/view/../etc", None),
    ],
)
def test_the_game_of_a_request_path(path: str, game_id: str | None) -> None:
    assert game_id_of_path(path) == game_id


def test_a_line_is_one_json_object_with_the_game_id(captured: io.StringIO) -> None:
    log = logging.getLogger("snakewar.test")
    log.info("no game here")
    token = GAME_ID.set("g-7")
    try:
        log.warning("a move timed out: %s", "seat 2", extra={"seat": 2})
        try:
            raise ValueError("broken")
        except ValueError:
            log.exception("failed")
    finally:
        GAME_ID.reset(token)
    first, second, third = lines(captured)
    assert first["message"] == "no game here" and "game_id" not in first
    assert first["level"] == "INFO" and first["logger"] == "snakewar.test"
    assert str(first["time"]).endswith("Z")
    assert second["message"] == "a move timed out: seat 2"
    assert (second["game_id"], second["seat"], second["level"]) == ("g-7", 2, "WARNING")
    assert third["game_id"] == "g-7" and "ValueError: broken" in str(third["exc"])


def test_a_game_task_and_its_own_tasks_carry_the_game_id(captured: io.StringIO) -> None:
    log = logging.getLogger("snakewar.test")

    async def move() -> None:
        log.info("a move")

    async def game() -> None:
        log.info("a turn")
        await asyncio.gather(move(), move())

    async def main() -> None:
        await asyncio.create_task(game(), context=game_context("g-1"))
        # A task named as the server names a game's is that game's, context or not.
        await asyncio.create_task(game(), name="game g-2")
        log.info("after")

    asyncio.run(main())
    found = [(line["message"], line.get("game_id")) for line in lines(captured)]
    assert found[:3] == [("a turn", "g-1"), ("a move", "g-1"), ("a move", "g-1")]
    assert found[3] == ("a turn", "g-2")
    assert found[-1] == ("after", None)


def test_the_app_logs_each_request_with_its_game_when_asked(captured: io.StringIO) -> None:
    with TestClient(create_app(ServerConfig(database_url="memory")), base_url=BASE_URL) as c:
        assert c.get("/api/games/nothing-here").status_code == 404
        assert c.get("/health").status_code == 200
    access = [line for line in lines(captured) if line["logger"] == ACCESS_LOGGER]
    by_path = {line["path"]: line for line in access}
    assert by_path["/api/games/nothing-here"]["game_id"] == "nothing-here"
    assert by_path["/api/games/nothing-here"]["status"] == 404
    assert by_path["/health"]["status"] == 200 and "game_id" not in by_path["/health"]
    assert by_path["/health"]["method"] == "GET"


def test_the_text_server_logs_no_requests(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    with TestClient(create_app(ServerConfig(database_url="memory")), base_url=BASE_URL) as c:
        assert c.get("/health").status_code == 200
    assert not [r for r in caplog.records if r.name == ACCESS_LOGGER]
