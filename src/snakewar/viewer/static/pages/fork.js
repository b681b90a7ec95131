// A game page's "Play on from here": a new game from the turn the board shows
// (POST /api/games/{id}/fork, the game's settings, seed and snakes), then its page.
//
// The turn follows the board as it draws (its `boardturn` events on the iframe, and its
// TURN messages for a board of another origin): the button says which turn it forks.

import { detailText, postJson } from "./dom.js";

/** The fork route of game `id`. */
export function forkUrl(id) {
  return `/api/games/${encodeURIComponent(id)}/fork`;
}

/** The button's label for `turn` (null: the board has not drawn one yet). */
export function forkLabel(turn) {
  return turn === null ? "Play on from here" : `Play on from turn ${turn}`;
}

/** A turn a board reported: a whole number from 0, else null. */
export function boardTurn(value) {
  const turn = Number(value);
  return Number.isInteger(turn) && turn >= 0 ? turn : null;
}

function start() {
  const button = document.getElementById("fork");
  if (!button) {
    return;
  }
  const id = button.dataset.gameId;
  const error = document.getElementById("error");
  const board = document.querySelector("iframe[data-board]");
  let turn = null;
  const show = (value) => {
    const seen = boardTurn(value);
    if (seen !== null) {
      turn = seen;
      button.textContent = forkLabel(turn);
      button.disabled = false;
    }
  };
  board?.addEventListener("boardturn", (event) => show(event.detail?.turn));
  window.addEventListener("message", (event) => {
    if (event.source === board?.contentWindow && event.data?.event === "TURN") {
      show(event.data?.data?.turn);
    }
  });
  button.addEventListener("click", async () => {
    if (turn === null) {
      return;
    }
    button.disabled = true;
    const { ok, status, data } = await postJson(forkUrl(id), { turn });
    if (ok) {
      window.location.href = data.viewer;
      return;
    }
    error.textContent = detailText(data, status);
    button.disabled = false;
  });
}

if (typeof document !== "undefined") {
  start();
}
