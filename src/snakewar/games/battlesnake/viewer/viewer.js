// The board page: reads the URL, loads a game (live from an engine, or from a
// replay file) and ties the board, the scoreboard and the controls together.
//
// URL parameters (as the official board's, where it has them):
//   engine=URL&game=ID   watch a game from an engine (engine defaults to this page's origin)
//   replay=1             open a replay file from disk; replay=URL fetches one
//   turn=N autoplay= fps= loop= theme=light|dark|system showCoords=
//   title= showControls= showScoreboard= showScrubber=
//   fit=true             in a frame of fixed size (Snakewar's own pages): fit the board
//                        to the frame's height, so the controls stay in view
//
// Embedded in a page, it posts TURN, RESIZE and GAME_OVER messages to it (as the
// official board does), fires "boardturn" on its iframe element (same origin only) as it
// draws a turn, and
// takes the page's forwarded shortcut keys (controls.js).

import { bindControls, bindKeyboard } from "../viewer/controls.js";
import {
  decodeReplayBytes,
  eliminationTurns,
  gameOutcome,
  insertFrame,
  parseReplayText,
} from "./frames.js";
import { EventStream, eventsUrl, fetchAllFrames, fetchGame } from "./live.js";
import { DEFAULT_FPS, Player, clampFps } from "../viewer/player.js";
import { renderBoard } from "./render.js";
import { paintHealth, renderScoreboard } from "./scoreboard.js";

const FPS_CHOICES = [1, 2, 3, 4, 6, 8, 10, 15, 20, 30, 60];
const THEMES = ["system", "light", "dark"];
const STORAGE_KEY = "snakewar.viewer";

const $ = (id) => document.querySelector(`[data-testid="${id}"]`);
const params = new URLSearchParams(window.location.search);
const embedded = window.parent !== window;

/** A boolean URL parameter: absent gives undefined; "", 1, true, yes, on give true. */
function flag(name) {
  if (!params.has(name)) {
    return undefined;
  }
  return !["0", "false", "no", "off"].includes(params.get(name).trim().toLowerCase());
}

// -- settings ------------------------------------------------------------------------------

