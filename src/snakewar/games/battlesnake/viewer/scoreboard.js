// The scoreboard as HTML markup: one row per snake, in scoreboard order.
//
// Like render.js it is a pure function returning a string, so it can be tested
// under Node; every piece of text that comes from a snake is escaped.

import { eliminationText, scoreboardOrder } from "./frames.js";
import { escapeXml, renderAvatar, safeColor } from "./render.js";

/** The latency cell's text: the engine's "0" (or nothing) means no reply timed yet. */
export function latencyText(snake) {
  const ms = Number.parseInt(snake.Latency, 10);
  return Number.isFinite(ms) && ms > 0 ? `${ms} ms` : "—";
}

/** What went wrong with the snake's last reply ("" when nothing did). */
export function errorText(snake) {
  if (snake.Error) {
    return snake.Error;
  }
  if (snake.StatusCode !== 200 && snake.StatusCode !== 0) {
    return `HTTP status ${snake.StatusCode}`;
  }
  return "";
}

function row(snake, frame, highlight) {
  const dead = Boolean(snake.Death);
  const color = dead ? "var(--muted)" : safeColor(snake.Color);
  const health = Math.max(0, Math.min(100, snake.Health));
  const classes = ["snake-row"];
  if (dead) {
    classes.push("eliminated");
  }
  if (highlight === snake.ID) {
    classes.push("highlighted");
  }
  const id = escapeXml(snake.ID);
  const parts = [
    `<li class="${classes.join(" ")}" data-testid="snake-row" data-snake-id="${id}" ` +
      `data-eliminated="${dead}" tabindex="0" role="button" aria-pressed="${highlight === snake.ID}" ` +
      `title="Click to highlight this snake">`,
    `<div class="row-top">${renderAvatar(snake)}`,
    `<span class="snake-name" data-testid="snake-name">${escapeXml(snake.Name)}</span>`,
    `<span class="snake-length" data-testid="snake-length" title="Length">${snake.Body.length}</span></div>`,
    `<div class="row-mid"><span class="snake-author" data-testid="snake-author">` +
      `${snake.Author ? `by ${escapeXml(snake.Author)}` : ""}</span>`,
    `<span class="snake-latency" data-testid="snake-latency" title="Latency of the last move">` +
      `${latencyText(snake)}</span></div>`,
    `<div class="health-bar" data-testid="snake-health" role="meter" aria-label="Health" ` +
      `aria-valuemin="0" aria-valuemax="100" aria-valuenow="${health}">` +
      `<div class="health-fill" data-health="${health}" data-color="${escapeXml(color)}"></div>` +
      `<span class="health-text">${health}</span></div>`,
  ];
  if (dead) {
    parts.push(
      `<div class="snake-status" data-testid="snake-status">` +
        `${escapeXml(eliminationText(snake, frame.Snakes))}</div>`,
    );
  }
  const error = errorText(snake);
  if (error) {
    parts.push(`<div class="snake-error" data-testid="snake-error">⚠ ${escapeXml(error)}</div>`);
  }
  if (snake.Shout) {
    parts.push(`<div class="snake-shout" data-testid="snake-shout">“${escapeXml(snake.Shout)}”</div>`);
  }
  parts.push("</li>");
  return parts.join("");
}

/**
 * Give each health bar under `root` its width and colour (from its data attributes).
 *
 * Set through the CSSOM, not `style` attributes in the markup: the server's
 * Content-Security-Policy allows no inline styles.
 */
export function paintHealth(root) {
  for (const fill of root.querySelectorAll(".health-fill")) {
    fill.style.width = `${fill.dataset.health}%`;
    fill.style.backgroundColor = fill.dataset.color;
  }
}

/** The scoreboard's list items for `frame` (`highlight`: the highlighted snake's id). */
export function renderScoreboard(frame, { highlight = null } = {}) {
  return scoreboardOrder(frame.Snakes)
    .map((snake) => row(snake, frame, highlight))
    .join("");
}
