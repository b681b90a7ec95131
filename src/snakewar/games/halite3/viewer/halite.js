// The Halite III viewer: draws an official replay document (the JSON inside a
// .hlt file, REPLAY_FILE_VERSION 3) on a canvas, with the playback (../viewer/player.js),
// controls and keyboard shortcuts every game's viewer shares.
//
// URL parameters: game=ID (a game on this server, finished or running), replay=1 (pick
// a local file), turn=N, autoplay=, fps=, theme=light|dark|system.
//
// Frame t of the replay (1..T) holds the ships at the start of turn t and the
// players' halite at its end; frame 0 is the start and frame T+1 the end.  The
// map shown at frame t is the initial map with the cell changes of frames 1..t.
//
// A game of this server is read from GET /api/games/{id}/frames first: a running (or
// stopped) game's header is the replay's head and its frames are the replay's frames
// so far, so the viewer draws it as a replay that grows, polling for the frames after
// the last it has.  Once the game is complete, its stored replay (with its statistics)
// replaces them, at the turn shown.  Each player's failure (the API's
// entrants[i].failure) is shown under its name.

import { bindControls, bindKeyboard } from "../viewer/controls.js";
import { DEFAULT_FPS, Player, clampFps } from "../viewer/player.js";

const FPS_CHOICES = [1, 2, 3, 4, 6, 8, 10, 15, 20, 30, 60];
const THEMES = ["system", "light", "dark"];
const STORAGE_KEY = "snakewar.viewer";
const PLAYER_COLORS = ["#f2a900", "#2f9e44", "#e03131", "#7048e8", "#1c7ed6", "#e8590c"];
const CHECKPOINT = 32; // a full map is kept every this many frames
const MAX_CARGO = 1000;
const LIVE_POLL_MS = 1000; // a running game's new frames are asked for this often
const PAGE = 500; // frames per request (the server's most)
const RUNNING = ["running", "starting"];

const $ = (id) => document.querySelector(`[data-testid="${id}"]`);
const params = new URLSearchParams(window.location.search);

// -- the replay document, prepared for drawing --------------------------------------------

/** Prepared data for drawing a replay document: maps per frame, dropoffs, series. */
export class HaliteGame {
  constructor(doc) {
    if (!doc || doc.REPLAY_FILE_VERSION !== 3) {
      throw new Error(`replay file version ${doc?.REPLAY_FILE_VERSION}; expected 3`);
    }
    this.doc = doc;
    this.width = doc.production_map.width;
    this.height = doc.production_map.height;
    this.players = doc.players.map((p, i) => ({
      id: p.player_id ?? i,
      name: String(p.name ?? `player ${i}`),
      color: PLAYER_COLORS[i % PLAYER_COLORS.length],
      yard: p.factory_location,
    }));
    const stats = doc.game_statistics?.player_statistics ?? [];
    this.stats = new Map(stats.map((s) => [s.player_id, s]));
    const w = this.width;
    const initial = new Int32Array(w * this.height);
    doc.production_map.grid.forEach((row, y) => row.forEach((c, x) => {
      initial[y * w + x] = c.energy;
    }));
    this.maxHalite = initial.reduce((a, b) => Math.max(a, b), 1000);
    // Checkpoints: the map after frame k*CHECKPOINT; any frame is at most
    // CHECKPOINT-1 deltas away, and stepping forward applies one delta.
    this.checkpoints = [];
    this.grid = initial; // the map after the last frame
    this.frames = [];
    this.dropoffs = [];
    this.wrecks = [];
    this.addFrames(doc.full_frames ?? []);
    this.cached = { index: 0, grid: (this.checkpoints[0] ?? initial).slice() };
  }

  /** Append frames (a running game's new turns): the maps, dropoffs and wrecks follow. */
  addFrames(frames) {
    const w = this.width;
    for (const frame of frames) {
      const t = this.frames.length;
      this.frames.push(frame);
      for (const c of frame.cells ?? []) {
        this.grid[c.y * w + c.x] = c.production;
      }
      for (const e of frame.events ?? []) {
        if (e.type === "construct") {
          this.dropoffs.push({ owner: e.owner_id, x: e.location.x, y: e.location.y, from: t });
        } else if (e.type === "shipwreck" && this.wrecks.at(-1) !== t) {
          this.wrecks.push(t);
        }
      }
      if (t % CHECKPOINT === 0) {
        this.checkpoints.push(this.grid.slice());
      }
    }
  }

