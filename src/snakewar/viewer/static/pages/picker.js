// The new-game page's picker: registered snakes (GET /api/snakes/directory, searched as
// one types) and the game's built-in bots in one searchable list; picking one adds it
// to the game's entrants (the form's list, one a line), so nobody types a URL or a
// name.  `?challenge=@owner/name` opens the page with that snake in the game, beside
// the challenger's own first snake of its game (or a built-in).

import { fetchJson } from "./dom.js";

/** The built-ins that match `query` (every word in the name), as choices. */
export function builtinChoices(builtins, query) {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return builtins
    .filter((b) => words.every((w) => b.toLowerCase().includes(w)))
    .map((b) => ({ value: b, label: b, kind: "built-in" }));
}

/** A registered snake as a choice: its reference, its owner and tags in the label. */
export function snakeChoice(snake) {
  const tags = [snake.language, ...(snake.tags ?? [])].filter(Boolean).join(", ");
  return { value: snake.ref, label: `${snake.ref}${tags ? ` (${tags})` : ""}`, kind: "snake" };
}

/** The entrants' text with `value` added as one more line. */
export function withEntrant(text, value) {
  const lines = String(text ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  return [...lines, value].join("\n");
}

/** The entrants' text without its line `index` (0 first). */
export function withoutEntrant(text, index) {
  const lines = String(text ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  lines.splice(index, 1);
  return lines.join("\n");
}

/**
 * The entrants of a challenge to `challenged`: it, then the challenger's own first
 * snake of the game (`mine`: their snakes' references) or else `builtin`.
 */
export function challengeEntrants(challenged, mine, builtin) {
  const own = mine.find((ref) => ref !== challenged);
  return [challenged, own ?? builtin].filter(Boolean).join("\n");
}

/** The game's entrants as the form holds them, for the chosen list. */
export function entrantLines(text) {
  return String(text ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
}

function item(text, testid) {
  const li = document.createElement("li");
  li.dataset.testid = testid;
  li.append(document.createTextNode(text));
  return li;
}

function button(label, testid, action) {
  const node = document.createElement("button");
  node.type = "button";
  node.className = "inline";
  node.textContent = label;
  node.dataset.testid = testid;
  node.addEventListener("click", action);
  return node;
}

/**
 * Mount the picker in `root` (its `data-game`, `data-builtins` JSON, `data-me`) for
 * the entrants' `textarea`.
 */
export async function mountPicker(root, textarea) {
  const game = root.dataset.game;
  const builtins = JSON.parse(root.dataset.builtins || "[]");
  const search = root.querySelector("[data-picker-search]");
  const results = root.querySelector("[data-picker-results]");
  const chosen = root.querySelector("[data-picker-chosen]");
  let asked = 0;

  const drawChosen = () => {
    chosen.replaceChildren(
      ...entrantLines(textarea.value).map((line, i) => {
        const li = item(`${line} `, "picker-chosen-item");
        li.append(
          button("Remove", "picker-remove", () => {
            textarea.value = withoutEntrant(textarea.value, i);
            drawChosen();
          }),
        );
        return li;
      }),
    );
  };

  const find = async () => {
    const ticket = ++asked;
    const query = new URLSearchParams({ q: search.value.trim(), game, limit: "20" });
    const answer = await fetchJson(`/api/snakes/directory?${query}`);
    if (ticket !== asked) {
      return;
    }
    const snakes = answer.ok ? answer.data.snakes.filter((s) => !s.paused) : [];
    const choices = [...snakes.map(snakeChoice), ...builtinChoices(builtins, search.value)];
    results.replaceChildren(
      ...choices.map((choice) => {
        const li = item(`${choice.label} `, "picker-result");
        li.dataset.value = choice.value;
        li.append(
          button("Add", "picker-add", () => {
            textarea.value = withEntrant(textarea.value, choice.value);
            drawChosen();
          }),
        );
        return li;
      }),
    );
  };

  let typing = null;
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(find, 200);
  });
  textarea.addEventListener("input", drawChosen);

  const challenged = new URLSearchParams(window.location.search).get("challenge");
  if (challenged) {
    const mine = await fetchJson(`/api/snakes?${new URLSearchParams({ game, mine: "true" })}`);
    const refs = mine.ok ? mine.data.filter((s) => !s.paused).map((s) => s.ref) : [];
    textarea.value = challengeEntrants(challenged, refs, builtins[0] ?? "");
  }
  drawChosen();
  await find();
}
