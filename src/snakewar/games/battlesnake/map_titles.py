"""How the web shows a Battlesnake map: its title and the board size it starts from.

The reference engine names some maps for people ("Arcade Maze") and others by their
ids ("hz_castle_wall"); the maps keep the reference's names (:class:`MapMeta` is
the reference's ``Meta()``), and pages show :func:`map_title` instead, so every map
reads as a title.
"""

from __future__ import annotations

from typing import Final

from snakewar.games.battlesnake.rules.maps import MapMeta

__all__ = ["DEFAULT_SIZE", "default_size", "map_title"]

DEFAULT_SIZE: Final = (11, 11)
"""The board a game is played on unless it says otherwise (the official default)."""

_TITLES: Final = {
    "hz_castle_wall": "Castle Wall",
    "hz_castle_wall_lg": "Castle Wall (large)",
    "hz_castle_wall_xl": "Castle Wall (extra large)",
    "hz_columns": "Columns",
    "hz_expand_box": "Expanding Box",
    "hz_expand_scatter": "Expanding Scatter",
    "hz_grow_box": "Growing Box",
    "hz_hazard_pits": "Hazard Pits",
    "hz_inner_wall": "Inner Wall",
    "hz_islands_bridges": "Islands and Bridges",
    "hz_islands_bridges_lg": "Islands and Bridges (large)",
    "hz_rings": "Rings",
    "hz_rivers_bridges": "Rivers and Bridges",
    "hz_rivers_bridges_lg": "Rivers and Bridges (large)",
    "hz_rivers_bridges_xl": "Rivers and Bridges (extra large)",
    "hz_scatter": "Scatter",
    "hz_spiral": "Spiral",
}
"""Titles of the reference's maps that it names by their ids."""


def map_title(meta: MapMeta) -> str:
    """The map's title for people.

    >>> from snakewar.games.battlesnake.rules.maps import get_map
    >>> map_title(get_map("arcade_maze").meta), map_title(get_map("hz_rings").meta)
    ('Arcade Maze', 'Rings')
    """
    if meta.id in _TITLES:
        return _TITLES[meta.id]
    if meta.name and meta.name != meta.id:
        return meta.name
    # A map registered elsewhere, named by its id: "my_maze_xl" reads "My Maze Xl".
    words = meta.id.removeprefix("hz_").replace("_", " ").split()
    return " ".join(word[:1].upper() + word[1:] for word in words) or meta.id


def default_size(meta: MapMeta) -> tuple[int, int]:
    """The board a new game on this map starts from.

    11x11 where the map takes it, else the map's first size.
    """
    sizes = meta.sizes
    if sizes.allows(*DEFAULT_SIZE) or not sizes.sizes:
        return DEFAULT_SIZE
    return sizes.sizes[0]
