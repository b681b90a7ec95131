"""``game.source`` as real snakes receive it: one documented value per kind of game.

``snakewar play`` sends the official CLI's ``""``; a game started on the server and
the tester's games ``custom``; a ladder's ``league``; a tournament's ``tournament``
(:class:`~snakewar.games.battlesnake.rules.wire.GameSource`).  Each game here is played
against a snake on loopback that keeps every request it gets.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.arena.config import MatchConfig
from snakewar.arena.executors import InProcessExecutor
from snakewar.arena.ladder import Ladder
from snakewar.arena.tournament_runner import TournamentRun
from snakewar.cli import main
from snakewar.games.battlesnake.referee.clients import new_http_client
from snakewar.games.battlesnake.referee.runner import make_client
from snakewar.games.battlesnake.rules.wire import GameSource, api_game_source
from snakewar.games.battlesnake.tester import run_tester
from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.waiting import wait_finished

from .snake_servers import SnakeServers

SMALL = MatchConfig.create("battlesnake", {"width": 7, "height": 7}, max_turns=30)


@pytest.fixture
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


def _sources(servers: SnakeServers, name: str = "good") -> set[str]:
    bodies: list[Any] = [
        body for endpoint in ("start", "move", "end") for body in servers.bodies(name, endpoint)
    ]
    assert bodies, f"{name} got no request"
    return {body["game"]["source"] for body in bodies}


def test_the_documented_values() -> None:
    assert [str(s) for s in GameSource] == ["custom", "league", "tournament", ""]
    assert api_game_source("ladder:main") is GameSource.LEAGUE
    assert api_game_source("tournament:abc") is GameSource.TOURNAMENT
    assert api_game_source("custom") is GameSource.CUSTOM
    assert api_game_source("") is GameSource.CLI


def _versions(servers: SnakeServers, name: str = "good") -> set[str]:
    bodies = [b for endpoint in ("start", "move", "end") for b in servers.bodies(name, endpoint)]
    return {body["game"]["ruleset"]["version"] for body in bodies}


def test_play_sends_the_official_cli_empty_source(servers: SnakeServers, tmp_path: Path) -> None:
    assert main(["play", "-r", "3", "--no-live", servers.url("good"), "random"]) == 0
    assert _sources(servers) == {""}
    # The official CLI's ruleset version, which its replay file (and Snakewar's) records.
    assert _versions(servers) == {"cli"}


def test_two_cli_games_of_one_seed_are_one_board_and_two_games(
    servers: SnakeServers, tmp_path: Path
) -> None:
    for n in (1, 2):
        out = tmp_path / f"game{n}.jsonl"
        argv = ["play", "-r", "4", "--seed", "11", "--no-live", "-o", str(out)]
        assert main([*argv, servers.url("good"), "random"]) == 0
    starts = servers.bodies("good", "start")
    assert len(starts) == 2
    # A snake that keys its state by game id sees two games...
    assert starts[0]["game"]["id"] != starts[1]["game"]["id"]
    # ...on the same board: the seed alone fixes it.
    assert starts[0]["board"] == starts[1]["board"] and starts[0]["you"] == starts[1]["you"]
    # The replay files: two ids, one game, turn by turn.
    boards = []
    for n, start in zip((1, 2), starts, strict=True):
        lines = [
            json.loads(line) for line in (tmp_path / f"game{n}.jsonl").read_text().splitlines()
        ]
        assert lines[0]["id"] == start["game"]["id"]
        boards.append(
            [
                (b["turn"], b["food"], [(s["id"], s["body"]) for s in b["board"]["snakes"]])
                for b in (
                    {**line, "food": line["board"]["food"]} for line in lines if "board" in line
                )
            ]
        )
    assert boards[0] == boards[1] and len(boards[0]) > 2


def test_the_tester_sends_custom_and_start_at_turn_0(servers: SnakeServers) -> None:
    async def go() -> None:
        async with new_http_client() as http:
            await run_tester(make_client(servers.url("good"), http, 500), categories=["walls"])

    asyncio.run(go())
    assert _sources(servers) == {"custom"}
    starts = servers.bodies("good", "start")
    assert len(starts) == 1 + 5 * 8 and {body["turn"] for body in starts} == {0}
    assert {body["turn"] for body in servers.bodies("good", "move")} == {0, 12, 40}


def test_a_server_game_sends_custom(servers: SnakeServers) -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        created = client.post("/api/games", json={"snakes": [servers.url("good"), "random"]})
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        wait_finished(client, game_id)
    assert _sources(servers) == {"custom"}
    assert _versions(servers) == {"v1.2.3"}


def test_a_ladder_sends_league(servers: SnakeServers, tmp_path: Path) -> None:
    ladder = Ladder("sources", SMALL, seed=2)
    ladder.add(servers.url("good"), "good")
    ladder.add("random")
    with Store(f"sqlite:///{tmp_path / 'ladder.db'}") as store:
        assert ladder.run(2, store) == 2
        # The stored games keep their finer origin.
        rows = [store.games.get(g.game_id) for g in ladder.recent]
        assert {row.source for row in rows if row is not None} == {"ladder:sources"}
    assert _sources(servers) == {"league"}


def test_a_tournament_sends_tournament(servers: SnakeServers, tmp_path: Path) -> None:
    run = TournamentRun.create(
        "cup",
        "round_robin",
        [(servers.url("good"), "good"), ("random", None), ("greedy", None)],
        config=SMALL,
        seed=4,
    )
    with Store(f"sqlite:///{tmp_path / 'tournament.db'}") as store:
        assert run.run(store, InProcessExecutor(concurrency=2)) > 0
    assert _sources(servers) == {"tournament"}
