// Game data for the viewer: the engine API's shapes, and conversion of replay
// files into them.
//
// Everything the viewer draws is a `Game` and a list of `Frame`s in the shapes
// of the official board's engine API (PascalCase keys, points as {X, Y}), so a
// live game, a stored game and a replay file all take the same path from here
// on.  This module is pure: no DOM, no network, so it runs under Node for the
// tests exactly as it runs in the browser.

/** Raised for a file the viewer cannot read; the message names line and field. */
export class ReplayFormatError extends Error {
  constructor(message) {
    super(message);
    this.name = "ReplayFormatError";
  }
}

/** The Snakewar replay format name and the newest version this viewer reads. */
export const SNAKEWAR_FORMAT = "snakewar-replay";
export const SNAKEWAR_VERSION = 1;

const DEFAULT_COLOR = "#888888";

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asString(value, fallback = "") {
  return typeof value === "string" ? value : fallback;
}

function asInt(value, fallback = 0) {
  return Number.isInteger(value) ? value : fallback;
}

/** `value` as an integer the way Go's `strconv.Atoi` reads settings; `fallback` otherwise. */
function atoi(value, fallback = 0) {
  if (Number.isInteger(value)) {
    return value;
  }
  return typeof value === "string" && /^[+-]?\d+$/.test(value) ? Number.parseInt(value, 10) : fallback;
}

/**
 * The exact decimal text of the integer `value` that JSON `text` holds under `key`.
 * JSON.parse reads numbers as doubles, so a 64-bit seed above 2**53 comes out
 * rounded: the digits are taken from the text instead, from the `key` entry whose
 * value parses to `value`.  Null when `value` is not an integer.
 */
export function exactIntegerText(text, key, value) {
  if (!Number.isInteger(value)) {
    return null;
  }
  if (!Number.isSafeInteger(value) && typeof text === "string") {
    const quoted = JSON.stringify(String(key)).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const entry = new RegExp(`${quoted}\\s*:\\s*(-?\\d+)(?![\\d.eE])`, "g");
    for (const [, digits] of text.matchAll(entry)) {
      if (Number(digits) === value) {
        return digits;
      }
    }
  }
  return BigInt(value).toString();
}

/**
 * A game's seed as a decimal string (exact): the engine API's `SeedString` when
 * there is one, else its `Seed` number (exact only up to 2**53).  Null when neither.
 */
export function seedString(game) {
  const text = game?.SeedString;
  if (typeof text === "string" && /^-?\d{1,20}$/.test(text)) {
    return text;
  }
  return Number.isInteger(game?.Seed) ? BigInt(game.Seed).toString() : null;
}

/**
 * A point from any of the shapes in use: the engine's {X, Y}, the snake API's
 * {x, y} or Snakewar's [x, y].  Returns null for anything else.
 */
export function toPoint(value) {
  if (Array.isArray(value) && value.length === 2) {
    const [x, y] = value;
    return Number.isInteger(x) && Number.isInteger(y) ? { X: x, Y: y } : null;
  }
  if (isObject(value)) {
    const x = value.X ?? value.x;
    const y = value.Y ?? value.y;
    return Number.isInteger(x) && Number.isInteger(y) ? { X: x, Y: y } : null;
  }
  return null;
}

function points(list) {
  return Array.isArray(list) ? list.map(toPoint).filter((p) => p !== null) : [];
}

/**
 * A snake in the engine's frame shape with every field present, so the
 * renderer and the scoreboard never meet `undefined`.
 */
