"""``/api/ladders``: create and edit ladders of any game, add entrants, run games, read standings.

A run plays in the background on the arena worker (:mod:`snakewar.server.arena`), one
run per ladder at a time, its games as the server's live games; the pages poll the API,
so standings, the rating chart and the run's progress update while games are played.
An admin stops a run (``POST .../stop``); a run its server left mid-way (a crash, a
restart) is played on by exactly one server, with the games it still owed
(:mod:`snakewar.server.runs`).

A ladder may instead play on by itself: ``PATCH`` it with ``continuous`` (and
``gamesInFlight``, ``gamesPerHour``, ``dailyCap``), pause and resume it
(``POST .../pause``, ``POST .../resume``); the one scheduler of the servers sharing the
database plays its games (:mod:`snakewar.server.scheduler`); ``schedule`` in its answer
says how it is doing and which server schedules.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastapi import APIRouter, Path, Response

from snakewar.arena.config import MatchConfig
from snakewar.arena.ladder import Ladder, LadderEntry, LadderSettings, load_ladder
from snakewar.engine.protocol import Entrant, GameAdapter
from snakewar.errors import ConflictError, NotFoundError, ParamsError
from snakewar.referee.uploads import UploadCache
from snakewar.server.arena import ArenaBusyError, LiveExecutor, RunProgress, RunSlot
from snakewar.server.auth import AdminDep, NotAllowedError, PrincipalDep, UserDep
from snakewar.server.config import ServerConfig
from snakewar.server.deps import (
    ConfigDep,
    ManagerDep,
    RunsDep,
    SchedulerDep,
    StoreDep,
    UploadsDep,
)
from snakewar.server.manager import GameManager
from snakewar.server.matches import (
    adapter_for,
    check_caps,
    check_entrants,
    check_free_name,
    programs_for,
    resolve_entrants,
    turn_limit,
)
from snakewar.server.patterns import snake_ref_owner
from snakewar.server.privacy import hide_sources
from snakewar.server.runs import RunKeeper, RunView
from snakewar.server.scheduler import LadderScheduler, SchedulerView
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
    RunOut,
    ScheduleOut,
    StandingOut,
    StatOut,
    UpdateLadder,
)
from snakewar.storage import ArenaRun, ArenaRunState, AsyncStore, ScoreLine, Store

__all__ = ["entry_owner", "ladder_out", "resumer", "router", "run_out", "scorers_of"]

router = APIRouter(prefix="/api/ladders", tags=["ladders"])


class NotContinuousError(ConflictError):
    """Raised when a ladder that does not play on by itself is paused or resumed."""


def _key(name: str) -> str:
    return f"ladder:{name}"


def run_out(view: RunView | None) -> RunOut | None:
    """A run as the API shows it (``None``: no run recorded)."""
    if view is None:
        return None
    return RunOut(
        games=view.games,
        done=view.done,
        running=view.running,
        error=view.error,
        state=view.state,
    )


async def _ladder_out(
    ladder: Ladder, view: RunView | None, scheduler: LadderScheduler, admin: bool = False
) -> LadderOut:
    """The ladder with its latest run ``view`` and how it is scheduled."""
    scores = await _scores(scheduler.store, ladder)
    out = ladder_out(ladder, view is not None and view.running, scores)
    out.run = run_out(view)
    out.schedule = await schedule_out(ladder, scheduler, admin)
    return out


_SCORES: OrderedDict[str, tuple[tuple[int, str], Mapping[str, ScoreLine]]] = OrderedDict()
"""Each ladder's scorers as of its game count and latest game: read again only once a game
is rated (its page polls every second or two, and they take every game of the ladder to
count).  The latest game's id (unique) tells a ladder made again under the same name."""

_SCORES_KEPT = 64
"""The most ladders whose scorers are kept."""


async def _scores(store: AsyncStore, ladder: Ladder) -> Mapping[str, ScoreLine]:
    """The ladder's secondary scorers (win rate, statistics), kept while no game is rated."""
    mark = (ladder.games_played, ladder.recent[-1].game_id if ladder.recent else "")
    kept = _SCORES.get(ladder.name)
    if kept is not None and kept[0] == mark:
        _SCORES.move_to_end(ladder.name)
        return kept[1]
    scores = await store.run(store.store.profiles.ladder_scores, ladder.name)
    _SCORES[ladder.name] = (mark, scores)
    while len(_SCORES) > _SCORES_KEPT:
        _SCORES.popitem(last=False)
    return scores


