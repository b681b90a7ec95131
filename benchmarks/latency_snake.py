"""A Battlesnake API v1 snake that answers every ``/move`` after a fixed delay.

For the cluster benchmarks: a snake whose latency is known (20 ms, 150 ms...), so that
games per minute measure how many games a server plays at once, not how fast a bot
thinks.  It moves to a free neighbouring cell (no wall, no body), so its games last
until the turn limit more often than not.

    python3 benchmarks/latency_snake.py --port 8001 --delay-ms 20
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

MOVES = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}


def safe_move(state: dict[str, Any]) -> str:
    """The first move (in a turn-dependent order) to a cell that is free this turn."""
    board, you = state["board"], state["you"]
    head = you["head"]
    taken = {(p["x"], p["y"]) for snake in board["snakes"] for p in snake["body"][:-1]}
    order = list(MOVES)
    turn = int(state.get("turn", 0))
    order = order[turn % 4 :] + order[: turn % 4]
    for move in order:
        dx, dy = MOVES[move]
        x, y = head["x"] + dx, head["y"] + dy
        if 0 <= x < board["width"] and 0 <= y < board["height"] and (x, y) not in taken:
            return move
    return "up"


def app(delay_s: float) -> Starlette:
    """The snake's web app: ``/move`` answers after ``delay_s``."""

    async def index(_: Request) -> JSONResponse:
        return JSONResponse({"apiversion": "1", "author": "bench", "color": "#3366ff"})

    async def start_or_end(_: Request) -> JSONResponse:
        return JSONResponse({})

    async def move(request: Request) -> JSONResponse:
        state = await request.json()
        await asyncio.sleep(delay_s)
        return JSONResponse({"move": safe_move(state)})

    return Starlette(
        routes=[
            Route("/", index),
            Route("/start", start_or_end, methods=["POST"]),
            Route("/end", start_or_end, methods=["POST"]),
            Route("/move", move, methods=["POST"]),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    args = parser.parse_args()
    uvicorn.run(app(args.delay_ms / 1000), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
