"""``/api/games``: create, list, get, cancel, rematch, fork and export games of every game.

A live game can also be paused, stepped and resumed, and its calls read (the request
inspector).  Every game's frames can be read page by page, while it runs and after
(``GET /api/games/{id}/frames``, with the game's header), and followed live over the
events websocket (``/api/games/{id}/events``, :mod:`snakewar.server.events`): how a
game's own viewer draws it as it is played.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request, WebSocket
from fastapi.responses import Response

from snakewar.adapters import get_game
from snakewar.engine.protocol import GameData, MatchSpec
from snakewar.errors import BusyError, ConflictError, NotFoundError, ParamsError, SnakewarError
from snakewar.server.auth import Principal, PrincipalDep, UserDep, require_owner
from snakewar.server.deps import (
    ConfigDep,
    LimiterDep,
    ManagerDep,
    MediaSlotsDep,
    StoreDep,
    UploadsDep,
    client_key,
)
from snakewar.server.events import follow_game
from snakewar.server.manager import GameManager, LiveGame, Slot
from snakewar.server.matches import (
    adapter_for,
    check_entrants,
    programs_for,
    resolve_entrants,
    turn_limit,
    web_match,
    with_programs,
)
from snakewar.server.mirror import MirrorLimitError
from snakewar.server.patterns import PLAYER, SNAKE_REFERENCE, snake_ref_owner
from snakewar.server.privacy import hidden_in, hide_in_bytes, hide_in_json, hide_sources
from snakewar.server.schemas import (
    NO_CONTENT,
    CallOut,
    CallsOut,
    CreateGame,
    EntrantOut,
    ForkGame,
    FramesOut,
    GameList,
    GameOut,
    LogOut,
    binary_download,
)
from snakewar.storage import AsyncStore, GameFilter, GameNotFoundError, GamePage, GameRow
from snakewar.storage.models import MAX_ID_LENGTH
from snakewar.storage.profiles import MAX_SEARCH_LIMIT

__all__ = ["MAX_FRAMES_PAGE", "can_read_log", "live_out", "router", "row_out"]

router = APIRouter(prefix="/api/games", tags=["games"])


class GameNotRunningError(ConflictError):
    """Raised when a game that is not running is asked to stop."""


def live_out(live: LiveGame) -> GameOut:
    """A live game as the API shows it."""
    adapter = get_game(live.game)
    listing = live.listing
    played = live.played
    if played is not None:
        entrants = [
            EntrantOut(name=r.name, source=r.source, color=r.color, failure=r.failure)
            for r in played.results
        ]
        turn = played.turns
    elif listing is not None:
        colors = [*listing.colors, *[""] * len(listing.entrants)]
        entrants = [
            EntrantOut(name=e.name, source=e.source, color=colors[i])
            for i, e in enumerate(listing.entrants)
        ]
        # A game played elsewhere (a cluster's) has no frames here: its stored turns.
        turn = max(len(live.views) - 1, listing.turns, 0)
    else:
        entrants = [EntrantOut(name=e.name, source=e.source) for e in live.spec.entrants]
        turn = 0
    params = dict(live.spec.params)
    winner = played.winner if played is not None else None
    return GameOut(
        id=live.id,
        game=live.game,
        status=live.status,
        error=live.error,
        seed=str(live.seed),
        title=listing.title if listing is not None else adapter.catalogue().title,
        width=listing.width if listing is not None else int(params.get("width", 0) or 0),
        height=listing.height if listing is not None else int(params.get("height", 0) or 0),
        turn=turn,
        entrants=entrants,
        winner=winner,
        is_draw=played is not None and len(played.placement) == 1 and len(played.results) > 1,
        source=live.spec.source,
        created_at=dt.datetime.fromtimestamp(live.created_at, dt.UTC).isoformat(),
        viewer=adapter.viewer_url(live.id),
        params=params,
        paused=live.paused,
        records_calls=live.record_calls,
    )


def _entrant(e: dict[str, str]) -> EntrantOut:
    return EntrantOut(
        name=str(e.get("name", "")),
        source=str(e.get("source", "")),
        color=str(e.get("color", "")),
        failure=str(e.get("failure", "")),
    )


def row_out(row: GameRow) -> GameOut:
    """A stored game as the API shows it."""
    ranks = row.ranks or []
    return GameOut(
        id=row.id,
        game=row.game,
        status=row.status,
        seed=str(row.seed),
        title=row.title,
        width=row.width,
        height=row.height,
        turn=row.turns,
        entrants=[_entrant(e) for e in row.entrants],
        winner=row.winner_name,
        is_draw=row.finished and len(ranks) > 1 and len(set(ranks)) == 1,
        source=row.source,
        created_at=row.created_at.isoformat(),
        viewer=get_game(row.game).viewer_url(row.id),
        params=row.params,
        paused=False,
        records_calls=False,
        error=row.failure or "",
    )


async def _stored(store: StoreDep, game_id: str) -> GameRow:
    row = await store.run(store.store.games.get, game_id)
    if row is None:
        raise GameNotFoundError(game_id)
    return row


@contextlib.asynccontextmanager
async def _slot_counted(
    request: Request,
    principal: Principal,
    config: ConfigDep,
    manager: ManagerDep,
    limiter: LimiterDep,
) -> AsyncIterator[Slot]:
    """A game slot, and one of the client's game-creation tokens (public mode).

    Both are kept if a game starts, given back if the block fails.  The slot is taken
    before the first await (the token may be counted in the database): concurrent
    requests see it at once.
    """
    with manager.slot(principal.id) as slot:
        if not config.public:
            yield slot
            return
        refusal = "too many games created by this client; wait a minute"
        async with limiter.counting(client_key(request), refusal):
            yield slot


@router.post("", status_code=201)
async def create_game(
    body: CreateGame,
    request: Request,
    principal: UserDep,
    config: ConfigDep,
    manager: ManagerDep,
    store: StoreDep,
    limiter: LimiterDep,
    uploads: UploadsDep,
) -> GameOut:
    """Start a game; it runs in the background.  Returns it as it starts.

    Entrants are built-in bots and registered snakes (``@owner/name``); a local
    server (and an admin) may also name snakes by URL.

    Refused with 429 naming the limit, before it starts: every slot taken
    (``max_concurrent_games``), not enough free built-in bot workers for its built-ins
    (``builtin_workers``), or, on a public server, past the user's share
    (``games_per_user``, ``paused_games_per_user`` for a step-mode game,
    ``builtin_workers_per_user``).
    """
    async with _slot_counted(request, principal, config, manager, limiter) as slot:
        resolved = await resolve_entrants(
            store,
            principal,
            config,
            adapter_for(body.game),
            body.snakes,
            body.names,
            uploads=uploads,
        )
        params: dict[str, object] = dict(body.params)
        if body.position is not None:
            # Opaque here: the game's adapter checks it as one of its parameters.
            params[POSITION] = body.position
        spec = await web_match(
            config,
            body.game,
            resolved.texts,
            resolved.names,
            params,
            timeout_ms=body.timeout,
            max_turns=body.max_turns,
            source="custom",
            programs=resolved.programs,
        )
        live = await manager.create(
            spec,
            body.seed,
            owner_id=principal.id,
            slot=slot,
            step=body.step,
            # The inspector's bodies are a local server's: a public one keeps none.
            record_calls=not config.public,
        )
    return hide_sources(live_out(live), principal)


@router.get("")
async def list_games(
    principal: PrincipalDep,
    manager: ManagerDep,
    store: StoreDep,
    limit: int = Query(50, ge=1, le=MAX_SEARCH_LIMIT, description="Stored games per page."),
    offset: int = Query(
        0, ge=0, le=2**62, description="Skip this many stored games (the last page's next_offset)."
    ),
    game: str | None = Query(None, max_length=32, description="Only games of this game."),
    snake: str | None = Query(
        None,
        **{**SNAKE_REFERENCE.limits(), "description": "Only games a registered snake played in."},
    ),
    user: str | None = Query(
        None,
        max_length=32,
        pattern=r"^[a-z0-9][a-z0-9_-]*$",
        description="Only games a user started or one of their snakes played in.",
    ),
    ladder: str | None = Query(
        None, min_length=1, max_length=MAX_ID_LENGTH, description="Only this ladder's games."
    ),
    tournament: str | None = Query(
        None,
        min_length=1,
        max_length=MAX_ID_LENGTH,
        description="Only this tournament's games (its id).",
    ),
    status: Literal["running", "complete", "aborted", "cancelled"] | None = Query(
        None, description="Only games with this status."
    ),
    since: Annotated[
        dt.datetime | None,
        Query(
            alias="from",
            description="Only games created at or after this time (ISO 8601; no zone: UTC).",
        ),
    ] = None,
    until: Annotated[
        dt.datetime | None,
        Query(alias="to", description="Only games created before this time (ISO 8601)."),
    ] = None,
) -> GameList:
    """Live games first, then a page of stored ones, newest first, filtered.

    Every filter given must hold.  ``live`` holds the live games that match (every page
    has them); ``games`` the page of stored ones from ``offset``; ``total`` how many
    stored games match, ``next_offset`` where the next page starts (null: no more).  A
    bad filter value is a 422 naming it.
    """
    since, until = _aware(since), _aware(until)
    if since is not None and until is not None and until <= since:
        raise ParamsError("to", "to: expected a time after from")
    where: GameFilter | None = GameFilter(
        game=game,
        entrant=snake,
        source=_source(ladder, tournament),
        status=status,
        since=since,
        until=until,
    )
    if user is not None and where is not None:
        where = await _user_filter(store, where, user)
    rows = (
        GamePage([], 0, None)
        if where is None
        else await store.run(store.store.profiles.search, where, limit, offset)
    )
    live = [
        live_out(g)
        for g in manager.live_games()
        if where is not None and _live_matches(g, where, since, until)
    ]
    live_ids = {g.id for g in live}
    listed = GameList(
        live=live,
        games=[row_out(r) for r in rows.games if r.id not in live_ids],
        total=rows.total,
        next_offset=rows.next_offset,
    )
    return hide_sources(listed, principal)


def _aware(when: dt.datetime | None) -> dt.datetime | None:
    """A time given without a zone is UTC."""
    if when is None or when.tzinfo is not None:
        return when
    return when.replace(tzinfo=dt.UTC)


def _source(ladder: str | None, tournament: str | None) -> str | None:
    if ladder is not None and tournament is not None:
        raise ParamsError("tournament", "tournament: a game is a ladder's or a tournament's")
    if ladder is not None:
        return f"ladder:{ladder}"
    return None if tournament is None else f"tournament:{tournament}"


async def _user_filter(store: StoreDep, where: GameFilter, name: str) -> GameFilter | None:
    """``where`` for the games of the user ``name`` (``None``: there is no such user)."""
    try:
        found = await store.run(store.store.accounts.user, name)
    except NotFoundError:
        return None
    snakes, _total = await store.run(
        store.store.snakes.directory, None, admin=True, owner=found.name, limit=200
    )
    return dataclasses.replace(
        where, owner_id=found.id, owner_entrants=tuple(s.ref for s in snakes)
    )


def _live_matches(
    live: LiveGame, where: GameFilter, since: dt.datetime | None, until: dt.datetime | None
) -> bool:
    """Whether a live game passes the filters a stored one is searched by."""
    names = {e.name for e in live.spec.entrants}
    created = dt.datetime.fromtimestamp(live.created_at, dt.UTC)
    return (
        (where.game is None or live.game == where.game)
        and (where.entrant is None or where.entrant in names)
        and (where.source is None or live.spec.source == where.source)
        and (where.status is None or where.status == "running")
        and (
            where.owner_id is None
            or live.owner_id == where.owner_id
            or bool(names & set(where.owner_entrants))
        )
        and (since is None or created >= since)
        and (until is None or created < until)
    )


@router.get("/{game_id}")
async def get_one(
    game_id: str, principal: PrincipalDep, manager: ManagerDep, store: StoreDep
) -> GameOut:
    """One game (an entrant's address only for its owner and admins)."""
    live = manager.games.get(game_id)
    if live is not None:
        return hide_sources(live_out(live), principal)
    return hide_sources(row_out(await _stored(store, game_id)), principal)


async def _owner_of(manager: ManagerDep, store: StoreDep, game_id: str) -> int | None:
    live = manager.games.get(game_id)
    if live is not None:
        return live.owner_id
    return (await _stored(store, game_id)).owner_id


@router.post("/{game_id}/cancel")
async def cancel_game(
    game_id: str, principal: UserDep, manager: ManagerDep, store: StoreDep
) -> GameOut:
    """Stop a running game (its frames so far are kept); its owner's or an admin's."""
    require_owner(principal, await _owner_of(manager, store, game_id), f"game {game_id!r}")
    if not await manager.cancel(game_id):
        raise GameNotRunningError(f"game {game_id!r} is not running")
    live = manager.games.get(game_id)
    if live is None:  # played on a cluster: as its actor stored it
        return hide_sources(row_out(await _stored(store, game_id)), principal)
    return hide_sources(live_out(live), principal)


async def _owned_live(
    principal: Principal, manager: ManagerDep, store: StoreDep, game_id: str
) -> None:
    require_owner(principal, await _owner_of(manager, store, game_id), f"game {game_id!r}")


def _running(live: LiveGame | None, game_id: str, principal: Principal) -> GameOut:
    if live is None:
        raise GameNotRunningError(f"game {game_id!r} is not running")
    return hide_sources(live_out(live), principal)


@router.post("/{game_id}/pause")
async def pause_game(
    game_id: str, principal: UserDep, manager: ManagerDep, store: StoreDep
) -> GameOut:
    """Stop a running game before its next turn (its owner's or an admin's).

    Returns once the game holds there.  A game paused longer than the server allows
    (10 minutes by default) is cancelled.  A public server refuses (429) a pause past
    the owner's paused games (``paused_games_per_user``).
    """
    await _owned_live(principal, manager, store, game_id)
    return _running(await manager.pause(game_id), game_id, principal)


@router.post("/{game_id}/step")
async def step_game(
    game_id: str, principal: UserDep, manager: ManagerDep, store: StoreDep
) -> GameOut:
    """Play one turn of a paused game; returns once it is played (owner or admin)."""
    await _owned_live(principal, manager, store, game_id)
    return _running(await manager.step(game_id), game_id, principal)


@router.post("/{game_id}/resume")
async def resume_game(
    game_id: str, principal: UserDep, manager: ManagerDep, store: StoreDep
) -> GameOut:
    """Let a paused game run on (owner or admin)."""
    await _owned_live(principal, manager, store, game_id)
    return _running(await manager.resume(game_id), game_id, principal)


@router.get("/{game_id}/calls")
async def game_calls(
    game_id: str,
    manager: ManagerDep,
    store: StoreDep,
    turn: int = Query(ge=0, le=2**31 - 1, description="The turn the snakes were asked about."),
) -> CallsOut:
    """The calls made to the entrants on ``turn``: status, latency, error, bodies.

    Only a local server's games keep them (a public server keeps none).  Turn 0 also
    has the ``/start`` calls, the last turn the ``/end`` calls.
    """
    live = manager.games.get(game_id)
    calls = await store.run(store.store.games.calls, game_id, turn)
    records = live.record_calls if live is not None else bool(calls)
    return CallsOut(
        game_id=game_id,
        turn=turn,
        records_calls=records,
        calls=[CallOut.model_validate(c) for c in calls],
    )


MAX_FRAMES_PAGE = 500
"""The most frames one page of ``GET /api/games/{id}/frames`` holds (a frame of a
64x64 map with 4 players is a few KiB)."""

_VIEWS_WIRE_FORMAT = "api-views"


def _view_text(view: Mapping[str, Any], produced: float) -> str:
    del produced  # a page carries the views only
    return json.dumps(view, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _page_text(meta: Mapping[str, Any], header: str, views: Sequence[str]) -> str:
    """A :class:`FramesOut` body from its small fields and its parts already encoded."""
    head = json.dumps(meta, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return f'{head[:-1]},"header":{header},"frames":[{",".join(views)}]}}'


def _stored_frames_page(
    store: AsyncStore, row: GameRow, offset: int, limit: int, secrets: set[str]
) -> bytes:
    # Runs on a store thread: reading and encoding a page both stay off the event loop.
    games = store.store.games
    views = [_view_text(v, 0.0) for v in games.frames(row.id, offset, limit)]
    meta = {
        "id": row.id,
        "game": row.game,
        "status": row.status,
        "turn": row.turns,
        "offset": offset,
        "count": games.frame_count(row.id),
    }
    header = _view_text(hide_in_json(row.header, secrets), 0.0) if offset == 0 else "null"
    return _page_text(meta, header, views).encode()


def _live_frames_page(live: LiveGame, offset: int, limit: int, secrets: set[str]) -> bytes:
    # Each frame is encoded once for every page and poller (the feed's cache), and the
    # header once: a page costs a slice and a join on the event loop, whatever its size.
    views = live.feed.encoded(_VIEWS_WIRE_FORMAT, _view_text, offset)[:limit]
    header = "null"
    if offset == 0 and live.header is not None:
        if secrets:  # this reader's copy, without the addresses it may not see
            header = _view_text(hide_in_json(live.header, secrets), 0.0)
        else:
            if live.header_text is None:
                live.header_text = _view_text(live.header, 0.0)
            header = live.header_text
    count = len(live.feed)
    meta = {
        "id": live.id,
        "game": live.game,
        "status": live.status,
        "turn": max(count - 1, 0),
        "offset": offset,
        "count": count,
    }
    return _page_text(meta, header, views).encode()


@router.get("/{game_id}/frames", response_class=Response, responses={200: {"model": FramesOut}})
async def game_frames(
    game_id: str,
    principal: PrincipalDep,
    manager: ManagerDep,
    store: StoreDep,
    offset: int = Query(0, ge=0, le=2**62, description="The first frame (turn) to send."),
    limit: int = Query(
        100, ge=1, le=MAX_FRAMES_PAGE, description="At most this many frames in the page."
    ),
) -> Response:
    """A page of a game's frames (its views, as its viewer draws them), live or stored.

    How a game's viewer starts: the page from ``offset=0`` brings the game's header
    (its players, its map: what the frames do not repeat) and the frames so far; a
    running game's next frames then come over its events websocket
    (``/api/games/{id}/events?from=N``).  A page is one short request served from the
    feed's cache (live) or one bounded read on the store's threads (stored), for a game
    played here, on another server of the same database, or stopped.
    """
    # A live game wherever it is played: another server's is mirrored from the database
    # (past the cap on mirrors, its page is read from the store, as a stored game's).
    try:
        live = await manager.watch(game_id)
    except MirrorLimitError:
        live = None
    if live is not None:
        secrets = hidden_in(principal, ((e.name, e.source) for e in live.spec.entrants))
        body = _live_frames_page(live, offset, limit, secrets)
    else:
        row = await _stored(store, game_id)
        secrets = _row_secrets(principal, row)
        body = await store.run(_stored_frames_page, store, row, offset, limit, secrets)
    return Response(body, media_type="application/json")


def _end_data(
    game_id: str, header: Mapping[str, Any] | None, status: str, turn: int
) -> dict[str, Any]:
    del header  # the game's header may name entrants' addresses: /frames hides them
    return {"id": game_id, "status": status, "turn": turn}


@router.websocket("/{game_id}/events")
async def game_events(websocket: WebSocket, game_id: str) -> None:
    """Every game's frames as they are played: its events websocket.

    ``{"Type": "frame", "Data": view}`` for each frame from turn 0, or from
    ``?from=N`` (where a follower that lost its connection resumes, on any server of
    the database), then ``{"Type": "game_end", "Data": {"id", "status", "turn"}}``.  A
    game played again from turn 0 sends ``{"Type": "restart"}`` first.  Close codes:
    4400 a bad ``from``, 4404 no such game, 4429 past a cap on followers (the reason
    names it), 1012 reconnect (its server stops following it), 1013 too far behind.
    The header is not sent: ``GET /api/games/{id}/frames`` has it.  A game kept in one
    replay file once complete sends no frames once stored, and on another server than
    the one playing it may end before its last few frames: its viewer reads its replay.
    """
    await follow_game(websocket, game_id, None, _end_data)


async def _game_data(
    manager: GameManager, store: AsyncStore, game_id: str, *, views: bool = False
) -> GameData:
    """A game's data: the live copy's once it is played, else the stored one.

    ``views``: the stored frames with their views (else without: a replay needs none).
    """
    live = manager.games.get(game_id)
    if live is not None and live.played is not None:
        return live.played.data
    data: GameData = await store.run(store.store.games.data, game_id, views=views)
    return data


async def _replay_for(
    principal: Principal,
    row: GameRow,
    manager: GameManager,
    store: AsyncStore,
    *,
    media: bool = False,
) -> bytes:
    """The game's replay file, its entrants' addresses hidden from ``principal`` as due.

    ``media``: what the game's media codec draws instead (its frames so far for a game
    that has no replay file until it ends).
    """
    adapter = get_game(row.game)
    data = await _game_data(manager, store, row.id, views=media and adapter.media_reads_views)
    replay = await store.run(adapter.media_replay if media else adapter.export, data)
    return hide_in_bytes(replay, _row_secrets(principal, row))


def _row_secrets(principal: Principal, row: GameRow) -> set[str]:
    """The addresses of a stored game's entrants that ``principal`` may not see."""
    pairs = ((str(e.get("name", "")), str(e.get("source", ""))) for e in row.entrants)
    return hidden_in(principal, pairs)


def can_read_log(principal: Principal, game_owner: int | None, source: str) -> bool:
    """Whether ``principal`` may read the log of the seat played by ``source``.

    The owner of the snake in that seat (``@owner/name``) may, and so may the game's
    owner and the admins: a bot's stderr may hold what its author would show nobody else.
    """
    user = principal.user
    mine = user is not None and snake_ref_owner(source) == user.name
    return mine or principal.can_change(game_owner)


@router.get("/{game_id}/logs/{seat}")
async def seat_log(
    game_id: str,
    principal: UserDep,
    store: StoreDep,
    seat: int = Path(ge=0, le=1023, description="The entrant's seat (0 first)."),
) -> LogOut:
    """What a finished game logged about a seat: its bot's error log (errors, stderr).

    Only for whoever may see it: the owner of the snake in that seat
    (``@owner/name``), the game's owner, or an admin.  A bot's stderr may hold what
    its author would show nobody else.
    """
    row = await _stored(store, game_id)
    if seat >= len(row.entrants):
        raise NotFoundError(f"seat: game {game_id!r} has {len(row.entrants)} seats")
    entrant = row.entrants[seat]
    if not can_read_log(principal, row.owner_id, str(entrant.get("source", ""))):
        require_owner(principal, row.owner_id, f"the log of seat {seat} of game {game_id!r}")
    log = await store.run(store.store.games.log, game_id, seat)
    return LogOut(game_id=game_id, seat=seat, name=str(entrant.get("name", "")), log=log or "")


async def _rematch_spec(
    principal: Principal,
    config: ConfigDep,
    manager: ManagerDep,
    store: StoreDep,
    uploads: UploadsDep,
    game_id: str,
) -> MatchSpec:
    live = manager.games.get(game_id)
    spec: MatchSpec | None = live.spec if live is not None else None
    owner = live.owner_id if live is not None else None
    if live is None:
        row = await _stored(store, game_id)
        spec, owner = row.spec(), row.owner_id
    require_owner(principal, owner, f"game {game_id!r}")
    if spec is None:
        raise GameNotRunningError(f"game {game_id!r} was read from a file: no match to play")
    # Registered program bots run as they are registered now (a stored game names them).
    found = await programs_for(store, config, uploads, [e.source for e in spec.entrants])
    programs = {i: found[e.source] for i, e in enumerate(spec.entrants) if e.source in found}
    spec = dataclasses.replace(spec, entrants=with_programs(spec.entrants, programs))
    await check_entrants(get_game(spec.game), spec.entrants, config)
    # Today's caps apply to an old game's settings too.
    limit = turn_limit(config, get_game(spec.game), spec.params, spec.max_turns)
    return dataclasses.replace(spec, max_turns=limit, source="custom")


@router.post("/{game_id}/rematch", status_code=201)
async def rematch(
    game_id: str,
    request: Request,
    principal: UserDep,
    config: ConfigDep,
    manager: ManagerDep,
    store: StoreDep,
    limiter: LimiterDep,
    uploads: UploadsDep,
) -> GameOut:
    """A new game with the same entrants and settings and a new seed (owner or admin)."""
    async with _slot_counted(request, principal, config, manager, limiter) as slot:
        spec = await _rematch_spec(principal, config, manager, store, uploads, game_id)
        live = await manager.create(
            spec, owner_id=principal.id, slot=slot, record_calls=not config.public
        )
    return hide_sources(live_out(live), principal)


POSITION = "position"
"""The match parameter of a game's starting board (:meth:`GameAdapter.position_at`)."""


async def _fork_spec(
    body: ForkGame,
    principal: Principal,
    config: ConfigDep,
    manager: ManagerDep,
    store: StoreDep,
    uploads: UploadsDep,
    game_id: str,
) -> tuple[MatchSpec, int]:
    """The match of a fork of ``game_id`` at ``body.turn``, and the game's seed."""
    # The rematch's checks: the owner (or an admin), a match to play, today's caps.
    original = await _rematch_spec(principal, config, manager, store, uploads, game_id)
    adapter = get_game(original.game)
    data = await _game_data(manager, store, game_id)
    live = manager.games.get(game_id)
    seed = live.seed if live is not None else (await _stored(store, game_id)).seed
    position = await store.run(adapter.position_at, data, body.turn)
    params = {**original.params, POSITION: position}
    if body.snakes is None:
        spec = dataclasses.replace(original, params=adapter.parse_params(params))
        adapter.check(spec)
        return spec, seed
    resolved = await resolve_entrants(
        store, principal, config, adapter, body.snakes, body.names, uploads=uploads
    )
    spec = await web_match(
        config,
        original.game,
        resolved.texts,
        resolved.names,
        params,
        timeout_ms=original.timeout_ms,
        max_turns=original.max_turns,
        source="custom",
        programs=resolved.programs,
    )
    return spec, seed


@router.post("/{game_id}/fork", status_code=201)
async def fork(
    game_id: str,
    body: ForkGame,
    request: Request,
    principal: UserDep,
    config: ConfigDep,
    manager: ManagerDep,
    store: StoreDep,
    limiter: LimiterDep,
    uploads: UploadsDep,
) -> GameOut:
    """A new game played on from a turn of this one ("play on from here"; owner or admin).

    It starts from the board of ``turn`` (the turn the game's viewer shows) with the
    game's settings and seed, so the same snakes continue as the game did; ``snakes``
    replaces them seat by seat.  Refused as a rematch is (404, 403, the server's caps);
    a turn the game does not have, or a game that cannot be played on from a turn, is a
    422 naming ``turn``.
    """
    async with _slot_counted(request, principal, config, manager, limiter) as slot:
        spec, seed = await _fork_spec(body, principal, config, manager, store, uploads, game_id)
        live = await manager.create(
            spec,
            seed,
            owner_id=principal.id,
            slot=slot,
            step=body.step,
            record_calls=not config.public,
        )
    return hide_sources(live_out(live), principal)


@router.delete("/{game_id}", status_code=204, responses=NO_CONTENT)
async def delete_game(
    game_id: str, principal: UserDep, manager: ManagerDep, store: StoreDep
) -> Response:
    """Delete a finished game and its frames (its owner or an admin)."""
    require_owner(principal, await _owner_of(manager, store, game_id), f"game {game_id!r}")
    live = manager.games.get(game_id)
    if live is not None and not live.finished:
        raise GameNotRunningError(f"game {game_id!r} is running; cancel it first")
    manager.games.pop(game_id, None)
    await store.run(store.store.games.delete, game_id)
    return Response(status_code=204)


@router.get(
    "/{game_id}/replay",
    response_class=Response,
    responses={
        # The media type is the game's replay format's (x-ndjson, octet-stream...).
        200: binary_download("The replay file, in its game's format.", "application/*")
    },
)
async def export_replay(
    game_id: str, principal: PrincipalDep, manager: ManagerDep, store: StoreDep
) -> Response:
    """The game's replay file, in its game's format.

    An entrant's address is in it for its owner and admins only (``"hidden"`` for others).
    """
    row = await _stored(store, game_id)
    adapter = get_game(row.game)
    payload = await _replay_for(principal, row, manager, store)
    return Response(
        payload,
        media_type=adapter.replays.media_type,
        headers={
            "Content-Disposition": f'attachment; filename="{adapter.replay_filename(game_id)}"'
        },
    )


MAX_MEDIA_PIXELS = 1280
"""The widest picture the media route draws (the command line allows more)."""

MAX_MEDIA_FRAME_PIXELS = 256_000_000
"""The most pixels (frames × width²) of one GIF or MP4 the media route draws.

Pillow holds every frame of a GIF until it writes the file: a 500-turn game on a
64×64 map at 640 pixels (about 200 million) takes some 400 MB and a minute of CPU."""


@router.get(
    "/{game_id}/media",
    response_class=Response,
    responses={
        200: binary_download(
            "The game as a picture (png, svg: one turn), a gif or mp4, or an HTML replay.",
            "image/png",
            "image/svg+xml",
            "image/gif",
            "video/mp4",
            "text/html",
        )
    },
)
async def export_media_file(
    game_id: str,
    principal: PrincipalDep,
    manager: ManagerDep,
    store: StoreDep,
    slots: MediaSlotsDep,
    format: Literal["png", "svg", "gif", "mp4", "html"] = Query(
        ..., description="png or svg (one turn), gif or mp4 (every turn), html (a replay)."
    ),
    turn: int | None = Query(None, ge=0, description="The turn of a png or svg (default: last)."),
    size: int | None = Query(
        None,
        ge=64,
        le=MAX_MEDIA_PIXELS,
        description="Width in pixels (default: the game's own, sized to its board).",
    ),
    fps: int = Query(10, ge=1, le=60, description="Frames a second of a gif or mp4."),
    scoreboard: bool = Query(True, description="Draw the scoreboard beside the board."),
    theme: str = Query(
        "", max_length=32, description="The viewer's theme to draw in (light, dark)."
    ),
    palette: str = Query(
        "",
        max_length=32,
        description="The viewer's palette of the game's pieces (default, or another of the "
        "game's viewer, such as okabe-ito).",
    ),
) -> Response:
    """The game drawn as the viewer draws it (``snakewar export``), as a download.

    A running or stopped game is drawn as far as it was played.  Like the replay, an
    entrant's address is hidden from all but its owner and admins.
    Refused with 429 while ``media_workers`` drawings are under way, and with 422
    naming ``size`` when a GIF or MP4 would pass :data:`MAX_MEDIA_FRAME_PIXELS`.
    """
    async with _cpu_slot(slots):
        return await _media_response(
            game_id,
            principal,
            manager,
            store,
            format,
            turn,
            size,
            fps,
            scoreboard,
            MediaStyle(theme, palette),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class MediaStyle:
    """The colours a media download asks for (empty: the game's default)."""

    theme: str
    palette: str


@contextlib.asynccontextmanager
async def _cpu_slot(slots: asyncio.Semaphore) -> AsyncIterator[None]:
    """One of the server's ``media_workers`` slots for a download that costs CPU.

    Raises:
        BusyError: every slot is taken (the request is refused, not queued).
    """
    if slots.locked():
        raise BusyError("the server is drawing as many games as it can at once; try again soon")
    async with slots:
        yield


async def _media_response(
    game_id: str,
    principal: Principal,
    manager: GameManager,
    store: AsyncStore,
    format: str,
    turn: int | None,
    size: int | None,
    fps: int,
    scoreboard: bool,
    style: MediaStyle,
) -> Response:
    from snakewar.media import MEDIA_TYPES, export_media, style_refusal

    row = await _stored(store, game_id)
    adapter = get_game(row.game)
    codec = adapter.media()
    if codec is None:
        raise ParamsError("format", f"{adapter.name} games cannot be exported as pictures")
    for name, value, known in (
        ("theme", style.theme, codec.themes),
        ("palette", style.palette, codec.palettes),
    ):
        refusal = style_refusal(adapter.name, name, value, known)
        if refusal:
            raise ParamsError(name, refusal)
    replay_bytes = await _replay_for(principal, row, manager, store, media=True)
    media = await asyncio.to_thread(
        lambda: codec.load(
            replay_bytes,
            adapter.replay_filename(game_id),
            theme=style.theme,
            palette=style.palette,
        )
    )
    shown = media.turns[-1] if turn is None else turn
    if format in ("png", "svg") and shown not in media.turns:
        raise ParamsError(
            "turn", f"turn {shown} is not in the game (turns {media.turns[0]}..{media.turns[-1]})"
        )
    frames = len(media.turns)
    width = size or media.default_size or MAX_MEDIA_PIXELS
    if format in ("gif", "mp4") and frames * width * width > MAX_MEDIA_FRAME_PIXELS:
        widest = max(int((MAX_MEDIA_FRAME_PIXELS / frames) ** 0.5), 1)
        raise ParamsError(
            "size", f"a {format} of {frames} turns is at most {widest} pixels wide here"
        )
    title = f"{adapter.catalogue().title}: {game_id}"
    # Drawing and encoding are CPU work: off the event loop, and off the store's threads
    # (which the other requests' database work needs).
    payload = await asyncio.to_thread(
        lambda: export_media(
            media, format, turn=shown, size=size, fps=fps, scoreboard=scoreboard, title=title
        )
    )
    suffix = f"-{shown}" if format in ("png", "svg") else ""
    return Response(
        payload,
        media_type=MEDIA_TYPES[format],
        headers={"Content-Disposition": f'attachment; filename="{game_id}{suffix}.{format}"'},
    )


@router.get(
    "/{game_id}/scenario",
    response_class=Response,
    responses={
        200: binary_download(
            "A scenario file holding the turn as the player saw it, with its right moves "
            "by the rules engine (snakewar test --scenarios FILE runs it).",
            "application/json",
        )
    },
)
async def export_scenario(
    game_id: str,
    principal: PrincipalDep,
    manager: ManagerDep,
    store: StoreDep,
    slots: MediaSlotsDep,
    turn: int = Query(ge=0, le=2**31 - 1, description="The turn to save."),
    snake: str = Query(**{**PLAYER.limits(), "description": "The tested player's id or name."}),
    keep: bool = Query(False, description="Save a position that tests nothing."),
    kill: str | None = Query(
        None,
        **{
            **PLAYER.limits(),
            "description": "A kill goal: the player (id or name) the right moves surely "
            "take out this turn (default: the goal is to survive).",
        },
    ),
) -> Response:
    """A turn of the game as a test scenario (``snakewar replay scenario``), as a download.

    Like the replay, it is read with entrants' addresses hidden (a scenario holds none).
    Refused with 429 while ``media_workers`` such computations are under way.
    """
    row = await _stored(store, game_id)
    adapter = get_game(row.game)
    codec = adapter.scenarios()
    if codec is None:
        raise ParamsError("snake", f"{adapter.name} games cannot be saved as test scenarios")
    replay_bytes = await _replay_for(principal, row, manager, store)
    name = adapter.replay_filename(game_id)

    def make() -> bytes:
        entry = codec.from_replay(
            replay_bytes, name, turn=turn, player=snake, keep=keep, target=kill
        )
        return codec.add(None, [entry], "scenario file")

    try:
        # The rules engine plays every combination of moves (over a second for 8 snakes):
        # CPU work, off the event loop, in one of the server's few slots for it.
        async with _cpu_slot(slots):
            body = await asyncio.to_thread(make)
    except SnakewarError as exc:
        if not isinstance(exc, ValueError):
            raise
        raise ParamsError(str(getattr(exc, "field", "turn")), str(exc)) from None
    return Response(
        body,
        media_type="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="{game_id}-turn-{turn}'
            f'{codec.file_suffix}"'
        },
    )
