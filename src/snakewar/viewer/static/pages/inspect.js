// Step mode and the request inspector on a game's page: the pure parts (tested
// under Node).  The page (game.js) draws what these functions compute.

/** Where a live game is paused, stepped or resumed (`action`). */
export function actionUrl(id, action) {
  return `/api/games/${encodeURIComponent(id)}/${action}`;
}

/** Where the calls made on `turn` of game `id` are read. */
export function callsUrl(id, turn) {
  return `/api/games/${encodeURIComponent(id)}/calls?turn=${encodeURIComponent(turn)}`;
}

/**
 * What the step controls show for a game (`GET /api/games/{id}`'s answer):
 * `{text, help, running, paused}`; the buttons follow `running` and `paused`.
 *
 * A running game's state has no turn number: the page's toolbar shows the turn the
 * board shows, frame by frame, and a number polled from the API would lag behind it.
 * A paused game's number is where it holds (the last turn played), which only a step
 * changes; a finished game's is its last turn.
 */
export function stepState(game) {
  if (!game || game.status !== "running") {
    const status = game?.status ?? "unknown";
    const why = game?.error ? `: ${game.error}` : "";
    return {
      text: `Game ${status} at turn ${game?.turn ?? 0}${why}`,
      help: "",
      running: false,
      paused: false,
    };
  }
  if (game.paused) {
    return {
      text: `Paused at turn ${game.turn}`,
      help: "Step plays the next turn; Resume lets the game run on. Scrub the board meanwhile.",
      running: true,
      paused: true,
    };
  }
  return {
    text: "Running",
    help: "Pause holds the game before its next turn, to play it turn by turn.",
    running: true,
    paused: false,
  };
}

/**
 * One line for a call: kind, status, HTTP status, latency, error.
 *
 * A call that timed out says how long it had: "timed out after X ms", X its deadline
 * (the timeout, plus what was left of a time bank).  Under a time bank the bank left
 * after the call is told; a call asked twice (retry on timeout) shows both tries.
 */
export function callSummary(call) {
  const parts = [call.kind, call.status];
  if (call.http_status !== null && call.http_status !== undefined) {
    parts.push(`HTTP ${call.http_status}`);
  }
  parts.push(latencyText(call));
  if (call.bank_ms !== null && call.bank_ms !== undefined) {
    parts.push(`bank left ${call.bank_ms} ms`);
  }
  if (call.move) {
    parts.push(`move ${call.move}`);
  }
  let text = parts.join(" · ");
  if (call.error) {
    text += ` — ${call.error}`;
  }
  if (call.first_try) {
    return `try 1: ${call.first_try.status} · ${latencyText(call.first_try)}; try 2: ${text}`;
  }
  return text;
}

/** A call's (or a try's) time: its latency, or how long it had when it timed out. */
function latencyText(call) {
  if (call.status === "timeout") {
    return `timed out after ${call.deadline_ms ?? call.latency_ms} ms`;
  }
  return `${call.latency_ms} ms`;
}

/**
 * Whose calls the inspector shows while the board shows turn `shown` of `game`
 * (`GET /api/games/{id}`'s answer, or null): `{turn, led}`.
 *
 * A turn's calls are made when the game plays it, so the last turn of a game still
 * being played has none yet: there the inspector shows the calls just made, those of
 * the turn before, which led to it (`led`).  Anywhere else, the turn's own calls.
 */
export function inspectedTurn(shown, game) {
  if (game?.status === "running" && shown > 0 && shown >= game.turn) {
    return { turn: shown - 1, led: true };
  }
  return { turn: shown, led: false };
}

/**
 * What the inspector says above the calls of a turn (`calls`: the calls route's answer;
 * `led`: shown as the calls that led to the next turn, see `inspectedTurn`).
 */
export function callsNote(calls, led = false) {
  if (!calls.records_calls) {
    return "This game keeps no request bodies (only a local server's games do).";
  }
  if (calls.calls.length === 0) {
    return `No calls on turn ${calls.turn} yet: the snakes are asked when the game plays it.`;
  }
  if (led) {
    const next = calls.turn + 1;
    return `Calls on turn ${calls.turn}, just made: they led to turn ${next}, whose calls are made when the game plays it.`;
  }
  return `Calls on turn ${calls.turn}: what each snake was sent and what it answered.`;
}

/** A body for reading: JSON pretty-printed, anything else as it came; marks a cut body. */
export function prettyBody(text, truncated = false) {
  let shown = text;
  if (!truncated) {
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      shown = text;
    }
  }
  if (text === "") {
    shown = "(empty)";
  }
  return truncated ? `${shown}\n… (cut at 16 KiB)` : shown;
}
