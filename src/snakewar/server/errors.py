"""One table from exception classes to HTTP statuses, and the handler that uses it.

Every error answers ``{"detail": "one line"}``, except an error about one field of the
request (:class:`~snakewar.errors.ParamsError`), which answers FastAPI's validation
shape, ``{"detail": [{"loc": ["body", FIELD], "msg": ..., "type": ...}]}``, so that a
form can show it next to the field.  Request validation errors keep that shape but
never echo the input back (it may be megabytes, or not encodable), and every message
is made encodable text.

One exception: a 404 answering a browser's page request (``GET`` of a path outside
``/api``, ``Accept: text/html``) is an HTML page with the site's header (the renderer
given to :func:`add_error_handlers`); the API and every client that does not ask for
HTML keep the JSON.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from snakewar.errors import (
    BusyError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    OverLimitError,
    ParamsError,
    SnakewarError,
    TooLargeError,
    UnauthorizedError,
)
from snakewar.server.patterns import pattern_words

__all__ = [
    "STATUS_BY_ERROR",
    "NotFoundPage",
    "add_error_handlers",
    "error_response",
    "status_of",
    "validation_response",
    "wants_html",
]

STATUS_BY_ERROR: Final[tuple[tuple[type[SnakewarError], int], ...]] = (
    (UnauthorizedError, 401),
    (NotFoundError, 404),
    (ForbiddenError, 403),
    (ConflictError, 409),
    (BusyError, 429),
    (TooLargeError, 413),
    (OverLimitError, 422),
    (ParamsError, 422),
    (SnakewarError, 400),
)
"""Exception class to HTTP status, most specific first: the first match wins."""


def status_of(exc: SnakewarError) -> int:
    """The HTTP status for ``exc`` (:data:`STATUS_BY_ERROR`)."""
    return next(status for kind, status in STATUS_BY_ERROR if isinstance(exc, kind))


_MESSAGE_CHARS: Final = 500
"""The longest message an error answer carries."""


def _text(message: object) -> str:
    """``message`` as short, encodable text (a lone surrogate is written escaped)."""
    text = str(message).encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= _MESSAGE_CHARS else text[:_MESSAGE_CHARS] + "..."


def error_response(exc: SnakewarError) -> JSONResponse:
    """The JSON answer to ``exc``."""
    status = status_of(exc)
    if isinstance(exc, ParamsError):
        detail = [{"loc": ["body", _text(exc.field)], "msg": _text(exc), "type": "value_error"}]
        return JSONResponse({"detail": detail}, status_code=status)
    # A refusal that knows when asking again may succeed says so (rate limits, backoff).
    retry = getattr(exc, "retry_after_s", None)
    headers = None
    if isinstance(retry, int | float) and retry == retry:  # not NaN
        headers = {"Retry-After": str(max(1, min(math.ceil(retry), 86_400)))}
    return JSONResponse({"detail": _text(exc)}, status_code=status, headers=headers)


def _message(error: Mapping[str, Any]) -> str:
    """Why a field is bad, in words: a broken pattern is told as what the field takes."""
    if error["type"] == "string_pattern_mismatch":
        # Pydantic would answer "String should match pattern '^[a-z0-9]...'".
        return pattern_words((error.get("ctx") or {}).get("pattern"))
    return _text(error["msg"])


def validation_response(exc: RequestValidationError) -> JSONResponse:
    """A 422 naming each bad field: where, why and the kind of error, not the input.

    A field that does not match its pattern is answered with what it takes in words
    (:mod:`snakewar.server.patterns`), not with the regular expression.
    """
    detail = [
        {
            "loc": [_text(part) if isinstance(part, str) else part for part in error["loc"]],
            "msg": _message(error),
            "type": _text(error["type"]),
        }
        for error in exc.errors()[:20]
    ]
    return JSONResponse({"detail": detail}, status_code=422)


NotFoundPage = Callable[[Request, str], Awaitable[Response]]
"""Renders the HTML 404 page for a request, given what was not found (one line)."""

_PAGE_TYPES: Final = frozenset({"text/html", "application/xhtml+xml"})
_NO_QUALITY: Final = frozenset({"q=0", "q=0.0", "q=0.00", "q=0.000"})


def wants_html(request: Request) -> bool:
    """Whether ``request`` is a browser asking for a page: an HTML answer suits it.

    A ``GET`` (or ``HEAD``) outside ``/api`` whose ``Accept`` names HTML (with a
    quality above 0).  Scripts, ``fetch`` (``Accept: */*``) and every API path get JSON.
    """
    if request.method not in ("GET", "HEAD"):
        return False
    path = request.url.path
    if path == "/api" or path.startswith("/api/"):
        return False
    for item in request.headers.get("accept", "").split(",")[:50]:
        kind, *options = (part.strip().lower() for part in item.split(";"))
        if kind in _PAGE_TYPES and not any(o.replace(" ", "") in _NO_QUALITY for o in options):
            return True
    return False


def add_error_handlers(app: FastAPI, *, not_found_page: NotFoundPage | None = None) -> None:
    """Answer every :class:`SnakewarError` as :data:`STATUS_BY_ERROR` says, and bad requests.

    Args:
        app: the application.
        not_found_page: renders the HTML 404 page for a browser's page request
            (:func:`wants_html`); without it every 404 is JSON.
    """

    async def handle(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, SnakewarError)
        if not_found_page is not None and status_of(exc) == 404 and wants_html(request):
            return await not_found_page(request, _text(exc))
        return error_response(exc)

    async def handle_http(request: Request, exc: Exception) -> Response:
        # No route, no static file: Starlette's own 404s.
        assert isinstance(exc, HTTPException)
        if not_found_page is not None and exc.status_code == 404 and wants_html(request):
            return await not_found_page(request, _text(f"there is no page at {request.url.path}"))
        return await http_exception_handler(request, exc)

    async def handle_validation(request: Request, exc: Exception) -> JSONResponse:
        del request
        assert isinstance(exc, RequestValidationError)
        return validation_response(exc)

    app.add_exception_handler(SnakewarError, handle)
    app.add_exception_handler(HTTPException, handle_http)
    app.add_exception_handler(RequestValidationError, handle_validation)
