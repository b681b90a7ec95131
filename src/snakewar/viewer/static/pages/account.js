// Your account: your registered snakes (register, play, delete) and API tokens.  Deleting
// a snake or revoking a token asks first, in the page's dialog.

import { detailText, el, fetchJson, postJson } from "./dom.js";

/**
 * An uploaded bot's language and build, in a few words: "cpp: built", "java: build
 * failed: javac failed; the log says why" ("" for a snake that is no upload).
 */
export function buildText(snake) {
  if (snake.kind !== "upload") {
    return "";
  }
  const language = snake.language ?? "?";
  if (snake.build_status === "ready") {
    return `${language}: built`;
  }
  if (snake.build_status === "failed") {
    return `${language}: build failed${snake.build_error ? `: ${snake.build_error}` : ""}`;
  }
  return snake.build_status === "building" ? `${language}: being built` : language;
}

/** Whether one of `snakes` is being built (the page then asks again until none is). */
export function anyBuilding(snakes) {
  return snakes.some((snake) => snake.kind === "upload" && snake.build_status === "building");
}

/** How often the page asks again while one of its snakes is being built. */
export const POLL_MS = 1000;

let polling = null; // the timer of the next refresh, while a build runs

/** A snake's row: reference, game, URL (an upload: its build), visibility and state. */
export function snakeCells(snake) {
  return [
    snake.ref,
    snake.game,
    snake.url ?? buildText(snake),
    snake.visibility,
    snake.paused ? "paused" : "",
  ];
}

/** The upload URL of a bot archive named `name` in `language` ("": told from its files). */
export function uploadUrl(name, language) {
  const fields = { name: String(name).trim() };
  if (language) {
    fields.language = language;
  }
  return `/api/snakes/upload?${new URLSearchParams(fields)}`;
}

/**
 * The body of "play it against a built-in": a short game of the bot's own game against
 * that game's trial bot (`trialBots`, by game: what the server's catalogue names).
 */
export function trialGame(snake, trialBots) {
  const opponent = trialBots[snake.game] ?? "builtin:random";
  return { game: snake.game, snakes: [snake.ref, opponent], maxTurns: 100 };
}

/** The trial bots the page was given (`data-trial-bots` of `#snakes-title`), by game. */
function pageTrialBots() {
  return JSON.parse(document.getElementById("snakes-title")?.dataset.trialBots ?? "{}");
}

/** A token's row: label, when made, when last used, revoked or not. */
export function tokenCells(token) {
  return [
    token.label,
    token.created_at.slice(0, 16).replace("T", " "),
    token.last_used_at ? token.last_used_at.slice(0, 16).replace("T", " ") : "never",
    token.revoked ? "revoked" : "",
  ];
}

function button(label, testid, action, cls = "") {
  const node = el("button", label, `inline ${cls}`.trim());
  node.type = "button";
  node.dataset.testid = testid;
  node.addEventListener("click", action);
  return node;
}

/** What the confirmation asks before deleting `snake` (its games stay). */
export function deleteQuestion(snake) {
  return `Delete ${snake.ref}? Games it played stay; ladders and new games can no longer use it.`;
}

/** What the confirmation asks before revoking `token`. */
export function revokeQuestion(token) {
  return `Revoke the token "${token.label}"? Scripts that use it stop working.`;
}

/**
 * Ask `question` in the page's dialog, whose confirming button reads `action`;
 * resolves true if the user confirms (Cancel, Escape: false).
 */
function confirmed(question, action) {
  const dialog = document.getElementById("confirm");
  document.getElementById("confirm-text").textContent = question;
  document.getElementById("confirm-yes").textContent = action;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}

/** A link to an upload's build page (its log). */
function buildLink(snake) {
  const link = el("a", "Build log", "inline build-link");
  link.href = `/snakes/${snake.id}/build`;
  link.dataset.testid = `build-${snake.name}`;
  return link;
}

function row(cells, actions) {
  const tr = document.createElement("tr");
  for (const text of cells) {
    tr.append(el("td", text));
  }
  const td = document.createElement("td");
  td.append(...actions);
  tr.append(td);
  return tr;
}

