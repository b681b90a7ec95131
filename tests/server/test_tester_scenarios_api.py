"""``POST /api/test`` and ``/api/test/stream`` with a scenario file of one's own.

The file's positions run after (or, with ``only_scenarios``, instead of) the built-in
ones, reported alike; a bad file is a 422 naming the ``scenarios`` field, before any call.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.games.battlesnake.tester import SCENARIOS, select_scenarios
from snakewar.games.battlesnake.tester.files import entry_of
from snakewar.server import ServerConfig, create_app
from tests.asgi_server import serve
from tests.games.battlesnake.tester.real_snakes import plain_app

FORMAT = {"format": "snakewar-scenarios", "version": 1}


@pytest.fixture(scope="module")
def snake_url() -> Iterator[str]:
    with serve(plain_app()) as url:
        yield url


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as test_client:
        yield test_client


def _file(*names: str) -> dict[str, Any]:
    chosen = [s for s in SCENARIOS if s.id in names]
    return {**FORMAT, "scenarios": [entry_of(s.request(), name=f"mine-{s.id}") for s in chosen]}


def test_own_scenarios_run_alone_or_beside_the_built_in_ones(
    client: TestClient, snake_url: str
) -> None:
    mine = _file("walls-corner", "walls-top-edge")
    assert len(mine["scenarios"]) == 2
    answer = client.post(
        "/api/test", json={"url": snake_url, "scenarios": mine, "only_scenarios": True}
    )
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert [s["id"] for s in report["scenarios"]] == [e["name"] for e in mine["scenarios"]]
    assert all(s["category"] == "custom" and s["variants_total"] == 8 for s in report["scenarios"])
    with client.stream(
        "POST", "/api/test/stream", json={"url": snake_url, "scenarios": mine}
    ) as response:
        events = [json.loads(line) for line in response.iter_lines() if line]
    total = len(select_scenarios(["standard"])) + len(mine["scenarios"])
    assert events[0] == {"event": "start", "checks": 4, "scenarios": total}
    ids = [s["id"] for s in events[-1]["report"]["scenarios"]]
    assert len(ids) == total and ids[-2:] == [e["name"] for e in mine["scenarios"]]


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"scenarios": {**FORMAT, "version": 2, "scenarios": []}}, "scenarios", "'version'"),
        ({"scenarios": {**FORMAT, "scenarios": [{"name": "x"}]}}, "scenarios", "scenario 'x'"),
        ({"scenarios": {**FORMAT, "scenarios": [{}] * 21}}, "scenarios", "more than 20"),
        ({"only_scenarios": True}, "only_scenarios", "give one"),
        ({"scenarios": {"x": "y" * (1024 * 1024)}}, "scenarios", "larger than"),
    ],
)
def test_a_bad_scenario_file_is_a_422_naming_the_field(
    client: TestClient, snake_url: str, body: dict[str, Any], field: str, words: str
) -> None:
    answer = client.post("/api/test", json={"url": snake_url, **body})
    assert answer.status_code in (413, 422), answer.text
    if answer.status_code == 422:
        (error,) = answer.json()["detail"]
        assert error["loc"][-1] == field and words in error["msg"], error
