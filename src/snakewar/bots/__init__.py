"""What bots of every game share: the worker host and serving an app.

The worker host is :mod:`snakewar.bots.host`, serving :mod:`snakewar.bots.serving`.  Each
game's built-in bots live in its own package, under ``snakewar.games.<name>.bots``; names
this package exported before they moved there still work for one release, with a
:class:`DeprecationWarning` (:mod:`snakewar._moved`).
"""

from __future__ import annotations

from typing import Any

from snakewar._moved import moved_attribute


def __getattr__(name: str) -> Any:
    return moved_attribute(__name__, name)
