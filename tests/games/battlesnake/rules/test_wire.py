"""The API v1 wire format."""

from __future__ import annotations

import json
from typing import Any

import pytest

from snakewar.errors import WireFormatError
from snakewar.games.battlesnake import BoardState, Point, Settings, Snake
from snakewar.games.battlesnake.rules.types import EliminationCause
from snakewar.games.battlesnake.rules.wire import (
    GameInfo,
    SnakeInfo,
    board_from_api,
    request_from_api,
    request_to_api,
)

STATE = BoardState(
    turn=4,
    width=11,
    height=11,
    snakes=(
        Snake("a", (Point(1, 1), Point(1, 2), Point(1, 2)), 90),
        Snake(
            "b",
            (Point(5, 5), Point(5, 6), Point(5, 7)),
            40,
            EliminationCause.HEAD_COLLISION,
            "a",
            3,
        ),
    ),
    food=(Point(3, 3),),
    hazards=(Point(0, 0), Point(0, 0), Point(0, 12)),
)
GAME = GameInfo("g1", "royale", "v1.2.3", Settings.defaults(seed=1), "royale", 500, "custom")


def test_request_has_the_exact_api_shape() -> None:
    body = request_to_api(
        GAME, STATE, "a", {"a": SnakeInfo(name="Alpha", latency="12", shout="hi")}
    )
    assert set(body) == {"game", "turn", "board", "you"}
    assert body["game"] == {
        "id": "g1",
        "ruleset": {
            "name": "royale",
            "version": "v1.2.3",
            "settings": {
                "foodSpawnChance": 15,
                "minimumFood": 1,
                "hazardDamagePerTurn": 14,
                "hazardMap": "",
                "hazardMapAuthor": "",
                "royale": {"shrinkEveryNTurns": 25},
                "squad": {
                    "allowBodyCollisions": False,
                    "sharedElimination": False,
                    "sharedHealth": False,
                    "sharedLength": False,
                },
            },
        },
        "map": "royale",
        "timeout": 500,
        "source": "custom",
    }
    # Only alive snakes are on the board; stacked segments count in length.
    assert [s["id"] for s in body["board"]["snakes"]] == ["a"]
    you = body["you"]
    assert you["length"] == 3 and you["head"] == {"x": 1, "y": 1}
    assert you["latency"] == "12" and you["name"] == "Alpha" and you["shout"] == "hi"
    assert set(you) == {
        "id",
        "name",
        "latency",
        "health",
        "body",
        "head",
        "length",
        "shout",
        "squad",
        "customizations",
    }
    # Stacked and off-board hazards go out unchanged.
    assert body["board"]["hazards"] == [{"x": 0, "y": 0}, {"x": 0, "y": 0}, {"x": 0, "y": 12}]
    json.dumps(body)


def test_end_request_can_name_an_eliminated_snake() -> None:
    assert request_to_api(GAME, STATE, "b")["you"]["id"] == "b"


def test_request_round_trip() -> None:
    body = json.loads(json.dumps(request_to_api(GAME, STATE, "a")))
    game, state, you, infos = request_from_api(body)
    assert you == "a" and game.map == "royale" and game.settings.get_int("damagePerTurn", 0) == 14
    assert state == STATE.replace(snakes=STATE.alive_snakes)
    assert infos["a"].latency == "0"


@pytest.mark.parametrize(
    ("board", "where"),
    [
        (
            {"width": 11, "height": 11, "snakes": [{"id": "a", "health": 1, "body": [{"x": 1}]}]},
            "board.snakes[0].body[0].y",
        ),
        ({"width": "11", "height": 11}, "board.width"),
        ({"width": 11, "height": 11, "food": {}}, "board.food"),
        ({"width": 0, "height": 11}, "board.width/height"),
        (
            {"width": 11, "height": 11, "snakes": [{"id": "a", "health": "x", "body": []}]},
            "board.snakes[0].health",
        ),
    ],
)
def test_malformed_boards_name_the_field(board: dict[str, Any], where: str) -> None:
    with pytest.raises(WireFormatError, match=r"^" + where.replace("[", r"\[").replace("]", r"\]")):
        board_from_api(board)
