// The snake directory: GET /api/snakes/directory searched as one types, a page at a time;
// each snake links to its page and its owner's, and a member may challenge it (the
// new-game page, opened with it in the game).

import { detailText, el, fetchJson } from "./dom.js";
import { challengeUrl, tagsText } from "./profiles.js";

const PAGE = 50;

/** The directory's query for a search (`q`, `game`) and a page. */
export function directoryQuery(q, game, offset) {
  const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (q.trim()) {
    query.set("q", q.trim());
  }
  if (game) {
    query.set("game", game);
  }
  return query.toString();
}

function link(text, href, testid) {
  const a = el("a", text);
  a.href = href;
  if (testid) {
    a.dataset.testid = testid;
  }
  return a;
}

function snakeRow(snake, canPlay, defaultGame) {
  const tr = el("tr");
  tr.dataset.testid = "directory-row";
  tr.dataset.ref = snake.ref;
  const cells = [
    link(snake.name, `/snakes/${snake.id}`, "directory-snake"),
    link(snake.owner, `/users/${encodeURIComponent(snake.owner)}`),
    el("span", snake.game),
    el("span", tagsText(snake)),
  ];
  for (const node of cells) {
    const td = el("td");
    td.append(node);
    tr.append(td);
  }
  const action = el("td");
  if (canPlay) {
    const challenge = link("Challenge", challengeUrl(snake, defaultGame), "challenge");
    challenge.className = "button";
    action.append(challenge);
  }
  tr.append(action);
  return tr;
}

function start() {
  const form = document.getElementById("directory");
  const canPlay = form.dataset.canPlay === "yes";
  const defaultGame = form.dataset.defaultGame;
  const tbody = document.getElementById("snakes");
  const more = document.getElementById("more");
  const count = document.getElementById("directory-count");
  const error = document.getElementById("error");
  let next = 0;
  let asked = 0; // answers to an older search are dropped

  const load = async (fresh) => {
    const ticket = ++asked;
    const offset = fresh ? 0 : next;
    const answer = await fetchJson(
      `/api/snakes/directory?${directoryQuery(form.q.value, form.game.value, offset)}`,
    );
    if (ticket !== asked) {
      return;
    }
    if (!answer.ok) {
      error.textContent = detailText(answer.data, answer.status);
      return;
    }
    error.textContent = "";
    const rows = answer.data.snakes.map((s) => snakeRow(s, canPlay, defaultGame));
    if (fresh) {
      tbody.replaceChildren(...rows);
    } else {
      tbody.append(...rows);
    }
    const total = answer.data.total;
    count.textContent = total ? `${total} snake${total === 1 ? "" : "s"}` : "No snake found.";
    next = answer.data.next_offset;
    more.hidden = next === null;
  };

  let typing = null;
  form.q.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => load(true), 200);
  });
  form.game.addEventListener("change", () => load(true));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    load(true);
  });
  more.addEventListener("click", () => load(false));
  load(true);
}

if (typeof document !== "undefined") {
  start();
}
