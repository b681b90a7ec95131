"""A server's caps are caps, never defaults, and each game's come from its own catalogue.

Turns: a game keeps its own end.
A Halite III game lasts its official, size-dependent number of turns (400 on 32x32 to
500 on 64x64), which its replay records as ``MAX_TURNS``; a Battlesnake game has no end
of its own, so the server's cap applies when nothing is asked.  Regression: a Halite
ladder or tournament made through the API used to play up to the server's 5000 turns.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard
from fastapi.testclient import TestClient

from snakewar.adapters import get_game
from snakewar.games.halite3 import HaliteGame
from snakewar.server import ServerConfig, create_app
from snakewar.server.matches import turn_limit
from tests.waiting import wait_finished


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    config = ServerConfig(database_url=f"sqlite:///{tmp_path / 'games.db'}")
    with TestClient(create_app(config), base_url="http://localhost") as test_client:
        yield test_client


def hlt_document(client: TestClient, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}/replay")
    assert response.status_code == 200, response.text
    raw = zstandard.ZstdDecompressor().decompress(response.content, max_output_size=1 << 28)
    document: dict[str, Any] = json.loads(raw)
    return document


def official_turns(seed: int, players: int) -> int:
    """The turn count the official engine gives a game of ``seed`` on its own map size."""
    return HaliteGame.create(seed, players).max_turns


def wait_ladder(client: TestClient, name: str, games: int) -> dict[str, Any]:
    # Generous: a ladder game is a whole Halite game, and the machine may be busy.
    deadline = time.monotonic() + 600
    while True:
        data: dict[str, Any] = client.get(f"/api/ladders/{name}").json()
        if not data["running"] and data["games_played"] >= games:
            return data
        assert time.monotonic() < deadline, data
        time.sleep(0.2)


def test_a_halite_ladder_made_through_the_api_plays_the_official_turn_limit(
    client: TestClient,
) -> None:
    created = client.post("/api/ladders", json={"name": "h3", "game": "halite3"})
    assert created.status_code == 201, created.text
    assert created.json()["config"]["max_turns"] is None
    for bot in ("builtin:greedy", "builtin:random"):
        assert client.post("/api/ladders/h3/snakes", json={"snake": bot}).status_code == 201
    assert client.post("/api/ladders/h3/run", json={"games": 1}).status_code == 202
    game = wait_ladder(client, "h3", 1)["recent_games"][0]
    document = hlt_document(client, game["game_id"])
    expected = official_turns(int(game["seed"]), 2)
    assert expected <= 500
    assert document["GAME_CONSTANTS"]["MAX_TURNS"] == expected
    assert len(document["full_frames"]) <= expected + 1
    assert game["turns"] <= expected


def test_asked_limits_are_kept_within_the_cap(client: TestClient) -> None:
    cap = ServerConfig().max_turns
    asked = client.post(
        "/api/ladders", json={"name": "short", "game": "halite3", "max_turns": 30}
    ).json()
    assert asked["config"]["max_turns"] == 30
    over = client.post(
        "/api/ladders", json={"name": "long", "game": "halite3", "max_turns": cap * 2}
    ).json()
    assert over["config"]["max_turns"] == cap
    # Battlesnake has no end of its own: the cap applies when nothing is asked.
    snakes = client.post("/api/ladders", json={"name": "bs"}).json()
    assert snakes["config"]["max_turns"] == cap


def test_a_halite_tournament_made_through_the_api_keeps_the_official_limit(
    client: TestClient,
) -> None:
    created = client.post(
        "/api/tournaments",
        json={
            "name": "cup",
            "game": "halite3",
            "format": "round_robin",
            "snakes": ["builtin:greedy", "builtin:random"],
            "max_turns": None,
        },
    )
    assert created.status_code == 201, created.text
    assert created.json()["config"]["max_turns"] is None
    client.delete(f"/api/tournaments/{created.json()['id']}")


def test_a_halite_web_game_plays_the_official_turn_limit(client: TestClient) -> None:
    seed = 7
    created = client.post(
        "/api/games",
        json={
            "game": "halite3",
            "snakes": ["builtin:greedy", "builtin:greedy"],
            "seed": seed,
        },
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    wait_finished(client, game_id, timeout=600, every=0.2)
    document = hlt_document(client, game_id)
    assert document["GAME_CONSTANTS"]["MAX_TURNS"] == official_turns(seed, 2)


def test_the_cap_applies_where_a_games_own_end_could_pass_it() -> None:
    halite, battlesnake = get_game("halite3"), get_game("battlesnake")
    small = ServerConfig(max_turns=450)
    wide = halite.parse_params({"width": 64, "height": 64})
    narrow = halite.parse_params({"width": 32, "height": 32})
    assert halite.turn_bound(wide) == 500 and halite.turn_bound(narrow) == 400
    assert turn_limit(small, halite, wide, None) == 450
    assert turn_limit(small, halite, narrow, None) is None
    assert turn_limit(small, halite, narrow, 1000) == 450
    assert turn_limit(small, battlesnake, battlesnake.parse_params({}), None) == 450
    assert turn_limit(ServerConfig(), halite, halite.parse_params({}), None) is None


def test_official_halite_map_sizes_can_be_asked_for(client: TestClient) -> None:
    # Halite III's official maps are 32 to 64 a side (the engine takes up to 128);
    # Battlesnake's board cap (25) is Battlesnake's own.
    for size in (32, 64):
        created = client.post(
            "/api/ladders",
            json={"name": f"h{size}", "game": "halite3", "width": size, "height": size},
        )
        assert created.status_code == 201, created.text
        assert created.json()["config"]["params"]["width"] == size
    too_big = client.post(
        "/api/ladders", json={"name": "huge", "game": "halite3", "params": {"width": 129}}
    )
    assert too_big.status_code in (400, 422) and "width" in too_big.text
    board = client.post("/api/ladders", json={"name": "bs", "width": 26, "height": 26})
    assert board.status_code == 422, board.text
    assert board.json()["detail"] == "width: 26 is larger than this server's 25"
    catalogue = {g["name"]: g for g in client.get("/api/catalogue").json()}
    sides = {p["name"]: p for p in catalogue["battlesnake"]["params"]}
    assert sides["width"]["hosted_maximum"] == 25


def test_an_operators_board_cap_applies_to_every_game(tmp_path: Path) -> None:
    config = ServerConfig(database_url=f"sqlite:///{tmp_path / 'g.db'}", max_board=40)
    with TestClient(create_app(config), base_url="http://localhost") as c:
        wide = c.post("/api/ladders", json={"name": "w", "game": "halite3", "width": 48})
        assert wide.status_code == 422 and "larger than this server's 40" in wide.text
        assert c.post("/api/ladders", json={"name": "b", "width": 30}).status_code == 201


def test_a_web_halite_game_is_the_cli_game_of_the_same_seed(
    client: TestClient, tmp_path: Path
) -> None:
    """The web plays the official game: its replay is ``snakewar halite play``'s, but for
    the wall-clock execution time."""
    seed, size = 7, 32
    created = client.post(
        "/api/games",
        json={
            "game": "halite3",
            "snakes": ["builtin:greedy", "builtin:greedy"],
            "seed": seed,
            "width": size,
            "height": size,
        },
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    wait_finished(client, game_id, timeout=600, every=0.2)
    web = hlt_document(client, game_id)
    names = [e["name"] for e in client.get(f"/api/games/{game_id}").json()["entrants"]]
    folder = tmp_path / "replays"
    command = [sys.executable, "-m", "snakewar", "halite", "play"]
    command += ["builtin:greedy", "builtin:greedy", "-s", str(seed), "-i", str(folder)]
    command += ["--width", str(size), "--height", str(size)]
    command += [arg for name in names for arg in ("-o", name)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    [replay] = folder.glob("*.hlt")
    raw = zstandard.ZstdDecompressor().decompress(replay.read_bytes(), max_output_size=1 << 28)
    cli: dict[str, Any] = json.loads(raw)
    for document in (web, cli):
        del document["game_statistics"]["execution_time"]
    assert web["GAME_CONSTANTS"]["MAX_TURNS"] == official_turns(seed, 2) == 400
    assert web == cli
