// The Halite viewer on the replay of a game started from a snapshot (replay.js): frame 0
// holds the snapshot's cells, a spawn event per ship and a construct event per dropoff,
// as the official engine writes them, and turn 0 shows them.  The Python side made the
// replay (input.doc) and the answers (input.expected) from the snapshot itself.
// pytest runs this file with `node --test` (tests/games/halite3/viewer/test_view_static.py).

import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load, same } from "../../../../viewer/js/support.mjs";

const R = await load("halite3/replay.js");

test("turn 0 of a snapshot game shows the snapshot's ships, dropoffs and halite", () => {
  const { doc, expected } = input;
  const game = new R.HaliteGame(doc);
  const byId = (a, b) => a.id - b.id;
  same(game.shipsAt(0).sort(byId), expected.ships);
  same(game.dropoffsAt(0).map((d) => ({ owner: d.owner, x: d.x, y: d.y })), expected.dropoffs);
  for (const { x, y, halite } of expected.cells) {
    assert.equal(game.cellInfo(0, x, y).halite, halite);
  }
  // Frame 0's cells are kept when a later frame is asked for and then turn 0 again.
  game.gridAt(game.lastIndex);
  for (const { x, y, halite } of expected.cells) {
    assert.equal(game.gridAt(0)[y * game.width + x], halite);
  }
  for (const [pid, row] of expected.players.entries()) {
    same(game.playerAt(pid, 0), row);
  }
  // Turn 1 lists the same ships from its own entities.
  same(game.shipsAt(1).map((s) => s.id).sort((a, b) => a - b), expected.ships.map((s) => s.id));
});
