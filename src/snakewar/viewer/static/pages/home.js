// The home page: live and recent games from GET /api/games, refreshed every 3 s.

import { fetchJson, poll, renderRows } from "./dom.js";

/** A game's row (any game): entrants, setup, turn, result and a link to watch it. */
export function gameRow(game) {
  const names = (game.entrants ?? []).map((s) => s.name).join(", ");
  let result = game.status;
  if (game.winner) {
    result = `won by ${game.winner}`;
  } else if (game.is_draw) {
    result = "draw";
  }
  return {
    cells: [
      names,
      game.title,
      `turn ${game.turn}`,
      result,
      { text: "watch", href: game.viewer },
    ],
  };
}

async function refresh() {
  const { ok, status, data } = await fetchJson("/api/games?limit=30");
  if (!ok) {
    throw new Error(`could not list the games (the server answered ${status})`);
  }
  renderRows(document.getElementById("live"), data.live.map(gameRow));
  renderRows(document.getElementById("recent"), data.games.map(gameRow));
}

if (typeof document !== "undefined") {
  poll(refresh, 3000, document.getElementById("error"));
}
