// A game's page: the board viewer in a frame, and a rematch button.

import { detailText, postJson } from "./dom.js";

/** Where a rematch of game `id` is requested. */
export function rematchUrl(id) {
  return `/api/games/${encodeURIComponent(id)}/rematch`;
}

function start() {
  const id = document.getElementById("game").dataset.gameId;
  const error = document.getElementById("error");
  document.getElementById("rematch")?.addEventListener("click", async () => {
    const { ok, status, data } = await postJson(rematchUrl(id));
    if (ok) {
      window.location.href = data.viewer;
    } else {
      error.textContent = detailText(data, status);
    }
  });
}

if (typeof document !== "undefined") {
  start();
}
