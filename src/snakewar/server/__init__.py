"""The Snakewar web server: REST API, the official board's engine API, pages, live games.

``create_app(ServerConfig(...))`` returns the ASGI application that ``snakewar serve``
runs with uvicorn.

The names below are imported on first use (PEP 562), not with the package: the
server's command line (:mod:`snakewar.server.command`) is in this package, and
``snakewar serve --help`` or ``snakewar user list`` need no web framework.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
