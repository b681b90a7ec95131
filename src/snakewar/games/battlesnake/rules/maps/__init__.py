"""The map registry: every map of the reference engine, by id.

>>> get_map("standard").meta.name
'Standard'
"""

from __future__ import annotations

from snakewar.errors import UnknownMapError, choices_text
from snakewar.games.battlesnake.rules.maps import (
    arcade_maze,
    castle_wall,
    classic,
    hazard_pits,
    hazards,
    healing_pools,
    rivers_and_bridges,
    sinkholes,
    snail_mode,
    solo_maze,
    standard,
)
from snakewar.games.battlesnake.rules.maps.base import BoardSizes, GameMap, MapMeta

__all__ = ["BoardSizes", "GameMap", "MapMeta", "get_map", "list_maps", "map_ids", "register_map"]

_REGISTRY: dict[str, GameMap] = {}


def register_map(game_map: GameMap) -> None:
    """Add a map to the registry.

    Raises:
        ValueError: if a map with the same id is already registered.
    """
    if game_map.id in _REGISTRY:
        raise ValueError(f"map {game_map.id!r} is already registered")
    _REGISTRY[game_map.id] = game_map


def get_map(map_id: str) -> GameMap:
    """Return the map registered as ``map_id``.

    Raises:
        UnknownMapError: naming the id and listing the valid ones.
    """
    try:
        return _REGISTRY[map_id]
    except KeyError:
        raise UnknownMapError(
            f"unknown map {map_id!r} (expected one of {choices_text(map_ids())})"
        ) from None


def map_ids() -> list[str]:
    """Every registered map id, sorted."""
    return sorted(_REGISTRY)


def list_maps() -> list[GameMap]:
    """Every registered map, sorted by id."""
    return [_REGISTRY[k] for k in map_ids()]


for _module in (
    standard,
    hazards,
    arcade_maze,
    castle_wall,
    rivers_and_bridges,
    solo_maze,
    snail_mode,
    healing_pools,
    sinkholes,
    hazard_pits,
    classic,
):
    for _map in _module.MAPS:
        register_map(_map)
