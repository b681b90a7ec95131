// What the profile pages share (snakes, a snake, a user, a ladder entry): text for
// ratings, placements and the game's statistics, links, the games list's filters and
// its pages.  Pure parts first (tested under Node), then the paged games list.

import { detailText, fetchJson, renderRows } from "./dom.js";
import { gameRow } from "./home.js";

/** A rate as a percentage ("57%"), "-" when there is none. */
export function percent(rate) {
  return typeof rate === "number" ? `${Math.round(rate * 100)}%` : "-";
}

/** A number with two decimals, "-" when there is none. */
export function fixed(value) {
  return typeof value === "number" ? value.toFixed(2) : "-";
}

/** A rating change with its sign ("+1.25", "-0.40"); "-" for a first game. */
export function signed(delta) {
  if (typeof delta !== "number") {
    return "-";
  }
  return `${delta >= 0 ? "+" : ""}${delta.toFixed(2)}`;
}

/** An ordinal place: 1st, 2nd, 3rd, 4th... (11th, 12th, 13th too). */
export function ordinal(n) {
  const tens = n % 100;
  const suffix =
    tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th");
  return `${n}${suffix}`;
}

/** Placements as text, best first: "1st x3, 2nd x1" ("-" for none). */
export function placementsText(placements) {
  const entries = Object.entries(placements ?? {})
    .map(([place, count]) => [Number(place), count])
    .sort((a, b) => a[0] - b[0]);
  return entries.length ? entries.map(([p, n]) => `${ordinal(p)} x${n}`).join(", ") : "-";
}

/**
 * The game's statistics as text, in the order of its `scorers` (the API's labels):
 * "food eaten 3.50, final length 7.00"; "-" when none was recorded.
 */
export function statsText(stats, scorers) {
  const parts = (scorers ?? [])
    .filter((s) => typeof stats?.[s.key] === "number")
    .map((s) => `${s.label} ${fixed(stats[s.key])}`);
  return parts.length ? parts.join(", ") : "-";
}

/** Where a ladder entrant's page is. */
export function entryUrl(ladder, entrant) {
  return `/ladders/${encodeURIComponent(ladder)}/entries/${encodeURIComponent(entrant)}`;
}

/** A standing in words: "rank 2 of 5", "in placement: 3 games to go", or "unranked". */
export function standingText(entry) {
  if (entry.in_placement) {
    const left = entry.placement_left;
    return `in placement: ${left} game${left === 1 ? "" : "s"} to go`;
  }
  return entry.rank ? `rank ${entry.rank} of ${entry.ranked}` : "unranked";
}

/**
 * The new-game page opened to challenge `snake` (`{ref, game}`): its game named when it
 * is not the default one.
 */
export function challengeUrl(snake, defaultGame) {
  const query = new URLSearchParams({ challenge: snake.ref });
  if (snake.game !== defaultGame) {
    query.set("game", snake.game);
  }
  return `/new?${query}`;
}

/** A snake's language and tags, as one line. */
export function tagsText(snake) {
  const words = [snake.language, ...(snake.tags ?? [])].filter(Boolean);
  return words.length ? words.join(", ") : "-";
}

/**
 * The query of GET /api/games for a page of games: the fixed filters (`base`: snake,
 * user...), the form's (`values`: status, ladder, from and to as dates; empty ones
 * left out) and the page.  A "to" date includes its whole day.
 */
