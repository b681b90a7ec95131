"""Live games played elsewhere, followed from the database: one reader per game per process.

A game stored as running that this process does not play (another web replica plays
it, or a worker of the cluster) is still live for its spectators here:
:class:`GameMirrors` gives it a :class:`~snakewar.server.manager.LiveGame` whose
:class:`~snakewar.server.fanout.FrameFeed` is filled from the database, so its
followers on this process stream it exactly as they would a game of its own (the
frames encoded once for all of them, late followers sent the history).

Each mirrored game has one *tail*: a task that waits for the game's notifications
(:mod:`snakewar.storage.events`: PostgreSQL ``LISTEN``, or polling on SQLite), then
reads the frames after its cursor (and the game's row, first: a finished row means
every frame is stored) and publishes them.  However many follow it here, a frame costs
this process one read.  Every :data:`RECHECK_S` seconds it reads anyway, so a lost
notification (the listener down) delays frames, never loses them: the database is the
source of truth.  The feed ends when the row is finished; the tail stops, and the game
is forgotten, once no follower is left and nobody asked for it for ``grace_s``.

What frames a mirror publishes carry the time this process read them (the database
keeps no time per frame): a follower's ``Time`` is when this replica had the frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from snakewar.engine.protocol import Entrant, MatchSpec, StoredGame
from snakewar.errors import BusyError
from snakewar.server.manager import LiveGame
from snakewar.storage import AsyncStore, GameNotFoundError, GameRow, GameStatus
from snakewar.storage.events import GameEvents, Subscription
from snakewar.storage.models import MAX_ID_LENGTH

__all__ = [
    "GRACE_S",
    "MAX_MIRRORS",
    "MIRROR_PAGE",
    "RECHECK_S",
    "GameMirrors",
    "MirrorLimitError",
]

log = logging.getLogger("snakewar.server")

MIRROR_PAGE: Final = 200
"""The most frames a tail reads at once (it reads on until it has caught up)."""

RECHECK_S: Final = 5.0
"""How often a tail reads its game with no notification (a lost one costs this much)."""

GRACE_S: Final = 15.0
"""How long a mirrored game with no follower is kept (a reconnecting follower finds it)."""

MAX_MIRRORS: Final = 1000
"""The most games one process mirrors at once."""


class MirrorLimitError(BusyError):
    """Raised when one more mirrored game would pass :attr:`GameMirrors.max_games`."""


@dataclass(frozen=True, slots=True)
class _Snapshot:
    row: GameRow | None
    frames: Sequence[Any]


@dataclass(eq=False)
class _Mirror:
    live: LiveGame
    cursor: int
    attempt: int = 0
    """The stored game's attempt its frames belong to (a new one: it started over)."""
    last_used: float = field(default_factory=time.monotonic)
    task: asyncio.Task[None] | None = None


def _live_game(row: GameRow) -> LiveGame:
    """A running stored game as a live game (no task, no gate of its own: it plays elsewhere)."""
    entrants = tuple(
        Entrant(str(e.get("source", "")), str(e.get("name", ""))) for e in row.entrants
    )
    spec = row.spec() or MatchSpec(row.game, entrants, {}, source=row.source)
    listing = StoredGame(
        id=row.id,
        game=row.game,
        seed=row.seed,
        width=row.width,
        height=row.height,
        turns=row.turns,
        source=row.source,
        title=row.title,
        entrants=entrants,
        colors=tuple(str(e.get("color", "")) for e in row.entrants),
    )
    return LiveGame(
        row.id,
        spec,
        row.seed,
        owner_id=row.owner_id,
        listing=listing,
        header=row.header,
        status=GameStatus.RUNNING,
        created_at=row.created_at.timestamp(),
    )


