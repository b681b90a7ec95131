"""``/api/test`` and ``/api/test/stream`` against a real single-threaded snake on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.checkup import select_scenarios
from snakewar.server import ServerConfig, create_app
from tests.asgi_server import serve
from tests.checkup.real_snakes import plain_app
from tests.server.accounts import public_client


@pytest.fixture(scope="module")
def snake_url() -> Iterator[str]:
    with serve(plain_app()) as url:
        yield url


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as test_client:
        yield test_client


def _without_timing(report: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(report)
    out: dict[str, Any] = json.loads(text)
    for key in ("elapsed_s", "summary"):
        out.pop(key)
    for check in out["checks"]:
        check.pop("latency_ms")
        check["notes"] = [n for n in check["notes"] if not n.startswith("slow")]
    for scenario in out["scenarios"]:
        for variant in scenario["variants"]:
            variant.pop("latency_ms")
        if scenario["first_failure"]:
            scenario["first_failure"].pop("latency_ms")
    return out


def test_the_stream_reports_each_step_then_the_report(client: TestClient, snake_url: str) -> None:
    with client.stream("POST", "/api/test/stream", json={"url": snake_url}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/x-ndjson")
        events = [json.loads(line) for line in response.iter_lines() if line]
    total = len(select_scenarios())
    assert events[0] == {"event": "start", "checks": 4, "scenarios": total}
    assert [e["event"] for e in events[1:5]] == ["check"] * 4
    scenarios = events[5:-1]
    assert [e["done"] for e in scenarios] == list(range(1, total + 1))
    assert {e["scenarios"] for e in scenarios} == {total}
    report = events[-1]["report"]
    assert events[-1]["event"] == "report"
    assert [s["id"] for s in report["scenarios"]] == [e["scenario"]["id"] for e in scenarios]
    # The careful snake survives everything and takes no kill: a pass with a score.
    assert report["passed"] and report["exit_code"] == 0
    assert report["survival"]["passed"] == report["survival"]["total"]
    assert report["strategy"]["passed"] < report["strategy"]["total"] == 8
    whole = client.post("/api/test", json={"url": snake_url})
    assert whole.status_code == 200
    assert _without_timing(whole.json()) == _without_timing(report)


def test_rulesets_and_parallel_are_checked_naming_the_field(client: TestClient) -> None:
    for body, field in (
        ({"url": "builtin:random", "rulesets": ["chess"]}, "rulesets"),
        ({"url": "builtin:random", "parallel": 5}, "parallel"),
        ({"url": "builtin:random", "rulesets": ["standard"] * 9}, "rulesets"),
    ):
        for path in ("/api/test", "/api/test/stream"):
            refused = client.post(path, json=body)
            assert refused.status_code == 422, (path, refused.text)
            assert refused.json()["detail"][0]["loc"][:2] == ["body", field], refused.text


def test_asking_for_royale_adds_the_hazards(client: TestClient, snake_url: str) -> None:
    report = client.post("/api/test", json={"url": snake_url, "rulesets": ["royale"]}).json()
    assert report["rulesets"] == ["royale"]
    hazards = [s for s in report["scenarios"] if s["category"] == "hazards"]
    assert hazards and all(s["kind"] == "survival" for s in hazards)
    assert not report["passed"]  # the careful snake does not know hazards


def test_a_public_stream_refuses_built_ins() -> None:
    with public_client(as_user="ann", admin=False) as client:
        refused = client.post("/api/test/stream", json={"url": "builtin:hunter?depth=16"})
        assert refused.status_code == 403 and "give its URL" in refused.json()["detail"]
