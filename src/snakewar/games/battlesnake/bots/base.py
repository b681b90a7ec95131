"""What every Python snake is: a :class:`Bot` with ``info``/``start``/``move``/``end``.

A :class:`Bot` answers typed :class:`~snakewar.games.battlesnake.rules.wire.SnakeRequest`
objects.  The same object plays in-process (the referee calls it directly, no
HTTP) or behind an API v1 server (:mod:`snakewar.games.battlesnake.bots.sdk`), and it plays the same
game both ways: built-in bots draw their randomness from
:func:`request_rng`, which depends only on the snake id and the turn.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from snakewar.errors import WireFormatError
from snakewar.games.battlesnake.rules.wire import API_VERSION, MoveReply, SnakeRequest

__all__ = ["Bot", "SnakeMetadata", "request_rng"]

_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
_MAX_FIELD = 256


@dataclass(frozen=True, slots=True)
class SnakeMetadata:
    """The reply to ``GET /``: the API version and the snake's customizations.

    Invalid colours become ``#888888`` and empty head/tail names ``default``, as
    the official platform does, so a bad customization never breaks a game.
    """

    apiversion: str = API_VERSION
    author: str = ""
    color: str = "#888888"
    head: str = "default"
    tail: str = "default"
    version: str = ""

    def to_api(self) -> dict[str, str]:
        """Return the JSON reply."""
        return {
            "apiversion": self.apiversion,
            "author": self.author,
            "color": self.color,
            "head": self.head,
            "tail": self.tail,
            "version": self.version,
        }

    @classmethod
    def from_api(cls, value: Any) -> SnakeMetadata:
        """Validate a ``GET /`` reply.

        Only ``apiversion`` is required by the API; other fields are optional and
        sanitised (non-strings dropped, long strings cut, bad colours defaulted).

        Raises:
            WireFormatError: if the reply is not an object or has no API version.
        """
        if not isinstance(value, Mapping):
            raise WireFormatError(f"metadata: expected a JSON object, got {_short(value)}")
        apiversion = value.get("apiversion")
        if isinstance(apiversion, int) and not isinstance(apiversion, bool):
            apiversion = str(apiversion)
        if not isinstance(apiversion, str) or not apiversion:
            raise WireFormatError(
                f"metadata.apiversion: expected a string such as '1', got {_short(apiversion)}"
            )

        def text(key: str, default: str) -> str:
            item = value.get(key)
            return item[:_MAX_FIELD] if isinstance(item, str) and item else default

        color = text("color", "#888888")
        return cls(
            apiversion=apiversion[:_MAX_FIELD],
            author=text("author", ""),
            color=color if _COLOR.match(color) else "#888888",
            head=text("head", "default"),
            tail=text("tail", "default"),
            version=text("version", ""),
        )


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def request_rng(request: SnakeRequest, salt: str = "") -> random.Random:
    """A random source fixed by the snake id and the turn.

    Built-in bots use it so that the same game (same seed, hence the same snake ids)
    replays move for move, in-process or over HTTP.  Not the game id: every game gets
    a new one (as from the official CLI), a replay of the same seed included.
    """
    return random.Random(f"{salt}:{request.you.id}:{request.turn}")


class Bot(ABC):
    """A snake written in Python.  Subclass it and override :meth:`move`.

    ``start`` and ``end`` do nothing by default.  A bot may be asked to play many
    games at once (one server, many games), so per-game state should be keyed by
    ``request.game.id``.

    Example:
        >>> from snakewar.games.battlesnake.bots.base import Bot
        >>> class Up(Bot):
        ...     name = "up"
        ...     def move(self, request):
        ...         return "up"
    """

    name: ClassVar[str] = "bot"
    """The bot's short name (used by ``builtin:NAME``)."""
    metadata: SnakeMetadata = SnakeMetadata()

    def info(self) -> SnakeMetadata:
        """Return the ``GET /`` reply."""
        return self.metadata

    def start(self, request: SnakeRequest) -> None:  # noqa: B027 - an optional hook, not abstract
        """Called once at the start of each game."""

    @abstractmethod
    def move(self, request: SnakeRequest) -> MoveReply | str:
        """Return the move (``up``, ``down``, ``left`` or ``right``) or a :class:`MoveReply`."""

    def end(self, request: SnakeRequest) -> None:  # noqa: B027 - an optional hook, not abstract
        """Called once at the end of each game, with the final state."""
