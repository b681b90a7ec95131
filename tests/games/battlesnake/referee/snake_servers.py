"""Real snake servers on loopback for the referee's integration tests.

One uvicorn server (in a background thread) hosts several snakes under path
prefixes, each with a behaviour: well-behaved, slow, hanging, garbage, ... and the
2017/2018 legacy APIs.  A raw TCP server plays the snake that drops connections.
Every request body is kept, so tests can check what the referee sent.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import defaultdict
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from snakewar.games.battlesnake.bots.random_safe import safe_moves
from snakewar.games.battlesnake.rules.wire import SnakeRequest

Received = dict[str, list[tuple[str, Any]]]

LATE_S = 5.0
"""How long the "late" snake takes to answer a move."""
SLUGGISH_S = 0.6
"""How long the "sluggish" snake takes to answer every move (past a 200 ms timeout)."""
BANKED_S = 16.0
"""How long the "banked" snake takes over its move of turn 0 (then it answers at once): past
a 2 s timeout and the 14 s a pause once waited for a game of that timeout, well within a
20 s time bank."""
FIRST_TRY_S = 3.0
"""How long the "slowfirst" snake takes on the first try of each turn (a retry is answered
at once)."""


def _safe_move(body: Any) -> str:
    request = SnakeRequest.from_api(body)
    options = safe_moves(request.board, request.you, request.wrapped)
    # Deterministic: the first safe move in a fixed order, rotated by turn.
    if not options:
        return "up"
    return options[request.turn % len(options)]


def _legacy_safe_move(body: dict[str, Any], api: int) -> str:
    """A safe move computed in legacy coordinates (origin top left, y down)."""
    width, height = body["width"], body["height"]
    if api == 2018:
        snakes = [[(p["x"], p["y"]) for p in s["body"]["data"]] for s in body["snakes"]["data"]]
        head = (body["you"]["body"]["data"][0]["x"], body["you"]["body"]["data"][0]["y"])
    else:
        snakes = [[tuple(p) for p in s["coords"]] for s in body["snakes"]]
        you = next(s for s in body["snakes"] if s["id"] == body["you"])
        head = tuple(you["coords"][0])
    blocked = {p for s in snakes for p in s[:-1]}
    # In the legacy APIs "up" is towards y = 0.
    for move, (dx, dy) in (("up", (0, -1)), ("left", (-1, 0)), ("down", (0, 1)), ("right", (1, 0))):
        x, y = head[0] + dx, head[1] + dy
        if 0 <= x < width and 0 <= y < height and (x, y) not in blocked:
            return move
    return "up"


class SnakeServers:
    """Start with ``with SnakeServers() as servers:``; URLs via :meth:`url`."""

    def __init__(self) -> None:
        self.received: Received = defaultdict(list)
        self.lock = threading.Lock()
        self.tried: set[tuple[str, int]] = set()
        """The (game id, turn) pairs the "slowfirst" snake was asked already."""
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        config = uvicorn.Config(
            self._app(),
            log_level="error",
            access_log=False,
            timeout_graceful_shutdown=1,
            lifespan="off",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )
        self._drop_sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._drop_sock.bind(("127.0.0.1", 0))
        self._drop_sock.listen(64)
        self._drop_sock.settimeout(0.1)  # so the accept loop notices the stop flag
        self.drop_port = self._drop_sock.getsockname()[1]
        self._drop_thread = threading.Thread(target=self._drop_loop, daemon=True)
        self._stop = False

    def url(self, name: str) -> str:
        """The URL of the snake with behaviour ``name``."""
        if name == "crash":
            return f"http://127.0.0.1:{self.drop_port}"
        return f"http://127.0.0.1:{self.port}/{name}"

    def bodies(self, name: str, endpoint: str) -> list[Any]:
        """The bodies ``name`` received at ``endpoint`` (``start``, ``move``, ``end``)."""
        with self.lock:
            return [body for ep, body in self.received[name] if ep == endpoint]

    def __enter__(self) -> SnakeServers:
        self._thread.start()
        self._drop_thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("test snake server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop = True
        self._server.should_exit = True
        self._server.force_exit = True
        self._thread.join(5)
        self._drop_sock.close()
        self._drop_thread.join(5)

    def _drop_loop(self) -> None:
        """Answer ``GET /`` properly; close every POST without answering (a crash)."""
        while not self._stop:
            try:
                conn, _ = self._drop_sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(1)
                try:
                    data = conn.recv(65536)
                    if data.startswith(b"GET "):
                        meta = b'{"apiversion": "1"}'
                        conn.sendall(
                            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                            b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(meta), meta)
                        )
                except OSError:
                    pass

    def _app(self) -> Starlette:
        servers = self

        async def handle(request: Request) -> Response:
            name = request.path_params["name"]
            endpoint = request.path_params.get("endpoint", "")
            raw = await request.body()
            body: Any = json.loads(raw) if raw else None
            with servers.lock:
                servers.received[name].append((endpoint, body))
            if request.method == "GET":
                if name.startswith("legacy"):
                    return PlainTextResponse("legacy snakes have no GET /", 404)
                return JSONResponse(
                    {
                        "apiversion": "1",
                        "author": f"{name}-author",
                        "color": "#123456",
                        "head": "smile",
                        "tail": "bolt",
                        "version": "9",
                    }
                )
            if name.startswith("legacy"):
                api = int(name[len("legacy") :])
                if endpoint == "start":
                    return JSONResponse(
                        {
                            "color": "#abc",
                            "name": f"old {api}",
                            "taunt": "hi",
                            "head_type": "fang",
                            "tail_type": "curled",
                        }
                    )
                if endpoint == "move":
                    return JSONResponse(
                        {
                            "move": _legacy_safe_move(body, api),
                            "taunt": f"taunt {body['turn']}",
                        }
                    )
                return JSONResponse({})
            if endpoint != "move":
                if name == "startfail":
                    return PlainTextResponse("no", 500)
                return JSONResponse({})
            if name in ("good", "good2", "startfail"):
                return JSONResponse(
                    {
                        "move": _safe_move(body),
                        "shout": f"{name} says {body['turn']}",
                    }
                )
            if name == "longshout":
                return JSONResponse({"move": _safe_move(body), "shout": "x" * 1000})
            if name == "slow":
                await asyncio.sleep(0.4)
                return JSONResponse({"move": _safe_move(body)})
            if name == "sluggish":
                await asyncio.sleep(SLUGGISH_S)
                return JSONResponse({"move": _safe_move(body)})
            if name == "slowfirst":
                key = (body["game"]["id"], body["turn"])
                with servers.lock:
                    again = key in servers.tried
                    servers.tried.add(key)
                if not again:
                    await asyncio.sleep(FIRST_TRY_S)
                return JSONResponse({"move": _safe_move(body)})
            if name == "banked":
                until = time.monotonic() + BANKED_S
                # Slept in short steps, so that the server may stop meanwhile.
                while body["turn"] == 0 and time.monotonic() < until and not servers._stop:
                    await asyncio.sleep(0.05)
                return JSONResponse({"move": _safe_move(body)})
            if name == "late":
                # Later than any timeout the tests give (a timeout at any load), yet it
                # does answer, unlike "hang".
                await asyncio.sleep(LATE_S)
                return JSONResponse({"move": _safe_move(body)})
            if name == "hang":
                for _ in range(1200):  # "forever", but let the server stop
                    if servers._stop:
                        break
                    await asyncio.sleep(0.05)
                return JSONResponse({"move": "up"})
            if name == "garbage":
                return PlainTextResponse("{not json", 200)
            if name == "invalid":
                return JSONResponse({"move": "UP"})
            if name == "status500":
                return PlainTextResponse("oops", 500)
            if name == "huge":
                return JSONResponse({"move": "up", "shout": "y" * 300_000})
            if name == "flaky":
                # Valid on even turns, broken on odd ones.
                if body["turn"] % 2:
                    return PlainTextResponse("flake", 503)
                return JSONResponse({"move": _safe_move(body)})
            return PlainTextResponse("unknown test snake", 404)

        return Starlette(
            routes=[
                Route("/{name}/", handle, methods=["GET"]),
                Route("/{name}", handle, methods=["GET"]),
                Route("/{name}/{endpoint}", handle, methods=["POST"]),
            ]
        )
