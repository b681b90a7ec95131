"""Ladder and tournament runs in the background, a bounded number at a time.

A run plays many games, so it runs on one of the worker's threads, never on the
server's event loop; one run per ladder or tournament at a time.  Its games are the
server's live games (:class:`LiveExecutor`): they are played on the server's event loop
by the :class:`~snakewar.server.manager.GameManager`, so anyone can watch them while
they are played, as any game.  Each run keeps its :class:`RunProgress` (games asked,
games played, why it stopped), which the API shows while it runs and after it ended.

A request reserves its run's place (:meth:`ArenaWorker.reserve`) before it stores
anything, so a run the arena has no room for is refused with nothing left behind.  A
run can be stopped (:meth:`ArenaWorker.stop`): its games in flight are cancelled (a
tournament plays them again, from their start, when it is played on) and it plays no
more.  Which server of several plays a run is :mod:`snakewar.server.runs`' business.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final

from snakewar.arena.executors import Executor, GameJob, GameOutcome, OnResult
from snakewar.errors import BusyError, ConflictError
from snakewar.storage import GameNotFoundError

if TYPE_CHECKING:
    from snakewar.server.manager import GameManager

__all__ = [
    "STOP_REASONS",
    "ArenaBusyError",
    "ArenaFullError",
    "ArenaWorker",
    "LiveExecutor",
    "RunProgress",
    "RunSlot",
    "RunState",
    "StopReason",
]

_ERROR_CHARS = 500
"""The longest reason a stopped run keeps."""


class RunState(StrEnum):
    """A ladder's or tournament's run as the API shows it; values are the wire strings."""

    RUNNING = "running"
    STOPPING = "stopping"
    """An admin stopped it; its server ends it soon."""
    DONE = "done"
    STOPPED = "stopped"
    """Stopped by an admin."""
    FAILED = "failed"
    """Ended by an error (``error`` says which)."""
    INTERRUPTED = "interrupted"
    """Its server stopped or died mid-run: a server plays it on when it starts."""


class StopReason(StrEnum):
    """Why a run is asked to end early (:meth:`ArenaWorker.stop`)."""

    STOP = "stop"
    """An admin stopped it."""
    LOST = "lost"
    """This server's lease on it ran out: another server plays it now."""
    CLOSING = "closing"
    """This server is stopping."""


STOP_REASONS: Final = {
    StopReason.STOP: "",
    StopReason.LOST: "another server plays this run now (this one's lease on it ran out)",
    StopReason.CLOSING: "its server stopped mid-run; a server plays it on when it starts",
}
"""Why a run is asked to end early (:meth:`ArenaWorker.stop`), and what it says then: an
admin's stop is no error."""


class ArenaBusyError(ConflictError):
    """Raised when a ladder or tournament is already running."""


class ArenaFullError(BusyError):
    """Raised when as many runs are waiting or running as the arena takes."""


@dataclass
class RunProgress:
    """How far a run is: written by the run's thread, read by the API.

    Attributes:
        games: games asked for (``None``: as many as it takes, a tournament).
        done: games played so far.
        running: whether the run is waiting or playing.
        error: why it stopped early ("" while it runs, and after a run that ended well).
        complete: the run played all it was asked to (set by the run at its end).
        stopping: why it was asked to end early (``None``: it was not).
    """

    games: int | None = None
    done: int = 0
    running: bool = True
    error: str = ""
    complete: bool = False
    stopping: StopReason | None = None

    def played(self, count: int = 1) -> None:
        """Count ``count`` more games played."""
        self.done += count

    def should_stop(self) -> bool:
        """Whether the run is asked to end early (its thread asks between rounds)."""
        return bool(self.stopping)

    @property
    def state(self) -> RunState:
        """Its state (``interrupted``: it ended here, not for good).

        It ended without ending for good when its server stopped, or another server
        plays it now.
        """
        if self.running:
            return RunState.STOPPING if self.stopping is StopReason.STOP else RunState.RUNNING
        if self.complete:
            return RunState.DONE
        if self.stopping is StopReason.STOP:
            return RunState.STOPPED
        if self.stopping:
            return RunState.INTERRUPTED
        return RunState.FAILED if self.error else RunState.DONE


class RunSlot:
    """A run's place in the arena, held while a request prepares the run.

    :meth:`ArenaWorker.reserve` makes it; :meth:`ArenaWorker.submit` takes it over.
    """

    def __init__(self, key: str) -> None:
        self.key = key
        self.used = False


