// "Save as test scenario" on a game's page: the turn the board shows, seen by the snake
// chosen here, downloaded as a scenario file (GET /api/games/{id}/scenario) that
// `snakewar test URL --scenarios FILE` runs.  The right moves are the rules engine's,
// computed by the server; a position that tests nothing (no move or every move right) is
// refused with the server's one line, unless "keep anyway" is ticked.
//
// The page shows the container only for games whose turns can be saved.

import { detailText, el, fetchJson } from "./dom.js";

/** The scenario route of game `id` for `turn`, the player `snake` and `keep`. */
export function scenarioUrl(id, turn, snake, keep) {
  const query = new URLSearchParams({ turn: String(turn), snake });
  if (keep) {
    query.set("keep", "true");
  }
  return `/api/games/${encodeURIComponent(id)}/scenario?${query}`;
}

/** The file name of the download: the server's (Content-Disposition), else a made one. */
export function downloadName(disposition, id, turn) {
  const match = /filename="([^"]+)"/.exec(disposition || "");
  return match ? match[1] : `${id}-turn-${turn}.json`;
}

/** Call `onTurn` with each turn the board in `frame` draws (its events, else its messages). */
function followBoard(frame, onTurn) {
  let direct = false;
  frame?.addEventListener("boardturn", (event) => {
    direct = true;
    const turn = Number(event.detail?.turn);
    if (Number.isInteger(turn) && turn >= 0) {
      onTurn(turn);
    }
  });
  window.addEventListener("message", (event) => {
    if (direct || !frame || event.source !== frame.contentWindow || event.data?.event !== "TURN") {
      return;
    }
    const turn = Number(event.data.data?.turn);
    if (Number.isInteger(turn) && turn >= 0) {
      onTurn(turn);
    }
  });
}

async function start(box) {
  const id = document.getElementById("game").dataset.gameId;
  const { ok, data } = await fetchJson(`/api/games/${encodeURIComponent(id)}`);
  if (!ok || !Array.isArray(data?.entrants) || data.entrants.length === 0) {
    return;
  }
  let turn = Number.isInteger(data.turn) ? data.turn : 0;
  const label = el("label", "Test scenario of ");
  const pick = el("select");
  pick.dataset.testid = "scenario-snake";
  for (const entrant of data.entrants) {
    const option = el("option", entrant.name);
    option.value = entrant.name;
    pick.append(option);
  }
  label.append(pick);
  const keepLabel = el("label", " keep anyway");
  const keep = el("input");
  keep.type = "checkbox";
  keep.dataset.testid = "scenario-keep";
  keepLabel.prepend(keep);
  const button = el("button", "Save as test scenario");
  button.type = "button";
  button.dataset.testid = "scenario-button";
  const state = el("span", "", "muted");
  state.dataset.testid = "scenario-state";
  state.setAttribute("role", "status");
  box.append(label, " ", button, keepLabel, " ", state);
  box.hidden = false;

  followBoard(document.querySelector("iframe[data-testid='board-frame']"), (shown) => {
    turn = shown;
  });
  button.addEventListener("click", async () => {
    const asked = turn;
    state.textContent = `saving turn ${asked}...`;
    const response = await fetch(scenarioUrl(id, asked, pick.value, keep.checked));
    if (!response.ok) {
      let body = null;
      try {
        body = await response.json();
      } catch {
        body = null;
      }
      state.textContent = detailText(body, response.status);
      return;
    }
    const blob = await response.blob();
    const link = el("a");
    link.href = URL.createObjectURL(blob);
    link.download = downloadName(response.headers.get("Content-Disposition"), id, asked);
    document.body.append(link);
    link.click();
    link.remove();
    // Let the download take the blob before its address goes.
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    state.textContent = `turn ${asked} saved`;
  });
}

if (typeof document !== "undefined") {
  const box = document.getElementById("scenario-save");
  if (box) {
    start(box);
  }
}