  get lastIndex() {
    return this.frames.length - 1;
  }

  /** The map (Int32Array, index y*width+x) at frame `t`. */
  gridAt(t) {
    const cached = this.cached;
    let from;
    let grid;
    if (t >= cached.index && t - cached.index < CHECKPOINT) {
      from = cached.index;
      grid = cached.grid;
    } else {
      from = Math.floor(t / CHECKPOINT) * CHECKPOINT;
      grid = this.checkpoints[from / CHECKPOINT].slice();
    }
    for (let k = from + 1; k <= t; k += 1) {
      for (const c of this.frames[k].cells ?? []) {
        grid[c.y * this.width + c.x] = c.production;
      }
    }
    this.cached = { index: t, grid };
    return grid;
  }

  /** Ships at frame `t`: [{id, owner, x, y, cargo, inspired}]. */
  shipsAt(t) {
    const out = [];
    for (const [pid, ships] of Object.entries(this.frames[t]?.entities ?? {})) {
      for (const [id, s] of Object.entries(ships)) {
        out.push({ id: Number(id), owner: Number(pid), x: s.x, y: s.y, cargo: s.energy, inspired: s.is_inspired });
      }
    }
    return out;
  }

  dropoffsAt(t) {
    return this.dropoffs.filter((d) => d.from <= t);
  }

  /** A player's row at frame `t`: halite held, deposited, ships and cargo. */
  playerAt(pid, t) {
    const frame = this.frames[t] ?? {};
    const ships = Object.values(frame.entities?.[pid] ?? {});
    return {
      energy: frame.energy?.[pid] ?? 0,
      deposited: frame.deposited?.[pid] ?? 0,
      ships: ships.length,
      carrying: ships.reduce((sum, s) => sum + s.energy, 0),
    };
  }

  /** The halite each player held, frame by frame. */
  series(pid) {
    return this.frames.map((f) => f.energy?.[pid] ?? 0);
  }
}

// -- colours and drawing --------------------------------------------------------------------

function heatPalette() {
  // 256 colours from deep sea (no halite) through teal to gold (rich cells).
  const stops = [
    [0, [14, 22, 38]],
    [0.35, [22, 86, 110]],
    [0.7, [70, 170, 140]],
    [1, [250, 214, 92]],
  ];
  const out = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i += 1) {
    const v = i / 255;
    let k = 0;
    while (k < stops.length - 2 && v > stops[k + 1][0]) {
      k += 1;
    }
    const [a, ca] = stops[k];
    const [b, cb] = stops[k + 1];
    const f = (v - a) / (b - a);
    for (let j = 0; j < 3; j += 1) {
      out[i * 3 + j] = ca[j] + (cb[j] - ca[j]) * f;
    }
  }
  return out;
}

const PALETTE = heatPalette();

class MapView {
  constructor(canvas, game) {
    this.canvas = canvas;
    this.game = game;
    this.cell = Math.max(6, Math.ceil(768 / Math.max(game.width, game.height)));
    const scale = Math.min(2, window.devicePixelRatio || 1);
    canvas.width = game.width * this.cell * scale;
    canvas.height = game.height * this.cell * scale;
    this.scale = scale;
    this.heat = document.createElement("canvas");
    this.heat.width = game.width;
    this.heat.height = game.height;
    this.image = this.heat.getContext("2d").createImageData(game.width, game.height);
    this.showShips = true;
  }

