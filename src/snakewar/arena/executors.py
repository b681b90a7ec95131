"""Game executors: where the arena's games are played.

An :class:`Executor` takes :class:`GameJob` s (a :class:`~snakewar.engine.protocol.MatchSpec`
of any registered game, a seed and a unique ``job_id``) and returns one
:class:`GameOutcome` per job, in the order the jobs were given, calling ``on_result`` as
each game ends.  A game that cannot be played (an unknown bot, an unreachable snake, a
worker that keeps dying) becomes an outcome with ``error`` set; it never stops the other
games.  Three executors share this contract:

* :class:`InProcessExecutor`: games on one asyncio event loop in this process,
  ``concurrency`` at a time (the default; best for bots on the network).
* :class:`ProcessPoolExecutor`: a local pool of ``spawn`` worker processes, one
  game per task (built-in bots are CPU-bound, so this uses several cores).
* :class:`RayExecutor`: one Ray task per game, on a local or remote Ray cluster
  (the optional extra ``pip install "snakewar[ray]"``).

Each executor may be given a :class:`GameGate`: it starts a game only once the gate
admits it, and lets the gate look at each game as it ends, before the game's place is
given back.  :class:`BotLimits` is the gate of bots that play at most so many games at
once (a launched bot's ``max_games``): a game waits while one of its bots is at its
limit, and the games without such a bot go on.

Every game is played by its game's adapter (:func:`snakewar.adapters.get_game`), so an
executor never knows which game it runs.  A game depends only on its spec and seed, so
for deterministic bots the results are the same whichever executor plays them.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import dataclasses
import importlib
import multiprocessing
import os
import socket
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Final

from snakewar.adapters import get_game
from snakewar.engine.protocol import MatchHooks, MatchSpec, OutboundPolicy, PlayedGame, PlaySession
from snakewar.errors import MissingExtraError, SnakewarError

__all__ = [
    "EXECUTOR_KINDS",
    "RAY_NICENESS_ENV",
    "RAY_WORKER_NICENESS",
    "BotLimits",
    "Executor",
    "ExecutorError",
    "GameFn",
    "GameGate",
    "GameJob",
    "GameOutcome",
    "InProcessExecutor",
    "OnResult",
    "ProcessPoolExecutor",
    "RayExecutor",
    "join_ray",
    "make_executor",
    "measure_games_per_minute",
    "play_job",
    "play_job_async",
]


class ExecutorError(SnakewarError, ValueError):
    """Raised for an executor setting or a job list that cannot be used."""


@dataclass(frozen=True, slots=True)
class GameJob:
    """One game to play: a match spec and a seed, named by a unique ``job_id``.

    ``game_id`` is the id the played game gets (default: the game derives one).
    ``outbound`` is the address policy the game's connections follow (a public
    server's); it travels with the job to worker processes and Ray tasks.
    """

    job_id: str
    spec: MatchSpec
    seed: int
    game_id: str | None = None
    outbound: OutboundPolicy | None = None


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """What became of one :class:`GameJob`.

    Exactly one of ``played`` and ``error`` is set.  ``attempts`` counts the
    times the game was started (more than one only after a worker died).
    """

    job_id: str
    seed: int
    played: PlayedGame | None
    attempts: int = 1
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the game was played to the end."""
        return self.error is None


OnResult = Callable[[GameOutcome], None]
"""Called with each outcome as it arrives (in completion order)."""

GameFn = Callable[[GameJob], GameOutcome]
"""Plays one job in a worker; :func:`play_job` by default."""


class GameGate:
    """Which games may start now, and a last look at each game as it ends.

    An executor asks :meth:`admit` before it starts a game (a game not admitted waits
    and is asked again when another ends), calls :meth:`ended` with the game's outcome
    while the game still holds its place, then :meth:`release`.  This base gate admits
    every game and changes nothing.  Its methods may be called from several threads.
    """

    def admit(self, job: GameJob) -> bool:
        """Whether ``job`` may start now; if so, it holds its place until :meth:`release`."""
        return True

    def ended(self, job: GameJob, outcome: GameOutcome) -> GameOutcome:
        """The outcome of ``job`` to deliver (it may add to it); it may block."""
        return outcome

    def release(self, job: GameJob) -> None:
        """``job`` is over: give its place back."""


