"""The official Battlesnake board's engine API: how the board and community tools watch games.

``GET /games/{id}``, ``GET /games/{id}/frames?offset=&limit=`` and the websocket
``/games/{id}/events`` (every frame from turn 0, then ``game_end``), in the shapes the
official board reads, for live and stored Battlesnake games (other games answer 404:
the board draws Battlesnake only).  A live game is live on every server of its
database, wherever it is played (:meth:`~snakewar.server.manager.GameManager.watch`).

The events websocket is every game's (:func:`snakewar.server.events.follow_game`, also
served for every game at ``/api/games/{id}/events``): its optional ``?from=N``
(Snakewar's own, not the official engine's) sends the frames from turn ``N`` on, so
that a follower that lost its connection resumes, on this server or another, where it
was; without it every frame is sent.  Only its ``game_end`` is the engine API's own:
the game's ``{"ID", "Status", ...}`` as the board reads it.  The close codes, the
``restart`` message and the caps on followers are :mod:`snakewar.server.events`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Query, WebSocket
from fastapi.responses import JSONResponse, Response

from snakewar.games.battlesnake.adapter import GAME
from snakewar.games.battlesnake.frames import game_info_from_header
from snakewar.games.battlesnake.routes.schemas import EngineFrames, EngineGame
from snakewar.server.deps import ManagerDep, StoreDep, StoredFollowingDep
from snakewar.server.events import (
    BAD_REQUEST_CLOSE_CODE,
    FOLLOWER_LIMIT_CLOSE_CODE,
    GAME_NOT_FOUND_CLOSE_CODE,
    MAX_START_FRAME,
    WIRE_FORMAT,
    follow_game,
    followed_game,
    live_or_stored,
)
from snakewar.server.followers import FRAME_PREFIX, PAGE, encode_frame, encode_stored_frame
from snakewar.server.manager import LiveGame
from snakewar.storage import AsyncStore, GameNotFoundError, GameRow

__all__ = [
    "BAD_REQUEST_CLOSE_CODE",
    "FOLLOWER_LIMIT_CLOSE_CODE",
    "FRAME_PREFIX",
    "GAME_NOT_FOUND_CLOSE_CODE",
    "MAX_START_FRAME",
    "PAGE",
    "WIRE_FORMAT",
    "encode_frame",
    "encode_stored_frame",
    "router",
]

router = APIRouter(tags=["engine"])


def _live_info(live: LiveGame) -> dict[str, Any]:
    if live.header is None:
        return {"ID": live.id, "Status": live.status}
    return game_info_from_header(live.header, live.status)


def _end_info(
    game_id: str, header: Mapping[str, Any] | None, status: str, turn: int
) -> dict[str, Any]:
    """The engine API's ``game_end`` ``Data``: the game as the board reads it."""
    del turn  # the board reads the turn from the frames
    if header is None:
        return {"ID": game_id, "Status": status}
    return game_info_from_header(header, status)


async def _stored(store: AsyncStore, game_id: str) -> GameRow:
    row = await store.run(store.store.games.get, game_id)
    if row is None or row.game != GAME.name:
        raise GameNotFoundError(game_id)
    return row


@router.get("/games/{game_id}", responses={200: {"model": EngineGame}})
async def engine_game(game_id: str, manager: ManagerDep, store: StoreDep) -> JSONResponse:
    """``{"Game": ..., "LastFrame": ...}`` as the official board reads it."""
    live = await live_or_stored(manager, game_id, GAME.name)
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
    following: StoredFollowingDep,
    offset: int = Query(0, ge=0, le=2**62),
    limit: int = Query(100, ge=1, le=1000),
) -> Response:
    """``{"Count": n, "Frames": [...]}``: a page of frames."""
    live = await live_or_stored(manager, game_id, GAME.name)
    if live is not None:
        views = live.views
        return JSONResponse({"Count": len(views), "Frames": views[offset : offset + limit]})
    row, count = await followed_game(following, game_id, GAME.name)
    end = min(offset + limit, count)
    frames: list[str] = []
    at = offset
    while at < end:
        page = await following.pages.page(game_id, at // PAGE, finished=row.finished)
        texts = page.texts[at % PAGE : at % PAGE + end - at]
        if not texts:
            break
        frames.extend(text[len(FRAME_PREFIX) : -1] for text in texts)
        at += len(texts)
    body = f'{{"Count":{count},"Frames":[{",".join(frames)}]}}'
    return Response(body.encode(), media_type="application/json")


@router.websocket("/games/{game_id}/events")
async def engine_events(websocket: WebSocket, game_id: str) -> None:
    """Every frame from turn 0 (or ``?from=N``), live, then ``{"Type": "game_end"}``."""
    await follow_game(websocket, game_id, GAME.name, _end_info)