  draw(t) {
    const { game, cell } = this;
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(this.scale, 0, 0, this.scale, 0, 0);
    const grid = game.gridAt(t);
    const px = this.image.data;
    for (let i = 0; i < grid.length; i += 1) {
      // sqrt: most cells hold little, and their differences matter most.
      const level = Math.min(255, Math.round(Math.sqrt(Math.max(0, grid[i]) / game.maxHalite) * 255));
      px[i * 4] = PALETTE[level * 3];
      px[i * 4 + 1] = PALETTE[level * 3 + 1];
      px[i * 4 + 2] = PALETTE[level * 3 + 2];
      px[i * 4 + 3] = 255;
    }
    this.heat.getContext("2d").putImageData(this.image, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.heat, 0, 0, game.width * cell, game.height * cell);

    for (const p of game.players) {
      this.structure(ctx, p.yard.x, p.yard.y, p.color, "yard");
    }
    for (const d of game.dropoffsAt(t)) {
      this.structure(ctx, d.x, d.y, game.players[d.owner]?.color ?? "#888", "dropoff");
    }
    if (this.showShips) {
      for (const s of game.shipsAt(t)) {
        this.ship(ctx, s, game.players[s.owner]?.color ?? "#888");
      }
    }
    for (const e of game.frames[t]?.events ?? []) {
      if (e.type === "shipwreck") {
        this.wreck(ctx, e.location.x, e.location.y);
      }
    }
  }

  structure(ctx, x, y, color, kind) {
    const c = this.cell;
    ctx.lineWidth = Math.max(1.5, c / 8);
    ctx.strokeStyle = color;
    ctx.fillStyle = "rgb(0 0 0 / 35%)";
    if (kind === "yard") {
      ctx.fillRect(x * c + 1, y * c + 1, c - 2, c - 2);
      ctx.strokeRect(x * c + 1.5, y * c + 1.5, c - 3, c - 3);
    } else {
      ctx.beginPath();
      ctx.moveTo(x * c + c / 2, y * c + 1);
      ctx.lineTo(x * c + c - 1, y * c + c / 2);
      ctx.lineTo(x * c + c / 2, y * c + c - 1);
      ctx.lineTo(x * c + 1, y * c + c / 2);
      ctx.closePath();
      ctx.fill();
      ctx.stroke();
    }
  }

  ship(ctx, s, color) {
    const c = this.cell;
    const cx = s.x * c + c / 2;
    const cy = s.y * c + c / 2;
    const r = c * 0.36;
    // Outline: the ship; inner disc: its cargo (full disc at 1000 halite).
    ctx.beginPath();
    ctx.arc(cx, cy, r, 0, 2 * Math.PI);
    ctx.fillStyle = "rgb(10 12 16 / 75%)";
    ctx.fill();
    ctx.lineWidth = Math.max(1.2, c / 10);
    ctx.strokeStyle = color;
    ctx.stroke();
    const fill = Math.sqrt(Math.min(1, Math.max(0, s.cargo) / MAX_CARGO));
    if (fill > 0) {
      ctx.beginPath();
      ctx.arc(cx, cy, Math.max(1, r * fill * 0.85), 0, 2 * Math.PI);
      ctx.fillStyle = color;
      ctx.fill();
    }
    if (s.inspired) {
      ctx.beginPath();
      ctx.arc(cx, cy, r + Math.max(1.5, c / 10), 0, 2 * Math.PI);
      ctx.setLineDash([2, 2]);
      ctx.strokeStyle = "#fff";
      ctx.lineWidth = 1;
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }

  wreck(ctx, x, y) {
    const c = this.cell;
    ctx.strokeStyle = "#ff4d4f";
    ctx.lineWidth = Math.max(1.5, c / 8);
    ctx.beginPath();
    ctx.moveTo(x * c + 2, y * c + 2);
    ctx.lineTo(x * c + c - 2, y * c + c - 2);
    ctx.moveTo(x * c + c - 2, y * c + 2);
    ctx.lineTo(x * c + 2, y * c + c - 2);
    ctx.stroke();
  }

  /** The cell under a mouse event, or null. */
  cellAt(event) {
    // The canvas is drawn "object-fit: contain": centred in its box, aspect kept.
    const rect = this.canvas.getBoundingClientRect();
    const size = Math.min(rect.width / this.game.width, rect.height / this.game.height);
    const left = rect.left + (rect.width - size * this.game.width) / 2;
    const top = rect.top + (rect.height - size * this.game.height) / 2;
    const x = Math.floor((event.clientX - left) / size);
    const y = Math.floor((event.clientY - top) / size);
    if (x < 0 || y < 0 || x >= this.game.width || y >= this.game.height) {
      return null;
    }
    return { x, y };
  }
}

// -- the page ---------------------------------------------------------------------------------

const SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    e.setAttribute(k, String(v));
  }
  return e;
}

