// A game's page: the board viewer in a frame, the turn it shows, a rematch button and
// the step controls (pause, step one turn, resume) for the game's owner and admins, the
// entrants' failures (and their bots' logs, for those who may read them), and the
// request inspector for the turn shown.  The board's shortcut keys work from the page
// (board_keys.js).

import { forwardKeys } from "./board_keys.js";
import { humanKeys } from "./human_keys.js";
import { detailText, el, fetchJson, pollGame, postJson } from "./dom.js";
import { parseSeats, renderEntrants } from "./entrants.js";
import { startLatencyChart } from "./latency_chart.js";
import {
  actionUrl,
  callSummary,
  callsNote,
  callsUrl,
  inspectedTurn,
  prettyBody,
  stepState,
} from "./inspect.js";

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
    // Not the game's owner nor an admin: nothing to drive.  (Only a local server's
    // games keep calls for the inspector, and its one user is an admin.)
    return null;
  }
  const buttons = {
    pause: document.getElementById("pause"),
    step: document.getElementById("step"),
    resume: document.getElementById("resume"),
  };
  const buttonBox = document.getElementById("step-buttons");
  const label = document.getElementById("step-state");
  const help = document.getElementById("step-help");
  let busy = false;
  let last = null;
  let seenRunning = false;

  function show(game) {
    last = game;
    const state = stepState(game);
    label.textContent = state.text;
    help.textContent = state.help;
    box.dataset.state = !state.running ? "over" : state.paused ? "paused" : "running";
    buttons.pause.disabled = busy || !state.running || state.paused;
    buttons.step.disabled = busy || !state.paused;
    buttons.resume.disabled = busy || !state.paused;
    // A game already over when the page opened has nothing to drive; one that ends
    // while watched keeps its final state, without buttons that can do nothing.
    seenRunning ||= state.running;
    box.hidden = !seenRunning;
    buttonBox.hidden = !state.running;
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

  return {
    current: () => last,
    // A polled answer; an action's own answer is newer while it runs.
    polled: (game) => {
      if (!busy) {
        show(game);
      }
    },
  };
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
  let turn = 0; // the turn the board shows
  let shown = { turn: 0, led: false }; // whose calls are shown for it (inspectedTurn)
  let game = null; // the game as last polled
  let asked = 0;
  let raw = "";

  function openBody(call, which) {
    const text = call[which];
    const truncated = call[`${which}_truncated`];
    raw = text;
    bodyTitle.textContent = `${which === "request" ? "Request" : "Reply"} of ${call.name}, ${call.kind} on turn ${shown.turn}`;
    body.textContent = call.omitted ? "(not kept: the game's budget for bodies is used up)" : prettyBody(text, truncated);
    copyState.textContent = "";
    bodyBox.hidden = false;
  }

  function draw(answer, led) {
    note.textContent = callsNote(answer, led);
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
    const target = shown;
    const { ok, status, data } = await fetchJson(callsUrl(id, target.turn));
    if (ticket !== asked) {
      return; // a later turn was asked for meanwhile
    }
    if (ok) {
      draw(data, target.led);
    } else {
      note.textContent = detailText(data, status);
      rows.replaceChildren();
    }
  }

  let timer = null;
  function showTurn(next) {
    turn = next;
    const target = inspectedTurn(turn, game);
    const changed = target.turn !== shown.turn;
    shown = target;
    turnLabel.textContent = String(shown.turn);
    if (changed) {
      // Another turn's calls: the listed ones (and an open body) are not its own.
      bodyBox.hidden = true;
      rows.replaceChildren();
      note.textContent = "Loading the calls…";
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
  return {
    showTurn,
    // A newer answer about the game: a step may have made the calls of the turn shown.
    follow: (polled) => {
      game = polled;
      showTurn(turn);
    },
  };
}

/** The toolbar's text for the turn the board shows (`turn` as the board posted it). */
export function turnText(turn) {
  return `Turn ${turn}`;
}

/** The turn in a message from the board (`{event: "TURN", data: {turn}}`), else null. */
export function postedTurn(data) {
  if (data?.event !== "TURN") {
    return null;
  }
  const turn = Number(data.data?.turn);
  return Number.isInteger(turn) && turn >= 0 ? turn : null;
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
  const boardTurn = document.getElementById("board-turn");
  const inspect = document.getElementById("inspector") ? inspector(id) : null;
  humanKeys(id, document.getElementById("human-turn"), frame);
  forwardKeys(frame);
  startLatencyChart(id, frame);
  let lastSeen = "";
  const entrants = document.getElementById("entrants");
  const logSeats = parseSeats(entrants.dataset.logSeats);
  const onGame = (game) => {
    renderEntrants(entrants, game, logSeats);
    // A new turn played (or the game over): the calls of the turn shown may just have come in.
    const seen = game ? `${game.turn}:${game.status}` : "";
    if (inspect && game && seen !== lastSeen) {
      lastSeen = seen;
      inspect.follow(game);
    }
  };
  const stepper = stepControls(id, error, onGame);
  // Everyone's page follows the game (its failures come with its end); the owner's
  // step controls see each answer first.
  pollGame(id, (game) => (stepper ? stepper.polled(game) : onGame(game)), POLL_MS);
  watchBoardTurn(frame, (turn) => {
    boardTurn.textContent = turnText(turn);
    boardTurn.hidden = false;
    inspect?.showTurn(turn);
  });
}

/**
 * Call `onTurn` with each turn the board in `frame` shows, as it draws it.
 *
 * The toolbar once showed the turn polled from the API every 1.5 s, behind the board;
 * now the board tells it.  The board (same origin) fires "boardturn" on its iframe
 * element as it draws a turn: handled there and then, the toolbar changes in the same
 * animation frame as the board.  The board's TURN messages (which arrive a task
 * later, and could come in after a newer event) only count until the first event.
 */
function watchBoardTurn(frame, onTurn) {
  let direct = false;
  frame.addEventListener("boardturn", (event) => {
    direct = true;
    const turn = Number(event.detail?.turn);
    if (Number.isInteger(turn) && turn >= 0) {
      onTurn(turn);
    }
  });
  window.addEventListener("message", (event) => {
    // Only our own frame is listened to.
    if (direct || event.source !== frame.contentWindow) {
      return;
    }
    const turn = postedTurn(event.data);
    if (turn !== null) {
      onTurn(turn);
    }
  });
}

if (typeof document !== "undefined") {
  start();
}
