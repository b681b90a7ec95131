"""Built-in bots in worker processes that can be killed.

A built-in bot is Python code: run in a thread, a runaway search cannot be stopped
(a referee's timeout abandons the wait, the thread keeps running, and enough of them
stall everything that shares those threads).  A :class:`BotPool` runs built-in bots
in worker processes instead, at most ``max_workers`` of them:

* a game's built-in seat is **bound** to one worker for the whole game
  (:meth:`BotPool.bind`), which builds the bot there: bots may keep state between turns;
* each call (the game's own: a snake's ``start``/``move``/``end``, a line-based game's
  ``init``/``turn``) is sent over a pipe and awaited on the event loop under the
  call's deadline: nothing blocks the loop and no shared thread pool is involved;
* a call past its deadline **kills** the worker (``SIGKILL``, then reaped) and is a
  ``timeout`` reply: data, never an exception.  With ``restart`` (a game whose
  players may miss a turn and play on) a replacement starts at once: a fresh bot
  from the same spec, sent the game's set-up calls again (:meth:`BotSeat.remember`);
  what the old one learned during the game is lost.  So a player that timed out is
  asked again next turn, as a player over HTTP is.  Without it the seat is
  done, as a game whose rules end a bot that times out needs;
* a bot's exception is an ``error`` reply, and the worker lives on;
* when a game ends its seats are released: a worker in a clean state goes back to the
  pool for the next game (a fresh interpreter costs about 0.1 s of CPU, so workers are
  reused), any other is killed;
* when every worker is bound, :meth:`BotPool.bind` waits for one up to the wait it is
  given (the game's own deadline), then fails with :class:`WorkerBusyError`;
* :meth:`BotPool.aclose` kills and reaps every worker.

Workers are fresh interpreters (``sys.executable -I -S -c PROGRAM`` with the fixed
program :data:`~snakewar.bots.host.BOOTSTRAP`), never forks of a process with threads
and an event loop, and they exit by themselves if their parent dies.

Who uses it: adapters play built-in bots through the pool of their
:class:`~snakewar.engine.protocol.PlaySession` (:func:`session_pool`), so the server's
games and the arena's (ladders, tournaments) run built-ins in workers; so does
``snakewar play``, so that a thinking bot never delays reading another player's reply.
Each game's referee has its own client over a :class:`BotSeat` (the calls and replies
are the game's); the worker builds the bot through the game's adapter hooks
(``worker_bot``, ``worker_call``, ``worker_host``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import pickle
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from snakewar._moved import moved_attribute
from snakewar.adapters import get_game
from snakewar.bots.host import BOOTSTRAP, HEADER
from snakewar.engine.protocol import PlaySession
from snakewar.errors import BusyError, SnakewarError, UnknownBotError

__all__ = [
    "DEFAULT_MAX_WORKERS",
    "MAX_WORKER_REPLY_BYTES",
    "SESSION_KEY",
    "BotPool",
    "BotPoolError",
    "BotSeat",
    "WorkerBusyError",
    "WorkerReply",
    "session_pool",
    "worker_host",
]

DEFAULT_MAX_WORKERS = 16
"""Workers a pool runs at most unless told otherwise (each one is a small interpreter)."""

MAX_WORKER_REPLY_BYTES = (1 << 20) + 4096
"""The largest reply read from a worker: a line of commands of 1 MiB and its wrapping."""

SESSION_KEY = "referee.bot_pool"
"""Where :func:`session_pool` keeps a session's pool (see :meth:`PlaySession.shared`)."""

_DROP_TIMEOUT_S = 2.0
"""How long a released worker may take to drop its bot before it is killed instead."""

Game = str
"""A registered game's name (:func:`snakewar.adapters.game_names`): the worker builds
its bots through that game's adapter (``GameAdapter.worker_bot``)."""


class BotPoolError(SnakewarError, ValueError):
    """Raised for a bot pool setting that cannot be used, or a worker that cannot start."""


class WorkerBusyError(BusyError):
    """Raised when no bot worker is free within the wait (or the pool is closed)."""


