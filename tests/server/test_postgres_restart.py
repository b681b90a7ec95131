"""PostgreSQL restarted under two ``snakewar serve`` replicas: nothing lost, all reconnect.

The test runs a PostgreSQL server of its own (:func:`tests.system_tools.private_postgres`:
stopping the shared scratch server would break the other tests) under two real replicas,
A and B.  Finished games are stored; a step-mode game plays on A, followed live from B.
Then PostgreSQL stops, and while it is down A is asked to play one more turn of the
game: its write waits for the database (A logs that it tries again).  Once PostgreSQL
is back:

* ``/ready`` said 503 on both replicas while it was down, and says 200 again;
* the turn played meanwhile is stored (the game's write waited for the database) and
  reaches B's follower, which never had to reconnect; the game ends complete, every
  frame stored, in order;
* every finished game is still there, frame for frame;
* both replicas listen for the games' notifications again, and a new game plays;
* the continuous ladders' scheduler lease is held again.

A second test plays a game on a Ray worker (``ray.cluster_utils.Cluster``, one node):
its actor writes the game itself, and its writes wait for PostgreSQL the same way.

Every wait is a poll with a generous deadline: nothing depends on the machine's speed
(PostgreSQL stays down for two game leases on purpose: longer only makes it harder).
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect

from snakewar.server.scheduler import LEASE_NAME
from tests.server.multi_server import CLEAN_EXITS, Server, servers
from tests.system_tools import RAY_HEAD_SETTINGS, PrivatePostgres, private_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

GAME: dict[str, Any] = {
    "snakes": ["random", "random", "random"],
    "seed": 5,
    "width": 11,
    "height": 11,
    "timeout": 2000,
}
"""A game of built-in bots (the longest move time a server allows: none times out on a
loaded machine)."""

LIVE = {**GAME, "seed": 7, "step": True}
"""The live game: step mode, so the test plays it turn by turn."""

OUTAGE_S = 2 * Server.lease_s
"""How long PostgreSQL stays down once the game waits for it: two of the servers' game
leases (``--game-lease``)."""

PATIENCE_S = 120.0
"""How long one thing may take on a loaded machine before the test fails."""


WAITS = "cannot reach the database"
"""What a server logs when a game's write misses the database (it tries again)."""

AGAIN = "reached the database again"
"""What it logs when the write is done after all."""


def read_from(path: Path, offset: int) -> str:
    with path.open("rb") as log:
        log.seek(offset)
        return log.read().decode(errors="replace")


def poll(what: str, check: Callable[[], bool], timeout: float = PATIENCE_S) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)


async def apoll(what: str, check: Callable[[], bool], timeout: float = PATIENCE_S) -> None:
    """:func:`poll` for a coroutine: ``check`` runs on a thread."""
    deadline = time.monotonic() + timeout
    while not await asyncio.to_thread(check):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        await asyncio.sleep(0.1)


def ready_is(server: Server, status: int) -> bool:
    """Whether ``server``'s ``/ready`` answers ``status``."""
    try:
        return server.get("/ready").status_code == status
    except httpx.HTTPError:
        return False


def logged(server: Server, offset: int, text: str) -> bool:
    """Whether ``server`` logged ``text`` after the first ``offset`` bytes of its log."""
    return text in read_from(server.log, offset)


def finished(server: Server, gid: str) -> bool:
    return str(server.get(f"/api/games/{gid}").json()["status"]) != "running"


def stored(server: Server, gid: str) -> tuple[dict[str, Any], list[Any]]:
    """A game as a replica serves it: its listing and every stored frame."""
    listing = server.get(f"/api/games/{gid}").json()
    frames = server.get(f"/games/{gid}/frames?limit=1000").json()["Frames"]
    return listing, frames


def sql(url: str, query: str, **params: Any) -> Any:
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        with engine.connect() as connection:
            return connection.execute(sa.text(query), params).all()
    finally:
        engine.dispose()


def listeners(url: str) -> int:
    """How many connections LISTEN for the games' notifications (one per replica)."""
    rows = sql(
        url,
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'snakewar-events'",
    )
    return int(rows[0][0])


