"""``/api/ladders``: create ladders of any game, add entrants, run games, read standings.

A run plays in the background on the arena worker (:mod:`snakewar.server.arena`), one
run per ladder at a time; the pages poll the API, so standings and the rating chart
update while games are played.
"""

from __future__ import annotations

from fastapi import APIRouter

from snakewar.arena.config import MatchConfig
from snakewar.arena.ladder import Ladder, load_ladder
from snakewar.engine.protocol import Entrant
from snakewar.server.arena import ArenaBusyError
from snakewar.server.deps import ArenaDep, ConfigDep, StoreDep
from snakewar.server.matches import check_entrants
from snakewar.server.schemas import (
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
async def create_ladder(body: CreateLadder, store: StoreDep, config: ConfigDep) -> LadderOut:
    """Create a ladder (the game's parameters checked now)."""
    match = MatchConfig.create(
        body.game,
        request_params(body, body.params),
        game_size=body.game_size,
        timeout_ms=body.timeout,
        max_turns=min(body.max_turns or config.max_turns, config.max_turns),
    )
    ladder = Ladder(body.name, match, body.seed)
    await store.run(store.store.ladders.create, ladder)
    return ladder_out(ladder, False)


@router.post("/{name}/snakes", status_code=201)
async def add_entrant(
    name: str, body: AddEntrant, store: StoreDep, arena: ArenaDep, config: ConfigDep
) -> LadderOut:
    """Add an entrant (what the ladder's game takes; public servers refuse private addresses)."""
    if arena.is_running(_key(name)):
        raise ArenaBusyError(f"ladder {name!r} is running; add entrants between runs")
    ladder = await store.run(load_ladder, store.store, name)
    entry = ladder.add(body.snake, body.name)
    await check_entrants(ladder.config.adapter, [Entrant(entry.source, entry.name)], config)
    await store.run(store.store.ladders.save_entry, name, entry)
    return ladder_out(ladder, False)


@router.get("/{name}")
async def get_ladder(name: str, store: StoreDep, arena: ArenaDep) -> LadderOut:
    """Standings (rating = mu - 3 sigma), rating history and the recent games."""
    ladder = await store.run(load_ladder, store.store, name)
    return ladder_out(ladder, arena.is_running(_key(name)))


@router.post("/{name}/run", status_code=202)
async def run_ladder(name: str, body: RunLadder, store: StoreDep, arena: ArenaDep) -> RunAccepted:
    """Play ``games`` more games in the background (400 if no game can be matched)."""
    ladder = await store.run(load_ladder, store.store, name)
    ladder.check_playable()  # answered now, not raised later in the background
    target: Store = store.store
    arena.submit(_key(name), lambda: ladder.run(body.games, target))
    return RunAccepted(name=name, running=True, games=body.games)
