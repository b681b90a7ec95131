"""Halite III games on the server: upload, storage and listing (the REST API).

Routes (added by :func:`add_halite_routes`):

* ``POST /api/halite/games``: upload a ``.hlt`` (the raw request body, or a
  ``multipart/form-data`` field named ``file``); it is size-capped, checked and
  stored, and the answer is ``{"id", "url"}``.  A bad file is a 400 (413 when too
  large) with a one-line ``detail``.
* ``GET /api/halite/games`` (list), ``GET /api/halite/games/{id}`` (summary),
  ``GET /api/halite/games/{id}/replay`` (the replay's JSON document, gzipped for
  clients that accept it) and ``GET /api/halite/games/{id}/replay.hlt`` (the
  stored bytes, as uploaded).
* ``POST /api/halite/decode``: a ``.hlt`` in, its JSON document out, nothing
  stored (the viewer's "open a local file" page uses it: browsers cannot
  decompress zstd).

The pages (``/halite``, ``/halite/games/{id}``, ``/halite/view`` and the viewer
itself, ``/halite/board``) are in :mod:`snakewar.server.routers.pages`.

A replay is the official engine's file: one zstd-compressed JSON document,
``REPLAY_FILE_VERSION`` 3 (see the Halite III spec, section 6).  The browser gets
the document as it is and draws it (``viewer/static/halite.js``); the server only
checks it (:func:`snakewar.replay.hlt.read_hlt`) and reads the summary for listings.
To store a game played here (a ladder game, say) call :func:`save_hlt` with the
``.hlt`` bytes.
"""

from __future__ import annotations

import gzip
import json
from collections import OrderedDict
from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, Final

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from snakewar.errors import SnakewarError
from snakewar.replay.hlt import HltReplay, HltReplayError, read_hlt
from snakewar.server.safety import RateLimiter
from snakewar.server.store import MAX_HALITE_REPLAY_BYTES

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "MAX_UPLOAD_BYTES",
    "HaliteReplayFileError",
    "HaliteSummary",
    "add_halite_routes",
    "decode_hlt",
    "replay_summary",
    "save_hlt",
]

MAX_UPLOAD_BYTES: Final = MAX_HALITE_REPLAY_BYTES
"""The largest ``.hlt`` (compressed) the server accepts: 32 MiB."""

MAX_DOCUMENT_BYTES: Final = 512 * 1024 * 1024
"""The largest decompressed replay document read (a 64x64, 4-player game is ~2 MB)."""