export function gamesQuery(base, values, offset, limit) {
  const query = new URLSearchParams(base);
  for (const name of ["status", "ladder", "tournament"]) {
    if (values?.[name]) {
      query.set(name, values[name]);
    }
  }
  if (values?.from) {
    query.set("from", `${values.from}T00:00:00Z`);
  }
  if (values?.to) {
    const next = new Date(`${values.to}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    query.set("to", next.toISOString().replace(".000Z", "Z"));
  }
  query.set("limit", String(limit));
  query.set("offset", String(offset));
  return query.toString();
}

/** The line over a games list: how many there are. */
export function gamesCount(total) {
  return `${total} game${total === 1 ? "" : "s"}`;
}

/**
 * A list of games read a page at a time from GET /api/games: `base` the fixed filters,
 * `values()` the form's.  `reload()` starts again from the first page; the "More"
 * button adds the next.  Live games that match come first.
 */
export function pagedGames({ tbody, more, count, base, values = () => ({}), limit = 20 }) {
  let next = 0;
  let rows = [];
  const load = async (fresh) => {
    if (fresh) {
      next = 0;
      rows = [];
    }
    const answer = await fetchJson(`/api/games?${gamesQuery(base, values(), next, limit)}`);
    if (!answer.ok) {
      throw new Error(detailText(answer.data, answer.status));
    }
    const data = answer.data;
    if (fresh) {
      rows = data.live.map(gameRow);
    }
    rows = rows.concat(data.games.map(gameRow));
    renderRows(tbody, rows);
    tbody.querySelectorAll("tr").forEach((tr) => {
      tr.dataset.testid = "game-row";
    });
    count.textContent = gamesCount(data.total ?? 0);
    next = data.next_offset;
    more.hidden = next === null || next === undefined;
  };
  return { reload: () => load(true), more: () => load(false) };
}

/** The chart's drawing area in its viewBox (0 0 600 260). */
const AREA = { left: 52, right: 590, top: 10, bottom: 222 };

/**
 * An entrant's rating history as a chart: each game's `[x, y]` in the drawing area
 * and the lowest and highest ratings (at least 2 apart); `null` with no game.
 */
export function historyPoints(history, area = AREA) {
  if (!history?.length) {
    return null;
  }
  const ratings = history.map((step) => step.rating);
  let lo = Math.min(...ratings);
  let hi = Math.max(...ratings);
  if (hi - lo < 2) {
    lo -= 1;
    hi += 1;
  }
  const steps = Math.max(history.length - 1, 1);
  const width = area.right - area.left;
  const height = area.bottom - area.top;
  const points = ratings.map((r, k) => [
    area.left + (width * k) / steps,
    area.bottom - (height * (r - lo)) / (hi - lo),
  ]);
  return { points, lo, hi };
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) {
    node.setAttribute(key, String(value));
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

/** Draw `history` (rating steps) into the `<svg>` `chart`: axes, the line, a dot a game. */
export function drawHistory(chart, history) {
  const drawn = historyPoints(history);
  if (drawn === null) {
    chart.replaceChildren();
    return;
  }
  const { left, right, top, bottom } = AREA;
  const parts = [
    svg("line", { x1: left, y1: bottom, x2: right, y2: bottom, class: "axis" }),
    svg("line", { x1: left, y1: top, x2: left, y2: bottom, class: "axis" }),
    svg("text", { x: left - 6, y: top + 10, "text-anchor": "end" }, drawn.hi.toFixed(1)),
    svg("text", { x: left - 6, y: bottom, "text-anchor": "end" }, drawn.lo.toFixed(1)),
    svg("text", { x: right, y: 256, "text-anchor": "end" }, "games played"),
  ];
  const line = svg("polyline", {
    fill: "none",
    stroke: "#4363d8",
    "stroke-width": 2,
    points: drawn.points.map(([x, y]) => `${x},${y}`).join(" "),
  });
  parts.push(line);
  drawn.points.forEach(([x, y], k) => {
    const dot = svg("circle", { cx: x, cy: y, r: 3, fill: "#4363d8" });
    dot.dataset.testid = "chart-point";
    const step = history[k];
    dot.append(svg("title", {}, `game ${k + 1}: ${fixed(step.rating)} (${signed(step.delta)})`));
    parts.push(dot);
  });
  chart.replaceChildren(...parts);
}

/** A rating step's row: the game, its place, the rating after it, the change, stats. */
export function historyRow(step, scorers) {
  return {
    cells: [
      step.played_at.slice(0, 16).replace("T", " "),
      `${ordinal(step.place)} of ${step.places}${step.won ? " (won)" : ""}`,
      fixed(step.rating),
      { text: signed(step.delta), cls: step.delta > 0 ? "pass" : step.delta < 0 ? "error" : "" },
      statsText(step.stats, scorers),
      { text: "watch", href: step.viewer },
    ],
    testid: "history-row",
  };
}
