// A ladder entrant's page: GET /api/ladders/{name}/entries/{entrant}: its rank (or how
// many placement games it has still to play), its scorers beside the rating (win rate,
// placements, the game's statistics), and its rating after each game, with the change
// each game made, as a chart and a table (latest first).

import { detailText, fetchJson, renderRows } from "./dom.js";
import {
  drawHistory,
  fixed,
  historyRow,
  percent,
  placementsText,
  standingText,
  statsText,
} from "./profiles.js";

/** The standing line: rank or placement, rating, games. */
export function entryStanding(entry) {
  const rating = entry.rating === null ? "no rating yet" : `rating ${fixed(entry.rating)}`;
  const paused = entry.paused ? " - paused" : entry.failure ? ` - failing: ${entry.failure}` : "";
  return `${standingText(entry)} - ${rating} after ${entry.games} games${paused}`;
}

/** The scorers' line: win rate, placements and the game's statistics. */
export function entryScores(entry) {
  return (
    `win rate ${percent(entry.win_rate)} (${entry.wins} won) - ` +
    `placements ${placementsText(entry.placements)} - ${statsText(entry.stats, entry.scorers)}`
  );
}

async function start() {
  const root = document.getElementById("entry");
  const error = document.getElementById("error");
  const url =
    `/api/ladders/${encodeURIComponent(root.dataset.ladder)}` +
    `/entries/${encodeURIComponent(root.dataset.entrant)}`;
  const answer = await fetchJson(url);
  if (!answer.ok) {
    error.textContent = detailText(answer.data, answer.status);
    return;
  }
  const entry = answer.data;
  document.getElementById("standing").textContent = entryStanding(entry);
  document.getElementById("scores").textContent = entryScores(entry);
  drawHistory(document.getElementById("chart"), entry.history);
  const latest = [...entry.history].reverse();
  renderRows(
    document.getElementById("history"),
    latest.map((step) => historyRow(step, entry.scorers)),
  );
}

if (typeof document !== "undefined") {
  start();
}
