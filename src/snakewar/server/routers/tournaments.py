"""``/api/tournaments``: create, edit and start tournaments of any game, follow the bracket.

A tournament is started at once, or made to be started later (``"start": false``): until
an admin starts it (``POST .../run``) its name and entrants may change.  It plays on the
arena worker (:mod:`snakewar.server.arena`), its games as the server's live games, and
each match in the API names its game being played now, to watch it live.  An admin
stops a run (``POST .../stop``) and plays it on later; of several servers sharing a
database exactly one plays it, and one resumes it after a crash
(:mod:`snakewar.server.runs`).  A tournament refused (a full arena) is never stored.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse

from snakewar.arena.config import MatchConfig
from snakewar.arena.tournament_runner import TournamentRun, TournamentRunError, load_tournament
from snakewar.arena.tournaments import FORMAT_TITLES, MatchStatus
from snakewar.engine.protocol import Entrant
from snakewar.errors import ConflictError, EntrantError, OverLimitError, SnakewarError
from snakewar.referee.uploads import UploadCache
from snakewar.server.arena import ArenaBusyError, LiveExecutor, RunProgress, RunSlot
from snakewar.server.auth import AdminDep, Principal, PrincipalDep
from snakewar.server.config import ServerConfig
from snakewar.server.deps import ConfigDep, ManagerDep, RunsDep, StoreDep, UploadsDep
from snakewar.server.manager import GameManager
from snakewar.server.matches import (
    adapter_for,
    check_caps,
    check_entrants,
    programs_for,
    resolve_entrants,
    turn_limit,
)
from snakewar.server.privacy import hide_sources
from snakewar.server.routers.ladders import run_out
from snakewar.server.runs import RunKeeper, RunView, report_failed
from snakewar.server.schemas import (
    NO_CONTENT,
    CreateTournament,
    LiveGameOut,
    TournamentOut,
    TournamentSummaryOut,
    UpdateTournament,
)
from snakewar.storage import ArenaRun, ArenaRunState, AsyncStore, Store

__all__ = ["record_unrecorded", "resumer", "router", "start_run", "tournament_out"]

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"])


def _key(tid: str) -> str:
    return f"tournament:{tid}"


def _page(tid: str) -> str:
    return f"/tournaments/{tid}"


def _check_size(run: TournamentRun, config: ServerConfig) -> None:
    """Refuse a tournament that could play more games than this server allows."""
    t = run.tournament
    matches = len(t.matches)
    if t.config.swiss_rounds is not None:
        # Swiss pairs its rounds as it goes: the first round, as many times as rounds.
        matches *= t.config.swiss_rounds
    most = matches * t.config.best_of
    if most > config.max_tournament_games:
        raise OverLimitError(
            f"snakes: this tournament plays up to {most} games ({matches} matches, best of "
            f"{t.config.best_of}); this server allows {config.max_tournament_games}"
        )


def tournament_out(run: TournamentRun, running: bool) -> TournamentOut:
    """A tournament as the API shows it (its export, with exact seeds)."""
    data: dict[str, Any] = run.export()
    data["seed"] = str(data["seed"])
    for match in data["matches"]:
        for game in match["games"]:
            game["seed"] = str(game["seed"])
    return TournamentOut.model_validate(
        {
            **data,
            "running": running,
            "page": _page(run.id),
            "format_title": FORMAT_TITLES.get(run.tournament.format, run.tournament.format),
            "started": run.started,
        }
    )


async def _tournament_out(
    run: TournamentRun, runs: RunKeeper, manager: GameManager
) -> TournamentOut:
    """:func:`tournament_out` with the latest run and each match's game being played now."""
    return _with_run(run, await runs.view(_key(run.id)), manager)


def _with_run(run: TournamentRun, view: RunView | None, manager: GameManager) -> TournamentOut:
    out = tournament_out(run, view is not None and view.running)
    out.run = run_out(view)
    if out.running:
        adapter = run.config.adapter
        for match in out.matches:
            if match.status is not MatchStatus.PENDING:
                continue
            # A run names each game from the bracket: the next game of a pending match
            # is the one being played, if this server is playing it.
            live = manager.games.get(run.next_game_id(match.id))
            if live is not None and not live.finished:
                match.playing = LiveGameOut(game_id=live.id, viewer=adapter.viewer_url(live.id))
    return out


