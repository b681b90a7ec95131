"""``/api/tournaments``: create tournaments of any game, play them, read the bracket."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse

from snakewar.arena.config import MatchConfig
from snakewar.arena.tournament_runner import TournamentRun, TournamentRunError, load_tournament
from snakewar.engine.protocol import Entrant
from snakewar.errors import OverLimitError
from snakewar.referee.uploads import UploadCache
from snakewar.server.arena import ArenaBusyError, ArenaWorker
from snakewar.server.auth import AdminDep
from snakewar.server.config import ServerConfig
from snakewar.server.deps import ArenaDep, ConfigDep, StoreDep, UploadsDep
from snakewar.server.matches import (
    adapter_for,
    check_caps,
    check_entrants,
    programs_for,
    resolve_entrants,
    turn_limit,
)
from snakewar.server.schemas import (
    NO_CONTENT,
    CreateTournament,
    TournamentOut,
    TournamentSummaryOut,
    request_params,
)
from snakewar.storage import AsyncStore, Store

__all__ = ["resume_unfinished", "router", "start_run", "tournament_out"]

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"])


def _key(tid: str) -> str:
    return f"tournament:{tid}"


def _page(tid: str) -> str:
    return f"/tournaments/{tid}"


def _check_size(run: TournamentRun, config: ServerConfig) -> None:
    """Refuse a tournament that could play more games than this server allows."""
    t = run.tournament
    matches = len(t.matches)
    if t.format == "swiss":
        # Swiss pairs its rounds as it goes: the first round, as many times as rounds.
        matches *= int(t.config.get("swiss_rounds") or 1)
    most = matches * int(t.config["best_of"])
    if most > config.max_tournament_games:
        raise OverLimitError(
            f"snakes: this tournament plays up to {most} games ({matches} matches, best of "
            f"{t.config['best_of']}); this server allows {config.max_tournament_games}"
        )


def tournament_out(run: TournamentRun, running: bool) -> TournamentOut:
    """A tournament as the API shows it (its export, with exact seeds)."""
    data: dict[str, Any] = run.export()
    data["seed"] = str(data["seed"])
    for match in data["matches"]:
        for game in match["games"]:
            game["seed"] = str(game["seed"])
    return TournamentOut.model_validate({**data, "running": running, "page": _page(run.id)})


@router.post("", status_code=201)
async def create_tournament(
    body: CreateTournament,
    admin: AdminDep,
    store: StoreDep,
    arena: ArenaDep,
    config: ConfigDep,
    uploads: UploadsDep,
) -> TournamentOut:
    """Create a tournament and start playing it in the background (admins).

    Entrants are built-in bots and registered snakes (``@owner/name``); a local server
    also takes anything the game does.
    """
    if len(body.names) > len(body.snakes):
        raise OverLimitError(f"names: {len(body.names)} given for {len(body.snakes)}")
    resolved = await resolve_entrants(
        store,
        admin,
        config,
        adapter_for(body.game),
        body.snakes,
        body.names,
        raw_ok=not config.public,
        uploads=uploads,
    )
    adapter = adapter_for(body.game)
    params = adapter.parse_params(request_params(body, body.params))
    match = MatchConfig.create(
        adapter.name,
        params,
        game_size=body.heat_size,
        timeout_ms=body.timeout,
        max_turns=turn_limit(config, adapter, params, body.max_turns),
    )
    pairs = list(zip(resolved.texts, resolved.names, strict=True))
    programs = {resolved.texts[i]: program for i, program in resolved.programs.items()}
    run = TournamentRun.create(
        body.name,
        body.format,
        pairs,
        config=match,
        seed=body.seed,
        heat_size=body.heat_size,
        best_of=body.best_of,
    )
    _check_size(run, config)
    check_caps(config, adapter, body.heat_size, match.params, body.timeout)
    entrants = [Entrant(s, name, programs.get(s)) for name, s in run.snakes.items()]
    await check_entrants(match.adapter, entrants, config)
    await store.run(store.store.tournaments.create, run)
    await start_run(run, store, arena, config, uploads)
    return tournament_out(run, True)


@router.get("")
async def list_tournaments(store: StoreDep, arena: ArenaDep) -> list[TournamentSummaryOut]:
    """Every tournament's id and name, oldest first."""
    rows = await store.run(store.store.tournaments.list_all)
    return [
        TournamentSummaryOut(
            id=tid, name=name, page=_page(tid), running=arena.is_running(_key(tid))
        )
        for tid, name in rows
    ]


@router.get("/{tid}")
async def get_tournament(tid: str, store: StoreDep, arena: ArenaDep) -> TournamentOut:
    """Standings, champion and every match with its games (the bracket)."""
    run = await store.run(load_tournament, store.store, tid)
    return tournament_out(run, arena.is_running(_key(tid)))


@router.get("/{tid}/export", responses={200: {"model": TournamentOut}})
async def export_tournament(tid: str, store: StoreDep) -> JSONResponse:
    """The results as a JSON file."""
    run = await store.run(load_tournament, store.store, tid)
    return JSONResponse(
        run.export(), headers={"Content-Disposition": f'attachment; filename="{tid}.json"'}
    )


@router.delete("/{tid}", status_code=204, responses=NO_CONTENT)
async def delete_tournament(
    tid: str, admin: AdminDep, store: StoreDep, arena: ArenaDep
) -> Response:
    """Delete a tournament and its bracket; its games stay (admins)."""
    del admin
    if arena.is_running(_key(tid)):
        raise ArenaBusyError(f"tournament {tid!r} is running; delete it once the run ends")
    await store.run(store.store.tournaments.delete, tid)
    return Response(status_code=204)


async def start_run(
    run: TournamentRun,
    store: AsyncStore,
    arena: ArenaWorker,
    config: ServerConfig,
    uploads: UploadCache,
) -> None:
    """Play ``run`` (to its end) on the arena worker, its program bots resolved now."""
    programs = await programs_for(store, config, uploads, run.snakes.values())
    target: Store = store.store
    outbound = config.outbound()
    arena.submit(_key(run.id), lambda: run.run(target, outbound=outbound, programs=programs))


@router.post("/{tid}/run", status_code=202)
async def resume_tournament(
    tid: str,
    admin: AdminDep,
    store: StoreDep,
    arena: ArenaDep,
    config: ConfigDep,
    uploads: UploadsDep,
) -> TournamentOut:
    """Play an unfinished tournament on (after a crash, or a run that stopped; admins).

    It goes on from its recorded games and plays exactly the games a straight run would.
    """
    del admin
    run = await store.run(load_tournament, store.store, tid)
    if run.is_finished:
        raise TournamentRunError(f"tournament {tid!r} is finished; nothing to play")
    await start_run(run, store, arena, config, uploads)
    return tournament_out(run, True)


async def resume_unfinished(
    store: AsyncStore, arena: ArenaWorker, config: ServerConfig, uploads: UploadCache
) -> list[str]:
    """At start-up: play on every unfinished tournament (a crash stopped it); their ids."""
    resumed = []
    for tid, _ in await store.run(store.store.tournaments.list_all):
        run = await store.run(load_tournament, store.store, tid)
        if not run.is_finished and not arena.is_running(_key(tid)):
            await start_run(run, store, arena, config, uploads)
            resumed.append(tid)
    return resumed
