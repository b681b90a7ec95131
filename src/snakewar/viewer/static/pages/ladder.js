// A ladder's page: standings, the rating chart and recent games from
// GET /api/ladders/{name}, refreshed every 2 s; "Play 10 games" starts a run.

import { detailText, fetchJson, poll, postJson, renderRows } from "./dom.js";

export const PALETTE = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6"];

/** The chart's drawing area in the SVG's viewBox (0 0 600 240). */
export const CHART = { left: 10, right: 590, top: 10, bottom: 230 };

const SVG = "http://www.w3.org/2000/svg";

function fixed(value) {
  return typeof value === "number" ? value.toFixed(2) : "-";
}

/** A standings row: rank, snake, rating (mu - 3 sigma), mu, sigma, games, status. */
export function standingRow(s) {
  return {
    cells: [
      s.rank ?? "-",
      s.snake,
      fixed(s.rating),
      fixed(s.mu),
      fixed(s.sigma),
      s.games,
      s.paused ? s.note : "active",
    ],
  };
}

/** A recent game's row: the placement ("a > b = c"), its length and a link to watch. */
export function recentGameRow(game) {
  return {
    cells: [
      game.placement.map((group) => group.join(" = ")).join(" > "),
      `${game.turns} turns`,
      { text: "watch", href: game.viewer },
    ],
  };
}

/** The line above the standings. */
export function summaryText(data) {
  return `${data.games_played} games` + (data.running ? " - playing now" : "");
}

/**
 * The chart's lines: one per snake, its rating (mu - 3 sigma) after each of its
 * games, scaled into `CHART` (x by game index over the longest history, y from the
 * lowest to the highest rating, at least 2 apart).  `[{snake, color, points}]` with
 * `points` as an SVG polyline's "x,y x,y" text; empty when there is no rating yet.
 */
export function chartLines(history, area = CHART) {
  const series = Object.entries(history);
  let lo = Infinity;
  let hi = -Infinity;
  let longest = 1;
  for (const [, points] of series) {
    longest = Math.max(longest, points.length);
    for (const p of points) {
      const rating = p.mu - 3 * p.sigma;
      lo = Math.min(lo, rating);
      hi = Math.max(hi, rating);
    }
  }
  if (!Number.isFinite(lo)) {
    return [];
  }
  if (hi - lo < 1) {
    hi += 1;
    lo -= 1;
  }
  const width = area.right - area.left;
  const height = area.bottom - area.top;
  return series.map(([snake, points], i) => ({
    snake,
    color: PALETTE[i % PALETTE.length],
    points: points
      .map((p, k) => {
        const x = area.left + (width * k) / Math.max(longest - 1, 1);
        const y = area.bottom - (height * (p.mu - 3 * p.sigma - lo)) / (hi - lo);
        return `${x},${y}`;
      })
      .join(" "),
  }));
}

function drawChart(svg, history) {
  svg.replaceChildren(
    ...chartLines(history).map(({ snake, color, points }) => {
      const line = document.createElementNS(SVG, "polyline");
      line.setAttribute("fill", "none");
      line.setAttribute("stroke", color);
      line.setAttribute("stroke-width", "2");
      line.setAttribute("points", points);
      const title = document.createElementNS(SVG, "title");
      title.textContent = snake;
      line.append(title);
      return line;
    }),
  );
}

function start() {
  const name = document.getElementById("ladder").dataset.name;
  const url = `/api/ladders/${encodeURIComponent(name)}`;
  const error = document.getElementById("error");

  const refresh = async () => {
    const { ok, status, data } = await fetchJson(url);
    if (!ok) {
      throw new Error(detailText(data, status));
    }
    document.getElementById("summary").textContent = summaryText(data);
    renderRows(document.getElementById("standings"), data.standings.map(standingRow));
    renderRows(document.getElementById("games"), data.recent_games.map(recentGameRow));
    drawChart(document.getElementById("chart"), data.history);
  };

  document.getElementById("run")?.addEventListener("click", async () => {
    const { ok, status, data } = await postJson(`${url}/run`, { games: 10 });
    error.textContent = ok ? "" : detailText(data, status);
    refresh().catch((e) => {
      error.textContent = String(e.message);
    });
  });
  poll(refresh, 2000, error);
}

if (typeof document !== "undefined") {
  start();
}
