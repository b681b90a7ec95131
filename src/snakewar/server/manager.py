"""Running games inside the server: live games of any game, spectators, storage.

A :class:`GameManager` admits each game and hands it to its runner
(:mod:`snakewar.server.runners`): by default an asyncio task on the server's event loop
that plays it through the game's adapter (:meth:`~snakewar.engine.protocol.GameAdapter.play`),
stores it as it runs (every database call on the store's own threads, in order, one game at a
time) and fans every frame out to any number of spectators through the game's
:class:`~snakewar.server.fanout.FrameFeed`: each frame is encoded once per wire format,
and a spectator that connects late, or reconnects, is sent the cached history, then the
live frames.

Every live game also has a :class:`~snakewar.server.stepping.TurnGate` (pause,
step, resume) and, when asked (local servers), keeps each turn's calls: the request
and reply bodies the request inspector shows (:meth:`GameManager.create`'s
``record_calls``).

What games hold is bounded up front, before a game starts:

* the server's game slots (``max_concurrent``; :meth:`GameManager.slot`);
* per user (a public server's :class:`UserCaps`): live games, paused games, and the
  built-in bot workers their games hold, so that no user's games take every slot or
  every worker;
* the built-in bot workers (:mod:`snakewar.referee.workers`): every built-in seat of a
  game holds one worker for the whole game, so a game is counted for its built-in seats
  when it starts and refused (429, naming the limit) when they are not free, never
  failed later for want of a worker.  The arena's games (ladders, tournaments) wait
  for free workers instead, in turn, and users' games do not jump that queue.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import datetime as dt
import secrets
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from snakewar.adapters import get_game
from snakewar.arena.stepping import settle_s
from snakewar.engine.protocol import (
    JSON,
    Entrant,
    Frame,
    GameAdapter,
    MatchSpec,
    PlayedGame,
    PlaySession,
    StoredGame,
)
from snakewar.errors import BusyError, ConflictError, OverLimitError, ParamsError
from snakewar.referee.addresses import AddressPolicy
from snakewar.referee.workers import DEFAULT_MAX_WORKERS
from snakewar.server.fanout import FrameFeed
from snakewar.server.metrics import observe_safely
from snakewar.server.runners import Action, GameRunner, LocalRunner
from snakewar.server.stepping import DEFAULT_MAX_PAUSE_S, TurnGate
from snakewar.storage import AsyncStore, GameRow, GameStatus

if TYPE_CHECKING:
    from snakewar.server.mirror import GameMirrors

__all__ = [
    "MAX_CALL_BYTES_PER_GAME",
    "BuiltinWorkersBusyError",
    "GameLimitError",
    "GameManager",
    "GameObserver",
    "LiveGame",
    "NotSteppableError",
    "Slot",
    "TooManyBuiltinsError",
    "UserCaps",
    "UserLimitError",
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


class UserLimitError(BusyError):
    """Raised when a user's games already hold as much as one user may (games, workers)."""


class BuiltinWorkersBusyError(BusyError):
    """Raised when the built-in bot workers a game needs are held by other games."""


class TooManyBuiltinsError(OverLimitError):
    """Raised for a game with more built-in bots than this server (or one user) may run."""


@dataclass(frozen=True, slots=True)
class UserCaps:
    """What one user's games may hold at once (``None``: no cap).

    A public server's fairness: each user's share of what the server has, so that one
    account cannot take every game slot or every built-in bot worker.

    Attributes:
        live_games: games running (or paused) at once.
        paused_games: paused games (step mode) at once; a paused game keeps its slot
            and its workers until it is cancelled after ``max_pause_s``.
        builtin_workers: built-in bot workers held by the user's games at once (one
            per built-in seat, for the whole game).
    """

    live_games: int | None = None
    paused_games: int | None = None
    builtin_workers: int | None = None


class GameObserver(Protocol):
    """Told of each game this server plays: metrics, notifications (issue 25).

    Each method is called on the event loop and must not block; whatever it raises
    is logged and never fails the game.
    """

    def game_started(self, live: LiveGame) -> None:
        """The game began (its turn 0 was made)."""

    def game_turn(self, live: LiveGame, frame: Frame) -> None:
        """The game made a frame (turn 0 included)."""

    def game_calls(self, live: LiveGame, records: Sequence[Mapping[str, JSON]]) -> None:
        """A turn's calls to the bots (games that step only), each with ``latency_ms``."""

    def game_played_elsewhere(
        self, live: LiveGame, turns: int, latencies_ms: Sequence[float]
    ) -> None:
        """A game played on a Ray worker ended: the turns it played, its calls' latencies.

        Told once, before :meth:`game_ended`, by the server that started it (its turns
        and calls happened in the worker's process, not here).
        """

    def game_ended(self, live: LiveGame) -> None:
        """The game ended (its ``status`` says how)."""


