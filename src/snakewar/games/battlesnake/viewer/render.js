// The board as SVG markup: cells, hazards, food and snakes of one frame.
//
// It returns a string rather than building DOM nodes so that it is a pure
// function of (game, frame, options): the tests run it under Node, and the page
// swaps one element's markup per turn.  Colours that follow the theme are CSS
// classes (viewer.css); only a snake's own colour is written inline.

import { isWrapped } from "./frames.js";
import { headPaths, tailPaths } from "./sprites.js";

/** Size of one cell in SVG user units. */
export const CELL = 20;
const GAP = CELL * 0.06; // half the gutter between two cells
const BODY_WIDTH = CELL * 0.8; // must match the sprites' 10..90 band
const BORDER = CELL * 0.25;
const LABEL = CELL * 0.9; // room for the coordinates, when shown
const OVERLAP = 0.05; // how far (in cells) the body reaches under the end sprites
const DEFAULT_COLOR = "#888888";

/** Escape text for SVG/HTML markup (names and shouts come from the snakes). */
export function escapeXml(text) {
  return String(text).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );
}

/** `color` when it is a CSS hex colour, else the engine's default grey. */
export function safeColor(color) {
  // Only hex colours are let through: the value lands in markup, and the
  // official engine also replaces anything else with #888888.
  return typeof color === "string" && /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(color)
    ? color
    : DEFAULT_COLOR;
}

const fmt = (n) => Number(n.toFixed(2)).toString();

/**
 * The direction of one step from `a` to `b` in board units (y up).  On a
 * wrapped board a step across an edge looks like a jump over the whole board;
 * it is one cell the other way, and `wrapped` says so.
 */
function step(a, b) {
  let dx = b.X - a.X;
  let dy = b.Y - a.Y;
  const wrapped = Math.abs(dx) > 1 || Math.abs(dy) > 1;
  if (Math.abs(dx) > 1) {
    dx = -Math.sign(dx);
  }
  if (Math.abs(dy) > 1) {
    dy = -Math.sign(dy);
  }
  return { dx, dy, wrapped };
}

/** Consecutive equal points merged: a snake that just grew, or turn 0's stack. */
function distinct(body) {
  const out = [];
  for (const p of body) {
    const last = out.at(-1);
    if (!last || last.X !== p.X || last.Y !== p.Y) {
      out.push(p);
    }
  }
  return out;
}

/**
 * The geometry of a snake: its body as polylines between cell centres, and the
 * cell and direction of its head and tail.  The body runs from the edge the head
 * shares with the neck to the edge the tail shares with its neighbour, so the
 * sprites cover the end cells.  A step across a wrapped edge ends one polyline
 * at the edge the snake leaves by and starts the next at the edge it comes in
 * at, instead of drawing a line across the whole board.
 */
export function snakeGeometry(body, height) {
  const pts = distinct(body);
  const centre = (p) => ({ x: (p.X + 0.5) * CELL, y: (height - p.Y - 0.5) * CELL });
  if (pts.length === 0) {
    return { pieces: [], head: null, tail: null };
  }
  if (pts.length === 1) {
    // A snake still stacked on one cell (turn 0) faces up and shows no tail.
    return { pieces: [], head: { ...centre(pts[0]), dx: 0, dy: 1 }, tail: null };
  }
  const offset = (c, s, k) => ({ x: c.x + k * s.dx * CELL, y: c.y - k * s.dy * CELL });
  const steps = pts.slice(1).map((p, i) => step(pts[i], p));
  // The body reaches a little under the head and tail sprites: meeting them
  // edge to edge leaves a hairline seam where both are anti-aliased.
  const pieces = [[offset(centre(pts[0]), steps[0], 0.5 - OVERLAP)]];
  if (steps[0].wrapped) {
    pieces.push([offset(centre(pts[1]), steps[0], -0.5)]);
  }
  const last = pts.length - 1;
  for (let i = 1; i < last; i += 1) {
    const c = centre(pts[i]);
    pieces.at(-1).push(c);
    if (i === last - 1) {
      pieces.at(-1).push(offset(c, steps[i], 0.5 + OVERLAP));
    } else if (steps[i].wrapped) {
      pieces.at(-1).push(offset(c, steps[i], 0.5));
    }
    if (steps[i].wrapped && i < last - 1) {
      pieces.push([offset(centre(pts[i + 1]), steps[i], -0.5)]);
    }
  }
  const headStep = steps[0];
  const tailStep = steps[last - 1];
  return {
    pieces: pieces.filter((piece) => piece.length >= 2),
    head: { ...centre(pts[0]), dx: -headStep.dx, dy: -headStep.dy },
    tail: { ...centre(pts[last]), dx: tailStep.dx, dy: tailStep.dy },
  };
}

/** The transform that puts a 100 x 100 right-pointing sprite on a cell, facing (dx, dy). */
function spriteTransform(at) {
  const x = fmt(at.x - CELL / 2);
  const y = fmt(at.y - CELL / 2);
  const scale = `scale(${fmt(CELL / 100)})`;
  if (at.dx < 0) {
    // Mirrored rather than turned upside down, so a head facing left keeps its eye on top.
    return `translate(${x} ${y}) translate(${CELL} 0) scale(-1 1) ${scale}`;
  }
  const angle = at.dy > 0 ? -90 : at.dy < 0 ? 90 : 0;
  return `translate(${x} ${y}) rotate(${angle} ${CELL / 2} ${CELL / 2}) ${scale}`;
}

function spriteMarkup(paths, at, color, cls) {
  const inner = paths.map((d) => `<path d="${d}"/>`).join("");
  return `<g class="${cls}" fill="${color}" fill-rule="evenodd" transform="${spriteTransform(at)}">${inner}</g>`;
}