def _address(url: str) -> str:
    return url.rstrip("/")


class BotLimits(GameGate):
    """A gate for bots on the network that play at most so many games at once.

    ``limits`` maps a bot's address (what its game calls: :attr:`Reach.url`) to the
    most games it plays at once; 0 is no limit (the bot's games are only followed, for
    :meth:`playing`).  A game is admitted once none of its bots is at its limit; a game
    that seats a bot twice holds one place of it.

    Attributes:
        most: for each address, the most games it played at once so far.
    """

    def __init__(self, limits: Mapping[str, int]) -> None:
        for url, limit in limits.items():
            if limit < 0:
                raise ExecutorError(f"a limit of {limit} games for {url}: expected 0 or more")
        self._limits = {_address(url): limit for url, limit in limits.items()}
        self._playing: dict[str, list[str]] = {url: [] for url in self._limits}
        self._held: dict[str, tuple[str, ...]] = {}
        self._bots: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()
        self.most: dict[str, int] = dict.fromkeys(self._limits, 0)

    def bots_of(self, job: GameJob) -> tuple[str, ...]:
        """The addresses of ``job``'s bots that this gate follows, once each."""
        found = self._bots.get(job.job_id)
        if found is not None:
            return found
        keys: list[str] = []
        try:
            adapter = get_game(job.spec.game)
            for entrant in job.spec.entrants:
                url = adapter.reach(entrant).url
                if url is not None and _address(url) in self._limits:
                    keys.append(_address(url))
        except Exception:  # the game itself says what is wrong when it is played
            keys = []
        found = self._bots[job.job_id] = tuple(dict.fromkeys(keys))
        return found

    def admit(self, job: GameJob) -> bool:
        """Admitted (and holding a place of each of its bots) if none is at its limit."""
        keys = self.bots_of(job)
        with self._lock:
            if any(0 < self._limits[k] <= len(self._playing[k]) for k in keys):
                return False
            for key in keys:
                self._playing[key].append(job.job_id)
                self.most[key] = max(self.most[key], len(self._playing[key]))
            self._held[job.job_id] = keys
        return True

    def release(self, job: GameJob) -> None:
        """Give back the places ``job`` held."""
        with self._lock:
            for key in self._held.pop(job.job_id, ()):
                self._playing[key].remove(job.job_id)
        self._bots.pop(job.job_id, None)

    def playing(self, url: str) -> tuple[str, ...]:
        """The ids of the jobs being played now that seat the bot at ``url``."""
        with self._lock:
            return tuple(self._playing.get(_address(url), ()))


def _failed(job: GameJob, error: str, attempts: int = 1) -> GameOutcome:
    return GameOutcome(job.job_id, job.seed, None, attempts, error)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


async def play_job_async(job: GameJob, session: PlaySession | None = None) -> GameOutcome:
    """Play one job on the running event loop, sharing ``session``'s resources.

    Every exception the game raises becomes the outcome's ``error``: one job that
    cannot run (a bad entrant, an unreachable bot) must not sink a batch.
    """
    if session is None or session.outbound != job.outbound:
        async with PlaySession(job.outbound) as own:
            return await play_job_async(job, own)
    try:
        adapter = get_game(job.spec.game)
        played = await adapter.play(job.spec, job.seed, session, MatchHooks(game_id=job.game_id))
    except Exception as exc:  # reported in the outcome, see docstring
        return _failed(job, _describe(exc))
    return GameOutcome(job.job_id, job.seed, played)


class _ProcessGames:
    """This process's event loop and play sessions, kept from one game to the next.

    A pool's worker process or a Ray worker plays many games: a fresh session a game
    started the game's built-in bots in fresh worker processes each time (about 0.6 s of
    CPU a bot, most of a small game's cost).  Kept, they are started once a process.
    The bot workers end with the process (their pipes close) or at its exit.
    """

    def __init__(self) -> None:
        self.runner: asyncio.Runner | None = None
        self.sessions: dict[OutboundPolicy | None, PlaySession] = {}

    def play(self, job: GameJob) -> GameOutcome:
        if self.runner is None:
            self.runner = asyncio.Runner()
            atexit.register(self.close)
        session = self.sessions.get(job.outbound)
        if session is None:
            session = self.sessions[job.outbound] = PlaySession(job.outbound)
        return self.runner.run(play_job_async(job, session))

    def close(self) -> None:
        runner, self.runner = self.runner, None
        sessions, self.sessions = list(self.sessions.values()), {}
        if runner is not None:
            for session in sessions:
                runner.run(session.aclose())
            runner.close()


