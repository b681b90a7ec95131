"""A faithful API v0 snake (2019 to mid-2020) for tests over real HTTP.

It is as strict as a typed snake of the time: its request models reject missing
fields, unknown fields and wrong types (HTTP 422), so any request that is not
exactly API v0 shows up as a failed call.  Its routes are those of the starter
snakes of early 2020: ``GET /`` answers plain text (not JSON metadata), ``POST
/ping`` answers an empty 200, ``/start`` answers ``{color, headType, tailType}``.

It plays with a built-in bot: the v0 request is read in v0 coordinates (origin at
the top left, ``y`` down) and turned back into an API v1 request by the snake
itself, so a referee that did not mirror ``y`` would make it play blind.
"""

from __future__ import annotations

import threading
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict

from snakewar.games.battlesnake.bots import make_bot
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake
from snakewar.games.battlesnake.rules.wire import GameInfo, SnakeInfo, SnakeRequest

GOOD_LOOKS = {"color": "#ff00ff", "headType": "bendr", "tailType": "regular"}
"""The looks of the v0 documentation's example (``regular`` is v1's ``default``)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class V0Point(_Strict):
    x: int
    y: int


class V0Snake(_Strict):
    id: str
    name: str
    health: int
    body: list[V0Point]
    shout: str


class V0Board(_Strict):
    height: int
    width: int
    food: list[V0Point]
    snakes: list[V0Snake]


class V0Game(_Strict):
    id: str


class V0Request(_Strict):
    game: V0Game
    turn: int
    board: V0Board
    you: V0Snake


def as_v1(request: V0Request) -> SnakeRequest:
    """The snake's own reading of a v0 request, in API v1 coordinates (y up)."""
    h = request.board.height

    def point(p: V0Point) -> Point:
        return Point(p.x, h - 1 - p.y)

    def snake(s: V0Snake) -> Snake:
        return Snake(s.id, tuple(point(p) for p in s.body), s.health)

    snakes = tuple(snake(s) for s in request.board.snakes)
    state = BoardState(
        request.turn,
        request.board.width,
        h,
        snakes,
        tuple(point(p) for p in request.board.food),
    )
    infos = {s.id: SnakeInfo(name=s.name, shout=s.shout) for s in request.board.snakes}
    return SnakeRequest(
        GameInfo(id=request.game.id), request.turn, state, snake(request.you), infos
    )


class V0Snakes:
    """What the v0 snakes of one app were sent: ``(route, body)`` in arrival order."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def keep(self, route: str, body: dict[str, Any]) -> None:
        """Record one request."""
        with self._lock:
            self.received.append((route, body))

    def bodies(self, route: str) -> list[dict[str, Any]]:
        """The bodies sent to ``route`` (``start``, ``move``, ``end``, ``ping``)."""
        with self._lock:
            return [b for r, b in self.received if r == route]


def v0_app(
    bot: str = "hunter?depth=2",
    looks: Any = None,
    log: V0Snakes | None = None,
    ping_status: int = 200,
) -> FastAPI:
    """A v0 snake playing built-in ``bot``; ``looks`` is its raw ``/start`` reply."""
    player = make_bot(bot)
    reply = GOOD_LOOKS if looks is None else looks
    log = log if log is not None else V0Snakes()

    app = FastAPI()

    @app.get("/")
    def index() -> Response:
        return PlainTextResponse("Your Battlesnake is alive!")

    @app.post("/ping")
    def ping() -> Response:
        log.keep("ping", {})
        return Response(status_code=ping_status)

    @app.post("/start")
    def start(request: V0Request) -> Response:
        log.keep("start", request.model_dump())
        if isinstance(reply, bytes):
            return Response(reply, media_type="text/plain")
        return JSONResponse(reply)

    @app.post("/move")
    def move(request: V0Request) -> dict[str, str]:
        log.keep("move", request.model_dump())
        answer = player.move(as_v1(request))
        chosen = answer if isinstance(answer, str) else answer.move
        return {"move": chosen, "shout": f"v0 turn {request.turn}"}

    @app.post("/end")
    def end(request: V0Request) -> Response:
        log.keep("end", request.model_dump())
        return Response(status_code=200)

    return app
