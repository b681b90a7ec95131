// An uploaded bot's build, for its owner: its language, whether it built, why not in
// one line, and the whole log (GET /api/snakes/{id}/build); "Build again" rebuilds it
// (POST: accepted at once, built in the background).  While it is being built the page
// asks again every POLL_MS until the build ends, and shows how it ended.  Anyone else is
// told the log is its owner's, and sees no control.

import { detailText, fetchJson } from "./dom.js";

/** How often a page asks again about a build that is still running. */
export const POLL_MS = 1000;

let polling = null; // the timer of the next question, while a build runs

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

function show(snakeId, error, build) {
  const building = build.status === "building";
  document.getElementById("build-status").textContent = statusText(build);
  document.getElementById("build-status").className = build.status === "failed" ? "error" : "pass";
  document.getElementById("build-log").textContent = building
    ? "(the log comes when the build ends)"
    : build.log || "(the build printed nothing)";
  document.getElementById("build-body").hidden = false;
  document.getElementById("build-again").disabled = building;
  clearTimeout(polling);
  polling = building ? setTimeout(() => load(snakeId, error), POLL_MS) : null;
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
  show(snakeId, error, build.data);
}

function start() {
  const page = document.getElementById("build-page");
  const snakeId = page.dataset.snake;
  const error = document.getElementById("error");
  const again = document.getElementById("build-again");
  again.addEventListener("click", async () => {
    again.disabled = true;
    const began = await fetchJson(`/api/snakes/${encodeURIComponent(snakeId)}/build`, {
      method: "POST",
    });
    again.disabled = false;
    if (!began.ok) {
      error.textContent = detailText(began.data, began.status);
      return;
    }
    error.textContent = "";
    show(snakeId, error, began.data); // "being built": asked again until it ends
  });
  load(snakeId, error);
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", start);
}
