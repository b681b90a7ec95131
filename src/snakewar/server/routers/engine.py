"""The official Battlesnake board's engine API: how the board and community tools watch games.

``GET /games/{id}``, ``GET /games/{id}/frames?offset=&limit=`` and the websocket
``/games/{id}/events`` (every frame from turn 0, then ``game_end``), in the shapes the
official board reads, for live and stored Battlesnake games (other games answer 404:
the board draws Battlesnake only).

A live game's frames are encoded once for all its followers (its
:class:`~snakewar.server.fanout.FrameFeed`); a follower too slow for the game is closed
with code 1013 (:data:`~snakewar.server.fanout.LAGGING_CLOSE_CODE`).  Stored frames are
read and encoded in pages on the store's threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Query, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse, Response

from snakewar.adapters.battlesnake import GAME
from snakewar.games.battlesnake.frames import game_info_from_header
from snakewar.server.deps import ManagerDep, StoreDep
from snakewar.server.fanout import LAGGING_CLOSE_CODE, FollowerLagError
from snakewar.server.manager import LiveGame
from snakewar.server.schemas import EngineFrames, EngineGame
from snakewar.storage import AsyncStore, GameNotFoundError, GameRow

__all__ = ["PAGE", "WIRE_FORMAT", "encode_frame", "router"]

router = APIRouter(tags=["engine"])

PAGE = 100
"""Frames read from the store at a time when streaming a stored game."""

CLOSE_WAIT_S = 10.0
"""How long a dropped follower's close frame may wait for its client to read."""

WIRE_FORMAT = "engine-events"
"""The name of the events websocket's message format in a live game's frame cache."""


def _live_info(live: LiveGame) -> dict[str, Any]:
    if live.header is None:
        return {"ID": live.id, "Status": live.status}
    return game_info_from_header(live.header, live.status)


async def _stored(store: AsyncStore, game_id: str) -> GameRow:
    row = await store.run(store.store.games.get, game_id)
    if row is None or row.game != GAME.name:
        raise GameNotFoundError(game_id)
    return row


def _live(manager: ManagerDep, game_id: str) -> LiveGame | None:
    live = manager.games.get(game_id)
    return live if live is not None and live.game == GAME.name else None


@router.get("/games/{game_id}", responses={200: {"model": EngineGame}})
async def engine_game(game_id: str, manager: ManagerDep, store: StoreDep) -> JSONResponse:
    """``{"Game": ..., "LastFrame": ...}`` as the official board reads it."""
    live = _live(manager, game_id)
    if live is not None:
        last = live.views[-1] if live.views else None
        return JSONResponse({"Game": _live_info(live), "LastFrame": last})
    row = await _stored(store, game_id)
    games = store.store.games
    count = await store.run(games.frame_count, game_id)
    last_frames = await store.run(games.frames, game_id, max(count - 1, 0), 1)
    info = game_info_from_header(row.header, row.status)
    return JSONResponse({"Game": info, "LastFrame": last_frames[0] if last_frames else None})


def _frames_body(store: AsyncStore, game_id: str, offset: int, limit: int) -> bytes:
    # Runs on a store thread: reading and encoding a page both stay off the event loop.
    games = store.store.games
    page = {"Count": games.frame_count(game_id), "Frames": games.frames(game_id, offset, limit)}
    return json.dumps(page, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


@router.get("/games/{game_id}/frames", responses={200: {"model": EngineFrames}})
async def engine_frames(
    game_id: str,
    manager: ManagerDep,
    store: StoreDep,
    offset: int = Query(0, ge=0, le=2**62),
    limit: int = Query(100, ge=1, le=1000),
) -> Response:
    """``{"Count": n, "Frames": [...]}``: a page of frames."""
    live = _live(manager, game_id)
    if live is not None:
        views = live.views
        return JSONResponse({"Count": len(views), "Frames": views[offset : offset + limit]})
    await _stored(store, game_id)
    body = await store.run(_frames_body, store, game_id, offset, limit)
    return Response(body, media_type="application/json")


def encode_frame(view: Mapping[str, Any], produced: float | None) -> str:
    """A ``{"Type": "frame"}`` message of the events websocket, as its text."""
    message: dict[str, Any] = {"Type": "frame", "Data": view}
    if produced is not None:
        # "Time" (when the frame was made) is extra: the official board ignores it.
        message["Time"] = produced
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def _encode_live(view: Mapping[str, Any], produced: float) -> str:
    # Looked up at each call, so that a test can count the encodings.
    return encode_frame(view, produced)


def _encoded_page(store: AsyncStore, game_id: str, offset: int) -> list[str]:
    # Runs on a store thread: reading and encoding a page both stay off the event loop.
    return [encode_frame(v, None) for v in store.store.games.frames(game_id, offset, PAGE)]


@router.websocket("/games/{game_id}/events")
async def engine_events(websocket: WebSocket, game_id: str) -> None:
    """Every frame from turn 0, live, then ``{"Type": "game_end"}``."""
    manager = websocket.app.state.manager
    store: AsyncStore = websocket.app.state.store
    await websocket.accept()
    try:
        live = _live(manager, game_id)
        if live is not None:
            try:
                await live.feed.stream(WIRE_FORMAT, _encode_live, websocket.send_text)
            except FollowerLagError:
                # The close frame waits for room in the send buffer: not forever.
                with contextlib.suppress(TimeoutError):
                    closing = websocket.close(LAGGING_CLOSE_CODE, "too far behind the game")
                    await asyncio.wait_for(closing, CLOSE_WAIT_S)
                return
            await websocket.send_json({"Type": "game_end", "Data": _live_info(live)})
        else:
            try:
                row = await _stored(store, game_id)
            except GameNotFoundError:
                await websocket.close(code=4404, reason="game not found")
                return
            offset = 0
            while True:
                page = await store.run(_encoded_page, store, game_id, offset)
                for text in page:
                    await websocket.send_text(text)
                offset += len(page)
                if len(page) < PAGE:
                    break
            info = game_info_from_header(row.header, row.status)
            await websocket.send_json({"Type": "game_end", "Data": info})
        await websocket.close()
    except WebSocketDisconnect:
        return