export function normalizeSnake(raw) {
  const s = isObject(raw) ? raw : {};
  const death = isObject(s.Death)
    ? {
        Cause: asString(s.Death.Cause),
        Turn: asInt(s.Death.Turn),
        EliminatedBy: asString(s.Death.EliminatedBy),
      }
    : null;
  const id = asString(s.ID);
  return {
    ID: id,
    Name: asString(s.Name, id),
    Body: points(s.Body),
    Health: asInt(s.Health),
    Death: death,
    Color: asString(s.Color, DEFAULT_COLOR),
    HeadType: asString(s.HeadType, "default"),
    TailType: asString(s.TailType, "default"),
    // The engine sends latency as a string of milliseconds; older engines sent numbers.
    Latency: typeof s.Latency === "number" ? String(s.Latency) : asString(s.Latency),
    Shout: asString(s.Shout),
    Squad: asString(s.Squad),
    Author: asString(s.Author),
    StatusCode: asInt(s.StatusCode, 200),
    Error: asString(s.Error),
    IsBot: s.IsBot === true,
    IsEnvironment: s.IsEnvironment === true,
    // Snakewar's own: the call's status, the bank left and the retry (unofficial timing).
    CallStatus: asString(s.CallStatus),
    TimeBank: Number.isInteger(s.TimeBank) ? s.TimeBank : null,
    Retried: s.Retried === true,
  };
}

/** A frame in the engine's shape with every field present. */
export function normalizeFrame(raw) {
  const f = isObject(raw) ? raw : {};
  return {
    Turn: asInt(f.Turn),
    Snakes: Array.isArray(f.Snakes) ? f.Snakes.map(normalizeSnake) : [],
    Food: points(f.Food),
    Hazards: points(f.Hazards),
  };
}

/** The `Game` object of `GET /games/{id}` with every field the viewer reads present. */
export function normalizeGame(raw) {
  const g = isObject(raw) ? raw : {};
  const ruleset = isObject(g.Ruleset) ? { ...g.Ruleset } : {};
  return {
    ...g,
    ID: asString(g.ID),
    Status: asString(g.Status),
    Width: asInt(g.Width, 11),
    Height: asInt(g.Height, 11),
    Ruleset: ruleset,
    SnakeTimeout: asInt(g.SnakeTimeout, 500),
    Source: asString(g.Source),
    RulesetName: asString(g.RulesetName, asString(ruleset.name, "standard")),
    RulesStages: Array.isArray(g.RulesStages) ? g.RulesStages : [],
    Map: asString(g.Map),
    Seed: Number.isInteger(g.Seed) ? g.Seed : null,
    SeedString: seedString(g),
  };
}

/** Whether `game` is played on a wrapped (torus) board, where snakes cross edges. */
export function isWrapped(game) {
  const name = asString(game?.RulesetName) || asString(game?.Ruleset?.name);
  return name.startsWith("wrapped");
}

/**
 * Put `frame` into `frames` (sorted by Turn), replacing a frame of the same
 * turn: a live game's server replays every frame to a client that reconnects,
 * so the same turn can arrive more than once, and late frames can arrive out
 * of order.  Returns the frame's index and whether the list grew.
 */
export function insertFrame(frames, frame) {
  const n = frames.length;
  if (n === 0 || frames[n - 1].Turn < frame.Turn) {
    frames.push(frame);
    return { index: n, added: true };
  }
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (frames[mid].Turn < frame.Turn) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (frames[lo].Turn === frame.Turn) {
    frames[lo] = frame;
    return { index: lo, added: false };
  }
  frames.splice(lo, 0, frame);
  return { index: lo, added: true };
}

// -- reading files --------------------------------------------------------------------

/**
 * Decode a replay file's bytes to text, gunzipping it when it starts with the
 * gzip magic bytes (Snakewar writes `.gz` replays; the name alone is not trusted).
 */
export async function decodeReplayBytes(bytes) {
  const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b) {
    if (typeof DecompressionStream !== "function") {
      throw new ReplayFormatError("this browser cannot decompress gzip files; gunzip the file first");
    }
    const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }
  return new TextDecoder("utf-8").decode(data);
}

/**
 * Parse JSON Lines.  A last line that does not parse and is not followed by a
 * newline is a file still being written (or cut short): it is dropped and
 * reported in `cutLine`, as Snakewar's own reader does.
 */