@dataclass(eq=False)
class LiveGame:
    """A game the server is running now (or just finished): frames and spectators.

    ``feed`` holds its frames and streams them to followers; ``header`` is the game's own
    header once it started.  ``gate`` holds it between turns (step mode);
    ``record_calls`` says whether its calls' bodies are stored; ``store_frames`` whether
    it is stored as it runs (else once, whole, when it is complete); ``builtin_seats``
    how many built-in bot workers it holds until it ends.
    """

    id: str
    spec: MatchSpec
    seed: int
    owner_id: int | None = None
    listing: StoredGame | None = None
    header: Mapping[str, Any] | None = None
    feed: FrameFeed = field(default_factory=FrameFeed)
    played: PlayedGame | None = None
    status: GameStatus = GameStatus.STARTING
    error: str = ""
    created_at: float = field(default_factory=time.time)
    task: asyncio.Task[None] | None = None
    gate: TurnGate = field(default_factory=TurnGate)
    record_calls: bool = False
    call_bytes: int = 0
    header_text: str | None = field(default=None, repr=False)
    """Its header as JSON text, encoded once for every page of frames that sends it."""
    store_frames: bool = True
    builtin_seats: int = 0

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
        return self.status.finished

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
        builtin_workers: the built-in bot worker processes of the server's games (its
            play session's :class:`~snakewar.referee.workers.BotPool`): the most
            built-in seats playing at once.
        user_caps: what one user's games may hold at once (a public server's; ``None``:
            no per-user cap).  The arena's games (no owner) are not a user's.
        runner: where the games are played (default: :class:`LocalRunner`, asyncio
            tasks on this server's event loop).
    """

    def __init__(
        self,
        store: AsyncStore,
        max_concurrent: int = 32,
        outbound: AddressPolicy | None = None,
        lease_s: float = 30.0,
        max_pause_s: float = DEFAULT_MAX_PAUSE_S,
        *,
        builtin_workers: int = DEFAULT_MAX_WORKERS,
        user_caps: UserCaps | None = None,
        runner: GameRunner | None = None,
    ) -> None:
        self.store = store
        self.runner = runner if runner is not None else LocalRunner()
        self.outbound = outbound
        self.max_concurrent = max_concurrent
        self.games: dict[str, LiveGame] = {}
        # Games this server started on a cluster (a remote runner's): counted against
        # its caps, but their frames reach spectators through the database, so routes
        # looking up games in memory (``games``) never find them.
        self.remote_games: dict[str, LiveGame] = {}
        self._db_lock = asyncio.Lock()
        self._reserved = 0
        self.server_id = uuid.uuid4().hex
        self.lease_s = lease_s
        self._leases: asyncio.Task[None] | None = None
        self.max_pause_s = max_pause_s
        self.builtin_workers = builtin_workers
        self.user_caps = user_caps or UserCaps()
        # The arena's games waiting for built-in workers, in turn: (seats, woken when
        # they are promised), and the seats promised to woken ones not started yet.
        self._builtin_queue: collections.deque[tuple[int, asyncio.Future[None]]] = (
            collections.deque()
        )
        self._builtin_promised = 0
        self._closing = False
        self.observers: list[GameObserver] = []
        """Told of each game's start, turns, calls and end (:class:`GameObserver`)."""

    @property
    def builtin_waiting(self) -> int:
        """Arena games waiting for built-in bot workers now (the queue's depth)."""
        return sum(1 for _, woken in self._builtin_queue if not woken.done())

    def tell(self, event: str, *args: Any) -> None:
        """Tell every observer ``event`` (a :class:`GameObserver` method's name)."""
        for observer in self.observers:
            observe_safely(getattr(observer, event), *args)

    @property
    def _session(self) -> PlaySession | None:
        """The play session of the games played in this process (the local runner's)."""
        return self.runner.session

    async def start(self) -> None:
        """Start the runner and keep leases (call from the running loop).

        Games left running by a server that died (their lease ran out) are aborted now.
        """
        await self.runner.start(self)
        await self.store.run(self.store.store.games.abort_expired)
        self._leases = asyncio.create_task(self._keep_leases(), name="game leases")

    def _lease_end(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC) + dt.timedelta(seconds=self.lease_s)

    async def _keep_leases(self) -> None:
        games = self.store.store.games
        reached: float | None = time.monotonic()  # start() just reached the database
        while True:
            await asyncio.sleep(self.lease_s / 3)
            live = [g.id for g in self.games.values() if not g.finished and g.in_store]
            try:
                await self.store.run(self.store.store.db.ping)
                await self.store.run(games.renew_leases, self.server_id, live, self._lease_end())
            except Exception:  # a database hiccup: retry next round
                reached = None
                continue
            if reached is None:
                reached = time.monotonic()
            # While the database was away nobody could renew a lease: every game's may
            # have run out meanwhile.  Others' games are judged only once their players
            # have had a whole lease to renew them (theirs renew every third of it).
            if time.monotonic() - reached >= self.lease_s:
                with contextlib.suppress(Exception):
                    await self.store.run(games.abort_expired)

    async def close(self) -> None:
        """Cancel running games (they are stored as cancelled) and release resources.

        Games waiting for built-in workers are not started: their waits end in a
        :class:`BusyError`.  Games on a cluster play on without this server (their
        actors store them and keep their leases; any server controls them): only this
        server's following of them ends.
        """
        # No game starts from now on: one started while the others are cancelled (a
        # request, an arena thread) would play on a closed session and leave its bot
        # workers behind.
        self._closing = True
        self.runner.let_go()
        while self._builtin_queue:
            waiting = self._builtin_queue.popleft()[1]
            if not waiting.done():
                waiting.set_exception(BusyError("the server is stopping: it starts no more games"))
        if self._leases is not None:
            self._leases.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._leases
        while running := [
            (g.finished, g.task) for g in self._all() if g.task is not None and not g.task.done()
        ]:
            for finished, task in running:
                # A game that ended is only being stored: let it be, or a complete
                # game would be stored as cancelled.
                if not finished:
                    task.cancel()
            for _, task in running:
                with contextlib.suppress(BaseException):
                    await task
        await self.runner.close()

    def _all(self) -> list[LiveGame]:
        """The games this server started, here and on a cluster."""
        return [*self.games.values(), *self.remote_games.values()]

    @property
    def running(self) -> int:
        """How many games this server started are being played (or started) now.

        With a remote runner (a Ray cluster) these are the games this server started
        there: each server of a cluster caps its own.
        """
        return sum(1 for g in self._all() if not g.finished)

    def _check_room(self) -> None:
        busy = self.running + self._reserved
        if busy >= self.max_concurrent:
            raise GameLimitError(
                f"{busy} games are running or starting, the most this server allows "
                f"(max_concurrent_games={self.max_concurrent})"
            )

    def _mine(self, owner_id: int) -> list[LiveGame]:
        return [g for g in self._all() if g.owner_id == owner_id and not g.finished]

    def _check_user(self, owner_id: int | None, *, step: bool = False, elsewhere: int = 0) -> None:
        """Refuse a new game of ``owner_id`` past its live (or, ``step``, paused) games.

        ``elsewhere``: the owner's running games that other servers sharing the database
        play (:meth:`_running_elsewhere`).
        """
        caps = self.user_caps
        if owner_id is None:
            return
        mine = self._mine(owner_id)
        live = len(mine) + elsewhere
        if caps.live_games is not None and live >= caps.live_games:
            raise UserLimitError(
                f"you have {live} live games, the most one user may have at once "
                f"(games_per_user={caps.live_games}); wait for one to end, or cancel one"
            )
        if step:
            self._check_paused(owner_id, mine)

    def _check_paused(self, owner_id: int, mine: Sequence[LiveGame]) -> None:
        cap = self.user_caps.paused_games
        paused = sum(1 for g in mine if g.paused)
        if cap is not None and paused >= cap:
            raise UserLimitError(
                f"you have {paused} paused games, the most one user may have at once "
                f"(paused_games_per_user={cap}); resume or cancel one first"
            )

    def builtin_in_use(self, owner_id: int | None = None) -> int:
        """Built-in bot workers held by games not finished (``owner_id``'s games only)."""
        return sum(
            g.builtin_seats
            for g in self.games.values()
            if not g.finished and (owner_id is None or g.owner_id == owner_id)
        )

    def _check_builtin(self, needed: int, owner_id: int | None, *, promised: bool) -> None:
        """Refuse a game whose ``needed`` built-in seats would not all get a worker.

        ``promised``: the seats were promised to it in the queue (an arena game).
        """
        if needed == 0:
            return
        total = self.builtin_workers
        if needed > total:
            raise TooManyBuiltinsError(
                f"{needed} built-in bots: this server plays at most {total} at once "
                f"(builtin_workers={total})"
            )
        cap = self.user_caps.builtin_workers
        if owner_id is not None and cap is not None:
            if needed > cap:
                raise TooManyBuiltinsError(
                    f"{needed} built-in bots: one user's games may play at most {cap} at "
                    f"once (builtin_workers_per_user={cap})"
                )
            mine = self.builtin_in_use(owner_id)
            if mine + needed > cap:
                raise UserLimitError(
                    f"your games hold {mine} built-in bot workers and this one needs "
                    f"{needed}: one user's games may hold {cap} at once "
                    f"(builtin_workers_per_user={cap}); wait for a game to end, or cancel one"
                )
        if promised:
            return
        taken = self.builtin_in_use() + self._builtin_promised
        if taken + needed > total or self._builtin_queue:
            waiting = f", and {len(self._builtin_queue)} games wait for them" * bool(
                self._builtin_queue
            )
            raise BuiltinWorkersBusyError(
                f"built-in bots: {taken} of the server's {total} bot workers are held by "
                f"games playing now{waiting} (builtin_workers={total}); this game needs "
                f"{needed}: try again when a game ends"
            )

    def _wake_builtin(self) -> None:
        """Promise free workers to the waiting arena games, first come first served."""
        while self._builtin_queue:
            needed, woken = self._builtin_queue[0]
            if woken.done():  # its waiter was cancelled
                self._builtin_queue.popleft()
                continue
            if self.builtin_in_use() + self._builtin_promised + needed > self.builtin_workers:
                return
            self._builtin_queue.popleft()
            self._builtin_promised += needed
            woken.set_result(None)

    async def _await_builtin(self, needed: int) -> None:
        """Wait until ``needed`` workers are promised to the caller (an arena game)."""
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._builtin_queue.append((needed, woken))
        self._wake_builtin()
        try:
            await woken
        except asyncio.CancelledError:
            if woken.done() and not woken.cancelled():  # promised, then cancelled
                self._builtin_promised -= needed
                self._wake_builtin()
            raise

    @contextlib.contextmanager
    def slot(self, owner_id: int | None = None) -> Iterator[Slot]:
        """Hold a game slot while a request prepares a game (call before any await).

        A request checks its entrants (DNS, the database) before :meth:`create`; without
        a slot taken first, many concurrent requests would all pass the cap and all
        start.  Pass the slot to :meth:`create` inside the block: the game takes it
        over (it is counted once, as a running game, from then on).  ``owner_id``: the
        user who asks, refused at once past their own cap of live games
        (:meth:`create` checks again).

        Raises:
            GameLimitError: if every slot is taken.
            UserLimitError: if ``owner_id`` has as many live games as one user may.
        """
        self._check_user(owner_id)
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

    async def _write(self, fn: Any, *args: Any, **kwargs: Any) -> None:
        """A game's write, as :meth:`_db`, tried again while the database is unreachable.

        A game being played waits (for a bounded time: ``WRITE_RETRY_S``) for a
        database that restarts, rather than being lost to it.
        """
        async with self._db_lock:
            await self.store.run_retrying(fn, *args, **kwargs)

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
            UserLimitError: past one of the owner's caps (:class:`UserCaps`).
            BuiltinWorkersBusyError: if the workers its built-in bots need are taken
                (an uncapped game, the arena's, waits for them instead).
            TooManyBuiltinsError: more built-in bots than the server plays at once.
            BusyError: if the server is stopping.
            SnakewarError: an unreachable bot, an unknown bot, impossible settings.
        """
        assert self.runner._manager is self, "GameManager.start() was not awaited"
        if self._closing:
            raise BusyError("the server is stopping: it starts no more games")
        adapter = get_game(spec.game)
        # Built-in bots on a cluster run in their worker's own pool: this server's
        # workers are for the games it plays itself.
        builtins = 0
        if not self.runner.remote:
            builtins = sum(1 for e in spec.entrants if adapter.reach(e).kind == "builtin")
        elsewhere = await self._running_elsewhere(owner_id if capped else None)
        promised = await self._promise_workers(builtins, capped)
        # From here to the game's registration nothing awaits: the checks and the
        # counting are one step that concurrent requests cannot interleave.
        steps = self._admit(
            spec, adapter, builtins, promised, owner_id, slot, step, capped, elsewhere
        )
        live = self._register(spec, seed, game_id, owner_id, slot, builtins)
        live.gate = TurnGate(paused=step, max_pause_s=self.max_pause_s)
        live.record_calls = record_calls and steps
        live.store_frames = store_frames
        run = self.runner.launch(live, adapter, steps)
        await run.started.wait()
        if run.failure is not None and live.listing is None:
            self.games.pop(live.id, None)
            self.remote_games.pop(live.id, None)
            raise run.failure
        return live

    async def _running_elsewhere(self, owner_id: int | None) -> int:
        """The running games of ``owner_id`` that other servers play (from the database).

        Replicas sharing a database hold one user's cap of live games together: each
        counts its own games itself and the others' through their stored rows, whose
        leases say they are alive.  Two replicas admitting one user's games in the same
        instant can each pass the count: the cap may then be exceeded by the games
        started in that instant, never by more.
        """
        if owner_id is None or self.user_caps.live_games is None:
            return 0
        mine = [*self.games, *self.remote_games]
        return await self.store.run(
            self.store.store.games.count_running_owned, owner_id, excluding=mine
        )

    async def _promise_workers(self, builtins: int, capped: bool) -> int:
        """Wait for the workers an uncapped game's built-ins need; how many were promised.

        The arena's games (uncapped) wait their turn for workers rather than fail; a
        capped game is refused at once when they are taken (:meth:`_admit`).
        """
        if capped or not 0 < builtins <= self.builtin_workers:
            return 0
        await self._await_builtin(builtins)
        return builtins

    def _admit(
        self,
        spec: MatchSpec,
        adapter: GameAdapter,
        builtins: int,
        promised: int,
        owner_id: int | None,
        slot: Slot | None,
        step: bool,
        capped: bool,
        elsewhere: int = 0,
    ) -> bool:
        """Check that the game may start now (no await); whether its referee can step.

        On refusal the promised workers go back to the queue; on success they become
        the game's own (counted by its ``builtin_seats``).
        """
        try:
            if self._closing:  # it stopped while this game waited for workers
                raise BusyError("the server is stopping: it starts no more games")
            if slot is None:
                if capped:
                    self._check_room()
            elif slot.used:
                raise ValueError("a slot starts one game")
            steps = adapter.catalogue().steps
            if step and not steps:
                raise ParamsError("step", f"step: {spec.game} games cannot be played step by step")
            user = owner_id if capped else None
            self._check_user(user, step=step, elsewhere=elsewhere)
            self._check_builtin(builtins, user, promised=bool(promised))
        except BaseException:
            self._builtin_promised -= promised
            self._wake_builtin()
            raise
        self._builtin_promised -= promised
        return steps

    def _register(
        self,
        spec: MatchSpec,
        seed: int | None,
        game_id: str | None,
        owner_id: int | None,
        slot: Slot | None,
        builtins: int,
    ) -> LiveGame:
        """The new game, counted among the running ones before any await."""
        seed = seed if seed is not None else secrets.randbits(62) + 1
        live = LiveGame(game_id or str(uuid.uuid4()), spec, seed, owner_id)
        live.builtin_seats = builtins
        self._prune()
        (self.remote_games if self.runner.remote else self.games)[live.id] = live
        if slot is not None:  # the reservation becomes the running game, counted once
            slot.used = True
            self._reserved -= 1
        return live

    def _started_here(self, game_id: str) -> LiveGame | None:
        return self.games.get(game_id) or self.remote_games.get(game_id)

    async def cancel(self, game_id: str) -> bool:
        """Stop a running game; returns False if it was not running.

        A game another server started on the cluster is cancelled through its actor.
        """
        live = self._started_here(game_id)
        if live is None and self.runner.remote:
            before = await self.store.run(self.store.store.games.get, game_id)
            if before is not None and GameStatus(before.status).finished:
                return False
            state = await self.runner.control(game_id, "cancel")
            if state is not None:
                return state.done
            # No answer: the actor is gone.  The server that started the game takes its
            # actor down as soon as the game ends, which can be before this call's answer
            # left it: the stored game says whether the game was stopped meanwhile.
            after = await self.store.run(self.store.store.games.get, game_id)
            return after is not None and after.status == GameStatus.CANCELLED
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

    async def _remote_control(self, game_id: str, action: Action) -> LiveGame | None:
        """``action`` on a game played on the cluster (by whichever server started it).

        Returns the game as stored, with its gate's state as its actor answered
        (``None``: no such game is being played).
        """
        row = await self.store.run(self.store.store.games.get, game_id)
        if row is None or row.finished:
            return None
        if not get_game(row.game).catalogue().steps:
            raise NotSteppableError(f"{row.game} games cannot be paused or stepped")
        mine = self.remote_games.get(game_id)
        if action == "pause" and mine is not None and mine.owner_id is not None:
            self._check_paused(mine.owner_id, self._mine(mine.owner_id))
        state = await self.runner.control(game_id, action)
        if state is None:
            return None
        if mine is None:
            # As stored after the action (a step added a turn).
            row = await self.store.run(self.store.store.games.get, game_id) or row
        live = mine if mine is not None else _stored_live(row)
        # The gate here only tells whether the game holds; the actor's gate holds it.
        if state.paused:
            await live.gate.pause()
        else:
            await live.gate.resume()
        if mine is None:
            live.status = state.status
        return live

    @staticmethod
    def _settle_s(live: LiveGame) -> float:
        views = live.views
        return settle_s(get_game(live.game), live.spec, views[-1] if views else None)

    async def pause(self, game_id: str) -> LiveGame | None:
        """Pause a running game before its next turn; ``None`` if it is not running.

        Returns once the game holds there (or ended).

        Raises:
            NotSteppableError: for a game whose referee cannot pause.
            UserLimitError: if its owner has as many paused games as one user may.
        """
        if self.runner.remote:
            return await self._remote_control(game_id, "pause")
        live = self._steppable(game_id)
        if live is not None and not live.paused and live.owner_id is not None:
            self._check_paused(live.owner_id, self._mine(live.owner_id))
        if live is not None:
            await live.gate.pause()
            await live.gate.settled(self._settle_s(live))
        return live

    async def resume(self, game_id: str) -> LiveGame | None:
        """Let a paused game run on; ``None`` if it is not running.

        Raises:
            NotSteppableError: for a game whose referee cannot pause.
        """
        if self.runner.remote:
            return await self._remote_control(game_id, "resume")
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
        if self.runner.remote:
            return await self._remote_control(game_id, "step")
        live = self._steppable(game_id)
        if live is not None:
            await live.gate.step()
            await live.gate.settled(self._settle_s(live))
        return live

    def _prune(self, keep: int = 100) -> None:
        """Forget the oldest finished games beyond ``keep`` (the store still has them)."""
        for games in (self.games, self.remote_games):
            finished = [g.id for g in games.values() if g.finished]
            for game_id in finished[: max(0, len(finished) - keep)]:
                del games[game_id]

    def live_games(self) -> Sequence[LiveGame]:
        """Games being played now, newest first."""
        return [g for g in reversed(self.games.values()) if not g.finished]

    mirrors: GameMirrors | None = None
    """Live games played elsewhere (another replica, a worker), followed from the
    database (:mod:`snakewar.server.mirror`); the app sets it.  ``None``: only this
    process's games are live here."""

    async def watch(self, game_id: str) -> LiveGame | None:
        """The live game ``game_id`` for its spectators, wherever it is played.

        This process's own game (running or just finished), else a game stored as
        running that another process plays, mirrored from the database; ``None``
        otherwise (a finished or unknown game: the store has it, or nothing does).

        Raises:
            MirrorLimitError: if this process mirrors as many games as it may.
        """
        live = self.games.get(game_id)
        if live is not None or self.mirrors is None:
            return live
        return await self.mirrors.watch(game_id)


def _stored_live(row: GameRow) -> LiveGame:
    """A running game another server started, as its stored row tells it."""
    spec = row.spec() or MatchSpec(
        row.game, tuple(Entrant(e["source"], e["name"]) for e in row.entrants), {}
    )
    listing = StoredGame(
        row.id,
        row.game,
        row.seed,
        row.width,
        row.height,
        row.turns,
        row.source,
        row.title,
        tuple(Entrant(e["source"], e["name"]) for e in row.entrants),
        tuple(e.get("color", "") for e in row.entrants),
    )
    live = LiveGame(row.id, spec, row.seed, row.owner_id, listing=listing, header=row.header)
    live.status = GameStatus.RUNNING
    live.created_at = row.created_at.timestamp()
    return live
