// The new-game form: fills the map list from GET /api/maps (each map by its title),
// fits the board size to the chosen map, and POSTs the game to /api/games.  The seed is sent as the
// string typed: a 64-bit seed does not survive a JavaScript number.  The classic
// (2017/18) ruleset has its own settings, map and default size.  The referee's
// unofficial timing rules (a time bank, retry on timeout) are sent only when set.

import { detailText, fetchJson, postJson } from "../../viewer/pages/dom.js";
import { mountPicker } from "../../viewer/pages/picker.js";

const NUMBER_FIELDS = ["width", "height"];

const OFFICIAL_SETTINGS = [
  "foodSpawnChance",
  "minimumFood",
  "hazardDamagePerTurn",
  "shrinkEveryNTurns",
];

const CLASSIC_SETTINGS = ["maxFood", "snakeStartLength", "decHealthPoints"];

/** The settings fields that apply to `ruleset` (only those are sent). */
export function settingFields(ruleset) {
  return ruleset === "classic" ? CLASSIC_SETTINGS : OFFICIAL_SETTINGS;
}

/**
 * The map and size to switch to when the ruleset changes from `previous` to
 * `ruleset`: the classic game plays on its own map, 20x20 by default; leaving it
 * goes back to the standard map at 11x11.  `null`: keep the form as it is.
 */
export function rulesetBoard(ruleset, previous) {
  if (ruleset === "classic") {
    return { map: "classic", width: 20, height: 20 };
  }
  if (previous === "classic") {
    return { map: "standard", width: 11, height: 11 };
  }
  return null;
}

/**
 * The POST /api/games body from the form's values (strings, by field name): the
 * game's parameters under `params`, the request's own fields (timeout, seed) beside.
 * Numbers are sent as numbers, except the seed: it goes as the string typed
 * (trimmed; left out when empty, and the server picks one).
 */
export function buildBody(values) {
  const params = { ruleset: values.ruleset, map: values.map };
  for (const name of [...NUMBER_FIELDS, ...settingFields(values.ruleset)]) {
    params[name] = Number(values[name]);
  }
  // Not the official rules: sent only when asked for, so a plain game's body is unchanged.
  if (Number(values.timeBank) > 0) {
    params.timeBank = Number(values.timeBank);
  }
  if (values.retryTimeout === true) {
    params.retryTimeout = true;
  }
  const body = {
    snakes: String(values.snakes ?? "")
      .split("\n")
      .map((s) => s.trim())
      .filter(Boolean),
    params,
    timeout: Number(values.timeout),
  };
  const seed = String(values.seed ?? "").trim();
  if (seed !== "") {
    body.seed = seed;
  }
  return body;
}

/** The line under the map list: description, sizes and player counts. */
export function mapInfo(map) {
  const sizes = map.sizes === "any" ? "any size" : map.sizes.map((s) => s.join("x")).join(", ");
  return `${map.description} Sizes: ${sizes}. Players: ${map.min_players}-${map.max_players}.`;
}

/**
 * The board size to use with `map`: the chosen `[width, height]` when the map
 * takes it, otherwise the map's default size (11x11 where it takes that: leaving
 * Arcade Maze's 19x21 for Standard gives 11x11, not Standard's smallest, 7x7).
 */
export function fitSize(map, width, height) {
  if (map.sizes === "any" || map.sizes.length === 0) {
    return [width, height];
  }
  const fits = map.sizes.some(([w, h]) => w === width && h === height);
  if (fits) {
    return [width, height];
  }
  const [w, h] = map.default_size ?? map.sizes[0];
  return [w, h];
}

/** The maps as the list shows them: each by its title, in the order of the titles. */
export function mapChoices(maps) {
  return maps
    .map((map) => ({ id: map.id, title: map.title || map.name || map.id }))
    .sort((a, b) => a.title.localeCompare(b.title, "en"));
}

function formValues(form) {
  return Object.fromEntries(
    [...form.elements]
      .filter((field) => field.name)
      .map((field) => [field.name, field.type === "checkbox" ? field.checked : field.value]),
  );
}

async function start() {
  const form = document.getElementById("new-game");
  if (!form) {
    return; // a visitor who has not logged in sees no form
  }
  const error = document.getElementById("error");
  const select = document.getElementById("map");
  // The snake picker fills the entrants' list (a challenge opens it with the snake in).
  mountPicker(document.getElementById("picker"), form.snakes).catch((e) => {
    error.textContent = String(e.message);
  });
  let maps = [];
  // The map the form should show.  Kept apart from the select because a ruleset chosen
  // before the map list arrives must still pick its map once the options exist.
  let wantedMap = "standard";

  const showMap = () => {
    const map = maps.find((m) => m.id === select.value);
    if (!map) {
      return;
    }
    document.getElementById("map-info").textContent = mapInfo(map);
    const [width, height] = fitSize(map, Number(form.width.value), Number(form.height.value));
    form.width.value = width;
    form.height.value = height;
  };
  select.addEventListener("change", () => {
    wantedMap = select.value;
    showMap();
  });

  let ruleset = form.ruleset.value;
  form.ruleset.addEventListener("change", () => {
    const board = rulesetBoard(form.ruleset.value, ruleset);
    ruleset = form.ruleset.value;
    for (const label of form.querySelectorAll("[data-ruleset]")) {
      label.hidden = (label.dataset.ruleset === "classic") !== (ruleset === "classic");
    }
    if (board) {
      wantedMap = board.map;
      select.value = board.map;
      form.width.value = board.width;
      form.height.value = board.height;
      showMap();
    }
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "starting...";
    const { ok, status, data } = await postJson("/api/games", buildBody(formValues(form)));
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    window.location.href = data.viewer;
  });

  const listed = await fetchJson("/api/maps");
  if (!listed.ok) {
    error.textContent = detailText(listed.data, listed.status);
    return;
  }
  maps = listed.data;
  for (const map of mapChoices(maps)) {
    const option = document.createElement("option");
    option.value = map.id;
    option.textContent = map.title;
    option.selected = map.id === wantedMap;
    select.append(option);
  }
  showMap();
}

if (typeof document !== "undefined") {
  start();
}
