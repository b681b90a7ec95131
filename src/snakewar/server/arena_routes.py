"""Ladders on the server: REST API and pages (standings, rating chart, recent games).

A ladder run plays in a worker thread (the arena's executors run their own event
loop), one run per ladder at a time; the pages poll the API, so standings and the
chart update while games are played.  Seeds in the answers are decimal strings
(:mod:`snakewar.server.seeds`).
"""

from __future__ import annotations

import asyncio
import html
from typing import Any

from fastapi import FastAPI, HTTPException
from fastapi.responses import HTMLResponse, JSONResponse
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


def add_arena_routes(app: FastAPI, state: dict[str, Any], page: Any) -> None:
    """Add the ladder API and pages (``page(title, body)`` renders the site's layout)."""
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

    @app.get("/tournaments/{tid}", response_class=HTMLResponse, include_in_schema=False)
    async def tournament_page(tid: str) -> HTMLResponse:
        load_run(tid)
        result: HTMLResponse = page(
            "Tournament",
            f"""<h1 id="title" data-testid="tournament-title">Tournament</h1>
<p><span id="status" data-testid="tournament-status"></span>
<a href="/api/tournaments/{html.escape(tid)}/export" data-testid="tournament-export">Export
results</a></p>
<div id="bracket" data-testid="bracket" style="display:flex;gap:1.2em;overflow-x:auto"></div>
<h2>Standings</h2><table><tbody id="standings" data-testid="tournament-standings"></tbody></table>
<script>
const TID = {tid!r};
function el(tag, text, cls) {{
  const e = document.createElement(tag); if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls; return e;
}}
async function refresh() {{
  const data = await (await fetch(`/api/tournaments/${{TID}}`)).json();
  document.getElementById("title").textContent = `${{data.name}} (${{data.format}})`;
  document.getElementById("status").textContent = data.finished
    ? `Champion: ${{data.champion}}` : (data.running ? "Playing now" : "Waiting");
  const rounds = new Map();
  for (const m of data.matches) {{
    const key = `${{m.bracket}} ${{m.round}}`;
    if (!rounds.has(key)) rounds.set(key, []);
    rounds.get(key).push(m);
  }}
  const columns = [];
  for (const [key, matches] of rounds) {{
    const col = el("div"); col.append(el("h3", key));
    for (const m of matches) {{
      const box = el("div"); box.dataset.testid = "match";
      box.style.cssText = "border:1px solid var(--border);border-radius:6px;padding:.4em;" +
        "margin-bottom:.6em;background:var(--card);min-width:11em";
      for (const name of m.entrants) {{
        const won = m.advanced.includes(name);
        const line = el("div", `${{name ?? "?"}} ${{m.wins?.[name] ?? ""}}`, won ? "pass" : "");
        box.append(line);
      }}
      if (m.status === "bye") box.append(el("div", "bye", "muted"));
      m.games.forEach((g, i) => {{
        const a = el("a", `game ${{i + 1}}`);
        a.href = (g.game === "halite3" ? "/halite/games/" : "/view/") + g.game_id;
        box.append(a, document.createTextNode(" "));
      }});
      col.append(box);
    }}
    columns.push(col);
  }}
  document.getElementById("bracket").replaceChildren(...columns);
  document.getElementById("standings").replaceChildren(...data.standings.map(s => {{
    const tr = el("tr"); tr.append(el("td", s.place), el("td", s.entrant)); return tr;
  }}));
  if (!data.finished) setTimeout(refresh, 1500);
}}
refresh();
</script>""",
        )
        return result

    @app.get("/ladders", response_class=HTMLResponse, include_in_schema=False)
    async def ladders_page() -> HTMLResponse:
        rows = "".join(
            f'<tr><td><a href="/ladders/{html.escape(ladder["name"])}">'
            f"{html.escape(ladder['name'])}</a></td><td>{ladder['snakes']} snakes</td>"
            f"<td>{ladder['games_played']} games</td></tr>"
            for ladder in await list_ladders()
        )
        result: HTMLResponse = page(
            "Ladders",
            f"""<h1>Ladders</h1><table data-testid="ladders">{rows}</table>
<p class="muted">Create one with <code>snakewar ladder create</code> or
<code>POST /api/ladders</code>.</p>""",
        )
        return result

    @app.get("/ladders/{name}", response_class=HTMLResponse, include_in_schema=False)
    async def ladder_page(name: str) -> HTMLResponse:
        load(name)
        safe = html.escape(name)
        result: HTMLResponse = page(
            f"Ladder {name}",
            f"""<h1>Ladder {safe}</h1>
<p><span id="summary" data-testid="ladder-summary"></span>
<button id="run" data-testid="ladder-run" style="width:auto">Play 10 games</button></p>
<table><thead><tr><th>#</th><th>snake</th><th>rating</th><th>mu</th><th>sigma</th>
<th>games</th><th>status</th></tr></thead><tbody id="standings" data-testid="standings"></tbody>
</table>
<h2>Ratings over games</h2>
<svg id="chart" data-testid="rating-chart" viewBox="0 0 600 240" width="100%" height="240"
  role="img" aria-label="rating history"></svg>
<h2>Recent games</h2><table><tbody id="games" data-testid="ladder-games"></tbody></table>
<script>
const NAME = {name!r};
const PALETTE = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6"];
function cell(text) {{ const td = document.createElement("td"); td.textContent = text; return td; }}
function chart(history) {{
  const svg = document.getElementById("chart");
  svg.replaceChildren();
  const series = Object.entries(history);
  let lo = Infinity, hi = -Infinity, longest = 1;
  for (const [, points] of series) {{
    longest = Math.max(longest, points.length);
    for (const p of points) {{
      const d = p.mu - 3 * p.sigma; lo = Math.min(lo, d); hi = Math.max(hi, d);
    }}
  }}
  if (!isFinite(lo)) return;
  if (hi - lo < 1) {{ hi += 1; lo -= 1; }}
  series.forEach(([snake, points], i) => {{
    const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    line.setAttribute("fill", "none");
    line.setAttribute("stroke", PALETTE[i % PALETTE.length]);
    line.setAttribute("stroke-width", "2");
    line.setAttribute("points", points.map((p, k) => {{
      const d = p.mu - 3 * p.sigma;
      return `${{10 + 580 * k / Math.max(longest - 1, 1)}},${{230 - 220 * (d - lo) / (hi - lo)}}`;
    }}).join(" "));
    const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
    title.textContent = snake; line.append(title); svg.append(line);
  }});
}}
async function refresh() {{
  const data = await (await fetch(`/api/ladders/${{NAME}}`)).json();
  document.getElementById("summary").textContent =
    `${{data.games_played}} games` + (data.running ? " - playing now" : "");
  document.getElementById("standings").replaceChildren(...data.standings.map(s => {{
    const tr = document.createElement("tr");
    for (const v of [s.rank ?? "-", s.snake, s.rating?.toFixed(2) ?? "-", s.mu?.toFixed(2) ?? "-",
                     s.sigma?.toFixed(2) ?? "-", s.games, s.paused ? s.note : "active"])
      tr.append(cell(v));
    return tr;
  }}));
  document.getElementById("games").replaceChildren(...data.recent_games.map(g => {{
    const tr = document.createElement("tr");
    tr.append(cell(g.placement.map(group => group.join(" = ")).join(" > ")));
    tr.append(cell(`${{g.turns}} turns`));
    const td = document.createElement("td"); const a = document.createElement("a");
    a.href = g.viewer; a.textContent = "watch"; td.append(a); tr.append(td);
    return tr;
  }}));
  const history = {{}};
  for (const [snake, points] of Object.entries(data.history)) history[snake] = points;
  chart(history);
}}
document.getElementById("run").addEventListener("click", async () => {{
  await fetch(`/api/ladders/${{NAME}}/run`, {{method: "POST",
    headers: {{"Content-Type": "application/json"}}, body: JSON.stringify({{games: 10}})}});
  refresh();
}});
refresh(); setInterval(refresh, 2000);
</script>""",
        )
        return result