function loadStored() {
  try {
    const value = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    // Storage can be disabled (private windows, sandboxed iframes).
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

// URL parameters win over stored preferences, but are not stored themselves:
// opening an embed with ?theme=dark must not change the user's own choice.
const stored = loadStored();
const urlTheme = params.get("theme");
const settings = {
  fps: clampFps(params.get("fps") ?? stored.fps, DEFAULT_FPS),
  theme: THEMES.includes(urlTheme) ? urlTheme : THEMES.includes(stored.theme) ? stored.theme : "system",
  showCoords: flag("showCoords") ?? stored.showCoords === true,
  autoplay: flag("autoplay") ?? false,
  loop: flag("loop") ?? false,
};

// -- state ------------------------------------------------------------------------------------

const state = {
  game: null,
  result: null,
  // No more frames will come: a file, or a live game that sent game_end.
  ended: false,
  highlight: null,
  stream: null,
  pendingTurn: null,
  pendingAutoplay: false,
  gameOverPosted: false,
  lastPostedTurn: null,
};

const player = new Player({ onChange: onPlayerChange, eliminations: eliminationTurns });
player.fps = settings.fps;
player.loop = settings.loop;

// -- messages to an embedding page ------------------------------------------------------------

function post(event, data) {
  if (embedded) {
    // The data is public game state, so any parent origin may receive it.
    window.parent.postMessage({ event, data }, "*");
  }
}

let lastSize = "";

function postResize() {
  // The content's own size (not the frame's), so the parent can fit the iframe to it.
  const box = document.body.getBoundingClientRect();
  const size = { height: Math.ceil(box.height), width: Math.ceil(box.width) };
  const key = `${size.width}x${size.height}`;
  if (key !== lastSize) {
    lastSize = key;
    post("RESIZE", size);
  }
}

function postTurn() {
  const turn = player.frame?.Turn;
  if (turn !== undefined && turn !== state.lastPostedTurn) {
    state.lastPostedTurn = turn;
    post("TURN", { turn });
  }
}

function postGameOver() {
  if (state.gameOverPosted || !state.ended || !player.atEnd || !player.frame) {
    return;
  }
  state.gameOverPosted = true;
  const outcome = gameOutcome(player.frames, state.result);
  post("GAME_OVER", { game: state.game, turn: player.frame.Turn, ...outcome });
}

// -- the turn in the address bar ------------------------------------------------------------

let urlTimer = null;

function syncPermalink() {
  // Browsers throttle history updates, so they are batched: at most one per
  // second while playing, soon after the last change otherwise.
  if (urlTimer !== null) {
    return;
  }
  urlTimer = window.setTimeout(
    () => {
      urlTimer = null;
      const url = new URL(window.location.href);
      const frame = player.frame;
      // A viewer following a live game is not "at" a turn: reloading should follow again.
      if (!frame || (player.live && player.follow)) {
        url.searchParams.delete("turn");
      } else {
        url.searchParams.set("turn", String(frame.Turn));
      }
      // A page with no address of its own (a notebook's <iframe srcdoc>) keeps no turn in it.
      if (url.href !== window.location.href && url.protocol !== "about:") {
        window.history.replaceState(window.history.state, "", url);
      }
    },
    player.playing ? 1000 : 150,
  );
}

// -- drawing ----------------------------------------------------------------------------------

const elements = {
  viewer: $("viewer"),
  title: $("title"),
  picker: $("replay-picker"),
  fileInput: $("replay-file"),
  message: $("message"),
  stage: $("stage"),
  board: $("board"),
  turn: $("turn"),
  info: $("game-info"),
  status: $("game-status"),
  connection: $("connection-status"),
  scoreboard: $("scoreboard"),
  fps: $("fps"),
  coords: $("coords"),
  theme: $("theme"),
  open: $("btn-open"),
};

const updateControls = bindControls(document, player, userMoved);
let renderQueued = false;

function scheduleRender() {
  // Many frames can arrive at once (a reconnect replays the whole game); draw
  // once per animation frame, not once per message.
  if (!renderQueued) {
    renderQueued = true;
    window.requestAnimationFrame(() => {
      renderQueued = false;
      render();
    });
  }
}

function statusText() {
  const frame = player.frame;
  if (!frame) {
    return "";
  }
  if (state.ended && player.atEnd) {
    const { winnerName, isDraw } = gameOutcome(player.frames, state.result);
    if (winnerName) {
      return `Game over: ${winnerName} won`;
    }
    return isDraw ? "Game over: a draw" : "Game over";
  }
  if (!state.ended && player.atEnd) {
    return player.live ? "Live" : "Unfinished game: the file ends here";
  }
  return "";
}

function render() {
  const frame = player.frame;
  updateControls();
  if (!state.game || !frame) {
    return;
  }
  elements.board.innerHTML = renderBoard(state.game, frame, {
    showCoords: settings.showCoords,
    highlight: state.highlight,
  });
  elements.scoreboard.innerHTML = renderScoreboard(frame, { highlight: state.highlight });
  paintHealth(elements.scoreboard);
  elements.turn.textContent = `Turn ${frame.Turn}`;
  elements.status.textContent = statusText();
  announceTurn(frame.Turn);
}

let announcedTurn = null;

function announceTurn(turn) {
  // A page of this server embedding the board (same origin) hears of each turn drawn
  // from its iframe element: the event is handled there and then, in the animation
  // frame that draws the turn, so the page's own turn display never lags the board's.
  // (TURN messages are for pages of any origin, and arrive a task later; across
  // origins frameElement is null.)
  if (turn === announcedTurn) {
    return;
  }
  announcedTurn = turn;
  let frameElement = null;
  try {
    frameElement = window.frameElement;
  } catch {
    frameElement = null;
  }
  frameElement?.dispatchEvent(new CustomEvent("boardturn", { detail: { turn } }));
}

function onPlayerChange() {
  scheduleRender();
  syncPermalink();
  postTurn();
  postGameOver();
}

function showMessage(text, { error = false } = {}) {
  elements.message.textContent = text;
  elements.message.classList.toggle("error", error);
  elements.message.hidden = !text;
}

function describeGame(game) {
  const parts = [game.RulesetName, game.Map, `${game.Width}×${game.Height}`];
  if (game.SeedString !== null && game.SeedString !== undefined) {
    parts.push(`seed ${game.SeedString}`);
  }
  return parts.filter(Boolean).join(" · ");
}

function showGame(game) {
  state.game = game;
  elements.stage.hidden = false;
  elements.info.textContent = describeGame(game);
  const title = params.get("title");
  document.title = title || `Snakewar · ${game.Map || game.RulesetName} · ${game.ID}`;
}

/**
 * The user moved the playback (a key, a button, the scrubber): where they went wins over
 * the start the page asked for, so frames landing later neither jump to ?turn= nor start
 * ?autoplay (a user who pressed "r" while the game loaded stays paused at turn 0).
 */
function userMoved() {
  state.pendingTurn = null;
  state.pendingAutoplay = false;
}

/** Where playback starts: ?turn=N, else the start with ?autoplay, else the start of a file. */
function applyStart() {
  if (state.pendingTurn !== null) {
    const turn = state.pendingTurn;
    const reached = player.frames.some((f) => f.Turn >= turn);
    if (reached || state.ended) {
      state.pendingTurn = null;
      // A position someone linked to is shown, not played past: ?autoplay is for
      // pages opened at the start.
      state.pendingAutoplay = false;
      player.gotoTurn(turn);
      // The asked turn stays on screen while later frames load.
      player.follow = false;
    }
  }
  if (state.pendingAutoplay && state.pendingTurn === null && player.frames.length > 0) {
    state.pendingAutoplay = false;
    player.play();
  }
}

// -- live games -----------------------------------------------------------------------------

function addFrame(frame) {
  player.framesInserted(insertFrame(player.frames, frame));
  applyStart();
}

function endLive() {
  state.ended = true;
  player.live = false;
  elements.connection.hidden = true;
  scheduleRender();
  postGameOver();
}

async function startLive(engine, id) {
  showMessage(`Loading game ${id}…`);
  let info;
  try {
    info = await fetchGame(engine, id);
  } catch (error) {
    showMessage(`Cannot load game ${id} from ${engine}: ${error.message}`, { error: true });
    return;
  }
  showMessage("");
  showGame(info.game);
  player.live = true;
  player.setFrames([]);
  const complete = info.game.Status === "complete";
  if (complete || state.pendingTurn !== null || state.pendingAutoplay) {
    // Start at the beginning (or the asked turn) rather than chase the live
    // edge: a finished game is watched like a replay.
    player.follow = false;
  }
  // LastFrame shows a running game at once; skip it when playback must start
  // from the beginning or at a given turn, which it would get in the way of.
  if (info.lastFrame && !complete && state.pendingTurn === null && !state.pendingAutoplay) {
    addFrame(info.lastFrame);
  }
  if (complete) {
    try {
      await fetchAllFrames(engine, id, (page) => page.forEach(addFrame));
      if (player.frames.length > 0) {
        endLive();
        applyStart();
        return;
      }
    } catch {
      // Not every engine serves /frames; the events stream has the same frames.
    }
  }
  elements.connection.hidden = false;
  state.stream = new EventStream(eventsUrl(engine, id), {
    onFrame: addFrame,
    onEnd: (data) => {
      if (data && typeof data === "object" && data.ID === state.game.ID) {
        state.game = { ...state.game, ...data };
      }
      endLive();
      applyStart();
    },
    onStatus: (text) => {
      elements.connection.textContent = `Connection: ${text}`;
    },
    onMissing: () => showMessage(`Game ${id} is not on ${engine}`, { error: true }),
    onRestart: () => {
      player.setFrames([]);
      scheduleRender();
    },
  });
  state.stream.start();
}

// -- replay files ----------------------------------------------------------------------------

function loadParsed(parsed, name) {
  showGame(parsed.game);
  state.result = parsed.result;
  // A file without its result line is an unfinished game: no GAME_OVER for it.
  state.ended = parsed.result !== null || parsed.game.Status === "complete";
  state.gameOverPosted = false;
  state.highlight = null;
  player.pause();
  player.live = false;
  player.setFrames(parsed.frames, 0);
  const notes = parsed.notes.length ? ` (${parsed.notes.join("; ")})` : "";
  showMessage(notes ? `${name}${notes}` : "");
  elements.picker.hidden = true;
  elements.open.hidden = false;
  applyStart();
}

async function openBytes(bytes, name) {
  try {
    const text = await decodeReplayBytes(bytes);
    loadParsed(parseReplayText(text), name);
  } catch (error) {
    showMessage(`${name}: ${error.message}`, { error: true });
  }
}

async function openFile(file) {
  if (file) {
    await openBytes(await file.arrayBuffer(), file.name);
  }
}

async function openUrl(url) {
  showMessage(`Loading ${url}…`);
  try {
    const response = await fetch(url);
    if (!response.ok) {
      throw new Error(`HTTP ${response.status}`);
    }
    await openBytes(await response.arrayBuffer(), url);
  } catch (error) {
    showMessage(`Cannot load ${url}: ${error.message}`, { error: true });
  }
}

function enableFileDrop() {
  elements.fileInput.addEventListener("change", () => {
    openFile(elements.fileInput.files[0]);
    // Choosing the same file again should load it again.
    elements.fileInput.value = "";
  });
  elements.open.addEventListener("click", () => elements.fileInput.click());
  let depth = 0;
  document.addEventListener("dragenter", (event) => {
    event.preventDefault();
    depth += 1;
    document.body.classList.add("dragging");
  });
  document.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    document.body.classList.toggle("dragging", depth > 0);
  });
  document.addEventListener("dragover", (event) => event.preventDefault());
  document.addEventListener("drop", (event) => {
    event.preventDefault();
    depth = 0;
    document.body.classList.remove("dragging");
    openFile(event.dataTransfer?.files?.[0]);
  });
}

