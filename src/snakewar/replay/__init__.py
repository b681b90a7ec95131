"""What every game's replays share: reading files line by line under size caps.

Every problem with a file is a :class:`ReplayError` (a ``ValueError``) with a one-line
message naming the file, the line and the field.  A game's own replay formats live in its
package, under ``snakewar.games.<name>.replay``, and are reached through its adapter's
codec (:attr:`snakewar.engine.protocol.GameAdapter.replays`); names this package exported
before they moved there still work for one release, with a :class:`DeprecationWarning`
(:mod:`snakewar._moved`).
"""

from __future__ import annotations

from typing import Any

from snakewar._moved import moved_attribute
from snakewar.replay._lines import MAX_FILE_BYTES, MAX_LINE_BYTES, ReplayError, ReplaySource

__all__ = ["MAX_FILE_BYTES", "MAX_LINE_BYTES", "ReplayError", "ReplaySource"]


def __getattr__(name: str) -> Any:
    return moved_attribute(__name__, name)
