// The position editor: draw a Battlesnake board or paste one, have the server check it
// (POST /api/battlesnake/position), see it as the board viewer draws it, save it for
// `snakewar play --from-position`, or play a game from it (POST /api/games, position).
//
// The page keeps the board being drawn; every change is checked by the server, whose
// answer (the normalised position, or the field at fault) is what is shown and saved.

import { detailText, el, postJson } from "../../viewer/pages/dom.js";
import { normalizeFrame, normalizeGame } from "../frames.js";
import { renderBoard } from "../render.js";

const SNAKE_COLORS = ["#1e88e5", "#fb8c00", "#8e24aa", "#00acc1", "#fdd835", "#6d4c41"];
const MAX_SNAKES = 16;

/** A fresh board: `width` x `height`, no food, one snake with nothing drawn yet. */
export function emptyBoard(width = 11, height = 11) {
  return { width, height, turn: 0, food: [], hazards: [], snakes: [newSnake(0)] };
}

function newSnake(index) {
  return { name: `snake ${index + 1}`, health: 100, body: [] };
}

const same = (a) => (b) => a[0] === b[0] && a[1] === b[1];

/**
 * The board after a click on cell `[x, y]` with `tool` (`snake`: the cell goes to the
 * end of snake `current`'s body, head first; `food`/`hazard`: toggled; `erase`: cleared).
 */
export function applyTool(board, tool, current, point) {
  const next = structuredClone(board);
  const at = same(point);
  if (tool === "food" || tool === "hazard") {
    const key = tool === "food" ? "food" : "hazards";
    next[key] = next[key].some(at) ? next[key].filter((p) => !at(p)) : [...next[key], point];
  } else if (tool === "erase") {
    next.food = next.food.filter((p) => !at(p));
    next.hazards = next.hazards.filter((p) => !at(p));
    for (const snake of next.snakes) {
      snake.body = snake.body.filter((p) => !at(p));
    }
  } else if (next.snakes[current]) {
    next.snakes[current].body.push(point);
  }
  return next;
}

/** The position the server takes (Snakewar's shape) for the board drawn. */
export function positionOf(board) {
  return {
    format: "snakewar-position",
    version: 1,
    state: {
      turn: board.turn,
      width: board.width,
      height: board.height,
      food: board.food,
      hazards: board.hazards,
      snakes: board.snakes.map((s, i) => ({
        id: `s${i + 1}`,
        body: s.body,
        health: s.health,
        eliminated_cause: "",
      })),
    },
    names: board.snakes.map((s) => s.name),
  };
}

/** The board drawn from a checked (normalised) position: its alive snakes. */
export function boardOf(position) {
  const state = position.state;
  const names = position.names ?? [];
  const snakes = state.snakes
    .map((s, i) => ({ ...s, name: names[i] || `snake ${i + 1}` }))
    .filter((s) => !s.eliminated_cause)
    .map((s) => ({ name: s.name, health: s.health, body: s.body }));
  return {
    width: state.width,
    height: state.height,
    turn: state.turn,
    food: state.food,
    hazards: state.hazards,
    snakes: snakes.length ? snakes : [newSnake(0)],
  };
}