async def _entrants(
    store: AsyncStore,
    admin: Principal,
    config: ServerConfig,
    uploads: UploadCache,
    game: str | None,
    snakes: list[str],
    names: list[str],
    names_field: str = "names",
) -> tuple[list[tuple[str, str | None]], dict[str, Any]]:
    """The entrants a request names, looked up: ``(text, name)`` pairs and programs by text."""
    if len(names) > len(snakes):
        raise OverLimitError(f"{names_field}: {len(names)} given for {len(snakes)}")
    resolved = await resolve_entrants(
        store,
        admin,
        config,
        adapter_for(game),
        snakes,
        names,
        raw_ok=not config.public,
        uploads=uploads,
        names_field=names_field,
    )
    pairs = list(zip(resolved.texts, resolved.names, strict=True))
    programs = {resolved.texts[i]: program for i, program in resolved.programs.items()}
    return pairs, programs


async def _check(run: TournamentRun, config: ServerConfig, programs: dict[str, Any]) -> None:
    """Refuse a tournament past this server's caps, or with entrants it never plays."""
    _check_size(run, config)
    match = run.config
    check_caps(config, match.adapter, match.game_size, match.params, match.timeout_ms)
    entrants = [Entrant(s, name, programs.get(s)) for name, s in run.snakes.items()]
    await check_entrants(match.adapter, entrants, config)


@router.post("", status_code=201)
async def create_tournament(
    body: CreateTournament,
    admin: AdminDep,
    store: StoreDep,
    runs: RunsDep,
    config: ConfigDep,
    uploads: UploadsDep,
    manager: ManagerDep,
) -> TournamentOut:
    """Create a tournament and start playing it in the background, or later (admins).

    Entrants are built-in bots and registered snakes (``@owner/name``); a local server
    also takes anything the game does.  With ``"start": false`` it waits for
    ``POST /api/tournaments/{id}/run``, and its name and entrants may change until then
    (``PATCH``).  Refused because the arena is full (429), it is not stored.
    """
    pairs, programs = await _entrants(
        store, admin, config, uploads, body.game, body.snakes, body.names
    )
    adapter = adapter_for(body.game)
    params = adapter.parse_params(body.params)
    match = MatchConfig.create(
        adapter.name,
        params,
        game_size=body.heat_size,
        timeout_ms=body.timeout,
        max_turns=turn_limit(config, adapter, params, body.max_turns),
    )
    run = TournamentRun.create(
        body.name,
        body.format,
        pairs,
        config=match,
        seed=body.seed,
        heat_size=body.heat_size,
        best_of=body.best_of,
    )
    run.started = body.start
    await _check(run, config, programs)
    if not body.start:
        await store.run(store.store.tournaments.create, run)
        return await _tournament_out(run, runs, manager)
    # Its place in the arena first: refused, nothing is stored.
    with runs.reserve(_key(run.id)) as slot:
        await store.run(store.store.tournaments.create, run)
        try:
            await start_run(run, slot, store, runs, config, uploads, manager)
        except BaseException:
            with contextlib.suppress(Exception):
                await store.run(store.store.tournaments.delete, run.id)
            raise
    return await _tournament_out(run, runs, manager)


@router.get("")
async def list_tournaments(store: StoreDep, runs: RunsDep) -> list[TournamentSummaryOut]:
    """Every tournament: its game, format, entrants, and whether it is decided, oldest first."""
    found = []
    listed = await store.run(store.store.tournaments.list_all)
    views = await runs.views([_key(tid) for tid, _ in listed])
    for tid, name in listed:
        try:
            run = await store.run(store.store.tournaments.get, tid)
        except SnakewarError as exc:
            # One broken bracket must not hide every other tournament.
            found.append(
                TournamentSummaryOut(
                    id=tid, name=name, page=_page(tid), running=False, error=str(exc)[:500]
                )
            )
            continue
        if run is None:  # deleted since it was listed
            continue
        t = run.tournament
        view = views.get(_key(tid))
        found.append(
            TournamentSummaryOut(
                id=tid,
                name=run.name,
                page=_page(tid),
                running=view is not None and view.running,
                game=run.config.game,
                format=t.format,
                format_title=FORMAT_TITLES.get(t.format, t.format),
                entrants=len(run.snakes),
                started=run.started,
                finished=t.is_finished,
                champion=t.champion,
            )
        )
    return found


