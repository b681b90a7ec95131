// A game's per-entrant, per-turn latency chart on its page: one line per snake, in its
// colour, the timeout as a dashed line with a red mark where a call timed out, the turn
// the board shows highlighted, and the turn under the pointer told in words.  It reads
// the frames the game's viewer reads (`GET /api/games/{id}/frames`), live or stored, and
// shows itself only for frames that carry per-entrant latencies (`Snakes[].Latency`).
// The header's `timing` (the referee's unofficial timing rules) is shown as a badge.
//
// The pure parts (`latencySeries`, `timingBadge`, `turnText`, `chartScale`) are tested
// under Node; `startLatencyChart` draws them.

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 640;
const HEIGHT = 150;
const PAD = { left: 44, right: 10, top: 10, bottom: 20 };
const PAGE = 500; // frames per page of /frames (the route's most)
const POLL_MS = 1500;

/** The unofficial timing rules of a game's header `timing`, as a badge's text ("" if none). */
export function timingBadge(timing) {
  const parts = [];
  if (timing && Number(timing.timeBank) > 0) {
    parts.push(`bank ${Number(timing.timeBank)} ms`);
  }
  if (timing?.retryTimeout === true) {
    parts.push("retry on timeout");
  }
  return parts.length ? `unofficial timing: ${parts.join(", ")}` : "";
}

/** Whether an entrant of a frame was asked for the move that led to it. */
function wasAsked(snake) {
  if (typeof snake.CallStatus === "string") {
    return snake.CallStatus !== "";
  }
  // Frames stored before the status was kept: an entrant not asked has latency "0".
  return String(snake.Latency ?? "0") !== "0";
}

/** Whether an entrant's call, in a frame, timed out. */
function timedOut(snake) {
  if (typeof snake.CallStatus === "string") {
    return snake.CallStatus === "timeout";
  }
  return String(snake.Error ?? "").startsWith("timeout");
}

/**
 * The chart's data from a game's header and frames (in turn order, from turn 0):
 * `{timeout, badge, turns, series: [{id, name, color, points: [{turn, ms, timeout,
 * bank, retried}]}]}`, or null when the frames carry no per-entrant latency.
 *
 * A frame of turn N holds the calls made on turn N - 1 (the moves that led to it): a
 * point's `turn` is the turn the call was made on, as the request inspector numbers it.
 */
export function latencySeries(header, frames) {
  const byId = new Map();
  let turns = 0;
  let shaped = false;
  for (const frame of frames) {
    if (!frame || !Array.isArray(frame.Snakes)) {
      continue;
    }
    shaped = true;
    const turn = Number(frame.Turn) - 1;
    for (const snake of frame.Snakes) {
      if (!byId.has(snake.ID)) {
        byId.set(snake.ID, { id: snake.ID, name: snake.Name, color: snake.Color, points: [] });
      }
      const series = byId.get(snake.ID);
      series.name = snake.Name || series.name;
      series.color = snake.Color || series.color;
      if (turn < 0 || !wasAsked(snake)) {
        continue;
      }
      const ms = Number(snake.Latency);
      series.points.push({
        turn,
        ms: Number.isFinite(ms) ? ms : 0,
        timeout: timedOut(snake),
        bank: typeof snake.TimeBank === "number" ? snake.TimeBank : null,
        retried: snake.Retried === true,
      });
      turns = Math.max(turns, turn + 1);
    }
  }
  if (!shaped) {
    return null;
  }
  return {
    timeout: Number(header?.timeout) || 0,
    badge: timingBadge(header?.timing),
    turns,
    series: [...byId.values()],
  };
}

/** What the chart says about turn `turn`: each snake's latency or timeout on it. */
export function turnText(data, turn) {
  const parts = [];
  for (const series of data.series) {
    const point = series.points.find((p) => p.turn === turn);
    if (!point) {
      continue;
    }
    let text = point.timeout
      ? `${series.name} timed out after ${point.ms} ms`
      : `${series.name} ${point.ms} ms`;
    if (point.retried) {
      text += " (retried)";
    }
    if (point.bank !== null) {
      text += ` (bank left ${point.bank} ms)`;
    }
    parts.push(text);
  }
  return parts.length ? `Turn ${turn}: ${parts.join(" · ")}` : `Turn ${turn}: no calls`;
}

/**
 * The chart's scales: `x(turn)` and `y(ms)` in the SVG's coordinates, and `turnAt(x)`
 * back.  The y axis reaches past the timeout, or the slowest call (a time bank lets a
 * call run past the timeout).
 */
export function chartScale(data, width = WIDTH, height = HEIGHT) {
  const slowest = Math.max(0, ...data.series.flatMap((s) => s.points.map((p) => p.ms)));
  const top = Math.max(1, Math.ceil(Math.max(data.timeout * 1.15, slowest * 1.05)));
  const last = Math.max(1, data.turns - 1);
  const inner = width - PAD.left - PAD.right;
  const tall = height - PAD.top - PAD.bottom;
  return {
    top,
    x: (turn) => PAD.left + (turn / last) * inner,
    y: (ms) => PAD.top + tall - (Math.min(ms, top) / top) * tall,
    turnAt: (x) => Math.max(0, Math.min(last, Math.round(((x - PAD.left) / inner) * last))),
  };
}

function svg(tag, attributes = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) {
    node.setAttribute(key, String(value));
  }
  return node;
}

