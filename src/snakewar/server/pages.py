"""The server's HTML pages: home, new game, game, replay and snake tester.

Pages are small server-rendered HTML with a little inline script that calls the
REST API; the board itself is the bundled viewer (:mod:`snakewar.viewer`).
Everything is served locally: no CDN, works offline.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["add_pages"]

_STYLE = """
:root { color-scheme: light dark; --bg: #f7f7f9; --fg: #1d1d22; --card: #fff; --muted: #6b6b76;
  --accent: #2e7d32; --border: #dcdce3; }
@media (prefers-color-scheme: dark) { :root { --bg: #17171c; --fg: #ececf1; --card: #22222a;
  --muted: #9a9aa6; --accent: #66bb6a; --border: #34343e; } }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; background: var(--bg); color: var(--fg); }
header { display: flex; gap: 1.2em; align-items: center; padding: .7em 1.2em;
  border-bottom: 1px solid var(--border); background: var(--card); }
header a { color: var(--fg); text-decoration: none; font-weight: 600; }
header .brand { color: var(--accent); font-size: 1.15em; }
main { max-width: 980px; margin: 1.2em auto; padding: 0 1em; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: .35em .6em; border-bottom: 1px solid var(--border); }
form { display: grid; gap: .7em; background: var(--card); padding: 1em;
  border: 1px solid var(--border); border-radius: 8px; }
label { display: grid; gap: .2em; font-weight: 600; }
.row { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: .7em; }
input, select, textarea, button { font: inherit; padding: .35em .5em; border-radius: 5px;
  border: 1px solid var(--border); background: var(--bg); color: var(--fg);
  box-sizing: border-box; width: 100%; min-width: 0; }
a button { width: auto; }
button { background: var(--accent); color: #fff; border: none; cursor: pointer; font-weight: 600; }
.error { color: #c62828; white-space: pre-wrap; }
.muted { color: var(--muted); font-weight: normal; }
.pass { color: var(--accent); font-weight: 700; } .fail { color: #c62828; font-weight: 700; }
iframe { width: 100%; height: 80vh; border: 0; }
"""


def _page(title: str, body: str) -> HTMLResponse:
    return HTMLResponse(
        f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)} · Snakewar</title><style>{_STYLE}</style></head><body>
<header><a class="brand" href="/">Snakewar</a><a href="/new" data-testid="nav-new">New game</a>
<a href="/replay" data-testid="nav-replay">Open a replay</a>
<a href="/test" data-testid="nav-test">Test a snake</a>
<a href="/ladders" data-testid="nav-ladders">Ladders</a>
<a href="/halite" data-testid="nav-halite">Halite</a><a href="/docs">API</a></header>
<main>{body}</main></body></html>"""
    )


class TestRequest(BaseModel):
    """A snake to test."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, max_length=2048, description="URL, builtin:NAME or legacy:URL")
    timeout: int = Field(500, ge=1, le=10_000)


def add_pages(app: FastAPI, state: dict[str, Any]) -> None:
    """Add the pages, the tester API and the viewer's static files to ``app``."""
    from snakewar.server.arena_routes import add_arena_routes
    from snakewar.viewer import static_dir

    add_arena_routes(app, state, _page)

    static = static_dir()
    if Path(static).is_dir():
        app.mount("/static/viewer", StaticFiles(directory=static), name="viewer")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home() -> HTMLResponse:
        return _page(
            "Home",
            """<h1>Games</h1>
<p><a href="/new" data-testid="start-game"><button>Start a new game</button></a></p>
<h2>Live</h2><table data-testid="live-games"><tbody id="live"></tbody></table>
<h2>Recent</h2><table data-testid="recent-games"><tbody id="recent"></tbody></table>
<script>
function row(g) {
  const names = (g.snakes || []).map(s => s.name).join(", ");
  const result = g.winner ? "won by " + g.winner : (g.is_draw ? "draw" : g.status);
  const tr = document.createElement("tr");
  for (const text of [names, `${g.ruleset} · ${g.map} · ${g.width}x${g.height}`,
                      "turn " + g.turn, result]) {
    const td = document.createElement("td"); td.textContent = text; tr.append(td);
  }
  const td = document.createElement("td"); const a = document.createElement("a");
  a.href = g.viewer; a.textContent = "watch"; td.append(a); tr.append(td);
  return tr;
}
async function refresh() {
  const data = await (await fetch("/api/games?limit=30")).json();
  document.getElementById("live").replaceChildren(...data.live.map(row));
  document.getElementById("recent").replaceChildren(...data.games.map(row));
}
refresh(); setInterval(refresh, 3000);
</script>""",
        )

    @app.get("/new", response_class=HTMLResponse, include_in_schema=False)
    async def new_game() -> HTMLResponse:
        from snakewar.bots import bot_names

        bots = ", ".join(f"builtin:{b}" for b in bot_names())
        return _page(
            "New game",
            f"""<h1>New game</h1>
<form id="new-game" data-testid="new-game-form">
<label>Snakes <span class="muted">one per line: a URL or a built-in ({html.escape(bots)})</span>
<textarea name="snakes" rows="4" data-testid="snakes">builtin:hunter
builtin:greedy</textarea></label>
<div class="row">
<label>Ruleset<select name="ruleset" data-testid="ruleset">
<option>standard</option><option>royale</option><option>constrictor</option><option>wrapped</option>
<option>wrapped_constrictor</option><option>solo</option></select></label>
<label>Map<select name="map" id="map" data-testid="map"></select></label>
<label>Width<input name="width" type="number" value="11" min="1" max="25"></label>
<label>Height<input name="height" type="number" value="11" min="1" max="25"></label>
</div>
<p class="muted" id="map-info"></p>
<div class="row">
<label>Timeout (ms)<input name="timeout" type="number" value="500" min="1"></label>
<label>Seed<input name="seed" type="text" inputmode="numeric" pattern="-?[0-9]{{1,20}}"
 placeholder="random" autocomplete="off" data-testid="seed"></label>
<label>Food spawn %<input name="foodSpawnChance" type="number" value="15" min="0" max="100"></label>
<label>Minimum food<input name="minimumFood" type="number" value="1" min="0"></label>
<label>Hazard damage<input name="hazardDamagePerTurn" type="number" value="14"></label>
<label>Shrink every N<input name="shrinkEveryNTurns" type="number" value="25" min="0"></label>
</div>
<button type="submit" data-testid="create">Start the game</button>
<div class="error" id="error" data-testid="error"></div>
</form>
<script>
const form = document.getElementById("new-game");
let maps = [];
fetch("/api/maps").then(r => r.json()).then(list => {{
  maps = list;
  const select = document.getElementById("map");
  for (const m of list) {{
    const o = document.createElement("option"); o.value = m.id; o.textContent = m.name;
    if (m.id === "standard") o.selected = true;
    select.append(o);
  }}
  showMap();
}});
function showMap() {{
  const m = maps.find(m => m.id === form.map.value); if (!m) return;
  const sizes = m.sizes === "any" ? "any size" : m.sizes.map(s => s.join("x")).join(", ");
  document.getElementById("map-info").textContent =
    `${{m.description}} Sizes: ${{sizes}}. Players: ${{m.min_players}}-${{m.max_players}}.`;
  // Keep the chosen size when the map allows it; otherwise take the map's first size.
  const fits = m.sizes === "any" ||
    m.sizes.some(([w, h]) => w === +form.width.value && h === +form.height.value);
  if (!fits && m.sizes.length) {{
    form.width.value = m.sizes[0][0]; form.height.value = m.sizes[0][1];
  }}
}}
form.map.addEventListener("change", showMap);
form.addEventListener("submit", async (event) => {{
  event.preventDefault();
  const body = {{
    snakes: form.snakes.value.split("\\n").map(s => s.trim()).filter(Boolean),
    ruleset: form.ruleset.value, map: form.map.value,
    width: +form.width.value, height: +form.height.value, timeout: +form.timeout.value,
    foodSpawnChance: +form.foodSpawnChance.value, minimumFood: +form.minimumFood.value,
    hazardDamagePerTurn: +form.hazardDamagePerTurn.value,
    shrinkEveryNTurns: +form.shrinkEveryNTurns.value,
  }};
  // As typed: a 64-bit seed does not survive a JavaScript number.
  if (form.seed.value.trim() !== "") body.seed = form.seed.value.trim();
  document.getElementById("error").textContent = "starting...";
  const response = await fetch("/api/games", {{method: "POST",
    headers: {{"Content-Type": "application/json"}}, body: JSON.stringify(body)}});
  const data = await response.json();
  if (!response.ok) {{
    const detail = Array.isArray(data.detail)
      ? data.detail.map(d => d.loc.join(".") + ": " + d.msg).join("\\n") : data.detail;
    document.getElementById("error").textContent = detail;
    return;
  }}
  location.href = data.viewer;
}});
</script>""",
        )

    @app.get("/view/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    async def view(game_id: str, request: Request) -> HTMLResponse:
        engine = str(request.base_url).rstrip("/")
        src = (
            f"/static/viewer/board.html?engine={html.escape(engine)}"
            f"&game={html.escape(game_id)}&autoplay=true"
        )
        turn = request.query_params.get("turn")
        if turn is not None and turn.isdigit():
            src += f"&turn={turn}"
        safe_id = html.escape(game_id)
        return _page(
            f"Game {game_id}",
            f"""<p><button id="rematch" data-testid="rematch">Rematch</button>
<a href="/api/games/{safe_id}/replay" data-testid="download-replay">Download the replay</a>
<span class="error" id="error"></span></p>
<iframe src="{src}" title="board" data-testid="board-frame" allow="fullscreen"></iframe>
<script>
document.getElementById("rematch").addEventListener("click", async () => {{
  const r = await fetch("/api/games/{safe_id}/rematch", {{method: "POST"}});
  const data = await r.json();
  if (r.ok) location.href = data.viewer;
  else document.getElementById("error").textContent = data.detail;
}});
</script>""",
        )

    @app.get("/replay", include_in_schema=False)
    async def replay_page() -> RedirectResponse:
        return RedirectResponse("/static/viewer/board.html?replay=1")

    @app.get("/test", response_class=HTMLResponse, include_in_schema=False)
    async def test_page() -> HTMLResponse:
        return _page(
            "Test a snake",
            """<h1>Test a snake</h1>
<form id="tester" data-testid="tester-form">
<label>Snake <span class="muted">a URL, builtin:NAME or legacy:URL</span>
<input name="url" required value="builtin:hunter" data-testid="tester-url"></label>
<button type="submit" data-testid="run-tests">Run the checks</button>
<div class="error" id="error"></div></form>
<p id="summary" data-testid="tester-summary"></p>
<table><tbody id="results" data-testid="tester-results"></tbody></table>
<script>
const form = document.getElementById("tester");
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  document.getElementById("summary").textContent = "running...";
  const r = await fetch("/api/test", {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify({url: form.url.value})});
  const data = await r.json();
  if (!r.ok) { document.getElementById("error").textContent = data.detail;
               document.getElementById("summary").textContent = ""; return; }
  const rows = [];
  const add = (kind, name, ok, detail) => {
    const tr = document.createElement("tr");
    for (const [text, cls] of [[kind, ""], [name, ""], [ok ? "PASS" : "FAIL", ok ? "pass" : "fail"],
                               [detail, "muted"]]) {
      const td = document.createElement("td"); td.textContent = text;
      if (cls) td.className = cls; tr.append(td);
    }
    rows.push(tr);
  };
  for (const c of data.checks || []) add("check", c.name, c.passed, c.detail || "");
  for (const s of data.scenarios || [])
    add(s.category, s.title, s.passed, `${s.variants_passed}/${s.variants_total} positions`);
  document.getElementById("results").replaceChildren(...rows);
  document.getElementById("summary").textContent = data.summary;
});
</script>""",
        )

    @app.post("/api/test", tags=["tester"])
    async def run_tests(body: TestRequest) -> dict[str, Any]:
        """Run the snake tester (health checks and scenarios) and return its report."""
        from snakewar.referee.runner import make_client, snake_kind
        from snakewar.server.safety import check_public_url
        from snakewar.tester import run_tester

        kind, target = snake_kind(body.url)
        if state.get("public") and kind != "builtin":
            await check_public_url(target)
        manager = state["manager"]
        http = manager._http
        if http is None:
            raise HTTPException(503, "server is starting")
        client = make_client(body.url, http, body.timeout)
        report = await run_tester(client)
        data: dict[str, Any] = json.loads(json.dumps(report.to_dict()))
        return data
