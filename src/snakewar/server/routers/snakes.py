"""``/api/snakes``: registered snakes, owned by users (register, list, edit, pause, delete).

A registered snake is what games, ladders and tournaments name as ``@owner/name`` on a
public server.  Its URL is checked by the game and, on a public server, against the
address policy when it is registered or changed (and again by the referee's transport on
every connection).  Its owner may edit, pause or delete it; an admin may remove any.

An uploaded bot is built after it is uploaded, in a sandbox (:mod:`snakewar.referee.builds`;
its language told as the official competition site did, :mod:`snakewar.referee.languages`),
in the background (:mod:`snakewar.server.builds`): the upload answers at once (201, the
snake is made) with ``build_status`` ``building``, and the snake then says whether it
built (``ready``, ``failed``) and, to its owner, why not (``build_error``).
``GET /api/snakes/{id}/build`` gives its owner (and admins) the build's log, and
``POST`` builds it again (202: the build is accepted, and runs in the background; 409
while it is being built).  Clients poll either until it is no longer ``building``.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi import Path as PathParam

from snakewar.adapters import default_program_game
from snakewar.errors import EntrantError, OverLimitError
from snakewar.referee.languages import Language, detect_language, language_named
from snakewar.referee.sandbox import SandboxError, sandbox_available
from snakewar.referee.uploads import UploadedBotError, unpack_bot_archive
from snakewar.server.auth import (
    NotAllowedError,
    Principal,
    PrincipalDep,
    UserDep,
    require_owner,
)
from snakewar.server.builds import BotBuilder
from snakewar.server.config import ServerConfig
from snakewar.server.deps import ConfigDep, StoreDep, client_key, get_rates
from snakewar.server.matches import adapter_for
from snakewar.server.patterns import SNAKE_NAME
from snakewar.server.safety import ClientRate, RateLimitError, check_public_url
from snakewar.server.schemas import (
    NO_CONTENT,
    BuildOut,
    RegisterSnake,
    SnakeOut,
    UpdateSnake,
)
from snakewar.storage import AsyncStore, SnakeNotFoundError, StoredSnake

__all__ = ["router", "snake_out"]

router = APIRouter(prefix="/api/snakes", tags=["snakes"])

SnakeId = PathParam(ge=1, le=2**31 - 1)


def snake_out(snake: StoredSnake, principal: Principal) -> SnakeOut:
    """A snake as ``principal`` may see it (the URL for its owner and admins only)."""
    mine = principal.can_change(snake.owner_id)
    return SnakeOut(
        id=snake.id,
        ref=snake.ref,
        owner=snake.owner,
        name=snake.name,
        game=snake.game,
        kind=snake.kind,
        url=snake.url if mine else None,
        language=snake.language,
        build_status=snake.build_status,
        build_error=snake.build_error if mine else None,
        visibility=snake.visibility,
        paused=snake.paused,
        created_at=snake.created_at.isoformat(),
        updated_at=snake.updated_at.isoformat(),
        tags=list(snake.tags),
    )


async def _checked_url(config: ServerConfig, game: str, text: str) -> tuple[str, str]:
    """The game's adapter name and the snake's source for ``text``, which must be a bot URL."""
    adapter = adapter_for(game)
    entrant = adapter.entrant(text, None)
    reach = adapter.reach(entrant)
    if reach.kind != "remote" or reach.url is None:
        raise EntrantError(f"url: {text[:80]!r} is no bot URL of {adapter.name}")
    if config.public:
        await check_public_url(reach.url, config.allowed_networks)
    return adapter.name, entrant.source


def _upload_limiter(request: Request) -> ClientRate:
    """Bot uploads per client (public mode): each is unpacked and checked, off the loop."""
    limiter: ClientRate | None = getattr(request.app.state, "bot_upload_limiter", None)
    if limiter is None:
        limiter = get_rates(request).rate("bot-uploads", per_minute=10.0, burst=5)
        request.app.state.bot_upload_limiter = limiter
    return limiter


async def _visible(store: AsyncStore, principal: Principal, snake_id: int) -> StoredSnake:
    snake = await store.run(store.store.snakes.get, snake_id)
    if snake.visibility != "public" and not principal.can_change(snake.owner_id):
        raise SnakeNotFoundError(f"no snake with id {snake_id}")
    return snake


@router.post("", status_code=201)
async def register_snake(
    body: RegisterSnake, principal: UserDep, store: StoreDep, config: ConfigDep
) -> SnakeOut:
    """Register one of your snakes (an HTTP bot of a game) under a name."""
    assert principal.user is not None
    owned = await store.run(store.store.snakes.count_owned, principal.user.id)
    if owned >= config.snakes_per_user and not principal.is_admin:
        raise OverLimitError(f"you have {owned} snakes, the most this server allows")
    game, source = await _checked_url(config, body.game or adapter_for(None).name, body.url)
    snake = await store.run(
        store.store.snakes.register,
        principal.user.id,
        body.name,
        game,
        "url",
        url=source,
        visibility=body.visibility,
        tags=body.tags,
    )
    return snake_out(snake, principal)


@router.post(
    "/upload",
    status_code=201,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/zip": {"schema": {"type": "string", "format": "binary"}},
                "application/gzip": {"schema": {"type": "string", "format": "binary"}},
            },
        }
    },
)
async def upload_snake(
    request: Request,
    principal: UserDep,
    store: StoreDep,
    config: ConfigDep,
    name: str = Query(**SNAKE_NAME.limits()),
    language: str | None = Query(
        None,
        min_length=1,
        max_length=16,
        description="The language's id (cpp, java, go, rust, javascript, python3...; "
        "default: told from the files, as the official competition site did).",
    ),
    game: str | None = Query(
        None,
        max_length=32,
        description="The game (default: the first registered game whose bots are programs).",
    ),
    visibility: Literal["public", "private"] = Query("public"),
) -> SnakeOut:
    """Upload a program bot: the body is a .zip or .tar.gz of its files (``MyBot.py``...).

    The answer comes at once, ``build_status`` ``building``: the bot is then built in
    the background, in a sandbox (no network, its own files only, limits), and always
    runs in one; a server that cannot make one refuses the upload.  Poll the snake until
    its ``build_status`` is ``ready`` or ``failed``; a bot that does not build is kept
    (``failed``): its owner reads why in its build log.
    """
    assert principal.user is not None
    if config.public and not await _upload_limiter(request).take(client_key(request)):
        raise RateLimitError("too many bots uploaded by this client; wait a minute")
    adapter = adapter_for(game) if game else default_program_game()
    if not adapter.catalogue().programs:
        raise EntrantError(f"game: {adapter.name} bots are not programs; register a URL")
    owned = await store.run(store.store.snakes.count_owned, principal.user.id)
    if owned >= config.snakes_per_user and not principal.is_admin:
        raise OverLimitError(f"you have {owned} snakes, the most this server allows")
    # Bots are built here, in a sandbox, even when a Ray cluster's nodes run them.
    problem = await asyncio.to_thread(sandbox_available)
    if problem is not None:
        raise SandboxError(f"uploaded bots run in a sandbox and this server has none: {problem}")
    data = await request.body()  # capped by the body-limit middleware (MAX_ARCHIVE_BYTES)
    found = await asyncio.to_thread(_check_upload, data, language)
    snake = await store.run(
        store.store.snakes.register,
        principal.user.id,
        name,
        adapter.name,
        "upload",
        language=found.name,
        archive=data,
        visibility=visibility,
        quota=config.quota_of(principal.is_admin),
        build_status="building",
    )
    _builder(request).submit(snake, data, config.quota_of(principal.is_admin))
    return snake_out(snake, principal)


def _check_upload(data: bytes, language: str | None) -> Language:
    """Unpack ``data`` once and tell its language, to refuse now what could never run."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "bot"
        unpack_bot_archive(data, folder)
        if language is None:
            return detect_language(folder)
        found = language_named(language)
        if not (folder / found.main).is_file():
            raise UploadedBotError(f"a {found.label} bot needs {found.main} at the archive's top")
        return found


