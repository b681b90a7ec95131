"""What was sent to a bot over HTTP and what came back: the bodies behind one call.

Bot authors debugging a bot want the exact request JSON of a turn and the raw reply (the
2018 server and desktop tools showed both). The referee asks for them only when a caller
keeps them (a local or step-mode server game): it opens a :func:`capturing` block around
one call, and the game's HTTP layer (the one call function every HTTP client of its
referee goes through) fills in the bytes it sent and read. A context variable carries
the capture, so no client's interface changes and concurrent calls (one task each) never
see each other's. In-process and worker bots have no bytes on a wire: the referee writes
their request as the game's API JSON and their reply as the move object they returned.
Bodies are kept as text (UTF-8, undecodable bytes replaced), cut at
:data:`MAX_BODY_BYTES` with a ``truncated`` mark.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["MAX_BODY_BYTES", "Exchange", "body_text", "capturing", "current_exchange", "dumps"]

MAX_BODY_BYTES: Final = 16 * 1024
"""The most bytes of a request or reply body kept (a big board's request is ~10 KiB)."""


@dataclass(slots=True)
class Exchange:
    """The bytes of one call: ``None`` where nothing was sent or read."""

    request: bytes | None = None
    reply: bytes | None = None


_CURRENT: contextvars.ContextVar[Exchange | None] = contextvars.ContextVar(
    "snakewar_exchange", default=None
)


def current_exchange() -> Exchange | None:
    """The capture open in this task, if any (the HTTP layer fills it in)."""
    return _CURRENT.get()


@contextlib.contextmanager
def capturing() -> Iterator[Exchange]:
    """Capture the bytes of the calls made inside the block (in this task)."""
    exchange = Exchange()
    token = _CURRENT.set(exchange)
    try:
        yield exchange
    finally:
        _CURRENT.reset(token)


def body_text(data: bytes | None) -> tuple[str, bool]:
    """``data`` as text cut at :data:`MAX_BODY_BYTES`, and whether it was cut."""
    if data is None:
        return "", False
    cut = len(data) > MAX_BODY_BYTES
    return data[:MAX_BODY_BYTES].decode("utf-8", errors="replace"), cut


def dumps(value: Mapping[str, Any]) -> bytes:
    """A JSON body as the HTTP clients send one (compact)."""
    return json.dumps(value, separators=(",", ":")).encode()
