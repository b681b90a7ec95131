"""A game's events websocket: its frames as they are played, for any number of followers.

:func:`follow_game` is the one way every game's frames are streamed: the generic
``/api/games/{id}/events`` (:mod:`snakewar.server.routers.games`, every game) and a
game's own routes that speak another API (a board's official engine API,
``/games/{id}/events``) both call it, and differ only in which games they serve and the
``Data`` of their last message.  The messages are ``{"Type": "frame", "Data": view}``
(a live frame also has ``"Time"``, when it was made), one per frame from turn 0 or from
``?from=N`` (so that a follower that lost its connection resumes, on this server or
another, where it was), then ``{"Type": "game_end", "Data": ...}``.

* A live game is live on every server of its database, wherever it is played
  (:meth:`~snakewar.server.manager.GameManager.watch`): its frames are encoded once
  for all its followers (its :class:`~snakewar.server.fanout.FrameFeed`); a follower too
  slow for the game is closed with code 1013
  (:data:`~snakewar.server.fanout.LAGGING_CLOSE_CODE`).
* A follower of a game played elsewhere whose server stops is closed with code 1012
  (:data:`~snakewar.server.fanout.RESTART_CLOSE_CODE`): it reconnects, to another
  server.  A game played again from turn 0 (its cluster worker died) first sends its
  followers ``{"Type": "restart"}``: the frames they hold are void, and they reconnect
  from 0.
* A stored game's frames are read and encoded in pages on the store's threads, once for
  all its followers and ``/frames`` readers
  (:class:`~snakewar.server.followers.StoredPages`), and sent in chunks that take turns
  on the event loop (:class:`~snakewar.server.followers.SendTurns`); a follower of a
  stored game past a cap (per game, per client, in all) is closed with code 4429
  (:data:`FOLLOWER_LIMIT_CLOSE_CODE`), the reason naming the cap.  A game kept whole in
  one replay file once complete (its game's codec) keeps no frames apart from it: its
  stream is its ``game_end`` alone, and its viewer reads its replay.  For the same
  reason a follower of such a game on another server (a mirror) may be sent its
  ``game_end`` before its last few frames, when the game ended between two reads of
  the mirror: the ``game_end``'s turns played say so, and the replay has them all.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from typing import Any, Final, cast

from fastapi import WebSocket, WebSocketDisconnect

from snakewar.errors import BusyError
from snakewar.server.fanout import (
    LAGGING_CLOSE_CODE,
    RESTART_CLOSE_CODE,
    FeedClosedError,
    FollowerLagError,
)
from snakewar.server.followers import PAGE, FollowerLimitError, StoredFollowing, encode_frame
from snakewar.server.manager import GameManager, LiveGame
from snakewar.server.mirror import MirrorLimitError
from snakewar.server.safety import address_key
from snakewar.storage import GameNotFoundError, GameRow

__all__ = [
    "BAD_REQUEST_CLOSE_CODE",
    "CLOSE_WAIT_S",
    "FOLLOWER_LIMIT_CLOSE_CODE",
    "GAME_NOT_FOUND_CLOSE_CODE",
    "MAX_START_FRAME",
    "RESTART_DATA",
    "WIRE_FORMAT",
    "EndData",
    "follow_game",
    "followed_game",
    "live_game",
    "live_or_stored",
    "start_frame",
]

CLOSE_WAIT_S: Final = 10.0
"""How long a dropped follower's close frame may wait for its client to read."""

WIRE_FORMAT: Final = "events"
"""The name of the events websocket's message format in a live game's frame cache."""

GAME_NOT_FOUND_CLOSE_CODE: Final = 4404
"""The websocket close code for a game this server does not know (like HTTP 404)."""

FOLLOWER_LIMIT_CLOSE_CODE: Final = 4429
"""The websocket close code of a stored game's follower refused by a cap (like HTTP 429):
the reason names the cap; it may try again later."""

BAD_REQUEST_CLOSE_CODE: Final = 4400
"""The websocket close code for a bad query parameter (like HTTP 400): the reason names it."""

RESTART_DATA: Final = {
    "Reason": "its worker stopped; the game is played again from turn 0",
}
"""The ``Data`` of the ``{"Type": "restart"}`` message."""

MAX_START_FRAME: Final = 2**31 - 1
"""The largest ``from`` the events websocket takes."""

EndData = Callable[[str, Mapping[str, Any] | None, str, int], Mapping[str, Any]]
"""The ``Data`` of a stream's ``game_end``: from the game's id, its header (``None``
before it started), its status and the turns played."""


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


