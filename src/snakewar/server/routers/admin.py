"""``/api/admin/dashboard``: what an operator watches (admins): the admin dashboard's data.

Games by status (stored, and live on this replica), the queues and workers, the
runner, who schedules the continuous ladders, recent failed games with their reason,
recent bot errors, recent sign-ups, the notifications' outbox, and the space the
database takes.  The page ``/admin/dashboard`` draws it (``pages/admin_dashboard.js``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict
from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from snakewar.server.auth import AdminDep
from snakewar.server.deps import ArenaDep, ConfigDep, ManagerDep, SchedulerDep, StoreDep
from snakewar.storage.operations import OperationsQueries

__all__ = ["DashboardOut", "router"]

router = APIRouter(prefix="/api/admin", tags=["operations"])

RECENT = 20
"""Rows of each recent list."""


class LiveOut(BaseModel):
    """This replica's games and workers now."""

    runner: Literal["local", "ray"] = Field(description="Where its games are played.")
    running: int = Field(description="Games this replica started that are being played.")
    max_concurrent: int
    paused: int = Field(description="Of those, paused (step mode).")
    builtin_workers_in_use: int
    builtin_workers: int
    arena_runs: int = Field(description="Ladder and tournament runs taken here, not finished.")
    max_arena_runs: int
    arena_workers: int


class QueueOut(BaseModel):
    """Work waiting on this replica."""

    builtin_workers: int = Field(description="Arena games waiting for built-in bot workers.")
    arena_runs_waiting: int = Field(description="Runs taken but waiting for an arena thread.")


class SchedulerOut(BaseModel):
    """Who schedules the continuous ladders (the database's word)."""

    holder: str | None
    here: bool


class FailedGameOut(BaseModel):
    """A game that ended by an error, with the reason stored."""

    id: str
    game: str
    title: str
    reason: str
    at: dt.datetime


class BotErrorOut(BaseModel):
    """The first line of a bot's error log in a recent game."""

    game_id: str
    game: str
    seat: int
    text: str
    at: dt.datetime


class SignUpOut(BaseModel):
    """A recent account."""

    name: str
    role: str
    disabled: bool
    created_at: dt.datetime


class DiskOut(BaseModel):
    """Space taken (``database_bytes`` is ``None`` for a database in memory)."""

    database: str = Field(description="``sqlite`` or ``postgresql``.")
    database_bytes: int | None
    replay_bytes: int = Field(description="Replay files of games stored whole.")
    archive_bytes: int = Field(description="Uploaded bots' archives.")
    games: int
    frames: int


class DashboardOut(BaseModel):
    """The admin dashboard."""

    replica: str = Field(description="The replica that answered (the others have their own).")
    games_by_status: dict[str, int] = Field(description="Stored games by status.")
    live: LiveOut
    queue: QueueOut
    scheduler: SchedulerOut
    failed_games: list[FailedGameOut]
    bot_errors: list[BotErrorOut]
    sign_ups: list[SignUpOut]
    notifications: dict[str, int] = Field(description="Notifications by state.")
    disk: DiskOut


@router.get("/dashboard")
async def dashboard(
    admin: AdminDep,
    request: Request,
    store: StoreDep,
    manager: ManagerDep,
    arena: ArenaDep,
    scheduler: SchedulerDep,
    config: ConfigDep,
) -> DashboardOut:
    """Games, queues, workers, errors, sign-ups and space used (admins)."""
    del admin
    queries = OperationsQueries(store.store.db)
    by_status = await store.run(queries.games_by_status)
    failed = await store.run(queries.failed_games, RECENT)
    errors = await store.run(queries.bot_errors, RECENT)
    signups = await store.run(queries.sign_ups, RECENT)
    disk = await store.run(queries.disk_use)
    notifier = request.app.state.notifier
    outbox = await store.run(notifier.repo.counts)
    view = await scheduler.view()
    live = [g for g in manager.live_games() if not g.finished]
    runs = len(arena.running())
    return DashboardOut(
        replica=manager.server_id,
        games_by_status=by_status,
        live=LiveOut(
            runner="ray" if manager.runner.remote else "local",
            running=manager.running,
            max_concurrent=manager.max_concurrent,
            paused=sum(1 for g in live if g.paused),
            builtin_workers_in_use=manager.builtin_in_use(),
            builtin_workers=manager.builtin_workers,
            arena_runs=runs,
            max_arena_runs=arena.max_runs,
            arena_workers=config.arena_workers,
        ),
        queue=QueueOut(
            builtin_workers=manager.builtin_waiting,
            arena_runs_waiting=max(0, runs - config.arena_workers),
        ),
        scheduler=SchedulerOut(holder=view.holder, here=view.here),
        failed_games=[FailedGameOut(**asdict(f)) for f in failed],
        bot_errors=[BotErrorOut(**asdict(e)) for e in errors],
        sign_ups=[SignUpOut(**asdict(s)) for s in signups],
        notifications=outbox,
        disk=DiskOut(database=store.store.dialect, **asdict(disk)),
    )
