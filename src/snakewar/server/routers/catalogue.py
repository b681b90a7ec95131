"""``/api/catalogue``: the games, their parameters and built-in bots (and two shortcuts)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query

from snakewar.adapters import games
from snakewar.server.matches import adapter_for
from snakewar.server.schemas import CatalogueOut, MapOut

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["catalogue"])


@router.get("/catalogue")
async def catalogue() -> list[CatalogueOut]:
    """Every game: its parameters (with defaults and bounds), built-in bots and limits."""
    return [CatalogueOut.model_validate(a.catalogue().to_dict()) for a in games()]


@router.get("/bots")
async def bots(game: str | None = Query(None, max_length=32)) -> list[str]:
    """The built-in bots of a game (default: the default game), usable as ``builtin:NAME``."""
    return [b.name for b in adapter_for(game).catalogue().bots]


@router.get("/maps")
async def maps(game: str | None = Query(None, max_length=32)) -> list[MapOut]:
    """The maps of a game that has maps (its catalogue's extras), with sizes and player counts."""
    extras: dict[str, Any] = dict(adapter_for(game).catalogue().extras)
    return [MapOut.model_validate(m) for m in extras.get("maps", [])]