_PROCESS_GAMES = _ProcessGames()


def play_job(job: GameJob) -> GameOutcome:
    """Play one job in this process (what pool worker processes and Ray tasks run).

    The process's event loop and sessions (its built-in bots' workers, its HTTP
    connections) are kept for its next jobs, and released when it exits.
    """
    return _PROCESS_GAMES.play(job)


def _check_jobs(jobs: Sequence[GameJob]) -> list[GameJob]:
    seen: set[str] = set()
    for job in jobs:
        if job.job_id in seen:
            raise ExecutorError(f"duplicate job id {job.job_id!r}; every job needs its own id")
        seen.add(job.job_id)
    return list(jobs)


def _check_positive(what: str, value: int | None) -> None:
    if value is not None and value < 1:
        raise ExecutorError(f"{what} {value!r} is out of range; expected at least 1")


class Executor(ABC):
    """Plays :class:`GameJob` s somewhere; subclasses choose where.

    Attributes:
        gate: which games may start now, and a look at each as it ends
            (:class:`GameGate`); ``None``: any game, as soon as there is room.  It may be
            set after the executor is made (before :meth:`run`): a caller checks its
            options first, then starts what the gate follows (launched bots).
    """

    gate: GameGate | None = None

    def run(
        self, jobs: Sequence[GameJob], *, on_result: OnResult | None = None
    ) -> list[GameOutcome]:
        """Play every job and return their outcomes in job order.

        Args:
            jobs: the games; their ``job_id`` s must be unique.
            on_result: called in this thread with each outcome as it arrives.

        Raises:
            ExecutorError: for duplicate job ids.
            MissingExtraError: for :class:`RayExecutor` without Ray installed.
        """
        ordered = _check_jobs(jobs)
        results: dict[str, GameOutcome] = {}

        def deliver(outcome: GameOutcome) -> None:
            # A job is reported once even if a retried task also finished late.
            if outcome.job_id in results:
                return
            results[outcome.job_id] = outcome
            if on_result is not None:
                on_result(outcome)

        self._execute(ordered, deliver)
        for job in ordered:
            if job.job_id not in results:  # pragma: no cover - each backend delivers every job
                deliver(_failed(job, "the executor returned no result for this job"))
        return [results[job.job_id] for job in ordered]

    @abstractmethod
    def _execute(self, jobs: list[GameJob], deliver: OnResult) -> None:
        """Play ``jobs`` and hand every outcome to ``deliver``."""


class InProcessExecutor(Executor):
    """Games on one asyncio event loop in this process, ``concurrency`` at a time.

    Concurrency mostly helps bots on the network (HTTP snakes), whose games spend
    their time waiting.

    Raises:
        ExecutorError: if ``concurrency`` is below 1.
    """

    def __init__(self, concurrency: int = 1, *, gate: GameGate | None = None) -> None:
        _check_positive("concurrency", concurrency)
        self.concurrency = concurrency
        self.gate = gate

    def _execute(self, jobs: list[GameJob], deliver: OnResult) -> None:
        asyncio.run(self.run_async(jobs, deliver))

    async def run_async(self, jobs: Sequence[GameJob], deliver: OnResult) -> None:
        """Play ``jobs`` on the running loop, handing each outcome to ``deliver``.

        For callers that already run an event loop (:meth:`run` starts its own).
        """
        gate = self.gate
        limit = asyncio.Semaphore(self.concurrency)
        places = asyncio.Condition()
        running = 0
        # Jobs of one batch share connections (and so their address policy).
        async with PlaySession(jobs[0].outbound if jobs else None) as session:

            async def one(job: GameJob) -> None:
                nonlocal running
                if gate is None:
                    async with limit:
                        outcome = await play_job_async(job, session)
                    deliver(outcome)
                    return
                async with places:
                    # Waiters wake in job order: the first admissible job starts first.
                    await places.wait_for(lambda: running < self.concurrency and gate.admit(job))
                    running += 1
                try:
                    outcome = await play_job_async(job, session)
                    # The gate's look may block (a launched bot being restarted).
                    outcome = await asyncio.to_thread(gate.ended, job, outcome)
                finally:
                    gate.release(job)
                    async with places:
                        running -= 1
                        places.notify_all()
                deliver(outcome)

            async with asyncio.TaskGroup() as group:
                for job in jobs:
                    group.create_task(one(job))


