// The Halite page: stored games from GET /api/halite/games, and the upload form
// (the .hlt goes as the raw body of POST /api/halite/games).

import { detailText, fetchJson, renderRows } from "../../viewer/pages/dom.js";

/**
 * A stored game's row: players, winner (or its state: running, cancelled...), size,
 * length, source and a link to watch.
 */
export function haliteRow(game) {
  const over = (game.status ?? "complete") === "complete";
  return {
    testid: "halite-game",
    cells: [
      game.players.join(", "),
      over ? `won by ${game.winner ?? "-"}` : game.status,
      `${game.width}x${game.height}`,
      `${game.turns} turns`,
      { text: game.source, cls: "muted" },
      { text: "watch", href: game.url },
    ],
  };
}

/** Every stored game's row, or one row saying there is none yet. */
export function haliteRows(games) {
  if (games.length === 0) {
    return [{ cells: [{ text: "No Halite games stored yet.", cls: "muted" }] }];
  }
  return games.map(haliteRow);
}

async function showGames() {
  const tbody = document.getElementById("games");
  const { ok, status, data } = await fetchJson("/api/halite/games?limit=100");
  if (!ok) {
    // A server without a database says so (503): show it in place of the list.
    renderRows(tbody, [{ cells: [{ text: detailText(data, status), cls: "muted" }] }]);
    return;
  }
  renderRows(tbody, haliteRows(data));
}

function start() {
  const form = document.getElementById("upload");
  const error = document.getElementById("error");
  if (!form) {
    return; // a visitor who has not logged in sees no form
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = form.file.files[0];
    if (!file) {
      return;
    }
    error.textContent = "uploading...";
    const { ok, status, data } = await fetchJson("/api/halite/games", {
      method: "POST",
      headers: { "Content-Type": "application/octet-stream" },
      body: file,
    });
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    window.location.href = data.url;
  });
  showGames();
}

if (typeof document !== "undefined") {
  start();
}
