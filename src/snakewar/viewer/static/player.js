// Playback: which frame is shown, playing and pausing, and following a live game.
//
// No DOM here: the timer functions are passed in (defaulting to the browser's),
// so the tests can drive playback under Node with a fake clock.  What counts as an
// elimination is the game's: its viewer passes `eliminations` (no game's module is
// imported here, so every game's viewer shares this one).

export const DEFAULT_FPS = 6;
export const MIN_FPS = 1;
export const MAX_FPS = 60;

/** `value` as a frame rate within MIN_FPS..MAX_FPS, or `fallback` if it is not a number. */
export function clampFps(value, fallback = DEFAULT_FPS) {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.min(MAX_FPS, Math.max(MIN_FPS, n)) : fallback;
}

export class Player {
  /**
   * @param {object} options
   * @param {(player: Player, reason: string) => void} options.onChange called after every change
   * @param {(fn: () => void, ms: number) => unknown} [options.schedule] one-shot timer
   * @param {(handle: unknown) => void} [options.cancel] cancels `schedule`'s timer
   * @param {(frames: object[]) => number[]} [options.eliminations] the turns on which a
   *   player was eliminated, ascending (default: none; `nextElimination` then finds none)
   */
  constructor({ onChange, schedule, cancel, eliminations } = {}) {
    this.onChange = onChange ?? (() => {});
    this.eliminations = eliminations ?? (() => []);
    this.schedule = schedule ?? ((fn, ms) => setTimeout(fn, ms));
    this.cancel = cancel ?? ((handle) => clearTimeout(handle));
    this.frames = [];
    this.index = 0;
    this.playing = false;
    this.fps = DEFAULT_FPS;
    this.loop = false;
    // More frames may still arrive (a live game): playback waits at the end
    // instead of stopping.
    this.live = false;
    // Show each new live frame as it arrives; turned off when the user steps
    // back, turned on again when they go to the last frame.
    this.follow = true;
    this.timer = null;
  }

  get frame() {
    return this.frames[this.index] ?? null;
  }

  get lastIndex() {
    return Math.max(0, this.frames.length - 1);
  }

  get atEnd() {
    return this.index >= this.lastIndex;
  }

  changed(reason) {
    this.onChange(this, reason);
  }

  /** Replace all frames (a file was opened) and show frame `index`. */
  setFrames(frames, index = 0) {
    this.frames = frames;
    this.index = Math.min(Math.max(0, index), this.lastIndex);
    this.follow = this.atEnd;
    this.changed("frames");
  }

  /**
   * Tell the player that `frames` changed in place (`frames.insertFrame`'s
   * result): keep showing the same turn when a late frame lands before it,
   * and move to the newest frame when following a live game.
   */
  framesInserted({ index, added }) {
    if (added && this.frames.length > 1 && index <= this.index) {
      this.index += 1;
    }
    if (this.follow && !this.playing) {
      this.index = this.lastIndex;
    }
    this.changed("frames");
  }

  /** Show frame `index` (clamped); a user's move decides whether to follow the live edge. */
  goto(index, reason = "seek") {
    this.index = Math.min(Math.max(0, Math.trunc(index)), this.lastIndex);
    this.follow = this.atEnd;
    this.changed(reason);
  }

  /** Show the frame of `turn`, or the nearest one before it. */
  gotoTurn(turn, reason = "seek") {
    let best = 0;
    this.frames.forEach((f, i) => {
      if (f.Turn <= turn) {
        best = i;
      }
    });
    this.goto(best, reason);
  }

  // The step commands pause first: stepping while playing would race the timer.
  first() {
    this.pause();
    this.goto(0);
    // The start is where the user asked to be, also before (or with only) the first
    // frame: frames arriving later must not move them to the live edge.
    this.follow = false;
  }

  last() {
    this.pause();
    this.goto(this.lastIndex);
  }

  next() {
    this.pause();
    this.goto(this.index + 1);
  }

  prev() {
    this.pause();
    this.goto(this.index - 1);
  }

  /** Go to the next turn on which a snake was eliminated; false if there is none. */
  nextElimination() {
    const current = this.frame?.Turn ?? -1;
    const turn = this.eliminations(this.frames).find((t) => t > current);
    if (turn === undefined) {
      return false;
    }
    this.pause();
    this.gotoTurn(turn);
    return true;
  }

  /** Go to the previous turn on which a snake was eliminated; false if there is none. */
  prevElimination() {
    const current = this.frame?.Turn ?? 0;
    const turn = this.eliminations(this.frames)
      .filter((t) => t < current)
      .at(-1);
    if (turn === undefined) {
      return false;
    }
    this.pause();
    this.gotoTurn(turn);
    return true;
  }

  play() {
    if (this.playing || this.frames.length === 0) {
      return;
    }
    // Like a media player: play at the end of a finished game starts over.
    if (this.atEnd && !this.live) {
      this.index = 0;
    }
    this.playing = true;
    this.arm();
    this.changed("play");
  }

  pause() {
    if (!this.playing) {
      return;
    }
    this.playing = false;
    this.disarm();
    this.changed("pause");
  }

  toggle() {
    if (this.playing) {
      this.pause();
    } else {
      this.play();
    }
  }

  setFps(fps) {
    this.fps = clampFps(fps, this.fps);
    // Restart the timer at the new rate instead of letting a tick of the old
    // rate fire (changing speed while playing must not skip turns).
    if (this.playing) {
      this.disarm();
      this.arm();
    }
    this.changed("fps");
  }

  arm() {
    this.timer = this.schedule(() => this.tick(), 1000 / this.fps);
  }

  disarm() {
    if (this.timer !== null) {
      this.cancel(this.timer);
      this.timer = null;
    }
  }

  tick() {
    this.timer = null;
    if (!this.playing) {
      return;
    }
    if (!this.atEnd) {
      this.index += 1;
      this.follow = this.atEnd;
      this.changed("tick");
    } else if (this.live) {
      // Wait for the next live frame at the same rate.
      this.follow = true;
    } else if (this.loop && this.frames.length > 1) {
      this.index = 0;
      this.changed("tick");
    } else {
      this.pause();
      return;
    }
    this.arm();
  }
}
