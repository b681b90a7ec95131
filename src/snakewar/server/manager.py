"""Running games inside the server: live games of any game, spectators, storage.

A :class:`GameManager` starts each game as an asyncio task on the server's event loop
through the game's adapter (:meth:`~snakewar.engine.protocol.GameAdapter.play`), stores
it as it runs (every database call on the store's own threads, in order, one game at a
time) and fans every frame out to any number of spectators through the game's
:class:`~snakewar.server.fanout.FrameFeed`: each frame is encoded once per wire format,
and a spectator that connects late, or reconnects, is sent the cached history, then the
live frames.

Every live game also has a :class:`~snakewar.server.stepping.TurnGate` (pause,
step, resume) and, when asked (local servers), keeps each turn's calls: the request
and reply bodies the request inspector shows (:meth:`GameManager.create`'s
``record_calls``).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import secrets
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from snakewar.adapters import get_game
from snakewar.engine.addresses import AddressPolicy
from snakewar.engine.protocol import (
    JSON,
    Frame,
    GameData,
    MatchHooks,
    MatchSpec,
    PlayedGame,
    PlaySession,
    StoredGame,
)
from snakewar.errors import BusyError, ConflictError, ParamsError
from snakewar.server.fanout import FrameFeed
from snakewar.server.stepping import DEFAULT_MAX_PAUSE_S, PauseExpiredError, TurnGate
from snakewar.storage import AsyncStore

__all__ = [
    "MAX_CALL_BYTES_PER_GAME",
    "GameLimitError",
    "GameManager",
    "LiveGame",
    "NotSteppableError",
    "Slot",
]

MAX_CALL_BYTES_PER_GAME = 32 * 1024 * 1024
"""The most body text one game stores for the request inspector; later calls are stored
without their bodies (``omitted``), so a long game cannot fill the disk."""


@dataclass
class Slot:
    """A game slot a request holds (:meth:`GameManager.slot`); ``used`` once a game has it."""

    used: bool = False


class GameLimitError(BusyError):
    """Raised when the server already runs as many games as it allows."""


class NotSteppableError(ConflictError):
    """Raised when a game whose referee has no turn gate is asked to pause or step."""


@dataclass(eq=False)
class LiveGame:
    """A game the server is running now (or just finished): frames and spectators.

    ``feed`` holds its frames and streams them to followers; ``header`` is the game's own
    header once it started.  ``gate`` holds it between turns (step mode);
    ``record_calls`` says whether its calls' bodies are stored; ``store_frames`` whether
    it is stored as it runs (else once, whole, when it is complete).
    """

    id: str
    spec: MatchSpec
    seed: int
    owner_id: int | None = None
    listing: StoredGame | None = None
    header: Mapping[str, Any] | None = None
    feed: FrameFeed = field(default_factory=FrameFeed)
    played: PlayedGame | None = None
    status: str = "starting"
    error: str = ""
    created_at: float = field(default_factory=time.time)
    task: asyncio.Task[None] | None = None
    gate: TurnGate = field(default_factory=TurnGate)
    record_calls: bool = False
    call_bytes: int = 0
    header_text: str | None = field(default=None, repr=False)
    """Its header as JSON text, encoded once for every page of frames that sends it."""
    store_frames: bool = True

    @property
    def in_store(self) -> bool:
        """Whether its row is in the store while it runs (begun, frames added as played)."""
        return self.listing is not None and self.store_frames

    @property
    def views(self) -> list[Mapping[str, Any]]:
        """The frames' views (what viewers draw), turn 0 first."""
        return self.feed.views

    @property
    def paused(self) -> bool:
        """Whether it is paused (stopped, or stopping, before its next turn)."""
        return self.gate.paused and not self.finished

    @property
    def finished(self) -> bool:
        """Whether no more frames will come."""
        return self.status in ("complete", "aborted", "cancelled", "error")

    @property
    def game(self) -> str:
        """The registry key of its game."""
        return self.spec.game


