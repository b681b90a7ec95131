"""The Snakewar web server: REST API, the official board's engine API, pages, live games.

``create_app(ServerConfig(...))`` returns the ASGI application that ``snakewar serve``
runs with uvicorn.

The names below are imported on first use (PEP 562), not with the package: the
server's command line (:mod:`snakewar.server.command`) is in this package, and
``snakewar serve --help`` or ``snakewar user list`` need no web framework.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from snakewar._lazy import lazy_attribute, lazy_dir

if TYPE_CHECKING:
    from snakewar.server.app import create_app
    from snakewar.server.config import ServerConfig
    from snakewar.server.fanout import FrameFeed
    from snakewar.server.manager import GameLimitError, GameManager, LiveGame
    from snakewar.server.safety import ForbiddenSnakeError, RateLimiter, check_public_url
    from snakewar.server.schemas import CreateGame

__all__ = [
    "CreateGame",
    "ForbiddenSnakeError",
    "FrameFeed",
    "GameLimitError",
    "GameManager",
    "LiveGame",
    "RateLimiter",
    "ServerConfig",
    "check_public_url",
    "create_app",
]

_HOMES = {
    "create_app": "app",
    "ServerConfig": "config",
    "FrameFeed": "fanout",
    "GameLimitError": "manager",
    "GameManager": "manager",
    "LiveGame": "manager",
    "ForbiddenSnakeError": "safety",
    "RateLimiter": "safety",
    "check_public_url": "safety",
    "CreateGame": "schemas",
}
"""Each public name and the module of this package that defines it."""

_MODULES = {name: f"{__name__}.{home}" for name, home in _HOMES.items()}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, _MODULES, name)


def __dir__() -> list[str]:
    return lazy_dir(__name__, _MODULES)
