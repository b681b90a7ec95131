// The Halite III viewer: draws an official replay document (the JSON inside a
// .hlt file, REPLAY_FILE_VERSION 3) on a canvas, with the playback (../viewer/player.js),
// controls and keyboard shortcuts every game's viewer shares.
//
// URL parameters: game=ID (a game on this server, finished or running), replay=1 (pick
// a local file), turn=N, autoplay=, fps=, theme=light|dark|system, palette=NAME.
//
// A game of this server is read from GET /api/games/{id}/frames first: a running (or
// stopped) game's header is the replay's head and its frames are the replay's frames
// so far, so the viewer draws it as a replay that grows: the next frames come over the
// game's events websocket (/api/games/{id}/events?from=N, ../viewer/events.js), which
// resumes where it was after a lost connection, on any server of the database.  Once
// the game is complete, its stored replay (with its statistics) replaces them, at the
// turn shown.  Each player's failure (the API's entrants[i].failure) is shown under
// its name.
//
// The map can be zoomed (the wheel, + and -, the buttons) and panned (a drag,
// Shift+arrows), and reset (0, the button); its colours are a palette (view.js: the
// default one, or Okabe–Ito for colour-blind eyes), remembered in this browser.  A
// click on the map shows that cell's details, and its ship's, in a panel: the ship is
// followed from turn to turn.

import { bindControls, bindKeyboard, typingInto } from "../viewer/controls.js";
import { EventStream, socketUrl } from "../viewer/events.js";
import { DEFAULT_FPS, Player, clampFps } from "../viewer/player.js";
import { HaliteGame } from "./replay.js";
import { Camera, PALETTES, heatColors, isPalette } from "./view.js";

export { HaliteGame };

const FPS_CHOICES = [1, 2, 3, 4, 6, 8, 10, 15, 20, 30, 60];
const THEMES = ["system", "light", "dark"];
const STORAGE_KEY = "snakewar.viewer";
const MAX_CARGO = 1000;
const STARTING_RETRY_MS = 1000; // a game whose bots are still starting is asked again
const PAGE = 500; // frames per request (the server's most)
const RUNNING = ["running", "starting"];
const ZOOM_STEP = 1.25; // each zoom key or button
const PAN_STEP = 0.1; // each pan key: a tenth of the view
const DRAG_PX = 4; // a press that moves less than this is a click (it selects a cell)

const $ = (id) => document.querySelector(`[data-testid="${id}"]`);
const params = new URLSearchParams(window.location.search);

// -- colours and drawing --------------------------------------------------------------------

class MapView {
  constructor(canvas, game, camera, paletteName) {
    this.canvas = canvas;
    this.game = game;
    this.camera = camera;
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
    this.setPalette(paletteName);
    // What the inspector shows, outlined on the map: {x, y} of a cell, or null.
    this.selected = null;
  }

  setPalette(name) {
    this.heatColors = heatColors(name);
  }

