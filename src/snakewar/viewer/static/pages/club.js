// What the pages that run a club share: a game's settings as form fields (from
// GET /api/catalogue), the entrants a game offers, the tournament formats' names,
// short dates, and copying a secret (a link, a password) that is shown once.
//
// The pure parts turn API data into field specs and request bodies (tested under
// Node); the DOM parts draw them.

import { el } from "./dom.js";

/** The tournament formats' names for people, by their API ids. */
export const FORMAT_NAMES = {
  single_elimination: "Single elimination",
  double_elimination: "Double elimination",
  round_robin: "Round robin",
  swiss: "Swiss",
};

/** A format's name for people ("Single elimination"), never its id. */
export function formatName(id) {
  const text = String(id ?? "");
  if (Object.hasOwn(FORMAT_NAMES, text)) {
    return FORMAT_NAMES[text];
  }
  const words = text.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** An ISO time as "YYYY-MM-DD HH:MM" (UTC, as the server writes it). */
export function shortTime(iso) {
  return iso ? String(iso).slice(0, 16).replace("T", " ") : "";
}

/**
 * The fields of a game's parameters, from its catalogue entry's `params`, showing
 * `values` (a ladder's current ones) or else the defaults:
 * `[{name, input, value, options, min, max, help}]`, `input` one of number, select,
 * checkbox, text.
 */
export function paramFields(params, values = {}) {
  return params.map((p) => {
    const value = Object.hasOwn(values, p.name) ? values[p.name] : p.default;
    const field = { name: p.name, help: p.help ?? "", options: [], min: null, max: null };
    if (p.kind === "bool") {
      return { ...field, input: "checkbox", value: Boolean(value) };
    }
    if (p.choices?.length) {
      return { ...field, input: "select", value: String(value), options: [...p.choices] };
    }
    if (p.kind === "int") {
      return { ...field, input: "number", value: String(value), min: p.minimum, max: p.maximum };
    }
    return { ...field, input: "text", value: String(value) };
  });
}

/**
 * The parameters a form sends: those whose value differs from `base` (a ladder's
 * current ones; left out: the defaults).  `raw` has the form's values by name
 * (strings; booleans for checkboxes).  A whole number goes as a number; anything
 * else typed in a number field goes as typed, for the server to name what is wrong.
 */
export function changedParams(params, raw, base = {}) {
  const out = {};
  for (const p of params) {
    if (!Object.hasOwn(raw, p.name)) {
      continue;
    }
    let value = raw[p.name];
    if (p.kind === "bool") {
      value = Boolean(value);
    } else if (p.kind === "int") {
      const text = String(value).trim();
      if (text === "") {
        continue;
      }
      value = /^-?[0-9]{1,15}$/.test(text) ? Number(text) : text;
    } else {
      value = String(value);
    }
    const before = Object.hasOwn(base, p.name) ? base[p.name] : p.default;
    if (value !== before) {
      out[p.name] = value;
    }
  }
  return out;
}

/** How many snakes a game of `game` may have (2 and up: rated games), at most `most`. */
export function gameSizes(game, most = 16) {
  return game.player_counts.filter((n) => n >= 2 && n <= most);
}

/**
 * The entrants a game offers a form: registered snakes of the game that are not
 * paused (`@owner/name`), then its built-in bots (`builtin:NAME`).  `[{value, label}]`.
 */
export function entrantChoices(game, snakes) {
  const registered = snakes
    .filter((s) => s.game === game.name && !s.paused)
    .map((s) => ({ value: s.ref, label: s.ref }));
  const bots = game.bots.map((b) => ({ value: `builtin:${b.name}`, label: `${b.name} (built-in)` }));
  return [...registered, ...bots];
}

/** A form's optional number field: its number, or `undefined` when left empty. */
export function optionalNumber(text) {
  const trimmed = String(text ?? "").trim();
  return trimmed === "" ? undefined : Number(trimmed);
}

/**
 * Add a ladder's or tournament's form's optional timeout, turn limit and seed to `body`
 * (the API spells the turn limit `maxTurns`); returns `body`.
 */
export function addMatchOptions(body, values) {
  for (const [field, key] of [["timeout", "timeout"], ["max_turns", "maxTurns"]]) {
    const number = optionalNumber(values[field]);
    if (number !== undefined) {
      body[key] = number;
    }
  }
  const seed = String(values.seed ?? "").trim();
  if (seed !== "") {
    body.seed = seed;
  }
  return body;
}

/** Replace the options of `select` with `choices` (`[{value, label}]` or plain values). */
export function fillSelect(select, choices, selected) {
  select.replaceChildren(
    ...choices.map((choice) => {
      const { value, label } = typeof choice === "object" ? choice : { value: choice, label: choice };
      const option = el("option", label);
      option.value = String(value);
      option.selected = String(value) === String(selected);
      return option;
    }),
  );
}

/** Draw `fields` (from `paramFields`) as labelled inputs in `container`. */
export function drawParams(container, fields) {
  container.replaceChildren(
    ...fields.map((field) => {
      const label = el("label", field.name);
      label.title = field.help;
      let input;
      if (field.input === "select") {
        input = document.createElement("select");
        fillSelect(input, field.options, field.value);
      } else {
        input = document.createElement("input");
        if (field.input === "checkbox") {
          input.type = "checkbox";
          input.checked = field.value;
          label.className = "check";
        } else {
          input.type = field.input;
          input.value = field.value;
          if (field.min !== null && field.min !== undefined) {
            input.min = String(field.min);
          }
          if (field.max !== null && field.max !== undefined) {
            input.max = String(field.max);
          }
        }
      }
      input.dataset.param = field.name;
      input.dataset.testid = `param-${field.name}`;
      label.append(input);
      return label;
    }),
  );
}

/** The values of the parameter inputs drawn in `container`, by name. */
export function readParams(container) {
  const raw = {};
  for (const input of container.querySelectorAll("[data-param]")) {
    raw[input.dataset.param] = input.type === "checkbox" ? input.checked : input.value;
  }
  return raw;
}

/**
 * Copy the text of `input` (a link or a password shown once): the clipboard where
 * the browser allows it (HTTPS, localhost), else the old way; either way the text is
 * left selected, to copy by hand.  Resolves to whether it was copied.
 */
export async function copyText(input) {
  input.focus();
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);
    return true;
  } catch {
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}