async def live_game(manager: GameManager, game_id: str, game: str | None) -> LiveGame | None:
    """This server's own live game, or one another plays, mirrored from the database.

    ``game``: only a game of this game (``None``: any).

    Raises:
        MirrorLimitError: if this process mirrors as many games as it may.
    """
    live = await manager.watch(game_id)
    return live if live is not None and game in (None, live.game) else None


async def live_or_stored(manager: GameManager, game_id: str, game: str | None) -> LiveGame | None:
    """:func:`live_game`, or ``None`` past the cap on mirrored games.

    A page of a running game reads as well from the store (its row says running): past
    the cap it does, rather than refuse.
    """
    try:
        return await live_game(manager, game_id, game)
    except MirrorLimitError:
        return None


async def followed_game(
    following: StoredFollowing, game_id: str, game: str | None
) -> tuple[GameRow, int]:
    """A stored game (``game``'s, unless ``None``) and its frames' count, for its followers.

    Looked up in the followers' lane of the store (shared by concurrent lookups).

    Raises:
        GameNotFoundError: no such game (of that game).
    """
    row, count = await following.pages.game(game_id)
    if game is not None and row.game != game:
        raise GameNotFoundError(game_id)
    return row, count


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


def _turns(live: LiveGame) -> int:
    """The turns a finished live game played (its frames may hold one more: an end)."""
    if live.played is not None:
        return live.played.turns
    if live.listing is not None and live.finished:  # a mirror's: as its row says
        return live.listing.turns
    return max(len(live.feed) - 1, 0)


async def _follow_live(websocket: WebSocket, live: LiveGame, start: int, end: EndData) -> bool:
    """Stream a live game to its end; whether the follower was sent its ``game_end``."""
    try:
        await _stream_live(websocket, live, start)
    except FollowerLagError:
        await _close_soon(websocket, LAGGING_CLOSE_CODE, "too far behind the game")
        return False
    except FeedClosedError:
        if live.feed.restarted:
            # Its worker died and it is played again from turn 0: the frames sent are
            # void.  Snakewar's viewers drop them and reconnect from 0.
            with contextlib.suppress(Exception):
                await websocket.send_json({"Type": "restart", "Data": RESTART_DATA})
            await _close_soon(websocket, RESTART_CLOSE_CODE, "game played again")
            return False
        # This server stops following it: try another.
        await _close_soon(websocket, RESTART_CLOSE_CODE, "server restarting")
        return False
    data = end(live.id, live.header, str(live.status), _turns(live))
    await websocket.send_json({"Type": "game_end", "Data": dict(data)})
    return True


async def _follow_stored(
    websocket: WebSocket,
    following: StoredFollowing,
    game_id: str,
    game: str | None,
    start: int,
    end: EndData,
) -> bool:
    """Stream a stored game's frames; whether the follower was sent its ``game_end``."""
    client = address_key(websocket.client.host if websocket.client else "")
    try:
        with following.limits.following(game_id, client):
            row, _ = await followed_game(following, game_id, game)
            await _send_stored(websocket, following, row, start)
    except FollowerLimitError as exc:
        await websocket.close(FOLLOWER_LIMIT_CLOSE_CODE, str(exc))
        return False
    except GameNotFoundError:  # an unknown game, or one deleted meanwhile
        await websocket.close(GAME_NOT_FOUND_CLOSE_CODE, "game not found")
        return False
    data = end(row.id, row.header, str(row.status), row.turns)
    await websocket.send_json({"Type": "game_end", "Data": dict(data)})
    return True


async def follow_game(websocket: WebSocket, game_id: str, game: str | None, end: EndData) -> None:
    """Serve one follower of ``game_id`` (see the module docstring) until the stream ends.

    Args:
        websocket: the follower's websocket, not yet accepted.
        game_id: the game followed.
        game: serve only games of this game (another is "not found"); ``None``: any.
        end: the ``Data`` of the ``game_end`` message.
    """
    manager: GameManager = websocket.app.state.manager
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
            live = await live_game(manager, game_id, game)
        except BusyError as exc:  # too many games mirrored here
            await websocket.close(FOLLOWER_LIMIT_CLOSE_CODE, str(exc)[:120])
            return
        if live is not None:
            ended = await _follow_live(websocket, live, start, end)
        else:
            ended = await _follow_stored(websocket, following, game_id, game, start, end)
        if ended:
            await websocket.close()
    except WebSocketDisconnect:
        return
