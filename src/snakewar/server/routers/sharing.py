"""Sharing and events: saved games, link previews, embeds, TV mode and bulk exports.

API (``router``):

* ``/api/saved``: the games a user saved, with their titles (``PUT`` saves or
  retitles, ``DELETE`` forgets; a user sees and changes only their own).
* ``/api/games/{id}/preview.png``: the image of a game's link preview
  (:mod:`snakewar.server.preview`); the winner only with ``?reveal=1``.
* ``/api/exports``: bulk exports of a ladder's, tournament's or user's games as a
  background job (:mod:`snakewar.server.exports`): ``POST`` starts one (202), ``GET
  /api/exports/{id}`` is its progress (the page polls it), ``.../download`` its zip.

Who may export what: every game of this site is public to read (its page, its replay),
so any signed-in user may export a ladder's or a tournament's games; a user's games
(the games they started) are exported by that user or an admin.  An anonymous visitor
exports nothing (an export costs the server work: it is counted per user).  A job, its
progress and its archive are its maker's and the admins' (anyone else: 404, as if there
were none).  An entrant's address is in the archive only for whoever may see it, as in
``GET /api/games/{id}/replay``.

Pages (``pages``): ``/embed/{id}`` (the game's board alone, for other sites to frame:
the embed code of the share panel), ``/tv`` (live games in turn, full screen, with
their scoreboard; ``?dwell=SECONDS``, ``?ladder=NAME``, ``?tournament=ID``,
``?game=GAME``) and ``/saved`` (a user's saved games and exports).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Annotated, Final, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from snakewar.adapters import games as all_games
from snakewar.adapters import get_game
from snakewar.errors import ConflictError, NotFoundError, ParamsError
from snakewar.server.auth import NotAllowedError, Principal, UserDep
from snakewar.server.deps import ManagerDep, StoreDep, TemplatesDep, game_static_url
from snakewar.server.exports import ExportWorker, archive_name
from snakewar.server.patterns import EXPORT_ID, TITLE
from snakewar.server.preview import RevealQuery, card_png, game_preview, revealed
from snakewar.server.routers.pages import TurnQuery, page_router, parse_turn, render_page
from snakewar.server.schemas import NO_CONTENT, binary_download
from snakewar.storage import GameNotFoundError
from snakewar.storage.models import MAX_ID_LENGTH
from snakewar.storage.sharing import EXPORT_KINDS, ExportJob, SavedGame

__all__ = [
    "DWELL_S",
    "ExportOut",
    "SavedOut",
    "get_exports",
    "pages",
    "router",
]

router = APIRouter(tags=["sharing"])
pages = page_router()

DWELL_S: Final = (20, 3, 600)
"""TV mode's seconds per game: the default, the least and the most."""

GameIdPath = Annotated[str, Path(min_length=1, max_length=MAX_ID_LENGTH)]


def get_exports(request: Request) -> ExportWorker:
    """The server's export worker."""
    worker: ExportWorker = request.app.state.exports
    return worker


ExportsDep = Annotated[ExportWorker, Depends(get_exports)]


# -- saved games ---------------------------------------------------------------------------


class SaveGame(BaseModel):
    """A title for a saved game."""

    model_config = ConfigDict(extra="forbid")

    title: Annotated[str, TITLE.field()]


class SavedOut(BaseModel):
    """A saved game: its id, the saver's title, when, and the game's own listing."""

    game_id: str
    title: str
    saved_at: str
    game: str
    status: str
    turns: int
    entrants: list[str]
    url: str


def _saved_out(saved: SavedGame) -> SavedOut:
    return SavedOut(
        game_id=saved.game_id,
        title=saved.title,
        saved_at=saved.saved_at.isoformat(),
        game=saved.game,
        status=saved.status,
        turns=saved.turns,
        entrants=saved.entrants,
        url=get_game(saved.game).viewer_url(saved.game_id),
    )


def _user_id(principal: Principal) -> int:
    assert principal.user is not None  # UserDep
    return principal.user.id


@router.get("/api/saved")
async def list_saved(
    principal: UserDep,
    store: StoreDep,
    limit: int = Query(100, ge=1, le=500),
    offset: int = Query(0, ge=0, le=2**31),
) -> list[SavedOut]:
    """Your saved games, the last saved first."""
    rows = await store.run(store.store.sharing.saved_games, _user_id(principal), limit, offset)
    return [_saved_out(r) for r in rows]


