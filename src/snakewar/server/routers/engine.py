"""The official Battlesnake board's engine API: how the board and community tools watch games.

``GET /games/{id}``, ``GET /games/{id}/frames?offset=&limit=`` and the websocket
``/games/{id}/events`` (every frame from turn 0, then ``game_end``), in the shapes the
official board reads, for live and stored Battlesnake games (other games answer 404:
the board draws Battlesnake only).  Stored frames are read in pages on the store's
threads, never on the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Query, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

from snakewar.adapters.battlesnake import GAME
from snakewar.games.battlesnake.frames import game_info_from_header
from snakewar.server.deps import ManagerDep, StoreDep
from snakewar.server.manager import LiveGame
from snakewar.server.schemas import EngineFrames, EngineGame
from snakewar.storage import AsyncStore, GameNotFoundError, GameRow

__all__ = ["PAGE", "router"]

router = APIRouter(tags=["engine"])

PAGE = 100
"""Frames read from the store at a time when streaming a stored game."""


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


@router.get("/games/{game_id}/frames", responses={200: {"model": EngineFrames}})
async def engine_frames(
    game_id: str,
    manager: ManagerDep,
    store: StoreDep,
    offset: int = Query(0, ge=0, le=2**62),
    limit: int = Query(100, ge=1, le=1000),
) -> JSONResponse:
    """``{"Count": n, "Frames": [...]}``: a page of frames."""
    live = _live(manager, game_id)
    if live is not None:
        views = live.views
        return JSONResponse({"Count": len(views), "Frames": views[offset : offset + limit]})
    await _stored(store, game_id)
    games = store.store.games
    count = await store.run(games.frame_count, game_id)
    frames = await store.run(games.frames, game_id, offset, limit)
    return JSONResponse({"Count": count, "Frames": frames})


async def _send_frame(
    websocket: WebSocket, view: Mapping[str, Any], produced: float | None
) -> None:
    message: dict[str, Any] = {"Type": "frame", "Data": view}
    if produced is not None:
        # "Time" (when the frame was made) is extra: the official board ignores it.
        message["Time"] = produced
    await websocket.send_json(message)


@router.websocket("/games/{game_id}/events")
async def engine_events(websocket: WebSocket, game_id: str) -> None:
    """Every frame from turn 0, live, then ``{"Type": "game_end"}``."""
    manager = websocket.app.state.manager
    store: AsyncStore = websocket.app.state.store
    await websocket.accept()
    try:
        live = _live(manager, game_id)
        if live is not None:
            async for view, produced in live.follow():
                await _send_frame(websocket, view, produced)
            await websocket.send_json({"Type": "game_end", "Data": _live_info(live)})
        else:
            try:
                row = await _stored(store, game_id)
            except GameNotFoundError:
                await websocket.close(code=4404, reason="game not found")
                return
            offset = 0
            while True:
                page = await store.run(store.store.games.frames, game_id, offset, PAGE)
                for view in page:
                    await _send_frame(websocket, view, None)
                offset += len(page)
                if len(page) < PAGE:
                    break
            info = game_info_from_header(row.header, row.status)
            await websocket.send_json({"Type": "game_end", "Data": info})
        await websocket.close()
    except WebSocketDisconnect:
        return