class HaliteReplayFileError(SnakewarError, ValueError):
    """A ``.hlt`` file that cannot be read or stored; ``status`` is the HTTP status to answer."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class HaliteSummary:
    """What a listing shows of a game, read from its replay document (lists in player id order)."""

    seed: int
    width: int
    height: int
    players: list[str]
    ranks: list[int]
    scores: list[int]
    turns: int


# -- reading a replay ---------------------------------------------------------------------


def decode_hlt(
    data: bytes, *, max_bytes: int = MAX_UPLOAD_BYTES, max_document: int = MAX_DOCUMENT_BYTES
) -> HltReplay:
    """Read and check a ``.hlt`` file with :func:`snakewar.replay.hlt.read_hlt`.

    Args:
        data: the file's bytes (zstd-compressed JSON, or the plain JSON the engine
            writes with ``--no-compression``).
        max_bytes: the largest file accepted.
        max_document: the largest decompressed document accepted.

    Raises:
        HaliteReplayFileError: naming what is wrong, in one line (status 413 for a
            file or document over its cap, 400 otherwise).
    """
    if len(data) > max_bytes:
        raise HaliteReplayFileError(
            f"replay file of {len(data)} bytes is too large; expected at most {max_bytes}", 413
        )
    if not data:
        raise HaliteReplayFileError("replay file is empty; expected a .hlt file")
    try:
        replay = read_hlt(data, max_file_bytes=max_bytes, max_json_bytes=max_document)
    except HltReplayError as exc:
        message = (str(exc).splitlines() or ["not a readable replay"])[0]
        raise HaliteReplayFileError(message, 413 if "-byte limit" in message else 400) from None
    for i, stats in enumerate(replay.statistics):
        score = stats.get("final_production")
        if not isinstance(score, int) or isinstance(score, bool):
            raise HaliteReplayFileError(
                f"replay: game_statistics.player_statistics[{i}].final_production is "
                f"{score!r}; expected an integer (the player's score)"
            )
    return replay


def replay_summary(replay: HltReplay) -> HaliteSummary:
    """The listing summary of a replay read by :func:`decode_hlt`.

    ``scores`` are the official scores (``final_production``: 0 for a player that
    was killed or ran out), ``turns`` the number of turns played.
    """
    return HaliteSummary(
        seed=replay.seed,
        width=replay.width,
        height=replay.height,
        players=[p.name for p in replay.players],
        ranks=list(replay.ranks),
        scores=[int(s["final_production"]) for s in replay.statistics],
        turns=replay.turns_played,
    )


def save_hlt(
    store: Any,
    data: bytes,
    *,
    source: str = "upload",
    game_id: str | None = None,
    max_bytes: int = MAX_UPLOAD_BYTES,
) -> str:
    """Check a ``.hlt`` file and store it with its summary; return the stored game's id.

    This is what a ladder or a CLI command calls to make a finished game show on
    ``/halite`` (its viewer is ``/halite/games/{id}``).

    Args:
        store: a :class:`~snakewar.server.store.Store`.
        data: the ``.hlt`` bytes (for example what the replay package's writer made).
        source: where the game comes from: ``"upload"``, ``"ladder:NAME"``, ...
        game_id: the id to store it under (default: a new UUID).
        max_bytes: the largest file accepted.

    Raises:
        HaliteReplayFileError: if the file is not a readable Halite replay.
        StoreError: if the store refuses it (e.g. the id is taken).
    """
    summary = replay_summary(decode_hlt(data, max_bytes=max_bytes))
    result: str = store.save_halite_game(
        data,
        source=source,
        seed=summary.seed,
        width=summary.width,
        height=summary.height,
        players=summary.players,
        ranks=summary.ranks,
        scores=summary.scores,
        turns=summary.turns,
        game_id=game_id,
    )
    return result


def _document_text(data: bytes, max_bytes: int) -> bytes:
    """The replay's JSON document as compact UTF-8 text (what the viewer downloads)."""
    document = decode_hlt(data, max_bytes=max_bytes).document
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


# -- the routes ---------------------------------------------------------------------------


def _summary_json(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "created_at": row.created_at.isoformat(),
        "source": row.source,
        "seed": str(row.seed),
        "width": row.width,
        "height": row.height,
        "num_players": row.num_players,
        "players": row.players,
        "ranks": row.ranks,
        "scores": row.scores,
        "winner": row.winner,
        "turns": row.turns,
        "replay_size": row.replay_size,
        "url": f"/halite/games/{row.id}",
        "replay": f"/api/halite/games/{row.id}/replay",
    }


def _multipart_file(content_type: str, body: bytes) -> bytes:
    """The ``file`` field (or the only field) of a ``multipart/form-data`` body."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode("latin-1")
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    parts = [p for p in message.iter_parts() if not p.is_multipart()]
    chosen = [p for p in parts if p.get_param("name", header="content-disposition") == "file"]
    if not chosen and len(parts) == 1:
        chosen = parts
    if not chosen:
        raise HaliteReplayFileError("multipart upload has no field named 'file'; expected one")
    payload = chosen[0].get_payload(decode=True)
    return payload if isinstance(payload, bytes) else b""


async def _read_body(request: Request, max_bytes: int) -> bytes:
    """The request body, refused (413) as soon as it passes ``max_bytes`` (plus form overhead)."""
    multipart = request.headers.get("content-type", "").startswith("multipart/form-data")
    limit = max_bytes + (64 * 1024 if multipart else 0)
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise HaliteReplayFileError(
            f"upload of {declared} bytes is too large; expected at most {max_bytes}", 413
        )
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HaliteReplayFileError(
                f"upload is larger than {max_bytes} bytes; expected at most {max_bytes}", 413
            )
    if multipart:
        return _multipart_file(request.headers["content-type"], bytes(body))
    return bytes(body)


def add_halite_routes(
    app: FastAPI,
    state: dict[str, Any],
    *,
    max_upload_bytes: int = MAX_UPLOAD_BYTES,
    uploads_per_minute: float = 10.0,
) -> None:
    """Add the Halite API to ``app``.

    Args:
        app: the application.
        state: the server's shared state: ``state["store"]`` (a store, or ``None``
            when the server runs without a database) and ``state["public"]``.
        max_upload_bytes: the largest ``.hlt`` accepted (uploads and decodes).
        uploads_per_minute: per client, in public mode (bursts of 5).
    """
    limiter = RateLimiter(per_minute=uploads_per_minute, burst=5)
    # Recently served documents, gzipped: a viewer reload must not decompress again.
    cache: OrderedDict[str, bytes] = OrderedDict()

    def store() -> Any:
        current = state.get("store")
        if current is None:
            raise HTTPException(503, "Halite games need a database (this server runs without one)")
        return current

    def stored(game_id: str) -> Any:
        row = store().get_halite_game(game_id) if 0 < len(game_id) <= 100 else None
        if row is None:
            raise HTTPException(404, f"halite game {game_id!r} not found")
        return row

    def check_rate(request: Request) -> None:
        if state.get("public"):
            client = request.client.host if request.client else "unknown"
            if not limiter.allow(client):
                raise HTTPException(
                    429, "too many replays uploaded from this address; wait a minute"
                )

    async def upload_body(request: Request) -> bytes:
        check_rate(request)
        try:
            return await _read_body(request, max_upload_bytes)
        except HaliteReplayFileError as exc:
            raise HTTPException(exc.status, str(exc)) from None

    @app.post("/api/halite/games", status_code=201, tags=["halite"])
    async def upload_game(request: Request) -> dict[str, Any]:
        """Store an uploaded ``.hlt`` replay (raw body, or multipart field ``file``)."""
        data = await upload_body(request)
        target = store()
        try:
            game_id = await run_in_threadpool(
                save_hlt, target, data, source="upload", max_bytes=max_upload_bytes
            )
        except HaliteReplayFileError as exc:
            raise HTTPException(exc.status, str(exc)) from None
        return {"id": game_id, "url": f"/halite/games/{game_id}"}

    @app.post("/api/halite/decode", tags=["halite"])
    async def decode_game(request: Request) -> Response:
        """A ``.hlt`` replay's JSON document (nothing is stored)."""
        data = await upload_body(request)
        try:
            text = await run_in_threadpool(_document_text, data, max_upload_bytes)
        except HaliteReplayFileError as exc:
            raise HTTPException(exc.status, str(exc)) from None
        return Response(text, media_type="application/json")

    @app.get("/api/halite/games", tags=["halite"])
    async def list_games(
        limit: int = Query(50, ge=1, le=500), offset: int = Query(0, ge=0)
    ) -> list[dict[str, Any]]:
        """Stored Halite games, newest first."""
        rows = await run_in_threadpool(store().list_halite_games, limit, offset)
        return [_summary_json(row) for row in rows]

    @app.get("/api/halite/games/{game_id}", tags=["halite"])
    async def get_game(game_id: str) -> dict[str, Any]:
        """One stored game's summary."""
        return _summary_json(await run_in_threadpool(stored, game_id))

    @app.get("/api/halite/games/{game_id}/replay.hlt", tags=["halite"])
    async def download_game(game_id: str) -> Response:
        """The stored ``.hlt`` file."""
        stored(game_id)
        data = await run_in_threadpool(store().halite_replay_bytes, game_id)
        return Response(
            data,
            media_type="application/octet-stream",
            headers={"Content-Disposition": f'attachment; filename="{game_id}.hlt"'},
        )

    def gzipped_document(game_id: str) -> bytes:
        if game_id in cache:
            cache.move_to_end(game_id)
            return cache[game_id]
        text = _document_text(store().halite_replay_bytes(game_id), MAX_HALITE_REPLAY_BYTES)
        packed = gzip.compress(text, compresslevel=5, mtime=0)
        cache[game_id] = packed
        while len(cache) > 8:
            cache.popitem(last=False)
        return packed

    @app.get("/api/halite/games/{game_id}/replay", tags=["halite"])
    async def replay_document(game_id: str, request: Request) -> Response:
        """The replay's JSON document, as the engine wrote it (gzip when accepted)."""
        stored(game_id)
        packed = await run_in_threadpool(gzipped_document, game_id)
        if "gzip" in request.headers.get("accept-encoding", ""):
            return Response(
                packed,
                media_type="application/json",
                headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"},
            )
        return Response(gzip.decompress(packed), media_type="application/json")
