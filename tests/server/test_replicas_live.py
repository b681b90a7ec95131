"""Two web replicas on one database: a game played by one is followed live on the other.

Two apps (``create_app`` twice, each with its own store, served over real HTTP on
loopback) share one database: a PostgreSQL schema (notifications wake the other
replica) or a SQLite file (the other replica polls).  A step-mode game on replica A
is stepped by the test, so what is checked while it runs is proven without the clock:
each frame reaches a follower on replica B before the next turn is even played.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from snakewar.games.battlesnake.routes.engine import (
    BAD_REQUEST_CLOSE_CODE,
    FOLLOWER_LIMIT_CLOSE_CODE,
)
from snakewar.server import ServerConfig, create_app
from snakewar.server.fanout import RESTART_CLOSE_CODE
from snakewar.server.mirror import GameMirrors
from snakewar.storage.events import GameEvents
from tests.asgi_server import serve
from tests.server.multi_server import CLEAN_EXITS, servers

GAME = {
    "snakes": ["random", "random", "random"],
    "seed": 5,
    "width": 11,
    "height": 11,
    "step": True,
    "timeout": 2000,
}
"""A step-mode game the test plays turn by turn (the longest move time a server allows:
no random move times out on a loaded machine, so the game is the same at any load)."""

STEPS = 4
"""Turns the tests step (the game lasts longer than that)."""

PATIENCE_S = 120.0
"""How long one message may take on a loaded machine before the test fails."""


@dataclass
class Replicas:
    """Two servers on one database: their base URLs and apps."""

    a: str
    b: str
    app_a: FastAPI
    app_b: FastAPI
    dialect: str

    def ws(self, base: str, game_id: str, start: int | None = None) -> str:
        return self.ws_url(base, game_id, start)

    @staticmethod
    def ws_url(base: str, game_id: str, start: int | None = None) -> str:
        """The events websocket of ``game_id`` on the server at ``base`` (from ``start``)."""
        query = "" if start is None else f"?from={start}"
        return base.replace("http://", "ws://") + f"/games/{game_id}/events{query}"


@pytest.fixture
def replicas(db_url: str) -> Iterator[Replicas]:
    app_a = create_app(ServerConfig(database_url=db_url))
    app_b = create_app(ServerConfig(database_url=db_url))
    with serve(app_a) as a, serve(app_b) as b:
        yield Replicas(a, b, app_a, app_b, sa.make_url(db_url).get_backend_name())


async def message(ws: ClientConnection) -> dict[str, Any]:
    raw = await asyncio.wait_for(ws.recv(), PATIENCE_S)
    assert isinstance(raw, str)
    parsed: dict[str, Any] = json.loads(raw)
    return parsed


async def frame(ws: ClientConnection, turn: int) -> dict[str, Any]:
    """The next message, which must be the frame of ``turn``."""
    got = await message(ws)
    assert got["Type"] == "frame", got
    assert got["Data"]["Turn"] == turn, (got["Data"]["Turn"], turn)
    return got


async def rest(ws: ClientConnection) -> tuple[list[int], dict[str, Any]]:
    """The turns of the frames up to ``game_end``, and ``game_end``'s data."""
    turns: list[int] = []
    while True:
        got = await message(ws)
        if got["Type"] == "game_end":
            return turns, got["Data"]
        turns.append(got["Data"]["Turn"])


@asynccontextmanager
async def client(base: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base, timeout=PATIENCE_S) as http:
        yield http


async def stored_turns(http: httpx.AsyncClient, game_id: str) -> list[int]:
    """Every stored frame's turn (from a replica's engine API), in order."""
    body = (await http.get(f"/games/{game_id}/frames", params={"limit": 1000})).json()
    return [f["Turn"] for f in body["Frames"]]


async def finished_info(http: httpx.AsyncClient, game_id: str) -> dict[str, Any]:
    """The game as the engine API shows it once finished (read from the store)."""
    for _ in range(int(PATIENCE_S / 0.05)):
        body = (await http.get(f"/api/games/{game_id}")).json()
        if body["status"] != "running":
            info: dict[str, Any] = (await http.get(f"/games/{game_id}")).json()["Game"]
            return info
        await asyncio.sleep(0.05)
    raise AssertionError(f"game {game_id} did not finish")


