// The board viewer's pure modules: frame conversion, board rendering, playback, the
// events stream.
//
// `input` (tests/viewer/test_viewer_static.py) names games played by the real `snakewar`
// command and holds what Snakewar's own Python readers and the server's frame builder
// make of them: the modules must agree with those.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";

import { input, load, same } from "../../../../viewer/js/support.mjs";

const F = await load("battlesnake/frames.js");
const R = await load("battlesnake/render.js");
const S = await load("battlesnake/sprites.js");
const P = await load("viewer/player.js");
const C = await load("viewer/controls.js");
const L = await load("battlesnake/live.js");
const SB = await load("battlesnake/scoreboard.js");

const CELL = 20; // the cell size the Python side knows render.js by
const close = (actual, expected) =>
  assert.ok(Math.abs(actual - expected) <= 1e-6 * Math.abs(expected), `${actual} ≠ ${expected}`);

const read = async (path) => F.parseReplayText(await F.decodeReplayBytes(fs.readFileSync(path)));
const { files, expected } = input;
const snakewar = await read(files.snakewar);
const official = await read(files.official);
const wrapped = await read(files.wrapped);

test("the board is drawn CELL pixels a cell", () => {
  assert.equal(R.CELL, CELL);
});

test("a Snakewar replay converts to the server's frames", async () => {
  const want = expected.snakewar;
  assert.equal(snakewar.format, "snakewar");
  // Exactly what the live server sends for this game, field for field.
  same(snakewar.frames, want.frames);
  same(snakewar.game, want.game);
  same(snakewar.result.winnerId, want.winner);
  same(snakewar.result.isDraw, want.isDraw);
  same(snakewar.notes, []);
  const gz = await read(files.snakewarGz);
  assert.equal(JSON.stringify(gz.frames), JSON.stringify(snakewar.frames));
});

test("normalizing the server's frames changes nothing", () => {
  same(input.engineFrames.map(F.normalizeFrame), expected.snakewar.frames.slice(0, 3));
});

test("the official JSONL converts to frames", () => {
  const want = expected.official;
  assert.equal(official.format, "official");
  const { frames } = official;
  same(frames.map((f) => f.Turn), want.turns);
  assert.equal(frames.length, want.frameCount);
  assert.equal(frames.length, want.states.length);
  frames.forEach((frame, i) => {
    const alive = frame.Snakes.filter((s) => s.Death === null);
    const bodies = Object.fromEntries(alive.map((s) => [s.ID, s.Body.map((p) => [p.X, p.Y])]));
    same(bodies, want.states[i].bodies, `turn ${frame.Turn}`);
    same(Object.fromEntries(alive.map((s) => [s.ID, s.Health])), want.states[i].health);
    same(frame.Food.map((p) => [p.X, p.Y]), want.states[i].food);
  });
  // Snakes that disappear are kept, eliminated on the turn the Snakewar replay says.
  const final = Object.fromEntries(frames.at(-1).Snakes.map((s) => [s.ID, s]));
  same(Object.keys(final).sort(), [...want.snakes].sort());
  for (const [id, death] of Object.entries(want.deaths)) {
    same(final[id].Death, death, id);
  }
  same(official.result.winnerId, want.winnerId);
  same(official.result.winnerName, want.winnerName);
  same(official.game.ID, want.id);
  same(official.game.Width, want.width);
});

test("elimination sentences name the cause and the other snake", () => {
  const all = snakewar.frames.at(-1).Snakes;
  const sentences = Object.fromEntries(all.map((s) => [s.ID, F.eliminationText(s, all)]));
  for (const [id, text] of Object.entries(expected.sentences)) {
    assert.equal(sentences[id], text, id);
  }
});

test("the scoreboard lists the living first, then the latest eliminated", () => {
  same(F.scoreboardOrder(wrapped.frames.at(-1).Snakes).map((s) => s.ID), expected.order);
});

