// Your account: your registered snakes (register, pause, delete) and API tokens.

import { detailText, el, fetchJson, postJson } from "./dom.js";

/** A snake's row: reference, game, URL, visibility and state. */
export function snakeCells(snake) {
  return [snake.ref, snake.game, snake.url ?? "", snake.visibility, snake.paused ? "paused" : ""];
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

function row(cells, action, label, testid) {
  const tr = document.createElement("tr");
  for (const text of cells) {
    tr.append(el("td", text));
  }
  const td = document.createElement("td");
  if (action) {
    const button = el("button", label, "inline");
    button.type = "button";
    button.dataset.testid = testid;
    button.addEventListener("click", action);
    td.append(button);
  }
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
  document.getElementById("snakes").replaceChildren(
    ...snakes.data.map((snake) =>
      row(
        snakeCells(snake),
        async () => {
          const gone = await fetchJson(`/api/snakes/${snake.id}`, { method: "DELETE" });
          error.textContent = gone.ok ? "" : detailText(gone.data, gone.status);
          await refresh(error);
        },
        "Delete",
        `delete-${snake.name}`,
      ),
    ),
  );
  document.getElementById("tokens").replaceChildren(
    ...tokens.data.map((token) =>
      row(
        tokenCells(token),
        token.revoked
          ? null
          : async () => {
              await fetchJson(`/api/tokens/${token.id}`, { method: "DELETE" });
              await refresh(error);
            },
        "Revoke",
        `revoke-${token.id}`,
      ),
    ),
  );
}

function start() {
  const error = document.getElementById("error");
  const register = document.getElementById("register");
  register.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = Object.fromEntries(new FormData(register).entries());
    const { ok, status, data } = await postJson("/api/snakes", body);
    error.textContent = ok ? "" : detailText(data, status);
    if (ok) {
      register.reset();
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
  refresh(error);
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", start);
}
