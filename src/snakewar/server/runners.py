"""Where a server's games are played: runners behind one interface.

A :class:`~snakewar.server.manager.GameManager` decides whether a game may start (its
slots, users' caps, built-in workers) and keeps the games it started; a
:class:`GameRunner` plays them:

* :class:`LocalRunner` (the embedded default): each game is an asyncio task on the
  server's own event loop, played by the game's adapter with the server's play session
  (its built-in bot pool, its HTTP connections), stored as it runs and fanned out to
  spectators from memory.  Nothing to install: the README's first command.
* :class:`RayRunner` (``snakewar serve --ray-address``):
  each game is played by a named Ray actor on the cluster, which writes the game to
  the database itself; pause, step, resume and cancel reach it by name from any
  replica.

A runner's :meth:`GameRunner.launch` starts one game and sets its
:attr:`~snakewar.server.manager.LiveGame.task` (what the manager cancels, and what
callers wait on for its end); the returned :class:`Launch` says when the game runs
(its first frame stored) or why it could not start.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import hmac
import os
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

import sqlalchemy as sa
from sqlalchemy.exc import ArgumentError

from snakewar.arena.executors import join_ray
from snakewar.arena.remote import (
    ACTOR_NAMESPACE,
    SANDBOX_RESOURCE,
    ActorState,
    GameActor,
    GameStorePort,
    ProgramRef,
    RemoteJob,
    RemoteOutcome,
    WorkerKit,
    actor_name,
)
from snakewar.engine.protocol import (
    JSON,
    Frame,
    GameAdapter,
    GameData,
    MatchHooks,
    MatchSpec,
    PlayedGame,
    PlaySession,
    StoredGame,
)
from snakewar.errors import BusyError, SnakewarError
from snakewar.referee.sandbox import SandboxError, SandboxPolicy, sandbox_available
from snakewar.referee.uploads import (
    UploadCache,
    UploadedBotError,
    UploadedProgram,
    program_for_upload,
)
from snakewar.referee.workers import session_pool
from snakewar.server.logs import game_context
from snakewar.server.stepping import NotPausedError, PauseExpiredError
from snakewar.storage import DATABASE_URL_ENV, GameStatus, Store, retried

if TYPE_CHECKING:
    from snakewar.server.manager import GameManager, LiveGame

__all__ = [
    "RETRYABLE_RAY_ERRORS",
    "Action",
    "DatabaseKit",
    "GameRunner",
    "Launch",
    "LocalRunner",
    "NoSandboxNodeError",
    "RayRunner",
    "RemoteState",
    "actor_cpus",
    "program_from_archive",
    "shipped",
    "without_password",
    "worker_database_url",
]

Action = Literal["pause", "step", "resume", "cancel"]
"""What a user may ask of a running game."""


@dataclass(frozen=True, slots=True)
class RemoteState:
    """A game played elsewhere, as its player answered a control call.

    Attributes:
        status: its status now (``running`` until it ended).
        paused: whether it holds (or will, before its next turn) at its gate.
        done: whether the action was done (a cancel of a game that already ended
            was not).
    """

    status: GameStatus
    paused: bool
    done: bool = True


class Launch:
    """One game being started by a runner.

    :attr:`started` is set once the game runs (its first frame stored) or failed to;
    :attr:`failure` is the error of a game that could not be played.
    """

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.failure: BaseException | None = None


class GameRunner(ABC):
    """Plays a :class:`~snakewar.server.manager.GameManager`'s games somewhere.

    Attributes:
        remote: its games are played outside this process (their frames reach this
            process through the database, not through memory).
        session: the play session of games played in this process (``None``: none).
    """

    remote: ClassVar[bool] = False

    def __init__(self) -> None:
        self.session: PlaySession | None = None
        self._manager: GameManager | None = None

    @property
    def manager(self) -> GameManager:
        """The manager whose games this runner plays (set by :meth:`start`)."""
        assert self._manager is not None, "GameRunner.start() was not awaited"
        return self._manager

    async def start(self, manager: GameManager) -> None:
        """Get ready to play ``manager``'s games (called by :meth:`GameManager.start`)."""
        self._manager = manager

    async def close(self) -> None:  # noqa: B027 - a runner with nothing to release
        """Release what the runner holds (its games were cancelled before)."""

    def let_go(self) -> None:  # noqa: B027 - games played here end with the server
        """The server is stopping: games that can play on without it are left to do so.

        Called before the manager cancels its games' tasks; a task cancelled after
        this leaves such a game playing (a runner whose games live in this process
        has none).
        """

    @abstractmethod
    def launch(self, live: LiveGame, adapter: GameAdapter, steps: bool) -> Launch:
        """Start playing ``live``'s game (sets ``live.task``); call on the event loop.

        Args:
            live: the game, registered by the manager.
            adapter: its game's adapter.
            steps: whether its referee waits at a turn gate (pause, step).
        """

    async def control(self, game_id: str, action: Action) -> RemoteState | None:
        """Ask a game this process does not hold (one played elsewhere) to ``action``.

        Returns ``None`` when no such game is being played (the default: a runner
        whose games are all in this process has none elsewhere).

        Raises:
            NotPausedError: ``step`` for a game that is not paused.
        """
        return None


