"""``/api/ladders``: create ladders of any game, add entrants, run games, read standings.

A run plays in the background on the arena worker (:mod:`snakewar.server.arena`), one
run per ladder at a time; the pages poll the API, so standings and the rating chart
update while games are played.
"""

from __future__ import annotations

from fastapi import APIRouter, Path, Response

from snakewar.arena.config import MatchConfig
from snakewar.arena.ladder import Ladder, LadderEntry, load_ladder
from snakewar.engine.protocol import Entrant
from snakewar.errors import NotFoundError
from snakewar.server.arena import ArenaBusyError
from snakewar.server.auth import AdminDep, NotAllowedError, UserDep
from snakewar.server.deps import ArenaDep, ConfigDep, StoreDep, UploadsDep
from snakewar.server.matches import (
    SNAKE_REF,
    adapter_for,
    check_caps,
    check_entrants,
    programs_for,
    resolve_entrants,
    turn_limit,
)
from snakewar.server.schemas import (
    NO_CONTENT,
    AddEntrant,
    CreateLadder,
    LadderGameOut,
    LadderOut,
    LadderSummaryOut,
    RatingPointOut,
    RunAccepted,
    RunLadder,
    StandingOut,
    request_params,
)
from snakewar.storage import Store

__all__ = ["ladder_out", "router"]

router = APIRouter(prefix="/api/ladders", tags=["ladders"])


def _key(name: str) -> str:
    return f"ladder:{name}"


def _failure(entry: LadderEntry | None) -> str:
    return entry.note if entry is not None and entry.failing and not entry.paused else ""


def ladder_out(ladder: Ladder, running: bool) -> LadderOut:
    """A ladder as the API shows it: standings, history and recent games."""
    adapter = ladder.config.adapter
    standings = []
    rated = set()
    for row in ladder.standings():
        rated.add(row.snake)
        entry = ladder.entries.get(row.snake)
        standings.append(
            StandingOut(
                rank=row.rank,
                snake=row.snake,
                rating=row.display,
                mu=row.rating.mu,
                sigma=row.rating.sigma,
                games=row.games,
                paused=bool(entry and entry.paused),
                note=entry.note if entry else "",
                failure=_failure(entry),
                source=entry.source if entry else "",
            )
        )
    for entry in ladder.entries.values():
        if entry.name not in rated:
            standings.append(
                StandingOut(
                    rank=None,
                    snake=entry.name,
                    rating=None,
                    mu=None,
                    sigma=None,
                    games=0,
                    paused=entry.paused,
                    note=entry.note,
                    failure=_failure(entry),
                    source=entry.source,
                )
            )
    history = {
        snake: [RatingPointOut(game=game, mu=r.mu, sigma=r.sigma) for game, r in points]
        for snake, points in ladder.board.history.entries.items()
    }
    recent = [
        LadderGameOut(
            number=g.number,
            game_id=g.game_id,
            seed=str(g.seed),
            snakes=list(g.seats),
            placement=[list(group) for group in g.placement],
            turns=g.turns,
            viewer=adapter.viewer_url(g.game_id),
        )
        for g in reversed(ladder.recent)
    ]
    return LadderOut(
        name=ladder.name,
        game=ladder.config.game,
        running=running,
        config=ladder.config.to_dict(),
        games_played=ladder.games_played,
        standings=standings,
        history=history,
        recent_games=recent,
    )


@router.get("")
async def list_ladders(store: StoreDep, arena: ArenaDep) -> list[LadderSummaryOut]:
    """Every ladder with its game, size and games played."""
    rows = await store.run(store.store.ladders.summaries)
    return [LadderSummaryOut(**row, running=arena.is_running(_key(row["name"]))) for row in rows]


@router.post("", status_code=201)
async def create_ladder(
    body: CreateLadder, admin: AdminDep, store: StoreDep, config: ConfigDep
) -> LadderOut:
    """Create a ladder (the game's parameters checked now; admins)."""
    del admin
    adapter = adapter_for(body.game)
    params = adapter.parse_params(request_params(body, body.params))
    match = MatchConfig.create(
        adapter.name,
        params,
        game_size=body.game_size,
        timeout_ms=body.timeout,
        max_turns=turn_limit(config, adapter, params, body.max_turns),
    )
    check_caps(config, adapter, body.game_size, match.params, body.timeout)
    ladder = Ladder(body.name, match, body.seed)
    await store.run(store.store.ladders.create, ladder)
    return ladder_out(ladder, False)