def scheduler_held(url: str) -> bool:
    rows = sql(
        url,
        "SELECT holder FROM leases WHERE name = :name AND holder IS NOT NULL AND until > now()",
        name=LEASE_NAME,
    )
    return bool(rows)


async def message(ws: ClientConnection) -> dict[str, Any]:
    raw = await asyncio.wait_for(ws.recv(), PATIENCE_S)
    assert isinstance(raw, str)
    parsed: dict[str, Any] = json.loads(raw)
    return parsed


async def frame(ws: ClientConnection, turn: int) -> None:
    got = await message(ws)
    assert got["Type"] == "frame", got
    assert got["Data"]["Turn"] == turn, (got["Data"]["Turn"], turn)


async def rest(ws: ClientConnection) -> tuple[list[int], dict[str, Any]]:
    """The turns of the frames up to ``game_end``, and ``game_end``'s data."""
    turns: list[int] = []
    while True:
        got = await message(ws)
        if got["Type"] == "game_end":
            return turns, got["Data"]
        assert got["Type"] == "frame", got
        turns.append(got["Data"]["Turn"])


def events(server: Server, gid: str) -> str:
    return server.url.replace("http://", "ws://") + f"/games/{gid}/events"


def test_postgresql_restarted_under_two_replicas_loses_nothing(tmp_path: Path) -> None:
    with private_postgres() as pg, servers(pg.url, tmp_path) as make:
        # One after the other: the first migrates the fresh database.
        a = make("a").start().wait_ready()
        b = make("b").start().wait_ready()
        made = [a.post("/api/games", GAME).json()["id"], b.post("/api/games", GAME).json()["id"]]
        for gid in made:
            poll(f"game {gid} to finish", functools.partial(finished, a, gid))
        # As each replica serves them (the one that played a game answers from memory).
        before = {(s.name, gid): stored(s, gid) for s in (a, b) for gid in made}
        assert all(listing["status"] == "complete" for listing, _ in before.values())
        poll("the scheduler's lease", lambda: scheduler_held(pg.url))

        live = a.post("/api/games", LIVE)
        assert live.status_code == 201, live.text
        gid = live.json()["id"]
        asyncio.run(_restart_mid_game(pg, a, b, gid))

        # Every finished game is there, frame for frame, on both replicas.
        for (name, game_id), (listing, frames) in before.items():
            assert stored(a if name == "a" else b, game_id) == (listing, frames), (name, game_id)
        # Both replicas listen again; the scheduler's lease is held again.
        poll("both replicas to listen again", lambda: listeners(pg.url) == 2)
        poll("the scheduler's lease to be held again", lambda: scheduler_held(pg.url))
        # New games play, on both replicas, and both serve pages again.
        for server in (a, b):
            new = server.post("/api/games", GAME)
            assert new.status_code == 201, new.text
            new_id = str(new.json()["id"])
            poll("a new game to finish", functools.partial(finished, server, new_id))
            assert server.get(f"/api/games/{new_id}").json()["status"] == "complete"
            for page in ("/", f"/view/{gid}", f"/view/{made[0]}"):
                assert server.get(page).status_code == 200, page
        for server in (a, b):
            assert server.stop() in CLEAN_EXITS