async def schedule_out(ladder: Ladder, scheduler: LadderScheduler, admin: bool) -> ScheduleOut:
    """How ``ladder`` plays on by itself; the scheduling server is named to admins only."""
    store = scheduler.store
    counts = await store.run(store.store.ladders.counts, ladder.name)
    who = await scheduler.view()
    settings = counts.settings
    return ScheduleOut(
        continuous=settings.continuous,
        paused=settings.paused,
        games_in_flight=settings.games_in_flight,
        games_per_hour=settings.games_per_hour,
        daily_cap=settings.daily_cap,
        in_flight=counts.in_flight,
        games_last_hour=counts.last_hour,
        scheduled=who.holder is not None,
        scheduler=who.holder if admin else None,
        status=_schedule_status(settings, scheduler.status.get(ladder.name, ""), who),
    )


def _schedule_status(settings: LadderSettings, note: str, who: SchedulerView) -> str:
    if not settings.continuous:
        return "not continuous: games are played in runs"
    if settings.paused:
        return "paused by an admin"
    if who.holder is None:
        return "waiting for a server to schedule it (one takes over within its lease)"
    if not who.here:
        return "scheduled by another server"  # its notes are that server's
    return note or "playing"


def _failure(entry: LadderEntry | None) -> str:
    return entry.note if entry is not None and entry.failing and not entry.paused else ""


def ladder_out(
    ladder: Ladder, running: bool, scores: Mapping[str, ScoreLine] | None = None
) -> LadderOut:
    """A ladder as the API shows it: standings, history and recent games.

    An entrant that has played fewer than the ladder's placement games is listed after
    the ranked ones, unranked ("in placement"), as the official arena does; ``scores``
    (:meth:`~snakewar.storage.SqlProfileRepository.ladder_scores`) adds each one's win
    rate and the game's statistics.
    """
    adapter = ladder.config.adapter
    placement = ladder.settings.placement_games
    scores = scores or {}
    ranked: list[StandingOut] = []
    placing: list[StandingOut] = []
    rated = set()
    for row in ladder.standings():
        rated.add(row.snake)
        entry = ladder.entries.get(row.snake)
        out = StandingOut(
            rank=None,
            snake=row.snake,
            rating=row.display,
            mu=row.rating.mu,
            sigma=row.rating.sigma,
            games=row.games,
            paused=bool(entry and entry.paused),
            note=entry.note if entry else "",
            failure=_failure(entry),
            source=entry.source if entry else "",
            in_placement=row.games < placement,
            placement_left=max(placement - row.games, 0),
            **_scores_of(scores.get(row.snake), adapter),
        )
        if out.in_placement:
            placing.append(out)
        else:
            out.rank = len(ranked) + 1
            ranked.append(out)
    standings = [*ranked, *placing]
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
                    in_placement=placement > 0,
                    placement_left=placement,
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
        placement_games=placement,
        scorers=scorers_of(ladder.config.adapter),
    )


def scorers_of(adapter: GameAdapter) -> list[StatOut]:
    """The game's secondary scorers (its catalogue's statistics), for standings."""
    return [
        StatOut(key=x.key, label=x.label, description=x.description)
        for x in adapter.catalogue().stats
    ]


def scorer_values(stats: Mapping[str, float], adapter: GameAdapter) -> dict[str, float]:
    """The game's scorers among ``stats`` (a game's, or a mean's).

    A game may store other figures with them (its snakes' latencies, say), which are
    not scorers.
    """
    keys = {x.key for x in adapter.catalogue().stats}
    return {key: value for key, value in stats.items() if key in keys}


def _scores_of(line: ScoreLine | None, adapter: GameAdapter) -> dict[str, Any]:
    if line is None:
        return {}
    stats = scorer_values(line.stats, adapter)
    return {"wins": line.wins, "win_rate": line.win_rate, "stats": stats}