def _builder(request: Request) -> BotBuilder:
    """The server's builds (:mod:`snakewar.server.builds`)."""
    builder: BotBuilder = request.app.state.builder
    return builder


@router.get("/{snake_id}/build")
async def get_build(principal: PrincipalDep, store: StoreDep, snake_id: int = SnakeId) -> BuildOut:
    """Your uploaded bot's build: its status, why it failed, and its log (owners only)."""
    snake = await _visible(store, principal, snake_id)
    if not principal.can_change(snake.owner_id):
        # A log shows the bot's code in its errors: its owner's to read, and admins'.
        raise NotAllowedError(f"the build log of snake {snake.ref} is shown to its owner only")
    if snake.kind != "upload":
        raise EntrantError(f"snake {snake.ref} is not an uploaded bot; it has no build")
    log = await store.run(store.store.snakes.build_log, snake_id)
    return _build_out(snake, log)


@router.post(
    "/{snake_id}/build",
    status_code=202,
    responses={409: {"description": "The bot is being built already."}},
)
async def rebuild(
    request: Request,
    principal: UserDep,
    store: StoreDep,
    config: ConfigDep,
    snake_id: int = SnakeId,
) -> BuildOut:
    """Build your uploaded bot again (after a build that ran out of time, say).

    The answer comes at once, ``status`` ``building``; poll ``GET`` until it is not.
    """
    snake = await _visible(store, principal, snake_id)
    require_owner(principal, snake.owner_id, f"snake {snake.ref}")
    if snake.kind != "upload":
        raise EntrantError(f"snake {snake.ref} is not an uploaded bot; it has no build")
    if config.public and not await _upload_limiter(request).take(client_key(request)):
        raise RateLimitError("too many bots built for this client; wait a minute")
    began = await _builder(request).rebuild(snake, config.quota_of(principal.is_admin))
    return _build_out(began, "")