function draw(chart, data) {
  // Drawn at the size it is shown (one SVG unit a CSS pixel): text keeps its size.
  const width = Math.max(200, Math.round(chart.clientWidth) || WIDTH);
  const height = Math.max(80, Math.round(chart.clientHeight) || HEIGHT);
  chart.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const scale = chartScale(data, width, height);
  const nodes = [];
  nodes.push(
    svg("line", {
      x1: PAD.left,
      x2: PAD.left,
      y1: PAD.top,
      y2: height - PAD.bottom,
      class: "axis",
    }),
  );
  const topLabel = svg("text", { x: PAD.left - 4, y: PAD.top + 8, "text-anchor": "end" });
  topLabel.textContent = `${scale.top} ms`;
  const zero = svg("text", { x: PAD.left - 4, y: height - PAD.bottom, "text-anchor": "end" });
  zero.textContent = "0";
  const turnLabel = svg("text", { x: width - PAD.right, y: height - 4, "text-anchor": "end" });
  turnLabel.textContent = `turn ${Math.max(0, data.turns - 1)}`;
  nodes.push(topLabel, zero, turnLabel);
  if (data.timeout > 0) {
    const y = scale.y(data.timeout);
    nodes.push(
      svg("line", {
        x1: PAD.left,
        x2: width - PAD.right,
        y1: y,
        y2: y,
        class: "timeout-line",
        "data-testid": "timeout-line",
      }),
    );
    const label = svg("text", { x: width - PAD.right, y: y - 3, "text-anchor": "end" });
    label.textContent = `timeout ${data.timeout} ms`;
    nodes.push(label);
  }
  for (const series of data.series) {
    if (!series.points.length) {
      continue;
    }
    const line = svg("polyline", {
      points: series.points.map((p) => `${scale.x(p.turn)},${scale.y(p.ms)}`).join(" "),
      fill: "none",
      stroke: series.color || "#888888",
      "stroke-width": 1.5,
      "data-testid": "latency-series",
      "data-snake": series.id,
    });
    const title = svg("title");
    title.textContent = series.name;
    line.append(title);
    nodes.push(line);
    for (const point of series.points.filter((p) => p.timeout)) {
      // A red mark on the timeout line (or where a banked call gave up, above it).
      nodes.push(
        svg("rect", {
          x: scale.x(point.turn) - 2,
          y: scale.y(Math.max(point.ms, data.timeout)) - 5,
          width: 4,
          height: 10,
          fill: "#d32f2f",
          class: "timeout-mark",
          "data-testid": "timeout-mark",
          "data-snake": series.id,
          "data-turn": point.turn,
        }),
      );
    }
  }
  const cursor = svg("line", {
    y1: PAD.top,
    y2: height - PAD.bottom,
    class: "cursor",
    "data-testid": "latency-cursor",
  });
  nodes.push(cursor);
  chart.replaceChildren(...nodes);
  return { scale, cursor, width };
}

/**
 * Draw game `id`'s latency chart into `#latency` (if the page has one), following the
 * board in `frame` (the turn it shows) and, while the game runs, its new frames.
 */
export function startLatencyChart(id, frame) {
  const box = document.getElementById("latency");
  if (!box) {
    return;
  }
  const badge = box.querySelector("[data-timing-badge]");
  const chart = box.querySelector("svg");
  const tip = box.querySelector("[data-latency-tip]");
  let header = null;
  const frames = [];
  let drawn = null;
  let data = null;
  let shown = 0;
  let hovered = null;

  function tell() {
    if (!data) {
      return;
    }
    const turn = hovered ?? shown;
    tip.textContent = turnText(data, turn);
    if (drawn) {
      const x = drawn.scale.x(Math.min(shown, Math.max(0, data.turns - 1)));
      drawn.cursor.setAttribute("x1", String(x));
      drawn.cursor.setAttribute("x2", String(x));
    }
  }

  function redraw() {
    data = latencySeries(header, frames);
    if (!data) {
      return;
    }
    box.hidden = false;
    badge.textContent = data.badge;
    badge.hidden = !data.badge;
    drawn = data.turns > 0 ? draw(chart, data) : null;
    tell();
  }

  chart.addEventListener("mousemove", (event) => {
    if (!drawn) {
      return;
    }
    const rect = chart.getBoundingClientRect();
    const x = ((event.clientX - rect.left) / rect.width) * drawn.width;
    hovered = drawn.scale.turnAt(x);
    tell();
  });
  window.addEventListener("resize", () => data && redraw());
  box.addEventListener("toggle", () => box.open && data && redraw());
  chart.addEventListener("mouseleave", () => {
    hovered = null;
    tell();
  });
  frame?.addEventListener("boardturn", (event) => {
    const turn = Number(event.detail?.turn);
    if (Number.isInteger(turn) && turn >= 0) {
      shown = turn;
      tell();
    }
  });

  async function fetchPage() {
    const url = `/api/games/${encodeURIComponent(id)}/frames?offset=${frames.length}&limit=${PAGE}`;
    try {
      const response = await fetch(url);
      return response.ok ? await response.json() : null;
    } catch {
      return null;
    }
  }

  async function follow() {
    let page = await fetchPage();
    let fresh = true;
    while (page) {
      header ??= page.header;
      const got = page.frames ?? [];
      frames.push(...got);
      fresh ||= got.length > 0;
      if (frames.length < page.count && got.length > 0) {
        page = await fetchPage();
        continue;
      }
      if (fresh) {
        redraw();
        fresh = false;
      }
      if (page.status !== "running" && page.status !== "starting") {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      page = await fetchPage();
    }
    // An error answer: try again later, as the page's poll does.
    setTimeout(follow, POLL_MS * 4);
  }

  follow();
}