@router.get("")
async def list_ladders(store: StoreDep, runs: RunsDep) -> list[LadderSummaryOut]:
    """Every ladder with its game, size and games played."""
    # The runs read before the ladders, as for one ladder (:func:`get_ladder`).
    names = await store.run(store.store.ladders.names)
    views = await runs.views([_key(name) for name in names])
    rows = await store.run(store.store.ladders.summaries)
    return [
        LadderSummaryOut(
            **row,
            running=(view := views.get(_key(row["name"]))) is not None and view.running,
        )
        for row in rows
    ]


@router.post("", status_code=201)
async def create_ladder(
    body: CreateLadder, admin: AdminDep, store: StoreDep, config: ConfigDep
) -> LadderOut:
    """Create a ladder (the game's parameters checked now; admins)."""
    del admin
    adapter = adapter_for(body.game)
    params = adapter.parse_params(body.params)
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
    runs: RunsDep,
    config: ConfigDep,
    uploads: UploadsDep,
) -> LadderOut:
    """Join a ladder with a registered snake (``@owner/name``: a user's own) or a built-in.

    On a local server any entrant the game takes may join (a URL too).
    """
    if await runs.is_running(_key(name)):
        raise ArenaBusyError(f"ladder {name!r} is running; add entrants between runs")
    ladder = await store.run(load_ladder, store.store, name)
    owner = snake_ref_owner(body.snake)
    user = principal.user
    if (
        owner is not None
        and config.public
        and not principal.is_admin
        and (user is None or owner != user.name)
    ):
        raise NotAllowedError("snake: a user enters ladders with their own snakes only")
    if config.public and not principal.is_admin and body.name is not None:
        # A user's entry is "@owner/name", which is how its owner may take it off again.
        raise NotAllowedError("name: a user's entry is named after its snake (@owner/name)")
    if body.name is not None:
        check_free_name(body.name, "name")
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
    return hide_sources(ladder_out(ladder, False), principal)


@router.get("/{name}")
async def get_ladder(
    name: str, principal: PrincipalDep, store: StoreDep, runs: RunsDep, scheduler: SchedulerDep
) -> LadderOut:
    """Standings (rating = mu - 3 sigma), rating history, the recent games and ``schedule``.

    An entrant's address (``source``) is shown to its owner and admins only, as is the
    server that schedules.
    """
    # Its run read first: a run records each game before it ends, so a run read as ended
    # has all its games in the ladder loaded after it.  A client that waits for
    # ``running`` to be false and then reads ``games_played`` sees every game of the run
    # (the other order could show it ended with its last game missing, asked for again).
    view = await runs.view(_key(name))
    ladder = await store.run(load_ladder, store.store, name)
    out = await _ladder_out(ladder, view, scheduler, principal.is_admin)
    return hide_sources(out, principal)


@router.patch("/{name}")
async def update_ladder(
    name: str,
    body: UpdateLadder,
    admin: AdminDep,
    store: StoreDep,
    runs: RunsDep,
    config: ConfigDep,
    scheduler: SchedulerDep,
) -> LadderOut:
    """Change a ladder's time per turn, turn limit, game parameters, or how it plays on.

    Admins.  The change holds for its future games (its played games and ratings stay);
    it is refused while a run is going on, as the run plays with the settings it started
    with.  ``continuous``, ``paused``, ``gamesInFlight``, ``gamesPerHour`` and
    ``dailyCap`` set how it plays on by itself, ``placementGames`` how many games an
    entrant plays unranked first (422 naming the field out of bounds).
    """
    del admin
    if await runs.is_running(_key(name)):
        raise ArenaBusyError(f"ladder {name!r} is running; change it between runs")
    ladder = await store.run(load_ladder, store.store, name)
    given = body.model_fields_set
    schedule = {
        key: getattr(body, key)
        for key in (
            "continuous",
            "paused",
            "games_in_flight",
            "games_per_hour",
            "daily_cap",
            "placement_games",
        )
        if key in given
    }
    for key in ("continuous", "paused", "games_in_flight", "games_per_hour", "placement_games"):
        if key in schedule and schedule[key] is None:
            raise ParamsError(key, f"{key}: expected a value, not null")
    # Checked before anything is stored (out of bounds: a 422 naming the field).  A
    # ladder with too few entrants may be continuous: it waits for them to join.
    settings = dataclasses.replace(ladder.settings, **schedule)
    match = _new_config(ladder, body, config) if given - set(schedule) or body.params else None
    # Everything checked: now stored, the game settings first.
    if match is not None:
        ladder.config = match
        await store.run(store.store.ladders.save_config, ladder)
    if schedule:
        ladder.settings = settings
        await store.run(store.store.ladders.save_settings, name, settings)
        scheduler.wake()
    return await _ladder_out(ladder, await runs.view(_key(name)), scheduler, True)


