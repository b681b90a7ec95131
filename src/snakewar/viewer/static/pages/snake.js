// A snake's page: GET /api/snakes/{id}/profile (its ladders: rank or placement, rating,
// win rate, placements, the game's statistics and each one's recent rating changes;
// its latency and health) and its games from GET /api/games?snake=, filtered by the
// form and read a page at a time.  A member may challenge it.

import { detailText, el, fetchJson, renderRows } from "./dom.js";
import {
  challengeUrl,
  entryUrl,
  fixed,
  historyRow,
  pagedGames,
  percent,
  placementsText,
  standingText,
  statsText,
  tagsText,
} from "./profiles.js";

/** The latency line: p50 and p95 over the recent games that kept their calls. */
export function latencyText(latency) {
  if (!latency?.calls) {
    return "Latency: no calls recorded (a server keeps them for the games it plays locally).";
  }
  const out = `Latency over ${latency.games} recent game${latency.games === 1 ? "" : "s"}: `;
  const timeouts = latency.timeouts ? `, ${latency.timeouts} timed out` : "";
  return `${out}p50 ${latency.p50_ms} ms, p95 ${latency.p95_ms} ms (${latency.calls} calls${timeouts})`;
}

/** The health line: "Health: ok - detail". */
export function healthText(health) {
  return `Health: ${health.status} - ${health.detail}`;
}

/** A ladder's row on a snake's page. */
export function ladderRow(entry) {
  return {
    cells: [
      { text: entry.ladder, href: entryUrl(entry.ladder, entry.entrant) },
      standingText(entry),
      fixed(entry.rating),
      entry.games,
      percent(entry.win_rate),
      placementsText(entry.placements),
      statsText(entry.stats, entry.scorers),
    ],
    testid: "snake-ladder",
  };
}

function drawHistories(root, ladders) {
  root.replaceChildren(
    ...ladders.map((entry) => {
      const box = el("details");
      box.dataset.testid = "snake-history";
      box.append(el("summary", `Rating changes on ${entry.ladder} (latest first)`));
      const table = el("table");
      const tbody = el("tbody");
      const recent = entry.history.slice(-20).reverse();
      renderRows(tbody, recent.map((step) => historyRow(step, entry.scorers)));
      table.append(tbody);
      box.append(table);
      return box;
    }),
  );
}

async function start() {
  const root = document.getElementById("snake");
  const error = document.getElementById("error");
  const answer = await fetchJson(`/api/snakes/${root.dataset.id}/profile`);
  if (!answer.ok) {
    error.textContent = detailText(answer.data, answer.status);
    return;
  }
  const profile = answer.data;
  document.querySelector('[data-testid="snake-tags"]').textContent = tagsText(profile.snake);
  document.getElementById("health").textContent = healthText(profile.health);
  document.getElementById("latency").textContent = latencyText(profile.latency);
  renderRows(document.getElementById("ladders"), profile.ladders.map(ladderRow));
  drawHistories(document.getElementById("histories"), profile.ladders);
  const challenge = document.getElementById("challenge");
  if (challenge) {
    challenge.href = challengeUrl(profile.snake, root.dataset.defaultGame);
  }
  const filters = document.getElementById("game-filters");
  const games = pagedGames({
    tbody: document.getElementById("games"),
    more: document.getElementById("more"),
    count: document.getElementById("games-count"),
    base: { snake: root.dataset.ref },
    values: () => Object.fromEntries(new FormData(filters)),
  });
  const show = (promise) =>
    promise.catch((e) => {
      error.textContent = String(e.message);
    });
  filters.addEventListener("change", () => show(games.reload()));
  document.getElementById("more").addEventListener("click", () => show(games.more()));
  await show(games.reload());
}

if (typeof document !== "undefined") {
  start();
}
