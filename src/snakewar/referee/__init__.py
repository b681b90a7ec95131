"""The referee: plays games between snakes over HTTP or in-process.

:func:`connect` turns snake arguments (URLs, ``builtin:NAME``, ``v0:URL``, ``legacy:URL``)
into ready clients, :func:`play_game` referees one game into a
:class:`GameRecord`, and :func:`run_batch` plays many on worker processes.
Whatever a snake does wrong is recorded as a :class:`CallStatus`; it never raises.
"""

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
