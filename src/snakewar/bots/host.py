"""The inside of a bot worker process: one built-in bot at a time, served over a pipe.

:class:`snakewar.referee.workers.BotPool` starts ``python -I -S -c BOOTSTRAP`` (a fixed
command line: nothing from a request reaches it), sends the parent's ``sys.path`` and
the modules to import, then drives the bot with framed messages on stdin/stdout:

* parent to worker: a 4-byte big-endian length, then a pickled tuple (the parent is
  the trusted side): ``("load", game, host, spec, seed)``, ``("drop",)``, and the
  game's calls ``(kind, payload)``;
* worker to parent: a 4-byte length, then a UTF-8 JSON object, ``{"ok": value}`` or
  ``{"error": "Type: message", "trace": "..."}`` when the bot raised.

The worker knows no game: a ``load`` names the game and where its worker bots are
(``host``, ``"module:ATTRIBUTE"``, from the adapter's ``worker_host()``; empty: the
game's adapter, through the registry), and every call goes to that object's
``worker_call`` (see :class:`snakewar.engine.protocol.GameAdapter`).

The worker answers one message at a time, so the parent can always tell which reply is
which.  Anything a bot prints goes to stderr, never into a reply, and the worker exits
on its own when its parent is gone (even in the middle of a runaway move), so it can
never outlive the process that started it.
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import struct
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from typing import IO, Any

__all__ = ["BOOTSTRAP", "HEADER", "serve"]

HEADER = struct.Struct(">I")
"""Every message's length prefix: 4 bytes, big-endian."""

BOOTSTRAP = (
    "import sys, pickle\n"
    "size = int.from_bytes(sys.stdin.buffer.read(4), 'big')\n"
    "path, imports = pickle.loads(sys.stdin.buffer.read(size))\n"
    "sys.path[:] = path\n"
    "from snakewar.bots.host import serve\n"
    "sys.exit(serve(imports))\n"
)
"""The worker's ``-c`` program: take the parent's import path, then :func:`serve`."""

_MAX_TRACE = 4000
_PARENT_POLL_S = 0.5


def serve(imports: Sequence[str] = ()) -> int:
    """Serve messages from stdin until it ends; returns the exit status.

    ``imports`` are modules imported first (plug-ins that register more bots).
    """
    source = sys.stdin.buffer
    sink = os.fdopen(os.dup(1), "wb")
    # Stray prints from a bot go to stderr: the replies' pipe carries replies only.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _exit_with_parent()
    try:
        for name in imports:
            importlib.import_module(name)
    except Exception as exc:  # reported to the parent, which refuses the worker
        _send(sink, {"error": f"{type(exc).__name__}: {exc}"[:300]})
        return 1
    host = _Host()
    _send(sink, {"ok": os.getpid()})
    while True:
        message = _receive(source)
        if message is None:
            return 0
        try:
            reply: dict[str, Any] = {"ok": host.handle(message)}
        except Exception as exc:  # a bot's bug is data for the referee
            reply = {
                "error": f"{type(exc).__name__}: {exc}"[:300],
                "trace": traceback.format_exc()[-_MAX_TRACE:],
            }
        _send(sink, reply)


def _exit_with_parent() -> None:
    # A daemon thread gets the GIL every few ms even while a bot spins, so an
    # orphaned worker (its parent killed) ends within a poll, whatever it runs.
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(_PARENT_POLL_S)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _receive(source: IO[bytes]) -> Any:
    head = source.read(HEADER.size)
    if len(head) < HEADER.size:
        return None
    (size,) = HEADER.unpack(head)
    body = source.read(size)
    if len(body) < size:
        return None
    return pickle.loads(body)


def _send(sink: IO[bytes], reply: dict[str, Any]) -> None:
    # ``default=repr``: whatever odd value a bot returns still makes a reply.
    body = json.dumps(reply, default=repr, separators=(",", ":")).encode()
    sink.write(HEADER.pack(len(body)) + body)
    sink.flush()


class _Host:
    """The bot this worker holds, the game's worker hooks that answer for it, and its state."""

    def __init__(self) -> None:
        self.bot: Any = None
        self.hooks: Any = None
        self.state: Any = None

    def handle(self, message: tuple[Any, ...]) -> Any:
        kind = message[0]
        if kind == "load":
            _, game, where, spec, seed = message
            self.bot = self.state = None
            self.hooks = _hooks(game, where)
            self.bot = self.hooks.worker_bot(spec, seed)
            return None
        if kind == "drop":
            self.bot = self.state = None
            return None
        if self.bot is None:
            raise RuntimeError(f"no bot loaded for {kind!r}")
        self.state, reply = self.hooks.worker_call(self.bot, self.state, kind, message[1])
        return reply


def _hooks(game: str, where: str) -> Any:
    """The object with ``worker_bot`` and ``worker_call`` for ``game``'s bots.

    ``where`` (``"module:ATTRIBUTE"``) is imported alone: loading every game's adapter
    through the registry would double a fresh worker's start-up (about 0.6 s of CPU).
    """
    if where:
        module, _, attribute = where.partition(":")
        return getattr(importlib.import_module(module), attribute)
    from snakewar.adapters import get_game

    return get_game(game)
