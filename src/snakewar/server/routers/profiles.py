"""Profiles: a snake's page, a user's page, the snake directory and ladder entry pages.

What the profile pages read, each a resource's sub-route: ``GET /api/snakes/directory``
(public snakes, searched and paged), ``GET /api/snakes/{id}/profile`` (a snake's
standing on each ladder, with its rating history and per-game deltas, win rate and
placements, the game's statistics, call latency p50/p95 and health),
``GET /api/users/{name}/profile`` (a user's snakes and bots) and
``GET /api/ladders/{name}/entries/{entrant}`` (one entrant of a ladder).  A snake's and
a user's games are ``GET /api/games?snake=`` and ``?user=``.

Everything here only reads, and shows what the requester may see: someone else's
private snake does not exist for them, and a snake's address stays its owner's.
"""

from __future__ import annotations

from fastapi import APIRouter, Query
from fastapi import Path as PathParam

from snakewar.adapters import get_game
from snakewar.errors import NotFoundError
from snakewar.server.auth import Principal, PrincipalDep
from snakewar.server.deps import StoreDep
from snakewar.server.privacy import hide_sources
from snakewar.server.routers.ladders import scorer_values, scorers_of
from snakewar.server.routers.snakes import snake_out
from snakewar.server.schemas import (
    DirectoryOut,
    HealthOut,
    LadderEntryOut,
    LatencyOut,
    RatingStepOut,
    SnakeProfileOut,
    UserProfileOut,
)
from snakewar.storage import (
    AsyncStore,
    EntryReport,
    SnakeNotFoundError,
    StoredSnake,
)

__all__ = ["entry_out", "router"]

router = APIRouter(tags=["profiles"])

LATENCY_GAMES = 50
"""The recent games a snake's latency is measured over."""

UserName = PathParam(min_length=1, max_length=32, pattern=r"^[a-z0-9][a-z0-9_-]*$")


def entry_out(report: EntryReport) -> LadderEntryOut:
    """A ladder entrant's report as the API shows it."""
    adapter = get_game(report.game)
    scores = report.scores
    rating = None
    if report.mu is not None and report.sigma is not None:
        rating = report.mu - 3.0 * report.sigma
    return LadderEntryOut(
        ladder=report.ladder,
        game=report.game,
        entrant=report.entrant,
        rank=report.rank,
        ranked=report.ranked,
        in_placement=report.in_placement,
        placement_games=report.placement_games,
        placement_left=max(report.placement_games - report.games, 0),
        rating=rating,
        mu=report.mu,
        sigma=report.sigma,
        games=report.games,
        wins=scores.wins,
        win_rate=scores.win_rate,
        placements={str(place): n for place, n in scores.placements.items()},
        stats=scorer_values(scores.stats, adapter),
        scorers=scorers_of(adapter),
        paused=report.paused,
        failure=report.note if report.failures and not report.paused else "",
        history=[
            RatingStepOut(
                number=step.number,
                game_id=step.game_id,
                played_at=step.played_at.isoformat(),
                rating=step.rating,
                mu=step.mu,
                sigma=step.sigma,
                delta=step.delta,
                place=step.place,
                places=step.places,
                won=step.won,
                stats=scorer_values(step.stats, adapter),
                viewer=adapter.viewer_url(step.game_id),
            )
            for step in report.history
        ],
    )


async def _visible(store: AsyncStore, principal: Principal, snake_id: int) -> StoredSnake:
    snake = await store.run(store.store.snakes.get, snake_id)
    if snake.visibility != "public" and not principal.can_change(snake.owner_id):
        raise SnakeNotFoundError(f"no snake with id {snake_id}")
    return snake


