"""Live fan-out: frames encoded once for all followers, history from a cache, laggards dropped.

Over real HTTP (uvicorn on loopback) with the events websocket the official board reads,
and :class:`~snakewar.server.fanout.FrameFeed` on its own for the exact drop rule.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping
from typing import Any

import httpx
import pytest
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from snakewar.server import ServerConfig, create_app, events, fanout
from snakewar.server.fanout import (
    LAGGING_CLOSE_CODE,
    FeedClosedError,
    FollowerLagError,
    FrameFeed,
)
from snakewar.server.followers import encode_frame
from tests.asgi_server import free_port, serve
from tests.waiting import wait_finished

GAME = {
    "snakes": ["random", "random"],
    "seed": 5,
    "width": 7,
    "height": 7,
    "step": True,
    "timeout": 2000,
}
"""A game that plays the same at any load: the longest move time a server allows, so that
no random move times out (a timed-out move is another game, which may end before the
steps the tests take)."""


@pytest.fixture
def base() -> Iterator[str]:
    with serve(create_app(ServerConfig(database_url="memory"))) as url:
        yield url


@pytest.fixture
def encodes(monkeypatch: pytest.MonkeyPatch) -> list[Mapping[str, Any]]:
    """Every live frame the events websocket encodes (its view), counted as encoded."""
    seen: list[Mapping[str, Any]] = []
    real = encode_frame  # what the events websocket calls (looked up in its module)

    def counting(view: Mapping[str, Any], produced: float | None) -> str:
        seen.append(view)
        return real(view, produced)

    monkeypatch.setattr(events, "encode_frame", counting)
    return seen


async def follow(url: str, joined: asyncio.Event | None = None) -> list[str]:
    """Every message of the events websocket, as sent, up to and including game_end."""
    messages: list[str] = []
    async with ws_connect(url) as ws:
        async for raw in ws:
            assert isinstance(raw, str)
            messages.append(raw)
            if joined is not None:
                joined.set()
            if raw.startswith('{"Type":"game_end"'):
                break
    return messages


def test_late_followers_get_the_history_each_frame_encoded_once(
    base: str, encodes: list[Mapping[str, Any]]
) -> None:
    game = httpx.post(f"{base}/api/games", json=GAME, timeout=60).json()
    events = base.replace("http://", "ws://") + f"/games/{game['id']}/events"

    async def scenario() -> tuple[list[list[str]], list[str]]:
        joined = [asyncio.Event() for _ in range(4)]
        early = [asyncio.create_task(follow(events, j)) for j in joined]
        await asyncio.gather(*(j.wait() for j in joined))  # all hold turn 0
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            for _ in range(3):
                assert (await http.post(f"/api/games/{game['id']}/step")).status_code == 200
            late = asyncio.create_task(follow(events))  # joins at turn 3, mid-game
            await asyncio.sleep(0.2)
            assert (await http.post(f"/api/games/{game['id']}/resume")).status_code == 200
        return list(await asyncio.gather(*early)), await late

    streams, late = asyncio.run(scenario())
    assert wait_finished(base, game["id"])["status"] == "complete"
    after_end = asyncio.run(follow(events))  # the game ended; still live in the server
    frames = [m for m in streams[0] if m.startswith('{"Type":"frame"')]
    assert len(frames) > 4 and streams[0][-1].startswith('{"Type":"game_end"')
    # Byte for byte the same messages, production times included, however late they joined.
    for stream in [*streams[1:], late, after_end]:
        assert stream == streams[0]
    turns = [view["Turn"] for view in encodes]
    assert turns == list(range(len(frames))), "each frame encoded once for six followers"


def test_stored_games_stream_the_same_frames(base: str, tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with serve(create_app(ServerConfig(database_url=url))) as first:
        game = httpx.post(f"{first}/api/games", json={**GAME, "step": False}, timeout=60).json()
        events = f"/games/{game['id']}/events"
        assert wait_finished(first, game["id"])["status"] == "complete"
        live = asyncio.run(follow(first.replace("http://", "ws://") + events))
    with serve(create_app(ServerConfig(database_url=url))) as second:  # from the store
        stored = asyncio.run(follow(second.replace("http://", "ws://") + events))
        page = httpx.get(f"{second}/games/{game['id']}/frames", params={"limit": 1000}, timeout=60)
    assert page.json() == {
        "Count": len(live) - 1,
        "Frames": [json.loads(m)["Data"] for m in live[:-1]],
    }
    assert len(stored) == len(live) > 2
    for old, new in zip(live[:-1], stored[:-1], strict=True):
        # Live frames carry their production "Time"; the stored ones, read back, do not.
        assert new == old[: old.rindex(',"Time":')] + "}"
    assert stored[-1] == live[-1]


def test_a_slow_follower_is_dropped_with_1013_and_delays_no_one(
    monkeypatch: pytest.MonkeyPatch, base: str
) -> None:
    monkeypatch.setattr(fanout, "MAX_FOLLOWER_LAG", 3)
    real_send = WebSocket.send_text

    async def send_text(websocket: WebSocket, data: str) -> None:
        # The "slow" follower's client stops reading after two frames: its sends hang,
        # as they do once its buffers are full.
        if websocket.query_params.get("slow") and websocket.scope.setdefault("sent", 0) >= 2:
            await asyncio.Event().wait()
        websocket.scope["sent"] = websocket.scope.get("sent", 0) + 1
        await real_send(websocket, data)

    monkeypatch.setattr(WebSocket, "send_text", send_text)
    body = {**GAME, "width": 11, "height": 11, "maxTurns": 60}  # room: a longer game
    game = httpx.post(f"{base}/api/games", json=body, timeout=60).json()
    events = base.replace("http://", "ws://") + f"/games/{game['id']}/events"

    async def scenario() -> tuple[list[str], list[str], int | None]:
        joined = [asyncio.Event(), asyncio.Event()]
        quick = asyncio.create_task(follow(events, joined[0]))
        slow_messages: list[str] = []
        async with ws_connect(events + "?slow=1") as slow:
            slow_messages.append(str(await slow.recv()))
            async with httpx.AsyncClient(base_url=base, timeout=60) as http:
                assert (await http.post(f"/api/games/{game['id']}/resume")).status_code == 200
            with pytest.raises(ConnectionClosed):
                while True:
                    slow_messages.append(str(await asyncio.wait_for(slow.recv(), 30)))
            code = slow.close_code
        return await asyncio.wait_for(quick, 30), slow_messages, code

    messages, slow_messages, code = asyncio.run(scenario())
    assert code == LAGGING_CLOSE_CODE
    # The quick follower got every frame although the slow one's send never returned.
    assert messages[-1].startswith('{"Type":"game_end"') and len(messages) > 2 + 3 + 1
    assert slow_messages == messages[:2]


def test_the_feed_drops_a_stuck_follower_and_streams_the_others() -> None:
    async def scenario() -> None:
        feed = FrameFeed()
        feed.publish({"Turn": 0}, 0.0)
        stuck = asyncio.Event()
        got: list[str] = []

        async def never(text: str) -> None:
            await stuck.wait()  # a client that stopped reading: its send never returns

        async def record(text: str) -> None:
            got.append(text)

        def encode(view: Mapping[str, Any], produced: float) -> str:
            return str(view["Turn"])

        slow = asyncio.create_task(feed.stream("turns", encode, never))
        quick = asyncio.create_task(feed.stream("turns", encode, record))
        await asyncio.sleep(0)
        for turn in range(1, fanout.MAX_FOLLOWER_LAG + 2):
            feed.publish({"Turn": turn}, float(turn))
            await asyncio.sleep(0)
        with pytest.raises(FollowerLagError):
            await asyncio.wait_for(slow, 5)
        assert not quick.done() and feed.followers == 1
        feed.publish({"Turn": fanout.MAX_FOLLOWER_LAG + 2}, 0.0)
        feed.finish()
        await asyncio.wait_for(quick, 5)
        assert got == [str(t) for t in range(fanout.MAX_FOLLOWER_LAG + 3)]
        # A follower joining now is sent the whole history: history is not lag.
        late: list[str] = []

        async def record_late(text: str) -> None:
            late.append(text)

        await feed.stream("turns", encode, record_late)
        assert late == got

    asyncio.run(scenario())


def test_a_closed_feed_ends_its_streams_with_feed_closed_from_their_start_frame() -> None:
    async def scenario() -> None:
        feed = FrameFeed()
        for turn in range(3):
            feed.publish({"Turn": turn}, 0.0)
        got: list[str] = []

        async def record(text: str) -> None:
            got.append(text)

        def encode(view: Mapping[str, Any], produced: float) -> str:
            return str(view["Turn"])

        # From frame 1 (a follower resuming): the history from there, then live frames.
        resumed = asyncio.create_task(feed.stream("turns", encode, record, start=1))
        while feed.followers == 0 or len(got) < 2:
            await asyncio.sleep(0)
        feed.publish({"Turn": 3}, 0.0)
        while len(got) < 3:
            await asyncio.sleep(0)
        feed.close()  # its game did not end: the follower must not be told it did
        with pytest.raises(FeedClosedError):
            await asyncio.wait_for(resumed, 5)
        assert got == ["1", "2", "3"]
        assert feed.followers == 0 and not feed.finished

    asyncio.run(scenario())


def test_serve_sends_frames_uncompressed_and_collects_rarely(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Compression is per connection: with it, every frame would cost once per spectator.
    import gc

    import uvicorn

    from snakewar.command import main
    from snakewar.server.command import SERVE_GC_THRESHOLDS

    configs: list[uvicorn.Config] = []
    thresholds: list[tuple[int, ...]] = []

    def run(server: uvicorn.Server, sockets: list[Any] | None = None) -> None:
        # The server would serve on the sockets `snakewar serve` bound: stop at once.
        assert sockets and all(s.getsockname()[1] == port for s in sockets)
        configs.append(server.config)
        server.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
    monkeypatch.setattr(gc, "set_threshold", lambda *args: thresholds.append(args))
    port = free_port()
    assert main(["serve", "--database", "memory", "--port", str(port)]) == 0
    assert len(configs) == 1 and configs[0].ws_per_message_deflate is False
    assert thresholds == [SERVE_GC_THRESHOLDS] and SERVE_GC_THRESHOLDS[0] > gc.get_threshold()[0]