// The board of every wrapped frame: body polylines, hazards, food, head directions.
const render = wrapped.frames.map((frame) => {
  const svg = R.renderBoard(wrapped.game, frame, { showCoords: true });
  let maxStep = 0;
  for (const [, d] of svg.matchAll(/class="snake-body" d="([^"]+)"/g)) {
    const pts = d.slice(1).split(" L").map((p) => p.split(" ").map(Number));
    for (let i = 1; i < pts.length; i += 1) {
      maxStep = Math.max(maxStep, Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]));
    }
  }
  const hazards = {};
  for (const [, x, y, n] of svg.matchAll(
    /class="hazard" x="([\d.]+)" y="([\d.]+)"[^>]*data-stack="(\d+)"/g,
  )) {
    const cx = Math.floor(Number(x) / R.CELL);
    const cy = wrapped.game.Height - 1 - Math.floor(Number(y) / R.CELL);
    hazards[`${cx},${cy}`] = Number(n);
  }
  const heads = {};
  for (const s of frame.Snakes) {
    const g = R.snakeGeometry(s.Body, wrapped.game.Height);
    if (g.head) {
      heads[s.ID] = [g.head.dx, g.head.dy];
    }
  }
  const drawn = [...svg.matchAll(/class="snake[^"]*" data-snake-id="([^"]+)"/g)].map((m) => m[1]);
  return {
    turn: frame.Turn,
    maxStep,
    hazards,
    food: (svg.match(/class="food"/g) ?? []).length,
    heads,
    drawn,
    scoreboardRows: (SB.renderScoreboard(frame).match(/data-testid="snake-row"/g) ?? []).length,
  };
});

test("wrapped boards draw no segment across the board", () => {
  same(render.map((r) => r.turn), expected.wrapped.map((state) => state.turn));
  for (const drawn of render) {
    // Between cell centres (or a centre and an edge), never across the board.
    assert.ok(drawn.maxStep <= CELL + 1e-6, `turn ${drawn.turn}: ${drawn.maxStep}`);
  }
});

test("heads face away from the neck, even across an edge", () => {
  assert.equal(render.length, expected.wrapped.length);
  expected.wrapped.forEach((state, i) => {
    for (const [id, direction] of Object.entries(state.heads)) {
      same(render[i].heads[id], direction, `turn ${state.turn}, ${id}`);
    }
  });
});

test("hazards stack, and food and snakes are drawn", () => {
  assert.equal(render.length, expected.wrapped.length);
  expected.wrapped.forEach((state, i) => {
    const drawn = render[i];
    same(drawn.hazards, state.hazards, `turn ${state.turn}`);
    assert.equal(drawn.food, state.food);
    // The living are drawn, and the snakes eliminated on this very turn (faded).
    same([...new Set(drawn.drawn)].sort(), state.shown);
    assert.equal(drawn.scoreboardRows, state.snakes);
  });
});

test("sprites have many shapes and unknown names fall back", () => {
  assert.ok(S.HEAD_NAMES.length >= 6 && S.TAIL_NAMES.length >= 6);
  assert.equal(S.HEAD_NAMES[0], "default");
  assert.equal(S.TAIL_NAMES[0], "default");
  for (const name of ["beluga", "bendr", "dead", "fang", "pixel", "smile", "tongue"]) {
    assert.ok(S.HEAD_NAMES.includes(name), name);
  }
  for (const name of ["block-bum", "bolt", "curled", "fat-rattle", "freckled", "round-bum"]) {
    assert.ok(S.TAIL_NAMES.includes(name), name);
  }
  const sample = snakewar.frames[5];
  const renamed = (head, tail) => ({
    ...sample,
    Snakes: sample.Snakes.map((s) => ({ ...s, HeadType: head, TailType: tail })),
  });
  assert.equal(
    R.renderBoard(snakewar.game, renamed("no-such-head", 42)),
    R.renderBoard(snakewar.game, renamed("default", "default")),
  );
  assert.equal(new Set(S.HEAD_NAMES.map((n) => S.headPaths(n).join())).size, S.HEAD_NAMES.length);
  assert.equal(new Set(S.TAIL_NAMES.map((n) => S.tailPaths(n).join())).size, S.TAIL_NAMES.length);
});

test("text from snakes is escaped", () => {
  const html = SB.renderScoreboard({
    Turn: 0,
    Food: [],
    Hazards: [],
    Snakes: [F.normalizeSnake({ ID: "x", Name: "<b>&", Shout: "\"hi'", Color: "red;x" })],
  });
  assert.ok(!html.includes("<b>") && html.includes("&lt;b&gt;&amp;"), html);
  assert.ok(html.includes("&quot;hi&#39;"), html);
  assert.ok(!html.includes("red;x"), html); // not a hex colour: the default grey is used
  assert.ok(html.includes("#888888"), html);
  // No inline style in the markup (the server's CSP allows none): the bar is painted
  // from its data attributes.
  assert.ok(!html.includes("style=") && html.includes('data-health="0" data-color="#888888"'));
});

