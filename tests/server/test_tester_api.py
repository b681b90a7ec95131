"""``/api/test`` and ``/api/test/stream`` against a real single-threaded snake on loopback."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.games.battlesnake.tester import select_scenarios
from snakewar.server import ServerConfig, create_app
from snakewar.server.safety import RateLimitError, UsageBudget
from tests.asgi_server import serve
from tests.games.battlesnake.referee.counting_snake import counting_snake
from tests.games.battlesnake.tester.real_snakes import plain_app
from tests.server.accounts import make_user, public_client


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


# -- the budget of a public server's runs ------------------------------------------------


def test_the_budget_counts_runs_in_a_sliding_hour_and_runs_at_once() -> None:
    budget = UsageBudget(2, 3600.0, at_once=1, name="tester_runs_per_hour")
    budget.take("user:1", "tester runs", now=0.0)
    with pytest.raises(RateLimitError, match="going on"):
        budget.take("user:1", "tester runs", now=1.0)
    budget.take("user:2", "tester runs", now=1.0)  # another user's are their own
    budget.done("user:1")
    budget.take("user:1", "tester runs", now=10.0)
    budget.done("user:1")
    with pytest.raises(RateLimitError, match=r"tester_runs_per_hour=2\); try again in 60 min"):
        budget.take("user:1", "tester runs", now=20.0)
    try:
        budget.take("user:1", "tester runs", now=1800.0)
    except RateLimitError as exc:
        assert exc.retry_after_s == 1800.0
    budget.take("user:1", "tester runs", now=3600.5)  # the first run left the hour
    budget.refund("user:1")  # refused after all: it counts for nothing
    assert budget.going_on("user:1") == 0
    budget.take("user:1", "tester runs", now=3601.0)


def test_a_public_server_gives_each_user_a_budget_of_tester_runs() -> None:
    # The probe: the tester could be aimed at any public URL, about 760 requests a
    # run, a few runs a minute, all hour long.  Now: tester_runs_per_hour per user, one
    # run at a time; the refusal names the limit, says when, and calls nobody.
    with (
        counting_snake() as snake,
        public_client(
            as_user="ann",
            admin=False,
            allowed_networks=("127.0.0.0/8",),
            tester_runs_per_hour=2,
        ) as ann,
    ):
        bob = make_user(ann.store, "bob")

        def budget() -> UsageBudget:
            made: UsageBudget = ann.app.state.tester_budget  # type: ignore[attr-defined]
            return made  # (made on first use)

        with ann.stream("POST", "/api/test/stream", json={"url": snake.url}) as first:
            assert first.status_code == 200
            lines = first.iter_lines()
            assert json.loads(next(lines))["event"] == "start"
            while budget().going_on(f"user:{user_id(ann, 'ann')}") == 0:
                time.sleep(0.01)
            at_once = ann.post("/api/test", json={"url": snake.url})
            assert at_once.status_code == 429, at_once.text
            assert "going on" in at_once.json()["detail"]
        # The reader went away: its run stops, and the next may start.
        wait_until(lambda: budget().going_on(f"user:{user_id(ann, 'ann')}") == 0)
        before = snake.count
        second = ann.post("/api/test", json={"url": snake.url})
        assert second.status_code == 200, second.text
        per_run = snake.count - before
        print(f"one tester run made {per_run} requests to the snake")
        assert per_run > 100
        third = ann.post("/api/test/stream", json={"url": snake.url})
        assert third.status_code == 429, third.text
        assert "tester_runs_per_hour=2" in third.json()["detail"]
        assert 1 <= int(third.headers["Retry-After"]) <= 3600
        calls = snake.count
        assert ann.post("/api/test", json={"url": snake.url}).status_code == 429
        assert snake.count == calls  # a refused run calls nobody
        # Bob's budget is his own.
        with ann.stream("POST", "/api/test/stream", json={"url": snake.url}, headers=bob) as his:
            assert his.status_code == 200


def user_id(client: TestClient, name: str) -> int:
    return int(client.store.accounts.user(name).id)


def wait_until(check: Callable[[], bool], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.05)
