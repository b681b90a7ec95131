// The ladders list, from GET /api/ladders.

import { detailText, fetchJson, renderRows } from "./dom.js";

/** A ladder's row: its name (a link to its page), snakes and games played. */
export function ladderRow(ladder) {
  return {
    cells: [
      { text: ladder.name, href: `/ladders/${encodeURIComponent(ladder.name)}` },
      `${ladder.snakes} snakes`,
      `${ladder.games_played} games`,
      ladder.running ? "playing now" : "",
    ],
  };
}

/** Every ladder's row, or one row saying there is none yet. */
export function ladderRows(ladders) {
  if (ladders.length === 0) {
    return [{ cells: [{ text: "No ladders yet.", cls: "muted" }] }];
  }
  return ladders.map(ladderRow);
}

async function start() {
  const { ok, status, data } = await fetchJson("/api/ladders");
  if (!ok) {
    document.getElementById("error").textContent = detailText(data, status);
    return;
  }
  renderRows(document.getElementById("ladders"), ladderRows(data));
}

if (typeof document !== "undefined") {
  start();
}
