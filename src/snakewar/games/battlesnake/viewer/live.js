// Talking to an engine that serves the official board's API:
//   GET  {engine}/games/{id}                       -> {"Game": {...}, "LastFrame": Frame|null}
//   GET  {engine}/games/{id}/frames?offset=&limit= -> {"Count": n, "Frames": [Frame...]}
//   WS   {engine}/games/{id}/events[?from=N]       -> {"Type": "frame", "Data": Frame} ...
//                                                     then {"Type": "game_end", "Data": {...}}
// `from` is Snakewar's (the frames from turn N on, so that a viewer that lost its
// connection resumes, on any server of the arena); other engines ignore it and send
// every frame again, which the viewer de-duplicates by Turn.

import {
  EventStream as GameEvents,
  FOLLOWER_LIMIT,
  GAME_NOT_FOUND,
  backoffDelay,
  resumeUrl,
} from "../viewer/events.js";
import { normalizeFrame, normalizeGame } from "./frames.js";

export { FOLLOWER_LIMIT, GAME_NOT_FOUND, backoffDelay, resumeUrl };

const PAGE = 100;

function gamesUrl(engine, id, suffix = "") {
  const base = String(engine).replace(/\/+$/, "");
  return `${base}/games/${encodeURIComponent(id)}${suffix}`;
}

/** The URL of `GET /games/{id}` on `engine`. */
export function gameUrl(engine, id) {
  return gamesUrl(engine, id);
}

/** The URL of one page of `GET /games/{id}/frames`. */
export function framesUrl(engine, id, offset, limit = PAGE) {
  return gamesUrl(engine, id, `/frames?offset=${offset}&limit=${limit}`);
}

/** The websocket URL of `/games/{id}/events` (http -> ws, https -> wss). */
export function eventsUrl(engine, id) {
  const url = new URL(gamesUrl(engine, id, "/events"));
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

async function getJson(url, fetchImpl) {
  const response = await fetchImpl(url, { headers: { Accept: "application/json" } });
  if (!response.ok) {
    throw new Error(`${url}: HTTP ${response.status}`);
  }
  return response.json();
}

/** `GET /games/{id}`: `{game, lastFrame}`, normalized. */
export async function fetchGame(engine, id, fetchImpl = fetch) {
  const body = await getJson(gameUrl(engine, id), fetchImpl);
  const game = normalizeGame(body?.Game);
  const lastFrame = body?.LastFrame ? normalizeFrame(body.LastFrame) : null;
  return { game, lastFrame };
}

/**
 * Every frame of a finished game through `/frames`, page by page; `onFrames`
 * gets each page as it arrives.  Stops at a short or empty page (the meaning of
 * `Count` differs between engines, so it is not relied on).
 */
export async function fetchAllFrames(engine, id, onFrames, fetchImpl = fetch) {
  let offset = 0;
  for (;;) {
    const body = await getJson(framesUrl(engine, id, offset), fetchImpl);
    const page = Array.isArray(body?.Frames) ? body.Frames : [];
    if (page.length > 0) {
      onFrames(page.map(normalizeFrame));
    }
    if (page.length < PAGE) {
      return;
    }
    offset += page.length;
  }
}

/**
 * The events websocket of one game (the shared ../viewer/events.js stream), its frames
 * normalized as the board draws them (frames.normalizeFrame).
 */
export class EventStream extends GameEvents {
  constructor(url, handlers, env = {}) {
    super(url, handlers, { normalize: normalizeFrame, ...env });
  }
}
