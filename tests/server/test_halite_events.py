"""Halite III games stream live like Battlesnake games: the generic events websocket.

Over real HTTP (uvicorn on loopback, websockets from the ``websockets`` client): a
Halite game is created as the new-game page creates it (``POST /api/games`` with the
body its module builds), followed live over ``/api/games/{id}/events`` to its end, and
resumed from a frame (``?from=N``), on the server that plays it and on another server
of the same database (its mirror of the game), on SQLite and PostgreSQL.  A real bot
program holds the game on chosen turns until the test lets it go (a file it waits
for), so what is checked while the game runs is proven without the clock.  What the
followers are sent is checked against the stored replay, frame for frame.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from snakewar.server import ServerConfig, create_app
from snakewar.server.events import BAD_REQUEST_CLOSE_CODE, GAME_NOT_FOUND_CLOSE_CODE
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.server.test_halite_live import TIMEOUT_MS, Gated
from tests.waiting import wait_finished

PATIENCE_S = 120.0
"""How long one message may take on a loaded machine before the test fails."""

TURNS = 8
"""Turns each game plays."""


def page_body(bot: str, seed: int) -> dict[str, Any]:
    """What the new-game page's Halite form posts (its module's buildBody, tested under Node):
    2 players, a 32x32 map, a seed and a number of turns."""
    return {
        "game": "halite3",
        "snakes": [bot, "builtin:greedy"],
        "params": {"width": 32, "height": 32},
        "seed": str(seed),
        "maxTurns": TURNS,
        "timeout": TIMEOUT_MS,
    }


def events_url(base: str, game_id: str, start: int | None = None) -> str:
    query = "" if start is None else f"?from={start}"
    return base.replace("http://", "ws://") + f"/api/games/{game_id}/events{query}"


async def message(ws: ClientConnection) -> dict[str, Any]:
    raw = await asyncio.wait_for(ws.recv(), PATIENCE_S)
    assert isinstance(raw, str)
    parsed: dict[str, Any] = json.loads(raw)
    return parsed


async def frames(ws: ClientConnection, count: int) -> list[dict[str, Any]]:
    """The next ``count`` messages, which must be frames: their views."""
    views = []
    for _ in range(count):
        got = await message(ws)
        assert got["Type"] == "frame", got
        assert isinstance(got["Time"], float)  # a live frame says when it was made
        views.append(got["Data"])
    return views


async def rest(ws: ClientConnection) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The frames' views up to ``game_end``, and ``game_end``'s data; then the close."""
    views: list[dict[str, Any]] = []
    while True:
        got = await message(ws)
        if got["Type"] == "game_end":
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), PATIENCE_S)
            assert ws.close_code == 1000
            return views, got["Data"]
        assert got["Type"] == "frame", got
        views.append(got["Data"])


async def refusal(url: str) -> tuple[int | None, str]:
    async with ws_connect(url) as ws:
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), PATIENCE_S)
        return ws.close_code, ws.close_reason or ""


def replay_frames(base: str, game_id: str) -> list[dict[str, Any]]:
    document = httpx.get(f"{base}/api/halite/games/{game_id}/replay", timeout=PATIENCE_S).json()
    views: list[dict[str, Any]] = document["full_frames"]
    return views


@pytest.fixture
def two_servers(db_url: str) -> Iterator[tuple[str, str, Store]]:
    """Two servers on one database (SQLite, PostgreSQL): A plays the games, B mirrors them."""
    config = ServerConfig(database_url=db_url, max_timeout_ms=TIMEOUT_MS)
    app_a, app_b = create_app(config), create_app(config)
    with serve(app_a) as a, serve(app_b) as b, Store(db_url) as store:
        yield a, b, store


