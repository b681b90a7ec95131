"""The match loop's named steps (:class:`~snakewar.games.battlesnake.referee.runner.GameReferee`).

``play_game`` is ``GameReferee(...).play()``; these tests check that the steps, run
one by one, referee the very game ``play_game`` does, and that its hooks, plain functions or
coroutine functions alike, are told the same things in the same order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from snakewar.games.battlesnake import GameConfig, Settings
from snakewar.games.battlesnake.records import GameRecord, TurnRecord
from snakewar.games.battlesnake.referee.clients import new_http_client
from snakewar.games.battlesnake.referee.runner import (
    ConnectedSnake,
    GameReferee,
    RefereeHooks,
    RefereeOptions,
    connect,
    play_game,
)
from snakewar.games.battlesnake.replay.format import replay_digest

SPECS = ("greedy", "random", "hunter?depth=1")
CONFIG = GameConfig(settings=Settings.defaults(seed=7))


async def _snakes() -> list[ConnectedSnake]:
    async with new_http_client() as http:
        return await connect(SPECS, (), http, 5_000)


def test_the_steps_one_by_one_referee_the_game_play_game_does() -> None:
    async def by_steps() -> tuple[GameRecord, list[int]]:
        match = GameReferee(
            CONFIG, await _snakes(), RefereeOptions(timeout_ms=5_000), RefereeHooks()
        )
        await match.start()
        turns = []
        while not match.game.is_over:
            turn = await match.turn()
            turns.append(turn.turn)
        return await match.finish("game_over"), turns

    async def whole() -> GameRecord:
        return await play_game(CONFIG, await _snakes(), timeout_ms=5_000)

    stepped, turns = asyncio.run(by_steps())
    played = asyncio.run(whole())
    assert turns == list(range(len(played.turns)))
    assert played.result is not None and stepped.result == played.result
    assert replay_digest(stepped) == replay_digest(played)


def test_plain_and_coroutine_hooks_are_told_the_same_in_the_same_order() -> None:
    def run(awaitable: bool) -> list[tuple[object, ...]]:
        told: list[tuple[object, ...]] = []

        def hooks() -> dict[str, object]:
            def on_start(record: GameRecord) -> None:
                told.append(("start", len(record.turns)))

            def on_turn(record: GameRecord, turn: TurnRecord) -> None:
                told.append(("turn", turn.turn, len(record.turns)))

            def on_calls(turn: int, records: Sequence[dict[str, object]]) -> None:
                told.append(("calls", turn, tuple(r["kind"] for r in records)))

            if not awaitable:
                return {"on_start": on_start, "on_turn": on_turn, "on_calls": on_calls}

            async def a_start(record: GameRecord) -> None:
                on_start(record)

            async def a_turn(record: GameRecord, turn: TurnRecord) -> None:
                on_turn(record, turn)

            async def a_calls(turn: int, records: list[dict[str, object]]) -> None:
                on_calls(turn, records)

            return {"on_start": a_start, "on_turn": a_turn, "on_calls": a_calls}

        async def before_turn(turn: int) -> None:
            told.append(("before", turn))

        async def main() -> None:
            await play_game(
                CONFIG,
                await _snakes(),
                timeout_ms=5_000,
                max_turns=5,
                before_turn=before_turn,
                **hooks(),  # type: ignore[arg-type]
            )

        asyncio.run(main())
        return told

    plain = run(awaitable=False)
    assert plain == run(awaitable=True)
    assert plain[:2] == [("start", 0), ("calls", 0, ("start",) * 3)]
    assert plain[2:5] == [("before", 0), ("calls", 0, ("move",) * 3), ("turn", 0, 1)]
    assert plain[-1][0] == "calls" and plain[-1][2] == ("end",) * 3
    assert sum(1 for t in plain if t[0] == "turn") == 5
