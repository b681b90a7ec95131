// The tournaments list, from GET /api/tournaments, in four parts by phase: registering
// (people may enter now), upcoming, running and finished; for admins, the
// new-tournament form: a game of the catalogue, a format, entrants (registered snakes
// and built-ins, ticked in seed order, and more typed), heat size, best of, the game's
// settings, who may enter it and until when, its caps, a start time for the
// scheduler, and POST /api/tournaments, started now or later from its page.

import {
  addMatchOptions,
  changedParams,
  drawParams,
  entrantChoices,
  fillSelect,
  formatName,
  gameSizes,
  optionalNumber,
  paramFields,
  readParams,
  shortTime,
} from "./club.js";
import { detailText, el, fetchJson, postJson, renderRows } from "./dom.js";

/**
 * A tournament's state for the list: broken (its stored games do not fit its bracket,
 * so no server can play it on), not started, playing, its champion, or waiting.
 */
export function stateText(t) {
  if (t.error) {
    return `Cannot be played on: ${t.error}`;
  }
  if (t.finished) {
    return `Champion: ${t.champion}`;
  }
  if (t.running) {
    return "Playing now";
  }
  if (t.started) {
    return "Stopped: play it on from its page";
  }
  return t.registration_open ? "Taking entries" : "Not started";
}

/**
 * A tournament's row: its name (a link to its page), game, format, entrants, state, and
 * when registration closes or it starts (when known).
 */
export function tournamentRow(t) {
  const when = whenText(t);
  return {
    testid: "tournament-row",
    cells: [
      { text: t.name, href: t.page },
      t.game,
      formatName(t.format),
      `${t.entrants} snakes`,
      when ? `${stateText(t)} · ${when}` : stateText(t),
    ],
  };
}

/** Every tournament's row, or one row saying there is none yet. */
export function tournamentRows(list, empty = "No tournaments yet.") {
  if (list.length === 0) {
    return [{ cells: [{ text: empty, cls: "muted" }] }];
  }
  return list.map(tournamentRow);
}

/** The list's parts, in the order the page shows them. */
export const PHASES = ["registering", "upcoming", "running", "finished"];

/** The tournaments of each phase (`{registering: [...], ...}`), in the API's order. */
export function byPhase(list) {
  const parts = Object.fromEntries(PHASES.map((phase) => [phase, []]));
  for (const t of list) {
    (parts[t.phase] ?? parts.upcoming).push(t);
  }
  return parts;
}

/**
 * When a tournament happens, for the list: registration open (until when), its start
 * time, or nothing.  `at` shows a time (`shortTime`).
 */
export function whenText(t, at = shortTime) {
  const parts = [];
  if (t.registration_open) {
    parts.push(
      t.registration_closes_at ? `entries close ${at(t.registration_closes_at)}` : "entries open",
    );
  }
  if (t.starts_at && !t.started) {
    parts.push(`starts ${at(t.starts_at)}`);
  }
  return parts.join(" · ");
}

/** A time typed in a `datetime-local` field as the API takes it (ISO, UTC), or `undefined`. */
export function isoTime(local) {
  const text = String(local ?? "").trim();
  if (text === "") {
    return undefined;
  }
  const when = new Date(text);
  return Number.isNaN(when.getTime()) ? text : when.toISOString();
}

/**
 * Add the form's entry settings to `body`: who enters (`registration`), until when,
 * the caps, the scheduler's start time and the gap between rounds (each only if given).
 */
export function addEntrySettings(body, values) {
  if (values.registration) {
    body.registration = values.registration;
  }
  for (const [field, key] of [
    ["closes_at", "registration_closes_at"],
    ["starts_at", "starts_at"],
  ]) {
    const when = isoTime(values[field]);
    if (when !== undefined) {
      body[key] = when;
    }
  }
  for (const key of ["max_entrants", "per_owner", "round_gap_s"]) {
    const number = optionalNumber(values[key]);
    if (number !== undefined) {
      body[key] = number;
    }
  }
  return body;
}

/**
 * The POST /api/tournaments body: `values` are the form's fields (strings), `ticked`
 * the entrants ticked in the list (in its order), then one per line of `more`.
 * Only the game's settings changed from its defaults are sent; the seed as typed.
 */
export function tournamentBody(values, ticked, game, rawParams) {
  const more = String(values.more ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const body = {
    name: String(values.name ?? "").trim(),
    game: game.name,
    format: values.format,
    snakes: [...ticked, ...more],
    heat_size: Number(values.heat_size),
    best_of: Number(values.best_of),
    params: changedParams(game.params, rawParams),
    start: values.start === "on" || values.start === true,
  };
  return addEntrySettings(addMatchOptions(body, values), values);
}

function drawChoices(container, choices) {
  container.replaceChildren(
    ...choices.map((choice) => {
      const label = el("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.value = choice.value;
      box.dataset.testid = `entrant-${choice.value}`;
      label.append(box, document.createTextNode(` ${choice.label}`));
      return label;
    }),
  );
}

async function newTournamentForm(form) {
  const error = form.querySelector(".error");
  const [catalogue, snakes] = await Promise.all([
    fetchJson("/api/catalogue"),
    fetchJson("/api/snakes"),
  ]);
  if (!catalogue.ok || !snakes.ok) {
    const failed = catalogue.ok ? snakes : catalogue;
    error.textContent = detailText(failed.data, failed.status);
    return;
  }
  const games = catalogue.data;
  const params = form.querySelector("[data-params]");
  const choices = document.getElementById("entrant-choices");
  const pick = () => games.find((g) => g.name === form.game.value) ?? games[0];
  const showGame = () => {
    const game = pick();
    const sizes = gameSizes(game, 8);
    fillSelect(form.heat_size, sizes, sizes[0]);
    drawParams(params, paramFields(game.params));
    drawChoices(choices, entrantChoices(game, snakes.data));
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
    const ticked = [...choices.querySelectorAll("input:checked")].map((box) => box.value);
    const body = tournamentBody(values, ticked, pick(), readParams(params));
    const { ok, status, data } = await postJson("/api/tournaments", body);
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    window.location.assign(data.page);
  });
}

async function start() {
  const form = document.getElementById("new-tournament");
  if (form) {
    newTournamentForm(form);
  }
  const { ok, status, data } = await fetchJson("/api/tournaments");
  if (!ok) {
    document.getElementById("error").textContent = detailText(data, status);
    return;
  }
  const parts = byPhase(data);
  for (const phase of PHASES) {
    renderRows(
      document.getElementById(`tournaments-${phase}`),
      tournamentRows(parts[phase], `No ${phase} tournaments.`),
    );
  }
}

if (typeof document !== "undefined") {
  start();
}