// -- settings controls ---------------------------------------------------------------------------

function applyTheme() {
  document.documentElement.dataset.theme = settings.theme;
}

function setupSettings() {
  const choices = [...new Set([...FPS_CHOICES, settings.fps])].sort((a, b) => a - b);
  elements.fps.innerHTML = choices.map((n) => `<option value="${n}">${n} fps</option>`).join("");
  elements.fps.value = String(settings.fps);
  elements.fps.addEventListener("change", () => {
    settings.fps = clampFps(elements.fps.value);
    player.setFps(settings.fps);
    store({ fps: settings.fps });
  });
  elements.coords.checked = settings.showCoords;
  elements.coords.addEventListener("change", () => {
    settings.showCoords = elements.coords.checked;
    store({ showCoords: settings.showCoords });
    scheduleRender();
  });
  elements.theme.value = settings.theme;
  elements.theme.addEventListener("change", () => {
    settings.theme = elements.theme.value;
    store({ theme: settings.theme });
    applyTheme();
  });
  applyTheme();
  const hide = { showControls: "no-controls", showScoreboard: "no-scoreboard", showScrubber: "no-scrubber" };
  for (const [name, cls] of Object.entries(hide)) {
    elements.viewer.classList.toggle(cls, flag(name) === false);
  }
  const title = params.get("title");
  if (title) {
    elements.title.textContent = title;
    elements.title.hidden = false;
  }
}

