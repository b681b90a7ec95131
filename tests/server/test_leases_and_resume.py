"""Servers sharing a database, and crashes: game leases, tournaments that resume.

The lease tests are about which games a server aborts, not about speed: they wait for
what they need to see in the database (polled, with generous deadlines), and leases are
long enough that a renewal late on a busy machine still comes in time.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from fastapi.testclient import TestClient

from snakewar.arena.tournament_runner import load_tournament
from snakewar.server.app import create_app
from snakewar.server.config import ServerConfig
from snakewar.storage import Store
from snakewar.storage.models import GameModel
from tests.storage.test_games import played  # a stored game to start from
from tests.waiting import wait_finished

# Thinking 100 ms a turn alone on a big board, it plays for over a minute.
SLOW: dict[str, Any] = {
    "snakes": ["hunter?budget=100"],
    "width": 19,
    "height": 19,
    "maxTurns": 5000,
}

LEASE_S = 9.0
"""The servers' lease in the tests that keep one: renewed every 3 s, so a renewal may
come 6 s late (a busy machine, a locked SQLite file) before the lease runs out."""


def lease_of(url: str, game_id: str) -> tuple[str, dt.datetime]:
    """The server that holds the lease of ``game_id``, and until when (read as it is stored)."""
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        with engine.connect() as connection:
            row = connection.execute(
                sa.select(GameModel.server_id, GameModel.lease_until).where(GameModel.id == game_id)
            ).one()
    finally:
        engine.dispose()
    server, until = row
    assert server is not None and until is not None, row
    # SQLite keeps no time zone: the store writes UTC.
    return server, until if until.tzinfo else until.replace(tzinfo=dt.UTC)


def wait_for(what: str, ready: Callable[[], bool], seconds: float = 120) -> None:
    """Poll ``ready`` until it is true; fail naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not ready():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.1)


def test_expired_leases_are_aborted_and_live_ones_kept(tmp_path: Path) -> None:
    with Store(f"sqlite:///{tmp_path / 'g.db'}") as store:
        now = dt.datetime.now(dt.UTC)
        for number, lease in ((1, now - dt.timedelta(seconds=1)), (2, now + dt.timedelta(60))):
            game = played(number)
            store.games.begin(game.stored(), game.data, lease=("server-a", lease))
        legacy = played(3)  # started by a Snakewar without leases
        store.games.begin(legacy.stored(), legacy.data)
        assert store.games.abort_expired() == 2
        status = {n: store.games.get(played(n).id).status for n in (1, 2, 3)}  # type: ignore[union-attr]
        assert status == {1: "aborted", 2: "running", 3: "aborted"}


def test_a_second_server_leaves_the_first_servers_live_game_running(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    config = ServerConfig(database_url=url, game_lease_s=LEASE_S)
    with TestClient(create_app(config), base_url="http://localhost") as first:
        game = first.post("/api/games", json=SLOW).json()
        server, first_lease = lease_of(url, game["id"])
        # The first lease runs out, and the first server has renewed it by then: a lease
        # the server did not renew would be aborted by the sweeps below.
        wait_for(
            "the first lease to run out, renewed",
            lambda: (
                dt.datetime.now(dt.UTC) > first_lease and lease_of(url, game["id"])[1] > first_lease
            ),
        )
        with TestClient(create_app(config), base_url="http://localhost") as second:
            # The second server swept at its start: the live game is left running ...
            seen = second.get(f"/api/games/{game['id']}").json()
            assert seen["status"] == "running", seen
            assert lease_of(url, game["id"])[0] == server  # and is still the first's
            # ... and at its next sweeps too (every 3 s).
            time.sleep(LEASE_S / 3 + 1)
            seen = second.get(f"/api/games/{game['id']}").json()
            assert seen["status"] == "running", seen
        assert first.post(f"/api/games/{game['id']}/cancel").status_code == 200


def test_a_dead_servers_game_is_aborted_once_its_lease_runs_out(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    with Store(url) as store:
        game = played(7)
        # The server that began it has died; its last renewal holds for an hour yet.
        later = dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
        store.games.begin(game.stored(), game.data, lease=("a-dead-server", later))
        config = ServerConfig(database_url=url, game_lease_s=1.5)  # sweeps every 0.5 s
        with TestClient(create_app(config), base_url="http://localhost") as client:
            # Swept at the start and since: a live lease is kept, however long.
            time.sleep(1.0)
            assert client.get(f"/api/games/{game.id}").json()["status"] == "running"
            # Now the dead server's lease runs out (as if its last renewal had been the
            # one ending in a second): a sweep of the running server aborts the game.
            soon = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1)
            assert store.games.renew_leases("a-dead-server", [game.id], soon) == 1
            assert wait_finished(client, game.id)["status"] == "aborted"


CRASH = """
import os, sys
from snakewar.arena.config import MatchConfig
from snakewar.arena.tournament_runner import TournamentRun
from snakewar.storage import Store

store = Store(sys.argv[1])
run = TournamentRun.create(
    "cup", "single_elimination", [("builtin:random", f"s{i}") for i in range(8)],
    config=MatchConfig.create(None, {"width": 7, "height": 7}), seed=3, tid="cup",
)
store.tournaments.create(run)

def crash(run, played):
    if sys.argv[2] == "crash":
        os._exit(9)  # killed in the middle of the run: no clean-up at all

run.run(store, on_step=crash)
"""


def _games(url: str) -> list[str]:
    with Store(url) as store:
        run = load_tournament(store, "cup")
        assert run.is_finished
        return sorted(g.game_id for games in run.games.values() for g in games)


def test_a_tournament_killed_mid_run_resumes_and_plays_what_a_straight_run_plays(
    tmp_path: Path,
) -> None:
    straight = f"sqlite:///{tmp_path / 'straight.db'}"
    crashed = f"sqlite:///{tmp_path / 'crashed.db'}"
    for url, mode in ((straight, "straight"), (crashed, "crash")):
        done = subprocess.run(
            [sys.executable, "-c", CRASH, url, mode], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == (9 if mode == "crash" else 0), done.stderr
    with Store(crashed) as store:
        stopped = load_tournament(store, "cup")
        assert not stopped.is_finished and stopped.games  # some games, not all
    with TestClient(
        create_app(ServerConfig(database_url=crashed)), base_url="http://localhost"
    ) as client:
        deadline = time.monotonic() + 120
        while True:
            data = client.get("/api/tournaments/cup").json()
            if data["finished"] and not data["running"]:
                break
            assert time.monotonic() < deadline, data
            time.sleep(0.1)
    assert _games(crashed) == _games(straight)