async function refresh(error) {
  const snakes = await fetchJson("/api/snakes?mine=true");
  const tokens = await fetchJson("/api/tokens");
  if (!snakes.ok || !tokens.ok) {
    error.textContent = detailText(snakes.ok ? tokens.data : snakes.data, snakes.status);
    return;
  }
  // Uploads are built in the background: their rows change when their builds end.
  clearTimeout(polling);
  polling = anyBuilding(snakes.data) ? setTimeout(() => refresh(error), POLL_MS) : null;
  const playButton = (snake) => {
    const play = button("Play it", `play-${snake.name}`, async () => {
      const game = await postJson("/api/games", trialGame(snake, pageTrialBots()));
      if (!game.ok) {
        error.textContent = detailText(game.data, game.status);
        return;
      }
      window.location.assign(game.data.viewer);
    });
    // A bot being built plays no game yet: the row is drawn again when its build ends.
    if (snake.kind === "upload" && snake.build_status === "building") {
      play.disabled = true;
      play.title = "being built: it plays once its build ends";
    }
    return play;
  };
  document.getElementById("snakes").replaceChildren(
    ...snakes.data.map((snake) =>
      row(snakeCells(snake), [
        ...(snake.kind === "upload" ? [buildLink(snake)] : []),
        playButton(snake),
        button(
          "Delete",
          `delete-${snake.name}`,
          async () => {
            if (!(await confirmed(deleteQuestion(snake), "Delete"))) {
              return;
            }
            const gone = await fetchJson(`/api/snakes/${snake.id}`, { method: "DELETE" });
            error.textContent = gone.ok ? "" : detailText(gone.data, gone.status);
            await refresh(error);
          },
          "danger",
        ),
      ]),
    ),
  );
  document.getElementById("tokens").replaceChildren(
    ...tokens.data.map((token) =>
      row(
        tokenCells(token),
        token.revoked
          ? []
          : [
              button(
                "Revoke",
                `revoke-${token.id}`,
                async () => {
                  if (await confirmed(revokeQuestion(token), "Revoke")) {
                    await fetchJson(`/api/tokens/${token.id}`, { method: "DELETE" });
                    await refresh(error);
                  }
                },
                "danger",
              ),
            ],
      ),
    ),
  );
}

/** Change your own password (POST /api/auth/password); your other browsers log out. */
function passwordForm(form) {
  const error = form.querySelector(".error");
  const done = form.querySelector(".pass");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    done.textContent = "";
    const body = Object.fromEntries(new FormData(form).entries());
    const { ok, status, data } = await postJson("/api/auth/password", body);
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    form.reset();
    done.textContent = "Your password is changed; your other browsers are logged out.";
  });
}

/** A snake's tags as typed ("Python, minimax"): lowercase words, each once. */
export function tagWords(text) {
  const words = String(text ?? "")
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean);
  return [...new Set(words)];
}

function start() {
  const password = document.getElementById("password");
  if (password) {
    passwordForm(password);
  }
  const error = document.getElementById("error");
  const register = document.getElementById("register");
  register.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = Object.fromEntries(new FormData(register).entries());
    body.tags = tagWords(body.tags); // the directory's search words (profiles)
    const { ok, status, data } = await postJson("/api/snakes", body);
    error.textContent = ok ? "" : detailText(data, status);
    if (ok) {
      register.reset();
    }
    await refresh(error);
  });
  const uploadForm = document.getElementById("upload-bot");
  uploadForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = uploadForm.file.files[0];
    if (!file) {
      return;
    }
    error.textContent = "uploading...";
    const type = file.name.endsWith(".zip") ? "application/zip" : "application/gzip";
    const fields = new FormData(uploadForm); // form.name would be the form's own name
    const { ok, status, data } = await fetchJson(
      uploadUrl(fields.get("name"), fields.get("language")),
      { method: "POST", headers: { "Content-Type": type }, body: file },
    );
    error.textContent = ok ? "" : detailText(data, status);
    if (ok) {
      uploadForm.reset();
    }
    await refresh(error);
  });
  const tokenForm = document.getElementById("new-token");
  tokenForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const { ok, status, data } = await postJson("/api/tokens", { label: tokenForm.label.value });
    document.getElementById("token").textContent = ok
      ? `Your new token (shown once): ${data.token}`
      : detailText(data, status);
    await refresh(error);
  });
  // Enabled only now: clicked before this module ran, the form would submit to the page
  // itself (its label in the URL) and no token would be made.
  tokenForm.querySelector("button[type=submit]").disabled = false;
  refresh(error);
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", start);
}