@router.get("/{tid}")
async def get_tournament(
    tid: str, principal: PrincipalDep, store: StoreDep, runs: RunsDep, manager: ManagerDep
) -> TournamentOut:
    """Standings, champion and every match with its games (the bracket).

    While it plays, a match's ``playing`` is its game being played now (to watch live).
    An entrant's address (``snakes[].source``) is shown to its owner and admins only.
    """
    run = await store.run(load_tournament, store.store, tid)
    return hide_sources(await _tournament_out(run, runs, manager), principal)


@router.patch("/{tid}")
async def update_tournament(
    tid: str,
    body: UpdateTournament,
    admin: AdminDep,
    store: StoreDep,
    runs: RunsDep,
    config: ConfigDep,
    uploads: UploadsDep,
    manager: ManagerDep,
) -> TournamentOut:
    """Rename a tournament, or change its entrants, before it starts (admins).

    Refused (409) once it has started: its games are played by the entrants it had.
    """
    run = await store.run(load_tournament, store.store, tid)
    if run.started or await runs.is_running(_key(tid)):
        raise ConflictError(f"tournament {tid!r} has started; its name and entrants are fixed now")
    t = run.tournament.config
    name = body.name if body.name is not None else run.name
    for i, gone in enumerate(body.remove):
        if gone not in run.snakes:
            raise EntrantError(f"remove[{i}]: tournament {tid!r} has no entrant {gone[:80]!r}")
    # Entrants that stay keep their stored source: they were checked when they joined.
    kept: list[tuple[str, str | None]] = [
        (source, entrant) for entrant, source in run.snakes.items() if entrant not in body.remove
    ]
    added, programs = await _entrants(
        store, admin, config, uploads, run.config.game, body.add, body.add_names, "add_names"
    )
    # Program bots that stay are looked up again, as every run does.
    programs.update(await programs_for(store, config, uploads, [s for s, _ in kept]))
    changed = TournamentRun.create(
        name,
        run.tournament.format,
        [*kept, *added],
        config=run.config,
        seed=run.seed,
        heat_size=t.heat_size,
        best_of=t.best_of,
        advance=t.advance,
        grand_final_reset=t.grand_final_reset,
        tid=run.id,
    )
    changed.started = False
    await _check(changed, config, programs)
    await store.run(store.store.tournaments.replace_unstarted, changed)
    return await _tournament_out(changed, runs, manager)


@router.get("/{tid}/export", responses={200: {"model": TournamentOut}})
async def export_tournament(tid: str, principal: PrincipalDep, store: StoreDep) -> JSONResponse:
    """The results as a JSON file (addresses for their owners and admins only)."""
    run = await store.run(load_tournament, store.store, tid)
    return JSONResponse(
        hide_sources(run.export(), principal),
        headers={"Content-Disposition": f'attachment; filename="{tid}.json"'},
    )


@router.delete("/{tid}", status_code=204, responses=NO_CONTENT)
async def delete_tournament(tid: str, admin: AdminDep, store: StoreDep, runs: RunsDep) -> Response:
    """Delete a tournament and its bracket; its games stay (admins)."""
    del admin
    if await runs.is_running(_key(tid)):
        raise ArenaBusyError(
            f"tournament {tid!r} is running; stop it (POST .../stop), then delete it"
        )
    await store.run(store.store.tournaments.delete, tid)
    runs.arena.forget(_key(tid))
    return Response(status_code=204)


