"""Running games inside the server: referee tasks, live spectators, storage.

A :class:`GameManager` starts each game as an asyncio task on the server's event
loop, stores it as it runs (the store is synchronous, so writes go to a worker
thread, in order, one game at a time), and fans every frame out to any number of
spectators.  A spectator that connects late, or reconnects, first receives every
frame so far, then the live ones: :meth:`LiveGame.follow` is an async iterator
from any turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from snakewar.errors import SnakewarError
from snakewar.referee.batch import MatchSpec
from snakewar.referee.clients import new_http_client
from snakewar.referee.records import GameRecord, TurnRecord
from snakewar.referee.runner import connect, play_game
from snakewar.server.frames import frame, game_info

__all__ = ["GameLimitError", "GameManager", "GameStore", "LiveGame"]


class GameLimitError(SnakewarError, RuntimeError):
    """Raised when the server already runs as many games as it allows."""


class GameStore(Protocol):
    """What the manager needs from persistence (:class:`snakewar.server.store.Store`)."""

    def create_game(self, record: GameRecord, status: str = "running") -> None:
        """Store a new game and its turn-0 frame."""
        ...

    def add_turn(self, record: GameRecord, turn: TurnRecord) -> None:
        """Store one more turn."""
        ...

    def finish_game(self, record: GameRecord, status: str = "complete") -> None:
        """Store the result and the final status."""
        ...

    def set_status(self, game_id: str, status: str) -> None:
        """Change a game's status."""
        ...


@dataclass(eq=False)
class LiveGame:
    """A game the server is running now (or just finished): frames and spectators."""

    id: str
    spec: MatchSpec
    seed: int
    record: GameRecord | None = None
    frames: list[dict[str, Any]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    """When each frame was produced (Unix time): spectators can measure delivery delay."""
    status: str = "starting"
    error: str = ""
    task: asyncio.Task[None] | None = None
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    @property
    def finished(self) -> bool:
        """Whether no more frames will come."""
        return self.status in ("complete", "aborted", "cancelled", "error")

    def info(self) -> dict[str, Any]:
        """The engine API's ``Game`` object (``None``-safe before the board exists)."""
        if self.record is None:
            return {"ID": self.id, "Status": self.status}
        return game_info(self.record, self.status)

    async def _publish(self, new_frame: dict[str, Any] | None = None) -> None:
        async with self._changed:
            if new_frame is not None:
                self.frames.append(new_frame)
                self.times.append(time.time())
            self._changed.notify_all()

    async def follow(self, start: int = 0) -> AsyncIterator[tuple[dict[str, Any], float]]:
        """Yield ``(frame, produced_at)`` from index ``start``: those so far, then live ones."""
        index = start
        while True:
            async with self._changed:
                while index >= len(self.frames) and not self.finished:
                    await self._changed.wait()
                pending = list(zip(self.frames[index:], self.times[index:], strict=True))
                done = self.finished
            for item in pending:
                yield item
            index += len(pending)
            if done and index >= len(self.frames):
                return


class GameManager:
    """Creates, runs, cancels and tracks the server's games."""

    def __init__(self, store: GameStore | None, max_concurrent: int = 32) -> None:
        self.store = store
        self.max_concurrent = max_concurrent
        self.games: dict[str, LiveGame] = {}
        self._http: httpx.AsyncClient | None = None
        self._db_lock = asyncio.Lock()

    async def start(self) -> None:
        """Open the shared HTTP client (call from the running event loop)."""
        self._http = new_http_client()

    async def close(self) -> None:
        """Cancel running games (they are marked aborted) and close the client."""
        for live in list(self.games.values()):
            if live.task is not None and not live.task.done():
                live.task.cancel()
                with contextlib.suppress(BaseException):
                    await live.task
        if self._http is not None:
            await self._http.aclose()

    @property
    def running(self) -> int:
        """How many games are being played now."""
        return sum(1 for g in self.games.values() if not g.finished)

    async def _db(self, method: str, *args: Any) -> None:
        if self.store is None:
            return
        # One writer at a time keeps each game's rows in order (SQLite has one writer anyway).
        async with self._db_lock:
            await asyncio.to_thread(getattr(self.store, method), *args)

    async def create(self, spec: MatchSpec, seed: int | None = None) -> LiveGame:
        """Connect to the snakes and start a game; returns once it is running.

        Raises:
            GameLimitError: if too many games are running.
            SnakewarError: an unreachable snake, an unknown bot, impossible settings.
        """
        if self.running >= self.max_concurrent:
            raise GameLimitError(
                f"{self.running} games are running, the most this server allows "
                f"(max_concurrent_games={self.max_concurrent})"
            )
        assert self._http is not None, "GameManager.start() was not awaited"
        seed = seed if seed is not None else secrets.randbits(62) + 1
        spec.check(seed)  # impossible settings fail before any snake is called
        snakes = await connect(spec.snakes, spec.names, self._http, spec.timeout_ms)
        self._prune()
        live = LiveGame(str(uuid.uuid4()), spec, seed)
        started = asyncio.Event()
        failure: list[BaseException] = []
        self.games[live.id] = live

        async def on_start(record: GameRecord) -> None:
            live.record = record
            live.status = "running"
            await self._db("create_game", record, "running")
            await live._publish(frame(record.initial, record.snakes))
            started.set()

        async def on_turn(record: GameRecord, turn: TurnRecord) -> None:
            await self._db("add_turn", record, turn)
            await live._publish(frame(turn.after, record.snakes, turn.calls))

        async def run() -> None:
            try:
                await play_game(
                    spec.config(seed),
                    snakes,
                    timeout_ms=spec.timeout_ms,
                    max_turns=spec.max_turns,
                    source=spec.source,
                    on_start=on_start,
                    on_turn=on_turn,
                    game_id=live.id,
                )
                live.status = "complete"
                assert live.record is not None
                await self._db("finish_game", live.record, "complete")
            except asyncio.CancelledError:
                live.status = "cancelled"
                if live.record is not None:
                    await asyncio.shield(self._db("finish_game", live.record, "cancelled"))
                raise
            except Exception as exc:  # a bug must not take the server down
                live.status = "error"
                live.error = f"{type(exc).__name__}: {exc}"
                failure.append(exc)
                if live.record is not None:
                    await self._db("set_status", live.id, "aborted")
            finally:
                started.set()
                await live._publish()

        live.task = asyncio.create_task(run(), name=f"game {live.id}")
        await started.wait()
        if failure and live.record is None:
            self.games.pop(live.id, None)
            raise failure[0]
        return live

    async def cancel(self, game_id: str) -> bool:
        """Stop a running game; returns False if it was not running."""
        live = self.games.get(game_id)
        if live is None or live.finished or live.task is None:
            return False
        live.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await live.task
        return True

    def _prune(self, keep: int = 100) -> None:
        """Forget the oldest finished games beyond ``keep`` (the store still has them)."""
        finished = [g.id for g in self.games.values() if g.finished]
        for game_id in finished[: max(0, len(finished) - keep)]:
            del self.games[game_id]

    def live_games(self) -> Sequence[LiveGame]:
        """Games being played now, newest first."""
        return [g for g in reversed(self.games.values()) if not g.finished]
