"""Live fan-out: each frame of a live game is encoded once, then sent to every follower.

A :class:`FrameFeed` holds a live game's frames (views and production times) and, per
wire format, the frames encoded as that format's text, each frame encoded once when its
first follower needs it.  A follower is a cursor into that list: a follower who joins
late is sent the cached history, then the live frames, and no follower costs a query or
a serialization.  A follower whose connection cannot keep up falls behind; one more than
:data:`MAX_FOLLOWER_LAG` frames behind the game (counting the frames made since it
joined, not the history) is dropped (:class:`FollowerLagError`) rather than sent a
burst, and never delays the others: each follower sends on its own task.

A feed that stops without its game ending (the server stopping while it mirrors a game
played elsewhere, :mod:`snakewar.server.mirror`) is closed (:meth:`FrameFeed.close`): its
followers' streams raise :class:`FeedClosedError`, and they are told to reconnect
(:data:`RESTART_CLOSE_CODE`) rather than that the game ended.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from snakewar.errors import SnakewarError

__all__ = [
    "LAGGING_CLOSE_CODE",
    "MAX_FOLLOWER_LAG",
    "RESTART_CLOSE_CODE",
    "Encoder",
    "FeedClosedError",
    "FollowerLagError",
    "FrameFeed",
]

MAX_FOLLOWER_LAG = 256
"""The most frames a follower may be behind the game before it is dropped."""

LAGGING_CLOSE_CODE = 1013
"""The websocket close code of a dropped follower ("try again later"): it may reconnect,
and is then sent the history from the cache."""

RESTART_CLOSE_CODE = 1012
"""The websocket close code of a follower whose feed closed before its game ended
("service restart"): it may reconnect, to this server or another, from its next frame."""

Encoder = Callable[[Mapping[str, Any], float], str]
"""Encodes one frame (its view and production time) as a wire format's message text."""


class FollowerLagError(SnakewarError):
    """Raised by :meth:`FrameFeed.stream` when the follower fell too far behind."""


class FeedClosedError(SnakewarError):
    """Raised by :meth:`FrameFeed.stream` when the feed closed before its game ended."""


class _Follower:
    __slots__ = ("index", "joined", "pump")

    def __init__(self, index: int, joined: int) -> None:
        self.index = index
        self.joined = joined
        self.pump: asyncio.Task[None] | None = None

    def lag(self, frames: int) -> int:
        # The history a follower is sent on joining is not lag: only frames made since.
        return frames - max(self.index, self.joined)


class FrameFeed:
    """The frames of one live game, in order, and the followers streaming them.

    Frames are appended with :meth:`publish` and the feed ends with :meth:`finish`; both
    are synchronous, so the game never waits for its followers.
    """

    def __init__(self) -> None:
        self.views: list[Mapping[str, Any]] = []
        self.times: list[float] = []
        """When each frame was produced (Unix time): followers can measure the delay."""
        self.finished = False
        self.closed = False
        self.restarted = False
        """Closed before the game ended (:meth:`close`): its followers must reconnect."""
        self._encoded: dict[str, list[str]] = {}
        self._waiters: list[asyncio.Future[None]] = []
        self._followers: set[_Follower] = set()

    def __len__(self) -> int:
        return len(self.views)

    @property
    def followers(self) -> int:
        """How many followers are streaming now."""
        return len(self._followers)

    def publish(self, view: Mapping[str, Any], produced: float) -> None:
        """Append a frame and wake the followers."""
        self.views.append(view)
        self.times.append(produced)
        newest = len(self.views)
        for follower in self._followers:
            # A follower stuck in a send (its client reads too slowly) is only noticed here.
            if follower.lag(newest) > MAX_FOLLOWER_LAG and follower.pump is not None:
                follower.pump.cancel()
        self._wake()

    def finish(self) -> None:
        """Say that no more frames will come."""
        self.finished = True
        self._wake()

    def close(self, *, restarted: bool = False) -> None:
        """Stop the feed before its game ended: followers get :class:`FeedClosedError`.

        ``restarted``: because the game is played again from turn 0 (its worker died),
        so the frames sent so far are void; followers are told so (:attr:`restarted`).
        """
        self.closed = True
        self.restarted = restarted
        self._wake()

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():  # a cancelled follower's
                waiter.set_result(None)

    def encoded(self, wire_format: str, encoder: Encoder, start: int = 0) -> Sequence[str]:
        """Frames from index ``start`` as ``wire_format`` text, encoding each frame once.

        ``encoder`` encodes the frames no follower of this format has needed yet; the
        same name must always come with the same encoder.
        """
        cache = self._encoded.setdefault(wire_format, [])
        for index in range(len(cache), len(self.views)):
            cache.append(encoder(self.views[index], self.times[index]))
        return cache[start:]

    async def _next(self, index: int) -> None:
        # A future of its own for each waiting follower: cancelling one wakes no other,
        # and a frame wakes each of them once (asyncio.Event would also search its list
        # of waiters as each one leaves: quadratic in the followers).
        while index >= len(self.views) and not self.finished and not self.closed:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter

    async def stream(
        self,
        wire_format: str,
        encoder: Encoder,
        send: Callable[[str], Awaitable[None]],
        start: int = 0,
    ) -> None:
        """Send every frame from ``start`` through ``send``: those so far, then live ones.

        Returns once the game finished and every frame was sent.

        Raises:
            FollowerLagError: the follower fell more than :data:`MAX_FOLLOWER_LAG`
                frames behind (its sends did not keep up); nothing more is sent.
            FeedClosedError: the feed closed before the game ended (:meth:`close`).
        """
        follower = _Follower(start, len(self.views))

        async def pump() -> None:
            while True:
                await self._next(follower.index)
                if self.closed:
                    raise FeedClosedError
                for text in self.encoded(wire_format, encoder, follower.index):
                    if follower.lag(len(self.views)) > MAX_FOLLOWER_LAG:
                        raise FollowerLagError
                    await send(text)
                    follower.index += 1
                if self.finished and follower.index >= len(self.views):
                    return

        follower.pump = asyncio.create_task(pump())
        self._followers.add(follower)
        try:
            await asyncio.shield(follower.pump)
        except asyncio.CancelledError:
            if follower.pump.cancelled() and follower.lag(len(self.views)) > MAX_FOLLOWER_LAG:
                raise FollowerLagError from None
            follower.pump.cancel()  # our caller was cancelled: stop sending too
            with contextlib.suppress(BaseException):
                await follower.pump
            raise
        finally:
            self._followers.discard(follower)