class _WorkerGone(Exception):
    """The worker died, or sent something that is no reply: it cannot be trusted again."""


@dataclass(frozen=True, slots=True)
class WorkerReply:
    """How one call to a bound bot went.

    Attributes:
        status: ``ok``; ``timeout`` (no reply within the deadline: the worker was
            killed); ``error`` (the bot raised; ``error`` and ``trace`` say what);
            ``gone`` (the worker died, sent garbage, or the seat has no worker).
        latency_ms: from sending the call to the reply (the deadline, for a timeout).
        value: the reply's value (JSON data) when ``ok``.
        error: one line on what went wrong.
        trace: the bot's traceback, for an ``error``.
    """

    status: Literal["ok", "timeout", "error", "gone"]
    latency_ms: int
    value: Any = None
    error: str = ""
    trace: str = ""

    @property
    def ok(self) -> bool:
        """Whether the bot answered."""
        return self.status == "ok"


class _Worker:
    """One worker process and the event loop's ends of its two pipes."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        threads: concurrent.futures.ThreadPoolExecutor,
    ) -> None:
        self.process = process
        self.pid = process.pid
        self.reader = reader
        self.writer = writer
        self._threads = threads
        self.clean = True
        """No call in flight: the next bytes on the pipe are the next reply."""

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    async def ask(self, message: tuple[Any, ...]) -> dict[str, Any]:
        """Send one message and read its reply (bound the wait from outside).

        Raises:
            _WorkerGone: the worker died or its reply is no reply.
        """
        self.clean = False
        body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.writer.write(HEADER.pack(len(body)) + body)
            await self.writer.drain()
            reply = await self.read()
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            raise _WorkerGone(f"the worker process ended ({type(exc).__name__})") from None
        self.clean = True
        return reply

    async def read(self) -> dict[str, Any]:
        """Read one reply.

        Raises:
            _WorkerGone: a reply too large, or not a JSON object.
            asyncio.IncompleteReadError: the pipe ended.
        """
        (size,) = HEADER.unpack(await self.reader.readexactly(HEADER.size))
        if size > MAX_WORKER_REPLY_BYTES:
            raise _WorkerGone(f"a reply larger than {MAX_WORKER_REPLY_BYTES} bytes")
        data = await self.reader.readexactly(size)
        try:
            reply = json.loads(data)
        except ValueError:
            raise _WorkerGone("a reply that is not JSON") from None
        if not isinstance(reply, dict):
            raise _WorkerGone("a reply that is not a JSON object")
        return reply

    async def kill(self) -> None:
        """``SIGKILL`` the worker, reap it (on the pool's thread) and close its pipes."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        # The pipes close first, and even when this task is cancelled while it reaps
        # (the pool closing cancels its tasks).  Unsent bytes are dropped: nobody reads
        # them now.  Both transports leave the selector at once but close their pipes
        # only on the loop's next turn, and a loop that stops first left those to the
        # garbage collector (an unclosed-file warning, seen in CI): closed here as well.
        write_transport = self.writer.transport
        if not write_transport.is_closing():  # not already closed by a broken pipe
            write_transport.abort()
        transport = self.reader_transport
        if transport is not None:
            transport.close()
        _close_pipes(self.process)
        if self.process.returncode is None:
            loop = asyncio.get_running_loop()
            try:
                await loop.run_in_executor(self._threads, self.process.wait)
            except RuntimeError:  # the pool's thread is gone (closed): a short wait here
                self.process.wait()

    reader_transport: asyncio.BaseTransport | None = None


class BotPool:
    """Worker processes hosting built-in bots, at most ``max_workers`` at once.

    Args:
        max_workers: the most worker processes (bound, idle or starting).
        spares: idle workers kept started ahead of need, so that a game, or a
            seat whose worker was killed, gets one without waiting for a start-up.
        imports: modules each worker imports first (plug-ins registering more bots).

    Raises:
        BotPoolError: for ``max_workers`` below 1 or ``spares`` outside ``0..max_workers``.

    Use it on one event loop, and close it there (``async with BotPool() as pool``).
    """

    def __init__(
        self,
        max_workers: int = DEFAULT_MAX_WORKERS,
        *,
        spares: int = 1,
        imports: Sequence[str] = (),
    ) -> None:
        if max_workers < 1:
            raise BotPoolError(f"max_workers={max_workers!r}: expected at least 1")
        if not 0 <= spares <= max_workers:
            raise BotPoolError(f"spares={spares!r}: expected 0..{max_workers} (max_workers)")
        self.max_workers = max_workers
        self.spares = spares
        self.imports = tuple(imports)
        self.started = 0
        """Worker processes started so far."""
        self.killed = 0
        """Workers killed because a call ran past its deadline or they broke."""
        self._units = 0  # seats bound + idle workers + spares starting
        self._starting = 0
        self._idle: list[_Worker] = []
        self._live: set[_Worker] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._changed = asyncio.Event()
        self._closed = False
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        # Every process started and not yet reaped, and the starts under way: a start
        # whose game was cancelled half-way still makes its process, and a pool that
        # closes must reap it then, not leave it to a callback on a loop that may be gone.
        self._processes: set[subprocess.Popen[bytes]] = set()
        self._starts: set[asyncio.Future[subprocess.Popen[bytes]]] = set()

    @property
    def pids(self) -> list[int]:
        """The process ids of the workers alive now."""
        return sorted(w.pid for w in self._live if w.alive)

    @property
    def idle(self) -> int:
        """Workers started and free."""
        return len(self._idle)

    @property
    def in_use(self) -> int:
        """Capacity taken: seats bound, idle workers and spares starting."""
        return self._units

    async def __aenter__(self) -> BotPool:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def warm(self, count: int = 1) -> None:
        """Start workers until ``count`` are idle (within ``max_workers``), and wait for them.

        Raises:
            BotPoolError: if a worker cannot start.
        """
        count = min(count, self.max_workers)
        while not self._closed and len(self._idle) < count and self._units < self.max_workers:
            self._units += 1
            try:
                worker = await self._spawn()
            except BaseException:
                self._units -= 1
                self._notify()
                raise
            self._put_idle(worker)

    async def bind(
        self,
        game: Game,
        spec: str,
        *,
        seed: int = 0,
        wait_s: float | None = None,
        restart: bool = False,
        call_timeout_s: float | None = None,
    ) -> BotSeat:
        """Take a worker and build the bot ``spec`` of ``game`` in it, for one game.

        Args:
            game: a registered game's name; its adapter's ``worker_bot`` builds the bot
                (or the object its ``worker_host()`` names).
            spec: the bot, ``NAME[?options]``.
            seed: the bot's seed, for a game whose bots take one.
            wait_s: how long to wait for a free worker and the bot's set-up
                (``None``: as long as it takes).
            restart: after a timeout or a dead worker, start a replacement at once
                (see the module docstring); otherwise the seat is done.
            call_timeout_s: the bound on each set-up call of a replacement.

        Raises:
            WorkerBusyError: no worker free within ``wait_s``, or the pool is closed.
            UnknownBotError: ``spec`` is no bot of ``game``.
            UnknownGameError: ``game`` is no registered game.
            BotPoolError: a worker could not start.
        """
        where = worker_host(game)
        try:
            async with asyncio.timeout(wait_s):
                worker = await self._take()
                try:
                    reply = await worker.ask(("load", game, where, spec, seed))
                except BaseException:
                    await self._discard(worker)
                    raise
        except TimeoutError:
            raise WorkerBusyError(
                f"no bot worker ready within {round((wait_s or 0) * 1000)} ms "
                f"({self._units} of {self.max_workers} in use)"
            ) from None
        except _WorkerGone as exc:
            raise BotPoolError(f"a bot worker failed while loading {spec!r}: {exc}") from None
        self._top_up()
        seat = BotSeat(self, worker, game, spec, seed, restart, call_timeout_s)
        if "error" in reply:
            await seat.release()
            raise UnknownBotError(f"built-in bot {spec!r}: {reply['error']}")
        return seat

    async def aclose(self) -> None:
        """Kill and reap every worker; later binds fail, bound seats answer ``gone``."""
        self._closed = True
        self._notify()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._idle.clear()
        await asyncio.gather(*(self._kill(w) for w in list(self._live)))
        for started in list(self._starts):
            with contextlib.suppress(BaseException):
                await asyncio.shield(started)
        if self._processes:
            await asyncio.get_running_loop().run_in_executor(
                self._threads(), _reap, list(self._processes)
            )
            self._processes.clear()
        if self._executor is not None:
            self._executor.shutdown(wait=False)  # idle now: its thread ends at once
            self._executor = None

    # -- capacity -------------------------------------------------------------------

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _check_open(self) -> None:
        if self._closed:
            raise WorkerBusyError("the bot pool is closed")

    async def _take(self) -> _Worker:
        """An idle worker, or a new one while under ``max_workers``; else wait."""
        while True:
            self._check_open()
            if self._idle:
                return self._idle.pop()
            if self._units < self.max_workers:
                break
            await self._changed.wait()
        self._units += 1
        try:
            return await self._spawn()
        except BaseException:
            self._units -= 1
            self._notify()
            raise

    async def _replacement(self) -> _Worker:
        """A worker for a seat that lost its own (the seat keeps its capacity)."""
        self._check_open()
        if self._idle:
            self._units -= 1  # the idle worker's share of capacity merges into the seat's
            worker = self._idle.pop()
            self._top_up()
            return worker
        return await self._spawn()

    def _put_idle(self, worker: _Worker) -> None:
        if self._closed or not worker.alive:
            self._units -= 1
            self._watch(self._kill(worker))
        else:
            self._idle.append(worker)
        self._notify()

    async def _discard(self, worker: _Worker) -> None:
        """Kill a worker that held capacity, and give the capacity back."""
        self._units -= 1
        self._notify()
        await self._kill(worker)

    async def _kill(self, worker: _Worker) -> None:
        await worker.kill()
        self._live.discard(worker)
        self._processes.discard(worker.process)

    def _start_process(self) -> subprocess.Popen[bytes]:
        # On the pool's thread: the set is changed here and on the loop, one at a time
        # (a set's add and discard are atomic under the GIL).
        process = _start_process()
        self._processes.add(process)
        return process

    def _top_up(self) -> None:
        while (
            not self._closed
            and len(self._idle) + self._starting < self.spares
            and self._units < self.max_workers
        ):
            self._units += 1
            self._starting += 1
            self._watch(self._spare())

    async def _spare(self) -> None:
        try:
            worker = await self._spawn()
        except Exception:  # a later bind starts its own and reports the problem
            self._units -= 1
            self._notify()
            return
        except BaseException:
            self._units -= 1
            raise
        finally:
            self._starting -= 1
        self._put_idle(worker)

    def _watch(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- processes ------------------------------------------------------------------

    def _threads(self) -> concurrent.futures.ThreadPoolExecutor:
        # Starting a process (fork, exec) and reaping one block for a moment: they run
        # on this pool's own thread, never on the event loop or its default executor.
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="snakewar-bot-pool"
            )
        return self._executor

    async def _spawn(self) -> _Worker:
        """Start a worker and wait until it is ready.

        Raises:
            BotPoolError: if it cannot start (its imports fail, Python is missing).
        """
        self._check_open()
        loop = asyncio.get_running_loop()
        threads = self._threads()
        starting = loop.run_in_executor(threads, self._start_process)
        self._starts.add(starting)
        starting.add_done_callback(self._starts.discard)
        try:
            process = await asyncio.shield(starting)
        except asyncio.CancelledError:
            starting.add_done_callback(_kill_when_started)
            raise
        except OSError as exc:
            raise BotPoolError(f"a bot worker could not start: {exc}") from None
        assert process.stdin is not None and process.stdout is not None
        reader = asyncio.StreamReader(limit=HEADER.size + MAX_WORKER_REPLY_BYTES)
        read_transport: asyncio.BaseTransport | None = None
        try:
            read_transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), process.stdout
            )
            write_transport, protocol = await loop.connect_write_pipe(
                asyncio.streams.FlowControlMixin, process.stdin
            )
        except BaseException:  # a failure, or the pool closed (its tasks cancelled) here
            if read_transport is not None:
                read_transport.close()
            process.kill()
            _close_pipes(process)
            await loop.run_in_executor(threads, process.wait)
            self._processes.discard(process)
            raise
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        worker = _Worker(process, reader, writer, threads)
        worker.reader_transport = read_transport
        self._live.add(worker)
        self.started += 1
        if self._closed:  # closed while it started: it must not outlive the pool
            await self._kill(worker)
            self._check_open()
        try:
            setup = pickle.dumps((list(sys.path), list(self.imports)))
            writer.write(HEADER.pack(len(setup)) + setup)
            await writer.drain()
            ready = await worker.read()
        except (asyncio.IncompleteReadError, ConnectionError, _WorkerGone) as exc:
            await self._kill(worker)
            raise BotPoolError(
                f"a bot worker exited while starting (status {process.returncode}, "
                f"{type(exc).__name__})"
            ) from None
        except BaseException:
            await self._kill(worker)
            raise
        if "ok" not in ready:
            await self._kill(worker)
            raise BotPoolError(f"a bot worker could not start: {ready.get('error')}")
        return worker