class ProcessPoolExecutor(Executor):
    """A local pool of ``workers`` processes (``spawn``), one game per task.

    A worker that dies breaks the whole pool (that is how
    :mod:`concurrent.futures` works), so the unfinished games are resubmitted to
    a fresh pool, each counting one more attempt; after ``max_retries`` broken
    pools they are reported as failed.

    Games are handed to the pool as it has a free worker (and, with a ``gate``, as the
    gate admits them), in job order where they may start.

    Args:
        workers: pool size.
        max_retries: fresh pools after a worker death.
        game_fn: the function each task runs; must be picklable (module level).
        gate: which games may start now (:class:`GameGate`); ``None``: any.

    Raises:
        ExecutorError: if ``workers`` is below 1 or ``max_retries`` below 0.
    """

    def __init__(
        self,
        workers: int = 2,
        *,
        max_retries: int = 1,
        game_fn: GameFn = play_job,
        gate: GameGate | None = None,
    ):
        _check_positive("workers", workers)
        _check_positive("max_retries + 1", max_retries + 1)
        self.workers = workers
        self.max_retries = max_retries
        self.game_fn = game_fn
        self.gate = gate

    def _execute(self, jobs: list[GameJob], deliver: OnResult) -> None:
        # "spawn" gives each worker a clean interpreter: no inherited event loop,
        # sockets or threads from the parent.
        context = multiprocessing.get_context("spawn")
        pending = {job.job_id: job for job in jobs}
        attempts = dict.fromkeys(pending, 0)
        gate = self.gate or GameGate()
        while pending:
            with concurrent.futures.ProcessPoolExecutor(self.workers, mp_context=context) as pool:
                waiting = list(pending.values())
                running: dict[concurrent.futures.Future[GameOutcome], GameJob] = {}
                broken = False
                try:
                    while waiting or running:
                        for job in list(waiting):
                            if broken or len(running) >= self.workers:
                                break
                            if gate.admit(job):
                                waiting.remove(job)
                                attempts[job.job_id] += 1
                                running[pool.submit(self.game_fn, job)] = job
                        if not running:
                            break  # a broken pool, or nothing admitted: see below
                        done, _ = concurrent.futures.wait(
                            running, return_when=concurrent.futures.FIRST_COMPLETED
                        )
                        for future in done:
                            job = running.pop(future)
                            try:
                                outcome = future.result()
                            except BrokenProcessPool:
                                # Retried below, with the other unfinished games.
                                broken = True
                                gate.release(job)
                                continue
                            except Exception as exc:  # e.g. an unpicklable result
                                outcome = _failed(job, _describe(exc))
                            try:
                                outcome = gate.ended(job, outcome)
                            finally:
                                gate.release(job)
                            del pending[job.job_id]
                            deliver(dataclasses.replace(outcome, attempts=attempts[job.job_id]))
                except BaseException:
                    for job in running.values():
                        gate.release(job)
                    pool.shutdown(wait=False, cancel_futures=True)
                    raise
                if not broken and waiting and not running:
                    # Only a gate that admits nothing while nothing plays gets here.
                    for job in waiting:
                        del pending[job.job_id]
                        deliver(_failed(job, "no game could start: the game gate admits none"))
            for job in list(pending.values()):
                if attempts[job.job_id] > self.max_retries:
                    del pending[job.job_id]
                    error = f"a worker process died; gave up after {attempts[job.job_id]} attempts"
                    deliver(_failed(job, error, attempts[job.job_id]))


def _import_ray() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise MissingExtraError(
            f'RayExecutor needs Ray ({exc.name} is missing): pip install "snakewar[ray]"'
        ) from exc


