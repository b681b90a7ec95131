"""``/metrics``: Prometheus metrics scraped over real HTTP after real games.

A server on loopback plays a game between a real snake server (HTTP) and a built-in
bot; its ``/metrics``, parsed with prometheus-client's own parser, then counts the game
started and finished, the turns it played, one latency observation per call the referee
recorded, a follower while one follows, and nothing failed.  A public server shows them
only to the metrics token's bearer and admins.  ``snakewar serve --workers 2`` adds
every worker's games up, whichever worker answers the scrape.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from websockets.sync.client import connect

from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.accounts import make_user
from tests.server.multi_server import servers, wait_until

TOKEN = "metrics-token-for-the-tests-0123456789"


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape by (name, sorted labels)."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(text: str, name: str, **labels: str) -> float:
    """One sample's value (0 when the series is absent)."""
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)


def wait_game(base: str, game_id: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {}

    def over() -> bool:
        nonlocal found
        found = httpx.get(f"{base}/api/games/{game_id}", headers=headers, timeout=60).json()
        return bool(found["status"] != "running")

    wait_until(f"game {game_id} to end", over, 120)
    return found


@pytest.fixture
def snakes() -> Iterator[SnakeServers]:
    with SnakeServers() as started:
        yield started


def test_a_real_game_is_counted_started_finished_with_its_turns_and_calls(
    snakes: SnakeServers,
) -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with serve(app) as base:
        before = httpx.get(f"{base}/metrics", timeout=60)
        assert before.status_code == 200, before.text
        assert before.headers["content-type"].startswith("text/plain")
        assert value(before.text, "snakewar_games_started_total", game="battlesnake") == 0
        body = {
            "snakes": [snakes.url("up"), "builtin:random"],
            "width": 7,
            "height": 7,
            "seed": 11,
        }
        created = httpx.post(f"{base}/api/games", json=body, timeout=60)
        assert created.status_code == 201, created.text
        game = wait_game(base, created.json()["id"])
        assert game["status"] == "complete"
        turns = game["turn"]
        assert turns > 0
        # The calls the referee made, as the request inspector shows them (a local
        # server keeps them): each one is an observation of the latency histogram.
        calls = 0
        for turn in range(turns + 1):
            answer = httpx.get(
                f"{base}/api/games/{game['id']}/calls", params={"turn": turn}, timeout=60
            )
            assert answer.status_code == 200, answer.text
            assert answer.json()["records_calls"] is True
            calls += len(answer.json()["calls"])
        text = httpx.get(f"{base}/metrics", timeout=60).text
    assert value(text, "snakewar_games_started_total", game="battlesnake") == 1
    assert value(text, "snakewar_games_finished_total", game="battlesnake") == 1
    assert value(text, "snakewar_games_failed_total", game="battlesnake") == 0
    assert value(text, "snakewar_turns_total", game="battlesnake") == turns
    observed = value(text, "snakewar_bot_call_seconds_count", game="battlesnake")
    # Two snakes are asked each turn (the move calls), and /start and /end besides.
    assert observed >= 2 * turns
    assert observed == calls
    assert value(text, "snakewar_bot_call_seconds_sum", game="battlesnake") > 0
    inf = value(text, "snakewar_bot_call_seconds_bucket", game="battlesnake", le="+Inf")
    assert inf == observed
    assert value(text, "snakewar_followers", kind="live") == 0
    assert value(text, "snakewar_queue_depth", queue="builtin_workers") == 0


def test_a_follower_of_a_live_game_is_in_the_followers_gauge() -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with serve(app) as base:

        def followers() -> float:
            text = httpx.get(f"{base}/metrics", timeout=60).text
            return value(text, "snakewar_followers", kind="live")

        # A game started paused (step mode) stays live while it is followed.
        created = httpx.post(
            f"{base}/api/games",
            json={"snakes": ["builtin:random", "builtin:random"], "step": True, "seed": 3},
            timeout=60,
        )
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        events = base.replace("http://", "ws://") + f"/games/{game_id}/events"
        with connect(events, open_timeout=60) as ws:
            ws.recv(timeout=60)  # a first message: it is being followed (counted soon)
            wait_until("the follower to be counted", lambda: followers() == 1, 60)
        wait_until("the follower to be let go", lambda: followers() == 0, 60)
        cancelled = httpx.post(f"{base}/api/games/{game_id}/cancel", timeout=60)
        assert cancelled.status_code == 200, cancelled.text
        wait_game(base, game_id)
        text = httpx.get(f"{base}/metrics", timeout=60).text
        assert value(text, "snakewar_games_cancelled_total", game="battlesnake") == 1
        assert value(text, "snakewar_games_finished_total", game="battlesnake") == 0


def test_a_public_servers_metrics_are_for_the_token_and_admins_only() -> None:
    config = ServerConfig(
        database_url="memory",
        public=True,
        metrics_token=TOKEN,
        allowed_hosts=("snakes.example.org",),
    )
    with Store("sqlite://") as store:
        admin = make_user(store, "boss", admin=True)
        member = make_user(store, "ann")
        app = create_app(config, store=store)
        with TestClient(
            app, base_url="http://snakes.example.org", raise_server_exceptions=False
        ) as client:
            anonymous = client.get("/metrics")
            assert anonymous.status_code == 401, anonymous.text
            assert "metrics token" in anonymous.json()["detail"]
            assert client.get("/metrics", headers=member).status_code == 403
            wrong = client.get("/metrics", headers={"Authorization": "Bearer not-the-token"})
            assert wrong.status_code == 401
            assert "snakewar_games_started" not in wrong.text
            for headers in (admin, {"Authorization": f"Bearer {TOKEN}"}):
                answer = client.get("/metrics", headers=headers)
                assert answer.status_code == 200, answer.text
                assert "snakewar_games_started" in answer.text
            # A scraper asks each replica by its address: no Host check (the token is).
            by_address = client.get(
                "http://10.0.0.7:8000/metrics", headers={"Authorization": f"Bearer {TOKEN}"}
            )
            assert by_address.status_code == 200, by_address.text
            assert client.get("http://10.0.0.7:8000/api/games").status_code == 400


@pytest.mark.slow
def test_workers_add_their_metrics_up_whichever_answers(
    tmp_path: Path, snakes: SnakeServers
) -> None:
    database = f"sqlite:///{tmp_path / 'games.db'}"
    games = 6
    with servers(
        database, tmp_path, extra=["--workers", "2"], env={"SNAKEWAR_METRICS_TOKEN": TOKEN}
    ) as make:
        server = make("workers").start().wait_ready()
        headers = {"Authorization": f"Bearer {TOKEN}"}
        made = []
        for seed in range(games):
            body = {"snakes": [snakes.url("up"), "builtin:random"], "seed": seed + 1}
            created = httpx.post(f"{server.url}/api/games", json=body, timeout=60)
            assert created.status_code == 201, created.text
            made.append(created.json()["id"])
        # A game the loaded machine's database failed (aborted with its reason) is
        # counted failed: the metrics must say what the API says, whatever it says.
        ended = [wait_game(server.url, game_id) for game_id in made]
        complete = [g for g in ended if g["status"] == "complete"]
        failed = [g for g in ended if g["status"] == "aborted"]
        assert len(complete) + len(failed) == games, ended
        assert len(complete) >= games // 2, ended
        turns = sum(g["turn"] for g in complete)
        replicas: set[str] = set()
        # Many scrapes, answered by both workers: each tells the sum of both.
        for _ in range(30):
            answer = httpx.get(f"{server.url}/metrics", headers=headers, timeout=60)
            assert answer.status_code == 200, answer.text
            text = answer.text
            assert value(text, "snakewar_games_started_total", game="battlesnake") == games
            finished = value(text, "snakewar_games_finished_total", game="battlesnake")
            assert finished == len(complete), text
            assert value(text, "snakewar_games_failed_total", game="battlesnake") == len(failed)
            if not failed:
                assert value(text, "snakewar_turns_total", game="battlesnake") == turns
            else:
                assert value(text, "snakewar_turns_total", game="battlesnake") >= turns
            replicas.add(httpx.get(f"{server.url}/health", timeout=60).json()["replica"])
        assert len(replicas) == 2, "the kernel gave every connection to one worker"
        assert server.stop() == 0