def _start_process() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", BOOTSTRAP],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        # Its own session: a terminal's Ctrl-C reaches the server, which closes the
        # pool, rather than every worker in the middle of a call.
        start_new_session=True,
    )


def _kill_when_started(started: asyncio.Future[subprocess.Popen[bytes]]) -> None:
    # A start cancelled half-way: the process exists all the same.  Killed and reaped
    # here, at once (waiting for a process just sent SIGKILL is short).
    if not started.cancelled() and started.exception() is None:
        _reap([started.result()])


def _reap(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            process.wait()
        _close_pipes(process)


def _close_pipes(process: subprocess.Popen[bytes]) -> None:
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


class BotSeat:
    """A bot built in a worker of a :class:`BotPool`, for one game.

    Made by :meth:`BotPool.bind`; call :meth:`release` when the game ends.
    """

    def __init__(
        self,
        pool: BotPool,
        worker: _Worker,
        game: Game,
        spec: str,
        seed: int,
        restart: bool,
        call_timeout_s: float | None,
    ) -> None:
        self.pool = pool
        self.game = game
        self.spec = spec
        self.seed = seed
        self.restart = restart
        self.call_timeout_s = call_timeout_s
        self.restarts = 0
        """Replacements started after a timeout or a dead worker."""
        self._worker: _Worker | None = worker
        self._replacing: asyncio.Task[_Worker] | None = None
        self._setup: list[tuple[Any, ...]] = []
        self._released = False

    @property
    def pid(self) -> int | None:
        """The process id of the seat's worker (``None`` while it has none)."""
        return self._worker.pid if self._worker is not None else None

    def remember(self, message: tuple[Any, ...]) -> None:
        """Send ``message`` again to any replacement, after it builds the bot (a ``/start``)."""
        self._setup.append(message)

    async def call(self, kind: str, payload: Any, timeout_s: float | None) -> WorkerReply:
        """Send one call and await its reply within ``timeout_s`` (``None``: no limit).

        Never raises for anything the bot or its worker does: a timeout kills the
        worker and is a ``timeout`` reply (see :class:`WorkerReply`).
        """
        started = time.perf_counter()

        def elapsed() -> int:
            return round((time.perf_counter() - started) * 1000)

        if self._released or self.pool._closed:
            return WorkerReply("gone", 0, error="the bot's worker was released")
        try:
            async with asyncio.timeout(timeout_s):
                worker = await self._ready()
                reply = await worker.ask((kind, payload))
        except TimeoutError:
            await self._lose()
            limit = round((timeout_s or 0) * 1000)
            return WorkerReply(
                "timeout", limit, error=f"no reply within {limit} ms (the worker was killed)"
            )
        except (_WorkerGone, SnakewarError) as exc:
            await self._lose()
            return WorkerReply("gone", elapsed(), error=f"bot worker: {exc}"[:300])
        if "error" in reply:
            return WorkerReply(
                "error", elapsed(), error=str(reply["error"])[:300], trace=str(reply.get("trace"))
            )
        return WorkerReply("ok", elapsed(), value=reply.get("ok"))

    async def release(self) -> None:
        """End the seat: its worker goes back to the pool if clean, else is killed."""
        if self._released:
            return
        self._released = True
        if self._replacing is not None:
            self._replacing.cancel()
            with contextlib.suppress(BaseException):
                await self._replacing
            self._replacing = None
        worker, self._worker = self._worker, None
        pool = self.pool
        if worker is None:
            pool._units -= 1
            pool._notify()
            return
        if worker.clean and worker.alive and not pool._closed:
            try:
                async with asyncio.timeout(_DROP_TIMEOUT_S):
                    reply = await worker.ask(("drop",))
                if "ok" in reply:
                    pool._put_idle(worker)
                    return
            except (TimeoutError, _WorkerGone):
                pass
        await pool._discard(worker)

    async def _ready(self) -> _Worker:
        if self._worker is not None:
            return self._worker
        if self._replacing is None:
            if not self.restart:
                raise _WorkerGone("the bot was stopped after a timeout or a crash")
            self._start_replacement()
        assert self._replacing is not None
        try:
            # Shielded: a call that runs out of time leaves the start-up going.
            worker = await asyncio.shield(self._replacing)
        except (_WorkerGone, SnakewarError):
            self._replacing = None
            raise
        self._replacing = None
        self._worker = worker
        return worker

    async def _lose(self) -> None:
        """Kill the worker (its state is unknown), and start a replacement if restarting."""
        worker, self._worker = self._worker, None
        if worker is not None:
            self.pool.killed += 1
            await self.pool._kill(worker)
        if self.restart and self._replacing is None and not self.pool._closed:
            self._start_replacement()

    def _start_replacement(self) -> None:
        self.restarts += 1
        self._replacing = asyncio.ensure_future(self._replace())
        # Retrieved by _ready or release; never "exception was never retrieved".
        self._replacing.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def _replace(self) -> _Worker:
        worker = await self.pool._replacement()
        try:
            async with asyncio.timeout(self.call_timeout_s):
                reply = await worker.ask(
                    ("load", self.game, worker_host(self.game), self.spec, self.seed)
                )
                if "error" in reply:
                    raise _WorkerGone(f"the bot could not be built again: {reply['error']}")
                for message in self._setup:
                    await worker.ask(message)  # its outcome was recorded the first time
        except TimeoutError:
            await self.pool._kill(worker)
            limit = round((self.call_timeout_s or 0) * 1000)
            raise _WorkerGone(f"the new bot took over {limit} ms to set up") from None
        except BaseException:
            await self.pool._kill(worker)
            raise
        return worker


def worker_host(game: Game) -> str:
    """Where a worker finds ``game``'s worker bots (``"module:ATTRIBUTE"``; ``""``: its adapter).

    Raises:
        UnknownGameError: ``game`` is no registered game.
    """
    where = _HOSTS.get(game)
    if where is None:
        where = _HOSTS[game] = get_game(game).worker_host() or ""
    return where


_HOSTS: dict[str, str] = {}


def session_pool(session: PlaySession, **options: Any) -> BotPool:
    """The bot pool of ``session``: made on first use, closed with the session.

    ``options`` are :class:`BotPool`'s; they count only when the pool is made, so an
    owner that wants another size asks first (a server, before its first game).
    """

    def make() -> BotPool:
        pool = BotPool(**options)
        session.on_close(pool.aclose)
        return pool

    return session.shared(SESSION_KEY, make)


def __getattr__(name: str) -> Any:
    return moved_attribute(__name__, name)