test("frames are deduplicated and sorted by turn", () => {
  const buffer = [];
  for (const t of [0, 1, 2, 1, 0, 5, 3, 4, 5]) {
    F.insertFrame(buffer, { Turn: t, Snakes: [], Food: [], Hazards: [] });
  }
  same(buffer.map((f) => f.Turn), [0, 1, 2, 3, 4, 5]);
});

/** A fake clock: `fire` runs the earliest pending timer and returns its delay. */
function fakeClock() {
  const timers = [];
  return {
    timers,
    schedule: (fn, ms) => timers.push({ fn, ms }) - 1,
    cancel: (h) => {
      timers[h] = null;
    },
    fire() {
      const i = timers.findIndex((t) => t !== null);
      const t = timers[i];
      timers[i] = null;
      t.fn();
      return t.ms;
    },
    pending: () => timers.filter((t) => t !== null).length,
  };
}

/**
 * Fake websockets the test opens, feeds and closes (every one made is in `sockets`),
 * and the EventStream options that make them on `clock`.
 */
function fakeSockets(clock) {
  const sockets = [];
  class FakeSocket {
    constructor(url) {
      this.url = url;
      this.handlers = {};
      sockets.push(this);
    }
    addEventListener(type, fn) {
      (this.handlers[type] ??= []).push(fn);
    }
    emit(type, event = {}) {
      for (const fn of this.handlers[type] ?? []) fn(event);
    }
    close() {
      this.emit("close", { code: 1000 });
    }
  }
  const options = { WebSocket: FakeSocket, schedule: clock.schedule, cancel: clock.cancel };
  return { sockets, options };
}

/** A server's message of `type` on a fake socket. */
function send(socket, type, data) {
  socket.emit("message", { data: JSON.stringify({ Type: type, Data: data }) });
}

test("playback", () => {
  const clock = fakeClock();
  const frames10 = Array.from({ length: 10 }, (_, i) => ({
    Turn: i,
    Food: [],
    Hazards: [],
    Snakes: [
      { ID: "a", Death: i >= 3 ? { Cause: "wall-collision", Turn: 3, EliminatedBy: "" } : null },
      { ID: "b", Death: i >= 7 ? { Cause: "out-of-health", Turn: 7, EliminatedBy: "" } : null },
    ],
  }));
  const player = new P.Player({ ...clock, eliminations: F.eliminationTurns });
  player.setFrames([...frames10]);
  player.play();
  close(clock.fire(), 1000 / 6);
  clock.fire();
  clock.fire();
  assert.equal(player.index, 3);
  // A new speed replaces the pending tick instead of adding one.
  player.setFps(30);
  assert.equal(clock.pending(), 1);
  close(clock.fire(), 1000 / 30);
  assert.equal(player.index, 4);
  player.pause();
  assert.equal(clock.pending(), 0);
  player.first();
  const nextElim = [];
  for (let i = 0; i < 3; i += 1) {
    nextElim.push(player.nextElimination(), player.frame.Turn);
  }
  same(nextElim, [true, 3, true, 7, false, 7]);
  same([player.prevElimination(), player.frame.Turn], [true, 3]);
  player.last();
  player.play();
  assert.equal(player.index, 0); // playing at the end starts again
  player.pause();
  // Live: wait at the end, follow new frames, keep the turn when a late frame lands.
  const live = new P.Player(clock);
  live.live = true;
  live.setFrames([frames10[2], frames10[4]], 1);
  live.framesInserted(F.insertFrame(live.frames, frames10[5]));
  assert.equal(live.frame.Turn, 5); // follows the new frame
  live.framesInserted(F.insertFrame(live.frames, frames10[3]));
  assert.equal(live.frame.Turn, 5); // a late frame keeps the turn
  live.prev();
  live.framesInserted(F.insertFrame(live.frames, frames10[6]));
  assert.equal(live.frame.Turn, 4); // scrolled back, it stays
  live.last();
  live.play();
  clock.fire();
  same([live.playing, live.frame.Turn, clock.pending()], [true, 6, 1]); // waits at the end
  live.framesInserted(F.insertFrame(live.frames, frames10[7]));
  clock.fire();
  assert.equal(live.frame.Turn, 7); // and plays on
  live.pause();
  same([P.clampFps("x"), P.clampFps(0), P.clampFps(1000), P.clampFps("12")], [6, 6, 60, 12]);
});