export function parseJsonLines(text) {
  const raw = text.split("\n");
  const lines = [];
  let cutLine = null;
  raw.forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === "") {
      return;
    }
    try {
      lines.push({ number: i + 1, value: JSON.parse(trimmed), text: trimmed });
    } catch (error) {
      if (i === raw.length - 1) {
        cutLine = i + 1;
        return;
      }
      throw new ReplayFormatError(`line ${i + 1}: not JSON (${error.message})`);
    }
  });
  return { lines, cutLine };
}

function lineError(line, text) {
  return new ReplayFormatError(`line ${line.number}: ${text}`);
}

function field(line, key, check, expected) {
  const value = line.value[key];
  if (!check(value)) {
    throw lineError(line, `field '${key}': expected ${expected}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function rulesetFromSettings(name, settings) {
  // Snakewar stores the rules' own setting names; the engine API uses the wire names.
  return {
    name,
    foodSpawnChance: String(atoi(settings.foodSpawnChance)),
    minimumFood: String(atoi(settings.minimumFood)),
    hazardDamagePerTurn: String(atoi(settings.damagePerTurn)),
    shrinkEveryNTurns: String(atoi(settings.shrinkEveryNTurns)),
  };
}

function snakewarGame(header, status, headerText) {
  const config = isObject(header.config) ? header.config : {};
  const settings = isObject(config.settings) ? config.settings : {};
  const ruleset = asString(config.ruleset, "standard");
  return {
    ID: asString(header.id),
    Status: status,
    Width: asInt(config.width, 11),
    Height: asInt(config.height, 11),
    Ruleset: rulesetFromSettings(ruleset, settings),
    SnakeTimeout: asInt(header.timeout, 500),
    Source: asString(header.source),
    RulesetName: ruleset,
    RulesStages: [],
    Map: asString(config.map, "standard"),
    Seed: Number.isInteger(config.seed) ? config.seed : null,
    SeedString: exactIntegerText(headerText, "seed", config.seed),
  };
}

/**
 * One frame from a Snakewar STATE (`BoardState.to_dict()`), the header's snake
 * entries and the calls that led to it (`null` for turn 0).  This mirrors the
 * server's `snakewar.games.battlesnake.frames.frame`, so a replay file shows exactly what
 * the live game showed.
 */
function snakewarFrame(state, line, entries, calls) {
  if (!isObject(state) || !Number.isInteger(state.turn) || !Array.isArray(state.snakes)) {
    throw lineError(line, "expected a board state with 'turn' and 'snakes'");
  }
  const snakes = state.snakes.map((s) => {
    const id = asString(s.id);
    const entry = entries.get(id) ?? { id, name: id, source: "" };
    let latency = "0";
    let shout = "";
    let statusCode = 200;
    let error = "";
    const call = calls?.get(id);
    if (call) {
      // The official board shows 0 ms as an error, so a real 0 is sent as 1.
      latency = String(Math.max(call.latency, 1));
      shout = call.shout;
      const ok = call.status === "ok";
      statusCode = call.http ?? (ok ? 200 : 0);
      if (!ok) {
        error = call.error ? `${call.status}: ${call.error}` : call.status;
      }
    }
    const cause = asString(s.eliminated_cause);
    return {
      ID: id,
      Name: asString(entry.name, id),
      Body: points(s.body),
      Health: asInt(s.health),
      Death: cause
        ? { Cause: cause, Turn: asInt(s.eliminated_on_turn), EliminatedBy: asString(s.eliminated_by) }
        : null,
      Color: asString(entry.color, DEFAULT_COLOR),
      HeadType: asString(entry.head, "default"),
      TailType: asString(entry.tail, "default"),
      Latency: latency,
      Shout: shout,
      Squad: "",
      Author: asString(entry.author),
      StatusCode: statusCode,
      Error: error,
      IsBot: asString(entry.source).startsWith("builtin:"),
      IsEnvironment: false,
      CallStatus: call ? call.status : "",
      TimeBank: call ? call.bank : null,
      Retried: call ? call.retried : false,
    };
  });
  return {
    Turn: state.turn,
    Snakes: snakes,
    Food: points(state.food),
    Hazards: points(state.hazards),
  };
}

function turnCalls(line) {
  const obj = line.value;
  const moves = isObject(obj.moves) ? obj.moves : {};
  const table = (key) => (isObject(obj[key]) ? obj[key] : {});
  const status = table("status");
  const latency = table("latency");
  const http = table("http");
  const errors = table("error");
  const shouts = table("shout");
  const banks = table("bank");
  const retried = table("retried");
  const calls = new Map();
  for (const id of Object.keys(moves)) {
    calls.set(id, {
      status: asString(status[id], "ok"),
      latency: asInt(latency[id]),
      http: Number.isInteger(http[id]) ? http[id] : null,
      error: asString(errors[id]),
      shout: asString(shouts[id]),
      bank: Number.isInteger(banks[id]) ? banks[id] : null,
      retried: isObject(retried[id]),
    });
  }
  return calls;
}

/**
 * Convert a Snakewar replay (its parsed JSON lines) to `{game, frames, result, notes}`.
 * `result` is `{winnerId, winnerName, isDraw, turns, reason}` or null when the
 * file has no result line (an unfinished game).
 */
export function snakewarReplayToGame(lines) {
  const [head, ...rest] = lines;
  const header = head.value;
  const version = header.version;
  if (!Number.isInteger(version) || version < 1 || version > SNAKEWAR_VERSION) {
    throw lineError(
      head,
      `replay version ${JSON.stringify(version)} is not one this viewer reads (1..${SNAKEWAR_VERSION})`,
    );
  }
  const snakeList = field(head, "snakes", Array.isArray, "a list of snakes");
  const entries = new Map(snakeList.filter(isObject).map((e) => [asString(e.id), e]));
  const frames = [snakewarFrame(field(head, "initial", isObject, "a board state"), head, entries, null)];
  let result = null;
  let complete = false;
  for (const line of rest) {
    if (!isObject(line.value)) {
      throw lineError(line, "expected a turn line or the result line (a JSON object)");
    }
    if ("turn" in line.value) {
      const state = field(line, "state", isObject, "a board state");
      frames.push(snakewarFrame(state, line, entries, turnCalls(line)));
    } else if ("result" in line.value) {
      complete = true;
      const r = line.value.result;
      if (isObject(r)) {
        const winnerId = asString(r.winner);
        result = {
          winnerId,
          winnerName: winnerId ? asString(entries.get(winnerId)?.name, winnerId) : "",
          isDraw: r.isDraw === true,
          turns: asInt(r.turns, frames.at(-1).Turn),
          reason: asString(r.reason, "game_over"),
        };
      }
    } else {
      throw lineError(line, "expected a turn line (with 'turn') or the result line (with 'result')");
    }
  }
  const notes = complete ? [] : ["no result line: an unfinished or cut game"];
  const game = snakewarGame(header, complete ? "complete" : "incomplete", head.text);
  return { game, frames, result, notes };
}

function officialSnake(raw) {
  const custom = isObject(raw.customizations) ? raw.customizations : {};
  const latency = raw.latency;
  return {
    ID: asString(raw.id),
    Name: asString(raw.name, asString(raw.id)),
    Body: points(raw.body),
    Health: asInt(raw.health),
    Death: null,
    Color: asString(custom.color, DEFAULT_COLOR),
    HeadType: asString(custom.head, "default"),
    TailType: asString(custom.tail, "default"),
    Latency: typeof latency === "number" ? String(latency) : asString(latency, "0"),
    Shout: asString(raw.shout),
    Squad: asString(raw.squad),
    // The snake API carries no author, status code or error.
    Author: "",
    StatusCode: 200,
    Error: "",
    IsBot: false,
    IsEnvironment: false,
  };
}

/**
 * Convert the official CLI's JSONL (`battlesnake play --output`) to
 * `{game, frames, result, notes}`.
 *
 * That format lists only the snakes still alive on each turn and records no
 * cause of elimination, so a snake that disappears is kept, from the turn it
 * disappeared on, with its last known body and `Death.Cause` "" (shown as
 * "Eliminated on turn N"): the scoreboard can still list it.
 */
export function officialJsonlToGame(lines) {
  const [head, ...rest] = lines;
  const info = head.value;
  const rulesetObj = isObject(info.ruleset) ? info.ruleset : {};
  const settings = isObject(rulesetObj.settings) ? rulesetObj.settings : {};
  const royale = isObject(settings.royale) ? settings.royale : {};
  const rulesetName = asString(rulesetObj.name, "standard");
  const frames = [];
  const lastSeen = new Map();
  let width = null;
  let height = null;
  let result = null;
  for (const line of rest) {
    const obj = line.value;
    if (!isObject(obj)) {
      throw lineError(line, "expected an API request or the winner line (a JSON object)");
    }
    if ("winnerId" in obj || "isDraw" in obj) {
      result = {
        winnerId: asString(obj.winnerId),
        winnerName: asString(obj.winnerName),
        isDraw: obj.isDraw === true,
        turns: frames.at(-1)?.Turn ?? 0,
        reason: "game_over",
      };
      continue;
    }
    const board = field(line, "board", isObject, "an API board object");
    const turn = field(line, "turn", Number.isInteger, "an integer");
    width ??= asInt(board.width, 11);
    height ??= asInt(board.height, 11);
    const alive = (Array.isArray(board.snakes) ? board.snakes : []).filter(isObject).map(officialSnake);
    const aliveIds = new Set(alive.map((s) => s.ID));
    const snakes = [...alive];
    for (const [id, last] of lastSeen) {
      if (!aliveIds.has(id)) {
        const death = last.Death ?? { Cause: "", Turn: turn, EliminatedBy: "" };
        snakes.push({ ...last, Death: death });
      }
    }
    for (const snake of snakes) {
      lastSeen.set(snake.ID, snake);
    }
    // Keep the first-seen order of snakes across frames, as the engine does.
    const order = [...lastSeen.keys()];
    snakes.sort((a, b) => order.indexOf(a.ID) - order.indexOf(b.ID));
    frames.push({
      Turn: turn,
      Snakes: snakes,
      Food: points(board.food),
      Hazards: points(board.hazards),
    });
  }
  const game = {
    ID: asString(info.id),
    Status: result ? "complete" : "incomplete",
    Width: width ?? 11,
    Height: height ?? 11,
    Ruleset: {
      name: rulesetName,
      foodSpawnChance: String(atoi(settings.foodSpawnChance)),
      minimumFood: String(atoi(settings.minimumFood)),
      hazardDamagePerTurn: String(atoi(settings.hazardDamagePerTurn)),
      shrinkEveryNTurns: String(atoi(royale.shrinkEveryNTurns)),
    },
    SnakeTimeout: asInt(info.timeout, 500),
    Source: asString(info.source),
    RulesetName: rulesetName,
    RulesStages: [],
    Map: asString(info.map, "standard"),
    Seed: null,
    SeedString: null,
  };
  const notes = result ? [] : ["no winner line: an unfinished or cut game"];
  return { game, frames, result, notes };
}

/** A saved engine export: `{"game": Game, "frames": [Frame...]}` (either key case). */
function engineExportToGame(obj) {
  const frames = [];
  for (const raw of obj.frames ?? obj.Frames) {
    insertFrame(frames, normalizeFrame(raw));
  }
  return { game: normalizeGame(obj.game ?? obj.Game), frames, result: null, notes: [] };
}

/**
 * Read a replay file's text, whichever of the formats it is: a Snakewar replay,
 * the official CLI's JSONL, or a saved engine export (`{game, frames}`).
 * Returns `{format, game, frames, result, notes}`.
 */
export function parseReplayText(text) {
  const { lines, cutLine } = parseJsonLines(text);
  if (lines.length === 0) {
    throw new ReplayFormatError(
      cutLine ? `line ${cutLine}: the only line is cut short` : "the file is empty",
    );
  }
  const first = lines[0].value;
  let format;
  let parsed;
  if (isObject(first) && first.format === SNAKEWAR_FORMAT) {
    format = "snakewar";
    parsed = snakewarReplayToGame(lines);
  } else if (isObject(first) && "ruleset" in first && "id" in first && !("turn" in first)) {
    format = "official";
    parsed = officialJsonlToGame(lines);
  } else if (
    lines.length === 1 &&
    isObject(first) &&
    Array.isArray(first.frames ?? first.Frames) &&
    isObject(first.game ?? first.Game)
  ) {
    format = "engine";
    parsed = engineExportToGame(first);
  } else {
    throw new ReplayFormatError(
      "line 1: not a Snakewar replay (a 'snakewar-replay' header), an official CLI JSONL " +
        "file (an API 'game' object) or an engine export ({game, frames})",
    );
  }
  if (parsed.frames.length === 0) {
    throw new ReplayFormatError("the file holds no frames");
  }
  const notes = [...parsed.notes];
  if (cutLine) {
    notes.unshift(`line ${cutLine} is cut short (ignored)`);
  }
  return { format, ...parsed, notes };
}

// -- reading a game ----------------------------------------------------------------------

/** The turns on which at least one snake was eliminated, ascending. */
export function eliminationTurns(frames) {
  const turns = new Set();
  for (const frame of frames) {
    for (const snake of frame.Snakes) {
      if (snake.Death) {
        turns.add(snake.Death.Turn);
      }
    }
  }
  return [...turns].sort((a, b) => a - b);
}

/** The sentence that says how `snake` was eliminated ("" while it is alive). */
export function eliminationText(snake, snakes) {
  const death = snake.Death;
  if (!death) {
    return "";
  }
  const turn = death.Turn;
  const other = snakes.find((s) => s.ID === death.EliminatedBy);
  const by = other ? other.Name : death.EliminatedBy || "another snake";
  switch (death.Cause) {
    case "snake-collision":
      return death.EliminatedBy === snake.ID
        ? `Collided with itself on turn ${turn}`
        : `Collided with ${by}'s body on turn ${turn}`;
    case "snake-self-collision":
      return `Collided with itself on turn ${turn}`;
    case "head-collision":
      return `Lost head-to-head with ${by} on turn ${turn}`;
    case "wall-collision":
      return `Moved out of bounds on turn ${turn}`;
    case "out-of-health":
      return `Starved on turn ${turn}`;
    case "hazard":
      return `Eliminated by hazard on turn ${turn}`;
    default:
      return `Eliminated on turn ${turn}`;
  }
}

/**
 * The scoreboard's order: snakes still alive in board order, then eliminated
 * ones, the most recently eliminated first.
 */
export function scoreboardOrder(snakes) {
  const alive = snakes.filter((s) => !s.Death);
  const dead = snakes
    .map((s, i) => [s, i])
    .filter(([s]) => s.Death)
    .sort(([a, i], [b, j]) => b.Death.Turn - a.Death.Turn || i - j)
    .map(([s]) => s);
  return [...alive, ...dead];
}

/**
 * The outcome of a finished game: `{winnerId, winnerName, isDraw}`.  A file's
 * own result is trusted; otherwise the last frame says (one snake left wins,
 * none left is a draw).
 */
export function gameOutcome(frames, result) {
  if (result) {
    return { winnerId: result.winnerId, winnerName: result.winnerName, isDraw: result.isDraw };
  }
  const last = frames.at(-1);
  const alive = last ? last.Snakes.filter((s) => !s.Death) : [];
  if (alive.length === 1) {
    return { winnerId: alive[0].ID, winnerName: alive[0].Name, isDraw: false };
  }
  return { winnerId: "", winnerName: "", isDraw: alive.length === 0 && last !== undefined };
}