def _new_config(ladder: Ladder, body: UpdateLadder, config: ServerConfig) -> MatchConfig:
    """The ladder's game settings as ``body`` changes them (checked against the caps)."""
    old = ladder.config
    given = body.model_fields_set
    timeout = body.timeout if "timeout" in given else old.timeout_ms
    adapter = old.adapter
    params = adapter.parse_params({**old.params, **body.params})
    max_turns = old.max_turns
    if "max_turns" in given:  # null: as when a ladder is made (the game's own end)
        max_turns = turn_limit(config, adapter, params, body.max_turns)
    match = MatchConfig.create(
        old.game,
        params,
        game_size=old.game_size,
        timeout_ms=timeout,
        max_turns=max_turns,
    )
    check_caps(config, adapter, old.game_size, match.params, timeout)
    return match


def entry_owner(entrant: str) -> str | None:
    """The user whose entry ``entrant`` is: ``@owner/name`` (``None``: nobody's).

    An entry made before names were namespaced is ``owner/name``: its owner may still
    take it off (a free name that imitated one could only ever be taken off by the user
    it imitated, or an admin).
    """
    owner = snake_ref_owner(entrant)
    if owner is not None:
        return owner
    return entrant.split("/", 1)[0] if "/" in entrant and not entrant.startswith("@") else None


# A registered snake's entry is "@owner/name": the path convertor takes its slash (an
# encoded %2F reaches the route decoded).
@router.delete("/{name}/snakes/{entrant:path}", status_code=204, responses=NO_CONTENT)
async def remove_entrant(
    name: str,
    principal: UserDep,
    store: StoreDep,
    runs: RunsDep,
    entrant: str = Path(min_length=1, max_length=100),
) -> Response:
    """Take an entrant off a ladder: a registered snake's owner, or an admin."""
    owner = entry_owner(entrant)
    mine = principal.user is not None and owner == principal.user.name
    if not (principal.is_admin or mine):
        raise NotAllowedError(
            f"entrant {entrant!r} is not yours; its owner or an admin may remove it"
        )
    if await runs.is_running(_key(name)):
        raise ArenaBusyError(f"ladder {name!r} is running; remove entrants between runs")
    if not await store.run(store.store.ladders.remove_entry, name, entrant):
        raise NotFoundError(f"ladder {name!r} has no entrant {entrant!r}")
    return Response(status_code=204)


@router.delete("/{name}", status_code=204, responses=NO_CONTENT)
async def delete_ladder(name: str, admin: AdminDep, store: StoreDep, runs: RunsDep) -> Response:
    """Delete a ladder with its standings and history; its games stay (admins)."""
    del admin
    if await runs.is_running(_key(name)):
        raise ArenaBusyError(f"ladder {name!r} is running; stop it (POST .../stop), then delete it")
    await store.run(store.store.ladders.delete, name)
    runs.arena.forget(_key(name))
    return Response(status_code=204)


async def _start(
    ladder: Ladder,
    games: int,
    progress: RunProgress,
    slot: RunSlot,
    store: AsyncStore,
    runs: RunKeeper,
    config: ServerConfig,
    uploads: UploadCache,
    manager: GameManager,
    *,
    total: int,
    base: int,
    resumed: bool = False,
) -> RunProgress:
    """Play ``games`` games of ``ladder`` on the arena worker (of the run's ``total``)."""
    target: Store = store.store
    outbound = config.outbound()
    sources = [e.source for e in ladder.entries.values()]
    programs = await programs_for(store, config, uploads, sources)
    executor = LiveExecutor(manager, asyncio.get_running_loop())

    def play() -> None:
        played = ladder.run(
            games,
            target,
            executor=executor,
            outbound=outbound,
            programs=programs,
            on_game=lambda _: progress.played(),
            should_stop=progress.should_stop,
        )
        progress.complete = played >= games

    return await runs.launch(
        slot,
        "ladder",
        ladder.name,
        play,
        progress,
        executor,
        games=total,
        base=base,
        resumed=resumed,
    )


