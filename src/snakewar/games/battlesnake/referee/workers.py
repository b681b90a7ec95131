"""Battlesnake's built-in bots in bot worker processes: the referee's client of a seat.

A :class:`WorkerClient` is a :class:`~snakewar.games.battlesnake.referee.clients.SnakeClient`
whose bot plays in a worker of a :class:`~snakewar.referee.workers.BotPool` (see that
module for the pool: killable workers, deadlines, restarts).  The worker builds the
bot through :mod:`snakewar.games.battlesnake.bots.worker`.
"""

from __future__ import annotations

import time
from typing import Any

from snakewar.errors import SnakewarError
from snakewar.games.battlesnake import NAME
from snakewar.games.battlesnake.bots import make_bot
from snakewar.games.battlesnake.bots.base import SnakeMetadata
from snakewar.games.battlesnake.records import CallOutcome, CallStatus
from snakewar.games.battlesnake.referee.clients import MIN_INFO_TIMEOUT_MS, SnakeUnreachableError
from snakewar.games.battlesnake.rules.wire import (
    MAX_SHOUT_LENGTH,
    SnakeRequest,
    move_reply_from_api,
)
from snakewar.referee.workers import BotPool, BotSeat

__all__ = ["WorkerClient"]


class WorkerClient:
    """A built-in bot played in a :class:`BotPool` worker.

    The spec is checked, and the metadata read, here and now; :meth:`info` binds a
    worker (waiting for one as long as an HTTP snake's ``GET /`` may take), and
    :meth:`aclose` gives it back.  Calls become :class:`CallOutcome` s exactly as
    :class:`~snakewar.games.battlesnake.referee.clients.InProcessClient`'s do; a timeout
    kills the worker and the next call goes to a fresh bot (see
    :mod:`snakewar.referee.workers`).

    Raises:
        UnknownBotError: for an unknown bot or a bad option.
    """

    def __init__(self, pool: BotPool, spec: str, timeout_ms: int = 500) -> None:
        self.metadata: SnakeMetadata = make_bot(spec).info()
        self.pool = pool
        self.spec = spec
        self.source = f"builtin:{spec}"
        self.timeout_ms = timeout_ms
        self.seat: BotSeat | None = None

    async def info(self) -> SnakeMetadata:
        """Bind a worker for this game and return the bot's metadata.

        Raises:
            SnakeUnreachableError: if no worker is free in time, naming the pool's state.
        """
        if self.seat is None:
            wait_ms = max(self.timeout_ms, MIN_INFO_TIMEOUT_MS)
            self.seat = await self._bind(wait_ms / 1000)
        return self.metadata

    async def _bind(self, wait_s: float) -> BotSeat:
        try:
            return await self.pool.bind(
                NAME,
                self.spec,
                wait_s=wait_s,
                restart=True,
                call_timeout_s=self.timeout_ms / 1000,
            )
        except SnakewarError as exc:
            raise SnakeUnreachableError(f"snake {self.source}: {exc}") from None

    async def _call(self, kind: str, request: SnakeRequest) -> tuple[CallOutcome, Any]:
        started = time.perf_counter()
        if self.seat is None:
            try:
                self.seat = await self._bind(self.timeout_ms / 1000)
            except SnakeUnreachableError as exc:
                return CallOutcome(CallStatus.TIMEOUT, self.timeout_ms, error=str(exc)[:200]), None
        left = self.timeout_ms / 1000 - (time.perf_counter() - started)
        reply = await self.seat.call(kind, request, max(left, 0.0))
        if reply.status == "timeout":
            error = f"no reply within {self.timeout_ms} ms (the worker was killed)"
            return CallOutcome(CallStatus.TIMEOUT, self.timeout_ms, error=error), None
        latency = round((time.perf_counter() - started) * 1000)
        if not reply.ok:
            return CallOutcome(CallStatus.BOT_ERROR, latency, error=reply.error[:200]), None
        return CallOutcome(latency_ms=latency), reply.value

    async def start(self, request: SnakeRequest) -> CallOutcome:
        """Call the bot's ``start`` (and remember it for a replacement bot)."""
        outcome, _ = await self._call("start", request)
        if self.seat is not None:
            self.seat.remember(("start", request))
        return outcome

    async def move(self, request: SnakeRequest) -> CallOutcome:
        """Call the bot's ``move`` and validate its answer like an HTTP reply."""
        outcome, value = await self._call("move", request)
        if not outcome.ok:
            return outcome
        try:
            parsed = move_reply_from_api(value)
        except SnakewarError as exc:
            return CallOutcome(CallStatus.INVALID_MOVE, outcome.latency_ms, error=str(exc)[:200])
        return CallOutcome(
            latency_ms=outcome.latency_ms,
            move=parsed.move,
            shout=parsed.shout[:MAX_SHOUT_LENGTH],
        )

    async def end(self, request: SnakeRequest) -> CallOutcome:
        """Call the bot's ``end``."""
        return (await self._call("end", request))[0]

    async def aclose(self) -> None:
        """Give the worker back to the pool (killed if a call was cut off)."""
        seat, self.seat = self.seat, None
        if seat is not None:
            await seat.release()
