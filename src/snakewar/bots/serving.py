"""Serving an ASGI application with uvicorn, as every Snakewar server runs.

The web app, every game's bot servers and the tests' servers run this way.  Bind first, then
announce (:func:`listen_sockets`), a few accepts per loop turn with a long
kernel queue, and a bounded graceful shutdown (:func:`app_server`).
"""

from __future__ import annotations

import errno
import functools
import socket
from typing import TYPE_CHECKING, Any

from snakewar.errors import SnakewarError

if TYPE_CHECKING:
    from types import FrameType

    import uvicorn

__all__ = [
    "ACCEPTS_PER_TURN",
    "LISTEN_BACKLOG",
    "SHUTDOWN_GRACE_S",
    "ListenError",
    "app_server",
    "listen_sockets",
    "serve_app",
]


class ListenError(SnakewarError, OSError):
    """Raised when a server cannot listen on its address and port (in use, say)."""


def listen_sockets(host: str, port: int) -> list[socket.socket]:
    """TCP sockets bound to ``host``:``port`` and listening: bind first, then announce.

    A server that says where it runs only once this returned never announces an
    address it then fails to take; connections made meanwhile wait in the backlog.
    The sockets are the ones asyncio (so uvicorn) makes for ``host``: one per address
    the name has (``localhost``: IPv4 and IPv6), reusing the address as it does, and
    with the TCP protocol named, without which asyncio leaves Nagle's algorithm on
    (every small reply waiting ~40 ms for an ACK).

    Raises:
        ListenError: if the port is in use, the address is not this machine's, the name
            does not resolve or the port needs privileges.
    """
    try:
        infos = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP, flags=socket.AI_PASSIVE
        )
    except OSError as exc:
        raise _listen_error(host, port, exc) from None
    addresses = list(dict.fromkeys(infos))
    sockets: list[socket.socket] = []
    left_out: OSError | None = None
    for family, kind, proto, _, address in addresses:
        sock = socket.socket(family, kind, proto)
        try:
            # A restarted server gets its port back at once, past its old connections'
            # TIME_WAIT (a port another socket listens on stays refused).
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(LISTEN_BACKLOG)
        except OSError as exc:
            sock.close()
            if exc.errno == errno.EADDRNOTAVAIL and len(addresses) > 1:
                # As asyncio: an address of a family this machine has off (IPv6 for
                # localhost, say) is left out when the name has others.
                left_out = exc
                continue
            for taken in sockets:
                taken.close()
            raise _listen_error(host, port, exc) from None
        sockets.append(sock)
    if not sockets:
        raise _listen_error(host, port, left_out or OSError(errno.EADDRNOTAVAIL, "no address"))
    return sockets


def _listen_error(host: str, port: int, exc: OSError) -> ListenError:
    if exc.errno == errno.EADDRINUSE:
        return ListenError(f"port {port} is in use on {host} (another server?)")
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return ListenError(f"cannot listen on {where}: {exc.strerror or exc}")


LISTEN_BACKLOG = 2048
"""Connections the kernel holds for a server before it accepts them."""

ACCEPTS_PER_TURN = 4
"""Connections a server accepts in one turn of its event loop.

asyncio accepts a listening socket's whole queue at once (uvicorn asks for 2,048): a
burst of a thousand websockets then had their handshakes parsed and answered in a few
loop turns of a second each, and every other client's request waited behind them.  A
few at a time, the burst is spread over many short turns, with the others in between.
"""

SHUTDOWN_GRACE_S = 10
"""Seconds a stopping server waits for its open requests and websockets.

Then it cancels them and shuts down (its lifespan ends: games stored, bot workers
reaped).  Without a bound, one spectator following a paused game held a stopping server
until the pause ran out, and its bot workers with it.
"""


def app_server(app: Any, **options: Any) -> uvicorn.Server:
    """A uvicorn server for the ASGI ``app``, as Snakewar runs its own.

    It accepts :data:`ACCEPTS_PER_TURN` connections a loop turn while the kernel holds a
    burst of up to :data:`LISTEN_BACKLOG`, and a stopping server waits
    :data:`SHUTDOWN_GRACE_S` for its open requests.  Run it with ``server.run(sockets=...)``
    on sockets from :func:`listen_sockets` (or any listening sockets).

    Args:
        app: The ASGI application.
        **options: ``uvicorn.Config`` options (``log_level``, ``access_log``, ...);
            ``timeout_graceful_shutdown`` and ``backlog`` (the accepts per turn) have the
            defaults above unless given.
    """
    import uvicorn

    options.setdefault("timeout_graceful_shutdown", SHUTDOWN_GRACE_S)
    options.setdefault("backlog", ACCEPTS_PER_TURN)
    return _server_class()(uvicorn.Config(app, **options))


@functools.cache
def _server_class() -> type[uvicorn.Server]:
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            # asyncio takes its accepts per turn for the kernel's queue too (listen(2)):
            # give the queue back its length, so that a burst waits there, not dropped.
            for sock in sockets or ():
                sock.listen(LISTEN_BACKLOG)

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            super().handle_exit(sig, frame)
            # Readiness probes (the server's /ready) say "shutting down" at once, while
            # open requests finish: a proxy stops sending new ones here.
            state = getattr(self.config.app, "state", None)
            if state is not None:
                state.draining = True

    return Server


def serve_app(app: Any, sockets: list[socket.socket], **options: Any) -> None:
    """Run the ASGI ``app`` with uvicorn on listening ``sockets`` until interrupted.

    Args:
        app: The ASGI application.
        sockets: From :func:`listen_sockets`; closed when the server stops.
        **options: ``uvicorn.Config`` options, as :func:`app_server` takes them.

    Raises:
        SnakewarError: if the application failed to start (uvicorn logged why).
    """
    server = app_server(app, **options)
    try:
        server.run(sockets=sockets)
    finally:
        for sock in sockets:
            sock.close()
    if not server.started:
        raise SnakewarError("the server stopped before it started (its messages say why)")
