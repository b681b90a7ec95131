"""``/api/test``: the snake tester (health checks and scenario positions) for one snake."""

from __future__ import annotations

import contextlib

from fastapi import APIRouter, Request

from snakewar.adapters.battlesnake import GAME
from snakewar.checkup import run_tester
from snakewar.referee.clients import new_http_client
from snakewar.referee.runner import make_client
from snakewar.server.auth import NotAllowedError, UserDep
from snakewar.server.deps import ConfigDep, client_key
from snakewar.server.matches import check_entrants
from snakewar.server.safety import RateLimiter
from snakewar.server.schemas import TesterReportOut, TestRequest

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["tester"])


def _limiter(request: Request) -> RateLimiter:
    limiter: RateLimiter | None = getattr(request.app.state, "tester_limiter", None)
    if limiter is None:
        # A run makes hundreds of requests to the snake: a few runs a minute per user.
        limiter = request.app.state.tester_limiter = RateLimiter(per_minute=4.0, burst=3)
    return limiter


@router.post("/test")
async def run_tests(
    body: TestRequest, request: Request, principal: UserDep, config: ConfigDep
) -> TesterReportOut:
    """Run the snake tester (health checks and scenarios) and return its report (users)."""
    del principal  # a logged-in user (the local user on a local server)
    entrant = GAME.entrant(body.url)
    if config.public and GAME.reach(entrant).kind == "builtin":
        # The tester is for one's own snake; a public server plays built-ins only in
        # its killable worker processes, and the tester's many games would run them here.
        raise NotAllowedError("url: the tester tests your snake; give its URL")
    await check_entrants(GAME, [entrant], config)
    counted = (
        _limiter(request).counted(client_key(request), "too many tester runs; wait a minute")
        if config.public
        else contextlib.nullcontext()
    )
    with counted:
        async with new_http_client(config.outbound()) as http:
            report = await run_tester(make_client(entrant.source, http, body.timeout))
    return TesterReportOut.model_validate(report.to_dict())
