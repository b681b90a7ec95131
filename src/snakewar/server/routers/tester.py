"""``/api/test``: the snake tester (health checks and scenario positions) for one snake."""

from __future__ import annotations

from fastapi import APIRouter

from snakewar.adapters.battlesnake import GAME
from snakewar.checkup import run_tester
from snakewar.referee.clients import new_http_client
from snakewar.referee.runner import make_client
from snakewar.server.deps import ConfigDep
from snakewar.server.matches import check_entrants
from snakewar.server.schemas import TesterReportOut, TestRequest

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["tester"])


@router.post("/test")
async def run_tests(body: TestRequest, config: ConfigDep) -> TesterReportOut:
    """Run the snake tester (health checks and scenarios) and return its report."""
    entrant = GAME.entrant(body.url)
    await check_entrants(GAME, [entrant], config)
    async with new_http_client() as http:
        report = await run_tester(make_client(entrant.source, http, body.timeout))
    return TesterReportOut.model_validate(report.to_dict())