@router.get("/api/saved/{game_id}")
async def get_saved(game_id: GameIdPath, principal: UserDep, store: StoreDep) -> SavedOut:
    """One of your saved games (404 if you did not save it)."""
    found = await store.run(store.store.sharing.saved, _user_id(principal), game_id)
    if found is None:
        raise NotFoundError(f"game_id: you have not saved game {game_id!r}")
    return _saved_out(found)


@router.put("/api/saved/{game_id}")
async def save_game(
    game_id: GameIdPath, body: SaveGame, principal: UserDep, store: StoreDep
) -> SavedOut:
    """Save a stored game under a title of yours (again: a new title)."""
    if await store.run(store.store.games.get, game_id) is None:
        raise GameNotFoundError(game_id)
    saved = await store.run(store.store.sharing.save_game, _user_id(principal), game_id, body.title)
    return _saved_out(saved)


@router.delete("/api/saved/{game_id}", status_code=204, responses=NO_CONTENT)
async def unsave_game(game_id: GameIdPath, principal: UserDep, store: StoreDep) -> Response:
    """Forget a saved game (the game itself stays)."""
    if not await store.run(store.store.sharing.unsave_game, _user_id(principal), game_id):
        raise NotFoundError(f"game_id: you have not saved game {game_id!r}")
    return Response(status_code=204)


# -- previews and embeds ---------------------------------------------------------------------


@router.get(
    "/api/games/{game_id}/preview.png",
    response_class=Response,
    responses={200: binary_download("The link preview's image.", "image/png")},
)
async def preview_image(
    game_id: GameIdPath, store: StoreDep, manager: ManagerDep, reveal: RevealQuery = None
) -> Response:
    """A game's link preview image: a band per entrant in its colour.

    The winner's band stands out only with ``?reveal=1``: a preview never spoils a
    game unless its sharer asked.
    """
    preview = await game_preview(store, manager, game_id, reveal=revealed(reveal))
    # Drawn on a worker thread: the store's threads are the database's.
    png = await asyncio.to_thread(card_png, preview)
    return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=60"})


@pages.get("/embed/{game_id}", response_model=None)
async def embed(
    game_id: GameIdPath,
    request: Request,
    store: StoreDep,
    manager: ManagerDep,
    turn: TurnQuery = None,
) -> RedirectResponse:
    """A game's board alone, for another site to frame (the share panel's embed code).

    It is the game's own viewer with ``embed=1``, the one document of the site other
    sites may frame (:mod:`snakewar.server.headers`): it only plays the game back, it
    changes nothing.
    """
    live = manager.games.get(game_id)
    if live is not None:
        game = live.spec.game
    else:
        row = await store.run(store.store.games.get, game_id)
        if row is None:
            raise GameNotFoundError(game_id)
        game = row.game
    page = get_game(game).viewer_page(
        game_id, server=str(request.base_url).rstrip("/"), turn=parse_turn(turn)
    )
    board = page.board if page.board.startswith("/") else game_static_url(game, page.board)
    joiner = "&" if "?" in board else "?"
    return RedirectResponse(f"{board}{joiner}embed=1", status_code=307)


# -- TV mode and the saved games page ----------------------------------------------------------


@pages.get("/tv")
def tv(
    request: Request,
    templates: TemplatesDep,
    dwell: Annotated[str | None, Query(max_length=8)] = None,
    ladder: Annotated[str | None, Query(max_length=MAX_ID_LENGTH)] = None,
    tournament: Annotated[str | None, Query(max_length=MAX_ID_LENGTH)] = None,
    game: Annotated[str | None, Query(max_length=32)] = None,
) -> HTMLResponse:
    """TV mode: the live games one after the other, full screen, with their scoreboard.

    ``dwell``: seconds per game (:data:`DWELL_S`; anything else: the default);
    ``ladder``, ``tournament``, ``game``: only the live games of that ladder, tournament
    or game.
    """
    default, least, most = DWELL_S
    seconds = int(dwell) if dwell is not None and dwell.isascii() and dwell.isdigit() else default
    seconds = min(max(seconds, least), most)
    names = {g.name: g.catalogue().title for g in all_games()}
    return render_page(
        templates,
        request,
        "tv.html",
        title="TV",
        dwell=seconds,
        dwell_range=(least, most),
        ladder=ladder or "",
        tournament=tournament or "",
        game=game if game in names else "",
        game_names=sorted(names.items()),
    )


