// The game page's step controls and request inspector (pages/inspect.js).
//
// `input` (tests/viewer/test_inspect_static.py) holds a real server's answers for a step-mode
// game: the game paused, running and over, and its calls (turn 0, a turn not played yet,
// and turn 0 as a public server that keeps no bodies shows it).
import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load, same } from "./support.mjs";

const I = await load("viewer/pages/inspect.js");
const { games, calls } = input;

test("urls escape the game id", () => {
  same(
    [I.actionUrl("a b/c", "step"), I.callsUrl("a b/c", 7)],
    ["/api/games/a%20b%2Fc/step", "/api/games/a%20b%2Fc/calls?turn=7"],
  );
});

test("the step state follows the game", () => {
  const [paused, running, over] = games.map(I.stepState);
  same(paused, {
    text: "Paused at turn 1",
    help: "Step plays the next turn; Resume lets the game run on. Scrub the board meanwhile.",
    running: true,
    paused: true,
  });
  assert.ok(running.running && !running.paused);
  // No turn number: the toolbar shows the board's, which a polled one would lag.
  assert.equal(running.text, "Running");
  assert.ok(running.help.startsWith("Pause holds the game before its next turn"), running.help);
  assert.ok(!over.running && !over.paused);
  assert.ok(over.text.startsWith(`Game ${games[2].status} at turn `), over.text);
  assert.equal(over.help, "");
});

test("the inspector lists each call and pretty-prints its body", () => {
  const turn0 = calls[0];
  same(turn0.calls.map((c) => c.kind), ["start", "start", "move", "move"]);
  const notes = calls.map((answer) => I.callsNote(answer));
  assert.ok(notes[0].startsWith("Calls on turn 0"), notes[0]);
  assert.equal(
    notes[1],
    "No calls on turn 4000 yet: the snakes are asked when the game plays it.",
  );
  assert.ok(notes[2].includes("keeps no request bodies"), notes[2]);
  const move = turn0.calls[2];
  assert.equal(
    I.callSummary(move),
    `move · ok · ${move.latency_ms} ms · move ${move.move}`,
  );
  assert.equal(
    I.callSummary({
      kind: "move",
      status: "http-status",
      http_status: 500,
      latency_ms: 12,
      move: "",
      error: "HTTP status 500",
    }),
    "move · http-status · HTTP 500 · 12 ms — HTTP status 500",
  );
  for (const call of turn0.calls) {
    const pretty = I.prettyBody(call.request, call.request_truncated);
    assert.deepStrictEqual(JSON.parse(pretty), JSON.parse(call.request));
    assert.ok(pretty.startsWith('{\n  "game": {'), pretty);
  }
  same(
    [I.prettyBody("oops"), I.prettyBody(""), I.prettyBody('{"a":', true)],
    ["oops", "(empty)", '{"a":\n… (cut at 16 KiB)'],
  );
});

test("on the last turn of a game being played, the inspector shows the calls just made", () => {
  const [paused, running, over] = games;
  // Paused at turn 1: its calls are made by the next step; turn 0's led to it.
  same(I.inspectedTurn(paused.turn, paused), { turn: paused.turn - 1, led: true });
  same(I.inspectedTurn(paused.turn - 1, paused), { turn: paused.turn - 1, led: false });
  same(I.inspectedTurn(running.turn + 2, running), { turn: running.turn + 1, led: true });
  // Turn 0 has nothing before it; a game over has every turn's calls (its /end last).
  same(I.inspectedTurn(0, { ...paused, turn: 0 }), { turn: 0, led: false });
  same(I.inspectedTurn(over.turn, over), { turn: over.turn, led: false });
  same(I.inspectedTurn(3, null), { turn: 3, led: false });
  assert.equal(
    I.callsNote(calls[0], true),
    "Calls on turn 0, just made: they led to turn 1, whose calls are made when the game plays it.",
  );
});

test("a timed-out call says how long it had, a retried one shows both tries", () => {
  const timedOut = {
    kind: "move",
    status: "timeout",
    http_status: null,
    latency_ms: 2500,
    deadline_ms: 2500,
    bank_ms: 0,
    move: "",
    error: "no complete reply within 2500 ms",
  };
  assert.equal(
    I.callSummary(timedOut),
    "move · timeout · timed out after 2500 ms · bank left 0 ms — no complete reply within 2500 ms",
  );
  // Older records have no deadline: a timeout lasted its whole deadline, its latency.
  assert.equal(
    I.callSummary({ ...timedOut, deadline_ms: undefined, bank_ms: undefined, error: "" }),
    "move · timeout · timed out after 2500 ms",
  );
  const retried = {
    kind: "move",
    status: "ok",
    http_status: 200,
    latency_ms: 4,
    deadline_ms: 500,
    bank_ms: null,
    move: "up",
    error: "",
    first_try: { status: "timeout", latency_ms: 500, deadline_ms: 500, error: "" },
  };
  assert.equal(
    I.callSummary(retried),
    "try 1: timeout · timed out after 500 ms; try 2: move · ok · HTTP 200 · 4 ms · move up",
  );
});
