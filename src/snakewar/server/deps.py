"""Typed dependencies of the routers: the config, the store, the game manager, the arena.

``create_app`` puts each on ``app.state`` at start-up; routes take them as
``store: StoreDep`` and so on.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from snakewar.server.arena import ArenaWorker
from snakewar.server.config import ServerConfig
from snakewar.server.manager import GameManager
from snakewar.server.safety import RateLimiter
from snakewar.storage import AsyncStore

__all__ = [
    "ArenaDep",
    "ConfigDep",
    "LimiterDep",
    "ManagerDep",
    "StoreDep",
    "get_arena",
    "get_config",
    "get_limiter",
    "get_manager",
    "get_store",
]


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


def get_limiter(request: Request) -> RateLimiter:
    """The per-client rate limit of game creation (public mode)."""
    limiter: RateLimiter = request.app.state.limiter
    return limiter


ConfigDep = Annotated[ServerConfig, Depends(get_config)]
StoreDep = Annotated[AsyncStore, Depends(get_store)]
ManagerDep = Annotated[GameManager, Depends(get_manager)]
ArenaDep = Annotated[ArenaWorker, Depends(get_arena)]
LimiterDep = Annotated[RateLimiter, Depends(get_limiter)]