function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    e.setAttribute(k, String(v));
  }
  if (text !== undefined) {
    e.textContent = String(text);
  }
  return e;
}

function loadStored() {
  try {
    const value = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

function store(patch) {
  try {
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify({ ...loadStored(), ...patch }));
  } catch {
    // Not persisting a preference is harmless.
  }
}

/** Playback over frame indices; "elimination" jumps go to turns with a collision. */
class HalitePlayer extends Player {
  constructor(options) {
    super(options);
    this.wrecks = [];
  }

  nextElimination() {
    const turn = this.wrecks.find((t) => t > this.index);
    if (turn === undefined) {
      return false;
    }
    this.pause();
    this.goto(turn);
    return true;
  }

  prevElimination() {
    const turn = this.wrecks.filter((t) => t < this.index).at(-1);
    if (turn === undefined) {
      return false;
    }
    this.pause();
    this.goto(turn);
    return true;
  }
}

const stored = loadStored();
const urlTheme = params.get("theme");
const settings = {
  fps: clampFps(params.get("fps") ?? stored.fps, DEFAULT_FPS),
  theme: THEMES.includes(urlTheme) ? urlTheme : THEMES.includes(stored.theme) ? stored.theme : "system",
};

const view = { game: null, map: null, rendered: -1, pending: false, hover: null, failures: [] };
// A game of this server being followed: its id and status (null: a file, or a replay).
const live = { id: null, status: null, retries: 0 };
const player = new HalitePlayer({ onChange: () => scheduleRender() });
player.fps = settings.fps;
const updateControls = bindControls(document, player);

function scheduleRender() {
  if (!view.pending) {
    view.pending = true;
    requestAnimationFrame(() => {
      view.pending = false;
      render();
    });
  }
}

function showMessage(text, error = false) {
  const m = $("message");
  m.textContent = text;
  m.classList.toggle("error", error);
  m.hidden = !text;
}

function renderScoreboard(t) {
  const { game } = view;
  const atEnd = t === game.lastIndex;
  const rows = game.players.map((p) => {
    const now = game.playerAt(p.id, t);
    const stat = game.stats.get(p.id);
    const li = el("li", { class: "snake-row halite-row", "data-testid": "halite-player", "data-player": p.id });
    const top = el("div", { class: "row-top" });
    const swatch = el("span", { class: "avatar halite-swatch", "aria-hidden": "true" });
    swatch.style.background = p.color;
    top.append(
      swatch,
      el("span", { class: "snake-name", "data-testid": "halite-player-name" }, p.name),
      el("span", { class: "snake-length", "data-testid": "halite-player-energy", title: "Halite held" }, now.energy),
    );
    const mid = el("div", { class: "row-mid", "data-testid": "halite-player-stats" });
    mid.append(
      el("span", {}, `${now.ships} ships · carrying ${now.carrying}`),
      el("span", {}, `deposited ${now.deposited}`),
    );
    li.append(top, mid);
    const failure = view.failures[p.id];
    if (failure) {
      li.append(el("div", { class: "snake-error", "data-testid": "halite-player-failure" }, failure));
    }
    if (stat) {
      const text = atEnd
        ? `Final score ${stat.final_production} · rank ${stat.rank}`
        : `Rank at the end: ${stat.rank}`;
      li.append(el("div", { class: "snake-status", "data-testid": "halite-player-score" }, text));
    }
    return li;
  });
  $("scoreboard").replaceChildren(...rows);
}

function renderChart(t) {
  const { game } = view;
  const chart = $("halite-chart");
  if (!view.chartDrawn) {
    const series = game.players.map((p) => game.series(p.id));
    const top = series.flat().reduce((a, b) => Math.max(a, b), 1);
    const n = Math.max(1, game.lastIndex);
    const lines = series.map((values, i) => {
      const points = values.map((v, k) => `${((k / n) * 296 + 2).toFixed(1)},${(146 - (v / top) * 142).toFixed(1)}`);
      const line = svg("polyline", {
        points: points.join(" "),
        fill: "none",
        stroke: game.players[i].color,
        "stroke-width": 1.6,
        "vector-effect": "non-scaling-stroke",
        "data-testid": "halite-chart-line",
      });
      const title = svg("title", {});
      title.textContent = game.players[i].name;
      line.append(title);
      return line;
    });
    const cursor = svg("line", {
      y1: 0, y2: 150, stroke: "currentColor", "stroke-width": 1, "stroke-dasharray": "3 3",
      "vector-effect": "non-scaling-stroke", "data-testid": "halite-chart-cursor",
    });
    chart.replaceChildren(...lines, cursor);
    view.chartDrawn = true;
  }
  const x = (t / Math.max(1, game.lastIndex)) * 296 + 2;
  const cursor = chart.querySelector("[data-testid=halite-chart-cursor]");
  cursor.setAttribute("x1", x.toFixed(1));
  cursor.setAttribute("x2", x.toFixed(1));
}

function tooltip() {
  const tip = $("halite-tooltip");
  const { game, hover } = view;
  if (!game || !hover) {
    tip.hidden = true;
    return;
  }
  const t = player.index;
  const { x, y } = hover;
  const lines = [`(${x}, ${y}) · halite ${game.gridAt(t)[y * game.width + x]}`];
  for (const s of game.shipsAt(t)) {
    if (s.x === x && s.y === y) {
      const owner = game.players[s.owner]?.name ?? s.owner;
      lines.push(`ship ${s.id} (${owner}) · cargo ${s.cargo}${s.inspired ? " · inspired" : ""}`);
    }
  }
  for (const p of game.players) {
    if (p.yard.x === x && p.yard.y === y) {
      lines.push(`shipyard of ${p.name}`);
    }
  }
  for (const d of game.dropoffsAt(t)) {
    if (d.x === x && d.y === y) {
      lines.push(`dropoff of ${game.players[d.owner]?.name ?? d.owner}`);
    }
  }
  tip.replaceChildren(...lines.map((line) => el("div", {}, line)));
  tip.hidden = false;
  tip.style.left = `${hover.left + 14}px`;
  tip.style.top = `${hover.top + 14}px`;
}

function render() {
  updateControls();
  const { game } = view;
  if (!game) {
    return;
  }
  const t = player.index;
  view.map.draw(t);
  $("turn").textContent = `Turn ${t}`;
  $("game-status").textContent = statusText(t);
  renderScoreboard(t);
  renderChart(t);
  tooltip();
  const url = new URL(window.location.href);
  if (url.searchParams.get("game")) {
    url.searchParams.set("turn", String(t));
    window.history.replaceState(null, "", url);
  }
}

/** The status line: the game's state, as the frame shown and the game's own say. */
function statusText(t) {
  const last = view.game.lastIndex;
  if (live.status === null || live.status === "complete") {
    return t === last ? "Game over" : "";
  }
  if (RUNNING.includes(live.status)) {
    return t === last ? "Live: the next turn is being played" : "Live";
  }
  const why = { cancelled: "cancelled", aborted: "stopped (its server stopped)" };
  return `Game ${why[live.status] ?? "stopped by an error"} after turn ${last}`;
}

function turnsText(n) {
  return `${n} turn${n === 1 ? "" : "s"}`;
}

function gameInfo(game, doc) {
  const finished = live.status === null || live.status === "complete";
  // A finished replay has a frame before turn 1 and one after the last turn.
  const turns = finished
    ? turnsText(Math.max(0, game.lastIndex - 1))
    : `${turnsText(game.lastIndex)} ${RUNNING.includes(live.status) ? "so far" : "played"}`;
  $("game-info").textContent =
    `${game.width}x${game.height} · ${game.players.length} players · ` +
    `seed ${doc.map_generator_seed} · ${turns}`;
}

/**
 * Show a replay document (or a running game's head and frames so far).  `at`: the frame
 * to show (default: the URL's turn, else the first frame; the last one of a live game).
 */
function show(doc, at = null) {
  let game;
  try {
    game = new HaliteGame(doc);
  } catch (err) {
    showMessage(`This is not a Halite III replay: ${err.message}`, true);
    return;
  }
  view.game = game;
  view.chartDrawn = false;
  view.map = new MapView($("halite-canvas"), game);
  view.map.showShips = $("ships-toggle").checked;
  player.wrecks = game.wrecks;
  player.live = RUNNING.includes(live.status);
  gameInfo(game, doc);
  showMessage("");
  $("replay-picker").hidden = true;
  $("stage").hidden = false;
  const turn = Number.parseInt(params.get("turn") ?? "", 10);
  const fallback = player.live ? game.lastIndex : 0;
  const index = at ?? (Number.isInteger(turn) ? turn : fallback);
  player.setFrames(game.frames.map((_, i) => ({ Turn: i })), index);
  if (at === null && ["1", "true", "yes", "on", ""].includes((params.get("autoplay") ?? "no").toLowerCase())) {
    player.play();
  }
}

async function readError(response) {
  try {
    return (await response.json()).detail;
  } catch {
    return `HTTP ${response.status}`;
  }
}

async function getJson(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  if (!response.ok) {
    throw new Error(await readError(response));
  }
  return response.json();
}

function framesUrl(id, offset) {
  return `/api/games/${encodeURIComponent(id)}/frames?offset=${offset}&limit=${PAGE}`;
}

/** Each player's failure, from the API's game (empty when it played correctly). */
async function loadFailures(id) {
  try {
    const game = await getJson(`/api/games/${encodeURIComponent(id)}`);
    view.failures = (game.entrants ?? []).map((e) => String(e?.failure ?? ""));
  } catch {
    // The board still draws; the failures come with the next answer.
    return;
  }
  scheduleRender();
}

/** The stored replay of a complete game, shown at frame `at` (or as a fresh page). */
async function loadReplay(id, at = null) {
  const doc = await getJson(`/api/halite/games/${encodeURIComponent(id)}/replay`);
  live.status = "complete";
  show(doc, at);
  await loadFailures(id);
}

async function loadGame(id) {
  showMessage("Loading the game…");
  live.id = id;
  const first = await getJson(framesUrl(id, 0));
  live.status = first.status;
  if (first.status === "complete") {
    await loadReplay(id);
    return;
  }
  if (!first.header?.production_map || first.frames.length === 0) {
    if (RUNNING.includes(first.status)) {
      // Its bots are still starting: the map comes with their names.
      setTimeout(() => loadGame(id).catch(failed), LIVE_POLL_MS);
      return;
    }
    showMessage(`Game ${id} ${first.status} before its first turn: there is nothing to show.`, true);
    return;
  }
  show({ ...first.header, full_frames: first.frames });
  loadFailures(id);
  if (RUNNING.includes(first.status)) {
    setTimeout(follow, LIVE_POLL_MS);
  }
}

/** Ask for a running game's new frames, draw them, and go on until it ends. */
async function follow() {
  const { game } = view;
  let page;
  try {
    page = await getJson(framesUrl(live.id, game.frames.length));
  } catch (err) {
    // The server may be restarting: try again, less and less often.
    live.retries += 1;
    $("game-status").textContent = `Live: ${err.message}; trying again`;
    setTimeout(follow, Math.min(15000, LIVE_POLL_MS * 2 ** live.retries));
    return;
  }
  live.retries = 0;
  if (page.frames.length > 0 && view.game === game) {
    game.addFrames(page.frames);
    const first = player.frames.length;
    player.frames.push(...page.frames.map((_, i) => ({ Turn: first + i })));
    view.chartDrawn = false;
    gameInfo(game, game.doc);
    player.framesInserted({ index: player.frames.length - 1, added: false });
  }
  if (RUNNING.includes(page.status)) {
    // A full page: more frames are waiting already.
    setTimeout(follow, page.frames.length === PAGE ? 0 : LIVE_POLL_MS);
    return;
  }
  if (page.status === "complete") {
    // The stored replay: the final state and the statistics.  A viewer at the live
    // edge goes on to the end; one that went back stays where it is.
    const at = player.follow ? Number.MAX_SAFE_INTEGER : player.index;
    const playing = player.playing;
    await loadReplay(live.id, at);
    if (playing) {
      player.play();
    }
    return;
  }
  live.status = page.status;
  player.live = false;
  gameInfo(game, game.doc);
  await loadFailures(live.id);
  scheduleRender();
}

function failed(err) {
  showMessage(`Cannot load game ${live.id}: ${err.message}`, true);
}

async function openFile(file) {
  if (!file) {
    return;
  }
  showMessage(`Reading ${file.name}…`);
  // A file is a replay of its own: no game of this server, no failures from its API.
  live.id = null;
  live.status = null;
  view.failures = [];
  const bytes = new Uint8Array(await file.arrayBuffer());
  let i = 0;
  while (i < bytes.length && bytes[i] <= 32) {
    i += 1;
  }
  if (bytes[i] === 123) {
    // Plain JSON (the engine's --no-compression): read here.
    try {
      show(JSON.parse(new TextDecoder().decode(bytes)));
    } catch (err) {
      showMessage(`${file.name} is not JSON: ${err.message}`, true);
    }
    return;
  }
  // zstd: browsers cannot decompress it, the server does (and keeps nothing).
  const response = await fetch("/api/halite/decode", {
    method: "POST",
    headers: { "Content-Type": "application/octet-stream" },
    body: bytes,
  });
  if (!response.ok) {
    showMessage(`${file.name}: ${await readError(response)}`, true);
    return;
  }
  $("btn-open").hidden = false;
  show(await response.json());
}

function setup() {
  document.documentElement.dataset.theme = settings.theme;
  const fps = $("fps");
  const choices = [...new Set([...FPS_CHOICES, settings.fps])].sort((a, b) => a - b);
  fps.replaceChildren(...choices.map((n) => {
    const o = el("option", { value: n }, `${n} fps`);
    return o;
  }));
  fps.value = String(settings.fps);
  fps.addEventListener("change", () => {
    settings.fps = clampFps(fps.value);
    player.setFps(settings.fps);
    store({ fps: settings.fps });
  });
  const theme = $("theme");
  theme.value = settings.theme;
  theme.addEventListener("change", () => {
    settings.theme = theme.value;
    store({ theme: settings.theme });
    document.documentElement.dataset.theme = settings.theme;
  });
  $("ships-toggle").addEventListener("change", (event) => {
    if (view.map) {
      view.map.showShips = event.target.checked;
      scheduleRender();
    }
  });
  const canvas = $("halite-canvas");
  canvas.addEventListener("mousemove", (event) => {
    const cell = view.map?.cellAt(event);
    const box = $("board").getBoundingClientRect();
    view.hover = cell && { ...cell, left: event.clientX - box.left, top: event.clientY - box.top };
    tooltip();
  });
  canvas.addEventListener("mouseleave", () => {
    view.hover = null;
    tooltip();
  });
  $("halite-chart").addEventListener("click", (event) => {
    if (!view.game) {
      return;
    }
    const rect = event.currentTarget.getBoundingClientRect();
    player.pause();
    player.goto(Math.round(((event.clientX - rect.left) / rect.width) * view.game.lastIndex));
  });
  $("replay-file").addEventListener("change", (event) => openFile(event.target.files?.[0]));
  $("btn-open").addEventListener("click", () => {
    $("replay-picker").hidden = false;
    $("replay-file").click();
  });
  bindKeyboard(player);
}

function main() {
  setup();
  const game = params.get("game");
  if (game) {
    loadGame(game).catch(failed);
  } else {
    $("replay-picker").hidden = false;
  }
}

main();