@router.post("/{name}/snakes", status_code=201)
async def add_entrant(
    name: str,
    body: AddEntrant,
    principal: UserDep,
    store: StoreDep,
    arena: ArenaDep,
    config: ConfigDep,
    uploads: UploadsDep,
) -> LadderOut:
    """Join a ladder with a registered snake (``@owner/name``: a user's own) or a built-in.

    On a local server any entrant the game takes may join (a URL too).
    """
    if arena.is_running(_key(name)):
        raise ArenaBusyError(f"ladder {name!r} is running; add entrants between runs")
    ladder = await store.run(load_ladder, store.store, name)
    ref = SNAKE_REF.match(body.snake)
    user = principal.user
    if (
        ref is not None
        and config.public
        and not principal.is_admin
        and (user is None or ref[1] != user.name)
    ):
        raise NotAllowedError("snake: a user enters ladders with their own snakes only")
    resolved = await resolve_entrants(
        store,
        principal,
        config,
        ladder.config.adapter,
        [body.snake],
        [body.name] if body.name is not None else [],
        raw_ok=not config.public,
        uploads=uploads,
    )
    entry = ladder.add(resolved.texts[0], resolved.names[0])
    program = resolved.programs.get(0)
    await check_entrants(
        ladder.config.adapter, [Entrant(entry.source, entry.name, program)], config
    )
    await store.run(store.store.ladders.save_entry, name, entry)
    return ladder_out(ladder, False)


@router.get("/{name}")
async def get_ladder(name: str, store: StoreDep, arena: ArenaDep) -> LadderOut:
    """Standings (rating = mu - 3 sigma), rating history and the recent games."""
    ladder = await store.run(load_ladder, store.store, name)
    return ladder_out(ladder, arena.is_running(_key(name)))


@router.delete("/{name}/snakes/{entrant}", status_code=204, responses=NO_CONTENT)
async def remove_entrant(
    name: str,
    principal: UserDep,
    store: StoreDep,
    arena: ArenaDep,
    entrant: str = Path(min_length=1, max_length=100),
) -> Response:
    """Take an entrant off a ladder: a registered snake's owner, or an admin."""
    owner = entrant.split("/", 1)[0] if "/" in entrant else None
    mine = principal.user is not None and owner == principal.user.name
    if not (principal.is_admin or mine):
        raise NotAllowedError(
            f"entrant {entrant!r} is not yours; its owner or an admin may remove it"
        )
    if arena.is_running(_key(name)):
        raise ArenaBusyError(f"ladder {name!r} is running; remove entrants between runs")
    if not await store.run(store.store.ladders.remove_entry, name, entrant):
        raise NotFoundError(f"ladder {name!r} has no entrant {entrant!r}")
    return Response(status_code=204)


@router.delete("/{name}", status_code=204, responses=NO_CONTENT)
async def delete_ladder(name: str, admin: AdminDep, store: StoreDep, arena: ArenaDep) -> Response:
    """Delete a ladder with its standings and history; its games stay (admins)."""
    del admin
    if arena.is_running(_key(name)):
        raise ArenaBusyError(f"ladder {name!r} is running; delete it once the run ends")
    await store.run(store.store.ladders.delete, name)
    return Response(status_code=204)


@router.post("/{name}/run", status_code=202)
async def run_ladder(
    name: str,
    body: RunLadder,
    admin: AdminDep,
    store: StoreDep,
    arena: ArenaDep,
    config: ConfigDep,
    uploads: UploadsDep,
) -> RunAccepted:
    """Play ``games`` more games in the background (400 if no game can be matched; admins)."""
    del admin
    ladder = await store.run(load_ladder, store.store, name)
    ladder.check_playable()  # answered now, not raised later in the background
    target: Store = store.store
    outbound = config.outbound()
    sources = [e.source for e in ladder.entries.values()]
    programs = await programs_for(store, config, uploads, sources)
    arena.submit(
        _key(name),
        lambda: ladder.run(body.games, target, outbound=outbound, programs=programs),
    )
    return RunAccepted(name=name, running=True, games=body.games)
