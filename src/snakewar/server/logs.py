"""The server's logs: the default text, or one JSON object a line (``--log-format json``).

A JSON line has ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``, ``game_id``
where there is one, and ``exc`` (the traceback) for an exception.  The game id comes
from :data:`GAME_ID`, a context variable set while a game runs (:func:`game_context`:
its task, and every task it starts, carry it) and while a request on a game is served
(:class:`GameIdMiddleware`: the ``/games/{id}`` or ``/view/{id}`` in its path); a
record logged in a task named ``game <id>`` (how the server names a game's task) gets
that id too.

In JSON mode the server also logs each request it answers (``snakewar.access``, level
INFO: method, path, status, milliseconds, and the game id), as a deployment's log
pipeline wants; the text mode stays as quiet as before.  Only the standard
:mod:`logging` module is used: any handler or collector reading stderr works.
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime as dt
import json
import logging
import re
import sys
import time
from typing import Final, Literal

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "ACCESS_LOGGER",
    "GAME_ID",
    "LOG_FORMATS",
    "GameIdFilter",
    "GameIdMiddleware",
    "JsonFormatter",
    "LogFormat",
    "configure_logging",
    "game_context",
    "game_id_of_path",
]

LogFormat = Literal["text", "json"]

LOG_FORMATS: Final[tuple[LogFormat, ...]] = ("text", "json")
"""The formats ``snakewar serve --log-format`` takes."""

GAME_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "snakewar_game_id", default=None
)
"""The game the code running now works on (``None``: none)."""

ACCESS_LOGGER: Final = "snakewar.access"
"""The logger of the requests answered (JSON mode)."""

_GAME_PATH: Final = re.compile(r"/(?:games|view)/([A-Za-z0-9][A-Za-z0-9_-]{0,63})(?:[/.]|\Z)")
_TASK_NAME: Final = re.compile(r"game ([A-Za-z0-9][A-Za-z0-9_-]{0,63})\Z")

_RECORD_FIELDS: Final = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None)))


def game_id_of_path(path: str) -> str | None:
    """The game a request path is about (``/api/games/ID/...``, ``/view/ID``...), if any."""
    found = _GAME_PATH.search(path)
    return found.group(1) if found else None


def game_context(game_id: str) -> contextvars.Context:
    """A copy of the current context with :data:`GAME_ID` set: run a game's task in it."""
    context = contextvars.copy_context()
    context.run(GAME_ID.set, game_id)
    return context


def _current_game() -> str | None:
    game_id = GAME_ID.get()
    if game_id is not None:
        return game_id
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop in this thread
        return None
    if task is None:
        return None
    named = _TASK_NAME.match(task.get_name())
    return named.group(1) if named else None


class GameIdFilter(logging.Filter):
    """Adds ``game_id`` to each record (from :data:`GAME_ID` or the game's task)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Tag the record; never drops one."""
        if getattr(record, "game_id", None) is None:
            record.game_id = _current_game()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, game_id, exc, extras.

    Extra fields a caller passes (``log.info("...", extra={"status": 200})``) are kept
    when JSON can hold them.
    """

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line of JSON."""
        when = dt.datetime.fromtimestamp(record.created, dt.UTC)
        line: dict[str, object] = {
            "time": when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        game_id = getattr(record, "game_id", None)
        if game_id is not None:
            line["game_id"] = game_id
        for key, value in vars(record).items():
            extra = key not in _RECORD_FIELDS and key not in line and key != "game_id"
            if extra and (isinstance(value, str | int | float | bool) or value is None):
                line[key] = value
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exc"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure_logging(log_format: LogFormat) -> None:
    """Set the process's logging up for ``snakewar serve``.

    ``text``: as before (uvicorn's own format, warnings and up; nothing changes).
    ``json``: one handler on the root logger writing :class:`JsonFormatter` lines to
    stderr; uvicorn's loggers go through it (pass ``log_config=None`` to uvicorn), the
    server's own at INFO (its access log included).
    """
    if log_format == "text":
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(GameIdFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("snakewar").setLevel(logging.INFO)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    logging.getLogger("uvicorn.error").setLevel(logging.INFO)


class GameIdMiddleware:
    """Sets :data:`GAME_ID` while a request on a game is served; logs requests (JSON mode).

    The access line (``snakewar.access``, INFO) is written only when that logger is on,
    which :func:`configure_logging` does for JSON: the default server logs no requests.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.access = logging.getLogger(ACCESS_LOGGER)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request with the game id set (and log it, if asked)."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        game_id = game_id_of_path(scope["path"])
        token = GAME_ID.set(game_id) if game_id is not None else None
        logging_on = self.access.isEnabledFor(logging.INFO)
        status = 0
        started = time.perf_counter()

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "websocket.accept":
                status = 101
            await send(message)

        try:
            await self.app(scope, receive, sending if logging_on else send)
        finally:
            if logging_on:
                self.access.info(
                    "%s %s %s",
                    scope.get("method", "WS"),
                    scope["path"],
                    status,
                    extra={
                        "method": scope.get("method", "WS"),
                        "path": scope["path"][:500],
                        "status": status,
                        "ms": round((time.perf_counter() - started) * 1000, 1),
                    },
                )
            if token is not None:
                GAME_ID.reset(token)