class LocalRunner(GameRunner):
    """Games as asyncio tasks on the server's event loop (the embedded default).

    The runner's play session is opened by :meth:`start`, its built-in bot pool sized
    by the manager's ``builtin_workers``, and closed by :meth:`close`.
    """

    async def start(self, manager: GameManager) -> None:
        """Open the shared play session and its bot pool."""
        await super().start(manager)
        self.session = PlaySession(manager.outbound)
        # The session's bot pool is made now, with this server's size: games count
        # their built-in seats against that size (the manager's _check_builtin).
        session_pool(self.session, max_workers=manager.builtin_workers)

    async def close(self) -> None:
        """Close the play session (its bot workers, its connections)."""
        if self.session is not None:
            await self.session.aclose()

    def launch(self, live: LiveGame, adapter: GameAdapter, steps: bool) -> Launch:
        """Play the game as an asyncio task of this process."""
        run = _GameRun(self.manager, self, live, adapter, steps)
        live.task = asyncio.create_task(
            run.play(), name=f"game {live.id}", context=game_context(live.id)
        )
        return run


class _GameRun(Launch):
    """One game played in this process: the referee's hooks and the ending."""

    def __init__(
        self,
        manager: GameManager,
        runner: LocalRunner,
        live: LiveGame,
        adapter: GameAdapter,
        steps: bool,
    ):
        super().__init__()
        self.manager = manager
        self.runner = runner
        self.live = live
        self.adapter = adapter
        self.steps = steps
        self.games = manager.store.store.games

    async def on_start(self, listing: StoredGame, data: GameData) -> None:
        live = self.live
        live.listing = listing
        live.header = data.header
        live.status = GameStatus.RUNNING
        if live.store_frames:
            lease = (self.manager.server_id, self.manager._lease_end())
            await self.manager._write(
                self.games.begin,
                listing,
                data,
                spec=live.spec,
                owner_id=live.owner_id,
                lease=lease,
            )
        for frame in data.frames:
            live.feed.publish(frame.view, time.time())
        self.manager.tell("game_started", live)
        for frame in data.frames:
            self.manager.tell("game_turn", live, frame)
        self.started.set()

    async def on_frame(self, frame: Frame) -> None:
        # Followers first: they need not wait for the database.
        self.live.feed.publish(frame.view, time.time())
        self.manager.tell("game_turn", self.live, frame)
        if self.live.store_frames:
            await self.manager._write(self.games.add_frame, self.live.id, frame)

    async def on_calls(self, turn: int, records: Sequence[Mapping[str, JSON]]) -> None:
        self.manager.tell("game_calls", self.live, records)
        if not self.live.record_calls:
            return
        kept = [self.manager._within_budget(self.live, r) for r in records]
        await self.manager._write(self.games.add_calls, self.live.id, turn, kept)

    async def play(self) -> None:
        """Play the game to its end and store how it ended, whatever happens."""
        manager, live, games = self.manager, self.live, self.games
        session = self.runner.session
        assert session is not None
        hooks = MatchHooks(
            game_id=live.id,
            on_start=self.on_start,
            on_frame=self.on_frame,
            before_turn=live.gate.wait if self.steps else None,
            # The calls are also the bot call latencies of the server's metrics
            # (its observers): a game that steps reports them whenever someone listens.
            on_calls=self.on_calls
            if live.record_calls or (self.steps and manager.observers)
            else None,
        )
        try:
            played = await self.adapter.play(live.spec, live.seed, session, hooks)
            live.played = played
            await self._store_played(played)
            # Complete once stored: whoever sees it complete can read its replay.
            live.status = GameStatus.COMPLETE
        except asyncio.CancelledError:
            live.status = GameStatus.CANCELLED
            if live.in_store:
                await asyncio.shield(manager._write(games.finish, live.id, GameStatus.CANCELLED))
            raise
        except PauseExpiredError as exc:  # paused too long: the bound of step mode
            live.status = GameStatus.CANCELLED
            live.error = str(exc)
            if live.in_store:
                await manager._write(games.finish, live.id, GameStatus.CANCELLED)
        except Exception as exc:  # a bug must not take the server down
            live.status = GameStatus.ERROR
            live.error = f"{type(exc).__name__}: {exc}"
            self.failure = exc
            if live.in_store:
                # Aborted with the reason, its frames kept (a database gone for longer
                # than the writes wait: its lease runs out, and any server aborts it).
                await manager._write(games.abort, live.id, live.error)
        finally:
            self.started.set()
            if live.listing is not None:  # it began: it ended now
                manager.tell("game_ended", live)
            # Its bots' workers are back in the pool (adapter.play released them).
            manager._wake_builtin()
            live.feed.finish()
            await live.gate.finish()

    async def _store_played(self, played: PlayedGame) -> None:
        live = self.live
        if not live.in_store:  # a game that streams no frames, or kept whole
            await self.manager._write(self.games.save_played, played, owner_id=live.owner_id)
        else:
            await self.manager._write(self.games.finish, live.id, GameStatus.COMPLETE, played)


