"""A real snake server on loopback that counts every request it gets and keeps its Host header.

Tests of the outbound address policy prove a refused snake is never contacted: the
count must stay at zero.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.asgi_server import serve


@dataclass
class CountingSnake:
    """What the snake saw: ``(method, path, Host header)`` per request, in order."""

    url: str = ""
    requests: list[tuple[str, str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def port(self) -> int:
        """The port it listens on (127.0.0.1)."""
        return int(self.url.rsplit(":", 1)[1])

    @property
    def count(self) -> int:
        """How many requests reached it."""
        with self.lock:
            return len(self.requests)

    def hosts(self) -> list[str]:
        """The Host header of each request."""
        with self.lock:
            return [host for _, _, host in self.requests]

    def app(self) -> Starlette:
        """The snake: API v1 metadata, always moves ``up``."""

        async def handle(request: Request) -> Response:
            with self.lock:
                self.requests.append(
                    (request.method, request.url.path, request.headers.get("host", ""))
                )
            if request.method == "GET":
                return JSONResponse({"apiversion": "1", "author": "counter"})
            return JSONResponse({"move": "up"})

        return Starlette(
            routes=[
                Route("/", handle, methods=["GET"]),
                Route("/{name}", handle, methods=["POST"]),
            ]
        )


@contextmanager
def counting_snake() -> Iterator[CountingSnake]:
    """Run a :class:`CountingSnake` on 127.0.0.1 until the block ends."""
    snake = CountingSnake()
    with serve(snake.app(), lifespan="off") as url:
        snake.url = url
        yield snake
