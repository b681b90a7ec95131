// A Halite III game's page: the Halite viewer in a frame (it follows a running game on
// its own), the game's state, the players' failures (and their bots' logs, for those who
// may read them) and the replay's download once the game ended.  The board's shortcut
// keys work from the page (board_keys.js).

import { forwardKeys } from "../../viewer/pages/board_keys.js";
import { pollGame } from "../../viewer/pages/dom.js";
import { parseSeats, renderEntrants } from "../../viewer/pages/entrants.js";

const POLL_MS = 1500;

/** The page's words for a game's state (an API game). */
export function stateText(game) {
  const turns = `${game.turn} turn${game.turn === 1 ? "" : "s"}`;
  switch (game.status) {
    case "starting":
      return "Starting…";
    case "running":
      return `Running · ${turns} played`;
    case "complete":
      return game.winner ? `Won by ${game.winner} · ${turns}` : `Over · ${turns}`;
    case "cancelled":
      return `Cancelled after ${turns}`;
    case "aborted":
      return `Stopped after ${turns} (its server stopped)`;
    case "error":
      return `Stopped by an error after ${turns}: ${game.error}`;
    default:
      return String(game.status ?? "");
  }
}

function start() {
  const box = document.getElementById("game");
  const id = box.dataset.gameId;
  const state = document.getElementById("game-state");
  const download = document.getElementById("download");
  const entrants = document.getElementById("entrants");
  const logSeats = parseSeats(entrants.dataset.logSeats);
  forwardKeys(document.querySelector("iframe[data-board]"));
  pollGame(id, (game) => {
    state.textContent = stateText(game);
    // Only a finished game has a replay file (a stopped one can only be watched).
    download.hidden = game.status !== "complete";
    renderEntrants(entrants, game, logSeats);
  }, POLL_MS);
}

if (typeof document !== "undefined") {
  start();
}
