"""Ladders and tournaments on the server: the REST API.

A ladder run plays in a worker thread (the arena's executors run their own event
loop), one run per ladder at a time; the pages (:mod:`snakewar.server.routers.pages`)
poll the API, so standings and the chart update while games are played.  Seeds in
the answers are decimal strings (:mod:`snakewar.server.seeds`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI, HTTPException
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from snakewar.server.seeds import with_seed_strings

__all__ = ["add_arena_routes"]


class CreateLadder(BaseModel):
    """A new ladder and its game config."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$")
    ruleset: str = Field("standard", max_length=32)
    map: str = Field("standard", max_length=64)
    width: int = Field(11, ge=1, le=25)
    height: int = Field(11, ge=1, le=25)
    timeout: int = Field(500, ge=1, le=2000)
    game_size: int = Field(2, ge=2, le=8)
    seed: int = Field(1, ge=0, le=2**62)


class AddSnake(BaseModel):
    """A snake joining a ladder."""

    model_config = ConfigDict(extra="forbid")

    snake: str = Field(min_length=1, max_length=2048, description="URL, builtin:NAME or legacy:URL")
    name: str | None = Field(None, min_length=1, max_length=64)


class CreateTournament(BaseModel):
    """A new tournament: snakes by seed (best first) and the format."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    format: str = Field("single_elimination", max_length=32)
    snakes: list[str] = Field(min_length=2, max_length=64)
    names: list[str] = Field(default_factory=list, max_length=64)
    heat_size: int = Field(2, ge=2, le=8)
    best_of: int = Field(1, ge=1, le=9)
    ruleset: str = Field("standard", max_length=32)
    map: str = Field("standard", max_length=64)
    width: int = Field(11, ge=1, le=25)
    height: int = Field(11, ge=1, le=25)
    timeout: int = Field(500, ge=1, le=2000)
    seed: int = Field(1, ge=0, le=2**62)


class RunLadder(BaseModel):
    """How many games to play now."""

    model_config = ConfigDict(extra="forbid")

    games: int = Field(10, ge=1, le=1000)


def _ladder_json(ladder: Any, running: bool) -> dict[str, Any]:
    rows = ladder.standings()
    history = ladder.board.history.to_dict()
    standings = []
    for row in rows:
        entry = ladder.entries.get(row.snake)
        standings.append(
            {
                "rank": row.rank,
                "snake": row.snake,
                "rating": row.display,
                "mu": row.rating.mu,
                "sigma": row.rating.sigma,
                "games": row.games,
                "paused": bool(entry and entry.paused),
                "note": entry.note if entry else "",
                "source": entry.source if entry else "",
            }
        )
    rated = {row.snake for row in rows}
    for entry in ladder.entries.values():
        if entry.name not in rated:
            standings.append(
                {
                    "rank": None,
                    "snake": entry.name,
                    "rating": None,
                    "mu": None,
                    "sigma": None,
                    "games": 0,
                    "paused": entry.paused,
                    "note": entry.note,
                    "source": entry.source,
                }
            )
    return {
        "name": ladder.name,
        "running": running,
        "config": ladder.to_dict()["config"],
        "games_played": len(ladder.games),
        "standings": standings,
        "history": history,
        "recent_games": [
            with_seed_strings({**game, "viewer": _viewer_url(game)})
            for game in reversed(ladder.games[-20:])
        ],
    }


def _viewer_url(game: dict[str, Any]) -> str:
    """Where a ladder game is watched: the Halite viewer or the Battlesnake one."""
    if game.get("game") == "halite3":
        return f"/halite/games/{game['game_id']}"
    return f"/view/{game['game_id']}"


def add_arena_routes(app: FastAPI, state: dict[str, Any]) -> None:
    """Add the ladder and tournament API to ``app``."""
    running: set[str] = set()

    def store() -> Any:
        current = state.get("store")
        if current is None:
            raise HTTPException(503, "ladders need a database (this server runs without one)")
        return current

    def load(name: str) -> Any:
        from snakewar.arena.ladder import LadderError, load_ladder

        try:
            return load_ladder(store(), name)
        except LadderError as exc:
            raise HTTPException(404, str(exc)) from None

    @app.get("/api/ladders", tags=["ladders"])
    async def list_ladders() -> list[dict[str, Any]]:
        """Every ladder with its size and games played."""
        out = []
        for name in store().list_ladders():
            ladder = load(name)
            out.append(
                {
                    "name": name,
                    "snakes": len(ladder.entries),
                    "games_played": len(ladder.games),
                    "running": name in running,
                }
            )
        return out

    @app.post("/api/ladders", status_code=201, tags=["ladders"])
    async def create_ladder(body: CreateLadder) -> dict[str, Any]:
        """Create a ladder."""
        from snakewar.arena.ladder import Ladder, LadderConfig

        if store().load_ladder(body.name) is not None:
            raise HTTPException(409, f"a ladder named {body.name!r} already exists")
        config = LadderConfig(
            body.ruleset,
            body.map,
            body.width,
            body.height,
            timeout_ms=body.timeout,
            game_size=body.game_size,
        )
        config.check()  # a 400 naming the problem if the ruleset, map or size cannot play
        ladder = Ladder(body.name, config, body.seed)
        store().save_ladder(body.name, ladder.to_dict())
        return _ladder_json(ladder, False)

    @app.post("/api/ladders/{name}/snakes", status_code=201, tags=["ladders"])
    async def add_snake(name: str, body: AddSnake) -> dict[str, Any]:
        """Add a snake to a ladder (public servers refuse private addresses)."""
        from snakewar.referee.runner import snake_kind
        from snakewar.server.safety import check_public_url

        if name in running:
            raise HTTPException(409, f"ladder {name!r} is running; add snakes between runs")
        kind, target = snake_kind(body.snake)
        if state.get("public") and kind != "builtin":
            await check_public_url(target)
        ladder = load(name)
        ladder.add(body.snake, body.name)
        store().save_ladder(name, ladder.to_dict())
        return _ladder_json(ladder, False)

    @app.get("/api/ladders/{name}", tags=["ladders"])
    async def get_ladder(name: str) -> dict[str, Any]:
        """Standings (rating = mu - 3 sigma), rating history and the recent games."""
        return _ladder_json(load(name), name in running)

    @app.post("/api/ladders/{name}/run", status_code=202, tags=["ladders"])
    async def run_ladder(name: str, body: RunLadder) -> dict[str, Any]:
        """Play ``games`` more games in the background."""
        ladder = load(name)
        if name in running:
            raise HTTPException(409, f"ladder {name!r} is already running")
        running.add(name)

        def play() -> None:
            try:
                ladder.run(body.games, store())
            finally:
                running.discard(name)

        task = asyncio.get_running_loop().run_in_executor(None, play)
        state.setdefault("ladder_tasks", set()).add(task)
        task.add_done_callback(state["ladder_tasks"].discard)
        return {"name": name, "running": True, "games": body.games}

    # -- tournaments ------------------------------------------------------------------

    def load_run(tid: str) -> Any:
        from snakewar.arena.tournament_runner import TournamentRunError, load_tournament

        try:
            return load_tournament(store(), tid)
        except TournamentRunError as exc:
            raise HTTPException(404, str(exc)) from None

    @app.post("/api/tournaments", status_code=201, tags=["tournaments"])
    async def create_tournament(body: CreateTournament) -> dict[str, Any]:
        """Create a tournament and start playing it in the background."""
        from snakewar.arena.ladder import LadderConfig
        from snakewar.arena.tournament_runner import TournamentRun
        from snakewar.referee.runner import snake_kind
        from snakewar.server.safety import check_public_url

        if len(body.names) > len(body.snakes):
            raise HTTPException(422, f"names: {len(body.names)} given for {len(body.snakes)}")
        for snake in body.snakes:
            kind, target = snake_kind(snake)
            if state.get("public") and kind != "builtin":
                await check_public_url(target)
        config = LadderConfig(
            body.ruleset, body.map, body.width, body.height, timeout_ms=body.timeout
        )
        pairs = [
            (snake, body.names[i] if i < len(body.names) else None)
            for i, snake in enumerate(body.snakes)
        ]
        run = TournamentRun.create(
            body.name,
            body.format,
            pairs,
            config=config,
            seed=body.seed,
            heat_size=body.heat_size,
            best_of=body.best_of,
        )
        run.save(store())
        running.add(run.id)

        def play() -> None:
            try:
                run.run(store())
            finally:
                running.discard(run.id)

        task = asyncio.get_running_loop().run_in_executor(None, play)
        state.setdefault("arena_tasks", set()).add(task)
        task.add_done_callback(state["arena_tasks"].discard)
        return with_seed_strings(
            {**run.export(), "running": True, "page": f"/tournaments/{run.id}"}
        )

    @app.get("/api/tournaments", tags=["tournaments"])
    async def list_tournaments() -> list[dict[str, Any]]:
        """Every tournament's id and name."""
        return [
            {"id": tid, "name": name, "page": f"/tournaments/{tid}", "running": tid in running}
            for tid, name in store().list_tournaments()
        ]

    @app.get("/api/tournaments/{tid}", tags=["tournaments"])
    async def get_tournament(tid: str) -> dict[str, Any]:
        """Standings, champion and every match with its games (the bracket)."""
        return with_seed_strings({**load_run(tid).export(), "running": tid in running})

    @app.get("/api/tournaments/{tid}/export", tags=["tournaments"])
    async def export_tournament(tid: str) -> JSONResponse:
        """The results as a JSON file (seeds as numbers, as ``snakewar tournament`` writes)."""
        return JSONResponse(
            load_run(tid).export(),
            headers={"Content-Disposition": f'attachment; filename="{tid}.json"'},
        )
