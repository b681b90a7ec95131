// The ladders list, from GET /api/ladders; for admins, the new-ladder form: a game of
// the catalogue (GET /api/catalogue), its settings, and POST /api/ladders.

import {
  addMatchOptions,
  changedParams,
  drawParams,
  fillSelect,
  gameSizes,
  paramFields,
  readParams,
} from "./club.js";
import { detailText, fetchJson, postJson, renderRows } from "./dom.js";

/** A ladder's row: its name (a link to its page), game, snakes and games played. */
export function ladderRow(ladder) {
  return {
    cells: [
      { text: ladder.name, href: `/ladders/${encodeURIComponent(ladder.name)}` },
      ladder.game ?? "",
      `${ladder.snakes} snakes`,
      `${ladder.games_played} games`,
      ladder.running ? "playing now" : "",
    ],
  };
}

/** Every ladder's row, or one row saying there is none yet. */
export function ladderRows(ladders) {
  if (ladders.length === 0) {
    return [{ cells: [{ text: "No ladders yet.", cls: "muted" }] }];
  }
  return ladders.map(ladderRow);
}

/**
 * The POST /api/ladders body from the form's `values` (strings by field name) and
 * the chosen game's catalogue entry: only the settings changed from the game's
 * defaults; the seed as typed (a 64-bit seed does not survive a JavaScript number).
 */
export function ladderBody(values, game, rawParams) {
  const body = {
    name: String(values.name ?? "").trim(),
    game: game.name,
    game_size: Number(values.game_size),
    params: changedParams(game.params, rawParams),
  };
  return addMatchOptions(body, values);
}

async function newLadderForm(form) {
  const error = form.querySelector(".error");
  const listed = await fetchJson("/api/catalogue");
  if (!listed.ok) {
    error.textContent = detailText(listed.data, listed.status);
    return;
  }
  const games = listed.data;
  const params = form.querySelector("[data-params]");
  const pick = () => games.find((g) => g.name === form.game.value) ?? games[0];
  const showGame = () => {
    const game = pick();
    fillSelect(form.game_size, gameSizes(game), gameSizes(game)[0]);
    drawParams(params, paramFields(game.params));
  };
  fillSelect(
    form.game,
    games.map((g) => ({ value: g.name, label: g.title })),
    games.find((g) => g.is_default)?.name,
  );
  form.game.addEventListener("change", showGame);
  showGame();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const values = Object.fromEntries(new FormData(form).entries());
    const body = ladderBody(values, pick(), readParams(params));
    const { ok, status, data } = await postJson("/api/ladders", body);
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    window.location.assign(`/ladders/${encodeURIComponent(data.name)}`);
  });
}

async function start() {
  const form = document.getElementById("new-ladder");
  if (form) {
    newLadderForm(form);
  }
  const { ok, status, data } = await fetchJson("/api/ladders");
  if (!ok) {
    document.getElementById("error").textContent = detailText(data, status);
    return;
  }
  renderRows(document.getElementById("ladders"), ladderRows(data));
}

if (typeof document !== "undefined") {
  start();
}
