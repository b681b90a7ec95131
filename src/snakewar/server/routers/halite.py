"""``/api/halite``: Halite III replays (uploads of ``.hlt`` files) and their documents.

* ``POST /api/halite/games``: upload a ``.hlt`` (the raw request body, or a
  ``multipart/form-data`` field named ``file``); it is size-capped, checked and stored
  like any game, and the answer is ``{"id", "url"}``.  A bad file is a 400 (413 when
  too large) with a one-line ``detail``.
* ``GET /api/halite/games`` (list), ``GET /api/halite/games/{id}`` (one),
  ``GET /api/halite/games/{id}/replay`` (the replay's JSON document, gzipped for
  clients that accept it) and ``GET /api/halite/games/{id}/replay.hlt`` (the file).
* ``POST /api/halite/decode``: a ``.hlt`` in, its JSON document out, nothing stored
  (browsers cannot decompress zstd, so the viewer's "open a local file" uses it).

Reading bodies, multipart parsing, decompression and JSON all run off the event loop.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import uuid
from collections import OrderedDict
from email.parser import BytesParser
from email.policy import HTTP
from typing import Final

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from snakewar.adapters.halite3 import GAME, played_from_hlt, read_checked_hlt
from snakewar.errors import SnakewarError, TooLargeError
from snakewar.referee.halite import NAME_MAX_LENGTH
from snakewar.server.auth import UserDep
from snakewar.server.deps import ConfigDep, StoreDep
from snakewar.server.safety import RateLimiter, RateLimitError
from snakewar.server.schemas import (
    HaliteReplayDocumentOut,
    ProgramGameOut,
    UploadOut,
    binary_download,
)
from snakewar.storage import MAX_REPLAY_BYTES, AsyncStore, GameNotFoundError, GameRow

__all__ = ["MAX_DOCUMENT_BYTES", "MAX_UPLOAD_BYTES", "HaliteState", "UploadError", "router"]

router = APIRouter(prefix="/api/halite", tags=["halite"])

MAX_UPLOAD_BYTES: Final = MAX_REPLAY_BYTES
"""The largest ``.hlt`` (compressed) the server accepts: 32 MiB."""

MAX_DOCUMENT_BYTES: Final = 32 * 1024 * 1024
"""The largest decompressed replay the server reads: 32 MiB (a 64x64 4-player game is ~2 MB)."""


_FORM_OVERHEAD: Final = 64 * 1024
_DOCUMENTS_KEPT: Final = 8


class HaliteState:
    """The router's own state in an app: upload rate limits and a document cache."""

    def __init__(self) -> None:
        self.uploads = RateLimiter(per_minute=10.0, burst=5)
        # Recently served documents, gzipped: a viewer reload must not decompress again.
        self.documents: OrderedDict[str, bytes] = OrderedDict()


def _state(request: Request) -> HaliteState:
    state: HaliteState | None = getattr(request.app.state, "halite", None)
    if state is None:
        state = request.app.state.halite = HaliteState()
    return state


class UploadError(SnakewarError, ValueError):
    """Raised for an upload that holds no replay file."""


def _out(row: GameRow) -> ProgramGameOut:
    result = row.result or {}
    return ProgramGameOut(
        id=row.id,
        created_at=row.created_at.isoformat(),
        source=row.source,
        seed=str(row.seed),
        width=row.width,
        height=row.height,
        num_players=len(row.entrants),
        players=[str(e.get("name", "")) for e in row.entrants],
        ranks=list(row.ranks or []),
        scores=[float(s) for s in result.get("scores", [])],
        winner=row.winner_name,
        failures=[str(e.get("failure", "")) for e in row.entrants],
        status=row.status,
        turns=row.turns,
        replay_size=row.replay_size,
        url=GAME.viewer_url(row.id),
        replay=f"/api/halite/games/{row.id}/replay",
    )


MAX_PARTS: Final = 4
"""The most parts a multipart upload may have (the file, and a few form fields)."""


def _count_parts(content_type: str, body: bytes) -> None:
    """Refuse a multipart body of more than :data:`MAX_PARTS` parts, before parsing it.

    Counting boundary lines is one pass over the bytes; the parser on 80,000 tiny parts
    takes tens of seconds of CPU (and the GIL) even off the event loop.
    """
    _, _, rest = content_type.partition("boundary=")
    boundary = rest.split(";", 1)[0].strip().strip('"')
    if not boundary:
        raise UploadError("multipart upload has no boundary in its Content-Type")
    parts = body.count(b"--" + boundary.encode("latin-1", "replace")) - 1
    if parts > MAX_PARTS:
        raise UploadError(f"multipart upload has {parts} parts; expected at most {MAX_PARTS}")


def _multipart_file(content_type: str, body: bytes) -> bytes:
    """The ``file`` field (or the only field) of a ``multipart/form-data`` body."""
    _count_parts(content_type, body)
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode("latin-1")
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    parts = [p for p in message.iter_parts() if not p.is_multipart()]
    chosen = [p for p in parts if p.get_param("name", header="content-disposition") == "file"]
    if not chosen and len(parts) == 1:
        chosen = parts
    if not chosen:
        raise UploadError("multipart upload has no field named 'file'; expected one")
    payload = chosen[0].get_payload(decode=True)
    return payload if isinstance(payload, bytes) else b""


