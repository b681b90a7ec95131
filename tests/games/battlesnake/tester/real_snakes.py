"""Snakes written the way real ones are, for the tester's tests over real HTTP.

Each is an ASGI app served by one uvicorn worker (:func:`tests.asgi_server.serve`)
and, like a Flask development server or a Node snake, handles **one request at a
time**: the handlers do their work synchronously inside the event loop (a blocking
``time.sleep`` for the "thinking"), so a second request waits for the first.

* :func:`slow_app`: a slow single-threaded snake (20 ms a move, 2 ms otherwise).
* :func:`globals_app`: keeps the board it was told at ``/start`` in a module global
  and plays ``/move`` on it: right one game at a time, wrong when another game's
  ``/start`` comes in between (as real snakes with globals are).
* :func:`plain_app`: the same careful logic with no delay.
* :func:`careless_app`: slow too, and always moves up (it fails survival checks).
* :func:`strict_app`: validates every request as a strict request model would
  (``game.source`` one of the official values, ``/start`` at turn 0) and answers
  400 otherwise.

All play one careful policy (:func:`careful_move`): never off the board, never into
a body (a tail that will move is free), eat when starving, keep away from other
heads when it can; it never goes for a kill.
"""

from __future__ import annotations

import time
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

DIRECTIONS = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}
OFFICIAL_SOURCES = {"custom", "league", "tournament", "arena", "challenge", ""}
"""The ``game.source`` values the official engine and CLI send."""

GAME: dict[str, Any] = {}
"""The module global the globals snake keeps its game in (as many real snakes do)."""


def _xy(point: dict[str, int]) -> tuple[int, int]:
    return point["x"], point["y"]


def careful_move(data: dict[str, Any], width: int, height: int) -> str:
    """The first move that cannot kill the snake this turn; never hunts."""
    board, you = data["board"], data["you"]
    hx, hy = _xy(you["head"])
    blocked: set[tuple[int, int]] = set()
    near_heads: set[tuple[int, int]] = set()
    for snake in board["snakes"]:
        body = [_xy(p) for p in snake["body"]]
        stacked = len(body) > 1 and body[-1] == body[-2]
        blocked.update(body if stacked else body[:-1])  # a moving tail frees its square
        if snake["id"] != you["id"]:
            x, y = body[0]
            near_heads.update((x + dx, y + dy) for dx, dy in DIRECTIONS.values())
    food = {_xy(p) for p in board["food"]}
    safe = []
    for move, (dx, dy) in DIRECTIONS.items():
        square = (hx + dx, hy + dy)
        if not (0 <= square[0] < width and 0 <= square[1] < height) or square in blocked:
            continue
        if you["health"] <= 1 and square not in food:
            continue  # it would starve
        safe.append((move, square))
    calm = [move for move, square in safe if square not in near_heads]
    return (calm or [move for move, _ in safe] or ["up"])[0]


def _info() -> dict[str, str]:
    return {"apiversion": "1", "author": "tests", "color": "#336699"}


def _app(
    start: Any, move: Any, *, think_s: float = 0.0, other_s: float = 0.0, strict: bool = False
) -> Starlette:
    """A snake whose handlers block the event loop (one request at a time)."""

    async def index(request: Request) -> Response:
        return JSONResponse(_info())

    async def on_start(request: Request) -> Response:
        data = await request.json()
        if strict and (problem := _strict_problem(data, start=True)):
            return PlainTextResponse(problem, 400)
        time.sleep(other_s)  # blocking on purpose: a single-threaded server
        start(data)
        return JSONResponse({})

    async def on_move(request: Request) -> Response:
        data = await request.json()
        if strict and (problem := _strict_problem(data, start=False)):
            return PlainTextResponse(problem, 400)
        time.sleep(think_s)
        return JSONResponse({"move": move(data)})

    async def on_end(request: Request) -> Response:
        data = await request.json()
        if strict and (problem := _strict_problem(data, start=False)):
            return PlainTextResponse(problem, 400)
        time.sleep(other_s)
        return JSONResponse({})

    return Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/start", on_start, methods=["POST"]),
            Route("/move", on_move, methods=["POST"]),
            Route("/end", on_end, methods=["POST"]),
        ]
    )


def _strict_problem(data: dict[str, Any], *, start: bool) -> str:
    source = data["game"].get("source")
    if source not in OFFICIAL_SOURCES:
        return f"game.source: {source!r} is not one of {sorted(OFFICIAL_SOURCES)}"
    if start and data["turn"] != 0:
        return f"turn: /start at turn {data['turn']}, expected 0"
    return ""


def _own_size(data: dict[str, Any]) -> str:
    return careful_move(data, data["board"]["width"], data["board"]["height"])


def slow_app() -> Starlette:
    """Single-threaded and slow, like a Flask app doing real work: 20 ms a move."""
    return _app(lambda data: None, _own_size, think_s=0.02, other_s=0.002)


def globals_app() -> Starlette:
    """Keeps the board from ``/start`` in a module global and plays ``/move`` on it.

    Only its own snake is taken from ``/move`` (the rest "does not change" in its
    author's mind; true for the tester's one-move games): one game at a time it is
    right, but another game's ``/start`` in between replaces the board it plays on.
    """

    def start(data: dict[str, Any]) -> None:
        GAME.clear()
        GAME.update(data["board"])

    def move(data: dict[str, Any]) -> str:
        board = {**GAME, "snakes": [s for s in GAME["snakes"] if s["id"] != data["you"]["id"]]}
        board["snakes"].append(data["you"])
        return careful_move({"board": board, "you": data["you"]}, GAME["width"], GAME["height"])

    return _app(start, move, think_s=0.002, other_s=0.002)


def plain_app() -> Starlette:
    """Careful, quick, never hunts."""
    return _app(lambda data: None, _own_size)


def strict_app() -> Starlette:
    """Careful, and refuses (400) what a strict request model would refuse."""
    return _app(lambda data: None, _own_size, strict=True)


def careless_app() -> Starlette:
    """Single-threaded and slow (15 ms a move), and always goes up: walls kill it."""
    return _app(lambda data: None, lambda data: "up", think_s=0.015, other_s=0.002)
