// The Halite III protocol, as much of it as a simple bot needs.
"use strict";

const readline = require("readline");

class Game {
  constructor() {
    this.lines = [];
    this.waiting = null;
    const input = readline.createInterface({ input: process.stdin });
    input.on("line", (line) => {
      if (this.waiting) {
        const resolve = this.waiting;
        this.waiting = null;
        resolve(line);
      } else {
        this.lines.push(line);
      }
    });
    // The game is over: the engine closed our input.
    input.on("close", () => process.exit(0));
  }

  line() {
    if (this.lines.length > 0) {
      return Promise.resolve(this.lines.shift());
    }
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  async numbers() {
    const text = (await this.line()).trim();
    return text === "" ? [] : text.split(/\s+/).map(Number);
  }

  async readInit() {
    await this.line(); // the constants, as JSON: this bot needs none of them
    [this.players, this.myId] = await this.numbers();
    for (let i = 0; i < this.players; i += 1) {
      const [id, x, y] = await this.numbers();
      if (id === this.myId) {
        this.yardX = x;
        this.yardY = y;
      }
    }
    [this.width, this.height] = await this.numbers();
    this.cells = [];
    for (let y = 0; y < this.height; y += 1) {
      this.cells.push(await this.numbers());
    }
  }

  ready(name) {
    process.stdout.write(`${name}\n`);
  }

  async readFrame() {
    [this.turn] = await this.numbers();
    this.ships = [];
    for (let p = 0; p < this.players; p += 1) {
      const [id, count, dropoffs, halite] = await this.numbers();
      for (let i = 0; i < count; i += 1) {
        const [shipId, x, y, cargo] = await this.numbers();
        if (id === this.myId) {
          this.ships.push({ id: shipId, x, y, halite: cargo });
        }
      }
      for (let i = 0; i < dropoffs; i += 1) {
        await this.line();
      }
      if (id === this.myId) {
        this.halite = halite;
      }
    }
    const [changed] = await this.numbers();
    for (let i = 0; i < changed; i += 1) {
      const [x, y, value] = await this.numbers();
      this.cells[y][x] = value;
    }
  }

  endTurn(commands) {
    process.stdout.write(`${commands.join(" ")}\n`);
  }
}

module.exports = { Game };
