"""The unofficial timing rules through the server: create-game fields, frames, calls.

``timeBank`` and ``retryTimeout`` are Battlesnake parameters: checked (a bank of at most
10 move timeouts) with a 422 naming the field, recorded in the game's header, in each
frame (``CallStatus``, ``TimeBank``, ``Retried``) and in the request inspector's calls
(the deadline each call had, both tries of a retried call).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.games.battlesnake.records import TimingRules
from snakewar.games.battlesnake.replay.format import load_replay
from snakewar.games.battlesnake.replay.verify import verify_replay
from snakewar.server import ServerConfig, create_app
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.accounts import BASE_URL, public_client


@pytest.fixture(scope="module")
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


@pytest.mark.parametrize(
    ("params", "timeout", "words"),
    [
        ({"timeBank": 2001}, 200, "timeBank: 2001 ms is more than 10 timeouts of 200 ms"),
        ({"timeBank": 5001}, None, "timeBank: 5001 ms is more than 10 timeouts of 500 ms"),
        ({"timeBank": -1}, 200, "timeBank"),
        ({"timeBank": 60_001}, 2000, "timeBank"),
        ({"timeBank": "lots"}, 200, "timeBank"),
        ({"retryTimeout": "maybe"}, 200, "retryTimeout"),
    ],
)
def test_bad_timing_fields_are_a_422_naming_the_field(
    params: dict[str, object], timeout: int | None, words: str
) -> None:
    body: dict[str, Any] = {"snakes": ["builtin:random"] * 2, "params": params}
    if timeout is not None:
        body["timeout"] = timeout
    with public_client() as client:
        answer = client.post("/api/games", json=body)
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert isinstance(detail, list)
    assert any(words in item["msg"] and item["loc"][-1] == words.split(":")[0] for item in detail)


def wait_over(client: TestClient, game_id: str) -> None:
    deadline = time.monotonic() + 120
    while client.get(f"/api/games/{game_id}").json()["status"] == "running":
        assert time.monotonic() < deadline, f"game {game_id} never ended"
        time.sleep(0.05)


def test_a_banked_retried_game_records_its_timing_everywhere(servers: SnakeServers) -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url=BASE_URL, raise_server_exceptions=False) as client:
        body = {
            "snakes": [servers.url("sluggish"), servers.url("slowfirst")],
            # The sluggish snake (600 ms) is always past it; a retry, answered at once,
            # has all of it.
            "timeout": 500,
            "maxTurns": 2,
            "seed": 4,
            "params": {"timeBank": 2000, "retryTimeout": True},
        }
        created = client.post("/api/games", json=body)
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        wait_over(client, game_id)

        page = client.get(f"/api/games/{game_id}/frames").json()
        assert page["header"]["timing"] == {"timeBank": 2000, "retryTimeout": True}
        assert page["header"]["timeout"] == 500
        sluggish, slowfirst = (s["id"] for s in page["header"]["snakes"])
        first = {s["ID"]: s for s in page["frames"][1]["Snakes"]}
        # The sluggish snake's late move was kept, drawn from its bank.
        assert first[sluggish]["CallStatus"] == "ok"
        assert 0 < first[sluggish]["TimeBank"] < 2000 and not first[sluggish]["Retried"]
        # The other's first try outlasted even its bank; the retry was answered.
        assert first[slowfirst]["CallStatus"] == "ok"
        assert first[slowfirst]["TimeBank"] == 0 and first[slowfirst]["Retried"]
        assert page["frames"][0]["Snakes"][0]["CallStatus"] == ""

        calls = client.get(f"/api/games/{game_id}/calls", params={"turn": 0}).json()["calls"]
        moves = {c["snake"]: c for c in calls if c["kind"] == "move"}
        assert moves[sluggish]["deadline_ms"] == 2500 and moves[sluggish]["timeout_ms"] == 500
        assert moves[sluggish]["first_try"] is None
        retried = moves[slowfirst]
        assert retried["first_try"] == {
            "status": "timeout",
            "latency_ms": 2500,
            "deadline_ms": 2500,
            "error": "no complete reply within 2500 ms",
        }
        # The second try had the plain timeout: the timed-out first emptied the bank.
        assert retried["status"] == "ok" and retried["deadline_ms"] == 500
        assert retried["bank_ms"] == 0
        # Snakes were told the per-move timeout, never the bank.
        told = {b["game"]["timeout"] for b in servers.bodies("sluggish", "move")}
        assert told == {500}

        # The replay the page offers has it all, and verifies.
        replay = client.get(f"/api/games/{game_id}/replay")
        assert replay.status_code == 200, replay.text
        loaded = load_replay(replay.text.splitlines(), name="game")
        assert loaded.record.timing == TimingRules(2000, True)
        first_turn = loaded.record.turns[0].calls
        first_try = first_turn[slowfirst].first_try
        assert first_try is not None and first_try.latency_ms == 2500
        assert first_turn[sluggish].bank_ms == first[sluggish]["TimeBank"]
        assert verify_replay(loaded).ok


def test_a_ladders_timeout_edit_checks_its_bank_as_making_it_does() -> None:
    with public_client() as admin:
        made = admin.post(
            "/api/ladders",
            json={"name": "lad", "width": 7, "height": 7, "timeout": 2000,
                  "params": {"timeBank": 20_000, "retryTimeout": True}},
        )  # fmt: skip
        assert made.status_code == 201, made.text
        before = admin.get("/api/ladders/lad").json()["config"]
        # Made so, it would be refused: the same 422, naming timeBank.
        fresh = admin.post(
            "/api/ladders",
            json={"name": "lad2", "width": 7, "height": 7, "timeout": 1000,
                  "params": {"timeBank": 20_000}},
        )  # fmt: skip
        assert fresh.status_code == 422, fresh.text
        assert fresh.json()["detail"][0]["loc"][-1] == "timeBank"
        for timeout, words in (
            (1000, "timeBank: 20000 ms is more than 10 timeouts of 1000 ms (at most 10000 ms)"),
            # null: the game's own timeout (500 ms), which holds a bank of 5000 ms at most.
            (None, "timeBank: 20000 ms is more than 10 timeouts of 500 ms (at most 5000 ms)"),
        ):
            refused = admin.patch("/api/ladders/lad", json={"timeout": timeout})
            assert refused.status_code == 422, refused.text
            (item,) = refused.json()["detail"]
            assert item["loc"][-1] == "timeBank" and item["msg"] == words
            assert admin.get("/api/ladders/lad").json()["config"] == before
        # The bank lowered with the timeout in one edit is taken; so is a timeout that
        # still holds the bank.
        both = admin.patch(
            "/api/ladders/lad", json={"timeout": 1000, "params": {"timeBank": 10_000}}
        )
        assert both.status_code == 200, both.text
        assert both.json()["config"]["timeout_ms"] == 1000
        assert both.json()["config"]["params"]["timeBank"] == 10_000
        assert admin.patch("/api/ladders/lad", json={"timeout": 1500}).status_code == 200
        lower = admin.patch("/api/ladders/lad", json={"timeout": 999})
        assert lower.status_code == 422 and lower.json()["detail"][0]["loc"][-1] == "timeBank"
        assert admin.get("/api/ladders/lad").json()["config"]["timeout_ms"] == 1500
