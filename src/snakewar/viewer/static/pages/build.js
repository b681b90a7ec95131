// An uploaded bot's build, for its owner: its language, whether it built, why not in
// one line, and the whole log (GET /api/snakes/{id}/build); "Build again" rebuilds it
// (POST).  Anyone else is told the log is its owner's, and sees no control.

import { detailText, el, fetchJson } from "./dom.js";

/** The one-line state of a build: built, failed and why, being built, never built. */
export function statusText(build) {
  const language = build.language_label ?? build.language ?? "unknown language";
  if (build.status === "ready") {
    return `${language}: built; its games run the built bot.`;
  }
  if (build.status === "failed") {
    return `${language}: the build failed: ${build.error ?? "no reason given"}.`;
  }
  if (build.status === "building") {
    return `${language}: being built.`;
  }
  return `${language}: not built (it runs from its files).`;
}

function show(build) {
  document.getElementById("build-status").textContent = statusText(build);
  document.getElementById("build-status").className = build.status === "failed" ? "error" : "pass";
  document.getElementById("build-log").textContent = build.log || "(the build printed nothing)";
  document.getElementById("build-body").hidden = false;
}

async function load(snakeId, error) {
  const build = await fetchJson(`/api/snakes/${encodeURIComponent(snakeId)}/build`);
  if (!build.ok) {
    error.textContent = detailText(build.data, build.status);
    document.getElementById("build-body").hidden = true;
    return;
  }
  error.textContent = "";
  document.getElementById("build-title").textContent = `Build of ${build.data.snake}`;
  show(build.data);
}

function start() {
  const page = document.getElementById("build-page");
  const snakeId = page.dataset.snake;
  const error = document.getElementById("error");
  const again = document.getElementById("build-again");
  again.addEventListener("click", async () => {
    again.disabled = true;
    const note = document.getElementById("build-status");
    note.className = "muted";
    note.textContent = "building...";
    const built = await fetchJson(`/api/snakes/${encodeURIComponent(snakeId)}/build`, {
      method: "POST",
    });
    again.disabled = false;
    if (!built.ok) {
      error.textContent = detailText(built.data, built.status);
      return;
    }
    show(built.data);
  });
  load(snakeId, error);
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", start);
}