function setupScoreboard() {
  // Clicking a snake highlights it on the board (and fades the others).
  const toggle = (target) => {
    const row = target.closest("[data-snake-id]");
    if (row) {
      const id = row.dataset.snakeId;
      state.highlight = state.highlight === id ? null : id;
      scheduleRender();
    }
  };
  elements.scoreboard.addEventListener("click", (event) => toggle(event.target));
  elements.scoreboard.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      toggle(event.target);
    }
  });
}

// -- start ---------------------------------------------------------------------------------------

function main() {
  setupSettings();
  setupScoreboard();
  bindKeyboard(player, window, userMoved);
  enableFileDrop();
  if (embedded) {
    // In a frame sized from our RESIZE messages, the board must not size itself
    // from the frame's height in turn, or the two would shrink each other.  A
    // frame of fixed size (?fit=true) is the other way round: fit into it.
    if (flag("fit") !== true) {
      document.documentElement.classList.add("embedded");
    }
    if (typeof ResizeObserver === "function") {
      new ResizeObserver(postResize).observe(document.body);
    }
  }
  postResize();

  const turn = Number.parseInt(params.get("turn") ?? "", 10);
  state.pendingTurn = Number.isInteger(turn) && turn >= 0 ? turn : null;
  state.pendingAutoplay = settings.autoplay;

  const replay = params.get("replay");
  const game = params.get("game");
  // A self-contained replay page (snakewar export --html) carries its replay inline.
  const inline = document.getElementById("sw-inline-replay");
  if (inline) {
    const name = inline.dataset.name || "replay";
    try {
      loadParsed(parseReplayText(inline.textContent), name);
    } catch (error) {
      showMessage(`${name}: ${error.message}`, { error: true });
    }
  } else if (game) {
    startLive(params.get("engine") || window.location.origin, game);
  } else if (replay !== null && !["", "1", "true", "yes", "on"].includes(replay.toLowerCase())) {
    elements.open.hidden = false;
    openUrl(replay);
  } else if (replay !== null) {
    elements.picker.hidden = false;
  } else {
    elements.picker.hidden = false;
    showMessage(
      "Nothing to show yet: open a replay file below, or give the page " +
        "?engine=URL&game=ID to watch a game.",
    );
  }
  window.addEventListener("pagehide", () => state.stream?.stop());
}

main();
