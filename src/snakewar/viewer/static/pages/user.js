// A user's page: GET /api/users/{name}/profile (their snakes and bots, each linking to
// its page) and their games from GET /api/games?user=, a page at a time.

import { detailText, fetchJson, renderRows } from "./dom.js";
import { pagedGames, tagsText } from "./profiles.js";

/** A snake's or bot's row on its owner's page. */
export function ownedRow(snake) {
  const state = [snake.visibility === "private" ? "private" : "", snake.paused ? "paused" : ""];
  return {
    cells: [
      { text: snake.name, href: `/snakes/${snake.id}` },
      snake.game,
      tagsText(snake),
      state.filter(Boolean).join(", ") || "active",
    ],
    testid: "owned-row",
  };
}

function listOrNone(tbody, snakes, none) {
  renderRows(
    tbody,
    snakes.length ? snakes.map(ownedRow) : [{ cells: [{ text: none, cls: "muted" }] }],
  );
}

async function start() {
  const name = document.getElementById("user").dataset.name;
  const error = document.getElementById("error");
  const answer = await fetchJson(`/api/users/${encodeURIComponent(name)}/profile`);
  if (!answer.ok) {
    error.textContent = detailText(answer.data, answer.status);
    return;
  }
  listOrNone(document.getElementById("snakes"), answer.data.snakes, "No snake.");
  listOrNone(document.getElementById("bots"), answer.data.bots, "No bot.");
  const games = pagedGames({
    tbody: document.getElementById("games"),
    more: document.getElementById("more"),
    count: document.getElementById("games-count"),
    base: { user: name },
  });
  const show = (promise) =>
    promise.catch((e) => {
      error.textContent = String(e.message);
    });
  document.getElementById("more").addEventListener("click", () => show(games.more()));
  await show(games.reload());
}

if (typeof document !== "undefined") {
  start();
}