test("going to the start before the frames come keeps the user there", () => {
  // A finished game's frames arrive page by page after the page opened; a user who
  // pressed "r" meanwhile stays at turn 0 instead of being carried to the last frame.
  const frames = Array.from({ length: 4 }, (_, i) => ({ Turn: i, Food: [], Hazards: [], Snakes: [] }));
  const player = new P.Player({ ...fakeClock() });
  player.live = true;
  player.first();
  frames.slice(0, 3).forEach((f) => player.framesInserted(F.insertFrame(player.frames, f)));
  same([player.index, player.follow, player.playing], [0, false, false]);
  // Going to the last frame follows the game again.
  player.last();
  player.framesInserted(F.insertFrame(player.frames, frames[3]));
  assert.equal(player.frame.Turn, 3);
});

test("a viewer is told of each key before it moves the playback", () => {
  const win = new EventTarget();
  const calls = [];
  const player = { first: () => calls.push("first"), next: () => calls.push("next") };
  C.bindKeyboard(player, win, (action) => calls.push(`told ${action}`));
  const press = (key) => {
    const event = new Event("keydown", { cancelable: true });
    event.key = key;
    win.dispatchEvent(event);
    return event.defaultPrevented;
  };
  same([press("r"), press("x"), press("ArrowRight")], [true, false, true]);
  same(calls, ["told first", "first", "told next", "next"]);
});

test("keyboard shortcuts match the official board", () => {
  const keys = [" ", "s", "K", "ArrowRight", "d", "l", "ArrowLeft", "a", "j", "e", "q", "r", "t"];
  same(Object.fromEntries([...keys, "x"].map((key) => [key, C.keyAction({ key })])), {
    " ": "toggle",
    s: "toggle",
    K: "toggle",
    ArrowRight: "next",
    d: "next",
    l: "next",
    ArrowLeft: "prev",
    a: "prev",
    j: "prev",
    e: "nextElimination",
    q: "prevElimination",
    r: "first",
    t: "last",
    x: null,
  });
  same(C.keyAction({ key: "r", ctrlKey: true }), null);
  // Keys forwarded by the embedding page (pages/board_keys.js) do the same.
  same(
    [
      C.messageAction({ event: "KEY", key: "t" }),
      C.messageAction({ event: "KEY", key: "ArrowLeft" }),
      C.messageAction({ event: "KEY", key: "x" }),
      C.messageAction({ event: "TURN", key: "t" }),
      C.messageAction({ event: "KEY", key: 7 }),
      C.messageAction("KEY"),
      C.messageAction(null),
    ],
    ["last", "prev", null, null, null, null, null],
  );
});

test("engine URLs and backoff", () => {
  same(
    [
      L.eventsUrl("http://h:9/x/", "a b"),
      L.eventsUrl("https://e.example/", "g"),
      L.gameUrl("http://h:9/x/", "g"),
      L.framesUrl("http://h:9", "g", 100),
    ],
    [
      "ws://h:9/x/games/a%20b/events",
      "wss://e.example/games/g/events",
      "http://h:9/x/games/g",
      "http://h:9/games/g/frames?offset=100&limit=100",
    ],
  );
  same(
    [0, 1, 5, 30].map((n) => [L.backoffDelay(n, () => 0), L.backoffDelay(n, () => 1)]),
    [
      [400, 600],
      [800, 1200],
      [12000, 18000],
      [12000, 18000],
    ],
  );
});

