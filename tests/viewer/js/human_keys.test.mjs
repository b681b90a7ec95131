// The game page's keys for a person playing (pages/human_keys.js).
//
// `input` (tests/viewer/test_human_keys_static.py) holds a real server's answers of
// GET /api/games/{id}/human: a game waiting for the person's move, and one with nobody.
import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load } from "./support.mjs";

const H = await load("viewer/pages/human_keys.js");

const key = (k, extra = {}) => ({ key: k, target: null, ...extra });

test("arrow keys and WASD are moves, other keys and chords are not", () => {
  const moves = ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "w", "a", "s", "d", "D"];
  assert.deepEqual(
    moves.map((k) => H.moveOf(key(k))),
    ["up", "down", "left", "right", "up", "left", "down", "right", "right"],
  );
  const others = [key("x"), key(" "), key("ArrowUp", { ctrlKey: true }), key("w", { altKey: true })];
  for (const other of others) {
    assert.equal(H.moveOf(other), null, other.key);
  }
});

test("the status line says whose move it is", () => {
  const { waiting, nobody } = input;
  assert.equal(waiting.playing, true);
  assert.equal(
    H.seatText(waiting, ""),
    `Your move, turn ${waiting.turn}: arrow keys or WASD (60 s).`,
  );
  assert.ok(H.seatText(waiting, "left").endsWith("You pressed left."));
  const between = { ...waiting, waiting: false, turn: null };
  assert.equal(H.seatText(between, "up"), "The others are moving… You pressed up.");
  assert.equal(nobody.playing, false);
});
