"""Typed dependencies of the routers: config, store, live games, arena, page templates.

``create_app`` puts each on ``app.state`` at start-up; routes take them as
``store: StoreDep`` and so on, and tests can override any of them.
"""

from __future__ import annotations

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
from snakewar.server.manager import GameManager
from snakewar.server.runs import RunKeeper
from snakewar.server.safety import RateLimiter, address_key
from snakewar.storage import AsyncStore

__all__ = [
    "STATIC_URL",
    "TEMPLATES_DIR",
    "ArenaDep",
    "ConfigDep",
    "DecodersDep",
    "LimiterDep",
    "ManagerDep",
    "PasswordsDep",
    "RunsDep",
    "StoreDep",
    "StoredFollowingDep",
    "TemplatesDep",
    "UploadsDep",
    "client_key",
    "get_arena",
    "get_config",
    "get_decoders",
    "get_limiter",
    "get_manager",
    "get_runs",
    "get_store",
    "get_stored_following",
    "get_templates",
    "make_templates",
    "static_url",
]

TEMPLATES_DIR: Final = Path(__file__).resolve().parent / "templates"
"""The pages' Jinja2 templates (shipped in the wheel with the package)."""

STATIC_URL: Final = "/static/viewer"
"""Where the viewer's static files (and the pages' modules and stylesheet) are served."""


def static_url(path: str) -> str:
    """The URL of a file in the viewer's static folder (``pages/home.js``, ``viewer.css``)."""
    return f"{STATIC_URL}/{path.lstrip('/')}"


def make_templates() -> Jinja2Templates:
    """The pages' templates: autoescaped, and an undefined name is an error, not ``""``."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["static"] = static_url
    return Jinja2Templates(env=env)


_TEMPLATES: Final = make_templates()


def get_templates() -> Jinja2Templates:
    """The templates every page renders with."""
    return _TEMPLATES


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


def get_stored_following(connection: HTTPConnection) -> StoredFollowing:
    """Stored games' encoded pages, their followers' turns and caps (for websockets too)."""
    following: StoredFollowing = connection.app.state.stored_following
    return following


def get_limiter(request: Request) -> RateLimiter:
    """The per-client rate limit of game creation (public mode)."""
    limiter: RateLimiter = request.app.state.limiter
    return limiter


def get_uploads(request: Request) -> UploadCache:
    """Uploaded bots, unpacked for games."""
    uploads: UploadCache = request.app.state.uploads
    return uploads


def get_decoders(request: Request) -> DecoderPool:
    """The worker processes that read uploaded replays (:mod:`snakewar.server.decoding`)."""
    decoders: DecoderPool = request.app.state.decoders
    return decoders


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
LimiterDep = Annotated[RateLimiter, Depends(get_limiter)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]
PasswordsDep = Annotated[Passwords, Depends(get_passwords)]
UploadsDep = Annotated[UploadCache, Depends(get_uploads)]
StoredFollowingDep = Annotated[StoredFollowing, Depends(get_stored_following)]
DecodersDep = Annotated[DecoderPool, Depends(get_decoders)]
