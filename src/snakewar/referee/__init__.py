"""The referee: plays games between snakes over HTTP or in-process.

:func:`connect` turns snake arguments (URLs, ``builtin:NAME``, ``v0:URL``, ``legacy:URL``)
into ready clients, :func:`play_game` referees one game into a
:class:`GameRecord`, and :func:`run_batch` plays many on worker processes.
Whatever a snake does wrong is recorded as a :class:`CallStatus`; it never raises.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from snakewar._lazy import lazy_attribute, lazy_dir

if TYPE_CHECKING:
    from snakewar.games.battlesnake.records import (
        CallOutcome,
        CallStatus,
        GameRecord,
        SnakeEntry,
        TurnRecord,
        derive_ids,
    )
    from snakewar.referee.batch import SnakeMatch, play_match, run_batch
    from snakewar.referee.clients import (
        MAX_REPLY_BYTES,
        HttpSnakeClient,
        InProcessClient,
        LegacySnakeClient,
        SnakeClient,
        SnakeUnreachableError,
        SnakeURLError,
        V0SnakeClient,
        new_http_client,
    )
    from snakewar.referee.runner import ConnectedSnake, SnakeSpecError, connect, play_game
    from snakewar.referee.stats import BatchStats, GameSummary, summarize, wilson_interval

__all__ = [
    "MAX_REPLY_BYTES",
    "BatchStats",
    "CallOutcome",
    "CallStatus",
    "ConnectedSnake",
    "GameRecord",
    "GameSummary",
    "HttpSnakeClient",
    "InProcessClient",
    "LegacySnakeClient",
    "SnakeClient",
    "SnakeEntry",
    "SnakeMatch",
    "SnakeSpecError",
    "SnakeURLError",
    "SnakeUnreachableError",
    "TurnRecord",
    "V0SnakeClient",
    "connect",
    "derive_ids",
    "new_http_client",
    "play_game",
    "play_match",
    "run_batch",
    "summarize",
    "wilson_interval",
]

# Each public name and its module, imported on first use: playing a Halite III game
# (snakewar.games.halite3.referee.runner) does not load the Battlesnake referee and its HTTP client.
_LAZY: dict[str, str] = {
    "CallOutcome": "snakewar.games.battlesnake.records",
    "CallStatus": "snakewar.games.battlesnake.records",
    "GameRecord": "snakewar.games.battlesnake.records",
    "SnakeEntry": "snakewar.games.battlesnake.records",
    "TurnRecord": "snakewar.games.battlesnake.records",
    "derive_ids": "snakewar.games.battlesnake.records",
    "SnakeMatch": "snakewar.referee.batch",
    "play_match": "snakewar.referee.batch",
    "run_batch": "snakewar.referee.batch",
    "MAX_REPLY_BYTES": "snakewar.referee.clients",
    "HttpSnakeClient": "snakewar.referee.clients",
    "InProcessClient": "snakewar.referee.clients",
    "LegacySnakeClient": "snakewar.referee.clients",
    "SnakeClient": "snakewar.referee.clients",
    "SnakeUnreachableError": "snakewar.referee.clients",
    "SnakeURLError": "snakewar.referee.clients",
    "V0SnakeClient": "snakewar.referee.clients",
    "new_http_client": "snakewar.referee.clients",
    "ConnectedSnake": "snakewar.referee.runner",
    "SnakeSpecError": "snakewar.referee.runner",
    "connect": "snakewar.referee.runner",
    "play_game": "snakewar.referee.runner",
    "BatchStats": "snakewar.referee.stats",
    "GameSummary": "snakewar.referee.stats",
    "summarize": "snakewar.referee.stats",
    "wilson_interval": "snakewar.referee.stats",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, _LAZY, name)


def __dir__() -> list[str]:
    return lazy_dir(__name__, _LAZY)
