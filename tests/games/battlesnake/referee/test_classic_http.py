"""The classic game over real HTTP: 2017/18 snakes and API v1 snakes, the referee and the CLI."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path

import jsonschema
import pytest

from snakewar.cli import main
from snakewar.games.battlesnake import GameConfig, Settings
from snakewar.games.battlesnake.records import GameRecord
from snakewar.games.battlesnake.referee.clients import new_http_client
from snakewar.games.battlesnake.referee.runner import connect, play_game
from snakewar.games.battlesnake.replay.format import read_replay
from snakewar.games.battlesnake.replay.verify import verify_replay
from snakewar.games.battlesnake.rules.wire import api_schema

from .snake_servers import SnakeServers

REQUEST = jsonschema.Draft202012Validator(
    {"$ref": "#/$defs/SnakeRequest", "$defs": api_schema()["$defs"]}
)


@pytest.fixture(scope="module")
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


def _classic(seed: int, **settings: int) -> GameConfig:
    params = {key: str(value) for key, value in settings.items()}
    return GameConfig("classic", "classic", 20, 20, Settings(params, seed))


# These tests check the protocol, not speed: a timeout no loaded CI machine reaches (a
# 500 ms one was once missed by a local test snake while the whole suite ran on two cores).
TIMEOUT_MS = 5000


def _play(specs: Sequence[str], config: GameConfig) -> GameRecord:
    async def run() -> GameRecord:
        async with new_http_client() as http:
            snakes = await connect(specs, (), http, TIMEOUT_MS)
            return await play_game(config, snakes, timeout_ms=TIMEOUT_MS)

    return asyncio.run(run())


def _food_counts(record: GameRecord) -> list[int]:
    return [len(record.initial.food)] + [len(t.after.food) for t in record.turns]


@pytest.mark.parametrize("api", [2018, 2017])
def test_a_legacy_snake_plays_whole_classic_games(servers: SnakeServers, api: int) -> None:
    name = f"legacy{api}"
    for seed in (3, 4):
        servers.received.clear()
        record = _play([f"{name}:{servers.url(name)}", servers.url("good")], _classic(seed))
        # A whole game: it ended by the rules, not by a turn limit.
        assert record.result is not None and record.result.reason == "game_over"
        assert len(record.turns) > 10
        legacy = record.snakes[0]
        calls = [t.calls[legacy.id] for t in record.turns if legacy.id in t.calls]
        assert calls
        assert [c for c in calls if not c.ok] == []
        assert record.final_state.snake(legacy.id).eliminated_cause != "wall-collision"
        assert set(_food_counts(record)) == {1}
        moves = servers.bodies(name, "move")
        assert len(moves) == len(calls)
        first = moves[0]
        if api == 2018:
            assert first["object"] == "world" and first["width"] == 20
            you = first["you"]["body"]["data"]
            # Stacked at the start: three segments on one square.
            assert len(you) == 3 and len({(p["x"], p["y"]) for p in you}) == 1
            assert all(len(body["food"]["data"]) == 1 for body in moves)
        else:
            assert all(len(body["food"]) == 1 for body in moves)
        assert verify_replay(record).ok


def test_v1_snakes_are_told_the_classic_ruleset_and_its_settings(servers: SnakeServers) -> None:
    servers.received.clear()
    config = _classic(11, maxFood=3, snakeStartLength=5, decHealthPoints=2)
    record = _play([servers.url("good"), servers.url("good2")], config)
    assert record.result is not None and record.result.reason == "game_over"
    assert set(_food_counts(record)) == {3}
    assert all(len(s.body) == 5 for s in record.initial.snakes)
    bodies = servers.bodies("good", "start") + servers.bodies("good", "move")
    assert len(bodies) > 5
    for body in bodies:
        REQUEST.validate(body)
        ruleset = body["game"]["ruleset"]
        assert ruleset["name"] == "classic" and body["game"]["map"] == "classic"
        settings = ruleset["settings"]
        assert (settings["maxFood"], settings["snakeStartLength"], settings["decHealthPoints"]) == (
            3,
            5,
            2,
        )
        # The official settings do not apply to the classic game, and say so.
        assert settings["foodSpawnChance"] == 0 and settings["hazardDamagePerTurn"] == 0
    healths = [body["you"]["health"] for body in servers.bodies("good", "move")]
    assert healths[:2] == [100, 98]
    # Two a turn, or back to 100 after a meal.
    assert all(b in (a - 2, 100) for a, b in itertools.pairwise(healths))


def test_play_cli_plays_classic_with_a_2018_snake(
    servers: SnakeServers, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = tmp_path / "classic.jsonl"
    snake = f"legacy:{servers.url('legacy2018')}"
    args = ["play", "-g", "classic", "-r", "12", "--no-live", "--replay", str(replay)]
    assert main([*args, "--maxFood", "2", snake, "builtin:greedy"]) == 0
    out = capsys.readouterr().out
    assert "ruleset classic, map classic, 20x20, seed 12" in out
    record = read_replay(replay)
    assert record.config.ruleset == "classic" and record.config.map == "classic"
    assert record.config.settings.params == {
        "maxFood": "2",
        "snakeStartLength": "3",
        "decHealthPoints": "1",
    }
    assert set(_food_counts(record)) == {2}
    assert main(["replay", "verify", str(replay)]) == 0
    # A size given is kept; a bad setting or a foreign map is one error line.
    assert (
        main(["play", "-g", "classic", "-W", "9", "-H", "8", "--no-live", "random", "random"]) == 0
    )
    assert "map classic, 9x8" in capsys.readouterr().out
    assert main(["play", "-g", "classic", "--snakeStartLength", "0", "random"]) == 2
    assert "snakeStartLength" in capsys.readouterr().err
    assert main(["play", "-g", "classic", "-m", "standard", "random"]) == 2
    assert "classic map only" in capsys.readouterr().err