# -- Ray ---------------------------------------------------------------------------------

RETRYABLE_RAY_ERRORS: Final = (
    "ActorDiedError",
    "ActorUnavailableError",
    "WorkerCrashedError",
    "NodeDiedError",
    "OutOfMemoryError",
)
"""Ray errors that mean the game's worker process or node went away, not that the game
failed: only these are played again."""

SANDBOX_SHARE: Final = 0.001
"""How much of a node's :data:`~snakewar.arena.remote.SANDBOX_RESOURCE` a game with
program bots asks for: a node that declares 1 takes up to 1,000 such games at once
(its CPUs bound them first)."""

PROGRAM_BOT_CPUS: Final = 1.0
"""The CPUs a game's actor holds by default for each of its program bots, besides its
referee's (``ray_game_cpus``): each bot is a process of its own that may use a core for as
long as its turn lasts, and Ray must count it, or a node's games would hold more busy bots
than it has cores, and they would lose on time."""


def actor_cpus(game_cpus: float, spec: MatchSpec, bot_cpus: float = PROGRAM_BOT_CPUS) -> float:
    """The CPUs the actor of a game of ``spec`` holds: its referee's and its programs'.

    >>> from snakewar.engine.protocol import Entrant, MatchSpec
    >>> bots = (Entrant("a", "a", program=object()), Entrant("b", "b"))
    >>> spec = MatchSpec("some-game", bots, {})
    >>> actor_cpus(0.25, spec)
    1.25
    >>> actor_cpus(0.25, spec, bot_cpus=0.5)
    0.75
    """
    programs = sum(1 for e in spec.entrants if e.program is not None)
    return game_cpus + bot_cpus * programs


_NAME_TAKEN_TRIES: Final = 50
"""How often a new actor's name is tried while a dead one's is being released."""


class NoSandboxNodeError(SandboxError):
    """Raised for a game with program bots when no node of the cluster can sandbox them."""


def without_password(database_url: str) -> str:
    """``database_url`` with no password in it: neither ``USER:PASSWORD@`` nor ``?password=``.

    What a game's job names its database by: a Ray task's arguments are shown by the
    cluster's dashboard and state API to whoever reaches them.  A URL that holds no
    password is given back as it is.

    >>> without_password("postgresql+psycopg://app:s3cret@db:5432/games?password=x")
    'postgresql+psycopg://app@db:5432/games'
    >>> without_password("sqlite:////srv/games.db")
    'sqlite:////srv/games.db'
    """
    try:
        url = sa.make_url(database_url)
    except ArgumentError:
        return database_url  # not a URL: the worker's Store refuses it, naming why
    query = {k: v for k, v in url.query.items() if k.lower() != "password"}
    if url.password is None and len(query) == len(url.query):
        return database_url
    # (URL.set takes None for "leave it": the URL is made again, without the password.)
    bare = sa.URL.create(url.drivername, url.username, None, url.host, url.port, url.database)
    return bare.update_query_dict(query).render_as_string(hide_password=False)


