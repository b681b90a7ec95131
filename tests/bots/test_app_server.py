"""The server every Snakewar app runs on takes a burst of connections a few at a time.

Issue 31, H2: asyncio accepts a listening socket's whole queue in one loop turn, and
uvicorn asks for 2,048, so a thousand websockets connecting at once had their handshakes
answered in a few turns of a second each while every other request waited.  Here the
server's loop is held while 64 connections queue in the kernel, then a callback reads the
kernel's accept queue once a turn as the loop takes them.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
import struct
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from snakewar.bots.serving import ACCEPTS_PER_TURN, LISTEN_BACKLOG, listen_sockets
from tests.asgi_server import serve_on

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def accept_queue(sock: socket.socket) -> tuple[int, int]:
    """A listening socket's (queued connections, longest queue), from Linux's ``TCP_INFO``.

    For a socket in the LISTEN state the kernel reports its accept queue's length as
    ``tcpi_unacked`` and its ``listen(2)`` backlog as ``tcpi_sacked`` (the two ``__u32``
    after eight bytes of flags and four other ``__u32``).
    """
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    queued, longest = struct.unpack_from("=II", info, 24)
    return queued, longest


class LoopApp:
    """An ASGI app that hands its event loop to the test and answers ``ok``."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                self.loop = asyncio.get_running_loop()
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


@contextmanager
def running(app: LoopApp) -> Iterator[socket.socket]:
    """``app`` on the server ``snakewar serve`` uses, on a loopback port; yields its socket."""
    (sock,) = listen_sockets("127.0.0.1", 0)
    with sock, serve_on(app, sock, lifespan="on", start_s=60):
        yield sock


def test_a_burst_of_connections_is_queued_whole_and_accepted_a_few_a_turn() -> None:
    app = LoopApp()
    burst = 64
    with running(app) as sock:
        somaxconn = int(Path("/proc/sys/net/core/somaxconn").read_text())
        # The kernel holds a whole burst: the queue is not as short as the accepts a turn.
        assert accept_queue(sock)[1] == min(LISTEN_BACKLOG, somaxconn)
        loop = app.loop
        assert loop is not None
        held, release = threading.Event(), threading.Event()
        queues: list[int] = []

        def each_turn() -> None:
            queues.append(accept_queue(sock)[0])
            if queues[-1] and len(queues) < 1000:
                loop.call_soon(each_turn)  # runs once in each later turn of the loop

        def hold() -> None:
            held.set()
            release.wait(60)
            loop.call_soon(each_turn)

        loop.call_soon_threadsafe(hold)
        assert held.wait(60)
        clients = [socket.create_connection(sock.getsockname(), timeout=60) for _ in range(burst)]
        try:
            deadline = time.monotonic() + 60
            while accept_queue(sock)[0] < burst:  # the kernel finished every handshake
                assert time.monotonic() < deadline, accept_queue(sock)
                time.sleep(0.01)
            release.set()
            for client in clients:  # each is answered once the loop took it
                client.sendall(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
                assert client.recv(100).startswith(b"HTTP/1.1 200")
        finally:
            release.set()
            for client in clients:
                client.close()
        taken = [before - after for before, after in itertools.pairwise(queues)]
        assert queues[0] == burst and queues[-1] == 0, queues
        assert max(taken) <= ACCEPTS_PER_TURN, queues
        assert len(taken) >= burst // ACCEPTS_PER_TURN, queues
