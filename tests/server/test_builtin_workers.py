"""The server plays built-in bots in worker processes: its own work never waits for them.

Built-in bots with their largest options, many games at once: every game finishes,
and meanwhile the store keeps taking frames and the API keeps answering at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import time
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from websockets.sync.client import connect

from snakewar.adapters import get_game
from snakewar.engine.protocol import Entrant, MatchSpec
from snakewar.errors import BusyError
from snakewar.games.battlesnake.bots.hunter import (
    MAX_BUDGET_MS,
    MAX_DEPTH,
    MAX_OPPONENTS,
    HunterBot,
)
from snakewar.referee.workers import session_pool
from snakewar.server import ServerConfig, create_app
from tests.asgi_server import serve
from tests.referee.test_workers import worker_children

HUNTER = f"builtin:hunter?depth={MAX_DEPTH}&budget={MAX_BUDGET_MS}&opponents={MAX_OPPONENTS}"


def test_many_games_of_the_hardest_hunters_leave_the_server_responsive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Any hunter move made in this process (the server's) is counted: there must be none.
    moves_here = 0
    hunter_move = HunterBot.move

    def counted(bot: HunterBot, request: Any) -> Any:
        nonlocal moves_here
        moves_here += 1
        return hunter_move(bot, request)

    monkeypatch.setattr(HunterBot, "move", counted)
    app = create_app(ServerConfig(database_url="memory"))
    games = 8
    slowest = 0.0

    def timed(method: str, path: str, **kwargs: Any) -> Any:
        nonlocal slowest
        began = time.perf_counter()
        response = client.request(method, path, **kwargs)
        slowest = max(slowest, time.perf_counter() - began)
        return response

    before = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    with TestClient(app, base_url="http://localhost") as client:
        ids = []
        for seed in range(1, games + 1):
            body = {"snakes": [HUNTER, HUNTER], "timeout": 100, "maxTurns": 20, "seed": seed}
            created = client.post("/api/games", json=body)
            assert created.status_code == 201, created.text
            ids.append(created.json()["id"])
        # The hunters play in worker processes (two per game), not in the server's threads.
        workers = len(worker_children())
        assert workers >= 2
        # While the hunters think, a cancel and the listings answer at once.
        cancelled = timed("POST", f"/api/games/{ids[-1]}/cancel")
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        deadline = time.monotonic() + 120
        while True:
            listing = timed("GET", "/api/games")
            assert listing.status_code == 200
            if not listing.json()["live"]:
                break
            assert time.monotonic() < deadline, listing.json()["live"]
            time.sleep(0.05)
        final = [timed("GET", f"/api/games/{game_id}").json() for game_id in ids]
        assert final[-1]["status"] == "cancelled"
        assert [g["status"] for g in final[:-1]] == ["complete"] * (games - 1)
        # Every turn was stored as it was played: the engine API has all the frames.
        for game in final[:-1]:
            frames = timed("GET", f"/games/{game['id']}/frames", params={"limit": 100}).json()
            assert len(frames["Frames"]) == game["turn"] + 1 > 1
    after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    server_cpu, thinking_cpu = (
        (a.ru_utime + a.ru_stime) - (b.ru_utime + b.ru_stime)
        for a, b in zip(after, before, strict=True)
    )
    print(f"slowest API answer while {games} games of {HUNTER} ran: {slowest * 1000:.0f} ms")
    print(f"bot workers running after the games were created: {workers}")
    print(f"CPU: the server's process {server_cpu:.1f} s, its bot workers {thinking_cpu:.1f} s")
    # The cause of a responsive server, checked without any clock: every hunter move of the
    # finished games was searched in a worker process, none on the server's threads. (The
    # CPU figures above are for reading only: the searches are bounded by the game's
    # timeout in wall-clock time, so a loaded machine gives them less CPU, while the
    # server's share grows with how long the games take.)
    assert moves_here == 0
    assert thinking_cpu > 0
    # The server's shutdown closed its bot pool: no worker is left.
    assert worker_children() == []


def test_a_server_stopping_under_a_follower_of_a_paused_game_reaps_its_workers() -> None:
    # A spectator's websocket waits for a frame a paused game never sends: the stopping
    # server must not wait for it forever, and its bot workers must go with it.
    with contextlib.ExitStack() as open_until_the_end:
        with serve(create_app(ServerConfig(database_url="memory"))) as base:
            created = httpx.post(
                f"{base}/api/games",
                json={"snakes": [HUNTER, HUNTER], "seed": 3, "step": True},
                timeout=60,
            )
            assert created.status_code == 201, created.text
            url = f"ws{base.removeprefix('http')}/games/{created.json()['id']}/events"
            follower = open_until_the_end.enter_context(connect(url))
            assert '"frame"' in str(follower.recv(timeout=60))
            assert len(worker_children()) >= 2
        # serve() fails if the server did not stop; the game's workers were reaped.
        assert worker_children() == []


def test_a_closed_server_starts_no_game_and_makes_no_bot_pool() -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost"):
        manager = app.state.manager
        session = manager._session
    assert session is not None and session.closed
    with pytest.raises(BusyError, match="the play session is closed"):
        session_pool(session)
    adapter = get_game("battlesnake")
    spec = MatchSpec(
        "battlesnake",
        (Entrant("builtin:random", "a"), Entrant("builtin:random", "b")),
        adapter.parse_params({}),
    )
    with pytest.raises(BusyError, match="the server is stopping"):
        asyncio.run(manager.create(spec, capped=False))
    assert worker_children() == []