class GameManager:
    """Creates, runs, cancels and tracks the server's games (of every game).

    Args:
        store: where games are stored as they run.
        max_concurrent: the most games running (or starting) at once.
        outbound: the address policy of the games' connections (every one of them).
        lease_s: how long this server vouches for a running game in the database; it
            renews every third of that, and aborts other servers' games whose lease ran
            out (their server died), never live ones.
        max_pause_s: the longest a paused game waits for its next step or resume; it
            is cancelled then (a paused game keeps its slot meanwhile).
    """

    def __init__(
        self,
        store: AsyncStore,
        max_concurrent: int = 32,
        outbound: AddressPolicy | None = None,
        lease_s: float = 30.0,
        max_pause_s: float = DEFAULT_MAX_PAUSE_S,
    ) -> None:
        self.store = store
        self.outbound = outbound
        self.max_concurrent = max_concurrent
        self.games: dict[str, LiveGame] = {}
        self._session: PlaySession | None = None
        self._db_lock = asyncio.Lock()
        self._reserved = 0
        self.server_id = uuid.uuid4().hex
        self.lease_s = lease_s
        self._leases: asyncio.Task[None] | None = None
        self.max_pause_s = max_pause_s
        self._closing = False

    async def start(self) -> None:
        """Open the shared play session and keep leases (call from the running loop).

        Games left running by a server that died (their lease ran out) are aborted now.
        """
        self._session = PlaySession(self.outbound)
        await self.store.run(self.store.store.games.abort_expired)
        self._leases = asyncio.create_task(self._keep_leases(), name="game leases")

    def _lease_end(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC) + dt.timedelta(seconds=self.lease_s)

    async def _keep_leases(self) -> None:
        games = self.store.store.games
        while True:
            await asyncio.sleep(self.lease_s / 3)
            live = [g.id for g in self.games.values() if not g.finished and g.in_store]
            with contextlib.suppress(Exception):  # a database hiccup: retry next round
                await self.store.run(games.renew_leases, self.server_id, live, self._lease_end())
                await self.store.run(games.abort_expired)

    async def close(self) -> None:
        """Cancel running games (they are stored as cancelled) and release resources."""
        # No game starts from now on: one started while the others are cancelled (a
        # request, an arena thread) would play on a closed session and leave its bot
        # workers behind.
        self._closing = True
        if self._leases is not None:
            self._leases.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._leases
        while running := [
            g.task for g in self.games.values() if g.task is not None and not g.task.done()
        ]:
            for task in running:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        if self._session is not None:
            await self._session.aclose()

    @property
    def running(self) -> int:
        """How many games are being played (or started) now."""
        return sum(1 for g in self.games.values() if not g.finished)

    def _check_room(self) -> None:
        busy = self.running + self._reserved
        if busy >= self.max_concurrent:
            raise GameLimitError(
                f"{busy} games are running or starting, the most this server allows "
                f"(max_concurrent_games={self.max_concurrent})"
            )

    @contextlib.contextmanager
    def slot(self) -> Iterator[Slot]:
        """Hold a game slot while a request prepares a game (call before any await).

        A request checks its entrants (DNS, the database) before :meth:`create`; without
        a slot taken first, many concurrent requests would all pass the cap and all
        start.  Pass the slot to :meth:`create` inside the block: the game takes it
        over (it is counted once, as a running game, from then on).

        Raises:
            GameLimitError: if every slot is taken.
        """
        self._check_room()
        self._reserved += 1
        held = Slot()
        try:
            yield held
        finally:
            if not held.used:
                self._reserved -= 1

    async def _db(self, fn: Any, *args: Any, **kwargs: Any) -> None:
        # One writer at a time keeps each game's rows in order (SQLite has one writer anyway).
        async with self._db_lock:
            await self.store.run(fn, *args, **kwargs)

    async def create(
        self,
        spec: MatchSpec,
        seed: int | None = None,
        *,
        owner_id: int | None = None,
        slot: Slot | None = None,
        step: bool = False,
        record_calls: bool = False,
        game_id: str | None = None,
        capped: bool = True,
        store_frames: bool = True,
    ) -> LiveGame:
        """Start a game; returns once it is running (its first frame stored).

        Args:
            spec: the match.
            seed: its seed (default: a random one).
            owner_id: the user who starts it (who may cancel and delete it).
            slot: a :meth:`slot` the caller holds for it.
            step: start paused before turn 0 (step mode).
            record_calls: store each call's request and reply bodies (a local server's
                games; never a public server's).
            game_id: the game's id (default: a new UUID); a ladder or tournament names
                its games itself.
            capped: count against ``max_concurrent`` (the arena's games do not: the
                arena bounds them itself).
            store_frames: store the game as it runs, frame by frame (spectators follow
                it either way); ``False``: store it once, whole, if it is complete (the
                arena's games: a transaction per game, not per turn, and a game that
                never ends is never stored).

        Raises:
            ParamsError: ``step`` for a game whose referee cannot pause.
            GameLimitError: if too many games are running.
            BusyError: if the server is stopping.
            SnakewarError: an unreachable bot, an unknown bot, impossible settings.
        """
        if slot is None:
            if capped:
                self._check_room()
        elif slot.used:
            raise ValueError("a slot starts one game")
        assert self._session is not None, "GameManager.start() was not awaited"
        if self._closing:
            raise BusyError("the server is stopping: it starts no more games")
        adapter = get_game(spec.game)
        steps = adapter.catalogue().steps
        if step and not steps:
            raise ParamsError("step", f"step: {spec.game} games cannot be played step by step")
        seed = seed if seed is not None else secrets.randbits(62) + 1
        live = LiveGame(game_id or str(uuid.uuid4()), spec, seed, owner_id)
        live.gate = TurnGate(paused=step, max_pause_s=self.max_pause_s)
        live.record_calls = record_calls and steps
        live.store_frames = store_frames
        # The slot is taken now, before any await: concurrent requests see it.
        self._prune()
        self.games[live.id] = live
        if slot is not None:  # the reservation becomes the running game, counted once
            slot.used = True
            self._reserved -= 1
        started = asyncio.Event()
        failure: list[BaseException] = []
        games = self.store.store.games

        async def on_start(listing: StoredGame, data: GameData) -> None:
            live.listing = listing
            live.header = data.header
            live.status = "running"
            if store_frames:
                lease = (self.server_id, self._lease_end())
                await self._db(
                    games.begin, listing, data, spec=spec, owner_id=owner_id, lease=lease
                )
            for frame in data.frames:
                live.feed.publish(frame.view, time.time())
            started.set()

        async def on_frame(frame: Frame) -> None:
            # Followers first: they need not wait for the database.
            live.feed.publish(frame.view, time.time())
            if store_frames:
                await self._db(games.add_frame, live.id, frame)

        async def on_calls(turn: int, records: Sequence[Mapping[str, JSON]]) -> None:
            kept = [self._within_budget(live, r) for r in records]
            await self._db(games.add_calls, live.id, turn, kept)

        async def run() -> None:
            assert self._session is not None
            hooks = MatchHooks(
                game_id=live.id,
                on_start=on_start,
                on_frame=on_frame,
                before_turn=live.gate.wait if steps else None,
                on_calls=on_calls if live.record_calls else None,
            )
            try:
                played = await adapter.play(spec, seed, self._session, hooks)
                live.played = played
                if not live.in_store:  # a game that streams no frames, or kept whole
                    await self._db(games.save_played, played, owner_id=owner_id)
                else:
                    await self._db(games.finish, live.id, "complete", played)
                # Complete once stored: whoever sees it complete can read its replay.
                live.status = "complete"
            except asyncio.CancelledError:
                live.status = "cancelled"
                if live.in_store:
                    await asyncio.shield(self._db(games.finish, live.id, "cancelled"))
                raise
            except PauseExpiredError as exc:  # paused too long: the bound of step mode
                live.status = "cancelled"
                live.error = str(exc)
                if live.in_store:
                    await self._db(games.finish, live.id, "cancelled")
            except Exception as exc:  # a bug must not take the server down
                live.status = "error"
                live.error = f"{type(exc).__name__}: {exc}"
                failure.append(exc)
                if live.in_store:
                    await self._db(games.set_status, live.id, "aborted")
            finally:
                started.set()
                live.feed.finish()
                await live.gate.finish()

        live.task = asyncio.create_task(run(), name=f"game {live.id}")
        await started.wait()
        if failure and live.listing is None:
            self.games.pop(live.id, None)
            raise failure[0]
        return live

    async def cancel(self, game_id: str) -> bool:
        """Stop a running game; returns False if it was not running."""
        live = self.games.get(game_id)
        # A game whose result is being stored is over: cancelling now would undo that.
        if live is None or live.finished or live.task is None or live.played is not None:
            return False
        live.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await live.task
        return True

    @staticmethod
    def _within_budget(live: LiveGame, record: Mapping[str, JSON]) -> Mapping[str, JSON]:
        size = len(str(record.get("request", ""))) + len(str(record.get("reply", "")))
        if live.call_bytes + size > MAX_CALL_BYTES_PER_GAME:
            return {**record, "request": "", "reply": "", "omitted": True}
        live.call_bytes += size
        return record

    def _steppable(self, game_id: str) -> LiveGame | None:
        live = self.games.get(game_id)
        if live is None or live.finished or live.task is None:
            return None
        if not get_game(live.game).catalogue().steps:
            raise NotSteppableError(f"{live.game} games cannot be paused or stepped")
        return live

    def _settle_s(self, live: LiveGame) -> float:
        # A turn lasts at most the timeout (plus /end on the last turn), storage aside.
        return 2 * (live.spec.timeout_ms or 2000) / 1000 + 10

    async def pause(self, game_id: str) -> LiveGame | None:
        """Pause a running game before its next turn; ``None`` if it is not running.

        Returns once the game holds there (or ended).

        Raises:
            NotSteppableError: for a game whose referee cannot pause.
        """
        live = self._steppable(game_id)
        if live is not None:
            await live.gate.pause()
            await live.gate.settled(self._settle_s(live))
        return live

    async def resume(self, game_id: str) -> LiveGame | None:
        """Let a paused game run on; ``None`` if it is not running.

        Raises:
            NotSteppableError: for a game whose referee cannot pause.
        """
        live = self._steppable(game_id)
        if live is not None:
            await live.gate.resume()
        return live

    async def step(self, game_id: str) -> LiveGame | None:
        """Play one turn of a paused game; ``None`` if it is not running.

        Returns once the turn is played and the game holds again (or ended).

        Raises:
            NotSteppableError: for a game whose referee cannot pause.
            NotPausedError: if the game is not paused.
        """
        live = self._steppable(game_id)
        if live is not None:
            await live.gate.step()
            await live.gate.settled(self._settle_s(live))
        return live

    def _prune(self, keep: int = 100) -> None:
        """Forget the oldest finished games beyond ``keep`` (the store still has them)."""
        finished = [g.id for g in self.games.values() if g.finished]
        for game_id in finished[: max(0, len(finished) - keep)]:
            del self.games[game_id]

    def live_games(self) -> Sequence[LiveGame]:
        """Games being played now, newest first."""
        return [g for g in reversed(self.games.values()) if not g.finished]
