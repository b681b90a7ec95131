"""``/api/halite``: Halite III replays (uploads of ``.hlt`` files) and their documents.

* ``POST /api/halite/games``: upload a ``.hlt`` (the raw request body, or a
  ``multipart/form-data`` field named ``file``); it is size-capped, checked and stored
  like any game, and the answer is ``{"id", "url"}``.  A bad file is a 400 (413 when
  too large, or past its uploader's storage quota) with a one-line ``detail``.
* ``GET /api/halite/games`` (list), ``GET /api/halite/games/{id}`` (one),
  ``GET /api/halite/games/{id}/replay`` (the replay's JSON document, gzipped for
  clients that accept it) and ``GET /api/halite/games/{id}/replay.hlt`` (the file).
* ``POST /api/halite/decode``: a ``.hlt`` in, its JSON document out, nothing stored
  (browsers cannot decompress zstd, so the viewer's "open a local file" uses it).
* the pages (:data:`page_routes`): ``/halite`` (stored games and the upload form),
  ``/halite/view`` (the viewer's file picker) and ``/halite/games/{id}`` (where games
  used to be shown: a redirect to the game page).  Their templates are the game's
  (``halite3/<file>``), their modules and the viewer its static files (``/static/halite3/``).

Bodies are read and multipart parsed off the event loop; every replay is decompressed
and parsed in the server's :class:`~snakewar.server.decoding.DecoderPool` (a few
memory-capped worker processes; the jobs are :mod:`snakewar.games.halite3.decoding`),
within :data:`MAX_DOCUMENT_BYTES` of JSON and
:data:`MAX_DOCUMENT_ELEMENTS` keys and values.  Uploads and decodes count against a
rate per client (a user, else an address or IPv6 /64).
"""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import re
import uuid
from collections import OrderedDict
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from typing import Final
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from snakewar.errors import SnakewarError, TooLargeError
from snakewar.games.halite3.adapter import GAME
from snakewar.games.halite3.decoding import (
    MAX_DOCUMENT_BYTES,
    MAX_DOCUMENT_ELEMENTS,
    decode_document,
    gzipped_document,
    played_upload,
)
from snakewar.games.halite3.routes.schemas import HaliteReplayDocumentOut, ProgramGameOut
from snakewar.server.auth import UserDep
from snakewar.server.decoding import DecoderPool
from snakewar.server.deps import (
    ConfigDep,
    DecodersDep,
    StoreDep,
    TemplatesDep,
    client_key,
    game_static_url,
    get_rates,
)
from snakewar.server.limits import RateBook
from snakewar.server.routers.pages import (
    TurnQuery,
    framed_page,
    page_router,
    parse_turn,
    render_page,
)
from snakewar.server.safety import RateLimitError
from snakewar.server.schemas import UploadOut, binary_download
from snakewar.storage import MAX_REPLAY_BYTES, AsyncStore, GameNotFoundError, GameRow

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "MAX_DOCUMENT_ELEMENTS",
    "MAX_UPLOAD_BYTES",
    "STREAMED_UPLOADS",
    "HaliteState",
    "UploadError",
    "page_routes",
    "router",
]

router = APIRouter(prefix="/api/halite", tags=["halite"])

page_routes = page_router()
"""The game's HTML pages (the site's header over them, out of the OpenAPI description)."""

STREAMED_UPLOADS: Final = ("/api/halite/games", "/api/halite/decode")
"""The routes that read an upload under their own cap (:data:`MAX_UPLOAD_BYTES`)."""

MAX_UPLOAD_BYTES: Final = MAX_REPLAY_BYTES
"""The largest ``.hlt`` (compressed) the server accepts: 32 MiB."""


_FORM_OVERHEAD: Final = 64 * 1024
_DOCUMENTS_KEPT: Final = 8


class HaliteState:
    """The router's own state in an app: rate limits and a document cache.

    Args:
        rates: makes the limits (counted in the database when the server's may be
            shared); default: in this process.
    """

    def __init__(self, rates: RateBook | None = None) -> None:
        rates = rates or RateBook()
        # Replays sent (uploads and decodes), per client.
        self.uploads = rates.rate("halite-uploads", per_minute=10.0, burst=5)
        # Stored replays decoded for a viewer (the cache's misses), per client.
        self.documents_read = rates.rate("halite-documents", per_minute=30.0, burst=10)
        # Recently served documents, gzipped: a viewer reload must not decompress again.
        self.documents: OrderedDict[str, bytes] = OrderedDict()


def _state(request: Request) -> HaliteState:
    state: HaliteState | None = getattr(request.app.state, "halite", None)
    if state is None:
        state = request.app.state.halite = HaliteState(get_rates(request))
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

# RFC 2046, 5.1.1: a boundary is 1 to 70 of these characters and does not end in a space.
_BOUNDARY: Final = re.compile(r"[0-9A-Za-z'()+_,./:=? -]{0,69}[0-9A-Za-z'()+_,./:=?-]\Z")


def _parsed_header(content_type: str) -> Message:
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode("latin-1")
    return BytesParser(policy=HTTP).parsebytes(head, headersonly=True)


