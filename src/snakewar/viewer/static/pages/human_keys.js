// The game page's controls for a person playing (the `human` entrant): arrow keys or WASD
// send the move to the server (POST /api/games/{id}/human); the line above the board says
// whether the game waits for the person's move now, and for which turn.
//
// The seat exists only while the game runs with a person in it, for its owner: for anyone
// else the line stays hidden and the keys stay the board viewer's shortcuts.

import { typingInto } from "../controls.js";
import { fetchJson, postJson } from "./dom.js";

/** Each key and the move it sends (arrows, WASD in either case). */
export const MOVE_KEYS = Object.freeze({
  ArrowUp: "up",
  ArrowDown: "down",
  ArrowLeft: "left",
  ArrowRight: "right",
  w: "up",
  a: "left",
  s: "down",
  d: "right",
  W: "up",
  A: "left",
  S: "down",
  D: "right",
});

const POLL_MS = 250;

/** The move `event` means, or null (a modifier held, or typing in a field). */
export function moveOf(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || typingInto(event.target)) {
    return null;
  }
  return MOVE_KEYS[event.key] ?? null;
}

/** What the status line says of a seat (`GET /api/games/{id}/human`). */
export function seatText(seat, sent) {
  const seconds = Math.round(seat.timeout_ms / 100) / 10;
  const last = sent ? ` You pressed ${sent}.` : "";
  if (seat.waiting) {
    return `Your move, turn ${seat.turn}: arrow keys or WASD (${seconds} s).${last}`;
  }
  return `The others are moving…${last}`;
}

/**
 * Play the person's snake of game `id` from this page: `line` shows the seat's state;
 * `frame` is the board's iframe (its keys count too once it has the focus).
 */
export function humanKeys(id, line, frame) {
  const url = `/api/games/${encodeURIComponent(id)}/human`;
  let playing = false;
  let sent = "";
  const show = (seat) => {
    line.textContent = seatText(seat, sent);
    line.dataset.waiting = String(seat.waiting);
    line.hidden = false;
  };
  const onKey = async (event) => {
    const move = playing ? moveOf(event) : null;
    if (!move) {
      return;
    }
    // The move is the person's, not the viewer's step shortcut, nor the page's scrolling.
    event.preventDefault();
    event.stopImmediatePropagation();
    sent = move;
    try {
      const { ok, data } = await postJson(url, { move });
      if (ok) {
        show(data);
      }
    } catch {
      // The next poll tells whether the game goes on.
    }
  };
  window.addEventListener("keydown", onKey, { capture: true });
  const hookFrame = () => {
    try {
      frame?.contentWindow?.addEventListener("keydown", onKey, { capture: true });
    } catch {
      // A board from elsewhere (another origin) keeps its own keys.
    }
  };
  frame?.addEventListener("load", hookFrame);
  hookFrame();
  const refresh = async () => {
    let answer;
    try {
      answer = await fetchJson(url);
    } catch {
      // The server is gone (`snakewar play --exit-at-end` stops it with the game).
      if (playing) {
        line.textContent = "The game is over (the server has stopped).";
        line.dataset.waiting = "false";
      }
      playing = false;
      return;
    }
    const { ok, data } = answer;
    if (!ok || !data?.playing) {
      if (playing) {
        line.textContent = "The game is over.";
        line.dataset.waiting = "false";
      }
      playing = false;
      return;
    }
    playing = true;
    show(data);
    setTimeout(refresh, POLL_MS);
  };
  refresh();
}
