// The playback controls: buttons, scrubber, speed, and the keyboard shortcuts
// of the official board (so people's muscle memory carries over).

/** Keyboard shortcuts: key (as in KeyboardEvent.key, lower-cased) to action. */
export const KEYS = Object.freeze({
  " ": "toggle",
  s: "toggle",
  k: "toggle",
  arrowright: "next",
  d: "next",
  l: "next",
  arrowleft: "prev",
  a: "prev",
  j: "prev",
  e: "nextElimination",
  q: "prevElimination",
  r: "first",
  t: "last",
});

/** The action for a keydown event, or null (modifier chords belong to the browser). */
export function keyAction(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) {
    return null;
  }
  return KEYS[String(event.key).toLowerCase()] ?? null;
}

/** Whether a key on `target` is typing (a text field, a list, a box): no shortcut then. */
export function typingInto(target) {
  // Shortcuts must not fire while the user types, picks from a list or ticks a
  // box; the scrubber and buttons are fine (the handler takes over their keys).
  if (!target || typeof target.closest !== "function") {
    return false;
  }
  if (target.closest("textarea, select, [contenteditable='true']")) {
    return true;
  }
  const input = target.closest("input");
  return Boolean(input) && input.type !== "range";
}

/**
 * The action a message from the embedding page asks for: `{event: "KEY", key}` is a
 * shortcut key pressed on that page (pages/board_keys.js sends them), else null.
 */
export function messageAction(data) {
  if (!data || typeof data !== "object" || data.event !== "KEY" || typeof data.key !== "string") {
    return null;
  }
  return keyAction({ key: data.key.slice(0, 20) });
}

/**
 * Route the keyboard shortcuts to `player`'s methods: keys pressed in this page, and
 * in a frame, those the embedding page forwards (so they work before the frame is
 * clicked).  `onAction(action)` is told of each one first: a viewer still loading
 * drops its own start (autoplay, ?turn=) once the user has moved the playback.
 */
export function bindKeyboard(player, win = window, onAction = () => {}) {
  win.addEventListener("keydown", (event) => {
    if (typingInto(event.target)) {
      return;
    }
    const action = keyAction(event);
    if (action) {
      // Also stops Space from pressing a focused button and the arrows from
      // moving a focused scrubber: each key does one thing.
      event.preventDefault();
      onAction(action);
      player[action]();
    }
  });
  if (win.parent && win.parent !== win) {
    win.addEventListener("message", (event) => {
      // Only the page this viewer is embedded in; a key only moves the playback.
      if (event.source === win.parent) {
        const action = messageAction(event.data);
        if (action) {
          onAction(action);
          player[action]();
        }
      }
    });
  }
}

/**
 * Wire the control elements (found by their data-testid under `root`) to
 * `player`, telling `onAction(action)` of each use first (as `bindKeyboard` does).
 * Returns `update()`, which brings them in line with the player.
 */
export function bindControls(root, player, onAction = () => {}) {
  const el = (id) => root.querySelector(`[data-testid="${id}"]`);
  const buttons = {
    first: el("btn-first"),
    prev: el("btn-prev"),
    toggle: el("btn-play"),
    next: el("btn-next"),
    last: el("btn-last"),
    prevElimination: el("btn-prev-elimination"),
    nextElimination: el("btn-next-elimination"),
  };
  for (const [action, button] of Object.entries(buttons)) {
    button.addEventListener("click", () => {
      onAction(action);
      player[action]();
    });
  }
  const scrubber = el("scrubber");
  scrubber.addEventListener("input", () => {
    onAction("scrub");
    player.pause();
    player.goto(Number(scrubber.value), "scrub");
  });

  return function update() {
    const count = player.frames.length;
    const empty = count === 0;
    scrubber.max = String(Math.max(0, count - 1));
    scrubber.value = String(player.index);
    scrubber.disabled = empty;
    const turn = player.frame?.Turn ?? 0;
    scrubber.setAttribute("aria-valuetext", `Turn ${turn}`);
    const play = buttons.toggle;
    play.dataset.state = player.playing ? "playing" : "paused";
    play.setAttribute("aria-label", player.playing ? "Pause (Space)" : "Play (Space)");
    play.title = play.getAttribute("aria-label");
    play.disabled = empty;
    // As on the official board, stepping is for a paused game.
    const step = empty || player.playing;
    buttons.first.disabled = step || player.index === 0;
    buttons.prev.disabled = step || player.index === 0;
    buttons.next.disabled = step || player.atEnd;
    buttons.last.disabled = step || player.atEnd;
    buttons.prevElimination.disabled = empty;
    buttons.nextElimination.disabled = empty;
  };
}