async def _read_body(request: Request, config: ConfigDep) -> bytes:
    """The uploaded file, refused (413) as soon as the body passes the cap."""
    if config.public:
        client = request.client.host if request.client else "unknown"
        if not _state(request).uploads.allow(client):
            raise RateLimitError("too many replays uploaded from this address; wait a minute")
    content_type = request.headers.get("content-type", "")
    multipart = content_type.startswith("multipart/form-data")
    limit = MAX_UPLOAD_BYTES + (_FORM_OVERHEAD if multipart else 0)
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLargeError(
            f"upload of {declared} bytes is too large; expected at most {MAX_UPLOAD_BYTES}"
        )
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise TooLargeError(
                f"upload is larger than {MAX_UPLOAD_BYTES} bytes; expected at most "
                f"{MAX_UPLOAD_BYTES}"
            )
    data = bytes(body)
    if multipart:
        data = await asyncio.to_thread(_multipart_file, content_type, data)
    if len(data) > MAX_UPLOAD_BYTES:
        raise TooLargeError(
            f"upload of {len(data)} bytes is too large; expected at most {MAX_UPLOAD_BYTES}"
        )
    return data


def _document(data: bytes) -> bytes:
    """The replay's JSON document as compact UTF-8 text (what the viewer downloads)."""
    # A server reads replays from strangers: a small file must not decompress to
    # gigabytes, and a player's name is the engine's at most (it cuts names to 30).
    document = read_checked_hlt(
        data,
        max_bytes=MAX_UPLOAD_BYTES,
        max_document_bytes=MAX_DOCUMENT_BYTES,
        max_name_length=NAME_MAX_LENGTH,
    ).document
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


async def _stored(store: AsyncStore, game_id: str) -> GameRow:
    row = await store.run(store.store.games.get, game_id)
    if row is None or row.game != GAME.name:
        raise GameNotFoundError(game_id)
    return row


@router.post("/games", status_code=201)
async def upload_game(
    request: Request, principal: UserDep, config: ConfigDep, store: StoreDep
) -> UploadOut:
    """Store an uploaded ``.hlt`` replay (raw body, or multipart field ``file``); users."""
    data = await _read_body(request, config)
    if not data:
        raise UploadError("replay file is empty; expected a .hlt file")
    played = await asyncio.to_thread(
        played_from_hlt,
        data,
        game_id=str(uuid.uuid4()),
        source="upload",
        max_bytes=MAX_UPLOAD_BYTES,
        max_document_bytes=MAX_DOCUMENT_BYTES,
        max_name_length=NAME_MAX_LENGTH,
    )
    await store.run(store.store.games.save_played, played, owner_id=principal.id)
    return UploadOut(id=played.id, url=GAME.viewer_url(played.id))


@router.post(
    "/decode", response_class=Response, responses={200: {"model": HaliteReplayDocumentOut}}
)
async def decode_game(request: Request, config: ConfigDep) -> Response:
    """A ``.hlt`` replay's JSON document (nothing is stored)."""
    data = await _read_body(request, config)
    if not data:
        raise UploadError("replay file is empty; expected a .hlt file")
    text = await asyncio.to_thread(_document, data)
    return Response(text, media_type="application/json")


@router.get("/games")
async def list_games(
    store: StoreDep,
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0, le=2**62),
) -> list[ProgramGameOut]:
    """Stored Halite games, newest first."""
    rows = await store.run(store.store.games.latest, limit, offset, game=GAME.name)
    return [_out(row) for row in rows]


@router.get("/games/{game_id}")
async def get_game(game_id: str, store: StoreDep) -> ProgramGameOut:
    """One stored game."""
    return _out(await _stored(store, game_id))


@router.get(
    "/games/{game_id}/replay.hlt",
    response_class=Response,
    responses={200: binary_download("The .hlt file (zstd).", "application/octet-stream")},
)
async def download_game(game_id: str, store: StoreDep) -> Response:
    """The stored ``.hlt`` file."""
    await _stored(store, game_id)
    data = await store.run(store.store.games.data, game_id)
    return Response(
        GAME.export(data),
        media_type="application/octet-stream",
        headers={"Content-Disposition": f'attachment; filename="{game_id}.hlt"'},
    )


def _gzipped_document(store: AsyncStore, cache: OrderedDict[str, bytes], game_id: str) -> bytes:
    if game_id in cache:
        cache.move_to_end(game_id)
        return cache[game_id]
    text = _document(GAME.export(store.store.games.data(game_id)))
    packed = gzip.compress(text, compresslevel=5, mtime=0)
    cache[game_id] = packed
    while len(cache) > _DOCUMENTS_KEPT:
        cache.popitem(last=False)
    return packed


@router.get(
    "/games/{game_id}/replay",
    response_class=Response,
    responses={200: {"model": HaliteReplayDocumentOut}},
)
async def replay_document(game_id: str, request: Request, store: StoreDep) -> Response:
    """The replay's JSON document, as the engine wrote it (gzip when accepted)."""
    await _stored(store, game_id)
    packed = await store.run(_gzipped_document, store, _state(request).documents, game_id)
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(
            packed,
            media_type="application/json",
            headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"},
        )
    return Response(await asyncio.to_thread(gzip.decompress, packed), media_type="application/json")
