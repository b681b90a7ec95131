"""The Snakewar web server: REST API, the official board's engine API, live websockets.

Routes:

* ``/api/...``: the REST API the pages use (OpenAPI at ``/openapi.json``, docs at
  ``/docs``): create, list, get, cancel, rematch and export games; bots and maps.
* ``/games/{id}``, ``/games/{id}/frames``, websocket ``/games/{id}/events``: the
  official board's engine API, so the official board, exporter and community
  tools can watch Snakewar games unchanged (CORS open on these).
* ``/static/viewer/...``: the bundled viewer, and the pages' modules and stylesheet;
  the pages themselves (``/``, ``/new``, ``/view/{id}``, ...) are
  :mod:`snakewar.server.routers.pages`, the offline API docs
  :mod:`snakewar.server.routers.docs`.

Seeds travel as decimal strings in the JSON the pages read (JavaScript rounds
integers above 2**53); requests accept an integer or such a string.

Every request body is validated; errors are JSON ``{"detail": ...}`` naming the
field.  In public mode snake URLs must resolve to public addresses, game creation
is rate-limited per client and sizes are capped.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from snakewar import __version__
from snakewar.errors import SnakewarError
from snakewar.referee.batch import MatchSpec
from snakewar.referee.runner import snake_kind
from snakewar.server.manager import GameLimitError, GameManager, LiveGame
from snakewar.server.safety import RateLimiter, check_public_url
from snakewar.server.seeds import SeedInput

__all__ = ["CreateGame", "ServerConfig", "create_app"]

RULESETS = Literal["standard", "solo", "royale", "constrictor", "wrapped", "wrapped_constrictor"]


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """How a server runs.  ``public`` turns on the protections for an open server."""

    database_url: str | None = None
    public: bool = False
    max_board: int = 25
    max_snakes: int = 8
    max_concurrent_games: int = 32
    max_timeout_ms: int = 2000
    max_turns: int = 5000
    games_per_minute: float = 30.0
    """Per client, in public mode (a burst of 10 is allowed)."""
    store: Any = None
    """An already-open store (tests); otherwise one is opened from ``database_url``."""


class CreateGame(BaseModel):
    """A new game: snakes (URLs or built-in names) and settings."""

    model_config = ConfigDict(extra="forbid")

    snakes: list[str] = Field(min_length=1, max_length=64, description="In placement order.")
    names: list[str] = Field(default_factory=list, max_length=64)
    ruleset: RULESETS = "standard"
    map: str = Field("standard", max_length=64)
    width: int = Field(11, ge=1, le=255)
    height: int = Field(11, ge=1, le=255)
    timeout: int = Field(500, ge=1, le=60_000, description="Move timeout in ms.")
    seed: SeedInput | None = None
    food_spawn_chance: int = Field(15, ge=0, le=100, alias="foodSpawnChance")
    minimum_food: int = Field(1, ge=0, le=1000, alias="minimumFood")
    hazard_damage: int = Field(14, ge=-100, le=100, alias="hazardDamagePerTurn")
    shrink_every: int = Field(25, ge=0, le=10_000, alias="shrinkEveryNTurns")
    max_turns: int | None = Field(None, ge=1, alias="maxTurns")


def _game_summary(live: LiveGame) -> dict[str, Any]:
    record = live.record
    result = record.result if record is not None else None
    names = {e.id: e.name for e in record.snakes} if record is not None else {}
    return {
        "id": live.id,
        "status": live.status,
        "error": live.error,
        "seed": str(live.seed),
        "ruleset": live.spec.ruleset,
        "map": live.spec.map,
        "width": live.spec.width,
        "height": live.spec.height,
        "snakes": [
            {"id": e.id, "name": e.name, "source": e.source, "color": e.color}
            for e in (record.snakes if record is not None else [])
        ],
        "turn": live.frames[-1]["Turn"] if live.frames else 0,
        "winner": names.get(result.winner) if result and result.winner else None,
        "is_draw": bool(result and result.is_draw),
        "viewer": f"/view/{live.id}",
    }


def _spec_from_row(row: Any) -> MatchSpec:
    """The match of a stored game (same snakes, names and settings), for a rematch."""
    header = row.config
    config = header.get("config", {})
    snakes = header.get("snakes", [])
    return MatchSpec(
        snakes=tuple(str(s["source"]) for s in snakes),
        names=tuple(str(s["name"]) for s in snakes),
        ruleset=str(config.get("ruleset", row.ruleset)),
        map=str(config.get("map", row.map)),
        width=int(config.get("width", row.width)),
        height=int(config.get("height", row.height)),
        params={str(k): str(v) for k, v in config.get("settings", {}).items()},
        timeout_ms=int(header.get("timeout", row.timeout_ms)),
        source=row.source,
    )


def _row_game_info(row: Any) -> dict[str, Any]:
    """The engine API's ``Game`` object of a stored game."""
    from snakewar.games.battlesnake.settings import Settings

    raw = row.config.get("config", {}).get("settings", {})
    settings = Settings({str(k): str(v) for k, v in raw.items()}, row.seed).to_api()
    return {
        "ID": row.id,
        "Status": row.status,
        "Width": row.width,
        "Height": row.height,
        "Ruleset": {
            "name": row.ruleset,
            "foodSpawnChance": str(settings["foodSpawnChance"]),
            "minimumFood": str(settings["minimumFood"]),
            "hazardDamagePerTurn": str(settings["hazardDamagePerTurn"]),
            "shrinkEveryNTurns": str(settings["royale"]["shrinkEveryNTurns"]),
        },
        "SnakeTimeout": row.timeout_ms,
        "Source": row.source,
        "RulesetName": row.ruleset,
        "RulesStages": [],
        "Map": row.map,
        "Seed": row.seed,
        "SeedString": str(row.seed),
    }


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """Build the ASGI application."""
    config = config or ServerConfig()
    limiter = RateLimiter(per_minute=config.games_per_minute)
    state: dict[str, Any] = {"public": config.public}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = config.store
        if store is None and config.database_url != "memory":
            from snakewar.server.store import Store

            store = Store(config.database_url)
        if store is not None:
            store.mark_running_as_aborted()
        manager = GameManager(store, config.max_concurrent_games)
        await manager.start()
        state["manager"] = manager
        state["store"] = store
        # What the routers' dependencies read (snakewar.server.deps).
        app.state.manager = manager
        app.state.store = store
        try:
            yield
        finally:
            await manager.close()
            if store is not None and config.store is None:
                store.close()

    app = FastAPI(
        title="Snakewar",
        version=__version__,
        description="Create and watch Battlesnake games; the official board's engine API.",
        lifespan=lifespan,
        # Served from the package by routers.docs: FastAPI's own pages need a CDN.
        docs_url=None,
        redoc_url=None,
    )
    app.state.public = config.public
    app.add_middleware(
        CORSMiddleware, allow_origins=["*"], allow_methods=["GET", "POST"], allow_headers=["*"]
    )

    def manager() -> GameManager:
        result: GameManager = state["manager"]
        return result

    @app.exception_handler(SnakewarError)
    async def snakewar_error(request: Request, exc: SnakewarError) -> JSONResponse:
        status = 429 if isinstance(exc, GameLimitError) else 400
        return JSONResponse({"detail": str(exc)}, status_code=status)

    async def start_game(body: CreateGame, request: Request) -> LiveGame:
        if config.public:
            client = request.client.host if request.client else "unknown"
            if not limiter.allow(client):
                raise HTTPException(429, "too many games created from this address; wait a minute")
        if len(body.snakes) > config.max_snakes:
            raise HTTPException(
                422, f"snakes: {len(body.snakes)} given, this server allows {config.max_snakes}"
            )
        for field_name, value in (("width", body.width), ("height", body.height)):
            if value > config.max_board:
                raise HTTPException(
                    422, f"{field_name}: {value} is larger than this server's {config.max_board}"
                )
        if body.timeout > config.max_timeout_ms:
            raise HTTPException(
                422, f"timeout: {body.timeout} ms exceeds this server's {config.max_timeout_ms}"
            )
        for snake in body.snakes:
            kind, target = snake_kind(snake)
            if config.public and kind != "builtin":
                await check_public_url(target)
        max_turns = min(body.max_turns or config.max_turns, config.max_turns)
        spec = MatchSpec(
            snakes=tuple(body.snakes),
            names=tuple(body.names),
            ruleset=body.ruleset,
            map=body.map,
            width=body.width,
            height=body.height,
            params={
                "foodSpawnChance": str(body.food_spawn_chance),
                "minimumFood": str(body.minimum_food),
                "damagePerTurn": str(body.hazard_damage),
                "shrinkEveryNTurns": str(body.shrink_every),
            },
            timeout_ms=body.timeout,
            max_turns=max_turns,
            source="custom",
        )
        return await manager().create(spec, body.seed)

    # -- REST API -------------------------------------------------------------------

    @app.post("/api/games", status_code=201, tags=["games"])
    async def create_game(body: CreateGame, request: Request) -> dict[str, Any]:
        """Start a game; it runs in the background.  Returns its summary."""
        return _game_summary(await start_game(body, request))

    @app.get("/api/games", tags=["games"])
    async def list_games(
        limit: int = Query(50, ge=1, le=500), offset: int = Query(0, ge=0)
    ) -> dict[str, Any]:
        """Live games first, then stored ones, newest first."""
        live = [_game_summary(g) for g in manager().live_games()]
        stored: list[dict[str, Any]] = []
        store = state["store"]
        if store is not None:
            live_ids = {g["id"] for g in live}
            for row in store.list_games(limit=limit, offset=offset):
                if row.id not in live_ids:
                    stored.append(_row_summary(row))
        else:  # nothing stored: the finished games this process still remembers
            done = [g for g in reversed(manager().games.values()) if g.finished]
            stored = [_game_summary(g) for g in done[offset : offset + limit]]
        return {"live": live, "games": stored}

    def _row_summary(row: Any) -> dict[str, Any]:
        return {
            "id": row.id,
            "status": row.status,
            "seed": str(row.seed),
            "ruleset": row.ruleset,
            "map": row.map,
            "width": row.width,
            "height": row.height,
            "snakes": row.snakes,
            "is_draw": bool(((row.result or {}).get("result") or {}).get("isDraw")),
            "turn": row.turns,
            "winner": row.winner_name,
            "created_at": str(row.created_at),
            "viewer": f"/view/{row.id}",
        }

    @app.get("/api/games/{game_id}", tags=["games"])
    async def get_game(game_id: str) -> dict[str, Any]:
        """One game's summary."""
        live = manager().games.get(game_id)
        if live is not None:
            return _game_summary(live)
        row = _stored(game_id)
        return _row_summary(row)

    def _stored(game_id: str) -> Any:
        store = state["store"]
        row = store.get_game(game_id) if store is not None else None
        if row is None:
            raise HTTPException(404, f"game {game_id!r} not found")
        return row

    @app.post("/api/games/{game_id}/cancel", tags=["games"])
    async def cancel_game(game_id: str) -> dict[str, Any]:
        """Stop a running game (its frames so far are kept)."""
        if not await manager().cancel(game_id):
            _stored(game_id)
            raise HTTPException(409, f"game {game_id!r} is not running")
        return _game_summary(manager().games[game_id])

    @app.post("/api/games/{game_id}/rematch", status_code=201, tags=["games"])
    async def rematch(game_id: str, request: Request) -> dict[str, Any]:
        """A new game with the same snakes and settings and a new seed."""
        live = manager().games.get(game_id)
        spec = live.spec if live is not None else _spec_from_row(_stored(game_id))
        return _game_summary(await manager().create(spec))

    @app.get("/api/games/{game_id}/replay", tags=["games"], response_class=PlainTextResponse)
    async def export_replay(game_id: str) -> PlainTextResponse:
        """The game as a Snakewar replay file (JSON Lines)."""
        store = state["store"]
        live = manager().games.get(game_id)
        if store is not None and (live is None or live.finished):
            _stored(game_id)
            lines = store.export_replay_lines(game_id)
        elif live is not None and live.record is not None:
            from snakewar.replay import replay_lines

            lines = replay_lines(live.record)
        else:
            raise HTTPException(404, f"game {game_id!r} not found")
        return PlainTextResponse(
            "\n".join(lines) + "\n",
            media_type="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="{game_id}.jsonl"'},
        )

    @app.get("/api/bots", tags=["catalogue"])
    async def bots() -> list[str]:
        """The built-in bots, usable as ``builtin:NAME``."""
        from snakewar.bots import bot_names

        return bot_names()

    @app.get("/api/maps", tags=["catalogue"])
    async def maps() -> list[dict[str, Any]]:
        """Every map with its valid sizes and player counts."""
        from snakewar.games.battlesnake import list_maps

        out = []
        for game_map in list_maps():
            meta = game_map.meta
            out.append(
                {
                    "id": game_map.id,
                    "name": meta.name,
                    "description": meta.description,
                    "min_players": meta.min_players,
                    "max_players": meta.max_players,
                    "sizes": "any"
                    if meta.sizes.unlimited
                    else [list(size) for size in meta.sizes.sizes],
                }
            )
        return out

    # -- the official board's engine API ------------------------------------------------

    @app.get("/games/{game_id}", tags=["engine"])
    async def engine_game(game_id: str) -> dict[str, Any]:
        """``{"Game": ..., "LastFrame": ...}`` as the official board reads it."""
        live = manager().games.get(game_id)
        if live is not None:
            return {"Game": live.info(), "LastFrame": live.frames[-1] if live.frames else None}
        row = _stored(game_id)
        store = state["store"]
        count = store.frame_count(game_id)
        last = store.frames(game_id, offset=max(count - 1, 0), limit=1)
        return {"Game": _row_game_info(row), "LastFrame": last[0] if last else None}

    @app.get("/games/{game_id}/frames", tags=["engine"])
    async def engine_frames(
        game_id: str, offset: int = Query(0, ge=0), limit: int = Query(100, ge=1, le=1000)
    ) -> dict[str, Any]:
        """``{"Count": n, "Frames": [...]}``: a page of frames."""
        live = manager().games.get(game_id)
        if live is not None:
            return {"Count": len(live.frames), "Frames": live.frames[offset : offset + limit]}
        _stored(game_id)
        store = state["store"]
        return {
            "Count": store.frame_count(game_id),
            "Frames": store.frames(game_id, offset=offset, limit=limit),
        }

    @app.websocket("/games/{game_id}/events")
    async def engine_events(websocket: WebSocket, game_id: str) -> None:
        """Every frame from turn 0, live, then ``{"Type": "game_end"}``."""
        await websocket.accept()
        try:
            live = manager().games.get(game_id)
            if live is not None:
                async for item, produced in live.follow():
                    # "Time" (when the frame was made) is extra: the official board ignores it.
                    await websocket.send_json({"Type": "frame", "Data": item, "Time": produced})
                await websocket.send_json({"Type": "game_end", "Data": live.info()})
            else:
                store = state["store"]
                row = store.get_game(game_id) if store is not None else None
                if row is None:
                    await websocket.close(code=4404, reason="game not found")
                    return
                for item in store.frames(game_id):
                    await websocket.send_json({"Type": "frame", "Data": item})
                await websocket.send_json({"Type": "game_end", "Data": _row_game_info(row)})
            await websocket.close()
        except WebSocketDisconnect:
            return

    from snakewar.server.arena_routes import add_arena_routes
    from snakewar.server.halite_routes import add_halite_routes
    from snakewar.server.routers import docs, pages, tester

    add_arena_routes(app, state)
    add_halite_routes(app, state)
    app.include_router(tester.router)
    app.include_router(pages.router)
    app.include_router(docs.router)
    mount_static(app)
    return app


def mount_static(app: FastAPI) -> None:
    """Serve the viewer's files (and the pages' modules) and the API docs' files."""
    from fastapi.staticfiles import StaticFiles

    from snakewar.server.deps import STATIC_URL
    from snakewar.server.routers.docs import mount_docs_static
    from snakewar.viewer import static_dir

    app.mount(STATIC_URL, StaticFiles(directory=static_dir()), name="viewer")
    mount_docs_static(app)
