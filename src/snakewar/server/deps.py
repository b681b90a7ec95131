"""The routers' typed dependencies: the page templates, the store, the game manager.

What a request needs from the running server lives on ``request.app.state`` (set by
``create_app`` and its lifespan); these functions read it, so a route says what it
needs in its signature (``store: StoreDep``) and tests can override any of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Final

import jinja2
from fastapi import Depends, HTTPException, Request
from fastapi.templating import Jinja2Templates

from snakewar.server.manager import GameManager
from snakewar.server.store import Store

__all__ = [
    "STATIC_URL",
    "TEMPLATES_DIR",
    "ManagerDep",
    "PublicDep",
    "RequiredStoreDep",
    "StoreDep",
    "TemplatesDep",
    "get_manager",
    "get_store",
    "get_templates",
    "is_public",
    "make_templates",
    "require_store",
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


def get_store(request: Request) -> Store | None:
    """The server's store, or ``None`` when it runs without a database."""
    store: Store | None = getattr(request.app.state, "store", None)
    return store


def require_store(store: Annotated[Store | None, Depends(get_store)]) -> Store:
    """The server's store; a 503 naming the need when it runs without a database."""
    if store is None:
        raise HTTPException(503, "this page needs a database (this server runs without one)")
    return store


def get_manager(request: Request) -> GameManager:
    """The manager of the server's live games."""
    manager: GameManager = request.app.state.manager
    return manager


def is_public(request: Request) -> bool:
    """Whether the server runs in public mode (snake URLs must be public addresses)."""
    return bool(getattr(request.app.state, "public", False))


TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]
StoreDep = Annotated[Store | None, Depends(get_store)]
RequiredStoreDep = Annotated[Store, Depends(require_store)]
ManagerDep = Annotated[GameManager, Depends(get_manager)]
PublicDep = Annotated[bool, Depends(is_public)]