@router.post("/{name}/run", status_code=202)
async def run_ladder(
    name: str,
    body: RunLadder,
    admin: AdminDep,
    store: StoreDep,
    runs: RunsDep,
    config: ConfigDep,
    uploads: UploadsDep,
    manager: ManagerDep,
) -> RunAccepted:
    """Play ``games`` more games in the background (400 if no game can be matched; admins).

    ``GET /api/ladders/{name}`` shows the run's progress (``run``) and its live games
    are the server's, to watch as they are played.  Refused (409) while a server plays
    the ladder, (429) while the arena is full.
    """
    del admin
    ladder = await store.run(load_ladder, store.store, name)
    if ladder.settings.continuous:
        raise ArenaBusyError(
            f"ladder {name!r} plays on by itself (continuous); set continuous to false "
            "to play it in runs"
        )
    ladder.check_playable()  # answered now, not raised later in the background
    with runs.reserve(_key(name)) as slot:
        progress = RunProgress(games=body.games)
        await _start(
            ladder,
            body.games,
            progress,
            slot,
            store,
            runs,
            config,
            uploads,
            manager,
            total=body.games,
            base=ladder.games_played,
        )
    return RunAccepted(name=name, running=True, games=body.games)


@router.post("/{name}/stop", status_code=202)
async def stop_ladder(
    name: str, admin: AdminDep, store: StoreDep, runs: RunsDep, scheduler: SchedulerDep
) -> LadderOut:
    """Stop a ladder's run: its games in flight are cancelled, its games played stay (admins).

    Whichever server plays it stops it (this one at once, another when it next renews its
    lease: ``run.state`` is ``stopping`` until then).  409 if it is not running.
    """
    del admin
    ladder = await store.run(load_ladder, store.store, name)
    await runs.stop(_key(name))
    return await _ladder_out(ladder, await runs.view(_key(name)), scheduler, True)


async def _set_paused(
    name: str, paused: bool, store: AsyncStore, runs: RunKeeper, scheduler: LadderScheduler
) -> LadderOut:
    ladder = await store.run(load_ladder, store.store, name)
    if not ladder.settings.continuous:
        raise NotContinuousError(
            f"ladder {name!r} does not play on by itself; set continuous to true first"
        )
    ladder.settings = dataclasses.replace(ladder.settings, paused=paused)
    await store.run(store.store.ladders.save_settings, name, ladder.settings)
    scheduler.wake()
    return await _ladder_out(ladder, await runs.view(_key(name)), scheduler, True)


@router.post("/{name}/pause")
async def pause_ladder(
    name: str, admin: AdminDep, store: StoreDep, runs: RunsDep, scheduler: SchedulerDep
) -> LadderOut:
    """Pause a continuous ladder: no new game starts; those in flight end and are rated.

    Admins; 409 for a ladder that is not continuous.  Pausing a paused ladder is no error.
    """
    del admin
    return await _set_paused(name, True, store, runs, scheduler)


@router.post("/{name}/resume")
async def resume_ladder(
    name: str, admin: AdminDep, store: StoreDep, runs: RunsDep, scheduler: SchedulerDep
) -> LadderOut:
    """Resume a paused continuous ladder: its scheduler starts its games again (admins)."""
    del admin
    return await _set_paused(name, False, store, runs, scheduler)


def resumer(
    store: AsyncStore,
    runs: RunKeeper,
    config: ServerConfig,
    uploads: UploadCache,
    manager: GameManager,
) -> Callable[[RunSlot, ArenaRun], Awaitable[None]]:
    """What plays on a ladder run whose server is gone: the games it still owed."""

    async def resume(slot: RunSlot, row: ArenaRun) -> None:
        ladder = await store.run(load_ladder, store.store, row.target)
        owed = row.owed(ladder.games_played)
        total = row.games if row.games is not None else owed
        if owed == 0:
            await runs.finish(row.key, ArenaRunState.DONE, total)
            return
        ladder.check_playable()
        progress = RunProgress(games=total, done=total - owed)
        base = row.base if row.base is not None else ladder.games_played
        await _start(
            ladder,
            owed,
            progress,
            slot,
            store,
            runs,
            config,
            uploads,
            manager,
            total=total,
            base=base,
            resumed=True,
        )

    return resume
