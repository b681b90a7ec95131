// Snakewar's test bot for the official JavaScript kit's run_game.sh (not the kit's own
// bot).  It speaks the Halite III protocol: reads the init, answers its name, then reads
// each turn's frame and answers one line: a spawn on turn 1, nothing after.
"use strict";
const readline = require("readline");

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
let pending = [];

async function line() {
  const read = await lines.next();
  if (read.done) process.exit(0);
  return read.value;
}

async function next() {
  while (pending.length === 0) pending = (await line()).split(/\s+/).filter(Boolean);
  return Number(pending.shift());
}

async function main() {
  await line(); // the constants (JSON)
  const players = await next();
  await next();
  for (let i = 0; i < players * 3; i++) await next();
  const width = await next();
  const height = await next();
  for (let i = 0; i < width * height; i++) await next();
  process.stdout.write("js-bot\n");
  for (;;) {
    const turn = await next();
    for (let p = 0; p < players; p++) {
      await next();
      const ships = await next();
      const dropoffs = await next();
      await next();
      for (let i = 0; i < ships * 4 + dropoffs * 3; i++) await next();
    }
    const cells = await next();
    for (let i = 0; i < cells * 3; i++) await next();
    process.stdout.write(turn === 1 ? "g\n" : "\n");
  }
}

main();
