"""Battlesnake's pure rules: state types, settings, rulesets, the 25 maps, the game driver.

Also the API v1 wire format, a terminal renderer and the Go-compatible random source the
maps draw from.  No I/O, no clock, no global randomness; the engine's modules are compiled
with mypyc where a C compiler is found (:data:`snakewar.COMPILED_MODULES`).  The game's
public names are :mod:`snakewar.games.battlesnake`'s; ``rules.X`` names that this path had
when it was the rulesets' module still work for one release, with a warning.
"""

from __future__ import annotations

from typing import Any

from snakewar._moved import moved_attribute


def __getattr__(name: str) -> Any:
    return moved_attribute(__name__, name)