def _boundary(content_type: str) -> str:
    """The boundary the multipart parser will split the body on, as that parser reads it.

    A Content-Type naming ``boundary`` twice (or one that two readings of the header
    disagree on) is refused: counting parts by one boundary while the parser splits by
    another let 80,000 parts through (issue 31).
    """
    raw = Message()
    raw["Content-Type"] = content_type
    named = [name for name, _ in raw.get_params(failobj=[])[1:] if name.lower() == "boundary"]
    if len(named) > 1:
        raise UploadError("multipart upload names a boundary twice in its Content-Type")
    boundary = _parsed_header(content_type).get_boundary()
    if not named or not boundary:
        raise UploadError("multipart upload has no boundary in its Content-Type")
    if boundary != raw.get_boundary() or not _BOUNDARY.match(boundary):
        raise UploadError(
            "multipart upload's boundary is not 1 to 70 letters, digits or '()+_,-./:=? "
            "in one reading"
        )
    return boundary


def _count_parts(content_type: str, body: bytes) -> None:
    """Refuse a multipart body of more than :data:`MAX_PARTS` parts, before parsing it.

    Every delimiter line the parser splits on holds ``--`` and the boundary, so
    counting those bytes (one pass, in C) bounds the parts; the parser on 80,000 tiny
    parts takes tens of seconds of CPU (and the GIL) even off the event loop.
    """
    delimiter = b"--" + _boundary(content_type).encode("ascii")
    parts = body.count(delimiter) - 1
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
    if config.public and not await _state(request).uploads.take(client_key(request)):
        raise RateLimitError("too many replays sent from this client; wait a minute")
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
    del body
    if multipart:
        data = await asyncio.to_thread(_multipart_file, content_type, data)
    if len(data) > MAX_UPLOAD_BYTES:
        raise TooLargeError(
            f"upload of {len(data)} bytes is too large; expected at most {MAX_UPLOAD_BYTES}"
        )
    if not data:
        raise UploadError("replay file is empty; expected a .hlt file")
    return data


async def _stored(store: AsyncStore, game_id: str) -> GameRow:
    row = await store.run(store.store.games.get, game_id)
    if row is None or row.game != GAME.name:
        raise GameNotFoundError(game_id)
    return row


@router.post("/games", status_code=201)
async def upload_game(
    request: Request,
    principal: UserDep,
    config: ConfigDep,
    store: StoreDep,
    decoders: DecodersDep,
) -> UploadOut:
    """Store an uploaded ``.hlt`` replay (raw body, or multipart field ``file``); users."""
    data = await _read_body(request, config)
    played = await decoders.run(played_upload, data, str(uuid.uuid4()))
    played = dataclasses.replace(played, data=dataclasses.replace(played.data, replay=data))
    await store.run(
        store.store.games.save_played,
        played,
        owner_id=principal.id,
        quota=config.quota_of(principal.is_admin),
    )
    return UploadOut(id=played.id, url=GAME.viewer_url(played.id))


@router.post(
    "/decode", response_class=Response, responses={200: {"model": HaliteReplayDocumentOut}}
)
async def decode_game(request: Request, config: ConfigDep, decoders: DecodersDep) -> Response:
    """A ``.hlt`` replay's JSON document (nothing is stored); anyone, at a rate per client."""
    data = await _read_body(request, config)
    text = await decoders.run(decode_document, data)
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


async def _gzipped_document(
    request: Request, store: AsyncStore, decoders: DecoderPool, game_id: str
) -> bytes:
    state = _state(request)
    cache = state.documents
    if game_id in cache:
        cache.move_to_end(game_id)
        return cache[game_id]
    # Each miss decodes a stored replay: anyone may ask, so each client at a rate.
    if request.app.state.config.public and not await state.documents_read.take(client_key(request)):
        raise RateLimitError("too many replays opened by this client; wait a minute")
    data = await store.run(store.store.games.data, game_id)
    packed = await decoders.run(gzipped_document, GAME.export(data))
    cache[game_id] = packed
    while len(cache) > _DOCUMENTS_KEPT:
        cache.popitem(last=False)
    return packed


@router.get(
    "/games/{game_id}/replay",
    response_class=Response,
    responses={200: {"model": HaliteReplayDocumentOut}},
)
async def replay_document(
    game_id: str, request: Request, store: StoreDep, decoders: DecodersDep
) -> Response:
    """The replay's JSON document, as the engine wrote it (gzip when accepted)."""
    await _stored(store, game_id)
    packed = await _gzipped_document(request, store, decoders, game_id)
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(
            packed,
            media_type="application/json",
            headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"},
        )
    return Response(await asyncio.to_thread(gzip.decompress, packed), media_type="application/json")


# -- the pages ---------------------------------------------------------------------------


@page_routes.get("/halite")
def halite_games(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """Stored Halite games (the module reads ``/api/halite/games``) and the upload form."""
    return render_page(
        templates,
        request,
        "halite3/games.html",
        title="Halite",
        max_upload_mib=MAX_UPLOAD_BYTES // (1024 * 1024),
    )


@page_routes.get("/halite/games/{game_id}", response_class=RedirectResponse)
def halite_game(game_id: str, turn: TurnQuery = None) -> RedirectResponse:
    """Where Halite games used to be shown: now the game page, like every game's."""
    query = "" if parse_turn(turn) is None else "?" + urlencode({"turn": turn})
    return RedirectResponse(f"/view/{quote(game_id, safe='')}{query}")


@page_routes.get("/halite/view")
def halite_open_replay(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """The Halite viewer's file picker, under the site's header."""
    return framed_page(
        templates,
        request,
        title="Open a Halite replay",
        frame=game_static_url("halite3", "board.html") + "?replay=1",
        frame_title="Halite board",
        board=True,
    )
