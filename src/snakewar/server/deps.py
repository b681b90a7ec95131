"""Typed dependencies of the routers: config, store, live games, arena, page templates.

``create_app`` puts each on ``app.state`` at start-up; routes take them as
``store: StoreDep`` and so on, and tests can override any of them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Final

import jinja2
from fastapi import Depends, Request
from fastapi.requests import HTTPConnection
from fastapi.templating import Jinja2Templates

from snakewar.referee.uploads import UploadCache
from snakewar.server.arena import ArenaWorker
from snakewar.server.auth import Passwords
from snakewar.server.config import ServerConfig
from snakewar.server.decoding import DecoderPool
from snakewar.server.followers import StoredFollowing
from snakewar.server.limits import RateBook
from snakewar.server.manager import GameManager
from snakewar.server.runs import RunKeeper
from snakewar.server.safety import ClientRate, address_key
from snakewar.server.scheduler import LadderScheduler
from snakewar.server.tournament_scheduler import TournamentScheduler
from snakewar.storage import AsyncStore

__all__ = [
    "RESERVED_STATIC",
    "STATIC_ROOT",
    "STATIC_URL",
    "TEMPLATES_DIR",
    "ArenaDep",
    "ConfigDep",
    "DecodersDep",
    "LimiterDep",
    "ManagerDep",
    "MediaSlotsDep",
    "PasswordsDep",
    "RunsDep",
    "SchedulerDep",
    "StoreDep",
    "StoredFollowingDep",
    "TemplatesDep",
    "TournamentSchedulerDep",
    "UploadsDep",
    "client_key",
    "game_static_url",
    "get_arena",
    "get_config",
    "get_decoders",
    "get_limiter",
    "get_manager",
    "get_rates",
    "get_runs",
    "get_store",
    "get_stored_following",
    "get_templates",
    "get_tournament_scheduler",
    "make_templates",
    "static_url",
]

TEMPLATES_DIR: Final = Path(__file__).resolve().parent / "templates"
"""The pages' Jinja2 templates (shipped in the wheel with the package)."""

STATIC_ROOT: Final = "/static"
"""Where static files are served: the shared ones under ``viewer/``, each game's under its name."""

STATIC_URL: Final = f"{STATIC_ROOT}/viewer"
"""Where the shared static files (the pages' modules and stylesheet, playback) are served."""

RESERVED_STATIC: Final = frozenset({"viewer", "docs"})
"""Folders of :data:`STATIC_ROOT` that are the server's own: no game's assets may take them."""


def static_url(path: str) -> str:
    """The URL of a shared static file (``pages/home.js``, ``viewer.css``)."""
    return f"{STATIC_URL}/{path.lstrip('/')}"


def game_static_url(game: str, path: str) -> str:
    """The URL of a file of the game ``game``'s own static folder (its ``static_assets``)."""
    return f"{STATIC_ROOT}/{game}/{path.lstrip('/')}"


def make_templates(game_templates: Mapping[str, str | Path] | None = None) -> Jinja2Templates:
    """The pages' templates: autoescaped, and an undefined name is an error, not ``""``.

    Args:
        game_templates: each game's template folder (its adapter's ``templates()``) by
            the game's name.  A game's template is named ``<game>/<file>``, so two games
            never shadow each other nor the server's own; it may extend ``base.html``.
    """
    folders = dict(game_templates or {})
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [
                jinja2.FileSystemLoader(TEMPLATES_DIR),
                jinja2.PrefixLoader(
                    {name: jinja2.FileSystemLoader(folder) for name, folder in folders.items()}
                ),
            ]
        ),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["static"] = static_url
    env.globals["game_static"] = game_static_url
    # The games with templates, in the registry's order: the site's header and home page
    # include each one's parts (``<game>/nav.html``...) where it has them.
    env.globals["template_games"] = tuple(folders)
    return Jinja2Templates(env=env)


def get_templates(connection: HTTPConnection) -> Jinja2Templates:
    """The templates every page renders with (the server's and its games', see ``create_app``)."""
    templates: Jinja2Templates = connection.app.state.templates
    return templates


