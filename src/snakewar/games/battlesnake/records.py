"""What the referee records: per call, per turn and per game.

Everything a snake did wrong is a :class:`CallStatus` value in a record, never an
exception.  These records are what replay files, summaries, batch statistics and
the server store.

This is the referee's vocabulary (HTTP statuses, timeouts, latencies), not the rules:
it is its own layer, ``records`` (``tests/test_layers.py``), over the pure rules,
which never import it, and under the replay formats that store it and the referee
(:mod:`snakewar.games.battlesnake.referee`) that makes it, so that neither of those
two imports the other for it.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from snakewar.games.battlesnake.rules.game import GameConfig, GameResult
from snakewar.games.battlesnake.rules.types import BoardState

__all__ = [
    "CallOutcome",
    "CallStatus",
    "GameRecord",
    "SnakeEntry",
    "TimingRules",
    "TurnRecord",
    "derive_ids",
    "notebook_html",
]


class CallStatus(StrEnum):
    """How one request to a snake went."""

    OK = "ok"
    TIMEOUT = "timeout"
    """No complete reply within the game's timeout."""
    CONNECTION_ERROR = "connection-error"
    """The connection was refused, reset or closed early."""
    HTTP_STATUS = "http-status"
    """The reply's HTTP status was not 200."""
    BAD_JSON = "bad-json"
    """The reply was not a JSON document."""
    INVALID_MOVE = "invalid-move"
    """The reply was JSON but held no valid move (or was otherwise malformed)."""
    TOO_LARGE = "too-large"
    """The reply was larger than the referee accepts."""
    BOT_ERROR = "bot-error"
    """An in-process bot raised an exception."""


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """The result of one request to one snake.

    ``latency_ms`` is the time from sending the request to having the whole reply
    (the timeout, for a timeout).  ``move`` is the move the snake *played*: the
    reply's move when ``status`` is OK, otherwise the snake's last valid move
    (``up`` at first), as the official engine does.  ``http_status`` is ``None``
    for in-process bots and when no HTTP reply arrived.

    Under the unofficial timing rules (:class:`TimingRules`), ``bank_ms`` is the
    snake's time bank left after this call (``None``: the game has no bank) and
    ``first_try`` the try that timed out before this one, when the call was retried.
    """

    status: CallStatus = CallStatus.OK
    latency_ms: int = 0
    http_status: int | None = None
    error: str = ""
    move: str = ""
    shout: str = ""
    bank_ms: int | None = None
    first_try: CallOutcome | None = None

    @property
    def ok(self) -> bool:
        """Whether the snake answered correctly."""
        return self.status is CallStatus.OK


@dataclass(frozen=True, slots=True)
class TimingRules:
    """Optional referee timing settings: NOT the official rules (which have neither).

    ``time_bank_ms``: each snake has this many milliseconds in all that it may spend
    beyond the per-move timeout over the game (Kaggle's "overage time"): a ``/move``
    may take up to the timeout plus what is left of the bank, and what it takes
    beyond the timeout is drawn from the bank; a move that times out empties it.
    ``retry_timeout``: a ``/move`` that timed out is asked once more, with the same
    request, before the snake's last move is played for it.

    Snakes still see the per-move timeout as ``game.timeout``; the replay records
    both settings and, per call, the bank left and the retried try.
    """

    time_bank_ms: int = 0
    retry_timeout: bool = False

    @property
    def official(self) -> bool:
        """Whether these are the official rules' timing (no bank, no retry)."""
        return self.time_bank_ms == 0 and not self.retry_timeout

    def label(self) -> str:
        """A short description, e.g. ``bank 2000 ms, retry on timeout`` (empty: official)."""
        parts = []
        if self.time_bank_ms:
            parts.append(f"bank {self.time_bank_ms} ms")
        if self.retry_timeout:
            parts.append("retry on timeout")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class SnakeEntry:
    """A snake taking part in a game: its id, name, where it lives and its metadata.

    ``source`` is what the user gave (``builtin:hunter``, a URL, ``v0:URL``, ``legacy:URL``).
    """

    id: str
    name: str
    source: str
    author: str = ""
    color: str = "#888888"
    head: str = "default"
    tail: str = "default"
    version: str = ""
    apiversion: str = "1"


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One turn: the calls made on ``state_before`` and the state they led to.

    ``turn`` is the turn number of the state the snakes saw (``after.turn`` is
    ``turn + 1``).  ``calls`` has one outcome per snake that was asked, in board
    order; ``outcome.move`` is what was played.
    """

    turn: int
    calls: dict[str, CallOutcome]
    after: BoardState

    @property
    def moves(self) -> dict[str, str]:
        """The moves played, by snake id."""
        return {sid: call.move for sid, call in self.calls.items()}


@dataclass(slots=True)
class GameRecord:
    """A whole refereed game.

    ``initial`` is the turn-0 state; ``turns[i].after`` the state after turn ``i``.
    ``start`` and ``end`` hold the outcome of each snake's ``/start`` and ``/end``.
    """

    id: str
    config: GameConfig
    timeout_ms: int
    snakes: list[SnakeEntry]
    initial: BoardState
    turns: list[TurnRecord] = field(default_factory=list)
    start: dict[str, CallOutcome] = field(default_factory=dict)
    end: dict[str, CallOutcome] = field(default_factory=dict)
    result: GameResult | None = None
    source: str = ""
    timing: TimingRules = field(default_factory=TimingRules)
    """The unofficial timing rules the game was refereed under (default: the official)."""
    forked_from: dict[str, Any] | None = None
    """Where a game played on from a position came from: ``{"game": ID, "turn": N}`` for
    a turn of another game, ``{}`` for a drawn position; ``None``: set up from its seed."""

    @property
    def final_state(self) -> BoardState:
        """The last state of the game so far."""
        return self.turns[-1].after if self.turns else self.initial

    def _repr_html_(self) -> str | None:
        """The game's viewer, inline (Jupyter shows a record this way)."""
        return notebook_html(self)

    def snake(self, snake_id: str) -> SnakeEntry:
        """Return the entry of ``snake_id``.

        Raises:
            KeyError: if no such snake plays.
        """
        for entry in self.snakes:
            if entry.id == snake_id:
                return entry
        raise KeyError(snake_id)


def derive_ids(seed: int, count: int) -> tuple[str, list[str]]:
    """Return ``(game_id, snake_ids)`` derived from the seed alone.

    The official CLI draws fresh UUIDs, so its games cannot be replayed from the
    seed; Snakewar derives the snakes' (UUID-shaped, so snakes that expect UUIDs are
    happy), which makes the same seed and snake list give the identical board.  The
    referee gives each game it plays a fresh id of its own (snakes key their state by
    it); the derived game id names games made without one (a batch's records).

    >>> derive_ids(7, 2) == derive_ids(7, 2)
    True
    """
    game_id = _uuid(f"snakewar-game:{seed}")
    return game_id, [_uuid(f"snakewar-snake:{seed}:{i}") for i in range(count)]


def _uuid(text: str) -> str:
    digest = hashlib.sha256(text.encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def notebook_html(item: object) -> str | None:
    """``item`` (a record, a replay) as the game's inline viewer, or ``None``.

    The viewer sits above the records in the package's layers: it is found through the
    registry of games (its adapter's ``notebook_html``) when a notebook shows ``item``,
    so a record or a replay shows itself without :mod:`snakewar.games.battlesnake.notebook`
    imported first.
    """
    from snakewar.adapters import get_game
    from snakewar.games.battlesnake import NAME

    return get_game(NAME).notebook_html(item)
