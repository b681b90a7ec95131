"""Ladder and tournament runs in the background, a bounded number at a time.

A run plays many games, so it runs on one of the worker's threads, never on the
server's event loop; one run per ladder or tournament at a time.  Its games are the
server's live games (:class:`LiveExecutor`): they are played on the server's event loop
by the :class:`~snakewar.server.manager.GameManager`, so anyone can watch them while
they are played, as any game.  Each run keeps its :class:`RunProgress` (games asked,
games played, why it stopped), which the API shows while it runs and after it ended.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from snakewar.arena.executors import Executor, GameJob, GameOutcome, OnResult
from snakewar.errors import BusyError, ConflictError
from snakewar.storage import GameNotFoundError

if TYPE_CHECKING:
    from snakewar.server.manager import GameManager

__all__ = ["ArenaBusyError", "ArenaFullError", "ArenaWorker", "LiveExecutor", "RunProgress"]

_ERROR_CHARS = 500
"""The longest reason a stopped run keeps."""


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
    """

    games: int | None = None
    done: int = 0
    running: bool = True
    error: str = ""

    def played(self, count: int = 1) -> None:
        """Count ``count`` more games played."""
        self.done += count


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
        self._tasks: set[asyncio.Future[None]] = set()
        self._progress: dict[str, RunProgress] = {}

    def is_running(self, key: str) -> bool:
        """Whether the run ``key`` (``ladder:NAME``, ``tournament:ID``) is going on."""
        return key in self._running

    def progress(self, key: str) -> RunProgress | None:
        """The latest run of ``key``: going on, or how it ended (``None``: none yet)."""
        return self._progress.get(key)

    def forget(self, key: str) -> None:
        """Drop what is known of ``key``'s last run (its ladder or tournament is deleted)."""
        if key not in self._running:
            self._progress.pop(key, None)

    def submit(
        self, key: str, run: Callable[[], object], progress: RunProgress | None = None
    ) -> RunProgress:
        """Start ``run()`` in the background as ``key`` (call from the event loop).

        Args:
            key: the run's name (``ladder:NAME``, ``tournament:ID``).
            run: plays the games; it counts them in ``progress`` as it goes.
            progress: the run's progress (made before, so that ``run`` can count in it).

        Returns:
            The run's progress; its ``error`` is set if ``run`` raises.

        Raises:
            ArenaBusyError: if ``key`` is running already.
            ArenaFullError: if :attr:`max_runs` runs are waiting or running.
        """
        if key in self._running:
            raise ArenaBusyError(f"{key.replace(':', ' ', 1)!r} is running already")
        if len(self._running) >= self.max_runs:
            raise ArenaFullError(
                f"{len(self._running)} ladder and tournament runs are waiting or running, "
                "the most this server takes; try again later"
            )
        self._running.add(key)
        state = progress if progress is not None else RunProgress()
        state.running = True
        state.error = ""
        self._progress[key] = state

        def play() -> None:
            try:
                run()
            except Exception as exc:  # the run stops; the API shows why
                state.error = str(exc)[:_ERROR_CHARS] or type(exc).__name__
            finally:
                state.running = False
                self._running.discard(key)

        task = asyncio.get_running_loop().run_in_executor(self._pool, play)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return state

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

    async def _play(self, job: GameJob, limit: asyncio.Semaphore) -> GameOutcome:
        async with limit:
            if job.game_id is not None:
                await self._clear(job.game_id)
            try:
                live = await self.manager.create(
                    job.spec, job.seed, game_id=job.game_id, capped=False, store_frames=False
                )
            except Exception as exc:  # an unreachable bot: this game fails, not the run
                return GameOutcome(job.job_id, job.seed, None, error=f"{type(exc).__name__}: {exc}")
            if live.task is not None:
                # wait() returns however the game ends (a cancelled game too).
                await asyncio.wait({live.task})
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