def test_a_game_on_replica_a_is_followed_live_on_replica_b(replicas: Replicas) -> None:
    async def scenario() -> None:
        async with client(replicas.a) as a, client(replicas.b) as b:
            game = (await a.post("/api/games", json=GAME)).json()
            gid = game["id"]
            async with (
                ws_connect(replicas.ws(replicas.b, gid)) as follower,
                ws_connect(replicas.ws(replicas.b, gid)) as other,
            ):
                await frame(follower, 0)
                await frame(other, 0)
                # One reader of the game on B, however many follow it there.
                assert len(replicas.app_b.state.manager.mirrors) == 1
                for turn in range(1, STEPS + 1):
                    assert (await a.post(f"/api/games/{gid}/step")).status_code == 200
                    # B has the turn before A plays the next: it arrived while the game ran.
                    await frame(follower, turn)
                    await frame(other, turn)
                    last = (await b.get(f"/games/{gid}")).json()
                    assert last["Game"]["Status"] == "running"
                    assert last["LastFrame"]["Turn"] == turn
                    page = (await b.get(f"/api/games/{gid}/frames", params={"offset": turn})).json()
                    assert page["status"] == "running"
                    assert [f["Turn"] for f in page["frames"]] == [turn]
                assert (await a.post(f"/api/games/{gid}/resume")).status_code == 200
                turns, end = await rest(follower)
                assert await rest(other) == (turns, end)
            everything = list(range(STEPS + 1)) + turns
            assert everything == await stored_turns(a, gid)
            assert everything == list(range(len(everything)))
            assert end == await finished_info(b, gid)
            assert end["Status"] == "complete"
        # Its reader on B is gone once the game ended.
        assert gid not in replicas.app_b.state.manager.mirrors

    asyncio.run(scenario())


def test_a_follower_resumes_on_another_replica_from_its_next_frame(replicas: Replicas) -> None:
    async def scenario() -> None:
        async with client(replicas.a) as a, client(replicas.b) as b:
            gid = (await a.post("/api/games", json=GAME)).json()["id"]
            async with ws_connect(replicas.ws(replicas.a, gid)) as first:
                await frame(first, 0)
                for turn in (1, 2):
                    await a.post(f"/api/games/{gid}/step")
                    await frame(first, turn)
            # Played while the follower was away.
            for _ in range(2):
                await a.post(f"/api/games/{gid}/step")
            async with ws_connect(replicas.ws(replicas.b, gid, start=3)) as second:
                await frame(second, 3)
                await frame(second, 4)
                await a.post(f"/api/games/{gid}/step")
                await frame(second, 5)
                await a.post(f"/api/games/{gid}/resume")
                turns, end = await rest(second)
            assert [0, 1, 2, 3, 4, 5, *turns] == await stored_turns(b, gid)
            # A finished game resumes too (from the store): the same frames from 3 on.
            async with ws_connect(replicas.ws(replicas.a, gid, start=3)) as stored:
                again, end_again = await rest(stored)
            assert again == [3, 4, 5, *turns]
            assert end_again == end
            # Past the end: no frames, only game_end; a bad start is refused, named.
            async with ws_connect(replicas.ws(replicas.b, gid, start=10**6)) as past:
                assert await rest(past) == ([], end)
            async with ws_connect(replicas.ws(replicas.b, gid) + "?from=-1") as bad:
                with pytest.raises(ConnectionClosed) as closed:
                    await message(bad)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == BAD_REQUEST_CLOSE_CODE
            assert closed.value.rcvd.reason.startswith("from: expected an integer")

    asyncio.run(scenario())


def test_followers_of_a_mirrored_game_are_told_to_reconnect_when_their_replica_stops(
    db_url: str,
) -> None:
    app_a = create_app(ServerConfig(database_url=db_url))

    async def scenario(a_url: str) -> None:
        async with client(a_url) as a:
            gid = (await a.post("/api/games", json=GAME)).json()["id"]
            app_b = create_app(ServerConfig(database_url=db_url))
            with serve(app_b) as b_url:
                follower = await ws_connect(Replicas(a_url, b_url, app_a, app_b, "").ws(b_url, gid))
                await frame(follower, 0)
            # B stopped: not game_end (the game runs on), but "reconnect elsewhere".
            with pytest.raises(ConnectionClosed) as closed:
                await message(follower)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == RESTART_CLOSE_CODE
            await a.post(f"/api/games/{gid}/cancel")

    with serve(app_a) as a_url:
        asyncio.run(scenario(a_url))


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_followers_keep_receiving_frames_when_the_listener_loses_postgresql(
    replicas: Replicas,
) -> None:
    events: GameEvents = replicas.app_b.state.events
    mirrors: GameMirrors = replicas.app_b.state.manager.mirrors
    # Only notifications (and the listener's reconnection) may bring B the frames: no
    # periodic re-read in this test.
    mirrors.recheck_s = mirrors.grace_s = 3600.0
    admin = sa.create_engine(replicas.app_b.state.store.store.db.engine.url, poolclass=sa.NullPool)

    async def scenario() -> None:
        async with client(replicas.a) as a:
            gid = (await a.post("/api/games", json=GAME)).json()["id"]
            async with ws_connect(replicas.ws(replicas.b, gid)) as follower:
                await frame(follower, 0)
                await a.post(f"/api/games/{gid}/step")
                await frame(follower, 1)
                connects = events.connects
                with admin.begin() as connection:
                    connection.execute(sa.select(sa.func.pg_terminate_backend(events.backend_pid)))
                # Played while B's listener is down or coming back: none may be lost.
                await a.post(f"/api/games/{gid}/step")
                await a.post(f"/api/games/{gid}/step")
                await frame(follower, 2)
                await frame(follower, 3)
                assert events.connects > connects
                await a.post(f"/api/games/{gid}/step")
                await frame(follower, 4)
                await a.post(f"/api/games/{gid}/cancel")
                turns, end = await rest(follower)
            assert [0, 1, 2, 3, 4, *turns] == await stored_turns(a, gid)
            assert end["Status"] == "cancelled"

    try:
        asyncio.run(scenario())
    finally:
        admin.dispose()


