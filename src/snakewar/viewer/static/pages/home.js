// The home page: live and recent games from GET /api/games, refreshed every 3 s; with
// no game at all, what to do first.

import { fetchJson, poll, renderRows } from "./dom.js";

/**
 * A game's row (any game): entrants, setup, turn, result and a link to watch it.  On a
 * phone's narrow screen the setup is left out (`optional`, site.css) and the entrants
 * and result wrap (`wrap`), so the result and the link are on screen.
 */
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
      { text: names, cls: "wrap" },
      { text: game.title, cls: "optional" },
      String(game.turn),
      { text: result, cls: "wrap" },
      { text: "watch", href: game.viewer },
    ],
  };
}

/** Which parts of the page show: a list only when it has games, the help when none has. */
export function homeSections(list) {
  const live = (list?.live ?? []).length > 0;
  const recent = (list?.games ?? []).length > 0;
  return { live, recent, empty: !live && !recent };
}

async function refresh() {
  const { ok, status, data } = await fetchJson("/api/games?limit=30");
  if (!ok) {
    throw new Error(`could not list the games (the server answered ${status})`);
  }
  renderRows(document.getElementById("live"), data.live.map(gameRow));
  renderRows(document.getElementById("recent"), data.games.map(gameRow));
  const shown = homeSections(data);
  document.getElementById("live-box").hidden = !shown.live;
  document.getElementById("recent-box").hidden = !shown.recent;
  document.getElementById("no-games").hidden = !shown.empty;
}

if (typeof document !== "undefined") {
  poll(refresh, 3000, document.getElementById("error"));
}