@pages.get("/saved", response_model=None)
def saved_page(request: Request, templates: TemplatesDep) -> HTMLResponse | RedirectResponse:
    """Your saved games and your exports (a visitor is sent to log in)."""
    principal: Principal = request.state.principal
    if principal.user is None:
        return RedirectResponse("/login", status_code=303)
    return render_page(
        templates, request, "saved.html", title="Saved games and exports", kinds=EXPORT_KINDS
    )


# -- bulk exports ----------------------------------------------------------------------------


class CreateExport(BaseModel):
    """What to export: a ladder's, a tournament's or a user's games."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["ladder", "tournament", "user"]
    target: str = Field(
        min_length=1,
        max_length=MAX_ID_LENGTH,
        description="The ladder's name, the tournament's id or the user's name.",
    )


class ExportOut(BaseModel):
    """An export job: what it exports, its state and progress, and where to download it."""

    id: str
    kind: str
    target: str
    state: Literal["queued", "running", "done", "failed"]
    total: int
    done: int
    bytes: int
    error: str
    created_at: str
    updated_at: str
    expires_at: str
    download: str | None
    filename: str


def _export_out(job: ExportJob) -> ExportOut:
    state: Literal["queued", "running", "done", "failed"] = job.state  # type: ignore[assignment]
    return ExportOut(
        id=job.id,
        kind=job.kind,
        target=job.target,
        state=state,
        total=job.total,
        done=job.done,
        bytes=job.size,
        error=job.error,
        created_at=job.created_at.isoformat(),
        updated_at=job.updated_at.isoformat(),
        expires_at=job.expires_at.isoformat(),
        download=f"/api/exports/{job.id}/download" if job.state == "done" else None,
        filename=archive_name(job.kind, job.target),
    )


@router.post("/api/exports", status_code=202)
async def create_export(body: CreateExport, principal: UserDep, exports: ExportsDep) -> ExportOut:
    """Start exporting a ladder's, tournament's or user's games (a background job).

    The archive holds each game's replay file and ``results.csv`` (one row per game and
    seat): the newest games, up to the server's cap.  A user's games are exported by that
    user or an admin.  404 naming ``target`` if there is no such ladder, tournament or
    user; 409 while you have an export in progress already.
    """
    user = principal.user
    assert user is not None
    if body.kind == "user" and body.target != user.name and not principal.is_admin:
        raise NotAllowedError(
            f"target: the games of user {body.target!r} are exported by that user or an admin"
        )
    try:
        job = await exports.submit(user, body.kind, body.target)
    except NotFoundError as exc:
        raise ParamsError("target", str(exc).removeprefix("target: ")) from exc
    return _export_out(job)


async def _own_job(principal: Principal, store: StoreDep, job_id: str) -> ExportJob:
    job = await store.run(store.store.sharing.job, job_id)
    if job is None or not principal.can_change(job.owner_id):
        raise NotFoundError(f"no export {job_id!r} of yours")
    lease = job.lease_until
    if not job.finished and lease is not None and lease < dt.datetime.now(dt.UTC):
        # Its server stopped: say so now rather than at the next sweep.
        await store.run(store.store.sharing.fail_expired)
        job = await store.run(store.store.sharing.job, job_id) or job
    return job


JobIdPath = Annotated[str, Path(**EXPORT_ID.limits())]


@router.get("/api/exports")
async def list_exports(principal: UserDep, store: StoreDep) -> list[ExportOut]:
    """Your exports, newest first (the last 50)."""
    jobs = await store.run(store.store.sharing.jobs, _user_id(principal))
    return [_export_out(job) for job in jobs]


@router.get("/api/exports/{job_id}")
async def get_export(job_id: JobIdPath, principal: UserDep, store: StoreDep) -> ExportOut:
    """An export's state and progress (``done`` of ``total`` games, ``bytes`` so far)."""
    return _export_out(await _own_job(principal, store, job_id))


@router.get(
    "/api/exports/{job_id}/download",
    response_class=Response,
    responses={200: binary_download("The export's zip archive.", "application/zip")},
)
async def download_export(job_id: JobIdPath, principal: UserDep, store: StoreDep) -> Response:
    """A finished export's zip: ``replays/`` and ``results.csv`` (409 until it is done)."""
    job = await _own_job(principal, store, job_id)
    if job.state != "done":
        raise ConflictError(f"export {job_id!r} is {job.state}, not done")
    data = await store.run(store.store.sharing.archive, job_id)
    if data is None:
        raise NotFoundError(f"export {job_id!r} has no archive any more")
    return Response(
        data,
        media_type="application/zip",
        headers={
            "Content-Disposition": f'attachment; filename="{archive_name(job.kind, job.target)}"'
        },
    )