def test_a_halite_game_from_the_page_is_followed_live_to_its_end_and_resumed(
    two_servers: tuple[str, str, Store], tmp_path: Path
) -> None:
    a, b, store = two_servers
    bot = Gated(store, tmp_path / "bot", {2, 5})
    created = httpx.post(f"{a}/api/games", json=page_body(bot.ref, 11), timeout=PATIENCE_S)
    assert created.status_code == 201, created.text
    game = created.json()
    game_id = game["id"]
    assert (game["game"], game["viewer"]) == ("halite3", f"/view/{game_id}")

    Views = list[dict[str, Any]]

    async def scenario() -> tuple[Views, dict[str, Any], Views, Views]:
        await asyncio.to_thread(bot.reached, 2)
        async with (
            ws_connect(events_url(a, game_id)) as whole,
            ws_connect(events_url(a, game_id, start=1)) as resumed,
            ws_connect(events_url(b, game_id)) as elsewhere,
        ):
            # Turn 1 is played, turn 2 waits for the bot: frames 0 and 1, then nothing.
            first = await frames(whole, 2)
            assert await frames(resumed, 1) == first[1:]  # ?from=1: frame 1 on
            # On B, the game A plays, mirrored from the database.
            assert await frames(elsewhere, 2) == first
            with pytest.raises(TimeoutError):  # the game holds: no frame comes
                await asyncio.wait_for(whole.recv(), 0.5)
            bot.release(2)
            await asyncio.to_thread(bot.reached, 5)
            middle = await frames(whole, 3)  # turns 2, 3 and 4
            assert await frames(resumed, 3) == middle
            assert await frames(elsewhere, 3) == middle
            # A follower that lost its connection comes back on B from its next frame.
            async with ws_connect(events_url(b, game_id, start=3)) as back:
                assert await frames(back, 2) == middle[1:]
                bot.release(5)
                back_rest, back_end = await rest(back)
            whole_rest, end = await rest(whole)
            resumed_rest, resumed_end = await rest(resumed)
            elsewhere_rest, elsewhere_end = await rest(elsewhere)
        assert resumed_rest == whole_rest and resumed_end == end
        assert back_end["status"] == elsewhere_end["status"] == "complete"
        return first + middle + whole_rest, end, back_rest, elsewhere_rest

    streamed, end, back_rest, elsewhere_rest = asyncio.run(asyncio.wait_for(scenario(), 600))
    done = wait_finished(a, game_id)
    assert done["status"] == "complete" and done["turn"] == TURNS
    assert end == {"id": game_id, "status": "complete", "turn": len(streamed) - 1}
    # Every frame was sent, in order, and they are the stored replay's.
    replay = replay_frames(a, game_id)
    assert len(streamed) == TURNS + 1  # the replay has one more: the final state
    assert streamed == replay[: len(streamed)]
    # The mirror sends B's followers what it read before the game ended: the stored
    # frames go once the replay holds them, so a mirror may see the end before the
    # last frames; what it sent is the replay's, in order, and its end says complete.
    assert streamed[5 : 5 + len(elsewhere_rest)] == elsewhere_rest
    assert streamed[5 : 5 + len(back_rest)] == back_rest

    async def after() -> None:
        # Once stored, the game is its replay: its stream on another server is its end
        # (the viewer then reads the replay); a bad start and an unknown game are refused.
        async with ws_connect(events_url(b, game_id)) as stored:
            assert await rest(stored) == ([], {"id": game_id, "status": "complete", "turn": 8})
        assert await refusal(events_url(b, game_id) + "?from=x") == (
            BAD_REQUEST_CLOSE_CODE,
            "from: expected an integer from 0 to 2147483647",
        )
        assert await refusal(events_url(b, "no-such-game")) == (
            GAME_NOT_FOUND_CLOSE_CODE,
            "game not found",
        )

    asyncio.run(asyncio.wait_for(after(), 300))


def test_a_stopped_halite_games_frames_are_streamed_from_the_store(
    two_servers: tuple[str, str, Store], tmp_path: Path
) -> None:
    a, b, store = two_servers
    bot = Gated(store, tmp_path / "bot", {4})
    body = {**page_body(bot.ref, 12), "maxTurns": 50}
    game_id = httpx.post(f"{a}/api/games", json=body, timeout=PATIENCE_S).json()["id"]
    bot.reached(4)
    cancelled = httpx.post(f"{a}/api/games/{game_id}/cancel", timeout=PATIENCE_S)
    assert cancelled.status_code == 200, cancelled.text
    page = httpx.get(f"{b}/api/games/{game_id}/frames", timeout=PATIENCE_S).json()
    assert (page["status"], page["count"]) == ("cancelled", 4)

    async def scenario() -> None:
        # A stopped game keeps its frames: B streams them from the store, from any frame.
        async with ws_connect(events_url(b, game_id)) as ws:
            views, end = await rest(ws)
        assert views == page["frames"]
        assert end == {"id": game_id, "status": "cancelled", "turn": 3}
        async with ws_connect(events_url(b, game_id, start=2)) as ws:
            assert await rest(ws) == (page["frames"][2:], end)

    asyncio.run(asyncio.wait_for(scenario(), 300))