RAY_WORKER_NICENESS: Final = 0
"""The niceness of the Ray worker processes that play games (Ray's own default is 15).

A game is timed: its referee gives each bot a clock.  At Ray's default, a game on a node
that also runs anything else (a web replica, the database, a build, another program)
gets a CPU only when nothing else wants it: its bots' moves come late, and a new game's
actor can take minutes to start (seen: a fresh cluster's first game refused after 120 s
on a busy host).  The nodes this project starts set it: a local Ray (:func:`join_ray`),
``snakewar cluster worker`` and the compose stack's workers (``RAY_worker_niceness``)."""

RAY_NICENESS_ENV: Final = "RAY_worker_niceness"
"""The environment variable by which ``ray start`` takes :data:`RAY_WORKER_NICENESS`."""


def join_ray(address: str | None, num_cpus: int | None = None) -> Any:
    """The ``ray`` module, initialised: a local Ray (``address`` ``None``) or a cluster's.

    Ray already initialised in this process is used as it is.

    Raises:
        MissingExtraError: without Ray installed.
        ExecutorError: Ray cannot be started or its cluster joined (one line: why).
    """
    ray = _import_ray()
    if not ray.is_initialized():
        where = "a local Ray" if address is None else f"Ray at {address!r}"
        unreachable = _unreachable(address)
        if unreachable:
            # Ray itself retries a head that is not there for minutes.
            raise ExecutorError(f"cannot start or join {where}: {unreachable}")
        try:
            with _niceness_for_new_nodes():
                ray.init(
                    address=address,
                    num_cpus=num_cpus,
                    include_dashboard=False,
                    ignore_reinit_error=True,
                    log_to_driver=False,
                )
        except Exception as exc:
            # Ray says why in many ways (ConnectionError: no cluster at "auto",
            # ValueError: no client package for ray://, RuntimeError, ...): its
            # first line is the reason, for one error line before any game.
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
            raise ExecutorError(f"cannot start or join {where}: {reason}") from None
    return ray


@contextlib.contextmanager
def _niceness_for_new_nodes() -> Iterator[None]:
    """:data:`RAY_NICENESS_ENV` set while Ray starts, for a local node started now.

    Such a node inherits it; a cluster's nodes keep their own, and a user's own setting
    stands.  Through the environment, not ``_system_config``, which Ray refuses when ``ray.init``
    finds a cluster to join instead (``RAY_ADDRESS``, a ``ray start`` on this machine).
    """
    if RAY_NICENESS_ENV in os.environ:
        yield
        return
    os.environ[RAY_NICENESS_ENV] = str(RAY_WORKER_NICENESS)
    try:
        yield
    finally:
        os.environ.pop(RAY_NICENESS_ENV, None)


def _unreachable(address: str | None, timeout_s: float = 10.0) -> str:
    """Why nothing answers at a ``HOST:PORT`` (or ``ray://HOST:PORT``) address ("": it does)."""
    if address is None or address == "auto":
        return ""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return ""  # Ray's own forms (a file, a name): Ray says what is wrong with them
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as exc:
        return f"nothing answers at {host}:{port} ({exc.strerror or type(exc).__name__})"
    return ""


# Errors that mean the task's process or node went away, not that the game failed:
# only these are worth playing again.
_RETRYABLE = ("WorkerCrashedError", "NodeDiedError", "OutOfMemoryError", "ObjectLostError")


def _ray_task(game_fn: GameFn, job: GameJob) -> GameOutcome:
    # The game function travels as an argument so that any picklable callable
    # (not only a plain function, which is all ``ray.remote`` accepts) can be used.
    return game_fn(job)


