"""The engine API at an engine URL with a trailing slash, and built-in copies' colours.

The official board joins ``engine`` and ``/games/...`` as text: given
``engine=http://host:port/`` it asks for ``//games/{id}``, ``//games/{id}/frames``
and the websocket ``//games/{id}/events``.  Over real HTTP here.
"""

from __future__ import annotations

import asyncio
import json

import httpx

from snakewar.server import ServerConfig, create_app
from tests.asgi_server import serve
from tests.waiting import wait_finished

GAME = {"snakes": ["random", "random", "random"], "seed": 3, "width": 7, "height": 7}


def test_engine_routes_work_after_a_trailing_slash() -> None:
    with serve(create_app(ServerConfig(database_url="memory"))) as base:
        game = httpx.post(f"{base}/api/games", json=GAME, timeout=60).json()
        assert wait_finished(base, game["id"])["status"] == "complete"
        engine = base + "/"  # what a user pastes, slash and all
        origin = {"Origin": "https://board.battlesnake.com"}
        info = httpx.get(f"{engine}/games/{game['id']}", headers=origin, timeout=60)
        assert info.status_code == 200, info.text
        assert info.json() == httpx.get(f"{base}/games/{game['id']}", timeout=60).json()
        assert info.headers["access-control-allow-origin"] == "*"
        frames = httpx.get(
            f"{engine}//games/{game['id']}/frames", params={"limit": 1000}, timeout=60
        )
        assert frames.status_code == 200
        assert frames.json()["Count"] == info.json()["LastFrame"]["Turn"] + 1

        async def watch() -> list[str]:
            from websockets.asyncio.client import connect as ws_connect

            kinds = []
            ws_base = engine.replace("http://", "ws://")
            async with ws_connect(f"{ws_base}/games/{game['id']}/events") as ws:
                async for raw in ws:
                    kinds.append(json.loads(raw)["Type"])
                    if kinds[-1] == "game_end":
                        break
            return kinds

        kinds = asyncio.run(watch())
        assert kinds[-1] == "game_end" and kinds.count("frame") == frames.json()["Count"]
        # Only the engine routes are read this way: nothing else gains a second path.
        assert httpx.get(f"{engine}/api/games/{game['id']}", timeout=60).status_code == 404
        assert httpx.get(f"{base}//games/{game['id']}/other", timeout=60).status_code == 404


def test_copies_of_a_builtin_have_distinct_colours_in_the_viewers_frames() -> None:
    with serve(create_app(ServerConfig(database_url="memory"))) as base:
        game = httpx.post(f"{base}/api/games", json=GAME, timeout=60).json()
        wait_finished(base, game["id"])
        frames = httpx.get(f"{base}/games/{game['id']}/frames", timeout=60).json()["Frames"]
        colors = [s["Color"] for s in frames[0]["Snakes"]]
        assert len(set(colors)) == 3 and colors[0] == "#9e9e9e"
        assert all([s["Color"] for s in f["Snakes"]] == colors for f in frames)
        listed = httpx.get(f"{base}/api/games/{game['id']}", timeout=60).json()
        assert [e["color"] for e in listed["entrants"]] == colors
