"""The server's HTML pages: home, new game, game, replay, tester, ladders, tournaments, Halite.

Pages are small server-rendered HTML with a little script that calls the REST API; the
boards themselves are the bundled viewers (:mod:`snakewar.viewer`).  Everything is
served locally: no CDN, works offline.
"""

from __future__ import annotations

import html
from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from snakewar.adapters.halite3 import GAME as HALITE
from snakewar.arena.ladder import load_ladder
from snakewar.arena.tournament_runner import load_tournament
from snakewar.bots import bot_names
from snakewar.server.deps import StoreDep
from snakewar.server.routers.halite import MAX_UPLOAD_BYTES
from snakewar.storage import GameNotFoundError

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

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


_BOARD_HTML: Final = """<!doctype html>
<html lang="en" data-theme="system">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>Snakewar Halite viewer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/viewer/viewer.css">
<link rel="stylesheet" href="/static/viewer/halite.css">
<script type="module" src="/static/viewer/halite.js"></script></head>
<body><main class="viewer halite" data-testid="viewer">
<section class="picker" data-testid="replay-picker" hidden>
<label class="drop-zone" data-testid="drop-zone"><strong>Open a Halite III replay</strong>
<span>Choose a <code>.hlt</code> file (or a plain JSON replay). A JSON replay is read in this
browser; a <code>.hlt</code> is decompressed by this server and not stored.</span>
<input type="file" data-testid="replay-file" accept=".hlt,.json"></label></section>
<p class="message" data-testid="message" role="status" hidden></p>
<div class="stage" data-testid="stage" hidden>
<div class="board-column">
<div class="board halite-board" data-testid="board">
<canvas class="halite-canvas" data-testid="halite-canvas" role="img"
 aria-label="Halite map"></canvas>
<div class="halite-tooltip" data-testid="halite-tooltip" hidden></div></div>
<input class="scrubber" data-testid="scrubber" type="range" min="0" max="0" value="0" step="1"
 aria-label="Turn">
<div class="controls" data-testid="controls">
<button type="button" data-testid="btn-prev-elimination" title="Previous collision (q)"
 aria-label="Previous collision (q)"><svg viewBox="0 0 24 24" aria-hidden="true">
<path d="M10 6v12L2 12z"/><path class="stroke" d="M13 8l8 8M21 8l-8 8"/></svg></button>
<button type="button" data-testid="btn-first" title="First turn (r)" aria-label="First turn (r)">
<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 5h2v14H6z M19 5v14L9 12z"/></svg></button>
<button type="button" data-testid="btn-prev" title="Previous turn (←, a, j)"
 aria-label="Previous turn (←, a, j)"><svg viewBox="0 0 24 24" aria-hidden="true">
<path d="M16 5v14L6 12z"/></svg></button>
<button type="button" class="play" data-testid="btn-play" data-state="paused" title="Play (Space)"
 aria-label="Play (Space)"><svg class="icon-play" viewBox="0 0 24 24" aria-hidden="true">
<path d="M7 4v16l13-8z"/></svg><svg class="icon-pause" viewBox="0 0 24 24" aria-hidden="true">
<path d="M6 4h4v16H6z M14 4h4v16h-4z"/></svg></button>
<button type="button" data-testid="btn-next" title="Next turn (→, d, l)"
 aria-label="Next turn (→, d, l)"><svg viewBox="0 0 24 24" aria-hidden="true">
<path d="M8 5v14l10-7z"/></svg></button>
<button type="button" data-testid="btn-last" title="Last turn (t)" aria-label="Last turn (t)">
<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M16 5h2v14h-2z M5 5v14l10-7z"/></svg></button>
<button type="button" data-testid="btn-next-elimination" title="Next collision (e)"
 aria-label="Next collision (e)"><svg viewBox="0 0 24 24" aria-hidden="true">
<path class="stroke" d="M3 8l8 8M11 8l-8 8"/><path d="M14 6v12l8-6z"/></svg></button></div>
<div class="settings">
<label>Speed <select data-testid="fps" aria-label="Frames per second"></select></label>
<label><input type="checkbox" data-testid="ships-toggle" checked> Ships</label>
<label>Theme <select data-testid="theme" aria-label="Theme"><option value="system">System</option>
<option value="light">Light</option><option value="dark">Dark</option></select></label>
<button type="button" class="open" data-testid="btn-open" hidden>Open another file…</button>
</div></div>
<aside class="sidebar">
<div class="game-header"><div class="turn" data-testid="turn">Turn 0</div>
<div class="game-info" data-testid="game-info"></div>
<div class="game-status" data-testid="game-status"></div></div>
<ol class="scoreboard" data-testid="scoreboard" aria-label="Scoreboard"></ol>
<div class="game-header halite-chart-box"><div class="game-info">Halite held, per turn</div>
<svg class="halite-chart" data-testid="halite-chart" viewBox="0 0 300 150"
 preserveAspectRatio="none" role="img" aria-label="Halite per player over turns"></svg></div>
</aside></div></main></body></html>
"""


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def home() -> HTMLResponse:
    return _page(
        "Home",
        """<h1>Games</h1>
<p><a href="/new" data-testid="start-game"><button>Start a new game</button></a></p>
<h2>Live</h2><table data-testid="live-games"><tbody id="live"></tbody></table>
<h2>Recent</h2><table data-testid="recent-games"><tbody id="recent"></tbody></table>
<script>
function row(g) {
  const names = (g.entrants || []).map(s => s.name).join(", ");
  const result = g.winner ? "won by " + g.winner : (g.is_draw ? "draw" : g.status);
  const tr = document.createElement("tr");
  for (const text of [names, g.title,
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


@router.get("/new", response_class=HTMLResponse, include_in_schema=False)
async def new_game() -> HTMLResponse:
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
<label>Seed<input name="seed" type="number" placeholder="random"></label>
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
  if (form.seed.value !== "") body.seed = +form.seed.value;
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


@router.get("/view/{game_id}", response_class=HTMLResponse, include_in_schema=False)
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


@router.get("/replay", include_in_schema=False)
async def replay_page() -> RedirectResponse:
    return RedirectResponse("/static/viewer/board.html?replay=1")


@router.get("/test", response_class=HTMLResponse, include_in_schema=False)
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


@router.get("/tournaments/{tid}", response_class=HTMLResponse, include_in_schema=False)
async def tournament_page(tid: str, store: StoreDep) -> HTMLResponse:
    await store.run(load_tournament, store.store, tid)
    result: HTMLResponse = _page(
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
    a.href = g.viewer;
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


@router.get("/ladders", response_class=HTMLResponse, include_in_schema=False)
async def ladders_page(store: StoreDep) -> HTMLResponse:
    rows = "".join(
        f'<tr><td><a href="/ladders/{html.escape(ladder["name"])}">'
        f"{html.escape(ladder['name'])}</a></td><td>{ladder['snakes']} snakes</td>"
        f"<td>{ladder['games_played']} games</td></tr>"
        for ladder in await store.run(store.store.ladders.summaries)
    )
    result: HTMLResponse = _page(
        "Ladders",
        f"""<h1>Ladders</h1><table data-testid="ladders">{rows}</table>
<p class="muted">Create one with <code>snakewar ladder create</code> or
<code>POST /api/ladders</code>.</p>""",
    )
    return result


@router.get("/ladders/{name}", response_class=HTMLResponse, include_in_schema=False)
async def ladder_page(name: str, store: StoreDep) -> HTMLResponse:
    await store.run(load_ladder, store.store, name)
    safe = html.escape(name)
    result: HTMLResponse = _page(
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


@router.get("/halite", response_class=HTMLResponse, include_in_schema=False)
async def halite_page(store: StoreDep) -> HTMLResponse:
    rows = await store.run(store.store.games.latest, 100, game=HALITE.name)
    lines = []
    for row in rows:
        players = ", ".join(html.escape(str(e.get("name", ""))) for e in row.entrants)
        winner = html.escape(row.winner_name or "-")
        lines.append(
            f'<tr data-testid="halite-game"><td>{players}</td><td>won by {winner}</td>'
            f"<td>{row.width}x{row.height}</td><td>{row.turns} turns</td>"
            f'<td class="muted">{html.escape(row.source)}</td>'
            f'<td><a href="/halite/games/{html.escape(row.id)}">watch</a></td></tr>'
        )
    table = "".join(lines) or '<tr><td class="muted">No Halite games stored yet.</td></tr>'
    result: HTMLResponse = _page(
        "Halite",
        f"""<h1>Halite III games</h1>
<form id="upload" data-testid="halite-upload-form">
<label>Upload a replay <span class="muted">a <code>.hlt</code> file written by the official
engine or by Snakewar (at most {MAX_UPLOAD_BYTES // (1024 * 1024)} MiB)</span>
<input type="file" name="file" accept=".hlt" required data-testid="halite-upload-file"></label>
<button type="submit" data-testid="halite-upload">Upload and watch</button>
<div class="error" id="error" data-testid="halite-upload-error"></div></form>
<p><a href="/halite/view" data-testid="halite-open-local">Open a local replay without storing
it</a></p>
<h2>Stored games</h2><table data-testid="halite-games"><tbody>{table}</tbody></table>
<script>
const form = document.getElementById("upload");
form.addEventListener("submit", async (event) => {{
  event.preventDefault();
  const file = form.file.files[0]; if (!file) return;
  document.getElementById("error").textContent = "uploading...";
  const response = await fetch("/api/halite/games", {{method: "POST",
headers: {{"Content-Type": "application/octet-stream"}}, body: file}});
  const data = await response.json();
  if (!response.ok) {{ document.getElementById("error").textContent = data.detail; return; }}
  location.href = data.url;
}});
</script>""",
    )
    return result


@router.get("/halite/games/{game_id}", response_class=HTMLResponse, include_in_schema=False)
async def game_page(game_id: str, request: Request, store: StoreDep) -> HTMLResponse:
    row = await store.run(store.store.games.get, game_id)
    if row is None or row.game != HALITE.name:
        raise GameNotFoundError(game_id)
    safe = html.escape(row.id)
    src = f"/halite/board?game={safe}"
    turn = request.query_params.get("turn")
    if turn is not None and turn.isdigit():
        src += f"&amp;turn={turn}"
    title = " vs ".join(str(e.get("name", "")) for e in row.entrants)
    result: HTMLResponse = _page(
        f"Halite: {title}",
        f"""<p><a href="/halite">All Halite games</a> ·
<a href="/api/halite/games/{safe}/replay.hlt" data-testid="halite-download">Download the
replay (.hlt)</a></p>
<iframe src="{src}" title="Halite board" data-testid="halite-frame" allow="fullscreen"></iframe>""",
    )
    return result


@router.get("/halite/view", include_in_schema=False)
async def view_local() -> RedirectResponse:
    return RedirectResponse("/halite/board?replay=1")


@router.get("/halite/board", response_class=HTMLResponse, include_in_schema=False)
async def board() -> HTMLResponse:
    return HTMLResponse(_BOARD_HTML)
