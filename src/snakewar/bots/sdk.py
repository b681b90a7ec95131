"""The snake SDK: turn a Python move function into a Battlesnake API v1 server.

A few lines make a complete snake::

    from snakewar.bots.sdk import snake

    @snake(author="me", color="#e91e63")
    def my_snake(request):
        # request.you, request.board, request.turn, request.game: typed objects
        return "up"

    if __name__ == "__main__":
        my_snake.serve(port=8000)

``my_snake`` is a :class:`~snakewar.bots.base.Bot`, so it also plays in-process and
its ASGI application (:attr:`FunctionBot.app`) mounts in any ASGI server.  The
server answers ``GET /``, ``POST /start``, ``/move`` and ``/end``; request bodies are
validated (a malformed one gets a 400 naming the bad field) and size-capped.
Move functions run in a worker thread, so one slow game never blocks another.
"""

from __future__ import annotations

import errno
import functools
import json
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from snakewar.bots.base import Bot, SnakeMetadata
from snakewar.errors import SnakewarError, WireFormatError
from snakewar.games.battlesnake.wire import MOVES, MoveReply, SnakeRequest

if TYPE_CHECKING:
    import uvicorn

__all__ = [
    "MAX_REQUEST_BYTES",
    "FunctionBot",
    "ListenError",
    "create_app",
    "listen_sockets",
    "serve",
    "serve_app",
    "snake",
]

MAX_REQUEST_BYTES = 4 * 1024 * 1024
"""Largest request body a snake server reads (a 25x25 board with 8 snakes is ~50 KB)."""

MoveFunction = Callable[[SnakeRequest], "MoveReply | str"]


class _BodyTooLarge(Exception):
    pass


async def _read_json(request: Request, limit: int) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _BodyTooLarge
    size = 0
    chunks: list[bytes] = []
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _BodyTooLarge
        chunks.append(chunk)
    return json.loads(b"".join(chunks))


def create_app(bot: Bot, *, max_request_bytes: int = MAX_REQUEST_BYTES) -> Starlette:
    """Return an ASGI application serving ``bot`` with the API v1 routes."""

    async def parse(request: Request) -> SnakeRequest | Response:
        try:
            data = await _read_json(request, max_request_bytes)
        except _BodyTooLarge:
            return JSONResponse(
                {"error": f"request body larger than {max_request_bytes} bytes"}, 413
            )
        except (ValueError, UnicodeDecodeError) as exc:
            return JSONResponse({"error": f"request body is not JSON: {exc}"}, 400)
        try:
            return SnakeRequest.from_api(data)
        except WireFormatError as exc:
            return JSONResponse({"error": str(exc)}, 400)

    async def index(request: Request) -> Response:
        return JSONResponse(bot.info().to_api())

    async def start(request: Request) -> Response:
        parsed = await parse(request)
        if isinstance(parsed, Response):
            return parsed
        await run_in_threadpool(bot.start, parsed)
        return JSONResponse({})

    async def move(request: Request) -> Response:
        parsed = await parse(request)
        if isinstance(parsed, Response):
            return parsed
        answer = await run_in_threadpool(bot.move, parsed)
        reply = answer if isinstance(answer, MoveReply) else MoveReply(str(answer))
        if reply.move not in MOVES:
            # Answering anyway would hide the bug; the referee then plays the default.
            return JSONResponse(
                {"error": f"bot returned move {reply.move!r}, expected one of {MOVES}"}, 500
            )
        return JSONResponse(reply.to_api())

    async def end(request: Request) -> Response:
        parsed = await parse(request)
        if isinstance(parsed, Response):
            return parsed
        await run_in_threadpool(bot.end, parsed)
        return JSONResponse({})

    return Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/start", start, methods=["POST"]),
            Route("/move", move, methods=["POST"]),
            Route("/end", end, methods=["POST"]),
        ]
    )


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