class GameMirrors:
    """This process's mirrors of live games played elsewhere (see the module docstring).

    Args:
        store: the database the games are written to.
        events: the process's wake-ups on stored games' changes.
        grace_s: how long a game with no follower stays mirrored after its last lookup.
        recheck_s: how often a tail reads its game without a notification.
        max_games: the most games mirrored at once.
        page: the most frames one read takes.
    """

    def __init__(
        self,
        store: AsyncStore,
        events: GameEvents,
        *,
        grace_s: float = GRACE_S,
        recheck_s: float = RECHECK_S,
        max_games: int = MAX_MIRRORS,
        page: int = MIRROR_PAGE,
    ) -> None:
        self.store = store
        self.events = events
        self.grace_s = grace_s
        self.recheck_s = recheck_s
        self.max_games = max_games
        self.page = page
        self._mirrors: dict[str, _Mirror] = {}
        self._opening: dict[str, asyncio.Future[_Mirror | None]] = {}
        self._closed = False
        self.reads = 0
        """Reads of the database so far (openings and tails)."""

    def followers(self) -> int:
        """How many follow the games mirrored here now."""
        return sum(mirror.live.feed.followers for mirror in self._mirrors.values())

    def __len__(self) -> int:
        return len(self._mirrors)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._mirrors

    async def watch(self, game_id: str) -> LiveGame | None:
        """The live game ``game_id`` played elsewhere; ``None`` unless stored as running.

        The first lookup of a game reads its row and its frames so far; later ones (and
        every follower) share that mirror while it runs.

        Raises:
            MirrorLimitError: past :attr:`max_games` mirrored games.
        """
        mirror = self._mirrors.get(game_id)
        if mirror is None:
            if self._closed or not 0 < len(game_id) <= MAX_ID_LENGTH:
                return None
            opening = self._opening.get(game_id)
            if opening is None:
                if len(self._mirrors) + len(self._opening) >= self.max_games:
                    raise MirrorLimitError(
                        f"this server follows {len(self._mirrors)} live games played by "
                        f"others, the most it may (max {self.max_games}); try again later"
                    )
                opening = asyncio.ensure_future(self._open(game_id))
                self._opening[game_id] = opening
                opening.add_done_callback(lambda done: self._opened(game_id, done))
            # Shielded: a caller that leaves does not cancel an opening others wait for.
            mirror = await asyncio.shield(opening)
            if mirror is None:
                return None
        if mirror.live.finished or mirror.live.feed.closed:
            return None  # the stored game is what to show now
        mirror.last_used = time.monotonic()
        return mirror.live

    def _opened(self, game_id: str, done: asyncio.Future[_Mirror | None]) -> None:
        if self._opening.get(game_id) is done:
            del self._opening[game_id]
        if not done.cancelled():
            done.exception()  # each waiter has it; none left: not "never retrieved"

    def _read(self, game_id: str, offset: int, limit: int | None) -> _Snapshot:
        # On a store thread.  The row first: once it says finished, every frame is
        # stored, so the frames read after it are all there are.
        games = self.store.store.games
        row = games.get(game_id)
        if row is None:
            return _Snapshot(None, ())
        try:
            frames = games.frames(game_id, offset, limit)
        except GameNotFoundError:  # deleted between the two reads
            return _Snapshot(None, ())
        if frames:
            # Played again from turn 0 between the two reads (its worker died): these
            # frames are the new attempt's, not the ones after the cursor.
            again = games.get(game_id)
            if again is None or again.attempt != row.attempt:
                return _Snapshot(again, ())
        return _Snapshot(row, frames)

    async def _open(self, game_id: str) -> _Mirror | None:
        # Subscribed before the first read: a frame stored after it wakes the tail.
        sub = self.events.subscribe(game_id)
        try:
            self.reads += 1
            snapshot = await self.store.run(self._read, game_id, 0, None)
            row = snapshot.row
            if row is None or row.status not in (GameStatus.RUNNING, GameStatus.STARTING):
                sub.close()
                return None
            live = _live_game(row)
            now = time.time()
            for view in snapshot.frames:
                live.feed.publish(view, now)
            mirror = _Mirror(live, len(snapshot.frames), row.attempt)
            if self._closed:
                sub.close()
                return None
            self._mirrors[game_id] = mirror
            mirror.task = asyncio.create_task(self._tail(mirror, sub), name=f"mirror {game_id}")
            return mirror
        except BaseException:
            sub.close()
            raise

    def _idle(self, mirror: _Mirror) -> bool:
        return (
            mirror.live.feed.followers == 0 and time.monotonic() - mirror.last_used > self.grace_s
        )

    async def _tail(self, mirror: _Mirror, sub: Subscription) -> None:
        live = mirror.live
        try:
            with sub:
                while not live.finished and not live.feed.closed:
                    await sub.wait(min(self.recheck_s, self.grace_s))
                    if self._idle(mirror):
                        return
                    try:
                        await self._catch_up(mirror)
                    except Exception as exc:  # the database away: the next wake-up retries
                        log.warning("mirror of game %s: cannot read it: %s", live.id, exc)
        finally:
            if self._mirrors.get(live.id) is mirror:
                del self._mirrors[live.id]

    async def _catch_up(self, mirror: _Mirror) -> None:
        """Publish the frames stored after the cursor; end the feed if the game ended."""
        live = mirror.live
        while True:
            self.reads += 1
            snapshot = await self.store.run(self._read, live.id, mirror.cursor, self.page)
            row = snapshot.row
            if row is None:  # deleted: its followers reconnect and are told
                live.feed.close()
                live.status = GameStatus.CANCELLED
                return
            if row.attempt != mirror.attempt:
                # Played again from turn 0 (its worker died): the frames sent so far are
                # gone.  Its followers are told, and start over from the new frames.
                live.feed.close(restarted=True)
                return
            now = time.time()
            for view in snapshot.frames:
                live.feed.publish(view, now)
            mirror.cursor += len(snapshot.frames)
            if len(snapshot.frames) < self.page:
                break
        live.header = row.header
        if row.status not in (GameStatus.RUNNING, GameStatus.STARTING):
            if live.listing is not None:  # the turns it played, for its followers' end
                live.listing = dataclasses.replace(live.listing, turns=row.turns)
            live.status = GameStatus(row.status)
            live.feed.finish()

    async def close(self) -> None:
        """Stop every tail; their followers are told to reconnect (the feeds close)."""
        self._closed = True
        mirrors = list(self._mirrors.values())
        for mirror in mirrors:
            if mirror.task is not None:
                mirror.task.cancel()
        for mirror in mirrors:
            if mirror.task is not None:
                with contextlib.suppress(BaseException):
                    await mirror.task
            if not mirror.live.finished:
                mirror.live.feed.close()
        self._mirrors.clear()
