"""Reading strangers' replays off the event loop: a few memory-capped worker processes.

A replay upload is a few kilobytes that may decompress to tens of MiB of JSON and parse
to millions of Python objects.  A game's reader refuses most of that before it is
built (its own caps); what passes them is still up to a few hundred MiB and a second of
CPU, so it is read here:

* in **worker processes**, not threads: ``json.loads`` holds the GIL while it parses,
  so a thread would stall every request of the server for as long (issue 31 measured
  15.7 s with 8 bombs), and memory a parse grew is given back when a worker is
  replaced (each takes :data:`TASKS_PER_WORKER` files), not kept by the server;
* each worker's address space is capped (``RLIMIT_AS``, :attr:`DecoderPool.memory_bytes`),
  so even a file that fits the caps cannot take more than that: the parse fails with
  ``MemoryError``, answered as 413;
* at most ``workers`` files are read at once server-wide and at most ``waiting`` more
  wait, each for at most ``wait_s``; past that the answer is 429 at once.

The functions the workers run are a game's (a module of its package that imports its
replay reader, never the web framework), handed to :meth:`DecoderPool.run` by its routes.
The jobs that used to be here (``decode_document``...) are importable from here for one
more release, with a :class:`DeprecationWarning` (:mod:`snakewar._moved`).
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import multiprocessing
import resource
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, ParamSpec, TypeVar

from snakewar._moved import moved_attribute
from snakewar.errors import BusyError

# The defining module: the package re-exports each game's formats, which this pool of
# every game must not import.
from snakewar.replay._lines import ReplayError

__all__ = [
    "TASKS_PER_WORKER",
    "DecoderBusyError",
    "DecoderPool",
]


def __getattr__(name: str) -> Any:
    # The jobs and caps that moved into a game's package (snakewar._moved): for one release.
    return moved_attribute(__name__, name)


TASKS_PER_WORKER: Final = 25
"""Files one worker process reads before it is replaced (and its memory given back)."""

DEFAULT_MEMORY_BYTES: Final = 1024 * 1024 * 1024
"""A worker's address-space cap: the largest replay the built-in games' caps let through
needs about 600 MiB to read."""

_P = ParamSpec("_P")
_T = TypeVar("_T")


class DecoderBusyError(BusyError):
    """Raised when every decoder is busy and too many files wait already (429)."""


# -- what the workers run ----------------------------------------------------------------


def _limit_memory(memory_bytes: int) -> None:
    """A worker's initializer: cap its address space (a parse past it is a MemoryError)."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        memory_bytes = min(memory_bytes, hard)
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, hard))


# -- the pool ------------------------------------------------------------------------------


class DecoderPool:
    """At most ``workers`` files read at once, in processes, ``waiting`` more in line.

    Args:
        workers: worker processes (each reads one file at a time).
        waiting: files that may wait for a worker; one more is refused at once (429).
        wait_s: how long a file waits for a worker before it is refused (429).
        memory_bytes: each worker's address-space cap (``RLIMIT_AS``).
        tasks_per_worker: files a worker reads before it is replaced.

    The workers start on the first file (a server that reads none starts none) and
    stop with :meth:`close`.  Use it from one event loop.
    """

    def __init__(
        self,
        workers: int = 2,
        *,
        waiting: int = 6,
        wait_s: float = 10.0,
        memory_bytes: int = DEFAULT_MEMORY_BYTES,
        tasks_per_worker: int = TASKS_PER_WORKER,
    ) -> None:
        if workers < 1 or waiting < 0 or wait_s <= 0:
            raise ValueError("a decoder pool needs a worker, waiting >= 0 and wait_s > 0")
        self.workers = workers
        self.waiting = waiting
        self.wait_s = wait_s
        self.memory_bytes = memory_bytes
        self.tasks_per_worker = tasks_per_worker
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._running = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._closed = False

    @property
    def running(self) -> int:
        """Files being read now (a worker's slot is held until its file is done)."""
        return self._running

    def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._executor is None:
            # spawn: the server has threads, and a forked child would inherit their locks.
            self._executor = concurrent.futures.ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_limit_memory,
                initargs=(self.memory_bytes,),
                max_tasks_per_child=self.tasks_per_worker,
            )
        return self._executor

    def _busy(self) -> DecoderBusyError:
        return DecoderBusyError(
            f"the server is reading {self.workers} replays and {self.waiting} more wait "
            "(its limit); try again in a few seconds"
        )

    def _release(self) -> None:
        """A worker's slot is free: hand it to the first live waiter, else free it."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._running -= 1

    async def _acquire(self) -> None:
        if self._running < self.workers and not self._waiters:
            self._running += 1
            return
        if len(self._waiters) >= self.waiting:
            raise self._busy()
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(self.wait_s):
                await waiter
        except BaseException as exc:
            if waiter.done() and not waiter.cancelled():
                self._release()  # a slot was handed over just as the wait ended: pass it on
            else:
                waiter.cancel()
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
            if isinstance(exc, TimeoutError):
                raise self._busy() from None
            raise

    async def run(self, function: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``function(*args)`` in a worker; its answer, or the exception it raised.

        ``function`` must be importable by name (a module's function) and its arguments
        and answer picklable.

        Raises:
            DecoderBusyError: every worker is busy and the line is full, or the wait
                passed ``wait_s``.
            ReplayError: the worker stopped while reading (the pool is replaced).
        """
        if self._closed:
            raise DecoderBusyError("the server is stopping; it reads no more replays")
        await self._acquire()
        loop = asyncio.get_running_loop()
        try:
            executor = self._pool()
            future = executor.submit(function, *args, **kwargs)
        except BaseException:
            self._release()
            raise

        def done(_: object) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed first: nothing waits
                loop.call_soon_threadsafe(self._release)

        # The slot is the worker's until the file is done, even if the request that
        # asked for it is gone: a client hanging up cannot start a second file there.
        future.add_done_callback(done)
        answer = asyncio.wrap_future(future)
        # Its outcome is read even when nobody waits for it any more (no log noise).
        answer.add_done_callback(lambda f: f.cancelled() or f.exception())
        try:
            return await asyncio.shield(answer)
        except BrokenProcessPool:
            # A worker was killed (not a MemoryError: that is an answer): start afresh,
            # unless another file's failure already did.
            if self._executor is executor:
                self._executor = None
                executor.shutdown(wait=False, cancel_futures=True)
            raise ReplayError(
                "replay: the process reading it stopped; the file cannot be read here"
            ) from None

    def close(self) -> None:
        """Stop the workers (a file being read is finished first); refuse new files."""
        self._closed = True
        for waiter in self._waiters:
            waiter.cancel()
        self._waiters.clear()
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
