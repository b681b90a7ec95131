"""Placeholder: being written."""

from __future__ import annotations

from snakewar.games.battlesnake.maps.base import GameMap

MAPS: tuple[GameMap, ...] = ()