def worker_database_url(database_url: str, environ: Mapping[str, str] | None = None) -> str:
    """The URL a Ray worker opens for the database a job names (without its password).

    The password is the worker's own, from the environment its node was started with
    (``$SNAKEWAR_DATABASE_URL``, as ``compose.yaml`` gives every Ray node): when that
    URL names the same database (backend, user, host, port and database name), its
    password goes into the job's URL; nothing else of it does (the job's URL keeps its
    options, a schema for one).  Otherwise the job's URL is opened as it is, and
    PostgreSQL's client finds a password where it looks itself (``$PGPASSWORD``,
    ``~/.pgpass``) or connects without one.

    Args:
        database_url: the job's URL (:func:`without_password`).
        environ: the worker's environment (default: this process's).
    """
    own = (os.environ if environ is None else environ).get(DATABASE_URL_ENV, "").strip()
    if not own:
        return database_url
    try:
        url, mine = sa.make_url(database_url), sa.make_url(own)
    except ArgumentError:
        return database_url
    password = mine.password if mine.password is not None else mine.query.get("password")
    if url.password is not None or not isinstance(password, str):
        return database_url
    if _database_of(url) != _database_of(mine):
        return database_url
    return url.set(password=password).render_as_string(hide_password=False)


_DEFAULT_PORTS: Final = {"postgresql": 5432}


def _database_of(url: sa.URL) -> tuple[object, ...]:
    backend = url.get_backend_name()
    port = url.port if url.port is not None else _DEFAULT_PORTS.get(backend)
    return (backend, url.username, (url.host or "").lower(), port, url.database)


class DatabaseKit:
    """What a Ray worker needs of the database and the sandbox (a picklable value).

    Each worker process opens a database once per URL and unpacks uploaded bots into
    its own :class:`~snakewar.referee.uploads.UploadCache`, keyed by their SHA-256.
    A job names its database without the password (:func:`without_password`): the
    worker takes it from its own environment (:func:`worker_database_url`).
    """

    def open(self, database_url: str) -> GameStorePort:
        """The games of the database at ``database_url`` (closed by the caller)."""
        return _StoreGames(Store(worker_database_url(database_url)))

    def program(self, ref: ProgramRef, database_url: str) -> UploadedProgram:
        """The sandboxed program of the uploaded bot ``ref``, run on this worker.

        Raises:
            UploadedBotError: no archive with that hash is stored, or what was fetched
                does not have that hash (it is refused, never run).
            SandboxError: this worker cannot make a sandbox.
        """
        problem = sandbox_available()
        if problem is not None:
            raise SandboxError(f"this worker cannot run program bots in a sandbox: {problem}")
        store = _worker_store(worker_database_url(database_url))
        data = store.snakes.archive_by_hash(ref.sha256)
        if data is None:
            raise UploadedBotError(f"no uploaded bot archive with SHA-256 {ref.sha256[:64]}")
        return program_from_archive(data, ref, _worker_cache())


def program_from_archive(data: bytes, ref: ProgramRef, cache: UploadCache) -> UploadedProgram:
    """The sandboxed program of the archive ``data``, which must hash to ``ref.sha256``.

    Raises:
        UploadedBotError: the bytes do not have that hash (refused: a damaged or
            tampered archive), or they cannot be unpacked or run.
    """
    found = hashlib.sha256(data).hexdigest()
    if not hmac.compare_digest(found, ref.sha256):
        raise UploadedBotError(
            f"the archive fetched for SHA-256 {ref.sha256[:16]}... hashes to "
            f"{found[:16]}...: refused (damaged or tampered)"
        )
    folder = cache.folder(data)
    return program_for_upload(folder, ref.language, SandboxPolicy(), sha256=found)


_WORKER_STORES: dict[str, Store] = {}
_WORKER_CACHE: list[UploadCache] = []


def _worker_store(database_url: str) -> Store:
    store = _WORKER_STORES.get(database_url)
    if store is None:
        store = _WORKER_STORES[database_url] = Store(database_url)
    return store


def _worker_cache() -> UploadCache:
    if not _WORKER_CACHE:
        _WORKER_CACHE.append(UploadCache())
    return _WORKER_CACHE[0]


