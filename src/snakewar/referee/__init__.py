"""The referee machinery every game shares: bot workers, processes, sandboxes, outbound.

What is here names no game: :mod:`~snakewar.referee.workers` (built-in bots in worker
processes that can be killed), :mod:`~snakewar.referee.process` and
:mod:`~snakewar.referee.sandbox` (uploaded bots as child processes),
:mod:`~snakewar.referee.outbound` and :mod:`~snakewar.referee.addresses` (the outbound
address policy), :mod:`~snakewar.referee.uploads`, :mod:`~snakewar.referee.transcript`
and :func:`wilson_interval`.  Each game's own referee lives in its package
(``snakewar.games.<game>.referee``); the names one game's referee exported from here
before it moved are still importable, with a :class:`DeprecationWarning`, for one
release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from snakewar._lazy import lazy_attribute, lazy_dir, warn_moved

if TYPE_CHECKING:
    from snakewar.games.battlesnake.records import (
        CallOutcome,
        CallStatus,
        GameRecord,
        SnakeEntry,
        TurnRecord,
        derive_ids,
    )
    from snakewar.games.battlesnake.referee.batch import SnakeMatch, play_match, run_batch
    from snakewar.games.battlesnake.referee.clients import (
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
    from snakewar.games.battlesnake.referee.runner import (
        ConnectedSnake,
        SnakeSpecError,
        connect,
        play_game,
    )
    from snakewar.games.battlesnake.referee.stats import BatchStats, GameSummary, summarize
    from snakewar.referee.intervals import wilson_interval

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

# Each public name and its module, imported on first use: playing one game does not
# load another game's referee and its HTTP client.
_LAZY: dict[str, str] = {
    "CallOutcome": "snakewar.games.battlesnake.records",
    "CallStatus": "snakewar.games.battlesnake.records",
    "GameRecord": "snakewar.games.battlesnake.records",
    "SnakeEntry": "snakewar.games.battlesnake.records",
    "TurnRecord": "snakewar.games.battlesnake.records",
    "derive_ids": "snakewar.games.battlesnake.records",
    "SnakeMatch": "snakewar.games.battlesnake.referee.batch",
    "play_match": "snakewar.games.battlesnake.referee.batch",
    "run_batch": "snakewar.games.battlesnake.referee.batch",
    "MAX_REPLY_BYTES": "snakewar.games.battlesnake.referee.clients",
    "HttpSnakeClient": "snakewar.games.battlesnake.referee.clients",
    "InProcessClient": "snakewar.games.battlesnake.referee.clients",
    "LegacySnakeClient": "snakewar.games.battlesnake.referee.clients",
    "SnakeClient": "snakewar.games.battlesnake.referee.clients",
    "SnakeUnreachableError": "snakewar.games.battlesnake.referee.clients",
    "SnakeURLError": "snakewar.games.battlesnake.referee.clients",
    "V0SnakeClient": "snakewar.games.battlesnake.referee.clients",
    "new_http_client": "snakewar.games.battlesnake.referee.clients",
    "ConnectedSnake": "snakewar.games.battlesnake.referee.runner",
    "SnakeSpecError": "snakewar.games.battlesnake.referee.runner",
    "connect": "snakewar.games.battlesnake.referee.runner",
    "play_game": "snakewar.games.battlesnake.referee.runner",
    "BatchStats": "snakewar.games.battlesnake.referee.stats",
    "GameSummary": "snakewar.games.battlesnake.referee.stats",
    "summarize": "snakewar.games.battlesnake.referee.stats",
    "wilson_interval": "snakewar.referee.intervals",
}


_GENERIC = frozenset({"wilson_interval"})
"""The names above whose home is this package; every other one moved into its game."""


def __getattr__(name: str) -> Any:
    if name in _LAZY and name not in _GENERIC:
        # Once per name: lazy_attribute keeps the value here, so this hook is not asked again.
        warn_moved(f"{__name__}.{name}", f"{_LAZY[name]}.{name}")
    return lazy_attribute(__name__, _LAZY, name)


def __dir__() -> list[str]:
    return lazy_dir(__name__, _LAZY)