async def start_run(
    run: TournamentRun,
    slot: RunSlot,
    store: AsyncStore,
    runs: RunKeeper,
    config: ServerConfig,
    uploads: UploadCache,
    manager: GameManager,
    *,
    resumed: bool = False,
) -> RunProgress:
    """Play ``run`` (to its end) on the arena worker, its program bots resolved now.

    Its games are ``manager``'s live games; the run counts them in its progress.

    Raises:
        ArenaBusyError: another server plays it (unless ``resumed``: taken over already).
    """
    programs = await programs_for(store, config, uploads, run.snakes.values())
    target: Store = store.store
    outbound = config.outbound()
    executor = LiveExecutor(manager, asyncio.get_running_loop())
    progress = RunProgress()

    def play() -> None:
        run.run(
            target,
            executor,
            on_step=lambda _, played: progress.played(played),
            outbound=outbound,
            programs=programs,
            should_stop=progress.should_stop,
        )
        progress.complete = run.is_finished

    return await runs.launch(slot, "tournament", run.id, play, progress, executor, resumed=resumed)


@router.post("/{tid}/run", status_code=202)
async def run_tournament(
    tid: str,
    admin: AdminDep,
    store: StoreDep,
    runs: RunsDep,
    config: ConfigDep,
    uploads: UploadsDep,
    manager: ManagerDep,
) -> TournamentOut:
    """Start a tournament made to start later, or play an unfinished one on (admins).

    A run that stopped (an admin's stop, an entrant that did not answer, a crash) goes
    on from its recorded games and plays exactly the games a straight run would.
    Refused (409) while a server plays it, (429) while the arena is full.
    """
    del admin
    run = await store.run(load_tournament, store.store, tid)
    if run.is_finished:
        raise TournamentRunError(f"tournament {tid!r} is finished; nothing to play")
    with runs.reserve(_key(tid)) as slot:
        if not run.started:
            await store.run(store.store.tournaments.mark_started, tid)
            run.started = True
        await start_run(run, slot, store, runs, config, uploads, manager)
    return await _tournament_out(run, runs, manager)


@router.post("/{tid}/stop", status_code=202)
async def stop_tournament(
    tid: str, admin: AdminDep, store: StoreDep, runs: RunsDep, manager: ManagerDep
) -> TournamentOut:
    """Stop a tournament's run: its games in flight are cancelled (admins).

    Whichever server plays it stops it (this one at once, another when it next renews its
    lease: ``run.state`` is ``stopping`` until then).  Its recorded games stay; ``POST
    .../run`` plays it on, the cancelled games again from their start.  409 if it is not
    running.
    """
    del admin
    run = await store.run(load_tournament, store.store, tid)
    await runs.stop(_key(tid))
    return await _tournament_out(run, runs, manager)


async def record_unrecorded(store: AsyncStore) -> list[str]:
    """Record a run for each tournament played before runs were recorded; their ids.

    An unfinished one that was started (a crash stopped it, or the command line played
    into this database) becomes a ``running`` run that nobody plays, so that exactly one
    server resumes it; a finished one a ``done`` run (it is not looked at again); one
    that cannot be loaded a ``failed`` run, with the reason.
    """
    runs = store.store.runs
    known = await store.run(runs.keys, "tournament")
    recorded = []
    for tid, _ in await store.run(store.store.tournaments.list_all):
        key = _key(tid)
        if key in known:
            continue
        try:
            run = await store.run(load_tournament, store.store, tid)
        except Exception as exc:  # a broken bracket: marked, reported, not fatal
            reason = f"cannot be loaded: {exc}"
            await store.run(runs.ensure, key, "tournament", tid, ArenaRunState.FAILED, reason)
            report_failed("tournament", tid, reason)
            recorded.append(tid)
            continue
        if run.is_finished:
            await store.run(runs.ensure, key, "tournament", tid, ArenaRunState.DONE)
        elif run.started:
            await store.run(runs.ensure, key, "tournament", tid, ArenaRunState.RUNNING)
        else:
            continue  # it waits for its admin
        recorded.append(tid)
    return recorded


def resumer(
    store: AsyncStore,
    runs: RunKeeper,
    config: ServerConfig,
    uploads: UploadCache,
    manager: GameManager,
) -> Callable[[RunSlot, ArenaRun], Awaitable[None]]:
    """What plays on a tournament whose server is gone (:meth:`RunKeeper.on_resume`)."""

    async def resume(slot: RunSlot, row: ArenaRun) -> None:
        run = await store.run(load_tournament, store.store, row.target)
        if run.is_finished:
            await runs.finish(row.key, ArenaRunState.DONE, row.done)
            return
        await start_run(run, slot, store, runs, config, uploads, manager, resumed=True)

    return resume