test("the event stream reconnects, deduplicates and stops at game_end", () => {
  // A fake websocket: the test opens, feeds and closes it.
  const clock = fakeClock();
  const { sockets, options } = fakeSockets(clock);
  const seen = [];
  const statuses = [];
  let ended = null;
  const handlers = {
    onFrame: (f) => F.insertFrame(seen, f),
    onEnd: (d) => {
      ended = d;
    },
    onStatus: (s) => statuses.push(s),
  };
  const stream = new L.EventStream("ws://h/games/g/events", handlers, options);
  stream.start();
  sockets[0].emit("open");
  send(sockets[0], "frame", { Turn: 0 });
  send(sockets[0], "frame", { Turn: 1 });
  sockets[0].emit("message", { data: "not json" });
  sockets[0].emit("close", { code: 1006 });
  const reconnectDelay = clock.timers.filter((t) => t !== null).at(-1).ms;
  clock.fire();
  sockets[1].emit("open");
  for (const t of [0, 1, 2]) send(sockets[1], "frame", { Turn: t });
  send(sockets[1], "game_end", { ID: "g" });
  assert.equal(sockets.length, 2);
  same(seen.map((f) => f.Turn), [0, 1, 2]);
  same(ended, { ID: "g" });
  assert.ok(reconnectDelay >= 400 && reconnectDelay <= 600, String(reconnectDelay));
  assert.equal(clock.pending(), 0);
  assert.equal(statuses.at(-1), "game over");

  let missing = false;
  const lost = new L.EventStream(
    "ws://h/games/nope/events",
    {
      onMissing: () => {
        missing = true;
      },
    },
    options,
  );
  lost.start();
  sockets.at(-1).emit("close", { code: L.GAME_NOT_FOUND });
  same({ missing, pending: clock.pending() }, { missing: true, pending: 0 });
  // Refused by a follower cap: the reason is shown and it tries again later.
  const capStatuses = [];
  const capped = new L.EventStream(
    "ws://h/games/g/events",
    { onStatus: (s) => capStatuses.push(s) },
    options,
  );
  capped.start();
  sockets.at(-1).emit("close", { code: L.FOLLOWER_LIMIT, reason: "too many followers of this game" });
  same(
    { statuses: capStatuses, pending: clock.pending() },
    { statuses: ["connecting", "too many followers of this game; retrying in 1 s"], pending: 1 },
  );
  capped.stop();
});

test("the event stream resumes from the next frame it needs, on reconnecting only", () => {
  const clock = fakeClock();
  const { sockets, options } = fakeSockets(clock);
  const seen = [];
  let ended = null;
  const stream = new L.EventStream(
    "ws://h/games/g%20h/events",
    {
      onFrame: (f) => seen.push(f.Turn),
      onEnd: (d) => {
        ended = d;
      },
    },
    options,
  );
  stream.start();
  sockets[0].emit("open");
  for (const t of [0, 1, 2]) send(sockets[0], "frame", { Turn: t });
  sockets[0].emit("close", { code: 1006 }); // the connection dropped
  clock.fire();
  sockets[1].emit("open");
  send(sockets[1], "frame", { Turn: 3 });
  sockets[1].emit("close", { code: 1012 }); // its server stopped: try another
  clock.fire();
  send(sockets[2], "frame", { Turn: 4 });
  send(sockets[2], "game_end", { ID: "g h" });
  same(
    sockets.map((s) => s.url),
    [
      "ws://h/games/g%20h/events",
      "ws://h/games/g%20h/events?from=3",
      "ws://h/games/g%20h/events?from=4",
    ],
  );
  same(seen, [0, 1, 2, 3, 4]);
  same(ended, { ID: "g h" });
  // A normal end is not a reason to reconnect.
  assert.equal(clock.pending(), 0);
  assert.equal(sockets.length, 3);
  same(
    [L.resumeUrl("wss://e/x/events", 0), L.resumeUrl("wss://e/x/events", 7)],
    ["wss://e/x/events", "wss://e/x/events?from=7"],
  );
});

test("a game played again from turn 0 drops the frames held and reconnects from 0", () => {
  const clock = fakeClock();
  const { sockets, options } = fakeSockets(clock);
  let seen = [];
  const restarts = [];
  const stream = new L.EventStream(
    "ws://h/games/g/events",
    {
      onFrame: (f) => seen.push(f.Turn),
      onRestart: (d) => {
        restarts.push(d);
        seen = [];
      },
    },
    options,
  );
  stream.start();
  for (const t of [0, 1, 2, 3]) send(sockets[0], "frame", { Turn: t });
  send(sockets[0], "restart", { Reason: "its worker stopped" });
  sockets[0].emit("close", { code: 1012 });
  clock.fire();
  for (const t of [0, 1]) send(sockets[1], "frame", { Turn: t });
  same(
    { urls: sockets.map((s) => s.url), seen, restarts },
    {
      urls: ["ws://h/games/g/events", "ws://h/games/g/events"],
      seen: [0, 1],
      restarts: [{ Reason: "its worker stopped" }],
    },
  );
  stream.stop();
});

test("a replay's 64-bit seed is read exactly", async () => {
  // JSON.parse alone gives 2618439174457646000.
  const { game } = await read(files.bigSeed);
  assert.equal(game.SeedString, expected.bigSeed.seed);
  same(game, { ...expected.bigSeed.game, Seed: game.Seed });
});
