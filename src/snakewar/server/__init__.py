"""The Snakewar web server: REST API, the official board's engine API, pages, live games.

``create_app(ServerConfig(...))`` returns the ASGI application that ``snakewar serve``
runs with uvicorn.
"""

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
