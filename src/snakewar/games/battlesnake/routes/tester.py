"""``/api/test``: the snake tester (health checks and scenario positions) for one snake.

``POST /api/test`` answers the whole report at the end; ``POST /api/test/stream``
answers the same run as it goes, one JSON object a line (``application/x-ndjson``)
so that a page can show progress:

* ``{"event": "start", "checks": 4, "scenarios": N}``
* ``{"event": "check", "check": {...}}`` for each health check,
* ``{"event": "scenario", "done": k, "scenarios": N, "scenario": {...}}``,
* ``{"event": "report", "report": {...}}`` last (the ``POST /api/test`` answer).

Both take the same request, meet the same checks and count against the same budget:
on a public server a run makes several hundred requests to any public URL it is
given, so each user has a budget of runs an hour (``tester_runs_per_hour``) and one
run at a time; past it the answer is a 429 naming the limit, with ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from snakewar.errors import ParamsError, UnknownRulesetError
from snakewar.games.battlesnake.adapter import GAME
from snakewar.games.battlesnake.referee.clients import new_http_client
from snakewar.games.battlesnake.referee.runner import make_client
from snakewar.games.battlesnake.routes.schemas import TesterReportOut, TestRequest
from snakewar.games.battlesnake.rules.rulesets import named_ruleset
from snakewar.games.battlesnake.tester import (
    Scenario,
    TesterReport,
    run_tester,
    select_scenarios,
)
from snakewar.games.battlesnake.tester.files import ScenarioFileError, load_scenarios
from snakewar.games.battlesnake.tester.runner import CheckResult, ScenarioResult
from snakewar.server.auth import NotAllowedError, UserDep
from snakewar.server.config import ServerConfig
from snakewar.server.deps import ConfigDep, client_key, get_rates
from snakewar.server.matches import check_entrants
from snakewar.server.safety import ClientBudget, Use

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["tester"])

CHECKS = 4
"""The health checks of a run (``GET /``, ``/start``, ``/move``, ``/end``)."""


RUNS: Final = "tester runs"
"""What the budget counts, in its refusals."""

_ENDING: set[asyncio.Future[None]] = set()
"""Runs' ends being counted (a task must be held until it is done)."""


def _budget(request: Request, config: ServerConfig) -> ClientBudget:
    budget: ClientBudget | None = getattr(request.app.state, "tester_budget", None)
    if budget is None:
        # A run makes hundreds of requests to the snake: a few runs an hour per user,
        # one at a time, so no account turns the server on a site.  Counted in the
        # database when the server may have company, so the budget holds across them.
        budget = get_rates(request).budget(
            "tester_runs_per_hour", config.tester_runs_per_hour, 3600.0, at_once=1
        )
        request.app.state.tester_budget = budget
    return budget


MAX_UPLOAD_BYTES = 1024 * 1024
"""The largest scenario file a run takes (as JSON)."""
MAX_UPLOAD_SCENARIOS = 20
"""The most scenarios of one's own a run takes: each is proven by the rules engine first."""


async def _own_scenarios(body: TestRequest) -> list[Scenario]:
    """The request's scenario file, read and proven (a 422 naming ``scenarios`` if bad)."""
    if body.scenarios is None:
        if body.only_scenarios:
            raise ParamsError("only_scenarios", "only_scenarios runs a scenario file's: give one")
        return []
    data = json.dumps(body.scenarios).encode()
    if len(data) > MAX_UPLOAD_BYTES:
        raise ParamsError(
            "scenarios", f"the scenario file is larger than {MAX_UPLOAD_BYTES // 1024} KiB"
        )
    items = body.scenarios.get("scenarios")
    if isinstance(items, list) and len(items) > MAX_UPLOAD_SCENARIOS:
        raise ParamsError(
            "scenarios", f"more than {MAX_UPLOAD_SCENARIOS} scenarios (the command line takes more)"
        )
    try:
        # The rules engine plays every combination of moves: CPU work, off the event loop.
        return await asyncio.to_thread(load_scenarios, data, "scenario file")
    except ScenarioFileError as exc:
        raise ParamsError("scenarios", str(exc)) from None


