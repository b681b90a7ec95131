// A Halite III replay document (the JSON inside a .hlt file, REPLAY_FILE_VERSION 3)
// prepared for drawing: the map at any frame, ships, structures and the players'
// series.  No DOM here: the viewer (halite.js) draws it, and Node tests it.
//
// Frame t of the replay (1..T) holds the ships at the start of turn t and the
// players' halite at its end; frame 0 is the start and frame T+1 the end.  The
// map shown at frame t is the initial map with the cell changes of frames 0..t
// (frame 0 has cells, spawns and constructs only for a game started from a snapshot).

import { playerColor } from "./view.js";

const CHECKPOINT = 32; // a full map is kept every this many frames

/** Prepared data for drawing a replay document: maps per frame, dropoffs, series. */
export class HaliteGame {
  /** `doc`: the replay document; `paletteName`: the players' colours (view.js). */
  constructor(doc, paletteName = "default") {
    if (!doc || doc.REPLAY_FILE_VERSION !== 3) {
      throw new Error(`replay file version ${doc?.REPLAY_FILE_VERSION}; expected 3`);
    }
    this.doc = doc;
    this.width = doc.production_map.width;
    this.height = doc.production_map.height;
    this.players = doc.players.map((p, i) => ({
      id: p.player_id ?? i,
      name: String(p.name ?? `player ${i}`),
      color: playerColor(paletteName, i),
      yard: p.factory_location,
    }));
    const stats = doc.game_statistics?.player_statistics ?? [];
    this.stats = new Map(stats.map((s) => [s.player_id, s]));
    const w = this.width;
    const initial = new Int32Array(w * this.height);
    doc.production_map.grid.forEach((row, y) => row.forEach((c, x) => {
      initial[y * w + x] = c.energy;
    }));
    this.maxHalite = initial.reduce((a, b) => Math.max(a, b), 1000);
    // Checkpoints: the map after frame k*CHECKPOINT; any frame is at most
    // CHECKPOINT-1 deltas away, and stepping forward applies one delta.
    this.checkpoints = [];
    this.grid = initial; // the map after the last frame
    this.frames = [];
    this.dropoffs = [];
    this.wrecks = [];
    this.addFrames(doc.full_frames ?? []);
    this.cached = { index: 0, grid: (this.checkpoints[0] ?? initial).slice() };
  }

  /** Colour the players with palette `name` (view.js). */
  setPalette(name) {
    this.players.forEach((p, i) => {
      p.color = playerColor(name, i);
    });
  }

  /** Append frames (a running game's new turns): the maps, dropoffs and wrecks follow. */
  addFrames(frames) {
    const w = this.width;
    for (const frame of frames) {
      const t = this.frames.length;
      this.frames.push(frame);
      for (const c of frame.cells ?? []) {
        this.grid[c.y * w + c.x] = c.production;
      }
      for (const e of frame.events ?? []) {
        if (e.type === "construct") {
          this.dropoffs.push({ owner: e.owner_id, x: e.location.x, y: e.location.y, from: t });
        } else if (e.type === "shipwreck" && this.wrecks.at(-1) !== t) {
          this.wrecks.push(t);
        }
      }
      if (t % CHECKPOINT === 0) {
        this.checkpoints.push(this.grid.slice());
      }
    }
  }

  get lastIndex() {
    return this.frames.length - 1;
  }

  /** The map (Int32Array, index y*width+x) at frame `t`. */
  gridAt(t) {
    const cached = this.cached;
    let from;
    let grid;
    if (t >= cached.index && t - cached.index < CHECKPOINT) {
      from = cached.index;
      grid = cached.grid;
    } else {
      from = Math.floor(t / CHECKPOINT) * CHECKPOINT;
      grid = this.checkpoints[from / CHECKPOINT].slice();
    }
    for (let k = from + 1; k <= t; k += 1) {
      for (const c of this.frames[k].cells ?? []) {
        grid[c.y * this.width + c.x] = c.production;
      }
    }
    this.cached = { index: t, grid };
    return grid;
  }

  /**
   * Frame `t`'s `entities` ({player: {ship id: {x, y, energy, is_inspired}}}). Frame 0
   * lists none: the ships a game started from a snapshot begins with are its `spawn`
   * events there (their `energy` is the cargo), as the official engine records them.
   */
  entitiesAt(t) {
    const frame = this.frames[t];
    if (t !== 0 || !frame) {
      return frame?.entities ?? {};
    }
    const out = {};
    for (const e of frame.events ?? []) {
      if (e.type === "spawn") {
        out[e.owner_id] ??= {};
        out[e.owner_id][e.id] = { x: e.location.x, y: e.location.y, energy: e.energy ?? 0, is_inspired: false };
      }
    }
    return out;
  }

  /** Ships at frame `t`: [{id, owner, x, y, cargo, inspired}]. */
  shipsAt(t) {
    const out = [];
    for (const [pid, ships] of Object.entries(this.entitiesAt(t))) {
      for (const [id, s] of Object.entries(ships)) {
        out.push({ id: Number(id), owner: Number(pid), x: s.x, y: s.y, cargo: s.energy, inspired: s.is_inspired });
      }
    }
    return out;
  }

  dropoffsAt(t) {
    return this.dropoffs.filter((d) => d.from <= t);
  }

  /** A player's row at frame `t`: halite held, deposited, ships and cargo. */
  playerAt(pid, t) {
    const frame = this.frames[t] ?? {};
    const ships = Object.values(this.entitiesAt(t)[pid] ?? {});
    return {
      energy: frame.energy?.[pid] ?? 0,
      deposited: frame.deposited?.[pid] ?? 0,
      ships: ships.length,
      carrying: ships.reduce((sum, s) => sum + s.energy, 0),
    };
  }

  /** The halite each player held, frame by frame. */
  series(pid) {
    return this.frames.map((f) => f.energy?.[pid] ?? 0);
  }

  /** The shipyard or dropoff on cell (`x`, `y`) at frame `t`: `{kind, owner}` or null. */
  structureAt(t, x, y) {
    const yard = this.players.find((p) => p.yard.x === x && p.yard.y === y);
    if (yard) {
      return { kind: "shipyard", owner: yard.id };
    }
    const dropoff = this.dropoffsAt(t).find((d) => d.x === x && d.y === y);
    return dropoff ? { kind: "dropoff", owner: dropoff.owner } : null;
  }

  /** Ship `id` at frame `t` (as shipsAt gives it), or null when it is not on the map. */
  shipAt(t, id) {
    return this.shipsAt(t).find((s) => s.id === id) ?? null;
  }

  /**
   * What the inspector panel shows of cell (`x`, `y`) at frame `t`: its halite, its
   * structure and the ship on it (each `null` when there is none).
   */
  cellInfo(t, x, y) {
    return {
      x,
      y,
      halite: this.gridAt(t)[y * this.width + x],
      structure: this.structureAt(t, x, y),
      ship: this.shipsAt(t).find((s) => s.x === x && s.y === y) ?? null,
    };
  }
}