  draw(t) {
    const { game, cell } = this;
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    // The camera's zoom and pan, on top of the device pixel ratio.
    const [zoom, dx, dy] = this.camera.transform(cell);
    ctx.setTransform(this.scale * zoom, 0, 0, this.scale * zoom, this.scale * dx, this.scale * dy);
    const grid = game.gridAt(t);
    const px = this.image.data;
    const heat = this.heatColors;
    for (let i = 0; i < grid.length; i += 1) {
      // sqrt: most cells hold little, and their differences matter most.
      const level = Math.min(255, Math.round(Math.sqrt(Math.max(0, grid[i]) / game.maxHalite) * 255));
      px[i * 4] = heat[level * 3];
      px[i * 4 + 1] = heat[level * 3 + 1];
      px[i * 4 + 2] = heat[level * 3 + 2];
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
    if (this.selected) {
      this.outline(ctx, this.selected.x, this.selected.y);
    }
  }

  outline(ctx, x, y) {
    // Two strokes, dark then light: seen on any cell, in any palette.
    const c = this.cell;
    for (const [color, width] of [["#000", 3], ["#fff", 1.5]]) {
      ctx.strokeStyle = color;
      ctx.lineWidth = width / this.camera.zoom;
      ctx.strokeRect(x * c + 0.5, y * c + 0.5, c - 1, c - 1);
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

  /**
   * Where a mouse event is in the drawn map: `{u, v}`, fractions of the map's box
   * (0..1 inside it), or null outside it.
   */
  fractionAt(event) {
    // The canvas is drawn "object-fit: contain": centred in its box, aspect kept.
    const rect = this.canvas.getBoundingClientRect();
    const size = Math.min(rect.width / this.game.width, rect.height / this.game.height);
    const left = rect.left + (rect.width - size * this.game.width) / 2;
    const top = rect.top + (rect.height - size * this.game.height) / 2;
    const u = (event.clientX - left) / (size * this.game.width);
    const v = (event.clientY - top) / (size * this.game.height);
    return u < 0 || v < 0 || u >= 1 || v >= 1 ? null : { u, v, size };
  }

  /** The cell under a mouse event, as the camera shows it, or null. */
  cellAt(event) {
    const at = this.fractionAt(event);
    if (!at) {
      return null;
    }
    const point = this.camera.toMap(at.u, at.v);
    const x = Math.floor(point.x);
    const y = Math.floor(point.y);
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
const urlPalette = params.get("palette");
const settings = {
  fps: clampFps(params.get("fps") ?? stored.fps, DEFAULT_FPS),
  theme: THEMES.includes(urlTheme) ? urlTheme : THEMES.includes(stored.theme) ? stored.theme : "system",
  palette: isPalette(urlPalette) ? urlPalette : isPalette(stored.halitePalette) ? stored.halitePalette : "default",
};

// selected: what the inspector shows ({x, y} of a cell, and the id of the ship on it
// when one was clicked: that ship is followed from turn to turn), or null.
const view = {
  game: null, map: null, camera: null, pending: false, hover: null, failures: [], selected: null,
  shownId: null,
};
// A game of this server being followed: its id, status and events stream (null: a
// file, or a replay), and what the stream says of its connection.
const live = { id: null, status: null, stream: null, connection: "" };
const player = new HalitePlayer({ onChange: () => scheduleRender() });
player.fps = settings.fps;
// Once the user has moved the playback (a key, a button, the scrubber), a replay that
// finishes loading after that does not start playing on its own (?autoplay).
let userMovedPlayback = false;
const userMoved = () => {
  userMovedPlayback = true;
};
const updateControls = bindControls(document, player, userMoved);

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
    const swatch = el("span", {
      class: "avatar halite-swatch", "aria-hidden": "true", "data-testid": "halite-player-swatch",
    });
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

function ownerName(owner) {
  return view.game.players[owner]?.name ?? `player ${owner}`;
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
      lines.push(`ship ${s.id} (${ownerName(s.owner)}) · cargo ${s.cargo}${s.inspired ? " · inspired" : ""}`);
    }
  }
  const structure = game.structureAt(t, x, y);
  if (structure) {
    lines.push(`${structure.kind} of ${ownerName(structure.owner)}`);
  }
  tip.replaceChildren(...lines.map((line) => el("div", {}, line)));
  tip.hidden = false;
  tip.style.left = `${hover.left + 14}px`;
  tip.style.top = `${hover.top + 14}px`;
}

/** The inspector's rows: [label, value, testid] for the selection at frame `t`. */
function inspectorRows(t) {
  const { game, selected } = view;
  const rows = [];
  let { x, y } = selected;
  if (selected.ship !== undefined) {
    const ship = game.shipAt(t, selected.ship);
    rows.push(["Ship", `#${selected.ship}`, "halite-inspect-ship-id"]);
    rows.push(["Owner", ownerName(selected.owner), "halite-inspect-owner"]);
    if (!ship) {
      rows.push(["Status", `not on the map at turn ${t}`, "halite-inspect-ship-status"]);
      return rows;
    }
    ({ x, y } = ship);
    rows.push(["Halite carried", String(ship.cargo), "halite-inspect-cargo"]);
    rows.push(["Position", `(${ship.x}, ${ship.y})`, "halite-inspect-position"]);
    rows.push(["Inspired", ship.inspired ? "yes" : "no", "halite-inspect-inspired"]);
  }
  const cell = game.cellInfo(t, x, y);
  rows.push(["Cell", `(${x}, ${y})`, "halite-inspect-cell"]);
  rows.push(["Cell halite", String(cell.halite), "halite-inspect-cell-halite"]);
  const structure = cell.structure ? `${cell.structure.kind} of ${ownerName(cell.structure.owner)}` : "none";
  rows.push(["Structure", structure, "halite-inspect-structure"]);
  if (selected.ship === undefined && cell.ship) {
    rows.push(["Ship here", `#${cell.ship.id} (${ownerName(cell.ship.owner)})`, "halite-inspect-ship-here"]);
  }
  return rows;
}

function renderInspector(t) {
  const panel = $("halite-inspect");
  if (!view.selected || !view.game) {
    panel.hidden = true;
    if (view.map) {
      view.map.selected = null;
    }
    return;
  }
  const rows = inspectorRows(t);
  const list = $("halite-inspect-rows");
  list.replaceChildren(...rows.flatMap(([label, value, testid]) => [
    el("dt", {}, label),
    el("dd", { "data-testid": testid }, value),
  ]));
  $("halite-inspect-title").textContent =
    view.selected.ship !== undefined ? `Ship #${view.selected.ship} · turn ${t}` : `Cell · turn ${t}`;
  panel.hidden = false;
  // The outline follows a selected ship.
  const ship = view.selected.ship !== undefined ? view.game.shipAt(t, view.selected.ship) : null;
  view.map.selected = ship ? { x: ship.x, y: ship.y } : view.selected.ship === undefined ? view.selected : null;
}

/** The view's zoom and centre, on the canvas (what tests and tools can read). */
function renderCamera() {
  const { camera } = view;
  const canvas = $("halite-canvas");
  canvas.dataset.zoom = camera.zoom.toFixed(3);
  canvas.dataset.center = `${camera.cx.toFixed(2)},${camera.cy.toFixed(2)}`;
  $("halite-zoom-reset").disabled = camera.isReset;
}

function render() {
  updateControls();
  const { game } = view;
  if (!game) {
    return;
  }
  const t = player.index;
  renderInspector(t);
  view.map.draw(t);
  renderCamera();
  $("turn").textContent = `Turn ${t}`;
  $("game-status").textContent = statusText(t);
  renderScoreboard(t);
  renderChart(t);
  tooltip();
  tellTurn(t);
  const url = new URL(window.location.href);
  if (url.searchParams.get("game")) {
    url.searchParams.set("turn", String(t));
    window.history.replaceState(null, "", url);
  }
}

/**
 * Tell the page around the board which turn it shows (its Export and Share menus follow
 * it): a "boardturn" event on the frame's element, as the Battlesnake board fires.  Only
 * a page of the same origin has the element; elsewhere there is nobody to tell.
 */
function tellTurn(t) {
  if (view.toldTurn === t) {
    return;
  }
  view.toldTurn = t;
  let frame = null;
  try {
    frame = window.frameElement;
  } catch {
    return;
  }
  frame?.dispatchEvent(new CustomEvent("boardturn", { detail: { turn: t } }));
}

/** The status line: the game's state, as the frame shown and the game's own say. */
function statusText(t) {
  const last = view.game.lastIndex;
  if (live.status === null || live.status === "complete") {
    return t === last ? "Game over" : "";
  }
  if (RUNNING.includes(live.status)) {
    if (live.connection && live.connection !== "live") {
      return `Live: ${live.connection}`;
    }
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
 * The same map keeps its camera and selection (a live game's replay replacing its frames).
 */
function show(doc, at = null) {
  let game;
  try {
    game = new HaliteGame(doc, settings.palette);
  } catch (err) {
    showMessage(`This is not a Halite III replay: ${err.message}`, true);
    return;
  }
  // The same game of this server again (its replay replacing its live frames): the
  // view and the selection stay.  Anything else starts on the whole map.
  const same = view.game !== null && live.id !== null && view.shownId === live.id &&
    view.game.width === game.width && view.game.height === game.height;
  if (!same) {
    view.camera = new Camera(game.width, game.height);
    view.selected = null;
  }
  view.shownId = live.id;
  view.game = game;
  view.chartDrawn = false;
  view.map = new MapView($("halite-canvas"), game, view.camera, settings.palette);
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
  const autoplay = ["1", "true", "yes", "on", ""].includes((params.get("autoplay") ?? "no").toLowerCase());
  // A linked turn is shown, not played past: ?autoplay is for pages opened at the start.
  if (at === null && autoplay && !Number.isInteger(turn) && !userMovedPlayback) {
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

function stopStream() {
  live.stream?.stop();
  live.stream = null;
  live.connection = "";
}

async function loadGame(id) {
  showMessage("Loading the game…");
  stopStream();
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
      setTimeout(() => loadGame(id).catch(failed), STARTING_RETRY_MS);
      return;
    }
    showMessage(`Game ${id} ${first.status} before its first turn: there is nothing to show.`, true);
    return;
  }
  show({ ...first.header, full_frames: first.frames });
  loadFailures(id);
  if (RUNNING.includes(first.status) || first.count > first.frames.length) {
    follow(id, view.game.frames.length);
  }
}

/**
 * Follow game `id`'s events websocket from frame `start`: its frames as they are
 * played (a stopped game's: those the first page did not hold), then its end.
 */
function follow(id, start) {
  const game = view.game;
  const pending = [];
  let flushing = false;
  // Frames come one message each, a long history in a burst: drawn in batches.
  const flush = () => {
    flushing = false;
    if (pending.length === 0 || view.game !== game) {
      return;
    }
    const frames = pending.splice(0);
    game.addFrames(frames);
    const first = player.frames.length;
    player.frames.push(...frames.map((_, i) => ({ Turn: first + i })));
    view.chartDrawn = false;
    gameInfo(game, game.doc);
    player.framesInserted({ index: player.frames.length - 1, added: false });
  };
  const stream = new EventStream(socketUrl(`/api/games/${encodeURIComponent(id)}/events`), {
    onFrame(frame) {
      pending.push(frame);
      if (!flushing) {
        flushing = true;
        setTimeout(flush, 0);
      }
    },
    onStatus(text) {
      live.connection = text;
      scheduleRender();
    },
    onRestart() {
      // Played again from turn 0: what is drawn is void; start over.
      pending.length = 0;
      loadGame(id).catch(failed);
    },
    onMissing() {
      showMessage(`Game ${id} is gone (deleted?).`, true);
    },
    onEnd(data) {
      flush();
      ended(id, String(data?.status ?? "")).catch(failed);
    },
  });
  stream.next = start;
  live.stream = stream;
  stream.start();
}

/** The game ended (or stopped): a complete one's stored replay replaces its frames. */
async function ended(id, status) {
  live.stream = null;
  live.connection = "";
  if (status === "complete") {
    // The stored replay: the final state and the statistics.  A viewer at the live
    // edge goes on to the end; one that went back stays where it is.
    const at = player.follow ? Number.MAX_SAFE_INTEGER : player.index;
    const playing = player.playing;
    await loadReplay(id, at);
    if (playing) {
      player.play();
    }
    return;
  }
  live.status = status || "aborted";
  player.live = false;
  gameInfo(view.game, view.game.doc);
  await loadFailures(id);
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
  stopStream();
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

// -- the camera, the palette and the inspector ----------------------------------------

function zoomBy(factor, u = 0.5, v = 0.5) {
  if (view.camera) {
    view.camera.zoomAt(factor, u, v);
    scheduleRender();
  }
}

function panBy(du, dv) {
  if (view.camera) {
    view.camera.panBy(du, dv);
    scheduleRender();
  }
}

function resetView() {
  if (view.camera) {
    view.camera.reset();
    scheduleRender();
  }
}

/** Select what is on the cell clicked: its ship (followed from turn to turn), else the cell. */
function select(cell) {
  if (!cell || !view.game) {
    view.selected = null;
  } else {
    const ship = view.game.cellInfo(player.index, cell.x, cell.y).ship;
    view.selected = ship ? { x: cell.x, y: cell.y, ship: ship.id, owner: ship.owner } : { x: cell.x, y: cell.y };
  }
  scheduleRender();
}

function setPalette(name) {
  settings.palette = name;
  store({ halitePalette: name });
  if (view.game) {
    view.game.setPalette(name);
    view.map.setPalette(name);
    view.chartDrawn = false;
    scheduleRender();
  }
}

/** The map's mouse: the wheel zooms, a drag pans, a click selects, a hover tells. */
function bindMap(canvas) {
  canvas.addEventListener("wheel", (event) => {
    const at = view.map?.fractionAt(event);
    if (!at) {
      return;
    }
    event.preventDefault();
    // A notch (about 100 "pixels") zooms by about 1.2; trackpads send smaller steps.
    const delta = event.deltaMode === 1 ? event.deltaY * 33 : event.deltaY;
    zoomBy(Math.exp(-delta * 0.0018), at.u, at.v);
  }, { passive: false });
  let drag = null;
  canvas.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || !view.map) {
      return;
    }
    drag = { x: event.clientX, y: event.clientY, moved: false, id: event.pointerId };
    canvas.setPointerCapture(event.pointerId);
  });
  canvas.addEventListener("pointermove", (event) => {
    if (drag && drag.id === event.pointerId) {
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < DRAG_PX) {
        return;
      }
      drag.moved = true;
      const at = view.map.fractionAt(event) ?? { size: canvas.getBoundingClientRect().width / view.game.width };
      const mapPx = at.size * view.game.width;
      const mapPy = at.size * view.game.height;
      panBy(-dx / mapPx, -dy / mapPy);
      drag.x = event.clientX;
      drag.y = event.clientY;
      canvas.classList.add("dragging");
      return;
    }
    const cell = view.map?.cellAt(event);
    const box = $("board").getBoundingClientRect();
    view.hover = cell && { ...cell, left: event.clientX - box.left, top: event.clientY - box.top };
    tooltip();
  });
  const release = (event) => {
    if (!drag || drag.id !== event.pointerId) {
      return;
    }
    const { moved } = drag;
    drag = null;
    canvas.classList.remove("dragging");
    if (!moved && event.type === "pointerup") {
      select(view.map?.cellAt(event));
    }
  };
  canvas.addEventListener("pointerup", release);
  canvas.addEventListener("pointercancel", release);
  canvas.addEventListener("mouseleave", () => {
    view.hover = null;
    tooltip();
  });
}

/** The map's keys: + and - zoom, 0 resets, Shift+arrows pan, Escape closes the panel. */
function bindMapKeys() {
  const pans = { arrowleft: [-1, 0], arrowright: [1, 0], arrowup: [0, -1], arrowdown: [0, 1] };
  window.addEventListener("keydown", (event) => {
    if (typingInto(event.target) || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    const key = String(event.key).toLowerCase();
    let done = true;
    if (event.shiftKey && key in pans) {
      const [du, dv] = pans[key];
      panBy(du * PAN_STEP, dv * PAN_STEP);
    } else if (key === "+" || key === "=") {
      zoomBy(ZOOM_STEP);
    } else if (key === "-" || key === "_") {
      zoomBy(1 / ZOOM_STEP);
    } else if (key === "0") {
      resetView();
    } else if (key === "escape" && view.selected) {
      select(null);
    } else {
      done = false;
    }
    if (done) {
      // Shift+arrows are the map's, not the playback's (bound after this).
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  });
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
  const colours = $("halite-palette");
  colours.replaceChildren(...Object.entries(PALETTES).map(([name, p]) => el("option", { value: name }, p.title)));
  colours.value = settings.palette;
  colours.addEventListener("change", () => setPalette(isPalette(colours.value) ? colours.value : "default"));
  $("ships-toggle").addEventListener("change", (event) => {
    if (view.map) {
      view.map.showShips = event.target.checked;
      scheduleRender();
    }
  });
  bindMap($("halite-canvas"));
  $("halite-zoom-in").addEventListener("click", () => zoomBy(ZOOM_STEP));
  $("halite-zoom-out").addEventListener("click", () => zoomBy(1 / ZOOM_STEP));
  $("halite-zoom-reset").addEventListener("click", resetView);
  $("halite-inspect-close").addEventListener("click", () => select(null));
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
  bindMapKeys();
  bindKeyboard(player, window, userMoved);
  window.addEventListener("pagehide", stopStream);
}

function main() {
  setup();
  const game = params.get("game");
  // A self-contained replay page (snakewar export --html) carries its replay inline.
  const inline = document.getElementById("sw-inline-replay");
  if (inline) {
    try {
      show(JSON.parse(inline.textContent));
    } catch (err) {
      showMessage(`${inline.dataset.name || "replay"}: ${err.message}`, true);
    }
  } else if (game) {
    loadGame(game).catch(failed);
  } else {
    $("replay-picker").hidden = false;
  }
}

main();
