"""Bounded work: one request cannot queue days of arena games or fill the arena."""

from __future__ import annotations

import asyncio
import threading

import pytest
from fastapi.testclient import TestClient

from snakewar.server.app import create_app
from snakewar.server.arena import ArenaBusyError, ArenaFullError, ArenaWorker
from snakewar.server.config import ServerConfig


def test_a_tournament_past_the_game_cap_is_refused_naming_its_size() -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        # The probe: 64 built-ins in a round robin is 2016 matches; best of 9, 18,144 games.
        body = {
            "name": "huge",
            "format": "round_robin",
            "snakes": ["random"] * 64,
            "best_of": 9,
            "width": 7,
            "height": 7,
        }
        refused = client.post("/api/tournaments", json=body)
        assert refused.status_code == 422, refused.text
        detail = refused.json()["detail"]
        assert "18144 games" in detail and "2016 matches" in detail and "allows 2000" in detail
        assert client.get("/api/tournaments").json() == []
        small = client.post("/api/tournaments", json={**body, "snakes": ["random"] * 8})
        assert small.status_code == 201, small.text


def test_the_arena_takes_a_bounded_number_of_runs() -> None:
    release = threading.Event()

    async def main() -> None:
        arena = ArenaWorker(workers=1, max_runs=2)
        arena.submit("ladder:a", release.wait)
        arena.submit("ladder:b", release.wait)  # waits for the one thread
        with pytest.raises(ArenaBusyError):
            arena.submit("ladder:a", release.wait)
        with pytest.raises(ArenaFullError, match="the most this server takes"):
            arena.submit("ladder:c", release.wait)
        release.set()
        deadline = asyncio.get_running_loop().time() + 10
        while arena.is_running("ladder:a") or arena.is_running("ladder:b"):
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.01)
        arena.submit("ladder:c", lambda: None)  # room again
        arena.close()

    asyncio.run(main())


def test_a_reserved_run_holds_its_place_until_submitted_or_dropped() -> None:
    async def main() -> None:
        arena = ArenaWorker(workers=1, max_runs=1)
        with arena.reserve("tournament:a"):
            # Held while a request stores the tournament: the arena is full meanwhile.
            with pytest.raises(ArenaBusyError), arena.reserve("tournament:a"):
                pass
            with pytest.raises(ArenaFullError):
                arena.submit("ladder:b", lambda: None)
        # Dropped (the request failed): room again.
        go = threading.Event()
        with arena.reserve("tournament:a") as slot:
            progress = arena.submit("tournament:a", go.wait, slot=slot)
        # Submitted, the slot is the run's: still one place taken, by the run.
        assert arena.is_running("tournament:a") and not arena.has_room()
        go.set()
        assert await arena.drain(60)
        assert not progress.running and progress.state == "done"
        assert arena.has_room()
        arena.close()

    asyncio.run(main())


def test_ladders_and_tournaments_meet_the_same_caps_as_games() -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        big = client.post("/api/ladders", json={"name": "big", "width": 30, "height": 30})
        assert big.status_code == 422 and "larger than this server's 25" in big.text
        slow = client.post("/api/ladders", json={"name": "slow", "timeout": 60_000})
        assert slow.status_code == 422 and "timeout" in slow.text
        cup = client.post(
            "/api/tournaments", json={"name": "c", "snakes": ["random"] * 4, "width": 30}
        )
        assert cup.status_code == 422 and "larger than this server's 25" in cup.text
        assert client.get("/api/ladders").json() == []


def test_a_public_tester_tests_snakes_not_built_ins() -> None:
    from tests.server.accounts import public_client

    with public_client(as_user="ann", admin=False) as client:
        refused = client.post("/api/test", json={"url": "builtin:hunter?depth=16"})
        assert refused.status_code == 403 and "give its URL" in refused.json()["detail"]
