"""``/api/tournaments``: create, enter, edit and start tournaments of any game, follow them.

A tournament is started at once, or made to be started later (``"start": false``): until
it starts its name, settings and entrants may change (``PATCH``; refused with 409 once
it started).  People enter it themselves while its registration lets them
(``POST .../entrants``: ``open``: every user, their own snakes; ``owner``: the snakes of
its creator and of admins; ``closed``: only admins enter snakes), until its deadline,
under its caps (in all, and per owner); an admin may instead take its entrants from a
ladder's top N with a per-owner cap (``POST .../qualify``).  It is played to its end
(``POST .../run``), a round at a time (``POST .../round``), or by the tournament
scheduler from its start time (:mod:`snakewar.server.tournament_scheduler`).  It plays
on the arena worker (:mod:`snakewar.server.arena`), its games as the server's live
games, and each match in the API names its game being played now, to watch it live.
An admin stops a run (``POST .../stop``) and plays it on later; of several servers
sharing a database exactly one plays it, and one resumes it after a crash
(:mod:`snakewar.server.runs`).  A tournament refused (a full arena) is never stored.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Path, Response
from fastapi.responses import JSONResponse

from snakewar.arena.config import MatchConfig
from snakewar.arena.tournament_runner import TournamentRun, TournamentRunError, load_tournament
from snakewar.arena.tournaments import FORMAT_TITLES, MatchStatus
from snakewar.engine.protocol import Entrant
from snakewar.errors import (
    ConflictError,
    EntrantError,
    NotFoundError,
    OverLimitError,
    ParamsError,
    SnakewarError,
)
from snakewar.referee.uploads import UploadCache
from snakewar.server.arena import ArenaBusyError, RunSlot
from snakewar.server.auth import AdminDep, NotAllowedError, Principal, PrincipalDep, UserDep
from snakewar.server.config import ServerConfig
from snakewar.server.deps import (
    ConfigDep,
    ManagerDep,
    RunsDep,
    StoreDep,
    TournamentSchedulerDep,
    UploadsDep,
)
from snakewar.server.manager import GameManager
from snakewar.server.matches import (
    adapter_for,
    check_entrants,
    programs_for,
    resolve_entrants,
    turn_limit,
)
from snakewar.server.patterns import snake_ref_owner
from snakewar.server.privacy import hide_sources
from snakewar.server.routers.ladders import run_out
from snakewar.server.runs import RunKeeper, RunView, report_failed
from snakewar.server.schemas import (
    NO_CONTENT,
    CreateTournament,
    LiveGameOut,
    NextRoundOut,
    QualifierOut,
    QualifyTournament,
    RegisterEntrant,
    RegistrationOut,
    TournamentOut,
    TournamentPhase,
    TournamentSummaryOut,
    UpdateTournament,
)
from snakewar.server.tournament_scheduler import (
    TournamentScheduler,
    check_run,
    qualified_run,
    run_key,
    start_round,
    start_run,
)
from snakewar.storage import ArenaRun, ArenaRunState, AsyncStore
from snakewar.storage.tournaments import Qualifier, TournamentSettings

__all__ = ["record_unrecorded", "resumer", "router", "start_run", "tournament_out"]

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"])


def _key(tid: str) -> str:
    return run_key(tid)


def _page(tid: str) -> str:
    return f"/tournaments/{tid}"


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


def phase_of(
    *, started: bool, finished: bool, running: bool, settings: TournamentSettings, now: dt.datetime
) -> TournamentPhase:
    """Where a tournament is: upcoming, registering (users may enter now), running, finished."""
    if finished:
        return "finished"
    if started or running:
        return "running"
    return "registering" if settings.registration_open(now) else "upcoming"


def _registration_out(settings: TournamentSettings, open_now: bool) -> RegistrationOut:
    return RegistrationOut(
        mode=settings.registration,  # type: ignore[arg-type]  # checked by TournamentSettings
        closes_at=settings.closes_at,
        open=open_now,
        max_entrants=settings.max_entrants,
        per_owner=settings.per_owner,
    )


async def _tournament_out(
    run: TournamentRun,
    view: RunView | None,
    manager: GameManager,
    store: AsyncStore,
    scheduler: TournamentScheduler | None = None,
) -> TournamentOut:
    """:func:`tournament_out` with its latest run ``view`` and how it is entered and scheduled.

    Each match names its game being played now (on this server).
    """
    out = _with_run(run, view, manager)
    tournaments = store.store.tournaments
    settings = await store.run(tournaments.settings, run.id)
    now = await store.run(tournaments.now)
    open_now = not run.started and settings.registration_open(now)
    out.phase = phase_of(
        started=run.started,
        finished=run.is_finished,
        running=out.running,
        settings=settings,
        now=now,
    )
    out.registration = _registration_out(settings, open_now)
    out.starts_at = settings.starts_at
    out.round_gap_s = settings.round_gap_s
    out.next_round_at = settings.next_round_at
    out.creator = settings.creator
    if settings.qualifier is not None:
        q = settings.qualifier
        out.qualifier = QualifierOut(ladder=q.ladder, top=q.top, per_owner=q.per_owner)
    found = run.next_round()
    if found is not None:
        out.next_round = NextRoundOut(index=found[0], name=found[1], matches=found[2])
    if scheduler is not None:
        out.scheduler = scheduler.status.get(run.id, "")
    return out


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
    await check_run(run, config, programs)


def _settings(
    body: CreateTournament | UpdateTournament, old: TournamentSettings
) -> TournamentSettings:
    """``old`` with the settings ``body`` gives (an update: those it names, null clearing)."""
    given = body.model_fields_set if isinstance(body, UpdateTournament) else None
    values: dict[str, Any] = {}
    for field, attr in (
        ("registration", "registration"),
        ("registration_closes_at", "closes_at"),
        ("max_entrants", "max_entrants"),
        ("per_owner", "per_owner"),
        ("starts_at", "starts_at"),
        ("round_gap_s", "round_gap_s"),
    ):
        if given is None or field in given:
            value = getattr(body, field)
            if value is None and field in ("registration", "round_gap_s"):
                raise ParamsError(field, f"{field}: null is not a value it takes")
            values[attr] = value
    new = dataclasses.replace(old, **values)
    if new.closes_at is not None and new.starts_at is not None and new.closes_at > new.starts_at:
        raise ParamsError(
            "registration_closes_at",
            "registration_closes_at: after starts_at; registration closes when it starts "
            "at the latest",
        )
    return new


@router.post("", status_code=201)
async def create_tournament(
    body: CreateTournament,
    admin: AdminDep,
    store: StoreDep,
    runs: RunsDep,
    config: ConfigDep,
    uploads: UploadsDep,
    manager: ManagerDep,
    scheduler: TournamentSchedulerDep,
) -> TournamentOut:
    """Create a tournament and start playing it in the background, or later (admins).

    Entrants are built-in bots and registered snakes (``@owner/name``); a local server
    also takes anything the game does.  With ``"start": false`` it waits for
    ``POST /api/tournaments/{id}/run`` (or ``.../round``), or its ``starts_at``, and its
    name, settings and entrants may change until then (``PATCH``); it may have fewer
    than 2 entrants until then (people enter it: ``registration``).  Refused because the
    arena is full (429), it is not stored.
    """
    if body.start and body.starts_at is not None:
        raise ParamsError(
            "start", 'start: a tournament with starts_at starts then; give "start": false'
        )
    if body.start and len(body.snakes) < 2:
        raise ParamsError(
            "snakes",
            f"snakes: {len(body.snakes)} given; a tournament started now needs 2 (or give "
            '"start": false and let people enter it)',
        )
    settings = _settings(body, TournamentSettings(creator_id=admin.id))
    if settings.max_entrants is not None and len(body.snakes) > settings.max_entrants:
        raise ParamsError(
            "snakes", f"snakes: {len(body.snakes)} given, max_entrants {settings.max_entrants}"
        )
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
        await store.run(store.store.tournaments.create, run, settings)
        scheduler.wake()
        return await _tournament_out(run, await runs.view(_key(run.id)), manager, store, scheduler)
    # Its place in the arena first: refused, nothing is stored.
    with runs.reserve(_key(run.id)) as slot:
        await store.run(store.store.tournaments.create, run, settings)
        try:
            await start_run(run, slot, store, runs, config, uploads, manager)
        except BaseException:
            with contextlib.suppress(Exception):
                await store.run(store.store.tournaments.delete, run.id)
            raise
    await scheduler.started(run, scheduled=False)
    return await _tournament_out(run, await runs.view(_key(run.id)), manager, store, scheduler)


@router.get("")
async def list_tournaments(store: StoreDep, runs: RunsDep) -> list[TournamentSummaryOut]:
    """Every tournament, oldest first: its game, format, entrants, phase and registration."""
    found = []
    listed = await store.run(store.store.tournaments.list_all)
    views = await runs.views([_key(tid) for tid, _ in listed])
    every = await store.run(store.store.tournaments.all_settings)
    now = await store.run(store.store.tournaments.now)
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
        running = view is not None and view.running
        settings = every.get(tid, TournamentSettings())
        found.append(
            TournamentSummaryOut(
                id=tid,
                name=run.name,
                page=_page(tid),
                running=running,
                game=run.config.game,
                format=t.format,
                format_title=FORMAT_TITLES.get(t.format, t.format),
                entrants=len(run.snakes),
                started=run.started,
                finished=t.is_finished,
                champion=t.champion,
                phase=phase_of(
                    started=run.started,
                    finished=t.is_finished,
                    running=running,
                    settings=settings,
                    now=now,
                ),
                registration=settings.registration,  # type: ignore[arg-type]
                registration_open=not run.started and settings.registration_open(now),
                registration_closes_at=settings.closes_at,
                starts_at=settings.starts_at,
            )
        )
    return found


@router.get("/{tid}")
async def get_tournament(
    tid: str,
    principal: PrincipalDep,
    store: StoreDep,
    runs: RunsDep,
    manager: ManagerDep,
    scheduler: TournamentSchedulerDep,
) -> TournamentOut:
    """Standings, champion and every match with its games (the bracket).

    While it plays, a match's ``playing`` is its game being played now (to watch live).
    An entrant's address (``snakes[].source``) is shown to its owner and admins only.
    """
    # Its run read first: a run read as ended has every game of it in the bracket loaded
    # after it (a run records each game before it ends).
    view = await runs.view(_key(tid))
    run = await store.run(load_tournament, store.store, tid)
    return hide_sources(await _tournament_out(run, view, manager, store, scheduler), principal)


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
    scheduler: TournamentSchedulerDep,
) -> TournamentOut:
    """Rename a tournament, change its settings or its entrants, before it starts (admins).

    Settings named in the body change (``null`` clears a deadline, a cap or the start
    time); those left out stay.  Refused (409) once it has started: its games are played
    by the entrants it had, under the settings it had.
    """
    run = await store.run(load_tournament, store.store, tid)
    if run.started or await runs.is_running(_key(tid)):
        raise ConflictError(
            f"tournament {tid!r} has started; its name, settings and entrants are fixed now"
        )
    old = await store.run(store.store.tournaments.settings, tid)
    settings = _settings(body, old)
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
    changed.workdirs.update({n: w for n, w in run.workdirs.items() if n in changed.snakes})
    if settings.max_entrants is not None and len(changed.snakes) > settings.max_entrants:
        raise ParamsError(
            "max_entrants",
            f"max_entrants: {settings.max_entrants}, but it has {len(changed.snakes)} entrants",
        )
    await _check(changed, config, programs)
    await store.run(store.store.tournaments.replace_unstarted, changed, settings)
    scheduler.wake()
    return await _tournament_out(
        changed, await runs.view(_key(changed.id)), manager, store, scheduler
    )


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


@router.post("/{tid}/run", status_code=202)
async def run_tournament(
    tid: str,
    admin: AdminDep,
    store: StoreDep,
    runs: RunsDep,
    config: ConfigDep,
    uploads: UploadsDep,
    manager: ManagerDep,
    scheduler: TournamentSchedulerDep,
) -> TournamentOut:
    """Start a tournament made to start later, or play an unfinished one on (admins).

    It is played to its end.  A run that stopped (an admin's stop, an entrant that did
    not answer, a crash) goes on from its recorded games and plays exactly the games a
    straight run would.  Refused (409) while a server plays it, or while it has fewer
    than 2 entrants, (429) while the arena is full.
    """
    del admin
    return await _play(tid, store, runs, config, uploads, manager, scheduler, one_round=False)


@router.post("/{tid}/round", status_code=202)
async def run_next_round(
    tid: str,
    admin: AdminDep,
    store: StoreDep,
    runs: RunsDep,
    config: ConfigDep,
    uploads: UploadsDep,
    manager: ManagerDep,
    scheduler: TournamentSchedulerDep,
) -> TournamentOut:
    """Run the next round (admins): start the tournament if it waits, play one round.

    The round is the first, in bracket order, with a match left (``next_round``); each
    of its matches plays until it is decided, then the run ends (``done``) and the next
    round waits for the next call (or the scheduler).  Refused (409) while a server
    plays it, once it is finished, or while it has fewer than 2 entrants; (429) while
    the arena is full.
    """
    del admin
    return await _play(tid, store, runs, config, uploads, manager, scheduler, one_round=True)


async def _play(
    tid: str,
    store: AsyncStore,
    runs: RunKeeper,
    config: ServerConfig,
    uploads: UploadCache,
    manager: GameManager,
    scheduler: TournamentScheduler,
    *,
    one_round: bool,
) -> TournamentOut:
    run = await store.run(load_tournament, store.store, tid)
    if run.is_finished:
        raise TournamentRunError(f"tournament {tid!r} is finished; nothing to play")
    if not run.tournament.playable:
        raise ConflictError(
            f"tournament {tid!r} has {len(run.snakes)} entrant(s); it needs 2 to be played"
        )
    starting = not run.started
    if starting:
        # Its entrants are checked again as it starts: one registered may have gone.
        programs = await programs_for(store, config, uploads, run.snakes.values())
        await _check(run, config, programs)
    with runs.reserve(_key(tid)) as slot:
        if starting:
            await store.run(store.store.tournaments.mark_started, tid)
            run.started = True
        if one_round:
            await start_round(run, slot, store, runs, config, uploads, manager)
        else:
            await start_run(run, slot, store, runs, config, uploads, manager)
    if starting:
        await scheduler.started(run, scheduled=False)
    return await _tournament_out(run, await runs.view(_key(run.id)), manager, store, scheduler)


@router.post("/{tid}/entrants", status_code=201)
async def register_entrant(
    tid: str,
    body: RegisterEntrant,
    principal: UserDep,
    store: StoreDep,
    runs: RunsDep,
    config: ConfigDep,
    uploads: UploadsDep,
    manager: ManagerDep,
    scheduler: TournamentSchedulerDep,
) -> TournamentOut:
    """Enter a snake into a tournament that has not started, as its last seed.

    A user enters their own registered snakes (``@owner/name``) while registration is
    ``open``, or ``owner`` and they made the tournament or are an admin, and before its
    deadline; an admin enters any entrant the game takes, at any time before it starts.
    The caps hold for everyone: ``max_entrants`` and ``per_owner`` (409 when full).
    Refused (409) once it has started, (403) for a snake that is not theirs or a
    registration that is closed to them.
    """
    run = await store.run(load_tournament, store.store, tid)
    if run.started or await runs.is_running(_key(tid)):
        raise ConflictError(f"tournament {tid!r} has started; its entrants are fixed now")
    settings = await store.run(store.store.tournaments.settings, tid)
    user = principal.user
    owner = snake_ref_owner(body.snake)
    if not principal.is_admin:
        if owner is None:
            raise NotAllowedError(
                "snake: enter a registered snake of yours, as @owner/name (register it at "
                "POST /api/snakes first)"
            )
        if user is None or owner != user.name:
            raise NotAllowedError("snake: a user enters their own snakes only")
        if settings.registration == "closed":
            raise NotAllowedError(
                f"tournament {tid!r}: registration is closed; its admins enter snakes"
            )
    if settings.registration == "owner" and not (principal.is_admin and owner is None):
        allowed = owner is not None and (owner == settings.creator or await _is_admin(store, owner))
        if not allowed:
            raise NotAllowedError(
                f"tournament {tid!r} takes the snakes of its creator and of admins only"
            )
    resolved = await resolve_entrants(
        store,
        principal,
        config,
        run.config.adapter,
        [body.snake],
        [],
        raw_ok=not config.public or principal.is_admin,
        uploads=uploads,
        names_field="snake",
    )
    source, name = resolved.texts[0], resolved.names[0]
    if name is None:
        # A built-in or an address an admin entered: named as the game names it.
        name = run.config.adapter.entrant(source, None).name
    program = resolved.programs.get(0)
    await check_entrants(run.config.adapter, [Entrant(source, name, program)], config)
    await store.run(
        functools.partial(
            store.store.tournaments.register,
            tid,
            name,
            source,
            owner=owner,
            anytime=principal.is_admin,
        )
    )
    changed = await store.run(load_tournament, store.store, tid)
    return hide_sources(
        await _tournament_out(
            changed, await runs.view(_key(changed.id)), manager, store, scheduler
        ),
        principal,
    )


async def _is_admin(store: AsyncStore, name: str) -> bool:
    users = await store.run(store.store.accounts.users)
    return any(u.name == name and u.is_admin for u in users)


# A registered snake's entry is "@owner/name": the path convertor takes its slash.
@router.delete("/{tid}/entrants/{entrant:path}", status_code=204, responses=NO_CONTENT)
async def withdraw_entrant(
    tid: str,
    principal: UserDep,
    store: StoreDep,
    runs: RunsDep,
    entrant: str = Path(min_length=1, max_length=100),
) -> Response:
    """Take an entrant out of a tournament that has not started: its owner, or an admin."""
    owner = snake_ref_owner(entrant)
    mine = principal.user is not None and owner == principal.user.name
    if not (principal.is_admin or mine):
        raise NotAllowedError(
            f"entrant {entrant[:100]!r} is not yours; its owner or an admin may withdraw it"
        )
    if await runs.is_running(_key(tid)):
        raise ConflictError(f"tournament {tid!r} has started; its entrants are fixed now")
    if not await store.run(store.store.tournaments.withdraw, tid, entrant):
        raise NotFoundError(f"tournament {tid!r} has no entrant {entrant[:100]!r}")
    return Response(status_code=204)


@router.post("/{tid}/qualify")
async def qualify_entrants(
    tid: str,
    body: QualifyTournament,
    admin: AdminDep,
    store: StoreDep,
    runs: RunsDep,
    config: ConfigDep,
    uploads: UploadsDep,
    manager: ManagerDep,
    scheduler: TournamentSchedulerDep,
) -> TournamentOut:
    """Take the entrants from a ladder's top ``top``, at most ``per_owner`` per user (admins).

    The ladder's rated, unpaused entrants qualify best first (an owner's snakes past
    the cap are skipped, the next ones qualify instead), seeded in that order; they
    replace the tournament's entrants.  The qualifier is kept: a scheduled tournament
    qualifies again from the standings of the moment it starts.  Refused (409) once it
    has started.
    """
    del admin
    run = await store.run(load_tournament, store.store, tid)
    if run.started or await runs.is_running(_key(tid)):
        raise ConflictError(f"tournament {tid!r} has started; its entrants are fixed now")
    settings = await store.run(store.store.tournaments.settings, tid)
    qualifier = Qualifier(body.ladder, body.top, body.per_owner)
    if settings.max_entrants is not None and body.top > settings.max_entrants:
        raise ParamsError("top", f"top: {body.top}, max_entrants {settings.max_entrants}")
    changed = await qualified_run(run, qualifier, store, config, uploads)
    settings = dataclasses.replace(settings, qualifier=qualifier)
    await store.run(store.store.tournaments.replace_unstarted, changed, settings)
    scheduler.wake()
    return await _tournament_out(
        changed, await runs.view(_key(changed.id)), manager, store, scheduler
    )


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
    return await _tournament_out(run, await runs.view(_key(run.id)), manager, store)


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
        # A round's run (games 1, base its round) plays that round only.
        index = row.base if row.games == 1 else None
        if run.is_finished or (index is not None and run.round_done(index)):
            await runs.finish(row.key, ArenaRunState.DONE, row.done)
            return
        await start_run(
            run, slot, store, runs, config, uploads, manager, resumed=True, round_index=index
        )

    return resume
