// A game's page: the board viewer in a frame, a rematch button, the step controls
// (pause, step one turn, resume) and the request inspector for the turn shown.

import { detailText, el, fetchJson, postJson } from "./dom.js";
import { actionUrl, callSummary, callsNote, callsUrl, prettyBody, stepState } from "./inspect.js";

/** Where a rematch of game `id` is requested. */
export function rematchUrl(id) {
  return `/api/games/${encodeURIComponent(id)}/rematch`;
}

const POLL_MS = 1500;

/** Copy `text`: the Clipboard API, else a selected textarea and the copy command. */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    let done = false;
    try {
      done = document.execCommand("copy");
    } catch {
      done = false;
    }
    area.remove();
    return done;
  }
}

function stepControls(id, error, onGame) {
  const box = document.getElementById("step-controls");
  if (!box) {
    return null; // a visitor: nothing to drive
  }
  const buttons = {
    pause: document.getElementById("pause"),
    step: document.getElementById("step"),
    resume: document.getElementById("resume"),
  };
  const label = document.getElementById("step-state");
  let busy = false;
  let last = null;
  let seenRunning = false;

  function show(game) {
    last = game;
    const state = stepState(game);
    label.textContent = state.text;
    box.dataset.state = !state.running ? "over" : state.paused ? "paused" : "running";
    buttons.pause.disabled = busy || !state.running || state.paused;
    buttons.step.disabled = busy || !state.paused;
    buttons.resume.disabled = busy || !state.paused;
    // A game already over when the page opened has nothing to drive.
    seenRunning ||= state.running;
    box.hidden = !seenRunning;
    onGame(game);
  }

  for (const [action, button] of Object.entries(buttons)) {
    button.addEventListener("click", async () => {
      busy = true;
      show(last);
      const { ok, status, data } = await postJson(actionUrl(id, action));
      busy = false;
      if (ok) {
        error.textContent = "";
        show(data);
      } else {
        error.textContent = detailText(data, status);
        show(last);
      }
    });
  }

  async function refresh() {
    const { ok, data } = await fetchJson(`/api/games/${encodeURIComponent(id)}`);
    if (ok && !busy) {
      show(data);
    }
    if (!ok || data.status === "running") {
      setTimeout(refresh, POLL_MS);
    }
  }
  refresh();
  return { current: () => last };
}

function inspector(id) {
  const panel = document.getElementById("inspector");
  const turnLabel = document.getElementById("inspect-turn");
  const note = document.getElementById("inspect-note");
  const rows = document.getElementById("inspect-calls");
  const bodyBox = document.getElementById("inspect-body-box");
  const bodyTitle = document.getElementById("inspect-body-title");
  const body = document.getElementById("inspect-body");
  const copyButton = document.getElementById("copy-body");
  const copyState = document.getElementById("copy-state");
  let turn = 0;
  let asked = 0;
  let raw = "";

  function openBody(call, which) {
    const text = call[which];
    const truncated = call[`${which}_truncated`];
    raw = text;
    bodyTitle.textContent = `${which === "request" ? "Request" : "Reply"} of ${call.name}, ${call.kind} on turn ${turn}`;
    body.textContent = call.omitted ? "(not kept: the game's budget for bodies is used up)" : prettyBody(text, truncated);
    copyState.textContent = "";
    bodyBox.hidden = false;
  }

  function draw(answer) {
    note.textContent = callsNote(answer);
    rows.replaceChildren(
      ...answer.calls.map((call, index) => {
        const item = el("li");
        item.dataset.testid = `call-${index}`;
        item.append(el("strong", call.name), " ", el("span", callSummary(call)), " ");
        for (const which of ["request", "reply"]) {
          const button = el("button", which === "request" ? "Request" : "Reply", "inline");
          button.type = "button";
          button.dataset.testid = `open-${which}-${index}`;
          button.addEventListener("click", () => openBody(call, which));
          item.append(button, " ");
        }
        return item;
      }),
    );
  }

  async function load() {
    const ticket = ++asked;
    const { ok, status, data } = await fetchJson(callsUrl(id, turn));
    if (ticket !== asked) {
      return; // a later turn was asked for meanwhile
    }
    if (ok) {
      draw(data);
    } else {
      note.textContent = detailText(data, status);
      rows.replaceChildren();
    }
  }

  let timer = null;
  function showTurn(next) {
    const changed = next !== turn;
    turn = next;
    turnLabel.textContent = String(turn);
    if (changed) {
      bodyBox.hidden = true;
    }
    // Playback moves fast: ask once the shown turn settles.
    clearTimeout(timer);
    timer = setTimeout(load, 120);
  }

  copyButton.addEventListener("click", async () => {
    copyState.textContent = (await copyText(raw)) ? "Copied" : "Select the text to copy it";
  });
  panel.addEventListener("toggle", () => panel.open && load());
  showTurn(0);
  return { showTurn, reload: () => showTurn(turn) };
}

function start() {
  const id = document.getElementById("game").dataset.gameId;
  const error = document.getElementById("error");
  document.getElementById("rematch")?.addEventListener("click", async () => {
    const { ok, status, data } = await postJson(rematchUrl(id));
    if (ok) {
      window.location.href = data.viewer;
    } else {
      error.textContent = detailText(data, status);
    }
  });
  const frame = document.querySelector("iframe[data-testid='board-frame']");
  const inspect = document.getElementById("inspector") ? inspector(id) : null;
  let lastTurn = -1;
  stepControls(id, error, (game) => {
    // A new turn played: the calls of the turn shown may just have come in.
    if (inspect && game && game.turn !== lastTurn) {
      lastTurn = game.turn;
      inspect.reload();
    }
  });
  window.addEventListener("message", (event) => {
    // The board posts the turn it shows (TURN); only our own frame is listened to.
    if (inspect && event.source === frame?.contentWindow && event.data?.event === "TURN") {
      const turn = Number(event.data.data?.turn);
      if (Number.isInteger(turn) && turn >= 0) {
        inspect.showTurn(turn);
      }
    }
  });
}

if (typeof document !== "undefined") {
  start();
}
