"""The official Battlesnake board's engine API: how the board and community tools watch games.

``GET /games/{id}``, ``GET /games/{id}/frames?offset=&limit=`` and the websocket
``/games/{id}/events`` (every frame from turn 0, then ``game_end``), in the shapes the
official board reads, for live and stored Battlesnake games (other games answer 404:
the board draws Battlesnake only).  A live game is live on every server of its
database, wherever it is played (:meth:`~snakewar.server.manager.GameManager.watch`).

The events websocket takes an optional ``?from=N`` (Snakewar's own, not the official
engine's): the frames from turn ``N`` on, so that a follower that lost its connection
resumes, on this server or another, where it was.  Without it every frame is sent.
A follower of a game played elsewhere whose server stops is closed with code 1012
(:data:`~snakewar.server.fanout.RESTART_CLOSE_CODE`): it reconnects, to another server.
A game played again from turn 0 (its cluster worker died) first sends its followers
``{"Type": "restart"}``: the frames they hold are void, and they reconnect from 0.

A live game's frames are encoded once for all its followers (its
:class:`~snakewar.server.fanout.FrameFeed`); a follower too slow for the game is closed
with code 1013 (:data:`~snakewar.server.fanout.LAGGING_CLOSE_CODE`).  A stored game's
frames are read and encoded in pages on the store's threads, once for all its followers
and ``/frames`` readers (:class:`~snakewar.server.followers.StoredPages`), and sent in
chunks that take turns on the event loop (:class:`~snakewar.server.followers.SendTurns`);
a follower of a stored game past a cap (per game, per client, in all) is closed with
code 4429 (:data:`FOLLOWER_LIMIT_CLOSE_CODE`), the reason naming the cap.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any, Final, cast

from fastapi import APIRouter, Query, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse, Response

from snakewar.errors import BusyError
from snakewar.games.battlesnake.adapter import GAME
from snakewar.games.battlesnake.frames import game_info_from_header
from snakewar.games.battlesnake.routes.schemas import EngineFrames, EngineGame
from snakewar.server.deps import ManagerDep, StoreDep, StoredFollowingDep
from snakewar.server.fanout import (
    LAGGING_CLOSE_CODE,
    RESTART_CLOSE_CODE,
    FeedClosedError,
    FollowerLagError,
)
from snakewar.server.followers import (
    FRAME_PREFIX,
    PAGE,
    FollowerLimitError,
    StoredFollowing,
    encode_frame,
    encode_stored_frame,
)
from snakewar.server.manager import LiveGame
from snakewar.server.mirror import MirrorLimitError
from snakewar.server.safety import address_key
from snakewar.storage import AsyncStore, GameNotFoundError, GameRow

__all__ = [
    "BAD_REQUEST_CLOSE_CODE",
    "FOLLOWER_LIMIT_CLOSE_CODE",
    "FRAME_PREFIX",
    "MAX_START_FRAME",
    "PAGE",
    "WIRE_FORMAT",
    "encode_frame",
    "encode_stored_frame",
    "router",
]

router = APIRouter(tags=["engine"])

CLOSE_WAIT_S = 10.0
"""How long a dropped follower's close frame may wait for its client to read."""

WIRE_FORMAT = "engine-events"
"""The name of the events websocket's message format in a live game's frame cache."""

GAME_NOT_FOUND_CLOSE_CODE = 4404
"""The websocket close code for a game this server does not know (like HTTP 404)."""

FOLLOWER_LIMIT_CLOSE_CODE = 4429
"""The websocket close code of a stored game's follower refused by a cap (like HTTP 429):
the reason names the cap; it may try again later."""


BAD_REQUEST_CLOSE_CODE = 4400
"""The websocket close code for a bad query parameter (like HTTP 400): the reason names it."""

RESTART_DATA: Final = {
    "Reason": "its worker stopped; the game is played again from turn 0",
}
"""The ``Data`` of the ``{"Type": "restart"}`` message (Snakewar's own, not the engine's)."""

MAX_START_FRAME = 2**31 - 1
"""The largest ``from`` the events websocket takes."""


def start_frame(text: str | None) -> int:
    """The events websocket's ``from``: the first frame to send (``None``: 0).

    Raises:
        ValueError: not a decimal integer from 0 to :data:`MAX_START_FRAME` (the
            message names the field).
    """
    if text is None:
        return 0
    if not (text.isascii() and text.isdigit() and len(text) <= 10) or int(text) > MAX_START_FRAME:
        raise ValueError(f"from: expected an integer from 0 to {MAX_START_FRAME}")
    return int(text)


def _live_info(live: LiveGame) -> dict[str, Any]:
    if live.header is None:
        return {"ID": live.id, "Status": live.status}
    return game_info_from_header(live.header, live.status)


async def _stored(store: AsyncStore, game_id: str) -> GameRow:
    row = await store.run(store.store.games.get, game_id)
    if row is None or row.game != GAME.name:
        raise GameNotFoundError(game_id)
    return row


async def _followed(following: StoredFollowing, game_id: str) -> tuple[GameRow, int]:
    # Looked up in the followers' lane of the store (shared by concurrent lookups).
    row, count = await following.pages.game(game_id)
    if row.game != GAME.name:
        raise GameNotFoundError(game_id)
    return row, count


async def _live(manager: ManagerDep, game_id: str) -> LiveGame | None:
    # This server's own game, or one another plays, mirrored from the database.
    live = await manager.watch(game_id)
    return live if live is not None and live.game == GAME.name else None