def get_config(request: Request) -> ServerConfig:
    """The server's config."""
    config: ServerConfig = request.app.state.config
    return config


def get_store(request: Request) -> AsyncStore:
    """The store (call it through :meth:`AsyncStore.run`)."""
    store: AsyncStore = request.app.state.store
    return store


def get_manager(request: Request) -> GameManager:
    """The live games."""
    manager: GameManager = request.app.state.manager
    return manager


def get_arena(request: Request) -> ArenaWorker:
    """The ladder and tournament runs."""
    arena: ArenaWorker = request.app.state.arena
    return arena


def get_runs(request: Request) -> RunKeeper:
    """This server's runs in the database it may share: claims, stops, resumes."""
    runs: RunKeeper = request.app.state.runs
    return runs


def get_scheduler(request: Request) -> LadderScheduler:
    """This server's part in scheduling the continuous ladders."""
    scheduler: LadderScheduler = request.app.state.scheduler
    return scheduler


def get_tournament_scheduler(request: Request) -> TournamentScheduler:
    """The tournament scheduler (it also announces tournaments that start)."""
    scheduler: TournamentScheduler = request.app.state.tournament_scheduler
    return scheduler


def get_stored_following(connection: HTTPConnection) -> StoredFollowing:
    """Stored games' encoded pages, their followers' turns and caps (for websockets too)."""
    following: StoredFollowing = connection.app.state.stored_following
    return following


def get_limiter(request: Request) -> ClientRate:
    """The per-client rate limit of game creation (public mode)."""
    limiter: ClientRate = request.app.state.limiter
    return limiter


def get_rates(request: Request) -> RateBook:
    """Makes rate limits counted as the server's others are (shared or in memory)."""
    rates: RateBook | None = getattr(request.app.state, "rates", None)
    return rates if rates is not None else RateBook()


def get_uploads(request: Request) -> UploadCache:
    """Uploaded bots, unpacked for games."""
    uploads: UploadCache = request.app.state.uploads
    return uploads


def get_decoders(request: Request) -> DecoderPool:
    """The worker processes that read uploaded replays (:mod:`snakewar.server.decoding`)."""
    decoders: DecoderPool = request.app.state.decoders
    return decoders


def get_media_slots(request: Request) -> asyncio.Semaphore:
    """The server's slots for drawing games' pictures and videos (``media_workers``)."""
    slots: asyncio.Semaphore = request.app.state.media_slots
    return slots


def get_passwords(request: Request) -> Passwords:
    """The password hasher (argon2, on its own threads)."""
    passwords: Passwords = request.app.state.passwords
    return passwords


def client_key(request: Request) -> str:
    """The key a client's rate limits count under: its user, else its network.

    A logged-in user (or token) is one client wherever it connects from.  An anonymous
    IPv6 client is its /64: one host usually holds a whole /64, so counting single
    addresses would let it make 2**64 clients.
    """
    principal = getattr(request.state, "principal", None)
    if principal is not None and principal.user is not None:
        return f"user:{principal.user.id}"
    return address_key(request.client.host if request.client else "")


ConfigDep = Annotated[ServerConfig, Depends(get_config)]
StoreDep = Annotated[AsyncStore, Depends(get_store)]
ManagerDep = Annotated[GameManager, Depends(get_manager)]
ArenaDep = Annotated[ArenaWorker, Depends(get_arena)]
RunsDep = Annotated[RunKeeper, Depends(get_runs)]
SchedulerDep = Annotated[LadderScheduler, Depends(get_scheduler)]
TournamentSchedulerDep = Annotated[TournamentScheduler, Depends(get_tournament_scheduler)]
LimiterDep = Annotated[ClientRate, Depends(get_limiter)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]
PasswordsDep = Annotated[Passwords, Depends(get_passwords)]
UploadsDep = Annotated[UploadCache, Depends(get_uploads)]
StoredFollowingDep = Annotated[StoredFollowing, Depends(get_stored_following)]
DecodersDep = Annotated[DecoderPool, Depends(get_decoders)]
MediaSlotsDep = Annotated[asyncio.Semaphore, Depends(get_media_slots)]
