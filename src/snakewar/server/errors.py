"""One table from exception classes to HTTP statuses, and the handler that uses it.

Every error answers ``{"detail": "one line"}``, except an error about one field of the
request (:class:`~snakewar.errors.ParamsError`), which answers FastAPI's validation
shape, ``{"detail": [{"loc": ["body", FIELD], "msg": ..., "type": ...}]}``, so that a
form can show it next to the field.
"""

from __future__ import annotations

from typing import Final

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from snakewar.errors import (
    BusyError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    OverLimitError,
    ParamsError,
    SnakewarError,
    TooLargeError,
)

__all__ = ["STATUS_BY_ERROR", "add_error_handlers", "error_response", "status_of"]

STATUS_BY_ERROR: Final[tuple[tuple[type[SnakewarError], int], ...]] = (
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


def error_response(exc: SnakewarError) -> JSONResponse:
    """The JSON answer to ``exc``."""
    status = status_of(exc)
    if isinstance(exc, ParamsError):
        detail = [{"loc": ["body", exc.field], "msg": str(exc), "type": "value_error"}]
        return JSONResponse({"detail": detail}, status_code=status)
    return JSONResponse({"detail": str(exc)}, status_code=status)


async def _handle(request: Request, exc: Exception) -> JSONResponse:
    del request
    assert isinstance(exc, SnakewarError)
    return error_response(exc)


def add_error_handlers(app: FastAPI) -> None:
    """Answer every :class:`SnakewarError` as :data:`STATUS_BY_ERROR` says."""
    app.add_exception_handler(SnakewarError, _handle)
