"""The snake SDK: turn a Python move function into a Battlesnake API v1 server.

A few lines make a complete snake::

    from snakewar.games.battlesnake.bots.sdk import snake

    @snake(author="me", color="#e91e63")
    def my_snake(request):
        # request.you, request.board, request.turn, request.game: typed objects
        return "up"

    if __name__ == "__main__":
        my_snake.serve(port=8000)

``my_snake`` is a :class:`~snakewar.games.battlesnake.bots.base.Bot`, so it also plays in-process
and
its ASGI application (:attr:`FunctionBot.app`) mounts in any ASGI server.  The
server answers ``GET /``, ``POST /start``, ``/move`` and ``/end``; request bodies are
validated (a malformed one gets a 400 naming the bad field) and size-capped.
Move functions run in a worker thread, so one slow game never blocks another.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, overload

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from snakewar.bots.serving import (
    ACCEPTS_PER_TURN,
    LISTEN_BACKLOG,
    SHUTDOWN_GRACE_S,
    ListenError,
    app_server,
    listen_sockets,
    serve_app,
)
from snakewar.errors import WireFormatError
from snakewar.games.battlesnake.bots.base import Bot, SnakeMetadata
from snakewar.games.battlesnake.rules.wire import MOVES, MoveReply, SnakeRequest

__all__ = [
    "ACCEPTS_PER_TURN",
    "LISTEN_BACKLOG",
    "MAX_REQUEST_BYTES",
    "SHUTDOWN_GRACE_S",
    "FunctionBot",
    "ListenError",
    "app_server",
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
    """A :class:`~snakewar.games.battlesnake.bots.base.Bot` made from a move function.

    See :func:`snake`.
    """

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
    The function receives a :class:`~snakewar.games.battlesnake.rules.wire.SnakeRequest`
    and returns a move string or a :class:`~snakewar.games.battlesnake.rules.wire.MoveReply`.
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