def test_a_follower_of_a_killed_replica_resumes_on_another(db_url: str, tmp_path: Path) -> None:
    """Real ``snakewar serve`` processes: B (which only follows the game) is killed -9."""
    with servers(db_url, tmp_path) as make:
        # One after the other: the first migrates a fresh database.
        a = make("a").start().wait_ready()
        b = make("b").start().wait_ready()
        gid = a.post("/api/games", GAME).json()["id"]

        async def scenario() -> None:
            async with ws_connect(Replicas.ws_url(b.url, gid)) as follower:
                await frame(follower, 0)
                await asyncio.to_thread(a.post, f"/api/games/{gid}/step")
                await frame(follower, 1)
                b.kill()  # a crash: no close frame, no clean-up
                with pytest.raises(ConnectionClosed):
                    await message(follower)
            await asyncio.to_thread(a.post, f"/api/games/{gid}/step")
            # The viewer's way back: the next frame it needs, from a replica that answers.
            async with ws_connect(Replicas.ws_url(a.url, gid, 2)) as follower:
                await frame(follower, 2)
                await asyncio.to_thread(a.post, f"/api/games/{gid}/resume")
                turns, end = await rest(follower)
            async with client(a.url) as http:
                assert [0, 1, 2, *turns] == await stored_turns(http, gid)
                assert end == await finished_info(http, gid)

        asyncio.run(scenario())
        assert a.stop() in CLEAN_EXITS


def test_a_mirror_is_dropped_once_unfollowed_and_their_number_is_capped(
    replicas: Replicas,
) -> None:
    mirrors: GameMirrors = replicas.app_b.state.manager.mirrors
    mirrors.grace_s = 0.2

    async def scenario() -> None:
        async with client(replicas.a) as a, client(replicas.b) as b:
            gid = (await a.post("/api/games", json=GAME)).json()["id"]
            async with ws_connect(replicas.ws(replicas.b, gid)) as follower:
                await frame(follower, 0)
                assert gid in mirrors
            # The game runs on (paused on A), but nobody follows it on B any more.
            for _ in range(int(PATIENCE_S / 0.05)):
                if gid not in mirrors:
                    break
                await asyncio.sleep(0.05)
            assert len(mirrors) == 0
            assert replicas.app_b.state.events.waiters == 0
            # Past the cap: pages are read from the store; a follower is refused (4429,
            # naming the cap), never sent a false game_end.
            mirrors.max_games = 0
            page = (await b.get(f"/api/games/{gid}/frames")).json()
            assert (page["status"], page["count"]) == ("running", 1)
            last = (await b.get(f"/games/{gid}")).json()
            assert (last["Game"]["Status"], last["LastFrame"]["Turn"]) == ("running", 0)
            assert len(mirrors) == 0
            async with ws_connect(replicas.ws(replicas.b, gid)) as capped:
                with pytest.raises(ConnectionClosed) as closed:
                    await message(capped)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == FOLLOWER_LIMIT_CLOSE_CODE
            assert "max 0" in closed.value.rcvd.reason
            # A's own game is A's: no mirror needed there.
            page = (await a.get(f"/api/games/{gid}/frames")).json()
            assert page["status"] == "running"
            assert len(replicas.app_a.state.manager.mirrors) == 0
            await a.post(f"/api/games/{gid}/cancel")

    asyncio.run(scenario())
