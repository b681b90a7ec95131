"""The ``human`` entrant: a snake whose moves a person types (arrow keys or WASD).

A :class:`HumanMoves` is the one place a person's keys go, whatever reads them (the
terminal's raw keys, the browser page through the server's API); a :class:`HumanClient`
is the referee's view of it, a snake like any other.  A person is slow, so the client
has its own deadline per move (``human_timeout_ms``, seconds, not the bots' 500 ms);
past it the snake plays its last move again, as any snake that does not answer does.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque

from snakewar.games.battlesnake.bots.base import SnakeMetadata
from snakewar.games.battlesnake.records import CallOutcome, CallStatus
from snakewar.games.battlesnake.rules.wire import SnakeRequest

__all__ = [
    "DEFAULT_HUMAN_TIMEOUT_MS",
    "HUMAN",
    "HUMAN_COLOR",
    "MAX_HUMAN_TIMEOUT_MS",
    "MOVES",
    "SEATS",
    "HumanClient",
    "HumanMoves",
    "check_human_timeout",
    "human_timeout_of",
    "is_human",
]

HUMAN = "human"
"""The entrant argument of a person playing (``snakewar play human hunter``)."""

HUMAN_COLOR = "#e91e63"
"""The person's snake: a colour no built-in bot wears."""

DEFAULT_HUMAN_TIMEOUT_MS = 10_000
"""How long a person has for each move unless told otherwise."""

MAX_HUMAN_TIMEOUT_MS = 120_000
"""The longest a person may be waited for, a move: a game slot is never held for ever."""

MOVES = ("up", "down", "left", "right")
"""The moves a person can send."""

SEATS: dict[str, HumanClient] = {}
"""The person's snake of each game a server plays now, by game id (its page's keys go there)."""

_AHEAD = 2
"""Keys kept for the turns ahead: a quick double press turns twice, no more."""


class HumanMoves:
    """The keys a person pressed for one snake, fed from any thread, read by the referee.

    A move pressed while the referee waits answers that turn; one pressed in between
    waits for the next turn (at most two are kept, the oldest dropped first).
    """

    def __init__(self) -> None:
        self._moves: deque[str] = deque(maxlen=_AHEAD)
        self._lock = threading.Lock()
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future[None]] | None = None
        self.waiting_turn: int | None = None
        """The turn the referee waits for a move on (``None``: not waiting now)."""

    def push(self, move: str) -> None:
        """Queue ``move`` (thread-safe).

        Raises:
            ValueError: for anything but up, down, left or right.
        """
        if move not in MOVES:
            raise ValueError(f"move {move!r}: expected one of {', '.join(MOVES)}")
        with self._lock:
            self._moves.append(move)
            waiter = self._waiter
        if waiter is not None:
            loop, future = waiter

            def wake() -> None:
                if not future.done():
                    future.set_result(None)

            if not loop.is_closed():
                loop.call_soon_threadsafe(wake)

    @property
    def queued(self) -> int:
        """How many moves wait for their turn."""
        with self._lock:
            return len(self._moves)

    def _take(self) -> str | None:
        with self._lock:
            return self._moves.popleft() if self._moves else None

    async def next(self, turn: int, timeout_s: float) -> str | None:
        """The next move pressed, waiting up to ``timeout_s``; ``None`` if none came."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        self.waiting_turn = turn
        try:
            while (move := self._take()) is None:
                left = deadline - loop.time()
                if left <= 0:
                    return None
                future: asyncio.Future[None] = loop.create_future()
                with self._lock:
                    self._waiter = (loop, future)
                if self._moves:  # pressed between the take and the waiter's setting
                    continue
                try:
                    await asyncio.wait_for(future, left)
                except TimeoutError:
                    pass
                finally:
                    with self._lock:
                        self._waiter = None
            return move
        finally:
            self.waiting_turn = None


class HumanClient:
    """A person's snake, as the referee sees it: moves come from a :class:`HumanMoves`."""

    source = HUMAN

    def __init__(self, moves: HumanMoves, timeout_ms: int = DEFAULT_HUMAN_TIMEOUT_MS) -> None:
        self.moves = moves
        self.timeout_ms = timeout_ms

    async def info(self) -> SnakeMetadata:
        """The person's snake's looks."""
        return SnakeMetadata(author="you", color=HUMAN_COLOR, head="smile", tail="curled")

    async def start(self, request: SnakeRequest) -> CallOutcome:
        """Nothing to tell a person at the start: the board shows it."""
        return CallOutcome()

    async def move(self, request: SnakeRequest) -> CallOutcome:
        """The next key pressed, or a timeout after ``timeout_ms``."""
        started = time.perf_counter()
        move = await self.moves.next(request.turn, self.timeout_ms / 1000)
        if move is None:
            return CallOutcome(
                CallStatus.TIMEOUT,
                self.timeout_ms,
                error=f"no key pressed within {self.timeout_ms} ms",
            )
        return CallOutcome(latency_ms=round((time.perf_counter() - started) * 1000), move=move)

    async def end(self, request: SnakeRequest) -> CallOutcome:
        """Nothing to tell a person at the end: the board shows it."""
        return CallOutcome()


def check_human_timeout(timeout_ms: int) -> int:
    """``timeout_ms`` if it is a person's time for a move (1 ms to 120 s).

    Raises:
        SnakeSpecError: for a value out of that range.
    """
    if not 1 <= timeout_ms <= MAX_HUMAN_TIMEOUT_MS:
        from snakewar.games.battlesnake.referee.runner import SnakeSpecError

        raise SnakeSpecError(
            f"human timeout {timeout_ms}: expected milliseconds from 1 to {MAX_HUMAN_TIMEOUT_MS}"
        )
    return timeout_ms


def human_timeout_of(query: str) -> int:
    """The per-move time a ``human?timeout=MS`` entrant asks for (``""``: the default).

    >>> human_timeout_of(""), human_timeout_of("timeout=30000")
    (10000, 30000)

    Raises:
        SnakeSpecError: anything but ``timeout=MS`` with MS from 1 to 120000.
    """
    if not query:
        return DEFAULT_HUMAN_TIMEOUT_MS
    name, _, value = query.partition("=")
    if name != "timeout" or not value.isdigit() or len(value) > 6:
        from snakewar.games.battlesnake.referee.runner import SnakeSpecError

        raise SnakeSpecError(
            f"snake 'human?{query[:40]}': expected human or human?timeout=MS (milliseconds)"
        )
    return check_human_timeout(int(value))


def is_human(source: str) -> bool:
    """Whether an entrant's text seats a person (``human``, ``human?timeout=MS``).

    >>> is_human("human"), is_human("human?timeout=5000"), is_human("humanoid")
    (True, True, False)
    """
    return source == HUMAN or source.startswith(HUMAN + "?")
