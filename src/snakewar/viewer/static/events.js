// A game's events websocket, as every Snakewar viewer follows a running game:
//   WS {server}/api/games/{id}/events[?from=N] (or a board engine's /games/{id}/events)
//      -> {"Type": "frame", "Data": view} ... then {"Type": "game_end", "Data": {...}}
// `from` asks for the frames from N on, so that a viewer that lost its connection
// resumes where it was, on any server of the arena; an engine that ignores it sends
// every frame again, which the caller de-duplicates.  A game played again from turn 0
// sends {"Type": "restart"} before its server closes the socket.

/** The close code Snakewar's server gives the events socket of an unknown game. */
export const GAME_NOT_FOUND = 4404;
/**
 * The close code Snakewar's server gives a follower of a stored game past a cap (too
 * many on that game, from this address or on the server); the reason names the cap.
 */
export const FOLLOWER_LIMIT = 4429;

/** The websocket URL of a same-origin path (http -> ws, https -> wss). */
export function socketUrl(path, base = globalThis.location?.href) {
  const url = new URL(path, base);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

/**
 * The events URL asking for the frames from `start` on (`?from=`); the URL as it is
 * for 0 (every frame, as the official board asks).
 */
export function resumeUrl(url, start) {
  if (!Number.isInteger(start) || start <= 0) {
    return url;
  }
  const resumed = new URL(url);
  resumed.searchParams.set("from", String(start));
  return resumed.toString();
}

/** The reconnect delay after `attempt` failures: doubling from 0.5 s up to 15 s, with jitter. */
export function backoffDelay(attempt, random = Math.random) {
  const base = Math.min(15000, 500 * 2 ** Math.min(attempt, 10));
  // Jitter spreads reconnects of many viewers after a server restart.
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * The events websocket of one game, reconnecting with backoff while the game
 * runs (not after game_end), from the next frame it needs: a Snakewar server
 * sends the frames from there on (`?from=`), wherever the game is played.  An
 * engine that replays every frame to a new connection is fine too: the caller
 * de-duplicates (by Turn, where frames have one).
 */
export class EventStream {
  /**
   * @param {string} url the websocket URL
   * @param {object} handlers `onFrame(frame)`, `onEnd(data)`, `onStatus(text)`, `onMissing()`,
   *   `onRestart(data)` (the game is played again from turn 0: drop the frames held)
   * @param {object} [env] `normalize(data)` (a frame message's Data as the caller holds
   *   it; default: as sent), `turnOf(frame)` (its turn, if it has one: default
   *   `frame.Turn`); `WebSocket`, `schedule`, `cancel` (for tests)
   */
  constructor(url, handlers, env = {}) {
    this.url = url;
    this.handlers = handlers;
    this.normalize = env.normalize ?? ((data) => data);
    this.turnOf = env.turnOf ?? ((frame) => frame?.Turn);
    this.Socket = env.WebSocket ?? globalThis.WebSocket;
    this.schedule = env.schedule ?? ((fn, ms) => setTimeout(fn, ms));
    this.cancel = env.cancel ?? ((h) => clearTimeout(h));
    this.socket = null;
    this.attempt = 0;
    this.ended = false;
    this.stopped = false;
    this.retry = null;
    /** The next frame (turn) it needs: where a reconnection resumes. */
    this.next = 0;
  }

  status(text) {
    this.handlers.onStatus?.(text);
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  /** Close for good (the page is leaving, or the game is over). */
  stop() {
    this.stopped = true;
    if (this.retry !== null) {
      this.cancel(this.retry);
      this.retry = null;
    }
    this.socket?.close();
  }

  connect() {
    this.status(this.attempt === 0 ? "connecting" : "reconnecting");
    let socket;
    try {
      socket = new this.Socket(resumeUrl(this.url, this.next));
    } catch (error) {
      this.status(`cannot connect: ${error.message}`);
      this.reconnectLater();
      return;
    }
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.attempt = 0;
      this.status("live");
    });
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", (event) => {
      if (this.socket === socket) {
        this.socket = null;
      }
      if (event.code === GAME_NOT_FOUND) {
        // Retrying cannot help: the server does not know this game.
        this.stopped = true;
        this.status("game not found");
        this.handlers.onMissing?.();
        return;
      }
      if (!this.ended && !this.stopped) {
        // A cap may free up later: wait and retry, saying which cap it was.
        this.reconnectLater(event.code === FOLLOWER_LIMIT ? event.reason : "");
      }
    });
  }

  receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      // One bad message must not take the stream down; the next frames still count.
      return;
    }
    if (message?.Type === "frame" && message.Data) {
      const frame = this.normalize(message.Data);
      const turn = this.turnOf(frame);
      // Frames come in turn order from where it asked; a frame without a usable Turn
      // still counts as the next one.
      const ordered = Number.isInteger(turn) && turn >= 0;
      this.next = ordered ? Math.max(this.next, turn + 1) : this.next + 1;
      this.handlers.onFrame?.(frame);
    } else if (message?.Type === "restart") {
      // Played again from turn 0 (its worker died): what it holds is void, and the
      // server closes this connection; the next one asks from turn 0.
      this.next = 0;
      this.status("the game restarted from turn 0");
      this.handlers.onRestart?.(message.Data ?? {});
    } else if (message?.Type === "game_end") {
      this.ended = true;
      this.status("game over");
      this.handlers.onEnd?.(message.Data ?? {});
      this.socket?.close();
    }
  }

  reconnectLater(reason = "") {
    const delay = backoffDelay(this.attempt);
    this.attempt += 1;
    this.status(`${reason || "disconnected"}; retrying in ${Math.ceil(delay / 1000)} s`);
    this.retry = this.schedule(() => {
      this.retry = null;
      if (!this.stopped && !this.ended) {
        this.connect();
      }
    }, delay);
  }
}
