"""Serve an ASGI app on loopback in a background thread, for tests over real HTTP."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from snakewar.bots.serving import SHUTDOWN_GRACE_S, app_server


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serve(
    app: Any,
    lifespan: Literal["auto", "on", "off"] = "auto",
    tls: tuple[str, str] | None = None,
) -> Iterator[str]:
    """Run ``app`` with uvicorn until the block ends; yields its base URL.

    ``tls`` is ``(certfile, keyfile)`` to serve ``https``.  The socket is made with an
    explicit TCP protocol: asyncio only turns Nagle's algorithm off for such sockets,
    and without that every call waits ~40 ms.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    with serve_on(app, sock, lifespan=lifespan, tls=tls):
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}"


@contextmanager
def serve_on(
    app: Any,
    sock: socket.socket,
    *,
    lifespan: Literal["auto", "on", "off"] = "auto",
    tls: tuple[str, str] | None = None,
    start_s: float = 20,
) -> Iterator[None]:
    """Run ``app`` on the bound (or listening) ``sock`` in a thread until the block ends.

    The server is the one `snakewar serve` runs (its accepts per turn, its grace when
    stopping); it must start within ``start_s`` seconds and stop in its grace.
    """
    certfile, keyfile = tls if tls is not None else (None, None)
    server = app_server(
        app,
        log_level="error",
        access_log=False,
        lifespan=lifespan,
        ssl_certfile=certfile,
        ssl_keyfile=keyfile,
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + start_s
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        yield
    finally:
        server.should_exit = True
        # A server that does not stop leaves its games' bot workers running: a failure.
        thread.join(SHUTDOWN_GRACE_S + 60)
        if thread.is_alive():
            raise RuntimeError("the test server did not stop")
