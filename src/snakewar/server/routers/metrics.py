"""``/metrics``: the server's Prometheus metrics (:mod:`snakewar.server.metrics`).

Read by a scraper that sends the operator's token (``Authorization: Bearer ...``,
``serve --metrics-token``) or by an admin (a local server's user is one); others get
401 or 403, so a public server never shows how busy it is to strangers.  It is exempt
from the ``Host`` check (a scraper asks each replica by its address), as ``/health`` is.
"""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter, Request, Response

from snakewar.errors import UnauthorizedError
from snakewar.server.auth import TOKEN_PREFIX, NotAllowedError, get_principal
from snakewar.server.metrics import CONTENT_TYPE, Metrics, may_read

__all__ = ["METRICS_PATH", "router"]

METRICS_PATH: Final = "/metrics"

router = APIRouter(tags=["operations"], include_in_schema=False)


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


@router.get(METRICS_PATH)
async def metrics(request: Request) -> Response:
    """The metrics in Prometheus' text format (the token's or an admin's)."""
    state = request.app.state
    found: Metrics = state.metrics
    sent = _bearer(request)
    if not may_read(state.config.metrics_token, sent, False):
        if sent is not None and not sent.startswith(TOKEN_PREFIX):
            # Neither the metrics token nor an API token: one clear answer.
            raise UnauthorizedError("metrics: this bearer token is not the metrics token")
        principal = await get_principal(request)  # an admin's session or API token
        if principal.user is None:
            raise UnauthorizedError("metrics: send the metrics token, or log in as an admin")
        if not principal.is_admin:
            raise NotAllowedError("metrics: only admins and the metrics token read them")
    refresh = getattr(state, "refresh_gauges", None)
    if refresh is not None:
        refresh()  # this process's gauges as of now (the others' are refreshed by them)
    return Response(found.render(), media_type=CONTENT_TYPE)
