"""Followers of stored games: frames read and encoded once, sent in turns, and capped.

Every follower of a stored game is sent the same frames, so :class:`StoredPages` reads
each page of a game's frames (:data:`PAGE` at a time) from the store once, encodes it
there, on the store's threads, and keeps it for all the game's followers: a page being
read is waited for, not read again, and the least recently used pages are dropped past
a byte budget.  (Each follower used to read and encode every page itself: 200 of them
kept the store's threads busy for half a minute, and every other request that needed
the store waited behind them.)

Sending is what is left on the event loop: each message is framed and written there.
A follower sends a page in chunks (at most :data:`CHUNK_FRAMES` frames and
:data:`CHUNK_BYTES` bytes) and waits its turn before each (:class:`SendTurns`): at most
:data:`CHUNKS_PER_TURN` chunks go out per turn of the loop, in the order they were
asked for, so however many followers stream, other clients' requests are served every
few milliseconds.  What a follower has queued is bounded by the server's flow control:
each send waits while the connection's write buffer is full (64 KiB), so a client that
reads slowly, or not at all, holds one page and that buffer, and blocks no one.

:class:`FollowerLimits` caps how many follow stored games: per game, per client (its
address, an IPv6 client its /64: :func:`~snakewar.server.safety.address_key`) and in
all.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, ParamSpec, TypeVar

from snakewar.errors import BusyError
from snakewar.storage import AsyncStore, GameNotFoundError, GameRow

P = ParamSpec("P")
T = TypeVar("T")

__all__ = [
    "CACHE_BYTES",
    "CHUNKS_PER_TURN",
    "CHUNK_BYTES",
    "CHUNK_FRAMES",
    "FRAME_PREFIX",
    "PAGE",
    "FollowerLimitError",
    "FollowerLimits",
    "Page",
    "SendTurns",
    "StoredFollowing",
    "StoredPages",
    "encode_frame",
    "encode_stored_frame",
]

PAGE: Final = 100
"""Frames read from the store, and kept, at a time."""

FRAME_PREFIX: Final = '{"Type":"frame","Data":'
"""How every frame message without a ``Time`` starts: the rest is the view's JSON and
``}``, so a reader of the pages (the engine API's ``/frames``) takes the views out of
the stored games' encoded messages."""


def encode_frame(view: Mapping[str, Any], produced: float | None) -> str:
    """A ``{"Type": "frame"}`` message of a game's events websocket, as its text.

    The event format of the engine API a board viewer reads (the default game's); the
    followers' pages hold stored frames in it (:func:`encode_stored_frame`), so the
    server that builds them names no game.
    """
    message: dict[str, Any] = {"Type": "frame", "Data": view}
    if produced is not None:
        # "Time" (when the frame was made) is extra: the official board ignores it.
        message["Time"] = produced
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def encode_stored_frame(view: Mapping[str, Any]) -> str:
    """A stored frame's ``{"Type": "frame"}`` message (it has no ``Time``)."""
    return encode_frame(view, None)


CHUNK_FRAMES: Final = 8
"""The most frames a follower sends in one turn."""

CHUNK_BYTES: Final = 64 * 1024
"""The most bytes (of message text) a follower sends in one turn, past its first frame."""

CHUNKS_PER_TURN: Final = 2
"""The most chunks all followers together send in one turn of the event loop."""

CACHE_BYTES: Final = 64 * 1024 * 1024
"""How much encoded frames :class:`StoredPages` keeps by default."""


class FollowerLimitError(BusyError):
    """Raised when one more follower of a stored game would pass a cap.

    The caps are per game, per client and in all; the message names which.
    """


@dataclass(frozen=True, slots=True)
class Page:
    """Up to :data:`PAGE` consecutive frames of a game, each encoded as message text.

    Attributes:
        texts: the messages, in turn order.
        bounds: where each chunk starts in ``texts`` (see :meth:`chunks`).
        size: the memory the texts take, in bytes.
    """

    texts: tuple[str, ...]
    bounds: tuple[int, ...]
    size: int

    @classmethod
    def of(cls, texts: tuple[str, ...]) -> Page:
        """The page of ``texts``, in chunks of :data:`CHUNK_FRAMES` and :data:`CHUNK_BYTES`.

        A frame larger than :data:`CHUNK_BYTES` is a chunk alone.
        """
        bounds: list[int] = []
        chunk_bytes = 0
        for index, text in enumerate(texts):
            if (
                not bounds
                or index - bounds[-1] >= CHUNK_FRAMES
                or chunk_bytes + len(text) > CHUNK_BYTES
            ):
                bounds.append(index)
                chunk_bytes = 0
            chunk_bytes += len(text)
        return cls(texts, tuple(bounds), sum(sys.getsizeof(t) for t in texts))

    def __len__(self) -> int:
        return len(self.texts)

    def chunks(self) -> Iterator[tuple[str, ...]]:
        """The texts, chunk by chunk."""
        if not self.texts:
            return
        ends = (*self.bounds[1:], len(self.texts))
        for start, end in zip(self.bounds, ends, strict=True):
            yield self.texts[start:end]


class StoredPages:
    """Stored games' frames, a page at a time, each page read and encoded once.

    Only pages that cannot change are kept: full pages (frames are only ever added
    after the last one), and a finished game's last page.  Its store calls (pages, and
    the games looked up for followers) take at most ``lanes`` of the store's threads at
    once, so that followers, however many, leave the others to other requests; lookups
    of one game asked for while one is pending share it.

    Args:
        store: the store, whose threads read and encode the pages.
        encode: a frame's view as its message text (run on the store's threads).
        max_bytes: the most memory the pages kept may take; the least recently used go
            first.  Pages being sent are held by their followers too, on top of this.
        lanes: how many of the store's threads its calls may take at once.
    """

    def __init__(
        self,
        store: AsyncStore,
        encode: Callable[[Mapping[str, Any]], str],
        max_bytes: int = CACHE_BYTES,
        lanes: int = 1,
    ) -> None:
        self._store = store
        self._encode = encode
        self.max_bytes = max_bytes
        self._lanes = asyncio.Semaphore(lanes)
        self._pages: collections.OrderedDict[tuple[str, int], Page] = collections.OrderedDict()
        self._loading: dict[tuple[str, int], asyncio.Future[Page]] = {}
        self._lookups: dict[str, asyncio.Future[tuple[GameRow, int]]] = {}
        self.bytes = 0
        """The memory the pages kept take now."""
        self.reads = 0
        """Pages read from the store so far (each once, while it stays kept)."""
        self.lookups = 0
        """Games looked up in the store so far."""

    async def _call(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        async with self._lanes:
            return await self._store.run(fn, *args, **kwargs)

    def _look_up(self, game_id: str) -> tuple[GameRow, int]:
        games = self._store.store.games
        row = games.get(game_id)
        if row is None:
            raise GameNotFoundError(game_id)
        return row, games.frame_count(game_id)

    async def game(self, game_id: str) -> tuple[GameRow, int]:
        """A stored game and how many frames it has, as the store has them now.

        Raises:
            GameNotFoundError: if the game is not stored.
        """
        lookup = self._lookups.get(game_id)
        if lookup is None:
            self.lookups += 1
            lookup = asyncio.ensure_future(self._call(self._look_up, game_id))
            self._lookups[game_id] = lookup
            lookup.add_done_callback(functools.partial(self._looked_up, game_id))
        return await asyncio.shield(lookup)

    def _looked_up(self, game_id: str, lookup: asyncio.Future[tuple[GameRow, int]]) -> None:
        if self._lookups.get(game_id) is lookup:
            del self._lookups[game_id]
        if not lookup.cancelled():
            lookup.exception()  # each waiter has it; none left: not "never retrieved"

    def _read(self, game_id: str, index: int) -> Page:
        # On a store thread: the query, the JSON decoding and the encoding all stay off
        # the event loop.
        views = self._store.store.games.frames(game_id, index * PAGE, PAGE)
        return Page.of(tuple(self._encode(view) for view in views))

    async def page(self, game_id: str, index: int, *, finished: bool) -> Page:
        """Page ``index`` of a stored game's frames (frames ``index * PAGE`` on).

        Args:
            game_id: the game.
            index: the page (>= 0); past the last frame, an empty page.
            finished: the game is over (its last page is kept too).

        Raises:
            GameNotFoundError: if the game is not stored (any more).
        """
        key = (game_id, index)
        page = self._pages.get(key)
        if page is not None:
            self._pages.move_to_end(key)
            return page
        loading = self._loading.get(key)
        if loading is None:
            self.reads += 1
            loading = asyncio.ensure_future(self._call(self._read, game_id, index))
            self._loading[key] = loading
            loading.add_done_callback(functools.partial(self._loaded, key, finished))
        # Shielded: a follower that leaves does not cancel a read others wait for.
        return await asyncio.shield(loading)

    def _loaded(self, key: tuple[str, int], finished: bool, loading: asyncio.Future[Page]) -> None:
        if self._loading.get(key) is loading:
            del self._loading[key]
        if loading.cancelled() or loading.exception() is not None:
            return  # each waiter gets the error; the next one asks the store again
        page = loading.result()
        if (len(page) < PAGE and not finished) or page.size > self.max_bytes:
            return
        self._pages[key] = page
        self.bytes += page.size
        while self.bytes > self.max_bytes:
            _, dropped = self._pages.popitem(last=False)
            self.bytes -= dropped.size


class SendTurns:
    """Turns of the event loop for followers' chunks, first asked, first served.

    :meth:`turn` returns in a later turn of the loop than it was called in, and at most
    ``per_turn`` callers return in each: the time the loop spends on them between two
    looks at its sockets is bounded, however many there are.

    Args:
        per_turn: how many callers go on per turn of the loop.
    """

    def __init__(self, per_turn: int = CHUNKS_PER_TURN) -> None:
        if per_turn < 1:
            raise ValueError(f"per_turn {per_turn}: expected at least 1")
        self.per_turn = per_turn
        self._queue: collections.deque[asyncio.Future[None]] = collections.deque()
        self._scheduled = False

    @property
    def waiting(self) -> int:
        """How many callers wait for their turn (a cancelled one until its turn comes)."""
        return len(self._queue)

    async def turn(self) -> None:
        """Wait for this caller's turn."""
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        self._queue.append(waiter)
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._next, loop)
        await waiter

    def _next(self, loop: asyncio.AbstractEventLoop) -> None:
        # A woken caller runs in the next turn of the loop, and so does this again: each
        # turn runs at most per_turn callers, then the loop looks at its sockets.
        granted = 0
        while self._queue and granted < self.per_turn:
            waiter = self._queue.popleft()
            if not waiter.done():  # a cancelled caller's
                waiter.set_result(None)
                granted += 1
        if self._queue:
            loop.call_soon(self._next, loop)
        else:
            self._scheduled = False


class FollowerLimits:
    """Caps on followers of stored games: per game, per client and in all.

    Args:
        per_game: the most followers one stored game may have.
        per_client: the most stored-game followers one client (its
            :func:`~snakewar.server.safety.address_key`)
            may hold open.
        total: the most stored-game followers the server holds.
    """

    def __init__(self, per_game: int, per_client: int, total: int) -> None:
        for name, value in (("per_game", per_game), ("per_client", per_client), ("total", total)):
            if value < 1:
                raise ValueError(f"{name} {value}: expected at least 1")
        self.per_game = per_game
        self.per_client = per_client
        self.total = total
        self._games: collections.Counter[str] = collections.Counter()
        self._clients: collections.Counter[str] = collections.Counter()
        self.followers = 0
        """How many follow stored games now."""

    def of_game(self, game_id: str) -> int:
        """How many follow the stored game ``game_id`` now."""
        return self._games[game_id]

    def of_client(self, client: str) -> int:
        """How many stored-game followers the client ``client`` holds now."""
        return self._clients[client]

    @contextlib.contextmanager
    def following(self, game_id: str, client: str) -> Iterator[None]:
        """Count a follower of ``game_id`` from ``client`` for the block.

        Raises:
            FollowerLimitError: if one more would pass a cap (the message names it).
        """
        if self._games[game_id] >= self.per_game:
            raise FollowerLimitError(
                f"too many followers of this game (at most {self.per_game}); try again later"
            )
        if self._clients[client] >= self.per_client:
            raise FollowerLimitError(
                f"too many followers from this address (at most {self.per_client} "
                "stored games' streams a client)"
            )
        if self.followers >= self.total:
            raise FollowerLimitError(
                f"too many followers of stored games on this server (at most {self.total}); "
                "try again later"
            )
        self._games[game_id] += 1
        self._clients[client] += 1
        self.followers += 1
        try:
            yield
        finally:
            self.followers -= 1
            for counter, key in ((self._games, game_id), (self._clients, client)):
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]


@dataclass(frozen=True, slots=True)
class StoredFollowing:
    """What the followers of stored games share: the pages, the turns and the caps."""

    pages: StoredPages
    turns: SendTurns
    limits: FollowerLimits
