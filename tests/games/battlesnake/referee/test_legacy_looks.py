"""2017/2018 and API v0 snakes say how they look in their ``/start`` reply.

Their name (2017/2018) and colours reach the game's record before its owner is told
the game started (what a server stores and shows from the first frame on), and a name
the user gave wins over the snake's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from snakewar.games.battlesnake import GameConfig, Settings
from snakewar.games.battlesnake.records import GameRecord, SnakeEntry
from snakewar.games.battlesnake.referee.clients import new_http_client
from snakewar.games.battlesnake.referee.runner import connect, play_game

from .snake_servers import SnakeServers

CONFIG = GameConfig(width=7, height=7, settings=Settings.defaults(seed=3))


@pytest.fixture
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


def _told_at_start(specs: list[str], names: list[str]) -> tuple[list[SnakeEntry], GameRecord]:
    seen: list[SnakeEntry] = []

    async def on_start(record: GameRecord) -> None:
        seen.extend(record.snakes)

    async def go() -> GameRecord:
        async with new_http_client() as http:
            snakes = await connect(specs, names, http, 2_000)
            return await play_game(CONFIG, snakes, max_turns=3, on_start=on_start)

    record = asyncio.run(go())
    return seen, record


@pytest.mark.parametrize("api", [2017, 2018])
def test_a_legacy_snakes_name_and_colour_are_known_when_the_game_is_announced(
    servers: SnakeServers, api: int
) -> None:
    spec = f"legacy{api}:{servers.url(f'legacy{api}')}"
    seen, record = _told_at_start([spec, "random"], [])
    assert (seen[0].name, seen[0].color, seen[0].head) == (f"old {api}", "#aabbcc", "fang")
    assert record.snakes[0] == seen[0]
    # Its /start came before the announcement, and is in the record as usual.
    assert record.start[seen[0].id].ok


def test_a_name_the_user_gave_wins_over_the_legacy_snakes_own(servers: SnakeServers) -> None:
    spec = f"legacy2018:{servers.url('legacy2018')}"
    seen, record = _told_at_start([spec, "random"], ["mine"])
    assert (seen[0].name, seen[0].color) == ("mine", "#aabbcc")
    assert record.snakes[0].name == "mine"


def test_an_api_v1_game_is_announced_before_any_start(servers: SnakeServers) -> None:
    announced_before: list[int] = []

    async def on_start(record: GameRecord) -> None:
        announced_before.append(len(servers.bodies("good", "start")))

    async def go() -> GameRecord:
        async with new_http_client() as http:
            snakes = await connect([servers.url("good"), "random"], [], http, 2_000)
            return await play_game(CONFIG, snakes, max_turns=2, on_start=on_start)

    asyncio.run(go())
    assert announced_before == [0]
    assert len(servers.bodies("good", "start")) == 1
