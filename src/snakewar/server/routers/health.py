"""``/health`` and ``/ready``: what a reverse proxy or an orchestrator asks a replica.

* ``GET /health`` (liveness): the process answers; nothing else is asked, so a slow
  database never gets a working process restarted.
* ``GET /ready`` (readiness): the database answers a trivial query within
  :data:`READY_TIMEOUT_S` and the server is not shutting down; otherwise 503 with what
  failed, so the proxy sends this replica's requests to the others meanwhile.

Both answer the replica's id (its game manager's server id, the one its games' leases
carry), so a client can tell replicas apart without an endpoint that shows anything
of the machine.  No login, no rate limit, and no ``Host`` check: they reveal nothing
and change nothing, and proxies ask them by the replica's address (see
:class:`~snakewar.server.safety.HostCheckMiddleware`'s ``exempt``).
"""

from __future__ import annotations

import asyncio
from typing import Final, Literal

import sqlalchemy as sa
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from snakewar import __version__
from snakewar.storage import AsyncStore, Store

__all__ = ["HEALTH_PATHS", "READY_TIMEOUT_S", "Health", "NotReady", "Ready", "router"]

READY_TIMEOUT_S: Final = 3.0
"""How long ``/ready`` waits for the database's answer before it says it has none."""

HEALTH_PATHS: Final = ("/health", "/ready")
"""The probes' paths (exempt from the ``Host`` check)."""

router = APIRouter(tags=["health"])


class Health(BaseModel):
    """The process answers."""

    status: Literal["ok"] = "ok"
    replica: str = Field(description="This replica's id (its games' leases carry it).")
    version: str


class Ready(BaseModel):
    """The replica can serve: its database answers and it is not shutting down."""

    status: Literal["ready"] = "ready"
    replica: str
    database: str = Field(description="``sqlite`` or ``postgresql``.")


class NotReady(BaseModel):
    """The replica cannot serve now: ``failed`` names each check that failed."""

    status: Literal["unready"] = "unready"
    replica: str
    failed: list[Literal["database", "shutting_down"]]
    detail: str


def _replica(request: Request) -> str:
    manager = getattr(request.app.state, "manager", None)
    return str(getattr(manager, "server_id", "starting"))


def _ping(store: Store) -> None:
    with store.db.session() as session:
        session.execute(sa.text("SELECT 1"))


async def _database_problem(store: AsyncStore | None) -> str | None:
    if store is None:
        return "database: not open yet"
    try:
        await asyncio.wait_for(store.run(_ping, store.store), READY_TIMEOUT_S)
    except TimeoutError:
        return f"database: no answer within {READY_TIMEOUT_S:g} s"
    except Exception as exc:  # any failure of the database is the answer, not a 500
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"database: {first[:200]}"
    return None


@router.get("/health")
async def health(request: Request) -> Health:
    """Liveness: the process answers (asks nothing of the database)."""
    return Health(replica=_replica(request), version=__version__)


@router.get(
    "/ready",
    response_model=Ready,
    responses={503: {"model": NotReady, "description": "Not ready."}},
)
async def ready(request: Request) -> Ready | JSONResponse:
    """Readiness: the database answers a trivial query in time; not shutting down."""
    failed: list[Literal["database", "shutting_down"]] = []
    problems = []
    if getattr(request.app.state, "draining", False):
        failed.append("shutting_down")
        problems.append("the server is shutting down")
    store: AsyncStore | None = getattr(request.app.state, "store", None)
    problem = await _database_problem(store)
    if problem is not None:
        failed.append("database")
        problems.append(problem)
    if failed:
        refusal = NotReady(replica=_replica(request), failed=failed, detail="; ".join(problems))
        return JSONResponse(refusal.model_dump(), status_code=503)
    assert store is not None
    return Ready(replica=_replica(request), database=store.store.dialect)