class ArenaWorker:
    """Runs ladder and tournament runs on its own threads.

    Args:
        workers: runs played at once; more wait for a free thread.
        max_runs: runs waiting or running at once; more are refused.
    """

    def __init__(self, workers: int = 2, max_runs: int = 16) -> None:
        self.max_runs = max_runs
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="arena")
        self._running: set[str] = set()
        self._reserved: dict[str, RunSlot] = {}
        self._tasks: set[asyncio.Future[None]] = set()
        self._progress: dict[str, RunProgress] = {}
        self._stoppers: dict[str, Callable[[], Awaitable[None]]] = {}

    def is_running(self, key: str) -> bool:
        """Whether the run ``key`` (``ladder:NAME``, ``tournament:ID``) is going on."""
        return key in self._running

    def running(self) -> dict[str, RunProgress]:
        """The runs going on now, by key."""
        return {key: self._progress[key] for key in list(self._running) if key in self._progress}

    def progress(self, key: str) -> RunProgress | None:
        """The latest run of ``key``: going on, or how it ended (``None``: none yet)."""
        return self._progress.get(key)

    def forget(self, key: str) -> None:
        """Drop what is known of ``key``'s last run (its ladder or tournament is deleted)."""
        if key not in self._running:
            self._progress.pop(key, None)

    def has_room(self) -> bool:
        """Whether one more run would be taken now."""
        return len(self._running) + len(self._reserved) < self.max_runs

    def _check(self, key: str) -> None:
        if key in self._running or key in self._reserved:
            raise ArenaBusyError(f"{key.replace(':', ' ', 1)!r} is running already")
        if not self.has_room():
            busy = len(self._running) + len(self._reserved)
            raise ArenaFullError(
                f"{busy} ladder and tournament runs are waiting or running, "
                "the most this server takes; try again later"
            )

    @contextlib.contextmanager
    def reserve(self, key: str) -> Iterator[RunSlot]:
        """Hold ``key``'s place while a request prepares its run (call before any await).

        A request checks and stores things before it :meth:`submit` s the run; refused
        first, it stores nothing (a tournament refused for a full arena is never
        stored).  Pass the slot to :meth:`submit` inside the block.

        Raises:
            ArenaBusyError: if ``key`` is running (or being started) already.
            ArenaFullError: if :attr:`max_runs` runs are waiting or running.
        """
        self._check(key)
        slot = RunSlot(key)
        self._reserved[key] = slot
        try:
            yield slot
        finally:
            if self._reserved.get(key) is slot:
                del self._reserved[key]

    def submit(
        self,
        key: str,
        run: Callable[[], object],
        progress: RunProgress | None = None,
        *,
        slot: RunSlot | None = None,
        on_stop: Callable[[], Awaitable[None]] | None = None,
        on_end: Callable[[RunProgress], None] | None = None,
    ) -> RunProgress:
        """Start ``run()`` in the background as ``key`` (call from the event loop).

        Args:
            key: the run's name (``ladder:NAME``, ``tournament:ID``).
            run: plays the games; it counts them in ``progress`` as it goes, asks
                ``progress.should_stop()`` between rounds, and sets
                ``progress.complete`` once it played all it was asked to.
            progress: the run's progress (made before, so that ``run`` can count in it).
            slot: the place :meth:`reserve` holds for it.
            on_stop: cancels the run's games in flight (:meth:`stop` awaits it).
            on_end: called on the run's thread once it ended (however it did), before
                the run stops counting as running.

        Returns:
            The run's progress; its ``error`` is set if ``run`` raises.

        Raises:
            ArenaBusyError: if ``key`` is running already.
            ArenaFullError: if :attr:`max_runs` runs are waiting or running.
        """
        if slot is None or slot.used or slot.key != key or self._reserved.get(key) is not slot:
            self._check(key)
        else:
            slot.used = True
            del self._reserved[key]
        self._running.add(key)
        state = progress if progress is not None else RunProgress()
        state.running = True
        state.error = ""
        self._progress[key] = state
        if on_stop is not None:
            self._stoppers[key] = on_stop

        def play() -> None:
            try:
                run()
            except Exception as exc:  # the run stops; the API shows why
                if not state.stopping:
                    state.error = str(exc)[:_ERROR_CHARS] or type(exc).__name__
            finally:
                if state.stopping and not state.complete:
                    state.error = STOP_REASONS.get(state.stopping, "")
                state.running = False
                try:
                    if on_end is not None:
                        with contextlib.suppress(Exception):  # its lease runs out instead
                            on_end(state)
                finally:
                    self._stoppers.pop(key, None)
                    self._running.discard(key)

        task = asyncio.get_running_loop().run_in_executor(self._pool, play)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return state

    async def stop(self, key: str, reason: StopReason = StopReason.STOP) -> bool:
        """Ask the run ``key`` to end now: its games in flight are cancelled.

        Args:
            key: the run.
            reason: why; the first reason given holds.

        Returns:
            ``False`` if ``key`` is not running here.
        """
        if reason not in STOP_REASONS:
            raise ValueError(f"reason {reason!r}: expected one of {', '.join(STOP_REASONS)}")
        reason = StopReason(reason)
        progress = self._progress.get(key)
        if key not in self._running or progress is None:
            return False
        if not progress.stopping:
            progress.stopping = reason
        stopper = self._stoppers.get(key)
        if stopper is not None:
            await stopper()
        return True

    async def drain(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the runs going on to end; whether they did."""
        tasks = set(self._tasks)
        if not tasks:
            return True
        _, pending = await asyncio.wait(tasks, timeout=timeout)
        return not pending

    def close(self) -> None:
        """Stop accepting runs; runs not started yet are dropped."""
        self._pool.shutdown(wait=False, cancel_futures=True)


class LiveExecutor(Executor):
    """Plays a run's games as the server's live games, ``concurrency`` at a time.

    Called on an arena thread: each game is handed to the
    :class:`~snakewar.server.manager.GameManager` on the server's event loop ``loop``,
    under the game id the run chose, so it can be watched live like any game
    (``/view/{id}``); it is stored once, whole, when it is complete (as a run stores its
    games: a transaction a game, not a turn).  The games follow the manager's address policy
    (the server's, the one the runs give their jobs).  They do not count against the
    server's cap on concurrent games: the arena bounds them itself (its workers times
    ``concurrency``), and a full server must not fail a tournament's games.
    """

    def __init__(
        self,
        manager: GameManager,
        loop: asyncio.AbstractEventLoop,
        concurrency: int = 4,
    ) -> None:
        self.manager = manager
        self.loop = loop
        self.concurrency = concurrency
        self._stopped = False
        self._live: set[str] = set()

    async def stop(self) -> None:
        """Play no more games, and cancel those in flight (call on the event loop)."""
        self._stopped = True
        for game_id in list(self._live):
            await self.manager.cancel(game_id)

    async def _play(self, job: GameJob, limit: asyncio.Semaphore) -> GameOutcome:
        async with limit:
            game_id = job.game_id if job.game_id is not None else str(uuid.uuid4())
            if self._stopped:
                return GameOutcome(job.job_id, job.seed, None, error="the run was stopped")
            await self._clear(game_id)
            if self._stopped:  # checked again: stop() may have run while we cleared
                return GameOutcome(job.job_id, job.seed, None, error="the run was stopped")
            self._live.add(game_id)
            try:
                try:
                    # Stored whole at its end (one transaction a game) when this server
                    # plays it and shows it live; on a cluster no server plays it, and
                    # only the database can show it live, on every replica: turn by turn.
                    live = await self.manager.create(
                        job.spec,
                        job.seed,
                        game_id=game_id,
                        capped=False,
                        store_frames=self.manager.runner.remote,
                    )
                except Exception as exc:  # an unreachable bot: this game fails, not the run
                    error = f"{type(exc).__name__}: {exc}"
                    return GameOutcome(job.job_id, job.seed, None, error=error)
                if self._stopped:  # stop() ran while the game started
                    await self.manager.cancel(live.id)
                if live.task is not None:
                    # wait() returns however the game ends (a cancelled game too).
                    await asyncio.wait({live.task})
            finally:
                self._live.discard(game_id)
            if live.played is None:
                reason = live.error or f"the game was {live.status}"
                return GameOutcome(job.job_id, job.seed, None, error=reason)
            return GameOutcome(job.job_id, job.seed, live.played)

    async def _clear(self, game_id: str) -> None:
        # A run names its games from its own state, so a game stored under this id is
        # an earlier try of this very game that never counted (cancelled, aborted, or
        # played just before a crash): it is played again, and stored afresh.
        store = self.manager.store
        row = await store.run(store.store.games.get, game_id)
        if row is not None and row.finished:
            with contextlib.suppress(GameNotFoundError):
                await store.run(store.store.games.delete, game_id)

    def _execute(self, jobs: list[GameJob], deliver: OnResult) -> None:
        limit = asyncio.Semaphore(self.concurrency)
        futures = [
            asyncio.run_coroutine_threadsafe(self._play(job, limit), self.loop) for job in jobs
        ]
        by_future = dict(zip(futures, jobs, strict=True))
        for future in concurrent.futures.as_completed(futures):
            job = by_future[future]
            try:
                outcome = future.result()
            except BaseException as exc:  # the server is stopping: the game did not end
                outcome = GameOutcome(job.job_id, job.seed, None, error=f"not played: {exc!r}")
            deliver(outcome)
