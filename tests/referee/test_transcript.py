"""The referee's call records (the request inspector's data) against real snake servers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from snakewar.games.battlesnake import GameConfig, Settings
from snakewar.games.battlesnake.referee.clients import new_http_client
from snakewar.games.battlesnake.referee.runner import connect, play_game
from snakewar.referee.transcript import MAX_BODY_BYTES, body_text, current_exchange
from tests.games.battlesnake.referee.snake_servers import SnakeServers


@pytest.fixture(scope="module")
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


Calls = list[tuple[int, list[dict[str, Any]]]]


def play_recorded(
    specs: list[str], names: list[str], max_turns: int = 3
) -> tuple[Calls, list[int]]:
    """Play a short game; returns every ``on_calls`` round and the turns gated."""
    rounds: Calls = []
    gated: list[int] = []

    async def before_turn(turn: int) -> None:
        assert current_exchange() is None  # captures never leak out of a call
        gated.append(turn)

    async def run() -> None:
        async with new_http_client() as http:
            snakes = await connect(specs, names, http, 500)
            await play_game(
                GameConfig(settings=Settings.defaults(seed=5)),
                snakes,
                timeout_ms=500,
                max_turns=max_turns,
                before_turn=before_turn,
                on_calls=lambda turn, records: rounds.append((turn, records)),
            )

    asyncio.run(run())
    return rounds, gated


def by_name(rounds: Calls, turn: int, kind: str) -> dict[str, dict[str, Any]]:
    return {
        r["name"]: r for t, records in rounds if t == turn for r in records if r["kind"] == kind
    }


def test_every_call_is_recorded_with_the_bytes_sent_and_read(servers: SnakeServers) -> None:
    servers.received.clear()
    specs = [servers.url("good"), servers.url("status500"), "builtin:random"]
    rounds, gated = play_recorded(specs, ["good", "failing", "builtin"])
    assert gated == [0, 1, 2]
    assert [(t, records[0]["kind"]) for t, records in rounds] == [
        (0, "start"),
        (0, "move"),
        (1, "move"),
        (2, "move"),
        (3, "end"),
    ]
    sent = servers.bodies("good", "move")
    for turn in range(3):
        calls = by_name(rounds, turn, "move")
        good = calls["good"]
        # Exactly the JSON the snake received, with the turn it was asked about.
        assert json.loads(good["request"]) == sent[turn]
        assert f'"turn":{turn},' in good["request"] and not good["request_truncated"]
        assert json.loads(good["reply"]) == {"move": good["move"], "shout": f"good says {turn}"}
        assert (good["status"], good["http_status"], good["error"]) == ("ok", 200, "")
        failing = calls["failing"]
        assert (failing["status"], failing["http_status"]) == ("http-status", 500)
        assert failing["reply"] == "oops" and failing["move"] == ""
        assert failing["error"] == "HTTP status 500"
        # A built-in bot has no wire: its request as API v1 JSON, its move object.
        builtin = calls["builtin"]
        assert json.loads(builtin["request"])["turn"] == turn
        assert json.loads(builtin["request"])["you"]["name"] == "builtin"
        assert json.loads(builtin["reply"]) == {"move": builtin["move"], "shout": ""}
        assert builtin["http_status"] is None and builtin["latency_ms"] >= 0
    start = by_name(rounds, 0, "start")["good"]
    assert json.loads(start["request"]) == servers.bodies("good", "start")[0]


def test_legacy_snakes_record_the_legacy_body_and_huge_replies_are_cut(
    servers: SnakeServers,
) -> None:
    specs = [servers.url("huge"), f"legacy:{servers.url('legacy2018')}"]
    rounds, _ = play_recorded(specs, ["huge", "legacy"], 1)
    calls = by_name(rounds, 0, "move")
    huge = calls["huge"]
    assert huge["status"] == "too-large" and huge["reply_truncated"]
    assert len(huge["reply"]) == MAX_BODY_BYTES and huge["reply"].startswith('{"move":"up"')
    legacy = calls["legacy"]
    assert json.loads(legacy["request"])["object"] == "world"
    assert json.loads(legacy["reply"])["taunt"] == "taunt 0"


def test_bodies_are_text_cut_at_the_cap() -> None:
    assert body_text(None) == ("", False)
    assert body_text(b"\xff{}") == ("\ufffd{}", False)
    text, cut = body_text(b"a" * (MAX_BODY_BYTES + 1))
    assert cut and text == "a" * MAX_BODY_BYTES
