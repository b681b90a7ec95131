"""``snakewar serve --workers N``: N web processes on one listening socket.

The parent binds the socket (so a port in use is one error line), opens the database
once (so the workers never race to migrate it), then starts N worker processes
(``spawn``: a fresh interpreter each, nothing inherited but the config and the
socket).  Each worker is a full replica, as a second ``snakewar serve`` on the same
database would be: its own store connections, game manager (and its leases), arena
runs and followers; the kernel hands each new connection to one of them.  What a
replica needs of another is in the database (sessions, tokens, rate limits, leases).

The parent restarts a worker that dies after it started (its games are taken over as
a dead server's are, once their leases run out), stops every worker on SIGINT or
SIGTERM (each drains its requests as a lone server does) and fails, with one line, if
a worker stops before it started.

The workers share their Prometheus metrics through prometheus-client's multiprocess
mode (:mod:`snakewar.server.metrics`): the parent gives them a fresh
``PROMETHEUS_MULTIPROC_DIR`` (unless the operator set one), marks a dead worker's
gauges dead, and removes the folder it made when it stops.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import multiprocessing
import os
import shutil
import signal
import socket
import tempfile
import threading
from collections.abc import Iterator, Mapping
from multiprocessing.synchronize import Event
from types import FrameType
from typing import Any, Final

from prometheus_client import multiprocess as prometheus_multiprocess
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from snakewar.errors import SnakewarError
from snakewar.server.config import ServerConfig
from snakewar.server.logs import LogFormat, configure_logging
from snakewar.server.metrics import MULTIPROC_ENV

__all__ = ["MAX_WORKERS", "STOP_WAIT_S", "run_workers"]

MAX_WORKERS: Final = 64
"""The most ``--workers``."""

STOP_WAIT_S: Final = 60.0
"""How long a stopping parent waits for its workers (each drains for up to 10 s first)."""

log = logging.getLogger("snakewar.server")


class _Started:
    """The app, telling the parent once its start-up (the lifespan's) is complete."""

    def __init__(self, app: Any, started: Event) -> None:
        self.app: ASGIApp = app
        self.started = started
        # The server marks app.state on a stop signal (/ready: shutting down).
        self.state = app.state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "lifespan.startup.complete":
                self.started.set()
            await send(message)

        await self.app(scope, receive, sending)


def _worker(
    config: ServerConfig,
    sockets: list[socket.socket],
    log_format: LogFormat,
    options: Mapping[str, Any],
    started: Event,
    gc_thresholds: tuple[int, int, int],
) -> None:  # pragma: no cover - runs in the worker process (tests run real ones)
    from snakewar.bots.serving import serve_app
    from snakewar.server.app import create_app, open_store

    configure_logging(log_format)
    gc.set_threshold(*gc_thresholds)
    with open_store(config) as store:
        app = create_app(config, store=store)
        serve_app(_Started(app, started), sockets, **options)


@contextlib.contextmanager
def _metrics_folder() -> Iterator[str]:
    """The workers' shared metrics folder, in the environment they inherit (spawn)."""
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        os.makedirs(given, exist_ok=True)
        yield given
        return
    made = tempfile.mkdtemp(prefix="snakewar-metrics-")
    os.environ[MULTIPROC_ENV] = made
    try:
        yield made
    finally:
        os.environ.pop(MULTIPROC_ENV, None)
        shutil.rmtree(made, ignore_errors=True)


def _mark_dead(folder: str, pid: int | None) -> None:
    """A worker is gone: its live gauges leave the sums (what it counted stays)."""
    if pid is None:
        return
    try:
        prometheus_multiprocess.mark_process_dead(pid, path=folder)  # type: ignore[no-untyped-call]
    except OSError as exc:
        log.debug("snakewar: metrics of worker %s not cleaned (%s)", pid, exc)


def run_workers(
    config: ServerConfig,
    sockets: list[socket.socket],
    count: int,
    *,
    log_format: LogFormat,
    options: Mapping[str, Any],
    gc_thresholds: tuple[int, int, int],
) -> None:
    """Serve with ``count`` worker processes on ``sockets`` until SIGINT or SIGTERM.

    Args:
        config: every worker's config (its database must be shareable: not memory).
        sockets: listening sockets (:func:`snakewar.bots.serving.listen_sockets`).
        count: the workers, 1 to :data:`MAX_WORKERS`.
        log_format: each worker's log format.
        options: uvicorn options, as :func:`snakewar.bots.serving.serve_app` takes them.
        gc_thresholds: each worker's garbage collector thresholds.

    Raises:
        SnakewarError: a worker stopped before it started (its messages say why).
    """
    with _metrics_folder() as folder:
        _run_workers(config, sockets, count, log_format, options, gc_thresholds, folder)


def _run_workers(
    config: ServerConfig,
    sockets: list[socket.socket],
    count: int,
    log_format: LogFormat,
    options: Mapping[str, Any],
    gc_thresholds: tuple[int, int, int],
    folder: str,
) -> None:
    context = multiprocessing.get_context("spawn")
    stop = threading.Event()

    def start() -> tuple[multiprocessing.process.BaseProcess, Event]:
        started = context.Event()
        process = context.Process(
            target=_worker,
            args=(config, sockets, log_format, dict(options), started, gc_thresholds),
            name="snakewar-web",
        )
        process.start()
        return process, started

    def stopping(_signal: int, _frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, stopping) for sig in (signal.SIGINT, signal.SIGTERM)}
    workers = [start() for _ in range(count)]
    failed: str | None = None
    try:
        while not stop.wait(0.5):
            for index, (process, started) in enumerate(workers):
                if process.is_alive():
                    continue
                if not started.is_set():
                    failed = (
                        f"worker {index + 1} of {count} stopped before it started "
                        f"(exit status {process.exitcode}; its messages say why)"
                    )
                    stop.set()
                    break
                log.warning(
                    "snakewar: web worker %s (pid %s) died (exit status %s); starting another",
                    index + 1,
                    process.pid,
                    process.exitcode,
                )
                _mark_dead(folder, process.pid)
                workers[index] = start()
    finally:
        for process, _ in workers:
            if process.is_alive():
                process.terminate()  # SIGTERM: it drains its requests, then stops
        for process, _ in workers:
            process.join(STOP_WAIT_S)
            if process.is_alive():
                process.kill()
                process.join()
            _mark_dead(folder, process.pid)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if failed is not None:
        raise SnakewarError(failed)
