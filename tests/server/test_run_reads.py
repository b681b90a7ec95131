"""A ladder read as not running shows every game of its run.

A client (the ladder page, a script, ``tests/viewer/test_club_static.py``) waits for
``running`` to be false and then reads ``games_played``; if the route read the ladder
before the run, a run that ended between the two reads showed as ended with its last
games missing, and the client asked for them again (CI: 7 games played for 6 asked).
Here the run is made to end exactly between the route's two reads.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.arena.ladder import Ladder, load_ladder
from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.waiting import PATIENCE_S

GAMES = 8


def test_a_ladder_read_as_ended_has_every_game_of_its_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = create_app(ServerConfig(database_url="memory"))
    real_load = load_ladder
    armed = threading.Event()
    stale: list[int] = []

    def load_then_let_the_run_end(store: Store, name: str) -> Ladder:
        ladder = real_load(store, name)
        if armed.is_set() and not stale:
            stale.append(ladder.games_played)
            # The run ends now, between this read and any other the route makes.
            deadline = time.monotonic() + PATIENCE_S
            while app.state.runs.arena.is_running("ladder:l"):
                assert time.monotonic() < deadline, "the ladder's run did not end"
                time.sleep(0.02)
        return ladder

    # The routes' own name for it: the real load, the run ending after it.
    monkeypatch.setattr("snakewar.server.routers.ladders.load_ladder", load_then_let_the_run_end)
    with TestClient(app, base_url="http://localhost") as client:
        client.post("/api/ladders", json={"name": "l", "width": 7, "height": 7})
        for snake in ("random", "greedy"):
            assert client.post("/api/ladders/l/snakes", json={"snake": snake}).status_code == 201
        assert client.post("/api/ladders/l/run", json={"games": GAMES}).status_code == 202
        armed.set()
        seen: list[dict[str, Any]] = [client.get("/api/ladders/l").json()]
        # The read above caught the run mid-way (else this test proves nothing).
        assert stale and stale[0] < GAMES, stale
        seen.append(client.get("/api/ladders/l").json())
    for ladder in seen:
        assert ladder["running"] or ladder["games_played"] == GAMES, ladder["run"]
    assert not seen[-1]["running"] and seen[-1]["games_played"] == GAMES
