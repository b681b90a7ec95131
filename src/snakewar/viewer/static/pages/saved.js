// Your saved games (`/api/saved`) and your exports (`/api/exports`): start one, watch its
// progress (polled while one runs), download it when it is done, forget a saved game.

import { detailText, el, fetchJson, postJson, renderRows } from "./dom.js";

const POLL_MS = 1000;

/** A byte count as people read it. */
export function sizeText(bytes) {
  if (bytes < 1024) {
    return `${bytes} B`;
  }
  if (bytes < 1024 * 1024) {
    return `${(bytes / 1024).toFixed(1)} KiB`;
  }
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** An export's progress: "3 of 10 games" (and why it failed, if it did). */
export function progressText(job) {
  const games = `${job.done} of ${job.total} game${job.total === 1 ? "" : "s"}`;
  return job.state === "failed" ? `${games}: ${job.error}` : games;
}

/** The row spec of an export (its download link once it is done). */
export function exportRow(job) {
  return {
    testid: `export-${job.id}`,
    cells: [
      `${job.kind} ${job.target}`,
      { text: job.state, cls: job.state === "failed" ? "error" : "" },
      progressText(job),
      sizeText(job.bytes),
      job.download ? { text: `Download ${job.filename}`, href: job.download } : "",
    ],
  };
}

function savedRow(saved, onForget) {
  const tr = document.createElement("tr");
  tr.dataset.testid = `saved-${saved.game_id}`;
  const link = el("a", saved.title);
  link.href = saved.url;
  const forget = el("button", "Forget", "inline");
  forget.type = "button";
  forget.dataset.testid = "saved-forget";
  forget.addEventListener("click", () => onForget(saved));
  const cells = [
    link,
    el("span", saved.game),
    el("span", saved.entrants.join(", ")),
    el("span", String(saved.turns)),
    el("span", new Date(saved.saved_at).toLocaleString()),
    forget,
  ];
  tr.append(...cells.map((cell) => {
    const td = document.createElement("td");
    td.append(cell);
    return td;
  }));
  return tr;
}

function start() {
  const savedBody = document.getElementById("saved");
  if (!savedBody) {
    return;
  }
  const none = document.getElementById("saved-none");
  const error = document.getElementById("error");
  const exportsBody = document.getElementById("exports");
  const form = document.getElementById("export-form");
  const formError = document.getElementById("export-error");
  let polling = false;

  async function loadSaved() {
    const { ok, status, data } = await fetchJson("/api/saved");
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    savedBody.replaceChildren(...data.map((s) => savedRow(s, forget)));
    none.hidden = data.length > 0;
  }

  async function forget(saved) {
    const path = `/api/saved/${encodeURIComponent(saved.game_id)}`;
    const { ok, status, data } = await postJson(path, undefined, "DELETE");
    if (!ok && status !== 404) {
      error.textContent = detailText(data, status);
    }
    loadSaved();
  }

  async function loadExports() {
    const { ok, status, data } = await fetchJson("/api/exports");
    if (!ok) {
      error.textContent = detailText(data, status);
      return false;
    }
    renderRows(exportsBody, data.map(exportRow));
    return data.some((job) => ["queued", "running"].includes(job.state));
  }

  async function pollExports() {
    if (polling) {
      return;
    }
    polling = true;
    try {
      while (await loadExports()) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    } finally {
      polling = false;
    }
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    formError.textContent = "";
    const body = { kind: form.kind.value, target: form.target.value.trim() };
    const { ok, status, data } = await postJson("/api/exports", body);
    if (!ok) {
      formError.textContent = detailText(data, status);
      return;
    }
    pollExports();
  });

  // A ladder's or a tournament's page links here with what to export filled in.
  const asked = new URLSearchParams(window.location.search);
  const kind = asked.get("kind");
  if ([...form.kind.options].some((option) => option.value === kind)) {
    form.kind.value = kind;
    form.target.value = (asked.get("target") ?? "").slice(0, 100);
  }
  loadSaved();
  pollExports();
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", start);
}
