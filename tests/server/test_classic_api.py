"""The classic ruleset through the REST API: created, played, shown, exported, refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from snakewar.games.battlesnake.replay.format import read_replay
from snakewar.games.battlesnake.replay.verify import verify_replay
from snakewar.server import ServerConfig, create_app
from tests.waiting import wait_finished


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as test_client:
        yield test_client


def test_a_classic_game_is_created_with_its_settings_played_and_exported(
    client: TestClient,
) -> None:
    body = {
        "snakes": ["builtin:greedy", "builtin:random"],
        "seed": 31,
        "ruleset": "classic",
        "params": {"maxFood": 2, "snakeStartLength": 4},
    }
    created = client.post("/api/games", json=body)
    assert created.status_code == 201, created.text
    game = created.json()
    assert game["width"] == 20 and game["height"] == 20  # the classic default size
    assert "classic" in game["title"]
    finished = wait_finished(client, game["id"])
    assert finished["status"] == "complete"
    # The viewer's frames (the engine API) show the game: two food items every turn.
    frames = client.get(f"/games/{game['id']}/frames", params={"offset": 0, "limit": 1000}).json()[
        "Frames"
    ]
    assert len(frames) == finished["turn"] + 1
    assert {len(f["Food"]) for f in frames} == {2}
    assert all(len(s["Body"]) == 4 for s in frames[0]["Snakes"])
    replay = client.get(f"/api/games/{game['id']}/replay")
    assert replay.status_code == 200
    record = read_replay(replay.content)
    assert record.config.ruleset == "classic" and record.config.map == "classic"
    assert record.config.settings.params == {
        "maxFood": "2",
        "snakeStartLength": "4",
        "decHealthPoints": "1",
    }
    assert verify_replay(record).ok


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"maxFood": -1}, "maxFood"),
        ({"snakeStartLength": 0}, "snakeStartLength"),
        ({"decHealthPoints": "lots"}, "decHealthPoints"),
        ({"decHealthPoints": 101}, "decHealthPoints"),
        ({"map": "standard"}, "map"),
    ],
)
def test_bad_classic_settings_are_422_naming_the_field(
    client: TestClient, params: dict[str, object], field: str
) -> None:
    body = {"snakes": ["random", "random"], "ruleset": "classic", **params}
    response = client.post("/api/games", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"][-1] == field
    assert client.get("/api/games").json()["games"] == []


def test_the_catalogue_offers_classic_and_its_settings(client: TestClient) -> None:
    catalogue = client.get("/api/catalogue").json()
    battlesnake = next(g for g in catalogue if g["name"] == "battlesnake")
    params = {p["name"]: p for p in battlesnake["params"]}
    assert "classic" in params["ruleset"]["choices"] and "classic" in params["map"]["choices"]
    assert params["maxFood"]["default"] == 1 and params["snakeStartLength"]["minimum"] == 1
    assert params["decHealthPoints"]["default"] == 1
