"""The ``human`` entrant on a server: its moves come from ``POST /api/games/{id}/human``.

A local server seats a person (the game page's keys post the moves); a public one lets
only admins do it.  Each move has the person's deadline, so an absent person never holds
a game for ever.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.games.battlesnake.replay.format import read_replay
from snakewar.server.app import create_app
from snakewar.server.config import ServerConfig
from tests.server.accounts import public_client
from tests.waiting import wait_finished

BOARD = {"seed": "5", "width": 11, "height": 11, "maxTurns": 3}


def wait_for_turn(client: TestClient, game_id: str, turn: int) -> dict[str, Any]:
    """The seat once the referee waits for the person's move on ``turn``."""
    deadline = time.monotonic() + 120
    while True:
        seat: dict[str, Any] = client.get(f"/api/games/{game_id}/human").json()
        if seat["waiting"] and seat["turn"] == turn:
            return seat
        assert time.monotonic() < deadline, seat
        time.sleep(0.05)


def test_a_person_moves_their_snake_through_the_api() -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        body = {**BOARD, "snakes": ["human?timeout=60000", "random"]}
        created = client.post("/api/games", json=body)
        assert created.status_code == 201, created.text
        game = created.json()
        url = f"/api/games/{game['id']}/human"
        moves = ["up", "up", "right"]
        for turn, move in enumerate(moves):
            seat = wait_for_turn(client, game["id"], turn)
            assert seat == {
                "playing": True,
                "waiting": True,
                "turn": turn,
                "timeout_ms": 60000,
                "queued": 0,
            }
            answer = client.post(url, json={"move": move})
            assert answer.status_code == 200, answer.text
        finished = wait_finished(client, game["id"])
        assert finished["status"] == "complete"
        record = read_replay(client.get(f"/api/games/{game['id']}/replay").text.splitlines())
        you = record.snakes[0]
        assert you.source == "human" and you.name == "you"
        assert [t.calls[you.id].move for t in record.turns] == moves
        # The game over, nobody plays it: the page's question is answered, a move refused.
        assert client.get(url).json()["playing"] is False
        gone = client.post(url, json={"move": "up"})
        assert gone.status_code == 404 and "no running game" in gone.json()["detail"]


@pytest.mark.parametrize(
    ("ruleset", "others"), [("solo", []), ("wrapped", ["greedy"]), ("constrictor", ["random"])]
)
def test_a_person_plays_in_any_ruleset(ruleset: str, others: list[str]) -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        body = {**BOARD, "maxTurns": 2, "ruleset": ruleset}
        body["snakes"] = ["human?timeout=60000", *others]
        created = client.post("/api/games", json=body)
        assert created.status_code == 201, created.text
        game = created.json()
        for turn, move in enumerate(["right", "up"]):
            wait_for_turn(client, game["id"], turn)
            client.post(f"/api/games/{game['id']}/human", json={"move": move})
        assert wait_finished(client, game["id"])["status"] == "complete"
        record = read_replay(client.get(f"/api/games/{game['id']}/replay").text.splitlines())
        assert record.config.ruleset == ruleset and len(record.snakes) == 1 + len(others)
        you = record.snakes[0].id
        assert [t.calls[you].move for t in record.turns] == ["right", "up"]


def test_bad_moves_and_games_without_a_person_are_refused() -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        body = {**BOARD, "snakes": ["human?timeout=60000", "random"]}
        game = client.post("/api/games", json=body).json()
        url = f"/api/games/{game['id']}/human"
        for bad in ({"move": "jump"}, {"move": "up", "extra": 1}, {}, {"move": 3}):
            answer = client.post(url, json=bad)
            assert answer.status_code == 422, (bad, answer.text)
        bots = client.post("/api/games", json={**BOARD, "snakes": ["random", "random"]}).json()
        answer = client.post(f"/api/games/{bots['id']}/human", json={"move": "up"})
        assert answer.status_code == 404
        for spec, field in (("human?timeout=0", "timeout"), ("human?speed=1", "human?speed")):
            refused = client.post("/api/games", json={**BOARD, "snakes": [spec, "random"]})
            # Refused as any unusable entrant is, naming it.
            assert refused.status_code == 400 and field in refused.text, refused.text
        two = client.post("/api/games", json={**BOARD, "snakes": ["human", "human"]})
        assert two.status_code == 400 and "one keyboard" in two.text, two.text
        client.post(f"/api/games/{game['id']}/cancel")


def test_an_absent_person_replays_the_last_move_when_the_deadline_passes() -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        body = {**BOARD, "maxTurns": 2, "snakes": ["human?timeout=200", "random"]}
        game = client.post("/api/games", json=body).json()
        finished = wait_finished(client, game["id"])
        assert finished["status"] == "complete"
        record = read_replay(client.get(f"/api/games/{game['id']}/replay").text.splitlines())
        calls = [t.calls[record.snakes[0].id] for t in record.turns]
        assert [c.status for c in calls] == ["timeout", "timeout"]
        assert [c.move for c in calls] == ["up", "up"]


def test_a_public_server_seats_no_person_for_a_user() -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        assert 'data-testid="human-entrant"' in client.get("/new").text
    with public_client(as_user="ann", admin=False) as client:
        page = client.get("/new")
        assert page.status_code == 200 and "Start the game" in page.text
        assert 'data-testid="human-entrant"' not in page.text
        refused = client.post("/api/games", json={**BOARD, "snakes": ["human", "random"]})
        assert refused.status_code == 403, refused.text
        assert "snakes[0]" in refused.json()["detail"]
        # The same user may play built-ins: the refusal is the person's seat.
        played = client.post("/api/games", json={**BOARD, "snakes": ["random", "random"]})
        assert played.status_code == 201, played.text


def test_a_server_playing_on_ray_seats_no_person() -> None:
    """The person's moves reach this process only: a game on a Ray node would never get them."""
    import asyncio

    from snakewar.engine.protocol import Entrant
    from snakewar.errors import EntrantError
    from snakewar.games.battlesnake.adapter import BattlesnakeAdapter
    from snakewar.server.matches import check_entrants

    adapter = BattlesnakeAdapter()
    person, bot = Entrant("human", "you"), Entrant("builtin:greedy", "greedy")
    assert adapter.reach(person).kind == "person"
    local = ServerConfig(database_url="memory")
    asyncio.run(check_entrants(adapter, [person, bot], local))
    on_ray = ServerConfig(database_url="memory", ray_address="127.0.0.1:6379")
    with pytest.raises(EntrantError, match="Ray cluster"):
        asyncio.run(check_entrants(adapter, [person, bot], on_ray))
    asyncio.run(check_entrants(adapter, [bot], on_ray))