async def _restart_mid_game(pg: PrivatePostgres, a: Server, b: Server, gid: str) -> None:
    async with (
        httpx.AsyncClient(base_url=a.url, timeout=PATIENCE_S) as http_a,
        ws_connect(events(b, gid)) as on_b,
        ws_connect(events(a, gid)) as on_a,
    ):
        await frame(on_b, 0)
        await frame(on_a, 0)
        for turn in (1, 2):
            assert (await http_a.post(f"/api/games/{gid}/step")).status_code == 200
            await frame(on_b, turn)
            await frame(on_a, turn)

        await asyncio.to_thread(pg.stop)
        for server in (a, b):
            await apoll(
                f"{server.name}'s /ready to say 503", functools.partial(ready_is, server, 503)
            )
        # A turn played while the database is down: its write waits (A says so).
        seen = a.log.stat().st_size
        step = asyncio.create_task(http_a.post(f"/api/games/{gid}/step"))
        await apoll("A's game to wait for the database", functools.partial(logged, a, seen, WAITS))
        # Down for longer than a game's lease: every lease runs out meanwhile, and no
        # server may take that for its game's server having died.
        await asyncio.sleep(OUTAGE_S)
        await asyncio.to_thread(pg.start)

        for server in (a, b):
            await apoll(
                f"{server.name}'s /ready to say 200", functools.partial(ready_is, server, 200)
            )
        assert (await step).status_code == 200
        # Both followers get the turn once it is stored, on the same connections.
        await frame(on_a, 3)
        await frame(on_b, 3)
        assert AGAIN in read_from(a.log, seen)
        assert (await http_a.post(f"/api/games/{gid}/resume")).status_code == 200
        turns, end = await rest(on_b)
        assert await rest(on_a) == (turns, end)
    assert end["Status"] == "complete", end
    listing, frames = await asyncio.to_thread(stored, b, gid)
    assert listing["status"] == "complete"
    assert [f["Turn"] for f in frames] == [0, 1, 2, 3, *turns]
    assert [f["Turn"] for f in frames] == list(range(len(frames)))


RAY_GAME: dict[str, Any] = {
    "snakes": ["hunter?budget=100"],
    "width": 19,
    "height": 19,
    "max_turns": 5000,
    "step": True,
}
"""A game that lasts minutes once resumed (its bot thinks 100 ms a turn): it is surely
still running when PostgreSQL stops, and after it is back."""

RAY_LEASE_S = 3.0
"""The replica's game lease (its actors renew theirs every third of it)."""


def turns_stored(url: str, gid: str) -> list[int]:
    rows = sql(url, "SELECT turn FROM frames WHERE game_id = :g ORDER BY turn", g=gid)
    return [int(row[0]) for row in rows]


def status_of(url: str, gid: str) -> str:
    return str(sql(url, "SELECT status FROM games WHERE id = :g", g=gid)[0][0])


@pytest.mark.ray
def test_a_game_on_a_ray_worker_waits_for_postgresql_and_plays_on() -> None:
    """The actor writes the game itself: its writes wait while PostgreSQL restarts."""
    ray = pytest.importorskip("ray")
    from fastapi.testclient import TestClient
    from ray.cluster_utils import Cluster

    from snakewar.server import ServerConfig, create_app

    with private_postgres() as pg:
        nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 2, **RAY_HEAD_SETTINGS})
        try:
            ray.init(address=nodes.address, log_to_driver=False)
            config = ServerConfig(
                database_url=pg.url, ray_address=nodes.address, game_lease_s=RAY_LEASE_S
            )
            with TestClient(create_app(config), base_url="http://localhost") as a:
                made = a.post("/api/games", json=RAY_GAME)
                assert made.status_code == 201, made.text
                gid = made.json()["id"]
                assert a.post(f"/api/games/{gid}/resume").status_code == 200
                poll("turn 3", lambda: len(turns_stored(pg.url, gid)) > 3)
                pg.stop()
                # Down for two leases: the actor's lease runs out meanwhile.
                time.sleep(2 * RAY_LEASE_S)
                pg.start()
                at_restart = len(turns_stored(pg.url, gid))
                poll(
                    "turns after the restart",
                    lambda: len(turns_stored(pg.url, gid)) > at_restart + 3,
                )
                assert status_of(pg.url, gid) == "running"
                paused = a.post(f"/api/games/{gid}/pause")
                assert paused.status_code == 200, paused.text
                held = turns_stored(pg.url, gid)
                assert held == list(range(len(held)))  # every turn, in order: none lost
                cancelled = a.post(f"/api/games/{gid}/cancel")
                assert cancelled.status_code == 200, cancelled.text
                assert status_of(pg.url, gid) == "cancelled"
                assert turns_stored(pg.url, gid) == held
        finally:
            ray.shutdown()
            nodes.shutdown()  # type: ignore[no-untyped-call]