class RayExecutor(Executor):
    """One Ray task per game, collected with ``ray.wait`` as they finish.

    Ray is started here (``ray.init(address=..., num_cpus=...)``) unless it is
    already initialised.  Tasks are submitted with Ray's ``max_retries=0`` and
    retried by this executor instead: Ray's own retries are invisible to the
    driver, and the outcome's ``attempts`` must be exact.  A game whose worker
    died is played again up to ``max_retries`` times, then reported as failed.

    Args:
        address: ``None`` starts a local Ray, ``"auto"`` joins the running
            cluster, ``"ray://HOST:PORT"`` connects a Ray client.
        num_cpus: CPUs for a local Ray (``None``: all of them).
        max_retries: replays of a game after its worker died.
        game_fn: the function each task runs.
        gate: which games may start now (:class:`GameGate`); ``None``: all at once.

    Raises:
        ExecutorError: if ``num_cpus`` is below 1 or ``max_retries`` below 0; when it
            runs, if Ray cannot be started or its cluster joined.
    """

    def __init__(
        self,
        address: str | None = None,
        num_cpus: int | None = None,
        *,
        max_retries: int = 2,
        game_fn: GameFn = play_job,
        gate: GameGate | None = None,
    ) -> None:
        _check_positive("num_cpus", num_cpus)
        _check_positive("max_retries + 1", max_retries + 1)
        self.address = address
        self.num_cpus = num_cpus
        self.max_retries = max_retries
        self.game_fn = game_fn
        self.gate = gate

    def _execute(self, jobs: list[GameJob], deliver: OnResult) -> None:
        ray = join_ray(self.address, self.num_cpus)
        task = ray.remote(num_cpus=1, max_retries=0)(_ray_task)
        retryable = tuple(getattr(ray.exceptions, name) for name in _RETRYABLE)
        game_fn = ray.put(self.game_fn)
        attempts: dict[str, int] = {}
        running: dict[Any, GameJob] = {}
        gate = self.gate or GameGate()
        waiting = list(jobs)

        def submit(job: GameJob) -> None:
            attempts[job.job_id] = attempts.get(job.job_id, 0) + 1
            running[task.remote(game_fn, job)] = job

        def start_admitted() -> None:
            for job in list(waiting):
                if gate.admit(job):
                    waiting.remove(job)
                    submit(job)

        try:
            start_admitted()
            while running:
                done, _ = ray.wait(list(running), num_returns=1)
                for ref in done:
                    job = running.pop(ref)
                    tries = attempts[job.job_id]
                    try:
                        outcome = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        if isinstance(exc, retryable) and tries <= self.max_retries:
                            submit(job)  # it keeps its place at the gate
                            continue
                        outcome = _failed(
                            job, f"ray task failed after {tries} attempts: {_describe(exc)}"
                        )
                    try:
                        outcome = gate.ended(job, outcome)
                    finally:
                        gate.release(job)
                    deliver(dataclasses.replace(outcome, attempts=tries))
                start_admitted()
        except BaseException:
            for ref, job in running.items():
                gate.release(job)
                ray.cancel(ref, force=True)
            raise
        for job in waiting:
            # Only a gate that admits nothing while nothing plays leaves any.
            deliver(_failed(job, "no game could start: the game gate admits none"))


def measure_games_per_minute(
    executor: Executor, n: int, spec: MatchSpec, *, first_seed: int = 0
) -> float:
    """Play ``n`` games of ``spec`` (seeds ``first_seed, ...``) and return games per minute.

    The time includes the executor's start-up (a process pool's spawn, Ray's
    first tasks), as a user running ``n`` games would see it.

    Raises:
        ExecutorError: if ``n`` is below 1 or any game failed (its error is named).
    """
    _check_positive("n", n)
    jobs = [GameJob(f"bench-{first_seed + i}", spec, first_seed + i) for i in range(n)]
    start = time.perf_counter()
    outcomes = executor.run(jobs)
    elapsed = time.perf_counter() - start
    failed = [o for o in outcomes if not o.ok]
    if failed:
        raise ExecutorError(f"{len(failed)} of {n} games failed; first: {failed[0].error}")
    return n * 60.0 / elapsed


EXECUTOR_KINDS = ("inprocess", "pool", "ray")
"""The names :func:`make_executor` accepts."""


def make_executor(
    kind: str,
    *,
    concurrency: int = 4,
    workers: int = 2,
    ray_address: str | None = None,
    gate: GameGate | None = None,
) -> Executor:
    """Build an executor by name: ``inprocess``, ``pool`` or ``ray`` (``ray_address``).

    ``gate`` says which games may start (:class:`GameGate`; ``None``: any).

    Raises:
        ExecutorError: for an unknown name.
        MissingExtraError: for ``ray`` without the ``ray`` extra installed.
    """
    if kind == "inprocess":
        return InProcessExecutor(concurrency=concurrency, gate=gate)
    if kind == "pool":
        return ProcessPoolExecutor(workers, gate=gate)
    if kind == "ray":
        return RayExecutor(ray_address, gate=gate)
    raise ExecutorError(
        f"executor {kind!r}: expected one of " + ", ".join(repr(k) for k in EXECUTOR_KINDS)
    )
