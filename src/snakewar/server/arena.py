"""Ladder and tournament runs in the background, a bounded number at a time.

A run plays many games (through the arena's executors, which start their own event
loop), so it runs on one of the worker's threads, never on the server's event loop;
one run per ladder or tournament at a time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable

from snakewar.errors import BusyError, ConflictError

__all__ = ["ArenaBusyError", "ArenaFullError", "ArenaWorker"]


class ArenaBusyError(ConflictError):
    """Raised when a ladder or tournament is already running."""


class ArenaFullError(BusyError):
    """Raised when as many runs are waiting or running as the arena takes."""


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

    def is_running(self, key: str) -> bool:
        """Whether the run ``key`` (``ladder:NAME``, ``tournament:ID``) is going on."""
        return key in self._running

    def submit(self, key: str, run: Callable[[], object]) -> None:
        """Start ``run()`` in the background as ``key`` (call from the event loop).

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

        def play() -> None:
            try:
                run()
            finally:
                self._running.discard(key)

        task = asyncio.get_running_loop().run_in_executor(self._pool, play)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def close(self) -> None:
        """Stop accepting runs; runs not started yet are dropped."""
        self._pool.shutdown(wait=False, cancel_futures=True)
