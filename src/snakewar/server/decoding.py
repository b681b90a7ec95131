"""Reading strangers' replays off the event loop: a few memory-capped worker processes.

A replay upload is a few kilobytes that may decompress to 32 MiB of JSON and parse
to millions of Python objects.  The caps (:data:`MAX_DOCUMENT_BYTES`,
:data:`MAX_DOCUMENT_ELEMENTS`) refuse most of that before it is built; what passes
them is still up to a few hundred MiB and a second of CPU, so it is read here:

* in **worker processes**, not threads: ``json.loads`` holds the GIL while it parses,
  so a thread would stall every request of the server for as long (issue 31 measured
  15.7 s with 8 bombs), and memory a parse grew is given back when a worker is
  replaced (each takes :data:`TASKS_PER_WORKER` files), not kept by the server;
* each worker's address space is capped (``RLIMIT_AS``, :attr:`DecoderPool.memory_bytes`),
  so even a file that fits the caps cannot take more than that: the parse fails with
  ``MemoryError``, answered as 413;
* at most ``workers`` files are read at once server-wide and at most ``waiting`` more
  wait, each for at most ``wait_s``; past that the answer is 429 at once.

The functions the workers run (:func:`decode_document`, :func:`gzipped_document`,
:func:`played_upload`) are this module's, so a worker imports only the replay reader,
never the web framework.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import dataclasses
import gzip
import json
import multiprocessing
import resource
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Final, ParamSpec, TypeVar

from snakewar.errors import BusyError
from snakewar.games.halite3.referee.runner import NAME_MAX_LENGTH
from snakewar.games.halite3.replay.hlt import HltReplayError, HltTooLargeError

if TYPE_CHECKING:
    from snakewar.engine.protocol import PlayedGame

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "MAX_DOCUMENT_ELEMENTS",
    "MAX_UPLOAD_BYTES",
    "TASKS_PER_WORKER",
    "DecoderBusyError",
    "DecoderPool",
    "decode_document",
    "gzipped_document",
    "played_upload",
]

MAX_UPLOAD_BYTES: Final = 32 * 1024 * 1024
"""The largest ``.hlt`` (compressed) the server accepts: 32 MiB (``storage.MAX_REPLAY_BYTES``)."""

MAX_DOCUMENT_BYTES: Final = 32 * 1024 * 1024
"""The largest decompressed replay the server reads: 32 MiB (a 64x64 4-player game is ~2 MB)."""

MAX_DOCUMENT_ELEMENTS: Final = 3_000_000
"""The most keys and values a replay read by the server may hold (``replay.json_elements``).

The largest official replays (64x64, 4 players) hold 0.3 million; four built-in
``greedy`` bots, which build ships all game, make 1.3 million on a 64x64 map and 1.9
million on the largest map (128x128, 702 turns).  At most about 64 bytes of Python
objects each, this bounds one parse to about 200 MiB, where 31 MiB of ``{},``
(21 million elements) made 900 MiB.
"""

TASKS_PER_WORKER: Final = 25
"""Files one worker process reads before it is replaced (and its memory given back)."""

DEFAULT_MEMORY_BYTES: Final = 1024 * 1024 * 1024
"""A worker's address-space cap: the largest file that passes the caps needs ~600 MiB."""

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


def _too_much_memory(name: str) -> HltTooLargeError:
    return HltTooLargeError(
        f"{name}: reading it needs more memory than the server gives one replay; "
        "expected a smaller replay"
    )


def _document_text(data: bytes, name: str) -> bytes:
    # Imported here, in the worker: the server's own process needs no replay reader.
    from snakewar.games.halite3.adapter import read_checked_hlt

    document = read_checked_hlt(
        data,
        name=name,
        max_bytes=MAX_UPLOAD_BYTES,
        max_document_bytes=MAX_DOCUMENT_BYTES,
        max_elements=MAX_DOCUMENT_ELEMENTS,
        max_name_length=NAME_MAX_LENGTH,
    ).document
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def decode_document(data: bytes) -> bytes:
    """A ``.hlt`` file's JSON document as compact UTF-8 text (what the viewer reads).

    Raises:
        HltReplayError: a file that is not a readable replay, or is past a cap
            (:class:`HltTooLargeError`, also when the parse runs out of memory).
    """
    try:
        return _document_text(data, "replay")
    except MemoryError:
        raise _too_much_memory("replay") from None


def gzipped_document(data: bytes) -> bytes:
    """:func:`decode_document`, gzipped (what the stored-replay route serves and caches)."""
    try:
        return gzip.compress(_document_text(data, "replay"), compresslevel=5, mtime=0)
    except MemoryError:
        raise _too_much_memory("replay") from None


def played_upload(data: bytes, game_id: str) -> PlayedGame:
    """An uploaded ``.hlt`` as a game to store, *without* its file (``data.replay`` empty).

    The caller has the file already; sending it back from the worker would copy up to
    32 MiB through a pipe for nothing.

    Raises:
        HltReplayError: a file that is not a readable replay, or is past a cap.
    """
    from snakewar.games.halite3.adapter import played_from_hlt

    try:
        played = played_from_hlt(
            data,
            game_id=game_id,
            source="upload",
            max_bytes=MAX_UPLOAD_BYTES,
            max_document_bytes=MAX_DOCUMENT_BYTES,
            max_elements=MAX_DOCUMENT_ELEMENTS,
            max_name_length=NAME_MAX_LENGTH,
        )
    except MemoryError:
        raise _too_much_memory("replay") from None
    return dataclasses.replace(played, data=dataclasses.replace(played.data, replay=b""))


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
            HltReplayError: the worker stopped while reading (the pool is replaced).
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
            raise HltReplayError(
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
