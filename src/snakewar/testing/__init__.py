"""Checkers shipped with Snakewar, for its own tests and for anyone re-implementing a game.

Each game ships its own, under ``snakewar.games.<name>.testing``: they replay games
recorded from the game's official engine and compare them field by field, reading the
recorded files from a folder given to them (the rules themselves do no I/O).  Names this
package exported before they moved there still work for one release, with a
:class:`DeprecationWarning` (:mod:`snakewar._moved`).
"""

from __future__ import annotations

from typing import Any

from snakewar._moved import moved_attribute

__all__: list[str] = []


def __getattr__(name: str) -> Any:
    return moved_attribute(__name__, name)