function start() {
  const root = document.getElementById("editor");
  if (!root) {
    return;
  }
  const $ = (id) => document.getElementById(id);
  const grid = $("editor-grid");
  const picker = $("editor-snake");
  const health = $("editor-health");
  const error = $("editor-error");
  const status = $("editor-status");
  const save = $("editor-save");
  const play = $("editor-play");
  const seats = $("editor-snakes");
  let board = emptyBoard();
  let current = 0;
  let checked = null;
  let asked = 0;

  const tool = () => root.querySelector("input[name=tool]:checked")?.value ?? "snake";

  function drawGrid() {
    grid.replaceChildren();
    grid.style.gridTemplateColumns = `repeat(${board.width}, 1fr)`;
    for (let y = board.height - 1; y >= 0; y -= 1) {
      for (let x = 0; x < board.width; x += 1) {
        const cell = el("button");
        cell.type = "button";
        cell.dataset.testid = `cell-${x}-${y}`;
        cell.title = `(${x}, ${y})`;
        const at = same([x, y]);
        if (board.food.some(at)) {
          cell.classList.add("food");
        }
        if (board.hazards.some(at)) {
          cell.classList.add("hazard");
        }
        board.snakes.forEach((snake, i) => {
          const index = snake.body.findIndex(at);
          if (index >= 0) {
            cell.classList.add("snake");
            cell.style.background = SNAKE_COLORS[i % SNAKE_COLORS.length];
            cell.textContent = index === 0 ? String(i + 1) : "";
          }
        });
        cell.addEventListener("click", () => change(applyTool(board, tool(), current, [x, y])));
        grid.append(cell);
      }
    }
  }

  function drawPicker() {
    picker.replaceChildren(
      ...board.snakes.map((snake, i) => {
        const option = el("option", `${i + 1}: ${snake.name} (${snake.body.length} cells)`);
        option.value = String(i);
        return option;
      }),
    );
    picker.value = String(current);
    health.value = String(board.snakes[current]?.health ?? 100);
    $("editor-width").value = String(board.width);
    $("editor-height").value = String(board.height);
    $("editor-turn").value = String(board.turn);
    if (seats && seats.dataset.typed !== "1") {
      seats.value = board.snakes.map(() => "builtin:random").join("\n");
    }
  }

  async function check() {
    const ask = ++asked;
    const { ok, status: code, data } = await postJson("/api/battlesnake/position", {
      position: positionOf(board),
    });
    if (ask !== asked) {
      return; // a newer edit is being checked
    }
    checked = ok ? data.position : null;
    save.disabled = !ok;
    if (play) {
      play.disabled = !ok;
    }
    if (!ok) {
      error.textContent = detailText(data, code);
      status.textContent = "";
      return;
    }
    error.textContent = "";
    status.textContent = `A valid position: ${data.position.state.snakes.length} snakes.`;
    $("editor-board").innerHTML = renderBoard(
      normalizeGame(data.game),
      normalizeFrame(data.frame),
      { showCoords: true },
    );
  }

  function change(next) {
    board = next;
    current = Math.min(current, board.snakes.length - 1);
    drawGrid();
    drawPicker();
    check();
  }

  root.addEventListener("change", (event) => {
    // The paste box is read by "Load" only: leaving it changes nothing drawn.
    if (event.target.name === "tool" || event.target.id === "editor-paste") {
      return;
    }
    const number = (id, low, high) => {
      const value = Number($(id).value);
      return Number.isInteger(value) ? Math.min(Math.max(value, low), high) : low;
    };
    if (event.target === picker) {
      current = Number(picker.value);
      drawPicker();
      return;
    }
    const next = structuredClone(board);
    next.width = number("editor-width", 1, 25);
    next.height = number("editor-height", 1, 25);
    next.turn = number("editor-turn", 0, 1_000_000);
    if (next.snakes[current]) {
      next.snakes[current].health = number("editor-health", 1, 100);
    }
    if (event.target === seats) {
      seats.dataset.typed = "1";
      return;
    }
    change(next);
  });
  $("editor-add-snake").addEventListener("click", () => {
    if (board.snakes.length >= MAX_SNAKES) {
      error.textContent = `At most ${MAX_SNAKES} snakes.`;
      return;
    }
    const next = structuredClone(board);
    next.snakes.push(newSnake(next.snakes.length));
    current = next.snakes.length - 1;
    change(next);
  });
  $("editor-clear-snake").addEventListener("click", () => {
    const next = structuredClone(board);
    if (next.snakes[current]) {
      next.snakes[current].body = [];
    }
    change(next);
  });
  $("editor-load").addEventListener("click", async () => {
    let value;
    try {
      value = JSON.parse($("editor-paste").value);
    } catch (exc) {
      error.textContent = `Not JSON: ${exc.message}`;
      return;
    }
    // A newer ask than any check still under way: their late answers are dropped (a
    // slow first check must not overwrite what this load says), as is this one's if an
    // edit comes after it.
    const ask = ++asked;
    const { ok, status: code, data } = await postJson("/api/battlesnake/position", {
      position: value,
    });
    if (ask !== asked) {
      return;
    }
    if (!ok) {
      error.textContent = detailText(data, code);
      return;
    }
    current = 0;
    change(boardOf(data.position));
  });
  save.addEventListener("click", () => {
    if (!checked) {
      return;
    }
    const blob = new Blob([`${JSON.stringify(checked, null, 2)}\n`], { type: "application/json" });
    const link = el("a");
    link.href = URL.createObjectURL(blob);
    link.download = "position.json";
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  });
  play?.addEventListener("click", async () => {
    if (!checked) {
      return;
    }
    play.disabled = true;
    const snakes = seats.value
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
    const { ok, status: code, data } = await postJson("/api/games", { snakes, position: checked });
    if (ok) {
      window.location.href = data.viewer;
      return;
    }
    error.textContent = detailText(data, code);
    play.disabled = false;
  });
  drawGrid();
  drawPicker();
  check();
}

if (typeof document !== "undefined") {
  start();
}
