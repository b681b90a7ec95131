"""A game's parameters travel in ``params``; top-level ones are a deprecated alias.

The request models fold top-level parameters into ``params`` in one place
(:class:`snakewar.server.schemas.GameParamsRequest`); the game's adapter then checks
them all, whichever way they came.
"""

from __future__ import annotations

import httpx
import pytest

from snakewar.server.schemas import CreateGame, CreateLadder, CreateTournament, GameParamsRequest
from tests.server.accounts import public_client

BODIES: list[tuple[type[GameParamsRequest], dict[str, object]]] = [
    (CreateGame, {"snakes": ["builtin:random"]}),
    (CreateLadder, {"name": "lad"}),
    (CreateTournament, {"name": "cup", "snakes": ["builtin:random", "builtin:greedy"]}),
]


@pytest.mark.parametrize(("model", "body"), BODIES)
def test_top_level_parameters_are_folded_into_params(
    model: type[GameParamsRequest], body: dict[str, object]
) -> None:
    old = model.model_validate({**body, "width": 7, "height": 9, "maxTurns": 5})
    new = model.model_validate({**body, "params": {"width": 7, "height": 9}, "maxTurns": 5})
    assert old.params == new.params == {"width": 7, "height": 9}
    assert old.model_extra == {} and old.model_dump() == new.model_dump()
    # params win when both give a name.
    both = model.model_validate({**body, "width": 7, "params": {"width": 11}})
    assert both.params == {"width": 11}


def test_the_schema_documents_params_and_the_deprecated_alias() -> None:
    for model in (CreateGame, CreateLadder, CreateTournament):
        params = model.model_json_schema()["properties"]["params"]
        assert "Deprecated" in params["description"], model.__name__


def detail(response: httpx.Response) -> str:
    return str(response.json()["detail"])


def test_either_way_makes_the_same_ladder_and_bad_ones_are_named() -> None:
    with public_client() as admin:
        old = admin.post("/api/ladders", json={"name": "old", "width": 7, "height": 7})
        new = admin.post("/api/ladders", json={"name": "new", "params": {"width": 7, "height": 7}})
        assert old.status_code == new.status_code == 201, (old.text, new.text)
        assert old.json()["config"] == new.json()["config"]
        assert old.json()["config"]["params"]["width"] == 7
        typo = admin.post("/api/ladders", json={"name": "typo", "widht": 7})
        assert 400 <= typo.status_code < 500 and "widht" in detail(typo), typo.text
        nested = admin.post("/api/ladders", json={"name": "typo", "params": {"widht": 7}})
        assert nested.status_code == typo.status_code and "widht" in detail(nested)
