"""The snake tester's API (the ``/test`` page calls it)."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, ConfigDict, Field

from snakewar.server.deps import ManagerDep, PublicDep

__all__ = ["TestRequest", "router"]

router = APIRouter(tags=["tester"])


class TestRequest(BaseModel):
    """A snake to test."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, max_length=2048, description="URL, builtin:NAME or legacy:URL")
    timeout: int = Field(500, ge=1, le=10_000)


@router.post("/api/test")
async def run_tests(body: TestRequest, manager: ManagerDep, public: PublicDep) -> dict[str, Any]:
    """Run the snake tester (health checks and scenarios) and return its report."""
    from snakewar.referee.runner import make_client, snake_kind
    from snakewar.server.safety import check_public_url
    from snakewar.tester import run_tester

    kind, target = snake_kind(body.url)
    if public and kind != "builtin":
        await check_public_url(target)
    http = manager._http
    if http is None:
        raise HTTPException(503, "server is starting")
    client = make_client(body.url, http, body.timeout)
    report = await run_tester(client)
    data: dict[str, Any] = json.loads(json.dumps(report.to_dict()))
    return data