async def _live_or_stored(manager: ManagerDep, game_id: str) -> LiveGame | None:
    # A page of a running game reads as well from the store (its row says running):
    # past the cap on mirrored games it does, rather than refuse.
    try:
        return await _live(manager, game_id)
    except MirrorLimitError:
        return None


@router.get("/games/{game_id}", responses={200: {"model": EngineGame}})
async def engine_game(game_id: str, manager: ManagerDep, store: StoreDep) -> JSONResponse:
    """``{"Game": ..., "LastFrame": ...}`` as the official board reads it."""
    live = await _live_or_stored(manager, game_id)
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
    live = await _live_or_stored(manager, game_id)
    if live is not None:
        views = live.views
        return JSONResponse({"Count": len(views), "Frames": views[offset : offset + limit]})
    row, count = await _followed(following, game_id)
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


def _encode_live(view: Mapping[str, Any], produced: float) -> str:
    # Looked up at each call, so that a test can count the encodings.
    return encode_frame(view, produced)


async def _send_stored(
    websocket: WebSocket, following: StoredFollowing, row: GameRow, start: int = 0
) -> None:
    # Each page is read and encoded once for every follower; each chunk of it waits its
    # turn, so that all the followers together take a bounded share of each loop turn.
    index, skip = divmod(start, PAGE)
    while True:
        page = await following.pages.page(row.id, index, finished=row.finished)
        for chunk in page.chunks():
            if skip >= len(chunk):  # before the follower's first frame
                skip -= len(chunk)
                continue
            await following.turns.turn()
            for text in chunk[skip:]:
                await websocket.send_text(text)
            skip = 0
        if len(page) < PAGE:
            return
        index += 1


async def _disconnected(websocket: WebSocket) -> None:
    # A follower sends nothing the server needs: what it sends is read and dropped.
    while (await websocket.receive())["type"] != "websocket.disconnect":
        pass


async def _stream_live(websocket: WebSocket, live: LiveGame, start: int) -> None:
    """Stream a live game's frames from ``start`` until it ends or the follower leaves.

    A follower that leaves while no frame comes (a paused game; a server stopping) is
    let go at once, not at the next frame: it follows (and keeps a mirror) no more.

    Raises:
        WebSocketDisconnect: the follower left.
        FollowerLagError: it fell too far behind.
        FeedClosedError: the feed closed before the game ended.
    """
    streaming = asyncio.ensure_future(
        live.feed.stream(WIRE_FORMAT, _encode_live, websocket.send_text, start)
    )
    leaving = asyncio.ensure_future(_disconnected(websocket))
    try:
        await asyncio.wait((streaming, leaving), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (streaming, leaving):
            task.cancel()
        await asyncio.gather(streaming, leaving, return_exceptions=True)
    if not streaming.cancelled() and streaming.exception() is None:
        return
    if not streaming.cancelled():
        raise cast(BaseException, streaming.exception())
    raise WebSocketDisconnect


async def _close_soon(websocket: WebSocket, code: int, reason: str) -> None:
    # The close frame waits for room in the send buffer: not forever.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(websocket.close(code, reason), CLOSE_WAIT_S)


@router.websocket("/games/{game_id}/events")
async def engine_events(websocket: WebSocket, game_id: str) -> None:
    """Every frame from turn 0 (or ``?from=N``), live, then ``{"Type": "game_end"}``."""
    manager = websocket.app.state.manager
    following: StoredFollowing = websocket.app.state.stored_following
    # The handshake's reply takes a turn too: a burst of new followers is let in a few
    # at a time, between other clients' requests.
    await following.turns.turn()
    await websocket.accept()
    try:
        try:
            start = start_frame(websocket.query_params.get("from"))
        except ValueError as exc:
            await websocket.close(BAD_REQUEST_CLOSE_CODE, str(exc))
            return
        try:
            live = await _live(manager, game_id)
        except BusyError as exc:  # too many games mirrored here
            await websocket.close(FOLLOWER_LIMIT_CLOSE_CODE, str(exc)[:120])
            return
        if live is not None:
            try:
                await _stream_live(websocket, live, start)
            except FollowerLagError:
                await _close_soon(websocket, LAGGING_CLOSE_CODE, "too far behind the game")
                return
            except FeedClosedError:
                if live.feed.restarted:
                    # Its worker died and it is played again from turn 0: the frames
                    # sent are void.  Snakewar's viewer drops them and reconnects from 0.
                    with contextlib.suppress(Exception):
                        await websocket.send_json({"Type": "restart", "Data": RESTART_DATA})
                    await _close_soon(websocket, RESTART_CLOSE_CODE, "game played again")
                    return
                # This server stops following it: try another.
                await _close_soon(websocket, RESTART_CLOSE_CODE, "server restarting")
                return
            await websocket.send_json({"Type": "game_end", "Data": _live_info(live)})
        else:
            client = address_key(websocket.client.host if websocket.client else "")
            try:
                with following.limits.following(game_id, client):
                    row, _ = await _followed(following, game_id)
                    await _send_stored(websocket, following, row, start)
            except FollowerLimitError as exc:
                await websocket.close(FOLLOWER_LIMIT_CLOSE_CODE, str(exc))
                return
            except GameNotFoundError:  # an unknown game, or one deleted meanwhile
                await websocket.close(GAME_NOT_FOUND_CLOSE_CODE, "game not found")
                return
            info = game_info_from_header(row.header, row.status)
            await websocket.send_json({"Type": "game_end", "Data": info})
        await websocket.close()
    except WebSocketDisconnect:
        return