def _build_out(snake: StoredSnake, log: str) -> BuildOut:
    language = language_named(snake.language) if snake.language else None
    return BuildOut(
        snake=snake.ref,
        language=snake.language,
        language_label=language.label if language else None,
        status=snake.build_status,
        error=snake.build_error,
        log=log,
    )


@router.get("")
async def list_snakes(
    principal: PrincipalDep,
    store: StoreDep,
    game: str | None = Query(None, max_length=32),
    mine: bool = Query(False, description="Only the requester's own snakes."),
) -> list[SnakeOut]:
    """Public snakes and your own (every snake for an admin), newest first."""
    snakes = await store.run(
        store.store.snakes.visible, principal.id, admin=principal.is_admin and not mine, game=game
    )
    if mine:
        snakes = [s for s in snakes if s.owner_id == principal.id]
    return [snake_out(s, principal) for s in snakes]


@router.get("/{snake_id}")
async def get_snake(principal: PrincipalDep, store: StoreDep, snake_id: int = SnakeId) -> SnakeOut:
    """One snake."""
    return snake_out(await _visible(store, principal, snake_id), principal)


@router.patch("/{snake_id}")
async def update_snake(
    body: UpdateSnake,
    principal: UserDep,
    store: StoreDep,
    config: ConfigDep,
    snake_id: int = SnakeId,
) -> SnakeOut:
    """Change your snake's URL, visibility or tags, or pause it (its ladder entries follow)."""
    snake = await _visible(store, principal, snake_id)
    require_owner(principal, snake.owner_id, f"snake {snake.ref}")
    url = None
    if body.url is not None:
        if snake.kind != "url":
            raise EntrantError(f"url: snake {snake.ref} is a program bot, it has no URL")
        url = (await _checked_url(config, snake.game, body.url))[1]
    updated = await store.run(
        store.store.snakes.update,
        snake_id,
        url=url,
        visibility=body.visibility,
        paused=body.paused,
        tags=body.tags,
    )
    # Its entries are named after it (@owner/name): a free name never matches one.
    entry = snake.ref
    note = "paused by its owner" if body.paused else "resumed by its owner"
    await store.run(
        store.store.ladders.update_entries, entry, source=url, paused=body.paused, note=note
    )
    return snake_out(updated, principal)


@router.delete("/{snake_id}", status_code=204, responses=NO_CONTENT)
async def delete_snake(principal: UserDep, store: StoreDep, snake_id: int = SnakeId) -> Response:
    """Delete your snake (an admin: anyone's); it leaves every ladder it was on."""
    snake = await _visible(store, principal, snake_id)
    require_owner(principal, snake.owner_id, f"snake {snake.ref}")
    entry = snake.ref
    for ladder in await store.run(store.store.ladders.entries_named, entry):
        await store.run(store.store.ladders.remove_entry, ladder, entry)
    await store.run(store.store.snakes.delete, snake_id)
    return Response(status_code=204)