class _StoreGames:
    """A database's game repository as an actor writes it, and the database to close.

    The game's writes are tried again while the database cannot be reached
    (:func:`~snakewar.storage.retried`): a restarting PostgreSQL delays the game on
    its worker, it does not lose it.  Lease renewals are not: the next one comes soon.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        games = store.games
        self.begin = retried(games.begin)
        self.add_frame = retried(games.add_frame)
        self.add_calls = retried(games.add_calls)
        self.finish = retried(games.finish)
        self.abort = retried(games.abort)
        self.save_played = retried(games.save_played)
        self.renew_leases = games.renew_leases

    def close(self) -> None:
        self._store.close()


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300] if text else ''}".rstrip(": ")


class RayRunner(GameRunner):
    """Games on a Ray cluster: one named detached actor per game.

    The actor (:class:`snakewar.arena.remote.GameActor`, namespace
    :data:`~snakewar.arena.remote.ACTOR_NAMESPACE`, name ``game-<id>``) plays the game
    on a worker and writes it to the database itself.  This runner, in the server that
    started the game, waits for the actor's end: when the actor's worker process or
    node dies mid-game, the game is played again from turn 0 by a fresh actor (its
    stored frames are forgotten first), at most ``max_retries`` times; then it is
    marked aborted with the reason, its frames kept.  Any server reaches any game by
    the actor's name (:meth:`control`).

    Args:
        address: the cluster (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``).
        database_url: the database every worker writes games to (one they can all
            reach: PostgreSQL for a cluster of machines; an SQLite file only when every
            node shares this machine's files).  Its password never travels with a
            game: the workers have their own (:func:`worker_database_url`).
        max_retries: replays of a game after its worker died.
        game_cpus: the CPUs each game's referee holds on its node.
        bot_cpus: the CPUs it holds besides for each program bot (:func:`actor_cpus`).
        kit: what workers need of the database and the sandbox.
        start_timeout_s: how long a new game may wait for a node with room for it
            (its actor placed and its first frame stored) before it is refused.
        resources: custom Ray resources each game's actor asks for besides.
    """

    remote = True

    def __init__(
        self,
        address: str,
        database_url: str,
        *,
        max_retries: int = 2,
        game_cpus: float = 1.0,
        bot_cpus: float = PROGRAM_BOT_CPUS,
        kit: WorkerKit | None = None,
        start_timeout_s: float = 120.0,
        resources: Mapping[str, float] | None = None,
    ) -> None:
        super().__init__()
        self.address = address
        self.database_url = database_url
        # What each game's actor is given: its arguments are the cluster's to show.
        self.job_database_url = without_password(database_url)
        self.max_retries = max_retries
        self.game_cpus = game_cpus
        self.bot_cpus = bot_cpus
        self.kit: WorkerKit = kit if kit is not None else DatabaseKit()
        self.start_timeout_s = start_timeout_s
        self.resources = dict(resources or {})
        self._ray: Any = None
        self.letting_go = False

    def let_go(self) -> None:
        """Leave the games to their actors: cancelling a game's task stops following it."""
        self.letting_go = True

    @property
    def ray(self) -> Any:
        """The ``ray`` module, joined to the cluster (by :meth:`start`)."""
        assert self._ray is not None, "RayRunner.start() was not awaited"
        return self._ray

    async def start(self, manager: GameManager) -> None:
        """Join the cluster.

        Raises:
            ExecutorError: the cluster cannot be joined (one line: why).
        """
        await super().start(manager)
        self._ray = await asyncio.to_thread(join_ray, self.address)

    def launch(self, live: LiveGame, adapter: GameAdapter, steps: bool) -> Launch:
        """Play the game on the cluster; ``live.task`` waits for it there."""
        game = _RayGame(self, live, steps)
        live.task = asyncio.create_task(
            game.run(), name=f"ray game {live.id}", context=game_context(live.id)
        )
        return game

    async def actor(self, game_id: str) -> Any | None:
        """The handle of the actor playing ``game_id``, or ``None`` (no such actor)."""
        ray = self.ray

        def lookup() -> Any | None:
            try:
                return ray.get_actor(actor_name(game_id), namespace=ACTOR_NAMESPACE)
            except ValueError:  # Ray's answer for a name it does not know
                return None

        return await asyncio.to_thread(lookup)

    async def control(self, game_id: str, action: Action) -> RemoteState | None:
        """Ask the actor of ``game_id`` to ``action``, wherever it runs.

        Raises:
            NotPausedError: ``step`` for a game that is not paused.
        """
        handle = await self.actor(game_id)
        if handle is None:
            return None
        try:
            state: ActorState = await getattr(handle, action).remote()
        except self.ray.exceptions.RayActorError:  # it died (or ended) meanwhile
            return None
        if not state.done and action == "step":
            raise NotPausedError(state.refusal)
        status = GameStatus(state.status) if state.status in _STATUSES else GameStatus.RUNNING
        return RemoteState(status, state.paused, state.done)

    def needs_sandbox(self, spec: MatchSpec) -> bool:
        """Whether ``spec`` has program bots that run in a sandbox."""
        return any(
            isinstance(e.program, ProgramRef | UploadedProgram)
            or getattr(e.program, "sandbox", None) is not None
            for e in spec.entrants
        )

    async def check_sandbox_nodes(self) -> None:
        """Refuse program bots when no node of the cluster declares the sandbox resource.

        Raises:
            NoSandboxNodeError: naming the resource and how a node declares it.
        """
        resources = await asyncio.to_thread(self.ray.cluster_resources)
        if float(resources.get(SANDBOX_RESOURCE, 0)) <= 0:
            raise NoSandboxNodeError(
                "this game has program bots, and no node of the Ray cluster can run them in "
                f"a sandbox (none declares the resource {SANDBOX_RESOURCE!r}; start one with "
                "'snakewar cluster worker --address HEAD' on a machine with bubblewrap)"
            )


_STATUSES: Final = frozenset(s.value for s in GameStatus)


def shipped(spec: MatchSpec) -> MatchSpec:
    """``spec`` as it travels to a worker: uploaded bots by their archive's hash."""
    entrants = tuple(
        dataclasses.replace(e, program=ProgramRef(e.program.sha256, e.program.language))
        if isinstance(e.program, UploadedProgram) and e.program.sha256
        else e
        for e in spec.entrants
    )
    return dataclasses.replace(spec, entrants=entrants)


class _RayGame(Launch):
    """One game on the cluster, followed by the server that started it."""

    def __init__(self, runner: RayRunner, live: LiveGame, steps: bool) -> None:
        super().__init__()
        self.runner = runner
        self.live = live
        self.steps = steps
        self.manager = runner.manager
        self.games = self.manager.store.store.games

    def _job(self, again: bool) -> RemoteJob:
        live, manager = self.live, self.manager
        return RemoteJob(
            game_id=live.id,
            spec=shipped(live.spec),
            seed=live.seed,
            database_url=self.runner.job_database_url,
            owner_id=live.owner_id,
            outbound=manager.outbound,
            steps=self.steps,
            start_paused=live.gate.paused,
            max_pause_s=manager.max_pause_s,
            record_calls=live.record_calls,
            store_frames=live.store_frames,
            lease_s=manager.lease_s,
            again=again,
        )

    async def _new_actor(self, job: RemoteJob) -> Any:
        ray, runner = self.runner.ray, self.runner
        resources = dict(runner.resources)
        if runner.needs_sandbox(job.spec):
            resources[SANDBOX_RESOURCE] = SANDBOX_SHARE
        actor_class = ray.remote(GameActor).options(
            name=actor_name(job.game_id),
            namespace=ACTOR_NAMESPACE,
            lifetime="detached",
            max_restarts=0,
            max_task_retries=0,
            num_cpus=actor_cpus(runner.game_cpus, job.spec, runner.bot_cpus),
            resources=resources,
        )
        for _ in range(_NAME_TAKEN_TRIES):
            try:
                return await asyncio.to_thread(actor_class.remote, job, runner.kit)
            except ValueError as exc:  # the name of a dead try not released yet
                if "already taken" not in str(exc):
                    raise
                await asyncio.sleep(0.2)
        raise BusyError(f"the cluster still holds an actor named {actor_name(job.game_id)!r}")

    async def _kill(self, handle: Any) -> None:
        ray = self.runner.ray
        with contextlib.suppress(Exception):
            await asyncio.to_thread(ray.kill, handle, no_restart=True)

    async def run(self) -> None:
        """Play the game on the cluster, again after a worker's death; store how it ended."""
        live, manager = self.live, self.manager
        retryable = tuple(
            getattr(self.runner.ray.exceptions, name)
            for name in RETRYABLE_RAY_ERRORS
            if hasattr(self.runner.ray.exceptions, name)
        )
        attempts = 0
        begun = False
        handle: Any = None
        try:
            if self.runner.needs_sandbox(live.spec):
                await self.runner.check_sandbox_nodes()
            while True:
                attempts += 1
                handle = await self._new_actor(self._job(again=begun))
                try:
                    outcome = await self._follow(handle, again=begun)
                except retryable as exc:
                    await self._kill(handle)
                    handle = None
                    begun = begun or live.listing is not None
                    if attempts <= self.runner.max_retries:
                        if begun:
                            # Played again from turn 0: what the dead try stored goes.
                            lease = (manager.server_id, manager._lease_end())
                            await manager._db(self.games.restart, live.id, lease)
                        continue
                    reason = (
                        f"its Ray worker died {attempts} times; gave up (last: {_describe(exc)})"
                    )
                    live.status = GameStatus.ERROR
                    live.error = reason
                    if begun and live.store_frames:
                        await manager._db(self.games.abort, live.id, reason)
                    else:
                        self.failure = BusyError(f"game {live.id} was not played: {reason}")
                    return
                self._ended(outcome)
                return
        except asyncio.CancelledError:
            if self.runner.letting_go:
                # This server stops, the game does not: its actor plays it to its end
                # (and then exits), any server controls it meanwhile.
                handle = None
                raise
            live.status = GameStatus.CANCELLED
            if handle is not None:
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(30):
                        await asyncio.shield(handle.cancel.remote())
            raise
        except Exception as exc:  # a bug, or Ray itself failing: never a stuck game
            live.status = GameStatus.ERROR
            live.error = _describe(exc)
            self.failure = exc
            if live.listing is not None and live.store_frames:
                with contextlib.suppress(Exception):
                    await manager._db(self.games.abort, live.id, live.error)
        finally:
            if handle is not None:
                await self._kill(handle)
            self.started.set()
            live.feed.finish()
            await live.gate.finish()

    async def _hold_lease(self) -> None:
        """Vouch for a game played again until its new actor does (it renews it then)."""
        manager = self.manager
        while True:
            await asyncio.sleep(manager.lease_s / 3)
            with contextlib.suppress(Exception):  # a database hiccup: retry next round
                await manager._db(
                    self.games.renew_leases, manager.server_id, [self.live.id], manager._lease_end()
                )

    async def _follow(self, handle: Any, *, again: bool = False) -> RemoteOutcome:
        """Start the actor's game and wait for its end (raises Ray's error if it died).

        ``again``: the game is stored from an earlier try; until the new actor starts
        it, this server keeps its lease, so that no server aborts it meanwhile.
        """
        live = self.live
        done = handle.play.remote()
        listing: StoredGame | None
        early: RemoteOutcome | None
        holding = asyncio.create_task(self._hold_lease()) if again else None
        try:
            async with asyncio.timeout(self.runner.start_timeout_s):
                listing, early = await handle.started.remote()
        except TimeoutError:
            # No node had room for it, its node was too busy to start its process, or
            # its bots never came up: which one, Ray does not say here.  The request
            # that asked for it is answered, not left waiting for the cluster.
            raise BusyError(
                f"the Ray cluster did not start this game within "
                f"{self.runner.start_timeout_s:g} s (no node had room for it, or its node "
                "was too busy to start it); try again later"
            ) from None
        finally:
            if holding is not None:
                holding.cancel()
        if listing is not None:
            live.listing = listing
            live.status = GameStatus.RUNNING
            self.manager.tell("game_started", live)
            self.started.set()
        if early is not None:
            return early
        outcome: RemoteOutcome = await done
        return outcome

    def _ended(self, outcome: RemoteOutcome) -> None:
        live = self.live
        live.error = outcome.error
        if outcome.status == "complete":
            live.played = outcome.played
            live.status = GameStatus.COMPLETE
        elif outcome.status == "cancelled":
            live.status = GameStatus.CANCELLED
        else:
            live.status = GameStatus.ERROR
            self.failure = outcome.failure or SnakewarError(outcome.error)
        if live.listing is not None:
            # Its turns and calls happened on the worker: counted here, once, now.
            self.manager.tell("game_played_elsewhere", live, outcome.turns, outcome.latencies_ms)
            self.manager.tell("game_ended", live)