async def _checked(body: TestRequest, config: ServerConfig) -> str:
    """The snake's canonical source, once the request may run (else an error)."""
    for name in body.rulesets:
        try:
            named_ruleset(name)
        except UnknownRulesetError as exc:
            raise ParamsError("rulesets", str(exc)) from None
    entrant = GAME.entrant(body.url)
    if config.public and GAME.reach(entrant).kind == "builtin":
        # The tester is for one's own snake; a public server plays built-ins only in
        # its killable worker processes, and the tester's many games would run them here.
        raise NotAllowedError("url: the tester tests your snake; give its URL")
    await check_entrants(GAME, [entrant], config)
    return entrant.source


def _counted(
    request: Request, config: ServerConfig
) -> contextlib.AbstractAsyncContextManager[Use | None]:
    if not config.public:
        return contextlib.nullcontext()
    return _budget(request, config).in_use(client_key(request), RUNS)


async def _run(
    source: str,
    body: TestRequest,
    config: ServerConfig,
    on_check: Any = None,
    on_scenario: Any = None,
    own: Sequence[Scenario] = (),
) -> TesterReport:
    async with new_http_client(config.outbound()) as http:
        return await run_tester(
            make_client(source, http, body.timeout),
            rulesets=body.rulesets,
            parallel=body.parallel,
            on_check=on_check,
            on_scenario=on_scenario,
            extra=own,
            builtin=not body.only_scenarios,
        )


@router.post("/test")
async def run_tests(
    body: TestRequest, request: Request, principal: UserDep, config: ConfigDep
) -> TesterReportOut:
    """Run the snake tester (health checks and scenarios) and return its report (users).

    The verdict (``passed``) rests on the health checks and the survival scenarios;
    strategy scenarios are a score.
    """
    del principal  # a logged-in user (the local user on a local server)
    source = await _checked(body, config)
    own = await _own_scenarios(body)
    async with _counted(request, config):
        report = await _run(source, body, config, own=own)
    return TesterReportOut.model_validate(report.to_dict())


def _line(event: dict[str, Any]) -> bytes:
    return (json.dumps(event) + "\n").encode()


@router.post(
    "/test/stream",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "One JSON object a line: start, each check, each scenario, the report.",
            "content": {"application/x-ndjson": {"schema": {"type": "string", "format": "binary"}}},
        }
    },
)
async def stream_tests(
    body: TestRequest, request: Request, principal: UserDep, config: ConfigDep
) -> StreamingResponse:
    """Run the snake tester, answering each check and scenario as it completes (users).

    One JSON object a line; the last is ``{"event": "report", "report": ...}``, the
    report ``POST /api/test`` answers.
    """
    del principal
    source = await _checked(body, config)
    own = await _own_scenarios(body)
    total = (0 if body.only_scenarios else len(select_scenarios(body.rulesets))) + len(own)
    budget = _budget(request, config) if config.public else None
    client = client_key(request)
    # Refused now (429) rather than in the middle of a stream.
    use = await budget.begin(client, RUNS) if budget is not None else None
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
    done = 0

    def on_check(check: CheckResult) -> None:
        queue.put_nowait({"event": "check", "check": check.to_dict()})

    def on_scenario(result: ScenarioResult) -> None:
        nonlocal done
        done += 1
        queue.put_nowait(
            {"event": "scenario", "done": done, "scenarios": total, "scenario": result.to_dict()}
        )

    async def work() -> TesterReport:
        try:
            return await _run(source, body, config, on_check, on_scenario, own)
        finally:
            queue.put_nowait(None)

    # The run starts now and, however it ends, ends the user's run in the budget: even
    # when the stream is never read (the client left before it began), so no user is
    # left with a run "going on" for ever.
    task = asyncio.create_task(work())

    def finished(ended: asyncio.Task[TesterReport]) -> None:
        if not ended.cancelled():
            ended.exception()  # retrieved here when no reader awaits it
        if budget is not None and use is not None:
            ending = asyncio.ensure_future(budget.end(use))
            _ENDING.add(ending)
            ending.add_done_callback(_ENDING.discard)

    task.add_done_callback(finished)

    async def events() -> AsyncIterator[bytes]:
        try:
            yield _line({"event": "start", "checks": CHECKS, "scenarios": total})
            while (event := await queue.get()) is not None:
                yield _line(event)
            report = TesterReportOut.model_validate((await task).to_dict())
            yield _line({"event": "report", "report": report.model_dump(mode="json")})
        finally:
            # A reader that went away stops the run: no more calls to its snake.
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    return StreamingResponse(events(), media_type="application/x-ndjson")