def _health(snake: StoredSnake, entries: list[EntryReport]) -> HealthOut:
    """How the snake's ladders' checks and games see it now."""
    if snake.paused:
        return HealthOut(status="paused", detail="paused by its owner")
    paused = [e for e in entries if e.paused]
    if paused:
        note = paused[0].note or "paused"
        return HealthOut(status="paused", detail=f"ladder {paused[0].ladder}: {note}")
    failing = [e for e in entries if e.failures]
    if failing:
        note = failing[0].note or f"{failing[0].failures} failures in a row"
        return HealthOut(status="failing", detail=f"ladder {failing[0].ladder}: {note}")
    if not get_game(snake.game).catalogue().health_checked:
        return HealthOut(status="unchecked", detail="its game's bots are not checked ahead")
    if not entries:
        return HealthOut(status="unchecked", detail="on no ladder: nothing checks it")
    return HealthOut(status="ok", detail="its last games and checks on its ladders passed")


@router.get("/api/snakes/directory", tags=["snakes"])
async def snake_directory(
    principal: PrincipalDep,
    store: StoreDep,
    q: str = Query(
        "", max_length=100, description="Words each found in a name, owner, language or tag."
    ),
    game: str | None = Query(None, max_length=32, description="Only snakes of this game."),
    owner: str | None = Query(
        None, max_length=32, pattern=r"^[a-z0-9][a-z0-9_-]*$", description="Only this user's."
    ),
    limit: int = Query(50, ge=1, le=200),
    offset: int = Query(0, ge=0, le=2**31),
) -> DirectoryOut:
    """Public snakes (and your own), searched, by name: a page from ``offset`` on."""
    found, total = await store.run(
        store.store.snakes.directory,
        principal.id,
        admin=principal.is_admin,
        text=q,
        game=game,
        owner=owner,
        limit=limit,
        offset=offset,
    )
    after = offset + len(found)
    return DirectoryOut(
        snakes=[snake_out(s, principal) for s in found],
        total=total,
        next_offset=after if after < total else None,
    )


@router.get("/api/snakes/{snake_id}/profile", tags=["snakes"])
async def snake_profile(
    principal: PrincipalDep,
    store: StoreDep,
    snake_id: int = PathParam(ge=1, le=2**31 - 1),
) -> SnakeProfileOut:
    """A snake's page: each ladder's rating (history, deltas), win rate, latency, health."""
    snake = await _visible(store, principal, snake_id)
    ref = snake.ref
    profiles = store.store.profiles
    names = await store.run(profiles.entrant_ladders, ref)
    reports = []
    for name in names:
        try:
            reports.append(await store.run(profiles.entry_report, name, ref))
        except NotFoundError:
            continue  # it left the ladder (its games there stay in its games list)
    latency = await store.run(profiles.latencies, ref, LATENCY_GAMES)
    out = SnakeProfileOut(
        snake=snake_out(snake, principal),
        ladders=[entry_out(r) for r in reports],
        latency=LatencyOut(
            games=latency.games,
            calls=latency.calls,
            p50_ms=latency.p50,
            p95_ms=latency.p95,
            timeouts=latency.timeouts,
        ),
        health=_health(snake, reports),
        can_change=principal.can_change(snake.owner_id),
    )
    return hide_sources(out, principal)


@router.get("/api/users/{name}/profile", tags=["accounts"])
async def user_profile(
    principal: PrincipalDep, store: StoreDep, name: str = UserName
) -> UserProfileOut:
    """A user's page: their snakes and program bots that you may see.

    Their games are ``GET /api/games?user=NAME``.
    """
    user = await store.run(store.store.accounts.user, name)
    found, _total = await store.run(
        store.store.snakes.directory,
        principal.id,
        admin=principal.is_admin,
        owner=user.name,
        limit=200,
    )
    visible = [snake_out(s, principal) for s in found]
    return UserProfileOut(
        name=user.name,
        created_at=user.created_at.isoformat(),
        snakes=[s for s in visible if s.kind == "url"],
        bots=[s for s in visible if s.kind != "url"],
    )


# A registered snake's entry is "@owner/name": the path convertor takes its slash.
@router.get("/api/ladders/{name}/entries/{entrant:path}", tags=["ladders"])
async def ladder_entry(
    name: str,
    store: StoreDep,
    entrant: str = PathParam(min_length=1, max_length=100),
) -> LadderEntryOut:
    """One entrant of a ladder: rank or placement, scorers, rating history with deltas."""
    report = await store.run(store.store.profiles.entry_report, name, entrant)
    return entry_out(report)
