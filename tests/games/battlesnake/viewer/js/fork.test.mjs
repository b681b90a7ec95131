// The position editor's and the game page's fork modules under Node: what the editor
// builds from clicks, what it sends, and how it reads the server's checked position back.
// `input` holds what the editor sends for a drawn board (built in Python) and a real
// server's answer to it (POST /api/battlesnake/position).
// pytest runs this file with `node --test` (tests/games/battlesnake/viewer/test_fork_static.py).

import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load } from "../../../../viewer/js/support.mjs";

const E = await load("battlesnake/pages/editor.js");
const F = await load("viewer/pages/fork.js");

const { sent, answer } = input;

function drawn() {
  let board = E.emptyBoard(7, 7);
  for (const cell of [[1, 1], [1, 0]]) {
    board = E.applyTool(board, "snake", 0, cell);
  }
  board.snakes.push({ name: "B", health: 70, body: [] });
  for (const cell of [[5, 5], [5, 6]]) {
    board = E.applyTool(board, "snake", 1, cell);
  }
  board.snakes[0].name = "A";
  board.snakes[0].health = 80;
  board = E.applyTool(board, "food", 0, [3, 3]);
  board = E.applyTool(board, "hazard", 0, [0, 0]);
  board.turn = 4;
  return board;
}

test("clicks build the board: snakes head first, food and hazards toggled", () => {
  const board = drawn();
  assert.deepEqual(board.snakes[0].body, [[1, 1], [1, 0]]);
  assert.deepEqual(board.food, [[3, 3]]);
  const again = E.applyTool(board, "food", 0, [3, 3]);
  assert.deepEqual(again.food, []);
  const erased = E.applyTool(board, "erase", 0, [5, 6]);
  assert.deepEqual(erased.snakes[1].body, [[5, 5]]);
  assert.deepEqual(board.snakes[1].body, [[5, 5], [5, 6]], "the board clicked on is kept");
});

test("the position sent is Snakewar's shape, as the server takes it", () => {
  assert.deepEqual(E.positionOf(drawn()), sent);
});

test("the server's checked position reads back as the board drawn", () => {
  const back = E.boardOf(answer.position);
  const board = drawn();
  assert.deepEqual(back, board);
});

test("the fork button forks the turn the board reports", () => {
  assert.equal(F.forkUrl("a b/c"), "/api/games/a%20b%2Fc/fork");
  assert.equal(F.forkLabel(null), "Play on from here");
  assert.equal(F.forkLabel(12), "Play on from turn 12");
  assert.equal(F.boardTurn("7"), 7);
  assert.equal(F.boardTurn(-1), null);
  assert.equal(F.boardTurn(1.5), null);
  assert.equal(F.boardTurn(undefined), null);
});
