// A game page's share panel: a link that opens the game at a turn, the code that embeds
// its board in another site, and (signed in) saving the game under a title.
//
// The turn follows the board as it plays (the board's `boardturn` events and TURN
// messages) until the visitor types one of their own.

import { copyText } from "./club.js";
import { detailText, fetchJson, postJson } from "./dom.js";

/** The page link of game `id` at `turn`, previews naming the winner when `reveal`. */
export function shareLink(origin, id, turn, reveal) {
  const url = new URL(`/view/${encodeURIComponent(id)}`, origin);
  if (Number.isInteger(turn) && turn >= 0) {
    url.searchParams.set("turn", String(turn));
  }
  if (reveal) {
    url.searchParams.set("reveal", "1");
  }
  return url.toString();
}

/** The HTML that frames game `id`'s board (at `turn`) in another site. */
export function embedCode(origin, id, turn) {
  const url = new URL(`/embed/${encodeURIComponent(id)}`, origin);
  if (Number.isInteger(turn) && turn >= 0) {
    url.searchParams.set("turn", String(turn));
  }
  const src = url.toString().replaceAll("&", "&amp;").replaceAll('"', "&quot;");
  return (
    `<iframe src="${src}" width="640" height="480" title="Snakewar game" ` +
    `style="border:0" allow="fullscreen" loading="lazy"></iframe>`
  );
}

/** A turn typed in the panel: a whole number from 0, else null. */
export function readTurn(text) {
  const trimmed = String(text ?? "").trim();
  return /^\d{1,9}$/.test(trimmed) ? Number(trimmed) : null;
}

function start() {
  const panel = document.getElementById("share");
  if (!panel) {
    return;
  }
  const id = panel.dataset.gameId;
  const turnInput = document.getElementById("share-turn");
  const reveal = document.getElementById("share-reveal");
  const link = document.getElementById("share-link");
  const embed = document.getElementById("share-embed");
  const state = document.getElementById("share-state");
  let typed = panel.dataset.turn !== undefined;

  function update() {
    const turn = readTurn(turnInput.value);
    link.value = shareLink(window.location.origin, id, turn, reveal.checked);
    embed.value = embedCode(window.location.origin, id, turn);
  }

  function boardTurn(turn) {
    if (!typed && Number.isInteger(turn) && document.activeElement !== turnInput) {
      turnInput.value = String(turn);
      update();
    }
  }

  turnInput.addEventListener("input", () => {
    typed = true;
    update();
  });
  reveal.addEventListener("change", update);
  const board = document.querySelector("iframe[data-board]");
  board?.addEventListener("boardturn", (event) => boardTurn(event.detail?.turn));
  window.addEventListener("message", (event) => {
    if (event.source === board?.contentWindow && event.data?.event === "TURN") {
      boardTurn(event.data?.data?.turn);
    }
  });
  for (const [button, input] of [
    ["share-copy-link", link],
    ["share-copy-embed", embed],
  ]) {
    document.getElementById(button).addEventListener("click", async () => {
      state.textContent = (await copyText(input)) ? "Copied" : "Selected: copy it with Ctrl+C";
    });
  }
  update();
  startSaving(id);
}

async function startSaving(id) {
  const form = document.getElementById("save-form");
  if (!form) {
    return; // an anonymous visitor saves nothing
  }
  const title = document.getElementById("save-title");
  const said = document.getElementById("save-state");
  const path = `/api/saved/${encodeURIComponent(id)}`;
  const mine = await fetchJson(path);
  if (mine.ok) {
    title.value = mine.data.title;
    said.textContent = "Saved";
  } else {
    title.value = document.title.replace(/ · Snakewar$/, "").slice(0, 120);
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    said.textContent = "Saving…";
    const { ok, status, data } = await postJson(path, { title: title.value }, "PUT");
    said.textContent = ok ? `Saved as “${data.title}”` : detailText(data, status);
  });
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", start);
}