def serve(
    bot: Bot,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    log_level: str = "warning",
    on_listening: Callable[[], None] | None = None,
) -> None:
    """Serve ``bot`` over HTTP until interrupted (uvicorn).

    Args:
        bot: The snake.
        host: The address to listen on.
        port: The TCP port.
        log_level: uvicorn's log level.
        on_listening: Called once the port is taken, before serving (to announce it).

    Raises:
        ListenError: if it cannot listen on ``host``:``port`` (nothing was announced).
    """
    sockets = listen_sockets(host, port)
    if on_listening is not None:
        on_listening()
    serve_app(create_app(bot), sockets, log_level=log_level, access_log=False)


class FunctionBot(Bot):
    """A :class:`~snakewar.bots.base.Bot` made from a move function (see :func:`snake`)."""

    def __init__(
        self,
        move: MoveFunction,
        metadata: SnakeMetadata,
        start: Callable[[SnakeRequest], None] | None = None,
        end: Callable[[SnakeRequest], None] | None = None,
    ) -> None:
        self._move = move
        self._start = start
        self._end = end
        self.metadata = metadata
        self.__doc__ = move.__doc__
        self.__name__ = getattr(move, "__name__", "snake")
        self._app: Starlette | None = None

    def move(self, request: SnakeRequest) -> MoveReply | str:
        """Call the move function."""
        return self._move(request)

    def start(self, request: SnakeRequest) -> None:
        """Call the start hook, if one was given with :meth:`on_start`."""
        if self._start is not None:
            self._start(request)

    def end(self, request: SnakeRequest) -> None:
        """Call the end hook, if one was given with :meth:`on_end`."""
        if self._end is not None:
            self._end(request)

    def on_start(self, fn: Callable[[SnakeRequest], None]) -> Callable[[SnakeRequest], None]:
        """Decorator: run ``fn`` at ``/start``."""
        self._start = fn
        return fn

    def on_end(self, fn: Callable[[SnakeRequest], None]) -> Callable[[SnakeRequest], None]:
        """Decorator: run ``fn`` at ``/end``."""
        self._end = fn
        return fn

    def __call__(self, request: SnakeRequest) -> MoveReply | str:
        """Call the move function directly (handy in unit tests of a snake)."""
        return self._move(request)

    @property
    def app(self) -> Starlette:
        """The ASGI application (for uvicorn, hypercorn or a test client)."""
        if self._app is None:
            self._app = create_app(self)
        return self._app

    def serve(
        self, host: str = "127.0.0.1", port: int = 8000, *, log_level: str = "warning"
    ) -> None:
        """Serve this snake over HTTP until interrupted.

        Raises:
            ListenError: if it cannot listen on ``host``:``port``.
        """
        serve(self, host, port, log_level=log_level)


@overload
def snake(fn: MoveFunction, /) -> FunctionBot: ...


@overload
def snake(
    fn: None = None,
    /,
    *,
    author: str = "",
    color: str = "#888888",
    head: str = "default",
    tail: str = "default",
    version: str = "",
) -> Callable[[MoveFunction], FunctionBot]: ...


def snake(
    fn: MoveFunction | None = None,
    /,
    *,
    author: str = "",
    color: str = "#888888",
    head: str = "default",
    tail: str = "default",
    version: str = "",
) -> FunctionBot | Callable[[MoveFunction], FunctionBot]:
    """Decorator: make a :class:`FunctionBot` from a move function.

    Usable bare (``@snake``) or with customizations (``@snake(color="#ff0000")``).
    The function receives a :class:`~snakewar.games.battlesnake.wire.SnakeRequest`
    and returns a move string or a :class:`~snakewar.games.battlesnake.wire.MoveReply`.
    """
    metadata = SnakeMetadata.from_api(
        {
            "apiversion": "1",
            "author": author,
            "color": color,
            "head": head,
            "tail": tail,
            "version": version,
        }
    )

    def wrap(move: MoveFunction) -> FunctionBot:
        return FunctionBot(move, metadata)

    return wrap(fn) if fn is not None else wrap