function snakeMarkup(snake, height, opacity) {
  const color = safeColor(snake.Color);
  const geo = snakeGeometry(snake.Body, height);
  if (!geo.head) {
    return "";
  }
  const parts = geo.pieces.map(
    (piece) =>
      `<path class="snake-body" d="M${piece.map((p) => `${fmt(p.x)} ${fmt(p.y)}`).join(" L")}" ` +
      `fill="none" stroke="${color}" stroke-width="${BODY_WIDTH}" stroke-linejoin="round"/>`,
  );
  if (geo.tail) {
    parts.push(spriteMarkup(tailPaths(snake.TailType), geo.tail, color, "snake-tail"));
  }
  parts.push(spriteMarkup(headPaths(snake.HeadType), geo.head, color, "snake-head"));
  const dead = snake.Death ? " eliminated" : "";
  const fade = opacity < 1 ? ` opacity="${opacity}"` : "";
  return `<g class="snake${dead}" data-snake-id="${escapeXml(snake.ID)}"${fade}>${parts.join("")}</g>`;
}

function onBoard(p, game) {
  return p.X >= 0 && p.Y >= 0 && p.X < game.Width && p.Y < game.Height;
}

/** How opaque a hazard cell is drawn with `stack` hazards on it: stacks are darker. */
export function hazardOpacity(stack) {
  return Math.min(0.3 + 0.15 * (stack - 1), 0.8);
}

/**
 * The SVG markup of `frame` on `game`'s board.
 *
 * Options: `showCoords` (column and row numbers), `highlight` (a snake id: the
 * others are faded).  Snakes eliminated on this very turn are drawn faded;
 * snakes eliminated earlier are not drawn.
 */
export function renderBoard(game, frame, { showCoords = false, highlight = null } = {}) {
  const w = game.Width;
  const h = game.Height;
  const left = showCoords ? LABEL : BORDER;
  const bottom = showCoords ? LABEL : BORDER;
  const totalW = left + w * CELL + BORDER;
  const totalH = BORDER + h * CELL + bottom;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="board-svg" viewBox="0 0 ${fmt(totalW)} ${fmt(totalH)}" ` +
      `data-turn="${frame.Turn}" data-wrapped="${isWrapped(game)}">`,
    `<rect class="board-bg" x="0" y="0" width="${fmt(totalW)}" height="${fmt(totalH)}" rx="${CELL / 4}"/>`,
    `<g transform="translate(${fmt(left)} ${BORDER})">`,
    `<clipPath id="sw-board-clip"><rect x="0" y="0" width="${w * CELL}" height="${h * CELL}"/></clipPath>`,
  ];
  const cell = (x, y, cls, extra = "") =>
    `<rect class="${cls}" x="${fmt(x * CELL + GAP)}" y="${fmt((h - 1 - y) * CELL + GAP)}" ` +
    `width="${fmt(CELL - 2 * GAP)}" height="${fmt(CELL - 2 * GAP)}" rx="${fmt(CELL * 0.12)}"${extra}/>`;
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      out.push(cell(x, y, "cell"));
    }
  }
  // Hazards may repeat to stack (each stack does damage) and, on some maps, lie
  // off the board; only on-board cells are drawn, once, darker per stack.
  const stacks = new Map();
  for (const p of frame.Hazards) {
    if (onBoard(p, game)) {
      const key = `${p.X},${p.Y}`;
      stacks.set(key, (stacks.get(key) ?? 0) + 1);
    }
  }
  for (const [key, n] of stacks) {
    const [x, y] = key.split(",").map(Number);
    out.push(cell(x, y, "hazard", ` fill-opacity="${fmt(hazardOpacity(n))}" data-stack="${n}"`));
  }
  for (const p of frame.Food) {
    if (onBoard(p, game)) {
      out.push(
        `<circle class="food" cx="${fmt((p.X + 0.5) * CELL)}" cy="${fmt((h - p.Y - 0.5) * CELL)}" ` +
          `r="${fmt(CELL * 0.28)}"/>`,
      );
    }
  }
  out.push('<g clip-path="url(#sw-board-clip)">');
  const shown = frame.Snakes.filter((s) => !s.Death || s.Death.Turn === frame.Turn);
  // Eliminated snakes first, so the living are drawn on top of them.
  const ordered = [...shown.filter((s) => s.Death), ...shown.filter((s) => !s.Death)];
  for (const snake of ordered) {
    let opacity = snake.Death ? 0.35 : 1;
    if (highlight && snake.ID !== highlight) {
      opacity *= 0.3;
    }
    out.push(snakeMarkup(snake, h, opacity));
  }
  out.push("</g>");
  if (showCoords) {
    for (let x = 0; x < w; x += 1) {
      out.push(
        `<text class="coord" x="${fmt((x + 0.5) * CELL)}" y="${fmt(h * CELL + LABEL * 0.6)}" ` +
          `text-anchor="middle" dominant-baseline="middle">${x}</text>`,
      );
    }
    for (let y = 0; y < h; y += 1) {
      out.push(
        `<text class="coord" x="${fmt(-LABEL * 0.5)}" y="${fmt((h - y - 0.5) * CELL)}" ` +
          `text-anchor="middle" dominant-baseline="middle">${y}</text>`,
      );
    }
  }
  out.push("</g></svg>");
  return out.join("");
}

/** A small picture of a snake's head facing right, for the scoreboard. */
export function renderAvatar(snake) {
  const color = safeColor(snake.Color);
  const paths = headPaths(snake.HeadType)
    .map((d) => `<path d="${d}"/>`)
    .join("");
  return (
    `<svg class="avatar" viewBox="0 0 100 100" aria-hidden="true">` +
    `<g fill="${color}" fill-rule="evenodd">${paths}</g></svg>`
  );
}
